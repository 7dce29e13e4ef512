PRAGMA foreign_keys = ON;
CREATE TABLE branches (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  address TEXT NOT NULL,
  city TEXT NOT NULL,
  postal_code TEXT NOT NULL,
  phone TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);
CREATE TABLE test_centres (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  address TEXT NOT NULL,
  city TEXT NOT NULL,
  phone TEXT NOT NULL,
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);
CREATE TABLE staff (
  id INTEGER PRIMARY KEY,
  employee_code TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'manager', 'front_desk', 'accounts')),
  branch_id INTEGER NOT NULL REFERENCES branches(id),
  status TEXT NOT NULL CHECK (status IN ('active', 'on_leave', 'terminated')),
  hired_on TEXT NOT NULL,
  terminated_on TEXT
);
CREATE TABLE instructors (
  id INTEGER PRIMARY KEY,
  employee_code TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT NOT NULL,
  instructor_licence_number TEXT NOT NULL UNIQUE,
  licence_expiry_date TEXT NOT NULL,
  home_branch_id INTEGER NOT NULL REFERENCES branches(id),
  can_teach_manual INTEGER NOT NULL CHECK (can_teach_manual IN (0, 1)),
  hourly_rate_cents INTEGER NOT NULL CHECK (hourly_rate_cents >= 0),
  status TEXT NOT NULL CHECK (status IN ('active', 'on_leave', 'inactive')),
  hired_on TEXT NOT NULL,
  bio TEXT
);
CREATE TABLE instructor_availability (
  id INTEGER PRIMARY KEY,
  instructor_id INTEGER NOT NULL REFERENCES instructors(id),
  weekday INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
  start_time TEXT NOT NULL,
  end_time TEXT NOT NULL,
  branch_id INTEGER NOT NULL REFERENCES branches(id),
  UNIQUE (instructor_id, weekday, start_time)
);
CREATE TABLE instructor_time_off (
  id INTEGER PRIMARY KEY,
  instructor_id INTEGER NOT NULL REFERENCES instructors(id),
  start_at TEXT NOT NULL,
  end_at TEXT NOT NULL,
  reason TEXT NOT NULL CHECK (reason IN ('vacation', 'sick', 'training', 'personal', 'other')),
  status TEXT NOT NULL CHECK (status IN ('requested', 'approved', 'rejected', 'cancelled')),
  requested_at TEXT NOT NULL,
  approved_by_staff_id INTEGER REFERENCES staff(id),
  notes TEXT
);
CREATE TABLE vehicles (
  id INTEGER PRIMARY KEY,
  plate_number TEXT NOT NULL UNIQUE,
  vin TEXT NOT NULL UNIQUE,
  make TEXT NOT NULL,
  model TEXT NOT NULL,
  model_year INTEGER NOT NULL,
  colour TEXT NOT NULL,
  transmission TEXT NOT NULL CHECK (transmission IN ('automatic', 'manual')),
  dual_controls INTEGER NOT NULL CHECK (dual_controls IN (0, 1)),
  home_branch_id INTEGER NOT NULL REFERENCES branches(id),
  odometer_km INTEGER NOT NULL CHECK (odometer_km >= 0),
  insurance_expiry_date TEXT NOT NULL,
  registration_expiry_date TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('available', 'in_service', 'retired')),
  acquired_on TEXT NOT NULL,
  retired_on TEXT
);
CREATE TABLE vehicle_maintenance (
  id INTEGER PRIMARY KEY,
  work_order_number TEXT NOT NULL UNIQUE,
  vehicle_id INTEGER NOT NULL REFERENCES vehicles(id),
  maintenance_type TEXT NOT NULL CHECK (maintenance_type IN ('oil_change', 'tyres', 'brakes', 'inspection', 'repair', 'cleaning', 'other')),
  description TEXT NOT NULL,
  scheduled_start_at TEXT NOT NULL,
  scheduled_end_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('scheduled', 'in_progress', 'completed', 'cancelled')),
  odometer_km INTEGER,
  cost_cents INTEGER NOT NULL CHECK (cost_cents >= 0),
  vendor TEXT,
  created_by_staff_id INTEGER NOT NULL REFERENCES staff(id),
  created_at TEXT NOT NULL,
  completed_at TEXT
);
CREATE TABLE students (
  id INTEGER PRIMARY KEY,
  student_number TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  phone TEXT NOT NULL,
  date_of_birth TEXT NOT NULL,
  address TEXT NOT NULL,
  city TEXT NOT NULL,
  postal_code TEXT NOT NULL,
  permit_number TEXT NOT NULL UNIQUE,
  permit_issued_on TEXT NOT NULL,
  permit_expiry_date TEXT NOT NULL,
  licence_stage TEXT NOT NULL CHECK (licence_stage IN ('learner_permit', 'probationary', 'full')),
  preferred_transmission TEXT NOT NULL CHECK (preferred_transmission IN ('automatic', 'manual')),
  home_branch_id INTEGER NOT NULL REFERENCES branches(id),
  primary_instructor_id INTEGER REFERENCES instructors(id),
  emergency_contact_name TEXT,
  emergency_contact_phone TEXT,
  status TEXT NOT NULL CHECK (status IN ('enquiry', 'active', 'on_hold', 'graduated', 'withdrawn')),
  enrolled_at TEXT NOT NULL,
  enrolled_by_staff_id INTEGER REFERENCES staff(id),
  graduated_on TEXT,
  withdrawn_at TEXT,
  notes TEXT
);
CREATE TABLE lesson_packages (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  lesson_count INTEGER NOT NULL CHECK (lesson_count > 0),
  lesson_minutes INTEGER NOT NULL CHECK (lesson_minutes IN (45, 60, 90, 120)),
  transmission TEXT NOT NULL CHECK (transmission IN ('automatic', 'manual', 'either')),
  includes_road_test_vehicle INTEGER NOT NULL CHECK (includes_road_test_vehicle IN (0, 1)),
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  validity_days INTEGER NOT NULL CHECK (validity_days > 0),
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);
CREATE TABLE service_fees (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  fee_type TEXT NOT NULL CHECK (fee_type IN ('single_lesson', 'road_test_vehicle', 'late_cancellation', 'no_show', 'admin', 'other')),
  amount_cents INTEGER NOT NULL CHECK (amount_cents >= 0),
  is_active INTEGER NOT NULL CHECK (is_active IN (0, 1))
);
CREATE TABLE package_purchases (
  id INTEGER PRIMARY KEY,
  purchase_number TEXT NOT NULL UNIQUE,
  student_id INTEGER NOT NULL REFERENCES students(id),
  package_id INTEGER NOT NULL REFERENCES lesson_packages(id),
  lessons_total INTEGER NOT NULL CHECK (lessons_total > 0),
  lessons_used INTEGER NOT NULL CHECK (lessons_used >= 0),
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  discount_cents INTEGER NOT NULL CHECK (discount_cents >= 0),
  status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'expired', 'cancelled', 'refunded')),
  purchased_at TEXT NOT NULL,
  expires_on TEXT NOT NULL,
  sold_by_staff_id INTEGER REFERENCES staff(id),
  cancelled_at TEXT,
  cancel_reason TEXT,
  CHECK (lessons_used <= lessons_total)
);
CREATE TABLE lessons (
  id INTEGER PRIMARY KEY,
  booking_ref TEXT NOT NULL UNIQUE,
  student_id INTEGER NOT NULL REFERENCES students(id),
  instructor_id INTEGER NOT NULL REFERENCES instructors(id),
  vehicle_id INTEGER REFERENCES vehicles(id),
  branch_id INTEGER NOT NULL REFERENCES branches(id),
  purchase_id INTEGER REFERENCES package_purchases(id),
  lesson_type TEXT NOT NULL CHECK (lesson_type IN ('standard', 'highway', 'parking', 'night', 'mock_test', 'refresher')),
  start_at TEXT NOT NULL,
  end_at TEXT NOT NULL,
  duration_minutes INTEGER NOT NULL CHECK (duration_minutes > 0),
  pickup_address TEXT NOT NULL,
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  status TEXT NOT NULL CHECK (status IN ('scheduled', 'completed', 'cancelled', 'no_show')),
  created_at TEXT NOT NULL,
  created_by_staff_id INTEGER REFERENCES staff(id),
  completed_at TEXT,
  cancelled_at TEXT,
  cancelled_by TEXT CHECK (cancelled_by IN ('student', 'instructor', 'school')),
  cancel_reason TEXT,
  late_cancellation INTEGER NOT NULL CHECK (late_cancellation IN (0, 1)),
  rescheduled_from_lesson_id INTEGER REFERENCES lessons(id)
);
CREATE TABLE skills (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('vehicle_control', 'traffic', 'manoeuvres', 'highway', 'hazard_awareness', 'test_readiness')),
  sort_order INTEGER NOT NULL
);
CREATE TABLE progress_notes (
  id INTEGER PRIMARY KEY,
  lesson_id INTEGER NOT NULL UNIQUE REFERENCES lessons(id),
  student_id INTEGER NOT NULL REFERENCES students(id),
  instructor_id INTEGER NOT NULL REFERENCES instructors(id),
  overall_rating INTEGER NOT NULL CHECK (overall_rating BETWEEN 1 AND 5),
  test_ready INTEGER NOT NULL CHECK (test_ready IN (0, 1)),
  summary TEXT NOT NULL,
  next_focus TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT
);
CREATE TABLE skill_ratings (
  id INTEGER PRIMARY KEY,
  progress_note_id INTEGER NOT NULL REFERENCES progress_notes(id),
  skill_id INTEGER NOT NULL REFERENCES skills(id),
  rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
  comment TEXT,
  UNIQUE (progress_note_id, skill_id)
);
CREATE TABLE road_tests (
  id INTEGER PRIMARY KEY,
  test_ref TEXT NOT NULL UNIQUE,
  student_id INTEGER NOT NULL REFERENCES students(id),
  test_centre_id INTEGER NOT NULL REFERENCES test_centres(id),
  test_class TEXT NOT NULL CHECK (test_class IN ('G2', 'G')),
  scheduled_at TEXT NOT NULL,
  vehicle_id INTEGER REFERENCES vehicles(id),
  escort_instructor_id INTEGER REFERENCES instructors(id),
  purchase_id INTEGER REFERENCES package_purchases(id),
  vehicle_fee_cents INTEGER NOT NULL CHECK (vehicle_fee_cents >= 0),
  status TEXT NOT NULL CHECK (status IN ('booked', 'passed', 'failed', 'cancelled', 'no_show')),
  attempt_number INTEGER NOT NULL CHECK (attempt_number >= 1),
  examiner_score INTEGER CHECK (examiner_score BETWEEN 0 AND 100),
  result_notes TEXT,
  booked_by_staff_id INTEGER REFERENCES staff(id),
  created_at TEXT NOT NULL,
  result_recorded_at TEXT,
  cancelled_at TEXT,
  cancel_reason TEXT
);
CREATE TABLE charges (
  id INTEGER PRIMARY KEY,
  charge_number TEXT NOT NULL UNIQUE,
  student_id INTEGER NOT NULL REFERENCES students(id),
  charge_type TEXT NOT NULL CHECK (charge_type IN ('package', 'single_lesson', 'road_test_vehicle', 'late_cancellation', 'no_show', 'admin', 'adjustment')),
  description TEXT NOT NULL,
  amount_cents INTEGER NOT NULL,
  purchase_id INTEGER REFERENCES package_purchases(id),
  lesson_id INTEGER REFERENCES lessons(id),
  road_test_id INTEGER REFERENCES road_tests(id),
  fee_id INTEGER REFERENCES service_fees(id),
  status TEXT NOT NULL CHECK (status IN ('open', 'paid', 'waived')),
  created_at TEXT NOT NULL,
  created_by_staff_id INTEGER REFERENCES staff(id),
  waived_at TEXT,
  waived_by_staff_id INTEGER REFERENCES staff(id)
);
CREATE TABLE payments (
  id INTEGER PRIMARY KEY,
  receipt_number TEXT NOT NULL UNIQUE,
  student_id INTEGER NOT NULL REFERENCES students(id),
  charge_id INTEGER REFERENCES charges(id),
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  method TEXT NOT NULL CHECK (method IN ('card', 'cash', 'e_transfer', 'cheque')),
  status TEXT NOT NULL CHECK (status IN ('completed', 'refunded', 'voided')),
  paid_at TEXT NOT NULL,
  received_by_staff_id INTEGER REFERENCES staff(id),
  reference_note TEXT,
  refunded_at TEXT,
  refund_amount_cents INTEGER CHECK (refund_amount_cents >= 0),
  refunded_by_staff_id INTEGER REFERENCES staff(id)
);
CREATE TABLE activity_log (
  id INTEGER PRIMARY KEY,
  occurred_at TEXT NOT NULL,
  actor_type TEXT NOT NULL CHECK (actor_type IN ('staff', 'instructor', 'student', 'system')),
  staff_id INTEGER REFERENCES staff(id),
  instructor_id INTEGER REFERENCES instructors(id),
  student_id INTEGER REFERENCES students(id),
  entity_type TEXT NOT NULL CHECK (entity_type IN ('student', 'lesson', 'road_test', 'package_purchase', 'payment', 'charge', 'vehicle', 'instructor', 'progress_note', 'time_off')),
  entity_id INTEGER NOT NULL,
  action TEXT NOT NULL,
  old_value TEXT,
  new_value TEXT,
  details TEXT
);
CREATE INDEX idx_lessons_student ON lessons(student_id, start_at);
CREATE INDEX idx_lessons_instructor ON lessons(instructor_id, start_at);
CREATE INDEX idx_lessons_vehicle ON lessons(vehicle_id, start_at);
CREATE INDEX idx_lessons_status ON lessons(status);
CREATE INDEX idx_purchases_student ON package_purchases(student_id);
CREATE INDEX idx_road_tests_student ON road_tests(student_id);
CREATE INDEX idx_road_tests_scheduled ON road_tests(scheduled_at);
CREATE INDEX idx_progress_notes_student ON progress_notes(student_id);
CREATE INDEX idx_charges_student ON charges(student_id);
CREATE INDEX idx_payments_student ON payments(student_id, paid_at);
CREATE INDEX idx_activity_entity ON activity_log(entity_type, entity_id);
CREATE INDEX idx_students_branch ON students(home_branch_id);
CREATE INDEX idx_time_off_instructor ON instructor_time_off(instructor_id, start_at);
