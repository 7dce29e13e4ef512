from datetime import date, datetime, timedelta

TABLES = ["branches", "test_centres", "staff", "instructors", "instructor_availability",
          "instructor_time_off", "vehicles", "vehicle_maintenance", "students", "lesson_packages",
          "service_fees", "package_purchases", "lessons", "skills", "progress_notes", "skill_ratings",
          "road_tests", "charges", "payments", "activity_log"]

CODE_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
VIN_CHARS = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
PLATE_LETTERS = "ABCDEFGHJKLMNPRSTVWXYZ"
POSTAL_LETTERS = "ABCEGHJKLMNPRSTVWXYZ"
STAFF_DOMAIN = "greenlightdriving.ca"
EMAIL_DOMAINS = ["gmail.com", "outlook.com", "yahoo.ca", "icloud.com", "hotmail.com", "rogers.com"]
AREA_CODES = ["519", "226", "548"]

DESK_ROLES = ("owner", "manager", "front_desk")
MGR_ROLES = ("owner", "manager")
MONEY_ROLES = ("front_desk", "accounts", "manager")
REFUND_ROLES = ("owner", "manager", "accounts")

BRANCH_POOL = [
    ("KIT", "Kitchener Downtown", "145 King Street West", "Kitchener", "N2G 1A7"),
    ("WAT", "Waterloo Uptown", "22 Erb Street East", "Waterloo", "N2J 1L6"),
    ("CAM", "Cambridge Galt", "61 Water Street North", "Cambridge", "N1R 3B2"),
    ("GUE", "Guelph Stone Road", "435 Stone Road West", "Guelph", "N1G 2X6"),
]

TEST_CENTRE_POOL = [
    ("DT-KIT", "Kitchener DriveTest Centre", "1405 Ottawa Street North", "Kitchener"),
    ("DT-GUE", "Guelph DriveTest Centre", "728 Victoria Road South", "Guelph"),
    ("DT-STR", "Stratford DriveTest Centre", "1093 Ontario Street", "Stratford"),
    ("DT-WDS", "Woodstock DriveTest Centre", "1080 Dundas Street", "Woodstock"),
    ("DT-BRA", "Brantford DriveTest Centre", "225 Colborne Street West", "Brantford"),
]

STUDENT_CITIES = ["Kitchener", "Waterloo", "Cambridge", "Guelph", "Elmira", "Baden", "New Hamburg",
                  "Breslau", "Ayr", "St. Jacobs"]

PACKAGES = [
    ("STARTER-5", "Starter 5-Lesson Package",
     "Five 60-minute in-car lessons for brand-new drivers: vehicle control and quiet residential streets.",
     5, 60, "either", 0, 32500, 120, 1),
    ("STANDARD-10", "Standard 10-Lesson Package",
     "Ten 60-minute lessons in an automatic car, from first drive to busy city traffic.",
     10, 60, "automatic", 0, 62000, 180, 1),
    ("MANUAL-10", "Standard 10-Lesson Package (Manual)",
     "Ten 60-minute lessons in a manual-transmission car, including clutch control and hill starts.",
     10, 60, "manual", 0, 68000, 180, 1),
    ("INTENSIVE-20", "Intensive 20-Lesson Course",
     "Twenty 60-minute lessons at 2-3 lessons a week, plus use of a school car for the road test.",
     20, 60, "either", 1, 125000, 270, 1),
    ("TESTPREP-3", "Road Test Prep 3 x 90",
     "Three 90-minute lessons on local test routes with a full mock test, plus the school car for the road test.",
     3, 90, "either", 1, 36000, 60, 1),
    ("HIGHWAY-4", "Highway Confidence 4 x 120",
     "Four 2-hour lessons on Highway 401, 7 and 8 for G-licence candidates.",
     4, 120, "automatic", 0, 46000, 120, 1),
    ("REFRESH-3", "Refresher 3-Pack",
     "Three 60-minute lessons for licensed drivers returning to the road after a break.",
     3, 60, "either", 0, 19500, 90, 1),
    ("CONFIDENCE-8", "Nervous Driver Confidence 8 x 45",
     "Eight relaxed 45-minute lessons for anxious beginners, starting in empty parking lots.",
     8, 45, "either", 0, 41000, 150, 1),
    ("WINTER-6", "Winter Special 6-Lesson Package",
     "Discontinued seasonal bundle of six 60-minute lessons sold during the winter promotion.",
     6, 60, "either", 0, 33000, 150, 0),
]
DISTRACTOR_PACKAGE = ("STANDARD-10-2024", "Standard 10-Lesson Package (2024 pricing)",
                      "Previous-year version of the standard ten-lesson automatic package; no longer sold.",
                      10, 60, "automatic", 0, 58000, 180, 0)

SERVICE_FEES = [
    ("LESSON-60", "Single lesson - 60 min", "single_lesson", 7000, 1),
    ("LESSON-90", "Single lesson - 90 min", "single_lesson", 10000, 1),
    ("RT-CAR-G2", "School car for G2 road test", "road_test_vehicle", 12500, 1),
    ("RT-CAR-G", "School car for G road test", "road_test_vehicle", 15000, 1),
    ("LATE-CANCEL", "Late cancellation (under 24 hours)", "late_cancellation", 4500, 1),
    ("NO-SHOW", "Missed lesson (no-show)", "no_show", 7000, 1),
    ("ADMIN-ENROL", "Enrolment and registration fee", "admin", 3500, 1),
    ("ADMIN-CERT", "Replacement course completion certificate", "admin", 2500, 1),
    ("PICKUP-FAR", "Out-of-area pickup surcharge", "other", 2000, 1),
    ("WEEKEND-SUR", "Weekend lesson surcharge (discontinued)", "other", 1000, 0),
]

SKILLS = [
    ("VC-STEER", "Steering control", "vehicle_control"),
    ("VC-SPEED", "Smooth acceleration and braking", "vehicle_control"),
    ("VC-CLUTCH", "Clutch control and hill starts", "vehicle_control"),
    ("TR-INTER", "Intersections and right-of-way", "traffic"),
    ("TR-LANE", "Lane changes", "traffic"),
    ("TR-ROUND", "Roundabouts", "traffic"),
    ("TR-SIGNS", "Signs, signals and school zones", "traffic"),
    ("MN-PARALLEL", "Parallel parking", "manoeuvres"),
    ("MN-3POINT", "Three-point turn", "manoeuvres"),
    ("MN-REVERSE", "Reverse into a parking space", "manoeuvres"),
    ("HW-MERGE", "Highway merging and exiting", "highway"),
    ("HW-FOLLOW", "Following distance at speed", "highway"),
    ("HZ-MIRROR", "Mirror and blind-spot checks", "hazard_awareness"),
    ("HZ-SCAN", "Hazard scanning and anticipation", "hazard_awareness"),
    ("HZ-NIGHT", "Night-time visibility and glare", "hazard_awareness"),
    ("RT-ROUTE", "Test route familiarity", "test_readiness"),
    ("RT-MOCK", "Mock test performance", "test_readiness"),
]
LESSON_SKILL_CATS = {
    "standard": ["vehicle_control", "traffic", "hazard_awareness"],
    "parking": ["manoeuvres"],
    "highway": ["highway", "traffic"],
    "night": ["hazard_awareness", "traffic"],
    "mock_test": ["test_readiness", "manoeuvres", "traffic"],
    "refresher": ["traffic", "hazard_awareness", "manoeuvres", "highway"],
}

PATTERNS = [
    [("08:00", "16:00")],
    [("09:00", "17:00")],
    [("10:00", "18:00")],
    [("12:00", "20:00")],
    [("07:30", "12:30"), ("15:30", "20:30")],
    [("08:00", "12:00"), ("14:00", "19:00")],
]

MAINT = {
    "oil_change": (120, 6000, 9500, ["Synthetic oil and filter change", "Oil change and fluid top-up"]),
    "tyres": (180, 45000, 90000, ["Seasonal tyre swap and balance", "Replace two worn front tyres"]),
    "brakes": (300, 25000, 60000, ["Front brake pads and rotors", "Brake inspection and rear pad replacement"]),
    "inspection": (120, 8000, 15000, ["Annual safety inspection", "Dual-control pedal inspection and adjustment"]),
    "repair": (420, 20000, 180000, ["Rear bumper repair after parking-lot scrape", "Replace cracked windshield",
                                    "Alternator replacement"]),
    "cleaning": (90, 2500, 6000, ["Interior detail and sanitising", "Full wash and salt removal"]),
    "other": (120, 5000, 20000, ["Replace wiper blades and bulbs", "Install new school roof sign"]),
}
VENDORS = ["Midas Kitchener", "Canadian Tire Auto Centre", "Fairway Ford Service", "Kal Tire Waterloo",
           "Speedy Auto Glass", "Jiffy Lube Cambridge", "Guelph Toyota Service", "In-house"]

AUTO_MODELS = [("Toyota", "Corolla"), ("Honda", "Civic"), ("Mazda", "Mazda3"), ("Hyundai", "Elantra"),
               ("Kia", "Forte"), ("Toyota", "Yaris"), ("Nissan", "Sentra"), ("Chevrolet", "Malibu")]
MANUAL_MODELS = [("Honda", "Civic"), ("Mazda", "Mazda3"), ("Volkswagen", "Golf"), ("Hyundai", "Elantra")]
COLOURS = ["White", "Silver", "Grey", "Blue", "Red", "Black"]

SPECIALTIES = ["nervous beginners", "highway driving", "manual transmission", "road test preparation",
               "winter driving", "defensive driving", "new-to-Canada drivers", "parallel parking"]

CANCEL_REASONS = {
    "student": ["Exam conflict", "Feeling unwell", "Work shift changed", "Family commitment",
                "School event", "Car trouble getting to pickup point", "Forgot about an appointment"],
    "instructor": ["Instructor illness", "Instructor schedule conflict", "Instructor attending training"],
    "school": ["Freezing rain warning - lessons suspended", "Vehicle breakdown", "Snowstorm closure",
               "Double-booked in error"],
}
TEST_CANCEL_REASONS = ["Student not ready - rescheduling later", "DriveTest centre cancelled (weather)",
                       "Student illness", "Moved to an earlier slot at another centre", "Permit renewal pending"]
PASS_NOTES = ["Passed. Smooth lane changes; one minor on a rolling stop.",
              "Passed with two minor marks for late signalling.",
              "Passed. Examiner noted excellent observation at intersections.",
              "Passed. Minor: wide turn on the parallel-park setup."]
FAIL_NOTES = ["Failed: did not come to a full stop at a stop sign.",
              "Failed: unsafe lane change without a shoulder check.",
              "Failed: speeding in a school zone.",
              "Failed: examiner intervention during a left turn.",
              "Failed: too many minor marks on parking and roundabout."]
TEST_TIMES = ["08:30", "09:15", "10:00", "10:45", "11:30", "13:00", "13:45", "14:30", "15:15"]

SUMMARIES = {
    1: "Difficult lesson for {name}: {skill} needs a lot of work and the dual-control brake was used twice.",
    2: "{name} struggled with {skill}; we slowed down and repeated the exercise several times.",
    3: "Steady lesson. {skill} is improving but {name} still needs prompting.",
    4: "Good progress on {skill}; only minor corrections needed today.",
    5: "Excellent lesson - {name} handled {skill} smoothly and confidently.",
}
RATING_COMMENTS = {1: "Needs full support", 2: "Inconsistent", 3: "Getting there", 4: "Good", 5: "Test standard"}
STUDENT_NOTES = ["Prefers evening lessons", "Nervous driver - go slowly", "Pickup from school on weekdays",
                 "Needs lessons after 4 pm", "Hearing aid - speak clearly", "Left-handed; prefers left mirror check reminders",
                 "Parent pays by e-transfer", "Wants weekend lessons only"]
HOLD_REASONS = ["exam season", "travelling abroad", "injury recovery", "saving up for next package",
                "work schedule change"]
TIME_OFF_NOTES = {"vacation": "Family vacation", "sick": "Doctor's note on file", "training": "MTO instructor upgrade course",
                  "personal": "Personal matters", "other": "Jury duty"}
TO_KINDS = ["past", "future", "requested", "rejected", "cancelled"]


def _slug(s):
    return "".join(ch for ch in s.lower() if ch.isalpha())


def _iso(dt):
    return dt.isoformat(timespec="seconds")


def _mins(hhmm):
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


def _at(d, minutes):
    return datetime(d.year, d.month, d.day) + timedelta(minutes=minutes)


def _phone(rng):
    return "%s-%d-%04d" % (rng.choice(AREA_CODES), rng.randint(200, 989), rng.randint(0, 9999))


def _postal(rng):
    return "N%d%s %d%s%d" % (rng.randint(0, 9), rng.choice(POSTAL_LETTERS), rng.randint(0, 9),
                             rng.choice(POSTAL_LETTERS), rng.randint(0, 9))


def _student_email(rng, first, last):
    sep = rng.choice([".", "_", ""])
    suffix = rng.choice(["", "", str(rng.randint(1, 99)), str(rng.randint(1995, 2009))])
    return "%s%s%s%s@%s" % (_slug(first), sep, _slug(last), suffix, rng.choice(EMAIL_DOMAINS))


def _days_span(start, end):
    d = start.date()
    last = (end - timedelta(seconds=1)).date()
    out = []
    while d <= last:
        out.append(d)
        d += timedelta(days=1)
    return out


def _is_free(busy, kind, key, start, end):
    for d in _days_span(start, end):
        for s, e in busy.get((kind, key, d), []):
            if s < end and start < e:
                return False
    return True


def _reserve(busy, kind, key, start, end):
    for d in _days_span(start, end):
        busy.setdefault((kind, key, d), []).append((start, end))


def _between(rng, lo, hi):
    if hi <= lo:
        return lo
    mins = int((hi - lo).total_seconds() // 60)
    return lo + timedelta(minutes=rng.randint(0, mins))


def _weekday_back(d):
    while d.weekday() >= 5:
        d -= timedelta(days=1)
    return d


def _weekday_fwd(d):
    while d.weekday() >= 5:
        d += timedelta(days=1)
    return d


def _veh_ok(vm, trans, day):
    if vm["trans"] != trans or day < vm["acquired"] or day > vm["valid_until"]:
        return False
    return vm["retired"] is None or day < vm["retired"]


def _ins_ok(im, day, trans):
    if day < im["hired"] or day > im["expiry"]:
        return False
    if im["left"] is not None and day >= im["left"]:
        return False
    return trans != "manual" or im["manual"] == 1


def _find_slot(rng, S, stu, day, minutes, order, clock, allow_future):
    if day > stu["valid_until"]:
        return None
    busy = S["busy"]
    wd = day.weekday()
    for iid in order:
        im = S["ins_meta"][iid]
        if not _ins_ok(im, day, stu["trans"]):
            continue
        wins = [w for w in S["avail"][iid].get(wd, []) if w[2] == stu["home"]]
        rng.shuffle(wins)
        for ws, we, br in wins:
            starts = list(range(ws, we - minutes + 1, 30))
            rng.shuffle(starts)
            for sm in starts[:6]:
                start = _at(day, sm)
                end = start + timedelta(minutes=minutes)
                if start < clock < end:
                    continue
                if end > clock and not allow_future:
                    continue
                if not _is_free(busy, "i", iid, start, end) or not _is_free(busy, "s", stu["sid"], start, end):
                    continue
                vids = [v for v in S["veh_by_branch"][br] if _veh_ok(S["veh_meta"][v], stu["trans"], day)]
                rng.shuffle(vids)
                for vid in vids:
                    if _is_free(busy, "v", vid, start, end):
                        return (iid, vid, br, start, end)
    return None


def _find_escort(rng, S, stu, day, rs, re_, order):
    busy = S["busy"]
    wd = day.weekday()
    a, b = rs.hour * 60 + rs.minute, re_.hour * 60 + re_.minute
    for iid in order:
        im = S["ins_meta"][iid]
        if not _ins_ok(im, day, stu["trans"]):
            continue
        for ws, we, br in S["avail"][iid].get(wd, []):
            if br != stu["home"] or ws > a or we < b:
                continue
            if not _is_free(busy, "i", iid, rs, re_):
                continue
            vids = [v for v in S["veh_by_branch"][br] if _veh_ok(S["veh_meta"][v], stu["trans"], day)]
            rng.shuffle(vids)
            for vid in vids:
                if _is_free(busy, "v", vid, rs, re_):
                    return iid, vid
    return None


def build(ctx):
    rng = ctx.rng
    clock = ctx.clock.replace(microsecond=0)
    today = ctx.today
    T = {t: [] for t in TABLES}
    busy = {}
    factor = rng.choice([0.9, 0.95, 1.0, 1.05, 1.1, 1.15])

    def money(c):
        return max(500, int(round(c * factor / 500.0)) * 500)

    def bt(d):
        return _at(d, rng.randint(108, 227) * 5)

    # ------------------------------------------------------------------ branches
    nb = ctx.n(rng.choice([2, 2, 3]), 4)
    pool = list(BRANCH_POOL)
    rng.shuffle(pool)
    for i, (code, area, addr, city, pc) in enumerate(pool[:nb], 1):
        T["branches"].append({"id": i, "code": code, "name": "Green Light Driving Academy - " + area,
                              "address": addr, "city": city, "postal_code": pc, "phone": _phone(rng),
                              "email": code.lower() + "@" + STAFF_DOMAIN, "is_active": 1})
    branch_ids = [b["id"] for b in T["branches"]]
    branch_of = {b["id"]: b for b in T["branches"]}

    # ------------------------------------------------------------------ test centres
    tcp = list(TEST_CENTRE_POOL)
    rng.shuffle(tcp)
    ntc = rng.randint(3, 5)
    closed = ntc >= 4 and rng.random() < 0.6
    for i, (code, name, addr, city) in enumerate(tcp[:ntc], 1):
        T["test_centres"].append({"id": i, "code": code, "name": name, "address": addr, "city": city,
                                  "phone": _phone(rng), "is_active": 0 if (closed and i == ntc) else 1})
    active_tc = [t["id"] for t in T["test_centres"] if t["is_active"] == 1]

    # ------------------------------------------------------------------ staff
    n_staff = ctx.n(7, 24)
    roles = ["owner"] + ["manager"] * nb + ["accounts"] * (1 if n_staff < 15 else 2)
    roles += ["front_desk"] * max(2, n_staff - len(roles))
    minor = [i for i, r in enumerate(roles) if r in ("front_desk", "accounts")]
    leave_i, term_i = rng.sample(minor, 2)
    staff_meta = []
    seen_work_email = set()
    for i, role in enumerate(roles):
        sid = i + 1
        first, last = ctx.faker.first_name(), ctx.faker.last_name()
        email = ctx.unique(lambda: "%s.%s%s@%s" % (_slug(first), _slug(last),
                                                   "" if rng.random() < 0.7 else str(rng.randint(2, 9)),
                                                   STAFF_DOMAIN), seen_work_email)
        if role == "owner":
            hired = today - timedelta(days=rng.randint(2600, 4200))
        elif role == "manager":
            hired = today - timedelta(days=rng.randint(800, 2600))
        else:
            hired = today - timedelta(days=rng.randint(120, 2000))
        status, term, until = "active", None, None
        if i == term_i:
            status = "terminated"
            term = today - timedelta(days=rng.randint(20, 150))
            if hired > term - timedelta(days=200):
                hired = term - timedelta(days=rng.randint(200, 700))
            until = term
        elif i == leave_i:
            status = "on_leave"
            until = today - timedelta(days=rng.randint(5, 20))
        if role == "manager":
            br = branch_ids[(i - 1) % nb]
        elif role in ("owner", "accounts"):
            br = branch_ids[0]
        else:
            br = branch_ids[i % nb]
        T["staff"].append({"id": sid, "employee_code": "ST%03d" % sid, "full_name": first + " " + last,
                           "email": email, "phone": _phone(rng), "role": role, "branch_id": br,
                           "status": status, "hired_on": hired.isoformat(),
                           "terminated_on": term.isoformat() if term else None})
        staff_meta.append({"id": sid, "role": role, "hired": hired, "until": until})

    def staff_at(when, roles_=DESK_ROLES):
        d = when.date()
        c = [m["id"] for m in staff_meta if m["role"] in roles_ and m["hired"] <= d
             and (m["until"] is None or d < m["until"])]
        return rng.choice(c) if c else 1

    # ------------------------------------------------------------------ instructors
    n_ins = ctx.n(7, 40)
    specials = rng.sample(list(range(nb, n_ins)), 3)
    expiring = rng.randrange(n_ins)
    ins_meta = {}
    seen_lic = set()
    for i in range(n_ins):
        iid = i + 1
        first, last = ctx.faker.first_name(), ctx.faker.last_name()
        email = ctx.unique(lambda: "%s.%s%s@%s" % (_slug(first), _slug(last),
                                                   "" if rng.random() < 0.7 else str(rng.randint(2, 9)),
                                                   STAFF_DOMAIN), seen_work_email)
        lic = ctx.unique(lambda: "DI%06d" % rng.randint(100000, 999999), seen_lic)
        home = branch_ids[i % nb]
        manual = 1 if i < nb else (1 if rng.random() < 0.35 else 0)
        hired = today - timedelta(days=rng.randint(420, 3600))
        status, left = "active", None
        if i == specials[0]:
            status = "on_leave"
        elif i == specials[1]:
            status = "inactive"
            left = today - timedelta(days=rng.randint(45, 120))
            hired = left - timedelta(days=rng.randint(300, 1500))
        elif i == specials[2]:
            hired = today - timedelta(days=rng.randint(30, 90))
        expiry = today + timedelta(days=rng.randint(60, 1400))
        if i == expiring:
            expiry = today + timedelta(days=rng.randint(5, 40))
        years = max(1, (today - hired).days // 365) + rng.randint(0, 8)
        bio = "%s has coached new drivers for %d years and specialises in %s." % (
            first, years, rng.choice(SPECIALTIES))
        T["instructors"].append({"id": iid, "employee_code": "IN%03d" % iid, "full_name": first + " " + last,
                                 "email": email, "phone": _phone(rng), "instructor_licence_number": lic,
                                 "licence_expiry_date": expiry.isoformat(), "home_branch_id": home,
                                 "can_teach_manual": manual, "hourly_rate_cents": rng.randrange(3000, 4600, 100),
                                 "status": status, "hired_on": hired.isoformat(), "bio": bio})
        ins_meta[iid] = {"idx": i, "home": home, "manual": manual, "hired": hired, "left": left,
                         "expiry": expiry, "status": status, "leave_start": None}
    ins_ids = [r["id"] for r in T["instructors"]]

    # ------------------------------------------------------------------ availability
    avail = {}
    ins_at_branch = {b: [] for b in branch_ids}
    aid = 0
    for iid in ins_ids:
        m = ins_meta[iid]
        days = sorted(rng.sample([0, 1, 2, 3, 4, 5], rng.randint(4, 5)))
        if rng.random() < 0.15:
            days.append(6)
        pref = rng.choice(PATTERNS)
        avail[iid] = {}
        for wd in days:
            pat = pref if rng.random() < 0.7 else rng.choice(PATTERNS)
            br = m["home"]
            if nb > 1 and m["idx"] >= nb and rng.random() < 0.15:
                br = rng.choice([b for b in branch_ids if b != m["home"]])
            for s, e in pat:
                aid += 1
                T["instructor_availability"].append({"id": aid, "instructor_id": iid, "weekday": wd,
                                                     "start_time": s, "end_time": e, "branch_id": br})
                avail[iid].setdefault(wd, []).append((_mins(s), _mins(e), br))
            if iid not in ins_at_branch[br]:
                ins_at_branch[br].append(iid)

    # ------------------------------------------------------------------ time off
    def add_time_off(iid, kind):
        m = ins_meta[iid]
        if kind == "leave":
            s = today - timedelta(days=rng.randint(3, 14))
            e = today + timedelta(days=rng.randint(10, 40))
            st, reason = "approved", rng.choice(["sick", "personal", "other"])
        elif kind == "past":
            s = today - timedelta(days=rng.randint(20, 220))
            e = s + timedelta(days=rng.randint(0, 6))
            st, reason = "approved", rng.choice(["vacation", "vacation", "training", "personal", "sick"])
        elif kind == "future":
            s = today + timedelta(days=rng.randint(4, 50))
            e = s + timedelta(days=rng.randint(0, 4))
            st, reason = "approved", rng.choice(["vacation", "training", "personal"])
        elif kind == "requested":
            s = today + timedelta(days=rng.randint(7, 60))
            e = s + timedelta(days=rng.randint(0, 3))
            st, reason = "requested", rng.choice(["vacation", "personal", "training", "other"])
        elif kind == "rejected":
            s = today + timedelta(days=rng.randint(-90, 40))
            e = s + timedelta(days=rng.randint(0, 5))
            st, reason = "rejected", rng.choice(["vacation", "personal", "other"])
        else:
            s = today + timedelta(days=rng.randint(-120, 45))
            e = s + timedelta(days=rng.randint(0, 3))
            st, reason = "cancelled", rng.choice(["vacation", "personal", "training"])
        if s < m["hired"] + timedelta(days=14):
            return False
        if m["left"] is not None and e >= m["left"]:
            return False
        start, end = _at(s, 0), _at(e + timedelta(days=1), 0)
        if not _is_free(busy, "t", iid, start, end):
            return False
        _reserve(busy, "t", iid, start, end)
        if st in ("approved", "requested"):
            _reserve(busy, "i", iid, start, end)
        if kind == "leave":
            req = bt(s - timedelta(days=rng.randint(1, 3)))
        else:
            req = bt(s - timedelta(days=rng.randint(7, 40)))
        if req > clock - timedelta(days=1):
            req = clock - timedelta(days=1, minutes=rng.randint(0, 600))
        if req < _at(m["hired"], 540):
            req = _at(m["hired"], 540)
        decided = None
        approver = None
        if st in ("approved", "rejected"):
            decided = min(req + timedelta(hours=rng.randint(2, 20)), clock)
            approver = staff_at(decided, MGR_ROLES)
        T["instructor_time_off"].append({
            "id": len(T["instructor_time_off"]) + 1, "instructor_id": iid, "start_at": _iso(start),
            "end_at": e.isoformat() + "T23:59:59", "reason": reason, "status": st, "requested_at": _iso(req),
            "approved_by_staff_id": approver,
            "notes": TIME_OFF_NOTES[reason] if rng.random() < 0.6 else None, "_decided": decided})
        if kind == "leave":
            m["leave_start"] = start
        return True

    for iid in ins_ids:
        if ins_meta[iid]["status"] == "on_leave":
            add_time_off(iid, "leave")
        for k in rng.sample(TO_KINDS, rng.randint(0, 2)):
            add_time_off(iid, k)
    present = [r["status"] for r in T["instructor_time_off"]]
    active_ins = [iid for iid in ins_ids if ins_meta[iid]["status"] == "active"]
    for k, st in (("requested", "requested"), ("rejected", "rejected"), ("cancelled", "cancelled"),
                  ("past", "approved")):
        if st not in present:
            for _ in range(25):
                if add_time_off(rng.choice(active_ins), k):
                    break

    # ------------------------------------------------------------------ vehicles
    n_veh = ctx.n(8, 44)
    retired_idx = [n_veh - 1] + ([n_veh - 3] if n_veh >= 20 else [])
    service_i = n_veh - 2
    veh_meta = {}
    veh_by_branch = {b: [] for b in branch_ids}
    seen_plate, seen_vin = set(), set()
    for i in range(n_veh):
        vid = i + 1
        br = branch_ids[i % nb]
        if i < nb:
            trans = "manual"
        elif i < 2 * nb:
            trans = "automatic"
        else:
            trans = "manual" if rng.random() < 0.12 else "automatic"
        make, model = rng.choice(MANUAL_MODELS if trans == "manual" else AUTO_MODELS)
        year = rng.randint(2018, 2023) if i < 2 * nb else rng.randint(2019, 2025)
        acquired = min(date(year, rng.randint(1, 12), rng.randint(1, 28)),
                       today - timedelta(days=rng.randint(200, 420)))
        if i < 2 * nb:
            acquired = min(acquired, today - timedelta(days=400))
        status, retired = "available", None
        if i in retired_idx:
            status = "retired"
            retired = today - timedelta(days=rng.randint(20, 120))
            acquired = min(acquired, retired - timedelta(days=700))
        elif i == service_i:
            status = "in_service"
        ref = retired if retired else today
        odo = rng.randint(8000, 30000) + (ref - acquired).days * rng.randint(45, 95)
        if retired:
            ins_exp = retired + timedelta(days=rng.randint(-20, 60))
            reg_exp = retired + timedelta(days=rng.randint(0, 120))
        else:
            ins_exp = today + timedelta(days=rng.randint(15, 365))
            reg_exp = today + timedelta(days=rng.randint(10, 365))
        plate = ctx.unique(lambda: "".join(rng.choice(PLATE_LETTERS) for _ in range(4)) + " " +
                           str(rng.randint(100, 999)), seen_plate)
        vin = ctx.unique(lambda: "".join(rng.choice(VIN_CHARS) for _ in range(17)), seen_vin)
        T["vehicles"].append({"id": vid, "plate_number": plate, "vin": vin, "make": make, "model": model,
                              "model_year": year, "colour": rng.choice(COLOURS), "transmission": trans,
                              "dual_controls": 1, "home_branch_id": br, "odometer_km": odo,
                              "insurance_expiry_date": ins_exp.isoformat(),
                              "registration_expiry_date": reg_exp.isoformat(), "status": status,
                              "acquired_on": acquired.isoformat(),
                              "retired_on": retired.isoformat() if retired else None})
        veh_meta[vid] = {"branch": br, "trans": trans, "acquired": acquired, "retired": retired, "odo": odo,
                         "valid_until": min(ins_exp, reg_exp), "status": status, "service_start": None}
        veh_by_branch[br].append(vid)

    # ------------------------------------------------------------------ maintenance
    maint = []

    def add_maint(vid, kind, mtype=None):
        vm = veh_meta[vid]
        if mtype is None:
            mtype = ctx.weighted({"oil_change": 5, "inspection": 3, "tyres": 2, "brakes": 2, "cleaning": 2,
                                  "repair": 1, "other": 1})
        minutes, lo_c, hi_c, descs = MAINT[mtype]
        if kind == "completed":
            day = today - timedelta(days=rng.randint(5, 300))
            if vm["retired"] is not None and day >= vm["retired"]:
                day = vm["retired"] - timedelta(days=rng.randint(5, 60))
            if day <= vm["acquired"] + timedelta(days=10):
                return False
        elif kind == "scheduled":
            if vm["retired"] is not None:
                return False
            day = today + timedelta(days=rng.randint(2, 40))
        elif kind == "cancelled":
            day = today + timedelta(days=rng.randint(-200, 30))
            if (vm["retired"] is not None and day >= vm["retired"]) or day <= vm["acquired"]:
                return False
        else:
            day = today - timedelta(days=rng.randint(0, 2))
        start = _at(day, 480)
        if kind == "in_progress":
            end = _at(today + timedelta(days=rng.randint(1, 4)), 1020)
        else:
            end = start + timedelta(minutes=minutes)
        if kind != "cancelled":
            if not _is_free(busy, "v", vid, start, end):
                return False
            _reserve(busy, "v", vid, start, end)
        created = bt(day - timedelta(days=rng.randint(1, 14)))
        if created > clock - timedelta(hours=1):
            created = clock - timedelta(hours=rng.randint(1, 48))
        cost = rng.randint(lo_c // 100, hi_c // 100) * 100
        odo = None
        completed_at = None
        status = kind
        if kind == "completed":
            refd = vm["retired"] if vm["retired"] else today
            odo = max(1000, vm["odo"] - (refd - day).days * rng.randint(40, 80))
            completed_at = _iso(min(end + timedelta(minutes=rng.randint(0, 90)), clock))
        elif kind == "in_progress":
            odo = vm["odo"]
            vm["service_start"] = start
        elif kind == "cancelled":
            cost = 0
        vendor = "In-house" if mtype == "cleaning" and rng.random() < 0.6 else rng.choice(VENDORS)
        maint.append({"id": None, "work_order_number": None, "vehicle_id": vid, "maintenance_type": mtype,
                      "description": rng.choice(descs), "scheduled_start_at": _iso(start),
                      "scheduled_end_at": _iso(end), "status": status, "odometer_km": odo, "cost_cents": cost,
                      "vendor": vendor, "created_by_staff_id": staff_at(created), "created_at": _iso(created),
                      "completed_at": completed_at, "_start": start})
        return True

    veh_ids = [v["id"] for v in T["vehicles"]]
    add_maint(veh_ids[service_i], "in_progress", rng.choice(["repair", "brakes"]))
    for vid in veh_ids:
        for _ in range(rng.randint(2, 4)):
            add_maint(vid, ctx.weighted({"completed": 6, "scheduled": 2, "cancelled": 1}))
    for kind in ("scheduled", "cancelled"):
        if kind not in [m["status"] for m in maint]:
            for _ in range(25):
                if add_maint(rng.choice(veh_ids), kind):
                    break
    maint.sort(key=lambda r: (r["_start"], r["vehicle_id"]))
    for i, r in enumerate(maint, 1):
        r["id"] = i
        r["work_order_number"] = "WO-%s-%04d" % (r["scheduled_start_at"][:4], i)
    T["vehicle_maintenance"] = maint

    S = {"busy": busy, "ins_meta": ins_meta, "avail": avail, "veh_by_branch": veh_by_branch,
         "veh_meta": veh_meta}

    # ------------------------------------------------------------------ catalog
    pkg = {}
    pk_list = list(PACKAGES) + ([DISTRACTOR_PACKAGE] if ctx.distractors else [])
    for i, (code, name, desc, cnt_, mins, trans, incl, base, valid, active) in enumerate(pk_list, 1):
        row = {"id": i, "code": code, "name": name, "description": desc, "lesson_count": cnt_,
               "lesson_minutes": mins, "transmission": trans, "includes_road_test_vehicle": incl,
               "price_cents": money(base), "validity_days": valid, "is_active": active}
        T["lesson_packages"].append(row)
        pkg[code] = row
    fee = {}
    for i, (code, name, ftype, amount, active) in enumerate(SERVICE_FEES, 1):
        row = {"id": i, "code": code, "name": name, "fee_type": ftype, "amount_cents": money(amount),
               "is_active": active}
        T["service_fees"].append(row)
        fee[code] = row
    skill_rows = []
    for i, (code, name, cat) in enumerate(SKILLS, 1):
        skill_rows.append({"id": i, "code": code, "name": name, "category": cat, "sort_order": i * 10})
    T["skills"] = skill_rows

    # ------------------------------------------------------------------ helpers for students
    purchases, lessons, tests, notes, charges = [], [], [], [], []
    cnt = {"p": 0, "l": 0, "t": 0, "n": 0, "c": 0}

    def instr_order(stu):
        pool_ = [i for i in ins_at_branch[stu["home"]] if i != stu["primary"]]
        rng.shuffle(pool_)
        pool_ = pool_[:3]
        if stu["primary"] is None:
            return pool_
        if rng.random() < 0.85:
            return [stu["primary"]] + pool_
        return pool_ + [stu["primary"]]

    def pickup(stu, br):
        r = rng.random()
        if r < 0.7:
            return stu["address"] + ", " + stu["city"]
        if r < 0.85:
            b = branch_of[br]
            return b["address"] + ", " + b["city"] + " (branch office)"
        return ctx.faker.street_address() + ", " + rng.choice(STUDENT_CITIES)

    def new_charge(sid_, ctype, desc, amount, created, plan, purchase=None, lesson=None, test=None,
                   fee_id=None, online=False):
        cnt["c"] += 1
        charges.append({"_n": cnt["c"], "_plan": plan, "_created": created, "id": None, "charge_number": None,
                        "student_id": sid_, "charge_type": ctype, "description": desc, "amount_cents": amount,
                        "purchase_id": purchase, "lesson_id": lesson, "road_test_id": test, "fee_id": fee_id,
                        "status": None, "created_at": _iso(created),
                        "created_by_staff_id": None if online else staff_at(created),
                        "waived_at": None, "waived_by_staff_id": None})

    def fee_plan(created, p_paid, p_open):
        r = rng.random()
        if r < p_paid:
            at = created + timedelta(minutes=rng.randint(10, 60 * 24 * 6))
            if at <= clock - timedelta(minutes=5):
                return {"mode": "paid", "at": at}
            return {"mode": "open"}
        if r < p_paid + p_open:
            return {"mode": "open"}
        at = created + timedelta(minutes=rng.randint(60, 60 * 24 * 3))
        if at > clock:
            at = _between(rng, created, clock)
        return {"mode": "waived", "at": at}

    def booking_time(start, floor):
        c = start - timedelta(hours=rng.randint(20, 24 * 18))
        if c > clock - timedelta(minutes=20):
            c = clock - timedelta(minutes=rng.randint(20, 60 * 24 * 4))
        lo = floor + timedelta(minutes=30)
        if c < lo:
            c = lo
        return c

    def pick_cancel(start, created):
        lo = created + timedelta(minutes=30)
        hi = min(start - timedelta(minutes=30), clock)
        if hi <= lo:
            return None
        by = ctx.weighted({"student": 60, "instructor": 25, "school": 15})
        if by == "student" and rng.random() < 0.35:
            c = start - timedelta(minutes=rng.randint(120, 1200))
            if c < lo or c > hi:
                c = _between(rng, lo, hi)
        else:
            hi2 = min(hi, start - timedelta(hours=26))
            c = _between(rng, lo, hi2) if hi2 > lo else _between(rng, lo, hi)
        late = 1 if (by == "student" and start - c < timedelta(hours=24)) else 0
        return c, by, late

    def new_lesson(stu, slot, ltype, minutes, pur, price_c, created):
        cnt["l"] += 1
        iid, vid, br, start, end = slot
        online = rng.random() < 0.2
        row = {"_n": cnt["l"], "_start": start, "_end": end, "_created": created, "_online": online,
               "id": None, "booking_ref": None, "student_id": stu["sid"], "instructor_id": iid,
               "vehicle_id": vid, "branch_id": br, "purchase_id": pur["_n"] if pur else None,
               "lesson_type": ltype, "start_at": _iso(start), "end_at": _iso(end), "duration_minutes": minutes,
               "pickup_address": pickup(stu, br), "price_cents": price_c, "status": "scheduled",
               "created_at": _iso(created), "created_by_staff_id": None if online else staff_at(created),
               "completed_at": None, "cancelled_at": None, "cancelled_by": None, "cancel_reason": None,
               "late_cancellation": 0, "rescheduled_from_lesson_id": None}
        lessons.append(row)
        stu["lessons"].append(row)
        return row

    def lesson_charge(stu, row, fee_row, created, cancelled_at=None):
        desc = "Single %d-min lesson on %s" % (row["duration_minutes"], row["start_at"][:16].replace("T", " "))
        if cancelled_at is not None:
            plan = {"mode": "waived", "at": cancelled_at}
        elif row["status"] in ("completed", "no_show"):
            if rng.random() < 0.85:
                plan = {"mode": "paid", "at": _between(rng, created, min(row["_end"], clock))}
            else:
                plan = {"mode": "open"}
        else:
            if rng.random() < 0.45:
                plan = {"mode": "paid", "at": _between(rng, created, clock - timedelta(minutes=5))}
            else:
                plan = {"mode": "open"}
        new_charge(stu["sid"], "single_lesson", desc, row["price_cents"], created, plan, lesson=row["_n"],
                   fee_id=fee_row["id"], online=row["_online"])

    def book(stu, slot, ltype, minutes, pur, price_c, floor, fee_row=None):
        iid, vid, br, start, end = slot
        _reserve(busy, "i", iid, start, end)
        _reserve(busy, "s", stu["sid"], start, end)
        _reserve(busy, "v", vid, start, end)
        created = booking_time(start, floor)
        resched = None
        if rng.random() < 0.12:
            day = start.date()
            d0 = day - timedelta(days=rng.randint(0, 3))
            if d0 <= floor.date():
                d0 = day
            s0 = _find_slot(rng, S, stu, d0, minutes, instr_order(stu), clock, True)
            if s0 is not None:
                c0 = booking_time(s0[3], floor)
                ci = pick_cancel(s0[3], c0)
                if ci is not None:
                    _reserve(busy, "i", s0[0], s0[3], s0[4])
                    _reserve(busy, "s", stu["sid"], s0[3], s0[4])
                    _reserve(busy, "v", s0[1], s0[3], s0[4])
                    otype = ltype if ltype != "night" else "standard"
                    orig = new_lesson(stu, s0, otype, minutes, pur, price_c, c0)
                    c, by, late = ci
                    orig.update({"status": "cancelled", "cancelled_at": _iso(c), "cancelled_by": by,
                                 "cancel_reason": rng.choice(CANCEL_REASONS[by]), "late_cancellation": late})
                    orig["_cancelled"] = c
                    if fee_row is not None:
                        lesson_charge(stu, orig, fee_row, c0, cancelled_at=c)
                    if late:
                        lf = fee["LATE-CANCEL"]
                        new_charge(stu["sid"], "late_cancellation",
                                   "Late cancellation fee - lesson on " + orig["start_at"][:16].replace("T", " "),
                                   lf["amount_cents"], c, fee_plan(c, 0.55, 0.30), lesson=orig["_n"],
                                   fee_id=lf["id"])
                    if rng.random() < 0.6 and c + timedelta(minutes=45) < start:
                        created = min(c + timedelta(minutes=rng.randint(2, 30)), clock)
                        resched = orig["_n"]
        row = new_lesson(stu, slot, ltype, minutes, pur, price_c, created)
        row["rescheduled_from_lesson_id"] = resched
        if start >= clock:
            row["status"] = "scheduled"
            stu["fut"] += 1
        elif rng.random() < 0.05:
            row["status"] = "no_show"
            ns = fee["NO-SHOW"]
            nc = min(end + timedelta(hours=1), clock)
            new_charge(stu["sid"], "no_show", "No-show fee - lesson on " + row["start_at"][:16].replace("T", " "),
                       ns["amount_cents"], nc, fee_plan(nc, 0.5, 0.35), lesson=row["_n"], fee_id=ns["id"])
        else:
            row["status"] = "completed"
            row["completed_at"] = _iso(min(end + timedelta(minutes=rng.randint(0, 20)), clock))
        if fee_row is not None:
            lesson_charge(stu, row, fee_row, created)
        return row

    def lesson_type(code, j, k, stu, start):
        if code == "HIGHWAY-4":
            t = "highway" if j > 0 else "standard"
        elif code == "TESTPREP-3":
            t = "mock_test" if j == k - 1 else rng.choice(["mock_test", "parking", "standard"])
        elif code == "REFRESH-3":
            t = "refresher"
        elif code is None:
            if stu["stage"] == "full":
                t = "refresher"
            else:
                t = ctx.weighted({"standard": 3, "parking": 2, "mock_test": 2, "highway": 1})
        else:
            p = j / max(1.0, k - 1.0)
            if p < 0.3:
                t = "standard"
            else:
                w = {"standard": 5, "parking": 2}
                if p > 0.5:
                    w["highway"] = 1
                if p > 0.75:
                    w["mock_test"] = 2
                t = ctx.weighted(w)
        if start.hour >= 18 and t in ("standard", "refresher") and rng.random() < 0.6:
            t = "night"
        return t

    def run_credits(stu, pur, k_target, limit, avg_gap):
        package = pur["_pkg"]
        minutes = package["lesson_minutes"]
        k = pur["lessons_total"]
        floor = max(stu["enrolled"], pur["_at"])
        d = pur["_at"].date() + timedelta(days=rng.randint(1, 4))
        made, misses, last_day = 0, 0, None
        while made < k_target and d <= limit and misses < 12:
            allow_f = stu["fut"] < stu["fut_cap"]
            if not allow_f and d > today:
                break
            slot = None
            for extra in range(3):
                dd = d + timedelta(days=extra)
                if dd > limit:
                    break
                slot = _find_slot(rng, S, stu, dd, minutes, instr_order(stu), clock, allow_f)
                if slot is not None:
                    break
            if slot is None:
                misses += 1
                d += timedelta(days=rng.randint(1, 3))
                continue
            ltype = lesson_type(package["code"], made, k, stu, slot[3])
            book(stu, slot, ltype, minutes, pur, 0, floor)
            made += 1
            last_day = slot[3].date()
            d = last_day + timedelta(days=max(1, int(round(avg_gap * rng.uniform(0.5, 1.5)))))
        return last_day

    def choose_pkg(stage, trans, second, when):
        if stage == "full":
            opts = {"REFRESH-3": 4, "CONFIDENCE-8": 1}
        elif stage == "probationary":
            opts = {"TESTPREP-3": 3, "HIGHWAY-4": 1} if second else {"HIGHWAY-4": 3, "TESTPREP-3": 2, "STARTER-5": 1}
        elif second:
            opts = {"TESTPREP-3": 3, "STARTER-5": 1, "CONFIDENCE-8": 1}
        else:
            if (clock - when).days > 120 and rng.random() < 0.12:
                return pkg["WINTER-6"]
            opts = {"STARTER-5": 3, "STANDARD-10": 4, "MANUAL-10": 4, "INTENSIVE-20": 1, "CONFIDENCE-8": 1}
        opts = {c: w for c, w in opts.items() if pkg[c]["transmission"] in ("either", trans)}
        if not opts:
            opts = {"STARTER-5": 1}
        return pkg[ctx.weighted(opts)]

    def new_purchase(stu, package, when, status="active"):
        cnt["p"] += 1
        price_c = package["price_cents"]
        r = rng.random()
        disc = 0
        if r < 0.12:
            disc = 2500
        elif r < 0.2:
            disc = int(price_c * 0.1) // 100 * 100
        elif r < 0.24 and price_c > 20000:
            disc = 5000
        online = rng.random() < 0.1
        row = {"_n": cnt["p"], "_at": when, "_pkg": package, "_online": online, "id": None,
               "purchase_number": None, "student_id": stu["sid"], "package_id": package["id"],
               "lessons_total": package["lesson_count"], "lessons_used": 0, "price_cents": price_c,
               "discount_cents": disc, "status": status, "purchased_at": _iso(when),
               "expires_on": (when.date() + timedelta(days=package["validity_days"])).isoformat(),
               "sold_by_staff_id": None if online else staff_at(when), "cancelled_at": None,
               "cancel_reason": None}
        purchases.append(row)
        stu["purchases"].append(row)
        return row

    def later_bt(base, max_days):
        t = bt(base.date() + timedelta(days=rng.randint(0, max_days)))
        if t <= base:
            t = base + timedelta(minutes=rng.randint(5, 90))
        return t

    def make_test(stu, day, klass, want, after=None, cap=None, cancel_at=None):
        if day > stu["valid_until"]:
            return None
        times = list(TEST_TIMES)
        rng.shuffle(times)
        modes = [True, False] if rng.random() < 0.85 else [False]
        chosen = None
        for car in modes:
            for t in times:
                sched = _at(day, _mins(t))
                rs, re_ = sched - timedelta(minutes=45), sched + timedelta(minutes=45)
                if want in ("passed", "failed", "no_show") and re_ > clock:
                    continue
                if want == "booked" and rs <= clock:
                    continue
                if rs < clock < re_:
                    continue
                if not _is_free(busy, "s", stu["sid"], rs, re_):
                    continue
                iid = vid = None
                if car:
                    found = _find_escort(rng, S, stu, day, rs, re_, instr_order(stu))
                    if found is None:
                        continue
                    iid, vid = found
                chosen = (sched, rs, re_, iid, vid)
                break
            if chosen is not None:
                break
        if chosen is None:
            return None
        sched, rs, re_, iid, vid = chosen
        lo = stu["enrolled"] + timedelta(hours=1)
        if after is not None and after + timedelta(minutes=30) > lo:
            lo = after + timedelta(minutes=30)
        hi = min(clock - timedelta(minutes=30), sched - timedelta(days=1))
        if cap is not None and cap - timedelta(hours=2) < hi:
            hi = cap - timedelta(hours=2)
        created = _between(rng, lo, hi) if hi > lo else lo
        if created >= sched or created > clock:
            return None
        _reserve(busy, "s", stu["sid"], rs, re_)
        if iid is not None:
            _reserve(busy, "i", iid, rs, re_)
            _reserve(busy, "v", vid, rs, re_)
        fee_c, pur_ref = 0, None
        if vid is not None:
            pp = [p for p in stu["purchases"] if p["_pkg"]["includes_road_test_vehicle"] == 1
                  and p["status"] not in ("cancelled", "refunded") and p["_at"] < created and not p.get("_rt_used")]
            if pp:
                pur_ref = pp[0]
                pp[0]["_rt_used"] = True
            else:
                fee_c = fee["RT-CAR-G2" if klass == "G2" else "RT-CAR-G"]["amount_cents"]
        cnt["t"] += 1
        row = {"_n": cnt["t"], "_sched": sched, "_created": created, "_result": None, "id": None,
               "test_ref": None, "student_id": stu["sid"], "test_centre_id": rng.choice(active_tc),
               "test_class": klass, "scheduled_at": _iso(sched), "vehicle_id": vid, "escort_instructor_id": iid,
               "purchase_id": pur_ref["_n"] if pur_ref else None, "vehicle_fee_cents": fee_c, "status": want,
               "attempt_number": 1, "examiner_score": None, "result_notes": None,
               "booked_by_staff_id": staff_at(created) if rng.random() < 0.9 else None,
               "created_at": _iso(created), "result_recorded_at": None, "cancelled_at": None, "cancel_reason": None}
        if want in ("passed", "failed", "no_show"):
            rec = min(sched + timedelta(minutes=rng.randint(60, 300)), clock)
            row["result_recorded_at"] = _iso(rec)
            row["_result"] = rec
            if want == "passed":
                row["examiner_score"] = rng.randint(80, 98)
                row["result_notes"] = rng.choice(PASS_NOTES)
            elif want == "failed":
                row["examiner_score"] = rng.randint(40, 76)
                row["result_notes"] = rng.choice(FAIL_NOTES)
            else:
                row["result_notes"] = "Candidate did not attend; DriveTest booking forfeited."
        c = None
        if want == "cancelled":
            if cancel_at is not None:
                c = min(max(cancel_at, created + timedelta(minutes=30)), clock)
            else:
                lo_c = created + timedelta(hours=1)
                hi_c = min(sched - timedelta(hours=2), clock)
                c = _between(rng, lo_c, hi_c) if hi_c > lo_c else min(created + timedelta(minutes=30), clock)
            row["cancelled_at"] = _iso(c)
            row["cancel_reason"] = rng.choice(TEST_CANCEL_REASONS)
            row["_cancelled"] = c
        tests.append(row)
        stu["tests"].append(row)
        if fee_c > 0:
            desc = "School car for %s road test on %s" % (klass, row["scheduled_at"][:10])
            fid = fee["RT-CAR-G2" if klass == "G2" else "RT-CAR-G"]["id"]
            if want == "cancelled":
                plan = {"mode": "waived", "at": c}
            elif want == "booked":
                plan = ({"mode": "paid", "at": _between(rng, created, clock - timedelta(minutes=5))}
                        if rng.random() < 0.6 else {"mode": "open"})
            else:
                plan = ({"mode": "paid", "at": _between(rng, created, sched)}
                        if rng.random() < 0.9 else {"mode": "open"})
            new_charge(stu["sid"], "road_test_vehicle", desc, fee_c, created, plan, test=row["_n"], fee_id=fid)
        return row

    # ------------------------------------------------------------------ student plans
    n_st = ctx.n(50, 330)
    sts = ["enquiry", "active", "on_hold", "graduated", "withdrawn"]
    sts += [ctx.weighted({"enquiry": 8, "active": 55, "on_hold": 8, "graduated": 20, "withdrawn": 9})
            for _ in range(max(0, n_st - 5))]
    enrol_range = {"enquiry": (1, 25), "active": (7, 240), "on_hold": (70, 300), "graduated": (60, 330),
                   "withdrawn": (45, 330)}
    plans = []
    for st in sts:
        lo, hi = enrol_range[st]
        eday = today - timedelta(days=rng.randint(lo, hi))
        stage = ctx.weighted({"learner_permit": 75, "probationary": 18, "full": 7})
        plans.append({"status": st, "enrolled": bt(eday), "stage": stage})
    plans.sort(key=lambda p: p["enrolled"])
    test_roles = ["booked", "failed_booked", "no_show", "cancelled", "failed"]
    wd_roles = ["refund", "cancel"]
    extra_cancel_forced = False
    for p in plans:
        p["test_role"], p["pkg_role"], p["extra_cancel"] = None, None, False
        if p["status"] == "active":
            if not extra_cancel_forced:
                p["extra_cancel"] = True
                extra_cancel_forced = True
            elif rng.random() < 0.04:
                p["extra_cancel"] = True
            if p["stage"] != "full":
                if test_roles:
                    p["test_role"] = test_roles.pop(0)
                else:
                    r = rng.random()
                    p["test_role"] = ("booked" if r < 0.22 else "failed_booked" if r < 0.30 else
                                      "failed" if r < 0.38 else "no_show" if r < 0.43 else
                                      "cancelled" if r < 0.51 else None)
        elif p["status"] == "withdrawn":
            if wd_roles:
                p["pkg_role"] = wd_roles.pop(0)
            else:
                r = rng.random()
                p["pkg_role"] = "refund" if r < 0.3 else ("cancel" if r < 0.45 else None)
    twin_idx = set(rng.sample(list(range(5, len(plans))), 3)) if ctx.distractors else set()

    # ------------------------------------------------------------------ students
    seen_email, seen_permit = set(), set()
    names = []
    student_extra = {}
    adjust_count = [0]
    same_day_count = [0]
    for idx, pl in enumerate(plans):
        sid = idx + 1
        status, stage, enrolled = pl["status"], pl["stage"], pl["enrolled"]
        eday = enrolled.date()
        if idx in twin_idx:
            first, last = names[rng.randrange(len(names))]
        else:
            first, last = ctx.faker.first_name(), ctx.faker.last_name()
        names.append((first, last))
        email = ctx.unique(lambda: _student_email(rng, first, last), seen_email)
        trans = "manual" if rng.random() < 0.15 else "automatic"
        home = rng.choice(branch_ids)
        r = rng.random()
        age = rng.randint(18, 22) if r < 0.65 else (rng.randint(23, 40) if r < 0.9 else rng.randint(41, 66))
        dob = date(today.year - age, rng.randint(1, 12), rng.randint(1, 28))
        dob16 = date(dob.year + 16, dob.month, dob.day)
        if status in ("active", "enquiry") and rng.random() < 0.06:
            issued = today - timedelta(days=rng.randint(1780, 1840))
        else:
            issued = eday - timedelta(days=rng.randint(10, 500))
        if stage != "learner_permit":
            issued = min(issued, eday - timedelta(days=rng.randint(380, 900)))
        if issued < dob16:
            issued = dob16 + timedelta(days=rng.randint(0, 30))
        if issued >= eday:
            issued = eday - timedelta(days=1)
        permit_exp = issued + timedelta(days=1826)
        initial = _slug(last)[:1].upper() or "X"
        permit = ctx.unique(lambda: "%s%04d-%05d-%05d" % (initial, rng.randint(0, 9999), rng.randint(0, 99999),
                                                           rng.randint(0, 99999)), seen_permit)
        cands = [i for i in ins_ids if ins_meta[i]["status"] != "inactive" and ins_meta[i]["home"] == home
                 and (trans == "automatic" or ins_meta[i]["manual"] == 1)]
        primary = rng.choice(cands) if cands else None
        if status == "enquiry" and rng.random() < 0.6:
            primary = None
        city = ctx.pick([branch_of[home]["city"]] * 3 + STUDENT_CITIES)
        address = ctx.faker.street_address()
        stu = {"sid": sid, "home": home, "trans": trans, "primary": primary, "enrolled": enrolled, "stage": stage,
               "address": address, "city": city, "valid_until": permit_exp, "lessons": [], "purchases": [],
               "tests": [], "fut": 0,
               "fut_cap": rng.choice([0, 1, 1, 2, 2, 3, 4]) if status == "active" else 0}
        has_ec = rng.random() < 0.7
        note = None
        if rng.random() < 0.25:
            note = rng.choice(STUDENT_NOTES)
        srow = {"id": sid, "student_number": "S%d%04d" % (eday.year, sid), "full_name": first + " " + last,
                "email": email, "phone": _phone(rng), "date_of_birth": dob.isoformat(), "address": address,
                "city": city, "postal_code": _postal(rng), "permit_number": permit,
                "permit_issued_on": issued.isoformat(), "permit_expiry_date": permit_exp.isoformat(),
                "licence_stage": stage, "preferred_transmission": trans, "home_branch_id": home,
                "primary_instructor_id": primary,
                "emergency_contact_name": (ctx.faker.first_name() + " " + last) if has_ec else None,
                "emergency_contact_phone": _phone(rng) if has_ec else None, "status": status,
                "enrolled_at": _iso(enrolled),
                "enrolled_by_staff_id": staff_at(enrolled) if rng.random() < 0.85 else None,
                "graduated_on": None, "withdrawn_at": None, "notes": note}
        T["students"].append(srow)

        span = (today - eday).days
        grad_day = hold_day = wd_day = withdrawn_at = None
        win = None
        if status == "graduated":
            grad_day = _weekday_back(eday + timedelta(days=rng.randint(40, max(40, span - 2))))
            win = (eday + timedelta(days=1), grad_day - timedelta(days=1))
        elif status == "withdrawn":
            wd_day = eday + timedelta(days=rng.randint(20, max(20, span - 1)))
            withdrawn_at = bt(wd_day)
            win = (eday + timedelta(days=1), wd_day - timedelta(days=1))
        elif status == "on_hold":
            hold_day = today - timedelta(days=rng.randint(14, 60))
            if hold_day < eday + timedelta(days=15):
                hold_day = eday + timedelta(days=15)
            win = (eday + timedelta(days=1), hold_day - timedelta(days=1))
            srow["notes"] = "On hold since %s: %s" % (hold_day.isoformat(), rng.choice(HOLD_REASONS))
        elif status == "active":
            win = (eday + timedelta(days=1), today + timedelta(days=35))
        student_extra[sid] = {"grad_day": grad_day, "hold_day": hold_day, "withdrawn_at": withdrawn_at,
                              "status": status}

        if status != "enquiry":
            af = fee["ADMIN-ENROL"]
            r = rng.random()
            if r < 0.85:
                aplan = {"mode": "paid", "at": enrolled + timedelta(minutes=rng.randint(5, 120))}
            elif r < 0.95:
                aplan = {"mode": "open"}
            else:
                aplan = {"mode": "waived", "at": enrolled + timedelta(minutes=rng.randint(5, 60))}
            new_charge(sid, "admin", af["name"], af["amount_cents"], enrolled, aplan, fee_id=af["id"],
                       online=srow["enrolled_by_staff_id"] is None)

            win_lo, win_hi = win
            n_p = ctx.weighted({1: 62, 2: 30, 0: 8})
            if n_p >= 1:
                p1_at = later_bt(enrolled, 3)
                pk1 = choose_pkg(stage, trans, False, p1_at)
                p1 = new_purchase(stu, pk1, p1_at)
                k_total = pk1["lesson_count"]
                if n_p == 2 or status == "active":
                    k1 = k_total
                elif status == "graduated":
                    k1 = k_total if rng.random() < 0.8 else max(1, int(k_total * rng.uniform(0.5, 0.9)))
                else:
                    k1 = max(1, int(round(k_total * rng.uniform(0.3, 0.9))))
                limit = min(date.fromisoformat(p1["expires_on"]), win_hi)
                if n_p == 2:
                    limit2 = p1_at.date() + timedelta(days=int((win_hi - p1_at.date()).days * 0.7))
                    limit = min(limit, limit2)
                if status == "active" and n_p == 1:
                    avg = rng.uniform(3, 8)
                else:
                    avg = max(1.5, min(8.0, (limit - p1_at.date()).days / (k1 + 1.0)))
                if pk1["code"] == "INTENSIVE-20":
                    avg = min(avg, 3.0)
                last_day = run_credits(stu, p1, k1, limit, avg)
                if n_p == 2 and last_day is not None:
                    p2_at = bt(last_day + timedelta(days=rng.randint(0, 5)))
                    if p2_at <= clock - timedelta(days=1) and p2_at.date() + timedelta(days=2) <= win_hi:
                        pk2 = choose_pkg(stage, trans, True, p2_at)
                        p2 = new_purchase(stu, pk2, p2_at)
                        k2t = pk2["lesson_count"]
                        if status in ("active", "graduated"):
                            k2 = k2t
                        else:
                            k2 = max(1, int(round(k2t * rng.uniform(0.3, 0.9))))
                        lim2 = min(date.fromisoformat(p2["expires_on"]), win_hi)
                        if status == "active":
                            avg2 = rng.uniform(3, 8)
                        else:
                            avg2 = max(1.5, min(8.0, (lim2 - p2_at.date()).days / (k2 + 1.0)))
                        run_credits(stu, p2, k2, lim2, avg2)
            # pay-as-you-go single lessons
            n_payg = rng.randint(2, 5) if n_p == 0 else (rng.randint(1, 3) if rng.random() < 0.25 else 0)
            for _ in range(n_payg):
                sp = (win_hi - win_lo).days
                if sp < 1:
                    break
                d = win_lo + timedelta(days=rng.randint(0, sp))
                allow_f = stu["fut"] < stu["fut_cap"]
                if d > today and not allow_f:
                    continue
                minutes = 60 if rng.random() < 0.7 else 90
                fee_row = fee["LESSON-60"] if minutes == 60 else fee["LESSON-90"]
                slot = _find_slot(rng, S, stu, d, minutes, instr_order(stu), clock, allow_f)
                if slot is None:
                    continue
                book(stu, slot, lesson_type(None, 0, 1, stu, slot[3]), minutes, None, fee_row["amount_cents"],
                     enrolled, fee_row)
            # distractor: a second lesson on the same date
            if ctx.distractors and status == "active" and same_day_count[0] < 3:
                live = [l for l in stu["lessons"] if l["status"] != "cancelled"]
                if live:
                    l0 = rng.choice(live)
                    dday = l0["_start"].date()
                    fee_row = fee["LESSON-60"]
                    slot = _find_slot(rng, S, stu, dday, 60, instr_order(stu), clock, True)
                    if slot is not None:
                        book(stu, slot, lesson_type(None, 0, 1, stu, slot[3]), 60, None, fee_row["amount_cents"],
                             enrolled, fee_row)
                        same_day_count[0] += 1
            # cancelled / refunded purchases
            if pl["extra_cancel"]:
                when = later_bt(enrolled, 20)
                if when <= clock - timedelta(days=3):
                    pkx = choose_pkg(stage, trans, False, when)
                    px = new_purchase(stu, pkx, when, status="cancelled")
                    cx = min(when + timedelta(hours=rng.randint(1, 72)), clock - timedelta(hours=1))
                    px["cancelled_at"] = _iso(cx)
                    px["_cancelled"] = cx
                    px["cancel_reason"] = rng.choice(["Switched to a different package",
                                                      "Duplicate sale entered in error",
                                                      "Customer changed mind within 24 hours"])
            if status == "withdrawn" and pl["pkg_role"] is not None:
                when = bt(wd_day - timedelta(days=rng.randint(3, 15)))
                if when <= enrolled:
                    when = enrolled + timedelta(minutes=30)
                pkx = choose_pkg(stage, trans, True, when)
                if pl["pkg_role"] == "refund":
                    px = new_purchase(stu, pkx, when, status="refunded")
                    px["cancel_reason"] = "Student withdrew - unused package refunded in full"
                else:
                    px = new_purchase(stu, pkx, when, status="cancelled")
                    px["cancel_reason"] = "Student withdrew before first lesson; unpaid package cancelled"
                px["cancelled_at"] = _iso(withdrawn_at)
                px["_cancelled"] = withdrawn_at

            # purchase usage and status
            for pur in stu["purchases"]:
                if pur["status"] in ("cancelled", "refunded"):
                    continue
                used = sum(1 for l in stu["lessons"] if l["purchase_id"] == pur["_n"] and l["status"] != "cancelled")
                pur["lessons_used"] = used
                if used >= pur["lessons_total"]:
                    pur["status"] = "completed"
                elif date.fromisoformat(pur["expires_on"]) < today:
                    pur["status"] = "expired"
                else:
                    pur["status"] = "active"
            # package charges
            for pur in stu["purchases"]:
                amt = pur["price_cents"] - pur["discount_cents"]
                at = pur["_at"]
                if pur["status"] == "refunded":
                    plan = {"mode": "refund", "at": at + timedelta(minutes=rng.randint(1, 20)),
                            "refund_at": pur["_cancelled"]}
                elif pur["status"] == "cancelled":
                    plan = {"mode": "waived", "at": pur["_cancelled"]}
                else:
                    r = rng.random()
                    if status in ("on_hold", "withdrawn"):
                        mode = "paid" if r < 0.7 else ("partial" if r < 0.9 else "open")
                    elif (clock - at).days > 35:
                        mode = "paid" if r < 0.92 else "partial"
                    else:
                        mode = "paid" if r < 0.6 else ("partial" if r < 0.85 else "open")
                    plan = {"mode": mode, "at": at + timedelta(minutes=rng.randint(1, 20)),
                            "split": amt >= 30000 and rng.random() < 0.3}
                new_charge(sid, "package", pur["_pkg"]["name"], amt, at, plan, purchase=pur["_n"],
                           online=pur["_online"])

            # road tests
            klass = "G2" if stage == "learner_permit" else "G"
            if stage != "full":
                if status == "graduated":
                    prev = None
                    if rng.random() < 0.1:
                        cday = eday + timedelta(days=rng.randint(14, 30))
                        if cday < grad_day - timedelta(days=3):
                            make_test(stu, _weekday_back(cday), klass, "cancelled")
                    if rng.random() < 0.3:
                        fday = _weekday_back(grad_day - timedelta(days=rng.randint(14, 35)))
                        if fday >= eday + timedelta(days=14):
                            ft = make_test(stu, fday, klass, "failed")
                            if ft is not None:
                                prev = ft["_result"]
                    make_test(stu, grad_day, klass, "passed", after=prev)
                elif status == "active" and pl["test_role"] is not None:
                    role = pl["test_role"]
                    prev = None
                    if role in ("failed_booked", "failed"):
                        fday = _weekday_back(today - timedelta(days=rng.randint(7, 60)))
                        if fday >= eday + timedelta(days=10):
                            ft = make_test(stu, fday, klass, "failed")
                            if ft is not None:
                                prev = ft["_result"]
                    if role in ("booked", "failed_booked"):
                        bday = _weekday_fwd(today + timedelta(days=rng.randint(3, 45)))
                        make_test(stu, bday, klass, "booked", after=prev)
                    elif role == "no_show":
                        nday = _weekday_back(today - timedelta(days=rng.randint(5, 60)))
                        if nday >= eday + timedelta(days=10):
                            make_test(stu, nday, klass, "no_show")
                    elif role == "cancelled":
                        cday = today + timedelta(days=rng.randint(-30, 30))
                        cday = _weekday_back(cday) if cday < today else _weekday_fwd(cday)
                        if cday >= eday + timedelta(days=10):
                            make_test(stu, cday, klass, "cancelled")
                elif status == "on_hold" and rng.random() < 0.2:
                    fday = _weekday_back(hold_day - timedelta(days=rng.randint(3, 20)))
                    if fday >= eday + timedelta(days=10):
                        make_test(stu, fday, klass, "failed")
                elif status == "withdrawn" and rng.random() < 0.15:
                    cday = _weekday_fwd(wd_day + timedelta(days=rng.randint(3, 20)))
                    make_test(stu, cday, klass, "cancelled", cap=withdrawn_at, cancel_at=withdrawn_at)
            counts = {"G2": 0, "G": 0}
            for t in sorted(stu["tests"], key=lambda x: x["_sched"]):
                t["attempt_number"] = counts[t["test_class"]] + 1
                if t["status"] != "cancelled":
                    counts[t["test_class"]] += 1
            if status == "graduated":
                srow["graduated_on"] = grad_day.isoformat()
                if any(t["status"] == "passed" for t in stu["tests"]):
                    srow["licence_stage"] = "probationary" if stage == "learner_permit" else "full"
                cert_at = bt(grad_day + timedelta(days=rng.randint(5, 40)))
                if rng.random() < 0.12 and cert_at <= clock - timedelta(hours=1):
                    cf = fee["ADMIN-CERT"]
                    new_charge(sid, "admin", cf["name"], cf["amount_cents"], cert_at,
                               {"mode": "paid", "at": cert_at + timedelta(minutes=rng.randint(1, 30))}
                               if cert_at + timedelta(minutes=31) <= clock else {"mode": "open"},
                               fee_id=cf["id"])
            if status == "withdrawn":
                srow["withdrawn_at"] = _iso(withdrawn_at)

            # out-of-area pickup surcharges
            live = [l for l in stu["lessons"] if l["status"] != "cancelled"]
            if live and (adjust_count[0] < 2 or rng.random() < 0.05):
                l0 = rng.choice(live)
                pf = fee["PICKUP-FAR"]
                new_charge(sid, "adjustment", "Out-of-area pickup surcharge - " + l0["start_at"][:10],
                           pf["amount_cents"], l0["_created"], fee_plan(l0["_created"], 0.6, 0.3),
                           lesson=l0["_n"], fee_id=pf["id"])
                adjust_count[0] += 1

            # progress notes
            done = sorted([l for l in stu["lessons"] if l["status"] == "completed"], key=lambda x: x["_start"])
            ability = rng.uniform(-0.8, 0.8)
            for j, l in enumerate(done):
                p_note = 0.6 if clock - l["_end"] < timedelta(days=2) else 0.93
                if rng.random() > p_note:
                    continue
                prog = (j + 1.0) / len(done)
                if stage == "full":
                    prog = 0.6 + 0.4 * prog
                overall = int(round(1.5 + 3.0 * prog + ability + rng.uniform(-0.7, 0.7)))
                overall = max(1, min(5, overall))
                cats = LESSON_SKILL_CATS[l["lesson_type"]]
                spool = [s for s in skill_rows if s["category"] in cats
                         and (s["code"] != "VC-CLUTCH" or trans == "manual")
                         and (s["code"] != "HZ-NIGHT" or l["lesson_type"] == "night")]
                chosen = rng.sample(spool, min(len(spool), rng.randint(1, 3)))
                ratings = []
                for s in chosen:
                    rv = max(1, min(5, overall + rng.choice([-1, 0, 0, 1])))
                    ratings.append((s["id"], rv, RATING_COMMENTS[rv] if rng.random() < 0.6 else None))
                worst = min(ratings, key=lambda x: x[1])
                worst_name = [s["name"] for s in chosen if s["id"] == worst[0]][0]
                created = l["_end"] + timedelta(minutes=rng.randint(5, 240))
                if created > clock:
                    created = _between(rng, l["_end"], clock)
                updated = None
                if rng.random() < 0.08:
                    u = created + timedelta(minutes=rng.randint(60, 4000))
                    if u <= clock:
                        updated = u
                cnt["n"] += 1
                notes.append({"_n": cnt["n"], "_lesson": l["_n"], "_ratings": ratings, "_created": created,
                              "_updated": updated, "id": None, "lesson_id": None, "student_id": sid,
                              "instructor_id": l["instructor_id"], "overall_rating": overall,
                              "test_ready": 1 if (stage != "full" and overall >= 4 and prog >= 0.6) else 0,
                              "summary": SUMMARIES[overall].format(name=first, skill=chosen[0]["name"].lower()),
                              "next_focus": ("Work on " + worst_name.lower()) if rng.random() < 0.75 else None,
                              "created_at": _iso(created), "updated_at": _iso(updated) if updated else None})

    # ------------------------------------------------------------------ finalise ids
    purchases.sort(key=lambda r: (r["_at"], r["_n"]))
    pmap = {}
    for i, r in enumerate(purchases, 1):
        r["id"] = i
        pmap[r["_n"]] = i
        r["purchase_number"] = "PKG-%s-%04d" % (r["purchased_at"][:4], i)
    T["package_purchases"] = purchases

    lessons.sort(key=lambda r: (r["_created"], r["_n"]))
    lmap = {}
    seen_ref = set()
    for i, r in enumerate(lessons, 1):
        r["id"] = i
        lmap[r["_n"]] = i
        r["booking_ref"] = ctx.unique(lambda: "GL-" + "".join(rng.choice(CODE_CHARS) for _ in range(6)), seen_ref)
    for r in lessons:
        if r["purchase_id"] is not None:
            r["purchase_id"] = pmap[r["purchase_id"]]
        if r["rescheduled_from_lesson_id"] is not None:
            r["rescheduled_from_lesson_id"] = lmap[r["rescheduled_from_lesson_id"]]
    T["lessons"] = lessons
    lesson_by_id = {r["id"]: r for r in lessons}

    notes.sort(key=lambda r: (r["_created"], r["_n"]))
    ratings_rows = []
    for i, r in enumerate(notes, 1):
        r["id"] = i
        r["lesson_id"] = lmap[r["_lesson"]]
        for skill_id, rv, comment in r["_ratings"]:
            ratings_rows.append({"id": len(ratings_rows) + 1, "progress_note_id": i, "skill_id": skill_id,
                                 "rating": rv, "comment": comment})
    T["progress_notes"] = notes
    T["skill_ratings"] = ratings_rows

    tests.sort(key=lambda r: (r["_created"], r["_n"]))
    tmap = {}
    seen_rt = set()
    for i, r in enumerate(tests, 1):
        r["id"] = i
        tmap[r["_n"]] = i
        r["test_ref"] = ctx.unique(lambda: "RT-%06d" % rng.randint(100000, 999999), seen_rt)
        if r["purchase_id"] is not None:
            r["purchase_id"] = pmap[r["purchase_id"]]
    T["road_tests"] = tests

    charges.sort(key=lambda r: (r["_created"], r["_n"]))
    payments = []
    void_done = [0]

    def add_payment(ch, amount, at, status="completed"):
        method = ctx.weighted({"card": 55, "e_transfer": 28, "cash": 12, "cheque": 5})
        if method == "card":
            ref = "%s ending %04d" % (rng.choice(["Visa", "Mastercard", "Debit"]), rng.randint(0, 9999))
            recv = staff_at(at, MONEY_ROLES) if rng.random() < 0.85 else None
        elif method == "e_transfer":
            ref = "Interac ref CA" + "".join(rng.choice(CODE_CHARS) for _ in range(8))
            recv = staff_at(at, ("accounts", "front_desk"))
        elif method == "cheque":
            ref = "Cheque #%d" % rng.randint(100, 999)
            recv = staff_at(at, MONEY_ROLES)
        else:
            ref = None
            recv = staff_at(at, MONEY_ROLES)
        p = {"_n": len(payments) + 1, "_paid": at, "id": None, "receipt_number": None,
             "student_id": ch["student_id"], "charge_id": ch["id"], "amount_cents": amount, "method": method,
             "status": status, "paid_at": _iso(at), "received_by_staff_id": recv, "reference_note": ref,
             "refunded_at": None, "refund_amount_cents": None, "refunded_by_staff_id": None}
        payments.append(p)
        return p

    for i, ch in enumerate(charges, 1):
        ch["id"] = i
        ch["charge_number"] = "INV-%s-%05d" % (ch["created_at"][:4], i)
        if ch["purchase_id"] is not None:
            ch["purchase_id"] = pmap[ch["purchase_id"]]
        if ch["lesson_id"] is not None:
            ch["lesson_id"] = lmap[ch["lesson_id"]]
        if ch["road_test_id"] is not None:
            ch["road_test_id"] = tmap[ch["road_test_id"]]
        plan = ch["_plan"]
        mode = plan["mode"]
        amt = ch["amount_cents"]
        if mode == "waived":
            ch["status"] = "waived"
            ch["waived_at"] = _iso(plan["at"])
            ch["waived_by_staff_id"] = staff_at(plan["at"], MGR_ROLES)
            ch["_waived"] = plan["at"]
        elif mode == "refund":
            p = add_payment(ch, amt, plan["at"])
            who = staff_at(plan["refund_at"], REFUND_ROLES)
            p["status"] = "refunded"
            p["refunded_at"] = _iso(plan["refund_at"])
            p["refund_amount_cents"] = amt
            p["refunded_by_staff_id"] = who
            ch["status"] = "waived"
            ch["waived_at"] = _iso(plan["refund_at"])
            ch["waived_by_staff_id"] = who
            ch["_waived"] = plan["refund_at"]
        elif mode == "open":
            ch["status"] = "open"
        elif mode == "partial":
            part = int(amt * rng.choice([0.25, 0.3, 0.4, 0.5])) // 100 * 100
            if part <= 0 or part >= amt:
                part = max(1, amt // 2)
            add_payment(ch, part, plan["at"])
            ch["status"] = "open"
        else:
            at = plan["at"]
            if plan.get("split"):
                first_amt = amt // 2 // 100 * 100
                second_at = at + timedelta(days=rng.randint(7, 30), minutes=rng.randint(0, 600))
                add_payment(ch, first_amt, at)
                if second_at <= clock - timedelta(minutes=10):
                    add_payment(ch, amt - first_amt, second_at)
                    ch["status"] = "paid"
                else:
                    ch["status"] = "open"
            else:
                if rng.random() < 0.03 or (void_done[0] == 0 and i >= 20):
                    vat = at - timedelta(minutes=3)
                    if vat < ch["_created"]:
                        vat = at
                    add_payment(ch, amt, vat, status="voided")
                    void_done[0] += 1
                add_payment(ch, amt, at)
                ch["status"] = "paid"
    T["charges"] = charges

    payments.sort(key=lambda r: (r["_paid"], r["_n"]))
    for i, p in enumerate(payments, 1):
        p["id"] = i
        p["receipt_number"] = "R%s-%06d" % (p["paid_at"][:4], i)
    T["payments"] = payments

    # ------------------------------------------------------------------ activity log
    acts = []

    def act(at, actor, actor_id, entity, eid, action, student=None, old=None, new=None, details=None):
        if at > clock:
            at = clock
        row = {"id": None, "occurred_at": _iso(at), "actor_type": actor,
               "staff_id": actor_id if actor == "staff" else None,
               "instructor_id": actor_id if actor == "instructor" else None,
               "student_id": actor_id if actor == "student" else student,
               "entity_type": entity, "entity_id": eid, "action": action, "old_value": old, "new_value": new,
               "details": details}
        acts.append((at, len(acts), row))

    for s in T["students"]:
        ex = student_extra[s["id"]]
        at = datetime.fromisoformat(s["enrolled_at"])
        first_status = "enquiry" if ex["status"] == "enquiry" else "active"
        action = "enquiry_created" if first_status == "enquiry" else "student_enrolled"
        if s["enrolled_by_staff_id"] is not None:
            act(at, "staff", s["enrolled_by_staff_id"], "student", s["id"], action, s["id"], None, first_status)
        else:
            act(at, "student", s["id"], "student", s["id"], action, s["id"], None, first_status,
                "Signed up through the website")
        if ex["status"] == "graduated":
            act(_at(ex["grad_day"], 17 * 60), "system", None, "student", s["id"], "status_changed", s["id"],
                "active", "graduated", "Road test passed")
        elif ex["status"] == "withdrawn":
            w = ex["withdrawn_at"]
            act(w, "staff", staff_at(w), "student", s["id"], "status_changed", s["id"], "active", "withdrawn")
        elif ex["status"] == "on_hold":
            h = bt(ex["hold_day"])
            act(h, "staff", staff_at(h), "student", s["id"], "status_changed", s["id"], "active", "on_hold",
                s["notes"])
    for p in purchases:
        details = "%s sold for %d cents" % (p["_pkg"]["code"], p["price_cents"] - p["discount_cents"])
        if p["sold_by_staff_id"] is not None:
            act(p["_at"], "staff", p["sold_by_staff_id"], "package_purchase", p["id"], "package_sold",
                p["student_id"], None, "active", details)
        else:
            act(p["_at"], "student", p["student_id"], "package_purchase", p["id"], "package_sold",
                p["student_id"], None, "active", details + " (online)")
        if p["status"] in ("cancelled", "refunded"):
            c = p["_cancelled"]
            act(c, "staff", staff_at(c, REFUND_ROLES if p["status"] == "refunded" else DESK_ROLES),
                "package_purchase", p["id"], "package_" + p["status"], p["student_id"], "active", p["status"],
                p["cancel_reason"])
    for l in lessons:
        if l["rescheduled_from_lesson_id"] is not None:
            action = "lesson_rescheduled"
            details = "Rebooked from %s" % lesson_by_id[l["rescheduled_from_lesson_id"]]["booking_ref"]
        else:
            action = "lesson_booked"
            details = "Lesson %s on %s" % (l["booking_ref"], l["start_at"][:16].replace("T", " "))
        if l["created_by_staff_id"] is not None:
            act(l["_created"], "staff", l["created_by_staff_id"], "lesson", l["id"], action, l["student_id"],
                None, "scheduled", details)
        else:
            act(l["_created"], "student", l["student_id"], "lesson", l["id"], action, l["student_id"],
                None, "scheduled", details + " (online)")
        if l["status"] == "cancelled":
            c = l["_cancelled"]
            if l["cancelled_by"] == "student":
                act(c, "student", l["student_id"], "lesson", l["id"], "lesson_cancelled", l["student_id"],
                    "scheduled", "cancelled", l["cancel_reason"])
            elif l["cancelled_by"] == "instructor":
                act(c, "instructor", l["instructor_id"], "lesson", l["id"], "lesson_cancelled", l["student_id"],
                    "scheduled", "cancelled", l["cancel_reason"])
            else:
                act(c, "staff", staff_at(c), "lesson", l["id"], "lesson_cancelled", l["student_id"],
                    "scheduled", "cancelled", l["cancel_reason"])
        elif l["status"] == "no_show":
            act(l["_end"] + timedelta(minutes=15), "instructor", l["instructor_id"], "lesson", l["id"],
                "lesson_no_show", l["student_id"], "scheduled", "no_show", "Student not at pickup point")
    for t in tests:
        if t["booked_by_staff_id"] is not None:
            act(t["_created"], "staff", t["booked_by_staff_id"], "road_test", t["id"], "road_test_booked",
                t["student_id"], None, "booked", "%s test %s" % (t["test_class"], t["test_ref"]))
        else:
            act(t["_created"], "student", t["student_id"], "road_test", t["id"], "road_test_booked",
                t["student_id"], None, "booked", "%s test %s (self-booked)" % (t["test_class"], t["test_ref"]))
        if t["status"] == "cancelled":
            c = t["_cancelled"]
            act(c, "staff", staff_at(c), "road_test", t["id"], "road_test_cancelled", t["student_id"], "booked",
                "cancelled", t["cancel_reason"])
        elif t["_result"] is not None:
            rr = t["_result"]
            act(rr, "staff", staff_at(rr), "road_test", t["id"], "road_test_result_recorded", t["student_id"],
                "booked", t["status"], t["result_notes"])
    for ch in charges:
        if ch["status"] == "waived":
            act(ch["_waived"], "staff", ch["waived_by_staff_id"], "charge", ch["id"], "charge_waived",
                ch["student_id"], "open", "waived", ch["description"])
    for p in payments:
        if p["status"] == "refunded":
            act(datetime.fromisoformat(p["refunded_at"]), "staff", p["refunded_by_staff_id"], "payment", p["id"],
                "payment_refunded", p["student_id"], "completed", "refunded",
                "Refunded %d cents" % p["refund_amount_cents"])
        elif p["status"] == "voided":
            vt = p["_paid"] + timedelta(minutes=5)
            act(vt, "staff", staff_at(vt, MONEY_ROLES), "payment", p["id"], "payment_voided", p["student_id"],
                "completed", "voided", "Duplicate entry voided")
    for n in notes:
        if n["_updated"] is not None:
            act(n["_updated"], "instructor", n["instructor_id"], "progress_note", n["id"], "progress_note_updated",
                n["student_id"], None, None, "Instructor edited the lesson summary")
    for v in T["vehicles"]:
        vm = veh_meta[v["id"]]
        if vm["retired"] is not None:
            at = _at(vm["retired"], 600)
            act(at, "staff", staff_at(at, MGR_ROLES), "vehicle", v["id"], "status_changed", None, "available",
                "retired", "Vehicle retired from the fleet")
        elif vm["status"] == "in_service" and vm["service_start"] is not None:
            at = vm["service_start"]
            act(at, "staff", staff_at(at, MGR_ROLES), "vehicle", v["id"], "status_changed", None, "available",
                "in_service", "Sent for repair")
    for ins in T["instructors"]:
        m = ins_meta[ins["id"]]
        if m["status"] == "on_leave" and m["leave_start"] is not None:
            at = m["leave_start"] + timedelta(hours=8)
            act(at, "staff", staff_at(at, MGR_ROLES), "instructor", ins["id"], "status_changed", None, "active",
                "on_leave")
        elif m["status"] == "inactive":
            at = _at(m["left"], 17 * 60)
            act(at, "staff", staff_at(at, MGR_ROLES), "instructor", ins["id"], "status_changed", None, "active",
                "inactive", "Instructor left the school")
    for r in T["instructor_time_off"]:
        if r["_decided"] is not None:
            act(r["_decided"], "staff", r["approved_by_staff_id"], "time_off", r["id"],
                "time_off_" + r["status"], None, "requested", r["status"])
    acts.sort(key=lambda x: (x[0], x[1]))
    for i, (_, _, row) in enumerate(acts, 1):
        row["id"] = i
        T["activity_log"].append(row)

    # ------------------------------------------------------------------ strip helper keys
    for name in TABLES:
        for row in T[name]:
            for k in [k for k in row if k.startswith("_")]:
                del row[k]
    return T
