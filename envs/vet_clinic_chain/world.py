from datetime import date, datetime, timedelta
import re

TABLE_ORDER = [
    "branches", "branch_hours", "staff", "staff_branch_assignments", "owners", "species", "pets",
    "appointment_types", "appointments", "vaccines", "vaccinations", "treatment_types", "treatments",
    "medications", "prescriptions", "invoices", "invoice_lines", "payments", "activity_log",
]

DOMAIN = "willowbrookvets.com"
BRANCHES = [("RIV", "Riverside"), ("NTH", "Northgate"), ("OLD", "Old Town")]
TOWNS = ["Willowbrook", "Ashford", "Millbrook", "Fairhaven", "Cedar Falls", "Brookfield"]
NEARBY = ["Oakley", "Hillcrest", "Stonebridge", "Maple Grove", "Linden", "Westfield"]
EMAIL_DOMAINS = ["example.com", "example.net", "example.org", "mail.example.com"]
REF_CHARS = list("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
BATCH_SUFFIX = list("ABCDEFGHJK")
TAX_PCT = 8

SPECIES = [("DOG", "Dog"), ("CAT", "Cat"), ("RAB", "Rabbit"), ("GPG", "Guinea pig"), ("FER", "Ferret")]
SPECIES_WEIGHTS = {"DOG": 50, "CAT": 35, "RAB": 8, "GPG": 4, "FER": 3}
SPECIES_PROFILE = {
    "DOG": {"max_age": 15 * 365,
            "breeds": [("Labrador Retriever", 25, 36), ("Cocker Spaniel", 12, 16), ("French Bulldog", 8, 14),
                       ("Border Collie", 14, 22), ("Jack Russell Terrier", 5, 8), ("Golden Retriever", 25, 34),
                       ("German Shepherd", 28, 40), ("Dachshund", 7, 12), ("Cockapoo", 6, 12),
                       ("Staffordshire Bull Terrier", 11, 17), ("Beagle", 9, 14), ("Mixed breed", 8, 30),
                       ("Shih Tzu", 4, 8), ("Boxer", 25, 32)],
            "colours": ["Black", "Chocolate", "Yellow", "Tan and white", "Black and white", "Brindle", "Golden",
                        "Tricolour", "Red", "Grey"]},
    "CAT": {"max_age": 18 * 365,
            "breeds": [("Domestic Shorthair", 3.5, 6.0), ("Domestic Longhair", 3.5, 6.5), ("British Shorthair", 4.0, 7.0),
                       ("Siamese", 3.0, 5.0), ("Maine Coon", 5.0, 9.0), ("Ragdoll", 4.0, 7.5), ("Bengal", 3.5, 6.0),
                       ("Persian", 3.0, 5.5)],
            "colours": ["Tabby", "Black", "Black and white", "Ginger", "Grey", "Tortoiseshell", "Calico",
                        "Seal point", "Cream"]},
    "RAB": {"max_age": 10 * 365,
            "breeds": [("Netherland Dwarf", 0.9, 1.3), ("Mini Lop", 1.5, 2.5), ("Lionhead", 1.2, 1.8),
                       ("Rex", 3.0, 4.5), ("Dutch", 2.0, 2.7), ("Flemish Giant", 6.0, 9.0)],
            "colours": ["White", "Grey", "Brown", "Black and white", "Agouti", "Sandy"]},
    "GPG": {"max_age": 7 * 365,
            "breeds": [("American", 0.8, 1.2), ("Abyssinian", 0.7, 1.1), ("Peruvian", 0.8, 1.3), ("Teddy", 0.8, 1.2)],
            "colours": ["Tricolour", "White", "Brown and white", "Black", "Ginger"]},
    "FER": {"max_age": 9 * 365,
            "breeds": [("Standard ferret", 0.7, 2.0), ("Angora ferret", 0.7, 1.8)],
            "colours": ["Sable", "Albino", "Silver", "Cinnamon"]},
}

PET_NAMES = [
    "Bella", "Max", "Luna", "Charlie", "Daisy", "Milo", "Poppy", "Teddy", "Ruby", "Oscar", "Molly", "Buddy",
    "Rosie", "Archie", "Lola", "Leo", "Coco", "Alfie", "Millie", "Bailey", "Nala", "Simba", "Tilly", "Rocky",
    "Willow", "Jasper", "Maisie", "Ollie", "Pepper", "Biscuit", "Hazel", "Winston", "Ginger", "Murphy", "Honey",
    "Loki", "Cleo", "Toby", "Mabel", "Bruno", "Penny", "Sox", "Smudge", "Misty", "Pickle", "Rolo", "Nibbles",
    "Thumper", "Clover", "Pumpkin", "Ziggy", "Marley", "Roxy", "Duke", "Sasha", "Fudge", "Bramble", "Shadow",
    "Bonnie", "Harley", "Peanut", "Mocha", "Juniper", "Otis", "Bear", "Maple",
]
ALLERGIES = ["Penicillin", "Chicken protein", "Flea bites", "Beef protein", "Grass pollen", "Wheat", "Latex"]

APPT_TYPES = [
    ("CONS", "General consultation", 30, 5500, 1, 1),
    ("FUP", "Follow-up consultation", 15, 3000, 1, 1),
    ("VAC", "Vaccination and health check", 30, 3500, 1, 1),
    ("EMG", "Emergency consultation", 45, 12000, 1, 1),
    ("SNR", "Senior wellness check", 45, 7500, 1, 1),
    ("DEN", "Dental procedure admission", 60, 6000, 1, 1),
    ("SUR", "Surgical procedure admission", 60, 8000, 1, 1),
    ("NRS", "Nurse clinic", 15, 2000, 0, 1),
    ("POP", "Post-operative check", 15, 0, 0, 1),
    ("PUP", "Puppy and kitten first visit", 30, 4500, 1, 1),
    ("HYD", "Hydrotherapy session", 45, 5000, 0, 0),
]
TYPE_WEIGHTS = {"CONS": 30, "FUP": 10, "VAC": 20, "EMG": 4, "SNR": 6, "DEN": 5, "SUR": 5, "NRS": 12, "PUP": 8}

VACCINES = [
    ("DHP", "Nobivac DHP", "DOG", "MSD Animal Health", 1095, 4500, 1, 1),
    ("L4", "Nobivac L4", "DOG", "MSD Animal Health", 365, 3800, 1, 1),
    ("KC", "Nobivac KC (kennel cough)", "DOG", "MSD Animal Health", 365, 4200, 0, 1),
    ("RAB-D", "Rabisin rabies (dog)", "DOG", "Boehringer Ingelheim", 1095, 6500, 0, 1),
    ("L2", "Nobivac L2", "DOG", "MSD Animal Health", 365, 3200, 0, 0),
    ("RCP", "Purevax RCP", "CAT", "Boehringer Ingelheim", 365, 4200, 1, 1),
    ("FELV", "Purevax FeLV", "CAT", "Boehringer Ingelheim", 365, 4000, 0, 1),
    ("RAB-C", "Rabisin rabies (cat)", "CAT", "Boehringer Ingelheim", 1095, 6500, 0, 1),
    ("MYX", "Nobivac Myxo-RHD Plus", "RAB", "MSD Animal Health", 365, 4800, 1, 1),
    ("RHD2", "Filavac VHD K C+V", "RAB", "Filavie", 365, 3900, 0, 1),
    ("CDF", "Purevax Ferret Distemper", "FER", "Boehringer Ingelheim", 365, 3600, 1, 1),
]

TREATMENT_TYPES = [
    ("CONX", "Extended consultation time", "consultation", 3000, 1, 1),
    ("SOP", "Second opinion case review", "consultation", 4500, 1, 1),
    ("BLD", "Comprehensive blood panel", "diagnostic", 12500, 1, 1),
    ("URN", "Urinalysis", "diagnostic", 4500, 0, 1),
    ("XRY", "Radiograph (X-ray), per view", "diagnostic", 9500, 1, 1),
    ("USS", "Abdominal ultrasound scan", "diagnostic", 15500, 1, 1),
    ("FEC", "Faecal parasite screen", "diagnostic", 3800, 0, 1),
    ("SKN", "Skin scrape and cytology", "diagnostic", 4200, 1, 1),
    ("SPD", "Spay (ovariohysterectomy) - dog", "surgery", 32000, 1, 1),
    ("SPC", "Spay (ovariohysterectomy) - cat", "surgery", 15000, 1, 1),
    ("CSD", "Castration - dog", "surgery", 24000, 1, 1),
    ("CSC", "Castration - cat", "surgery", 9500, 1, 1),
    ("NRB", "Rabbit neutering", "surgery", 14500, 1, 1),
    ("LMP", "Lump removal", "surgery", 28000, 1, 1),
    ("WND", "Wound repair under sedation", "surgery", 18000, 1, 1),
    ("DSP", "Dental scale and polish", "dental", 22000, 1, 1),
    ("EXT", "Tooth extraction, per tooth", "dental", 6500, 1, 1),
    ("NAIL", "Nail clip", "procedure", 1200, 0, 1),
    ("ANL", "Anal gland expression", "procedure", 1800, 0, 1),
    ("CHIP", "Microchip implantation", "procedure", 2500, 0, 1),
    ("EAR", "Ear flush and clean", "procedure", 3500, 0, 1),
    ("FLU", "IV fluid therapy", "procedure", 6000, 1, 1),
    ("BND", "Bandage change", "procedure", 2200, 0, 1),
    ("HOSP", "Hospitalisation, per day", "hospitalisation", 8500, 1, 1),
    ("LAS", "Laser therapy session", "procedure", 4000, 0, 0),
]
TT_SPECIES = {
    "SPD": ("DOG",), "CSD": ("DOG",), "SPC": ("CAT",), "CSC": ("CAT",), "NRB": ("RAB",), "ANL": ("DOG",),
    "DSP": ("DOG", "CAT", "RAB"), "EXT": ("DOG", "CAT", "RAB"),
}
NEUTER = {("DOG", "female"): "SPD", ("DOG", "male"): "CSD", ("CAT", "female"): "SPC", ("CAT", "male"): "CSC",
          ("RAB", "female"): "NRB", ("RAB", "male"): "NRB"}
SURGERY_REASON = {"SPD": "Routine spay", "SPC": "Routine spay", "CSD": "Routine castration",
                  "CSC": "Routine castration", "NRB": "Routine neutering", "LMP": "Lump removal",
                  "WND": "Wound repair"}
DIAG_POOL = ["BLD", "URN", "XRY", "USS", "FEC", "SKN"]
PROC_POOL = ["NAIL", "ANL", "EAR", "FLU", "BND", "CONX", "SOP"]
NURSE_POOL = ["NAIL", "ANL", "EAR", "BND", "URN", "FEC"]
TREAT_COUNTS = {"CONS": {0: 4, 1: 4, 2: 1}, "FUP": {0: 3, 1: 2}, "EMG": {1: 3, 2: 3, 3: 1},
                "SNR": {0: 2, 1: 2, 2: 1}, "PUP": {0: 3, 1: 1}}
RX_COUNTS = {"CONS": {0: 4, 1: 4, 2: 1}, "FUP": {0: 3, 1: 2}, "EMG": {0: 1, 1: 3, 2: 2},
             "SNR": {0: 2, 1: 2, 2: 1}, "DEN": {0: 2, 1: 3}, "SUR": {1: 3, 2: 2}, "PUP": {0: 1, 1: 2}}

# code, name, form, strength, unit price (cents), controlled, active, species, quantities, dosage
MEDICATIONS = [
    ("MET15", "Metacam oral suspension for dogs", "liquid", "1.5 mg/ml", 95, 0, 1, ("DOG",), (10, 32, 100),
     "Give 0.1 ml/kg by mouth once daily with food"),
    ("MET05", "Metacam oral suspension for cats", "liquid", "0.5 mg/ml", 110, 0, 1, ("CAT", "RAB", "GPG"), (3, 15),
     "Give 0.1 ml/kg by mouth once daily with food"),
    ("SYN250", "Synulox palatable tablets", "tablet", "250 mg", 120, 0, 1, ("DOG",), (10, 14, 20),
     "Give one tablet twice daily for 7 days"),
    ("SYN50", "Synulox palatable tablets", "tablet", "50 mg", 65, 0, 1, ("CAT", "DOG"), (10, 14),
     "Give one tablet twice daily for 5 to 7 days"),
    ("APQ16", "Apoquel", "tablet", "16 mg", 210, 0, 1, ("DOG",), (14, 30),
     "Give one tablet twice daily for 14 days, then once daily"),
    ("APQ54", "Apoquel", "tablet", "5.4 mg", 160, 0, 1, ("DOG",), (14, 30),
     "Give one tablet twice daily for 14 days, then once daily"),
    ("BRV", "Bravecto chewable for dogs 10-20 kg", "chewable", "500 mg", 2850, 0, 1, ("DOG",), (1, 2),
     "Give one chew every 12 weeks with food"),
    ("NXS", "NexGard Spectra chewable", "chewable", "15-30 kg", 2200, 0, 1, ("DOG",), (1, 3, 6),
     "Give one chew monthly with food"),
    ("FRT", "Frontline Plus spot-on", "topical", "50 mg pipette", 1150, 0, 1, ("CAT", "FER"), (3, 6),
     "Apply one pipette to the skin at the back of the neck monthly"),
    ("ADV", "Advocate spot-on", "topical", "0.4 ml pipette", 1350, 0, 1, ("DOG", "CAT", "FER", "RAB"), (3, 6),
     "Apply one pipette to the skin at the back of the neck monthly"),
    ("MLB", "Milbemax tablets", "tablet", "12.5 mg/125 mg", 540, 0, 1, ("DOG", "CAT"), (2, 4),
     "Give one tablet every 3 months for worming"),
    ("GAB100", "Gabapentin", "capsule", "100 mg", 45, 1, 1, ("DOG", "CAT"), (30, 60),
     "Give one capsule twice daily"),
    ("TRM50", "Tramadol", "tablet", "50 mg", 60, 1, 1, ("DOG",), (10, 20),
     "Give one tablet every 8 to 12 hours for pain"),
    ("VTG", "Vetergesic (buprenorphine)", "injection", "0.3 mg/ml", 1800, 1, 1, ("DOG", "CAT", "RAB"), (1, 2),
     "Administered in clinic by injection"),
    ("VMD5", "Vetmedin chewable", "chewable", "5 mg", 140, 0, 1, ("DOG",), (50, 100),
     "Give one tablet twice daily, one hour before food"),
    ("THY", "Thyronorm oral solution", "liquid", "5 mg/ml", 150, 0, 1, ("CAT",), (30, 100),
     "Give 0.5 ml by mouth twice daily"),
    ("OTX", "Otomax ear drops", "drops", "14 ml", 1650, 0, 1, ("DOG", "CAT"), (1,),
     "Apply 4 drops into the affected ear twice daily for 7 days"),
    ("OPT", "Optimmune eye ointment", "topical", "0.2%", 2400, 0, 1, ("DOG",), (1,),
     "Apply a 6 mm strip to each eye twice daily"),
    ("PRD5", "Prednicare tablets", "tablet", "5 mg", 30, 0, 1, ("DOG", "CAT"), (14, 28),
     "Give one tablet once daily with food, tapering as directed"),
    ("CER16", "Cerenia tablets", "tablet", "16 mg", 350, 0, 1, ("DOG",), (4,),
     "Give one tablet once daily for up to 4 days"),
    ("BAY", "Baytril oral solution", "liquid", "25 mg/ml", 160, 0, 1, ("RAB", "GPG", "FER"), (10, 20),
     "Give 0.2 ml by mouth twice daily for 7 days"),
    ("EMB", "Emeprid oral solution", "liquid", "1 mg/ml", 90, 0, 1, ("RAB", "GPG"), (10,),
     "Give 0.5 ml/kg by mouth twice daily"),
    ("RIM50", "Rimadyl tablets", "tablet", "50 mg", 85, 0, 0, ("DOG",), (14, 28),
     "Give one tablet twice daily with food"),
]
DISTRACTOR_MEDICATIONS = [
    ("APQ36", "Apoquel", "tablet", "3.6 mg", 140, 0, 1, ("DOG",), (14, 30),
     "Give one tablet twice daily for 14 days, then once daily"),
    ("MET15C", "Metacam oral suspension for dogs", "liquid", "1.5 mg/ml (180 ml)", 85, 0, 1, ("DOG",), (100,),
     "Give 0.1 ml/kg by mouth once daily with food"),
]
CHRONIC = ["VMD5", "THY", "APQ16", "APQ54", "GAB100", "BRV", "NXS", "MLB"]

REASONS = {
    "CONS": ["Limping on front left leg", "Itchy skin and scratching", "Vomiting for two days", "Reduced appetite",
             "Ear infection check", "Lump found on side", "Diarrhoea since the weekend", "Coughing at night",
             "Weight loss", "Eye discharge", "Drinking more than usual", "Sore paw"],
    "FUP": ["Recheck after antibiotics", "Skin condition review", "Blood results discussion", "Ear recheck",
            "Weight check after diet change", "Lameness review"],
    "VAC": ["Annual booster", "Booster vaccination due", "Vaccination and health check", "Restarting vaccinations"],
    "EMG": ["Hit by car", "Ate chocolate", "Collapsed on walk", "Bleeding paw", "Breathing difficulty",
            "Suspected poisoning", "Bloated abdomen", "Seizure at home"],
    "SNR": ["Senior health screen", "Arthritis review", "Annual senior bloods"],
    "DEN": ["Dental scale and polish", "Bad breath and tartar", "Broken tooth", "Sore mouth, dropping food"],
    "NRS": ["Nail clip", "Weight clinic", "Anal gland check", "Bandage change", "Ear clean", "Parasite check"],
    "POP": ["Post-op check", "Stitch removal", "Wound check after surgery"],
    "PUP": ["First health check", "New pet check", "First visit and parasite advice"],
}
NOTES = {
    "CONS": ["Examined; mild inflammation noted, treatment started.", "Examined; bright and alert, owner advised to monitor.",
             "Examined; pain on palpation, diagnostics performed.", "Examined; skin lesions consistent with allergy."],
    "FUP": ["Improving well, continue current plan.", "Partial improvement, medication adjusted.",
            "Resolved, no further follow-up needed."],
    "VAC": ["Healthy on examination; vaccinations given.", "Good body condition; boosters administered.",
            "Healthy; weight stable; boosters up to date."],
    "EMG": ["Stabilised on arrival; admitted for observation.", "Treated and discharged with medication.",
            "Emergency treatment given; owner to call with update."],
    "SNR": ["Mild arthritis; bloods taken.", "Good for age; recheck in six months.", "Heart murmur grade 2 noted."],
    "DEN": ["Procedure uneventful; recovered well from anaesthetic.", "Tartar removed; extractions performed."],
    "SUR": ["Surgery uneventful; discharged same day.", "Surgery completed; kept for post-op monitoring."],
    "NRS": ["Nurse clinic completed.", "Weight recorded; diet advice given.", "Procedure tolerated well."],
    "POP": ["Wound healing well; sutures removed.", "Healing as expected; recheck not required."],
    "PUP": ["Healthy young animal; parasite control discussed.", "Good health; vaccination plan agreed."],
}
CANCEL_REASONS = ["Owner rescheduled", "Pet recovered", "Owner unwell", "Clash with work", "Booked in error",
                  "Moved to another branch", "Vet unavailable"]
VOID_REASONS = ["Raised in error", "Duplicate invoice", "Charged to wrong client", "Fee waived by practice manager"]
RX_CANCEL_REASONS = ["Owner declined medication", "Prescribed in error", "Adverse reaction reported",
                     "Changed to alternative medication"]
REACTION_NOTES = ["Mild lethargy reported for 24 hours", "Small swelling at injection site",
                  "Vomited once after vaccination"]
VOID_VACC_NOTES = ["Entered against the wrong pet - voided", "Duplicate record - voided"]
TREAT_DECLINED = ["Owner declined", "Not required after examination", "Postponed by owner"]
TREAT_NOTES = ["Tolerated well", "Sedation required", "Results sent to owner", "Repeat in four weeks"]


def _hhmm(mins):
    return "%02d:%02d" % (mins // 60, mins % 60)


def _at(day, mins):
    return datetime(day.year, day.month, day.day) + timedelta(minutes=mins)


def _iso(dt):
    return dt.isoformat(timespec="seconds")


def _slug(s):
    return re.sub(r"[^a-z0-9]", "", s.lower())


def _free(busy, start, end):
    for a, b in busy:
        if start < b and a < end:
            return False
    return True


def build(ctx):
    rng = ctx.rng
    fk = ctx.faker
    clock = ctx.clock.replace(microsecond=0)
    today = ctx.today
    T = {name: [] for name in TABLE_ORDER}
    log = []

    def add_log(when, etype, eid, action, staff_id=None, owner_id=None, old=None, new=None, details=None):
        if when > clock:
            when = clock
        log.append({"occurred_at": _iso(when), "staff_id": staff_id, "owner_id": owner_id,
                    "entity_type": etype, "entity_id": eid, "action": action,
                    "old_value": old, "new_value": new, "details": details})

    def moment_on(d, lo_min, hi_min):
        return _at(d, 5 * rng.randint(lo_min // 5, hi_min // 5))

    # ---------------- reference data ----------------
    species_id = {}
    for i, (code, name) in enumerate(SPECIES):
        T["species"].append({"id": i + 1, "code": code, "name": name})
        species_id[code] = i + 1

    atype = {}
    for i, (code, name, dur, fee, vet, active) in enumerate(APPT_TYPES):
        T["appointment_types"].append({"id": i + 1, "code": code, "name": name, "duration_minutes": dur,
                                       "base_fee_cents": fee, "requires_vet": vet, "is_active": active})
        atype[code] = {"id": i + 1, "name": name, "dur": dur, "fee": fee, "role": "vet" if vet else "nurse"}

    vaccines_by_species = {}
    for i, (code, name, sp, maker, interval, price, core, active) in enumerate(VACCINES):
        row = {"id": i + 1, "code": code, "name": name, "species_id": species_id[sp], "manufacturer": maker,
               "booster_interval_days": interval, "price_cents": price, "is_core": core, "is_active": active}
        T["vaccines"].append(row)
        if active:
            vaccines_by_species.setdefault(sp, []).append(row)

    ttype = {}
    for i, (code, name, cat, price, vet, active) in enumerate(TREATMENT_TYPES):
        T["treatment_types"].append({"id": i + 1, "code": code, "name": name, "category": cat,
                                     "price_cents": price, "requires_vet": vet, "is_active": active})
        ttype[code] = {"id": i + 1, "name": name, "price": price, "vet": vet}

    med_list = list(MEDICATIONS) + (list(DISTRACTOR_MEDICATIONS) if ctx.distractors else [])
    meds = []
    for i, m in enumerate(med_list):
        code, name, form, strength, price, controlled, active, sps, qtys, dosage = m
        T["medications"].append({"id": i + 1, "code": code, "name": name, "form": form, "strength": strength,
                                 "unit_price_cents": price, "is_controlled": controlled, "is_active": active})
        meds.append({"id": i + 1, "code": code, "label": name + " " + strength, "price": price,
                     "controlled": controlled, "active": active, "species": sps, "qtys": qtys,
                     "dosage": dosage, "form": form})
    med_by_code = {}
    for m in meds:
        med_by_code[m["code"]] = m

    # ---------------- branches and opening hours ----------------
    town = ctx.pick(TOWNS)
    branch_ids = []
    hours = {}
    for i, (code, name) in enumerate(BRANCHES):
        bid = i + 1
        branch_ids.append(bid)
        T["branches"].append({"id": bid, "code": code, "name": name, "address_line": fk.street_address(),
                              "city": town, "postcode": fk.zipcode(), "phone": fk.phone_number(),
                              "email": _slug(name) + "@" + DOMAIN,
                              "opened_on": (today - timedelta(days=rng.randint(900, 7000))).isoformat(),
                              "is_active": 1})
        open_wk = ctx.pick([480, 480, 510])
        close_wk = ctx.pick([1080, 1110, 1140])
        for wd in range(7):
            if wd < 5:
                span = (open_wk, close_wk)
            elif wd == 5:
                span = (540, ctx.pick([780, 960])) if (i == 0 or ctx.chance(0.5)) else None
            else:
                span = (600, 840) if (i == 0 and ctx.chance(0.4)) else None
            hours[(bid, wd)] = span
            T["branch_hours"].append({"id": len(T["branch_hours"]) + 1, "branch_id": bid, "weekday": wd,
                                      "is_closed": 0 if span else 1,
                                      "opens_at": _hhmm(span[0]) if span else None,
                                      "closes_at": _hhmm(span[1]) if span else None})

    def open_days(b):
        return [wd for wd in range(7) if hours[(b, wd)]]

    # ---------------- staff ----------------
    staff_rows = T["staff"]
    sinfo = {}
    seen_sno, seen_semail, seen_lic = set(), set(), set()
    by_role = {"vet": [], "nurse": [], "receptionist": [], "practice_manager": []}
    desk = {}
    for b in branch_ids:
        desk[b] = []
    manager = {}

    def new_staff(role, b, hired):
        sid = len(staff_rows) + 1
        first, last = fk.first_name(), fk.last_name()
        base = _slug(first) + "." + _slug(last)
        email = ctx.unique(lambda: base + ("" if rng.random() < 0.5 else str(rng.randint(2, 99))) + "@" + DOMAIN,
                           seen_semail)
        lic = None
        if role == "vet":
            lic = ctx.unique(lambda: "VET-%05d" % rng.randint(10000, 99999), seen_lic)
        elif role == "nurse":
            lic = ctx.unique(lambda: "RVN-%05d" % rng.randint(10000, 99999), seen_lic)
        row = {"id": sid, "staff_number": ctx.unique(lambda: "WB%04d" % rng.randint(1000, 9999), seen_sno),
               "first_name": first, "last_name": last, "full_name": first + " " + last, "email": email,
               "phone": fk.phone_number(), "role": role, "license_number": lic, "home_branch_id": b,
               "hired_on": hired.isoformat(), "status": "active", "left_on": None}
        staff_rows.append(row)
        sinfo[sid] = {"role": role, "branch": b, "hired": hired, "left": None, "leave": None, "row": row,
                      "cur_from": hired}
        by_role[role].append(sid)
        if role in ("receptionist", "practice_manager"):
            desk[b].append(sid)
        if role == "practice_manager":
            manager[b] = sid
        return sid

    n_vets, n_nurses = ctx.n(3, 5), ctx.n(2, 4)
    for b in branch_ids:
        new_staff("practice_manager", b, today - timedelta(days=rng.randint(900, 5000)))
        for _ in range(n_vets):
            new_staff("vet", b, today - timedelta(days=rng.randint(450, 5000)))
        for _ in range(n_nurses):
            new_staff("nurse", b, today - timedelta(days=rng.randint(420, 4000)))
        for _ in range(2):
            new_staff("receptionist", b, today - timedelta(days=rng.randint(60, 3000)))

    left_branch = ctx.pick(branch_ids)
    left_vet = ctx.pick([s for s in by_role["vet"] if sinfo[s]["branch"] == left_branch])
    left_on = today - timedelta(days=rng.randint(60, 200))
    sinfo[left_vet]["left"] = left_on
    sinfo[left_vet]["row"]["status"] = "left"
    sinfo[left_vet]["row"]["left_on"] = left_on.isoformat()
    new_vet_hired = left_on + timedelta(days=rng.randint(10, 40))
    new_vet = new_staff("vet", left_branch, new_vet_hired)
    leave_branch = ctx.pick([b for b in branch_ids if b != left_branch])
    leave_sid = ctx.pick([s for s in by_role["vet"] + by_role["nurse"] if sinfo[s]["branch"] == leave_branch])
    leave_start = today - timedelta(days=rng.randint(3, 25))
    sinfo[leave_sid]["leave"] = leave_start
    sinfo[leave_sid]["row"]["status"] = "on_leave"

    add_log(_at(left_on, 17 * 60), "staff", left_vet, "status_changed", staff_id=manager[left_branch],
            old="active", new="left", details="Resigned; last working day")
    add_log(_at(new_vet_hired, 9 * 60), "staff", new_vet, "hired", staff_id=manager[left_branch],
            new="active", details="Joined as replacement vet")
    add_log(_at(leave_start, 8 * 60), "staff", leave_sid, "status_changed", staff_id=manager[leave_branch],
            old="active", new="on_leave", details=ctx.pick(["Parental leave", "Sick leave", "Extended annual leave"]))

    # ---------------- weekly rota ----------------
    assignments = T["staff_branch_assignments"]
    sched = {}

    def add_assignment(sid, b, wd, vfrom, vto, partial=False):
        o, c = hours[(b, wd)]
        s, e = o, c
        if partial and c - o >= 480:
            if ctx.chance(0.5):
                e = o + 360
            else:
                s = c - 360
        assignments.append({"id": len(assignments) + 1, "staff_id": sid, "branch_id": b, "weekday": wd,
                            "start_time": _hhmm(s), "end_time": _hhmm(e), "valid_from": vfrom.isoformat(),
                            "valid_to": vto.isoformat() if vto else None})
        sched.setdefault(sid, []).append((b, wd, s, e, vfrom, vto))

    def add_schedule(sid, home, vfrom, vto):
        days = open_days(home)
        k = min(len(days), 5 if ctx.chance(0.5) else 4)
        for wd in sorted(ctx.sample(days, k)):
            b = home
            if sinfo[sid]["role"] in ("vet", "nurse") and ctx.chance(0.12):
                others = [x for x in branch_ids if x != home and hours[(x, wd)]]
                if others:
                    b = ctx.pick(others)
            add_assignment(sid, b, wd, vfrom, vto, partial=ctx.chance(0.25))

    for sid in sorted(sinfo):
        info = sinfo[sid]
        cur_from = info["hired"]
        if info["left"] is None and (today - info["hired"]).days > 500 and ctx.chance(0.35):
            change = today - timedelta(days=rng.randint(90, 450))
            add_schedule(sid, info["branch"], info["hired"], change - timedelta(days=1))
            cur_from = change
        info["cur_from"] = cur_from
        add_schedule(sid, info["branch"], cur_from, info["left"])

    for role in ("vet", "nurse"):
        for b in branch_ids:
            for wd in open_days(b):
                covered = False
                for s in by_role[role]:
                    if sinfo[s]["row"]["status"] != "active":
                        continue
                    for a in sched.get(s, []):
                        if a[0] == b and a[1] == wd and a[5] is None:
                            covered = True
                if covered:
                    continue
                free_staff = [s for s in by_role[role] if sinfo[s]["row"]["status"] == "active"
                              and not any(a[1] == wd and a[5] is None for a in sched.get(s, []))]
                cands = [s for s in free_staff if sinfo[s]["branch"] == b] or free_staff
                if cands:
                    s = ctx.pick(cands)
                    add_assignment(s, b, wd, sinfo[s]["cur_from"], None)

    def employed(sid, d):
        info = sinfo[sid]
        if d < info["hired"]:
            return False
        if info["left"] is not None and d > info["left"]:
            return False
        if info["leave"] is not None and d >= info["leave"]:
            return False
        return True

    def works(sid, d):
        if not employed(sid, d):
            return None
        for (b, wd, s, e, vf, vt) in sched.get(sid, []):
            if wd == d.weekday() and vf <= d and (vt is None or d <= vt):
                return (b, s, e)
        return None

    def desk_staff(b, d):
        c = [s for s in desk[b] if employed(s, d)]
        return ctx.pick(c) if c else None

    # ---------------- owners ----------------
    owner_rows = T["owners"]
    oinfo = {}
    n_owners = ctx.n(45, 320)
    name_list = [(fk.first_name(), fk.last_name()) for _ in range(n_owners)]
    if ctx.distractors:
        for k in range(3):
            name_list.append(name_list[(k * 7 + 1) % n_owners])
    seen_cn, seen_oe = set(), set()
    for i, (first, last) in enumerate(name_list):
        oid = i + 1
        inactive = (i == 4) or ctx.chance(0.05)
        if inactive:
            reg_days = rng.randint(200, 2600)
        elif ctx.chance(0.12):
            reg_days = rng.randint(15, 120)
        else:
            reg_days = rng.randint(121, 2600)
        reg = moment_on(today - timedelta(days=reg_days), 8 * 60, 18 * 60)
        base = _slug(first) + "." + _slug(last)
        email = ctx.unique(lambda: base + str(rng.randint(1, 999)) + "@" + ctx.pick(EMAIL_DOMAINS), seen_oe)
        b = ctx.weighted({1: 4, 2: 3, 3: 3})
        owner_rows.append({"id": oid, "client_number": ctx.unique(lambda: "CL-%06d" % rng.randint(100000, 999999), seen_cn),
                           "first_name": first, "last_name": last, "full_name": first + " " + last,
                           "email": email, "phone": fk.phone_number(), "address_line": fk.street_address(),
                           "city": town if ctx.chance(0.7) else ctx.pick(NEARBY), "postcode": fk.zipcode(),
                           "preferred_branch_id": b, "marketing_opt_in": 1 if ctx.chance(0.55) else 0,
                           "reminder_channel": ctx.weighted({"email": 6, "sms": 3, "none": 1}),
                           "status": "inactive" if inactive else "active", "registered_at": _iso(reg)})
        oinfo[oid] = {"reg": reg, "branch": b, "inactive": inactive}
        add_log(reg, "owner", oid, "registered", staff_id=desk_staff(b, reg.date()), owner_id=oid,
                details="New client registered")

    # ---------------- pets ----------------
    pet_rows = T["pets"]
    pinfo = {}
    seen_pc, seen_chip = set(), set()
    for o in owner_rows:
        oid = o["id"]
        oi = oinfo[oid]
        n = ctx.weighted({0: 2, 1: 9, 2: 5, 3: 2, 4: 1})
        if oi["inactive"] and n == 0:
            n = 1
        for _ in range(n):
            sp = ctx.weighted(SPECIES_WEIGHTS)
            prof = SPECIES_PROFILE[sp]
            min_age = 400 if oi["inactive"] else 70
            dob = today - timedelta(days=rng.randint(min_age, prof["max_age"]))
            lower = max(oi["reg"].date(), dob + timedelta(days=56))
            upper = today - timedelta(days=60 if oi["inactive"] else 2)
            if lower > upper:
                lower = upper
            span = (upper - lower).days
            reg_date = lower if ctx.chance(0.6) else lower + timedelta(days=rng.randint(0, span))
            preg = moment_on(reg_date, 8 * 60, 17 * 60)
            if preg <= oi["reg"]:
                preg = oi["reg"] + timedelta(minutes=5)
            status = "active"
            end = None
            if oi["inactive"]:
                status = ctx.weighted({"transferred": 2, "deceased": 1})
            elif ctx.chance(0.1):
                status = ctx.pick(["deceased", "transferred"])
            if status != "active":
                last_day = today - timedelta(days=20 if oi["inactive"] else 1)
                room = (last_day - preg.date()).days
                if room < 10:
                    status = "active"
                else:
                    end = preg.date() + timedelta(days=rng.randint(10, room))
            sex = ctx.pick(["male", "female"])
            age_days = (today - dob).days
            neutered = 1 if ctx.chance(0.75 if age_days > 240 else 0.05) else 0
            breed, wlo, whi = ctx.pick(prof["breeds"])
            weight = None
            if not ctx.chance(0.04):
                weight = round(rng.uniform(wlo, whi) * (0.5 if age_days < 180 else 1.0), 1)
            chip = None
            if ctx.chance(0.88 if sp in ("DOG", "CAT", "FER") else 0.25):
                chip = ctx.unique(lambda: "985" + "".join(str(rng.randint(0, 9)) for _ in range(12)), seen_chip)
            allergy = ctx.pick(ALLERGIES) if ctx.chance(0.1) else None
            pid = len(pet_rows) + 1
            row = {"id": pid, "pet_code": ctx.unique(lambda: "PT-%05d" % rng.randint(10000, 99999), seen_pc),
                   "owner_id": oid, "name": ctx.pick(PET_NAMES), "species_id": species_id[sp], "breed": breed,
                   "sex": sex, "is_neutered": neutered, "date_of_birth": dob.isoformat(),
                   "colour": ctx.pick(prof["colours"]), "weight_kg": weight, "microchip_number": chip,
                   "allergies": allergy, "status": status, "registered_at": _iso(preg),
                   "deceased_on": end.isoformat() if status == "deceased" else None}
            pet_rows.append(row)
            pinfo[pid] = {"owner": oid, "species": sp, "sex": sex, "neutered": neutered, "neuter_done": False,
                          "dob": dob, "reg": preg, "end": end, "branch": oi["branch"], "name": row["name"],
                          "allergy": allergy, "chip": chip, "row": row}

    for want in ("deceased", "transferred"):
        if not any(p["status"] == want for p in pet_rows):
            cands = [p for p in pet_rows if p["status"] == "active"
                     and (today - pinfo[p["id"]]["reg"].date()).days >= 40]
            if cands:
                p = ctx.pick(cands)
                pi = pinfo[p["id"]]
                room = (today - timedelta(days=1) - pi["reg"].date()).days
                end = pi["reg"].date() + timedelta(days=rng.randint(10, room))
                p["status"] = want
                pi["end"] = end
                if want == "deceased":
                    p["deceased_on"] = end.isoformat()

    owner_last_end = {}
    for p in pet_rows:
        pi = pinfo[p["id"]]
        if pi["end"] is not None:
            add_log(_at(pi["end"], 10 * 60), "pet", p["id"], "status_changed",
                    staff_id=desk_staff(pi["branch"], pi["end"]), owner_id=pi["owner"], old="active",
                    new=p["status"],
                    details="Owner reported the pet has died" if p["status"] == "deceased"
                    else "Clinical records transferred to another practice")
            prev = owner_last_end.get(pi["owner"])
            if prev is None or pi["end"] > prev:
                owner_last_end[pi["owner"]] = pi["end"]
    for o in owner_rows:
        if o["status"] == "inactive" and o["id"] in owner_last_end:
            d = owner_last_end[o["id"]] + timedelta(days=1)
            add_log(_at(d, 11 * 60), "owner", o["id"], "status_changed", staff_id=manager[o["preferred_branch_id"]],
                    owner_id=o["id"], old="active", new="inactive", details="No active pets remaining")

    # ---------------- vaccination history before the visit window ----------------
    vacc_rows = T["vaccinations"]
    vhist = {}
    seen_cert = set()

    def add_vaccination(pid, vac, aid, b, sid, day, void=False):
        vid = len(vacc_rows) + 1
        reaction = (not void) and ctx.chance(0.04)
        notes = None
        if void:
            notes = ctx.pick(VOID_VACC_NOTES)
        elif reaction:
            notes = ctx.pick(REACTION_NOTES)
        row = {"id": vid, "certificate_number": ctx.unique(lambda: "VC-%06d" % rng.randint(100000, 999999), seen_cert),
               "pet_id": pid, "vaccine_id": vac["id"], "appointment_id": aid, "branch_id": b,
               "administered_by_staff_id": sid, "administered_on": day.isoformat(),
               "batch_number": vac["code"].replace("-", "")[:3] + str(rng.randint(10000, 99999)) + ctx.pick(BATCH_SUFFIX),
               "next_due_on": (day + timedelta(days=vac["booster_interval_days"])).isoformat(),
               "status": "voided" if void else "valid", "reaction_noted": 1 if reaction else 0, "notes": notes}
        vacc_rows.append(row)
        if void:
            add_log(_at(day, 17 * 60), "vaccination", vid, "voided", staff_id=sid, owner_id=pinfo[pid]["owner"],
                    old="valid", new="voided", details=notes)
        else:
            vhist.setdefault((pid, vac["id"]), []).append(row)
        return row

    for p in pet_rows:
        pi = pinfo[p["id"]]
        win_start = max(pi["reg"].date() + timedelta(days=1), today - timedelta(days=365))
        pi["win_start"] = win_start
        first_ok = max(pi["reg"].date() + timedelta(days=1), pi["dob"] + timedelta(days=70),
                       today - timedelta(days=1200))
        last_ok = win_start - timedelta(days=1)
        if pi["end"] is not None and pi["end"] - timedelta(days=1) < last_ok:
            last_ok = pi["end"] - timedelta(days=1)
        if (last_ok - first_ok).days < 1:
            continue
        for vac in vaccines_by_species.get(pi["species"], []):
            if not (vac["is_core"] or ctx.chance(0.3)):
                continue
            if not ctx.chance(0.75):
                continue
            d = first_ok + timedelta(days=rng.randint(0, (last_ok - first_ok).days))
            while True:
                vets = [s for s in by_role["vet"] if sinfo[s]["branch"] == pi["branch"] and employed(s, d)]
                if not vets:
                    break
                add_vaccination(p["id"], vac, None, pi["branch"], ctx.pick(vets), d)
                nxt = d + timedelta(days=vac["booster_interval_days"] + rng.randint(-20, 20))
                if nxt > last_ok or not ctx.chance(0.6):
                    break
                d = nxt

    # ---------------- appointments and everything they cause ----------------
    appt_rows = T["appointments"]
    treat_rows = T["treatments"]
    rx_rows = T["prescriptions"]
    inv_rows = T["invoices"]
    line_rows = T["invoice_lines"]
    pay_rows = T["payments"]
    staff_busy = {}
    pet_busy = {}
    seen_ref, seen_rx, seen_pay = set(), set(), set()

    def pay(inv, amount, when, method, status="completed", refunded_at=None, reason=None):
        b = inv["branch_id"]
        recv = desk_staff(b, when.date()) if method in ("card", "cash") else None
        pid_ = len(pay_rows) + 1
        ref = ctx.unique(lambda: "PAY-" + "".join(ctx.pick(REF_CHARS) for _ in range(8)), seen_pay)
        pay_rows.append({"id": pid_, "payment_reference": ref, "invoice_id": inv["id"], "owner_id": inv["owner_id"],
                         "amount_cents": amount, "method": method, "status": status, "paid_at": _iso(when),
                         "received_by_staff_id": recv,
                         "refunded_at": _iso(refunded_at) if refunded_at else None, "refund_reason": reason})
        add_log(when, "payment", pid_, "recorded", staff_id=recv, owner_id=inv["owner_id"], new=str(amount),
                details=method + " payment for " + inv["invoice_number"])
        if refunded_at:
            add_log(refunded_at, "payment", pid_, "refunded", staff_id=manager[b], owner_id=inv["owner_id"],
                    old="completed", new="refunded", details=reason)

    def make_invoice(owner_id, b, appt_id, created, lines, creator, force_draft=False):
        if not lines:
            return None
        subtotal = sum(q * u for (_, _, q, u, _, _, _) in lines)
        if subtotal <= 0:
            return None
        discount = subtotal * ctx.pick([5, 10, 15]) // 100 if ctx.chance(0.1) else 0
        tax = ((subtotal - discount) * TAX_PCT + 50) // 100
        total = subtotal - discount + tax
        if created > clock:
            created = clock
        iid = len(inv_rows) + 1
        inv = {"id": iid, "invoice_number": "INV-%d-%05d" % (created.year, iid), "owner_id": owner_id,
               "branch_id": b, "appointment_id": appt_id, "created_by_staff_id": creator, "status": "draft",
               "subtotal_cents": subtotal, "discount_cents": discount, "tax_cents": tax, "total_cents": total,
               "amount_paid_cents": 0, "created_at": _iso(created), "issued_at": None, "due_on": None,
               "paid_at": None, "voided_at": None, "void_reason": None}
        inv_rows.append(inv)
        for (lt, desc, q, u, tid, vid, rid) in lines:
            line_rows.append({"id": len(line_rows) + 1, "invoice_id": iid, "line_type": lt, "description": desc,
                              "quantity": q, "unit_price_cents": u, "line_total_cents": q * u,
                              "treatment_id": tid, "vaccination_id": vid, "prescription_id": rid})
        age = (clock - created).days
        if force_draft or (age <= 2 and ctx.chance(0.4)):
            return inv
        issued = min(created + timedelta(minutes=rng.randint(0, 10)), clock)
        inv["status"] = "issued"
        inv["issued_at"] = _iso(issued)
        inv["due_on"] = (issued.date() + timedelta(days=14)).isoformat()
        add_log(issued, "invoice", iid, "issued", staff_id=creator, owner_id=owner_id, old="draft", new="issued",
                details=inv["invoice_number"] + " total " + str(total))
        outcome = ctx.weighted({"now": 66, "later": 11, "partial": 7, "unpaid": 8, "void": 4,
                                "void_refund": 2, "dup": 2})
        if outcome == "partial" and total < 2000:
            outcome = "now"
        if outcome == "dup" and age < 4:
            outcome = "now"
        later_at = None
        if outcome == "later":
            later_at = issued + timedelta(days=rng.randint(1, 25), minutes=rng.randint(0, 480))
            if later_at >= clock:
                outcome = "unpaid"
        if outcome == "now":
            when = min(issued + timedelta(minutes=rng.randint(1, 6)), clock)
            pay(inv, total, when, ctx.weighted({"card": 7, "cash": 2}))
            inv.update(status="paid", amount_paid_cents=total, paid_at=_iso(when))
        elif outcome == "later":
            methods = {"bank_transfer": 3, "card": 2}
            if total >= 20000:
                methods["insurance"] = 3
            pay(inv, total, later_at, ctx.weighted(methods))
            inv.update(status="paid", amount_paid_cents=total, paid_at=_iso(later_at))
        elif outcome == "partial":
            amt = max(100, (total * rng.randint(30, 70) // 100) // 100 * 100)
            when = min(issued + timedelta(minutes=rng.randint(1, 6)), clock)
            pay(inv, amt, when, ctx.weighted({"card": 3, "cash": 1}))
            inv.update(status="partially_paid", amount_paid_cents=amt)
        elif outcome in ("void", "void_refund"):
            voided = min(issued + timedelta(hours=rng.randint(1, 72)), clock)
            reason = ctx.pick(VOID_REASONS)
            if outcome == "void_refund":
                when = min(issued + timedelta(minutes=rng.randint(1, 6)), voided)
                pay(inv, total, when, "card", status="refunded", refunded_at=voided,
                    reason="Invoice voided - full refund")
            inv.update(status="void", voided_at=_iso(voided), void_reason=reason)
            add_log(voided, "invoice", iid, "voided", staff_id=manager[b], owner_id=owner_id, old="issued",
                    new="void", details=reason)
        elif outcome == "dup":
            when = issued + timedelta(minutes=rng.randint(1, 6))
            pay(inv, total, when, "card")
            pay(inv, total, when + timedelta(seconds=40), "card", status="refunded",
                refunded_at=when + timedelta(days=rng.randint(1, 3)), reason="Duplicate card charge")
            inv.update(status="paid", amount_paid_cents=total, paid_at=_iso(when))
        return inv

    def add_prescription(pid, aid, m, vet, when):
        rid = len(rx_rows) + 1
        qty = ctx.pick(m["qtys"])
        refills = 0 if (m["controlled"] or m["form"] == "injection") else ctx.weighted({0: 5, 1: 2, 2: 2, 3: 1})
        expires = when.date() + timedelta(days=28 if m["controlled"] else 180)
        age = (today - when.date()).days
        used = 0
        cancelled_at = None
        creason = None
        if ctx.chance(0.06):
            status = "cancelled"
            cancelled_at = min(when + timedelta(minutes=rng.randint(1, 10)), clock)
            creason = ctx.pick(RX_CANCEL_REASONS)
        else:
            used = rng.randint(0, min(refills, age // 30))
            if expires < today:
                status = "completed" if used >= refills else "expired"
            else:
                status = "active" if (used < refills or age < 14) else "completed"
            if status == "active" and pinfo[pid]["end"] is not None:
                status = "completed"
        row = {"id": rid, "prescription_number": ctx.unique(lambda: "RX-%06d" % rng.randint(100000, 999999), seen_rx),
               "pet_id": pid, "appointment_id": aid, "medication_id": m["id"], "prescribed_by_staff_id": vet,
               "prescribed_at": _iso(when), "dosage_instructions": m["dosage"], "quantity": qty,
               "unit_price_cents": m["price"], "refills_allowed": refills, "refills_used": used,
               "status": status, "expires_on": expires.isoformat(),
               "cancelled_at": _iso(cancelled_at) if cancelled_at else None, "cancellation_reason": creason}
        rx_rows.append(row)
        owner = pinfo[pid]["owner"]
        add_log(when, "prescription", rid, "issued", staff_id=vet, owner_id=owner, new="active",
                details=m["label"] + " x" + str(qty) + " for " + pinfo[pid]["name"])
        if cancelled_at:
            add_log(cancelled_at, "prescription", rid, "cancelled", staff_id=vet, owner_id=owner, old="active",
                    new="cancelled", details=creason)
        return row

    def choose_type(pi, d, future):
        sp = pi["species"]
        age = (d - pi["dob"]).days
        w = dict(TYPE_WEIGHTS)
        if not (age <= 240 and sp in ("DOG", "CAT", "RAB")):
            w.pop("PUP")
        if not (age >= 7 * 365 and sp in ("DOG", "CAT")):
            w.pop("SNR")
        if sp not in vaccines_by_species:
            w.pop("VAC")
        if sp not in ("DOG", "CAT", "RAB"):
            w.pop("DEN")
        if future:
            w.pop("EMG")
            w["SUR"] = w["SUR"] * 2
            if "DEN" in w:
                w["DEN"] = w["DEN"] * 2
        return ctx.weighted(w)

    def choose_treatments(tcode, pi, status):
        sp = pi["species"]

        def ok(c):
            lim = TT_SPECIES.get(c)
            return lim is None or sp in lim

        specs = []
        if tcode in ("CONS", "FUP", "EMG", "SNR", "PUP"):
            if tcode == "SNR" and ctx.chance(0.8):
                specs.append(("BLD", 1))
            if tcode == "PUP" and pi["chip"] is not None and ctx.chance(0.5):
                specs.append(("CHIP", 1))
            k = ctx.weighted(TREAT_COUNTS[tcode])
            pool = [c for c in DIAG_POOL + PROC_POOL if ok(c)]
            if k > 0 and pool:
                for c in ctx.sample(pool, min(k, len(pool))):
                    if all(c != s[0] for s in specs):
                        specs.append((c, 1))
            if tcode == "EMG" and ctx.chance(0.35):
                specs.append(("HOSP", rng.randint(1, 3)))
        elif tcode == "DEN":
            specs.append(("DSP", 1))
            if ctx.chance(0.55):
                specs.append(("EXT", rng.randint(1, 4)))
            if ctx.chance(0.4):
                specs.append(("BLD", 1))
        elif tcode == "SUR":
            neuter = NEUTER.get((sp, pi["sex"]))
            use_neuter = False
            if neuter:
                if status == "completed":
                    use_neuter = pi["neutered"] == 1 and not pi["neuter_done"] and ctx.chance(0.7)
                else:
                    use_neuter = pi["neutered"] == 0 and ctx.chance(0.6)
            if use_neuter:
                specs.append((neuter, 1))
                if status == "completed":
                    pi["neuter_done"] = True
            else:
                specs.append((ctx.pick(["LMP", "WND"]), 1))
            if ctx.chance(0.4):
                specs.append(("HOSP", 1))
            if ctx.chance(0.3):
                specs.append(("FLU", 1))
        elif tcode == "NRS":
            pool = [c for c in NURSE_POOL if ok(c)]
            for c in ctx.sample(pool, min(ctx.weighted({1: 3, 2: 1}), len(pool))):
                specs.append((c, 1))
        elif tcode == "POP":
            if ctx.chance(0.5):
                specs.append(("BND", 1))
        elif tcode == "VAC":
            if ctx.chance(0.15):
                specs.append(("NAIL", 1))
        return specs

    def find_slot(pid, day, tcode, b, earliest=None, latest_start=None, latest_end=None):
        role = atype[tcode]["role"]
        dur_min = atype[tcode]["dur"]
        shifts = []
        for sid in by_role[role]:
            w = works(sid, day)
            if w and w[0] == b:
                shifts.append((sid, w[1], w[2]))
        rng.shuffle(shifts)
        pbusy = pet_busy.get((pid, day), [])
        for sid, s_min, e_min in shifts:
            starts = []
            for m in range(s_min, e_min - dur_min + 1, 15):
                st = _at(day, m)
                en = st + timedelta(minutes=dur_min)
                if earliest is not None and st < earliest:
                    continue
                if latest_start is not None and st > latest_start:
                    continue
                if latest_end is not None and en > latest_end:
                    continue
                starts.append((st, en))
            rng.shuffle(starts)
            sbusy = staff_busy.get((sid, day), [])
            for st, en in starts[:16]:
                if _free(sbusy, st, en) and _free(pbusy, st, en):
                    return sid, st, en
        return None

    def create_appointment(pid, tcode, b, sid, st, en, status):
        pi = pinfo[pid]
        oid = pi["owner"]
        at = atype[tcode]
        past = st < clock
        vias = {"phone": 5, "online": 4, "front_desk": 2}
        if past and tcode in ("CONS", "NRS", "FUP"):
            vias["walk_in"] = 1
        via = ctx.weighted(vias)
        if tcode == "EMG" and past and ctx.chance(0.5):
            via = "walk_in"
        if via == "walk_in":
            created = st - timedelta(minutes=rng.randint(5, 45))
        elif tcode == "EMG":
            created = st - timedelta(minutes=rng.randint(30, 180))
        else:
            lead = rng.randint(7, 45) if tcode in ("SUR", "DEN") else rng.randint(1, 30)
            created = moment_on(st.date() - timedelta(days=lead), 7 * 60, (21 if via == "online" else 18) * 60)
        if created >= clock:
            created = clock - timedelta(minutes=rng.randint(5, 300))
        if created <= pi["reg"]:
            created = pi["reg"] + timedelta(minutes=rng.randint(1, 30))
        booked_by = None
        if via != "online":
            booked_by = desk_staff(b, created.date())
            if booked_by is None:
                via = "online"
        if status is None:
            if not past:
                status = ctx.weighted({"booked": 86, "cancelled": 14})
            elif st.date() == today:
                status = "checked_in" if en > clock else ctx.weighted({"completed": 2, "checked_in": 1})
            else:
                status = ctx.weighted({"completed": 84, "cancelled": 10, "no_show": 6})
            if via == "walk_in" and status in ("cancelled", "no_show"):
                status = "completed"
        aid = len(appt_rows) + 1
        ref = ctx.unique(lambda: "APT-%06d" % rng.randint(100000, 999999), seen_ref)
        checked_in_at = completed_at = cancelled_at = None
        cancelled_by = None
        cancel_reason = None
        if status in ("checked_in", "completed"):
            checked_in_at = max(created, st - timedelta(minutes=rng.randint(0, 12)))
        if status == "completed":
            completed_at = min(en + timedelta(minutes=rng.randint(0, 15)), clock)
        if status == "cancelled":
            limit = min(st, clock)
            gap = (limit - created).total_seconds()
            cancelled_at = created + timedelta(seconds=int(gap * rng.uniform(0.2, 0.95)))
            if ctx.chance(0.6):
                cancelled_by = desk_staff(b, cancelled_at.date())
            cancel_reason = ctx.pick(CANCEL_REASONS)
        specs = choose_treatments(tcode, pi, status)
        if tcode == "SUR":
            reason = SURGERY_REASON.get(specs[0][0], "Surgical procedure") if specs else "Surgical procedure"
        else:
            reason = ctx.pick(REASONS[tcode])
        notes = ctx.pick(NOTES[tcode]) if status == "completed" else None
        appt_rows.append({"id": aid, "reference": ref, "owner_id": oid, "pet_id": pid, "branch_id": b,
                          "staff_id": sid, "appointment_type_id": at["id"], "scheduled_start": _iso(st),
                          "scheduled_end": _iso(en), "status": status, "reason": reason, "booked_via": via,
                          "booked_by_staff_id": booked_by, "created_at": _iso(created),
                          "checked_in_at": _iso(checked_in_at) if checked_in_at else None,
                          "completed_at": _iso(completed_at) if completed_at else None,
                          "cancelled_at": _iso(cancelled_at) if cancelled_at else None,
                          "cancelled_by_staff_id": cancelled_by, "cancellation_reason": cancel_reason,
                          "clinical_notes": notes})
        staff_busy.setdefault((sid, st.date()), []).append((st, en))
        pet_busy.setdefault((pid, st.date()), []).append((st, en))

        add_log(created, "appointment", aid, "booked", staff_id=booked_by, owner_id=oid, new=_iso(st),
                details=at["name"] + " for " + pi["name"] + " (" + ref + ")")
        if status == "booked" and ctx.chance(0.1):
            old_start = st + timedelta(days=ctx.pick([-7, -3, -2, 2, 3, 7]))
            when = created + timedelta(seconds=int((clock - created).total_seconds() * rng.uniform(0.2, 0.9)))
            add_log(when, "appointment", aid, "rescheduled", staff_id=desk_staff(b, when.date()), owner_id=oid,
                    old=_iso(old_start), new=_iso(st), details="Moved at owner's request")
        if status == "checked_in":
            add_log(checked_in_at, "appointment", aid, "checked_in", staff_id=desk_staff(b, st.date()),
                    owner_id=oid, old="booked", new="checked_in")
        elif status == "completed":
            add_log(completed_at, "appointment", aid, "completed", staff_id=sid, owner_id=oid, old="checked_in",
                    new="completed")
        elif status == "cancelled":
            add_log(cancelled_at, "appointment", aid, "cancelled", staff_id=cancelled_by, owner_id=oid,
                    old="booked", new="cancelled", details=cancel_reason)
        elif status == "no_show":
            add_log(en + timedelta(minutes=15), "appointment", aid, "no_show", staff_id=desk_staff(b, st.date()),
                    owner_id=oid, old="booked", new="no_show")

        lines = []
        if status == "completed" and at["fee"] > 0:
            lines.append(("consultation", at["name"], 1, at["fee"], None, None, None))
        make_t = (status == "completed" or (status == "checked_in" and ctx.chance(0.6))
                  or (status in ("booked", "cancelled") and tcode in ("SUR", "DEN")))
        if make_t:
            for code, q in specs:
                tt = ttype[code]
                if tt["vet"] == 1 and sinfo[sid]["role"] != "vet":
                    continue
                performer = sid
                if tt["vet"] == 0 and sinfo[sid]["role"] == "vet" and ctx.chance(0.5):
                    nurses = []
                    for n_id in by_role["nurse"]:
                        w = works(n_id, st.date())
                        if w and w[0] == b:
                            nurses.append(n_id)
                    if nurses:
                        performer = ctx.pick(nurses)
                tid = len(treat_rows) + 1
                row = {"id": tid, "appointment_id": aid, "pet_id": pid, "treatment_type_id": tt["id"],
                       "performed_by_staff_id": performer, "status": "planned", "quantity": q,
                       "unit_price_cents": tt["price"], "recorded_at": _iso(created), "performed_at": None,
                       "notes": None}
                if status == "completed":
                    rec = st + timedelta(minutes=rng.randint(1, max(1, at["dur"] - 2)))
                    if ctx.chance(0.05):
                        row.update(status="cancelled", recorded_at=_iso(rec), notes=ctx.pick(TREAT_DECLINED))
                    else:
                        perf = min(rec + timedelta(minutes=rng.randint(0, 5)), en, clock)
                        row.update(status="performed", recorded_at=_iso(rec), performed_at=_iso(perf),
                                   notes=ctx.pick(TREAT_NOTES) if ctx.chance(0.3) else None)
                        lines.append(("treatment", tt["name"], q, tt["price"], tid, None, None))
                elif status == "checked_in":
                    row["recorded_at"] = _iso(min(checked_in_at + timedelta(minutes=rng.randint(1, 10)), clock))
                elif status == "cancelled":
                    row.update(status="cancelled", notes="Appointment cancelled")
                treat_rows.append(row)

        if status == "completed" and (tcode == "VAC" or (tcode == "PUP" and ctx.chance(0.7))):
            for vac in vaccines_by_species.get(pi["species"], []):
                if not vac["is_core"] and not ctx.chance(0.35):
                    continue
                hist = vhist.get((pid, vac["id"]), [])
                if hist and date.fromisoformat(hist[-1]["next_due_on"]) > st.date() + timedelta(days=45):
                    continue
                void = ctx.chance(0.03)
                v = add_vaccination(pid, vac, aid, b, sid, st.date(), void)
                if not void:
                    lines.append(("vaccination", vac["name"], 1, vac["price_cents"], None, v["id"], None))

        if status == "completed" and tcode in RX_COUNTS and sinfo[sid]["role"] == "vet":
            k = ctx.weighted(RX_COUNTS[tcode])
            pool = [m for m in meds if m["active"] and pi["species"] in m["species"]
                    and not (pi["allergy"] == "Penicillin" and m["code"].startswith("SYN"))]
            if k > 0 and pool:
                for m in ctx.sample(pool, min(k, len(pool))):
                    when = max(st, en - timedelta(minutes=rng.randint(1, 8)))
                    pr = add_prescription(pid, aid, m, sid, min(when, clock))
                    if pr["status"] != "cancelled":
                        lines.append(("prescription", m["label"], pr["quantity"], pr["unit_price_cents"],
                                      None, None, pr["id"]))

        if status == "completed" and lines:
            creator = desk_staff(b, completed_at.date()) or sid
            make_invoice(oid, b, aid, completed_at + timedelta(minutes=rng.randint(1, 15)), lines, creator,
                         force_draft=(st.date() == today))
        if status == "no_show" and ctx.chance(0.4):
            when = _at(st.date() + timedelta(days=1), 10 * 60)
            if when < clock:
                make_invoice(oid, b, aid, when, [("other", "Missed appointment fee", 1, 2500, None, None, None)],
                             manager[b])
        return {"id": aid, "status": status, "st": st, "en": en, "b": b, "tcode": tcode}

    def book(pid, day, tcode, status=None, b=None, earliest=None, latest_start=None, latest_end=None):
        pi = pinfo[pid]
        if b is None:
            b = pi["branch"] if ctx.chance(0.8) else ctx.pick(branch_ids)
        slot = find_slot(pid, day, tcode, b, earliest, latest_start, latest_end)
        if slot is None and b != pi["branch"]:
            b = pi["branch"]
            slot = find_slot(pid, day, tcode, b, earliest, latest_start, latest_end)
        if slot is None:
            return None
        sid, st, en = slot
        return create_appointment(pid, tcode, b, sid, st, en, status)

    def allowed(pid, d):
        end = pinfo[pid]["end"]
        if end is None:
            return d <= today + timedelta(days=40)
        return d < end

    same_day = 0
    for p in pet_rows:
        pid = p["id"]
        pi = pinfo[pid]
        ws = pi["win_start"]
        last_past = (pi["end"] - timedelta(days=1)) if pi["end"] is not None else today - timedelta(days=1)
        plan = []
        if last_past >= ws:
            span = (last_past - ws).days
            for _ in range(ctx.weighted({0: 2, 1: 3, 2: 3, 3: 2, 4: 2, 5: 1, 7: 1})):
                plan.append(ws + timedelta(days=rng.randint(0, span)))
        if pi["end"] is None:
            for _ in range(ctx.weighted({0: 6, 1: 3, 2: 1})):
                plan.append(today + timedelta(days=rng.randint(1, 35)))
        plan.sort()
        for d in plan:
            future = d > today
            tcode = choose_type(pi, d, future)
            res = None
            for shift in (0, 1, -1, 2, -2, 3):
                d2 = d + timedelta(days=shift)
                if future and d2 <= today:
                    continue
                if not future and (d2 < ws or d2 > last_past):
                    continue
                res = book(pid, d2, tcode)
                if res:
                    break
            if not res:
                continue
            if res["tcode"] == "SUR" and res["status"] == "completed" and ctx.chance(0.7):
                base_day = res["st"].date() + timedelta(days=rng.randint(7, 12))
                for shift in range(3):
                    d3 = base_day + timedelta(days=shift)
                    if not allowed(pid, d3):
                        break
                    if book(pid, d3, "POP", b=res["b"]):
                        break
            if (ctx.distractors and same_day < 4 and res["status"] == "completed"
                    and res["st"].date() < today and ctx.chance(0.12)):
                r2 = book(pid, res["st"].date(), ctx.pick(["FUP", "NRS"]), b=res["b"],
                          earliest=res["en"] + timedelta(minutes=60))
                if r2:
                    same_day += 1

    # today's clinic: visits finished, patients in the building, and bookings later today
    live = [p["id"] for p in pet_rows if pinfo[p["id"]]["end"] is None]
    for b in branch_ids:
        span = hours[(b, today.weekday())]
        if not span or not live:
            continue
        for want in ("completed", "completed", "checked_in", "checked_in", "booked", "booked", "booked"):
            for _ in range(8):
                pid = ctx.pick(live)
                if want == "completed":
                    res = book(pid, today, ctx.pick(["CONS", "FUP", "NRS"]), status="completed", b=b,
                               latest_end=clock)
                elif want == "checked_in":
                    res = book(pid, today, ctx.pick(["CONS", "FUP", "NRS"]), status="checked_in", b=b,
                               earliest=clock - timedelta(minutes=45), latest_start=clock - timedelta(minutes=5))
                else:
                    res = book(pid, today, choose_type(pinfo[pid], today, True), status="booked", b=b,
                               earliest=clock + timedelta(minutes=15))
                if res:
                    break

    # repeat prescriptions for long-term medication, billed without a visit
    for p in pet_rows:
        pi = pinfo[p["id"]]
        if pi["end"] is not None or pi["species"] not in ("DOG", "CAT"):
            continue
        if not ctx.chance(0.15):
            continue
        pool = [med_by_code[c] for c in CHRONIC if c in med_by_code and pi["species"] in med_by_code[c]["species"]]
        if not pool:
            continue
        m = ctx.pick(pool)
        for _ in range(ctx.weighted({1: 3, 2: 2})):
            lo = max(pi["win_start"], today - timedelta(days=200))
            if lo >= today:
                break
            d = lo + timedelta(days=rng.randint(0, (today - lo).days - 1))
            b = pi["branch"]
            vets = [s for s in by_role["vet"] if sinfo[s]["branch"] == b and employed(s, d)]
            if not vets:
                continue
            vet = ctx.pick(vets)
            when = moment_on(d, 9 * 60, 17 * 60)
            pr = add_prescription(p["id"], None, m, vet, when)
            if pr["status"] != "cancelled":
                make_invoice(pi["owner"], b, None, when + timedelta(minutes=rng.randint(10, 90)),
                             [("prescription", "Repeat prescription: " + m["label"], pr["quantity"],
                               pr["unit_price_cents"], None, None, pr["id"])],
                             desk_staff(b, d) or vet)

    # ---------------- vaccination statuses ----------------
    if not any(v["status"] == "voided" for v in vacc_rows):
        hist_rows = [v for v in vacc_rows if v["appointment_id"] is None]
        if hist_rows:
            v = ctx.pick(hist_rows)
            v["status"] = "voided"
            v["reaction_noted"] = 0
            v["notes"] = ctx.pick(VOID_VACC_NOTES)
            key = (v["pet_id"], v["vaccine_id"])
            vhist[key] = [r for r in vhist.get(key, []) if r["id"] != v["id"]]
            add_log(_at(date.fromisoformat(v["administered_on"]), 17 * 60), "vaccination", v["id"], "voided",
                    staff_id=v["administered_by_staff_id"], owner_id=pinfo[v["pet_id"]]["owner"],
                    old="valid", new="voided", details=v["notes"])
    for key in list(vhist.keys()):
        rows = sorted(vhist[key], key=lambda r: (r["administered_on"], r["id"]))
        for r in rows[:-1]:
            r["status"] = "superseded"

    # ---------------- activity log ----------------
    log.sort(key=lambda r: r["occurred_at"])
    out_log = []
    for i, r in enumerate(log):
        row = {"id": i + 1}
        row.update(r)
        out_log.append(row)
    T["activity_log"] = out_log
    return T
