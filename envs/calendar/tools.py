"""Tools of the calendar world: shared calendars, meetings, rooms and time off for one company.

Every tool takes the e-mail of the person acting (``user_email``). People see events on calendars they
own or that are shared with them, and events they organise or are invited to; of anyone else they see
only free/busy. Only an event's organiser may change it; invitees may only answer (RSVP). Times are
local office time written "YYYY-MM-DDTHH:MM" (seconds optional); dates "YYYY-MM-DD".
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, clean_text, like_any, like_contains, parse_day, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import iso_seconds as _iso
from awm.tooling import now_iso as _now

Response = Literal["accepted", "declined", "tentative"]
Permission = Literal["read", "write"]
MAX_EVENT_MINUTES = 8 * 60
MAX_SERIES_OCCURRENCES = 26
MAX_TIME_OFF_DAYS = 30
MAX_REMINDERS = 5
REMINDER_MINUTES = (5, 10, 15, 30, 60, 120, 1440)
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _dt(value: str, what: str) -> datetime:
    v = value.strip().replace(" ", "T")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:00)?", v):
        raise ToolError(f"{what} must be a local time written YYYY-MM-DDTHH:MM, e.g. '2026-03-20T14:30' (got {value!r})")
    try:
        d = datetime.fromisoformat(v)
    except ValueError:
        raise ToolError(f"{what} is not a real date and time (got {value!r})") from None
    if d.minute % 5:
        raise ToolError(f"{what} must fall on a 5-minute mark (got {value!r})")
    return d


def _hm(value: str, what: str) -> str:
    v = value.strip()
    if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", v):
        raise ToolError(f"{what} must be a time written HH:MM, e.g. '09:30' (got {value!r})")
    return v


def _user(db: Db, email: str, what: str = "user") -> dict[str, Any]:
    row = db.one("SELECT * FROM users WHERE email = ?", (email.strip().lower(),),
                 missing=f"No {what} with e-mail {email!r}. Use find_people to look people up by name.")
    if not row["is_active"]:
        raise ToolError(f"{row['full_name']} ({row['email']}) has left the company; their account is inactive.")
    return row


def _calendar(db: Db, calendar_id: int) -> dict[str, Any]:
    return db.one("SELECT c.*, u.full_name AS owner_name, u.email AS owner_email FROM calendars c JOIN users u "
                  "ON u.id = c.owner_id WHERE c.id = ?", (calendar_id,),
                  missing=f"No calendar {calendar_id}. list_calendars shows the calendars you can use.")


def _permission(db: Db, cal: dict[str, Any], user_id: int) -> str | None:
    if cal["owner_id"] == user_id:
        return "owner"
    return db.value("SELECT permission FROM calendar_shares WHERE calendar_id = ? AND user_id = ?", (cal["id"], user_id))


def _event(db: Db, event_id: int) -> dict[str, Any]:
    return db.one("SELECT e.*, u.full_name AS organizer_name, u.email AS organizer_email, c.name AS calendar_name "
                  "FROM events e JOIN users u ON u.id = e.organizer_id JOIN calendars c ON c.id = e.calendar_id "
                  "WHERE e.id = ?", (event_id,),
                  missing=f"No event {event_id}. Use list_events or search_events to find event ids.")


def _attendee(db: Db, event_id: int, user_id: int) -> dict[str, Any] | None:
    return db.one("SELECT * FROM attendees WHERE event_id = ? AND user_id = ?", (event_id, user_id))


def _visible(db: Db, ev: dict[str, Any], user: dict[str, Any]) -> None:
    if ev["organizer_id"] == user["id"] or _attendee(db, ev["id"], user["id"]):
        return
    if _permission(db, _calendar(db, ev["calendar_id"]), user["id"]):
        return
    raise ToolError(f"Event {ev['id']} is not on a calendar you can see and you are not invited; "
                    "get_free_busy shows only when others are busy.")


def _future(db: Db, ev: dict[str, Any], what: str) -> None:
    if ev["status"] == "cancelled":
        raise ToolError(f"'{ev['title']}' on {ev['start_at'][:10]} is cancelled; you cannot {what}.")
    if ev["start_at"] < _now(db):
        raise ToolError(f"'{ev['title']}' started at {ev['start_at']}, in the past; you cannot {what}.")


def _organised(db: Db, user_email: str, event_id: int, change: str, verb: str) -> tuple[dict, dict]:
    """The acting person and an upcoming event they organise: only the organiser can ``change`` an event, and
    only before it starts (``verb`` is what a cancelled or past event refuses)."""
    me = _user(db, user_email)
    ev = _event(db, event_id)
    require_owner(ev, "organizer_id", me["id"], f"Only the organiser, {ev['organizer_name']} "
                  f"({ev['organizer_email']}), can {change}. Invitees can only answer the invitation.")
    _future(db, ev, verb)
    return me, ev


def _notify(db: Db, user_id: int, event_id: int, kind: str, message: str) -> None:
    db.insert("notifications", {"user_id": user_id, "event_id": event_id, "kind": kind, "message": message,
                                "is_read": 0, "created_at": _now(db)})


def _log(db: Db, event_id: int, actor_id: int, field: str, old: Any, new: Any) -> None:
    db.insert("event_changes", {"event_id": event_id, "actor_id": actor_id, "field": field,
                                "old_value": None if old is None else str(old),
                                "new_value": None if new is None else str(new), "changed_at": _now(db)})


def _time_off(db: Db, user_id: int, day: str) -> dict[str, Any] | None:
    return db.one("SELECT * FROM time_off WHERE user_id = ? AND start_date <= ? AND end_date >= ?", (user_id, day, day))


def _hours(db: Db, user_id: int, weekday: int) -> dict[str, Any] | None:
    return db.one("SELECT start_time, end_time FROM working_hours WHERE user_id = ? AND weekday = ?",
                  (user_id, weekday))


def _busy(db: Db, user_id: int, day: str) -> list[dict[str, Any]]:
    """A person's confirmed meetings on one day that they organise or have not declined, in time order."""
    return db.query("SELECT e.start_at, e.end_at FROM events e WHERE e.status = 'confirmed' "
                    "AND substr(e.start_at, 1, 10) = ? AND (e.organizer_id = ? OR EXISTS (SELECT 1 FROM attendees a "
                    "WHERE a.event_id = e.id AND a.user_id = ? AND a.response <> 'declined')) ORDER BY e.start_at",
                    (day, user_id, user_id))


def _headcount(db: Db, event_id: int) -> int:
    return 1 + db.value("SELECT COUNT(*) FROM attendees WHERE event_id = ? AND response <> 'declined'", (event_id,))


def _room_named(db: Db, name: str) -> dict[str, Any]:
    return db.one("SELECT * FROM rooms WHERE lower(name) = lower(?)", (name.strip(),),
                  missing=f"No room named {name!r}. list_rooms shows the rooms.")


def _room(db: Db, name: str) -> dict[str, Any]:
    row = _room_named(db, name)
    if not row["is_active"]:
        raise ToolError(f"Room {row['name']} is closed and cannot be booked.")
    return row


def _room_conflict(db: Db, room_id: int, start: str, end: str, exclude_event: int | None) -> dict[str, Any] | None:
    return db.one("SELECT b.*, e.title FROM room_bookings b JOIN events e ON e.id = b.event_id WHERE b.room_id = ? "
                  "AND b.status = 'active' AND e.status = 'confirmed' AND b.start_at < ? AND b.end_at > ? "
                  "AND b.event_id IS NOT ? ORDER BY b.start_at LIMIT 1", (room_id, end, start, exclude_event))


def _check_room(db: Db, room: dict[str, Any], start: str, end: str, people: int, exclude_event: int | None) -> None:
    if people > room["capacity"]:
        raise ToolError(f"Room {room['name']} seats {room['capacity']} but the meeting has {people} people "
                        "(organiser and invitees who have not declined). Choose a bigger room (list_rooms).")
    c = _room_conflict(db, room["id"], start, end, exclude_event)
    if c:
        raise ToolError(f"Room {room['name']} is already booked from {c['start_at'][11:16]} to {c['end_at'][11:16]} "
                        f"on {c['start_at'][:10]}. Pick another room or time (get_room_schedule shows its bookings).")


def _active_booking(db: Db, event_id: int) -> dict[str, Any] | None:
    return db.one("SELECT b.*, r.name AS room_name FROM room_bookings b JOIN rooms r ON r.id = b.room_id "
                  "WHERE b.event_id = ? AND b.status = 'active'", (event_id,))


def _span(db: Db, start_at: str, end_at: str) -> tuple[str, str]:
    s, e = _dt(start_at, "start_at"), _dt(end_at, "end_at")
    if e <= s:
        raise ToolError("end_at must be after start_at.")
    if s.date() != e.date():
        raise ToolError("An event must start and end on the same day.")
    if (e - s).total_seconds() / 60 > MAX_EVENT_MINUTES:
        raise ToolError(f"An event may last at most {MAX_EVENT_MINUTES // 60} hours.")
    if _iso(s) < _now(db):
        raise ToolError(f"{_iso(s)} is in the past (now is {_now(db)}); events can only be scheduled ahead.")
    return _iso(s), _iso(e)


def _invitees(db: Db, emails: list[str], organizer: dict[str, Any], day: str, event_id: int | None) -> list[dict]:
    out: list[dict] = []
    for e in emails:
        u = _user(db, e, "invitee")
        if u["id"] == organizer["id"]:
            raise ToolError("The organiser is always part of the meeting; do not invite yourself.")
        if any(x["id"] == u["id"] for x in out):
            raise ToolError(f"{u['email']} is listed twice.")
        if event_id is not None and _attendee(db, event_id, u["id"]):
            raise ToolError(f"{u['full_name']} is already invited.")
        off = _time_off(db, u["id"], day)
        if off:
            raise ToolError(f"{u['full_name']} is on {off['kind']} time off from {off['start_date']} to {off['end_date']} "
                            f"and cannot be invited on {day}. Pick another day or leave them out.")
        out.append(u)
    return out


def _invitation(organizer: dict[str, Any], title: str, start_at: str) -> str:
    return f"{organizer['full_name']} invited you to '{title}' on {start_at[:10]} at {start_at[11:16]}."


def _cancellation(organizer: dict[str, Any], title: str, start_at: str) -> str:
    return f"{organizer['full_name']} cancelled '{title}' on {start_at[:10]} at {start_at[11:16]}."


def _invite(db: Db, event_id: int, people: list[dict], optional: int, invitation: str | None = None) -> None:
    """Put people on an event's guest list, each with an answer still to give (and the invitation, if any)."""
    for u in people:
        db.insert("attendees", {"event_id": event_id, "user_id": u["id"], "response": "needs_action",
                                "is_optional": optional, "responded_at": None})
        if invitation is not None:
            _notify(db, u["id"], event_id, "invited", invitation)


def _event_row(db: Db, e: dict[str, Any], user_id: int) -> dict[str, Any]:
    me = _attendee(db, e["id"], user_id)
    b = _active_booking(db, e["id"])
    return {"id": e["id"], "title": e["title"], "start_at": e["start_at"], "end_at": e["end_at"], "status": e["status"],
            "organizer": e.get("organizer_email"), "calendar_id": e["calendar_id"], "series_id": e["series_id"],
            "room": b["room_name"] if b else None,
            "my_role": "organizer" if e["organizer_id"] == user_id else ("attendee" if me else "calendar viewer"),
            "my_response": me["response"] if me else None}


def _call_off(db: Db, event_id: int, now: str) -> None:
    """Mark an event cancelled and release its room."""
    db.execute("UPDATE events SET status = 'cancelled', cancelled_at = ?, updated_at = ? WHERE id = ?",
               (now, now, event_id))
    db.execute("UPDATE room_bookings SET status = 'released' WHERE event_id = ? AND status = 'active'", (event_id,))


def _cancel(db: Db, ev: dict[str, Any], actor: dict[str, Any], reason: str) -> int:
    _call_off(db, ev["id"], _now(db))
    _log(db, ev["id"], actor["id"], "status", "confirmed", "cancelled")
    people = db.query("SELECT user_id FROM attendees WHERE event_id = ? ORDER BY id", (ev["id"],))
    msg = _cancellation(actor, ev["title"], ev["start_at"])
    if reason.strip():
        msg += " Reason: " + reason.strip()
    for p in people:
        _notify(db, p["user_id"], ev["id"], "cancelled", msg)
    return len(people)


def _exception(db: Db, ev: dict[str, Any], action: str) -> None:
    """Record that one occurrence of a series departs from it (cancelled wins over rescheduled)."""
    old = db.one("SELECT * FROM series_exceptions WHERE series_id = ? AND occurrence_date = ?",
                 (ev["series_id"], ev["occurrence_date"]))
    if old is None:
        db.insert("series_exceptions", {"series_id": ev["series_id"], "occurrence_date": ev["occurrence_date"],
                                        "action": action, "event_id": ev["id"], "created_at": _now(db)})
    elif action == "cancelled" and old["action"] != "cancelled":
        db.execute("UPDATE series_exceptions SET action = 'cancelled' WHERE id = ?", (old["id"],))


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def find_people(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Look colleagues up by part of their name, e-mail, department or job title.

    Args:
        query: words to look for, e.g. "Nadia" or "finance".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "lower(full_name)", "email", "lower(department)", "lower(title)", lower=True)
    return db.query(f"SELECT full_name, email, department, title, is_active FROM users WHERE {who} "
                    "ORDER BY full_name, email LIMIT ?", (*params, limit))


@tool
def get_working_hours(db: Db, user_email: str) -> dict:
    """Show a person's working hours per weekday and their time off from today on.

    Args:
        user_email: the person's e-mail address.
    """
    u = _user(db, user_email)
    hours = db.query("SELECT weekday, start_time, end_time FROM working_hours WHERE user_id = ? ORDER BY weekday", (u["id"],))
    return {"name": u["full_name"], "email": u["email"],
            "working_hours": [{"day": WEEKDAYS[h["weekday"]], "start": h["start_time"], "end": h["end_time"]} for h in hours],
            "time_off": db.query("SELECT start_date, end_date, kind FROM time_off WHERE user_id = ? AND end_date >= ? "
                                 "ORDER BY start_date", (u["id"], db.today().isoformat()))}


@tool
def list_calendars(db: Db, user_email: str) -> list[dict]:
    """List the calendars a person owns or that are shared with them, with their permission on each.

    Args:
        user_email: the acting person's e-mail address.
    """
    u = _user(db, user_email)
    return db.query(
        "SELECT c.id, c.name, c.color, c.is_primary, o.email AS owner, 'owner' AS permission FROM calendars c "
        "JOIN users o ON o.id = c.owner_id WHERE c.owner_id = ? UNION ALL SELECT c.id, c.name, c.color, c.is_primary, "
        "o.email, s.permission FROM calendar_shares s JOIN calendars c ON c.id = s.calendar_id JOIN users o ON o.id = c.owner_id "
        "WHERE s.user_id = ? ORDER BY 1", (u["id"], u["id"]))


@tool
def get_calendar_sharing(db: Db, user_email: str, calendar_id: int) -> dict:
    """Show who a calendar you own is shared with, and with which permission.

    Args:
        user_email: the acting person's e-mail address (the calendar's owner).
        calendar_id: the calendar's id.
    """
    u = _user(db, user_email)
    cal = _calendar(db, calendar_id)
    require_owner(cal, "owner_id", u["id"],
                  f"Calendar {calendar_id} belongs to {cal['owner_name']}; only its owner can see its sharing.")
    return {"calendar": cal["name"], "shared_with": db.query(
        "SELECT u.full_name, u.email, s.permission FROM calendar_shares s JOIN users u ON u.id = s.user_id "
        "WHERE s.calendar_id = ? ORDER BY u.full_name", (calendar_id,))}


_VISIBLE = ("(e.organizer_id = :u OR EXISTS (SELECT 1 FROM attendees a WHERE a.event_id = e.id AND a.user_id = :u) "
            "OR EXISTS (SELECT 1 FROM calendars c WHERE c.id = e.calendar_id AND c.owner_id = :u) "
            "OR EXISTS (SELECT 1 FROM calendar_shares s WHERE s.calendar_id = e.calendar_id AND s.user_id = :u))")


@tool
def list_events(db: Db, user_email: str, date_from: str, date_to: str, calendar_id: int | None = None,
                only_mine: bool = False, include_cancelled: bool = False, limit: int = 50) -> list[dict]:
    """List the events a person can see between two dates (inclusive), in time order, with their own role and
    answer on each.

    Args:
        user_email: the acting person's e-mail address.
        date_from: first day, YYYY-MM-DD.
        date_to: last day, YYYY-MM-DD (at most 62 days after date_from).
        calendar_id: only events on this calendar.
        only_mine: only events the person organises or is invited to (not just visible on a shared calendar).
        include_cancelled: also list cancelled events.
        limit: maximum number of events, 1 to 100.
    """
    u = _user(db, user_email)
    _limit(limit, 100)
    d1, d2 = parse_day(date_from, "date_from"), parse_day(date_to, "date_to")
    if d2 < d1 or (d2 - d1).days > 62:
        raise ToolError("date_to must be on or after date_from and at most 62 days later.")
    if calendar_id is not None and not _permission(db, _calendar(db, calendar_id), u["id"]):
        raise ToolError(f"Calendar {calendar_id} is not yours and not shared with you.")
    rows = db.query(
        "SELECT e.*, o.email AS organizer_email FROM events e JOIN users o ON o.id = e.organizer_id WHERE " + _VISIBLE +
        " AND substr(e.start_at, 1, 10) BETWEEN :d1 AND :d2 AND (:cal IS NULL OR e.calendar_id = :cal) "
        "AND (:mine = 0 OR e.organizer_id = :u OR EXISTS (SELECT 1 FROM attendees a WHERE a.event_id = e.id AND a.user_id = :u)) "
        "AND (:canc = 1 OR e.status = 'confirmed') ORDER BY e.start_at, e.id LIMIT :lim",
        {"u": u["id"], "d1": d1.isoformat(), "d2": d2.isoformat(), "cal": calendar_id, "mine": int(only_mine),
         "canc": int(include_cancelled), "lim": limit})
    return [_event_row(db, e, u["id"]) for e in rows]


@tool
def search_events(db: Db, user_email: str, text: str, date_from: str | None = None, date_to: str | None = None,
                  limit: int = 20) -> list[dict]:
    """Find events the person can see whose title, description or location contains the text.

    Args:
        user_email: the acting person's e-mail address.
        text: words to look for.
        date_from: only events on or after this day, YYYY-MM-DD.
        date_to: only events on or before this day, YYYY-MM-DD.
        limit: maximum number of results, 1 to 50.
    """
    u = _user(db, user_email)
    _limit(limit)
    d1 = parse_day(date_from, "date_from").isoformat() if date_from else None
    d2 = parse_day(date_to, "date_to").isoformat() if date_to else None
    rows = db.query(
        "SELECT e.*, o.email AS organizer_email FROM events e JOIN users o ON o.id = e.organizer_id WHERE " + _VISIBLE +
        " AND (lower(e.title) LIKE :t ESCAPE '\\' OR lower(e.description) LIKE :t ESCAPE '\\' "
        "OR lower(e.location) LIKE :t ESCAPE '\\') "
        "AND (:d1 IS NULL OR substr(e.start_at, 1, 10) >= :d1) AND (:d2 IS NULL OR substr(e.start_at, 1, 10) <= :d2) "
        "ORDER BY e.start_at, e.id LIMIT :lim",
        {"u": u["id"], "t": like_contains(text.strip(), lower=True), "d1": d1, "d2": d2, "lim": limit})
    return [_event_row(db, e, u["id"]) for e in rows]


@tool
def get_event(db: Db, user_email: str, event_id: int) -> dict:
    """Show one event in full: organiser, time, room, series, description and every invitee's answer.

    Args:
        user_email: the acting person's e-mail address.
        event_id: the event's id.
    """
    u = _user(db, user_email)
    ev = _event(db, event_id)
    _visible(db, ev, u)
    out = _event_row(db, ev, u["id"])
    out.update({"description": ev["description"], "location": ev["location"], "calendar": ev["calendar_name"],
                "organizer_name": ev["organizer_name"], "occurrence_date": ev["occurrence_date"],
                "attendees": db.query("SELECT u.full_name AS name, u.email, a.response, a.is_optional FROM attendees a "
                                      "JOIN users u ON u.id = a.user_id WHERE a.event_id = ? ORDER BY a.id", (event_id,)),
                "headcount": _headcount(db, event_id)})
    return out


@tool
def get_free_busy(db: Db, user_email: str, emails: list[str], day: str) -> list[dict]:
    """When each of the given people is busy on one day (meetings they organise or have not declined), and
    whether they are on time off. Shows times only, never titles.

    Args:
        user_email: the acting person's e-mail address.
        emails: the people to look up (at most 10).
        day: the day, YYYY-MM-DD.
    """
    _user(db, user_email)
    d = parse_day(day, "day").isoformat()
    if not 1 <= len(emails) <= 10:
        raise ToolError("Give 1 to 10 e-mail addresses.")
    out = []
    for e in emails:
        p = _user(db, e, "person")
        busy = [{"start": b["start_at"][11:16], "end": b["end_at"][11:16]} for b in _busy(db, p["id"], d)]
        wh = _hours(db, p["id"], date.fromisoformat(d).weekday())
        off = _time_off(db, p["id"], d)
        out.append({"email": p["email"], "name": p["full_name"], "busy": busy, "on_time_off": off is not None,
                    "working_hours": f"{wh['start_time']}-{wh['end_time']}" if wh else None})
    return out


@tool
def find_free_slots(db: Db, user_email: str, emails: list[str], day: str, duration_min: int) -> dict:
    """Start times (every 15 minutes) on one day when the acting person and everyone listed are inside their
    working hours, not on time off and not busy, for a meeting of the given length.

    Args:
        user_email: the acting person's e-mail address.
        emails: the other people who must attend (at most 10).
        day: the day, YYYY-MM-DD.
        duration_min: the meeting's length in minutes, 15 to 480.
    """
    me = _user(db, user_email)
    d = parse_day(day, "day")
    if not 15 <= duration_min <= 480:
        raise ToolError("duration_min must be between 15 and 480.")
    people = [me] + [_user(db, e, "person") for e in emails[:10]]
    lo, hi = "00:00", "23:59"
    for p in people:
        if _time_off(db, p["id"], d.isoformat()):
            return {"day": d.isoformat(), "slots": [], "note": f"{p['full_name']} is on time off that day."}
        wh = _hours(db, p["id"], d.weekday())
        if wh is None:
            return {"day": d.isoformat(), "slots": [], "note": f"{p['full_name']} does not work on {WEEKDAYS[d.weekday()]}s."}
        lo, hi = max(lo, wh["start_time"]), min(hi, wh["end_time"])
    busy: list[tuple[str, str]] = []
    for p in people:
        busy += [(r["start_at"], r["end_at"]) for r in _busy(db, p["id"], d.isoformat())]
    slots = []
    t = datetime.fromisoformat(f"{d.isoformat()}T{lo}")
    end_limit = datetime.fromisoformat(f"{d.isoformat()}T{hi}")
    while t + timedelta(minutes=duration_min) <= end_limit:
        s, e = _iso(t), _iso(t + timedelta(minutes=duration_min))
        if s >= _now(db) and not any(b0 < e and b1 > s for b0, b1 in busy):
            slots.append(s[11:16])
        t += timedelta(minutes=15)
    return {"day": d.isoformat(), "slots": slots}


@tool
def list_rooms(db: Db, min_capacity: int = 1, building: str | None = None, needs_video: bool = False,
               limit: int = 30) -> list[dict]:
    """List open meeting rooms, smallest first.

    Args:
        min_capacity: only rooms seating at least this many people.
        building: only rooms in this building, e.g. "HQ".
        needs_video: only rooms with video-conferencing.
        limit: maximum number of rooms, 1 to 100.
    """
    _limit(limit, 100)
    return db.query("SELECT name, building, floor, capacity, has_video FROM rooms WHERE is_active = 1 AND capacity >= ? "
                    "AND (? IS NULL OR lower(building) = lower(?)) AND (? = 0 OR has_video = 1) ORDER BY capacity, name LIMIT ?",
                    (min_capacity, building, building, int(needs_video), limit))


@tool
def get_room_schedule(db: Db, room_name: str, day: str) -> dict:
    """Show a room's bookings on one day.

    Args:
        room_name: the room's name.
        day: the day, YYYY-MM-DD.
    """
    r = _room_named(db, room_name)
    d = parse_day(day, "day").isoformat()
    rows = db.query("SELECT substr(b.start_at, 12, 5) AS start, substr(b.end_at, 12, 5) AS end, e.title, u.email AS organizer "
                    "FROM room_bookings b JOIN events e ON e.id = b.event_id JOIN users u ON u.id = e.organizer_id "
                    "WHERE b.room_id = ? AND b.status = 'active' AND e.status = 'confirmed' AND substr(b.start_at, 1, 10) = ? "
                    "ORDER BY b.start_at", (r["id"], d))
    return {"room": r["name"], "capacity": r["capacity"], "is_active": bool(r["is_active"]), "day": d, "bookings": rows}


@tool
def list_invitations(db: Db, user_email: str, response: Literal["needs_action", "accepted", "declined", "tentative"] = "needs_action",
                     from_date: str | None = None, limit: int = 30) -> list[dict]:
    """List invitations a person has received (events organised by others), by their answer, from a day on
    (default today), confirmed events only.

    Args:
        user_email: the acting person's e-mail address.
        response: which answer: needs_action (not answered yet), accepted, declined or tentative.
        from_date: only events on or after this day, YYYY-MM-DD; default today.
        limit: maximum number of results, 1 to 100.
    """
    u = _user(db, user_email)
    _limit(limit, 100)
    d = parse_day(from_date, "from_date").isoformat() if from_date else db.today().isoformat()
    rows = db.query("SELECT e.*, o.email AS organizer_email FROM attendees a JOIN events e ON e.id = a.event_id JOIN users o "
                    "ON o.id = e.organizer_id WHERE a.user_id = ? AND a.response = ? AND e.status = 'confirmed' AND "
                    "substr(e.start_at, 1, 10) >= ? ORDER BY e.start_at, e.id LIMIT ?", (u["id"], response, d, limit))
    return [_event_row(db, e, u["id"]) for e in rows]


@tool
def list_series(db: Db, user_email: str) -> list[dict]:
    """List the weekly series a person organises or attends, with their schedule and dates.

    Args:
        user_email: the acting person's e-mail address.
    """
    u = _user(db, user_email)
    rows = db.query("SELECT s.*, o.email AS organizer FROM event_series s JOIN users o ON o.id = s.organizer_id WHERE "
                    "s.organizer_id = ? OR EXISTS (SELECT 1 FROM events e JOIN attendees a ON a.event_id = e.id WHERE "
                    "e.series_id = s.id AND a.user_id = ?) ORDER BY s.id", (u["id"], u["id"]))
    return [{"series_id": s["id"], "title": s["title"], "organizer": s["organizer"], "day": WEEKDAYS[s["weekday"]],
             "start_time": s["start_time"], "duration_min": s["duration_min"], "first_date": s["first_date"],
             "until_date": s["until_date"], "status": s["status"]} for s in rows]


@tool
def list_reminders(db: Db, user_email: str, event_id: int | None = None) -> list[dict]:
    """List a person's reminders on upcoming events (or on one event).

    Args:
        user_email: the acting person's e-mail address.
        event_id: only reminders on this event.
    """
    u = _user(db, user_email)
    return db.query("SELECT r.event_id, e.title, e.start_at, r.minutes_before, r.method FROM reminders r JOIN events e "
                    "ON e.id = r.event_id WHERE r.user_id = ? AND (? IS NULL OR r.event_id = ?) AND (? IS NOT NULL OR "
                    "e.start_at >= ?) ORDER BY e.start_at, r.minutes_before LIMIT 50",
                    (u["id"], event_id, event_id, event_id, _now(db)))


@tool
def list_time_off(db: Db, user_email: str, include_past: bool = False) -> list[dict]:
    """List a person's time off (vacation, sick, conference, personal).

    Args:
        user_email: the person's e-mail address.
        include_past: also periods that have already ended.
    """
    u = _user(db, user_email)
    return db.query("SELECT id, start_date, end_date, kind, note FROM time_off WHERE user_id = ? AND (? = 1 OR end_date >= ?) "
                    "ORDER BY start_date", (u["id"], int(include_past), db.today().isoformat()))


@tool
def list_notifications(db: Db, user_email: str, unread_only: bool = True, limit: int = 20) -> list[dict]:
    """List a person's notifications (invitations, changes, cancellations, answers), newest first.

    Args:
        user_email: the acting person's e-mail address.
        unread_only: only unread ones.
        limit: maximum number of results, 1 to 50.
    """
    u = _user(db, user_email)
    _limit(limit)
    return db.query("SELECT id, event_id, kind, message, is_read, created_at FROM notifications WHERE user_id = ? AND "
                    "(? = 0 OR is_read = 0) ORDER BY created_at DESC, id DESC LIMIT ?", (u["id"], int(unread_only), limit))


# ----------------------------------------------------------------------------------------------
# write tools: events
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_event(db: Db, user_email: str, calendar_id: int, title: str, start_at: str, end_at: str,
                 attendees: list[str] | None = None, optional_attendees: list[str] | None = None,
                 room: str | None = None, description: str = "", location: str = "") -> dict:
    """Create a meeting organised by the acting person on a calendar they own or may write to, invite people
    (each gets an invitation to answer) and optionally book a room. Invitees on time off that day cannot be
    invited; the room must be open, free at that time and seat everyone.

    Args:
        user_email: the acting person's e-mail address (the organiser).
        calendar_id: the calendar to put it on (list_calendars shows yours).
        title: the meeting's title.
        start_at: start, YYYY-MM-DDTHH:MM (in the future).
        end_at: end, YYYY-MM-DDTHH:MM, the same day, at most 8 hours later.
        attendees: e-mail addresses of required invitees.
        optional_attendees: e-mail addresses of optional invitees.
        room: the name of a room to book.
        description: notes for the invitees.
        location: a free-text location (a room booking fills it when empty).
    """
    me = _user(db, user_email)
    cal = _calendar(db, calendar_id)
    perm = _permission(db, cal, me["id"])
    if perm not in ("owner", "write"):
        raise ToolError(f"You cannot add events to {cal['owner_name']}'s calendar '{cal['name']}'"
                        + (" (read-only share)." if perm == "read" else "."))
    clean_text(title, "The title", 1, 120)
    s, e = _span(db, start_at, end_at)
    req = _invitees(db, attendees or [], me, s[:10], None)
    opt = _invitees(db, optional_attendees or [], me, s[:10], None)
    if {u["id"] for u in req} & {u["id"] for u in opt}:
        raise ToolError("Someone is listed as both required and optional; list each person once.")
    r = None
    if room:
        r = _room(db, room)
        _check_room(db, r, s, e, 1 + len(req) + len(opt), None)
    now = _now(db)
    eid = db.insert("events", {"calendar_id": cal["id"], "organizer_id": me["id"], "series_id": None,
                               "occurrence_date": None, "title": title.strip(), "description": description.strip(),
                               "location": location.strip() or (r["name"] if r else ""), "start_at": s, "end_at": e,
                               "status": "confirmed", "created_at": now, "updated_at": now, "cancelled_at": None})
    invitation = _invitation(me, title.strip(), s)
    _invite(db, eid, req, 0, invitation)
    _invite(db, eid, opt, 1, invitation)
    if r:
        db.insert("room_bookings", {"event_id": eid, "room_id": r["id"], "start_at": s, "end_at": e, "status": "active",
                                    "booked_at": now})
    return {"event_id": eid, "title": title.strip(), "start_at": s, "end_at": e, "room": r["name"] if r else None,
            "invited": [u["email"] for u in req + opt]}


@tool(write=True)
def update_event(db: Db, user_email: str, event_id: int, title: str | None = None, start_at: str | None = None,
                 end_at: str | None = None, description: str | None = None, location: str | None = None) -> dict:
    """Change an upcoming event you organise. Moving it in time re-checks its room booking (the room must be
    free at the new time), asks every invitee to answer again and notifies them. For an occurrence of a
    series, the change applies to that occurrence only.

    Args:
        user_email: the acting person's e-mail address (the organiser).
        event_id: the event's id.
        title: a new title.
        start_at: a new start, YYYY-MM-DDTHH:MM.
        end_at: a new end, YYYY-MM-DDTHH:MM.
        description: new notes.
        location: a new free-text location.
    """
    me, ev = _organised(db, user_email, event_id, "change this event", "change it")
    changes: dict[str, Any] = {}
    if title is not None and title.strip() != ev["title"]:
        changes["title"] = clean_text(title, "The title", 1, 120)
    if description is not None and description.strip() != ev["description"]:
        changes["description"] = description.strip()
    if location is not None and location.strip() != ev["location"]:
        changes["location"] = location.strip()
    if start_at is not None or end_at is not None:
        old_len = datetime.fromisoformat(ev["end_at"]) - datetime.fromisoformat(ev["start_at"])
        new_s = start_at if start_at is not None else ev["start_at"]
        new_e = end_at if end_at is not None else _iso(_dt(new_s, "start_at") + old_len)
        s, e = _span(db, new_s, new_e)
        if (s, e) != (ev["start_at"], ev["end_at"]):
            b = _active_booking(db, event_id)
            if b:
                c = _room_conflict(db, b["room_id"], s, e, event_id)
                if c:
                    raise ToolError(f"Room {b['room_name']} is taken at the new time ({c['start_at'][11:16]}-{c['end_at'][11:16]}). "
                                    "Release the room first (release_room) or choose another time.")
            off = db.query("SELECT u.full_name FROM attendees a JOIN users u ON u.id = a.user_id JOIN time_off t ON "
                           "t.user_id = a.user_id AND t.start_date <= ? AND t.end_date >= ? WHERE a.event_id = ? AND "
                           "a.response <> 'declined'", (s[:10], s[:10], event_id))
            if off:
                raise ToolError(f"{off[0]['full_name']} is on time off on {s[:10]}; remove them first or pick another day.")
            changes["start_at"], changes["end_at"] = s, e
    if not changes:
        raise ToolError("Nothing to change: give at least one new value that differs from the current one.")
    now = _now(db)
    for f, v in changes.items():
        if f in ("start_at", "end_at"):
            continue
        db.execute(f"UPDATE events SET {f} = ?, updated_at = ? WHERE id = ?", (v, now, event_id))
        _log(db, event_id, me["id"], f, ev[f], v)
    if "start_at" in changes:
        db.execute("UPDATE events SET start_at = ?, end_at = ?, updated_at = ? WHERE id = ?",
                   (changes["start_at"], changes["end_at"], now, event_id))
        _log(db, event_id, me["id"], "start_at", ev["start_at"], changes["start_at"])
        _log(db, event_id, me["id"], "end_at", ev["end_at"], changes["end_at"])
    if "start_at" in changes:
        db.execute("UPDATE room_bookings SET start_at = ?, end_at = ? WHERE event_id = ? AND status = 'active'",
                   (changes["start_at"], changes["end_at"], event_id))
        db.execute("UPDATE attendees SET response = 'needs_action', responded_at = NULL WHERE event_id = ?", (event_id,))
        if ev["series_id"]:
            _exception(db, ev, "rescheduled")
    new = {**ev, **changes}
    for a in db.query("SELECT user_id FROM attendees WHERE event_id = ? ORDER BY id", (event_id,)):
        _notify(db, a["user_id"], event_id, "updated", f"{me['full_name']} changed '{new['title']}' (now {new['start_at'][:10]} "
                f"{new['start_at'][11:16]}-{new['end_at'][11:16]}).")
    return {"event_id": event_id, "changed": sorted(changes), "start_at": new["start_at"], "end_at": new["end_at"]}


@tool(write=True)
def cancel_event(db: Db, user_email: str, event_id: int, reason: str = "") -> dict:
    """Cancel an upcoming event you organise: its room is released and every invitee is notified. For a
    series occurrence this cancels that occurrence only (cancel_occurrence does the same by date).

    Args:
        user_email: the acting person's e-mail address (the organiser).
        event_id: the event's id.
        reason: an optional reason included in the notification.
    """
    me, ev = _organised(db, user_email, event_id, "cancel this event", "cancel it")
    n = _cancel(db, ev, me, reason)
    if ev["series_id"]:
        _exception(db, ev, "cancelled")
    return {"event_id": event_id, "status": "cancelled", "notified": n}


@tool(write=True)
def add_attendees(db: Db, user_email: str, event_id: int, emails: list[str], optional: bool = False) -> dict:
    """Invite more people to an upcoming event you organise (they get an invitation to answer). People on
    time off that day cannot be invited, and a booked room must still seat everyone.

    Args:
        user_email: the acting person's e-mail address (the organiser).
        event_id: the event's id.
        emails: e-mail addresses to invite.
        optional: invite them as optional attendees.
    """
    me, ev = _organised(db, user_email, event_id, "invite people", "invite people")
    if not emails:
        raise ToolError("Give at least one e-mail address.")
    people = _invitees(db, emails, me, ev["start_at"][:10], event_id)
    b = _active_booking(db, event_id)
    if b:
        cap = db.value("SELECT capacity FROM rooms WHERE id = ?", (b["room_id"],))
        if _headcount(db, event_id) + len(people) > cap:
            raise ToolError(f"Room {b['room_name']} seats {cap}; with {len(people)} more the meeting would have "
                            f"{_headcount(db, event_id) + len(people)}. Book a bigger room first.")
    _invite(db, event_id, people, int(optional), _invitation(me, ev["title"], ev["start_at"]))
    return {"event_id": event_id, "invited": [u["email"] for u in people]}


@tool(write=True)
def remove_attendee(db: Db, user_email: str, event_id: int, email: str) -> dict:
    """Take someone off the guest list of an upcoming event you organise (they are notified).

    Args:
        user_email: the acting person's e-mail address (the organiser).
        event_id: the event's id.
        email: the invitee's e-mail address.
    """
    me, ev = _organised(db, user_email, event_id, "remove invitees", "change its guests")
    u = db.one("SELECT * FROM users WHERE email = ?", (email.strip().lower(),))
    if u is None or not _attendee(db, event_id, u["id"]):
        raise ToolError(f"{email} is not invited to '{ev['title']}'.")
    db.execute("DELETE FROM attendees WHERE event_id = ? AND user_id = ?", (event_id, u["id"]))
    db.execute("DELETE FROM reminders WHERE event_id = ? AND user_id = ?", (event_id, u["id"]))
    _notify(db, u["id"], event_id, "removed", f"{me['full_name']} removed you from '{ev['title']}' on {ev['start_at'][:10]}.")
    return {"event_id": event_id, "removed": u["email"]}


@tool(write=True)
def respond_to_invitation(db: Db, user_email: str, event_id: int, response: Response, whole_series: bool = False) -> dict:
    """Answer an invitation to an upcoming event: accepted, declined or tentative. The organiser is notified.
    With whole_series, the answer also applies to every later occurrence of the same series you are invited to.

    Args:
        user_email: the acting person's e-mail address (the invitee).
        event_id: the event's id.
        response: "accepted", "declined" or "tentative".
        whole_series: for a series occurrence, answer for this and all later occurrences too.
    """
    me = _user(db, user_email)
    ev = _event(db, event_id)
    if ev["organizer_id"] == me["id"]:
        raise ToolError("You organise this event; organisers do not answer their own invitations.")
    a = _attendee(db, event_id, me["id"])
    if a is None:
        raise ToolError(f"You are not invited to event {event_id}; ask the organiser, {ev['organizer_name']}, to invite you.")
    _future(db, ev, "answer it")
    if whole_series and not ev["series_id"]:
        raise ToolError("This event is not part of a series; answer without whole_series.")
    targets = [ev]
    if whole_series:
        targets = db.query("SELECT e.* FROM events e JOIN attendees a ON a.event_id = e.id AND a.user_id = ? WHERE "
                           "e.series_id = ? AND e.status = 'confirmed' AND e.start_at >= ? ORDER BY e.start_at",
                           (me["id"], ev["series_id"], ev["start_at"]))
    elif a["response"] == response:
        raise ToolError(f"You have already answered '{response}' to this event.")
    now = _now(db)
    changed = 0
    for t in targets:
        n = db.execute("UPDATE attendees SET response = ?, responded_at = ? WHERE event_id = ? AND user_id = ? AND response <> ?",
                       (response, now, t["id"], me["id"], response))
        changed += n
    if changed == 0:
        raise ToolError(f"You have already answered '{response}' to every one of these occurrences.")
    _notify(db, ev["organizer_id"], event_id, "rsvp", f"{me['full_name']} {response} '{ev['title']}' on {ev['start_at'][:10]}"
            + (" and later occurrences." if whole_series else "."))
    return {"event_id": event_id, "response": response, "events_answered": changed}


@tool(write=True)
def book_room(db: Db, user_email: str, event_id: int, room_name: str) -> dict:
    """Book a room for an upcoming event you organise that has no room yet. The room must be open, free for
    the whole event and seat the organiser plus every invitee who has not declined.

    Args:
        user_email: the acting person's e-mail address (the organiser).
        event_id: the event's id.
        room_name: the room's name.
    """
    me, ev = _organised(db, user_email, event_id, "book a room for it", "book a room")
    b = _active_booking(db, event_id)
    if b:
        raise ToolError(f"'{ev['title']}' already has room {b['room_name']}; release it first (release_room) to switch rooms.")
    r = _room(db, room_name)
    _check_room(db, r, ev["start_at"], ev["end_at"], _headcount(db, event_id), event_id)
    db.insert("room_bookings", {"event_id": event_id, "room_id": r["id"], "start_at": ev["start_at"], "end_at": ev["end_at"],
                                "status": "active", "booked_at": _now(db)})
    _log(db, event_id, me["id"], "room", None, r["name"])
    return {"event_id": event_id, "room": r["name"], "start_at": ev["start_at"], "end_at": ev["end_at"]}


@tool(write=True)
def release_room(db: Db, user_email: str, event_id: int) -> dict:
    """Give up the room booked for an upcoming event you organise.

    Args:
        user_email: the acting person's e-mail address (the organiser).
        event_id: the event's id.
    """
    me, ev = _organised(db, user_email, event_id, "release its room", "release its room")
    b = _active_booking(db, event_id)
    if b is None:
        raise ToolError(f"'{ev['title']}' has no room booked.")
    db.execute("UPDATE room_bookings SET status = 'released' WHERE id = ?", (b["id"],))
    _log(db, event_id, me["id"], "room", b["room_name"], None)
    return {"event_id": event_id, "released": b["room_name"]}


# ----------------------------------------------------------------------------------------------
# write tools: series
# ----------------------------------------------------------------------------------------------

def _series(db: Db, series_id: int, me: dict[str, Any]) -> dict[str, Any]:
    s = db.one("SELECT s.*, u.full_name AS organizer_name FROM event_series s JOIN users u ON u.id = s.organizer_id "
               "WHERE s.id = ?", (series_id,),
               missing=f"No series {series_id}; list_series shows yours.")
    require_owner(s, "organizer_id", me["id"], f"Only the series organiser, {s['organizer_name']}, can change it.")
    if s["status"] != "active":
        raise ToolError(f"Series '{s['title']}' is {s['status']}.")
    return s


@tool(write=True)
def create_weekly_series(db: Db, user_email: str, calendar_id: int, title: str, weekday: int, start_time: str,
                         duration_min: int, first_date: str, until_date: str, attendees: list[str] | None = None,
                         room: str | None = None) -> dict:
    """Create a weekly meeting organised by the acting person: one occurrence each week on the weekday, from
    the first such day on or after first_date up to until_date (at most 26 occurrences). Invitees and the
    room must be available for every occurrence.

    Args:
        user_email: the acting person's e-mail address (the organiser).
        calendar_id: the calendar (yours, or shared with you for writing).
        title: the meeting's title.
        weekday: 0 = Monday ... 4 = Friday, 5 = Saturday, 6 = Sunday.
        start_time: start time, HH:MM.
        duration_min: length in minutes, 15 to 480.
        first_date: the series starts on the first matching weekday on or after this day, YYYY-MM-DD.
        until_date: the last day an occurrence may fall on, YYYY-MM-DD.
        attendees: e-mail addresses to invite to every occurrence.
        room: a room to book for every occurrence.
    """
    me = _user(db, user_email)
    cal = _calendar(db, calendar_id)
    if _permission(db, cal, me["id"]) not in ("owner", "write"):
        raise ToolError(f"You cannot add events to calendar '{cal['name']}'.")
    if not 0 <= weekday <= 6:
        raise ToolError("weekday must be 0 (Monday) to 6 (Sunday).")
    if not 15 <= duration_min <= 480:
        raise ToolError("duration_min must be between 15 and 480.")
    if not title.strip():
        raise ToolError("Give the series a title.")
    t = _hm(start_time, "start_time")
    d1, d2 = parse_day(first_date, "first_date"), parse_day(until_date, "until_date")
    d = d1 + timedelta(days=(weekday - d1.weekday()) % 7)
    days = []
    while d <= d2:
        days.append(d)
        d += timedelta(days=7)
    if not days:
        raise ToolError("No occurrence falls between first_date and until_date.")
    if len(days) > MAX_SERIES_OCCURRENCES:
        raise ToolError(f"A series may have at most {MAX_SERIES_OCCURRENCES} occurrences; choose an earlier until_date.")
    r = _room(db, room) if room else None
    people: list[dict] = []
    now = _now(db)
    spans = []
    for day in days:
        s = datetime.fromisoformat(f"{day.isoformat()}T{t}")
        spans.append(_span(db, _iso(s), _iso(s + timedelta(minutes=duration_min))))
        people = _invitees(db, attendees or [], me, day.isoformat(), None)
        if r:
            _check_room(db, r, spans[-1][0], spans[-1][1], 1 + len(people), None)
    sid = db.insert("event_series", {"calendar_id": cal["id"], "organizer_id": me["id"], "title": title.strip(),
                                     "weekday": weekday, "start_time": t, "duration_min": duration_min,
                                     "first_date": days[0].isoformat(), "until_date": d2.isoformat(), "status": "active",
                                     "created_at": now})
    for day, (s, e) in zip(days, spans):
        eid = db.insert("events", {"calendar_id": cal["id"], "organizer_id": me["id"], "series_id": sid,
                                   "occurrence_date": day.isoformat(), "title": title.strip(), "description": "",
                                   "location": r["name"] if r else "", "start_at": s, "end_at": e, "status": "confirmed",
                                   "created_at": now, "updated_at": now, "cancelled_at": None})
        _invite(db, eid, people, 0)
        if r:
            db.insert("room_bookings", {"event_id": eid, "room_id": r["id"], "start_at": s, "end_at": e,
                                        "status": "active", "booked_at": now})
        if day == days[0]:
            for u in people:
                _notify(db, u["id"], eid, "invited", f"{me['full_name']} invited you to the weekly '{title.strip()}' "
                        f"({WEEKDAYS[weekday]}s at {t}, from {days[0]} to {days[-1]}).")
    return {"series_id": sid, "occurrences": len(days), "first": days[0].isoformat(), "last": days[-1].isoformat()}


@tool(write=True)
def cancel_occurrence(db: Db, user_email: str, series_id: int, occurrence_date: str, reason: str = "") -> dict:
    """Cancel one upcoming occurrence of a weekly series you organise, by its date; the rest of the series
    stays. Its room is released and its invitees are notified.

    Args:
        user_email: the acting person's e-mail address (the organiser).
        series_id: the series' id (list_series shows it).
        occurrence_date: the date of the occurrence, YYYY-MM-DD.
        reason: an optional reason included in the notification.
    """
    me = _user(db, user_email)
    s = _series(db, series_id, me)
    d = parse_day(occurrence_date, "occurrence_date").isoformat()
    ev = db.one("SELECT e.*, u.full_name AS organizer_name, u.email AS organizer_email FROM events e JOIN users u "
                "ON u.id = e.organizer_id WHERE e.series_id = ? AND e.occurrence_date = ?", (series_id, d),
                missing=f"'{s['title']}' has no occurrence on {d}; it meets on {WEEKDAYS[s['weekday']]}s.")
    _future(db, ev, "cancel it")
    n = _cancel(db, ev, me, reason)
    _exception(db, ev, "cancelled")
    return {"series_id": series_id, "cancelled_event_id": ev["id"], "date": d, "notified": n}


@tool(write=True)
def end_series(db: Db, user_email: str, series_id: int, last_date: str) -> dict:
    """End a weekly series you organise after a given day: later occurrences are cancelled (rooms released)
    and the series is marked ended. Invitees get one notification.

    Args:
        user_email: the acting person's e-mail address (the organiser).
        series_id: the series' id.
        last_date: the last day the series still meets, YYYY-MM-DD (today or later).
    """
    me = _user(db, user_email)
    s = _series(db, series_id, me)
    d = parse_day(last_date, "last_date")
    if d < db.today():
        raise ToolError("last_date cannot be in the past.")
    if d.isoformat() >= s["until_date"]:
        raise ToolError(f"The series already ends on {s['until_date']}.")
    later = db.query("SELECT e.*, u.full_name AS organizer_name FROM events e JOIN users u ON u.id = e.organizer_id "
                     "WHERE e.series_id = ? AND e.occurrence_date > ? AND e.status = 'confirmed' ORDER BY e.start_at",
                     (series_id, d.isoformat()))
    now = _now(db)
    for ev in later:
        _call_off(db, ev["id"], now)
    db.execute("UPDATE event_series SET status = 'ended', until_date = ? WHERE id = ?", (d.isoformat(), series_id))
    if later:
        for a in db.query("SELECT DISTINCT user_id FROM attendees WHERE event_id = ?", (later[0]["id"],)):
            _notify(db, a["user_id"], later[0]["id"], "cancelled", f"{me['full_name']} ended the weekly '{s['title']}' "
                    f"after {d.isoformat()}.")
    return {"series_id": series_id, "status": "ended", "cancelled_occurrences": len(later)}


# ----------------------------------------------------------------------------------------------
# write tools: sharing, reminders, availability, notifications
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def share_calendar(db: Db, user_email: str, calendar_id: int, with_email: str, permission: Permission) -> dict:
    """Share a calendar you own with a colleague, read-only or with write access, or change an existing
    share's permission.

    Args:
        user_email: the acting person's e-mail address (the calendar's owner).
        calendar_id: the calendar's id.
        with_email: the colleague's e-mail address.
        permission: "read" (see events) or "write" (also add events).
    """
    me = _user(db, user_email)
    cal = _calendar(db, calendar_id)
    require_owner(cal, "owner_id", me["id"], f"Calendar '{cal['name']}' belongs to {cal['owner_name']}; only its owner can share it.")
    other = _user(db, with_email, "colleague")
    if other["id"] == me["id"]:
        raise ToolError("You own this calendar already.")
    old = db.one("SELECT * FROM calendar_shares WHERE calendar_id = ? AND user_id = ?", (calendar_id, other["id"]))
    if old and old["permission"] == permission:
        raise ToolError(f"'{cal['name']}' is already shared with {other['full_name']} with {permission} access.")
    if old:
        db.execute("UPDATE calendar_shares SET permission = ?, shared_at = ? WHERE id = ?", (permission, _now(db), old["id"]))
    else:
        db.insert("calendar_shares", {"calendar_id": calendar_id, "user_id": other["id"], "permission": permission,
                                      "shared_at": _now(db)})
    return {"calendar": cal["name"], "shared_with": other["email"], "permission": permission}


@tool(write=True)
def unshare_calendar(db: Db, user_email: str, calendar_id: int, with_email: str) -> dict:
    """Stop sharing a calendar you own with a colleague.

    Args:
        user_email: the acting person's e-mail address (the calendar's owner).
        calendar_id: the calendar's id.
        with_email: the colleague's e-mail address.
    """
    me = _user(db, user_email)
    cal = _calendar(db, calendar_id)
    require_owner(cal, "owner_id", me["id"],
                  f"Calendar '{cal['name']}' belongs to {cal['owner_name']}; only its owner can change its sharing.")
    other = db.one("SELECT * FROM users WHERE email = ?", (with_email.strip().lower(),))
    if other is None or not db.execute("DELETE FROM calendar_shares WHERE calendar_id = ? AND user_id = ?",
                                       (calendar_id, other["id"])):
        raise ToolError(f"'{cal['name']}' is not shared with {with_email}.")
    return {"calendar": cal["name"], "unshared": other["email"]}


@tool(write=True)
def set_reminder(db: Db, user_email: str, event_id: int, minutes_before: int, method: Literal["popup", "email"] = "popup") -> dict:
    """Add a reminder for yourself on an upcoming event you organise or are invited to (and have not
    declined). At most 5 reminders per event.

    Args:
        user_email: the acting person's e-mail address.
        event_id: the event's id.
        minutes_before: 5, 10, 15, 30, 60, 120 or 1440 (a day).
        method: "popup" or "email".
    """
    me = _user(db, user_email)
    ev = _event(db, event_id)
    a = _attendee(db, event_id, me["id"])
    if ev["organizer_id"] != me["id"] and (a is None or a["response"] == "declined"):
        raise ToolError("You can only set reminders on events you organise or are going to.")
    _future(db, ev, "set a reminder")
    if minutes_before not in REMINDER_MINUTES:
        raise ToolError(f"minutes_before must be one of {', '.join(map(str, REMINDER_MINUTES))}.")
    db.none("SELECT 1 FROM reminders WHERE event_id = ? AND user_id = ? AND minutes_before = ? AND method = ?",
            (event_id, me["id"], minutes_before, method), found="You already have exactly this reminder.")
    if db.value("SELECT COUNT(*) FROM reminders WHERE event_id = ? AND user_id = ?", (event_id, me["id"])) >= MAX_REMINDERS:
        raise ToolError(f"You already have {MAX_REMINDERS} reminders on this event.")
    db.insert("reminders", {"event_id": event_id, "user_id": me["id"], "minutes_before": minutes_before, "method": method})
    return {"event_id": event_id, "minutes_before": minutes_before, "method": method}


@tool(write=True)
def delete_reminder(db: Db, user_email: str, event_id: int, minutes_before: int, method: Literal["popup", "email"] = "popup") -> dict:
    """Remove one of your reminders from an event.

    Args:
        user_email: the acting person's e-mail address.
        event_id: the event's id.
        minutes_before: the reminder's minutes.
        method: the reminder's method.
    """
    me = _user(db, user_email)
    if not db.execute("DELETE FROM reminders WHERE event_id = ? AND user_id = ? AND minutes_before = ? AND method = ?",
                      (event_id, me["id"], minutes_before, method)):
        raise ToolError("You have no such reminder on that event; list_reminders shows yours.")
    return {"event_id": event_id, "removed": f"{minutes_before} min {method}"}


@tool(write=True)
def add_time_off(db: Db, user_email: str, start_date: str, end_date: str,
                 kind: Literal["vacation", "sick", "conference", "personal"], note: str = "") -> dict:
    """Record time off for yourself (whole days, both ends included, at most 30 days, not ending in the past,
    not overlapping other time off). It does not answer invitations: decline those yourself.

    Args:
        user_email: the acting person's e-mail address.
        start_date: first day off, YYYY-MM-DD.
        end_date: last day off, YYYY-MM-DD.
        kind: "vacation", "sick", "conference" or "personal".
        note: an optional note.
    """
    me = _user(db, user_email)
    d1, d2 = parse_day(start_date, "start_date"), parse_day(end_date, "end_date")
    if d2 < d1:
        raise ToolError("end_date is before start_date.")
    if d2 < db.today():
        raise ToolError("That period is already over.")
    if (d2 - d1).days + 1 > MAX_TIME_OFF_DAYS:
        raise ToolError(f"Time off may last at most {MAX_TIME_OFF_DAYS} days at a time.")
    clash = db.one("SELECT * FROM time_off WHERE user_id = ? AND start_date <= ? AND end_date >= ?",
                   (me["id"], d2.isoformat(), d1.isoformat()))
    if clash:
        raise ToolError(f"You already have {clash['kind']} time off from {clash['start_date']} to {clash['end_date']}.")
    tid = db.insert("time_off", {"user_id": me["id"], "start_date": d1.isoformat(), "end_date": d2.isoformat(),
                                 "kind": kind, "note": note.strip(), "created_at": _now(db)})
    pending = db.value("SELECT COUNT(*) FROM attendees a JOIN events e ON e.id = a.event_id WHERE a.user_id = ? AND "
                       "a.response <> 'declined' AND e.status = 'confirmed' AND substr(e.start_at, 1, 10) BETWEEN ? AND ?",
                       (me["id"], d1.isoformat(), d2.isoformat()))
    return {"time_off_id": tid, "start_date": d1.isoformat(), "end_date": d2.isoformat(), "kind": kind,
            "invitations_not_declined_in_period": pending}


@tool(write=True)
def set_working_hours(db: Db, user_email: str, weekday: int, start_time: str | None = None, end_time: str | None = None,
                      day_off: bool = False) -> dict:
    """Set your working hours for one weekday, or mark that weekday as a day off.

    Args:
        user_email: the acting person's e-mail address.
        weekday: 0 = Monday ... 6 = Sunday.
        start_time: start, HH:MM (not with day_off).
        end_time: end, HH:MM, after start_time (not with day_off).
        day_off: true to stop working on that weekday.
    """
    me = _user(db, user_email)
    if not 0 <= weekday <= 6:
        raise ToolError("weekday must be 0 (Monday) to 6 (Sunday).")
    old = db.one("SELECT * FROM working_hours WHERE user_id = ? AND weekday = ?", (me["id"], weekday))
    if day_off:
        if old is None:
            raise ToolError(f"{WEEKDAYS[weekday]} is already a day off.")
        db.execute("DELETE FROM working_hours WHERE id = ?", (old["id"],))
        return {"day": WEEKDAYS[weekday], "working": False}
    if not start_time or not end_time:
        raise ToolError("Give start_time and end_time, or day_off=true.")
    s, e = _hm(start_time, "start_time"), _hm(end_time, "end_time")
    if e <= s:
        raise ToolError("end_time must be after start_time.")
    if old and (old["start_time"], old["end_time"]) == (s, e):
        raise ToolError(f"Your {WEEKDAYS[weekday]} hours are already {s}-{e}.")
    if old:
        db.execute("UPDATE working_hours SET start_time = ?, end_time = ? WHERE id = ?", (s, e, old["id"]))
    else:
        db.insert("working_hours", {"user_id": me["id"], "weekday": weekday, "start_time": s, "end_time": e})
    return {"day": WEEKDAYS[weekday], "start": s, "end": e}


@tool(write=True)
def mark_notifications_read(db: Db, user_email: str, notification_ids: list[int]) -> dict:
    """Mark some of your notifications as read.

    Args:
        user_email: the acting person's e-mail address.
        notification_ids: ids of your notifications.
    """
    me = _user(db, user_email)
    if not notification_ids:
        raise ToolError("Give at least one notification id.")
    for i in notification_ids:
        owner = db.value("SELECT user_id FROM notifications WHERE id = ?", (i,))
        if owner != me["id"]:
            raise ToolError(f"Notification {i} is not one of yours.")
    n = 0
    for i in dict.fromkeys(notification_ids):
        n += db.execute("UPDATE notifications SET is_read = 1 WHERE id = ? AND is_read = 0", (i,))
    return {"marked_read": n}
