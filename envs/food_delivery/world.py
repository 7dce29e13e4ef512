"""World builder for food_delivery: a city's restaurants, menus, customers, couriers and orders.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Every random choice comes
from ``ctx.rng`` / ``ctx.faker`` and every timestamp from ``ctx.clock``. The rows keep the invariants
``tools.py`` relies on:

- every restaurant delivers to its own zone and to one to three others; orders go to a zone the
  restaurant delivers to, were placed while it was open, reach its minimum order, and their options
  respect each option group's min / max;
- order money adds up (subtotal = sum of lines, fee = the zone's fee, discount from the promo code's
  rule, credit used never above the balance at that moment, total = the rest); promo codes are used
  within their dates, restaurant and per-customer limits;
- timestamps follow the state machine (placed < accepted < preparing < picked_up < delivered; cancelled
  only from placed or accepted) and lie before the clock; live orders (placed today, not finished) are
  at restaurants open now;
- a courier carries at most one live order and is ``on_delivery`` exactly when they do; couriers work
  in the zone of the restaurants whose orders they carry;
- ratings only on delivered orders, once, within 14 days; refunds within 48 hours of delivery and never
  more than ordered; customers.credit_cents is the sum of their credit transactions (loyalty 5% of the
  subtotal on delivery, refunds, redeemed, restored, goodwill).

Planted in every world for the templates: at least two restaurants of each cuisine, one open and one
closed now delivering to a shared zone; items with a "Size" and an "Extras" option group; placed,
accepted, preparing (with a courier) orders; delivered orders from the last 40 hours with no rating or
refund; customers with an empty cart and an order history; the promo code EATMORE15 usable by everyone.
Where chance (or the distractors) left none, ``plant_refundable`` adds a recent delivered order of a customer
without a namesake, and ``plant_dispatch`` makes a placed order's zone have a unique-named courier as its
first available one (both only in worlds lacking the situation, so the others stay as they were).

With ``ctx.distractors`` the world also gets namesake customers (same full name, other e-mail), look-alike
restaurants ("<name> Express", same cuisine, another zone) and couriers sharing a first and last name.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _ts
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

ZONES = ["Old Town", "Riverside", "Harbor", "University", "Northgate", "Westfield", "Eastbrook", "Hillcrest"]
CITY = "Brookhaven"

# cuisine -> restaurant names, mains (name, price, veg), sides/drinks (category, name, price, veg),
#            size options, extras options, required choice group (name, options) or None
CUISINES: list[dict[str, Any]] = [
    {"cuisine": "Pizza", "names": ["Bella Napoli", "Forno Rosso", "Slice Society", "Crust & Co", "Vesuvio Pizzeria",
                                   "Little Italy Pies"],
     "mains": [("Margherita", 1150, 1), ("Pepperoni", 1350, 0), ("Quattro Formaggi", 1450, 1),
               ("Diavola", 1400, 0), ("Funghi", 1300, 1), ("Prosciutto e Rucola", 1550, 0)],
     "sides": [("Sides", "Garlic Bread", 550, 1), ("Sides", "Caesar Salad", 750, 0), ("Desserts", "Tiramisu", 650, 1),
               ("Drinks", "San Pellegrino", 300, 1)],
     "sizes": [("Small", 0), ("Medium", 300), ("Large", 600)],
     "extras": [("Extra cheese", 150), ("Mushrooms", 100), ("Jalapenos", 100), ("Olives", 100), ("Anchovies", 200)],
     "choice": None},
    {"cuisine": "Thai", "names": ["Bangkok Garden", "Lemongrass Kitchen", "Thai Orchid", "Siam Street",
                                  "Chili Basil", "Golden Elephant"],
     "mains": [("Pad Thai", 1395, 0), ("Green Curry", 1450, 0), ("Massaman Curry", 1550, 0),
               ("Pad See Ew", 1395, 0), ("Drunken Noodles", 1450, 0), ("Tofu Red Curry", 1350, 1)],
     "sides": [("Starters", "Spring Rolls", 650, 1), ("Starters", "Chicken Satay", 850, 0),
               ("Sides", "Jasmine Rice", 300, 1), ("Drinks", "Thai Iced Tea", 450, 1)],
     "sizes": [("Regular", 0), ("Large", 350)],
     "extras": [("Fried egg", 150), ("Extra tofu", 200), ("Extra chicken", 300), ("Shrimp", 400)],
     "choice": ("Spice level", ["Mild", "Medium", "Thai hot"])},
    {"cuisine": "Indian", "names": ["Spice Route", "Tandoor House", "Bombay Bites", "Saffron Palace", "Masala Mahal",
                                    "Curry Leaf"],
     "mains": [("Chicken Tikka Masala", 1595, 0), ("Butter Chicken", 1595, 0), ("Lamb Rogan Josh", 1795, 0),
               ("Chana Masala", 1295, 1), ("Palak Paneer", 1395, 1), ("Vegetable Biryani", 1450, 1)],
     "sides": [("Breads", "Garlic Naan", 350, 1), ("Starters", "Samosas", 600, 1), ("Sides", "Basmati Rice", 300, 1),
               ("Drinks", "Mango Lassi", 450, 1)],
     "sizes": [("Regular", 0), ("Large", 400)],
     "extras": [("Extra naan", 300), ("Raita", 150), ("Extra paneer", 250), ("Papadums", 150)],
     "choice": ("Spice level", ["Mild", "Medium", "Hot"])},
    {"cuisine": "Burgers", "names": ["Smash Brothers", "Patty Wagon", "The Burger Joint", "Grill Masters",
                                     "Bun Intended", "Stack Shack"],
     "mains": [("Classic Cheeseburger", 1195, 0), ("Double Smash", 1495, 0), ("BBQ Bacon Burger", 1450, 0),
               ("Mushroom Swiss Burger", 1350, 0), ("Veggie Burger", 1250, 1), ("Crispy Chicken Sandwich", 1295, 0)],
     "sides": [("Sides", "Fries", 400, 1), ("Sides", "Onion Rings", 500, 1), ("Desserts", "Chocolate Shake", 600, 1),
               ("Drinks", "Lemonade", 350, 1)],
     "sizes": [("Single", 0), ("Double", 400)],
     "extras": [("Bacon", 200), ("Avocado", 250), ("Fried egg", 150), ("Extra cheese", 100)],
     "choice": ("Side", ["Fries", "Side salad", "Sweet potato fries"])},
    {"cuisine": "Sushi", "names": ["Sakura Sushi", "Umi Sushi Bar", "Koi Kitchen", "Tokyo Roll", "Wasabi House",
                                   "Nori & Rice"],
     "mains": [("Salmon Nigiri Set", 1695, 0), ("Dragon Roll", 1550, 0), ("California Roll", 1095, 0),
               ("Spicy Tuna Roll", 1250, 0), ("Vegetable Maki Set", 1150, 1), ("Chirashi Bowl", 1895, 0)],
     "sides": [("Starters", "Miso Soup", 350, 1), ("Starters", "Edamame", 450, 1), ("Starters", "Gyoza", 700, 0),
               ("Drinks", "Green Tea", 300, 1)],
     "sizes": [("6 pieces", 0), ("12 pieces", 700)],
     "extras": [("Extra ginger", 50), ("Spicy mayo", 100), ("Eel sauce", 100), ("Tobiko", 250)],
     "choice": None},
    {"cuisine": "Mexican", "names": ["Casa Verde", "El Camino Taqueria", "Taco Fiesta", "La Cantina", "Burrito Bandido",
                                     "Salsa Roja"],
     "mains": [("Carne Asada Burrito", 1350, 0), ("Chicken Quesadilla", 1195, 0), ("Fish Tacos", 1295, 0),
               ("Veggie Burrito Bowl", 1150, 1), ("Carnitas Tacos", 1250, 0), ("Chicken Enchiladas", 1395, 0)],
     "sides": [("Sides", "Chips and Guacamole", 650, 1), ("Sides", "Elote", 500, 1), ("Desserts", "Churros", 550, 1),
               ("Drinks", "Horchata", 400, 1)],
     "sizes": [("Regular", 0), ("Large", 300)],
     "extras": [("Guacamole", 250), ("Sour cream", 100), ("Extra cheese", 150), ("Pickled jalapenos", 75)],
     "choice": None},
    {"cuisine": "Chinese", "names": ["Golden Dragon", "Jade Garden", "Wok This Way", "Panda Palace", "Red Lantern",
                                     "Lucky Bamboo"],
     "mains": [("Kung Pao Chicken", 1395, 0), ("Sweet and Sour Pork", 1350, 0), ("Mapo Tofu", 1250, 1),
               ("Beef and Broccoli", 1495, 0), ("Vegetable Lo Mein", 1150, 1), ("Orange Chicken", 1395, 0)],
     "sides": [("Starters", "Pork Dumplings", 750, 0), ("Starters", "Vegetable Spring Rolls", 550, 1),
               ("Sides", "Egg Fried Rice", 450, 1), ("Drinks", "Jasmine Tea", 250, 1)],
     "sizes": [("Regular", 0), ("Large", 350)],
     "extras": [("Extra rice", 200), ("Fried egg", 150), ("Chili oil", 50), ("Extra vegetables", 200)],
     "choice": None},
    {"cuisine": "Mediterranean", "names": ["Olive & Fig", "Aegean Table", "Falafel Corner", "Cedar Grill",
                                           "Mezze Bar", "Santorini Kitchen"],
     "mains": [("Chicken Shawarma Plate", 1450, 0), ("Falafel Wrap", 1050, 1), ("Lamb Kofta Plate", 1595, 0),
               ("Halloumi Salad", 1250, 1), ("Mixed Grill Platter", 1895, 0), ("Gyro Pita", 1150, 0)],
     "sides": [("Sides", "Hummus and Pita", 600, 1), ("Sides", "Tabbouleh", 550, 1), ("Desserts", "Baklava", 450, 1),
               ("Drinks", "Mint Lemonade", 400, 1)],
     "sizes": [("Regular", 0), ("Large", 400)],
     "extras": [("Extra hummus", 200), ("Feta", 200), ("Garlic sauce", 75), ("Grilled halloumi", 300)],
     "choice": None},
    {"cuisine": "Vietnamese", "names": ["Pho Saigon", "Little Hanoi", "Banh Mi Brothers", "Lotus Pho", "Mekong Kitchen",
                                        "Pho Real"],
     "mains": [("Beef Pho", 1395, 0), ("Chicken Pho", 1295, 0), ("Lemongrass Pork Vermicelli", 1350, 0),
               ("Tofu Banh Mi", 995, 1), ("Grilled Pork Banh Mi", 1050, 0), ("Shaking Beef", 1695, 0)],
     "sides": [("Starters", "Fresh Spring Rolls", 650, 1), ("Starters", "Crispy Imperial Rolls", 700, 0),
               ("Drinks", "Vietnamese Iced Coffee", 500, 1), ("Drinks", "Coconut Water", 400, 1)],
     "sizes": [("Regular", 0), ("Large", 300)],
     "extras": [("Extra noodles", 200), ("Extra brisket", 350), ("Fried egg", 150), ("Extra herbs", 50)],
     "choice": None},
    {"cuisine": "Korean", "names": ["Seoul Kitchen", "Kimchi House", "Bibim Bowl", "Gangnam Grill", "Hanok Table",
                                    "K-Town Fried Chicken"],
     "mains": [("Beef Bulgogi", 1595, 0), ("Bibimbap", 1395, 0), ("Korean Fried Chicken", 1495, 0),
               ("Kimchi Fried Rice", 1250, 0), ("Tofu Jjigae", 1295, 1), ("Japchae", 1350, 1)],
     "sides": [("Starters", "Mandu", 750, 0), ("Sides", "Kimchi", 400, 1), ("Sides", "Steamed Rice", 300, 1),
               ("Drinks", "Barley Tea", 300, 1)],
     "sizes": [("Regular", 0), ("Large", 400)],
     "extras": [("Fried egg", 150), ("Extra kimchi", 150), ("Cheese", 200), ("Extra beef", 400)],
     "choice": ("Sauce", ["Soy garlic", "Sweet spicy", "Gochujang"])},
]

# opening patterns: weekday -> (opens, closes), weekdays absent are closed
HOURS = {
    "all_day": {d: ("11:00", "22:00") for d in range(7)},
    "evening": {d: ("17:00", "23:00") for d in range(1, 7)},
    "late": {d: ("12:00", "23:59") for d in range(7)},
    "lunch": {d: ("10:30", "15:30") for d in range(6)},
    "weekend_only": {d: ("12:00", "22:00") for d in (4, 5, 6)},
}
STREETS = ["Maple Avenue", "Canal Street", "Elm Street", "Harbor Road", "College Lane", "Mill Street", "Oak Terrace",
           "Station Road", "Park Place", "Bridge Street", "Willow Way", "King Street", "Chestnut Row", "Market Square"]
CUSTOMER_DOMAINS = ["example.com", "mailbox.org", "inbox.net", "postmail.io"]


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower().replace("'", "")


class _World:
    def __init__(self, ctx: WorldContext):
        self.ctx = ctx
        self.tools = ctx.tools  # the discount and loyalty rules the tools apply
        self.rng = ctx.rng
        self.now = ctx.clock.replace(microsecond=0)
        self.t = Tables((
            "zones", "restaurants", "opening_hours", "delivery_zones", "menu_items", "option_groups", "item_options",
            "customers", "addresses", "promo_codes", "carts", "cart_items", "cart_item_options", "couriers",
            "orders", "order_items", "ratings", "refunds", "credit_transactions", "support_tickets"))
        self.emails: set[str] = set()
        self.phones: set[str] = set()
        self.hours: dict[int, dict[int, tuple[str, str]]] = {}
        self.dz: dict[int, dict[int, tuple[int, int]]] = {}  # restaurant -> zone -> (fee, eta)
        self.menu: dict[int, list[Row]] = {}
        self.groups: dict[int, list[tuple[Row, list[Row]]]] = {}
        self.balance: dict[int, int] = {}
        self.promo_uses: dict[tuple[int, int], int] = {}
        self.busy_couriers: set[int] = set()

    def phone(self) -> str:
        return self.ctx.unique(lambda: f"555-{self.rng.randint(100, 999)}-{self.rng.randint(1000, 9999)}", self.phones)

    def street(self) -> str:
        return f"{self.rng.randint(2, 480)} {self.ctx.pick(STREETS)}"

    # -- places ------------------------------------------------------------------------------------
    def build_zones(self) -> None:
        for name in ZONES[: self.ctx.n(6, 8)]:
            self.t.add("zones", {"name": name, "city": CITY})

    def open_at(self, rid: int, when: datetime) -> bool:
        h = self.hours[rid].get(when.weekday())
        return h is not None and h[0] <= when.strftime("%H:%M") < h[1]

    def new_restaurant(self, cu: dict[str, Any], name: str, zone: Row, pattern: str, others: list[Row]) -> Row:
        ctx = self.ctx
        r = self.t.add("restaurants", {
            "name": name, "cuisine": cu["cuisine"], "zone_id": zone["id"], "street": self.street(),
            "phone": self.phone(), "min_order_cents": ctx.pick([0, 1000, 1200, 1500, 2000]),
            "prep_minutes": ctx.pick([10, 15, 20, 25, 30]), "is_active": 1,
            "created_at": _ts(ctx.moment_ago(200, 900))})
        self.hours[r["id"]] = HOURS[pattern]
        for d, (o, c) in sorted(HOURS[pattern].items()):
            self.t.add("opening_hours", {"restaurant_id": r["id"], "weekday": d, "opens": o, "closes": c})
        self.dz[r["id"]] = {}
        zones = [zone]
        for z in others:
            if all(z["id"] != y["id"] for y in zones):
                zones.append(z)
        for i, z in enumerate(zones):
            fee = ctx.pick([149, 199, 249]) if i == 0 else ctx.pick([299, 349, 399, 449, 499])
            eta = ctx.rng.randint(15, 25) if i == 0 else ctx.rng.randint(28, 50)
            self.dz[r["id"]][z["id"]] = (fee, eta)
            self.t.add("delivery_zones", {"restaurant_id": r["id"], "zone_id": z["id"], "delivery_fee_cents": fee,
                                          "eta_minutes": eta})
        self.build_menu(r, cu)
        return r

    def build_menu(self, r: Row, cu: dict[str, Any]) -> None:
        rng = self.rng
        items: list[Row] = []
        mains = cu["mains"][:1] + self.ctx.sample(cu["mains"][1:], self.ctx.n(2, 3))
        for name, price, veg in mains:
            m = self.t.add("menu_items", {
                "restaurant_id": r["id"], "category": "Mains", "name": name,
                "description": f"House {name.lower()}, made to order.", "price_cents": price + rng.choice([-100, 0, 0, 50, 100]),
                "is_vegetarian": veg, "is_available": 1})
            items.append(m)
            groups: list[tuple[Row, list[Row]]] = []
            g = self.t.add("option_groups", {"item_id": m["id"], "name": "Size", "min_select": 1, "max_select": 1})
            groups.append((g, [self.t.add("item_options", {"group_id": g["id"], "name": n, "price_delta_cents": d,
                                                            "is_available": 1}) for n, d in cu["sizes"]]))
            if cu["choice"]:
                cname, copts = cu["choice"]
                g = self.t.add("option_groups", {"item_id": m["id"], "name": cname, "min_select": 1, "max_select": 1})
                groups.append((g, [self.t.add("item_options", {"group_id": g["id"], "name": n, "price_delta_cents": 0,
                                                                "is_available": 1}) for n in copts]))
            g = self.t.add("option_groups", {"item_id": m["id"], "name": "Extras", "min_select": 0,
                                             "max_select": rng.choice([2, 3])})
            extras = self.ctx.sample(cu["extras"], 3)
            groups.append((g, [self.t.add("item_options", {"group_id": g["id"], "name": n, "price_delta_cents": d,
                                                            "is_available": 1}) for n, d in extras]))
            self.groups[m["id"]] = groups
        for cat, name, price, veg in self.ctx.sample(cu["sides"], self.ctx.n(2, 3)):
            m = self.t.add("menu_items", {"restaurant_id": r["id"], "category": cat, "name": name,
                                          "description": f"{name}.", "price_cents": price, "is_vegetarian": veg,
                                          "is_available": 1})
            items.append(m)
            self.groups[m["id"]] = []
        # a few things sold out (never the first main: templates and fixed tasks lean on it)
        for m in items[1:]:
            if self.ctx.chance(0.08):
                m["is_available"] = 0
        for m in items[1:]:
            for _, opts in self.groups[m["id"]]:
                for o in opts[1:]:
                    if m["is_available"] and self.ctx.chance(0.03):
                        o["is_available"] = 0
        self.menu[r["id"]] = items

    def build_restaurants(self) -> None:
        ctx = self.ctx
        zones = self.t["zones"]
        cuisines = CUISINES[: ctx.n(6, 10)]
        per = ctx.n(2, 6)
        for ci, cu in enumerate(cuisines):
            first_zone = zones[ci % len(zones)]
            for k in range(per):
                zone = first_zone if k == 0 else ctx.pick(zones)
                others = ctx.sample(zones, ctx.rng.randint(1, 3))
                if k == 0:
                    pattern = ctx.pick(["all_day", "late", "evening"])
                elif k == 1 and ci < 3:
                    pattern = ctx.pick(["lunch", "weekend_only"])  # closed now, delivering where #1 is
                    others = [first_zone] + others
                else:
                    pattern = ctx.weighted({"all_day": 0.45, "evening": 0.15, "late": 0.1, "lunch": 0.15,
                                            "weekend_only": 0.15})
                self.new_restaurant(cu, cu["names"][k], zone, pattern, others)
        if ctx.distractors:  # look-alikes: "<name> Express", same cuisine, another zone
            for r in list(self.t["restaurants"])[:: max(2, len(self.t["restaurants"]) // ctx.n(6, 15))]:
                cu = next(c for c in CUISINES if c["cuisine"] == r["cuisine"])
                zone = ctx.pick([z for z in zones if z["id"] != r["zone_id"]])
                self.new_restaurant(cu, r["name"] + " Express", zone, ctx.pick(["all_day", "late", "lunch"]),
                                    ctx.sample(zones, 2))

    # -- people --------------------------------------------------------------------------------------
    def new_customer(self, first: str, last: str, zone_ids: list[int]) -> Row:
        ctx = self.ctx
        base = f"{_ascii(first)}.{_ascii(last)}".replace(" ", "")
        email = ctx.unique(lambda: f"{base}{ctx.pick(['', '', str(ctx.rng.randint(2, 99))])}@"
                                   f"{ctx.pick(CUSTOMER_DOMAINS)}", self.emails)
        c = self.t.add("customers", {"full_name": f"{first} {last}", "email": email, "phone": self.phone(),
                                     "credit_cents": 0, "created_at": _ts(ctx.moment_ago(70, 700))})
        self.balance[c["id"]] = 0
        labels = ["Home", "Work", "Gym", "Parents"]
        for i, zid in enumerate(zone_ids):
            self.t.add("addresses", {"customer_id": c["id"], "label": labels[i], "street": self.street(),
                                     "zone_id": zid,
                                     "instructions": ctx.pick(["", "", "Ring twice", "Leave at the door",
                                                               "Call on arrival", "Side entrance"]),
                                     "is_default": 1 if i == 0 else 0})
        return c

    def build_customers(self) -> None:
        ctx = self.ctx
        zids = [z["id"] for z in self.t["zones"]]
        for _ in range(ctx.n(30, 800)):
            n_addr = ctx.weighted({1: 0.5, 2: 0.4, 3: 0.1})
            self.new_customer(ctx.faker.first_name(), ctx.faker.last_name(), ctx.sample(zids, n_addr))
        if ctx.distractors:
            for c in list(self.t["customers"])[: ctx.n(8, 120)]:
                first, last = c["full_name"].split(" ", 1)
                self.new_customer(first, last, ctx.sample(zids, 1))

    def build_couriers(self) -> None:
        ctx = self.ctx
        for z in self.t["zones"]:
            for _ in range(ctx.n(3, 12)):
                name = f"{ctx.faker.first_name()} {ctx.faker.last_name()}"
                self.t.add("couriers", {"full_name": name, "phone": self.phone(),
                                        "vehicle": ctx.weighted({"bicycle": 0.4, "scooter": 0.4, "car": 0.2}),
                                        "zone_id": z["id"], "status": ctx.weighted({"available": 0.7, "offline": 0.3}),
                                        "joined_at": _ts(ctx.moment_ago(30, 800))})
        if ctx.distractors:
            # offline namesakes in another zone; each zone's first available courier (the one dispatch picks)
            # keeps a unique name, so the templates that name a courier always have candidates
            firsts = [next((k["id"] for k in self.t["couriers"] if k["zone_id"] == z["id"] and k["status"] == "available"),
                           None) for z in self.t["zones"]]
            sources = [k for k in self.t["couriers"] if k["id"] not in firsts]
            for src in ctx.sample(sources, max(1, len(sources) * 15 // 100)):
                zones = [z for z in self.t["zones"] if z["id"] != src["zone_id"]] or self.t["zones"]
                self.t.add("couriers", {"full_name": src["full_name"], "phone": self.phone(),
                                        "vehicle": ctx.weighted({"bicycle": 0.4, "scooter": 0.4, "car": 0.2}),
                                        "zone_id": ctx.pick(zones)["id"], "status": "offline",
                                        "joined_at": _ts(ctx.moment_ago(30, 800))})

    def build_promos(self) -> None:
        today = self.now.date()
        d = lambda n: (today + timedelta(days=n)).isoformat()  # noqa: E731
        pizza = next(r for r in self.t["restaurants"] if r["cuisine"] == "Pizza")
        for code, desc, kind, val, cap, mins, rid, uses, fr, to, act in [
            ("WELCOME10", "10% off your first order", "percent", 10, 800, 1500, None, 1, -400, 300, 1),
            ("EATMORE15", "15% off orders over $20", "percent", 15, 600, 2000, None, 5, -60, 60, 1),
            ("FREEDEL", "Free delivery on orders over $25", "free_delivery", 0, None, 2500, None, 3, -90, 90, 1),
            ("SAVE5", "$5 off orders over $30", "fixed", 500, None, 3000, None, 2, -30, 45, 1),
            ("SPRING25", "25% off spring special", "percent", 25, 1000, 1500, None, 1, -70, -10, 1),
            ("MAYDAY7", "$7 off in May", "fixed", 700, None, 2500, None, 1, 17, 47, 1),
            ("LOYAL3", "$3 off for regulars", "fixed", 300, None, 1000, None, 3, -200, 100, 0),
            ("PIZZA20", f"20% off at {pizza['name']}", "percent", 20, 1000, 1500, pizza["id"], 2, -40, 40, 1),
        ]:
            self.t.add("promo_codes", {"code": code, "description": desc, "kind": kind, "value": val,
                                       "max_discount_cents": cap, "min_subtotal_cents": mins, "restaurant_id": rid,
                                       "uses_per_customer": uses, "valid_from": d(fr), "valid_until": d(to),
                                       "is_active": act})

    # -- orders --------------------------------------------------------------------------------------
    def pick_lines(self, rid: int, min_sub: int) -> list[tuple[Row, list[Row], int]]:
        ctx = self.ctx
        avail = [m for m in self.menu[rid] if m["is_available"]]
        lines: list[tuple[Row, list[Row], int]] = []
        for m in ctx.sample(avail, ctx.rng.randint(1, 3)):
            opts: list[Row] = []
            for g, gopts in self.groups[m["id"]]:
                ok = [o for o in gopts if o["is_available"]]
                k = g["min_select"] if g["min_select"] else (1 if ctx.chance(0.35) else 0)
                opts += ctx.sample(ok, min(k, g["max_select"]))
            lines.append((m, opts, ctx.weighted({1: 0.7, 2: 0.25, 3: 0.05})))
        sub = sum(self.unit(m, o) * q for m, o, q in lines)
        while sub < max(min_sub, 1):
            m, o, q = lines[0]
            lines[0] = (m, o, q + 1)
            sub += self.unit(m, o)
        return lines

    @staticmethod
    def unit(m: Row, opts: list[Row]) -> int:
        return m["price_cents"] + sum(o["price_delta_cents"] for o in opts)

    def credit(self, cid: int, oid: int | None, kind: str, amount: int, when: datetime) -> None:
        if amount:
            self.t.add("credit_transactions", {"customer_id": cid, "order_id": oid, "kind": kind,
                                               "amount_cents": amount, "created_at": _ts(when)})
            self.balance[cid] += amount

    def open_moment(self, rid: int, lo_days: float, hi_days: float) -> datetime | None:
        for _ in range(30):
            t = self.ctx.moment_ago(lo_days, hi_days)
            if self.open_at(rid, t) and self.open_at(rid, t + timedelta(minutes=2)):
                return t
        return None

    def choose_promo(self, cid: int, rid: int, sub: int, when: datetime) -> Row | None:
        if not self.ctx.chance(0.3):
            return None
        day = when.date().isoformat()
        ok = [p for p in self.t["promo_codes"] if p["is_active"] and p["valid_from"] <= day <= p["valid_until"]
              and (p["restaurant_id"] is None or p["restaurant_id"] == rid) and sub >= p["min_subtotal_cents"]
              and self.promo_uses.get((p["id"], cid), 0) < p["uses_per_customer"] and p["code"] != "EATMORE15"]
        return self.ctx.pick(ok) if ok else None

    def new_order(self, cust: Row, addr: Row, r: Row, placed: datetime, status: str, *, courier: Row | None = None,
                  use_credit: bool = False, promo_ok: bool = True) -> Row:
        ctx = self.ctx
        lines = self.pick_lines(r["id"], r["min_order_cents"])
        sub = sum(self.unit(m, o) * q for m, o, q in lines)
        fee = self.dz[r["id"]][addr["zone_id"]][0]
        promo = self.choose_promo(cust["id"], r["id"], sub, placed) if promo_ok else None
        disc = self.tools._discount(promo, sub, fee)
        due = sub + fee - disc
        credit = min(self.balance[cust["id"]], due) if use_credit else 0
        o = self.t.add("orders", {
            "customer_id": cust["id"], "restaurant_id": r["id"], "address_id": addr["id"], "zone_id": addr["zone_id"],
            "status": status, "subtotal_cents": sub, "delivery_fee_cents": fee, "discount_cents": disc,
            "credit_used_cents": credit, "total_cents": due - credit, "promo_code_id": promo and promo["id"],
            "courier_id": None, "note": ctx.pick(["", "", "", "No onions please", "Extra napkins", "Cutlery please"]),
            "placed_at": _ts(placed), "accepted_at": None, "preparing_at": None, "picked_up_at": None,
            "delivered_at": None, "cancelled_at": None, "cancel_reason": None})
        if promo:
            self.promo_uses[(promo["id"], cust["id"])] = self.promo_uses.get((promo["id"], cust["id"]), 0) + 1
        for m, opts, q in lines:
            gname = {o["id"]: g["name"] for g, gopts in self.groups[m["id"]] for o in gopts}
            self.t.add("order_items", {"order_id": o["id"], "item_id": m["id"], "item_name": m["name"],
                                       "options_text": ", ".join(f"{gname[x['id']]}: {x['name']}" for x in opts),
                                       "quantity": q, "unit_price_cents": self.unit(m, opts)})
        self.credit(cust["id"], o["id"], "redeemed", -credit, placed)
        steps = ["placed", "accepted", "preparing", "picked_up", "delivered"]
        t = placed
        stop = steps.index(status) if status in steps else 0
        for st in steps[1: stop + 1]:
            t = t + timedelta(minutes=ctx.rng.randint(2, 14) if st != "delivered" else ctx.rng.randint(8, 25))
            o[f"{st}_at"] = _ts(t)
        if status == "cancelled":
            if ctx.chance(0.5):
                o["accepted_at"] = _ts(placed + timedelta(minutes=ctx.rng.randint(1, 5)))
            o["cancelled_at"] = _ts(placed + timedelta(minutes=ctx.rng.randint(6, 12)))
            o["cancel_reason"] = ctx.pick(["changed_mind", "ordered_by_mistake", "taking_too_long", "wrong_address"])
            self.credit(cust["id"], o["id"], "restored", credit, datetime.fromisoformat(o["cancelled_at"]))
            if promo:
                self.promo_uses[(promo["id"], cust["id"])] -= 1
        if courier is not None:
            o["courier_id"] = courier["id"]
        if status == "delivered":
            earned = sub * self.tools.LOYALTY_PERCENT // 100
            self.credit(cust["id"], o["id"], "loyalty", earned, datetime.fromisoformat(o["delivered_at"]))
        return o

    def default_addresses(self) -> dict[int, Row]:
        return {a["customer_id"]: a for a in reversed(self.t["addresses"]) if a["is_default"]}

    def recent_delivery(self, c: Row, a: Row) -> Row | None:
        """An order to ``a`` from a restaurant serving it, placed in the last day or so while it was open and
        delivered at the latest six minutes before the clock (None when no such restaurant and moment)."""
        rs = self.serving(a)
        if not rs:
            return None
        r = self.ctx.pick(rs)
        t = self.open_moment(r["id"], 0.3, 1.6)
        if t is None:
            return None
        o = self.new_order(c, a, r, t, "delivered", courier=self.courier_for(r, False))
        if datetime.fromisoformat(o["delivered_at"]) >= self.now - timedelta(minutes=5):
            o["delivered_at"] = _ts(self.now - timedelta(minutes=6))
        return o

    def live_order(self, c: Row, a: Row, r: Row, placed: datetime, status: str, courier: Row | None) -> Row:
        """An order still in progress: its steps so far lie before the clock; its courier is on delivery."""
        o = self.new_order(c, a, r, placed, status, courier=courier, use_credit=self.ctx.chance(0.3))
        for k in ("accepted_at", "preparing_at", "picked_up_at"):
            if o[k] and o[k] >= _ts(self.now):
                o[k] = _ts(self.now - timedelta(minutes=1))
        if courier is not None:
            courier["status"] = "on_delivery"
            self.busy_couriers.add(courier["id"])
        return o

    def courier_for(self, r: Row, live: bool) -> Row | None:
        pool = [k for k in self.t["couriers"] if k["zone_id"] == r["zone_id"]]
        if live:
            pool = [k for k in pool if k["status"] == "available" and k["id"] not in self.busy_couriers]
            if len(pool) <= 1:  # keep one courier of the zone free for dispatch tasks
                return None
            if self.ctx.distractors:  # live orders go to couriers without a namesake, so tasks can name them
                names = [k["full_name"] for k in self.t["couriers"]]
                pool = [k for k in pool if names.count(k["full_name"]) == 1] or pool
        return self.ctx.pick(pool) if pool else None

    def serving(self, addr: Row, open_now: bool = False) -> list[Row]:
        return [r for r in self.t["restaurants"] if addr["zone_id"] in self.dz[r["id"]]
                and (not open_now or self.open_at(r["id"], self.now))]

    def build_history(self) -> None:
        ctx = self.ctx
        addrs: dict[int, list[Row]] = {}
        for a in self.t["addresses"]:
            addrs.setdefault(a["customer_id"], []).append(a)
        plan: list[tuple[datetime, Row, Row, Row]] = []
        for c in self.t["customers"]:
            for _ in range(ctx.weighted({0: 0.1, 1: 0.2, 2: 0.25, 3: 0.25, 4: 0.15, 5: 0.05})):
                a = ctx.pick(addrs[c["id"]])
                rs = self.serving(a)
                if not rs:
                    continue
                r = ctx.pick(rs)
                t = self.open_moment(r["id"], 2.5, 60)
                if t is not None:
                    plan.append((t, c, a, r))
        plan.sort(key=lambda x: (x[0], x[1]["id"]))
        for t, c, a, r in plan:
            status = "cancelled" if ctx.chance(0.15) else "delivered"
            o = self.new_order(c, a, r, t, status, courier=self.courier_for(r, False) if status == "delivered" else None,
                               use_credit=ctx.chance(0.25))
            if status == "delivered":
                self.after_delivery(o, c)

    def after_delivery(self, o: Row, c: Row, rate: bool = True) -> None:
        ctx = self.ctx
        dt = datetime.fromisoformat(o["delivered_at"])
        if rate and ctx.chance(0.55):
            self.t.add("ratings", {"order_id": o["id"], "customer_id": c["id"], "food_stars": ctx.weighted(
                {5: 0.45, 4: 0.3, 3: 0.12, 2: 0.08, 1: 0.05}), "delivery_stars": ctx.weighted(
                {5: 0.5, 4: 0.25, 3: 0.12, 2: 0.08, 1: 0.05}), "comment": ctx.pick(
                ["", "", "Great as always", "Arrived a bit cold", "Delicious!", "Courier was very friendly",
                 "Portion was small", "Will order again"]),
                "created_at": _ts(min(dt + timedelta(hours=ctx.rng.randint(1, 30)), self.now - timedelta(minutes=5)))})
        if ctx.chance(0.08):
            line = ctx.pick([x for x in self.t["order_items"] if x["order_id"] == o["id"]])
            when = min(dt + timedelta(hours=ctx.rng.randint(1, 20)), self.now - timedelta(minutes=3))
            self.t.add("refunds", {"order_id": o["id"], "order_item_id": line["id"], "quantity": 1,
                                   "amount_cents": line["unit_price_cents"], "reason": ctx.pick(
                                       ["missing_item", "wrong_item", "damaged"]), "created_at": _ts(when)})
            self.credit(c["id"], o["id"], "refund", line["unit_price_cents"], when)
        if ctx.chance(0.07):
            created = min(dt + timedelta(hours=ctx.rng.randint(1, 20)), self.now - timedelta(minutes=3))
            resolved = created + timedelta(hours=ctx.rng.randint(2, 30))
            done = resolved < self.now
            self.t.add("support_tickets", {"customer_id": c["id"], "order_id": o["id"], "category": ctx.pick(
                ["late_delivery", "courier", "payment", "wrong_item"]), "subject": ctx.pick(
                ["Order arrived late", "Courier left food at wrong door", "Charged twice?", "Wrong drink in my bag"]),
                "message": "Please look into this.", "status": "resolved" if done else "open",
                "created_at": _ts(created), "resolved_at": _ts(resolved) if done else None})
            if done and ctx.chance(0.5):
                self.credit(c["id"], o["id"], "goodwill", 500, resolved)

    def build_recent_and_live(self) -> None:
        """Delivered in the last 40 hours (refund / rating templates) and live orders at open restaurants."""
        ctx = self.ctx
        custs = list(self.t["customers"])
        ctx.rng.shuffle(custs)
        addr_of = self.default_addresses()
        it = iter(custs)
        made = 0
        for c in it:
            if made >= ctx.n(6, 40):
                break
            o = self.recent_delivery(c, addr_of[c["id"]])
            if o is None:
                continue
            self.after_delivery(o, c, rate=False)
            made += 1
        self.plant_refundable(custs)
        wanted = {"placed": ctx.n(4, 25), "accepted": ctx.n(3, 20), "preparing": ctx.n(4, 25),
                  "picked_up": ctx.n(2, 15)}
        live: set[int] = set()
        for status, n in wanted.items():
            done = 0
            pool = list(self.t["customers"])
            ctx.rng.shuffle(pool)
            for c in pool:
                if done >= n:
                    break
                if c["id"] in live:
                    continue
                a = addr_of[c["id"]]
                rs = self.serving(a, open_now=True)
                if not rs:
                    continue
                r = ctx.pick(rs)
                courier = None
                if status == "picked_up" or (status == "preparing" and done % 2 == 0) or \
                        (status == "accepted" and done == 1):
                    courier = self.courier_for(r, True)
                    if courier is None:
                        continue
                mins = {"placed": (1, 6), "accepted": (8, 14), "preparing": (15, 30), "picked_up": (30, 45)}[status]
                placed = self.now - timedelta(minutes=ctx.rng.randint(*mins))
                self.live_order(c, a, r, placed, status, courier)
                live.add(c["id"])
                done += 1
        self.plant_preparing(live, addr_of)
        self.plant_dispatch(live, addr_of)

    # -- plants for the templates (only in worlds that lack the situation; no randomness otherwise) -------
    def unique_name(self, table: str, name: str) -> bool:
        return sum(1 for x in self.t[table] if x["full_name"] == name) == 1

    def refundable(self, o: Row) -> bool:
        """A delivered order of the last 47 hours, no refund or rating, customer without a namesake."""
        cust = self.t["customers"][o["customer_id"] - 1]
        return (o["status"] == "delivered" and o["delivered_at"] >= _ts(self.now - timedelta(hours=47))
                and not any(f["order_id"] == o["id"] for f in self.t["refunds"])
                and not any(t["order_id"] == o["id"] for t in self.t["ratings"])
                and self.unique_name("customers", cust["full_name"]))

    def plant_refundable(self, custs: list[Row]) -> None:
        """missing_item_refund / refund_and_rate: one recent delivered order, unrefunded and unrated, of a
        customer without a namesake (chance refunds, or namesakes, can take every recent order)."""
        if any(self.refundable(o) for o in self.t["orders"]):
            return
        addr_of = self.default_addresses()
        for c in custs:
            if not self.unique_name("customers", c["full_name"]):
                continue
            o = self.recent_delivery(c, addr_of[c["id"]])
            if o is not None and self.refundable(o):
                return

    def dispatch_courier(self, zone_id: int) -> Row | None:
        """The courier kitchen_dispatch names for a zone: its lowest-id available courier."""
        return next((k for k in self.t["couriers"] if k["zone_id"] == zone_id and k["status"] == "available"), None)

    def dispatchable(self, o: Row) -> bool:
        if o["status"] != "placed":
            return False
        k = self.dispatch_courier(self.t["restaurants"][o["restaurant_id"] - 1]["zone_id"])
        return k is not None and self.unique_name("couriers", k["full_name"])

    def plant_preparing(self, live: set[int], addr_of: dict[int, Row]) -> None:
        """courier_complete_delivery: an order being prepared with a uniquely named courier assigned. With one
        courier on shift per zone (kept free for dispatch) the live loop can place none: call in an off-shift
        uniquely named courier of an open restaurant's zone for a new preparing order."""
        if any(o["status"] == "preparing" and o["courier_id"] is not None
               and self.unique_name("couriers", self.t["couriers"][o["courier_id"] - 1]["full_name"])
               for o in self.t["orders"]):
            return

        def off_shift(zone_id: int) -> Row | None:
            return next((k for k in self.t["couriers"] if k["zone_id"] == zone_id and k["status"] == "offline"
                         and k["id"] not in self.busy_couriers and self.unique_name("couriers", k["full_name"])),
                        None)

        for c in self.t["customers"]:
            if c["id"] in live or not self.unique_name("customers", c["full_name"]):
                continue
            a = addr_of[c["id"]]
            rs = [r for r in self.serving(a, open_now=True) if off_shift(r["zone_id"]) is not None]
            if not rs:
                continue
            r = self.ctx.pick(rs)
            k = off_shift(r["zone_id"])
            assert k is not None
            placed = self.now - timedelta(minutes=self.ctx.rng.randint(15, 30))
            self.live_order(c, a, r, placed, "preparing", k)
            live.add(c["id"])
            return

    def plant_dispatch(self, live: set[int], addr_of: dict[int, Row]) -> None:
        """kitchen_dispatch: a placed order whose restaurant's zone has, as its lowest-id available courier,
        one without a namesake. Live orders can take every free courier of a zone but a namesake, or a zone
        can have none available: bring the zone's first free unique-named courier on shift (and take the
        available namesakes before them off shift); failing that, place an order in a zone that has one."""
        if any(self.dispatchable(o) for o in self.t["orders"]):
            return

        def candidate(zone_id: int) -> Row | None:
            return next((k for k in self.t["couriers"] if k["zone_id"] == zone_id and k["status"] != "on_delivery"
                         and k["id"] not in self.busy_couriers and self.unique_name("couriers", k["full_name"])),
                        None)

        def bring_on_shift(k: Row) -> None:
            for x in self.t["couriers"]:
                if x["zone_id"] == k["zone_id"] and x["status"] == "available" and x["id"] < k["id"]:
                    x["status"] = "offline"
            k["status"] = "available"

        for o in self.t["orders"]:
            if o["status"] == "placed":
                k = candidate(self.t["restaurants"][o["restaurant_id"] - 1]["zone_id"])
                if k is not None:
                    bring_on_shift(k)
                    return
        for c in self.t["customers"]:
            if c["id"] in live:
                continue
            a = addr_of[c["id"]]
            rs = [r for r in self.serving(a, open_now=True) if candidate(r["zone_id"]) is not None]
            if not rs:
                continue
            r = self.ctx.pick(rs)
            self.new_order(c, a, r, self.now - timedelta(minutes=self.ctx.rng.randint(1, 6)), "placed",
                           use_credit=self.ctx.chance(0.3))
            bring_on_shift(candidate(r["zone_id"]))
            live.add(c["id"])
            return

    def build_carts(self) -> None:
        ctx = self.ctx
        for c in ctx.sample(self.t["customers"], ctx.n(5, 50)):
            r = ctx.pick(self.t["restaurants"])
            when = ctx.moment_ago(0.5, 20)
            cart = self.t.add("carts", {"customer_id": c["id"], "restaurant_id": r["id"], "promo_code_id": None,
                                        "updated_at": _ts(when)})
            for m, opts, q in self.pick_lines(r["id"], 0)[:2]:
                line = self.t.add("cart_items", {"cart_id": cart["id"], "item_id": m["id"], "quantity": q,
                                                 "added_at": _ts(when)})
                for o in sorted(opts, key=lambda x: x["id"]):
                    self.t.add("cart_item_options", {"cart_item_id": line["id"], "option_id": o["id"]})

    def rows(self) -> dict[str, list[Row]]:
        for c in self.t["customers"]:
            c["credit_cents"] = self.balance[c["id"]]
        return self.t


def build(ctx: WorldContext) -> dict[str, list[dict]]:
    w = _World(ctx)
    w.build_zones()
    w.build_restaurants()
    w.build_customers()
    w.build_couriers()
    w.build_promos()
    w.build_history()
    w.build_recent_and_live()
    w.build_carts()
    return w.rows()
