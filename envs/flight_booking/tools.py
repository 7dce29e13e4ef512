"""Tools of the flight_booking world: an airline booking desk.

Customers (account holders) are named by e-mail, bookings by their six-character PNR ("K7M2QX"),
flights by the ids the read tools return (or by flight number and date), travellers by the ids
list_travellers returns. Every write tool takes the e-mail of the account holder who is acting
(``customer_email``) and refuses to touch another account's bookings, travellers or miles.
Money is in US dollars on the way out (two decimals) and integer cents inside.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, dollars, like_any, like_contains, parse_day, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

FARE_ORDER = ("basic", "standard", "flex", "business")
TIER_MILES_BONUS_PCT = {"member": 0, "silver": 25, "gold": 50}
TIER_EXTRA_BAGS = {"member": 0, "silver": 1, "gold": 2}
MAX_BAGS_PER_TRAVELLER = 3
FIRST_PAID_BAG_CENTS = 3500
LATER_PAID_BAG_CENTS = 5000
LEGROOM_SEAT_CENTS = 3500
BASIC_SEAT_CENTS = 1500
HOLD_HOURS = 24
MAX_PASSENGERS = 6
MIN_TRANSFER_MILES = 1000
EXIT_ROW_MIN_AGE = 15
BOOKABLE = ("scheduled", "delayed")

FareCode = Literal["basic", "standard", "flex", "business"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _usd(cents: int | None) -> float:
    return dollars(cents or 0)


def _date(value: str, what: str) -> date:
    return parse_day(value, what, "2026-04-18")


def _customer(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT c.*, l.id AS account_id, l.member_number, l.tier, l.miles_balance FROM customers c "
                  "LEFT JOIN loyalty_accounts l ON l.customer_id = c.id WHERE lower(c.email) = lower(?)",
                  (email.strip(),),
                  missing=f"No account with e-mail {email!r}. Use find_customers to look an account up by name.")


def _own_traveller(db: Db, customer: dict[str, Any], traveller_id: int, hint: str) -> dict[str, Any]:
    """A traveller saved in the customer's account (``hint`` ends the refusal: where to find theirs)."""
    refusal = f"Traveller {traveller_id} is not saved in {customer['full_name']}'s account; {hint}."
    t = db.one("SELECT * FROM travellers WHERE id = ?", (traveller_id,), missing=refusal)
    require_owner(t, "customer_id", customer["id"], refusal)
    return t


def _member(db: Db, email: str) -> dict[str, Any]:
    """An account holder who has a frequent-flyer account."""
    c = _customer(db, email)
    if c["account_id"] is None:
        raise ToolError(f"{c['full_name']} has no frequent-flyer account.")
    return c


def _booking(db: Db, pnr: str) -> dict[str, Any]:
    return db.one("SELECT * FROM bookings WHERE upper(pnr) = upper(?)", (pnr.strip(),),
                  missing=f"No booking with reference {pnr!r}. References are six characters, e.g. 'K7M2QX'; "
                          "list_bookings shows an account's bookings.")


def _own_booking(db: Db, pnr: str, customer_email: str) -> tuple[dict[str, Any], dict[str, Any]]:
    cust = _customer(db, customer_email)
    b = _booking(db, pnr)
    require_owner(b, "customer_id", cust["id"],
                  f"Booking {b['pnr']} belongs to another account; {cust['full_name']} can only manage their own "
                  "bookings.")
    return b, cust


_FLIGHT_SQL = (
    "SELECT f.*, a.code AS airline_code, a.name AS airline_name, o.code AS origin, d.code AS destination, "
    "o.city AS origin_city, d.city AS destination_city, ac.model AS aircraft_model "
    "FROM flights f JOIN airlines a ON a.id = f.airline_id JOIN airports o ON o.id = f.origin_id "
    "JOIN airports d ON d.id = f.destination_id JOIN aircraft ac ON ac.id = f.aircraft_id WHERE f.id = ?")


def _flight(db: Db, flight_id: int) -> dict[str, Any]:
    return db.one(_FLIGHT_SQL, (flight_id,),
                  missing=f"No flight with id {flight_id}. Use search_flights or get_flight_status to find flight ids.")


def _departed(db: Db, f: dict[str, Any]) -> bool:
    return f["status"] in ("departed", "landed") or f["departure_at"] <= _now(db)


def _bookable(db: Db, f: dict[str, Any]) -> None:
    if f["status"] == "cancelled":
        raise ToolError(f"Flight {f['flight_number']} on {f['departure_at'][:10]} has been cancelled by the airline "
                        "and cannot be booked; search_flights shows other flights on the route.")
    if f["status"] not in BOOKABLE or f["departure_at"] <= _now(db):
        raise ToolError(f"Flight {f['flight_number']} on {f['departure_at'][:10]} has already departed.")


def _fare_rule(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM fare_rules WHERE code = ?", (code.strip().lower(),),
                  missing=f"Unknown fare {code!r}; fares are basic, standard, flex and business.")


def _flight_fare(db: Db, flight_id: int, code: str) -> dict[str, Any]:
    rule = _fare_rule(db, code)
    return db.one("SELECT ff.*, fr.code, fr.cabin FROM flight_fares ff JOIN fare_rules fr ON fr.id = ff.fare_rule_id "
                  "WHERE ff.flight_id = ? AND ff.fare_rule_id = ?", (flight_id, rule["id"]),
                  missing=f"The {rule['name']} fare is not sold on flight {flight_id}.")


def _passengers(db: Db, booking_id: int) -> list[dict[str, Any]]:
    return db.query("SELECT t.id, t.first_name, t.last_name, t.date_of_birth FROM booking_passengers bp "
                    "JOIN travellers t ON t.id = bp.traveller_id WHERE bp.booking_id = ? ORDER BY t.id", (booking_id,))


def _segment(db: Db, booking: dict[str, Any], flight_id: int) -> dict[str, Any]:
    return db.one("SELECT s.*, fr.code AS fare_code, fr.cabin, fr.refundable, fr.refund_fee_cents, fr.changeable, "
                  "fr.change_fee_cents, fr.free_bags, fr.miles_per_dollar FROM segments s "
                  "JOIN flight_fares ff ON ff.id = s.flight_fare_id JOIN fare_rules fr ON fr.id = ff.fare_rule_id "
                  "WHERE s.booking_id = ? AND s.flight_id = ? AND s.status = 'active'", (booking["id"], flight_id),
                  missing=f"Booking {booking['pnr']} has no active flight with id {flight_id}; get_booking lists its "
                          "flights and their ids.")


def _active_segments(db: Db, booking_id: int) -> list[dict[str, Any]]:
    return db.query("SELECT s.*, fr.code AS fare_code, fr.cabin, fr.refundable, fr.refund_fee_cents, fr.changeable, "
                    "fr.change_fee_cents, fr.miles_per_dollar, f.departure_at, f.arrival_at, f.status AS flight_status, "
                    "f.flight_number FROM segments s JOIN flight_fares ff ON ff.id = s.flight_fare_id "
                    "JOIN fare_rules fr ON fr.id = ff.fare_rule_id JOIN flights f ON f.id = s.flight_id "
                    "WHERE s.booking_id = ? AND s.status = 'active' ORDER BY f.departure_at", (booking_id,))


def _on_booking(db: Db, booking: dict[str, Any], traveller_id: int) -> dict[str, Any]:
    return db.one("SELECT t.* FROM booking_passengers bp JOIN travellers t ON t.id = bp.traveller_id "
                  "WHERE bp.booking_id = ? AND bp.traveller_id = ?", (booking["id"], traveller_id),
                  missing=f"Traveller {traveller_id} is not a passenger on booking {booking['pnr']}; get_booking lists "
                          "the passengers and their traveller ids.")


def _ticketed(booking: dict[str, Any], what: str) -> None:
    if booking["status"] != "ticketed":
        hint = " Ticket it first with ticket_booking." if booking["status"] == "held" else ""
        raise ToolError(f"Booking {booking['pnr']} is {booking['status']}; {what} only on a ticketed booking.{hint}")


def _held(booking: dict[str, Any], what: str) -> None:
    if booking["status"] != "held":
        raise ToolError(f"Booking {booking['pnr']} is {booking['status']}; {what} while it is held.")


def _open_segment(db: Db, booking: dict[str, Any], flight_id: int, what: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The booking's active segment on a flight and the flight, which must not have departed or been cancelled
    (``what`` says what can no longer be done on it)."""
    seg = _segment(db, booking, flight_id)
    f = _flight(db, flight_id)
    if _departed(db, f) or f["status"] == "cancelled":
        raise ToolError(f"Flight {f['flight_number']} is {f['status']}; {what}.")
    return seg, f


def _seats(db: Db, flight_fare_id: int, change: int) -> None:
    """Give back (``change`` > 0) or take (< 0) seats of one fare on one flight."""
    db.execute("UPDATE flight_fares SET seats_left = seats_left + ? WHERE id = ?", (change, flight_fare_id))


def _add_segment(db: Db, booking_id: int, flight_id: int, fare: dict[str, Any], passengers: int) -> None:
    """Put a flight on a booking at the fare's current price, taking a seat per passenger."""
    db.insert("segments", {"booking_id": booking_id, "flight_id": flight_id, "flight_fare_id": fare["id"],
                           "fare_cents": fare["price_cents"], "status": "active"})
    _seats(db, fare["id"], -passengers)


def _free_bags(seg: dict[str, Any], tier: str | None) -> int:
    """Checked bags free on a segment: the fare's allowance plus the tier bonus."""
    return seg["free_bags"] + TIER_EXTRA_BAGS.get(tier or "member", 0)


def _bags_checked(db: Db, segment_id: int, traveller_id: int) -> int:
    return db.value("SELECT COUNT(*) FROM checked_bags WHERE segment_id = ? AND traveller_id = ?",
                    (segment_id, traveller_id))


def _age_on(dob: str, day: str) -> int:
    b, d = date.fromisoformat(dob), date.fromisoformat(day[:10])
    return d.year - b.year - ((d.month, d.day) < (b.month, b.day))


def _seat_fee(fare_code: str, tier: str | None, legroom: int) -> int:
    if tier == "gold" or fare_code in ("flex", "business"):
        return 0
    if legroom:
        return LEGROOM_SEAT_CENTS
    return BASIC_SEAT_CENTS if fare_code == "basic" else 0


def _bag_fee(nth: int, free: int) -> int:
    if nth <= free:
        return 0
    return FIRST_PAID_BAG_CENTS if nth - free == 1 else LATER_PAID_BAG_CENTS


def _refund_per_passenger(seg: dict[str, Any]) -> int:
    if seg["flight_status"] == "cancelled":
        return seg["fare_cents"]
    if seg["refundable"]:
        return max(seg["fare_cents"] - seg["refund_fee_cents"], 0)
    return 0


def _miles_for(fare_cents_total: int, per_dollar: int, tier: str | None) -> int:
    return (fare_cents_total // 100) * per_dollar * (100 + TIER_MILES_BONUS_PCT.get(tier or "member", 0)) // 100


def _pay(db: Db, booking_id: int, kind: str, purpose: str, method: str, cents: int) -> None:
    if cents > 0:
        db.insert("payments", {"booking_id": booking_id, "kind": kind, "purpose": purpose, "method": method,
                               "amount_cents": cents, "created_at": _now(db)})


def _miles(db: Db, account_id: int, booking_id: int | None, kind: str, miles: int, note: str) -> None:
    if miles == 0:
        return
    db.insert("miles_transactions", {"account_id": account_id, "booking_id": booking_id, "kind": kind,
                                     "miles": miles, "note": note, "created_at": _now(db)})
    db.execute("UPDATE loyalty_accounts SET miles_balance = miles_balance + ? WHERE id = ?", (miles, account_id))


def _new_pnr(db: Db) -> str:
    """'B' + five digits from the next booking number: digits 0/1 never occur in issued references."""
    next_id = (db.value("SELECT COALESCE(MAX(id), 0) FROM bookings") or 0) + 1
    code = f"B{10000 + next_id}"
    db.none("SELECT 1 FROM bookings WHERE pnr = ?", (code,), found="Could not allocate a booking reference; try again.")
    return code


def _flight_line(f: dict[str, Any]) -> dict[str, Any]:
    return {"flight_id": f["id"], "flight_number": f["flight_number"], "from": f["origin"], "to": f["destination"],
            "departure_at": f["departure_at"], "arrival_at": f["arrival_at"], "status": f["status"],
            "delay_minutes": f["delay_minutes"]}


# ----------------------------------------------------------------------------------------------
# read tools: network and flights
# ----------------------------------------------------------------------------------------------

@tool
def search_airports(db: Db, query: str | None = None, limit: int = 20) -> list[dict]:
    """Find airports by code, name, city or country.

    Args:
        query: words to look for, e.g. "Lisbon" or "LIS". Omit to list airports alphabetically by code.
        limit: maximum number of airports, 1 to 50.
    """
    _limit(limit)
    like = like_contains(query.strip()) if query and query.strip() else None
    return db.query("SELECT code, name, city, country FROM airports WHERE (? IS NULL OR code LIKE ? ESCAPE '\\' "
                    "OR name LIKE ? ESCAPE '\\' OR city LIKE ? ESCAPE '\\' OR country LIKE ? ESCAPE '\\') "
                    "ORDER BY code LIMIT ?", (like, like, like, like, like, limit))


@tool
def list_fare_rules(db: Db) -> list[dict]:
    """The rules of each fare (per passenger and per flight): cabin, refunds and their fee, changes and their
    fee, free checked bags, free seat choice and miles earned per dollar. Also the fixed extras: a paid seat
    costs $15 on basic fares and an extra-legroom (exit row) seat $35 on basic and standard fares; seats are
    free on flex and business fares and for gold members. The first bag beyond the free allowance costs $35
    and each later one $50, at most 3 bags per traveller per flight; silver members get 1 extra free bag and
    gold members 2. Miles earned get a tier bonus of 25% (silver) or 50% (gold)."""
    rows = db.query("SELECT code, name, cabin, refundable, refund_fee_cents, changeable, change_fee_cents, free_bags, "
                    "free_seat_choice, miles_per_dollar FROM fare_rules ORDER BY id")
    return [{"fare": r["code"], "name": r["name"], "cabin": r["cabin"], "refundable": bool(r["refundable"]),
             "refund_fee_usd": _usd(r["refund_fee_cents"]), "changeable": bool(r["changeable"]),
             "change_fee_usd": _usd(r["change_fee_cents"]), "free_checked_bags": r["free_bags"],
             "free_standard_seat_choice": bool(r["free_seat_choice"]), "miles_per_dollar": r["miles_per_dollar"]}
            for r in rows]


def _fares_of(db: Db, flight_id: int) -> list[dict[str, Any]]:
    rows = db.query("SELECT fr.code, ff.price_cents, ff.seats_left FROM flight_fares ff JOIN fare_rules fr "
                    "ON fr.id = ff.fare_rule_id WHERE ff.flight_id = ? ORDER BY fr.id", (flight_id,))
    return [{"fare": r["code"], "price_usd": _usd(r["price_cents"]), "seats_left": r["seats_left"]} for r in rows]


@tool
def search_flights(db: Db, origin: str, destination: str, date: str, limit: int = 20) -> dict:
    """Flights from one airport to another departing on one day, with their status and the fares still on
    sale (price per passenger and seats left at that fare).

    Args:
        origin: departure airport code, e.g. "BOS".
        destination: arrival airport code, e.g. "LIS".
        date: departure day, YYYY-MM-DD.
        limit: maximum number of flights, 1 to 50.
    """
    _limit(limit)
    d = _date(date, "date")
    for code in (origin, destination):
        if db.value("SELECT 1 FROM airports WHERE code = upper(?)", (code.strip(),)) is None:
            raise ToolError(f"No airport with code {code!r}; use search_airports to find the code.")
    rows = db.query("SELECT f.id FROM flights f JOIN airports o ON o.id = f.origin_id JOIN airports t "
                    "ON t.id = f.destination_id WHERE o.code = upper(?) AND t.code = upper(?) AND "
                    "substr(f.departure_at, 1, 10) = ? ORDER BY f.departure_at LIMIT ?",
                    (origin.strip(), destination.strip(), d.isoformat(), limit))
    out = []
    for r in rows:
        f = _flight(db, r["id"])
        out.append({**_flight_line(f), "airline": f["airline_name"], "fares": _fares_of(db, f["id"])})
    return {"count": len(out), "flights": out}


@tool
def get_flight(db: Db, flight_id: int) -> dict:
    """One flight: airline, aircraft, times, status and delay, gate, and each fare's price and seats left.

    Args:
        flight_id: the flight's id (search_flights and get_booking show it).
    """
    f = _flight(db, flight_id)
    return {**_flight_line(f), "airline": f["airline_name"], "aircraft": f["aircraft_model"],
            "origin_city": f["origin_city"], "destination_city": f["destination_city"], "gate": f["gate"],
            "fares": _fares_of(db, flight_id)}


@tool
def get_flight_status(db: Db, flight_number: str, date: str) -> dict:
    """Status of a flight by its number and departure day: scheduled, delayed (with minutes), cancelled,
    departed or landed, and its flight id.

    Args:
        flight_number: e.g. "NA 214" (the space is optional).
        date: departure day, YYYY-MM-DD.
    """
    d = _date(date, "date")
    row = db.one("SELECT id FROM flights WHERE replace(upper(flight_number), ' ', '') = replace(upper(?), ' ', '') "
                 "AND substr(departure_at, 1, 10) = ?", (flight_number.strip(), d.isoformat()),
                 missing=f"No flight {flight_number!r} departs on {d.isoformat()}; check the number and the date.")
    f = _flight(db, row["id"])
    return {**_flight_line(f), "airline": f["airline_name"], "gate": f["gate"]}


@tool
def get_seat_map(db: Db, flight_id: int, cabin: Literal["economy", "business"] | None = None,
                 available_only: bool = True, limit: int = 60) -> dict:
    """The seats of a flight's aircraft: seat number, cabin, window/middle/aisle, extra legroom (exit row),
    and whether a passenger already holds it.

    Args:
        flight_id: the flight's id.
        cabin: only this cabin, "economy" or "business".
        available_only: only seats nobody holds (default true).
        limit: maximum number of seats, 1 to 100.
    """
    _limit(limit, 100)
    f = _flight(db, flight_id)
    rows = db.query("SELECT s.seat_number, s.cabin, s.position, s.extra_legroom, "
                    "(SELECT COUNT(*) FROM seat_assignments a WHERE a.flight_id = ? AND a.seat_id = s.id) AS taken "
                    "FROM aircraft_seats s WHERE s.aircraft_id = ? AND (? IS NULL OR s.cabin = ?) ORDER BY s.id",
                    (flight_id, f["aircraft_id"], cabin, cabin))
    seats = [{"seat": r["seat_number"], "cabin": r["cabin"], "position": r["position"],
              "extra_legroom": bool(r["extra_legroom"]), "available": not r["taken"]}
             for r in rows if not (available_only and r["taken"])]
    return {"flight_id": flight_id, "flight_number": f["flight_number"], "aircraft": f["aircraft_model"],
            "count": min(len(seats), limit), "seats": seats[:limit]}


# ----------------------------------------------------------------------------------------------
# read tools: accounts and bookings
# ----------------------------------------------------------------------------------------------

@tool
def find_customers(db: Db, query: str, limit: int = 10) -> dict:
    """Find account holders by part of their name, e-mail or frequent-flyer member number.

    Args:
        query: e.g. "Okafor", "maria.s" or "NA1000234".
        limit: maximum number of accounts, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "c.full_name", "c.email", "l.member_number")
    rows = db.query("SELECT c.full_name AS name, c.email, l.member_number, l.tier FROM customers c "
                    f"LEFT JOIN loyalty_accounts l ON l.customer_id = c.id WHERE {who} "
                    "ORDER BY c.full_name, c.id LIMIT ?", (*params, limit))
    return {"count": len(rows), "customers": rows}


@tool
def get_customer(db: Db, email: str) -> dict:
    """An account holder's profile: name, phone, frequent-flyer number, tier and miles balance, and the number
    of bookings by status.

    Args:
        email: the account's e-mail address.
    """
    c = _customer(db, email)
    counts = db.query("SELECT status, COUNT(*) AS n FROM bookings WHERE customer_id = ? GROUP BY status ORDER BY status",
                      (c["id"],))
    return {"name": c["full_name"], "email": c["email"], "phone": c["phone"], "member_number": c["member_number"],
            "tier": c["tier"], "miles_balance": c["miles_balance"],
            "bookings": {r["status"]: r["n"] for r in counts}}


@tool
def list_travellers(db: Db, customer_email: str) -> list[dict]:
    """The travellers saved in an account (the holder and the people they book for), with their ids.

    Args:
        customer_email: the account's e-mail address.
    """
    c = _customer(db, customer_email)
    rows = db.query("SELECT id, first_name, last_name, date_of_birth, passport_number, is_holder FROM travellers "
                    "WHERE customer_id = ? ORDER BY is_holder DESC, id", (c["id"],))
    return [{"traveller_id": r["id"], "name": f"{r['first_name']} {r['last_name']}",
             "date_of_birth": r["date_of_birth"], "passport_number": r["passport_number"],
             "account_holder": bool(r["is_holder"])} for r in rows]


@tool
def list_bookings(db: Db, customer_email: str, status: Literal["held", "ticketed", "cancelled", "refunded"] | None = None,
                  limit: int = 20) -> dict:
    """An account's bookings, newest first: reference, status, passengers and flights.

    Args:
        customer_email: the account's e-mail address.
        status: only bookings in this status.
        limit: maximum number of bookings, 1 to 50.
    """
    _limit(limit)
    c = _customer(db, customer_email)
    rows = db.query("SELECT id, pnr, status, created_at FROM bookings WHERE customer_id = ? AND (? IS NULL OR status = ?) "
                    "ORDER BY created_at DESC, id DESC LIMIT ?", (c["id"], status, status, limit))
    out = []
    for b in rows:
        flights = db.query("SELECT f.flight_number, o.code AS o, d.code AS d, f.departure_at, s.status FROM segments s "
                           "JOIN flights f ON f.id = s.flight_id JOIN airports o ON o.id = f.origin_id "
                           "JOIN airports d ON d.id = f.destination_id WHERE s.booking_id = ? AND s.status <> 'changed' "
                           "ORDER BY f.departure_at", (b["id"],))
        out.append({"pnr": b["pnr"], "status": b["status"], "created_at": b["created_at"],
                    "passengers": len(_passengers(db, b["id"])),
                    "flights": [f"{x['flight_number']} {x['o']}-{x['d']} {x['departure_at']}" for x in flights]})
    return {"count": len(out), "bookings": out}


@tool
def get_booking(db: Db, pnr: str) -> dict:
    """A booking in full: status, hold expiry, passengers (traveller ids), each flight (flight id, fare, price
    per passenger, status), seat assignments, checked bags and the money charged and refunded.

    Args:
        pnr: the six-character booking reference.
    """
    b = _booking(db, pnr)
    owner = db.one("SELECT full_name, email FROM customers WHERE id = ?", (b["customer_id"],))
    pax = _passengers(db, b["id"])
    segs = db.query("SELECT s.id, s.flight_id, s.fare_cents, s.status, fr.code AS fare FROM segments s "
                    "JOIN flight_fares ff ON ff.id = s.flight_fare_id JOIN fare_rules fr ON fr.id = ff.fare_rule_id "
                    "WHERE s.booking_id = ? ORDER BY s.id", (b["id"],))
    flights = []
    for s in segs:
        f = _flight(db, s["flight_id"])
        seats = db.query("SELECT a.traveller_id, x.seat_number FROM seat_assignments a JOIN aircraft_seats x "
                         "ON x.id = a.seat_id WHERE a.segment_id = ? ORDER BY a.traveller_id", (s["id"],))
        bags = db.query("SELECT traveller_id, tag_number, fee_cents FROM checked_bags WHERE segment_id = ? ORDER BY id",
                        (s["id"],))
        flights.append({**_flight_line(f), "segment_status": s["status"], "fare": s["fare"],
                        "fare_per_passenger_usd": _usd(s["fare_cents"]),
                        "seats": [{"traveller_id": x["traveller_id"], "seat": x["seat_number"]} for x in seats],
                        "bags": [{"traveller_id": x["traveller_id"], "tag": x["tag_number"],
                                  "fee_usd": _usd(x["fee_cents"])} for x in bags]})
    charged = db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM payments WHERE booking_id = ? AND kind = 'charge'",
                       (b["id"],))
    refunded = db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM payments WHERE booking_id = ? AND kind = 'refund'",
                        (b["id"],))
    return {"pnr": b["pnr"], "status": b["status"], "account": owner["email"], "account_name": owner["full_name"],
            "paid_with": b["paid_with"], "created_at": b["created_at"], "hold_expires_at": b["hold_expires_at"],
            "ticketed_at": b["ticketed_at"], "cancelled_at": b["cancelled_at"],
            "passengers": [{"traveller_id": p["id"], "name": f"{p['first_name']} {p['last_name']}",
                            "date_of_birth": p["date_of_birth"]} for p in pax],
            "flights": flights, "charged_usd": _usd(charged), "refunded_usd": _usd(refunded)}


@tool
def list_payments(db: Db, pnr: str) -> list[dict]:
    """Every charge and refund on a booking, oldest first (fare, seats, bags, changes, upgrades, cancellation).

    Args:
        pnr: the booking reference.
    """
    b = _booking(db, pnr)
    rows = db.query("SELECT id, kind, purpose, method, amount_cents, created_at FROM payments WHERE booking_id = ? "
                    "ORDER BY created_at, id", (b["id"],))
    return [{"payment_id": r["id"], "kind": r["kind"], "purpose": r["purpose"], "method": r["method"],
             "amount_usd": _usd(r["amount_cents"]), "created_at": r["created_at"]} for r in rows]


@tool
def get_miles_activity(db: Db, customer_email: str, limit: int = 20) -> dict:
    """A frequent-flyer account: member number, tier, miles balance and the latest miles transactions.

    Args:
        customer_email: the account's e-mail address.
        limit: maximum number of transactions, 1 to 50.
    """
    _limit(limit)
    c = _member(db, customer_email)
    rows = db.query("SELECT m.kind, m.miles, m.note, m.created_at, b.pnr FROM miles_transactions m LEFT JOIN bookings b "
                    "ON b.id = m.booking_id WHERE m.account_id = ? ORDER BY m.created_at DESC, m.id DESC LIMIT ?",
                    (c["account_id"], limit))
    return {"member_number": c["member_number"], "tier": c["tier"], "miles_balance": c["miles_balance"],
            "transactions": rows}


@tool
def quote_refund(db: Db, pnr: str) -> dict:
    """What cancelling a booking now would refund, flight by flight, under its fare rules: a flight the
    airline cancelled is refunded in full; otherwise refundable fares return the fare minus the refund fee
    per passenger and basic fares nothing. Seat and bag fees are not refunded. Changes nothing.

    Args:
        pnr: the booking reference.
    """
    b = _booking(db, pnr)
    if b["status"] not in ("held", "ticketed"):
        raise ToolError(f"Booking {b['pnr']} is already {b['status']}.")
    n = len(_passengers(db, b["id"]))
    segs = _active_segments(db, b["id"])
    if b["status"] == "held":
        return {"pnr": b["pnr"], "status": "held", "refund_usd": 0.0,
                "note": "Nothing has been paid on a held booking; cancelling it just releases the seats."}
    lines = [{"flight_id": s["flight_id"], "flight_number": s["flight_number"], "fare": s["fare_code"],
              "refund_usd": _usd(_refund_per_passenger(s) * n)} for s in segs]
    total = sum(_refund_per_passenger(s) * n for s in segs)
    return {"pnr": b["pnr"], "passengers": n, "flights": lines, "refund_usd": _usd(total),
            "refund_method": b["paid_with"]}


def _change_cost(db: Db, b: dict[str, Any], seg: dict[str, Any], new: dict[str, Any], n: int) -> dict[str, Any]:
    old_f = _flight(db, seg["flight_id"])
    if new["id"] == old_f["id"]:
        raise ToolError("The new flight is the same as the current one.")
    if (new["origin_id"], new["destination_id"]) != (old_f["origin_id"], old_f["destination_id"]):
        raise ToolError(f"A change keeps the route: pick another {old_f['origin']}-{old_f['destination']} flight "
                        f"(flight {new['id']} flies {new['origin']}-{new['destination']}).")
    _bookable(db, new)
    airline_cancelled = old_f["status"] == "cancelled"
    if not airline_cancelled and _departed(db, old_f):
        raise ToolError(f"Flight {old_f['flight_number']} has already departed and can no longer be changed.")
    if not seg["changeable"] and not airline_cancelled:
        raise ToolError(f"The {seg['fare_code']} fare on flight {old_f['flight_number']} cannot be changed (only a "
                        "flight the airline cancelled can be rebooked). Cancel under the fare rules instead.")
    nf = _flight_fare(db, new["id"], seg["fare_code"])
    if nf["seats_left"] < n:
        raise ToolError(f"Only {nf['seats_left']} {seg['fare_code']} seat(s) left on flight {new['flight_number']} on "
                        f"{new['departure_at'][:10]}; {n} needed. Choose another flight.")
    diff = 0 if airline_cancelled else max(nf["price_cents"] - seg["fare_cents"], 0)
    fee = 0 if airline_cancelled else seg["change_fee_cents"]
    return {"new_fare": nf, "diff": diff, "fee": fee, "airline_cancelled": airline_cancelled, "old": old_f,
            "total": (diff + fee) * n}


@tool
def quote_change(db: Db, pnr: str, old_flight_id: int, new_flight_id: int) -> dict:
    """What moving a ticketed booking from one flight to another on the same route would cost, in the same fare:
    the fare difference per passenger (never negative: a cheaper flight refunds nothing) plus the fare's change
    fee per passenger, both waived when the airline cancelled the old flight. Changes nothing.

    Args:
        pnr: the booking reference.
        old_flight_id: the flight id on the booking now.
        new_flight_id: the flight id to move to.
    """
    b = _booking(db, pnr)
    _ticketed(b, "flights can be changed")
    seg = _segment(db, b, old_flight_id)
    n = len(_passengers(db, b["id"]))
    q = _change_cost(db, b, seg, _flight(db, new_flight_id), n)
    return {"pnr": b["pnr"], "passengers": n, "fare": seg["fare_code"],
            "fare_difference_per_passenger_usd": _usd(q["diff"]), "change_fee_per_passenger_usd": _usd(q["fee"]),
            "total_usd": _usd(q["total"]), "waived_airline_cancellation": q["airline_cancelled"]}


@tool
def get_bag_allowance(db: Db, pnr: str, flight_id: int, traveller_id: int) -> dict:
    """A passenger's checked-bag allowance on one flight of a booking: free bags (fare plus tier bonus), bags
    already checked and the fee of the next bag.

    Args:
        pnr: the booking reference.
        flight_id: the flight's id on the booking.
        traveller_id: the passenger's traveller id.
    """
    b = _booking(db, pnr)
    seg = _segment(db, b, flight_id)
    _on_booking(db, b, traveller_id)
    tier = db.value("SELECT l.tier FROM loyalty_accounts l WHERE l.customer_id = ?", (b["customer_id"],))
    free = _free_bags(seg, tier)
    have = _bags_checked(db, seg["id"], traveller_id)
    nxt = None if have >= MAX_BAGS_PER_TRAVELLER else _usd(_bag_fee(have + 1, free))
    return {"fare": seg["fare_code"], "tier": tier, "free_bags": free, "bags_checked": have,
            "max_bags": MAX_BAGS_PER_TRAVELLER, "next_bag_fee_usd": nxt}


# ----------------------------------------------------------------------------------------------
# write tools: profile and miles
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def add_traveller(db: Db, customer_email: str, first_name: str, last_name: str, date_of_birth: str,
                  passport_number: str | None = None) -> dict:
    """Save a new traveller in the acting account so they can be booked. Names must be 1 to 40 characters and
    the date of birth in the past; the same person cannot be saved twice in one account.

    Args:
        customer_email: e-mail of the account holder acting.
        first_name: the traveller's first name, as on the passport.
        last_name: the traveller's last name.
        date_of_birth: YYYY-MM-DD.
        passport_number: optional passport number (6 to 12 letters or digits).
    """
    c = _customer(db, customer_email)
    fn, ln = first_name.strip(), last_name.strip()
    if not (1 <= len(fn) <= 40 and 1 <= len(ln) <= 40):
        raise ToolError("first_name and last_name must be 1 to 40 characters.")
    dob = _date(date_of_birth, "date_of_birth")
    if dob >= db.today():
        raise ToolError("date_of_birth must be in the past.")
    if passport_number is not None and not re.fullmatch(r"[A-Za-z0-9]{6,12}", passport_number.strip()):
        raise ToolError("passport_number must be 6 to 12 letters or digits.")
    db.none("SELECT 1 FROM travellers WHERE customer_id = ? AND lower(first_name) = lower(?) AND "
            "lower(last_name) = lower(?) AND date_of_birth = ?", (c["id"], fn, ln, dob.isoformat()),
            found=f"{fn} {ln} ({dob.isoformat()}) is already saved in this account; list_travellers shows the id.")
    tid = db.insert("travellers", {"customer_id": c["id"], "first_name": fn, "last_name": ln,
                                   "date_of_birth": dob.isoformat(),
                                   "passport_number": passport_number.strip().upper() if passport_number else None,
                                   "is_holder": 0})
    return {"traveller_id": tid, "name": f"{fn} {ln}", "date_of_birth": dob.isoformat()}


@tool(write=True)
def update_passport(db: Db, customer_email: str, traveller_id: int, passport_number: str) -> dict:
    """Record or replace the passport number of a traveller saved in the acting account.

    Args:
        customer_email: e-mail of the account holder acting.
        traveller_id: the traveller's id (list_travellers).
        passport_number: 6 to 12 letters or digits.
    """
    c = _customer(db, customer_email)
    t = _own_traveller(db, c, traveller_id, "list_travellers shows the account's travellers")
    p = passport_number.strip().upper()
    if not re.fullmatch(r"[A-Z0-9]{6,12}", p):
        raise ToolError("passport_number must be 6 to 12 letters or digits.")
    if t["passport_number"] == p:
        raise ToolError(f"{t['first_name']} {t['last_name']} already has passport {p} on file.")
    db.execute("UPDATE travellers SET passport_number = ? WHERE id = ?", (p, traveller_id))
    return {"traveller_id": traveller_id, "name": f"{t['first_name']} {t['last_name']}", "passport_number": p,
            "previous": t["passport_number"]}


@tool(write=True)
def update_phone(db: Db, customer_email: str, phone: str) -> dict:
    """Change the contact phone number of the acting account (used for flight disruption messages).

    Args:
        customer_email: e-mail of the account holder acting.
        phone: the new number, digits with optional +, spaces, dashes or parentheses (7 to 20 characters).
    """
    c = _customer(db, customer_email)
    p = phone.strip()
    if not re.fullmatch(r"[+0-9() \-]{7,20}", p) or sum(ch.isdigit() for ch in p) < 7:
        raise ToolError("phone must be 7 to 20 characters of digits, +, spaces, dashes or parentheses.")
    if p == c["phone"]:
        raise ToolError("That is already the phone number on the account.")
    db.execute("UPDATE customers SET phone = ? WHERE id = ?", (p, c["id"]))
    return {"email": c["email"], "phone": p, "previous": c["phone"]}


@tool(write=True)
def transfer_miles(db: Db, customer_email: str, to_member_number: str, miles: int) -> dict:
    """Give miles from the acting account to another frequent-flyer member. At least 1,000 miles, in steps of
    100, never more than the balance, and not to oneself.

    Args:
        customer_email: e-mail of the account holder giving the miles.
        to_member_number: the receiving member number, e.g. "NA1000234".
        miles: how many miles to give.
    """
    c = _member(db, customer_email)
    to = db.one("SELECT l.*, c.full_name FROM loyalty_accounts l JOIN customers c ON c.id = l.customer_id "
                "WHERE upper(l.member_number) = upper(?)", (to_member_number.strip(),),
                missing=f"No frequent-flyer member {to_member_number!r}; find_customers shows member numbers.")
    if to["id"] == c["account_id"]:
        raise ToolError("Miles cannot be transferred to the same account.")
    if miles < MIN_TRANSFER_MILES or miles % 100:
        raise ToolError(f"Transfers are at least {MIN_TRANSFER_MILES} miles, in steps of 100 (got {miles}).")
    if miles > c["miles_balance"]:
        raise ToolError(f"{c['full_name']} has only {c['miles_balance']} miles.")
    _miles(db, c["account_id"], None, "transfer_out", -miles, f"to {to['member_number']}")
    _miles(db, to["id"], None, "transfer_in", miles, f"from {c['member_number']}")
    return {"from": c["member_number"], "to": to["member_number"], "to_name": to["full_name"], "miles": miles,
            "balance": c["miles_balance"] - miles}


# ----------------------------------------------------------------------------------------------
# write tools: booking life cycle
# ----------------------------------------------------------------------------------------------

def _check_not_double_booked(db: Db, flight: dict[str, Any], traveller_ids: list[int]) -> None:
    for tid in traveller_ids:
        clash = db.one("SELECT b.pnr FROM segments s JOIN bookings b ON b.id = s.booking_id JOIN booking_passengers bp "
                       "ON bp.booking_id = b.id WHERE s.flight_id = ? AND s.status = 'active' AND b.status IN "
                       "('held', 'ticketed') AND bp.traveller_id = ?", (flight["id"], tid))
        if clash:
            raise ToolError(f"Traveller {tid} is already booked on flight {flight['flight_number']} "
                            f"({flight['departure_at'][:10]}) in booking {clash['pnr']}.")


@tool(write=True)
def create_booking(db: Db, customer_email: str, flight_id: int, fare: FareCode, traveller_ids: list[int]) -> dict:
    """Hold seats on a flight for travellers saved in the acting account. The booking is created 'held' (nothing
    is paid) for 24 hours, or until 3 hours before departure if sooner; ticket it with ticket_booking. 1 to 6
    passengers, each at most once per flight across bookings; the fare must have enough seats left.

    Args:
        customer_email: e-mail of the account holder booking.
        flight_id: the flight's id (search_flights).
        fare: "basic", "standard", "flex" or "business".
        traveller_ids: ids of the travellers flying (list_travellers), e.g. [12, 13].
    """
    c = _customer(db, customer_email)
    f = _flight(db, flight_id)
    _bookable(db, f)
    ids = list(traveller_ids)
    if not 1 <= len(ids) <= MAX_PASSENGERS or len(set(ids)) != len(ids):
        raise ToolError(f"Give 1 to {MAX_PASSENGERS} different traveller ids.")
    for tid in ids:
        _own_traveller(db, c, tid, "add them with add_traveller or use list_travellers for the ids")
    _check_not_double_booked(db, f, ids)
    ff = _flight_fare(db, flight_id, fare)
    if ff["seats_left"] < len(ids):
        raise ToolError(f"Only {ff['seats_left']} {fare} seat(s) left on flight {f['flight_number']}; try another fare "
                        "or flight.")
    dep = datetime.fromisoformat(f["departure_at"])
    expires = min(db.now() + timedelta(hours=HOLD_HOURS), dep - timedelta(hours=3)).replace(microsecond=0)
    if expires <= db.now():
        raise ToolError(f"Flight {f['flight_number']} leaves in under 3 hours and can no longer be booked online.")
    pnr = _new_pnr(db)
    bid = db.insert("bookings", {"pnr": pnr, "customer_id": c["id"], "status": "held", "paid_with": None,
                                 "created_at": _now(db), "hold_expires_at": expires.isoformat(), "ticketed_at": None,
                                 "cancelled_at": None})
    for tid in ids:
        db.insert("booking_passengers", {"booking_id": bid, "traveller_id": tid})
    _add_segment(db, bid, flight_id, ff, len(ids))
    return {"pnr": pnr, "status": "held", "hold_expires_at": expires.isoformat(), "passengers": len(ids),
            "fare": fare, "fare_per_passenger_usd": _usd(ff["price_cents"]),
            "total_usd": _usd(ff["price_cents"] * len(ids))}


@tool(write=True)
def add_flight_to_booking(db: Db, pnr: str, customer_email: str, flight_id: int, fare: FareCode) -> dict:
    """Add another flight (a return or a connection) to a held booking, for all its passengers. The flight must
    depart after the booking's last flight arrives, and the fare must have enough seats left.

    Args:
        pnr: the held booking's reference.
        customer_email: e-mail of the account holder acting.
        flight_id: the flight to add.
        fare: "basic", "standard", "flex" or "business".
    """
    b, c = _own_booking(db, pnr, customer_email)
    _held(b, "flights can only be added")
    f = _flight(db, flight_id)
    _bookable(db, f)
    segs = _active_segments(db, b["id"])
    if any(s["flight_id"] == flight_id for s in segs):
        raise ToolError(f"Flight {f['flight_number']} is already on booking {b['pnr']}.")
    last_arrival = max(s["arrival_at"] for s in segs)
    if f["departure_at"] <= last_arrival:
        raise ToolError(f"Flight {f['flight_number']} departs {f['departure_at']}, before the booking's last flight "
                        f"arrives ({last_arrival}); pick a later flight.")
    db.none("SELECT 1 FROM segments WHERE booking_id = ? AND flight_id = ?", (b["id"], flight_id),
            found=f"Flight {f['flight_number']} was already on this booking once; make a new booking for it.")
    pax = [p["id"] for p in _passengers(db, b["id"])]
    _check_not_double_booked(db, f, pax)
    ff = _flight_fare(db, flight_id, fare)
    if ff["seats_left"] < len(pax):
        raise ToolError(f"Only {ff['seats_left']} {fare} seat(s) left on flight {f['flight_number']}.")
    _add_segment(db, b["id"], flight_id, ff, len(pax))
    return {"pnr": b["pnr"], "added_flight": _flight_line(f), "fare": fare,
            "fare_per_passenger_usd": _usd(ff["price_cents"])}


@tool(write=True)
def remove_flight_from_booking(db: Db, pnr: str, customer_email: str, flight_id: int) -> dict:
    """Take a flight off a held booking (its seats are released). A booking keeps at least one flight; to drop
    everything, cancel it.

    Args:
        pnr: the held booking's reference.
        customer_email: e-mail of the account holder acting.
        flight_id: the flight to remove.
    """
    b, c = _own_booking(db, pnr, customer_email)
    _held(b, "flights can only be removed")
    seg = _segment(db, b, flight_id)
    if len(_active_segments(db, b["id"])) == 1:
        raise ToolError(f"That is the only flight on {b['pnr']}; cancel the booking instead.")
    n = len(_passengers(db, b["id"]))
    db.execute("DELETE FROM segments WHERE id = ?", (seg["id"],))
    _seats(db, seg["flight_fare_id"], n)
    return {"pnr": b["pnr"], "removed_flight_id": flight_id}


@tool(write=True)
def remove_passenger(db: Db, pnr: str, customer_email: str, traveller_id: int) -> dict:
    """Take a passenger off a held booking, releasing their seats on every flight. A booking keeps at least one
    passenger. Ticketed bookings cannot lose passengers (cancel and rebook instead).

    Args:
        pnr: the held booking's reference.
        customer_email: e-mail of the account holder acting.
        traveller_id: the passenger's traveller id.
    """
    b, c = _own_booking(db, pnr, customer_email)
    _held(b, "passengers can only be removed")
    t = _on_booking(db, b, traveller_id)
    if len(_passengers(db, b["id"])) == 1:
        raise ToolError(f"{t['first_name']} {t['last_name']} is the only passenger; cancel the booking instead.")
    for s in _active_segments(db, b["id"]):
        _seats(db, s["flight_fare_id"], 1)
    db.execute("DELETE FROM booking_passengers WHERE booking_id = ? AND traveller_id = ?", (b["id"], traveller_id))
    return {"pnr": b["pnr"], "removed": f"{t['first_name']} {t['last_name']}",
            "passengers_left": len(_passengers(db, b["id"]))}


@tool(write=True)
def ticket_booking(db: Db, pnr: str, customer_email: str, pay_with: Literal["card", "miles"]) -> dict:
    """Pay for a held booking and issue the tickets. By card: the fare total is charged and the account earns
    miles (fare dollars x the fare's miles per dollar, plus the tier bonus, rounded down per flight). By miles:
    1 mile per cent of the fare total is redeemed (no miles are earned). The hold must not have expired.

    Args:
        pnr: the held booking's reference.
        customer_email: e-mail of the account holder paying.
        pay_with: "card" or "miles".
    """
    b, c = _own_booking(db, pnr, customer_email)
    if b["status"] != "held":
        raise ToolError(f"Booking {b['pnr']} is {b['status']}; only a held booking can be ticketed.")
    if b["hold_expires_at"] <= _now(db):
        raise ToolError(f"The hold on {b['pnr']} expired at {b['hold_expires_at']}; cancel it and book again.")
    segs = _active_segments(db, b["id"])
    for s in segs:
        if s["flight_status"] not in BOOKABLE or s["departure_at"] <= _now(db):
            raise ToolError(f"Flight {s['flight_number']} on this booking is {s['flight_status']}; remove it first.")
    n = len(_passengers(db, b["id"]))
    total = sum(s["fare_cents"] * n for s in segs)
    earned = 0
    if pay_with == "miles":
        if c["account_id"] is None or c["miles_balance"] < total:
            raise ToolError(f"Paying {_usd(total):.2f} USD with miles needs {total} miles; {c['full_name']} has "
                            f"{c['miles_balance'] or 0}. Pay by card instead.")
        _miles(db, c["account_id"], b["id"], "redemption", -total, f"ticket {b['pnr']}")
    else:
        if c["account_id"] is not None:
            earned = sum(_miles_for(s["fare_cents"] * n, s["miles_per_dollar"], c["tier"]) for s in segs)
            _miles(db, c["account_id"], b["id"], "accrual", earned, f"ticket {b['pnr']}")
    _pay(db, b["id"], "charge", "fare", pay_with, total)
    db.execute("UPDATE bookings SET status = 'ticketed', paid_with = ?, ticketed_at = ?, hold_expires_at = NULL "
               "WHERE id = ?", (pay_with, _now(db), b["id"]))
    return {"pnr": b["pnr"], "status": "ticketed", "paid_with": pay_with, "charged_usd": _usd(total),
            "miles_redeemed": total if pay_with == "miles" else 0, "miles_earned": earned}


@tool(write=True)
def cancel_booking(db: Db, pnr: str, customer_email: str) -> dict:
    """Cancel a booking. A held booking is simply released. A ticketed booking (none of its flights departed)
    is refunded under the fare rules (see quote_refund) to the way it was paid, and becomes 'refunded', or
    'cancelled' when nothing is refundable; miles earned on it are taken back (never below a zero balance).

    Args:
        pnr: the booking reference.
        customer_email: e-mail of the account holder acting.
    """
    b, c = _own_booking(db, pnr, customer_email)
    if b["status"] not in ("held", "ticketed"):
        raise ToolError(f"Booking {b['pnr']} is already {b['status']}.")
    segs = _active_segments(db, b["id"])
    for s in segs:
        if s["flight_status"] in ("departed", "landed") or (s["flight_status"] != "cancelled" and s["departure_at"] <= _now(db)):
            raise ToolError(f"Flight {s['flight_number']} on {b['pnr']} has already departed; the booking can no "
                            "longer be cancelled.")
    n = len(_passengers(db, b["id"]))
    refund = 0
    if b["status"] == "ticketed":
        refund = sum(_refund_per_passenger(s) * n for s in segs)
        _pay(db, b["id"], "refund", "cancellation", b["paid_with"], refund)
        if c["account_id"] is not None:
            if b["paid_with"] == "miles":
                _miles(db, c["account_id"], b["id"], "refund", refund, f"refund {b['pnr']}")
            else:
                earned = db.value("SELECT COALESCE(SUM(miles), 0) FROM miles_transactions WHERE booking_id = ? AND "
                                  "kind IN ('accrual', 'reversal')", (b["id"],))
                bal = db.value("SELECT miles_balance FROM loyalty_accounts WHERE id = ?", (c["account_id"],))
                _miles(db, c["account_id"], b["id"], "reversal", -min(earned, bal), f"cancelled {b['pnr']}")
    for s in segs:
        _seats(db, s["flight_fare_id"], n)
        db.execute("DELETE FROM seat_assignments WHERE segment_id = ?", (s["id"],))
        db.execute("UPDATE segments SET status = 'cancelled' WHERE id = ?", (s["id"],))
    status = "refunded" if refund > 0 else "cancelled"
    db.execute("UPDATE bookings SET status = ?, cancelled_at = ?, hold_expires_at = NULL WHERE id = ?",
               (status, _now(db), b["id"]))
    return {"pnr": b["pnr"], "status": status, "refund_usd": _usd(refund),
            "refund_method": b["paid_with"] if refund else None}


@tool(write=True)
def change_flight(db: Db, pnr: str, customer_email: str, old_flight_id: int, new_flight_id: int) -> dict:
    """Move a ticketed booking (all passengers) from one flight to another flight on the same route, in the same
    fare. The card is charged the fare difference per passenger (if the new flight costs more) plus the fare's
    change fee per passenger; basic fares cannot be changed. When the airline cancelled the old flight, any fare
    may be rebooked and everything is waived. Seat choices on the old flight are dropped (choose again);
    checked bags move to the new flight. The new flight must stay between the booking's other flights.

    Args:
        pnr: the ticketed booking's reference.
        customer_email: e-mail of the account holder acting.
        old_flight_id: the flight id on the booking now.
        new_flight_id: the flight id to move to (search_flights).
    """
    b, c = _own_booking(db, pnr, customer_email)
    _ticketed(b, "flights can be changed")
    seg = _segment(db, b, old_flight_id)
    n = len(_passengers(db, b["id"]))
    new = _flight(db, new_flight_id)
    q = _change_cost(db, b, seg, new, n)
    db.none("SELECT 1 FROM segments WHERE booking_id = ? AND flight_id = ?", (b["id"], new_flight_id),
            found=f"Flight {new['flight_number']} was already on this booking once; choose another flight.")
    pax = [p["id"] for p in _passengers(db, b["id"])]
    _check_not_double_booked(db, new, pax)
    for s in _active_segments(db, b["id"]):
        if s["id"] == seg["id"]:
            continue
        if s["departure_at"] < seg["departure_at"] and new["departure_at"] <= s["arrival_at"]:
            raise ToolError(f"The new flight leaves before {s['flight_number']} (earlier on this booking) arrives.")
        if s["departure_at"] > seg["departure_at"] and new["arrival_at"] >= s["departure_at"]:
            raise ToolError(f"The new flight arrives after {s['flight_number']} (later on this booking) departs.")
    nf = q["new_fare"]
    new_seg = db.insert("segments", {"booking_id": b["id"], "flight_id": new_flight_id, "flight_fare_id": nf["id"],
                                     "fare_cents": max(nf["price_cents"], seg["fare_cents"]) if not q["airline_cancelled"]
                                     else seg["fare_cents"], "status": "active"})
    db.execute("DELETE FROM seat_assignments WHERE segment_id = ?", (seg["id"],))
    db.execute("UPDATE checked_bags SET segment_id = ? WHERE segment_id = ?", (new_seg, seg["id"]))
    db.execute("UPDATE segments SET status = 'changed' WHERE id = ?", (seg["id"],))
    _seats(db, seg["flight_fare_id"], n)
    _seats(db, nf["id"], -n)
    db.insert("booking_changes", {"booking_id": b["id"], "old_flight_id": old_flight_id, "new_flight_id": new_flight_id,
                                  "fare_difference_cents": q["diff"] * n, "change_fee_cents": q["fee"] * n,
                                  "reason": "airline_cancellation" if q["airline_cancelled"] else "voluntary",
                                  "created_at": _now(db)})
    _pay(db, b["id"], "charge", "change", "card", q["total"])
    return {"pnr": b["pnr"], "new_flight": _flight_line(new), "charged_usd": _usd(q["total"]),
            "fare_difference_usd": _usd(q["diff"] * n), "change_fees_usd": _usd(q["fee"] * n),
            "note": "Seat choices were released; pick seats again with assign_seat."}


@tool(write=True)
def upgrade_fare(db: Db, pnr: str, customer_email: str, flight_id: int, new_fare: FareCode) -> dict:
    """Move every passenger on one flight of a ticketed booking to a higher fare (basic < standard < flex <
    business), charging the card the difference between the new fare's current price and the fare paid, per
    passenger. The new fare needs enough seats left. Moving into business drops economy seat choices.

    Args:
        pnr: the ticketed booking's reference.
        customer_email: e-mail of the account holder acting.
        flight_id: the flight to upgrade.
        new_fare: the higher fare: "standard", "flex" or "business".
    """
    b, c = _own_booking(db, pnr, customer_email)
    _ticketed(b, "fares can be upgraded")
    seg = _segment(db, b, flight_id)
    f = _flight(db, flight_id)
    _bookable(db, f)
    if FARE_ORDER.index(new_fare) <= FARE_ORDER.index(seg["fare_code"]):
        raise ToolError(f"The booking already has the {seg['fare_code']} fare on this flight; an upgrade must be to a "
                        "higher fare (basic < standard < flex < business).")
    n = len(_passengers(db, b["id"]))
    nf = _flight_fare(db, flight_id, new_fare)
    if nf["seats_left"] < n:
        raise ToolError(f"Only {nf['seats_left']} {new_fare} seat(s) left on flight {f['flight_number']}.")
    diff = max(nf["price_cents"] - seg["fare_cents"], 0)
    if nf["cabin"] != seg["cabin"]:
        db.execute("DELETE FROM seat_assignments WHERE segment_id = ?", (seg["id"],))
    db.execute("UPDATE segments SET flight_fare_id = ?, fare_cents = ? WHERE id = ?",
               (nf["id"], max(nf["price_cents"], seg["fare_cents"]), seg["id"]))
    _seats(db, seg["flight_fare_id"], n)
    _seats(db, nf["id"], -n)
    _pay(db, b["id"], "charge", "upgrade", "card", diff * n)
    return {"pnr": b["pnr"], "flight_id": flight_id, "fare": new_fare, "charged_usd": _usd(diff * n)}


# ----------------------------------------------------------------------------------------------
# write tools: seats and bags
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def assign_seat(db: Db, pnr: str, customer_email: str, flight_id: int, traveller_id: int, seat_number: str) -> dict:
    """Give a passenger a seat on one flight of a ticketed booking, replacing their current seat there (a fee
    already paid is not returned). The seat must be in the fare's cabin and free; extra-legroom seats are exit
    rows, open only to travellers aged 15 or more on the day of the flight. Fee: free on flex and business fares
    and for gold members; otherwise $35 for extra legroom, $15 for any seat on a basic fare, free on standard.

    Args:
        pnr: the ticketed booking's reference.
        customer_email: e-mail of the account holder acting.
        flight_id: the flight's id on the booking.
        traveller_id: the passenger's traveller id.
        seat_number: e.g. "12A".
    """
    b, c = _own_booking(db, pnr, customer_email)
    _ticketed(b, "seats can be chosen")
    seg, f = _open_segment(db, b, flight_id, "seats can no longer be chosen on it")
    t = _on_booking(db, b, traveller_id)
    seat = db.one("SELECT * FROM aircraft_seats WHERE aircraft_id = ? AND upper(seat_number) = upper(?)",
                  (f["aircraft_id"], seat_number.strip()),
                  missing=f"Seat {seat_number!r} does not exist on this aircraft; get_seat_map lists the seats.")
    if seat["cabin"] != seg["cabin"]:
        raise ToolError(f"Seat {seat['seat_number']} is in {seat['cabin']}, but the {seg['fare_code']} fare flies "
                        f"{seg['cabin']}; choose a {seg['cabin']} seat (or upgrade the fare).")
    holder = db.one("SELECT segment_id, traveller_id FROM seat_assignments WHERE flight_id = ? AND seat_id = ?",
                    (flight_id, seat["id"]))
    if holder is not None:
        if holder["segment_id"] == seg["id"] and holder["traveller_id"] == traveller_id:
            raise ToolError(f"{t['first_name']} {t['last_name']} already has seat {seat['seat_number']}.")
        raise ToolError(f"Seat {seat['seat_number']} is taken; get_seat_map shows the free seats.")
    if seat["extra_legroom"] and _age_on(t["date_of_birth"], f["departure_at"]) < EXIT_ROW_MIN_AGE:
        raise ToolError(f"Seat {seat['seat_number']} is an exit row; {t['first_name']} is under {EXIT_ROW_MIN_AGE} on "
                        "the day of the flight. Choose another seat.")
    fee = _seat_fee(seg["fare_code"], c["tier"], seat["extra_legroom"])
    db.execute("DELETE FROM seat_assignments WHERE segment_id = ? AND traveller_id = ?", (seg["id"], traveller_id))
    db.insert("seat_assignments", {"segment_id": seg["id"], "flight_id": flight_id, "traveller_id": traveller_id,
                                   "seat_id": seat["id"], "fee_cents": fee})
    _pay(db, b["id"], "charge", "seat", "card", fee)
    return {"pnr": b["pnr"], "flight_number": f["flight_number"], "traveller": f"{t['first_name']} {t['last_name']}",
            "seat": seat["seat_number"], "fee_usd": _usd(fee)}


@tool(write=True)
def release_seat(db: Db, pnr: str, customer_email: str, flight_id: int, traveller_id: int) -> dict:
    """Give up a passenger's chosen seat on a flight (a seat fee already paid is not returned).

    Args:
        pnr: the booking reference.
        customer_email: e-mail of the account holder acting.
        flight_id: the flight's id on the booking.
        traveller_id: the passenger's traveller id.
    """
    b, c = _own_booking(db, pnr, customer_email)
    seg = _segment(db, b, flight_id)
    t = _on_booking(db, b, traveller_id)
    if _departed(db, _flight(db, flight_id)):
        raise ToolError("That flight has departed.")
    n = db.execute("DELETE FROM seat_assignments WHERE segment_id = ? AND traveller_id = ?", (seg["id"], traveller_id))
    if n == 0:
        raise ToolError(f"{t['first_name']} {t['last_name']} has no seat chosen on this flight.")
    return {"pnr": b["pnr"], "flight_id": flight_id, "traveller": f"{t['first_name']} {t['last_name']}",
            "seat": None}


@tool(write=True)
def add_checked_bag(db: Db, pnr: str, customer_email: str, flight_id: int, traveller_id: int) -> dict:
    """Add one checked bag for a passenger on one flight of a ticketed booking. Bags within the allowance (fare
    plus tier bonus) are free; the first extra bag costs $35 and each later one $50, charged to the card; at
    most 3 bags per passenger per flight, and not after departure.

    Args:
        pnr: the ticketed booking's reference.
        customer_email: e-mail of the account holder acting.
        flight_id: the flight's id on the booking.
        traveller_id: the passenger's traveller id.
    """
    b, c = _own_booking(db, pnr, customer_email)
    _ticketed(b, "bags can be added")
    seg, f = _open_segment(db, b, flight_id, "bags can no longer be added to it")
    t = _on_booking(db, b, traveller_id)
    have = _bags_checked(db, seg["id"], traveller_id)
    if have >= MAX_BAGS_PER_TRAVELLER:
        raise ToolError(f"{t['first_name']} already has {have} bags on this flight, the maximum.")
    free = _free_bags(seg, c["tier"])
    fee = _bag_fee(have + 1, free)
    next_id = (db.value("SELECT COALESCE(MAX(id), 0) FROM checked_bags") or 0) + 1
    tag = f"{f['airline_code']}{700000 + next_id:06d}"
    db.insert("checked_bags", {"segment_id": seg["id"], "traveller_id": traveller_id, "tag_number": tag,
                               "fee_cents": fee, "added_at": _now(db)})
    _pay(db, b["id"], "charge", "bag", "card", fee)
    return {"pnr": b["pnr"], "traveller": f"{t['first_name']} {t['last_name']}", "tag_number": tag,
            "fee_usd": _usd(fee), "bags_on_flight": have + 1, "free_bags": free}


@tool(write=True)
def remove_checked_bag(db: Db, pnr: str, customer_email: str, tag_number: str) -> dict:
    """Remove a checked bag before the flight departs; its fee, if any, is refunded to the card.

    Args:
        pnr: the booking reference.
        customer_email: e-mail of the account holder acting.
        tag_number: the bag tag, e.g. "NA700012" (get_booking lists them).
    """
    b, c = _own_booking(db, pnr, customer_email)
    bag = db.one("SELECT cb.*, s.flight_id FROM checked_bags cb JOIN segments s ON s.id = cb.segment_id "
                 "WHERE upper(cb.tag_number) = upper(?) AND s.booking_id = ?", (tag_number.strip(), b["id"]),
                 missing=f"No bag {tag_number!r} on booking {b['pnr']}.")
    if _departed(db, _flight(db, bag["flight_id"])):
        raise ToolError("That flight has departed; the bag can no longer be removed.")
    db.execute("DELETE FROM checked_bags WHERE id = ?", (bag["id"],))
    _pay(db, b["id"], "refund", "bag", "card", bag["fee_cents"])
    return {"pnr": b["pnr"], "removed_tag": bag["tag_number"], "refund_usd": _usd(bag["fee_cents"])}
