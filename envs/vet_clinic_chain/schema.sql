PRAGMA foreign_keys = ON;

CREATE TABLE branches (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL UNIQUE,
    address_line TEXT NOT NULL,
    city TEXT NOT NULL,
    postcode TEXT NOT NULL,
    phone TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    opened_on TEXT NOT NULL,
    is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);

CREATE TABLE branch_hours (
    id INTEGER PRIMARY KEY,
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    weekday INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    is_closed INTEGER NOT NULL CHECK (is_closed IN (0, 1)),
    opens_at TEXT,
    closes_at TEXT,
    UNIQUE (branch_id, weekday)
);

CREATE TABLE staff (
    id INTEGER PRIMARY KEY,
    staff_number TEXT NOT NULL UNIQUE,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    full_name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('vet', 'nurse', 'receptionist', 'practice_manager')),
    license_number TEXT UNIQUE,
    home_branch_id INTEGER NOT NULL REFERENCES branches(id),
    hired_on TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'on_leave', 'left')),
    left_on TEXT
);

CREATE TABLE staff_branch_assignments (
    id INTEGER PRIMARY KEY,
    staff_id INTEGER NOT NULL REFERENCES staff(id),
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    weekday INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    start_time TEXT NOT NULL,
    end_time TEXT NOT NULL,
    valid_from TEXT NOT NULL,
    valid_to TEXT,
    UNIQUE (staff_id, weekday, valid_from)
);

CREATE TABLE owners (
    id INTEGER PRIMARY KEY,
    client_number TEXT NOT NULL UNIQUE,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    full_name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    address_line TEXT NOT NULL,
    city TEXT NOT NULL,
    postcode TEXT NOT NULL,
    preferred_branch_id INTEGER NOT NULL REFERENCES branches(id),
    marketing_opt_in INTEGER NOT NULL CHECK (marketing_opt_in IN (0, 1)),
    reminder_channel TEXT NOT NULL CHECK (reminder_channel IN ('email', 'sms', 'none')),
    status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
    registered_at TEXT NOT NULL
);

CREATE TABLE species (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL UNIQUE
);

CREATE TABLE pets (
    id INTEGER PRIMARY KEY,
    pet_code TEXT NOT NULL UNIQUE,
    owner_id INTEGER NOT NULL REFERENCES owners(id),
    name TEXT NOT NULL,
    species_id INTEGER NOT NULL REFERENCES species(id),
    breed TEXT NOT NULL,
    sex TEXT NOT NULL CHECK (sex IN ('male', 'female')),
    is_neutered INTEGER NOT NULL CHECK (is_neutered IN (0, 1)),
    date_of_birth TEXT NOT NULL,
    colour TEXT NOT NULL,
    weight_kg REAL,
    microchip_number TEXT UNIQUE,
    allergies TEXT,
    status TEXT NOT NULL CHECK (status IN ('active', 'deceased', 'transferred')),
    registered_at TEXT NOT NULL,
    deceased_on TEXT
);

CREATE TABLE appointment_types (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL UNIQUE,
    duration_minutes INTEGER NOT NULL CHECK (duration_minutes > 0),
    base_fee_cents INTEGER NOT NULL CHECK (base_fee_cents >= 0),
    requires_vet INTEGER NOT NULL CHECK (requires_vet IN (0, 1)),
    is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);

CREATE TABLE appointments (
    id INTEGER PRIMARY KEY,
    reference TEXT NOT NULL UNIQUE,
    owner_id INTEGER NOT NULL REFERENCES owners(id),
    pet_id INTEGER NOT NULL REFERENCES pets(id),
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    staff_id INTEGER NOT NULL REFERENCES staff(id),
    appointment_type_id INTEGER NOT NULL REFERENCES appointment_types(id),
    scheduled_start TEXT NOT NULL,
    scheduled_end TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('booked', 'checked_in', 'completed', 'cancelled', 'no_show')),
    reason TEXT NOT NULL,
    booked_via TEXT NOT NULL CHECK (booked_via IN ('phone', 'online', 'walk_in', 'front_desk')),
    booked_by_staff_id INTEGER REFERENCES staff(id),
    created_at TEXT NOT NULL,
    checked_in_at TEXT,
    completed_at TEXT,
    cancelled_at TEXT,
    cancelled_by_staff_id INTEGER REFERENCES staff(id),
    cancellation_reason TEXT,
    clinical_notes TEXT
);

CREATE TABLE vaccines (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    species_id INTEGER NOT NULL REFERENCES species(id),
    manufacturer TEXT NOT NULL,
    booster_interval_days INTEGER NOT NULL CHECK (booster_interval_days > 0),
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    is_core INTEGER NOT NULL CHECK (is_core IN (0, 1)),
    is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);

CREATE TABLE vaccinations (
    id INTEGER PRIMARY KEY,
    certificate_number TEXT NOT NULL UNIQUE,
    pet_id INTEGER NOT NULL REFERENCES pets(id),
    vaccine_id INTEGER NOT NULL REFERENCES vaccines(id),
    appointment_id INTEGER REFERENCES appointments(id),
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    administered_by_staff_id INTEGER NOT NULL REFERENCES staff(id),
    administered_on TEXT NOT NULL,
    batch_number TEXT NOT NULL,
    next_due_on TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('valid', 'superseded', 'voided')),
    reaction_noted INTEGER NOT NULL CHECK (reaction_noted IN (0, 1)),
    notes TEXT
);

CREATE TABLE treatment_types (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL UNIQUE,
    category TEXT NOT NULL CHECK (category IN ('consultation', 'diagnostic', 'surgery', 'dental', 'procedure', 'hospitalisation')),
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    requires_vet INTEGER NOT NULL CHECK (requires_vet IN (0, 1)),
    is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);

CREATE TABLE treatments (
    id INTEGER PRIMARY KEY,
    appointment_id INTEGER NOT NULL REFERENCES appointments(id),
    pet_id INTEGER NOT NULL REFERENCES pets(id),
    treatment_type_id INTEGER NOT NULL REFERENCES treatment_types(id),
    performed_by_staff_id INTEGER NOT NULL REFERENCES staff(id),
    status TEXT NOT NULL CHECK (status IN ('planned', 'performed', 'cancelled')),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0),
    recorded_at TEXT NOT NULL,
    performed_at TEXT,
    notes TEXT
);

CREATE TABLE medications (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    form TEXT NOT NULL CHECK (form IN ('tablet', 'capsule', 'liquid', 'injection', 'topical', 'drops', 'chewable')),
    strength TEXT NOT NULL,
    unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0),
    is_controlled INTEGER NOT NULL CHECK (is_controlled IN (0, 1)),
    is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);

CREATE TABLE prescriptions (
    id INTEGER PRIMARY KEY,
    prescription_number TEXT NOT NULL UNIQUE,
    pet_id INTEGER NOT NULL REFERENCES pets(id),
    appointment_id INTEGER REFERENCES appointments(id),
    medication_id INTEGER NOT NULL REFERENCES medications(id),
    prescribed_by_staff_id INTEGER NOT NULL REFERENCES staff(id),
    prescribed_at TEXT NOT NULL,
    dosage_instructions TEXT NOT NULL,
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0),
    refills_allowed INTEGER NOT NULL CHECK (refills_allowed >= 0),
    refills_used INTEGER NOT NULL CHECK (refills_used >= 0),
    status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'cancelled', 'expired')),
    expires_on TEXT NOT NULL,
    cancelled_at TEXT,
    cancellation_reason TEXT
);

CREATE TABLE invoices (
    id INTEGER PRIMARY KEY,
    invoice_number TEXT NOT NULL UNIQUE,
    owner_id INTEGER NOT NULL REFERENCES owners(id),
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    appointment_id INTEGER UNIQUE REFERENCES appointments(id),
    created_by_staff_id INTEGER NOT NULL REFERENCES staff(id),
    status TEXT NOT NULL CHECK (status IN ('draft', 'issued', 'partially_paid', 'paid', 'void')),
    subtotal_cents INTEGER NOT NULL CHECK (subtotal_cents >= 0),
    discount_cents INTEGER NOT NULL CHECK (discount_cents >= 0),
    tax_cents INTEGER NOT NULL CHECK (tax_cents >= 0),
    total_cents INTEGER NOT NULL CHECK (total_cents >= 0),
    amount_paid_cents INTEGER NOT NULL CHECK (amount_paid_cents >= 0),
    created_at TEXT NOT NULL,
    issued_at TEXT,
    due_on TEXT,
    paid_at TEXT,
    voided_at TEXT,
    void_reason TEXT
);

CREATE TABLE invoice_lines (
    id INTEGER PRIMARY KEY,
    invoice_id INTEGER NOT NULL REFERENCES invoices(id),
    line_type TEXT NOT NULL CHECK (line_type IN ('consultation', 'treatment', 'vaccination', 'prescription', 'other')),
    description TEXT NOT NULL,
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0),
    line_total_cents INTEGER NOT NULL CHECK (line_total_cents >= 0),
    treatment_id INTEGER REFERENCES treatments(id),
    vaccination_id INTEGER REFERENCES vaccinations(id),
    prescription_id INTEGER REFERENCES prescriptions(id)
);

CREATE TABLE payments (
    id INTEGER PRIMARY KEY,
    payment_reference TEXT NOT NULL UNIQUE,
    invoice_id INTEGER NOT NULL REFERENCES invoices(id),
    owner_id INTEGER NOT NULL REFERENCES owners(id),
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    method TEXT NOT NULL CHECK (method IN ('card', 'cash', 'bank_transfer', 'insurance')),
    status TEXT NOT NULL CHECK (status IN ('completed', 'refunded')),
    paid_at TEXT NOT NULL,
    received_by_staff_id INTEGER REFERENCES staff(id),
    refunded_at TEXT,
    refund_reason TEXT
);

CREATE TABLE activity_log (
    id INTEGER PRIMARY KEY,
    occurred_at TEXT NOT NULL,
    staff_id INTEGER REFERENCES staff(id),
    owner_id INTEGER REFERENCES owners(id),
    entity_type TEXT NOT NULL CHECK (entity_type IN ('owner', 'pet', 'appointment', 'vaccination', 'treatment', 'prescription', 'invoice', 'payment', 'staff')),
    entity_id INTEGER NOT NULL,
    action TEXT NOT NULL,
    old_value TEXT,
    new_value TEXT,
    details TEXT
);

CREATE INDEX idx_staff_home_branch ON staff(home_branch_id);
CREATE INDEX idx_assign_staff ON staff_branch_assignments(staff_id);
CREATE INDEX idx_assign_branch ON staff_branch_assignments(branch_id, weekday);
CREATE INDEX idx_owners_last_name ON owners(last_name);
CREATE INDEX idx_pets_owner ON pets(owner_id);
CREATE INDEX idx_appt_pet ON appointments(pet_id);
CREATE INDEX idx_appt_owner ON appointments(owner_id);
CREATE INDEX idx_appt_staff_start ON appointments(staff_id, scheduled_start);
CREATE INDEX idx_appt_branch_start ON appointments(branch_id, scheduled_start);
CREATE INDEX idx_appt_status ON appointments(status);
CREATE INDEX idx_vacc_pet ON vaccinations(pet_id);
CREATE INDEX idx_vacc_due ON vaccinations(next_due_on);
CREATE INDEX idx_treat_appt ON treatments(appointment_id);
CREATE INDEX idx_treat_pet ON treatments(pet_id);
CREATE INDEX idx_rx_pet ON prescriptions(pet_id);
CREATE INDEX idx_rx_status ON prescriptions(status);
CREATE INDEX idx_inv_owner ON invoices(owner_id);
CREATE INDEX idx_inv_status ON invoices(status);
CREATE INDEX idx_lines_invoice ON invoice_lines(invoice_id);
CREATE INDEX idx_pay_invoice ON payments(invoice_id);
CREATE INDEX idx_pay_owner ON payments(owner_id);
CREATE INDEX idx_log_entity ON activity_log(entity_type, entity_id);
CREATE INDEX idx_log_occurred ON activity_log(occurred_at)
