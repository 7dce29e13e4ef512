"""Tools for Harbor Light Marina: owners, boats, slips, leases, transient dockage, fuel, boatyard and billing."""
from datetime import date, datetime, timedelta
from typing import Literal

from awm.tooling import Db, ToolError, check_limit, like_contains, now_iso, tool

DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

LEASE_ROLES = frozenset({"manager", "office_admin", "dockmaster"})
BOOKING_ROLES = frozenset({"manager", "dockmaster", "dockhand", "office_admin"})
DOCK_ROLES = frozenset({"manager", "dockmaster", "dockhand"})
FUEL_ROLES = frozenset({"manager", "dockmaster", "dockhand", "fuel_attendant"})
YARD_DESK_ROLES = frozenset({"manager", "yard_manager", "office_admin"})
YARD_LEAD_ROLES = frozenset({"manager", "yard_manager"})
CASHIER_ROLES = frozenset({"manager", "office_admin", "dockmaster"})
VOID_ROLES = frozenset({"manager", "office_admin"})
MAX_NIGHTS = 30
MAX_GALLONS = 1000.0


# ----------------------------------------------------------------- helpers

def _money(cents) -> str:
    cents = int(cents or 0)
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return "%s$%d.%02d" % (sign, cents // 100, cents % 100)


def _clean(text) -> str:
    return (text or "").strip()


def _date(value: str, name: str) -> date:
    try:
        return date.fromisoformat(_clean(value))
    except ValueError:
        raise ToolError(f"{name} must be a date like 2026-05-14, got {value!r}")


def _opt_date(value, name: str):
    if value is None or _clean(value) == "":
        return None
    return _date(value, name).isoformat()


def _datetime(value: str, name: str) -> datetime:
    try:
        return datetime.fromisoformat(_clean(value))
    except ValueError:
        raise ToolError(f"{name} must be a date and time like 2026-05-20T08:00, got {value!r}")


def _staff(db: Db, staff_email: str, roles, action: str) -> dict:
    row = db.one("SELECT id, full_name, email, role, is_active FROM staff WHERE email = ?",
                 (_clean(staff_email).lower(),))
    if row is None:
        raise ToolError(f"no staff member with email {staff_email!r}; use search_staff to find the address")
    if not row["is_active"]:
        raise ToolError(f"{row['full_name']} is no longer an active staff member and cannot {action}")
    if row["role"] not in roles:
        raise ToolError(f"{row['full_name']} is a {row['role']}; only {', '.join(sorted(roles))} staff can {action}")
    return row


def _owner(db: Db, ref: str) -> dict:
    text = _clean(ref)
    if not text:
        raise ToolError("give the owner's email or account number (e.g. HL-02035)")
    row = db.one("SELECT * FROM owners WHERE email = ? OR account_number = ?", (text.lower(), text.upper()))
    if row is None:
        raise ToolError(f"no owner with email or account number {ref!r}; use search_owners to find them")
    return row


def _owner_id(db: Db, ref):
    if ref is None or _clean(ref) == "":
        return None
    return _owner(db, ref)["id"]


def _acting_owner(db: Db, owner_email: str) -> dict:
    row = db.one("SELECT * FROM owners WHERE email = ?", (_clean(owner_email).lower(),))
    if row is None:
        raise ToolError(f"no owner account with email {owner_email!r}; check the address or use search_owners")
    return row


def _boat(db: Db, registration_number: str) -> dict:
    text = _clean(registration_number).upper().replace(" ", "")
    if not text:
        raise ToolError("give the boat's registration number (e.g. 'CT 4821 AB' or 'USCG 1054346')")
    row = db.one("SELECT * FROM boats WHERE REPLACE(UPPER(registration_number), ' ', '') = ? "
                 "OR UPPER(hull_id_number) = ?", (text, text))
    if row is None:
        raise ToolError(f"no boat with registration or hull number {registration_number!r}; use search_boats")
    return row


def _boat_id(db: Db, registration_number):
    if registration_number is None or _clean(registration_number) == "":
        return None
    return _boat(db, registration_number)["id"]


def _slip(db: Db, slip_code: str) -> dict:
    row = db.one("SELECT s.*, d.code AS dock_code, d.name AS dock_name FROM slips s JOIN docks d ON d.id = s.dock_id "
                 "WHERE s.slip_code = ?", (_clean(slip_code).upper(),))
    if row is None:
        raise ToolError(f"no slip {slip_code!r}; slip codes look like 'C-04' or 'T-02' (use find_available_slips)")
    return row


def _check_fit(slip: dict, boat: dict) -> None:
    if boat["length_ft"] > slip["max_length_ft"] or boat["beam_ft"] > slip["max_beam_ft"] \
            or boat["draft_ft"] > slip["max_draft_ft"]:
        raise ToolError(
            f"{boat['name']} ({boat['length_ft']:g} ft long, {boat['beam_ft']:g} ft beam, {boat['draft_ft']:g} ft draft) "
            f"does not fit slip {slip['slip_code']} (max {slip['max_length_ft']:g} x {slip['max_beam_ft']:g} ft, "
            f"{slip['max_draft_ft']:g} ft draft); use find_available_slips with the boat's registration")


def _slip_conflict(db: Db, slip_id: int, start: str, end_excl: str, skip_lease: int, skip_res: int):
    lease = db.one("SELECT lease_number, start_date, end_date, status FROM slip_leases WHERE slip_id = ? "
                   "AND status IN ('pending', 'active') AND start_date < ? AND end_date >= ? AND id <> ? LIMIT 1",
                   (slip_id, end_excl, start, skip_lease))
    if lease is not None:
        return f"lease {lease['lease_number']} ({lease['status']}, {lease['start_date']} to {lease['end_date']})"
    res = db.one("SELECT confirmation_code, arrival_date, departure_date, status FROM transient_reservations "
                 "WHERE slip_id = ? AND status IN ('pending', 'confirmed', 'checked_in') AND arrival_date < ? "
                 "AND departure_date > ? AND id <> ? LIMIT 1", (slip_id, end_excl, start, skip_res))
    if res is not None:
        return (f"reservation {res['confirmation_code']} ({res['status']}, {res['arrival_date']} to "
                f"{res['departure_date']})")
    return None


def _log(db: Db, staff_id, owner_id, entity_type: str, entity_id: int, action: str, old, new, details) -> None:
    db.insert("activity_log", {"occurred_at": now_iso(db), "staff_id": staff_id, "owner_id": owner_id,
                               "entity_type": entity_type, "entity_id": entity_id, "action": action,
                               "old_status": old, "new_status": new, "details": details})


def _add_months(d: date, n: int) -> date:
    m0 = d.month - 1 + n
    return date(d.year + m0 // 12, m0 % 12 + 1, 1)


# ------------------------------------------------------------ owners & boats

@tool
def search_owners(db: Db, query: str = "",
                  account_type: Literal["slip_holder", "transient", "yard_only"] | None = None,
                  status: Literal["active", "suspended", "closed"] | None = None, limit: int = 20) -> list[dict]:
    """Find boat owners (the marina's customers) by name, email, account number or phone.

    Args:
        query: part of the name, email, account number (e.g. "HL-02035") or phone; empty lists everyone.
        account_type: only slip_holder, transient or yard_only accounts.
        status: only active, suspended or closed accounts.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    pat = like_contains(_clean(query))
    return db.query(
        "SELECT o.account_number, o.full_name, o.email, o.phone, o.city, o.state, o.account_type, o.status, "
        "o.created_at, (SELECT COUNT(*) FROM boats b WHERE b.owner_id = o.id AND b.status = 'active') AS active_boats "
        "FROM owners o WHERE (o.full_name LIKE ? ESCAPE '\\' OR o.email LIKE ? ESCAPE '\\' "
        "OR o.account_number LIKE ? ESCAPE '\\' OR o.phone LIKE ? ESCAPE '\\') "
        "AND (? IS NULL OR o.account_type = ?) AND (? IS NULL OR o.status = ?) "
        "ORDER BY o.full_name, o.account_number LIMIT ?",
        (pat, pat, pat, pat, account_type, account_type, status, status, limit))


@tool
def get_owner(db: Db, owner: str) -> dict:
    """Show one owner's account: contact details, boats, current and upcoming slip leases, upcoming
    reservations, open work orders, waitlist entries and the unpaid balance.

    Args:
        owner: the owner's email or account number, e.g. "HL-02035".
    """
    o = _owner(db, owner)
    today = db.today().isoformat()
    boats = db.query(
        "SELECT name, registration_number, hull_id_number, make, model, model_year, boat_type, length_ft, beam_ft, "
        "draft_ft, fuel_type, status, insurance_provider, insurance_expires_on FROM boats WHERE owner_id = ? ORDER BY id",
        (o["id"],))
    leases = db.query(
        "SELECT l.lease_number, s.slip_code, rp.code AS plan_code, rp.name AS plan_name, b.name AS boat_name, "
        "l.start_date, l.end_date, l.status, l.billing_frequency, l.total_fee_cents FROM slip_leases l "
        "JOIN slips s ON s.id = l.slip_id JOIN rate_plans rp ON rp.id = l.rate_plan_id JOIN boats b ON b.id = l.boat_id "
        "WHERE l.owner_id = ? AND l.status IN ('pending', 'active') ORDER BY l.start_date", (o["id"],))
    reservations = db.query(
        "SELECT r.confirmation_code, b.name AS boat_name, s.slip_code, r.arrival_date, r.departure_date, r.nights, "
        "r.status, r.total_cents FROM transient_reservations r JOIN boats b ON b.id = r.boat_id "
        "LEFT JOIN slips s ON s.id = r.slip_id WHERE r.owner_id = ? AND r.status IN ('pending', 'confirmed', 'checked_in') "
        "AND r.departure_date >= ? ORDER BY r.arrival_date", (o["id"], today))
    work_orders = db.query(
        "SELECT w.work_order_number, b.name AS boat_name, w.work_type, w.description, w.status, w.estimate_cents, "
        "w.scheduled_start FROM work_orders w JOIN boats b ON b.id = w.boat_id WHERE w.owner_id = ? "
        "AND w.status NOT IN ('completed', 'cancelled') ORDER BY w.requested_at", (o["id"],))
    waitlist = db.query(
        "SELECT w.waitlist_code, b.name AS boat_name, w.desired_plan_type, w.status, w.requested_at, w.offered_at "
        "FROM slip_waitlist w JOIN boats b ON b.id = w.boat_id WHERE w.owner_id = ? AND w.status IN ('waiting', 'offered') "
        "ORDER BY w.requested_at", (o["id"],))
    bal = db.one("SELECT COUNT(*) AS open_invoices, COALESCE(SUM(total_cents - amount_paid_cents), 0) AS balance_cents, "
                 "COALESCE(SUM(CASE WHEN due_on < ? THEN total_cents - amount_paid_cents ELSE 0 END), 0) AS overdue_cents "
                 "FROM invoices WHERE owner_id = ? AND status IN ('issued', 'partially_paid')", (today, o["id"]))
    info = {k: o[k] for k in ("account_number", "full_name", "email", "phone", "address_line", "city", "state",
                              "postal_code", "emergency_contact_name", "emergency_contact_phone", "account_type",
                              "status", "created_at", "notes")}
    return {"owner": info, "boats": boats, "current_and_upcoming_leases": leases,
            "upcoming_reservations": reservations, "open_work_orders": work_orders, "open_waitlist_entries": waitlist,
            "open_invoices": bal["open_invoices"], "balance_due_cents": bal["balance_cents"],
            "overdue_cents": bal["overdue_cents"]}


@tool
def search_boats(db: Db, query: str = "",
                 boat_type: Literal["sailboat", "powerboat", "trawler", "catamaran", "center_console", "pontoon",
                                    "sportfisher"] | None = None,
                 status: Literal["active", "sold", "inactive"] | None = None, limit: int = 20) -> list[dict]:
    """Find boats by name, registration number, hull number, make, model or owner's name.

    Args:
        query: part of the boat name (e.g. "Sea Breeze"), registration, hull id, make, model or owner name.
        boat_type: only this type of boat.
        status: only active, sold or inactive boats.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    pat = like_contains(_clean(query))
    return db.query(
        "SELECT b.name, b.registration_number, b.hull_id_number, b.make, b.model, b.model_year, b.boat_type, "
        "b.length_ft, b.beam_ft, b.draft_ft, b.fuel_type, b.status, o.full_name AS owner_name, o.email AS owner_email, "
        "o.account_number FROM boats b JOIN owners o ON o.id = b.owner_id "
        "WHERE (b.name LIKE ? ESCAPE '\\' OR b.registration_number LIKE ? ESCAPE '\\' "
        "OR b.hull_id_number LIKE ? ESCAPE '\\' OR b.make LIKE ? ESCAPE '\\' OR b.model LIKE ? ESCAPE '\\' "
        "OR o.full_name LIKE ? ESCAPE '\\') AND (? IS NULL OR b.boat_type = ?) AND (? IS NULL OR b.status = ?) "
        "ORDER BY b.name, b.registration_number LIMIT ?",
        (pat, pat, pat, pat, pat, pat, boat_type, boat_type, status, status, limit))


@tool
def get_boat(db: Db, registration_number: str) -> dict:
    """Show one boat with its owner, its current slip lease, upcoming reservations, open yard work and
    its five most recent fuel orders.

    Args:
        registration_number: the boat's registration (e.g. "CT 4821 AB", "USCG 1054346") or hull id number.
    """
    b = _boat(db, registration_number)
    today = db.today().isoformat()
    owner = db.one("SELECT account_number, full_name, email, phone, status FROM owners WHERE id = ?", (b["owner_id"],))
    leases = db.query(
        "SELECT l.lease_number, s.slip_code, rp.name AS plan_name, l.start_date, l.end_date, l.status "
        "FROM slip_leases l JOIN slips s ON s.id = l.slip_id JOIN rate_plans rp ON rp.id = l.rate_plan_id "
        "WHERE l.boat_id = ? AND l.status IN ('pending', 'active') ORDER BY l.start_date", (b["id"],))
    reservations = db.query(
        "SELECT r.confirmation_code, s.slip_code, r.arrival_date, r.departure_date, r.status FROM transient_reservations r "
        "LEFT JOIN slips s ON s.id = r.slip_id WHERE r.boat_id = ? AND r.status IN ('pending', 'confirmed', 'checked_in') "
        "AND r.departure_date >= ? ORDER BY r.arrival_date", (b["id"], today))
    work = db.query(
        "SELECT work_order_number, work_type, description, status, estimate_cents, scheduled_start, haul_out_date, "
        "launch_date FROM work_orders WHERE boat_id = ? AND status NOT IN ('completed', 'cancelled') ORDER BY requested_at",
        (b["id"],))
    fuel = db.query(
        "SELECT f.order_number, p.name AS product, f.status, f.gallons_delivered, f.total_cents, f.requested_at, "
        "f.completed_at FROM fuel_orders f JOIN fuel_products p ON p.id = f.fuel_product_id WHERE f.boat_id = ? "
        "ORDER BY f.requested_at DESC LIMIT 5", (b["id"],))
    info = {k: b[k] for k in ("name", "registration_number", "hull_id_number", "make", "model", "model_year", "boat_type",
                              "length_ft", "beam_ft", "draft_ft", "fuel_type", "insurance_provider",
                              "insurance_policy_number", "insurance_expires_on", "status", "created_at")}
    return {"boat": info, "owner": owner, "current_leases": leases, "upcoming_reservations": reservations,
            "open_work_orders": work, "recent_fuel_orders": fuel}


# ------------------------------------------------------------ slips & prices

@tool
def get_slip(db: Db, slip_code: str) -> dict:
    """Show one slip: its dock, size limits, power, status, who holds it now and its booked dates.

    Args:
        slip_code: the slip's code, e.g. "C-04" or "T-02".
    """
    s = _slip(db, slip_code)
    today = db.today().isoformat()
    leases = db.query(
        "SELECT l.lease_number, o.full_name AS owner_name, o.account_number, b.name AS boat_name, rp.name AS plan_name, "
        "l.start_date, l.end_date, l.status FROM slip_leases l JOIN owners o ON o.id = l.owner_id "
        "JOIN boats b ON b.id = l.boat_id JOIN rate_plans rp ON rp.id = l.rate_plan_id "
        "WHERE l.slip_id = ? AND l.status IN ('pending', 'active') ORDER BY l.start_date", (s["id"],))
    reservations = db.query(
        "SELECT r.confirmation_code, o.full_name AS owner_name, b.name AS boat_name, r.arrival_date, r.departure_date, "
        "r.status FROM transient_reservations r JOIN owners o ON o.id = r.owner_id JOIN boats b ON b.id = r.boat_id "
        "WHERE r.slip_id = ? AND r.status IN ('pending', 'confirmed', 'checked_in') AND r.departure_date >= ? "
        "ORDER BY r.arrival_date", (s["id"], today))
    occupied = any(x["status"] == "active" and x["start_date"] <= today <= x["end_date"] for x in leases) or \
        any(x["status"] == "checked_in" for x in reservations)
    info = {k: s[k] for k in ("slip_code", "dock_code", "dock_name", "slip_usage", "max_length_ft", "max_beam_ft",
                              "max_draft_ft", "power_amps", "status", "notes")}
    return {"slip": info, "occupied_today": occupied, "leases": leases, "upcoming_reservations": reservations}


@tool
def find_available_slips(db: Db, start_date: str, end_date: str, registration_number: str | None = None,
                         min_length_ft: float | None = None, needs_power: bool = False,
                         usage: Literal["any", "seasonal", "transient", "flex"] = "any",
                         dock_code: str | None = None, limit: int = 20) -> list[dict]:
    """List in-service slips that are free (no pending/active lease, no open reservation) for every night
    from start_date up to, not including, end_date, smallest first.

    Args:
        start_date: first night, e.g. "2026-06-12".
        end_date: the departure day or day after the last night, e.g. "2026-06-15".
        registration_number: only slips this boat fits (length, beam and draft).
        min_length_ft: only slips at least this long (used when no boat is given).
        needs_power: only slips with shore power.
        usage: seasonal (lease) slips, transient slips, flex slips (either) or any.
        dock_code: only this dock, e.g. "C" or "T".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    start = _date(start_date, "start_date")
    end = _date(end_date, "end_date")
    if end <= start:
        raise ToolError("end_date must be after start_date")
    length, beam, draft = 0.0, 0.0, 0.0
    if registration_number:
        b = _boat(db, registration_number)
        length, beam, draft = b["length_ft"], b["beam_ft"], b["draft_ft"]
    elif min_length_ft is not None:
        if min_length_ft <= 0:
            raise ToolError("min_length_ft must be positive")
        length = float(min_length_ft)
    dock = _clean(dock_code).upper() or None
    return db.query(
        "SELECT s.slip_code, d.code AS dock_code, d.name AS dock_name, s.slip_usage, s.max_length_ft, s.max_beam_ft, "
        "s.max_draft_ft, s.power_amps, s.notes FROM slips s JOIN docks d ON d.id = s.dock_id "
        "WHERE s.status = 'in_service' AND (? = 'any' OR s.slip_usage = ?) AND (? IS NULL OR d.code = ?) "
        "AND s.max_length_ft >= ? AND s.max_beam_ft >= ? AND s.max_draft_ft >= ? AND (? = 0 OR s.power_amps > 0) "
        "AND NOT EXISTS (SELECT 1 FROM slip_leases l WHERE l.slip_id = s.id AND l.status IN ('pending', 'active') "
        "AND l.start_date < ? AND l.end_date >= ?) "
        "AND NOT EXISTS (SELECT 1 FROM transient_reservations r WHERE r.slip_id = s.id "
        "AND r.status IN ('pending', 'confirmed', 'checked_in') AND r.arrival_date < ? AND r.departure_date > ?) "
        "ORDER BY s.max_length_ft, s.slip_code LIMIT ?",
        (usage, usage, dock, dock, length, beam, draft, 1 if needs_power else 0, end.isoformat(), start.isoformat(),
         end.isoformat(), start.isoformat(), limit))


@tool
def list_rate_plans(db: Db, plan_type: Literal["annual", "summer_season", "winter_season", "monthly",
                                               "transient_nightly"] | None = None,
                    include_inactive: bool = False) -> list[dict]:
    """List slip rate plans with their per-foot rate, power fee and validity. A lease costs
    length_ft x rate (x months for monthly plans) plus the power fee (per month for monthly plans) when
    the slip has power; a transient night costs length_ft x rate plus the power fee when power is needed.

    Args:
        plan_type: only this kind of plan.
        include_inactive: also list past (inactive) plans.
    """
    return db.query(
        "SELECT code, name, plan_type, rate_basis, rate_cents, power_fee_cents, valid_from, valid_to, is_active "
        "FROM rate_plans WHERE (? IS NULL OR plan_type = ?) AND (? = 1 OR is_active = 1) ORDER BY valid_from, code",
        (plan_type, plan_type, 1 if include_inactive else 0))


@tool
def get_facility_hours(db: Db, facility: Literal["office", "fuel_dock", "boatyard", "pump_out"] | None = None,
                       season: Literal["summer", "winter"] | None = None) -> list[dict]:
    """Opening hours of the office, fuel dock, boatyard and pump-out station by day of week. Summer
    hours apply May to October, winter hours November to April.

    Args:
        facility: only this facility.
        season: only summer or winter hours.
    """
    rows = db.query(
        "SELECT facility, season, day_of_week, opens_at, closes_at, is_closed FROM facility_hours "
        "WHERE (? IS NULL OR facility = ?) AND (? IS NULL OR season = ?) ORDER BY facility, season, day_of_week",
        (facility, facility, season, season))
    for r in rows:
        r["day"] = DAY_NAMES[r["day_of_week"]] if 0 <= r["day_of_week"] <= 6 else str(r["day_of_week"])
    return rows


# ------------------------------------------------------------------ leases

@tool
def list_slip_leases(db: Db, owner: str | None = None,
                     status: Literal["pending", "active", "expired", "terminated", "cancelled"] | None = None,
                     slip_code: str | None = None, plan_code: str | None = None, limit: int = 20) -> list[dict]:
    """List slip leases, newest first, filtered by owner, status, slip or rate plan.

    Args:
        owner: the owner's email or account number.
        status: only leases in this status.
        slip_code: only leases of this slip, e.g. "C-04".
        plan_code: only this rate plan, e.g. "ANN-2026".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    oid = _owner_id(db, owner)
    slip = _clean(slip_code).upper() or None
    plan = _clean(plan_code).upper() or None
    return db.query(
        "SELECT l.lease_number, o.full_name AS owner_name, o.account_number, b.name AS boat_name, "
        "b.registration_number, s.slip_code, rp.code AS plan_code, rp.name AS plan_name, l.start_date, l.end_date, "
        "l.billing_frequency, l.total_fee_cents, l.deposit_cents, l.auto_renew, l.status, l.signed_at, l.end_reason "
        "FROM slip_leases l JOIN owners o ON o.id = l.owner_id JOIN boats b ON b.id = l.boat_id "
        "JOIN slips s ON s.id = l.slip_id JOIN rate_plans rp ON rp.id = l.rate_plan_id "
        "WHERE (? IS NULL OR l.owner_id = ?) AND (? IS NULL OR l.status = ?) AND (? IS NULL OR s.slip_code = ?) "
        "AND (? IS NULL OR rp.code = ?) ORDER BY l.start_date DESC, l.lease_number DESC LIMIT ?",
        (oid, oid, status, status, slip, slip, plan, plan, limit))


@tool
def get_slip_lease(db: Db, lease_number: str) -> dict:
    """Show one slip lease with its owner, boat, slip, plan, dates, fee and the invoices billed for it.

    Args:
        lease_number: the lease number, e.g. "SL-2026-0012".
    """
    lease = db.one(
        "SELECT l.*, o.full_name AS owner_name, o.email AS owner_email, o.account_number, b.name AS boat_name, "
        "b.registration_number, b.length_ft, s.slip_code, s.power_amps, rp.code AS plan_code, rp.name AS plan_name, "
        "st.full_name AS created_by FROM slip_leases l JOIN owners o ON o.id = l.owner_id JOIN boats b ON b.id = l.boat_id "
        "JOIN slips s ON s.id = l.slip_id JOIN rate_plans rp ON rp.id = l.rate_plan_id "
        "JOIN staff st ON st.id = l.created_by_staff_id WHERE l.lease_number = ?", (_clean(lease_number).upper(),))
    if lease is None:
        raise ToolError(f"no lease {lease_number!r}; use list_slip_leases to find it")
    invoices = db.query(
        "SELECT i.invoice_number, i.status, i.issued_on, i.due_on, il.description, il.amount_cents, i.total_cents, "
        "i.amount_paid_cents FROM invoice_lines il JOIN invoices i ON i.id = il.invoice_id WHERE il.lease_id = ? "
        "ORDER BY i.id", (lease["id"],))
    billed = sum(x["amount_cents"] for x in invoices if x["status"] != "void")
    for k in ("id", "owner_id", "boat_id", "slip_id", "rate_plan_id", "created_by_staff_id"):
        lease.pop(k, None)
    return {"lease": lease, "invoices": invoices, "billed_so_far_cents": billed,
            "not_yet_billed_cents": lease["total_fee_cents"] - billed}


@tool(write=True, actor="staff_email")
def create_slip_lease(db: Db, staff_email: str, owner: str, registration_number: str, slip_code: str,
                      plan_code: str, billing_frequency: Literal["monthly", "quarterly", "upfront"],
                      start_date: str | None = None, months: int | None = None, auto_renew: bool = False) -> dict:
    """Create a pending (unsigned) slip lease for an owner's boat on a seasonal or flex slip. Annual and
    seasonal plans run for the plan's whole term; monthly plans need start_date (1st of a month) and months.

    Args:
        staff_email: email of the staff member creating the lease (manager, office admin or dockmaster).
        owner: the owner's email or account number.
        registration_number: registration of the owner's boat that will use the slip.
        slip_code: the slip, e.g. "C-04".
        plan_code: an active lease rate plan, e.g. "ANN-2026", "SUM-2026", "MON-2026".
        billing_frequency: monthly, quarterly or upfront (monthly plans bill monthly).
        start_date: monthly plans only: first day, e.g. "2026-06-01".
        months: monthly plans only: number of months, 1 to 12.
        auto_renew: renew automatically at the end of the term.
    """
    staff = _staff(db, staff_email, LEASE_ROLES, "create slip leases")
    o = _owner(db, owner)
    if o["status"] != "active":
        raise ToolError(f"{o['full_name']}'s account is {o['status']}; only active accounts can take a new lease")
    b = _boat(db, registration_number)
    if b["owner_id"] != o["id"]:
        raise ToolError(f"boat {b['registration_number']} does not belong to {o['full_name']}")
    if b["status"] != "active":
        raise ToolError(f"boat {b['name']} is {b['status']}; only active boats can be given a slip")
    plan = db.one("SELECT * FROM rate_plans WHERE code = ?", (_clean(plan_code).upper(),))
    if plan is None:
        raise ToolError(f"no rate plan {plan_code!r}; use list_rate_plans")
    if plan["plan_type"] == "transient_nightly":
        raise ToolError("transient nightly plans are for reservations; use book_transient_reservation")
    if not plan["is_active"]:
        raise ToolError(f"rate plan {plan['code']} is no longer offered; use list_rate_plans for current plans")
    s = _slip(db, slip_code)
    if s["status"] != "in_service":
        raise ToolError(f"slip {s['slip_code']} is out of service ({s['notes'] or 'no note'})")
    if s["slip_usage"] not in ("seasonal", "flex"):
        raise ToolError(f"slip {s['slip_code']} is a transient slip and cannot be leased; choose a seasonal or flex slip")
    _check_fit(s, b)
    today = db.today()
    valid_from = date.fromisoformat(plan["valid_from"])
    valid_to = date.fromisoformat(plan["valid_to"])
    if plan["rate_basis"] == "per_foot_per_month":
        if start_date is None or months is None:
            raise ToolError("a monthly plan needs start_date (the 1st of a month) and months")
        start = _date(start_date, "start_date")
        if start.day != 1:
            raise ToolError("monthly leases start on the 1st of a month")
        if months < 1 or months > 12:
            raise ToolError("months must be between 1 and 12")
        end = _add_months(start, months) - timedelta(days=1)
        units = months
        if billing_frequency != "monthly":
            raise ToolError("monthly plans are billed monthly; use billing_frequency 'monthly'")
    else:
        if start_date is not None or months is not None:
            raise ToolError(f"{plan['code']} runs {plan['valid_from']} to {plan['valid_to']}; leave start_date and months empty")
        start, end, units = valid_from, valid_to, 1
    if start < valid_from or end > valid_to:
        raise ToolError(f"plan {plan['code']} is valid {plan['valid_from']} to {plan['valid_to']}; the lease must fit inside it")
    if end < today:
        raise ToolError("that term is already over; choose a current or future plan")
    if start < date(today.year, today.month, 1) and plan["rate_basis"] == "per_foot_per_month":
        raise ToolError("a monthly lease cannot start in a past month")
    end_excl = (end + timedelta(days=1)).isoformat()
    clash = _slip_conflict(db, s["id"], start.isoformat(), end_excl, 0, 0)
    if clash:
        raise ToolError(f"slip {s['slip_code']} is taken by {clash}; use find_available_slips")
    dup = db.one("SELECT lease_number FROM slip_leases WHERE boat_id = ? AND status IN ('pending', 'active') "
                 "AND start_date <= ? AND end_date >= ?", (b["id"], end.isoformat(), start.isoformat()))
    if dup:
        raise ToolError(f"{b['name']} already has lease {dup['lease_number']} for those dates")
    power = plan["power_fee_cents"] if s["power_amps"] > 0 else 0
    fee = int(round(b["length_ft"] * plan["rate_cents"] * units)) + power * units
    deposit = fee // units if units > 1 else int(round(fee * 0.1 / 100.0)) * 100
    prefix = "SL-%d-" % today.year
    last = db.value("SELECT lease_number FROM slip_leases WHERE substr(lease_number, 1, ?) = ? "
                    "ORDER BY lease_number DESC LIMIT 1", (len(prefix), prefix))
    seq = int(last[len(prefix):]) + 1 if last and last[len(prefix):].isdigit() else 1
    number = "%s%04d" % (prefix, seq)
    lid = db.insert("slip_leases", {
        "lease_number": number, "owner_id": o["id"], "boat_id": b["id"], "slip_id": s["id"], "rate_plan_id": plan["id"],
        "start_date": start.isoformat(), "end_date": end.isoformat(), "billing_frequency": billing_frequency,
        "total_fee_cents": fee, "deposit_cents": deposit, "auto_renew": 1 if auto_renew else 0, "status": "pending",
        "created_by_staff_id": staff["id"], "created_at": now_iso(db), "signed_at": None, "terminated_at": None,
        "cancelled_at": None, "end_reason": None})
    _log(db, staff["id"], o["id"], "slip_lease", lid, "created", None, "pending",
         f"Lease {number} created for slip {s['slip_code']} ({plan['code']})")
    return {"lease_number": number, "status": "pending", "owner": o["full_name"], "boat": b["name"],
            "slip_code": s["slip_code"], "plan_code": plan["code"], "start_date": start.isoformat(),
            "end_date": end.isoformat(), "total_fee_cents": fee, "deposit_cents": deposit,
            "billing_frequency": billing_frequency}


@tool(write=True, actor="staff_email")
def sign_slip_lease(db: Db, staff_email: str, lease_number: str) -> dict:
    """Record that the owner signed a pending lease; it becomes active if its start date has arrived.

    Args:
        staff_email: email of the staff member recording the signature (manager, office admin or dockmaster).
        lease_number: the lease number, e.g. "SL-2026-0031".
    """
    staff = _staff(db, staff_email, LEASE_ROLES, "record lease signatures")
    lease = db.one("SELECT * FROM slip_leases WHERE lease_number = ?", (_clean(lease_number).upper(),))
    if lease is None:
        raise ToolError(f"no lease {lease_number!r}")
    if lease["status"] != "pending":
        raise ToolError(f"lease {lease['lease_number']} is {lease['status']}; only pending leases can be signed")
    if lease["signed_at"]:
        raise ToolError(f"lease {lease['lease_number']} was already signed on {lease['signed_at']}")
    new_status = "active" if lease["start_date"] <= db.today().isoformat() else "pending"
    now = now_iso(db)
    db.execute("UPDATE slip_leases SET signed_at = ?, status = ? WHERE id = ?", (now, new_status, lease["id"]))
    _log(db, staff["id"], lease["owner_id"], "slip_lease", lease["id"], "signed", "pending", new_status,
         "Lease agreement signed by owner")
    return {"lease_number": lease["lease_number"], "status": new_status, "signed_at": now,
            "start_date": lease["start_date"], "end_date": lease["end_date"]}


@tool(write=True, actor="staff_email")
def end_slip_lease(db: Db, staff_email: str, lease_number: str, reason: str) -> dict:
    """End a lease early: a pending lease is cancelled, an active lease is terminated as of now.

    Args:
        staff_email: email of the staff member ending the lease (manager, office admin or dockmaster).
        lease_number: the lease number, e.g. "SL-2026-0012".
        reason: why it ends, e.g. "Owner relocated out of state".
    """
    staff = _staff(db, staff_email, LEASE_ROLES, "end slip leases")
    lease = db.one("SELECT * FROM slip_leases WHERE lease_number = ?", (_clean(lease_number).upper(),))
    if lease is None:
        raise ToolError(f"no lease {lease_number!r}")
    why = _clean(reason)
    if not why:
        raise ToolError("give the reason the lease ends")
    now = now_iso(db)
    if lease["status"] == "pending":
        db.execute("UPDATE slip_leases SET status = 'cancelled', cancelled_at = ?, end_reason = ? WHERE id = ?",
                   (now, why, lease["id"]))
        new = "cancelled"
    elif lease["status"] == "active":
        db.execute("UPDATE slip_leases SET status = 'terminated', terminated_at = ?, end_reason = ? WHERE id = ?",
                   (now, why, lease["id"]))
        new = "terminated"
    else:
        raise ToolError(f"lease {lease['lease_number']} is already {lease['status']}")
    _log(db, staff["id"], lease["owner_id"], "slip_lease", lease["id"], new, lease["status"], new, why)
    return {"lease_number": lease["lease_number"], "status": new, "ended_at": now, "reason": why}


@tool
def list_waitlist(db: Db, status: Literal["waiting", "offered", "accepted", "withdrawn", "expired"] | None = None,
                  owner: str | None = None, limit: int = 20) -> list[dict]:
    """List slip waitlist entries in the order they were requested.

    Args:
        status: only entries in this status.
        owner: only this owner's entries (email or account number).
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    oid = _owner_id(db, owner)
    return db.query(
        "SELECT w.waitlist_code, o.full_name AS owner_name, o.account_number, b.name AS boat_name, b.length_ft, "
        "d.code AS preferred_dock, w.desired_plan_type, w.min_power_amps, w.status, w.requested_at, w.offered_at, "
        "w.resolved_at, w.notes FROM slip_waitlist w JOIN owners o ON o.id = w.owner_id JOIN boats b ON b.id = w.boat_id "
        "LEFT JOIN docks d ON d.id = w.preferred_dock_id WHERE (? IS NULL OR w.status = ?) AND (? IS NULL OR w.owner_id = ?) "
        "ORDER BY w.requested_at LIMIT ?", (status, status, oid, oid, limit))


# -------------------------------------------------------- transient dockage

@tool
def list_reservations(db: Db, arrival_from: str | None = None, arrival_to: str | None = None,
                      status: Literal["pending", "confirmed", "checked_in", "checked_out", "cancelled",
                                      "no_show"] | None = None,
                      owner: str | None = None, slip_code: str | None = None, limit: int = 20) -> list[dict]:
    """List transient dock reservations by arrival date range, status, owner or slip.

    Args:
        arrival_from: earliest arrival date, e.g. "2026-05-01".
        arrival_to: latest arrival date, e.g. "2026-05-31".
        status: only reservations in this status.
        owner: the owner's email or account number.
        slip_code: only reservations on this slip, e.g. "T-03".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    a_from = _opt_date(arrival_from, "arrival_from")
    a_to = _opt_date(arrival_to, "arrival_to")
    oid = _owner_id(db, owner)
    slip = _clean(slip_code).upper() or None
    return db.query(
        "SELECT r.confirmation_code, o.full_name AS owner_name, o.account_number, b.name AS boat_name, "
        "b.registration_number, s.slip_code, r.arrival_date, r.departure_date, r.nights, r.needs_power, "
        "r.nightly_rate_cents, r.total_cents, r.booking_channel, r.status, r.created_at FROM transient_reservations r "
        "JOIN owners o ON o.id = r.owner_id JOIN boats b ON b.id = r.boat_id LEFT JOIN slips s ON s.id = r.slip_id "
        "WHERE (? IS NULL OR r.arrival_date >= ?) AND (? IS NULL OR r.arrival_date <= ?) AND (? IS NULL OR r.status = ?) "
        "AND (? IS NULL OR r.owner_id = ?) AND (? IS NULL OR s.slip_code = ?) "
        "ORDER BY r.arrival_date, r.confirmation_code LIMIT ?",
        (a_from, a_from, a_to, a_to, status, status, oid, oid, slip, slip, limit))


@tool
def get_reservation(db: Db, confirmation_code: str) -> dict:
    """Show one transient reservation with guest, boat, slip, rate, timestamps and its invoices.

    Args:
        confirmation_code: the reservation's confirmation code, e.g. "HL943LK5".
    """
    r = db.one(
        "SELECT r.*, o.full_name AS owner_name, o.email AS owner_email, o.account_number, b.name AS boat_name, "
        "b.registration_number, b.length_ft, s.slip_code, rp.code AS plan_code, st.full_name AS booked_by "
        "FROM transient_reservations r JOIN owners o ON o.id = r.owner_id JOIN boats b ON b.id = r.boat_id "
        "LEFT JOIN slips s ON s.id = r.slip_id JOIN rate_plans rp ON rp.id = r.rate_plan_id "
        "LEFT JOIN staff st ON st.id = r.booked_by_staff_id WHERE r.confirmation_code = ?",
        (_clean(confirmation_code).upper(),))
    if r is None:
        raise ToolError(f"no reservation {confirmation_code!r}; use list_reservations")
    invoices = db.query(
        "SELECT DISTINCT i.invoice_number, i.status, i.total_cents, i.amount_paid_cents FROM invoice_lines il "
        "JOIN invoices i ON i.id = il.invoice_id WHERE il.reservation_id = ? ORDER BY i.invoice_number", (r["id"],))
    for k in ("id", "owner_id", "boat_id", "slip_id", "rate_plan_id", "booked_by_staff_id"):
        r.pop(k, None)
    return {"reservation": r, "invoices": invoices}


@tool
def get_dock_schedule(db: Db, day: str) -> dict:
    """The dock's plan for one day: transient arrivals, departures and boats staying over, scheduled
    fuel deliveries and boatyard jobs starting, hauling or launching that day.

    Args:
        day: the date, e.g. "2026-05-15".
    """
    d = _date(day, "day").isoformat()
    arrivals = db.query(
        "SELECT r.confirmation_code, o.full_name AS owner_name, b.name AS boat_name, b.length_ft, s.slip_code, r.nights, "
        "r.status FROM transient_reservations r JOIN owners o ON o.id = r.owner_id JOIN boats b ON b.id = r.boat_id "
        "LEFT JOIN slips s ON s.id = r.slip_id WHERE r.arrival_date = ? AND r.status <> 'cancelled' "
        "ORDER BY s.slip_code", (d,))
    departures = db.query(
        "SELECT r.confirmation_code, o.full_name AS owner_name, b.name AS boat_name, s.slip_code, r.status "
        "FROM transient_reservations r JOIN owners o ON o.id = r.owner_id JOIN boats b ON b.id = r.boat_id "
        "LEFT JOIN slips s ON s.id = r.slip_id WHERE r.departure_date = ? "
        "AND r.status IN ('confirmed', 'checked_in', 'checked_out') ORDER BY s.slip_code", (d,))
    staying = db.query(
        "SELECT r.confirmation_code, o.full_name AS owner_name, b.name AS boat_name, s.slip_code, r.departure_date, "
        "r.status FROM transient_reservations r JOIN owners o ON o.id = r.owner_id JOIN boats b ON b.id = r.boat_id "
        "LEFT JOIN slips s ON s.id = r.slip_id WHERE r.arrival_date < ? AND r.departure_date > ? "
        "AND r.status IN ('confirmed', 'checked_in', 'checked_out') ORDER BY s.slip_code", (d, d))
    fuel = db.query(
        "SELECT f.order_number, o.full_name AS owner_name, b.name AS boat_name, p.name AS product, f.delivery_method, "
        "f.gallons_requested, f.scheduled_for, f.status FROM fuel_orders f JOIN owners o ON o.id = f.owner_id "
        "JOIN boats b ON b.id = f.boat_id JOIN fuel_products p ON p.id = f.fuel_product_id "
        "WHERE substr(f.scheduled_for, 1, 10) = ? AND f.status IN ('scheduled', 'completed') ORDER BY f.scheduled_for", (d,))
    yard = db.query(
        "SELECT w.work_order_number, b.name AS boat_name, w.work_type, w.status, w.scheduled_start, w.haul_out_date, "
        "w.launch_date FROM work_orders w JOIN boats b ON b.id = w.boat_id WHERE w.status <> 'cancelled' "
        "AND (substr(w.scheduled_start, 1, 10) = ? OR w.haul_out_date = ? OR w.launch_date = ?) "
        "ORDER BY w.scheduled_start", (d, d, d))
    return {"day": d, "arrivals": arrivals, "departures": departures, "staying_over": staying,
            "fuel_deliveries": fuel, "yard_jobs": yard}


@tool(write=True, actor="staff_email")
def book_transient_reservation(db: Db, staff_email: str, owner: str, registration_number: str, arrival_date: str,
                               nights: int, needs_power: bool = True,
                               booking_channel: Literal["phone", "web", "vhf_radio", "walk_up"] = "phone",
                               slip_code: str | None = None, special_requests: str | None = None) -> dict:
    """Book a visiting boat onto a transient or flex slip. Without slip_code the smallest free slip that
    fits is assigned. Price per night = boat length x the transient rate, plus the power fee if needed.

    Args:
        staff_email: email of the staff member taking the booking (manager, dockmaster, dockhand or office admin).
        owner: the boat owner's email or account number.
        registration_number: registration of the owner's boat.
        arrival_date: arrival day, today or later, e.g. "2026-06-12".
        nights: number of nights, 1 to 30.
        needs_power: whether the boat needs shore power.
        booking_channel: how the request came in; walk_up and vhf_radio only for arrivals today.
        slip_code: a specific transient or flex slip, e.g. "T-04".
        special_requests: the guest's requests, e.g. "Bow-in please".
    """
    staff = _staff(db, staff_email, BOOKING_ROLES, "book transient reservations")
    o = _owner(db, owner)
    if o["status"] != "active":
        raise ToolError(f"{o['full_name']}'s account is {o['status']}; bookings need an active account")
    b = _boat(db, registration_number)
    if b["owner_id"] != o["id"]:
        raise ToolError(f"boat {b['registration_number']} does not belong to {o['full_name']}")
    if b["status"] != "active":
        raise ToolError(f"boat {b['name']} is {b['status']}")
    arr = _date(arrival_date, "arrival_date")
    today = db.today()
    if arr < today:
        raise ToolError("arrival_date is in the past")
    if nights < 1 or nights > MAX_NIGHTS:
        raise ToolError(f"nights must be between 1 and {MAX_NIGHTS}")
    if booking_channel in ("walk_up", "vhf_radio") and arr != today:
        raise ToolError("walk-up and VHF bookings are only for boats arriving today; use phone or web")
    dep = arr + timedelta(days=nights)
    plan = db.one("SELECT id, code, rate_cents, power_fee_cents FROM rate_plans WHERE plan_type = 'transient_nightly' "
                  "AND is_active = 1 AND valid_from <= ? AND valid_to >= ? ORDER BY valid_from DESC LIMIT 1",
                  (arr.isoformat(), arr.isoformat()))
    if plan is None:
        raise ToolError(f"no transient rate is published for {arr.isoformat()}; bookings open when the rate is set")
    same = db.one("SELECT confirmation_code FROM transient_reservations WHERE boat_id = ? "
                  "AND status IN ('pending', 'confirmed', 'checked_in') AND arrival_date < ? AND departure_date > ?",
                  (b["id"], dep.isoformat(), arr.isoformat()))
    if same:
        raise ToolError(f"{b['name']} already has reservation {same['confirmation_code']} on those nights")
    if slip_code:
        s = _slip(db, slip_code)
        if s["status"] != "in_service":
            raise ToolError(f"slip {s['slip_code']} is out of service")
        if s["slip_usage"] not in ("transient", "flex"):
            raise ToolError(f"slip {s['slip_code']} is a seasonal slip; book a transient or flex slip")
        _check_fit(s, b)
        if needs_power and s["power_amps"] == 0:
            raise ToolError(f"slip {s['slip_code']} has no shore power")
        clash = _slip_conflict(db, s["id"], arr.isoformat(), dep.isoformat(), 0, 0)
        if clash:
            raise ToolError(f"slip {s['slip_code']} is taken by {clash}; use find_available_slips")
    else:
        s = db.one(
            "SELECT s.id, s.slip_code FROM slips s WHERE s.status = 'in_service' AND s.slip_usage IN ('transient', 'flex') "
            "AND s.max_length_ft >= ? AND s.max_beam_ft >= ? AND s.max_draft_ft >= ? AND (? = 0 OR s.power_amps > 0) "
            "AND NOT EXISTS (SELECT 1 FROM slip_leases l WHERE l.slip_id = s.id AND l.status IN ('pending', 'active') "
            "AND l.start_date < ? AND l.end_date >= ?) "
            "AND NOT EXISTS (SELECT 1 FROM transient_reservations r WHERE r.slip_id = s.id "
            "AND r.status IN ('pending', 'confirmed', 'checked_in') AND r.arrival_date < ? AND r.departure_date > ?) "
            "ORDER BY CASE s.slip_usage WHEN 'transient' THEN 0 ELSE 1 END, s.max_length_ft, s.slip_code LIMIT 1",
            (b["length_ft"], b["beam_ft"], b["draft_ft"], 1 if needs_power else 0, dep.isoformat(), arr.isoformat(),
             dep.isoformat(), arr.isoformat()))
        if s is None:
            raise ToolError(f"no transient slip fits {b['name']} for {arr.isoformat()} to {dep.isoformat()}; "
                            "try other dates")
    nightly = int(round(b["length_ft"] * plan["rate_cents"])) + (plan["power_fee_cents"] if needs_power else 0)
    n = (db.value("SELECT COALESCE(MAX(id), 0) FROM transient_reservations", ()) or 0) + 1
    code = "HLR%05d" % n
    while db.value("SELECT COUNT(*) FROM transient_reservations WHERE confirmation_code = ?", (code,)):
        n += 1
        code = "HLR%05d" % n
    req = _clean(special_requests) or None
    rid = db.insert("transient_reservations", {
        "confirmation_code": code, "owner_id": o["id"], "boat_id": b["id"], "slip_id": s["id"],
        "rate_plan_id": plan["id"], "arrival_date": arr.isoformat(), "departure_date": dep.isoformat(),
        "nights": nights, "needs_power": 1 if needs_power else 0, "nightly_rate_cents": nightly,
        "total_cents": nightly * nights, "booking_channel": booking_channel, "status": "confirmed",
        "booked_by_staff_id": staff["id"], "created_at": now_iso(db), "checked_in_at": None, "checked_out_at": None,
        "cancelled_at": None, "cancellation_reason": None, "special_requests": req})
    _log(db, staff["id"], o["id"], "reservation", rid, "created", None, "confirmed",
         f"Reservation {code} via {booking_channel}, {nights} night(s) from {arr.isoformat()}")
    return {"confirmation_code": code, "status": "confirmed", "owner": o["full_name"], "boat": b["name"],
            "slip_code": s["slip_code"], "arrival_date": arr.isoformat(), "departure_date": dep.isoformat(),
            "nights": nights, "nightly_rate_cents": nightly, "total_cents": nightly * nights, "rate_plan": plan["code"]}


@tool(write=True, actor="owner_email")
def cancel_reservation(db: Db, owner_email: str, confirmation_code: str, reason: str) -> dict:
    """Cancel one of the owner's own transient reservations that has not started yet.

    Args:
        owner_email: email of the boat owner asking (the acting person).
        confirmation_code: the reservation's confirmation code.
        reason: why it is cancelled, in the owner's words.
    """
    o = _acting_owner(db, owner_email)
    r = db.one("SELECT * FROM transient_reservations WHERE confirmation_code = ?", (_clean(confirmation_code).upper(),))
    if r is None:
        raise ToolError(f"no reservation {confirmation_code!r}")
    if r["owner_id"] != o["id"]:
        raise ToolError(f"reservation {r['confirmation_code']} does not belong to {o['email']}; "
                        "owners can cancel only their own reservations")
    if r["status"] not in ("pending", "confirmed"):
        raise ToolError(f"reservation {r['confirmation_code']} is {r['status']}; only pending or confirmed ones can be cancelled")
    if r["arrival_date"] < db.today().isoformat():
        raise ToolError(f"the arrival date {r['arrival_date']} has passed; ask the dock office instead")
    why = _clean(reason)
    if not why:
        raise ToolError("give the reason for the cancellation")
    now = now_iso(db)
    db.execute("UPDATE transient_reservations SET status = 'cancelled', cancelled_at = ?, cancellation_reason = ? "
               "WHERE id = ?", (now, why, r["id"]))
    _log(db, None, o["id"], "reservation", r["id"], "cancelled", r["status"], "cancelled", why)
    return {"confirmation_code": r["confirmation_code"], "status": "cancelled", "cancelled_at": now, "reason": why}


@tool(write=True, actor="staff_email")
def check_in_reservation(db: Db, staff_email: str, confirmation_code: str, slip_code: str | None = None) -> dict:
    """Check a visiting boat in on or after its arrival day, optionally moving it to another free slip.

    Args:
        staff_email: email of the dock staff member checking the boat in (manager, dockmaster or dockhand).
        confirmation_code: the reservation's confirmation code.
        slip_code: a different transient or flex slip to put the boat on, e.g. "T-05".
    """
    staff = _staff(db, staff_email, DOCK_ROLES, "check boats in")
    r = db.one("SELECT * FROM transient_reservations WHERE confirmation_code = ?", (_clean(confirmation_code).upper(),))
    if r is None:
        raise ToolError(f"no reservation {confirmation_code!r}")
    if r["status"] not in ("pending", "confirmed"):
        raise ToolError(f"reservation {r['confirmation_code']} is {r['status']}; only pending or confirmed ones can check in")
    today = db.today().isoformat()
    if r["arrival_date"] > today:
        raise ToolError(f"the boat is due on {r['arrival_date']}; check-in opens on the arrival day")
    if r["departure_date"] <= today:
        raise ToolError(f"the stay ended on {r['departure_date']}")
    slip_id = r["slip_id"]
    if slip_code:
        s = _slip(db, slip_code)
        b = db.one("SELECT * FROM boats WHERE id = ?", (r["boat_id"],))
        if s["status"] != "in_service" or s["slip_usage"] not in ("transient", "flex"):
            raise ToolError(f"slip {s['slip_code']} is not an in-service transient or flex slip")
        _check_fit(s, b)
        if r["needs_power"] and s["power_amps"] == 0:
            raise ToolError(f"slip {s['slip_code']} has no shore power")
        clash = _slip_conflict(db, s["id"], today, r["departure_date"], 0, r["id"])
        if clash:
            raise ToolError(f"slip {s['slip_code']} is taken by {clash}")
        slip_id = s["id"]
    if slip_id is None:
        raise ToolError("the reservation has no slip yet; give slip_code (use find_available_slips)")
    code = db.value("SELECT slip_code FROM slips WHERE id = ?", (slip_id,))
    now = now_iso(db)
    db.execute("UPDATE transient_reservations SET status = 'checked_in', checked_in_at = ?, slip_id = ? WHERE id = ?",
               (now, slip_id, r["id"]))
    _log(db, staff["id"], r["owner_id"], "reservation", r["id"], "checked_in", r["status"], "checked_in",
         f"Checked in to slip {code}")
    return {"confirmation_code": r["confirmation_code"], "status": "checked_in", "slip_code": code,
            "checked_in_at": now, "departure_date": r["departure_date"]}


@tool(write=True, actor="staff_email")
def check_out_reservation(db: Db, staff_email: str, confirmation_code: str) -> dict:
    """Check a visiting boat out when it leaves.

    Args:
        staff_email: email of the dock staff member (manager, dockmaster or dockhand).
        confirmation_code: the reservation's confirmation code.
    """
    staff = _staff(db, staff_email, DOCK_ROLES, "check boats out")
    r = db.one("SELECT * FROM transient_reservations WHERE confirmation_code = ?", (_clean(confirmation_code).upper(),))
    if r is None:
        raise ToolError(f"no reservation {confirmation_code!r}")
    if r["status"] != "checked_in":
        raise ToolError(f"reservation {r['confirmation_code']} is {r['status']}; only checked-in boats can check out")
    now = now_iso(db)
    db.execute("UPDATE transient_reservations SET status = 'checked_out', checked_out_at = ? WHERE id = ?",
               (now, r["id"]))
    _log(db, staff["id"], r["owner_id"], "reservation", r["id"], "checked_out", "checked_in", "checked_out", None)
    return {"confirmation_code": r["confirmation_code"], "status": "checked_out", "checked_out_at": now,
            "total_cents": r["total_cents"]}


# -------------------------------------------------------------------- fuel

@tool
def list_fuel_products(db: Db, include_inactive: bool = False) -> list[dict]:
    """Fuel dock products with the pump price per gallon and the slip-holder discount.

    Args:
        include_inactive: also list discontinued products.
    """
    return db.query(
        "SELECT code, name, fuel_type, price_per_gallon_cents, slip_holder_discount_cents, "
        "price_per_gallon_cents - slip_holder_discount_cents AS slip_holder_price_cents, is_active, price_updated_at "
        "FROM fuel_products WHERE (? = 1 OR is_active = 1) ORDER BY code", (1 if include_inactive else 0,))


@tool
def list_fuel_orders(db: Db, owner: str | None = None,
                     status: Literal["requested", "scheduled", "completed", "cancelled"] | None = None,
                     date_from: str | None = None, date_to: str | None = None,
                     registration_number: str | None = None, limit: int = 20) -> dict:
    """List fuel orders (fuel dock sales and slip deliveries) by owner, boat, status and request date,
    with the count and gallons/amount totals of all matching completed orders.

    Args:
        owner: the owner's email or account number.
        status: only orders in this status.
        date_from: earliest request date, e.g. "2026-05-01".
        date_to: latest request date, e.g. "2026-05-31".
        registration_number: only this boat.
        limit: maximum number of orders listed, 1 to 100.
    """
    check_limit(limit, 100)
    oid = _owner_id(db, owner)
    bid = _boat_id(db, registration_number)
    d_from = _opt_date(date_from, "date_from")
    d_to = _opt_date(date_to, "date_to")
    params = (oid, oid, bid, bid, status, status, d_from, d_from, d_to, d_to)
    rows = db.query(
        "SELECT f.order_number, o.full_name AS owner_name, b.name AS boat_name, b.registration_number, p.name AS product, "
        "f.delivery_method, f.gallons_requested, f.gallons_delivered, f.price_per_gallon_cents, f.total_cents, f.status, "
        "f.requested_at, f.scheduled_for, f.completed_at, f.cancelled_at, f.charge_to_account, "
        "st.full_name AS attendant FROM fuel_orders f JOIN owners o ON o.id = f.owner_id JOIN boats b ON b.id = f.boat_id "
        "JOIN fuel_products p ON p.id = f.fuel_product_id LEFT JOIN staff st ON st.id = f.attendant_staff_id "
        "WHERE (? IS NULL OR f.owner_id = ?) AND (? IS NULL OR f.boat_id = ?) AND (? IS NULL OR f.status = ?) "
        "AND (? IS NULL OR substr(f.requested_at, 1, 10) >= ?) AND (? IS NULL OR substr(f.requested_at, 1, 10) <= ?) "
        "ORDER BY f.requested_at DESC LIMIT ?", params + (limit,))
    tot = db.one(
        "SELECT COUNT(*) AS matching_orders, COALESCE(SUM(CASE WHEN f.status = 'completed' THEN f.gallons_delivered END), 0) "
        "AS completed_gallons, COALESCE(SUM(CASE WHEN f.status = 'completed' THEN f.total_cents END), 0) "
        "AS completed_total_cents FROM fuel_orders f WHERE (? IS NULL OR f.owner_id = ?) AND (? IS NULL OR f.boat_id = ?) "
        "AND (? IS NULL OR f.status = ?) AND (? IS NULL OR substr(f.requested_at, 1, 10) >= ?) "
        "AND (? IS NULL OR substr(f.requested_at, 1, 10) <= ?)", params)
    return {"orders": rows, "matching_orders": tot["matching_orders"],
            "completed_gallons": round(tot["completed_gallons"] or 0, 1),
            "completed_total_cents": tot["completed_total_cents"]}


@tool(write=True, actor="staff_email")
def record_fuel_sale(db: Db, staff_email: str, owner: str, registration_number: str, product_code: str,
                     gallons: float, charge_to_account: bool = False) -> dict:
    """Record a completed fuel-dock sale pumped now. Slip holders get the product's slip-holder discount
    and may charge it to their account (billed on the monthly fuel statement).

    Args:
        staff_email: email of the staff member at the pump (fuel attendant, dockhand, dockmaster or manager).
        owner: the boat owner's email or account number.
        registration_number: registration of the owner's boat being fuelled.
        product_code: the fuel product, e.g. "REG-89", "REC-90" or "DSL-ULS".
        gallons: gallons pumped, more than 0 and at most 1000.
        charge_to_account: put it on the owner's account instead of paying at the pump (active slip holders only).
    """
    staff = _staff(db, staff_email, FUEL_ROLES, "record fuel sales")
    o = _owner(db, owner)
    if o["status"] == "closed":
        raise ToolError(f"{o['full_name']}'s account is closed")
    b = _boat(db, registration_number)
    if b["owner_id"] != o["id"]:
        raise ToolError(f"boat {b['registration_number']} does not belong to {o['full_name']}")
    p = db.one("SELECT * FROM fuel_products WHERE code = ?", (_clean(product_code).upper(),))
    if p is None:
        raise ToolError(f"no fuel product {product_code!r}; use list_fuel_products")
    if not p["is_active"]:
        raise ToolError(f"{p['name']} is no longer sold")
    if b["fuel_type"] == "none":
        raise ToolError(f"{b['name']} has no engine fuel tank")
    if b["fuel_type"] != p["fuel_type"]:
        raise ToolError(f"{b['name']} runs on {b['fuel_type']}, but {p['name']} is {p['fuel_type']}")
    if gallons <= 0 or gallons > MAX_GALLONS:
        raise ToolError(f"gallons must be more than 0 and at most {MAX_GALLONS:g}")
    if charge_to_account and not (o["account_type"] == "slip_holder" and o["status"] == "active"):
        raise ToolError("only active slip holders can charge fuel to their account; take payment at the pump")
    gal = round(float(gallons), 1)
    ppg = p["price_per_gallon_cents"] - (p["slip_holder_discount_cents"] if o["account_type"] == "slip_holder" else 0)
    total = int(round(gal * ppg))
    last = db.value("SELECT MAX(CAST(substr(order_number, 4) AS INTEGER)) FROM fuel_orders "
                    "WHERE substr(order_number, 1, 3) = 'FO-'", ())
    number = "FO-%d" % ((last or 10000) + 1)
    now = now_iso(db)
    fid = db.insert("fuel_orders", {
        "order_number": number, "owner_id": o["id"], "boat_id": b["id"], "fuel_product_id": p["id"],
        "delivery_method": "fuel_dock", "gallons_requested": gal, "gallons_delivered": gal,
        "price_per_gallon_cents": ppg, "total_cents": total, "status": "completed", "requested_at": now,
        "scheduled_for": None, "completed_at": now, "cancelled_at": None, "attendant_staff_id": staff["id"],
        "charge_to_account": 1 if charge_to_account else 0})
    _log(db, staff["id"], o["id"], "fuel_order", fid, "completed", None, "completed",
         f"{gal:g} gal {p['name']} for {b['name']}")
    return {"order_number": number, "status": "completed", "boat": b["name"], "product": p["name"], "gallons": gal,
            "price_per_gallon_cents": ppg, "total_cents": total, "charge_to_account": bool(charge_to_account)}


@tool(write=True, actor="staff_email")
def complete_fuel_order(db: Db, staff_email: str, order_number: str, gallons_delivered: float) -> dict:
    """Mark a requested or scheduled fuel order (e.g. a slip delivery) as delivered, at the order's price.

    Args:
        staff_email: email of the staff member who delivered the fuel (fuel attendant, dockhand, dockmaster or manager).
        order_number: the fuel order number, e.g. "FO-31954".
        gallons_delivered: gallons actually delivered, more than 0 and at most 1000.
    """
    staff = _staff(db, staff_email, FUEL_ROLES, "complete fuel orders")
    f = db.one("SELECT * FROM fuel_orders WHERE order_number = ?", (_clean(order_number).upper(),))
    if f is None:
        raise ToolError(f"no fuel order {order_number!r}; use list_fuel_orders")
    if f["status"] not in ("requested", "scheduled"):
        raise ToolError(f"fuel order {f['order_number']} is {f['status']}; only requested or scheduled orders can be completed")
    if gallons_delivered <= 0 or gallons_delivered > MAX_GALLONS:
        raise ToolError(f"gallons_delivered must be more than 0 and at most {MAX_GALLONS:g}")
    gal = round(float(gallons_delivered), 1)
    total = int(round(gal * f["price_per_gallon_cents"]))
    now = now_iso(db)
    db.execute("UPDATE fuel_orders SET status = 'completed', gallons_delivered = ?, total_cents = ?, completed_at = ?, "
               "attendant_staff_id = ? WHERE id = ?", (gal, total, now, staff["id"], f["id"]))
    _log(db, staff["id"], f["owner_id"], "fuel_order", f["id"], "completed", f["status"], "completed",
         f"{gal:g} gal delivered")
    return {"order_number": f["order_number"], "status": "completed", "gallons_delivered": gal,
            "price_per_gallon_cents": f["price_per_gallon_cents"], "total_cents": total, "completed_at": now}


# ------------------------------------------------------------------ boatyard

@tool
def list_services(db: Db, category: Literal["haul_launch", "bottom", "engine", "electrical", "hull_deck", "rigging",
                                             "winterization", "storage", "detailing"] | None = None,
                  include_inactive: bool = False) -> list[dict]:
    """The boatyard's service price list: code, name, pricing unit (flat, per foot, per hour, per foot per
    month), price and whether the boat must be hauled out.

    Args:
        category: only this category.
        include_inactive: also list services no longer offered.
    """
    return db.query(
        "SELECT code, name, category, pricing_unit, unit_price_cents, estimated_hours, requires_haul_out, is_active "
        "FROM service_catalog WHERE (? IS NULL OR category = ?) AND (? = 1 OR is_active = 1) ORDER BY category, code",
        (category, category, 1 if include_inactive else 0))


@tool
def list_work_orders(db: Db, status: Literal["requested", "estimated", "approved", "scheduled", "in_progress",
                                             "on_hold", "completed", "cancelled"] | None = None,
                     owner: str | None = None, technician_email: str | None = None,
                     work_type: Literal["haul_out", "repair", "maintenance", "winterization", "commissioning",
                                        "inspection"] | None = None,
                     registration_number: str | None = None, limit: int = 20) -> list[dict]:
    """List boatyard work orders, most recent request first, by status, owner, assigned technician,
    work type or boat.

    Args:
        status: only work orders in this status.
        owner: the owner's email or account number.
        technician_email: only work assigned to this staff member.
        work_type: only this type of work.
        registration_number: only this boat.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    oid = _owner_id(db, owner)
    bid = _boat_id(db, registration_number)
    tid = None
    if technician_email:
        tech = db.one("SELECT id FROM staff WHERE email = ?", (_clean(technician_email).lower(),))
        if tech is None:
            raise ToolError(f"no staff member with email {technician_email!r}; use search_staff")
        tid = tech["id"]
    return db.query(
        "SELECT w.work_order_number, o.full_name AS owner_name, b.name AS boat_name, b.registration_number, w.work_type, "
        "w.description, w.priority, w.status, w.estimate_cents, w.requested_at, w.scheduled_start, w.haul_out_date, "
        "w.launch_date, w.completed_at, st.full_name AS technician, st.email AS technician_email "
        "FROM work_orders w JOIN owners o ON o.id = w.owner_id JOIN boats b ON b.id = w.boat_id "
        "LEFT JOIN staff st ON st.id = w.assigned_staff_id WHERE (? IS NULL OR w.status = ?) "
        "AND (? IS NULL OR w.owner_id = ?) AND (? IS NULL OR w.assigned_staff_id = ?) AND (? IS NULL OR w.work_type = ?) "
        "AND (? IS NULL OR w.boat_id = ?) ORDER BY w.requested_at DESC LIMIT ?",
        (status, status, oid, oid, tid, tid, work_type, work_type, bid, bid, limit))


@tool
def get_work_order(db: Db, work_order_number: str) -> dict:
    """Show one work order with its boat, owner, technician, dates, line items (services, labor, parts,
    fees) and any invoice that billed it.

    Args:
        work_order_number: the work order number, e.g. "WO-2026-0014".
    """
    w = db.one(
        "SELECT w.*, o.full_name AS owner_name, o.email AS owner_email, b.name AS boat_name, b.registration_number, "
        "b.length_ft, t.full_name AS technician, t.email AS technician_email, c.full_name AS created_by "
        "FROM work_orders w JOIN owners o ON o.id = w.owner_id JOIN boats b ON b.id = w.boat_id "
        "LEFT JOIN staff t ON t.id = w.assigned_staff_id JOIN staff c ON c.id = w.created_by_staff_id "
        "WHERE w.work_order_number = ?", (_clean(work_order_number).upper(),))
    if w is None:
        raise ToolError(f"no work order {work_order_number!r}; use list_work_orders")
    items = db.query(
        "SELECT i.item_type, sc.code AS service_code, i.description, i.quantity, i.unit_price_cents, i.line_total_cents, "
        "st.full_name AS performed_by, i.added_at FROM work_order_items i LEFT JOIN service_catalog sc ON sc.id = i.service_id "
        "LEFT JOIN staff st ON st.id = i.performed_by_staff_id WHERE i.work_order_id = ? ORDER BY i.id", (w["id"],))
    invoices = db.query(
        "SELECT DISTINCT i.invoice_number, i.status, i.total_cents, i.amount_paid_cents FROM invoice_lines il "
        "JOIN invoices i ON i.id = il.invoice_id WHERE il.work_order_id = ? ORDER BY i.invoice_number", (w["id"],))
    for k in ("id", "owner_id", "boat_id", "assigned_staff_id", "created_by_staff_id"):
        w.pop(k, None)
    return {"work_order": w, "items": items, "items_total_cents": sum(x["line_total_cents"] for x in items),
            "invoices": invoices}


@tool(write=True, actor="staff_email")
def create_work_order(db: Db, staff_email: str, owner: str, registration_number: str,
                      work_type: Literal["haul_out", "repair", "maintenance", "winterization", "commissioning",
                                         "inspection"],
                      description: str, priority: Literal["low", "normal", "high", "emergency"] = "normal",
                      service_codes: list[str] | None = None) -> dict:
    """Open a boatyard work order for an owner's boat. With service codes the lines are priced from the
    price list (per-foot services x boat length, hourly services x estimated hours, storage for one month)
    and the order starts as 'estimated'; without them it starts as 'requested'.

    Args:
        staff_email: email of the staff member writing it up (office admin, yard manager or manager).
        owner: the owner's email or account number.
        registration_number: registration of the owner's boat.
        work_type: the kind of work.
        description: what is wrong or wanted, in the owner's words.
        priority: low, normal, high or emergency.
        service_codes: price-list codes to estimate, e.g. ["HAUL", "BP-ABL", "LAUNCH"].
    """
    staff = _staff(db, staff_email, YARD_DESK_ROLES, "open work orders")
    o = _owner(db, owner)
    if o["status"] == "closed":
        raise ToolError(f"{o['full_name']}'s account is closed")
    b = _boat(db, registration_number)
    if b["owner_id"] != o["id"]:
        raise ToolError(f"boat {b['registration_number']} does not belong to {o['full_name']}")
    if b["status"] != "active":
        raise ToolError(f"boat {b['name']} is {b['status']}")
    text = _clean(description)
    if not text:
        raise ToolError("describe the work")
    codes = [_clean(c).upper() for c in (service_codes or []) if _clean(c)]
    if len(set(codes)) != len(codes):
        raise ToolError("list each service code once")
    services = []
    for c in codes:
        s = db.one("SELECT * FROM service_catalog WHERE code = ?", (c,))
        if s is None:
            raise ToolError(f"no service {c!r}; use list_services")
        if not s["is_active"]:
            raise ToolError(f"service {c} ({s['name']}) is no longer offered")
        services.append(s)
    items = []
    for s in services:
        if s["pricing_unit"] == "flat":
            q, desc = 1.0, s["name"]
        elif s["pricing_unit"] == "per_foot":
            q, desc = float(b["length_ft"]), "%s (%g ft)" % (s["name"], b["length_ft"])
        elif s["pricing_unit"] == "per_hour":
            q = float(s["estimated_hours"] or 1.0)
            desc = "%s (%g hrs)" % (s["name"], q)
        else:
            q, desc = float(b["length_ft"]), "%s (1 month x %g ft)" % (s["name"], b["length_ft"])
        items.append((s, q, desc, int(round(q * s["unit_price_cents"]))))
    estimate = sum(x[3] for x in items) if items else None
    status = "estimated" if items else "requested"
    today = db.today()
    prefix = "WO-%d-" % today.year
    last = db.value("SELECT work_order_number FROM work_orders WHERE substr(work_order_number, 1, ?) = ? "
                    "ORDER BY work_order_number DESC LIMIT 1", (len(prefix), prefix))
    seq = int(last[len(prefix):]) + 1 if last and last[len(prefix):].isdigit() else 1
    number = "%s%04d" % (prefix, seq)
    now = now_iso(db)
    wid = db.insert("work_orders", {
        "work_order_number": number, "owner_id": o["id"], "boat_id": b["id"], "work_type": work_type,
        "description": text, "priority": priority, "status": status, "estimate_cents": estimate,
        "requires_haul_out": 1 if any(x[0]["requires_haul_out"] for x in items) else 0, "haul_out_date": None,
        "launch_date": None, "scheduled_start": None, "created_by_staff_id": staff["id"], "assigned_staff_id": None,
        "requested_at": now, "approved_at": None, "started_at": None, "completed_at": None, "cancelled_at": None,
        "hold_reason": None, "cancellation_reason": None})
    for s, q, desc, line in items:
        db.insert("work_order_items", {"work_order_id": wid, "service_id": s["id"], "item_type": "service",
                                       "description": desc, "quantity": q, "unit_price_cents": s["unit_price_cents"],
                                       "line_total_cents": line, "performed_by_staff_id": None, "added_at": now})
    _log(db, staff["id"], o["id"], "work_order", wid, "created", None, status, text)
    return {"work_order_number": number, "status": status, "boat": b["name"], "work_type": work_type,
            "priority": priority, "estimate_cents": estimate,
            "items": [{"service_code": x[0]["code"], "description": x[2], "quantity": x[1],
                       "line_total_cents": x[3]} for x in items]}


@tool(write=True, actor="owner_email")
def approve_work_order_estimate(db: Db, owner_email: str, work_order_number: str) -> dict:
    """The owner approves the estimate of one of their own work orders so the yard can schedule it.

    Args:
        owner_email: email of the boat owner approving (the acting person).
        work_order_number: the work order number, e.g. "WO-2026-0014".
    """
    o = _acting_owner(db, owner_email)
    w = db.one("SELECT * FROM work_orders WHERE work_order_number = ?", (_clean(work_order_number).upper(),))
    if w is None:
        raise ToolError(f"no work order {work_order_number!r}")
    if w["owner_id"] != o["id"]:
        raise ToolError(f"work order {w['work_order_number']} is not for {o['email']}; owners approve only their own work")
    if w["status"] != "estimated":
        raise ToolError(f"work order {w['work_order_number']} is {w['status']}; only estimated work can be approved")
    now = now_iso(db)
    db.execute("UPDATE work_orders SET status = 'approved', approved_at = ? WHERE id = ?", (now, w["id"]))
    _log(db, None, o["id"], "work_order", w["id"], "approved", "estimated", "approved",
         f"Owner approved estimate {_money(w['estimate_cents'])}")
    return {"work_order_number": w["work_order_number"], "status": "approved", "approved_at": now,
            "estimate_cents": w["estimate_cents"]}


@tool(write=True, actor="staff_email")
def schedule_work_order(db: Db, staff_email: str, work_order_number: str, start_at: str, technician_email: str) -> dict:
    """Schedule (or reschedule) an approved work order for a start time within boatyard hours and assign
    a technician. Work needing a haul-out gets its haul-out date set to the start day.

    Args:
        staff_email: email of the yard manager or manager scheduling it.
        work_order_number: the work order number.
        start_at: start date and time in the future, e.g. "2026-05-20T08:00".
        technician_email: email of the technician (or yard manager) who will do the work.
    """
    staff = _staff(db, staff_email, YARD_LEAD_ROLES, "schedule yard work")
    w = db.one("SELECT * FROM work_orders WHERE work_order_number = ?", (_clean(work_order_number).upper(),))
    if w is None:
        raise ToolError(f"no work order {work_order_number!r}")
    if w["status"] not in ("approved", "scheduled"):
        raise ToolError(f"work order {w['work_order_number']} is {w['status']}; only approved or scheduled work can be "
                        "(re)scheduled")
    start = _datetime(start_at, "start_at")
    if start.tzinfo is not None:
        raise ToolError("give start_at without a time zone, in marina local time")
    if start <= db.now():
        raise ToolError("start_at must be in the future")
    tech = db.one("SELECT id, full_name, email, role, is_active FROM staff WHERE email = ?",
                  (_clean(technician_email).lower(),))
    if tech is None:
        raise ToolError(f"no staff member with email {technician_email!r}; use search_staff with role technician")
    if not tech["is_active"] or tech["role"] not in ("technician", "yard_manager"):
        raise ToolError(f"{tech['full_name']} is not an active technician or yard manager")
    season = "summer" if 5 <= start.month <= 10 else "winter"
    hours = db.one("SELECT opens_at, closes_at, is_closed FROM facility_hours WHERE facility = 'boatyard' "
                   "AND day_of_week = ? AND season = ?", (start.weekday(), season))
    hhmm = start.strftime("%H:%M")
    if hours is None or hours["is_closed"] or not hours["opens_at"]:
        raise ToolError(f"the boatyard is closed on {DAY_NAMES[start.weekday()]}s in {season}; pick another day")
    if hhmm < hours["opens_at"] or hhmm >= hours["closes_at"]:
        raise ToolError(f"the boatyard is open {hours['opens_at']} to {hours['closes_at']} that day")
    start_iso = start.isoformat(timespec="seconds")
    haul = start.date().isoformat() if w["requires_haul_out"] else w["haul_out_date"]
    db.execute("UPDATE work_orders SET status = 'scheduled', scheduled_start = ?, assigned_staff_id = ?, "
               "haul_out_date = ? WHERE id = ?", (start_iso, tech["id"], haul, w["id"]))
    _log(db, staff["id"], w["owner_id"], "work_order", w["id"], "scheduled", w["status"], "scheduled",
         f"Scheduled for {start_iso} with {tech['full_name']}")
    return {"work_order_number": w["work_order_number"], "status": "scheduled", "scheduled_start": start_iso,
            "technician": tech["full_name"], "haul_out_date": haul}


@tool(write=True, actor="staff_email")
def update_work_order_status(db: Db, staff_email: str, work_order_number: str,
                             new_status: Literal["in_progress", "on_hold", "completed"], note: str | None = None) -> dict:
    """Move yard work along: start it (or resume it from hold), put it on hold (note = the reason) or
    complete it. Only the assigned technician, the yard manager or the manager may do this.

    Args:
        staff_email: email of the staff member updating the job.
        work_order_number: the work order number.
        new_status: in_progress, on_hold or completed.
        note: the hold reason (required for on_hold) or a remark for the history.
    """
    staff = db.one("SELECT id, full_name, email, role, is_active FROM staff WHERE email = ?",
                   (_clean(staff_email).lower(),))
    if staff is None:
        raise ToolError(f"no staff member with email {staff_email!r}")
    if not staff["is_active"]:
        raise ToolError(f"{staff['full_name']} is no longer an active staff member")
    w = db.one("SELECT * FROM work_orders WHERE work_order_number = ?", (_clean(work_order_number).upper(),))
    if w is None:
        raise ToolError(f"no work order {work_order_number!r}")
    if staff["role"] not in YARD_LEAD_ROLES and staff["id"] != w["assigned_staff_id"]:
        raise ToolError(f"{staff['full_name']} is not assigned to {w['work_order_number']}; only the assigned "
                        "technician, the yard manager or the manager can update it")
    allowed = {"in_progress": ("approved", "scheduled", "on_hold"), "on_hold": ("in_progress",),
               "completed": ("in_progress",)}
    if w["status"] not in allowed[new_status]:
        raise ToolError(f"work order {w['work_order_number']} is {w['status']}; it can move to {new_status} only from "
                        f"{' or '.join(allowed[new_status])}")
    text = _clean(note) or None
    now = now_iso(db)
    if new_status == "in_progress":
        db.execute("UPDATE work_orders SET status = 'in_progress', started_at = COALESCE(started_at, ?), "
                   "hold_reason = NULL WHERE id = ?", (now, w["id"]))
    elif new_status == "on_hold":
        if not text:
            raise ToolError("give the reason for the hold in note")
        db.execute("UPDATE work_orders SET status = 'on_hold', hold_reason = ? WHERE id = ?", (text, w["id"]))
    else:
        db.execute("UPDATE work_orders SET status = 'completed', completed_at = ? WHERE id = ?", (now, w["id"]))
    _log(db, staff["id"], w["owner_id"], "work_order", w["id"],
         {"in_progress": "started", "on_hold": "on_hold", "completed": "completed"}[new_status],
         w["status"], new_status, text)
    return {"work_order_number": w["work_order_number"], "status": new_status, "previous_status": w["status"],
            "updated_at": now, "note": text}


# ------------------------------------------------------------------- billing

@tool
def list_invoices(db: Db, owner: str | None = None,
                  status: Literal["draft", "issued", "partially_paid", "paid", "void"] | None = None,
                  overdue_only: bool = False, issued_from: str | None = None, issued_to: str | None = None,
                  limit: int = 20) -> list[dict]:
    """List invoices, newest first, with amount paid and balance due. Overdue means issued or partially
    paid with a due date before today.

    Args:
        owner: the owner's email or account number.
        status: only invoices in this status.
        overdue_only: only overdue invoices.
        issued_from: earliest issue date, e.g. "2026-04-01".
        issued_to: latest issue date, e.g. "2026-04-30".
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    oid = _owner_id(db, owner)
    i_from = _opt_date(issued_from, "issued_from")
    i_to = _opt_date(issued_to, "issued_to")
    today = db.today().isoformat()
    rows = db.query(
        "SELECT i.invoice_number, o.full_name AS owner_name, o.account_number, i.status, i.issued_on, i.due_on, "
        "i.subtotal_cents, i.tax_cents, i.total_cents, i.amount_paid_cents, i.total_cents - i.amount_paid_cents "
        "AS balance_due_cents, i.notes FROM invoices i JOIN owners o ON o.id = i.owner_id "
        "WHERE (? IS NULL OR i.owner_id = ?) AND (? IS NULL OR i.status = ?) "
        "AND (? = 0 OR (i.status IN ('issued', 'partially_paid') AND i.due_on < ?)) "
        "AND (? IS NULL OR i.issued_on >= ?) AND (? IS NULL OR i.issued_on <= ?) "
        "ORDER BY i.created_at DESC, i.invoice_number DESC LIMIT ?",
        (oid, oid, status, status, 1 if overdue_only else 0, today, i_from, i_from, i_to, i_to, limit))
    for r in rows:
        if r["status"] in ("void", "draft", "paid"):
            r["balance_due_cents"] = 0
        r["overdue"] = r["status"] in ("issued", "partially_paid") and bool(r["due_on"]) and r["due_on"] < today
    return rows


@tool
def get_invoice(db: Db, invoice_number: str) -> dict:
    """Show one invoice with its lines (what each charge is for) and its payments.

    Args:
        invoice_number: the invoice number, e.g. "INV-2026-00042".
    """
    inv = db.one(
        "SELECT i.*, o.full_name AS owner_name, o.email AS owner_email, o.account_number, st.full_name AS created_by "
        "FROM invoices i JOIN owners o ON o.id = i.owner_id JOIN staff st ON st.id = i.created_by_staff_id "
        "WHERE i.invoice_number = ?", (_clean(invoice_number).upper(),))
    if inv is None:
        raise ToolError(f"no invoice {invoice_number!r}; use list_invoices")
    lines = db.query(
        "SELECT il.line_type, il.description, il.quantity, il.unit_price_cents, il.amount_cents, il.taxable, "
        "l.lease_number, r.confirmation_code, f.order_number AS fuel_order_number, w.work_order_number "
        "FROM invoice_lines il LEFT JOIN slip_leases l ON l.id = il.lease_id "
        "LEFT JOIN transient_reservations r ON r.id = il.reservation_id LEFT JOIN fuel_orders f ON f.id = il.fuel_order_id "
        "LEFT JOIN work_orders w ON w.id = il.work_order_id WHERE il.invoice_id = ? ORDER BY il.id", (inv["id"],))
    payments = db.query(
        "SELECT p.payment_reference, p.amount_cents, p.method, p.status, p.paid_at, p.refunded_at, p.note, "
        "st.full_name AS received_by FROM payments p LEFT JOIN staff st ON st.id = p.received_by_staff_id "
        "WHERE p.invoice_id = ? ORDER BY p.paid_at", (inv["id"],))
    balance = 0 if inv["status"] in ("void", "draft") else inv["total_cents"] - inv["amount_paid_cents"]
    for k in ("id", "owner_id", "created_by_staff_id"):
        inv.pop(k, None)
    return {"invoice": inv, "balance_due_cents": balance, "lines": lines, "payments": payments}


@tool
def get_account_balance(db: Db, owner: str) -> dict:
    """An owner's statement: every unpaid (issued or partially paid) invoice with its balance and due
    date, the total due and overdue, draft charges not yet billed and the last payment.

    Args:
        owner: the owner's email or account number.
    """
    o = _owner(db, owner)
    today = db.today().isoformat()
    open_inv = db.query(
        "SELECT invoice_number, status, issued_on, due_on, total_cents, amount_paid_cents, "
        "total_cents - amount_paid_cents AS balance_due_cents, notes FROM invoices WHERE owner_id = ? "
        "AND status IN ('issued', 'partially_paid') ORDER BY due_on, invoice_number", (o["id"],))
    for r in open_inv:
        r["overdue"] = bool(r["due_on"]) and r["due_on"] < today
    drafts = db.one("SELECT COUNT(*) AS n, COALESCE(SUM(total_cents), 0) AS total FROM invoices WHERE owner_id = ? "
                    "AND status = 'draft'", (o["id"],))
    last = db.one("SELECT p.payment_reference, p.amount_cents, p.method, p.paid_at, i.invoice_number FROM payments p "
                  "JOIN invoices i ON i.id = p.invoice_id WHERE p.owner_id = ? AND p.status = 'completed' "
                  "ORDER BY p.paid_at DESC LIMIT 1", (o["id"],))
    return {"owner": o["full_name"], "account_number": o["account_number"], "account_status": o["status"],
            "open_invoices": open_inv, "total_due_cents": sum(r["balance_due_cents"] for r in open_inv),
            "overdue_cents": sum(r["balance_due_cents"] for r in open_inv if r["overdue"]),
            "draft_invoices": drafts["n"], "draft_total_cents": drafts["total"], "last_payment": last}


@tool
def list_payments(db: Db, owner: str | None = None, date_from: str | None = None, date_to: str | None = None,
                  method: Literal["card", "ach", "check", "cash"] | None = None,
                  status: Literal["completed", "failed", "refunded"] | None = None, limit: int = 20) -> dict:
    """List payments, newest first, by owner, payment date range, method and status, with the count and
    sum of all matching completed payments.

    Args:
        owner: the owner's email or account number.
        date_from: earliest payment date, e.g. "2026-03-01".
        date_to: latest payment date, e.g. "2026-03-31".
        method: only card, ach, check or cash.
        status: only completed, failed or refunded payments.
        limit: maximum number of payments listed, 1 to 100.
    """
    check_limit(limit, 100)
    oid = _owner_id(db, owner)
    d_from = _opt_date(date_from, "date_from")
    d_to = _opt_date(date_to, "date_to")
    params = (oid, oid, d_from, d_from, d_to, d_to, method, method, status, status)
    rows = db.query(
        "SELECT p.payment_reference, o.full_name AS owner_name, i.invoice_number, i.notes AS invoice_for, p.amount_cents, "
        "p.method, p.status, p.paid_at, p.refunded_at, p.note, st.full_name AS received_by FROM payments p "
        "JOIN owners o ON o.id = p.owner_id JOIN invoices i ON i.id = p.invoice_id "
        "LEFT JOIN staff st ON st.id = p.received_by_staff_id WHERE (? IS NULL OR p.owner_id = ?) "
        "AND (? IS NULL OR substr(p.paid_at, 1, 10) >= ?) AND (? IS NULL OR substr(p.paid_at, 1, 10) <= ?) "
        "AND (? IS NULL OR p.method = ?) AND (? IS NULL OR p.status = ?) ORDER BY p.paid_at DESC LIMIT ?",
        params + (limit,))
    tot = db.one(
        "SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN p.status = 'completed' THEN p.amount_cents ELSE 0 END), 0) AS paid "
        "FROM payments p WHERE (? IS NULL OR p.owner_id = ?) AND (? IS NULL OR substr(p.paid_at, 1, 10) >= ?) "
        "AND (? IS NULL OR substr(p.paid_at, 1, 10) <= ?) AND (? IS NULL OR p.method = ?) AND (? IS NULL OR p.status = ?)",
        params)
    return {"payments": rows, "matching_payments": tot["n"], "completed_total_cents": tot["paid"]}


@tool(write=True, actor="staff_email")
def record_payment(db: Db, staff_email: str, invoice_number: str, amount_cents: int,
                   method: Literal["card", "ach", "check", "cash"], note: str | None = None) -> dict:
    """Record a payment received against an issued or partially paid invoice (up to its balance).

    Args:
        staff_email: email of the staff member taking the payment (office admin, dockmaster or manager).
        invoice_number: the invoice number, e.g. "INV-2026-00042".
        amount_cents: amount received in cents, e.g. 125000 for $1,250.00.
        method: card, ach, check or cash.
        note: e.g. the check number, "Check #4521".
    """
    staff = _staff(db, staff_email, CASHIER_ROLES, "record payments")
    inv = db.one("SELECT * FROM invoices WHERE invoice_number = ?", (_clean(invoice_number).upper(),))
    if inv is None:
        raise ToolError(f"no invoice {invoice_number!r}; use list_invoices")
    if inv["status"] not in ("issued", "partially_paid"):
        raise ToolError(f"invoice {inv['invoice_number']} is {inv['status']}; payments go only on issued or partially "
                        "paid invoices")
    balance = inv["total_cents"] - inv["amount_paid_cents"]
    if amount_cents < 1 or amount_cents > balance:
        raise ToolError(f"amount_cents must be between 1 and the balance due, {balance} ({_money(balance)})")
    last = db.value("SELECT MAX(CAST(substr(payment_reference, 5) AS INTEGER)) FROM payments "
                    "WHERE substr(payment_reference, 1, 4) = 'PMT-'", ())
    ref = "PMT-%06d" % ((last or 100000) + 1)
    now = now_iso(db)
    text = _clean(note) or None
    pid = db.insert("payments", {"payment_reference": ref, "invoice_id": inv["id"], "owner_id": inv["owner_id"],
                                 "amount_cents": amount_cents, "method": method, "status": "completed", "paid_at": now,
                                 "received_by_staff_id": staff["id"], "refunded_at": None, "note": text})
    paid = inv["amount_paid_cents"] + amount_cents
    new_status = "paid" if paid >= inv["total_cents"] else "partially_paid"
    db.execute("UPDATE invoices SET amount_paid_cents = ?, status = ?, paid_at = ? WHERE id = ?",
               (paid, new_status, now if new_status == "paid" else None, inv["id"]))
    _log(db, staff["id"], inv["owner_id"], "payment", pid, "recorded", None, "completed",
         f"{ref}: {_money(amount_cents)} by {method} on {inv['invoice_number']}")
    return {"payment_reference": ref, "invoice_number": inv["invoice_number"], "amount_cents": amount_cents,
            "method": method, "invoice_status": new_status, "balance_due_cents": inv["total_cents"] - paid}


@tool(write=True, actor="staff_email")
def void_invoice(db: Db, staff_email: str, invoice_number: str, reason: str) -> dict:
    """Void a draft or issued invoice that has no payments (e.g. a duplicate or a billing error).

    Args:
        staff_email: email of the office admin or manager voiding it.
        invoice_number: the invoice number.
        reason: why it is voided, e.g. "Duplicate invoice issued in error".
    """
    staff = _staff(db, staff_email, VOID_ROLES, "void invoices")
    inv = db.one("SELECT * FROM invoices WHERE invoice_number = ?", (_clean(invoice_number).upper(),))
    if inv is None:
        raise ToolError(f"no invoice {invoice_number!r}")
    if inv["status"] not in ("draft", "issued"):
        raise ToolError(f"invoice {inv['invoice_number']} is {inv['status']}; only draft or issued invoices without "
                        "payments can be voided")
    if inv["amount_paid_cents"]:
        raise ToolError(f"invoice {inv['invoice_number']} has payments recorded; it cannot be voided")
    why = _clean(reason)
    if not why:
        raise ToolError("give the reason for voiding")
    now = now_iso(db)
    db.execute("UPDATE invoices SET status = 'void', voided_at = ?, void_reason = ? WHERE id = ?", (now, why, inv["id"]))
    _log(db, staff["id"], inv["owner_id"], "invoice", inv["id"], "voided", inv["status"], "void", why)
    return {"invoice_number": inv["invoice_number"], "status": "void", "voided_at": now, "reason": why,
            "total_cents": inv["total_cents"]}


# ------------------------------------------------------------ history & staff

@tool
def get_record_history(db: Db, entity_type: Literal["owner", "boat", "slip", "slip_lease", "waitlist", "reservation",
                                                    "fuel_order", "work_order", "invoice", "payment"],
                       reference: str, limit: int = 50) -> list[dict]:
    """The activity log of one record: who did what and when, with status changes.

    Args:
        entity_type: the kind of record.
        reference: its identifier: owner email/account number, boat registration, slip code, lease number,
            waitlist code, confirmation code, fuel order number, work order number, invoice number or payment reference.
        limit: maximum number of entries, 1 to 100.
    """
    check_limit(limit, 100)
    ref = _clean(reference)
    if entity_type == "owner":
        eid = _owner(db, ref)["id"]
    elif entity_type == "boat":
        eid = _boat(db, ref)["id"]
    elif entity_type == "slip":
        eid = _slip(db, ref)["id"]
    elif entity_type == "slip_lease":
        eid = db.value("SELECT id FROM slip_leases WHERE lease_number = ?", (ref.upper(),))
    elif entity_type == "waitlist":
        eid = db.value("SELECT id FROM slip_waitlist WHERE waitlist_code = ?", (ref.upper(),))
    elif entity_type == "reservation":
        eid = db.value("SELECT id FROM transient_reservations WHERE confirmation_code = ?", (ref.upper(),))
    elif entity_type == "fuel_order":
        eid = db.value("SELECT id FROM fuel_orders WHERE order_number = ?", (ref.upper(),))
    elif entity_type == "work_order":
        eid = db.value("SELECT id FROM work_orders WHERE work_order_number = ?", (ref.upper(),))
    elif entity_type == "invoice":
        eid = db.value("SELECT id FROM invoices WHERE invoice_number = ?", (ref.upper(),))
    else:
        eid = db.value("SELECT id FROM payments WHERE payment_reference = ?", (ref.upper(),))
    if eid is None:
        raise ToolError(f"no {entity_type} {reference!r}")
    return db.query(
        "SELECT a.occurred_at, a.action, a.old_status, a.new_status, a.details, st.full_name AS staff_name, "
        "st.role AS staff_role, o.full_name AS owner_name FROM activity_log a LEFT JOIN staff st ON st.id = a.staff_id "
        "LEFT JOIN owners o ON o.id = a.owner_id WHERE a.entity_type = ? AND a.entity_id = ? "
        "ORDER BY a.occurred_at, a.id LIMIT ?", (entity_type, eid, limit))


@tool
def search_staff(db: Db, query: str = "",
                 role: Literal["manager", "dockmaster", "dockhand", "office_admin", "yard_manager", "technician",
                               "fuel_attendant"] | None = None,
                 active_only: bool = True, limit: int = 20) -> list[dict]:
    """Find marina staff by name, email or employee code, optionally by role.

    Args:
        query: part of the name, email or employee code; empty lists everyone.
        role: only this role.
        active_only: leave out staff who no longer work here.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    pat = like_contains(_clean(query))
    return db.query(
        "SELECT employee_code, full_name, email, phone, role, hired_on, is_active FROM staff "
        "WHERE (full_name LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\' OR employee_code LIKE ? ESCAPE '\\') "
        "AND (? IS NULL OR role = ?) AND (? = 0 OR is_active = 1) ORDER BY role, full_name LIMIT ?",
        (pat, pat, pat, role, role, 1 if active_only else 0, limit))
