CREATE TABLE departments (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  building TEXT,
  is_academic INTEGER NOT NULL CHECK (is_academic IN (0, 1))
);
CREATE TABLE staff (
  id INTEGER PRIMARY KEY,
  employee_code TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT,
  role TEXT NOT NULL CHECK (role IN ('clerk', 'enforcement_officer', 'appeals_officer', 'supervisor', 'manager')),
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1)),
  hired_on TEXT NOT NULL
);
CREATE TABLE campus_members (
  id INTEGER PRIMARY KEY,
  university_id TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT,
  member_type TEXT NOT NULL CHECK (member_type IN ('undergraduate', 'graduate', 'faculty', 'staff')),
  department_id INTEGER REFERENCES departments(id),
  status TEXT NOT NULL CHECK (status IN ('active', 'on_leave', 'graduated', 'separated', 'suspended')),
  has_accessible_placard INTEGER NOT NULL CHECK (has_accessible_placard IN (0, 1)),
  mailing_address TEXT,
  created_at TEXT NOT NULL
);
CREATE TABLE vehicles (
  id INTEGER PRIMARY KEY,
  member_id INTEGER NOT NULL REFERENCES campus_members(id),
  plate_number TEXT NOT NULL,
  plate_state TEXT NOT NULL,
  make TEXT NOT NULL,
  model TEXT NOT NULL,
  model_year INTEGER,
  color TEXT NOT NULL,
  vehicle_type TEXT NOT NULL CHECK (vehicle_type IN ('car', 'suv', 'truck', 'van', 'motorcycle', 'electric')),
  status TEXT NOT NULL CHECK (status IN ('active', 'removed')),
  registered_at TEXT NOT NULL,
  removed_at TEXT,
  UNIQUE (plate_state, plate_number)
);
CREATE TABLE parking_zones (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  zone_type TEXT NOT NULL CHECK (zone_type IN ('commuter', 'resident', 'faculty_staff', 'reserved', 'visitor', 'accessible', 'ev_charging', 'motorcycle')),
  enforcement_start TEXT NOT NULL,
  enforcement_end TEXT NOT NULL,
  enforced_weekends INTEGER NOT NULL CHECK (enforced_weekends IN (0, 1)),
  description TEXT
);
CREATE TABLE parking_lots (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  zone_id INTEGER NOT NULL REFERENCES parking_zones(id),
  address TEXT NOT NULL,
  lot_kind TEXT NOT NULL CHECK (lot_kind IN ('surface', 'garage', 'street')),
  total_spaces INTEGER NOT NULL CHECK (total_spaces >= 0),
  accessible_spaces INTEGER NOT NULL CHECK (accessible_spaces >= 0),
  ev_spaces INTEGER NOT NULL CHECK (ev_spaces >= 0),
  is_gated INTEGER NOT NULL CHECK (is_gated IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('open', 'temporarily_closed', 'closed')),
  closure_note TEXT
);
CREATE TABLE permit_periods (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  starts_on TEXT NOT NULL,
  ends_on TEXT NOT NULL,
  sales_open_on TEXT NOT NULL,
  renewal_deadline TEXT,
  CHECK (ends_on > starts_on)
);
CREATE TABLE permit_types (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  eligible_member_types TEXT NOT NULL CHECK (eligible_member_types IN ('students', 'employees', 'graduate_students', 'residents', 'all')),
  term TEXT NOT NULL CHECK (term IN ('annual', 'semester', 'summer', 'monthly')),
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  max_vehicles INTEGER NOT NULL CHECK (max_vehicles >= 1),
  capacity INTEGER,
  requires_review INTEGER NOT NULL CHECK (requires_review IN (0, 1)),
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1)),
  description TEXT
);
CREATE TABLE permit_type_zones (
  id INTEGER PRIMARY KEY,
  permit_type_id INTEGER NOT NULL REFERENCES permit_types(id),
  zone_id INTEGER NOT NULL REFERENCES parking_zones(id),
  UNIQUE (permit_type_id, zone_id)
);
CREATE TABLE permit_applications (
  id INTEGER PRIMARY KEY,
  application_number TEXT NOT NULL UNIQUE,
  member_id INTEGER NOT NULL REFERENCES campus_members(id),
  permit_type_id INTEGER NOT NULL REFERENCES permit_types(id),
  period_id INTEGER NOT NULL REFERENCES permit_periods(id),
  vehicle_id INTEGER NOT NULL REFERENCES vehicles(id),
  application_kind TEXT NOT NULL CHECK (application_kind IN ('new', 'renewal')),
  status TEXT NOT NULL CHECK (status IN ('submitted', 'under_review', 'approved', 'denied', 'waitlisted', 'withdrawn')),
  submitted_at TEXT NOT NULL,
  reviewed_at TEXT,
  reviewed_by_staff_id INTEGER REFERENCES staff(id),
  decision_note TEXT,
  withdrawn_at TEXT
);
CREATE TABLE permits (
  id INTEGER PRIMARY KEY,
  permit_number TEXT NOT NULL UNIQUE,
  member_id INTEGER NOT NULL REFERENCES campus_members(id),
  permit_type_id INTEGER NOT NULL REFERENCES permit_types(id),
  period_id INTEGER NOT NULL REFERENCES permit_periods(id),
  application_id INTEGER UNIQUE REFERENCES permit_applications(id),
  renewed_from_permit_id INTEGER REFERENCES permits(id),
  status TEXT NOT NULL CHECK (status IN ('pending_payment', 'active', 'suspended', 'expired', 'cancelled', 'revoked')),
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  valid_from TEXT NOT NULL,
  valid_until TEXT NOT NULL,
  issued_at TEXT NOT NULL,
  issued_by_staff_id INTEGER REFERENCES staff(id),
  cancelled_at TEXT,
  cancel_reason TEXT
);
CREATE TABLE permit_vehicles (
  id INTEGER PRIMARY KEY,
  permit_id INTEGER NOT NULL REFERENCES permits(id),
  vehicle_id INTEGER NOT NULL REFERENCES vehicles(id),
  added_at TEXT NOT NULL,
  removed_at TEXT,
  UNIQUE (permit_id, vehicle_id)
);
CREATE TABLE violation_types (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  fine_cents INTEGER NOT NULL CHECK (fine_cents >= 0),
  late_fee_cents INTEGER NOT NULL CHECK (late_fee_cents >= 0),
  is_towable INTEGER NOT NULL CHECK (is_towable IN (0, 1)),
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);
CREATE TABLE citations (
  id INTEGER PRIMARY KEY,
  citation_number TEXT NOT NULL UNIQUE,
  vehicle_id INTEGER REFERENCES vehicles(id),
  member_id INTEGER REFERENCES campus_members(id),
  plate_number TEXT NOT NULL,
  plate_state TEXT NOT NULL,
  violation_type_id INTEGER NOT NULL REFERENCES violation_types(id),
  lot_id INTEGER NOT NULL REFERENCES parking_lots(id),
  issued_by_staff_id INTEGER NOT NULL REFERENCES staff(id),
  issued_at TEXT NOT NULL,
  fine_cents INTEGER NOT NULL CHECK (fine_cents >= 0),
  late_fee_cents INTEGER NOT NULL CHECK (late_fee_cents >= 0),
  due_date TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('unpaid', 'paid', 'under_appeal', 'reduced', 'dismissed', 'voided', 'sent_to_collections')),
  officer_notes TEXT,
  paid_at TEXT,
  voided_at TEXT,
  void_reason TEXT
);
CREATE TABLE appeals (
  id INTEGER PRIMARY KEY,
  appeal_number TEXT NOT NULL UNIQUE,
  citation_id INTEGER NOT NULL REFERENCES citations(id),
  member_id INTEGER NOT NULL REFERENCES campus_members(id),
  reason_category TEXT NOT NULL CHECK (reason_category IN ('signage_unclear', 'valid_permit_displayed', 'meter_malfunction', 'medical_emergency', 'vehicle_breakdown', 'not_my_vehicle', 'other')),
  statement TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'under_review', 'upheld', 'reduced', 'dismissed', 'withdrawn')),
  submitted_at TEXT NOT NULL,
  assigned_staff_id INTEGER REFERENCES staff(id),
  decided_at TEXT,
  decided_by_staff_id INTEGER REFERENCES staff(id),
  reduced_fine_cents INTEGER CHECK (reduced_fine_cents IS NULL OR reduced_fine_cents >= 0),
  decision_note TEXT,
  withdrawn_at TEXT
);
CREATE TABLE payments (
  id INTEGER PRIMARY KEY,
  receipt_number TEXT NOT NULL UNIQUE,
  member_id INTEGER NOT NULL REFERENCES campus_members(id),
  payment_for TEXT NOT NULL CHECK (payment_for IN ('permit', 'citation')),
  permit_id INTEGER REFERENCES permits(id),
  citation_id INTEGER REFERENCES citations(id),
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  method TEXT NOT NULL CHECK (method IN ('credit_card', 'debit_card', 'payroll_deduction', 'student_account', 'cash', 'check')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'failed', 'refunded', 'partially_refunded')),
  paid_at TEXT NOT NULL,
  processed_by_staff_id INTEGER REFERENCES staff(id),
  CHECK ((payment_for = 'permit' AND permit_id IS NOT NULL AND citation_id IS NULL) OR (payment_for = 'citation' AND citation_id IS NOT NULL AND permit_id IS NULL))
);
CREATE TABLE refunds (
  id INTEGER PRIMARY KEY,
  refund_number TEXT NOT NULL UNIQUE,
  payment_id INTEGER NOT NULL REFERENCES payments(id),
  member_id INTEGER NOT NULL REFERENCES campus_members(id),
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  reason TEXT NOT NULL CHECK (reason IN ('permit_cancelled', 'citation_dismissed', 'citation_reduced', 'duplicate_payment', 'overcharge', 'other')),
  status TEXT NOT NULL CHECK (status IN ('requested', 'approved', 'issued', 'denied')),
  requested_at TEXT NOT NULL,
  processed_at TEXT,
  processed_by_staff_id INTEGER REFERENCES staff(id),
  note TEXT
);
CREATE TABLE activity_log (
  id INTEGER PRIMARY KEY,
  occurred_at TEXT NOT NULL,
  staff_id INTEGER REFERENCES staff(id),
  member_id INTEGER REFERENCES campus_members(id),
  entity_type TEXT NOT NULL CHECK (entity_type IN ('member', 'vehicle', 'application', 'permit', 'citation', 'appeal', 'payment', 'refund', 'lot')),
  entity_id INTEGER NOT NULL,
  action TEXT NOT NULL,
  old_status TEXT,
  new_status TEXT,
  details TEXT
);
CREATE INDEX idx_members_department ON campus_members(department_id);
CREATE INDEX idx_vehicles_member ON vehicles(member_id);
CREATE INDEX idx_lots_zone ON parking_lots(zone_id);
CREATE INDEX idx_ptz_zone ON permit_type_zones(zone_id);
CREATE INDEX idx_applications_member ON permit_applications(member_id);
CREATE INDEX idx_applications_status ON permit_applications(status);
CREATE INDEX idx_permits_member ON permits(member_id);
CREATE INDEX idx_permits_type_period ON permits(permit_type_id, period_id);
CREATE INDEX idx_permit_vehicles_vehicle ON permit_vehicles(vehicle_id);
CREATE INDEX idx_citations_vehicle ON citations(vehicle_id);
CREATE INDEX idx_citations_member ON citations(member_id);
CREATE INDEX idx_citations_plate ON citations(plate_state, plate_number);
CREATE INDEX idx_citations_status ON citations(status);
CREATE INDEX idx_appeals_citation ON appeals(citation_id);
CREATE INDEX idx_appeals_member ON appeals(member_id);
CREATE INDEX idx_payments_member ON payments(member_id);
CREATE INDEX idx_payments_permit ON payments(permit_id);
CREATE INDEX idx_payments_citation ON payments(citation_id);
CREATE INDEX idx_refunds_payment ON refunds(payment_id);
CREATE INDEX idx_activity_entity ON activity_log(entity_type, entity_id);
CREATE INDEX idx_activity_member ON activity_log(member_id);
