"""World builder for it_helpdesk: the internal IT service desk of Norvale Group.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Every random choice comes
from ``ctx.rng`` / ``ctx.faker`` and every timestamp from ``ctx.clock``. The rows keep the invariants
``tools.py`` relies on:

- every employee but the CEO has a manager in the company; terminated staff hold no assets, licences or
  open requests; an employee holds at most one laptop, one phone, one tablet and two monitors;
- a ticket's assignee is an active agent of the ticket's group and no agent holds more open tickets
  (assigned, in progress, waiting on user) than ``max_open_tickets``; 'new' tickets are unassigned;
- SLA deadlines are the creation time plus the priority's targets; ``first_response_at`` is set exactly
  when an agent posted a public comment, at that comment's time; resolved / closed tickets carry a
  resolution note; every timestamp lies before the clock;
- licence seats in use never exceed the seat limit; fulfilled access requests have their licence;
  pending and approved requests are for software the requester does not hold, at most one open request
  per person and software, and the approver is the requester's manager;
- scheduled changes sit in future maintenance windows that have room and are long enough;
  implemented changes in past windows; approvers are CAB managers other than the requester;
- locked accounts have an 'account_locked' event as their latest account event.

Scenarios the templates need (new tickets in every group, tickets with unit capacity, locked accounts,
pending access requests, submitted changes with a free future window, people holding a laptop and a
licence) are planted in every world. With ``ctx.distractors`` the world adds namesake employees (same
full name, other e-mail and department), look-alike ticket subjects and a look-alike software product.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]
DOMAIN = "norvale.com"

DEPARTMENTS = [
    ("FIN", "Finance", "CC-1100"), ("HR", "Human Resources", "CC-1200"), ("SAL", "Sales", "CC-1300"),
    ("MKT", "Marketing", "CC-1400"), ("ENG", "Engineering", "CC-1500"), ("OPS", "Operations", "CC-1600"),
    ("LEG", "Legal", "CC-1700"), ("CS", "Customer Success", "CC-1800"),
]
JOBS = {
    "FIN": ["Accountant", "Financial Analyst", "Payroll Specialist", "Controller"],
    "HR": ["HR Generalist", "Recruiter", "People Partner", "HR Coordinator"],
    "SAL": ["Account Executive", "Sales Development Rep", "Sales Engineer", "Sales Operations Analyst"],
    "MKT": ["Content Marketer", "Graphic Designer", "Marketing Analyst", "Brand Manager"],
    "ENG": ["Software Engineer", "Senior Software Engineer", "QA Engineer", "Data Engineer", "SRE"],
    "OPS": ["Operations Analyst", "Facilities Coordinator", "Procurement Specialist", "Logistics Planner"],
    "LEG": ["Paralegal", "Legal Counsel", "Contracts Manager"],
    "CS": ["Customer Success Manager", "Support Specialist", "Onboarding Specialist", "Renewals Manager"],
}
LOCATIONS = ["London", "Manchester", "Dublin", "Amsterdam", "Remote"]

# code, name, description, handles_assets, handles_access
GROUPS = [
    ("SD", "Service Desk", "First line: logging, triage, software, passwords and quick fixes.", 1, 1),
    ("EUC", "End User Computing", "Laptops, phones, peripherals, printing and device builds.", 1, 0),
    ("NET", "Network & Telecom", "Office networks, Wi-Fi, VPN and telephony.", 0, 0),
    ("IAM", "Identity & Access", "Accounts, single sign-on, access requests and licences.", 0, 1),
    ("APPS", "Business Applications", "Salesforce, SAP, Workday and other business systems.", 0, 0),
    ("INFRA", "Infrastructure & Cloud", "Servers, storage, backups and cloud platforms.", 0, 0),
]
GROUP_SKILLS = {
    "SD": ["Windows", "macOS", "Office 365", "Active Directory"],
    "EUC": ["Windows", "macOS", "Mobile devices", "Printers"],
    "NET": ["Networking", "VPN", "Telephony"],
    "IAM": ["Active Directory", "Okta", "Office 365"],
    "APPS": ["Salesforce", "SAP", "Workday"],
    "INFRA": ["AWS", "Linux", "Backups", "Networking"],
}
SKILLS = ["Windows", "macOS", "Office 365", "Active Directory", "Mobile devices", "Printers", "Networking", "VPN",
          "Telephony", "Okta", "Salesforce", "SAP", "Workday", "AWS", "Linux", "Backups"]
PRIORITIES = [("P1", "Critical", 15, 4), ("P2", "High", 60, 8), ("P3", "Medium", 240, 24), ("P4", "Low", 480, 72)]
# name, group code, default priority code, subjects
CATEGORIES = [
    ("Hardware fault", "EUC", "P3", ["Laptop will not power on", "Laptop battery drains in an hour",
                                      "Cracked laptop screen", "Docking station not detecting monitors",
                                      "Keyboard keys stuck", "Laptop overheating and fan noise"]),
    ("Software installation", "SD", "P4", ["Install Visio", "Install Python 3.12", "Install Power BI Desktop",
                                            "Update Adobe Reader", "Install Zoom plug-in for Outlook"]),
    ("Network and Wi-Fi", "NET", "P3", ["Wi-Fi drops on the 3rd floor", "No network in meeting room Oak",
                                         "Slow network in the Dublin office", "Ethernet port dead at desk"]),
    ("VPN", "NET", "P2", ["VPN disconnects every 10 minutes", "Cannot connect to VPN from home",
                          "VPN client certificate expired"]),
    ("Account and password", "IAM", "P2", ["Account locked out", "Password reset needed",
                                            "MFA device lost", "Cannot sign in to Okta"]),
    ("Email and Office 365", "SD", "P3", ["Outlook keeps asking for password", "Shared mailbox missing",
                                           "Teams calls drop audio", "OneDrive not syncing"]),
    ("Business applications", "APPS", "P3", ["Salesforce report times out", "SAP invoice posting error",
                                              "Workday shows wrong manager", "Salesforce dashboard blank"]),
    ("Servers and cloud", "INFRA", "P2", ["File share F: unavailable", "Backup job failed overnight",
                                           "AWS dev account over budget alert", "Build server disk full"]),
    ("Printing", "EUC", "P4", ["Printer on 2nd floor jams", "Cannot add the Dublin printer",
                               "Scanner sends blank PDFs"]),
    ("Mobile phone", "EUC", "P3", ["Phone not receiving work email", "Company phone screen cracked",
                                   "Need new SIM for company phone"]),
]
# name, vendor, cost cents, requires approval, departments that get it by default (share)
SOFTWARE = [
    ("Microsoft 365 E3", "Microsoft", 3600, 0, None, 1.0),
    ("Slack Business+", "Salesforce", 1250, 0, None, 0.9),
    ("Zoom Pro", "Zoom", 1499, 0, ["SAL", "CS", "HR", "MKT"], 0.7),
    ("Adobe Acrobat Pro", "Adobe", 2399, 0, ["LEG", "FIN", "HR", "OPS"], 0.6),
    ("Adobe Creative Cloud", "Adobe", 8999, 1, ["MKT"], 0.7),
    ("Salesforce Sales Cloud", "Salesforce", 16500, 1, ["SAL", "CS"], 0.8),
    ("Tableau Creator", "Salesforce", 7500, 1, ["FIN", "OPS"], 0.4),
    ("GitHub Enterprise", "GitHub", 2100, 1, ["ENG"], 0.9),
    ("JetBrains All Products", "JetBrains", 2890, 0, ["ENG"], 0.5),
    ("Figma Professional", "Figma", 1500, 0, ["MKT", "ENG"], 0.3),
    ("Visio Plan 2", "Microsoft", 1500, 0, ["OPS", "ENG"], 0.2),
    ("DocuSign Business Pro", "DocuSign", 4000, 1, ["LEG", "SAL"], 0.3),
]
LAPTOPS = ["Dell Latitude 7440", "Lenovo ThinkPad T14 Gen 4", "Apple MacBook Pro 14 M3", "HP EliteBook 840 G10"]
PHONES = ["Apple iPhone 15", "Samsung Galaxy S23", "Google Pixel 8"]
MONITORS = ["Dell P2723DE 27in", "LG 27UP850 27in"]
TABLETS = ["Apple iPad Air 11", "Samsung Galaxy Tab S9"]
TAG_PREFIX = {"laptop": "LT", "phone": "PH", "monitor": "MN", "tablet": "TB"}
CHANGE_TITLES = {
    "NET": ["Upgrade core switch firmware", "Replace Wi-Fi access points on floor 3", "Rotate VPN gateway certificate",
            "Migrate guest Wi-Fi to new VLAN"],
    "INFRA": ["Patch Linux build servers", "Resize production database volume", "Upgrade backup appliance",
              "Apply AWS security group cleanup", "Migrate file share to new NAS"],
    "IAM": ["Enforce MFA for contractors", "Upgrade Okta AD agent", "Disable legacy authentication"],
    "APPS": ["Deploy Salesforce spring release", "Apply SAP kernel patch", "Workday tenant refresh"],
    "SD": ["Roll out new Teams client", "Update Windows 11 baseline image"],
    "EUC": ["Push macOS 14.4 update", "Replace print server", "Enable BitLocker recovery escrow"],
}
KB_TITLES = {
    "Hardware fault": ["Troubleshooting a laptop that will not start", "Resetting a docking station"],
    "Software installation": ["Installing software from Company Portal", "Requesting software not in the portal"],
    "Network and Wi-Fi": ["Connecting to NorvaleSecure Wi-Fi", "Fixing Wi-Fi drop-outs on Windows"],
    "VPN": ["Setting up GlobalProtect VPN", "Renewing your VPN certificate"],
    "Account and password": ["Resetting your password with self-service", "Registering a new MFA device"],
    "Email and Office 365": ["Adding a shared mailbox in Outlook", "Fixing OneDrive sync problems"],
    "Business applications": ["Requesting a Salesforce licence", "Running SAP invoice reports"],
    "Servers and cloud": ["Restoring a file from backup", "Requesting an AWS sandbox account"],
    "Printing": ["Adding an office printer", "Clearing a paper jam on the Ricoh MP C3004"],
    "Mobile phone": ["Enrolling a phone in Intune", "Setting up work email on iPhone"],
}


def _slug(name: str) -> str:
    keep = "".join(ch for ch in name.lower() if ch.isalpha() or ch in " -'")
    parts = [p.replace("'", "").replace("-", "") for p in keep.split()]
    return ".".join(p for p in parts if p)


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng, now = ctx.rng, ctx.clock
    T = Tables(["departments", "employees", "support_groups", "agents", "skills", "agent_skills", "priorities",
                "categories", "assets", "tickets", "ticket_comments", "escalations", "software", "licence_assignments",
                "access_requests", "maintenance_windows", "change_requests", "kb_articles", "account_events"])
    emails: set[str] = set()
    names: set[str] = set()

    def person_name() -> str:
        return ctx.unique(lambda: f"{ctx.faker.first_name()} {ctx.faker.last_name()}", names)

    def email_for(name: str) -> str:
        base = _slug(name)
        e, k = f"{base}@{DOMAIN}", 2
        while e in emails:
            e, k = f"{base}{k}@{DOMAIN}", k + 1
        emails.add(e)
        return e

    # -- departments and employees ---------------------------------------------------------------
    for code, name, cc in DEPARTMENTS:
        T.add("departments", {"code": code, "name": name, "cost_center": cc})
    dept_id = {d[0]: i for i, d in enumerate(DEPARTMENTS, 1)}
    emp: list[Row] = T["employees"]

    def add_employee(dept: str, manager: int | None, title: str, status: str = "active",
                     name: str | None = None) -> Row:
        name = name or person_name()
        hired = ctx.days_ago(60, 3000)
        return T.add("employees", {"department_id": dept_id[dept], "manager_id": manager, "full_name": name,
                                   "email": email_for(name), "job_title": title, "location": ctx.pick(LOCATIONS),
                                   "status": status, "account_locked": 0,
                                   "password_changed_at": _iso(ctx.moment_ago(1, 89)), "hired_on": hired.isoformat()})

    ceo = add_employee("OPS", None, "Chief Executive Officer")
    heads: dict[str, Row] = {}
    for code, name, _ in DEPARTMENTS:
        heads[code] = add_employee(code, ceo["id"], f"Head of {name}")
    n_staff = ctx.n(56, 700)
    team_leads: dict[str, list[Row]] = {code: [] for code, _, _ in DEPARTMENTS}
    codes = [d[0] for d in DEPARTMENTS]
    for k in range(n_staff):
        code = codes[k % len(codes)]
        if len(team_leads[code]) < (1 if not ctx.large else 6) or ctx.chance(0.04):
            r = add_employee(code, heads[code]["id"], "Team Lead")
            team_leads[code].append(r)
            continue
        mgr = ctx.pick(team_leads[code])["id"] if ctx.chance(0.8) else heads[code]["id"]
        status = "active" if ctx.chance(0.9) else ctx.pick(["on_leave", "terminated"])
        add_employee(code, mgr, ctx.pick(JOBS[code]), status)
    if ctx.distractors:  # namesakes: same full name, another department and e-mail
        for src in ctx.sample(emp[10:], max(4, len(emp) // 12)):
            other = ctx.pick([c for c in codes if dept_id[c] != src["department_id"]])
            add_employee(other, heads[other]["id"], ctx.pick(JOBS[other]), "active", name=src["full_name"])
    active_emp = [e for e in emp if e["status"] != "terminated"]

    # -- support groups, agents, skills ------------------------------------------------------------
    for code, name, desc, ha, hx in GROUPS:
        T.add("support_groups", {"code": code, "name": name, "email": f"{code.lower()}-team@{DOMAIN}",
                                 "description": desc, "handles_assets": ha, "handles_access": hx})
    gid = {g[0]: i for i, g in enumerate(GROUPS, 1)}
    for s in SKILLS:
        T.add("skills", {"name": s})
    sid = {s: i for i, s in enumerate(SKILLS, 1)}
    agents: list[Row] = T["agents"]
    by_group: dict[int, list[Row]] = {}
    for code, *_ in GROUPS:
        size = ctx.n(rng.randint(3, 4), rng.randint(12, 16))
        for k in range(size):
            role = "lead" if k == 0 else ("manager" if k == 1 and code in ("SD", "INFRA") else "agent")
            name = person_name()
            a = T.add("agents", {"group_id": gid[code], "full_name": name, "email": email_for(name), "role": role,
                                 "max_open_tickets": rng.randint(6, 10) if role == "agent" else rng.randint(4, 6),
                                 "is_active": 0 if (k >= 3 and ctx.chance(0.08)) else 1,
                                 "joined_on": ctx.days_ago(90, 2500).isoformat()})
            by_group.setdefault(gid[code], []).append(a)
            pool = GROUP_SKILLS[code] + ctx.sample([s for s in SKILLS if s not in GROUP_SKILLS[code]], 2)
            for s in ctx.sample(pool[:len(GROUP_SKILLS[code])], rng.randint(2, len(GROUP_SKILLS[code]))) + \
                    ([pool[-1]] if ctx.chance(0.3) else []):
                T.add("agent_skills", {"agent_id": a["id"], "skill_id": sid[s], "level": rng.randint(1, 5)})
    managers = [a for a in agents if a["role"] == "manager"]

    for code, name, resp, res in PRIORITIES:
        T.add("priorities", {"code": code, "name": name, "response_minutes": resp, "resolution_hours": res})
    pid = {p[0]: i for i, p in enumerate(PRIORITIES, 1)}
    prio = {i: p for i, p in enumerate(PRIORITIES, 1)}
    for name, g, p, _ in CATEGORIES:
        T.add("categories", {"name": name, "default_group_id": gid[g], "default_priority_id": pid[p]})

    # -- assets ------------------------------------------------------------------------------------
    serials: set[str] = set()
    tag_no = {t: 100 for t in TAG_PREFIX}
    held: dict[int, list[Row]] = {}

    def add_asset(kind: str, holder: Row | None, status: str) -> Row:
        tag_no[kind] += rng.randint(1, 3)
        model = ctx.pick({"laptop": LAPTOPS, "phone": PHONES, "monitor": MONITORS, "tablet": TABLETS}[kind])
        bought = ctx.days_ago(30, 1400)
        years = 3 if kind in ("laptop", "tablet") else 2
        row = T.add("assets", {
            "asset_tag": f"{TAG_PREFIX[kind]}-{tag_no[kind]:05d}", "asset_type": kind, "model": model,
            "serial_number": ctx.unique(lambda: ctx.faker.bothify("??########").upper(), serials),
            "status": status, "assigned_to": holder["id"] if holder else None,
            "assigned_at": None, "purchase_date": bought.isoformat(),
            "warranty_end": bought.replace(year=bought.year + years, day=min(bought.day, 28)).isoformat()})
        if holder:
            lo = max(0, (ctx.today - bought).days)
            row["assigned_at"] = _iso(datetime.combine(ctx.days_ago(1, max(2, lo)), datetime.min.time())
                                      + timedelta(hours=rng.randint(9, 17)))
            held.setdefault(holder["id"], []).append(row)
        return row

    for e in active_emp:
        if ctx.chance(0.93):
            add_asset("laptop", e, "assigned")
        if ctx.chance(0.4):
            add_asset("phone", e, "assigned")
        for _ in range(rng.choice([0, 0, 1, 1, 2])):
            add_asset("monitor", e, "assigned")
        if ctx.chance(0.08):
            add_asset("tablet", e, "assigned")
    for kind, lo, hi in (("laptop", 4, 8), ("phone", 2, 5), ("monitor", 3, 6), ("tablet", 1, 3)):
        for _ in range(ctx.n(rng.randint(lo, hi), rng.randint(lo * 8, hi * 8))):
            add_asset(kind, None, ctx.weighted({"in_stock": 0.75, "in_repair": 0.15, "retired": 0.1}))

    # -- software and licences ---------------------------------------------------------------------
    sw_rows = SOFTWARE + ([("Adobe Acrobat Standard", "Adobe", 1499, 0, ["LEG", "FIN"], 0.2),
                           ("Salesforce Service Cloud", "Salesforce", 15000, 1, ["CS"], 0.3)]
                          if ctx.distractors else [])
    code_of = {d[0]: d[0] for d in DEPARTMENTS}
    dept_code = {i: d[0] for i, d in enumerate(DEPARTMENTS, 1)}
    lic_by_sw: dict[int, list[int]] = {}
    for i, (name, vendor, cost, appr, depts, share) in enumerate(sw_rows, 1):
        holders = [e for e in active_emp if (depts is None or code_of[dept_code[e["department_id"]]] in depts)
                   and ctx.chance(share)]
        lic_by_sw[i] = [e["id"] for e in holders]
        for e in holders:
            T.add("licence_assignments", {
                "software_id": i, "employee_id": e["id"],
                "assigned_by": None if ctx.chance(0.3) else ctx.pick(
                    [a for a in agents if T["support_groups"][a["group_id"] - 1]["handles_access"]])["id"],
                "assigned_at": _iso(max(datetime.fromisoformat(e["hired_on"] + "T09:00:00"), now - timedelta(days=700))
                                    + timedelta(hours=rng.randint(1, 48)))})
        spare = 0 if (i % 4 == 3) else rng.randint(1, 5) + (len(holders) // 10)
        T.add("software", {"name": name, "vendor": vendor, "seat_limit": max(1, len(holders) + spare),
                           "cost_per_seat_cents": cost, "requires_approval": appr})
    for row in T["licence_assignments"]:
        if row["assigned_at"] >= _iso(now):
            row["assigned_at"] = _iso(now - timedelta(days=1))

    # -- access requests ---------------------------------------------------------------------------
    access_agents = [a for a in agents if T["support_groups"][a["group_id"] - 1]["handles_access"] and a["is_active"]]
    open_req: set[tuple[int, int]] = set()
    approval_sw = [s for s in T["software"] if s["requires_approval"]]
    n_req = ctx.n(20, 220)
    tries = 0
    while len(T["access_requests"]) < n_req and tries < n_req * 20:
        tries += 1
        e = ctx.pick(active_emp)
        s = ctx.pick(approval_sw)
        if e["manager_id"] is None or (e["id"], s["id"]) in open_req:
            continue
        has = e["id"] in lic_by_sw[s["id"]]
        status = "fulfilled" if has else ctx.weighted({"pending": 0.45, "approved": 0.15, "rejected": 0.25,
                                                         "cancelled": 0.15})
        if status == "fulfilled" and ctx.chance(0.5):
            continue
        created = ctx.moment_ago(0.2, 40) if status != "fulfilled" else ctx.moment_ago(10, 200)
        decided = created + timedelta(hours=rng.randint(1, 60)) if status in ("approved", "rejected", "fulfilled") \
            else None
        if decided and decided >= now:
            decided = now - timedelta(minutes=rng.randint(5, 60))
            created = min(created, decided - timedelta(hours=1))
        fulfilled = decided + timedelta(hours=rng.randint(1, 20)) if status == "fulfilled" else None
        if fulfilled and fulfilled >= now:
            fulfilled = now - timedelta(minutes=1)
        if status in ("pending", "approved"):
            open_req.add((e["id"], s["id"]))
        T.add("access_requests", {
            "number": ctx.tools._access_request_number(len(T["access_requests"]) + 1),
            "requester_id": e["id"], "software_id": s["id"],
            "justification": ctx.pick(["Needed for the Q2 reporting work", "Joining the project team next week",
                                       "Taking over accounts from a colleague", "Required for my new role",
                                       "Client asked us to use it for the engagement"]),
            "status": status, "approver_id": e["manager_id"], "decided_at": _iso(decided) if decided else None,
            "decision_note": (ctx.pick(["Approved", "Fine for this quarter", "Not needed for your role",
                                        "Use the shared account instead"]) if decided else None),
            "fulfilled_by": ctx.pick(access_agents)["id"] if fulfilled else None,
            "fulfilled_at": _iso(fulfilled) if fulfilled else None, "created_at": _iso(created)})
    for r in T["access_requests"]:  # decision notes fit the decision
        if r["status"] == "rejected":
            r["decision_note"] = ctx.pick(["Not needed for your role", "Use the shared account instead"])
        elif r["decided_at"]:
            r["decision_note"] = ctx.pick(["Approved", "Fine for this quarter"])

    # -- tickets -----------------------------------------------------------------------------------
    open_count: dict[int, int] = {a["id"]: 0 for a in agents}
    subjects_seen: dict[str, int] = {}
    n_tickets = ctx.n(72, 1000)
    cat_weights = [3, 2, 2, 2, 3, 3, 2, 1, 1, 2]

    def pick_assignee(group: int) -> Row | None:
        cands = [a for a in by_group[group] if a["is_active"] and open_count[a["id"]] < a["max_open_tickets"] - 1]
        return ctx.pick(cands) if cands else None

    def comment(ticket: Row, at: datetime, *, agent: Row | None = None, employee: int | None = None,
                visibility: str = "public", body: str) -> None:
        T.add("ticket_comments", {"ticket_id": ticket["id"], "agent_id": agent["id"] if agent else None,
                                  "employee_id": employee, "visibility": visibility, "body": body,
                                  "created_at": _iso(at)})

    forced = []  # planted: one brand-new ticket per group, so every group has work to hand out
    for code, *_ in GROUPS:
        forced.append(next(i for i, c in enumerate(CATEGORIES) if c[1] == code))
    for k in range(n_tickets):
        cat_i = forced[k] if k < len(forced) else rng.choices(range(len(CATEGORIES)), weights=cat_weights)[0]
        cname, gcode, pcode, subs = CATEGORIES[cat_i]
        requester = ctx.pick(active_emp)
        p = pid[pcode]
        if ctx.chance(0.25):
            p = max(1, min(4, p + ctx.pick([-1, 1])))
        age = rng.uniform(0.02, 0.6) if k < len(forced) else rng.uniform(0.03, 45.0)
        created = (now - timedelta(days=age)).replace(microsecond=0)
        group = gid[gcode]
        escalated_from = None
        if k >= len(forced) and ctx.chance(0.1):
            escalated_from = group
            group = ctx.pick([g for g in gid.values() if g != group])
        subject = ctx.pick(subs)
        subjects_seen[subject] = subjects_seen.get(subject, 0) + 1
        _, _, resp_min, res_h = prio[p]
        if k < len(forced):
            status = "new"
        elif age < 1:
            status = ctx.weighted({"new": 0.35, "assigned": 0.3, "in_progress": 0.35})
        elif age < 7:
            status = ctx.weighted({"assigned": 0.15, "in_progress": 0.3, "waiting_on_user": 0.2, "resolved": 0.35})
        else:
            status = ctx.weighted({"in_progress": 0.1, "waiting_on_user": 0.08, "resolved": 0.22, "closed": 0.6})
        assignee = None
        if status != "new":
            if status in ("assigned", "in_progress", "waiting_on_user"):
                assignee = pick_assignee(group)
                if assignee is None:
                    status = "new"
                else:
                    open_count[assignee["id"]] += 1
            else:
                assignee = ctx.pick(by_group[group])
        asset = None
        if gcode == "EUC" and held.get(requester["id"]) and cname != "Printing":
            kinds = {"Mobile phone": "phone"}.get(cname, "laptop")
            mine = [a for a in held[requester["id"]] if a["asset_type"] == kinds]
            asset = mine[0]["id"] if mine else None
        t = T.add("tickets", {
            "number": ctx.tools._ticket_number(len(T["tickets"]) + 1), "requester_id": requester["id"],
            "category_id": cat_i + 1, "priority_id": p, "group_id": group,
            "assignee_id": assignee["id"] if assignee else None,
            "asset_id": asset, "subject": subject,
            "description": f"{subject}. Reported by {requester['full_name']} ({requester['location']}).",
            "status": status, "created_at": _iso(created), "updated_at": _iso(created),
            "first_response_at": None, "response_due_at": _iso(created + timedelta(minutes=resp_min)),
            "resolution_due_at": _iso(created + timedelta(hours=res_h)), "resolved_at": None,
            "closed_at": None, "resolution_note": None, "reopen_count": 0})
        last = created
        if escalated_from is not None:
            at = created + timedelta(minutes=rng.randint(10, 180))
            if at < now - timedelta(minutes=30):
                T.add("escalations", {"ticket_id": t["id"],
                                      "from_group_id": escalated_from, "to_group_id": group,
                                      "escalated_by": ctx.pick(by_group[escalated_from])["id"],
                                      "reason": ctx.pick(["Needs specialist knowledge",
                                                          "Root cause is outside our scope",
                                                          "Requires server-side change"]),
                                      "created_at": _iso(at)})
                last = at
        if assignee and (status not in ("assigned",) or ctx.chance(0.4)):
            span = (now - last).total_seconds() / 60
            late = ctx.chance(0.2)
            mins = rng.uniform(resp_min * 1.1, resp_min * 3) if late else rng.uniform(1, resp_min * 0.9)
            mins = min(mins, span * 0.3)
            fr = last + timedelta(minutes=max(1.0, mins))
            fr = fr.replace(microsecond=0)
            t["first_response_at"] = _iso(fr)
            comment(t, fr, agent=assignee, body=ctx.pick(["Thanks, I'm looking into this now.",
                                                          "Hi, I've picked this up and will update you shortly.",
                                                          "Thanks for reporting. Could you tell me when this started?"]))
            last = fr
            if ctx.chance(0.4):
                at = last + timedelta(minutes=(now - last).total_seconds() / 60 * rng.uniform(0.05, 0.3))
                comment(t, at, employee=requester["id"], body=ctx.pick(["It started this morning.",
                                                                        "Still happening, thanks.",
                                                                        "Any update on this?"]))
                last = at
            if ctx.chance(0.35):
                at = last + timedelta(minutes=(now - last).total_seconds() / 60 * rng.uniform(0.05, 0.3))
                comment(t, at, agent=assignee, visibility="internal",
                        body=ctx.pick(["Checked logs, nothing obvious yet.", "Vendor case opened.",
                                       "Likely the known driver issue."]))
                last = at
        if status in ("resolved", "closed"):
            if status == "resolved":
                res_at = now - timedelta(days=rng.uniform(0.2, min(12.0, age * 0.9)))
                res_at = max(res_at, last + timedelta(minutes=5))
            else:
                res_at = last + (now - last) * rng.uniform(0.1, 0.5)
            res_at = res_at.replace(microsecond=0)
            t["resolved_at"] = _iso(res_at)
            t["resolution_note"] = ctx.pick(["Replaced the faulty part.", "Reset the profile and it works now.",
                                             "Applied the fix from the knowledge base.",
                                             "Reinstalled the application.", "Configuration corrected."])
            last = res_at
            if status == "closed":
                cl = (res_at + (now - res_at) * rng.uniform(0.2, 0.9)).replace(microsecond=0)
                t["closed_at"] = _iso(cl)
                last = cl
        t["updated_at"] = _iso(last)
    if ctx.distractors:  # look-alike subjects on other requesters' tickets
        base = list(T["tickets"])
        for src in ctx.sample(base, max(4, len(base) // 12)):
            twin = dict(src)
            twin.update({"id": len(T["tickets"]) + 1, "number": ctx.tools._ticket_number(len(T["tickets"]) + 1),
                         "requester_id": ctx.pick(active_emp)["id"], "subject": src["subject"] + " again",
                         "status": "new", "assignee_id": None, "asset_id": None, "first_response_at": None,
                         "resolved_at": None, "closed_at": None, "resolution_note": None,
                         "updated_at": src["created_at"]})
            T["tickets"].append(twin)

    # -- account events ----------------------------------------------------------------------------
    locked = ctx.sample([e for e in active_emp if e["status"] == "active"], ctx.n(4, 40))
    for e in active_emp:
        if ctx.chance(0.25):
            at = ctx.moment_ago(5, 80)
            T.add("account_events", {"employee_id": e["id"],
                                     "event_type": "password_reset",
                                     "performed_by": ctx.pick(access_agents)["id"], "ticket_id": None,
                                     "note": "Reset at the user's request", "created_at": _iso(at)})
            e["password_changed_at"] = max(e["password_changed_at"], _iso(at))
    for e in locked:
        at = ctx.moment_ago(0.05, 2)
        e["account_locked"] = 1
        T.add("account_events", {"employee_id": e["id"],
                                 "event_type": "account_locked", "performed_by": None, "ticket_id": None,
                                 "note": "Too many failed sign-in attempts", "created_at": _iso(at)})

    # -- maintenance windows and changes -----------------------------------------------------------
    n_win = ctx.n(8, 40)
    sat = ctx.today + timedelta(days=(5 - ctx.today.weekday()) % 7)
    first = sat - timedelta(days=7 * (n_win // 2))
    for k in range(n_win):
        day = first + timedelta(days=7 * k)
        start = datetime.combine(day, datetime.min.time()) + timedelta(hours=22)
        hours = ctx.pick([2, 4, 6])
        T.add("maintenance_windows", {"name": f"Weekend window {day.isoformat()}",
                                      "starts_at": _iso(start), "ends_at": _iso(start + timedelta(hours=hours)),
                                      "max_changes": rng.randint(2, 4)})
    win_used = {w["id"]: 0 for w in T["maintenance_windows"]}
    n_chg = ctx.n(16, 160)
    for k in range(n_chg):
        gcode = ctx.pick(list(CHANGE_TITLES))
        req = ctx.pick([a for a in by_group[gid[gcode]] if a["is_active"]])
        status = ctx.weighted({"submitted": 0.3, "approved": 0.15, "rejected": 0.1, "scheduled": 0.15,
                               "implemented": 0.22, "cancelled": 0.08})
        if k < 3:
            status = "submitted"
        duration = ctx.pick([30, 60, 90, 120, 180, 240])
        risk = ctx.pick(["low", "medium", "medium", "high"])
        if k < 3:  # planted: submitted changes that fit any upcoming window
            duration, risk = ctx.pick([30, 60, 90]), ctx.pick(["low", "medium"])
        window = None
        if status in ("scheduled", "implemented"):
            past = status == "implemented"
            fits = [w for w in T["maintenance_windows"]
                    if (w["ends_at"] < _iso(now) if past else w["starts_at"] > _iso(now))
                    and win_used[w["id"]] < w["max_changes"] - (0 if past else 1)
                    and (datetime.fromisoformat(w["ends_at"]) - datetime.fromisoformat(w["starts_at"]))
                    >= timedelta(minutes=duration + (60 if risk == "high" else 0))]
            if not fits:
                status = "approved"
            else:
                window = ctx.pick(fits)
                win_used[window["id"]] += 1
        created = ctx.moment_ago(1, 20) if status not in ("implemented",) else \
            datetime.fromisoformat(window["starts_at"]) - timedelta(days=rng.randint(5, 15))
        approver = ctx.pick([m for m in managers if m["id"] != req["id"]]) \
            if status in ("approved", "scheduled", "implemented") else None
        decided = created + timedelta(hours=rng.randint(2, 20)) if status not in ("submitted", "cancelled") else None
        if decided and decided >= now:
            decided = now - timedelta(minutes=10)
        T.add("change_requests", {
            "number": f"CHG-{3000 + k + 1}", "title": ctx.pick(CHANGE_TITLES[gcode]),
            "description": "Planned change raised by the " + GROUPS[gid[gcode] - 1][1] + " group.",
            "group_id": gid[gcode], "requested_by": req["id"], "risk": risk,
            "duration_minutes": duration, "status": status, "approved_by": approver["id"] if approver else None,
            "decided_at": _iso(decided) if decided else None, "window_id": window["id"] if window else None,
            "created_at": _iso(created)})

    # -- knowledge base ----------------------------------------------------------------------------
    n_kb = ctx.n(22, 240)
    cat_names = [c[0] for c in CATEGORIES]
    for k in range(n_kb):
        ci = k % len(cat_names) if k < 2 * len(cat_names) else rng.randrange(len(cat_names))
        cname = cat_names[ci]
        title = KB_TITLES[cname][(k // len(cat_names)) % 2]
        if k >= 2 * len(cat_names):
            title = f"{title} ({ctx.pick(['Windows', 'macOS', 'London office', 'Dublin office', 'v2'])})"
        group = gid[CATEGORIES[ci][1]]
        author = ctx.pick(by_group[group])
        status = "draft" if (k % 7 == 3) else ctx.weighted({"published": 0.85, "retired": 0.15})
        created = ctx.moment_ago(3, 400)
        pub = None
        if status != "draft":
            pubs = [a for a in by_group[group] if a["role"] in ("lead", "manager") and a["id"] != author["id"]]
            pub = ctx.pick(pubs or [a for a in managers if a["id"] != author["id"]])
        T.add("kb_articles", {
            "number": f"KB-{1000 + k + 1}", "title": title,
            "body": f"Step-by-step guide: {title.lower()}.", "category_id": ci + 1, "author_id": author["id"],
            "status": status, "published_by": pub["id"] if pub else None,
            "published_at": _iso(created + (now - created) * 0.1) if pub else None,
            "helpful_votes": rng.randint(0, 60) if pub else 0, "created_at": _iso(created)})
    return T
