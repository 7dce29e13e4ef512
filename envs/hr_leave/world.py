"""World builder for hr_leave: a company's HR system with leave, approvals, expenses and timesheets.

``build(ctx)`` returns rows per table (parents first, explicit integer keys); randomness only from
``ctx.rng`` / ``ctx.faker``, dates only from ``ctx.clock``. The rows keep the rules ``tools.py`` enforces:

- a strict reporting tree: the CEO, department heads reporting to the CEO, team leads to their head,
  staff to their lead; terminated people hold no open work;
- leave is counted in working days (Monday to Friday minus the public holidays of the employee's
  country); a request lies within one calendar year; an employee's live requests (draft, submitted,
  approved) never overlap; annual and unpaid leave never overlap the department's blackout periods;
- 2026 balances agree with the requests: used_days = approved working days, pending_days = submitted
  working days, and never more than entitlement + carry-over (carry-over within the type's cap);
- requests were submitted with the type's notice, and decided by the employee's manager (or a delegate
  covering that day); expense claims were decided by someone in the claimant's management chain whose
  job title's approval limit covers the amount, within the category cap;
- timesheets are weekly (Monday), with entries only on working days that are not on approved leave;
- onboarding checklists belong to recent hires; every timestamp lies before the clock.

Planted in every world for the templates: submitted requests waiting for their managers, approved future
leave that can still be cancelled, reports on leave on the same day, pending expense claims inside and
beyond the direct manager's limit, open timesheets for last week, and managers with pending approvals.

``distractors``: namesakes (same full name, other department and e-mail) and people sharing a surname.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]
DOMAIN = "brightpath.io"

LOCATIONS = [
    ("New York HQ", "New York", "US"), ("London Office", "London", "GB"), ("Berlin Office", "Berlin", "DE"),
    ("Dublin Office", "Dublin", "IE"), ("Toronto Office", "Toronto", "CA"),
]
HOLIDAYS = {
    "US": [("01-01", "New Year's Day"), ("01-19", "Martin Luther King Jr. Day"), ("02-16", "Presidents' Day"),
           ("05-25", "Memorial Day"), ("06-19", "Juneteenth"), ("07-03", "Independence Day (observed)"),
           ("09-07", "Labor Day"), ("11-26", "Thanksgiving Day"), ("11-27", "Day after Thanksgiving"),
           ("12-25", "Christmas Day")],
    "GB": [("01-01", "New Year's Day"), ("04-03", "Good Friday"), ("04-06", "Easter Monday"),
           ("05-04", "Early May bank holiday"), ("05-25", "Spring bank holiday"), ("08-31", "Summer bank holiday"),
           ("12-25", "Christmas Day"), ("12-28", "Boxing Day (substitute day)")],
    "DE": [("01-01", "Neujahr"), ("04-03", "Karfreitag"), ("04-06", "Ostermontag"), ("05-01", "Tag der Arbeit"),
           ("05-14", "Christi Himmelfahrt"), ("05-25", "Pfingstmontag"), ("10-03", "Tag der Deutschen Einheit"),
           ("12-25", "Erster Weihnachtstag")],
    "IE": [("01-01", "New Year's Day"), ("02-02", "St Brigid's Day"), ("03-17", "St Patrick's Day"),
           ("04-06", "Easter Monday"), ("05-04", "May bank holiday"), ("06-01", "June bank holiday"),
           ("08-03", "August bank holiday"), ("10-26", "October bank holiday"), ("12-25", "Christmas Day")],
    "CA": [("01-01", "New Year's Day"), ("04-03", "Good Friday"), ("05-18", "Victoria Day"), ("07-01", "Canada Day"),
           ("08-03", "Civic Holiday"), ("09-07", "Labour Day"), ("10-12", "Thanksgiving"), ("12-25", "Christmas Day"),
           ("12-28", "Boxing Day (observed)")],
}
DEPARTMENTS = [
    ("ENG", "Engineering"), ("SAL", "Sales"), ("FIN", "Finance"), ("PPL", "People"), ("OPS", "Operations"),
    ("MKT", "Marketing"), ("LEG", "Legal"), ("SUP", "Customer Support"), ("DAT", "Data"), ("PRD", "Product"),
]
JOB_TITLES = [
    (1, "Chief Executive Officer", 9, 1000000), (2, "Head of Department", 7, 500000), (3, "Team Lead", 5, 100000),
    (4, "Senior Specialist", 4, 0), (5, "Specialist", 3, 0), (6, "Associate", 2, 0), (7, "HR Business Partner", 5, 0),
]
LEAVE_TYPES = [  # id, code, name, paid, entitlement, carry cap, notice, blackout applies
    (1, "annual", "Annual leave", 1, 25, 5, 5, 1), (2, "sick", "Sick leave", 1, 10, 0, 0, 0),
    (3, "parental", "Parental leave", 1, 60, 0, 30, 0), (4, "unpaid", "Unpaid leave", 0, 20, 0, 10, 1),
]
CATEGORIES = [
    (1, "TRAVEL", "Travel and lodging", 300000), (2, "MEALS", "Meals", 20000), (3, "SOFTWARE", "Software and subscriptions", 50000),
    (4, "TRAINING", "Training and conferences", 250000), (5, "EQUIPMENT", "Equipment", 150000),
    (6, "CLIENT", "Client entertainment", 100000),
]
EXPENSE_TEXT = {
    1: ["Train to client workshop", "Hotel for sales conference", "Flight to Berlin office", "Taxi to airport"],
    2: ["Team lunch after release", "Dinner while travelling", "Working breakfast"],
    3: ["Design tool annual licence", "API testing subscription", "Password manager seat"],
    4: ["Conference ticket", "Online course certificate", "Workshop fee"],
    5: ["External monitor", "Ergonomic keyboard", "Noise-cancelling headset"],
    6: ["Client dinner", "Drinks with prospect", "Client lunch"],
}
BLACKOUTS = {
    "ENG": [("2026-06-22", "2026-06-26", "Platform release freeze")],
    "SAL": [("2026-06-24", "2026-06-30", "Quarter-end sales close")],
    "FIN": [("2026-06-25", "2026-07-03", "Half-year financial close"), ("2026-03-26", "2026-04-02", "Q1 close")],
    "SUP": [("2026-07-06", "2026-07-10", "Product launch support week")],
    "OPS": [("2026-05-26", "2026-05-29", "Office move")],
}
PROJECT_NAMES = {
    "ENG": [("PLAT", "Platform modernisation"), ("MOB", "Mobile app v3")], "SAL": [("EMEA", "EMEA expansion"), ("CRM", "CRM clean-up")],
    "FIN": [("AUD", "External audit"), ("ERP", "ERP migration")], "PPL": [("HRIS", "HRIS roll-out"), ("ENG", "Engagement survey")],
    "OPS": [("MOVE", "Office move"), ("SEC", "Security certification")], "MKT": [("BRND", "Brand refresh"), ("WEB", "Website rebuild")],
    "LEG": [("GDPR", "GDPR review"), ("CTR", "Contract templates")], "SUP": [("KB", "Knowledge base"), ("CHAT", "Live chat launch")],
    "DAT": [("WH", "Data warehouse"), ("BI", "BI dashboards")], "PRD": [("DISC", "Discovery research"), ("ROAD", "Roadmap 2027")],
}
ONBOARDING = [("Sign employment contract", "hr"), ("Set up laptop", "it"), ("Create system accounts", "it"),
              ("Meet your manager", "manager"), ("Complete security training", "self")]


def _at(d: date, h: int, m: int = 0) -> str:
    return datetime.combine(d, time(h, m)).isoformat()


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng, fk, today = ctx.rng, ctx.faker, ctx.today
    T = Tables([
        "locations", "public_holidays", "departments", "job_titles", "employees", "leave_types", "leave_balances",
        "leave_requests", "blackout_periods", "delegations", "expense_categories", "expense_claims", "projects",
        "timesheets", "timesheet_entries", "onboarding_tasks"])
    n_loc = ctx.n(3, 5)
    hol: dict[str, set[str]] = {}
    for name, city, cc in LOCATIONS[:n_loc]:
        T.add("locations", {"name": name, "city": city, "country_code": cc})
        hol[cc] = set()
        for md, hname in HOLIDAYS[cc]:
            for year in (2025, 2026):
                T.add("public_holidays", {"country_code": cc, "holiday_date": f"{year}-{md}", "name": hname})
                hol[cc].add(f"{year}-{md}")
    loc_cc = {i + 1: LOCATIONS[i][2] for i in range(n_loc)}
    depts = DEPARTMENTS[: ctx.n(5, 10)]
    dept_id = {}
    for i, (code, name) in enumerate(depts, start=1):
        dept_id[code] = T.add("departments", {"code": code, "name": name, "cost_center": f"CC-{100 + i * 10}"})["id"]
    for jid, title, grade, lim in JOB_TITLES:
        T["job_titles"].append({"id": jid, "title": title, "grade": grade, "expense_limit_cents": lim})
    limit = {j[0]: j[3] for j in JOB_TITLES}
    for lt in LEAVE_TYPES:
        T["leave_types"].append(dict(zip(["id", "code", "name", "paid", "yearly_entitlement_days", "carry_over_cap_days",
                                          "min_notice_days", "blackout_applies"], lt)))
    for c in CATEGORIES:
        T["expense_categories"].append(dict(zip(["id", "code", "name", "per_claim_cap_cents"], c)))

    # ---- people ----------------------------------------------------------------------------------
    emps = T["employees"]
    emails: set[str] = set()

    def person(dept: int, title: int, manager: int | None, loc: int | None = None, hr: int = 0,
               full: str | None = None, hired: date | None = None) -> Row:
        i = len(emps) + 1
        if full is None:
            full = f"{fk.first_name()} {fk.last_name()}"
        first, last = full.split(" ", 1)
        base = f"{first}.{last}".lower().replace("'", "").replace(" ", "")
        email = f"{base}@{DOMAIN}"
        k = 2
        while email in emails:
            email = f"{base}{k}@{DOMAIN}"
            k += 1
        emails.add(email)
        if loc is None:
            mgr_loc = emps[manager - 1]["location_id"] if manager else 1
            loc = mgr_loc if ctx.chance(0.7) else rng.randint(1, n_loc)
        row = {"id": i, "employee_no": f"E{10000 + i * 3 + rng.randint(0, 2)}", "full_name": full, "email": email,
               "department_id": dept, "job_title_id": title, "manager_id": manager, "location_id": loc, "is_hr": hr,
               "hire_date": (hired or ctx.days_ago(200, 3600)).isoformat(), "status": "active"}
        emps.append(row)
        return row

    ceo = person(dept_id["OPS"], 1, None, loc=1, hired=ctx.days_ago(3000, 4000))
    heads, leads, staff = [], [], []
    for code, _ in depts:
        d = dept_id[code]
        head = person(d, 2, ceo["id"], loc=rng.randint(1, n_loc), hr=int(code == "PPL"))
        heads.append(head)
        for _ in range(rng.randint(*ctx.n((1, 2), (3, 5)))):
            lead = person(d, 3, head["id"], hr=int(code == "PPL"))
            leads.append(lead)
            for _ in range(rng.randint(*ctx.n((3, 5), (9, 13)))):
                title = 7 if code == "PPL" else ctx.pick([4, 5, 5, 6])
                s = person(d, title, lead["id"], hr=int(code == "PPL"),
                           hired=ctx.days_ago(5, 45) if ctx.chance(0.08) else None)
                staff.append(s)
    if ctx.distractors:
        for src in ctx.sample(staff, max(3, len(staff) // 12)):
            other = ctx.pick([x for x in leads if x["department_id"] != src["department_id"]] or leads)
            person(other["department_id"], ctx.pick([5, 6]), other["id"], full=src["full_name"])
        for src in ctx.sample(staff, max(3, len(staff) // 12)):
            other = ctx.pick(leads)
            person(other["department_id"], ctx.pick([5, 6]), other["id"],
                   full=f"{fk.first_name()} {src['full_name'].split(' ', 1)[1]}")
    for s in ctx.sample(staff, max(1, len(staff) // 25)):
        s["status"] = "terminated"
    recent = [s for s in staff if s["status"] == "active" and (today - date.fromisoformat(s["hire_date"])).days <= 45]
    fresh: set[int] = set()
    for s in ctx.sample([x for x in staff if x["status"] == "active" and x not in recent], 2):
        s["hire_date"] = ctx.days_ago(2, 8).isoformat()  # planted: new hires whose onboarding has just started
        fresh.add(s["id"])
    # The template onboarding_two_tasks needs a new hire with a unique name and two open onboarding tasks; the
    # fresh hires above always qualify unless they have namesakes. Where they all do and no other recent hire has a
    # unique name, no world drawn from here could have one: make one more uniquely named employee a fresh hire.
    n_named: dict[str, int] = {}
    for x in emps:
        n_named[x["full_name"]] = n_named.get(x["full_name"], 0) + 1
    if not any(n_named[x["full_name"]] == 1 for x in recent + [emps[i - 1] for i in fresh]):
        extra = next((x for x in staff if x["status"] == "active" and x not in recent and x["id"] not in fresh
                      and n_named[x["full_name"]] == 1), None)
        if extra is not None:
            extra["hire_date"] = ctx.days_ago(2, 8).isoformat()
            fresh.add(extra["id"])
    active = [e for e in emps if e["status"] == "active"]
    reports: dict[int, list[Row]] = {}
    for e in emps:
        if e["manager_id"]:
            reports.setdefault(e["manager_id"], []).append(e)

    def chain(e: Row) -> list[Row]:
        out = []
        m = e["manager_id"]
        while m:
            out.append(emps[m - 1])
            m = emps[m - 1]["manager_id"]
        return out

    # ---- blackouts, projects ------------------------------------------------------------------------
    blackouts: dict[int, list[tuple[str, str]]] = {}
    for code, _ in depts:
        for s, e, why in BLACKOUTS.get(code, []):
            T.add("blackout_periods", {"department_id": dept_id[code], "start_date": s, "end_date": e, "reason": why})
            blackouts.setdefault(dept_id[code], []).append((s, e))
    projects: dict[int, list[int]] = {}
    for code, _ in depts:
        for pc, pname in PROJECT_NAMES[code]:
            p = T.add("projects", {"code": f"{code}-{pc}", "name": pname, "department_id": dept_id[code],
                                   "is_active": 1})
            projects.setdefault(dept_id[code], []).append(p["id"])
        T.add("projects", {"code": f"{code}-OLD", "name": "Legacy maintenance (closed)", "department_id": dept_id[code],
                           "is_active": 0})

    # ---- delegations ----------------------------------------------------------------------------
    delegation_days: dict[int, list[tuple[str, str, int]]] = {}
    for m in ctx.sample(leads + heads, max(2, len(leads) // 3)):
        peers = [x for x in leads + heads if x["id"] != m["id"] and x["department_id"] == m["department_id"]
                 and x["manager_id"] != m["id"]] or [emps[m["manager_id"] - 1]]
        dl = ctx.pick(peers)
        s = today - timedelta(days=rng.randint(20, 90))
        e = s + timedelta(days=rng.randint(4, 12))
        T.add("delegations", {"manager_id": m["id"], "delegate_id": dl["id"], "start_date": s.isoformat(),
                              "end_date": e.isoformat(), "created_at": _at(s - timedelta(days=2), 15),
                              "revoked_at": None})
        delegation_days.setdefault(m["id"], []).append((s.isoformat(), e.isoformat(), dl["id"]))

    # ---- leave -----------------------------------------------------------------------------------
    balances: dict[tuple[int, int], Row] = {}
    for e in emps:
        hired = date.fromisoformat(e["hire_date"])
        for lt in LEAVE_TYPES:
            ent = lt[4]
            if lt[1] == "annual" and hired.year == 2026:
                ent = round(lt[4] * (12 - hired.month + 1) / 12)
            carried = rng.randint(0, lt[5]) if lt[5] and hired.year < 2026 else 0
            balances[(e["id"], lt[0])] = T.add("leave_balances", {
                "employee_id": e["id"], "leave_type_id": lt[0], "year": 2026, "entitled_days": ent,
                "carried_over_days": carried, "used_days": 0, "pending_days": 0})
    live: dict[int, list[tuple[str, str]]] = {}

    def free(e: Row, s: date, en: date, lt: int) -> bool:
        if s.year != 2026 or en.year != 2026 or en < s:
            return False
        for a, b in live.get(e["id"], []):
            if not (en.isoformat() < a or s.isoformat() > b):
                return False
        if LEAVE_TYPES[lt - 1][7]:
            for a, b in blackouts.get(e["department_id"], []):
                if not (en.isoformat() < a or s.isoformat() > b):
                    return False
        return True

    def decider(e: Row, day: date) -> Row:
        m = e["manager_id"]
        for s, en, dl in delegation_days.get(m, []):
            if s <= day.isoformat() <= en and dl != e["id"]:
                return emps[dl - 1]
        return emps[m - 1]

    def add_req(e: Row, lt: int, s: date, en: date, status: str, reason: str = "") -> Row | None:
        hl = hol[loc_cc[e["location_id"]]]
        days = ctx.tools._count_working_days(s, en, hl)
        if days < 1 or not free(e, s, en, lt) or e["manager_id"] is None:
            return None
        b = balances[(e["id"], lt)]
        if status in ("submitted", "approved") and b["used_days"] + b["pending_days"] + days > b["entitled_days"] + b["carried_over_days"]:
            return None
        notice = LEAVE_TYPES[lt - 1][6]
        if lt == 2:  # sick leave is reported on the day or just after
            latest = min(s + timedelta(days=1), today - timedelta(days=1))
            created = max(s, latest - timedelta(days=1)) if latest >= s else latest
        else:
            latest = min(s - timedelta(days=notice), today - timedelta(days=1))
            created = latest - timedelta(days=rng.randint(0, 20))
        if created.isoformat() < e["hire_date"]:
            return None
        sub = created
        row = T.add("leave_requests", {
            "employee_id": e["id"], "leave_type_id": lt, "start_date": s.isoformat(), "end_date": en.isoformat(),
            "working_days": days, "reason": reason, "status": status, "created_at": _at(created, 10, rng.randint(0, 59)),
            "submitted_at": None if status == "draft" else _at(sub, 11, rng.randint(0, 59)),
            "decided_by": None, "decided_at": None, "decision_note": None, "cancelled_at": None})
        if status in ("approved", "rejected"):
            dday = min(sub + timedelta(days=rng.randint(0, 3)), today - timedelta(days=1))
            if lt == 2:
                dday = max(dday, sub)
            row["decided_by"] = decider(e, dday)["id"]
            row["decided_at"] = _at(dday, 16, rng.randint(0, 59))
            row["decision_note"] = None if status == "approved" else ctx.pick(
                ["Team is short-staffed that week", "Please pick other dates", "Clashes with the project deadline"])
        if status == "cancelled":
            row["cancelled_at"] = _at(min(sub + timedelta(days=rng.randint(1, 5)), today - timedelta(days=1)), 9)
        if status in ("draft", "submitted", "approved"):
            live.setdefault(e["id"], []).append((row["start_date"], row["end_date"]))
        if status == "approved":
            b["used_days"] += days
        elif status == "submitted":
            b["pending_days"] += days
        return row

    def monday_on_or_after(d: date) -> date:
        return d + timedelta(days=(7 - d.weekday()) % 7)

    for e in active:
        if e["manager_id"] is None:
            continue
        # past annual leave and sick days
        for _ in range(rng.randint(0, 2)):
            s = date(2026, 1, 5) + timedelta(days=rng.randint(0, 110))
            add_req(e, 1, s, s + timedelta(days=rng.randint(0, 6)), "approved", ctx.pick(["Family visit", "Ski trip", "", "Rest"]))
        if ctx.chance(0.4):
            s = date(2026, 1, 5) + timedelta(days=rng.randint(0, 120))
            if s + timedelta(days=1) < today:
                add_req(e, 2, s, s + timedelta(days=rng.randint(0, 1)), "approved", "Flu")
        # future leave
        r = rng.random()
        s = monday_on_or_after(today + timedelta(days=rng.randint(7, 100)))
        en = s + timedelta(days=rng.choice([1, 2, 4, 4, 11]))
        if r < 0.35:
            add_req(e, 1, s, en, "approved", ctx.pick(["Summer holiday", "Wedding", "Family trip", ""]))
        elif r < 0.55:
            add_req(e, 1, s, en, "submitted", ctx.pick(["Summer holiday", "Visiting parents", "Beach week", ""]))
        elif r < 0.62:
            add_req(e, 1, s, en, "draft", "Maybe a trip")
        elif r < 0.7:
            add_req(e, 1, s, en, "rejected", "Holiday")
        elif r < 0.76:
            add_req(e, 1, s, en, "cancelled", "Holiday")

    # planted: reports of the same manager away on the same day
    for lead in ctx.sample(leads, max(2, len(leads) // 2)):
        team = [x for x in reports.get(lead["id"], []) if x["status"] == "active"]
        if len(team) < 3:
            continue
        s = monday_on_or_after(today + timedelta(days=rng.randint(14, 40)))
        for x in ctx.sample(team, 2):
            add_req(x, 1, s + timedelta(days=rng.randint(0, 1)), s + timedelta(days=rng.randint(2, 4)), "approved", "Summer holiday")

    def away_together() -> bool:
        # as the template reports_on_leave_on_day asks: a manager with a unique name, two or more reports on
        # approved leave on the first day of one of those reports' approved future requests
        names: dict[str, int] = {}
        for x in emps:
            names[x["full_name"]] = names.get(x["full_name"], 0) + 1
        appr = [r for r in T["leave_requests"] if r["status"] == "approved"]
        for r in appr:
            if r["start_date"] <= today.isoformat():
                continue
            m = emps[r["employee_id"] - 1]["manager_id"]
            if m is None or names[emps[m - 1]["full_name"]] != 1:
                continue
            away = {q["employee_id"] for q in appr if emps[q["employee_id"] - 1]["manager_id"] == m
                    and q["start_date"] <= r["start_date"] <= q["end_date"]}
            if len(away) >= 2:
                return True
        return False

    def fits(x: Row, s: date, en: date) -> bool:
        b = balances[(x["id"], 1)]
        days = ctx.tools._count_working_days(s, en, hol[loc_cc[x["location_id"]]])
        return (x["manager_id"] is not None and days >= 1 and free(x, s, en, 1)
                and b["used_days"] + b["pending_days"] + days <= b["entitled_days"] + b["carried_over_days"]
                and x["hire_date"] <= (today - timedelta(days=30)).isoformat())

    if not away_together():  # chance (overlaps, balances, namesakes) spoiled the planting above: plant one pair
        names = [x["full_name"] for x in emps]
        done = False
        for lead in leads:
            if done or names.count(lead["full_name"]) != 1:
                continue
            team = [x for x in reports.get(lead["id"], []) if x["status"] == "active"]
            for w in range(12):
                s = monday_on_or_after(today + timedelta(days=21 + 7 * w))
                pair = [x for x in team if fits(x, s, s + timedelta(days=2))][:2]
                if len(pair) == 2:
                    for x in pair:
                        add_req(x, 1, s, s + timedelta(days=2), "approved", "Summer holiday")
                    done = True
                    break
    # planted: pending requests for managers to decide
    for lead in ctx.sample(leads, max(2, len(leads) * 2 // 3)):
        team = [x for x in reports.get(lead["id"], []) if x["status"] == "active"]
        for x in ctx.sample(team, 1):
            s = monday_on_or_after(today + timedelta(days=rng.randint(14, 60)))
            add_req(x, 1, s, s + timedelta(days=rng.choice([2, 4])), "submitted", ctx.pick(["Short break", "Long weekend", "Family event"]))

    # ---- expense claims ----------------------------------------------------------------------------
    for e in active:
        if e["manager_id"] is None or not ctx.chance(0.45):
            continue
        for _ in range(rng.randint(1, 3)):
            cat = ctx.pick(CATEGORIES)
            amount = rng.randint(15, max(16, cat[3] // 100 * 9 // 10)) * 100 + ctx.pick([0, 0, 50, 99])
            amount = min(amount, cat[3])
            day = today - timedelta(days=rng.randint(2, 80))
            if day.isoformat() < e["hire_date"]:
                continue
            status = ctx.weighted({"submitted": 3, "approved": 3, "paid": 3, "rejected": 1})
            row = {"employee_id": e["id"], "category_id": cat[0], "expense_date": day.isoformat(),
                   "amount_cents": amount, "description": ctx.pick(EXPENSE_TEXT[cat[0]]), "status": status,
                   "submitted_at": _at(min(day + timedelta(days=rng.randint(0, 5)), today - timedelta(days=1)), 17),
                   "decided_by": None, "decided_at": None, "decision_note": None}
            if status != "submitted":
                approver = next((m for m in chain(e) if limit[m["job_title_id"]] >= amount), None)
                if approver is None:
                    continue
                row["decided_by"] = approver["id"]
                dday = min(date.fromisoformat(row["submitted_at"][:10]) + timedelta(days=rng.randint(0, 4)), today - timedelta(days=1))
                row["decided_at"] = _at(dday, 18)
                if status == "rejected":
                    row["decision_note"] = ctx.pick(["Missing receipt", "Not a business expense", "Over the policy"])
            T.add("expense_claims", row)
    # planted: pending claims above a team lead's limit (need the head) for a few staff
    for s in ctx.sample([x for x in staff if x["status"] == "active"], max(2, len(staff) // 10)):
        T.add("expense_claims", {
            "employee_id": s["id"], "category_id": 1,
            "expense_date": (today - timedelta(days=rng.randint(3, 20))).isoformat(),
            "amount_cents": rng.randint(1100, 2900) * 100 + ctx.pick([0, 45, 80]),
            "description": ctx.pick(["Flights and hotel for customer summit", "Trade fair travel"]),
            "status": "submitted", "submitted_at": _at(today - timedelta(days=rng.randint(1, 2)), 12),
            "decided_by": None, "decided_at": None, "decision_note": None})

    # ---- timesheets ----------------------------------------------------------------------------------
    approved_days: dict[int, set[str]] = {}
    for r in T["leave_requests"]:
        if r["status"] == "approved":
            d = date.fromisoformat(r["start_date"])
            while d.isoformat() <= r["end_date"]:
                approved_days.setdefault(r["employee_id"], set()).add(d.isoformat())
                d += timedelta(days=1)
    week0 = today - timedelta(days=today.weekday())
    tracked = [x for x in staff if x["status"] == "active" and x["department_id"] in (dept_id["ENG"], dept_id["OPS"])] + \
              [x for x in staff if x["status"] == "active" and x["department_id"] not in (dept_id["ENG"], dept_id["OPS"])][: ctx.n(0, 200)]
    for e in tracked[: ctx.n(10, 300)]:
        hl = hol[loc_cc[e["location_id"]]]
        for k, st in ((3, "approved"), (2, "approved"), (1, ctx.pick(["submitted", "open", "open"]))):
            ws = week0 - timedelta(days=7 * k)
            if ws.isoformat() < e["hire_date"]:
                continue
            sub = _at(ws + timedelta(days=4), 17) if st != "open" else None
            appr = _at(ws + timedelta(days=7), 10) if st == "approved" else None
            ts = T.add("timesheets", {"employee_id": e["id"], "week_start": ws.isoformat(), "status": st,
                                      "submitted_at": sub, "approved_by": e["manager_id"] if st == "approved" else None,
                                      "approved_at": appr})
            n_days = 5 if st != "open" else rng.randint(1, 3)
            for j in range(n_days):
                d = ws + timedelta(days=j)
                if d.isoformat() in hl or d.isoformat() in approved_days.get(e["id"], set()) or d >= today:
                    continue
                T.add("timesheet_entries", {"timesheet_id": ts["id"], "work_date": d.isoformat(),
                                            "project_id": ctx.pick(projects[e["department_id"]][:2]),
                                            "hours": ctx.pick([7.5, 8.0, 8.0, 6.5]), "note": ""})

    # planted (only where chance left none): an open timesheet for last week with Friday still unlogged, as the
    # template complete_timesheet asks: an active employee with a unique name, Friday neither a public holiday
    # of the employee's country nor a day of approved leave. Chance can leave every such timesheet submitted,
    # or owned by someone with a namesake; then one is added for an untimesheeted employee (no rng drawn).
    last_ws = today - timedelta(days=7)
    if last_ws.weekday() == 0:
        fri = (last_ws + timedelta(days=4)).isoformat()
        name_n: dict[str, int] = {}
        for x in emps:
            name_n[x["full_name"]] = name_n.get(x["full_name"], 0) + 1
        logged_fri = {t["timesheet_id"] for t in T["timesheet_entries"] if t["work_date"] == fri}

        def fri_ok(x: Row) -> bool:
            return (x["status"] == "active" and name_n[x["full_name"]] == 1
                    and fri not in hol[loc_cc[x["location_id"]]] and fri not in approved_days.get(x["id"], set()))

        if not any(t["status"] == "open" and t["week_start"] == last_ws.isoformat() and t["id"] not in logged_fri
                   and fri_ok(emps[t["employee_id"] - 1]) for t in T["timesheets"]):
            has_ts = {t["employee_id"] for t in T["timesheets"] if t["week_start"] == last_ws.isoformat()}
            x = next((x for x in staff if fri_ok(x) and x["id"] not in has_ts
                      and x["hire_date"] <= last_ws.isoformat()), None)
            if x is not None:
                ts = T.add("timesheets", {"employee_id": x["id"], "week_start": last_ws.isoformat(), "status": "open",
                                          "submitted_at": None, "approved_by": None, "approved_at": None})
                hl = hol[loc_cc[x["location_id"]]]
                for j in range(2):  # Monday and Tuesday logged, the rest of the week still to do
                    d = (last_ws + timedelta(days=j)).isoformat()
                    if d in hl or d in approved_days.get(x["id"], set()):
                        continue
                    T.add("timesheet_entries", {"timesheet_id": ts["id"], "work_date": d,
                                                "project_id": projects[x["department_id"]][0], "hours": 8.0, "note": ""})

    # ---- onboarding -----------------------------------------------------------------------------
    hr_people = [x for x in active if x["is_hr"]]
    it_people = [x for x in active if x["department_id"] == dept_id["OPS"] and x["job_title_id"] in (4, 5, 6)] or [ceo]
    for e in active:
        hired = date.fromisoformat(e["hire_date"])
        if (today - hired).days > 45:
            continue
        for title, who in ONBOARDING:
            owner = {"hr": ctx.pick(hr_people), "it": ctx.pick(it_people), "manager": emps[e["manager_id"] - 1] if e["manager_id"] else ceo,
                     "self": e}[who]
            due = hired + timedelta(days=rng.randint(1, 14))
            done = due < today and ctx.chance(0.6) and e["id"] not in fresh
            T.add("onboarding_tasks", {"employee_id": e["id"], "title": title, "owner_id": owner["id"],
                                       "due_date": due.isoformat(),
                                       "completed_at": _at(min(due, today - timedelta(days=1)), 15) if done else None,
                                       "completed_by": owner["id"] if done else None})
    # Where chance completed the checklists of every uniquely named recent hire down to one open task (the
    # template onboarding_two_tasks needs two), reopen the latest completed tasks of the first such hire.
    open_n: dict[int, int] = {}
    for o in T["onboarding_tasks"]:
        open_n[o["employee_id"]] = open_n.get(o["employee_id"], 0) + (o["completed_at"] is None)
    uniq = [i for i in open_n if n_named[emps[i - 1]["full_name"]] == 1 and emps[i - 1]["status"] == "active"]
    if uniq and not any(open_n[i] >= 2 for i in uniq):
        i = uniq[0]
        closed = [o for o in T["onboarding_tasks"] if o["employee_id"] == i and o["completed_at"] is not None]
        for o in closed[::-1][: 2 - open_n[i]]:
            o["completed_at"] = o["completed_by"] = None
    return T
