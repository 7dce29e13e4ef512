PRAGMA foreign_keys = ON;

CREATE TABLE staff (
  id INTEGER PRIMARY KEY,
  employee_code TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT,
  role TEXT NOT NULL CHECK (role IN ('manager', 'assistant_manager', 'front_desk', 'maintenance')),
  hired_on TEXT NOT NULL,
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);

CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  customer_number TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT,
  address_line TEXT,
  city TEXT,
  state TEXT,
  postal_code TEXT,
  company_name TEXT,
  is_business INTEGER NOT NULL CHECK (is_business IN (0, 1)),
  id_document_type TEXT CHECK (id_document_type IN ('drivers_license', 'state_id', 'passport')),
  id_document_last4 TEXT,
  emergency_contact_name TEXT,
  emergency_contact_phone TEXT,
  autopay_enabled INTEGER NOT NULL CHECK (autopay_enabled IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('active', 'inactive', 'banned')),
  created_at TEXT NOT NULL,
  created_by_staff_id INTEGER REFERENCES staff(id)
);

CREATE TABLE buildings (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  floors INTEGER NOT NULL CHECK (floors >= 1),
  has_elevator INTEGER NOT NULL CHECK (has_elevator IN (0, 1)),
  is_climate_controlled INTEGER NOT NULL CHECK (is_climate_controlled IN (0, 1)),
  notes TEXT
);

CREATE TABLE unit_types (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  size_category TEXT NOT NULL CHECK (size_category IN ('small', 'medium', 'large', 'extra_large', 'parking')),
  width_ft INTEGER NOT NULL,
  depth_ft INTEGER NOT NULL,
  square_feet INTEGER NOT NULL,
  climate_controlled INTEGER NOT NULL CHECK (climate_controlled IN (0, 1)),
  monthly_rate_cents INTEGER NOT NULL CHECK (monthly_rate_cents > 0),
  deposit_cents INTEGER NOT NULL CHECK (deposit_cents >= 0),
  description TEXT,
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);

CREATE TABLE units (
  id INTEGER PRIMARY KEY,
  unit_number TEXT NOT NULL UNIQUE,
  building_id INTEGER NOT NULL REFERENCES buildings(id),
  unit_type_id INTEGER NOT NULL REFERENCES unit_types(id),
  floor INTEGER NOT NULL CHECK (floor >= 1),
  door_type TEXT NOT NULL CHECK (door_type IN ('roll_up', 'swing', 'open_space')),
  drive_up_access INTEGER NOT NULL CHECK (drive_up_access IN (0, 1)),
  has_power_outlet INTEGER NOT NULL CHECK (has_power_outlet IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('available', 'reserved', 'occupied', 'overlocked', 'maintenance', 'out_of_service')),
  status_changed_at TEXT NOT NULL,
  notes TEXT
);

CREATE TABLE insurance_plans (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  coverage_cents INTEGER NOT NULL CHECK (coverage_cents > 0),
  monthly_premium_cents INTEGER NOT NULL CHECK (monthly_premium_cents > 0),
  deductible_cents INTEGER NOT NULL CHECK (deductible_cents >= 0),
  description TEXT,
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);

CREATE TABLE promotions (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  discount_type TEXT NOT NULL CHECK (discount_type IN ('percent_first_month', 'fixed_first_month', 'first_month_free', 'percent_recurring')),
  discount_value INTEGER NOT NULL CHECK (discount_value >= 0),
  valid_from TEXT NOT NULL,
  valid_until TEXT,
  unit_type_id INTEGER REFERENCES unit_types(id),
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);

CREATE TABLE fee_schedule (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  fee_type TEXT NOT NULL CHECK (fee_type IN ('late_fee', 'admin_fee', 'lock_cut', 'cleaning', 'nsf', 'lien_notice')),
  amount_cents INTEGER NOT NULL CHECK (amount_cents >= 0),
  days_after_due INTEGER,
  description TEXT,
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);

CREATE TABLE office_hours (
  id INTEGER PRIMARY KEY,
  day_of_week INTEGER NOT NULL UNIQUE CHECK (day_of_week BETWEEN 0 AND 6),
  day_name TEXT NOT NULL UNIQUE,
  office_open TEXT,
  office_close TEXT,
  gate_open TEXT NOT NULL,
  gate_close TEXT NOT NULL,
  is_office_closed INTEGER NOT NULL CHECK (is_office_closed IN (0, 1))
);

CREATE TABLE rentals (
  id INTEGER PRIMARY KEY,
  rental_number TEXT NOT NULL UNIQUE,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  unit_id INTEGER NOT NULL REFERENCES units(id),
  status TEXT NOT NULL CHECK (status IN ('reserved', 'active', 'notice_given', 'moved_out', 'cancelled')),
  monthly_rate_cents INTEGER NOT NULL CHECK (monthly_rate_cents > 0),
  deposit_cents INTEGER NOT NULL CHECK (deposit_cents >= 0),
  deposit_refunded_cents INTEGER NOT NULL CHECK (deposit_refunded_cents >= 0),
  billing_day INTEGER NOT NULL CHECK (billing_day BETWEEN 1 AND 28),
  promotion_id INTEGER REFERENCES promotions(id),
  reserved_at TEXT NOT NULL,
  move_in_date TEXT,
  notice_given_at TEXT,
  planned_move_out_date TEXT,
  move_out_date TEXT,
  cancelled_at TEXT,
  cancel_reason TEXT,
  created_by_staff_id INTEGER REFERENCES staff(id),
  moved_in_by_staff_id INTEGER REFERENCES staff(id),
  moved_out_by_staff_id INTEGER REFERENCES staff(id),
  notes TEXT
);

CREATE TABLE rental_insurance (
  id INTEGER PRIMARY KEY,
  policy_number TEXT NOT NULL UNIQUE,
  rental_id INTEGER NOT NULL REFERENCES rentals(id),
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  insurance_plan_id INTEGER NOT NULL REFERENCES insurance_plans(id),
  monthly_premium_cents INTEGER NOT NULL CHECK (monthly_premium_cents > 0),
  status TEXT NOT NULL CHECK (status IN ('active', 'cancelled', 'ended')),
  start_date TEXT NOT NULL,
  end_date TEXT,
  created_at TEXT NOT NULL,
  cancelled_at TEXT,
  created_by_staff_id INTEGER REFERENCES staff(id)
);

CREATE TABLE gate_codes (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  rental_id INTEGER REFERENCES rentals(id),
  status TEXT NOT NULL CHECK (status IN ('active', 'suspended', 'revoked')),
  access_level TEXT NOT NULL CHECK (access_level IN ('standard', 'extended_hours')),
  issued_at TEXT NOT NULL,
  issued_by_staff_id INTEGER REFERENCES staff(id),
  suspended_at TEXT,
  revoked_at TEXT,
  revoked_by_staff_id INTEGER REFERENCES staff(id),
  status_reason TEXT
);

CREATE TABLE gate_access_events (
  id INTEGER PRIMARY KEY,
  gate_code_id INTEGER REFERENCES gate_codes(id),
  entered_code TEXT NOT NULL,
  gate_name TEXT NOT NULL CHECK (gate_name IN ('main_gate', 'rear_gate', 'building_b_door')),
  direction TEXT NOT NULL CHECK (direction IN ('entry', 'exit')),
  event_at TEXT NOT NULL,
  access_granted INTEGER NOT NULL CHECK (access_granted IN (0, 1)),
  denial_reason TEXT CHECK (denial_reason IN ('unknown_code', 'code_suspended', 'code_revoked', 'outside_hours'))
);

CREATE TABLE invoices (
  id INTEGER PRIMARY KEY,
  invoice_number TEXT NOT NULL UNIQUE,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  rental_id INTEGER NOT NULL REFERENCES rentals(id),
  period_start TEXT NOT NULL,
  period_end TEXT NOT NULL,
  issue_date TEXT NOT NULL,
  due_date TEXT NOT NULL,
  subtotal_cents INTEGER NOT NULL,
  late_fee_cents INTEGER NOT NULL CHECK (late_fee_cents >= 0),
  total_cents INTEGER NOT NULL,
  amount_paid_cents INTEGER NOT NULL CHECK (amount_paid_cents >= 0),
  status TEXT NOT NULL CHECK (status IN ('open', 'partially_paid', 'paid', 'overdue', 'void')),
  paid_at TEXT,
  voided_at TEXT,
  void_reason TEXT,
  created_at TEXT NOT NULL,
  created_by_staff_id INTEGER REFERENCES staff(id)
);

CREATE TABLE invoice_lines (
  id INTEGER PRIMARY KEY,
  invoice_id INTEGER NOT NULL REFERENCES invoices(id),
  line_type TEXT NOT NULL CHECK (line_type IN ('rent', 'insurance', 'deposit', 'discount', 'late_fee', 'admin_fee', 'lock_cut', 'cleaning', 'merchandise', 'other')),
  description TEXT NOT NULL,
  quantity INTEGER NOT NULL CHECK (quantity >= 1),
  unit_amount_cents INTEGER NOT NULL,
  amount_cents INTEGER NOT NULL,
  fee_schedule_id INTEGER REFERENCES fee_schedule(id)
);

CREATE TABLE payments (
  id INTEGER PRIMARY KEY,
  payment_reference TEXT NOT NULL UNIQUE,
  invoice_id INTEGER NOT NULL REFERENCES invoices(id),
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  method TEXT NOT NULL CHECK (method IN ('card', 'ach', 'cash', 'check', 'autopay')),
  card_last4 TEXT,
  status TEXT NOT NULL CHECK (status IN ('completed', 'failed', 'refunded')),
  paid_at TEXT NOT NULL,
  refunded_at TEXT,
  refund_reason TEXT,
  received_by_staff_id INTEGER REFERENCES staff(id)
);

CREATE TABLE late_fees (
  id INTEGER PRIMARY KEY,
  invoice_id INTEGER NOT NULL REFERENCES invoices(id),
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  fee_schedule_id INTEGER NOT NULL REFERENCES fee_schedule(id),
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  status TEXT NOT NULL CHECK (status IN ('assessed', 'waived', 'paid')),
  assessed_at TEXT NOT NULL,
  assessed_by_staff_id INTEGER REFERENCES staff(id),
  waived_at TEXT,
  waived_by_staff_id INTEGER REFERENCES staff(id),
  waive_reason TEXT
);

CREATE TABLE maintenance_requests (
  id INTEGER PRIMARY KEY,
  request_number TEXT NOT NULL UNIQUE,
  unit_id INTEGER REFERENCES units(id),
  building_id INTEGER REFERENCES buildings(id),
  customer_id INTEGER REFERENCES customers(id),
  reported_by_staff_id INTEGER REFERENCES staff(id),
  assigned_staff_id INTEGER REFERENCES staff(id),
  category TEXT NOT NULL CHECK (category IN ('door', 'lock', 'leak', 'pest', 'lighting', 'climate', 'gate', 'cleaning', 'electrical', 'other')),
  priority TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  description TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'resolved', 'cancelled')),
  created_at TEXT NOT NULL,
  assigned_at TEXT,
  resolved_at TEXT,
  resolution_notes TEXT,
  cancelled_at TEXT
);

CREATE TABLE activity_log (
  id INTEGER PRIMARY KEY,
  occurred_at TEXT NOT NULL,
  actor_type TEXT NOT NULL CHECK (actor_type IN ('staff', 'customer', 'system')),
  staff_id INTEGER REFERENCES staff(id),
  customer_id INTEGER REFERENCES customers(id),
  entity_type TEXT NOT NULL CHECK (entity_type IN ('customer', 'unit', 'rental', 'gate_code', 'invoice', 'payment', 'late_fee', 'insurance', 'maintenance_request')),
  entity_id INTEGER NOT NULL,
  action TEXT NOT NULL,
  details TEXT
);

CREATE INDEX idx_units_type ON units(unit_type_id);
CREATE INDEX idx_units_status ON units(status);
CREATE INDEX idx_rentals_customer ON rentals(customer_id);
CREATE INDEX idx_rentals_unit ON rentals(unit_id);
CREATE INDEX idx_rentals_status ON rentals(status);
CREATE INDEX idx_rental_insurance_rental ON rental_insurance(rental_id);
CREATE INDEX idx_gate_codes_customer ON gate_codes(customer_id);
CREATE INDEX idx_gate_events_code ON gate_access_events(gate_code_id);
CREATE INDEX idx_gate_events_time ON gate_access_events(event_at);
CREATE INDEX idx_invoices_customer ON invoices(customer_id);
CREATE INDEX idx_invoices_rental ON invoices(rental_id);
CREATE INDEX idx_invoices_status ON invoices(status);
CREATE INDEX idx_invoice_lines_invoice ON invoice_lines(invoice_id);
CREATE INDEX idx_payments_invoice ON payments(invoice_id);
CREATE INDEX idx_payments_customer ON payments(customer_id);
CREATE INDEX idx_late_fees_invoice ON late_fees(invoice_id);
CREATE INDEX idx_maintenance_unit ON maintenance_requests(unit_id);
CREATE INDEX idx_maintenance_status ON maintenance_requests(status);
CREATE INDEX idx_activity_entity ON activity_log(entity_type, entity_id);
