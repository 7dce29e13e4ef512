"""World builder for Harbor Light Marina (slips, transient dockage, fuel dock, boatyard, billing)."""
from datetime import date, datetime, timedelta

TABLE_ORDER = [
    "staff", "owners", "boats", "docks", "slips", "rate_plans", "facility_hours",
    "slip_leases", "slip_waitlist", "transient_reservations", "fuel_products", "fuel_orders",
    "service_catalog", "work_orders", "work_order_items", "invoices", "invoice_lines",
    "payments", "activity_log",
]

TAX_BP = 635  # 6.35 % sales tax (basis points) on taxable invoice lines
LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"
CODE_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December"]

EMAIL_DOMAINS = ["gmail.com", "yahoo.com", "outlook.com", "icloud.com", "comcast.net",
                 "aol.com", "hotmail.com", "verizon.net"]

LOCAL_PLACES = [
    ("Mystic", "CT", "06355", "860"), ("Stonington", "CT", "06378", "860"),
    ("Groton", "CT", "06340", "860"), ("New London", "CT", "06320", "860"),
    ("Old Saybrook", "CT", "06475", "860"), ("Norwich", "CT", "06360", "860"),
    ("Essex", "CT", "06426", "860"), ("Madison", "CT", "06443", "203"),
    ("Guilford", "CT", "06437", "203"), ("Westerly", "RI", "02891", "401"),
    ("Ledyard", "CT", "06339", "860"), ("Niantic", "CT", "06357", "860"),
]
VISITOR_PLACES = [
    ("Newport", "RI", "02840", "401"), ("Bristol", "RI", "02809", "401"),
    ("Annapolis", "MD", "21401", "410"), ("Oyster Bay", "NY", "11771", "516"),
    ("Sag Harbor", "NY", "11963", "631"), ("Greenwich", "CT", "06830", "203"),
    ("Marblehead", "MA", "01945", "781"), ("Hingham", "MA", "02043", "781"),
    ("Boston", "MA", "02110", "617"), ("Portland", "ME", "04101", "207"),
    ("Camden", "ME", "04843", "207"), ("Cape May", "NJ", "08204", "609"),
    ("Falmouth", "MA", "02540", "508"), ("Montauk", "NY", "11954", "631"),
]

INSURERS = [("BoatUS", "BUS"), ("Progressive", "PGR"), ("GEICO Marine", "GMR"), ("Markel", "MKL"),
            ("Chubb", "CHB"), ("Travelers", "TRV"), ("Great American", "GAI"), ("Allstate", "ALS")]

# role, count in the small world, count in the large world
STAFF_ROLES = [
    ("manager", 1, 2), ("dockmaster", 2, 4), ("office_admin", 2, 5), ("dockhand", 3, 9),
    ("fuel_attendant", 2, 6), ("yard_manager", 1, 2), ("technician", 4, 12),
]

# make, model, type, length, beam, draft, fuel, HIN manufacturer code
BOAT_MODELS = [
    ("Cape Dory", "Typhoon 19", "sailboat", 19.0, 6.3, 2.6, "none", "CPD"),
    ("Catalina", "Catalina 30", "sailboat", 29.9, 10.8, 5.3, "diesel", "CTY"),
    ("Hunter", "Hunter 33", "sailboat", 33.5, 11.3, 5.0, "diesel", "HUN"),
    ("J/Boats", "J/105", "sailboat", 34.5, 11.0, 6.5, "diesel", "JBO"),
    ("Beneteau", "Oceanis 38.1", "sailboat", 37.9, 13.0, 6.9, "diesel", "BEY"),
    ("Sabre", "Sabre 38", "sailboat", 38.0, 12.1, 6.5, "diesel", "SAB"),
    ("Hinckley", "Bermuda 40", "sailboat", 40.8, 11.8, 4.3, "diesel", "HIN"),
    ("Jeanneau", "Sun Odyssey 440", "sailboat", 44.0, 14.1, 7.2, "diesel", "JEA"),
    ("Sea Ray", "SLX 230", "powerboat", 23.0, 8.5, 2.8, "gasoline", "SER"),
    ("Chris-Craft", "Launch 28", "powerboat", 28.0, 9.3, 2.9, "gasoline", "CCB"),
    ("Cobalt", "R30", "powerboat", 30.0, 9.8, 3.2, "gasoline", "FGE"),
    ("Sea Ray", "Sundancer 320", "powerboat", 33.0, 10.8, 3.1, "gasoline", "SER"),
    ("Formula", "330 SS", "powerboat", 33.0, 10.6, 3.0, "gasoline", "TNR"),
    ("Back Cove", "Back Cove 34O", "powerboat", 35.0, 12.0, 3.0, "diesel", "BCY"),
    ("Mainship", "34 Pilot", "trawler", 34.0, 12.0, 3.0, "diesel", "MSB"),
    ("Beneteau", "Swift Trawler 35", "trawler", 37.1, 13.1, 3.2, "diesel", "BEY"),
    ("Grand Banks", "GB42", "trawler", 42.0, 14.1, 4.2, "diesel", "GBY"),
    ("Nordhavn", "Nordhavn 47", "trawler", 47.0, 16.2, 5.9, "diesel", "NOR"),
    ("Lagoon", "Lagoon 40", "catamaran", 39.4, 22.3, 4.3, "diesel", "LAG"),
    ("Fountaine Pajot", "Isla 40", "catamaran", 39.4, 21.7, 4.1, "diesel", "FPA"),
    ("Leopard", "Leopard 45", "catamaran", 45.9, 24.3, 5.1, "diesel", "LEO"),
    ("Boston Whaler", "Montauk 170", "center_console", 17.0, 6.9, 0.8, "gasoline", "BWC"),
    ("Yellowfin", "Yellowfin 26", "center_console", 26.0, 8.5, 1.5, "gasoline", "YFN"),
    ("Boston Whaler", "Outrage 280", "center_console", 28.0, 9.5, 1.9, "gasoline", "BWC"),
    ("Grady-White", "Canyon 306", "center_console", 30.5, 10.8, 2.2, "gasoline", "NTL"),
    ("Regulator", "Regulator 31", "center_console", 31.0, 10.3, 1.9, "gasoline", "RGM"),
    ("Bennington", "22 SSX", "pontoon", 23.5, 8.5, 1.7, "gasoline", "ETW"),
    ("Harris", "Cruiser 230", "pontoon", 24.0, 8.5, 1.6, "gasoline", "HRS"),
    ("Bertram", "Bertram 35", "sportfisher", 35.6, 13.1, 3.5, "diesel", "BRT"),
    ("Cabo", "Cabo 41", "sportfisher", 41.0, 15.5, 4.0, "diesel", "CAB"),
    ("Viking", "Viking 44 Open", "sportfisher", 44.4, 16.6, 4.3, "diesel", "VKY"),
    ("Hatteras", "GT54", "sportfisher", 54.0, 18.0, 5.3, "diesel", "HAT"),
]

BOAT_NAMES = [
    "Sea Breeze", "Reel Therapy", "Knot Working", "Aquaholic", "Serenity", "Second Wind",
    "Blue Heron", "Osprey", "Salty Dog", "Wind Dancer", "Liquid Asset", "Nauti Buoy",
    "Southern Cross", "Tranquility", "Current Affair", "Dream Catcher", "Morning Star",
    "Island Time", "Kismet", "Freedom", "Odyssey", "Sea Wolf", "Calypso", "Gypsy Soul",
    "Misty Blue", "Pelican", "Windsong", "Sundowner", "Irish Mist", "Mariah", "Quiet Storm",
    "Obsession", "Hull Raiser", "Ship Happens", "Tide Runner", "Last Resort", "Half Moon",
    "Blue Moon", "Kelpie", "North Star", "Stella Maris", "Whisper", "Persistence", "Endeavour",
    "Lady Grace", "Andiamo", "Pura Vida", "Zephyr", "Seas the Day", "Fishful Thinking",
    "Reel Deal", "Sea Ya Later", "Happy Hour", "Tortuga", "Valhalla", "Ragtime", "Aurora",
    "Nor'easter", "Marlin Monroe", "Shearwater", "Sea Fever", "Mystic Lady", "Wanderer",
    "Black Pearl", "Sail La Vie", "Cutting Edge", "Good Company", "Maggie Mae",
]

# code, name, description, max_len, max_beam, max_draft, power options, water, pump-out, floating, large only
DOCK_SPECS = [
    ("A", "A Dock", "Small-boat dock beside the launch ramp", 26.0, 10.0, 4.5, [0, 30, 30], 1, 0, 1, False),
    ("B", "B Dock", "Mid-size power and sail slips along the north basin", 32.0, 12.5, 6.0, [30], 1, 0, 1, False),
    ("F", "F Dock", "Inner-basin slips behind the breakwater", 34.0, 13.0, 6.5, [30], 1, 0, 1, True),
    ("C", "C Dock", "Cruising-boat slips with finger piers on both sides", 38.0, 14.5, 7.0, [30, 50], 1, 0, 1, False),
    ("G", "G Dock", "Newer floating dock added in 2019, wide fingers", 42.0, 16.0, 7.5, [30, 50], 1, 0, 1, True),
    ("D", "D Dock", "Large cruisers and sportfishers in deep water", 45.0, 17.0, 8.0, [50], 1, 1, 1, False),
    ("E", "E Dock", "Big-boat basin at the harbor mouth with catamaran-width slips", 60.0, 26.0, 10.0, [50, 100], 1, 1, 0, False),
]
TRANSIENT_DOCK = ("T", "T Dock", "Transient face dock beside the fuel dock and the dockmaster's office", 1, 1, 1)
T_SLIP_SIZES = [(40.0, 16.0, 8.0, 30), (50.0, 20.0, 9.0, 50), (60.0, 26.0, 10.0, 50), (70.0, 26.0, 11.0, 100)]

SLIP_NOTES = ["End tie - side-to only", "Finger pier on port side only", "Shared finger pier with the next slip",
              "Close to the fuel dock - expect some wake", "Extra-wide finger pier", "Dock box included"]
OOS_NOTES = ["Finger pier decking being replaced", "Power pedestal damaged - awaiting electrician",
             "Storm damage to cleats and pilings", "Dredging scheduled - slip too shallow at low tide",
             "Water line leak under the finger pier"]

# code, name, fuel type, price range low, high (cents per gallon), active
FUEL_PRODUCTS = [
    ("REG-89", "Regular 89 Octane (E10)", "gasoline", 479, 529, 1),
    ("REC-90", "Rec 90 Ethanol-Free Gasoline", "gasoline", 589, 649, 1),
    ("DSL-ULS", "Ultra-Low Sulfur Marine Diesel", "diesel", 519, 579, 1),
    ("PRM-93", "Premium 93 Octane (E10)", "gasoline", 549, 589, 0),
]

# code, name, category, pricing unit, unit price (cents), estimated hours, requires haul-out, active
SERVICES = [
    ("HAUL", "Haul-out and block on the hard", "haul_launch", "per_foot", 1200, 1.5, 1, 1),
    ("LAUNCH", "Launch and tie-up", "haul_launch", "per_foot", 900, 1.0, 1, 1),
    ("SHORT-HAUL", "Short haul in the slings (up to 2 hours)", "haul_launch", "per_foot", 750, 2.0, 1, 1),
    ("PWASH", "Pressure wash bottom", "haul_launch", "per_foot", 450, 1.0, 1, 1),
    ("BP-ABL", "Bottom paint, ablative (labor and materials)", "bottom", "per_foot", 5500, 6.0, 1, 1),
    ("ZINC", "Replace zinc anodes", "bottom", "flat", 18500, 1.0, 1, 1),
    ("PROP", "Propeller removal, repair and reinstall", "bottom", "flat", 42000, 3.0, 1, 1),
    ("ENG-OB", "Outboard annual service", "engine", "flat", 42500, 3.0, 0, 1),
    ("ENG-IB", "Inboard / diesel annual service", "engine", "flat", 68500, 5.0, 0, 1),
    ("IMPELLER", "Raw water impeller replacement", "engine", "flat", 27500, 1.5, 0, 1),
    ("ENG-DIAG", "Engine diagnostic", "engine", "per_hour", 14500, 2.0, 0, 1),
    ("ELEC", "Marine electrical labor", "electrical", "per_hour", 13500, 2.0, 0, 1),
    ("BATT", "Battery bank replacement (labor)", "electrical", "flat", 22000, 1.5, 0, 1),
    ("SHORE", "Shore power inlet and cord replacement", "electrical", "flat", 38500, 2.5, 0, 1),
    ("GELCOAT", "Gelcoat and fiberglass repair", "hull_deck", "per_hour", 12500, 4.0, 0, 1),
    ("WAX", "Compound and wax hull", "hull_deck", "per_foot", 3200, 5.0, 0, 1),
    ("THRU-HULL", "Thru-hull fitting replacement", "hull_deck", "flat", 45000, 3.0, 1, 1),
    ("RIG-INSP", "Standing rigging inspection", "rigging", "flat", 35000, 3.0, 0, 1),
    ("MAST", "Mast step or unstep with crane", "rigging", "per_foot", 1800, 2.0, 0, 1),
    ("WINT-OB", "Winterize outboard engine", "winterization", "flat", 29500, 1.5, 0, 1),
    ("WINT-IB", "Winterize inboard / diesel engine and systems", "winterization", "flat", 52500, 3.0, 0, 1),
    ("SHRINK", "Shrink wrap with access door", "winterization", "per_foot", 2100, 2.0, 0, 1),
    ("STOR-DRY", "Winter storage on the hard", "storage", "per_foot_per_month", 1500, None, 0, 1),
    ("STOR-RACK", "Indoor rack storage", "storage", "per_foot_per_month", 2800, None, 0, 0),
    ("DETAIL", "Interior detailing", "detailing", "per_hour", 8500, 4.0, 0, 1),
    ("WASH", "Wash-down and freshwater rinse", "detailing", "per_foot", 400, 1.0, 0, 1),
]

# work type, description, service codes (ENG / WINT resolved per engine), boat requirement
WO_TEMPLATES = [
    ("haul_out", "Spring haul-out, bottom paint and relaunch", ["HAUL", "PWASH", "BP-ABL", "ZINC", "LAUNCH"], "any"),
    ("haul_out", "Short haul to inspect running gear and replace zincs", ["SHORT-HAUL", "PWASH", "ZINC"], "any"),
    ("repair", "Engine running hot - diagnose and replace raw water impeller", ["ENG-DIAG", "IMPELLER"], "engine"),
    ("repair", "Shore power inlet scorched - replace inlet and cord", ["SHORE", "ELEC"], "any"),
    ("repair", "Gelcoat damage on the starboard quarter after a docking incident", ["GELCOAT"], "any"),
    ("repair", "Leaking thru-hull at the galley sink drain", ["HAUL", "THRU-HULL", "LAUNCH"], "any"),
    ("repair", "Propeller damaged in a grounding - remove, repair and reinstall", ["SHORT-HAUL", "PROP"], "engine"),
    ("repair", "House batteries not holding a charge", ["BATT", "ELEC"], "any"),
    ("maintenance", "Annual engine service", ["ENG"], "engine"),
    ("maintenance", "Compound, wax and wash-down", ["WAX", "WASH"], "any"),
    ("maintenance", "Interior detailing and wash-down", ["DETAIL", "WASH"], "any"),
    ("winterization", "Winterize, haul, shrink wrap and store on the hard", ["HAUL", "PWASH", "WINT", "SHRINK", "STOR-DRY"], "engine"),
    ("winterization", "Winterize engine and systems - boat stays in the water", ["WINT"], "engine"),
    ("winterization", "Haul, shrink wrap and store on the hard", ["HAUL", "PWASH", "SHRINK", "STOR-DRY"], "noengine"),
    ("commissioning", "Spring commissioning and launch", ["ENG", "WASH", "LAUNCH"], "engine"),
    ("commissioning", "Spring launch and wash-down", ["WASH", "LAUNCH"], "noengine"),
    ("inspection", "Standing rigging inspection before an offshore passage", ["RIG-INSP"], "sail"),
    ("inspection", "Mast unstep and full rigging inspection", ["MAST", "RIG-INSP"], "sail"),
    ("inspection", "Insurance survey short haul", ["SHORT-HAUL", "PWASH"], "any"),
]

PARTS = [("Raw water impeller kit", 6850), ("Group 31 AGM battery", 32900), ("Bronze thru-hull and seacock", 18400),
         ("Shaft zinc anode", 2450), ("Fuel/water separator filter", 3875), ("Synthetic engine oil, 6 qt", 5400),
         ("Shore power inlet 50A", 21500), ("Bilge pump 1500 GPH", 14900), ("Antifouling paint, 1 gal", 27900),
         ("Gelcoat repair kit", 4600), ("Stainless hose clamps (set)", 1800), ("Spark plug set", 4200),
         ("Lower unit gear oil", 2900), ("LED navigation light bulb", 3400)]

HOLD_REASONS = ["Waiting on parts - replacement part backordered", "Awaiting owner approval of additional work",
                "Weather delay - high winds at the travel lift", "Awaiting insurance adjuster inspection"]
WO_CANCEL_REASONS = ["Owner decided to do the work himself", "Boat sold before work started",
                     "Owner declined the estimate", "Duplicate request", "Work moved to next season"]
RES_CANCEL_REASONS = ["Weather forecast - trip postponed", "Change of cruising plans", "Engine trouble before departure",
                      "Picked up a mooring instead", "Guest illness", "Booked at another marina"]
SPECIAL_REQUESTS = ["Bow-in please, stern boarding", "Need a pump-out on arrival", "Arriving after 8 pm",
                    "Travelling with a dog", "Starboard side tie preferred", "Need 50A power adapter",
                    "Please hold a slip near the showers"]
LEASE_CANCEL_REASONS = ["Owner requested a larger slip", "Changed to a summer-only lease", "Duplicate lease entry",
                        "Owner chose a mooring instead"]
LEASE_TERM_REASONS = ["Owner moved the boat to a private mooring", "Owner relocated out of state",
                      "Switched to dry-stack storage elsewhere"]
VOID_REASONS = ["Duplicate invoice issued in error", "Created twice during the billing run",
                "Issued to the wrong account - duplicate"]
OWNER_NOTES = ["Prefers contact by text message", "Requests paper invoices by mail", "Liveaboard during summer season",
               "Keeps a dinghy on the rack", "Spouse also authorised on the account", "Call before any yard work over $1,000"]
WAITLIST_NOTES = ["Would accept a flex slip", "Needs 50A power", "Prefers an end tie", "Flexible on dock",
                  "Wants a slip close to the parking lot"]

NIGHTS = {1: 24, 2: 30, 3: 18, 4: 10, 5: 7, 7: 7, 10: 4}


def _dt(x):
    return x.replace(microsecond=0).isoformat(timespec="seconds")


def _d(x):
    return x.isoformat()


def _at(d, hour, minute=0):
    return datetime(d.year, d.month, d.day, hour, minute)


def _rand_dt(rng, d, h1, h2):
    return datetime(d.year, d.month, d.day) + timedelta(minutes=rng.randint(h1 * 60, h2 * 60 - 1))


def _add_months(d, n):
    m0 = d.month - 1 + n
    return date(d.year + m0 // 12, m0 % 12 + 1, min(d.day, 28))


def _month_end(d):
    return _add_months(date(d.year, d.month, 1), 1) - timedelta(days=1)


def _months_between(start, end):
    return (end.year - start.year) * 12 + end.month - start.month + 1


def _free(intervals, s, e):
    for a, b in intervals:
        if not (e < a or b < s):
            return False
    return True


def _phone(rng, area):
    return "(%s) %d-%04d" % (area, rng.randint(201, 989), rng.randint(0, 9999))


def _fits(slip, boat):
    return (slip["max_length_ft"] >= boat["length_ft"] and slip["max_beam_ft"] >= boat["beam_ft"]
            and slip["max_draft_ft"] >= boat["draft_ft"])


def _money(c):
    return "$%d.%02d" % (c // 100, c % 100)


def build(ctx):
    rng = ctx.rng
    clock = ctx.clock.replace(microsecond=0)
    today = ctx.today
    Y = today.year if today.month >= 5 else today.year - 1
    P = Y - 1
    out = {name: [] for name in TABLE_ORDER}

    def cap(x):
        if x >= clock:
            return clock - timedelta(minutes=rng.randint(3, 90))
        return x

    def rdt(d, h1, h2):
        return _rand_dt(rng, d, h1, h2)

    def ago(lo, hi):
        return ctx.moment_ago(lo, hi).replace(microsecond=0)

    # ------------------------------------------------------------------ staff
    pools = {}
    seen_staff = set()
    for role, lo_n, hi_n in STAFF_ROLES:
        pools[role] = []
        for k in range(ctx.n(lo_n, hi_n)):
            sid = len(out["staff"]) + 1
            first, last = ctx.faker.first_name(), ctx.faker.last_name()
            base = (first + "." + last).lower().replace("'", "").replace(" ", "")
            email = ctx.unique(lambda: base + (str(rng.randint(2, 99)) if rng.random() < 0.3 else "")
                               + "@harborlightmarina.com", seen_staff)
            active = 1
            if k > 0 and role in ("dockhand", "fuel_attendant", "technician", "office_admin") and ctx.chance(0.12):
                active = 0
            out["staff"].append({
                "id": sid, "employee_code": "HLM-%03d" % (100 + sid), "full_name": first + " " + last,
                "email": email, "phone": _phone(rng, "860"), "role": role,
                "hired_on": _d(ctx.days_ago(45, 4800)), "is_active": active,
            })
            if active:
                pools[role].append(sid)
    office = pools["office_admin"] + pools["manager"]
    front = pools["dockmaster"] + pools["dockhand"] + pools["office_admin"]
    dockside = pools["dockmaster"] + pools["dockhand"]
    yard_desk = pools["yard_manager"] + pools["office_admin"]
    techs = pools["technician"] + pools["yard_manager"]
    fuelers = pools["fuel_attendant"] + pools["dockhand"]
    lease_desk = pools["office_admin"] + pools["dockmaster"] + pools["manager"]
    managers = pools["manager"] + pools["dockmaster"]

    # ----------------------------------------------------------------- owners
    oinfo = {}
    seen_email = set()
    acct_base = rng.randint(1200, 4800)

    def make_owner(kind, full=None, status=None):
        oid = len(out["owners"]) + 1
        if full is None:
            first, last = ctx.faker.first_name(), ctx.faker.last_name()
        else:
            first, last = full.split(" ", 1)
        f = first.lower().replace("'", "").replace(" ", "")
        l = last.lower().replace("'", "").replace(" ", "")

        def mk():
            style = rng.randint(0, 3)
            num = str(rng.randint(1, 99)) if rng.random() < 0.45 else ""
            if style == 0:
                local = f + "." + l
            elif style == 1:
                local = f[0] + l
            elif style == 2:
                local = f + l
            else:
                local = f + "_" + l
            return local + num + "@" + rng.choice(EMAIL_DOMAINS)

        email = ctx.unique(mk, seen_email)
        if status is None:
            if kind == "slip_holder":
                status = ctx.weighted({"active": 86, "suspended": 6, "closed": 8})
            else:
                status = ctx.weighted({"active": 95, "closed": 5})
        new = kind == "transient" and status == "active" and full is None and ctx.chance(0.22)
        if new:
            created = ago(3, 75)
        elif kind == "slip_holder":
            created = ago(540, 5200)
        elif kind == "yard_only":
            created = ago(430, 4000)
        else:
            created = ago(400, 2400)
        if kind == "transient":
            place = rng.choice(VISITOR_PLACES) if ctx.chance(0.85) else rng.choice(LOCAL_PLACES)
        else:
            place = rng.choice(LOCAL_PLACES) if ctx.chance(0.88) else rng.choice(VISITOR_PLACES)
        if ctx.chance(0.75):
            ec_name = ctx.faker.first_name() + " " + (last if ctx.chance(0.5) else ctx.faker.last_name())
            ec_phone = _phone(rng, place[3])
        else:
            ec_name, ec_phone = None, None
        out["owners"].append({
            "id": oid, "account_number": "HL-%05d" % (acct_base + oid * 3 + rng.randint(0, 2)),
            "full_name": first + " " + last, "email": email, "phone": _phone(rng, place[3]),
            "address_line": ctx.faker.street_address(), "city": place[0], "state": place[1],
            "postal_code": place[2], "emergency_contact_name": ec_name, "emergency_contact_phone": ec_phone,
            "account_type": kind, "status": status, "created_at": _dt(created),
            "notes": rng.choice(OWNER_NOTES) if ctx.chance(0.15) else None,
        })
        oinfo[oid] = {"kind": kind, "status": status, "created": created, "new": new, "place": place,
                      "closed_at": None}
        return oid

    n_owners = ctx.n(60, 420)
    n_slip = int(round(n_owners * 0.5))
    n_trans = int(round(n_owners * 0.33))
    kinds = ["slip_holder"] * n_slip + ["transient"] * n_trans + ["yard_only"] * (n_owners - n_slip - n_trans)
    rng.shuffle(kinds)
    for kind in kinds:
        make_owner(kind)
    # every owner status appears among slip holders
    for wanted in ("suspended", "closed"):
        if not any(v["kind"] == "slip_holder" and v["status"] == wanted for v in oinfo.values()):
            for o in out["owners"]:
                inf = oinfo[o["id"]]
                if inf["kind"] == "slip_holder" and inf["status"] == "active":
                    inf["status"] = wanted
                    o["status"] = wanted
                    break
    if ctx.distractors:
        for src in ctx.sample(out["owners"][:n_owners], 2):
            make_owner(rng.choice(["transient", "yard_only"]), full=src["full_name"], status="active")

    # ------------------------------------------------------------------ boats
    boats_of = {}
    seen_reg, seen_hin = set(), set()
    trans_models = [m for m in BOAT_MODELS if m[2] in ("sailboat", "trawler", "catamaran", "powerboat", "sportfisher")
                    and m[3] >= 28]
    yard_models = [m for m in BOAT_MODELS if m[2] in ("center_console", "pontoon", "powerboat", "sailboat")
                   and m[3] <= 34]

    def add_boat(oid, model, bstatus):
        info = oinfo[oid]
        make, mdl, btype, ln, bm, dr, fuel, hcode = model
        state = info["place"][1]
        myear = rng.randint(1996, Y)
        if ln >= 40 and ctx.chance(0.7):
            reg = ctx.unique(lambda: "USCG %d" % rng.randint(1000000, 1299999), seen_reg)
        else:
            reg = ctx.unique(lambda: "%s %04d %s%s" % (state, rng.randint(1000, 9999), rng.choice(LETTERS),
                                                      rng.choice(LETTERS)), seen_reg)
        hin = None
        if ctx.chance(0.95):
            hin = ctx.unique(lambda: "%s%05d%s%d%02d" % (hcode, rng.randint(0, 99999), rng.choice("ABCDEFGHIJKL"),
                                                        (myear - 1) % 10, myear % 100), seen_hin)
        if ctx.chance(0.9):
            ins = rng.choice(INSURERS)
            prov, pol = ins[0], "%s-%07d" % (ins[1], rng.randint(0, 9999999))
            exp = _d(today + timedelta(days=rng.randint(-60, 350)))
        else:
            prov, pol, exp = None, None, None
        row = {
            "id": len(out["boats"]) + 1, "owner_id": oid, "name": rng.choice(BOAT_NAMES),
            "registration_number": reg, "hull_id_number": hin, "make": make, "model": mdl, "model_year": myear,
            "boat_type": btype, "length_ft": ln, "beam_ft": bm, "draft_ft": dr, "fuel_type": fuel,
            "insurance_provider": prov, "insurance_policy_number": pol, "insurance_expires_on": exp,
            "status": bstatus, "created_at": _dt(cap(info["created"] + timedelta(hours=rng.randint(1, 72)))),
        }
        out["boats"].append(row)
        boats_of[oid].append(row)
        return row

    for o in out["owners"]:
        oid = o["id"]
        info = oinfo[oid]
        boats_of[oid] = []
        cnt = ctx.weighted({1: 76, 2: 19, 3: 5})
        for j in range(cnt):
            if info["kind"] == "transient":
                model = rng.choice(trans_models)
            elif info["kind"] == "yard_only":
                model = rng.choice(yard_models)
            else:
                model = rng.choice(BOAT_MODELS)
            if info["status"] == "closed":
                bstatus = "sold" if (j == 0 and info["kind"] == "slip_holder") or ctx.chance(0.5) else "inactive"
            elif j == 0:
                bstatus = "active"
            else:
                bstatus = ctx.weighted({"active": 78, "sold": 12, "inactive": 10})
            add_boat(oid, model, bstatus)
    # a laid-up project boat guarantees the 'inactive' status
    for o in out["owners"]:
        if oinfo[o["id"]]["kind"] == "yard_only" and oinfo[o["id"]]["status"] == "active":
            add_boat(o["id"], rng.choice(yard_models), "inactive")
            break
    if ctx.distractors and len(out["boats"]) > 6:
        picks = ctx.sample(out["boats"], 4)
        picks[1]["name"] = picks[0]["name"] + " II"
        picks[3]["name"] = picks[2]["name"]

    # ----------------------------------------------------------- docks/slips
    specs = [s for s in DOCK_SPECS if ctx.large or not s[10]]
    spec_by_code = {s[0]: s for s in specs}

    def fit_codes(boat):
        return [s[0] for s in specs if s[3] >= boat["length_ft"] and s[4] >= boat["beam_ft"]
                and s[5] >= boat["draft_ft"]]

    cur_boats = []
    closed_holders = []
    for o in out["owners"]:
        oid = o["id"]
        info = oinfo[oid]
        if info["kind"] != "slip_holder":
            continue
        if info["status"] == "closed":
            closed_holders.append((oid, boats_of[oid][0]))
            continue
        act = [b for b in boats_of[oid] if b["status"] == "active"]
        cur_boats.append((oid, act[0]))
        if len(act) > 1 and ctx.chance(0.4):
            cur_boats.append((oid, act[1]))
    cur_boats.sort(key=lambda x: 1 if oinfo[x[0]]["status"] == "suspended" else 0)
    demand = {s[0]: 0 for s in specs}
    for oid, b in cur_boats + closed_holders:
        demand[fit_codes(b)[0]] += 1

    dock_id = {}
    for s in sorted(specs, key=lambda x: x[0]):
        did = len(out["docks"]) + 1
        dock_id[s[0]] = did
        out["docks"].append({"id": did, "code": s[0], "name": s[1], "description": s[2], "has_water": s[7],
                             "has_pump_out": s[8], "is_floating": s[9]})
    dock_id["T"] = len(out["docks"]) + 1
    out["docks"].append({"id": dock_id["T"], "code": "T", "name": TRANSIENT_DOCK[1],
                         "description": TRANSIENT_DOCK[2], "has_water": TRANSIENT_DOCK[3],
                         "has_pump_out": TRANSIENT_DOCK[4], "is_floating": TRANSIENT_DOCK[5]})

    slips_by_dock = {}
    slip_int = {}

    def new_slip(code, usage):
        sp = spec_by_code[code]
        lst = slips_by_dock.setdefault(code, [])
        sid = len(out["slips"]) + 1
        row = {"id": sid, "dock_id": dock_id[code], "slip_code": "%s-%02d" % (code, len(lst) + 1),
               "slip_usage": usage, "max_length_ft": sp[3], "max_beam_ft": sp[4], "max_draft_ft": sp[5],
               "power_amps": rng.choice(sp[6]) if usage == "seasonal" else max(sp[6]),
               "status": "in_service", "notes": rng.choice(SLIP_NOTES) if ctx.chance(0.08) else None}
        out["slips"].append(row)
        lst.append(row)
        slip_int[sid] = []
        return row

    for s in sorted(specs, key=lambda x: x[0]):
        dmd = demand[s[0]]
        for _ in range(dmd + (dmd + 5) // 6 + rng.randint(1, 3)):
            new_slip(s[0], "seasonal")
        if s[3] >= 38:
            for _ in range(rng.randint(3, 8) if ctx.large else rng.randint(1, 3)):
                new_slip(s[0], "flex")
    t_list = []
    slips_by_dock["T"] = t_list
    for k in range(ctx.n(12, 70)):
        ln, bm, dr, amps = T_SLIP_SIZES[k] if k < len(T_SLIP_SIZES) else rng.choice(T_SLIP_SIZES)
        sid = len(out["slips"]) + 1
        row = {"id": sid, "dock_id": dock_id["T"], "slip_code": "T-%02d" % (k + 1), "slip_usage": "transient",
               "max_length_ft": ln, "max_beam_ft": bm, "max_draft_ft": dr, "power_amps": amps,
               "status": "in_service", "notes": None}
        out["slips"].append(row)
        t_list.append(row)
        slip_int[sid] = []

    # ------------------------------------------------------------- rate plans
    plans = {}

    def add_plan(key, code, name, ptype, basis, rate, power, vf, vt, active):
        row = {"id": len(out["rate_plans"]) + 1, "code": code, "name": name, "plan_type": ptype,
               "rate_basis": basis, "rate_cents": rate, "power_fee_cents": power, "valid_from": _d(vf),
               "valid_to": _d(vt), "is_active": active, "_vf": vf, "_vt": vt}
        out["rate_plans"].append(row)
        plans[key] = row

    ann_y = rng.choice([17500, 18000, 18500, 19000])
    sum_y = rng.choice([11500, 12000, 12500, 13000])
    win_y = rng.choice([4500, 4800, 5000])
    mon_y = rng.choice([2600, 2800, 3000])
    trn_y = rng.choice([425, 450, 475, 500])
    for key_sfx, yr, active, bump in (("P", P, 0, 1), ("Y", Y, 1, 0)):
        ys = "%d-%02d" % (yr, (yr + 1) % 100)
        add_plan("ANN-" + key_sfx, "ANN-%d" % yr, "Annual Slip Lease " + ys, "annual", "per_foot_per_term",
                 ann_y - bump * 750, 72000, date(yr, 5, 1), date(yr + 1, 4, 30), active)
        add_plan("SUM-" + key_sfx, "SUM-%d" % yr, "Summer Season %d" % yr, "summer_season", "per_foot_per_term",
                 sum_y - bump * 500, 42000, date(yr, 5, 1), date(yr, 10, 31), active)
        add_plan("WIN-" + key_sfx, "WIN-%d" % yr, "Winter Wet Storage " + ys, "winter_season", "per_foot_per_term",
                 win_y - bump * 300, 30000, date(yr, 11, 1), date(yr + 1, 4, 30), active)
        add_plan("MON-" + key_sfx, "MON-%d" % yr, "Monthly Slip %d" % yr, "monthly", "per_foot_per_month",
                 mon_y - bump * 200, 7500, date(yr, 1, 1), date(yr, 12, 31), active)
        add_plan("TRN-" + key_sfx, "TRN-%d" % yr, "Transient Nightly %d" % yr, "transient_nightly",
                 "per_foot_per_night", trn_y - bump * 25, 1200, date(yr, 1, 1), date(yr, 12, 31), active)

    # --------------------------------------------------------- facility hours
    office_close = rng.choice(["17:00", "18:00"])
    fuel_wkend_close = rng.choice(["19:00", "20:00"])
    winter_sat = ctx.chance(0.6)

    def hours_for(fac, season, dow):
        if season == "summer":
            if fac == "office":
                return ("08:00", office_close)
            if fac == "fuel_dock":
                return ("07:00", fuel_wkend_close if dow >= 4 else "18:00")
            if fac == "boatyard":
                if dow <= 4:
                    return ("07:30", "16:30")
                return ("08:00", "12:00") if dow == 5 else None
            return ("08:00", "18:00")
        if fac == "office":
            if dow <= 4:
                return ("09:00", "16:00")
            return ("10:00", "14:00") if (dow == 5 and winter_sat) else None
        if fac == "fuel_dock":
            return ("10:00", "14:00") if dow >= 5 else None
        if fac == "boatyard":
            return ("07:30", "16:00") if dow <= 4 else None
        return None

    for season in ("summer", "winter"):
        for fac in ("office", "fuel_dock", "boatyard", "pump_out"):
            for dow in range(7):
                h = hours_for(fac, season, dow)
                out["facility_hours"].append({
                    "id": len(out["facility_hours"]) + 1, "facility": fac, "day_of_week": dow,
                    "opens_at": h[0] if h else None, "closes_at": h[1] if h else None,
                    "is_closed": 0 if h else 1, "season": season})

    # ------------------------------------------------------------- slip leases
    lease_tmp = []

    def period(key):
        return plans[key]["_vf"], plans[key]["_vt"]

    def choose_slip(boat, spans, avoid=None):
        codes = fit_codes(boat)
        for usage in ("seasonal", "flex"):
            for code in codes:
                cands = [sl for sl in slips_by_dock.get(code, []) if sl["slip_usage"] == usage
                         and sl["status"] == "in_service" and sl is not avoid
                         and all(_free(slip_int[sl["id"]], a, b) for a, b in spans)]
                if cands:
                    return rng.choice(cands)
        return None

    def lease_times(start, signed_ok=True):
        if start <= today:
            cd = start - timedelta(days=rng.randint(15, 120))
            created = rdt(cd, 9, 17)
            sd = min(cd + timedelta(days=rng.randint(0, 12)), start)
            signed = rdt(sd, 9, 17)
            if signed <= created:
                signed = created + timedelta(hours=rng.randint(1, 5))
            return cap(created), cap(signed)
        created = cap(rdt(today - timedelta(days=rng.randint(0, 40)), 9, 17))
        if not signed_ok:
            return created, None
        signed = created + timedelta(days=rng.randint(0, 8), hours=rng.randint(1, 6))
        if signed >= clock:
            return created, None
        return created, signed

    def add_lease(oid, boat, slip, key, s, e, status, times, billing, auto, terminated=None, cancelled=None,
                  reason=None):
        created, signed = times
        plan = plans[key]
        units = _months_between(s, e) if plan["rate_basis"] == "per_foot_per_month" else 1
        power = plan["power_fee_cents"] if slip["power_amps"] > 0 else 0
        fee = int(round(boat["length_ft"] * plan["rate_cents"] * units)) + power * units
        deposit = fee // units if units > 1 else int(round(fee * 0.1 / 100.0)) * 100
        row = {"id": None, "lease_number": None, "owner_id": oid, "boat_id": boat["id"], "slip_id": slip["id"],
               "rate_plan_id": plan["id"], "start_date": _d(s), "end_date": _d(e), "billing_frequency": billing,
               "total_fee_cents": fee, "deposit_cents": deposit, "auto_renew": auto, "status": status,
               "created_by_staff_id": rng.choice(lease_desk), "created_at": _dt(created),
               "signed_at": _dt(signed) if signed else None,
               "terminated_at": _dt(terminated) if terminated else None,
               "cancelled_at": _dt(cancelled) if cancelled else None, "end_reason": reason,
               "_created": created, "_signed": signed, "_terminated": terminated, "_cancelled": cancelled,
               "_start": s, "_end": e, "_key": key, "_slip": slip, "_plan": plan, "_boat": boat}
        lease_tmp.append(row)
        if status != "cancelled":
            slip_int[slip["id"]].append((s, terminated.date() if terminated else e))
        return row

    def status_for(s, e):
        if s > today:
            return "pending"
        return "active" if e >= today else "expired"

    forced_choice = {0: "ANN", 1: "MONP", 2: "SUM", 3: "ANN", 4: "MON"}
    moved = []
    for idx, (oid, boat) in enumerate(cur_boats):
        susp = oinfo[oid]["status"] == "suspended"
        if susp:
            choice = "ANN"
        else:
            choice = forced_choice.get(idx) or ctx.weighted({"ANN": 55, "SUM": 25, "MON": 12, "MONP": 8})
        if choice == "MONP" and today >= date(Y, 6, 1):
            choice = "MON"
        if choice == "ANN":
            key = "ANN-Y"
            s, e = period(key)
            billing = "quarterly" if susp else ctx.weighted({"upfront": 50, "quarterly": 50})
        elif choice == "SUM":
            key = "SUM-Y"
            s, e = period(key)
            billing = ctx.weighted({"upfront": 60, "monthly": 40})
        elif choice == "MON":
            key = "MON-Y"
            s = date(Y, rng.choice([3, 4, 5]), 1)
            e = _month_end(_add_months(s, rng.randint(3, 6) - 1))
            billing = "monthly"
        else:
            key = "MON-Y"
            s = date(Y, 6, 1)
            e = _month_end(_add_months(s, rng.randint(2, 4)))
            billing = "monthly"
        # history on the same slip (renewals)
        r = rng.random()
        hist = []
        if choice == "ANN":
            if susp or r < 0.7:
                hist = [("ANN-P",) + period("ANN-P") + (billing,)]
        elif choice == "SUM":
            if r < 0.6:
                hist = [("SUM-P",) + period("SUM-P") + (ctx.weighted({"upfront": 60, "monthly": 40}),)]
                if ctx.chance(0.4):
                    hist.append(("WIN-P",) + period("WIN-P") + ("upfront",))
        elif choice == "MON":
            if r < 0.3:
                hist = [("MON-P", date(P, 6, 1), date(P, 8, 31), "monthly")]
        else:
            if r < 0.4:
                hist = [("SUM-P",) + period("SUM-P") + ("upfront",)]
        win_pending = choice == "SUM" and (idx == 2 or ctx.chance(0.3))
        spans = [(s, e)] + [(h[1], h[2]) for h in hist]
        if win_pending:
            spans.append(period("WIN-Y"))
        slip = choose_slip(boat, spans)
        if slip is None:
            hist = []
            win_pending = False
            slip = choose_slip(boat, [(s, e)])
        if slip is None:
            slip = new_slip(fit_codes(boat)[0], "seasonal")
        for hkey, hs, he, hbill in hist:
            add_lease(oid, boat, slip, hkey, hs, he, "expired", lease_times(hs), hbill,
                      1 if hkey == "ANN-P" and ctx.chance(0.8) else 0)
        if choice == "ANN" and not hist and not susp and r >= 0.7 and r < 0.82:
            moved.append((oid, boat, slip, billing))
        times = lease_times(s, signed_ok=(choice != "MONP" or ctx.chance(0.3)))
        status = status_for(s, e)
        terminated = None
        reason = None
        if (choice in ("ANN", "MON") and not susp and status == "active" and (today - s).days >= 3
                and (idx == 3 or ctx.chance(0.05))):
            terminated = cap(rdt(s + timedelta(days=rng.randint(1, (today - s).days - 1)), 9, 17))
            if terminated <= times[1]:
                terminated = times[1] + timedelta(hours=rng.randint(2, 30))
                terminated = cap(terminated)
            status = "terminated"
            reason = rng.choice(LEASE_TERM_REASONS)
        if choice == "ANN":
            auto = 1 if ctx.chance(0.7) else 0
        elif choice == "SUM":
            auto = 1 if ctx.chance(0.4) else 0
        else:
            auto = 0
        cur = add_lease(oid, boat, slip, key, s, e, status, times, billing, auto, terminated=terminated,
                        reason=reason)
        if win_pending and _free(slip_int[slip["id"]], *period("WIN-Y")):
            ws, we = period("WIN-Y")
            add_lease(oid, boat, slip, "WIN-Y", ws, we, "pending", lease_times(ws, signed_ok=ctx.chance(0.5)),
                      "upfront", 0)
        if idx == 4 or ctx.chance(0.08):
            others = [sl for code in fit_codes(boat) for sl in slips_by_dock.get(code, [])
                      if sl["slip_usage"] == "seasonal" and sl is not slip]
            if others:
                oslip = rng.choice(others)
                c_created = cur["_created"] - timedelta(days=rng.randint(10, 30), hours=rng.randint(0, 6))
                c_cancel = c_created + timedelta(days=rng.randint(1, 8), hours=rng.randint(1, 6))
                if c_cancel >= cur["_created"]:
                    c_cancel = cur["_created"] - timedelta(hours=2)
                add_lease(oid, boat, oslip, key, s, e, "cancelled", (c_created, None), billing, 0,
                          cancelled=c_cancel, reason=rng.choice(LEASE_CANCEL_REASONS))

    for oid, boat, cur_slip, billing in moved:
        hs, he = period("ANN-P")
        slip = choose_slip(boat, [(hs, he)], avoid=cur_slip)
        if slip is not None:
            add_lease(oid, boat, slip, "ANN-P", hs, he, "expired", lease_times(hs), billing, 1)

    for oid, boat in closed_holders:
        info = oinfo[oid]
        if ctx.chance(0.6):
            s, e = period("ANN-P")
            term_d = date(P, 8, 1) + timedelta(days=rng.randint(0, 235))
            slip = choose_slip(boat, [(s, term_d)]) or new_slip(fit_codes(boat)[0], "seasonal")
            terminated = rdt(term_d, 9, 17)
            reason = "Boat sold" if boat["status"] == "sold" else rng.choice(LEASE_TERM_REASONS)
            add_lease(oid, boat, slip, "ANN-P", s, e, "terminated", lease_times(s),
                      ctx.weighted({"upfront": 40, "quarterly": 60}), 0, terminated=terminated, reason=reason)
            closed_at = terminated + timedelta(days=rng.randint(2, 20), hours=rng.randint(0, 6))
        else:
            s, e = period("SUM-P")
            slip = choose_slip(boat, [(s, e)]) or new_slip(fit_codes(boat)[0], "seasonal")
            add_lease(oid, boat, slip, "SUM-P", s, e, "expired", lease_times(s),
                      ctx.weighted({"upfront": 60, "monthly": 40}), 0)
            closed_at = rdt(e + timedelta(days=rng.randint(5, 90)), 9, 17)
        info["closed_at"] = cap(closed_at)
    for o in out["owners"]:
        inf = oinfo[o["id"]]
        if inf["status"] == "closed" and inf["closed_at"] is None:
            inf["closed_at"] = ago(20, 150)

    # slips out of service: only slips with no current or future lease
    vacant = [sl for sl in out["slips"] if sl["slip_usage"] != "transient"
              and all(b < today for a, b in slip_int[sl["id"]])]
    n_oos = max(1, len(out["slips"]) // 30)
    for sl in ctx.sample(vacant, min(n_oos, len(vacant))):
        sl["status"] = "out_of_service"
        sl["notes"] = rng.choice(OOS_NOTES)
        sl["_oos_at"] = ago(2, 60)

    lease_tmp.sort(key=lambda x: x["_created"])
    per_year = {}
    for i, row in enumerate(lease_tmp, 1):
        yr = row["_created"].year
        per_year[yr] = per_year.get(yr, 0) + 1
        row["id"] = i
        row["lease_number"] = "SL-%d-%04d" % (yr, per_year[yr])
        out["slip_leases"].append(row)

    # ---------------------------------------------------------------- waitlist
    wl_tmp = []
    n_wait = max(6, n_owners // 6)
    hist_owners = set(x["owner_id"] for x in lease_tmp if x["_key"].endswith("-P"))
    acc_cands = [x for x in lease_tmp if x["status"] in ("active", "pending") and x["_key"] in ("ANN-Y", "SUM-Y", "MON-Y")
                 and x["owner_id"] not in hist_owners]
    plan_to_desired = {"ANN": "annual", "SUM": "summer_season", "MON": "monthly", "WIN": "winter_season"}

    def min_amps(boat):
        if boat["length_ft"] < 24:
            return 0
        if boat["length_ft"] < 36:
            return 30
        return 100 if boat["length_ft"] >= 50 else 50

    for x in ctx.sample(acc_cands, min(len(acc_cands), max(1, n_wait // 4))):
        oc = oinfo[x["owner_id"]]["created"]
        requested = x["_created"] - timedelta(days=rng.randint(30, 300), hours=rng.randint(0, 8))
        if requested <= oc:
            requested = oc + timedelta(days=1)
        offered = x["_created"] - timedelta(days=rng.randint(1, 6), hours=rng.randint(0, 5))
        if offered <= requested:
            offered = requested + timedelta(hours=2)
        wl_tmp.append({"owner_id": x["owner_id"], "boat_id": x["boat_id"],
                       "preferred_dock_id": x["_slip"]["dock_id"] if ctx.chance(0.6) else None,
                       "desired_plan_type": plan_to_desired[x["_key"][:3]], "min_power_amps": min_amps(x["_boat"]),
                       "status": "accepted", "_req": requested, "_off": offered, "_res": x["_created"],
                       "notes": rng.choice(WAITLIST_NOTES) if ctx.chance(0.4) else None})
    others = [o for o in out["owners"] if oinfo[o["id"]]["kind"] != "slip_holder"
              and oinfo[o["id"]]["status"] == "active" and not oinfo[o["id"]]["new"]]
    wl_status_forced = ["waiting", "offered", "withdrawn", "expired"]
    for idx, o in enumerate(ctx.sample(others, min(len(others), max(4, n_wait - len(wl_tmp))))):
        oid = o["id"]
        act = [b for b in boats_of[oid] if b["status"] == "active"]
        if not act:
            continue
        boat = act[0]
        oc = oinfo[oid]["created"]
        st = wl_status_forced[idx] if idx < 4 else ctx.weighted({"waiting": 45, "offered": 15, "withdrawn": 20,
                                                                  "expired": 20})
        offered = resolved = None
        if st == "waiting":
            requested = max(ago(3, 420), oc + timedelta(days=1))
        elif st == "offered":
            requested = max(ago(20, 400), oc + timedelta(days=1))
            offered = ago(1, 6)
        elif st == "withdrawn":
            requested = max(ago(60, 400), oc + timedelta(days=1))
            if ctx.chance(0.3):
                offered = requested + timedelta(days=rng.randint(5, 9), hours=rng.randint(1, 6))
                resolved = offered + timedelta(days=rng.randint(1, 5))
            else:
                resolved = requested + timedelta(days=rng.randint(10, 50))
        else:
            requested = max(ago(60, 400), oc + timedelta(days=1))
            offered = requested + timedelta(days=rng.randint(20, 45), hours=rng.randint(1, 6))
            resolved = offered + timedelta(days=7)
        requested = cap(requested)
        codes = fit_codes(boat)
        wl_tmp.append({"owner_id": oid, "boat_id": boat["id"],
                       "preferred_dock_id": dock_id[codes[0]] if ctx.chance(0.7) else None,
                       "desired_plan_type": ctx.weighted({"annual": 45, "summer_season": 35, "monthly": 12,
                                                          "winter_season": 8}),
                       "min_power_amps": min_amps(boat), "status": st, "_req": requested,
                       "_off": cap(offered) if offered else None, "_res": cap(resolved) if resolved else None,
                       "notes": rng.choice(WAITLIST_NOTES) if ctx.chance(0.4) else None})
    wl_tmp.sort(key=lambda x: x["_req"])
    per_year = {}
    for i, w in enumerate(wl_tmp, 1):
        yr = w["_req"].year
        per_year[yr] = per_year.get(yr, 0) + 1
        w["id"] = i
        w["waitlist_code"] = "WL-%d-%03d" % (yr, per_year[yr])
        w["requested_at"] = _dt(w["_req"])
        w["offered_at"] = _dt(w["_off"]) if w["_off"] else None
        w["resolved_at"] = _dt(w["_res"]) if w["_res"] else None
        out["slip_waitlist"].append(w)

    # ------------------------------------------------------ transient reservations
    res_tmp = []
    bookable = [sl for sl in out["slips"] if sl["slip_usage"] in ("transient", "flex") and sl["status"] == "in_service"]

    def res_slip(boat, arr, dep, power):
        last = dep - timedelta(days=1)
        cands = [sl for sl in bookable if _fits(sl, boat) and (sl["power_amps"] > 0 or not power)
                 and _free(slip_int[sl["id"]], arr, last)]
        if not cands:
            return None
        tr = [sl for sl in cands if sl["slip_usage"] == "transient"]
        if tr and ctx.chance(0.85):
            return rng.choice(tr)
        return rng.choice(cands)

    forced_res = ["no_show", "checked_in", "pending", "confirmed", "cancelled", "checked_out"]
    for o in out["owners"]:
        oid = o["id"]
        info = oinfo[oid]
        if info["kind"] == "transient":
            cnt = ctx.weighted({0: 6, 1: 26, 2: 28, 3: 18, 4: 12, 5: 10})
        elif info["kind"] == "yard_only":
            cnt = 1 if ctx.chance(0.15) else 0
        else:
            cnt = 0
        if info["new"]:
            cnt = min(max(cnt, 1), 2)
        closed = info["status"] == "closed"
        blist = boats_of[oid] if closed else [b for b in boats_of[oid] if b["status"] == "active"]
        if not blist:
            continue
        for _ in range(cnt):
            for _try in range(10):
                boat = rng.choice(blist)
                want = forced_res[0] if (forced_res and not closed and not info["new"]) else None
                if closed or want in ("no_show", "checked_out"):
                    w = "past"
                elif want == "checked_in":
                    w = "current"
                elif want or info["new"]:
                    w = "future"
                else:
                    w = ctx.weighted({"past": 42, "recent": 18, "future": 40})
                nights = ctx.weighted(NIGHTS)
                if w == "past":
                    arr = date(P, 5, 10) + timedelta(days=rng.randint(0, 150))
                elif w == "recent":
                    arr = today - timedelta(days=rng.randint(0, 25))
                elif w == "current":
                    arr = today - timedelta(days=rng.randint(0, 2))
                    nights = rng.randint(3, 6)
                else:
                    arr = today + timedelta(days=rng.randint(1, 120))
                if arr <= info["created"].date():
                    continue
                dep = arr + timedelta(days=nights)
                if want:
                    status = want
                elif dep <= today:
                    status = "checked_out" if closed else ctx.weighted({"checked_out": 80, "cancelled": 11,
                                                                         "no_show": 9})
                elif arr < today:
                    status = ctx.weighted({"checked_in": 88, "cancelled": 12})
                elif arr == today:
                    status = ctx.weighted({"checked_in": 45, "confirmed": 45, "cancelled": 10})
                else:
                    status = ctx.weighted({"confirmed": 60, "pending": 22, "cancelled": 18})
                power = ctx.chance(0.85)
                slip = res_slip(boat, arr, dep, power)
                if slip is None and status in ("checked_out", "checked_in", "confirmed", "no_show"):
                    continue
                if status in ("pending", "cancelled") and ctx.chance(0.5):
                    slip = None
                same_day = status in ("checked_in", "checked_out") and ctx.chance(0.2)
                if same_day:
                    channel = ctx.weighted({"walk_up": 60, "vhf_radio": 40})
                    created = rdt(today, 7, 9) if arr == today else rdt(arr, 9, 17)
                else:
                    channel = ctx.weighted({"web": 55, "phone": 45})
                    if status == "pending":
                        cd = today - timedelta(days=rng.randint(0, 5))
                    else:
                        cd = arr - timedelta(days=rng.randint(1, 60))
                    if cd > today:
                        cd = today
                    created = rdt(cd, 7, 21)
                lo_c = info["created"] + timedelta(hours=1)
                if created < lo_c:
                    created = lo_c
                created = cap(created)
                ci = co = cx = None
                reason = None
                if status in ("checked_in", "checked_out"):
                    if same_day:
                        ci = created + timedelta(minutes=rng.randint(10, 45))
                    elif arr == today:
                        ci = rdt(today, 7, 10)
                    else:
                        ci = rdt(arr, 12, 19)
                    if ci <= created:
                        ci = created + timedelta(minutes=rng.randint(10, 45))
                    ci = cap(ci)
                    if ci <= created:
                        created = ci - timedelta(minutes=rng.randint(20, 240))
                if status == "checked_out":
                    co = cap(rdt(dep, 7, 11))
                if status == "cancelled":
                    limit = min(_at(arr, 8), clock)
                    span = int((limit - created).total_seconds())
                    if span > 600:
                        cx = created + timedelta(seconds=rng.randint(300, span))
                    else:
                        cx = created + timedelta(minutes=5)
                    if cx >= clock:
                        cx = clock - timedelta(minutes=2)
                    if cx <= created:
                        created = cx - timedelta(minutes=rng.randint(20, 600))
                    reason = rng.choice(RES_CANCEL_REASONS)
                key = "TRN-Y" if arr.year >= Y else "TRN-P"
                plan = plans[key]
                nightly = int(round(boat["length_ft"] * plan["rate_cents"])) + (plan["power_fee_cents"] if power else 0)
                row = {"id": None, "confirmation_code": None, "owner_id": oid, "boat_id": boat["id"],
                       "slip_id": slip["id"] if slip else None, "rate_plan_id": plan["id"],
                       "arrival_date": _d(arr), "departure_date": _d(dep), "nights": nights,
                       "needs_power": 1 if power else 0, "nightly_rate_cents": nightly, "total_cents": nightly * nights,
                       "booking_channel": channel, "status": status,
                       "booked_by_staff_id": None if channel == "web" else rng.choice(front),
                       "created_at": _dt(created), "checked_in_at": _dt(ci) if ci else None,
                       "checked_out_at": _dt(co) if co else None, "cancelled_at": _dt(cx) if cx else None,
                       "cancellation_reason": reason,
                       "special_requests": rng.choice(SPECIAL_REQUESTS) if ctx.chance(0.3) else None,
                       "_created": created, "_ci": ci, "_co": co, "_cx": cx, "_arr": arr, "_dep": dep,
                       "_slip": slip, "_boat": boat}
                res_tmp.append(row)
                if slip is not None and status != "cancelled":
                    slip_int[slip["id"]].append((arr, dep - timedelta(days=1)))
                if want:
                    forced_res.pop(0)
                break
    if ctx.distractors:
        fut = [x for x in res_tmp if x["status"] == "confirmed" and x["_arr"] > today]
        if fut:
            src = rng.choice(fut)
            dup = dict(src)
            dup_created = src["_created"] - timedelta(minutes=rng.randint(5, 30))
            dup_cx = src["_created"] + timedelta(minutes=rng.randint(10, 60))
            if dup_cx >= clock:
                dup_cx = clock - timedelta(minutes=1)
            dup.update({"slip_id": None, "_slip": None, "status": "cancelled", "booking_channel": "web",
                        "booked_by_staff_id": None, "_created": dup_created, "created_at": _dt(dup_created),
                        "_cx": dup_cx, "cancelled_at": _dt(dup_cx),
                        "cancellation_reason": "Duplicate booking - guest booked twice online",
                        "special_requests": None})
            res_tmp.append(dup)
    res_tmp.sort(key=lambda x: x["_created"])
    seen_conf = set()
    for i, row in enumerate(res_tmp, 1):
        row["id"] = i
        row["confirmation_code"] = ctx.unique(lambda: "HL" + "".join(rng.choice(CODE_CHARS) for _ in range(6)),
                                              seen_conf)
        out["transient_reservations"].append(row)

    # ------------------------------------------------------------ fuel
    fp = {}
    for code, name, ftype, lo_p, hi_p, active in FUEL_PRODUCTS:
        row = {"id": len(out["fuel_products"]) + 1, "code": code, "name": name, "fuel_type": ftype,
               "price_per_gallon_cents": rng.randint(lo_p, hi_p),
               "slip_holder_discount_cents": rng.choice([10, 15, 20, 25]) if active else 10,
               "is_active": active,
               "price_updated_at": _dt(ago(1, 20) if active else datetime(P, 11, 3, 9, 0))}
        out["fuel_products"].append(row)
        fp[code] = row

    fo_tmp = []

    def tank(boat):
        return boat["length_ft"] ** 2 / 8.0

    def pick_product(boat, d):
        if boat["fuel_type"] == "diesel":
            return fp["DSL-ULS"]
        if d < date(Y, 1, 1) and ctx.chance(0.12):
            return fp["PRM-93"]
        return fp["REC-90"] if ctx.chance(0.35) else fp["REG-89"]

    def make_fuel(oid, boat, d, status, method, charge, when=None):
        prod = pick_product(boat, d)
        ppg = prod["price_per_gallon_cents"]
        if d < date(Y, 4, 1):
            ppg += rng.choice([-45, -30, -15, 0, 10, 25])
        if oinfo[oid]["kind"] == "slip_holder":
            ppg -= prod["slip_holder_discount_cents"]
        ppg = max(ppg, 100)
        req_gal = round(tank(boat) * rng.uniform(0.3, 0.9), 1)
        delivered = scheduled = completed = cancelled = None
        attendant = None
        if status == "completed":
            if when is not None:
                t = when
            elif d == today:
                t = rdt(today, 7, 9)
            else:
                t = rdt(d, 8, 18)
            if method == "fuel_dock":
                requested = t - timedelta(minutes=rng.randint(5, 25))
                completed = t + timedelta(minutes=rng.randint(8, 35))
                if ctx.chance(0.4):
                    req_gal = None
            else:
                requested = rdt(d - timedelta(days=rng.randint(1, 2)), 9, 17)
                scheduled = t
                completed = t + timedelta(minutes=rng.randint(15, 50))
            if req_gal is None:
                delivered = round(tank(boat) * rng.uniform(0.3, 0.9), 1)
            else:
                delivered = round(req_gal * rng.uniform(0.85, 1.0), 1)
            attendant = rng.choice(fuelers)
            total = int(round(delivered * ppg))
        elif status == "scheduled":
            requested = cap(rdt(today - timedelta(days=rng.randint(0, 2)), 8, 17))
            scheduled = rdt(d, 8, 17) if d > today else rdt(today, 12, 18)
            attendant = rng.choice(fuelers)
            total = int(round(req_gal * ppg))
        elif status == "requested":
            requested = cap(rdt(today - timedelta(days=rng.randint(0, 2)), 8, 18))
            total = int(round(req_gal * ppg))
        else:
            if d < today:
                requested = rdt(d - timedelta(days=rng.randint(0, 2)), 8, 12)
                if ctx.chance(0.5):
                    scheduled = rdt(d, 13, 17)
            else:
                requested = cap(rdt(today - timedelta(days=rng.randint(1, 3)), 8, 18))
                if ctx.chance(0.5):
                    scheduled = rdt(d, 9, 17) if d > today else rdt(today, 13, 18)
            cancelled = requested + timedelta(minutes=rng.randint(20, 600))
            if cancelled >= clock:
                cancelled = clock - timedelta(minutes=rng.randint(1, 10))
            total = int(round(req_gal * ppg))
        row = {"id": None, "order_number": None, "owner_id": oid, "boat_id": boat["id"],
               "fuel_product_id": prod["id"], "delivery_method": method, "gallons_requested": req_gal,
               "gallons_delivered": delivered, "price_per_gallon_cents": ppg, "total_cents": total,
               "status": status, "requested_at": _dt(requested), "scheduled_for": _dt(scheduled) if scheduled else None,
               "completed_at": _dt(completed) if completed else None,
               "cancelled_at": _dt(cancelled) if cancelled else None, "attendant_staff_id": attendant,
               "charge_to_account": charge, "_requested": requested, "_completed": completed,
               "_cancelled": cancelled, "_scheduled": scheduled, "_prod": prod, "_boat": boat}
        fo_tmp.append(row)
        return row

    forced_fuel = ["requested", "scheduled", "cancelled"]
    for o in out["owners"]:
        oid = o["id"]
        info = oinfo[oid]
        kind = info["kind"]
        closed = info["status"] == "closed"
        fb = [b for b in boats_of[oid] if b["fuel_type"] != "none" and (closed or b["status"] == "active")]
        if not fb or kind == "transient":
            continue
        if kind == "slip_holder":
            if closed:
                cnt = ctx.weighted({0: 20, 1: 30, 2: 25, 3: 15, 4: 10})
            else:
                cnt = ctx.weighted({0: 8, 1: 10, 2: 14, 3: 16, 4: 14, 5: 12, 6: 10, 8: 9, 11: 7})
        else:
            cnt = 0 if closed else ctx.weighted({0: 55, 1: 30, 2: 15})
        for _ in range(cnt):
            boat = rng.choice(fb)
            want = forced_fuel.pop(0) if (forced_fuel and kind == "slip_holder" and not closed) else None
            if want:
                w = "soon"
            elif closed:
                w = "past"
            else:
                w = ctx.weighted({"past": 55, "now": 33, "soon": 12})
            if w == "past":
                d = date(P, 5, 1) + timedelta(days=rng.randint(0, 183))
            elif w == "now":
                d = date(Y, 4, 15) + timedelta(days=rng.randint(0, max(0, (today - date(Y, 4, 15)).days)))
            else:
                d = today + timedelta(days=rng.randint(1, 6) if want else rng.randint(0, 6))
            if closed and d >= info["closed_at"].date() - timedelta(days=1):
                continue
            if want:
                status = want
            elif d < today:
                status = ctx.weighted({"completed": 90, "cancelled": 10})
            elif d == today:
                status = ctx.weighted({"completed": 40, "scheduled": 30, "requested": 20, "cancelled": 10})
            else:
                status = ctx.weighted({"scheduled": 50, "requested": 35, "cancelled": 15})
            if kind == "slip_holder":
                if status in ("scheduled", "requested"):
                    method = "slip_delivery" if ctx.chance(0.6) else "fuel_dock"
                else:
                    method = "slip_delivery" if ctx.chance(0.3) else "fuel_dock"
                charge = 1 if ctx.chance(0.85) else 0
            else:
                method = "fuel_dock"
                charge = 0
            make_fuel(oid, boat, d, status, method, charge)
    # visiting boats fuel up while they are here
    for x in res_tmp:
        boat = x["_boat"]
        if boat["fuel_type"] == "none":
            continue
        if x["status"] == "checked_out" and ctx.chance(0.45):
            when = x["_co"] + timedelta(minutes=rng.randint(10, 40))
            if when + timedelta(minutes=40) < clock:
                make_fuel(x["owner_id"], boat, when.date(), "completed", "fuel_dock", 0, when=when)
        elif x["status"] == "checked_in" and x["_ci"] + timedelta(hours=3) < clock and ctx.chance(0.3):
            when = x["_ci"] + timedelta(minutes=rng.randint(30, 90))
            make_fuel(x["owner_id"], boat, when.date(), "completed", "fuel_dock", 0, when=when)
    if ctx.distractors:
        done = [f for f in fo_tmp if f["status"] == "completed" and f["_completed"].date() < today
                and oinfo[f["owner_id"]]["kind"] == "slip_holder"]
        if done:
            src = rng.choice(done)
            d = src["_completed"].date()
            make_fuel(src["owner_id"], src["_boat"], d, "completed", "fuel_dock", src["charge_to_account"],
                      when=rdt(d, 8, 18))
    fo_tmp.sort(key=lambda x: x["_requested"])
    fo_base = rng.randint(20000, 60000)
    for i, row in enumerate(fo_tmp, 1):
        row["id"] = i
        row["order_number"] = "FO-%d" % (fo_base + i)
        out["fuel_orders"].append(row)

    # ------------------------------------------------------------ service catalog
    svc = {}
    for code, name, cat, unit, price, hours, haul, active in SERVICES:
        row = {"id": len(out["service_catalog"]) + 1, "code": code, "name": name, "category": cat,
               "pricing_unit": unit, "unit_price_cents": int(round(price * rng.uniform(0.95, 1.08) / 25.0)) * 25,
               "estimated_hours": hours, "requires_haul_out": haul, "is_active": active}
        out["service_catalog"].append(row)
        svc[code] = row

    def engine_kind(boat):
        if boat["fuel_type"] == "none":
            return None
        if boat["fuel_type"] == "gasoline" and (boat["boat_type"] in ("center_console", "pontoon")
                                                or boat["length_ft"] < 27):
            return "OB"
        return "IB"

    def templates_for(boat):
        ek = engine_kind(boat)
        sail = boat["boat_type"] in ("sailboat", "catamaran")
        res = []
        for t in WO_TEMPLATES:
            need = t[3]
            if need == "engine" and ek is None:
                continue
            if need == "noengine" and ek is not None:
                continue
            if need == "sail" and not sail:
                continue
            res.append(t)
        return res

    def service_item(s, boat):
        ln = boat["length_ft"]
        if s["pricing_unit"] == "flat":
            q, desc = 1.0, s["name"]
        elif s["pricing_unit"] == "per_foot":
            q, desc = ln, "%s (%g ft)" % (s["name"], ln)
        elif s["pricing_unit"] == "per_hour":
            q = max(0.5, round((s["estimated_hours"] or 1.0) * rng.choice([0.75, 1.0, 1.25, 1.5]) * 2) / 2.0)
            desc = "%s (%g hrs)" % (s["name"], q)
        else:
            q, desc = ln * 5, "%s (5 months x %g ft)" % (s["name"], ln)
        return {"service_id": s["id"], "item_type": "service", "description": desc, "quantity": q,
                "unit_price_cents": s["unit_price_cents"], "line_total_cents": int(round(q * s["unit_price_cents"]))}

    wo_tmp = []
    forced_wo = ["on_hold", "estimated", "approved", "scheduled", "in_progress", "requested", "cancelled", "completed"]
    normal_w = {"completed": 38, "cancelled": 8, "requested": 9, "estimated": 9, "approved": 8, "scheduled": 11,
                "in_progress": 10, "on_hold": 7}
    for o in out["owners"]:
        oid = o["id"]
        info = oinfo[oid]
        kind = info["kind"]
        closed = info["status"] == "closed"
        if info["new"]:
            continue
        if kind == "slip_holder":
            cnt = ctx.weighted({0: 50, 1: 50}) if closed else ctx.weighted({0: 22, 1: 30, 2: 24, 3: 14, 4: 10})
        elif kind == "yard_only":
            cnt = ctx.weighted({0: 50, 1: 50}) if closed else ctx.weighted({1: 35, 2: 30, 3: 22, 4: 13})
        else:
            cnt = 1 if (not closed and ctx.chance(0.12)) else 0
        blist = boats_of[oid] if closed else [b for b in boats_of[oid] if b["status"] == "active"]
        if not blist:
            continue
        for _ in range(cnt):
            boat = rng.choice(blist)
            tl = templates_for(boat)
            if kind == "transient":
                tl = [t for t in tl if t[0] == "repair"]
            want = forced_wo.pop(0) if (forced_wo and not closed and kind != "transient") else None
            if closed or want:
                tl = [t for t in tl if t[0] not in ("winterization", "commissioning")]
            tmpl = rng.choice(tl)
            wtype = tmpl[0]
            if want:
                status = want
            elif closed or wtype == "winterization":
                status = ctx.weighted({"completed": 85, "cancelled": 15})
            else:
                status = ctx.weighted(normal_w)
            requested = approved = started = completed = cancelled = sched = None
            if status == "completed":
                if closed:
                    cdate = date(P, 5, 1) + timedelta(days=rng.randint(0, 80))
                elif wtype == "winterization":
                    cdate = date(P, 10, 1) + timedelta(days=rng.randint(0, 70))
                elif wtype == "commissioning":
                    cdate = date(Y, 3, 20) + timedelta(days=rng.randint(0, max(0, (today - date(Y, 3, 20)).days - 2)))
                else:
                    cdate = today - timedelta(days=rng.randint(2, 340))
                completed = rdt(cdate, 10, 17)
                started = rdt(cdate - timedelta(days=rng.randint(0, 8)), 7, 10)
                if started >= completed:
                    started = completed - timedelta(hours=3)
                approved = rdt(started.date() - timedelta(days=rng.randint(1, 12)), 8, 17)
                requested = rdt(approved.date() - timedelta(days=rng.randint(0, 6)), 8, 17)
            elif status == "cancelled":
                if closed:
                    rd = date(P, 5, 1) + timedelta(days=rng.randint(0, 70))
                elif wtype == "winterization":
                    rd = date(P, 9, 10) + timedelta(days=rng.randint(0, 50))
                else:
                    rd = today - timedelta(days=rng.randint(5, 300))
                requested = rdt(rd, 8, 17)
                cancelled = requested + timedelta(days=rng.randint(1, 20), hours=rng.randint(0, 8))
                if cancelled >= clock:
                    cancelled = clock - timedelta(hours=rng.randint(1, 20))
                if ctx.chance(0.4):
                    approved = requested + (cancelled - requested) / 2
                    approved = approved.replace(microsecond=0)
            elif status == "requested":
                requested = cap(rdt(today - timedelta(days=rng.randint(0, 5)), 8, 17))
            elif status == "estimated":
                requested = rdt(today - timedelta(days=rng.randint(2, 20)), 8, 17)
            elif status == "approved":
                requested = rdt(today - timedelta(days=rng.randint(4, 30)), 8, 17)
                approved = rdt(requested.date() + timedelta(days=rng.randint(1, 3)), 8, 17)
            elif status == "scheduled":
                requested = rdt(today - timedelta(days=rng.randint(5, 35)), 8, 17)
                approved = rdt(requested.date() + timedelta(days=rng.randint(1, 4)), 8, 17)
                sched = _at(today + timedelta(days=rng.randint(1, 28)), rng.choice([7, 8]), 30)
            else:
                lo_d, hi_d = (0, 10) if status == "in_progress" else (4, 35)
                started = cap(rdt(today - timedelta(days=rng.randint(lo_d, hi_d)), 7, 15))
                approved = rdt(started.date() - timedelta(days=rng.randint(1, 10)), 8, 17)
                requested = rdt(approved.date() - timedelta(days=rng.randint(0, 5)), 8, 17)
            if approved is not None and requested >= approved:
                requested = approved - timedelta(hours=rng.randint(2, 30))
            if started is not None:
                sched = _at(started.date(), 7, 30) if started >= _at(started.date(), 7, 30) else started
            ek = engine_kind(boat)
            codes = [("ENG-" + ek) if c == "ENG" else ("WINT-" + ek) if c == "WINT" else c for c in tmpl[2]]
            items = []
            t_est = None
            if status != "requested" and not (status == "cancelled" and ctx.chance(0.4)):
                t_est = requested + timedelta(hours=rng.randint(2, 30))
                upper = approved or cancelled or clock
                if t_est >= upper:
                    t_est = (requested + (upper - requested) / 2).replace(microsecond=0)
                for c in codes:
                    it = service_item(svc[c], boat)
                    it["_added"] = t_est
                    items.append(it)
                if any(c in ("HAUL", "BP-ABL", "ENG-IB", "ENG-OB", "WINT-IB", "WINT-OB") for c in codes):
                    items.append({"service_id": None, "item_type": "fee",
                                  "description": "Environmental and haz-mat disposal fee", "quantity": 1.0,
                                  "unit_price_cents": 4500, "line_total_cents": 4500, "_added": t_est})
            estimate = sum(it["line_total_cents"] for it in items) if items else None
            n_initial = len(items)
            if status in ("completed", "in_progress", "on_hold") and ctx.chance(0.55):
                end = completed or clock
                for _x in range(rng.randint(1, 2)):
                    at = started + (end - started) * rng.uniform(0.2, 0.9)
                    at = at.replace(microsecond=0)
                    if ctx.chance(0.65):
                        pname, pprice = rng.choice(PARTS)
                        q = float(rng.randint(1, 2))
                        items.append({"service_id": None, "item_type": "part", "description": pname, "quantity": q,
                                      "unit_price_cents": pprice, "line_total_cents": int(round(q * pprice)),
                                      "_added": at})
                    else:
                        q = rng.choice([1.0, 1.5, 2.0, 3.0])
                        items.append({"service_id": None, "item_type": "labor",
                                      "description": "Additional labor (%g hrs)" % q, "quantity": q,
                                      "unit_price_cents": 13500, "line_total_cents": int(round(q * 13500)),
                                      "_added": at})
            assigned = None
            if status in ("scheduled", "in_progress", "on_hold", "completed") or (status == "approved" and ctx.chance(0.5)):
                assigned = rng.choice(techs)
            for k, it in enumerate(items):
                if status == "completed":
                    it["performed_by_staff_id"] = assigned
                elif status in ("in_progress", "on_hold") and (k < max(1, n_initial // 2) or k >= n_initial):
                    it["performed_by_staff_id"] = assigned
                else:
                    it["performed_by_staff_id"] = None
            has_haul = any(c in ("HAUL", "SHORT-HAUL") for c in codes)
            has_launch = any(c in ("LAUNCH", "SHORT-HAUL") for c in codes)
            base_d = started.date() if started else (sched.date() if sched else None)
            haul_d = launch_d = None
            if base_d is not None:
                if has_haul:
                    haul_d = base_d
                if has_launch:
                    if "SHORT-HAUL" in codes:
                        launch_d = base_d
                    elif completed:
                        launch_d = completed.date()
                    else:
                        launch_d = base_d + timedelta(days=rng.randint(2, 12))
            if kind == "transient":
                priority = ctx.weighted({"high": 70, "emergency": 30})
            elif wtype == "repair":
                priority = ctx.weighted({"low": 7, "normal": 55, "high": 30, "emergency": 8})
            else:
                priority = ctx.weighted({"low": 25, "normal": 65, "high": 10})
            wo_tmp.append({
                "id": None, "work_order_number": None, "owner_id": oid, "boat_id": boat["id"], "work_type": wtype,
                "description": tmpl[1], "priority": priority, "status": status, "estimate_cents": estimate,
                "requires_haul_out": 1 if any(svc[c]["requires_haul_out"] for c in codes) else 0,
                "haul_out_date": _d(haul_d) if haul_d else None, "launch_date": _d(launch_d) if launch_d else None,
                "scheduled_start": _dt(sched) if sched else None, "created_by_staff_id": rng.choice(yard_desk),
                "assigned_staff_id": assigned, "requested_at": _dt(requested),
                "approved_at": _dt(approved) if approved else None, "started_at": _dt(started) if started else None,
                "completed_at": _dt(completed) if completed else None,
                "cancelled_at": _dt(cancelled) if cancelled else None,
                "hold_reason": rng.choice(HOLD_REASONS) if status == "on_hold" else None,
                "cancellation_reason": rng.choice(WO_CANCEL_REASONS) if status == "cancelled" else None,
                "_requested": requested, "_approved": approved, "_started": started, "_completed": completed,
                "_cancelled": cancelled, "_sched": sched, "_t_est": t_est, "_items": items, "_boat": boat})
    wo_tmp.sort(key=lambda x: x["_requested"])
    per_year = {}
    for i, w in enumerate(wo_tmp, 1):
        yr = w["_requested"].year
        per_year[yr] = per_year.get(yr, 0) + 1
        w["id"] = i
        w["work_order_number"] = "WO-%d-%04d" % (yr, per_year[yr])
        out["work_orders"].append(w)
        for it in w["_items"]:
            it["id"] = len(out["work_order_items"]) + 1
            it["work_order_id"] = i
            it["added_at"] = _dt(it["_added"])
            out["work_order_items"].append(it)

    # ---------------------------------------------------------------- invoices
    inv_tmp = []

    def mk_line(lt, desc, q, unit, amt, taxable, lease=None, res=None, fuel=None, wo=None):
        return {"line_type": lt, "description": desc, "quantity": q, "unit_price_cents": unit, "amount_cents": amt,
                "taxable": taxable, "lease_id": lease, "reservation_id": res, "fuel_order_id": fuel,
                "work_order_id": wo}

    def new_inv(oid, created, issued, due, kind, lines, staff, notes=None, draft=False):
        inv = {"_oid": oid, "_created": created, "_issued": issued, "_due": due, "_kind": kind, "_lines": lines,
               "_staff": staff, "_notes": notes, "_draft": draft, "_void": None, "_void_reason": None}
        inv_tmp.append(inv)
        return inv

    for L in out["slip_leases"]:
        if L["status"] not in ("active", "expired", "terminated"):
            continue
        s, e = L["_start"], L["_end"]
        stop = L["_terminated"].date() if L["_terminated"] else e
        step = {"upfront": 0, "quarterly": 3, "monthly": 1}[L["billing_frequency"]]
        periods = []
        if step == 0:
            periods = [(s, e)]
        else:
            ps = s
            while ps <= e:
                periods.append((ps, min(_add_months(ps, step) - timedelta(days=1), e)))
                ps = _add_months(ps, step)
        n = len(periods)
        fee = L["total_fee_cents"]
        base_amt = fee // n
        for k, (ps, pe) in enumerate(periods):
            if ps > stop:
                break
            issue = ps - timedelta(days=10)
            if L["_signed"].date() > issue:
                issue = L["_signed"].date()
            if issue > today:
                break
            amt = base_amt if k < n - 1 else fee - base_amt * (n - 1)
            created = rdt(issue, 8, 10)
            if created <= L["_signed"]:
                created = cap(L["_signed"] + timedelta(minutes=rng.randint(10, 120)))
            due = max(ps, issue + timedelta(days=10))
            desc = "Slip %s dockage - %s, %s to %s" % (L["_slip"]["slip_code"], L["_plan"]["name"], _d(ps), _d(pe))
            if n > 1:
                desc += " (installment %d of %d)" % (k + 1, n)
            new_inv(L["owner_id"], created, created.date(), due, "lease",
                    [mk_line("slip_lease", desc, 1.0, amt, amt, 0, lease=L["id"])], rng.choice(office),
                    notes="Lease %s" % L["lease_number"])

    stmts = {}
    stmt_order = []
    for f in out["fuel_orders"]:
        if f["status"] == "completed" and f["charge_to_account"] == 1:
            k = (f["owner_id"], f["_completed"].year, f["_completed"].month)
            if k not in stmts:
                stmts[k] = []
                stmt_order.append(k)
            stmts[k].append(f)
    for k in stmt_order:
        oid, yy, mm = k
        fl = stmts[k]
        lines = [mk_line("fuel", "%s - %g gal - %s (%s)" % (f["_prod"]["name"], f["gallons_delivered"],
                                                          f["_boat"]["name"], _d(f["_completed"].date())),
                         f["gallons_delivered"], f["price_per_gallon_cents"], f["total_cents"], 0, fuel=f["id"])
                 for f in fl]
        issue = _add_months(date(yy, mm, 1), 1)
        label = "%s %d" % (MONTH_NAMES[mm - 1], yy)
        if issue > today:
            created = max(f["_completed"] for f in fl) + timedelta(minutes=rng.randint(5, 60))
            if created >= clock:
                created = clock - timedelta(minutes=1)
            new_inv(oid, created, None, None, "fuel", lines, rng.choice(office),
                    notes="Fuel statement for %s (month still open)" % label, draft=True)
        else:
            created = rdt(issue, 8, 10)
            new_inv(oid, created, issue, issue + timedelta(days=20), "fuel", lines, rng.choice(office),
                    notes="Fuel statement for %s" % label)

    for x in out["transient_reservations"]:
        if x["status"] in ("checked_out", "checked_in"):
            slip_code = x["_slip"]["slip_code"] if x["_slip"] else "T Dock"
            lines = [mk_line("transient", "Transient dockage, slip %s, %d night(s) %s to %s" % (
                slip_code, x["nights"], x["arrival_date"], x["departure_date"]), float(x["nights"]),
                x["nightly_rate_cents"], x["total_cents"], 1, res=x["id"])]
            if ctx.chance(0.2):
                lines.append(mk_line("fee", "Pump-out service", 1.0, 1500, 1500, 0, res=x["id"]))
            if x["status"] == "checked_out":
                created = x["_co"] - timedelta(minutes=rng.randint(5, 30))
                if created <= x["_ci"]:
                    created = x["_co"]
                new_inv(x["owner_id"], created, created.date(), created.date(), "transient", lines,
                        rng.choice(dockside), notes="Reservation %s" % x["confirmation_code"])
            else:
                created = x["_ci"] + timedelta(minutes=rng.randint(5, 40))
                if created >= clock:
                    created = x["_ci"]
                new_inv(x["owner_id"], created, None, None, "transient", lines, rng.choice(dockside),
                        notes="Reservation %s (guest still on the dock)" % x["confirmation_code"], draft=True)
        elif x["status"] == "no_show":
            d = x["_arr"] + timedelta(days=1)
            created = rdt(d, 8, 10)
            new_inv(x["owner_id"], created, d, d + timedelta(days=10), "noshow",
                    [mk_line("fee", "No-show charge - first night, reservation %s" % x["confirmation_code"], 1.0,
                             x["nightly_rate_cents"], x["nightly_rate_cents"], 0, res=x["id"])],
                    rng.choice(dockside), notes="Reservation %s" % x["confirmation_code"])

    for w in out["work_orders"]:
        if w["status"] != "completed":
            continue
        lines = [mk_line("work_order", it["description"], it["quantity"], it["unit_price_cents"],
                         it["line_total_cents"], 1 if it["item_type"] == "part" else 0, wo=w["id"])
                 for it in w["_items"]]
        if not lines:
            continue
        if oinfo[w["owner_id"]]["kind"] == "slip_holder" and ctx.chance(0.3):
            disc = int(round(sum(ln["amount_cents"] for ln in lines) * 0.05))
            if disc > 0:
                lines.append(mk_line("credit", "Slip holder yard discount (5%)", 1.0, -disc, -disc, 0, wo=w["id"]))
        comp = w["_completed"]
        if comp >= clock - timedelta(days=3):
            created = comp + timedelta(hours=rng.randint(1, 20))
            if created >= clock:
                created = clock - timedelta(minutes=rng.randint(1, 5))
            new_inv(w["owner_id"], created, None, None, "wo", lines, rng.choice(yard_desk),
                    notes="Work order %s" % w["work_order_number"], draft=True)
        else:
            created = rdt(comp.date() + timedelta(days=rng.randint(0, 2)), 9, 16)
            if created <= comp:
                created = comp + timedelta(hours=1)
            new_inv(w["owner_id"], created, created.date(), created.date() + timedelta(days=30), "wo", lines,
                    rng.choice(yard_desk), notes="Work order %s" % w["work_order_number"])

    # duplicates issued by mistake and voided
    twins = []
    for inv in inv_tmp:
        if (not inv["_draft"] and inv["_kind"] in ("lease", "fuel", "wo")
                and inv["_created"] < clock - timedelta(days=2) and (not twins or ctx.chance(0.04))):
            tc = inv["_created"] + timedelta(minutes=rng.randint(10, 300))
            tw = dict(inv)
            tw["_lines"] = [dict(ln) for ln in inv["_lines"]]
            tw["_created"] = tc
            tw["_issued"] = tc.date()
            tw["_void"] = tc + timedelta(minutes=rng.randint(15, 600))
            tw["_void_reason"] = rng.choice(VOID_REASONS)
            twins.append(tw)
    inv_tmp.extend(twins)
    inv_tmp.sort(key=lambda x: x["_created"])

    pay_tmp = []
    per_year = {}
    outcomes = []
    for inv in inv_tmp:
        total_sub = sum(ln["amount_cents"] for ln in inv["_lines"])
        taxable = sum(ln["amount_cents"] for ln in inv["_lines"] if ln["taxable"])
        tax = (taxable * TAX_BP + 5000) // 10000 if taxable > 0 else 0
        inv["_sub"], inv["_tax"], inv["_total"] = total_sub, tax, total_sub + tax
        oinf = oinfo[inv["_oid"]]
        if inv["_void"] is not None:
            outcome = "void"
        elif inv["_draft"]:
            outcome = "draft"
        else:
            age = (today - inv["_issued"]).days
            if oinf["status"] == "closed":
                outcome = "paid"
            elif inv["_kind"] == "transient":
                outcome = ctx.weighted({"paid": 94, "open": 6})
            elif inv["_kind"] == "noshow":
                outcome = ctx.weighted({"paid": 60, "open": 40})
            elif oinf["status"] == "suspended" and age <= 200:
                outcome = ctx.weighted({"open": 75, "partial": 25})
            elif inv["_due"] >= today:
                outcome = ctx.weighted({"paid": 40, "partial": 10, "open": 50})
            elif age <= 90:
                outcome = ctx.weighted({"paid": 72, "partial": 12, "open": 16})
            else:
                outcome = ctx.weighted({"paid": 94, "partial": 3, "open": 3})
            if outcome == "partial" and inv["_total"] < 300:
                outcome = "paid"
            if outcome != "open" and inv["_created"] > clock - timedelta(minutes=15):
                outcome = "open"
        outcomes.append(outcome)
    if "partial" not in outcomes:
        for i in range(len(inv_tmp) - 1, -1, -1):
            if outcomes[i] in ("paid", "open") and inv_tmp[i]["_kind"] in ("lease", "wo") and inv_tmp[i]["_total"] >= 300 \
                    and oinfo[inv_tmp[i]["_oid"]]["status"] != "closed" and inv_tmp[i]["_created"] < clock - timedelta(days=1):
                outcomes[i] = "partial"
                break

    def pay_time(lo, hi):
        if hi <= lo + timedelta(minutes=2):
            return lo + timedelta(minutes=1)
        return lo + timedelta(seconds=rng.randint(60, int((hi - lo).total_seconds())))

    method_w = {"lease": {"ach": 40, "check": 35, "card": 25}, "fuel": {"card": 50, "ach": 30, "check": 20},
                "transient": {"card": 88, "cash": 12}, "noshow": {"card": 100},
                "wo": {"card": 45, "check": 35, "ach": 20}}

    def receiver(method, kind):
        if method == "ach":
            return None
        if method == "card" and ctx.chance(0.5):
            return None
        return rng.choice(dockside if kind in ("transient", "noshow") else office)

    refund_done = False
    for i, inv in enumerate(inv_tmp, 1):
        outcome = outcomes[i - 1]
        yr = inv["_created"].year
        per_year[yr] = per_year.get(yr, 0) + 1
        number = "INV-%d-%05d" % (yr, per_year[yr])
        total = inv["_total"]
        kind = inv["_kind"]
        pays = []
        if outcome == "void":
            if not refund_done or ctx.chance(0.3):
                refund_done = True
                pt = inv["_created"] + (inv["_void"] - inv["_created"]) / 2
                pays.append({"amount": total, "method": "card", "status": "refunded", "_paid": pt.replace(microsecond=0),
                             "_refunded": inv["_void"], "note": "Refunded - invoice voided"})
        elif outcome in ("paid", "partial"):
            created = inv["_created"]
            if kind == "transient":
                hi = min(created + timedelta(minutes=15), clock - timedelta(minutes=1))
            else:
                hi = min(_at(inv["_due"], 17) + timedelta(days=20), clock - timedelta(minutes=5))
            method = ctx.weighted(method_w[kind])
            if outcome == "partial":
                amt = int(round(total * rng.uniform(0.25, 0.7) / 100.0)) * 100
                amt = max(100, min(amt, total - 100))
                amounts = [amt]
            elif kind not in ("transient", "noshow") and total >= 2000 and ctx.chance(0.15):
                first = int(round(total * rng.uniform(0.4, 0.6) / 100.0)) * 100
                first = max(100, min(first, total - 100))
                amounts = [first, total - first]
            else:
                amounts = [total]
            t = created
            for a in amounts:
                t = pay_time(t, hi)
                pays.append({"amount": a, "method": method, "status": "completed", "_paid": t, "_refunded": None,
                             "note": ("Check #%d" % rng.randint(1001, 9999)) if method == "check" else None})
            if method in ("card", "ach") and ctx.chance(0.06):
                ft = created + (pays[0]["_paid"] - created) / 2
                pays.insert(0, {"amount": amounts[0], "method": method, "status": "failed",
                                "_paid": ft.replace(microsecond=0), "_refunded": None,
                                "note": "Card declined" if method == "card" else "ACH returned - insufficient funds"})
        paid_amt = sum(p["amount"] for p in pays if p["status"] == "completed")
        if outcome == "void":
            status = "void"
        elif outcome == "draft":
            status = "draft"
        elif paid_amt >= total and paid_amt > 0:
            status = "paid"
        elif paid_amt > 0:
            status = "partially_paid"
        else:
            status = "issued"
        done = [p["_paid"] for p in pays if p["status"] == "completed"]
        inv.update({"id": i, "invoice_number": number, "owner_id": inv["_oid"], "status": status,
                    "issued_on": _d(inv["_issued"]) if inv["_issued"] else None,
                    "due_on": _d(inv["_due"]) if inv["_due"] else None,
                    "subtotal_cents": inv["_sub"], "tax_cents": inv["_tax"], "total_cents": total,
                    "amount_paid_cents": paid_amt, "created_by_staff_id": inv["_staff"],
                    "created_at": _dt(inv["_created"]),
                    "paid_at": _dt(max(done)) if status == "paid" else None,
                    "voided_at": _dt(inv["_void"]) if inv["_void"] else None,
                    "void_reason": inv["_void_reason"], "notes": inv["_notes"], "_status": status})
        out["invoices"].append(inv)
        for ln in inv["_lines"]:
            ln["id"] = len(out["invoice_lines"]) + 1
            ln["invoice_id"] = i
            out["invoice_lines"].append(ln)
        for p in pays:
            p["_inv"] = inv
            pay_tmp.append(p)

    pay_tmp.sort(key=lambda x: x["_paid"])
    pbase = rng.randint(100000, 400000)
    for i, p in enumerate(pay_tmp, 1):
        inv = p["_inv"]
        out["payments"].append({
            "id": i, "payment_reference": "PMT-%06d" % (pbase + i), "invoice_id": inv["id"],
            "owner_id": inv["owner_id"], "amount_cents": p["amount"], "method": p["method"], "status": p["status"],
            "paid_at": _dt(p["_paid"]), "received_by_staff_id": receiver(p["method"], inv["_kind"]),
            "refunded_at": _dt(p["_refunded"]) if p["_refunded"] else None, "note": p["note"]})

    # ------------------------------------------------------------- activity log
    logs = []

    def log(when, staff, owner, etype, eid, action, old=None, new=None, details=None):
        if when is None or when > clock:
            return
        logs.append((when.replace(microsecond=0), staff, owner, etype, eid, action, old, new, details))

    for o in out["owners"]:
        inf = oinfo[o["id"]]
        if inf["created"] >= clock - timedelta(days=400):
            log(inf["created"], None if inf["kind"] == "transient" else rng.choice(office), o["id"], "owner", o["id"],
                "account_created", None, "active", "Account %s opened" % o["account_number"])
        if inf["status"] == "suspended":
            log(ago(2, 12), rng.choice(pools["manager"]), o["id"], "owner", o["id"], "status_changed", "active",
                "suspended", "Account suspended for a past-due balance")
        elif inf["status"] == "closed":
            log(inf["closed_at"], rng.choice(office), o["id"], "owner", o["id"], "status_changed", "active", "closed",
                "Account closed at the owner's request")
    for b in out["boats"]:
        if b["status"] == "sold":
            inf = oinfo[b["owner_id"]]
            when = inf["closed_at"] - timedelta(days=rng.randint(1, 10)) if inf["closed_at"] else ago(20, 300)
            log(when, rng.choice(office), b["owner_id"], "boat", b["id"], "status_changed", "active", "sold",
                "Boat %s marked as sold" % b["name"])
    for sl in out["slips"]:
        if sl["status"] == "out_of_service":
            log(sl["_oos_at"], rng.choice(managers), None, "slip", sl["id"], "status_changed", "in_service",
                "out_of_service", sl["notes"])
    for L in out["slip_leases"]:
        oid, lid, st = L["owner_id"], L["id"], L["created_by_staff_id"]
        log(L["_created"], st, oid, "slip_lease", lid, "created", None, "pending",
            "Lease %s created for slip %s (%s)" % (L["lease_number"], L["_slip"]["slip_code"], L["_plan"]["code"]))
        if L["_signed"]:
            log(L["_signed"], st, oid, "slip_lease", lid, "signed", None, None, "Lease agreement signed by owner")
        if L["status"] in ("active", "expired", "terminated"):
            log(_at(L["_start"], 0, 5), None, oid, "slip_lease", lid, "activated", "pending", "active", None)
        if L["status"] == "expired":
            log(_at(L["_end"] + timedelta(days=1), 0, 5), None, oid, "slip_lease", lid, "expired", "active",
                "expired", None)
        elif L["status"] == "terminated":
            log(L["_terminated"], rng.choice(lease_desk), oid, "slip_lease", lid, "terminated", "active",
                "terminated", L["end_reason"])
        elif L["status"] == "cancelled":
            log(L["_cancelled"], st, oid, "slip_lease", lid, "cancelled", "pending", "cancelled", L["end_reason"])
    for w in out["slip_waitlist"]:
        log(w["_req"], None, w["owner_id"], "waitlist", w["id"], "added", None, "waiting",
            "Added to slip waitlist (%s)" % w["desired_plan_type"])
        if w["_off"]:
            log(w["_off"], rng.choice(managers), w["owner_id"], "waitlist", w["id"], "offered", "waiting", "offered",
                "Slip offered to owner")
        if w["_res"] and w["status"] in ("accepted", "withdrawn", "expired"):
            log(w["_res"], rng.choice(managers) if w["status"] == "accepted" else None, w["owner_id"], "waitlist",
                w["id"], w["status"], "offered" if w["_off"] else "waiting", w["status"], None)
    for x in out["transient_reservations"]:
        oid, rid, st = x["owner_id"], x["id"], x["booked_by_staff_id"]
        log(x["_created"], st, oid, "reservation", rid, "created", None,
            "pending" if x["status"] == "pending" else "confirmed",
            "Reservation %s via %s, %d night(s) from %s" % (x["confirmation_code"], x["booking_channel"], x["nights"],
                                                          x["arrival_date"]))
        if x["_ci"]:
            log(x["_ci"], rng.choice(dockside), oid, "reservation", rid, "checked_in", "confirmed", "checked_in",
                "Checked in to slip %s" % (x["_slip"]["slip_code"] if x["_slip"] else "T Dock"))
        if x["_co"]:
            log(x["_co"], rng.choice(dockside), oid, "reservation", rid, "checked_out", "checked_in", "checked_out", None)
        if x["status"] == "cancelled":
            log(x["_cx"], st, oid, "reservation", rid, "cancelled", "confirmed", "cancelled", x["cancellation_reason"])
        elif x["status"] == "no_show":
            log(_at(x["_arr"] + timedelta(days=1), 8, 30), rng.choice(dockside), oid, "reservation", rid, "no_show",
                "confirmed", "no_show", "Guest did not arrive")
    for f in out["fuel_orders"]:
        if f["status"] == "cancelled":
            log(f["_cancelled"], None, f["owner_id"], "fuel_order", f["id"], "cancelled",
                "scheduled" if f["_scheduled"] else "requested", "cancelled", "Fuel order %s cancelled" % f["order_number"])
        elif f["status"] == "scheduled":
            log(f["_requested"] + timedelta(minutes=rng.randint(5, 60)), rng.choice(fuelers), f["owner_id"],
                "fuel_order", f["id"], "scheduled", "requested", "scheduled",
                "Fuel scheduled for %s" % f["scheduled_for"])
    for w in out["work_orders"]:
        oid, wid, st = w["owner_id"], w["id"], w["created_by_staff_id"]
        who = w["assigned_staff_id"] or rng.choice(techs)
        log(w["_requested"], st, oid, "work_order", wid, "created", None, "requested", w["description"])
        prev = "requested"
        if w["_t_est"] is not None:
            log(w["_t_est"], st, oid, "work_order", wid, "estimated", prev, "estimated",
                "Estimate %s" % _money(w["estimate_cents"]))
            prev = "estimated"
        if w["_approved"] is not None:
            log(w["_approved"], st, oid, "work_order", wid, "approved", prev, "approved", "Owner approved the work")
            prev = "approved"
        if w["status"] == "scheduled":
            log(min(w["_approved"] + timedelta(hours=rng.randint(1, 24)), clock), st, oid, "work_order", wid,
                "scheduled", prev, "scheduled", "Scheduled for %s" % w["scheduled_start"])
            prev = "scheduled"
        if w["_started"] is not None:
            log(w["_started"], who, oid, "work_order", wid, "started", prev, "in_progress", None)
            prev = "in_progress"
        if w["status"] == "on_hold":
            log(w["_started"] + (clock - w["_started"]) / 2, who, oid, "work_order", wid, "on_hold", prev, "on_hold",
                w["hold_reason"])
        elif w["status"] == "completed":
            log(w["_completed"], who, oid, "work_order", wid, "completed", prev, "completed", None)
        elif w["status"] == "cancelled":
            log(w["_cancelled"], st, oid, "work_order", wid, "cancelled", prev, "cancelled", w["cancellation_reason"])
    for inv in out["invoices"]:
        if inv["_status"] != "draft":
            log(inv["_created"], inv["_staff"], inv["owner_id"], "invoice", inv["id"], "issued", "draft", "issued",
                "Invoice %s issued for %s" % (inv["invoice_number"], _money(inv["total_cents"])))
        if inv["_status"] == "void":
            log(inv["_void"], rng.choice(office), inv["owner_id"], "invoice", inv["id"], "voided", "issued", "void",
                inv["void_reason"])
    for p in out["payments"]:
        if p["status"] == "failed":
            log(datetime.fromisoformat(p["paid_at"]), p["received_by_staff_id"], p["owner_id"], "payment", p["id"],
                "payment_failed", None, "failed", p["note"])
        elif p["status"] == "refunded":
            log(datetime.fromisoformat(p["refunded_at"]), rng.choice(office), p["owner_id"], "payment", p["id"],
                "refunded", "completed", "refunded", p["note"])
    logs.sort(key=lambda x: x[0])
    for i, e in enumerate(logs, 1):
        out["activity_log"].append({"id": i, "occurred_at": _dt(e[0]), "staff_id": e[1], "owner_id": e[2],
                                    "entity_type": e[3], "entity_id": e[4], "action": e[5], "old_status": e[6],
                                    "new_status": e[7], "details": e[8]})

    # strip the builder's private fields
    for name in TABLE_ORDER:
        out[name] = [{k: v for k, v in row.items() if not k.startswith("_")} for row in out[name]]
    return out
