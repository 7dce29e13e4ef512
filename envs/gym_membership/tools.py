"""Tools of the gym_membership world: a gym chain's member desk.

Members act with their e-mail (``member_email``) and only on their own membership, bookings, packages,
invoices, lockers and guest passes. Staff (front desk, trainers, managers) act with their staff e-mail and only at
their own club. Clubs are named by code ("DTN"), plans by code ("PLUS"), class sessions by the ids the read tools
return, invoices by number ("INV-000123"). Times are local, "YYYY-MM-DDTHH:MM".
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, clean_text, iso_seconds, parse_day, tool
from awm.tooling import check_limit as _limit
from awm.tooling import dollars as _money
from awm.tooling import now_iso as _now

LATE_CANCEL_HOURS = 2
LATE_CANCEL_FEE_CENTS = 1000
PT_CANCEL_HOURS = 24
PT_MINUTES = 60
MAX_WAITLIST = 10
MIN_FREEZE_DAYS = 7
PACKAGE_DISCOUNT = {5: 100, 10: 90, 20: 85}
PACKAGE_DAYS = 180
CHECKIN_GAP_HOURS = 3


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _date(value: str, what: str) -> date:
    return parse_day(value, what, "2026-10-12")


def _datetime(value: str, what: str) -> datetime:
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:00)?", value.strip()):
            raise ValueError
        return datetime.fromisoformat(value.strip())
    except ValueError:
        raise ToolError(f"{what} must be a local time written YYYY-MM-DDTHH:MM, e.g. '2026-10-12T17:00' "
                        f"(got {value!r})") from None


def _add_months(d: date, n: int) -> date:
    m = d.month - 1 + n
    return date(d.year + m // 12, m % 12 + 1, min(d.day, 28))


def _member(db: Db, email: str) -> dict[str, Any]:
    m = db.one("SELECT * FROM members WHERE lower(email) = lower(?)", (email.strip(),),
               missing=f"No member with e-mail {email!r}. Ask for the e-mail address on their membership.")
    ms = db.one("SELECT ms.*, p.code AS plan_code, p.name AS plan_name, p.monthly_fee_cents, p.access, "
                "p.includes_classes, p.guest_passes_per_month, p.freeze_days_per_year, p.min_term_months "
                "FROM memberships ms JOIN membership_plans p ON p.id = ms.plan_id WHERE ms.member_id = ? "
                "ORDER BY CASE WHEN ms.status IN ('active', 'frozen') THEN 0 ELSE 1 END, ms.id DESC LIMIT 1", (m["id"],))
    m["ms"] = ms
    m["name"] = f"{m['first_name']} {m['last_name']}"
    return m


def _club(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM clubs WHERE upper(code) = upper(?)", (code.strip(),),
                  missing=f"No club with code {code!r}; list_clubs shows the codes.")


def _staff(db: Db, email: str, roles: tuple[str, ...] = ("manager", "front_desk", "trainer")) -> dict[str, Any]:
    s = db.one("SELECT s.*, c.code AS club_code, c.name AS club_name FROM staff s JOIN clubs c ON c.id = s.club_id "
               "WHERE lower(s.email) = lower(?)", (email.strip(),),
               missing=f"No staff member with e-mail {email!r}.")
    if not s["is_active"]:
        raise ToolError(f"{s['full_name']}'s staff account is deactivated.")
    if s["role"] not in roles:
        raise ToolError(f"{s['full_name']} is a {s['role'].replace('_', ' ')}; this needs a "
                        + " or ".join(r.replace('_', ' ') for r in roles) + ".")
    return s


def _active(m: dict[str, Any], what: str) -> dict[str, Any]:
    ms = m["ms"]
    if ms is None or ms["status"] == "cancelled":
        raise ToolError(f"{m['name']} has no current membership, so they cannot {what}.")
    if ms["status"] == "frozen":
        raise ToolError(f"{m['name']}'s membership is frozen until {ms['frozen_until']}, so they cannot {what}. "
                        "Unfreeze it first (unfreeze_membership).")
    return ms


def _check_access(db: Db, m: dict[str, Any], club: dict[str, Any], what: str) -> None:
    ms = _active(m, what)
    if ms["access"] == "home" and club["id"] != m["home_club_id"]:
        home = db.value("SELECT name FROM clubs WHERE id = ?", (m["home_club_id"],))
        raise ToolError(f"The {ms['plan_name']} plan only gives access to the member's home club ({home}); "
                        f"{club['name']} is not included. Upgrade the plan or change the home club.")


def _overdue(db: Db, member_id: int) -> list[dict[str, Any]]:
    return db.query("SELECT number, amount_cents, due_on FROM invoices WHERE member_id = ? AND status = 'open' "
                    "AND due_on < ? ORDER BY due_on", (member_id, db.today().isoformat()))


def _no_overdue(db: Db, m: dict[str, Any], what: str) -> None:
    od = _overdue(db, m["id"])
    if od:
        raise ToolError(f"{m['name']} has overdue invoice(s) " + ", ".join(f"{o['number']} (${o['amount_cents'] / 100:,.2f}, "
                        f"due {o['due_on']})" for o in od) + f"; they must be paid (pay_invoice) before they can {what}.")


def _may_use(db: Db, m: dict[str, Any], club: dict[str, Any], what: str) -> None:
    """Refuse unless the member's plan covers ``club`` now (``_check_access``) and no invoice of theirs is overdue."""
    _check_access(db, m, club, what)
    _no_overdue(db, m, what)


def _freeze_used(db: Db, membership_id: int, year: int) -> int:
    return db.value("SELECT COALESCE(SUM(days), 0) FROM membership_freezes WHERE membership_id = ? "
                    "AND substr(start_date, 1, 4) = ?", (membership_id, str(year)))


def _invoice(db: Db, member_id: int, kind: str, desc: str, cents: int) -> str:
    n = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM invoices")
    number = f"INV-{n:06d}"
    t = db.today()
    db.insert("invoices", {"id": n, "number": number, "member_id": member_id, "kind": kind, "description": desc,
                           "amount_cents": cents, "issued_on": t.isoformat(), "due_on": (t + timedelta(days=14)).isoformat(),
                           "status": "open", "paid_at": None, "payment_method": None})
    return number


def _session(db: Db, session_id: int) -> dict[str, Any]:
    return db.one("SELECT s.*, t.name AS class_name, t.code AS class_code, t.duration_min, c.code AS club_code, "
                  "c.name AS club_name, st.full_name AS trainer, (SELECT COUNT(*) FROM class_bookings b WHERE "
                  "b.session_id = s.id AND b.status = 'booked') AS booked, (SELECT COUNT(*) FROM class_bookings b WHERE "
                  "b.session_id = s.id AND b.status = 'waitlisted') AS waitlisted FROM class_sessions s JOIN class_types t "
                  "ON t.id = s.class_type_id JOIN clubs c ON c.id = s.club_id JOIN staff st ON st.id = s.trainer_id "
                  "WHERE s.id = ?", (session_id,),
                  missing=f"No class session with id {session_id}; list_class_sessions shows them.")


def _session_row(s: dict[str, Any]) -> dict[str, Any]:
    return {"session_id": s["id"], "class": s["class_name"], "club": s["club_code"], "starts_at": s["starts_at"][:16],
            "duration_min": s["duration_min"], "trainer": s["trainer"], "room": s["room"], "status": s["status"],
            "capacity": s["capacity"], "spots_left": max(0, s["capacity"] - s["booked"]), "waitlist": s["waitlisted"]}


def _drop_booking(db: Db, booking: dict[str, Any]) -> dict[str, Any] | None:
    """Cancel a booked / waitlisted place; promote the waitlist. Returns the promoted booking, if any."""
    db.execute("UPDATE class_bookings SET status = 'cancelled', waitlist_position = NULL, cancelled_at = ? WHERE id = ?",
               (_now(db), booking["id"]))
    promoted = None
    if booking["status"] == "booked":
        promoted = db.one("SELECT * FROM class_bookings WHERE session_id = ? AND status = 'waitlisted' "
                          "ORDER BY waitlist_position LIMIT 1", (booking["session_id"],))
        if promoted:
            db.execute("UPDATE class_bookings SET status = 'booked', waitlist_position = NULL WHERE id = ?",
                       (promoted["id"],))
            db.execute("UPDATE class_bookings SET waitlist_position = waitlist_position - 1 WHERE session_id = ? "
                       "AND status = 'waitlisted'", (booking["session_id"],))
    else:
        db.execute("UPDATE class_bookings SET waitlist_position = waitlist_position - 1 WHERE session_id = ? "
                   "AND status = 'waitlisted' AND waitlist_position > ?", (booking["session_id"], booking["waitlist_position"]))
    return promoted


def _drop_upcoming(db: Db, member_id: int) -> int:
    rows = db.query("SELECT b.* FROM class_bookings b JOIN class_sessions s ON s.id = b.session_id WHERE b.member_id = ? "
                    "AND b.status IN ('booked', 'waitlisted') AND s.starts_at > ? ORDER BY s.starts_at, b.id",
                    (member_id, _now(db)))
    for b in rows:
        _drop_booking(db, db.one("SELECT * FROM class_bookings WHERE id = ?", (b["id"],)))
    return len(rows)


def _trainer_busy(db: Db, trainer_id: int, start: datetime, minutes: int) -> str | None:
    end = start + timedelta(minutes=minutes)
    for s in db.query("SELECT s.starts_at, t.duration_min, t.name FROM class_sessions s JOIN class_types t ON "
                      "t.id = s.class_type_id WHERE s.trainer_id = ? AND s.status = 'scheduled' AND substr(s.starts_at, 1, 10) = ?",
                      (trainer_id, start.date().isoformat())):
        a = datetime.fromisoformat(s["starts_at"])
        if a < end and start < a + timedelta(minutes=s["duration_min"]):
            return f"teaching {s['name']} at {s['starts_at'][11:16]}"
    for p in db.query("SELECT ps.starts_at FROM pt_sessions ps JOIN pt_packages pk ON pk.id = ps.package_id WHERE "
                      "pk.trainer_id = ? AND ps.status IN ('scheduled', 'completed') AND substr(ps.starts_at, 1, 10) = ?",
                      (trainer_id, start.date().isoformat())):
        a = datetime.fromisoformat(p["starts_at"])
        if a < end and start < a + timedelta(minutes=PT_MINUTES):
            return f"booked for personal training at {p['starts_at'][11:16]}"
    return None


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def list_clubs(db: Db) -> dict:
    """List the chain's clubs with code, address, phone and opening hours."""
    return {"clubs": db.query("SELECT code, name, city, address, phone, opens_at, closes_at FROM clubs ORDER BY code")}


@tool
def list_plans(db: Db) -> dict:
    """List the membership plans: monthly fee, club access (home club only or all clubs), whether group classes are
    included, guest passes per month, freeze days per calendar year and minimum term in months."""
    rows = db.query("SELECT code, name, monthly_fee_cents, access, includes_classes, guest_passes_per_month, "
                    "freeze_days_per_year, min_term_months FROM membership_plans ORDER BY monthly_fee_cents")
    for r in rows:
        r["monthly_fee"] = _money(r.pop("monthly_fee_cents"))
        r["includes_classes"] = bool(r["includes_classes"])
    return {"plans": rows}


@tool
def get_member(db: Db, member_email: str) -> dict:
    """Show a member's profile and membership: plan, status, home club, next billing date, freeze days used and
    left this year, guest passes used and left this month, open and overdue invoices, and active lockers.

    Args:
        member_email: the member's e-mail address.
    """
    m = _member(db, member_email)
    ms = m["ms"]
    home = db.one("SELECT code, name FROM clubs WHERE id = ?", (m["home_club_id"],))
    out: dict[str, Any] = {"name": m["name"], "email": m["email"], "phone": m["phone"], "home_club": home}
    if ms:
        t = db.today()
        used = _freeze_used(db, ms["id"], t.year)
        passes = db.value("SELECT COUNT(*) FROM guest_passes WHERE member_id = ? AND substr(visit_date, 1, 7) = ?",
                          (m["id"], t.isoformat()[:7]))
        out["membership"] = {"plan": ms["plan_code"], "plan_name": ms["plan_name"], "status": ms["status"],
                             "start_date": ms["start_date"], "next_billing_date": ms["next_billing_date"],
                             "frozen_until": ms["frozen_until"], "cancelled_on": ms["cancelled_on"],
                             "monthly_fee": _money(ms["monthly_fee_cents"]),
                             "freeze_days_used_this_year": used,
                             "freeze_days_left_this_year": max(0, ms["freeze_days_per_year"] - used),
                             "guest_passes_used_this_month": passes,
                             "guest_passes_left_this_month": max(0, ms["guest_passes_per_month"] - passes)}
    out["open_balance"] = _money(db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM invoices WHERE member_id = ? "
                                          "AND status = 'open'", (m["id"],)))
    out["overdue_invoices"] = [o["number"] for o in _overdue(db, m["id"])]
    out["lockers"] = db.query("SELECT c.code AS club, l.number, l.size FROM locker_rentals r JOIN lockers l ON "
                              "l.id = r.locker_id JOIN clubs c ON c.id = l.club_id WHERE r.member_id = ? AND "
                              "r.status = 'active' ORDER BY c.code", (m["id"],))
    return out


@tool
def list_class_types(db: Db) -> dict:
    """List the kinds of group classes with their duration and intensity."""
    return {"class_types": db.query("SELECT code, name, duration_min, intensity FROM class_types ORDER BY name")}


@tool
def list_class_sessions(db: Db, club_code: str, day: str, class_code: str | None = None) -> dict:
    """List a club's group class sessions on one day with trainer, capacity, spots left and waitlist length.

    Args:
        club_code: the club's code, e.g. "DTN".
        day: the day, YYYY-MM-DD.
        class_code: only this kind of class, e.g. "YOGA" (list_class_types shows codes).
    """
    c = _club(db, club_code)
    d = _date(day, "day").isoformat()
    ids = db.query("SELECT s.id FROM class_sessions s JOIN class_types t ON t.id = s.class_type_id WHERE s.club_id = ? "
                   "AND substr(s.starts_at, 1, 10) = ? AND (? IS NULL OR upper(t.code) = upper(?)) ORDER BY s.starts_at, s.id",
                   (c["id"], d, class_code, class_code))
    return {"club": c["code"], "day": d, "sessions": [_session_row(_session(db, r["id"])) for r in ids]}


@tool
def get_class_session(db: Db, session_id: int) -> dict:
    """Show one class session: class, club, time, trainer, room, capacity, spots left and waitlist length.

    Args:
        session_id: the session's id.
    """
    s = _session(db, session_id)
    out = _session_row(s)
    out["cancel_reason"] = s["cancel_reason"]
    return out


@tool
def list_member_bookings(db: Db, member_email: str, upcoming_only: bool = True) -> dict:
    """List a member's class bookings (booked, waitlisted with position, cancelled, attended, no-show).

    Args:
        member_email: the member's e-mail address.
        upcoming_only: only sessions that have not started yet (default true).
    """
    m = _member(db, member_email)
    rows = db.query("SELECT s.id AS session_id, t.name AS class, c.code AS club, substr(s.starts_at, 1, 16) AS starts_at, "
                    "b.status, b.waitlist_position FROM class_bookings b JOIN class_sessions s ON s.id = b.session_id "
                    "JOIN class_types t ON t.id = s.class_type_id JOIN clubs c ON c.id = s.club_id WHERE b.member_id = ? "
                    "AND (? = 0 OR s.starts_at > ?) ORDER BY s.starts_at, s.id",
                    (m["id"], 1 if upcoming_only else 0, _now(db)))
    return {"member": m["name"], "bookings": rows}


@tool
def list_trainers(db: Db, club_code: str, specialty: str | None = None) -> dict:
    """List the personal trainers of a club with their specialty and hourly personal-training rate.

    Args:
        club_code: the club's code.
        specialty: only trainers with this specialty, e.g. "yoga".
    """
    c = _club(db, club_code)
    rows = db.query("SELECT full_name AS name, email, specialty, pt_rate_cents FROM staff WHERE club_id = ? AND "
                    "role = 'trainer' AND is_active = 1 AND (? IS NULL OR lower(specialty) = lower(?)) ORDER BY full_name",
                    (c["id"], specialty, specialty))
    for r in rows:
        r["pt_rate_per_session"] = _money(r.pop("pt_rate_cents"))
    return {"club": c["code"], "trainers": rows}


@tool
def get_trainer_schedule(db: Db, trainer_email: str, day: str) -> dict:
    """Show what a trainer is busy with on a day (classes they teach and personal-training sessions), to find a free
    hour, and their club's opening hours.

    Args:
        trainer_email: the trainer's staff e-mail.
        day: the day, YYYY-MM-DD.
    """
    t = _staff(db, trainer_email, ("trainer",))
    d = _date(day, "day").isoformat()
    classes = db.query("SELECT substr(s.starts_at, 12, 5) AS starts, ct.duration_min, ct.name AS class FROM class_sessions s "
                       "JOIN class_types ct ON ct.id = s.class_type_id WHERE s.trainer_id = ? AND s.status = 'scheduled' "
                       "AND substr(s.starts_at, 1, 10) = ? ORDER BY s.starts_at", (t["id"], d))
    pts = db.query("SELECT substr(ps.starts_at, 12, 5) AS starts, ps.status FROM pt_sessions ps JOIN pt_packages pk ON "
                   "pk.id = ps.package_id WHERE pk.trainer_id = ? AND ps.status IN ('scheduled', 'completed') AND "
                   "substr(ps.starts_at, 1, 10) = ? ORDER BY ps.starts_at", (t["id"], d))
    hours = db.one("SELECT opens_at, closes_at FROM clubs WHERE id = ?", (t["club_id"],))
    return {"trainer": t["full_name"], "club": t["club_code"], "day": d, "club_hours": hours, "classes": classes,
            "personal_training": [{"starts": p["starts"], "duration_min": PT_MINUTES} for p in pts]}


@tool
def list_pt_packages(db: Db, member_email: str) -> dict:
    """List a member's personal-training packages with trainer, sessions remaining, expiry and their sessions.

    Args:
        member_email: the member's e-mail address.
    """
    m = _member(db, member_email)
    pks = db.query("SELECT pk.id AS package_id, s.full_name AS trainer, s.email AS trainer_email, pk.sessions_total, "
                   "pk.sessions_remaining, pk.purchased_on, pk.expires_on FROM pt_packages pk JOIN staff s ON "
                   "s.id = pk.trainer_id WHERE pk.member_id = ? ORDER BY pk.id", (m["id"],))
    for p in pks:
        p["sessions"] = db.query("SELECT id AS pt_session_id, substr(starts_at, 1, 16) AS starts_at, status FROM pt_sessions "
                                 "WHERE package_id = ? ORDER BY starts_at", (p["package_id"],))
    return {"member": m["name"], "packages": pks}


@tool
def list_invoices(db: Db, member_email: str, status: Literal["open", "paid", "void"] | None = None) -> dict:
    """List a member's invoices, newest first, with amount, due date and status.

    Args:
        member_email: the member's e-mail address.
        status: only invoices in this status.
    """
    m = _member(db, member_email)
    rows = db.query("SELECT number, kind, description, amount_cents, issued_on, due_on, status, paid_at FROM invoices "
                    "WHERE member_id = ? AND (? IS NULL OR status = ?) ORDER BY issued_on DESC, id DESC",
                    (m["id"], status, status))
    for r in rows:
        r["amount"] = _money(r.pop("amount_cents"))
        r["overdue"] = r["status"] == "open" and r["due_on"] < db.today().isoformat()
    return {"member": m["name"], "invoices": rows}


@tool
def list_check_ins(db: Db, member_email: str, limit: int = 10) -> dict:
    """List a member's most recent club visits.

    Args:
        member_email: the member's e-mail address.
        limit: maximum number of visits, 1 to 50.
    """
    _limit(limit)
    m = _member(db, member_email)
    rows = db.query("SELECT c.code AS club, substr(x.checked_in_at, 1, 16) AS checked_in_at FROM check_ins x JOIN clubs c "
                    "ON c.id = x.club_id WHERE x.member_id = ? ORDER BY x.checked_in_at DESC, x.id DESC LIMIT ?",
                    (m["id"], limit))
    return {"member": m["name"], "visits": rows}


@tool
def list_lockers(db: Db, club_code: str, size: Literal["small", "large"] | None = None) -> dict:
    """List a club's lockers that are free to rent, with size and monthly fee.

    Args:
        club_code: the club's code.
        size: only "small" or "large" lockers.
    """
    c = _club(db, club_code)
    rows = db.query("SELECT l.number, l.size, l.monthly_fee_cents FROM lockers l WHERE l.club_id = ? AND l.out_of_service = 0 "
                    "AND (? IS NULL OR l.size = ?) AND NOT EXISTS (SELECT 1 FROM locker_rentals r WHERE r.locker_id = l.id "
                    "AND r.status = 'active') ORDER BY l.number", (c["id"], size, size))
    for r in rows:
        r["monthly_fee"] = _money(r.pop("monthly_fee_cents"))
    return {"club": c["code"], "free_lockers": rows}


@tool
def list_guest_passes(db: Db, member_email: str, month: str | None = None) -> dict:
    """List the guest passes a member has issued, optionally for one month.

    Args:
        member_email: the member's e-mail address.
        month: only visits in this month, "YYYY-MM".
    """
    m = _member(db, member_email)
    if month is not None and not re.fullmatch(r"\d{4}-\d{2}", month.strip()):
        raise ToolError("month must be written YYYY-MM, e.g. '2026-10'.")
    rows = db.query("SELECT g.guest_name, c.code AS club, g.visit_date FROM guest_passes g JOIN clubs c ON c.id = g.club_id "
                    "WHERE g.member_id = ? AND (? IS NULL OR substr(g.visit_date, 1, 7) = ?) ORDER BY g.visit_date DESC",
                    (m["id"], month, month))
    return {"member": m["name"], "guest_passes": rows}


@tool
def get_session_roster(db: Db, staff_email: str, session_id: int) -> dict:
    """For staff of the session's club: who is booked and who is on the waitlist (in order).

    Args:
        staff_email: the staff member's e-mail.
        session_id: the session's id.
    """
    st = _staff(db, staff_email)
    s = _session(db, session_id)
    if st["club_id"] != s["club_id"]:
        raise ToolError(f"{st['full_name']} works at {st['club_name']}; this session is at {s['club_name']}.")
    rows = db.query("SELECT m.first_name || ' ' || m.last_name AS member, m.email, b.status, b.waitlist_position FROM "
                    "class_bookings b JOIN members m ON m.id = b.member_id WHERE b.session_id = ? AND b.status <> 'cancelled' "
                    "ORDER BY b.status, b.waitlist_position, m.last_name", (session_id,))
    return {**_session_row(s), "roster": rows}


# ----------------------------------------------------------------------------------------------
# write tools: front desk and classes
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def check_in_member(db: Db, staff_email: str, member_email: str) -> dict:
    """Let a member in at the front desk of the staff member's club. Needs an active (not frozen or cancelled)
    membership whose plan covers this club and no overdue invoice; a member already checked in at this club in the
    last 3 hours is not checked in again.

    Args:
        staff_email: e-mail of the front-desk staff member or manager on duty.
        member_email: the member's e-mail address.
    """
    st = _staff(db, staff_email, ("front_desk", "manager"))
    club = db.one("SELECT * FROM clubs WHERE id = ?", (st["club_id"],))
    m = _member(db, member_email)
    _may_use(db, m, club, "check in")
    since = iso_seconds(db.now() - timedelta(hours=CHECKIN_GAP_HOURS))
    db.none("SELECT 1 FROM check_ins WHERE member_id = ? AND club_id = ? AND checked_in_at > ?",
            (m["id"], club["id"], since), found=f"{m['name']} is already checked in at {club['name']}.")
    cid = db.insert("check_ins", {"member_id": m["id"], "club_id": club["id"], "staff_id": st["id"],
                                  "checked_in_at": _now(db)})
    return {"check_in_id": cid, "member": m["name"], "club": club["code"], "checked_in_at": _now(db)}


@tool(write=True)
def book_class(db: Db, member_email: str, session_id: int) -> dict:
    """Book a member into a future class session. The plan must include classes and cover the club, the membership
    must be active with no overdue invoice, and the member may not hold another class at the same time. When the
    session is full the member joins the waitlist (at most 10) and is moved up automatically when a place frees.

    Args:
        member_email: the member's e-mail address.
        session_id: the session's id (list_class_sessions shows them).
    """
    m = _member(db, member_email)
    s = _session(db, session_id)
    club = db.one("SELECT * FROM clubs WHERE id = ?", (s["club_id"],))
    _check_access(db, m, club, "book classes")
    if not m["ms"]["includes_classes"]:
        raise ToolError(f"The {m['ms']['plan_name']} plan does not include group classes.")
    _no_overdue(db, m, "book classes")
    if s["status"] != "scheduled" or s["starts_at"] <= _now(db):
        raise ToolError(f"Session {session_id} ({s['class_name']} at {s['starts_at'][:16]}) is {s['status']} or has "
                        "already started; choose a future session.")
    mine = db.one("SELECT * FROM class_bookings WHERE session_id = ? AND member_id = ?", (session_id, m["id"]))
    if mine and mine["status"] in ("booked", "waitlisted"):
        raise ToolError(f"{m['name']} is already {mine['status']} for this session.")
    clash = db.one("SELECT t.name, s.starts_at FROM class_bookings b JOIN class_sessions s ON s.id = b.session_id JOIN "
                   "class_types t ON t.id = s.class_type_id WHERE b.member_id = ? AND b.status IN ('booked', 'waitlisted') "
                   "AND s.starts_at = ?", (m["id"], s["starts_at"]))
    if clash:
        raise ToolError(f"{m['name']} already holds {clash['name']} at the same time ({clash['starts_at'][:16]}).")
    if s["booked"] < s["capacity"]:
        status, pos = "booked", None
    else:
        if s["waitlisted"] >= MAX_WAITLIST:
            raise ToolError("The session is full and its waitlist too; choose another session.")
        status, pos = "waitlisted", s["waitlisted"] + 1
    if mine:
        db.execute("UPDATE class_bookings SET status = ?, waitlist_position = ?, created_at = ?, cancelled_at = NULL "
                   "WHERE id = ?", (status, pos, _now(db), mine["id"]))
    else:
        db.insert("class_bookings", {"session_id": session_id, "member_id": m["id"], "status": status,
                                     "waitlist_position": pos, "created_at": _now(db), "cancelled_at": None})
    return {"session_id": session_id, "class": s["class_name"], "starts_at": s["starts_at"][:16], "status": status,
            "waitlist_position": pos}


@tool(write=True)
def cancel_class_booking(db: Db, member_email: str, session_id: int) -> dict:
    """Cancel a member's place or waitlist entry for a future session. The first person on the waitlist gets the
    freed place. Cancelling a place less than 2 hours before the start costs a $10 late-cancellation fee.

    Args:
        member_email: the member's e-mail address.
        session_id: the session's id.
    """
    m = _member(db, member_email)
    s = _session(db, session_id)
    b = db.one("SELECT * FROM class_bookings WHERE session_id = ? AND member_id = ?", (session_id, m["id"]))
    if b is None or b["status"] not in ("booked", "waitlisted"):
        raise ToolError(f"{m['name']} holds no place on session {session_id}; list_member_bookings shows their bookings.")
    if s["starts_at"] <= _now(db):
        raise ToolError("The session has already started.")
    promoted = _drop_booking(db, b)
    fee = None
    start = datetime.fromisoformat(s["starts_at"])
    if b["status"] == "booked" and start - db.now() < timedelta(hours=LATE_CANCEL_HOURS):
        fee = _invoice(db, m["id"], "late_cancellation", f"Late cancellation: {s['class_name']} {s['starts_at'][:16]}",
                       LATE_CANCEL_FEE_CENTS)
    return {"session_id": session_id, "status": "cancelled", "late_fee_invoice": fee,
            "waitlist_promoted": promoted is not None}


@tool(write=True)
def cancel_class_session(db: Db, staff_email: str, session_id: int, reason: str) -> dict:
    """Cancel a future class session (the club's manager or the trainer teaching it). Every place and waitlist entry
    on it is cancelled without fees.

    Args:
        staff_email: e-mail of the club's manager or of the session's trainer.
        session_id: the session's id.
        reason: why it is cancelled, e.g. "Instructor ill".
    """
    st = _staff(db, staff_email, ("manager", "trainer"))
    s = _session(db, session_id)
    if st["club_id"] != s["club_id"] or (st["role"] == "trainer" and st["id"] != s["trainer_id"]):
        raise ToolError(f"Only {s['club_name']}'s manager or the session's trainer ({s['trainer']}) can cancel it.")
    if s["status"] != "scheduled" or s["starts_at"] <= _now(db):
        raise ToolError(f"Session {session_id} is {s['status']} or has started; it cannot be cancelled.")
    r = clean_text(reason, "reason", 3, 200)
    n = db.execute("UPDATE class_bookings SET status = 'cancelled', waitlist_position = NULL, cancelled_at = ? WHERE "
                   "session_id = ? AND status IN ('booked', 'waitlisted')", (_now(db), session_id))
    db.execute("UPDATE class_sessions SET status = 'cancelled', cancel_reason = ? WHERE id = ?", (r, session_id))
    return {"session_id": session_id, "status": "cancelled", "bookings_cancelled": n}


# ----------------------------------------------------------------------------------------------
# write tools: membership
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def freeze_membership(db: Db, member_email: str, days: int) -> dict:
    """Freeze an active membership from today for a number of days (at least 7). The days frozen in a calendar year
    may not exceed the plan's allowance. Billing moves back by the same number of days and the member's upcoming
    class bookings are cancelled (no fee).

    Args:
        member_email: the member's e-mail address.
        days: how many days to freeze, 7 or more.
    """
    m = _member(db, member_email)
    ms = _active(m, "freeze it again")
    if days < MIN_FREEZE_DAYS:
        raise ToolError(f"A freeze lasts at least {MIN_FREEZE_DAYS} days.")
    t = db.today()
    used = _freeze_used(db, ms["id"], t.year)
    if used + days > ms["freeze_days_per_year"]:
        raise ToolError(f"The {ms['plan_name']} plan allows {ms['freeze_days_per_year']} freeze days per calendar year; "
                        f"{used} are used in {t.year}, so at most {max(0, ms['freeze_days_per_year'] - used)} more.")
    end = t + timedelta(days=days)
    db.insert("membership_freezes", {"membership_id": ms["id"], "start_date": t.isoformat(), "end_date": end.isoformat(),
                                     "days": days, "created_at": _now(db)})
    nb = (date.fromisoformat(ms["next_billing_date"]) + timedelta(days=days)).isoformat()
    db.execute("UPDATE memberships SET status = 'frozen', frozen_until = ?, next_billing_date = ? WHERE id = ?",
               (end.isoformat(), nb, ms["id"]))
    dropped = _drop_upcoming(db, m["id"])
    return {"member": m["name"], "status": "frozen", "frozen_until": end.isoformat(), "next_billing_date": nb,
            "freeze_days_left_this_year": ms["freeze_days_per_year"] - used - days, "class_bookings_cancelled": dropped}


@tool(write=True)
def unfreeze_membership(db: Db, member_email: str) -> dict:
    """End a freeze early: the membership is active again from today, only the days actually frozen (at least 1) count
    against the yearly allowance, and the next billing date moves earlier by the unused days (to tomorrow at the
    earliest).

    Args:
        member_email: the member's e-mail address.
    """
    m = _member(db, member_email)
    ms = m["ms"]
    if ms is None or ms["status"] != "frozen":
        raise ToolError(f"{m['name']}'s membership is not frozen.")
    f = db.one("SELECT * FROM membership_freezes WHERE membership_id = ? ORDER BY start_date DESC, id DESC LIMIT 1",
               (ms["id"],))
    t = db.today()
    start = date.fromisoformat(f["start_date"])
    used = max(1, (t - start).days)
    unused = (date.fromisoformat(ms["frozen_until"]) - (start + timedelta(days=used))).days
    db.execute("UPDATE membership_freezes SET end_date = ?, days = ? WHERE id = ?",
               ((start + timedelta(days=used)).isoformat(), used, f["id"]))
    nb = max(date.fromisoformat(ms["next_billing_date"]) - timedelta(days=max(0, unused)), t + timedelta(days=1)).isoformat()
    db.execute("UPDATE memberships SET status = 'active', frozen_until = NULL, next_billing_date = ? WHERE id = ?",
               (nb, ms["id"]))
    return {"member": m["name"], "status": "active", "freeze_days_counted": used, "next_billing_date": nb}


@tool(write=True)
def cancel_membership(db: Db, member_email: str, reason: str) -> dict:
    """Cancel a membership from today. Inside the plan's minimum term the remaining months are invoiced as an early
    termination fee. Upcoming class bookings are cancelled and active lockers released.

    Args:
        member_email: the member's e-mail address.
        reason: why the member leaves, e.g. "moving away".
    """
    m = _member(db, member_email)
    ms = m["ms"]
    if ms is None or ms["status"] == "cancelled":
        raise ToolError(f"{m['name']} has no current membership to cancel.")
    r = clean_text(reason, "reason", 3, 200)
    t = db.today()
    fee_invoice = None
    if ms["min_term_months"]:
        term_end = _add_months(date.fromisoformat(ms["start_date"]), ms["min_term_months"])
        if term_end > t:
            months = (term_end.year - t.year) * 12 + term_end.month - t.month + (1 if term_end.day > t.day else 0)
            months = max(1, months)
            fee_invoice = _invoice(db, m["id"], "early_termination",
                                   f"Early termination: {months} month(s) left of the {ms['min_term_months']}-month term",
                                   months * ms["monthly_fee_cents"])
    db.execute("UPDATE memberships SET status = 'cancelled', cancelled_on = ?, cancel_reason = ?, next_billing_date = NULL, "
               "frozen_until = NULL WHERE id = ?", (t.isoformat(), r, ms["id"]))
    dropped = _drop_upcoming(db, m["id"])
    lockers = db.execute("UPDATE locker_rentals SET status = 'ended', end_date = ? WHERE member_id = ? AND status = 'active'",
                         (t.isoformat(), m["id"]))
    return {"member": m["name"], "status": "cancelled", "early_termination_invoice": fee_invoice,
            "class_bookings_cancelled": dropped, "lockers_released": lockers}


@tool(write=True)
def change_plan(db: Db, member_email: str, plan_code: Literal["BASIC", "PLUS", "PREMIUM", "STUDENT"]) -> dict:
    """Move an active membership to another plan from the next billing date's fee on. A cheaper plan is refused
    during the current plan's minimum term, and upcoming class bookings the new plan would not cover (no classes, or
    another club than home) must be cancelled first.

    Args:
        member_email: the member's e-mail address.
        plan_code: "BASIC", "PLUS", "PREMIUM" or "STUDENT".
    """
    m = _member(db, member_email)
    ms = _active(m, "change plan")
    p = db.one("SELECT * FROM membership_plans WHERE code = ?", (plan_code,))
    if p["id"] == ms["plan_id"]:
        raise ToolError(f"{m['name']} is already on the {p['name']} plan.")
    if ms["min_term_months"] and p["monthly_fee_cents"] < ms["monthly_fee_cents"]:
        term_end = _add_months(date.fromisoformat(ms["start_date"]), ms["min_term_months"])
        if term_end > db.today():
            raise ToolError(f"The {ms['plan_name']} plan has a {ms['min_term_months']}-month minimum term running until "
                            f"{term_end.isoformat()}; it cannot be downgraded before then.")
    bad = db.query("SELECT s.id FROM class_bookings b JOIN class_sessions s ON s.id = b.session_id WHERE b.member_id = ? "
                   "AND b.status IN ('booked', 'waitlisted') AND s.starts_at > ? AND (? = 0 OR (? = 'home' AND "
                   "s.club_id <> ?))", (m["id"], _now(db), 1 if p["includes_classes"] else 0, p["access"], m["home_club_id"]))
    if not p["includes_classes"]:
        bad = db.query("SELECT s.id FROM class_bookings b JOIN class_sessions s ON s.id = b.session_id WHERE b.member_id = ? "
                       "AND b.status IN ('booked', 'waitlisted') AND s.starts_at > ?", (m["id"], _now(db)))
    if bad:
        raise ToolError(f"The {p['name']} plan would not cover class session(s) " + ", ".join(str(b["id"]) for b in bad)
                        + "; cancel those bookings first.")
    db.execute("UPDATE memberships SET plan_id = ? WHERE id = ?", (p["id"], ms["id"]))
    return {"member": m["name"], "plan": p["code"], "monthly_fee": _money(p["monthly_fee_cents"]),
            "previous_plan": ms["plan_code"], "next_billing_date": ms["next_billing_date"]}


@tool(write=True)
def change_home_club(db: Db, member_email: str, club_code: str) -> dict:
    """Change a member's home club (active or frozen membership).

    Args:
        member_email: the member's e-mail address.
        club_code: the new home club's code.
    """
    m = _member(db, member_email)
    if m["ms"] is None or m["ms"]["status"] == "cancelled":
        raise ToolError(f"{m['name']} has no current membership.")
    c = _club(db, club_code)
    if c["id"] == m["home_club_id"]:
        raise ToolError(f"{c['name']} is already {m['name']}'s home club.")
    db.execute("UPDATE members SET home_club_id = ? WHERE id = ?", (c["id"], m["id"]))
    return {"member": m["name"], "home_club": c["code"]}


@tool(write=True)
def pay_invoice(db: Db, member_email: str, invoice_number: str, method: Literal["card", "cash", "bank_transfer"]) -> dict:
    """Record the payment of one of the member's open invoices in full.

    Args:
        member_email: the member's e-mail address.
        invoice_number: the invoice number, e.g. "INV-000123".
        method: "card", "cash" or "bank_transfer".
    """
    m = _member(db, member_email)
    inv = db.one("SELECT * FROM invoices WHERE upper(number) = upper(?) AND member_id = ?",
                 (invoice_number.strip(), m["id"]),
                 missing=f"Invoice {invoice_number!r} is not one of {m['name']}'s; list_invoices shows theirs.")
    if inv["status"] != "open":
        raise ToolError(f"Invoice {inv['number']} is {inv['status']}.")
    db.execute("UPDATE invoices SET status = 'paid', paid_at = ?, payment_method = ? WHERE id = ?",
               (_now(db), method, inv["id"]))
    return {"invoice": inv["number"], "status": "paid", "amount": _money(inv["amount_cents"]), "method": method}


# ----------------------------------------------------------------------------------------------
# write tools: personal training, guests, lockers
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def buy_pt_package(db: Db, member_email: str, trainer_email: str, sessions: Literal[5, 10, 20]) -> dict:
    """Buy a personal-training package with a trainer at a club the member's plan covers: 5 sessions at the trainer's
    rate, 10 with 10% off, 20 with 15% off; valid 180 days; invoiced now. A member cannot buy a second package with a
    trainer while one with sessions left is still valid.

    Args:
        member_email: the member's e-mail address.
        trainer_email: the trainer's staff e-mail (list_trainers shows them).
        sessions: 5, 10 or 20.
    """
    m = _member(db, member_email)
    t = _staff(db, trainer_email, ("trainer",))
    club = db.one("SELECT * FROM clubs WHERE id = ?", (t["club_id"],))
    _may_use(db, m, club, "buy personal training")
    live = db.value("SELECT id FROM pt_packages WHERE member_id = ? AND trainer_id = ? AND sessions_remaining > 0 "
                    "AND expires_on >= ?", (m["id"], t["id"], db.today().isoformat()))
    if live:
        raise ToolError(f"{m['name']} still has package {live} with {t['full_name']} with sessions left; use it first.")
    price = t["pt_rate_cents"] * sessions * PACKAGE_DISCOUNT[sessions] // 100
    today = db.today()
    pid = db.insert("pt_packages", {"member_id": m["id"], "trainer_id": t["id"], "sessions_total": sessions,
                                    "sessions_remaining": sessions, "price_cents": price,
                                    "purchased_on": today.isoformat(),
                                    "expires_on": (today + timedelta(days=PACKAGE_DAYS)).isoformat()})
    number = _invoice(db, m["id"], "pt_package", f"{sessions} personal training sessions with {t['full_name']}", price)
    return {"package_id": pid, "trainer": t["full_name"], "sessions": sessions, "price": _money(price),
            "expires_on": (today + timedelta(days=PACKAGE_DAYS)).isoformat(), "invoice": number}


@tool(write=True)
def book_pt_session(db: Db, member_email: str, package_id: int, starts_at: str) -> dict:
    """Book a 60-minute personal-training session from one of the member's packages. Uses one session; needs a
    session left, a start in the future on the hour or half hour, before the package expires and within the club's
    opening hours, and the trainer and member free at that time.

    Args:
        member_email: the member's e-mail address.
        package_id: the package's id (list_pt_packages shows them).
        starts_at: local start time, YYYY-MM-DDTHH:MM, e.g. "2026-10-12T17:00".
    """
    m = _member(db, member_email)
    pk = db.one("SELECT pk.*, s.full_name AS trainer, s.club_id, s.is_active FROM pt_packages pk JOIN staff s ON "
                "s.id = pk.trainer_id WHERE pk.id = ? AND pk.member_id = ?", (package_id, m["id"]),
                missing=f"Package {package_id} is not one of {m['name']}'s; list_pt_packages shows theirs.")
    _active(m, "book personal training")
    start = _datetime(starts_at, "starts_at")
    if start <= db.now():
        raise ToolError("starts_at must be in the future.")
    if start.minute not in (0, 30):
        raise ToolError("Sessions start on the hour or half hour.")
    if start.date().isoformat() > pk["expires_on"]:
        raise ToolError(f"Package {package_id} expires on {pk['expires_on']}.")
    if pk["sessions_remaining"] < 1:
        raise ToolError(f"Package {package_id} has no sessions left; buy a new package.")
    club = db.one("SELECT * FROM clubs WHERE id = ?", (pk["club_id"],))
    end = start + timedelta(minutes=PT_MINUTES)
    if start.strftime("%H:%M") < club["opens_at"] or end.strftime("%H:%M") > club["closes_at"] or end.date() != start.date():
        raise ToolError(f"{club['name']} is open {club['opens_at']}-{club['closes_at']}; the session must fit inside.")
    busy = _trainer_busy(db, pk["trainer_id"], start, PT_MINUTES)
    if busy:
        raise ToolError(f"{pk['trainer']} is {busy} that day; pick another time (get_trainer_schedule shows the day).")
    mine = db.value("SELECT COUNT(*) FROM pt_sessions ps JOIN pt_packages p ON p.id = ps.package_id WHERE p.member_id = ? "
                    "AND ps.status = 'scheduled' AND ps.starts_at = ?", (m["id"], start.isoformat()))
    if mine:
        raise ToolError(f"{m['name']} already has a training session at that time.")
    sid = db.insert("pt_sessions", {"package_id": package_id, "starts_at": start.isoformat(), "status": "scheduled",
                                    "created_at": _now(db)})
    db.execute("UPDATE pt_packages SET sessions_remaining = sessions_remaining - 1 WHERE id = ?", (package_id,))
    return {"pt_session_id": sid, "trainer": pk["trainer"], "starts_at": start.isoformat()[:16],
            "sessions_remaining": pk["sessions_remaining"] - 1}


@tool(write=True)
def cancel_pt_session(db: Db, member_email: str, pt_session_id: int) -> dict:
    """Cancel a scheduled personal-training session. At least 24 hours ahead the session goes back to the package;
    later it is forfeited.

    Args:
        member_email: the member's e-mail address.
        pt_session_id: the session's id (list_pt_packages shows them).
    """
    m = _member(db, member_email)
    ps = db.one("SELECT ps.*, pk.member_id FROM pt_sessions ps JOIN pt_packages pk ON pk.id = ps.package_id WHERE ps.id = ? "
                "AND pk.member_id = ?", (pt_session_id, m["id"]),
                missing=f"Training session {pt_session_id} is not one of {m['name']}'s.")
    if ps["status"] != "scheduled" or ps["starts_at"] <= _now(db):
        raise ToolError(f"Training session {pt_session_id} is {ps['status']} or has started.")
    early = datetime.fromisoformat(ps["starts_at"]) - db.now() >= timedelta(hours=PT_CANCEL_HOURS)
    db.execute("UPDATE pt_sessions SET status = ? WHERE id = ?", ("cancelled" if early else "forfeited", pt_session_id))
    if early:
        db.execute("UPDATE pt_packages SET sessions_remaining = sessions_remaining + 1 WHERE id = ?", (ps["package_id"],))
    return {"pt_session_id": pt_session_id, "status": "cancelled" if early else "forfeited", "session_returned": early}


@tool(write=True)
def complete_pt_session(db: Db, trainer_email: str, pt_session_id: int) -> dict:
    """For trainers: mark one of their scheduled training sessions as done once it has started.

    Args:
        trainer_email: the trainer's staff e-mail.
        pt_session_id: the session's id.
    """
    t = _staff(db, trainer_email, ("trainer",))
    ps = db.one("SELECT ps.*, pk.trainer_id FROM pt_sessions ps JOIN pt_packages pk ON pk.id = ps.package_id WHERE ps.id = ? "
                "AND pk.trainer_id = ?", (pt_session_id, t["id"]),
                missing=f"Training session {pt_session_id} is not one of {t['full_name']}'s.")
    if ps["status"] != "scheduled":
        raise ToolError(f"Training session {pt_session_id} is {ps['status']}.")
    if ps["starts_at"] > _now(db):
        raise ToolError("The session has not started yet.")
    db.execute("UPDATE pt_sessions SET status = 'completed' WHERE id = ?", (pt_session_id,))
    return {"pt_session_id": pt_session_id, "status": "completed"}


@tool(write=True)
def issue_guest_pass(db: Db, member_email: str, club_code: str, guest_name: str, visit_date: str) -> dict:
    """Issue a one-day guest pass for a member's guest at a club the member's plan covers, for today or a day up to
    30 days ahead. Plans allow a fixed number of guest passes per calendar month of the visit (Plus 1, Premium 4).

    Args:
        member_email: the member's e-mail address.
        club_code: the club the guest will visit.
        guest_name: the guest's full name.
        visit_date: the day of the visit, YYYY-MM-DD.
    """
    m = _member(db, member_email)
    c = _club(db, club_code)
    _may_use(db, m, c, "bring guests")
    ms = m["ms"]
    if ms["guest_passes_per_month"] == 0:
        raise ToolError(f"The {ms['plan_name']} plan includes no guest passes.")
    d = _date(visit_date, "visit_date")
    if not db.today() <= d <= db.today() + timedelta(days=30):
        raise ToolError("visit_date must be between today and 30 days ahead.")
    name = " ".join(guest_name.split())
    if not 3 <= len(name) <= 80:
        raise ToolError("guest_name must be the guest's full name (3 to 80 characters).")
    used = db.value("SELECT COUNT(*) FROM guest_passes WHERE member_id = ? AND substr(visit_date, 1, 7) = ?",
                    (m["id"], d.isoformat()[:7]))
    if used >= ms["guest_passes_per_month"]:
        raise ToolError(f"{m['name']} has used all {ms['guest_passes_per_month']} guest pass(es) for "
                        f"{d.strftime('%B %Y')}.")
    gid = db.insert("guest_passes", {"member_id": m["id"], "club_id": c["id"], "guest_name": name,
                                     "visit_date": d.isoformat(), "created_at": _now(db)})
    return {"guest_pass_id": gid, "guest": name, "club": c["code"], "visit_date": d.isoformat(),
            "passes_left_that_month": ms["guest_passes_per_month"] - used - 1}


@tool(write=True)
def rent_locker(db: Db, member_email: str, club_code: str, size: Literal["small", "large"]) -> dict:
    """Rent the lowest-numbered free locker of a size at a club the member's plan covers; the first month is
    invoiced now. One locker per member per club.

    Args:
        member_email: the member's e-mail address.
        club_code: the club's code.
        size: "small" or "large".
    """
    m = _member(db, member_email)
    c = _club(db, club_code)
    _may_use(db, m, c, "rent a locker")
    have = db.value("SELECT l.number FROM locker_rentals r JOIN lockers l ON l.id = r.locker_id WHERE r.member_id = ? "
                    "AND r.status = 'active' AND l.club_id = ?", (m["id"], c["id"]))
    if have:
        raise ToolError(f"{m['name']} already rents locker {have} at {c['name']}.")
    l = db.one("SELECT * FROM lockers l WHERE l.club_id = ? AND l.size = ? AND l.out_of_service = 0 AND NOT EXISTS "
               "(SELECT 1 FROM locker_rentals r WHERE r.locker_id = l.id AND r.status = 'active') ORDER BY l.number LIMIT 1",
               (c["id"], size),
               missing=f"No {size} locker is free at {c['name']}.")
    db.insert("locker_rentals", {"locker_id": l["id"], "member_id": m["id"], "start_date": db.today().isoformat(),
                                 "end_date": None, "status": "active"})
    number = _invoice(db, m["id"], "locker", f"Locker {l['number']} at {c['name']}, first month", l["monthly_fee_cents"])
    return {"club": c["code"], "locker": l["number"], "size": size, "monthly_fee": _money(l["monthly_fee_cents"]),
            "invoice": number}


@tool(write=True)
def release_locker(db: Db, member_email: str, club_code: str, locker_number: str) -> dict:
    """End a member's locker rental from today.

    Args:
        member_email: the member's e-mail address.
        club_code: the club's code.
        locker_number: the locker's number, e.g. "S07".
    """
    m = _member(db, member_email)
    c = _club(db, club_code)
    r = db.one("SELECT r.id FROM locker_rentals r JOIN lockers l ON l.id = r.locker_id WHERE r.member_id = ? AND "
               "r.status = 'active' AND l.club_id = ? AND upper(l.number) = upper(?)", (m["id"], c["id"], locker_number.strip()),
               missing=f"{m['name']} does not rent locker {locker_number!r} at {c['name']}.")
    db.execute("UPDATE locker_rentals SET status = 'ended', end_date = ? WHERE id = ?", (db.today().isoformat(), r["id"]))
    return {"club": c["code"], "locker": locker_number.strip().upper(), "status": "ended"}
