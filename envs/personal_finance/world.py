"""World builder for personal_finance: users, households, accounts, transactions, budgets, goals, bills.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Every random choice comes
from ``ctx.rng`` / ``ctx.faker`` and every date from ``ctx.clock``. The rows keep the invariants
``tools.py`` relies on:

- balances follow transactions: checking / savings ``balance = opening + sum(amounts)``, credit cards
  ``owed = opening - sum(amounts)``; no account ends overdrawn and no card over its limit;
- every transfer has both legs; split transactions have no category and parts that add up to the amount;
- goal ``saved`` equals the sum of its contributions, each backed by a transaction on the source account;
  achieved goals are exactly the ones at their target;
- each bill payment is backed by a transaction, one per due date, and ``next_due_on`` is the first unpaid due
  date (a few are overdue); categorisation rules agree with the transactions at their merchant;
- net-worth snapshots are the balances of the user's own accounts at the snapshot date.

Planted in every world: an over-budget category last month for every user with budgets, uncategorised
transactions, overdue bills, savings accounts able to fund a goal, cards with a balance a checking account can
pay off, and households with owners, editors and viewers over a joint account.

With ``ctx.distractors``: namesake users (same name, another e-mail), look-alike merchants, and repeated
purchases (same merchant and amount on another day).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, time, timedelta
from typing import Any

from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

CATEGORIES = [("Groceries", "expense"), ("Dining", "expense"), ("Transport", "expense"), ("Fuel", "expense"),
              ("Utilities", "expense"), ("Rent", "expense"), ("Entertainment", "expense"), ("Shopping", "expense"),
              ("Health", "expense"), ("Insurance", "expense"), ("Subscriptions", "expense"), ("Travel", "expense"),
              ("Home", "expense"), ("Personal Care", "expense"), ("Gifts", "expense"), ("Education", "expense"),
              ("Phone & Internet", "expense"), ("Fitness", "expense"), ("Salary", "income"), ("Interest", "income"),
              ("Refunds", "income"), ("Transfers", "transfer")]
MERCHANTS = [  # name, category, typical amount range in dollars
    ("Whole Foods Market", "Groceries", (25, 180)), ("Trader Joe's", "Groceries", (20, 120)),
    ("Safeway", "Groceries", (15, 140)), ("Costco", "Groceries", (60, 320)),
    ("Chipotle", "Dining", (9, 35)), ("Starbucks", "Dining", (4, 18)), ("Olive Garden", "Dining", (30, 110)),
    ("Blue Bottle Coffee", "Dining", (5, 20)), ("Uber", "Transport", (8, 55)), ("Lyft", "Transport", (8, 50)),
    ("BART", "Transport", (3, 15)), ("Shell", "Fuel", (30, 85)), ("Chevron", "Fuel", (30, 90)),
    ("Amazon", "Shopping", (12, 220)), ("Target", "Shopping", (15, 160)), ("Best Buy", "Shopping", (25, 600)),
    ("IKEA", "Home", (30, 450)), ("Home Depot", "Home", (15, 300)), ("CVS Pharmacy", "Health", (8, 80)),
    ("Walgreens", "Health", (6, 60)), ("AMC Theatres", "Entertainment", (15, 60)),
    ("Ticketmaster", "Entertainment", (40, 250)), ("Sephora", "Personal Care", (20, 120)),
    ("Great Clips", "Personal Care", (20, 40)), ("Delta Air Lines", "Travel", (150, 650)),
    ("Airbnb", "Travel", (120, 900)), ("Etsy", "Gifts", (15, 90)), ("Coursera", "Education", (39, 79)),
    ("Netflix", "Subscriptions", (15, 23)), ("Spotify", "Subscriptions", (11, 17)),
    ("PG&E", "Utilities", (60, 190)), ("Comcast Xfinity", "Phone & Internet", (60, 110)),
    ("Verizon Wireless", "Phone & Internet", (45, 120)), ("Planet Fitness", "Fitness", (10, 25)),
    ("Geico", "Insurance", (90, 210)), ("Parkview Apartments", "Rent", (1400, 2600)),
]
BILLS = [("Rent", "Parkview Apartments", "monthly"), ("Electricity", "PG&E", "monthly"),
         ("Internet", "Comcast Xfinity", "monthly"), ("Phone", "Verizon Wireless", "monthly"),
         ("Streaming", "Netflix", "monthly"), ("Gym membership", "Planet Fitness", "monthly"),
         ("Car insurance", "Geico", "quarterly")]
INSTITUTIONS = ["Chase", "Bank of America", "Wells Fargo", "Ally Bank", "Capital One", "Citi", "Discover", "Marcus"]
EMPLOYERS = ["Acme Corp", "Globex", "Initech", "Umbrella Health", "Stark Logistics", "Wayne Media"]
GOALS = ["Emergency fund", "Vacation to Japan", "New laptop", "Wedding", "House deposit", "New car", "Holiday gifts"]
HOUSEHOLD_WORDS = ["Maple", "Harbor", "Willow", "Cedar", "Summit", "Brook", "Aspen", "Juniper", "Linden", "Orchard"]
EMAIL_DOMAINS = ["gmail.com", "outlook.com", "yahoo.com", "proton.me", "icloud.com", "fastmail.com"]


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower()


def _local(first: str, last: str) -> str:
    return re.sub(r"[^a-z]", "", _ascii(first)) + "." + re.sub(r"[^a-z]", "", _ascii(last))


class World:
    def __init__(self, ctx: WorldContext):
        self.ctx = ctx
        self.rng = ctx.rng
        self.add_months = ctx.tools.add_months  # the same month arithmetic as the tools' bills
        self.now = ctx.clock.replace(microsecond=0)
        self.today = self.now.date()
        self.start = self.today - timedelta(days=100)
        self.t = Tables([
            "users", "households", "household_members", "institutions", "accounts", "categories", "merchants",
            "transactions", "transaction_splits", "budgets", "savings_goals", "goal_contributions", "bills",
            "bill_payments", "categorization_rules", "net_worth_snapshots", "alerts"])
        self.cat: dict[str, int] = {}
        self.mer: dict[str, Row] = {}
        self.emails: set[str] = set()

    def ts(self, d: date) -> str:
        return datetime.combine(d, time(self.rng.randint(7, 21), self.rng.randint(0, 59))).isoformat()

    def day(self, lo: date, hi: date) -> date:
        return lo + timedelta(days=self.rng.randint(0, max(0, (hi - lo).days)))

    def tx(self, acc: Row, d: date, amount: int, description: str, cat: str | None, merchant: str | None = None,
           note: str = "") -> Row:
        return self.t.add("transactions", {
            "account_id": acc["id"], "posted_on": d.isoformat(), "description": description,
            "merchant_id": self.mer[merchant]["id"] if merchant else None,
            "category_id": self.cat[cat] if cat else None, "amount_cents": amount,
            "status": "pending" if d > self.today - timedelta(days=2) else "posted", "is_split": 0, "note": note,
            "created_at": self.ts(d)})

    # -- reference ------------------------------------------------------------------------------------
    def reference(self) -> None:
        for name, kind in CATEGORIES:
            self.cat[name] = self.t.add("categories", {"name": name, "kind": kind})["id"]
        for name, cat, rng in MERCHANTS:
            m = self.t.add("merchants", {"name": name, "default_category_id": self.cat[cat]})
            m["_cat"], m["_range"] = cat, rng
            self.mer[name] = m
        if self.ctx.distractors:
            for name, cat, rng in MERCHANTS[::4]:
                alt = name + " Online" if " " in name else name + " Express"
                m = self.t.add("merchants", {"name": alt, "default_category_id": self.cat[cat]})
                m["_cat"], m["_range"] = cat, rng
                self.mer[alt] = m
        for n in INSTITUTIONS:
            self.t.add("institutions", {"name": n})

    # -- people and accounts ------------------------------------------------------------------------
    def people(self) -> None:
        ctx = self.ctx
        for _ in range(ctx.n(14, 160)):
            first, last = ctx.faker.first_name(), ctx.faker.last_name()
            base = _local(first, last)
            e, n = f"{base}@{ctx.pick(EMAIL_DOMAINS)}", 2
            while e in self.emails:
                e, n = f"{base}{n}@{ctx.pick(EMAIL_DOMAINS)}", n + 1
            self.emails.add(e)
            self.t.add("users", {"full_name": f"{first} {last}", "email": e,
                                 "created_at": self.ts(self.today - timedelta(days=self.rng.randint(120, 900)))})
        if ctx.distractors:
            for u in list(self.t["users"])[::5]:
                first, last = u["full_name"].split(" ", 1)
                e = f"{_local(first, last)}.{self.rng.randint(10, 99)}@{ctx.pick(EMAIL_DOMAINS)}"
                if e not in self.emails:
                    self.emails.add(e)
                    self.t.add("users", {"full_name": u["full_name"], "email": e, "created_at": u["created_at"]})
        masks: set[str] = set()
        for u in self.t["users"]:
            inst = ctx.sample(range(1, len(INSTITUTIONS) + 1), 3)
            opened = lambda: self.ts(self.today - timedelta(days=self.rng.randint(130, 2000)))  # noqa: E731
            u["_checking"] = self.account(u, "Everyday Checking", "checking", inst[0], opened(), masks)
            u["_savings"] = self.account(u, "High-Yield Savings", "savings", inst[1], opened(), masks) \
                if ctx.chance(0.8) else None
            u["_cards"] = [self.account(u, name, "credit_card", inst[2], opened(), masks)
                           for name in ctx.sample(["Sapphire Card", "Cashback Card", "Travel Rewards Card"],
                                                  self.rng.randint(1, 2))]

    def account(self, u: Row, name: str, kind: str, inst: int, opened: str, masks: set[str]) -> Row:
        mask = self.ctx.unique(lambda: f"{self.rng.randint(0, 9999):04d}", masks)
        a = self.t.add("accounts", {"user_id": u["id"], "household_id": None, "institution_id": inst, "name": name,
                                    "account_type": kind, "mask": mask, "opening_balance_cents": 0, "balance_cents": 0,
                                    "credit_limit_cents": (self.rng.randint(20, 120) * 10000 if kind == "credit_card"
                                                           else None),
                                    "status": "active", "opened_at": opened})
        a["_owner"] = u
        return a

    def households(self) -> None:
        ctx = self.ctx
        users = [u for u in self.t["users"]]
        n = ctx.n(3, 34)
        pool = ctx.sample(users, min(len(users), n * 3))
        names: set[str] = set()
        for i in range(n):
            members = pool[i * 3: i * 3 + self.rng.randint(2, 3)]
            if len(members) < 2:
                break
            owner = members[0]
            last = owner["full_name"].split(" ", 1)[1]
            name = ctx.unique(lambda: f"{last} family" if f"{last} family" not in names else
                              f"{ctx.pick(HOUSEHOLD_WORDS)} Street home", names)
            h = self.t.add("households", {
                "name": name, "created_by": owner["id"],
                "created_at": self.ts(self.today - timedelta(days=self.rng.randint(110, 600)))})
            roles = ["owner", "editor", "viewer"]
            for k, m in enumerate(members):
                self.t.add("household_members", {"household_id": h["id"], "user_id": m["id"], "role": roles[k],
                                                 "joined_at": h["created_at"]})
            masks = {a["mask"] for a in self.t["accounts"]}
            joint = self.account(owner, f"{name.split(' ')[0]} Joint Checking", "checking", self.rng.randint(1, 3),
                                 h["created_at"], masks)
            joint["household_id"] = h["id"]
            owner["_joint"] = joint

    # -- transactions -------------------------------------------------------------------------------
    def spend(self, acc: Row, merchants: list[str], n: int) -> None:
        ctx = self.ctx
        for _ in range(n):
            mname = ctx.pick(merchants)
            m = self.mer[mname]
            lo, hi = m["_range"]
            amount = -self.rng.randint(lo * 100, hi * 100)
            d = self.day(self.start, self.today)
            cat = m["_cat"] if not ctx.chance(0.12) else None
            t = self.tx(acc, d, amount, mname.upper() if ctx.chance(0.5) else mname, cat, mname)
            if cat and m["_cat"] in ("Groceries", "Shopping") and -amount >= 3000 and ctx.chance(0.15):
                part = -amount * self.rng.randint(40, 80) // 100
                t["category_id"], t["is_split"] = None, 1
                other = "Home" if m["_cat"] == "Groceries" else "Gifts"
                self.t.add("transaction_splits", {"transaction_id": t["id"], "category_id": self.cat[m["_cat"]],
                                                  "amount_cents": -part})
                self.t.add("transaction_splits", {"transaction_id": t["id"], "category_id": self.cat[other],
                                                  "amount_cents": amount + part})
            if ctx.distractors and ctx.chance(0.1):  # the same purchase again on another day
                self.tx(acc, self.day(self.start, self.today), amount, mname, cat, mname)
            if m["_cat"] == "Shopping" and ctx.chance(0.08):
                self.tx(acc, min(self.today, d + timedelta(days=self.rng.randint(2, 10))), -amount // 2,
                        f"{mname} refund", "Shopping", mname)

    def transfer(self, src: Row, dst: Row, d: date, amount: int, label: str = "Transfer from") -> None:
        tr = "Transfers"
        self.tx(src, d, -amount, f"Transfer to {dst['name']}", tr)
        self.tx(dst, d, amount, f"{label} {src['name']}", tr)

    def activity(self) -> None:
        ctx = self.ctx
        shop = [m for m in self.mer if self.mer[m]["_cat"] not in ("Rent", "Utilities", "Phone & Internet",
                                                                     "Insurance", "Subscriptions", "Fitness")]
        for u in self.t["users"]:
            chk = u["_checking"]
            employer = ctx.pick(EMPLOYERS)
            pay = self.rng.randint(110, 240) * 1000
            d = self.start + timedelta(days=self.rng.randint(0, 13))
            while d <= self.today:
                self.tx(chk, d, pay, f"Payroll {employer}", "Salary")
                d += timedelta(days=14)
            self.spend(chk, shop, self.rng.randint(14, 26))
            for card in u["_cards"]:
                self.spend(card, shop, self.rng.randint(8, 16))
            if u.get("_joint"):
                self.spend(u["_joint"], [m for m in shop if self.mer[m]["_cat"] in ("Groceries", "Home", "Dining")],
                           self.rng.randint(6, 12))
                self.tx(u["_joint"], self.start + timedelta(days=3), 150000, "Deposit from Everyday Checking",
                        "Transfers")
                self.tx(chk, self.start + timedelta(days=3), -150000, f"Transfer to {u['_joint']['name']}", "Transfers")
            if u["_savings"]:
                for k in range(3):
                    d = self.add_months(self.start, k) + timedelta(days=5)
                    if d <= self.today:
                        self.transfer(chk, u["_savings"], d, self.rng.randint(8, 20) * 10000)
                        self.tx(u["_savings"], d.replace(day=28) if d.day < 28 else d, self.rng.randint(500, 4000),
                                "Interest payment", "Interest")

    def bills(self) -> None:
        ctx = self.ctx
        for u in self.t["users"]:
            chk = u["_checking"]
            for k, (name, merchant, freq) in enumerate(ctx.sample(BILLS, self.rng.randint(2, 4))):
                m = self.mer[merchant]
                lo, hi = m["_range"]
                amount = self.rng.randint(lo, hi) * 100 + ctx.pick([0, 0, 99, 49])
                acc = chk if merchant in ("Parkview Apartments", "PG&E") or not u["_cards"] else ctx.pick([chk] + u["_cards"])
                step = {"monthly": 1, "quarterly": 3}[freq]
                due = date(self.start.year, self.start.month, self.rng.randint(1, 28))
                overdue = k == 0 and ctx.chance(0.5)
                b = self.t.add("bills", {"user_id": u["id"], "name": name, "merchant_id": m["id"],
                                         "category_id": m["default_category_id"], "account_id": acc["id"],
                                         "amount_cents": amount, "frequency": freq, "next_due_on": "",
                                         "autopay": int(ctx.chance(0.5) and not overdue), "status": "active",
                                         "created_at": self.ts(self.start - timedelta(days=30))})
                while True:
                    nxt = self.add_months(due, step)
                    if due > self.today or (overdue and nxt > self.today):
                        break  # unpaid: in the future, or the overdue one
                    if due >= self.start:
                        paid = due - timedelta(days=self.rng.randint(0, 3))
                        t = self.tx(acc, max(paid, self.start), -amount, name, m["_cat"], merchant)
                        self.t.add("bill_payments", {"bill_id": b["id"], "account_id": acc["id"],
                                                     "transaction_id": t["id"], "due_on": due.isoformat(),
                                                     "amount_cents": amount,
                                                     "paid_on": t["posted_on"]})
                    due = nxt
                b["next_due_on"] = due.isoformat()

    def card_payments(self) -> None:
        """Pay part of each card's purchases from checking, so cards carry a balance a checking account can clear."""
        for u in self.t["users"]:
            for card in u["_cards"]:
                spent = -sum(t["amount_cents"] for t in self.t["transactions"] if t["account_id"] == card["id"])
                if spent > 0:
                    d = self.today - timedelta(days=self.rng.randint(12, 25))
                    self.transfer(u["_checking"], card, d, spent * self.rng.randint(50, 80) // 100, "Card payment from")

    def goals(self) -> None:
        ctx = self.ctx
        for u in self.t["users"]:
            for name in ctx.sample(GOALS, self.rng.randint(1, 2)):
                target = self.rng.randint(20, 150) * 10000
                g = self.t.add("savings_goals", {
                    "user_id": u["id"], "name": name, "target_cents": target, "saved_cents": 0,
                    "target_date": (self.today + timedelta(days=self.rng.randint(60, 500))).isoformat(),
                    "status": "active", "created_at": self.ts(self.start)})
                saved = 0
                for _ in range(self.rng.randint(0, 4)):
                    src = u["_savings"] if u["_savings"] and ctx.chance(0.5) else u["_checking"]
                    amt = min(self.rng.randint(5, 40) * 1000, target - saved - 10000)
                    if amt <= 0:
                        break
                    d = self.day(self.start, self.today - timedelta(days=2))
                    t = self.tx(src, d, -amt, f"Transfer to goal: {name}", "Transfers")
                    self.t.add("goal_contributions", {"goal_id": g["id"], "from_account_id": src["id"],
                                                      "transaction_id": t["id"], "amount_cents": amt,
                                                      "contributed_on": d.isoformat()})
                    saved += amt
                g["saved_cents"] = saved

    def rules(self) -> None:
        ctx = self.ctx
        for u in self.t["users"]:
            if not ctx.chance(0.35):
                continue
            own = {a["id"] for a in self.t["accounts"] if a["user_id"] == u["id"]}
            used = sorted({t["merchant_id"] for t in self.t["transactions"] if t["account_id"] in own and t["merchant_id"]})
            for mid in ctx.sample(used, 1):
                m = self.t["merchants"][mid - 1]
                self.t.add("categorization_rules", {"user_id": u["id"], "merchant_id": mid,
                                                    "category_id": m["default_category_id"],
                                                    "created_at": self.ts(self.start - timedelta(days=5))})
                for t in self.t["transactions"]:
                    if t["account_id"] in own and t["merchant_id"] == mid and not t["is_split"]:
                        t["category_id"] = m["default_category_id"]

    # -- balances and what depends on them ------------------------------------------------------------
    def balances(self) -> None:
        """Opening balances chosen so that no account is ever overdrawn (nor a card negative or over its limit)."""
        by_acc: dict[int, list[Row]] = {}
        for t in self.t["transactions"]:
            by_acc.setdefault(t["account_id"], []).append(t)
        for a in self.t["accounts"]:
            run, lo, hi = 0, 0, 0
            for t in sorted(by_acc.get(a["id"], []), key=lambda r: (r["posted_on"], r["id"])):
                run += t["amount_cents"]
                lo, hi = min(lo, run), max(hi, run)
            if a["account_type"] == "credit_card":
                opening = hi + self.rng.randint(0, 600) * 100
                a["opening_balance_cents"], a["balance_cents"] = opening, opening - run
                a["credit_limit_cents"] = max(a["credit_limit_cents"], ((opening - lo) // 100000 + 2) * 100000)
            else:
                cushion = self.rng.randint(300, 2500) * 100 if a["account_type"] == "checking" else \
                    self.rng.randint(3000, 30000) * 100
                opening = -lo + cushion
                a["opening_balance_cents"], a["balance_cents"] = opening, opening + run

    def budgets(self) -> None:
        ctx = self.ctx
        last = self.add_months(self.today.replace(day=1), -1).isoformat()[:7]
        this = self.today.isoformat()[:7]
        for u in self.t["users"]:
            own = {a["id"] for a in self.t["accounts"] if a["user_id"] == u["id"]}
            for month in (last, this):
                spent: dict[int, int] = {}
                for t in self.t["transactions"]:
                    if t["account_id"] in own and t["posted_on"][:7] == month and not t["is_split"] and t["category_id"]:
                        spent[t["category_id"]] = spent.get(t["category_id"], 0) - t["amount_cents"]
                for s in self.t["transaction_splits"]:
                    t = self.t["transactions"][s["transaction_id"] - 1]
                    if t["account_id"] in own and t["posted_on"][:7] == month:
                        spent[s["category_id"]] = spent.get(s["category_id"], 0) - s["amount_cents"]
                expense = [c for c in sorted(spent) if self.t["categories"][c - 1]["kind"] == "expense" and spent[c] > 0]
                for i, cid in enumerate(ctx.sample(expense, self.rng.randint(3, 5))):
                    factor = 0.75 if (month == last and i == 0) else self.rng.uniform(0.7, 1.5)
                    limit = max(5000, int(spent[cid] * factor) // 1000 * 1000)
                    if limit == spent[cid]:
                        limit += 1000
                    self.t.add("budgets", {
                        "user_id": u["id"], "month": month, "category_id": cid, "limit_cents": limit,
                        "created_at": self.ts(date.fromisoformat(month + "-01") - timedelta(days=2))})
                if month == this and ctx.chance(0.5):
                    extra = [c for c in (self.cat["Travel"], self.cat["Gifts"], self.cat["Education"]) if c not in spent]
                    for cid in extra[:1]:
                        self.t.add("budgets", {
                            "user_id": u["id"], "month": month, "category_id": cid,
                            "limit_cents": self.rng.randint(5, 30) * 1000,
                            "created_at": self.ts(date.fromisoformat(month + "-01") - timedelta(days=2))})

    def snapshots(self) -> None:
        ctx = self.ctx
        for u in self.t["users"]:
            if not ctx.chance(0.6):
                continue
            own = [a for a in self.t["accounts"] if a["user_id"] == u["id"]]
            for k in range(3, 0, -1):
                d = self.add_months(self.today.replace(day=1), -k + 1)
                if d >= self.today:
                    continue
                assets = liab = 0
                for a in own:
                    s = sum(t["amount_cents"] for t in self.t["transactions"] if t["account_id"] == a["id"]
                            and t["posted_on"] < d.isoformat())
                    if a["account_type"] == "credit_card":
                        liab += a["opening_balance_cents"] - s
                    else:
                        assets += a["opening_balance_cents"] + s
                self.t.add("net_worth_snapshots", {"user_id": u["id"], "taken_on": d.isoformat(),
                                                   "assets_cents": assets, "liabilities_cents": liab,
                                                   "net_cents": assets - liab})

    def alerts(self) -> None:
        ctx = self.ctx
        for u in self.t["users"]:
            if ctx.chance(0.5):
                self.t.add("alerts", {"user_id": u["id"], "alert_type": "low_balance",
                                      "account_id": u["_checking"]["id"],
                                      "threshold_cents": self.rng.randint(2, 10) * 10000, "is_active": 1,
                                      "created_at": self.ts(self.start)})
            if ctx.chance(0.3):
                self.t.add("alerts", {"user_id": u["id"], "alert_type": "bill_due", "account_id": None,
                                      "threshold_cents": None, "is_active": int(ctx.chance(0.8)),
                                      "created_at": self.ts(self.start)})

    def rows(self) -> dict[str, list[Row]]:
        return {k: [{c: v for c, v in r.items() if not c.startswith("_")} for r in rows] for k, rows in self.t.items()}


def build(ctx: WorldContext) -> dict[str, list[dict]]:
    w = World(ctx)
    w.reference()
    w.people()
    w.households()
    w.activity()
    w.bills()
    w.card_payments()
    w.goals()
    w.rules()
    w.balances()
    w.budgets()
    w.snapshots()
    w.alerts()
    return w.rows()
