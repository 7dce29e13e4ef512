"""Tools of the ride_hailing world: a city ride-hailing app.

Riders and drivers are named by e-mail; rides, payment methods, saved places, lost-item reports and payouts
by the ids the read tools return. Rider write tools take ``rider_email`` and refuse other riders' rows;
driver write tools take ``driver_email`` and refuse rides that are not theirs.

Money is integer cents. Fares (estimate_fare, request_ride and complete_ride share the rule):
  raw = base fare + per-km rate x km + per-minute rate x minutes;
  fare = max(minimum fare, round(raw x surge% / 100)), rounding half up to the cent.
A ride's surge is locked when it is requested (the pickup zone's surge then; scheduled rides are never
surged). On completion the rider's promo credit pays as much of the fare as it can, and the driver earns
80% of the fare (rounded down); on a cancellation fee the driver earns 80% of the fee; tips go to the
driver in full.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, filters, like_any, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

ACTIVE = ("requested", "accepted", "in_progress")
DRIVER_SHARE = 80
TIP_WINDOW_DAYS = 7
RATING_WINDOW_DAYS = 14
LOST_ITEM_WINDOW_DAYS = 30
MAX_TIP_CENTS = 5000
MIN_PAYOUT_CENTS = 2000
SCHEDULE_MIN_MINUTES = 30
SCHEDULE_MAX_DAYS = 7
ACCEPT_SCHEDULED_MINUTES = 45

Category = Literal["standard", "xl", "premium"]
RideStatus = Literal["scheduled", "requested", "accepted", "in_progress", "completed", "cancelled"]
CancelReason = Literal["changed_plans", "driver_too_far", "wrong_pickup", "found_other_ride", "other"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _round_div(num: int, den: int) -> int:
    return (2 * num + den) // (2 * den)


def _fare(cat: dict[str, Any], decikm: int, minutes: int, surge: int) -> int:
    raw10 = cat["base_fare_cents"] * 10 + cat["per_km_cents"] * decikm + cat["per_minute_cents"] * minutes * 10
    return max(cat["minimum_fare_cents"], _round_div(raw10 * surge, 1000))


def _rider(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT * FROM riders WHERE lower(email) = lower(?)", (email.strip(),),
                  missing=f"No rider with e-mail {email!r}. Use find_riders to look a rider up by name.")


def _driver(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT d.*, z.name AS zone_name FROM drivers d JOIN zones z ON z.id = d.zone_id "
                  "WHERE lower(d.email) = lower(?)", (email.strip(),),
                  missing=f"No driver with e-mail {email!r}. Use find_drivers to look a driver up by name.")


def _zone(db: Db, name: str) -> dict[str, Any]:
    row = db.one("SELECT * FROM zones WHERE lower(name) = lower(?)", (name.strip(),))
    if row is None:
        names = ", ".join(r["name"] for r in db.query("SELECT name FROM zones ORDER BY name"))
        raise ToolError(f"No zone named {name!r}. Zones: {names}.")
    return row


def _category(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM vehicle_categories WHERE code = ?", (code,),
                  missing=f"No vehicle category {code!r}; use standard, xl or premium.")


def _route(db: Db, a: int, b: int) -> dict[str, Any]:
    return db.one("SELECT distance_decikm, duration_min FROM zone_routes WHERE from_zone_id = ? AND to_zone_id = ?",
                  (a, b))


def _ride(db: Db, ride_id: int) -> dict[str, Any]:
    return db.one("SELECT r.*, c.code AS category FROM rides r JOIN vehicle_categories c ON c.id = r.category_id "
                  "WHERE r.id = ?", (ride_id,),
                  missing=f"No ride with id {ride_id}. Use list_rides to find ride ids.")


def _riders_ride(db: Db, rider_email: str, ride_id: int) -> dict[str, Any]:
    """One of the acting rider's rides."""
    rider = _rider(db, rider_email)
    r = _ride(db, ride_id)
    require_owner(r, "rider_id", rider["id"], f"Ride #{ride_id} is not one of {rider['email']}'s rides; a rider can "
                  "only act on their own rides (list_rides shows them).")
    return r


def _drivers_ride(db: Db, driver: dict[str, Any], ride_id: int) -> dict[str, Any]:
    """A ride the acting driver accepted."""
    r = _ride(db, ride_id)
    require_owner(r, "driver_id", driver["id"], f"Ride #{ride_id} is not assigned to {driver['full_name']}; a driver "
                  "can only act on rides they accepted.")
    return r


def _driver_and_ride(db: Db, driver_email: str, ride_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The acting driver and a ride they accepted."""
    d = _driver(db, driver_email)
    return d, _drivers_ride(db, d, ride_id)


def _credit(db: Db, rider_id: int, amount: int, *, ride_id: int | None = None, promo_id: int | None = None) -> None:
    if amount == 0:
        return
    db.insert("credit_transactions", {"rider_id": rider_id, "ride_id": ride_id, "promo_id": promo_id,
                                      "amount_cents": amount, "created_at": _now(db)})
    db.execute("UPDATE riders SET credit_cents = credit_cents + ? WHERE id = ?", (amount, rider_id))


def _usable_method(db: Db, rider: dict[str, Any], method_id: int) -> dict[str, Any]:
    m = db.one("SELECT * FROM payment_methods WHERE id = ?", (method_id,))
    if m is None or m["rider_id"] != rider["id"] or not m["is_active"]:
        raise ToolError(f"Payment method {method_id} is not one of {rider['email']}'s active payment methods; "
                        "get_rider lists them.")
    if m["expires"] is not None and m["expires"] < db.today().strftime("%Y-%m"):
        raise ToolError(f"{m['label']} expired in {m['expires']}; choose another payment method or add a new card.")
    return m


def _completed_at(r: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(r["completed_at"])


def _ride_summary(r: dict[str, Any]) -> dict[str, Any]:
    return {"ride_id": r["id"], "status": r["status"], "category": r.get("category"),
            "pickup": r["pickup_address"], "dropoff": r["dropoff_address"], "requested_at": r["requested_at"],
            "scheduled_for": r["scheduled_for"], "completed_at": r["completed_at"], "fare_cents": r["fare_cents"],
            "driver": r.get("driver_name"), "rider": r.get("rider_name")}


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def list_zones(db: Db) -> list[dict]:
    """List the city's zones with their current surge (100 = no surge, 150 = fares x1.5) and how many drivers are
    available there."""
    return db.query("SELECT z.name, z.surge_pct, (SELECT COUNT(*) FROM drivers d WHERE d.zone_id = z.id AND "
                    "d.status = 'available' AND d.is_active = 1) AS available_drivers FROM zones z ORDER BY z.name")


@tool
def list_vehicle_categories(db: Db) -> list[dict]:
    """The vehicle categories (standard, xl, premium) with seats and fare rules: base fare, per-km and per-minute
    rates, minimum fare and the fee for cancelling after a driver accepted."""
    return db.query("SELECT code, name, seats, base_fare_cents, per_km_cents, per_minute_cents, minimum_fare_cents, "
                    "cancel_fee_cents FROM vehicle_categories ORDER BY id")


@tool
def estimate_fare(db: Db, pickup_zone: str, dropoff_zone: str, category: Category | None = None,
                  scheduled: bool = False) -> dict:
    """Estimate the fare of a trip between two zones right now: distance, time, the pickup zone's current surge
    and the fare per category.

    Args:
        pickup_zone: the zone of the pickup, e.g. "Downtown".
        dropoff_zone: the zone of the drop-off, e.g. "Airport".
        category: only this category (standard, xl or premium); omit for all three.
        scheduled: price it as a scheduled ride (scheduled rides are never surged).
    """
    a, b = _zone(db, pickup_zone), _zone(db, dropoff_zone)
    route = _route(db, a["id"], b["id"])
    surge = 100 if scheduled else a["surge_pct"]
    cats = [_category(db, category)] if category else db.query("SELECT * FROM vehicle_categories ORDER BY id")
    return {"pickup_zone": a["name"], "dropoff_zone": b["name"], "distance_km": route["distance_decikm"] / 10,
            "duration_min": route["duration_min"], "surge_pct": surge,
            "fares": [{"category": c["code"], "fare_cents": _fare(c, route["distance_decikm"], route["duration_min"],
                                                                  surge)} for c in cats]}


@tool
def find_riders(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Find riders by part of their name, e-mail or phone.

    Args:
        query: words to look for, e.g. "garcia".
        limit: maximum number of riders, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "full_name", "email", "phone")
    return db.query(f"SELECT id AS rider_id, full_name, email, phone FROM riders WHERE {who} ORDER BY full_name, id "
                    "LIMIT ?", (*params, limit))


@tool
def get_rider(db: Db, email: str) -> dict:
    """Show a rider: contact, promo credit, payment methods (id, label, expiry, default), saved places (id, label,
    address, zone), their rating from drivers and rides in progress or scheduled.

    Args:
        email: the rider's e-mail address.
    """
    r = _rider(db, email)
    methods = db.query("SELECT id AS payment_method_id, kind, label, expires, is_default FROM payment_methods "
                       "WHERE rider_id = ? AND is_active = 1 ORDER BY id", (r["id"],))
    for m in methods:
        m["is_default"] = bool(m["is_default"])
    places = db.query("SELECT p.id AS place_id, p.label, p.address, z.name AS zone FROM saved_places p "
                      "JOIN zones z ON z.id = p.zone_id WHERE p.rider_id = ? ORDER BY p.id", (r["id"],))
    rating = db.value("SELECT ROUND(AVG(t.stars), 2) FROM ride_ratings t JOIN rides x ON x.id = t.ride_id "
                      "WHERE x.rider_id = ? AND t.rated_by = 'driver'", (r["id"],))
    current = db.query("SELECT id AS ride_id, status, scheduled_for FROM rides WHERE rider_id = ? AND status IN "
                       "('scheduled', 'requested', 'accepted', 'in_progress') ORDER BY id", (r["id"],))
    return {"rider_id": r["id"], "full_name": r["full_name"], "email": r["email"], "phone": r["phone"],
            "credit_cents": r["credit_cents"], "payment_methods": methods, "saved_places": places,
            "rating_from_drivers": rating, "current_rides": current}


@tool
def list_rides(db: Db, rider_email: str | None = None, driver_email: str | None = None,
               status: RideStatus | None = None, date_from: str | None = None, date_to: str | None = None,
               limit: int = 20) -> dict:
    """List rides, newest first, of a rider and/or a driver, optionally by status and by the day they were
    requested.

    Args:
        rider_email: only this rider's rides.
        driver_email: only rides of this driver.
        status: only rides in this status.
        date_from: only rides requested on or after this date, YYYY-MM-DD.
        date_to: only rides requested on or before this date, YYYY-MM-DD.
        limit: maximum number of rides, 1 to 50.
    """
    _limit(limit)
    if rider_email is None and driver_email is None:
        raise ToolError("Give a rider_email or a driver_email (or both).")
    rid = _rider(db, rider_email)["id"] if rider_email else None
    did = _driver(db, driver_email)["id"] if driver_email else None
    for v, what in ((date_from, "date_from"), (date_to, "date_to")):
        if v is not None:
            try:
                date.fromisoformat(v)
            except ValueError:
                raise ToolError(f"{what} must be a date written YYYY-MM-DD (got {v!r})") from None
    where, params = filters(("r.rider_id = ?", rid), ("r.driver_id = ?", did), ("r.status = ?", status),
                            ("substr(r.requested_at, 1, 10) >= ?", date_from),
                            ("substr(r.requested_at, 1, 10) <= ?", date_to))
    rows = db.query(
        "SELECT r.*, c.code AS category, d.full_name AS driver_name, p.full_name AS rider_name FROM rides r "
        "JOIN vehicle_categories c ON c.id = r.category_id JOIN riders p ON p.id = r.rider_id "
        f"LEFT JOIN drivers d ON d.id = r.driver_id WHERE {where} ORDER BY r.requested_at DESC, r.id DESC LIMIT ?",
        (*params, limit))
    return {"count": len(rows), "rides": [_ride_summary(r) for r in rows]}


@tool
def get_ride(db: Db, ride_id: int) -> dict:
    """Show a ride: rider, driver and vehicle, route, payment method, timeline, fare breakdown (estimate, fare,
    credit applied, cancellation fee), tip, ratings both ways and lost-item reports.

    Args:
        ride_id: the ride's id.
    """
    r = _ride(db, ride_id)
    rider = db.one("SELECT full_name, email FROM riders WHERE id = ?", (r["rider_id"],))
    driver = db.one("SELECT full_name, email FROM drivers WHERE id = ?", (r["driver_id"],)) if r["driver_id"] else None
    vehicle = db.one("SELECT make, model, color, plate FROM vehicles WHERE id = ?", (r["vehicle_id"],)) \
        if r["vehicle_id"] else None
    zones = {z["id"]: z["name"] for z in db.query("SELECT id, name FROM zones")}
    pm = db.value("SELECT label FROM payment_methods WHERE id = ?", (r["payment_method_id"],))
    tip = db.value("SELECT amount_cents FROM tips WHERE ride_id = ?", (r["id"],))
    ratings = {t["rated_by"]: {"stars": t["stars"], "comment": t["comment"]} for t in db.query(
        "SELECT rated_by, stars, comment FROM ride_ratings WHERE ride_id = ?", (r["id"],))}
    lost = db.query("SELECT id AS report_id, description, status FROM lost_items WHERE ride_id = ?", (r["id"],))
    return {"ride_id": r["id"], "status": r["status"], "category": r["category"], "rider": rider, "driver": driver,
            "vehicle": vehicle, "pickup": f"{r['pickup_address']} ({zones[r['pickup_zone_id']]})",
            "dropoff": f"{r['dropoff_address']} ({zones[r['dropoff_zone_id']]})", "payment_method": pm,
            "scheduled_for": r["scheduled_for"], "surge_pct": r["surge_pct"],
            "distance_km": r["distance_decikm"] / 10, "duration_min": r["duration_min"],
            "estimated_fare_cents": r["estimated_fare_cents"], "fare_cents": r["fare_cents"],
            "credit_applied_cents": r["credit_applied_cents"], "cancellation_fee_cents": r["cancellation_fee_cents"],
            "cancelled_by": r["cancelled_by"], "cancel_reason": r["cancel_reason"], "tip_cents": tip,
            "timeline": {k: r[k] for k in ("requested_at", "accepted_at", "started_at", "completed_at", "cancelled_at")
                         if r[k]}, "ratings": ratings, "lost_items": lost}


@tool
def find_drivers(db: Db, query: str | None = None, zone: str | None = None,
                 status: Literal["offline", "available", "on_trip"] | None = None, category: Category | None = None,
                 limit: int = 20) -> list[dict]:
    """Find active drivers by name, zone, status or the category of their active vehicle.

    Args:
        query: words to look for in the driver's name or e-mail.
        zone: only drivers currently in this zone.
        status: only drivers with this status.
        category: only drivers whose active vehicle is in this category.
        limit: maximum number of drivers, 1 to 50.
    """
    _limit(limit)
    zid = _zone(db, zone)["id"] if zone else None
    # no query: the pattern '%%' matches every driver (names and e-mails are never NULL)
    who, like = like_any((query or "").strip(), "d.full_name", "d.email")
    where, params = filters(("d.zone_id = ?", zid), ("d.status = ?", status), ("c.code = ?", category))
    return db.query(
        "SELECT d.full_name, d.email, z.name AS zone, d.status, c.code AS category, v.make || ' ' || v.model AS vehicle "
        "FROM drivers d JOIN zones z ON z.id = d.zone_id LEFT JOIN vehicles v ON v.driver_id = d.id AND v.is_active = 1 "
        f"LEFT JOIN vehicle_categories c ON c.id = v.category_id WHERE d.is_active = 1 AND {who} "
        f"AND {where} ORDER BY d.full_name, d.id LIMIT ?",
        (*like, *params, limit))


@tool
def get_driver(db: Db, email: str) -> dict:
    """Show a driver: zone, status, vehicles, average rating from riders, completed rides, current ride and
    earnings not yet paid out.

    Args:
        email: the driver's e-mail address.
    """
    d = _driver(db, email)
    vehicles = db.query("SELECT v.id AS vehicle_id, c.code AS category, v.make, v.model, v.color, v.plate, v.year, "
                        "v.is_active AS active FROM vehicles v JOIN vehicle_categories c ON c.id = v.category_id "
                        "WHERE v.driver_id = ? ORDER BY v.id", (d["id"],))
    for v in vehicles:
        v["active"] = bool(v["active"])
    stats = db.one("SELECT COUNT(*) AS n, ROUND(AVG(t.stars), 2) AS avg FROM ride_ratings t JOIN rides x "
                   "ON x.id = t.ride_id WHERE x.driver_id = ? AND t.rated_by = 'rider'", (d["id"],))
    done = db.value("SELECT COUNT(*) FROM rides WHERE driver_id = ? AND status = 'completed'", (d["id"],))
    current = db.query("SELECT id AS ride_id, status FROM rides WHERE driver_id = ? AND status IN ('accepted', "
                       "'in_progress') ORDER BY id", (d["id"],))
    return {"full_name": d["full_name"], "email": d["email"], "phone": d["phone"], "zone": d["zone_name"],
            "status": d["status"], "active": bool(d["is_active"]), "vehicles": vehicles,
            "rating_from_riders": stats["avg"], "ratings_count": stats["n"], "completed_rides": done,
            "current_rides": current, "unpaid_earnings_cents": _unpaid(db, d["id"], None)[0]}


def _unpaid(db: Db, driver_id: int, before: str | None) -> tuple[int, list[int], list[int]]:
    ended, params = filters(("COALESCE(completed_at, cancelled_at) < ?", before))
    rides = db.query("SELECT id, driver_earnings_cents FROM rides WHERE driver_id = ? AND payout_id IS NULL AND "
                     f"driver_earnings_cents > 0 AND status IN ('completed', 'cancelled') AND {ended}",
                     (driver_id, *params))
    tipped, params = filters(("t.created_at < ?", before))
    tips = db.query("SELECT t.id, t.amount_cents FROM tips t JOIN rides x ON x.id = t.ride_id WHERE x.driver_id = ? "
                    f"AND t.payout_id IS NULL AND {tipped}", (driver_id, *params))
    total = sum(r["driver_earnings_cents"] for r in rides) + sum(t["amount_cents"] for t in tips)
    return total, [r["id"] for r in rides], [t["id"] for t in tips]


@tool
def list_driver_ratings(db: Db, driver_email: str, limit: int = 20) -> list[dict]:
    """The ratings riders gave a driver, newest first.

    Args:
        driver_email: the driver's e-mail address.
        limit: maximum number of ratings, 1 to 50.
    """
    _limit(limit)
    d = _driver(db, driver_email)
    return db.query("SELECT t.ride_id, t.stars, t.comment, t.created_at FROM ride_ratings t JOIN rides x "
                    "ON x.id = t.ride_id WHERE x.driver_id = ? AND t.rated_by = 'rider' ORDER BY t.created_at DESC "
                    "LIMIT ?", (d["id"], limit))


@tool
def list_open_requests(db: Db, zone: str, category: Category | None = None) -> list[dict]:
    """Ride requests waiting for a driver in a pickup zone: requested rides, and scheduled rides due within the
    next 45 minutes.

    Args:
        zone: the pickup zone.
        category: only requests for this category.
    """
    z = _zone(db, zone)
    soon = (db.now() + timedelta(minutes=ACCEPT_SCHEDULED_MINUTES)).replace(microsecond=0).isoformat()
    where, params = filters(("c.code = ?", category))
    return db.query("SELECT r.id AS ride_id, r.status, c.code AS category, r.pickup_address, r.dropoff_address, "
                    "r.scheduled_for, r.estimated_fare_cents FROM rides r JOIN vehicle_categories c ON c.id = r.category_id "
                    "WHERE r.pickup_zone_id = ? AND (r.status = 'requested' OR (r.status = 'scheduled' AND "
                    f"r.scheduled_for <= ?)) AND {where} ORDER BY r.requested_at, r.id LIMIT 50",
                    (z["id"], soon, *params))


@tool
def list_driver_payouts(db: Db, driver_email: str, limit: int = 10) -> list[dict]:
    """A driver's payouts, newest first.

    Args:
        driver_email: the driver's e-mail address.
        limit: maximum number of payouts, 1 to 50.
    """
    _limit(limit)
    d = _driver(db, driver_email)
    return db.query("SELECT id AS payout_id, period_end, rides_count, amount_cents, status, requested_at, paid_at "
                    "FROM driver_payouts WHERE driver_id = ? ORDER BY requested_at DESC, id DESC LIMIT ?",
                    (d["id"], limit))


@tool
def get_promo_code(db: Db, code: str) -> dict:
    """Show a promo code: the credit it gives, its validity dates, whether it is for new riders only and how many
    redemptions are left.

    Args:
        code: the promo code, e.g. "RIDE5".
    """
    p = db.one("SELECT * FROM promo_codes WHERE upper(code) = upper(?)", (code.strip(),),
               missing=f"No promo code {code!r}.")
    used = db.value("SELECT COUNT(*) FROM promo_redemptions WHERE promo_id = ?", (p["id"],))
    return {"code": p["code"], "description": p["description"], "credit_cents": p["credit_cents"],
            "valid_from": p["valid_from"], "valid_until": p["valid_until"],
            "new_riders_only": bool(p["new_riders_only"]), "redemptions_left": max(0, p["max_redemptions"] - used)}


@tool
def list_credit_transactions(db: Db, rider_email: str, limit: int = 20) -> list[dict]:
    """A rider's promo-credit history, newest first (credit from promo codes, credit used on rides).

    Args:
        rider_email: the rider's e-mail address.
        limit: maximum number of entries, 1 to 50.
    """
    _limit(limit)
    r = _rider(db, rider_email)
    return db.query("SELECT t.id, t.ride_id, p.code AS promo_code, t.amount_cents, t.created_at FROM credit_transactions t "
                    "LEFT JOIN promo_codes p ON p.id = t.promo_id WHERE t.rider_id = ? ORDER BY t.created_at DESC, "
                    "t.id DESC LIMIT ?", (r["id"], limit))


@tool
def list_lost_items(db: Db, rider_email: str | None = None, driver_email: str | None = None,
                    status: Literal["reported", "found", "not_found", "returned"] | None = None) -> list[dict]:
    """Lost-item reports of a rider's rides or of a driver's rides.

    Args:
        rider_email: only reports on this rider's rides.
        driver_email: only reports on this driver's rides.
        status: only reports in this status.
    """
    if rider_email is None and driver_email is None:
        raise ToolError("Give a rider_email or a driver_email.")
    rid = _rider(db, rider_email)["id"] if rider_email else None
    did = _driver(db, driver_email)["id"] if driver_email else None
    where, params = filters(("r.rider_id = ?", rid), ("r.driver_id = ?", did), ("l.status = ?", status))
    return db.query("SELECT l.id AS report_id, l.ride_id, l.description, l.status, l.reported_at, l.resolved_at "
                    f"FROM lost_items l JOIN rides r ON r.id = l.ride_id WHERE {where} ORDER BY l.reported_at DESC "
                    "LIMIT 50", params)


# ----------------------------------------------------------------------------------------------
# write tools: rider account
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def add_payment_method(db: Db, rider_email: str, kind: Literal["card", "paypal", "apple_pay"], label: str,
                       expires: str | None = None, make_default: bool = False) -> dict:
    """Add a payment method to a rider's account. Cards need an expiry month (YYYY-MM) that has not passed.

    Args:
        rider_email: the rider's e-mail address (the rider acting).
        kind: card, paypal or apple_pay.
        label: how it is shown, e.g. "Visa ending 4242".
        expires: for cards, the expiry month, YYYY-MM.
        make_default: make it the default payment method.
    """
    r = _rider(db, rider_email)
    label = label.strip()
    if len(label) < 3:
        raise ToolError("label must be at least 3 characters, e.g. 'Visa ending 4242'.")
    if kind == "card":
        if expires is None or len(expires) != 7 or expires[4] != "-" or not (expires[:4] + expires[5:]).isdigit() \
                or not 1 <= int(expires[5:]) <= 12:
            raise ToolError("A card needs expires written YYYY-MM, e.g. '2028-09'.")
        if expires < db.today().strftime("%Y-%m"):
            raise ToolError(f"That card expired in {expires}; add a valid card.")
    elif expires is not None:
        raise ToolError(f"Only cards have an expiry month; leave expires empty for {kind}.")
    db.none("SELECT 1 FROM payment_methods WHERE rider_id = ? AND is_active = 1 AND lower(label) = lower(?)",
            (r["id"], label), found=f"{r['email']} already has a payment method labelled {label!r}.")
    first = db.value("SELECT COUNT(*) FROM payment_methods WHERE rider_id = ? AND is_active = 1", (r["id"],)) == 0
    default = make_default or first
    if default:
        db.execute("UPDATE payment_methods SET is_default = 0 WHERE rider_id = ? AND is_default = 1", (r["id"],))
    pid = db.insert("payment_methods", {"rider_id": r["id"], "kind": kind, "label": label, "expires": expires,
                                        "is_default": 1 if default else 0, "is_active": 1, "added_at": _now(db)})
    return {"payment_method_id": pid, "label": label, "is_default": default}


@tool(write=True)
def set_default_payment_method(db: Db, rider_email: str, payment_method_id: int) -> dict:
    """Make one of the rider's active, unexpired payment methods their default.

    Args:
        rider_email: the rider's e-mail address (the rider acting).
        payment_method_id: the payment method's id (get_rider lists them).
    """
    r = _rider(db, rider_email)
    m = _usable_method(db, r, payment_method_id)
    if m["is_default"]:
        raise ToolError(f"{m['label']} is already the default payment method.")
    db.execute("UPDATE payment_methods SET is_default = 0 WHERE rider_id = ? AND is_default = 1", (r["id"],))
    db.execute("UPDATE payment_methods SET is_default = 1 WHERE id = ?", (m["id"],))
    return {"payment_method_id": m["id"], "label": m["label"], "is_default": True}


@tool(write=True)
def remove_payment_method(db: Db, rider_email: str, payment_method_id: int) -> dict:
    """Remove a payment method from the rider's account. The default method cannot be removed (make another one
    the default first), nor one that pays for a scheduled or unfinished ride.

    Args:
        rider_email: the rider's e-mail address (the rider acting).
        payment_method_id: the payment method's id.
    """
    r = _rider(db, rider_email)
    m = db.one("SELECT * FROM payment_methods WHERE id = ?", (payment_method_id,))
    if m is None or m["rider_id"] != r["id"] or not m["is_active"]:
        raise ToolError(f"Payment method {payment_method_id} is not one of {r['email']}'s active payment methods.")
    if m["is_default"]:
        raise ToolError(f"{m['label']} is the default payment method; make another one the default first.")
    busy = db.value("SELECT id FROM rides WHERE payment_method_id = ? AND status IN ('scheduled', 'requested', "
                    "'accepted', 'in_progress')", (m["id"],))
    if busy:
        raise ToolError(f"{m['label']} pays for ride #{busy}, which is not finished yet.")
    db.execute("UPDATE payment_methods SET is_active = 0 WHERE id = ?", (m["id"],))
    return {"removed": m["id"], "label": m["label"]}


@tool(write=True)
def save_place(db: Db, rider_email: str, label: str, address: str, zone: str) -> dict:
    """Save a place (e.g. "Home", "Work") on the rider's account. Labels are unique per rider.

    Args:
        rider_email: the rider's e-mail address (the rider acting).
        label: the place's name, e.g. "Gym".
        address: street address, e.g. "200 Pier Street".
        zone: the zone it lies in (list_zones shows them).
    """
    r = _rider(db, rider_email)
    label, address = label.strip(), address.strip()
    if not label or not address:
        raise ToolError("label and address must not be empty.")
    z = _zone(db, zone)
    db.none("SELECT 1 FROM saved_places WHERE rider_id = ? AND lower(label) = lower(?)", (r["id"], label),
            found=f"{r['email']} already has a place labelled {label!r}; delete it first or pick another label.")
    pid = db.insert("saved_places", {"rider_id": r["id"], "label": label, "address": address, "zone_id": z["id"]})
    return {"place_id": pid, "label": label, "zone": z["name"]}


@tool(write=True)
def delete_saved_place(db: Db, rider_email: str, place_id: int) -> dict:
    """Delete one of the rider's saved places.

    Args:
        rider_email: the rider's e-mail address (the rider acting).
        place_id: the saved place's id (get_rider lists them).
    """
    r = _rider(db, rider_email)
    p = db.one("SELECT * FROM saved_places WHERE id = ?", (place_id,))
    if p is None or p["rider_id"] != r["id"]:
        raise ToolError(f"Place {place_id} is not one of {r['email']}'s saved places.")
    db.execute("DELETE FROM saved_places WHERE id = ?", (p["id"],))
    return {"deleted": p["id"], "label": p["label"]}


@tool(write=True)
def redeem_promo_code(db: Db, rider_email: str, code: str) -> dict:
    """Redeem a promo code: its credit is added to the rider's balance and pays future fares automatically. A
    rider redeems a code once; the code must be within its dates and have redemptions left; new-rider codes
    need a rider without any completed ride.

    Args:
        rider_email: the rider's e-mail address (the rider acting).
        code: the promo code.
    """
    r = _rider(db, rider_email)
    p = db.one("SELECT * FROM promo_codes WHERE upper(code) = upper(?)", (code.strip(),),
               missing=f"No promo code {code!r}.")
    today = db.today().isoformat()
    if not p["valid_from"] <= today <= p["valid_until"]:
        raise ToolError(f"{p['code']} is valid from {p['valid_from']} to {p['valid_until']}.")
    db.none("SELECT 1 FROM promo_redemptions WHERE promo_id = ? AND rider_id = ?", (p["id"], r["id"]),
            found=f"{r['email']} has already redeemed {p['code']}.")
    if db.value("SELECT COUNT(*) FROM promo_redemptions WHERE promo_id = ?", (p["id"],)) >= p["max_redemptions"]:
        raise ToolError(f"{p['code']} has no redemptions left.")
    if p["new_riders_only"] and db.value("SELECT 1 FROM rides WHERE rider_id = ? AND status = 'completed'", (r["id"],)):
        raise ToolError(f"{p['code']} is for new riders only, and {r['full_name']} has already taken rides.")
    db.insert("promo_redemptions", {"promo_id": p["id"], "rider_id": r["id"], "redeemed_at": _now(db)})
    _credit(db, r["id"], p["credit_cents"], promo_id=p["id"])
    return {"code": p["code"], "credit_added_cents": p["credit_cents"],
            "credit_balance_cents": r["credit_cents"] + p["credit_cents"]}


# ----------------------------------------------------------------------------------------------
# write tools: rides (rider side)
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def request_ride(db: Db, rider_email: str, category: Category, pickup_address: str, pickup_zone: str,
                 dropoff_address: str, dropoff_zone: str, payment_method_id: int | None = None,
                 scheduled_for: str | None = None) -> dict:
    """Request a ride now, or schedule one (30 minutes to 7 days ahead). A rider has at most one unfinished
    immediate ride and three scheduled ones. The fare estimate locks the pickup zone's current surge
    (scheduled rides are not surged). Pays with the given payment method, or the default one.

    Args:
        rider_email: the rider's e-mail address (the rider acting).
        category: standard, xl or premium.
        pickup_address: where to be picked up (a saved place's address, or any street address).
        pickup_zone: the pickup's zone.
        dropoff_address: where to go.
        dropoff_zone: the drop-off's zone.
        payment_method_id: which of the rider's payment methods pays; omit for the default.
        scheduled_for: for a scheduled ride, the pickup time, YYYY-MM-DDTHH:MM.
    """
    r = _rider(db, rider_email)
    cat = _category(db, category)
    a, b = _zone(db, pickup_zone), _zone(db, dropoff_zone)
    if not pickup_address.strip() or not dropoff_address.strip():
        raise ToolError("pickup_address and dropoff_address must not be empty.")
    if pickup_address.strip().lower() == dropoff_address.strip().lower():
        raise ToolError("The pickup and drop-off addresses are the same.")
    if payment_method_id is None:
        payment_method_id = db.value("SELECT id FROM payment_methods WHERE rider_id = ? AND is_active = 1 "
                                     "AND is_default = 1", (r["id"],))
        if payment_method_id is None:
            raise ToolError(f"{r['email']} has no default payment method; add one first.")
    m = _usable_method(db, r, payment_method_id)
    when = None
    if scheduled_for is not None:
        try:
            when = datetime.fromisoformat(scheduled_for.strip())
        except ValueError:
            raise ToolError("scheduled_for must be written YYYY-MM-DDTHH:MM, e.g. '2026-05-09T07:30'.") from None
        if when.tzinfo is not None:
            raise ToolError("scheduled_for is local time; leave out the time zone.")
        if when < db.now() + timedelta(minutes=SCHEDULE_MIN_MINUTES) or when > db.now() + timedelta(days=SCHEDULE_MAX_DAYS):
            raise ToolError("A scheduled ride must be between 30 minutes and 7 days from now.")
        n = db.value("SELECT COUNT(*) FROM rides WHERE rider_id = ? AND status = 'scheduled'", (r["id"],))
        if n >= 3:
            raise ToolError(f"{r['full_name']} already has 3 scheduled rides; cancel one first.")
    else:
        busy = db.value("SELECT id FROM rides WHERE rider_id = ? AND status IN ('requested', 'accepted', 'in_progress')",
                        (r["id"],))
        if busy:
            raise ToolError(f"{r['full_name']} already has ride #{busy} under way; finish or cancel it first.")
    route = _route(db, a["id"], b["id"])
    surge = 100 if when else a["surge_pct"]
    est = _fare(cat, route["distance_decikm"], route["duration_min"], surge)
    rid = db.insert("rides", {
        "rider_id": r["id"], "category_id": cat["id"], "driver_id": None, "vehicle_id": None,
        "payment_method_id": m["id"], "status": "scheduled" if when else "requested",
        "pickup_address": pickup_address.strip(), "pickup_zone_id": a["id"], "dropoff_address": dropoff_address.strip(),
        "dropoff_zone_id": b["id"], "scheduled_for": when.replace(second=0, microsecond=0).isoformat() if when else None,
        "distance_decikm": route["distance_decikm"], "duration_min": route["duration_min"], "surge_pct": surge,
        "estimated_fare_cents": est, "fare_cents": None, "requested_at": _now(db)})
    return {"ride_id": rid, "status": "scheduled" if when else "requested", "estimated_fare_cents": est,
            "surge_pct": surge, "payment_method": m["label"]}


@tool(write=True)
def cancel_ride(db: Db, rider_email: str, ride_id: int, reason: CancelReason) -> dict:
    """The rider cancels one of their rides. Free while scheduled or requested; once a driver has accepted, the
    category's cancellation fee is charged (80% of it goes to the driver). A ride in progress cannot be
    cancelled.

    Args:
        rider_email: the rider's e-mail address (the rider acting).
        ride_id: the ride's id.
        reason: why the ride is cancelled.
    """
    x = _riders_ride(db, rider_email, ride_id)
    if x["status"] in ("completed", "cancelled"):
        raise ToolError(f"Ride #{ride_id} is already {x['status']}.")
    if x["status"] == "in_progress":
        raise ToolError(f"Ride #{ride_id} is in progress and cannot be cancelled; ask the driver to end it.")
    fee = 0
    if x["status"] == "accepted":
        fee = db.value("SELECT cancel_fee_cents FROM vehicle_categories WHERE id = ?", (x["category_id"],))
        db.execute("UPDATE drivers SET status = 'available' WHERE id = ?", (x["driver_id"],))
    db.execute("UPDATE rides SET status = 'cancelled', cancelled_at = ?, cancelled_by = 'rider', cancel_reason = ?, "
               "cancellation_fee_cents = ?, driver_earnings_cents = ? WHERE id = ?",
               (_now(db), reason, fee, fee * DRIVER_SHARE // 100, x["id"]))
    return {"ride_id": x["id"], "status": "cancelled", "cancellation_fee_cents": fee}


@tool(write=True)
def add_tip(db: Db, rider_email: str, ride_id: int, amount_cents: int) -> dict:
    """Tip the driver of a completed ride: once per ride, within 7 days of completion, at least $1 and at most the
    fare itself, never more than $50. The whole tip goes to the driver.

    Args:
        rider_email: the rider's e-mail address (the rider acting).
        ride_id: the ride's id.
        amount_cents: the tip in cents, e.g. 300 for $3.00.
    """
    x = _riders_ride(db, rider_email, ride_id)
    if x["status"] != "completed":
        raise ToolError(f"Ride #{ride_id} is {x['status']}; only completed rides can be tipped.")
    db.none("SELECT 1 FROM tips WHERE ride_id = ?", (x["id"],),
            found=f"Ride #{ride_id} has already been tipped; a tip cannot be changed.")
    if _completed_at(x) < db.now() - timedelta(days=TIP_WINDOW_DAYS):
        raise ToolError(f"Ride #{ride_id} ended more than {TIP_WINDOW_DAYS} days ago; it can no longer be tipped.")
    cap = min(MAX_TIP_CENTS, x["fare_cents"])
    if not 100 <= amount_cents <= cap:
        raise ToolError(f"A tip on this ride must be between $1.00 and {_money(cap)} (the fare, at most $50).")
    tid = db.insert("tips", {"ride_id": x["id"], "amount_cents": amount_cents, "payout_id": None, "created_at": _now(db)})
    return {"tip_id": tid, "ride_id": x["id"], "amount_cents": amount_cents}


@tool(write=True)
def rate_driver(db: Db, rider_email: str, ride_id: int, stars: int, comment: str = "") -> dict:
    """The rider rates the driver of one of their completed rides, 1 to 5 stars: once per ride, within 14 days.

    Args:
        rider_email: the rider's e-mail address (the rider acting).
        ride_id: the ride's id.
        stars: 1 to 5.
        comment: optional words for the driver.
    """
    x = _riders_ride(db, rider_email, ride_id)
    return _rate(db, x, "rider", stars, comment)


def _rate(db: Db, x: dict[str, Any], by: str, stars: int, comment: str) -> dict[str, Any]:
    if not 1 <= stars <= 5:
        raise ToolError(f"stars must be between 1 and 5 (got {stars}).")
    if x["status"] != "completed":
        raise ToolError(f"Ride #{x['id']} is {x['status']}; only completed rides can be rated.")
    db.none("SELECT 1 FROM ride_ratings WHERE ride_id = ? AND rated_by = ?", (x["id"], by),
            found=f"Ride #{x['id']} has already been rated by its {by}; a rating cannot be changed.")
    if _completed_at(x) < db.now() - timedelta(days=RATING_WINDOW_DAYS):
        raise ToolError(f"Ride #{x['id']} ended more than {RATING_WINDOW_DAYS} days ago and can no longer be rated.")
    rid = db.insert("ride_ratings", {"ride_id": x["id"], "rated_by": by, "stars": stars, "comment": comment.strip(),
                                     "created_at": _now(db)})
    return {"rating_id": rid, "ride_id": x["id"], "stars": stars}


@tool(write=True)
def report_lost_item(db: Db, rider_email: str, ride_id: int, description: str, contact_phone: str) -> dict:
    """Report an item left in the car on one of the rider's completed rides (within 30 days). A ride has at most
    one open report; the driver is asked to look for it.

    Args:
        rider_email: the rider's e-mail address (the rider acting).
        ride_id: the ride's id.
        description: what was lost, e.g. "Black umbrella with a wooden handle".
        contact_phone: a phone number the driver can call.
    """
    x = _riders_ride(db, rider_email, ride_id)
    description, contact_phone = description.strip(), contact_phone.strip()
    if x["status"] != "completed":
        raise ToolError(f"Ride #{ride_id} is {x['status']}; lost items can be reported for completed rides.")
    if _completed_at(x) < db.now() - timedelta(days=LOST_ITEM_WINDOW_DAYS):
        raise ToolError(f"Ride #{ride_id} ended more than {LOST_ITEM_WINDOW_DAYS} days ago; contact support instead.")
    if not 3 <= len(description) <= 500:
        raise ToolError("description must be 3 to 500 characters.")
    if sum(ch.isdigit() for ch in contact_phone) < 7:
        raise ToolError("contact_phone must be a phone number, e.g. '555-201-3344'.")
    db.none("SELECT 1 FROM lost_items WHERE ride_id = ? AND status = 'reported'", (x["id"],),
            found=f"Ride #{ride_id} already has an open lost-item report.")
    lid = db.insert("lost_items", {"ride_id": x["id"], "description": description, "contact_phone": contact_phone,
                                   "status": "reported", "reported_at": _now(db), "resolved_at": None})
    return {"report_id": lid, "status": "reported"}


# ----------------------------------------------------------------------------------------------
# write tools: drivers
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def set_driver_status(db: Db, driver_email: str, status: Literal["available", "offline"]) -> dict:
    """A driver goes online (available) or offline. Not possible while on a trip.

    Args:
        driver_email: the driver's e-mail address (the driver acting).
        status: available or offline.
    """
    d = _driver(db, driver_email)
    if not d["is_active"]:
        raise ToolError(f"{d['full_name']}'s account is deactivated.")
    if d["status"] == "on_trip":
        raise ToolError(f"{d['full_name']} is on a trip; finish it first.")
    if d["status"] == status:
        raise ToolError(f"{d['full_name']} is already {status}.")
    db.execute("UPDATE drivers SET status = ? WHERE id = ?", (status, d["id"]))
    return {"driver": d["full_name"], "status": status}


@tool(write=True)
def accept_ride(db: Db, driver_email: str, ride_id: int) -> dict:
    """A driver accepts a waiting ride. The driver must be available, in the ride's pickup zone, with an active
    vehicle of the ride's category; scheduled rides can be accepted from 45 minutes before their pickup time.

    Args:
        driver_email: the driver's e-mail address (the driver acting).
        ride_id: the ride's id (list_open_requests shows waiting rides).
    """
    d = _driver(db, driver_email)
    x = _ride(db, ride_id)
    if not d["is_active"]:
        raise ToolError(f"{d['full_name']}'s account is deactivated.")
    if d["status"] != "available":
        raise ToolError(f"{d['full_name']} is {d['status']}; only available drivers can accept rides.")
    if x["status"] == "scheduled":
        if x["scheduled_for"] > (db.now() + timedelta(minutes=ACCEPT_SCHEDULED_MINUTES)).isoformat():
            raise ToolError(f"Ride #{ride_id} is scheduled for {x['scheduled_for']}; it can be accepted from 45 minutes "
                            "before that.")
    elif x["status"] != "requested":
        raise ToolError(f"Ride #{ride_id} is {x['status']} and is not waiting for a driver.")
    if d["zone_id"] != x["pickup_zone_id"]:
        zone = db.value("SELECT name FROM zones WHERE id = ?", (x["pickup_zone_id"],))
        raise ToolError(f"{d['full_name']} is in {d['zone_name']}, but the pickup is in {zone}.")
    v = db.one("SELECT v.id FROM vehicles v WHERE v.driver_id = ? AND v.is_active = 1 AND v.category_id = ?",
               (d["id"], x["category_id"]),
               missing=f"{d['full_name']} has no active vehicle in the {x['category']} category this ride needs.")
    db.execute("UPDATE rides SET status = 'accepted', driver_id = ?, vehicle_id = ?, accepted_at = ? WHERE id = ?",
               (d["id"], v["id"], _now(db), x["id"]))
    db.execute("UPDATE drivers SET status = 'on_trip' WHERE id = ?", (d["id"],))
    return {"ride_id": x["id"], "status": "accepted", "pickup": x["pickup_address"]}


@tool(write=True)
def release_ride(db: Db, driver_email: str, ride_id: int) -> dict:
    """The driver gives back a ride they accepted but have not started: it waits for another driver again (no fee
    for anyone) and the driver becomes available.

    Args:
        driver_email: the driver's e-mail address (the driver acting).
        ride_id: the ride's id.
    """
    d, x = _driver_and_ride(db, driver_email, ride_id)
    if x["status"] != "accepted":
        raise ToolError(f"Ride #{ride_id} is {x['status']}; only accepted, not yet started rides can be released.")
    back = "scheduled" if x["scheduled_for"] else "requested"
    db.execute("UPDATE rides SET status = ?, driver_id = NULL, vehicle_id = NULL, accepted_at = NULL WHERE id = ?",
               (back, x["id"]))
    db.execute("UPDATE drivers SET status = 'available' WHERE id = ?", (d["id"],))
    return {"ride_id": x["id"], "status": back}


@tool(write=True)
def start_ride(db: Db, driver_email: str, ride_id: int) -> dict:
    """The driver picks the rider up and starts the trip (accepted -> in_progress).

    Args:
        driver_email: the driver's e-mail address (the driver acting).
        ride_id: the ride's id.
    """
    _, x = _driver_and_ride(db, driver_email, ride_id)
    if x["status"] != "accepted":
        raise ToolError(f"Ride #{ride_id} is {x['status']}; only accepted rides can start.")
    db.execute("UPDATE rides SET status = 'in_progress', started_at = ? WHERE id = ?", (_now(db), x["id"]))
    return {"ride_id": x["id"], "status": "in_progress"}


@tool(write=True)
def complete_ride(db: Db, driver_email: str, ride_id: int, distance_km: float, duration_min: int) -> dict:
    """The driver ends a trip in progress with the distance and time driven. The fare uses the category's rules
    and the surge locked at request; the rider's promo credit pays what it can; the driver earns 80% of the
    fare, becomes available and is now in the drop-off zone.

    Args:
        driver_email: the driver's e-mail address (the driver acting).
        ride_id: the ride's id.
        distance_km: kilometres driven, e.g. 12.4 (0.1 to 200).
        duration_min: minutes driven, 1 to 300.
    """
    d, x = _driver_and_ride(db, driver_email, ride_id)
    if x["status"] != "in_progress":
        raise ToolError(f"Ride #{ride_id} is {x['status']}; only rides in progress can be completed.")
    if not 0.1 <= distance_km <= 200:
        raise ToolError("distance_km must be between 0.1 and 200.")
    if not 1 <= duration_min <= 300:
        raise ToolError("duration_min must be between 1 and 300.")
    decikm = int(round(distance_km * 10))
    cat = db.one("SELECT * FROM vehicle_categories WHERE id = ?", (x["category_id"],))
    fare = _fare(cat, decikm, duration_min, x["surge_pct"])
    credit = min(db.value("SELECT credit_cents FROM riders WHERE id = ?", (x["rider_id"],)), fare)
    db.execute("UPDATE rides SET status = 'completed', completed_at = ?, distance_decikm = ?, duration_min = ?, "
               "fare_cents = ?, credit_applied_cents = ?, driver_earnings_cents = ? WHERE id = ?",
               (_now(db), decikm, duration_min, fare, credit, fare * DRIVER_SHARE // 100, x["id"]))
    _credit(db, x["rider_id"], -credit, ride_id=x["id"])
    db.execute("UPDATE drivers SET status = 'available', zone_id = ? WHERE id = ?", (x["dropoff_zone_id"], d["id"]))
    return {"ride_id": x["id"], "status": "completed", "fare_cents": fare, "credit_applied_cents": credit,
            "charged_cents": fare - credit}


@tool(write=True)
def rate_rider(db: Db, driver_email: str, ride_id: int, stars: int, comment: str = "") -> dict:
    """The driver rates the rider of a ride they completed, 1 to 5 stars: once per ride, within 14 days.

    Args:
        driver_email: the driver's e-mail address (the driver acting).
        ride_id: the ride's id.
        stars: 1 to 5.
        comment: optional words about the rider.
    """
    _, x = _driver_and_ride(db, driver_email, ride_id)
    return _rate(db, x, "driver", stars, comment)


@tool(write=True)
def resolve_lost_item(db: Db, driver_email: str, report_id: int, outcome: Literal["found", "not_found", "returned"]) -> dict:
    """The driver of the ride answers a lost-item report: found or not_found while it is open, returned once a
    found item is back with the rider.

    Args:
        driver_email: the driver's e-mail address (the driver acting).
        report_id: the report's id (list_lost_items shows them).
        outcome: found, not_found or returned.
    """
    d = _driver(db, driver_email)
    rep = db.one("SELECT * FROM lost_items WHERE id = ?", (report_id,),
                 missing=f"No lost-item report {report_id}.")
    _drivers_ride(db, d, rep["ride_id"])
    allowed = {"reported": ("found", "not_found"), "found": ("returned",)}.get(rep["status"], ())
    if outcome not in allowed:
        raise ToolError(f"Report {report_id} is {rep['status']}; it can move to "
                        f"{' or '.join(allowed) if allowed else 'nothing else'}.")
    db.execute("UPDATE lost_items SET status = ?, resolved_at = COALESCE(resolved_at, ?) WHERE id = ?",
               (outcome, _now(db), rep["id"]))
    return {"report_id": rep["id"], "status": outcome}


@tool(write=True)
def request_payout(db: Db, driver_email: str) -> dict:
    """The driver cashes out everything earned up to the end of yesterday that is not paid out yet (ride
    earnings, cancellation-fee earnings and tips). Needs at least $20 and no other payout still pending.

    Args:
        driver_email: the driver's e-mail address (the driver acting).
    """
    d = _driver(db, driver_email)
    pending = db.value("SELECT id FROM driver_payouts WHERE driver_id = ? AND status = 'pending'", (d["id"],))
    if pending:
        raise ToolError(f"Payout #{pending} is still pending; wait until it is paid.")
    start_today = datetime.combine(db.today(), datetime.min.time()).isoformat()
    total, rides, tips = _unpaid(db, d["id"], start_today)
    if total < MIN_PAYOUT_CENTS:
        raise ToolError(f"{d['full_name']} has {_money(total)} to cash out up to yesterday; the minimum payout is "
                        f"{_money(MIN_PAYOUT_CENTS)}.")
    pid = db.insert("driver_payouts", {"driver_id": d["id"], "period_end": (db.today() - timedelta(days=1)).isoformat(),
                                       "rides_count": len(rides), "amount_cents": total, "status": "pending",
                                       "requested_at": _now(db), "paid_at": None})
    for rid in rides:
        db.execute("UPDATE rides SET payout_id = ? WHERE id = ?", (pid, rid))
    for tid in tips:
        db.execute("UPDATE tips SET payout_id = ? WHERE id = ?", (pid, tid))
    return {"payout_id": pid, "amount_cents": total, "rides_count": len(rides), "tips_count": len(tips)}
