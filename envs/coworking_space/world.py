from datetime import date, datetime, timedelta
import json
import re

# Billing rules shared by every world
TAX_PERCENT = 8             # tax_cents = round(subtotal_cents * 8 / 100)
NET_DAYS = 14               # due_date = issue_date + 14 days
GUEST_FEE_CENTS = 2000      # fee for a guest beyond the plan's free guest passes
PACK_VALID_DAYS = 90        # multi-day packs are valid 90 days from purchase
BILLING_WINDOW_DAYS = 150   # invoices kept for roughly the last five months
LOG_WINDOW_DAYS = 45        # activity log keeps the last 45 days
FAR = date(9999, 12, 31)
STAFF_DOMAIN = "brickyardcommons.com"
PERSONAL_DOMAINS = ["gmail.com", "outlook.com", "yahoo.com", "proton.me", "icloud.com", "fastmail.com", "hey.com"]
DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

JOB_TITLES = [
    "Founder", "Co-founder", "Software Engineer", "Product Designer", "UX Researcher", "Freelance Writer",
    "Marketing Consultant", "Data Analyst", "Accountant", "Architect", "Photographer", "Recruiter",
    "Sales Lead", "Product Manager", "Illustrator", "Translator", "Financial Advisor", "Video Editor",
    "Grant Writer", "Brand Strategist", "Web Developer", "Operations Lead", "Copywriter", "Therapist",
    "Attorney", "Game Developer", "Podcast Producer", "Event Planner", "Civil Engineer", "Content Creator",
]

MEMBER_NOTES = [
    "Prefers a desk near the window.",
    "Invoices go to the company accounts payable inbox.",
    "Brings a dog on Fridays - approved by operations.",
    "Asked about bike storage.",
    "Referred by an existing member.",
    "Needs an accessible desk close to the lift.",
    "Interested in upgrading to a private office.",
    "Receives a lot of parcels - notify on arrival.",
    "Works late; asked about 24/7 access.",
    "Prefers to be contacted by phone.",
]

# code, name, plan_type, monthly, setup, meeting credit minutes, guest passes, access days, 24/7, mail, active, description
PLAN_CATALOG = [
    ("HOT-UNL", "Hot Desk Unlimited", "hot_desk", 32500, 5000, 240, 2, None, 0, 0, 1,
     "Any open desk on any open day, during opening hours."),
    ("FLEX-10", "Flex 10", "part_time", 18900, 2500, 120, 1, 10, 0, 0, 1,
     "Ten hot-desk days per calendar month."),
    ("FLEX-5", "Flex 5", "part_time", 10900, 0, 60, 0, 5, 0, 0, 1,
     "Five hot-desk days per calendar month."),
    ("DED-STD", "Dedicated Desk", "dedicated_desk", 47500, 7500, 480, 3, None, 1, 1, 1,
     "Your own desk with a lockable pedestal and 24/7 access."),
    ("DED-PLUS", "Dedicated Desk Plus", "dedicated_desk", 56500, 7500, 720, 4, None, 1, 1, 1,
     "Dedicated desk with monitor, extra meeting credits and 24/7 access."),
    ("OFFICE", "Private Office Membership", "private_office", 14500, 15000, 960, 6, None, 1, 1, 1,
     "Membership for the lead of a private office team; the office rent is billed separately."),
    ("VIRT", "Virtual Office", "virtual", 5900, 2500, 60, 0, 2, 0, 1, 1,
     "Business address, mail handling and two drop-in days a month."),
    ("NIGHT-OWL", "Night Owl (legacy)", "part_time", 14900, 0, 0, 1, 12, 1, 0, 0,
     "Evenings and weekends only. Closed to new sign-ups."),
]

AREAS = [("open_lounge", "L"), ("quiet_zone", "Q"), ("window_row", "W"), ("studio", "S")]
DEDICATED_SHARE = {"open_lounge": 0.2, "quiet_zone": 0.6, "window_row": 0.75, "studio": 0.45}

OFFICE_NAMES = [
    "Flemish", "Stretcher", "Header", "Soldier", "Sailor", "Rowlock", "Herringbone", "Basketweave",
    "Running Bond", "English Bond", "Garden Wall", "Monk Bond", "Dutch Bond", "Stack Bond", "Pier",
    "Lintel", "Corbel", "Quoin", "Plinth", "Coping",
]

# name, capacity, floor (the first one is the event hall)
ROOM_CATALOG = [
    ("Foundry", 24, 1), ("Kiln", 4, 1), ("Forge", 6, 2), ("Hearth", 2, 2), ("Mortar", 8, 2),
    ("Chimney", 4, 3), ("Anvil", 10, 3), ("Terracotta", 6, 1), ("Flue", 2, 3), ("Cornerstone", 12, 2),
    ("Archway", 4, 1), ("Clay", 3, 2), ("Pallet", 6, 3), ("Lime", 8, 1), ("Mason", 5, 2),
]

BOOKING_TITLES = [
    "Client meeting", "Weekly team sync", "Candidate interview", "Sprint planning", "Investor call",
    "Design review", "Quarterly planning", "Sales demo", "1:1 check-in", "Workshop prep",
    "Podcast recording", "Board prep", "Contract negotiation", "Brainstorm session", "Training session",
    "Project kickoff",
]
BOOKING_CANCEL_REASONS = [
    "Meeting rescheduled", "Client cancelled", "Booked the wrong room", "Team working remotely",
    "No longer needed", "Moved to a video call",
]
MEMBERSHIP_CANCEL_REASONS = [
    "Relocating to another city", "Company moved into its own office", "Budget cuts",
    "Switching to working from home", "Took a full-time role elsewhere", "Not using the space enough",
    "Business closed",
]
UPGRADE_CANCEL_REASONS = [
    "Decided to stay on the current plan", "Desk location not suitable", "Upgrade postponed",
]

EVENT_TEMPLATES = {
    "networking": ["Founders Breakfast", "Freelancer Mixer", "Speed Networking", "Brickyard Connect"],
    "workshop": ["Pitch Deck Clinic", "Bookkeeping for Freelancers", "Figma for Non-Designers",
                 "Negotiating Your Rates", "LinkedIn Profile Makeover", "Public Speaking Bootcamp",
                 "Intro to Product Analytics"],
    "talk": ["Fireside Chat: Bootstrapping", "Lessons from a Failed Startup", "Raising a Seed Round",
             "Designing for Accessibility", "Building a Remote-First Culture"],
    "social": ["Friday Pizza and Pints", "Board Game Night", "Trivia Night", "Karaoke Social",
               "Wine and Cheese Evening"],
    "wellness": ["Morning Yoga", "Desk Stretch Session", "Mindfulness at Work", "Breathwork Basics"],
    "member_lunch": ["Member Lunch", "Taco Tuesday Lunch", "Community Potluck", "New Member Welcome Lunch"],
}
EVENT_BLURBS = {
    "networking": "Meet other members and swap ideas over coffee.",
    "workshop": "A hands-on session - bring your laptop.",
    "talk": "An evening talk followed by an open Q&A.",
    "social": "Unwind with the Brickyard community after work.",
    "wellness": "A short session to reset body and mind. Mats provided.",
    "member_lunch": "Lunch is on us - come and meet your neighbours.",
}
# (hour, minute, duration minutes); all inside the weekday opening hours
EVENT_SLOTS = {
    "networking": [(8, 30, 90), (17, 30, 120)],
    "workshop": [(10, 0, 120), (14, 0, 120), (15, 0, 90)],
    "talk": [(17, 30, 90), (12, 30, 60)],
    "social": [(17, 30, 150), (18, 0, 120)],
    "wellness": [(8, 0, 60), (12, 15, 45)],
    "member_lunch": [(12, 0, 90)],
}
EVENT_LOCATIONS = ["Ground floor lounge", "Rooftop terrace", "Cafe bar", "Courtyard"]

# code, name, kind, days, price, meeting minutes, active
PASS_CATALOG = [
    ("HALF", "Half-Day Pass", "half_day", 1, 2000, 0, 1),
    ("DAY", "Day Pass", "full_day", 1, 3500, 0, 1),
    ("DAY-MTG", "Day Pass + Meeting Hour", "full_day", 1, 5500, 60, 1),
    ("PACK-5", "5-Day Pack", "multi_day_pack", 5, 15000, 0, 1),
    ("PACK-10", "10-Day Pack", "multi_day_pack", 10, 27500, 60, 1),
    ("WKND", "Weekend Pass", "full_day", 1, 2500, 0, 0),
]
PASS_WEIGHTS = {"HALF": 3, "DAY": 6, "DAY-MTG": 1, "PACK-5": 2, "PACK-10": 1}

GUEST_PURPOSES = [
    "Client meeting", "Job interview", "Business partner visit", "Working session", "Lunch",
    "Investor meeting", "Contractor handover", "Photo shoot", "Tour of the space", "Mentoring session",
]
VOID_REASONS = [
    "Issued with the wrong plan price", "Duplicate invoice",
    "Membership cancelled before the period started", "Billing details corrected - reissued",
    "Goodwill waiver approved by operations",
]
CREDIT_REASONS = [
    "Goodwill credit - Wi-Fi outage", "Referral reward", "Credit for unusable meeting room",
    "Loyalty credit", "Event cancellation credit",
]
ADHOC_ITEMS = [
    ("Replacement access card", 2500), ("Locker rental - quarter", 4500),
    ("Printing bundle (500 pages)", 3000), ("Parking permit - one month", 7500),
    ("Mail forwarding fee", 1500), ("After-hours cleaning", 6000),
]
PAYMENT_FAIL_NOTES = [
    "Card declined", "Direct debit returned - insufficient funds", "Bank authorisation expired",
    "Card expired",
]


# ----------------------------------------------------------------- helpers

def _iso(dt):
    return dt.isoformat(timespec="seconds")


def _at(d, hh, mm=0):
    return datetime(d.year, d.month, d.day, hh, mm)


def _between(ctx, a, b):
    if b <= a:
        return a
    span = int((b - a).total_seconds() // 60)
    if span <= 0:
        return a
    return a + timedelta(minutes=ctx.rng.randint(0, span))


def _date_between(ctx, a, b):
    if b <= a:
        return a
    return a + timedelta(days=ctx.rng.randint(0, (b - a).days))


def _shift_month(y, m, k):
    idx = y * 12 + (m - 1) + k
    return idx // 12, idx % 12 + 1


def _month_end(d):
    y, m = _shift_month(d.year, d.month, 1)
    return date(y, m, 1) - timedelta(days=1)


def _slug(s):
    return re.sub(r"[^a-z]", "", s.lower())


def _email(ctx, first, last, domain, seen):
    f = _slug(first) or "member"
    l = _slug(last) or "user"

    def make():
        style = ctx.rng.randint(0, 5)
        if style == 0:
            local = f + "." + l
        elif style == 1:
            local = f[0] + l
        elif style == 2:
            local = f + l[0]
        elif style == 3:
            local = f + "_" + l
        elif style == 4:
            local = f + "." + l + str(ctx.rng.randint(2, 99))
        else:
            local = f[0] + "." + l + str(ctx.rng.randint(1, 999))
        return local + "@" + domain

    return ctx.unique(make, seen)


def _weighted_order(ctx, items, weight):
    keyed = []
    for it in items:
        w = weight(it)
        if w <= 0:
            continue
        keyed.append((ctx.rng.random() ** (1.0 / w), it))
    keyed.sort(key=lambda kv: -kv[0])
    return [kv[1] for kv in keyed]


def _staff_for(W, roles, on=None):
    ctx = W["ctx"]
    key = on.isoformat() if on is not None else None
    pool = [s["id"] for s in W["staff"]
            if s["is_active"] == 1 and s["role"] in roles and (key is None or s["hired_on"] <= key)]
    if not pool:
        pool = [s["id"] for s in W["staff"] if s["is_active"] == 1 and s["role"] in roles]
    if not pool:
        pool = [s["id"] for s in W["staff"] if s["is_active"] == 1]
    return ctx.pick(pool)


def _stamp_before(W, target, floor, lead_days):
    ctx, clock = W["ctx"], W["clock"]
    d = target - timedelta(days=ctx.rng.randint(0, lead_days))
    t = datetime(d.year, d.month, d.day, ctx.rng.randint(8, 18), ctx.rng.randint(0, 59))
    if floor is not None and t < floor:
        t = floor + timedelta(minutes=ctx.rng.randint(1, 30))
    if t > clock:
        lo = floor if (floor is not None and floor < clock) else clock - timedelta(hours=6)
        t = _between(ctx, lo, clock - timedelta(minutes=1))
    return t


def _is_open(W, d):
    wd = d.weekday()
    return wd < 5 or (wd == 5 and W["sat_open"])


def _open_day_from(W, d, step):
    for _ in range(10):
        if _is_open(W, d):
            return d
        d = d + timedelta(days=step)
    return d


def _log(W, at, actor, staff_id, member_id, etype, eid, action, details=None):
    if at is None or at > W["clock"] or at < W["log_from"]:
        return
    if actor == "staff" and staff_id is None:
        actor = "system"
    W["log"].append({
        "occurred_at": _iso(at),
        "actor_type": actor,
        "staff_id": staff_id if actor == "staff" else None,
        "member_id": member_id,
        "entity_type": etype,
        "entity_id": eid,
        "action": action,
        "details": json.dumps(details, sort_keys=True) if details else None,
    })


def _line(line_type, desc, qty, unit, membership_id=None, room_booking_id=None, event_id=None):
    return {"line_type": line_type, "description": desc, "quantity": qty, "unit_price_cents": unit,
            "amount_cents": qty * unit, "membership_id": membership_id,
            "room_booking_id": room_booking_id, "event_id": event_id}


def _member_on(W, mid, d):
    info = W["minfo"][mid]
    if info["status"] in ("active", "paused"):
        return info["joined"] <= d
    if info["status"] == "cancelled":
        return info["joined"] <= d < info["cancel_date"]
    return False


def _member_span(W, mid):
    first, last = None, None
    for ms in W["ms_by_member"].get(mid, []):
        eff = W["ms_eff"].get(ms["id"])
        if eff is None:
            continue
        if ms["status"] == "scheduled" and W["minfo"][mid]["status"] != "active":
            continue
        if first is None or eff[0] < first:
            first = eff[0]
        if last is None or eff[1] > last:
            last = eff[1]
    return first, last


def _plan_on(W, mid, d):
    for ms in W["ms_by_member"].get(mid, []):
        eff = W["ms_eff"].get(ms["id"])
        if eff is not None and eff[0] <= d <= eff[1]:
            return W["plan_by_id"][ms["plan_id"]]
    return None


def _room_free(W, rid, start, end):
    for a, b in W["room_busy"].get((rid, start.date()), []):
        if start < b and a < end:
            return False
    return True


def _room_take(W, rid, start, end):
    W["room_busy"].setdefault((rid, start.date()), []).append((start, end))


def _member_free(W, mid, start, end):
    for a, b in W["member_busy"].get((mid, start.date()), []):
        if start < b and a < end:
            return False
    return True


def _member_take(W, mid, start, end):
    W["member_busy"].setdefault((mid, start.date()), []).append((start, end))


# ----------------------------------------------------------------- reference data

def _build_staff(W):
    ctx, today = W["ctx"], W["today"]
    base_roles = ["operations_manager", "community_manager", "front_desk", "finance", "facilities",
                  "front_desk", "front_desk", "community_manager"]
    other = {"front_desk": 5, "community_manager": 2, "finance": 2, "facilities": 2, "operations_manager": 1}
    seen = set()
    rows = W["staff"]
    n = ctx.n(8, 30)
    for i in range(n):
        role = base_roles[i] if i < len(base_roles) else ctx.weighted(other)
        first, last = ctx.faker.first_name(), ctx.faker.last_name()
        hired = today - timedelta(days=ctx.rng.randint(700, 2400) if i == 0 else ctx.rng.randint(20, 1900))
        rows.append({
            "id": i + 1,
            "staff_code": f"STF-{i + 1:03d}",
            "full_name": f"{first} {last}",
            "email": _email(ctx, first, last, STAFF_DOMAIN, seen),
            "phone": ctx.faker.phone_number(),
            "role": role,
            "hired_on": hired.isoformat(),
            "is_active": 0 if (i >= 6 and ctx.chance(0.12)) else 1,
        })
    if all(r["is_active"] == 1 for r in rows):
        rows[-1]["is_active"] = 0
    if ctx.distractors:
        src = rows[2]
        parts = src["full_name"].split(" ", 1)
        rows.append({
            "id": len(rows) + 1,
            "staff_code": f"STF-{len(rows) + 1:03d}",
            "full_name": src["full_name"],
            "email": _email(ctx, parts[0], parts[-1], STAFF_DOMAIN, seen),
            "phone": ctx.faker.phone_number(),
            "role": "facilities",
            "hired_on": (today - timedelta(days=ctx.rng.randint(30, 400))).isoformat(),
            "is_active": 1,
        })


def _build_hours(W):
    ctx = W["ctx"]
    wk_open = ctx.pick(["07:00", "07:30", "08:00"])
    wk_close = ctx.pick(["20:00", "21:00", "22:00"])
    fri_close = ctx.pick([wk_close, "20:00"])
    fd_from = ctx.pick(["08:30", "09:00"])
    fd_until = ctx.pick(["17:30", "18:00", "18:30"])
    sat_open = ctx.chance(0.65)
    W["sat_open"] = sat_open
    for dow in range(7):
        row = {"id": dow + 1, "day_of_week": dow, "day_name": DAY_NAMES[dow]}
        if dow < 5:
            row.update({"opens_at": wk_open, "closes_at": fri_close if dow == 4 else wk_close,
                        "front_desk_from": fd_from, "front_desk_until": fd_until, "is_closed": 0})
        elif dow == 5 and sat_open:
            row.update({"opens_at": "09:00", "closes_at": "17:00", "front_desk_from": "10:00",
                        "front_desk_until": "14:00", "is_closed": 0})
        else:
            row.update({"opens_at": "00:00", "closes_at": "00:00", "front_desk_from": None,
                        "front_desk_until": None, "is_closed": 1})
        W["opening_hours"].append(row)


def _build_plans(W):
    ctx = W["ctx"]
    f = ctx.pick([0.9, 0.95, 1.0, 1.05, 1.1, 1.15])
    catalog = list(PLAN_CATALOG)
    if ctx.distractors:
        catalog.append(("HOT-UNL-12", "Hot Desk Unlimited 12-Month", "hot_desk", 29500, 0, 240, 2, None, 0, 0, 1,
                        "Hot Desk Unlimited on a twelve-month commitment at a lower monthly rate."))
    W["plans_by_type"] = {}
    W["legacy_plan"] = None
    for i, (code, name, ptype, price, setup, credits, guests, days, always, mail, active, desc) in enumerate(catalog):
        row = {
            "id": i + 1,
            "code": code,
            "name": name,
            "plan_type": ptype,
            "monthly_price_cents": int(round(price * f / 100.0)) * 100,
            "setup_fee_cents": int(round(setup * f / 500.0)) * 500,
            "meeting_credit_minutes": credits + (ctx.pick([0, 0, 60, 120]) if credits else 0),
            "guest_passes_per_month": guests + (ctx.pick([0, 0, 1]) if guests else 0),
            "access_days_per_month": days,
            "has_24_7_access": always,
            "includes_mail_handling": mail,
            "description": desc,
            "is_active": active,
        }
        W["membership_plans"].append(row)
        W["plan_by_id"][row["id"]] = row
        if code == "NIGHT-OWL":
            W["legacy_plan"] = row
        elif code != "HOT-UNL-12":
            W["plans_by_type"].setdefault(ptype, []).append(row)


def _build_desks(W):
    ctx = W["ctx"]
    n = ctx.n(36, 240)
    floors = [1, 2] if n < 100 else [1, 2, 3]
    counters = {}
    rows = W["desks"]
    for i in range(n):
        area, letter = ctx.pick(AREAS)
        floor = ctx.pick(floors)
        key = f"{floor}{letter}"
        counters[key] = counters.get(key, 0) + 1
        dedicated = ctx.chance(DEDICATED_SHARE[area])
        rows.append({
            "id": i + 1,
            "code": f"{key}-{counters[key]:02d}",
            "floor": floor,
            "area": area,
            "desk_type": "dedicated_desk" if dedicated else "hot_desk",
            "has_monitor": 1 if ctx.chance(0.85 if dedicated else 0.4) else 0,
            "is_standing": 1 if ctx.chance(0.2) else 0,
            "status": "out_of_service" if ctx.chance(0.05) else "in_service",
        })
    if not any(r["status"] == "out_of_service" for r in rows):
        ctx.pick(rows)["status"] = "out_of_service"
    pool = [r for r in rows if r["desk_type"] == "dedicated_desk" and r["status"] == "in_service"]
    if len(pool) < n // 3:
        for r in rows:
            if len(pool) >= n // 3:
                break
            if r["desk_type"] == "hot_desk" and r["status"] == "in_service" and r["area"] != "open_lounge":
                r["desk_type"] = "dedicated_desk"
                r["has_monitor"] = 1
                pool.append(r)
    W["desk_pool"] = [r["id"] for r in pool]


def _build_offices(W):
    ctx = W["ctx"]
    n = ctx.n(9, 48)
    names = ctx.sample(OFFICE_NAMES, len(OFFICE_NAMES))
    suffixes = ["", " II", " III", " IV", " V"]
    counters = {}
    rows = W["private_offices"]
    for i in range(n):
        floor = 2 if i % 3 != 2 else 3
        counters[floor] = counters.get(floor, 0) + 1
        cap = ctx.weighted({1: 2, 2: 4, 3: 3, 4: 4, 6: 2, 8: 1, 10: 1})
        rows.append({
            "id": i + 1,
            "code": f"PO-{floor}{counters[floor]:02d}",
            "name": names[i % len(names)] + " Suite" + suffixes[min(i // len(names), 4)],
            "floor": floor,
            "capacity": cap,
            "size_sqm": cap * ctx.rng.randint(5, 7) + ctx.rng.randint(2, 6),
            "monthly_price_cents": cap * ctx.rng.randint(52, 72) * 1000,
            "has_window": 1 if ctx.chance(0.6) else 0,
            "status": "available",
        })
    maint = ctx.sample(list(range(1, n + 1)), max(1, n // 12))
    W["office_maint"] = set(maint)
    W["office_pool"] = [r["id"] for r in rows if r["id"] not in W["office_maint"]]
    W["office_active_cap"] = len(W["office_pool"]) - 2
    W["office_open_cap"] = len(W["office_pool"]) - 1
    W["office_open"] = 0
    W["office_active"] = 0
    W["office_by_id"] = {r["id"]: r for r in rows}


def _build_rooms(W):
    ctx = W["ctx"]
    n = ctx.n(6, 14)
    chosen = [ROOM_CATALOG[0]] + ctx.sample(ROOM_CATALOG[1:], min(n - 1, len(ROOM_CATALOG) - 1))
    base = ctx.pick([1500, 2000, 2500])
    per_seat = ctx.pick([400, 500, 600])
    offline = ctx.rng.randint(1, len(chosen) - 1)
    rows = W["meeting_rooms"]
    for i, (name, cap, floor) in enumerate(chosen):
        rows.append({
            "id": i + 1,
            "code": f"MR-{i + 1:02d}",
            "name": name,
            "floor": floor,
            "capacity": cap,
            "hourly_rate_cents": base + cap * per_seat,
            "has_video_conferencing": 1 if (i == 0 or (cap >= 4 and ctx.chance(0.8))) else 0,
            "has_whiteboard": 1 if ctx.chance(0.8) else 0,
            "has_display": 1 if (i == 0 or cap >= 10 or (cap >= 3 and ctx.chance(0.85))) else 0,
            "is_bookable": 0 if i == offline else 1,
        })
    if ctx.distractors:
        src = rows[1] if offline != 1 else rows[2]
        i = len(rows)
        rows.append({
            "id": i + 1,
            "code": f"MR-{i + 1:02d}",
            "name": src["name"] + " Annex",
            "floor": src["floor"],
            "capacity": src["capacity"],
            "hourly_rate_cents": src["hourly_rate_cents"],
            "has_video_conferencing": 1 - src["has_video_conferencing"],
            "has_whiteboard": src["has_whiteboard"],
            "has_display": src["has_display"],
            "is_bookable": 1,
        })
    for r in rows:
        W["room_by_id"][r["id"]] = r


# ----------------------------------------------------------------- members and memberships

def _build_members(W):
    ctx, today, clock = W["ctx"], W["today"], W["clock"]
    n = ctx.n(70, 480)
    n_paused = max(3, n * 7 // 100)
    n_cancel = max(6, n * 16 // 100)
    n_prosp = max(6, n * 14 // 100)
    n_active = n - n_paused - n_cancel - n_prosp
    statuses = ["active"] * n_active + ["paused"] * n_paused + ["cancelled"] * n_cancel + ["prospect"] * n_prosp
    ctx.rng.shuffle(statuses)
    specs = []
    for st in statuses:
        if st == "active":
            band = ctx.weighted({"new": 1, "mid": 4, "old": 3})
            if band == "new":
                days = ctx.rng.randint(1, 20)
            elif band == "mid":
                days = ctx.rng.randint(21, 365)
            else:
                days = ctx.rng.randint(366, 1100)
        elif st == "paused":
            days = ctx.rng.randint(90, 900)
        elif st == "cancelled":
            days = ctx.rng.randint(150, 1100)
        else:
            days = ctx.rng.randint(0, 40)
        joined = today - timedelta(days=days)
        if joined == today:
            lo = min(_at(today, 7, 30), clock - timedelta(hours=1))
            created = _between(ctx, lo, clock - timedelta(minutes=5))
        else:
            created = _at(joined, ctx.rng.randint(9, 18), ctx.rng.randint(0, 59))
        specs.append({"first": ctx.faker.first_name(), "last": ctx.faker.last_name(), "status": st,
                      "joined": joined, "created": created})
    if ctx.distractors:
        actives = [s for s in specs if s["status"] == "active"]
        for k in range(2):
            src, dst = actives[k], actives[-(k + 1)]
            dst["first"], dst["last"] = src["first"], src["last"]
    specs.sort(key=lambda s: s["created"])

    seen_c = set()
    companies = [ctx.unique(lambda: ctx.faker.company(), seen_c) for _ in range(max(8, n // 5))]
    seen_emails, seen_cards = set(), set()
    for idx, s in enumerate(specs):
        mid = idx + 1
        st = s["status"]
        company = ctx.pick(companies) if ctx.chance(0.6) else None
        if company is not None and ctx.chance(0.55):
            domain = (_slug(company)[:20] or "company") + ".com"
        else:
            domain = ctx.pick(PERSONAL_DOMAINS)
        email = _email(ctx, s["first"], s["last"], domain, seen_emails)
        card = None
        if st in ("active", "paused"):
            card = ctx.unique(lambda: f"AC-{ctx.rng.randint(100000, 999999)}", seen_cards)
        staff_id = _staff_for(W, ("front_desk", "community_manager"), s["joined"]) if ctx.chance(0.7) else None
        row = {
            "id": mid,
            "member_number": f"BC-{10000 + mid}",
            "full_name": f"{s['first']} {s['last']}",
            "email": email,
            "phone": ctx.faker.phone_number() if ctx.chance(0.85) else None,
            "company_name": company,
            "job_title": ctx.pick(JOB_TITLES) if ctx.chance(0.85) else None,
            "access_card_number": card,
            "status": st,
            "joined_on": s["joined"].isoformat(),
            "cancelled_at": None,
            "marketing_opt_in": 1 if ctx.chance(0.55) else 0,
            "notes": ctx.pick(MEMBER_NOTES) if ctx.chance(0.15) else None,
            "created_by_staff_id": staff_id,
            "created_at": _iso(s["created"]),
        }
        W["members"].append(row)
        W["member_by_id"][mid] = row
        info = {
            "status": st, "joined": s["joined"], "created": s["created"], "company": company,
            "cancel_date": None, "sched": False, "change": False, "upgrade_cancel": False, "force_desk": False,
            "activity": ctx.weighted({0: 3, 1: 4, 2: 4, 3: 3, 5: 1}),
            "social": ctx.weighted({0: 3, 1: 4, 3: 3, 6: 1}),
            "guesty": ctx.weighted({0: 4, 1: 3, 3: 2, 6: 1}),
            "payer": ctx.weighted({"good": 75, "late": 15, "bad": 10}),
            "method": ctx.weighted({"direct_debit": 40, "card": 35, "bank_transfer": 20, "cash": 5}),
        }
        if st == "cancelled":
            span = (today - s["joined"]).days
            info["cancel_date"] = s["joined"] + timedelta(days=ctx.rng.randint(45, span - 2))
        W["minfo"][mid] = info
        if staff_id is not None:
            _log(W, s["created"], "staff", staff_id, mid, "member", mid, "created", {"member_number": row["member_number"]})
        else:
            _log(W, s["created"], "member", None, mid, "member", mid, "created", {"member_number": row["member_number"], "channel": "online"})


def _pick_type(ctx, has_company, allow_space):
    w = {"hot_desk": 30, "part_time": 22, "virtual": 12}
    if allow_space:
        w["dedicated_desk"] = 20
        if has_company:
            w["private_office"] = 14
    return ctx.weighted(w)


def _choose_plan(W, ptype, start):
    ctx = W["ctx"]
    legacy = W["legacy_plan"]
    if ptype == "part_time" and legacy is not None and (W["today"] - start).days > 400 and ctx.chance(0.3):
        return legacy
    return ctx.pick(W["plans_by_type"][ptype])


def _find_space(W, kind, start, end):
    cands = W["desk_pool"] if kind == "desk" else W["office_pool"]
    e = end if end is not None else FAR
    for sid in W["ctx"].sample(cands, len(cands)):
        ok = True
        for a, b in W["space_busy"].get((kind, sid), []):
            if start <= b and a <= e:
                ok = False
                break
        if ok:
            return sid
    return None


def _assignment(W, m, ms, kind, space_id, start, end, ms_status, created, cancelled_at):
    ctx, clock = W["ctx"], W["clock"]
    if ms_status == "cancelled" and end is None:
        st, a_end, ended_at = "cancelled", None, cancelled_at
    elif ms_status in ("ended", "cancelled"):
        st, a_end, ended_at = "ended", end, _at(end, 18, 0)
    elif ms_status == "scheduled":
        st, a_end, ended_at = "scheduled", end, None
    else:
        st, a_end, ended_at = "active", end, None
    aid = len(W["space_assignments"]) + 1
    made = created + timedelta(minutes=ctx.rng.randint(2, 40))
    if made > clock or (ended_at is not None and made > ended_at):
        made = created
    staff_id = _staff_for(W, ("community_manager", "front_desk", "operations_manager"), made)
    W["space_assignments"].append({
        "id": aid,
        "assignment_ref": f"SA-{aid:05d}",
        "member_id": m["id"],
        "membership_id": ms["id"],
        "desk_id": space_id if kind == "desk" else None,
        "office_id": space_id if kind == "office" else None,
        "start_date": start.isoformat(),
        "end_date": a_end.isoformat() if a_end is not None else None,
        "status": st,
        "created_by_staff_id": staff_id,
        "created_at": _iso(made),
        "ended_at": _iso(ended_at) if ended_at is not None else None,
    })
    if st != "cancelled":
        W["space_busy"].setdefault((kind, space_id), []).append((start, a_end if a_end is not None else FAR))
    if kind == "office":
        W["office_of_ms"][ms["id"]] = space_id
    _log(W, made, "staff", staff_id, m["id"], "space_assignment", aid, "created",
         {"kind": kind, "space_id": space_id, "start_date": start.isoformat()})
    if st == "ended":
        _log(W, ended_at, "system", None, m["id"], "space_assignment", aid, "ended", None)
    elif st == "cancelled":
        _log(W, ended_at, "staff", staff_id, m["id"], "space_assignment", aid, "cancelled", None)


def _open_membership(W, m, ptype, start, end, status, cancelled_at=None, reason=None):
    ctx, today = W["ctx"], W["today"]
    info = W["minfo"][m["id"]]
    never_started = status == "cancelled" and end is None
    holds = status in ("active", "scheduled")
    if ptype == "private_office" and holds:
        if W["office_open"] >= W["office_open_cap"] or (
                status == "active" and W["office_active"] >= W["office_active_cap"]):
            ptype = "dedicated_desk"
    kind = {"dedicated_desk": "desk", "private_office": "office"}.get(ptype)
    space_id = None
    if kind is not None:
        space_id = _find_space(W, kind, start, start if never_started else end)
        if space_id is None:
            ptype = "hot_desk"
            kind = None
    plan = _choose_plan(W, ptype, start)
    created = _stamp_before(W, start, info["created"], 12)
    if cancelled_at is not None and created >= cancelled_at:
        created = cancelled_at - timedelta(hours=ctx.rng.randint(1, 48))
    price = plan["monthly_price_cents"]
    if (today - start).days > 365 and ctx.chance(0.5):
        price = int(round(price * 0.93 / 100.0)) * 100
    ms_id = len(W["memberships"]) + 1
    staff_id = _staff_for(W, ("front_desk", "community_manager"), created) if ctx.chance(0.7) else None
    row = {
        "id": ms_id,
        "membership_ref": f"MS-{start.year}-{ms_id:05d}",
        "member_id": m["id"],
        "plan_id": plan["id"],
        "status": status,
        "start_date": start.isoformat(),
        "end_date": end.isoformat() if end is not None else None,
        "monthly_price_cents": price,
        "discount_percent": ctx.weighted({0: 30, 5: 2, 10: 4, 15: 2, 20: 2, 25: 1, 50: 1}),
        "billing_day": min(start.day, 28),
        "created_by_staff_id": staff_id,
        "created_at": _iso(created),
        "cancelled_at": _iso(cancelled_at) if cancelled_at is not None else None,
        "cancel_reason": reason if cancelled_at is not None else None,
    }
    W["memberships"].append(row)
    W["ms_by_member"].setdefault(m["id"], []).append(row)
    W["ms_eff"][ms_id] = None if never_started else (start, end if end is not None else FAR)
    if kind == "office" and holds:
        W["office_open"] += 1
        if status == "active":
            W["office_active"] += 1
    actor = "staff" if staff_id is not None else "member"
    _log(W, created, actor, staff_id, m["id"], "membership", ms_id, "created",
         {"plan": plan["code"], "start_date": start.isoformat(), "status": status})
    if cancelled_at is not None:
        _log(W, cancelled_at, "member", None, m["id"], "membership", ms_id, "cancelled", {"reason": reason})
    if kind is not None:
        _assignment(W, m, row, kind, space_id, start, end, status, created, cancelled_at)
    return row


def _member_timeline(W, m):
    ctx, today, clock = W["ctx"], W["today"], W["clock"]
    info = W["minfo"][m["id"]]
    st = info["status"]
    J = info["joined"]
    has_co = info["company"] is not None
    since = (today - J).days

    if st == "prospect":
        if not info["sched"]:
            return
        start = today + timedelta(days=ctx.rng.randint(3, 30))
        if ctx.chance(0.5):
            start = _month_end(today) + timedelta(days=1)
        ptype = "private_office" if W["need_reserved"] else _pick_type(ctx, has_co, True)
        ms = _open_membership(W, m, ptype, start, None, "scheduled")
        if ms["id"] in W["office_of_ms"]:
            W["need_reserved"] = False
        return

    if st == "active":
        cur = J
        if since > 120 and ctx.chance(0.35):
            pe = _month_end(J + timedelta(days=ctx.rng.randint(45, since - 60)))
            if pe < today - timedelta(days=20):
                _open_membership(W, m, _pick_type(ctx, has_co, True), J, pe, "ended")
                cur = pe + timedelta(days=1)
        end = _month_end(today) if info["change"] else None
        ms = _open_membership(W, m, _pick_type(ctx, has_co, True), cur, end, "active")
        if info["change"]:
            actual = W["plan_by_id"][ms["plan_id"]]["plan_type"]
            options = [t for t in ("hot_desk", "part_time", "virtual", "dedicated_desk") if t != actual]
            _open_membership(W, m, ctx.pick(options), end + timedelta(days=1), None, "scheduled")
        elif info["upgrade_cancel"]:
            when = _between(ctx, max(clock - timedelta(days=20), info["created"]), clock - timedelta(hours=1))
            if info["force_desk"] or ctx.chance(0.5):
                ptype2 = "dedicated_desk"
            else:
                ptype2 = ctx.pick(["hot_desk", "part_time"])
            _open_membership(W, m, ptype2, _month_end(today) + timedelta(days=1), None, "cancelled", when,
                             ctx.pick(UPGRADE_CANCEL_REASONS))
        return

    if st == "paused":
        cur = J
        if since > 200 and ctx.chance(0.25):
            pe = _month_end(J + timedelta(days=ctx.rng.randint(45, since - 120)))
            _open_membership(W, m, _pick_type(ctx, has_co, True), J, pe, "ended")
            cur = pe + timedelta(days=1)
        ms = _open_membership(W, m, ctx.pick(["hot_desk", "part_time", "part_time", "virtual"]), cur, None, "paused")
        lo = min(cur + timedelta(days=30), today - timedelta(days=7))
        if lo <= cur:
            lo = cur + timedelta(days=1)
        pause = _date_between(ctx, lo, today - timedelta(days=7))
        W["pause_from"][ms["id"]] = pause
        W["ms_eff"][ms["id"]] = (cur, pause - timedelta(days=1))
        paused_at = _at(pause, ctx.rng.randint(9, 17), ctx.rng.randint(0, 59))
        staff_id = _staff_for(W, ("front_desk", "community_manager"), paused_at)
        _log(W, paused_at, "staff", staff_id, m["id"], "membership", ms["id"], "paused", {"paused_from": pause.isoformat()})
        _log(W, paused_at, "staff", staff_id, m["id"], "member", m["id"], "paused", None)
        return

    # cancelled member
    C = info["cancel_date"]
    cur = J
    span = (C - J).days
    if span > 150 and ctx.chance(0.3):
        pe = _month_end(J + timedelta(days=ctx.rng.randint(45, span - 75)))
        if pe < C - timedelta(days=30):
            _open_membership(W, m, _pick_type(ctx, has_co, True), J, pe, "ended")
            cur = pe + timedelta(days=1)
    ptype = "dedicated_desk" if info["force_desk"] else _pick_type(ctx, has_co, True)
    if ctx.chance(0.75):
        nd = max(cur + timedelta(days=1), C - timedelta(days=ctx.rng.randint(0, 30)))
        notice = _at(nd, ctx.rng.randint(9, 17), ctx.rng.randint(0, 59))
        _open_membership(W, m, ptype, cur, C, "cancelled", notice, ctx.pick(MEMBERSHIP_CANCEL_REASONS))
        left = notice
    else:
        _open_membership(W, m, ptype, cur, C, "ended")
        left = _at(C, 17, 30)
    m["cancelled_at"] = _iso(left)
    _log(W, left, "staff", _staff_for(W, ("front_desk", "community_manager"), left), m["id"], "member",
         m["id"], "cancelled", None)


def _build_memberships(W):
    ctx = W["ctx"]
    members = W["members"]
    actives = [m for m in members if m["status"] == "active"]
    order = ctx.sample(actives, len(actives))
    k_change = max(2, len(actives) // 10)
    k_cancel = max(1, len(actives) // 25)
    for m in order[:k_change]:
        W["minfo"][m["id"]]["change"] = True
    for j, m in enumerate(order[k_change:k_change + k_cancel]):
        W["minfo"][m["id"]]["upgrade_cancel"] = True
        if j == 0:
            W["minfo"][m["id"]]["force_desk"] = True
    prospects = [m for m in members if m["status"] == "prospect"]
    for m in ctx.sample(prospects, max(2, len(prospects) // 3)):
        W["minfo"][m["id"]]["sched"] = True
    cancelled = [m for m in members if m["status"] == "cancelled"]
    if cancelled:
        W["minfo"][ctx.pick(cancelled)["id"]]["force_desk"] = True
    W["need_reserved"] = True
    for m in members:
        _member_timeline(W, m)
    by_office = {}
    for a in W["space_assignments"]:
        if a["office_id"] is not None:
            by_office.setdefault(a["office_id"], []).append(a["status"])
    for o in W["private_offices"]:
        sts = by_office.get(o["id"], [])
        if "active" in sts:
            o["status"] = "occupied"
        elif "scheduled" in sts:
            o["status"] = "reserved"
        elif o["id"] in W["office_maint"]:
            o["status"] = "maintenance"
        else:
            o["status"] = "available"


# ----------------------------------------------------------------- events

def _build_events(W):
    ctx, today, clock = W["ctx"], W["today"], W["clock"]
    rooms = [r for r in W["meeting_rooms"] if r["is_bookable"] == 1]
    big = W["meeting_rooms"][0]
    ne = ctx.n(18, 110)
    n_future = max(6, ne * 3 // 10)
    cat_w = {"networking": 3, "workshop": 4, "talk": 2, "social": 3, "wellness": 3, "member_lunch": 2}
    specs = []
    for i in range(ne):
        future = i < n_future
        placed = None
        for _ in range(40):
            if future:
                d = today + timedelta(days=ctx.rng.randint(1, 45))
            else:
                d = today - timedelta(days=ctx.rng.randint(1, 120))
            if d.weekday() >= 5:
                continue
            cat = ctx.weighted(cat_w)
            h, mi, dur = ctx.pick(EVENT_SLOTS[cat])
            start = _at(d, h, mi)
            end = start + timedelta(minutes=dur)
            room = None
            if cat in ("workshop", "talk") or (cat == "networking" and ctx.chance(0.3)):
                opts = [r for r in rooms if r["capacity"] >= 8]
                room = big if (ctx.chance(0.7) or not opts) else ctx.pick(opts)
                if not _room_free(W, room["id"], start, end):
                    continue
            placed = (cat, start, end, room)
            break
        if placed is None:
            continue
        cat, start, end, room = placed
        if room is not None:
            _room_take(W, room["id"], start, end)
            cap = min(room["capacity"], ctx.pick([12, 16, 20, 24, 30]))
            location = None
        else:
            if cat == "wellness":
                cap = ctx.pick([10, 12, 15])
                location = "Studio on level 2"
            elif cat == "member_lunch":
                cap = ctx.pick([25, 30, 40])
                location = ctx.pick(["Ground floor lounge", "Cafe bar"])
            else:
                cap = ctx.pick([30, 40, 50, 60])
                location = ctx.pick(EVENT_LOCATIONS)
        if cat == "workshop":
            price = ctx.pick([0, 0, 1500, 2500, 3500])
        elif cat == "talk":
            price = ctx.pick([0, 0, 1000])
        elif cat == "networking":
            price = ctx.pick([0, 0, 0, 1000])
        elif cat == "wellness":
            price = ctx.pick([0, 0, 800])
        else:
            price = 0
        title = ctx.pick(EVENT_TEMPLATES[cat])
        if ctx.distractors and ctx.chance(0.12):
            title = title + " (Part 2)"
        specs.append({"cat": cat, "start": start, "end": end, "room": room, "cap": cap, "location": location,
                      "price": price, "title": title,
                      "members_only": 1 if (cat in ("member_lunch", "wellness") or ctx.chance(0.4)) else 0})
    specs.sort(key=lambda s: s["start"])
    fut = [s for s in specs if s["start"] > clock]
    past = [s for s in specs if s["start"] <= clock]
    for s in past:
        s["status"] = "cancelled" if ctx.chance(0.1) else "completed"
    if len(past) > 1 and not any(s["status"] == "cancelled" for s in past):
        ctx.pick(past)["status"] = "cancelled"
    if past and not any(s["status"] == "completed" for s in past):
        past[-1]["status"] = "completed"
    for s in fut:
        s["status"] = ctx.weighted({"scheduled": 78, "draft": 10, "cancelled": 12})
    if fut:
        if not any(s["status"] == "draft" for s in fut):
            fut[-1]["status"] = "draft"
        if not any(s["status"] == "scheduled" for s in fut):
            fut[0]["status"] = "scheduled"
        if len(fut) > 2 and not any(s["status"] == "cancelled" for s in fut):
            ctx.pick(fut[1:-1])["status"] = "cancelled"
    W["event_meta"] = []
    for idx, s in enumerate(specs):
        eid = idx + 1
        start = s["start"]
        if s["status"] == "draft":
            created = _between(ctx, clock - timedelta(days=10), clock - timedelta(hours=1))
        else:
            hi = min(start - timedelta(days=3), clock - timedelta(hours=1))
            created = _between(ctx, hi - timedelta(days=35), hi)
        cancelled_at = None
        if s["status"] == "cancelled":
            cancelled_at = _between(ctx, created + timedelta(hours=1),
                                    min(start - timedelta(hours=2), clock - timedelta(minutes=10)))
        if s["cat"] == "wellness":
            roles = ("facilities", "community_manager")
        elif s["cat"] == "talk":
            roles = ("community_manager", "operations_manager")
        else:
            roles = ("community_manager",)
        host = _staff_for(W, roles, created)
        row = {
            "id": eid,
            "event_code": f"EV-{start.strftime('%y%m')}-{eid:03d}",
            "title": s["title"],
            "description": (EVENT_BLURBS[s["cat"]] + " " + ctx.faker.catch_phrase() + ".") if ctx.chance(0.9) else None,
            "category": s["cat"],
            "room_id": s["room"]["id"] if s["room"] is not None else None,
            "location_note": s["location"],
            "host_staff_id": host,
            "starts_at": _iso(start),
            "ends_at": _iso(s["end"]),
            "capacity": s["cap"],
            "price_cents": s["price"],
            "members_only": s["members_only"],
            "status": s["status"],
            "created_at": _iso(created),
            "cancelled_at": _iso(cancelled_at) if cancelled_at is not None else None,
        }
        W["events"].append(row)
        W["event_meta"].append({"row": row, "start": start, "created": created, "cancelled_at": cancelled_at})
        _log(W, created, "staff", host, None, "event", eid, "created", {"title": s["title"], "status": "draft" if s["status"] == "draft" else "scheduled"})
        if cancelled_at is not None:
            _log(W, cancelled_at, "staff", host, None, "event", eid, "cancelled", None)


def _build_rsvps(W):
    ctx, clock = W["ctx"], W["clock"]
    rows = W["event_rsvps"]
    members = W["members"]
    forced_pop = None
    for ev in W["event_meta"]:
        if ev["row"]["status"] == "scheduled":
            forced_pop = ev["row"]["id"]
            break
    for ev in W["event_meta"]:
        row = ev["row"]
        if row["status"] == "draft":
            continue
        start = ev["start"]
        d = start.date()
        cands = [m for m in members if _member_on(W, m["id"], d)]
        order = _weighted_order(ctx, cands, lambda mm: W["minfo"][mm["id"]]["social"])
        popular = ctx.chance(0.25)
        if row["id"] == forced_pop:
            popular = True
            row["capacity"] = min(row["capacity"], max(4, len(order) // 3))
        cap = row["capacity"]
        target = cap if popular else max(3, int(cap * ctx.rng.uniform(0.3, 0.9)))
        target = min(target, cap)
        max_wait = ctx.rng.randint(2, 5) if popular else 0
        heads, waits = 0, 0
        hi = min(start - timedelta(hours=2), clock - timedelta(minutes=5))
        if ev["cancelled_at"] is not None:
            hi = min(hi, ev["cancelled_at"] - timedelta(minutes=5))
        for m in order:
            if heads >= target and waits >= max_wait:
                break
            plus = ctx.weighted({0: 10, 1: 3, 2: 1})
            if ctx.chance(0.08):
                st = "cancelled"
            elif heads + 1 + plus <= target:
                st = "going"
                heads += 1 + plus
            elif heads + 1 <= target:
                plus = 0
                st = "going"
                heads += 1
            elif waits < max_wait:
                st = "waitlisted"
                waits += 1
            else:
                continue
            info = W["minfo"][m["id"]]
            lo = max(ev["created"] + timedelta(minutes=10), info["created"])
            at = _between(ctx, min(lo, hi), hi)
            cancelled_at = None
            if row["status"] == "cancelled":
                final = "cancelled"
                cancelled_at = ev["cancelled_at"]
            elif st == "cancelled":
                final = "cancelled"
                cancelled_at = _between(ctx, at + timedelta(minutes=5), min(start, clock - timedelta(minutes=1)))
            elif row["status"] == "completed" and st == "going":
                final = "attended" if ctx.chance(0.86) else "no_show"
            else:
                final = st
            rid = len(rows) + 1
            rows.append({
                "id": rid,
                "event_id": row["id"],
                "member_id": m["id"],
                "status": final,
                "plus_ones": plus,
                "rsvp_at": _iso(at),
                "cancelled_at": _iso(cancelled_at) if cancelled_at is not None else None,
            })
            _log(W, at, "member", None, m["id"], "event_rsvp", rid, "rsvp_" + ("waitlisted" if st == "waitlisted" else "going"),
                 {"event_id": row["id"], "plus_ones": plus})
            if cancelled_at is not None and row["status"] != "cancelled":
                _log(W, cancelled_at, "member", None, m["id"], "event_rsvp", rid, "cancelled", None)
            if final in ("attended", "no_show") and row["price_cents"] > 0:
                W["charges"].setdefault(m["id"], []).append((d, _line(
                    "event", f"Event ticket: {row['title']} ({d.isoformat()})", 1 + plus, row["price_cents"],
                    event_id=row["id"])))


# ----------------------------------------------------------------- room bookings

def _place_booking(W, m, d, out):
    ctx, today, clock = W["ctx"], W["today"], W["clock"]
    if not _is_open(W, d):
        return False
    sat = d.weekday() == 5
    for _ in range(6):
        if sat:
            h = ctx.rng.randint(10, 14)
            limit = _at(d, 16, 30)
        else:
            h = ctx.rng.randint(8, 17)
            limit = _at(d, 19, 0)
        start = _at(d, h, ctx.pick([0, 30]))
        dur = ctx.weighted({30: 2, 60: 6, 90: 3, 120: 3, 180: 1, 240: 1})
        end = start + timedelta(minutes=dur)
        if end > limit:
            continue
        att = ctx.weighted({1: 2, 2: 4, 3: 3, 4: 3, 6: 2, 8: 1, 12: 1})
        eligible = [r for r in W["meeting_rooms"]
                    if r["capacity"] >= att and (r["is_bookable"] == 1 or d < today - timedelta(days=14))]
        if not eligible:
            continue
        room = ctx.pick(eligible)
        if end <= clock:
            st = ctx.weighted({"completed": 82, "no_show": 6, "cancelled": 12})
        else:
            st = ctx.weighted({"confirmed": 86, "cancelled": 14})
        if st != "cancelled":
            if not _room_free(W, room["id"], start, end) or not _member_free(W, m["id"], start, end):
                continue
            _room_take(W, room["id"], start, end)
            _member_take(W, m["id"], start, end)
        out.append({"member": m, "room": room, "start": start, "end": end, "att": att, "status": st})
        return True
    return False


def _build_bookings(W):
    ctx, today, clock = W["ctx"], W["today"], W["clock"]
    placed = []
    for m in W["members"]:
        info = W["minfo"][m["id"]]
        if info["status"] not in ("active", "paused", "cancelled"):
            continue
        first, last = _member_span(W, m["id"])
        if first is None:
            continue
        lo = max(today - timedelta(days=90), first + timedelta(days=1))
        hi = min(today + timedelta(days=30), last)
        if lo > hi:
            continue
        days = (hi - lo).days + 1
        k = int(round(info["activity"] * days / 30.0))
        for _ in range(k):
            _place_booking(W, m, _date_between(ctx, lo, hi), placed)
    if ctx.distractors:
        base = [p for p in placed if p["status"] != "cancelled"]
        for p in ctx.sample(base, min(4, len(base))):
            _place_booking(W, p["member"], p["start"].date(), placed)
    placed.sort(key=lambda p: (p["start"], p["room"]["id"]))
    used = {}
    for idx, p in enumerate(placed):
        bid = idx + 1
        m, room, start, end = p["member"], p["room"], p["start"], p["end"]
        info = W["minfo"][m["id"]]
        dur = int((end - start).total_seconds() // 60)
        plan = _plan_on(W, m["id"], start.date())
        allowance = plan["meeting_credit_minutes"] if plan is not None else 0
        credit, charge = 0, 0
        if p["status"] != "cancelled":
            key = (m["id"], start.year, start.month)
            credit = min(dur, max(0, allowance - used.get(key, 0)))
            used[key] = used.get(key, 0) + credit
            charge = (room["hourly_rate_cents"] * (dur - credit) + 30) // 60
        by_staff = _staff_for(W, ("front_desk",), start) if ctx.chance(0.25) else None
        created = start - timedelta(minutes=ctx.rng.randint(60, 21 * 24 * 60))
        created = max(created, info["created"] + timedelta(minutes=10))
        if created > clock - timedelta(minutes=15):
            created = _between(ctx, max(info["created"] + timedelta(minutes=10), clock - timedelta(days=12)),
                               clock - timedelta(minutes=15))
        if created >= start:
            created = start - timedelta(minutes=30)
        cancelled_at, reason = None, None
        if p["status"] == "cancelled":
            cancelled_at = _between(ctx, created + timedelta(minutes=10), min(start, clock - timedelta(minutes=1)))
            reason = ctx.pick(BOOKING_CANCEL_REASONS)
        title = ctx.pick(BOOKING_TITLES)
        if info["company"] is not None and ctx.chance(0.3):
            title = f"{info['company']}: {title}"
        W["room_bookings"].append({
            "id": bid,
            "booking_ref": f"RB-{start.strftime('%y%m')}-{bid:05d}",
            "room_id": room["id"],
            "member_id": m["id"],
            "booked_by_staff_id": by_staff,
            "title": title,
            "start_at": _iso(start),
            "end_at": _iso(end),
            "attendee_count": p["att"],
            "status": p["status"],
            "credit_minutes_used": credit,
            "charge_cents": charge,
            "created_at": _iso(created),
            "cancelled_at": _iso(cancelled_at) if cancelled_at is not None else None,
            "cancel_reason": reason,
        })
        actor = "staff" if by_staff is not None else "member"
        _log(W, created, actor, by_staff, m["id"], "room_booking", bid, "created",
             {"room": room["code"], "start_at": _iso(start), "end_at": _iso(end)})
        if cancelled_at is not None:
            _log(W, cancelled_at, actor, by_staff, m["id"], "room_booking", bid, "cancelled", {"reason": reason})
        if p["status"] in ("completed", "no_show") and charge > 0:
            W["charges"].setdefault(m["id"], []).append((start.date(), _line(
                "meeting_room",
                f"Meeting room {room['name']} on {start.date().isoformat()} ({dur} min, {credit} min from credits)",
                1, charge, room_booking_id=bid)))


# ----------------------------------------------------------------- day passes

def _single_pass(W, prod, d, st):
    ctx, today, clock = W["ctx"], W["today"], W["clock"]
    sold = _at(d - timedelta(days=ctx.pick([0, 0, 0, 1, 2, 5, 9])), ctx.rng.randint(7, 17), ctx.rng.randint(0, 59))
    if sold > clock - timedelta(minutes=5):
        sold = _between(ctx, clock - timedelta(days=3), clock - timedelta(minutes=5))
    last_in = None
    if st == "checked_in":
        lo = min(max(_at(today, 7, 30), sold + timedelta(minutes=1)), clock - timedelta(minutes=2))
        last_in = _between(ctx, lo, clock - timedelta(minutes=1))
    elif st == "used":
        hour = ctx.rng.randint(8, 12) if prod["pass_kind"] == "full_day" else ctx.pick([8, 9, 13, 14])
        if d.weekday() == 5:
            hour = max(hour, 9)
        last_in = _at(d, hour, ctx.rng.randint(0, 59))
        if last_in <= sold:
            last_in = sold + timedelta(minutes=ctx.rng.randint(2, 20))
    remaining = 0 if st in ("checked_in", "used") else prod["days_included"]
    return {"prod": prod, "from": d, "until": d, "remaining": remaining, "status": st, "sold": sold, "last_in": last_in}


def _pack_pass(W, prod):
    ctx, today, clock = W["ctx"], W["today"], W["clock"]
    s_day = today - timedelta(days=ctx.rng.randint(0, 150))
    sold = _at(s_day, ctx.rng.randint(7, 17), ctx.rng.randint(0, 59))
    if sold > clock - timedelta(minutes=5):
        sold = _between(ctx, clock - timedelta(hours=20), clock - timedelta(minutes=5))
    start = sold.date()
    until = start + timedelta(days=PACK_VALID_DAYS)
    total = prod["days_included"]
    elapsed = (min(today, until) - start).days
    u = ctx.rng.randint(0, min(total, elapsed // 3 + 1))
    remaining = total - u
    if until < today:
        st = "used" if remaining == 0 else "expired"
    elif u == 0:
        st = ctx.weighted({"issued": 86, "cancelled": 6, "refunded": 8})
    elif start == today or ctx.chance(0.12):
        st = "checked_in"
    elif remaining == 0:
        st = "used"
    else:
        st = "issued"
    last_in = None
    if u > 0:
        if st == "checked_in":
            lo = min(max(_at(today, 7, 30), sold + timedelta(minutes=1)), clock - timedelta(minutes=2))
            last_in = _between(ctx, lo, clock - timedelta(minutes=1))
        else:
            ld = _date_between(ctx, start, min(today - timedelta(days=1), until))
            ld = _open_day_from(W, ld, -1)
            if ld < start:
                ld = start
            last_in = _at(ld, ctx.rng.randint(9 if ld.weekday() == 5 else 8, 12), ctx.rng.randint(0, 59))
            if last_in <= sold:
                last_in = sold + timedelta(minutes=ctx.rng.randint(2, 30))
    return {"prod": prod, "from": start, "until": until, "remaining": remaining, "status": st, "sold": sold, "last_in": last_in}


def _build_passes(W):
    ctx, today, clock = W["ctx"], W["today"], W["clock"]
    f = ctx.pick([0.9, 1.0, 1.0, 1.1])
    by_code = {}
    for i, (code, name, kind, days, price, mins, active) in enumerate(PASS_CATALOG):
        row = {"id": i + 1, "code": code, "name": name, "pass_kind": kind, "days_included": days,
               "price_cents": int(round(price * f / 100.0)) * 100, "includes_meeting_minutes": mins,
               "is_active": active}
        W["pass_products"].append(row)
        by_code[code] = row
    specs = []
    n = ctx.n(45, 300)
    for _ in range(n):
        prod = by_code[ctx.weighted(PASS_WEIGHTS)]
        if prod["pass_kind"] == "multi_day_pack":
            specs.append(_pack_pass(W, prod))
            continue
        d = None
        for _ in range(10):
            c = today + timedelta(days=ctx.rng.randint(-90, 21))
            if _is_open(W, c):
                d = c
                break
        if d is None:
            continue
        if d > today:
            st = ctx.weighted({"issued": 85, "cancelled": 8, "refunded": 7})
        elif d == today:
            st = ctx.weighted({"checked_in": 6, "issued": 4})
        else:
            st = ctx.weighted({"used": 80, "expired": 9, "cancelled": 4, "refunded": 7})
        specs.append(_single_pass(W, prod, d, st))
    # make sure every status of the life cycle is present
    day = by_code["DAY"]
    nxt = _open_day_from(W, today + timedelta(days=1), 1)
    prev = _open_day_from(W, today - timedelta(days=1), -1)
    if _is_open(W, today) and clock.hour >= 8:
        specs.append(_single_pass(W, day, today, "checked_in"))
    specs.append(_single_pass(W, day, nxt, "issued"))
    specs.append(_single_pass(W, by_code["HALF"], prev, "used"))
    specs.append(_single_pass(W, day, _open_day_from(W, today - timedelta(days=12), -1), "expired"))
    specs.append(_single_pass(W, day, _open_day_from(W, today + timedelta(days=6), 1), "cancelled"))
    specs.append(_single_pass(W, by_code["HALF"], _open_day_from(W, today - timedelta(days=20), -1), "refunded"))

    visitors = []
    seen_v = set()
    members = [m for m in W["members"] if m["status"] == "active"]
    for s in specs:
        if visitors and ctx.chance(0.2):
            s["visitor"] = ctx.pick(visitors)
        else:
            first, last = ctx.faker.first_name(), ctx.faker.last_name()
            v = {"name": f"{first} {last}",
                 "email": _email(ctx, first, last, ctx.pick(PERSONAL_DOMAINS), seen_v),
                 "phone": ctx.faker.phone_number() if ctx.chance(0.7) else None}
            visitors.append(v)
            s["visitor"] = v
    if ctx.distractors:
        singles = [s for s in specs if s["prod"]["pass_kind"] != "multi_day_pack" and s["status"] in ("used", "issued")]
        for s in ctx.sample(singles, min(2, len(singles))):
            twin = dict(s)
            twin["status"] = "refunded"
            twin["remaining"] = twin["prod"]["days_included"]
            twin["last_in"] = None
            twin["sold"] = min(s["sold"] + timedelta(minutes=4), clock - timedelta(minutes=1))
            specs.append(twin)
    specs.sort(key=lambda s: s["sold"])
    seen_codes = set()
    for idx, s in enumerate(specs):
        pid = idx + 1
        prod = s["prod"]
        st = s["status"]
        sold = s["sold"]
        price = prod["price_cents"]
        if ctx.chance(0.1):
            price = int(round(price * 0.8 / 100.0)) * 100
        method = ctx.weighted({"card": 6, "cash": 1, "online": 3})
        staff_id = None if method == "online" else _staff_for(W, ("front_desk",), sold)
        cancelled_at = None
        if st in ("cancelled", "refunded"):
            hi = min(sold + timedelta(days=3), clock - timedelta(minutes=1))
            if prod["pass_kind"] != "multi_day_pack":
                hi = min(hi, _at(s["from"], 8, 0))
            cancelled_at = _between(ctx, sold + timedelta(minutes=5), hi)
        referred = None
        if members and ctx.chance(0.2):
            ref = ctx.pick(members)
            if ref["created_at"] < _iso(sold):
                referred = ref["id"]
        code = ctx.unique(lambda: "DP-" + "".join(ctx.pick(ALNUM) for _ in range(6)), seen_codes)
        v = s["visitor"]
        W["day_passes"].append({
            "id": pid,
            "pass_code": code,
            "pass_product_id": prod["id"],
            "visitor_name": v["name"],
            "visitor_email": v["email"],
            "visitor_phone": v["phone"],
            "referred_by_member_id": referred,
            "valid_from": s["from"].isoformat(),
            "valid_until": s["until"].isoformat(),
            "days_remaining": s["remaining"],
            "price_cents": price,
            "payment_method": method,
            "status": st,
            "sold_by_staff_id": staff_id,
            "sold_at": _iso(sold),
            "last_checked_in_at": _iso(s["last_in"]) if s["last_in"] is not None else None,
            "cancelled_at": _iso(cancelled_at) if cancelled_at is not None else None,
            "refunded_cents": price if st == "refunded" else 0,
        })
        _log(W, sold, "staff" if staff_id is not None else "system", staff_id, None, "day_pass", pid, "sold",
             {"pass_code": code, "product": prod["code"], "price_cents": price})
        if s["last_in"] is not None:
            desk = _staff_for(W, ("front_desk",), s["last_in"])
            _log(W, s["last_in"], "staff", desk, None, "day_pass", pid, "checked_in", None)
        if cancelled_at is not None:
            _log(W, cancelled_at, "staff", _staff_for(W, ("front_desk",), cancelled_at), None, "day_pass", pid,
                 "refunded" if st == "refunded" else "cancelled", None)


# ----------------------------------------------------------------- guests

def _guest_spec(W, mid, d, st, arrival):
    ctx, clock = W["ctx"], W["clock"]
    created = arrival - timedelta(minutes=ctx.rng.randint(30, 10 * 24 * 60))
    if created > clock - timedelta(minutes=5):
        created = _between(ctx, clock - timedelta(days=6), clock - timedelta(minutes=5))
    cin, cout, canc = None, None, None
    if st in ("checked_in", "checked_out"):
        cin = arrival + timedelta(minutes=ctx.rng.randint(-15, 20))
        if cin > clock - timedelta(minutes=1):
            cin = clock - timedelta(minutes=ctx.rng.randint(1, 10))
        if cin <= created:
            cin = created + timedelta(minutes=1)
    if st == "checked_out":
        cout = min(cin + timedelta(minutes=ctx.rng.randint(45, 360)), _at(d, 21, 0))
        if cout <= cin:
            cout = cin + timedelta(minutes=30)
    if st == "cancelled":
        canc = _between(ctx, created + timedelta(minutes=5), min(arrival, clock - timedelta(minutes=1)))
    first, last = ctx.faker.first_name(), ctx.faker.last_name()
    email = None
    if ctx.chance(0.65):
        email = f"{_slug(first) or 'guest'}.{_slug(last) or 'visitor'}@{ctx.pick(PERSONAL_DOMAINS)}"
    return {"mid": mid, "d": d, "arrival": arrival, "status": st, "created": created, "cin": cin, "cout": cout,
            "canc": canc, "name": f"{first} {last}", "email": email,
            "company": ctx.faker.company() if ctx.chance(0.55) else None}


def _build_guests(W):
    ctx, today, clock = W["ctx"], W["today"], W["clock"]
    hosts = [m["id"] for m in W["members"] if m["status"] == "active" and W["minfo"][m["id"]]["guesty"] > 0]
    if not hosts:
        hosts = [m["id"] for m in W["members"] if m["status"] == "active"]
    weights = {mid: max(1, W["minfo"][mid]["guesty"]) for mid in hosts}
    firsts = {mid: _member_span(W, mid)[0] for mid in hosts}
    specs = []
    n = ctx.n(60, 400)
    for _ in range(n):
        mid = ctx.weighted(weights)
        first = firsts[mid]
        lo = max(today - timedelta(days=75), (first + timedelta(days=1)) if first is not None else today)
        d = None
        for _ in range(8):
            c = _date_between(ctx, lo, today + timedelta(days=21))
            if _is_open(W, c):
                d = c
                break
        if d is None:
            continue
        arrival = _at(d, ctx.rng.randint(10 if d.weekday() == 5 else 8, 15 if d.weekday() == 5 else 16),
                      ctx.pick([0, 15, 30, 45]))
        if d > today:
            st = ctx.weighted({"expected": 88, "cancelled": 12})
        elif d == today:
            if arrival <= clock - timedelta(minutes=15):
                st = ctx.weighted({"checked_in": 8, "expected": 1, "cancelled": 1})
            else:
                st = ctx.weighted({"expected": 88, "cancelled": 12})
        else:
            st = ctx.weighted({"checked_out": 78, "no_show": 10, "cancelled": 12})
        specs.append(_guest_spec(W, mid, d, st, arrival))
    # every status present
    old_hosts = [mid for mid in hosts if firsts[mid] is not None and firsts[mid] <= today - timedelta(days=20)] or hosts
    if _is_open(W, today) and clock.hour >= 9:
        specs.append(_guest_spec(W, ctx.pick(old_hosts), today, "checked_in", _at(today, clock.hour - 1, 0)))
    nxt = _open_day_from(W, today + timedelta(days=1), 1)
    specs.append(_guest_spec(W, ctx.pick(old_hosts), nxt, "expected", _at(nxt, 10, 0)))
    prev = _open_day_from(W, today - timedelta(days=1), -1)
    specs.append(_guest_spec(W, ctx.pick(old_hosts), prev, "checked_out", _at(prev, 10, 30)))
    ns = _open_day_from(W, today - timedelta(days=ctx.rng.randint(2, 10)), -1)
    specs.append(_guest_spec(W, ctx.pick(old_hosts), ns, "no_show", _at(ns, 14, 0)))
    cd = _open_day_from(W, today + timedelta(days=ctx.rng.randint(3, 15)), 1)
    specs.append(_guest_spec(W, ctx.pick(old_hosts), cd, "cancelled", _at(cd, 11, 0)))
    if ctx.distractors:
        for s in ctx.sample(list(specs), min(3, len(specs))):
            specs.append(_guest_spec(W, s["mid"], s["d"], s["status"],
                                     s["arrival"] + timedelta(minutes=ctx.pick([15, 30, 45]))))
    specs.sort(key=lambda s: (s["d"], s["arrival"], s["mid"]))
    used = {}
    for idx, s in enumerate(specs):
        gid = idx + 1
        mid, d, st = s["mid"], s["d"], s["status"]
        comp, fee = 0, 0
        if st in ("expected", "checked_in", "checked_out"):
            plan = _plan_on(W, mid, d)
            allow = plan["guest_passes_per_month"] if plan is not None else 0
            key = (mid, d.year, d.month)
            if used.get(key, 0) < allow:
                comp = 1
                used[key] = used.get(key, 0) + 1
            else:
                fee = GUEST_FEE_CENTS
        staff_id = _staff_for(W, ("front_desk",), s["created"]) if ctx.chance(0.35) else None
        W["guest_registrations"].append({
            "id": gid,
            "guest_ref": f"GR-{gid:05d}",
            "host_member_id": mid,
            "guest_name": s["name"],
            "guest_email": s["email"],
            "guest_company": s["company"],
            "visit_date": d.isoformat(),
            "expected_arrival": s["arrival"].strftime("%H:%M"),
            "purpose": ctx.pick(GUEST_PURPOSES) if ctx.chance(0.85) else None,
            "status": st,
            "is_complimentary": comp,
            "fee_cents": fee,
            "registered_by_staff_id": staff_id,
            "created_at": _iso(s["created"]),
            "checked_in_at": _iso(s["cin"]) if s["cin"] is not None else None,
            "checked_out_at": _iso(s["cout"]) if s["cout"] is not None else None,
            "cancelled_at": _iso(s["canc"]) if s["canc"] is not None else None,
        })
        _log(W, s["created"], "staff" if staff_id is not None else "member", staff_id, mid, "guest_registration",
             gid, "registered", {"visit_date": d.isoformat(), "guest_name": s["name"]})
        if s["cin"] is not None:
            _log(W, s["cin"], "staff", _staff_for(W, ("front_desk",), s["cin"]), mid, "guest_registration", gid, "checked_in", None)
        if s["cout"] is not None:
            _log(W, s["cout"], "system", None, mid, "guest_registration", gid, "checked_out", None)
        if s["canc"] is not None:
            _log(W, s["canc"], "member", None, mid, "guest_registration", gid, "cancelled", None)
        if st == "checked_out" and fee > 0:
            W["charges"].setdefault(mid, []).append((d, _line(
                "guest_fee", f"Guest fee: {s['name']} on {d.isoformat()}", 1, fee)))


# ----------------------------------------------------------------- invoices and payments

def _membership_spec(W, ms, ps, pe, with_setup, draft):
    ctx = W["ctx"]
    plan = W["plan_by_id"][ms["plan_id"]]
    disc = ms["discount_percent"]
    unit = ms["monthly_price_cents"] * (100 - disc) // 100
    desc = f"{plan['name']} membership, {ps.isoformat()} to {pe.isoformat()}"
    if disc:
        desc += f" ({disc}% discount)"
    lines = [_line("membership", desc, 1, unit, membership_id=ms["id"])]
    oid = W["office_of_ms"].get(ms["id"])
    if oid is not None:
        o = W["office_by_id"][oid]
        lines.append(_line("office", f"Private office {o['code']} {o['name']}, {ps.isoformat()} to {pe.isoformat()}",
                           1, o["monthly_price_cents"], membership_id=ms["id"]))
    if with_setup and plan["setup_fee_cents"] > 0:
        lines.append(_line("setup_fee", f"One-time setup fee: {plan['name']}", 1, plan["setup_fee_cents"],
                           membership_id=ms["id"]))
    if ctx.chance(0.04):
        hi = min(25, unit // 200)
        if hi >= 5:
            lines.append(_line("credit", ctx.pick(CREDIT_REASONS), 1, -ctx.rng.randint(5, hi) * 100))
    return {"member_id": ms["member_id"], "ps": ps, "pe": pe, "issue": ps if not draft else ps,
            "lines": lines, "draft": draft}


def _part(ctx, total):
    p = int(total * ctx.rng.uniform(0.3, 0.7) / 100) * 100
    return max(100, min(total - 100, p))


def _outcome(W, s):
    ctx, today = W["ctx"], W["today"]
    if s["draft"]:
        return "draft"
    payer = W["minfo"][s["member_id"]]["payer"]
    due = s["issue"] + timedelta(days=NET_DAYS)
    if ctx.chance(0.025):
        return "void"
    if due < today:
        p_paid = {"good": 0.97, "late": 0.75, "bad": 0.45}[payer]
        if ctx.chance(p_paid):
            return "paid_ontime" if (payer == "good" or ctx.chance(0.3)) else "paid_late"
        return "overdue_partial" if ctx.chance(0.3) else "overdue_unpaid"
    p_paid, p_part = {"good": (0.55, 0.05), "late": (0.2, 0.1), "bad": (0.1, 0.1)}[payer]
    r = ctx.rng.random()
    if r < p_paid:
        return "paid_ontime"
    if r < p_paid + p_part:
        return "partial"
    return "issued"


def _build_invoices(W):
    ctx, today, clock = W["ctx"], W["today"], W["clock"]
    wstart = today - timedelta(days=BILLING_WINDOW_DAYS)
    first_ms = {}
    for ms in W["memberships"]:
        eff = W["ms_eff"].get(ms["id"])
        if eff is None or ms["status"] == "scheduled":
            continue
        cur = first_ms.get(ms["member_id"])
        if cur is None or eff[0] < cur[0]:
            first_ms[ms["member_id"]] = (eff[0], ms["id"])
    specs = []
    next_periods = []
    for ms in W["memberships"]:
        eff = W["ms_eff"].get(ms["id"])
        if eff is None or ms["status"] == "scheduled":
            continue
        start = eff[0]
        bill_end = min(today, eff[1])
        bd = ms["billing_day"]
        k = 0
        while True:
            y, mo = _shift_month(start.year, start.month, k)
            ps = date(y, mo, bd)
            ny, nm = _shift_month(start.year, start.month, k + 1)
            pe = date(ny, nm, bd) - timedelta(days=1)
            if ps > bill_end:
                break
            if ps >= wstart:
                setup = k == 0 and first_ms[ms["member_id"]][1] == ms["id"]
                specs.append(_membership_spec(W, ms, ps, pe, setup, False))
            k += 1
        if ms["status"] == "active" and ps <= eff[1]:
            next_periods.append((ms, ps, pe))
    chosen = [c for c in next_periods if c[1] <= today + timedelta(days=12) and ctx.chance(0.6)]
    if not chosen and next_periods:
        chosen = [min(next_periods, key=lambda c: c[1])]
    for ms, ps, pe in chosen:
        specs.append(_membership_spec(W, ms, ps, pe, False, True))
    # attach usage charges to the invoice following the month they happened in
    by_member = {}
    for s in specs:
        by_member.setdefault(s["member_id"], []).append(s)
    for mid, lst in by_member.items():
        lst.sort(key=lambda s: s["ps"])
        charges = sorted(W["charges"].get(mid, []), key=lambda c: c[0])
        taken = [False] * len(charges)
        for s in lst:
            py, pm = _shift_month(s["ps"].year, s["ps"].month, -1)
            wlo = date(py, pm, s["ps"].day)
            for i, (cd, line) in enumerate(charges):
                if not taken[i] and wlo <= cd < s["ps"] and cd < today:
                    s["lines"].append(dict(line))
                    taken[i] = True
    # one-off invoices without a period
    for m in W["members"]:
        if m["status"] == "active" and ctx.chance(0.07):
            desc, price = ctx.pick(ADHOC_ITEMS)
            issue = today - timedelta(days=ctx.rng.randint(1, 60))
            if (issue - W["minfo"][m["id"]]["joined"]).days < 1:
                continue
            qty = ctx.pick([1, 1, 2]) if price <= 3000 else 1
            specs.append({"member_id": m["id"], "ps": None, "pe": None, "issue": issue,
                          "lines": [_line("other", desc, qty, price)], "draft": False, "adhoc": True})
    specs.sort(key=lambda s: (s["issue"], s["member_id"]))
    for s in specs:
        subtotal = sum(l["amount_cents"] for l in s["lines"])
        s["subtotal"] = subtotal
        s["tax"] = (subtotal * TAX_PERCENT + 50) // 100
        s["total"] = subtotal + s["tax"]
        if s["draft"]:
            s["created"] = _between(ctx, clock - timedelta(days=2), clock - timedelta(minutes=10))
            s["staff"] = None
        elif s.get("adhoc"):
            s["created"] = _at(s["issue"], ctx.rng.randint(10, 16), ctx.rng.randint(0, 59))
            s["staff"] = _staff_for(W, ("finance", "front_desk"), s["created"])
        else:
            s["created"] = _at(s["issue"], 6, 0)
            s["staff"] = None
        s["outcome"] = _outcome(W, s)
    # make sure each invoice status shows up
    past = [s for s in specs if not s["draft"] and s["issue"] + timedelta(days=NET_DAYS) < today]
    recent = [s for s in specs if not s["draft"] and s["issue"] + timedelta(days=NET_DAYS) >= today and s["issue"] < today]
    outs = [s["outcome"] for s in specs]
    if past and not any(o.startswith("overdue") for o in outs):
        cands = [s for s in past if s["outcome"].startswith("paid")] or past
        ctx.pick(cands)["outcome"] = "overdue_unpaid"
    if past and not any(s["outcome"] == "void" for s in specs):
        cands = [s for s in past if s["outcome"].startswith("paid")] or past
        ctx.pick(cands)["outcome"] = "void"
    if recent and not any(s["outcome"] == "partial" for s in specs):
        cands = [s for s in recent if s["outcome"] == "paid_ontime"] or recent
        ctx.pick(cands)["outcome"] = "partial"
    if recent and not any(s["outcome"] == "issued" for s in specs):
        cands = [s for s in recent if s["outcome"] != "partial"] or recent
        ctx.pick(cands)["outcome"] = "issued"

    pays = []
    line_id = 0
    for idx, s in enumerate(specs):
        iid = idx + 1
        mid = s["member_id"]
        info = W["minfo"][mid]
        method = info["method"]
        issue = s["issue"]
        due = issue + timedelta(days=NET_DAYS)
        created = s["created"]
        total = s["total"]
        outcome = s["outcome"]
        ontime_lo = created + timedelta(hours=1)
        ontime_hi = min(_at(due, 18, 0), clock - timedelta(minutes=10))
        if outcome in ("paid_ontime", "partial", "overdue_partial") and ontime_hi <= ontime_lo:
            outcome = "issued" if due >= today else "overdue_unpaid"
        late_lo = _at(due + timedelta(days=1), 9, 0)
        late_hi = min(late_lo + timedelta(days=25), clock - timedelta(minutes=10))
        if outcome == "paid_late" and late_hi <= late_lo:
            outcome = "overdue_unpaid"
        mine = []
        paid_at, voided_at, void_reason = None, None, None
        if outcome in ("paid_ontime", "paid_late"):
            if outcome == "paid_ontime":
                t = _between(ctx, ontime_lo, ontime_hi)
            else:
                t = _between(ctx, late_lo, late_hi)
            if method in ("direct_debit", "card") and ctx.chance(0.12 if outcome == "paid_ontime" else 0.5):
                ft = min(_between(ctx, created + timedelta(minutes=30), t - timedelta(minutes=30)),
                         t - timedelta(minutes=1))
                mine.append((ft, total, "failed", ctx.pick(PAYMENT_FAIL_NOTES)))
            if total >= 2000 and ctx.chance(0.08):
                part = _part(ctx, total)
                t0 = min(_between(ctx, created + timedelta(minutes=40), t - timedelta(minutes=20)),
                         t - timedelta(minutes=1))
                mine.append((t0, part, "completed", "Part payment"))
                mine.append((t, total - part, "completed", "Balance payment"))
            else:
                mine.append((t, total, "completed", None))
            if ctx.chance(0.02):
                mine.append((t + timedelta(minutes=3), total, "refunded", "Duplicate charge refunded"))
            status = "paid"
            paid_at = t
        elif outcome in ("partial", "overdue_partial"):
            t = _between(ctx, ontime_lo, ontime_hi)
            mine.append((t, _part(ctx, total), "completed", "Part payment"))
            status = "partially_paid" if outcome == "partial" else "overdue"
        elif outcome == "overdue_unpaid":
            status = "overdue"
            if method in ("direct_debit", "card") and ctx.chance(0.6):
                mine.append((_between(ctx, ontime_lo, min(_at(due, 18, 0), clock - timedelta(minutes=10))),
                             total, "failed", ctx.pick(PAYMENT_FAIL_NOTES)))
        elif outcome == "issued":
            status = "issued"
            if method == "direct_debit" and ctx.chance(0.1) and ontime_hi > ontime_lo:
                mine.append((_between(ctx, ontime_lo, ontime_hi), total, "failed", ctx.pick(PAYMENT_FAIL_NOTES)))
        elif outcome == "void":
            status = "void"
            voided_at = _between(ctx, created + timedelta(hours=1),
                                 min(created + timedelta(days=5), clock - timedelta(minutes=10)))
            void_reason = ctx.pick(VOID_REASONS)
            if method == "card" and ctx.chance(0.35):
                t = min(_between(ctx, created + timedelta(minutes=30), voided_at - timedelta(minutes=10)),
                        voided_at - timedelta(minutes=1))
                mine.append((t, total, "refunded", "Refunded when the invoice was voided"))
        else:
            status = "draft"
        amount_paid = sum(p[1] for p in mine if p[2] == "completed")
        number = f"INV-{issue.year}{issue.month:02d}-{iid:05d}"
        W["invoices"].append({
            "id": iid,
            "invoice_number": number,
            "member_id": mid,
            "period_start": s["ps"].isoformat() if s["ps"] is not None else None,
            "period_end": s["pe"].isoformat() if s["pe"] is not None else None,
            "issue_date": issue.isoformat(),
            "due_date": due.isoformat(),
            "status": status,
            "subtotal_cents": s["subtotal"],
            "tax_cents": s["tax"],
            "total_cents": total,
            "amount_paid_cents": amount_paid,
            "created_by_staff_id": s["staff"],
            "created_at": _iso(created),
            "paid_at": _iso(paid_at) if paid_at is not None else None,
            "voided_at": _iso(voided_at) if voided_at is not None else None,
            "void_reason": void_reason,
        })
        for l in s["lines"]:
            line_id += 1
            row = {"id": line_id, "invoice_id": iid}
            row.update(l)
            W["invoice_lines"].append(row)
        _log(W, created, "staff" if s["staff"] is not None else "system", s["staff"], mid, "invoice", iid,
             "drafted" if status == "draft" else "issued", {"invoice_number": number, "total_cents": total})
        if voided_at is not None:
            _log(W, voided_at, "staff", _staff_for(W, ("finance",), voided_at), mid, "invoice", iid, "voided",
                 {"reason": void_reason})
        for p in mine:
            pays.append({"invoice_id": iid, "member_id": mid, "at": p[0], "amount": p[1], "status": p[2],
                         "note": p[3], "method": method})
    # guarantee failed and refunded payments exist
    if not any(p["status"] == "refunded" for p in pays):
        for p in pays:
            if p["status"] == "completed" and p["at"] + timedelta(minutes=5) <= clock:
                pays.append(dict(p, at=p["at"] + timedelta(minutes=3), status="refunded",
                                 note="Duplicate charge refunded"))
                break
    if not any(p["status"] == "failed" for p in pays):
        for p in pays:
            if p["status"] == "completed" and p["method"] in ("card", "direct_debit"):
                pays.append(dict(p, at=p["at"] - timedelta(minutes=20), status="failed", note="Card declined"))
                break
    pays.sort(key=lambda p: p["at"])
    for idx, p in enumerate(pays):
        pid = idx + 1
        method = p["method"]
        staff_id = None
        if p["status"] == "completed":
            if method in ("bank_transfer", "cash"):
                staff_id = _staff_for(W, ("finance",), p["at"])
            elif method == "card" and ctx.chance(0.4):
                staff_id = _staff_for(W, ("front_desk",), p["at"])
        elif p["status"] == "refunded":
            staff_id = _staff_for(W, ("finance",), p["at"])
        W["payments"].append({
            "id": pid,
            "payment_ref": f"PAY-{p['at'].strftime('%y%m%d')}-{pid:05d}",
            "invoice_id": p["invoice_id"],
            "member_id": p["member_id"],
            "amount_cents": p["amount"],
            "method": method,
            "status": p["status"],
            "paid_at": _iso(p["at"]),
            "recorded_by_staff_id": staff_id,
            "note": p["note"],
        })
        action = {"completed": "recorded", "failed": "failed", "refunded": "refunded"}[p["status"]]
        _log(W, p["at"], "staff" if staff_id is not None else "system", staff_id, p["member_id"], "payment", pid,
             action, {"invoice_id": p["invoice_id"], "amount_cents": p["amount"], "method": method})


# ----------------------------------------------------------------- entry point

def build(ctx):
    clock = ctx.clock
    W = {
        "ctx": ctx, "clock": clock, "today": ctx.today, "log_from": clock - timedelta(days=LOG_WINDOW_DAYS),
        "staff": [], "opening_hours": [], "membership_plans": [], "members": [], "memberships": [],
        "desks": [], "private_offices": [], "space_assignments": [], "meeting_rooms": [], "room_bookings": [],
        "pass_products": [], "day_passes": [], "guest_registrations": [], "events": [], "event_rsvps": [],
        "invoices": [], "invoice_lines": [], "payments": [], "log": [],
        "space_busy": {}, "room_busy": {}, "member_busy": {}, "minfo": {}, "member_by_id": {},
        "ms_by_member": {}, "ms_eff": {}, "pause_from": {}, "office_of_ms": {}, "plan_by_id": {},
        "room_by_id": {}, "charges": {},
    }
    _build_staff(W)
    _build_hours(W)
    _build_plans(W)
    _build_desks(W)
    _build_offices(W)
    _build_rooms(W)
    _build_members(W)
    _build_memberships(W)
    _build_events(W)
    _build_rsvps(W)
    _build_bookings(W)
    _build_passes(W)
    _build_guests(W)
    _build_invoices(W)
    log = sorted(W["log"], key=lambda e: e["occurred_at"])
    activity = []
    for i, e in enumerate(log):
        row = {"id": i + 1}
        row.update(e)
        activity.append(row)
    return {
        "staff": W["staff"],
        "opening_hours": W["opening_hours"],
        "membership_plans": W["membership_plans"],
        "members": W["members"],
        "memberships": W["memberships"],
        "desks": W["desks"],
        "private_offices": W["private_offices"],
        "space_assignments": W["space_assignments"],
        "meeting_rooms": W["meeting_rooms"],
        "room_bookings": W["room_bookings"],
        "pass_products": W["pass_products"],
        "day_passes": W["day_passes"],
        "guest_registrations": W["guest_registrations"],
        "events": W["events"],
        "event_rsvps": W["event_rsvps"],
        "invoices": W["invoices"],
        "invoice_lines": W["invoice_lines"],
        "payments": W["payments"],
        "activity_log": activity,
    }
