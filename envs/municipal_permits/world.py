"""World builder for municipal_permits: a city permits office.

``build(ctx)`` returns rows per table (parents first, explicit integer keys); randomness only from ``ctx.rng`` /
``ctx.faker``, dates only from ``ctx.clock``. The rows keep the rules ``tools.py`` enforces:

- applications follow draft -> submitted -> under_review -> approved / rejected -> issued -> expired (or withdrawn);
  every submitted application holds all documents its permit type requires; reviewers are set from review on;
- permit types fit the parcel's zone and the applicant kind (parking: residents, on their home parcel; signage
  and food trucks: businesses); event dates respect the lead time and fee = base + per-day fee x days +
  75 dollars per re-inspection;
- public-notice types are approved only after their comment deadline; inspection types only after a passed
  inspection; inspections are done by inspectors of the parcel's district on weekdays, never above their daily
  capacity; a failed inspection is followed by a re-inspection at least two days later;
- payments never exceed the fee; issued and expired permits were paid in full before issue; refunds only on
  withdrawn (full) or rejected (at most half) applications; appeals only on rejected applications (an upheld
  appeal sent the application back to review);
- every timestamp lies before the clock.

Planted for the templates: drafts missing one document, submitted applications waiting for review (some needing
inspection), approved and paid applications waiting for issue, applications owing a re-inspection fee, inspections
today waiting for their result, inspectors with free capacity, and issued permits.

``distractors``: applicants sharing a name (a resident and a business, or two residents) and look-alike addresses.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

DISTRICTS = [("N", "North"), ("C", "Central"), ("S", "South"), ("E", "East"), ("W", "West"), ("H", "Harbor")]
ZONES = [(1, "R1", "Single-family residential"), (2, "R3", "Multi-family residential"), (3, "C1", "Neighborhood commercial"),
         (4, "C2", "General commercial"), (5, "M1", "Light industrial"), (6, "MU", "Mixed use"), (7, "P", "Parks and public land")]
# id, code, name, base, per day, validity, applicant kind, inspection, notice days, lead days, renewal fee, zones, documents
TYPES = [
    (1, "BLD", "Building permit", 45000, 0, 365, None, 1, 14, 0, None, ["R1", "R3", "C1", "C2", "M1", "MU"],
     [("SITE_PLAN", "Site plan"), ("DRAWINGS", "Construction drawings"), ("OWNER_CONSENT", "Property owner consent")]),
    (2, "EVT", "Special event permit", 15000, 5000, None, None, 0, 7, 21, None, ["C1", "C2", "MU", "P"],
     [("SITE_MAP", "Event site map"), ("INSURANCE", "Certificate of insurance")]),
    (3, "PRK", "Residential parking permit", 6000, 0, 365, "resident", 0, 0, 0, 6000, ["R1", "R3", "MU"],
     [("RESIDENCY", "Proof of residency"), ("VEHICLE_REG", "Vehicle registration")]),
    (4, "SGN", "Signage permit", 12000, 0, 730, "business", 1, 0, 0, 6000, ["C1", "C2", "M1", "MU"],
     [("SIGN_DRAWING", "Sign drawing"), ("OWNER_CONSENT", "Property owner consent")]),
    (5, "FTK", "Food truck permit", 35000, 0, 365, "business", 1, 0, 0, 20000, ["C2", "M1", "MU", "P"],
     [("HEALTH_CERT", "Health department certificate"), ("VEHICLE_REG", "Vehicle registration"), ("INSURANCE", "Certificate of insurance")]),
]
DESCRIPTIONS = {
    "BLD": ["Rear deck addition", "Kitchen remodel with wall removal", "Detached garage", "Second-storey addition",
            "Roof replacement", "Storefront renovation", "Accessory dwelling unit"],
    "EVT": ["Neighbourhood street fair", "Farmers market weekend", "Charity 5K run", "Outdoor concert", "Food festival"],
    "PRK": ["Residential parking for one vehicle", "Residential parking permit renewal"],
    "SGN": ["Illuminated wall sign", "Projecting blade sign", "Window lettering and awning sign", "Monument sign"],
    "FTK": ["Taco truck lunch service", "Coffee cart weekday mornings", "Wood-fired pizza truck", "Vegan bowls truck"],
}
STREETS = ["Maple Ave", "Oak St", "Harbor Rd", "Cedar Ln", "Mill St", "Union Sq", "Pine St", "River Rd", "Market St",
           "Elm St", "Summit Ave", "Lake Dr", "Station Rd", "Park Pl", "Bridge St", "Hill Rd"]
BIZ = ["Bakery", "Tacos", "Coffee Co", "Pizza", "Hardware", "Books", "Florist", "Brewing", "Kitchen", "Salon"]
FAIL_NOTES = ["Handrail height below code", "Fire extinguisher missing", "Sign anchoring not to spec",
              "Propane line not certified", "Setback from property line too small"]


def _at(d: date, h: int, m: int = 0) -> str:
    return datetime.combine(d, time(h, m)).isoformat()


def _weekday(d: date, forward: bool = True) -> date:
    while d.weekday() >= 5:
        d += timedelta(days=1 if forward else -1)
    return d


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng, fk, today = ctx.rng, ctx.faker, ctx.today
    reinspection_fee = ctx.tools.REINSPECTION_FEE
    T = Tables([
        "districts", "zones", "parcels", "applicants", "staff", "permit_types", "permit_type_zones", "required_documents",
        "applications", "application_documents", "payments", "inspections", "public_notices", "public_comments", "appeals"])
    nd = ctx.n(3, 6)
    for code, name in DISTRICTS[:nd]:
        T.add("districts", {"code": code, "name": name})
    zid = {}
    for i, code, name in ZONES:
        T["zones"].append({"id": i, "code": code, "name": name})
        zid[code] = i
    types = {}
    for t in TYPES:
        tid, code, name, base, per_day, validity, kind, insp, notice, lead, renew, zones, docs = t
        T["permit_types"].append({"id": tid, "code": code, "name": name, "base_fee_cents": base, "per_day_fee_cents": per_day,
                                  "validity_days": validity, "applicant_kind": kind, "requires_inspection": insp,
                                  "notice_days": notice, "min_lead_days": lead, "renewal_fee_cents": renew})
        types[code] = {"id": tid, "code": code, "base": base, "per_day": per_day, "validity": validity, "kind": kind,
                       "insp": insp, "notice": notice, "lead": lead, "zones": [zid[z] for z in zones], "docs": [d[0] for d in docs]}
        for z in zones:
            T.add("permit_type_zones", {"permit_type_id": tid, "zone_id": zid[z]})
        for dc, dn in docs:
            T.add("required_documents", {"permit_type_id": tid, "doc_code": dc, "name": dn})

    # ---- parcels -------------------------------------------------------------------------------------
    parcels: list[Row] = []
    addrs: set[str] = set()
    zone_weights = {1: 5, 2: 3, 3: 2, 4: 2, 5: 1, 6: 2, 7: 1}
    for i in range(1, ctx.n(70, 700) + 1):
        d = rng.randint(1, nd)
        addr = ctx.unique(lambda: f"{rng.randint(10, 1999)} {ctx.pick(STREETS)}", addrs)
        parcels.append({"id": i, "parcel_number": f"{DISTRICTS[d - 1][0]}-{rng.randint(100, 999)}-{i:04d}", "address": addr,
                        "district_id": d, "zone_id": ctx.weighted(zone_weights)})
    if ctx.distractors:  # look-alike addresses: same number, neighbouring street
        for src in ctx.sample(parcels[:], 6):
            num = src["address"].split(" ", 1)[0]
            for st in STREETS:
                a = f"{num} {st}"
                if a not in addrs:
                    addrs.add(a)
                    i = len(parcels) + 1
                    parcels.append({"id": i, "parcel_number": f"{DISTRICTS[src['district_id'] - 1][0]}-{rng.randint(100, 999)}-{i:04d}",
                                    "address": a, "district_id": src["district_id"], "zone_id": src["zone_id"]})
                    break
    T["parcels"] = parcels
    by_zone: dict[int, list[Row]] = {}
    for p in parcels:
        by_zone.setdefault(p["zone_id"], []).append(p)

    # ---- staff ---------------------------------------------------------------------------------------
    semails: set[str] = set()

    def add_staff(role: str, district: int | None = None, cap: int | None = None) -> Row:
        full = ctx.unique(lambda: f"{fk.first_name()} {fk.last_name()}", semails)
        return T.add("staff", {"full_name": full, "email": full.lower().replace(" ", ".").replace("'", "") + "@cityhall.gov",
                               "role": role, "district_id": district, "daily_capacity": cap, "is_active": 1})

    supervisor = add_staff("supervisor")
    for _ in range(ctx.n(2, 4)):
        add_staff("clerk")
    reviewers = [add_staff("reviewer") for _ in range(ctx.n(3, 7))]
    inspectors: dict[int, list[Row]] = {}
    for d in range(1, nd + 1):
        inspectors[d] = [add_staff("inspector", d, rng.randint(3, 5)) for _ in range(ctx.n(2, 4))]
    former = add_staff("reviewer")
    former["is_active"] = 0

    # ---- applicants ----------------------------------------------------------------------------------
    applicants = T["applicants"]
    aemails: set[str] = set()
    lic: set[str] = set()
    home_ok = [p for p in parcels if p["zone_id"] in types["PRK"]["zones"]]

    def add_applicant(kind: str, name: str | None = None) -> Row:
        if kind == "resident":
            name = name or f"{fk.first_name()} {fk.last_name()}"
            email = ctx.unique(lambda: f"{name.lower().replace(' ', '.').replace(chr(39), '')}{rng.randint(1, 99)}@"
                                       f"{ctx.pick(['gmail.com', 'outlook.com', 'yahoo.com'])}", aemails)
        else:
            name = name or f"{fk.last_name()} {ctx.pick(BIZ)}"
            email = ctx.unique(lambda: f"info{rng.randint(1, 999)}@{name.lower().replace(' ', '').replace(chr(39), '')}.com", aemails)
        return T.add("applicants", {
            "kind": kind, "name": name, "email": email, "phone": f"555-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}",
            "home_parcel_id": ctx.pick(home_ok)["id"] if kind == "resident" else None,
            "business_license_no": ctx.unique(lambda: f"BL-{rng.randint(10000, 99999)}", lic) if kind == "business" else None,
            "created_at": _at(ctx.days_ago(400, 2000), 10)})

    for _ in range(ctx.n(40, 400)):
        add_applicant("resident")
    for _ in range(ctx.n(18, 180)):
        add_applicant("business")
    if ctx.distractors:
        for src in ctx.sample(applicants[:], 6):
            add_applicant(src["kind"], src["name"])
    residents = [a for a in applicants if a["kind"] == "resident"]
    businesses = [a for a in applicants if a["kind"] == "business"]

    # ---- applications ----------------------------------------------------------------------------------
    apps = T["applications"]
    load: dict[tuple[int, str], int] = {}
    pay_id = comment_id = 0

    def inspector_for(parcel: Row, day: date) -> Row | None:
        for ins in ctx.sample(inspectors[parcel["district_id"]], len(inspectors[parcel["district_id"]])):
            if load.get((ins["id"], day.isoformat()), 0) < ins["daily_capacity"]:
                load[(ins["id"], day.isoformat())] = load.get((ins["id"], day.isoformat()), 0) + 1
                return ins
        return None

    def pay(app: Row, amount: int, day: date, kind: str = "fee") -> None:
        nonlocal pay_id
        pay_id += 1
        T["payments"].append({"id": pay_id, "application_id": app["id"], "kind": kind, "amount_cents": amount,
                              "method": "original_method" if kind == "refund" else ctx.pick(["card", "card", "check", "cash"]),
                              "reference": f"{'PMT' if kind == 'fee' else 'RFD'}-{pay_id:06d}",
                              "recorded_by": supervisor["id"] if kind == "refund" else None,
                              "paid_at": _at(day, rng.randint(9, 16), rng.randint(0, 59))})

    def inspect(app: Row, parcel: Row, day: date, kind: str, status: str, note: str | None = None) -> Row | None:
        day = _weekday(day)
        ins = inspector_for(parcel, day)
        if ins is None:
            return None
        return T.add("inspections", {"application_id": app["id"], "inspector_id": ins["id"], "kind": kind,
                                     "scheduled_date": day.isoformat(), "status": status, "result_note": note,
                                     "completed_at": _at(day, 15) if status in ("passed", "failed") else None})

    def make(ttype: str, status: str, applicant: Row | None = None, *, missing_doc: bool = False, owe_reinspection: bool = False,
             paid: bool | None = None, insp_plan: str | None = None, renew_due: int | None = None) -> Row | None:
        nonlocal comment_id
        t = types[ttype]
        if applicant is None:
            pool = residents if t["kind"] == "resident" else businesses if t["kind"] == "business" else applicants
            applicant = ctx.pick(pool)
        if ttype == "PRK":
            if applicant["kind"] != "resident":
                return None
            parcel = parcels[applicant["home_parcel_id"] - 1]
        else:
            cands = [p for z in t["zones"] for p in by_zone.get(z, [])]
            parcel = ctx.pick(cands)
        i = len(apps) + 1
        # timeline
        if status == "draft":
            created, sub = today - timedelta(days=rng.randint(1, 20)), None
        elif status in ("submitted", "withdrawn"):
            sub = today - timedelta(days=rng.randint(1, 12))
            created = sub - timedelta(days=rng.randint(0, 10))
        elif status == "under_review":
            sub = today - timedelta(days=rng.randint(10, 40))
            created = sub - timedelta(days=rng.randint(0, 10))
        elif status == "expired":
            sub = today - timedelta(days=rng.randint(420, 700)) if t["validity"] else today - timedelta(days=rng.randint(60, 300))
            created = sub - timedelta(days=rng.randint(0, 10))
        else:
            sub = today - timedelta(days=rng.randint(35, 90))
            created = sub - timedelta(days=rng.randint(0, 10))
        if renew_due:
            sub = today - timedelta(days=t["validity"] - renew_due + 6)
            created = sub - timedelta(days=rng.randint(0, 10))
        start = end = None
        if ttype == "EVT":
            base = (sub or created) + timedelta(days=t["lead"] + rng.randint(5, 60))
            if status in ("draft", "submitted", "under_review", "approved", "issued", "rejected", "withdrawn"):
                base = max(base, today + timedelta(days=rng.randint(10, 60)))
            if status == "expired":
                base = min(base, today - timedelta(days=rng.randint(5, 30)))
                sub = base - timedelta(days=t["lead"] + rng.randint(5, 30))
                created = sub - timedelta(days=rng.randint(0, 5))
            start = base
            end = start + timedelta(days=rng.choice([0, 1, 2]))
        days = (end - start).days + 1 if start else 0
        fee = t["base"] + t["per_day"] * days
        app = {"id": i, "app_number": f"A{(created.year % 100):02d}-{10000 + i}", "permit_type_id": t["id"],
               "applicant_id": applicant["id"], "parcel_id": parcel["id"], "description": ctx.pick(DESCRIPTIONS[ttype]),
               "start_date": start.isoformat() if start else None, "end_date": end.isoformat() if end else None,
               "status": status, "fee_cents": fee, "reinspections": 0, "created_at": _at(created, 10, rng.randint(0, 59)),
               "submitted_at": _at(sub, 14, rng.randint(0, 59)) if sub else None, "reviewer_id": None, "decided_at": None,
               "decision_note": None, "permit_number": None, "issued_at": None, "expires_on": None, "withdrawn_at": None,
               "renewal_of_id": None}
        apps.append(app)
        docs = list(t["docs"])
        if status == "draft":
            if missing_doc:
                docs = docs[:-1]
            else:
                docs = docs[: rng.randint(0, len(docs))]
        for dc in docs:
            T.add("application_documents", {"application_id": i, "doc_code": dc, "file_name": f"{dc.lower()}_{i}.pdf",
                                            "uploaded_at": _at(created, 11, rng.randint(0, 59))})
        if status in ("draft", "submitted", "withdrawn"):
            if status == "withdrawn":
                wd = min(sub + timedelta(days=rng.randint(0, 3)), today - timedelta(days=1))
                app["withdrawn_at"] = _at(wd, 16)
                if paid or ctx.chance(0.3):
                    pay(app, fee, sub)
                    pay(app, fee, wd, "refund")
            elif status == "submitted" and (paid if paid is not None else ctx.chance(0.5)):
                pay(app, fee, sub)
            return app
        # review started
        review = sub + timedelta(days=rng.randint(1, 3))
        app["reviewer_id"] = ctx.pick(reviewers)["id"]
        ready = review
        if t["notice"]:
            dl = review + timedelta(days=t["notice"])
            notice = T.add("public_notices", {"application_id": i, "posted_on": review.isoformat(),
                                              "comment_deadline": dl.isoformat(), "posted_by": app["reviewer_id"]})
            for _ in range(rng.randint(0, 3)):
                cday = review + timedelta(days=rng.randint(0, t["notice"] - 1))
                if cday >= today:
                    continue
                cname = f"{fk.first_name()} {fk.last_name()}"
                comment_id += 1
                T["public_comments"].append({"id": comment_id, "notice_id": notice["id"], "commenter_name": cname,
                                             "commenter_email": f"{cname.lower().replace(' ', '.').replace(chr(39), '')}{comment_id}@mail.com",
                                             "position": ctx.weighted({"support": 3, "oppose": 2, "neutral": 1}),
                                             "body": ctx.pick(["Looks fine to me.", "Worried about noise and parking.",
                                                               "Great for the neighbourhood!", "Please limit the hours."]),
                                             "submitted_at": _at(cday, 19)})
            ready = max(ready, dl + timedelta(days=1))
        paid_now = paid if paid is not None else (status in ("issued", "expired") or ctx.chance(0.6))
        if paid_now:
            pay(app, fee, sub + timedelta(days=rng.randint(0, 1)))
        if t["insp"]:
            plan = insp_plan or ("pass" if status in ("approved", "issued", "expired") else
                                 ctx.weighted({"none": 2, "scheduled": 2, "pass": 1, "fail_resched": 1}) if status == "under_review" else
                                 ctx.pick(["fail", "pass"]))
            if plan in ("pass", "fail", "fail_resched", "fail_pass"):
                d1 = _weekday(review + timedelta(days=rng.randint(2, 6)))
                if d1 >= today:
                    d1 = _weekday(today - timedelta(days=3), forward=False)
                first_fail = plan != "pass" or (status in ("approved", "issued", "expired") and ctx.chance(0.3))
                r1 = inspect(app, parcel, d1, "initial", "failed" if first_fail else "passed", ctx.pick(FAIL_NOTES) if first_fail else "OK")
                if r1 is None:
                    plan = "none"
                elif first_fail and plan != "fail":
                    d2 = _weekday(date.fromisoformat(r1["scheduled_date"]) + timedelta(days=rng.randint(2, 5)))
                    app["reinspections"] = 1
                    app["fee_cents"] += reinspection_fee
                    if plan == "fail_resched" or d2 >= today:
                        d2 = max(d2, _weekday(today + timedelta(days=rng.randint(1, 6))))
                        inspect(app, parcel, d2, "reinspection", "scheduled")
                        ready = today + timedelta(days=30)
                    else:
                        inspect(app, parcel, d2, "reinspection", "passed", "Fixed; OK")
                        ready = max(ready, d2 + timedelta(days=1))
                        if paid_now:
                            pay(app, reinspection_fee, d2)
                else:
                    ready = max(ready, d1 + timedelta(days=1))
            elif plan == "scheduled":
                inspect(app, parcel, _weekday(today + timedelta(days=rng.randint(1, 8))), "initial", "scheduled")
        if status == "under_review":
            return app
        dday = min(max(ready, review + timedelta(days=2)), today - timedelta(days=1))
        if ready > today - timedelta(days=1) and status != "rejected":
            app["status"] = "under_review"
            return app
        app["decided_at"] = _at(dday, 15, rng.randint(0, 59))
        if status == "rejected":
            app["decision_note"] = ctx.pick(["Does not meet setback requirements", "Incomplete drawings",
                                             "Use not permitted at this location", "Failed inspection"])
            if paid_now and ctx.chance(0.4):
                pay(app, sum(p["amount_cents"] for p in T["payments"] if p["application_id"] == i and p["kind"] == "fee") // 2,
                    min(dday + timedelta(days=2), today - timedelta(days=1)), "refund")
            if ctx.chance(0.3):
                fday = min(dday + timedelta(days=rng.randint(1, 10)), today - timedelta(days=1))
                denied = ctx.chance(0.5) and fday < today - timedelta(days=2)
                T.add("appeals", {"application_id": i, "reason": "We have revised the plans and ask for reconsideration.",
                                  "status": "denied" if denied else "filed", "filed_at": _at(fday, 12),
                                  "decided_by": supervisor["id"] if denied else None,
                                  "decided_at": _at(fday + timedelta(days=1), 12) if denied else None,
                                  "decision_note": "Original decision stands" if denied else None})
            return app
        if status == "approved":
            return app
        # issued / expired: paid in full before issue
        paid_total = sum(p["amount_cents"] for p in T["payments"] if p["application_id"] == i and p["kind"] == "fee")
        if paid_total < app["fee_cents"]:
            pay(app, app["fee_cents"] - paid_total, dday)
        iday = min(dday + timedelta(days=rng.randint(0, 2)), today - timedelta(days=1))
        app["issued_at"] = _at(iday, 16)
        app["permit_number"] = f"{ttype}-{iday.year}-{i:05d}"
        exp = end if ttype == "EVT" else iday + timedelta(days=t["validity"])
        if status == "issued" and exp < today:
            exp = today + timedelta(days=rng.randint(20, 200)) if ttype != "EVT" else exp
        app["expires_on"] = exp.isoformat()
        app["status"] = "expired" if exp < today else "issued"
        return app

    mix = {"draft": 2, "submitted": 2, "under_review": 3, "approved": 1.5, "rejected": 1.5, "issued": 3, "expired": 1.5, "withdrawn": 0.7}
    for _ in range(ctx.n(70, 1300)):
        make(ctx.pick(list(types)), ctx.weighted(mix))
    # planted scenarios
    for code in ("BLD", "SGN", "FTK", "EVT", "PRK"):
        make(code, "draft", missing_doc=True)
    for code in ("BLD", "SGN", "FTK", "PRK", "EVT"):
        make(code, "submitted", paid=False)
        make(code, "submitted", paid=True)
    for code in ("PRK", "SGN", "FTK", "EVT"):
        make(code, "approved", paid=True)
        make(code, "approved", paid=False)
    for code in ("SGN", "FTK", "BLD"):
        make(code, "under_review", paid=True, insp_plan="fail_resched")
    # ready for a decision: comment period over / inspection passed, fully paid
    for code, plan in (("EVT", None), ("EVT", None), ("FTK", "pass"), ("SGN", "pass")):
        make(code, "under_review", paid=True, insp_plan=plan)
    # inspections happening today, waiting for their result
    for code in ("SGN", "FTK", "BLD"):
        a = make(code, "under_review", paid=True, insp_plan="none")
        if a:
            inspect(a, parcels[a["parcel_id"] - 1], today if today.weekday() < 5 else _weekday(today), "initial", "scheduled")
    # renewals due: issued permits expiring within 30 days
    for code in ("PRK", "SGN", "FTK"):
        make(code, "issued", renew_due=15, insp_plan="pass")
    _ensure_today_inspection(ctx, T, parcels, inspectors, load, make, add_applicant)
    T["payments"].sort(key=lambda p: p["id"])
    T["inspections"].sort(key=lambda p: p["id"])
    return T


def _ensure_today_inspection(ctx: WorldContext, T: dict[str, list[Row]], parcels: list[Row], inspectors: dict[int, list[Row]],
                             load: dict[tuple[int, str], int], make: Any, add_applicant: Any) -> None:
    """Make sure some inspection scheduled today can be recorded (passed or failed) and re-booked two days later.

    The planted inspections of today may all belong to applicants with a namesake (distractors) or to an applicant
    with a second application of the same type on the same parcel, which makes the task ambiguous. Only when no
    inspection today qualifies, plant one more for an applicant with a unique name and no other application.
    """
    today = ctx.today.isoformat()
    later = (ctx.today + timedelta(days=2)).isoformat()
    apps, applicants, staff = T["applications"], T["applicants"], T["staff"]
    names: dict[str, int] = {}
    for a in applicants:
        names[a["name"]] = names.get(a["name"], 0) + 1
    combos: dict[tuple[int, int, int], int] = {}
    per_applicant: dict[int, int] = {}
    for a in apps:
        k = (a["applicant_id"], a["parcel_id"], a["permit_type_id"])
        combos[k] = combos.get(k, 0) + 1
        per_applicant[a["applicant_id"]] = per_applicant.get(a["applicant_id"], 0) + 1
    booked: dict[tuple[int, str], int] = {}
    for i in T["inspections"]:
        if i["status"] != "cancelled":
            booked[(i["inspector_id"], i["scheduled_date"])] = booked.get((i["inspector_id"], i["scheduled_date"]), 0) + 1
    for i in T["inspections"]:
        if i["status"] != "scheduled" or i["scheduled_date"] != today:
            continue
        a = apps[i["application_id"] - 1]
        ins = staff[i["inspector_id"] - 1]
        if (a["reinspections"] < 2 and booked.get((ins["id"], later), 0) < ins["daily_capacity"]
                and names[applicants[a["applicant_id"] - 1]["name"]] == 1
                and combos[(a["applicant_id"], a["parcel_id"], a["permit_type_id"])] == 1):
            return
    cands = [a for a in applicants if names[a["name"]] == 1 and a["id"] not in per_applicant]
    for _ in range(40):
        if cands:
            who = ctx.pick(cands)
            cands.remove(who)
        else:
            who = add_applicant("business")
            if sum(1 for a in applicants if a["name"] == who["name"]) > 1:
                continue
        app = make("BLD", "under_review", who, paid=True, insp_plan="none")
        parcel = parcels[app["parcel_id"] - 1]
        free = [s for s in inspectors[parcel["district_id"]]
                if booked.get((s["id"], today), 0) < s["daily_capacity"] and booked.get((s["id"], later), 0) < s["daily_capacity"]]
        if not free:
            continue
        ins = ctx.pick(free)
        load[(ins["id"], today)] = load.get((ins["id"], today), 0) + 1
        T["inspections"].append({"id": max((i["id"] for i in T["inspections"]), default=0) + 1, "application_id": app["id"],
                                 "inspector_id": ins["id"], "kind": "initial", "scheduled_date": today, "status": "scheduled",
                                 "result_note": None, "completed_at": None})
        return
    raise RuntimeError("could not plant an inspection for today")
