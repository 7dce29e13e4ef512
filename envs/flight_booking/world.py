"""World builder for flight_booking: airports, airlines, aircraft seat maps, flights with fares, account
holders with travellers and miles, and bookings in every state.

``build(ctx)`` returns rows per table (parents first, explicit integer keys), a pure function of ``ctx``.
The rows keep the invariants ``tools.py`` relies on:

- each fare's ``seats_left`` = ``seats_total`` minus the passengers of active segments of held or ticketed
  bookings on it; a traveller flies a flight at most once across live bookings;
- flights before the clock are landed (or departed while in the air, or cancelled); later flights are
  scheduled, delayed (``delay_minutes`` > 0) or cancelled;
- held bookings have a hold expiry (most still running, a few lapsed) and no payments; ticketed bookings
  have a fare charge equal to the fares times the passengers, seat and bag fees follow the fee rules, and
  card-paid tickets earned miles (per-flight, with the tier bonus) while miles-paid ones redeemed 1 mile per
  cent; refunded bookings carry the refund and the reversal of the miles; every miles balance equals the
  sum of the account's transactions and never goes below zero;
- seats are held once per flight, in the fare's cabin, exit rows only for travellers aged 15+.

Planted in every world: a future flight the airline cancelled with a ticketed booking on it and a later
bookable flight on the same route; a ticketed changeable booking with another flight on its route; a
held booking whose hold is still running; families with several travellers; a ticketed party of two or
more on a future flight with someone still unseated.

With ``ctx.distractors``: namesake account holders (same full name, other e-mail) and namesake
travellers in other accounts.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

AIRPORTS = [
    ("BOS", "Logan International", "Boston", "United States"),
    ("JFK", "John F. Kennedy International", "New York", "United States"),
    ("ORD", "O'Hare International", "Chicago", "United States"),
    ("SFO", "San Francisco International", "San Francisco", "United States"),
    ("SEA", "Seattle-Tacoma International", "Seattle", "United States"),
    ("DEN", "Denver International", "Denver", "United States"),
    ("ATL", "Hartsfield-Jackson Atlanta International", "Atlanta", "United States"),
    ("MIA", "Miami International", "Miami", "United States"),
    ("YYZ", "Toronto Pearson International", "Toronto", "Canada"),
    ("LHR", "Heathrow", "London", "United Kingdom"),
    ("DUB", "Dublin Airport", "Dublin", "Ireland"),
    ("LIS", "Humberto Delgado", "Lisbon", "Portugal"),
    ("MAD", "Adolfo Suarez Madrid-Barajas", "Madrid", "Spain"),
    ("CDG", "Charles de Gaulle", "Paris", "France"),
    ("AMS", "Schiphol", "Amsterdam", "Netherlands"),
    ("FRA", "Frankfurt Airport", "Frankfurt", "Germany"),
    ("LAX", "Los Angeles International", "Los Angeles", "United States"),
    ("AUS", "Austin-Bergstrom International", "Austin", "United States"),
    ("PHX", "Phoenix Sky Harbor International", "Phoenix", "United States"),
    ("MSP", "Minneapolis-Saint Paul International", "Minneapolis", "United States"),
    ("YVR", "Vancouver International", "Vancouver", "Canada"),
    ("MEX", "Mexico City International", "Mexico City", "Mexico"),
    ("CUN", "Cancun International", "Cancun", "Mexico"),
    ("KEF", "Keflavik International", "Reykjavik", "Iceland"),
    ("ZRH", "Zurich Airport", "Zurich", "Switzerland"),
    ("FCO", "Leonardo da Vinci-Fiumicino", "Rome", "Italy"),
    ("BCN", "Josep Tarradellas Barcelona-El Prat", "Barcelona", "Spain"),
    ("CPH", "Copenhagen Airport", "Copenhagen", "Denmark"),
    ("EWR", "Newark Liberty International", "Newark", "United States"),
    ("IAD", "Washington Dulles International", "Washington", "United States"),
]

AIRLINES = [
    ("NA", "Northstar Air", "skyways"), ("CB", "Coastal Blue", "horizon"), ("PW", "Pinewood Airways", "none"),
    ("SR", "Sierra Regional", "skyways"), ("TL", "Tidal Airlines", "horizon"), ("MJ", "Meridian Jet", "none"),
]
MODELS = ["Airbus A220-300", "Embraer E195-E2", "Boeing 737-800", "Airbus A321neo"]

FARES = [  # code, name, cabin, refundable, refund fee, changeable, change fee, free bags, free seat, miles/$
    ("basic", "Basic Economy", "economy", 0, 0, 0, 0, 0, 0, 2),
    ("standard", "Standard Economy", "economy", 1, 10000, 1, 7500, 1, 1, 5),
    ("flex", "Flex Economy", "economy", 1, 0, 1, 0, 2, 1, 7),
    ("business", "Business", "business", 1, 0, 1, 0, 2, 1, 10),
]
FARE_SEATS = {"basic": 12, "standard": 16, "flex": 8, "business": 8}
FARE_MULT = {"basic": 1.0, "standard": 1.35, "flex": 1.9, "business": 3.2}
PNR_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

BUSINESS_ROWS = [1, 2]
ECONOMY_ROWS = [10, 11, 12, 13, 14, 15]
LEGROOM_ROW = 10


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng = ctx.rng
    tools = ctx.tools  # the seat and bag fees, miles and exit-row age the tools apply
    now = ctx.clock.replace(microsecond=0)
    T = Tables((
        "airports", "airlines", "aircraft", "aircraft_seats", "fare_rules", "flights", "flight_fares", "customers",
        "loyalty_accounts", "travellers", "bookings", "booking_passengers", "segments", "seat_assignments",
        "checked_bags", "payments", "booking_changes", "miles_transactions"))

    # --- network -------------------------------------------------------------------------------
    n_airports = ctx.n(12, 30)
    for i, (code, name, city, country) in enumerate(AIRPORTS[:n_airports], 1):
        T["airports"].append({"id": i, "code": code, "name": name, "city": city, "country": country})
    n_airlines = ctx.n(3, 6)
    for i, (code, name, alliance) in enumerate(AIRLINES[:n_airlines], 1):
        T["airlines"].append({"id": i, "code": code, "name": name, "alliance": alliance})
    seat_id = 0
    seats_by_aircraft: dict[int, list[Row]] = {}
    aircraft_by_airline: dict[int, list[int]] = {}
    n_aircraft = ctx.n(4, 30)
    for i in range(1, n_aircraft + 1):
        airline_id = (i - 1) % n_airlines + 1
        code = AIRLINES[airline_id - 1][0]
        T["aircraft"].append({"id": i, "airline_id": airline_id, "registration": f"N{300 + i * 7}{code}",
                              "model": MODELS[(i - 1) % len(MODELS)]})
        aircraft_by_airline.setdefault(airline_id, []).append(i)
        seats = []
        for row in BUSINESS_ROWS:
            for letter, pos in (("A", "window"), ("C", "aisle"), ("D", "aisle"), ("F", "window")):
                seat_id += 1
                seats.append({"id": seat_id, "aircraft_id": i, "seat_number": f"{row}{letter}", "cabin": "business",
                              "position": pos, "extra_legroom": 0})
        for row in ECONOMY_ROWS:
            for letter, pos in (("A", "window"), ("B", "middle"), ("C", "aisle"), ("D", "aisle"), ("E", "middle"),
                                ("F", "window")):
                seat_id += 1
                seats.append({"id": seat_id, "aircraft_id": i, "seat_number": f"{row}{letter}", "cabin": "economy",
                              "position": pos, "extra_legroom": 1 if row == LEGROOM_ROW else 0})
        seats_by_aircraft[i] = seats
        T["aircraft_seats"] += seats
    for i, fr in enumerate(FARES, 1):
        T["fare_rules"].append({"id": i, "code": fr[0], "name": fr[1], "cabin": fr[2], "refundable": fr[3],
                                "refund_fee_cents": fr[4], "changeable": fr[5], "change_fee_cents": fr[6],
                                "free_bags": fr[7], "free_seat_choice": fr[8], "miles_per_dollar": fr[9]})
    fare_rule = {fr[0]: dict(zip(("code", "name", "cabin", "refundable", "refund_fee", "changeable", "change_fee",
                                  "free_bags", "free_seat", "mpd"), fr)) | {"id": i}
                 for i, fr in enumerate(FARES, 1)}

    # routes: pairs of airports flown both ways by one airline
    n_pairs = ctx.n(4, 34)
    pairs: list[tuple[int, int]] = []
    seen_pairs: set[tuple[int, int]] = set()
    while len(pairs) < n_pairs:
        a, b = rng.sample(range(1, n_airports + 1), 2)
        key = (min(a, b), max(a, b))
        if key in seen_pairs:
            continue
        seen_pairs.add(key)
        pairs.append((a, b))
    fares_of: dict[int, dict[str, Row]] = {}
    flights_by_route: dict[tuple[int, int], list[Row]] = {}
    used_numbers: set[str] = set()
    for pi, (a, b) in enumerate(pairs):
        airline_id = pi % n_airlines + 1
        code = AIRLINES[airline_id - 1][0]
        base_price = rng.randrange(89, 420)
        duration = rng.randrange(75, 420, 5)
        for direction, (o, d) in enumerate(((a, b), (b, a))):
            num = ctx.unique(lambda: f"{code} {rng.randrange(100, 990)}", used_numbers)
            days = sorted(rng.sample(range(-9, 16), ctx.n(7, 12)))
            hour = rng.choice([6, 8, 11, 14, 17, 20])
            for day in days:
                dep = (now.replace(hour=hour, minute=rng.choice([0, 15, 30, 45]), second=0) + timedelta(days=day))
                arr = dep + timedelta(minutes=duration)
                if arr < now:
                    status = "cancelled" if ctx.chance(0.05) else "landed"
                elif dep < now:
                    status = "departed"
                else:
                    r = rng.random()
                    status = "delayed" if r < 0.1 else "cancelled" if r < 0.14 else "scheduled"
                delay = rng.randrange(20, 185, 5) if status == "delayed" else 0
                fl = T.add("flights", {
                    "airline_id": airline_id, "flight_number": num,
                    "aircraft_id": rng.choice(aircraft_by_airline[airline_id]), "origin_id": o, "destination_id": d,
                    "departure_at": _iso(dep), "arrival_at": _iso(arr), "status": status, "delay_minutes": delay,
                    "gate": f"{rng.choice('ABCDE')}{rng.randrange(1, 40)}" if -1 <= day <= 2 else None})
                flights_by_route.setdefault((o, d), []).append(fl)
                fares_of[fl["id"]] = {}
                wiggle = rng.uniform(0.85, 1.25)
                for fcode in ("basic", "standard", "flex", "business"):
                    price = int(round(base_price * FARE_MULT[fcode] * wiggle)) * 100
                    fares_of[fl["id"]][fcode] = T.add("flight_fares", {
                        "flight_id": fl["id"], "fare_rule_id": fare_rule[fcode]["id"], "price_cents": price,
                        "seats_total": FARE_SEATS[fcode], "seats_left": FARE_SEATS[fcode]})
    flights = T["flights"]
    routes = list(flights_by_route)

    # --- people ---------------------------------------------------------------------------------
    n_customers = ctx.n(18, 330)
    used_emails: set[str] = set()
    used_names: set[str] = set()
    travellers_of: dict[int, list[Row]] = {}
    accounts: dict[int, Row] = {}
    bonus_left: dict[int, int] = {}
    miles_rows: list[Row] = []

    def add_customer(full: str, first: str, last: str) -> Row:
        dom = ctx.pick(["example.com", "mailbox.org", "fastmail.com", "inbox.net"])
        email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.choice(['', '', str(rng.randrange(2, 99))])}@{dom}",
                           used_emails)
        created = ctx.moment_ago(200, 1500)
        c = T.add("customers", {"email": email, "full_name": full, "phone": ctx.faker.numerify("+1 ###-###-####"),
                                "created_at": _iso(created)})
        cid = c["id"]
        tier = ctx.weighted({"member": 0.55, "silver": 0.3, "gold": 0.15})
        acc = {"id": cid, "customer_id": cid, "member_number": f"NA{1000000 + cid * 37:07d}", "tier": tier,
               "miles_balance": 0, "joined_at": _iso(created + timedelta(days=1))}
        T["loyalty_accounts"].append(acc)
        accounts[cid] = acc
        bonus = rng.randrange(20, 700) * 100
        miles_rows.append({"account_id": cid, "booking_id": None, "kind": "bonus", "miles": bonus,
                           "note": "welcome and partner bonus", "created_at": acc["joined_at"]})
        acc["miles_balance"] += bonus
        bonus_left[cid] = bonus
        return c

    def add_traveller(cid: int, first: str, last: str, dob: str, holder: int) -> Row:
        t = T.add("travellers", {"customer_id": cid, "first_name": first, "last_name": last, "date_of_birth": dob,
                                 "passport_number": (ctx.faker.bothify("??#######").upper() if ctx.chance(0.7)
                                                     else None),
                                 "is_holder": holder})
        travellers_of.setdefault(cid, []).append(t)
        return t

    for _ in range(n_customers):
        first = ctx.faker.first_name()
        last = ctx.faker.last_name()
        full = f"{first} {last}"
        if full in used_names:
            continue
        used_names.add(full)
        c = add_customer(full, first, last)
        add_traveller(c["id"], first, last, ctx.days_ago(365 * 22, 365 * 70).isoformat(), 1)
        others = ctx.weighted({0: 0.3, 1: 0.3, 2: 0.25, 3: 0.15})
        for k in range(others):
            if k == 0 and ctx.chance(0.7):
                fn, dob = ctx.faker.first_name(), ctx.days_ago(365 * 22, 365 * 65).isoformat()
            else:
                fn, dob = ctx.faker.first_name(), ctx.days_ago(365 * 2, 365 * 17).isoformat()
            if any(t["first_name"] == fn for t in travellers_of[c["id"]]):
                continue
            add_traveller(c["id"], fn, last, dob, 0)
    if ctx.distractors:
        base = list(T["customers"])
        for c in base[: max(3, len(base) // 5)]:
            first, last = c["full_name"].split(" ", 1)
            twin = add_customer(c["full_name"], first, last)
            add_traveller(twin["id"], first, last, ctx.days_ago(365 * 22, 365 * 70).isoformat(), 1)
        for c in base[: max(3, len(base) // 6)]:
            other = T["customers"][(c["id"] * 7) % len(T["customers"])]
            if other["id"] == c["id"]:
                continue
            src = travellers_of[c["id"]][-1]
            if any(t["first_name"] == src["first_name"] and t["last_name"] == src["last_name"]
                   for t in travellers_of[other["id"]]):
                continue
            add_traveller(other["id"], src["first_name"], src["last_name"],
                          ctx.days_ago(365 * 18, 365 * 60).isoformat(), 0)

    # --- bookings ------------------------------------------------------------------------------
    used_pnrs: set[str] = set()
    flying: set[tuple[int, int]] = set()  # (flight, traveller) on live bookings
    events: list[tuple[str, int, Row]] = []  # (when, order, miles row) for the ledger
    seat_taken: set[tuple[int, int]] = set()
    bag_no = [0]

    def pnr() -> str:
        return ctx.unique(lambda: "".join(rng.choice(PNR_ALPHABET) for _ in range(6)), used_pnrs)

    def pay(bid: int, kind: str, purpose: str, method: str, cents: int, when: datetime) -> None:
        if cents > 0:
            T.add("payments", {"booking_id": bid, "kind": kind, "purpose": purpose, "method": method,
                               "amount_cents": cents, "created_at": _iso(when)})

    def make(cid: int, kind: str, legs: list[Row], fare: str, pax: list[Row], paid_with: str = "card",
             seat_p: float = 0.5, bag_p: float = 0.3) -> Row | None:
        n = len(pax)
        live = kind in ("held", "ticketed")
        if live:
            for fl in legs:
                if fares_of[fl["id"]][fare]["seats_left"] < n:
                    return None
                if any((fl["id"], t["id"]) in flying for t in pax):
                    return None
        first_dep = datetime.fromisoformat(legs[0]["departure_at"])
        acc = accounts[cid]
        if kind == "held":
            created = now - timedelta(minutes=rng.randrange(30, 1300))
            if first_dep - timedelta(hours=3) <= now + timedelta(hours=1):
                return None
        elif first_dep < now:
            created = first_dep - timedelta(days=rng.randrange(3, 40), minutes=rng.randrange(0, 900))
        else:
            created = now - timedelta(days=rng.randrange(1, 30), minutes=rng.randrange(0, 900))
        ticketed_at = created + timedelta(minutes=rng.randrange(3, 90)) if kind in ("ticketed", "refunded") else None
        total = sum(fares_of[fl["id"]][fare]["price_cents"] * n for fl in legs)
        if kind in ("ticketed", "refunded") and paid_with == "miles":
            if bonus_left[cid] < total:
                paid_with = "card"
            else:
                bonus_left[cid] -= total
        hold = None
        if kind == "held":
            hold = min(created + timedelta(hours=24), first_dep - timedelta(hours=3))
        cancelled_at = None
        if kind in ("cancelled", "refunded"):
            start = ticketed_at or created
            cancelled_at = start + (now - start) * rng.uniform(0.1, 0.9)
        b = T.add("bookings", {
            "pnr": pnr(), "customer_id": cid, "status": kind, "paid_with": paid_with if ticketed_at else None,
            "created_at": _iso(created), "hold_expires_at": _iso(hold) if hold else None,
            "ticketed_at": _iso(ticketed_at) if ticketed_at else None,
            "cancelled_at": _iso(cancelled_at) if cancelled_at else None})
        bid = b["id"]
        for t in pax:
            T.add("booking_passengers", {"booking_id": bid, "traveller_id": t["id"]})
        segs = []
        for fl in legs:
            ff = fares_of[fl["id"]][fare]
            seg = T.add("segments", {"booking_id": bid, "flight_id": fl["id"], "flight_fare_id": ff["id"],
                                     "fare_cents": ff["price_cents"], "status": "active" if live else "cancelled"})
            segs.append((seg, fl))
            if live:
                ff["seats_left"] -= n
                for t in pax:
                    flying.add((fl["id"], t["id"]))
        if ticketed_at is None:
            return b
        pay(bid, "charge", "fare", paid_with, total, ticketed_at)
        if paid_with == "miles":
            events.append((b["ticketed_at"], bid, {"account_id": cid, "booking_id": bid, "kind": "redemption",
                                                    "miles": -total, "note": f"ticket {b['pnr']}",
                                                    "created_at": b["ticketed_at"]}))
            acc["miles_balance"] -= total
        else:
            earned = sum(tools._miles_for(fares_of[fl["id"]][fare]["price_cents"] * n, fare_rule[fare]["mpd"],
                                          acc["tier"]) for fl in legs)
            if earned:
                events.append((b["ticketed_at"], bid, {"account_id": cid, "booking_id": bid, "kind": "accrual",
                                                        "miles": earned, "note": f"ticket {b['pnr']}",
                                                        "created_at": b["ticketed_at"]}))
                acc["miles_balance"] += earned
        if kind == "refunded":
            refund = sum(max(fares_of[fl["id"]][fare]["price_cents"] - fare_rule[fare]["refund_fee"], 0) * n
                         for fl in legs)
            pay(bid, "refund", "cancellation", paid_with, refund, cancelled_at)
            if paid_with == "miles":
                mrow = {"account_id": cid, "booking_id": bid, "kind": "refund", "miles": refund,
                        "note": f"refund {b['pnr']}", "created_at": b["cancelled_at"]}
                acc["miles_balance"] += refund
            else:
                back = earned
                mrow = {"account_id": cid, "booking_id": bid, "kind": "reversal", "miles": -back,
                        "note": f"cancelled {b['pnr']}", "created_at": b["cancelled_at"]}
                acc["miles_balance"] -= back
            if mrow["miles"]:
                events.append((b["cancelled_at"], bid, mrow))
            return b
        # seats and bags on ticketed bookings
        extra_time = ticketed_at + timedelta(minutes=rng.randrange(5, 600))
        if extra_time >= now:
            extra_time = now - timedelta(minutes=5)
        cabin = fare_rule[fare]["cabin"]
        for seg, fl in segs:
            if fl["status"] == "cancelled":
                continue
            for t in pax:
                if ctx.chance(seat_p):
                    options = [s for s in seats_by_aircraft[fl["aircraft_id"]] if s["cabin"] == cabin
                               and (fl["id"], s["id"]) not in seat_taken
                               and (not s["extra_legroom"]
                                    or tools._age_on(t["date_of_birth"], fl["departure_at"]) >= tools.EXIT_ROW_MIN_AGE)]
                    if options:
                        s = ctx.pick(options)
                        seat_taken.add((fl["id"], s["id"]))
                        fee = tools._seat_fee(fare, acc["tier"], s["extra_legroom"])
                        T.add("seat_assignments", {"segment_id": seg["id"], "flight_id": fl["id"],
                                                   "traveller_id": t["id"], "seat_id": s["id"], "fee_cents": fee})
                        pay(bid, "charge", "seat", "card", fee, extra_time)
                if ctx.chance(bag_p):
                    free = tools._free_bags(fare_rule[fare], acc["tier"])
                    for k in range(1, rng.choice([1, 1, 2]) + 1):
                        bag_no[0] += 1
                        fee = tools._bag_fee(k, free)
                        code = T["airlines"][fl["airline_id"] - 1]["code"]
                        T["checked_bags"].append({"id": bag_no[0], "segment_id": seg["id"], "traveller_id": t["id"],
                                                  "tag_number": f"{code}{100000 + bag_no[0] * 13:06d}",
                                                  "fee_cents": fee, "added_at": _iso(extra_time)})
                        pay(bid, "charge", "bag", "card", fee, extra_time)
        return b

    def pick_legs(want_future: bool, round_trip: bool, allow_cancelled: bool = False) -> list[Row] | None:
        for _ in range(20):
            o, d = ctx.pick(routes)
            out = [f for f in flights_by_route[(o, d)]
                   if (f["departure_at"] > _iso(now + timedelta(hours=6))) == want_future
                   and (allow_cancelled or f["status"] != "cancelled")
                   and (want_future or f["status"] == "landed")]
            if not out:
                continue
            first = ctx.pick(out)
            if not round_trip:
                return [first]
            back = [f for f in flights_by_route.get((d, o), []) if f["departure_at"] > first["arrival_at"]
                    and f["status"] != "cancelled" and (f["status"] == "landed" if not want_future else
                                                        f["departure_at"] > _iso(now + timedelta(hours=6)))]
            if back:
                return [first, ctx.pick(back)]
        return None

    def party(cid: int, k: int | None = None) -> list[Row]:
        ts = travellers_of[cid]
        k = k or min(len(ts), ctx.weighted({1: 0.45, 2: 0.35, 3: 0.2}))
        return [ts[0]] + ctx.sample(ts[1:], k - 1)

    customers = [c for c in T["customers"]]
    # planted: an airline-cancelled future flight with a ticketed booking and a later flight on its route
    planted_done = False
    for (o, d) in routes:
        fut = sorted((f for f in flights_by_route[(o, d)] if f["departure_at"] > _iso(now + timedelta(days=1))),
                     key=lambda f: f["departure_at"])
        if len(fut) < 3:
            continue
        fut[0]["status"], fut[0]["delay_minutes"] = "cancelled", 0
        for f in fut[1:]:
            if f["status"] == "cancelled":
                f["status"] = "scheduled"
        for c in customers[:2] if not planted_done else customers[2:3]:
            make(c["id"], "ticketed", [fut[0]], ctx.pick(["basic", "standard", "flex"]), party(c["id"]), seat_p=0.0)
        planted_done = True
        if len(T["bookings"]) >= 3:
            break
    # planted: changeable ticketed one-way bookings and running holds
    for c in customers[3:6]:
        legs = pick_legs(True, False)
        if legs:
            make(c["id"], "ticketed", legs, ctx.pick(["standard", "flex"]), party(c["id"]), seat_p=0.3)
    for c in customers[6:8]:
        legs = pick_legs(True, ctx.chance(0.5))
        if legs:
            make(c["id"], "held", legs, ctx.pick(["basic", "standard", "flex"]), party(c["id"]))
    # everyone else
    for c in customers:
        for _ in range(ctx.weighted({1: 0.4, 2: 0.4, 3: 0.2})):
            kind = ctx.weighted({"ticketed": 0.45, "past": 0.2, "held": 0.1, "cancelled": 0.1, "refunded": 0.1,
                                 "expired": 0.05})
            future = kind != "past"
            legs = pick_legs(future, ctx.chance(0.4))
            if not legs:
                continue
            fare = ctx.weighted({"basic": 0.3, "standard": 0.4, "flex": 0.15, "business": 0.15})
            if kind == "refunded" and fare == "basic":
                fare = "standard"
            pw = "miles" if ctx.chance(0.15) else "card"
            if kind == "past":
                make(c["id"], "ticketed", legs, fare, party(c["id"]), pw)
            elif kind == "expired":
                b = make(c["id"], "held", legs, fare, party(c["id"]))
                if b is not None:
                    created = now - timedelta(days=rng.randrange(2, 5), minutes=rng.randrange(0, 600))
                    b["created_at"] = _iso(created)
                    b["hold_expires_at"] = _iso(created + timedelta(hours=24))
            else:
                make(c["id"], kind, legs, fare, party(c["id"]), pw)

    # planted (only where chance left none): a ticketed party of two or more on a future flight, some of whom
    # have no seat yet on that flight
    def has_unseated_party() -> bool:
        pax_of: dict[int, list[int]] = {}
        for bp in T["booking_passengers"]:
            pax_of.setdefault(bp["booking_id"], []).append(bp["traveller_id"])
        seated = {(sa["segment_id"], sa["traveller_id"]) for sa in T["seat_assignments"]}
        segs_of: dict[int, list[Row]] = {}
        for seg in T["segments"]:
            segs_of.setdefault(seg["booking_id"], []).append(seg)
        for b in T["bookings"]:
            if b["status"] != "ticketed" or len(pax_of.get(b["id"], [])) < 2:
                continue
            active = [seg for seg in segs_of.get(b["id"], []) if seg["status"] == "active"]
            for seg in active:
                fl = flights[seg["flight_id"] - 1]
                if fl["status"] not in ("scheduled", "delayed") or fl["departure_at"] <= _iso(now):
                    continue
                if sum(flights[x["flight_id"] - 1]["destination_id"] == fl["destination_id"] for x in active) != 1:
                    continue
                if any((seg["id"], t) not in seated for t in pax_of[b["id"]]):
                    return True
        return False

    if not has_unseated_party():
        names = [c["full_name"] for c in T["customers"]]
        hosts = [c for c in reversed(customers) if len(travellers_of[c["id"]]) >= 2
                 and names.count(c["full_name"]) == 1]
        future = [f for f in flights if f["status"] in ("scheduled", "delayed")
                  and f["departure_at"] > _iso(now + timedelta(days=1))]
        done = None
        for c in hosts:
            k = min(len(travellers_of[c["id"]]), 3)
            for fl in future:
                done = make(c["id"], "ticketed", [fl], "standard", travellers_of[c["id"]][:k], seat_p=0.0)
                if done is not None:
                    break
            if done is not None:
                break

    # the miles ledger in time order (balances already accumulated)
    events.sort(key=lambda e: (e[0], e[1]))
    all_miles = miles_rows + [e[2] for e in events]
    all_miles.sort(key=lambda m: m["created_at"])
    running: dict[int, int] = {}
    for i, m in enumerate(all_miles, 1):
        m["id"] = i
        running[m["account_id"]] = running.get(m["account_id"], 0) + m["miles"]
        assert running[m["account_id"]] >= 0
    T["miles_transactions"] = [{"id": m["id"], "account_id": m["account_id"], "booking_id": m["booking_id"],
                                "kind": m["kind"], "miles": m["miles"], "note": m["note"],
                                "created_at": m["created_at"]} for m in all_miles]
    T["payments"].sort(key=lambda p: (p["created_at"], p["id"]))
    for i, p in enumerate(T["payments"], 1):
        p["id"] = i
    order = ["airports", "airlines", "aircraft", "aircraft_seats", "fare_rules", "flights", "flight_fares",
             "customers", "loyalty_accounts", "travellers", "bookings", "booking_passengers", "segments",
             "seat_assignments", "checked_bags", "payments", "booking_changes", "miles_transactions"]
    return {k: T[k] for k in order}
