-- pharmacy: a retail pharmacy chain (stores, drugs, stock lots, prescriptions, fills, orders).
-- Timestamps are ISO-8601 text without time zone ("2026-04-14T10:00:00"), dates are "YYYY-MM-DD".
-- Money is integer cents. A lot is usable on a day when its expiry_date is after that day.

CREATE TABLE stores (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL UNIQUE,
    city        TEXT NOT NULL,
    phone       TEXT NOT NULL,
    opened_on   TEXT NOT NULL
);

CREATE TABLE staff (
    id          INTEGER PRIMARY KEY,
    store_id    INTEGER NOT NULL REFERENCES stores(id),
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    role        TEXT NOT NULL CHECK (role IN ('pharmacist', 'technician', 'manager')),
    license_no  TEXT UNIQUE,
    is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    CHECK ((role = 'pharmacist') = (license_no IS NOT NULL))
);

CREATE TABLE suppliers (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    email           TEXT NOT NULL UNIQUE,
    lead_time_days  INTEGER NOT NULL CHECK (lead_time_days BETWEEN 1 AND 30),
    min_order_units INTEGER NOT NULL CHECK (min_order_units >= 1)
);

CREATE TABLE drugs (
    id                  INTEGER PRIMARY KEY,
    ndc                 TEXT NOT NULL UNIQUE,
    name                TEXT NOT NULL,
    generic_name        TEXT NOT NULL,
    strength            TEXT NOT NULL,
    form                TEXT NOT NULL CHECK (form IN ('tablet', 'capsule', 'liquid', 'inhaler', 'cream', 'injection', 'patch')),
    drug_class          TEXT NOT NULL,
    schedule            INTEGER NOT NULL DEFAULT 0 CHECK (schedule IN (0, 2, 3, 4, 5)),
    rx_only             INTEGER NOT NULL CHECK (rx_only IN (0, 1)),
    tier                INTEGER CHECK (tier IS NULL OR tier BETWEEN 1 AND 4),
    unit_price_cents    INTEGER NOT NULL CHECK (unit_price_cents > 0),
    max_units_per_sale  INTEGER CHECK (max_units_per_sale IS NULL OR max_units_per_sale > 0),
    supplier_id         INTEGER NOT NULL REFERENCES suppliers(id),
    UNIQUE (name, strength, form),
    CHECK ((rx_only = 1) = (tier IS NOT NULL)),
    CHECK (schedule = 0 OR rx_only = 1)
);

-- Class pairs (stored with class_a < class_b) that must not be taken together ('major' blocks a fill).
CREATE TABLE drug_interactions (
    id          INTEGER PRIMARY KEY,
    class_a     TEXT NOT NULL,
    class_b     TEXT NOT NULL,
    severity    TEXT NOT NULL CHECK (severity IN ('major', 'moderate')),
    description TEXT NOT NULL,
    UNIQUE (class_a, class_b),
    CHECK (class_a < class_b)
);

CREATE TABLE inventory_lots (
    id              INTEGER PRIMARY KEY,
    store_id        INTEGER NOT NULL REFERENCES stores(id),
    drug_id         INTEGER NOT NULL REFERENCES drugs(id),
    lot_number      TEXT NOT NULL,
    expiry_date     TEXT NOT NULL,
    quantity        INTEGER NOT NULL CHECK (quantity >= 0),
    received_on     TEXT NOT NULL,
    disposed_at     TEXT,
    UNIQUE (store_id, drug_id, lot_number),
    CHECK (disposed_at IS NULL OR quantity = 0)
);

CREATE TABLE prescribers (
    id          INTEGER PRIMARY KEY,
    full_name   TEXT NOT NULL,
    npi         TEXT NOT NULL UNIQUE CHECK (length(npi) = 10),
    dea_number  TEXT UNIQUE,
    specialty   TEXT NOT NULL,
    phone       TEXT NOT NULL
);

CREATE TABLE insurance_plans (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL UNIQUE,
    payer       TEXT NOT NULL
);

-- Copay per fill by drug tier; covered = 0 means the patient pays the cash price.
CREATE TABLE plan_tiers (
    id              INTEGER PRIMARY KEY,
    plan_id         INTEGER NOT NULL REFERENCES insurance_plans(id),
    tier            INTEGER NOT NULL CHECK (tier BETWEEN 1 AND 4),
    covered         INTEGER NOT NULL CHECK (covered IN (0, 1)),
    copay_cents     INTEGER CHECK (copay_cents IS NULL OR copay_cents >= 0),
    UNIQUE (plan_id, tier),
    CHECK ((covered = 1) = (copay_cents IS NOT NULL))
);

CREATE TABLE patients (
    id              INTEGER PRIMARY KEY,
    full_name       TEXT NOT NULL,
    date_of_birth   TEXT NOT NULL,
    email           TEXT UNIQUE,
    phone           TEXT,
    home_store_id   INTEGER NOT NULL REFERENCES stores(id),
    plan_id         INTEGER REFERENCES insurance_plans(id),
    member_id       TEXT,
    created_at      TEXT NOT NULL,
    CHECK ((plan_id IS NULL) = (member_id IS NULL)),
    CHECK (email IS NOT NULL OR phone IS NOT NULL)
);

CREATE TABLE patient_allergies (
    id              INTEGER PRIMARY KEY,
    patient_id      INTEGER NOT NULL REFERENCES patients(id),
    drug_class      TEXT NOT NULL,
    severity        TEXT NOT NULL CHECK (severity IN ('mild', 'moderate', 'severe')),
    reaction        TEXT NOT NULL DEFAULT '',
    recorded_by     INTEGER REFERENCES staff(id),
    recorded_at     TEXT NOT NULL,
    UNIQUE (patient_id, drug_class)
);

CREATE TABLE prescriptions (
    id                  INTEGER PRIMARY KEY,
    rx_number           TEXT NOT NULL UNIQUE,
    patient_id          INTEGER NOT NULL REFERENCES patients(id),
    prescriber_id       INTEGER NOT NULL REFERENCES prescribers(id),
    drug_id             INTEGER NOT NULL REFERENCES drugs(id),
    store_id            INTEGER NOT NULL REFERENCES stores(id),
    quantity            INTEGER NOT NULL CHECK (quantity > 0),
    days_supply         INTEGER NOT NULL CHECK (days_supply BETWEEN 1 AND 90),
    directions          TEXT NOT NULL,
    refills_authorized  INTEGER NOT NULL CHECK (refills_authorized BETWEEN 0 AND 11),
    refills_remaining   INTEGER NOT NULL CHECK (refills_remaining >= 0),
    written_on          TEXT NOT NULL,
    expires_on          TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('active', 'transferred', 'discontinued')),
    status_reason       TEXT,
    transferred_from_id INTEGER REFERENCES prescriptions(id),
    CHECK (refills_remaining <= refills_authorized),
    CHECK (expires_on > written_on)
);

-- fill_number 0 is the original fill, 1.. are refills.
CREATE TABLE fills (
    id              INTEGER PRIMARY KEY,
    prescription_id INTEGER NOT NULL REFERENCES prescriptions(id),
    store_id        INTEGER NOT NULL REFERENCES stores(id),
    fill_number     INTEGER NOT NULL CHECK (fill_number >= 0),
    quantity        INTEGER NOT NULL CHECK (quantity > 0),
    status          TEXT NOT NULL CHECK (status IN ('queued', 'filled', 'picked_up', 'returned_to_stock', 'cancelled')),
    copay_cents     INTEGER NOT NULL CHECK (copay_cents >= 0),
    lot_id          INTEGER REFERENCES inventory_lots(id),
    queued_by       INTEGER NOT NULL REFERENCES staff(id),
    pharmacist_id   INTEGER REFERENCES staff(id),
    queued_at       TEXT NOT NULL,
    filled_at       TEXT,
    picked_up_at    TEXT,
    closed_at       TEXT,
    CHECK ((status IN ('queued', 'cancelled')) OR (filled_at IS NOT NULL AND lot_id IS NOT NULL AND pharmacist_id IS NOT NULL)),
    CHECK ((status = 'picked_up') = (picked_up_at IS NOT NULL)),
    CHECK ((status IN ('returned_to_stock', 'cancelled')) = (closed_at IS NOT NULL))
);

CREATE TABLE transfers (
    id                  INTEGER PRIMARY KEY,
    from_prescription_id INTEGER NOT NULL UNIQUE REFERENCES prescriptions(id),
    to_prescription_id  INTEGER NOT NULL UNIQUE REFERENCES prescriptions(id),
    from_store_id       INTEGER NOT NULL REFERENCES stores(id),
    to_store_id         INTEGER NOT NULL REFERENCES stores(id),
    pharmacist_id       INTEGER NOT NULL REFERENCES staff(id),
    transferred_at      TEXT NOT NULL,
    CHECK (from_store_id <> to_store_id)
);

CREATE TABLE otc_sales (
    id          INTEGER PRIMARY KEY,
    store_id    INTEGER NOT NULL REFERENCES stores(id),
    staff_id    INTEGER NOT NULL REFERENCES staff(id),
    drug_id     INTEGER NOT NULL REFERENCES drugs(id),
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    total_cents INTEGER NOT NULL CHECK (total_cents >= 0),
    sold_at     TEXT NOT NULL
);

CREATE TABLE otc_sale_lots (
    id          INTEGER PRIMARY KEY,
    sale_id     INTEGER NOT NULL REFERENCES otc_sales(id),
    lot_id      INTEGER NOT NULL REFERENCES inventory_lots(id),
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    UNIQUE (sale_id, lot_id)
);

CREATE TABLE refill_reminders (
    id              INTEGER PRIMARY KEY,
    prescription_id INTEGER NOT NULL REFERENCES prescriptions(id),
    remind_on       TEXT NOT NULL,
    channel         TEXT NOT NULL CHECK (channel IN ('sms', 'email')),
    status          TEXT NOT NULL CHECK (status IN ('scheduled', 'sent', 'cancelled')),
    created_by      INTEGER NOT NULL REFERENCES staff(id),
    created_at      TEXT NOT NULL
);

CREATE TABLE pharmacist_notes (
    id              INTEGER PRIMARY KEY,
    patient_id      INTEGER NOT NULL REFERENCES patients(id),
    prescription_id INTEGER REFERENCES prescriptions(id),
    author_id       INTEGER NOT NULL REFERENCES staff(id),
    body            TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
    created_at      TEXT NOT NULL
);

CREATE TABLE stock_orders (
    id              INTEGER PRIMARY KEY,
    store_id        INTEGER NOT NULL REFERENCES stores(id),
    supplier_id     INTEGER NOT NULL REFERENCES suppliers(id),
    status          TEXT NOT NULL CHECK (status IN ('draft', 'submitted', 'received', 'cancelled')),
    created_by      INTEGER NOT NULL REFERENCES staff(id),
    created_at      TEXT NOT NULL,
    submitted_by    INTEGER REFERENCES staff(id),
    submitted_at    TEXT,
    closed_at       TEXT,
    CHECK ((status = 'draft') = (submitted_at IS NULL) OR status = 'cancelled'),
    CHECK ((submitted_at IS NULL) = (submitted_by IS NULL)),
    CHECK ((status IN ('received', 'cancelled')) = (closed_at IS NOT NULL))
);

CREATE TABLE stock_order_lines (
    id          INTEGER PRIMARY KEY,
    order_id    INTEGER NOT NULL REFERENCES stock_orders(id),
    drug_id     INTEGER NOT NULL REFERENCES drugs(id),
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    UNIQUE (order_id, drug_id)
);

CREATE INDEX idx_lots_store_drug ON inventory_lots(store_id, drug_id, expiry_date);
CREATE INDEX idx_rx_patient ON prescriptions(patient_id, status);
CREATE INDEX idx_fills_rx ON fills(prescription_id, status);
CREATE INDEX idx_fills_store ON fills(store_id, status);
CREATE INDEX idx_notes_patient ON pharmacist_notes(patient_id);
