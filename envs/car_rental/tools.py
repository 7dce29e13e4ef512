"""Tools of the car_rental world: reservations, counter operations and the fleet of a car rental company.

Customers act with their e-mail (``customer_email``) and may only see and change their own reservations.
Counter agents act with their staff e-mail (``agent_email``) and work only at their own location. Locations
are named by codes ("SFO"), vehicle classes by codes ("COMP"), vehicles by plate, reservations by code
("RKT4821"). Prices are per day from pickup_date to return_date; each Saturday and Sunday is charged at the
class's weekend rate, and silver / gold loyalty members get 5% / 10% off the vehicle rental.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, filters, parse_day, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import dollars as _money
from awm.tooling import now_iso as _now

MAX_RENTAL_DAYS = 30
TIER_DISCOUNT = {"basic": 0, "silver": 5, "gold": 10}
FUEL_CHARGE_CENTS = 7500
POINTS_STEP = 500
DAMAGE_WINDOW_DAYS = 3
LETTERS = "BCDFGHJKLMNPQRSTVWXZ"

InsuranceCode = Literal["LDW", "PREMIUM", "NONE"]
ExtraCode = Literal["CHILD_SEAT", "GPS", "SKI_RACK", "TOLL_PASS"]
ResStatus = Literal["reserved", "picked_up", "returned", "cancelled", "no_show"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _date(value: str, what: str) -> date:
    return parse_day(value, what, "2026-05-20")


def _customer(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT c.*, l.license_number, l.issuing_state, l.expires_on AS license_expires_on FROM customers c "
                  "LEFT JOIN driver_licenses l ON l.customer_id = c.id WHERE lower(c.email) = lower(?)", (email.strip(),),
                  missing=f"No customer with e-mail {email!r}. Ask for the e-mail address on their rental profile.")


def _agent(db: Db, email: str) -> dict[str, Any]:
    row = db.one("SELECT a.*, l.code AS location_code, l.name AS location_name FROM agents a "
                 "JOIN locations l ON l.id = a.location_id WHERE lower(a.email) = lower(?)", (email.strip(),),
                 missing=f"No agent with e-mail {email!r}.")
    if not row["is_active"]:
        raise ToolError(f"{row['full_name']}'s staff account is deactivated.")
    return row


def _location(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM locations WHERE upper(code) = upper(?)", (code.strip(),),
                  missing=f"No location with code {code!r}; list_locations shows the codes.")


def _class(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM vehicle_classes WHERE upper(code) = upper(?)", (code.strip(),),
                  missing=f"No vehicle class {code!r}; list_vehicle_classes shows the codes.")


_RES_SQL = ("SELECT r.*, c.email AS customer_email, c.first_name || ' ' || c.last_name AS customer_name, "
            "c.loyalty_tier, k.code AS class_code, k.name AS class_name, k.daily_rate_cents, k.weekend_rate_cents, "
            "k.min_age, v.plate, v.status AS vehicle_status, pl.code AS pickup_code, rl.code AS return_code "
            "FROM reservations r JOIN customers c ON c.id = r.customer_id JOIN vehicle_classes k ON k.id = r.class_id "
            "JOIN vehicles v ON v.id = r.vehicle_id JOIN locations pl ON pl.id = r.pickup_location_id "
            "JOIN locations rl ON rl.id = r.return_location_id ")


def _res(db: Db, code: str) -> dict[str, Any]:
    return db.one(_RES_SQL + "WHERE upper(r.code) = upper(?)", (code.strip(),),
                  missing=f"No reservation with code {code!r}; codes look like 'RKT4821'.")


def _own_res(db: Db, customer_email: str, code: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The acting customer and one of their reservations."""
    customer = _customer(db, customer_email)
    r = _res(db, code)
    require_owner(r, "customer_id", customer["id"], f"Reservation {code} is not one of {customer['first_name']} "
                  f"{customer['last_name']}'s; list_reservations shows theirs.")
    return customer, r


def _counter_res(db: Db, agent_email: str, code: str, where: Literal["pickup", "return"],
                 what: str) -> dict[str, Any]:
    """A reservation handled by the acting agent, who must work at its ``where`` location."""
    a = _agent(db, agent_email)
    r = _res(db, code)
    _at_location(a, r[f"{where}_location_id"], what)
    return r


def _span(r: dict[str, Any]) -> tuple[date, date]:
    """A reservation's pickup and return dates."""
    return date.fromisoformat(r["pickup_date"]), date.fromisoformat(r["return_date"])


def _vehicle(db: Db, plate: str) -> dict[str, Any]:
    return db.one("SELECT * FROM vehicles WHERE upper(plate) = upper(?)", (plate.strip(),),
                  missing=f"No vehicle with plate {plate!r}.")


def _reserved(r: dict[str, Any], what: str) -> None:
    if r["status"] != "reserved":
        raise ToolError(f"Reservation {r['code']} is {r['status'].replace('_', ' ')}; only a reservation that has not "
                        f"been picked up yet can {what}.")


def _at_location(agent: dict[str, Any], location_id: int, what: str) -> None:
    if agent["location_id"] != location_id:
        raise ToolError(f"{agent['full_name']} works at {agent['location_name']} ({agent['location_code']}); only "
                        f"agents at the location concerned can {what}.")


def _age(dob: str, on: date) -> int:
    b = date.fromisoformat(dob)
    return on.year - b.year - ((on.month, on.day) < (b.month, b.day))


def _check_driver(c: dict[str, Any], k: dict[str, Any], d1: date, d2: date) -> None:
    if c["license_expires_on"] is None:
        raise ToolError("The customer has no driver licence on file; add it with update_driver_license.")
    if c["license_expires_on"] < d2.isoformat():
        raise ToolError(f"The customer's driver licence expires on {c['license_expires_on']}, before the return date "
                        f"{d2.isoformat()}. Record a renewed licence with update_driver_license first.")
    age = _age(c["date_of_birth"], d1)
    if age < k["min_age"]:
        raise ToolError(f"Drivers of the {k['name']} class must be at least {k['min_age']}; the customer will be {age} "
                        "on the pickup date. Choose another class.")


def _rental_cents(k: dict[str, Any], d1: date, d2: date, tier: str) -> int:
    total, d = 0, d1
    while d < d2:
        total += k["weekend_rate_cents"] if d.weekday() >= 5 else k["daily_rate_cents"]
        d += timedelta(days=1)
    return total * (100 - TIER_DISCOUNT[tier]) // 100


def _dates(db: Db, pickup_date: str, return_date: str, future: bool = True) -> tuple[date, date]:
    d1, d2 = _date(pickup_date, "pickup_date"), _date(return_date, "return_date")
    if future and d1 < db.today():
        raise ToolError(f"pickup_date {d1.isoformat()} is in the past; today is {db.today().isoformat()}.")
    if d2 <= d1:
        raise ToolError("return_date must be after pickup_date.")
    if (d2 - d1).days > MAX_RENTAL_DAYS:
        raise ToolError(f"A rental lasts at most {MAX_RENTAL_DAYS} days.")
    return d1, d2


def _vehicle_free(db: Db, vehicle_id: int, d1: date, d2: date, exclude: int | None = None) -> bool:
    clash = db.value("SELECT COUNT(*) FROM reservations WHERE vehicle_id = ? AND status IN ('reserved', 'picked_up') "
                     "AND id IS NOT ? AND pickup_date < ? AND return_date > ?",
                     (vehicle_id, exclude, d2.isoformat(), d1.isoformat()))
    return clash == 0


def _find_vehicle(db: Db, location_id: int, class_id: int, d1: date, d2: date,
                  exclude: int | None = None) -> dict[str, Any] | None:
    rows = db.query("SELECT v.* FROM vehicles v WHERE v.location_id = ? AND v.class_id = ? AND v.status IN "
                    "('available', 'rented') AND NOT EXISTS (SELECT 1 FROM reservations r WHERE r.vehicle_id = v.id "
                    "AND r.status IN ('reserved', 'picked_up') AND r.return_location_id <> v.location_id "
                    "AND r.id IS NOT ?) ORDER BY v.mileage_km, v.id", (location_id, class_id, exclude))
    for v in rows:
        if _vehicle_free(db, v["id"], d1, d2, exclude):
            return v
    return None


def _extra_free(db: Db, location_id: int, extra_id: int, d1: date, d2: date, qty: int,
                exclude: int | None = None) -> bool:
    stock = db.value("SELECT quantity FROM extra_inventory WHERE location_id = ? AND extra_id = ?",
                     (location_id, extra_id)) or 0
    d = d1
    while d < d2:
        used = db.value("SELECT COALESCE(SUM(x.quantity), 0) FROM reservation_extras x JOIN reservations r ON "
                        "r.id = x.reservation_id WHERE r.pickup_location_id = ? AND x.extra_id = ? AND r.status IN "
                        "('reserved', 'picked_up') AND r.pickup_date <= ? AND r.return_date > ? AND r.id IS NOT ?",
                        (location_id, extra_id, d.isoformat(), d.isoformat(), exclude))
        if used + qty > stock:
            return False
        d += timedelta(days=1)
    return True


def _short_extra(db: Db, r: dict[str, Any], d1: date, d2: date) -> str | None:
    """The first extra on a reservation that its pickup location cannot supply from d1 to d2, if any."""
    for x in db.query("SELECT x.extra_id, x.quantity, e.name FROM reservation_extras x JOIN extras e ON e.id = x.extra_id "
                      "WHERE x.reservation_id = ?", (r["id"],)):
        if not _extra_free(db, r["pickup_location_id"], x["extra_id"], d1, d2, x["quantity"], r["id"]):
            return x["name"]
    return None


def _one_way_fee(db: Db, from_id: int, to_id: int) -> int:
    if from_id == to_id:
        return 0
    fee = db.value("SELECT fee_cents FROM one_way_fees WHERE from_location_id = ? AND to_location_id = ?",
                   (from_id, to_id))
    if fee is None:
        routes = db.query("SELECT l.code FROM one_way_fees f JOIN locations l ON l.id = f.to_location_id "
                          "WHERE f.from_location_id = ? ORDER BY l.code", (from_id,))
        raise ToolError("One-way rentals are not offered on that route. From this pickup location cars can be "
                        "returned to: " + (", ".join(r["code"] for r in routes) or "nowhere else") + ".")
    return fee


def _breakdown(db: Db, r: dict[str, Any]) -> dict[str, int]:
    """Price parts of a reservation from its current rows."""
    d1, d2 = _span(r)
    days = (d2 - d1).days
    k = db.one("SELECT * FROM vehicle_classes WHERE id = ?", (r["class_id"],))
    tier = db.value("SELECT loyalty_tier FROM customers WHERE id = ?", (r["customer_id"],))
    rental = _rental_cents(k, d1, d2, tier)
    ins = db.value("SELECT daily_price_cents FROM insurance_options WHERE id = ?", (r["insurance_id"],)) or 0
    extras = db.value("SELECT COALESCE(SUM(e.daily_price_cents * x.quantity), 0) FROM reservation_extras x "
                      "JOIN extras e ON e.id = x.extra_id WHERE x.reservation_id = ?", (r["id"],))
    return {"rental": rental, "insurance": ins * days, "extras": extras * days, "one_way": r["one_way_fee_cents"],
            "points": r["points_redeemed"], "days": days}


def _reprice(db: Db, res_id: int) -> dict[str, Any]:
    r = db.one("SELECT * FROM reservations WHERE id = ?", (res_id,))
    b = _breakdown(db, r)
    if b["points"] > b["rental"] // 2:
        raise ToolError(f"The {b['points']} loyalty points redeemed on this reservation would exceed half of the new "
                        "rental price; this change is not possible.")
    total = b["rental"] + b["insurance"] + b["extras"] + b["one_way"] - b["points"]
    db.execute("UPDATE reservations SET rental_cents = ?, estimated_total_cents = ? WHERE id = ?",
               (b["rental"], total, res_id))
    return {"days": b["days"], "rental": _money(b["rental"]), "insurance_cost": _money(b["insurance"]),
            "extras_cost": _money(b["extras"]), "one_way_fee": _money(b["one_way"]), "points_discount": _money(b["points"]),
            "estimated_total": _money(total)}


def _charge(db: Db, res_id: int, kind: str, cents: int, desc: str) -> None:
    if cents:
        db.insert("charges", {"reservation_id": res_id, "kind": kind, "amount_cents": cents, "description": desc,
                              "created_at": _now(db)})


def _loyalty(db: Db, customer_id: int, res_id: int, points: int, reason: str) -> None:
    """Add (or, negative, take) loyalty points and record the movement."""
    db.execute("UPDATE customers SET loyalty_points = loyalty_points + ? WHERE id = ?", (points, customer_id))
    db.insert("loyalty_transactions", {"customer_id": customer_id, "reservation_id": res_id, "points": points,
                                       "reason": reason, "created_at": _now(db)})


def _new_code(db: Db) -> str:
    n = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM reservations")
    while True:
        code = f"R{LETTERS[n % 20]}{LETTERS[(n // 20) % 20]}{(n * 7919) % 9000 + 1000}"
        if db.value("SELECT 1 FROM reservations WHERE code = ?", (code,)) is None:
            return code
        n += 1


def _res_summary(db: Db, r: dict[str, Any]) -> dict[str, Any]:
    extras = db.query("SELECT e.code, e.name, x.quantity FROM reservation_extras x JOIN extras e ON e.id = x.extra_id "
                      "WHERE x.reservation_id = ? ORDER BY e.id", (r["id"],))
    ins = db.value("SELECT code FROM insurance_options WHERE id = ?", (r["insurance_id"],))
    return {"code": r["code"], "status": r["status"], "customer": r["customer_name"], "class": r["class_code"],
            "vehicle_plate": r["plate"], "pickup_location": r["pickup_code"], "return_location": r["return_code"],
            "pickup_date": r["pickup_date"], "return_date": r["return_date"], "insurance": ins or "NONE",
            "extras": extras, "rental": _money(r["rental_cents"]), "one_way_fee": _money(r["one_way_fee_cents"]),
            "points_redeemed": r["points_redeemed"], "estimated_total": _money(r["estimated_total_cents"])}


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def list_locations(db: Db, city: str | None = None) -> dict:
    """List rental locations with code, address, phone, opening hours and whether it is an airport.

    Args:
        city: only locations in this city, e.g. "San Francisco".
    """
    where, params = filters(("lower(city) = lower(?)", city))
    rows = db.query("SELECT code, name, city, address, phone, is_airport, opens_at, closes_at FROM locations "
                    f"WHERE {where} ORDER BY code", params)
    for r in rows:
        r["is_airport"] = bool(r["is_airport"])
    return {"locations": rows}


@tool
def list_vehicle_classes(db: Db) -> dict:
    """List the vehicle classes with their weekday and weekend daily rates, seats and minimum driver age."""
    rows = db.query("SELECT code, name, daily_rate_cents, weekend_rate_cents, min_age, seats, description "
                    "FROM vehicle_classes ORDER BY daily_rate_cents")
    for r in rows:
        r["weekday_rate"] = _money(r.pop("daily_rate_cents"))
        r["weekend_rate"] = _money(r.pop("weekend_rate_cents"))
    return {"classes": rows, "note": "Saturdays and Sundays are charged at the weekend rate; silver members get 5% "
                                     "and gold members 10% off the vehicle rental."}


@tool
def list_insurance_options(db: Db) -> dict:
    """List the insurance options with their daily price and deductible (NONE means no insurance)."""
    rows = db.query("SELECT code, name, daily_price_cents, deductible_cents, description FROM insurance_options ORDER BY id")
    for r in rows:
        r["daily_price"] = _money(r.pop("daily_price_cents"))
        r["deductible"] = _money(r.pop("deductible_cents"))
    return {"options": rows, "without_insurance": "the customer pays the full cost of any damage"}


@tool
def list_extras(db: Db, location_code: str) -> dict:
    """List the extras (child seats, GPS, ...) with daily price, the most one rental may take, and the stock a
    location holds.

    Args:
        location_code: the location's code, e.g. "SFO".
    """
    loc = _location(db, location_code)
    rows = db.query("SELECT e.code, e.name, e.daily_price_cents, e.max_per_rental, COALESCE(i.quantity, 0) AS stock "
                    "FROM extras e LEFT JOIN extra_inventory i ON i.extra_id = e.id AND i.location_id = ? ORDER BY e.id",
                    (loc["id"],))
    for r in rows:
        r["daily_price"] = _money(r.pop("daily_price_cents"))
    return {"location": loc["code"], "extras": rows}


@tool
def list_one_way_routes(db: Db, from_location_code: str) -> dict:
    """List where a car picked up at a location may be returned instead, with the one-way fee.

    Args:
        from_location_code: the pickup location's code.
    """
    loc = _location(db, from_location_code)
    rows = db.query("SELECT l.code AS to_location, l.name, f.fee_cents FROM one_way_fees f JOIN locations l ON "
                    "l.id = f.to_location_id WHERE f.from_location_id = ? ORDER BY l.code", (loc["id"],))
    for r in rows:
        r["fee"] = _money(r.pop("fee_cents"))
    return {"from": loc["code"], "routes": rows}


@tool
def search_availability(db: Db, location_code: str, pickup_date: str, return_date: str,
                        class_code: str | None = None, customer_email: str | None = None) -> dict:
    """Which vehicle classes can be booked at a location for a date range, with the vehicle rental price (including
    the customer's loyalty discount when their e-mail is given). Extras, insurance and one-way fees are not included.

    Args:
        location_code: the pickup location's code.
        pickup_date: first day, YYYY-MM-DD.
        return_date: return day, YYYY-MM-DD.
        class_code: only this class, e.g. "SUV".
        customer_email: the customer's e-mail, to apply their loyalty discount.
    """
    loc = _location(db, location_code)
    d1, d2 = _dates(db, pickup_date, return_date)
    tier = _customer(db, customer_email)["loyalty_tier"] if customer_email else "basic"
    classes = [_class(db, class_code)] if class_code else db.query("SELECT * FROM vehicle_classes ORDER BY daily_rate_cents")
    out = []
    for k in classes:
        v = _find_vehicle(db, loc["id"], k["id"], d1, d2)
        out.append({"class": k["code"], "name": k["name"], "available": v is not None, "min_age": k["min_age"],
                    "rental_price": _money(_rental_cents(k, d1, d2, tier))})
    return {"location": loc["code"], "pickup_date": d1.isoformat(), "return_date": d2.isoformat(),
            "days": (d2 - d1).days, "classes": out}


@tool
def get_customer(db: Db, customer_email: str) -> dict:
    """Show a customer's rental profile: contact, age, driver licence, loyalty tier and points.

    Args:
        customer_email: the customer's e-mail address.
    """
    c = _customer(db, customer_email)
    return {"name": f"{c['first_name']} {c['last_name']}", "email": c["email"], "phone": c["phone"],
            "date_of_birth": c["date_of_birth"], "age": _age(c["date_of_birth"], db.today()),
            "loyalty_tier": c["loyalty_tier"], "loyalty_points": c["loyalty_points"],
            "driver_license": {"number": c["license_number"], "state": c["issuing_state"],
                               "expires_on": c["license_expires_on"]}}


@tool
def list_reservations(db: Db, customer_email: str, status: ResStatus | None = None, limit: int = 20) -> dict:
    """List a customer's reservations, newest pickup first.

    Args:
        customer_email: the customer's e-mail address.
        status: only reservations in this status.
        limit: maximum number of reservations, 1 to 50.
    """
    _limit(limit)
    c = _customer(db, customer_email)
    where, params = filters(("r.status = ?", status))
    rows = db.query("SELECT r.code, r.status, k.code AS class, v.plate, pl.code AS pickup_location, rl.code AS "
                    "return_location, r.pickup_date, r.return_date, r.estimated_total_cents FROM reservations r "
                    "JOIN vehicle_classes k ON k.id = r.class_id JOIN vehicles v ON v.id = r.vehicle_id "
                    "JOIN locations pl ON pl.id = r.pickup_location_id JOIN locations rl ON rl.id = r.return_location_id "
                    f"WHERE r.customer_id = ? AND {where} ORDER BY r.pickup_date DESC, r.id DESC LIMIT ?",
                    (c["id"], *params, limit))
    for r in rows:
        r["estimated_total"] = _money(r.pop("estimated_total_cents"))
    return {"count": len(rows), "reservations": rows}


@tool
def get_reservation(db: Db, code: str, actor_email: str) -> dict:
    """Show one reservation: vehicle, dates, locations, insurance, extras, price breakdown, mileage and any charges.
    Visible to the customer who made it and to any rental agent.

    Args:
        code: the reservation code, e.g. "RKT4821".
        actor_email: the e-mail of the customer who made it, or of an agent.
    """
    r = _res(db, code)
    if r["customer_email"].lower() != actor_email.strip().lower():
        _agent(db, actor_email)
    out = _res_summary(db, r)
    out.update({"start_mileage_km": r["start_mileage_km"], "end_mileage_km": r["end_mileage_km"],
                "picked_up_at": r["picked_up_at"], "returned_at": r["returned_at"], "cancelled_at": r["cancelled_at"]})
    ch = db.query("SELECT kind, amount_cents, description, created_at FROM charges WHERE reservation_id = ? ORDER BY id",
                  (r["id"],))
    for x in ch:
        x["amount"] = _money(x.pop("amount_cents"))
    out["charges"] = ch
    out["charges_total"] = _money(sum(int(round(x["amount"] * 100)) for x in ch)) if ch else 0.0
    return out


@tool
def get_loyalty_history(db: Db, customer_email: str, limit: int = 20) -> dict:
    """Show a customer's loyalty balance and recent point movements (earned, redeemed, refunded, bonus).

    Args:
        customer_email: the customer's e-mail address.
        limit: maximum number of movements, 1 to 50.
    """
    _limit(limit)
    c = _customer(db, customer_email)
    rows = db.query("SELECT t.points, t.reason, r.code AS reservation, t.created_at FROM loyalty_transactions t "
                    "LEFT JOIN reservations r ON r.id = t.reservation_id WHERE t.customer_id = ? "
                    "ORDER BY t.created_at DESC, t.id DESC LIMIT ?", (c["id"], limit))
    return {"tier": c["loyalty_tier"], "points": c["loyalty_points"], "movements": rows,
            "rules": "1 point per dollar paid on returned rentals; redeem in steps of 500 points (1 point = 1 cent), "
                     "at most half of a reservation's vehicle rental."}


@tool
def list_location_bookings(db: Db, agent_email: str, day: str, kind: Literal["pickups", "returns"] = "pickups") -> dict:
    """For agents: reservations to be picked up at, or returned to, the agent's location on a day.

    Args:
        agent_email: the agent's staff e-mail.
        day: the day, YYYY-MM-DD.
        kind: "pickups" (default) or "returns".
    """
    a = _agent(db, agent_email)
    d = _date(day, "day").isoformat()
    end = "pickup" if kind == "pickups" else "return"
    rows = db.query(_RES_SQL + f"WHERE r.{end}_location_id = ? AND r.{end}_date = ? ORDER BY r.id",
                    (a["location_id"], d))
    return {"location": a["location_code"], "day": d, "kind": kind,
            "reservations": [{"code": r["code"], "status": r["status"], "customer": r["customer_name"],
                              "class": r["class_code"], "vehicle_plate": r["plate"],
                              "vehicle_status": r["vehicle_status"], "pickup_date": r["pickup_date"],
                              "return_date": r["return_date"]} for r in rows]}


@tool
def list_fleet(db: Db, agent_email: str, status: Literal["available", "rented", "maintenance", "retired"] | None = None,
               class_code: str | None = None, limit: int = 30) -> dict:
    """For agents: vehicles based at the agent's location, with class, status and mileage.

    Args:
        agent_email: the agent's staff e-mail.
        status: only vehicles in this status.
        class_code: only this class, e.g. "MID".
        limit: maximum number of vehicles, 1 to 50.
    """
    _limit(limit)
    a = _agent(db, agent_email)
    cid = _class(db, class_code)["id"] if class_code else None
    where, params = filters(("v.status = ?", status), ("v.class_id = ?", cid))
    rows = db.query("SELECT v.plate, k.code AS class, v.make, v.model, v.year, v.color, v.status, v.mileage_km "
                    "FROM vehicles v JOIN vehicle_classes k ON k.id = v.class_id WHERE v.location_id = ? "
                    f"AND {where} ORDER BY k.id, v.plate LIMIT ?", (a["location_id"], *params, limit))
    return {"location": a["location_code"], "count": len(rows), "vehicles": rows}


@tool
def get_vehicle(db: Db, agent_email: str, plate: str) -> dict:
    """For agents: one vehicle with its status, mileage, upcoming reservations and damage history.

    Args:
        agent_email: the agent's staff e-mail.
        plate: the licence plate, e.g. "8KTR512".
    """
    _agent(db, agent_email)
    v = db.one("SELECT v.*, k.code AS class_code, l.code AS location_code FROM vehicles v JOIN vehicle_classes k ON "
               "k.id = v.class_id JOIN locations l ON l.id = v.location_id WHERE upper(v.plate) = upper(?)", (plate.strip(),),
               missing=f"No vehicle with plate {plate!r}.")
    upcoming = db.query("SELECT code, status, pickup_date, return_date FROM reservations WHERE vehicle_id = ? AND status "
                        "IN ('reserved', 'picked_up') ORDER BY pickup_date", (v["id"],))
    damage = db.query("SELECT severity, description, estimated_cost_cents, reported_at FROM damage_reports "
                      "WHERE vehicle_id = ? ORDER BY reported_at DESC LIMIT 5", (v["id"],))
    return {"plate": v["plate"], "class": v["class_code"], "make": v["make"], "model": v["model"], "year": v["year"],
            "color": v["color"], "location": v["location_code"], "status": v["status"], "mileage_km": v["mileage_km"],
            "upcoming_reservations": upcoming, "recent_damage": damage}


@tool
def list_damage_reports(db: Db, agent_email: str, plate: str | None = None, limit: int = 20) -> dict:
    """For agents: damage reports filed at the agent's location, newest first, optionally for one vehicle.

    Args:
        agent_email: the agent's staff e-mail.
        plate: only this vehicle.
        limit: maximum number of reports, 1 to 50.
    """
    _limit(limit)
    a = _agent(db, agent_email)
    where, params = filters(("upper(v.plate) = upper(?)", plate))
    rows = db.query("SELECT v.plate, r.code AS reservation, d.severity, d.description, d.estimated_cost_cents, "
                    "d.customer_charge_cents, d.reported_at FROM damage_reports d JOIN vehicles v ON v.id = d.vehicle_id "
                    "JOIN agents ag ON ag.id = d.agent_id LEFT JOIN reservations r ON r.id = d.reservation_id "
                    f"WHERE ag.location_id = ? AND {where} ORDER BY d.reported_at DESC, d.id DESC LIMIT ?",
                    (a["location_id"], *params, limit))
    return {"count": len(rows), "reports": rows}


# ----------------------------------------------------------------------------------------------
# write tools: customers
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_reservation(db: Db, customer_email: str, class_code: str, pickup_location_code: str, pickup_date: str,
                       return_date: str, return_location_code: str | None = None,
                       insurance_code: InsuranceCode = "NONE") -> dict:
    """Book a vehicle of a class at a location for a date range. The first free vehicle of that class at the
    location (lowest mileage) is assigned. The driver's licence must be valid until the return date and the driver
    old enough for the class on the pickup date; rentals last 1 to 30 days and start today at the earliest. A
    different return location is only possible on a listed one-way route and adds its fee.

    Args:
        customer_email: the customer's e-mail address (the driver).
        class_code: the vehicle class code, e.g. "COMP".
        pickup_location_code: the pickup location's code, e.g. "SFO".
        pickup_date: pickup day, YYYY-MM-DD.
        return_date: return day, YYYY-MM-DD.
        return_location_code: where the car will be returned if not the pickup location.
        insurance_code: "LDW", "PREMIUM" or "NONE" (default).
    """
    c = _customer(db, customer_email)
    k = _class(db, class_code)
    loc = _location(db, pickup_location_code)
    d1, d2 = _dates(db, pickup_date, return_date)
    _check_driver(c, k, d1, d2)
    ret = _location(db, return_location_code) if return_location_code else loc
    fee = _one_way_fee(db, loc["id"], ret["id"])
    v = _find_vehicle(db, loc["id"], k["id"], d1, d2)
    if v is None:
        raise ToolError(f"No {k['name']} is free at {loc['name']} from {d1.isoformat()} to {d2.isoformat()}. Try "
                        "other dates, another class (search_availability) or another location.")
    ins_id = None if insurance_code == "NONE" else db.value("SELECT id FROM insurance_options WHERE code = ?",
                                                            (insurance_code,))
    code = _new_code(db)
    rid = db.insert("reservations", {"code": code, "customer_id": c["id"], "vehicle_id": v["id"], "class_id": k["id"],
                                     "pickup_location_id": loc["id"], "return_location_id": ret["id"],
                                     "pickup_date": d1.isoformat(), "return_date": d2.isoformat(), "status": "reserved",
                                     "insurance_id": ins_id, "rental_cents": 0, "one_way_fee_cents": fee,
                                     "points_redeemed": 0, "estimated_total_cents": 0, "start_mileage_km": None,
                                     "end_mileage_km": None, "created_at": _now(db), "picked_up_at": None,
                                     "returned_at": None, "cancelled_at": None})
    price = _reprice(db, rid)
    return {"code": code, "status": "reserved", "class": k["code"], "vehicle_plate": v["plate"],
            "pickup_location": loc["code"], "return_location": ret["code"], "pickup_date": d1.isoformat(),
            "return_date": d2.isoformat(), "insurance": insurance_code, **price}


@tool(write=True)
def change_reservation_dates(db: Db, customer_email: str, code: str, pickup_date: str, return_date: str) -> dict:
    """Move a not-yet-picked-up reservation to new dates. Keeps its vehicle when it is free on the new dates,
    otherwise assigns another free vehicle of the class at the location; re-checks licence, age and the stock of
    its extras, and reprices it.

    Args:
        customer_email: the customer's e-mail address.
        code: the reservation code.
        pickup_date: new pickup day, YYYY-MM-DD.
        return_date: new return day, YYYY-MM-DD.
    """
    c, r = _own_res(db, customer_email, code)
    _reserved(r, "be changed")
    d1, d2 = _dates(db, pickup_date, return_date)
    if d1.isoformat() == r["pickup_date"] and d2.isoformat() == r["return_date"]:
        raise ToolError(f"Reservation {r['code']} already runs from {r['pickup_date']} to {r['return_date']}.")
    k = db.one("SELECT * FROM vehicle_classes WHERE id = ?", (r["class_id"],))
    _check_driver(c, k, d1, d2)
    vid = r["vehicle_id"]
    if not _vehicle_free(db, vid, d1, d2, r["id"]) or r["vehicle_status"] in ("maintenance", "retired"):
        v = _find_vehicle(db, r["pickup_location_id"], r["class_id"], d1, d2, r["id"])
        if v is None:
            raise ToolError(f"No {k['name']} is free at the pickup location from {d1.isoformat()} to {d2.isoformat()}.")
        vid = v["id"]
    short = _short_extra(db, r, d1, d2)
    if short:
        raise ToolError(f"Not enough {short} stock on the new dates; remove it first or choose other dates.")
    db.execute("UPDATE reservations SET pickup_date = ?, return_date = ?, vehicle_id = ? WHERE id = ?",
               (d1.isoformat(), d2.isoformat(), vid, r["id"]))
    price = _reprice(db, r["id"])
    plate = db.value("SELECT plate FROM vehicles WHERE id = ?", (vid,))
    return {"code": r["code"], "pickup_date": d1.isoformat(), "return_date": d2.isoformat(), "vehicle_plate": plate,
            **price}


@tool(write=True)
def set_reservation_insurance(db: Db, customer_email: str, code: str, insurance_code: InsuranceCode) -> dict:
    """Choose or drop the insurance of a not-yet-picked-up reservation and reprice it.

    Args:
        customer_email: the customer's e-mail address.
        code: the reservation code.
        insurance_code: "LDW", "PREMIUM" or "NONE" to drop insurance.
    """
    _, r = _own_res(db, customer_email, code)
    _reserved(r, "change its insurance")
    ins_id = None if insurance_code == "NONE" else db.value("SELECT id FROM insurance_options WHERE code = ?",
                                                            (insurance_code,))
    if ins_id == r["insurance_id"]:
        raise ToolError(f"Reservation {r['code']} already has insurance {insurance_code}.")
    db.execute("UPDATE reservations SET insurance_id = ? WHERE id = ?", (ins_id, r["id"]))
    return {"code": r["code"], "insurance": insurance_code, **_reprice(db, r["id"])}


@tool(write=True)
def add_extra(db: Db, customer_email: str, code: str, extra_code: ExtraCode, quantity: int = 1) -> dict:
    """Add an extra (child seat, GPS, ski rack, toll pass) to a not-yet-picked-up reservation, or add more of one
    already on it. The total per rental may not exceed the extra's maximum, and the pickup location must have the
    stock free on every day of the rental.

    Args:
        customer_email: the customer's e-mail address.
        code: the reservation code.
        extra_code: "CHILD_SEAT", "GPS", "SKI_RACK" or "TOLL_PASS".
        quantity: how many to add (default 1).
    """
    _, r = _own_res(db, customer_email, code)
    _reserved(r, "change its extras")
    if quantity < 1:
        raise ToolError("quantity must be at least 1.")
    e = db.one("SELECT * FROM extras WHERE code = ?", (extra_code,))
    have = db.one("SELECT * FROM reservation_extras WHERE reservation_id = ? AND extra_id = ?", (r["id"], e["id"]))
    total = quantity + (have["quantity"] if have else 0)
    if total > e["max_per_rental"]:
        raise ToolError(f"At most {e['max_per_rental']} {e['name']} per rental; this reservation would have {total}.")
    d1, d2 = _span(r)
    if not _extra_free(db, r["pickup_location_id"], e["id"], d1, d2, total, r["id"]):
        raise ToolError(f"{r['pickup_code']} does not have {total} {e['name']} free for the whole rental.")
    if have:
        db.execute("UPDATE reservation_extras SET quantity = ? WHERE id = ?", (total, have["id"]))
    else:
        db.insert("reservation_extras", {"reservation_id": r["id"], "extra_id": e["id"], "quantity": total})
    return {"code": r["code"], "extra": e["code"], "quantity": total, **_reprice(db, r["id"])}


@tool(write=True)
def remove_extra(db: Db, customer_email: str, code: str, extra_code: ExtraCode) -> dict:
    """Remove an extra entirely from a not-yet-picked-up reservation.

    Args:
        customer_email: the customer's e-mail address.
        code: the reservation code.
        extra_code: the extra's code.
    """
    _, r = _own_res(db, customer_email, code)
    _reserved(r, "change its extras")
    n = db.execute("DELETE FROM reservation_extras WHERE reservation_id = ? AND extra_id = "
                   "(SELECT id FROM extras WHERE code = ?)", (r["id"], extra_code))
    if not n:
        raise ToolError(f"Reservation {r['code']} has no {extra_code}.")
    return {"code": r["code"], "removed": extra_code, **_reprice(db, r["id"])}


@tool(write=True)
def change_return_location(db: Db, customer_email: str, code: str, return_location_code: str) -> dict:
    """Change where a not-yet-picked-up reservation will be returned. A location other than the pickup location
    must be a listed one-way route and adds its fee; the pickup location makes it a round trip again.

    Args:
        customer_email: the customer's e-mail address.
        code: the reservation code.
        return_location_code: the new return location's code.
    """
    _, r = _own_res(db, customer_email, code)
    _reserved(r, "change its return location")
    ret = _location(db, return_location_code)
    if ret["id"] == r["return_location_id"]:
        raise ToolError(f"Reservation {r['code']} is already returned to {ret['code']}.")
    fee = _one_way_fee(db, r["pickup_location_id"], ret["id"])
    db.execute("UPDATE reservations SET return_location_id = ?, one_way_fee_cents = ? WHERE id = ?",
               (ret["id"], fee, r["id"]))
    return {"code": r["code"], "return_location": ret["code"], **_reprice(db, r["id"])}


@tool(write=True)
def cancel_reservation(db: Db, customer_email: str, code: str) -> dict:
    """Cancel a reservation that has not been picked up. Cancelling on the pickup day or the day before costs one
    day at the class's weekday rate; earlier cancellations are free. Redeemed loyalty points are given back.

    Args:
        customer_email: the customer's e-mail address.
        code: the reservation code.
    """
    c, r = _own_res(db, customer_email, code)
    _reserved(r, "be cancelled")
    fee = r["daily_rate_cents"] if r["pickup_date"] <= (db.today() + timedelta(days=1)).isoformat() else 0
    db.execute("UPDATE reservations SET status = 'cancelled', cancelled_at = ? WHERE id = ?", (_now(db), r["id"]))
    _charge(db, r["id"], "cancellation", fee, "Late cancellation fee")
    if r["points_redeemed"]:
        _loyalty(db, c["id"], r["id"], r["points_redeemed"], "refunded")
    return {"code": r["code"], "status": "cancelled", "cancellation_fee": _money(fee),
            "points_returned": r["points_redeemed"]}


@tool(write=True)
def redeem_points(db: Db, customer_email: str, code: str, points: int) -> dict:
    """Use loyalty points for a discount on a not-yet-picked-up reservation: 1 point = 1 cent, in steps of 500
    points, from the customer's balance, and all points on one reservation at most half of its vehicle rental.

    Args:
        customer_email: the customer's e-mail address.
        code: the reservation code.
        points: how many points to redeem, a multiple of 500.
    """
    c, r = _own_res(db, customer_email, code)
    _reserved(r, "take loyalty points")
    if points <= 0 or points % POINTS_STEP:
        raise ToolError(f"points must be a positive multiple of {POINTS_STEP} (got {points}).")
    if points > c["loyalty_points"]:
        raise ToolError(f"The customer has only {c['loyalty_points']} points.")
    if r["points_redeemed"] + points > r["rental_cents"] // 2:
        cap = (r["rental_cents"] // 2 - r["points_redeemed"]) // POINTS_STEP * POINTS_STEP
        raise ToolError(f"At most half of the ${r['rental_cents'] / 100:,.2f} rental can be paid with points; at most "
                        f"{max(cap, 0)} more points can be used on {r['code']}.")
    db.execute("UPDATE reservations SET points_redeemed = points_redeemed + ? WHERE id = ?", (points, r["id"]))
    _loyalty(db, c["id"], r["id"], -points, "redeemed")
    return {"code": r["code"], "points_redeemed": r["points_redeemed"] + points,
            "points_left": c["loyalty_points"] - points, **_reprice(db, r["id"])}


@tool(write=True)
def update_driver_license(db: Db, customer_email: str, license_number: str, issuing_state: str,
                          expires_on: str) -> dict:
    """Record the customer's new or renewed driver licence (replaces the one on file; issued today).

    Args:
        customer_email: the customer's e-mail address.
        license_number: the licence number, a letter followed by 7 digits, e.g. "D1234567".
        issuing_state: two-letter state code, e.g. "CA".
        expires_on: the expiry date, YYYY-MM-DD (must be in the future).
    """
    c = _customer(db, customer_email)
    num = license_number.strip().upper()
    if not re.fullmatch(r"[A-Z]\d{7}", num):
        raise ToolError(f"license_number must be one letter and 7 digits, e.g. 'D1234567' (got {license_number!r}).")
    st = issuing_state.strip().upper()
    if not re.fullmatch(r"[A-Z]{2}", st):
        raise ToolError("issuing_state must be a two-letter code such as 'CA'.")
    exp = _date(expires_on, "expires_on")
    if exp <= db.today():
        raise ToolError("expires_on must be in the future; an expired licence cannot be recorded.")
    db.none("SELECT 1 FROM driver_licenses WHERE license_number = ? AND customer_id <> ?", (num, c["id"]),
            found="That licence number is on another customer's profile.")
    if db.value("SELECT 1 FROM driver_licenses WHERE customer_id = ?", (c["id"],)):
        db.execute("UPDATE driver_licenses SET license_number = ?, issuing_state = ?, issued_on = ?, expires_on = ? "
                   "WHERE customer_id = ?", (num, st, db.today().isoformat(), exp.isoformat(), c["id"]))
    else:
        db.insert("driver_licenses", {"customer_id": c["id"], "license_number": num, "issuing_state": st,
                                      "issued_on": db.today().isoformat(), "expires_on": exp.isoformat()})
    return {"license_number": num, "issuing_state": st, "expires_on": exp.isoformat()}


@tool(write=True)
def extend_rental(db: Db, customer_email: str, code: str, new_return_date: str) -> dict:
    """Keep a picked-up car longer: move its return date later, if the same vehicle is free until then and the
    licence stays valid; the rental is repriced (at most 30 days in all).

    Args:
        customer_email: the customer's e-mail address.
        code: the reservation code.
        new_return_date: the new return day, YYYY-MM-DD, after the current one.
    """
    c, r = _own_res(db, customer_email, code)
    if r["status"] != "picked_up":
        raise ToolError(f"Reservation {r['code']} is {r['status'].replace('_', ' ')}; only a car that is out can be "
                        "extended (change_reservation_dates changes a booking not yet picked up).")
    d1 = date.fromisoformat(r["pickup_date"])
    d2 = _date(new_return_date, "new_return_date")
    if d2.isoformat() <= r["return_date"]:
        raise ToolError(f"new_return_date must be after the current return date {r['return_date']}.")
    if (d2 - d1).days > MAX_RENTAL_DAYS:
        raise ToolError(f"A rental lasts at most {MAX_RENTAL_DAYS} days.")
    k = db.one("SELECT * FROM vehicle_classes WHERE id = ?", (r["class_id"],))
    _check_driver(c, k, d1, d2)
    if not _vehicle_free(db, r["vehicle_id"], d1, d2, r["id"]):
        raise ToolError(f"The car ({r['plate']}) is booked by someone else before {d2.isoformat()}; it must be "
                        f"returned by {r['return_date']}.")
    short = _short_extra(db, r, d1, d2)
    if short:
        raise ToolError(f"The {short} is booked by someone else before {d2.isoformat()}.")
    db.execute("UPDATE reservations SET return_date = ? WHERE id = ?", (d2.isoformat(), r["id"]))
    return {"code": r["code"], "return_date": d2.isoformat(), **_reprice(db, r["id"])}


# ----------------------------------------------------------------------------------------------
# write tools: counter agents
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def pick_up_vehicle(db: Db, agent_email: str, code: str) -> dict:
    """Hand the car over at the counter (reserved -> picked_up). Only on the pickup date, by an agent of the pickup
    location, with a licence valid until the return date, and only if the assigned vehicle is available (if it is
    in maintenance, swap_vehicle first). Records the start mileage.

    Args:
        agent_email: the agent's staff e-mail.
        code: the reservation code.
    """
    r = _counter_res(db, agent_email, code, "pickup", "hand over this car")
    _reserved(r, "be picked up")
    if r["pickup_date"] != db.today().isoformat():
        when = "was" if r["pickup_date"] < db.today().isoformat() else "is"
        raise ToolError(f"{r['code']}'s pickup date {when} {r['pickup_date']}; cars are handed over on the pickup date "
                        "only (change the dates, or mark a missed pickup as a no-show).")
    c = _customer(db, r["customer_email"])
    k = db.one("SELECT * FROM vehicle_classes WHERE id = ?", (r["class_id"],))
    _check_driver(c, k, *_span(r))
    v = db.one("SELECT * FROM vehicles WHERE id = ?", (r["vehicle_id"],))
    if v["status"] != "available" or v["location_id"] != r["pickup_location_id"]:
        raise ToolError(f"The assigned vehicle {v['plate']} is {v['status']}; assign another with swap_vehicle.")
    db.execute("UPDATE reservations SET status = 'picked_up', picked_up_at = ?, start_mileage_km = ? WHERE id = ?",
               (_now(db), v["mileage_km"], r["id"]))
    db.execute("UPDATE vehicles SET status = 'rented' WHERE id = ?", (v["id"],))
    return {"code": r["code"], "status": "picked_up", "vehicle_plate": v["plate"], "start_mileage_km": v["mileage_km"],
            "return_date": r["return_date"], "return_location": r["return_code"]}


@tool(write=True)
def swap_vehicle(db: Db, agent_email: str, code: str, plate: str) -> dict:
    """Assign another vehicle to a reservation not yet picked up, e.g. when the assigned one is in maintenance.
    The new vehicle must be available at the pickup location, free for the whole rental, and of the booked class
    or a dearer one (an upgrade at no extra cost) whose minimum age the driver meets.

    Args:
        agent_email: the agent's staff e-mail (an agent of the pickup location).
        code: the reservation code.
        plate: the plate of the vehicle to assign.
    """
    r = _counter_res(db, agent_email, code, "pickup", "change this reservation's vehicle")
    _reserved(r, "get another vehicle")
    v = db.one("SELECT v.*, k.daily_rate_cents, k.min_age, k.name AS class_name FROM vehicles v JOIN vehicle_classes k "
               "ON k.id = v.class_id WHERE upper(v.plate) = upper(?)", (plate.strip(),),
               missing=f"No vehicle with plate {plate!r}.")
    if v["id"] == r["vehicle_id"]:
        raise ToolError(f"{v['plate']} is already assigned to {r['code']}.")
    if v["location_id"] != r["pickup_location_id"] or v["status"] != "available":
        raise ToolError(f"{v['plate']} is not available at {r['pickup_code']} (status {v['status']}).")
    if v["daily_rate_cents"] < r["daily_rate_cents"]:
        raise ToolError(f"{v['plate']} is a {v['class_name']}, below the booked {r['class_name']}; choose the same "
                        "class or an upgrade.")
    d1, d2 = _span(r)
    c = _customer(db, r["customer_email"])
    if _age(c["date_of_birth"], d1) < v["min_age"]:
        raise ToolError(f"The driver is under {v['min_age']}, the minimum age for a {v['class_name']}.")
    if not _vehicle_free(db, v["id"], d1, d2, r["id"]):
        raise ToolError(f"{v['plate']} is booked during this rental; choose another vehicle.")
    db.execute("UPDATE reservations SET vehicle_id = ? WHERE id = ?", (v["id"], r["id"]))
    return {"code": r["code"], "vehicle_plate": v["plate"], "previous_plate": r["plate"],
            "upgrade": v["daily_rate_cents"] > r["daily_rate_cents"]}


@tool(write=True)
def return_vehicle(db: Db, agent_email: str, code: str, mileage_km: int, fuel_full: bool) -> dict:
    """Check a car in at the return location (picked_up -> returned) and bill the rental: vehicle rental,
    insurance, extras, one-way fee, less redeemed points; plus each day past the return date at the weekday rate,
    and a $75 refuelling charge when the tank is not full. The customer earns 1 loyalty point per dollar billed.
    The car becomes available at the return location with the new mileage.

    Args:
        agent_email: the agent's staff e-mail (an agent of the reservation's return location).
        code: the reservation code.
        mileage_km: the odometer reading in km (not less than at pickup).
        fuel_full: whether the tank is full.
    """
    r = _counter_res(db, agent_email, code, "return", "check this car in")
    if r["status"] != "picked_up":
        raise ToolError(f"Reservation {r['code']} is {r['status'].replace('_', ' ')}; only a picked-up car can be returned.")
    if mileage_km < r["start_mileage_km"]:
        raise ToolError(f"mileage_km {mileage_km} is below the {r['start_mileage_km']} km recorded at pickup.")
    if mileage_km - r["start_mileage_km"] > 20000:
        raise ToolError("That mileage is implausible; check the odometer reading.")
    b = _breakdown(db, r)
    _charge(db, r["id"], "rental", b["rental"], "Vehicle rental")
    _charge(db, r["id"], "insurance", b["insurance"], "Insurance")
    _charge(db, r["id"], "extras", b["extras"], "Extras")
    _charge(db, r["id"], "one_way", b["one_way"], "One-way fee")
    late_days = max(0, (db.today() - date.fromisoformat(r["return_date"])).days)
    late = late_days * r["daily_rate_cents"]
    _charge(db, r["id"], "late_return", late, f"Late return: {late_days} day(s)")
    fuel = 0 if fuel_full else FUEL_CHARGE_CENTS
    _charge(db, r["id"], "fuel", fuel, "Refuelling - returned without a full tank")
    _charge(db, r["id"], "loyalty_discount", -b["points"], "Loyalty points")
    total = b["rental"] + b["insurance"] + b["extras"] + b["one_way"] + late + fuel - b["points"]
    points = total // 100
    db.execute("UPDATE reservations SET status = 'returned', returned_at = ?, end_mileage_km = ? WHERE id = ?",
               (_now(db), mileage_km, r["id"]))
    db.execute("UPDATE vehicles SET status = 'available', location_id = ?, mileage_km = ? WHERE id = ?",
               (r["return_location_id"], mileage_km, r["vehicle_id"]))
    if points > 0:
        _loyalty(db, r["customer_id"], r["id"], points, "earned")
    return {"code": r["code"], "status": "returned", "distance_km": mileage_km - r["start_mileage_km"],
            "late_days": late_days, "total_billed": _money(total), "points_earned": points}


@tool(write=True)
def mark_no_show(db: Db, agent_email: str, code: str) -> dict:
    """Close a reservation whose pickup date has passed without the customer coming (reserved -> no_show). Charges
    one day at the class's weekday rate; redeemed points are forfeited.

    Args:
        agent_email: the agent's staff e-mail (an agent of the pickup location).
        code: the reservation code.
    """
    r = _counter_res(db, agent_email, code, "pickup", "close this reservation")
    _reserved(r, "be marked as a no-show")
    if r["pickup_date"] >= db.today().isoformat():
        raise ToolError(f"{r['code']}'s pickup date is {r['pickup_date']}; a no-show can only be recorded after the "
                        "pickup day has passed.")
    db.execute("UPDATE reservations SET status = 'no_show' WHERE id = ?", (r["id"],))
    _charge(db, r["id"], "no_show", r["daily_rate_cents"], "No-show fee")
    return {"code": r["code"], "status": "no_show", "no_show_fee": _money(r["daily_rate_cents"])}


@tool(write=True)
def report_damage(db: Db, agent_email: str, plate: str, severity: Literal["minor", "moderate", "major"],
                  description: str, estimated_cost: float, reservation_code: str | None = None) -> dict:
    """Record damage found on a vehicle at the agent's location (not while it is out). When the damage is put on a
    rental returned within the last 3 days, the customer is charged: the full cost without insurance, up to the
    deductible with LDW, nothing with PREMIUM. Major damage sends the vehicle to maintenance.

    Args:
        agent_email: the agent's staff e-mail.
        plate: the vehicle's plate.
        severity: "minor", "moderate" or "major".
        description: what is damaged, e.g. "Dent in rear door".
        estimated_cost: the repair estimate in dollars.
        reservation_code: the returned rental during which it happened, if known.
    """
    a = _agent(db, agent_email)
    v = _vehicle(db, plate)
    _at_location(a, v["location_id"], "report damage on this vehicle")
    if v["status"] == "rented":
        raise ToolError(f"{v['plate']} is out on rental; inspect it when it is returned.")
    desc = description.strip()
    if not 3 <= len(desc) <= 500:
        raise ToolError("description must be 3 to 500 characters.")
    cost = round(estimated_cost * 100)
    if cost < 0 or abs(estimated_cost * 100 - cost) > 1e-6:
        raise ToolError("estimated_cost must be 0 or more with at most two decimals.")
    rid, charge = None, 0
    if reservation_code:
        r = _res(db, reservation_code)
        if r["vehicle_id"] != v["id"] or r["status"] != "returned":
            raise ToolError(f"{r['code']} is not a returned rental of {v['plate']}.")
        if r["returned_at"][:10] < (db.today() - timedelta(days=DAMAGE_WINDOW_DAYS)).isoformat():
            raise ToolError(f"{r['code']} was returned more than {DAMAGE_WINDOW_DAYS} days ago; damage can no longer be "
                            "charged to it. Report it without a reservation.")
        rid = r["id"]
        ded = db.value("SELECT deductible_cents FROM insurance_options WHERE id = ?", (r["insurance_id"],))
        charge = cost if ded is None else min(cost, ded)
        _charge(db, rid, "damage", charge, "Damage: customer share")
    did = db.insert("damage_reports", {"reservation_id": rid, "vehicle_id": v["id"], "agent_id": a["id"],
                                       "severity": severity, "description": desc, "estimated_cost_cents": cost,
                                       "customer_charge_cents": charge, "reported_at": _now(db)})
    if severity == "major" and v["status"] == "available":
        db.execute("UPDATE vehicles SET status = 'maintenance' WHERE id = ?", (v["id"],))
    return {"damage_report_id": did, "plate": v["plate"], "severity": severity, "customer_charge": _money(charge),
            "vehicle_status": "maintenance" if severity == "major" else v["status"]}


@tool(write=True)
def set_vehicle_status(db: Db, agent_email: str, plate: str, status: Literal["available", "maintenance", "retired"]) -> dict:
    """Send a vehicle at the agent's location to maintenance, bring it back to available, or retire it. A rented
    vehicle cannot be changed; retiring needs the station manager and no upcoming reservations.

    Args:
        agent_email: the agent's staff e-mail.
        plate: the vehicle's plate.
        status: "available", "maintenance" or "retired".
    """
    a = _agent(db, agent_email)
    v = _vehicle(db, plate)
    _at_location(a, v["location_id"], "change this vehicle's status")
    if v["status"] in ("rented", "retired"):
        raise ToolError(f"{v['plate']} is {v['status']} and its status cannot be changed.")
    if v["status"] == status:
        raise ToolError(f"{v['plate']} is already {status}.")
    if status == "retired":
        if a["role"] != "station_manager":
            raise ToolError("Only the station manager can retire a vehicle.")
        n = db.value("SELECT COUNT(*) FROM reservations WHERE vehicle_id = ? AND status = 'reserved'", (v["id"],))
        if n:
            raise ToolError(f"{v['plate']} has {n} upcoming reservation(s); swap them to other vehicles first.")
    db.execute("UPDATE vehicles SET status = ? WHERE id = ?", (status, v["id"]))
    return {"plate": v["plate"], "status": status, "previous_status": v["status"]}
