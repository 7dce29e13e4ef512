"""World builder for car_rental: locations, fleet, customers with licences, reservations and their charges.

``build(ctx)`` returns rows per table (parents first, explicit integer keys); randomness only from ``ctx.rng`` /
``ctx.faker``, dates only from ``ctx.clock``. Invariants kept for tools.py:

- a vehicle's reservations in status reserved / picked_up / returned never overlap (a return day may be the next
  pickup day); past rentals are round trips, so a vehicle's location is its home location; only future
  reservations may be one-way and only on a listed route;
- mileage: returned rentals of a vehicle run in time order and the vehicle's mileage is the last end mileage;
  a picked-up rental started at the vehicle's current mileage and its vehicle is ``rented``;
- prices: ``rental_cents`` follows the weekday / weekend rates less the loyalty-tier discount; the estimated
  total adds insurance, extras and the one-way fee less redeemed points; returned rentals have charges that add up;
- a customer's loyalty points are the sum of their loyalty transactions; licences of customers with active
  reservations are valid past the return date and the drivers are old enough for the class;
- extras reserved at a location never exceed its stock on any day.

Planted for the templates: pickups today (one with its vehicle in maintenance and a free vehicle of the class),
returns due today, yesterday's missed pickups, future reservations, returned rentals with charges.
With ``ctx.distractors``: namesake customers and look-alike location names.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

LOCATIONS = [
    ("SFO", "San Francisco Airport", "San Francisco", "780 N McDonnell Rd", 1, "05:00", "23:30"),
    ("SFD", "San Francisco Downtown", "San Francisco", "350 O'Farrell St", 0, "07:00", "19:00"),
    ("OAK", "Oakland Airport", "Oakland", "7600 Earhart Rd", 1, "05:30", "23:00"),
    ("SJC", "San Jose Airport", "San Jose", "1659 Airport Blvd", 1, "05:30", "23:00"),
    ("BRK", "Berkeley Shattuck", "Berkeley", "2124 Shattuck Ave", 0, "08:00", "18:00"),
    ("PAO", "Palo Alto Station", "Palo Alto", "95 University Ave", 0, "08:00", "18:00"),
    ("SAC", "Sacramento Airport", "Sacramento", "6900 Airport Blvd", 1, "05:00", "23:00"),
    ("SMF", "Sacramento Midtown", "Sacramento", "1901 J St", 0, "08:00", "18:00"),
    ("MRY", "Monterey Airport", "Monterey", "200 Fred Kane Dr", 1, "06:00", "22:00"),
    ("SRO", "Santa Rosa Downtown", "Santa Rosa", "520 Mendocino Ave", 0, "08:00", "18:00"),
    ("FAT", "Fresno Airport", "Fresno", "5175 E Clinton Way", 1, "05:30", "23:00"),
    ("WCK", "Walnut Creek", "Walnut Creek", "1700 N Main St", 0, "08:00", "18:00"),
]
CLASSES = [
    # id, code, name, daily, weekend, min_age, seats, description, models
    (1, "ECON", "Economy", 3900, 4500, 21, 4, "Small 4-door car", [("Kia", "Rio"), ("Mitsubishi", "Mirage"), ("Nissan", "Versa")]),
    (2, "COMP", "Compact", 4500, 5200, 21, 5, "Compact sedan", [("Toyota", "Corolla"), ("Honda", "Civic"), ("Hyundai", "Elantra")]),
    (3, "MID", "Midsize", 5200, 5900, 21, 5, "Midsize sedan", [("Toyota", "Camry"), ("Honda", "Accord"), ("Nissan", "Altima")]),
    (4, "SUV", "Standard SUV", 6900, 7900, 21, 5, "Standard SUV", [("Toyota", "RAV4"), ("Ford", "Escape"), ("Honda", "CR-V")]),
    (5, "VAN", "Minivan", 8400, 9400, 23, 7, "7-seat minivan", [("Chrysler", "Pacifica"), ("Toyota", "Sienna"), ("Kia", "Carnival")]),
    (6, "LUX", "Luxury", 11900, 13500, 25, 5, "Premium sedan", [("BMW", "5 Series"), ("Mercedes-Benz", "E-Class"), ("Audi", "A6")]),
]
INSURANCE = [(1, "LDW", "Loss Damage Waiver", 1999, 100000, "Covers damage to the car above a $1,000 deductible."),
             (2, "PREMIUM", "Premium Protection", 3499, 0, "Covers all damage to the car with no deductible.")]
EXTRAS = [(1, "CHILD_SEAT", "Child seat", 1200, 3), (2, "GPS", "GPS navigator", 900, 1),
          (3, "SKI_RACK", "Ski rack", 1500, 1), (4, "TOLL_PASS", "Toll pass", 600, 1)]
COLORS = ["white", "black", "silver", "gray", "blue", "red"]
STATES = ["CA", "CA", "CA", "NV", "OR", "WA", "AZ", "NY", "TX"]


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng, fk = ctx.rng, ctx.faker
    tools = ctx.tools  # the rental price, driver age, fuel charge and code letters the tools use
    today = ctx.today
    clock = ctx.clock

    t = Tables(["locations", "agents", "vehicle_classes", "vehicles", "customers", "driver_licenses",
                "insurance_options", "extras", "extra_inventory", "one_way_fees", "reservations", "reservation_extras",
                "damage_reports", "charges", "loyalty_transactions"])
    nl = ctx.n(4, 12)
    t["locations"] = locations = [
        {"id": i, "code": c, "name": n, "city": city, "address": a, "phone": f"(415) 555-{2000 + i * 41:04d}",
         "is_airport": ap, "opens_at": o, "closes_at": cl}
        for i, (c, n, city, a, ap, o, cl) in enumerate(LOCATIONS[:nl], start=1)]
    emails: set[str] = set()
    for loc in locations:
        for role in ("station_manager", "counter_agent", "counter_agent"):
            first, last = fk.first_name(), fk.last_name()
            email = ctx.unique(lambda: f"{first[0].lower()}{last.lower()}{rng.randint(1, 99)}@swiftcar.com", emails)
            t.add("agents", {"location_id": loc["id"], "full_name": f"{first} {last}", "email": email, "role": role,
                             "is_active": 1})
    t["agents"][-1]["is_active"] = 0

    t["vehicle_classes"] = classes = [
        {"id": c[0], "code": c[1], "name": c[2], "daily_rate_cents": c[3], "weekend_rate_cents": c[4],
         "min_age": c[5], "seats": c[6], "description": c[7]} for c in CLASSES]
    cls = {c["id"]: c for c in classes}
    t["insurance_options"] = [
        {"id": i[0], "code": i[1], "name": i[2], "daily_price_cents": i[3], "deductible_cents": i[4],
         "description": i[5]} for i in INSURANCE]
    t["extras"] = extras = [
        {"id": e[0], "code": e[1], "name": e[2], "daily_price_cents": e[3], "max_per_rental": e[4]} for e in EXTRAS]
    for loc in locations:
        for e in extras:
            t.add("extra_inventory", {"location_id": loc["id"], "extra_id": e["id"],
                                      "quantity": {1: rng.randint(4, 8), 2: rng.randint(2, 5), 3: rng.randint(0, 3),
                                                   4: rng.randint(3, 8)}[e["id"]]})
    stock = {(r["location_id"], r["extra_id"]): r["quantity"] for r in t["extra_inventory"]}
    for a in locations:
        for b in locations:
            if a["id"] != b["id"] and (a["city"] != b["city"] or a["is_airport"] != b["is_airport"]):
                if (a["id"] + b["id"]) % 3 != 0 or abs(a["id"] - b["id"]) == 1:
                    t.add("one_way_fees", {"from_location_id": a["id"], "to_location_id": b["id"],
                                           "fee_cents": 2500 if a["city"] == b["city"]
                                           else rng.choice([4900, 7500, 9900, 12500])})
    route_fee = {(r["from_location_id"], r["to_location_id"]): r["fee_cents"] for r in t["one_way_fees"]}

    # ---- fleet --------------------------------------------------------------------------------
    vehicles = t["vehicles"]
    plates: set[str] = set()
    for loc in locations:
        for c in CLASSES:
            for _ in range((rng.randint(2, 3) if c[0] < 6 else 1) if not ctx.large else (rng.randint(9, 12) if c[0] < 6 else 4)):
                make, model = ctx.pick(c[8])
                plate = ctx.unique(lambda: f"{rng.randint(7, 9)}{rng.choice('ABCDEFGHJKLMNPRSTVWXYZ')}"
                                   f"{rng.choice('ABCDEFGHJKLMNPRSTVWXYZ')}{rng.choice('ABCDEFGHJKLMNPRSTVWXYZ')}"
                                   f"{rng.randint(100, 999)}", plates)
                t.add("vehicles", {"plate": plate, "class_id": c[0], "location_id": loc["id"], "make": make,
                                   "model": model, "year": rng.randint(2021, 2026), "color": rng.choice(COLORS),
                                   "status": "available", "mileage_km": rng.randint(3000, 40000)})
    for v in vehicles[5::13]:
        v["status"] = "maintenance"

    # ---- customers and licences ---------------------------------------------------------------
    customers = t["customers"]
    names: set[tuple[str, str]] = set()
    cemails: set[str] = set()
    lic_numbers: set[str] = set()

    def add_customer(first: str, last: str, young: bool = False) -> Row:
        email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.choice(['', str(rng.randint(1, 99))])}@"
                           f"{rng.choice(['gmail.com', 'yahoo.com', 'outlook.com', 'icloud.com'])}".replace("'", ""),
                           cemails)
        age_days = rng.randint(365 * 21 + 30, 365 * 24) if young else rng.randint(365 * 26, 365 * 70)
        c = t.add("customers", {
            "first_name": first, "last_name": last, "email": email,
            "phone": f"({rng.choice([415, 510, 408, 650, 916])}) 555-{rng.randint(0, 9999):04d}",
            "date_of_birth": (today - timedelta(days=age_days)).isoformat(),
            "loyalty_tier": ctx.weighted({"basic": 0.6, "silver": 0.25, "gold": 0.15}), "loyalty_points": 0,
            "created_at": _iso(datetime.combine(ctx.days_ago(200, 2000), time(rng.randint(8, 20))))})
        expired = rng.random() < 0.08
        exp = ctx.days_ago(10, 200) if expired else today + timedelta(days=rng.randint(200, 1800))
        t.add("driver_licenses", {
            "customer_id": c["id"],
            "license_number": ctx.unique(lambda: f"{rng.choice('ABCDFGHJKLMNPRSTWY')}{rng.randint(1000000, 9999999)}",
                                         lic_numbers),
            "issuing_state": rng.choice(STATES), "issued_on": (exp - timedelta(days=365 * 5)).isoformat(),
            "expires_on": exp.isoformat()})
        return c

    for i in range(ctx.n(40, 600)):
        first, last = ctx.unique(lambda: (fk.first_name(), fk.last_name()), names)
        add_customer(first, last, young=(i % 9 == 4))
    if ctx.distractors:
        for c in ctx.sample(customers[:], max(4, len(customers) // 8)):
            add_customer(c["first_name"], c["last_name"])
    lic = {l["customer_id"]: l for l in t["driver_licenses"]}

    def can_drive(c: Row, class_id: int, d1: date, d2: date) -> bool:
        old_enough = tools._age(c["date_of_birth"], d1) >= cls[class_id]["min_age"]
        return lic[c["id"]]["expires_on"] >= d2.isoformat() and old_enough

    # ---- reservations -----------------------------------------------------------------------------
    busy: dict[int, list[tuple[date, date]]] = {v["id"]: [] for v in vehicles}
    extra_use: list[tuple[int, int, date, date, int]] = []  # location, extra, d1, d2, qty
    reservations, loyalty = t["reservations"], t["loyalty_transactions"]
    codes: set[str] = set()
    by_loc_class: dict[tuple[int, int], list[Row]] = {}
    for v in vehicles:
        by_loc_class.setdefault((v["location_id"], v["class_id"]), []).append(v)

    def free(v: Row, d1: date, d2: date) -> bool:
        return all(d2 <= a or d1 >= b for a, b in busy[v["id"]])

    def extra_free(loc: int, extra: int, d1: date, d2: date, qty: int) -> bool:
        d = d1
        while d < d2:
            used = sum(q for l, e, a, b, q in extra_use if l == loc and e == extra and a <= d < b)
            if used + qty > stock[(loc, extra)]:
                return False
            d += timedelta(days=1)
        return True

    def make_res(c: Row, v: Row, d1: date, d2: date, status: str, ret_loc: int | None = None,
                 with_extras: bool = True, ins: int | None = -1) -> Row | None:
        if not free(v, d1, d2) or not can_drive(c, v["class_id"], d1, d2):
            return None
        k = cls[v["class_id"]]
        days = (d2 - d1).days
        ret_loc = ret_loc or v["location_id"]
        insurance_id = (rng.choice([None, None, 1, 2]) if ins == -1 else ins)
        rental = tools._rental_cents(k, d1, d2, c["loyalty_tier"])
        one_way = route_fee.get((v["location_id"], ret_loc), 0) if ret_loc != v["location_id"] else 0
        code = ctx.unique(lambda: f"R{rng.choice(tools.LETTERS)}{rng.choice(tools.LETTERS)}{rng.randint(1000, 9999)}",
                          codes)
        ex_total, chosen = 0, []
        if with_extras and rng.random() < 0.35:
            e = ctx.pick(extras)
            qty = rng.randint(1, min(2, e["max_per_rental"]))
            if extra_free(v["location_id"], e["id"], d1, d2, qty):
                chosen.append((e, qty))
                ex_total += e["daily_price_cents"] * qty * days
        ins_total = INSURANCE[insurance_id - 1][3] * days if insurance_id else 0
        created = datetime.combine(min(d1, today) - timedelta(days=rng.randint(3, 40)), time(rng.randint(7, 22),
                                                                                            rng.randint(0, 59)))
        r = t.add("reservations", {
            "code": code, "customer_id": c["id"], "vehicle_id": v["id"], "class_id": v["class_id"],
            "pickup_location_id": v["location_id"], "return_location_id": ret_loc, "pickup_date": d1.isoformat(),
            "return_date": d2.isoformat(), "status": status, "insurance_id": insurance_id, "rental_cents": rental,
            "one_way_fee_cents": one_way, "points_redeemed": 0,
            "estimated_total_cents": rental + ins_total + ex_total + one_way, "start_mileage_km": None,
            "end_mileage_km": None, "created_at": _iso(created), "picked_up_at": None, "returned_at": None,
            "cancelled_at": None})
        if status in ("reserved", "picked_up", "returned"):
            busy[v["id"]].append((d1, d2))
            for e, qty in chosen:
                extra_use.append((v["location_id"], e["id"], d1, d2, qty))
        for e, qty in chosen:
            t.add("reservation_extras", {"reservation_id": r["id"], "extra_id": e["id"], "quantity": qty})
        r["_ins_total"], r["_ex_total"] = ins_total, ex_total
        return r

    def add_charge(r: Row, kind: str, cents: int, desc: str, at: datetime) -> None:
        if cents:
            t.add("charges", {"reservation_id": r["id"], "kind": kind, "amount_cents": cents, "description": desc,
                              "created_at": _iso(at)})

    # past rentals, per vehicle in time order (round trips)
    for v in vehicles:
        d = today - timedelta(days=rng.randint(20, 32))
        rng.randint(2000, 6000)  # (keeps the random stream of earlier versions)
        mileage = v["mileage_km"]
        while True:
            d += timedelta(days=rng.randint(2, 9))
            d2 = d + timedelta(days=rng.randint(1, 6))
            if d2 >= today - timedelta(days=1):
                break
            c = ctx.pick(customers)
            kind = ctx.weighted({"returned": 0.8, "cancelled": 0.12, "no_show": 0.08})
            r = make_res(c, v, d, d2, kind)
            if r is None:
                continue
            if kind == "returned":
                start = mileage
                mileage += rng.randint(60, 250) * (d2 - d).days
                r["start_mileage_km"], r["end_mileage_km"] = start, mileage
                r["picked_up_at"] = _iso(datetime.combine(d, time(rng.randint(7, 12), rng.randint(0, 59))))
                ret = datetime.combine(d2, time(rng.randint(8, 17), rng.randint(0, 59)))
                r["returned_at"] = _iso(ret)
                add_charge(r, "rental", r["rental_cents"], "Vehicle rental", ret)
                add_charge(r, "insurance", r["_ins_total"], "Insurance", ret)
                add_charge(r, "extras", r["_ex_total"], "Extras", ret)
                total = r["estimated_total_cents"]
                if rng.random() < 0.15:
                    add_charge(r, "fuel", tools.FUEL_CHARGE_CENTS, "Refuelling - returned without a full tank", ret)
                    total += tools.FUEL_CHARGE_CENTS
                pts = total // 100
                t.add("loyalty_transactions", {"customer_id": c["id"], "reservation_id": r["id"], "points": pts,
                                               "reason": "earned", "created_at": _iso(ret)})
                if rng.random() < 0.1:
                    sev = rng.choice(["minor", "moderate"])
                    cost = rng.randint(8, 60) * 1000 if sev == "moderate" else rng.randint(2, 8) * 1000
                    ded = {None: cost, 1: min(cost, 100000), 2: 0}[r["insurance_id"]]
                    loc_agents = [a for a in t["agents"] if a["location_id"] == v["location_id"] and a["is_active"]]
                    t.add("damage_reports", {"reservation_id": r["id"], "vehicle_id": v["id"],
                                             "agent_id": ctx.pick(loc_agents)["id"], "severity": sev,
                                             "description": rng.choice(["Scratch on rear bumper", "Dent in driver door",
                                                                        "Cracked side mirror", "Chipped windshield",
                                                                        "Scuffed front wheel rim"]),
                                             "estimated_cost_cents": cost, "customer_charge_cents": ded,
                                             "reported_at": _iso(ret + timedelta(minutes=20))})
                    add_charge(r, "damage", ded, "Damage: customer share", ret + timedelta(minutes=20))
            elif kind == "cancelled":
                r["cancelled_at"] = _iso(datetime.combine(d - timedelta(days=rng.randint(2, 10)), time(12)))
            else:
                add_charge(r, "no_show", cls[v["class_id"]]["daily_rate_cents"], "No-show fee",
                           datetime.combine(d + timedelta(days=1), time(9)))
        v["mileage_km"] = mileage

    # current and future rentals
    avail = [v for v in vehicles if v["status"] == "available"]
    # picked up now (some due back today)
    for i, v in enumerate(avail[::4]):
        d1 = today - timedelta(days=rng.randint(1, 5))
        d2 = today if i % 2 == 0 else today + timedelta(days=rng.randint(1, 6))
        for _ in range(5):
            c = ctx.pick(customers)
            r = make_res(c, v, d1, d2, "picked_up")
            if r:
                r["picked_up_at"] = _iso(datetime.combine(d1, time(rng.randint(7, 12), rng.randint(0, 59))))
                r["start_mileage_km"] = v["mileage_km"]
                v["status"] = "rented"
                break
    # pickups today, missed pickups yesterday, and future bookings
    avail = [v for v in vehicles if v["status"] == "available"]
    for i, v in enumerate(avail):
        plans = []
        if i % 5 == 0:
            plans.append((today, today + timedelta(days=rng.randint(1, 5)), "reserved"))
        elif i % 5 == 2:
            plans.append((today - timedelta(days=1), today + timedelta(days=rng.randint(1, 4)), "reserved"))
        for _ in range(rng.randint(1, 2)):
            s = today + timedelta(days=rng.randint(2, 45))
            plans.append((s, s + timedelta(days=rng.randint(1, 7)), ctx.weighted({"reserved": 0.85, "cancelled": 0.15})))
        for d1, d2, st in plans:
            for _ in range(5):
                c = ctx.pick(customers)
                ret = None
                if st == "reserved" and d1 > today + timedelta(days=1) and rng.random() < 0.2:
                    opts = [b for (a, b) in route_fee if a == v["location_id"]]
                    ret = ctx.pick(opts) if opts else None
                r = make_res(c, v, d1, d2, st, ret_loc=ret)
                if r:
                    if st == "cancelled":
                        r["cancelled_at"] = _iso(clock - timedelta(days=rng.randint(1, 3)))
                    break
    # planted: a pickup today whose vehicle went into maintenance, with a free vehicle of the class
    todays = [r for r in reservations if r["status"] == "reserved" and r["pickup_date"] == today.isoformat()]
    vmap = {v["id"]: v for v in vehicles}
    planted = 0
    for r in todays:
        v = vmap[r["vehicle_id"]]
        if planted >= max(2, len(todays) // 3) or r["return_location_id"] != v["location_id"]:
            continue
        others = [o for o in by_loc_class[(v["location_id"], v["class_id"])]
                  if o["id"] != v["id"] and o["status"] == "available"
                  and free(o, date.fromisoformat(r["pickup_date"]), date.fromisoformat(r["return_date"]))]
        if others:
            v["status"] = "maintenance"
            planted += 1

    # loyalty balances (+ a welcome bonus for some)
    for c in customers:
        if rng.random() < 0.3:
            t.add("loyalty_transactions", {"customer_id": c["id"], "reservation_id": None,
                                           "points": rng.choice([500, 1000, 2500]), "reason": "bonus",
                                           "created_at": c["created_at"]})
    loyalty.sort(key=lambda x: (x["created_at"], x["id"]))
    for i, l in enumerate(loyalty, start=1):
        l["id"] = i
    pts: dict[int, int] = {}
    for l in loyalty:
        pts[l["customer_id"]] = pts.get(l["customer_id"], 0) + l["points"]
    for c in customers:
        c["loyalty_points"] = pts.get(c["id"], 0)
    for r in reservations:
        r.pop("_ins_total"), r.pop("_ex_total")
    t["charges"].sort(key=lambda x: (x["created_at"], x["id"]))
    for i, ch in enumerate(t["charges"], start=1):
        ch["id"] = i
    return t
