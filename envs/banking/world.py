"""World builder for banking: branches, staff, customers, accounts, cards, payees, payments and disputes.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Randomness comes only from
``ctx.rng`` / ``ctx.faker`` and every date from ``ctx.clock``. The rows keep the invariants tools.py relies on:

- every account's balance equals its opening amount plus the sum of its transactions, and each transaction's
  ``balance_after_cents`` is the running balance; balances never go below zero in the generated history;
- a transfer has one ``transfer_out`` / ``bill_payment`` leg and, between own accounts, one ``transfer_in`` leg;
- statements for January and February 2026 agree with the transactions;
- card purchases use a card of the account that was valid at the time; card last-4 digits are unique per
  customer; active and frozen cards have not expired;
- disputes are on card purchases; resolved ones have a refund transaction; statuses agree with officer,
  closing time and the dispute events;
- scheduled payments that are active or paused have a next run date after today; past runs are transfers;
- no transfer was made today, so the daily transfer limits are untouched; everything is before the clock.

Planted for the templates in every world: customers with two purchases at one merchant in February,
customers with two unresolved disputes plus a closed one, opened disputes waiting for an officer, recent
undisputed purchases on active cards, active monthly scheduled payments, checking + savings pairs.
With ``ctx.distractors``: namesake customers (same name, other e-mail), look-alike merchant names and
look-alike payee names on other customers.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

BRANCHES = [
    ("SFO-MKT", "Market Street", "San Francisco", "1450 Market St"),
    ("OAK-DTN", "Oakland Downtown", "Oakland", "520 Broadway"),
    ("SJC-CTR", "San Jose Central", "San Jose", "88 Santa Clara St"),
    ("SAC-CAP", "Sacramento Capitol", "Sacramento", "1012 J St"),
    ("BRK-UNI", "Berkeley University Ave", "Berkeley", "2150 University Ave"),
    ("FRE-MSN", "Fremont Mission", "Fremont", "39200 Mission Blvd"),
    ("PAL-UNV", "Palo Alto University", "Palo Alto", "301 University Ave"),
    ("SFO-SUN", "Sunset District", "San Francisco", "2200 Irving St"),
    ("STK-MIR", "Stockton Miracle Mile", "Stockton", "2300 Pacific Ave"),
    ("SRO-4TH", "Santa Rosa Fourth Street", "Santa Rosa", "640 4th St"),
    ("MRY-ALV", "Monterey Alvarado", "Monterey", "410 Alvarado St"),
    ("FRS-SHW", "Fresno Shaw Avenue", "Fresno", "1550 Shaw Ave"),
    ("WCK-MAI", "Walnut Creek Main", "Walnut Creek", "1390 N Main St"),
    ("SMT-ELC", "San Mateo El Camino", "San Mateo", "2900 S El Camino Real"),
    ("DAV-2ND", "Davis Second Street", "Davis", "215 2nd St"),
    ("HAY-FTH", "Hayward Foothill", "Hayward", "22500 Foothill Blvd"),
]

PRODUCTS = [
    # id, code, name, kind, daily transfer limit, monthly withdrawals, overdraft fee, max overdraft, max card, bps
    (1, "EVC", "Everyday Checking", "checking", 250000, None, 3500, 50000, 150000, 0),
    (2, "PRC", "Premier Checking", "checking", 1000000, None, 2500, 200000, 500000, 5),
    (3, "BSV", "Basic Savings", "savings", 500000, 6, 0, 0, 0, 50),
    (4, "HYS", "High-Yield Savings", "savings", 500000, 3, 0, 0, 0, 350),
]

MERCHANTS = [
    ("Safeway", 2500, 16000), ("Trader Joe's", 1800, 9000), ("Whole Foods Market", 2200, 14000),
    ("Shell", 3000, 7500), ("Chevron", 3000, 8000), ("Amazon", 1200, 20000), ("Target", 1500, 12000),
    ("Costco Wholesale", 6000, 30000), ("Blue Bottle Coffee", 450, 1800), ("Peet's Coffee", 400, 1500),
    ("Walgreens", 800, 5000), ("CVS Pharmacy", 700, 4500), ("Netflix", 1549, 1549), ("Spotify", 1199, 1199),
    ("Uber", 900, 4800), ("Lyft", 900, 4500), ("Home Depot", 2000, 25000), ("Best Buy", 3000, 60000),
    ("Chipotle", 1100, 3200), ("Apple Store", 999, 45000), ("REI", 2500, 22000), ("Southwest Airlines", 9000, 42000),
]
LOOKALIKE_MERCHANTS = {"Safeway": "Safeway Fuel", "Target": "Target Optical", "Amazon": "Amazon Fresh",
                       "Shell": "Shell Oil Carwash", "Costco Wholesale": "Costco Gas",
                       "Blue Bottle Coffee": "Blue Bottle Coffee Roasters"}

BILLERS = [
    ("Pacific Gas & Electric", "Bank of America"), ("Comcast Xfinity", "Wells Fargo"),
    ("Verizon Wireless", "JPMorgan Chase"), ("City Water Utility", "US Bank"),
    ("State Farm Insurance", "Citibank"), ("Sallie Mae", "PNC Bank"), ("AT&T", "JPMorgan Chase"),
    ("Kaiser Permanente", "Wells Fargo"), ("Golden State Gym", "Bank of America"),
    ("Recology Waste", "Union Bank"), ("Geico", "Citibank"), ("Sunrise Apartments", "First Republic"),
]
LOOKALIKE_BILLERS = {"City Water Utility": "City Water Utilities", "Verizon Wireless": "Verizon Fios",
                     "Comcast Xfinity": "Comcast Business"}
EMPLOYERS = ["Genentech", "Kaiser Permanente", "Oracle", "Safeway Inc", "UC Berkeley", "City of Oakland",
             "Adobe", "Intuit", "Sutter Health", "Stanford Health Care", "PG&E", "Visa Inc"]
DOMAINS = ["gmail.com", "yahoo.com", "outlook.com", "icloud.com", "proton.me", "fastmail.com"]
REASONS = ["unauthorized", "duplicate", "not_received", "wrong_amount", "other"]


def _at(d: date, h: int, m: int = 0) -> datetime:
    return datetime.combine(d, time(h, m))


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng, fk = ctx.rng, ctx.faker
    clock = ctx.clock
    today = ctx.today
    hist_start = date(2025, 12, 1)
    T = Tables(["branches", "staff", "products", "customers", "accounts", "cards", "payees", "scheduled_payments",
                "transfers", "transactions", "disputes", "dispute_events", "statements", "alerts", "notifications",
                "activity_log"])

    # ---- branches and staff --------------------------------------------------------------------
    branches = T["branches"]
    nb = ctx.n(5, 16)
    for i, (code, name, city, addr) in enumerate(BRANCHES[:nb], start=1):
        T.add("branches", {"code": code, "name": name, "city": city, "address": addr,
                           "phone": f"(415) 555-{1000 + i * 37:04d}", "opened_on": ctx.days_ago(900, 9000).isoformat()})
    staff_emails: set[str] = set()

    def add_staff(branch_id: int, role: str, active: int = 1) -> Row:
        first, last = fk.first_name(), fk.last_name()
        email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.randint(1, 99)}@harborbank.com",
                           staff_emails)
        return T.add("staff", {"branch_id": branch_id, "full_name": f"{first} {last}", "email": email, "role": role,
                               "is_active": active})

    for b in branches:
        add_staff(b["id"], "branch_manager")
        for _ in range(rng.randint(1, 2)):
            add_staff(b["id"], "teller")
    officers = [add_staff(branches[k % nb]["id"], "dispute_officer") for k in range(ctx.n(3, 8))]
    add_staff(branches[0]["id"], "dispute_officer", active=0)

    T["products"] = [{"id": p[0], "code": p[1], "name": p[2], "kind": p[3], "daily_transfer_limit_cents": p[4],
                      "monthly_withdrawal_limit": p[5], "overdraft_fee_cents": p[6], "max_overdraft_cents": p[7],
                      "max_card_daily_limit_cents": p[8], "interest_rate_bps": p[9]} for p in PRODUCTS]
    prod = {p["id"]: p for p in T["products"]}

    # ---- customers ------------------------------------------------------------------------------
    customers = T["customers"]
    names: set[tuple[str, str]] = set()
    emails: set[str] = set()
    n_cust = ctx.n(20, 220)

    def add_customer(first: str, last: str, email: str | None = None) -> Row:
        if email is None:
            email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.choice(['', str(rng.randint(1, 99))])}"
                               f"@{rng.choice(DOMAINS)}".replace("'", ""), emails)
        else:
            emails.add(email)
        return T.add("customers", {
            "first_name": first, "last_name": last, "email": email,
            "phone": f"({rng.choice([415, 510, 408, 650, 916, 707])}) 555-{rng.randint(0, 9999):04d}",
            "date_of_birth": ctx.days_ago(365 * 21, 365 * 78).isoformat(),
            "home_branch_id": rng.randint(1, nb), "status": "active",
            "created_at": _iso(_at(ctx.days_ago(400, 3000), rng.randint(9, 17), rng.randint(0, 59)))})

    for _ in range(n_cust):
        first, last = ctx.unique(lambda: (fk.first_name(), fk.last_name()), names)
        add_customer(first, last)
    if ctx.distractors:
        for c in ctx.sample(customers[:], max(3, n_cust // 8)):
            add_customer(c["first_name"], c["last_name"])
    # a couple of locked customers (not used by templates)
    for c in customers[-2:]:
        c["status"] = "locked"

    # ---- accounts, cards ------------------------------------------------------------------------
    accounts = T["accounts"]
    cards = T["cards"]
    acct_numbers: set[str] = set()
    cust_accounts: dict[int, list[Row]] = {}
    cust_last4: dict[int, set[str]] = {}
    opening: dict[int, int] = {}

    def add_account(c: Row, product_id: int, nickname: str) -> Row:
        num = ctx.unique(lambda: f"{rng.randint(10, 99)}{rng.randint(0, 99999999):08d}", acct_numbers)
        p = prod[product_id]
        od = rng.choice([0, p["max_overdraft_cents"] // 2, p["max_overdraft_cents"]]) if p["kind"] == "checking" else 0
        row = T.add("accounts", {"account_number": num, "customer_id": c["id"], "product_id": product_id,
                                 "nickname": nickname, "balance_cents": 0, "overdraft_limit_cents": od,
                                 "status": "open", "opened_on": ctx.days_ago(120, 2500).isoformat(),
                                 "closed_on": None})
        cust_accounts.setdefault(c["id"], []).append(row)
        opening[row["id"]] = (rng.randint(800, 6000) if p["kind"] == "checking" else rng.randint(2000, 20000)) * 100
        return row

    def new_last4(cid: int) -> str:
        return ctx.unique(lambda: f"{rng.randint(0, 9999):04d}", cust_last4.setdefault(cid, set()))

    def add_card(acct: Row, status: str, expires: date, issued: date, replaced: int | None = None,
                 reason: str | None = None) -> Row:
        p = prod[acct["product_id"]]
        return T.add("cards", {"account_id": acct["id"], "last4": new_last4(acct["customer_id"]),
                               "network": rng.choice(["visa", "mastercard"]), "status": status,
                               "daily_limit_cents": rng.choice([50000, 100000, p["max_card_daily_limit_cents"]]),
                               "expires_on": expires.isoformat(), "issued_on": issued.isoformat(),
                               "replaced_card_id": replaced, "cancel_reason": reason})

    card_of: dict[int, Row] = {}  # checking account id -> card used for purchases
    prev_card: dict[int, Row] = {}  # checking account id -> the card it replaced
    for c in customers:
        chk = add_account(c, 2 if rng.random() < 0.25 else 1, rng.choice(["", "Everyday", "Bills", "Main"]))
        if rng.random() < 0.75:
            add_account(c, 4 if rng.random() < 0.4 else 3, rng.choice(["", "Rainy day", "Emergency fund", "Vacation"]))
        if rng.random() < 0.25:
            old = add_card(chk, "expired", date(2026, rng.randint(1, 2), 28), date(2022, rng.randint(1, 12), 1))
            old["expires_on"] = date(2026, 1, 31).isoformat()
            cur = add_card(chk, "active", date(2030, 1, 31), date(2026, 1, 20), replaced=old["id"])
        elif rng.random() < 0.15:
            old = add_card(chk, "cancelled", date(2028, 6, 30), date(2024, 6, 1), reason="lost")
            cur = add_card(chk, "active", date(2029, rng.randint(1, 12), 28), date(2025, 11, 10), replaced=old["id"])
        else:
            cur = add_card(chk, "active", date(rng.randint(2026, 2030), rng.randint(4, 12), 28),
                           ctx.days_ago(400, 1200))
        card_of[chk["id"]] = cur
        if cur["replaced_card_id"]:
            prev_card[chk["id"]] = cards[cur["replaced_card_id"] - 1]
    # some frozen cards and a frozen account (not used by the write templates' customers)
    for c in customers[::9]:
        card = card_of[cust_accounts[c["id"]][0]["id"]]
        card["status"] = "frozen"

    # ---- payees ---------------------------------------------------------------------------------
    cust_payees: dict[int, list[Row]] = {}
    payee_numbers: dict[int, set[str]] = {}

    def add_payee(c: Row, name: str, bank: str, nickname: str = "", status: str = "active") -> Row:
        num = ctx.unique(lambda: f"{rng.randint(100000, 999999)}{rng.randint(0, 9999):04d}",
                         payee_numbers.setdefault(c["id"], set()))
        created = _at(ctx.days_ago(110, 700), rng.randint(8, 21), rng.randint(0, 59))
        row = T.add("payees", {"customer_id": c["id"], "name": name, "bank_name": bank, "account_number": num,
                               "nickname": nickname, "status": status, "created_at": _iso(created),
                               "removed_at": _iso(created + timedelta(days=30)) if status == "removed" else None})
        cust_payees.setdefault(c["id"], []).append(row)
        return row

    for c in customers:
        for name, bank in ctx.sample(BILLERS, rng.randint(1, 3)):
            add_payee(c, name, bank)
        if rng.random() < 0.4:
            add_payee(c, fk.name(), rng.choice(["Wells Fargo", "Chase", "Ally Bank"]), rng.choice(["", "Landlord",
                                                                                                  "Sister", "Babysitter"]))
        if rng.random() < 0.15:
            add_payee(c, fk.company(), "Citibank", status="removed")
    if ctx.distractors:
        for c in ctx.sample(customers, max(4, n_cust // 6)):
            for p in list(cust_payees.get(c["id"], [])):
                if p["name"] in LOOKALIKE_BILLERS and p["status"] == "active":
                    other = ctx.pick(customers)
                    if other["id"] != c["id"] and not any(q["name"] == LOOKALIKE_BILLERS[p["name"]]
                                                          for q in cust_payees.get(other["id"], [])):
                        add_payee(other, LOOKALIKE_BILLERS[p["name"]], p["bank_name"])

    # ---- scheduled payments ---------------------------------------------------------------------
    events: list[dict[str, Any]] = []  # money movements, balanced later
    for c in customers:
        chk = cust_accounts[c["id"]][0]
        active_payees = [p for p in cust_payees[c["id"]] if p["status"] == "active"]
        k = rng.choice([0, 1, 1, 2]) if c["id"] % 4 else 1
        for p in active_payees[:k]:
            amount = rng.randint(40, 260) * 100 + rng.choice([0, 0, 50, 99])
            status = ctx.weighted({"active": 0.7, "paused": 0.15, "cancelled": 0.15})
            day = rng.randint(1, 28)
            nxt = date(2026, 4, day) if day <= 16 else date(2026, 3, day)
            sid = T.add("scheduled_payments", {
                "customer_id": c["id"], "from_account_id": chk["id"], "payee_id": p["id"], "amount_cents": amount,
                "frequency": "monthly", "next_run_on": nxt.isoformat() if status != "cancelled" else None,
                "end_on": None, "status": status, "memo": "",
                "created_at": _iso(_at(date(2025, 11, rng.randint(1, 25)), rng.randint(8, 20)))})["id"]
            for m in (date(2025, 12, day), date(2026, 1, day), date(2026, 2, day), date(2026, 3, day)):
                if m >= today or (status == "cancelled" and m >= date(2026, 2, 1)):
                    continue
                if status == "paused" and m >= date(2026, 2, 1):
                    continue
                events.append({"kind": "payee", "at": _at(m, 6, 5), "from": chk["id"], "payee": p["id"],
                               "amount": amount, "sched": sid, "customer": c["id"],
                               "desc": f"Scheduled payment to {p['name']}"})
        if rng.random() < 0.2 and active_payees:
            p = active_payees[-1]
            when = ctx.days_ago(20, 80)
            amount = rng.randint(100, 900) * 100
            sid = T.add("scheduled_payments", {
                "customer_id": c["id"], "from_account_id": chk["id"], "payee_id": p["id"], "amount_cents": amount,
                "frequency": "once", "next_run_on": None, "end_on": None, "status": "completed", "memo": "one-off",
                "created_at": _iso(_at(when - timedelta(days=5), 12))})["id"]
            events.append({"kind": "payee", "at": _at(when, 6, 10), "from": chk["id"], "payee": p["id"],
                           "amount": amount, "sched": sid, "customer": c["id"],
                           "desc": f"Scheduled payment to {p['name']}"})

    # ---- everyday money movements --------------------------------------------------------------
    def history_day() -> date:
        """A day of the generated history, before today."""
        return hist_start + timedelta(days=rng.randint(0, (today - hist_start).days - 1))

    feb_merchant_planted: set[int] = set()
    for idx, c in enumerate(customers):
        accts = cust_accounts[c["id"]]
        chk = accts[0]
        sav = accts[1] if len(accts) > 1 else None
        employer = rng.choice(EMPLOYERS)
        pay = rng.randint(1500, 4200) * 100
        d = hist_start
        while d < today:
            if d.day == 1:
                events.append({"kind": "tx", "acct": chk["id"], "at": _at(d, 3, 0), "tx": "deposit", "amount": pay,
                               "desc": f"Payroll deposit - {employer}"})
            d += timedelta(days=1)
        card = card_of[chk["id"]]
        n_buy = rng.randint(5, 9)
        for _ in range(n_buy):
            m, lo, hi = ctx.pick(MERCHANTS)
            at = _at(history_day(), rng.randint(7, 21), rng.randint(0, 59))
            events.append({"kind": "tx", "acct": chk["id"], "at": at, "tx": "card_purchase",
                           "amount": -rng.randint(lo, hi), "desc": f"Card purchase - {m}", "merchant": m,
                           "card": card["id"] if at.date().isoformat() >= card["issued_on"] or chk["id"] not in
                           prev_card else prev_card[chk["id"]]["id"]})
        if idx % 3 == 0:  # planted: two purchases at one merchant in February
            m, lo, hi = MERCHANTS[idx % len(MERCHANTS)]
            for day in ctx.sample(range(2, 27), 2):
                events.append({"kind": "tx", "acct": chk["id"], "at": _at(date(2026, 2, day), rng.randint(8, 20)),
                               "tx": "card_purchase", "amount": -rng.randint(lo, hi), "desc": f"Card purchase - {m}",
                               "merchant": m, "card": card["id"]})
            feb_merchant_planted.add(c["id"])
            if ctx.distractors and m in LOOKALIKE_MERCHANTS:
                lm = LOOKALIKE_MERCHANTS[m]
                events.append({"kind": "tx", "acct": chk["id"], "at": _at(date(2026, 2, 27), 12),
                               "tx": "card_purchase", "amount": -rng.randint(lo, hi),
                               "desc": f"Card purchase - {lm}", "merchant": lm, "card": card["id"]})
        for _ in range(rng.randint(0, 3)):
            at = _at(history_day(), rng.randint(8, 20))
            events.append({"kind": "tx", "acct": chk["id"], "at": at, "tx": "withdrawal",
                           "amount": -rng.choice([2000, 4000, 6000, 10000, 20000]), "desc": "ATM withdrawal"})
        if rng.random() < 0.3:
            at = _at(date(2026, rng.choice([1, 2]), 28), 23, 0)
            events.append({"kind": "tx", "acct": chk["id"], "at": at, "tx": "fee", "amount": -1200,
                           "desc": "Monthly maintenance fee"})
        if sav is not None:
            for mth in (date(2025, 12, 31), date(2026, 1, 31), date(2026, 2, 28)):
                events.append({"kind": "tx", "acct": sav["id"], "at": _at(mth, 23, 30), "tx": "interest",
                               "amount": max(1, opening[sav["id"]] * prod[sav["product_id"]]["interest_rate_bps"]
                                             // 120000), "desc": "Interest paid"})
            for _ in range(rng.randint(1, 3)):
                at = _at(history_day(), rng.randint(8, 21), rng.randint(0, 59))
                events.append({"kind": "own", "at": at, "from": chk["id"], "to": sav["id"],
                               "amount": rng.randint(1, 12) * 5000, "customer": c["id"], "desc": "Transfer to savings"})
            if rng.random() < 0.3:
                at = _at(history_day(), rng.randint(8, 21))
                events.append({"kind": "own", "at": at, "from": sav["id"], "to": chk["id"],
                               "amount": rng.randint(1, 6) * 5000, "customer": c["id"], "desc": "Transfer to checking"})
        for p in [p for p in cust_payees[c["id"]] if p["status"] == "active"][:1]:
            if rng.random() < 0.5:
                at = _at(history_day(), rng.randint(8, 21))
                events.append({"kind": "payee", "at": at, "from": chk["id"], "payee": p["id"],
                               "amount": rng.randint(20, 300) * 100, "sched": None, "customer": c["id"],
                               "desc": f"Payment to {p['name']}"})

    # ---- post the events in time order ------------------------------------------------------------
    events.sort(key=lambda e: (e["at"], e.get("acct", e.get("from", 0)), e["desc"], e["amount"]))
    bal = dict(opening)
    transactions = T["transactions"]
    transfers = T["transfers"]
    acct_by_id = {a["id"]: a for a in accounts}

    def post(acct_id: int, at: datetime, kind: str, amount: int, desc: str, merchant: str | None = None,
             card: int | None = None, transfer: int | None = None) -> Row:
        bal[acct_id] += amount
        tid = len(transactions) + 1
        row = {"id": tid, "reference": f"TX{at.strftime('%y%m%d')}{tid:06d}", "account_id": acct_id,
               "posted_at": _iso(at), "kind": kind, "amount_cents": amount, "balance_after_cents": bal[acct_id],
               "description": desc, "merchant": merchant, "card_id": card, "transfer_id": transfer}
        transactions.append(row)
        return row

    for e in events:
        if e["kind"] == "tx":
            if e["amount"] < 0 and bal[e["acct"]] + e["amount"] < 0:
                continue
            post(e["acct"], e["at"], e["tx"], e["amount"], e["desc"], e.get("merchant"), e.get("card"))
        else:
            if bal[e["from"]] - e["amount"] < 0:
                continue
            trid = len(transfers) + 1
            tr = {"id": trid, "reference": f"TRF{trid:07d}", "customer_id": e["customer"],
                  "from_account_id": e["from"], "to_account_id": e.get("to"), "payee_id": e.get("payee"),
                  "amount_cents": e["amount"], "memo": "", "scheduled_payment_id": e.get("sched"),
                  "created_at": _iso(e["at"])}
            transfers.append(tr)
            if e["kind"] == "own":
                post(e["from"], e["at"], "transfer_out", -e["amount"], e["desc"], transfer=trid)
                post(e["to"], e["at"], "transfer_in", e["amount"], "Transfer from " +
                     ("checking" if prod[acct_by_id[e["from"]]["product_id"]]["kind"] == "checking" else "savings"),
                     transfer=trid)
            else:
                post(e["from"], e["at"], "bill_payment", -e["amount"], e["desc"], transfer=trid)

    # ---- disputes on card purchases ----------------------------------------------------------------
    disputes = T["disputes"]
    purchases_by_cust: dict[int, list[Row]] = {}
    owner = {a["id"]: a["customer_id"] for a in accounts}
    for t in transactions:
        if t["kind"] == "card_purchase":
            purchases_by_cust.setdefault(owner[t["account_id"]], []).append(t)
    refunds: list[tuple[int, datetime, int, str]] = []

    # the bank's dispute counter did not start at 1 (seed 0, the canonical world, keeps its numbering): a
    # customer's dispute references then differ from world to world, not only from customer to customer
    ref_base = 0 if ctx.seed == 0 else 100 + (ctx.seed * 7919) % 8900

    def add_event(did: int, from_status: str | None, to_status: str, actor: str, at: datetime, note: str = "") -> None:
        T.add("dispute_events", {"dispute_id": did, "from_status": from_status, "to_status": to_status, "actor": actor,
                                 "note": note, "created_at": _iso(at)})

    def add_dispute(c: Row, t: Row, status: str) -> None:
        did = len(disputes) + 1
        posted = datetime.fromisoformat(t["posted_at"])
        opened = posted + timedelta(days=rng.randint(1, 4), hours=rng.randint(1, 5))
        if opened >= clock - timedelta(hours=2):
            opened = clock - timedelta(hours=rng.randint(3, 20))
        officer = ctx.pick(officers) if status not in ("opened", "withdrawn") else None
        reviewed = opened + timedelta(days=1)
        closed = reviewed + timedelta(days=rng.randint(1, 6)) if status in ("resolved", "rejected") else (
            opened + timedelta(hours=5) if status == "withdrawn" else None)
        if reviewed >= clock:
            reviewed = clock - timedelta(hours=1)
        if closed is not None and closed >= clock:
            closed = clock - timedelta(minutes=30)
        amount = -t["amount_cents"] if rng.random() < 0.8 else max(100, -t["amount_cents"] // 2)
        note = {"resolved": "Merchant could not provide proof; amount refunded.",
                "rejected": "Merchant provided signed receipt; charge is valid."}.get(status)
        d = {"id": did, "reference": f"DSP-{did + ref_base:05d}", "customer_id": c["id"], "transaction_id": t["id"],
             "reason": rng.choice(REASONS), "amount_cents": amount, "status": status,
             "officer_id": officer["id"] if officer else None, "resolution_note": note,
             "opened_at": _iso(opened), "closed_at": _iso(closed) if closed else None}
        disputes.append(d)
        add_event(did, None, "opened", c["email"], opened)
        if officer:
            add_event(did, "opened", "under_review", officer["email"], reviewed)
        if status in ("resolved", "rejected"):
            add_event(did, "under_review", status, officer["email"], closed, note)
            if status == "resolved":
                refunds.append((t["account_id"], closed, amount, f"Dispute {d['reference']} refund - {t['merchant']}"))
        if status == "withdrawn":
            add_event(did, "opened", "withdrawn", c["email"], closed)

    for idx, c in enumerate(customers):
        buys = sorted(purchases_by_cust.get(c["id"], []), key=lambda t: t["posted_at"])
        if len(buys) < 4:
            continue
        if idx % 4 == 1:  # planted: two unresolved disputes plus a closed one
            add_dispute(c, buys[-3], "opened")
            add_dispute(c, buys[-6 if len(buys) >= 6 else 0], "under_review")
            add_dispute(c, buys[1], rng.choice(["resolved", "rejected", "withdrawn"]))
        elif idx % 4 == 3 and rng.random() < 0.7:
            add_dispute(c, buys[-2], rng.choice(["opened", "under_review", "resolved", "rejected"]))
    # refunds (credits, so balances only rise) join the history; then ids and running balances are redone
    for acct_id, at, amount, desc in sorted(refunds, key=lambda r: (r[1], r[0])):
        post(acct_id, at, "refund", amount, desc)
    transactions.sort(key=lambda t: (t["posted_at"], t["id"]))
    remap = {t["id"]: i for i, t in enumerate(transactions, start=1)}
    run = dict(opening)
    for t in transactions:
        t["id"] = remap[t["id"]]
        run[t["account_id"]] += t["amount_cents"]
        t["balance_after_cents"] = run[t["account_id"]]
    for d in disputes:
        d["transaction_id"] = remap[d["transaction_id"]]
    for a in accounts:
        a["balance_cents"] = run[a["id"]]

    # ---- statements (January and February 2026) ----------------------------------------------------
    tx_by_acct: dict[int, list[Row]] = {}
    for t in transactions:
        tx_by_acct.setdefault(t["account_id"], []).append(t)
    for a in accounts:
        rows = tx_by_acct.get(a["id"], [])
        for ps, pe, issued in ((date(2026, 1, 1), date(2026, 1, 31), date(2026, 2, 1)),
                               (date(2026, 2, 1), date(2026, 2, 28), date(2026, 3, 1))):
            before = opening[a["id"]] + sum(t["amount_cents"] for t in rows if t["posted_at"] < ps.isoformat())
            inside = [t for t in rows if ps.isoformat() <= t["posted_at"][:10] <= pe.isoformat()]
            tin = sum(t["amount_cents"] for t in inside if t["amount_cents"] > 0)
            tout = -sum(t["amount_cents"] for t in inside if t["amount_cents"] < 0)
            T.add("statements", {"account_id": a["id"], "period_start": ps.isoformat(),
                                 "period_end": pe.isoformat(), "opening_balance_cents": before,
                                 "closing_balance_cents": before + tin - tout, "total_in_cents": tin,
                                 "total_out_cents": tout, "issued_on": issued.isoformat()})

    # ---- alerts and notifications ----------------------------------------------------------------------
    for c in customers:
        if rng.random() < 0.35:
            a = cust_accounts[c["id"]][0]
            T.add("alerts", {"customer_id": c["id"], "account_id": a["id"],
                             "alert_type": rng.choice(["low_balance", "large_transaction"]),
                             "threshold_cents": rng.choice([10000, 25000, 50000, 100000]),
                             "channel": rng.choice(["email", "sms", "push"]), "is_active": 1,
                             "created_at": _iso(_at(ctx.days_ago(100, 400), 10))})
        for issued in (date(2026, 2, 1), date(2026, 3, 1)):
            T.add("notifications", {"customer_id": c["id"], "alert_id": None,
                                    "channel": "email", "message": "Your monthly statement is ready to view.",
                                    "created_at": _iso(_at(issued, 7))})
    # a frozen account (held by the bank) for a customer with a savings account
    for c in customers[5::11]:
        accts = cust_accounts[c["id"]]
        if len(accts) > 1:
            accts[1]["status"] = "frozen"

    return T
