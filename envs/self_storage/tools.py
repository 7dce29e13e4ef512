import re
from datetime import date, timedelta
from typing import Literal

from awm.tooling import Db, ToolError, check_limit, like_contains, now_iso, tool

FRONT_ROLES = frozenset({"front_desk", "assistant_manager", "manager"})
MGMT_ROLES = frozenset({"assistant_manager", "manager"})
MAINT_ASSIGNERS = frozenset({"assistant_manager", "manager", "maintenance"})
LAST4 = re.compile(r"\d{4}")
GATE_CODE = re.compile(r"\d{6}")
MAX_RESERVE_DAYS = 60
MAX_NOTICE_DAYS = 180

RENTAL_SQL = (
    "SELECT r.*, u.unit_number, u.status AS unit_status, u.unit_type_id, c.full_name AS customer_name, "
    "c.email AS customer_email, c.customer_number, c.status AS customer_status "
    "FROM rentals r JOIN units u ON u.id = r.unit_id JOIN customers c ON c.id = r.customer_id "
    "WHERE r.rental_number = ?"
)
INVOICE_SQL = (
    "SELECT i.*, r.rental_number, u.unit_number, c.full_name AS customer_name, c.email AS customer_email "
    "FROM invoices i JOIN rentals r ON r.id = i.rental_id JOIN units u ON u.id = r.unit_id "
    "JOIN customers c ON c.id = i.customer_id WHERE i.invoice_number = ?"
)


# ---------------------------------------------------------------- helpers

def _norm(value: str | None) -> str:
    return (value or "").strip()


def _customer(db: Db, email: str) -> dict:
    row = db.one("SELECT id, customer_number, full_name, email, status FROM customers WHERE email = ?",
                 (_norm(email).lower(),))
    if row is None:
        raise ToolError(f"no customer with email {email!r}; check the address or use search_customers")
    return row


def _staff(db: Db, email: str, roles: frozenset, what: str) -> dict:
    row = db.one("SELECT id, full_name, email, role, is_active FROM staff WHERE email = ?", (_norm(email).lower(),))
    if row is None:
        raise ToolError(f"no staff member with email {email!r}; use list_staff to find staff emails")
    if not row["is_active"]:
        raise ToolError(f"{row['full_name']} is no longer an active staff member and cannot {what}")
    if row["role"] not in roles:
        raise ToolError(f"{row['full_name']} is {row['role']}; only {', '.join(sorted(roles))} staff can {what}")
    return row


def _staff_id_by_email(db: Db, email: str) -> int:
    row = db.one("SELECT id FROM staff WHERE email = ?", (_norm(email).lower(),))
    if row is None:
        raise ToolError(f"no staff member with email {email!r}; use list_staff")
    return row["id"]


def _rental(db: Db, rental_number: str) -> dict:
    row = db.one(RENTAL_SQL, (_norm(rental_number).upper(),))
    if row is None:
        raise ToolError(f"no rental {rental_number!r}; rental numbers look like R2025-00123 (see list_rentals)")
    return row


def _own_rental(db: Db, customer: dict, rental_number: str) -> dict:
    rental = _rental(db, rental_number)
    if rental["customer_id"] != customer["id"]:
        raise ToolError(f"rental {rental['rental_number']} does not belong to {customer['email']}; "
                        "a customer can only act on their own rentals")
    return rental


def _invoice(db: Db, invoice_number: str) -> dict:
    row = db.one(INVOICE_SQL, (_norm(invoice_number).upper(),))
    if row is None:
        raise ToolError(f"no invoice {invoice_number!r}; invoice numbers look like INV-202602-01890")
    return row


def _unit(db: Db, unit_number: str) -> dict:
    row = db.one("SELECT u.*, t.code AS unit_type_code, t.name AS unit_type, t.monthly_rate_cents, t.deposit_cents, "
                 "t.is_active AS type_active, b.code AS building_code, b.name AS building "
                 "FROM units u JOIN unit_types t ON t.id = u.unit_type_id JOIN buildings b ON b.id = u.building_id "
                 "WHERE u.unit_number = ?", (_norm(unit_number).upper(),))
    if row is None:
        raise ToolError(f"no unit {unit_number!r}; unit numbers look like B214 (see search_units)")
    return row


def _date(value: str, name: str) -> date:
    try:
        return date.fromisoformat(_norm(value))
    except ValueError:
        raise ToolError(f"{name} must be an ISO date like 2026-03-15, got {value!r}")


def _opt_date(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    return _date(value, name).isoformat()


def _flag(value: bool | None) -> int | None:
    if value is None:
        return None
    return 1 if value else 0


def _text(value: str, name: str) -> str:
    text = _norm(value)
    if not text:
        raise ToolError(f"{name} must not be empty")
    return text


def _log(db: Db, actor_type: str, staff_id: int | None, customer_id: int | None, entity_type: str,
         entity_id: int, action: str, details: str) -> None:
    db.insert("activity_log", {"occurred_at": now_iso(db), "actor_type": actor_type, "staff_id": staff_id,
                               "customer_id": customer_id, "entity_type": entity_type, "entity_id": entity_id,
                               "action": action, "details": details})


def _apply_payment(db: Db, inv: dict, amount_cents: int, method: str, card_last4: str | None,
                   staff_id: int | None) -> dict:
    if inv["status"] not in ("open", "overdue", "partially_paid"):
        raise ToolError(f"invoice {inv['invoice_number']} is {inv['status']}; only open, overdue or partially "
                        "paid invoices can be paid")
    balance = inv["total_cents"] - inv["amount_paid_cents"]
    if amount_cents < 1 or amount_cents > balance:
        raise ToolError(f"amount_cents must be between 1 and the invoice balance of {balance} cents")
    last4 = None
    if method == "card":
        last4 = _norm(card_last4)
        if not LAST4.fullmatch(last4):
            raise ToolError("card_last4 must be the last 4 digits of the card, e.g. \"4242\"")
    mx = db.value("SELECT MAX(CAST(substr(payment_reference, 5) AS INTEGER)) FROM payments", ())
    ref = "PAY-%06d" % ((mx or 0) + 1)
    now = now_iso(db)
    pid = db.insert("payments", {"payment_reference": ref, "invoice_id": inv["id"], "customer_id": inv["customer_id"],
                                 "amount_cents": amount_cents, "method": method, "card_last4": last4,
                                 "status": "completed", "paid_at": now, "refunded_at": None, "refund_reason": None,
                                 "received_by_staff_id": staff_id})
    paid = inv["amount_paid_cents"] + amount_cents
    if paid >= inv["total_cents"]:
        status = "paid"
        db.execute("UPDATE invoices SET amount_paid_cents = ?, status = 'paid', paid_at = ? WHERE id = ?",
                   (paid, now, inv["id"]))
        db.execute("UPDATE late_fees SET status = 'paid' WHERE invoice_id = ? AND status = 'assessed'", (inv["id"],))
    else:
        status = "partially_paid"
        db.execute("UPDATE invoices SET amount_paid_cents = ?, status = 'partially_paid' WHERE id = ?",
                   (paid, inv["id"]))
    return {"payment_id": pid, "payment_reference": ref, "invoice_number": inv["invoice_number"],
            "amount_cents": amount_cents, "method": method, "card_last4": last4, "paid_at": now,
            "invoice_total_cents": inv["total_cents"], "invoice_amount_paid_cents": paid,
            "invoice_balance_cents": inv["total_cents"] - paid, "invoice_status": status}


# ---------------------------------------------------------------- catalogue / reference

@tool
def list_unit_types(db: Db, include_inactive: bool = False) -> list[dict]:
    """List the storage unit sizes with their monthly rate, deposit and how many units are free.

    Args:
        include_inactive: also list discontinued sizes that can no longer be rented.
    """
    return db.query(
        "SELECT t.id, t.code, t.name, t.size_category, t.width_ft, t.depth_ft, t.square_feet, t.climate_controlled, "
        "t.monthly_rate_cents, t.deposit_cents, t.description, t.is_active, "
        "(SELECT COUNT(*) FROM units u WHERE u.unit_type_id = t.id) AS total_units, "
        "(SELECT COUNT(*) FROM units u WHERE u.unit_type_id = t.id AND u.status = 'available') AS available_units "
        "FROM unit_types t WHERE (? = 1 OR t.is_active = 1) ORDER BY t.square_feet, t.climate_controlled, t.code",
        (1 if include_inactive else 0,),
    )


@tool
def search_units(db: Db, status: Literal["available", "reserved", "occupied", "overlocked", "maintenance",
                                         "out_of_service"] | None = None,
                 unit_type_code: str | None = None,
                 size_category: Literal["small", "medium", "large", "extra_large", "parking"] | None = None,
                 building_code: str | None = None, climate_controlled: bool | None = None,
                 drive_up: bool | None = None, max_rate_cents: int | None = None, limit: int = 20) -> list[dict]:
    """Search storage units by status, size, building and features, cheapest first.

    Args:
        status: only units in this status, e.g. "available" to find units that can be rented.
        unit_type_code: only this size code, e.g. "10X10C" (see list_unit_types).
        size_category: only this size category.
        building_code: only this building, e.g. "B".
        climate_controlled: true for climate-controlled units only, false for standard units only.
        drive_up: true for drive-up units only.
        max_rate_cents: only units whose monthly rate is at most this many cents.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    utc = _norm(unit_type_code).upper() or None
    bc = _norm(building_code).upper() or None
    cc = _flag(climate_controlled)
    du = _flag(drive_up)
    return db.query(
        "SELECT u.id, u.unit_number, b.code AS building_code, b.name AS building, u.floor, t.code AS unit_type_code, "
        "t.name AS unit_type, t.size_category, t.square_feet, t.climate_controlled, u.drive_up_access, "
        "u.has_power_outlet, u.door_type, u.status, u.status_changed_at, t.monthly_rate_cents, t.deposit_cents, u.notes "
        "FROM units u JOIN unit_types t ON t.id = u.unit_type_id JOIN buildings b ON b.id = u.building_id "
        "WHERE (? IS NULL OR u.status = ?) AND (? IS NULL OR t.code = ?) AND (? IS NULL OR t.size_category = ?) "
        "AND (? IS NULL OR b.code = ?) AND (? IS NULL OR t.climate_controlled = ?) "
        "AND (? IS NULL OR u.drive_up_access = ?) AND (? IS NULL OR t.monthly_rate_cents <= ?) "
        "ORDER BY t.monthly_rate_cents, u.unit_number LIMIT ?",
        (status, status, utc, utc, size_category, size_category, bc, bc, cc, cc, du, du,
         max_rate_cents, max_rate_cents, limit),
    )


@tool
def get_unit(db: Db, unit_number: str) -> dict:
    """Show one unit with its size, building, status, current rental and open maintenance requests.

    Args:
        unit_number: the unit's number, e.g. "B214".
    """
    unit = _unit(db, unit_number)
    rentals = db.query(
        "SELECT r.rental_number, r.status, r.reserved_at, r.move_in_date, r.planned_move_out_date, "
        "r.monthly_rate_cents, c.full_name AS customer_name, c.customer_number FROM rentals r "
        "JOIN customers c ON c.id = r.customer_id WHERE r.unit_id = ? AND r.status IN ('reserved', 'active', "
        "'notice_given') ORDER BY r.reserved_at DESC", (unit["id"],))
    maint = db.query(
        "SELECT request_number, category, priority, status, description, created_at FROM maintenance_requests "
        "WHERE unit_id = ? AND status IN ('open', 'in_progress') ORDER BY created_at", (unit["id"],))
    return {"unit_number": unit["unit_number"], "building_code": unit["building_code"], "building": unit["building"],
            "floor": unit["floor"], "unit_type_code": unit["unit_type_code"], "unit_type": unit["unit_type"],
            "monthly_rate_cents": unit["monthly_rate_cents"], "deposit_cents": unit["deposit_cents"],
            "door_type": unit["door_type"], "drive_up_access": unit["drive_up_access"],
            "has_power_outlet": unit["has_power_outlet"], "status": unit["status"],
            "status_changed_at": unit["status_changed_at"], "notes": unit["notes"],
            "current_rentals": rentals, "open_maintenance_requests": maint}


@tool
def list_insurance_plans(db: Db, include_inactive: bool = False) -> list[dict]:
    """List the contents-protection plans a tenant can add to a rental, with coverage and monthly premium.

    Args:
        include_inactive: also list discontinued plans kept only for existing tenants.
    """
    return db.query(
        "SELECT id, code, name, coverage_cents, monthly_premium_cents, deductible_cents, description, is_active "
        "FROM insurance_plans WHERE (? = 1 OR is_active = 1) ORDER BY coverage_cents",
        (1 if include_inactive else 0,))


@tool
def list_promotions(db: Db, currently_valid_only: bool = True) -> list[dict]:
    """List move-in promotions with their discount, validity window and the unit size they apply to.

    Args:
        currently_valid_only: true to show only promotions that are active and valid today.
    """
    today = db.today().isoformat()
    rows = db.query(
        "SELECT p.id, p.code, p.name, p.discount_type, p.discount_value, p.valid_from, p.valid_until, p.is_active, "
        "t.code AS unit_type_code, t.name AS unit_type FROM promotions p LEFT JOIN unit_types t ON t.id = p.unit_type_id "
        "ORDER BY p.valid_from DESC, p.code", ())
    out = []
    for r in rows:
        valid = bool(r["is_active"]) and r["valid_from"] <= today and (r["valid_until"] is None or today <= r["valid_until"])
        r["valid_today"] = valid
        if valid or not currently_valid_only:
            out.append(r)
    return out


@tool
def get_fee_schedule(db: Db, include_inactive: bool = False) -> list[dict]:
    """List the facility's fees (late fees, admin fee, lock cut, cleaning ...) with amounts and when they apply.

    Args:
        include_inactive: also list retired fees.
    """
    return db.query(
        "SELECT id, code, name, fee_type, amount_cents, days_after_due, description, is_active FROM fee_schedule "
        "WHERE (? = 1 OR is_active = 1) ORDER BY fee_type, code", (1 if include_inactive else 0,))


@tool
def get_office_hours(db: Db) -> list[dict]:
    """Show the office opening hours and gate access hours for each day of the week."""
    return db.query(
        "SELECT day_of_week, day_name, office_open, office_close, is_office_closed, gate_open, gate_close "
        "FROM office_hours ORDER BY day_of_week", ())


@tool
def list_staff(db: Db, role: Literal["manager", "assistant_manager", "front_desk", "maintenance"] | None = None,
               include_inactive: bool = False) -> list[dict]:
    """List the facility's staff with their role and contact email.

    Args:
        role: only staff with this role.
        include_inactive: also list former staff.
    """
    return db.query(
        "SELECT id, employee_code, full_name, email, phone, role, hired_on, is_active FROM staff "
        "WHERE (? IS NULL OR role = ?) AND (? = 1 OR is_active = 1) ORDER BY role, full_name",
        (role, role, 1 if include_inactive else 0))


# ---------------------------------------------------------------- customers

@tool
def search_customers(db: Db, query: str, status: Literal["active", "inactive", "banned"] | None = None,
                     limit: int = 20) -> list[dict]:
    """Find customers by words in their name, email, phone, company or customer number.

    Args:
        query: text to look for, e.g. "Barrera", "KC-10007" or "@icloud.com".
        status: only customers with this account status.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    pat = like_contains(_norm(query))
    return db.query(
        "SELECT c.id, c.customer_number, c.full_name, c.email, c.phone, c.company_name, c.city, c.status, "
        "c.created_at, (SELECT COUNT(*) FROM rentals r WHERE r.customer_id = c.id AND r.status IN "
        "('reserved', 'active', 'notice_given')) AS current_rentals FROM customers c "
        "WHERE (c.full_name LIKE ? ESCAPE '\\' OR c.email LIKE ? ESCAPE '\\' OR c.customer_number LIKE ? ESCAPE '\\' "
        "OR IFNULL(c.phone, '') LIKE ? ESCAPE '\\' OR IFNULL(c.company_name, '') LIKE ? ESCAPE '\\') "
        "AND (? IS NULL OR c.status = ?) ORDER BY c.full_name, c.id LIMIT ?",
        (pat, pat, pat, pat, pat, status, status, limit))


@tool
def get_customer(db: Db, customer_email: str | None = None, customer_number: str | None = None) -> dict:
    """Show a customer's profile with their rentals, account balance, gate codes and open requests.

    Args:
        customer_email: the customer's email (give this or customer_number).
        customer_number: the customer's number, e.g. "KC-10007".
    """
    if customer_email:
        row = db.one("SELECT * FROM customers WHERE email = ?", (_norm(customer_email).lower(),))
    elif customer_number:
        row = db.one("SELECT * FROM customers WHERE customer_number = ?", (_norm(customer_number).upper(),))
    else:
        raise ToolError("give customer_email or customer_number")
    if row is None:
        raise ToolError("no such customer; use search_customers to find them")
    rentals = db.query(
        "SELECT r.rental_number, r.status, u.unit_number, t.name AS unit_type, r.monthly_rate_cents, r.move_in_date, "
        "r.planned_move_out_date, r.move_out_date FROM rentals r JOIN units u ON u.id = r.unit_id "
        "JOIN unit_types t ON t.id = u.unit_type_id WHERE r.customer_id = ? ORDER BY r.reserved_at DESC LIMIT 50",
        (row["id"],))
    bal = db.one(
        "SELECT COUNT(*) AS unpaid_invoices, IFNULL(SUM(total_cents - amount_paid_cents), 0) AS balance_cents, "
        "IFNULL(SUM(CASE WHEN due_date < ? THEN total_cents - amount_paid_cents ELSE 0 END), 0) AS past_due_cents "
        "FROM invoices WHERE customer_id = ? AND status IN ('open', 'overdue', 'partially_paid')",
        (db.today().isoformat(), row["id"]))
    codes = db.value("SELECT COUNT(*) FROM gate_codes WHERE customer_id = ? AND status = 'active'", (row["id"],))
    maint = db.value("SELECT COUNT(*) FROM maintenance_requests WHERE customer_id = ? AND status IN "
                     "('open', 'in_progress')", (row["id"],))
    return {"customer_number": row["customer_number"], "full_name": row["full_name"], "email": row["email"],
            "phone": row["phone"], "address_line": row["address_line"], "city": row["city"], "state": row["state"],
            "postal_code": row["postal_code"], "company_name": row["company_name"], "is_business": row["is_business"],
            "emergency_contact_name": row["emergency_contact_name"],
            "emergency_contact_phone": row["emergency_contact_phone"], "autopay_enabled": row["autopay_enabled"],
            "status": row["status"], "created_at": row["created_at"], "rentals": rentals,
            "unpaid_invoices": bal["unpaid_invoices"], "balance_cents": bal["balance_cents"],
            "past_due_cents": bal["past_due_cents"], "active_gate_codes": codes, "open_maintenance_requests": maint}


@tool
def get_account_balance(db: Db, customer_email: str) -> dict:
    """Show what a customer owes: each unpaid invoice with its unit, due date and remaining balance.

    Args:
        customer_email: the customer's email.
    """
    cust = _customer(db, customer_email)
    today = db.today().isoformat()
    rows = db.query(
        "SELECT i.invoice_number, r.rental_number, u.unit_number, i.period_start, i.period_end, i.due_date, "
        "i.subtotal_cents, i.late_fee_cents, i.total_cents, i.amount_paid_cents, "
        "i.total_cents - i.amount_paid_cents AS balance_cents, i.status FROM invoices i "
        "JOIN rentals r ON r.id = i.rental_id JOIN units u ON u.id = r.unit_id "
        "WHERE i.customer_id = ? AND i.status IN ('open', 'overdue', 'partially_paid') "
        "ORDER BY i.due_date, i.invoice_number", (cust["id"],))
    last = db.one("SELECT p.payment_reference, i.invoice_number, p.amount_cents, p.method, p.paid_at FROM payments p "
                  "JOIN invoices i ON i.id = p.invoice_id WHERE p.customer_id = ? AND p.status = 'completed' "
                  "ORDER BY p.paid_at DESC LIMIT 1", (cust["id"],))
    return {"customer_name": cust["full_name"], "customer_email": cust["email"],
            "customer_number": cust["customer_number"], "unpaid_invoices": rows,
            "balance_cents": sum(r["balance_cents"] for r in rows),
            "past_due_cents": sum(r["balance_cents"] for r in rows if r["due_date"] < today),
            "last_payment": last}


# ---------------------------------------------------------------- rentals

@tool
def list_rentals(db: Db, customer_email: str | None = None,
                 status: Literal["reserved", "active", "notice_given", "moved_out", "cancelled"] | None = None,
                 unit_number: str | None = None, move_in_from: str | None = None, move_in_to: str | None = None,
                 planned_move_out_from: str | None = None, planned_move_out_to: str | None = None,
                 limit: int = 20) -> list[dict]:
    """List rental agreements filtered by customer, status, unit and move-in / planned move-out dates.

    Args:
        customer_email: only this customer's rentals.
        status: only rentals in this status ("reserved" = booked, not yet moved in).
        unit_number: only rentals of this unit, e.g. "A104".
        move_in_from: earliest move-in date (ISO), inclusive; for reservations this is the planned move-in.
        move_in_to: latest move-in date (ISO), inclusive.
        planned_move_out_from: earliest planned move-out date (ISO), inclusive.
        planned_move_out_to: latest planned move-out date (ISO), inclusive.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    cid = _customer(db, customer_email)["id"] if customer_email else None
    un = _norm(unit_number).upper() or None
    mif = _opt_date(move_in_from, "move_in_from")
    mit = _opt_date(move_in_to, "move_in_to")
    mof = _opt_date(planned_move_out_from, "planned_move_out_from")
    mot = _opt_date(planned_move_out_to, "planned_move_out_to")
    return db.query(
        "SELECT r.id, r.rental_number, r.status, c.full_name AS customer_name, c.email AS customer_email, "
        "u.unit_number, t.name AS unit_type, r.monthly_rate_cents, r.reserved_at, r.move_in_date, r.notice_given_at, "
        "r.planned_move_out_date, r.move_out_date, r.cancelled_at FROM rentals r "
        "JOIN customers c ON c.id = r.customer_id JOIN units u ON u.id = r.unit_id "
        "JOIN unit_types t ON t.id = u.unit_type_id "
        "WHERE (? IS NULL OR r.customer_id = ?) AND (? IS NULL OR r.status = ?) AND (? IS NULL OR u.unit_number = ?) "
        "AND (? IS NULL OR r.move_in_date >= ?) AND (? IS NULL OR r.move_in_date <= ?) "
        "AND (? IS NULL OR r.planned_move_out_date >= ?) AND (? IS NULL OR r.planned_move_out_date <= ?) "
        "ORDER BY r.reserved_at DESC LIMIT ?",
        (cid, cid, status, status, un, un, mif, mif, mit, mit, mof, mof, mot, mot, limit))


@tool
def get_rental(db: Db, rental_number: str) -> dict:
    """Show one rental agreement with its unit, customer, dates, rate, promotion, insurance, gate codes and recent invoices.

    Args:
        rental_number: the rental's number, e.g. "R2025-00123".
    """
    r = _rental(db, rental_number)
    promo = None
    if r["promotion_id"] is not None:
        promo = db.one("SELECT code, name, discount_type, discount_value FROM promotions WHERE id = ?",
                       (r["promotion_id"],))
    unit = db.one("SELECT t.code AS unit_type_code, t.name AS unit_type, b.name AS building FROM units u "
                  "JOIN unit_types t ON t.id = u.unit_type_id JOIN buildings b ON b.id = u.building_id WHERE u.id = ?",
                  (r["unit_id"],))
    staff = db.query("SELECT id, full_name FROM staff WHERE id IN (?, ?, ?)",
                     (r["created_by_staff_id"], r["moved_in_by_staff_id"], r["moved_out_by_staff_id"]))
    names = {s["id"]: s["full_name"] for s in staff}
    ins = db.query("SELECT ri.policy_number, p.code AS plan_code, p.name AS plan, ri.monthly_premium_cents, ri.status, "
                   "ri.start_date, ri.end_date, ri.cancelled_at FROM rental_insurance ri "
                   "JOIN insurance_plans p ON p.id = ri.insurance_plan_id WHERE ri.rental_id = ? ORDER BY ri.start_date",
                   (r["id"],))
    codes = db.query("SELECT code, status, access_level, issued_at, suspended_at, revoked_at, status_reason "
                     "FROM gate_codes WHERE rental_id = ? ORDER BY issued_at", (r["id"],))
    invoices = db.query("SELECT invoice_number, period_start, period_end, due_date, total_cents, amount_paid_cents, "
                        "status FROM invoices WHERE rental_id = ? ORDER BY issue_date DESC, id DESC LIMIT 6", (r["id"],))
    return {"rental_number": r["rental_number"], "status": r["status"], "customer_name": r["customer_name"],
            "customer_email": r["customer_email"], "customer_number": r["customer_number"],
            "unit_number": r["unit_number"], "unit_status": r["unit_status"], "unit_type": unit["unit_type"],
            "building": unit["building"], "monthly_rate_cents": r["monthly_rate_cents"],
            "deposit_cents": r["deposit_cents"], "deposit_refunded_cents": r["deposit_refunded_cents"],
            "billing_day": r["billing_day"], "promotion": promo, "reserved_at": r["reserved_at"],
            "move_in_date": r["move_in_date"], "notice_given_at": r["notice_given_at"],
            "planned_move_out_date": r["planned_move_out_date"], "move_out_date": r["move_out_date"],
            "cancelled_at": r["cancelled_at"], "cancel_reason": r["cancel_reason"],
            "created_by": names.get(r["created_by_staff_id"]), "moved_in_by": names.get(r["moved_in_by_staff_id"]),
            "moved_out_by": names.get(r["moved_out_by_staff_id"]), "notes": r["notes"], "insurance": ins,
            "gate_codes": codes, "recent_invoices": invoices}


@tool(write=True, actor="customer_email")
def reserve_unit(db: Db, customer_email: str, unit_number: str, move_in_date: str,
                 promotion_code: str | None = None) -> dict:
    """Reserve an available unit for the customer, to move in on a planned date (optionally with a promotion).

    Args:
        customer_email: the email of the customer reserving (the acting person).
        unit_number: the available unit to reserve, e.g. "C112".
        move_in_date: planned move-in date (ISO), from today up to 60 days ahead.
        promotion_code: a currently valid promotion code, e.g. "WELCOME50".
    """
    cust = _customer(db, customer_email)
    if cust["status"] == "banned":
        raise ToolError(f"{cust['email']} is banned from renting; the customer must speak to the manager")
    unit = _unit(db, unit_number)
    if unit["status"] != "available":
        raise ToolError(f"unit {unit['unit_number']} is {unit['status']}; use search_units with status 'available'")
    if not unit["type_active"]:
        raise ToolError(f"unit {unit['unit_number']} is a discontinued size and cannot be rented")
    today = db.today()
    mi = _date(move_in_date, "move_in_date")
    if mi < today or mi > today + timedelta(days=MAX_RESERVE_DAYS):
        raise ToolError(f"move_in_date must be between {today.isoformat()} and "
                        f"{(today + timedelta(days=MAX_RESERVE_DAYS)).isoformat()}")
    promo_id = None
    if promotion_code:
        p = db.one("SELECT * FROM promotions WHERE code = ?", (_norm(promotion_code).upper(),))
        if p is None:
            raise ToolError(f"no promotion {promotion_code!r}; see list_promotions")
        ts = today.isoformat()
        if not p["is_active"] or p["valid_from"] > ts or (p["valid_until"] is not None and p["valid_until"] < ts):
            raise ToolError(f"promotion {p['code']} is not valid today")
        if p["unit_type_id"] is not None and p["unit_type_id"] != unit["unit_type_id"]:
            raise ToolError(f"promotion {p['code']} does not apply to {unit['unit_type']} units")
        promo_id = p["id"]
    mx = db.value("SELECT MAX(CAST(substr(rental_number, 7) AS INTEGER)) FROM rentals", ())
    number = "R%d-%05d" % (today.year, (mx or 0) + 1)
    now = now_iso(db)
    rid = db.insert("rentals", {
        "rental_number": number, "customer_id": cust["id"], "unit_id": unit["id"], "status": "reserved",
        "monthly_rate_cents": unit["monthly_rate_cents"], "deposit_cents": unit["deposit_cents"],
        "deposit_refunded_cents": 0, "billing_day": min(mi.day, 28), "promotion_id": promo_id, "reserved_at": now,
        "move_in_date": mi.isoformat(), "notice_given_at": None, "planned_move_out_date": None,
        "move_out_date": None, "cancelled_at": None, "cancel_reason": None, "created_by_staff_id": None,
        "moved_in_by_staff_id": None, "moved_out_by_staff_id": None, "notes": None})
    db.execute("UPDATE units SET status = 'reserved', status_changed_at = ? WHERE id = ?", (now, unit["id"]))
    _log(db, "customer", None, cust["id"], "rental", rid, "rental_reserved", f"Reserved unit {unit['unit_number']}")
    return {"rental_number": number, "status": "reserved", "unit_number": unit["unit_number"],
            "unit_type": unit["unit_type"], "move_in_date": mi.isoformat(),
            "monthly_rate_cents": unit["monthly_rate_cents"], "deposit_cents": unit["deposit_cents"],
            "promotion_code": _norm(promotion_code).upper() or None, "reserved_at": now}


@tool(write=True, actor="customer_email")
def cancel_reservation(db: Db, customer_email: str, rental_number: str, reason: str) -> dict:
    """Cancel one of the customer's own reservations that has not moved in yet; the unit becomes available.

    Args:
        customer_email: the email of the customer cancelling (the acting person).
        rental_number: the reservation's rental number, e.g. "R2026-00412".
        reason: why the reservation is cancelled, in the customer's words.
    """
    cust = _customer(db, customer_email)
    r = _own_rental(db, cust, rental_number)
    if r["status"] != "reserved":
        raise ToolError(f"rental {r['rental_number']} is {r['status']}; only reservations (status reserved) can be "
                        "cancelled - a tenant who moved in gives notice with give_move_out_notice")
    why = _text(reason, "reason")
    now = now_iso(db)
    db.execute("UPDATE rentals SET status = 'cancelled', cancelled_at = ?, cancel_reason = ? WHERE id = ?",
               (now, why, r["id"]))
    db.execute("UPDATE units SET status = 'available', status_changed_at = ? WHERE id = ? AND status = 'reserved'",
               (now, r["unit_id"]))
    _log(db, "customer", None, cust["id"], "rental", r["id"], "reservation_cancelled", why)
    return {"rental_number": r["rental_number"], "status": "cancelled", "unit_number": r["unit_number"],
            "cancelled_at": now, "cancel_reason": why}


@tool(write=True, actor="staff_email")
def complete_move_in(db: Db, staff_email: str, rental_number: str) -> dict:
    """Check a reserved customer in today: the rental becomes active and the unit occupied.

    Args:
        staff_email: the email of the front-desk staff member doing the move-in (the acting person).
        rental_number: the reservation's rental number, e.g. "R2026-00412".
    """
    staff = _staff(db, staff_email, FRONT_ROLES, "complete move-ins")
    r = _rental(db, rental_number)
    if r["status"] != "reserved":
        raise ToolError(f"rental {r['rental_number']} is {r['status']}; only reserved rentals can be moved in")
    if r["customer_status"] == "banned":
        raise ToolError(f"customer {r['customer_email']} is banned; the move-in cannot go ahead")
    if r["unit_status"] != "reserved":
        raise ToolError(f"unit {r['unit_number']} is {r['unit_status']}, not reserved; fix the unit first")
    today = db.today()
    now = now_iso(db)
    db.execute("UPDATE rentals SET status = 'active', move_in_date = ?, billing_day = ?, moved_in_by_staff_id = ? "
               "WHERE id = ?", (today.isoformat(), min(today.day, 28), staff["id"], r["id"]))
    db.execute("UPDATE units SET status = 'occupied', status_changed_at = ? WHERE id = ?", (now, r["unit_id"]))
    _log(db, "staff", staff["id"], r["customer_id"], "rental", r["id"], "moved_in",
         f"Moved in to unit {r['unit_number']}")
    return {"rental_number": r["rental_number"], "status": "active", "unit_number": r["unit_number"],
            "customer_name": r["customer_name"], "move_in_date": today.isoformat(),
            "billing_day": min(today.day, 28), "moved_in_by": staff["full_name"]}


@tool(write=True, actor="customer_email")
def give_move_out_notice(db: Db, customer_email: str, rental_number: str, planned_move_out_date: str) -> dict:
    """Give (or change) notice to move out of one of the customer's own active rentals on a planned date.

    Args:
        customer_email: the email of the customer giving notice (the acting person).
        rental_number: the rental's number, e.g. "R2024-00231".
        planned_move_out_date: the planned move-out date (ISO), from today up to 180 days ahead.
    """
    cust = _customer(db, customer_email)
    r = _own_rental(db, cust, rental_number)
    if r["status"] not in ("active", "notice_given"):
        raise ToolError(f"rental {r['rental_number']} is {r['status']}; notice can only be given on an active rental")
    today = db.today()
    d = _date(planned_move_out_date, "planned_move_out_date")
    if d < today or d > today + timedelta(days=MAX_NOTICE_DAYS):
        raise ToolError(f"planned_move_out_date must be between {today.isoformat()} and "
                        f"{(today + timedelta(days=MAX_NOTICE_DAYS)).isoformat()}")
    now = now_iso(db)
    previous = r["planned_move_out_date"]
    if r["status"] == "active":
        db.execute("UPDATE rentals SET status = 'notice_given', notice_given_at = ?, planned_move_out_date = ? "
                   "WHERE id = ?", (now, d.isoformat(), r["id"]))
        _log(db, "customer", None, cust["id"], "rental", r["id"], "move_out_notice",
             f"Planned move-out {d.isoformat()}")
    else:
        db.execute("UPDATE rentals SET planned_move_out_date = ? WHERE id = ?", (d.isoformat(), r["id"]))
        _log(db, "customer", None, cust["id"], "rental", r["id"], "move_out_rescheduled",
             f"Planned move-out changed from {previous} to {d.isoformat()}")
    return {"rental_number": r["rental_number"], "status": "notice_given", "unit_number": r["unit_number"],
            "planned_move_out_date": d.isoformat(), "previous_planned_move_out_date": previous}


@tool(write=True, actor="staff_email")
def process_move_out(db: Db, staff_email: str, rental_number: str, deposit_refund_cents: int) -> dict:
    """Move a tenant out today: the rental ends, the deposit refund is recorded and the unit becomes available.

    The rental must have no overdue or partly paid invoices. Revoke the rental's gate codes separately
    with revoke_gate_code.

    Args:
        staff_email: the email of the front-desk staff member processing the move-out (the acting person).
        rental_number: the rental's number, e.g. "R2024-00231".
        deposit_refund_cents: how much of the security deposit is refunded, 0 up to the deposit held.
    """
    staff = _staff(db, staff_email, FRONT_ROLES, "process move-outs")
    r = _rental(db, rental_number)
    if r["status"] not in ("active", "notice_given"):
        raise ToolError(f"rental {r['rental_number']} is {r['status']}; only active or notice_given rentals can be "
                        "moved out")
    unpaid = db.query("SELECT invoice_number, total_cents - amount_paid_cents AS balance_cents FROM invoices "
                      "WHERE rental_id = ? AND status IN ('overdue', 'partially_paid') ORDER BY due_date", (r["id"],))
    if unpaid:
        nums = ", ".join(u["invoice_number"] for u in unpaid)
        raise ToolError(f"rental {r['rental_number']} has unpaid past-due invoices ({nums}); collect payment or "
                        "settle them before the move-out")
    if deposit_refund_cents < 0 or deposit_refund_cents > r["deposit_cents"]:
        raise ToolError(f"deposit_refund_cents must be between 0 and the deposit of {r['deposit_cents']} cents")
    today = db.today().isoformat()
    now = now_iso(db)
    db.execute("UPDATE rentals SET status = 'moved_out', move_out_date = ?, moved_out_by_staff_id = ?, "
               "deposit_refunded_cents = ?, planned_move_out_date = IFNULL(planned_move_out_date, ?) WHERE id = ?",
               (today, staff["id"], deposit_refund_cents, today, r["id"]))
    db.execute("UPDATE units SET status = 'available', status_changed_at = ? WHERE id = ?", (now, r["unit_id"]))
    _log(db, "staff", staff["id"], r["customer_id"], "rental", r["id"], "moved_out",
         f"Moved out of unit {r['unit_number']}; deposit refund {deposit_refund_cents} cents")
    active_codes = db.query("SELECT code, status FROM gate_codes WHERE rental_id = ? AND status IN "
                            "('active', 'suspended')", (r["id"],))
    return {"rental_number": r["rental_number"], "status": "moved_out", "unit_number": r["unit_number"],
            "move_out_date": today, "deposit_cents": r["deposit_cents"],
            "deposit_refunded_cents": deposit_refund_cents, "moved_out_by": staff["full_name"],
            "gate_codes_still_open": active_codes}


# ---------------------------------------------------------------- billing

@tool
def list_invoices(db: Db, customer_email: str | None = None, rental_number: str | None = None,
                  status: Literal["open", "partially_paid", "paid", "overdue", "void"] | None = None,
                  due_from: str | None = None, due_to: str | None = None, limit: int = 20) -> list[dict]:
    """List invoices filtered by customer, rental, status and due-date range, newest due date first.

    Args:
        customer_email: only this customer's invoices.
        rental_number: only invoices of this rental, e.g. "R2025-00123".
        status: only invoices in this status.
        due_from: earliest due date (ISO), inclusive.
        due_to: latest due date (ISO), inclusive.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    cid = _customer(db, customer_email)["id"] if customer_email else None
    rn = _norm(rental_number).upper() or None
    df = _opt_date(due_from, "due_from")
    dt = _opt_date(due_to, "due_to")
    return db.query(
        "SELECT i.id, i.invoice_number, c.full_name AS customer_name, c.email AS customer_email, r.rental_number, "
        "u.unit_number, i.period_start, i.period_end, i.issue_date, i.due_date, i.subtotal_cents, i.late_fee_cents, "
        "i.total_cents, i.amount_paid_cents, i.total_cents - i.amount_paid_cents AS balance_cents, i.status, "
        "i.paid_at FROM invoices i JOIN customers c ON c.id = i.customer_id JOIN rentals r ON r.id = i.rental_id "
        "JOIN units u ON u.id = r.unit_id WHERE (? IS NULL OR i.customer_id = ?) AND (? IS NULL OR r.rental_number = ?) "
        "AND (? IS NULL OR i.status = ?) AND (? IS NULL OR i.due_date >= ?) AND (? IS NULL OR i.due_date <= ?) "
        "ORDER BY i.due_date DESC, i.invoice_number DESC LIMIT ?",
        (cid, cid, rn, rn, status, status, df, df, dt, dt, limit))


@tool
def get_invoice(db: Db, invoice_number: str) -> dict:
    """Show one invoice with its lines, payments and late fees.

    Args:
        invoice_number: the invoice's number, e.g. "INV-202602-01890".
    """
    inv = _invoice(db, invoice_number)
    lines = db.query("SELECT l.line_type, l.description, l.quantity, l.unit_amount_cents, l.amount_cents, "
                     "f.code AS fee_code FROM invoice_lines l LEFT JOIN fee_schedule f ON f.id = l.fee_schedule_id "
                     "WHERE l.invoice_id = ? ORDER BY l.id", (inv["id"],))
    pays = db.query("SELECT p.payment_reference, p.amount_cents, p.method, p.card_last4, p.status, p.paid_at, "
                    "p.refunded_at, p.refund_reason, s.full_name AS received_by FROM payments p "
                    "LEFT JOIN staff s ON s.id = p.received_by_staff_id WHERE p.invoice_id = ? ORDER BY p.paid_at",
                    (inv["id"],))
    fees = db.query("SELECT lf.id, f.code AS fee_code, f.name AS fee, lf.amount_cents, lf.status, lf.assessed_at, "
                    "lf.waived_at, s.full_name AS waived_by, lf.waive_reason FROM late_fees lf "
                    "JOIN fee_schedule f ON f.id = lf.fee_schedule_id LEFT JOIN staff s ON s.id = lf.waived_by_staff_id "
                    "WHERE lf.invoice_id = ? ORDER BY lf.assessed_at", (inv["id"],))
    return {"invoice_number": inv["invoice_number"], "customer_name": inv["customer_name"],
            "customer_email": inv["customer_email"], "rental_number": inv["rental_number"],
            "unit_number": inv["unit_number"], "period_start": inv["period_start"], "period_end": inv["period_end"],
            "issue_date": inv["issue_date"], "due_date": inv["due_date"], "subtotal_cents": inv["subtotal_cents"],
            "late_fee_cents": inv["late_fee_cents"], "total_cents": inv["total_cents"],
            "amount_paid_cents": inv["amount_paid_cents"],
            "balance_cents": inv["total_cents"] - inv["amount_paid_cents"], "status": inv["status"],
            "paid_at": inv["paid_at"], "voided_at": inv["voided_at"], "void_reason": inv["void_reason"],
            "lines": lines, "payments": pays, "late_fees": fees}


@tool
def list_payments(db: Db, customer_email: str | None = None, invoice_number: str | None = None,
                  method: Literal["card", "ach", "cash", "check", "autopay"] | None = None,
                  status: Literal["completed", "failed", "refunded"] | None = None,
                  paid_from: str | None = None, paid_to: str | None = None, limit: int = 20) -> dict:
    """List payments filtered by customer, invoice, method, status and date range, newest first.

    Args:
        customer_email: only this customer's payments.
        invoice_number: only payments for this invoice.
        method: only payments made this way.
        status: only payments with this status.
        paid_from: earliest payment date (ISO), inclusive.
        paid_to: latest payment date (ISO), inclusive.
        limit: maximum number of payments listed, 1 to 100.
    """
    check_limit(limit, 100)
    cid = _customer(db, customer_email)["id"] if customer_email else None
    inn = _norm(invoice_number).upper() or None
    pf = _opt_date(paid_from, "paid_from")
    pt = _opt_date(paid_to, "paid_to")
    params = (cid, cid, inn, inn, method, method, status, status, pf, pf, pt, pt)
    rows = db.query(
        "SELECT p.id, p.payment_reference, i.invoice_number, c.full_name AS customer_name, c.email AS customer_email, "
        "p.amount_cents, p.method, p.card_last4, p.status, p.paid_at, p.refunded_at, p.refund_reason, "
        "s.full_name AS received_by FROM payments p JOIN invoices i ON i.id = p.invoice_id "
        "JOIN customers c ON c.id = p.customer_id LEFT JOIN staff s ON s.id = p.received_by_staff_id "
        "WHERE (? IS NULL OR p.customer_id = ?) AND (? IS NULL OR i.invoice_number = ?) AND (? IS NULL OR p.method = ?) "
        "AND (? IS NULL OR p.status = ?) AND (? IS NULL OR substr(p.paid_at, 1, 10) >= ?) "
        "AND (? IS NULL OR substr(p.paid_at, 1, 10) <= ?) ORDER BY p.paid_at DESC, p.id DESC LIMIT ?",
        params + (limit,))
    summary = db.one(
        "SELECT COUNT(*) AS matching_payments, IFNULL(SUM(CASE WHEN p.status = 'completed' THEN p.amount_cents "
        "ELSE 0 END), 0) AS completed_total_cents FROM payments p JOIN invoices i ON i.id = p.invoice_id "
        "WHERE (? IS NULL OR p.customer_id = ?) AND (? IS NULL OR i.invoice_number = ?) AND (? IS NULL OR p.method = ?) "
        "AND (? IS NULL OR p.status = ?) AND (? IS NULL OR substr(p.paid_at, 1, 10) >= ?) "
        "AND (? IS NULL OR substr(p.paid_at, 1, 10) <= ?)", params)
    return {"payments": rows, "matching_payments": summary["matching_payments"],
            "completed_total_cents": summary["completed_total_cents"]}


@tool(write=True, actor="customer_email")
def pay_invoice(db: Db, customer_email: str, invoice_number: str, amount_cents: int, card_last4: str) -> dict:
    """Pay all or part of one of the customer's own unpaid invoices online by card.

    Args:
        customer_email: the email of the customer paying (the acting person).
        invoice_number: the invoice to pay, e.g. "INV-202602-01890".
        amount_cents: amount to pay in cents, at most the invoice's remaining balance.
        card_last4: last 4 digits of the card used, e.g. "4242".
    """
    cust = _customer(db, customer_email)
    inv = _invoice(db, invoice_number)
    if inv["customer_id"] != cust["id"]:
        raise ToolError(f"invoice {inv['invoice_number']} does not belong to {cust['email']}; a customer can only "
                        "pay their own invoices")
    result = _apply_payment(db, inv, amount_cents, "card", card_last4, None)
    _log(db, "customer", None, cust["id"], "payment", result["payment_id"], "payment_made",
         f"Online card payment of {amount_cents} cents on {inv['invoice_number']}")
    return result


@tool(write=True, actor="staff_email")
def record_office_payment(db: Db, staff_email: str, invoice_number: str, amount_cents: int,
                          method: Literal["cash", "check", "card"], card_last4: str | None = None) -> dict:
    """Record a payment a customer makes at the front desk (cash, check or card) against an unpaid invoice.

    Args:
        staff_email: the email of the staff member taking the payment (the acting person).
        invoice_number: the invoice being paid, e.g. "INV-202602-01890".
        amount_cents: amount received in cents, at most the invoice's remaining balance.
        method: how the customer paid.
        card_last4: last 4 digits of the card, required when method is "card".
    """
    staff = _staff(db, staff_email, FRONT_ROLES, "take payments")
    inv = _invoice(db, invoice_number)
    result = _apply_payment(db, inv, amount_cents, method, card_last4, staff["id"])
    _log(db, "staff", staff["id"], inv["customer_id"], "payment", result["payment_id"], "payment_received",
         f"{method} payment of {amount_cents} cents on {inv['invoice_number']}")
    result["received_by"] = staff["full_name"]
    result["customer_name"] = inv["customer_name"]
    return result


@tool
def list_late_fees(db: Db, customer_email: str | None = None,
                   status: Literal["assessed", "waived", "paid"] | None = None,
                   assessed_from: str | None = None, assessed_to: str | None = None, limit: int = 20) -> list[dict]:
    """List late fees with their invoice, customer, amount and whether they were paid or waived.

    Args:
        customer_email: only this customer's late fees.
        status: only fees in this status.
        assessed_from: earliest assessment date (ISO), inclusive.
        assessed_to: latest assessment date (ISO), inclusive.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    cid = _customer(db, customer_email)["id"] if customer_email else None
    af = _opt_date(assessed_from, "assessed_from")
    at = _opt_date(assessed_to, "assessed_to")
    return db.query(
        "SELECT lf.id, i.invoice_number, i.due_date, c.full_name AS customer_name, c.email AS customer_email, "
        "f.code AS fee_code, f.name AS fee, lf.amount_cents, lf.status, lf.assessed_at, lf.waived_at, "
        "s.full_name AS waived_by, lf.waive_reason FROM late_fees lf JOIN invoices i ON i.id = lf.invoice_id "
        "JOIN customers c ON c.id = lf.customer_id JOIN fee_schedule f ON f.id = lf.fee_schedule_id "
        "LEFT JOIN staff s ON s.id = lf.waived_by_staff_id WHERE (? IS NULL OR lf.customer_id = ?) "
        "AND (? IS NULL OR lf.status = ?) AND (? IS NULL OR substr(lf.assessed_at, 1, 10) >= ?) "
        "AND (? IS NULL OR substr(lf.assessed_at, 1, 10) <= ?) ORDER BY lf.assessed_at DESC, lf.id DESC LIMIT ?",
        (cid, cid, status, status, af, af, at, at, limit))


@tool(write=True, actor="staff_email")
def assess_late_fee(db: Db, staff_email: str, invoice_number: str, fee_code: str) -> dict:
    """Charge a late fee from the fee schedule on a past-due invoice; it is added to the invoice total.

    Args:
        staff_email: the email of the staff member charging the fee (the acting person).
        invoice_number: the past-due invoice, e.g. "INV-202601-01720".
        fee_code: the fee to charge, e.g. "LATE5", "LATE20" or "LIEN45" (see get_fee_schedule).
    """
    staff = _staff(db, staff_email, FRONT_ROLES, "assess late fees")
    inv = _invoice(db, invoice_number)
    fee = db.one("SELECT * FROM fee_schedule WHERE code = ?", (_norm(fee_code).upper(),))
    if fee is None:
        raise ToolError(f"no fee {fee_code!r}; see get_fee_schedule")
    if fee["fee_type"] not in ("late_fee", "lien_notice") or not fee["is_active"]:
        raise ToolError(f"fee {fee['code']} is not an active late or lien-notice fee")
    if inv["status"] not in ("overdue", "partially_paid"):
        raise ToolError(f"invoice {inv['invoice_number']} is {inv['status']}; late fees apply only to unpaid past-due "
                        "invoices")
    today = db.today()
    due = date.fromisoformat(inv["due_date"])
    days_late = (today - due).days
    if days_late < (fee["days_after_due"] or 0) or days_late <= 0:
        raise ToolError(f"invoice {inv['invoice_number']} is {days_late} days past due; {fee['code']} applies from "
                        f"{fee['days_after_due']} days past due")
    if db.value("SELECT COUNT(*) FROM late_fees WHERE invoice_id = ? AND fee_schedule_id = ?",
                (inv["id"], fee["id"])):
        raise ToolError(f"{fee['code']} has already been charged on invoice {inv['invoice_number']}")
    now = now_iso(db)
    fid = db.insert("late_fees", {"invoice_id": inv["id"], "customer_id": inv["customer_id"],
                                  "fee_schedule_id": fee["id"], "amount_cents": fee["amount_cents"],
                                  "status": "assessed", "assessed_at": now, "assessed_by_staff_id": staff["id"],
                                  "waived_at": None, "waived_by_staff_id": None, "waive_reason": None})
    db.insert("invoice_lines", {"invoice_id": inv["id"], "line_type": "late_fee", "description": fee["name"],
                                "quantity": 1, "unit_amount_cents": fee["amount_cents"],
                                "amount_cents": fee["amount_cents"], "fee_schedule_id": fee["id"]})
    db.execute("UPDATE invoices SET late_fee_cents = late_fee_cents + ?, total_cents = total_cents + ? WHERE id = ?",
               (fee["amount_cents"], fee["amount_cents"], inv["id"]))
    _log(db, "staff", staff["id"], inv["customer_id"], "late_fee", fid, "late_fee_assessed",
         f"{fee['code']} on invoice {inv['invoice_number']}")
    return {"late_fee_id": fid, "invoice_number": inv["invoice_number"], "fee_code": fee["code"],
            "amount_cents": fee["amount_cents"], "days_past_due": days_late,
            "invoice_total_cents": inv["total_cents"] + fee["amount_cents"],
            "invoice_balance_cents": inv["total_cents"] + fee["amount_cents"] - inv["amount_paid_cents"],
            "assessed_by": staff["full_name"]}


@tool(write=True, actor="staff_email")
def waive_late_fee(db: Db, staff_email: str, invoice_number: str, fee_code: str, reason: str) -> dict:
    """Waive an unpaid late fee on an invoice (managers only); the fee is taken off the invoice total.

    Args:
        staff_email: the email of the manager or assistant manager waiving the fee (the acting person).
        invoice_number: the invoice carrying the fee, e.g. "INV-202601-01720".
        fee_code: the fee to waive, e.g. "LATE5".
        reason: why the fee is waived.
    """
    staff = _staff(db, staff_email, MGMT_ROLES, "waive late fees")
    inv = _invoice(db, invoice_number)
    code = _norm(fee_code).upper()
    lf = db.one("SELECT lf.* FROM late_fees lf JOIN fee_schedule f ON f.id = lf.fee_schedule_id "
                "WHERE lf.invoice_id = ? AND f.code = ? ORDER BY CASE lf.status WHEN 'assessed' THEN 0 ELSE 1 END, "
                "lf.id LIMIT 1", (inv["id"], code))
    if lf is None:
        raise ToolError(f"invoice {inv['invoice_number']} has no {code} fee; see get_invoice for its late fees")
    if lf["status"] != "assessed":
        raise ToolError(f"the {code} fee on {inv['invoice_number']} is already {lf['status']}; only unpaid fees can "
                        "be waived")
    why = _text(reason, "reason")
    now = now_iso(db)
    db.execute("UPDATE late_fees SET status = 'waived', waived_at = ?, waived_by_staff_id = ?, waive_reason = ? "
               "WHERE id = ?", (now, staff["id"], why, lf["id"]))
    line = db.one("SELECT id FROM invoice_lines WHERE invoice_id = ? AND line_type = 'late_fee' "
                  "AND fee_schedule_id = ? ORDER BY id LIMIT 1", (inv["id"], lf["fee_schedule_id"]))
    if line is not None:
        db.execute("DELETE FROM invoice_lines WHERE id = ?", (line["id"],))
    new_total = inv["total_cents"] - lf["amount_cents"]
    new_late = max(0, inv["late_fee_cents"] - lf["amount_cents"])
    status = inv["status"]
    if inv["amount_paid_cents"] >= new_total:
        status = "paid"
        db.execute("UPDATE invoices SET late_fee_cents = ?, total_cents = ?, status = 'paid', paid_at = ? WHERE id = ?",
                   (new_late, new_total, now, inv["id"]))
    else:
        db.execute("UPDATE invoices SET late_fee_cents = ?, total_cents = ? WHERE id = ?",
                   (new_late, new_total, inv["id"]))
    _log(db, "staff", staff["id"], inv["customer_id"], "late_fee", lf["id"], "late_fee_waived", why)
    return {"invoice_number": inv["invoice_number"], "fee_code": code, "waived_cents": lf["amount_cents"],
            "waive_reason": why, "waived_by": staff["full_name"], "invoice_total_cents": new_total,
            "invoice_balance_cents": new_total - inv["amount_paid_cents"], "invoice_status": status}


@tool(write=True, actor="staff_email")
def void_invoice(db: Db, staff_email: str, invoice_number: str, reason: str) -> dict:
    """Void an invoice issued in error that has no payments (managers only); its unpaid late fees are waived.

    Args:
        staff_email: the email of the manager or assistant manager voiding it (the acting person).
        invoice_number: the invoice to void, e.g. "INV-202602-01890".
        reason: why the invoice is void, e.g. "Duplicate invoice generated by billing run".
    """
    staff = _staff(db, staff_email, MGMT_ROLES, "void invoices")
    inv = _invoice(db, invoice_number)
    if inv["status"] not in ("open", "overdue"):
        raise ToolError(f"invoice {inv['invoice_number']} is {inv['status']}; only unpaid open or overdue invoices "
                        "can be voided")
    if inv["amount_paid_cents"] > 0 or db.value("SELECT COUNT(*) FROM payments WHERE invoice_id = ? AND status = "
                                                "'completed'", (inv["id"],)):
        raise ToolError(f"invoice {inv['invoice_number']} has payments recorded and cannot be voided")
    why = _text(reason, "reason")
    now = now_iso(db)
    db.execute("UPDATE invoices SET status = 'void', voided_at = ?, void_reason = ? WHERE id = ?",
               (now, why, inv["id"]))
    db.execute("UPDATE late_fees SET status = 'waived', waived_at = ?, waived_by_staff_id = ?, waive_reason = ? "
               "WHERE invoice_id = ? AND status = 'assessed'", (now, staff["id"], "Invoice voided: " + why, inv["id"]))
    _log(db, "staff", staff["id"], inv["customer_id"], "invoice", inv["id"], "invoice_voided", why)
    return {"invoice_number": inv["invoice_number"], "status": "void", "voided_at": now, "void_reason": why,
            "customer_name": inv["customer_name"], "total_cents": inv["total_cents"], "voided_by": staff["full_name"]}


# ---------------------------------------------------------------- gate access

@tool
def list_gate_codes(db: Db, customer_email: str | None = None, rental_number: str | None = None,
                    status: Literal["active", "suspended", "revoked"] | None = None, code: str | None = None,
                    limit: int = 20) -> list[dict]:
    """List gate access codes with their customer, rental, unit, status and access level.

    Args:
        customer_email: only this customer's codes.
        rental_number: only codes of this rental.
        status: only codes in this status.
        code: only this 6-digit code.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    cid = _customer(db, customer_email)["id"] if customer_email else None
    rn = _norm(rental_number).upper() or None
    cd = _norm(code) or None
    return db.query(
        "SELECT g.id, g.code, c.full_name AS customer_name, c.email AS customer_email, r.rental_number, u.unit_number, "
        "g.status, g.access_level, g.issued_at, si.full_name AS issued_by, g.suspended_at, g.revoked_at, "
        "sr.full_name AS revoked_by, g.status_reason FROM gate_codes g JOIN customers c ON c.id = g.customer_id "
        "LEFT JOIN rentals r ON r.id = g.rental_id LEFT JOIN units u ON u.id = r.unit_id "
        "LEFT JOIN staff si ON si.id = g.issued_by_staff_id LEFT JOIN staff sr ON sr.id = g.revoked_by_staff_id "
        "WHERE (? IS NULL OR g.customer_id = ?) AND (? IS NULL OR r.rental_number = ?) AND (? IS NULL OR g.status = ?) "
        "AND (? IS NULL OR g.code = ?) ORDER BY g.issued_at DESC LIMIT ?",
        (cid, cid, rn, rn, status, status, cd, cd, limit))


@tool
def list_gate_events(db: Db, code: str | None = None, customer_email: str | None = None,
                     date_from: str | None = None, date_to: str | None = None,
                     access_granted: bool | None = None, limit: int = 50) -> list[dict]:
    """List gate and door access events (entries, exits, denied attempts), newest first.

    Args:
        code: only events where this 6-digit code was entered.
        customer_email: only events of this customer's codes.
        date_from: earliest date (ISO), inclusive.
        date_to: latest date (ISO), inclusive.
        access_granted: true for granted events only, false for denied attempts only.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    cid = _customer(db, customer_email)["id"] if customer_email else None
    cd = _norm(code) or None
    df = _opt_date(date_from, "date_from")
    dt = _opt_date(date_to, "date_to")
    ag = _flag(access_granted)
    return db.query(
        "SELECT e.id, e.event_at, e.entered_code, e.gate_name, e.direction, e.access_granted, e.denial_reason, "
        "c.full_name AS customer_name, c.email AS customer_email, u.unit_number FROM gate_access_events e "
        "LEFT JOIN gate_codes g ON g.id = e.gate_code_id LEFT JOIN customers c ON c.id = g.customer_id "
        "LEFT JOIN rentals r ON r.id = g.rental_id LEFT JOIN units u ON u.id = r.unit_id "
        "WHERE (? IS NULL OR e.entered_code = ?) AND (? IS NULL OR g.customer_id = ?) "
        "AND (? IS NULL OR substr(e.event_at, 1, 10) >= ?) AND (? IS NULL OR substr(e.event_at, 1, 10) <= ?) "
        "AND (? IS NULL OR e.access_granted = ?) ORDER BY e.event_at DESC, e.id DESC LIMIT ?",
        (cd, cd, cid, cid, df, df, dt, dt, ag, ag, limit))


@tool(write=True, actor="staff_email")
def issue_gate_code(db: Db, staff_email: str, rental_number: str, code: str,
                    access_level: Literal["standard", "extended_hours"] = "standard") -> dict:
    """Issue a new gate access code for a current rental that has no active or suspended code.

    Args:
        staff_email: the email of the staff member issuing the code (the acting person).
        rental_number: the rental the code opens, e.g. "R2025-00123".
        code: the 6-digit code the customer chose, e.g. "482913"; it must not be in use.
        access_level: "standard" (gate hours only) or "extended_hours".
    """
    staff = _staff(db, staff_email, FRONT_ROLES, "issue gate codes")
    r = _rental(db, rental_number)
    if r["status"] not in ("active", "notice_given"):
        raise ToolError(f"rental {r['rental_number']} is {r['status']}; gate codes are only issued for rentals that "
                        "have moved in")
    if r["customer_status"] == "banned":
        raise ToolError(f"customer {r['customer_email']} is banned and cannot receive a gate code")
    existing = db.one("SELECT code, status FROM gate_codes WHERE rental_id = ? AND status IN ('active', 'suspended')",
                      (r["id"],))
    if existing is not None:
        raise ToolError(f"rental {r['rental_number']} already has {existing['status']} code {existing['code']}; "
                        "revoke it first with revoke_gate_code")
    c = _norm(code)
    if not GATE_CODE.fullmatch(c):
        raise ToolError("code must be exactly 6 digits, e.g. \"482913\"")
    if db.value("SELECT COUNT(*) FROM gate_codes WHERE code = ?", (c,)):
        raise ToolError(f"code {c} is already in use; ask the customer for a different code")
    now = now_iso(db)
    gid = db.insert("gate_codes", {"code": c, "customer_id": r["customer_id"], "rental_id": r["id"],
                                   "status": "active", "access_level": access_level, "issued_at": now,
                                   "issued_by_staff_id": staff["id"], "suspended_at": None, "revoked_at": None,
                                   "revoked_by_staff_id": None, "status_reason": None})
    _log(db, "staff", staff["id"], r["customer_id"], "gate_code", gid, "gate_code_issued",
         f"Gate code issued for rental {r['rental_number']}")
    return {"code": c, "status": "active", "access_level": access_level, "rental_number": r["rental_number"],
            "unit_number": r["unit_number"], "customer_name": r["customer_name"], "issued_at": now,
            "issued_by": staff["full_name"]}


@tool(write=True, actor="staff_email")
def revoke_gate_code(db: Db, staff_email: str, code: str, reason: str) -> dict:
    """Revoke an active or suspended gate code so it no longer opens the gate.

    Args:
        staff_email: the email of the staff member revoking the code (the acting person).
        code: the 6-digit code to revoke.
        reason: why it is revoked, e.g. "Tenant moved out".
    """
    staff = _staff(db, staff_email, FRONT_ROLES, "revoke gate codes")
    g = db.one("SELECT g.*, c.full_name AS customer_name FROM gate_codes g JOIN customers c ON c.id = g.customer_id "
               "WHERE g.code = ?", (_norm(code),))
    if g is None:
        raise ToolError(f"no gate code {code!r}; use list_gate_codes")
    if g["status"] == "revoked":
        raise ToolError(f"gate code {g['code']} was already revoked at {g['revoked_at']}")
    why = _text(reason, "reason")
    now = now_iso(db)
    db.execute("UPDATE gate_codes SET status = 'revoked', revoked_at = ?, revoked_by_staff_id = ?, status_reason = ? "
               "WHERE id = ?", (now, staff["id"], why, g["id"]))
    _log(db, "staff", staff["id"], g["customer_id"], "gate_code", g["id"], "gate_code_revoked", why)
    return {"code": g["code"], "status": "revoked", "previous_status": g["status"],
            "customer_name": g["customer_name"], "revoked_at": now, "reason": why, "revoked_by": staff["full_name"]}


# ---------------------------------------------------------------- insurance

@tool(write=True, actor="customer_email")
def add_insurance(db: Db, customer_email: str, rental_number: str, plan_code: str) -> dict:
    """Add a contents-protection plan to one of the customer's own current rentals, starting today.

    Args:
        customer_email: the email of the customer buying the cover (the acting person).
        rental_number: the customer's rental, e.g. "R2025-00123".
        plan_code: the plan, e.g. "STD5K" (see list_insurance_plans).
    """
    cust = _customer(db, customer_email)
    r = _own_rental(db, cust, rental_number)
    if r["status"] not in ("active", "notice_given"):
        raise ToolError(f"rental {r['rental_number']} is {r['status']}; cover can only be added to a rental that "
                        "has moved in")
    plan = db.one("SELECT * FROM insurance_plans WHERE code = ?", (_norm(plan_code).upper(),))
    if plan is None:
        raise ToolError(f"no insurance plan {plan_code!r}; see list_insurance_plans")
    if not plan["is_active"]:
        raise ToolError(f"plan {plan['code']} is discontinued and cannot be bought")
    cur = db.one("SELECT policy_number FROM rental_insurance WHERE rental_id = ? AND status = 'active'", (r["id"],))
    if cur is not None:
        raise ToolError(f"rental {r['rental_number']} already has active policy {cur['policy_number']}; cancel it "
                        "first with cancel_insurance")
    mx = db.value("SELECT MAX(CAST(substr(policy_number, 5) AS INTEGER)) FROM rental_insurance", ())
    number = "KSP-%06d" % ((mx or 100000) + 1)
    now = now_iso(db)
    today = db.today().isoformat()
    iid = db.insert("rental_insurance", {"policy_number": number, "rental_id": r["id"], "customer_id": cust["id"],
                                         "insurance_plan_id": plan["id"],
                                         "monthly_premium_cents": plan["monthly_premium_cents"], "status": "active",
                                         "start_date": today, "end_date": None, "created_at": now,
                                         "cancelled_at": None, "created_by_staff_id": None})
    _log(db, "customer", None, cust["id"], "insurance", iid, "insurance_added",
         f"{plan['code']} added to rental {r['rental_number']}")
    return {"policy_number": number, "plan_code": plan["code"], "plan": plan["name"],
            "coverage_cents": plan["coverage_cents"], "monthly_premium_cents": plan["monthly_premium_cents"],
            "rental_number": r["rental_number"], "unit_number": r["unit_number"], "start_date": today,
            "status": "active"}


@tool(write=True, actor="customer_email")
def cancel_insurance(db: Db, customer_email: str, policy_number: str, reason: str) -> dict:
    """Cancel one of the customer's own active protection policies as of today.

    Args:
        customer_email: the email of the customer cancelling (the acting person).
        policy_number: the policy, e.g. "KSP-601254".
        reason: why the cover is cancelled, in the customer's words.
    """
    cust = _customer(db, customer_email)
    pol = db.one("SELECT ri.*, p.code AS plan_code, r.rental_number FROM rental_insurance ri "
                 "JOIN insurance_plans p ON p.id = ri.insurance_plan_id JOIN rentals r ON r.id = ri.rental_id "
                 "WHERE ri.policy_number = ?", (_norm(policy_number).upper(),))
    if pol is None:
        raise ToolError(f"no policy {policy_number!r}; see get_rental for a rental's policies")
    if pol["customer_id"] != cust["id"]:
        raise ToolError(f"policy {pol['policy_number']} does not belong to {cust['email']}")
    if pol["status"] != "active":
        raise ToolError(f"policy {pol['policy_number']} is {pol['status']}; only active policies can be cancelled")
    why = _text(reason, "reason")
    now = now_iso(db)
    today = db.today().isoformat()
    db.execute("UPDATE rental_insurance SET status = 'cancelled', end_date = ?, cancelled_at = ? WHERE id = ?",
               (today, now, pol["id"]))
    _log(db, "customer", None, cust["id"], "insurance", pol["id"], "insurance_cancelled",
         f"{pol['plan_code']} cancelled: {why}")
    return {"policy_number": pol["policy_number"], "plan_code": pol["plan_code"],
            "rental_number": pol["rental_number"], "status": "cancelled", "end_date": today, "reason": why}


# ---------------------------------------------------------------- maintenance

@tool
def list_maintenance_requests(db: Db, status: Literal["open", "in_progress", "resolved", "cancelled"] | None = None,
                              category: Literal["door", "lock", "leak", "pest", "lighting", "climate", "gate",
                                                "cleaning", "electrical", "other"] | None = None,
                              priority: Literal["low", "normal", "high", "urgent"] | None = None,
                              unit_number: str | None = None, customer_email: str | None = None,
                              assigned_staff_email: str | None = None, created_from: str | None = None,
                              created_to: str | None = None, limit: int = 20) -> list[dict]:
    """List maintenance requests filtered by status, category, priority, unit, customer, assignee and date.

    Args:
        status: only requests in this status.
        category: only this kind of problem.
        priority: only this priority.
        unit_number: only requests about this unit.
        customer_email: only requests reported by this customer.
        assigned_staff_email: only requests assigned to this staff member.
        created_from: earliest creation date (ISO), inclusive.
        created_to: latest creation date (ISO), inclusive.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    cid = _customer(db, customer_email)["id"] if customer_email else None
    sid = _staff_id_by_email(db, assigned_staff_email) if assigned_staff_email else None
    un = _norm(unit_number).upper() or None
    cf = _opt_date(created_from, "created_from")
    ct = _opt_date(created_to, "created_to")
    return db.query(
        "SELECT m.id, m.request_number, m.status, m.category, m.priority, m.description, u.unit_number, "
        "b.name AS building, c.full_name AS customer_name, rs.full_name AS reported_by_staff, "
        "a.full_name AS assigned_to, m.created_at, m.assigned_at, m.resolved_at, m.cancelled_at "
        "FROM maintenance_requests m LEFT JOIN units u ON u.id = m.unit_id LEFT JOIN buildings b ON b.id = m.building_id "
        "LEFT JOIN customers c ON c.id = m.customer_id LEFT JOIN staff rs ON rs.id = m.reported_by_staff_id "
        "LEFT JOIN staff a ON a.id = m.assigned_staff_id "
        "WHERE (? IS NULL OR m.status = ?) AND (? IS NULL OR m.category = ?) AND (? IS NULL OR m.priority = ?) "
        "AND (? IS NULL OR u.unit_number = ?) AND (? IS NULL OR m.customer_id = ?) "
        "AND (? IS NULL OR m.assigned_staff_id = ?) AND (? IS NULL OR substr(m.created_at, 1, 10) >= ?) "
        "AND (? IS NULL OR substr(m.created_at, 1, 10) <= ?) ORDER BY m.created_at DESC LIMIT ?",
        (status, status, category, category, priority, priority, un, un, cid, cid, sid, sid, cf, cf, ct, ct, limit))


@tool
def get_maintenance_request(db: Db, request_number: str) -> dict:
    """Show one maintenance request with its unit, reporter, assignee, timeline and resolution.

    Args:
        request_number: the request's number, e.g. "MR-00531".
    """
    m = db.one(
        "SELECT m.*, u.unit_number, b.name AS building, c.full_name AS customer_name, c.email AS customer_email, "
        "rs.full_name AS reported_by_staff, a.full_name AS assigned_to, a.email AS assigned_to_email "
        "FROM maintenance_requests m LEFT JOIN units u ON u.id = m.unit_id LEFT JOIN buildings b ON b.id = m.building_id "
        "LEFT JOIN customers c ON c.id = m.customer_id LEFT JOIN staff rs ON rs.id = m.reported_by_staff_id "
        "LEFT JOIN staff a ON a.id = m.assigned_staff_id WHERE m.request_number = ?",
        (_norm(request_number).upper(),))
    if m is None:
        raise ToolError(f"no maintenance request {request_number!r}; use list_maintenance_requests")
    return {"request_number": m["request_number"], "status": m["status"], "category": m["category"],
            "priority": m["priority"], "description": m["description"], "unit_number": m["unit_number"],
            "building": m["building"], "customer_name": m["customer_name"], "customer_email": m["customer_email"],
            "reported_by_staff": m["reported_by_staff"], "assigned_to": m["assigned_to"],
            "assigned_to_email": m["assigned_to_email"], "created_at": m["created_at"],
            "assigned_at": m["assigned_at"], "resolved_at": m["resolved_at"],
            "resolution_notes": m["resolution_notes"], "cancelled_at": m["cancelled_at"]}


@tool(write=True, actor="customer_email")
def create_maintenance_request(db: Db, customer_email: str, unit_number: str,
                               category: Literal["door", "lock", "leak", "pest", "lighting", "climate", "gate",
                                                 "cleaning", "electrical", "other"],
                               description: str,
                               priority: Literal["low", "normal", "high", "urgent"] = "normal") -> dict:
    """Report a problem with a unit the customer currently rents.

    Args:
        customer_email: the email of the customer reporting (the acting person).
        unit_number: the customer's unit, e.g. "A104".
        category: the kind of problem.
        description: what is wrong, in the customer's words.
        priority: how urgent it is.
    """
    cust = _customer(db, customer_email)
    unit = _unit(db, unit_number)
    rental = db.one("SELECT id, rental_number FROM rentals WHERE unit_id = ? AND customer_id = ? AND status IN "
                    "('active', 'notice_given')", (unit["id"], cust["id"]))
    if rental is None:
        raise ToolError(f"{cust['email']} does not currently rent unit {unit['unit_number']}; customers can report "
                        "problems only for units they rent")
    desc = _text(description, "description")
    mx = db.value("SELECT MAX(CAST(substr(request_number, 4) AS INTEGER)) FROM maintenance_requests", ())
    number = "MR-%05d" % ((mx or 0) + 1)
    now = now_iso(db)
    mid = db.insert("maintenance_requests", {
        "request_number": number, "unit_id": unit["id"], "building_id": unit["building_id"],
        "customer_id": cust["id"], "reported_by_staff_id": None, "assigned_staff_id": None, "category": category,
        "priority": priority, "description": desc, "status": "open", "created_at": now, "assigned_at": None,
        "resolved_at": None, "resolution_notes": None, "cancelled_at": None})
    _log(db, "customer", None, cust["id"], "maintenance_request", mid, "maintenance_reported", desc)
    return {"request_number": number, "status": "open", "unit_number": unit["unit_number"],
            "rental_number": rental["rental_number"], "category": category, "priority": priority,
            "description": desc, "created_at": now}


@tool(write=True, actor="staff_email")
def assign_maintenance_request(db: Db, staff_email: str, request_number: str, assignee_email: str) -> dict:
    """Assign an open (or reassign an in-progress) maintenance request to a maintenance technician.

    Managers may assign anyone on the maintenance team; a technician may only assign a request to themselves.

    Args:
        staff_email: the email of the staff member making the assignment (the acting person).
        request_number: the request, e.g. "MR-00531".
        assignee_email: the email of the maintenance technician who will do the work.
    """
    staff = _staff(db, staff_email, MAINT_ASSIGNERS, "assign maintenance requests")
    m = db.one("SELECT * FROM maintenance_requests WHERE request_number = ?", (_norm(request_number).upper(),))
    if m is None:
        raise ToolError(f"no maintenance request {request_number!r}; use list_maintenance_requests")
    if m["status"] not in ("open", "in_progress"):
        raise ToolError(f"request {m['request_number']} is {m['status']}; only open or in-progress requests can be "
                        "assigned")
    tech = db.one("SELECT id, full_name, email, role, is_active FROM staff WHERE email = ?",
                  (_norm(assignee_email).lower(),))
    if tech is None or tech["role"] != "maintenance" or not tech["is_active"]:
        raise ToolError(f"{assignee_email!r} is not an active maintenance technician; see list_staff role "
                        "'maintenance'")
    if staff["role"] == "maintenance" and tech["id"] != staff["id"]:
        raise ToolError("a maintenance technician can only assign requests to themselves")
    if m["assigned_staff_id"] == tech["id"]:
        raise ToolError(f"request {m['request_number']} is already assigned to {tech['full_name']}")
    now = now_iso(db)
    db.execute("UPDATE maintenance_requests SET assigned_staff_id = ?, assigned_at = ?, status = 'in_progress' "
               "WHERE id = ?", (tech["id"], now, m["id"]))
    _log(db, "staff", staff["id"], m["customer_id"], "maintenance_request", m["id"], "maintenance_assigned",
         f"Assigned to {tech['full_name']}")
    return {"request_number": m["request_number"], "status": "in_progress", "assigned_to": tech["full_name"],
            "assigned_to_email": tech["email"], "assigned_at": now, "assigned_by": staff["full_name"]}


@tool(write=True, actor="staff_email")
def resolve_maintenance_request(db: Db, staff_email: str, request_number: str, resolution_notes: str) -> dict:
    """Close an in-progress maintenance request as resolved, with what was done.

    Only the assigned technician or a manager can resolve a request.

    Args:
        staff_email: the email of the staff member closing the request (the acting person).
        request_number: the request, e.g. "MR-00531".
        resolution_notes: what was done to fix the problem.
    """
    staff = _staff(db, staff_email, MAINT_ASSIGNERS, "resolve maintenance requests")
    m = db.one("SELECT * FROM maintenance_requests WHERE request_number = ?", (_norm(request_number).upper(),))
    if m is None:
        raise ToolError(f"no maintenance request {request_number!r}; use list_maintenance_requests")
    if m["status"] != "in_progress":
        raise ToolError(f"request {m['request_number']} is {m['status']}; only in-progress requests can be resolved "
                        "(assign an open request first)")
    if staff["role"] == "maintenance" and m["assigned_staff_id"] != staff["id"]:
        raise ToolError(f"request {m['request_number']} is assigned to someone else; only the assigned technician or "
                        "a manager can resolve it")
    notes = _text(resolution_notes, "resolution_notes")
    now = now_iso(db)
    db.execute("UPDATE maintenance_requests SET status = 'resolved', resolved_at = ?, resolution_notes = ? "
               "WHERE id = ?", (now, notes, m["id"]))
    _log(db, "staff", staff["id"], m["customer_id"], "maintenance_request", m["id"], "maintenance_resolved", notes)
    return {"request_number": m["request_number"], "status": "resolved", "resolved_at": now,
            "resolution_notes": notes, "resolved_by": staff["full_name"]}


# ---------------------------------------------------------------- account / history

@tool(write=True, actor="customer_email")
def update_my_account(db: Db, customer_email: str, phone: str | None = None, address_line: str | None = None,
                      city: str | None = None, state: str | None = None, postal_code: str | None = None,
                      emergency_contact_name: str | None = None, emergency_contact_phone: str | None = None,
                      autopay_enabled: bool | None = None) -> dict:
    """Update the customer's own contact details, emergency contact or autopay setting (only the fields given).

    Args:
        customer_email: the email of the customer whose account changes (the acting person).
        phone: new phone number.
        address_line: new street address.
        city: new city.
        state: new state, e.g. "CO".
        postal_code: new postal code.
        emergency_contact_name: new emergency contact's name.
        emergency_contact_phone: new emergency contact's phone.
        autopay_enabled: true to charge invoices automatically on their due date, false to stop.
    """
    cust = _customer(db, customer_email)
    values = {"phone": phone, "address_line": address_line, "city": city, "state": state,
              "postal_code": postal_code, "emergency_contact_name": emergency_contact_name,
              "emergency_contact_phone": emergency_contact_phone}
    clean = {}
    for key in ["phone", "address_line", "city", "state", "postal_code", "emergency_contact_name",
                "emergency_contact_phone"]:
        if values[key] is not None:
            clean[key] = _text(values[key], key)
    if not clean and autopay_enabled is None:
        raise ToolError("give at least one field to change")
    ap = _flag(autopay_enabled)
    db.execute("UPDATE customers SET phone = IFNULL(?, phone), address_line = IFNULL(?, address_line), "
               "city = IFNULL(?, city), state = IFNULL(?, state), postal_code = IFNULL(?, postal_code), "
               "emergency_contact_name = IFNULL(?, emergency_contact_name), "
               "emergency_contact_phone = IFNULL(?, emergency_contact_phone), "
               "autopay_enabled = IFNULL(?, autopay_enabled) WHERE id = ?",
               (clean.get("phone"), clean.get("address_line"), clean.get("city"), clean.get("state"),
                clean.get("postal_code"), clean.get("emergency_contact_name"), clean.get("emergency_contact_phone"),
                ap, cust["id"]))
    changed = sorted(clean) + (["autopay_enabled"] if ap is not None else [])
    _log(db, "customer", None, cust["id"], "customer", cust["id"], "account_updated",
         "Changed: " + ", ".join(changed))
    row = db.one("SELECT customer_number, full_name, email, phone, address_line, city, state, postal_code, "
                 "emergency_contact_name, emergency_contact_phone, autopay_enabled FROM customers WHERE id = ?",
                 (cust["id"],))
    row["changed_fields"] = changed
    return row


@tool
def get_activity_log(db: Db, entity_type: Literal["customer", "unit", "rental", "gate_code", "invoice", "payment",
                                                  "late_fee", "insurance", "maintenance_request"] | None = None,
                     entity_id: int | None = None, customer_email: str | None = None,
                     staff_email: str | None = None, action: str | None = None, date_from: str | None = None,
                     date_to: str | None = None, limit: int = 20) -> list[dict]:
    """Show the history of who did what and when (move-ins, payments, fee waivers, code changes ...), newest first.

    Args:
        entity_type: only entries about this kind of record.
        entity_id: only entries about the record with this id (the "id" shown by list tools).
        customer_email: only entries concerning this customer.
        staff_email: only entries made by this staff member.
        action: only this action, e.g. "late_fee_waived" or "moved_out".
        date_from: earliest date (ISO), inclusive.
        date_to: latest date (ISO), inclusive.
        limit: maximum number of results, 1 to 100.
    """
    check_limit(limit, 100)
    cid = _customer(db, customer_email)["id"] if customer_email else None
    sid = _staff_id_by_email(db, staff_email) if staff_email else None
    act = _norm(action) or None
    df = _opt_date(date_from, "date_from")
    dt = _opt_date(date_to, "date_to")
    return db.query(
        "SELECT a.id, a.occurred_at, a.actor_type, s.full_name AS staff_name, c.full_name AS customer_name, "
        "a.entity_type, a.entity_id, a.action, a.details FROM activity_log a LEFT JOIN staff s ON s.id = a.staff_id "
        "LEFT JOIN customers c ON c.id = a.customer_id WHERE (? IS NULL OR a.entity_type = ?) "
        "AND (? IS NULL OR a.entity_id = ?) AND (? IS NULL OR a.customer_id = ?) AND (? IS NULL OR a.staff_id = ?) "
        "AND (? IS NULL OR a.action = ?) AND (? IS NULL OR substr(a.occurred_at, 1, 10) >= ?) "
        "AND (? IS NULL OR substr(a.occurred_at, 1, 10) <= ?) ORDER BY a.occurred_at DESC, a.id DESC LIMIT ?",
        (entity_type, entity_type, entity_id, entity_id, cid, cid, sid, sid, act, act, df, df, dt, dt, limit))
