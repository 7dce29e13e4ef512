"""World builder for gym_membership: clubs, plans, members, classes, personal training, billing, lockers.

``build(ctx)`` returns rows per table (parents first, explicit integer keys); randomness only from ``ctx.rng`` /
``ctx.faker`` and dates only from ``ctx.clock``. Invariants kept for tools.py:

- a member holds at most one active or frozen membership; frozen ones have a freeze record covering today,
  and the freeze days used in a calendar year never exceed the plan's allowance;
- class bookings only for members whose plan includes classes and gives access to the club, and only while the
  membership is active; a session never has more ``booked`` places than its capacity; waitlist positions run
  1..n and only full sessions have a waitlist; past sessions are completed (attended / no-show) or cancelled;
- a personal-training package's remaining sessions = total - completed - scheduled - forfeited sessions;
  a trainer never has two sessions (class or PT) starting at the same time;
- invoices are due 14 days after issue; check-ins, guest passes and locker rentals belong to members with
  access to that club; at most one active locker per member and club; everything is before the clock.

Planted: members with overdue invoices, full future classes with waitlists, members with a freeze earlier this
year, guest passes this month (some members at their monthly limit).
With ``ctx.distractors``: namesake members (same name, other e-mail) and look-alike trainer names.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import WorldContext

Row = dict[str, Any]

CLUBS = [
    ("DTN", "Downtown", "Portland", "410 SW Morrison St", "05:00", "23:00"),
    ("PRL", "Pearl District", "Portland", "1120 NW Couch St", "05:30", "22:00"),
    ("HAW", "Hawthorne", "Portland", "3620 SE Hawthorne Blvd", "06:00", "22:00"),
    ("BEA", "Beaverton", "Beaverton", "12500 SW Broadway", "05:00", "22:00"),
    ("LKO", "Lake Oswego", "Lake Oswego", "333 S State St", "06:00", "21:00"),
    ("VAN", "Vancouver Waterfront", "Vancouver", "700 Columbia St", "05:00", "22:00"),
    ("HIL", "Hillsboro", "Hillsboro", "2250 NE Cornell Rd", "05:30", "22:00"),
    ("GRE", "Gresham", "Gresham", "500 NW Eastman Pkwy", "05:30", "21:30"),
    ("TIG", "Tigard", "Tigard", "9800 SW Washington Sq Rd", "05:00", "22:00"),
    ("SAL", "Salem Center", "Salem", "401 Center St NE", "05:30", "21:00"),
]
PLANS = [
    # id, code, name, fee, access, classes, guests, freeze days, min term
    (1, "BASIC", "Basic", 2900, "home", 0, 0, 30, 0),
    (2, "PLUS", "Plus", 4900, "all", 1, 1, 60, 12),
    (3, "PREMIUM", "Premium", 7900, "all", 1, 4, 90, 0),
    (4, "STUDENT", "Student", 1900, "home", 1, 0, 30, 6),
]
CLASS_TYPES = [
    (1, "YOGA", "Vinyasa Yoga", 60, "low"), (2, "SPIN", "Spin", 45, "high"), (3, "HIIT", "HIIT Circuit", 45, "high"),
    (4, "PILATES", "Mat Pilates", 50, "medium"), (5, "BOX", "Boxing Fit", 60, "high"), (6, "ZUMBA", "Zumba", 55, "medium"),
    (7, "STRENGTH", "Strength Basics", 60, "medium"), (8, "STRETCH", "Deep Stretch", 30, "low"),
]
SPECIALTIES = ["strength", "yoga", "cycling", "boxing", "pilates", "mobility", "weight loss"]
TIMES = ["06:30", "08:00", "09:30", "12:15", "17:30", "18:45", "19:30"]
ROOMS = ["Studio A", "Studio B", "Cycle Room"]


def _renumber(rows: list[Row], key: Any) -> None:
    """Sort ``rows`` by ``key`` and give them ids 1..n in that order."""
    rows.sort(key=key)
    for i, row in enumerate(rows, start=1):
        row["id"] = i


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng, fk = ctx.rng, ctx.faker
    today, clock = ctx.today, ctx.clock
    add_months = ctx.tools._add_months  # billing dates follow the tools' month arithmetic

    nc = ctx.n(3, 10)
    clubs = [{"id": i, "code": c, "name": n, "city": city, "address": a, "phone": f"(503) 555-{3000 + i * 53:04d}",
              "opens_at": o, "closes_at": cl} for i, (c, n, city, a, o, cl) in enumerate(CLUBS[:nc], start=1)]
    plans = [{"id": p[0], "code": p[1], "name": p[2], "monthly_fee_cents": p[3], "access": p[4],
              "includes_classes": p[5], "guest_passes_per_month": p[6], "freeze_days_per_year": p[7],
              "min_term_months": p[8]} for p in PLANS]
    plan = {p["id"]: p for p in plans}
    class_types = [{"id": t[0], "code": t[1], "name": t[2], "duration_min": t[3], "intensity": t[4],
                    "description": f"{t[2]} class"} for t in CLASS_TYPES]

    # ---- staff -----------------------------------------------------------------------------------
    staff: list[Row] = []
    semails: set[str] = set()
    snames: set[tuple[str, str]] = set()

    def add_staff(club: int, role: str, first: str | None = None, last: str | None = None) -> Row:
        if first is None:
            first, last = ctx.unique(lambda: (fk.first_name(), fk.last_name()), snames)
        email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.choice(['', str(rng.randint(2, 9))])}@"
                           "ironleaf.fit".replace("'", ""), semails)
        row = {"id": len(staff) + 1, "club_id": club, "full_name": f"{first} {last}", "email": email, "role": role,
               "specialty": rng.choice(SPECIALTIES) if role == "trainer" else None,
               "pt_rate_cents": rng.choice([6000, 7000, 7500, 8500, 9000]) if role == "trainer" else None,
               "is_active": 1}
        staff.append(row)
        return row

    trainers: dict[int, list[Row]] = {}
    desks: dict[int, list[Row]] = {}
    for c in clubs:
        add_staff(c["id"], "manager")
        desks[c["id"]] = [add_staff(c["id"], "front_desk") for _ in range(2)]
        trainers[c["id"]] = [add_staff(c["id"], "trainer") for _ in range(rng.randint(3, 4))]
    if ctx.distractors:
        for c in clubs:
            t = trainers[c["id"]][0]
            first, last = t["full_name"].split(" ", 1)
            other = clubs[(c["id"]) % nc]
            add_staff(other["id"], "front_desk", first[:-1] + ("a" if first[-1] != "a" else "e"), last)
    staff[-1]["is_active"] = 0 if staff[-1]["role"] != "trainer" else 1

    # ---- members and memberships --------------------------------------------------------------
    members: list[Row] = []
    memberships: list[Row] = []
    freezes: list[Row] = []
    invoices: list[Row] = []
    memails: set[str] = set()
    mnames: set[tuple[str, str]] = set()

    def add_member(first: str, last: str) -> Row:
        email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.choice(['', str(rng.randint(1, 99))])}@"
                           f"{rng.choice(['gmail.com', 'yahoo.com', 'outlook.com', 'proton.me'])}".replace("'", ""),
                           memails)
        m = {"id": len(members) + 1, "first_name": first, "last_name": last, "email": email,
             "phone": f"(503) 555-{rng.randint(0, 9999):04d}",
             "date_of_birth": ctx.days_ago(365 * 18, 365 * 70).isoformat(), "home_club_id": rng.randint(1, nc),
             "created_at": ""}
        members.append(m)
        return m

    for _ in range(ctx.n(45, 640)):
        first, last = ctx.unique(lambda: (fk.first_name(), fk.last_name()), mnames)
        add_member(first, last)
    if ctx.distractors:
        for m in ctx.sample(members[:], max(4, len(members) // 8)):
            add_member(m["first_name"], m["last_name"])

    def invoice(m: Row, kind: str, desc: str, cents: int, issued: date, paid: bool | None = None) -> Row:
        due = issued + timedelta(days=14)
        if paid is None:
            paid = due < today or rng.random() < 0.6
        row = {"id": len(invoices) + 1, "number": f"INV-{len(invoices) + 1:06d}", "member_id": m["id"], "kind": kind,
               "description": desc, "amount_cents": cents, "issued_on": issued.isoformat(), "due_on": due.isoformat(),
               "status": "paid" if paid else "open",
               "paid_at": _iso(datetime.combine(min(issued + timedelta(days=rng.randint(0, 10)), today - timedelta(days=1)),
                                                time(rng.randint(8, 20), rng.randint(0, 59)))) if paid else None,
               "payment_method": rng.choice(["card", "card", "bank_transfer", "cash"]) if paid else None}
        invoices.append(row)
        return row

    ms_of: dict[int, Row] = {}
    overdue_planted = 0
    for i, m in enumerate(members):
        p = plan[ctx.weighted({1: 0.25, 2: 0.35, 3: 0.25, 4: 0.15})]
        start = ctx.days_ago(40, 900)
        m["created_at"] = _iso(datetime.combine(start - timedelta(days=rng.randint(0, 5)), time(rng.randint(8, 20))))
        status = ctx.weighted({"active": 0.78, "frozen": 0.08, "cancelled": 0.14})
        nxt = date(today.year, today.month, min(start.day, 28))
        if nxt <= today:
            nxt = add_months(nxt, 1)
        ms = {"id": len(memberships) + 1, "member_id": m["id"], "plan_id": p["id"], "status": status,
              "start_date": start.isoformat(), "next_billing_date": nxt.isoformat() if status != "cancelled" else None,
              "frozen_until": None, "cancelled_on": None, "cancel_reason": None}
        memberships.append(ms)
        ms_of[m["id"]] = ms
        if status == "cancelled":
            c_on = start + timedelta(days=rng.randint(30, max(31, (today - start).days - 5)))
            ms["cancelled_on"] = min(c_on, today - timedelta(days=3)).isoformat()
            ms["cancel_reason"] = rng.choice(["moving away", "too expensive", "injury", "switching gyms"])
            continue
        year_start = date(today.year, 1, 1)
        if status == "frozen":
            fs = today - timedelta(days=rng.randint(1, 15))
            fe = today + timedelta(days=rng.randint(5, 20))
            if fs < start:
                fs = start
            fe = min(fe, fs + timedelta(days=p["freeze_days_per_year"]))
            freezes.append({"id": len(freezes) + 1, "membership_id": ms["id"], "start_date": fs.isoformat(),
                            "end_date": fe.isoformat(), "days": (fe - fs).days,
                            "created_at": _iso(datetime.combine(fs, time(9)))})
            ms["frozen_until"] = fe.isoformat()
        elif rng.random() < 0.35 and start < year_start + timedelta(days=60):
            fs = year_start + timedelta(days=rng.randint(60, 200))
            d = rng.choice([7, 10, 14, 21, 30])
            freezes.append({"id": len(freezes) + 1, "membership_id": ms["id"], "start_date": fs.isoformat(),
                            "end_date": (fs + timedelta(days=d)).isoformat(), "days": d,
                            "created_at": _iso(datetime.combine(fs - timedelta(days=1), time(10)))})
        # monthly fee invoices for the last three billing dates
        for k in (3, 2, 1):
            issued = add_months(nxt, -k)
            if issued < start or issued >= today:
                continue
            overdue = (status == "active" and k == 2 and i % 7 == 3)
            invoice(m, "monthly_fee", f"{p['name']} membership {issued.strftime('%B %Y')}", p["monthly_fee_cents"],
                    issued, paid=False if overdue else (True if k >= 2 else None))
            if overdue:
                overdue_planted += 1
    # ---- classes ------------------------------------------------------------------------------------
    sessions: list[Row] = []
    bookings: list[Row] = []
    trainer_busy: set[tuple[int, str]] = set()
    per_day = ctx.n(2, 5)
    for c in clubs:
        for off in range(-4, 11):
            d = today + timedelta(days=off)
            for t in sorted(ctx.sample(TIMES, per_day)):
                starts = datetime.combine(d, time(int(t[:2]), int(t[3:])))
                tr = ctx.pick(trainers[c["id"]])
                if (tr["id"], _iso(starts)) in trainer_busy:
                    continue
                trainer_busy.add((tr["id"], _iso(starts)))
                ct = ctx.pick(class_types)
                past = starts < clock
                status = "completed" if past else "scheduled"
                reason = None
                if rng.random() < 0.05:
                    status, reason = "cancelled", "Instructor unavailable"
                sessions.append({"id": len(sessions) + 1, "class_type_id": ct["id"], "club_id": c["id"],
                                 "trainer_id": tr["id"], "starts_at": _iso(starts),
                                 "room": "Cycle Room" if ct["code"] == "SPIN" else rng.choice(ROOMS[:2]),
                                 "capacity": rng.choice([8, 10, 12, 15, 20]), "status": status, "cancel_reason": reason})

    def can_class(m: Row, club_id: int) -> bool:
        ms = ms_of[m["id"]]
        p = plan[ms["plan_id"]]
        return ms["status"] == "active" and p["includes_classes"] and (p["access"] == "all" or m["home_club_id"] == club_id)

    member_times: set[tuple[int, str]] = set()
    fut_count: dict[int, int] = {}
    past_count: dict[int, int] = {}
    fulls = {s["id"] for s in ctx.sample([s for s in sessions if s["status"] == "scheduled"], ctx.n(4, 14))}
    for s in sorted(sessions, key=lambda s: (s["id"] not in fulls, s["id"])):
        cnt = fut_count if s["status"] == "scheduled" else past_count
        lim = 3 if s["status"] == "scheduled" else 4
        eligible = [m for m in members if can_class(m, s["club_id"]) and (m["id"], s["starts_at"]) not in member_times
                    and cnt.get(m["id"], 0) < lim]
        if not eligible:
            continue
        full = s["id"] in fulls and len(eligible) >= 10
        if full:
            s["capacity"] = 8
        n_book = s["capacity"] if full else rng.randint(0, max(0, s["capacity"] // 2))
        n_book = min(n_book, len(eligible))
        chosen = ctx.sample(eligible, n_book + (rng.randint(1, 3) if full else 0))
        starts = datetime.fromisoformat(s["starts_at"])
        for k, m in enumerate(chosen):
            member_times.add((m["id"], s["starts_at"]))
            cnt[m["id"]] = cnt.get(m["id"], 0) + 1
            created = starts - timedelta(days=rng.randint(1, 6), hours=rng.randint(0, 10))
            if created >= clock:
                created = clock - timedelta(hours=rng.randint(1, 20))
            if k < n_book:
                if s["status"] == "completed":
                    st = "attended" if rng.random() < 0.85 else "no_show"
                elif s["status"] == "cancelled":
                    st = "cancelled"
                else:
                    st = "booked"
                pos = None
            else:
                if s["status"] != "scheduled":
                    break
                st, pos = "waitlisted", k - n_book + 1
            bookings.append({"id": len(bookings) + 1, "session_id": s["id"], "member_id": m["id"], "status": st,
                             "waitlist_position": pos, "created_at": _iso(created),
                             "cancelled_at": _iso(min(created + timedelta(hours=5), clock - timedelta(minutes=5)))
                             if st == "cancelled" else None})
    _renumber(bookings, lambda b: (b["created_at"], b["id"]))

    # ---- personal training ----------------------------------------------------------------------------
    packages: list[Row] = []
    pt_sessions: list[Row] = []
    for m in members:
        ms = ms_of[m["id"]]
        if ms["status"] != "active" or rng.random() > 0.22:
            continue
        tr = ctx.pick(trainers[m["home_club_id"]])
        total = rng.choice([5, 10, 10, 20])
        disc = ctx.tools.PACKAGE_DISCOUNT[total]
        bought = ctx.days_ago(5, 80)
        pk = {"id": len(packages) + 1, "member_id": m["id"], "trainer_id": tr["id"], "sessions_total": total,
              "sessions_remaining": total, "price_cents": tr["pt_rate_cents"] * total * disc // 100,
              "purchased_on": bought.isoformat(),
              "expires_on": (bought + timedelta(days=ctx.tools.PACKAGE_DAYS)).isoformat()}
        packages.append(pk)
        invoice(m, "pt_package", f"{total} personal training sessions with {tr['full_name']}", pk["price_cents"], bought,
                paid=True)
        used = rng.randint(0, min(total - 1, (today - bought).days // 7))
        for k in range(used):
            d = bought + timedelta(days=3 + k * 6)
            at = datetime.combine(d, time(rng.choice([7, 10, 13, 16]), 0))
            if at >= clock or (tr["id"], _iso(at)) in trainer_busy:
                continue
            trainer_busy.add((tr["id"], _iso(at)))
            st = "completed" if rng.random() < 0.9 else "forfeited"
            pt_sessions.append({"id": len(pt_sessions) + 1, "package_id": pk["id"], "starts_at": _iso(at), "status": st,
                                "created_at": _iso(at - timedelta(days=2))})
            pk["sessions_remaining"] -= 1
        if pk["sessions_remaining"] > 1 and rng.random() < 0.6:
            at = datetime.combine(today + timedelta(days=rng.randint(1, 8)), time(rng.choice([7, 10, 13, 16]), 0))
            if (tr["id"], _iso(at)) not in trainer_busy:
                trainer_busy.add((tr["id"], _iso(at)))
                pt_sessions.append({"id": len(pt_sessions) + 1, "package_id": pk["id"], "starts_at": _iso(at),
                                    "status": "scheduled", "created_at": _iso(clock - timedelta(days=1))})
                pk["sessions_remaining"] -= 1

    # ---- check-ins, lockers, guest passes --------------------------------------------------------------
    check_ins: list[Row] = []
    for m in members:
        ms = ms_of[m["id"]]
        if ms["status"] != "active":
            continue
        p = plan[ms["plan_id"]]
        for _ in range(rng.randint(0, 4)):
            club = m["home_club_id"] if p["access"] == "home" or rng.random() < 0.8 else rng.randint(1, nc)
            at = ctx.moment_ago(1, 20)
            at = at.replace(hour=rng.randint(6, 20))
            check_ins.append({"id": 0, "member_id": m["id"], "club_id": club,
                              "staff_id": ctx.pick(desks[club])["id"], "checked_in_at": _iso(at)})
    _renumber(check_ins, lambda x: (x["checked_in_at"], x["member_id"]))

    lockers: list[Row] = []
    rentals: list[Row] = []
    for c in clubs:
        for k in range(1, ctx.n(12, 20) + 1):
            size = "large" if k % 4 == 0 else "small"
            lockers.append({"id": len(lockers) + 1, "club_id": c["id"], "number": f"{'L' if size == 'large' else 'S'}{k:02d}",
                            "size": size, "monthly_fee_cents": 2500 if size == "large" else 1500,
                            "out_of_service": 1 if k % 11 == 0 else 0})
    for l in lockers:
        if l["out_of_service"] or rng.random() > 0.45:
            continue
        cands = [m for m in members if ms_of[m["id"]]["status"] == "active" and m["home_club_id"] == l["club_id"]
                 and not any(r["member_id"] == m["id"] and r["status"] == "active" and
                             lockers[r["locker_id"] - 1]["club_id"] == l["club_id"] for r in rentals)]
        if cands:
            m = ctx.pick(cands)
            rentals.append({"id": len(rentals) + 1, "locker_id": l["id"], "member_id": m["id"],
                            "start_date": ctx.days_ago(5, 200).isoformat(), "end_date": None, "status": "active"})

    guest_passes: list[Row] = []

    def guest_pass(m: Row, vd: date, days_ahead: int) -> None:
        """A pass for a guest of ``m`` at their home club on ``vd``, issued ``days_ahead`` days before."""
        guest_passes.append({"id": 0, "member_id": m["id"], "club_id": m["home_club_id"], "guest_name": fk.name(),
                             "visit_date": vd.isoformat(),
                             "created_at": _iso(datetime.combine(vd, time(8)) - timedelta(days=days_ahead))})

    for i, m in enumerate(members):
        ms = ms_of[m["id"]]
        p = plan[ms["plan_id"]]
        if ms["status"] != "active" or p["guest_passes_per_month"] == 0:
            continue
        n_now = p["guest_passes_per_month"] if i % 5 == 0 else rng.randint(0, p["guest_passes_per_month"] - 1)
        for _ in range(n_now):
            guest_pass(m, today - timedelta(days=rng.randint(0, today.day - 1)), 1)
        if rng.random() < 0.4:
            guest_pass(m, date(today.year, today.month, 1) - timedelta(days=rng.randint(1, 25)), 2)
    _renumber(guest_passes, lambda g: (g["created_at"], g["member_id"]))
    _renumber(invoices, lambda v: (v["issued_on"], v["id"]))
    for v in invoices:
        v["number"] = f"INV-{v['id']:06d}"

    return {"clubs": clubs, "membership_plans": plans, "members": members, "memberships": memberships,
            "membership_freezes": freezes, "staff": staff, "class_types": class_types, "class_sessions": sessions,
            "class_bookings": bookings, "pt_packages": packages, "pt_sessions": pt_sessions, "check_ins": check_ins,
            "invoices": invoices, "lockers": lockers, "locker_rentals": rentals, "guest_passes": guest_passes}
