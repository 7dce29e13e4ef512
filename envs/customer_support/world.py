"""World builder for customer_support: Cloudnest's SaaS support desk.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Every random choice comes
from ``ctx.rng`` / ``ctx.faker`` and every timestamp from ``ctx.clock``. The rows keep the invariants
``tools.py`` relies on:

- an organisation has at most its plan's max_contacts active contacts, all with e-mails on its domain;
- tickets come in only on channels the organisation's plan includes; SLA deadlines are creation time plus the
  plan's policy for the priority; ``first_response_at`` is the time of the first public agent comment;
  pending, on-hold, solved and closed tickets have an assignee of the ticket's team, and solved / closed ones
  had a public agent reply; merged tickets are closed and point at an older ticket of the same requester;
- surveys exist only on solved or closed tickets, by the requester, at most one per ticket;
- refunds and credits on an invoice never exceed its amount; issued ones were within the issuer's role limit or
  approved by an agent whose limit covers them; pending ones are above the requester's limit;
- every timestamp lies before the clock.

Scenarios the templates need are planted in every world: unassigned open tickets in every team, pairs of
unsolved tickets from the same requester (merge), solved tickets without a survey, pending refunds, paid
invoices with earlier refunds. With ``ctx.distractors`` the world adds look-alike organisations (same name,
another domain) and namesake contacts.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

PLANS = [("STARTER", "Starter", 4900, 3, 0, 0), ("TEAM", "Team", 19900, 10, 1, 0),
         ("BUSINESS", "Business", 59900, 25, 1, 1), ("ENTERPRISE", "Enterprise", 249900, 100, 1, 1)]
# priority -> per plan (first response minutes, resolution hours)
SLA = {"urgent": [(240, 48), (120, 24), (60, 12), (30, 8)], "high": [(480, 72), (240, 48), (120, 24), (60, 16)],
       "normal": [(1440, 120), (720, 72), (480, 48), (240, 24)], "low": [(2880, 240), (1440, 120), (960, 96),
                                                                        (480, 48)]}
TEAMS = [("T1", "Frontline"), ("TECH", "Technical Support"), ("BILL", "Billing")]
LIMITS = [("agent", 5000), ("lead", 25000), ("manager", 100000)]
TAGS = ["api", "billing", "bug", "data-export", "duplicate", "escalated", "feature-request", "integration",
        "login", "onboarding", "outage", "refund", "sso", "vip"]
# team, tag, subjects
TOPICS = [
    ("T1", "login", ["Cannot log in after password change", "Two-factor code not arriving", "Locked out of my account",
                     "Invite email never arrived"]),
    ("T1", "onboarding", ["How do I add my team?", "Where do I change our workspace name?",
                          "Need help importing our contacts"]),
    ("TECH", "bug", ["Dashboard charts not loading", "Export to CSV returns an empty file", "Search results missing "
                     "recent items", "Mobile app crashes on upload"]),
    ("TECH", "api", ["API returns 429 too often", "Webhook deliveries failing", "API token stopped working"]),
    ("TECH", "sso", ["SAML login fails with invalid audience", "SSO users not provisioned"]),
    ("BILL", "billing", ["Charged twice this month", "Need a copy of our invoice", "Update our billing address",
                         "Card declined on renewal"]),
    ("BILL", "refund", ["Refund for unused seats", "Downgraded but billed at the old price"]),
]
MACROS = [
    ("Ask for screenshot", "Thanks for reaching out! Could you send us a screenshot of what you see?", "pending",
     None, None, None, 1),
    ("Known outage", "We are aware of an ongoing incident and our engineers are on it. We will update you here.",
     "on_hold", "high", "outage", "TECH", 1),
    ("Password reset steps", "You can reset your password from the login page with 'Forgot password'. Let us know "
     "if that does not work.", "solved", None, "login", "T1", 1),
    ("Escalate to engineering", "I've passed this to our engineering team and will update you as soon as I hear "
     "back.", "on_hold", None, "escalated", "TECH", 1),
    ("Refund processed", "Your refund has been processed and should appear within 5-10 business days.", "solved",
     None, "refund", "BILL", 1),
    ("Billing details request", "To help with this, could you confirm the invoice number and the last four digits "
     "of the card on file?", "pending", None, "billing", "BILL", 1),
    ("Feature request logged", "Thanks for the suggestion! I've logged it with our product team.", "solved", "low",
     "feature-request", None, 1),
    ("Old outage notice", "We are experiencing issues. Please stand by.", "on_hold", None, "outage", None, 0),
]
KB = [("Getting started", ["Inviting your team", "Setting up your workspace", "Importing contacts from CSV"]),
      ("Account and login", ["Resetting your password", "Setting up two-factor authentication", "Configuring SAML SSO"]),
      ("Billing", ["Understanding your invoice", "Changing your plan", "Updating your payment method"]),
      ("API and integrations", ["API rate limits", "Managing webhooks", "Creating API tokens"]),
      ("Troubleshooting", ["Charts not loading", "Fixing empty CSV exports", "Mobile app upload problems"])]


def _slug(s: str) -> str:
    return "".join(ch for ch in s.lower() if ch.isalnum())


def _sla_due(created: datetime, pol: Row) -> Row:
    """A ticket's SLA deadlines: its creation time plus its plan's policy for its priority."""
    return {"first_response_due_at": _iso(created + timedelta(minutes=pol["first_response_minutes"])),
            "resolution_due_at": _iso(created + timedelta(hours=pol["resolution_hours"]))}


def _room(T: Tables, inv: Row) -> int:
    return inv["amount_cents"] - sum(r["amount_cents"] for r in T["refunds"]
                                     if r["invoice_id"] == inv["id"] and r["status"] != "rejected")


def _plant_decidable_refund(ctx: WorldContext, T: Tables, tid: dict[str, int],
                            limit_of: dict[str, int]) -> None:
    """Make sure some pending refund can be named unambiguously (an organisation without a namesake, the only
    pending one of its requester there) and decided by an active Billing agent other than the requester. The
    random pending refunds may all miss (namesake organisations, two by one agent on one organisation); then
    one more is planted, deterministically, on a paid invoice with room of a uniquely named organisation."""
    org_count = Counter(o["name"] for o in T["organizations"])
    org_of_inv = {i["id"]: i["org_id"] for i in T["invoices"]}
    org_by_id = {o["id"]: o for o in T["organizations"]}
    billers = [a for a in T["agents"] if a["team_id"] == tid["BILL"] and a["is_active"]]
    pending = [r for r in T["refunds"] if r["status"] == "pending_approval"]
    pairs = Counter((r["requested_by"], org_of_inv[r["invoice_id"]]) for r in pending)
    for r in pending:
        org = org_by_id[org_of_inv[r["invoice_id"]]]
        if org_count[org["name"]] == 1 and pairs[(r["requested_by"], org["id"])] == 1 and any(
                a["id"] != r["requested_by"] and limit_of[a["role"]] >= r["amount_cents"] for a in billers):
            return
    requesters = [a for a in billers if a["role"] == "agent"]
    for inv in T["invoices"]:
        org = org_by_id[inv["org_id"]]
        room = _room(T, inv)
        if inv["status"] != "paid" or org_count[org["name"]] != 1 or room < 6000:
            continue
        req = next((a for a in requesters if (a["id"], org["id"]) not in pairs), None)
        if req is None:
            continue
        amount = min(room, 5000 + 100 * (10 + inv["id"] % 150)) // 100 * 100  # above an agent's limit
        created = (ctx.clock - timedelta(hours=2 + inv["id"] % 20)).replace(microsecond=0)
        T.add("refunds", {
            "number": ctx.tools._refund_number(len(T["refunds"]) + 1), "invoice_id": inv["id"],
            "ticket_id": None, "kind": "refund", "amount_cents": amount, "reason": "Unused seats",
            "status": "pending_approval", "requested_by": req["id"], "approved_by": None,
            "created_at": _iso(created), "decided_at": None})
        return


def _plant_creditable_ticket(ctx: WorldContext, T: Tables, tid: dict[str, int],
                             sla: dict[tuple[int, str], Row]) -> None:
    """Make sure an open, unassigned Billing ticket exists whose requester has no namesake and no other open
    ticket on the subject, and whose organisation's latest invoice has at least $40 left to credit. The random
    tickets may all miss (both planted Billing tickets by one requester on a Starter plan with earlier refunds);
    then one more is planted, deterministically."""
    name_count = Counter(c["full_name"] for c in T["contacts"])
    contacts = {c["id"]: c for c in T["contacts"]}
    latest = {}
    for inv in T["invoices"]:
        if inv["org_id"] not in latest or inv["period"] > latest[inv["org_id"]]["period"]:
            latest[inv["org_id"]] = inv
    open_subj = Counter((t["requester_id"], t["subject"]) for t in T["tickets"] if t["status"] == "open")
    if any(t["team_id"] == tid["BILL"] and t["status"] == "open" and t["assignee_id"] is None
           and name_count[contacts[t["requester_id"]]["full_name"]] == 1
           and open_subj[(t["requester_id"], t["subject"])] == 1
           and t["org_id"] in latest and _room(T, latest[t["org_id"]]) >= 4000 for t in T["tickets"]):
        return
    org_count = Counter(o["name"] for o in T["organizations"])
    subjects = [s for team, _, subs in TOPICS if team == "BILL" for s in subs]
    for org in T["organizations"]:
        if org["status"] != "active" or org_count[org["name"]] != 1 or org["id"] not in latest \
                or _room(T, latest[org["id"]]) < 4000:
            continue
        req = next((c for c in T["contacts"] if c["org_id"] == org["id"] and c["is_active"]
                    and name_count[c["full_name"]] == 1), None)
        if req is None:
            continue
        subject = next((s for s in subjects if (req["id"], s) not in open_subj), None)
        if subject is None:
            continue
        created = (ctx.clock - timedelta(hours=3 + org["id"] % 12)).replace(microsecond=0)
        pol = sla[(org["plan_id"], "normal")]
        t = T.add("tickets", {
            "number": 4101 + len(T["tickets"]), "org_id": org["id"], "requester_id": req["id"], "channel": "email",
            "subject": subject, "description": f"{subject} - reported by {req['full_name']} via email.",
            "status": "open", "priority": "normal", "team_id": tid["BILL"], "assignee_id": None,
            "created_at": _iso(created), "updated_at": _iso(created), "first_response_at": None,
            **_sla_due(created, pol),
            "solved_at": None, "closed_at": None, "merged_into_id": None})
        T.add("ticket_comments", {"ticket_id": t["id"], "agent_id": None, "contact_id": req["id"], "public": 1,
                                  "body": t["description"], "created_at": t["created_at"]})
        return


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng, now = ctx.rng, ctx.clock
    T = Tables(["plans", "sla_policies", "organizations", "contacts", "teams", "role_limits", "agents", "tickets",
                "ticket_comments", "tags", "ticket_tags", "macros", "satisfaction_surveys", "invoices", "refunds",
                "kb_articles", "kb_feedback"])
    for i, (code, name, price, mx, chat, phone) in enumerate(PLANS, 1):
        T.add("plans", {"code": code, "name": name, "monthly_price_cents": price, "max_contacts": mx,
                        "chat_support": chat, "phone_support": phone})
        for prio in ("low", "normal", "high", "urgent"):
            fr, res = SLA[prio][i - 1]
            T.add("sla_policies", {"plan_id": i, "priority": prio, "first_response_minutes": fr,
                                   "resolution_hours": res})
    sla = {(p["plan_id"], p["priority"]): p for p in T["sla_policies"]}
    for code, name in TEAMS:
        T.add("teams", {"code": code, "name": name})
    tid = {c: i for i, (c, _) in enumerate(TEAMS, 1)}
    for role, lim in LIMITS:
        T.add("role_limits", {"role": role, "refund_limit_cents": lim})
    names: set[str] = set()
    agent_emails: set[str] = set()
    by_team: dict[int, list[Row]] = {}
    for code, _ in TEAMS:
        size = ctx.n(rng.randint(4, 5), rng.randint(15, 20))
        for k in range(size):
            role = "lead" if k == 0 else ("manager" if k == 1 and code in ("BILL", "T1") else "agent")
            n = ctx.unique(lambda: f"{ctx.faker.first_name()} {ctx.faker.last_name()}", names)
            e = ctx.unique(lambda: f"{n.split()[0].lower()}.{_slug(n.split()[-1])}@cloudnest.io"
                           if len(agent_emails) % 7 else f"{_slug(n)}@cloudnest.io", agent_emails)
            a = T.add("agents", {"team_id": tid[code], "full_name": n, "email": e, "role": role,
                                 "is_active": 0 if k >= 3 and ctx.chance(0.08) else 1})
            by_team.setdefault(tid[code], []).append(a)
    limit_of = dict(LIMITS)
    for t in TAGS:
        T.add("tags", {"name": t})
    tag_id = {t: i for i, t in enumerate(TAGS, 1)}
    for name, reply, st, pr, tag, team, active in MACROS:
        T.add("macros", {"name": name, "reply": reply, "set_status": st, "set_priority": pr,
                         "add_tag_id": tag_id[tag] if tag else None, "team_id": tid[team] if team else None,
                         "is_active": active})

    # -- organisations and contacts ----------------------------------------------------------------
    domains: set[str] = set()
    org_names: list[str] = []
    n_org = ctx.n(24, 260)
    seen_org: set[str] = set()
    for _ in range(n_org):
        org_names.append(ctx.unique(lambda: ctx.faker.company().replace(",", ""), seen_org))
    if ctx.distractors:
        org_names += [n for n in ctx.sample(org_names, max(3, n_org // 8))]
    emails: set[str] = set()
    contacts_of: dict[int, list[Row]] = {}
    for i, name in enumerate(org_names, 1):
        base = _slug(name.split()[0]) or "org"
        dom = ctx.unique(lambda: f"{base}{ctx.pick(['', 'hq', 'app', 'group', 'labs'])}.{ctx.pick(['com', 'io', 'co'])}",
                         domains)
        plan = ctx.weighted({1: 0.3, 2: 0.35, 3: 0.25, 4: 0.1})
        org = T.add("organizations", {"name": name, "domain": dom, "plan_id": plan,
                                      "status": "suspended" if i > 6 and ctx.chance(0.05) else "active",
                                      "created_at": _iso(ctx.moment_ago(120, 1500))})
        mx = PLANS[plan - 1][3]
        n_c = min(mx, rng.randint(1, {1: 3, 2: 8, 3: 14, 4: 22}[plan]))
        if plan == 1 and i <= 3:
            n_c = mx  # planted: starter organisations at their contact limit
        for k in range(n_c + (1 if ctx.chance(0.2) else 0)):
            active = 1 if k < n_c else 0
            n = ctx.unique(lambda: f"{ctx.faker.first_name()} {ctx.faker.last_name()}", names) \
                if not (ctx.distractors and ctx.chance(0.06) and T["contacts"]) else ctx.pick(T["contacts"])["full_name"]
            first, last = n.split()[0].lower(), _slug(n.split()[-1])
            e = ctx.unique(lambda: f"{first}.{last}{'' if ctx.chance(0.7) else rng.randint(2, 9)}@{dom}", emails)
            joined = datetime.fromisoformat(org["created_at"]) + timedelta(days=rng.randint(0, 100))
            c = T.add("contacts", {"org_id": i, "full_name": n, "email": e, "role": "admin" if k == 0 else "member",
                                   "is_active": active, "created_at": _iso(joined)})
            if c["created_at"] >= _iso(now):
                c["created_at"] = org["created_at"]
            if active:
                contacts_of.setdefault(i, []).append(c)

    # -- tickets -----------------------------------------------------------------------------------
    n_t = ctx.n(90, 1100)
    open_orgs = [o for o in T["organizations"] if o["status"] == "active"]
    by_requester: dict[int, list[Row]] = {}

    def channels(plan: int) -> list[str]:
        _, _, _, _, chat, phone = PLANS[plan - 1]
        return ["email"] + (["chat"] if chat else []) + (["phone"] if phone else [])

    def comment(t: Row, at: datetime, body: str, agent: Row | None = None, contact: int | None = None,
                public: int = 1) -> None:
        T.add("ticket_comments", {"ticket_id": t["id"], "agent_id": agent["id"] if agent else None,
                                  "contact_id": contact, "public": public, "body": body, "created_at": _iso(at)})

    planted_new = [tid[c] for c, _ in TEAMS] * 2
    for k in range(n_t):
        org = ctx.pick(open_orgs)
        req = ctx.pick(contacts_of[org["id"]])
        team_code, tag, subjects = ctx.pick(TOPICS)
        if k < len(planted_new):
            team_code, tag, subjects = ctx.pick([x for x in TOPICS if tid[x[0]] == planted_new[k]])
        prio = ctx.weighted({"low": 0.2, "normal": 0.5, "high": 0.22, "urgent": 0.08})
        age = rng.uniform(0.05, 1.5) if k < len(planted_new) else rng.uniform(0.05, 60)
        created = (now - timedelta(days=age)).replace(microsecond=0)
        pol = sla[(org["plan_id"], prio)]
        if k < len(planted_new):
            status = "open"
        elif age < 2:
            status = ctx.weighted({"open": 0.5, "pending": 0.25, "on_hold": 0.1, "solved": 0.15})
        elif age < 10:
            status = ctx.weighted({"open": 0.2, "pending": 0.2, "on_hold": 0.1, "solved": 0.5})
        else:
            status = ctx.weighted({"open": 0.04, "pending": 0.04, "on_hold": 0.04, "solved": 0.13, "closed": 0.75})
        team = tid[team_code]
        agents = [a for a in by_team[team] if a["is_active"]]
        assignee = None
        if status != "open" or (k >= len(planted_new) and ctx.chance(0.6)):
            assignee = ctx.pick(agents if status in ("open", "pending", "on_hold") else by_team[team])
        t = T.add("tickets", {
            "number": 4100 + k + 1, "org_id": org["id"], "requester_id": req["id"],
            "channel": ctx.pick(channels(org["plan_id"])), "subject": ctx.pick(subjects),
            "description": "", "status": status, "priority": prio, "team_id": team,
            "assignee_id": assignee["id"] if assignee else None, "created_at": _iso(created),
            "updated_at": _iso(created), "first_response_at": None,
            **_sla_due(created, pol),
            "solved_at": None, "closed_at": None, "merged_into_id": None})
        t["description"] = f"{t['subject']} - reported by {req['full_name']} via {t['channel']}."
        by_requester.setdefault(req["id"], []).append(t)
        comment(t, created, t["description"], contact=req["id"])
        last = created
        if ctx.chance(0.6):
            T.add("ticket_tags", {"ticket_id": t["id"], "tag_id": tag_id[tag]})
        if assignee and (status != "open" or ctx.chance(0.5)):
            span = (now - created).total_seconds() / 60
            late = ctx.chance(0.2)
            fr_min = pol["first_response_minutes"]
            mins = rng.uniform(fr_min * 1.1, fr_min * 2.5) if late else rng.uniform(2, fr_min * 0.9)
            mins = min(mins, span * 0.4)
            fr = (created + timedelta(minutes=max(1.0, mins))).replace(microsecond=0)
            t["first_response_at"] = _iso(fr)
            comment(t, fr, ctx.pick(["Thanks for reaching out, I'm looking into this.",
                                     "Hi! Could you tell me a bit more about when this started?",
                                     "Thanks, I can see the issue on our side and am checking."]), agent=assignee)
            last = fr
            if ctx.chance(0.3):
                at = last + (now - last) * rng.uniform(0.05, 0.3)
                comment(t, at, "Checked the logs; see attached findings.", agent=assignee, public=0)
                last = at
        elif status in ("pending", "on_hold", "solved", "closed"):
            fr = (created + timedelta(minutes=rng.uniform(2, 60))).replace(microsecond=0)
            if fr >= now:
                fr = now - timedelta(minutes=1)
            t["first_response_at"] = _iso(fr)
            comment(t, fr, "Thanks for getting in touch, we're on it.", agent=assignee)
            last = fr
        if status in ("solved", "closed"):
            sol = (last + (now - last) * rng.uniform(0.1, 0.6)).replace(microsecond=0)
            comment(t, sol, "This should now be fixed. Let us know if anything else comes up.", agent=assignee)
            t["solved_at"] = _iso(sol)
            last = sol
            if status == "closed":
                cl = (sol + (now - sol) * rng.uniform(0.3, 0.9)).replace(microsecond=0)
                t["closed_at"] = _iso(cl)
                last = cl
            if ctx.chance(0.35):
                at = datetime.fromisoformat(t["solved_at"]) + timedelta(hours=rng.randint(1, 20))
                if at < now:
                    good = ctx.chance(0.75)
                    T.add("satisfaction_surveys", {
                        "ticket_id": t["id"], "contact_id": req["id"],
                        "rating": "good" if good else "bad",
                        "comment": ctx.pick(["Quick and helpful", "Solved my problem", ""]) if good else
                        ctx.pick(["Took too long", "Problem came back", ""]), "created_at": _iso(at)})
        t["updated_at"] = _iso(last)

    # planted duplicates: a second unsolved ticket by the same requester on the same subject
    dup_src: set[int] = set()
    for k in range(ctx.n(6, 40)):
        cands = [t for t in T["tickets"] if t["status"] in ("open", "pending") and t["id"] not in dup_src
                 and not t["subject"].startswith("Re: ")]
        if not cands:
            break
        src = ctx.pick(cands)
        dup_src.add(src["id"])
        created = (now - timedelta(hours=rng.uniform(0.5, 20))).replace(microsecond=0)
        if created <= datetime.fromisoformat(src["created_at"]):
            created = datetime.fromisoformat(src["created_at"]) + timedelta(minutes=30)
        if created >= now:
            continue
        org = T["organizations"][src["org_id"] - 1]
        pol = sla[(org["plan_id"], src["priority"])]
        dup = dict(src)
        dup.update({"id": len(T["tickets"]) + 1, "number": 4101 + len(T["tickets"]), "status": "open",
                    "assignee_id": None, "created_at": _iso(created), "updated_at": _iso(created),
                    "channel": ctx.pick(channels(org["plan_id"])), "first_response_at": None,
                    **_sla_due(created, pol),
                    "subject": "Re: " + src["subject"], "description": "Following up on my earlier request."})
        T["tickets"].append(dup)
        comment(dup, created, dup["description"], contact=src["requester_id"])
    # merged tickets from the past: closed duplicates pointing at an older ticket of the same requester
    for t in T["tickets"]:
        if t["status"] == "closed" and ctx.chance(0.08):
            older = [o for o in by_requester.get(t["requester_id"], []) if o["id"] < t["id"] and o["merged_into_id"]
                     is None]
            if older:
                t["merged_into_id"] = older[0]["id"]
                T["satisfaction_surveys"] = [s for s in T["satisfaction_surveys"] if s["ticket_id"] != t["id"]]
    for i, s in enumerate(T["satisfaction_surveys"], 1):
        s["id"] = i

    # -- invoices and refunds ----------------------------------------------------------------------
    periods = ["2026-03", "2026-04", "2026-05"]
    billers = [a for a in by_team[tid["BILL"]] if a["is_active"]]
    for org in T["organizations"]:
        price = PLANS[org["plan_id"] - 1][2]
        for j, per in enumerate(periods):
            T.add("invoices", {"number": f"INV-{per.replace('-', '')}-{org['id']:04d}", "org_id": org["id"],
                               "period": per, "amount_cents": price,
                               "status": "open" if (j == 2 and ctx.chance(0.3)) or org["status"] == "suspended"
                               and j == 2 else "paid", "issued_on": f"{per}-01"})
    paid = [i for i in T["invoices"] if i["status"] == "paid"]
    n_ref = ctx.n(14, 140)
    taken: dict[int, int] = {}
    for k in range(n_ref):
        inv = ctx.pick(paid if k >= 3 else [i for i in paid if i["amount_cents"] - taken.get(i["id"], 0) >= 25000])
        room = inv["amount_cents"] - taken.get(inv["id"], 0)
        if room < 1000:
            continue
        status = "pending_approval" if k < 3 else ctx.weighted({"issued": 0.7, "pending_approval": 0.1,
                                                                 "rejected": 0.2})
        req = ctx.pick(billers if k >= 3 else [a for a in billers if a["role"] == "agent"])
        lim = limit_of[req["role"]]
        if status == "pending_approval":
            if room <= lim:
                status = "issued"
            else:
                top = min(room, 100000) if k >= 3 else 25000  # planted ones can be approved by a lead
                amount = rng.randrange(lim + 100, top + 1, 100) if lim + 100 <= top else None
                if amount is None:
                    continue
        if status != "pending_approval":
            amount = rng.randrange(500, min(room, 60000) + 1, 100) if min(room, 60000) >= 500 else None
            if amount is None:
                continue
        approver = None
        if status == "issued" and amount > lim:
            cands = [a for a in billers if limit_of[a["role"]] >= amount and a["id"] != req["id"]]
            if not cands:
                continue
            approver = ctx.pick(cands)
        if status == "rejected":
            approver = None
        created = ctx.moment_ago(0.5, 60)
        if status != "rejected":
            taken[inv["id"]] = taken.get(inv["id"], 0) + amount
        org_tickets = [t for t in T["tickets"] if t["org_id"] == inv["org_id"] and t["team_id"] == tid["BILL"]]
        T.add("refunds", {
            "number": ctx.tools._refund_number(len(T["refunds"]) + 1), "invoice_id": inv["id"],
            "ticket_id": org_tickets[0]["id"] if org_tickets and ctx.chance(0.6) else None,
            "kind": ctx.pick(["refund", "credit"]), "amount_cents": amount,
            "reason": ctx.pick(["Unused seats", "Double charge", "Service outage credit", "Goodwill gesture"]),
            "status": status, "requested_by": req["id"], "approved_by": approver["id"] if approver else None,
            "created_at": _iso(created),
            "decided_at": None if status == "pending_approval" else _iso(created + timedelta(hours=rng.randint(1, 8)))})
    for r in T["refunds"]:
        if r["decided_at"] and r["decided_at"] >= _iso(now):
            r["decided_at"] = _iso(now - timedelta(minutes=3))
    _plant_decidable_refund(ctx, T, tid, limit_of)
    _plant_creditable_ticket(ctx, T, tid, sla)

    # -- knowledge base ----------------------------------------------------------------------------
    all_agents = T["agents"]
    n_kb = ctx.n(18, 180)
    flat = [(sec, title) for sec, titles in KB for title in titles]
    for k in range(n_kb):
        sec, title = flat[k % len(flat)]
        if k >= len(flat):
            title = f"{title} ({ctx.pick(['web app', 'mobile', 'admin', 'legacy', 'v2'])} {k // len(flat)})"
        created = ctx.moment_ago(10, 500)
        T.add("kb_articles", {"number": f"KB-{200 + k + 1}", "title": title, "section": sec,
                              "body": f"How to: {title.lower()}.",
                              "status": "draft" if k % 9 == 4 else ("archived" if k % 11 == 7 else "published"),
                              "author_id": ctx.pick(all_agents)["id"], "created_at": _iso(created),
                              "updated_at": _iso(created + (now - created) * rng.uniform(0, 0.5))})
    live_contacts = [c for lst in contacts_of.values() for c in lst]
    pairs: set[tuple[int, int]] = set()
    published = [a for a in T["kb_articles"] if a["status"] == "published"]
    for _ in range(ctx.n(40, 400)):
        a, c = ctx.pick(published), ctx.pick(live_contacts)
        if (a["id"], c["id"]) in pairs:
            continue
        pairs.add((a["id"], c["id"]))
        helpful = 1 if ctx.chance(0.7) else 0
        T.add("kb_feedback", {"article_id": a["id"], "contact_id": c["id"],
                              "helpful": helpful, "comment": "" if ctx.chance(0.6) else
                              (ctx.pick(["Clear, thanks", "Exactly what I needed"]) if helpful else
                               ctx.pick(["Steps are out of date", "Did not fix my issue"])),
                              "created_at": _iso(max(ctx.moment_ago(0.5, 100),
                                                     datetime.fromisoformat(a["updated_at"])))})
    return T
