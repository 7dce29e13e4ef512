PRAGMA foreign_keys = ON;
CREATE TABLE staff (
  id INTEGER PRIMARY KEY,
  employee_code TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT,
  role TEXT NOT NULL CHECK (role IN ('manager', 'dockmaster', 'dockhand', 'office_admin', 'yard_manager', 'technician', 'fuel_attendant')),
  hired_on TEXT NOT NULL,
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);
CREATE TABLE owners (
  id INTEGER PRIMARY KEY,
  account_number TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT,
  address_line TEXT,
  city TEXT,
  state TEXT,
  postal_code TEXT,
  emergency_contact_name TEXT,
  emergency_contact_phone TEXT,
  account_type TEXT NOT NULL CHECK (account_type IN ('slip_holder', 'transient', 'yard_only')),
  status TEXT NOT NULL CHECK (status IN ('active', 'suspended', 'closed')),
  created_at TEXT NOT NULL,
  notes TEXT
);
CREATE TABLE boats (
  id INTEGER PRIMARY KEY,
  owner_id INTEGER NOT NULL REFERENCES owners(id),
  name TEXT NOT NULL,
  registration_number TEXT NOT NULL UNIQUE,
  hull_id_number TEXT UNIQUE,
  make TEXT,
  model TEXT,
  model_year INTEGER,
  boat_type TEXT NOT NULL CHECK (boat_type IN ('sailboat', 'powerboat', 'trawler', 'catamaran', 'center_console', 'pontoon', 'sportfisher')),
  length_ft REAL NOT NULL CHECK (length_ft > 0),
  beam_ft REAL NOT NULL CHECK (beam_ft > 0),
  draft_ft REAL NOT NULL CHECK (draft_ft > 0),
  fuel_type TEXT NOT NULL CHECK (fuel_type IN ('gasoline', 'diesel', 'none')),
  insurance_provider TEXT,
  insurance_policy_number TEXT,
  insurance_expires_on TEXT,
  status TEXT NOT NULL CHECK (status IN ('active', 'sold', 'inactive')),
  created_at TEXT NOT NULL
);
CREATE TABLE docks (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  description TEXT,
  has_water INTEGER NOT NULL CHECK (has_water IN (0, 1)),
  has_pump_out INTEGER NOT NULL CHECK (has_pump_out IN (0, 1)),
  is_floating INTEGER NOT NULL CHECK (is_floating IN (0, 1))
);
CREATE TABLE slips (
  id INTEGER PRIMARY KEY,
  dock_id INTEGER NOT NULL REFERENCES docks(id),
  slip_code TEXT NOT NULL UNIQUE,
  slip_usage TEXT NOT NULL CHECK (slip_usage IN ('seasonal', 'transient', 'flex')),
  max_length_ft REAL NOT NULL CHECK (max_length_ft > 0),
  max_beam_ft REAL NOT NULL CHECK (max_beam_ft > 0),
  max_draft_ft REAL NOT NULL CHECK (max_draft_ft > 0),
  power_amps INTEGER NOT NULL CHECK (power_amps IN (0, 30, 50, 100)),
  status TEXT NOT NULL CHECK (status IN ('in_service', 'out_of_service')),
  notes TEXT
);
CREATE TABLE rate_plans (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  plan_type TEXT NOT NULL CHECK (plan_type IN ('annual', 'summer_season', 'winter_season', 'monthly', 'transient_nightly')),
  rate_basis TEXT NOT NULL CHECK (rate_basis IN ('per_foot_per_night', 'per_foot_per_month', 'per_foot_per_term')),
  rate_cents INTEGER NOT NULL CHECK (rate_cents >= 0),
  power_fee_cents INTEGER NOT NULL CHECK (power_fee_cents >= 0),
  valid_from TEXT NOT NULL,
  valid_to TEXT NOT NULL,
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);
CREATE TABLE facility_hours (
  id INTEGER PRIMARY KEY,
  facility TEXT NOT NULL CHECK (facility IN ('office', 'fuel_dock', 'boatyard', 'pump_out')),
  day_of_week INTEGER NOT NULL CHECK (day_of_week BETWEEN 0 AND 6),
  opens_at TEXT,
  closes_at TEXT,
  is_closed INTEGER NOT NULL CHECK (is_closed IN (0, 1)),
  season TEXT NOT NULL CHECK (season IN ('summer', 'winter')),
  UNIQUE (facility, day_of_week, season)
);
CREATE TABLE slip_leases (
  id INTEGER PRIMARY KEY,
  lease_number TEXT NOT NULL UNIQUE,
  owner_id INTEGER NOT NULL REFERENCES owners(id),
  boat_id INTEGER NOT NULL REFERENCES boats(id),
  slip_id INTEGER NOT NULL REFERENCES slips(id),
  rate_plan_id INTEGER NOT NULL REFERENCES rate_plans(id),
  start_date TEXT NOT NULL,
  end_date TEXT NOT NULL,
  billing_frequency TEXT NOT NULL CHECK (billing_frequency IN ('monthly', 'quarterly', 'upfront')),
  total_fee_cents INTEGER NOT NULL CHECK (total_fee_cents >= 0),
  deposit_cents INTEGER NOT NULL CHECK (deposit_cents >= 0),
  auto_renew INTEGER NOT NULL CHECK (auto_renew IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('pending', 'active', 'expired', 'terminated', 'cancelled')),
  created_by_staff_id INTEGER NOT NULL REFERENCES staff(id),
  created_at TEXT NOT NULL,
  signed_at TEXT,
  terminated_at TEXT,
  cancelled_at TEXT,
  end_reason TEXT,
  CHECK (end_date > start_date)
);
CREATE TABLE slip_waitlist (
  id INTEGER PRIMARY KEY,
  waitlist_code TEXT NOT NULL UNIQUE,
  owner_id INTEGER NOT NULL REFERENCES owners(id),
  boat_id INTEGER NOT NULL REFERENCES boats(id),
  preferred_dock_id INTEGER REFERENCES docks(id),
  desired_plan_type TEXT NOT NULL CHECK (desired_plan_type IN ('annual', 'summer_season', 'winter_season', 'monthly')),
  min_power_amps INTEGER NOT NULL CHECK (min_power_amps IN (0, 30, 50, 100)),
  status TEXT NOT NULL CHECK (status IN ('waiting', 'offered', 'accepted', 'withdrawn', 'expired')),
  requested_at TEXT NOT NULL,
  offered_at TEXT,
  resolved_at TEXT,
  notes TEXT
);
CREATE TABLE transient_reservations (
  id INTEGER PRIMARY KEY,
  confirmation_code TEXT NOT NULL UNIQUE,
  owner_id INTEGER NOT NULL REFERENCES owners(id),
  boat_id INTEGER NOT NULL REFERENCES boats(id),
  slip_id INTEGER REFERENCES slips(id),
  rate_plan_id INTEGER NOT NULL REFERENCES rate_plans(id),
  arrival_date TEXT NOT NULL,
  departure_date TEXT NOT NULL,
  nights INTEGER NOT NULL CHECK (nights > 0),
  needs_power INTEGER NOT NULL CHECK (needs_power IN (0, 1)),
  nightly_rate_cents INTEGER NOT NULL CHECK (nightly_rate_cents >= 0),
  total_cents INTEGER NOT NULL CHECK (total_cents >= 0),
  booking_channel TEXT NOT NULL CHECK (booking_channel IN ('phone', 'web', 'vhf_radio', 'walk_up')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'checked_in', 'checked_out', 'cancelled', 'no_show')),
  booked_by_staff_id INTEGER REFERENCES staff(id),
  created_at TEXT NOT NULL,
  checked_in_at TEXT,
  checked_out_at TEXT,
  cancelled_at TEXT,
  cancellation_reason TEXT,
  special_requests TEXT,
  CHECK (departure_date > arrival_date)
);
CREATE TABLE fuel_products (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  fuel_type TEXT NOT NULL CHECK (fuel_type IN ('gasoline', 'diesel')),
  price_per_gallon_cents INTEGER NOT NULL CHECK (price_per_gallon_cents > 0),
  slip_holder_discount_cents INTEGER NOT NULL CHECK (slip_holder_discount_cents >= 0),
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1)),
  price_updated_at TEXT NOT NULL
);
CREATE TABLE fuel_orders (
  id INTEGER PRIMARY KEY,
  order_number TEXT NOT NULL UNIQUE,
  owner_id INTEGER NOT NULL REFERENCES owners(id),
  boat_id INTEGER NOT NULL REFERENCES boats(id),
  fuel_product_id INTEGER NOT NULL REFERENCES fuel_products(id),
  delivery_method TEXT NOT NULL CHECK (delivery_method IN ('fuel_dock', 'slip_delivery')),
  gallons_requested REAL,
  gallons_delivered REAL,
  price_per_gallon_cents INTEGER NOT NULL CHECK (price_per_gallon_cents > 0),
  total_cents INTEGER NOT NULL CHECK (total_cents >= 0),
  status TEXT NOT NULL CHECK (status IN ('requested', 'scheduled', 'completed', 'cancelled')),
  requested_at TEXT NOT NULL,
  scheduled_for TEXT,
  completed_at TEXT,
  cancelled_at TEXT,
  attendant_staff_id INTEGER REFERENCES staff(id),
  charge_to_account INTEGER NOT NULL CHECK (charge_to_account IN (0, 1))
);
CREATE TABLE service_catalog (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('haul_launch', 'bottom', 'engine', 'electrical', 'hull_deck', 'rigging', 'winterization', 'storage', 'detailing')),
  pricing_unit TEXT NOT NULL CHECK (pricing_unit IN ('flat', 'per_foot', 'per_hour', 'per_foot_per_month')),
  unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0),
  estimated_hours REAL,
  requires_haul_out INTEGER NOT NULL CHECK (requires_haul_out IN (0, 1)),
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);
CREATE TABLE work_orders (
  id INTEGER PRIMARY KEY,
  work_order_number TEXT NOT NULL UNIQUE,
  owner_id INTEGER NOT NULL REFERENCES owners(id),
  boat_id INTEGER NOT NULL REFERENCES boats(id),
  work_type TEXT NOT NULL CHECK (work_type IN ('haul_out', 'repair', 'maintenance', 'winterization', 'commissioning', 'inspection')),
  description TEXT NOT NULL,
  priority TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'emergency')),
  status TEXT NOT NULL CHECK (status IN ('requested', 'estimated', 'approved', 'scheduled', 'in_progress', 'on_hold', 'completed', 'cancelled')),
  estimate_cents INTEGER CHECK (estimate_cents >= 0),
  requires_haul_out INTEGER NOT NULL CHECK (requires_haul_out IN (0, 1)),
  haul_out_date TEXT,
  launch_date TEXT,
  scheduled_start TEXT,
  created_by_staff_id INTEGER NOT NULL REFERENCES staff(id),
  assigned_staff_id INTEGER REFERENCES staff(id),
  requested_at TEXT NOT NULL,
  approved_at TEXT,
  started_at TEXT,
  completed_at TEXT,
  cancelled_at TEXT,
  hold_reason TEXT,
  cancellation_reason TEXT
);
CREATE TABLE work_order_items (
  id INTEGER PRIMARY KEY,
  work_order_id INTEGER NOT NULL REFERENCES work_orders(id),
  service_id INTEGER REFERENCES service_catalog(id),
  item_type TEXT NOT NULL CHECK (item_type IN ('service', 'labor', 'part', 'fee')),
  description TEXT NOT NULL,
  quantity REAL NOT NULL CHECK (quantity > 0),
  unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0),
  line_total_cents INTEGER NOT NULL CHECK (line_total_cents >= 0),
  performed_by_staff_id INTEGER REFERENCES staff(id),
  added_at TEXT NOT NULL
);
CREATE TABLE invoices (
  id INTEGER PRIMARY KEY,
  invoice_number TEXT NOT NULL UNIQUE,
  owner_id INTEGER NOT NULL REFERENCES owners(id),
  status TEXT NOT NULL CHECK (status IN ('draft', 'issued', 'partially_paid', 'paid', 'void')),
  issued_on TEXT,
  due_on TEXT,
  subtotal_cents INTEGER NOT NULL CHECK (subtotal_cents >= 0),
  tax_cents INTEGER NOT NULL CHECK (tax_cents >= 0),
  total_cents INTEGER NOT NULL CHECK (total_cents >= 0),
  amount_paid_cents INTEGER NOT NULL CHECK (amount_paid_cents >= 0),
  created_by_staff_id INTEGER NOT NULL REFERENCES staff(id),
  created_at TEXT NOT NULL,
  paid_at TEXT,
  voided_at TEXT,
  void_reason TEXT,
  notes TEXT
);
CREATE TABLE invoice_lines (
  id INTEGER PRIMARY KEY,
  invoice_id INTEGER NOT NULL REFERENCES invoices(id),
  line_type TEXT NOT NULL CHECK (line_type IN ('slip_lease', 'transient', 'fuel', 'work_order', 'fee', 'credit')),
  description TEXT NOT NULL,
  quantity REAL NOT NULL,
  unit_price_cents INTEGER NOT NULL,
  amount_cents INTEGER NOT NULL,
  taxable INTEGER NOT NULL CHECK (taxable IN (0, 1)),
  lease_id INTEGER REFERENCES slip_leases(id),
  reservation_id INTEGER REFERENCES transient_reservations(id),
  fuel_order_id INTEGER REFERENCES fuel_orders(id),
  work_order_id INTEGER REFERENCES work_orders(id)
);
CREATE TABLE payments (
  id INTEGER PRIMARY KEY,
  payment_reference TEXT NOT NULL UNIQUE,
  invoice_id INTEGER NOT NULL REFERENCES invoices(id),
  owner_id INTEGER NOT NULL REFERENCES owners(id),
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  method TEXT NOT NULL CHECK (method IN ('card', 'ach', 'check', 'cash')),
  status TEXT NOT NULL CHECK (status IN ('completed', 'failed', 'refunded')),
  paid_at TEXT NOT NULL,
  received_by_staff_id INTEGER REFERENCES staff(id),
  refunded_at TEXT,
  note TEXT
);
CREATE TABLE activity_log (
  id INTEGER PRIMARY KEY,
  occurred_at TEXT NOT NULL,
  staff_id INTEGER REFERENCES staff(id),
  owner_id INTEGER REFERENCES owners(id),
  entity_type TEXT NOT NULL CHECK (entity_type IN ('owner', 'boat', 'slip', 'slip_lease', 'waitlist', 'reservation', 'fuel_order', 'work_order', 'invoice', 'payment')),
  entity_id INTEGER NOT NULL,
  action TEXT NOT NULL,
  old_status TEXT,
  new_status TEXT,
  details TEXT
);
CREATE INDEX idx_boats_owner ON boats(owner_id);
CREATE INDEX idx_slips_dock ON slips(dock_id);
CREATE INDEX idx_leases_owner ON slip_leases(owner_id);
CREATE INDEX idx_leases_slip ON slip_leases(slip_id, start_date, end_date);
CREATE INDEX idx_leases_boat ON slip_leases(boat_id);
CREATE INDEX idx_waitlist_owner ON slip_waitlist(owner_id);
CREATE INDEX idx_res_owner ON transient_reservations(owner_id);
CREATE INDEX idx_res_slip_dates ON transient_reservations(slip_id, arrival_date, departure_date);
CREATE INDEX idx_fuel_owner ON fuel_orders(owner_id);
CREATE INDEX idx_fuel_boat ON fuel_orders(boat_id);
CREATE INDEX idx_wo_owner ON work_orders(owner_id);
CREATE INDEX idx_wo_boat ON work_orders(boat_id);
CREATE INDEX idx_wo_status ON work_orders(status);
CREATE INDEX idx_woi_wo ON work_order_items(work_order_id);
CREATE INDEX idx_invoices_owner ON invoices(owner_id);
CREATE INDEX idx_invoices_status ON invoices(status);
CREATE INDEX idx_lines_invoice ON invoice_lines(invoice_id);
CREATE INDEX idx_payments_invoice ON payments(invoice_id);
CREATE INDEX idx_payments_owner ON payments(owner_id);
CREATE INDEX idx_log_entity ON activity_log(entity_type, entity_id);
CREATE INDEX idx_log_staff ON activity_log(staff_id);
