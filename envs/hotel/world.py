"""World builder for hotel: hotels with room types, rooms, rate plans and staff; guests with loyalty points;
reservations in every state with folios, room service, housekeeping and repair tasks.

``build(ctx)`` returns rows per table (parents first, explicit integer keys), a pure function of ``ctx``.
Each room gets a scenario for today (guest in house, due out today, left this morning, arrival to a clean
room, arrival to a room still being cleaned, unassigned arrival, vacant, out of order) and a timeline of
stays before and after it, so that:

- no room holds two active stays on the same night, and per room type the active reservations (assigned or
  not) never exceed the rooms in service on any night;
- checked-in stays cover today (arrived before today) and have room + tax posted at check-in; stays arriving
  today are still booked (check-in opens at 15:00); past stays are checked out with a folio that balances to
  zero, loyalty points earned at departure (10 per room dollar times the tier bonus);
- dirty rooms have an open cleaning task, out-of-order rooms an open repair task and no stays over the next
  days; cancellation and no-show fees follow the rate plan and the hotel's deadline;
- every guest's points balance is the sum of their transactions; every timestamp lies before the clock.

With ``ctx.distractors``: namesake guests (same full name, other e-mail).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

HOTELS = [
    ("SEA", "Larchmont Seattle Waterfront", "Seattle", "United States", 15, 48),
    ("BOS", "Larchmont Boston Common", "Boston", "United States", 14, 24),
    ("AUS", "Larchmont Austin Congress", "Austin", "United States", 17, 48),
    ("DEN", "Larchmont Denver Union Station", "Denver", "United States", 15, 72),
    ("CHI", "Larchmont Chicago Riverwalk", "Chicago", "United States", 17, 48),
    ("SFO", "Larchmont San Francisco Embarcadero", "San Francisco", "United States", 14, 72),
    ("NYC", "Larchmont New York Chelsea", "New York", "United States", 18, 48),
    ("MIA", "Larchmont Miami Brickell", "Miami", "United States", 13, 24),
    ("LIS", "Larchmont Lisbon Chiado", "Lisbon", "Portugal", 6, 48),
    ("DUB", "Larchmont Dublin Docklands", "Dublin", "Ireland", 9, 24),
    ("TOR", "Larchmont Toronto Harbourfront", "Toronto", "Canada", 13, 48),
    ("VAN", "Larchmont Vancouver Gastown", "Vancouver", "Canada", 12, 72),
]
ROOM_TYPES = [("KING", "Standard King", 2, 1.0), ("QUEEN", "Double Queen", 4, 1.12), ("JRS", "Junior Suite", 3, 1.6),
              ("STE", "One-Bedroom Suite", 4, 2.4)]
PLANS = [("BAR", "Best Available Rate", 1, 0, 1, 0, 0), ("ADV", "Advance Purchase", 0, 15, 1, 0, 0),
         ("MEM", "Member Rate", 1, 10, 1, 1, 1), ("STAY3", "Stay 3+ Nights", 1, 12, 3, 0, 0)]
MENU = [("Buttermilk pancakes", "breakfast", 1600), ("Eggs Benedict", "breakfast", 1900),
        ("Club sandwich", "main", 2100), ("Margherita pizza", "main", 2300), ("Caesar salad", "main", 1700),
        ("Cheeseburger and fries", "main", 2400), ("Chocolate lava cake", "dessert", 1200),
        ("Fresh orange juice", "drink", 800), ("Sparkling water", "drink", 600), ("Pot of coffee", "drink", 900)]
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"
SCENARIOS = ["inhouse", "due_out", "arrival_clean", "arrival_dirty", "arrival_unassigned", "left_today", "vacant", "ooo"]


def _at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute)


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng = ctx.rng
    tools = ctx.tools  # the rates, tray charge and loyalty points the tools charge and post
    now = ctx.clock.replace(microsecond=0)
    T = ctx.today
    past_days, future_days = ctx.n(8, 18), ctx.n(12, 24)
    out = Tables((
        "hotels", "room_types", "rooms", "rate_plans", "staff", "guests", "menu_items", "reservations", "folios",
        "folio_charges", "payments", "room_service_orders", "room_service_items", "housekeeping_tasks",
        "loyalty_transactions"))

    # --- guests ---------------------------------------------------------------------------------
    used_emails: set[str] = set()
    used_names: set[str] = set()
    points: dict[int, int] = {}
    loyalty: list[Row] = []

    def add_guest(full: str, first: str, last: str) -> Row:
        dom = ctx.pick(["example.com", "mailbox.org", "fastmail.com", "inbox.net"])
        email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.choice(['', '', str(rng.randrange(2, 99))])}@{dom}",
                           used_emails)
        created = ctx.moment_ago(90, 1200)
        tier = ctx.weighted({"none": 0.35, "silver": 0.3, "gold": 0.2, "platinum": 0.15})
        g = out.add("guests", {"email": email, "full_name": full, "phone": ctx.faker.numerify("+1 ###-###-####"),
                               "loyalty_tier": tier, "points_balance": 0, "created_at": _iso(created)})
        gid = g["id"]
        points[gid] = 0
        if tier != "none":
            bonus = rng.randrange(5, 120) * 100
            loyalty.append({"guest_id": gid, "reservation_id": None, "kind": "bonus", "points": bonus,
                            "created_at": _iso(created + timedelta(days=1))})
            points[gid] += bonus
        return g

    for _ in range(ctx.n(35, 420)):
        first, last = ctx.faker.first_name(), ctx.faker.last_name()
        if f"{first} {last}" in used_names:
            continue
        used_names.add(f"{first} {last}")
        add_guest(f"{first} {last}", first, last)
    if ctx.distractors:
        for g in list(out["guests"])[: max(4, len(out["guests"]) // 6)]:
            first, last = g["full_name"].split(" ", 1)
            add_guest(g["full_name"], first, last)
    guests = out["guests"]

    # --- hotels ---------------------------------------------------------------------------------
    used_codes: set[str] = set()
    counts_small = [3, 3, 1, 1]
    counts_large = [7, 6, 3, 2]
    staff_by_hotel: dict[int, dict[str, list[Row]]] = {}
    rooms_by_hotel: dict[int, list[Row]] = {}
    plans_by_hotel: dict[int, list[Row]] = {}
    types_by_id: dict[int, Row] = {}
    menu_by_hotel: dict[int, list[Row]] = {}
    for code, name, city, country, tax, deadline in HOTELS[: ctx.n(3, 12)]:
        hotel = out.add("hotels", {"code": code, "name": name, "city": city, "country": country, "tax_pct": tax,
                                   "cancel_deadline_hours": deadline, "check_in_time": "15:00", "check_out_time": "11:00"})
        hi = hotel["id"]
        base = rng.randrange(14, 30) * 1000
        tids = []
        for tcode, tname, occ, mult in ROOM_TYPES:
            row = out.add("room_types", {"hotel_id": hi, "code": tcode, "name": tname, "max_occupancy": occ,
                                         "base_rate_cents": int(base * mult) // 1000 * 1000})
            types_by_id[row["id"]] = row
            tids.append(row["id"])
        plans = []
        for pcode, pname, refundable, disc, minn, members, breakfast in PLANS:
            plans.append(out.add("rate_plans", {"hotel_id": hi, "code": pcode, "name": pname, "refundable": refundable,
                                                "discount_pct": disc, "min_nights": minn, "members_only": members,
                                                "breakfast": breakfast}))
        plans_by_hotel[hi] = plans
        staff_by_hotel[hi] = {}
        for role, k in (("manager", 1), ("front_desk", 2), ("housekeeping", 2), ("maintenance", 1)):
            for _ in range(k):
                first, last = ctx.faker.first_name(), ctx.faker.last_name()
                email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.choice(['', str(rng.randrange(2, 9))])}"
                                           f"@{code.lower()}.larchmonthotels.com", used_emails)
                srow = out.add("staff", {"hotel_id": hi, "full_name": f"{first} {last}", "email": email, "role": role})
                staff_by_hotel[hi].setdefault(role, []).append(srow)
        rooms = []
        n = 0
        for ti, k in enumerate(ctx.n(counts_small, counts_large)):  # type: ignore[arg-type]
            for _ in range(k):
                floor = 2 + n // 6
                rooms.append(out.add("rooms", {"hotel_id": hi, "room_type_id": tids[ti],
                                               "number": f"{floor}{n % 6 + 1:02d}", "floor": floor, "status": "clean",
                                               "out_of_order_reason": None}))
                n += 1
        rooms_by_hotel[hi] = rooms
        menu = []
        for mname, cat, price in MENU:
            menu.append(out.add("menu_items", {"hotel_id": hi, "name": mname, "category": cat,
                                               "price_cents": price + rng.choice([0, 0, 100, 200]), "available": 1}))
        ctx.pick(menu[:7])["available"] = 0
        menu_by_hotel[hi] = menu

    # --- reservations ----------------------------------------------------------------------------
    tasks: list[Row] = []

    def code() -> str:
        return ctx.unique(lambda: "".join(rng.choice(CODE_ALPHABET) for _ in range(6)), used_codes)

    def pick_plan(hi: int, g: Row, nights: int) -> Row:
        ok = [p for p in plans_by_hotel[hi] if p["min_nights"] <= nights and (not p["members_only"] or g["loyalty_tier"] != "none")]
        return ctx.pick(ok)

    def folio_for(rid: int, opened: datetime) -> Row:
        return out.add("folios", {"reservation_id": rid, "status": "open", "opened_at": _iso(opened),
                                  "closed_at": None})

    def charge(f: Row, kind: str, desc: str, cents: int, when: datetime, by: int | None) -> None:
        out["folio_charges"].append({"id": 0, "folio_id": f["id"], "kind": kind, "description": desc,
                                     "amount_cents": cents, "posted_by": by, "posted_at": _iso(when)})

    def pay(f: Row, method: str, cents: int, when: datetime, by: int | None) -> None:
        if cents > 0:
            out["payments"].append({"id": 0, "folio_id": f["id"], "method": method, "amount_cents": cents,
                                    "taken_by": by, "created_at": _iso(when)})

    def priced(hi: int, rt: Row, d1: date, d2: date) -> tuple[Row, int, Row, int]:
        """A guest for a stay, its nights, a rate plan the guest and stay qualify for, and the nightly rate."""
        g = ctx.pick(guests)
        nights = (d2 - d1).days
        plan = pick_plan(hi, g, nights)
        return g, nights, plan, tools._rate(rt["base_rate_cents"], plan["discount_pct"])

    def stay(hi: int, room: Row | None, rt: Row, d1: date, d2: date, status: str, assigned: bool = True,
             balance_due: bool = True, placed_order: bool = False) -> Row:
        g, nights, plan, rate = priced(hi, rt, d1, d2)
        created = min(_at(d1, 12) - timedelta(days=rng.randrange(2, 60), hours=rng.randrange(0, 20)),
                      now - timedelta(hours=rng.randrange(2, 300)))
        adults = rng.randint(1, min(2, rt["max_occupancy"]))
        children = rng.randint(0, rt["max_occupancy"] - adults) if ctx.chance(0.25) else 0
        r = out.add("reservations", {
            "confirmation_code": code(), "hotel_id": hi, "guest_id": g["id"], "room_type_id": rt["id"],
            "rate_plan_id": plan["id"], "room_id": room["id"] if (room and assigned) else None,
            "check_in_date": d1.isoformat(), "check_out_date": d2.isoformat(), "adults": adults, "children": children,
            "nightly_rate_cents": rate, "status": status, "created_at": _iso(created), "checked_in_at": None,
            "checked_out_at": None, "cancelled_at": None})
        rid = r["id"]
        f = folio_for(rid, created)
        if status in ("checked_in", "checked_out"):
            desk = ctx.pick(staff_by_hotel[hi]["front_desk"])
            cin = _at(d1, rng.randrange(15, 22), rng.choice([0, 10, 25, 40, 55]))
            r["checked_in_at"] = _iso(cin)
            room_total = rate * nights
            tax = room_total * out["hotels"][hi - 1]["tax_pct"] // 100
            charge(f, "room", f"Room {room['number']}, {nights} night(s) at {rate / 100:.2f}", room_total, cin, desk["id"])
            if tax:
                charge(f, "tax", f"Tax {out['hotels'][hi - 1]['tax_pct']}%", tax, cin, desk["id"])
            total = room_total + tax
            last_moment = now - timedelta(minutes=45) if status == "checked_in" else _at(d2, 7, rng.randrange(0, 59))
            if status == "checked_out" and d2 == T:
                last_moment = now - timedelta(minutes=rng.randrange(30, 150))
            if ctx.chance(0.3):
                when = cin + (last_moment - cin) * rng.uniform(0.2, 0.9)
                amt = rng.randrange(6, 46) * 100 + rng.choice([0, 50])
                charge(f, "minibar", ctx.pick(["Minibar: snacks", "Minibar: wine", "Minibar: water and soda"]), amt,
                       when, desk["id"])
                total += amt
            if ctx.chance(0.2):
                amt = 3500 * nights
                charge(f, "parking", f"Valet parking, {nights} night(s)", amt, cin, desk["id"])
                total += amt
            if ctx.chance(0.3) or placed_order:
                when = cin + (last_moment - cin) * rng.uniform(0.2, 0.9)
                if placed_order:
                    when = now - timedelta(minutes=rng.randrange(5, 40))
                items = ctx.sample([m for m in menu_by_hotel[hi] if m["available"]], rng.randint(1, 3))
                lines = [(m, rng.randint(1, 2)) for m in items]
                ototal = sum(m["price_cents"] * q for m, q in lines) + tools.ROOM_SERVICE_TRAY_CENTS
                delivered = not placed_order
                oid = out.add("room_service_orders", {
                    "reservation_id": rid, "status": "delivered" if delivered else "placed",
                    "total_cents": ototal, "placed_at": _iso(when),
                    "delivered_at": _iso(when + timedelta(minutes=rng.randrange(15, 40))) if delivered else None,
                    "delivered_by": ctx.pick(staff_by_hotel[hi]["front_desk"])["id"] if delivered else None})["id"]
                for m, q in lines:
                    out.add("room_service_items", {"order_id": oid, "menu_item_id": m["id"], "quantity": q,
                                                   "unit_price_cents": m["price_cents"]})
                charge(f, "room_service", f"Room service order {oid}", ototal, when, None)
                total += ototal
            if status == "checked_out":
                cout = last_moment
                r["checked_out_at"] = _iso(cout)
                deposit = (room_total // 2) if ctx.chance(0.4) else 0
                pay(f, "card", deposit, cin, desk["id"])
                pay(f, ctx.pick(["card", "card", "cash"]), total - deposit, cout, desk["id"])
                f["status"], f["closed_at"] = "closed", _iso(cout)
                if g["loyalty_tier"] != "none":
                    pts = tools._earned_points(room_total, g["loyalty_tier"])
                    loyalty.append({"guest_id": g["id"], "reservation_id": rid, "kind": "earn", "points": pts,
                                    "created_at": _iso(cout)})
                    points[g["id"]] += pts
            else:
                if not balance_due:
                    pay(f, "card", total, now - timedelta(minutes=30), desk["id"])
                elif ctx.chance(0.5):
                    pay(f, "card", room_total // 2, cin, desk["id"])
        return r

    def cancelled(hi: int, rt: Row, d1: date, d2: date, kind: str) -> None:
        g, nights, plan, rate = priced(hi, rt, d1, d2)
        created = min(_at(d1, 12) - timedelta(days=rng.randrange(5, 60)), now - timedelta(days=3))
        if kind == "no_show":
            when = _at(d1 + timedelta(days=1), 9, rng.randrange(0, 59))
            fee = rate * (1 if plan["refundable"] else nights)
            label, fkind = "No-show fee", "no_show_fee"
        else:
            end = min(now, _at(d1, 12))
            when = created + (end - created) * rng.uniform(0.1, 0.95)
            deadline = _at(d1, 15) - timedelta(hours=out["hotels"][hi - 1]["cancel_deadline_hours"])
            fee = rate * nights if not plan["refundable"] else (rate if when >= deadline else 0)
            label, fkind = "Cancellation fee", "cancellation_fee"
        r = out.add("reservations", {
            "confirmation_code": code(), "hotel_id": hi, "guest_id": g["id"], "room_type_id": rt["id"],
            "rate_plan_id": plan["id"], "room_id": None, "check_in_date": d1.isoformat(),
            "check_out_date": d2.isoformat(), "adults": 1, "children": 0, "nightly_rate_cents": rate, "status": kind,
            "created_at": _iso(created), "checked_in_at": None, "checked_out_at": None, "cancelled_at": _iso(when)})
        f = folio_for(r["id"], created)
        if fee:
            charge(f, fkind, label, fee, when, None)
            pay(f, "card", fee, when, None)
        f["status"], f["closed_at"] = "closed", _iso(when)

    def add_task(room: Row, kind: str, status: str, notes: str, created: datetime, hi: int) -> None:
        role = "housekeeping" if kind == "clean" else "maintenance"
        who = ctx.pick(staff_by_hotel[hi][role])["id"] if status != "open" else None
        done = _iso(created + timedelta(minutes=rng.randrange(25, 90))) if status == "done" else None
        tasks.append({"room_id": room["id"], "kind": kind, "status": status, "assigned_to": who, "notes": notes,
                      "created_at": _iso(created), "completed_at": done})

    for h in out["hotels"]:
        hi = h["id"]
        rooms = rooms_by_hotel[hi]
        must = list(SCENARIOS)
        extra = [ctx.weighted({"inhouse": 0.35, "due_out": 0.15, "arrival_clean": 0.15, "vacant": 0.2,
                               "left_today": 0.1, "arrival_unassigned": 0.05}) for _ in range(len(rooms) - len(must))]
        scen = must + extra
        rng.shuffle(scen)
        for room, sc in zip(rooms, scen):
            rt = types_by_id[room["room_type_id"]]
            # the block around today
            if sc == "inhouse":
                a, b = T - timedelta(days=rng.randint(1, 3)), T + timedelta(days=rng.randint(1, 4))
                stay(hi, room, rt, a, b, "checked_in", placed_order=ctx.chance(0.15))
                room["status"] = ctx.pick(["clean", "dirty"])
                start, end = a, b
            elif sc == "due_out":
                a = T - timedelta(days=rng.randint(1, 4))
                stay(hi, room, rt, a, T, "checked_in")
                room["status"] = "dirty"
                start, end = a, T
            elif sc == "left_today":
                a = T - timedelta(days=rng.randint(1, 4))
                stay(hi, room, rt, a, T, "checked_out")
                room["status"] = "dirty"
                add_task(room, "clean", "open", "Departure clean", now - timedelta(minutes=rng.randrange(20, 120)), hi)
                start, end = a, T + timedelta(days=rng.randint(1, 2))
            elif sc in ("arrival_clean", "arrival_unassigned"):
                b = T + timedelta(days=rng.randint(1, 4))
                stay(hi, room, rt, T, b, "booked", assigned=(sc == "arrival_clean"))
                room["status"] = "clean"
                start, end = T - timedelta(days=rng.randint(1, 2)), b
            elif sc == "arrival_dirty":
                a = T - timedelta(days=rng.randint(1, 3))
                stay(hi, room, rt, a, T, "checked_out")
                b = T + timedelta(days=rng.randint(1, 4))
                stay(hi, room, rt, T, b, "booked")
                room["status"] = "dirty"
                add_task(room, "clean", "open", "Departure clean, arrival today",
                         now - timedelta(minutes=rng.randrange(20, 120)), hi)
                start, end = a, b
            elif sc == "vacant":
                room["status"] = "clean"
                start, end = T - timedelta(days=rng.randint(0, 2)), T + timedelta(days=rng.randint(1, 3))
            else:  # out of order
                room["status"] = "out_of_order"
                room["out_of_order_reason"] = ctx.pick(["leaking shower", "broken air conditioning",
                                                        "water damage to ceiling", "faulty door lock"])
                add_task(room, "repair", ctx.pick(["open", "in_progress"]), room["out_of_order_reason"],
                         now - timedelta(hours=rng.randrange(3, 40)), hi)
                start, end = T - timedelta(days=rng.randint(1, 3)), T + timedelta(days=rng.randint(4, 7))
            # earlier stays, all checked out
            cursor = start - timedelta(days=rng.randint(0, 2))
            while True:
                length = rng.randint(1, 4)
                d1 = cursor - timedelta(days=length)
                if d1 < T - timedelta(days=past_days):
                    break
                r = stay(hi, room, rt, d1, cursor, "checked_out")
                if ctx.chance(0.3) and (T - cursor).days <= 3:
                    add_task(room, "clean", "done", f"Departure clean after {r['confirmation_code']}",
                             datetime.fromisoformat(r["checked_out_at"]), hi)
                cursor = d1 - timedelta(days=rng.randint(0, 2))
            # later stays, booked (none in an out-of-order room)
            cursor = end + timedelta(days=rng.randint(0, 2))
            while sc != "ooo":
                length = rng.randint(1, 5)
                d2 = cursor + timedelta(days=length)
                if d2 > T + timedelta(days=future_days):
                    break
                stay(hi, room, rt, cursor, d2, "booked", assigned=ctx.chance(0.6))
                cursor = d2 + timedelta(days=rng.randint(0, 3))
        for _ in range(ctx.n(3, 8)):
            rt = types_by_id[ctx.pick(rooms)["room_type_id"]]
            d1 = T + timedelta(days=rng.randint(-6, 20))
            cancelled(hi, rt, d1, d1 + timedelta(days=rng.randint(1, 4)), "cancelled")
        for _ in range(ctx.n(1, 3)):
            rt = types_by_id[ctx.pick(rooms)["room_type_id"]]
            d1 = T - timedelta(days=rng.randint(2, 7))
            cancelled(hi, rt, d1, d1 + timedelta(days=rng.randint(1, 3)), "no_show")

    _plant_reassignable_stay(out, T)

    # ids in time order for the ledgers
    out["folio_charges"].sort(key=lambda c: (c["posted_at"], c["folio_id"]))
    for i, c in enumerate(out["folio_charges"], 1):
        c["id"] = i
    out["payments"].sort(key=lambda p: (p["created_at"], p["folio_id"]))
    for i, p in enumerate(out["payments"], 1):
        p["id"] = i
    tasks.sort(key=lambda t: (t["created_at"], t["room_id"]))
    out["housekeeping_tasks"] = [{"id": i, **t} for i, t in enumerate(tasks, 1)]
    loyalty.sort(key=lambda x: (x["created_at"], x["guest_id"]))
    out["loyalty_transactions"] = [{"id": i, **x} for i, x in enumerate(loyalty, 1)]
    for g in guests:
        g["points_balance"] = points[g["id"]]
    return out


def _plant_reassignable_stay(out: dict[str, list[Row]], T: date) -> None:
    """Make sure some room can be taken out of order and its first future stay moved to another room.

    The template ``room_out_of_order_reassign`` wants a room in service with no guest checked in, whose first
    booked stay after today has a free room of the same type for the same nights. When chance left none (the
    sibling rooms all assigned on those nights), the future stays that block the best such pair lose their room
    (they stay booked, unassigned, as ``arrival_unassigned``-like stays do); worlds that have one are untouched.
    """
    t = T.isoformat()
    rooms = {rm["id"]: rm for rm in out["rooms"]}
    res = out["reservations"]
    active: dict[int, list[Row]] = {}
    for r in res:
        if r["status"] in ("booked", "checked_in") and r["room_id"] is not None:
            active.setdefault(r["room_id"], []).append(r)
    first: dict[int, Row] = {}
    for r in res:
        if r["status"] == "booked" and r["check_in_date"] > t and r["room_id"] is not None:
            first.setdefault(r["room_id"], r)
    best: tuple[int, list[Row]] | None = None
    for r in sorted(first.values(), key=lambda x: x["id"]):
        rm = rooms[r["room_id"]]
        if rm["status"] == "out_of_order" or any(o["status"] == "checked_in" for o in active.get(rm["id"], [])):
            continue
        for y in sorted(rooms.values(), key=lambda x: x["number"]):
            if y["room_type_id"] != r["room_type_id"] or y["id"] == rm["id"] or y["status"] == "out_of_order":
                continue
            clash = [o for o in active.get(y["id"], [])
                     if o["check_in_date"] < r["check_out_date"] and o["check_out_date"] > r["check_in_date"]]
            if not clash:
                return
            if all(o["status"] == "booked" and o["check_in_date"] > t for o in clash):
                if best is None or len(clash) < best[0]:
                    best = (len(clash), clash)
    if best is not None:
        for o in best[1]:
            o["room_id"] = None
