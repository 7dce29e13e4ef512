"""World builder for the pharmacy environment: a small retail pharmacy chain.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Randomness comes only from
``ctx.rng`` / ``ctx.faker`` and dates only from ``ctx.clock``. The rows keep the rules ``tools.py``
enforces:

- every store has pharmacists (with licence numbers), technicians and one manager;
- stock is held in lots; a lot is usable while its expiry date is after today. Each stocked drug has an
  older lot (usually expired by now: emptied and disposed, or still holding expired units that wait
  for disposal) and a current lot; some stores also hold a short-dated lot that expires soon;
- prescriptions respect the controlled-substance rules (schedule II: no refills; III to V: at most 5;
  controlled prescriptions expire 180 days after writing, others 365) and are written by prescribers
  with a DEA number when controlled; no patient gets a drug of a class they are allergic to, and no
  two valid prescriptions of a patient form a 'major' interaction (except the planted new prescription
  that the interaction check must block);
- fills replay the refill rules: fill 0 is the original, each refill uses one authorised refill
  (``refills_remaining`` = authorised - counted refills), fills are never earlier than 75 % of the
  previous fill's days supply, each fill took its units from a lot of its store that was received
  before and expired after the fill; at most one open (queued or filled) fill per prescription;
- transfers move a prescription to another store as a new prescription (the old one 'transferred');
  schedule II prescriptions are never transferred; controlled ones at most once;
- every timestamp lies before the clock.

Planted in every world for the templates: refills that are due, filled fills waiting for pickup (some
uncollected for over a week), prescriptions that can be transferred or get a reminder, patients without
a given allergy, stores with short-dated and expired lots, stores with drugs they do not stock.

``distractors``: namesake patients (same full name, other birth date and e-mail), prescribers sharing a
surname, and patients sharing a surname with planted ones.
"""

from __future__ import annotations

import math
from datetime import date, datetime, time, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

SUPPLIERS = [
    (1, "Cardinal Ridge Distribution", "orders@cardinalridge.com", 2, 10),
    (2, "Northstar Wholesale Drug", "purchasing@northstarwholesale.com", 3, 20),
    (3, "BlueRiver Medical Supply", "supply@blueriver-med.com", 5, 5),
]

# name, generic, strength, form, class, schedule, rx_only, tier, unit price (cents), max per sale, supplier
DRUGS = [
    ("Amoxicillin", "amoxicillin", "500 mg", "capsule", "penicillins", 0, 1, 1, 35, None, 1),
    ("Amoxicillin", "amoxicillin", "250 mg", "capsule", "penicillins", 0, 1, 1, 25, None, 1),
    ("Augmentin", "amoxicillin/clavulanate", "875 mg", "tablet", "penicillins", 0, 1, 2, 180, None, 2),
    ("Cephalexin", "cephalexin", "500 mg", "capsule", "cephalosporins", 0, 1, 1, 40, None, 1),
    ("Azithromycin", "azithromycin", "250 mg", "tablet", "macrolides", 0, 1, 1, 120, None, 1),
    ("Bactrim DS", "sulfamethoxazole/trimethoprim", "800/160 mg", "tablet", "sulfonamides", 0, 1, 1, 45, None, 2),
    ("Ciprofloxacin", "ciprofloxacin", "500 mg", "tablet", "fluoroquinolones", 0, 1, 1, 60, None, 2),
    ("Lisinopril", "lisinopril", "10 mg", "tablet", "ace_inhibitors", 0, 1, 1, 12, None, 1),
    ("Lisinopril", "lisinopril", "20 mg", "tablet", "ace_inhibitors", 0, 1, 1, 15, None, 1),
    ("Atorvastatin", "atorvastatin", "20 mg", "tablet", "statins", 0, 1, 1, 20, None, 1),
    ("Atorvastatin", "atorvastatin", "40 mg", "tablet", "statins", 0, 1, 1, 25, None, 1),
    ("Simvastatin", "simvastatin", "20 mg", "tablet", "statins", 0, 1, 1, 10, None, 2),
    ("Metformin", "metformin", "500 mg", "tablet", "biguanides", 0, 1, 1, 8, None, 1),
    ("Levothyroxine", "levothyroxine", "50 mcg", "tablet", "thyroid", 0, 1, 1, 15, None, 2),
    ("Warfarin", "warfarin", "5 mg", "tablet", "anticoagulants", 0, 1, 2, 30, None, 2),
    ("Eliquis", "apixaban", "5 mg", "tablet", "anticoagulants", 0, 1, 3, 850, None, 3),
    ("Sertraline", "sertraline", "50 mg", "tablet", "ssris", 0, 1, 1, 20, None, 1),
    ("Escitalopram", "escitalopram", "10 mg", "tablet", "ssris", 0, 1, 1, 22, None, 1),
    ("Phenelzine", "phenelzine", "15 mg", "tablet", "maois", 0, 1, 3, 210, None, 3),
    ("Meloxicam", "meloxicam", "15 mg", "tablet", "nsaids", 0, 1, 1, 15, None, 2),
    ("Omeprazole", "omeprazole", "20 mg", "capsule", "ppis", 0, 1, 1, 18, None, 1),
    ("Metoprolol Succinate ER", "metoprolol", "50 mg", "tablet", "beta_blockers", 0, 1, 1, 18, None, 2),
    ("Albuterol HFA", "albuterol", "90 mcg", "inhaler", "beta_agonists", 0, 1, 2, 3500, None, 3),
    ("Advair Diskus", "fluticasone/salmeterol", "250/50 mcg", "inhaler", "corticosteroid_combos", 0, 1, 3, 32000, None, 3),
    ("Ozempic", "semaglutide", "1 mg", "injection", "glp1_agonists", 0, 1, 4, 95000, None, 3),
    ("Oxycodone", "oxycodone", "5 mg", "tablet", "opioids", 2, 1, 2, 90, None, 2),
    ("Hydrocodone/APAP", "hydrocodone/acetaminophen", "5/325 mg", "tablet", "opioids", 2, 1, 2, 70, None, 2),
    ("Adderall", "amphetamine salts", "20 mg", "tablet", "stimulants", 2, 1, 2, 150, None, 3),
    ("Alprazolam", "alprazolam", "0.5 mg", "tablet", "benzodiazepines", 4, 1, 1, 20, None, 2),
    ("Lorazepam", "lorazepam", "1 mg", "tablet", "benzodiazepines", 4, 1, 1, 25, None, 2),
    ("Zolpidem", "zolpidem", "10 mg", "tablet", "sedative_hypnotics", 4, 1, 1, 30, None, 1),
    ("Tramadol", "tramadol", "50 mg", "tablet", "opioids", 4, 1, 1, 20, None, 1),
    ("Pregabalin", "pregabalin", "75 mg", "capsule", "gabapentinoids", 5, 1, 2, 80, None, 3),
    ("Testosterone Cypionate", "testosterone", "200 mg/mL", "injection", "androgens", 3, 1, 3, 4500, None, 3),
    ("Ibuprofen 100 ct", "ibuprofen", "200 mg", "tablet", "nsaids", 0, 0, None, 899, 6, 1),
    ("Acetaminophen 100 ct", "acetaminophen", "500 mg", "tablet", "analgesics", 0, 0, None, 799, 6, 1),
    ("Loratadine 30 ct", "loratadine", "10 mg", "tablet", "antihistamines", 0, 0, None, 1299, 6, 1),
    ("Cetirizine 30 ct", "cetirizine", "10 mg", "tablet", "antihistamines", 0, 0, None, 1399, 6, 2),
    ("Pseudoephedrine 24 ct", "pseudoephedrine", "30 mg", "tablet", "decongestants", 0, 0, None, 999, 2, 2),
    ("Naproxen 50 ct", "naproxen", "220 mg", "tablet", "nsaids", 0, 0, None, 949, 6, 2),
    ("Omeprazole DR 14 ct", "omeprazole", "20 mg", "tablet", "ppis", 0, 0, None, 1149, 4, 1),
    ("Diphenhydramine 24 ct", "diphenhydramine", "25 mg", "capsule", "antihistamines", 0, 0, None, 549, 6, 3),
    ("Hydrocortisone 1% 1 oz", "hydrocortisone", "1%", "cream", "corticosteroids", 0, 0, None, 649, 6, 3),
    ("Famotidine 50 ct", "famotidine", "20 mg", "tablet", "h2_blockers", 0, 0, None, 1099, 6, 1),
]

INTERACTIONS = [
    ("anticoagulants", "nsaids", "major", "Serious bleeding risk when an anticoagulant is combined with an NSAID."),
    ("maois", "ssris", "major", "Risk of serotonin syndrome; SSRIs and MAOIs must not be combined."),
    ("benzodiazepines", "opioids", "major", "Profound sedation and respiratory depression."),
    ("opioids", "sedative_hypnotics", "major", "Additive CNS and respiratory depression."),
    ("decongestants", "maois", "major", "Risk of hypertensive crisis."),
    ("macrolides", "statins", "moderate", "Raised statin levels; watch for muscle pain."),
    ("anticoagulants", "fluoroquinolones", "moderate", "May increase INR; monitor closely."),
    ("nsaids", "ssris", "moderate", "Increased risk of GI bleeding."),
]

PLANS = [
    ("EVB", "Evergreen Health Basic", "Evergreen Health", [(1, 500), (2, 1500), (3, 4500), (4, None)]),
    ("EVP", "Evergreen Health Plus", "Evergreen Health", [(1, 0), (2, 1000), (3, 3000), (4, 15000)]),
    ("CMD", "Cascade Medicare Part D", "Cascade Mutual", [(1, 300), (2, 1200), (3, 4700), (4, 10000)]),
    ("SEP", "Summit Employer PPO", "Summit Benefits", [(1, 1000), (2, 2500), (3, 5000), (4, None)]),
    ("PMC", "Pioneer State Medicaid", "State of Oregon", [(1, 100), (2, 100), (3, 300), (4, 300)]),
]

STORES = [
    ("Downtown", "Portland"), ("Pearl District", "Portland"), ("Hawthorne", "Portland"), ("Beaverton", "Beaverton"),
    ("Lake Oswego", "Lake Oswego"), ("Gresham", "Gresham"), ("Hillsboro", "Hillsboro"), ("Tigard", "Tigard"),
    ("Vancouver Mall", "Vancouver"), ("Salem Center", "Salem"), ("Eugene Campus", "Eugene"), ("Bend Old Mill", "Bend"),
]

SPECIALTIES = ["Family Medicine", "Internal Medicine", "Cardiology", "Psychiatry", "Pediatrics", "Orthopedics",
               "Endocrinology", "Pain Management"]
ALLERGY_CLASSES = ["penicillins", "sulfonamides", "cephalosporins", "nsaids", "opioids", "macrolides",
                   "fluoroquinolones", "ace_inhibitors", "statins"]
REACTIONS = ["hives", "rash", "anaphylaxis", "swelling of the face", "nausea and vomiting", "itching"]
NOTE_BODIES = [
    "Counselled patient on taking with food to reduce stomach upset.",
    "Patient asked about generic substitution; generic dispensed.",
    "Called prescriber to confirm directions; confirmed as written.",
    "Reminded patient to avoid alcohol while on this medication.",
    "Patient reports good adherence; no side effects noted.",
    "Insurance required prior authorisation; approved by phone.",
]
DIRECTIONS = {
    "tablet": "Take 1 tablet by mouth daily", "capsule": "Take 1 capsule by mouth daily",
    "inhaler": "Inhale 2 puffs every 4 to 6 hours as needed", "injection": "Inject as directed once weekly",
    "liquid": "Take 5 mL by mouth daily", "cream": "Apply thinly twice daily", "patch": "Apply 1 patch daily",
}


def _at(d: date, hour: int, minute: int = 0) -> str:
    return datetime.combine(d, time(hour, minute)).isoformat()


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng, fk, today = ctx.rng, ctx.faker, ctx.today
    T = Tables([
        "stores", "staff", "suppliers", "drugs", "drug_interactions", "inventory_lots", "prescribers",
        "insurance_plans", "plan_tiers", "patients", "patient_allergies", "prescriptions", "fills", "transfers",
        "otc_sales", "otc_sale_lots", "refill_reminders", "pharmacist_notes", "stock_orders", "stock_order_lines"])

    # ---- reference data --------------------------------------------------------------------------
    for sid, name, email, lead, mn in SUPPLIERS:
        T["suppliers"].append({"id": sid, "name": name, "email": email, "lead_time_days": lead, "min_order_units": mn})
    drugs: dict[int, Row] = {}
    for i, (name, generic, strength, form, cls, sched, rx, tier, price, mx, sup) in enumerate(DRUGS, start=1):
        ndc = f"{50000 + i * 37:05d}-{100 + (i * 53) % 900:03d}-{10 + i % 90:02d}"
        drugs[i] = T.add("drugs", {"ndc": ndc, "name": name, "generic_name": generic, "strength": strength,
                                   "form": form, "drug_class": cls, "schedule": sched, "rx_only": rx, "tier": tier,
                                   "unit_price_cents": price, "max_units_per_sale": mx, "supplier_id": sup})
    rx_drugs = [d for d in drugs.values() if d["rx_only"]]
    otc_drugs = [d for d in drugs.values() if not d["rx_only"]]
    for a, b, sev, desc in INTERACTIONS:
        T.add("drug_interactions", {"class_a": a, "class_b": b, "severity": sev, "description": desc})
    major = {(a, b) for a, b, s, _ in INTERACTIONS if s == "major"} | {(b, a) for a, b, s, _ in INTERACTIONS if s == "major"}
    plan_tiers: dict[int, dict[int, int | None]] = {}
    for code, name, payer, tiers in PLANS:
        plan_id = T.add("insurance_plans", {"code": code, "name": name, "payer": payer})["id"]
        plan_tiers[plan_id] = {}
        for tier, copay in tiers:
            T.add("plan_tiers", {"plan_id": plan_id, "tier": tier, "covered": 0 if copay is None else 1,
                                 "copay_cents": copay})
            plan_tiers[plan_id][tier] = copay

    # ---- stores and staff ------------------------------------------------------------------------
    n_stores = ctx.n(3, 12)
    emails: set[str] = set()
    names_used: set[str] = set()
    staff_by_store: dict[int, dict[str, list[Row]]] = {}
    lic = 40000
    for s in range(1, n_stores + 1):
        hood, city = STORES[s - 1]
        T["stores"].append({"id": s, "code": f"S{s:02d}", "name": f"Greenleaf Pharmacy {hood}", "city": city,
                            "phone": f"503-555-{1000 + s * 17:04d}", "opened_on": ctx.days_ago(900, 4000).isoformat()})
        staff_by_store[s] = {"pharmacist": [], "technician": [], "manager": []}
        for role, k in (("pharmacist", ctx.n(2, 3)), ("technician", ctx.n(2, 4)), ("manager", 1)):
            for _ in range(k):
                full = ctx.unique(lambda: f"{fk.first_name()} {fk.last_name()}", names_used)
                base = full.lower().replace(" ", ".").replace("'", "")
                email = f"{base}@greenleafrx.com"
                n = 2
                while email in emails:
                    email = f"{base}{n}@greenleafrx.com"
                    n += 1
                emails.add(email)
                lic += rng.randint(3, 40)
                row = T.add("staff", {"store_id": s, "full_name": full, "email": email, "role": role,
                                      "license_no": f"RPH-{lic}" if role == "pharmacist" else None, "is_active": 1})
                staff_by_store[s][role].append(row)
        if ctx.chance(0.5):  # a former technician, deactivated
            first, last = fk.first_name(), fk.last_name()
            full = f"{first} {last}"
            email = f"{full.lower().replace(' ', '.').replace(chr(39), '')}.former{s}@greenleafrx.com"
            T.add("staff", {"store_id": s, "full_name": full, "email": email, "role": "technician",
                            "license_no": None, "is_active": 0})

    # ---- stock lots ------------------------------------------------------------------------------
    lots: dict[tuple[int, int], list[Row]] = {}
    lot_codes: set[str] = set()

    def lot_code() -> str:
        return ctx.unique(lambda: f"{rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}{rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}"
                                  f"{rng.randint(1000, 9999)}{rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}", lot_codes)

    def add_lot(store: int, drug: int, received: date, expiry: date, qty: int, disposed: str | None = None) -> Row:
        row = T.add("inventory_lots", {"store_id": store, "drug_id": drug, "lot_number": lot_code(),
                                       "expiry_date": expiry.isoformat(), "quantity": qty,
                                       "received_on": received.isoformat(), "disposed_at": disposed})
        lots.setdefault((store, drug), []).append(row)
        return row

    def bulk(d: Row) -> int:
        if d["form"] in ("inhaler", "injection", "cream"):
            return rng.randint(4, 24)
        if not d["rx_only"]:
            return rng.randint(6, 40)
        return rng.choice([100, 200, 300, 500, 1000]) - rng.randint(0, 60)

    not_stocked: dict[int, set[int]] = {}
    for s in range(1, n_stores + 1):
        skip = set(ctx.sample([d["id"] for d in drugs.values() if d["id"] not in (1, 8, 13, 17, 20, 38)], 5))
        not_stocked[s] = skip
        for d in drugs.values():
            if d["id"] in skip:
                continue
            exp_old = today - timedelta(days=rng.randint(20, 100))
            old_recv = today - timedelta(days=600)
            if ctx.chance(0.3):  # expired units still on the shelf, waiting for disposal
                add_lot(s, d["id"], old_recv, exp_old, rng.randint(1, 12) if d["form"] in ("inhaler", "injection", "cream") or not d["rx_only"] else rng.randint(10, 80))
            else:
                add_lot(s, d["id"], old_recv, exp_old, 0, _at(exp_old + timedelta(days=rng.randint(1, 10)), 18))
            cur_recv = exp_old - timedelta(days=30)
            add_lot(s, d["id"], cur_recv, today + timedelta(days=rng.randint(150, 700)), bulk(d))
            if ctx.chance(0.15):  # short-dated lot, received recently
                add_lot(s, d["id"], today - timedelta(days=rng.randint(5, 40)),
                        today + timedelta(days=rng.randint(3, 25)), max(1, bulk(d) // 4))

    def lot_for(store: int, drug: int, day: date) -> Row:
        for lot in lots[(store, drug)]:
            if lot["received_on"] <= day.isoformat() < lot["expiry_date"]:
                return lot
        return lots[(store, drug)][-1]

    # ---- prescribers -----------------------------------------------------------------------------
    prescribers = T["prescribers"]
    npis: set[str] = set()
    deas: set[str] = set()
    for _ in range(ctx.n(12, 70)):
        last = fk.last_name()
        npi = ctx.unique(lambda: f"1{rng.randint(100000000, 999999999)}", npis)
        has_dea = ctx.chance(0.75)
        dea = ctx.unique(lambda: f"B{last[0].upper()}{rng.randint(1000000, 9999999)}", deas) if has_dea else None
        T.add("prescribers", {"full_name": f"{fk.first_name()} {last}", "npi": npi, "dea_number": dea,
                              "specialty": ctx.pick(SPECIALTIES),
                              "phone": f"503-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}"})
    if ctx.distractors:  # prescribers sharing a surname
        for src in ctx.sample(prescribers[:], 3):
            last = src["full_name"].split()[-1]
            npi = ctx.unique(lambda: f"1{rng.randint(100000000, 999999999)}", npis)
            T.add("prescribers", {"full_name": f"{fk.first_name()} {last}", "npi": npi, "dea_number": None,
                                  "specialty": ctx.pick(SPECIALTIES),
                                  "phone": f"503-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}"})
    dea_prescribers = [p for p in prescribers if p["dea_number"]]

    # ---- patients --------------------------------------------------------------------------------
    patients = T["patients"]
    allergies: dict[int, set[str]] = {}
    pt_emails: set[str] = set()

    def new_patient(full: str | None = None) -> Row:
        first, last = (full.split(" ", 1) if full else (fk.first_name(), fk.last_name()))
        full = f"{first} {last}"
        email = None
        if ctx.chance(0.85):
            email = ctx.unique(lambda: f"{first.lower()}.{last.lower().replace(chr(39), '')}{rng.randint(1, 99)}@"
                                       f"{ctx.pick(['gmail.com', 'outlook.com', 'yahoo.com', 'icloud.com'])}", pt_emails)
        phone = f"971-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}" if (email is None or ctx.chance(0.8)) else None
        plan = rng.randint(1, len(PLANS)) if ctx.chance(0.8) else None
        dob = today - timedelta(days=rng.randint(18 * 365, 88 * 365))
        row = T.add("patients", {"full_name": full, "date_of_birth": dob.isoformat(), "email": email, "phone": phone,
                                 "home_store_id": rng.randint(1, n_stores), "plan_id": plan,
                                 "member_id": f"{PLANS[plan - 1][0]}{rng.randint(10000000, 99999999)}" if plan else None,
                                 "created_at": _iso(ctx.moment_ago(500, 2000))})
        allergies[row["id"]] = set()
        if ctx.chance(0.3):
            for cls in ctx.sample(ALLERGY_CLASSES, rng.choice([1, 1, 2])):
                allergies[row["id"]].add(cls)
                T.add("patient_allergies", {
                    "patient_id": row["id"], "drug_class": cls, "severity": ctx.pick(["mild", "moderate", "severe"]),
                    "reaction": ctx.pick(REACTIONS), "recorded_by": None, "recorded_at": _iso(ctx.moment_ago(400, 1500))})
        return row

    for _ in range(ctx.n(45, 900)):
        new_patient()
    if ctx.distractors:  # namesakes: same full name, other birth date and e-mail
        for src in ctx.sample(patients[:], max(4, len(patients) // 10)):
            new_patient(src["full_name"])

    # ---- prescriptions and fills -----------------------------------------------------------------
    rx_rows = T["prescriptions"]
    rxnums: set[int] = set()
    active_classes: dict[int, list[str]] = {p["id"]: [] for p in patients}

    def rx_number(i: int) -> str:
        n = 600000 + i * 7 + rng.randint(0, 6)
        rxnums.add(n)
        return f"RX{n}"

    def tech(store: int) -> Row:
        return ctx.pick(staff_by_store[store]["technician"] + staff_by_store[store]["pharmacist"])

    def rph(store: int) -> Row:
        return ctx.pick(staff_by_store[store]["pharmacist"])

    def regimen(d: Row) -> tuple[int, int, str]:
        if d["drug_class"] in ("penicillins", "cephalosporins", "macrolides", "sulfonamides", "fluoroquinolones"):
            q, ds = ctx.pick([(20, 10), (14, 7), (30, 10)]) if d["drug_class"] != "macrolides" else (6, 5)
            return q, ds, f"Take 1 {d['form']} by mouth as directed until finished"
        if d["form"] == "inhaler":
            return 1, 30, DIRECTIONS["inhaler"]
        if d["form"] == "injection":
            return (4, 28, DIRECTIONS["injection"]) if d["drug_class"] != "androgens" else (1, 28, "Inject 1 mL every 2 weeks")
        if d["schedule"] in (2, 4) and d["drug_class"] in ("opioids",):
            return ctx.pick([(20, 5), (30, 10)]) + (f"Take 1 {d['form']} by mouth every 6 hours as needed for pain",)
        q, ds = ctx.pick([(30, 30), (30, 30), (90, 90), (60, 30)])
        return q, ds, DIRECTIONS[d["form"]] if q != 60 else f"Take 1 {d['form']} by mouth twice daily"

    def add_rx(p: Row, d: Row, store: int, written: date, *, status: str = "active", history: str = "normal",
               refills: int | None = None, prescriber: Row | None = None) -> Row:
        i = len(rx_rows) + 1
        q, ds, directions = regimen(d)
        sched = d["schedule"]
        if refills is None:
            if sched == 2 or d["drug_class"] in ("penicillins", "cephalosporins", "macrolides", "sulfonamides", "fluoroquinolones"):
                refills = 0
            elif sched:
                refills = ctx.pick([0, 1, 2, 5])
            else:
                refills = ctx.pick([1, 2, 3, 5, 5, 11])
        expires = written + timedelta(days=180 if sched else 365)
        pr = prescriber or ctx.pick(dea_prescribers if sched else prescribers)
        row = {"id": i, "rx_number": rx_number(i), "patient_id": p["id"], "prescriber_id": pr["id"], "drug_id": d["id"],
               "store_id": store, "quantity": q, "days_supply": ds, "directions": directions,
               "refills_authorized": refills, "refills_remaining": refills, "written_on": written.isoformat(),
               "expires_on": expires.isoformat(), "status": status, "status_reason": None, "transferred_from_id": None}
        rx_rows.append(row)
        if (store, d["id"]) not in lots:  # make sure the store can have dispensed it
            exp_old = today - timedelta(days=rng.randint(20, 100))
            add_lot(store, d["id"], today - timedelta(days=600), exp_old, 0, _at(exp_old + timedelta(days=2), 18))
            add_lot(store, d["id"], exp_old - timedelta(days=30), today + timedelta(days=rng.randint(150, 700)), bulk(d))
            not_stocked[store].discard(d["id"])
        if history == "none":
            return row
        # replay fills
        day = written + timedelta(days=rng.randint(0, 2))
        number = 0
        while True:
            if number > refills or day >= today or day.isoformat() > row["expires_on"]:
                break
            nxt = day + timedelta(days=ds + rng.randint(-2, 5))
            is_last = number == refills or nxt >= today or nxt.isoformat() > row["expires_on"]
            st = tech(store)
            ph = rph(store)
            lot = lot_for(store, d["id"], day)
            copay = _copay(p, d, q)
            f = T.add("fills", {"prescription_id": i, "store_id": store, "fill_number": number, "quantity": q,
                                "status": "picked_up", "copay_cents": copay, "lot_id": lot["id"], "queued_by": st["id"],
                                "pharmacist_id": ph["id"], "queued_at": _at(day, 9, rng.randint(0, 59)),
                                "filled_at": _at(day, 11, rng.randint(0, 59)), "picked_up_at": None, "closed_at": None})
            pick_day = day + timedelta(days=rng.randint(0, 3))
            if pick_day >= today:
                pick_day = day
            f["picked_up_at"] = _at(pick_day, 16, rng.randint(0, 59))
            if not is_last and ctx.chance(0.05):  # once returned to stock, then filled again
                f.update(status="returned_to_stock", picked_up_at=None,
                         closed_at=_at(day + timedelta(days=10), 17))
                day = day + timedelta(days=11)
                continue
            if number > 0:
                row["refills_remaining"] -= 1
            number += 1
            if is_last:
                break
            if history == "lapsed" and ctx.chance(0.5):
                break
            day = nxt
        return row

    def _copay(p: Row, d: Row, q: int) -> int:
        cash = d["unit_price_cents"] * q
        if p["plan_id"] is None:
            return cash
        c = plan_tiers[p["plan_id"]][d["tier"]]
        return cash if c is None else min(c, cash)

    def can_take(p: Row, d: Row) -> bool:
        if d["drug_class"] in allergies[p["id"]]:
            return False
        return all((d["drug_class"], c) not in major for c in active_classes[p["id"]])

    for p in patients:
        for _ in range(rng.choice([1, 1, 2, 2, 3, 4])):
            d = ctx.pick(rx_drugs)
            if not can_take(p, d):
                continue
            store = p["home_store_id"] if ctx.chance(0.85) else rng.randint(1, n_stores)
            sched = d["schedule"]
            written = today - timedelta(days=rng.randint(2, 170 if sched else 420))
            hist = ctx.weighted({"normal": 6, "lapsed": 3})
            r = add_rx(p, d, store, written, history=hist)
            if r["expires_on"] >= today.isoformat():
                active_classes[p["id"]].append(d["drug_class"])
            if ctx.chance(0.05) and r["expires_on"] >= today.isoformat():
                r["status"] = "discontinued"
                r["status_reason"] = ctx.pick(["Therapy changed by prescriber", "Patient stopped taking it"])
                active_classes[p["id"]].remove(d["drug_class"])

    # open fills: the last fill of some prescriptions is filled but not yet picked up
    def last_fill(r: Row) -> Row | None:
        fs = [f for f in T["fills"] if f["prescription_id"] == r["id"] and f["status"] != "returned_to_stock"]
        return fs[-1] if fs else None

    waiting, stale = [], []
    for r in rx_rows:
        if r["status"] != "active" or r["expires_on"] < today.isoformat():
            continue
        lf = last_fill(r)
        if lf is None or lf["status"] != "picked_up":
            continue
        age = (today - date.fromisoformat(lf["filled_at"][:10])).days
        if age <= 5:
            waiting.append(lf)
        elif 8 <= age <= 20:
            stale.append(lf)
    for lf in ctx.sample(waiting, ctx.n(3, 25)) + ctx.sample(stale, ctx.n(3, 25)):
        lf["status"] = "filled"
        lf["picked_up_at"] = None

    # a few queued fills (today), for refills that are due
    def due(r: Row) -> bool:
        if r["status"] != "active" or r["expires_on"] < today.isoformat():
            return False
        fs = [f for f in T["fills"] if f["prescription_id"] == r["id"] and f["status"] not in ("returned_to_stock", "cancelled")]
        if any(f["status"] in ("queued", "filled") for f in fs):
            return False
        if not fs:
            return True
        if r["refills_remaining"] <= 0:
            return False
        last = date.fromisoformat(fs[-1]["filled_at"][:10])
        return (today - last).days >= math.ceil(0.75 * r["days_supply"])

    due_rx = [r for r in rx_rows if due(r)]
    for r in ctx.sample(due_rx, ctx.n(5, 40)):
        if r["refills_remaining"] <= 0 and any(f["prescription_id"] == r["id"] for f in T["fills"]):
            continue
        fs = [f for f in T["fills"] if f["prescription_id"] == r["id"] and f["status"] not in ("returned_to_stock", "cancelled")]
        number = len(fs)
        p = patients[r["patient_id"] - 1]
        T.add("fills", {"prescription_id": r["id"], "store_id": r["store_id"], "fill_number": number,
                        "quantity": r["quantity"], "status": "queued",
                        "copay_cents": _copay(p, drugs[r["drug_id"]], r["quantity"]),
                        "lot_id": None, "queued_by": tech(r["store_id"])["id"], "pharmacist_id": None,
                        "queued_at": _at(today - timedelta(days=rng.randint(0, 1)), 8, rng.randint(0, 59)),
                        "filled_at": None, "picked_up_at": None, "closed_at": None})
        if number > 0:
            r["refills_remaining"] -= 1

    # new prescriptions not yet filled (history none), some of them transfer/reminder candidates
    for p in ctx.sample(patients, ctx.n(6, 50)):
        d = ctx.pick(rx_drugs)
        if not can_take(p, d):
            continue
        r = add_rx(p, d, p["home_store_id"], today - timedelta(days=rng.randint(0, 6)), history="none")
        active_classes[p["id"]].append(d["drug_class"])

    # planted: a new prescription that a major interaction blocks (the patient's SSRI vs a new MAOI)
    ssri = next(d for d in rx_drugs if d["drug_class"] == "ssris")
    maoi = next(d for d in rx_drugs if d["drug_class"] == "maois")
    for p in patients[: ctx.n(2, 6)]:
        if "ssris" in allergies[p["id"]] or any((c, "maois") in major for c in active_classes[p["id"]] if c != "ssris"):
            continue
        if any((c, "ssris") in major for c in active_classes[p["id"]]):
            continue
        presc = ctx.pick([x for x in prescribers if x["specialty"] == "Psychiatry"] or prescribers)
        add_rx(p, ssri, p["home_store_id"], today - timedelta(days=rng.randint(100, 200)), history="normal",
               refills=5, prescriber=presc)
        active_classes[p["id"]].append("ssris")
        add_rx(p, maoi, p["home_store_id"], today - timedelta(days=rng.randint(0, 2)), history="none",
               refills=2, prescriber=presc)
        active_classes[p["id"]].append("maois")

    # historical transfers: an active prescription moved to another store as a new one
    if n_stores > 1:
        movable = [r for r in rx_rows if r["status"] == "active" and drugs[r["drug_id"]]["schedule"] != 2
                   and r["expires_on"] >= today.isoformat() and r["refills_remaining"] > 0
                   and not any(f["prescription_id"] == r["id"] and f["status"] in ("queued", "filled") for f in T["fills"])]
        for r in ctx.sample(movable, ctx.n(3, 25)):
            fs = [f for f in T["fills"] if f["prescription_id"] == r["id"]]
            when = datetime.fromisoformat(max([f["picked_up_at"] or f["closed_at"] or f["queued_at"] for f in fs] or [_at(date.fromisoformat(r["written_on"]), 9)]))
            when = when + timedelta(hours=rng.randint(2, 48))
            if when.date() >= today:
                continue
            to_store = ctx.pick([s for s in range(1, n_stores + 1) if s != r["store_id"]])
            if (to_store, r["drug_id"]) not in lots:
                continue
            i = len(rx_rows) + 1
            new = {**r, "id": i, "rx_number": rx_number(i), "store_id": to_store, "transferred_from_id": r["id"],
                   "status": "active", "status_reason": None}
            rx_rows.append(new)
            r["status"] = "transferred"
            r["status_reason"] = f"Transferred to store S{to_store:02d}"
            T.add("transfers", {"from_prescription_id": r["id"], "to_prescription_id": i,
                                "from_store_id": r["store_id"], "to_store_id": to_store,
                                "pharmacist_id": rph(to_store)["id"], "transferred_at": _iso(when)})

    # ---- reminders and notes ---------------------------------------------------------------------
    rid = 0
    valid = [r for r in rx_rows if r["status"] == "active" and r["expires_on"] >= today.isoformat() and r["refills_remaining"] > 0]
    for r in ctx.sample(valid, max(1, len(valid) // 5)):
        p = patients[r["patient_id"] - 1]
        ch = "email" if p["email"] else "sms"
        rid += 1
        T["refill_reminders"].append({"id": rid, "prescription_id": r["id"], "remind_on": (today + timedelta(days=rng.randint(2, 25))).isoformat(),
                                      "channel": ch, "status": "scheduled", "created_by": tech(r["store_id"])["id"],
                                      "created_at": _iso(ctx.moment_ago(1, 20))})
    for r in ctx.sample(rx_rows, max(2, len(rx_rows) // 8)):
        p = patients[r["patient_id"] - 1]
        ch = "email" if p["email"] else "sms"
        rid += 1
        on = max(date.fromisoformat(r["written_on"]) + timedelta(days=1), today - timedelta(days=rng.randint(3, 60)))
        if on >= today:
            continue
        T["refill_reminders"].append({"id": rid, "prescription_id": r["id"], "remind_on": on.isoformat(), "channel": ch,
                                      "status": "sent", "created_by": tech(r["store_id"])["id"],
                                      "created_at": _at(on - timedelta(days=1), 12)})
    for r in ctx.sample(rx_rows, max(3, len(rx_rows) // 6)):
        w = date.fromisoformat(r["written_on"])
        if w >= today:
            continue
        T.add("pharmacist_notes", {
            "patient_id": r["patient_id"], "prescription_id": r["id"], "author_id": rph(r["store_id"])["id"],
            "body": ctx.pick(NOTE_BODIES),
            "created_at": _at(w + timedelta(days=rng.randint(0, max(0, min(30, (today - w).days - 1)))), 14)})

    # ---- OTC sales -------------------------------------------------------------------------------
    for _ in range(ctx.n(25, 500)):
        s = rng.randint(1, n_stores)
        d = ctx.pick(otc_drugs)
        if (s, d["id"]) not in lots:
            continue
        day = ctx.days_ago(1, 90)
        lot = lot_for(s, d["id"], day)
        if not (lot["received_on"] <= day.isoformat() < lot["expiry_date"]):
            continue
        q = rng.randint(1, min(3, d["max_units_per_sale"]))
        sale = T.add("otc_sales", {"store_id": s, "staff_id": tech(s)["id"], "drug_id": d["id"], "quantity": q,
                                   "total_cents": q * d["unit_price_cents"],
                                   "sold_at": _at(day, rng.randint(9, 19), rng.randint(0, 59))})
        T.add("otc_sale_lots", {"sale_id": sale["id"], "lot_id": lot["id"], "quantity": q})

    # ---- stock orders ----------------------------------------------------------------------------
    for s in range(1, n_stores + 1):
        for sup in (1, 2, 3):
            kinds = ["received", "received", "cancelled"] + (["submitted"] if ctx.chance(0.5) else []) + \
                    (["draft"] if (sup == 3 and ctx.chance(0.6)) else [])
            for kind in kinds:
                created = ctx.moment_ago(3, 80) if kind != "draft" else ctx.moment_ago(0.2, 3)
                mgr = staff_by_store[s]["manager"][0]
                sub_by = rph(s) if kind != "draft" else None
                subm = created + timedelta(hours=rng.randint(1, 20)) if kind in ("submitted", "received") else None
                if subm and subm >= ctx.clock:
                    subm = created
                closed = None
                if kind == "received":
                    closed = min(subm + timedelta(days=SUPPLIERS[sup - 1][3]), ctx.clock - timedelta(hours=1))
                elif kind == "cancelled":
                    closed = created + timedelta(hours=rng.randint(1, 30))
                    if closed >= ctx.clock:
                        closed = created
                order = T.add("stock_orders", {"store_id": s, "supplier_id": sup, "status": kind,
                                               "created_by": tech(s)["id"] if kind == "draft" else mgr["id"],
                                               "created_at": _iso(created),
                                               "submitted_by": sub_by["id"] if subm else None,
                                               "submitted_at": _iso(subm) if subm else None,
                                               "closed_at": _iso(closed) if closed else None})
                sup_drugs = [d for d in drugs.values() if d["supplier_id"] == sup and d["schedule"] != 2]
                for d in ctx.sample(sup_drugs, rng.randint(1, 3)):
                    T.add("stock_order_lines", {"order_id": order["id"], "drug_id": d["id"],
                                                "quantity": max(SUPPLIERS[sup - 1][4], rng.choice([10, 20, 50, 100]))})

    _plant_uncollected(ctx, T)
    _plant_unstocked(ctx, T)
    return T


def _plant_uncollected(ctx: WorldContext, T: dict[str, list[Row]]) -> None:
    """Make sure some fill has waited uncollected for a week or more, on a prescription that names its patient
    and drug unambiguously (a uniquely named patient with one valid prescription of the drug). The stale fills
    chosen above may all belong to namesakes or to patients holding two valid prescriptions of the drug; then
    such a fill is planted by leaving a suitable picked-up fill uncollected. Worlds that have one stay as built."""
    today = ctx.today
    iso_today = today.isoformat()
    name_count: dict[str, int] = {}
    for p in T["patients"]:
        name_count[p["full_name"]] = name_count.get(p["full_name"], 0) + 1
    patient = {p["id"]: p for p in T["patients"]}
    rx = {r["id"]: r for r in T["prescriptions"]}
    valid_count: dict[tuple[int, int], int] = {}
    for r in T["prescriptions"]:
        if r["status"] == "active" and r["expires_on"] >= iso_today:
            k = (r["patient_id"], r["drug_id"])
            valid_count[k] = valid_count.get(k, 0) + 1
    disposed = {lot["id"] for lot in T["inventory_lots"] if lot["disposed_at"] is not None}

    def unambiguous(r: Row) -> bool:
        return name_count[patient[r["patient_id"]]["full_name"]] == 1 and \
            valid_count.get((r["patient_id"], r["drug_id"]), 0) == 1

    def age(f: Row) -> int:
        return (today - date.fromisoformat(f["filled_at"][:10])).days

    if any(f["status"] == "filled" and age(f) >= 7 and f["lot_id"] not in disposed
           and unambiguous(rx[f["prescription_id"]]) for f in T["fills"]):
        return
    by_rx: dict[int, list[Row]] = {}
    for f in T["fills"]:
        by_rx.setdefault(f["prescription_id"], []).append(f)
    cands: list[tuple[int, Row]] = []
    for r in T["prescriptions"]:
        if r["status"] != "active" or r["expires_on"] < iso_today or not unambiguous(r):
            continue
        fs = [f for f in by_rx.get(r["id"], []) if f["status"] not in ("returned_to_stock", "cancelled")]
        if not fs or fs[-1]["status"] != "picked_up" or any(f["status"] in ("queued", "filled") for f in fs):
            continue
        lf = fs[-1]
        if age(lf) >= 7 and lf["lot_id"] not in disposed:
            cands.append((age(lf), lf))
    if not cands:
        return
    near = [f for a, f in cands if 8 <= a <= 20]
    f = ctx.pick(near) if near else min(cands, key=lambda c: (c[0], c[1]["id"]))[1]
    f["status"] = "filled"
    f["picked_up_at"] = None


def _plant_unstocked(ctx: WorldContext, T: dict[str, list[Row]]) -> None:
    """Make sure some store holds no lot at all of an orderable drug (not schedule II) whose supplier has no
    draft order from that store. Prescriptions written at a store stock the drugs it skipped, so chance can
    leave none; then the lots of a drug that the store never dispensed, sold or was prescribed are taken off
    its books. Worlds that have such a drug stay as built."""
    drugs = {d["id"]: d for d in T["drugs"]}
    drafts = {(o["store_id"], o["supplier_id"]) for o in T["stock_orders"] if o["status"] == "draft"}
    held = {(lot["store_id"], lot["drug_id"]) for lot in T["inventory_lots"]}
    stores = [s["id"] for s in T["stores"]]

    def orderable(s: int, d: Row) -> bool:
        return d["schedule"] != 2 and (s, d["supplier_id"]) not in drafts

    if any(orderable(s, d) and (s, d["id"]) not in held for s in stores for d in T["drugs"]):
        return
    used_lots = {f["lot_id"] for f in T["fills"] if f["lot_id"] is not None} | \
                {x["lot_id"] for x in T["otc_sale_lots"]}
    busy = {(r["store_id"], r["drug_id"]) for r in T["prescriptions"]} | \
           {(x["store_id"], x["drug_id"]) for x in T["otc_sales"]}
    by_pair: dict[tuple[int, int], list[Row]] = {}
    for lot in T["inventory_lots"]:
        by_pair.setdefault((lot["store_id"], lot["drug_id"]), []).append(lot)
    today = ctx.today.isoformat()
    plain, other = [], []
    for s in stores:
        for d in T["drugs"]:
            pair = (s, d["id"])
            if not orderable(s, drugs[d["id"]]) or pair in busy or pair not in by_pair:
                continue
            ls = by_pair[pair]
            if any(lot["id"] in used_lots for lot in ls):
                continue
            # plain: an emptied, disposed old lot and one current lot (nothing another task looks for)
            if len(ls) == 2 and ls[0]["disposed_at"] is not None and ls[1]["expiry_date"] > today:
                plain.append(pair)
            else:
                other.append(pair)
    if not (plain or other):
        return
    pair = ctx.pick(plain or other)
    T["inventory_lots"] = [lot for lot in T["inventory_lots"] if (lot["store_id"], lot["drug_id"]) != pair]
