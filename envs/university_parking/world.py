import re
from datetime import date, datetime, timedelta

PLATE_LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"
PLATE_DIGITS = "0123456789"

MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December"]

TOWNS = ["Ridgemont", "Ridgemont", "Ridgemont", "Alder Falls", "Cedar Bend", "Millbrook", "Harlow"]
STREETS = ["College Ave", "University Way", "Campus Dr", "Maple St", "Oak Grove Rd", "Founders Blvd",
           "Stadium Rd", "Library Ln", "Hillside Dr", "Lakeview Rd", "Mill St", "Research Pkwy"]

DEPARTMENTS = [
    ("BIO", "Biology", "Hadley Science Hall", 1),
    ("CHEM", "Chemistry", "Hadley Science Hall", 1),
    ("CS", "Computer Science", "Pruitt Engineering Center", 1),
    ("ME", "Mechanical Engineering", "Pruitt Engineering Center", 1),
    ("ENG", "English", "Founders Hall", 1),
    ("HIST", "History", "Founders Hall", 1),
    ("MATH", "Mathematics", "Calloway Hall", 1),
    ("PSY", "Psychology", "Whitmore Hall", 1),
    ("BUS", "School of Business", "Lindqvist Business Building", 1),
    ("NURS", "Nursing", "Health Sciences Pavilion", 1),
    ("MUS", "Music", "Performing Arts Center", 1),
    ("AGR", "Agricultural Sciences", "Ridgeview Barns Complex", 1),
    ("EDU", "College of Education", "Calloway Hall", 1),
    ("FAC", "Facilities Management", "Service Building 2", 0),
    ("LIB", "University Libraries", "Marsh Library", 0),
    ("HR", "Human Resources", "Administration Building", 0),
    ("ITS", "Information Technology Services", "Administration Building", 0),
    ("ATH", "Athletics", "Ridgemont Arena", 0),
    ("HOUS", "University Housing", "Student Union", 0),
]

STAFF_BASE_ROLES = ["manager", "supervisor", "supervisor", "appeals_officer", "appeals_officer",
                    "clerk", "clerk", "clerk", "enforcement_officer", "enforcement_officer",
                    "enforcement_officer", "enforcement_officer"]

ZONES = [
    ("COM", "Commuter", "commuter", "07:00", "19:00", 0, "General student commuter parking in surface lots and garages."),
    ("RES", "Residence Hall", "resident", "00:00", "23:59", 1, "Overnight parking for students living in university housing."),
    ("FAS", "Faculty & Staff", "faculty_staff", "07:00", "17:30", 0, "Parking for university employees during business hours."),
    ("RSV", "Reserved", "reserved", "00:00", "23:59", 1, "Individually numbered reserved spaces enforced at all times."),
    ("VIS", "Visitor", "visitor", "07:00", "20:00", 1, "Pay-by-plate parking for campus visitors."),
    ("ACC", "Accessible", "accessible", "00:00", "23:59", 1, "Spaces for vehicles with an accessible permit and a state placard."),
    ("EVC", "EV Charging", "ev_charging", "07:00", "22:00", 1, "Charging spaces; vehicles must be plugged in and actively charging."),
    ("MOT", "Motorcycle", "motorcycle", "07:00", "19:00", 0, "Motorcycle and scooter corrals."),
]

LOT_SITES = ["Stadium East", "Stadium West", "North Campus", "South Campus", "Marsh Library", "Science Complex",
             "Engineering Quad", "Student Union", "Arts Center", "Medical Center", "Hillside Residence",
             "Lakeside Residence", "Founders Hall", "Recreation Center", "Athletics Field", "Maple Avenue",
             "College Street", "Oak Grove", "Research Park", "Performing Arts", "Business School",
             "Agriculture Barns", "West Village", "East Village", "Heritage Hall", "Chapel Green",
             "Observatory Hill", "Tennis Courts", "Aquatic Center", "Visitor Center", "Admissions",
             "Health Sciences", "Calloway Hall", "Whitmore Hall"]

EXTRA_ZONE_W = {"COM": 5, "FAS": 4, "RES": 2, "VIS": 1, "RSV": 1, "ACC": 1, "EVC": 1, "MOT": 1}

# code, name, eligible, term, price, max vehicles, requires review, active, description, zones
PERMIT_TYPES = [
    ("CS", "Commuter Student - Semester", "students", "semester", 19500, 2, 0, 1,
     "Semester permit for commuting students; valid in all commuter lots.", ["COM"]),
    ("CA", "Commuter Student - Annual", "students", "annual", 34000, 2, 0, 1,
     "Academic-year permit for commuting students at a discount over two semesters.", ["COM"]),
    ("RH", "Residence Hall - Annual", "residents", "annual", 52000, 1, 1, 1,
     "Overnight permit for students with a housing assignment; limited spaces.", ["RES", "COM"]),
    ("GS", "Graduate Student - Annual", "graduate_students", "annual", 38000, 2, 0, 1,
     "Academic-year permit for graduate students, including faculty/staff lots after 3 pm.", ["COM", "FAS"]),
    ("FS", "Faculty/Staff - Annual", "employees", "annual", 48000, 2, 0, 1,
     "Academic-year permit for employees; payroll deduction available.", ["FAS", "COM"]),
    ("RV", "Reserved Space - Annual", "employees", "annual", 96000, 1, 1, 1,
     "Individually assigned reserved space; approval and availability required.", ["RSV", "FAS", "COM"]),
    ("MC", "Motorcycle - Semester", "all", "semester", 6500, 1, 0, 1,
     "Semester permit for motorcycles and scooters in motorcycle corrals.", ["MOT"]),
    ("EV", "EV Charging - Semester", "all", "semester", 14500, 1, 0, 1,
     "Semester permit for electric vehicles including charging-space access.", ["EVC", "COM"]),
    ("AD", "Accessible - Annual", "all", "annual", 15000, 2, 1, 1,
     "Accessible parking permit; a valid state placard must be on file.", ["ACC", "COM", "FAS"]),
    ("SU", "Summer Session", "all", "summer", 9500, 2, 0, 1,
     "Permit for the summer session in commuter and faculty/staff lots.", ["COM", "FAS"]),
    ("MO", "Monthly Flex", "all", "monthly", 6000, 1, 0, 1,
     "Calendar-month commuter permit for occasional drivers.", ["COM"]),
    ("NW", "Night & Weekend - Semester", "all", "semester", 4500, 2, 0, 0,
     "Discontinued evening and weekend permit; no longer sold.", ["COM", "FAS", "VIS"]),
]

ELIGIBLE = {
    "students": ("undergraduate", "graduate"),
    "residents": ("undergraduate", "graduate"),
    "graduate_students": ("graduate",),
    "employees": ("faculty", "staff"),
    "all": ("undergraduate", "graduate", "faculty", "staff"),
}

# code, name, fine, late fee, towable, active, weight
VIOLATIONS = [
    ("NP", "No valid permit displayed", 5000, 2500, 0, 1, 30),
    ("WZ", "Parked in wrong zone for permit", 4000, 2000, 0, 1, 20),
    ("EM", "Expired meter or pay-station time", 2500, 1500, 0, 1, 14),
    ("OT", "Overtime in time-limited space", 3000, 1500, 0, 1, 8),
    ("AC", "Unauthorized parking in accessible space", 25000, 5000, 1, 1, 2),
    ("FL", "Parked in fire lane", 15000, 5000, 1, 1, 3),
    ("RS", "Parked in reserved space", 7500, 2500, 1, 1, 4),
    ("EV", "Non-charging vehicle in EV space", 5000, 2500, 0, 1, 4),
    ("NZ", "Parked in no-parking area", 6000, 2500, 0, 1, 6),
    ("DL", "Parked outside marked lines", 3500, 1500, 0, 1, 6),
    ("LZ", "Loading zone violation", 4500, 2000, 0, 1, 3),
    ("UD", "Unregistered decal (retired code)", 2000, 1000, 0, 0, 8),
]

MEMBER_TYPE_W = {"undergraduate": 50, "graduate": 15, "faculty": 14, "staff": 21}
STATUS_W = {
    "undergraduate": {"active": 84, "on_leave": 3, "graduated": 9, "suspended": 4},
    "graduate": {"active": 84, "on_leave": 4, "graduated": 10, "suspended": 2},
    "faculty": {"active": 88, "on_leave": 5, "separated": 7},
    "staff": {"active": 86, "on_leave": 3, "separated": 10, "suspended": 1},
}
FORCED_MEMBERS = [("undergraduate", "active"), ("staff", "on_leave"), ("undergraduate", "graduated"),
                  ("faculty", "separated"), ("undergraduate", "suspended"), ("graduate", "active"),
                  ("faculty", "active")]

PRIMARY_W = {
    "undergraduate": {"CS": 42, "CA": 22, "RH": 22, "MO": 8, "NW": 6},
    "graduate": {"GS": 50, "CS": 18, "CA": 8, "RH": 8, "MO": 10, "NW": 6},
    "faculty": {"FS": 72, "RV": 16, "MO": 12},
    "staff": {"FS": 74, "RV": 8, "MO": 18},
}

VEHICLE_TYPE_W = {"car": 45, "suv": 25, "truck": 8, "van": 4, "motorcycle": 6, "electric": 12}
MODELS = {
    "car": [("Toyota", "Corolla"), ("Honda", "Civic"), ("Hyundai", "Elantra"), ("Nissan", "Sentra"),
            ("Mazda", "Mazda3"), ("Subaru", "Impreza"), ("Volkswagen", "Jetta"), ("Ford", "Fusion"),
            ("Kia", "Forte"), ("Toyota", "Camry"), ("Honda", "Accord"), ("Toyota", "Prius")],
    "suv": [("Subaru", "Outback"), ("Subaru", "Forester"), ("Toyota", "RAV4"), ("Honda", "CR-V"),
            ("Ford", "Escape"), ("Jeep", "Cherokee"), ("Mazda", "CX-5"), ("Hyundai", "Tucson")],
    "truck": [("Ford", "F-150"), ("Toyota", "Tacoma"), ("Chevrolet", "Silverado"), ("Ram", "1500")],
    "van": [("Honda", "Odyssey"), ("Toyota", "Sienna"), ("Chrysler", "Pacifica")],
    "motorcycle": [("Honda", "Rebel 500"), ("Yamaha", "MT-07"), ("Kawasaki", "Ninja 400"),
                   ("Harley-Davidson", "Sportster"), ("Vespa", "GTS 300")],
    "electric": [("Tesla", "Model 3"), ("Tesla", "Model Y"), ("Nissan", "Leaf"), ("Chevrolet", "Bolt EV"),
                 ("Hyundai", "Ioniq 5"), ("Ford", "Mustang Mach-E"), ("Kia", "EV6")],
}
COLORS = ["White", "Black", "Silver", "Gray", "Blue", "Red", "Green", "Beige", "Brown", "Orange"]
STATE_W = {"OR": 74, "WA": 11, "CA": 8, "ID": 4, "NV": 3}

APPROVE_NOTES = ["Eligibility verified with registrar.", "Housing assignment confirmed.",
                 "Placard documentation on file.", "Space assigned per department request.",
                 "Approved after vehicle registration check."]
DENY_NOTES = ["Applicant not eligible for this permit type.",
              "Vehicle registration could not be verified with the DMV record.",
              "Outstanding citations must be resolved before a permit can be issued.",
              "No current housing assignment found.",
              "Required documentation was not provided within 10 days."]
WAITLIST_NOTE = "All spaces for this permit are allocated; applicant placed on the waitlist."
CANCEL_REASONS = ["No longer commuting to campus", "Switched to the transit pass program",
                  "Vehicle sold", "Moved closer to campus", "Withdrew from classes", "Leave of absence",
                  "Requested by permit holder"]
REVOKE_REASONS = ["Permit displayed on an unregistered vehicle", "Altered or counterfeit permit displayed",
                  "Falsified eligibility information on application", "Permit transferred to another driver"]
SUSPEND_REASONS = ["Unpaid citation referred to collections", "Repeated violations under review",
                   "Account hold placed by the Dean of Students"]
VOID_REASONS = ["Officer entry error: wrong plate recorded", "Valid permit verified on file",
                "Duplicate citation for the same incident", "Signage obstructed; supervisor void"]
OFFICER_NOTES = ["Vehicle partially blocking drive aisle.", "No permit visible on mirror or dash.",
                 "Chalked at 9:00, still present at 11:30.", "Photo taken of windshield.",
                 "Pay station receipt expired.", "Second notice this week."]
APPEAL_STATEMENTS = {
    "signage_unclear": ["The zone sign at the lot entrance was blocked by a parked delivery truck.",
                        "There was no sign saying this row was reserved after 5 pm.",
                        "The faculty section signs were removed during construction."],
    "valid_permit_displayed": ["My permit was hanging from the mirror; it may have flipped over.",
                               "I had a valid permit but it had slid off the dashboard.",
                               "I renewed online that morning and had not received the new permit yet."],
    "meter_malfunction": ["The pay station would not accept my card.",
                          "The mobile payment app was down when I tried to pay.",
                          "The meter still showed time remaining when I left the car."],
    "medical_emergency": ["I had to take a classmate to the health center urgently.",
                          "I was called into an urgent appointment at the campus clinic."],
    "vehicle_breakdown": ["My car would not start and I was waiting for a tow.",
                          "I had a flat tire and pulled into the nearest open space."],
    "not_my_vehicle": ["The plate on the citation does not match my vehicle.",
                       "The make and color on the citation are not my car."],
    "other": ["I was unloading equipment for a department event.",
              "Event staff directed me to park in that space.",
              "I believe the officer recorded the wrong lot."],
}
DISMISS_NOTES = ["Permit verified as valid at the time of the citation.",
                 "Signage at the lot entrance confirmed obscured.",
                 "Pay station fault confirmed by maintenance log.",
                 "Documentation supports the stated emergency."]
REDUCE_NOTES = ["First offense; fine reduced per appeals guideline 4.2.",
                "Mitigating circumstances accepted; partial reduction.",
                "Signage partially visible; fine reduced."]
UPHOLD_NOTES = ["Photos show the vehicle outside the permitted zone.",
                "No valid permit on file for the vehicle on that date.",
                "Pay station records show no malfunction on that day."]


def _slug(s):
    out = re.sub(r"[^a-z]", "", s.lower())
    return out or "user"


def _iso(dt):
    if dt is None:
        return None
    return dt.replace(microsecond=0).isoformat(timespec="seconds")


def _at(d, h=9, m=0):
    return datetime(d.year, d.month, d.day, h, m)


def _between(ctx, start, end):
    if start is None or end is None or end < start:
        return None
    minutes = int((end - start).total_seconds() // 60)
    return start + timedelta(minutes=ctx.rng.randint(0, minutes))


def _office(ctx, start, end):
    dt = _between(ctx, start, end)
    if dt is None:
        return None
    cand = datetime(dt.year, dt.month, dt.day, ctx.rng.randint(8, 16), ctx.rng.randint(0, 59))
    if start <= cand <= end:
        return cand
    return dt


def _enforce_time(ctx, start, end):
    dt = _between(ctx, start, end)
    if dt is None:
        return None
    d = dt.date()
    if d.weekday() >= 5 and ctx.chance(0.8):
        d = d - timedelta(days=d.weekday() - 4)
    cand = datetime(d.year, d.month, d.day, ctx.rng.randint(7, 18), ctx.rng.randint(0, 59))
    if start <= cand <= end:
        return cand
    return dt


def _phone(ctx):
    return f"(541) {ctx.rng.randint(201, 989)}-{ctx.rng.randint(0, 9999):04d}"


def _plate(ctx, state):
    rng = ctx.rng

    def letters(k):
        return "".join(rng.choice(PLATE_LETTERS) for _ in range(k))

    def digits(k):
        return "".join(rng.choice(PLATE_DIGITS) for _ in range(k))

    if state == "OR":
        return letters(3) + digits(3) if rng.random() < 0.5 else digits(3) + letters(3)
    if state == "WA":
        return letters(3) + digits(4)
    if state == "CA":
        return str(rng.randint(5, 9)) + letters(3) + digits(3)
    if state == "ID":
        return str(rng.randint(1, 9)) + letters(1) + digits(5)
    return digits(3) + letters(1) + digits(2)


def _add_month(y, m, k):
    idx = y * 12 + (m - 1) + k
    return idx // 12, idx % 12 + 1


def _periods(today):
    ay = today.year if today.month >= 8 else today.year - 1
    out = []

    def add(code, name, term, start, end, sales, renew):
        out.append({"code": code, "name": name, "term": term, "starts_on": start, "ends_on": end,
                    "sales_open_on": sales, "renewal_deadline": renew})

    add(f"AY{(ay - 1) % 100:02d}{ay % 100:02d}", f"Academic Year {ay - 1}-{ay % 100:02d}", "annual",
        date(ay - 1, 8, 15), date(ay, 8, 14), date(ay - 1, 7, 1), date(ay - 1, 8, 1))
    add(f"AY{ay % 100:02d}{(ay + 1) % 100:02d}", f"Academic Year {ay}-{(ay + 1) % 100:02d}", "annual",
        date(ay, 8, 15), date(ay + 1, 8, 14), date(ay, 7, 1), date(ay, 8, 1))
    add(f"SP{ay}", f"Spring {ay}", "semester", date(ay, 1, 13), date(ay, 5, 16), date(ay - 1, 12, 1), date(ay, 1, 6))
    add(f"SU{ay}", f"Summer {ay}", "summer", date(ay, 5, 19), date(ay, 8, 14), date(ay, 2, 1), None)
    add(f"FA{ay}", f"Fall {ay}", "semester", date(ay, 8, 18), date(ay, 12, 19), date(ay, 7, 1), date(ay, 8, 4))
    add(f"SP{ay + 1}", f"Spring {ay + 1}", "semester", date(ay + 1, 1, 12), date(ay + 1, 5, 15),
        date(ay, 12, 1), date(ay + 1, 1, 5))
    add(f"SU{ay + 1}", f"Summer {ay + 1}", "summer", date(ay + 1, 5, 18), date(ay + 1, 8, 14), date(ay + 1, 2, 1), None)
    for k in range(-3, 2):
        y, m = _add_month(today.year, today.month, k)
        ny, nm = _add_month(y, m, 1)
        py, pm = _add_month(y, m, -1)
        add(f"M{y}-{m:02d}", f"{MONTH_NAMES[m - 1]} {y} Monthly", "monthly", date(y, m, 1),
            date(ny, nm, 1) - timedelta(days=1), date(py, pm, 1), None)
    out.sort(key=lambda p: (p["starts_on"], p["code"]))
    for i, p in enumerate(out, start=1):
        p["id"] = i
    return out


def build(ctx):
    rng = ctx.rng
    clock = ctx.clock
    today = ctx.today
    logs = []

    def log(at, staff_id, member_id, etype, ref, action, old=None, new=None, details=None, eid=None):
        logs.append({"at": at, "seq": len(logs), "staff": staff_id, "member": member_id, "etype": etype,
                     "ref": ref, "eid": eid, "action": action, "old": old, "new": new, "details": details})

    # ---------------- departments ----------------
    dept_rows = []
    for i, (code, name, building, acad) in enumerate(DEPARTMENTS, start=1):
        dept_rows.append({"id": i, "code": code, "name": name, "building": building, "is_academic": acad})
    academic_ids = [d["id"] for d in dept_rows if d["is_academic"] == 1]
    nonacademic_ids = [d["id"] for d in dept_rows if d["is_academic"] == 0]

    # ---------------- staff ----------------
    staff_rows, staff_info = [], []
    seen_staff_email, seen_codes = set(), set()
    n_staff = max(len(STAFF_BASE_ROLES), ctx.n(12, 30))
    roles = list(STAFF_BASE_ROLES)
    while len(roles) < n_staff:
        roles.append(ctx.weighted({"enforcement_officer": 5, "clerk": 3, "appeals_officer": 1, "supervisor": 1}))
    seen_roles = []
    for i, role in enumerate(roles, start=1):
        first, last = ctx.faker.first_name(), ctx.faker.last_name()
        base = _slug(first) + "." + _slug(last)
        email = ctx.unique(lambda: base + ("" if rng.random() < 0.6 else str(rng.randint(2, 99)))
                           + "@parking.ridgemont.edu", seen_staff_email)
        is_first = role not in seen_roles
        if is_first:
            seen_roles.append(role)
            active, hired = 1, ctx.days_ago(1100, 5000)
        else:
            active = 0 if ctx.chance(0.12) else 1
            hired = ctx.days_ago(700, 4500) if not active else ctx.days_ago(45, 4000)
        code = ctx.unique(lambda: f"PK{rng.randint(1000, 9999)}", seen_codes)
        staff_rows.append({"id": i, "employee_code": code, "full_name": f"{first} {last}", "email": email,
                           "phone": _phone(ctx), "role": role, "is_active": active, "hired_on": hired.isoformat()})
        staff_info.append({"id": i, "role": role, "hired": hired, "active": active, "first": is_first})

    def pick_staff(role_list, when):
        pool = [s for s in staff_info if s["role"] in role_list and s["hired"] < when.date()
                and (s["active"] == 1 or when < clock - timedelta(days=150))]
        if not pool:
            pool = [s for s in staff_info if s["role"] in role_list and s["first"]]
        return ctx.pick(pool)["id"]

    # ---------------- zones & lots ----------------
    zone_rows = []
    zone_id, zone_type_by_code = {}, {}
    for i, (code, name, ztype, es, ee, wk, desc) in enumerate(ZONES, start=1):
        zone_rows.append({"id": i, "code": code, "name": name, "zone_type": ztype, "enforcement_start": es,
                          "enforcement_end": ee, "enforced_weekends": wk, "description": desc})
        zone_id[code] = i
        zone_type_by_code[code] = ztype

    lots, lot_info = [], []
    kind_count = {"garage": 0, "surface": 0, "street": 0}

    def add_lot(site, zcode, kind=None):
        ztype = zone_type_by_code[zcode]
        if kind is None:
            if ztype == "motorcycle":
                kind = "surface"
            elif ztype in ("resident", "reserved", "accessible", "ev_charging"):
                kind = ctx.weighted({"surface": 3, "garage": 1})
            else:
                kind = ctx.weighted({"surface": 5, "garage": 2, "street": 2})
        kind_count[kind] += 1
        prefix = {"garage": "G", "surface": "L", "street": "S"}[kind]
        suffix = {"garage": "Garage", "surface": "Lot", "street": "Curbside"}[kind]
        if kind == "garage":
            total = rng.randint(30, 120) * 10
        elif kind == "surface":
            total = rng.randint(40, 420)
        else:
            total = rng.randint(12, 60)
        if ztype == "motorcycle":
            total, acc, ev = rng.randint(20, 80), 0, 0
        elif ztype == "accessible":
            total = rng.randint(12, 40)
            acc, ev = total, 0
        elif ztype == "ev_charging":
            total = rng.randint(10, 36)
            acc = max(1, total // 12)
            ev = total - acc
        else:
            acc = max(1, int(round(total * rng.uniform(0.02, 0.05))))
            ev = 0 if ctx.chance(0.5) else int(round(total * rng.uniform(0.01, 0.05)))
        lid = len(lots) + 1
        gated = 1 if kind == "garage" else (1 if ztype == "reserved" and ctx.chance(0.5) else 0)
        lots.append({"id": lid, "code": f"{prefix}{kind_count[kind]:02d}", "name": f"{site} {suffix}",
                     "zone_id": zone_id[zcode], "address": f"{rng.randint(100, 2999)} {ctx.pick(STREETS)}",
                     "lot_kind": kind, "total_spaces": total, "accessible_spaces": acc, "ev_spaces": ev,
                     "is_gated": gated, "status": "open", "closure_note": None})
        lot_info.append({"id": lid, "closed_since": None, "ztype": ztype, "site": site, "kind": kind,
                         "zcode": zcode})

    n_lots = ctx.n(14, 30)
    sites = ctx.sample(LOT_SITES, min(n_lots, len(LOT_SITES)))
    for i, site in enumerate(sites):
        if i < len(ZONES):
            add_lot(site, ZONES[i][0])
        else:
            add_lot(site, ctx.weighted(EXTRA_ZONE_W))
    extras = [li for li in lot_info if li["id"] > len(ZONES)]
    if len(extras) >= 2:
        picked = ctx.sample(extras, 2)
        tmp, closed = picked[0], picked[1]
        since = clock - timedelta(days=rng.randint(5, 25))
        tmp["closed_since"] = datetime(since.year, since.month, since.day, 6, 0)
        reopen = today + timedelta(days=rng.randint(7, 40))
        lots[tmp["id"] - 1]["status"] = "temporarily_closed"
        lots[tmp["id"] - 1]["closure_note"] = f"Closed for resurfacing and restriping through {reopen.isoformat()}."
        cd = ctx.days_ago(90, 250)
        closed["closed_since"] = datetime(cd.year, cd.month, cd.day, 6, 0)
        lots[closed["id"] - 1]["status"] = "closed"
        lots[closed["id"] - 1]["closure_note"] = ("Permanently closed for construction of the new "
                                                  + ctx.pick(["Engineering Annex", "Residence Hall C",
                                                              "Student Wellness Center", "Data Science Building"])
                                                  + ".")
    if ctx.distractors:
        src = ctx.pick([li for li in lot_info if li["closed_since"] is None])
        other_kind = "garage" if src["kind"] != "garage" else "surface"
        add_lot(src["site"], src["zcode"], other_kind)

    # ---------------- periods & permit types ----------------
    periods = _periods(today)
    period_rows = [{"id": p["id"], "code": p["code"], "name": p["name"], "starts_on": p["starts_on"].isoformat(),
                    "ends_on": p["ends_on"].isoformat(), "sales_open_on": p["sales_open_on"].isoformat(),
                    "renewal_deadline": p["renewal_deadline"].isoformat() if p["renewal_deadline"] else None}
                   for p in periods]
    period_by_term = {}
    for p in periods:
        period_by_term.setdefault(p["term"], []).append(p)

    def phase(p):
        if p["ends_on"] < today:
            return "past"
        if p["starts_on"] > today:
            return "future"
        return "current"

    ptypes, ptype = [], {}
    ptz_rows = []
    for i, (code, name, elig, term, price, maxv, review, active, desc, zones) in enumerate(PERMIT_TYPES, start=1):
        price = int(round(price * ctx.pick([0.95, 1.0, 1.0, 1.05]) / 100.0)) * 100
        pt = {"id": i, "code": code, "name": name, "eligible_member_types": elig, "term": term,
              "price_cents": price, "max_vehicles": maxv, "capacity": None, "requires_review": review,
              "is_active": active, "description": desc}
        ptypes.append(pt)
        ptype[code] = pt
        for z in zones:
            ptz_rows.append({"id": len(ptz_rows) + 1, "permit_type_id": i, "zone_id": zone_id[z]})

    # ---------------- violation types ----------------
    vts, vt_by_code = [], {}
    for i, (code, name, fine, late, tow, active, w) in enumerate(VIOLATIONS, start=1):
        vt = {"id": i, "code": code, "name": name, "fine": fine, "late": late, "tow": tow, "active": active, "w": w}
        vts.append(vt)
        vt_by_code[code] = vt

    # ---------------- members ----------------
    members = []
    seen_member_email, seen_uid = set(), set()

    def new_member(first, last, mtype, status, forced):
        mid = len(members) + 1
        student = mtype in ("undergraduate", "graduate")
        domain = "mail.ridgemont.edu" if student else "ridgemont.edu"
        base = _slug(first) + "." + _slug(last)
        email = ctx.unique(lambda: base + ("" if rng.random() < 0.5 else str(rng.randint(2, 99))) + "@" + domain,
                           seen_member_email)
        uid = ctx.unique(lambda: ("9" if student else "7") + str(rng.randint(1000000, 9999999)), seen_uid)
        left = None
        if status in ("graduated", "separated"):
            left = _at(ctx.days_ago(40, 420), 17, 0)
            created = _at(left.date() - timedelta(days=rng.randint(300, 1500)), rng.randint(9, 16), rng.randint(0, 59))
        else:
            if forced:
                cd = ctx.days_ago(400, 1400)
            else:
                cd = ctx.days_ago(20, 1500 if student else 3500)
            created = _at(cd, rng.randint(9, 16), rng.randint(0, 59))
        if mtype == "faculty" or (student and ctx.chance(0.9)):
            dept = ctx.pick(academic_ids)
        elif mtype == "staff":
            dept = ctx.pick(nonacademic_ids) if ctx.chance(0.7) else ctx.pick(academic_ids)
        else:
            dept = None
        m = {"id": mid, "first": first, "last": last, "name": f"{first} {last}", "email": email, "uid": uid,
             "type": mtype, "status": status, "dept": dept, "created": created, "left": left,
             "placard": 1 if ctx.chance(0.04) else 0, "phone": _phone(ctx),
             "addr": f"{ctx.faker.street_address()}, {ctx.pick(TOWNS)}, OR {rng.randint(97301, 97399)}",
             "forced": forced, "vehicles": []}
        members.append(m)
        return m

    n_members = ctx.n(130, 820)
    for i in range(n_members):
        if i < len(FORCED_MEMBERS):
            mtype, status = FORCED_MEMBERS[i]
        else:
            mtype = ctx.weighted(MEMBER_TYPE_W)
            status = ctx.weighted(STATUS_W[mtype])
        new_member(ctx.faker.first_name(), ctx.faker.last_name(), mtype, status, i < len(FORCED_MEMBERS))
    if ctx.distractors:
        pool = [m for m in members[len(FORCED_MEMBERS):]]
        for src in ctx.sample(pool, min(len(pool), ctx.n(2, 5))):
            mtype = src["type"] if ctx.chance(0.6) else ctx.weighted(MEMBER_TYPE_W)
            new_member(src["first"], src["last"], mtype, "active", False)

    # ---------------- vehicles ----------------
    vehicles = []
    seen_plates = set()

    def new_plate(state):
        return ctx.unique(lambda: state + "|" + _plate(ctx, state), seen_plates).split("|")[1]

    def add_vehicle(m, reg, rem, vtype=None, state=None, plate=None):
        if vtype is None:
            vtype = ctx.weighted(VEHICLE_TYPE_W)
        make, model = ctx.pick(MODELS[vtype])
        if state is None:
            state = ctx.weighted(STATE_W)
        if plate is None:
            plate = new_plate(state)
        v = {"id": len(vehicles) + 1, "member": m, "type": vtype, "make": make, "model": model,
             "year": rng.randint(2016 if vtype == "electric" else 2006, today.year), "color": ctx.pick(COLORS),
             "state": state, "plate": plate, "reg": reg, "rem": rem}
        vehicles.append(v)
        m["vehicles"].append(v)
        return v

    for m in members:
        nv = ctx.weighted({0: 7, 1: 58, 2: 26, 3: 9})
        if m["forced"] and nv == 0:
            nv = 1
        end_limit = (m["left"] - timedelta(days=1)) if m["left"] else clock - timedelta(days=1)
        first_reg = _office(ctx, m["created"] + timedelta(days=1), min(m["created"] + timedelta(days=20), end_limit))
        if first_reg is None:
            nv = 0
        for k in range(nv):
            if k == 0:
                reg = first_reg
            else:
                reg = _office(ctx, first_reg + timedelta(days=1), end_limit)
                if reg is None:
                    continue
            rem = None
            if m["left"] is not None:
                if ctx.chance(0.8):
                    rem = _office(ctx, m["left"], min(m["left"] + timedelta(days=30), clock - timedelta(hours=1)))
            elif ctx.chance(0.22 if k > 0 else 0.06):
                rem = _office(ctx, reg + timedelta(days=60), clock - timedelta(days=1))
            vtype = None
            if k == 0 and m["forced"]:
                vtype = ctx.pick(["car", "suv", "electric"])
            add_vehicle(m, reg, rem, vtype)
        m["vehicles"].sort(key=lambda v: (v["reg"], v["id"]))

    if ctx.distractors and vehicles:
        src = ctx.pick(vehicles)
        others = [m for m in members if m["id"] != src["member"]["id"] and m["left"] is None]
        for st in STATE_W:
            key = st + "|" + src["plate"]
            if st != src["state"] and key not in seen_plates and others:
                seen_plates.add(key)
                owner = ctx.pick(others)
                reg = _office(ctx, owner["created"] + timedelta(days=1), clock - timedelta(days=1))
                if reg is not None:
                    add_vehicle(owner, reg, None, src["type"], st, src["plate"])
                    owner["vehicles"].sort(key=lambda v: (v["reg"], v["id"]))
                break

    # ---------------- citations (raw) ----------------
    def choose_vt(li, issued, exclude=None):
        w = {}
        for vt in vts:
            if vt["code"] == exclude:
                continue
            if vt["active"] == 0 and issued > clock - timedelta(days=300):
                continue
            wt = vt["w"]
            if li["ztype"] == "accessible" and vt["code"] == "AC":
                wt += 60
            if li["ztype"] == "ev_charging" and vt["code"] == "EV":
                wt += 60
            if li["ztype"] == "reserved" and vt["code"] == "RS":
                wt += 60
            if li["ztype"] == "visitor" and vt["code"] in ("EM", "OT"):
                wt += 30
            w[vt["code"]] = wt
        return vt_by_code[ctx.weighted(w)]

    def make_cit(v, member, state, plate, issued, exclude_vt=None):
        ok = [li for li in lot_info if li["closed_since"] is None or issued < li["closed_since"]]
        li = ctx.pick(ok)
        return {"vehicle": v, "member": member, "state": state, "plate": plate, "issued": issued,
                "lot": li["id"], "vt": choose_vt(li, issued, exclude_vt),
                "officer": pick_staff(("enforcement_officer",), issued),
                "notes": ctx.pick(OFFICER_NOTES) if ctx.chance(0.45) else None}

    offenders = set()
    for m in members:
        if ctx.chance(0.12):
            offenders.add(m["id"])
    weights = [6 if v["member"]["id"] in offenders else 1 for v in vehicles]
    unreg_plates = []
    raw = []
    for _ in range(ctx.n(170, 1100)):
        chosen = None
        if vehicles and not ctx.chance(0.22):
            for _try in range(5):
                cand = rng.choices(vehicles, weights=weights)[0]
                lo_base = clock - timedelta(days=60 if ctx.chance(0.35) else 420)
                lo = max(cand["reg"] + timedelta(days=1), lo_base)
                hi = min(cand["rem"] or clock, clock) - timedelta(minutes=10)
                if lo < hi:
                    chosen = (cand, lo, hi)
                    break
        if chosen:
            v, lo, hi = chosen
            issued = _enforce_time(ctx, lo, hi)
            raw.append(make_cit(v, v["member"], v["state"], v["plate"], issued))
        else:
            lo = clock - timedelta(days=60 if ctx.chance(0.35) else 420)
            issued = _enforce_time(ctx, lo, clock - timedelta(minutes=10))
            if unreg_plates and ctx.chance(0.25):
                state, plate = ctx.pick(unreg_plates)
            else:
                state = ctx.weighted(STATE_W)
                plate = new_plate(state)
                unreg_plates.append((state, plate))
            raw.append(make_cit(None, None, state, plate, issued))
    if ctx.distractors:
        with_v = [c for c in raw if c["vehicle"] is not None]
        for src in ctx.sample(with_v, min(2, len(with_v))):
            t = src["issued"] + timedelta(minutes=rng.randint(45, 180))
            if t.date() == src["issued"].date() and t <= clock - timedelta(minutes=10) and (
                    src["vehicle"]["rem"] is None or t < src["vehicle"]["rem"]):
                raw.append(make_cit(src["vehicle"], src["member"], src["state"], src["plate"], t, src["vt"]["code"]))
    raw.sort(key=lambda c: (c["issued"], c["state"], c["plate"]))
    citations = raw
    for i, c in enumerate(citations, start=1):
        c["id"] = i
        c["number"] = f"PC{c['issued'].year % 100:02d}-{100000 + i}"

    # ---------------- payments / refunds helpers ----------------
    payments, refunds = [], []

    def pay_method(member, kind):
        if member["type"] in ("faculty", "staff"):
            if kind == "permit":
                w = {"payroll_deduction": 45, "credit_card": 33, "debit_card": 14, "check": 5, "cash": 3}
            else:
                w = {"credit_card": 55, "debit_card": 30, "cash": 8, "check": 7}
        else:
            w = {"student_account": 40, "credit_card": 34, "debit_card": 18, "cash": 4, "check": 4}
        return ctx.weighted(w)

    def add_payment(member, kind, target, amount, at, status, method=None):
        if method is None:
            method = pay_method(member, kind)
        proc = None
        if method in ("cash", "check") or ctx.chance(0.08):
            proc = pick_staff(("clerk", "supervisor"), at)
        p = {"seq": len(payments), "member": member, "kind": kind, "target": target, "amount": amount,
             "method": method, "status": status, "at": at, "proc": proc}
        payments.append(p)
        return p

    def add_refund(pay, amount, reason, req, forced=None, allow_deny=False):
        req = max(req, pay["at"] + timedelta(minutes=1))
        if req > clock - timedelta(minutes=2) or amount <= 0:
            return None
        if forced:
            st = forced
        elif clock - req <= timedelta(days=10):
            st = ctx.weighted({"requested": 4, "approved": 3, "issued": 3})
        elif allow_deny:
            st = ctx.weighted({"issued": 84, "denied": 11, "approved": 5})
        else:
            st = ctx.weighted({"issued": 94, "approved": 6})
        proc_at = proc_by = None
        if st != "requested":
            proc_at = _office(ctx, req + timedelta(hours=1), min(req + timedelta(days=7), clock - timedelta(minutes=5)))
            if proc_at is None:
                st = "requested"
            else:
                proc_by = pick_staff(("clerk", "supervisor", "manager"), proc_at)
        r = {"seq": len(refunds), "pay": pay, "amount": amount, "reason": reason, "status": st, "req": req,
             "proc_at": proc_at, "proc_by": proc_by}
        refunds.append(r)
        return r

    # ---------------- citation life cycles ----------------
    def flow_ok(c, flow):
        age = (clock - c["issued"]).days
        if c["member"] is None:
            if flow == "collections":
                return age >= 85
            return flow in ("unpaid", "voided")
        if flow in ("unpaid", "voided", "paid"):
            return True
        if flow == "collections":
            return age >= 85
        if flow == "appeal_open":
            return 1 <= age <= 40
        return age >= 12

    for c in citations:
        due = c["issued"].date() + timedelta(days=21)
        since_due = (today - due).days
        if c["member"] is None:
            w = {"unpaid": 5, "voided": 1}
            if since_due > 60:
                w["collections"] = 4
        elif since_due < 0:
            w = {"unpaid": 38, "paid": 25, "appeal_open": 18, "voided": 4, "dismissed": 4,
                 "reduced_unpaid": 5, "upheld_unpaid": 3}
        else:
            w = {"paid": 40, "unpaid": 8, "dismissed": 9, "reduced_unpaid": 5, "reduced_paid": 5,
                 "upheld_paid": 6, "upheld_unpaid": 3, "withdrawn": 3, "voided": 5}
            if since_due > 60:
                w["collections"] = 7
            if (clock - c["issued"]).days <= 40:
                w["appeal_open"] = 10
        flow = ctx.weighted(w)
        c["flow"] = flow if flow_ok(c, flow) else "unpaid"

    min_flows = [("appeal_open", 4), ("dismissed", 2), ("reduced_unpaid", 2), ("reduced_paid", 2),
                 ("upheld_paid", 2), ("upheld_unpaid", 1), ("withdrawn", 2), ("voided", 2), ("collections", 2)]
    for flow, need in min_flows:
        have = len([c for c in citations if c["flow"] == flow])
        if have >= need:
            continue
        cands = [c for c in citations if c["flow"] in ("unpaid", "paid") and flow_ok(c, flow)]
        rng.shuffle(cands)
        for c in cands[:need - have]:
            c["flow"] = flow

    appeals = []
    open_counter = [0]

    def appeal_reason(c):
        w = {"signage_unclear": 20, "valid_permit_displayed": 25, "meter_malfunction": 6,
             "medical_emergency": 8, "vehicle_breakdown": 8, "not_my_vehicle": 4, "other": 18}
        if c["vt"]["code"] in ("EM", "OT"):
            w["meter_malfunction"] = 40
        return ctx.weighted(w)

    def new_appeal(c, sub, status):
        reason = appeal_reason(c)
        a = {"citation": c, "member": c["member"], "reason": reason, "statement": ctx.pick(APPEAL_STATEMENTS[reason]),
             "status": status, "sub": sub, "assigned": None, "assigned_at": None, "dec": None, "dec_by": None,
             "reduced": None, "note": None, "withdrawn": None}
        appeals.append(a)
        return a

    def reduce_fine(fine):
        r = int(round(fine * ctx.pick([0.4, 0.5, 0.6]) / 500.0)) * 500
        if r <= 0 or r >= fine:
            r = fine // 2
        return r

    def decide_times(c, pay_after):
        issued = c["issued"]
        sub = _office(ctx, issued + timedelta(hours=2), min(issued + timedelta(days=21), clock - timedelta(days=5)))
        if sub is None:
            return None
        hi = clock - (timedelta(days=2) if pay_after else timedelta(hours=1))
        dec = _office(ctx, sub + timedelta(days=2), min(sub + timedelta(days=30), hi))
        if dec is None:
            return None
        return sub, dec

    def do_flow(c, flow):
        vt = c["vt"]
        issued = c["issued"]
        m = c["member"]
        c["fine"] = vt["fine"]
        c["late"] = 0
        c["due"] = issued.date() + timedelta(days=21)
        c["status"] = "unpaid"
        c["paid_at"] = None
        c["voided_at"] = None
        c["void_reason"] = None
        c["void_by"] = None
        c["collections_at"] = None
        if flow == "unpaid":
            if c["due"] < today:
                c["late"] = vt["late"]
            return True
        if flow == "collections":
            if (today - c["due"]).days <= 60:
                return False
            c["status"] = "sent_to_collections"
            c["late"] = vt["late"]
            c["collections_at"] = _at(c["due"] + timedelta(days=61), 6, 0)
            return True
        if flow == "voided":
            t = _office(ctx, issued + timedelta(hours=1), min(issued + timedelta(days=5), clock - timedelta(minutes=10)))
            if t is None:
                return False
            c["status"] = "voided"
            c["voided_at"] = t
            c["void_reason"] = ctx.pick(VOID_REASONS)
            c["void_by"] = pick_staff(("supervisor",), t)
            return True
        if m is None:
            return False
        if flow == "paid":
            late = c["due"] < today and ctx.chance(0.15)
            if late:
                t = _office(ctx, _at(c["due"] + timedelta(days=1), 8),
                            min(_at(c["due"] + timedelta(days=40), 17), clock - timedelta(minutes=5)))
            else:
                t = _between(ctx, issued + timedelta(minutes=30),
                             min(_at(c["due"], 23, 59), clock - timedelta(minutes=5)))
            if t is None:
                return False
            if t.date() > c["due"]:
                c["late"] = vt["late"]
            c["status"] = "paid"
            c["paid_at"] = t
            add_payment(m, "citation", c, c["fine"] + c["late"], t, "completed")
            return True
        if flow == "appeal_open":
            sub = _office(ctx, issued + timedelta(hours=2),
                          min(issued + timedelta(days=21), clock - timedelta(minutes=30)))
            if sub is None:
                return False
            open_counter[0] += 1
            want_review = open_counter[0] % 2 == 0
            assigned_at = _office(ctx, sub + timedelta(hours=1), clock - timedelta(minutes=10)) if want_review else None
            a = new_appeal(c, sub, "under_review" if assigned_at else "pending")
            if assigned_at:
                a["assigned_at"] = assigned_at
                a["assigned"] = pick_staff(("appeals_officer", "supervisor"), assigned_at)
            c["status"] = "under_appeal"
            return True
        if flow == "withdrawn":
            sub = _office(ctx, issued + timedelta(hours=2), min(issued + timedelta(days=21), clock - timedelta(days=5)))
            if sub is None:
                return False
            wd = _office(ctx, sub + timedelta(hours=1), min(sub + timedelta(days=10), clock - timedelta(days=2)))
            if wd is None:
                return False
            t = _office(ctx, wd + timedelta(hours=1), min(wd + timedelta(days=10), clock - timedelta(minutes=5)))
            if t is None:
                return False
            a = new_appeal(c, sub, "withdrawn")
            a["withdrawn"] = wd
            c["status"] = "paid"
            c["paid_at"] = t
            add_payment(m, "citation", c, c["fine"], t, "completed")
            return True
        pay_after = flow in ("reduced_paid", "upheld_paid")
        times = decide_times(c, pay_after)
        if times is None:
            return False
        sub, dec = times
        dec_by = pick_staff(("appeals_officer", "supervisor"), dec)
        if flow == "dismissed":
            prepay = _between(ctx, issued + timedelta(minutes=30), sub - timedelta(minutes=30)) if ctx.chance(0.3) else None
            a = new_appeal(c, sub, "dismissed")
            a.update({"dec": dec, "dec_by": dec_by, "assigned": dec_by, "note": ctx.pick(DISMISS_NOTES)})
            c["status"] = "dismissed"
            if prepay is not None:
                p = add_payment(m, "citation", c, c["fine"], prepay, "completed")
                add_refund(p, c["fine"], "citation_dismissed", dec + timedelta(minutes=10))
            return True
        if flow == "reduced_unpaid":
            red = reduce_fine(vt["fine"])
            a = new_appeal(c, sub, "reduced")
            a.update({"dec": dec, "dec_by": dec_by, "assigned": dec_by, "note": ctx.pick(REDUCE_NOTES), "reduced": red})
            c["fine"] = red
            c["status"] = "reduced"
            c["due"] = dec.date() + timedelta(days=14)
            return True
        if flow == "reduced_paid":
            red = reduce_fine(vt["fine"])
            prepay = _between(ctx, issued + timedelta(minutes=30), sub - timedelta(minutes=30)) if ctx.chance(0.5) else None
            a = new_appeal(c, sub, "reduced")
            a.update({"dec": dec, "dec_by": dec_by, "assigned": dec_by, "note": ctx.pick(REDUCE_NOTES), "reduced": red})
            c["fine"] = red
            c["status"] = "paid"
            if prepay is not None:
                p = add_payment(m, "citation", c, vt["fine"], prepay, "completed")
                add_refund(p, vt["fine"] - red, "citation_reduced", dec + timedelta(minutes=10))
                c["paid_at"] = prepay
            else:
                c["due"] = dec.date() + timedelta(days=14)
                t = _office(ctx, dec + timedelta(hours=1), min(dec + timedelta(days=13), clock - timedelta(minutes=5)))
                c["paid_at"] = t
                add_payment(m, "citation", c, red, t, "completed")
            return True
        if flow == "upheld_paid":
            a = new_appeal(c, sub, "upheld")
            a.update({"dec": dec, "dec_by": dec_by, "assigned": dec_by, "note": ctx.pick(UPHOLD_NOTES)})
            c["due"] = dec.date() + timedelta(days=14)
            t = _office(ctx, dec + timedelta(hours=1), min(dec + timedelta(days=13), clock - timedelta(minutes=5)))
            c["status"] = "paid"
            c["paid_at"] = t
            add_payment(m, "citation", c, c["fine"], t, "completed")
            return True
        if flow == "upheld_unpaid":
            a = new_appeal(c, sub, "upheld")
            a.update({"dec": dec, "dec_by": dec_by, "assigned": dec_by, "note": ctx.pick(UPHOLD_NOTES)})
            c["due"] = dec.date() + timedelta(days=14)
            if c["due"] < today:
                c["late"] = vt["late"]
            return True
        return False

    for c in citations:
        if not do_flow(c, c["flow"]):
            c["flow"] = "unpaid"
            do_flow(c, "unpaid")

    collections_members = set()
    for c in citations:
        if c["status"] == "sent_to_collections" and c["member"] is not None:
            collections_members.add(c["member"]["id"])

    # ---------------- applications & permits ----------------
    apps, permits = [], []
    app_keys = set()
    member_open_apps = set()

    def eligible_vehicles(m, code, when):
        out = []
        for v in m["vehicles"]:
            if v["reg"] >= when:
                continue
            if v["rem"] is not None and v["rem"] <= when:
                continue
            if code == "MC":
                if v["type"] != "motorcycle":
                    continue
            elif v["type"] == "motorcycle":
                continue
            if code == "EV" and v["type"] != "electric":
                continue
            out.append(v)
        return out

    def decide_app(outcome, pt, sub):
        review = pt["requires_review"] == 1
        res = {"status": outcome, "reviewed": None, "reviewer": None, "note": None, "withdrawn": None,
               "assigned_at": None}
        if outcome in ("approved", "approved_pending"):
            if review:
                rv = _office(ctx, sub + timedelta(hours=2), min(sub + timedelta(days=7), clock - timedelta(minutes=30)))
                if rv is not None:
                    res["reviewer"] = pick_staff(("clerk", "supervisor"), rv)
                    res["note"] = ctx.pick(APPROVE_NOTES)
            else:
                rv = sub + timedelta(minutes=rng.randint(1, 20))
                if rv > clock - timedelta(minutes=5):
                    rv = None
                else:
                    res["note"] = "Auto-approved: eligibility and vehicle registration verified."
            res["reviewed"] = rv
            res["status"] = "approved" if rv is not None else "submitted"
        elif outcome in ("denied", "waitlisted"):
            rv = _office(ctx, sub + timedelta(hours=2), min(sub + timedelta(days=10), clock - timedelta(minutes=30)))
            if rv is None:
                res["status"] = "submitted"
            else:
                res["reviewed"] = rv
                res["reviewer"] = pick_staff(("clerk", "supervisor"), rv)
                res["note"] = ctx.pick(DENY_NOTES) if outcome == "denied" else WAITLIST_NOTE
        elif outcome == "under_review":
            at = _office(ctx, sub + timedelta(minutes=30), clock - timedelta(minutes=10))
            if at is None:
                res["status"] = "submitted"
            else:
                res["assigned_at"] = at
                res["reviewer"] = pick_staff(("clerk", "supervisor"), at)
        elif outcome == "withdrawn":
            wd = _office(ctx, sub + timedelta(hours=1), min(sub + timedelta(days=20), clock - timedelta(minutes=10)))
            if wd is None:
                res["status"] = "submitted"
            else:
                res["withdrawn"] = wd
        return res

    def new_app(m, pt, per, sub, vs, kind, dec):
        app = {"m": m, "pt": pt, "per": per, "vehicle": vs[0], "kind": kind, "status": dec["status"], "sub": sub,
               "reviewed": dec["reviewed"], "reviewer": dec["reviewer"], "note": dec["note"],
               "withdrawn": dec["withdrawn"], "assigned_at": dec["assigned_at"]}
        apps.append(app)
        app_keys.add(f"{m['id']}|{pt['code']}|{per['code']}")
        if phase(per) != "past":
            member_open_apps.add(m["id"])
        return app

    def choose_chains(m):
        vs = m["vehicles"]
        if not vs:
            return []
        if not m["forced"] and ctx.chance(0.1):
            return []
        has_moto = any(v["type"] == "motorcycle" for v in vs)
        has_car = any(v["type"] != "motorcycle" for v in vs)
        has_ev = any(v["type"] == "electric" for v in vs)
        chains = []
        primary = None
        if has_car:
            if m["placard"]:
                primary = "AD"
            elif has_ev and ctx.chance(0.45):
                primary = "EV"
            else:
                primary = ctx.weighted(PRIMARY_W[m["type"]])
            if primary == "NW":
                chains.append(("NW", "past"))
                chains.append(("CS" if m["type"] in ("undergraduate", "graduate") else "FS", "nonpast"))
            else:
                chains.append((primary, "all"))
        if has_moto and (not has_car or ctx.chance(0.5)):
            chains.append(("MC", "all"))
        if has_car and primary in ("CS", "EV", "MO", "NW") and ctx.chance(0.25):
            chains.append(("SU", "all"))
        return chains

    def permit_payment(permit, pay_t):
        m = permit["member"]
        if ctx.chance(0.06):
            ft = pay_t - timedelta(minutes=rng.randint(2, 30))
            if ft > permit["issued"]:
                add_payment(m, "permit", permit, permit["price"], ft, "failed", "credit_card")
        p = add_payment(m, "permit", permit, permit["price"], pay_t, "completed")
        permit["pay"] = p
        return p

    for m in members:
        for code, pfilter in choose_chains(m):
            pt = ptype[code]
            seq = period_by_term[pt["term"]]
            if code == "MO":
                start = rng.randint(0, len(seq) - 1)
                seq = seq[start:start + rng.randint(1, len(seq) - start)]
            prev = None
            for idx, per in enumerate(seq):
                ph = phase(per)
                if pfilter == "past" and ph != "past":
                    continue
                if pfilter == "nonpast" and ph == "past":
                    continue
                if per["sales_open_on"] > today:
                    continue
                if m["left"] is not None and (ph != "past" or per["starts_on"] >= m["left"].date()):
                    continue
                p_join = {"past": 0.75, "current": 0.88, "future": 0.4}[ph]
                if m["status"] == "on_leave" and ph != "past":
                    p_join = 0.25
                if code == "MO":
                    p_join = 0.95
                if not ctx.chance(p_join):
                    prev = None
                    continue
                review = pt["requires_review"] == 1
                cap = code in ("RH", "RV")
                if ph == "past":
                    w = {"approved": 88, "denied": 5, "withdrawn": 7}
                elif ph == "current":
                    w = {"approved": 74, "approved_pending": 7, "submitted": 4, "denied": 4, "withdrawn": 4}
                    if review:
                        w["under_review"] = 5
                    if cap:
                        w["waitlisted"] = 8
                else:
                    w = {"approved": 35, "approved_pending": 20, "submitted": 20, "withdrawn": 7, "denied": 5}
                    if review:
                        w["under_review"] = 10
                if m["status"] == "suspended" and ph == "current":
                    w["approved"] = w["approved"] + 40
                outcome = ctx.weighted(w)
                open_ = max(_at(per["sales_open_on"], 8), m["created"] + timedelta(days=1))
                if prev is not None:
                    open_ = max(open_, prev["issued"] + timedelta(hours=1))
                if ph == "future" or (ph == "current" and outcome in ("approved_pending", "submitted", "under_review")):
                    if ph == "current":
                        open_ = max(open_, clock - timedelta(days=12))
                    close = clock - timedelta(hours=2)
                else:
                    close = min(max(_at(per["starts_on"] + timedelta(days=14), 17), open_ + timedelta(days=20)),
                                _at(per["ends_on"] - timedelta(days=7), 17), clock - timedelta(hours=2))
                if m["left"] is not None:
                    close = min(close, m["left"] - timedelta(days=1))
                sub = _office(ctx, open_, close)
                if sub is None:
                    prev = None
                    continue
                vs = eligible_vehicles(m, code, sub)
                key = f"{m['id']}|{code}|{per['code']}"
                if not vs or key in app_keys:
                    prev = None
                    continue
                renewal = (prev is not None and idx > 0 and prev["period"] is seq[idx - 1]
                           and prev["status"] in ("expired", "active", "suspended") and prev["issued"] < sub)
                chosen = [vs[0]] + [v for v in vs[1:] if ctx.chance(0.35)]
                chosen = chosen[:pt["max_vehicles"]]
                dec = decide_app(outcome, pt, sub)
                app = new_app(m, pt, per, sub, chosen, "renewal" if renewal else "new", dec)
                if app["status"] != "approved":
                    prev = None
                    continue
                reviewed = app["reviewed"]
                vf = max(per["starts_on"], reviewed.date())
                vu = per["ends_on"]
                if vf > vu:
                    vf = vu
                permit = {"app": app, "member": m, "pt": pt, "period": per, "prev": prev if renewal else None,
                          "price": pt["price_cents"], "vf": vf, "vu": vu, "issued": reviewed,
                          "issuer": app["reviewer"], "status": None, "cancelled": None, "reason": None,
                          "cancel_by": None, "susp_at": None, "susp_by": None, "susp_reason": None,
                          "vehicles": chosen, "pay": None}
                pay_t = None
                if outcome == "approved_pending":
                    st = "pending_payment"
                else:
                    pay_t = _between(ctx, reviewed + timedelta(minutes=5),
                                     min(reviewed + timedelta(days=3), clock - timedelta(minutes=5)))
                    if pay_t is None:
                        st = "pending_payment"
                    elif ph == "past":
                        st = ctx.weighted({"expired": 88, "cancelled": 9, "revoked": 3})
                    elif ph == "current":
                        if m["status"] == "suspended" or (m["id"] in collections_members and ctx.chance(0.6)):
                            st = "suspended"
                        else:
                            st = ctx.weighted({"active": 80, "cancelled": 10, "revoked": 4, "suspended": 6})
                    else:
                        st = ctx.weighted({"active": 88, "cancelled": 12})
                if st in ("cancelled", "revoked"):
                    lo = pay_t + timedelta(hours=1)
                    if ph != "future":
                        lo = max(lo, _at(vf, 8))
                    ct = _office(ctx, lo, min(_at(vu, 17), clock - timedelta(hours=1)))
                    if ct is None:
                        st = "expired" if ph == "past" else "active"
                    else:
                        permit["cancelled"] = ct
                        if st == "cancelled":
                            permit["reason"] = ctx.pick(CANCEL_REASONS)
                            permit["cancel_by"] = pick_staff(("clerk", "supervisor"), ct) if ctx.chance(0.4) else None
                        else:
                            permit["reason"] = ctx.pick(REVOKE_REASONS)
                            permit["cancel_by"] = pick_staff(("supervisor", "manager"), ct)
                if st == "suspended":
                    sa = _office(ctx, max(pay_t + timedelta(hours=1), _at(vf, 8)), clock - timedelta(hours=1))
                    if sa is None:
                        st = "active"
                    else:
                        permit["susp_at"] = sa
                        permit["susp_by"] = pick_staff(("supervisor",), sa)
                        if m["id"] in collections_members:
                            permit["susp_reason"] = SUSPEND_REASONS[0]
                        elif m["status"] == "suspended":
                            permit["susp_reason"] = SUSPEND_REASONS[2]
                        else:
                            permit["susp_reason"] = SUSPEND_REASONS[1]
                permit["status"] = st
                permits.append(permit)
                if pay_t is not None:
                    p = permit_payment(permit, pay_t)
                    if st == "cancelled":
                        ct = permit["cancelled"]
                        if ct.date() < vf:
                            amt = permit["price"]
                        else:
                            total = (vu - vf).days + 1
                            remaining = (vu - ct.date()).days
                            amt = int(round(permit["price"] * remaining / float(total)))
                        if amt > 0:
                            add_refund(p, amt, "permit_cancelled", ct + timedelta(minutes=rng.randint(5, 90)),
                                       allow_deny=True)
                    elif st == "revoked":
                        if ctx.chance(0.3):
                            add_refund(p, permit["price"] // 2, "other", permit["cancelled"] + timedelta(days=1),
                                       forced="denied")
                    elif ctx.chance(0.03):
                        dup_t = pay_t + timedelta(minutes=rng.randint(2, 15))
                        if dup_t <= clock - timedelta(minutes=30):
                            d = add_payment(m, "permit", permit, permit["price"], dup_t, "completed", p["method"])
                            add_refund(d, permit["price"], "duplicate_payment", dup_t + timedelta(minutes=20))
                    elif ctx.chance(0.02) and permit["price"] > 3000:
                        add_refund(p, ctx.pick([1000, 1500, 2500]), "overcharge",
                                   pay_t + timedelta(days=rng.randint(2, 20)))
                prev = permit if st in ("expired", "active", "suspended") else None

    # pending-payment permits: some have a pending or failed attempt
    pend = [p for p in permits if p["status"] == "pending_payment"]
    for i, pm in enumerate(pend):
        t = _between(ctx, pm["issued"] + timedelta(minutes=5), clock - timedelta(minutes=5))
        if t is None:
            continue
        mem = pm["member"]
        if i % 4 == 0:
            method = "payroll_deduction" if mem["type"] in ("faculty", "staff") else ctx.pick(["student_account", "check"])
            add_payment(mem, "permit", pm, pm["price"], t, "pending", method)
        elif i % 4 == 1:
            add_payment(mem, "permit", pm, pm["price"], t, "failed", "credit_card")

    # plant applications so every application status appears
    def open_period(term):
        cur = [p for p in period_by_term[term] if phase(p) == "current"]
        if cur:
            return cur[0]
        fut = [p for p in period_by_term[term] if phase(p) == "future" and p["sales_open_on"] <= today]
        return fut[0] if fut else None

    def plant_type(m, status):
        student = m["type"] in ("undergraduate", "graduate")
        if status == "waitlisted":
            return "RH" if student else "RV"
        if status == "under_review":
            if m["placard"]:
                return "AD"
            return "RH" if student else "RV"
        return {"undergraduate": "CS", "graduate": "GS", "faculty": "FS", "staff": "FS"}[m["type"]]

    active_members = [m for m in members if m["status"] == "active" and m["vehicles"]]
    for st in ("submitted", "under_review", "denied", "waitlisted", "withdrawn"):
        have = len([a for a in apps if a["status"] == st])
        tries = 0
        while have < 2 and tries < 200 and active_members:
            tries += 1
            m = ctx.pick(active_members)
            if m["id"] in member_open_apps:
                continue
            pt = ptype[plant_type(m, st)]
            per = open_period(pt["term"])
            if per is None or f"{m['id']}|{pt['code']}|{per['code']}" in app_keys:
                continue
            sub = _office(ctx, max(clock - timedelta(days=10), m["created"] + timedelta(days=1),
                                   _at(per["sales_open_on"], 8)), clock - timedelta(hours=2))
            if sub is None:
                continue
            vs = eligible_vehicles(m, pt["code"], sub)
            if not vs:
                continue
            dec = decide_app(st, pt, sub)
            if dec["status"] != st:
                continue
            new_app(m, pt, per, sub, vs[:1], "new", dec)
            have += 1

    for code in ("RH", "RV"):
        pt = ptype[code]
        cnt = len([p for p in permits if p["pt"] is pt and phase(p["period"]) == "current"
                   and p["status"] in ("active", "suspended", "pending_payment")])
        waiting = any(a["pt"] is pt and a["status"] == "waitlisted" for a in apps)
        pt["capacity"] = max(cnt, 1) if waiting else cnt + rng.randint(3, 10)

    # make sure every refund status appears
    for need in ("requested", "approved", "denied", "issued"):
        if any(r["status"] == need for r in refunds):
            continue
        counts = {}
        for r in refunds:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        order = sorted(refunds, key=lambda r: (r["req"], r["seq"]), reverse=(need in ("requested", "approved")))
        for r in order:
            if counts.get(r["status"], 0) < 2:
                continue
            if need == "denied" and r["reason"] not in ("permit_cancelled", "other", "overcharge"):
                continue
            if need == "requested":
                r["status"], r["proc_at"], r["proc_by"] = "requested", None, None
                break
            pa = r["proc_at"] or _office(ctx, r["req"] + timedelta(minutes=5), clock - timedelta(minutes=5))
            if pa is None:
                continue
            r["status"] = need
            r["proc_at"] = pa
            r["proc_by"] = r["proc_by"] or pick_staff(("clerk", "supervisor", "manager"), pa)
            break

    # ---------------- ids ----------------
    apps.sort(key=lambda a: (a["sub"], a["m"]["id"], a["pt"]["id"]))
    for i, a in enumerate(apps, start=1):
        a["id"] = i
        a["number"] = f"APP-{a['sub'].year % 100:02d}-{i:05d}"
    permits.sort(key=lambda p: (p["issued"], p["app"]["id"]))
    for i, p in enumerate(permits, start=1):
        p["id"] = i
        p["number"] = f"{p['period']['code']}-{p['pt']['code']}-{i:04d}"
    appeals.sort(key=lambda a: (a["sub"], a["citation"]["id"]))
    for i, a in enumerate(appeals, start=1):
        a["id"] = i
        a["number"] = f"APL-{a['sub'].year}-{i:04d}"
    payments.sort(key=lambda p: (p["at"], p["seq"]))
    for i, p in enumerate(payments, start=1):
        p["id"] = i
        p["number"] = f"RCPT-{p['at'].year}-{i:06d}"
    refunds.sort(key=lambda r: (r["req"], r["seq"]))
    for i, r in enumerate(refunds, start=1):
        r["id"] = i
        r["number"] = f"RF-{r['req'].year}-{i:04d}"

    issued_sum = {}
    for r in refunds:
        if r["status"] == "issued":
            issued_sum[r["pay"]["id"]] = issued_sum.get(r["pay"]["id"], 0) + r["amount"]
    for p in payments:
        s = issued_sum.get(p["id"], 0)
        if p["status"] == "completed" and s > 0:
            p["status"] = "refunded" if s >= p["amount"] else "partially_refunded"

    # ---------------- activity log ----------------
    for li in lot_info:
        if li["closed_since"] is not None:
            row = lots[li["id"] - 1]
            log(li["closed_since"], pick_staff(("manager",), li["closed_since"]), None, "lot", None,
                "lot_status_changed", "open", row["status"], row["closure_note"], eid=li["id"])
    for m in members:
        if m["left"] is not None and m["left"] < clock:
            log(m["left"], None, m["id"], "member", None, "member_status_changed", "active", m["status"],
                "Status updated from registrar feed.", eid=m["id"])
        elif m["status"] == "suspended":
            t = _office(ctx, clock - timedelta(days=60), clock - timedelta(days=1))
            log(t, pick_staff(("supervisor", "manager"), t), m["id"], "member", None, "member_status_changed",
                "active", "suspended", "Parking privileges suspended pending review.", eid=m["id"])
    for v in vehicles:
        log(v["reg"], None, v["member"]["id"], "vehicle", None, "vehicle_registered", None, "active",
            f"{v['year']} {v['make']} {v['model']} ({v['state']} {v['plate']})", eid=v["id"])
        if v["rem"] is not None:
            log(v["rem"], None, v["member"]["id"], "vehicle", None, "vehicle_removed", "active", "removed", None, eid=v["id"])
    for a in apps:
        mid = a["m"]["id"]
        log(a["sub"], None, mid, "application", a, "application_submitted", None, "submitted",
            f"{a['pt']['code']} for {a['per']['code']}")
        if a["status"] == "under_review":
            log(a["assigned_at"], a["reviewer"], mid, "application", a, "application_review_started", "submitted", "under_review")
        elif a["status"] in ("approved", "denied", "waitlisted"):
            log(a["reviewed"], a["reviewer"], mid, "application", a, "application_" + a["status"], "submitted",
                a["status"], a["note"])
        elif a["status"] == "withdrawn":
            log(a["withdrawn"], None, mid, "application", a, "application_withdrawn", "submitted", "withdrawn")
    for p in permits:
        mid = p["member"]["id"]
        if p["status"] == "cancelled":
            log(p["cancelled"], p["cancel_by"], mid, "permit", p, "permit_cancelled", "active", "cancelled", p["reason"])
        elif p["status"] == "revoked":
            log(p["cancelled"], p["cancel_by"], mid, "permit", p, "permit_revoked", "active", "revoked", p["reason"])
        elif p["status"] == "suspended":
            log(p["susp_at"], p["susp_by"], mid, "permit", p, "permit_suspended", "active", "suspended", p["susp_reason"])
    for c in citations:
        mid = c["member"]["id"] if c["member"] else None
        if c["status"] == "voided":
            log(c["voided_at"], c["void_by"], mid, "citation", c, "citation_voided", "unpaid", "voided", c["void_reason"])
        elif c["status"] == "sent_to_collections":
            log(c["collections_at"], None, mid, "citation", c, "citation_sent_to_collections", "unpaid",
                "sent_to_collections", "Unpaid more than 60 days past due.")
    for a in appeals:
        mid = a["member"]["id"]
        log(a["sub"], None, mid, "appeal", a, "appeal_submitted", None, "pending", a["reason"])
        if a["status"] == "under_review":
            log(a["assigned_at"], a["assigned"], mid, "appeal", a, "appeal_review_started", "pending", "under_review")
        elif a["status"] == "withdrawn":
            log(a["withdrawn"], None, mid, "appeal", a, "appeal_withdrawn", "pending", "withdrawn")
        elif a["dec"] is not None:
            log(a["dec"], a["dec_by"], mid, "appeal", a, "appeal_decided", "under_review", a["status"], a["note"])
    for r in refunds:
        if r["status"] != "requested":
            log(r["proc_at"], r["proc_by"], r["pay"]["member"]["id"], "refund", r, "refund_" + r["status"],
                "requested", r["status"], f"{r['amount']} cents for {r['reason']}")
    logs.sort(key=lambda e: (e["at"], e["seq"]))

    # ---------------- rows ----------------
    member_rows = [{"id": m["id"], "university_id": m["uid"], "full_name": m["name"], "email": m["email"],
                    "phone": m["phone"], "member_type": m["type"], "department_id": m["dept"], "status": m["status"],
                    "has_accessible_placard": m["placard"], "mailing_address": m["addr"],
                    "created_at": _iso(m["created"])} for m in members]
    vehicle_rows = [{"id": v["id"], "member_id": v["member"]["id"], "plate_number": v["plate"],
                     "plate_state": v["state"], "make": v["make"], "model": v["model"], "model_year": v["year"],
                     "color": v["color"], "vehicle_type": v["type"],
                     "status": "removed" if v["rem"] is not None else "active",
                     "registered_at": _iso(v["reg"]), "removed_at": _iso(v["rem"])} for v in vehicles]
    pt_rows = [{"id": pt["id"], "code": pt["code"], "name": pt["name"],
                "eligible_member_types": pt["eligible_member_types"], "term": pt["term"],
                "price_cents": pt["price_cents"], "max_vehicles": pt["max_vehicles"], "capacity": pt["capacity"],
                "requires_review": pt["requires_review"], "is_active": pt["is_active"],
                "description": pt["description"]} for pt in ptypes]
    app_rows = [{"id": a["id"], "application_number": a["number"], "member_id": a["m"]["id"],
                 "permit_type_id": a["pt"]["id"], "period_id": a["per"]["id"], "vehicle_id": a["vehicle"]["id"],
                 "application_kind": a["kind"], "status": a["status"], "submitted_at": _iso(a["sub"]),
                 "reviewed_at": _iso(a["reviewed"]), "reviewed_by_staff_id": a["reviewer"],
                 "decision_note": a["note"], "withdrawn_at": _iso(a["withdrawn"])} for a in apps]
    permit_rows, pv_rows = [], []
    for p in permits:
        permit_rows.append({"id": p["id"], "permit_number": p["number"], "member_id": p["member"]["id"],
                            "permit_type_id": p["pt"]["id"], "period_id": p["period"]["id"],
                            "application_id": p["app"]["id"],
                            "renewed_from_permit_id": p["prev"]["id"] if p["prev"] is not None else None,
                            "status": p["status"], "price_cents": p["price"], "valid_from": p["vf"].isoformat(),
                            "valid_until": p["vu"].isoformat(), "issued_at": _iso(p["issued"]),
                            "issued_by_staff_id": p["issuer"], "cancelled_at": _iso(p["cancelled"]),
                            "cancel_reason": p["reason"]})
        for v in p["vehicles"]:
            removed = None
            if v["rem"] is not None and v["rem"] <= _at(p["vu"], 23, 59):
                removed = max(v["rem"], p["issued"])
            pv_rows.append({"id": len(pv_rows) + 1, "permit_id": p["id"], "vehicle_id": v["id"],
                            "added_at": _iso(p["issued"]), "removed_at": _iso(removed)})
    vt_rows = [{"id": vt["id"], "code": vt["code"], "name": vt["name"], "fine_cents": vt["fine"],
                "late_fee_cents": vt["late"], "is_towable": vt["tow"], "is_active": vt["active"]} for vt in vts]
    cit_rows = [{"id": c["id"], "citation_number": c["number"],
                 "vehicle_id": c["vehicle"]["id"] if c["vehicle"] is not None else None,
                 "member_id": c["member"]["id"] if c["member"] is not None else None,
                 "plate_number": c["plate"], "plate_state": c["state"], "violation_type_id": c["vt"]["id"],
                 "lot_id": c["lot"], "issued_by_staff_id": c["officer"], "issued_at": _iso(c["issued"]),
                 "fine_cents": c["fine"], "late_fee_cents": c["late"], "due_date": c["due"].isoformat(),
                 "status": c["status"], "officer_notes": c["notes"], "paid_at": _iso(c["paid_at"]),
                 "voided_at": _iso(c["voided_at"]), "void_reason": c["void_reason"]} for c in citations]
    appeal_rows = [{"id": a["id"], "appeal_number": a["number"], "citation_id": a["citation"]["id"],
                    "member_id": a["member"]["id"], "reason_category": a["reason"], "statement": a["statement"],
                    "status": a["status"], "submitted_at": _iso(a["sub"]), "assigned_staff_id": a["assigned"],
                    "decided_at": _iso(a["dec"]), "decided_by_staff_id": a["dec_by"],
                    "reduced_fine_cents": a["reduced"], "decision_note": a["note"],
                    "withdrawn_at": _iso(a["withdrawn"])} for a in appeals]
    pay_rows = [{"id": p["id"], "receipt_number": p["number"], "member_id": p["member"]["id"],
                 "payment_for": p["kind"], "permit_id": p["target"]["id"] if p["kind"] == "permit" else None,
                 "citation_id": p["target"]["id"] if p["kind"] == "citation" else None,
                 "amount_cents": p["amount"], "method": p["method"], "status": p["status"],
                 "paid_at": _iso(p["at"]), "processed_by_staff_id": p["proc"]} for p in payments]
    refund_rows = []
    for r in refunds:
        if r["status"] == "issued":
            note = f"Refunded to original {r['pay']['method'].replace('_', ' ')}."
        elif r["status"] == "denied":
            note = ("Revoked permits are not eligible for a refund." if r["reason"] == "other"
                    else "Request received after the refund deadline for this period.")
        elif r["status"] == "approved":
            note = "Approved; awaiting disbursement."
        else:
            note = None
        refund_rows.append({"id": r["id"], "refund_number": r["number"], "payment_id": r["pay"]["id"],
                            "member_id": r["pay"]["member"]["id"], "amount_cents": r["amount"],
                            "reason": r["reason"], "status": r["status"], "requested_at": _iso(r["req"]),
                            "processed_at": _iso(r["proc_at"]), "processed_by_staff_id": r["proc_by"], "note": note})
    log_rows = []
    for i, e in enumerate(logs, start=1):
        log_rows.append({"id": i, "occurred_at": _iso(e["at"]), "staff_id": e["staff"], "member_id": e["member"],
                         "entity_type": e["etype"], "entity_id": e["ref"]["id"] if e["ref"] is not None else e["eid"],
                         "action": e["action"], "old_status": e["old"], "new_status": e["new"],
                         "details": e["details"]})

    return {
        "departments": dept_rows,
        "staff": staff_rows,
        "campus_members": member_rows,
        "vehicles": vehicle_rows,
        "parking_zones": zone_rows,
        "parking_lots": lots,
        "permit_periods": period_rows,
        "permit_types": pt_rows,
        "permit_type_zones": ptz_rows,
        "permit_applications": app_rows,
        "permits": permit_rows,
        "permit_vehicles": pv_rows,
        "violation_types": vt_rows,
        "citations": cit_rows,
        "appeals": appeal_rows,
        "payments": pay_rows,
        "refunds": refund_rows,
        "activity_log": log_rows,
    }
