"""Randomized worlds of the library.

``build(ctx)`` returns the rows of every table for one seeded world: branches with staff and rooms, a
catalogue of works, editions and copies, patrons on four card types, a year of returned loans (late
returns charged with the same per-day / per-item-cap rule as ``tools.py``), current loans, holds queues,
fines with payments and waivers, transfers, repairs, lost items, room bookings, events with
registrations, and reading lists.

Planted in every world (so each template has candidates): patrons with unpaid fines and overdue loans,
renewable loans, placed holds with queues of two or more, events with places left, patrons blocked by
fines who could borrow once they pay, placed holds whose pickup branch has no copy while another branch
has one on the shelf, and overdue loans of patrons with no other open fines.

Everything comes from ``ctx.rng`` / ``ctx.faker`` and ``ctx.clock``; only lists and dicts are iterated.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

# fmt: off
BRANCHES = [
    ("CEN", "Central Library", "100 Main Street", "555-0100", "09:00", "20:00"),
    ("RIV", "Riverside Branch", "42 Water Lane", "555-0142", "10:00", "18:00"),
    ("NOR", "Northgate Branch", "7 Northgate Road", "555-0177", "09:30", "19:00"),
    ("EAS", "Eastwood Branch", "318 Elm Avenue", "555-0318", "10:00", "17:00"),
    ("HIL", "Hillcrest Branch", "9 Summit Drive", "555-0909", "10:00", "18:00"),
    ("MEA", "Meadowbrook Branch", "55 Brook Street", "555-0555", "09:00", "17:00"),
    ("HAR", "Harbour Branch", "2 Quay Road", "555-0202", "10:00", "19:00"),
    ("OAK", "Oakfield Branch", "81 Acorn Way", "555-0881", "09:30", "18:00"),
]
# code, name, loan_limit, loan_days, max_renewals, hold_limit, fine/day, max fine/item, block threshold
CARD_TYPES = [
    ("adult", "Adult", 10, 21, 2, 5, 25, 500, 1000),
    ("child", "Child", 5, 21, 2, 3, 10, 200, 500),
    ("senior", "Senior", 10, 28, 3, 5, 10, 300, 1000),
    ("student", "Student", 8, 14, 1, 4, 20, 400, 800),
]
ROOMS = [("Study Room A", 4), ("Study Room B", 6), ("Community Room", 30)]
ADJ = ["Silent", "Hidden", "Last", "Golden", "Broken", "Winter", "Crimson", "Distant", "Forgotten", "Wild",
       "Quiet", "Burning", "Lost", "Paper", "Glass", "Iron", "Hollow", "Secret", "Northern", "Midnight",
       "Velvet", "Salt", "Copper", "Bright", "Endless", "Little", "Second", "Sleeping", "Drowned", "Painted"]
NOUN = ["River", "Garden", "Orchard", "Lighthouse", "Kingdom", "Harbor", "Letter", "Mountain", "Island", "Library",
        "Empire", "Season", "Forest", "Compass", "Bridge", "Archive", "Voyage", "Station", "Crown", "Meadow",
        "Sparrow", "Tide", "Lantern", "Highway", "Canyon", "Clockmaker", "Daughter", "Atlas", "Winter", "Signal"]
PATTERNS = ["The {a} {n}", "{a} {n}", "A {a} {n}", "The {n} of {a} Hours", "Beyond the {a} {n}", "{n} in {a} Light"]
GENRES = ["fiction", "mystery", "science_fiction", "fantasy", "romance", "biography", "history", "science",
          "children", "poetry", "cooking", "travel"]
PUBLISHERS = ["Harbor House", "Penfold Press", "Bluebird Books", "Northlight", "Meridian & Sons", "Quill Street",
              "Larkspur", "Granite Publishing"]
FORMATS = ["hardcover", "paperback", "paperback", "large_print", "audiobook_cd"]
EVENT_TITLES = [("Storytime for Toddlers", "children"), ("Teen Writing Workshop", "teen"),
                ("Author Talk: Local History", "adult"), ("Knitting Circle", "all"), ("Chess Club", "all"),
                ("Resume Clinic", "adult"), ("Lego Builders", "children"), ("Film Night", "adult"),
                ("Poetry Open Mic", "all"), ("Coding for Beginners", "teen"), ("Gardening Talk", "adult"),
                ("Tax Help Session", "adult"), ("Book Club: Mysteries", "adult"), ("Craft Afternoon", "children")]
WAIVE_REASONS = ["book drop was out of order", "patron was in hospital", "first-time courtesy waiver",
                 "system outage on the due date"]
DOMAINS = ["example.com", "example.net", "example.org", "mail.test"]
# fmt: on


class _World:
    def __init__(self, ctx: WorldContext):
        self.ctx = ctx
        self.rng = ctx.rng
        self.late_fine = ctx.tools._fine_for_late  # the overdue fine the desk charges on return
        self.now = ctx.clock.replace(microsecond=0)
        self.today = ctx.today
        self.t = Tables([
            "branches", "staff", "authors", "works", "editions", "copies", "card_types", "patrons", "loans",
            "holds", "fines", "payments", "transfers", "rooms", "room_bookings", "events", "event_registrations",
            "reading_lists", "reading_list_items"])

    def at(self, day: date, lo_h: int = 10, hi_h: int = 16) -> datetime:
        return datetime(day.year, day.month, day.day, self.rng.randint(lo_h, hi_h), self.rng.choice([0, 15, 30, 45]),
                        self.rng.randint(0, 59))

    # -- static-ish parts -------------------------------------------------------------------------
    def base(self) -> None:
        ctx, rng = self.ctx, self.rng
        for b in BRANCHES[: ctx.n(4, 8)]:
            self.t.add("branches", dict(zip(["code", "name", "address", "phone", "opens_at", "closes_at"], b)))
        emails: set[str] = set()
        for b in self.t["branches"]:
            roles = ["manager", "librarian", "clerk"] + ["librarian", "clerk"] * ctx.n(0, 2)
            for role in roles:
                first, last = ctx.faker.first_name(), ctx.faker.last_name()
                email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.randint(1, 99)}@citylibrary.org", emails)
                self.t.add("staff", {"branch_id": b["id"], "full_name": f"{first} {last}", "email": email,
                                     "role": role, "is_active": 1})
        for c in CARD_TYPES:
            self.t.add("card_types", dict(zip(["code", "name", "loan_limit", "loan_days", "max_renewals", "hold_limit",
                                               "fine_per_day_cents", "max_fine_per_item_cents",
                                               "block_threshold_cents"], c)))
        for b in self.t["branches"]:
            for name, cap in ROOMS:
                self.t.add("rooms", {"branch_id": b["id"], "name": name, "capacity": cap})

    def catalogue(self) -> None:
        ctx, rng = self.ctx, self.rng
        for _ in range(ctx.n(24, 300)):
            self.t.add("authors", {"full_name": ctx.faker.name(), "birth_year": rng.randint(1900, 1995)})
        titles: set[str] = set()
        combos = [(p, a, n) for p in PATTERNS for a in ADJ for n in NOUN if a != n]
        for _ in range(ctx.n(45, 650)):
            p, a, n = combos[rng.randrange(len(combos))]
            title = ctx.unique(lambda: PATTERNS[rng.randrange(len(PATTERNS))].format(
                a=ADJ[rng.randrange(len(ADJ))], n=NOUN[rng.randrange(len(NOUN))]), titles)
            genre = rng.choice(GENRES)
            self.t.add("works", {"title": title, "author_id": rng.randint(1, len(self.t["authors"])), "genre": genre,
                                 "first_published": rng.randint(1950, 2025),
                                 "audience": "children" if genre == "children" else rng.choice(["adult", "adult", "teen"])})
        if ctx.distractors:
            # look-alike titles: the same title by another author, and near-identical titles
            for w in ctx.sample(self.t["works"][:], max(4, len(self.t["works"]) // 6)):
                other = rng.randint(1, len(self.t["authors"]))
                if rng.random() < 0.5 and other != w["author_id"]:
                    title = w["title"]
                else:
                    title = ctx.unique(lambda: rng.choice([w["title"] + "s", w["title"] + ": A Novel",
                                                           "Return to " + w["title"].replace("The ", "")]), titles)
                self.t.add("works", {"title": title, "author_id": other, "genre": w["genre"],
                                     "first_published": rng.randint(1950, 2025), "audience": w["audience"]})
        isbns: set[str] = set()
        nb = len(self.t["branches"])
        for w in self.t["works"]:
            for _ in range(1 if rng.random() < 0.6 else 2):
                isbn = ctx.unique(lambda: "978" + "".join(str(rng.randint(0, 9)) for _ in range(10)), isbns)
                fmt = rng.choice(FORMATS)
                ed = self.t.add("editions", {"work_id": w["id"], "isbn": isbn, "format": fmt,
                                             "publisher": rng.choice(PUBLISHERS),
                                             "year": rng.randint(max(w["first_published"], 1990), 2025),
                                             "pages": None if fmt == "audiobook_cd" else rng.randint(120, 640)})
                for _ in range(rng.choice([1, 1, 2, 2, 3])):
                    self.t.add("copies", {"edition_id": ed["id"], "branch_id": rng.randint(1, nb),
                                          "barcode": f"LB{len(self.t['copies']) + 1001:06d}", "status": "available",
                                          "price_cents": rng.randrange(1500, 4500, 50),
                                          "acquired_on": self.ctx.days_ago(400, 3000).isoformat()})
        self.work_of = {e["id"]: e["work_id"] for e in self.t["editions"]}

    def patrons(self) -> None:
        ctx, rng = self.ctx, self.rng
        emails: set[str] = set()
        cards: set[str] = set()
        nb = len(self.t["branches"])

        def make(first: str, last: str) -> dict[str, Any]:
            email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.choice(['', str(rng.randint(1, 99))])}"
                                       f"@{rng.choice(DOMAINS)}", emails)
            card = ctx.unique(lambda: "2" + "".join(str(rng.randint(0, 9)) for _ in range(9)), cards)
            ct = ctx.weighted({1: 0.6, 2: 0.12, 3: 0.16, 4: 0.12})
            joined = ctx.days_ago(100, 3000)
            r = rng.random()
            expires = self.today - timedelta(days=rng.randint(1, 90)) if r < 0.05 else \
                self.today + timedelta(days=rng.randint(20, 720))
            return self.t.add("patrons", {"card_number": card, "full_name": f"{first} {last}", "email": email,
                                          "phone": f"555-{rng.randint(1000, 9999)}", "card_type_id": ct,
                                          "home_branch_id": rng.randint(1, nb),
                                          "status": "suspended" if rng.random() < 0.03 else "active",
                                          "expires_on": expires.isoformat(), "joined_on": joined.isoformat()})

        for _ in range(ctx.n(60, 800)):
            make(ctx.faker.first_name(), ctx.faker.last_name())
        if ctx.distractors:
            for p in ctx.sample(self.t["patrons"][:], max(5, len(self.t["patrons"]) // 8)):
                first, last = p["full_name"].split(" ", 1)
                make(first if rng.random() < 0.6 else ctx.faker.first_name(), last)
        self.ct = {c["id"]: c for c in self.t["card_types"]}

    def good(self, p: dict[str, Any]) -> bool:
        return p["status"] == "active" and p["expires_on"] >= self.today.isoformat()

    def staff_of(self, branch_id: int, roles: tuple[str, ...] = ("manager", "librarian", "clerk")) -> dict[str, Any]:
        cands = [s for s in self.t["staff"] if s["branch_id"] == branch_id and s["role"] in roles]
        return cands[self.rng.randrange(len(cands))]

    # -- circulation ------------------------------------------------------------------------------
    def history(self) -> None:
        """Returned loans, 400 to 130 days ago, one after another per copy; late ones carry fines."""
        rng = self.rng
        pats = self.t["patrons"]
        for c in self.t["copies"]:
            t = self.today - timedelta(days=rng.randint(380, 420))
            for _ in range(rng.choice([0, 1, 1, 2, 3])):
                start = t + timedelta(days=rng.randint(0, 40))
                p = pats[rng.randrange(len(pats))]
                ct = self.ct[p["card_type_id"]]
                renew = 1 if rng.random() < 0.2 and ct["max_renewals"] else 0
                due = start + timedelta(days=ct["loan_days"] * (1 + renew))
                back = start + timedelta(days=rng.randint(3, ct["loan_days"] * (1 + renew) + (30 if rng.random() < 0.3 else 0)))
                if back >= self.today - timedelta(days=130):
                    break
                self.add_returned(c, p, start, due, back, renew)
                t = back + timedelta(days=1)

    def add_returned(self, c: dict, p: dict, start: date, due: date, back: date, renew: int) -> dict:
        s = self.staff_of(c["branch_id"])
        out = self.at(start)
        ret = self.at(back)
        loan = self.t.add("loans", {"copy_id": c["id"], "patron_id": p["id"], "branch_id": c["branch_id"],
                                    "checked_out_by": s["id"], "checked_out_at": _iso(out), "due_date": due.isoformat(),
                                    "renewals": renew, "status": "returned", "returned_at": _iso(ret),
                                    "returned_by": self.staff_of(c["branch_id"])["id"]})
        amount = self.late_fine(self.ct[p["card_type_id"]], due.isoformat(), back)
        if amount > 0:
            self.fine(p, loan, "overdue", amount, ret, c["branch_id"])
        return loan

    def fine(self, p: dict, loan: dict | None, kind: str, amount: int, when: datetime, branch_id: int,
             settle: str | None = None) -> dict:
        rng = self.rng
        r = rng.random() if settle is None else {"open": 0.99, "paid": 0.1, "waived": 0.5}[settle]
        f = self.t.add("fines", {"patron_id": p["id"], "loan_id": loan["id"] if loan else None, "kind": kind,
                                 "amount_cents": amount, "paid_cents": 0, "status": "open", "created_at": _iso(when),
                                 "waived_by": None, "waive_reason": None})
        gap = (self.now - when).days
        if r < 0.45 and gap > 1:
            paid_at = when + timedelta(days=rng.randint(0, min(30, gap - 1)), hours=1)
            self.pay(f, p, amount, paid_at, branch_id)
        elif r < 0.55 and gap > 1:
            f["status"] = "waived"
            f["waived_by"] = self.staff_of(branch_id, ("manager",))["id"]
            f["waive_reason"] = rng.choice(WAIVE_REASONS)
        elif r < 0.62 and amount >= 100 and gap > 1:
            part = (amount // 2 // 25) * 25 or 25
            self.pay(f, p, part, when + timedelta(days=1, hours=1), branch_id)
        return f

    def pay(self, f: dict, p: dict, amount: int, when: datetime, branch_id: int) -> None:
        f["paid_cents"] += amount
        f["status"] = "paid" if f["paid_cents"] == f["amount_cents"] else "open"
        self.t.add("payments", {"fine_id": f["id"], "patron_id": p["id"], "amount_cents": amount,
                                "method": self.rng.choice(["cash", "card"]), "staff_id": self.staff_of(branch_id)["id"],
                                "paid_at": _iso(min(when, self.now - timedelta(hours=2)))})

    def active_count(self, p: dict) -> int:
        return sum(1 for l in self.t["loans"] if l["patron_id"] == p["id"] and l["status"] == "active")

    def lend(self, c: dict, p: dict, days_ago: int, renewals: int = 0) -> dict:
        ct = self.ct[p["card_type_id"]]
        start = self.today - timedelta(days=days_ago)
        due = start + timedelta(days=ct["loan_days"] * (1 + renewals))
        loan = self.t.add("loans", {"copy_id": c["id"], "patron_id": p["id"], "branch_id": c["branch_id"],
                                    "checked_out_by": self.staff_of(c["branch_id"])["id"],
                                    "checked_out_at": _iso(self.at(start) if days_ago else self.now - timedelta(hours=1)),
                                    "due_date": due.isoformat(), "renewals": renewals, "status": "active",
                                    "returned_at": None, "returned_by": None})
        c["status"] = "on_loan"
        return loan

    def lost_loan(self, c: dict, p: dict, start: date) -> dict:
        """A loan from ``start`` that ended with the copy lost (never returned)."""
        ct = self.ct[p["card_type_id"]]
        return self.t.add("loans", {"copy_id": c["id"], "patron_id": p["id"], "branch_id": c["branch_id"],
                                    "checked_out_by": self.staff_of(c["branch_id"])["id"],
                                    "checked_out_at": _iso(self.at(start)),
                                    "due_date": (start + timedelta(days=ct["loan_days"])).isoformat(),
                                    "renewals": 0, "status": "lost", "returned_at": None, "returned_by": None})

    def loaned_works(self, p: dict) -> set[int]:
        return {self.work_of[self.t["copies"][l["copy_id"] - 1]["edition_id"]] for l in self.t["loans"]
                if l["patron_id"] == p["id"] and l["status"] == "active"}

    def current(self) -> None:
        ctx, rng = self.ctx, self.rng
        copies = self.t["copies"]
        # lost copies (some while on loan, charged at replacement price)
        for c in ctx.sample(copies, ctx.n(4, 40)):
            c["status"] = "lost"
            if rng.random() < 0.6:
                p = self.t["patrons"][rng.randrange(len(self.t["patrons"]))]
                ct = self.ct[p["card_type_id"]]
                start = self.today - timedelta(days=rng.randint(80, 125))
                loan = self.lost_loan(c, p, start)
                when = self.at(start + timedelta(days=ct["loan_days"] + rng.randint(20, 35)))
                self.fine(p, loan, "lost_item", c["price_cents"], when, c["branch_id"])
        free = [c for c in copies if c["status"] == "available"]
        for c in ctx.sample(free, ctx.n(4, 30)):
            c["status"] = "in_repair"
        # active loans
        pats = [p for p in self.t["patrons"] if self.good(p)]
        free = [c for c in copies if c["status"] == "available"]
        for c in ctx.sample(free, int(len(free) * 0.45)):
            p = pats[rng.randrange(len(pats))]
            ct = self.ct[p["card_type_id"]]
            if self.active_count(p) >= ct["loan_limit"] - 1 or self.work_of[c["edition_id"]] in self.loaned_works(p):
                continue
            r = rng.random()
            if r < 0.25:  # overdue
                days = ct["loan_days"] + rng.randint(2, 30)
                ren = 0
            else:
                ren = rng.randint(0, ct["max_renewals"]) if rng.random() < 0.3 else 0
                days = rng.randint(1, ct["loan_days"] * (1 + ren) - 1)
            self.lend(c, p, days, ren)

    def transfers(self) -> None:
        ctx, rng = self.ctx, self.rng
        nb = len(self.t["branches"])
        free = [c for c in self.t["copies"] if c["status"] == "available"]
        picks = ctx.sample(free, ctx.n(8, 70))
        n_transit = ctx.n(2, 15)
        for i, c in enumerate(picks):
            to = rng.choice([b for b in range(1, nb + 1) if b != c["branch_id"]])
            sent = self.now - timedelta(days=rng.randint(1, 3) if i < n_transit else rng.randint(10, 200), hours=3)
            row = {"copy_id": c["id"], "from_branch_id": c["branch_id"], "to_branch_id": to,
                   "sent_by": self.staff_of(c["branch_id"], ("librarian", "manager"))["id"], "sent_at": _iso(sent)}
            if i < n_transit:
                self.t.add("transfers", {**row, "status": "in_transit", "received_by": None, "received_at": None})
                c["status"] = "in_transit"
            else:
                self.t.add("transfers", {**row, "status": "received", "received_by": self.staff_of(to)["id"],
                                         "received_at": _iso(sent + timedelta(days=1, hours=2))})
                c["branch_id"] = to

    def copies_of(self, work_id: int) -> list[dict]:
        eds = [e["id"] for e in self.t["editions"] if e["work_id"] == work_id]
        return [c for c in self.t["copies"] if c["edition_id"] in eds]

    def active_holds(self, p: dict) -> list[dict]:
        return [h for h in self.t["holds"] if h["patron_id"] == p["id"] and h["status"] in ("placed", "ready")]

    def can_hold(self, p: dict, work_id: int) -> bool:
        """As the tools rule it; during ``holds()`` (no loan changes) from per-patron indexes, not by scanning
        every loan and hold for every candidate (a large world took 25 s that way)."""
        ct = self.ct[p["card_type_id"]]
        idx = getattr(self, "_hold_idx", None)
        active = idx[0].get(p["id"], []) if idx else self.active_holds(p)
        loaned = idx[1].get(p["id"], set()) if idx else self.loaned_works(p)
        return (self.good(p) and len(active) < ct["hold_limit"]
                and all(h["work_id"] != work_id for h in active)
                and work_id not in loaned)

    def add_hold(self, row: dict) -> dict:
        h = self.t.add("holds", row)
        if h["status"] in ("placed", "ready"):
            self._hold_idx[0].setdefault(h["patron_id"], []).append(h)
        return h

    def holds(self) -> None:
        ctx, rng = self.ctx, self.rng
        active: dict[int, list[dict]] = {}
        for h in self.t["holds"]:
            if h["status"] in ("placed", "ready"):
                active.setdefault(h["patron_id"], []).append(h)
        loaned: dict[int, set[int]] = {}
        for loan in self.t["loans"]:
            if loan["status"] == "active":
                work = self.work_of[self.t["copies"][loan["copy_id"] - 1]["edition_id"]]
                loaned.setdefault(loan["patron_id"], set()).add(work)
        self._hold_idx = (active, loaned)
        pats = [p for p in self.t["patrons"] if self.good(p)]
        nb = len(self.t["branches"])
        # closed history
        for _ in range(ctx.n(25, 350)):
            w = self.t["works"][rng.randrange(len(self.t["works"]))]
            p = pats[rng.randrange(len(pats))]
            placed = self.now - timedelta(days=rng.randint(40, 200), hours=rng.randint(0, 8))
            status = rng.choice(["collected", "collected", "cancelled", "expired"])
            cps = self.copies_of(w["id"])
            copy_id = cps[0]["id"] if cps and status != "cancelled" else None
            if status == "collected" and copy_id is None:
                status = "cancelled"
            ready = placed + timedelta(days=rng.randint(2, 14)) if copy_id else None
            self.add_hold({"work_id": w["id"], "patron_id": p["id"], "pickup_branch_id": rng.randint(1, nb),
                               "status": status, "placed_at": _iso(placed), "copy_id": copy_id,
                               "ready_at": _iso(ready) if ready else None,
                               "pickup_by": (ready.date() + timedelta(days=7)).isoformat() if ready else None,
                               "closed_at": _iso((ready or placed) + timedelta(days=rng.randint(1, 9)))})
        # ready holds: available copies set aside on the hold shelf
        free = [c for c in self.t["copies"] if c["status"] == "available"]
        for c in ctx.sample(free, ctx.n(6, 50)):
            w = self.work_of[c["edition_id"]]
            cands = [p for p in pats if self.can_hold(p, w)]
            if not cands:
                continue
            p = cands[rng.randrange(len(cands))]
            late = rng.random() < 0.3
            ready_day = self.today - timedelta(days=rng.randint(8, 12) if late else rng.randint(0, 6))
            ready = self.at(ready_day, 9, 9) if ready_day < self.today else self.now - timedelta(hours=1)
            placed = ready - timedelta(days=rng.randint(3, 20), hours=2)
            self.add_hold({"work_id": w, "patron_id": p["id"], "pickup_branch_id": c["branch_id"],
                               "status": "ready", "placed_at": _iso(placed), "copy_id": c["id"],
                               "ready_at": _iso(ready), "pickup_by": (ready_day + timedelta(days=7)).isoformat(),
                               "closed_at": None})
            c["status"] = "on_hold_shelf"
        # placed holds: queues on works with no copy on the shelf at the pickup branch
        works = [w for w in self.t["works"] if self.copies_of(w["id"])]
        for w in ctx.sample(works, ctx.n(14, 130)):
            cps = self.copies_of(w["id"])
            if all(c["status"] == "lost" for c in cps):
                continue
            branches = [b for b in range(1, nb + 1)
                        if not any(c["branch_id"] == b and c["status"] == "available" for c in cps)]
            if not branches:
                continue
            for k in range(rng.choice([1, 2, 2, 3, 4])):
                cands = [p for p in pats if self.can_hold(p, w["id"])]
                if not cands:
                    break
                p = cands[rng.randrange(len(cands))]
                self.add_hold({"work_id": w["id"], "patron_id": p["id"], "pickup_branch_id": rng.choice(branches),
                                   "status": "placed",
                                   "placed_at": _iso(self.now - timedelta(days=30 - k * 6 - rng.randint(0, 5),
                                                                         hours=rng.randint(-8, 0))),
                                   "copy_id": None, "ready_at": None, "pickup_by": None, "closed_at": None})
        self._hold_idx = None

    def blocked(self) -> None:
        """Patrons whose unpaid fines reach their card's threshold (one lost item each)."""
        ctx, rng = self.ctx, self.rng
        pats = [p for p in self.t["patrons"] if self.good(p) and self.active_count(p) < 3]
        for p in ctx.sample(pats, ctx.n(4, 30)):
            ct = self.ct[p["card_type_id"]]
            owed = sum(f["amount_cents"] - f["paid_cents"] for f in self.t["fines"]
                       if f["patron_id"] == p["id"] and f["status"] == "open")
            if owed >= ct["block_threshold_cents"]:
                continue
            gone = [c for c in self.t["copies"] if c["status"] == "available"]
            c = gone[rng.randrange(len(gone))]
            c["status"] = "lost"
            start = self.today - timedelta(days=rng.randint(70, 120))
            loan = self.lost_loan(c, p, start)
            amount = max(c["price_cents"], ct["block_threshold_cents"] - owed)
            self.fine(p, loan, "lost_item", amount, self.at(self.today - timedelta(days=rng.randint(5, 30))),
                      c["branch_id"], settle="open")

    # -- rooms, events, lists ---------------------------------------------------------------------
    def rooms(self) -> None:
        ctx, rng = self.ctx, self.rng
        pats = [p for p in self.t["patrons"] if self.good(p)]
        taken: list[tuple[int, str, int]] = []
        br = {b["id"]: b for b in self.t["branches"]}
        for _ in range(ctx.n(30, 450)):
            r = self.t["rooms"][rng.randrange(len(self.t["rooms"]))]
            b = br[r["branch_id"]]
            day = self.today + timedelta(days=rng.randint(-20, 20))
            open_h, close_h = int(b["opens_at"][:2]) + 1, int(b["closes_at"][:2])
            h = rng.randint(open_h, close_h - 2)
            if any(t == (r["id"], day.isoformat(), x) for t in taken for x in (h - 1, h, h + 1)):
                continue
            length = rng.choice([1, 2])
            taken.append((r["id"], day.isoformat(), h))
            start = datetime(day.year, day.month, day.day, h, 0)
            if start <= self.now and day == self.today:
                continue
            p = pats[rng.randrange(len(pats))]
            created = min(start, self.now) - timedelta(days=rng.randint(1, 10))
            self.t.add("room_bookings", {"room_id": r["id"], "patron_id": p["id"], "starts_at": _iso(start),
                                         "ends_at": _iso(start + timedelta(hours=length)),
                                         "attendees": rng.randint(1, r["capacity"]),
                                         "purpose": rng.choice(["Study group", "Tutoring", "Book club meeting",
                                                                "Job interview", "Community meeting"]),
                                         "status": "cancelled" if rng.random() < 0.1 else "booked",
                                         "created_at": _iso(created)})

    def events(self) -> None:
        ctx, rng = self.ctx, self.rng
        pats = [p for p in self.t["patrons"] if self.good(p)]
        for b in self.t["branches"]:
            seen: set[str] = set()
            for k in range(ctx.n(5, 9)):
                title, aud = EVENT_TITLES[rng.randrange(len(EVENT_TITLES))]
                if title in seen:
                    continue
                seen.add(title)
                future = k % 3 != 0
                day = self.today + timedelta(days=rng.randint(2, 30)) if future else self.today - timedelta(days=rng.randint(3, 40))
                start = datetime(day.year, day.month, day.day, rng.choice([11, 14, 16]), rng.choice([0, 30]))
                cap = rng.choice([8, 12, 15, 20, 25, 40])
                ev = self.t.add("events", {"branch_id": b["id"], "title": title, "audience": aud,
                                           "starts_at": _iso(start), "ends_at": _iso(start + timedelta(minutes=90)),
                                           "capacity": cap,
                                           "status": "cancelled" if future and rng.random() < 0.08 else "scheduled"})
                full = future and rng.random() < 0.2
                n = cap if full else rng.randint(0, cap - 2)
                for p in ctx.sample(pats, n):
                    self.t.add("event_registrations", {
                        "event_id": ev["id"], "patron_id": p["id"],
                        "status": "cancelled" if rng.random() < 0.06 and not full else "registered",
                        "registered_at": _iso(min(start, self.now) - timedelta(days=rng.randint(1, 20), hours=2))})

    def reading(self) -> None:
        ctx, rng = self.ctx, self.rng
        names = ["Summer reading", "Book club picks", "To read next", "Favourites", "For the kids", "Holiday reads"]
        for p in ctx.sample(self.t["patrons"], ctx.n(14, 220)):
            for name in ctx.sample(names, rng.choice([1, 1, 2])):
                created = self.now - timedelta(days=rng.randint(5, 300), hours=3)
                rl = self.t.add("reading_lists", {"patron_id": p["id"], "name": name, "is_public": int(rng.random() < 0.3),
                                                  "created_at": _iso(created)})
                for w in ctx.sample(self.t["works"], rng.randint(1, 5)):
                    self.t.add("reading_list_items", {"list_id": rl["id"], "work_id": w["id"],
                                                      "added_at": _iso(created + timedelta(days=rng.randint(0, 4)))})

    def tables(self) -> dict[str, list[dict[str, Any]]]:
        order = ["branches", "staff", "card_types", "authors", "works", "editions", "copies", "patrons", "loans",
                 "holds", "fines", "payments", "transfers", "rooms", "room_bookings", "events",
                 "event_registrations", "reading_lists", "reading_list_items"]
        return {k: self.t[k] for k in order}


def build(ctx: WorldContext) -> dict[str, list[dict[str, Any]]]:
    w = _World(ctx)
    w.base()
    w.catalogue()
    w.patrons()
    w.history()
    w.transfers()
    w.current()
    w.holds()
    w.blocked()
    w.rooms()
    w.events()
    w.reading()
    return w.tables()
