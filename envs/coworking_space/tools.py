from datetime import date, datetime, timedelta
import json
import re
from typing import Literal

from awm.tooling import Db, ToolError, check_limit, like_contains, now_iso, tool

TAX_PERCENT = 8
NET_DAYS = 14
GUEST_FEE_CENTS = 2000
PACK_VALID_DAYS = 90
MAX_BOOKING_MINUTES = 480
BOOKING_HORIZON_DAYS = 90

MEMBER_DESK_ROLES = frozenset({"front_desk", "community_manager", "operations_manager"})
SPACE_ROLES = frozenset({"front_desk", "community_manager", "operations_manager"})
PASS_ROLES = frozenset({"front_desk", "community_manager", "operations_manager"})
PASS_CANCEL_ROLES = frozenset({"front_desk", "operations_manager", "finance"})
EVENT_ROLES = frozenset({"community_manager", "operations_manager"})
ALL_ROLES = frozenset({"front_desk", "community_manager", "operations_manager", "finance", "facilities"})
PAYMENT_ROLES = frozenset({"finance", "front_desk", "operations_manager"})
VOID_ROLES = frozenset({"finance", "operations_manager"})

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
HHMM_RE = re.compile(r"^([01][0-9]|2[0-3]):([0-5][0-9])$")
MEMBER_NO_RE = re.compile(r"^BC-[0-9]+$", re.IGNORECASE)
MONTH_RE = re.compile(r"^[0-9]{4}-(0[1-9]|1[0-2])$")


# ----------------------------------------------------------------- helpers (not tools)

def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="seconds")


def _date(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value.strip())
    except (ValueError, AttributeError):
        raise ToolError(f"{name} must be a date in YYYY-MM-DD form, got {value!r}")


def _opt_date(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    return _date(value, name).isoformat()


def _datetime(value: str, name: str) -> datetime:
    try:
        dt = datetime.fromisoformat(value.strip())
    except (ValueError, AttributeError):
        raise ToolError(f"{name} must be a date and time like 2026-03-05T14:00, got {value!r}")
    if dt.tzinfo is not None:
        dt = dt.replace(tzinfo=None)
    return dt.replace(second=0, microsecond=0)


def _text(value: str | None, name: str, required: bool = True) -> str | None:
    if value is None:
        if required:
            raise ToolError(f"give the {name}")
        return None
    v = value.strip()
    if not v:
        if required:
            raise ToolError(f"give the {name}; it cannot be empty")
        return None
    return v


def _staff(db: Db, email: str, roles: frozenset, doing: str) -> dict:
    row = db.one("SELECT id, staff_code, full_name, email, role, is_active FROM staff WHERE email = ?",
                 (email.strip().lower(),))
    if row is None:
        raise ToolError(f"no staff member with email {email!r}; staff actions need the acting staff member's work email")
    if row["is_active"] != 1:
        raise ToolError(f"{row['full_name']} is no longer an active staff member and cannot {doing}")
    if row["role"] not in roles:
        allowed = ", ".join(sorted(roles))
        raise ToolError(f"{row['full_name']} works as {row['role']}; only {allowed} staff can {doing}")
    return row


def _member_by_email(db: Db, email: str) -> dict:
    row = db.one("SELECT * FROM members WHERE email = ?", (email.strip().lower(),))
    if row is None:
        raise ToolError(f"no member with email {email!r}; check the address or use search_members")
    return row


def _find_member(db: Db, ref: str) -> dict:
    r = (ref or "").strip()
    if not r:
        raise ToolError("give the member's number (e.g. BC-10003) or email address")
    if MEMBER_NO_RE.match(r):
        row = db.one("SELECT * FROM members WHERE member_number = ?", (r.upper(),))
    else:
        row = db.one("SELECT * FROM members WHERE email = ?", (r.lower(),))
    if row is None:
        raise ToolError(f"no member {ref!r}; give a member number like BC-10003 or the member's email, or use search_members")
    return row


def _room(db: Db, code: str) -> dict:
    row = db.one("SELECT * FROM meeting_rooms WHERE code = ? OR lower(name) = ?",
                 (code.strip().upper(), code.strip().lower()))
    if row is None:
        raise ToolError(f"no meeting room {code!r}; use list_meeting_rooms to see room codes such as MR-02")
    return row


def _hours_check(db: Db, start: datetime, end: datetime) -> None:
    if end.date() != start.date():
        raise ToolError("the start and end must be on the same day")
    row = db.one("SELECT day_name, opens_at, closes_at, is_closed FROM opening_hours WHERE day_of_week = ?",
                 (start.weekday(),))
    if row is None or row["is_closed"] == 1:
        raise ToolError(f"Brickyard Commons is closed on {start.date().isoformat()}; pick an open day (see get_opening_hours)")
    if start.strftime("%H:%M") < row["opens_at"] or end.strftime("%H:%M") > row["closes_at"]:
        raise ToolError(f"on {row['day_name']}s the space is open {row['opens_at']} to {row['closes_at']}; "
                        f"choose times inside those hours")


def _open_day_check(db: Db, d: date) -> dict:
    row = db.one("SELECT day_name, opens_at, closes_at, is_closed FROM opening_hours WHERE day_of_week = ?",
                 (d.weekday(),))
    if row is None or row["is_closed"] == 1:
        raise ToolError(f"Brickyard Commons is closed on {d.isoformat()}; pick an open day (see get_opening_hours)")
    return row


def _membership_on(db: Db, member_id: int, d: date) -> dict | None:
    return db.one(
        "SELECT ms.id, ms.membership_ref, ms.status, ms.start_date, ms.end_date, p.name AS plan_name, p.code AS plan_code, "
        "p.plan_type, p.meeting_credit_minutes, p.guest_passes_per_month FROM memberships ms "
        "JOIN membership_plans p ON p.id = ms.plan_id WHERE ms.member_id = ? "
        "AND (ms.status IN ('active', 'scheduled') OR (ms.status = 'cancelled' AND ms.end_date IS NOT NULL)) "
        "AND ms.start_date <= ? AND (ms.end_date IS NULL OR ms.end_date >= ?) ORDER BY ms.start_date DESC LIMIT 1",
        (member_id, d.isoformat(), d.isoformat()))


def _credits_used(db: Db, member_id: int, month: str, exclude_id: int) -> int:
    return db.value(
        "SELECT COALESCE(SUM(credit_minutes_used), 0) FROM room_bookings WHERE member_id = ? "
        "AND status != 'cancelled' AND substr(start_at, 1, 7) = ? AND id != ?",
        (member_id, month, exclude_id)) or 0


def _room_conflict(db: Db, room_id: int, start_iso: str, end_iso: str, exclude_booking_id: int) -> str | None:
    b = db.one(
        "SELECT booking_ref, start_at, end_at FROM room_bookings WHERE room_id = ? "
        "AND status IN ('confirmed', 'completed', 'no_show') AND start_at < ? AND end_at > ? AND id != ? "
        "ORDER BY start_at LIMIT 1",
        (room_id, end_iso, start_iso, exclude_booking_id))
    if b is not None:
        return f"booking {b['booking_ref']} ({b['start_at']} to {b['end_at']})"
    e = db.one(
        "SELECT event_code, title, starts_at, ends_at FROM events WHERE room_id = ? "
        "AND status IN ('draft', 'scheduled', 'completed') AND starts_at < ? AND ends_at > ? ORDER BY starts_at LIMIT 1",
        (room_id, end_iso, start_iso))
    if e is not None:
        return f"event {e['event_code']} {e['title']} ({e['starts_at']} to {e['ends_at']})"
    return None


def _log(db: Db, actor_type: str, staff_id: int | None, member_id: int | None, entity_type: str,
         entity_id: int, action: str, details: dict | None) -> None:
    db.insert("activity_log", {
        "occurred_at": now_iso(db),
        "actor_type": actor_type,
        "staff_id": staff_id,
        "member_id": member_id,
        "entity_type": entity_type,
        "entity_id": entity_id,
        "action": action,
        "details": json.dumps(details, sort_keys=True) if details else None,
    })


def _booking_view(db: Db, booking_id: int) -> dict:
    return db.one(
        "SELECT b.booking_ref, r.code AS room_code, r.name AS room_name, m.member_number, m.full_name AS member_name, "
        "b.title, b.start_at, b.end_at, b.attendee_count, b.status, b.credit_minutes_used, b.charge_cents, "
        "b.created_at, b.cancelled_at, b.cancel_reason FROM room_bookings b JOIN meeting_rooms r ON r.id = b.room_id "
        "JOIN members m ON m.id = b.member_id WHERE b.id = ?",
        (booking_id,))


def _price_booking(db: Db, member_id: int, room: dict, start: datetime, end: datetime, exclude_id: int) -> dict:
    ms = _membership_on(db, member_id, start.date())
    if ms is None:
        raise ToolError(f"the member has no active membership on {start.date().isoformat()}; "
                        f"meeting rooms can be booked only while a membership is running")
    minutes = int((end - start).total_seconds() // 60)
    allowance = ms["meeting_credit_minutes"] or 0
    used = _credits_used(db, member_id, start.strftime("%Y-%m"), exclude_id)
    credit = max(0, min(minutes, allowance - used))
    charge = (room["hourly_rate_cents"] * (minutes - credit) + 30) // 60
    return {"minutes": minutes, "credit": credit, "charge": charge, "plan": ms["plan_name"],
            "allowance": allowance, "used_before": used}


def _validate_slot(db: Db, start: datetime, end: datetime) -> None:
    now = db.now().replace(tzinfo=None)
    if start <= now:
        raise ToolError(f"the start {start.isoformat()} is not in the future (it is now {_iso(now)})")
    if end <= start:
        raise ToolError("the end time must be after the start time")
    if start.minute % 15 or end.minute % 15:
        raise ToolError("bookings start and end on the quarter hour (:00, :15, :30 or :45)")
    minutes = int((end - start).total_seconds() // 60)
    if minutes < 30 or minutes > MAX_BOOKING_MINUTES:
        raise ToolError(f"a booking lasts 30 minutes to {MAX_BOOKING_MINUTES // 60} hours; this one is {minutes} minutes")
    if start.date() > db.today() + timedelta(days=BOOKING_HORIZON_DAYS):
        raise ToolError(f"rooms can be booked at most {BOOKING_HORIZON_DAYS} days ahead")
    _hours_check(db, start, end)


def _next_id(db: Db, table_sql_value: int | None) -> int:
    return (table_sql_value or 0) + 1


# ----------------------------------------------------------------- reference and lookups

@tool
def get_opening_hours(db: Db) -> list[dict]:
    """Show the weekly opening hours of Brickyard Commons, day by day, and when the front desk is staffed.
    """
    rows = db.query(
        "SELECT day_of_week, day_name, opens_at, closes_at, front_desk_from, front_desk_until, is_closed "
        "FROM opening_hours ORDER BY day_of_week", ())
    out = []
    for r in rows:
        closed = r["is_closed"] == 1
        out.append({
            "day": r["day_name"],
            "is_closed": closed,
            "opens_at": None if closed else r["opens_at"],
            "closes_at": None if closed else r["closes_at"],
            "front_desk_from": r["front_desk_from"],
            "front_desk_until": r["front_desk_until"],
        })
    return out


@tool
def list_membership_plans(db: Db, plan_type: Literal["hot_desk", "dedicated_desk", "private_office", "virtual", "part_time"] | None = None,
                          include_inactive: bool = False) -> list[dict]:
    """List the membership plans with their monthly price, setup fee and what each includes.

    Args:
        plan_type: only plans of this type.
        include_inactive: also show plans that are closed to new sign-ups.
    """
    return db.query(
        "SELECT p.code, p.name, p.plan_type, p.monthly_price_cents, p.setup_fee_cents, p.meeting_credit_minutes, "
        "p.guest_passes_per_month, p.access_days_per_month, p.has_24_7_access, p.includes_mail_handling, "
        "p.description, p.is_active, (SELECT COUNT(*) FROM memberships ms WHERE ms.plan_id = p.id "
        "AND ms.status IN ('active', 'paused')) AS current_memberships FROM membership_plans p "
        "WHERE (? IS NULL OR p.plan_type = ?) AND (? = 1 OR p.is_active = 1) ORDER BY p.monthly_price_cents, p.code",
        (plan_type, plan_type, 1 if include_inactive else 0))


@tool
def list_pass_products(db: Db, include_inactive: bool = False) -> list[dict]:
    """List the day-pass products sold to visitors (half day, day, multi-day packs) with prices.

    Args:
        include_inactive: also show products no longer on sale.
    """
    return db.query(
        "SELECT code, name, pass_kind, days_included, price_cents, includes_meeting_minutes, is_active "
        "FROM pass_products WHERE (? = 1 OR is_active = 1) ORDER BY price_cents, code",
        (1 if include_inactive else 0,))


@tool
def search_members(db: Db, query: str, status: Literal["active", "paused", "cancelled", "prospect"] | None = None,
                   limit: int = 20) -> list[dict]:
    """Find members by words in their name, email, member number, company or access card number.

    Args:
        query: text to look for, e.g. "Deborah Price", "BC-10003", "reed" or an email.
        status: only members with this status.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    pattern = like_contains(query.strip())
    return db.query(
        "SELECT m.member_number, m.full_name, m.email, m.phone, m.company_name, m.job_title, m.status, m.joined_on, "
        "m.cancelled_at, (SELECT p.name FROM memberships ms JOIN membership_plans p ON p.id = ms.plan_id "
        "WHERE ms.member_id = m.id AND ms.status IN ('active', 'paused') ORDER BY ms.start_date DESC LIMIT 1) AS current_plan "
        "FROM members m WHERE (m.full_name LIKE ? ESCAPE '\\' OR m.email LIKE ? ESCAPE '\\' "
        "OR m.member_number LIKE ? ESCAPE '\\' OR COALESCE(m.company_name, '') LIKE ? ESCAPE '\\' "
        "OR COALESCE(m.access_card_number, '') LIKE ? ESCAPE '\\') AND (? IS NULL OR m.status = ?) "
        "ORDER BY m.full_name, m.member_number LIMIT ?",
        (pattern, pattern, pattern, pattern, pattern, status, status, limit))


@tool
def get_member(db: Db, member: str) -> dict:
    """Show one member's profile with their memberships (plan history), desk or office assignments,
    this month's meeting-room credits, upcoming bookings and guests, and open invoice balance.

    Args:
        member: the member number (e.g. "BC-10003") or the member's email.
    """
    m = _find_member(db, member)
    today = db.today()
    now = now_iso(db)
    creator = None
    if m["created_by_staff_id"] is not None:
        creator = db.value("SELECT full_name FROM staff WHERE id = ?", (m["created_by_staff_id"],))
    memberships = db.query(
        "SELECT ms.membership_ref, p.code AS plan_code, p.name AS plan_name, p.plan_type, ms.status, ms.start_date, "
        "ms.end_date, ms.monthly_price_cents, ms.discount_percent, ms.billing_day, ms.created_at, ms.cancelled_at, "
        "ms.cancel_reason FROM memberships ms JOIN membership_plans p ON p.id = ms.plan_id WHERE ms.member_id = ? "
        "ORDER BY ms.start_date DESC, ms.id DESC LIMIT 20", (m["id"],))
    assignments = db.query(
        "SELECT sa.assignment_ref, sa.status, sa.start_date, sa.end_date, sa.ended_at, d.code AS desk_code, "
        "o.code AS office_code, o.name AS office_name, ms.membership_ref FROM space_assignments sa "
        "LEFT JOIN desks d ON d.id = sa.desk_id LEFT JOIN private_offices o ON o.id = sa.office_id "
        "LEFT JOIN memberships ms ON ms.id = sa.membership_id WHERE sa.member_id = ? "
        "ORDER BY sa.start_date DESC, sa.id DESC LIMIT 20", (m["id"],))
    ms_now = _membership_on(db, m["id"], today)
    month = today.strftime("%Y-%m")
    credits = None
    if ms_now is not None:
        used = _credits_used(db, m["id"], month, 0)
        credits = {"month": month, "plan": ms_now["plan_name"], "allowance_minutes": ms_now["meeting_credit_minutes"],
                   "used_minutes": used, "remaining_minutes": max(0, ms_now["meeting_credit_minutes"] - used),
                   "guest_passes_per_month": ms_now["guest_passes_per_month"]}
    upcoming_bookings = db.value(
        "SELECT COUNT(*) FROM room_bookings WHERE member_id = ? AND status = 'confirmed' AND start_at >= ?",
        (m["id"], now))
    upcoming_guests = db.value(
        "SELECT COUNT(*) FROM guest_registrations WHERE host_member_id = ? AND status = 'expected' AND visit_date >= ?",
        (m["id"], today.isoformat()))
    bal = db.one(
        "SELECT COUNT(*) AS open_invoices, COALESCE(SUM(total_cents - amount_paid_cents), 0) AS balance_cents "
        "FROM invoices WHERE member_id = ? AND status IN ('issued', 'partially_paid', 'overdue')", (m["id"],))
    return {
        "member_number": m["member_number"],
        "full_name": m["full_name"],
        "email": m["email"],
        "phone": m["phone"],
        "company_name": m["company_name"],
        "job_title": m["job_title"],
        "access_card_number": m["access_card_number"],
        "status": m["status"],
        "joined_on": m["joined_on"],
        "cancelled_at": m["cancelled_at"],
        "marketing_opt_in": bool(m["marketing_opt_in"]),
        "notes": m["notes"],
        "created_by_staff": creator,
        "memberships": memberships,
        "space_assignments": assignments,
        "meeting_credits_this_month": credits,
        "upcoming_confirmed_bookings": upcoming_bookings,
        "upcoming_expected_guests": upcoming_guests,
        "open_invoices": bal["open_invoices"],
        "open_balance_cents": bal["balance_cents"],
    }


@tool
def list_desks(db: Db, area: Literal["open_lounge", "quiet_zone", "window_row", "studio"] | None = None,
               desk_type: Literal["hot_desk", "dedicated_desk"] | None = None,
               status: Literal["in_service", "out_of_service"] | None = None,
               free_from: str | None = None, limit: int = 50) -> list[dict]:
    """List desks with their features and who holds them today (dedicated desks are assigned to one member).

    Args:
        area: only desks in this area.
        desk_type: only hot desks or only dedicated desks.
        status: only desks in or out of service.
        free_from: a date YYYY-MM-DD; only in-service desks with no assignment on or after that date.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    free = _opt_date(free_from, "free_from")
    return db.query(
        "SELECT d.code, d.floor, d.area, d.desk_type, d.has_monitor, d.is_standing, d.status, "
        "(SELECT m.full_name || ' (' || m.member_number || ')' FROM space_assignments sa JOIN members m ON m.id = sa.member_id "
        "WHERE sa.desk_id = d.id AND sa.status = 'active' ORDER BY sa.start_date LIMIT 1) AS assigned_to, "
        "(SELECT sa.assignment_ref || ' from ' || sa.start_date FROM space_assignments sa WHERE sa.desk_id = d.id "
        "AND sa.status = 'scheduled' ORDER BY sa.start_date LIMIT 1) AS upcoming_assignment "
        "FROM desks d WHERE (? IS NULL OR d.area = ?) AND (? IS NULL OR d.desk_type = ?) AND (? IS NULL OR d.status = ?) "
        "AND (? IS NULL OR (d.status = 'in_service' AND NOT EXISTS (SELECT 1 FROM space_assignments sx "
        "WHERE sx.desk_id = d.id AND sx.status IN ('active', 'scheduled') AND (sx.end_date IS NULL OR sx.end_date >= ?)))) "
        "ORDER BY d.code LIMIT ?",
        (area, area, desk_type, desk_type, status, status, free, free, limit))


@tool
def list_private_offices(db: Db, status: Literal["available", "occupied", "reserved", "maintenance"] | None = None,
                         min_capacity: int | None = None, limit: int = 50) -> list[dict]:
    """List private offices with size, monthly rent, status and the member or company using them.

    Args:
        status: only offices with this status.
        min_capacity: only offices for at least this many people.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    if min_capacity is not None and min_capacity < 1:
        raise ToolError("min_capacity must be 1 or more")
    return db.query(
        "SELECT o.code, o.name, o.floor, o.capacity, o.size_sqm, o.monthly_price_cents, o.has_window, o.status, "
        "(SELECT m.full_name || ' (' || m.member_number || COALESCE(', ' || m.company_name, '') || ')' "
        "FROM space_assignments sa JOIN members m ON m.id = sa.member_id WHERE sa.office_id = o.id AND sa.status = 'active' "
        "ORDER BY sa.start_date LIMIT 1) AS occupied_by, "
        "(SELECT m.full_name || ' from ' || sa.start_date FROM space_assignments sa JOIN members m ON m.id = sa.member_id "
        "WHERE sa.office_id = o.id AND sa.status = 'scheduled' ORDER BY sa.start_date LIMIT 1) AS reserved_for "
        "FROM private_offices o WHERE (? IS NULL OR o.status = ?) AND (? IS NULL OR o.capacity >= ?) "
        "ORDER BY o.code LIMIT ?",
        (status, status, min_capacity, min_capacity, limit))


@tool
def list_meeting_rooms(db: Db, min_capacity: int | None = None, needs_video: bool = False,
                       include_unbookable: bool = False) -> list[dict]:
    """List the meeting rooms with capacity, hourly rate and equipment.

    Args:
        min_capacity: only rooms for at least this many people.
        needs_video: only rooms with video conferencing.
        include_unbookable: also show rooms that are currently closed for booking.
    """
    if min_capacity is not None and min_capacity < 1:
        raise ToolError("min_capacity must be 1 or more")
    return db.query(
        "SELECT code, name, floor, capacity, hourly_rate_cents, has_video_conferencing, has_whiteboard, has_display, "
        "is_bookable FROM meeting_rooms WHERE (? IS NULL OR capacity >= ?) AND (? = 0 OR has_video_conferencing = 1) "
        "AND (? = 1 OR is_bookable = 1) ORDER BY capacity, code",
        (min_capacity, min_capacity, 1 if needs_video else 0, 1 if include_unbookable else 0))


@tool
def get_room_schedule(db: Db, date: str, room_code: str | None = None) -> dict:
    """Show a day's schedule of the meeting rooms: the opening hours, every booking and every event held
    in each room, so free slots can be found.

    Args:
        date: the day, YYYY-MM-DD.
        room_code: only this room (code like "MR-02" or the room's name).
    """
    d = _date(date, "date")
    room_id = None
    if room_code is not None and room_code.strip():
        room_id = _room(db, room_code)["id"]
    hours = db.one("SELECT day_name, opens_at, closes_at, is_closed FROM opening_hours WHERE day_of_week = ?",
                   (d.weekday(),))
    rooms = db.query(
        "SELECT id, code, name, capacity, hourly_rate_cents, is_bookable FROM meeting_rooms "
        "WHERE (? IS NULL OR id = ?) ORDER BY code", (room_id, room_id))
    bookings = db.query(
        "SELECT b.room_id, b.booking_ref, b.title, b.start_at, b.end_at, b.status, b.attendee_count, "
        "m.full_name AS member_name, m.member_number FROM room_bookings b JOIN members m ON m.id = b.member_id "
        "WHERE substr(b.start_at, 1, 10) = ? AND b.status != 'cancelled' AND (? IS NULL OR b.room_id = ?) "
        "ORDER BY b.start_at", (d.isoformat(), room_id, room_id))
    events = db.query(
        "SELECT room_id, event_code, title, starts_at, ends_at, status FROM events WHERE substr(starts_at, 1, 10) = ? "
        "AND room_id IS NOT NULL AND status != 'cancelled' AND (? IS NULL OR room_id = ?) ORDER BY starts_at",
        (d.isoformat(), room_id, room_id))
    out_rooms = []
    for r in rooms:
        out_rooms.append({
            "room_code": r["code"],
            "room_name": r["name"],
            "capacity": r["capacity"],
            "hourly_rate_cents": r["hourly_rate_cents"],
            "is_bookable": bool(r["is_bookable"]),
            "bookings": [{k: b[k] for k in ("booking_ref", "title", "start_at", "end_at", "status", "attendee_count",
                                             "member_name", "member_number")} for b in bookings if b["room_id"] == r["id"]],
            "events": [{k: e[k] for k in ("event_code", "title", "starts_at", "ends_at", "status")}
                       for e in events if e["room_id"] == r["id"]],
        })
    closed = hours is None or hours["is_closed"] == 1
    return {
        "date": d.isoformat(),
        "day": hours["day_name"] if hours is not None else None,
        "is_closed": closed,
        "opens_at": None if closed else hours["opens_at"],
        "closes_at": None if closed else hours["closes_at"],
        "rooms": out_rooms,
    }


@tool
def search_room_bookings(db: Db, booking_ref: str | None = None, member: str | None = None,
                         room_code: str | None = None, date_from: str | None = None, date_to: str | None = None,
                         status: Literal["confirmed", "cancelled", "completed", "no_show"] | None = None,
                         limit: int = 20) -> list[dict]:
    """Find meeting-room bookings by reference, member, room, date range or status, with credits used and charges.

    Args:
        booking_ref: a booking reference, e.g. "RB-2603-00231".
        member: only this member's bookings (member number or email).
        room_code: only this room (code like "MR-02" or the room's name).
        date_from: first day, YYYY-MM-DD (by start time).
        date_to: last day, YYYY-MM-DD (by start time).
        status: only bookings with this status.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    member_id = _find_member(db, member)["id"] if member is not None and member.strip() else None
    room_id = _room(db, room_code)["id"] if room_code is not None and room_code.strip() else None
    ref = booking_ref.strip().upper() if booking_ref is not None and booking_ref.strip() else None
    dfrom = _opt_date(date_from, "date_from")
    dto = _opt_date(date_to, "date_to")
    return db.query(
        "SELECT b.booking_ref, r.code AS room_code, r.name AS room_name, m.member_number, m.full_name AS member_name, "
        "b.title, b.start_at, b.end_at, b.attendee_count, b.status, b.credit_minutes_used, b.charge_cents, "
        "b.created_at, b.cancelled_at, b.cancel_reason, s.full_name AS booked_by_staff FROM room_bookings b "
        "JOIN meeting_rooms r ON r.id = b.room_id JOIN members m ON m.id = b.member_id "
        "LEFT JOIN staff s ON s.id = b.booked_by_staff_id WHERE (? IS NULL OR b.booking_ref = ?) "
        "AND (? IS NULL OR b.member_id = ?) AND (? IS NULL OR b.room_id = ?) "
        "AND (? IS NULL OR substr(b.start_at, 1, 10) >= ?) AND (? IS NULL OR substr(b.start_at, 1, 10) <= ?) "
        "AND (? IS NULL OR b.status = ?) ORDER BY b.start_at, b.booking_ref LIMIT ?",
        (ref, ref, member_id, member_id, room_id, room_id, dfrom, dfrom, dto, dto, status, status, limit))


@tool
def search_day_passes(db: Db, query: str | None = None,
                      status: Literal["issued", "checked_in", "used", "cancelled", "refunded", "expired"] | None = None,
                      valid_on: str | None = None, limit: int = 20) -> list[dict]:
    """Find day passes sold to visitors by the visitor's name or email or the pass code, with validity and use.

    Args:
        query: words in the visitor's name or email, or the pass code, e.g. "DP-4L5BTS".
        status: only passes with this status.
        valid_on: a date YYYY-MM-DD; only passes valid on that day.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    pattern = like_contains(query.strip()) if query is not None and query.strip() else None
    day = _opt_date(valid_on, "valid_on")
    return db.query(
        "SELECT dp.pass_code, pp.code AS product_code, pp.name AS product_name, pp.pass_kind, dp.visitor_name, "
        "dp.visitor_email, dp.visitor_phone, dp.valid_from, dp.valid_until, dp.days_remaining, dp.price_cents, "
        "dp.payment_method, dp.status, dp.sold_at, s.full_name AS sold_by, dp.last_checked_in_at, dp.cancelled_at, "
        "dp.refunded_cents, m.full_name AS referred_by_member FROM day_passes dp "
        "JOIN pass_products pp ON pp.id = dp.pass_product_id LEFT JOIN staff s ON s.id = dp.sold_by_staff_id "
        "LEFT JOIN members m ON m.id = dp.referred_by_member_id "
        "WHERE (? IS NULL OR dp.visitor_name LIKE ? ESCAPE '\\' OR dp.visitor_email LIKE ? ESCAPE '\\' "
        "OR dp.pass_code LIKE ? ESCAPE '\\') AND (? IS NULL OR dp.status = ?) "
        "AND (? IS NULL OR (dp.valid_from <= ? AND dp.valid_until >= ?)) ORDER BY dp.sold_at DESC, dp.pass_code LIMIT ?",
        (pattern, pattern, pattern, pattern, status, status, day, day, day, limit))


@tool
def list_guest_registrations(db: Db, guest_ref: str | None = None, date_from: str | None = None,
                             date_to: str | None = None, host_member: str | None = None,
                             status: Literal["expected", "checked_in", "checked_out", "cancelled", "no_show"] | None = None,
                             guest_name: str | None = None, limit: int = 20) -> list[dict]:
    """List registered visiting guests by visit date range, host member, status or guest name, with fees.

    Args:
        guest_ref: one registration's reference, e.g. "GR-00042".
        date_from: first visit day, YYYY-MM-DD.
        date_to: last visit day, YYYY-MM-DD.
        host_member: only guests of this member (member number or email).
        status: only registrations with this status.
        guest_name: words in the guest's name.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    host_id = _find_member(db, host_member)["id"] if host_member is not None and host_member.strip() else None
    ref = guest_ref.strip().upper() if guest_ref is not None and guest_ref.strip() else None
    dfrom = _opt_date(date_from, "date_from")
    dto = _opt_date(date_to, "date_to")
    pattern = like_contains(guest_name.strip()) if guest_name is not None and guest_name.strip() else None
    return db.query(
        "SELECT g.guest_ref, g.guest_name, g.guest_email, g.guest_company, g.visit_date, g.expected_arrival, g.purpose, "
        "g.status, g.is_complimentary, g.fee_cents, m.member_number AS host_member_number, m.full_name AS host_name, "
        "g.created_at, g.checked_in_at, g.checked_out_at, g.cancelled_at FROM guest_registrations g "
        "JOIN members m ON m.id = g.host_member_id WHERE (? IS NULL OR g.guest_ref = ?) "
        "AND (? IS NULL OR g.visit_date >= ?) AND (? IS NULL OR g.visit_date <= ?) AND (? IS NULL OR g.host_member_id = ?) "
        "AND (? IS NULL OR g.status = ?) AND (? IS NULL OR g.guest_name LIKE ? ESCAPE '\\') "
        "ORDER BY g.visit_date, g.expected_arrival, g.guest_ref LIMIT ?",
        (ref, ref, dfrom, dfrom, dto, dto, host_id, host_id, status, status, pattern, pattern, limit))


@tool
def list_events(db: Db, date_from: str | None = None, date_to: str | None = None,
                category: Literal["networking", "workshop", "talk", "social", "wellness", "member_lunch"] | None = None,
                status: Literal["draft", "scheduled", "cancelled", "completed"] | None = None,
                query: str | None = None, limit: int = 20) -> list[dict]:
    """List community events by date range, category, status or words in the title, with seats taken.

    Args:
        date_from: first day, YYYY-MM-DD.
        date_to: last day, YYYY-MM-DD.
        category: only events of this category.
        status: only events with this status.
        query: words in the event title, e.g. "yoga".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    dfrom = _opt_date(date_from, "date_from")
    dto = _opt_date(date_to, "date_to")
    pattern = like_contains(query.strip()) if query is not None and query.strip() else None
    return db.query(
        "SELECT e.event_code, e.title, e.category, e.starts_at, e.ends_at, e.status, e.capacity, e.price_cents, "
        "e.members_only, r.name AS room_name, e.location_note, s.full_name AS host, "
        "(SELECT COALESCE(SUM(1 + v.plus_ones), 0) FROM event_rsvps v WHERE v.event_id = e.id "
        "AND v.status IN ('going', 'attended', 'no_show')) AS seats_taken, "
        "(SELECT COUNT(*) FROM event_rsvps v WHERE v.event_id = e.id AND v.status = 'waitlisted') AS waitlisted "
        "FROM events e LEFT JOIN meeting_rooms r ON r.id = e.room_id JOIN staff s ON s.id = e.host_staff_id "
        "WHERE (? IS NULL OR substr(e.starts_at, 1, 10) >= ?) AND (? IS NULL OR substr(e.starts_at, 1, 10) <= ?) "
        "AND (? IS NULL OR e.category = ?) AND (? IS NULL OR e.status = ?) AND (? IS NULL OR e.title LIKE ? ESCAPE '\\') "
        "ORDER BY e.starts_at, e.event_code LIMIT ?",
        (dfrom, dfrom, dto, dto, category, category, status, status, pattern, pattern, limit))


@tool
def get_event(db: Db, event_code: str) -> dict:
    """Show one event in full with its room or location, host, seats taken and the list of RSVPs.

    Args:
        event_code: the event's code, e.g. "EV-2603-021".
    """
    e = db.one(
        "SELECT e.id, e.event_code, e.title, e.description, e.category, e.starts_at, e.ends_at, e.status, e.capacity, "
        "e.price_cents, e.members_only, r.code AS room_code, r.name AS room_name, e.location_note, "
        "s.full_name AS host, s.email AS host_email, e.created_at, e.cancelled_at FROM events e "
        "LEFT JOIN meeting_rooms r ON r.id = e.room_id JOIN staff s ON s.id = e.host_staff_id WHERE e.event_code = ?",
        (event_code.strip().upper(),))
    if e is None:
        raise ToolError(f"no event {event_code!r}; use list_events to find event codes")
    rsvps = db.query(
        "SELECT m.member_number, m.full_name AS member_name, v.status, v.plus_ones, v.rsvp_at, v.cancelled_at "
        "FROM event_rsvps v JOIN members m ON m.id = v.member_id WHERE v.event_id = ? ORDER BY v.rsvp_at, v.id LIMIT 100",
        (e["id"],))
    seats = sum(1 + r["plus_ones"] for r in rsvps if r["status"] in ("going", "attended", "no_show"))
    counts = {}
    for r in rsvps:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    out = {k: e[k] for k in ("event_code", "title", "description", "category", "starts_at", "ends_at", "status",
                             "capacity", "price_cents", "room_code", "room_name", "location_note", "host",
                             "host_email", "created_at", "cancelled_at")}
    out["members_only"] = bool(e["members_only"])
    out["seats_taken"] = seats
    out["seats_left"] = max(0, e["capacity"] - seats)
    out["rsvp_counts"] = counts
    out["rsvps"] = rsvps
    return out


@tool
def search_invoices(db: Db, invoice_number: str | None = None, member: str | None = None,
                    status: Literal["draft", "issued", "partially_paid", "paid", "overdue", "void"] | None = None,
                    issued_from: str | None = None, issued_to: str | None = None, limit: int = 20) -> list[dict]:
    """Find invoices by number, member, status or issue-date range, with totals, amount paid and balance.

    Args:
        invoice_number: an invoice number, e.g. "INV-202603-00187".
        member: only this member's invoices (member number or email).
        status: only invoices with this status.
        issued_from: first issue date, YYYY-MM-DD.
        issued_to: last issue date, YYYY-MM-DD.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    member_id = _find_member(db, member)["id"] if member is not None and member.strip() else None
    number = invoice_number.strip().upper() if invoice_number is not None and invoice_number.strip() else None
    dfrom = _opt_date(issued_from, "issued_from")
    dto = _opt_date(issued_to, "issued_to")
    return db.query(
        "SELECT i.invoice_number, m.member_number, m.full_name AS member_name, i.period_start, i.period_end, "
        "i.issue_date, i.due_date, i.status, i.subtotal_cents, i.tax_cents, i.total_cents, i.amount_paid_cents, "
        "(i.total_cents - i.amount_paid_cents) AS balance_cents, i.paid_at, i.voided_at, i.void_reason "
        "FROM invoices i JOIN members m ON m.id = i.member_id WHERE (? IS NULL OR i.invoice_number = ?) "
        "AND (? IS NULL OR i.member_id = ?) AND (? IS NULL OR i.status = ?) AND (? IS NULL OR i.issue_date >= ?) "
        "AND (? IS NULL OR i.issue_date <= ?) ORDER BY i.issue_date DESC, i.invoice_number DESC LIMIT ?",
        (number, number, member_id, member_id, status, status, dfrom, dfrom, dto, dto, limit))


@tool
def get_invoice(db: Db, invoice_number: str) -> dict:
    """Show one invoice with its lines (what each charge is for) and every payment attempt against it.

    Args:
        invoice_number: the invoice number, e.g. "INV-202603-00187".
    """
    inv = db.one(
        "SELECT i.*, m.member_number, m.full_name AS member_name, m.email AS member_email FROM invoices i "
        "JOIN members m ON m.id = i.member_id WHERE i.invoice_number = ?", (invoice_number.strip().upper(),))
    if inv is None:
        raise ToolError(f"no invoice {invoice_number!r}; use search_invoices to find invoice numbers")
    lines = db.query(
        "SELECT l.line_type, l.description, l.quantity, l.unit_price_cents, l.amount_cents, ms.membership_ref, "
        "b.booking_ref, e.event_code FROM invoice_lines l LEFT JOIN memberships ms ON ms.id = l.membership_id "
        "LEFT JOIN room_bookings b ON b.id = l.room_booking_id LEFT JOIN events e ON e.id = l.event_id "
        "WHERE l.invoice_id = ? ORDER BY l.id", (inv["id"],))
    payments = db.query(
        "SELECT p.payment_ref, p.amount_cents, p.method, p.status, p.paid_at, s.full_name AS recorded_by, p.note "
        "FROM payments p LEFT JOIN staff s ON s.id = p.recorded_by_staff_id WHERE p.invoice_id = ? ORDER BY p.paid_at, p.id",
        (inv["id"],))
    out = {k: inv[k] for k in ("invoice_number", "member_number", "member_name", "member_email", "period_start",
                               "period_end", "issue_date", "due_date", "status", "subtotal_cents", "tax_cents",
                               "total_cents", "amount_paid_cents", "created_at", "paid_at", "voided_at", "void_reason")}
    out["balance_cents"] = inv["total_cents"] - inv["amount_paid_cents"]
    out["lines"] = lines
    out["payments"] = payments
    return out


@tool
def get_member_balance(db: Db, member: str) -> dict:
    """Show what a member owes: each unpaid invoice (issued, partially paid or overdue) with its balance,
    the total outstanding, the overdue part and the member's last completed payment.

    Args:
        member: the member number (e.g. "BC-10003") or the member's email.
    """
    m = _find_member(db, member)
    open_invoices = db.query(
        "SELECT invoice_number, period_start, period_end, issue_date, due_date, status, total_cents, amount_paid_cents, "
        "(total_cents - amount_paid_cents) AS balance_cents FROM invoices WHERE member_id = ? "
        "AND status IN ('issued', 'partially_paid', 'overdue') ORDER BY due_date, invoice_number", (m["id"],))
    last = db.one(
        "SELECT p.payment_ref, p.amount_cents, p.method, p.paid_at, i.invoice_number FROM payments p "
        "JOIN invoices i ON i.id = p.invoice_id WHERE p.member_id = ? AND p.status = 'completed' "
        "ORDER BY p.paid_at DESC, p.id DESC LIMIT 1", (m["id"],))
    total = sum(i["balance_cents"] for i in open_invoices)
    overdue = sum(i["balance_cents"] for i in open_invoices if i["status"] == "overdue")
    return {
        "member_number": m["member_number"],
        "full_name": m["full_name"],
        "status": m["status"],
        "open_invoices": open_invoices,
        "total_outstanding_cents": total,
        "overdue_cents": overdue,
        "last_payment": last,
    }


# ----------------------------------------------------------------- members and memberships (writes)

@tool(write=True, actor="staff_email")
def create_member(db: Db, staff_email: str, full_name: str, email: str, phone: str | None = None,
                  company_name: str | None = None, job_title: str | None = None, marketing_opt_in: bool = False,
                  notes: str | None = None) -> dict:
    """Sign up a new person as a member record (status prospect until a membership starts).

    Args:
        staff_email: the work email of the staff member doing the sign-up (the acting person).
        full_name: the new member's full name.
        email: the new member's email address (must not belong to another member).
        phone: the member's phone number.
        company_name: the member's company, if any.
        job_title: the member's job title.
        marketing_opt_in: whether the member agreed to marketing emails.
        notes: a note for the front desk about this member.
    """
    staff = _staff(db, staff_email, MEMBER_DESK_ROLES, "sign up members")
    name = _text(full_name, "member's full name")
    mail = _text(email, "member's email").lower()
    if not EMAIL_RE.match(mail):
        raise ToolError(f"{email!r} is not a valid email address")
    if db.one("SELECT member_number FROM members WHERE email = ?", (mail,)) is not None:
        raise ToolError(f"{mail} already belongs to a member; use search_members to find them")
    new_id = _next_id(db, db.value("SELECT MAX(id) FROM members", ()))
    number = f"BC-{10000 + new_id}"
    while db.value("SELECT COUNT(*) FROM members WHERE member_number = ?", (number,)):
        new_id += 1
        number = f"BC-{10000 + new_id}"
    now = now_iso(db)
    db.insert("members", {
        "id": new_id,
        "member_number": number,
        "full_name": name,
        "email": mail,
        "phone": _text(phone, "phone", False),
        "company_name": _text(company_name, "company name", False),
        "job_title": _text(job_title, "job title", False),
        "access_card_number": None,
        "status": "prospect",
        "joined_on": db.today().isoformat(),
        "cancelled_at": None,
        "marketing_opt_in": 1 if marketing_opt_in else 0,
        "notes": _text(notes, "notes", False),
        "created_by_staff_id": staff["id"],
        "created_at": now,
    })
    _log(db, "staff", staff["id"], new_id, "member", new_id, "created", {"member_number": number})
    return {"member_number": number, "full_name": name, "email": mail, "status": "prospect",
            "joined_on": db.today().isoformat(), "created_by": staff["full_name"]}


@tool(write=True, actor="member_email")
def update_member_profile(db: Db, member_email: str, phone: str | None = None, company_name: str | None = None,
                          job_title: str | None = None, marketing_opt_in: bool | None = None) -> dict:
    """A member updates their own contact details or marketing preference; fields left out stay as they are.

    Args:
        member_email: the email of the member making the change (the acting person).
        phone: the new phone number.
        company_name: the new company name.
        job_title: the new job title.
        marketing_opt_in: true to receive marketing emails, false to stop them.
    """
    m = _member_by_email(db, member_email)
    new_phone = _text(phone, "phone", False)
    new_company = _text(company_name, "company name", False)
    new_title = _text(job_title, "job title", False)
    if new_phone is None and new_company is None and new_title is None and marketing_opt_in is None:
        raise ToolError("give at least one field to change: phone, company_name, job_title or marketing_opt_in")
    opt = None if marketing_opt_in is None else (1 if marketing_opt_in else 0)
    db.execute(
        "UPDATE members SET phone = COALESCE(?, phone), company_name = COALESCE(?, company_name), "
        "job_title = COALESCE(?, job_title), marketing_opt_in = COALESCE(?, marketing_opt_in) WHERE id = ?",
        (new_phone, new_company, new_title, opt, m["id"]))
    changed = {k: v for k, v in (("phone", new_phone), ("company_name", new_company), ("job_title", new_title),
                                 ("marketing_opt_in", marketing_opt_in)) if v is not None}
    _log(db, "member", None, m["id"], "member", m["id"], "profile_updated", changed)
    row = db.one("SELECT member_number, full_name, email, phone, company_name, job_title, marketing_opt_in "
                 "FROM members WHERE id = ?", (m["id"],))
    row["marketing_opt_in"] = bool(row["marketing_opt_in"])
    row["changed"] = sorted(changed)
    return row


@tool(write=True, actor="staff_email")
def start_membership(db: Db, staff_email: str, member: str, plan_code: str, start_date: str,
                     discount_percent: int = 0) -> dict:
    """Start a membership on a plan for a member who has none running (a new sign-up or a returning member).
    It starts today (active) or on a later date (scheduled).

    Args:
        staff_email: the work email of the staff member setting it up (the acting person).
        member: the member number (e.g. "BC-10071") or the member's email.
        plan_code: the plan's code, e.g. "HOT-UNL" (see list_membership_plans).
        start_date: the first day of the membership, YYYY-MM-DD, today or later.
        discount_percent: an agreed discount on the monthly price, 0 to 100.
    """
    staff = _staff(db, staff_email, MEMBER_DESK_ROLES, "start memberships")
    m = _find_member(db, member)
    if m["status"] in ("active", "paused"):
        raise ToolError(f"{m['full_name']} is already {m['status']} on a membership; use change_membership_plan to move them to another plan")
    running = db.one("SELECT membership_ref, status, start_date FROM memberships WHERE member_id = ? "
                     "AND status IN ('active', 'paused', 'scheduled') ORDER BY start_date LIMIT 1", (m["id"],))
    if running is not None:
        raise ToolError(f"{m['full_name']} already has membership {running['membership_ref']} ({running['status']}, "
                        f"from {running['start_date']}); cancel it first or change its plan")
    plan = db.one("SELECT * FROM membership_plans WHERE code = ?", (plan_code.strip().upper(),))
    if plan is None:
        raise ToolError(f"no plan {plan_code!r}; use list_membership_plans to see plan codes")
    if plan["is_active"] != 1:
        raise ToolError(f"plan {plan['name']} is closed to new sign-ups; choose an active plan")
    start = _date(start_date, "start_date")
    today = db.today()
    if start < today:
        raise ToolError(f"a membership cannot start in the past; the earliest start is today ({today.isoformat()})")
    if start > today + timedelta(days=180):
        raise ToolError("a membership can be set up at most 180 days ahead")
    if discount_percent < 0 or discount_percent > 100:
        raise ToolError("discount_percent must be between 0 and 100")
    new_id = _next_id(db, db.value("SELECT MAX(id) FROM memberships", ()))
    ref = f"MS-{start.year}-{new_id:05d}"
    status = "active" if start == today else "scheduled"
    now = now_iso(db)
    db.insert("memberships", {
        "id": new_id,
        "membership_ref": ref,
        "member_id": m["id"],
        "plan_id": plan["id"],
        "status": status,
        "start_date": start.isoformat(),
        "end_date": None,
        "monthly_price_cents": plan["monthly_price_cents"],
        "discount_percent": discount_percent,
        "billing_day": min(start.day, 28),
        "created_by_staff_id": staff["id"],
        "created_at": now,
        "cancelled_at": None,
        "cancel_reason": None,
    })
    member_status = m["status"]
    if status == "active":
        member_status = "active"
        db.execute("UPDATE members SET status = 'active', cancelled_at = NULL WHERE id = ?", (m["id"],))
    elif m["status"] == "cancelled":
        member_status = "prospect"
        db.execute("UPDATE members SET status = 'prospect', cancelled_at = NULL WHERE id = ?", (m["id"],))
    _log(db, "staff", staff["id"], m["id"], "membership", new_id, "created",
         {"plan": plan["code"], "start_date": start.isoformat(), "status": status})
    return {"membership_ref": ref, "member_number": m["member_number"], "member_name": m["full_name"],
            "plan": plan["name"], "status": status, "start_date": start.isoformat(),
            "monthly_price_cents": plan["monthly_price_cents"], "discount_percent": discount_percent,
            "setup_fee_cents": plan["setup_fee_cents"], "billing_day": min(start.day, 28),
            "member_status": member_status}


@tool(write=True, actor="staff_email")
def change_membership_plan(db: Db, staff_email: str, member: str, new_plan_code: str, effective_date: str,
                           discount_percent: int | None = None) -> dict:
    """Move a member with an active membership to another plan from a future date: the current membership
    ends the day before and a new scheduled membership starts on that date.

    Args:
        staff_email: the work email of the staff member making the change (the acting person).
        member: the member number (e.g. "BC-10003") or the member's email.
        new_plan_code: the code of the plan to move to, e.g. "DED-STD".
        effective_date: the first day on the new plan, YYYY-MM-DD, after today.
        discount_percent: the discount on the new plan, 0 to 100; left out keeps the current discount.
    """
    staff = _staff(db, staff_email, MEMBER_DESK_ROLES, "change membership plans")
    m = _find_member(db, member)
    cur = db.one(
        "SELECT ms.*, p.code AS plan_code, p.name AS plan_name FROM memberships ms JOIN membership_plans p "
        "ON p.id = ms.plan_id WHERE ms.member_id = ? AND ms.status = 'active' ORDER BY ms.start_date DESC LIMIT 1",
        (m["id"],))
    if cur is None:
        raise ToolError(f"{m['full_name']} has no active membership to change; use start_membership instead")
    pending = db.one("SELECT membership_ref, start_date FROM memberships WHERE member_id = ? AND status = 'scheduled'",
                     (m["id"],))
    if pending is not None:
        raise ToolError(f"{m['full_name']} already has a scheduled membership {pending['membership_ref']} starting "
                        f"{pending['start_date']}; cancel it with cancel_membership before planning another change")
    plan = db.one("SELECT * FROM membership_plans WHERE code = ?", (new_plan_code.strip().upper(),))
    if plan is None:
        raise ToolError(f"no plan {new_plan_code!r}; use list_membership_plans to see plan codes")
    if plan["is_active"] != 1:
        raise ToolError(f"plan {plan['name']} is closed to new sign-ups; choose an active plan")
    if plan["id"] == cur["plan_id"]:
        raise ToolError(f"{m['full_name']} is already on {plan['name']}")
    eff = _date(effective_date, "effective_date")
    today = db.today()
    if eff <= today:
        raise ToolError(f"a plan change takes effect after today ({today.isoformat()}); give a later effective_date")
    if eff > today + timedelta(days=365):
        raise ToolError("a plan change can be planned at most a year ahead")
    if cur["end_date"] is not None and cur["end_date"] < (eff - timedelta(days=1)).isoformat():
        raise ToolError(f"membership {cur['membership_ref']} already ends on {cur['end_date']}, before {eff.isoformat()}")
    disc = cur["discount_percent"] if discount_percent is None else discount_percent
    if disc < 0 or disc > 100:
        raise ToolError("discount_percent must be between 0 and 100")
    last_day = (eff - timedelta(days=1)).isoformat()
    db.execute("UPDATE memberships SET end_date = ? WHERE id = ?", (last_day, cur["id"]))
    new_id = _next_id(db, db.value("SELECT MAX(id) FROM memberships", ()))
    ref = f"MS-{eff.year}-{new_id:05d}"
    db.insert("memberships", {
        "id": new_id,
        "membership_ref": ref,
        "member_id": m["id"],
        "plan_id": plan["id"],
        "status": "scheduled",
        "start_date": eff.isoformat(),
        "end_date": None,
        "monthly_price_cents": plan["monthly_price_cents"],
        "discount_percent": disc,
        "billing_day": min(eff.day, 28),
        "created_by_staff_id": staff["id"],
        "created_at": now_iso(db),
        "cancelled_at": None,
        "cancel_reason": None,
    })
    _log(db, "staff", staff["id"], m["id"], "membership", new_id, "created",
         {"plan": plan["code"], "start_date": eff.isoformat(), "status": "scheduled", "replaces": cur["membership_ref"]})
    return {"member_number": m["member_number"], "member_name": m["full_name"],
            "current_membership": {"membership_ref": cur["membership_ref"], "plan": cur["plan_name"], "ends_on": last_day},
            "new_membership": {"membership_ref": ref, "plan": plan["name"], "status": "scheduled",
                               "start_date": eff.isoformat(), "monthly_price_cents": plan["monthly_price_cents"],
                               "discount_percent": disc}}


@tool(write=True, actor="staff_email")
def cancel_membership(db: Db, staff_email: str, membership_ref: str, reason: str, end_date: str | None = None) -> dict:
    """Cancel a membership. An active or paused one keeps access until its end date; a scheduled one is
    called off before it starts (a called-off plan change leaves the current membership running).

    Args:
        staff_email: the work email of the staff member recording the cancellation (the acting person).
        membership_ref: the membership reference, e.g. "MS-2025-00047".
        reason: why the membership is cancelled, in the member's words.
        end_date: the last day of access, YYYY-MM-DD, today or later (active or paused memberships; default today).
    """
    staff = _staff(db, staff_email, MEMBER_DESK_ROLES, "cancel memberships")
    ms = db.one(
        "SELECT ms.*, p.name AS plan_name, m.full_name, m.member_number FROM memberships ms "
        "JOIN membership_plans p ON p.id = ms.plan_id JOIN members m ON m.id = ms.member_id WHERE ms.membership_ref = ?",
        (membership_ref.strip().upper(),))
    if ms is None:
        raise ToolError(f"no membership {membership_ref!r}; get_member lists a member's memberships")
    if ms["status"] not in ("active", "paused", "scheduled"):
        raise ToolError(f"membership {ms['membership_ref']} is already {ms['status']}")
    why = _text(reason, "reason for the cancellation")
    now = now_iso(db)
    today = db.today()
    if ms["status"] == "scheduled":
        if end_date is not None:
            raise ToolError("a scheduled membership has not started; leave end_date out to call it off")
        db.execute("UPDATE memberships SET status = 'cancelled', cancelled_at = ?, cancel_reason = ? WHERE id = ?",
                   (now, why, ms["id"]))
        reopened = None
        prev = db.one("SELECT id, membership_ref FROM memberships WHERE member_id = ? AND status = 'active' AND end_date = ?",
                      (ms["member_id"], (date.fromisoformat(ms["start_date"]) - timedelta(days=1)).isoformat()))
        if prev is not None:
            db.execute("UPDATE memberships SET end_date = NULL WHERE id = ?", (prev["id"],))
            reopened = prev["membership_ref"]
        _log(db, "staff", staff["id"], ms["member_id"], "membership", ms["id"], "cancelled", {"reason": why})
        return {"membership_ref": ms["membership_ref"], "member_name": ms["full_name"], "plan": ms["plan_name"],
                "status": "cancelled", "cancelled_at": now, "cancel_reason": why, "continues_membership": reopened}
    end = today if end_date is None else _date(end_date, "end_date")
    if end < today:
        raise ToolError(f"the end date cannot be in the past; the earliest is today ({today.isoformat()})")
    if end.isoformat() < ms["start_date"]:
        raise ToolError(f"the end date is before the membership started ({ms['start_date']})")
    db.execute("UPDATE memberships SET status = 'cancelled', end_date = ?, cancelled_at = ?, cancel_reason = ? WHERE id = ?",
               (end.isoformat(), now, why, ms["id"]))
    _log(db, "staff", staff["id"], ms["member_id"], "membership", ms["id"], "cancelled",
         {"reason": why, "end_date": end.isoformat()})
    return {"membership_ref": ms["membership_ref"], "member_name": ms["full_name"], "plan": ms["plan_name"],
            "status": "cancelled", "end_date": end.isoformat(), "cancelled_at": now, "cancel_reason": why}


@tool(write=True, actor="staff_email")
def pause_membership(db: Db, staff_email: str, member: str, reason: str) -> dict:
    """Pause a member's active membership (for example a long trip); the member's status becomes paused.

    Args:
        staff_email: the work email of the staff member recording the pause (the acting person).
        member: the member number (e.g. "BC-10003") or the member's email.
        reason: why the membership is paused.
    """
    staff = _staff(db, staff_email, MEMBER_DESK_ROLES, "pause memberships")
    m = _find_member(db, member)
    why = _text(reason, "reason for the pause")
    ms = db.one(
        "SELECT ms.id, ms.membership_ref, p.name AS plan_name FROM memberships ms JOIN membership_plans p "
        "ON p.id = ms.plan_id WHERE ms.member_id = ? AND ms.status = 'active' ORDER BY ms.start_date DESC LIMIT 1",
        (m["id"],))
    if ms is None:
        raise ToolError(f"{m['full_name']} has no active membership to pause (member status: {m['status']})")
    held = db.one("SELECT assignment_ref FROM space_assignments WHERE membership_id = ? AND status = 'active'", (ms["id"],))
    if held is not None:
        raise ToolError(f"membership {ms['membership_ref']} holds space assignment {held['assignment_ref']}; "
                        f"end that assignment first with end_space_assignment")
    db.execute("UPDATE memberships SET status = 'paused' WHERE id = ?", (ms["id"],))
    db.execute("UPDATE members SET status = 'paused' WHERE id = ?", (m["id"],))
    _log(db, "staff", staff["id"], m["id"], "membership", ms["id"], "paused", {"reason": why})
    return {"member_number": m["member_number"], "member_name": m["full_name"], "membership_ref": ms["membership_ref"],
            "plan": ms["plan_name"], "membership_status": "paused", "member_status": "paused", "reason": why}


# ----------------------------------------------------------------- desks and offices (writes)

@tool(write=True, actor="staff_email")
def assign_space(db: Db, staff_email: str, member: str, space_code: str, start_date: str | None = None) -> dict:
    """Assign a dedicated desk or a private office to a member whose membership plan includes one.

    Args:
        staff_email: the work email of the staff member making the assignment (the acting person).
        member: the member number (e.g. "BC-10003") or the member's email.
        space_code: the desk code (e.g. "2W-04") or the office code (e.g. "PO-203").
        start_date: the first day, YYYY-MM-DD, today or later; default today or the membership's start.
    """
    staff = _staff(db, staff_email, SPACE_ROLES, "assign desks and offices")
    m = _find_member(db, member)
    code = space_code.strip().upper()
    desk = db.one("SELECT * FROM desks WHERE code = ?", (code,))
    office = None if desk is not None else db.one("SELECT * FROM private_offices WHERE code = ?", (code,))
    if desk is None and office is None:
        raise ToolError(f"no desk or office {space_code!r}; use list_desks or list_private_offices")
    wanted = "dedicated_desk" if desk is not None else "private_office"
    if desk is not None:
        if desk["desk_type"] != "dedicated_desk":
            raise ToolError(f"desk {desk['code']} is a hot desk (first come, first served) and cannot be assigned")
        if desk["status"] != "in_service":
            raise ToolError(f"desk {desk['code']} is out of service")
    elif office["status"] == "maintenance":
        raise ToolError(f"office {office['code']} is under maintenance")
    ms = db.one(
        "SELECT ms.*, p.name AS plan_name, p.plan_type FROM memberships ms JOIN membership_plans p ON p.id = ms.plan_id "
        "WHERE ms.member_id = ? AND ms.status IN ('active', 'scheduled') AND p.plan_type = ? ORDER BY ms.start_date LIMIT 1",
        (m["id"], wanted))
    if ms is None:
        kind = "Dedicated Desk" if desk is not None else "Private Office"
        raise ToolError(f"{m['full_name']} has no active or scheduled {kind} membership; change their plan first")
    if db.one("SELECT id FROM space_assignments WHERE membership_id = ? AND status IN ('active', 'scheduled')",
              (ms["id"],)) is not None:
        raise ToolError(f"membership {ms['membership_ref']} already has a desk or office; end that assignment first")
    today = db.today()
    if start_date is None:
        start = max(today, date.fromisoformat(ms["start_date"]))
    else:
        start = _date(start_date, "start_date")
    if start < today:
        raise ToolError(f"an assignment cannot start in the past; the earliest is today ({today.isoformat()})")
    if start.isoformat() < ms["start_date"]:
        raise ToolError(f"membership {ms['membership_ref']} starts on {ms['start_date']}; the assignment cannot start earlier")
    if ms["end_date"] is not None and start.isoformat() > ms["end_date"]:
        raise ToolError(f"membership {ms['membership_ref']} ends on {ms['end_date']}")
    if desk is not None:
        clash = db.one(
            "SELECT sa.assignment_ref, sa.start_date, sa.end_date, m.full_name FROM space_assignments sa "
            "JOIN members m ON m.id = sa.member_id WHERE sa.desk_id = ? AND sa.status IN ('active', 'scheduled') "
            "AND (sa.end_date IS NULL OR sa.end_date >= ?) LIMIT 1", (desk["id"], start.isoformat()))
    else:
        clash = db.one(
            "SELECT sa.assignment_ref, sa.start_date, sa.end_date, m.full_name FROM space_assignments sa "
            "JOIN members m ON m.id = sa.member_id WHERE sa.office_id = ? AND sa.status IN ('active', 'scheduled') "
            "AND (sa.end_date IS NULL OR sa.end_date >= ?) LIMIT 1", (office["id"], start.isoformat()))
    if clash is not None:
        until = clash["end_date"] or "open-ended"
        raise ToolError(f"{code} is held by {clash['full_name']} ({clash['assignment_ref']}, from {clash['start_date']}, "
                        f"until {until}); pick another space")
    status = "active" if start == today else "scheduled"
    new_id = _next_id(db, db.value("SELECT MAX(id) FROM space_assignments", ()))
    ref = f"SA-{new_id:05d}"
    db.insert("space_assignments", {
        "id": new_id,
        "assignment_ref": ref,
        "member_id": m["id"],
        "membership_id": ms["id"],
        "desk_id": desk["id"] if desk is not None else None,
        "office_id": office["id"] if office is not None else None,
        "start_date": start.isoformat(),
        "end_date": ms["end_date"],
        "status": status,
        "created_by_staff_id": staff["id"],
        "created_at": now_iso(db),
        "ended_at": None,
    })
    if office is not None:
        if status == "active":
            db.execute("UPDATE private_offices SET status = 'occupied' WHERE id = ?", (office["id"],))
        elif office["status"] == "available":
            db.execute("UPDATE private_offices SET status = 'reserved' WHERE id = ?", (office["id"],))
    _log(db, "staff", staff["id"], m["id"], "space_assignment", new_id, "created",
         {"space": code, "start_date": start.isoformat()})
    return {"assignment_ref": ref, "member_number": m["member_number"], "member_name": m["full_name"],
            "space_code": code, "space_kind": "desk" if desk is not None else "office",
            "membership_ref": ms["membership_ref"], "start_date": start.isoformat(), "end_date": ms["end_date"],
            "status": status}


@tool(write=True, actor="staff_email")
def end_space_assignment(db: Db, staff_email: str, assignment_ref: str, end_date: str | None = None) -> dict:
    """End a member's desk or office assignment on a date (today ends it now), or call off one that has not started.

    Args:
        staff_email: the work email of the staff member ending it (the acting person).
        assignment_ref: the assignment reference, e.g. "SA-00012" (get_member lists them).
        end_date: the last day the member keeps the space, YYYY-MM-DD, today or later; default today.
    """
    staff = _staff(db, staff_email, SPACE_ROLES, "end desk and office assignments")
    sa = db.one(
        "SELECT sa.*, m.full_name, m.member_number, d.code AS desk_code, o.code AS office_code FROM space_assignments sa "
        "JOIN members m ON m.id = sa.member_id LEFT JOIN desks d ON d.id = sa.desk_id "
        "LEFT JOIN private_offices o ON o.id = sa.office_id WHERE sa.assignment_ref = ?",
        (assignment_ref.strip().upper(),))
    if sa is None:
        raise ToolError(f"no space assignment {assignment_ref!r}; get_member lists a member's assignments")
    if sa["status"] not in ("active", "scheduled"):
        raise ToolError(f"assignment {sa['assignment_ref']} is already {sa['status']}")
    today = db.today()
    now = now_iso(db)
    code = sa["desk_code"] or sa["office_code"]
    if sa["status"] == "scheduled":
        if end_date is not None:
            raise ToolError("this assignment has not started; leave end_date out to call it off")
        db.execute("UPDATE space_assignments SET status = 'cancelled', ended_at = ? WHERE id = ?", (now, sa["id"]))
        new_status = "cancelled"
        end_iso = None
    else:
        end = today if end_date is None else _date(end_date, "end_date")
        if end < today:
            raise ToolError(f"the end date cannot be in the past; the earliest is today ({today.isoformat()})")
        if end.isoformat() < sa["start_date"]:
            raise ToolError(f"the assignment started on {sa['start_date']}; the end date cannot be earlier")
        end_iso = end.isoformat()
        if end == today:
            db.execute("UPDATE space_assignments SET status = 'ended', end_date = ?, ended_at = ? WHERE id = ?",
                       (end_iso, now, sa["id"]))
            new_status = "ended"
        else:
            db.execute("UPDATE space_assignments SET end_date = ? WHERE id = ?", (end_iso, sa["id"]))
            new_status = "active"
    if sa["office_id"] is not None and new_status in ("ended", "cancelled"):
        other = db.one("SELECT status FROM space_assignments WHERE office_id = ? AND status IN ('active', 'scheduled') "
                       "AND id != ? ORDER BY status LIMIT 1", (sa["office_id"], sa["id"]))
        if other is None:
            db.execute("UPDATE private_offices SET status = 'available' WHERE id = ? AND status IN ('occupied', 'reserved')",
                       (sa["office_id"],))
        elif other["status"] == "scheduled":
            db.execute("UPDATE private_offices SET status = 'reserved' WHERE id = ? AND status = 'occupied'",
                       (sa["office_id"],))
    _log(db, "staff", staff["id"], sa["member_id"], "space_assignment", sa["id"],
         "ended" if new_status != "cancelled" else "cancelled", {"space": code, "end_date": end_iso})
    return {"assignment_ref": sa["assignment_ref"], "member_name": sa["full_name"], "space_code": code,
            "status": new_status, "end_date": end_iso}


# ----------------------------------------------------------------- meeting rooms (writes)

@tool(write=True, actor="member_email")
def book_meeting_room(db: Db, member_email: str, room_code: str, start_at: str, end_at: str, title: str,
                      attendee_count: int) -> dict:
    """A member books a meeting room for themselves. Plan meeting credits for that month are used first;
    time beyond them is charged at the room's hourly rate on the next invoice.

    Args:
        member_email: the email of the member booking (the acting person).
        room_code: the room's code (e.g. "MR-02") or name.
        start_at: start date and time, e.g. "2026-03-06T10:00".
        end_at: end date and time on the same day, e.g. "2026-03-06T11:30".
        title: what the meeting is, e.g. "Client pitch".
        attendee_count: how many people will attend, including the member.
    """
    m = _member_by_email(db, member_email)
    if m["status"] != "active":
        raise ToolError(f"{m['full_name']}'s membership status is {m['status']}; only active members can book rooms")
    room = _room(db, room_code)
    if room["is_bookable"] != 1:
        raise ToolError(f"room {room['name']} is not open for booking at the moment; choose another room")
    what = _text(title, "meeting title")
    start = _datetime(start_at, "start_at")
    end = _datetime(end_at, "end_at")
    _validate_slot(db, start, end)
    if attendee_count < 1:
        raise ToolError("attendee_count must be at least 1")
    if attendee_count > room["capacity"]:
        raise ToolError(f"room {room['name']} seats {room['capacity']}; choose a larger room for {attendee_count} people")
    s_iso, e_iso = _iso(start), _iso(end)
    clash = _room_conflict(db, room["id"], s_iso, e_iso, 0)
    if clash is not None:
        raise ToolError(f"room {room['name']} is taken by {clash}; see get_room_schedule for free times")
    own = db.one("SELECT booking_ref FROM room_bookings WHERE member_id = ? AND status = 'confirmed' AND start_at < ? "
                 "AND end_at > ? LIMIT 1", (m["id"], e_iso, s_iso))
    if own is not None:
        raise ToolError(f"you already have booking {own['booking_ref']} at that time")
    price = _price_booking(db, m["id"], room, start, end, 0)
    new_id = _next_id(db, db.value("SELECT MAX(id) FROM room_bookings", ()))
    ref = f"RB-{start.strftime('%y%m')}-{new_id:05d}"
    db.insert("room_bookings", {
        "id": new_id,
        "booking_ref": ref,
        "room_id": room["id"],
        "member_id": m["id"],
        "booked_by_staff_id": None,
        "title": what,
        "start_at": s_iso,
        "end_at": e_iso,
        "attendee_count": attendee_count,
        "status": "confirmed",
        "credit_minutes_used": price["credit"],
        "charge_cents": price["charge"],
        "created_at": now_iso(db),
        "cancelled_at": None,
        "cancel_reason": None,
    })
    _log(db, "member", None, m["id"], "room_booking", new_id, "created",
         {"room": room["code"], "start_at": s_iso, "end_at": e_iso})
    out = _booking_view(db, new_id)
    out["credit_minutes_left_this_month"] = max(0, price["allowance"] - price["used_before"] - price["credit"])
    return out


@tool(write=True, actor="member_email")
def cancel_room_booking(db: Db, member_email: str, booking_ref: str, reason: str) -> dict:
    """A member cancels one of their own upcoming room bookings; its credits and charge are released.

    Args:
        member_email: the email of the member who made the booking (the acting person).
        booking_ref: the booking reference, e.g. "RB-2603-00231".
        reason: why it is cancelled.
    """
    m = _member_by_email(db, member_email)
    b = db.one("SELECT id, booking_ref, member_id, status, start_at, credit_minutes_used, charge_cents FROM room_bookings "
               "WHERE booking_ref = ?", (booking_ref.strip().upper(),))
    if b is None:
        raise ToolError(f"no booking {booking_ref!r}; use search_room_bookings to find your bookings")
    if b["member_id"] != m["id"]:
        raise ToolError(f"booking {b['booking_ref']} was not made by {m['email']}; members can cancel only their own bookings")
    if b["status"] != "confirmed":
        raise ToolError(f"booking {b['booking_ref']} is {b['status']}; only confirmed bookings can be cancelled")
    if b["start_at"] <= now_iso(db):
        raise ToolError(f"booking {b['booking_ref']} started at {b['start_at']}; it can no longer be cancelled")
    why = _text(reason, "reason for the cancellation")
    now = now_iso(db)
    db.execute("UPDATE room_bookings SET status = 'cancelled', cancelled_at = ?, cancel_reason = ?, "
               "credit_minutes_used = 0, charge_cents = 0 WHERE id = ?", (now, why, b["id"]))
    _log(db, "member", None, m["id"], "room_booking", b["id"], "cancelled", {"reason": why})
    out = _booking_view(db, b["id"])
    out["credit_minutes_released"] = b["credit_minutes_used"]
    return out


@tool(write=True, actor="member_email")
def reschedule_room_booking(db: Db, member_email: str, booking_ref: str, new_start_at: str, new_end_at: str,
                            new_room_code: str | None = None) -> dict:
    """A member moves one of their own upcoming bookings to a new time (and optionally another room);
    credits and charge are worked out again.

    Args:
        member_email: the email of the member who made the booking (the acting person).
        booking_ref: the booking reference, e.g. "RB-2603-00231".
        new_start_at: the new start, e.g. "2026-03-09T14:00".
        new_end_at: the new end on the same day, e.g. "2026-03-09T15:00".
        new_room_code: another room's code or name; left out keeps the same room.
    """
    m = _member_by_email(db, member_email)
    b = db.one("SELECT * FROM room_bookings WHERE booking_ref = ?", (booking_ref.strip().upper(),))
    if b is None:
        raise ToolError(f"no booking {booking_ref!r}; use search_room_bookings to find your bookings")
    if b["member_id"] != m["id"]:
        raise ToolError(f"booking {b['booking_ref']} was not made by {m['email']}; members can move only their own bookings")
    if b["status"] != "confirmed":
        raise ToolError(f"booking {b['booking_ref']} is {b['status']}; only confirmed bookings can be moved")
    if b["start_at"] <= now_iso(db):
        raise ToolError(f"booking {b['booking_ref']} has already started; it can no longer be moved")
    if new_room_code is not None and new_room_code.strip():
        room = _room(db, new_room_code)
    else:
        room = db.one("SELECT * FROM meeting_rooms WHERE id = ?", (b["room_id"],))
    if room["is_bookable"] != 1:
        raise ToolError(f"room {room['name']} is not open for booking at the moment; choose another room")
    if b["attendee_count"] > room["capacity"]:
        raise ToolError(f"room {room['name']} seats {room['capacity']} but the booking is for {b['attendee_count']} people")
    start = _datetime(new_start_at, "new_start_at")
    end = _datetime(new_end_at, "new_end_at")
    _validate_slot(db, start, end)
    s_iso, e_iso = _iso(start), _iso(end)
    if s_iso == b["start_at"] and e_iso == b["end_at"] and room["id"] == b["room_id"]:
        raise ToolError("that is the booking's current time and room; give a different time or room")
    clash = _room_conflict(db, room["id"], s_iso, e_iso, b["id"])
    if clash is not None:
        raise ToolError(f"room {room['name']} is taken by {clash}; see get_room_schedule for free times")
    own = db.one("SELECT booking_ref FROM room_bookings WHERE member_id = ? AND status = 'confirmed' AND start_at < ? "
                 "AND end_at > ? AND id != ? LIMIT 1", (m["id"], e_iso, s_iso, b["id"]))
    if own is not None:
        raise ToolError(f"you already have booking {own['booking_ref']} at that time")
    price = _price_booking(db, m["id"], room, start, end, b["id"])
    db.execute("UPDATE room_bookings SET room_id = ?, start_at = ?, end_at = ?, credit_minutes_used = ?, charge_cents = ? "
               "WHERE id = ?", (room["id"], s_iso, e_iso, price["credit"], price["charge"], b["id"]))
    _log(db, "member", None, m["id"], "room_booking", b["id"], "rescheduled",
         {"from": b["start_at"], "to": s_iso, "room": room["code"]})
    out = _booking_view(db, b["id"])
    out["previous_start_at"] = b["start_at"]
    out["previous_end_at"] = b["end_at"]
    return out


# ----------------------------------------------------------------- day passes (writes)

@tool(write=True, actor="staff_email")
def sell_day_pass(db: Db, staff_email: str, product_code: str, visitor_name: str, visitor_email: str,
                  valid_from: str, payment_method: Literal["card", "cash", "online"],
                  visitor_phone: str | None = None, referred_by_member: str | None = None) -> dict:
    """Sell a day pass or multi-day pack to a visitor at the front desk.

    Args:
        staff_email: the work email of the staff member selling it (the acting person).
        product_code: the pass product's code, e.g. "DAY" (see list_pass_products).
        visitor_name: the visitor's full name.
        visitor_email: the visitor's email address.
        valid_from: the day of the visit (single-day passes) or the first valid day of a pack, YYYY-MM-DD.
        payment_method: how the visitor paid.
        visitor_phone: the visitor's phone number.
        referred_by_member: the member who referred the visitor (member number or email), if any.
    """
    staff = _staff(db, staff_email, PASS_ROLES, "sell day passes")
    prod = db.one("SELECT * FROM pass_products WHERE code = ?", (product_code.strip().upper(),))
    if prod is None:
        raise ToolError(f"no pass product {product_code!r}; use list_pass_products to see codes")
    if prod["is_active"] != 1:
        raise ToolError(f"{prod['name']} is no longer sold; choose an active product")
    name = _text(visitor_name, "visitor's name")
    mail = _text(visitor_email, "visitor's email").lower()
    if not EMAIL_RE.match(mail):
        raise ToolError(f"{visitor_email!r} is not a valid email address")
    start = _date(valid_from, "valid_from")
    today = db.today()
    if start < today:
        raise ToolError(f"a pass cannot start in the past; the earliest is today ({today.isoformat()})")
    if start > today + timedelta(days=60):
        raise ToolError("passes can be sold at most 60 days ahead")
    if prod["pass_kind"] == "multi_day_pack":
        until = start + timedelta(days=PACK_VALID_DAYS)
    else:
        _open_day_check(db, start)
        until = start
    referrer = None
    if referred_by_member is not None and referred_by_member.strip():
        referrer = _find_member(db, referred_by_member)
    new_id = _next_id(db, db.value("SELECT MAX(id) FROM day_passes", ()))
    code = f"DP-N{new_id:05d}"
    while db.value("SELECT COUNT(*) FROM day_passes WHERE pass_code = ?", (code,)):
        new_id += 1
        code = f"DP-N{new_id:05d}"
    now = now_iso(db)
    db.insert("day_passes", {
        "id": new_id,
        "pass_code": code,
        "pass_product_id": prod["id"],
        "visitor_name": name,
        "visitor_email": mail,
        "visitor_phone": _text(visitor_phone, "visitor phone", False),
        "referred_by_member_id": referrer["id"] if referrer is not None else None,
        "valid_from": start.isoformat(),
        "valid_until": until.isoformat(),
        "days_remaining": prod["days_included"],
        "price_cents": prod["price_cents"],
        "payment_method": payment_method,
        "status": "issued",
        "sold_by_staff_id": staff["id"],
        "sold_at": now,
        "last_checked_in_at": None,
        "cancelled_at": None,
        "refunded_cents": 0,
    })
    _log(db, "staff", staff["id"], referrer["id"] if referrer is not None else None, "day_pass", new_id, "sold",
         {"pass_code": code, "product": prod["code"], "price_cents": prod["price_cents"]})
    return {"pass_code": code, "product": prod["name"], "visitor_name": name, "visitor_email": mail,
            "valid_from": start.isoformat(), "valid_until": until.isoformat(), "days_remaining": prod["days_included"],
            "price_cents": prod["price_cents"], "payment_method": payment_method, "status": "issued",
            "sold_by": staff["full_name"]}


@tool(write=True, actor="staff_email")
def check_in_day_pass(db: Db, staff_email: str, pass_code: str) -> dict:
    """Check a visitor in on their day pass for today; one day is used from the pass.

    Args:
        staff_email: the work email of the front-desk staff member checking them in (the acting person).
        pass_code: the pass code, e.g. "DP-4L5BTS".
    """
    staff = _staff(db, staff_email, PASS_ROLES, "check in day passes")
    p = db.one("SELECT dp.*, pp.name AS product_name FROM day_passes dp JOIN pass_products pp ON pp.id = dp.pass_product_id "
               "WHERE dp.pass_code = ?", (pass_code.strip().upper(),))
    if p is None:
        raise ToolError(f"no day pass {pass_code!r}; use search_day_passes with the visitor's name or email")
    today = db.today().isoformat()
    if p["status"] not in ("issued", "checked_in"):
        raise ToolError(f"pass {p['pass_code']} is {p['status']} and cannot be used")
    if p["last_checked_in_at"] is not None and p["last_checked_in_at"][:10] == today:
        raise ToolError(f"{p['visitor_name']} already checked in today at {p['last_checked_in_at'][11:16]}")
    if today < p["valid_from"]:
        raise ToolError(f"pass {p['pass_code']} is valid from {p['valid_from']}, not yet today")
    if today > p["valid_until"]:
        raise ToolError(f"pass {p['pass_code']} expired on {p['valid_until']}")
    if p["days_remaining"] < 1:
        raise ToolError(f"pass {p['pass_code']} has no days left")
    now = now_iso(db)
    db.execute("UPDATE day_passes SET status = 'checked_in', days_remaining = days_remaining - 1, last_checked_in_at = ? "
               "WHERE id = ?", (now, p["id"]))
    _log(db, "staff", staff["id"], None, "day_pass", p["id"], "checked_in", {"pass_code": p["pass_code"]})
    return {"pass_code": p["pass_code"], "product": p["product_name"], "visitor_name": p["visitor_name"],
            "status": "checked_in", "checked_in_at": now, "days_remaining": p["days_remaining"] - 1,
            "valid_until": p["valid_until"]}


@tool(write=True, actor="staff_email")
def cancel_day_pass(db: Db, staff_email: str, pass_code: str, refund_cents: int = 0) -> dict:
    """Cancel an unused day pass, optionally refunding money (a refund marks the pass refunded).

    Args:
        staff_email: the work email of the staff member cancelling it (the acting person).
        pass_code: the pass code, e.g. "DP-4L5BTS".
        refund_cents: the amount refunded to the visitor in cents, 0 to the price paid.
    """
    staff = _staff(db, staff_email, PASS_CANCEL_ROLES, "cancel or refund day passes")
    p = db.one("SELECT dp.*, pp.name AS product_name, pp.days_included FROM day_passes dp "
               "JOIN pass_products pp ON pp.id = dp.pass_product_id WHERE dp.pass_code = ?", (pass_code.strip().upper(),))
    if p is None:
        raise ToolError(f"no day pass {pass_code!r}; use search_day_passes with the visitor's name or email")
    if p["status"] != "issued" or p["days_remaining"] != p["days_included"]:
        raise ToolError(f"pass {p['pass_code']} is {p['status']} with {p['days_remaining']} of {p['days_included']} days left; "
                        f"only unused passes can be cancelled")
    if refund_cents < 0 or refund_cents > p["price_cents"]:
        raise ToolError(f"refund_cents must be between 0 and the price paid ({p['price_cents']})")
    status = "refunded" if refund_cents > 0 else "cancelled"
    now = now_iso(db)
    db.execute("UPDATE day_passes SET status = ?, cancelled_at = ?, refunded_cents = ? WHERE id = ?",
               (status, now, refund_cents, p["id"]))
    _log(db, "staff", staff["id"], None, "day_pass", p["id"], status, {"refunded_cents": refund_cents})
    return {"pass_code": p["pass_code"], "product": p["product_name"], "visitor_name": p["visitor_name"],
            "status": status, "price_cents": p["price_cents"], "refunded_cents": refund_cents, "cancelled_at": now}


# ----------------------------------------------------------------- guests (writes)

@tool(write=True, actor="member_email")
def register_guest(db: Db, member_email: str, guest_name: str, visit_date: str, expected_arrival: str | None = None,
                   guest_email: str | None = None, guest_company: str | None = None, purpose: str | None = None) -> dict:
    """A member registers a visiting guest. Guests within the plan's free guest passes for that month are
    complimentary; others carry the guest fee on the member's next invoice.

    Args:
        member_email: the email of the hosting member (the acting person).
        guest_name: the guest's full name.
        visit_date: the day of the visit, YYYY-MM-DD, today or later.
        expected_arrival: the expected arrival time, HH:MM (24-hour).
        guest_email: the guest's email address.
        guest_company: the guest's company.
        purpose: why the guest is visiting.
    """
    m = _member_by_email(db, member_email)
    if m["status"] != "active":
        raise ToolError(f"{m['full_name']}'s membership status is {m['status']}; only active members can host guests")
    name = _text(guest_name, "guest's name")
    d = _date(visit_date, "visit_date")
    today = db.today()
    if d < today:
        raise ToolError(f"the visit date is in the past; the earliest is today ({today.isoformat()})")
    if d > today + timedelta(days=60):
        raise ToolError("guests can be registered at most 60 days ahead")
    hours = _open_day_check(db, d)
    arrival = None
    if expected_arrival is not None and expected_arrival.strip():
        arrival = expected_arrival.strip()
        if not HHMM_RE.match(arrival):
            raise ToolError(f"expected_arrival must be a time like 09:30, got {expected_arrival!r}")
        if arrival < hours["opens_at"] or arrival >= hours["closes_at"]:
            raise ToolError(f"on {hours['day_name']}s the space is open {hours['opens_at']} to {hours['closes_at']}")
    mail = _text(guest_email, "guest email", False)
    if mail is not None:
        mail = mail.lower()
        if not EMAIL_RE.match(mail):
            raise ToolError(f"{guest_email!r} is not a valid email address")
    ms = _membership_on(db, m["id"], d)
    if ms is None:
        raise ToolError(f"{m['full_name']} has no membership running on {d.isoformat()}")
    used = db.value(
        "SELECT COUNT(*) FROM guest_registrations WHERE host_member_id = ? AND substr(visit_date, 1, 7) = ? "
        "AND is_complimentary = 1 AND status IN ('expected', 'checked_in', 'checked_out')",
        (m["id"], d.isoformat()[:7])) or 0
    allowance = ms["guest_passes_per_month"] or 0
    comp = used < allowance
    fee = 0 if comp else GUEST_FEE_CENTS
    new_id = _next_id(db, db.value("SELECT MAX(id) FROM guest_registrations", ()))
    ref = f"GR-{new_id:05d}"
    db.insert("guest_registrations", {
        "id": new_id,
        "guest_ref": ref,
        "host_member_id": m["id"],
        "guest_name": name,
        "guest_email": mail,
        "guest_company": _text(guest_company, "guest company", False),
        "visit_date": d.isoformat(),
        "expected_arrival": arrival,
        "purpose": _text(purpose, "purpose", False),
        "status": "expected",
        "is_complimentary": 1 if comp else 0,
        "fee_cents": fee,
        "registered_by_staff_id": None,
        "created_at": now_iso(db),
        "checked_in_at": None,
        "checked_out_at": None,
        "cancelled_at": None,
    })
    _log(db, "member", None, m["id"], "guest_registration", new_id, "registered",
         {"guest_name": name, "visit_date": d.isoformat()})
    return {"guest_ref": ref, "guest_name": name, "host": m["full_name"], "visit_date": d.isoformat(),
            "expected_arrival": arrival, "status": "expected", "is_complimentary": comp, "fee_cents": fee,
            "free_guest_passes_left_this_month": max(0, allowance - used - (1 if comp else 0))}


@tool(write=True, actor="member_email")
def cancel_guest_registration(db: Db, member_email: str, guest_ref: str) -> dict:
    """A member cancels a guest they registered who has not arrived yet; any fee is dropped.

    Args:
        member_email: the email of the hosting member (the acting person).
        guest_ref: the guest registration reference, e.g. "GR-00042".
    """
    m = _member_by_email(db, member_email)
    g = db.one("SELECT * FROM guest_registrations WHERE guest_ref = ?", (guest_ref.strip().upper(),))
    if g is None:
        raise ToolError(f"no guest registration {guest_ref!r}; use list_guest_registrations")
    if g["host_member_id"] != m["id"]:
        raise ToolError(f"guest {g['guest_ref']} was not registered by {m['email']}; members can cancel only their own guests")
    if g["status"] != "expected":
        raise ToolError(f"guest {g['guest_ref']} is {g['status']}; only expected guests can be cancelled")
    if g["visit_date"] < db.today().isoformat():
        raise ToolError(f"the visit on {g['visit_date']} is already past")
    now = now_iso(db)
    db.execute("UPDATE guest_registrations SET status = 'cancelled', cancelled_at = ?, is_complimentary = 0, fee_cents = 0 "
               "WHERE id = ?", (now, g["id"]))
    _log(db, "member", None, m["id"], "guest_registration", g["id"], "cancelled", {"guest_name": g["guest_name"]})
    return {"guest_ref": g["guest_ref"], "guest_name": g["guest_name"], "visit_date": g["visit_date"],
            "status": "cancelled", "cancelled_at": now}


@tool(write=True, actor="staff_email")
def check_in_guest(db: Db, staff_email: str, guest_ref: str) -> dict:
    """Check in a registered guest who has arrived today at the front desk.

    Args:
        staff_email: the work email of the staff member at the desk (the acting person).
        guest_ref: the guest registration reference, e.g. "GR-00042".
    """
    staff = _staff(db, staff_email, MEMBER_DESK_ROLES, "check in guests")
    g = db.one("SELECT g.*, m.full_name AS host_name FROM guest_registrations g JOIN members m ON m.id = g.host_member_id "
               "WHERE g.guest_ref = ?", (guest_ref.strip().upper(),))
    if g is None:
        raise ToolError(f"no guest registration {guest_ref!r}; use list_guest_registrations with today's date")
    if g["status"] != "expected":
        raise ToolError(f"guest {g['guest_ref']} is {g['status']}; only expected guests can be checked in")
    today = db.today().isoformat()
    if g["visit_date"] != today:
        raise ToolError(f"guest {g['guest_name']} is registered for {g['visit_date']}, not today ({today})")
    now = now_iso(db)
    db.execute("UPDATE guest_registrations SET status = 'checked_in', checked_in_at = ? WHERE id = ?", (now, g["id"]))
    _log(db, "staff", staff["id"], g["host_member_id"], "guest_registration", g["id"], "checked_in", None)
    return {"guest_ref": g["guest_ref"], "guest_name": g["guest_name"], "host": g["host_name"], "status": "checked_in",
            "checked_in_at": now, "is_complimentary": bool(g["is_complimentary"]), "fee_cents": g["fee_cents"]}


# ----------------------------------------------------------------- events (writes)

@tool(write=True, actor="staff_email")
def create_event(db: Db, staff_email: str, title: str,
                 category: Literal["networking", "workshop", "talk", "social", "wellness", "member_lunch"],
                 starts_at: str, ends_at: str, capacity: int, price_cents: int = 0, members_only: bool = False,
                 room_code: str | None = None, location_note: str | None = None, description: str | None = None,
                 publish: bool = True) -> dict:
    """Create a community event hosted by the acting staff member, in a meeting room or another location.

    Args:
        staff_email: the work email of the community or operations manager hosting it (the acting person).
        title: the event title.
        category: the kind of event.
        starts_at: start date and time, e.g. "2026-03-19T17:30".
        ends_at: end date and time on the same day, e.g. "2026-03-19T19:30".
        capacity: how many people can attend.
        price_cents: the ticket price in cents, 0 for free.
        members_only: whether only members may attend.
        room_code: a meeting room to hold it in (code or name); the room is blocked for that time.
        location_note: where it is held when not in a meeting room, e.g. "Rooftop terrace".
        description: a short description for members.
        publish: true to schedule it now, false to keep it as a draft.
    """
    staff = _staff(db, staff_email, EVENT_ROLES, "create events")
    name = _text(title, "event title")
    start = _datetime(starts_at, "starts_at")
    end = _datetime(ends_at, "ends_at")
    now = db.now().replace(tzinfo=None)
    if start <= now:
        raise ToolError("an event must start in the future")
    if end <= start:
        raise ToolError("the end time must be after the start time")
    _hours_check(db, start, end)
    if capacity < 1:
        raise ToolError("capacity must be at least 1")
    if price_cents < 0:
        raise ToolError("price_cents cannot be negative")
    place = _text(location_note, "location note", False)
    room = None
    if room_code is not None and room_code.strip():
        room = _room(db, room_code)
        if room["is_bookable"] != 1:
            raise ToolError(f"room {room['name']} is not available for use at the moment")
        if capacity > room["capacity"]:
            raise ToolError(f"room {room['name']} holds {room['capacity']} people; lower the capacity or pick a bigger room")
        clash = _room_conflict(db, room["id"], _iso(start), _iso(end), 0)
        if clash is not None:
            raise ToolError(f"room {room['name']} is taken by {clash}")
    elif place is None:
        raise ToolError("give either a room_code or a location_note saying where the event is held")
    new_id = _next_id(db, db.value("SELECT MAX(id) FROM events", ()))
    code = f"EV-{start.strftime('%y%m')}-{new_id:03d}"
    status = "scheduled" if publish else "draft"
    db.insert("events", {
        "id": new_id,
        "event_code": code,
        "title": name,
        "description": _text(description, "description", False),
        "category": category,
        "room_id": room["id"] if room is not None else None,
        "location_note": place,
        "host_staff_id": staff["id"],
        "starts_at": _iso(start),
        "ends_at": _iso(end),
        "capacity": capacity,
        "price_cents": price_cents,
        "members_only": 1 if members_only else 0,
        "status": status,
        "created_at": now_iso(db),
        "cancelled_at": None,
    })
    _log(db, "staff", staff["id"], None, "event", new_id, "created", {"title": name, "status": status})
    return {"event_code": code, "title": name, "category": category, "starts_at": _iso(start), "ends_at": _iso(end),
            "room": room["name"] if room is not None else None, "location_note": place, "capacity": capacity,
            "price_cents": price_cents, "members_only": members_only, "status": status, "host": staff["full_name"]}


@tool(write=True, actor="staff_email")
def cancel_event(db: Db, staff_email: str, event_code: str, reason: str) -> dict:
    """Cancel an upcoming event (its host or a community/operations manager); its RSVPs are cancelled with it.

    Args:
        staff_email: the work email of the staff member cancelling it (the acting person).
        event_code: the event's code, e.g. "EV-2603-021".
        reason: why the event is cancelled (recorded in the activity log).
    """
    staff = _staff(db, staff_email, ALL_ROLES, "cancel events")
    e = db.one("SELECT * FROM events WHERE event_code = ?", (event_code.strip().upper(),))
    if e is None:
        raise ToolError(f"no event {event_code!r}; use list_events to find event codes")
    if e["host_staff_id"] != staff["id"] and staff["role"] not in EVENT_ROLES:
        raise ToolError(f"only the event's host or a community/operations manager can cancel {e['event_code']}")
    if e["status"] not in ("draft", "scheduled"):
        raise ToolError(f"event {e['event_code']} is {e['status']} and cannot be cancelled")
    if e["starts_at"] <= now_iso(db):
        raise ToolError(f"event {e['event_code']} has already started")
    why = _text(reason, "reason for the cancellation")
    now = now_iso(db)
    db.execute("UPDATE events SET status = 'cancelled', cancelled_at = ? WHERE id = ?", (now, e["id"]))
    affected = db.execute("UPDATE event_rsvps SET status = 'cancelled', cancelled_at = ? WHERE event_id = ? "
                          "AND status IN ('going', 'waitlisted')", (now, e["id"]))
    _log(db, "staff", staff["id"], None, "event", e["id"], "cancelled", {"reason": why, "rsvps_cancelled": affected})
    return {"event_code": e["event_code"], "title": e["title"], "starts_at": e["starts_at"], "status": "cancelled",
            "cancelled_at": now, "reason": why, "rsvps_cancelled": affected}


@tool(write=True, actor="member_email")
def rsvp_to_event(db: Db, member_email: str, event_code: str, plus_ones: int = 0) -> dict:
    """A member signs up for an upcoming event; when the seats are full they go on the waitlist.

    Args:
        member_email: the email of the member signing up (the acting person).
        event_code: the event's code, e.g. "EV-2603-021".
        plus_ones: how many companions they bring, 0 to 2.
    """
    m = _member_by_email(db, member_email)
    e = db.one("SELECT * FROM events WHERE event_code = ?", (event_code.strip().upper(),))
    if e is None:
        raise ToolError(f"no event {event_code!r}; use list_events to find event codes")
    if e["status"] != "scheduled":
        raise ToolError(f"event {e['event_code']} is {e['status']}; only scheduled events take RSVPs")
    if e["starts_at"] <= now_iso(db):
        raise ToolError(f"event {e['event_code']} has already started")
    if m["status"] == "cancelled" or (e["members_only"] == 1 and m["status"] not in ("active", "paused")):
        raise ToolError(f"{e['title']} is for current members and {m['full_name']}'s status is {m['status']}")
    if plus_ones < 0 or plus_ones > 2:
        raise ToolError("plus_ones must be 0, 1 or 2")
    existing = db.one("SELECT id, status FROM event_rsvps WHERE event_id = ? AND member_id = ?", (e["id"], m["id"]))
    if existing is not None and existing["status"] in ("going", "waitlisted"):
        raise ToolError(f"you are already {existing['status']} for {e['title']}")
    seats = db.value("SELECT COALESCE(SUM(1 + plus_ones), 0) FROM event_rsvps WHERE event_id = ? AND status = 'going'",
                     (e["id"],)) or 0
    status = "going" if seats + 1 + plus_ones <= e["capacity"] else "waitlisted"
    now = now_iso(db)
    if existing is not None:
        db.execute("UPDATE event_rsvps SET status = ?, plus_ones = ?, rsvp_at = ?, cancelled_at = NULL WHERE id = ?",
                   (status, plus_ones, now, existing["id"]))
        rid = existing["id"]
    else:
        rid = db.insert("event_rsvps", {"event_id": e["id"], "member_id": m["id"], "status": status,
                                        "plus_ones": plus_ones, "rsvp_at": now, "cancelled_at": None})
    _log(db, "member", None, m["id"], "event_rsvp", rid, "rsvp_" + status, {"event_id": e["id"], "plus_ones": plus_ones})
    return {"event_code": e["event_code"], "title": e["title"], "starts_at": e["starts_at"], "member_name": m["full_name"],
            "status": status, "plus_ones": plus_ones, "price_cents": e["price_cents"] * (1 + plus_ones),
            "seats_left": max(0, e["capacity"] - seats - (1 + plus_ones if status == "going" else 0))}


@tool(write=True, actor="member_email")
def cancel_rsvp(db: Db, member_email: str, event_code: str) -> dict:
    """A member withdraws their own RSVP (going or waitlisted) from an upcoming event.

    Args:
        member_email: the email of the member withdrawing (the acting person).
        event_code: the event's code, e.g. "EV-2603-021".
    """
    m = _member_by_email(db, member_email)
    e = db.one("SELECT * FROM events WHERE event_code = ?", (event_code.strip().upper(),))
    if e is None:
        raise ToolError(f"no event {event_code!r}; use list_events to find event codes")
    r = db.one("SELECT id, status FROM event_rsvps WHERE event_id = ? AND member_id = ?", (e["id"], m["id"]))
    if r is None or r["status"] not in ("going", "waitlisted"):
        raise ToolError(f"{m['full_name']} has no active RSVP for {e['title']}")
    if e["starts_at"] <= now_iso(db):
        raise ToolError(f"event {e['event_code']} has already started")
    now = now_iso(db)
    db.execute("UPDATE event_rsvps SET status = 'cancelled', cancelled_at = ? WHERE id = ?", (now, r["id"]))
    _log(db, "member", None, m["id"], "event_rsvp", r["id"], "cancelled", {"event_id": e["id"]})
    return {"event_code": e["event_code"], "title": e["title"], "starts_at": e["starts_at"], "member_name": m["full_name"],
            "previous_status": r["status"], "status": "cancelled", "cancelled_at": now}


# ----------------------------------------------------------------- invoices and payments (writes)

@tool(write=True, actor="staff_email")
def record_payment(db: Db, staff_email: str, invoice_number: str, amount_cents: int,
                   method: Literal["card", "bank_transfer", "direct_debit", "cash"], note: str | None = None) -> dict:
    """Record a payment received against an open invoice; the invoice becomes paid when nothing is left to pay.

    Args:
        staff_email: the work email of the staff member recording it (the acting person).
        invoice_number: the invoice number, e.g. "INV-202603-00187".
        amount_cents: the amount received in cents, at most the balance.
        method: how it was paid.
        note: a note about the payment, e.g. a bank reference.
    """
    staff = _staff(db, staff_email, PAYMENT_ROLES, "record payments")
    inv = db.one("SELECT i.*, m.full_name AS member_name, m.member_number FROM invoices i JOIN members m ON m.id = i.member_id "
                 "WHERE i.invoice_number = ?", (invoice_number.strip().upper(),))
    if inv is None:
        raise ToolError(f"no invoice {invoice_number!r}; use search_invoices")
    if inv["status"] not in ("issued", "partially_paid", "overdue"):
        raise ToolError(f"invoice {inv['invoice_number']} is {inv['status']}; payments go only on issued, partially paid or overdue invoices")
    balance = inv["total_cents"] - inv["amount_paid_cents"]
    if amount_cents < 1:
        raise ToolError("amount_cents must be positive")
    if amount_cents > balance:
        raise ToolError(f"invoice {inv['invoice_number']} has only {balance} cents left to pay")
    now = now_iso(db)
    new_id = _next_id(db, db.value("SELECT MAX(id) FROM payments", ()))
    ref = f"PAY-{db.now().strftime('%y%m%d')}-{new_id:05d}"
    db.insert("payments", {
        "id": new_id,
        "payment_ref": ref,
        "invoice_id": inv["id"],
        "member_id": inv["member_id"],
        "amount_cents": amount_cents,
        "method": method,
        "status": "completed",
        "paid_at": now,
        "recorded_by_staff_id": staff["id"],
        "note": _text(note, "note", False),
    })
    paid = inv["amount_paid_cents"] + amount_cents
    if paid == inv["total_cents"]:
        status, paid_at = "paid", now
    elif inv["due_date"] < db.today().isoformat():
        status, paid_at = "overdue", None
    else:
        status, paid_at = "partially_paid", None
    db.execute("UPDATE invoices SET amount_paid_cents = ?, status = ?, paid_at = ? WHERE id = ?",
               (paid, status, paid_at, inv["id"]))
    _log(db, "staff", staff["id"], inv["member_id"], "payment", new_id, "recorded",
         {"invoice_number": inv["invoice_number"], "amount_cents": amount_cents, "method": method})
    return {"payment_ref": ref, "invoice_number": inv["invoice_number"], "member_name": inv["member_name"],
            "amount_cents": amount_cents, "method": method, "invoice_status": status, "total_cents": inv["total_cents"],
            "amount_paid_cents": paid, "balance_cents": inv["total_cents"] - paid, "recorded_by": staff["full_name"]}


@tool(write=True, actor="staff_email")
def void_invoice(db: Db, staff_email: str, invoice_number: str, reason: str) -> dict:
    """Void an invoice that was issued in error and has no payments on it.

    Args:
        staff_email: the work email of the finance or operations staff member voiding it (the acting person).
        invoice_number: the invoice number, e.g. "INV-202603-00187".
        reason: why it is voided.
    """
    staff = _staff(db, staff_email, VOID_ROLES, "void invoices")
    inv = db.one("SELECT i.*, m.full_name AS member_name FROM invoices i JOIN members m ON m.id = i.member_id "
                 "WHERE i.invoice_number = ?", (invoice_number.strip().upper(),))
    if inv is None:
        raise ToolError(f"no invoice {invoice_number!r}; use search_invoices")
    if inv["status"] not in ("draft", "issued", "overdue"):
        raise ToolError(f"invoice {inv['invoice_number']} is {inv['status']}; only draft, issued or overdue invoices "
                        f"without payments can be voided")
    if inv["amount_paid_cents"] > 0:
        raise ToolError(f"invoice {inv['invoice_number']} already has {inv['amount_paid_cents']} cents paid; it cannot be voided")
    why = _text(reason, "reason for voiding")
    now = now_iso(db)
    db.execute("UPDATE invoices SET status = 'void', voided_at = ?, void_reason = ? WHERE id = ?", (now, why, inv["id"]))
    _log(db, "staff", staff["id"], inv["member_id"], "invoice", inv["id"], "voided", {"reason": why})
    return {"invoice_number": inv["invoice_number"], "member_name": inv["member_name"], "total_cents": inv["total_cents"],
            "previous_status": inv["status"], "status": "void", "voided_at": now, "void_reason": why}
