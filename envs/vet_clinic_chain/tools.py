from datetime import date, datetime, timedelta
from typing import Literal

from awm.tooling import Db, ToolError, check_limit, like_contains, tool

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
TAX_PCT = 8
PAYMENT_TERMS_DAYS = 14
SLOT_STEP_MINUTES = 15
DUE_SOON_DAYS = 30
FRONT_DESK = ("receptionist", "practice_manager")
CLINICAL = ("vet", "nurse")


# ---------------------------------------------------------------- helpers

def _text(value, name: str, required: bool = True):
    if value is None:
        if required:
            raise ToolError(f"{name} is required")
        return None
    if not isinstance(value, str):
        raise ToolError(f"{name} must be text")
    v = value.strip()
    if not v:
        if required:
            raise ToolError(f"{name} must not be empty")
        return None
    return v


def _iso(dt) -> str:
    return dt.isoformat(timespec="seconds")


def _parse_datetime(value, name: str) -> datetime:
    v = _text(value, name)
    try:
        dt = datetime.fromisoformat(v)
    except ValueError:
        raise ToolError(f"{name} must be an ISO date-time such as 2026-03-05T10:30:00, got {value!r}")
    return dt.replace(tzinfo=None, microsecond=0)


def _parse_date(value, name: str) -> date:
    v = _text(value, name)
    try:
        return date.fromisoformat(v)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(v).date()
    except ValueError:
        raise ToolError(f"{name} must be an ISO date such as 2026-03-05, got {value!r}")


def _opt_date(value, name: str):
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _parse_date(value, name)


def _day_bounds(date_from, date_to):
    """ISO text bounds [from, to+1 day) for comparing with ISO timestamps."""
    d1 = _opt_date(date_from, "date_from")
    d2 = _opt_date(date_to, "date_to")
    if d1 is not None and d2 is not None and d2 < d1:
        raise ToolError("date_to is before date_from; swap them")
    lo = d1.isoformat() if d1 is not None else None
    hi = (d2 + timedelta(days=1)).isoformat() if d2 is not None else None
    return lo, hi


def _minutes(hhmm: str) -> int:
    return int(hhmm[0:2]) * 60 + int(hhmm[3:5])


def _hhmm(mins: int) -> str:
    return "%02d:%02d" % (mins // 60, mins % 60)


def _money(cents) -> str:
    cents = int(cents or 0)
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return "%s$%d.%02d" % (sign, cents // 100, cents % 100)


def _staff(db: Db, email, name: str = "staff_email") -> dict:
    e = _text(email, name).lower()
    row = db.one(
        "SELECT s.id, s.staff_number, s.full_name, s.email, s.role, s.status, s.home_branch_id, "
        "b.name AS home_branch FROM staff s JOIN branches b ON b.id = s.home_branch_id WHERE LOWER(s.email) = ?",
        (e,),
    )
    if row is None:
        raise ToolError(f"no staff member with email {e!r}; use list_staff to look colleagues up")
    if row["status"] != "active":
        raise ToolError(f"{row['full_name']} is {row['status']} and cannot make changes in the system")
    return row


def _find_staff(db: Db, ref, name: str) -> dict:
    r = _text(ref, name)
    row = db.one(
        "SELECT s.id, s.staff_number, s.full_name, s.email, s.role, s.status, s.home_branch_id, "
        "b.name AS home_branch FROM staff s JOIN branches b ON b.id = s.home_branch_id "
        "WHERE UPPER(s.staff_number) = UPPER(?) OR LOWER(s.email) = LOWER(?)",
        (r, r),
    )
    if row is None:
        raise ToolError(f"no staff member with staff number or email {r!r}; use list_staff")
    return row


def _owner(db: Db, email, name: str = "owner_email") -> dict:
    e = _text(email, name).lower()
    row = db.one(
        "SELECT o.id, o.client_number, o.full_name, o.email, o.phone, o.status, o.preferred_branch_id, "
        "o.reminder_channel, o.marketing_opt_in, o.address_line, o.city, o.postcode "
        "FROM owners o WHERE LOWER(o.email) = ?",
        (e,),
    )
    if row is None:
        raise ToolError(f"no pet owner with email {e!r}; use search_owners to find the client")
    return row


def _branch(db: Db, ref, name: str = "branch_code") -> dict:
    r = _text(ref, name)
    row = db.one(
        "SELECT id, code, name, phone, email FROM branches WHERE UPPER(code) = UPPER(?) OR LOWER(name) = LOWER(?)",
        (r, r),
    )
    if row is None:
        raise ToolError(f"no branch {r!r}; branches are RIV (Riverside), NTH (Northgate) and OLD (Old Town), see list_branches")
    return row


def _opt_branch_id(db: Db, ref):
    if ref is None or (isinstance(ref, str) and not ref.strip()):
        return None
    return _branch(db, ref)["id"]


def _pet(db: Db, code, name: str = "pet_code") -> dict:
    c = _text(code, name).upper()
    row = db.one(
        "SELECT p.id, p.pet_code, p.name, p.owner_id, p.species_id, sp.code AS species_code, sp.name AS species, "
        "p.breed, p.sex, p.is_neutered, p.date_of_birth, p.colour, p.weight_kg, p.microchip_number, p.allergies, "
        "p.status, p.registered_at, p.deceased_on, o.full_name AS owner_name, o.email AS owner_email, "
        "o.status AS owner_status FROM pets p JOIN species sp ON sp.id = p.species_id "
        "JOIN owners o ON o.id = p.owner_id WHERE UPPER(p.pet_code) = ?",
        (c,),
    )
    if row is None:
        raise ToolError(f"no pet with code {c!r}; use search_pets to find the pet code (e.g. PT-12345)")
    return row


def _appointment(db: Db, reference, name: str = "reference") -> dict:
    r = _text(reference, name).upper()
    row = db.one(
        "SELECT a.id, a.reference, a.owner_id, a.pet_id, a.branch_id, a.staff_id, a.appointment_type_id, "
        "a.scheduled_start, a.scheduled_end, a.status, a.reason, a.booked_via, a.created_at, a.checked_in_at, "
        "a.completed_at, a.cancelled_at, a.cancellation_reason, a.clinical_notes, "
        "b.name AS branch, b.code AS branch_code, t.code AS type_code, t.name AS type_name, "
        "t.base_fee_cents, t.duration_minutes, t.requires_vet, p.name AS pet_name, p.pet_code, "
        "o.full_name AS owner_name, o.email AS owner_email, s.full_name AS clinician, s.staff_number AS clinician_number "
        "FROM appointments a JOIN branches b ON b.id = a.branch_id JOIN appointment_types t ON t.id = a.appointment_type_id "
        "JOIN pets p ON p.id = a.pet_id JOIN owners o ON o.id = a.owner_id JOIN staff s ON s.id = a.staff_id "
        "WHERE UPPER(a.reference) = ?",
        (r,),
    )
    if row is None:
        raise ToolError(f"no appointment with reference {r!r}; use list_appointments to find it (e.g. APT-123456)")
    return row


def _invoice(db: Db, number, name: str = "invoice_number") -> dict:
    n = _text(number, name).upper()
    row = db.one(
        "SELECT i.id, i.invoice_number, i.owner_id, i.branch_id, i.appointment_id, i.status, i.subtotal_cents, "
        "i.discount_cents, i.tax_cents, i.total_cents, i.amount_paid_cents, i.created_at, i.issued_at, i.due_on, "
        "i.paid_at, i.voided_at, i.void_reason, b.name AS branch, o.full_name AS owner_name, o.email AS owner_email, "
        "a.reference AS appointment_reference, cs.full_name AS created_by "
        "FROM invoices i JOIN branches b ON b.id = i.branch_id JOIN owners o ON o.id = i.owner_id "
        "LEFT JOIN appointments a ON a.id = i.appointment_id JOIN staff cs ON cs.id = i.created_by_staff_id "
        "WHERE UPPER(i.invoice_number) = ?",
        (n,),
    )
    if row is None:
        raise ToolError(f"no invoice {n!r}; use list_invoices to find the number (e.g. INV-2026-00123)")
    return row


def _works_at(db: Db, staff: dict, branch_id: int) -> bool:
    if staff["home_branch_id"] == branch_id:
        return True
    today = db.today().isoformat()
    n = db.value(
        "SELECT COUNT(*) FROM staff_branch_assignments WHERE staff_id = ? AND branch_id = ? "
        "AND valid_from <= ? AND (valid_to IS NULL OR valid_to >= ?)",
        (staff["id"], branch_id, today, today),
    )
    return bool(n)


def _require_branch(db: Db, staff: dict, branch_id: int, branch_name: str) -> None:
    if not _works_at(db, staff, branch_id):
        raise ToolError(
            f"{staff['full_name']} does not work at the {branch_name} branch; a colleague rostered at {branch_name} must do this"
        )


def _require_role(staff: dict, roles, action: str) -> None:
    if staff["role"] not in roles:
        raise ToolError(f"{staff['full_name']} is a {staff['role']}; only {' or '.join(roles)} staff can {action}")


def _log(db: Db, etype: str, eid: int, action: str, staff_id=None, owner_id=None, old=None, new=None, details=None):
    db.insert("activity_log", {
        "occurred_at": _iso(db.now()), "staff_id": staff_id, "owner_id": owner_id, "entity_type": etype,
        "entity_id": eid, "action": action, "old_value": old, "new_value": new, "details": details,
    })


def _appointment_type(db: Db, code) -> dict:
    c = _text(code, "appointment_type_code").upper()
    row = db.one(
        "SELECT id, code, name, duration_minutes, base_fee_cents, requires_vet, is_active FROM appointment_types "
        "WHERE UPPER(code) = ?",
        (c,),
    )
    if row is None:
        raise ToolError(f"no appointment type {c!r}; use list_appointment_types (e.g. CONS, VAC, NRS)")
    if not row["is_active"]:
        raise ToolError(f"appointment type {row['name']} is no longer offered; choose another with list_appointment_types")
    return row


def _check_slot(db: Db, branch: dict, atype: dict, clinician: dict, pet_id: int, start: datetime, exclude_id: int = 0):
    """Raise ToolError unless the slot is bookable; returns the end time."""
    end = start + timedelta(minutes=atype["duration_minutes"])
    if start <= db.now():
        raise ToolError(f"{_iso(start)} is not in the future; choose a later time")
    wd = start.weekday()
    hrs = db.one(
        "SELECT is_closed, opens_at, closes_at FROM branch_hours WHERE branch_id = ? AND weekday = ?",
        (branch["id"], wd),
    )
    if hrs is None or hrs["is_closed"]:
        raise ToolError(f"the {branch['name']} branch is closed on {WEEKDAYS[wd]}s; see list_branches for opening hours")
    s_txt, e_txt = start.strftime("%H:%M"), end.strftime("%H:%M")
    if end.date() != start.date() or s_txt < hrs["opens_at"] or e_txt > hrs["closes_at"]:
        raise ToolError(
            f"{branch['name']} is open {hrs['opens_at']}-{hrs['closes_at']} on {WEEKDAYS[wd]}s; a "
            f"{atype['duration_minutes']}-minute {atype['name']} from {s_txt} to {e_txt} does not fit"
        )
    roles = ("vet",) if atype["requires_vet"] else ("nurse", "vet")
    if clinician["role"] not in roles:
        raise ToolError(f"{atype['name']} needs a {' or '.join(roles)}; {clinician['full_name']} is a {clinician['role']}")
    if clinician["status"] != "active":
        raise ToolError(f"{clinician['full_name']} is {clinician['status']} and cannot take appointments")
    day = start.date().isoformat()
    shift = db.one(
        "SELECT start_time, end_time FROM staff_branch_assignments WHERE staff_id = ? AND branch_id = ? AND weekday = ? "
        "AND valid_from <= ? AND (valid_to IS NULL OR valid_to >= ?)",
        (clinician["id"], branch["id"], wd, day, day),
    )
    if shift is None:
        raise ToolError(
            f"{clinician['full_name']} is not rostered at {branch['name']} on {WEEKDAYS[wd]}s; use find_available_slots"
        )
    if s_txt < shift["start_time"] or e_txt > shift["end_time"]:
        raise ToolError(
            f"{clinician['full_name']} works {shift['start_time']}-{shift['end_time']} at {branch['name']} on "
            f"{WEEKDAYS[wd]}s; {s_txt}-{e_txt} is outside that shift"
        )
    clash = db.one(
        "SELECT reference, scheduled_start, scheduled_end FROM appointments WHERE staff_id = ? AND id <> ? "
        "AND status IN ('booked', 'checked_in', 'completed') AND scheduled_start < ? AND scheduled_end > ?",
        (clinician["id"], exclude_id, _iso(end), _iso(start)),
    )
    if clash is not None:
        raise ToolError(
            f"{clinician['full_name']} already has {clash['reference']} from {clash['scheduled_start']} to "
            f"{clash['scheduled_end']}; use find_available_slots for a free time"
        )
    clash = db.one(
        "SELECT reference, scheduled_start FROM appointments WHERE pet_id = ? AND id <> ? "
        "AND status IN ('booked', 'checked_in', 'completed') AND scheduled_start < ? AND scheduled_end > ?",
        (pet_id, exclude_id, _iso(end), _iso(start)),
    )
    if clash is not None:
        raise ToolError(f"the pet already has appointment {clash['reference']} at {clash['scheduled_start']}")
    return end


def _candidates(db: Db, branch: dict, atype: dict, day: date) -> list:
    d = day.isoformat()
    rows = db.query(
        "SELECT s.id, s.staff_number, s.full_name, s.email, s.role, s.status, s.home_branch_id, "
        "a.start_time, a.end_time FROM staff s JOIN staff_branch_assignments a ON a.staff_id = s.id "
        "WHERE a.branch_id = ? AND a.weekday = ? AND a.valid_from <= ? AND (a.valid_to IS NULL OR a.valid_to >= ?) "
        "AND s.status = 'active' ORDER BY s.role, s.id",
        (branch["id"], day.weekday(), d, d),
    )
    roles = ("vet",) if atype["requires_vet"] else ("nurse", "vet")
    return [r for r in rows if r["role"] in roles]


def _next_code(current, prefix: str, width: int, start: int) -> str:
    n = int(current) + 1 if current is not None else start
    return prefix + str(n).zfill(width)


def _vaccine_state(next_due: str, today: date) -> str:
    try:
        due = date.fromisoformat(next_due)
    except (TypeError, ValueError):
        return "unknown"
    if due < today:
        return "overdue"
    if due <= today + timedelta(days=DUE_SOON_DAYS):
        return "due_soon"
    return "up_to_date"


# ---------------------------------------------------------------- reference data

@tool
def list_branches(db: Db) -> list[dict]:
    """List the three Willowbrook branches with contact details and weekly opening hours (weekday 0 = Monday)."""
    branches = db.query("SELECT id, code, name, address_line, city, postcode, phone, email FROM branches ORDER BY id", ())
    for b in branches:
        hours = db.query(
            "SELECT weekday, is_closed, opens_at, closes_at FROM branch_hours WHERE branch_id = ? ORDER BY weekday",
            (b["id"],),
        )
        b["opening_hours"] = [
            {"day": WEEKDAYS[h["weekday"]], "closed": bool(h["is_closed"]), "opens_at": h["opens_at"],
             "closes_at": h["closes_at"]}
            for h in hours
        ]
        del b["id"]
    return branches


@tool
def list_appointment_types(db: Db, include_inactive: bool = False) -> list[dict]:
    """List the appointment types that can be booked, with duration, base fee and whether a vet is required.

    Args:
        include_inactive: also show types no longer offered.
    """
    rows = db.query(
        "SELECT code, name, duration_minutes, base_fee_cents, requires_vet, is_active FROM appointment_types "
        "WHERE (? = 1 OR is_active = 1) ORDER BY name",
        (1 if include_inactive else 0,),
    )
    for r in rows:
        r["requires_vet"] = bool(r["requires_vet"])
        r["is_active"] = bool(r["is_active"])
        r["base_fee"] = _money(r["base_fee_cents"])
    return rows


@tool
def list_treatment_types(db: Db, category: Literal["consultation", "diagnostic", "surgery", "dental", "procedure", "hospitalisation"] | None = None,
                         query: str | None = None, include_inactive: bool = False) -> list[dict]:
    """List the price list of treatments and procedures that can be recorded during a visit.

    Args:
        category: only this category, e.g. "diagnostic".
        query: words in the treatment name, e.g. "blood".
        include_inactive: also show treatments no longer offered.
    """
    q = _text(query, "query", required=False)
    rows = db.query(
        "SELECT code, name, category, price_cents, requires_vet, is_active FROM treatment_types "
        "WHERE (? IS NULL OR category = ?) AND (? IS NULL OR name LIKE ? ESCAPE '\\') AND (? = 1 OR is_active = 1) "
        "ORDER BY category, name",
        (category, category, q, like_contains(q) if q else None, 1 if include_inactive else 0),
    )
    for r in rows:
        r["requires_vet"] = bool(r["requires_vet"])
        r["is_active"] = bool(r["is_active"])
        r["price"] = _money(r["price_cents"])
    return rows


@tool
def list_vaccines(db: Db, species_code: str | None = None, include_inactive: bool = False) -> list[dict]:
    """List vaccines with their species, booster interval, price and whether they are core vaccines.

    Args:
        species_code: only vaccines for this species: DOG, CAT, RAB (rabbit), GPG (guinea pig) or FER (ferret).
        include_inactive: also show discontinued vaccines.
    """
    sp = _text(species_code, "species_code", required=False)
    return db.query(
        "SELECT v.code, v.name, sp.name AS species, v.manufacturer, v.booster_interval_days, v.price_cents, "
        "v.is_core, v.is_active FROM vaccines v JOIN species sp ON sp.id = v.species_id "
        "WHERE (? IS NULL OR UPPER(sp.code) = UPPER(?) OR LOWER(sp.name) = LOWER(?)) AND (? = 1 OR v.is_active = 1) "
        "ORDER BY sp.id, v.is_core DESC, v.name",
        (sp, sp, sp, 1 if include_inactive else 0),
    )


@tool
def search_medications(db: Db, query: str | None = None, form: Literal["tablet", "capsule", "liquid", "injection", "topical", "drops", "chewable"] | None = None,
                       include_inactive: bool = False, limit: int = 20) -> list[dict]:
    """Search the dispensary's medications by name, strength or code, with unit price and controlled-drug flag.

    Args:
        query: words in the name, strength or code, e.g. "apoquel" or "16 mg".
        form: only this form, e.g. "tablet".
        include_inactive: also show medications no longer stocked.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    q = _text(query, "query", required=False)
    pat = like_contains(q) if q else None
    return db.query(
        "SELECT code, name, strength, form, unit_price_cents, is_controlled, is_active FROM medications "
        "WHERE (? IS NULL OR name LIKE ? ESCAPE '\\' OR strength LIKE ? ESCAPE '\\' OR code LIKE ? ESCAPE '\\') "
        "AND (? IS NULL OR form = ?) AND (? = 1 OR is_active = 1) ORDER BY name, strength LIMIT ?",
        (q, pat, pat, pat, form, form, 1 if include_inactive else 0, limit),
    )


@tool
def list_staff(db: Db, branch_code: str | None = None, role: Literal["vet", "nurse", "receptionist", "practice_manager"] | None = None,
               status: Literal["active", "on_leave", "left"] | None = None, query: str | None = None, limit: int = 50) -> list[dict]:
    """List staff with role, home branch, status and their current weekly rota (which branch on which weekday, hours).

    Args:
        branch_code: only staff whose home branch is this one (code or name, e.g. "NTH" or "Northgate").
        role: only this role.
        status: only this employment status.
        query: words in the name, email or staff number.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    bid = _opt_branch_id(db, branch_code)
    q = _text(query, "query", required=False)
    pat = like_contains(q) if q else None
    rows = db.query(
        "SELECT s.id, s.staff_number, s.full_name, s.email, s.phone, s.role, s.license_number, b.name AS home_branch, "
        "s.hired_on, s.status, s.left_on FROM staff s JOIN branches b ON b.id = s.home_branch_id "
        "WHERE (? IS NULL OR s.home_branch_id = ?) AND (? IS NULL OR s.role = ?) AND (? IS NULL OR s.status = ?) "
        "AND (? IS NULL OR s.full_name LIKE ? ESCAPE '\\' OR s.email LIKE ? ESCAPE '\\' OR s.staff_number LIKE ? ESCAPE '\\') "
        "ORDER BY b.id, s.role, s.full_name LIMIT ?",
        (bid, bid, role, role, status, status, q, pat, pat, pat, limit),
    )
    today = db.today().isoformat()
    for r in rows:
        shifts = db.query(
            "SELECT a.weekday, b.name AS branch, a.start_time, a.end_time FROM staff_branch_assignments a "
            "JOIN branches b ON b.id = a.branch_id WHERE a.staff_id = ? AND a.valid_from <= ? "
            "AND (a.valid_to IS NULL OR a.valid_to >= ?) ORDER BY a.weekday",
            (r["id"], today, today),
        )
        r["weekly_rota"] = [
            {"day": WEEKDAYS[s["weekday"]], "branch": s["branch"], "from": s["start_time"], "to": s["end_time"]}
            for s in shifts
        ]
        del r["id"]
    return rows


# ---------------------------------------------------------------- owners and pets

@tool
def search_owners(db: Db, query: str, status: Literal["active", "inactive"] | None = None, limit: int = 20) -> list[dict]:
    """Find pet owners (clients) by name, email, phone or client number; shows how many pets each has.

    Args:
        query: part of the name, email, phone or client number, e.g. "Hall" or "CL-899015".
        status: only active or only inactive clients.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    q = _text(query, "query")
    pat = like_contains(q)
    return db.query(
        "SELECT o.client_number, o.full_name, o.email, o.phone, o.city, o.status, b.name AS preferred_branch, "
        "o.registered_at, (SELECT COUNT(*) FROM pets p WHERE p.owner_id = o.id) AS pets, "
        "(SELECT COUNT(*) FROM pets p WHERE p.owner_id = o.id AND p.status = 'active') AS active_pets "
        "FROM owners o JOIN branches b ON b.id = o.preferred_branch_id "
        "WHERE (o.full_name LIKE ? ESCAPE '\\' OR o.email LIKE ? ESCAPE '\\' OR o.phone LIKE ? ESCAPE '\\' "
        "OR o.client_number LIKE ? ESCAPE '\\') AND (? IS NULL OR o.status = ?) ORDER BY o.last_name, o.first_name LIMIT ?",
        (pat, pat, pat, pat, status, status, limit),
    )


@tool
def get_owner(db: Db, owner_email: str | None = None, client_number: str | None = None) -> dict:
    """Show one client's record: contact details, reminder preferences, pets, next appointment and account balance.

    Args:
        owner_email: the client's email address.
        client_number: the client number instead of the email, e.g. "CL-899015".
    """
    e = _text(owner_email, "owner_email", required=False)
    c = _text(client_number, "client_number", required=False)
    if e is None and c is None:
        raise ToolError("give owner_email or client_number")
    row = db.one(
        "SELECT o.id, o.client_number, o.full_name, o.email, o.phone, o.address_line, o.city, o.postcode, "
        "b.name AS preferred_branch, o.marketing_opt_in, o.reminder_channel, o.status, o.registered_at "
        "FROM owners o JOIN branches b ON b.id = o.preferred_branch_id "
        "WHERE (? IS NOT NULL AND LOWER(o.email) = LOWER(?)) OR (? IS NOT NULL AND UPPER(o.client_number) = UPPER(?))",
        (e, e, c, c),
    )
    if row is None:
        raise ToolError("no client found; use search_owners with part of the name or email")
    oid = row.pop("id")
    row["marketing_opt_in"] = bool(row["marketing_opt_in"])
    row["pets"] = db.query(
        "SELECT p.pet_code, p.name, sp.name AS species, p.breed, p.sex, p.date_of_birth, p.status, p.deceased_on "
        "FROM pets p JOIN species sp ON sp.id = p.species_id WHERE p.owner_id = ? ORDER BY p.name",
        (oid,),
    )
    row["upcoming_appointments"] = db.query(
        "SELECT a.reference, a.scheduled_start, t.name AS type, p.name AS pet, b.name AS branch, s.full_name AS clinician "
        "FROM appointments a JOIN appointment_types t ON t.id = a.appointment_type_id JOIN pets p ON p.id = a.pet_id "
        "JOIN branches b ON b.id = a.branch_id JOIN staff s ON s.id = a.staff_id "
        "WHERE a.owner_id = ? AND a.status = 'booked' AND a.scheduled_start >= ? ORDER BY a.scheduled_start LIMIT 10",
        (oid, _iso(db.now())),
    )
    bal = db.one(
        "SELECT COUNT(*) AS open_invoices, COALESCE(SUM(total_cents - amount_paid_cents), 0) AS outstanding_cents "
        "FROM invoices WHERE owner_id = ? AND status IN ('issued', 'partially_paid')",
        (oid,),
    )
    row["open_invoices"] = bal["open_invoices"]
    row["outstanding_cents"] = bal["outstanding_cents"]
    row["outstanding"] = _money(bal["outstanding_cents"])
    return row


@tool
def get_owner_balance(db: Db, owner_email: str) -> dict:
    """Show a client's account: every open (issued or partly paid) invoice with what is still owed and whether it is overdue, plus draft invoices not yet issued.

    Args:
        owner_email: the client's email address.
    """
    o = _owner(db, owner_email)
    today = db.today()
    rows = db.query(
        "SELECT i.invoice_number, i.status, i.created_at, i.issued_at, i.due_on, i.total_cents, i.amount_paid_cents, "
        "b.name AS branch, a.reference AS appointment_reference FROM invoices i JOIN branches b ON b.id = i.branch_id "
        "LEFT JOIN appointments a ON a.id = i.appointment_id "
        "WHERE i.owner_id = ? AND i.status IN ('issued', 'partially_paid', 'draft') ORDER BY i.created_at",
        (o["id"],),
    )
    open_items, drafts, total = [], [], 0
    for r in rows:
        r["outstanding_cents"] = r["total_cents"] - r["amount_paid_cents"]
        if r["status"] == "draft":
            drafts.append(r)
            continue
        r["overdue"] = bool(r["due_on"]) and r["due_on"] < today.isoformat()
        total += r["outstanding_cents"]
        open_items.append(r)
    return {"client_number": o["client_number"], "owner": o["full_name"], "email": o["email"], "as_of": today.isoformat(),
            "open_invoices": open_items, "outstanding_cents": total, "outstanding": _money(total),
            "overdue_cents": sum(r["outstanding_cents"] for r in open_items if r["overdue"]),
            "draft_invoices_not_yet_issued": drafts}


@tool
def search_pets(db: Db, query: str | None = None, species_code: str | None = None,
                status: Literal["active", "deceased", "transferred"] | None = None, owner_email: str | None = None,
                limit: int = 20) -> list[dict]:
    """Find pets by name, pet code or microchip number, optionally only one owner's pets or one species.

    Args:
        query: part of the pet's name, its pet code (e.g. "PT-19092") or microchip number.
        species_code: DOG, CAT, RAB, GPG or FER (or the species name).
        status: only pets with this status.
        owner_email: only this client's pets.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    q = _text(query, "query", required=False)
    sp = _text(species_code, "species_code", required=False)
    oid = _owner(db, owner_email)["id"] if _text(owner_email, "owner_email", required=False) else None
    if q is None and sp is None and status is None and oid is None:
        raise ToolError("give at least one of query, species_code, status or owner_email")
    pat = like_contains(q) if q else None
    return db.query(
        "SELECT p.pet_code, p.name, sp.name AS species, p.breed, p.sex, p.date_of_birth, p.colour, p.microchip_number, "
        "p.status, o.full_name AS owner_name, o.email AS owner_email, o.client_number FROM pets p "
        "JOIN species sp ON sp.id = p.species_id JOIN owners o ON o.id = p.owner_id "
        "WHERE (? IS NULL OR p.name LIKE ? ESCAPE '\\' OR p.pet_code LIKE ? ESCAPE '\\' OR p.microchip_number LIKE ? ESCAPE '\\') "
        "AND (? IS NULL OR UPPER(sp.code) = UPPER(?) OR LOWER(sp.name) = LOWER(?)) AND (? IS NULL OR p.status = ?) "
        "AND (? IS NULL OR p.owner_id = ?) ORDER BY p.name, o.last_name LIMIT ?",
        (q, pat, pat, pat, sp, sp, sp, status, status, oid, oid, limit),
    )


@tool
def get_pet(db: Db, pet_code: str) -> dict:
    """Show a pet's full record: details, owner, current vaccination status per vaccine, active prescriptions, upcoming and recent appointments.

    Args:
        pet_code: the pet's code, e.g. "PT-19092".
    """
    p = _pet(db, pet_code)
    today = db.today()
    pid = p.pop("id")
    p.pop("owner_id")
    p.pop("species_id")
    p["is_neutered"] = bool(p["is_neutered"])
    try:
        dob = date.fromisoformat(p["date_of_birth"])
        months = (today.year - dob.year) * 12 + today.month - dob.month - (1 if today.day < dob.day else 0)
        p["age"] = "%d years %d months" % (months // 12, months % 12)
    except (TypeError, ValueError):
        p["age"] = None
    vacc = db.query(
        "SELECT vc.code AS vaccine_code, vc.name AS vaccine, v.certificate_number, v.administered_on, v.next_due_on "
        "FROM vaccinations v JOIN vaccines vc ON vc.id = v.vaccine_id WHERE v.pet_id = ? AND v.status = 'valid' "
        "ORDER BY v.next_due_on",
        (pid,),
    )
    for v in vacc:
        v["state"] = _vaccine_state(v["next_due_on"], today)
    p["vaccination_status"] = vacc
    p["active_prescriptions"] = db.query(
        "SELECT r.prescription_number, m.name AS medication, m.strength, r.dosage_instructions, r.quantity, "
        "r.refills_allowed, r.refills_used, r.prescribed_at, r.expires_on FROM prescriptions r "
        "JOIN medications m ON m.id = r.medication_id WHERE r.pet_id = ? AND r.status = 'active' ORDER BY r.prescribed_at DESC",
        (pid,),
    )
    p["upcoming_appointments"] = db.query(
        "SELECT a.reference, a.scheduled_start, a.status, t.name AS type, b.name AS branch, s.full_name AS clinician "
        "FROM appointments a JOIN appointment_types t ON t.id = a.appointment_type_id JOIN branches b ON b.id = a.branch_id "
        "JOIN staff s ON s.id = a.staff_id WHERE a.pet_id = ? AND a.status IN ('booked', 'checked_in') "
        "ORDER BY a.scheduled_start",
        (pid,),
    )
    p["recent_visits"] = db.query(
        "SELECT a.reference, a.scheduled_start, a.status, t.name AS type, a.reason, b.name AS branch, s.full_name AS clinician "
        "FROM appointments a JOIN appointment_types t ON t.id = a.appointment_type_id JOIN branches b ON b.id = a.branch_id "
        "JOIN staff s ON s.id = a.staff_id WHERE a.pet_id = ? AND a.status IN ('completed', 'cancelled', 'no_show') "
        "ORDER BY a.scheduled_start DESC LIMIT 5",
        (pid,),
    )
    return p


@tool(write=True, actor="staff_email")
def register_owner(db: Db, staff_email: str, first_name: str, last_name: str, email: str, phone: str,
                   address_line: str, city: str, postcode: str, preferred_branch_code: str,
                   reminder_channel: Literal["email", "sms", "none"] = "email", marketing_opt_in: bool = False) -> dict:
    """Register a new pet owner (client) at the front desk. Only receptionists and practice managers rostered at the preferred branch can do this.

    Args:
        staff_email: email of the front-desk staff member doing the registration (the acting person).
        first_name: the client's first name.
        last_name: the client's last name.
        email: the client's email address (must not already be registered).
        phone: the client's phone number.
        address_line: street address.
        city: town or city.
        postcode: postal code.
        preferred_branch_code: the branch the client will mainly use, e.g. "RIV".
        reminder_channel: how the client wants vaccination reminders: email, sms or none.
        marketing_opt_in: whether the client agreed to marketing messages.
    """
    staff = _staff(db, staff_email)
    _require_role(staff, FRONT_DESK, "register clients")
    branch = _branch(db, preferred_branch_code, "preferred_branch_code")
    _require_branch(db, staff, branch["id"], branch["name"])
    first = _text(first_name, "first_name")
    last = _text(last_name, "last_name")
    mail = _text(email, "email")
    if "@" not in mail or "." not in mail.split("@")[-1] or " " in mail:
        raise ToolError(f"{mail!r} is not a valid email address")
    if db.one("SELECT id FROM owners WHERE LOWER(email) = LOWER(?)", (mail,)) is not None:
        raise ToolError(f"{mail} is already registered; use get_owner to see that client")
    if reminder_channel not in ("email", "sms", "none"):
        raise ToolError("reminder_channel must be email, sms or none")
    number = _next_code(db.value(
        "SELECT MAX(CAST(SUBSTR(client_number, 4) AS INTEGER)) FROM owners WHERE SUBSTR(client_number, 1, 3) = 'CL-'", ()),
        "CL-", 6, 100001)
    now = _iso(db.now())
    oid = db.insert("owners", {
        "client_number": number, "first_name": first, "last_name": last, "full_name": first + " " + last,
        "email": mail, "phone": _text(phone, "phone"), "address_line": _text(address_line, "address_line"),
        "city": _text(city, "city"), "postcode": _text(postcode, "postcode"), "preferred_branch_id": branch["id"],
        "marketing_opt_in": 1 if marketing_opt_in else 0, "reminder_channel": reminder_channel, "status": "active",
        "registered_at": now,
    })
    _log(db, "owner", oid, "registered", staff_id=staff["id"], owner_id=oid, details="New client registered")
    return {"client_number": number, "full_name": first + " " + last, "email": mail, "preferred_branch": branch["name"],
            "status": "active", "registered_at": now, "registered_by": staff["full_name"]}


@tool(write=True, actor="owner_email")
def update_my_contact_details(db: Db, owner_email: str, phone: str | None = None, address_line: str | None = None,
                              city: str | None = None, postcode: str | None = None,
                              reminder_channel: Literal["email", "sms", "none"] | None = None,
                              marketing_opt_in: bool | None = None) -> dict:
    """A client updates their own contact details or reminder preferences; only the fields given change.

    Args:
        owner_email: the client's own email address (the acting person).
        phone: new phone number.
        address_line: new street address.
        city: new town or city.
        postcode: new postal code.
        reminder_channel: new reminder channel: email, sms or none.
        marketing_opt_in: true to receive marketing messages, false to stop them.
    """
    o = _owner(db, owner_email)
    changes = {}
    for col, val in (("phone", phone), ("address_line", address_line), ("city", city), ("postcode", postcode)):
        v = _text(val, col, required=False)
        if v is not None and v != o[col]:
            changes[col] = v
    if reminder_channel is not None:
        if reminder_channel not in ("email", "sms", "none"):
            raise ToolError("reminder_channel must be email, sms or none")
        if reminder_channel != o["reminder_channel"]:
            changes["reminder_channel"] = reminder_channel
    if marketing_opt_in is not None and (1 if marketing_opt_in else 0) != o["marketing_opt_in"]:
        changes["marketing_opt_in"] = 1 if marketing_opt_in else 0
    if not changes:
        raise ToolError("nothing to change: give at least one new value that differs from the current details")
    if "phone" in changes:
        db.execute("UPDATE owners SET phone = ? WHERE id = ?", (changes["phone"], o["id"]))
    if "address_line" in changes:
        db.execute("UPDATE owners SET address_line = ? WHERE id = ?", (changes["address_line"], o["id"]))
    if "city" in changes:
        db.execute("UPDATE owners SET city = ? WHERE id = ?", (changes["city"], o["id"]))
    if "postcode" in changes:
        db.execute("UPDATE owners SET postcode = ? WHERE id = ?", (changes["postcode"], o["id"]))
    if "reminder_channel" in changes:
        db.execute("UPDATE owners SET reminder_channel = ? WHERE id = ?", (changes["reminder_channel"], o["id"]))
    if "marketing_opt_in" in changes:
        db.execute("UPDATE owners SET marketing_opt_in = ? WHERE id = ?", (changes["marketing_opt_in"], o["id"]))
    for col in sorted(changes):
        _log(db, "owner", o["id"], "updated", owner_id=o["id"], old=None if o[col] is None else str(o[col]),
             new=str(changes[col]), details=col + " changed by the client")
    return {"client_number": o["client_number"], "email": o["email"], "changed": sorted(changes),
            "new_values": changes}


@tool(write=True, actor="staff_email")
def register_pet(db: Db, staff_email: str, owner_email: str, name: str, species_code: str, breed: str,
                 sex: Literal["male", "female"], date_of_birth: str, colour: str, is_neutered: bool = False,
                 weight_kg: float | None = None, microchip_number: str | None = None, allergies: str | None = None) -> dict:
    """Register a new pet for an existing active client. Any active staff member can do this.

    Args:
        staff_email: email of the staff member registering the pet (the acting person).
        owner_email: the owning client's email address.
        name: the pet's name.
        species_code: DOG, CAT, RAB (rabbit), GPG (guinea pig) or FER (ferret).
        breed: the breed, e.g. "Border Collie" or "Mixed breed".
        sex: male or female.
        date_of_birth: ISO date of birth (estimated is fine), e.g. "2024-06-01".
        colour: coat colour, e.g. "Black and white".
        is_neutered: whether the pet is already neutered.
        weight_kg: current weight in kilograms.
        microchip_number: the 15-digit microchip number, if chipped.
        allergies: known allergies, if any.
    """
    staff = _staff(db, staff_email)
    o = _owner(db, owner_email)
    if o["status"] != "active":
        raise ToolError(f"{o['full_name']}'s account is inactive; a practice manager must reactivate it first")
    sp_txt = _text(species_code, "species_code")
    sp = db.one("SELECT id, code, name FROM species WHERE UPPER(code) = UPPER(?) OR LOWER(name) = LOWER(?)", (sp_txt, sp_txt))
    if sp is None:
        raise ToolError(f"unknown species {sp_txt!r}; use DOG, CAT, RAB, GPG or FER")
    if sex not in ("male", "female"):
        raise ToolError("sex must be male or female")
    dob = _parse_date(date_of_birth, "date_of_birth")
    if dob > db.today():
        raise ToolError("date_of_birth cannot be in the future")
    if weight_kg is not None and not (0 < float(weight_kg) <= 150):
        raise ToolError("weight_kg must be between 0 and 150")
    chip = _text(microchip_number, "microchip_number", required=False)
    if chip is not None:
        if not (chip.isdigit() and len(chip) == 15):
            raise ToolError("microchip_number must be 15 digits")
        other = db.one("SELECT pet_code, name FROM pets WHERE microchip_number = ?", (chip,))
        if other is not None:
            raise ToolError(f"microchip {chip} is already registered to {other['name']} ({other['pet_code']})")
    code = _next_code(db.value(
        "SELECT MAX(CAST(SUBSTR(pet_code, 4) AS INTEGER)) FROM pets WHERE SUBSTR(pet_code, 1, 3) = 'PT-'", ()),
        "PT-", 5, 10001)
    pet_name = _text(name, "name")
    now = _iso(db.now())
    pid = db.insert("pets", {
        "pet_code": code, "owner_id": o["id"], "name": pet_name, "species_id": sp["id"], "breed": _text(breed, "breed"),
        "sex": sex, "is_neutered": 1 if is_neutered else 0, "date_of_birth": dob.isoformat(),
        "colour": _text(colour, "colour"), "weight_kg": None if weight_kg is None else float(weight_kg),
        "microchip_number": chip, "allergies": _text(allergies, "allergies", required=False), "status": "active",
        "registered_at": now, "deceased_on": None,
    })
    _log(db, "pet", pid, "registered", staff_id=staff["id"], owner_id=o["id"],
         details=pet_name + " (" + sp["name"] + ") registered")
    return {"pet_code": code, "name": pet_name, "species": sp["name"], "owner": o["full_name"],
            "owner_email": o["email"], "status": "active", "registered_at": now}


@tool(write=True, actor="staff_email")
def update_pet_details(db: Db, staff_email: str, pet_code: str, weight_kg: float | None = None,
                       allergies: str | None = None, is_neutered: bool | None = None,
                       microchip_number: str | None = None) -> dict:
    """Update an active pet's clinical details (weight, allergies, neuter status, microchip). Only vets and nurses can do this.

    Args:
        staff_email: email of the vet or nurse making the change (the acting person).
        pet_code: the pet's code, e.g. "PT-19092".
        weight_kg: new weight in kilograms.
        allergies: the full allergy text to store; give "none" to clear it.
        is_neutered: the new neuter status.
        microchip_number: the 15-digit microchip number.
    """
    staff = _staff(db, staff_email)
    _require_role(staff, CLINICAL, "update a pet's clinical details")
    p = _pet(db, pet_code)
    if p["status"] != "active":
        raise ToolError(f"{p['name']} is {p['status']}; only active pets can be updated")
    changes = {}
    if weight_kg is not None:
        w = float(weight_kg)
        if not (0 < w <= 150):
            raise ToolError("weight_kg must be between 0 and 150")
        if w != p["weight_kg"]:
            changes["weight_kg"] = w
    a = _text(allergies, "allergies", required=False)
    if a is not None:
        new_a = None if a.lower() == "none" else a
        if new_a != p["allergies"]:
            changes["allergies"] = new_a
    if is_neutered is not None and (1 if is_neutered else 0) != p["is_neutered"]:
        changes["is_neutered"] = 1 if is_neutered else 0
    chip = _text(microchip_number, "microchip_number", required=False)
    if chip is not None and chip != p["microchip_number"]:
        if not (chip.isdigit() and len(chip) == 15):
            raise ToolError("microchip_number must be 15 digits")
        other = db.one("SELECT pet_code, name FROM pets WHERE microchip_number = ? AND id <> ?", (chip, p["id"]))
        if other is not None:
            raise ToolError(f"microchip {chip} is already registered to {other['name']} ({other['pet_code']})")
        changes["microchip_number"] = chip
    if not changes:
        raise ToolError("nothing to change: give at least one value that differs from the current record")
    if "weight_kg" in changes:
        db.execute("UPDATE pets SET weight_kg = ? WHERE id = ?", (changes["weight_kg"], p["id"]))
    if "allergies" in changes:
        db.execute("UPDATE pets SET allergies = ? WHERE id = ?", (changes["allergies"], p["id"]))
    if "is_neutered" in changes:
        db.execute("UPDATE pets SET is_neutered = ? WHERE id = ?", (changes["is_neutered"], p["id"]))
    if "microchip_number" in changes:
        db.execute("UPDATE pets SET microchip_number = ? WHERE id = ?", (changes["microchip_number"], p["id"]))
    for col in sorted(changes):
        _log(db, "pet", p["id"], "updated", staff_id=staff["id"], owner_id=p["owner_id"],
             old=None if p[col] is None else str(p[col]), new=None if changes[col] is None else str(changes[col]),
             details=col + " updated")
    return {"pet_code": p["pet_code"], "name": p["name"], "changed": sorted(changes), "new_values": changes,
            "updated_by": staff["full_name"]}


# ---------------------------------------------------------------- appointments

@tool
def find_available_slots(db: Db, branch_code: str, date: str, appointment_type_code: str,
                         clinician: str | None = None, limit: int = 20) -> dict:
    """Find free start times for an appointment type at a branch on one day, per rostered vet or nurse.

    Args:
        branch_code: the branch code or name, e.g. "RIV" or "Riverside".
        date: the ISO date, e.g. "2026-03-04".
        appointment_type_code: the appointment type code, e.g. "CONS" (see list_appointment_types).
        clinician: only this vet or nurse (staff number or email).
        limit: maximum number of slots, 1 to 100.
    """
    check_limit(limit, 100)
    branch = _branch(db, branch_code)
    day = _parse_date(date, "date")
    atype = _appointment_type(db, appointment_type_code)
    hrs = db.one(
        "SELECT is_closed, opens_at, closes_at FROM branch_hours WHERE branch_id = ? AND weekday = ?",
        (branch["id"], day.weekday()),
    )
    result = {"branch": branch["name"], "date": day.isoformat(), "weekday": WEEKDAYS[day.weekday()],
              "appointment_type": atype["name"], "duration_minutes": atype["duration_minutes"], "slots": []}
    if hrs is None or hrs["is_closed"]:
        result["note"] = "the branch is closed on this day"
        return result
    result["opening_hours"] = hrs["opens_at"] + "-" + hrs["closes_at"]
    cands = _candidates(db, branch, atype, day)
    if _text(clinician, "clinician", required=False):
        who = _find_staff(db, clinician, "clinician")
        cands = [c for c in cands if c["id"] == who["id"]]
        if not cands:
            result["note"] = who["full_name"] + " is not rostered here for this appointment type on this day"
            return result
    now = db.now()
    dur = atype["duration_minutes"]
    slots = []
    day_lo = day.isoformat()
    day_hi = (day + timedelta(days=1)).isoformat()
    for c in cands:
        busy = db.query(
            "SELECT scheduled_start, scheduled_end FROM appointments WHERE staff_id = ? "
            "AND status IN ('booked', 'checked_in', 'completed') AND scheduled_start >= ? AND scheduled_start < ?",
            (c["id"], day_lo, day_hi),
        )
        lo = max(_minutes(c["start_time"]), _minutes(hrs["opens_at"]))
        hi = min(_minutes(c["end_time"]), _minutes(hrs["closes_at"]))
        m = lo
        while m + dur <= hi:
            st = datetime(day.year, day.month, day.day) + timedelta(minutes=m)
            en = st + timedelta(minutes=dur)
            st_txt, en_txt = _iso(st), _iso(en)
            if st > now and all(not (st_txt < b["scheduled_end"] and b["scheduled_start"] < en_txt) for b in busy):
                slots.append({"start": st_txt, "end": en_txt, "clinician": c["full_name"],
                              "staff_number": c["staff_number"], "role": c["role"]})
            m += SLOT_STEP_MINUTES
    slots.sort(key=lambda s: (s["start"], s["clinician"]))
    result["slots"] = slots[:limit]
    result["free_slots_total"] = len(slots)
    if not cands:
        result["note"] = "no suitable clinician is rostered at this branch on this day"
    return result


@tool
def list_appointments(db: Db, branch_code: str | None = None, date_from: str | None = None, date_to: str | None = None,
                      status: Literal["booked", "checked_in", "completed", "cancelled", "no_show"] | None = None,
                      clinician: str | None = None, owner_email: str | None = None, pet_code: str | None = None,
                      appointment_type_code: str | None = None, limit: int = 20) -> list[dict]:
    """List appointments filtered by branch, date range, status, clinician, client, pet or type, in time order.

    Args:
        branch_code: branch code or name, e.g. "OLD".
        date_from: first day (ISO date) of the scheduled start, inclusive.
        date_to: last day (ISO date) of the scheduled start, inclusive.
        status: only this status.
        clinician: only this vet or nurse (staff number or email).
        owner_email: only this client's appointments.
        pet_code: only this pet's appointments.
        appointment_type_code: only this type, e.g. "VAC".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    bid = _opt_branch_id(db, branch_code)
    lo, hi = _day_bounds(date_from, date_to)
    sid = _find_staff(db, clinician, "clinician")["id"] if _text(clinician, "clinician", required=False) else None
    oid = _owner(db, owner_email)["id"] if _text(owner_email, "owner_email", required=False) else None
    pid = _pet(db, pet_code)["id"] if _text(pet_code, "pet_code", required=False) else None
    tcode = _text(appointment_type_code, "appointment_type_code", required=False)
    return db.query(
        "SELECT a.reference, a.scheduled_start, a.scheduled_end, a.status, t.code AS type_code, t.name AS type, a.reason, "
        "p.pet_code, p.name AS pet, o.full_name AS owner, o.email AS owner_email, b.name AS branch, "
        "s.full_name AS clinician, a.booked_via, a.created_at, a.cancelled_at, a.cancellation_reason "
        "FROM appointments a JOIN appointment_types t ON t.id = a.appointment_type_id JOIN pets p ON p.id = a.pet_id "
        "JOIN owners o ON o.id = a.owner_id JOIN branches b ON b.id = a.branch_id JOIN staff s ON s.id = a.staff_id "
        "WHERE (? IS NULL OR a.branch_id = ?) AND (? IS NULL OR a.scheduled_start >= ?) AND (? IS NULL OR a.scheduled_start < ?) "
        "AND (? IS NULL OR a.status = ?) AND (? IS NULL OR a.staff_id = ?) AND (? IS NULL OR a.owner_id = ?) "
        "AND (? IS NULL OR a.pet_id = ?) AND (? IS NULL OR UPPER(t.code) = UPPER(?)) "
        "ORDER BY a.scheduled_start LIMIT ?",
        (bid, bid, lo, lo, hi, hi, status, status, sid, sid, oid, oid, pid, pid, tcode, tcode, limit),
    )


@tool
def get_appointment(db: Db, reference: str) -> dict:
    """Show one appointment in full: pet, client, clinician, times, status history fields, treatments, vaccinations, prescriptions and its invoice.

    Args:
        reference: the appointment reference, e.g. "APT-165332".
    """
    a = _appointment(db, reference)
    aid = a["id"]
    extra = db.one(
        "SELECT bb.full_name AS booked_by, cb.full_name AS cancelled_by FROM appointments a "
        "LEFT JOIN staff bb ON bb.id = a.booked_by_staff_id LEFT JOIN staff cb ON cb.id = a.cancelled_by_staff_id "
        "WHERE a.id = ?",
        (aid,),
    )
    out = {k: a[k] for k in ("reference", "status", "scheduled_start", "scheduled_end", "type_code", "type_name", "reason",
                             "branch", "clinician", "clinician_number", "pet_code", "pet_name", "owner_name", "owner_email",
                             "booked_via", "created_at", "checked_in_at", "completed_at", "cancelled_at",
                             "cancellation_reason", "clinical_notes", "base_fee_cents")}
    out["booked_by"] = extra["booked_by"] if extra else None
    out["cancelled_by"] = extra["cancelled_by"] if extra else None
    out["treatments"] = db.query(
        "SELECT tt.code, tt.name, t.status, t.quantity, t.unit_price_cents, t.quantity * t.unit_price_cents AS line_total_cents, "
        "s.full_name AS performed_by, t.recorded_at, t.performed_at, t.notes FROM treatments t "
        "JOIN treatment_types tt ON tt.id = t.treatment_type_id JOIN staff s ON s.id = t.performed_by_staff_id "
        "WHERE t.appointment_id = ? ORDER BY t.id",
        (aid,),
    )
    out["vaccinations"] = db.query(
        "SELECT v.certificate_number, vc.name AS vaccine, v.batch_number, v.next_due_on, v.status, v.reaction_noted "
        "FROM vaccinations v JOIN vaccines vc ON vc.id = v.vaccine_id WHERE v.appointment_id = ? ORDER BY v.id",
        (aid,),
    )
    out["prescriptions"] = db.query(
        "SELECT r.prescription_number, m.name AS medication, m.strength, r.quantity, r.status, r.dosage_instructions "
        "FROM prescriptions r JOIN medications m ON m.id = r.medication_id WHERE r.appointment_id = ? ORDER BY r.id",
        (aid,),
    )
    out["invoice"] = db.one(
        "SELECT invoice_number, status, total_cents, amount_paid_cents, due_on FROM invoices WHERE appointment_id = ?",
        (aid,),
    )
    return out


@tool
def get_day_schedule(db: Db, branch_code: str, date: str | None = None) -> dict:
    """Show a branch's day: opening hours, who is rostered, every appointment in time order and counts by status.

    Args:
        branch_code: the branch code or name, e.g. "NTH".
        date: the ISO date; today if omitted.
    """
    branch = _branch(db, branch_code)
    day = _opt_date(date, "date") or db.today()
    d = day.isoformat()
    hrs = db.one(
        "SELECT is_closed, opens_at, closes_at FROM branch_hours WHERE branch_id = ? AND weekday = ?",
        (branch["id"], day.weekday()),
    )
    rostered = db.query(
        "SELECT s.full_name, s.staff_number, s.role, s.status, a.start_time, a.end_time FROM staff_branch_assignments a "
        "JOIN staff s ON s.id = a.staff_id WHERE a.branch_id = ? AND a.weekday = ? AND a.valid_from <= ? "
        "AND (a.valid_to IS NULL OR a.valid_to >= ?) ORDER BY s.role, a.start_time, s.full_name",
        (branch["id"], day.weekday(), d, d),
    )
    appts = db.query(
        "SELECT a.reference, a.scheduled_start, a.scheduled_end, a.status, t.name AS type, p.name AS pet, p.pet_code, "
        "sp.name AS species, o.full_name AS owner, o.phone AS owner_phone, s.full_name AS clinician, a.reason, a.checked_in_at "
        "FROM appointments a JOIN appointment_types t ON t.id = a.appointment_type_id JOIN pets p ON p.id = a.pet_id "
        "JOIN species sp ON sp.id = p.species_id JOIN owners o ON o.id = a.owner_id JOIN staff s ON s.id = a.staff_id "
        "WHERE a.branch_id = ? AND a.scheduled_start >= ? AND a.scheduled_start < ? ORDER BY a.scheduled_start, s.full_name",
        (branch["id"], d, (day + timedelta(days=1)).isoformat()),
    )
    counts = {}
    for a in appts:
        counts[a["status"]] = counts.get(a["status"], 0) + 1
    return {"branch": branch["name"], "date": d, "weekday": WEEKDAYS[day.weekday()],
            "closed": bool(hrs is None or hrs["is_closed"]),
            "opening_hours": None if (hrs is None or hrs["is_closed"]) else hrs["opens_at"] + "-" + hrs["closes_at"],
            "rostered_staff": rostered, "appointments": appts, "counts_by_status": counts,
            "total_appointments": len(appts)}


@tool(write=True, actor="staff_email")
def book_appointment(db: Db, staff_email: str, pet_code: str, appointment_type_code: str, branch_code: str,
                     start: str, reason: str, clinician: str | None = None,
                     booked_via: Literal["phone", "front_desk", "walk_in"] = "phone") -> dict:
    """Book an appointment for an active pet at a branch. The acting staff member must work at that branch; the slot must be inside opening hours and the clinician's shift and free for both clinician and pet.

    Args:
        staff_email: email of the staff member making the booking (the acting person).
        pet_code: the pet's code, e.g. "PT-19092".
        appointment_type_code: the appointment type, e.g. "CONS" or "VAC".
        branch_code: the branch code or name, e.g. "RIV".
        start: the ISO start date-time, e.g. "2026-03-04T10:30:00".
        reason: the reason for the visit, as the owner describes it.
        clinician: the vet or nurse to see (staff number or email); if omitted, the first free suitable clinician is chosen.
        booked_via: how the request came in: phone, front_desk or walk_in.
    """
    staff = _staff(db, staff_email)
    branch = _branch(db, branch_code)
    _require_branch(db, staff, branch["id"], branch["name"])
    p = _pet(db, pet_code)
    if p["status"] != "active":
        raise ToolError(f"{p['name']} is {p['status']}; appointments can only be booked for active pets")
    if p["owner_status"] != "active":
        raise ToolError(f"the owner {p['owner_name']} is inactive; reactivate the client first")
    atype = _appointment_type(db, appointment_type_code)
    st = _parse_datetime(start, "start")
    why = _text(reason, "reason")
    if booked_via not in ("phone", "front_desk", "walk_in"):
        raise ToolError("booked_via must be phone, front_desk or walk_in")
    if _text(clinician, "clinician", required=False):
        who = _find_staff(db, clinician, "clinician")
        en = _check_slot(db, branch, atype, who, p["id"], st)
    else:
        who, en, last_err = None, None, None
        for c in _candidates(db, branch, atype, st.date()):
            try:
                en = _check_slot(db, branch, atype, c, p["id"], st)
                who = c
                break
            except ToolError as err:
                last_err = str(err)
        if who is None:
            raise ToolError("no suitable clinician is free at " + _iso(st) + " at " + branch["name"] +
                            ("; last problem: " + last_err if last_err else "") + "; use find_available_slots")
    number = _next_code(db.value(
        "SELECT MAX(CAST(SUBSTR(reference, 5) AS INTEGER)) FROM appointments WHERE SUBSTR(reference, 1, 4) = 'APT-'", ()),
        "APT-", 6, 100001)
    now = _iso(db.now())
    aid = db.insert("appointments", {
        "reference": number, "owner_id": p["owner_id"], "pet_id": p["id"], "branch_id": branch["id"], "staff_id": who["id"],
        "appointment_type_id": atype["id"], "scheduled_start": _iso(st), "scheduled_end": _iso(en), "status": "booked",
        "reason": why, "booked_via": booked_via, "booked_by_staff_id": staff["id"], "created_at": now,
        "checked_in_at": None, "completed_at": None, "cancelled_at": None, "cancelled_by_staff_id": None,
        "cancellation_reason": None, "clinical_notes": None,
    })
    _log(db, "appointment", aid, "booked", staff_id=staff["id"], owner_id=p["owner_id"], new=_iso(st),
         details=atype["name"] + " for " + p["name"] + " (" + number + ")")
    return {"reference": number, "status": "booked", "pet": p["name"], "owner": p["owner_name"],
            "type": atype["name"], "branch": branch["name"], "clinician": who["full_name"],
            "scheduled_start": _iso(st), "scheduled_end": _iso(en), "booked_by": staff["full_name"],
            "base_fee": _money(atype["base_fee_cents"])}


@tool(write=True, actor="staff_email")
def reschedule_appointment(db: Db, staff_email: str, reference: str, new_start: str, clinician: str | None = None) -> dict:
    """Move a booked appointment to a new time (and optionally another clinician) at the same branch. The acting staff member must work at that branch.

    Args:
        staff_email: email of the staff member making the change (the acting person).
        reference: the appointment reference, e.g. "APT-165332".
        new_start: the new ISO start date-time, e.g. "2026-03-06T14:00:00".
        clinician: the vet or nurse for the new time (staff number or email); keeps the current one if omitted.
    """
    staff = _staff(db, staff_email)
    a = _appointment(db, reference)
    _require_branch(db, staff, a["branch_id"], a["branch"])
    if a["status"] != "booked":
        raise ToolError(f"{a['reference']} is {a['status']}; only booked appointments can be rescheduled")
    st = _parse_datetime(new_start, "new_start")
    if _iso(st) == a["scheduled_start"] and not _text(clinician, "clinician", required=False):
        raise ToolError(f"{a['reference']} already starts at {a['scheduled_start']}")
    branch = {"id": a["branch_id"], "name": a["branch"]}
    atype = {"name": a["type_name"], "duration_minutes": a["duration_minutes"], "requires_vet": a["requires_vet"]}
    if _text(clinician, "clinician", required=False):
        who = _find_staff(db, clinician, "clinician")
    else:
        who = _find_staff(db, a["clinician_number"], "clinician")
    en = _check_slot(db, branch, atype, who, a["pet_id"], st, exclude_id=a["id"])
    db.execute("UPDATE appointments SET scheduled_start = ?, scheduled_end = ?, staff_id = ? WHERE id = ?",
               (_iso(st), _iso(en), who["id"], a["id"]))
    _log(db, "appointment", a["id"], "rescheduled", staff_id=staff["id"], owner_id=a["owner_id"],
         old=a["scheduled_start"], new=_iso(st),
         details="clinician " + a["clinician"] + " -> " + who["full_name"])
    return {"reference": a["reference"], "status": "booked", "old_start": a["scheduled_start"],
            "new_start": _iso(st), "new_end": _iso(en), "clinician": who["full_name"], "branch": a["branch"],
            "rescheduled_by": staff["full_name"]}


@tool(write=True, actor="staff_email")
def cancel_appointment(db: Db, staff_email: str, reference: str, reason: str) -> dict:
    """Cancel a booked appointment on the client's behalf; any treatments planned for it are cancelled too. The acting staff member must work at the appointment's branch.

    Args:
        staff_email: email of the staff member cancelling (the acting person).
        reference: the appointment reference, e.g. "APT-165332".
        reason: why it is cancelled, in the client's words.
    """
    staff = _staff(db, staff_email)
    a = _appointment(db, reference)
    _require_branch(db, staff, a["branch_id"], a["branch"])
    if a["status"] != "booked":
        raise ToolError(f"{a['reference']} is {a['status']}; only booked appointments can be cancelled")
    why = _text(reason, "reason")
    now = _iso(db.now())
    db.execute("UPDATE appointments SET status = 'cancelled', cancelled_at = ?, cancelled_by_staff_id = ?, "
               "cancellation_reason = ? WHERE id = ?", (now, staff["id"], why, a["id"]))
    n = db.execute("UPDATE treatments SET status = 'cancelled', notes = 'Appointment cancelled' "
                   "WHERE appointment_id = ? AND status = 'planned'", (a["id"],))
    _log(db, "appointment", a["id"], "cancelled", staff_id=staff["id"], owner_id=a["owner_id"], old="booked",
         new="cancelled", details=why)
    return {"reference": a["reference"], "status": "cancelled", "cancelled_at": now, "reason": why,
            "cancelled_by": staff["full_name"], "planned_treatments_cancelled": n,
            "was_scheduled_for": a["scheduled_start"], "pet": a["pet_name"]}


@tool(write=True, actor="owner_email")
def cancel_my_appointment(db: Db, owner_email: str, reference: str, reason: str) -> dict:
    """A client cancels one of their own booked future appointments (online self-service).

    Args:
        owner_email: the client's own email address (the acting person).
        reference: the appointment reference, e.g. "APT-165332".
        reason: why it is cancelled, in the client's words.
    """
    o = _owner(db, owner_email)
    a = _appointment(db, reference)
    if a["owner_id"] != o["id"]:
        raise ToolError(f"appointment {a['reference']} does not belong to {o['email']}; clients can cancel only their own appointments")
    if a["status"] != "booked":
        raise ToolError(f"{a['reference']} is {a['status']}; only booked appointments can be cancelled")
    now = db.now()
    if a["scheduled_start"] <= _iso(now):
        raise ToolError(f"{a['reference']} was due to start at {a['scheduled_start']}; please call the branch instead")
    why = _text(reason, "reason")
    db.execute("UPDATE appointments SET status = 'cancelled', cancelled_at = ?, cancelled_by_staff_id = NULL, "
               "cancellation_reason = ? WHERE id = ?", (_iso(now), why, a["id"]))
    n = db.execute("UPDATE treatments SET status = 'cancelled', notes = 'Appointment cancelled' "
                   "WHERE appointment_id = ? AND status = 'planned'", (a["id"],))
    _log(db, "appointment", a["id"], "cancelled", owner_id=o["id"], old="booked", new="cancelled",
         details="Cancelled online by client: " + why)
    return {"reference": a["reference"], "status": "cancelled", "cancelled_at": _iso(now), "reason": why,
            "pet": a["pet_name"], "was_scheduled_for": a["scheduled_start"], "planned_treatments_cancelled": n}


@tool(write=True, actor="staff_email")
def check_in_appointment(db: Db, staff_email: str, reference: str) -> dict:
    """Check a client and pet in on arrival for today's booked appointment. The acting staff member must work at that branch.

    Args:
        staff_email: email of the staff member at the desk (the acting person).
        reference: the appointment reference, e.g. "APT-165332".
    """
    staff = _staff(db, staff_email)
    a = _appointment(db, reference)
    _require_branch(db, staff, a["branch_id"], a["branch"])
    if a["status"] != "booked":
        raise ToolError(f"{a['reference']} is {a['status']}; only booked appointments can be checked in")
    today = db.today().isoformat()
    if a["scheduled_start"][:10] != today:
        raise ToolError(f"{a['reference']} is scheduled for {a['scheduled_start'][:10]}, not today ({today}); reschedule it instead")
    now = _iso(db.now())
    db.execute("UPDATE appointments SET status = 'checked_in', checked_in_at = ? WHERE id = ?", (now, a["id"]))
    _log(db, "appointment", a["id"], "checked_in", staff_id=staff["id"], owner_id=a["owner_id"], old="booked",
         new="checked_in")
    return {"reference": a["reference"], "status": "checked_in", "checked_in_at": now, "pet": a["pet_name"],
            "clinician": a["clinician"], "scheduled_start": a["scheduled_start"], "checked_in_by": staff["full_name"]}


@tool(write=True, actor="staff_email")
def complete_appointment(db: Db, staff_email: str, reference: str, clinical_notes: str) -> dict:
    """Close a checked-in appointment with the clinician's notes. Only the vet or nurse the appointment is booked with can complete it.

    Args:
        staff_email: email of the appointment's own clinician (the acting person).
        reference: the appointment reference, e.g. "APT-165332".
        clinical_notes: the clinical notes for the visit.
    """
    staff = _staff(db, staff_email)
    a = _appointment(db, reference)
    if a["staff_id"] != staff["id"]:
        raise ToolError(f"{a['reference']} is booked with {a['clinician']}; only that clinician can complete it")
    if a["status"] != "checked_in":
        raise ToolError(f"{a['reference']} is {a['status']}; only checked-in appointments can be completed (check it in first)")
    notes = _text(clinical_notes, "clinical_notes")
    now = _iso(db.now())
    db.execute("UPDATE appointments SET status = 'completed', completed_at = ?, clinical_notes = ? WHERE id = ?",
               (now, notes, a["id"]))
    _log(db, "appointment", a["id"], "completed", staff_id=staff["id"], owner_id=a["owner_id"], old="checked_in",
         new="completed")
    return {"reference": a["reference"], "status": "completed", "completed_at": now, "pet": a["pet_name"],
            "clinical_notes": notes, "next_step": "record treatments, vaccinations and prescriptions, then create_invoice"}


# ---------------------------------------------------------------- clinical records

@tool(write=True, actor="staff_email")
def record_treatment(db: Db, staff_email: str, reference: str, treatment_code: str, quantity: int = 1,
                     notes: str | None = None) -> dict:
    """Record a treatment performed during a checked-in or completed visit that has not been invoiced yet; the acting vet or nurse is recorded as the performer.

    Args:
        staff_email: email of the vet or nurse who performed it (the acting person).
        reference: the appointment reference, e.g. "APT-165332".
        treatment_code: the treatment code from list_treatment_types, e.g. "BLD".
        quantity: how many units (e.g. teeth extracted, days hospitalised), 1 to 20.
        notes: optional clinical note about the treatment.
    """
    staff = _staff(db, staff_email)
    _require_role(staff, CLINICAL, "record treatments")
    a = _appointment(db, reference)
    _require_branch(db, staff, a["branch_id"], a["branch"])
    if a["status"] not in ("checked_in", "completed"):
        raise ToolError(f"{a['reference']} is {a['status']}; treatments are recorded only for checked-in or completed visits")
    inv = db.one("SELECT invoice_number, status FROM invoices WHERE appointment_id = ?", (a["id"],))
    if inv is not None:
        raise ToolError(f"the visit is already invoiced ({inv['invoice_number']}, {inv['status']}); no more treatments can be added")
    code = _text(treatment_code, "treatment_code").upper()
    tt = db.one("SELECT id, code, name, price_cents, requires_vet, is_active FROM treatment_types WHERE UPPER(code) = ?", (code,))
    if tt is None:
        raise ToolError(f"no treatment {code!r}; use list_treatment_types")
    if not tt["is_active"]:
        raise ToolError(f"{tt['name']} is no longer offered")
    if tt["requires_vet"] and staff["role"] != "vet":
        raise ToolError(f"{tt['name']} must be performed by a vet; {staff['full_name']} is a {staff['role']}")
    if not isinstance(quantity, int) or quantity < 1 or quantity > 20:
        raise ToolError("quantity must be a whole number from 1 to 20")
    now = _iso(db.now())
    note = _text(notes, "notes", required=False)
    tid = db.insert("treatments", {
        "appointment_id": a["id"], "pet_id": a["pet_id"], "treatment_type_id": tt["id"],
        "performed_by_staff_id": staff["id"], "status": "performed", "quantity": quantity,
        "unit_price_cents": tt["price_cents"], "recorded_at": now, "performed_at": now, "notes": note,
    })
    _log(db, "treatment", tid, "performed", staff_id=staff["id"], owner_id=a["owner_id"],
         new=tt["code"] + " x" + str(quantity), details=tt["name"] + " for " + a["pet_name"] + " (" + a["reference"] + ")")
    return {"treatment_id": tid, "appointment": a["reference"], "pet": a["pet_name"], "treatment": tt["name"],
            "quantity": quantity, "unit_price_cents": tt["price_cents"], "line_total_cents": quantity * tt["price_cents"],
            "performed_by": staff["full_name"], "performed_at": now, "status": "performed"}


@tool
def get_vaccination_history(db: Db, pet_code: str) -> dict:
    """Show every vaccination a pet has had (newest first) and, per vaccine, whether it is up to date, due soon or overdue.

    Args:
        pet_code: the pet's code, e.g. "PT-19092".
    """
    p = _pet(db, pet_code)
    today = db.today()
    hist = db.query(
        "SELECT v.certificate_number, vc.code AS vaccine_code, vc.name AS vaccine, v.administered_on, v.next_due_on, "
        "v.status, v.batch_number, v.reaction_noted, v.notes, s.full_name AS administered_by, b.name AS branch, "
        "a.reference AS appointment_reference FROM vaccinations v JOIN vaccines vc ON vc.id = v.vaccine_id "
        "JOIN staff s ON s.id = v.administered_by_staff_id JOIN branches b ON b.id = v.branch_id "
        "LEFT JOIN appointments a ON a.id = v.appointment_id WHERE v.pet_id = ? ORDER BY v.administered_on DESC, v.id DESC",
        (p["id"],),
    )
    current = []
    for h in hist:
        h["reaction_noted"] = bool(h["reaction_noted"])
        if h["status"] == "valid":
            current.append({"vaccine_code": h["vaccine_code"], "vaccine": h["vaccine"], "last_given": h["administered_on"],
                            "next_due_on": h["next_due_on"], "state": _vaccine_state(h["next_due_on"], today)})
    never = db.query(
        "SELECT vc.code, vc.name, vc.is_core FROM vaccines vc WHERE vc.species_id = ? AND vc.is_active = 1 "
        "AND NOT EXISTS (SELECT 1 FROM vaccinations v WHERE v.pet_id = ? AND v.vaccine_id = vc.id AND v.status <> 'voided') "
        "ORDER BY vc.is_core DESC, vc.name",
        (p["species_id"], p["id"]),
    )
    return {"pet_code": p["pet_code"], "pet": p["name"], "species": p["species"], "status": p["status"],
            "owner": p["owner_name"], "as_of": today.isoformat(), "current": current, "never_given": never,
            "history": hist}


@tool
def list_due_vaccinations(db: Db, within_days: int = 0, branch_code: str | None = None, species_code: str | None = None,
                          limit: int = 50) -> dict:
    """List active pets whose latest valid vaccination is overdue (within_days 0) or falls due within the next N days, with the owner's contact and reminder preference.

    Args:
        within_days: 0 for overdue only (due before today); N to include boosters due up to N days from today (0 to 365).
        branch_code: only clients whose preferred branch is this one, e.g. "RIV".
        species_code: only this species, e.g. "DOG".
        limit: maximum number of results, 1 to 200.
    """
    check_limit(limit, 200)
    if not isinstance(within_days, int) or within_days < 0 or within_days > 365:
        raise ToolError("within_days must be a whole number from 0 to 365")
    bid = _opt_branch_id(db, branch_code)
    sp = _text(species_code, "species_code", required=False)
    today = db.today()
    if within_days == 0:
        cutoff = (today - timedelta(days=1)).isoformat()
    else:
        cutoff = (today + timedelta(days=within_days)).isoformat()
    rows = db.query(
        "SELECT p.pet_code, p.name AS pet, sp.name AS species, o.full_name AS owner, o.email AS owner_email, "
        "o.phone AS owner_phone, o.reminder_channel, b.name AS preferred_branch, vc.code AS vaccine_code, "
        "vc.name AS vaccine, v.administered_on AS last_given_on, v.next_due_on, v.certificate_number "
        "FROM vaccinations v JOIN pets p ON p.id = v.pet_id JOIN owners o ON o.id = p.owner_id "
        "JOIN branches b ON b.id = o.preferred_branch_id JOIN vaccines vc ON vc.id = v.vaccine_id "
        "JOIN species sp ON sp.id = p.species_id "
        "WHERE v.status = 'valid' AND p.status = 'active' AND o.status = 'active' AND v.next_due_on <= ? "
        "AND (? IS NULL OR o.preferred_branch_id = ?) AND (? IS NULL OR UPPER(sp.code) = UPPER(?) OR LOWER(sp.name) = LOWER(?)) "
        "AND NOT EXISTS (SELECT 1 FROM vaccinations v2 WHERE v2.pet_id = v.pet_id AND v2.vaccine_id = v.vaccine_id "
        "AND v2.status = 'valid' AND v2.administered_on > v.administered_on) "
        "ORDER BY v.next_due_on, p.name LIMIT ?",
        (cutoff, bid, bid, sp, sp, sp, limit),
    )
    for r in rows:
        r["state"] = _vaccine_state(r["next_due_on"], today)
        r["days_overdue"] = max(0, (today - date.fromisoformat(r["next_due_on"])).days)
    total = db.value(
        "SELECT COUNT(*) FROM vaccinations v JOIN pets p ON p.id = v.pet_id JOIN owners o ON o.id = p.owner_id "
        "JOIN species sp ON sp.id = p.species_id "
        "WHERE v.status = 'valid' AND p.status = 'active' AND o.status = 'active' AND v.next_due_on <= ? "
        "AND (? IS NULL OR o.preferred_branch_id = ?) AND (? IS NULL OR UPPER(sp.code) = UPPER(?) OR LOWER(sp.name) = LOWER(?)) "
        "AND NOT EXISTS (SELECT 1 FROM vaccinations v2 WHERE v2.pet_id = v.pet_id AND v2.vaccine_id = v.vaccine_id "
        "AND v2.status = 'valid' AND v2.administered_on > v.administered_on)",
        (cutoff, bid, bid, sp, sp, sp),
    )
    return {"as_of": today.isoformat(), "due_on_or_before": cutoff, "total_matching": total, "returned": len(rows),
            "items": rows}


@tool(write=True, actor="staff_email")
def record_vaccination(db: Db, staff_email: str, pet_code: str, vaccine_code: str, batch_number: str,
                       appointment_reference: str | None = None, reaction_noted: bool = False,
                       notes: str | None = None) -> dict:
    """Record a vaccine given today by the acting vet; the pet's previous valid record for the same vaccine becomes superseded and the next due date is set from the booster interval.

    Args:
        staff_email: email of the vet who gave the vaccine (the acting person).
        pet_code: the pet's code, e.g. "PT-19092".
        vaccine_code: the vaccine code from list_vaccines, e.g. "L4".
        batch_number: the batch number printed on the vial.
        appointment_reference: the checked-in or completed visit it was given in, if any (not yet invoiced).
        reaction_noted: true if the pet showed a reaction.
        notes: optional note, e.g. the reaction seen.
    """
    staff = _staff(db, staff_email)
    _require_role(staff, ("vet",), "give vaccinations")
    p = _pet(db, pet_code)
    if p["status"] != "active":
        raise ToolError(f"{p['name']} is {p['status']}; vaccinations can only be recorded for active pets")
    code = _text(vaccine_code, "vaccine_code").upper()
    vac = db.one(
        "SELECT id, code, name, species_id, booster_interval_days, price_cents, is_active FROM vaccines WHERE UPPER(code) = ?",
        (code,),
    )
    if vac is None:
        raise ToolError(f"no vaccine {code!r}; use list_vaccines")
    if not vac["is_active"]:
        raise ToolError(f"{vac['name']} is discontinued; use list_vaccines for current vaccines")
    if vac["species_id"] != p["species_id"]:
        raise ToolError(f"{vac['name']} is not licensed for a {p['species'].lower()}; use list_vaccines with species_code {p['species_code']}")
    batch = _text(batch_number, "batch_number")
    appt_id = None
    branch_id = staff["home_branch_id"]
    ref = _text(appointment_reference, "appointment_reference", required=False)
    if ref is not None:
        a = _appointment(db, ref, "appointment_reference")
        if a["pet_id"] != p["id"]:
            raise ToolError(f"{a['reference']} is for {a['pet_name']}, not {p['name']}")
        if a["status"] not in ("checked_in", "completed"):
            raise ToolError(f"{a['reference']} is {a['status']}; use a checked-in or completed visit")
        inv = db.one("SELECT invoice_number FROM invoices WHERE appointment_id = ?", (a["id"],))
        if inv is not None:
            raise ToolError(f"the visit is already invoiced ({inv['invoice_number']}); record the vaccination without the appointment")
        _require_branch(db, staff, a["branch_id"], a["branch"])
        appt_id = a["id"]
        branch_id = a["branch_id"]
    today = db.today()
    old = db.query("SELECT certificate_number FROM vaccinations WHERE pet_id = ? AND vaccine_id = ? AND status = 'valid'",
                   (p["id"], vac["id"]))
    db.execute("UPDATE vaccinations SET status = 'superseded' WHERE pet_id = ? AND vaccine_id = ? AND status = 'valid'",
               (p["id"], vac["id"]))
    cert = _next_code(db.value(
        "SELECT MAX(CAST(SUBSTR(certificate_number, 4) AS INTEGER)) FROM vaccinations WHERE SUBSTR(certificate_number, 1, 3) = 'VC-'", ()),
        "VC-", 6, 100001)
    due = (today + timedelta(days=vac["booster_interval_days"])).isoformat()
    vid = db.insert("vaccinations", {
        "certificate_number": cert, "pet_id": p["id"], "vaccine_id": vac["id"], "appointment_id": appt_id,
        "branch_id": branch_id, "administered_by_staff_id": staff["id"], "administered_on": today.isoformat(),
        "batch_number": batch, "next_due_on": due, "status": "valid", "reaction_noted": 1 if reaction_noted else 0,
        "notes": _text(notes, "notes", required=False),
    })
    _log(db, "vaccination", vid, "administered", staff_id=staff["id"], owner_id=p["owner_id"], new=due,
         details=vac["name"] + " for " + p["name"] + ", batch " + batch)
    return {"certificate_number": cert, "pet": p["name"], "pet_code": p["pet_code"], "vaccine": vac["name"],
            "administered_on": today.isoformat(), "next_due_on": due, "administered_by": staff["full_name"],
            "superseded_certificates": [r["certificate_number"] for r in old], "price_cents": vac["price_cents"],
            "appointment": ref}


@tool
def list_prescriptions(db: Db, pet_code: str | None = None, owner_email: str | None = None,
                       status: Literal["active", "completed", "cancelled", "expired"] | None = None,
                       prescribed_by: str | None = None, prescription_number: str | None = None, limit: int = 20) -> list[dict]:
    """List prescriptions with medication, dosage, refills and status, filtered by pet, client, status, prescribing vet or number (newest first).

    Args:
        pet_code: only this pet's prescriptions.
        owner_email: only prescriptions for this client's pets.
        status: only this status.
        prescribed_by: only those written by this vet (staff number or email).
        prescription_number: one prescription by its number, e.g. "RX-356913".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    pid = _pet(db, pet_code)["id"] if _text(pet_code, "pet_code", required=False) else None
    oid = _owner(db, owner_email)["id"] if _text(owner_email, "owner_email", required=False) else None
    sid = _find_staff(db, prescribed_by, "prescribed_by")["id"] if _text(prescribed_by, "prescribed_by", required=False) else None
    num = _text(prescription_number, "prescription_number", required=False)
    return db.query(
        "SELECT r.prescription_number, r.status, p.pet_code, p.name AS pet, o.full_name AS owner, m.code AS medication_code, "
        "m.name AS medication, m.strength, m.is_controlled, r.quantity, r.unit_price_cents, r.dosage_instructions, "
        "r.refills_allowed, r.refills_used, r.prescribed_at, r.expires_on, s.full_name AS prescribed_by, "
        "a.reference AS appointment_reference, r.cancelled_at, r.cancellation_reason FROM prescriptions r "
        "JOIN pets p ON p.id = r.pet_id JOIN owners o ON o.id = p.owner_id JOIN medications m ON m.id = r.medication_id "
        "JOIN staff s ON s.id = r.prescribed_by_staff_id LEFT JOIN appointments a ON a.id = r.appointment_id "
        "WHERE (? IS NULL OR r.pet_id = ?) AND (? IS NULL OR p.owner_id = ?) AND (? IS NULL OR r.status = ?) "
        "AND (? IS NULL OR r.prescribed_by_staff_id = ?) AND (? IS NULL OR UPPER(r.prescription_number) = UPPER(?)) "
        "ORDER BY r.prescribed_at DESC LIMIT ?",
        (pid, pid, oid, oid, status, status, sid, sid, num, num, limit),
    )


@tool(write=True, actor="staff_email")
def issue_prescription(db: Db, staff_email: str, pet_code: str, medication_code: str, quantity: int,
                       dosage_instructions: str, refills_allowed: int = 0, appointment_reference: str | None = None) -> dict:
    """Write a prescription for an active pet as the acting vet. Controlled drugs get no refills and expire after 28 days; others expire after 180 days.

    Args:
        staff_email: email of the prescribing vet (the acting person).
        pet_code: the pet's code, e.g. "PT-19092".
        medication_code: the medication code from search_medications, e.g. "APQ16".
        quantity: number of units to dispense (tablets, ml, pipettes ...), 1 to 500.
        dosage_instructions: the dosing instructions for the label.
        refills_allowed: number of repeat dispensings allowed, 0 to 6.
        appointment_reference: the checked-in or completed visit it belongs to, if any.
    """
    staff = _staff(db, staff_email)
    _require_role(staff, ("vet",), "prescribe medication")
    p = _pet(db, pet_code)
    if p["status"] != "active":
        raise ToolError(f"{p['name']} is {p['status']}; prescriptions are only for active pets")
    code = _text(medication_code, "medication_code").upper()
    m = db.one("SELECT id, code, name, strength, form, unit_price_cents, is_controlled, is_active FROM medications "
               "WHERE UPPER(code) = ?", (code,))
    if m is None:
        raise ToolError(f"no medication {code!r}; use search_medications")
    if not m["is_active"]:
        raise ToolError(f"{m['name']} {m['strength']} is no longer stocked; choose another with search_medications")
    if not isinstance(quantity, int) or quantity < 1 or quantity > 500:
        raise ToolError("quantity must be a whole number from 1 to 500")
    if not isinstance(refills_allowed, int) or refills_allowed < 0 or refills_allowed > 6:
        raise ToolError("refills_allowed must be a whole number from 0 to 6")
    if m["is_controlled"] and refills_allowed > 0:
        raise ToolError(f"{m['name']} is a controlled drug; it cannot have refills (use refills_allowed 0)")
    dosage = _text(dosage_instructions, "dosage_instructions")
    appt_id = None
    ref = _text(appointment_reference, "appointment_reference", required=False)
    if ref is not None:
        a = _appointment(db, ref, "appointment_reference")
        if a["pet_id"] != p["id"]:
            raise ToolError(f"{a['reference']} is for {a['pet_name']}, not {p['name']}")
        if a["status"] not in ("checked_in", "completed"):
            raise ToolError(f"{a['reference']} is {a['status']}; link a checked-in or completed visit")
        appt_id = a["id"]
    now = db.now()
    expires = (now.date() + timedelta(days=28 if m["is_controlled"] else 180)).isoformat()
    number = _next_code(db.value(
        "SELECT MAX(CAST(SUBSTR(prescription_number, 4) AS INTEGER)) FROM prescriptions WHERE SUBSTR(prescription_number, 1, 3) = 'RX-'", ()),
        "RX-", 6, 100001)
    rid = db.insert("prescriptions", {
        "prescription_number": number, "pet_id": p["id"], "appointment_id": appt_id, "medication_id": m["id"],
        "prescribed_by_staff_id": staff["id"], "prescribed_at": _iso(now), "dosage_instructions": dosage,
        "quantity": quantity, "unit_price_cents": m["unit_price_cents"], "refills_allowed": refills_allowed,
        "refills_used": 0, "status": "active", "expires_on": expires, "cancelled_at": None, "cancellation_reason": None,
    })
    _log(db, "prescription", rid, "issued", staff_id=staff["id"], owner_id=p["owner_id"], new="active",
         details=m["name"] + " " + m["strength"] + " x" + str(quantity) + " for " + p["name"])
    return {"prescription_number": number, "pet": p["name"], "medication": m["name"] + " " + m["strength"],
            "quantity": quantity, "dosage_instructions": dosage, "refills_allowed": refills_allowed,
            "expires_on": expires, "prescribed_by": staff["full_name"], "status": "active",
            "cost_cents": quantity * m["unit_price_cents"], "pet_allergies": p["allergies"], "appointment": ref}


@tool(write=True, actor="staff_email")
def cancel_prescription(db: Db, staff_email: str, prescription_number: str, reason: str) -> dict:
    """Cancel an active prescription. Only the vet who wrote it, or the practice manager of that vet's home branch, can cancel it.

    Args:
        staff_email: email of the prescribing vet or their practice manager (the acting person).
        prescription_number: the prescription number, e.g. "RX-356913".
        reason: why it is cancelled.
    """
    staff = _staff(db, staff_email)
    num = _text(prescription_number, "prescription_number").upper()
    r = db.one(
        "SELECT r.id, r.prescription_number, r.status, r.prescribed_by_staff_id, s.full_name AS prescriber, "
        "s.home_branch_id AS prescriber_branch, p.name AS pet, p.owner_id, m.name AS medication, m.strength "
        "FROM prescriptions r JOIN staff s ON s.id = r.prescribed_by_staff_id JOIN pets p ON p.id = r.pet_id "
        "JOIN medications m ON m.id = r.medication_id WHERE UPPER(r.prescription_number) = ?",
        (num,),
    )
    if r is None:
        raise ToolError(f"no prescription {num!r}; use list_prescriptions")
    allowed = staff["id"] == r["prescribed_by_staff_id"] or (
        staff["role"] == "practice_manager" and staff["home_branch_id"] == r["prescriber_branch"])
    if not allowed:
        raise ToolError(f"{r['prescription_number']} was written by {r['prescriber']}; only they or their branch's practice manager can cancel it")
    if r["status"] != "active":
        raise ToolError(f"{r['prescription_number']} is {r['status']}; only active prescriptions can be cancelled")
    why = _text(reason, "reason")
    now = _iso(db.now())
    db.execute("UPDATE prescriptions SET status = 'cancelled', cancelled_at = ?, cancellation_reason = ? WHERE id = ?",
               (now, why, r["id"]))
    _log(db, "prescription", r["id"], "cancelled", staff_id=staff["id"], owner_id=r["owner_id"], old="active",
         new="cancelled", details=why)
    return {"prescription_number": r["prescription_number"], "status": "cancelled", "cancelled_at": now, "reason": why,
            "pet": r["pet"], "medication": r["medication"] + " " + r["strength"], "cancelled_by": staff["full_name"]}


# ---------------------------------------------------------------- billing

@tool
def list_invoices(db: Db, owner_email: str | None = None, status: Literal["draft", "issued", "partially_paid", "paid", "void"] | None = None,
                  branch_code: str | None = None, date_from: str | None = None, date_to: str | None = None,
                  overdue_only: bool = False, limit: int = 20) -> list[dict]:
    """List invoices with totals, amount paid and outstanding, filtered by client, status, branch, creation date range or overdue.

    Args:
        owner_email: only this client's invoices.
        status: only this status.
        branch_code: only this branch, e.g. "RIV".
        date_from: first creation day (ISO date), inclusive.
        date_to: last creation day (ISO date), inclusive.
        overdue_only: only issued or partly paid invoices whose due date has passed.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    oid = _owner(db, owner_email)["id"] if _text(owner_email, "owner_email", required=False) else None
    bid = _opt_branch_id(db, branch_code)
    lo, hi = _day_bounds(date_from, date_to)
    today = db.today().isoformat()
    rows = db.query(
        "SELECT i.invoice_number, i.status, o.full_name AS owner, o.email AS owner_email, b.name AS branch, "
        "a.reference AS appointment_reference, i.created_at, i.issued_at, i.due_on, i.subtotal_cents, i.discount_cents, "
        "i.tax_cents, i.total_cents, i.amount_paid_cents, i.total_cents - i.amount_paid_cents AS outstanding_cents, "
        "i.paid_at, i.voided_at FROM invoices i JOIN owners o ON o.id = i.owner_id JOIN branches b ON b.id = i.branch_id "
        "LEFT JOIN appointments a ON a.id = i.appointment_id "
        "WHERE (? IS NULL OR i.owner_id = ?) AND (? IS NULL OR i.status = ?) AND (? IS NULL OR i.branch_id = ?) "
        "AND (? IS NULL OR i.created_at >= ?) AND (? IS NULL OR i.created_at < ?) "
        "AND (? = 0 OR (i.status IN ('issued', 'partially_paid') AND i.due_on < ?)) "
        "ORDER BY i.created_at DESC LIMIT ?",
        (oid, oid, status, status, bid, bid, lo, lo, hi, hi, 1 if overdue_only else 0, today, limit),
    )
    for r in rows:
        if r["status"] in ("draft", "void"):
            r["outstanding_cents"] = 0
    return rows


@tool
def get_invoice(db: Db, invoice_number: str) -> dict:
    """Show one invoice with its lines, payments (including refunds), totals and what is still owed.

    Args:
        invoice_number: the invoice number, e.g. "INV-2025-00001".
    """
    inv = _invoice(db, invoice_number)
    iid = inv.pop("id")
    inv.pop("owner_id")
    inv.pop("branch_id")
    inv.pop("appointment_id")
    inv["lines"] = db.query(
        "SELECT line_type, description, quantity, unit_price_cents, line_total_cents FROM invoice_lines "
        "WHERE invoice_id = ? ORDER BY id",
        (iid,),
    )
    inv["payments"] = db.query(
        "SELECT p.payment_reference, p.amount_cents, p.method, p.status, p.paid_at, s.full_name AS received_by, "
        "p.refunded_at, p.refund_reason FROM payments p LEFT JOIN staff s ON s.id = p.received_by_staff_id "
        "WHERE p.invoice_id = ? ORDER BY p.paid_at, p.id",
        (iid,),
    )
    inv["outstanding_cents"] = 0 if inv["status"] in ("draft", "void") else inv["total_cents"] - inv["amount_paid_cents"]
    inv["overdue"] = bool(inv["status"] in ("issued", "partially_paid") and inv["due_on"]
                          and inv["due_on"] < db.today().isoformat())
    return inv


@tool(write=True, actor="staff_email")
def create_invoice(db: Db, staff_email: str, appointment_reference: str, discount_cents: int = 0, issue: bool = True) -> dict:
    """Bill a completed visit: one invoice with the appointment fee, performed treatments, valid vaccinations and non-cancelled prescriptions of that visit, plus 8% tax. Only front-desk staff working at the visit's branch can do this.

    Args:
        staff_email: email of the receptionist or practice manager (the acting person).
        appointment_reference: the completed appointment, e.g. "APT-165332".
        discount_cents: discount in cents taken off before tax (0 for none).
        issue: true to issue it now (due in 14 days); false to leave it as a draft.
    """
    staff = _staff(db, staff_email)
    _require_role(staff, FRONT_DESK, "create invoices")
    a = _appointment(db, appointment_reference, "appointment_reference")
    _require_branch(db, staff, a["branch_id"], a["branch"])
    if a["status"] != "completed":
        raise ToolError(f"{a['reference']} is {a['status']}; only completed visits can be invoiced")
    existing = db.one("SELECT invoice_number, status FROM invoices WHERE appointment_id = ?", (a["id"],))
    if existing is not None:
        raise ToolError(f"{a['reference']} is already invoiced as {existing['invoice_number']} ({existing['status']})")
    lines = []
    if a["base_fee_cents"] > 0:
        lines.append({"line_type": "consultation", "description": a["type_name"], "quantity": 1,
                      "unit_price_cents": a["base_fee_cents"], "treatment_id": None, "vaccination_id": None,
                      "prescription_id": None})
    for t in db.query(
            "SELECT t.id, tt.name, t.quantity, t.unit_price_cents FROM treatments t JOIN treatment_types tt "
            "ON tt.id = t.treatment_type_id WHERE t.appointment_id = ? AND t.status = 'performed' ORDER BY t.id", (a["id"],)):
        lines.append({"line_type": "treatment", "description": t["name"], "quantity": t["quantity"],
                      "unit_price_cents": t["unit_price_cents"], "treatment_id": t["id"], "vaccination_id": None,
                      "prescription_id": None})
    for v in db.query(
            "SELECT v.id, vc.name, vc.price_cents FROM vaccinations v JOIN vaccines vc ON vc.id = v.vaccine_id "
            "WHERE v.appointment_id = ? AND v.status <> 'voided' ORDER BY v.id", (a["id"],)):
        lines.append({"line_type": "vaccination", "description": v["name"], "quantity": 1,
                      "unit_price_cents": v["price_cents"], "treatment_id": None, "vaccination_id": v["id"],
                      "prescription_id": None})
    for r in db.query(
            "SELECT r.id, m.name, m.strength, r.quantity, r.unit_price_cents FROM prescriptions r "
            "JOIN medications m ON m.id = r.medication_id WHERE r.appointment_id = ? AND r.status <> 'cancelled' ORDER BY r.id",
            (a["id"],)):
        lines.append({"line_type": "prescription", "description": r["name"] + " " + r["strength"],
                      "quantity": r["quantity"], "unit_price_cents": r["unit_price_cents"], "treatment_id": None,
                      "vaccination_id": None, "prescription_id": r["id"]})
    subtotal = sum(ln["quantity"] * ln["unit_price_cents"] for ln in lines)
    if subtotal <= 0:
        raise ToolError(f"{a['reference']} has nothing chargeable; record treatments first or leave it unbilled")
    if not isinstance(discount_cents, int) or discount_cents < 0 or discount_cents > subtotal:
        raise ToolError(f"discount_cents must be a whole number from 0 to the subtotal ({subtotal})")
    tax = ((subtotal - discount_cents) * TAX_PCT + 50) // 100
    total = subtotal - discount_cents + tax
    now = db.now()
    next_id = (db.value("SELECT MAX(id) FROM invoices", ()) or 0) + 1
    number = "INV-%d-%05d" % (now.year, next_id)
    status = "issued" if issue else "draft"
    due = (now.date() + timedelta(days=PAYMENT_TERMS_DAYS)).isoformat() if issue else None
    iid = db.insert("invoices", {
        "invoice_number": number, "owner_id": a["owner_id"], "branch_id": a["branch_id"], "appointment_id": a["id"],
        "created_by_staff_id": staff["id"], "status": status, "subtotal_cents": subtotal, "discount_cents": discount_cents,
        "tax_cents": tax, "total_cents": total, "amount_paid_cents": 0, "created_at": _iso(now),
        "issued_at": _iso(now) if issue else None, "due_on": due, "paid_at": None, "voided_at": None, "void_reason": None,
    })
    for ln in lines:
        row = dict(ln)
        row["invoice_id"] = iid
        row["line_total_cents"] = ln["quantity"] * ln["unit_price_cents"]
        db.insert("invoice_lines", row)
    _log(db, "invoice", iid, "issued" if issue else "created", staff_id=staff["id"], owner_id=a["owner_id"],
         new=status, details=number + " total " + str(total))
    return {"invoice_number": number, "status": status, "appointment": a["reference"], "owner": a["owner_name"],
            "lines": [{"line_type": ln["line_type"], "description": ln["description"], "quantity": ln["quantity"],
                       "unit_price_cents": ln["unit_price_cents"]} for ln in lines],
            "subtotal_cents": subtotal, "discount_cents": discount_cents, "tax_cents": tax, "total_cents": total,
            "total": _money(total), "due_on": due, "created_by": staff["full_name"]}


@tool(write=True, actor="staff_email")
def record_payment(db: Db, staff_email: str, invoice_number: str, amount_cents: int,
                   method: Literal["card", "cash", "bank_transfer", "insurance"]) -> dict:
    """Record a payment against an issued or partly paid invoice, up to the amount still owed; the acting front-desk staff member is recorded as receiving it.

    Args:
        staff_email: email of the receptionist or practice manager taking the payment (the acting person).
        invoice_number: the invoice number, e.g. "INV-2026-00150".
        amount_cents: the amount paid in cents, e.g. 4147 for $41.47.
        method: card, cash, bank_transfer or insurance.
    """
    staff = _staff(db, staff_email)
    _require_role(staff, FRONT_DESK, "take payments")
    inv = _invoice(db, invoice_number)
    _require_branch(db, staff, inv["branch_id"], inv["branch"])
    if inv["status"] == "draft":
        raise ToolError(f"{inv['invoice_number']} is still a draft; it must be issued before it can be paid")
    if inv["status"] not in ("issued", "partially_paid"):
        raise ToolError(f"{inv['invoice_number']} is {inv['status']}; nothing is owed on it")
    if method not in ("card", "cash", "bank_transfer", "insurance"):
        raise ToolError("method must be card, cash, bank_transfer or insurance")
    owed = inv["total_cents"] - inv["amount_paid_cents"]
    if not isinstance(amount_cents, int) or amount_cents < 1:
        raise ToolError("amount_cents must be a positive whole number of cents")
    if amount_cents > owed:
        raise ToolError(f"{inv['invoice_number']} has only {owed} cents ({_money(owed)}) outstanding; take at most that")
    now = _iso(db.now())
    next_id = (db.value("SELECT MAX(id) FROM payments", ()) or 0) + 1
    ref = "PAY-N%07d" % next_id
    pid = db.insert("payments", {
        "payment_reference": ref, "invoice_id": inv["id"], "owner_id": inv["owner_id"], "amount_cents": amount_cents,
        "method": method, "status": "completed", "paid_at": now, "received_by_staff_id": staff["id"],
        "refunded_at": None, "refund_reason": None,
    })
    paid = inv["amount_paid_cents"] + amount_cents
    new_status = "paid" if paid >= inv["total_cents"] else "partially_paid"
    db.execute("UPDATE invoices SET amount_paid_cents = ?, status = ?, paid_at = ? WHERE id = ?",
               (paid, new_status, now if new_status == "paid" else None, inv["id"]))
    _log(db, "payment", pid, "recorded", staff_id=staff["id"], owner_id=inv["owner_id"], new=str(amount_cents),
         details=method + " payment for " + inv["invoice_number"])
    return {"payment_reference": ref, "invoice_number": inv["invoice_number"], "owner": inv["owner_name"],
            "amount_cents": amount_cents, "amount": _money(amount_cents), "method": method, "paid_at": now,
            "invoice_status": new_status, "amount_paid_cents": paid,
            "outstanding_cents": inv["total_cents"] - paid, "received_by": staff["full_name"]}


@tool(write=True, actor="staff_email")
def void_invoice(db: Db, staff_email: str, invoice_number: str, reason: str) -> dict:
    """Void a draft or issued invoice that has no payments on it. Only the practice manager of the invoice's branch can do this.

    Args:
        staff_email: email of the branch's practice manager (the acting person).
        invoice_number: the invoice number, e.g. "INV-2026-00150".
        reason: why it is voided.
    """
    staff = _staff(db, staff_email)
    _require_role(staff, ("practice_manager",), "void invoices")
    inv = _invoice(db, invoice_number)
    if staff["home_branch_id"] != inv["branch_id"]:
        raise ToolError(f"{inv['invoice_number']} belongs to the {inv['branch']} branch; only its practice manager can void it")
    if inv["status"] not in ("draft", "issued"):
        raise ToolError(f"{inv['invoice_number']} is {inv['status']}; only draft or unpaid issued invoices can be voided")
    if inv["amount_paid_cents"] > 0:
        raise ToolError(f"{inv['invoice_number']} already has payments; they must be refunded first")
    why = _text(reason, "reason")
    now = _iso(db.now())
    db.execute("UPDATE invoices SET status = 'void', voided_at = ?, void_reason = ? WHERE id = ?", (now, why, inv["id"]))
    _log(db, "invoice", inv["id"], "voided", staff_id=staff["id"], owner_id=inv["owner_id"], old=inv["status"],
         new="void", details=why)
    return {"invoice_number": inv["invoice_number"], "status": "void", "voided_at": now, "reason": why,
            "total_cents": inv["total_cents"], "owner": inv["owner_name"], "voided_by": staff["full_name"]}


@tool
def list_payments(db: Db, owner_email: str | None = None, invoice_number: str | None = None,
                  method: Literal["card", "cash", "bank_transfer", "insurance"] | None = None,
                  status: Literal["completed", "refunded"] | None = None, branch_code: str | None = None,
                  date_from: str | None = None, date_to: str | None = None, limit: int = 20) -> dict:
    """List payments (newest first) with their invoice, method, status and who received them, plus the count and the completed total of everything matching.

    Args:
        owner_email: only this client's payments.
        invoice_number: only payments on this invoice.
        method: only this payment method.
        status: completed or refunded.
        branch_code: only payments on invoices of this branch.
        date_from: first payment day (ISO date), inclusive.
        date_to: last payment day (ISO date), inclusive.
        limit: maximum number of payments listed, 1 to 100.
    """
    check_limit(limit, 100)
    oid = _owner(db, owner_email)["id"] if _text(owner_email, "owner_email", required=False) else None
    iid = _invoice(db, invoice_number)["id"] if _text(invoice_number, "invoice_number", required=False) else None
    bid = _opt_branch_id(db, branch_code)
    lo, hi = _day_bounds(date_from, date_to)
    params = (oid, oid, iid, iid, method, method, status, status, bid, bid, lo, lo, hi, hi)
    rows = db.query(
        "SELECT p.payment_reference, p.paid_at, p.amount_cents, p.method, p.status, i.invoice_number, "
        "o.full_name AS owner, b.name AS branch, s.full_name AS received_by, p.refunded_at, p.refund_reason "
        "FROM payments p JOIN invoices i ON i.id = p.invoice_id JOIN owners o ON o.id = p.owner_id "
        "JOIN branches b ON b.id = i.branch_id LEFT JOIN staff s ON s.id = p.received_by_staff_id "
        "WHERE (? IS NULL OR p.owner_id = ?) AND (? IS NULL OR p.invoice_id = ?) AND (? IS NULL OR p.method = ?) "
        "AND (? IS NULL OR p.status = ?) AND (? IS NULL OR i.branch_id = ?) AND (? IS NULL OR p.paid_at >= ?) "
        "AND (? IS NULL OR p.paid_at < ?) ORDER BY p.paid_at DESC, p.id DESC LIMIT ?",
        params + (limit,),
    )
    summary = db.one(
        "SELECT COUNT(*) AS payments, COALESCE(SUM(CASE WHEN p.status = 'completed' THEN p.amount_cents ELSE 0 END), 0) "
        "AS completed_total_cents, COALESCE(SUM(CASE WHEN p.status = 'refunded' THEN p.amount_cents ELSE 0 END), 0) "
        "AS refunded_total_cents FROM payments p JOIN invoices i ON i.id = p.invoice_id "
        "WHERE (? IS NULL OR p.owner_id = ?) AND (? IS NULL OR p.invoice_id = ?) AND (? IS NULL OR p.method = ?) "
        "AND (? IS NULL OR p.status = ?) AND (? IS NULL OR i.branch_id = ?) AND (? IS NULL OR p.paid_at >= ?) "
        "AND (? IS NULL OR p.paid_at < ?)",
        params,
    )
    return {"matching_payments": summary["payments"], "completed_total_cents": summary["completed_total_cents"],
            "completed_total": _money(summary["completed_total_cents"]),
            "refunded_total_cents": summary["refunded_total_cents"], "returned": len(rows), "payments": rows}


# ---------------------------------------------------------------- history

@tool
def get_record_history(db: Db, entity_type: Literal["owner", "pet", "appointment", "vaccination", "treatment", "prescription", "invoice", "payment", "staff"],
                       reference: str, limit: int = 50) -> dict:
    """Show the activity log of one record (who did what, when, old and new values), oldest first.

    Args:
        entity_type: the kind of record.
        reference: its identifier: owner email or client number, pet code, appointment reference, vaccination certificate number, treatment id, prescription number, invoice number, payment reference, or staff email / staff number.
        limit: maximum number of entries, 1 to 200.
    """
    check_limit(limit, 200)
    ref = _text(reference, "reference")
    eid = None
    if entity_type == "owner":
        eid = db.value("SELECT id FROM owners WHERE LOWER(email) = LOWER(?) OR UPPER(client_number) = UPPER(?)", (ref, ref))
    elif entity_type == "pet":
        eid = db.value("SELECT id FROM pets WHERE UPPER(pet_code) = UPPER(?)", (ref,))
    elif entity_type == "appointment":
        eid = db.value("SELECT id FROM appointments WHERE UPPER(reference) = UPPER(?)", (ref,))
    elif entity_type == "vaccination":
        eid = db.value("SELECT id FROM vaccinations WHERE UPPER(certificate_number) = UPPER(?)", (ref,))
    elif entity_type == "treatment":
        if ref.isdigit():
            eid = db.value("SELECT id FROM treatments WHERE id = ?", (int(ref),))
    elif entity_type == "prescription":
        eid = db.value("SELECT id FROM prescriptions WHERE UPPER(prescription_number) = UPPER(?)", (ref,))
    elif entity_type == "invoice":
        eid = db.value("SELECT id FROM invoices WHERE UPPER(invoice_number) = UPPER(?)", (ref,))
    elif entity_type == "payment":
        eid = db.value("SELECT id FROM payments WHERE UPPER(payment_reference) = UPPER(?)", (ref,))
    elif entity_type == "staff":
        eid = db.value("SELECT id FROM staff WHERE LOWER(email) = LOWER(?) OR UPPER(staff_number) = UPPER(?)", (ref, ref))
    else:
        raise ToolError("entity_type must be one of owner, pet, appointment, vaccination, treatment, prescription, invoice, payment, staff")
    if eid is None:
        raise ToolError(f"no {entity_type} found for {ref!r}")
    rows = db.query(
        "SELECT l.occurred_at, l.action, l.old_value, l.new_value, l.details, s.full_name AS by_staff, s.role AS staff_role, "
        "o.full_name AS client FROM activity_log l LEFT JOIN staff s ON s.id = l.staff_id LEFT JOIN owners o ON o.id = l.owner_id "
        "WHERE l.entity_type = ? AND l.entity_id = ? ORDER BY l.occurred_at, l.id LIMIT ?",
        (entity_type, eid, limit),
    )
    return {"entity_type": entity_type, "reference": ref, "entries": rows}
