PRAGMA foreign_keys = ON;
CREATE TABLE staff (
  id INTEGER PRIMARY KEY,
  staff_code TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT,
  role TEXT NOT NULL CHECK (role IN ('front_desk', 'community_manager', 'operations_manager', 'finance', 'facilities')),
  hired_on TEXT NOT NULL,
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);
CREATE TABLE opening_hours (
  id INTEGER PRIMARY KEY,
  day_of_week INTEGER NOT NULL UNIQUE CHECK (day_of_week BETWEEN 0 AND 6),
  day_name TEXT NOT NULL UNIQUE,
  opens_at TEXT NOT NULL,
  closes_at TEXT NOT NULL,
  front_desk_from TEXT,
  front_desk_until TEXT,
  is_closed INTEGER NOT NULL CHECK (is_closed IN (0, 1))
);
CREATE TABLE membership_plans (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL UNIQUE,
  plan_type TEXT NOT NULL CHECK (plan_type IN ('hot_desk', 'dedicated_desk', 'private_office', 'virtual', 'part_time')),
  monthly_price_cents INTEGER NOT NULL CHECK (monthly_price_cents >= 0),
  setup_fee_cents INTEGER NOT NULL CHECK (setup_fee_cents >= 0),
  meeting_credit_minutes INTEGER NOT NULL CHECK (meeting_credit_minutes >= 0),
  guest_passes_per_month INTEGER NOT NULL CHECK (guest_passes_per_month >= 0),
  access_days_per_month INTEGER,
  has_24_7_access INTEGER NOT NULL CHECK (has_24_7_access IN (0, 1)),
  includes_mail_handling INTEGER NOT NULL CHECK (includes_mail_handling IN (0, 1)),
  description TEXT,
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);
CREATE TABLE members (
  id INTEGER PRIMARY KEY,
  member_number TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT,
  company_name TEXT,
  job_title TEXT,
  access_card_number TEXT UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('active', 'paused', 'cancelled', 'prospect')),
  joined_on TEXT NOT NULL,
  cancelled_at TEXT,
  marketing_opt_in INTEGER NOT NULL CHECK (marketing_opt_in IN (0, 1)),
  notes TEXT,
  created_by_staff_id INTEGER REFERENCES staff(id),
  created_at TEXT NOT NULL
);
CREATE TABLE memberships (
  id INTEGER PRIMARY KEY,
  membership_ref TEXT NOT NULL UNIQUE,
  member_id INTEGER NOT NULL REFERENCES members(id),
  plan_id INTEGER NOT NULL REFERENCES membership_plans(id),
  status TEXT NOT NULL CHECK (status IN ('scheduled', 'active', 'paused', 'ended', 'cancelled')),
  start_date TEXT NOT NULL,
  end_date TEXT,
  monthly_price_cents INTEGER NOT NULL CHECK (monthly_price_cents >= 0),
  discount_percent INTEGER NOT NULL CHECK (discount_percent BETWEEN 0 AND 100),
  billing_day INTEGER NOT NULL CHECK (billing_day BETWEEN 1 AND 28),
  created_by_staff_id INTEGER REFERENCES staff(id),
  created_at TEXT NOT NULL,
  cancelled_at TEXT,
  cancel_reason TEXT
);
CREATE TABLE desks (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  floor INTEGER NOT NULL,
  area TEXT NOT NULL CHECK (area IN ('open_lounge', 'quiet_zone', 'window_row', 'studio')),
  desk_type TEXT NOT NULL CHECK (desk_type IN ('hot_desk', 'dedicated_desk')),
  has_monitor INTEGER NOT NULL CHECK (has_monitor IN (0, 1)),
  is_standing INTEGER NOT NULL CHECK (is_standing IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('in_service', 'out_of_service'))
);
CREATE TABLE private_offices (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  floor INTEGER NOT NULL,
  capacity INTEGER NOT NULL CHECK (capacity > 0),
  size_sqm INTEGER NOT NULL CHECK (size_sqm > 0),
  monthly_price_cents INTEGER NOT NULL CHECK (monthly_price_cents >= 0),
  has_window INTEGER NOT NULL CHECK (has_window IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('available', 'occupied', 'reserved', 'maintenance'))
);
CREATE TABLE space_assignments (
  id INTEGER PRIMARY KEY,
  assignment_ref TEXT NOT NULL UNIQUE,
  member_id INTEGER NOT NULL REFERENCES members(id),
  membership_id INTEGER REFERENCES memberships(id),
  desk_id INTEGER REFERENCES desks(id),
  office_id INTEGER REFERENCES private_offices(id),
  start_date TEXT NOT NULL,
  end_date TEXT,
  status TEXT NOT NULL CHECK (status IN ('scheduled', 'active', 'ended', 'cancelled')),
  created_by_staff_id INTEGER REFERENCES staff(id),
  created_at TEXT NOT NULL,
  ended_at TEXT,
  CHECK ((desk_id IS NULL AND office_id IS NOT NULL) OR (desk_id IS NOT NULL AND office_id IS NULL))
);
CREATE TABLE meeting_rooms (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL UNIQUE,
  floor INTEGER NOT NULL,
  capacity INTEGER NOT NULL CHECK (capacity > 0),
  hourly_rate_cents INTEGER NOT NULL CHECK (hourly_rate_cents >= 0),
  has_video_conferencing INTEGER NOT NULL CHECK (has_video_conferencing IN (0, 1)),
  has_whiteboard INTEGER NOT NULL CHECK (has_whiteboard IN (0, 1)),
  has_display INTEGER NOT NULL CHECK (has_display IN (0, 1)),
  is_bookable INTEGER NOT NULL CHECK (is_bookable IN (0, 1))
);
CREATE TABLE room_bookings (
  id INTEGER PRIMARY KEY,
  booking_ref TEXT NOT NULL UNIQUE,
  room_id INTEGER NOT NULL REFERENCES meeting_rooms(id),
  member_id INTEGER NOT NULL REFERENCES members(id),
  booked_by_staff_id INTEGER REFERENCES staff(id),
  title TEXT NOT NULL,
  start_at TEXT NOT NULL,
  end_at TEXT NOT NULL,
  attendee_count INTEGER NOT NULL CHECK (attendee_count > 0),
  status TEXT NOT NULL CHECK (status IN ('confirmed', 'cancelled', 'completed', 'no_show')),
  credit_minutes_used INTEGER NOT NULL CHECK (credit_minutes_used >= 0),
  charge_cents INTEGER NOT NULL CHECK (charge_cents >= 0),
  created_at TEXT NOT NULL,
  cancelled_at TEXT,
  cancel_reason TEXT,
  CHECK (end_at > start_at)
);
CREATE TABLE pass_products (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL UNIQUE,
  pass_kind TEXT NOT NULL CHECK (pass_kind IN ('half_day', 'full_day', 'multi_day_pack')),
  days_included INTEGER NOT NULL CHECK (days_included > 0),
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  includes_meeting_minutes INTEGER NOT NULL CHECK (includes_meeting_minutes >= 0),
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);
CREATE TABLE day_passes (
  id INTEGER PRIMARY KEY,
  pass_code TEXT NOT NULL UNIQUE,
  pass_product_id INTEGER NOT NULL REFERENCES pass_products(id),
  visitor_name TEXT NOT NULL,
  visitor_email TEXT NOT NULL,
  visitor_phone TEXT,
  referred_by_member_id INTEGER REFERENCES members(id),
  valid_from TEXT NOT NULL,
  valid_until TEXT NOT NULL,
  days_remaining INTEGER NOT NULL CHECK (days_remaining >= 0),
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  payment_method TEXT NOT NULL CHECK (payment_method IN ('card', 'cash', 'online')),
  status TEXT NOT NULL CHECK (status IN ('issued', 'checked_in', 'used', 'cancelled', 'refunded', 'expired')),
  sold_by_staff_id INTEGER REFERENCES staff(id),
  sold_at TEXT NOT NULL,
  last_checked_in_at TEXT,
  cancelled_at TEXT,
  refunded_cents INTEGER NOT NULL CHECK (refunded_cents >= 0)
);
CREATE TABLE guest_registrations (
  id INTEGER PRIMARY KEY,
  guest_ref TEXT NOT NULL UNIQUE,
  host_member_id INTEGER NOT NULL REFERENCES members(id),
  guest_name TEXT NOT NULL,
  guest_email TEXT,
  guest_company TEXT,
  visit_date TEXT NOT NULL,
  expected_arrival TEXT,
  purpose TEXT,
  status TEXT NOT NULL CHECK (status IN ('expected', 'checked_in', 'checked_out', 'cancelled', 'no_show')),
  is_complimentary INTEGER NOT NULL CHECK (is_complimentary IN (0, 1)),
  fee_cents INTEGER NOT NULL CHECK (fee_cents >= 0),
  registered_by_staff_id INTEGER REFERENCES staff(id),
  created_at TEXT NOT NULL,
  checked_in_at TEXT,
  checked_out_at TEXT,
  cancelled_at TEXT
);
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  event_code TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  description TEXT,
  category TEXT NOT NULL CHECK (category IN ('networking', 'workshop', 'talk', 'social', 'wellness', 'member_lunch')),
  room_id INTEGER REFERENCES meeting_rooms(id),
  location_note TEXT,
  host_staff_id INTEGER NOT NULL REFERENCES staff(id),
  starts_at TEXT NOT NULL,
  ends_at TEXT NOT NULL,
  capacity INTEGER NOT NULL CHECK (capacity > 0),
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  members_only INTEGER NOT NULL CHECK (members_only IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('draft', 'scheduled', 'cancelled', 'completed')),
  created_at TEXT NOT NULL,
  cancelled_at TEXT,
  CHECK (ends_at > starts_at)
);
CREATE TABLE event_rsvps (
  id INTEGER PRIMARY KEY,
  event_id INTEGER NOT NULL REFERENCES events(id),
  member_id INTEGER NOT NULL REFERENCES members(id),
  status TEXT NOT NULL CHECK (status IN ('going', 'waitlisted', 'cancelled', 'attended', 'no_show')),
  plus_ones INTEGER NOT NULL CHECK (plus_ones BETWEEN 0 AND 2),
  rsvp_at TEXT NOT NULL,
  cancelled_at TEXT,
  UNIQUE (event_id, member_id)
);
CREATE TABLE invoices (
  id INTEGER PRIMARY KEY,
  invoice_number TEXT NOT NULL UNIQUE,
  member_id INTEGER NOT NULL REFERENCES members(id),
  period_start TEXT,
  period_end TEXT,
  issue_date TEXT NOT NULL,
  due_date TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('draft', 'issued', 'partially_paid', 'paid', 'overdue', 'void')),
  subtotal_cents INTEGER NOT NULL CHECK (subtotal_cents >= 0),
  tax_cents INTEGER NOT NULL CHECK (tax_cents >= 0),
  total_cents INTEGER NOT NULL CHECK (total_cents >= 0),
  amount_paid_cents INTEGER NOT NULL CHECK (amount_paid_cents >= 0),
  created_by_staff_id INTEGER REFERENCES staff(id),
  created_at TEXT NOT NULL,
  paid_at TEXT,
  voided_at TEXT,
  void_reason TEXT
);
CREATE TABLE invoice_lines (
  id INTEGER PRIMARY KEY,
  invoice_id INTEGER NOT NULL REFERENCES invoices(id),
  line_type TEXT NOT NULL CHECK (line_type IN ('membership', 'office', 'meeting_room', 'guest_fee', 'event', 'setup_fee', 'credit', 'other')),
  description TEXT NOT NULL,
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  unit_price_cents INTEGER NOT NULL,
  amount_cents INTEGER NOT NULL,
  membership_id INTEGER REFERENCES memberships(id),
  room_booking_id INTEGER REFERENCES room_bookings(id),
  event_id INTEGER REFERENCES events(id)
);
CREATE TABLE payments (
  id INTEGER PRIMARY KEY,
  payment_ref TEXT NOT NULL UNIQUE,
  invoice_id INTEGER NOT NULL REFERENCES invoices(id),
  member_id INTEGER NOT NULL REFERENCES members(id),
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  method TEXT NOT NULL CHECK (method IN ('card', 'bank_transfer', 'direct_debit', 'cash')),
  status TEXT NOT NULL CHECK (status IN ('completed', 'failed', 'refunded')),
  paid_at TEXT NOT NULL,
  recorded_by_staff_id INTEGER REFERENCES staff(id),
  note TEXT
);
CREATE TABLE activity_log (
  id INTEGER PRIMARY KEY,
  occurred_at TEXT NOT NULL,
  actor_type TEXT NOT NULL CHECK (actor_type IN ('staff', 'member', 'system')),
  staff_id INTEGER REFERENCES staff(id),
  member_id INTEGER REFERENCES members(id),
  entity_type TEXT NOT NULL CHECK (entity_type IN ('member', 'membership', 'space_assignment', 'room_booking', 'day_pass', 'guest_registration', 'event', 'event_rsvp', 'invoice', 'payment')),
  entity_id INTEGER NOT NULL,
  action TEXT NOT NULL,
  details TEXT
);
CREATE INDEX idx_memberships_member ON memberships(member_id);
CREATE INDEX idx_memberships_plan ON memberships(plan_id);
CREATE INDEX idx_space_assignments_member ON space_assignments(member_id);
CREATE INDEX idx_space_assignments_desk ON space_assignments(desk_id);
CREATE INDEX idx_space_assignments_office ON space_assignments(office_id);
CREATE INDEX idx_room_bookings_room_start ON room_bookings(room_id, start_at);
CREATE INDEX idx_room_bookings_member ON room_bookings(member_id);
CREATE INDEX idx_day_passes_valid_from ON day_passes(valid_from);
CREATE INDEX idx_day_passes_email ON day_passes(visitor_email);
CREATE INDEX idx_guest_registrations_host ON guest_registrations(host_member_id);
CREATE INDEX idx_guest_registrations_visit_date ON guest_registrations(visit_date);
CREATE INDEX idx_events_starts_at ON events(starts_at);
CREATE INDEX idx_event_rsvps_member ON event_rsvps(member_id);
CREATE INDEX idx_invoices_member ON invoices(member_id);
CREATE INDEX idx_invoices_status ON invoices(status);
CREATE INDEX idx_invoice_lines_invoice ON invoice_lines(invoice_id);
CREATE INDEX idx_payments_invoice ON payments(invoice_id);
CREATE INDEX idx_payments_member ON payments(member_id);
CREATE INDEX idx_activity_log_entity ON activity_log(entity_type, entity_id);
CREATE INDEX idx_activity_log_occurred ON activity_log(occurred_at)
