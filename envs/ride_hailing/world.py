"""World builder for ride_hailing: zones, fare rules, riders, drivers with vehicles, rides and payouts.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Every random choice comes from
``ctx.rng`` / ``ctx.faker`` and every timestamp from ``ctx.clock``. The rows keep the invariants ``tools.py``
relies on:

- routes exist for every ordered pair of zones; completed fares follow the category's rule with the surge
  locked at request; estimated fares use the route;
- a completed ride's promo credit never exceeds the rider's balance at that moment (riders.credit_cents is
  the sum of credit_transactions); driver earnings are 80% of the fare (or of a cancellation fee);
- rides follow the state machine (requested < accepted < started < completed; cancellation fees only after
  acceptance); a driver is ``on_trip`` exactly when they hold an accepted or in-progress ride, and a rider
  has at most one unfinished immediate ride; drivers drive vehicles of the ride's category;
- tips only on completed rides, at most the fare and $50; ratings at most once each way; lost-item reports
  on completed rides; weekly payouts (periods ending on Sundays) cover exactly the rides and tips linked to
  them; every timestamp lies before the clock.

Planted for the templates: waiting requests with an available driver of the right category in the pickup
zone, accepted rides, completed rides of the last week without tip or rating, riders with Home and Work
places, and the promo code RIDE5 redeemable by everyone who has not used it.

With ``ctx.distractors``: namesake riders (same full name, other e-mail), drivers sharing a first and last
name, and payment methods labelled alike (two Visa cards).
Waiting requests then go to drivers without a namesake where possible, and every world gets at least one
request whose driver has no namesake.
"""

from __future__ import annotations

import math
import unicodedata
from datetime import date, datetime, time, timedelta
from typing import Any

from awm.tooling import iso_seconds as _ts
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

ZONES = [("Downtown", 0, 0), ("Midtown", 2, 3), ("Harborfront", -3, -1), ("Airport", 12, -6),
         ("University District", -2, 5), ("Eastside", 6, 1), ("Westend", -6, 2), ("Uptown", 3, 7),
         ("Old Mill", 5, -5), ("Lakeshore", -4, 8), ("Riverbend", 8, 6), ("Southgate", 0, -7)]
CATEGORIES = [("standard", "Standard", 4, 250, 120, 25, 700, 500),
              ("xl", "XL", 6, 400, 180, 35, 1000, 700),
              ("premium", "Premium", 4, 600, 250, 50, 1500, 1000)]
CARS = {"standard": [("Toyota", "Corolla"), ("Honda", "Civic"), ("Hyundai", "Elantra"), ("Kia", "Niro"),
                     ("Toyota", "Prius")],
        "xl": [("Toyota", "Sienna"), ("Honda", "Odyssey"), ("Chevrolet", "Suburban"), ("Kia", "Carnival")],
        "premium": [("Mercedes-Benz", "E-Class"), ("BMW", "5 Series"), ("Tesla", "Model S"), ("Audi", "A6")]}
COLORS = ["Black", "White", "Silver", "Gray", "Blue", "Red"]
STREETS = ["Pier Street", "Main Street", "Cedar Avenue", "Lake Road", "College Avenue", "Mill Lane", "Hill Street",
           "Union Square", "Park Avenue", "Market Street", "Bay Road", "Elm Court", "Front Street", "Grove Lane"]
CARD_BRANDS = ["Visa", "Mastercard", "Amex"]


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower().replace("'", "").replace(" ", "")


class _World:
    def __init__(self, ctx: WorldContext):
        self.ctx = ctx
        self.tools = ctx.tools  # the fare rule and the driver's share the tools apply
        self.rng = ctx.rng
        self.now = ctx.clock.replace(microsecond=0)
        self.t = Tables((
            "zones", "zone_routes", "vehicle_categories", "riders", "payment_methods", "saved_places", "drivers",
            "vehicles", "promo_codes", "promo_redemptions", "driver_payouts", "rides", "tips", "ride_ratings",
            "credit_transactions", "lost_items"))
        self.emails: set[str] = set()
        self.phones: set[str] = set()
        self.plates: set[str] = set()
        self.route: dict[tuple[int, int], tuple[int, int]] = {}
        self.balance: dict[int, int] = {}
        self.vehicle_of: dict[int, Row] = {}
        self.busy_riders: set[int] = set()

    def phone(self) -> str:
        return self.ctx.unique(lambda: f"555-{self.rng.randint(200, 999)}-{self.rng.randint(1000, 9999)}", self.phones)

    def street(self) -> str:
        return f"{self.rng.randint(1, 900)} {self.ctx.pick(STREETS)}"

    def email(self, first: str, last: str, domain: str) -> str:
        base = f"{_ascii(first)}.{_ascii(last)}"
        return self.ctx.unique(lambda: f"{base}{self.ctx.pick(['', '', str(self.rng.randint(2, 99))])}@{domain}",
                               self.emails)

    # -- static ----------------------------------------------------------------------------------
    def build_geo(self) -> None:
        ctx = self.ctx
        zones = ZONES[: ctx.n(8, 12)]
        for name, _, _ in zones:
            surge = 150 if name == "Airport" else 125 if name == "Downtown" else ctx.weighted({100: 0.75, 125: 0.15,
                                                                                               175: 0.1})
            self.t.add("zones", {"name": name, "surge_pct": surge})
        for i, (_, x1, y1) in enumerate(zones):
            for j, (_, x2, y2) in enumerate(zones):
                km = 3.0 if i == j else math.hypot(x1 - x2, y1 - y2) * 1.3 + 1.5
                dk = int(round(km * 10))
                mins = int(round(km * 2.4 + 4))
                self.route[(i + 1, j + 1)] = (dk, mins)
                self.t.add("zone_routes", {"from_zone_id": i + 1, "to_zone_id": j + 1, "distance_decikm": dk,
                                           "duration_min": mins})
        for code, name, seats, base, km, mn, mini, fee in CATEGORIES:
            self.t.add("vehicle_categories", {"code": code, "name": name, "seats": seats, "base_fare_cents": base,
                                              "per_km_cents": km, "per_minute_cents": mn, "minimum_fare_cents": mini,
                                              "cancel_fee_cents": fee})
        d = lambda n: (self.now.date() + timedelta(days=n)).isoformat()  # noqa: E731
        for code, desc, credit, fr, to, mx, new in [
            ("RIDE5", "$5 off your next rides", 500, -30, 60, 100000, 0),
            ("WELCOME10", "$10 for your first ride", 1000, -365, 365, 100000, 1),
            ("SPRING15", "$15 spring credit", 1500, -90, -8, 5000, 0),
            ("SUMMER8", "$8 summer credit", 800, 24, 100, 5000, 0),
            ("AIRPORT4", "$4 for airport runs", 400, -20, 40, 3, 0),
        ]:
            self.t.add("promo_codes", {"code": code, "description": desc, "credit_cents": credit, "valid_from": d(fr),
                                       "valid_until": d(to), "max_redemptions": mx, "new_riders_only": new})

    # -- people ----------------------------------------------------------------------------------
    def new_rider(self, first: str, last: str) -> Row:
        ctx = self.ctx
        r = self.t.add("riders", {"full_name": f"{first} {last}", "email": self.email(first, last, ctx.pick(
            ["example.com", "mail.net", "inbox.org"])), "phone": self.phone(), "credit_cents": 0,
            "created_at": _ts(ctx.moment_ago(60, 900))})
        self.balance[r["id"]] = 0
        n = ctx.weighted({1: 0.4, 2: 0.45, 3: 0.15})
        made: list[Row] = []
        for k in range(n):
            kind = "card" if k == 0 else ctx.weighted({"card": 0.5, "paypal": 0.25, "apple_pay": 0.25})
            if kind == "card":
                brand = ctx.pick(CARD_BRANDS)
                if ctx.distractors and k > 0 and made and made[0]["kind"] == "card":
                    brand = made[0]["label"].split()[0]
                label = f"{brand} ending {ctx.rng.randint(1000, 9999)}"
                year = ctx.rng.randint(2025, 2031) if k > 0 else ctx.rng.randint(2027, 2031)
                expires = f"{year}-{ctx.rng.randint(1, 12):02d}"
            else:
                label, expires = ("PayPal" if kind == "paypal" else "Apple Pay"), None
            if any(m["label"] == label for m in made):
                continue
            made.append(self.t.add("payment_methods", {"rider_id": r["id"], "kind": kind, "label": label,
                                                       "expires": expires, "is_default": 1 if k == 0 else 0,
                                                       "is_active": 1, "added_at": _ts(ctx.moment_ago(20, 400))}))
        zones = self.t["zones"]
        for label, chance in (("Home", None), ("Work", 0.65), ("Gym", 0.2)):
            if chance is None or ctx.chance(chance):
                self.t.add("saved_places", {"rider_id": r["id"], "label": label, "address": self.street(),
                                            "zone_id": ctx.pick(zones)["id"]})
        return r

    def build_people(self) -> None:
        ctx = self.ctx
        for _ in range(ctx.n(30, 440)):
            self.new_rider(ctx.faker.first_name(), ctx.faker.last_name())
        if ctx.distractors:
            for r in list(self.t["riders"])[: ctx.n(6, 40)]:
                first, last = r["full_name"].split(" ", 1)
                self.new_rider(first, last)
        names: list[str] = []
        cats = self.t["vehicle_categories"]
        for i in range(ctx.n(22, 240)):
            first, last = ctx.faker.first_name(), ctx.faker.last_name()
            if ctx.distractors and names and ctx.chance(0.12):
                first, last = ctx.pick(names).split(" ", 1)
            names.append(f"{first} {last}")
            active = 1 if i < 3 or ctx.chance(0.95) else 0
            d = self.t.add("drivers", {"full_name": f"{first} {last}", "email": self.email(first, last, "drivers.gorides.com"),
                                       "phone": self.phone(), "zone_id": ctx.pick(self.t["zones"])["id"],
                                       "status": ctx.weighted({"available": 0.6, "offline": 0.4}) if active else "offline",
                                       "is_active": active, "joined_at": _ts(ctx.moment_ago(70, 1200))})
            cat = cats[i % 3] if i < 6 else ctx.weighted({cats[0]["id"]: 0.6, cats[1]["id"]: 0.25, cats[2]["id"]: 0.15})
            cat = cat if isinstance(cat, dict) else cats[cat - 1]
            if ctx.chance(0.15):
                self.vehicle(d, cats[0], (2008, 2015), 0)  # an older car, no longer driven
            self.vehicle_of[d["id"]] = self.vehicle(d, cat, (2017, 2026), 1)

    def vehicle(self, d: Row, cat: Row, years: tuple[int, int], active: int) -> Row:
        make, model = self.ctx.pick(CARS[cat["code"]])
        return self.t.add("vehicles", {"driver_id": d["id"], "category_id": cat["id"], "make": make, "model": model,
                                       "color": self.ctx.pick(COLORS), "plate": self.plate(),
                                       "year": self.ctx.rng.randint(*years), "is_active": active})

    def plate(self) -> str:
        letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
        return self.ctx.unique(lambda: "".join(self.ctx.pick(letters) for _ in range(3)) + f"-{self.rng.randint(1000, 9999)}",
                               self.plates)

    # -- rides -----------------------------------------------------------------------------------
    def credit(self, rider_id: int, amount: int, when: datetime, *, ride: Row | None = None, promo: Row | None = None) -> None:
        if amount:
            self.t.add("credit_transactions", {"rider_id": rider_id, "ride_id": ride and ride["id"],
                                               "promo_id": promo and promo["id"], "amount_cents": amount,
                                               "created_at": _ts(when)})
            self.balance[rider_id] += amount

    def driver_share(self, cents: int) -> int:
        return cents * self.tools.DRIVER_SHARE // 100

    def places(self, rider: Row) -> list[Row]:
        return [p for p in self.t["saved_places"] if p["rider_id"] == rider["id"]]

    def default_pm(self, rider: Row) -> Row:
        return next(m for m in self.t["payment_methods"] if m["rider_id"] == rider["id"] and m["is_default"])

    def endpoints(self, rider: Row, pickup_zone: int | None = None) -> tuple[str, int, str, int]:
        ctx = self.ctx
        ps = self.places(rider)
        zones = self.t["zones"]
        if pickup_zone is None:
            a = ctx.pick(ps)
            pa, pz = a["address"], a["zone_id"]
        else:
            home = [p for p in ps if p["zone_id"] == pickup_zone]
            pa, pz = (home[0]["address"], pickup_zone) if home else (self.street(), pickup_zone)
        others = [p for p in ps if p["address"] != pa]
        if others and ctx.chance(0.6):
            b = ctx.pick(others)
            da, dz = b["address"], b["zone_id"]
        else:
            z = ctx.pick(zones)
            da, dz = (("1 Airport Way, Terminal " + ctx.pick("ABC")) if z["name"] == "Airport" else self.street()), z["id"]
        if da == pa:
            da = "10 " + ctx.pick(STREETS) if not pa.startswith("10 ") else "12 " + ctx.pick(STREETS)
        return pa, pz, da, dz

    def new_ride(self, rider: Row, cat: Row, requested: datetime, status: str, driver: Row | None,
                 pickup_zone: int | None = None, surge: int | None = None) -> Row:
        ctx = self.ctx
        pa, pz, da, dz = self.endpoints(rider, pickup_zone)
        dk, mins = self.route[(pz, dz)]
        if surge is None:
            surge = ctx.weighted({100: 0.7, 125: 0.2, 150: 0.1})
        pm = self.default_pm(rider) if ctx.chance(0.8) else ctx.pick(
            [m for m in self.t["payment_methods"] if m["rider_id"] == rider["id"] and (m["expires"] is None or m["expires"] >= requested.strftime("%Y-%m"))])
        x = self.t.add("rides", {
            "rider_id": rider["id"], "category_id": cat["id"], "driver_id": None, "vehicle_id": None,
            "payment_method_id": pm["id"], "status": status, "pickup_address": pa, "pickup_zone_id": pz,
            "dropoff_address": da, "dropoff_zone_id": dz, "scheduled_for": None, "distance_decikm": dk,
            "duration_min": mins, "surge_pct": surge, "estimated_fare_cents": self.tools._fare(cat, dk, mins, surge),
            "fare_cents": None, "credit_applied_cents": 0, "cancellation_fee_cents": 0, "cancelled_by": None,
            "cancel_reason": None, "driver_earnings_cents": 0, "payout_id": None, "requested_at": _ts(requested),
            "accepted_at": None, "started_at": None, "completed_at": None, "cancelled_at": None})
        if driver is not None:
            x["driver_id"] = driver["id"]
            x["vehicle_id"] = self.vehicle_of[driver["id"]]["id"]
            x["accepted_at"] = _ts(requested + timedelta(seconds=ctx.rng.randint(20, 240)))
        return x

    def drivers_of(self, cat: Row, zone: int | None = None, status: str | None = None) -> list[Row]:
        return [d for d in self.t["drivers"] if d["is_active"] and self.vehicle_of[d["id"]]["category_id"] == cat["id"]
                and (zone is None or d["zone_id"] == zone) and (status is None or d["status"] == status)]

    def build_history(self) -> None:
        ctx = self.ctx
        cats = self.t["vehicle_categories"]
        events: list[tuple[datetime, str, Row, Any]] = []
        for r in self.t["riders"]:
            if ctx.chance(0.35):
                p = ctx.pick([p for p in self.t["promo_codes"] if p["code"] in ("SPRING15", "WELCOME10", "RIDE5")])
                lo = max(0, (self.now.date() - date.fromisoformat(p["valid_until"])).days) + 1
                hi = (self.now.date() - date.fromisoformat(p["valid_from"])).days
                if hi >= lo and (p["code"] != "RIDE5" or ctx.chance(0.4)):
                    events.append((ctx.moment_ago(lo, min(hi, lo + 40)), "promo", r, p))
            for _ in range(ctx.weighted({0: 0.1, 1: 0.15, 2: 0.2, 3: 0.2, 4: 0.15, 6: 0.12, 8: 0.08})):
                events.append((ctx.moment_ago(1.2, 45), "ride", r, None))
        events.sort(key=lambda e: (e[0], e[1], e[2]["id"]))
        for when, kind, r, p in events:
            if kind == "promo":
                if p["new_riders_only"] and any(x["rider_id"] == r["id"] and x["status"] == "completed" for x in self.t["rides"]):
                    continue
                if any(x["promo_id"] == p["id"] and x["rider_id"] == r["id"] for x in self.t["promo_redemptions"]):
                    continue
                self.t.add("promo_redemptions", {"promo_id": p["id"], "rider_id": r["id"], "redeemed_at": _ts(when)})
                self.credit(r["id"], p["credit_cents"], when, promo=p)
                continue
            cat = ctx.weighted({cats[0]["id"]: 0.65, cats[1]["id"]: 0.2, cats[2]["id"]: 0.15})
            cat = cats[cat - 1]
            pool = self.drivers_of(cat)
            fate = ctx.weighted({"completed": 0.84, "cancel_free": 0.08, "cancel_fee": 0.05, "cancel_driver": 0.03})
            x = self.new_ride(r, cat, when, "cancelled" if fate != "completed" else "completed",
                              ctx.pick(pool) if fate in ("completed", "cancel_fee") else None)
            if fate == "completed":
                self.complete(x, cat, r)
            else:
                x["cancelled_at"] = _ts(when + timedelta(minutes=ctx.rng.randint(2, 9)))
                x["cancelled_by"] = "driver" if fate == "cancel_driver" else "rider"
                x["cancel_reason"] = "other" if fate == "cancel_driver" else ctx.pick(
                    ["changed_plans", "driver_too_far", "wrong_pickup", "found_other_ride"])
                if fate == "cancel_fee":
                    x["cancellation_fee_cents"] = cat["cancel_fee_cents"]
                    x["driver_earnings_cents"] = self.driver_share(cat["cancel_fee_cents"])

    def complete(self, x: Row, cat: Row, r: Row, extras: bool = True) -> None:
        ctx = self.ctx
        acc = datetime.fromisoformat(x["accepted_at"])
        start = acc + timedelta(minutes=ctx.rng.randint(3, 9))
        dk = max(5, x["distance_decikm"] + ctx.rng.randint(-6, 9))
        mins = max(2, x["duration_min"] + ctx.rng.randint(-3, 6))
        end = start + timedelta(minutes=mins)
        f = self.tools._fare(cat, dk, mins, x["surge_pct"])
        credit = min(self.balance[r["id"]], f)
        x.update({"started_at": _ts(start), "completed_at": _ts(end), "distance_decikm": dk, "duration_min": mins,
                  "fare_cents": f, "credit_applied_cents": credit, "driver_earnings_cents": self.driver_share(f)})
        self.credit(r["id"], -credit, end, ride=x)
        if not extras:
            return
        cap = self.now - timedelta(minutes=10)
        if ctx.chance(0.35):
            self.t.add("tips", {"ride_id": x["id"],
                                "amount_cents": min(f, ctx.pick([100, 200, 300, 500, 500, 800, 1000])), "payout_id": None,
                                "created_at": _ts(min(end + timedelta(minutes=ctx.rng.randint(5, 600)), cap))})
        if ctx.chance(0.6):
            self.t.add("ride_ratings", {"ride_id": x["id"], "rated_by": "rider", "stars": ctx.weighted(
                {5: 0.55, 4: 0.25, 3: 0.1, 2: 0.06, 1: 0.04}), "comment": ctx.pick(
                ["", "", "", "Smooth ride", "Great music", "Car was not clean", "Took a longer route", "Very friendly"]),
                "created_at": _ts(min(end + timedelta(minutes=ctx.rng.randint(2, 300)), cap))})
        if ctx.chance(0.7):
            self.t.add("ride_ratings", {"ride_id": x["id"], "rated_by": "driver", "stars": ctx.weighted(
                {5: 0.7, 4: 0.2, 3: 0.06, 2: 0.03, 1: 0.01}), "comment": "",
                "created_at": _ts(min(end + timedelta(minutes=ctx.rng.randint(1, 60)), cap))})
        if ctx.chance(0.04):
            rep = min(end + timedelta(hours=ctx.rng.randint(1, 20)), cap)
            st = ctx.weighted({"reported": 0.4, "found": 0.2, "returned": 0.25, "not_found": 0.15})
            self.t.add("lost_items", {"ride_id": x["id"], "description": ctx.pick(
                ["Black umbrella", "Blue backpack with a laptop", "Set of keys on a red keyring", "AirPods case",
                 "Grey wool scarf", "Leather wallet"]), "contact_phone": r["phone"], "status": st,
                "reported_at": _ts(rep), "resolved_at": None if st == "reported" else _ts(min(rep + timedelta(hours=5), cap))})

    def build_live(self) -> None:
        ctx = self.ctx
        cats = self.t["vehicle_categories"]
        riders = list(self.t["riders"])
        ctx.rng.shuffle(riders)
        it = iter(riders)
        # completed in the last days, untouched (tips / ratings / lost items templates)
        for r in [next(it) for _ in range(ctx.n(6, 50))]:
            cat = cats[ctx.rng.randint(0, 2)]
            x = self.new_ride(r, cat, ctx.moment_ago(0.3, 5.5), "completed", ctx.pick(self.drivers_of(cat)))
            self.complete(x, cat, r, extras=False)
        # accepted / in progress: the driver is on the trip, in the pickup zone
        for status, n in (("accepted", ctx.n(3, 25)), ("in_progress", ctx.n(3, 25))):
            for _ in range(n):
                r = next(it)
                cat = cats[ctx.rng.randint(0, 2)]
                pool = self.drivers_of(cat, status="available")
                if len(pool) < 2:
                    continue
                d = ctx.pick(pool)
                mins = ctx.rng.randint(4, 9) if status == "accepted" else ctx.rng.randint(12, 25)
                x = self.new_ride(r, cat, self.now - timedelta(minutes=mins), status, d, pickup_zone=d["zone_id"],
                                  surge=self.zone_surge(d["zone_id"]))
                if status == "in_progress":
                    x["started_at"] = _ts(self.now - timedelta(minutes=ctx.rng.randint(1, 6)))
                d["status"] = "on_trip"
                self.busy_riders.add(r["id"])
        # waiting requests, each with an available driver of its category in the pickup zone
        def unique_name(d: Row) -> bool:
            return sum(o["full_name"] == d["full_name"] for o in self.t["drivers"]) == 1

        planted = False
        for _ in range(ctx.n(4, 30)):
            r = next(it)
            cat = cats[ctx.rng.randint(0, 2)]
            pool = self.drivers_of(cat, status="available")
            if ctx.distractors:
                # a driver without a namesake, so the driver-side templates can name them unambiguously
                pool = [d for d in pool if unique_name(d)] or pool
            if not pool:
                continue
            d = ctx.pick(pool)
            self.waiting_request(r, cat, d)
            planted = planted or unique_name(d)
        if not planted:
            # chance picked only categories without a free driver (or only namesakes): plant one request
            # for a driver without a namesake, so every world has a ride a named driver can take
            pools = [(c, [d for d in self.drivers_of(c, status="available") if unique_name(d)]) for c in cats]
            pools = [(c, p) for c, p in pools if p]
            if pools:
                cat, pool = ctx.pick(pools)
                d = ctx.pick(pool)
                self.waiting_request(next(it), cat, d)
        # scheduled rides: some due within 45 minutes, others later
        for k in range(ctx.n(4, 30)):
            r = next(it)
            cat = cats[ctx.rng.randint(0, 2)]
            x = self.new_ride(r, cat, ctx.moment_ago(0.5, 3), "scheduled", None, surge=100)
            when = self.now + (timedelta(minutes=ctx.rng.randint(20, 40)) if k % 2 == 0 else
                               timedelta(hours=ctx.rng.randint(5, 80)))
            x["scheduled_for"] = _ts(when.replace(second=0))

    def waiting_request(self, r: Row, cat: Row, d: Row) -> None:
        """A ride requested a few minutes ago in the zone of ``d``, an available driver of its category."""
        self.new_ride(r, cat, self.now - timedelta(minutes=self.ctx.rng.randint(1, 4)), "requested", None,
                      pickup_zone=d["zone_id"], surge=self.zone_surge(d["zone_id"]))
        self.busy_riders.add(r["id"])

    def zone_surge(self, zid: int) -> int:
        return self.t["zones"][zid - 1]["surge_pct"]

    def build_payouts(self) -> None:
        ctx = self.ctx
        today = self.now.date()
        last_sunday = today - timedelta(days=(today.weekday() + 1) % 7 or 7)
        sundays = [last_sunday - timedelta(weeks=k) for k in range(7, -1, -1)]
        tip_ride = {t["ride_id"]: t for t in self.t["tips"]}
        for d in self.t["drivers"]:
            rides = [x for x in self.t["rides"] if x["driver_id"] == d["id"] and x["driver_earnings_cents"] > 0
                     and x["status"] in ("completed", "cancelled")]
            for s in sundays:
                cut = _ts(datetime.combine(s + timedelta(days=1), time()))
                rs = [x for x in rides if x["payout_id"] is None and (x["completed_at"] or x["cancelled_at"]) < cut]
                ts = [tip_ride[x["id"]] for x in rides if x["id"] in tip_ride and tip_ride[x["id"]]["payout_id"] is None
                      and tip_ride[x["id"]]["created_at"] < cut]
                total = sum(x["driver_earnings_cents"] for x in rs) + sum(t["amount_cents"] for t in ts)
                if total < 2000:
                    continue
                req = datetime.combine(s + timedelta(days=1), time(ctx.rng.randint(7, 20), ctx.rng.randint(0, 59)))
                pending = s == last_sunday and ctx.chance(0.25)
                p = self.t.add("driver_payouts", {"driver_id": d["id"], "period_end": s.isoformat(), "rides_count": len(rs),
                                                  "amount_cents": total, "status": "pending" if pending else "paid",
                                                  "requested_at": _ts(req),
                                                  "paid_at": None if pending else _ts(req + timedelta(days=1))})
                for x in rs:
                    x["payout_id"] = p["id"]
                for t in ts:
                    t["payout_id"] = p["id"]

    def rows(self) -> dict[str, list[Row]]:
        for r in self.t["riders"]:
            r["credit_cents"] = self.balance[r["id"]]
        return self.t


def build(ctx: WorldContext) -> dict[str, list[dict]]:
    w = _World(ctx)
    w.build_geo()
    w.build_people()
    w.build_history()
    w.build_live()
    w.build_payouts()
    return w.rows()
