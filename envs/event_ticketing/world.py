"""World builder for event_ticketing: venues with sections and seats, organisers and their staff, customers,
events in every state with price tiers, orders, tickets, promo codes, transfers, refunds, waitlists and scans.

``build(ctx)`` returns rows per table (parents first, explicit integer keys), a pure function of ``ctx``:

- a seated section's capacity is its number of seats; a seat has at most one live (held or valid) ticket per
  event; live tickets per tier never exceed the section's capacity; an event with nothing left is sold out;
- every holder holds at most the event's per-customer limit of live tickets; ticket fees are
  max($1.50, 10% of the price) and discounts the promo code's percentage of the price;
- promo code uses = orders using them, within max uses and the code's validity window at purchase time;
- refunds follow the rules: customer refunds (price less discount) only while the policy allowed them, a
  postponed event's refunds any time, a cancelled event's refunds in full (fee included);
- the event tonight has doors open and some tickets scanned; a completed event has most tickets scanned;
  pending orders hold seats for a few more minutes; a sold-out event has a waitlist;
- every timestamp lies before the clock.

With ``ctx.distractors``: namesake customers and events whose titles repeat at another venue and date (never
the titles of events 3 and 6, the first sold-out and the refundable on-sale event).

Planted for the templates in every world: one pending order per customer, and a customer whose only pending
order (held, no promo code) is at an event with a live promo code (``_plant_pending``); a customer holding two
or more seats (nothing standing or held) at a future event known by its title (``_plant_seat_holder``); two
free adjacent seats at an on-sale event with a live promo code (``_plant_free_pair``). The plants only act when
chance left none.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

VENUES = [
    ("Harbor Hall", "Portland", "120 Waterfront Ave", [("Orchestra", "seated", 3, 8), ("Balcony", "seated", 2, 6)]),
    ("The Foundry", "Seattle", "77 Rail Yard St", [("Floor", "standing", 30, 0), ("Mezzanine", "seated", 2, 6)]),
    ("Blue Lantern Club", "Austin", "9 Congress Alley", [("General Admission", "standing", 20, 0), ("Booths", "seated", 1, 6)]),
    ("Riverside Amphitheater", "Denver", "400 Confluence Rd", [("Lawn", "standing", 40, 0), ("Reserved", "seated", 3, 8)]),
    ("Crescent Theatre", "Chicago", "18 Lakeview Blvd", [("Stalls", "seated", 3, 8), ("Circle", "seated", 2, 8)]),
    ("Granary Stage", "Minneapolis", "5 Mill Quarter", [("Standing", "standing", 25, 0), ("Gallery", "seated", 2, 6)]),
    ("Palm Court Arena", "Phoenix", "900 Desert Way", [("Floor", "standing", 40, 0), ("Lower Tier", "seated", 3, 10)]),
    ("Old Mint Auditorium", "Boston", "3 Treasury Sq", [("Main Floor", "seated", 3, 10), ("Balcony", "seated", 2, 8)]),
    ("Signal Works", "Detroit", "61 Factory Ln", [("Pit", "standing", 30, 0), ("Balcony", "seated", 2, 6)]),
    ("Cedar Pavilion", "Nashville", "14 Grove Pkwy", [("Lawn", "standing", 35, 0), ("Pavilion", "seated", 3, 8)]),
    ("Lighthouse Lounge", "San Diego", "2 Jetty Pier", [("Bar Floor", "standing", 20, 0), ("Tables", "seated", 2, 6)]),
    ("Northgate Forum", "Philadelphia", "250 Gate St", [("Arena Floor", "standing", 40, 0), ("Upper Ring", "seated", 3, 10)]),
]
ORGANISERS = [("Lantern Live", "lanternlive.com"), ("Marquee Presents", "marqueepresents.com"),
              ("Open Air Promotions", "openairpromo.com"), ("Stage Door Collective", "stagedoor.org"),
              ("Northbound Sports", "northboundsports.com"), ("Idea Forum Talks", "ideaforum.org")]
TITLES = {
    "concert": ["The Velvet Static", "Juniper and the Owls", "Midnight Brass Quartet", "Lorna Vale Live", "Paper Lanterns",
                "Echo Harbor", "The Saltwater Strings", "Neon Orchard"],
    "theatre": ["The Glass Menagerie", "A Winter's Tale", "Twelve Angry Jurors", "The Lighthouse Keeper"],
    "comedy": ["Dana Ruiz: Overthinking It", "Late Shift Comedy Night", "Improv Jam", "Marcus Bell: No Notes"],
    "sports": ["Portland Pilots vs Seattle Sound", "City Derby Night", "Harbor Boxing Classic"],
    "talk": ["Oceans After Plastic", "The Future of Cities", "Sleep Science Live"],
}
PRICE = {"concert": (3500, 9000), "theatre": (4000, 11000), "comedy": (2500, 6000), "sports": (3000, 12000),
         "talk": (2000, 5000)}
PROMO_WORDS = ["EARLY", "FANS", "SUMMER", "LOCAL", "VIP", "STUDENT", "FRIENDS", "PRESALE"]
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"


def _order(ctx: WorldContext, out: Tables, code: Any, customer: Row, ei: int, tier: Row,
           seat_ids: list[int | None], created: datetime, taken: set[tuple[int, int]], *, pending: bool,
           promo: Row | None = None) -> Row:
    """An order of ``customer`` for places of one tier (the seats taken), with its tickets: pending with a hold
    like reserve_tickets makes, or paid a few minutes after it was created; the fee and the promo discount are
    the tools' own."""
    o = out.add("orders", {
        "order_number": code("T-", 6), "customer_id": customer["id"], "event_id": ei,
        "status": "pending" if pending else "paid", "promo_code_id": promo["id"] if promo else None,
        "created_at": _iso(created),
        "hold_expires_at": _iso(created + timedelta(minutes=ctx.tools.HOLD_MINUTES)) if pending else None,
        "paid_at": None if pending else _iso(created + timedelta(minutes=ctx.rng.randint(1, 9)))})
    for sid in seat_ids:
        if sid is not None:
            taken.add((ei, sid))
        price = tier["price_cents"]
        out.add("tickets", {"code": code("TK", 8), "order_id": o["id"], "event_id": ei, "price_tier_id": tier["id"],
                            "seat_id": sid, "holder_id": customer["id"], "status": "held" if pending else "valid",
                            "price_cents": price,
                            "discount_cents": price * promo["discount_pct"] // 100 if promo else 0,
                            "fee_cents": ctx.tools._fee(price), "scanned_at": None})
    return o


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng = ctx.rng
    now = ctx.clock.replace(microsecond=0)
    out = Tables((
        "venues", "venue_sections", "seats", "organisers", "organiser_staff", "customers", "events", "price_tiers",
        "promo_codes", "orders", "tickets", "transfers", "refunds", "waitlist_entries", "scans"))

    # --- venues ---------------------------------------------------------------------------------
    sections_of: dict[int, list[Row]] = {}
    seats_of: dict[int, list[Row]] = {}
    for vi, (name, city, addr, secs) in enumerate(VENUES[: ctx.n(3, 12)], 1):
        out["venues"].append({"id": vi, "name": name, "city": city, "address": addr})
        sections_of[vi] = []
        for sname, kind, a, b in secs:
            if kind == "seated":
                rows, per = a + ctx.n(0, 2), b + ctx.n(0, 4)
                cap = rows * per
            else:
                cap = a * ctx.n(1, 3)
            sec = out.add("venue_sections", {"venue_id": vi, "name": sname, "kind": kind, "capacity": cap})
            sid = sec["id"]
            sections_of[vi].append(sec)
            seats_of[sid] = []
            if kind == "seated":
                for r in range(rows):
                    for n in range(1, per + 1):
                        seats_of[sid].append(out.add("seats", {
                            "section_id": sid, "row_label": "ABCDEFGHJK"[r], "seat_number": n,
                            "accessible": 1 if (r == 0 and n in (1, per)) else 0}))

    # --- organisers and customers ---------------------------------------------------------------
    used_emails: set[str] = set()
    staff_of: dict[int, dict[str, list[Row]]] = {}
    for oi, (oname, dom) in enumerate(ORGANISERS[: ctx.n(2, 6)], 1):
        out["organisers"].append({"id": oi, "name": oname, "contact_email": f"hello@{dom}"})
        staff_of[oi] = {}
        for role, k in (("manager", 1), ("gate", 2)):
            for _ in range(k):
                first, last = ctx.faker.first_name(), ctx.faker.last_name()
                email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.choice(['', str(rng.randrange(2, 9))])}@{dom}",
                                   used_emails)
                s = out.add("organiser_staff", {"organiser_id": oi, "full_name": f"{first} {last}", "email": email,
                                                "role": role})
                staff_of[oi].setdefault(role, []).append(s)
    used_names: set[str] = set()

    def add_customer(full: str, first: str, last: str) -> Row:
        dom = ctx.pick(["example.com", "mailbox.org", "fastmail.com", "inbox.net"])
        email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.choice(['', '', str(rng.randrange(2, 99))])}@{dom}",
                           used_emails)
        return out.add("customers", {"email": email, "full_name": full, "phone": ctx.faker.numerify("+1 ###-###-####"),
                                     "created_at": _iso(ctx.moment_ago(60, 900))})

    for _ in range(ctx.n(40, 450)):
        first, last = ctx.faker.first_name(), ctx.faker.last_name()
        if f"{first} {last}" in used_names:
            continue
        used_names.add(f"{first} {last}")
        add_customer(f"{first} {last}", first, last)
    if ctx.distractors:
        for c in list(out["customers"])[: max(4, len(out["customers"]) // 6)]:
            first, last = c["full_name"].split(" ", 1)
            add_customer(c["full_name"], first, last)
    customers = out["customers"]

    # --- events ---------------------------------------------------------------------------------
    venues = out["venues"]
    n_events = ctx.n(9, 100)
    kinds = ["tonight", "completed", "sold_out", "cancelled", "postponed", "on_sale_refund", "on_sale_pending",
             "on_sale_pending"]
    kinds += [ctx.weighted({"on_sale": 0.75, "completed": 0.1, "sold_out": 0.08, "postponed": 0.04, "cancelled": 0.03})
              for _ in range(n_events - len(kinds))]
    used_titles: dict[str, int] = {}
    reserved_titles: set[str] = set()
    used_codes: set[str] = set()
    promo_used: set[str] = set()
    held: dict[tuple[int, int], int] = {}
    taken: set[tuple[int, int]] = set()

    def code(prefix: str, k: int) -> str:
        return ctx.unique(lambda: prefix + "".join(rng.choice(CODE_LETTERS) for _ in range(k)), used_codes)

    for ei, kind in enumerate(kinds, 1):
        v = venues[(ei - 1) % len(venues)]
        org = (ei - 1) % len(out["organisers"]) + 1
        cat = ctx.pick(list(TITLES))
        title = ctx.pick(TITLES[cat])
        # with distractors titles repeat, except those of the first sold-out and the refundable on-sale event
        # (ids 3 and 6): templates need a sold-out event and a future event each known by its title alone
        if title in used_titles and (not ctx.distractors or title in reserved_titles or ei in (3, 6)):
            title = f"{title}: {ctx.pick(['Encore', 'Second Night', 'Summer Tour', 'Matinee', 'Late Show'])}"
            if title in used_titles:
                title = f"{title} {ei}"
        used_titles[title] = used_titles.get(title, 0) + 1
        if ctx.distractors and ei in (3, 6):
            reserved_titles.add(title)
        if kind == "tonight":
            start = now.replace(hour=19, minute=30, second=0)
        elif kind == "completed":
            start = (now - timedelta(days=rng.randint(2, 25))).replace(hour=rng.choice([19, 20]), minute=0, second=0)
        else:
            start = (now + timedelta(days=rng.randint(2, 45))).replace(hour=rng.choice([19, 20]),
                                                                       minute=rng.choice([0, 30]), second=0)
        doors = start - timedelta(minutes=rng.choice([60, 60, 90]))
        policy = ctx.weighted({"no_refunds": 0.25, "until_7_days": 0.4, "until_24_hours": 0.35})
        if kind == "on_sale_refund":
            policy = "until_7_days"
            start = (now + timedelta(days=rng.randint(12, 40))).replace(hour=20, minute=0, second=0)
            doors = start - timedelta(minutes=60)
        limit = ctx.pick([4, 6, 8])
        ev = {"id": ei, "organiser_id": org, "venue_id": v["id"], "title": title, "category": cat,
              "starts_at": _iso(start), "doors_at": _iso(doors), "original_starts_at": None, "status": "on_sale",
              "per_customer_limit": limit, "refund_policy": policy, "cancel_reason": None}
        out["events"].append(ev)
        sale_open = start - timedelta(days=rng.randint(50, 90))
        lo, hi = PRICE[cat]
        tiers = []
        for k, sec in enumerate(sections_of[v["id"]]):
            price = rng.randrange(lo, hi, 500) if k == 0 else rng.randrange(lo, hi, 500) // 2 // 100 * 100 + 1000
            tier = out.add("price_tiers", {"event_id": ei, "section_id": sec["id"], "name": f"{sec['name']}",
                                           "price_cents": price})
            tiers.append((tier, sec))
        # promo codes (live codes only for events still selling)
        promos = []
        for _ in range(rng.randint(1, 2)):
            pct = ctx.pick([10, 15, 20, 25])
            pcode = ctx.unique(lambda: f"{ctx.pick(PROMO_WORDS)}{pct}{rng.choice(['', str(rng.randrange(2, 9))])}", promo_used)
            vfrom = sale_open + timedelta(days=rng.randint(0, 10))
            vuntil = min(vfrom + timedelta(days=rng.randint(20, 120)), start - timedelta(hours=2))
            if vuntil <= vfrom:
                vuntil = vfrom + timedelta(days=1)
            live_code = kind.startswith("on_sale") and not promos
            if live_code:
                vfrom = min(vfrom, now - timedelta(days=rng.randint(1, 5)))
                vuntil = start - timedelta(hours=2)
            p = out.add("promo_codes", {
                "code": pcode, "event_id": ei, "discount_pct": pct, "max_uses": rng.randint(3, 30), "uses": 0,
                "valid_from": _iso(vfrom), "valid_until": _iso(vuntil),
                "active": 1 if (live_code or ctx.chance(0.9)) else 0, "_live": live_code})
            promos.append(p)
        # sales
        if kind.startswith("on_sale"):
            kind = "on_sale" if kind == "on_sale" else kind
        fill = {"sold_out": 1.0, "tonight": rng.uniform(0.7, 0.95), "completed": rng.uniform(0.6, 0.9)}.get(
            kind, rng.uniform(0.2, 0.65))
        cap = sum(sec["capacity"] for _, sec in tiers)
        target = int(round(cap * fill))
        sold = 0
        sale_end = min(now - timedelta(hours=1), start - timedelta(hours=3))
        guard = 0
        while sold < target and guard < 3000:
            guard += 1
            c = ctx.pick(customers)
            have = held.get((ei, c["id"]), 0)
            room = limit - have
            if room <= 0:
                continue
            open_tiers = [(t, s) for t, s in tiers if s["capacity"] - t.get("_live", 0) > 0]
            if not open_tiers:
                break
            tier, sec = ctx.pick(open_tiers)
            live_in_tier = tier.setdefault("_live", 0)
            left = sec["capacity"] - live_in_tier
            if left <= 0:
                continue
            n = min(rng.randint(1, 4), room, left, target - sold)
            seat_ids: list[int | None]
            if sec["kind"] == "seated":
                free = [s for s in seats_of[sec["id"]] if (ei, s["id"]) not in taken]
                rows: dict[str, list[Row]] = {}
                for s in free:
                    rows.setdefault(s["row_label"], []).append(s)
                best = max(rows.values(), key=len)
                if len(best) >= n:
                    startk = rng.randint(0, len(best) - n)
                    chosen = best[startk:startk + n]
                else:
                    chosen = free[:n]
                seat_ids = [s["id"] for s in chosen]
            else:
                seat_ids = [None] * n
            created = sale_open + (sale_end - sale_open) * rng.random()
            promo = None
            for p in promos:
                if p["active"] and p["valid_from"] <= _iso(created) <= p["valid_until"] and p["uses"] < p["max_uses"] \
                        and ctx.chance(0.35):
                    promo = p
                    p["uses"] += 1
                    break
            _order(ctx, out, code, c, ei, tier, seat_ids, created, taken, pending=False, promo=promo)
            tier["_live"] = live_in_tier + n
            held[(ei, c["id"])] = have + n
            sold += n
        ev["_tiers"] = tiers
        ev["_kind"] = kind
        ev["_promos"] = promos

    tickets_by_event: dict[int, list[Row]] = {}
    for t in out["tickets"]:
        tickets_by_event.setdefault(t["event_id"], []).append(t)
    orders_by_id = {o["id"]: o for o in out["orders"]}

    def order_status(oid: int) -> None:
        ts = [t for t in out["tickets"] if t["order_id"] == oid]
        valid = sum(1 for t in ts if t["status"] == "valid")
        refunded = sum(1 for t in ts if t["status"] == "refunded")
        if refunded and valid:
            orders_by_id[oid]["status"] = "partially_refunded"
        elif refunded:
            orders_by_id[oid]["status"] = "refunded"

    for ev in out["events"]:
        ei, kind = ev["id"], ev["_kind"]
        ts = tickets_by_event.get(ei, [])
        start = datetime.fromisoformat(ev["starts_at"])
        last_sale = max((orders_by_id[t["order_id"]]["paid_at"] for t in ts), default=_iso(now - timedelta(days=30)))
        if kind == "cancelled":
            when = min(max(datetime.fromisoformat(last_sale) + timedelta(hours=2), now - timedelta(days=3)),
                       now - timedelta(minutes=10))
            ev["status"], ev["cancel_reason"] = "cancelled", ctx.pick(["Artist illness", "Venue flooding",
                                                                        "Travel disruption", "Low demand"])
            for t in ts:
                t["status"] = "refunded"
                out["refunds"].append({"id": 0, "order_id": t["order_id"], "ticket_id": t["id"],
                                       "amount_cents": t["price_cents"] - t["discount_cents"] + t["fee_cents"],
                                       "reason": "event_cancelled", "created_at": _iso(when)})
                orders_by_id[t["order_id"]]["status"] = "refunded"
            for p in ev["_promos"]:
                p["active"] = 0
            continue
        if kind == "postponed":
            ev["original_starts_at"] = ev["starts_at"]
            new = start + timedelta(days=rng.randint(14, 45))
            doors = new - (start - datetime.fromisoformat(ev["doors_at"]))
            ev["starts_at"], ev["doors_at"], ev["status"] = _iso(new), _iso(doors), "postponed"
            when0 = min(max(datetime.fromisoformat(last_sale) + timedelta(hours=1), now - timedelta(days=4)),
                        now - timedelta(minutes=20))
            for t in ts:
                if ctx.chance(0.12):
                    t["status"] = "refunded"
                    out["refunds"].append({"id": 0, "order_id": t["order_id"], "ticket_id": t["id"],
                                           "amount_cents": t["price_cents"] - t["discount_cents"],
                                           "reason": "event_postponed",
                                           "created_at": _iso(when0 + (now - when0) * rng.uniform(0.1, 0.9))})
                    order_status(t["order_id"])
            continue
        if kind in ("completed", "tonight"):
            doors = datetime.fromisoformat(ev["doors_at"])
            gates = staff_of[ev["organiser_id"]]["gate"]
            share = 0.85 if kind == "completed" else 0.4
            for t in ts:
                if ctx.chance(share):
                    if kind == "completed":
                        at = doors + (start - doors) * rng.random()
                    else:
                        at = doors + (now - doors - timedelta(minutes=1)) * rng.random()
                    t["scanned_at"] = _iso(at)
                    out["scans"].append({"id": 0, "ticket_id": t["id"], "staff_id": ctx.pick(gates)["id"],
                                         "gate": ctx.pick(["North", "South", "East"]), "scanned_at": _iso(at)})
            if kind == "completed":
                ev["status"] = "completed"
                continue
        # customer refunds while the policy allowed them (future events only)
        if kind.startswith("on_sale") and ev["refund_policy"] != "no_refunds":
            cutoff = ctx.tools._refund_cutoff(start, ev["refund_policy"])
            for t in ts:
                o = orders_by_id[t["order_id"]]
                paid = datetime.fromisoformat(o["paid_at"])
                end = min(now, cutoff)
                if end > paid + timedelta(hours=1) and ctx.chance(0.07):
                    t["status"] = "refunded"
                    out["refunds"].append({"id": 0, "order_id": t["order_id"], "ticket_id": t["id"],
                                           "amount_cents": t["price_cents"] - t["discount_cents"],
                                           "reason": "customer_request",
                                           "created_at": _iso(paid + (end - paid) * rng.uniform(0.3, 0.95))})
                    order_status(t["order_id"])
                    if t["seat_id"] is not None:
                        taken.discard((ei, t["seat_id"]))
                    held[(ei, t["holder_id"])] -= 1
        # transfers of valid tickets before the event
        for t in ts:
            if t["status"] == "valid" and not t["scanned_at"] and ctx.chance(0.07):
                r = ctx.pick(customers)
                if r["id"] == t["holder_id"] or held.get((ei, r["id"]), 0) + 1 > ev["per_customer_limit"]:
                    continue
                o = orders_by_id[t["order_id"]]
                at = datetime.fromisoformat(o["paid_at"]) + (min(now, start) - datetime.fromisoformat(o["paid_at"])) * rng.uniform(0.2, 0.8)
                out.add("transfers", {"ticket_id": t["id"], "from_customer_id": t["holder_id"],
                                      "to_customer_id": r["id"], "old_code": t["code"], "created_at": _iso(at)})
                held[(ei, t["holder_id"])] -= 1
                held[(ei, r["id"])] = held.get((ei, r["id"]), 0) + 1
                t["holder_id"] = r["id"]
                t["code"] = code("TK", 8)
        # pending orders holding seats for a few more minutes (future events on sale)
        if kind.startswith("on_sale") and (kind == "on_sale_pending" or ctx.chance(0.3)):
            tier, sec = ctx.pick(ev["_tiers"])
            live = sum(1 for t in out["tickets"] if t["price_tier_id"] == tier["id"] and t["status"] in ("held", "valid"))
            c = ctx.pick(customers)
            # one pending order per customer (a template finishes "my" unpaid order): if the pick already has
            # one, or no room left under the limit, take the next customer in order
            pending_ids = {o["customer_id"] for o in out["orders"] if o["status"] == "pending"}
            at = customers.index(c)
            for k in range(len(customers)):
                cc = customers[(at + k) % len(customers)]
                if cc["id"] not in pending_ids and held.get((ei, cc["id"]), 0) < ev["per_customer_limit"]:
                    c = cc
                    break
            n = min(2, sec["capacity"] - live, ev["per_customer_limit"] - held.get((ei, c["id"]), 0))
            if n > 0:
                seat_ids = ([s["id"] for s in seats_of[sec["id"]] if (ei, s["id"]) not in taken][:n]
                            if sec["kind"] == "seated" else [None] * n)
                if len(seat_ids) == n:
                    created = now - timedelta(minutes=rng.randint(2, 9))
                    o = _order(ctx, out, code, c, ei, tier, seat_ids, created, taken, pending=True)
                    orders_by_id[o["id"]] = o
                    held[(ei, c["id"])] = held.get((ei, c["id"]), 0) + n
        # sold out when nothing is left; waitlist for sold-out events
        live_total = sum(1 for t in out["tickets"] if t["event_id"] == ei and t["status"] in ("held", "valid"))
        cap = sum(sec["capacity"] for _, sec in ev["_tiers"])
        if live_total >= cap and ev["status"] == "on_sale":
            ev["status"] = "sold_out"
            for c in ctx.sample(customers, rng.randint(2, 4)):
                if held.get((ei, c["id"]), 0) >= ev["per_customer_limit"]:
                    continue
                q = min(rng.randint(1, 3), ev["per_customer_limit"] - held.get((ei, c["id"]), 0))
                out.add("waitlist_entries", {"event_id": ei, "customer_id": c["id"], "quantity": q, "status": "waiting",
                                             "created_at": _iso(now - timedelta(hours=rng.randint(2, 200)))})

    for p in out["promo_codes"]:
        if p.pop("_live"):
            p["max_uses"] = max(p["max_uses"], p["uses"] + 3)
    _plant_pending(ctx, out, seats_of, taken, held, code)
    _plant_seat_holder(ctx, out, seats_of, taken, held, code)
    _plant_free_pair(ctx, out, seats_of, taken, held)
    for ev in out["events"]:
        for k in ("_tiers", "_kind", "_promos"):
            ev.pop(k, None)
    for t in out["price_tiers"]:
        t.pop("_live", None)
    out["refunds"].sort(key=lambda r: (r["created_at"], r["ticket_id"]))
    for i, r in enumerate(out["refunds"], 1):
        r["id"] = i
    out["scans"].sort(key=lambda s: (s["scanned_at"], s["ticket_id"]))
    for i, s in enumerate(out["scans"], 1):
        s["id"] = i
    out["waitlist_entries"].sort(key=lambda w: (w["created_at"], w["id"]))
    for i, w in enumerate(out["waitlist_entries"], 1):
        w["id"] = i
    return out


def _seat_holders(out: dict[str, list[Row]], now: datetime) -> tuple[list[Row], dict[tuple[int, int], int]]:
    """The future events known by their title alone (on sale, sold out or postponed), and the (event, customer)
    pairs holding two or more seats there with nothing standing or held (template my_seats_for_event), with
    how many seats each holds."""
    active = ("on_sale", "sold_out", "postponed")
    by_title_day: dict[tuple[str, str], int] = {}
    by_title_active: dict[str, int] = {}
    for ev in out["events"]:
        by_title_day[(ev["title"], ev["starts_at"][:10])] = by_title_day.get((ev["title"], ev["starts_at"][:10]), 0) + 1
        if ev["status"] in active:
            by_title_active[ev["title"]] = by_title_active.get(ev["title"], 0) + 1
    candidates = [ev for ev in out["events"] if ev["status"] in active and ev["starts_at"] >= _iso(now)
                  and by_title_day[(ev["title"], ev["starts_at"][:10])] == 1 and by_title_active[ev["title"]] == 1]
    ids = {ev["id"] for ev in candidates}
    per: dict[tuple[int, int], list[Row]] = {}
    for t in out["tickets"]:
        if t["event_id"] in ids:
            per.setdefault((t["event_id"], t["holder_id"]), []).append(t)
    holders = {}
    for key, ts in per.items():
        seated = sum(1 for t in ts if t["status"] == "valid" and t["seat_id"] is not None)
        if seated >= 2 and not any(t["status"] == "held" or (t["status"] == "valid" and t["seat_id"] is None)
                                   for t in ts):
            holders[key] = seated
    return candidates, holders


def _live_promo_events(out: dict[str, list[Row]], now_iso: str) -> set[int]:
    """Events with a promo code usable now (active, inside its window, uses left)."""
    return {p["event_id"] for p in out["promo_codes"] if p["active"] and p["valid_from"] <= now_iso
            <= p["valid_until"] and p["uses"] < p["max_uses"]}


def _plant_pending(ctx: WorldContext, out: Tables, seats_of: dict[int, list[Row]],
                   taken: set[tuple[int, int]], held: dict[tuple[int, int], int], code: Any) -> None:
    """Make sure some customer has exactly one pending order, still held and without a promo code, at an event
    with a live promo code (template finish_pending_with_promo). The pending orders of the sales loop are
    skipped when the picked tier is full, so chance may leave none; then hold up to two seats of a tier with
    room at an on-sale future event with a live code (never filling the event) for a customer with no pending
    order and no tickets there."""
    rng = ctx.rng
    now = ctx.clock.replace(microsecond=0)
    now_iso = _iso(now)
    live_promo = _live_promo_events(out, now_iso)
    pending_of: dict[int, int] = {}
    for o in out["orders"]:
        if o["status"] == "pending":
            pending_of[o["customer_id"]] = pending_of.get(o["customer_id"], 0) + 1
    for o in out["orders"]:
        if o["status"] == "pending" and o["hold_expires_at"] >= now_iso and o["promo_code_id"] is None \
                and pending_of[o["customer_id"]] == 1 and o["event_id"] in live_promo:
            return
    for ev in out["events"]:
        ei = ev["id"]
        if ev["status"] != "on_sale" or not ev["_kind"].startswith("on_sale") or ev["starts_at"] <= now_iso \
                or ei not in live_promo:
            continue
        live = [t for t in out["tickets"] if t["event_id"] == ei and t["status"] in ("held", "valid")]
        room_total = sum(sec["capacity"] for _, sec in ev["_tiers"]) - len(live)
        there = {t["holder_id"] for t in out["tickets"] if t["event_id"] == ei}
        free_customers = [c for c in out["customers"] if c["id"] not in pending_of and c["id"] not in there
                          and held.get((ei, c["id"]), 0) == 0]
        if not free_customers:
            continue
        for tier, sec in ev["_tiers"]:
            left = sec["capacity"] - sum(1 for t in live if t["price_tier_id"] == tier["id"])
            n = min(2, left, room_total - 1, ev["per_customer_limit"])
            if n <= 0:
                continue
            seat_ids = ([s["id"] for s in seats_of[sec["id"]] if (ei, s["id"]) not in taken][:n]
                        if sec["kind"] == "seated" else [None] * n)
            if len(seat_ids) != n:
                continue
            c = ctx.pick(free_customers)
            created = now - timedelta(minutes=rng.randint(2, 9))
            _order(ctx, out, code, c, ei, tier, seat_ids, created, taken, pending=True)
            held[(ei, c["id"])] = n
            return


def _plant_seat_holder(ctx: WorldContext, out: Tables, seats_of: dict[int, list[Row]],
                       taken: set[tuple[int, int]], held: dict[tuple[int, int], int], code: Any) -> None:
    """Make sure some customer holds two or more seats (valid, seated, nothing standing or held) at a future
    event known by its title alone; when chance left none, sell two adjacent seats of an on-sale event to a
    customer without tickets there (never filling the event)."""
    rng = ctx.rng
    now = ctx.clock.replace(microsecond=0)
    candidates, holders = _seat_holders(out, now)
    if holders:
        return
    for ev in candidates:
        ei = ev["id"]
        if ev["status"] != "on_sale" or not ev["_kind"].startswith("on_sale"):
            continue
        live_total = sum(1 for t in out["tickets"] if t["event_id"] == ei and t["status"] in ("held", "valid"))
        if live_total + 2 >= sum(sec["capacity"] for _, sec in ev["_tiers"]):
            continue
        for tier, sec in ev["_tiers"]:
            if sec["kind"] != "seated":
                continue
            pair = None
            for a, b in zip(seats_of[sec["id"]], seats_of[sec["id"]][1:]):
                if a["row_label"] == b["row_label"] and (ei, a["id"]) not in taken and (ei, b["id"]) not in taken:
                    pair = [a["id"], b["id"]]
                    break
            if pair is None:
                continue
            there = {t["holder_id"] for t in out["tickets"] if t["event_id"] == ei}
            free = [c for c in out["customers"] if c["id"] not in there and held.get((ei, c["id"]), 0) == 0]
            if not free:
                continue
            c = ctx.pick(free)
            sales = [datetime.fromisoformat(o["created_at"]) for o in out["orders"] if o["event_id"] == ei
                     and o["paid_at"]]
            lo = min(sales) if sales else now - timedelta(days=20)
            hi = min(now - timedelta(hours=1), datetime.fromisoformat(ev["starts_at"]) - timedelta(hours=3))
            created = lo + (hi - lo) * rng.uniform(0.2, 0.8) if hi > lo else hi
            _order(ctx, out, code, c, ei, tier, pair, created, taken, pending=False)
            held[(ei, c["id"])] = 2
            return


def _plant_free_pair(ctx: WorldContext, out: dict[str, list[Row]], seats_of: dict[int, list[Row]],
                     taken: set[tuple[int, int]], held: dict[tuple[int, int], int]) -> None:
    """Make sure two adjacent seats are free at an on-sale future event known by its title and date that has a
    live promo code, with a customer holding nothing there to buy them (the pairing rule of the template
    buy_seats_with_promo: (3 * customer id + first seat id) % 11 = 0). When chance left none, the buyers of
    one or two such seats at a refundable event got a customer refund (never taking the only customer
    of _seat_holders below two seats)."""
    rng = ctx.rng
    now = ctx.clock.replace(microsecond=0)
    now_iso = _iso(now)
    per_day: dict[tuple[str, str], int] = {}
    for ev in out["events"]:
        per_day[(ev["title"], ev["starts_at"][:10])] = per_day.get((ev["title"], ev["starts_at"][:10]), 0) + 1
    live_promo = _live_promo_events(out, now_iso)
    candidates = [ev for ev in out["events"] if ev["status"] == "on_sale" and ev["starts_at"] > now_iso
                  and ev["per_customer_limit"] >= 2 and per_day[(ev["title"], ev["starts_at"][:10])] == 1
                  and ev["id"] in live_promo]
    live = [t for t in out["tickets"] if t["status"] in ("held", "valid")]
    seat_ticket = {(t["event_id"], t["seat_id"]): t for t in live if t["seat_id"] is not None}
    holders: dict[int, set[int]] = {}
    for t in live:
        holders.setdefault(t["event_id"], set()).add(t["holder_id"])

    def pairs(ev: Row) -> list[tuple[Row, Row]]:
        found = []
        for _, sec in ev["_tiers"]:
            if sec["kind"] == "seated":
                ss = seats_of[sec["id"]]
                found += [(a, b) for a, b in zip(ss, ss[1:])
                          if a["row_label"] == b["row_label"] and b["seat_number"] == a["seat_number"] + 1]
        return found

    def buyer_for(ei: int, a: Row) -> bool:
        return any((3 * c["id"] + a["id"]) % 11 == 0 and c["id"] not in holders.get(ei, set())
                   for c in out["customers"])

    for ev in candidates:
        for a, b in pairs(ev):
            if (ev["id"], a["id"]) not in seat_ticket and (ev["id"], b["id"]) not in seat_ticket \
                    and buyer_for(ev["id"], a):
                return
    orders_by_id = {o["id"]: o for o in out["orders"]}
    witnesses = _seat_holders(out, now)[1]
    for ev in candidates:
        ei = ev["id"]
        if ev["refund_policy"] == "no_refunds":
            continue
        start = datetime.fromisoformat(ev["starts_at"])
        cutoff = ctx.tools._refund_cutoff(start, ev["refund_policy"])
        end = min(now, cutoff)
        best = None
        for a, b in pairs(ev):
            if not buyer_for(ei, a):
                continue
            blockers = [seat_ticket[(ei, s["id"])] for s in (a, b) if (ei, s["id"]) in seat_ticket]
            ok = True
            for t in blockers:
                o = orders_by_id[t["order_id"]]
                ok = ok and t["status"] == "valid" and not t["scanned_at"] and t["holder_id"] == o["customer_id"] \
                    and o["status"] in ("paid", "partially_refunded") \
                    and end > datetime.fromisoformat(o["paid_at"]) + timedelta(hours=1)
            for (hei, h), n in witnesses.items():  # never take the last seat holder's seats below two
                if hei == ei and len(witnesses) == 1 and n - sum(1 for t in blockers if t["holder_id"] == h) < 2:
                    ok = False
            if ok and (best is None or len(blockers) < len(best)):
                best = blockers
        if best is None:
            continue
        for t in best:
            o = orders_by_id[t["order_id"]]
            paid = datetime.fromisoformat(o["paid_at"])
            t["status"] = "refunded"
            out["refunds"].append({"id": 0, "order_id": o["id"], "ticket_id": t["id"],
                                   "amount_cents": t["price_cents"] - t["discount_cents"], "reason": "customer_request",
                                   "created_at": _iso(paid + (end - paid) * rng.uniform(0.3, 0.95))})
            ts = [x for x in out["tickets"] if x["order_id"] == o["id"]]
            o["status"] = "partially_refunded" if any(x["status"] == "valid" for x in ts) else "refunded"
            taken.discard((ei, t["seat_id"]))
            held[(ei, t["holder_id"])] -= 1
        return
