-- Clinic appointment system: three clinic locations, their practitioners, rooms and weekly
-- schedules, patients with insurance policies, appointments (with history and a waitlist),
-- prescriptions, visit notes, invoices and payments, and an audit log.
-- Money is integer cents. Dates are ISO 'YYYY-MM-DD'; datetimes ISO 'YYYY-MM-DDTHH:MM:SS'
-- (clinic local time, no zone); clock times 'HH:MM'. Weekday 0 = Monday ... 6 = Sunday.

CREATE TABLE clinics (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    address_line  TEXT NOT NULL,
    city          TEXT NOT NULL,
    state         TEXT NOT NULL,
    postal_code   TEXT NOT NULL,
    phone         TEXT NOT NULL,
    email         TEXT NOT NULL
);

CREATE TABLE specialties (
    id    INTEGER PRIMARY KEY,
    code  TEXT NOT NULL UNIQUE,
    name  TEXT NOT NULL UNIQUE
);

CREATE TABLE practitioners (
    id              INTEGER PRIMARY KEY,
    first_name      TEXT NOT NULL,
    last_name       TEXT NOT NULL,
    credential      TEXT NOT NULL CHECK (credential IN ('MD', 'DO', 'DPT', 'RN', 'NP')),
    email           TEXT NOT NULL UNIQUE,
    phone           TEXT NOT NULL,
    specialty_id    INTEGER NOT NULL REFERENCES specialties(id),
    license_number  TEXT NOT NULL UNIQUE,
    can_prescribe   INTEGER NOT NULL CHECK (can_prescribe IN (0, 1)),
    active          INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    hired_on        TEXT NOT NULL
);

CREATE TABLE rooms (
    id         INTEGER PRIMARY KEY,
    clinic_id  INTEGER NOT NULL REFERENCES clinics(id),
    name       TEXT NOT NULL,
    room_type  TEXT NOT NULL CHECK (room_type IN ('exam', 'procedure', 'therapy', 'diagnostics', 'treatment')),
    active     INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    notes      TEXT,
    UNIQUE (clinic_id, name)
);

-- Recurring weekly schedule: one row per working block (a practitioner may have a morning and an
-- afternoon block, at different clinics on different days).
CREATE TABLE working_hours (
    id               INTEGER PRIMARY KEY,
    practitioner_id  INTEGER NOT NULL REFERENCES practitioners(id),
    clinic_id        INTEGER NOT NULL REFERENCES clinics(id),
    weekday          INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    start_time       TEXT NOT NULL,
    end_time         TEXT NOT NULL,
    CHECK (start_time < end_time)
);
CREATE INDEX idx_working_hours_practitioner ON working_hours (practitioner_id, weekday);

CREATE TABLE time_off (
    id               INTEGER PRIMARY KEY,
    practitioner_id  INTEGER NOT NULL REFERENCES practitioners(id),
    start_date       TEXT NOT NULL,
    end_date         TEXT NOT NULL,
    reason           TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    CHECK (start_date <= end_date)
);

CREATE TABLE insurance_plans (
    id                INTEGER PRIMARY KEY,
    plan_code         TEXT NOT NULL UNIQUE,
    name              TEXT NOT NULL UNIQUE,
    payer             TEXT NOT NULL,
    coverage_percent  INTEGER NOT NULL CHECK (coverage_percent BETWEEN 0 AND 100),
    copay_cents       INTEGER NOT NULL CHECK (copay_cents >= 0),
    active            INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1))
);

CREATE TABLE appointment_types (
    id                     INTEGER PRIMARY KEY,
    code                   TEXT NOT NULL UNIQUE,
    name                   TEXT NOT NULL UNIQUE,
    specialty_id           INTEGER NOT NULL REFERENCES specialties(id),
    duration_minutes       INTEGER NOT NULL CHECK (duration_minutes > 0 AND duration_minutes % 15 = 0),
    fee_cents              INTEGER NOT NULL CHECK (fee_cents >= 0),
    late_cancel_fee_cents  INTEGER NOT NULL DEFAULT 0 CHECK (late_cancel_fee_cents >= 0),
    room_type              TEXT NOT NULL CHECK (room_type IN ('exam', 'procedure', 'therapy', 'diagnostics', 'treatment')),
    min_age                INTEGER CHECK (min_age IS NULL OR min_age >= 0),
    max_age                INTEGER CHECK (max_age IS NULL OR max_age >= 0),
    description            TEXT NOT NULL
);

-- Appointment types a plan does not cover at all (the patient pays the full fee).
CREATE TABLE plan_exclusions (
    plan_id              INTEGER NOT NULL REFERENCES insurance_plans(id),
    appointment_type_id  INTEGER NOT NULL REFERENCES appointment_types(id),
    PRIMARY KEY (plan_id, appointment_type_id)
);

CREATE TABLE patients (
    id                   INTEGER PRIMARY KEY,
    mrn                  TEXT NOT NULL UNIQUE,
    first_name           TEXT NOT NULL,
    last_name            TEXT NOT NULL,
    date_of_birth        TEXT NOT NULL,
    sex                  TEXT NOT NULL CHECK (sex IN ('F', 'M', 'X')),
    email                TEXT,
    phone                TEXT NOT NULL,
    address_line         TEXT,
    city                 TEXT,
    state                TEXT,
    postal_code          TEXT,
    preferred_clinic_id  INTEGER REFERENCES clinics(id),
    status               TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive', 'deceased')),
    registered_on        TEXT NOT NULL
);
CREATE INDEX idx_patients_name ON patients (last_name, first_name);

-- Insurance policies over time; at most one should be valid on any given day.
CREATE TABLE patient_policies (
    id          INTEGER PRIMARY KEY,
    patient_id  INTEGER NOT NULL REFERENCES patients(id),
    plan_id     INTEGER NOT NULL REFERENCES insurance_plans(id),
    member_id   TEXT NOT NULL,
    valid_from  TEXT NOT NULL,
    valid_to    TEXT,
    CHECK (valid_to IS NULL OR valid_to >= valid_from)
);
CREATE INDEX idx_patient_policies_patient ON patient_policies (patient_id);

CREATE TABLE allergies (
    id           INTEGER PRIMARY KEY,
    patient_id   INTEGER NOT NULL REFERENCES patients(id),
    substance    TEXT NOT NULL,
    reaction     TEXT NOT NULL,
    severity     TEXT NOT NULL CHECK (severity IN ('mild', 'moderate', 'severe')),
    recorded_on  TEXT NOT NULL
);

CREATE TABLE appointments (
    id                   INTEGER PRIMARY KEY,
    patient_id           INTEGER NOT NULL REFERENCES patients(id),
    practitioner_id      INTEGER NOT NULL REFERENCES practitioners(id),
    clinic_id            INTEGER NOT NULL REFERENCES clinics(id),
    room_id              INTEGER NOT NULL REFERENCES rooms(id),
    appointment_type_id  INTEGER NOT NULL REFERENCES appointment_types(id),
    starts_at            TEXT NOT NULL,
    ends_at              TEXT NOT NULL,
    status               TEXT NOT NULL DEFAULT 'scheduled'
                         CHECK (status IN ('scheduled', 'checked_in', 'completed', 'cancelled', 'no_show')),
    reason               TEXT,
    booked_at            TEXT NOT NULL,
    checked_in_at        TEXT,
    completed_at         TEXT,
    cancelled_at         TEXT,
    cancelled_by         TEXT CHECK (cancelled_by IS NULL OR cancelled_by IN ('patient', 'clinic')),
    cancellation_reason  TEXT,
    CHECK (starts_at < ends_at)
);
CREATE INDEX idx_appointments_practitioner ON appointments (practitioner_id, starts_at);
CREATE INDEX idx_appointments_patient ON appointments (patient_id, starts_at);
CREATE INDEX idx_appointments_room ON appointments (room_id, starts_at);

CREATE TABLE appointment_history (
    id                    INTEGER PRIMARY KEY,
    appointment_id        INTEGER NOT NULL REFERENCES appointments(id),
    event                 TEXT NOT NULL
                          CHECK (event IN ('booked', 'rescheduled', 'checked_in', 'completed', 'cancelled', 'no_show')),
    old_starts_at         TEXT,
    new_starts_at         TEXT,
    old_practitioner_id   INTEGER REFERENCES practitioners(id),
    new_practitioner_id   INTEGER REFERENCES practitioners(id),
    note                  TEXT,
    created_at            TEXT NOT NULL
);
CREATE INDEX idx_appointment_history_appointment ON appointment_history (appointment_id);

CREATE TABLE waitlist_entries (
    id                     INTEGER PRIMARY KEY,
    patient_id             INTEGER NOT NULL REFERENCES patients(id),
    appointment_type_id    INTEGER NOT NULL REFERENCES appointment_types(id),
    practitioner_id        INTEGER REFERENCES practitioners(id),
    clinic_id              INTEGER REFERENCES clinics(id),
    earliest_date          TEXT NOT NULL,
    latest_date            TEXT NOT NULL,
    status                 TEXT NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'booked', 'removed')),
    notes                  TEXT,
    created_at             TEXT NOT NULL,
    booked_appointment_id  INTEGER REFERENCES appointments(id),
    removed_reason         TEXT,
    CHECK (earliest_date <= latest_date)
);

CREATE TABLE medications (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    strength    TEXT NOT NULL,
    form        TEXT NOT NULL CHECK (form IN ('tablet', 'capsule', 'liquid', 'inhaler', 'cream', 'injection')),
    drug_class  TEXT NOT NULL,
    controlled  INTEGER NOT NULL DEFAULT 0 CHECK (controlled IN (0, 1)),
    UNIQUE (name, strength, form)
);

CREATE TABLE prescriptions (
    id                   INTEGER PRIMARY KEY,
    patient_id           INTEGER NOT NULL REFERENCES patients(id),
    practitioner_id      INTEGER NOT NULL REFERENCES practitioners(id),
    appointment_id       INTEGER REFERENCES appointments(id),
    medication_id        INTEGER NOT NULL REFERENCES medications(id),
    dosage_instructions  TEXT NOT NULL,
    quantity             INTEGER NOT NULL CHECK (quantity > 0),
    refills_allowed      INTEGER NOT NULL DEFAULT 0 CHECK (refills_allowed >= 0),
    refills_used         INTEGER NOT NULL DEFAULT 0 CHECK (refills_used >= 0),
    status               TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'cancelled', 'expired')),
    issued_on            TEXT NOT NULL,
    expires_on           TEXT NOT NULL,
    last_filled_on       TEXT,
    cancel_reason        TEXT,
    CHECK (refills_used <= refills_allowed),
    CHECK (issued_on <= expires_on)
);
CREATE INDEX idx_prescriptions_patient ON prescriptions (patient_id);

CREATE TABLE visit_notes (
    id               INTEGER PRIMARY KEY,
    appointment_id   INTEGER NOT NULL REFERENCES appointments(id),
    practitioner_id  INTEGER NOT NULL REFERENCES practitioners(id),
    chief_complaint  TEXT NOT NULL,
    assessment       TEXT NOT NULL,
    plan             TEXT NOT NULL,
    created_at       TEXT NOT NULL
);

-- patient_due_cents is what the patient owes; insurance_covered_cents is billed to the payer.
CREATE TABLE invoices (
    id                       INTEGER PRIMARY KEY,
    invoice_number           TEXT NOT NULL UNIQUE,
    patient_id               INTEGER NOT NULL REFERENCES patients(id),
    appointment_id           INTEGER REFERENCES appointments(id),
    policy_id                INTEGER REFERENCES patient_policies(id),
    kind                     TEXT NOT NULL CHECK (kind IN ('visit', 'late_cancellation', 'no_show')),
    issued_on                TEXT NOT NULL,
    due_on                   TEXT NOT NULL,
    subtotal_cents           INTEGER NOT NULL CHECK (subtotal_cents >= 0),
    insurance_covered_cents  INTEGER NOT NULL DEFAULT 0 CHECK (insurance_covered_cents >= 0),
    patient_due_cents        INTEGER NOT NULL CHECK (patient_due_cents >= 0),
    status                   TEXT NOT NULL DEFAULT 'issued' CHECK (status IN ('issued', 'partially_paid', 'paid', 'void')),
    void_reason              TEXT,
    CHECK (insurance_covered_cents + patient_due_cents = subtotal_cents),
    CHECK (issued_on <= due_on)
);
CREATE INDEX idx_invoices_patient ON invoices (patient_id);

CREATE TABLE invoice_lines (
    id                INTEGER PRIMARY KEY,
    invoice_id        INTEGER NOT NULL REFERENCES invoices(id),
    description       TEXT NOT NULL,
    quantity          INTEGER NOT NULL DEFAULT 1 CHECK (quantity > 0),
    unit_price_cents  INTEGER NOT NULL CHECK (unit_price_cents >= 0),
    amount_cents      INTEGER NOT NULL CHECK (amount_cents >= 0)
);

CREATE TABLE payments (
    id            INTEGER PRIMARY KEY,
    invoice_id    INTEGER NOT NULL REFERENCES invoices(id),
    amount_cents  INTEGER NOT NULL CHECK (amount_cents > 0),
    method        TEXT NOT NULL CHECK (method IN ('card', 'cash', 'check', 'bank_transfer')),
    reference     TEXT,
    paid_at       TEXT NOT NULL
);
CREATE INDEX idx_payments_invoice ON payments (invoice_id);

CREATE TABLE audit_log (
    id           INTEGER PRIMARY KEY,
    logged_at    TEXT NOT NULL,
    action       TEXT NOT NULL,
    entity_type  TEXT NOT NULL,
    entity_id    INTEGER NOT NULL,
    details      TEXT NOT NULL
);
CREATE INDEX idx_audit_log_entity ON audit_log (entity_type, entity_id);
