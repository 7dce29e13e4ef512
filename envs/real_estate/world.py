"""World builder for real_estate: agencies, agents, properties, listings, clients and their activity.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Every random choice comes
from ``ctx.rng`` / ``ctx.faker`` and every timestamp from ``ctx.clock``. The rows keep the invariants
``tools.py`` relies on:

- a property has at most one open listing (draft, active, under offer); listings are created, listed
  and closed before the clock; sold / let / withdrawn listings have ``closed_at``; sold and let ones name
  the buyer or tenant and have exactly one commission at the agency's rate;
- the price history of a listing chains old -> new prices ending at the current price; a sale's
  minimum offer never exceeds its price; published listings have a photo and a description;
- viewings and open houses fit the agent's weekly working hours and never overlap for an agent
  (nor viewings for a client); future ones are scheduled only on active listings;
- offers: at most one open offer per buyer and listing, open offers only on active listings and at or
  above the minimum offer, exactly one accepted offer on every under-offer or sold listing;
- open-house RSVPs that are going never exceed the capacity.

Scenarios the templates need are planted in every world: active sales with several open offers of
distinct amounts, under-offer sales, agents with two or more viewings on one future day (and a
cancelled one), future open houses with free places and a cancelled RSVP, price-reduced listings,
commissions in every state, and clients holding a future viewing.

With ``ctx.distractors`` the world adds namesake clients (same full name, another e-mail), agents who
share a surname with another agent, and properties whose street addresses repeat in another city.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, time, timedelta
from typing import Any

from awm.tooling import iso_seconds as _ts
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

AGENCIES = [
    ("HRB", "Harbor & Birch Realty", "Portland", "harborbirch.com"),
    ("SUM", "Summit Key Properties", "Denver", "summitkey.com"),
    ("CYP", "Cypress Lane Homes", "Austin", "cypresslane.com"),
    ("OAK", "Oakridge Estates", "Raleigh", "oakridge-estates.com"),
    ("MER", "Meridian Realty Group", "Boise", "meridianrealty.com"),
    ("WIL", "Willow Creek Realty", "Madison", "willowcreekrealty.com"),
    ("BRK", "Brookstone Agents", "Columbus", "brookstone.homes"),
    ("LAN", "Lantern Real Estate", "Tucson", "lanternre.com"),
    ("FOX", "Foxglove Property Co", "Richmond", "foxgloveproperty.com"),
    ("ALD", "Alder & Main", "Spokane", "alderandmain.com"),
]

STREETS = ["Maple", "Juniper", "Cedar", "Willow", "Harbor", "Lakeview", "Orchard", "Sycamore", "Chestnut", "Aspen",
           "Magnolia", "Birch", "Hawthorn", "Riverside", "Hillcrest", "Sunset", "Linden", "Poplar", "Elmwood",
           "Foxhall", "Meadow", "Granite", "Prospect", "Bramble", "Kingsley", "Ashford", "Clover", "Summit"]
SUFFIXES = ["Street", "Avenue", "Lane", "Road", "Court", "Drive", "Place", "Way"]
FEATURES = ["garden", "garage", "off-street parking", "balcony", "fireplace", "hardwood floors", "central air",
            "solar panels", "home office", "updated kitchen", "walk-in closet", "patio", "basement", "pool",
            "ev charger", "pet friendly", "storage unit", "laundry in unit"]
PHOTO_ROOMS = ["front", "kitchen", "living-room", "bedroom", "bathroom", "garden", "street", "dining-room"]
HEADLINES = {
    "house": ["Family home with {f}", "Spacious {b}-bed house with {f}", "Classic house near the park"],
    "flat": ["Bright {b}-bed flat with {f}", "Modern flat close to downtown", "Top-floor flat with {f}"],
    "townhouse": ["{b}-bed townhouse with {f}", "End-of-terrace townhouse", "Townhouse with {f}"],
    "bungalow": ["Single-storey bungalow with {f}", "Quiet bungalow with {f}", "Detached bungalow"],
    "studio": ["Compact studio with {f}", "Studio near transit", "Renovated studio"],
}
EMAIL_DOMAINS = ["gmail.com", "outlook.com", "yahoo.com", "proton.me", "icloud.com", "fastmail.com"]
ENQUIRY_SUBJECTS = ["Is parking included?", "Question about the HOA fees", "Are pets allowed?",
                    "When is the earliest move-in?", "Is the price negotiable?", "School catchment question",
                    "Can I see the survey?", "Utility costs", "Is the garden shared?", "Broadband speed"]
OFFER_CONDITIONS = ["", "", "Subject to survey", "Subject to mortgage approval", "Cash buyer, quick completion",
                    "Subject to sale of current home"]
REASONS = ["Price reduced after viewing feedback", "Market adjustment", "Seller wants a quick sale",
           "Reduced to match comparable homes"]


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower()


def _local(first: str, last: str) -> str:
    return re.sub(r"[^a-z]", "", _ascii(first)) + "." + re.sub(r"[^a-z]", "", _ascii(last))


def _hm(s: str) -> time:
    return time(int(s[:2]), int(s[3:]))


class World:
    def __init__(self, ctx: WorldContext):
        self.ctx = ctx
        self.rng = ctx.rng
        self.now = ctx.clock.replace(microsecond=0)
        self.t = Tables([
            "agencies", "agents", "agent_availability", "properties", "property_features", "property_photos",
            "clients", "listings", "price_changes", "saved_searches", "favourites", "viewings", "offers",
            "enquiries", "messages", "open_houses", "open_house_rsvps", "commissions"])
        self.emails: set[str] = set()
        self.avail: dict[int, dict[int, tuple[str, str]]] = {}
        self.busy_agent: dict[int, list[tuple[datetime, datetime]]] = {}
        self.busy_client: dict[int, list[tuple[datetime, datetime]]] = {}

    # -- helpers ----------------------------------------------------------------------------------
    def before(self, lo_days: float, hi_days: float) -> datetime:
        return self.ctx.moment_ago(lo_days, hi_days)

    def email(self, first: str, last: str, domain: str) -> str:
        base = _local(first, last)
        e = f"{base}@{domain}"
        n = 2
        while e in self.emails:
            e = f"{base}{n}@{domain}"
            n += 1
        self.emails.add(e)
        return e

    def free(self, agent_id: int, client_id: int | None, s: datetime, e: datetime) -> bool:
        hours = self.avail[agent_id].get(s.weekday())
        if hours is None or s.time() < _hm(hours[0]) or e.time() > _hm(hours[1]) or s.date() != e.date():
            return False
        if any(a < e and b > s for a, b in self.busy_agent.get(agent_id, [])):
            return False
        if client_id is not None and any(a < e and b > s for a, b in self.busy_client.get(client_id, [])):
            return False
        return True

    def slot(self, agent_id: int, client_id: int | None, day_lo: int, day_hi: int, minutes: int,
             step: int = 15, tries: int = 40) -> tuple[datetime, datetime] | None:
        """A free slot of the agent (and client) between day_lo and day_hi days from today."""
        today = self.now.date()
        for _ in range(tries):
            d = today + timedelta(days=self.rng.randint(day_lo, day_hi))
            hours = self.avail[agent_id].get(d.weekday())
            if hours is None:
                continue
            lo = _hm(hours[0]).hour * 60 + _hm(hours[0]).minute
            hi = _hm(hours[1]).hour * 60 + _hm(hours[1]).minute - minutes
            if hi < lo:
                continue
            m = lo + step * self.rng.randint(0, (hi - lo) // step)
            s = datetime.combine(d, time(m // 60, m % 60))
            e = s + timedelta(minutes=minutes)
            if day_lo > 0 and s <= self.now:
                continue
            if day_hi < 0 and e >= self.now:
                continue
            if self.free(agent_id, client_id, s, e):
                return s, e
        return None

    def viewing(self, l_id: int, c_id: int, agent_id: int, sl: tuple[datetime, datetime], status: str, feedback: str,
                created: datetime) -> None:
        self.t.add("viewings", {"listing_id": l_id, "client_id": c_id, "agent_id": agent_id, "starts_at": _ts(sl[0]),
                                "ends_at": _ts(sl[1]), "status": status, "feedback": feedback,
                                "created_at": _ts(created)})

    def book(self, agent_id: int, client_id: int | None, s: datetime, e: datetime) -> None:
        self.busy_agent.setdefault(agent_id, []).append((s, e))
        if client_id is not None:
            self.busy_client.setdefault(client_id, []).append((s, e))

    # -- agencies, agents ---------------------------------------------------------------------------
    def agencies(self) -> None:
        ctx = self.ctx
        n = ctx.n(4, 10)
        for code, name, city, domain in AGENCIES[:n]:
            g = self.t.add("agencies", {
                "code": code, "name": name, "city": city, "email": f"hello@{domain}",
                "phone": ctx.faker.numerify("(###) ###-####"), "sale_commission_bp": ctx.pick([150, 200, 250, 300]),
                "letting_fee_pct": ctx.pick([50, 75, 100]), "created_at": _ts(self.before(900, 2500))})
            g["_domain"] = domain
            n_agents = ctx.n(4, 10)
            surnames_here: list[str] = []
            for i in range(n_agents):
                first, last = ctx.faker.first_name(), ctx.faker.last_name()
                if ctx.distractors and surnames_here and i == n_agents - 1:
                    last = surnames_here[0]  # an agent sharing a colleague's surname
                surnames_here.append(last)
                a = self.t.add("agents", {
                    "agency_id": g["id"], "full_name": f"{first} {last}", "email": self.email(first, last, domain),
                    "phone": ctx.faker.numerify("(###) ###-####"), "role": "manager" if i == 0 else "agent",
                    "is_active": 0 if (i == n_agents - 1 and ctx.chance(0.3) and not ctx.distractors) else 1,
                    "created_at": _ts(self.before(200, 900))})
                pattern = self.rng.randint(0, 3)
                days = {0: ("09:00", "17:00"), 1: ("09:00", "17:00"), 2: ("09:00", "17:00"), 3: ("09:00", "17:00"),
                        4: ("09:00", "17:00")}
                if pattern == 1:
                    days = {d: ("10:00", "18:00") for d in range(5)}
                elif pattern == 2:
                    days = {d: ("09:00", "17:00") for d in (1, 2, 3, 4)}
                    days[5] = ("10:00", "15:00")
                elif pattern == 3:
                    days = {d: ("08:30", "16:30") for d in range(5)}
                    days[5] = ("10:00", "14:00")
                self.avail[a["id"]] = days
                for wd in sorted(days):
                    self.t.add("agent_availability", {"agent_id": a["id"], "weekday": wd, "start_time": days[wd][0],
                                                      "end_time": days[wd][1]})

    def active_agents(self, agency_id: int) -> list[Row]:
        return [a for a in self.t["agents"] if a["agency_id"] == agency_id and a["is_active"]]

    # -- properties ---------------------------------------------------------------------------------
    def properties(self) -> None:
        ctx = self.ctx
        per = ctx.n(11, 60)
        used: set[tuple[str, str]] = set()
        for g in self.t["agencies"]:
            for _ in range(per):
                ptype = ctx.weighted({"house": 0.35, "flat": 0.3, "townhouse": 0.15, "bungalow": 0.1, "studio": 0.1})
                beds = {"house": (2, 5), "flat": (1, 3), "townhouse": (2, 4), "bungalow": (2, 3), "studio": (0, 0)}[ptype]
                b = self.rng.randint(*beds)
                addr = ctx.unique(lambda: f"{self.rng.randint(2, 980)} {ctx.pick(STREETS)} {ctx.pick(SUFFIXES)}",
                                  {a for a, c in used if c == g["city"]})
                used.add((addr, g["city"]))
                p = self.t.add("properties", {
                    "agency_id": g["id"], "address": addr, "city": g["city"],
                    "postcode": ctx.faker.numerify("9####") if g["id"] % 2 else ctx.faker.numerify("2####"),
                    "property_type": ptype, "bedrooms": b, "bathrooms": max(1, min(6, b - self.rng.randint(0, 2))),
                    "floor_area_sqm": {"studio": 30, "flat": 45, "townhouse": 80, "bungalow": 75, "house": 90}[ptype]
                    + b * self.rng.randint(10, 25), "year_built": self.rng.randint(1905, 2024),
                    "created_at": _ts(self.before(220, 700))})
                for f in sorted(ctx.sample(FEATURES, self.rng.randint(2, 4))):
                    self.t.add("property_features", {"property_id": p["id"], "feature": f})
        if ctx.distractors:  # the same street address in another agency's city
            agencies = self.t["agencies"]
            for p in list(self.t["properties"])[:: max(1, len(self.t["properties"]) // 6)]:
                other = agencies[(p["agency_id"]) % len(agencies)]
                if other["id"] == p["agency_id"] or (p["address"], other["city"]) in used:
                    continue
                used.add((p["address"], other["city"]))
                q = self.t.add("properties", {**{k: v for k, v in p.items() if k != "id"}, "agency_id": other["id"],
                                              "city": other["city"], "bedrooms": min(10, p["bedrooms"] + 1)})
                self.t.add("property_features", {"property_id": q["id"], "feature": "garden"})

    def photos(self, p: Row, n: int, when: datetime) -> None:
        for i, room in enumerate(self.ctx.sample(PHOTO_ROOMS, n), start=1):
            self.t.add("property_photos", {"property_id": p["id"], "filename": f"{room}-{p['id']}.jpg",
                                           "caption": room.replace("-", " ").capitalize(), "sort_order": i,
                                           "width_px": 1600, "height_px": 1200, "uploaded_at": _ts(when)})

    # -- clients ------------------------------------------------------------------------------------
    def clients(self) -> None:
        ctx = self.ctx
        for _ in range(ctx.n(55, 520)):
            first, last = ctx.faker.first_name(), ctx.faker.last_name()
            ctype = ctx.weighted({"buyer": 0.45, "renter": 0.3, "both": 0.25})
            self.t.add("clients", {
                "full_name": f"{first} {last}", "email": self.email(first, last, ctx.pick(EMAIL_DOMAINS)),
                "phone": ctx.faker.numerify("(###) ###-####"), "client_type": ctype,
                "max_budget": None if ctx.chance(0.3) else (self.rng.randint(25, 90) * 10000 if ctype != "renter"
                                                           else self.rng.randint(12, 45) * 100),
                "created_at": _ts(self.before(60, 400))})
        if ctx.distractors:  # namesakes with another e-mail
            for c in list(self.t["clients"])[:: 9]:
                first, last = c["full_name"].split(" ", 1)
                self.t.add("clients", {**{k: v for k, v in c.items() if k != "id"},
                                       "email": self.email(first, last, ctx.pick(EMAIL_DOMAINS)),
                                       "phone": ctx.faker.numerify("(###) ###-####")})

    def buyers(self) -> list[Row]:
        return [c for c in self.t["clients"] if c["client_type"] != "renter"]

    def renters(self) -> list[Row]:
        return [c for c in self.t["clients"] if c["client_type"] != "buyer"]

    # -- listings -----------------------------------------------------------------------------------
    def listings(self) -> None:
        ctx = self.ctx
        for p in self.t["properties"]:
            if ctx.chance(0.07):
                self.photos(p, self.rng.randint(1, 3), self.before(100, 200))
                continue  # on the books, not listed
            agents = self.active_agents(p["agency_id"])
            agent = ctx.pick(agents)
            ltype = "rent" if (p["property_type"] == "studio" or ctx.chance(0.3)) else "sale"
            if ltype == "sale":
                status = ctx.weighted({"active": 0.5, "draft": 0.07, "under_offer": 0.15, "sold": 0.15,
                                       "withdrawn": 0.08})
                base = 160_000 + p["bedrooms"] * 70_000 + p["floor_area_sqm"] * 900
                price = int(base * self.rng.uniform(0.85, 1.2)) // 5000 * 5000
            else:
                status = ctx.weighted({"active": 0.55, "draft": 0.08, "let": 0.25, "withdrawn": 0.1})
                price = (900 + p["bedrooms"] * 450 + self.rng.randint(0, 30) * 25) // 25 * 25
            created = self.before(25, 150)
            listed = None if status == "draft" else self.ctx.between(created, min(created + timedelta(days=6),
                                                                                 self.now - timedelta(days=12)))
            if listed is not None and listed < created:
                listed = created
            closed = None
            if status in ("sold", "let", "withdrawn"):
                closed = self.ctx.between(listed + timedelta(days=8), self.now - timedelta(days=1))
            photo_n = 0 if (status == "draft" and ctx.chance(0.5)) else self.rng.randint(2, 5)
            self.photos(p, photo_n, created)
            feat = self.ctx.pick([r["feature"] for r in self.t["property_features"] if r["property_id"] == p["id"]]
                                 or ["light"])
            headline = ctx.pick(HEADLINES[p["property_type"]]).format(b=p["bedrooms"], f=feat)
            desc = (f"{p['bedrooms']}-bedroom {p['property_type']} of {p['floor_area_sqm']} sq m in {p['city']}, "
                    f"built {p['year_built']}, with {feat}.")
            if status == "draft" and ctx.chance(0.4):
                desc = ""
            min_offer = None
            if ltype == "sale" and ctx.chance(0.45):
                min_offer = int(price * self.rng.uniform(0.88, 0.95)) // 1000 * 1000
            l = self.t.add("listings", {
                "reference": "", "property_id": p["id"], "agency_id": p["agency_id"], "agent_id": agent["id"],
                "listing_type": ltype, "status": status, "price": price, "min_offer": min_offer, "headline": headline,
                "description": desc, "created_at": _ts(created), "listed_at": _ts(listed) if listed else None,
                "closed_at": _ts(closed) if closed else None, "closed_client_id": None,
                "updated_at": _ts(closed or listed or created)})
            l["reference"] = self.ctx.tools._reference(l["id"])
            l["_listed"], l["_closed"], l["_created"] = listed, closed, created
            if listed is not None and ctx.chance(0.35):
                self.price_history(l)

    def ensure_statuses(self) -> None:
        """Enough under-offer and sold sales in every world (converted from active ones)."""
        ctx = self.ctx
        for status, need in (("under_offer", ctx.n(3, 20)), ("sold", ctx.n(3, 20))):
            have = sum(1 for l in self.t["listings"] if l["status"] == status)
            changed = {pc["listing_id"] for pc in self.t["price_changes"]}
            pool = [l for l in self.t["listings"] if l["status"] == "active" and l["listing_type"] == "sale"
                    and l["id"] not in changed]
            for l in ctx.sample(pool, max(0, need - have)):
                l["status"] = status
                if status == "sold":
                    l["_closed"] = self.ctx.between(l["_listed"] + timedelta(days=8), self.now - timedelta(days=1))
                    l["closed_at"] = _ts(l["_closed"])
                    l["updated_at"] = l["closed_at"]

    def price_history(self, l: Row) -> None:
        """One or two reductions ending at the current price (the original price was higher)."""
        end = l["_closed"] or self.now
        n = self.rng.randint(1, 2)
        prices = [l["price"]]
        for _ in range(n):
            step = (self.rng.randint(2, 6) * 5000) if l["listing_type"] == "sale" else self.rng.randint(2, 6) * 25
            prices.append(prices[-1] + step)
        prices.reverse()  # original first
        when = sorted(self.ctx.between(l["_listed"] + timedelta(days=1), end - timedelta(hours=2)) for _ in range(n))
        for i in range(n):
            self.t.add("price_changes", {"listing_id": l["id"], "old_price": prices[i], "new_price": prices[i + 1],
                                         "changed_by": l["agent_id"], "reason": self.ctx.pick(REASONS),
                                         "changed_at": _ts(when[i])})

    # -- clients' activity --------------------------------------------------------------------------
    def offers(self) -> None:
        ctx = self.ctx
        buyers = self.buyers()
        for l in self.t["listings"]:
            if l["listing_type"] != "sale" or l["status"] == "draft":
                continue
            end = l["_closed"] or self.now
            floor = l["min_offer"] or int(l["price"] * 0.85)
            n = {"active": self.rng.randint(0, 3), "under_offer": self.rng.randint(1, 3),
                 "sold": self.rng.randint(1, 3), "withdrawn": self.rng.randint(0, 1)}[l["status"]]
            people = ctx.sample(buyers, n)
            amounts = set()
            for i, c in enumerate(people):
                amount = ctx.unique(lambda: self.rng.randint(floor // 1000, l["price"] // 1000) * 1000, amounts)
                at = self.ctx.between(l["_listed"] + timedelta(days=1), end - timedelta(hours=3))
                status, counter, agreed, responded = "submitted", None, None, None
                if l["status"] == "active":
                    status = ctx.weighted({"submitted": 0.5, "countered": 0.2, "rejected": 0.2, "withdrawn": 0.1})
                elif l["status"] in ("under_offer", "sold"):
                    status = "accepted" if i == 0 else ctx.pick(["rejected", "withdrawn"])
                else:
                    status = "rejected"
                if status == "countered":
                    counter = min(l["price"], amount + self.rng.randint(2, 10) * 1000)
                    if counter <= amount:
                        status = "submitted"
                        counter = None
                if status == "accepted":
                    agreed = amount
                if status != "submitted":
                    responded = self.ctx.between(at + timedelta(hours=1), end - timedelta(hours=1))
                self.t.add("offers", {"listing_id": l["id"], "client_id": c["id"], "amount": amount, "status": status,
                                      "counter_amount": counter, "agreed_amount": agreed,
                                      "conditions": ctx.pick(OFFER_CONDITIONS), "submitted_at": _ts(at),
                                      "responded_at": _ts(responded) if responded else None,
                                      "responded_by": l["agent_id"] if responded else None})
                if status == "accepted" and l["status"] == "sold":
                    l["closed_client_id"] = c["id"]

    def plant_offers(self) -> None:
        """Active sales with two or three open offers of distinct amounts (and a higher withdrawn one)."""
        ctx = self.ctx
        actives = [l for l in self.t["listings"] if l["listing_type"] == "sale" and l["status"] == "active"]
        buyers = self.buyers()
        for l in ctx.sample(actives, ctx.n(4, 30)):
            open_ = [o for o in self.t["offers"] if o["listing_id"] == l["id"] and o["status"] in ("submitted", "countered")]
            taken = {o["client_id"] for o in self.t["offers"] if o["listing_id"] == l["id"]}
            have = {o["amount"] for o in self.t["offers"] if o["listing_id"] == l["id"]}
            floor = l["min_offer"] or int(l["price"] * 0.85)
            need = max(0, self.rng.randint(2, 3) - len(open_))
            for c in ctx.sample([b for b in buyers if b["id"] not in taken], need + 1):
                amount = ctx.unique(lambda: self.rng.randint(floor // 1000, l["price"] // 1000 - 1) * 1000, have)
                at = self.ctx.between(self.now - timedelta(days=6), self.now - timedelta(hours=3))
                status = "submitted" if need > 0 else "withdrawn"
                need -= 1
                if status == "withdrawn":
                    amount = l["price"]
                    if amount in have:
                        continue
                    have.add(amount)
                self.t.add("offers", {"listing_id": l["id"], "client_id": c["id"], "amount": amount, "status": status,
                                      "counter_amount": None, "agreed_amount": None,
                                      "conditions": ctx.pick(OFFER_CONDITIONS), "submitted_at": _ts(at),
                                      "responded_at": _ts(at + timedelta(hours=2)) if status != "submitted" else None,
                                      "responded_by": None})

    def rentals_closed(self) -> None:
        renters = self.renters()
        for l in self.t["listings"]:
            if l["status"] == "let":
                l["closed_client_id"] = self.ctx.pick(renters)["id"]

    def commissions(self) -> None:
        ctx = self.ctx
        agencies = {g["id"]: g for g in self.t["agencies"]}
        for l in self.t["listings"]:
            if l["status"] not in ("sold", "let"):
                continue
            g = agencies[l["agency_id"]]
            if l["status"] == "sold":
                basis = next(o["agreed_amount"] for o in self.t["offers"] if o["listing_id"] == l["id"]
                             and o["status"] == "accepted")
            else:
                basis = l["price"]
            amount = ctx.tools._commission_cents(g, l["listing_type"], basis)
            status = ctx.weighted({"pending": 0.35, "invoiced": 0.3, "paid": 0.35})
            closed = l["_closed"]
            inv = self.ctx.between(closed, self.now) if status != "pending" else None
            paid = self.ctx.between(inv, self.now) if status == "paid" else None
            self.t.add("commissions", {"listing_id": l["id"], "agency_id": l["agency_id"], "agent_id": l["agent_id"],
                                       "basis_amount": basis, "amount_cents": amount, "status": status,
                                       "created_at": _ts(closed), "invoiced_at": _ts(inv) if inv else None,
                                       "paid_at": _ts(paid) if paid else None})

    def viewings(self) -> None:
        ctx = self.ctx
        clients = self.t["clients"]
        for l in self.t["listings"]:
            if l["status"] == "draft":
                continue
            # past viewings while the listing was on the market
            for _ in range(self.rng.randint(0, 3)):
                c = ctx.pick(clients)
                start_days = (self.now - l["_listed"]).days - 1
                end_days = max(1, (self.now - (l["_closed"] or self.now)).days + 1)
                if start_days <= end_days:
                    continue
                sl = self.slot(l["agent_id"], c["id"], -start_days, -end_days, ctx.pick([30, 45, 60]))
                if sl is None:
                    continue
                self.book(l["agent_id"], c["id"], *sl)
                status = ctx.weighted({"completed": 0.7, "no_show": 0.1, "cancelled": 0.2})
                self.viewing(l["id"], c["id"], l["agent_id"], sl, status,
                             ctx.pick(["Liked the layout", "Too small", "Loved the light", "Street is noisy", ""])
                             if status == "completed" else "",
                             sl[0] - timedelta(days=self.rng.randint(1, 5)))
            if l["status"] != "active":
                continue
            # future viewings (and a few past ones whose outcome is not recorded yet)
            for k in range(self.rng.randint(0, 2)):
                c = ctx.pick(clients)
                if any(v["client_id"] == c["id"] and v["listing_id"] == l["id"] and v["status"] == "scheduled"
                       for v in self.t["viewings"]):
                    continue
                lo, hi = (1, 12) if k == 0 or ctx.chance(0.8) else (-3, -1)
                sl = self.slot(l["agent_id"], c["id"], lo, hi, ctx.pick([30, 45, 60]))
                if sl is None:
                    continue
                self.book(l["agent_id"], c["id"], *sl)
                self.viewing(l["id"], c["id"], l["agent_id"], sl, "scheduled", "",
                             self.before(1, 8) if lo > 0 else sl[0] - timedelta(days=3))

    def plant_busy_days(self) -> None:
        """Agents with two or three scheduled viewings on one future day, plus a cancelled one."""
        ctx = self.ctx
        actives = [l for l in self.t["listings"] if l["status"] == "active"]
        by_agent: dict[int, list[Row]] = {}
        for l in actives:
            by_agent.setdefault(l["agent_id"], []).append(l)
        agents = [a for a in sorted(by_agent) if len(by_agent[a]) >= 2]
        for aid in ctx.sample(agents, ctx.n(3, 20)):
            for _ in range(10):
                d = self.now.date() + timedelta(days=self.rng.randint(2, 10))
                if d.weekday() in self.avail[aid]:
                    break
            else:
                continue
            mine = ctx.sample(by_agent[aid], 3)
            for i, l in enumerate(mine):
                c = ctx.pick(self.t["clients"])
                if any(v["client_id"] == c["id"] and v["listing_id"] == l["id"] and v["status"] == "scheduled"
                       for v in self.t["viewings"]):
                    continue
                sl = self.slot(aid, c["id"], (d - self.now.date()).days, (d - self.now.date()).days, 30)
                if sl is None:
                    continue
                status = "cancelled" if i == 2 else "scheduled"
                if status == "scheduled":
                    self.book(aid, c["id"], *sl)
                self.viewing(l["id"], c["id"], aid, sl, status, "", self.before(1, 6))

    def open_houses(self) -> None:
        ctx = self.ctx
        actives = [l for l in self.t["listings"] if l["status"] == "active"]
        clients = self.t["clients"]
        for l in ctx.sample(actives, max(3, len(actives) // 3)):
            future = ctx.chance(0.7)
            sl = self.slot(l["agent_id"], None, 2, 14, ctx.pick([60, 90, 120]), step=30) if future else \
                self.slot(l["agent_id"], None, -(self.now - l["_listed"]).days + 1, -1, 60, step=30)
            if sl is None:
                continue
            self.book(l["agent_id"], None, *sl)
            cap = self.rng.randint(6, 25)
            o = self.t.add("open_houses", {"listing_id": l["id"], "agent_id": l["agent_id"], "starts_at": _ts(sl[0]),
                                           "ends_at": _ts(sl[1]), "capacity": cap,
                                           "status": "scheduled" if future else "completed",
                                           "created_at": _ts(self.before(3, 10) if future
                                                             else sl[0] - timedelta(days=5))})
            taken = 0
            target = self.rng.randint(cap // 3, cap - 3) if future else self.rng.randint(1, cap)
            for c in ctx.sample(clients, 12):
                size = self.rng.randint(1, 3)
                going = ctx.chance(0.85)
                if going and taken + size > target:
                    continue
                if going:
                    taken += size
                self.t.add("open_house_rsvps", {"open_house_id": o["id"], "client_id": c["id"], "party_size": size,
                                                "status": "going" if going else "cancelled",
                                                "created_at": _ts(self.ctx.between(
                                                    sl[0] - timedelta(days=9),
                                                    min(sl[0], self.now) - timedelta(hours=1)))})

    def _open_house_wanted(self) -> bool:
        """Whether the world lacks a future open house for open_house_places_left or for rsvp_open_house."""
        now = _ts(self.now)
        props = {p["id"]: p for p in self.t["properties"]}
        addr_n: dict[tuple[str, str], int] = {}
        for p in self.t["properties"]:
            addr_n[(p["address"], p["city"])] = addr_n.get((p["address"], p["city"]), 0) + 1
        listings = {l["id"]: l for l in self.t["listings"]}
        per_listing: dict[int, int] = {}
        per_listing_sched: dict[int, int] = {}
        for o in self.t["open_houses"]:
            per_listing[o["listing_id"]] = per_listing.get(o["listing_id"], 0) + 1
            if o["status"] == "scheduled":
                per_listing_sched[o["listing_id"]] = per_listing_sched.get(o["listing_id"], 0) + 1
        name_n: dict[str, int] = {}
        for c in self.t["clients"]:
            name_n[c["full_name"]] = name_n.get(c["full_name"], 0) + 1
        unique_clients = {c["id"] for c in self.t["clients"] if name_n[c["full_name"]] == 1}
        places_ok = rsvp_ok = False
        for o in self.t["open_houses"]:
            p = props[listings[o["listing_id"]]["property_id"]]
            if o["status"] != "scheduled" or o["starts_at"] <= now or addr_n[(p["address"], p["city"])] != 1:
                continue
            rs = [r for r in self.t["open_house_rsvps"] if r["open_house_id"] == o["id"]]
            going = [r["party_size"] for r in rs if r["status"] == "going"]
            if per_listing[o["listing_id"]] == 1 and any(n > 1 for n in going):
                places_ok = True
            if (per_listing_sched[o["listing_id"]] == 1 and o["capacity"] - sum(going) >= 3
                    and unique_clients - {r["client_id"] for r in rs}):
                rsvp_ok = True
        return not (places_ok and rsvp_ok)

    def plant_open_house(self) -> None:
        """A future open house with free places and a going party of two, on an active listing that has no
        other open house (only in worlds where chance left none that the open-house templates can use)."""
        if not self._open_house_wanted():
            return
        ctx = self.ctx
        props = {p["id"]: p for p in self.t["properties"]}
        addr_n: dict[tuple[str, str], int] = {}
        for p in self.t["properties"]:
            addr_n[(p["address"], p["city"])] = addr_n.get((p["address"], p["city"]), 0) + 1
        with_oh = {o["listing_id"] for o in self.t["open_houses"]}
        pool = [l for l in self.t["listings"] if l["status"] == "active" and l["id"] not in with_oh
                and addr_n[(props[l["property_id"]]["address"], props[l["property_id"]]["city"])] == 1]
        for l in ctx.sample(pool, len(pool)):
            sl = self.slot(l["agent_id"], None, 2, 14, ctx.pick([60, 90, 120]), step=30, tries=80)
            if sl is None:
                continue
            self.book(l["agent_id"], None, *sl)
            cap = self.rng.randint(10, 20)
            made = self.before(3, 10)
            o = self.t.add("open_houses", {"listing_id": l["id"], "agent_id": l["agent_id"], "starts_at": _ts(sl[0]),
                                           "ends_at": _ts(sl[1]), "capacity": cap, "status": "scheduled",
                                           "created_at": _ts(made)})
            for c, size in zip(ctx.sample(self.t["clients"], 3), (2, 1, 3)):
                self.t.add("open_house_rsvps", {"open_house_id": o["id"], "client_id": c["id"], "party_size": size,
                                                "status": "going", "created_at": _ts(self.ctx.between(
                                                    made + timedelta(hours=1), self.now - timedelta(hours=1)))})
            return

    def plant_unpaid_commission(self) -> None:
        """At least one commission still owed (pending or invoiced): if chance left every commission paid,
        the latest paid one goes back to invoiced (it keeps its invoice date)."""
        cs = self.t["commissions"]
        if not cs or any(c["status"] in ("pending", "invoiced") for c in cs):
            return
        c = max(cs, key=lambda r: (r["paid_at"] or "", r["id"]))
        c["status"], c["paid_at"] = "invoiced", None

    def favourites_and_searches(self) -> None:
        ctx = self.ctx
        market = [l for l in self.t["listings"] if l["status"] in ("active", "under_offer")]
        cities = sorted({g["city"] for g in self.t["agencies"]})
        for c in self.t["clients"]:
            kinds = ["sale"] if c["client_type"] == "buyer" else ["rent"] if c["client_type"] == "renter" else ["sale", "rent"]
            for l in ctx.sample([x for x in market if x["listing_type"] in kinds], self.rng.randint(0, 3)):
                self.t.add("favourites", {"client_id": c["id"], "listing_id": l["id"],
                                          "created_at": _ts(self.ctx.between(l["_listed"], self.now))})
            if ctx.chance(0.45):
                names: set[str] = set()
                for i in range(self.rng.randint(1, 2)):
                    kind = ctx.pick(kinds)
                    city = ctx.pick(cities)
                    ptype = ctx.pick([None, None, "house", "flat"])
                    name = f"{ptype.capitalize() + 's' if ptype else 'Homes'} {'to rent ' if kind == 'rent' else ''}in {city}"
                    if name in names:
                        name += " (2)"
                    names.add(name)
                    self.t.add("saved_searches", {
                        "client_id": c["id"], "name": name, "listing_type": kind, "city": city,
                        "property_type": ptype,
                        "min_bedrooms": self.rng.randint(0, 3),
                        "max_price": c["max_budget"] if kind == ("sale" if c["client_type"] != "renter" else "rent") else None,
                        "alerts_enabled": int(ctx.chance(0.7)), "created_at": _ts(self.before(5, 60))})

    def enquiries(self) -> None:
        ctx = self.ctx
        market = [l for l in self.t["listings"] if l["status"] in ("active", "under_offer")]
        for l in ctx.sample(market, len(market) // 2):
            c = ctx.pick(self.t["clients"])
            at = self.ctx.between(l["_listed"], self.now - timedelta(hours=2))
            status = ctx.weighted({"open": 0.4, "answered": 0.4, "closed": 0.2})
            last = at
            e = self.t.add("enquiries", {"listing_id": l["id"], "client_id": c["id"],
                                         "subject": ctx.pick(ENQUIRY_SUBJECTS), "status": status,
                                         "created_at": _ts(at), "updated_at": _ts(at)})
            self.t.add("messages", {"enquiry_id": e["id"], "sender_type": "client", "agent_id": None,
                                    "body": ctx.faker.sentence(nb_words=14), "sent_at": _ts(at)})
            if status != "open":
                last = self.ctx.between(at, self.now - timedelta(hours=1))
                self.t.add("messages", {"enquiry_id": e["id"], "sender_type": "agent", "agent_id": l["agent_id"],
                                        "body": ctx.faker.sentence(nb_words=16), "sent_at": _ts(last)})
            e["updated_at"] = _ts(last)

    def rows(self) -> dict[str, list[Row]]:
        out = {}
        for k, rows in self.t.items():
            out[k] = [{c: v for c, v in r.items() if not c.startswith("_")} for r in rows]
        return out


def build(ctx: WorldContext) -> dict[str, list[dict]]:
    w = World(ctx)
    w.agencies()
    w.properties()
    w.clients()
    w.listings()
    w.ensure_statuses()
    w.offers()
    w.plant_offers()
    w.rentals_closed()
    w.commissions()
    w.plant_unpaid_commission()
    w.plant_busy_days()
    w.open_houses()
    w.plant_open_house()
    w.viewings()
    w.favourites_and_searches()
    w.enquiries()
    return w.rows()
