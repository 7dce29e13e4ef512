"""Tools of the hotel world: a small hotel chain's reservations desk, front office, housekeeping and room service.

Hotels are named by three-letter codes ("SEA"), room types and rate plans by their codes within a hotel
("KING", "BAR"), rooms by number, reservations by confirmation code, guests and staff by e-mail. Guest-side
write tools take ``guest_email`` and only touch that guest's own reservations; hotel-side write tools take
``staff_email`` and only work at that staff member's hotel, within their role (front desk, housekeeping,
maintenance, manager). Money goes out in dollars (two decimals) and is kept in integer cents.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, clean_text, dollars, filters, like_any, parse_day, require_owner, to_cents, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

ACTIVE = ("booked", "checked_in")
TIER_EARN_PCT = {"none": 100, "silver": 125, "gold": 150, "platinum": 200}
POINTS_PER_DOLLAR = 10
ROOM_SERVICE_TRAY_CENTS = 500
MIN_POINTS_REDEEM = 1000
MAX_NIGHTS = 21
DESK = ("front_desk", "manager")


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _usd(cents: int | None) -> float:
    return dollars(cents or 0)


def _date(value: str, what: str) -> date:
    return parse_day(value, what, "2026-05-20")


def _hotel(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM hotels WHERE upper(code) = upper(?)", (code.strip(),),
                  missing=f"No hotel with code {code!r}; list_hotels shows the codes.")


def _guest(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT * FROM guests WHERE lower(email) = lower(?)", (email.strip(),),
                  missing=f"No guest with e-mail {email!r}; use find_guests to look a guest up by name.")


def _staff(db: Db, email: str, hotel_id: int, roles: tuple[str, ...], what: str) -> dict[str, Any]:
    s = db.one("SELECT s.*, h.code AS hotel_code FROM staff s JOIN hotels h ON h.id = s.hotel_id "
               "WHERE lower(s.email) = lower(?)", (email.strip(),),
               missing=f"No staff member with e-mail {email!r}; list_staff shows a hotel's team.")
    if s["hotel_id"] != hotel_id:
        raise ToolError(f"{s['full_name']} works at hotel {s['hotel_code']} and cannot {what} at another hotel.")
    if s["role"] not in roles:
        raise ToolError(f"{s['full_name']} is {s['role'].replace('_', ' ')}; only "
                        f"{' or '.join(r.replace('_', ' ') for r in roles)} staff can {what}.")
    return s


def _res(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT r.*, h.code AS hotel_code, h.name AS hotel_name, h.tax_pct, h.cancel_deadline_hours, "
                  "rt.code AS room_type_code, rt.name AS room_type_name, rp.code AS rate_plan_code, "
                  "rp.refundable, rp.min_nights, g.full_name AS guest_name, g.email AS guest_email, "
                  "g.loyalty_tier, rm.number AS room_number FROM reservations r JOIN hotels h ON h.id = r.hotel_id "
                  "JOIN room_types rt ON rt.id = r.room_type_id JOIN rate_plans rp ON rp.id = r.rate_plan_id "
                  "JOIN guests g ON g.id = r.guest_id LEFT JOIN rooms rm ON rm.id = r.room_id "
                  "WHERE upper(r.confirmation_code) = upper(?)", (code.strip(),),
                  missing=f"No reservation with confirmation code {code!r}; list_reservations finds them by guest, "
                          "hotel or date.")


def _require(r: dict[str, Any], status: str, refusal: str) -> None:
    """Refuse unless the reservation is ``status``; ``refusal`` says what the tool needs instead."""
    if r["status"] != status:
        raise ToolError(f"Reservation {r['confirmation_code']} is {r['status']}; {refusal}")


def _desk_res(db: Db, code: str, staff_email: str, what: str, status: str,
              refusal: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A reservation in ``status`` and the front desk agent or manager of its hotel who acts on it (``what``)."""
    r = _res(db, code)
    s = _staff(db, staff_email, r["hotel_id"], DESK, what)
    _require(r, status, refusal)
    return r, s


def _own_res(db: Db, code: str, guest_email: str) -> tuple[dict[str, Any], dict[str, Any]]:
    g = _guest(db, guest_email)
    r = _res(db, code)
    require_owner(r, "guest_id", g["id"], f"Reservation {r['confirmation_code']} belongs to another guest; "
                  f"{g['full_name']} can only manage their own reservations.")
    return r, g


def _folio(db: Db, res_id: int) -> dict[str, Any]:
    return db.one("SELECT * FROM folios WHERE reservation_id = ?", (res_id,))


def _balance(db: Db, folio_id: int) -> int:
    charged = db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM folio_charges WHERE folio_id = ?", (folio_id,))
    paid = db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM payments WHERE folio_id = ?", (folio_id,))
    return charged - paid


def _charge(db: Db, folio_id: int, kind: str, description: str, cents: int, posted_by: int | None) -> None:
    db.insert("folio_charges", {"folio_id": folio_id, "kind": kind, "description": description, "amount_cents": cents,
                                "posted_by": posted_by, "posted_at": _now(db)})


def _pay(db: Db, folio_id: int, method: str, cents: int, taken_by: int | None) -> None:
    db.insert("payments", {"folio_id": folio_id, "method": method, "amount_cents": cents, "taken_by": taken_by,
                           "created_at": _now(db)})


def _points(db: Db, guest_id: int, res_id: int, kind: str, points: int) -> None:
    """Post a loyalty transaction (negative ``points`` redeem) and move the guest's balance with it."""
    db.insert("loyalty_transactions", {"guest_id": guest_id, "reservation_id": res_id, "kind": kind,
                                       "points": points, "created_at": _now(db)})
    db.execute("UPDATE guests SET points_balance = points_balance + ? WHERE id = ?", (points, guest_id))


def _nights(r: dict[str, Any]) -> int:
    return (date.fromisoformat(r["check_out_date"]) - date.fromisoformat(r["check_in_date"])).days


def _room(db: Db, hotel_id: int, number: str) -> dict[str, Any]:
    return db.one("SELECT rm.*, rt.code AS room_type_code FROM rooms rm JOIN room_types rt ON rt.id = rm.room_type_id "
                  "WHERE rm.hotel_id = ? AND upper(rm.number) = upper(?)", (hotel_id, str(number).strip()),
                  missing=f"No room {number!r} at this hotel; list_rooms shows the rooms.")


def _room_clash(db: Db, room_id: int, d1: str, d2: str, exclude: int | None) -> dict[str, Any] | None:
    return db.one("SELECT confirmation_code, check_in_date, check_out_date FROM reservations WHERE room_id = ? AND "
                  "status IN ('booked', 'checked_in') AND check_in_date < ? AND check_out_date > ? AND id <> ? "
                  "ORDER BY check_in_date LIMIT 1", (room_id, d2, d1, exclude or 0))


def _available(db: Db, room_type_id: int, d1: date, d2: date, exclude: int | None = None) -> int:
    rooms = db.value("SELECT COUNT(*) FROM rooms WHERE room_type_id = ? AND status <> 'out_of_order'", (room_type_id,))
    worst = rooms
    day = d1
    while day < d2:
        taken = db.value("SELECT COUNT(*) FROM reservations WHERE room_type_id = ? AND status IN ('booked', 'checked_in') "
                         "AND check_in_date <= ? AND check_out_date > ? AND id <> ?",
                         (room_type_id, day.isoformat(), day.isoformat(), exclude or 0))
        worst = min(worst, rooms - taken)
        day += timedelta(days=1)
    return max(worst, 0)


def _stay_dates(db: Db, check_in: str, check_out: str, min_nights: int, plan: str) -> tuple[date, date, int]:
    """The dates of a new or moved stay: arrival today or later, 1 to MAX_NIGHTS nights and at least the rate
    plan's minimum nights (``plan`` names it in the refusal)."""
    d1, d2 = _date(check_in, "check_in"), _date(check_out, "check_out")
    if d1 < db.today():
        raise ToolError(f"check_in {d1.isoformat()} is in the past; today is {db.today().isoformat()}.")
    nights = (d2 - d1).days
    if not 1 <= nights <= MAX_NIGHTS:
        raise ToolError(f"A stay is 1 to {MAX_NIGHTS} nights (check_out after check_in).")
    if nights < min_nights:
        raise ToolError(f"{plan} needs at least {min_nights} nights; this stay has {nights}.")
    return d1, d2, nights


def _rate(base: int, discount: int) -> int:
    return base * (100 - discount) // 100


def _earned_points(room_cents: int, tier: str) -> int:
    """Loyalty points a stay earns at departure: 10 per dollar of room charges, times the tier bonus."""
    return (room_cents // 100) * POINTS_PER_DOLLAR * TIER_EARN_PCT[tier] // 100


def _cancel_fee(db: Db, r: dict[str, Any]) -> tuple[int, str]:
    nights = _nights(r)
    if not r["refundable"]:
        return r["nightly_rate_cents"] * nights, "non-refundable rate: the whole stay is charged"
    deadline = datetime.fromisoformat(r["check_in_date"] + "T15:00:00") - timedelta(hours=r["cancel_deadline_hours"])
    if db.now() >= deadline:
        return r["nightly_rate_cents"], f"inside the {r['cancel_deadline_hours']}-hour deadline: one night is charged"
    return 0, f"free cancellation until {deadline.isoformat()}"


def _task(db: Db, room_id: int, kind: str, notes: str) -> int | None:
    if db.value("SELECT 1 FROM housekeeping_tasks WHERE room_id = ? AND kind = ? AND status <> 'done'",
                (room_id, kind)):
        return None
    return db.insert("housekeeping_tasks", {"room_id": room_id, "kind": kind, "status": "open", "assigned_to": None,
                                            "notes": notes, "created_at": _now(db), "completed_at": None})


def _settle_fee(db: Db, r: dict[str, Any], kind: str, cents: int, label: str) -> None:
    f = _folio(db, r["id"])
    if cents > 0:
        _charge(db, f["id"], kind, label, cents, None)
        _pay(db, f["id"], "card", cents, None)
    db.execute("UPDATE folios SET status = 'closed', closed_at = ? WHERE id = ?", (_now(db), f["id"]))


def _res_line(r: dict[str, Any]) -> dict[str, Any]:
    return {"confirmation_code": r["confirmation_code"], "hotel": r.get("hotel_code"), "guest": r.get("guest_name"),
            "guest_email": r.get("guest_email"), "room_type": r.get("room_type_code"), "rate_plan": r.get("rate_plan_code"),
            "room": r.get("room_number"), "check_in_date": r["check_in_date"], "check_out_date": r["check_out_date"],
            "status": r["status"]}


_RES_LIST_SQL = (
    "SELECT r.*, h.code AS hotel_code, g.full_name AS guest_name, g.email AS guest_email, rt.code AS room_type_code, "
    "rp.code AS rate_plan_code, rm.number AS room_number FROM reservations r JOIN hotels h ON h.id = r.hotel_id "
    "JOIN guests g ON g.id = r.guest_id JOIN room_types rt ON rt.id = r.room_type_id JOIN rate_plans rp "
    "ON rp.id = r.rate_plan_id LEFT JOIN rooms rm ON rm.id = r.room_id ")


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def list_hotels(db: Db) -> list[dict]:
    """Every hotel of the chain: code, name, city, tax rate and cancellation deadline."""
    rows = db.query("SELECT code, name, city, country, tax_pct, cancel_deadline_hours, check_in_time, check_out_time "
                    "FROM hotels ORDER BY code")
    return rows


@tool
def get_hotel(db: Db, hotel_code: str) -> dict:
    """One hotel's policies, room types (code, name, max guests, base nightly rate, number of rooms) and rate plans
    (code, refundable or not, discount off the base rate, minimum nights, members-only, breakfast).
    Cancellation: free until the deadline (hours before 15:00 on the arrival day), then one night is charged;
    non-refundable plans charge the whole stay. Tax is added to room charges at check-in.

    Args:
        hotel_code: the hotel's three-letter code, e.g. "SEA".
    """
    h = _hotel(db, hotel_code)
    types = db.query("SELECT rt.code, rt.name, rt.max_occupancy, rt.base_rate_cents, (SELECT COUNT(*) FROM rooms r "
                     "WHERE r.room_type_id = rt.id) AS rooms FROM room_types rt WHERE rt.hotel_id = ? ORDER BY rt.id",
                     (h["id"],))
    plans = db.query("SELECT code, name, refundable, discount_pct, min_nights, members_only, breakfast FROM rate_plans "
                     "WHERE hotel_id = ? ORDER BY id", (h["id"],))
    return {"code": h["code"], "name": h["name"], "city": h["city"], "country": h["country"], "tax_pct": h["tax_pct"],
            "cancel_deadline_hours": h["cancel_deadline_hours"], "check_in_time": h["check_in_time"],
            "check_out_time": h["check_out_time"],
            "room_types": [{"code": t["code"], "name": t["name"], "max_guests": t["max_occupancy"],
                            "base_rate_usd": _usd(t["base_rate_cents"]), "rooms": t["rooms"]} for t in types],
            "rate_plans": [{**p, "refundable": bool(p["refundable"]), "members_only": bool(p["members_only"]),
                            "breakfast": bool(p["breakfast"])} for p in plans]}


@tool
def search_availability(db: Db, hotel_code: str, check_in: str, check_out: str, guests: int = 1) -> dict:
    """Room types a hotel can still sell for a stay (rooms in service minus reservations on the busiest night),
    with the nightly rate and stay total (before tax) under each rate plan the stay qualifies for.

    Args:
        hotel_code: the hotel's code.
        check_in: arrival date, YYYY-MM-DD.
        check_out: departure date, YYYY-MM-DD.
        guests: number of guests (adults and children) to fit in one room.
    """
    h = _hotel(db, hotel_code)
    d1, d2 = _date(check_in, "check_in"), _date(check_out, "check_out")
    if d2 <= d1:
        raise ToolError("check_out must be after check_in.")
    nights = (d2 - d1).days
    out = []
    for t in db.query("SELECT * FROM room_types WHERE hotel_id = ? ORDER BY id", (h["id"],)):
        if t["max_occupancy"] < guests:
            continue
        avail = _available(db, t["id"], d1, d2)
        plans = []
        for p in db.query("SELECT * FROM rate_plans WHERE hotel_id = ? ORDER BY id", (h["id"],)):
            if p["min_nights"] > nights:
                continue
            rate = _rate(t["base_rate_cents"], p["discount_pct"])
            plans.append({"rate_plan": p["code"], "nightly_usd": _usd(rate), "total_usd": _usd(rate * nights),
                          "refundable": bool(p["refundable"]), "members_only": bool(p["members_only"])})
        out.append({"room_type": t["code"], "name": t["name"], "max_guests": t["max_occupancy"], "available": avail,
                    "rates": plans})
    return {"hotel": h["code"], "check_in": d1.isoformat(), "check_out": d2.isoformat(), "nights": nights,
            "room_types": out}


@tool
def find_guests(db: Db, query: str, limit: int = 10) -> dict:
    """Find guests by part of their name or e-mail.

    Args:
        query: e.g. "Okafor" or "maria.s".
        limit: maximum number of guests, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "full_name", "email")
    rows = db.query(f"SELECT full_name AS name, email, loyalty_tier, points_balance FROM guests WHERE {who} "
                    "ORDER BY full_name, id LIMIT ?", (*params, limit))
    return {"count": len(rows), "guests": rows}


@tool
def get_guest(db: Db, email: str) -> dict:
    """A guest's profile: phone, loyalty tier, points balance, latest points activity and reservations.

    Args:
        email: the guest's e-mail address.
    """
    g = _guest(db, email)
    pts = db.query("SELECT lt.kind, lt.points, lt.created_at, r.confirmation_code FROM loyalty_transactions lt "
                   "LEFT JOIN reservations r ON r.id = lt.reservation_id WHERE lt.guest_id = ? "
                   "ORDER BY lt.created_at DESC, lt.id DESC LIMIT 10", (g["id"],))
    res = db.query(_RES_LIST_SQL + "WHERE r.guest_id = ? ORDER BY r.check_in_date DESC LIMIT 20", (g["id"],))
    return {"name": g["full_name"], "email": g["email"], "phone": g["phone"], "loyalty_tier": g["loyalty_tier"],
            "points_balance": g["points_balance"], "recent_points": pts, "reservations": [_res_line(r) for r in res]}


@tool
def list_reservations(db: Db, hotel_code: str | None = None, guest_email: str | None = None,
                      status: Literal["booked", "checked_in", "checked_out", "cancelled", "no_show"] | None = None,
                      arriving_on: str | None = None, departing_on: str | None = None, limit: int = 20) -> dict:
    """Reservations matching the filters, by arrival date.

    Args:
        hotel_code: only this hotel.
        guest_email: only this guest's reservations.
        status: only this status.
        arriving_on: only arrivals on this date, YYYY-MM-DD.
        departing_on: only departures on this date, YYYY-MM-DD.
        limit: maximum number of reservations, 1 to 50.
    """
    _limit(limit)
    hid = _hotel(db, hotel_code)["id"] if hotel_code else None
    gid = _guest(db, guest_email)["id"] if guest_email else None
    a = _date(arriving_on, "arriving_on").isoformat() if arriving_on else None
    d = _date(departing_on, "departing_on").isoformat() if departing_on else None
    where, params = filters(("r.hotel_id = ?", hid), ("r.guest_id = ?", gid), ("r.status = ?", status),
                            ("r.check_in_date = ?", a), ("r.check_out_date = ?", d))
    rows = db.query(_RES_LIST_SQL + f"WHERE {where} ORDER BY r.check_in_date, r.id LIMIT ?", (*params, limit))
    return {"count": len(rows), "reservations": [_res_line(r) for r in rows]}


@tool
def get_reservation(db: Db, confirmation_code: str) -> dict:
    """A reservation in full: guest, hotel, room type, rate plan, nightly rate, dates, party, assigned room and its
    status, folio balance and room service orders.

    Args:
        confirmation_code: the confirmation code.
    """
    r = _res(db, confirmation_code)
    f = _folio(db, r["id"])
    room_status = db.value("SELECT status FROM rooms WHERE id = ?", (r["room_id"],)) if r["room_id"] else None
    return {**_res_line(r), "hotel_name": r["hotel_name"], "room_type_name": r["room_type_name"],
            "refundable": bool(r["refundable"]), "nights": _nights(r), "nightly_rate_usd": _usd(r["nightly_rate_cents"]),
            "adults": r["adults"], "children": r["children"], "room_status": room_status,
            "loyalty_tier": r["loyalty_tier"], "created_at": r["created_at"], "checked_in_at": r["checked_in_at"],
            "checked_out_at": r["checked_out_at"], "cancelled_at": r["cancelled_at"],
            "folio": {"status": f["status"], "balance_usd": _usd(_balance(db, f["id"]))} if f else None}


@tool
def get_folio(db: Db, confirmation_code: str) -> dict:
    """The bill of a reservation: every charge and payment, and the balance still due.

    Args:
        confirmation_code: the confirmation code.
    """
    r = _res(db, confirmation_code)
    f = _folio(db, r["id"])
    charges = db.query("SELECT id, kind, description, amount_cents, posted_at FROM folio_charges WHERE folio_id = ? "
                       "ORDER BY posted_at, id", (f["id"],))
    pays = db.query("SELECT id, method, amount_cents, created_at FROM payments WHERE folio_id = ? ORDER BY created_at, id",
                    (f["id"],))
    return {"confirmation_code": r["confirmation_code"], "folio_status": f["status"],
            "charges": [{"kind": c["kind"], "description": c["description"], "amount_usd": _usd(c["amount_cents"]),
                         "posted_at": c["posted_at"]} for c in charges],
            "payments": [{"method": p["method"], "amount_usd": _usd(p["amount_cents"]), "at": p["created_at"]}
                         for p in pays],
            "balance_usd": _usd(_balance(db, f["id"]))}


@tool
def list_rooms(db: Db, hotel_code: str, status: Literal["clean", "dirty", "out_of_order"] | None = None,
               room_type_code: str | None = None, limit: int = 50) -> dict:
    """A hotel's rooms with type, floor, housekeeping status and the guest in it today (if any).

    Args:
        hotel_code: the hotel's code.
        status: only rooms in this status.
        room_type_code: only this room type, e.g. "KING".
        limit: maximum number of rooms, 1 to 100.
    """
    _limit(limit, 100)
    h = _hotel(db, hotel_code)
    where, params = filters(("rm.status = ?", status), ("upper(rt.code) = upper(?)", room_type_code))
    rows = db.query("SELECT rm.number, rt.code AS room_type, rm.floor, rm.status, rm.out_of_order_reason, "
                    "(SELECT g.full_name FROM reservations r JOIN guests g ON g.id = r.guest_id WHERE r.room_id = rm.id "
                    "AND r.status = 'checked_in') AS occupied_by FROM rooms rm JOIN room_types rt ON rt.id = rm.room_type_id "
                    f"WHERE rm.hotel_id = ? AND {where} ORDER BY rm.number LIMIT ?", (h["id"], *params, limit))
    return {"hotel": h["code"], "count": len(rows), "rooms": rows}


@tool
def get_room(db: Db, hotel_code: str, room_number: str) -> dict:
    """One room: type, status, open housekeeping or repair tasks, the guest in it and upcoming assigned stays.

    Args:
        hotel_code: the hotel's code.
        room_number: the room number, e.g. "304".
    """
    h = _hotel(db, hotel_code)
    rm = _room(db, h["id"], room_number)
    tasks = db.query("SELECT id, kind, status, notes, created_at FROM housekeeping_tasks WHERE room_id = ? AND "
                     "status <> 'done' ORDER BY id", (rm["id"],))
    stays = db.query(_RES_LIST_SQL + "WHERE r.room_id = ? AND r.status IN ('booked', 'checked_in') ORDER BY "
                     "r.check_in_date", (rm["id"],))
    return {"hotel": h["code"], "number": rm["number"], "room_type": rm["room_type_code"], "floor": rm["floor"],
            "status": rm["status"], "out_of_order_reason": rm["out_of_order_reason"], "open_tasks": tasks,
            "assigned_stays": [_res_line(s) for s in stays]}


@tool
def find_free_rooms(db: Db, confirmation_code: str) -> dict:
    """Rooms that could be assigned to a reservation: same hotel and room type, in service, and not assigned to
    another active stay over the same nights; each with its housekeeping status (a room must be clean to check in).

    Args:
        confirmation_code: the reservation's confirmation code.
    """
    r = _res(db, confirmation_code)
    rooms = db.query("SELECT id, number, floor, status FROM rooms WHERE room_type_id = ? AND status <> 'out_of_order' "
                     "ORDER BY number", (r["room_type_id"],))
    free = [{"number": x["number"], "floor": x["floor"], "status": x["status"]} for x in rooms
            if _room_clash(db, x["id"], r["check_in_date"], r["check_out_date"], r["id"]) is None]
    return {"confirmation_code": r["confirmation_code"], "room_type": r["room_type_code"], "rooms": free}


@tool
def list_housekeeping_tasks(db: Db, hotel_code: str, status: Literal["open", "in_progress", "done"] | None = None,
                            kind: Literal["clean", "repair"] | None = None, limit: int = 30) -> dict:
    """A hotel's housekeeping (cleaning) and maintenance (repair) tasks, newest first.

    Args:
        hotel_code: the hotel's code.
        status: only tasks in this status.
        kind: "clean" or "repair".
        limit: maximum number of tasks, 1 to 50.
    """
    _limit(limit)
    h = _hotel(db, hotel_code)
    where, params = filters(("t.status = ?", status), ("t.kind = ?", kind))
    rows = db.query("SELECT t.id AS task_id, rm.number AS room, t.kind, t.status, s.full_name AS assigned_to, t.notes, "
                    "t.created_at, t.completed_at FROM housekeeping_tasks t JOIN rooms rm ON rm.id = t.room_id LEFT JOIN "
                    f"staff s ON s.id = t.assigned_to WHERE rm.hotel_id = ? AND {where} "
                    "ORDER BY t.created_at DESC, t.id DESC LIMIT ?", (h["id"], *params, limit))
    return {"hotel": h["code"], "count": len(rows), "tasks": rows}


@tool
def list_staff(db: Db, hotel_code: str, role: Literal["front_desk", "housekeeping", "maintenance", "manager"] | None = None) -> list[dict]:
    """The team of a hotel: name, e-mail and role.

    Args:
        hotel_code: the hotel's code.
        role: only this role.
    """
    h = _hotel(db, hotel_code)
    where, params = filters(("role = ?", role))
    return db.query(f"SELECT full_name AS name, email, role FROM staff WHERE hotel_id = ? AND {where} "
                    "ORDER BY role, full_name", (h["id"], *params))


@tool
def get_menu(db: Db, hotel_code: str) -> list[dict]:
    """A hotel's room service menu: item ids, names, categories, prices and availability. Every order also carries
    a $5.00 tray charge.

    Args:
        hotel_code: the hotel's code.
    """
    h = _hotel(db, hotel_code)
    rows = db.query("SELECT id, name, category, price_cents, available FROM menu_items WHERE hotel_id = ? ORDER BY id",
                    (h["id"],))
    return [{"item_id": r["id"], "name": r["name"], "category": r["category"], "price_usd": _usd(r["price_cents"]),
             "available": bool(r["available"])} for r in rows]


@tool
def list_room_service_orders(db: Db, confirmation_code: str) -> list[dict]:
    """The room service orders of a stay with their items, totals and status.

    Args:
        confirmation_code: the reservation's confirmation code.
    """
    r = _res(db, confirmation_code)
    out = []
    for o in db.query("SELECT * FROM room_service_orders WHERE reservation_id = ? ORDER BY id", (r["id"],)):
        items = db.query("SELECT m.name, i.quantity, i.unit_price_cents FROM room_service_items i JOIN menu_items m "
                         "ON m.id = i.menu_item_id WHERE i.order_id = ? ORDER BY i.id", (o["id"],))
        out.append({"order_id": o["id"], "status": o["status"], "total_usd": _usd(o["total_cents"]),
                    "placed_at": o["placed_at"], "delivered_at": o["delivered_at"],
                    "items": [{"name": i["name"], "quantity": i["quantity"], "unit_price_usd": _usd(i["unit_price_cents"])}
                              for i in items]})
    return out


@tool
def quote_cancellation(db: Db, confirmation_code: str) -> dict:
    """What cancelling a booked reservation now would cost under its rate plan and the hotel's deadline. Changes
    nothing.

    Args:
        confirmation_code: the confirmation code.
    """
    r = _res(db, confirmation_code)
    _require(r, "booked", "only booked reservations can be cancelled.")
    fee, why = _cancel_fee(db, r)
    return {"confirmation_code": r["confirmation_code"], "check_in_date": r["check_in_date"], "nights": _nights(r),
            "nightly_rate_usd": _usd(r["nightly_rate_cents"]), "refundable": bool(r["refundable"]),
            "fee_usd": _usd(fee), "rule": why}


# ----------------------------------------------------------------------------------------------
# write tools: guests
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_reservation(db: Db, guest_email: str, hotel_code: str, room_type_code: str, rate_plan_code: str,
                       check_in: str, check_out: str, adults: int, children: int = 0) -> dict:
    """Book a room for the acting guest. Arrival today or later, 1 to 21 nights, at least the plan's minimum
    nights, the party within the room type's maximum guests, members-only plans for loyalty members only, and a
    room of that type free on every night. The nightly rate is the base rate less the plan's discount.

    Args:
        guest_email: e-mail of the guest booking (the reservation is in their name).
        hotel_code: the hotel's code.
        room_type_code: e.g. "KING".
        rate_plan_code: e.g. "BAR".
        check_in: arrival date, YYYY-MM-DD.
        check_out: departure date, YYYY-MM-DD.
        adults: number of adults (at least 1).
        children: number of children.
    """
    g = _guest(db, guest_email)
    h = _hotel(db, hotel_code)
    t = db.one("SELECT * FROM room_types WHERE hotel_id = ? AND upper(code) = upper(?)",
               (h["id"], room_type_code.strip()),
               missing=f"Hotel {h['code']} has no room type {room_type_code!r}; get_hotel lists them.")
    p = db.one("SELECT * FROM rate_plans WHERE hotel_id = ? AND upper(code) = upper(?)",
               (h["id"], rate_plan_code.strip()),
               missing=f"Hotel {h['code']} has no rate plan {rate_plan_code!r}; get_hotel lists them.")
    d1, d2, nights = _stay_dates(db, check_in, check_out, p["min_nights"], f"The {p['name']} plan")
    if adults < 1 or children < 0:
        raise ToolError("At least one adult, and children cannot be negative.")
    if adults + children > t["max_occupancy"]:
        raise ToolError(f"A {t['name']} sleeps at most {t['max_occupancy']}; choose a larger room type.")
    if p["members_only"] and g["loyalty_tier"] == "none":
        raise ToolError(f"The {p['name']} plan is for loyalty members only; {g['full_name']} is not a member.")
    if _available(db, t["id"], d1, d2) < 1:
        raise ToolError(f"No {t['name']} is free for every night from {d1.isoformat()} to {d2.isoformat()}; "
                        "search_availability shows what is left.")
    rate = _rate(t["base_rate_cents"], p["discount_pct"])
    next_id = (db.value("SELECT COALESCE(MAX(id), 0) FROM reservations") or 0) + 1
    code = f"R{10000 + next_id}"
    rid = db.insert("reservations", {"confirmation_code": code, "hotel_id": h["id"], "guest_id": g["id"],
                                     "room_type_id": t["id"], "rate_plan_id": p["id"], "room_id": None,
                                     "check_in_date": d1.isoformat(), "check_out_date": d2.isoformat(),
                                     "adults": adults, "children": children, "nightly_rate_cents": rate,
                                     "status": "booked", "created_at": _now(db), "checked_in_at": None,
                                     "checked_out_at": None, "cancelled_at": None})
    db.insert("folios", {"reservation_id": rid, "status": "open", "opened_at": _now(db), "closed_at": None})
    return {"confirmation_code": code, "hotel": h["code"], "room_type": t["code"], "rate_plan": p["code"],
            "nights": nights, "nightly_usd": _usd(rate), "total_before_tax_usd": _usd(rate * nights)}


@tool(write=True)
def change_reservation_dates(db: Db, confirmation_code: str, guest_email: str, check_in: str, check_out: str) -> dict:
    """Move a booked reservation of the acting guest to new dates (same room type and nightly rate). Not allowed on
    non-refundable plans; the new stay must meet the plan's minimum nights and have a room of the type free. An
    assigned room is kept when it is still free on the new dates, otherwise released.

    Args:
        confirmation_code: the confirmation code.
        guest_email: e-mail of the guest who holds the reservation.
        check_in: new arrival date, YYYY-MM-DD.
        check_out: new departure date, YYYY-MM-DD.
    """
    r, g = _own_res(db, confirmation_code, guest_email)
    _require(r, "booked", "only booked reservations can change dates.")
    if not r["refundable"]:
        raise ToolError(f"Reservation {r['confirmation_code']} is on a non-refundable rate and cannot be changed.")
    d1, d2, nights = _stay_dates(db, check_in, check_out, r["min_nights"], "The rate plan")
    if d1.isoformat() == r["check_in_date"] and d2.isoformat() == r["check_out_date"]:
        raise ToolError("Those are already the reservation's dates.")
    if _available(db, r["room_type_id"], d1, d2, exclude=r["id"]) < 1:
        raise ToolError(f"No {r['room_type_name']} is free for every night from {d1.isoformat()} to {d2.isoformat()}.")
    room_kept = r["room_id"] is not None and _room_clash(db, r["room_id"], d1.isoformat(), d2.isoformat(), r["id"]) is None
    db.execute("UPDATE reservations SET check_in_date = ?, check_out_date = ?, room_id = ? WHERE id = ?",
               (d1.isoformat(), d2.isoformat(), r["room_id"] if room_kept else None, r["id"]))
    return {"confirmation_code": r["confirmation_code"], "check_in_date": d1.isoformat(),
            "check_out_date": d2.isoformat(), "nights": nights, "room": r["room_number"] if room_kept else None}


@tool(write=True)
def cancel_reservation(db: Db, confirmation_code: str, guest_email: str) -> dict:
    """Cancel a booked reservation of the acting guest. Free before the hotel's deadline (hours before 15:00 on the
    arrival day); inside it one night is charged; non-refundable plans charge the whole stay. A fee is charged to
    the card on file and the folio is closed.

    Args:
        confirmation_code: the confirmation code.
        guest_email: e-mail of the guest who holds the reservation.
    """
    r, g = _own_res(db, confirmation_code, guest_email)
    _require(r, "booked", "only booked reservations can be cancelled.")
    fee, why = _cancel_fee(db, r)
    _settle_fee(db, r, "cancellation_fee", fee, f"Cancellation fee ({why})")
    db.execute("UPDATE reservations SET status = 'cancelled', cancelled_at = ?, room_id = NULL WHERE id = ?",
               (_now(db), r["id"]))
    return {"confirmation_code": r["confirmation_code"], "status": "cancelled", "fee_usd": _usd(fee), "rule": why}


@tool(write=True)
def update_guest_phone(db: Db, guest_email: str, phone: str) -> dict:
    """Change the acting guest's phone number.

    Args:
        guest_email: e-mail of the guest.
        phone: the new number: digits with optional +, spaces, dashes or parentheses (7 to 20 characters).
    """
    g = _guest(db, guest_email)
    p = phone.strip()
    if not re.fullmatch(r"[+0-9() \-]{7,20}", p) or sum(ch.isdigit() for ch in p) < 7:
        raise ToolError("phone must be 7 to 20 characters of digits, +, spaces, dashes or parentheses.")
    if p == g["phone"]:
        raise ToolError("That is already the guest's phone number.")
    db.execute("UPDATE guests SET phone = ? WHERE id = ?", (p, g["id"]))
    return {"email": g["email"], "phone": p}


@tool(write=True)
def pay_with_points(db: Db, confirmation_code: str, guest_email: str, points: int) -> dict:
    """Pay part of the acting guest's bill for a current stay with loyalty points (1 point = 1 cent): at least
    1,000 points, in steps of 100, no more than the balance due or the points held.

    Args:
        confirmation_code: the checked-in reservation's confirmation code.
        guest_email: e-mail of the guest paying.
        points: how many points to redeem.
    """
    r, g = _own_res(db, confirmation_code, guest_email)
    _require(r, "checked_in", "points pay the bill of a current stay.")
    if points < MIN_POINTS_REDEEM or points % 100:
        raise ToolError(f"Redeem at least {MIN_POINTS_REDEEM} points, in steps of 100 (got {points}).")
    if points > g["points_balance"]:
        raise ToolError(f"{g['full_name']} has only {g['points_balance']} points.")
    f = _folio(db, r["id"])
    bal = _balance(db, f["id"])
    if points > bal:
        raise ToolError(f"The balance due is {_usd(bal):.2f} USD ({bal} points at most).")
    _pay(db, f["id"], "points", points, None)
    _points(db, g["id"], r["id"], "redeem", -points)
    return {"confirmation_code": r["confirmation_code"], "paid_usd": _usd(points),
            "balance_due_usd": _usd(bal - points), "points_left": g["points_balance"] - points}


@tool(write=True)
def place_room_service_order(db: Db, confirmation_code: str, guest_email: str, menu_item_ids: list[int]) -> dict:
    """Order room service for the acting guest's current stay; the items plus a $5.00 tray charge go on the bill at
    once. Repeat an item id to order it more than once (at most 10 of an item). Items must be on the hotel's menu
    and available.

    Args:
        confirmation_code: the checked-in reservation's confirmation code.
        guest_email: e-mail of the guest ordering.
        menu_item_ids: ids from get_menu, e.g. [4, 4, 9] for two of item 4 and one of item 9.
    """
    r, g = _own_res(db, confirmation_code, guest_email)
    _require(r, "checked_in", "room service is for guests in house.")
    if not menu_item_ids:
        raise ToolError("Order at least one item.")
    counts: dict[int, int] = {}
    for i in menu_item_ids:
        counts[i] = counts.get(i, 0) + 1
    lines = []
    for item_id in sorted(counts):
        m = db.one("SELECT * FROM menu_items WHERE id = ?", (item_id,))
        if m is None or m["hotel_id"] != r["hotel_id"]:
            raise ToolError(f"Item {item_id} is not on this hotel's menu; get_menu lists the items.")
        if not m["available"]:
            raise ToolError(f"{m['name']} is not available right now.")
        if counts[item_id] > 10:
            raise ToolError(f"At most 10 of {m['name']} per order.")
        lines.append((m, counts[item_id]))
    total = sum(m["price_cents"] * q for m, q in lines) + ROOM_SERVICE_TRAY_CENTS
    oid = db.insert("room_service_orders", {"reservation_id": r["id"], "status": "placed", "total_cents": total,
                                            "placed_at": _now(db), "delivered_at": None, "delivered_by": None})
    for m, q in lines:
        db.insert("room_service_items", {"order_id": oid, "menu_item_id": m["id"], "quantity": q,
                                         "unit_price_cents": m["price_cents"]})
    _charge(db, _folio(db, r["id"])["id"], "room_service", f"Room service order {oid}", total, None)
    return {"order_id": oid, "status": "placed", "total_usd": _usd(total),
            "items": [{"name": m["name"], "quantity": q} for m, q in lines]}


@tool(write=True)
def cancel_room_service_order(db: Db, order_id: int, guest_email: str) -> dict:
    """Cancel the acting guest's room service order before it is delivered; the charge is reversed on the bill.

    Args:
        order_id: the order id (list_room_service_orders).
        guest_email: e-mail of the guest who ordered.
    """
    o = db.one("SELECT o.*, r.confirmation_code FROM room_service_orders o JOIN reservations r ON r.id = o.reservation_id "
               "WHERE o.id = ?", (order_id,),
               missing=f"No room service order {order_id}.")
    r, g = _own_res(db, o["confirmation_code"], guest_email)
    if o["status"] != "placed":
        raise ToolError(f"Order {order_id} is {o['status']}; only orders not yet delivered can be cancelled.")
    db.execute("UPDATE room_service_orders SET status = 'cancelled' WHERE id = ?", (order_id,))
    _charge(db, _folio(db, r["id"])["id"], "adjustment", f"Room service order {order_id} cancelled", -o["total_cents"],
            None)
    return {"order_id": order_id, "status": "cancelled", "reversed_usd": _usd(o["total_cents"])}


# ----------------------------------------------------------------------------------------------
# write tools: front desk
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def assign_room(db: Db, confirmation_code: str, staff_email: str, room_number: str) -> dict:
    """Assign (or change) the room of a booked reservation: same hotel and room type, in service, and not assigned
    to another active stay on any of the same nights.

    Args:
        confirmation_code: the confirmation code.
        staff_email: e-mail of the front desk agent or manager acting.
        room_number: the room to assign, e.g. "204".
    """
    r, _ = _desk_res(db, confirmation_code, staff_email, "assign rooms", "booked",
                     "rooms are assigned before check-in.")
    rm = _room(db, r["hotel_id"], room_number)
    if rm["room_type_id"] != r["room_type_id"]:
        raise ToolError(f"Room {rm['number']} is a {rm['room_type_code']} room; the reservation is for "
                        f"{r['room_type_code']}. find_free_rooms lists suitable rooms.")
    if rm["status"] == "out_of_order":
        raise ToolError(f"Room {rm['number']} is out of order ({rm['out_of_order_reason']}).")
    if r["room_id"] == rm["id"]:
        raise ToolError(f"Room {rm['number']} is already assigned to {r['confirmation_code']}.")
    clash = _room_clash(db, rm["id"], r["check_in_date"], r["check_out_date"], r["id"])
    if clash:
        raise ToolError(f"Room {rm['number']} is assigned to {clash['confirmation_code']} ({clash['check_in_date']} to "
                        f"{clash['check_out_date']}); find_free_rooms lists rooms free for these nights.")
    db.execute("UPDATE reservations SET room_id = ? WHERE id = ?", (rm["id"], r["id"]))
    return {"confirmation_code": r["confirmation_code"], "room": rm["number"], "room_status": rm["status"],
            "previous_room": r["room_number"]}


@tool(write=True)
def check_in(db: Db, confirmation_code: str, staff_email: str) -> dict:
    """Check a guest in: the reservation must be booked, arriving today or earlier with nights still to run, with an
    assigned room that is clean. Room charges for the whole stay and tax are posted to the folio.

    Args:
        confirmation_code: the confirmation code.
        staff_email: e-mail of the front desk agent or manager acting.
    """
    r, _ = _desk_res(db, confirmation_code, staff_email, "check guests in", "booked",
                     "only booked reservations can check in.")
    today = db.today().isoformat()
    if r["check_in_date"] > today:
        raise ToolError(f"The stay starts on {r['check_in_date']}; guests cannot check in before their arrival date.")
    if r["check_out_date"] <= today:
        raise ToolError(f"The stay ended on {r['check_out_date']}; mark it as a no-show instead.")
    if r["room_id"] is None:
        raise ToolError("No room is assigned yet; assign one with assign_room (find_free_rooms lists candidates).")
    status = db.value("SELECT status FROM rooms WHERE id = ?", (r["room_id"],))
    if status != "clean":
        raise ToolError(f"Room {r['room_number']} is {status}; it must be cleaned (housekeeping task completed) or "
                        "another clean room assigned before check-in.")
    nights = _nights(r)
    room_total = r["nightly_rate_cents"] * nights
    tax = room_total * r["tax_pct"] // 100
    f = _folio(db, r["id"])
    staff_id = db.value("SELECT id FROM staff WHERE lower(email) = lower(?)", (staff_email.strip(),))
    _charge(db, f["id"], "room", f"Room {r['room_number']}, {nights} night(s) at {_usd(r['nightly_rate_cents']):.2f}",
            room_total, staff_id)
    if tax:
        _charge(db, f["id"], "tax", f"Tax {r['tax_pct']}%", tax, staff_id)
    db.execute("UPDATE reservations SET status = 'checked_in', checked_in_at = ? WHERE id = ?", (_now(db), r["id"]))
    return {"confirmation_code": r["confirmation_code"], "status": "checked_in", "room": r["room_number"],
            "charged_usd": _usd(room_total + tax), "balance_usd": _usd(_balance(db, f["id"]))}


@tool(write=True)
def check_out(db: Db, confirmation_code: str, staff_email: str) -> dict:
    """Check a guest out: the stay must be checked in, with no room service order still waiting and a folio balance
    of exactly zero (take payment first). Closes the folio, marks the room dirty with a cleaning task, and posts
    loyalty points: 10 per dollar of room charges, times the tier bonus (silver 1.25, gold 1.5, platinum 2).

    Args:
        confirmation_code: the confirmation code.
        staff_email: e-mail of the front desk agent or manager acting.
    """
    r, _ = _desk_res(db, confirmation_code, staff_email, "check guests out", "checked_in",
                     "only checked-in guests can check out.")
    db.none("SELECT 1 FROM room_service_orders WHERE reservation_id = ? AND status = 'placed'", (r["id"],),
            found="A room service order is still waiting; mark it delivered or have the guest cancel it first.")
    f = _folio(db, r["id"])
    bal = _balance(db, f["id"])
    if bal != 0:
        raise ToolError(f"The folio balance is {_usd(bal):.2f} USD; take payment with record_payment (or the guest's "
                        "points) so it is exactly zero before check-out.")
    db.execute("UPDATE reservations SET status = 'checked_out', checked_out_at = ? WHERE id = ?", (_now(db), r["id"]))
    db.execute("UPDATE folios SET status = 'closed', closed_at = ? WHERE id = ?", (_now(db), f["id"]))
    db.execute("UPDATE rooms SET status = 'dirty' WHERE id = ? AND status = 'clean'", (r["room_id"],))
    _task(db, r["room_id"], "clean", f"Departure clean after {r['confirmation_code']}")
    room_cents = db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM folio_charges WHERE folio_id = ? AND kind = 'room'",
                          (f["id"],))
    pts = _earned_points(room_cents, r["loyalty_tier"])
    if r["loyalty_tier"] != "none" and pts > 0:
        _points(db, r["guest_id"], r["id"], "earn", pts)
    else:
        pts = 0
    return {"confirmation_code": r["confirmation_code"], "status": "checked_out", "points_earned": pts}


@tool(write=True)
def mark_no_show(db: Db, confirmation_code: str, staff_email: str) -> dict:
    """Mark a booked reservation whose arrival date has passed as a no-show. The no-show fee is the first night
    (the whole stay on non-refundable plans), charged to the card on file; the room is released.

    Args:
        confirmation_code: the confirmation code.
        staff_email: e-mail of the front desk agent or manager acting.
    """
    r, _ = _desk_res(db, confirmation_code, staff_email, "record no-shows", "booked",
                     "only booked reservations can be no-shows.")
    if r["check_in_date"] >= db.today().isoformat():
        raise ToolError(f"The guest is due on {r['check_in_date']}; a no-show can only be recorded after the arrival day.")
    fee = r["nightly_rate_cents"] * (1 if r["refundable"] else _nights(r))
    _settle_fee(db, r, "no_show_fee", fee, "No-show fee")
    db.execute("UPDATE reservations SET status = 'no_show', cancelled_at = ?, room_id = NULL WHERE id = ?",
               (_now(db), r["id"]))
    return {"confirmation_code": r["confirmation_code"], "status": "no_show", "fee_usd": _usd(fee)}


@tool(write=True)
def post_charge(db: Db, confirmation_code: str, staff_email: str, kind: Literal["minibar", "parking", "spa", "laundry"],
                amount: float, description: str) -> dict:
    """Post an incidental charge to a checked-in guest's folio.

    Args:
        confirmation_code: the confirmation code.
        staff_email: e-mail of the front desk agent or manager acting.
        kind: "minibar", "parking", "spa" or "laundry".
        amount: in dollars, 0.01 to 2000.00.
        description: what was charged, e.g. "2 sparkling waters".
    """
    r, s = _desk_res(db, confirmation_code, staff_email, "post charges", "checked_in",
                     "charges go on the folio of a current stay.")
    cents = to_cents(amount, positive=False)
    if not 1 <= cents <= 200000:
        raise ToolError("amount must be between 0.01 and 2000.00 dollars.")
    d = clean_text(description, "description", 1, 200)
    f = _folio(db, r["id"])
    _charge(db, f["id"], kind, d, cents, s["id"])
    return {"confirmation_code": r["confirmation_code"], "kind": kind, "amount_usd": _usd(cents),
            "balance_usd": _usd(_balance(db, f["id"]))}


@tool(write=True)
def record_payment(db: Db, confirmation_code: str, staff_email: str, amount: float, method: Literal["card", "cash"]) -> dict:
    """Take a payment toward a checked-in guest's folio; never more than the balance due.

    Args:
        confirmation_code: the confirmation code.
        staff_email: e-mail of the front desk agent or manager acting.
        amount: in dollars, at most the balance due.
        method: "card" or "cash".
    """
    r, s = _desk_res(db, confirmation_code, staff_email, "take payments", "checked_in",
                     "payments are taken during a stay.")
    cents = to_cents(amount, positive=False)
    f = _folio(db, r["id"])
    bal = _balance(db, f["id"])
    if cents <= 0:
        raise ToolError("amount must be positive.")
    if cents > bal:
        raise ToolError(f"The balance due is only {_usd(bal):.2f} USD; do not take more than that.")
    _pay(db, f["id"], method, cents, s["id"])
    return {"confirmation_code": r["confirmation_code"], "paid_usd": _usd(cents), "balance_usd": _usd(bal - cents)}


@tool(write=True)
def mark_order_delivered(db: Db, order_id: int, staff_email: str) -> dict:
    """Record that a room service order reached the room.

    Args:
        order_id: the order id.
        staff_email: e-mail of a staff member of that hotel (front desk, housekeeping or manager).
    """
    o = db.one("SELECT o.*, r.hotel_id FROM room_service_orders o JOIN reservations r ON r.id = o.reservation_id "
               "WHERE o.id = ?", (order_id,),
               missing=f"No room service order {order_id}.")
    s = _staff(db, staff_email, o["hotel_id"], ("front_desk", "housekeeping", "manager"), "deliver room service")
    if o["status"] != "placed":
        raise ToolError(f"Order {order_id} is {o['status']}.")
    db.execute("UPDATE room_service_orders SET status = 'delivered', delivered_at = ?, delivered_by = ? WHERE id = ?",
               (_now(db), s["id"], order_id))
    return {"order_id": order_id, "status": "delivered"}


# ----------------------------------------------------------------------------------------------
# write tools: housekeeping and maintenance
# ----------------------------------------------------------------------------------------------

def _task_row(db: Db, task_id: int) -> dict[str, Any]:
    return db.one("SELECT t.*, rm.hotel_id, rm.number, rm.status AS room_status FROM housekeeping_tasks t "
                  "JOIN rooms rm ON rm.id = t.room_id WHERE t.id = ?", (task_id,),
                  missing=f"No task {task_id}; list_housekeeping_tasks shows the ids.")


@tool(write=True)
def start_task(db: Db, task_id: int, staff_email: str) -> dict:
    """Start an open task and take it on: cleaning tasks by housekeeping staff, repair tasks by maintenance staff,
    of the room's hotel.

    Args:
        task_id: the task id.
        staff_email: e-mail of the staff member starting it.
    """
    t = _task_row(db, task_id)
    role = ("housekeeping",) if t["kind"] == "clean" else ("maintenance",)
    s = _staff(db, staff_email, t["hotel_id"], role, f"work {t['kind']} tasks")
    if t["status"] != "open":
        raise ToolError(f"Task {task_id} is {t['status'].replace('_', ' ')}; only open tasks can be started.")
    db.execute("UPDATE housekeeping_tasks SET status = 'in_progress', assigned_to = ? WHERE id = ?", (s["id"], task_id))
    return {"task_id": task_id, "room": t["number"], "kind": t["kind"], "status": "in_progress",
            "assigned_to": s["full_name"]}


@tool(write=True)
def complete_task(db: Db, task_id: int, staff_email: str) -> dict:
    """Finish a task you started. Finishing a cleaning task makes the room clean (unless it is out of order);
    finishing a repair lets a manager return the room to service.

    Args:
        task_id: the task id.
        staff_email: e-mail of the staff member who started it.
    """
    t = _task_row(db, task_id)
    s = db.one("SELECT * FROM staff WHERE lower(email) = lower(?)", (staff_email.strip(),),
               missing=f"No staff member with e-mail {staff_email!r}.")
    if t["status"] != "in_progress":
        raise ToolError(f"Task {task_id} is {t['status'].replace('_', ' ')}; start it first with start_task.")
    require_owner(t, "assigned_to", s["id"], f"Task {task_id} was started by someone else; only they can complete it.")
    db.execute("UPDATE housekeeping_tasks SET status = 'done', completed_at = ? WHERE id = ?", (_now(db), task_id))
    if t["kind"] == "clean":
        db.execute("UPDATE rooms SET status = 'clean' WHERE id = ? AND status = 'dirty'", (t["room_id"],))
    return {"task_id": task_id, "room": t["number"], "status": "done",
            "room_status": db.value("SELECT status FROM rooms WHERE id = ?", (t["room_id"],))}


@tool(write=True)
def request_cleaning(db: Db, hotel_code: str, room_number: str, staff_email: str, notes: str = "") -> dict:
    """Open a cleaning task for a room (e.g. a guest asked for fresh towels); the room is marked dirty. Refused
    when the room already has a cleaning task open or under way, or is out of order.

    Args:
        hotel_code: the hotel's code.
        room_number: the room number.
        staff_email: e-mail of a front desk agent or manager of the hotel.
        notes: what the housekeeper should know.
    """
    h = _hotel(db, hotel_code)
    _staff(db, staff_email, h["id"], DESK, "request cleaning")
    rm = _room(db, h["id"], room_number)
    if rm["status"] == "out_of_order":
        raise ToolError(f"Room {rm['number']} is out of order.")
    tid = _task(db, rm["id"], "clean", notes.strip()[:300])
    if tid is None:
        raise ToolError(f"Room {rm['number']} already has a cleaning task open.")
    db.execute("UPDATE rooms SET status = 'dirty' WHERE id = ?", (rm["id"],))
    return {"task_id": tid, "room": rm["number"], "room_status": "dirty"}


@tool(write=True)
def set_room_out_of_order(db: Db, hotel_code: str, room_number: str, staff_email: str, reason: str) -> dict:
    """Take a room out of service and open a repair task. Not while a guest is checked in to it. Future booked stays
    assigned to it lose the room and must be assigned another.

    Args:
        hotel_code: the hotel's code.
        room_number: the room number.
        staff_email: e-mail of a manager or maintenance staff member of the hotel.
        reason: what is wrong, e.g. "leaking shower".
    """
    h = _hotel(db, hotel_code)
    _staff(db, staff_email, h["id"], ("manager", "maintenance"), "take rooms out of service")
    rm = _room(db, h["id"], room_number)
    why = clean_text(reason, "reason", 3, 200)
    if rm["status"] == "out_of_order":
        raise ToolError(f"Room {rm['number']} is already out of order ({rm['out_of_order_reason']}).")
    guest = db.value("SELECT confirmation_code FROM reservations WHERE room_id = ? AND status = 'checked_in'", (rm["id"],))
    if guest:
        raise ToolError(f"A guest is checked in to room {rm['number']} ({guest}); move them first.")
    moved = [x["confirmation_code"] for x in db.query("SELECT confirmation_code FROM reservations WHERE room_id = ? AND "
                                                       "status = 'booked' ORDER BY check_in_date", (rm["id"],))]
    db.execute("UPDATE reservations SET room_id = NULL WHERE room_id = ? AND status = 'booked'", (rm["id"],))
    db.execute("UPDATE rooms SET status = 'out_of_order', out_of_order_reason = ? WHERE id = ?", (why, rm["id"]))
    tid = _task(db, rm["id"], "repair", why)
    return {"room": rm["number"], "status": "out_of_order", "repair_task_id": tid, "unassigned_reservations": moved}


@tool(write=True)
def return_room_to_service(db: Db, hotel_code: str, room_number: str, staff_email: str) -> dict:
    """Put an out-of-order room back in service once its repair tasks are done; it comes back dirty, with a
    cleaning task.

    Args:
        hotel_code: the hotel's code.
        room_number: the room number.
        staff_email: e-mail of a manager of the hotel.
    """
    h = _hotel(db, hotel_code)
    _staff(db, staff_email, h["id"], ("manager",), "return rooms to service")
    rm = _room(db, h["id"], room_number)
    if rm["status"] != "out_of_order":
        raise ToolError(f"Room {rm['number']} is {rm['status']}, not out of order.")
    db.none("SELECT 1 FROM housekeeping_tasks WHERE room_id = ? AND kind = 'repair' AND status <> 'done'", (rm["id"],),
            found=f"Room {rm['number']} still has an unfinished repair task; maintenance must complete it first.")
    db.execute("UPDATE rooms SET status = 'dirty', out_of_order_reason = NULL WHERE id = ?", (rm["id"],))
    tid = _task(db, rm["id"], "clean", "Back in service after repair")
    return {"room": rm["number"], "status": "dirty", "cleaning_task_id": tid}
