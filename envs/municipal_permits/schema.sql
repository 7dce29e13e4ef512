-- municipal_permits: a city permits office. Timestamps ISO-8601 without time zone, dates YYYY-MM-DD, money in cents.

CREATE TABLE districts (
    id      INTEGER PRIMARY KEY,
    code    TEXT NOT NULL UNIQUE,
    name    TEXT NOT NULL UNIQUE
);

CREATE TABLE zones (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL
);

CREATE TABLE parcels (
    id              INTEGER PRIMARY KEY,
    parcel_number   TEXT NOT NULL UNIQUE,
    address         TEXT NOT NULL UNIQUE,
    district_id     INTEGER NOT NULL REFERENCES districts(id),
    zone_id         INTEGER NOT NULL REFERENCES zones(id)
);

CREATE TABLE applicants (
    id                  INTEGER PRIMARY KEY,
    kind                TEXT NOT NULL CHECK (kind IN ('resident', 'business')),
    name                TEXT NOT NULL,
    email               TEXT NOT NULL UNIQUE,
    phone               TEXT NOT NULL,
    home_parcel_id      INTEGER REFERENCES parcels(id),
    business_license_no TEXT UNIQUE,
    created_at          TEXT NOT NULL,
    CHECK ((kind = 'business') = (business_license_no IS NOT NULL)),
    CHECK (kind = 'business' OR home_parcel_id IS NOT NULL)
);

CREATE TABLE staff (
    id              INTEGER PRIMARY KEY,
    full_name       TEXT NOT NULL,
    email           TEXT NOT NULL UNIQUE,
    role            TEXT NOT NULL CHECK (role IN ('clerk', 'reviewer', 'inspector', 'supervisor')),
    district_id     INTEGER REFERENCES districts(id),
    daily_capacity  INTEGER CHECK (daily_capacity IS NULL OR daily_capacity BETWEEN 1 AND 8),
    is_active       INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    CHECK ((role = 'inspector') = (district_id IS NOT NULL AND daily_capacity IS NOT NULL))
);

CREATE TABLE permit_types (
    id                      INTEGER PRIMARY KEY,
    code                    TEXT NOT NULL UNIQUE,
    name                    TEXT NOT NULL,
    base_fee_cents          INTEGER NOT NULL CHECK (base_fee_cents >= 0),
    per_day_fee_cents       INTEGER NOT NULL DEFAULT 0 CHECK (per_day_fee_cents >= 0),
    validity_days           INTEGER CHECK (validity_days IS NULL OR validity_days > 0),
    applicant_kind          TEXT CHECK (applicant_kind IS NULL OR applicant_kind IN ('resident', 'business')),
    requires_inspection     INTEGER NOT NULL CHECK (requires_inspection IN (0, 1)),
    notice_days             INTEGER NOT NULL DEFAULT 0 CHECK (notice_days >= 0),
    min_lead_days           INTEGER NOT NULL DEFAULT 0 CHECK (min_lead_days >= 0),
    renewal_fee_cents       INTEGER CHECK (renewal_fee_cents IS NULL OR renewal_fee_cents >= 0)
);

CREATE TABLE permit_type_zones (
    id              INTEGER PRIMARY KEY,
    permit_type_id  INTEGER NOT NULL REFERENCES permit_types(id),
    zone_id         INTEGER NOT NULL REFERENCES zones(id),
    UNIQUE (permit_type_id, zone_id)
);

CREATE TABLE required_documents (
    id              INTEGER PRIMARY KEY,
    permit_type_id  INTEGER NOT NULL REFERENCES permit_types(id),
    doc_code        TEXT NOT NULL,
    name            TEXT NOT NULL,
    UNIQUE (permit_type_id, doc_code)
);

CREATE TABLE applications (
    id              INTEGER PRIMARY KEY,
    app_number      TEXT NOT NULL UNIQUE,
    permit_type_id  INTEGER NOT NULL REFERENCES permit_types(id),
    applicant_id    INTEGER NOT NULL REFERENCES applicants(id),
    parcel_id       INTEGER NOT NULL REFERENCES parcels(id),
    description     TEXT NOT NULL,
    start_date      TEXT,
    end_date        TEXT,
    status          TEXT NOT NULL CHECK (status IN ('draft', 'submitted', 'under_review', 'approved', 'rejected',
                                                    'issued', 'expired', 'withdrawn')),
    fee_cents       INTEGER NOT NULL CHECK (fee_cents >= 0),
    reinspections   INTEGER NOT NULL DEFAULT 0 CHECK (reinspections BETWEEN 0 AND 2),
    created_at      TEXT NOT NULL,
    submitted_at    TEXT,
    reviewer_id     INTEGER REFERENCES staff(id),
    decided_at      TEXT,
    decision_note   TEXT,
    permit_number   TEXT UNIQUE,
    issued_at       TEXT,
    expires_on      TEXT,
    withdrawn_at    TEXT,
    renewal_of_id   INTEGER REFERENCES applications(id),
    CHECK ((start_date IS NULL) = (end_date IS NULL)),
    CHECK (end_date IS NULL OR end_date >= start_date),
    CHECK ((status IN ('issued', 'expired')) = (permit_number IS NOT NULL)),
    CHECK ((permit_number IS NULL) = (issued_at IS NULL) AND (issued_at IS NULL) = (expires_on IS NULL)),
    CHECK ((status = 'draft') = (submitted_at IS NULL) OR status = 'withdrawn'),
    CHECK ((status = 'withdrawn') = (withdrawn_at IS NOT NULL)),
    CHECK (status NOT IN ('under_review', 'approved', 'rejected', 'issued', 'expired') OR reviewer_id IS NOT NULL),
    CHECK ((status IN ('approved', 'rejected', 'issued', 'expired')) <= (decided_at IS NOT NULL))
);

CREATE TABLE application_documents (
    id              INTEGER PRIMARY KEY,
    application_id  INTEGER NOT NULL REFERENCES applications(id),
    doc_code        TEXT NOT NULL,
    file_name       TEXT NOT NULL,
    uploaded_at     TEXT NOT NULL,
    UNIQUE (application_id, doc_code)
);

CREATE TABLE payments (
    id              INTEGER PRIMARY KEY,
    application_id  INTEGER NOT NULL REFERENCES applications(id),
    kind            TEXT NOT NULL CHECK (kind IN ('fee', 'refund')),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    method          TEXT NOT NULL CHECK (method IN ('card', 'check', 'cash', 'original_method')),
    reference       TEXT NOT NULL UNIQUE,
    recorded_by     INTEGER REFERENCES staff(id),
    paid_at         TEXT NOT NULL
);

CREATE TABLE inspections (
    id              INTEGER PRIMARY KEY,
    application_id  INTEGER NOT NULL REFERENCES applications(id),
    inspector_id    INTEGER NOT NULL REFERENCES staff(id),
    kind            TEXT NOT NULL CHECK (kind IN ('initial', 'reinspection')),
    scheduled_date  TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('scheduled', 'passed', 'failed', 'cancelled')),
    result_note     TEXT,
    completed_at    TEXT,
    CHECK ((status IN ('passed', 'failed')) = (completed_at IS NOT NULL))
);

CREATE TABLE public_notices (
    id                  INTEGER PRIMARY KEY,
    application_id      INTEGER NOT NULL UNIQUE REFERENCES applications(id),
    posted_on           TEXT NOT NULL,
    comment_deadline    TEXT NOT NULL,
    posted_by           INTEGER NOT NULL REFERENCES staff(id),
    CHECK (comment_deadline > posted_on)
);

CREATE TABLE public_comments (
    id              INTEGER PRIMARY KEY,
    notice_id       INTEGER NOT NULL REFERENCES public_notices(id),
    commenter_name  TEXT NOT NULL,
    commenter_email TEXT NOT NULL,
    position        TEXT NOT NULL CHECK (position IN ('support', 'oppose', 'neutral')),
    body            TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
    submitted_at    TEXT NOT NULL,
    UNIQUE (notice_id, commenter_email)
);

CREATE TABLE appeals (
    id              INTEGER PRIMARY KEY,
    application_id  INTEGER NOT NULL UNIQUE REFERENCES applications(id),
    reason          TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('filed', 'upheld', 'denied')),
    filed_at        TEXT NOT NULL,
    decided_by      INTEGER REFERENCES staff(id),
    decided_at      TEXT,
    decision_note   TEXT,
    CHECK ((status = 'filed') = (decided_at IS NULL)),
    CHECK ((decided_at IS NULL) = (decided_by IS NULL))
);

CREATE INDEX idx_app_applicant ON applications(applicant_id, status);
CREATE INDEX idx_insp_inspector ON inspections(inspector_id, scheduled_date);
CREATE INDEX idx_pay_app ON payments(application_id);
