from datetime import date, datetime, timedelta
from typing import Literal

from awm.tooling import Db, ToolError, check_limit, like_contains, now_iso, tool

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
LESSON_MINUTES = (45, 60, 90, 120)
TEST_BUFFER = timedelta(minutes=45)
LATE_WINDOW = timedelta(hours=24)
PERMIT_VALID_DAYS = 1826
MONEY_ROLES = ("owner", "manager", "accounts")
MANAGER_ROLES = ("owner", "manager")


STUDENT_SELECT = (
    "SELECT s.id, s.student_number, s.full_name, s.email, s.phone, s.date_of_birth, s.address, s.city, "
    "s.postal_code, s.permit_number, s.permit_issued_on, s.permit_expiry_date, s.licence_stage, "
    "s.preferred_transmission, s.home_branch_id, s.primary_instructor_id, s.emergency_contact_name, "
    "s.emergency_contact_phone, s.status, s.enrolled_at, s.graduated_on, s.withdrawn_at, s.notes, "
    "b.code AS branch_code, b.name AS branch_name, i.full_name AS primary_instructor, "
    "i.email AS primary_instructor_email "
    "FROM students s JOIN branches b ON b.id = s.home_branch_id "
    "LEFT JOIN instructors i ON i.id = s.primary_instructor_id "
    "WHERE lower(s.email) = lower(?) OR upper(s.student_number) = upper(?)"
)

LESSON_SELECT = (
    "SELECT l.id, l.booking_ref, l.student_id, s.full_name AS student, s.email AS student_email, "
    "l.instructor_id, i.full_name AS instructor, i.email AS instructor_email, v.plate_number AS vehicle_plate, "
    "v.make || ' ' || v.model AS vehicle, v.transmission, b.code AS branch_code, l.purchase_id, "
    "pp.purchase_number, l.lesson_type, l.start_at, l.end_at, l.duration_minutes, l.pickup_address, "
    "l.price_cents, l.status, l.created_at, l.created_by_staff_id, l.completed_at, l.cancelled_at, "
    "l.cancelled_by, l.cancel_reason, l.late_cancellation, l.rescheduled_from_lesson_id "
    "FROM lessons l JOIN students s ON s.id = l.student_id JOIN instructors i ON i.id = l.instructor_id "
    "LEFT JOIN vehicles v ON v.id = l.vehicle_id JOIN branches b ON b.id = l.branch_id "
    "LEFT JOIN package_purchases pp ON pp.id = l.purchase_id "
    "WHERE l.booking_ref = ?"
)

TEST_SELECT = (
    "SELECT t.id, t.test_ref, t.student_id, s.full_name AS student, s.email AS student_email, "
    "s.licence_stage, tc.code AS test_centre_code, tc.name AS test_centre, t.test_class, t.scheduled_at, "
    "v.plate_number AS vehicle_plate, i.full_name AS escort_instructor, i.email AS escort_instructor_email, "
    "pp.purchase_number, t.vehicle_fee_cents, t.status, t.attempt_number, t.examiner_score, t.result_notes, "
    "st.full_name AS booked_by, t.created_at, t.result_recorded_at, t.cancelled_at, t.cancel_reason "
    "FROM road_tests t JOIN students s ON s.id = t.student_id JOIN test_centres tc ON tc.id = t.test_centre_id "
    "LEFT JOIN vehicles v ON v.id = t.vehicle_id LEFT JOIN instructors i ON i.id = t.escort_instructor_id "
    "LEFT JOIN package_purchases pp ON pp.id = t.purchase_id LEFT JOIN staff st ON st.id = t.booked_by_staff_id "
    "WHERE t.test_ref = ?"
)


# ---------------------------------------------------------------------------- helpers

def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="seconds")


def _parse_dt(value: str, name: str) -> datetime:
    try:
        dt = datetime.fromisoformat((value or "").strip())
    except ValueError:
        raise ToolError(f"{name} must be an ISO date-time such as 2026-03-10T14:00:00, not {value!r}")
    if dt.tzinfo is not None:
        raise ToolError(f"{name} must be a local time without a time zone")
    return dt.replace(second=0, microsecond=0)


def _parse_date(value: str, name: str) -> date:
    try:
        return date.fromisoformat((value or "").strip())
    except ValueError:
        raise ToolError(f"{name} must be an ISO date such as 2026-03-10, not {value!r}")


def _opt_date(value: str | None, name: str) -> str | None:
    if value is None or not value.strip():
        return None
    return _parse_date(value, name).isoformat()


def _day_bounds(date_from: str | None, date_to: str | None) -> tuple:
    lo = _opt_date(date_from, "date_from")
    hi = _opt_date(date_to, "date_to")
    if lo and hi and hi < lo:
        raise ToolError("date_to is before date_from")
    return (lo, (hi + "T23:59:59") if hi else None)


def _hm(text: str) -> int:
    h, m = text.split(":")
    return int(h) * 60 + int(m)


def _clean(text: str | None) -> str | None:
    if text is None:
        return None
    t = text.strip()
    return t or None


def _required(text: str, what: str) -> str:
    t = (text or "").strip()
    if not t:
        raise ToolError(f"give {what}")
    return t


def _staff(db: Db, email: str, roles: tuple = ()) -> dict:
    row = db.one("SELECT id, full_name, email, role, branch_id, status FROM staff WHERE lower(email) = lower(?)",
                 ((email or "").strip(),))
    if row is None:
        raise ToolError(f"no staff member with email {email!r}; staff act with their @greenlightdriving.ca address")
    if row["status"] != "active":
        raise ToolError(f"{row['full_name']} is {row['status']}; only active staff can make changes")
    if roles and row["role"] not in roles:
        raise ToolError(f"{row['full_name']} is {row['role']}; this needs one of: {', '.join(roles)}")
    return row


def _instructor(db: Db, email: str) -> dict:
    row = db.one("SELECT id, full_name, email, status, home_branch_id, can_teach_manual, hired_on, "
                 "licence_expiry_date FROM instructors WHERE lower(email) = lower(?)", ((email or "").strip(),))
    if row is None:
        raise ToolError(f"no instructor with email {email!r}; use find_instructors")
    return row


def _student(db: Db, ref: str) -> dict:
    key = (ref or "").strip()
    if not key:
        raise ToolError("give the student's email or student number (e.g. S20250001)")
    row = db.one(STUDENT_SELECT, (key, key))
    if row is None:
        raise ToolError(f"no student with email or student number {ref!r}; use find_students")
    return row


def _branch(db: Db, code: str) -> dict:
    row = db.one("SELECT id, code, name, city FROM branches WHERE upper(code) = upper(?)", ((code or "").strip(),))
    if row is None:
        raise ToolError(f"no branch with code {code!r}; use list_locations")
    return row


def _lesson(db: Db, booking_ref: str) -> dict:
    row = db.one(LESSON_SELECT, ((booking_ref or "").strip().upper(),))
    if row is None:
        raise ToolError(f"no lesson with booking reference {booking_ref!r}; use list_lessons")
    return row


def _test(db: Db, test_ref: str) -> dict:
    row = db.one(TEST_SELECT, ((test_ref or "").strip().upper(),))
    if row is None:
        raise ToolError(f"no road test with reference {test_ref!r}; use list_road_tests")
    return row


def _log(db: Db, actor_type: str, actor_id: int, entity_type: str, entity_id: int, action: str,
         student_id: int | None = None, old: str | None = None, new: str | None = None,
         details: str | None = None) -> None:
    db.insert("activity_log", {
        "occurred_at": now_iso(db), "actor_type": actor_type,
        "staff_id": actor_id if actor_type == "staff" else None,
        "instructor_id": actor_id if actor_type == "instructor" else None,
        "student_id": student_id, "entity_type": entity_type, "entity_id": entity_id, "action": action,
        "old_value": old, "new_value": new, "details": details})


def _add_charge(db: Db, student_id: int, charge_type: str, description: str, amount: int, staff_id: int | None,
                purchase_id: int | None = None, lesson_id: int | None = None, road_test_id: int | None = None,
                fee_id: int | None = None) -> str:
    cid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM charges", ())
    number = f"INV-{db.now().year}-{cid:05d}"
    db.insert("charges", {
        "id": cid, "charge_number": number, "student_id": student_id, "charge_type": charge_type,
        "description": description, "amount_cents": amount, "purchase_id": purchase_id, "lesson_id": lesson_id,
        "road_test_id": road_test_id, "fee_id": fee_id, "status": "open", "created_at": now_iso(db),
        "created_by_staff_id": staff_id, "waived_at": None, "waived_by_staff_id": None})
    return number


def _fee(db: Db, fee_type: str, code: str | None = None) -> dict | None:
    row = None
    if code:
        row = db.one("SELECT id, code, name, amount_cents FROM service_fees WHERE code = ? AND is_active = 1", (code,))
    if row is None:
        row = db.one("SELECT id, code, name, amount_cents FROM service_fees WHERE fee_type = ? AND is_active = 1 "
                     "ORDER BY id LIMIT 1", (fee_type,))
    return row


def _conflict(db: Db, start: datetime, end: datetime, instructor_id: int | None = None,
              student_id: int | None = None, vehicle_id: int | None = None, exclude_lesson: int = 0,
              exclude_test: int = 0) -> str | None:
    """Describe the first booking that overlaps [start, end) for any of the given people or car."""
    s, e = _iso(start), _iso(end)
    row = db.one(
        "SELECT booking_ref, start_at, end_at, instructor_id, student_id, vehicle_id FROM lessons "
        "WHERE status != 'cancelled' AND id != ? AND start_at < ? AND end_at > ? "
        "AND (instructor_id = ? OR student_id = ? OR vehicle_id = ?) ORDER BY start_at LIMIT 1",
        (exclude_lesson, e, s, instructor_id, student_id, vehicle_id))
    if row is not None:
        who = ("the instructor" if instructor_id is not None and row["instructor_id"] == instructor_id else
               "the student" if student_id is not None and row["student_id"] == student_id else "the car")
        return f"{who} already has lesson {row['booking_ref']} from {row['start_at']} to {row['end_at']}"
    row = db.one(
        "SELECT test_ref, scheduled_at, escort_instructor_id, student_id, vehicle_id FROM road_tests "
        "WHERE status = 'booked' AND id != ? AND scheduled_at > ? AND scheduled_at < ? "
        "AND (escort_instructor_id = ? OR student_id = ? OR vehicle_id = ?) ORDER BY scheduled_at LIMIT 1",
        (exclude_test, _iso(start - TEST_BUFFER), _iso(end + TEST_BUFFER), instructor_id, student_id, vehicle_id))
    if row is not None:
        who = ("the instructor" if instructor_id is not None and row["escort_instructor_id"] == instructor_id else
               "the student" if student_id is not None and row["student_id"] == student_id else "the car")
        return f"{who} is busy with road test {row['test_ref']} at {row['scheduled_at']} (45 min either side)"
    if instructor_id is not None:
        row = db.one("SELECT start_at, end_at, reason FROM instructor_time_off WHERE instructor_id = ? "
                     "AND status = 'approved' AND start_at < ? AND end_at > ? LIMIT 1", (instructor_id, e, s))
        if row is not None:
            return f"the instructor is on approved time off ({row['reason']}) from {row['start_at']} to {row['end_at']}"
    if vehicle_id is not None:
        row = db.one("SELECT work_order_number, scheduled_start_at, scheduled_end_at FROM vehicle_maintenance "
                     "WHERE vehicle_id = ? AND status IN ('scheduled', 'in_progress') AND scheduled_start_at < ? "
                     "AND scheduled_end_at > ? LIMIT 1", (vehicle_id, e, s))
        if row is not None:
            return (f"the car is booked for maintenance {row['work_order_number']} from "
                    f"{row['scheduled_start_at']} to {row['scheduled_end_at']}")
    return None


def _window(db: Db, ins: dict, start: datetime, end: datetime) -> dict:
    if end.date() != start.date():
        raise ToolError("a booking must start and end on the same day")
    row = db.one("SELECT a.branch_id, a.start_time, a.end_time, b.code AS branch_code FROM instructor_availability a "
                 "JOIN branches b ON b.id = a.branch_id WHERE a.instructor_id = ? AND a.weekday = ? "
                 "AND a.start_time <= ? AND a.end_time >= ? ORDER BY a.start_time LIMIT 1",
                 (ins["id"], start.weekday(), start.strftime("%H:%M"), end.strftime("%H:%M")))
    if row is None:
        hours = db.query("SELECT a.start_time, a.end_time, b.code AS branch_code FROM instructor_availability a "
                         "JOIN branches b ON b.id = a.branch_id WHERE a.instructor_id = ? AND a.weekday = ? "
                         "ORDER BY a.start_time", (ins["id"], start.weekday()))
        if not hours:
            raise ToolError(f"{ins['full_name']} does not work on {WEEKDAYS[start.weekday()]}s; "
                            "use find_available_slots")
        txt = ", ".join(f"{h['start_time']}-{h['end_time']} at {h['branch_code']}" for h in hours)
        raise ToolError(f"{start.strftime('%H:%M')}-{end.strftime('%H:%M')} is outside {ins['full_name']}'s hours on "
                        f"{WEEKDAYS[start.weekday()]} ({txt})")
    return row


def _check_instructor_ok(ins: dict, stu: dict, day: date) -> None:
    d = day.isoformat()
    if ins["status"] != "active":
        raise ToolError(f"{ins['full_name']} is {ins['status']} and cannot take bookings")
    if ins["hired_on"] > d:
        raise ToolError(f"{ins['full_name']} starts on {ins['hired_on']}")
    if ins["licence_expiry_date"] < d:
        raise ToolError(f"{ins['full_name']}'s instructor licence expires on {ins['licence_expiry_date']}")
    if stu["preferred_transmission"] == "manual" and ins["can_teach_manual"] != 1:
        raise ToolError(f"{stu['full_name']} learns in a manual car and {ins['full_name']} does not teach manual")


def _pick_vehicle(db: Db, branch_id: int, transmission: str, day: date, start: datetime, end: datetime,
                  plate: str | None, exclude_lesson: int = 0, exclude_test: int = 0) -> dict:
    d = day.isoformat()
    if plate:
        v = db.one("SELECT id, plate_number, make, model, transmission, home_branch_id, status, acquired_on, "
                   "insurance_expiry_date, registration_expiry_date, dual_controls FROM vehicles "
                   "WHERE upper(plate_number) = upper(?)", (plate.strip(),))
        if v is None:
            raise ToolError(f"no car with plate {plate!r}; use list_vehicles")
        if v["status"] == "retired":
            raise ToolError(f"car {v['plate_number']} is retired")
        if v["home_branch_id"] != branch_id:
            raise ToolError(f"car {v['plate_number']} belongs to another branch; pick a car from the lesson's branch")
        if v["transmission"] != transmission:
            raise ToolError(f"car {v['plate_number']} is {v['transmission']}; the student needs {transmission}")
        if v["insurance_expiry_date"] < d or v["registration_expiry_date"] < d or v["acquired_on"] > d:
            raise ToolError(f"car {v['plate_number']} is not insured/registered for {d}")
        clash = _conflict(db, start, end, vehicle_id=v["id"], exclude_lesson=exclude_lesson, exclude_test=exclude_test)
        if clash:
            raise ToolError(f"car {v['plate_number']}: {clash}")
        return v
    cands = db.query("SELECT id, plate_number, make, model, transmission FROM vehicles WHERE home_branch_id = ? "
                     "AND transmission = ? AND status != 'retired' AND dual_controls = 1 AND acquired_on <= ? "
                     "AND insurance_expiry_date >= ? AND registration_expiry_date >= ? ORDER BY id",
                     (branch_id, transmission, d, d, d))
    for v in cands:
        if _conflict(db, start, end, vehicle_id=v["id"], exclude_lesson=exclude_lesson,
                     exclude_test=exclude_test) is None:
            return v
    raise ToolError(f"no {transmission} car is free at that branch for {_iso(start)}; try another time "
                    "(find_available_slots)")


def _free(intervals: list, s: datetime, e: datetime) -> bool:
    return all(not (a < e and s < b) for a, b in intervals)


def _outstanding(db: Db, charge_id: int) -> int:
    paid = db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM payments WHERE charge_id = ? AND status = 'completed'",
                    (charge_id,))
    amount = db.value("SELECT amount_cents FROM charges WHERE id = ?", (charge_id,))
    return int(amount) - int(paid)


def _purchase_status_after(row: dict, used: int, today: date) -> str:
    if used >= row["lessons_total"]:
        return "completed"
    if row["expires_on"] < today.isoformat():
        return "expired"
    return "active"


# ---------------------------------------------------------------------------- locations & catalogue

@tool
def list_locations(db: Db) -> dict:
    """List the school's branches (where lessons start and cars are based) and the DriveTest centres used for road tests.
    """
    branches = db.query("SELECT code, name, address, city, postal_code, phone, email, is_active FROM branches "
                        "ORDER BY code", ())
    centres = db.query("SELECT code, name, address, city, phone, is_active FROM test_centres ORDER BY code", ())
    return {"branches": branches, "test_centres": centres}


@tool
def list_price_list(db: Db, include_inactive: bool = False) -> dict:
    """Show the lesson packages and the single-lesson and other service fees with their prices.

    Args:
        include_inactive: also list discontinued packages and fees.
    """
    flag = 1 if include_inactive else 0
    packages = db.query("SELECT code, name, description, lesson_count, lesson_minutes, transmission, "
                        "includes_road_test_vehicle, price_cents, validity_days, is_active FROM lesson_packages "
                        "WHERE is_active = 1 OR ? = 1 ORDER BY price_cents", (flag,))
    fees = db.query("SELECT code, name, fee_type, amount_cents, is_active FROM service_fees "
                    "WHERE is_active = 1 OR ? = 1 ORDER BY fee_type, amount_cents", (flag,))
    return {"packages": packages, "service_fees": fees}


@tool
def list_skills(db: Db) -> list[dict]:
    """List the driving skills instructors rate in progress notes, with their codes and categories."""
    return db.query("SELECT code, name, category FROM skills ORDER BY sort_order", ())


# ---------------------------------------------------------------------------- students

@tool
def find_students(db: Db, query: str | None = None, status: Literal["enquiry", "active", "on_hold", "graduated", "withdrawn"] | None = None,
                  branch_code: str | None = None, limit: int = 20) -> list[dict]:
    """Search students by name, email, phone, student number or permit number, optionally by status and branch.

    Args:
        query: text to look for, e.g. "Levy", "robin_levy@gmail.com", "S20250001" or a permit number.
        status: only students with this status.
        branch_code: only students of this home branch, e.g. "GUE".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    q = _clean(query)
    pat = like_contains(q) if q else None
    return db.query(
        "SELECT s.student_number, s.full_name, s.email, s.phone, s.status, s.licence_stage, "
        "s.preferred_transmission, s.permit_number, b.code AS branch_code, i.full_name AS primary_instructor, "
        "s.enrolled_at FROM students s JOIN branches b ON b.id = s.home_branch_id "
        "LEFT JOIN instructors i ON i.id = s.primary_instructor_id "
        "WHERE (? IS NULL OR s.full_name LIKE ? ESCAPE '\\' OR s.email LIKE ? ESCAPE '\\' "
        "OR s.student_number LIKE ? ESCAPE '\\' OR s.permit_number LIKE ? ESCAPE '\\' OR s.phone LIKE ? ESCAPE '\\') "
        "AND (? IS NULL OR s.status = ?) AND (? IS NULL OR upper(b.code) = upper(?)) "
        "ORDER BY s.full_name, s.student_number LIMIT ?",
        (pat, pat, pat, pat, pat, pat, status, status, branch_code, branch_code, limit))


@tool
def get_student(db: Db, student: str) -> dict:
    """Show one student's full record: contact details, permit, status, branch, primary instructor, packages, upcoming lessons and road tests, and balance owed.

    Args:
        student: the student's email or student number.
    """
    s = _student(db, student)
    now = now_iso(db)
    packages = db.query(
        "SELECT pp.purchase_number, lp.name AS package, pp.lessons_total, pp.lessons_used, "
        "pp.lessons_total - pp.lessons_used AS lessons_remaining, pp.status, pp.expires_on FROM package_purchases pp "
        "JOIN lesson_packages lp ON lp.id = pp.package_id WHERE pp.student_id = ? ORDER BY pp.purchased_at",
        (s["id"],))
    upcoming = db.query(
        "SELECT l.booking_ref, l.start_at, l.end_at, l.lesson_type, i.full_name AS instructor FROM lessons l "
        "JOIN instructors i ON i.id = l.instructor_id WHERE l.student_id = ? AND l.status = 'scheduled' "
        "AND l.start_at >= ? ORDER BY l.start_at LIMIT 10", (s["id"], now))
    tests = db.query(
        "SELECT t.test_ref, t.test_class, t.scheduled_at, t.status, t.attempt_number, tc.name AS test_centre "
        "FROM road_tests t JOIN test_centres tc ON tc.id = t.test_centre_id WHERE t.student_id = ? "
        "ORDER BY t.scheduled_at", (s["id"],))
    counts = db.one(
        "SELECT SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) AS completed, "
        "SUM(CASE WHEN status = 'no_show' THEN 1 ELSE 0 END) AS no_shows, "
        "SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) AS cancelled, "
        "SUM(CASE WHEN status = 'scheduled' THEN 1 ELSE 0 END) AS scheduled FROM lessons WHERE student_id = ?",
        (s["id"],))
    owed = db.value(
        "SELECT COALESCE(SUM(c.amount_cents - COALESCE((SELECT SUM(p.amount_cents) FROM payments p "
        "WHERE p.charge_id = c.id AND p.status = 'completed'), 0)), 0) FROM charges c "
        "WHERE c.student_id = ? AND c.status = 'open'", (s["id"],))
    out = dict(s)
    out.pop("id")
    out.pop("home_branch_id")
    out.pop("primary_instructor_id")
    out["lesson_counts"] = {k: int(v or 0) for k, v in counts.items()}
    out["packages"] = packages
    out["upcoming_lessons"] = upcoming
    out["road_tests"] = tests
    out["balance_owed_cents"] = int(owed or 0)
    return out


# ---------------------------------------------------------------------------- instructors

@tool
def find_instructors(db: Db, query: str | None = None, branch_code: str | None = None,
                     status: Literal["active", "on_leave", "inactive"] | None = None,
                     can_teach_manual: bool | None = None, limit: int = 20) -> list[dict]:
    """Search instructors by name or email, optionally by home branch, status and whether they teach manual.

    Args:
        query: part of the instructor's name or email.
        branch_code: only instructors based at this branch, e.g. "CAM".
        status: only instructors with this status.
        can_teach_manual: true for instructors qualified for manual cars, false for automatic only.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    q = _clean(query)
    pat = like_contains(q) if q else None
    manual = None if can_teach_manual is None else (1 if can_teach_manual else 0)
    return db.query(
        "SELECT i.employee_code, i.full_name, i.email, i.phone, b.code AS home_branch, i.can_teach_manual, "
        "i.status, i.licence_expiry_date, i.hired_on FROM instructors i JOIN branches b ON b.id = i.home_branch_id "
        "WHERE (? IS NULL OR i.full_name LIKE ? ESCAPE '\\' OR i.email LIKE ? ESCAPE '\\') "
        "AND (? IS NULL OR upper(b.code) = upper(?)) AND (? IS NULL OR i.status = ?) "
        "AND (? IS NULL OR i.can_teach_manual = ?) ORDER BY i.full_name LIMIT ?",
        (pat, pat, pat, branch_code, branch_code, status, status, manual, manual, limit))


@tool
def get_instructor(db: Db, instructor_email: str) -> dict:
    """Show an instructor's profile, weekly working hours per branch, upcoming time off and number of upcoming lessons.

    Args:
        instructor_email: the instructor's email.
    """
    ins = _instructor(db, instructor_email)
    prof = db.one("SELECT i.employee_code, i.full_name, i.email, i.phone, i.instructor_licence_number, "
                  "i.licence_expiry_date, b.code AS home_branch, i.can_teach_manual, i.hourly_rate_cents, i.status, "
                  "i.hired_on, i.bio FROM instructors i JOIN branches b ON b.id = i.home_branch_id WHERE i.id = ?",
                  (ins["id"],))
    hours = db.query("SELECT a.weekday, a.start_time, a.end_time, b.code AS branch_code FROM instructor_availability a "
                     "JOIN branches b ON b.id = a.branch_id WHERE a.instructor_id = ? ORDER BY a.weekday, a.start_time",
                     (ins["id"],))
    for h in hours:
        h["day"] = WEEKDAYS[h["weekday"]]
    now = now_iso(db)
    off = db.query("SELECT id AS time_off_id, start_at, end_at, reason, status FROM instructor_time_off "
                   "WHERE instructor_id = ? AND end_at >= ? AND status IN ('requested', 'approved') ORDER BY start_at",
                   (ins["id"], now))
    upcoming = db.value("SELECT COUNT(*) FROM lessons WHERE instructor_id = ? AND status = 'scheduled' "
                        "AND start_at >= ?", (ins["id"], now))
    students = db.value("SELECT COUNT(*) FROM students WHERE primary_instructor_id = ? "
                        "AND status IN ('active', 'on_hold')", (ins["id"],))
    out = dict(prof)
    out["weekly_hours"] = hours
    out["upcoming_time_off"] = off
    out["upcoming_lessons"] = int(upcoming or 0)
    out["primary_students"] = int(students or 0)
    return out


@tool
def get_instructor_day_schedule(db: Db, instructor_email: str, date: str) -> dict:
    """Show an instructor's day: working hours, lessons (including cancelled ones), road-test escorts and any time off.

    Args:
        instructor_email: the instructor's email.
        date: the day, e.g. "2026-03-04".
    """
    ins = _instructor(db, instructor_email)
    day = _parse_date(date, "date")
    ds = day.isoformat() + "T00:00:00"
    de = (day + timedelta(days=1)).isoformat() + "T00:00:00"
    hours = db.query("SELECT a.start_time, a.end_time, b.code AS branch_code FROM instructor_availability a "
                     "JOIN branches b ON b.id = a.branch_id WHERE a.instructor_id = ? AND a.weekday = ? "
                     "ORDER BY a.start_time", (ins["id"], day.weekday()))
    lessons = db.query("SELECT l.booking_ref, l.start_at, l.end_at, l.lesson_type, l.status, s.full_name AS student, "
                       "v.plate_number AS vehicle_plate, l.pickup_address FROM lessons l "
                       "JOIN students s ON s.id = l.student_id LEFT JOIN vehicles v ON v.id = l.vehicle_id "
                       "WHERE l.instructor_id = ? AND l.start_at >= ? AND l.start_at < ? ORDER BY l.start_at",
                       (ins["id"], ds, de))
    tests = db.query("SELECT t.test_ref, t.scheduled_at, t.test_class, t.status, s.full_name AS student, "
                     "tc.name AS test_centre FROM road_tests t JOIN students s ON s.id = t.student_id "
                     "JOIN test_centres tc ON tc.id = t.test_centre_id WHERE t.escort_instructor_id = ? "
                     "AND t.scheduled_at >= ? AND t.scheduled_at < ? ORDER BY t.scheduled_at", (ins["id"], ds, de))
    off = db.query("SELECT start_at, end_at, reason, status FROM instructor_time_off WHERE instructor_id = ? "
                   "AND start_at < ? AND end_at > ? AND status IN ('requested', 'approved')", (ins["id"], de, ds))
    return {"instructor": ins["full_name"], "status": ins["status"], "date": day.isoformat(),
            "weekday": WEEKDAYS[day.weekday()], "working_hours": hours, "lessons": lessons,
            "road_test_escorts": tests, "time_off": off}


@tool
def find_available_slots(db: Db, date: str, duration_minutes: int = 60, student: str | None = None,
                         branch_code: str | None = None,
                         transmission: Literal["automatic", "manual"] | None = None,
                         instructor_email: str | None = None, limit: int = 30) -> dict:
    """Find free lesson start times on a day: an instructor working at the branch, free of lessons, road tests and time off, with a free car of the right transmission.

    Args:
        date: the day, e.g. "2026-03-05".
        duration_minutes: lesson length: 45, 60, 90 or 120.
        student: the student's email or number; sets the branch and transmission and skips times the student is busy.
        branch_code: branch where the lesson starts (defaults to the student's home branch).
        transmission: car type needed (defaults to the student's preference, else automatic).
        instructor_email: only this instructor.
        limit: maximum number of slots returned, 1 to 100.
    """
    check_limit(limit, 100)
    day = _parse_date(date, "date")
    if duration_minutes not in LESSON_MINUTES:
        raise ToolError("duration_minutes must be 45, 60, 90 or 120")
    stu = _student(db, student) if student else None
    if branch_code:
        branch = _branch(db, branch_code)
    elif stu is not None:
        branch = db.one("SELECT id, code, name, city FROM branches WHERE id = ?", (stu["home_branch_id"],))
    else:
        raise ToolError("give branch_code or student")
    trans = transmission or (stu["preferred_transmission"] if stu else "automatic")
    d = day.isoformat()
    ds, de = d + "T00:00:00", (day + timedelta(days=1)).isoformat() + "T00:00:00"
    windows = db.query(
        "SELECT i.id, i.full_name, i.email, i.can_teach_manual, a.start_time, a.end_time FROM instructor_availability a "
        "JOIN instructors i ON i.id = a.instructor_id WHERE a.weekday = ? AND a.branch_id = ? AND i.status = 'active' "
        "AND i.hired_on <= ? AND i.licence_expiry_date >= ? AND (? IS NULL OR lower(i.email) = lower(?)) "
        "ORDER BY i.full_name, a.start_time",
        (day.weekday(), branch["id"], d, d, instructor_email, instructor_email))
    vehicles = db.query("SELECT id, plate_number FROM vehicles WHERE home_branch_id = ? AND transmission = ? "
                        "AND status != 'retired' AND dual_controls = 1 AND acquired_on <= ? "
                        "AND insurance_expiry_date >= ? AND registration_expiry_date >= ? ORDER BY id",
                        (branch["id"], trans, d, d, d))
    busy_i, busy_v, busy_s = {}, {}, []
    for r in db.query("SELECT instructor_id, student_id, vehicle_id, start_at, end_at FROM lessons "
                      "WHERE status != 'cancelled' AND start_at < ? AND end_at > ?", (de, ds)):
        iv = (datetime.fromisoformat(r["start_at"]), datetime.fromisoformat(r["end_at"]))
        busy_i.setdefault(r["instructor_id"], []).append(iv)
        if r["vehicle_id"] is not None:
            busy_v.setdefault(r["vehicle_id"], []).append(iv)
        if stu is not None and r["student_id"] == stu["id"]:
            busy_s.append(iv)
    lo_t = _iso(datetime.fromisoformat(ds) - TEST_BUFFER)
    hi_t = _iso(datetime.fromisoformat(de) + TEST_BUFFER)
    for r in db.query("SELECT escort_instructor_id, student_id, vehicle_id, scheduled_at FROM road_tests "
                      "WHERE status = 'booked' AND scheduled_at > ? AND scheduled_at < ?", (lo_t, hi_t)):
        t = datetime.fromisoformat(r["scheduled_at"])
        iv = (t - TEST_BUFFER, t + TEST_BUFFER)
        if r["escort_instructor_id"] is not None:
            busy_i.setdefault(r["escort_instructor_id"], []).append(iv)
        if r["vehicle_id"] is not None:
            busy_v.setdefault(r["vehicle_id"], []).append(iv)
        if stu is not None and r["student_id"] == stu["id"]:
            busy_s.append(iv)
    for r in db.query("SELECT instructor_id, start_at, end_at FROM instructor_time_off WHERE status = 'approved' "
                      "AND start_at < ? AND end_at > ?", (de, ds)):
        busy_i.setdefault(r["instructor_id"], []).append(
            (datetime.fromisoformat(r["start_at"]), datetime.fromisoformat(r["end_at"])))
    for r in db.query("SELECT vehicle_id, scheduled_start_at, scheduled_end_at FROM vehicle_maintenance "
                      "WHERE status IN ('scheduled', 'in_progress') AND scheduled_start_at < ? AND scheduled_end_at > ?",
                      (de, ds)):
        busy_v.setdefault(r["vehicle_id"], []).append(
            (datetime.fromisoformat(r["scheduled_start_at"]), datetime.fromisoformat(r["scheduled_end_at"])))

    now = db.now()
    base = datetime(day.year, day.month, day.day)
    slots = []
    for w in windows:
        if trans == "manual" and w["can_teach_manual"] != 1:
            continue
        for m in range(_hm(w["start_time"]), _hm(w["end_time"]) - duration_minutes + 1, 30):
            s = base + timedelta(minutes=m)
            e = s + timedelta(minutes=duration_minutes)
            if s <= now or not _free(busy_i.get(w["id"], []), s, e) or not _free(busy_s, s, e):
                continue
            cars = [v["plate_number"] for v in vehicles if _free(busy_v.get(v["id"], []), s, e)]
            if not cars:
                continue
            slots.append({"start_at": _iso(s), "end_at": _iso(e), "instructor": w["full_name"],
                          "instructor_email": w["email"], "free_cars": cars})
    slots.sort(key=lambda x: (x["start_at"], x["instructor"]))
    return {"date": d, "weekday": WEEKDAYS[day.weekday()], "branch_code": branch["code"], "transmission": trans,
            "duration_minutes": duration_minutes, "slots_found": len(slots), "slots": slots[:limit]}


# ---------------------------------------------------------------------------- lessons

@tool
def list_lessons(db: Db, student: str | None = None, instructor_email: str | None = None,
                 branch_code: str | None = None, status: Literal["scheduled", "completed", "cancelled", "no_show"] | None = None,
                 lesson_type: Literal["standard", "highway", "parking", "night", "mock_test", "refresher"] | None = None, date_from: str | None = None, date_to: str | None = None,
                 newest_first: bool = False, limit: int = 20) -> list[dict]:
    """List lessons with student, instructor, car and status, filtered by student, instructor, branch, status, type and date range.

    Args:
        student: the student's email or student number.
        instructor_email: only this instructor's lessons.
        branch_code: only lessons starting from this branch.
        status: only lessons with this status.
        lesson_type: only this kind of lesson.
        date_from: first day (inclusive), e.g. "2026-03-01".
        date_to: last day (inclusive).
        newest_first: sort latest first instead of earliest first.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    sid = _student(db, student)["id"] if student else None
    iid = _instructor(db, instructor_email)["id"] if instructor_email else None
    lo, hi = _day_bounds(date_from, date_to)
    desc = 1 if newest_first else 0
    return db.query(
        "SELECT l.booking_ref, l.start_at, l.end_at, l.duration_minutes, l.lesson_type, l.status, "
        "s.full_name AS student, s.student_number, i.full_name AS instructor, v.plate_number AS vehicle_plate, "
        "b.code AS branch_code, pp.purchase_number, l.price_cents, l.cancelled_at, l.cancelled_by, "
        "l.late_cancellation FROM lessons l JOIN students s ON s.id = l.student_id "
        "JOIN instructors i ON i.id = l.instructor_id LEFT JOIN vehicles v ON v.id = l.vehicle_id "
        "JOIN branches b ON b.id = l.branch_id LEFT JOIN package_purchases pp ON pp.id = l.purchase_id "
        "WHERE (? IS NULL OR l.student_id = ?) AND (? IS NULL OR l.instructor_id = ?) "
        "AND (? IS NULL OR upper(b.code) = upper(?)) AND (? IS NULL OR l.status = ?) "
        "AND (? IS NULL OR l.lesson_type = ?) AND (? IS NULL OR l.start_at >= ?) AND (? IS NULL OR l.start_at <= ?) "
        "ORDER BY CASE WHEN ? = 1 THEN l.start_at END DESC, l.start_at ASC LIMIT ?",
        (sid, sid, iid, iid, branch_code, branch_code, status, status, lesson_type, lesson_type, lo, lo, hi, hi,
         desc, limit))


@tool
def get_lesson(db: Db, booking_ref: str) -> dict:
    """Show one lesson by booking reference: student, instructor, car, branch, package used, status history fields, the progress note and related charges.

    Args:
        booking_ref: the lesson's booking reference, e.g. "GL-ZH4CFX".
    """
    l = _lesson(db, booking_ref)
    out = dict(l)
    prev = None
    if l["rescheduled_from_lesson_id"] is not None:
        prev = db.value("SELECT booking_ref FROM lessons WHERE id = ?", (l["rescheduled_from_lesson_id"],))
    nxt = db.value("SELECT booking_ref FROM lessons WHERE rescheduled_from_lesson_id = ?", (l["id"],))
    booked_by = None
    if l["created_by_staff_id"] is not None:
        booked_by = db.value("SELECT full_name FROM staff WHERE id = ?", (l["created_by_staff_id"],))
    note = db.one("SELECT id, overall_rating, test_ready, summary, next_focus, created_at, updated_at "
                  "FROM progress_notes WHERE lesson_id = ?", (l["id"],))
    if note is not None:
        note["skill_ratings"] = db.query("SELECT k.code, k.name, r.rating, r.comment FROM skill_ratings r "
                                         "JOIN skills k ON k.id = r.skill_id WHERE r.progress_note_id = ? "
                                         "ORDER BY k.sort_order", (note["id"],))
        note.pop("id")
    charges = db.query("SELECT charge_number, charge_type, description, amount_cents, status FROM charges "
                       "WHERE lesson_id = ? ORDER BY created_at", (l["id"],))
    for k in ("id", "student_id", "instructor_id", "purchase_id", "rescheduled_from_lesson_id", "created_by_staff_id"):
        out.pop(k)
    out["booked_by"] = booked_by if booked_by else "student (online booking)"
    out["rescheduled_from"] = prev
    out["rescheduled_to"] = nxt
    out["progress_note"] = note
    out["charges"] = charges
    return out


@tool(write=True, actor="staff_email")
def book_lesson(db: Db, staff_email: str, student: str, instructor_email: str, start_at: str,
                lesson_type: Literal["standard", "highway", "parking", "night", "mock_test", "refresher"] = "standard", duration_minutes: int | None = None,
                purchase_number: str | None = None, pickup_address: str | None = None,
                vehicle_plate: str | None = None) -> dict:
    """Book a lesson for an active student with an instructor at a given time, using a package credit or as a paid single lesson.

    The instructor must be working then (the branch comes from their hours), and the instructor, student and
    car must all be free. With purchase_number one credit of that package is used; without it a single-lesson
    charge (60 or 90 minutes) is added to the student's account.

    Args:
        staff_email: email of the staff member making the booking (the acting person).
        student: the student's email or student number.
        instructor_email: the instructor's email.
        start_at: start time, e.g. "2026-03-10T14:00:00".
        lesson_type: kind of lesson.
        duration_minutes: 45, 60, 90 or 120; defaults to the package's lesson length, else 60.
        purchase_number: the student's package to draw a credit from, e.g. "PKG-2026-0051".
        pickup_address: where to pick the student up; defaults to the student's home address.
        vehicle_plate: a specific car; by default a free car of the right transmission at the branch is chosen.
    """
    staff = _staff(db, staff_email)
    stu = _student(db, student)
    ins = _instructor(db, instructor_email)
    start = _parse_dt(start_at, "start_at")
    if stu["status"] != "active":
        raise ToolError(f"{stu['full_name']} is {stu['status']}; only active students can be booked "
                        "(use set_student_status to reactivate)")
    pur = None
    if purchase_number:
        pur = db.one("SELECT pp.id, pp.purchase_number, pp.student_id, pp.lessons_total, pp.lessons_used, pp.status, "
                     "pp.expires_on, lp.lesson_minutes, lp.transmission, lp.name FROM package_purchases pp "
                     "JOIN lesson_packages lp ON lp.id = pp.package_id WHERE upper(pp.purchase_number) = upper(?)",
                     (purchase_number.strip(),))
        if pur is None:
            raise ToolError(f"no package purchase {purchase_number!r}; see list_student_packages")
        if pur["student_id"] != stu["id"]:
            raise ToolError(f"package {pur['purchase_number']} belongs to another student")
        if pur["status"] != "active" or pur["lessons_used"] >= pur["lessons_total"]:
            raise ToolError(f"package {pur['purchase_number']} is {pur['status']} with "
                            f"{pur['lessons_total'] - pur['lessons_used']} lessons left; sell a new package or book a "
                            "single lesson")
        if pur["transmission"] not in ("either", stu["preferred_transmission"]):
            raise ToolError(f"package {pur['purchase_number']} is for {pur['transmission']} cars")
    minutes = duration_minutes if duration_minutes is not None else (pur["lesson_minutes"] if pur else 60)
    if minutes not in LESSON_MINUTES:
        raise ToolError("duration_minutes must be 45, 60, 90 or 120")
    if pur is not None and minutes != pur["lesson_minutes"]:
        raise ToolError(f"package {pur['purchase_number']} covers {pur['lesson_minutes']}-minute lessons")
    end = start + timedelta(minutes=minutes)
    if start <= db.now():
        raise ToolError("the lesson must start in the future")
    if pur is not None and pur["expires_on"] < start.date().isoformat():
        raise ToolError(f"package {pur['purchase_number']} expires on {pur['expires_on']}, before this lesson")
    if stu["permit_expiry_date"] < start.date().isoformat():
        raise ToolError(f"{stu['full_name']}'s permit expires on {stu['permit_expiry_date']}; it must be renewed first")
    _check_instructor_ok(ins, stu, start.date())
    win = _window(db, ins, start, end)
    clash = _conflict(db, start, end, instructor_id=ins["id"], student_id=stu["id"])
    if clash:
        raise ToolError(f"cannot book {_iso(start)}: {clash}")
    car = _pick_vehicle(db, win["branch_id"], stu["preferred_transmission"], start.date(), start, end, vehicle_plate)
    fee = None
    price = 0
    if pur is None:
        fee = _fee(db, "single_lesson", f"LESSON-{minutes}")
        if fee is None or fee["code"] != f"LESSON-{minutes}":
            raise ToolError(f"single lessons are sold as 60 or 90 minutes; {minutes}-minute lessons need a package")
        price = fee["amount_cents"]
    pickup = _clean(pickup_address) or f"{stu['address']}, {stu['city']}"
    lid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM lessons", ())
    ref = f"GL-{lid:06d}"
    db.insert("lessons", {
        "id": lid, "booking_ref": ref, "student_id": stu["id"], "instructor_id": ins["id"], "vehicle_id": car["id"],
        "branch_id": win["branch_id"], "purchase_id": pur["id"] if pur else None, "lesson_type": lesson_type,
        "start_at": _iso(start), "end_at": _iso(end), "duration_minutes": minutes, "pickup_address": pickup,
        "price_cents": price, "status": "scheduled", "created_at": now_iso(db), "created_by_staff_id": staff["id"],
        "completed_at": None, "cancelled_at": None, "cancelled_by": None, "cancel_reason": None,
        "late_cancellation": 0, "rescheduled_from_lesson_id": None})
    charge_number = None
    if pur is not None:
        used = pur["lessons_used"] + 1
        db.execute("UPDATE package_purchases SET lessons_used = ?, status = ? WHERE id = ?",
                   (used, _purchase_status_after(pur, used, db.today()), pur["id"]))
    else:
        charge_number = _add_charge(db, stu["id"], "single_lesson",
                                    f"Single {minutes}-min lesson on {_iso(start)[:16].replace('T', ' ')}", price,
                                    staff["id"], lesson_id=lid, fee_id=fee["id"])
    _log(db, "staff", staff["id"], "lesson", lid, "lesson_booked", stu["id"], None, "scheduled",
         f"Lesson {ref} on {_iso(start)[:16].replace('T', ' ')} with {ins['full_name']}")
    return {"booking_ref": ref, "student": stu["full_name"], "instructor": ins["full_name"],
            "start_at": _iso(start), "end_at": _iso(end), "branch_code": win["branch_code"],
            "vehicle_plate": car["plate_number"], "lesson_type": lesson_type,
            "purchase_number": pur["purchase_number"] if pur else None, "price_cents": price,
            "charge_number": charge_number, "status": "scheduled"}


@tool(write=True, actor="staff_email")
def cancel_lesson(db: Db, staff_email: str, booking_ref: str, cancelled_by: Literal["student", "instructor", "school"],
                  reason: str) -> dict:
    """Cancel an upcoming scheduled lesson. A package credit is returned; a student cancelling less than 24 hours before the start is charged the late-cancellation fee.

    Args:
        staff_email: email of the staff member recording the cancellation (the acting person).
        booking_ref: the lesson's booking reference.
        cancelled_by: who asked for the cancellation.
        reason: why, in the requester's words.
    """
    staff = _staff(db, staff_email)
    why = _required(reason, "the reason for the cancellation")
    l = _lesson(db, booking_ref)
    if l["status"] != "scheduled":
        raise ToolError(f"lesson {l['booking_ref']} is {l['status']}; only scheduled lessons can be cancelled")
    now = db.now()
    start = datetime.fromisoformat(l["start_at"])
    if start <= now:
        raise ToolError(f"lesson {l['booking_ref']} has already started; record the outcome instead")
    late = 1 if (cancelled_by == "student" and start - now < LATE_WINDOW) else 0
    db.execute("UPDATE lessons SET status = 'cancelled', cancelled_at = ?, cancelled_by = ?, cancel_reason = ?, "
               "late_cancellation = ? WHERE id = ?", (now_iso(db), cancelled_by, why, late, l["id"]))
    credit_returned = False
    if l["purchase_id"] is not None:
        pur = db.one("SELECT id, lessons_total, lessons_used, expires_on, status FROM package_purchases WHERE id = ?",
                     (l["purchase_id"],))
        if pur is not None and pur["status"] in ("active", "completed", "expired") and pur["lessons_used"] > 0:
            used = pur["lessons_used"] - 1
            db.execute("UPDATE package_purchases SET lessons_used = ?, status = ? WHERE id = ?",
                       (used, _purchase_status_after(pur, used, db.today()), pur["id"]))
            credit_returned = True
    waived = []
    refund_due = []
    for ch in db.query("SELECT id, charge_number, status FROM charges WHERE lesson_id = ? "
                       "AND charge_type = 'single_lesson'", (l["id"],)):
        if ch["status"] == "open" and _outstanding(db, ch["id"]) == db.value(
                "SELECT amount_cents FROM charges WHERE id = ?", (ch["id"],)):
            db.execute("UPDATE charges SET status = 'waived', waived_at = ?, waived_by_staff_id = ? WHERE id = ?",
                       (now_iso(db), staff["id"], ch["id"]))
            waived.append(ch["charge_number"])
        elif ch["status"] != "waived":
            refund_due.append(ch["charge_number"])
    late_charge = None
    if late:
        fee = _fee(db, "late_cancellation")
        if fee is not None:
            late_charge = _add_charge(db, l["student_id"], "late_cancellation",
                                      f"Late cancellation fee - lesson on {l['start_at'][:16].replace('T', ' ')}",
                                      fee["amount_cents"], staff["id"], lesson_id=l["id"], fee_id=fee["id"])
    _log(db, "staff", staff["id"], "lesson", l["id"], "lesson_cancelled", l["student_id"], "scheduled", "cancelled",
         f"By {cancelled_by}: {why}")
    return {"booking_ref": l["booking_ref"], "status": "cancelled", "cancelled_by": cancelled_by,
            "late_cancellation": bool(late), "package_credit_returned": credit_returned,
            "late_fee_charge": late_charge, "waived_charges": waived, "paid_charges_needing_refund": refund_due}


@tool(write=True, actor="staff_email")
def reschedule_lesson(db: Db, staff_email: str, booking_ref: str, new_start_at: str, reason: str,
                      requested_by: Literal["student", "instructor", "school"] = "student",
                      instructor_email: str | None = None, vehicle_plate: str | None = None) -> dict:
    """Move an upcoming lesson to a new time: the old booking is cancelled and a new one is linked to it, keeping the same package credit or single-lesson charge.

    A student may reschedule only more than 24 hours before the lesson; later changes are late cancellations.

    Args:
        staff_email: email of the staff member making the change (the acting person).
        booking_ref: the current lesson's booking reference.
        new_start_at: the new start time, e.g. "2026-03-12T16:00:00".
        reason: why the lesson is moved.
        requested_by: who asked for the change.
        instructor_email: a different instructor for the new time; by default the same instructor.
        vehicle_plate: a specific car for the new time; by default a free one is chosen.
    """
    staff = _staff(db, staff_email)
    why = _required(reason, "the reason for the change")
    l = _lesson(db, booking_ref)
    if l["status"] != "scheduled":
        raise ToolError(f"lesson {l['booking_ref']} is {l['status']}; only scheduled lessons can be rescheduled")
    now = db.now()
    old_start = datetime.fromisoformat(l["start_at"])
    if old_start <= now:
        raise ToolError(f"lesson {l['booking_ref']} has already started")
    if requested_by == "student" and old_start - now < LATE_WINDOW:
        raise ToolError("the lesson is less than 24 hours away; a student change now is a late cancellation "
                        "(cancel_lesson, then book_lesson)")
    stu = _student(db, l["student_email"])
    ins = _instructor(db, instructor_email) if instructor_email else _instructor(db, l["instructor_email"])
    start = _parse_dt(new_start_at, "new_start_at")
    if start <= now:
        raise ToolError("the new time must be in the future")
    if start == old_start and ins["id"] == l["instructor_id"]:
        raise ToolError("the new time is the same as the current one")
    end = start + timedelta(minutes=l["duration_minutes"])
    if stu["permit_expiry_date"] < start.date().isoformat():
        raise ToolError(f"{stu['full_name']}'s permit expires on {stu['permit_expiry_date']}")
    if l["purchase_id"] is not None:
        exp = db.value("SELECT expires_on FROM package_purchases WHERE id = ?", (l["purchase_id"],))
        if exp is not None and exp < start.date().isoformat():
            raise ToolError(f"package {l['purchase_number']} expires on {exp}, before the new time")
    _check_instructor_ok(ins, stu, start.date())
    win = _window(db, ins, start, end)
    clash = _conflict(db, start, end, instructor_id=ins["id"], student_id=stu["id"], exclude_lesson=l["id"])
    if clash:
        raise ToolError(f"cannot move to {_iso(start)}: {clash}")
    car = _pick_vehicle(db, win["branch_id"], stu["preferred_transmission"], start.date(), start, end,
                        vehicle_plate, exclude_lesson=l["id"])
    db.execute("UPDATE lessons SET status = 'cancelled', cancelled_at = ?, cancelled_by = ?, cancel_reason = ?, "
               "late_cancellation = 0 WHERE id = ?", (now_iso(db), requested_by, "Rescheduled: " + why, l["id"]))
    lid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM lessons", ())
    ref = f"GL-{lid:06d}"
    db.insert("lessons", {
        "id": lid, "booking_ref": ref, "student_id": stu["id"], "instructor_id": ins["id"], "vehicle_id": car["id"],
        "branch_id": win["branch_id"], "purchase_id": l["purchase_id"], "lesson_type": l["lesson_type"],
        "start_at": _iso(start), "end_at": _iso(end), "duration_minutes": l["duration_minutes"],
        "pickup_address": l["pickup_address"], "price_cents": l["price_cents"], "status": "scheduled",
        "created_at": now_iso(db), "created_by_staff_id": staff["id"], "completed_at": None, "cancelled_at": None,
        "cancelled_by": None, "cancel_reason": None, "late_cancellation": 0,
        "rescheduled_from_lesson_id": l["id"]})
    db.execute("UPDATE charges SET lesson_id = ? WHERE lesson_id = ? AND charge_type = 'single_lesson' "
               "AND status != 'waived'", (lid, l["id"]))
    _log(db, "staff", staff["id"], "lesson", lid, "lesson_rescheduled", stu["id"], l["start_at"], _iso(start),
         f"Rebooked from {l['booking_ref']} (requested by {requested_by}): {why}")
    return {"old_booking_ref": l["booking_ref"], "old_status": "cancelled", "booking_ref": ref,
            "start_at": _iso(start), "end_at": _iso(end), "instructor": ins["full_name"],
            "branch_code": win["branch_code"], "vehicle_plate": car["plate_number"], "status": "scheduled"}


@tool(write=True, actor="instructor_email")
def record_lesson_outcome(db: Db, instructor_email: str, booking_ref: str,
                          outcome: Literal["completed", "no_show"]) -> dict:
    """Record, as the lesson's instructor, that a lesson took place or that the student did not show up (a no-show fee is then charged).

    Args:
        instructor_email: email of the instructor who taught the lesson (the acting person).
        booking_ref: the lesson's booking reference.
        outcome: completed, or no_show if the student was not at the pickup point.
    """
    ins = _instructor(db, instructor_email)
    l = _lesson(db, booking_ref)
    if l["instructor_id"] != ins["id"]:
        raise ToolError(f"lesson {l['booking_ref']} is taught by {l['instructor']}; only that instructor can record it")
    if l["status"] != "scheduled":
        raise ToolError(f"lesson {l['booking_ref']} is already {l['status']}")
    now = db.now()
    if outcome == "completed" and datetime.fromisoformat(l["end_at"]) > now:
        raise ToolError(f"lesson {l['booking_ref']} ends at {l['end_at']}; record it once it has finished")
    if outcome == "no_show" and datetime.fromisoformat(l["start_at"]) > now:
        raise ToolError(f"lesson {l['booking_ref']} starts at {l['start_at']}; a no-show can be recorded only after that")
    fee_charge = None
    if outcome == "completed":
        db.execute("UPDATE lessons SET status = 'completed', completed_at = ? WHERE id = ?", (now_iso(db), l["id"]))
    else:
        db.execute("UPDATE lessons SET status = 'no_show' WHERE id = ?", (l["id"],))
        fee = _fee(db, "no_show")
        if fee is not None:
            fee_charge = _add_charge(db, l["student_id"], "no_show",
                                     f"No-show fee - lesson on {l['start_at'][:16].replace('T', ' ')}",
                                     fee["amount_cents"], None, lesson_id=l["id"], fee_id=fee["id"])
    _log(db, "instructor", ins["id"], "lesson", l["id"], "lesson_" + outcome, l["student_id"], "scheduled", outcome)
    return {"booking_ref": l["booking_ref"], "student": l["student"], "status": outcome, "no_show_charge": fee_charge}


# ---------------------------------------------------------------------------- progress notes

@tool
def list_progress_notes(db: Db, student: str, instructor_email: str | None = None, limit: int = 20) -> list[dict]:
    """List a student's lesson progress notes, newest first, with the lesson, instructor and skill ratings.

    Args:
        student: the student's email or student number.
        instructor_email: only notes written by this instructor.
        limit: maximum number of notes, 1 to 100.
    """
    check_limit(limit, 100)
    stu = _student(db, student)
    iid = _instructor(db, instructor_email)["id"] if instructor_email else None
    notes = db.query(
        "SELECT n.id, l.booking_ref, l.start_at AS lesson_start, l.lesson_type, i.full_name AS instructor, "
        "n.overall_rating, n.test_ready, n.summary, n.next_focus, n.created_at, n.updated_at FROM progress_notes n "
        "JOIN lessons l ON l.id = n.lesson_id JOIN instructors i ON i.id = n.instructor_id "
        "WHERE n.student_id = ? AND (? IS NULL OR n.instructor_id = ?) ORDER BY l.start_at DESC LIMIT ?",
        (stu["id"], iid, iid, limit))
    for n in notes:
        n["skill_ratings"] = db.query("SELECT k.code, k.name, r.rating, r.comment FROM skill_ratings r "
                                      "JOIN skills k ON k.id = r.skill_id WHERE r.progress_note_id = ? "
                                      "ORDER BY k.sort_order", (n["id"],))
        n.pop("id")
    return notes


@tool(write=True, actor="instructor_email")
def add_progress_note(db: Db, instructor_email: str, booking_ref: str, overall_rating: int, summary: str,
                      test_ready: bool = False, next_focus: str | None = None,
                      skill_codes: list[str] | None = None, skill_ratings: list[int] | None = None) -> dict:
    """Write the progress note for a completed lesson you taught, with an overall rating and optional per-skill ratings.

    Args:
        instructor_email: email of the instructor who taught the lesson (the acting person).
        booking_ref: the completed lesson's booking reference.
        overall_rating: 1 (needs a lot of work) to 5 (test standard).
        summary: what happened in the lesson.
        test_ready: true if the student is ready for the road test.
        next_focus: what to work on next time.
        skill_codes: skill codes rated in this lesson, e.g. ["MN-PARALLEL", "HZ-MIRROR"] (see list_skills).
        skill_ratings: the 1-5 rating for each code in skill_codes, in the same order.
    """
    ins = _instructor(db, instructor_email)
    l = _lesson(db, booking_ref)
    if l["instructor_id"] != ins["id"]:
        raise ToolError(f"lesson {l['booking_ref']} was taught by {l['instructor']}; only that instructor writes its note")
    if l["status"] != "completed":
        raise ToolError(f"lesson {l['booking_ref']} is {l['status']}; notes are written for completed lessons "
                        "(record_lesson_outcome first)")
    if db.value("SELECT COUNT(*) FROM progress_notes WHERE lesson_id = ?", (l["id"],)):
        raise ToolError(f"lesson {l['booking_ref']} already has a progress note")
    if overall_rating < 1 or overall_rating > 5:
        raise ToolError("overall_rating must be between 1 and 5")
    text = _required(summary, "a summary of the lesson")
    codes = skill_codes or []
    marks = skill_ratings or []
    if len(codes) != len(marks):
        raise ToolError("skill_codes and skill_ratings must have the same length")
    skills = []
    seen = []
    for code, mark in zip(codes, marks):
        sk = db.one("SELECT id, code, name FROM skills WHERE upper(code) = upper(?)", ((code or "").strip(),))
        if sk is None:
            raise ToolError(f"unknown skill code {code!r}; see list_skills")
        if sk["id"] in seen:
            raise ToolError(f"skill {sk['code']} is listed twice")
        if mark < 1 or mark > 5:
            raise ToolError(f"rating for {sk['code']} must be between 1 and 5")
        seen.append(sk["id"])
        skills.append((sk, mark))
    nid = db.insert("progress_notes", {
        "lesson_id": l["id"], "student_id": l["student_id"], "instructor_id": ins["id"],
        "overall_rating": overall_rating, "test_ready": 1 if test_ready else 0, "summary": text,
        "next_focus": _clean(next_focus), "created_at": now_iso(db), "updated_at": None})
    for sk, mark in skills:
        db.insert("skill_ratings", {"progress_note_id": nid, "skill_id": sk["id"], "rating": mark, "comment": None})
    _log(db, "instructor", ins["id"], "progress_note", nid, "progress_note_added", l["student_id"], None,
         str(overall_rating), f"Note for lesson {l['booking_ref']}")
    return {"booking_ref": l["booking_ref"], "student": l["student"], "overall_rating": overall_rating,
            "test_ready": bool(test_ready), "skills_rated": [{"code": sk["code"], "rating": m} for sk, m in skills]}


# ---------------------------------------------------------------------------- road tests

@tool
def list_road_tests(db: Db, student: str | None = None, status: Literal["booked", "passed", "failed", "cancelled", "no_show"] | None = None,
                    test_class: Literal["G2", "G"] | None = None, test_centre_code: str | None = None,
                    date_from: str | None = None, date_to: str | None = None, limit: int = 20) -> list[dict]:
    """List road-test appointments with student, centre, car and result, filtered by student, status, class, centre and date range.

    Args:
        student: the student's email or student number.
        status: only tests with this status.
        test_class: G2 or G.
        test_centre_code: only this DriveTest centre, e.g. "DT-KIT".
        date_from: first day (inclusive).
        date_to: last day (inclusive).
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    sid = _student(db, student)["id"] if student else None
    lo, hi = _day_bounds(date_from, date_to)
    return db.query(
        "SELECT t.test_ref, s.full_name AS student, s.student_number, t.test_class, t.scheduled_at, "
        "tc.code AS test_centre_code, tc.name AS test_centre, t.status, t.attempt_number, t.examiner_score, "
        "v.plate_number AS vehicle_plate, i.full_name AS escort_instructor, t.vehicle_fee_cents FROM road_tests t "
        "JOIN students s ON s.id = t.student_id JOIN test_centres tc ON tc.id = t.test_centre_id "
        "LEFT JOIN vehicles v ON v.id = t.vehicle_id LEFT JOIN instructors i ON i.id = t.escort_instructor_id "
        "WHERE (? IS NULL OR t.student_id = ?) AND (? IS NULL OR t.status = ?) AND (? IS NULL OR t.test_class = ?) "
        "AND (? IS NULL OR upper(tc.code) = upper(?)) AND (? IS NULL OR t.scheduled_at >= ?) "
        "AND (? IS NULL OR t.scheduled_at <= ?) ORDER BY t.scheduled_at LIMIT ?",
        (sid, sid, status, status, test_class, test_class, test_centre_code, test_centre_code, lo, lo, hi, hi, limit))


@tool
def get_road_test(db: Db, test_ref: str) -> dict:
    """Show one road-test appointment by reference, with the student, centre, school car, escort, fee and result.

    Args:
        test_ref: the road test reference, e.g. "RT-187671".
    """
    t = _test(db, test_ref)
    out = dict(t)
    charges = db.query("SELECT charge_number, description, amount_cents, status FROM charges WHERE road_test_id = ?",
                       (t["id"],))
    out.pop("id")
    out.pop("student_id")
    out["charges"] = charges
    return out


@tool(write=True, actor="staff_email")
def book_road_test(db: Db, staff_email: str, student: str, test_centre_code: str, scheduled_at: str,
                   test_class: Literal["G2", "G"], use_school_car: bool = True, instructor_email: str | None = None,
                   vehicle_plate: str | None = None) -> dict:
    """Book a road test for an active student at a DriveTest centre, optionally with a school car and an escorting instructor.

    G2 tests are for learner-permit holders, G tests for probationary (G2) drivers. A school car costs the
    road-test car fee unless an unused package that includes the road-test car covers it.

    Args:
        staff_email: email of the staff member booking the test (the acting person).
        student: the student's email or student number.
        test_centre_code: the DriveTest centre's code, e.g. "DT-KIT" (see list_locations).
        scheduled_at: the test time, e.g. "2026-03-20T10:45:00" (weekdays 08:00-16:00).
        test_class: G2 or G.
        use_school_car: true if the student uses a school car with an instructor; false for their own car.
        instructor_email: escorting instructor; defaults to the student's primary instructor.
        vehicle_plate: a specific school car; by default a free one is chosen.
    """
    staff = _staff(db, staff_email)
    stu = _student(db, student)
    if stu["status"] != "active":
        raise ToolError(f"{stu['full_name']} is {stu['status']}; only active students can book road tests")
    need = "learner_permit" if test_class == "G2" else "probationary"
    if stu["licence_stage"] != need:
        raise ToolError(f"{stu['full_name']} holds {stu['licence_stage']}; a {test_class} test needs {need}")
    centre = db.one("SELECT id, code, name, is_active FROM test_centres WHERE upper(code) = upper(?)",
                    ((test_centre_code or "").strip(),))
    if centre is None:
        raise ToolError(f"no test centre {test_centre_code!r}; see list_locations")
    if centre["is_active"] != 1:
        raise ToolError(f"{centre['name']} is closed; choose another centre")
    when = _parse_dt(scheduled_at, "scheduled_at")
    if when <= db.now():
        raise ToolError("the test must be in the future")
    if when.weekday() >= 5 or not (8 * 60 <= when.hour * 60 + when.minute <= 16 * 60):
        raise ToolError("DriveTest books road tests on weekdays between 08:00 and 16:00")
    if stu["permit_expiry_date"] < when.date().isoformat():
        raise ToolError(f"{stu['full_name']}'s permit expires on {stu['permit_expiry_date']}")
    dup = db.one("SELECT test_ref, scheduled_at FROM road_tests WHERE student_id = ? AND test_class = ? "
                 "AND status = 'booked'", (stu["id"], test_class))
    if dup is not None:
        raise ToolError(f"{stu['full_name']} already has {test_class} test {dup['test_ref']} on {dup['scheduled_at']}")
    if db.value("SELECT COUNT(*) FROM road_tests WHERE student_id = ? AND test_class = ? AND status = 'passed'",
                (stu["id"], test_class)):
        raise ToolError(f"{stu['full_name']} has already passed the {test_class} test")
    rs, re_ = when - TEST_BUFFER, when + TEST_BUFFER
    clash = _conflict(db, rs, re_, student_id=stu["id"])
    if clash:
        raise ToolError(f"cannot book {_iso(when)}: {clash}")
    ins = car = None
    fee_cents, pur_id, fee_id, pur_number = 0, None, None, None
    if use_school_car:
        if instructor_email:
            ins = _instructor(db, instructor_email)
        elif stu["primary_instructor_email"]:
            ins = _instructor(db, stu["primary_instructor_email"])
        else:
            raise ToolError("the student has no primary instructor; give instructor_email for the escort")
        _check_instructor_ok(ins, stu, when.date())
        win = _window(db, ins, rs, re_)
        clash = _conflict(db, rs, re_, instructor_id=ins["id"])
        if clash:
            raise ToolError(f"escort {ins['full_name']} is not free: {clash}")
        car = _pick_vehicle(db, win["branch_id"], stu["preferred_transmission"], when.date(), rs, re_, vehicle_plate)
        pur = db.one("SELECT pp.id, pp.purchase_number FROM package_purchases pp JOIN lesson_packages lp "
                     "ON lp.id = pp.package_id WHERE pp.student_id = ? AND lp.includes_road_test_vehicle = 1 "
                     "AND pp.status IN ('active', 'completed') AND NOT EXISTS (SELECT 1 FROM road_tests t "
                     "WHERE t.purchase_id = pp.id AND t.status != 'cancelled') ORDER BY pp.purchased_at LIMIT 1",
                     (stu["id"],))
        if pur is not None:
            pur_id, pur_number = pur["id"], pur["purchase_number"]
        else:
            fee = _fee(db, "road_test_vehicle", f"RT-CAR-{test_class}")
            if fee is not None:
                fee_cents, fee_id = fee["amount_cents"], fee["id"]
    attempt = 1 + int(db.value("SELECT COUNT(*) FROM road_tests WHERE student_id = ? AND test_class = ? "
                               "AND status IN ('passed', 'failed', 'no_show')", (stu["id"], test_class)) or 0)
    last = db.value("SELECT MAX(CAST(substr(test_ref, 4) AS INTEGER)) FROM road_tests WHERE substr(test_ref, 1, 3) = 'RT-'", ())
    ref = f"RT-{int(last or 100000) + 1:06d}"
    tid = db.insert("road_tests", {
        "test_ref": ref, "student_id": stu["id"], "test_centre_id": centre["id"], "test_class": test_class,
        "scheduled_at": _iso(when), "vehicle_id": car["id"] if car else None,
        "escort_instructor_id": ins["id"] if ins else None, "purchase_id": pur_id, "vehicle_fee_cents": fee_cents,
        "status": "booked", "attempt_number": attempt, "examiner_score": None, "result_notes": None,
        "booked_by_staff_id": staff["id"], "created_at": now_iso(db), "result_recorded_at": None,
        "cancelled_at": None, "cancel_reason": None})
    charge_number = None
    if fee_cents > 0:
        charge_number = _add_charge(db, stu["id"], "road_test_vehicle",
                                    f"School car for {test_class} road test on {_iso(when)[:10]}", fee_cents,
                                    staff["id"], road_test_id=tid, fee_id=fee_id)
    _log(db, "staff", staff["id"], "road_test", tid, "road_test_booked", stu["id"], None, "booked",
         f"{test_class} test {ref} at {centre['name']}")
    return {"test_ref": ref, "student": stu["full_name"], "test_class": test_class, "scheduled_at": _iso(when),
            "test_centre": centre["name"], "attempt_number": attempt,
            "vehicle_plate": car["plate_number"] if car else None, "escort_instructor": ins["full_name"] if ins else None,
            "covered_by_package": pur_number, "vehicle_fee_cents": fee_cents, "charge_number": charge_number,
            "status": "booked"}


@tool(write=True, actor="staff_email")
def cancel_road_test(db: Db, staff_email: str, test_ref: str, reason: str) -> dict:
    """Cancel a booked road test; an unpaid school-car fee for it is waived.

    Args:
        staff_email: email of the staff member cancelling (the acting person).
        test_ref: the road test reference.
        reason: why the test is cancelled.
    """
    staff = _staff(db, staff_email)
    why = _required(reason, "the reason for the cancellation")
    t = _test(db, test_ref)
    if t["status"] != "booked":
        raise ToolError(f"road test {t['test_ref']} is {t['status']}; only booked tests can be cancelled")
    db.execute("UPDATE road_tests SET status = 'cancelled', cancelled_at = ?, cancel_reason = ? WHERE id = ?",
               (now_iso(db), why, t["id"]))
    waived, refund_due = [], []
    for ch in db.query("SELECT id, charge_number, status, amount_cents FROM charges WHERE road_test_id = ?", (t["id"],)):
        if ch["status"] == "open" and _outstanding(db, ch["id"]) == ch["amount_cents"]:
            db.execute("UPDATE charges SET status = 'waived', waived_at = ?, waived_by_staff_id = ? WHERE id = ?",
                       (now_iso(db), staff["id"], ch["id"]))
            waived.append(ch["charge_number"])
        elif ch["status"] != "waived":
            refund_due.append(ch["charge_number"])
    _log(db, "staff", staff["id"], "road_test", t["id"], "road_test_cancelled", t["student_id"], "booked",
         "cancelled", why)
    return {"test_ref": t["test_ref"], "student": t["student"], "status": "cancelled", "waived_charges": waived,
            "paid_charges_needing_refund": refund_due}


@tool(write=True, actor="staff_email")
def record_road_test_result(db: Db, staff_email: str, test_ref: str, result: Literal["passed", "failed", "no_show"],
                            examiner_score: int | None = None, notes: str | None = None) -> dict:
    """Record the outcome of a road test that has taken place: passed, failed or no-show, with the examiner's score and remarks.

    Args:
        staff_email: email of the staff member recording the result (the acting person).
        test_ref: the road test reference.
        result: passed, failed or no_show.
        examiner_score: the examiner's score, 0 to 100 (not for no_show).
        notes: the examiner's remarks.
    """
    staff = _staff(db, staff_email)
    t = _test(db, test_ref)
    if t["status"] != "booked":
        raise ToolError(f"road test {t['test_ref']} is already {t['status']}")
    if datetime.fromisoformat(t["scheduled_at"]) > db.now():
        raise ToolError(f"road test {t['test_ref']} is on {t['scheduled_at']}; record the result after it")
    if examiner_score is not None:
        if result == "no_show":
            raise ToolError("a no-show has no examiner score")
        if examiner_score < 0 or examiner_score > 100:
            raise ToolError("examiner_score must be between 0 and 100")
    db.execute("UPDATE road_tests SET status = ?, examiner_score = ?, result_notes = ?, result_recorded_at = ? "
               "WHERE id = ?", (result, examiner_score, _clean(notes), now_iso(db), t["id"]))
    _log(db, "staff", staff["id"], "road_test", t["id"], "road_test_result_recorded", t["student_id"], "booked",
         result, _clean(notes))
    return {"test_ref": t["test_ref"], "student": t["student"], "test_class": t["test_class"], "status": result,
            "examiner_score": examiner_score, "result_notes": _clean(notes)}


# ---------------------------------------------------------------------------- packages & money

@tool
def list_student_packages(db: Db, student: str,
                          status: Literal["active", "completed", "expired", "cancelled", "refunded"] | None = None
                          ) -> list[dict]:
    """List a student's package purchases with lessons used and remaining, expiry date and the amount paid on each.

    Args:
        student: the student's email or student number.
        status: only purchases with this status.
    """
    stu = _student(db, student)
    return db.query(
        "SELECT pp.purchase_number, lp.code AS package_code, lp.name AS package, lp.lesson_minutes, "
        "lp.includes_road_test_vehicle, pp.lessons_total, pp.lessons_used, pp.lessons_total - pp.lessons_used "
        "AS lessons_remaining, pp.price_cents, pp.discount_cents, pp.price_cents - pp.discount_cents AS net_price_cents, "
        "pp.status, pp.purchased_at, pp.expires_on, pp.cancelled_at, pp.cancel_reason, st.full_name AS sold_by, "
        "COALESCE((SELECT SUM(p.amount_cents) FROM payments p JOIN charges c ON c.id = p.charge_id "
        "WHERE c.purchase_id = pp.id AND p.status = 'completed'), 0) AS paid_cents "
        "FROM package_purchases pp JOIN lesson_packages lp ON lp.id = pp.package_id "
        "LEFT JOIN staff st ON st.id = pp.sold_by_staff_id WHERE pp.student_id = ? AND (? IS NULL OR pp.status = ?) "
        "ORDER BY pp.purchased_at", (stu["id"], status, status))


@tool(write=True, actor="staff_email")
def sell_package(db: Db, staff_email: str, student: str, package_code: str, discount_cents: int = 0) -> dict:
    """Sell a lesson package to an active student; the package's charge (price less discount) is added to the student's account.

    Args:
        staff_email: email of the staff member making the sale (the acting person).
        student: the student's email or student number.
        package_code: the package's code, e.g. "STANDARD-10" (see list_price_list).
        discount_cents: discount given, in cents (0 for none).
    """
    staff = _staff(db, staff_email)
    stu = _student(db, student)
    if stu["status"] != "active":
        raise ToolError(f"{stu['full_name']} is {stu['status']}; packages are sold to active students")
    pk = db.one("SELECT id, code, name, lesson_count, lesson_minutes, transmission, price_cents, validity_days, "
                "is_active FROM lesson_packages WHERE upper(code) = upper(?)", ((package_code or "").strip(),))
    if pk is None:
        raise ToolError(f"no package {package_code!r}; see list_price_list")
    if pk["is_active"] != 1:
        raise ToolError(f"{pk['name']} is discontinued")
    if pk["transmission"] not in ("either", stu["preferred_transmission"]):
        raise ToolError(f"{pk['name']} is for {pk['transmission']} cars but {stu['full_name']} learns in "
                        f"{stu['preferred_transmission']}")
    if discount_cents < 0 or discount_cents >= pk["price_cents"]:
        raise ToolError(f"discount_cents must be between 0 and {pk['price_cents'] - 1}")
    now = db.now()
    pid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM package_purchases", ())
    number = f"PKG-{now.year}-{pid:04d}"
    expires = (now.date() + timedelta(days=pk["validity_days"])).isoformat()
    db.insert("package_purchases", {
        "id": pid, "purchase_number": number, "student_id": stu["id"], "package_id": pk["id"],
        "lessons_total": pk["lesson_count"], "lessons_used": 0, "price_cents": pk["price_cents"],
        "discount_cents": discount_cents, "status": "active", "purchased_at": now_iso(db), "expires_on": expires,
        "sold_by_staff_id": staff["id"], "cancelled_at": None, "cancel_reason": None})
    net = pk["price_cents"] - discount_cents
    charge = _add_charge(db, stu["id"], "package", pk["name"], net, staff["id"], purchase_id=pid)
    _log(db, "staff", staff["id"], "package_purchase", pid, "package_sold", stu["id"], None, "active",
         f"{pk['code']} sold for {net} cents")
    return {"purchase_number": number, "student": stu["full_name"], "package": pk["name"],
            "lessons_total": pk["lesson_count"], "expires_on": expires, "price_cents": pk["price_cents"],
            "discount_cents": discount_cents, "amount_due_cents": net, "charge_number": charge, "status": "active"}


@tool
def get_student_balance(db: Db, student: str) -> dict:
    """Show what a student owes: each open charge with its amount, payments so far and outstanding amount, and the total.

    Args:
        student: the student's email or student number.
    """
    stu = _student(db, student)
    rows = db.query(
        "SELECT c.charge_number, c.charge_type, c.description, c.created_at, c.amount_cents, "
        "COALESCE((SELECT SUM(p.amount_cents) FROM payments p WHERE p.charge_id = c.id AND p.status = 'completed'), 0) "
        "AS paid_cents FROM charges c WHERE c.student_id = ? AND c.status = 'open' ORDER BY c.created_at",
        (stu["id"],))
    for r in rows:
        r["outstanding_cents"] = r["amount_cents"] - r["paid_cents"]
    paid_total = db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM payments WHERE student_id = ? "
                          "AND status = 'completed'", (stu["id"],))
    return {"student": stu["full_name"], "student_number": stu["student_number"], "email": stu["email"],
            "open_charges": rows, "total_outstanding_cents": sum(r["outstanding_cents"] for r in rows),
            "lifetime_payments_cents": int(paid_total or 0)}


@tool
def list_charges(db: Db, student: str | None = None, status: Literal["open", "paid", "waived"] | None = None,
                 charge_type: Literal["package", "single_lesson", "road_test_vehicle", "late_cancellation", "no_show", "admin", "adjustment"] | None = None, date_from: str | None = None, date_to: str | None = None,
                 limit: int = 20) -> list[dict]:
    """List charges (invoices) with student, what they are for, amount, amount paid and status.

    Args:
        student: the student's email or student number.
        status: open, paid or waived.
        charge_type: only this kind of charge.
        date_from: first day the charge was raised (inclusive).
        date_to: last day (inclusive).
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    sid = _student(db, student)["id"] if student else None
    lo, hi = _day_bounds(date_from, date_to)
    return db.query(
        "SELECT c.charge_number, s.full_name AS student, s.student_number, c.charge_type, c.description, "
        "c.amount_cents, COALESCE((SELECT SUM(p.amount_cents) FROM payments p WHERE p.charge_id = c.id "
        "AND p.status = 'completed'), 0) AS paid_cents, c.status, c.created_at, l.booking_ref, t.test_ref, "
        "pp.purchase_number, c.waived_at, w.full_name AS waived_by FROM charges c JOIN students s ON s.id = c.student_id "
        "LEFT JOIN lessons l ON l.id = c.lesson_id LEFT JOIN road_tests t ON t.id = c.road_test_id "
        "LEFT JOIN package_purchases pp ON pp.id = c.purchase_id LEFT JOIN staff w ON w.id = c.waived_by_staff_id "
        "WHERE (? IS NULL OR c.student_id = ?) AND (? IS NULL OR c.status = ?) AND (? IS NULL OR c.charge_type = ?) "
        "AND (? IS NULL OR c.created_at >= ?) AND (? IS NULL OR c.created_at <= ?) ORDER BY c.created_at DESC LIMIT ?",
        (sid, sid, status, status, charge_type, charge_type, lo, lo, hi, hi, limit))


@tool
def list_payments(db: Db, student: str | None = None, status: Literal["completed", "refunded", "voided"] | None = None,
                  method: Literal["card", "cash", "e_transfer", "cheque"] | None = None, date_from: str | None = None, date_to: str | None = None,
                  limit: int = 20) -> list[dict]:
    """List payments received, with receipt number, student, charge paid, method, staff who took it and refund details.

    Args:
        student: the student's email or student number.
        status: completed, refunded or voided.
        method: card, cash, e_transfer or cheque.
        date_from: first payment day (inclusive), e.g. "2026-02-01".
        date_to: last payment day (inclusive).
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    sid = _student(db, student)["id"] if student else None
    lo, hi = _day_bounds(date_from, date_to)
    return db.query(
        "SELECT p.receipt_number, s.full_name AS student, s.student_number, c.charge_number, "
        "c.description AS charge_description, p.amount_cents, p.method, p.status, p.paid_at, "
        "st.full_name AS received_by, p.reference_note, p.refunded_at, p.refund_amount_cents "
        "FROM payments p JOIN students s ON s.id = p.student_id LEFT JOIN charges c ON c.id = p.charge_id "
        "LEFT JOIN staff st ON st.id = p.received_by_staff_id WHERE (? IS NULL OR p.student_id = ?) "
        "AND (? IS NULL OR p.status = ?) AND (? IS NULL OR p.method = ?) AND (? IS NULL OR p.paid_at >= ?) "
        "AND (? IS NULL OR p.paid_at <= ?) ORDER BY p.paid_at DESC LIMIT ?",
        (sid, sid, status, status, method, method, lo, lo, hi, hi, limit))


@tool(write=True, actor="staff_email")
def record_payment(db: Db, staff_email: str, student: str, charge_number: str, amount_cents: int, method: Literal["card", "cash", "e_transfer", "cheque"],
                   reference_note: str | None = None) -> dict:
    """Record a payment from a student against one of their open charges (full or part payment).

    Args:
        staff_email: email of the staff member taking the payment (the acting person).
        student: the paying student's email or student number.
        charge_number: the charge being paid, e.g. "INV-2026-00150".
        amount_cents: amount received in cents; at most the outstanding amount.
        method: card, cash, e_transfer or cheque.
        reference_note: card ending, e-transfer reference or cheque number.
    """
    staff = _staff(db, staff_email)
    stu = _student(db, student)
    ch = db.one("SELECT id, charge_number, student_id, description, amount_cents, status FROM charges "
                "WHERE upper(charge_number) = upper(?)", ((charge_number or "").strip(),))
    if ch is None:
        raise ToolError(f"no charge {charge_number!r}; see get_student_balance")
    if ch["student_id"] != stu["id"]:
        raise ToolError(f"charge {ch['charge_number']} is not on {stu['full_name']}'s account")
    if ch["status"] != "open":
        raise ToolError(f"charge {ch['charge_number']} is {ch['status']}; nothing to pay")
    due = _outstanding(db, ch["id"])
    if amount_cents <= 0 or amount_cents > due:
        raise ToolError(f"amount_cents must be between 1 and the outstanding {due}")
    pid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM payments", ())
    receipt = f"R{db.now().year}-{pid:06d}"
    db.insert("payments", {
        "id": pid, "receipt_number": receipt, "student_id": stu["id"], "charge_id": ch["id"],
        "amount_cents": amount_cents, "method": method, "status": "completed", "paid_at": now_iso(db),
        "received_by_staff_id": staff["id"], "reference_note": _clean(reference_note), "refunded_at": None,
        "refund_amount_cents": None, "refunded_by_staff_id": None})
    left = due - amount_cents
    if left == 0:
        db.execute("UPDATE charges SET status = 'paid' WHERE id = ?", (ch["id"],))
    _log(db, "staff", staff["id"], "payment", pid, "payment_received", stu["id"], None, "completed",
         f"{amount_cents} cents by {method} for {ch['charge_number']}")
    return {"receipt_number": receipt, "student": stu["full_name"], "charge_number": ch["charge_number"],
            "charge_description": ch["description"], "amount_cents": amount_cents, "method": method,
            "remaining_on_charge_cents": left, "charge_status": "paid" if left == 0 else "open"}


@tool(write=True, actor="staff_email")
def waive_charge(db: Db, staff_email: str, charge_number: str, reason: str) -> dict:
    """Waive an open charge that has no payments on it (owner, manager or accounts only).

    Args:
        staff_email: email of the owner, manager or accounts staff member (the acting person).
        charge_number: the charge to waive.
        reason: why it is waived.
    """
    staff = _staff(db, staff_email, MONEY_ROLES)
    why = _required(reason, "the reason for waiving")
    ch = db.one("SELECT id, charge_number, student_id, description, amount_cents, status FROM charges "
                "WHERE upper(charge_number) = upper(?)", ((charge_number or "").strip(),))
    if ch is None:
        raise ToolError(f"no charge {charge_number!r}")
    if ch["status"] != "open":
        raise ToolError(f"charge {ch['charge_number']} is {ch['status']}; only open charges can be waived")
    if _outstanding(db, ch["id"]) != ch["amount_cents"]:
        raise ToolError(f"charge {ch['charge_number']} is partly paid; refund the payments first")
    db.execute("UPDATE charges SET status = 'waived', waived_at = ?, waived_by_staff_id = ? WHERE id = ?",
               (now_iso(db), staff["id"], ch["id"]))
    _log(db, "staff", staff["id"], "charge", ch["id"], "charge_waived", ch["student_id"], "open", "waived", why)
    return {"charge_number": ch["charge_number"], "description": ch["description"], "amount_cents": ch["amount_cents"],
            "status": "waived", "waived_by": staff["full_name"], "reason": why}


@tool(write=True, actor="staff_email")
def refund_payment(db: Db, staff_email: str, receipt_number: str, reason: str) -> dict:
    """Refund a completed payment in full (owner, manager or accounts only); the charge it paid becomes open again.

    Args:
        staff_email: email of the owner, manager or accounts staff member (the acting person).
        receipt_number: the payment's receipt number, e.g. "R2026-000140".
        reason: why the money is returned.
    """
    staff = _staff(db, staff_email, MONEY_ROLES)
    why = _required(reason, "the reason for the refund")
    p = db.one("SELECT p.id, p.receipt_number, p.student_id, p.charge_id, p.amount_cents, p.status, p.method, "
               "c.charge_number, c.status AS charge_status FROM payments p LEFT JOIN charges c ON c.id = p.charge_id "
               "WHERE upper(p.receipt_number) = upper(?)", ((receipt_number or "").strip(),))
    if p is None:
        raise ToolError(f"no payment with receipt {receipt_number!r}; see list_payments")
    if p["status"] != "completed":
        raise ToolError(f"payment {p['receipt_number']} is {p['status']}; only completed payments can be refunded")
    db.execute("UPDATE payments SET status = 'refunded', refunded_at = ?, refund_amount_cents = ?, "
               "refunded_by_staff_id = ? WHERE id = ?", (now_iso(db), p["amount_cents"], staff["id"], p["id"]))
    if p["charge_id"] is not None and p["charge_status"] == "paid":
        db.execute("UPDATE charges SET status = 'open' WHERE id = ?", (p["charge_id"],))
    _log(db, "staff", staff["id"], "payment", p["id"], "payment_refunded", p["student_id"], "completed", "refunded",
         why)
    return {"receipt_number": p["receipt_number"], "refund_amount_cents": p["amount_cents"], "method": p["method"],
            "status": "refunded", "charge_number": p["charge_number"],
            "charge_status": "open" if p["charge_status"] == "paid" else p["charge_status"], "reason": why}


# ---------------------------------------------------------------------------- student records

@tool(write=True, actor="staff_email")
def enrol_student(db: Db, staff_email: str, full_name: str, email: str, phone: str, date_of_birth: str,
                  address: str, city: str, postal_code: str, permit_number: str, permit_issued_on: str,
                  branch_code: str, preferred_transmission: Literal["automatic", "manual"] = "automatic",
                  licence_stage: Literal["learner_permit", "probationary", "full"] = "learner_permit",
                  primary_instructor_email: str | None = None, emergency_contact_name: str | None = None,
                  emergency_contact_phone: str | None = None, notes: str | None = None,
                  charge_enrolment_fee: bool = True) -> dict:
    """Enrol a new student (status active) at a branch, optionally with a primary instructor and the enrolment fee charged.

    Args:
        staff_email: email of the staff member enrolling the student (the acting person).
        full_name: the student's full name.
        email: the student's email (must not already be registered).
        phone: phone number.
        date_of_birth: ISO date; the student must be at least 16.
        address: street address.
        city: city.
        postal_code: postal code, e.g. "N2G 1A7".
        permit_number: driver's licence / permit number.
        permit_issued_on: ISO date the permit was issued (valid five years).
        branch_code: home branch code.
        preferred_transmission: automatic or manual.
        licence_stage: learner_permit (G1), probationary (G2) or full (G).
        primary_instructor_email: the instructor who will usually teach the student.
        emergency_contact_name: emergency contact's name.
        emergency_contact_phone: emergency contact's phone.
        notes: anything staff should know.
        charge_enrolment_fee: add the enrolment and registration fee to the new account.
    """
    staff = _staff(db, staff_email)
    name = _required(full_name, "the student's full name")
    mail = _required(email, "the student's email").lower()
    if "@" not in mail or "." not in mail.split("@")[-1]:
        raise ToolError(f"{email!r} is not a valid email address")
    if db.value("SELECT COUNT(*) FROM students WHERE lower(email) = ?", (mail,)):
        raise ToolError(f"a student with email {mail} already exists; use find_students")
    permit = _required(permit_number, "the permit number").upper()
    if db.value("SELECT COUNT(*) FROM students WHERE upper(permit_number) = ?", (permit,)):
        raise ToolError(f"permit {permit} is already registered to another student")
    dob = _parse_date(date_of_birth, "date_of_birth")
    issued = _parse_date(permit_issued_on, "permit_issued_on")
    today = db.today()
    sixteen = date(dob.year + 16, dob.month, 28 if (dob.month == 2 and dob.day == 29) else dob.day)
    if sixteen > today:
        raise ToolError("the student must be at least 16 years old")
    if issued > today or issued < sixteen:
        raise ToolError("permit_issued_on must be on or after the 16th birthday and not in the future")
    expiry = issued + timedelta(days=PERMIT_VALID_DAYS)
    if expiry < today:
        raise ToolError(f"that permit expired on {expiry.isoformat()}; it must be renewed before enrolling")
    branch = _branch(db, branch_code)
    ins_id = None
    if primary_instructor_email:
        ins = _instructor(db, primary_instructor_email)
        if ins["status"] == "inactive":
            raise ToolError(f"{ins['full_name']} no longer works at the school")
        if preferred_transmission == "manual" and ins["can_teach_manual"] != 1:
            raise ToolError(f"{ins['full_name']} does not teach manual")
        ins_id = ins["id"]
    sid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM students", ())
    number = f"S{today.year}{sid:04d}"
    db.insert("students", {
        "id": sid, "student_number": number, "full_name": name, "email": mail, "phone": _required(phone, "a phone"),
        "date_of_birth": dob.isoformat(), "address": _required(address, "the address"),
        "city": _required(city, "the city"), "postal_code": _required(postal_code, "the postal code").upper(),
        "permit_number": permit, "permit_issued_on": issued.isoformat(), "permit_expiry_date": expiry.isoformat(),
        "licence_stage": licence_stage, "preferred_transmission": preferred_transmission,
        "home_branch_id": branch["id"], "primary_instructor_id": ins_id,
        "emergency_contact_name": _clean(emergency_contact_name),
        "emergency_contact_phone": _clean(emergency_contact_phone), "status": "active", "enrolled_at": now_iso(db),
        "enrolled_by_staff_id": staff["id"], "graduated_on": None, "withdrawn_at": None, "notes": _clean(notes)})
    charge = None
    if charge_enrolment_fee:
        fee = _fee(db, "admin", "ADMIN-ENROL")
        if fee is not None:
            charge = _add_charge(db, sid, "admin", fee["name"], fee["amount_cents"], staff["id"], fee_id=fee["id"])
    _log(db, "staff", staff["id"], "student", sid, "student_enrolled", sid, None, "active")
    return {"student_number": number, "full_name": name, "email": mail, "branch_code": branch["code"],
            "permit_expiry_date": expiry.isoformat(), "status": "active", "enrolment_fee_charge": charge}


@tool(write=True, actor="staff_email")
def update_student_details(db: Db, staff_email: str, student: str, phone: str | None = None,
                           email: str | None = None, address: str | None = None, city: str | None = None,
                           postal_code: str | None = None, preferred_transmission: Literal["automatic", "manual"] | None = None,
                           primary_instructor_email: str | None = None, branch_code: str | None = None,
                           emergency_contact_name: str | None = None, emergency_contact_phone: str | None = None,
                           notes: str | None = None) -> dict:
    """Update a student's contact details, preferences, home branch, primary instructor or notes; only the fields given change.

    Args:
        staff_email: email of the staff member making the change (the acting person).
        student: the student's current email or student number.
        phone: new phone number.
        email: new email address.
        address: new street address.
        city: new city.
        postal_code: new postal code.
        preferred_transmission: automatic or manual.
        primary_instructor_email: the new primary instructor.
        branch_code: the new home branch.
        emergency_contact_name: new emergency contact name.
        emergency_contact_phone: new emergency contact phone.
        notes: new staff notes (replaces the old notes).
    """
    staff = _staff(db, staff_email)
    stu = _student(db, student)
    changes = {}
    if _clean(phone):
        changes["phone"] = _clean(phone)
    if _clean(email):
        mail = _clean(email).lower()
        if "@" not in mail:
            raise ToolError(f"{email!r} is not a valid email address")
        if mail != stu["email"] and db.value("SELECT COUNT(*) FROM students WHERE lower(email) = ? AND id != ?",
                                             (mail, stu["id"])):
            raise ToolError(f"another student already uses {mail}")
        changes["email"] = mail
    if _clean(address):
        changes["address"] = _clean(address)
    if _clean(city):
        changes["city"] = _clean(city)
    if _clean(postal_code):
        changes["postal_code"] = _clean(postal_code).upper()
    trans = preferred_transmission or stu["preferred_transmission"]
    if preferred_transmission:
        changes["preferred_transmission"] = preferred_transmission
    if _clean(primary_instructor_email):
        ins = _instructor(db, primary_instructor_email)
        if ins["status"] == "inactive":
            raise ToolError(f"{ins['full_name']} no longer works at the school")
        if trans == "manual" and ins["can_teach_manual"] != 1:
            raise ToolError(f"{ins['full_name']} does not teach manual")
        changes["primary_instructor_id"] = ins["id"]
    elif preferred_transmission == "manual" and stu["primary_instructor_id"] is not None:
        ok = db.value("SELECT can_teach_manual FROM instructors WHERE id = ?", (stu["primary_instructor_id"],))
        if ok != 1:
            raise ToolError(f"{stu['primary_instructor']} does not teach manual; give a new primary_instructor_email too")
    if _clean(branch_code):
        changes["home_branch_id"] = _branch(db, branch_code)["id"]
    if _clean(emergency_contact_name):
        changes["emergency_contact_name"] = _clean(emergency_contact_name)
    if _clean(emergency_contact_phone):
        changes["emergency_contact_phone"] = _clean(emergency_contact_phone)
    if _clean(notes):
        changes["notes"] = _clean(notes)
    if not changes:
        raise ToolError("give at least one field to change")
    old = {}
    for col, val in changes.items():
        old[col] = stu.get(col)
        if col == "phone":
            db.execute("UPDATE students SET phone = ? WHERE id = ?", (val, stu["id"]))
        elif col == "email":
            db.execute("UPDATE students SET email = ? WHERE id = ?", (val, stu["id"]))
        elif col == "address":
            db.execute("UPDATE students SET address = ? WHERE id = ?", (val, stu["id"]))
        elif col == "city":
            db.execute("UPDATE students SET city = ? WHERE id = ?", (val, stu["id"]))
        elif col == "postal_code":
            db.execute("UPDATE students SET postal_code = ? WHERE id = ?", (val, stu["id"]))
        elif col == "preferred_transmission":
            db.execute("UPDATE students SET preferred_transmission = ? WHERE id = ?", (val, stu["id"]))
        elif col == "primary_instructor_id":
            db.execute("UPDATE students SET primary_instructor_id = ? WHERE id = ?", (val, stu["id"]))
        elif col == "home_branch_id":
            db.execute("UPDATE students SET home_branch_id = ? WHERE id = ?", (val, stu["id"]))
        elif col == "emergency_contact_name":
            db.execute("UPDATE students SET emergency_contact_name = ? WHERE id = ?", (val, stu["id"]))
        elif col == "emergency_contact_phone":
            db.execute("UPDATE students SET emergency_contact_phone = ? WHERE id = ?", (val, stu["id"]))
        elif col == "notes":
            db.execute("UPDATE students SET notes = ? WHERE id = ?", (val, stu["id"]))
    fields = sorted(changes)
    _log(db, "staff", staff["id"], "student", stu["id"], "student_updated", stu["id"],
         "; ".join(f"{k}={old[k]}" for k in fields), "; ".join(f"{k}={changes[k]}" for k in fields))
    return {"student_number": stu["student_number"], "full_name": stu["full_name"], "changed": changes}


@tool(write=True, actor="staff_email")
def set_student_status(db: Db, staff_email: str, student: str,
                       new_status: Literal["active", "on_hold", "graduated", "withdrawn"], reason: str) -> dict:
    """Change a student's status: activate an enquiry, put lessons on hold, resume, mark graduated or withdrawn.

    A student with upcoming scheduled lessons or a booked road test cannot be put on hold, graduated or
    withdrawn until those are cancelled.

    Args:
        staff_email: email of the staff member making the change (the acting person).
        student: the student's email or student number.
        new_status: the new status.
        reason: why the status changes.
    """
    staff = _staff(db, staff_email)
    why = _required(reason, "the reason for the change")
    stu = _student(db, student)
    allowed = {"enquiry": ("active", "withdrawn"), "active": ("on_hold", "graduated", "withdrawn"),
               "on_hold": ("active", "withdrawn"), "withdrawn": ("active",), "graduated": ("active",)}
    if new_status not in allowed[stu["status"]]:
        raise ToolError(f"{stu['full_name']} is {stu['status']}; allowed changes: {', '.join(allowed[stu['status']])}")
    if new_status in ("on_hold", "graduated", "withdrawn"):
        upcoming = db.query("SELECT booking_ref FROM lessons WHERE student_id = ? AND status = 'scheduled' "
                            "ORDER BY start_at", (stu["id"],))
        tests = db.query("SELECT test_ref FROM road_tests WHERE student_id = ? AND status = 'booked'", (stu["id"],))
        if upcoming or tests:
            refs = [u["booking_ref"] for u in upcoming] + [t["test_ref"] for t in tests]
            raise ToolError(f"{stu['full_name']} still has scheduled bookings ({', '.join(refs)}); cancel them first")
    now = now_iso(db)
    if new_status == "graduated":
        db.execute("UPDATE students SET status = 'graduated', graduated_on = ? WHERE id = ?",
                   (db.today().isoformat(), stu["id"]))
    elif new_status == "withdrawn":
        db.execute("UPDATE students SET status = 'withdrawn', withdrawn_at = ? WHERE id = ?", (now, stu["id"]))
    elif new_status == "active":
        db.execute("UPDATE students SET status = 'active', withdrawn_at = NULL WHERE id = ?", (stu["id"],))
    else:
        db.execute("UPDATE students SET status = 'on_hold' WHERE id = ?", (stu["id"],))
    _log(db, "staff", staff["id"], "student", stu["id"], "status_changed", stu["id"], stu["status"], new_status, why)
    return {"student_number": stu["student_number"], "full_name": stu["full_name"], "old_status": stu["status"],
            "status": new_status, "reason": why}


# ---------------------------------------------------------------------------- instructors' time off

@tool
def list_time_off(db: Db, instructor_email: str | None = None,
                  status: Literal["requested", "approved", "rejected", "cancelled"] | None = None,
                  date_from: str | None = None, date_to: str | None = None, limit: int = 20) -> list[dict]:
    """List instructors' time-off requests with dates, reason, status and who approved them.

    Args:
        instructor_email: only this instructor.
        status: only requests with this status.
        date_from: only time off ending on or after this day.
        date_to: only time off starting on or before this day.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    iid = _instructor(db, instructor_email)["id"] if instructor_email else None
    lo, hi = _day_bounds(date_from, date_to)
    return db.query(
        "SELECT o.id AS time_off_id, i.full_name AS instructor, i.email AS instructor_email, o.start_at, o.end_at, "
        "o.reason, o.status, o.requested_at, st.full_name AS decided_by, o.notes FROM instructor_time_off o "
        "JOIN instructors i ON i.id = o.instructor_id LEFT JOIN staff st ON st.id = o.approved_by_staff_id "
        "WHERE (? IS NULL OR o.instructor_id = ?) AND (? IS NULL OR o.status = ?) AND (? IS NULL OR o.end_at >= ?) "
        "AND (? IS NULL OR o.start_at <= ?) ORDER BY o.start_at LIMIT ?",
        (iid, iid, status, status, lo, lo, hi, hi, limit))


@tool(write=True, actor="instructor_email")
def request_time_off(db: Db, instructor_email: str, start_date: str, end_date: str,
                     reason: Literal["vacation", "sick", "training", "personal", "other"],
                     notes: str | None = None) -> dict:
    """Ask, as an instructor, for whole days off; the request waits for a manager's decision.

    Args:
        instructor_email: email of the instructor asking (the acting person).
        start_date: first day off, e.g. "2026-04-06".
        end_date: last day off (inclusive).
        reason: vacation, sick, training, personal or other.
        notes: details for the manager.
    """
    ins = _instructor(db, instructor_email)
    if ins["status"] == "inactive":
        raise ToolError(f"{ins['full_name']} no longer works at the school")
    s = _parse_date(start_date, "start_date")
    e = _parse_date(end_date, "end_date")
    if e < s:
        raise ToolError("end_date is before start_date")
    if s < db.today():
        raise ToolError("time off can only be requested from today onwards")
    sa, ea = s.isoformat() + "T00:00:00", e.isoformat() + "T23:59:59"
    dup = db.one("SELECT id, start_at, end_at, status FROM instructor_time_off WHERE instructor_id = ? "
                 "AND status IN ('requested', 'approved') AND start_at <= ? AND end_at >= ?", (ins["id"], ea, sa))
    if dup is not None:
        raise ToolError(f"overlaps time off #{dup['id']} ({dup['status']}) from {dup['start_at']} to {dup['end_at']}")
    oid = db.insert("instructor_time_off", {
        "instructor_id": ins["id"], "start_at": sa, "end_at": ea, "reason": reason, "status": "requested",
        "requested_at": now_iso(db), "approved_by_staff_id": None, "notes": _clean(notes)})
    clashes = db.query("SELECT booking_ref, start_at FROM lessons WHERE instructor_id = ? AND status = 'scheduled' "
                       "AND start_at >= ? AND start_at <= ? ORDER BY start_at", (ins["id"], sa, ea))
    _log(db, "instructor", ins["id"], "time_off", oid, "time_off_requested", None, None, "requested",
         f"{reason} {s.isoformat()} to {e.isoformat()}")
    return {"time_off_id": oid, "instructor": ins["full_name"], "start_at": sa, "end_at": ea, "reason": reason,
            "status": "requested", "lessons_in_period": clashes}


@tool(write=True, actor="staff_email")
def decide_time_off(db: Db, staff_email: str, time_off_id: int, decision: Literal["approved", "rejected"],
                    note: str | None = None) -> dict:
    """Approve or reject an instructor's pending time-off request (owner or manager only); lists lessons that then need moving.

    Args:
        staff_email: email of the owner or manager deciding (the acting person).
        time_off_id: the request's id (see list_time_off).
        decision: approved or rejected.
        note: a note for the instructor, stored with the request.
    """
    staff = _staff(db, staff_email, MANAGER_ROLES)
    o = db.one("SELECT o.id, o.instructor_id, o.start_at, o.end_at, o.status, o.notes, i.full_name FROM "
               "instructor_time_off o JOIN instructors i ON i.id = o.instructor_id WHERE o.id = ?", (time_off_id,))
    if o is None:
        raise ToolError(f"no time-off request #{time_off_id}; see list_time_off")
    if o["status"] != "requested":
        raise ToolError(f"time off #{time_off_id} is already {o['status']}")
    text = _clean(note)
    db.execute("UPDATE instructor_time_off SET status = ?, approved_by_staff_id = ?, notes = ? WHERE id = ?",
               (decision, staff["id"], text if text else o["notes"], o["id"]))
    affected = []
    if decision == "approved":
        affected = db.query("SELECT l.booking_ref, l.start_at, s.full_name AS student FROM lessons l "
                            "JOIN students s ON s.id = l.student_id WHERE l.instructor_id = ? AND l.status = 'scheduled' "
                            "AND l.start_at < ? AND l.end_at > ? ORDER BY l.start_at",
                            (o["instructor_id"], o["end_at"], o["start_at"]))
    _log(db, "staff", staff["id"], "time_off", o["id"], "time_off_" + decision, None, "requested", decision, text)
    return {"time_off_id": o["id"], "instructor": o["full_name"], "start_at": o["start_at"], "end_at": o["end_at"],
            "status": decision, "decided_by": staff["full_name"], "lessons_to_reschedule": affected}


# ---------------------------------------------------------------------------- fleet

@tool
def list_vehicles(db: Db, branch_code: str | None = None,
                  status: Literal["available", "in_service", "retired"] | None = None,
                  transmission: Literal["automatic", "manual"] | None = None) -> list[dict]:
    """List the training cars with plate, model, transmission, branch, status, odometer and insurance/registration expiry.

    Args:
        branch_code: only cars based at this branch.
        status: available, in_service or retired.
        transmission: automatic or manual.
    """
    return db.query(
        "SELECT v.plate_number, v.make, v.model, v.model_year, v.colour, v.transmission, v.dual_controls, "
        "b.code AS branch_code, v.status, v.odometer_km, v.insurance_expiry_date, v.registration_expiry_date, "
        "v.acquired_on, v.retired_on FROM vehicles v JOIN branches b ON b.id = v.home_branch_id "
        "WHERE (? IS NULL OR upper(b.code) = upper(?)) AND (? IS NULL OR v.status = ?) "
        "AND (? IS NULL OR v.transmission = ?) ORDER BY b.code, v.plate_number",
        (branch_code, branch_code, status, status, transmission, transmission))


@tool
def get_vehicle(db: Db, plate_number: str) -> dict:
    """Show one training car by plate with its maintenance work orders and its upcoming lessons and road tests.

    Args:
        plate_number: the car's plate, e.g. "XBBJ 267".
    """
    v = db.one("SELECT v.id, v.plate_number, v.vin, v.make, v.model, v.model_year, v.colour, v.transmission, "
               "v.dual_controls, b.code AS branch_code, v.odometer_km, v.insurance_expiry_date, "
               "v.registration_expiry_date, v.status, v.acquired_on, v.retired_on FROM vehicles v "
               "JOIN branches b ON b.id = v.home_branch_id WHERE upper(v.plate_number) = upper(?)",
               ((plate_number or "").strip(),))
    if v is None:
        raise ToolError(f"no car with plate {plate_number!r}; use list_vehicles")
    now = now_iso(db)
    maint = db.query("SELECT m.work_order_number, m.maintenance_type, m.description, m.scheduled_start_at, "
                     "m.scheduled_end_at, m.status, m.odometer_km, m.cost_cents, m.vendor, m.completed_at, "
                     "st.full_name AS created_by FROM vehicle_maintenance m LEFT JOIN staff st "
                     "ON st.id = m.created_by_staff_id WHERE m.vehicle_id = ? ORDER BY m.scheduled_start_at DESC LIMIT 20",
                     (v["id"],))
    lessons = db.query("SELECT l.booking_ref, l.start_at, l.end_at, i.full_name AS instructor FROM lessons l "
                       "JOIN instructors i ON i.id = l.instructor_id WHERE l.vehicle_id = ? AND l.status = 'scheduled' "
                       "AND l.start_at >= ? ORDER BY l.start_at LIMIT 20", (v["id"], now))
    tests = db.query("SELECT test_ref, scheduled_at, test_class FROM road_tests WHERE vehicle_id = ? "
                     "AND status = 'booked' ORDER BY scheduled_at", (v["id"],))
    out = dict(v)
    out.pop("id")
    out["maintenance"] = maint
    out["upcoming_lessons"] = lessons
    out["upcoming_road_tests"] = tests
    return out


@tool(write=True, actor="staff_email")
def schedule_vehicle_maintenance(db: Db, staff_email: str, plate_number: str, maintenance_type: Literal["oil_change", "tyres", "brakes", "inspection", "repair", "cleaning", "other"],
                                 description: str, start_at: str, end_at: str, estimated_cost_cents: int,
                                 vendor: str | None = None) -> dict:
    """Book a car in for maintenance; the car must have no lessons, road tests or other work orders in that time.

    Args:
        staff_email: email of the owner, manager or front-desk staff member booking it (the acting person).
        plate_number: the car's plate.
        maintenance_type: oil_change, tyres, brakes, inspection, repair, cleaning or other.
        description: the work to be done.
        start_at: when the car goes in, e.g. "2026-03-09T08:00:00".
        end_at: when it is expected back.
        estimated_cost_cents: expected cost in cents.
        vendor: the garage doing the work, or "In-house".
    """
    staff = _staff(db, staff_email, ("owner", "manager", "front_desk"))
    text = _required(description, "a description of the work")
    v = db.one("SELECT id, plate_number, status, home_branch_id FROM vehicles WHERE upper(plate_number) = upper(?)",
               ((plate_number or "").strip(),))
    if v is None:
        raise ToolError(f"no car with plate {plate_number!r}; use list_vehicles")
    if v["status"] == "retired":
        raise ToolError(f"car {v['plate_number']} is retired")
    s = _parse_dt(start_at, "start_at")
    e = _parse_dt(end_at, "end_at")
    if e <= s:
        raise ToolError("end_at must be after start_at")
    if s <= db.now():
        raise ToolError("maintenance must be scheduled in the future")
    if estimated_cost_cents < 0:
        raise ToolError("estimated_cost_cents cannot be negative")
    clash = _conflict(db, s, e, vehicle_id=v["id"])
    if clash:
        raise ToolError(f"car {v['plate_number']}: {clash}; move those bookings first")
    mid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM vehicle_maintenance", ())
    wo = f"WO-{s.year}-{mid:04d}"
    db.insert("vehicle_maintenance", {
        "id": mid, "work_order_number": wo, "vehicle_id": v["id"], "maintenance_type": maintenance_type,
        "description": text, "scheduled_start_at": _iso(s), "scheduled_end_at": _iso(e), "status": "scheduled",
        "odometer_km": None, "cost_cents": estimated_cost_cents, "vendor": _clean(vendor),
        "created_by_staff_id": staff["id"], "created_at": now_iso(db), "completed_at": None})
    _log(db, "staff", staff["id"], "vehicle", v["id"], "maintenance_scheduled", None, None, "scheduled",
         f"{wo}: {maintenance_type} {_iso(s)} to {_iso(e)}")
    return {"work_order_number": wo, "vehicle_plate": v["plate_number"], "maintenance_type": maintenance_type,
            "scheduled_start_at": _iso(s), "scheduled_end_at": _iso(e), "estimated_cost_cents": estimated_cost_cents,
            "status": "scheduled"}


# ---------------------------------------------------------------------------- history

@tool
def get_activity_log(db: Db, reference: str | None = None, student: str | None = None,
                     staff_email: str | None = None, action: str | None = None, date_from: str | None = None,
                     date_to: str | None = None, limit: int = 30) -> list[dict]:
    """Show the history of changes (who did what and when), for one record, one student, one staff member or a period.

    Args:
        reference: a booking reference, road test reference, purchase number, charge number, receipt number or car plate.
        student: only entries about this student (email or student number).
        staff_email: only changes made by this staff member.
        action: only this action, e.g. "lesson_cancelled" or "status_changed".
        date_from: first day (inclusive).
        date_to: last day (inclusive).
        limit: maximum number of entries, 1 to 100.
    """
    check_limit(limit, 100)
    etype, eid = None, None
    ref = _clean(reference)
    if ref:
        probes = (
            ("lesson", db.value("SELECT id FROM lessons WHERE upper(booking_ref) = upper(?)", (ref,))),
            ("road_test", db.value("SELECT id FROM road_tests WHERE upper(test_ref) = upper(?)", (ref,))),
            ("package_purchase", db.value("SELECT id FROM package_purchases WHERE upper(purchase_number) = upper(?)",
                                          (ref,))),
            ("charge", db.value("SELECT id FROM charges WHERE upper(charge_number) = upper(?)", (ref,))),
            ("payment", db.value("SELECT id FROM payments WHERE upper(receipt_number) = upper(?)", (ref,))),
            ("vehicle", db.value("SELECT id FROM vehicles WHERE upper(plate_number) = upper(?)", (ref,))),
        )
        for kind, found in probes:
            if found is not None:
                etype, eid = kind, found
                break
        if etype is None:
            raise ToolError(f"{reference!r} is not a known booking, test, purchase, charge, receipt or plate")
    sid = _student(db, student)["id"] if student else None
    stid = None
    if staff_email:
        row = db.one("SELECT id FROM staff WHERE lower(email) = lower(?)", (staff_email.strip(),))
        if row is None:
            raise ToolError(f"no staff member with email {staff_email!r}")
        stid = row["id"]
    lo, hi = _day_bounds(date_from, date_to)
    act = _clean(action)
    return db.query(
        "SELECT a.occurred_at, a.actor_type, COALESCE(st.full_name, i.full_name, "
        "CASE WHEN a.actor_type = 'student' THEN s.full_name END, 'system') AS actor, s.full_name AS student, "
        "a.entity_type, a.entity_id, a.action, a.old_value, a.new_value, a.details FROM activity_log a "
        "LEFT JOIN staff st ON st.id = a.staff_id LEFT JOIN instructors i ON i.id = a.instructor_id "
        "LEFT JOIN students s ON s.id = a.student_id "
        "WHERE (? IS NULL OR a.entity_type = ?) AND (? IS NULL OR a.entity_id = ?) AND (? IS NULL OR a.student_id = ?) "
        "AND (? IS NULL OR a.staff_id = ?) AND (? IS NULL OR a.action = ?) AND (? IS NULL OR a.occurred_at >= ?) "
        "AND (? IS NULL OR a.occurred_at <= ?) ORDER BY a.occurred_at DESC, a.id DESC LIMIT ?",
        (etype, etype, eid, eid, sid, sid, stid, stid, act, act, lo, lo, hi, hi, limit))
