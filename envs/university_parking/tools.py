import re
from datetime import date, timedelta
from typing import Literal

from awm.tooling import Db, ToolError, check_limit, like_contains, now_iso, tool

ELIGIBLE = {
    "students": ("undergraduate", "graduate"),
    "residents": ("undergraduate", "graduate"),
    "graduate_students": ("graduate",),
    "employees": ("faculty", "staff"),
    "all": ("undergraduate", "graduate", "faculty", "staff"),
}
STUDENT_TYPES = ("undergraduate", "graduate")
EMPLOYEE_TYPES = ("faculty", "staff")
HELD_STATUSES = ("active", "suspended", "pending_payment")
OPEN_APPLICATION_STATUSES = ("submitted", "under_review", "approved", "waitlisted")
PAYABLE_CITATION_STATUSES = ("unpaid", "reduced", "sent_to_collections")
MOTORCYCLE_PERMITS = frozenset({"MC"})
EV_PERMITS = frozenset({"EV"})
ACCESSIBLE_PERMITS = frozenset({"AD"})
APPEAL_WINDOW_DAYS = 21
PAYMENT_DUE_DAYS = 21
DECISION_DUE_DAYS = 14
LARGE_REFUND_CENTS = 50000
MAX_ACTIVE_VEHICLES = 4
DUPLICATE_CITATION_MINUTES = 60
PLATE_RE = re.compile(r"^[A-Z0-9]{2,8}$")
STATE_RE = re.compile(r"^[A-Z]{2}$")



# ---------------------------------------------------------------- helpers

def _email(value: str | None) -> str:
    return (value or "").strip().lower()


def _member(db: Db, email: str) -> dict:
    row = db.one(
        "SELECT id, university_id, full_name, email, member_type, status, has_accessible_placard "
        "FROM campus_members WHERE email = ?",
        (_email(email),),
    )
    if row is None:
        raise ToolError(f"no campus member with email {email!r}; check the address or use find_members")
    return row


def _staff(db: Db, email: str, roles: tuple) -> dict:
    row = db.one("SELECT id, full_name, email, role, is_active FROM staff WHERE email = ?", (_email(email),))
    if row is None:
        raise ToolError(f"no parking office staff member with email {email!r}; use find_staff")
    if row["is_active"] != 1:
        raise ToolError(f"staff account {row['email']} is inactive and cannot make changes")
    if row["role"] not in roles:
        raise ToolError(f"{row['full_name']} is a {row['role']}; this action needs one of these roles: "
                        + ", ".join(roles))
    return row


def _plate(value: str) -> str:
    plate = re.sub(r"[\s\-]", "", value or "").upper()
    if not PLATE_RE.match(plate):
        raise ToolError(f"plate number {value!r} is not valid; use 2 to 8 letters and digits, e.g. \"ABC123\"")
    return plate


def _state(value: str) -> str:
    state = (value or "").strip().upper()
    if not STATE_RE.match(state):
        raise ToolError(f"plate state {value!r} is not valid; use the two-letter code, e.g. \"OR\"")
    return state


def _date(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value.strip())
    except (ValueError, AttributeError, TypeError):
        raise ToolError(f"{name} must be a date like 2026-02-16, not {value!r}")


def _text(value: str | None, name: str, required: bool = True) -> str | None:
    text = (value or "").strip()
    if not text:
        if required:
            raise ToolError(f"give the {name}")
        return None
    if len(text) > 1000:
        raise ToolError(f"{name} is too long; keep it under 1000 characters")
    return text


def _log(db: Db, staff_id, member_id, entity_type: str, entity_id: int, action: str, old, new, details) -> None:
    db.insert("activity_log", {
        "occurred_at": now_iso(db), "staff_id": staff_id, "member_id": member_id, "entity_type": entity_type,
        "entity_id": entity_id, "action": action, "old_status": old, "new_status": new, "details": details,
    })


def _period_term(code: str) -> str | None:
    if code.startswith("AY"):
        return "annual"
    if code.startswith("SU"):
        return "summer"
    if code.startswith("SP") or code.startswith("FA"):
        return "semester"
    if code.startswith("M"):
        return "monthly"
    return None


def _phase(period: dict, today: str) -> str:
    if period["ends_on"] < today:
        return "past"
    if period["starts_on"] > today:
        return "upcoming"
    return "current"


def _period(db: Db, code: str) -> dict:
    row = db.one(
        "SELECT id, code, name, starts_on, ends_on, sales_open_on, renewal_deadline FROM permit_periods WHERE code = ?",
        ((code or "").strip().upper(),),
    )
    if row is None:
        raise ToolError(f"no permit period {code!r}; use list_permit_periods to see the codes, e.g. \"SP2026\"")
    return row


def _permit_type(db: Db, code: str) -> dict:
    row = db.one(
        "SELECT id, code, name, eligible_member_types, term, price_cents, max_vehicles, capacity, requires_review, "
        "is_active, description FROM permit_types WHERE code = ?",
        ((code or "").strip().upper(),),
    )
    if row is None:
        raise ToolError(f"no permit type {code!r}; use list_permit_types to see the codes")
    return row


def _own_vehicle(db: Db, member: dict, plate_number: str, plate_state: str) -> dict:
    plate, state = _plate(plate_number), _state(plate_state)
    row = db.one(
        "SELECT id, member_id, plate_number, plate_state, make, model, color, vehicle_type, status "
        "FROM vehicles WHERE plate_number = ? AND plate_state = ?",
        (plate, state),
    )
    if row is None:
        raise ToolError(f"no vehicle {state} {plate} is registered; register it first with register_vehicle")
    if row["member_id"] != member["id"]:
        raise ToolError(f"vehicle {state} {plate} is not registered to {member['email']}")
    if row["status"] != "active":
        raise ToolError(f"vehicle {state} {plate} was removed from the account; register it again first")
    return row


def _vehicle_fit_error(permit_code: str, vehicle_type: str) -> str | None:
    if permit_code in MOTORCYCLE_PERMITS and vehicle_type != "motorcycle":
        return "this permit is for motorcycles only"
    if permit_code not in MOTORCYCLE_PERMITS and vehicle_type == "motorcycle":
        return "motorcycles need the motorcycle permit (MC)"
    if permit_code in EV_PERMITS and vehicle_type != "electric":
        return "this permit is for electric vehicles only"
    return None


def _previous_period(db: Db, period: dict, term: str) -> dict | None:
    rows = db.query("SELECT id, code, starts_on, ends_on FROM permit_periods WHERE starts_on < ? ORDER BY starts_on DESC",
                    (period["starts_on"],))
    for row in rows:
        if _period_term(row["code"]) == term:
            return row
    return None


def _amount_due(c: dict) -> int:
    if c["status"] in PAYABLE_CITATION_STATUSES:
        return c["fine_cents"] + c["late_fee_cents"]
    return 0


def _check_method(member: dict, method: str) -> None:
    if method == "payroll_deduction" and member["member_type"] not in EMPLOYEE_TYPES:
        raise ToolError("payroll deduction is only available to faculty and staff; use a card or student_account")
    if method == "student_account" and member["member_type"] not in STUDENT_TYPES:
        raise ToolError("student_account billing is only available to students; use a card or payroll_deduction")


def _payment_refund_totals(db: Db, payment_id: int) -> dict:
    issued = db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM refunds WHERE payment_id = ? AND status = 'issued'",
                      (payment_id,))
    open_count = db.value("SELECT COUNT(*) FROM refunds WHERE payment_id = ? AND status IN ('requested', 'approved')",
                          (payment_id,))
    return {"issued": issued or 0, "open": open_count or 0}


# ---------------------------------------------------------------- people

@tool
def find_members(db: Db, query: str, member_type: Literal["undergraduate", "graduate", "faculty", "staff"] | None = None, status: Literal[
        "active", "on_leave", "graduated", "separated", "suspended"] | None = None, limit: int = 20) -> list[dict]:
    """Search students and employees by part of their name, email or university ID.

    Args:
        query: words to look for, e.g. "Garcia", "thomas.garcia" or "9357".
        member_type: only this kind of member: undergraduate, graduate, faculty or staff.
        status: only members with this status, e.g. "active".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    pattern = like_contains((query or "").strip())
    return db.query(
        "SELECT m.university_id, m.full_name, m.email, m.phone, m.member_type, m.status, d.name AS department "
        "FROM campus_members m LEFT JOIN departments d ON d.id = m.department_id "
        "WHERE (m.full_name LIKE ? ESCAPE '\\' OR m.email LIKE ? ESCAPE '\\' OR m.university_id LIKE ? ESCAPE '\\') "
        "AND (? IS NULL OR m.member_type = ?) AND (? IS NULL OR m.status = ?) "
        "ORDER BY m.full_name, m.id LIMIT ?",
        (pattern, pattern, pattern, member_type, member_type, status, status, limit),
    )


@tool
def get_member_profile(db: Db, member_email: str) -> dict:
    """Show one member's account: contact details, department, registered vehicles, current permits and open citations.

    Args:
        member_email: the member's email, e.g. "thomas.garcia34@mail.ridgemont.edu".
    """
    member = _member(db, member_email)
    profile = db.one(
        "SELECT m.university_id, m.full_name, m.email, m.phone, m.member_type, m.status, m.has_accessible_placard, "
        "m.mailing_address, m.created_at, d.code AS department_code, d.name AS department "
        "FROM campus_members m LEFT JOIN departments d ON d.id = m.department_id WHERE m.id = ?",
        (member["id"],),
    )
    profile["vehicles"] = db.query(
        "SELECT plate_state, plate_number, make, model, model_year, color, vehicle_type, status, registered_at, removed_at "
        "FROM vehicles WHERE member_id = ? ORDER BY status, registered_at",
        (member["id"],),
    )
    profile["current_permits"] = db.query(
        "SELECT p.permit_number, p.status, pt.code AS permit_type_code, pt.name AS permit_type, pp.code AS period_code, "
        "p.valid_from, p.valid_until FROM permits p JOIN permit_types pt ON pt.id = p.permit_type_id "
        "JOIN permit_periods pp ON pp.id = p.period_id "
        "WHERE p.member_id = ? AND p.status IN ('active', 'suspended', 'pending_payment') AND p.valid_until >= ? "
        "ORDER BY p.valid_from",
        (member["id"], db.today().isoformat()),
    )
    profile["open_citations"] = db.query(
        "SELECT c.citation_number, c.status, c.issued_at, c.due_date, c.fine_cents, c.late_fee_cents, vt.name AS violation "
        "FROM citations c JOIN violation_types vt ON vt.id = c.violation_type_id "
        "WHERE c.member_id = ? AND c.status IN ('unpaid', 'reduced', 'sent_to_collections', 'under_appeal') "
        "ORDER BY c.issued_at",
        (member["id"],),
    )
    return profile


@tool
def find_staff(db: Db, query: str | None = None, role: Literal[
        "clerk", "enforcement_officer", "appeals_officer", "supervisor", "manager"] | None = None,
        include_inactive: bool = False, limit: int = 20) -> list[dict]:
    """List parking office staff, optionally by part of the name or email and by role.

    Args:
        query: part of the name or email, e.g. "Chang".
        role: only this role, e.g. "appeals_officer".
        include_inactive: also list staff who no longer work here.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    pattern = like_contains((query or "").strip())
    return db.query(
        "SELECT employee_code, full_name, email, phone, role, is_active, hired_on FROM staff "
        "WHERE (full_name LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\') AND (? IS NULL OR role = ?) "
        "AND (? = 1 OR is_active = 1) ORDER BY role, full_name LIMIT ?",
        (pattern, pattern, role, role, 1 if include_inactive else 0, limit),
    )


# ---------------------------------------------------------------- vehicles

@tool
def lookup_plate(db: Db, plate_number: str, plate_state: str | None = None) -> dict:
    """Look up a licence plate: the registered vehicle and owner, the permits it is on now, and its unresolved citations.

    Args:
        plate_number: the plate as written, e.g. "YET746".
        plate_state: two-letter state, e.g. "OR"; leave out to match every state.
    """
    plate = _plate(plate_number)
    state = _state(plate_state) if plate_state else None
    today = db.today().isoformat()
    vehicles = db.query(
        "SELECT v.id, v.plate_state, v.plate_number, v.make, v.model, v.model_year, v.color, v.vehicle_type, v.status, "
        "v.registered_at, v.removed_at, m.full_name AS owner_name, m.email AS owner_email, m.member_type AS owner_type "
        "FROM vehicles v JOIN campus_members m ON m.id = v.member_id "
        "WHERE v.plate_number = ? AND (? IS NULL OR v.plate_state = ?) ORDER BY v.plate_state",
        (plate, state, state),
    )
    for v in vehicles:
        v["current_permits"] = db.query(
            "SELECT p.permit_number, p.status, pt.code AS permit_type_code, p.valid_from, p.valid_until "
            "FROM permit_vehicles pv JOIN permits p ON p.id = pv.permit_id JOIN permit_types pt ON pt.id = p.permit_type_id "
            "WHERE pv.vehicle_id = ? AND pv.removed_at IS NULL AND p.status IN ('active', 'suspended', 'pending_payment') "
            "AND p.valid_until >= ? ORDER BY p.valid_from",
            (v["id"], today),
        )
        del v["id"]
    citations = db.query(
        "SELECT c.citation_number, c.plate_state, c.status, c.issued_at, c.due_date, c.fine_cents, c.late_fee_cents, "
        "vt.name AS violation FROM citations c JOIN violation_types vt ON vt.id = c.violation_type_id "
        "WHERE c.plate_number = ? AND (? IS NULL OR c.plate_state = ?) "
        "AND c.status IN ('unpaid', 'reduced', 'sent_to_collections', 'under_appeal') ORDER BY c.issued_at",
        (plate, state, state),
    )
    if not vehicles and not citations:
        raise ToolError(f"no registered vehicle and no open citation for plate {plate}")
    return {"plate_number": plate, "vehicles": vehicles, "open_citations": citations}


@tool(write=True, actor="member_email")
def register_vehicle(db: Db, member_email: str, plate_number: str, plate_state: str, make: str, model: str,
                     color: str, vehicle_type: Literal["car", "suv", "truck", "van", "motorcycle", "electric"],
                     model_year: int | None = None) -> dict:
    """Register a vehicle on the member's own account so it can be put on permits.

    Args:
        member_email: the email of the member registering the vehicle (the acting person).
        plate_number: licence plate, e.g. "ABC123".
        plate_state: two-letter state of the plate, e.g. "OR".
        make: manufacturer, e.g. "Subaru".
        model: model name, e.g. "Outback".
        color: main colour, e.g. "Blue".
        vehicle_type: car, suv, truck, van, motorcycle or electric.
        model_year: year of the model, e.g. 2021.
    """
    member = _member(db, member_email)
    if member["status"] in ("graduated", "separated"):
        raise ToolError(f"{member['email']} is {member['status']}; former members cannot register vehicles")
    plate, state = _plate(plate_number), _state(plate_state)
    make_t, model_t, color_t = _text(make, "make"), _text(model, "model"), _text(color, "color")
    year_now = db.today().year
    if model_year is not None and not (1950 <= model_year <= year_now + 1):
        raise ToolError(f"model_year must be between 1950 and {year_now + 1}")
    active = db.value("SELECT COUNT(*) FROM vehicles WHERE member_id = ? AND status = 'active'", (member["id"],))
    existing = db.one("SELECT id, member_id, status FROM vehicles WHERE plate_number = ? AND plate_state = ?",
                      (plate, state))
    if existing is not None and existing["status"] == "active":
        if existing["member_id"] == member["id"]:
            raise ToolError(f"{state} {plate} is already registered on this account")
        raise ToolError(f"{state} {plate} is registered to another member; they must remove it before it can be registered here")
    if active >= MAX_ACTIVE_VEHICLES:
        raise ToolError(f"an account can have at most {MAX_ACTIVE_VEHICLES} active vehicles; remove one first")
    now = now_iso(db)
    if existing is not None:
        db.execute(
            "UPDATE vehicles SET member_id = ?, make = ?, model = ?, model_year = ?, color = ?, vehicle_type = ?, "
            "status = 'active', registered_at = ?, removed_at = NULL WHERE id = ?",
            (member["id"], make_t, model_t, model_year, color_t, vehicle_type, now, existing["id"]),
        )
        vid = existing["id"]
    else:
        vid = db.insert("vehicles", {
            "member_id": member["id"], "plate_number": plate, "plate_state": state, "make": make_t, "model": model_t,
            "model_year": model_year, "color": color_t, "vehicle_type": vehicle_type, "status": "active",
            "registered_at": now, "removed_at": None,
        })
    _log(db, None, member["id"], "vehicle", vid, "vehicle_registered", None, "active",
         f"{model_year or ''} {make_t} {model_t} ({state} {plate})".strip())
    return {"plate_state": state, "plate_number": plate, "make": make_t, "model": model_t, "color": color_t,
            "vehicle_type": vehicle_type, "model_year": model_year, "status": "active", "registered_at": now,
            "owner_email": member["email"]}


@tool(write=True, actor="member_email")
def remove_vehicle(db: Db, member_email: str, plate_number: str, plate_state: str) -> dict:
    """Remove a vehicle from the member's own account (sold, replaced). It must not be on a current permit.

    Args:
        member_email: the email of the member who owns the vehicle (the acting person).
        plate_number: licence plate, e.g. "ABC123".
        plate_state: two-letter state of the plate, e.g. "OR".
    """
    member = _member(db, member_email)
    vehicle = _own_vehicle(db, member, plate_number, plate_state)
    on_permit = db.one(
        "SELECT p.permit_number FROM permit_vehicles pv JOIN permits p ON p.id = pv.permit_id "
        "WHERE pv.vehicle_id = ? AND pv.removed_at IS NULL AND p.status IN ('active', 'suspended', 'pending_payment') "
        "AND p.valid_until >= ? LIMIT 1",
        (vehicle["id"], db.today().isoformat()),
    )
    if on_permit is not None:
        raise ToolError(f"the vehicle is on permit {on_permit['permit_number']}; take it off the permit first "
                        "with change_permit_vehicles")
    now = now_iso(db)
    db.execute("UPDATE vehicles SET status = 'removed', removed_at = ? WHERE id = ?", (now, vehicle["id"]))
    _log(db, None, member["id"], "vehicle", vehicle["id"], "vehicle_removed", "active", "removed",
         f"{vehicle['plate_state']} {vehicle['plate_number']}")
    return {"plate_state": vehicle["plate_state"], "plate_number": vehicle["plate_number"], "status": "removed",
            "removed_at": now}


# ---------------------------------------------------------------- lots, types, periods

@tool
def search_lots(db: Db, query: str | None = None, zone_code: str | None = None,
                status: Literal["open", "temporarily_closed", "closed"] | None = None,
                lot_kind: Literal["surface", "garage", "street"] | None = None, limit: int = 20) -> list[dict]:
    """Search parking lots by name, code or address, with their zone, capacity and status.

    Args:
        query: part of the lot name, code or address, e.g. "Stadium" or "G01".
        zone_code: only lots in this zone, e.g. "COM" (commuter) or "FAS" (faculty & staff).
        status: only lots with this status.
        lot_kind: only surface lots, garages or street parking.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    pattern = like_contains((query or "").strip())
    zone = zone_code.strip().upper() if zone_code else None
    return db.query(
        "SELECT l.code, l.name, l.address, l.lot_kind, l.total_spaces, l.accessible_spaces, l.ev_spaces, l.is_gated, "
        "l.status, l.closure_note, z.code AS zone_code, z.name AS zone_name, z.enforcement_start, z.enforcement_end, "
        "z.enforced_weekends FROM parking_lots l JOIN parking_zones z ON z.id = l.zone_id "
        "WHERE (l.name LIKE ? ESCAPE '\\' OR l.code LIKE ? ESCAPE '\\' OR l.address LIKE ? ESCAPE '\\') "
        "AND (? IS NULL OR z.code = ?) AND (? IS NULL OR l.status = ?) AND (? IS NULL OR l.lot_kind = ?) "
        "ORDER BY l.code LIMIT ?",
        (pattern, pattern, pattern, zone, zone, status, status, lot_kind, lot_kind, limit),
    )


@tool
def list_permit_types(db: Db, member_type: Literal["undergraduate", "graduate", "faculty", "staff"] | None = None, include_inactive: bool = False) -> list[dict]:
    """List the permit types with price, term, eligibility and the zones each one covers.

    Args:
        member_type: only types this kind of member may buy: undergraduate, graduate, faculty or staff.
        include_inactive: also list discontinued permit types.
    """
    rows = db.query(
        "SELECT pt.id, pt.code, pt.name, pt.eligible_member_types, pt.term, pt.price_cents, pt.max_vehicles, "
        "pt.capacity, pt.requires_review, pt.is_active, pt.description FROM permit_types pt "
        "WHERE (? = 1 OR pt.is_active = 1) ORDER BY pt.code",
        (1 if include_inactive else 0,),
    )
    out = []
    for r in rows:
        if member_type is not None and member_type not in ELIGIBLE.get(r["eligible_member_types"], ()):
            continue
        r["zones"] = [z["code"] for z in db.query(
            "SELECT z.code FROM permit_type_zones ptz JOIN parking_zones z ON z.id = ptz.zone_id "
            "WHERE ptz.permit_type_id = ? ORDER BY z.code", (r["id"],))]
        del r["id"]
        out.append(r)
    return out


@tool
def get_permit_type(db: Db, permit_type_code: str, period_code: str | None = None) -> dict:
    """Show one permit type: price, rules, zones and lots it is valid in, and how many permits are held for a period.

    Args:
        permit_type_code: the type's code, e.g. "CS" or "RH".
        period_code: the period to count held permits for, e.g. "AY2526"; defaults to the current period of the type's term.
    """
    pt = _permit_type(db, permit_type_code)
    today = db.today().isoformat()
    result = {k: pt[k] for k in ("code", "name", "eligible_member_types", "term", "price_cents", "max_vehicles",
                                 "capacity", "requires_review", "is_active", "description")}
    result["eligible_member_kinds"] = list(ELIGIBLE.get(pt["eligible_member_types"], ()))
    result["zones"] = db.query(
        "SELECT z.code, z.name, z.zone_type FROM permit_type_zones ptz JOIN parking_zones z ON z.id = ptz.zone_id "
        "WHERE ptz.permit_type_id = ? ORDER BY z.code", (pt["id"],))
    result["lots"] = db.query(
        "SELECT l.code, l.name, l.status, z.code AS zone_code FROM parking_lots l JOIN parking_zones z ON z.id = l.zone_id "
        "JOIN permit_type_zones ptz ON ptz.zone_id = z.id WHERE ptz.permit_type_id = ? ORDER BY l.code", (pt["id"],))
    period = None
    if period_code:
        period = _period(db, period_code)
    else:
        for p in db.query("SELECT id, code, name, starts_on, ends_on FROM permit_periods ORDER BY starts_on", ()):
            if _period_term(p["code"]) == pt["term"] and p["starts_on"] <= today <= p["ends_on"]:
                period = p
    if period is not None:
        held = db.value("SELECT COUNT(*) FROM permits WHERE permit_type_id = ? AND period_id = ? "
                        "AND status IN ('active', 'suspended', 'pending_payment')", (pt["id"], period["id"]))
        waitlisted = db.value("SELECT COUNT(*) FROM permit_applications WHERE permit_type_id = ? AND period_id = ? "
                              "AND status = 'waitlisted'", (pt["id"], period["id"]))
        result["period"] = {"code": period["code"], "name": period["name"], "permits_held": held,
                            "waitlisted_applications": waitlisted,
                            "spaces_left": None if pt["capacity"] is None else max(pt["capacity"] - held, 0)}
    return result


@tool
def list_permit_periods(db: Db, when: Literal["past", "current", "upcoming", "all"] = "all") -> list[dict]:
    """List permit periods (academic year, semesters, summer, months) with their dates and whether sales are open.

    Args:
        when: only past, current or upcoming periods, or all of them.
    """
    today = db.today().isoformat()
    out = []
    for p in db.query("SELECT code, name, starts_on, ends_on, sales_open_on, renewal_deadline FROM permit_periods "
                      "ORDER BY starts_on, code", ()):
        p["phase"] = _phase(p, today)
        p["term"] = _period_term(p["code"])
        p["sales_open"] = p["sales_open_on"] <= today <= p["ends_on"]
        if when == "all" or p["phase"] == when:
            out.append(p)
    return out


# ---------------------------------------------------------------- applications

@tool
def search_applications(db: Db, member_email: str | None = None, status: Literal["submitted", "under_review", "approved", "denied", "waitlisted", "withdrawn"] | None = None,
                        period_code: str | None = None, permit_type_code: str | None = None,
                        limit: int = 20) -> list[dict]:
    """List permit applications, newest first, filtered by member, status, period or permit type.

    Args:
        member_email: only this member's applications.
        status: only applications with this status, e.g. "waitlisted".
        period_code: only this period, e.g. "SP2026".
        permit_type_code: only this permit type, e.g. "RH".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    member_id = _member(db, member_email)["id"] if member_email else None
    period = period_code.strip().upper() if period_code else None
    ptype = permit_type_code.strip().upper() if permit_type_code else None
    return db.query(
        "SELECT a.application_number, a.status, a.application_kind, a.submitted_at, a.reviewed_at, a.withdrawn_at, "
        "a.decision_note, pt.code AS permit_type_code, pt.name AS permit_type, pp.code AS period_code, "
        "m.full_name AS member_name, m.email AS member_email, v.plate_state, v.plate_number "
        "FROM permit_applications a JOIN permit_types pt ON pt.id = a.permit_type_id "
        "JOIN permit_periods pp ON pp.id = a.period_id JOIN campus_members m ON m.id = a.member_id "
        "JOIN vehicles v ON v.id = a.vehicle_id "
        "WHERE (? IS NULL OR a.member_id = ?) AND (? IS NULL OR a.status = ?) AND (? IS NULL OR pp.code = ?) "
        "AND (? IS NULL OR pt.code = ?) ORDER BY a.submitted_at DESC, a.id DESC LIMIT ?",
        (member_id, member_id, status, status, period, period, ptype, ptype, limit),
    )


@tool
def get_application(db: Db, application_number: str) -> dict:
    """Show one permit application with its applicant, vehicle, review and the permit it produced.

    Args:
        application_number: the application's number, e.g. "APP-26-00180".
    """
    row = db.one(
        "SELECT a.id, a.application_number, a.status, a.application_kind, a.submitted_at, a.reviewed_at, "
        "a.withdrawn_at, a.decision_note, pt.code AS permit_type_code, pt.name AS permit_type, pt.price_cents, "
        "pp.code AS period_code, pp.name AS period_name, m.full_name AS member_name, m.email AS member_email, "
        "m.member_type, v.plate_state, v.plate_number, v.make, v.model, s.full_name AS reviewer_name, "
        "s.email AS reviewer_email FROM permit_applications a JOIN permit_types pt ON pt.id = a.permit_type_id "
        "JOIN permit_periods pp ON pp.id = a.period_id JOIN campus_members m ON m.id = a.member_id "
        "JOIN vehicles v ON v.id = a.vehicle_id LEFT JOIN staff s ON s.id = a.reviewed_by_staff_id "
        "WHERE a.application_number = ?",
        ((application_number or "").strip().upper(),),
    )
    if row is None:
        raise ToolError(f"no application {application_number!r}; use search_applications")
    permit = db.one("SELECT permit_number, status FROM permits WHERE application_id = ?", (row["id"],))
    row["permit_number"] = permit["permit_number"] if permit else None
    row["permit_status"] = permit["status"] if permit else None
    del row["id"]
    return row


@tool(write=True, actor="member_email")
def submit_permit_application(db: Db, member_email: str, permit_type_code: str, period_code: str,
                              plate_number: str, plate_state: str) -> dict:
    """Apply for a parking permit for one of the member's own vehicles for a period whose sales are open.

    Args:
        member_email: the email of the member applying (the acting person).
        permit_type_code: the permit type, e.g. "CS" (commuter semester) or "FS" (faculty/staff annual).
        period_code: the period, e.g. "SP2026", "AY2526" or "M2026-03"; it must match the type's term.
        plate_number: plate of the vehicle to put on the permit, e.g. "ABC123".
        plate_state: two-letter state of the plate, e.g. "OR".
    """
    member = _member(db, member_email)
    if member["status"] != "active":
        raise ToolError(f"{member['email']} has status {member['status']}; only active members can apply for permits")
    pt = _permit_type(db, permit_type_code)
    if pt["is_active"] != 1:
        raise ToolError(f"permit type {pt['code']} is discontinued; use list_permit_types to pick another")
    if member["member_type"] not in ELIGIBLE.get(pt["eligible_member_types"], ()):
        raise ToolError(f"{pt['name']} is for {pt['eligible_member_types']}; a {member['member_type']} cannot buy it")
    if pt["code"] in ACCESSIBLE_PERMITS and member["has_accessible_placard"] != 1:
        raise ToolError("the accessible permit needs a state placard on file with the parking office")
    period = _period(db, period_code)
    if _period_term(period["code"]) != pt["term"]:
        raise ToolError(f"{pt['code']} is a {pt['term']} permit but {period['code']} is not a {pt['term']} period")
    today = db.today().isoformat()
    if period["ends_on"] < today:
        raise ToolError(f"period {period['code']} ended on {period['ends_on']}")
    if period["sales_open_on"] > today:
        raise ToolError(f"sales for {period['code']} open on {period['sales_open_on']}")
    vehicle = _own_vehicle(db, member, plate_number, plate_state)
    fit = _vehicle_fit_error(pt["code"], vehicle["vehicle_type"])
    if fit:
        raise ToolError(f"{vehicle['plate_state']} {vehicle['plate_number']} is a {vehicle['vehicle_type']}: {fit}")
    dup = db.one(
        "SELECT application_number, status FROM permit_applications WHERE member_id = ? AND permit_type_id = ? "
        "AND period_id = ? AND status IN ('submitted', 'under_review', 'approved', 'waitlisted')",
        (member["id"], pt["id"], period["id"]),
    )
    if dup is not None:
        raise ToolError(f"application {dup['application_number']} for this permit and period is already {dup['status']}")
    held = db.one("SELECT permit_number FROM permits WHERE member_id = ? AND permit_type_id = ? AND period_id = ? "
                  "AND status IN ('active', 'suspended', 'pending_payment')", (member["id"], pt["id"], period["id"]))
    if held is not None:
        raise ToolError(f"the member already holds permit {held['permit_number']} of this type for {period['code']}")
    collections = db.value("SELECT COUNT(*) FROM citations WHERE member_id = ? AND status = 'sent_to_collections'",
                           (member["id"],))
    if collections:
        raise ToolError("the member has citations in collections; they must be paid before a permit can be issued")
    kind = "new"
    prev = _previous_period(db, period, pt["term"])
    if prev is not None:
        renewing = db.one("SELECT permit_number FROM permits WHERE member_id = ? AND permit_type_id = ? AND period_id = ? "
                          "AND status IN ('active', 'expired', 'suspended')", (member["id"], pt["id"], prev["id"]))
        if renewing is not None:
            kind = "renewal"
    aid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM permit_applications", ())
    number = f"APP-{db.today().year % 100:02d}-{aid:05d}"
    now = now_iso(db)
    db.insert("permit_applications", {
        "id": aid, "application_number": number, "member_id": member["id"], "permit_type_id": pt["id"],
        "period_id": period["id"], "vehicle_id": vehicle["id"], "application_kind": kind, "status": "submitted",
        "submitted_at": now, "reviewed_at": None, "reviewed_by_staff_id": None, "decision_note": None,
        "withdrawn_at": None,
    })
    _log(db, None, member["id"], "application", aid, "application_submitted", None, "submitted",
         f"{pt['code']} for {period['code']}")
    return {"application_number": number, "status": "submitted", "application_kind": kind,
            "permit_type_code": pt["code"], "period_code": period["code"], "price_cents": pt["price_cents"],
            "plate": f"{vehicle['plate_state']} {vehicle['plate_number']}", "submitted_at": now}


@tool(write=True, actor="member_email")
def withdraw_application(db: Db, member_email: str, application_number: str, reason: str | None = None) -> dict:
    """Withdraw one of the member's own permit applications that has not been decided yet.

    Args:
        member_email: the email of the member who applied (the acting person).
        application_number: the application's number, e.g. "APP-26-00180".
        reason: why it is withdrawn, in the member's words (optional).
    """
    member = _member(db, member_email)
    app = db.one("SELECT id, member_id, status FROM permit_applications WHERE application_number = ?",
                 ((application_number or "").strip().upper(),))
    if app is None:
        raise ToolError(f"no application {application_number!r}; use search_applications")
    if app["member_id"] != member["id"]:
        raise ToolError(f"application {application_number} does not belong to {member['email']}")
    if app["status"] not in ("submitted", "under_review", "waitlisted"):
        raise ToolError(f"application {application_number} is {app['status']}; only submitted, under_review or "
                        "waitlisted applications can be withdrawn")
    why = _text(reason, "reason", required=False)
    now = now_iso(db)
    db.execute("UPDATE permit_applications SET status = 'withdrawn', withdrawn_at = ? WHERE id = ?", (now, app["id"]))
    _log(db, None, member["id"], "application", app["id"], "application_withdrawn", app["status"], "withdrawn", why)
    return {"application_number": application_number.strip().upper(), "status": "withdrawn", "withdrawn_at": now,
            "reason": why}


@tool(write=True, actor="staff_email")
def review_application(db: Db, staff_email: str, application_number: str,
                       decision: Literal["start_review", "approve", "deny", "waitlist"],
                       note: str | None = None) -> dict:
    """Staff decision on a permit application: start the review, approve it (creates the permit awaiting payment), deny it or waitlist it.

    Args:
        staff_email: the email of the clerk, supervisor or manager deciding (the acting person).
        application_number: the application's number, e.g. "APP-26-00180".
        decision: start_review, approve, deny or waitlist.
        note: the decision note; required to deny or waitlist.
    """
    staff = _staff(db, staff_email, ("clerk", "supervisor", "manager"))
    app = db.one(
        "SELECT a.id, a.application_number, a.member_id, a.permit_type_id, a.period_id, a.vehicle_id, "
        "a.application_kind, a.status, a.reviewed_by_staff_id FROM permit_applications a WHERE a.application_number = ?",
        ((application_number or "").strip().upper(),),
    )
    if app is None:
        raise ToolError(f"no application {application_number!r}; use search_applications")
    if (staff["role"] == "clerk" and app["reviewed_by_staff_id"] is not None
            and app["reviewed_by_staff_id"] != staff["id"] and app["status"] == "under_review"):
        raise ToolError("this application is being reviewed by another clerk; a supervisor can take it over")
    text = _text(note, "note", required=decision in ("deny", "waitlist"))
    pt = db.one("SELECT id, code, name, term, price_cents, capacity FROM permit_types WHERE id = ?",
                (app["permit_type_id"],))
    now = now_iso(db)
    number = app["application_number"]
    if decision == "start_review":
        if app["status"] != "submitted":
            raise ToolError(f"application {number} is {app['status']}; only submitted applications can be put under review")
        db.execute("UPDATE permit_applications SET status = 'under_review', reviewed_by_staff_id = ?, "
                   "decision_note = COALESCE(?, decision_note) WHERE id = ?", (staff["id"], text, app["id"]))
        _log(db, staff["id"], app["member_id"], "application", app["id"], "application_review_started",
             "submitted", "under_review", text)
        return {"application_number": number, "status": "under_review", "reviewer_email": staff["email"]}
    if decision == "waitlist":
        if app["status"] not in ("submitted", "under_review"):
            raise ToolError(f"application {number} is {app['status']}; only submitted or under_review applications can be waitlisted")
        if pt["capacity"] is None:
            raise ToolError(f"permit type {pt['code']} has no space limit; approve or deny instead")
        db.execute("UPDATE permit_applications SET status = 'waitlisted', reviewed_at = ?, reviewed_by_staff_id = ?, "
                   "decision_note = ? WHERE id = ?", (now, staff["id"], text, app["id"]))
        _log(db, staff["id"], app["member_id"], "application", app["id"], "application_waitlisted",
             app["status"], "waitlisted", text)
        return {"application_number": number, "status": "waitlisted", "decision_note": text}
    if app["status"] not in ("submitted", "under_review", "waitlisted"):
        raise ToolError(f"application {number} is {app['status']}; it has already been decided or withdrawn")
    if decision == "deny":
        db.execute("UPDATE permit_applications SET status = 'denied', reviewed_at = ?, reviewed_by_staff_id = ?, "
                   "decision_note = ? WHERE id = ?", (now, staff["id"], text, app["id"]))
        _log(db, staff["id"], app["member_id"], "application", app["id"], "application_denied",
             app["status"], "denied", text)
        return {"application_number": number, "status": "denied", "decision_note": text}
    member = db.one("SELECT id, email, status FROM campus_members WHERE id = ?", (app["member_id"],))
    if member["status"] != "active":
        raise ToolError(f"the applicant's status is {member['status']}; deny the application instead")
    vehicle = db.one("SELECT status FROM vehicles WHERE id = ?", (app["vehicle_id"],))
    if vehicle["status"] != "active":
        raise ToolError("the vehicle on the application has been removed from the account; deny the application")
    period = db.one("SELECT id, code, starts_on, ends_on FROM permit_periods WHERE id = ?", (app["period_id"],))
    today = db.today().isoformat()
    if period["ends_on"] < today:
        raise ToolError(f"period {period['code']} has ended; deny the application instead")
    if pt["capacity"] is not None:
        held = db.value("SELECT COUNT(*) FROM permits WHERE permit_type_id = ? AND period_id = ? "
                        "AND status IN ('active', 'suspended', 'pending_payment')", (pt["id"], period["id"]))
        if held >= pt["capacity"]:
            raise ToolError(f"all {pt['capacity']} {pt['code']} permits for {period['code']} are taken; waitlist the application")
    renewed_from = None
    if app["application_kind"] == "renewal":
        prev = _previous_period(db, period, pt["term"])
        if prev is not None:
            renewed_from = db.value("SELECT id FROM permits WHERE member_id = ? AND permit_type_id = ? AND period_id = ? "
                                    "AND status IN ('active', 'expired', 'suspended') ORDER BY id DESC LIMIT 1",
                                    (member["id"], pt["id"], prev["id"]))
    pid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM permits", ())
    permit_number = f"{period['code']}-{pt['code']}-{pid:04d}"
    valid_from = max(period["starts_on"], today)
    db.execute("UPDATE permit_applications SET status = 'approved', reviewed_at = ?, reviewed_by_staff_id = ?, "
               "decision_note = COALESCE(?, decision_note) WHERE id = ?", (now, staff["id"], text, app["id"]))
    db.insert("permits", {
        "id": pid, "permit_number": permit_number, "member_id": member["id"], "permit_type_id": pt["id"],
        "period_id": period["id"], "application_id": app["id"], "renewed_from_permit_id": renewed_from,
        "status": "pending_payment", "price_cents": pt["price_cents"], "valid_from": valid_from,
        "valid_until": period["ends_on"], "issued_at": now, "issued_by_staff_id": staff["id"],
        "cancelled_at": None, "cancel_reason": None,
    })
    db.insert("permit_vehicles", {"permit_id": pid, "vehicle_id": app["vehicle_id"], "added_at": now, "removed_at": None})
    _log(db, staff["id"], member["id"], "application", app["id"], "application_approved", app["status"], "approved", text)
    return {"application_number": number, "status": "approved", "permit_number": permit_number,
            "permit_status": "pending_payment", "price_cents": pt["price_cents"], "valid_from": valid_from,
            "valid_until": period["ends_on"]}


# ---------------------------------------------------------------- permits

@tool
def search_permits(db: Db, member_email: str | None = None, status: Literal["pending_payment", "active", "suspended", "expired", "cancelled", "revoked"] | None = None,
                   period_code: str | None = None, permit_type_code: str | None = None,
                   plate_number: str | None = None, limit: int = 20) -> list[dict]:
    """List permits, newest first, filtered by holder, status, period, permit type or a plate on the permit.

    Args:
        member_email: only this member's permits.
        status: only permits with this status, e.g. "active".
        period_code: only this period, e.g. "SP2026".
        permit_type_code: only this permit type, e.g. "FS".
        plate_number: only permits that have carried this plate, e.g. "YET746".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    member_id = _member(db, member_email)["id"] if member_email else None
    period = period_code.strip().upper() if period_code else None
    ptype = permit_type_code.strip().upper() if permit_type_code else None
    plate = _plate(plate_number) if plate_number else None
    return db.query(
        "SELECT p.permit_number, p.status, p.valid_from, p.valid_until, p.price_cents, p.issued_at, p.cancelled_at, "
        "pt.code AS permit_type_code, pt.name AS permit_type, pp.code AS period_code, m.full_name AS member_name, "
        "m.email AS member_email FROM permits p JOIN permit_types pt ON pt.id = p.permit_type_id "
        "JOIN permit_periods pp ON pp.id = p.period_id JOIN campus_members m ON m.id = p.member_id "
        "WHERE (? IS NULL OR p.member_id = ?) AND (? IS NULL OR p.status = ?) AND (? IS NULL OR pp.code = ?) "
        "AND (? IS NULL OR pt.code = ?) AND (? IS NULL OR EXISTS (SELECT 1 FROM permit_vehicles pv "
        "JOIN vehicles v ON v.id = pv.vehicle_id WHERE pv.permit_id = p.id AND v.plate_number = ?)) "
        "ORDER BY p.issued_at DESC, p.id DESC LIMIT ?",
        (member_id, member_id, status, status, period, period, ptype, ptype, plate, plate, limit),
    )


@tool
def get_permit(db: Db, permit_number: str) -> dict:
    """Show one permit with its holder, type, period, vehicles, payments, application and the permit it renewed.

    Args:
        permit_number: the permit's number, e.g. "SP2026-CS-0142".
    """
    row = db.one(
        "SELECT p.id, p.permit_number, p.status, p.price_cents, p.valid_from, p.valid_until, p.issued_at, "
        "p.cancelled_at, p.cancel_reason, pt.code AS permit_type_code, pt.name AS permit_type, pt.max_vehicles, "
        "pp.code AS period_code, pp.name AS period_name, m.full_name AS member_name, m.email AS member_email, "
        "a.application_number, r.permit_number AS renewed_from_permit, s.full_name AS issued_by "
        "FROM permits p JOIN permit_types pt ON pt.id = p.permit_type_id JOIN permit_periods pp ON pp.id = p.period_id "
        "JOIN campus_members m ON m.id = p.member_id LEFT JOIN permit_applications a ON a.id = p.application_id "
        "LEFT JOIN permits r ON r.id = p.renewed_from_permit_id LEFT JOIN staff s ON s.id = p.issued_by_staff_id "
        "WHERE p.permit_number = ?",
        ((permit_number or "").strip().upper(),),
    )
    if row is None:
        raise ToolError(f"no permit {permit_number!r}; use search_permits")
    row["zones"] = [z["code"] for z in db.query(
        "SELECT z.code FROM permits p JOIN permit_type_zones ptz ON ptz.permit_type_id = p.permit_type_id "
        "JOIN parking_zones z ON z.id = ptz.zone_id WHERE p.id = ? ORDER BY z.code", (row["id"],))]
    row["vehicles"] = db.query(
        "SELECT v.plate_state, v.plate_number, v.make, v.model, v.color, v.vehicle_type, pv.added_at, pv.removed_at "
        "FROM permit_vehicles pv JOIN vehicles v ON v.id = pv.vehicle_id WHERE pv.permit_id = ? ORDER BY pv.added_at",
        (row["id"],))
    row["payments"] = db.query(
        "SELECT receipt_number, amount_cents, method, status, paid_at FROM payments WHERE permit_id = ? ORDER BY paid_at",
        (row["id"],))
    del row["id"]
    return row


@tool(write=True, actor="member_email")
def pay_permit(db: Db, member_email: str, permit_number: str, amount_cents: int, method: Literal["credit_card", "debit_card", "payroll_deduction", "student_account"]) -> dict:
    """Pay for one of the member's own approved permits that is awaiting payment; the permit becomes active.

    Args:
        member_email: the email of the permit holder paying (the acting person).
        permit_number: the permit's number, e.g. "SP2026-CS-0142".
        amount_cents: the amount paid in cents; must equal the permit price, e.g. 19500.
        method: credit_card, debit_card, payroll_deduction (employees) or student_account (students).
    """
    member = _member(db, member_email)
    permit = db.one("SELECT id, member_id, status, price_cents, permit_number FROM permits WHERE permit_number = ?",
                    ((permit_number or "").strip().upper(),))
    if permit is None:
        raise ToolError(f"no permit {permit_number!r}; use search_permits")
    if permit["member_id"] != member["id"]:
        raise ToolError(f"permit {permit['permit_number']} does not belong to {member['email']}")
    if permit["status"] != "pending_payment":
        raise ToolError(f"permit {permit['permit_number']} is {permit['status']}; only permits awaiting payment can be paid")
    pending = db.value("SELECT COUNT(*) FROM payments WHERE permit_id = ? AND status = 'pending'", (permit["id"],))
    if pending:
        raise ToolError("a payment for this permit is already pending; wait for it to clear")
    if amount_cents != permit["price_cents"]:
        raise ToolError(f"the permit costs {permit['price_cents']} cents; pay exactly that amount")
    _check_method(member, method)
    now = now_iso(db)
    pay_id = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM payments", ())
    receipt = f"RCPT-{db.today().year}-{pay_id:06d}"
    db.insert("payments", {
        "id": pay_id, "receipt_number": receipt, "member_id": member["id"], "payment_for": "permit",
        "permit_id": permit["id"], "citation_id": None, "amount_cents": amount_cents, "method": method,
        "status": "completed", "paid_at": now, "processed_by_staff_id": None,
    })
    db.execute("UPDATE permits SET status = 'active' WHERE id = ?", (permit["id"],))
    _log(db, None, member["id"], "permit", permit["id"], "permit_paid", "pending_payment", "active", receipt)
    return {"permit_number": permit["permit_number"], "status": "active", "receipt_number": receipt,
            "amount_cents": amount_cents, "method": method, "paid_at": now}


@tool(write=True, actor="member_email")
def cancel_permit(db: Db, member_email: str, permit_number: str, reason: str) -> dict:
    """Cancel one of the member's own permits (active or awaiting payment) and show the prorated refund they may request.

    Args:
        member_email: the email of the permit holder (the acting person).
        permit_number: the permit's number, e.g. "SP2026-CS-0142".
        reason: why it is cancelled, in the member's words.
    """
    member = _member(db, member_email)
    permit = db.one("SELECT id, member_id, status, price_cents, permit_number, valid_from, valid_until "
                    "FROM permits WHERE permit_number = ?", ((permit_number or "").strip().upper(),))
    if permit is None:
        raise ToolError(f"no permit {permit_number!r}; use search_permits")
    if permit["member_id"] != member["id"]:
        raise ToolError(f"permit {permit['permit_number']} does not belong to {member['email']}")
    if permit["status"] not in ("active", "pending_payment"):
        raise ToolError(f"permit {permit['permit_number']} is {permit['status']}; only active or unpaid permits can be cancelled")
    why = _text(reason, "reason")
    now = now_iso(db)
    db.execute("UPDATE permits SET status = 'cancelled', cancelled_at = ?, cancel_reason = ? WHERE id = ?",
               (now, why, permit["id"]))
    _log(db, None, member["id"], "permit", permit["id"], "permit_cancelled", permit["status"], "cancelled", why)
    paid = db.one("SELECT receipt_number, amount_cents FROM payments WHERE permit_id = ? AND status IN "
                  "('completed', 'partially_refunded') ORDER BY paid_at LIMIT 1", (permit["id"],))
    estimate = 0
    if paid is not None:
        today = db.today()
        vf, vu = date.fromisoformat(permit["valid_from"]), date.fromisoformat(permit["valid_until"])
        if today < vf:
            estimate = permit["price_cents"]
        else:
            total = (vu - vf).days + 1
            estimate = int(round(permit["price_cents"] * max((vu - today).days, 0) / float(total)))
    return {"permit_number": permit["permit_number"], "status": "cancelled", "cancelled_at": now,
            "cancel_reason": why, "receipt_number": paid["receipt_number"] if paid else None,
            "estimated_refund_cents": estimate,
            "next_step": "request_refund with the receipt number" if estimate > 0 else "no payment to refund"}


@tool(write=True, actor="member_email")
def change_permit_vehicles(db: Db, member_email: str, permit_number: str, action: Literal["add", "remove"],
                           plate_number: str, plate_state: str) -> dict:
    """Add one of the member's own vehicles to their permit, or take a vehicle off it.

    Args:
        member_email: the email of the permit holder (the acting person).
        permit_number: the permit's number, e.g. "AY2526-FS-0031".
        action: add or remove.
        plate_number: plate of the vehicle, e.g. "ABC123".
        plate_state: two-letter state of the plate, e.g. "OR".
    """
    member = _member(db, member_email)
    permit = db.one(
        "SELECT p.id, p.member_id, p.status, p.permit_number, p.valid_until, pt.code AS type_code, pt.max_vehicles "
        "FROM permits p JOIN permit_types pt ON pt.id = p.permit_type_id WHERE p.permit_number = ?",
        ((permit_number or "").strip().upper(),))
    if permit is None:
        raise ToolError(f"no permit {permit_number!r}; use search_permits")
    if permit["member_id"] != member["id"]:
        raise ToolError(f"permit {permit['permit_number']} does not belong to {member['email']}")
    if permit["status"] not in ("active", "pending_payment") or permit["valid_until"] < db.today().isoformat():
        raise ToolError(f"permit {permit['permit_number']} is {permit['status']}; vehicles can only change on a current "
                        "active or unpaid permit")
    plate, state = _plate(plate_number), _state(plate_state)
    now = now_iso(db)
    active_links = db.value("SELECT COUNT(*) FROM permit_vehicles WHERE permit_id = ? AND removed_at IS NULL",
                            (permit["id"],))
    if action == "add":
        vehicle = _own_vehicle(db, member, plate, state)
        fit = _vehicle_fit_error(permit["type_code"], vehicle["vehicle_type"])
        if fit:
            raise ToolError(f"{state} {plate} is a {vehicle['vehicle_type']}: {fit}")
        link = db.one("SELECT id, removed_at FROM permit_vehicles WHERE permit_id = ? AND vehicle_id = ?",
                      (permit["id"], vehicle["id"]))
        if link is not None and link["removed_at"] is None:
            raise ToolError(f"{state} {plate} is already on permit {permit['permit_number']}")
        if active_links >= permit["max_vehicles"]:
            raise ToolError(f"permit {permit['permit_number']} allows {permit['max_vehicles']} vehicle(s); remove one first")
        if link is not None:
            db.execute("UPDATE permit_vehicles SET added_at = ?, removed_at = NULL WHERE id = ?", (now, link["id"]))
        else:
            db.insert("permit_vehicles", {"permit_id": permit["id"], "vehicle_id": vehicle["id"], "added_at": now,
                                          "removed_at": None})
        _log(db, None, member["id"], "permit", permit["id"], "permit_vehicle_added", None, None, f"{state} {plate}")
        return {"permit_number": permit["permit_number"], "action": "add", "plate": f"{state} {plate}",
                "vehicles_on_permit": active_links + 1}
    link = db.one(
        "SELECT pv.id FROM permit_vehicles pv JOIN vehicles v ON v.id = pv.vehicle_id WHERE pv.permit_id = ? "
        "AND v.plate_number = ? AND v.plate_state = ? AND pv.removed_at IS NULL", (permit["id"], plate, state))
    if link is None:
        raise ToolError(f"{state} {plate} is not on permit {permit['permit_number']}")
    if active_links <= 1:
        raise ToolError("a permit must keep at least one vehicle; add the replacement vehicle first")
    db.execute("UPDATE permit_vehicles SET removed_at = ? WHERE id = ?", (now, link["id"]))
    _log(db, None, member["id"], "permit", permit["id"], "permit_vehicle_removed", None, None, f"{state} {plate}")
    return {"permit_number": permit["permit_number"], "action": "remove", "plate": f"{state} {plate}",
            "vehicles_on_permit": active_links - 1}


@tool(write=True, actor="staff_email")
def change_permit_standing(db: Db, staff_email: str, permit_number: str,
                           action: Literal["suspend", "reinstate", "revoke"], reason: str) -> dict:
    """Supervisor action on a permit: suspend an active permit, reinstate a suspended one, or revoke it.

    Args:
        staff_email: the email of the supervisor or manager acting (the acting person).
        permit_number: the permit's number, e.g. "SP2026-CS-0142".
        action: suspend, reinstate or revoke.
        reason: why, e.g. "Unpaid citation referred to collections".
    """
    staff = _staff(db, staff_email, ("supervisor", "manager"))
    permit = db.one("SELECT id, member_id, status, permit_number FROM permits WHERE permit_number = ?",
                    ((permit_number or "").strip().upper(),))
    if permit is None:
        raise ToolError(f"no permit {permit_number!r}; use search_permits")
    why = _text(reason, "reason")
    now = now_iso(db)
    if action == "suspend":
        if permit["status"] != "active":
            raise ToolError(f"permit {permit['permit_number']} is {permit['status']}; only active permits can be suspended")
        db.execute("UPDATE permits SET status = 'suspended' WHERE id = ?", (permit["id"],))
        new = "suspended"
    elif action == "reinstate":
        if permit["status"] != "suspended":
            raise ToolError(f"permit {permit['permit_number']} is {permit['status']}; only suspended permits can be reinstated")
        db.execute("UPDATE permits SET status = 'active' WHERE id = ?", (permit["id"],))
        new = "active"
    else:
        if permit["status"] not in ("active", "suspended", "pending_payment"):
            raise ToolError(f"permit {permit['permit_number']} is {permit['status']}; it cannot be revoked")
        db.execute("UPDATE permits SET status = 'revoked', cancelled_at = ?, cancel_reason = ? WHERE id = ?",
                   (now, why, permit["id"]))
        new = "revoked"
    _log(db, staff["id"], permit["member_id"], "permit", permit["id"], "permit_" + {"suspend": "suspended",
         "reinstate": "reinstated", "revoke": "revoked"}[action], permit["status"], new, why)
    return {"permit_number": permit["permit_number"], "old_status": permit["status"], "status": new, "reason": why,
            "changed_by": staff["email"], "changed_at": now}


# ---------------------------------------------------------------- citations

@tool
def list_violation_types(db: Db, include_inactive: bool = False) -> list[dict]:
    """List violation codes with their fines, late fees and whether the vehicle may be towed.

    Args:
        include_inactive: also list retired codes.
    """
    return db.query("SELECT code, name, fine_cents, late_fee_cents, is_towable, is_active FROM violation_types "
                    "WHERE (? = 1 OR is_active = 1) ORDER BY code", (1 if include_inactive else 0,))


@tool
def search_citations(db: Db, plate_number: str | None = None, plate_state: str | None = None,
                     member_email: str | None = None, status: Literal["unpaid", "paid", "under_appeal", "reduced", "dismissed", "voided", "sent_to_collections"] | None = None,
                     lot_code: str | None = None, issued_from: str | None = None, issued_to: str | None = None,
                     limit: int = 20) -> list[dict]:
    """List parking citations, newest first, by plate, member, status, lot or issue-date range.

    Args:
        plate_number: only this plate, e.g. "YET746".
        plate_state: only plates of this state, e.g. "OR".
        member_email: only citations linked to this member.
        status: only citations with this status, e.g. "unpaid".
        lot_code: only citations written in this lot, e.g. "L03".
        issued_from: first issue date to include, e.g. "2026-02-01".
        issued_to: last issue date to include, e.g. "2026-02-15".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    plate = _plate(plate_number) if plate_number else None
    state = _state(plate_state) if plate_state else None
    member_id = _member(db, member_email)["id"] if member_email else None
    lot = lot_code.strip().upper() if lot_code else None
    d_from = _date(issued_from, "issued_from").isoformat() if issued_from else None
    d_to = _date(issued_to, "issued_to").isoformat() if issued_to else None
    rows = db.query(
        "SELECT c.citation_number, c.plate_state, c.plate_number, c.status, c.issued_at, c.due_date, c.fine_cents, "
        "c.late_fee_cents, vt.code AS violation_code, vt.name AS violation, l.code AS lot_code, l.name AS lot_name, "
        "m.full_name AS member_name, m.email AS member_email FROM citations c "
        "JOIN violation_types vt ON vt.id = c.violation_type_id JOIN parking_lots l ON l.id = c.lot_id "
        "LEFT JOIN campus_members m ON m.id = c.member_id "
        "WHERE (? IS NULL OR c.plate_number = ?) AND (? IS NULL OR c.plate_state = ?) AND (? IS NULL OR c.member_id = ?) "
        "AND (? IS NULL OR c.status = ?) AND (? IS NULL OR l.code = ?) "
        "AND (? IS NULL OR substr(c.issued_at, 1, 10) >= ?) AND (? IS NULL OR substr(c.issued_at, 1, 10) <= ?) "
        "ORDER BY c.issued_at DESC, c.id DESC LIMIT ?",
        (plate, plate, state, state, member_id, member_id, status, status, lot, lot, d_from, d_from, d_to, d_to, limit),
    )
    for r in rows:
        r["amount_due_cents"] = _amount_due(r)
    return rows


@tool
def get_citation(db: Db, citation_number: str) -> dict:
    """Show one citation: violation, place, officer, vehicle and owner, amount due, appeals and payments.

    Args:
        citation_number: the citation's number, e.g. "PC26-100162".
    """
    row = db.one(
        "SELECT c.id, c.citation_number, c.plate_state, c.plate_number, c.status, c.issued_at, c.due_date, "
        "c.fine_cents, c.late_fee_cents, c.officer_notes, c.paid_at, c.voided_at, c.void_reason, "
        "vt.code AS violation_code, vt.name AS violation, vt.fine_cents AS standard_fine_cents, vt.is_towable, "
        "l.code AS lot_code, l.name AS lot_name, s.full_name AS officer_name, m.full_name AS member_name, "
        "m.email AS member_email, v.make, v.model, v.color FROM citations c "
        "JOIN violation_types vt ON vt.id = c.violation_type_id JOIN parking_lots l ON l.id = c.lot_id "
        "JOIN staff s ON s.id = c.issued_by_staff_id LEFT JOIN campus_members m ON m.id = c.member_id "
        "LEFT JOIN vehicles v ON v.id = c.vehicle_id WHERE c.citation_number = ?",
        ((citation_number or "").strip().upper(),),
    )
    if row is None:
        raise ToolError(f"no citation {citation_number!r}; use search_citations")
    row["amount_due_cents"] = _amount_due(row)
    row["appeals"] = db.query(
        "SELECT appeal_number, status, reason_category, submitted_at, decided_at, reduced_fine_cents, decision_note "
        "FROM appeals WHERE citation_id = ? ORDER BY submitted_at", (row["id"],))
    row["payments"] = db.query(
        "SELECT receipt_number, amount_cents, method, status, paid_at FROM payments WHERE citation_id = ? ORDER BY paid_at",
        (row["id"],))
    del row["id"]
    return row


@tool
def get_member_balance(db: Db, member_email: str) -> dict:
    """Show what a member owes: unpaid citations with fines and late fees, citations on hold under appeal, and permits awaiting payment.

    Args:
        member_email: the member's email.
    """
    member = _member(db, member_email)
    citations = db.query(
        "SELECT c.citation_number, c.status, c.issued_at, c.due_date, c.fine_cents, c.late_fee_cents, "
        "vt.name AS violation, c.plate_state, c.plate_number FROM citations c "
        "JOIN violation_types vt ON vt.id = c.violation_type_id "
        "WHERE c.member_id = ? AND c.status IN ('unpaid', 'reduced', 'sent_to_collections', 'under_appeal') "
        "ORDER BY c.due_date, c.issued_at", (member["id"],))
    for c in citations:
        c["amount_due_cents"] = _amount_due(c)
    permits = db.query(
        "SELECT p.permit_number, pt.name AS permit_type, pp.code AS period_code, p.price_cents, p.issued_at "
        "FROM permits p JOIN permit_types pt ON pt.id = p.permit_type_id JOIN permit_periods pp ON pp.id = p.period_id "
        "WHERE p.member_id = ? AND p.status = 'pending_payment' ORDER BY p.issued_at", (member["id"],))
    return {
        "member_name": member["full_name"], "member_email": member["email"], "member_status": member["status"],
        "citations": citations, "permits_awaiting_payment": permits,
        "citations_due_cents": sum(c["amount_due_cents"] for c in citations),
        "on_hold_under_appeal_cents": sum(c["fine_cents"] for c in citations if c["status"] == "under_appeal"),
        "permits_due_cents": sum(p["price_cents"] for p in permits),
        "total_due_cents": sum(c["amount_due_cents"] for c in citations) + sum(p["price_cents"] for p in permits),
    }


@tool(write=True, actor="staff_email")
def issue_citation(db: Db, staff_email: str, plate_number: str, plate_state: str, violation_code: str,
                   lot_code: str, notes: str | None = None) -> dict:
    """Write a parking citation for a plate seen in a lot; it is linked to the registered vehicle and owner when known.

    Args:
        staff_email: the email of the enforcement officer or supervisor writing it (the acting person).
        plate_number: the plate, e.g. "ABC123".
        plate_state: two-letter state of the plate, e.g. "OR".
        violation_code: the violation code, e.g. "NP"; see list_violation_types.
        lot_code: where the vehicle is parked, e.g. "L03".
        notes: the officer's notes (optional).
    """
    staff = _staff(db, staff_email, ("enforcement_officer", "supervisor"))
    plate, state = _plate(plate_number), _state(plate_state)
    vt = db.one("SELECT id, code, name, fine_cents, is_active FROM violation_types WHERE code = ?",
                ((violation_code or "").strip().upper(),))
    if vt is None:
        raise ToolError(f"no violation code {violation_code!r}; use list_violation_types")
    if vt["is_active"] != 1:
        raise ToolError(f"violation code {vt['code']} is retired; use a current code")
    lot = db.one("SELECT id, code, name, status FROM parking_lots WHERE code = ?", ((lot_code or "").strip().upper(),))
    if lot is None:
        raise ToolError(f"no lot {lot_code!r}; use search_lots")
    if lot["status"] == "closed":
        raise ToolError(f"lot {lot['code']} is permanently closed; check the lot code")
    note = _text(notes, "notes", required=False)
    now = db.now()
    recent = db.one(
        "SELECT citation_number FROM citations WHERE plate_number = ? AND plate_state = ? AND lot_id = ? "
        "AND violation_type_id = ? AND issued_at >= ? AND status <> 'voided'",
        (plate, state, lot["id"], vt["id"],
         (now - timedelta(minutes=DUPLICATE_CITATION_MINUTES)).isoformat(timespec="seconds")))
    if recent is not None:
        raise ToolError(f"{state} {plate} was already cited for {vt['code']} in {lot['code']} within the last hour "
                        f"({recent['citation_number']})")
    vehicle = db.one("SELECT id, member_id FROM vehicles WHERE plate_number = ? AND plate_state = ? AND status = 'active'",
                     (plate, state))
    cid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM citations", ())
    number = f"PC{db.today().year % 100:02d}-{100000 + cid}"
    due = (db.today() + timedelta(days=PAYMENT_DUE_DAYS)).isoformat()
    db.insert("citations", {
        "id": cid, "citation_number": number, "vehicle_id": vehicle["id"] if vehicle else None,
        "member_id": vehicle["member_id"] if vehicle else None, "plate_number": plate, "plate_state": state,
        "violation_type_id": vt["id"], "lot_id": lot["id"], "issued_by_staff_id": staff["id"],
        "issued_at": now.isoformat(timespec="seconds"), "fine_cents": vt["fine_cents"], "late_fee_cents": 0,
        "due_date": due, "status": "unpaid", "officer_notes": note, "paid_at": None, "voided_at": None,
        "void_reason": None,
    })
    _log(db, staff["id"], vehicle["member_id"] if vehicle else None, "citation", cid, "citation_issued", None,
         "unpaid", f"{vt['code']} in {lot['code']}")
    return {"citation_number": number, "plate": f"{state} {plate}", "violation": vt["name"], "lot": lot["name"],
            "fine_cents": vt["fine_cents"], "due_date": due, "status": "unpaid",
            "registered_vehicle": vehicle is not None}


@tool(write=True, actor="staff_email")
def void_citation(db: Db, staff_email: str, citation_number: str, reason: str) -> dict:
    """Supervisor action: void an unpaid citation written in error.

    Args:
        staff_email: the email of the supervisor or manager voiding it (the acting person).
        citation_number: the citation's number, e.g. "PC26-100162".
        reason: why it is voided, e.g. "Officer entry error: wrong plate recorded".
    """
    staff = _staff(db, staff_email, ("supervisor", "manager"))
    c = db.one("SELECT id, member_id, status, citation_number FROM citations WHERE citation_number = ?",
               ((citation_number or "").strip().upper(),))
    if c is None:
        raise ToolError(f"no citation {citation_number!r}; use search_citations")
    if c["status"] not in ("unpaid", "sent_to_collections"):
        raise ToolError(f"citation {c['citation_number']} is {c['status']}; only unpaid citations can be voided "
                        "(an open appeal must be decided instead)")
    why = _text(reason, "reason")
    now = now_iso(db)
    db.execute("UPDATE citations SET status = 'voided', voided_at = ?, void_reason = ? WHERE id = ?", (now, why, c["id"]))
    _log(db, staff["id"], c["member_id"], "citation", c["id"], "citation_voided", c["status"], "voided", why)
    return {"citation_number": c["citation_number"], "old_status": c["status"], "status": "voided", "voided_at": now,
            "void_reason": why}


@tool(write=True, actor="member_email")
def pay_citation(db: Db, member_email: str, citation_number: str, amount_cents: int, method: Literal["credit_card", "debit_card", "payroll_deduction", "student_account"]) -> dict:
    """Pay one of the member's own citations in full (fine plus any late fee).

    Args:
        member_email: the email of the member paying (the acting person).
        citation_number: the citation's number, e.g. "PC26-100162".
        amount_cents: the amount paid in cents; must equal the amount due, e.g. 5000.
        method: credit_card, debit_card, payroll_deduction (employees) or student_account (students).
    """
    member = _member(db, member_email)
    c = db.one("SELECT id, member_id, status, citation_number, fine_cents, late_fee_cents FROM citations "
               "WHERE citation_number = ?", ((citation_number or "").strip().upper(),))
    if c is None:
        raise ToolError(f"no citation {citation_number!r}; use search_citations")
    if c["member_id"] != member["id"]:
        raise ToolError(f"citation {c['citation_number']} is not linked to {member['email']}")
    if c["status"] == "under_appeal":
        raise ToolError("this citation has an open appeal; wait for the decision or withdraw the appeal first")
    if c["status"] not in PAYABLE_CITATION_STATUSES:
        raise ToolError(f"citation {c['citation_number']} is {c['status']}; there is nothing to pay")
    due = _amount_due(c)
    if amount_cents != due:
        raise ToolError(f"the amount due is {due} cents (fine {c['fine_cents']} + late fee {c['late_fee_cents']}); "
                        "pay exactly that amount")
    _check_method(member, method)
    now = now_iso(db)
    pay_id = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM payments", ())
    receipt = f"RCPT-{db.today().year}-{pay_id:06d}"
    db.insert("payments", {
        "id": pay_id, "receipt_number": receipt, "member_id": member["id"], "payment_for": "citation",
        "permit_id": None, "citation_id": c["id"], "amount_cents": amount_cents, "method": method,
        "status": "completed", "paid_at": now, "processed_by_staff_id": None,
    })
    db.execute("UPDATE citations SET status = 'paid', paid_at = ? WHERE id = ?", (now, c["id"]))
    _log(db, None, member["id"], "citation", c["id"], "citation_paid", c["status"], "paid", receipt)
    return {"citation_number": c["citation_number"], "status": "paid", "receipt_number": receipt,
            "amount_cents": amount_cents, "method": method, "paid_at": now}


# ---------------------------------------------------------------- appeals

@tool
def search_appeals(db: Db, status: Literal["pending", "under_review", "upheld", "reduced", "dismissed", "withdrawn"] | None = None, member_email: str | None = None,
                   assigned_staff_email: str | None = None, limit: int = 20) -> list[dict]:
    """List citation appeals, newest first, by status, appellant or assigned staff member.

    Args:
        status: only appeals with this status, e.g. "pending".
        member_email: only this member's appeals.
        assigned_staff_email: only appeals assigned to this staff member.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    member_id = _member(db, member_email)["id"] if member_email else None
    staff_id = None
    if assigned_staff_email:
        s = db.one("SELECT id FROM staff WHERE email = ?", (_email(assigned_staff_email),))
        if s is None:
            raise ToolError(f"no staff member with email {assigned_staff_email!r}; use find_staff")
        staff_id = s["id"]
    return db.query(
        "SELECT a.appeal_number, a.status, a.reason_category, a.submitted_at, a.decided_at, a.reduced_fine_cents, "
        "c.citation_number, c.fine_cents, m.full_name AS member_name, m.email AS member_email, "
        "s.full_name AS assigned_to FROM appeals a JOIN citations c ON c.id = a.citation_id "
        "JOIN campus_members m ON m.id = a.member_id LEFT JOIN staff s ON s.id = a.assigned_staff_id "
        "WHERE (? IS NULL OR a.status = ?) AND (? IS NULL OR a.member_id = ?) AND (? IS NULL OR a.assigned_staff_id = ?) "
        "ORDER BY a.submitted_at DESC, a.id DESC LIMIT ?",
        (status, status, member_id, member_id, staff_id, staff_id, limit),
    )


@tool
def get_appeal(db: Db, appeal_number: str) -> dict:
    """Show one appeal with the member's statement, the citation it concerns, who handles it and the decision.

    Args:
        appeal_number: the appeal's number, e.g. "APL-2026-0041".
    """
    row = db.one(
        "SELECT a.appeal_number, a.status, a.reason_category, a.statement, a.submitted_at, a.decided_at, "
        "a.reduced_fine_cents, a.decision_note, a.withdrawn_at, c.citation_number, c.status AS citation_status, "
        "c.fine_cents, c.issued_at AS citation_issued_at, vt.name AS violation, l.name AS lot_name, "
        "m.full_name AS member_name, m.email AS member_email, s.full_name AS assigned_to, s.email AS assigned_email, "
        "d.full_name AS decided_by FROM appeals a JOIN citations c ON c.id = a.citation_id "
        "JOIN violation_types vt ON vt.id = c.violation_type_id JOIN parking_lots l ON l.id = c.lot_id "
        "JOIN campus_members m ON m.id = a.member_id LEFT JOIN staff s ON s.id = a.assigned_staff_id "
        "LEFT JOIN staff d ON d.id = a.decided_by_staff_id WHERE a.appeal_number = ?",
        ((appeal_number or "").strip().upper(),),
    )
    if row is None:
        raise ToolError(f"no appeal {appeal_number!r}; use search_appeals")
    return row


@tool(write=True, actor="member_email")
def file_appeal(db: Db, member_email: str, citation_number: str,
                reason_category: Literal["signage_unclear", "valid_permit_displayed", "meter_malfunction",
                                         "medical_emergency", "vehicle_breakdown", "not_my_vehicle", "other"],
                statement: str) -> dict:
    """Appeal one of the member's own unpaid citations within 21 days of its issue date; payment is on hold until it is decided.

    Args:
        member_email: the email of the member appealing (the acting person).
        citation_number: the citation's number, e.g. "PC26-100162".
        reason_category: the kind of reason, e.g. "signage_unclear".
        statement: the member's explanation in their own words.
    """
    member = _member(db, member_email)
    c = db.one("SELECT id, member_id, status, citation_number, issued_at FROM citations WHERE citation_number = ?",
               ((citation_number or "").strip().upper(),))
    if c is None:
        raise ToolError(f"no citation {citation_number!r}; use search_citations")
    if c["member_id"] != member["id"]:
        raise ToolError(f"citation {c['citation_number']} is not linked to {member['email']}")
    if c["status"] != "unpaid":
        raise ToolError(f"citation {c['citation_number']} is {c['status']}; only unpaid citations can be appealed")
    issued = date.fromisoformat(c["issued_at"][:10])
    if (db.today() - issued).days > APPEAL_WINDOW_DAYS:
        raise ToolError(f"the appeal window closed {APPEAL_WINDOW_DAYS} days after the citation was issued "
                        f"({issued.isoformat()})")
    previous = db.one("SELECT appeal_number, status FROM appeals WHERE citation_id = ? AND status <> 'withdrawn'",
                      (c["id"],))
    if previous is not None:
        raise ToolError(f"citation {c['citation_number']} already has appeal {previous['appeal_number']} ({previous['status']})")
    text = _text(statement, "statement")
    aid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM appeals", ())
    number = f"APL-{db.today().year}-{aid:04d}"
    now = now_iso(db)
    db.insert("appeals", {
        "id": aid, "appeal_number": number, "citation_id": c["id"], "member_id": member["id"],
        "reason_category": reason_category, "statement": text, "status": "pending", "submitted_at": now,
        "assigned_staff_id": None, "decided_at": None, "decided_by_staff_id": None, "reduced_fine_cents": None,
        "decision_note": None, "withdrawn_at": None,
    })
    db.execute("UPDATE citations SET status = 'under_appeal' WHERE id = ?", (c["id"],))
    _log(db, None, member["id"], "appeal", aid, "appeal_submitted", None, "pending", reason_category)
    return {"appeal_number": number, "status": "pending", "citation_number": c["citation_number"],
            "citation_status": "under_appeal", "submitted_at": now}


@tool(write=True, actor="member_email")
def withdraw_appeal(db: Db, member_email: str, appeal_number: str) -> dict:
    """Withdraw one of the member's own undecided appeals; the citation becomes payable again.

    Args:
        member_email: the email of the member who filed the appeal (the acting person).
        appeal_number: the appeal's number, e.g. "APL-2026-0041".
    """
    member = _member(db, member_email)
    a = db.one("SELECT id, member_id, citation_id, status, appeal_number FROM appeals WHERE appeal_number = ?",
               ((appeal_number or "").strip().upper(),))
    if a is None:
        raise ToolError(f"no appeal {appeal_number!r}; use search_appeals")
    if a["member_id"] != member["id"]:
        raise ToolError(f"appeal {a['appeal_number']} was not filed by {member['email']}")
    if a["status"] not in ("pending", "under_review"):
        raise ToolError(f"appeal {a['appeal_number']} is {a['status']}; only pending or under_review appeals can be withdrawn")
    now = now_iso(db)
    db.execute("UPDATE appeals SET status = 'withdrawn', withdrawn_at = ? WHERE id = ?", (now, a["id"]))
    db.execute("UPDATE citations SET status = 'unpaid' WHERE id = ? AND status = 'under_appeal'", (a["citation_id"],))
    _log(db, None, member["id"], "appeal", a["id"], "appeal_withdrawn", a["status"], "withdrawn", None)
    return {"appeal_number": a["appeal_number"], "status": "withdrawn", "withdrawn_at": now, "citation_status": "unpaid"}


@tool(write=True, actor="staff_email")
def assign_appeal(db: Db, staff_email: str, appeal_number: str, assignee_email: str) -> dict:
    """Assign an undecided appeal to an appeals officer or supervisor; it moves to under_review. Appeals officers may only take appeals themselves.

    Args:
        staff_email: the email of the staff member making the assignment (the acting person).
        appeal_number: the appeal's number, e.g. "APL-2026-0041".
        assignee_email: the email of the staff member who will review it.
    """
    staff = _staff(db, staff_email, ("appeals_officer", "supervisor", "manager"))
    assignee = db.one("SELECT id, full_name, email, role, is_active FROM staff WHERE email = ?", (_email(assignee_email),))
    if assignee is None:
        raise ToolError(f"no staff member with email {assignee_email!r}; use find_staff")
    if assignee["is_active"] != 1 or assignee["role"] not in ("appeals_officer", "supervisor", "manager"):
        raise ToolError(f"{assignee['full_name']} cannot review appeals; pick an active appeals officer or supervisor")
    if staff["role"] == "appeals_officer" and assignee["id"] != staff["id"]:
        raise ToolError("an appeals officer can only assign appeals to themselves; ask a supervisor to assign others")
    a = db.one("SELECT id, member_id, status, appeal_number, assigned_staff_id FROM appeals WHERE appeal_number = ?",
               ((appeal_number or "").strip().upper(),))
    if a is None:
        raise ToolError(f"no appeal {appeal_number!r}; use search_appeals")
    if a["status"] not in ("pending", "under_review"):
        raise ToolError(f"appeal {a['appeal_number']} is {a['status']}; only undecided appeals can be assigned")
    if a["assigned_staff_id"] == assignee["id"]:
        raise ToolError(f"appeal {a['appeal_number']} is already assigned to {assignee['full_name']}")
    db.execute("UPDATE appeals SET status = 'under_review', assigned_staff_id = ? WHERE id = ?", (assignee["id"], a["id"]))
    _log(db, staff["id"], a["member_id"], "appeal", a["id"], "appeal_assigned", a["status"], "under_review",
         f"assigned to {assignee['email']}")
    return {"appeal_number": a["appeal_number"], "status": "under_review", "assigned_to": assignee["full_name"],
            "assigned_email": assignee["email"]}


@tool(write=True, actor="staff_email")
def decide_appeal(db: Db, staff_email: str, appeal_number: str, decision: Literal["uphold", "reduce", "dismiss"],
                  note: str, reduced_fine_cents: int | None = None) -> dict:
    """Decide an undecided appeal: uphold the citation, reduce its fine, or dismiss it; the citation is updated to match.

    Args:
        staff_email: the email of the appeals officer or supervisor deciding (the acting person).
        appeal_number: the appeal's number, e.g. "APL-2026-0041".
        decision: uphold, reduce or dismiss.
        note: the decision note explaining the outcome.
        reduced_fine_cents: the new fine in cents when reducing, e.g. 2500; less than the current fine.
    """
    staff = _staff(db, staff_email, ("appeals_officer", "supervisor", "manager"))
    a = db.one("SELECT id, member_id, citation_id, status, appeal_number, assigned_staff_id FROM appeals "
               "WHERE appeal_number = ?", ((appeal_number or "").strip().upper(),))
    if a is None:
        raise ToolError(f"no appeal {appeal_number!r}; use search_appeals")
    if a["status"] not in ("pending", "under_review"):
        raise ToolError(f"appeal {a['appeal_number']} is {a['status']}; it has already been closed")
    if staff["role"] == "appeals_officer" and a["assigned_staff_id"] not in (None, staff["id"]):
        raise ToolError(f"appeal {a['appeal_number']} is assigned to another officer; only they or a supervisor can decide it")
    text = _text(note, "note")
    c = db.one("SELECT id, citation_number, status, fine_cents FROM citations WHERE id = ?", (a["citation_id"],))
    if c["status"] != "under_appeal":
        raise ToolError(f"citation {c['citation_number']} is {c['status']}, not under appeal; the appeal cannot be decided")
    now = now_iso(db)
    new_due = (db.today() + timedelta(days=DECISION_DUE_DAYS)).isoformat()
    if decision == "reduce":
        if reduced_fine_cents is None or not (0 < reduced_fine_cents < c["fine_cents"]):
            raise ToolError(f"give reduced_fine_cents between 1 and {c['fine_cents'] - 1} (the fine is {c['fine_cents']})")
        status, cit_status = "reduced", "reduced"
        db.execute("UPDATE citations SET status = 'reduced', fine_cents = ?, late_fee_cents = 0, due_date = ? WHERE id = ?",
                   (reduced_fine_cents, new_due, c["id"]))
    elif decision == "dismiss":
        if reduced_fine_cents is not None:
            raise ToolError("reduced_fine_cents is only for a reduce decision")
        status, cit_status = "dismissed", "dismissed"
        db.execute("UPDATE citations SET status = 'dismissed', late_fee_cents = 0 WHERE id = ?", (c["id"],))
    else:
        if reduced_fine_cents is not None:
            raise ToolError("reduced_fine_cents is only for a reduce decision")
        status, cit_status = "upheld", "unpaid"
        db.execute("UPDATE citations SET status = 'unpaid', late_fee_cents = 0, due_date = ? WHERE id = ?",
                   (new_due, c["id"]))
    db.execute("UPDATE appeals SET status = ?, decided_at = ?, decided_by_staff_id = ?, "
               "assigned_staff_id = COALESCE(assigned_staff_id, ?), reduced_fine_cents = ?, decision_note = ? WHERE id = ?",
               (status, now, staff["id"], staff["id"], reduced_fine_cents if decision == "reduce" else None, text, a["id"]))
    _log(db, staff["id"], a["member_id"], "appeal", a["id"], "appeal_decided", a["status"], status, text)
    return {"appeal_number": a["appeal_number"], "status": status, "citation_number": c["citation_number"],
            "citation_status": cit_status, "fine_cents": reduced_fine_cents if decision == "reduce" else c["fine_cents"],
            "due_date": None if decision == "dismiss" else new_due, "decided_by": staff["email"], "decided_at": now}


# ---------------------------------------------------------------- payments & refunds

@tool
def list_payments(db: Db, member_email: str | None = None, payment_for: Literal["permit", "citation"] | None = None,
                  status: Literal["pending", "completed", "failed", "refunded", "partially_refunded"] | None = None, date_from: str | None = None, date_to: str | None = None,
                  limit: int = 20) -> dict:
    """List payments, newest first, with what each paid for and how much was refunded, plus totals over all matches.

    Args:
        member_email: only this member's payments.
        payment_for: only permit or only citation payments.
        status: only payments with this status, e.g. "completed".
        date_from: first payment date to include, e.g. "2026-01-01".
        date_to: last payment date to include, e.g. "2026-01-31".
        limit: maximum number of payments listed, 1 to 100.
    """
    check_limit(limit, 100)
    member_id = _member(db, member_email)["id"] if member_email else None
    d_from = _date(date_from, "date_from").isoformat() if date_from else None
    d_to = _date(date_to, "date_to").isoformat() if date_to else None
    params = (member_id, member_id, payment_for, payment_for, status, status, d_from, d_from, d_to, d_to)
    rows = db.query(
        "SELECT pay.receipt_number, pay.payment_for, p.permit_number, c.citation_number, pay.amount_cents, pay.method, "
        "pay.status, pay.paid_at, m.full_name AS member_name, m.email AS member_email, "
        "(SELECT COALESCE(SUM(r.amount_cents), 0) FROM refunds r WHERE r.payment_id = pay.id AND r.status = 'issued') "
        "AS refunded_cents FROM payments pay JOIN campus_members m ON m.id = pay.member_id "
        "LEFT JOIN permits p ON p.id = pay.permit_id LEFT JOIN citations c ON c.id = pay.citation_id "
        "WHERE (? IS NULL OR pay.member_id = ?) AND (? IS NULL OR pay.payment_for = ?) AND (? IS NULL OR pay.status = ?) "
        "AND (? IS NULL OR substr(pay.paid_at, 1, 10) >= ?) AND (? IS NULL OR substr(pay.paid_at, 1, 10) <= ?) "
        "ORDER BY pay.paid_at DESC, pay.id DESC LIMIT ?",
        params + (limit,),
    )
    totals = db.one(
        "SELECT COUNT(*) AS matching_payments, "
        "COALESCE(SUM(CASE WHEN pay.status IN ('completed', 'refunded', 'partially_refunded') THEN pay.amount_cents ELSE 0 END), 0) "
        "AS total_paid_cents, COALESCE(SUM(COALESCE(rf.refunded, 0)), 0) AS total_refunded_cents "
        "FROM payments pay LEFT JOIN (SELECT payment_id, SUM(amount_cents) AS refunded FROM refunds "
        "WHERE status = 'issued' GROUP BY payment_id) rf ON rf.payment_id = pay.id "
        "WHERE (? IS NULL OR pay.member_id = ?) AND (? IS NULL OR pay.payment_for = ?) "
        "AND (? IS NULL OR pay.status = ?) AND (? IS NULL OR substr(pay.paid_at, 1, 10) >= ?) "
        "AND (? IS NULL OR substr(pay.paid_at, 1, 10) <= ?)",
        params,
    )
    return {"payments": rows, "matching_payments": totals["matching_payments"],
            "total_paid_cents": totals["total_paid_cents"], "total_refunded_cents": totals["total_refunded_cents"],
            "net_paid_cents": totals["total_paid_cents"] - totals["total_refunded_cents"]}


@tool
def get_payment(db: Db, receipt_number: str) -> dict:
    """Show one payment by receipt number with what it paid for, who processed it and its refunds.

    Args:
        receipt_number: the receipt number, e.g. "RCPT-2026-000231".
    """
    row = db.one(
        "SELECT pay.id, pay.receipt_number, pay.payment_for, pay.amount_cents, pay.method, pay.status, pay.paid_at, "
        "p.permit_number, c.citation_number, m.full_name AS member_name, m.email AS member_email, "
        "s.full_name AS processed_by FROM payments pay JOIN campus_members m ON m.id = pay.member_id "
        "LEFT JOIN permits p ON p.id = pay.permit_id LEFT JOIN citations c ON c.id = pay.citation_id "
        "LEFT JOIN staff s ON s.id = pay.processed_by_staff_id WHERE pay.receipt_number = ?",
        ((receipt_number or "").strip().upper(),),
    )
    if row is None:
        raise ToolError(f"no payment with receipt {receipt_number!r}; use list_payments")
    row["refunds"] = db.query(
        "SELECT refund_number, amount_cents, reason, status, requested_at, processed_at, note FROM refunds "
        "WHERE payment_id = ? ORDER BY requested_at", (row["id"],))
    totals = _payment_refund_totals(db, row["id"])
    row["refunded_cents"] = totals["issued"]
    row["refundable_cents"] = (row["amount_cents"] - totals["issued"]
                               if row["status"] in ("completed", "partially_refunded") else 0)
    del row["id"]
    return row


@tool
def list_refunds(db: Db, status: Literal["requested", "approved", "issued", "denied"] | None = None, member_email: str | None = None,
                 limit: int = 20) -> list[dict]:
    """List refunds, oldest request first, by status or member, with the payment each one returns money from.

    Args:
        status: only refunds with this status, e.g. "requested".
        member_email: only this member's refunds.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    member_id = _member(db, member_email)["id"] if member_email else None
    return db.query(
        "SELECT r.refund_number, r.amount_cents, r.reason, r.status, r.requested_at, r.processed_at, r.note, "
        "pay.receipt_number, pay.amount_cents AS payment_amount_cents, pay.payment_for, m.full_name AS member_name, "
        "m.email AS member_email, s.full_name AS processed_by FROM refunds r JOIN payments pay ON pay.id = r.payment_id "
        "JOIN campus_members m ON m.id = r.member_id LEFT JOIN staff s ON s.id = r.processed_by_staff_id "
        "WHERE (? IS NULL OR r.status = ?) AND (? IS NULL OR r.member_id = ?) ORDER BY r.requested_at, r.id LIMIT ?",
        (status, status, member_id, member_id, limit),
    )


@tool(write=True, actor="member_email")
def request_refund(db: Db, member_email: str, receipt_number: str, amount_cents: int,
                   reason: Literal["permit_cancelled", "citation_dismissed", "citation_reduced", "duplicate_payment",
                                   "overcharge", "other"]) -> dict:
    """Request a refund of part or all of one of the member's own payments; staff then process it.

    Args:
        member_email: the email of the member who made the payment (the acting person).
        receipt_number: the payment's receipt number, e.g. "RCPT-2026-000231".
        amount_cents: the amount to refund in cents, e.g. 9750.
        reason: permit_cancelled, citation_dismissed, citation_reduced, duplicate_payment, overcharge or other.
    """
    member = _member(db, member_email)
    pay = db.one("SELECT id, member_id, payment_for, permit_id, citation_id, amount_cents, status, receipt_number "
                 "FROM payments WHERE receipt_number = ?", ((receipt_number or "").strip().upper(),))
    if pay is None:
        raise ToolError(f"no payment with receipt {receipt_number!r}; use list_payments")
    if pay["member_id"] != member["id"]:
        raise ToolError(f"payment {pay['receipt_number']} was not made by {member['email']}")
    if pay["status"] not in ("completed", "partially_refunded"):
        raise ToolError(f"payment {pay['receipt_number']} is {pay['status']}; only completed payments can be refunded")
    totals = _payment_refund_totals(db, pay["id"])
    if totals["open"]:
        raise ToolError("a refund for this payment is already being processed; wait for it to be decided")
    refundable = pay["amount_cents"] - totals["issued"]
    if amount_cents <= 0 or amount_cents > refundable:
        raise ToolError(f"the refund must be between 1 and {refundable} cents for this payment")
    if reason == "permit_cancelled":
        st = db.value("SELECT status FROM permits WHERE id = ?", (pay["permit_id"],)) if pay["permit_id"] else None
        if st != "cancelled":
            raise ToolError("permit_cancelled refunds need a payment for a permit that has been cancelled; cancel it first")
    elif reason == "citation_dismissed":
        st = db.value("SELECT status FROM citations WHERE id = ?", (pay["citation_id"],)) if pay["citation_id"] else None
        if st != "dismissed":
            raise ToolError("citation_dismissed refunds need a payment for a citation that was dismissed")
    elif reason == "citation_reduced":
        c = db.one("SELECT fine_cents, late_fee_cents FROM citations WHERE id = ?", (pay["citation_id"],)) \
            if pay["citation_id"] else None
        reduced = db.value("SELECT COUNT(*) FROM appeals WHERE citation_id = ? AND status = 'reduced'",
                           (pay["citation_id"],)) if c else 0
        if not reduced:
            raise ToolError("citation_reduced refunds need a payment for a citation whose fine was reduced on appeal")
        over = pay["amount_cents"] - c["fine_cents"] - c["late_fee_cents"] - totals["issued"]
        if amount_cents > over:
            raise ToolError(f"only {max(over, 0)} cents were paid above the reduced fine")
    elif reason == "duplicate_payment":
        if pay["payment_for"] == "permit":
            other = db.value("SELECT COUNT(*) FROM payments WHERE permit_id = ? AND id <> ? AND status IN "
                             "('completed', 'partially_refunded')", (pay["permit_id"], pay["id"]))
        else:
            other = db.value("SELECT COUNT(*) FROM payments WHERE citation_id = ? AND id <> ? AND status IN "
                             "('completed', 'partially_refunded')", (pay["citation_id"], pay["id"]))
        if not other:
            raise ToolError("there is no other payment for the same permit or citation, so this is not a duplicate")
    rid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM refunds", ())
    number = f"RF-{db.today().year}-{rid:04d}"
    now = now_iso(db)
    db.insert("refunds", {
        "id": rid, "refund_number": number, "payment_id": pay["id"], "member_id": member["id"],
        "amount_cents": amount_cents, "reason": reason, "status": "requested", "requested_at": now,
        "processed_at": None, "processed_by_staff_id": None, "note": None,
    })
    _log(db, None, member["id"], "refund", rid, "refund_requested", None, "requested",
         f"{amount_cents} cents from {pay['receipt_number']}")
    return {"refund_number": number, "status": "requested", "amount_cents": amount_cents, "reason": reason,
            "receipt_number": pay["receipt_number"], "requested_at": now}


@tool(write=True, actor="staff_email")
def process_refund(db: Db, staff_email: str, refund_number: str, decision: Literal["approve", "issue", "deny"],
                   note: str | None = None) -> dict:
    """Staff action on a refund: approve a request, issue the money (refunds over $500 need a supervisor), or deny it with a note.

    Args:
        staff_email: the email of the clerk, supervisor or manager acting (the acting person).
        refund_number: the refund's number, e.g. "RF-2026-0031".
        decision: approve, issue or deny.
        note: a note for the record; required to deny.
    """
    staff = _staff(db, staff_email, ("clerk", "supervisor", "manager"))
    r = db.one("SELECT id, payment_id, member_id, amount_cents, status, refund_number FROM refunds WHERE refund_number = ?",
               ((refund_number or "").strip().upper(),))
    if r is None:
        raise ToolError(f"no refund {refund_number!r}; use list_refunds")
    text = _text(note, "note", required=decision == "deny")
    if decision == "approve" and r["status"] != "requested":
        raise ToolError(f"refund {r['refund_number']} is {r['status']}; only requested refunds can be approved")
    if decision in ("issue", "deny") and r["status"] not in ("requested", "approved"):
        raise ToolError(f"refund {r['refund_number']} is {r['status']}; it has already been closed")
    if decision == "issue" and r["amount_cents"] > LARGE_REFUND_CENTS and staff["role"] == "clerk":
        raise ToolError(f"refunds over {LARGE_REFUND_CENTS} cents must be issued by a supervisor or manager")
    pay = db.one("SELECT id, amount_cents, status, method FROM payments WHERE id = ?", (r["payment_id"],))
    new = {"approve": "approved", "issue": "issued", "deny": "denied"}[decision]
    now = now_iso(db)
    if decision == "issue":
        if pay["status"] not in ("completed", "partially_refunded"):
            raise ToolError(f"the payment is {pay['status']}; nothing can be refunded from it")
        issued = _payment_refund_totals(db, pay["id"])["issued"]
        if issued + r["amount_cents"] > pay["amount_cents"]:
            raise ToolError("issuing this refund would return more than was paid; deny it instead")
        if text is None:
            text = "Refunded to original " + pay["method"].replace("_", " ") + "."
    db.execute("UPDATE refunds SET status = ?, processed_at = ?, processed_by_staff_id = ?, note = COALESCE(?, note) "
               "WHERE id = ?", (new, now, staff["id"], text, r["id"]))
    payment_status = pay["status"]
    if decision == "issue":
        total = _payment_refund_totals(db, pay["id"])["issued"]
        payment_status = "refunded" if total >= pay["amount_cents"] else "partially_refunded"
        db.execute("UPDATE payments SET status = ? WHERE id = ?", (payment_status, pay["id"]))
    _log(db, staff["id"], r["member_id"], "refund", r["id"], "refund_" + new, r["status"], new, text)
    return {"refund_number": r["refund_number"], "status": new, "amount_cents": r["amount_cents"],
            "processed_by": staff["email"], "processed_at": now, "note": text, "payment_status": payment_status}


# ---------------------------------------------------------------- history

@tool
def get_record_history(db: Db, record_type: Literal["application", "permit", "citation", "appeal", "refund", "vehicle",
                                                    "member", "lot"],
                       reference: str, limit: int = 50) -> list[dict]:
    """Show the activity log of one record: who did what and when, with old and new status.

    Args:
        record_type: application, permit, citation, appeal, refund, vehicle, member or lot.
        reference: the record's number (e.g. "SP2026-CS-0142", "PC26-100162"), a plate for a vehicle, an email for a member, or a lot code.
        limit: maximum number of entries, 1 to 100.
    """
    check_limit(limit, 100)
    ref = (reference or "").strip()
    if not ref:
        raise ToolError("give the reference of the record")
    ids = []
    if record_type == "application":
        ids = [r["id"] for r in db.query("SELECT id FROM permit_applications WHERE application_number = ?", (ref.upper(),))]
    elif record_type == "permit":
        ids = [r["id"] for r in db.query("SELECT id FROM permits WHERE permit_number = ?", (ref.upper(),))]
    elif record_type == "citation":
        ids = [r["id"] for r in db.query("SELECT id FROM citations WHERE citation_number = ?", (ref.upper(),))]
    elif record_type == "appeal":
        ids = [r["id"] for r in db.query("SELECT id FROM appeals WHERE appeal_number = ?", (ref.upper(),))]
    elif record_type == "refund":
        ids = [r["id"] for r in db.query("SELECT id FROM refunds WHERE refund_number = ?", (ref.upper(),))]
    elif record_type == "vehicle":
        ids = [r["id"] for r in db.query("SELECT id FROM vehicles WHERE plate_number = ?", (_plate(ref),))]
    elif record_type == "member":
        ids = [r["id"] for r in db.query("SELECT id FROM campus_members WHERE email = ?", (_email(ref),))]
    else:
        ids = [r["id"] for r in db.query("SELECT id FROM parking_lots WHERE code = ?", (ref.upper(),))]
    if not ids:
        raise ToolError(f"no {record_type} {reference!r}; check the reference")
    out = []
    for entity_id in ids:
        out.extend(db.query(
            "SELECT a.occurred_at, a.action, a.old_status, a.new_status, a.details, s.full_name AS staff_name, "
            "s.email AS staff_email, m.full_name AS member_name FROM activity_log a "
            "LEFT JOIN staff s ON s.id = a.staff_id LEFT JOIN campus_members m ON m.id = a.member_id "
            "WHERE a.entity_type = ? AND a.entity_id = ? ORDER BY a.occurred_at, a.id LIMIT ?",
            (record_type, entity_id, limit)))
    out.sort(key=lambda e: e["occurred_at"])
    return out[:limit]
