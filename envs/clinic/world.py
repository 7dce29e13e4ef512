"""World builder for the clinic environment: a randomized, internally consistent clinic.

Every world has the canonical reference data (specialties, appointment types, medications, plans),
clinics drawn from a Portland-area pool, practitioners with weekly hours and time off, patients with
insurance histories and allergies, and about eight weeks of appointments around the frozen clock,
placed with the rules the tools enforce (working hours, time off, no double-booking of
practitioners, patients or rooms, rooms of the right type, specialties and age limits). Completed
visits have histories, notes, prescriptions, invoices split by the insurance rule of ``tools.py``
and payments; cancellations, no-shows and late cancellations carry their fees; the waitlist holds
entries that fit (and do not fit) freed slots.

Planted for the task templates, in every world: appointments today that can be checked in,
checked-in visits to close out, appointments tomorrow morning (late-cancellation window),
waitlist scenarios around a future appointment, patients with refillable and non-refillable
prescriptions, unpaid and partly paid invoices.

``distractors``: namesakes (same first and last name, other birth date and e-mail), look-alikes
(same last name and initial), and practitioners sharing a surname.
"""

from __future__ import annotations

import functools
import json
import re
from datetime import date, datetime, time, timedelta
from typing import Any

from awm.tooling import iso_seconds as _fmt
from awm.worldgen import Tables, WorldContext

AUDIT_DAYS = 3  # the audit log holds the last few days of activity

SPECIALTIES = [
    (1, "GEN", "General Practice"),
    (2, "PED", "Pediatrics"),
    (3, "DERM", "Dermatology"),
    (4, "CARD", "Cardiology"),
    (5, "PHYS", "Physiotherapy"),
    (6, "NURS", "Nursing"),
]

# code, name, specialty, minutes, fee, late-cancel fee, room type, min age, max age, description, weight
APPOINTMENT_TYPES = [
    (
        "GP-CONS",
        "General consultation",
        1,
        30,
        12000,
        4000,
        "exam",
        None,
        None,
        "Standard visit for a new or ongoing health concern.",
        6,
    ),
    (
        "GP-LONG",
        "Extended consultation",
        1,
        45,
        17500,
        5000,
        "exam",
        None,
        None,
        "Longer visit for several or complex concerns.",
        2.5,
    ),
    (
        "GP-PHYS",
        "Annual physical examination",
        1,
        60,
        22000,
        6000,
        "exam",
        18,
        None,
        "Yearly adult preventive check-up.",
        1.5,
    ),
    (
        "PED-WELL",
        "Well-child checkup",
        2,
        30,
        13000,
        4000,
        "exam",
        None,
        17,
        "Growth and development check with routine screening.",
        5,
    ),
    ("PED-SICK", "Pediatric sick visit", 2, 30, 11500, 3500, "exam", None, 17, "Visit for a child who is unwell.", 5),
    (
        "DERM-CONS",
        "Dermatology consultation",
        3,
        30,
        18000,
        6000,
        "exam",
        None,
        None,
        "Skin, hair or nail assessment.",
        7.5,
    ),
    (
        "DERM-BIOP",
        "Skin biopsy",
        3,
        45,
        32000,
        9000,
        "procedure",
        None,
        None,
        "Removal of a skin sample for pathology.",
        2.5,
    ),
    ("CARD-CONS", "Cardiology consultation", 4, 45, 26000, 8000, "exam", None, None, "Specialist heart assessment.", 5),
    ("CARD-ECG", "Resting ECG", 4, 30, 9500, 3000, "diagnostics", None, None, "12-lead electrocardiogram at rest.", 3),
    (
        "CARD-ECHO",
        "Echocardiogram",
        4,
        60,
        48000,
        12000,
        "diagnostics",
        None,
        None,
        "Ultrasound imaging of the heart.",
        2,
    ),
    (
        "PHYS-INIT",
        "Physiotherapy initial assessment",
        5,
        60,
        15000,
        5000,
        "therapy",
        None,
        None,
        "First physiotherapy session with assessment and plan.",
        3,
    ),
    (
        "PHYS-FU",
        "Physiotherapy follow-up",
        5,
        30,
        9000,
        3000,
        "therapy",
        None,
        None,
        "Follow-up physiotherapy treatment session.",
        7,
    ),
    ("NURS-VAC", "Vaccination", 6, 15, 4500, 0, "treatment", None, None, "Administration of a vaccine by a nurse.", 5),
    ("NURS-BLOOD", "Blood draw", 6, 15, 3500, 0, "treatment", None, None, "Venipuncture for laboratory tests.", 5),
]

# plan code, name, payer, coverage % choices, copay choices (cents), member id style
PLANS = [
    ("BH-PPO-S", "BlueHarbor PPO Silver", "BlueHarbor Health", (75, 80, 85), (2000, 2500, 3000), "BHP-########"),
    ("BH-HMO-B", "BlueHarbor HMO Basic", "BlueHarbor Health", (65, 70, 75), (3000, 3500, 4000), "BHH-########"),
    ("CC-GOLD", "Cascadia Care Gold", "Cascadia Care", (85, 90, 95), (1000, 1500, 2000), "CCG-###-#####"),
    ("EM-ESS", "Evergreen Mutual Essential", "Evergreen Mutual", (55, 60, 65), (4000, 4500, 5000), "EMX-#######"),
    ("OHP-PLUS", "Oregon Health Plan Plus", "State of Oregon", (100,), (0,), "OHP-########"),
    ("SUM-CLS", "Summit Classic", "Summit Health", (70, 75, 80), (2500, 3000), "SCL-#######"),
]
INACTIVE_PLAN = "SUM-CLS"
EXCLUDABLE = ["DERM-BIOP", "CARD-ECHO", "PHYS-INIT", "PHYS-FU", "GP-PHYS", "DERM-CONS"]

MEDICATIONS = [
    ("Amoxicillin", "500 mg", "capsule", "penicillin", 0),
    ("Amoxicillin", "250 mg/5 mL", "liquid", "penicillin", 0),
    ("Azithromycin", "250 mg", "tablet", "macrolide", 0),
    ("Cephalexin", "500 mg", "capsule", "cephalosporin", 0),
    ("Doxycycline", "100 mg", "tablet", "tetracycline", 0),
    ("Lisinopril", "10 mg", "tablet", "ACE inhibitor", 0),
    ("Atorvastatin", "20 mg", "tablet", "statin", 0),
    ("Metformin", "500 mg", "tablet", "biguanide", 0),
    ("Amlodipine", "5 mg", "tablet", "calcium channel blocker", 0),
    ("Tamsulosin", "0.4 mg", "capsule", "alpha blocker", 0),
    ("Levothyroxine", "50 mcg", "tablet", "thyroid hormone", 0),
    ("Tretinoin", "0.05%", "cream", "retinoid", 0),
    ("Albuterol", "90 mcg", "inhaler", "bronchodilator", 0),
    ("Metoprolol succinate", "50 mg", "tablet", "beta blocker", 0),
    ("Clopidogrel", "75 mg", "tablet", "antiplatelet", 0),
    ("Warfarin", "5 mg", "tablet", "anticoagulant", 0),
    ("Ibuprofen", "600 mg", "tablet", "NSAID", 0),
    ("Hydrocortisone", "1%", "cream", "corticosteroid", 0),
    ("Sertraline", "50 mg", "tablet", "SSRI", 0),
    ("Oxycodone", "5 mg", "tablet", "opioid", 1),
    ("Sulfamethoxazole-trimethoprim", "800/160 mg", "tablet", "sulfonamide", 0),
    ("Prednisone", "20 mg", "tablet", "corticosteroid", 0),
    ("Cetirizine", "10 mg", "tablet", "antihistamine", 0),
    ("Clarithromycin", "500 mg", "tablet", "macrolide", 0),
    ("Losartan", "50 mg", "tablet", "angiotensin receptor blocker", 0),
    ("Omeprazole", "20 mg", "capsule", "proton pump inhibitor", 0),
    ("Montelukast", "10 mg", "tablet", "leukotriene receptor antagonist", 0),
    ("Escitalopram", "10 mg", "tablet", "SSRI", 0),
    ("Rosuvastatin", "10 mg", "tablet", "statin", 0),
    ("Mupirocin", "2%", "cream", "topical antibiotic", 0),
]
SMALL_MEDS = 20  # the small world's formulary: the first twenty
# ... and in every small world but seed 0 (kept as it was), five more long-term medications, so that the
# refillable prescriptions of a patient differ more from world to world
SMALL_EXTRA_MEDS = ("Losartan", "Omeprazole", "Montelukast", "Escitalopram", "Rosuvastatin")

CHRONIC_DOSE = {
    "Lisinopril": "1 tablet by mouth once daily",
    "Atorvastatin": "1 tablet by mouth at bedtime",
    "Metformin": "1 tablet by mouth twice daily with meals",
    "Amlodipine": "1 tablet by mouth once daily",
    "Levothyroxine": "1 tablet by mouth every morning before breakfast",
    "Sertraline": "1 tablet by mouth every morning",
    "Losartan": "1 tablet by mouth once daily",
    "Omeprazole": "1 capsule by mouth before breakfast",
    "Montelukast": "1 tablet by mouth in the evening",
    "Escitalopram": "1 tablet by mouth once daily",
    "Rosuvastatin": "1 tablet by mouth once daily",
    "Metoprolol succinate": "1 tablet by mouth once daily",
    "Tamsulosin": "1 capsule by mouth 30 minutes after dinner",
    "Warfarin": "1 tablet by mouth daily; INR checks monthly",
}
ACUTE = {  # specialty -> (medication name, strength, directions, quantity)
    "GEN": [
        ("Amoxicillin", "500 mg", "1 capsule three times daily for 7 days", 21),
        ("Azithromycin", "250 mg", "2 tablets on day 1, then 1 tablet daily for 4 days", 6),
        ("Ibuprofen", "600 mg", "1 tablet by mouth every 8 hours with food as needed", 30),
        ("Prednisone", "20 mg", "2 tablets daily for 5 days", 10),
        ("Cetirizine", "10 mg", "1 tablet by mouth once daily", 30),
        ("Albuterol", "90 mcg", "2 puffs every 4-6 hours as needed for wheeze", 1),
    ],
    "PED": [
        ("Amoxicillin", "250 mg/5 mL", "5 mL by mouth three times daily for 10 days", 1),
        ("Cetirizine", "10 mg", "1/2 tablet by mouth once daily", 15),
        ("Albuterol", "90 mcg", "2 puffs every 4-6 hours as needed for wheeze", 1),
    ],
    "DERM": [
        ("Tretinoin", "0.05%", "apply a thin layer to affected skin at night", 1),
        ("Hydrocortisone", "1%", "apply twice daily for up to 2 weeks", 1),
        ("Doxycycline", "100 mg", "1 tablet by mouth twice daily for 14 days", 28),
    ],
    "CARD": [
        ("Metoprolol succinate", "50 mg", "1 tablet by mouth once daily", 30),
        ("Clopidogrel", "75 mg", "1 tablet by mouth once daily", 30),
        ("Amlodipine", "5 mg", "1 tablet by mouth once daily", 30),
        ("Atorvastatin", "20 mg", "1 tablet by mouth at bedtime", 30),
    ],
}

CLINICS = [
    ("Riverside Family Clinic", "120 SE Riverside Ave", "Portland", "97214", "503-555-0140", "riverside"),
    ("Northgate Medical Centre", "4410 N Northgate Blvd", "Portland", "97217", "503-555-0188", "northgate"),
    ("Lakeview Health & Physio", "88 SW Lakeview Dr", "Beaverton", "97005", "971-555-0123", "lakeview"),
    ("Eastside Community Clinic", "2300 SE 82nd Ave", "Portland", "97216", "503-555-0162", "eastside"),
    ("Tualatin Valley Medical", "6100 SW Nyberg St", "Tualatin", "97062", "503-555-0177", "tualatin"),
    ("Hillsboro Family Health", "455 NE Cornell Rd", "Hillsboro", "97124", "503-555-0131", "hillsboro"),
    ("Sellwood Health Centre", "1420 SE Tacoma St", "Portland", "97202", "503-555-0119", "sellwood"),
    ("Gresham Station Clinic", "900 NW Division St", "Gresham", "97030", "503-555-0154", "gresham"),
]

CITIES = [  # city, ZIP codes, street directions, weight
    (
        "Portland",
        ["97202", "97203", "97206", "97209", "97211", "97212", "97214", "97215", "97217", "97219", "97227", "97232"],
        ["N", "NE", "SE", "SW", "NW"],
        10,
    ),
    ("Beaverton", ["97005", "97006", "97007", "97008"], ["SW", "NW"], 3),
    ("Hillsboro", ["97123", "97124"], ["NE", "SE", "NW"], 1.5),
    ("Tigard", ["97223", "97224"], ["SW"], 1.5),
    ("Lake Oswego", ["97034", "97035"], ["SW"], 1),
    ("Gresham", ["97030", "97080"], ["NE", "SE", "NW"], 1.5),
    ("Milwaukie", ["97222", "97267"], ["SE"], 1),
    ("Tualatin", ["97062"], ["SW"], 1),
]
STREETS = [
    "Alberta St",
    "Killingsworth St",
    "Division St",
    "Holgate Blvd",
    "Foster Rd",
    "Hawthorne Blvd",
    "Interstate Ave",
    "Jenkins Rd",
    "Murray Blvd",
    "Clinton St",
    "21st Ave",
    "Lombard St",
    "Rosa Parks Way",
    "Mississippi Ave",
    "Greeley Ave",
    "Broadway",
    "Belmont St",
    "Vancouver Ave",
    "Fiske Ave",
    "Williams Ave",
    "Ivanhoe St",
    "Walker Rd",
    "Kerby Ave",
    "Michigan Ave",
    "Ankeny St",
    "Canyon Rd",
    "32nd Ave",
    "Woodstock Blvd",
    "Sandy Blvd",
    "13th Ave",
    "Taylor St",
    "Concord Ave",
    "Borthwick Ave",
    "Ainsworth St",
    "Maryland Ave",
    "Morrison St",
    "Cedar Hills Blvd",
    "Burnside St",
    "Glisan St",
    "Stark St",
    "Powell Blvd",
    "Fremont St",
    "Prescott St",
    "Going St",
    "Tillamook St",
    "Salmon St",
    "Yamhill St",
    "Halsey St",
    "Multnomah Blvd",
    "Macadam Ave",
    "Barbur Blvd",
    "Farmington Rd",
    "Allen Blvd",
    "Scholls Ferry Rd",
    "Cornell Rd",
    "Baseline Rd",
    "Boones Ferry Rd",
    "Stafford Rd",
    "Knott St",
    "Skidmore St",
    "Thurman St",
]

REASONS = {
    "GP-CONS": [
        "persistent cough",
        "blood pressure review",
        "sore throat",
        "sinus pain",
        "lower back pain",
        "headaches",
        "knee pain after running",
        "stomach pain",
        "follow-up labs",
        "prescription renewal",
        "ear infection",
        "fatigue",
        "ankle sprain",
        "urinary symptoms",
        "dizziness",
        "rash on arms",
    ],
    "GP-LONG": [
        "medication review",
        "several concerns",
        "fatigue and poor sleep",
        "back pain and sleep problems",
        "diabetes review",
        "anxiety and low mood",
    ],
    "GP-PHYS": ["annual physical"],
    "PED-WELL": ["{age}-year checkup"],
    "PED-SICK": ["ear pain", "fever and cough", "rash", "sore throat", "stomach bug", "wheezing"],
    "DERM-CONS": [
        "acne flare",
        "changing mole",
        "eczema",
        "itchy scalp",
        "psoriasis review",
        "rash on hands",
        "skin tag removal advice",
        "rosacea",
    ],
    "DERM-BIOP": [
        "biopsy of mole on back",
        "biopsy of mole on left forearm",
        "biopsy of lesion on shoulder",
        "biopsy of spot on cheek",
    ],
    "CARD-CONS": [
        "palpitations",
        "chest tightness",
        "high blood pressure",
        "irregular heartbeat",
        "shortness of breath on stairs",
        "heart murmur",
        "chest pain referral",
    ],
    "CARD-ECG": ["routine ECG", "pre-operative ECG", "ECG before consult", "dizzy spells"],
    "CARD-ECHO": ["echo ordered after consult", "heart murmur follow-up", "echo before surgery"],
    "PHYS-INIT": [
        "shoulder pain after fall",
        "lower back pain",
        "knee pain",
        "tennis elbow",
        "neck stiffness",
        "ankle sprain rehab",
    ],
    "PHYS-FU": ["shoulder rehab", "back rehab", "knee rehab", "tennis elbow", "hip mobility", "ankle rehab"],
    "NURS-VAC": ["flu vaccine", "tetanus booster", "shingles vaccine", "COVID-19 booster", "hepatitis B vaccine"],
    "NURS-BLOOD": ["lipid panel", "blood work before physical", "thyroid panel", "HbA1c check", "INR check"],
}
NOTES = {  # specialty -> (assessment, plan) pairs
    "GEN": [
        ("viral upper respiratory infection", "rest and fluids; return if no better in 10 days"),
        ("hypertension, well controlled", "continue current regimen; recheck in 3 months"),
        ("mechanical low back pain", "ibuprofen as needed; home exercises; physiotherapy referral"),
        ("tension-type headache", "sleep hygiene and hydration; headache diary"),
        ("acute sinusitis", "saline rinses; antibiotics if no better in 7 days"),
        ("type 2 diabetes, stable", "continue metformin; HbA1c in 3 months"),
    ],
    "PED": [
        ("healthy child, normal growth", "routine vaccines given; next checkup in 12 months"),
        ("acute otitis media", "amoxicillin for 10 days; recheck if fever persists"),
        ("viral illness", "fluids and rest; return if breathing difficulty"),
    ],
    "DERM": [
        ("acne vulgaris", "topical retinoid at night; review in 8 weeks"),
        ("atopic dermatitis", "emollients and mild steroid cream for flares"),
        ("benign naevus", "no treatment needed; photograph and review in 6 months"),
        ("seborrhoeic dermatitis", "medicated shampoo twice weekly"),
    ],
    "CARD": [
        ("benign palpitations", "reduce caffeine; Holter monitor if recurs"),
        ("stable angina", "start beta blocker; exercise test booked"),
        ("essential hypertension", "lifestyle advice; add amlodipine; recheck in 4 weeks"),
        ("normal ECG", "no further cardiac testing needed"),
    ],
    "PHYS": [
        ("rotator cuff strain", "progressive strengthening; 6 sessions"),
        ("mechanical low back pain", "core stability program; review in 2 weeks"),
        ("patellofemoral pain", "quadriceps strengthening; load management"),
        ("lateral epicondylalgia", "eccentric loading; brace as needed"),
    ],
    "NURS": [
        ("vaccine given, no reaction", "observe 15 minutes; next dose as scheduled"),
        ("blood sample taken", "results to the ordering practitioner"),
    ],
}
CANCEL_REASONS_PATIENT = [
    "work meeting",
    "feeling better",
    "arranging transport",
    "double-booked with work",
    "family emergency",
    "travelling",
    "childcare fell through",
    "car trouble",
    "booked elsewhere",
]
CANCEL_REASONS_CLINIC = ["practitioner unavailable", "room out of service", "practitioner called in sick"]
WAIT_NOTES = [
    "prefers mornings",
    "can come at short notice",
    "afternoons only",
    "any day except Fridays",
    "earlier appointment if one opens",
    "needs an interpreter (Spanish)",
    "mornings before 10 am",
    None,
    None,
    None,
]
REMOVED_REASONS = ["found a practitioner closer to work", "booked elsewhere", "no longer needed", "symptoms resolved"]
ALLERGIES = [
    ("penicillin", "hives and facial swelling", "moderate"),
    ("penicillin", "anaphylaxis", "severe"),
    ("sulfonamide", "rash", "mild"),
    ("codeine", "nausea and dizziness", "mild"),
    ("aspirin", "bronchospasm", "severe"),
    ("latex", "contact dermatitis", "mild"),
    ("peanut", "anaphylaxis", "severe"),
    ("shellfish", "hives", "mild"),
    ("cephalosporin", "rash", "moderate"),
    ("macrolide", "stomach cramps and vomiting", "moderate"),
    ("ibuprofen", "hives", "moderate"),
    ("nsaid", "stomach bleeding", "severe"),
]
NEUTRAL_NAMES = ["Alex", "Jordan", "Taylor", "Riley", "Casey", "Quinn", "Avery", "Rowan", "Sage"]
EMAIL_DOMAINS = {
    "gmail.com": 12,
    "outlook.com": 3,
    "yahoo.com": 3,
    "icloud.com": 2,
    "comcast.net": 1.5,
    "protonmail.com": 0.7,
    "hotmail.com": 1,
}

PATTERNS = [  # weekly blocks, minutes after midnight
    [(480, 720), (780, 1020)],  # 08:00-12:00, 13:00-17:00
    [(510, 750), (810, 1020)],  # 08:30-12:30, 13:30-17:00
    [(540, 780), (840, 1050)],  # 09:00-13:00, 14:00-17:30
    [(450, 690), (750, 930)],  # 07:30-11:30, 12:30-15:30
    [(600, 840), (900, 1140)],  # 10:00-14:00, 15:00-19:00
    [(480, 960)],  # 08:00-16:00
    [(510, 930)],  # 08:30-15:30
    [(480, 720)],  # 08:00-12:00
]
CREDENTIALS = {
    1: {"MD": 6, "DO": 2, "NP": 2},
    2: {"MD": 1},
    3: {"MD": 1},
    4: {"MD": 3, "DO": 1},
    5: {"DPT": 1},
    6: {"RN": 1},
}
LICENSE_PREFIX = {"MD": "MD", "DO": "DO", "NP": "NP", "DPT": "PT", "RN": "RN"}

ORDER = [
    "clinics",
    "specialties",
    "practitioners",
    "rooms",
    "working_hours",
    "time_off",
    "insurance_plans",
    "appointment_types",
    "plan_exclusions",
    "patients",
    "patient_policies",
    "allergies",
    "appointments",
    "appointment_history",
    "waitlist_entries",
    "medications",
    "prescriptions",
    "visit_notes",
    "invoices",
    "invoice_lines",
    "payments",
    "audit_log",
]


def build(ctx: WorldContext) -> dict[str, list[dict[str, Any]]]:
    return _Builder(ctx).build()


def _hm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _at(day: date, minutes: int) -> datetime:
    return datetime.combine(day, time(minutes // 60, minutes % 60))


def _age_on(dob: date, day: date) -> int:
    return day.year - dob.year - ((day.month, day.day) < (dob.month, dob.day))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def _free_email(email: str, taken: set[str]) -> str:
    """``email``, or with 2, 3, ... after its local part until nobody in ``taken`` has it (then added there)."""
    base, _, domain = email.partition("@")
    k = 2
    while email in taken:
        email, k = f"{base}{k}@{domain}", k + 1
    taken.add(email)
    return email


class _Builder:
    def __init__(self, ctx: WorldContext):
        self.ctx = ctx
        self.rng = ctx.rng
        self.fk = ctx.faker
        self.now = ctx.clock.replace(microsecond=0)
        self.today = self.now.date()
        self.t = Tables(ORDER)
        self.busy_prac: dict[tuple[int, date], list[tuple[int, int]]] = {}
        self.busy_room: dict[tuple[int, date], list[tuple[int, int]]] = {}
        self.busy_pat: dict[tuple[int, date], list[tuple[int, int]]] = {}
        self.appts: list[dict[str, Any]] = []
        self.alone_today: set[int] = set()  # planted patients who have no other appointment today
        self.audit: list[tuple[datetime, str, str, Any, dict[str, Any]]] = []

    def build(self) -> dict[str, list[dict[str, Any]]]:
        self._reference()
        self._clinics_and_rooms()
        self._practitioners()
        self._time_off()
        self._patients()
        self._policies_and_allergies()
        self._schedule()
        self._finalise_appointments()
        self._waitlist()
        self._history()
        self._clinical()
        self._billing()
        self._audit_log()
        return self.t

    # -- helpers ----------------------------------------------------------------------------------
    def _weighted(self, options: dict[Any, Any]) -> Any:
        return self.ctx.weighted(options)

    def _moment(self, lo: datetime, hi: datetime) -> datetime:
        """A whole minute between lo and hi (hi >= lo), in office hours (08:00-18:30) when the span allows."""
        span = max(int((hi - lo).total_seconds() // 60), 0)
        for _ in range(12):
            t = (lo + timedelta(minutes=self.rng.randint(0, span))).replace(second=0, microsecond=0)
            if time(8, 0) <= t.time() <= time(18, 30):
                break
        return max(min(t, hi), lo) if span else lo

    def _log(self, when: datetime, action: str, entity_type: str, entity_id: Any, details: dict[str, Any]) -> None:
        """An audit_log entry of the world's past (``_audit_log`` keeps those before the clock)."""
        self.audit.append((when, action, entity_type, entity_id, details))

    def _person_name(self, female: bool) -> tuple[str, str]:
        return (self.fk.first_name_female() if female else self.fk.first_name_male(), self.fk.last_name())

    # -- reference data ---------------------------------------------------------------------------
    def _reference(self) -> None:
        for sid, code, name in SPECIALTIES:
            self.t["specialties"].append({"id": sid, "code": code, "name": name})
        self.types: dict[int, dict[str, Any]] = {}
        self.type_by_code: dict[str, dict[str, Any]] = {}
        self.type_weights: dict[int, dict[int, float]] = {sid: {} for sid, _, _ in SPECIALTIES}
        for i, (code, name, spec, dur, fee, late, room, lo, hi, desc, weight) in enumerate(APPOINTMENT_TYPES, 1):
            if fee >= 10000:
                fee += self.ctx.pick([-1000, -500, 0, 0, 0, 500, 1000])
            late = late + self.ctx.pick([-500, 0, 0, 500]) if late else 0
            row = {
                "id": i,
                "code": code,
                "name": name,
                "specialty_id": spec,
                "duration_minutes": dur,
                "fee_cents": fee,
                "late_cancel_fee_cents": late,
                "room_type": room,
                "min_age": lo,
                "max_age": hi,
                "description": desc,
            }
            self.t["appointment_types"].append(row)
            self.types[i] = row
            self.type_by_code[code] = row
            self.type_weights[spec][i] = weight
        self.plans: dict[int, dict[str, Any]] = {}
        self.plan_style: dict[int, str] = {}
        for i, (code, name, payer, covs, copays, style) in enumerate(PLANS, 1):
            row = {
                "id": i,
                "plan_code": code,
                "name": name,
                "payer": payer,
                "coverage_percent": self.ctx.pick(list(covs)),
                "copay_cents": self.ctx.pick(list(copays)),
                "active": 0 if code == INACTIVE_PLAN else 1,
            }
            self.t["insurance_plans"].append(row)
            self.plans[i] = row
            self.plan_style[i] = style
        self.excluded: set[tuple[int, int]] = set()
        for pid, plan in self.plans.items():
            if plan["plan_code"] == "CC-GOLD":
                continue
            for code in self.ctx.sample(EXCLUDABLE, self.rng.randint(0, 2)):
                self.excluded.add((pid, self.type_by_code[code]["id"]))
        for pid, tid in sorted(self.excluded):
            self.t["plan_exclusions"].append({"plan_id": pid, "appointment_type_id": tid})
        meds = MEDICATIONS if self.ctx.large else MEDICATIONS[:SMALL_MEDS]
        if not self.ctx.large and self.ctx.seed != 0:
            meds = meds + [m for m in MEDICATIONS[SMALL_MEDS:] if m[0] in SMALL_EXTRA_MEDS]
        self.meds: dict[int, dict[str, Any]] = {}
        for i, (name, strength, form, cls, ctrl) in enumerate(meds, 1):
            row = {"id": i, "name": name, "strength": strength, "form": form, "drug_class": cls, "controlled": ctrl}
            self.t["medications"].append(row)
            self.meds[i] = row
        self.med_by = {(m["name"], m["strength"]): m for m in self.meds.values()}
        self.med_by_name: dict[str, dict[str, Any]] = {}
        for m in self.meds.values():
            self.med_by_name.setdefault(m["name"], m)

    # -- clinics and rooms ------------------------------------------------------------------------
    def _clinics_and_rooms(self) -> None:
        n = self.ctx.n(3, 5)
        picks = self.ctx.sample(CLINICS, n)
        self.clinic_ids = list(range(1, n + 1))
        therapy = set(self.ctx.sample(self.clinic_ids, max(1, (n + 1) // 2)))
        self.therapy_clinics = sorted(therapy)
        self.rooms_by: dict[tuple[int, str], list[int]] = {}
        reopen = (self.today.replace(day=1) + timedelta(days=45)).strftime("%B %Y")
        for cid, (name, addr, city, zipc, phone, slug) in enumerate(picks, 1):
            self.t["clinics"].append(
                {
                    "id": cid,
                    "name": name,
                    "address_line": addr,
                    "city": city,
                    "state": "OR",
                    "postal_code": zipc,
                    "phone": phone,
                    "email": f"{slug}@cascadeclinics.org",
                }
            )
            style = self.ctx.pick(["num", "letter", "consult"])
            exams = 2 if not self.ctx.large else self.rng.randint(3, 4)

            def exam_name(k: int, style: str = style) -> str:
                return {"num": f"Exam {k + 1}", "letter": f"Exam {'ABCDE'[k]}", "consult": f"Consult Room {k + 1}"}[
                    style
                ]

            rooms: list[tuple[str, str, int, str | None]] = [(exam_name(k), "exam", 1, None) for k in range(exams)]
            if self.ctx.chance(0.4):
                rooms.append((exam_name(exams), "exam", 0, f"closed for renovation until {reopen}"))
            rooms.append((self.ctx.pick(["Procedure Room", "Procedure Suite"]), "procedure", 1, None))
            rooms.append(("Treatment Room", "treatment", 1, "vaccines and blood draws"))
            rooms.append(
                (
                    self.ctx.pick(["ECG Room", "Cardiac Diagnostics", "Diagnostics"]),
                    "diagnostics",
                    1,
                    self.ctx.pick([None, "ECG and echo"]),
                )
            )
            if cid in therapy:
                for k in range(self.rng.randint(2, 3) if self.ctx.large else 1):
                    rooms.append((f"Therapy Bay {k + 1}", "therapy", 1, None))
            for rname, rtype, active, notes in rooms:
                room = self.t.add(
                    "rooms", {"clinic_id": cid, "name": rname, "room_type": rtype, "active": active, "notes": notes}
                )
                if active:
                    self.rooms_by.setdefault((cid, rtype), []).append(room["id"])

    # -- practitioners and their hours ------------------------------------------------------------
    def _practitioners(self) -> None:
        counts = {
            1: self.ctx.n(3, 8),
            2: self.ctx.n(2, 5),
            3: self.ctx.n(2, 4),
            4: self.ctx.n(2, 4),
            5: self.ctx.n(2, 5),
            6: self.ctx.n(1, 4),
        }
        specs: list[tuple[int, bool]] = []
        for spec, k in counts.items():
            specs += [(spec, True)] * k
        specs += [(1, False)] * self.ctx.n(1, 2)
        names: set[tuple[str, str]] = set()
        emails: set[str] = set()
        licenses: set[int] = set()
        self.pracs: dict[int, dict[str, Any]] = {}
        for pid, (spec, active) in enumerate(specs, 1):
            female = self.ctx.chance(0.55 if spec != 6 else 0.8)
            first, last = self.ctx.unique(functools.partial(self._person_name, female), names)
            cred = "MD" if pid == 1 else self._weighted(CREDENTIALS[spec])
            self.pracs[pid] = {
                "id": pid,
                "first_name": first,
                "last_name": last,
                "credential": cred,
                "email": "",
                "phone": f"503-555-{2100 + pid:04d}",
                "specialty_id": spec,
                "license_number": "",
                "can_prescribe": 1 if cred in ("MD", "DO", "NP") else 0,
                "active": 1 if active else 0,
                "hired_on": (self.today - timedelta(days=self.rng.randint(400, 6200))).isoformat(),
            }
        if self.ctx.distractors:  # practitioners sharing a surname
            ids = list(self.pracs)
            for _ in range(self.ctx.n(2, 6)):
                a, b = self.ctx.sample(ids, 2)
                if (self.pracs[b]["first_name"], self.pracs[a]["last_name"]) not in names:
                    names.add((self.pracs[b]["first_name"], self.pracs[a]["last_name"]))
                    self.pracs[b]["last_name"] = self.pracs[a]["last_name"]
        for p in self.pracs.values():
            p["email"] = _free_email(f"{_slug(p['first_name'])[:1]}.{_slug(p['last_name'])}@cascadeclinics.org", emails)
            num = self.ctx.unique(lambda: self.rng.randint(40000, 49999), licenses)
            p["license_number"] = f"{LICENSE_PREFIX[p['credential']]}-OR-{num}"
            self.t["practitioners"].append(p)
        # weekly hours: the first GP and the first nurse work every weekday (today and tomorrow included)
        self.hours: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
        first_gp = 1
        first_nurse = next(pid for pid, p in self.pracs.items() if p["specialty_id"] == 6)
        for pid, p in self.pracs.items():
            if not p["active"]:
                continue
            spec = p["specialty_id"]
            allowed = self.therapy_clinics if spec == 5 else self.clinic_ids
            primary = self.clinic_ids[0] if pid == first_gp else self.ctx.pick(allowed)
            if pid in (first_gp, first_nurse):
                days = [0, 1, 2, 3, 4]
                pattern = [(510, 750), (810, 1020)] if pid == first_gp else [(480, 900)]
            else:
                ndays = self.rng.randint(2, 4) if not self.ctx.large else self.rng.randint(3, 5)
                days = sorted(self.ctx.sample([0, 1, 2, 3, 4], ndays))
                pattern = self.ctx.pick(PATTERNS if self.ctx.large or self.ctx.chance(0.5) else PATTERNS[5:])
            if spec == 5 and self.ctx.chance(0.3):
                days.append(5)
            for wd in days:
                clinic = primary
                if pid != first_gp and len(allowed) > 1 and self.ctx.chance(0.25):
                    clinic = self.ctx.pick([c for c in allowed if c != primary])
                for s, e in [(540, 780)] if wd == 5 else pattern:
                    self.t.add(
                        "working_hours",
                        {
                            "practitioner_id": pid,
                            "clinic_id": clinic,
                            "weekday": wd,
                            "start_time": _hm(s),
                            "end_time": _hm(e),
                        },
                    )
                    self.hours.setdefault((pid, wd), []).append((clinic, s, e))
        self.active_pracs = [pid for pid, p in self.pracs.items() if p["active"]]
        self.pracs_by_spec: dict[int, list[int]] = {}
        for pid in self.active_pracs:
            self.pracs_by_spec.setdefault(self.pracs[pid]["specialty_id"], []).append(pid)

    def _time_off(self) -> None:
        self.off: dict[int, list[tuple[date, date]]] = {}
        n = self.ctx.n(3, 12)
        rows: list[dict[str, Any]] = []
        for _ in range(n * 3):
            if len(rows) >= n:
                break
            pid = self.ctx.pick(self.active_pracs)
            kind = self.ctx.weighted({"past": 1, "leave": 1, "day": 1, "course": 1})
            if kind == "past":
                start = self.today - timedelta(days=self.rng.randint(8, 30))
                length = self.rng.randint(0, 2)
                reason = self.ctx.pick(
                    ["regional conference", "continuing education course", "sick leave", "personal day"]
                )
            elif kind == "leave":
                start = self.today + timedelta(days=self.rng.randint(7, 24))
                start -= timedelta(days=start.weekday())  # a Monday
                length, reason = 4, "annual leave"
            elif kind == "day":
                start = self.today + timedelta(days=self.rng.randint(3, 26))
                length, reason = 0, self.ctx.pick(["personal day", "medical appointment", "family event"])
            else:
                start = self.today + timedelta(days=self.rng.randint(3, 26))
                length, reason = 1, self.ctx.pick(["continuing education course", "conference"])
            end = start + timedelta(days=length)
            if any(not (end < a or start > b) for a, b in self.off.get(pid, [])):
                continue
            self.off.setdefault(pid, []).append((start, end))
            latest = min(_at(start, 9 * 60), self.now) - timedelta(days=2)
            created = self._moment(latest - timedelta(days=40), latest)
            rows.append(
                {
                    "practitioner_id": pid,
                    "start_date": start.isoformat(),
                    "end_date": end.isoformat(),
                    "reason": reason,
                    "created_at": _fmt(created),
                }
            )
        rows.sort(key=lambda r: (r["created_at"], r["practitioner_id"]))
        for r in rows:
            row = self.t.add("time_off", r)
            if r["created_at"] >= _fmt(self.now - timedelta(days=AUDIT_DAYS)):
                self._log(
                    datetime.fromisoformat(r["created_at"]),
                    "time_off_added",
                    "practitioner",
                    r["practitioner_id"],
                    {"time_off_id": row["id"], "start_date": r["start_date"], "end_date": r["end_date"]},
                )

    def _blocks(self, pid: int, day: date) -> list[tuple[int, int, int]]:
        if any(a <= day <= b for a, b in self.off.get(pid, [])):
            return []
        return self.hours.get((pid, day.weekday()), [])

    # -- patients ---------------------------------------------------------------------------------
    def _patients(self) -> None:
        n = self.ctx.n(28, 420)
        names: set[tuple[str, str]] = set()
        emails: set[str] = set()
        families: list[tuple[str, str, str, str, str]] = []  # last name, address, city, state, zip
        rows: list[dict[str, Any]] = [self._new_patient(names, emails, families) for _ in range(n)]
        if self.ctx.distractors:
            for src in self.ctx.sample(rows, self.ctx.n(5, 40)):  # namesakes: another person, same name
                rows.append(
                    self._new_patient(
                        names, emails, families, first=src["first_name"], last=src["last_name"], sex=src["sex"]
                    )
                )
            for src in self.ctx.sample(rows, self.ctx.n(4, 30)):  # look-alikes: same last name and initial
                sex = src["sex"] if src["sex"] in ("F", "M") else "F"
                for _ in range(30):
                    first = self.fk.first_name_female() if sex == "F" else self.fk.first_name_male()
                    if first[0] == src["first_name"][0] and (first, src["last_name"]) not in names:
                        names.add((first, src["last_name"]))
                        rows.append(
                            self._new_patient(names, emails, families, first=first, last=src["last_name"], sex=sex)
                        )
                        break
            order = list(range(len(rows)))
            self.rng.shuffle(order)
            rows = [rows[i] for i in order]
        inactive = set(self.ctx.sample(range(len(rows)), self.ctx.n(1, 8)))
        self.patients: dict[int, dict[str, Any]] = {}
        self.dob: dict[int, date] = {}
        for i, r in enumerate(rows, 1):
            r["id"], r["mrn"] = i, f"MRN-{100200 + i}"
            if i - 1 in inactive and _age_on(date.fromisoformat(r["date_of_birth"]), self.today) >= 18:
                r["status"] = "inactive"
            row = {
                k: r[k]
                for k in (
                    "id",
                    "mrn",
                    "first_name",
                    "last_name",
                    "date_of_birth",
                    "sex",
                    "email",
                    "phone",
                    "address_line",
                    "city",
                    "state",
                    "postal_code",
                    "preferred_clinic_id",
                    "status",
                    "registered_on",
                )
            }
            self.t["patients"].append(row)
            self.patients[i] = row
            self.dob[i] = date.fromisoformat(row["date_of_birth"])
        self.active_patients = [pid for pid, p in self.patients.items() if p["status"] == "active"]
        counts: dict[tuple[str, str], int] = {}
        for p in self.patients.values():
            counts[(p["first_name"], p["last_name"])] = counts.get((p["first_name"], p["last_name"]), 0) + 1
        self.unique_name = {pid for pid, p in self.patients.items() if counts[(p["first_name"], p["last_name"])] == 1}
        self.by_last: dict[str, list[int]] = {}
        for pid in self.active_patients:
            self.by_last.setdefault(self.patients[pid]["last_name"], []).append(pid)
        self.with_kin = [pid for pid in self.active_patients if len(self.by_last[self.patients[pid]["last_name"]]) > 1]

    def _new_patient(
        self,
        names: set,
        emails: set,
        families: list,
        first: str | None = None,
        last: str | None = None,
        sex: str | None = None,
    ) -> dict[str, Any]:
        rng = self.rng
        band = self._weighted({"child": 15, "adult": 58, "senior": 27})
        lo, hi = {"child": (200, 17 * 365), "adult": (18 * 365 + 30, 64 * 365), "senior": (65 * 365, 94 * 365)}[band]
        dob = self.today - timedelta(days=rng.randint(lo, hi))
        family = None
        if last is None and families and self.ctx.chance(0.18 if band != "child" else 0.6):
            family = self.ctx.pick(families)
        if sex is None:
            sex = "X" if self.ctx.chance(0.01) else ("F" if self.ctx.chance(0.52) else "M")
        if first is None:
            for _ in range(50):
                if sex == "X":
                    first = self.ctx.pick(NEUTRAL_NAMES)
                else:
                    first = self.fk.first_name_female() if sex == "F" else self.fk.first_name_male()
                last = family[0] if family else self.fk.last_name()
                if (first, last) not in names:
                    break
            names.add((first, last))
        assert first is not None and last is not None
        if family:
            _, address, city, state, zipc = family
        else:
            city, zips, dirs, _w = CITIES[self.ctx.weighted({i: c[3] for i, c in enumerate(CITIES)})]
            zipc = self.ctx.pick(zips)
            address = f"{rng.randint(100, 19999)} {self.ctx.pick(dirs)} {self.ctx.pick(STREETS)}"
            state = "OR"
            families.append((last, address, city, state, zipc))
        fs, ls = _slug(first), _slug(last)
        yy = f"{dob.year % 100:02d}"
        email: str | None
        if band == "child":
            email = f"{ls}.family@{self._weighted(EMAIL_DOMAINS)}"
        elif band == "senior" and self.ctx.chance(0.12):
            email = None
        else:
            local = self.ctx.pick(
                [f"{fs}.{ls}", f"{fs}.{ls}{yy}", f"{fs[0]}{ls}{yy}", f"{fs}{ls[0]}.pdx", f"{fs}.{ls}.{yy}", f"{fs}{ls}"]
            )
            email = f"{local}@{self._weighted(EMAIL_DOMAINS)}"
        if email is not None:
            email = _free_email(email, emails)
        area = "971" if city in ("Beaverton", "Hillsboro", "Tigard") and self.ctx.chance(0.5) else "503"
        phone = f"{area}-{rng.randint(201, 989)}-{rng.randint(0, 9999):04d}"
        earliest = max(dob + timedelta(days=30), date(2008, 1, 1))
        latest = self.today - timedelta(days=80)
        reg = earliest + timedelta(days=rng.randint(0, max(0, (latest - earliest).days)))
        return {
            "first_name": first,
            "last_name": last,
            "date_of_birth": dob.isoformat(),
            "sex": sex,
            "email": email,
            "phone": phone,
            "address_line": address,
            "city": city,
            "state": state,
            "postal_code": zipc,
            "preferred_clinic_id": self.ctx.pick(self.clinic_ids),
            "status": "active",
            "registered_on": min(reg, latest).isoformat(),
        }

    def _member_id(self, plan_id: int, seen: set[str]) -> str:
        style = self.plan_style[plan_id]
        return self.ctx.unique(lambda: "".join(str(self.rng.randint(0, 9)) if ch == "#" else ch for ch in style), seen)

    def _policies_and_allergies(self) -> None:
        members: set[str] = set()
        active_plans = [pid for pid, p in self.plans.items() if p["active"]]
        inactive_plans = [pid for pid, p in self.plans.items() if not p["active"]]
        ohp = next(pid for pid, p in self.plans.items() if p["plan_code"] == "OHP-PLUS")
        rows: list[tuple[int, int, date, date | None]] = []
        for pid, p in self.patients.items():
            reg = date.fromisoformat(p["registered_on"])
            child = _age_on(self.dob[pid], self.today) < 18
            r = self.rng.random()
            if r < 0.08:
                continue  # self-pay
            start = (reg + timedelta(days=self.rng.randint(0, max(1, (self.today - reg).days - 20)))).replace(day=1)
            if r < 0.11:  # coverage ended, none since
                ended = max(self.today - timedelta(days=self.rng.randint(3, 200)), start)
                rows.append((pid, self.ctx.pick(active_plans), start, ended))
                continue
            plan = ohp if child and self.ctx.chance(0.5) else self.ctx.pick(active_plans)
            if self.ctx.chance(0.04) and inactive_plans:
                plan = inactive_plans[0]
            if self.ctx.chance(0.28) and (self.today - start).days > 120:
                mid = (start + timedelta(days=self.rng.randint(60, (self.today - start).days - 30))).replace(day=1)
                if mid > start:
                    old = self.ctx.pick([x for x in active_plans + inactive_plans if x != plan])
                    rows.append((pid, old, start, mid - timedelta(days=1)))
                    start = mid
            rows.append((pid, plan, start, None))
        for pid, plan, valid_from, end in rows:
            self.t.add(
                "patient_policies",
                {
                    "patient_id": pid,
                    "plan_id": plan,
                    "member_id": self._member_id(plan, members),
                    "valid_from": valid_from.isoformat(),
                    "valid_to": end.isoformat() if end else None,
                },
            )
        self.policies_of: dict[int, list[dict[str, Any]]] = {}
        for row in self.t["patient_policies"]:
            self.policies_of.setdefault(row["patient_id"], []).append(row)
        self.allergy_of: dict[int, set[str]] = {}
        for pid, p in self.patients.items():
            if not self.ctx.chance(0.25):
                continue
            picks = self.ctx.sample(ALLERGIES, 2 if self.ctx.chance(0.15) else 1)
            if len(picks) == 2 and picks[0][0] == picks[1][0]:
                picks = picks[:1]
            reg = date.fromisoformat(p["registered_on"])
            for sub, reaction, severity in picks:
                rec = reg + timedelta(days=self.rng.randint(0, max(0, (self.today - reg).days - 10)))
                self.t.add(
                    "allergies",
                    {
                        "patient_id": pid,
                        "substance": sub,
                        "reaction": reaction,
                        "severity": severity,
                        "recorded_on": rec.isoformat(),
                    },
                )
                self.allergy_of.setdefault(pid, set()).add(sub.lower())

    def _policy_on(self, pid: int, day: date) -> dict[str, Any] | None:
        best, d = None, day.isoformat()
        for pol in self.policies_of.get(pid, []):
            valid = pol["valid_from"] <= d and (pol["valid_to"] is None or pol["valid_to"] >= d)
            if valid and (best is None or (pol["valid_from"], pol["id"]) > (best["valid_from"], best["id"])):
                best = pol
        return best

    def _coverage(self, pid: int, atype: dict[str, Any], day: date) -> tuple[int, int, int | None]:
        """(fee, insurer share, policy id): the rule of tools._coverage."""
        fee = atype["fee_cents"]
        pol = self._policy_on(pid, day)
        if pol is None:
            return fee, 0, None
        plan = self.plans[pol["plan_id"]]
        if not plan["active"] or (plan["id"], atype["id"]) in self.excluded:
            return fee, 0, pol["id"]
        _, covered = self.ctx.tools._insurer_share(fee, plan["copay_cents"], plan["coverage_percent"])
        return fee, covered, pol["id"]

    # -- scheduling -------------------------------------------------------------------------------
    @staticmethod
    def _free(busy: dict, key: tuple, s: int, e: int) -> bool:
        return all(e <= bs or s >= be for bs, be in busy.get(key, []))

    def _eligible(self, pid: int, atype: dict[str, Any], day: date) -> bool:
        if self.patients[pid]["status"] != "active":
            return False
        age = _age_on(self.dob[pid], day)
        if atype["min_age"] is not None and age < atype["min_age"]:
            return False
        return not (atype["max_age"] is not None and age > atype["max_age"])

    def _place(
        self, prac: int, atype: dict[str, Any], patient: int, day: date, start: int | None = None, tries: int = 10
    ) -> tuple[int, int, int, int] | None:
        """Reserve a slot the tools would accept: (clinic, room, start, end) in minutes, or None."""
        blocks = self._blocks(prac, day)
        if not blocks or not self._eligible(patient, atype, day):
            return None
        dur = atype["duration_minutes"]
        for _ in range(tries if start is None else 1):
            if start is None:
                clinic, bs, be = self.ctx.pick(blocks)
                slots = (be - bs - dur) // 15
                if slots < 0:
                    continue
                s = bs + 15 * self.rng.randint(0, slots)
            else:
                s = start
                blk = next((b for b in blocks if b[1] <= s and s + dur <= b[2]), None)
                if blk is None:
                    return None
                clinic = blk[0]
            e = s + dur
            if not self._free(self.busy_prac, (prac, day), s, e) or not self._free(self.busy_pat, (patient, day), s, e):
                continue
            room = next(
                (
                    r
                    for r in self.rooms_by.get((clinic, atype["room_type"]), [])
                    if self._free(self.busy_room, (r, day), s, e)
                ),
                None,
            )
            if room is None:
                continue
            for busy, key in (
                (self.busy_prac, (prac, day)),
                (self.busy_pat, (patient, day)),
                (self.busy_room, (room, day)),
            ):
                busy.setdefault(key, []).append((s, e))
            return clinic, room, s, e
        return None

    def _pick_type(self, prac: int) -> dict[str, Any]:
        return self.types[self._weighted(self.type_weights[self.pracs[prac]["specialty_id"]])]

    def _pick_patient(
        self,
        atype: dict[str, Any],
        day: date,
        exclude: set[int] | None = None,
        unique: bool = False,
        pool: list[int] | None = None,
    ) -> int | None:
        pool = pool or self.active_patients
        for _ in range(25):
            pid = self.ctx.pick(pool)
            if (exclude and pid in exclude) or (unique and pid not in self.unique_name):
                continue
            if day == self.today and pid in self.alone_today:
                continue
            if atype["specialty_id"] in (1, 3, 4, 5) and _age_on(self.dob[pid], day) < 18 and self.ctx.chance(0.85):
                continue
            if self._eligible(pid, atype, day):
                return pid
        return None

    def _add(
        self, prac: int, atype: dict[str, Any], patient: int, day: date, placed: tuple[int, int, int, int], **extra: Any
    ) -> dict[str, Any]:
        clinic, room, s, e = placed
        a = {
            "prac": prac,
            "type": atype,
            "patient": patient,
            "clinic": clinic,
            "room": room,
            "day": day,
            "start": _at(day, s),
            "end": _at(day, e),
            **extra,
        }
        self.appts.append(a)
        return a

    def _random_appointment(self, lo: int, hi: int) -> dict[str, Any] | None:
        for _ in range(40):
            prac = self.ctx.pick(self.active_pracs)
            day = self.today + timedelta(days=self.rng.randint(lo, hi))
            if not self._blocks(prac, day):
                continue
            atype = self._pick_type(prac)
            patient = self._pick_patient(atype, day)
            if patient is None:
                continue
            placed = self._place(prac, atype, patient, day)
            if placed is not None:
                return self._add(prac, atype, patient, day, placed)
        return None

    def _plant_at(
        self,
        day: date,
        starts: list[int],
        count: int,
        status: str,
        late_fee: bool = False,
        alone: bool = True,
        pracs: list[int] | None = None,
        avoid: set[int] | None = None,
    ) -> list[dict[str, Any]]:
        """Plant ``count`` appointments on ``day`` starting at one of ``starts`` (minutes); ``alone``: for
        patients with no other appointment today or that day."""
        made: list[dict[str, Any]] = []
        if pracs is None:
            pracs = list(self.active_pracs)
            self.rng.shuffle(pracs)
        for _ in range(3):
            for prac in pracs:
                if len(made) >= count:
                    return made
                if not self._blocks(prac, day):
                    continue
                for _try in range(4):
                    atype = self._pick_type(prac)
                    if late_fee and atype["late_cancel_fee_cents"] <= 0:
                        continue
                    exclude = set(avoid or ())
                    if alone:
                        exclude |= {a["patient"] for a in self.appts if a["day"] in (day, self.today)}
                    kin_first = alone and day == self.today and self.ctx.distractors and self.ctx.chance(0.7)
                    patient = None
                    if kin_first and self.with_kin:
                        patient = self._pick_patient(atype, day, exclude, unique=True, pool=self.with_kin)
                    if patient is None:
                        patient = self._pick_patient(atype, day, exclude, unique=True)
                    if patient is None:
                        continue
                    placed = self._place(prac, atype, patient, day, start=self.ctx.pick(starts))
                    if placed is None:
                        continue
                    made.append(self._add(prac, atype, patient, day, placed, status=status))
                    if alone and day == self.today:
                        self.alone_today.add(patient)
                        if self.ctx.distractors:
                            self._plant_lookalike(made[-1])
                    break
        return made

    def _plant_lookalike(self, a: dict[str, Any]) -> None:
        """Distractor worlds: a relative (same last name) is booked around the same time the same day."""
        last = self.patients[a["patient"]]["last_name"]
        kin = [p for p in self.by_last.get(last, []) if p != a["patient"] and p not in self.alone_today]
        if not kin:
            return
        patient = self.ctx.pick(kin)
        s0 = a["start"].hour * 60 + a["start"].minute
        pracs = [p for p in self.active_pracs if p != a["prac"]]
        self.rng.shuffle(pracs)
        for prac in pracs:
            atype = self._pick_type(prac)
            for s in (s0, s0 + 15, s0 - 15, s0 + 30):
                placed = self._place(prac, atype, patient, a["day"], start=s)
                if placed is not None:
                    self._add(prac, atype, patient, a["day"], placed)
                    return

    def _schedule(self) -> None:
        now_min = self.now.hour * 60 + self.now.minute
        today, tomorrow = self.today, self.today + timedelta(days=1)
        # planted: visits in progress (checked in), patients due to arrive within the hour, bookings
        # tomorrow morning (inside the late-cancellation window), later today
        in_visit = [m for m in range(now_min - 60, now_min - 10, 15) if m >= 450]
        for a in self._plant_at(today, in_visit, 1, "checked_in", pracs=[1], avoid=set(self.allergy_of)):
            substance = self.ctx.pick(["penicillin", "cephalosporin"])
            if not self.allergy_of.get(a["patient"]) and self.ctx.chance(0.6):
                self.t.add(
                    "allergies",
                    {
                        "patient_id": a["patient"],
                        "substance": substance,
                        "reaction": self.ctx.pick(["hives", "rash", "facial swelling"]),
                        "severity": "moderate",
                        "recorded_on": self.patients[a["patient"]]["registered_on"],
                    },
                )
                self.allergy_of.setdefault(a["patient"], set()).add(substance)
        self._plant_at(today, in_visit, self.ctx.n(2, 7), "checked_in")
        self._plant_at(today, list(range(now_min, now_min + 61, 15)), self.ctx.n(5, 12), "scheduled")
        self._plant_at(
            tomorrow, list(range(450, now_min, 15)), self.ctx.n(3, 8), "scheduled", late_fee=True, alone=False
        )
        self._plant_at(today, list(range(now_min + 90, 16 * 60, 15)), self.ctx.n(3, 10), "scheduled", alone=False)
        for _ in range(self.ctx.n(14, 420)):
            self._random_appointment(-28, -1)
        for _ in range(self.ctx.n(3, 30)):
            self._random_appointment(0, 0)
        for _ in range(self.ctx.n(20, 520)):
            self._random_appointment(1, 27)

    def _finalise_appointments(self) -> None:
        """Statuses, timestamps and ids (by start time)."""
        now = self.now
        for a in self.appts:
            start, end = a["start"], a["end"]
            status = a.get("status")
            if status is None:
                if end <= now - timedelta(minutes=6):
                    status = self._weighted({"completed": 82, "cancelled": 10, "no_show": 8})
                    if a["day"] == self.today and status == "no_show":
                        status = "completed"
                elif start < now:
                    status = "checked_in"
                else:
                    status = self._weighted({"scheduled": 92, "cancelled": 8})
            lead = timedelta(days=self.rng.randint(1, 21), minutes=self.rng.randint(0, 600))
            booked = (start - lead).replace(hour=self.rng.randint(8, 17), minute=self.rng.randint(0, 59), second=0)
            if booked >= now:
                booked = self._moment(now - timedelta(days=4), now - timedelta(minutes=30))
            if booked >= start - timedelta(hours=2):
                booked = start - timedelta(days=1, hours=self.rng.randint(1, 30))
            reg = date.fromisoformat(self.patients[a["patient"]]["registered_on"])
            if booked.date() <= reg:
                booked = _at(reg + timedelta(days=1), 10 * 60)
            a["booked_at"] = booked
            a["checked_in_at"] = a["completed_at"] = a["cancelled_at"] = None
            a["cancelled_by"] = a["cancellation_reason"] = None
            a["late_cancel"] = False
            if status == "cancelled":
                by = "patient" if self.ctx.chance(0.75) else "clinic"
                hi = min(start - timedelta(hours=26), now - timedelta(minutes=10))
                lo = booked + timedelta(hours=1)
                if by == "patient" and start < now and self.ctx.chance(0.2):
                    lo2, hi2 = max(lo, start - timedelta(hours=20)), min(start - timedelta(hours=1), now)
                    if lo2 < hi2:
                        a["cancelled_at"] = self._moment(lo2, hi2)
                        a["late_cancel"] = True
                if a["cancelled_at"] is None:
                    if lo < hi:
                        a["cancelled_at"] = self._moment(lo, hi)
                    else:
                        status = "completed" if end <= now else "scheduled"
                if a["cancelled_at"] is not None:
                    a["cancelled_by"] = by
                    a["cancellation_reason"] = self.ctx.pick(
                        CANCEL_REASONS_PATIENT if by == "patient" else CANCEL_REASONS_CLINIC
                    )
            if status in ("completed", "checked_in"):
                a["checked_in_at"] = min(start - timedelta(minutes=self.rng.randint(2, 12)), now - timedelta(minutes=1))
                if a["checked_in_at"] <= a["booked_at"]:
                    a["booked_at"] = a["checked_in_at"] - timedelta(days=2)
            if status == "completed":
                a["completed_at"] = min(end + timedelta(minutes=self.rng.randint(-2, 5)), now - timedelta(minutes=1))
            a["status"] = status
            reason = self.ctx.pick(REASONS[a["type"]["code"]])
            a["reason"] = reason.replace("{age}", str(max(1, _age_on(self.dob[a["patient"]], a["day"]))))
            a["spec"] = SPECIALTIES[a["type"]["specialty_id"] - 1][1]
        self.appts.sort(key=lambda a: (a["start"], a["prac"], a["patient"]))
        for i, a in enumerate(self.appts, 1):
            a["id"] = i
            a["booked_note"] = "booked by front desk"
            a["rescheduled_from"] = None
        # a few future appointments were moved once
        for a in self.appts:
            if a["status"] == "scheduled" and a["day"] > self.today + timedelta(days=1) and self.ctx.chance(0.06):
                lo, hi = a["booked_at"] + timedelta(hours=2), now - timedelta(minutes=20)
                if lo >= hi:
                    continue
                when = self._moment(lo, hi)
                old = a["start"] + timedelta(days=self.ctx.pick([-1, 1, 2, 7]), minutes=self.ctx.pick([0, 30, -30]))
                if old > when + timedelta(hours=24) and old.date() != a["day"]:
                    a["rescheduled_from"] = (old, when)

    # -- waitlist ---------------------------------------------------------------------------------
    def _waitlist(self) -> None:
        rows: list[dict[str, Any]] = []
        waiting: set[tuple[int, int]] = set()
        now = self.now

        def add(**r: Any) -> dict[str, Any]:
            row = {
                "patient_id": None,
                "appointment_type_id": None,
                "practitioner_id": None,
                "clinic_id": None,
                "earliest_date": None,
                "latest_date": None,
                "status": "waiting",
                "notes": None,
                "created_at": None,
                "booked_appointment_id": None,
                "removed_reason": None,
                **r,
            }
            rows.append(row)
            if row["status"] == "waiting":
                waiting.add((row["patient_id"], row["appointment_type_id"]))
            return row

        def waiting_for(type_id: int) -> set[int]:
            return {p for p, t in waiting if t == type_id}

        # planted scenarios: a future appointment whose slot fits a waiting patient (the oldest entry that
        # fits), an even older entry that does not fit, and sometimes a younger one that fits too
        prac_names: dict[tuple[str, str], int] = {}
        for p in self.pracs.values():
            prac_names[(p["first_name"], p["last_name"])] = prac_names.get((p["first_name"], p["last_name"]), 0) + 1
        per_day: dict[tuple[int, date], int] = {}
        for a in self.appts:
            if a["status"] == "scheduled":
                per_day[(a["patient"], a["day"])] = per_day.get((a["patient"], a["day"]), 0) + 1
        targets = [
            a
            for a in self.appts
            if a["status"] == "scheduled"
            and a["day"] >= self.today + timedelta(days=2)
            and a["type"]["specialty_id"] != 6
            and a["patient"] in self.unique_name
            and per_day[(a["patient"], a["day"])] == 1
            and prac_names[(self.pracs[a["prac"]]["first_name"], self.pracs[a["prac"]]["last_name"])] == 1
        ]
        self.rng.shuffle(targets)
        used_types: list[int] = []
        done = 0
        for x in targets:
            if done >= self.ctx.n(2, 8):
                break
            t = x["type"]
            if t["id"] in used_types and len(used_types) < 6:
                continue
            fit = self._free_patient_for(x, exclude={x["patient"]} | waiting_for(t["id"]))
            if fit is None:
                continue
            other = self._pick_patient(t, x["day"], exclude={x["patient"], fit} | waiting_for(t["id"]))
            if other is None:
                continue
            base = 45 - 5 * done  # scenario k's entries predate scenario k+1's
            d = x["day"]
            same_spec = [p for p in self.pracs_by_spec[t["specialty_id"]] if p != x["prac"]]
            kinds = ["dates"] + (["prac"] if same_spec else []) + (["clinic"] if len(self.clinic_ids) > 1 else [])
            kind = self.ctx.pick(kinds)
            nofit: dict[str, Any] = {
                "patient_id": other,
                "appointment_type_id": t["id"],
                "earliest_date": self.today.isoformat(),
                "notes": self.ctx.pick(WAIT_NOTES),
                "created_at": _fmt(self._moment(now - timedelta(days=base + 4), now - timedelta(days=base + 2))),
            }
            if kind == "dates":
                nofit["latest_date"] = (d - timedelta(days=1)).isoformat()
            else:
                nofit["latest_date"] = (d + timedelta(days=self.rng.randint(3, 20))).isoformat()
                if kind == "prac":
                    nofit["practitioner_id"] = self.ctx.pick(same_spec)
                else:
                    nofit["clinic_id"] = self.ctx.pick([c for c in self.clinic_ids if c != x["clinic"]])
            add(**nofit)
            add(
                patient_id=fit,
                appointment_type_id=t["id"],
                practitioner_id=x["prac"] if self.ctx.chance(0.5) else None,
                clinic_id=x["clinic"] if self.ctx.chance(0.3) else None,
                earliest_date=max(self.today, d - timedelta(days=self.rng.randint(0, 6))).isoformat(),
                latest_date=(d + timedelta(days=self.rng.randint(0, 14))).isoformat(),
                notes=self.ctx.pick(WAIT_NOTES),
                created_at=_fmt(self._moment(now - timedelta(days=base), now - timedelta(days=base - 2))),
            )
            if self.ctx.chance(0.5):
                young = self._free_patient_for(x, exclude={x["patient"], fit, other} | waiting_for(t["id"]))
                if young is not None:
                    add(
                        patient_id=young,
                        appointment_type_id=t["id"],
                        earliest_date=self.today.isoformat(),
                        latest_date=(d + timedelta(days=self.rng.randint(5, 30))).isoformat(),
                        notes=self.ctx.pick(WAIT_NOTES),
                        created_at=_fmt(self._moment(now - timedelta(days=12), now - timedelta(days=1))),
                    )
            used_types.append(t["id"])
            done += 1
        # other waiting entries (younger than the first planted ones)
        for _ in range(self.ctx.n(3, 30)):
            prac = self.ctx.pick(self.active_pracs)
            t = self._pick_type(prac)
            earliest = self.today + timedelta(days=self.rng.randint(0, 10))
            patient = self._pick_patient(t, earliest)
            if patient is None or (patient, t["id"]) in waiting:
                continue
            add(
                patient_id=patient,
                appointment_type_id=t["id"],
                practitioner_id=prac if self.ctx.chance(0.5) else None,
                clinic_id=self.ctx.pick(self.clinic_ids) if self.ctx.chance(0.25) else None,
                earliest_date=earliest.isoformat(),
                latest_date=(earliest + timedelta(days=self.rng.randint(7, 45))).isoformat(),
                notes=self.ctx.pick(WAIT_NOTES),
                created_at=_fmt(self._moment(now - timedelta(days=14), now - timedelta(hours=2))),
            )
        # entries taken off the list
        for _ in range(self.ctx.n(1, 8)):
            prac = self.ctx.pick(self.active_pracs)
            t = self._pick_type(prac)
            earliest = self.today - timedelta(days=self.rng.randint(20, 40))
            patient = self._pick_patient(t, earliest)
            if patient is None:
                continue
            add(
                patient_id=patient,
                appointment_type_id=t["id"],
                status="removed",
                clinic_id=self.ctx.pick(self.clinic_ids) if self.ctx.chance(0.5) else None,
                earliest_date=earliest.isoformat(),
                latest_date=(earliest + timedelta(days=30)).isoformat(),
                created_at=_fmt(_at(earliest - timedelta(days=self.rng.randint(2, 8)), self.rng.randint(480, 1050))),
                removed_reason=self.ctx.pick(REMOVED_REASONS),
            )
        # entries already booked: an upcoming appointment that came off the waitlist
        booked = [
            a
            for a in self.appts
            if a["status"] == "scheduled" and a["day"] > self.today and a["booked_at"] < now - timedelta(days=1)
        ]
        for a in self.ctx.sample(booked, self.ctx.n(1, 6)):
            created = a["booked_at"] - timedelta(days=self.rng.randint(3, 20), minutes=self.rng.randint(0, 300))
            row = add(
                patient_id=a["patient"],
                appointment_type_id=a["type"]["id"],
                status="booked",
                practitioner_id=a["prac"] if self.ctx.chance(0.6) else None,
                earliest_date=min(created.date() + timedelta(days=1), a["day"]).isoformat(),
                latest_date=(a["day"] + timedelta(days=self.rng.randint(0, 20))).isoformat(),
                notes=a["reason"],
                created_at=_fmt(created),
                booked_appointment_id=a["id"],
            )
            row["_appt"] = a
        rows.sort(key=lambda r: (r["created_at"], r["patient_id"]))
        for r in rows:
            a = r.pop("_appt", None)
            entry = self.t.add("waitlist_entries", r)
            if a is not None:
                a["booked_note"] = f"booked from waitlist entry {entry['id']}"
            if r["status"] == "waiting" and r["created_at"] >= _fmt(now - timedelta(days=AUDIT_DAYS)):
                self._log(
                    datetime.fromisoformat(r["created_at"]),
                    "waitlist_added",
                    "waitlist_entry",
                    entry["id"],
                    {
                        "appointment_type": self.types[r["appointment_type_id"]]["code"],
                        "patient_id": r["patient_id"],
                    },
                )

    def _free_patient_for(self, x: dict[str, Any], exclude: set[int]) -> int | None:
        s = x["start"].hour * 60 + x["start"].minute
        e = x["end"].hour * 60 + x["end"].minute
        for _ in range(40):
            pid = self._pick_patient(x["type"], x["day"], exclude)
            if pid is not None and self._free(self.busy_pat, (pid, x["day"]), s, e):
                return pid
        return None

    # -- appointment rows and history -------------------------------------------------------------
    def _history(self) -> None:
        events: list[tuple[datetime, int, int, dict[str, Any]]] = []
        now = self.now
        recent = now - timedelta(days=AUDIT_DAYS)
        for a in self.appts:
            booked_start = a["rescheduled_from"][0] if a["rescheduled_from"] else a["start"]
            events.append(
                (
                    a["booked_at"],
                    a["id"],
                    0,
                    {
                        "event": "booked",
                        "new_starts_at": _fmt(booked_start),
                        "new_practitioner_id": a["prac"],
                        "note": a["booked_note"],
                    },
                )
            )
            if a["booked_at"] >= now - timedelta(days=1):
                self._log(
                    a["booked_at"],
                    "appointment_booked",
                    "appointment",
                    a["id"],
                    {
                        "appointment_type": a["type"]["code"],
                        "patient_id": a["patient"],
                        "practitioner_id": a["prac"],
                        "room_id": a["room"],
                        "starts_at": _fmt(booked_start),
                    },
                )
            if a["rescheduled_from"]:
                old, when = a["rescheduled_from"]
                events.append(
                    (
                        when,
                        a["id"],
                        1,
                        {
                            "event": "rescheduled",
                            "old_starts_at": _fmt(old),
                            "new_starts_at": _fmt(a["start"]),
                            "old_practitioner_id": a["prac"],
                            "new_practitioner_id": a["prac"],
                            "note": self.ctx.pick(
                                ["patient asked for another day", None, "practitioner schedule change"]
                            ),
                        },
                    )
                )
                if when >= recent:
                    self._log(
                        when,
                        "appointment_rescheduled",
                        "appointment",
                        a["id"],
                        {
                            "new_practitioner_id": a["prac"],
                            "new_starts_at": _fmt(a["start"]),
                            "old_practitioner_id": a["prac"],
                            "old_starts_at": _fmt(old),
                            "room_id": a["room"],
                        },
                    )
            if a["checked_in_at"]:
                events.append((a["checked_in_at"], a["id"], 2, {"event": "checked_in", "note": "patient arrived"}))
                if a["checked_in_at"] >= now - timedelta(days=1):
                    self._log(
                        a["checked_in_at"],
                        "patient_checked_in",
                        "appointment",
                        a["id"],
                        {"checked_in_at": _fmt(a["checked_in_at"])},
                    )
            if a["completed_at"]:
                events.append((a["completed_at"], a["id"], 3, {"event": "completed"}))
                if a["completed_at"] >= now - timedelta(days=1):
                    self._log(
                        a["completed_at"],
                        "appointment_completed",
                        "appointment",
                        a["id"],
                        {"completed_at": _fmt(a["completed_at"])},
                    )
            if a["status"] == "cancelled":
                events.append(
                    (
                        a["cancelled_at"],
                        a["id"],
                        4,
                        {
                            "event": "cancelled",
                            "old_starts_at": _fmt(a["start"]),
                            "old_practitioner_id": a["prac"],
                            "note": f"cancelled by {a['cancelled_by']}: {a['cancellation_reason']}",
                        },
                    )
                )
            if a["status"] == "no_show":
                a["no_show_at"] = a["start"] + timedelta(minutes=self.rng.randint(15, 45))
                events.append((a["no_show_at"], a["id"], 5, {"event": "no_show"}))
            self.t["appointments"].append(
                {
                    "id": a["id"],
                    "patient_id": a["patient"],
                    "practitioner_id": a["prac"],
                    "clinic_id": a["clinic"],
                    "room_id": a["room"],
                    "appointment_type_id": a["type"]["id"],
                    "starts_at": _fmt(a["start"]),
                    "ends_at": _fmt(a["end"]),
                    "status": a["status"],
                    "reason": a["reason"],
                    "booked_at": _fmt(a["booked_at"]),
                    "checked_in_at": _fmt(a["checked_in_at"]) if a["checked_in_at"] else None,
                    "completed_at": _fmt(a["completed_at"]) if a["completed_at"] else None,
                    "cancelled_at": _fmt(a["cancelled_at"]) if a["cancelled_at"] else None,
                    "cancelled_by": a["cancelled_by"],
                    "cancellation_reason": a["cancellation_reason"],
                }
            )
        events.sort(key=lambda ev: (ev[0], ev[1], ev[2]))
        for when, aid, _order, ev in events:
            self.t.add(
                "appointment_history",
                {
                    "appointment_id": aid,
                    "event": ev["event"],
                    "old_starts_at": ev.get("old_starts_at"),
                    "new_starts_at": ev.get("new_starts_at"),
                    "old_practitioner_id": ev.get("old_practitioner_id"),
                    "new_practitioner_id": ev.get("new_practitioner_id"),
                    "note": ev.get("note"),
                    "created_at": _fmt(when),
                },
            )

    # -- visit notes and prescriptions ------------------------------------------------------------
    def _allergic(self, pid: int, med: dict[str, Any]) -> bool:
        subs = self.allergy_of.get(pid, set())
        return med["name"].lower() in subs or med["drug_class"].lower() in subs

    def _clinical(self) -> None:
        for a in self.appts:
            if a["status"] != "completed" or not self.ctx.chance(0.7 if a["day"] < self.today else 0.4):
                continue
            assessment, plan = self.ctx.pick(NOTES[a["spec"]])
            self.t["visit_notes"].append(
                {
                    "id": 0,
                    "appointment_id": a["id"],
                    "practitioner_id": a["prac"],
                    "chief_complaint": a["reason"],
                    "assessment": assessment,
                    "plan": plan,
                    "created_at": _fmt(a["completed_at"]),
                }
            )
        self.t["visit_notes"].sort(key=lambda r: (r["created_at"], r["appointment_id"]))
        for i, r in enumerate(self.t["visit_notes"], 1):
            r["id"] = i
        rx_rows: list[dict[str, Any]] = []
        active_meds: dict[int, set[int]] = {}

        def add_rx(
            pid: int,
            prac: int,
            appt: int | None,
            med: dict[str, Any],
            directions: str,
            qty: int,
            refills: int,
            used: int,
            status: str,
            issued: date,
            last: date | None,
            reason: str | None = None,
        ) -> bool:
            if self._allergic(pid, med) or (status == "active" and med["id"] in active_meds.get(pid, set())):
                return False
            if med["controlled"]:
                qty, refills, used = min(qty, 30), 0, 0
            expires = issued + timedelta(days=90 if med["controlled"] else 365)
            if status == "active" and expires < self.today:
                status = "expired"
            if status == "active":
                active_meds.setdefault(pid, set()).add(med["id"])
            rx_rows.append(
                {
                    "patient_id": pid,
                    "practitioner_id": prac,
                    "appointment_id": appt,
                    "medication_id": med["id"],
                    "dosage_instructions": directions,
                    "quantity": qty,
                    "refills_allowed": refills,
                    "refills_used": min(used, refills),
                    "status": status,
                    "issued_on": issued.isoformat(),
                    "expires_on": expires.isoformat(),
                    "last_filled_on": (last or issued).isoformat(),
                    "cancel_reason": reason,
                }
            )
            return True

        # prescriptions written at completed visits
        for a in self.appts:
            if a["status"] != "completed" or a["spec"] not in ACUTE or not self.pracs[a["prac"]]["can_prescribe"]:
                continue
            if not self.ctx.chance(0.35):
                continue
            name, strength, directions, qty = self.ctx.pick(ACUTE[a["spec"]])
            med = self.med_by.get((name, strength))
            if med is None:
                continue
            chronic = name in CHRONIC_DOSE
            refills = self.rng.randint(2, 5) if chronic else self.ctx.pick([0, 0, 1])
            used = self.rng.randint(0, refills) if (self.today - a["day"]).days > 20 else 0
            status = "active" if chronic or (self.today - a["day"]).days < 10 else "completed"
            add_rx(a["patient"], a["prac"], a["id"], med, directions, qty, refills, used, status, a["day"], None)
        # long-term medication started before the window; some patients are planted with both refillable
        # and non-refillable prescriptions (used up, expired or cancelled)
        prescribers = [
            p for p in self.active_pracs if self.pracs[p]["can_prescribe"] and self.pracs[p]["specialty_id"] == 1
        ]
        adults = [p for p in self.active_patients if _age_on(self.dob[p], self.today) >= 30]
        chronic_meds = [self.med_by_name[n] for n in CHRONIC_DOSE if n in self.med_by_name]
        planted = 0
        for pid in self.ctx.sample(adults, len(adults)):
            plant = planted < self.ctx.n(5 if self.ctx.seed == 0 else 8, 24)  # seed 0 kept as it was
            if not plant and not self.ctx.chance(0.15 if not self.ctx.large else 0.25):
                continue
            prac = self.ctx.pick(prescribers)
            meds = self.ctx.sample(chronic_meds, 3 if plant else self.rng.randint(1, 2))
            made_ok = made_bad = 0
            for k, med in enumerate(meds):
                issued = self.today - timedelta(days=self.rng.randint(40, 330))
                refills = self.rng.randint(2, 11)
                if plant and k == len(meds) - 1 and made_ok:
                    variant = self.ctx.pick(["used_up", "expired", "cancelled"])
                else:
                    variant = self.ctx.weighted({"ok": 6, "used_up": 1, "expired": 1, "cancelled": 1})
                dose = CHRONIC_DOSE[med["name"]]
                # (refills used, status, issued, last filled[, cancel reason]) of the variant
                if variant == "ok":
                    used = self.rng.randint(0, refills - 1)
                    course: tuple = (used, "active", issued, issued + timedelta(days=30 * used))
                elif variant == "used_up":
                    last = min(
                        self.today - timedelta(days=self.rng.randint(3, 25)), issued + timedelta(days=30 * refills)
                    )
                    course = (refills, "active", issued, last)
                elif variant == "expired":
                    old = self.today - timedelta(days=self.rng.randint(380, 600))
                    course = (self.rng.randint(0, refills), "expired", old, old + timedelta(days=60))
                else:
                    course = (
                        self.rng.randint(0, 2),
                        "cancelled",
                        issued,
                        issued + timedelta(days=20),
                        self.ctx.pick(
                            ["stopped: side effects", "replaced by another medication", "stopped by the doctor"]
                        ),
                    )
                made = add_rx(pid, prac, None, med, dose, 30, refills, *course)
                if variant == "ok":
                    made_ok += made
                else:
                    made_bad += made
            if plant and made_ok and made_bad:
                planted += 1
        rx_rows.sort(key=lambda r: (r["issued_on"], r["patient_id"], r["medication_id"]))
        for r in rx_rows:
            last = min(date.fromisoformat(r["last_filled_on"]), self.today)
            r["last_filled_on"] = max(last, date.fromisoformat(r["issued_on"])).isoformat()
            self.t.add("prescriptions", r)

    # -- invoices and payments --------------------------------------------------------------------
    def _billing(self) -> None:
        now = self.now
        tools = self.ctx.tools  # invoice numbers and payment terms as the tools write them
        invoices: list[dict[str, Any]] = []

        def bill(a: dict, kind: str, when: datetime, desc: str, fee: int, covered: int = 0, policy=None, void=None):
            invoices.append(
                {
                    "a": a,
                    "kind": kind,
                    "when": when,
                    "desc": desc,
                    "fee": fee,
                    "covered": covered,
                    "policy": policy,
                    "void": void,
                }
            )

        for a in self.appts:
            atype = a["type"]
            if a["status"] == "completed" and a["day"] < self.today:
                fee, covered, pol = self._coverage(a["patient"], atype, a["day"])
                when = a["completed_at"] + timedelta(minutes=self.rng.randint(1, 15))
                desc = f"{atype['name']} {a['day'].isoformat()}"
                if pol is not None and covered > 0 and self.ctx.chance(0.06):  # issued in error, then reissued
                    void = self.ctx.pick(
                        ["billed to the wrong insurance plan; reissued", "insurance missing; reissued"]
                    )
                    bill(a, "visit", when, desc, fee, void=void)
                    when = when + timedelta(days=1)
                bill(a, "visit", when, desc, fee, covered, pol)
            elif a["status"] == "no_show" and atype["late_cancel_fee_cents"] > 0:
                bill(a, "no_show", a["no_show_at"] + timedelta(minutes=5),
                     f"No-show fee - {atype['name']} {a['day'].isoformat()}", atype["late_cancel_fee_cents"])
            elif a["status"] == "cancelled" and a["late_cancel"] and atype["late_cancel_fee_cents"] > 0:
                bill(a, "late_cancellation", a["cancelled_at"],
                     f"Late cancellation fee - {atype['name']} {a['day'].isoformat()}", atype["late_cancel_fee_cents"])
        invoices.sort(key=lambda inv: (inv["when"], inv["a"]["id"]))
        # the most recent visit bills stay (partly) open, so every world has balances to collect
        open_ids = [
            id(inv)
            for inv in reversed(invoices)
            if inv["kind"] == "visit" and not inv["void"] and inv["fee"] > inv["covered"]
        ][: self.ctx.n(6, 25)]
        payments: list[dict[str, Any]] = []
        for i, inv in enumerate(invoices, 1):
            a = inv["a"]
            issued = inv["when"].date()
            due = inv["fee"] - inv["covered"]
            status = "void" if inv["void"] else ("paid" if due == 0 else "issued")
            row = {
                "id": i,
                "invoice_number": tools._invoice_number(issued.year, 100 + i),
                "patient_id": a["patient"],
                "appointment_id": a["id"],
                "policy_id": inv["policy"],
                "kind": inv["kind"],
                "issued_on": issued.isoformat(),
                "due_on": (issued + timedelta(days=tools.INVOICE_DUE_DAYS)).isoformat(),
                "subtotal_cents": inv["fee"],
                "insurance_covered_cents": inv["covered"],
                "patient_due_cents": due,
                "status": status,
                "void_reason": inv["void"],
            }
            self.t["invoices"].append(row)
            self.t["invoice_lines"].append(
                {
                    "id": i,
                    "invoice_id": i,
                    "description": inv["desc"],
                    "quantity": 1,
                    "unit_price_cents": inv["fee"],
                    "amount_cents": inv["fee"],
                }
            )
            if status != "issued":
                continue
            if id(inv) in open_ids:
                plan = "partial" if due >= 2000 and self.ctx.chance(0.4) else "none"
            else:
                r = self.rng.random()
                plan = "full_now" if r < 0.55 else "full_later" if r < 0.7 else "partial" if r < 0.85 else "none"
                if (self.today - issued).days > 35 and plan == "none":
                    plan = "full_later"
                if inv["kind"] != "visit" and plan == "full_now":
                    plan = "full_later"
            amounts: list[tuple[int, datetime]] = []
            if plan == "full_now":
                amounts.append((due, inv["when"] + timedelta(minutes=self.rng.randint(2, 20))))
            elif plan == "full_later":
                pay_at = _at(issued + timedelta(days=self.rng.randint(1, 25)), self.rng.randint(480, 1080))
                if pay_at < now:
                    amounts.append((due, pay_at))
            elif plan == "partial" and due >= 2000:
                part = max(500, (due * self.rng.randint(20, 70) // 100) // 500 * 500)
                if part < due:
                    amounts.append((part, inv["when"] + timedelta(minutes=self.rng.randint(2, 20))))
            for amount, paid_at in amounts:
                method = self._weighted({"card": 7, "cash": 1, "check": 1.2, "bank_transfer": 0.8})
                ref = {
                    "card": f"AUTH-{self.rng.randint(300000, 399999)}",
                    "cash": None,
                    "check": f"CHK-{self.rng.randint(1000, 4999)}",
                    "bank_transfer": f"TRF-{self.rng.randint(10000000, 99999999)}",
                }[method]
                payments.append(
                    {
                        "invoice_id": i,
                        "amount_cents": amount,
                        "method": method,
                        "reference": ref,
                        "paid_at": _fmt(min(paid_at, now - timedelta(minutes=5))),
                    }
                )
                row["status"] = "paid" if amount == due else "partially_paid"
        payments.sort(key=lambda p: (p["paid_at"], p["invoice_id"]))
        for p in payments:
            paid = self.t.add("payments", p)
            if p["paid_at"] >= _fmt(now - timedelta(days=AUDIT_DAYS)):
                self._log(
                    datetime.fromisoformat(p["paid_at"]),
                    "payment_recorded",
                    "invoice",
                    p["invoice_id"],
                    {"amount_cents": p["amount_cents"], "method": p["method"], "payment_id": paid["id"]},
                )
        for a in self.appts:
            if a["status"] == "cancelled" and a["cancelled_at"] >= now - timedelta(days=AUDIT_DAYS):
                fee_inv = next(
                    (
                        inv
                        for inv in self.t["invoices"]
                        if inv["appointment_id"] == a["id"] and inv["kind"] == "late_cancellation"
                    ),
                    None,
                )
                self._log(
                    a["cancelled_at"],
                    "appointment_cancelled",
                    "appointment",
                    a["id"],
                    {
                        "cancelled_by": a["cancelled_by"],
                        "fee_invoice": fee_inv["invoice_number"] if fee_inv else None,
                        "fee_waived": False,
                        "hours_before_start": round((a["start"] - a["cancelled_at"]).total_seconds() / 3600, 2),
                        "late": a["late_cancel"],
                        "reason": a["cancellation_reason"],
                    },
                )

    def _audit_log(self) -> None:
        entries = sorted((e for e in self.audit if e[0] < self.now), key=lambda e: (e[0], e[1], e[3]))
        for when, action, etype, eid, details in entries:
            self.t.add(
                "audit_log",
                {
                    "logged_at": _fmt(when),
                    "action": action,
                    "entity_type": etype,
                    "entity_id": eid,
                    "details": json.dumps(details, sort_keys=True),
                },
            )
