"""Tools of the pharmacy world: a retail pharmacy chain.

Stores are named by code ("S01"), staff by e-mail, patients by the ids ``find_patients`` returns,
prescriptions by their Rx numbers ("RX600123"), drugs by NDC ("50037-153-11"), and fills, lots,
reminders and stock orders by the ids the read tools return. Every write tool takes the e-mail of the
staff member acting and checks their role and store.
"""

from __future__ import annotations

import math
import re
from datetime import date, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, dollars, filters, like_any, parse_day, require_owner, require_role, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

RETURN_AFTER_DAYS = 7  # a filled prescription goes back to stock only after a week uncollected
EARLY_REFILL_SHARE = 0.75  # a refill is due once 75 % of the last fill's days supply has passed
COUNTED = ("queued", "filled", "picked_up")  # fills that used the original or a refill

Channel = Literal["sms", "email"]
Severity = Literal["mild", "moderate", "severe"]
FillStatus = Literal["queued", "filled", "picked_up", "returned_to_stock", "cancelled"]
RxStatus = Literal["active", "transferred", "discontinued"]
OrderStatus = Literal["draft", "submitted", "received", "cancelled"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _today(db: Db) -> str:
    return db.today().isoformat()


def _date(value: str, what: str) -> date:
    return parse_day(value, what, "2026-04-20")


def _store(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM stores WHERE upper(code) = upper(?)", (code.strip(),),
                  missing=f"No store with code {code!r}. Use list_stores to see the store codes (like 'S01').")


def _actor(db: Db, email: str) -> dict[str, Any]:
    row = db.one("SELECT s.*, st.code AS store_code, st.name AS store_name FROM staff s "
                 "JOIN stores st ON st.id = s.store_id WHERE lower(s.email) = lower(?)", (email.strip(),),
                 missing=f"No staff member with e-mail {email!r}. Use list_staff to look staff up by store.")
    if not row["is_active"]:
        raise ToolError(f"{row['full_name']} ({row['email']}) no longer works here and cannot act; use an active "
                        "staff member's e-mail.")
    return row


def _at_store(actor: dict[str, Any], store_id: int, db: Db, what: str) -> None:
    if actor["store_id"] != store_id:
        name = db.value("SELECT name FROM stores WHERE id = ?", (store_id,))
        raise ToolError(f"{actor['full_name']} works at {actor['store_name']}, not {name}; only staff of {name} "
                        f"can {what}.")


def _staff(db: Db, email: str, roles: tuple[str, ...], what: str) -> dict[str, Any]:
    """The active staff member acting, who must hold one of ``roles`` to do ``what``."""
    actor = _actor(db, email)
    require_role(actor, roles, what)
    return actor


def _staff_at(db: Db, email: str, store_id: int, what: str) -> dict[str, Any]:
    """The active staff member acting, who must work at the store ``store_id`` to do ``what``."""
    actor = _actor(db, email)
    _at_store(actor, store_id, db, what)
    return actor


def _patient(db: Db, patient_id: int) -> dict[str, Any]:
    return db.one("SELECT * FROM patients WHERE id = ?", (patient_id,),
                  missing=f"No patient with id {patient_id}. Use find_patients to look a patient up by name.")


def _drug(db: Db, ndc: str) -> dict[str, Any]:
    return db.one("SELECT * FROM drugs WHERE ndc = ?", (ndc.strip(),),
                  missing=f"No drug with NDC {ndc!r}. Use search_drugs to find a drug's NDC by name.")


_RX_SQL = ("SELECT r.*, d.name AS drug_name, d.strength, d.form, d.drug_class, d.schedule, d.tier, d.ndc, "
           "d.unit_price_cents, s.code AS store_code, s.name AS store_name, p.full_name AS patient_name "
           "FROM prescriptions r JOIN drugs d ON d.id = r.drug_id JOIN stores s ON s.id = r.store_id "
           "JOIN patients p ON p.id = r.patient_id ")


def _rx(db: Db, rx_number: str) -> dict[str, Any]:
    return db.one(_RX_SQL + "WHERE upper(r.rx_number) = upper(?)", (rx_number.strip(),),
                  missing=f"No prescription {rx_number!r}. Rx numbers look like 'RX600123'; use list_prescriptions "
                          "with the patient's id to find one.")


def _usable_rx(db: Db, rx: dict[str, Any]) -> None:
    if rx["status"] == "transferred":
        new = db.one("SELECT p.rx_number, s.name FROM transfers t JOIN prescriptions p ON p.id = t.to_prescription_id "
                     "JOIN stores s ON s.id = t.to_store_id WHERE t.from_prescription_id = ?", (rx["id"],))
        where = f" to {new['name']} as {new['rx_number']}" if new else ""
        raise ToolError(f"{rx['rx_number']} was transferred{where}; work on the new prescription instead.")
    if rx["status"] == "discontinued":
        raise ToolError(f"{rx['rx_number']} was discontinued ({rx['status_reason']}); the patient needs a new prescription.")
    if rx["expires_on"] < _today(db):
        raise ToolError(f"{rx['rx_number']} expired on {rx['expires_on']}; the prescriber must write a new prescription.")


def _chain(db: Db, rx_id: int) -> list[int]:
    """This prescription and the ones it was transferred from."""
    ids = [rx_id]
    while True:
        prev = db.value("SELECT transferred_from_id FROM prescriptions WHERE id = ?", (ids[-1],))
        if prev is None:
            return ids
        ids.append(prev)


def _counted_fills(db: Db, rx_id: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in _chain(db, rx_id):
        out += db.query("SELECT * FROM fills WHERE prescription_id = ? AND status IN ('queued', 'filled', 'picked_up')",
                        (i,))
    return sorted(out, key=lambda f: (f["filled_at"] or f["queued_at"], f["id"]))


def _copay(db: Db, patient: dict[str, Any], drug: dict[str, Any], quantity: int) -> tuple[int, str]:
    cash = drug["unit_price_cents"] * quantity
    if patient["plan_id"] is None:
        return cash, "no insurance on file: cash price"
    tier = db.one("SELECT t.*, p.code FROM plan_tiers t JOIN insurance_plans p ON p.id = t.plan_id "
                  "WHERE t.plan_id = ? AND t.tier = ?", (patient["plan_id"], drug["tier"]))
    if tier is None or not tier["covered"]:
        return cash, f"tier {drug['tier']} not covered by the plan: cash price"
    if tier["copay_cents"] > cash:
        return cash, f"tier {drug['tier']} copay is above the cash price, so the cash price applies"
    return tier["copay_cents"], f"tier {drug['tier']} copay of plan {tier['code']}"


def _rx_copay(db: Db, rx: dict[str, Any]) -> tuple[int, str]:
    """What the prescription's patient pays for one fill of it, and why."""
    return _copay(db, _patient(db, rx["patient_id"]), rx, rx["quantity"])


def _safety(db: Db, rx: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(blocking problems, warnings) of dispensing this prescription to its patient."""
    problems: list[str] = []
    warnings: list[str] = []
    allergy = db.one("SELECT * FROM patient_allergies WHERE patient_id = ? AND drug_class = ?",
                     (rx["patient_id"], rx["drug_class"]))
    if allergy:
        problems.append(f"patient is allergic to {allergy['drug_class']} ({allergy['severity']}: {allergy['reaction'] or 'no reaction noted'})")
    others = db.query(
        "SELECT r.rx_number, d.name, d.strength, d.drug_class FROM prescriptions r JOIN drugs d ON d.id = r.drug_id "
        "WHERE r.patient_id = ? AND r.id <> ? AND r.status = 'active' AND r.expires_on >= ? ORDER BY r.id",
        (rx["patient_id"], rx["id"], _today(db)))
    for o in others:
        a, b = sorted((rx["drug_class"], o["drug_class"]))
        hit = db.one("SELECT * FROM drug_interactions WHERE class_a = ? AND class_b = ?", (a, b))
        if hit is None:
            continue
        msg = f"{hit['severity']} interaction with {o['rx_number']} ({o['name']} {o['strength']}): {hit['description']}"
        (problems if hit["severity"] == "major" else warnings).append(msg)
    return problems, warnings


def _eligibility(db: Db, rx: dict[str, Any]) -> dict[str, Any]:
    problems, warnings = _safety(db, rx)
    fills = _counted_fills(db, rx["id"])
    open_fill = next((f for f in fills if f["status"] in ("queued", "filled") and f["prescription_id"] == rx["id"]), None)
    if open_fill:
        problems.append(f"fill {open_fill['id']} is already {open_fill['status']}; finish or cancel it first")
    earliest = None
    if fills:
        if rx["refills_remaining"] <= 0:
            problems.append("no refills remaining; the prescriber must authorise a new prescription")
        last = fills[-1]
        last_day = date.fromisoformat((last["filled_at"] or last["queued_at"])[:10])
        earliest = last_day + timedelta(days=math.ceil(EARLY_REFILL_SHARE * rx["days_supply"]))
        if earliest > db.today() and not open_fill:
            problems.append(f"too early to refill: the last fill was on {last_day.isoformat()} for "
                            f"{rx['days_supply']} days, so the next one is due on {earliest.isoformat()}")
    return {"problems": problems, "warnings": warnings, "fill_number": len(fills), "uses_refill": bool(fills),
            "earliest_refill_date": earliest.isoformat() if earliest else None}


def _fill(db: Db, fill_id: int) -> dict[str, Any]:
    return db.one("SELECT f.*, r.rx_number, r.patient_id, r.drug_id, s.name AS store_name FROM fills f "
                  "JOIN prescriptions r ON r.id = f.prescription_id JOIN stores s ON s.id = f.store_id WHERE f.id = ?",
                  (fill_id,),
                  missing=f"No fill with id {fill_id}. Use get_prescription or list_fills to find fill ids.")


def _close_fill(db: Db, f: dict[str, Any], status: str) -> bool:
    """Close a fill as ``status``; a refill it used goes back to the prescription (whether one did)."""
    db.execute("UPDATE fills SET status = ?, closed_at = ? WHERE id = ?", (status, _now(db), f["id"]))
    if f["fill_number"] > 0:
        db.execute("UPDATE prescriptions SET refills_remaining = refills_remaining + 1 WHERE id = ?",
                   (f["prescription_id"],))
    return f["fill_number"] > 0


def _has_open_fill(db: Db, rx_id: int) -> bool:
    """Whether a fill of the prescription is queued or waiting for pickup."""
    return bool(db.value("SELECT 1 FROM fills WHERE prescription_id = ? AND status IN ('queued', 'filled')", (rx_id,)))


def _fill_out(f: dict[str, Any]) -> dict[str, Any]:
    return {k: f.get(k) for k in ("id", "rx_number", "fill_number", "quantity", "status", "lot_id", "queued_at",
                                  "filled_at", "picked_up_at", "closed_at")} | {"copay": dollars(f["copay_cents"])}


def _order(db: Db, order_id: int) -> dict[str, Any]:
    return db.one("SELECT o.*, s.name AS supplier_name, s.min_order_units FROM stock_orders o "
                  "JOIN suppliers s ON s.id = o.supplier_id WHERE o.id = ?", (order_id,),
                  missing=f"No stock order with id {order_id}. Use list_stock_orders to find it.")


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def list_stores(db: Db) -> list[dict]:
    """List the chain's stores with their codes, cities and phone numbers."""
    return db.query("SELECT code, name, city, phone FROM stores ORDER BY code")


@tool
def list_staff(db: Db, store_code: str, role: Literal["pharmacist", "technician", "manager"] | None = None,
               limit: int = 20) -> list[dict]:
    """List the staff of one store (active and former).

    Args:
        store_code: the store's code, e.g. "S01".
        role: only staff with this role.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    s = _store(db, store_code)
    where, params = filters(("role = ?", role))
    return db.query("SELECT full_name, email, role, license_no, is_active FROM staff WHERE store_id = ? "
                    f"AND {where} ORDER BY role, full_name LIMIT ?", (s["id"], *params, limit))


@tool
def find_patients(db: Db, query: str, date_of_birth: str | None = None, limit: int = 10) -> list[dict]:
    """Find patients by part of their name, e-mail or phone number.

    Args:
        query: words of the name, or an e-mail / phone fragment.
        date_of_birth: only patients born on this date (YYYY-MM-DD), to tell namesakes apart.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    if not query.strip():
        raise ToolError("query must not be empty; give part of the patient's name, e-mail or phone.")
    if date_of_birth is not None:
        _date(date_of_birth, "date_of_birth")
    who, params = like_any(query.strip(), "lower(p.full_name)", "lower(coalesce(p.email, ''))",
                           "coalesce(p.phone, '')", lower=True)
    where, filter_params = filters(("p.date_of_birth = ?", date_of_birth))
    return db.query("SELECT p.id, p.full_name, p.date_of_birth, p.email, p.phone, s.code AS home_store "
                    "FROM patients p JOIN stores s ON s.id = p.home_store_id "
                    f"WHERE {who} AND {where} ORDER BY p.full_name, p.id LIMIT ?", (*params, *filter_params, limit))


@tool
def get_patient(db: Db, patient_id: int) -> dict:
    """A patient's profile: contact details, home store, insurance plan with tier copays, and allergies.

    Args:
        patient_id: the patient's id (from find_patients).
    """
    p = _patient(db, patient_id)
    out = {k: p[k] for k in ("id", "full_name", "date_of_birth", "email", "phone", "member_id")}
    out["home_store"] = db.value("SELECT code FROM stores WHERE id = ?", (p["home_store_id"],))
    if p["plan_id"]:
        plan = db.one("SELECT code, name, payer FROM insurance_plans WHERE id = ?", (p["plan_id"],))
        plan["tiers"] = [{"tier": t["tier"], "covered": bool(t["covered"]), "copay": dollars(t["copay_cents"])}
                         for t in db.query("SELECT * FROM plan_tiers WHERE plan_id = ? ORDER BY tier", (p["plan_id"],))]
        out["plan"] = plan
    else:
        out["plan"] = None
    out["allergies"] = db.query("SELECT drug_class, severity, reaction FROM patient_allergies WHERE patient_id = ? "
                                "ORDER BY drug_class", (patient_id,))
    return out


@tool
def search_drugs(db: Db, query: str, rx_only: bool | None = None, limit: int = 10) -> list[dict]:
    """Search the drug catalogue by brand or generic name or therapeutic class.

    Args:
        query: words of the name, generic name or class, e.g. "lisinopril" or "statins".
        rx_only: true for prescription drugs only, false for over-the-counter products only.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    what, params = like_any(query.strip(), "lower(name)", "lower(generic_name)", "lower(drug_class)", lower=True)
    where, filter_params = filters(("rx_only = ?", None if rx_only is None else int(rx_only)))
    rows = db.query("SELECT ndc, name, generic_name, strength, form, drug_class, schedule, rx_only, tier, "
                    f"unit_price_cents FROM drugs WHERE {what} AND {where} ORDER BY name, strength LIMIT ?",
                    (*params, *filter_params, limit))
    for r in rows:
        r["rx_only"] = bool(r["rx_only"])
        r["unit_price"] = dollars(r.pop("unit_price_cents"))
    return rows


@tool
def get_drug(db: Db, ndc: str) -> dict:
    """A drug's details: class, controlled-substance schedule (0 = not controlled), tier, price, supplier, the
    per-sale limit of over-the-counter products, and the interactions of its class.

    Args:
        ndc: the drug's NDC, e.g. "50037-153-11".
    """
    d = _drug(db, ndc)
    out = {k: d[k] for k in ("ndc", "name", "generic_name", "strength", "form", "drug_class", "schedule", "tier",
                             "max_units_per_sale")}
    out["rx_only"] = bool(d["rx_only"])
    out["unit_price"] = dollars(d["unit_price_cents"])
    out["supplier"] = db.one("SELECT id, name, lead_time_days, min_order_units FROM suppliers WHERE id = ?",
                             (d["supplier_id"],))
    out["interactions"] = db.query(
        "SELECT CASE WHEN class_a = ? THEN class_b ELSE class_a END AS with_class, severity, description "
        "FROM drug_interactions WHERE class_a = ? OR class_b = ? ORDER BY severity, with_class",
        (d["drug_class"], d["drug_class"], d["drug_class"]))
    return out


@tool
def check_stock(db: Db, store_code: str, ndc: str) -> dict:
    """The lots of one drug at one store: each lot's number, expiry date, quantity and whether it is usable
    (not expired: its expiry date is after today, and not disposed), first-expiring first, with the total
    usable quantity.

    Args:
        store_code: the store's code, e.g. "S01".
        ndc: the drug's NDC.
    """
    s = _store(db, store_code)
    d = _drug(db, ndc)
    today = _today(db)
    lots = db.query("SELECT id AS lot_id, lot_number, expiry_date, quantity, received_on, disposed_at FROM inventory_lots "
                    "WHERE store_id = ? AND drug_id = ? ORDER BY expiry_date, id", (s["id"], d["id"]))
    for lot in lots:
        lot["usable"] = lot["disposed_at"] is None and lot["expiry_date"] > today
    return {"store": s["code"], "drug": f"{d['name']} {d['strength']} {d['form']}", "lots": lots,
            "usable_quantity": sum(lot["quantity"] for lot in lots if lot["usable"]),
            "expired_quantity_awaiting_disposal": sum(lot["quantity"] for lot in lots
                                                      if not lot["usable"] and lot["disposed_at"] is None)}


@tool
def list_prescriptions(db: Db, patient_id: int, status: RxStatus | None = None, limit: int = 20) -> list[dict]:
    """List a patient's prescriptions, newest first.

    Args:
        patient_id: the patient's id (from find_patients).
        status: only prescriptions with this status (active, transferred, discontinued). An active prescription
            may still be past its expiry date; compare expires_on with today.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    _patient(db, patient_id)
    where, params = filters(("r.status = ?", status))
    return db.query("SELECT r.rx_number, d.name AS drug, d.strength, d.form, s.code AS store, r.status, "
                    "r.refills_remaining, r.written_on, r.expires_on FROM prescriptions r "
                    "JOIN drugs d ON d.id = r.drug_id JOIN stores s ON s.id = r.store_id "
                    f"WHERE r.patient_id = ? AND {where} ORDER BY r.written_on DESC, r.id DESC LIMIT ?",
                    (patient_id, *params, limit))


@tool
def get_prescription(db: Db, rx_number: str) -> dict:
    """A prescription in full: patient, prescriber, drug, quantity and days supply, refills, dates, status,
    its fills (latest ten), scheduled reminders and where it was transferred from or to.

    Args:
        rx_number: the Rx number, e.g. "RX600123".
    """
    rx = _rx(db, rx_number)
    out = {k: rx[k] for k in ("rx_number", "patient_id", "patient_name", "drug_name", "strength", "form", "ndc",
                              "schedule", "quantity", "days_supply", "directions", "refills_authorized",
                              "refills_remaining", "written_on", "expires_on", "status", "status_reason", "store_code")}
    out["prescriber"] = db.one("SELECT full_name, npi, specialty, phone FROM prescribers WHERE id = ?",
                               (rx["prescriber_id"],))
    out["fills"] = [_fill_out(f) for f in db.query(
        "SELECT f.*, r.rx_number FROM fills f JOIN prescriptions r ON r.id = f.prescription_id "
        "WHERE f.prescription_id = ? ORDER BY f.id DESC LIMIT 10", (rx["id"],))]
    out["reminders"] = db.query("SELECT id, remind_on, channel, status FROM refill_reminders WHERE prescription_id = ? "
                                "ORDER BY remind_on DESC LIMIT 10", (rx["id"],))
    out["transferred_from"] = db.value("SELECT rx_number FROM prescriptions WHERE id = ?", (rx["transferred_from_id"],))
    out["transferred_to"] = db.value("SELECT p.rx_number FROM transfers t JOIN prescriptions p ON p.id = t.to_prescription_id "
                                     "WHERE t.from_prescription_id = ?", (rx["id"],))
    return out


@tool
def check_fill_eligibility(db: Db, rx_number: str) -> dict:
    """Check, without changing anything, whether a prescription can be queued for its next fill today: status
    and expiry, an open fill, refills left, the early-refill window (a refill is due once 75% of the last
    fill's days supply has passed), allergies and drug interactions with the patient's other valid
    prescriptions ('major' ones block, 'moderate' ones only warn), and the copay the patient would pay.

    Args:
        rx_number: the Rx number, e.g. "RX600123".
    """
    rx = _rx(db, rx_number)
    problems: list[str] = []
    try:
        _usable_rx(db, rx)
    except ToolError as e:
        problems.append(str(e))
    e = _eligibility(db, rx)
    copay, basis = _rx_copay(db, rx)
    return {"rx_number": rx["rx_number"], "eligible": not (problems + e["problems"]),
            "problems": problems + e["problems"], "warnings": e["warnings"],
            "next_fill_number": e["fill_number"], "uses_a_refill": e["uses_refill"],
            "refills_remaining": rx["refills_remaining"], "earliest_refill_date": e["earliest_refill_date"],
            "copay": dollars(copay), "copay_basis": basis}


@tool
def quote_copay(db: Db, rx_number: str) -> dict:
    """What the patient pays for one fill of a prescription: the plan's copay for the drug's tier, or the cash
    price (unit price x quantity) when the patient has no plan, the tier is not covered, or the copay would
    exceed the cash price.

    Args:
        rx_number: the Rx number, e.g. "RX600123".
    """
    rx = _rx(db, rx_number)
    copay, basis = _rx_copay(db, rx)
    return {"rx_number": rx["rx_number"], "drug": f"{rx['drug_name']} {rx['strength']}", "tier": rx["tier"],
            "quantity": rx["quantity"], "cash_price": dollars(rx["unit_price_cents"] * rx["quantity"]),
            "copay": dollars(copay), "basis": basis}


@tool
def list_fills(db: Db, store_code: str, status: FillStatus | None = None, limit: int = 20) -> list[dict]:
    """List fills at a store, newest first, e.g. the pickup shelf (status 'filled').

    Args:
        store_code: the store's code, e.g. "S01".
        status: only fills with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    s = _store(db, store_code)
    where, params = filters(("f.status = ?", status))
    rows = db.query("SELECT f.*, r.rx_number, p.full_name AS patient FROM fills f "
                    "JOIN prescriptions r ON r.id = f.prescription_id JOIN patients p ON p.id = r.patient_id "
                    f"WHERE f.store_id = ? AND {where} ORDER BY f.queued_at DESC, f.id DESC LIMIT ?",
                    (s["id"], *params, limit))
    return [_fill_out(f) | {"patient": f["patient"]} for f in rows]


@tool
def find_prescribers(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Find prescribers by part of their name, NPI or specialty.

    Args:
        query: words of the name, the NPI or a specialty.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "lower(full_name)", "npi", "lower(specialty)", lower=True)
    rows = db.query("SELECT full_name, npi, specialty, phone, dea_number IS NOT NULL AS can_prescribe_controlled "
                    f"FROM prescribers WHERE {who} ORDER BY full_name LIMIT ?", (*params, limit))
    for r in rows:
        r["can_prescribe_controlled"] = bool(r["can_prescribe_controlled"])
    return rows


@tool
def list_insurance_plans(db: Db) -> list[dict]:
    """List the insurance plans the chain accepts, with each tier's copay (null when the tier is not covered)."""
    plans = db.query("SELECT id, code, name, payer FROM insurance_plans ORDER BY code")
    for p in plans:
        p["tiers"] = {str(t["tier"]): dollars(t["copay_cents"]) for t in
                      db.query("SELECT tier, copay_cents FROM plan_tiers WHERE plan_id = ? ORDER BY tier", (p.pop("id"),))}
    return plans


@tool
def list_pharmacist_notes(db: Db, patient_id: int, limit: int = 10) -> list[dict]:
    """List the pharmacist notes on a patient's record, newest first.

    Args:
        patient_id: the patient's id.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    _patient(db, patient_id)
    return db.query("SELECT n.id, n.body, n.created_at, s.full_name AS author, r.rx_number FROM pharmacist_notes n "
                    "JOIN staff s ON s.id = n.author_id LEFT JOIN prescriptions r ON r.id = n.prescription_id "
                    "WHERE n.patient_id = ? ORDER BY n.created_at DESC, n.id DESC LIMIT ?", (patient_id, limit))


@tool
def list_stock_orders(db: Db, store_code: str, status: OrderStatus | None = None, limit: int = 10) -> list[dict]:
    """List a store's stock orders to suppliers, newest first, with their lines.

    Args:
        store_code: the store's code, e.g. "S01".
        status: only orders with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    s = _store(db, store_code)
    where, params = filters(("o.status = ?", status))
    orders = db.query("SELECT o.id, o.status, su.name AS supplier, o.created_at, o.submitted_at, o.closed_at "
                      "FROM stock_orders o JOIN suppliers su ON su.id = o.supplier_id WHERE o.store_id = ? "
                      f"AND {where} ORDER BY o.created_at DESC, o.id DESC LIMIT ?", (s["id"], *params, limit))
    for o in orders:
        o["lines"] = db.query("SELECT l.id, d.ndc, d.name, d.strength, l.quantity FROM stock_order_lines l "
                              "JOIN drugs d ON d.id = l.drug_id WHERE l.order_id = ? ORDER BY l.id", (o["id"],))
    return orders


@tool
def list_otc_sales(db: Db, store_code: str, date_from: str | None = None, date_to: str | None = None,
                   limit: int = 20) -> list[dict]:
    """List over-the-counter sales at a store, newest first.

    Args:
        store_code: the store's code, e.g. "S01".
        date_from: only sales on or after this date (YYYY-MM-DD).
        date_to: only sales on or before this date (YYYY-MM-DD).
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    s = _store(db, store_code)
    lo = _date(date_from, "date_from").isoformat() if date_from else None
    hi = _date(date_to, "date_to").isoformat() if date_to else None
    where, params = filters(("substr(o.sold_at, 1, 10) >= ?", lo), ("substr(o.sold_at, 1, 10) <= ?", hi))
    rows = db.query("SELECT o.id, d.name, d.ndc, o.quantity, o.total_cents, o.sold_at, st.full_name AS sold_by "
                    "FROM otc_sales o JOIN drugs d ON d.id = o.drug_id JOIN staff st ON st.id = o.staff_id "
                    f"WHERE o.store_id = ? AND {where} ORDER BY o.sold_at DESC, o.id DESC LIMIT ?",
                    (s["id"], *params, limit))
    for r in rows:
        r["total"] = dollars(r.pop("total_cents"))
    return rows


# ----------------------------------------------------------------------------------------------
# write tools: fills
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def queue_fill(db: Db, rx_number: str, actor_email: str) -> dict:
    """Queue the next fill of a prescription at its store (the original fill, or a refill that uses one of the
    refills remaining). Refused when the prescription is not active or has expired, already has a queued or
    filled fill, has no refills left, is too early to refill (less than 75% of the last fill's days supply
    has passed), the patient is allergic to the drug's class, or it has a 'major' interaction with another of
    the patient's valid prescriptions. The copay is fixed when the fill is queued.

    Args:
        rx_number: the Rx number, e.g. "RX600123".
        actor_email: e-mail of the pharmacist or technician queueing it; they must work at the prescription's store.
    """
    rx = _rx(db, rx_number)
    actor = _staff(db, actor_email, ("pharmacist", "technician"), "queue prescriptions")
    _at_store(actor, rx["store_id"], db, "queue this prescription (transfer it first if the patient moved)")
    _usable_rx(db, rx)
    e = _eligibility(db, rx)
    if e["problems"]:
        raise ToolError(f"Cannot queue {rx['rx_number']}: " + "; ".join(e["problems"]) + ".")
    copay, basis = _rx_copay(db, rx)
    fid = db.insert("fills", {"prescription_id": rx["id"], "store_id": rx["store_id"], "fill_number": e["fill_number"],
                              "quantity": rx["quantity"], "status": "queued", "copay_cents": copay, "lot_id": None,
                              "queued_by": actor["id"], "pharmacist_id": None, "queued_at": _now(db)})
    if e["uses_refill"]:
        db.execute("UPDATE prescriptions SET refills_remaining = refills_remaining - 1 WHERE id = ?", (rx["id"],))
    return {"fill_id": fid, "rx_number": rx["rx_number"], "fill_number": e["fill_number"], "status": "queued",
            "copay": dollars(copay), "copay_basis": basis, "warnings": e["warnings"],
            "refills_remaining": rx["refills_remaining"] - (1 if e["uses_refill"] else 0)}


@tool(write=True)
def fill_prescription(db: Db, fill_id: int, pharmacist_email: str) -> dict:
    """Verify and fill a queued fill: the units are taken from the store's usable lot of the drug that expires
    first and holds the whole quantity (expired or disposed lots are never used). Refused when the fill is not
    queued, the prescription is no longer valid, or no single usable lot holds enough units.

    Args:
        fill_id: the fill's id.
        pharmacist_email: e-mail of the pharmacist verifying it; they must work at the fill's store.
    """
    f = _fill(db, fill_id)
    actor = _staff(db, pharmacist_email, ("pharmacist",), "verify and fill prescriptions")
    _at_store(actor, f["store_id"], db, "fill it")
    if f["status"] != "queued":
        raise ToolError(f"Fill {fill_id} is {f['status']}; only a queued fill can be filled.")
    rx = _rx(db, f["rx_number"])
    _usable_rx(db, rx)
    lot = db.one("SELECT * FROM inventory_lots WHERE store_id = ? AND drug_id = ? AND disposed_at IS NULL "
                 "AND expiry_date > ? AND quantity >= ? ORDER BY expiry_date, id LIMIT 1",
                 (f["store_id"], f["drug_id"], _today(db), f["quantity"]))
    if lot is None:
        usable = db.value("SELECT COALESCE(SUM(quantity), 0) FROM inventory_lots WHERE store_id = ? AND drug_id = ? "
                          "AND disposed_at IS NULL AND expiry_date > ?", (f["store_id"], f["drug_id"], _today(db)))
        raise ToolError(f"No usable lot at {f['store_name']} holds {f['quantity']} units of {rx['drug_name']} "
                        f"{rx['strength']} (usable units in all lots: {usable}). Order stock, or transfer the "
                        "prescription to a store that has it.")
    db.execute("UPDATE inventory_lots SET quantity = quantity - ? WHERE id = ?", (f["quantity"], lot["id"]))
    db.execute("UPDATE fills SET status = 'filled', lot_id = ?, pharmacist_id = ?, filled_at = ? WHERE id = ?",
               (lot["id"], actor["id"], _now(db), fill_id))
    return {"fill_id": fill_id, "status": "filled", "lot_number": lot["lot_number"], "lot_expiry": lot["expiry_date"],
            "quantity": f["quantity"], "copay": dollars(f["copay_cents"])}


@tool(write=True)
def mark_picked_up(db: Db, fill_id: int, actor_email: str) -> dict:
    """Record that the patient collected a filled prescription (filled -> picked_up).

    Args:
        fill_id: the fill's id.
        actor_email: e-mail of the staff member at the counter; they must work at the fill's store.
    """
    f = _fill(db, fill_id)
    _staff_at(db, actor_email, f["store_id"], "hand it out")
    if f["status"] != "filled":
        raise ToolError(f"Fill {fill_id} is {f['status']}; only a filled prescription can be picked up.")
    db.execute("UPDATE fills SET status = 'picked_up', picked_up_at = ? WHERE id = ?", (_now(db), fill_id))
    return {"fill_id": fill_id, "status": "picked_up", "copay_due": dollars(f["copay_cents"])}


@tool(write=True)
def return_fill_to_stock(db: Db, fill_id: int, actor_email: str) -> dict:
    """Put an uncollected filled prescription back on the shelf (filled -> returned_to_stock): its units go back
    to the lot they came from and, if it was a refill, the refill is given back to the prescription. Allowed
    only once the fill has waited at least 7 days since it was filled.

    Args:
        fill_id: the fill's id.
        actor_email: e-mail of the staff member; they must work at the fill's store.
    """
    f = _fill(db, fill_id)
    _staff_at(db, actor_email, f["store_id"], "return it to stock")
    if f["status"] != "filled":
        raise ToolError(f"Fill {fill_id} is {f['status']}; only a filled, uncollected prescription can go back to stock.")
    filled = date.fromisoformat(f["filled_at"][:10])
    if (db.today() - filled).days < RETURN_AFTER_DAYS:
        raise ToolError(f"Fill {fill_id} was filled on {filled.isoformat()}; it can go back to stock only after "
                        f"{RETURN_AFTER_DAYS} days uncollected, from {(filled + timedelta(days=RETURN_AFTER_DAYS)).isoformat()}.")
    lot = db.one("SELECT * FROM inventory_lots WHERE id = ?", (f["lot_id"],))
    if lot["disposed_at"] is not None:
        raise ToolError(f"Lot {lot['lot_number']} has been disposed of; these units cannot go back to stock.")
    db.execute("UPDATE inventory_lots SET quantity = quantity + ? WHERE id = ?", (f["quantity"], lot["id"]))
    restored = _close_fill(db, f, "returned_to_stock")
    return {"fill_id": fill_id, "status": "returned_to_stock", "lot_number": lot["lot_number"],
            "units_restocked": f["quantity"], "refill_restored": restored}


@tool(write=True)
def cancel_fill(db: Db, fill_id: int, actor_email: str) -> dict:
    """Cancel a queued fill that has not been filled yet; a refill it used is given back to the prescription.

    Args:
        fill_id: the fill's id.
        actor_email: e-mail of the pharmacist or technician; they must work at the fill's store.
    """
    f = _fill(db, fill_id)
    actor = _staff(db, actor_email, ("pharmacist", "technician"), "cancel fills")
    _at_store(actor, f["store_id"], db, "cancel it")
    if f["status"] != "queued":
        hint = " Use return_fill_to_stock for an uncollected filled prescription." if f["status"] == "filled" else ""
        raise ToolError(f"Fill {fill_id} is {f['status']}; only a queued fill can be cancelled.{hint}")
    restored = _close_fill(db, f, "cancelled")
    return {"fill_id": fill_id, "status": "cancelled", "refill_restored": restored}


# ----------------------------------------------------------------------------------------------
# write tools: prescriptions
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def transfer_prescription(db: Db, rx_number: str, to_store_code: str, pharmacist_email: str) -> dict:
    """Transfer a prescription to another store of the chain. The receiving store gets a new prescription with a
    new Rx number and the refills that were left; the old one becomes 'transferred' and its scheduled reminders
    move to the new one. Refused for schedule II drugs, for controlled drugs (schedules III to V) that were
    already transferred once, for expired or inactive prescriptions, while a fill is queued or filled, and when
    nothing is left to fill.

    Args:
        rx_number: the Rx number to transfer.
        to_store_code: the receiving store's code, e.g. "S02".
        pharmacist_email: e-mail of a pharmacist of the receiving store, who takes the transfer.
    """
    rx = _rx(db, rx_number)
    to = _store(db, to_store_code)
    actor = _staff(db, pharmacist_email, ("pharmacist",), "take prescription transfers")
    _at_store(actor, to["id"], db, "receive a transfer into that store")
    _usable_rx(db, rx)
    if to["id"] == rx["store_id"]:
        raise ToolError(f"{rx['rx_number']} is already at {to['name']}.")
    if rx["schedule"] == 2:
        raise ToolError(f"{rx['drug_name']} is a schedule II controlled substance; its prescriptions cannot be "
                        "transferred. The patient needs a new prescription for the other store.")
    if rx["schedule"] and rx["transferred_from_id"] is not None:
        raise ToolError(f"{rx['rx_number']} is a controlled-substance prescription that was already transferred "
                        "once; it cannot be transferred again.")
    if _has_open_fill(db, rx["id"]):
        raise ToolError(f"{rx['rx_number']} has a fill queued or waiting for pickup; pick it up, return it to stock "
                        "or cancel it before transferring.")
    if _counted_fills(db, rx["id"]) and rx["refills_remaining"] <= 0:
        raise ToolError(f"{rx['rx_number']} has no refills left; there is nothing to transfer.")
    last = db.value("SELECT MAX(CAST(substr(rx_number, 3) AS INTEGER)) FROM prescriptions")
    new_number = f"RX{last + 1}"
    new_id = db.insert("prescriptions", {
        "rx_number": new_number, "patient_id": rx["patient_id"], "prescriber_id": rx["prescriber_id"],
        "drug_id": rx["drug_id"], "store_id": to["id"], "quantity": rx["quantity"], "days_supply": rx["days_supply"],
        "directions": rx["directions"], "refills_authorized": rx["refills_authorized"],
        "refills_remaining": rx["refills_remaining"], "written_on": rx["written_on"], "expires_on": rx["expires_on"],
        "status": "active", "status_reason": None, "transferred_from_id": rx["id"]})
    db.execute("UPDATE prescriptions SET status = 'transferred', status_reason = ? WHERE id = ?",
               (f"Transferred to store {to['code']}", rx["id"]))
    db.execute("UPDATE refill_reminders SET prescription_id = ? WHERE prescription_id = ? AND status = 'scheduled'",
               (new_id, rx["id"]))
    db.insert("transfers", {"from_prescription_id": rx["id"], "to_prescription_id": new_id,
                            "from_store_id": rx["store_id"], "to_store_id": to["id"], "pharmacist_id": actor["id"],
                            "transferred_at": _now(db)})
    return {"old_rx_number": rx["rx_number"], "new_rx_number": new_number, "store": to["code"],
            "refills_remaining": rx["refills_remaining"]}


@tool(write=True)
def discontinue_prescription(db: Db, rx_number: str, reason: str, pharmacist_email: str) -> dict:
    """Discontinue an active prescription (for example when the prescriber stops the therapy); its scheduled
    reminders are cancelled. Refused while a fill is queued or filled (cancel or return it first).

    Args:
        rx_number: the Rx number.
        reason: why it is discontinued, as the prescriber or patient said it.
        pharmacist_email: e-mail of a pharmacist of the prescription's store.
    """
    rx = _rx(db, rx_number)
    actor = _staff(db, pharmacist_email, ("pharmacist",), "discontinue prescriptions")
    _at_store(actor, rx["store_id"], db, "discontinue it")
    if rx["status"] != "active":
        raise ToolError(f"{rx['rx_number']} is {rx['status']}, not active.")
    if not reason.strip():
        raise ToolError("Give the reason for discontinuing the prescription.")
    if _has_open_fill(db, rx["id"]):
        raise ToolError(f"{rx['rx_number']} has a fill queued or waiting for pickup; cancel it or return it to stock first.")
    db.execute("UPDATE prescriptions SET status = 'discontinued', status_reason = ? WHERE id = ?", (reason.strip(), rx["id"]))
    n = db.execute("UPDATE refill_reminders SET status = 'cancelled' WHERE prescription_id = ? AND status = 'scheduled'",
                   (rx["id"],))
    return {"rx_number": rx["rx_number"], "status": "discontinued", "reminders_cancelled": n}


@tool(write=True)
def schedule_refill_reminder(db: Db, rx_number: str, remind_on: str, channel: Channel, actor_email: str) -> dict:
    """Schedule a refill reminder to the patient. The date must be after today and no later than the
    prescription's expiry; the prescription must be active with refills remaining and have no other scheduled
    reminder; an e-mail reminder needs the patient's e-mail, an SMS one their phone number.

    Args:
        rx_number: the Rx number.
        remind_on: the day to send it, YYYY-MM-DD.
        channel: "sms" or "email".
        actor_email: e-mail of a staff member of the prescription's store.
    """
    rx = _rx(db, rx_number)
    actor = _staff_at(db, actor_email, rx["store_id"], "schedule its reminders")
    _usable_rx(db, rx)
    day = _date(remind_on, "remind_on")
    if day <= db.today():
        raise ToolError(f"remind_on must be after today ({_today(db)}).")
    if day.isoformat() > rx["expires_on"]:
        raise ToolError(f"{rx['rx_number']} expires on {rx['expires_on']}; choose a reminder date on or before it.")
    if rx["refills_remaining"] <= 0:
        raise ToolError(f"{rx['rx_number']} has no refills remaining, so there is nothing to remind about.")
    existing = db.one("SELECT id, remind_on FROM refill_reminders WHERE prescription_id = ? AND status = 'scheduled'",
                      (rx["id"],))
    if existing:
        raise ToolError(f"{rx['rx_number']} already has reminder {existing['id']} scheduled for {existing['remind_on']}; "
                        "cancel it first to change the date.")
    patient = _patient(db, rx["patient_id"])
    if channel == "email" and not patient["email"]:
        raise ToolError(f"{patient['full_name']} has no e-mail address on file; use sms.")
    if channel == "sms" and not patient["phone"]:
        raise ToolError(f"{patient['full_name']} has no phone number on file; use email.")
    rid = db.insert("refill_reminders", {"prescription_id": rx["id"], "remind_on": day.isoformat(), "channel": channel,
                                         "status": "scheduled", "created_by": actor["id"], "created_at": _now(db)})
    return {"reminder_id": rid, "rx_number": rx["rx_number"], "remind_on": day.isoformat(), "channel": channel}


@tool(write=True)
def cancel_refill_reminder(db: Db, reminder_id: int, actor_email: str) -> dict:
    """Cancel a scheduled refill reminder.

    Args:
        reminder_id: the reminder's id (from get_prescription).
        actor_email: e-mail of a staff member of the prescription's store.
    """
    r = db.one("SELECT m.*, p.store_id, p.rx_number FROM refill_reminders m JOIN prescriptions p ON p.id = m.prescription_id "
               "WHERE m.id = ?", (reminder_id,),
               missing=f"No reminder with id {reminder_id}. get_prescription lists a prescription's reminders.")
    _staff_at(db, actor_email, r["store_id"], "cancel its reminders")
    if r["status"] != "scheduled":
        raise ToolError(f"Reminder {reminder_id} is {r['status']}; only a scheduled reminder can be cancelled.")
    db.execute("UPDATE refill_reminders SET status = 'cancelled' WHERE id = ?", (reminder_id,))
    return {"reminder_id": reminder_id, "rx_number": r["rx_number"], "status": "cancelled"}


# ----------------------------------------------------------------------------------------------
# write tools: patients
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def add_pharmacist_note(db: Db, patient_id: int, body: str, pharmacist_email: str, rx_number: str | None = None) -> dict:
    """Add a note to a patient's record, optionally about one of their prescriptions. Pharmacists only.

    Args:
        patient_id: the patient's id.
        body: the note, 1 to 2000 characters.
        pharmacist_email: e-mail of the pharmacist writing it.
        rx_number: the prescription the note is about, if any; it must be the patient's.
    """
    p = _patient(db, patient_id)
    actor = _staff(db, pharmacist_email, ("pharmacist",), "write pharmacist notes")
    if not 1 <= len(body.strip()) <= 2000:
        raise ToolError("The note must be 1 to 2000 characters long.")
    rx_id = None
    if rx_number is not None:
        rx = _rx(db, rx_number)
        require_owner(rx, "patient_id", patient_id,
                      f"{rx['rx_number']} belongs to another patient, not {p['full_name']}.")
        rx_id = rx["id"]
    nid = db.insert("pharmacist_notes", {"patient_id": patient_id, "prescription_id": rx_id, "author_id": actor["id"],
                                         "body": body.strip(), "created_at": _now(db)})
    return {"note_id": nid, "patient": p["full_name"]}


@tool(write=True)
def record_allergy(db: Db, patient_id: int, drug_class: str, severity: Severity, reaction: str,
                   pharmacist_email: str) -> dict:
    """Record a drug-class allergy on a patient's record; from then on fills of drugs of that class are blocked.
    The class must be one used in the catalogue (e.g. "penicillins", "sulfonamides", "nsaids"). Pharmacists only.

    Args:
        patient_id: the patient's id.
        drug_class: the drug class, as the catalogue names it (see search_drugs / get_drug).
        severity: "mild", "moderate" or "severe".
        reaction: the reaction the patient had, e.g. "hives".
        pharmacist_email: e-mail of the pharmacist recording it.
    """
    p = _patient(db, patient_id)
    actor = _staff(db, pharmacist_email, ("pharmacist",), "record allergies")
    cls = drug_class.strip().lower()
    if not db.value("SELECT 1 FROM drugs WHERE drug_class = ?", (cls,)):
        known = ", ".join(r["drug_class"] for r in db.query("SELECT DISTINCT drug_class FROM drugs ORDER BY drug_class"))
        raise ToolError(f"Unknown drug class {drug_class!r}. Known classes: {known}.")
    old = db.one("SELECT severity FROM patient_allergies WHERE patient_id = ? AND drug_class = ?", (patient_id, cls))
    if old:
        raise ToolError(f"{p['full_name']} already has a {old['severity']} allergy to {cls} on file.")
    db.insert("patient_allergies", {"patient_id": patient_id, "drug_class": cls, "severity": severity,
                                    "reaction": reaction.strip(), "recorded_by": actor["id"], "recorded_at": _now(db)})
    affected = db.query("SELECT r.rx_number FROM prescriptions r JOIN drugs d ON d.id = r.drug_id WHERE r.patient_id = ? "
                        "AND d.drug_class = ? AND r.status = 'active' ORDER BY r.id", (patient_id, cls))
    return {"patient": p["full_name"], "drug_class": cls, "severity": severity,
            "active_prescriptions_of_this_class": [r["rx_number"] for r in affected]}


@tool(write=True)
def update_patient_insurance(db: Db, patient_id: int, plan_code: str | None, member_id: str | None,
                             actor_email: str) -> dict:
    """Set or remove a patient's insurance plan. The member id must be the plan code followed by 8 digits
    (e.g. "EVB12345678"). The copays of the patient's queued (not yet filled) fills are recalculated.

    Args:
        patient_id: the patient's id.
        plan_code: the plan's code (see list_insurance_plans), or null to remove the insurance.
        member_id: the patient's member id on the plan; null when removing.
        actor_email: e-mail of any active staff member.
    """
    p = _patient(db, patient_id)
    _actor(db, actor_email)
    if plan_code is None:
        if member_id is not None:
            raise ToolError("Give no member_id when removing the insurance.")
        plan_id, member = None, None
    else:
        plan = db.one("SELECT * FROM insurance_plans WHERE upper(code) = upper(?)", (plan_code.strip(),),
                      missing=f"No plan with code {plan_code!r}; use list_insurance_plans.")
        member = (member_id or "").strip().upper()
        if not re.fullmatch(re.escape(plan["code"]) + r"\d{8}", member):
            raise ToolError(f"member_id must be {plan['code']} followed by 8 digits, e.g. {plan['code']}12345678.")
        plan_id = plan["id"]
    if plan_id == p["plan_id"] and member == p["member_id"]:
        raise ToolError(f"{p['full_name']} already has exactly this insurance on file.")
    db.execute("UPDATE patients SET plan_id = ?, member_id = ? WHERE id = ?", (plan_id, member, patient_id))
    p = _patient(db, patient_id)
    changed = []
    for f in db.query("SELECT f.id, f.quantity, r.drug_id FROM fills f JOIN prescriptions r ON r.id = f.prescription_id "
                      "WHERE r.patient_id = ? AND f.status = 'queued' ORDER BY f.id", (patient_id,)):
        drug = db.one("SELECT * FROM drugs WHERE id = ?", (f["drug_id"],))
        copay, _ = _copay(db, p, drug, f["quantity"])
        db.execute("UPDATE fills SET copay_cents = ? WHERE id = ?", (copay, f["id"]))
        changed.append({"fill_id": f["id"], "copay": dollars(copay)})
    return {"patient": p["full_name"], "plan_code": plan_code.upper() if plan_code else None, "member_id": member,
            "requoted_fills": changed}


# ----------------------------------------------------------------------------------------------
# write tools: store stock
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def sell_otc(db: Db, store_code: str, ndc: str, quantity: int, actor_email: str) -> dict:
    """Ring up an over-the-counter sale of one product. Units come from the store's usable lots, first-expiring
    first (expired lots are never sold). Refused for prescription-only drugs and above the product's per-sale
    limit (e.g. pseudoephedrine: 2).

    Args:
        store_code: the store's code.
        ndc: the product's NDC.
        quantity: number of packs, at least 1.
        actor_email: e-mail of a staff member of that store.
    """
    s = _store(db, store_code)
    d = _drug(db, ndc)
    actor = _staff_at(db, actor_email, s["id"], "sell there")
    if d["rx_only"]:
        raise ToolError(f"{d['name']} {d['strength']} is prescription-only; it can only be dispensed on a prescription.")
    if quantity < 1:
        raise ToolError("quantity must be at least 1.")
    if d["max_units_per_sale"] and quantity > d["max_units_per_sale"]:
        raise ToolError(f"At most {d['max_units_per_sale']} packs of {d['name']} may be sold in one sale.")
    lots = db.query("SELECT * FROM inventory_lots WHERE store_id = ? AND drug_id = ? AND disposed_at IS NULL "
                    "AND expiry_date > ? AND quantity > 0 ORDER BY expiry_date, id", (s["id"], d["id"], _today(db)))
    if sum(lot["quantity"] for lot in lots) < quantity:
        raise ToolError(f"{s['name']} has only {sum(lot['quantity'] for lot in lots)} usable packs of {d['name']}.")
    sale = db.insert("otc_sales", {"store_id": s["id"], "staff_id": actor["id"], "drug_id": d["id"], "quantity": quantity,
                                   "total_cents": quantity * d["unit_price_cents"], "sold_at": _now(db)})
    left = quantity
    used = []
    for lot in lots:
        if left == 0:
            break
        take = min(left, lot["quantity"])
        db.execute("UPDATE inventory_lots SET quantity = quantity - ? WHERE id = ?", (take, lot["id"]))
        db.insert("otc_sale_lots", {"sale_id": sale, "lot_id": lot["id"], "quantity": take})
        used.append({"lot_number": lot["lot_number"], "quantity": take})
        left -= take
    return {"sale_id": sale, "product": d["name"], "quantity": quantity,
            "total": dollars(quantity * d["unit_price_cents"]), "lots": used}


@tool(write=True)
def dispose_expired_lot(db: Db, lot_id: int, actor_email: str) -> dict:
    """Dispose of the units left in an expired lot (its quantity becomes 0). Only expired lots (expiry date on or
    before today) can be disposed; a pharmacist or the store manager of the lot's store does it, and only a
    pharmacist for controlled substances.

    Args:
        lot_id: the lot's id (from check_stock).
        actor_email: e-mail of the pharmacist or manager.
    """
    lot = db.one("SELECT l.*, d.name, d.schedule FROM inventory_lots l JOIN drugs d ON d.id = l.drug_id WHERE l.id = ?",
                 (lot_id,),
                 missing=f"No lot with id {lot_id}. check_stock lists a drug's lots at a store.")
    actor = _staff_at(db, actor_email, lot["store_id"], "dispose of its stock")
    require_role(actor, ("pharmacist",) if lot["schedule"] else ("pharmacist", "manager"),
                 "dispose of " + ("controlled substances" if lot["schedule"] else "stock"))
    if lot["disposed_at"] is not None:
        raise ToolError(f"Lot {lot['lot_number']} was already disposed of on {lot['disposed_at'][:10]}.")
    if lot["expiry_date"] > _today(db):
        raise ToolError(f"Lot {lot['lot_number']} expires on {lot['expiry_date']} and is still usable; only expired lots "
                        "are disposed of.")
    if lot["quantity"] == 0:
        raise ToolError(f"Lot {lot['lot_number']} is empty; there is nothing to dispose of.")
    db.execute("UPDATE inventory_lots SET quantity = 0, disposed_at = ? WHERE id = ?", (_now(db), lot_id))
    return {"lot_id": lot_id, "lot_number": lot["lot_number"], "units_disposed": lot["quantity"]}


@tool(write=True)
def create_stock_order(db: Db, store_code: str, supplier_name: str, actor_email: str) -> dict:
    """Open a draft stock order from a store to a supplier. A store keeps at most one draft per supplier.

    Args:
        store_code: the store's code.
        supplier_name: the supplier's name, e.g. "Cardinal Ridge Distribution" (get_drug names a drug's supplier).
        actor_email: e-mail of a staff member of that store.
    """
    s = _store(db, store_code)
    sup = db.one("SELECT * FROM suppliers WHERE lower(name) = lower(?)", (supplier_name.strip(),))
    if sup is None:
        names = ", ".join(r["name"] for r in db.query("SELECT name FROM suppliers ORDER BY name"))
        raise ToolError(f"No supplier named {supplier_name!r}. Suppliers: {names}.")
    actor = _staff_at(db, actor_email, s["id"], "order stock for it")
    draft = db.value("SELECT id FROM stock_orders WHERE store_id = ? AND supplier_id = ? AND status = 'draft'",
                     (s["id"], sup["id"]))
    if draft:
        raise ToolError(f"{s['name']} already has draft order {draft} with {sup['name']}; add lines to it instead.")
    oid = db.insert("stock_orders", {"store_id": s["id"], "supplier_id": sup["id"], "status": "draft",
                                     "created_by": actor["id"], "created_at": _now(db)})
    return {"order_id": oid, "store": s["code"], "supplier": sup["name"], "status": "draft",
            "min_units_per_line": sup["min_order_units"]}


@tool(write=True)
def add_order_line(db: Db, order_id: int, ndc: str, quantity: int, actor_email: str) -> dict:
    """Add a drug to a draft stock order. The drug must come from the order's supplier, each drug appears once per
    order, and a line must be at least the supplier's minimum order quantity.

    Args:
        order_id: the draft order's id.
        ndc: the drug's NDC.
        quantity: units to order.
        actor_email: e-mail of a staff member of the order's store.
    """
    o = _order(db, order_id)
    d = _drug(db, ndc)
    _staff_at(db, actor_email, o["store_id"], "change its orders")
    if o["status"] != "draft":
        raise ToolError(f"Order {order_id} is {o['status']}; only draft orders can be changed.")
    if d["supplier_id"] != o["supplier_id"]:
        other = db.value("SELECT name FROM suppliers WHERE id = ?", (d["supplier_id"],))
        raise ToolError(f"{d['name']} {d['strength']} comes from {other}, not {o['supplier_name']}; order it from {other}.")
    if quantity < o["min_order_units"]:
        raise ToolError(f"{o['supplier_name']} takes at least {o['min_order_units']} units per line.")
    db.none("SELECT 1 FROM stock_order_lines WHERE order_id = ? AND drug_id = ?", (order_id, d["id"]),
            found=f"{d['name']} {d['strength']} is already on order {order_id}.")
    lid = db.insert("stock_order_lines", {"order_id": order_id, "drug_id": d["id"], "quantity": quantity})
    return {"line_id": lid, "order_id": order_id, "drug": f"{d['name']} {d['strength']}", "quantity": quantity}


@tool(write=True)
def submit_stock_order(db: Db, order_id: int, actor_email: str) -> dict:
    """Send a draft stock order to its supplier (draft -> submitted). It needs at least one line; a pharmacist or
    the store manager submits it, and only a pharmacist when it contains schedule II drugs.

    Args:
        order_id: the draft order's id.
        actor_email: e-mail of a pharmacist or the manager of the order's store.
    """
    o = _order(db, order_id)
    actor = _staff_at(db, actor_email, o["store_id"], "submit its orders")
    require_role(actor, ("pharmacist", "manager"), "submit stock orders")
    if o["status"] != "draft":
        raise ToolError(f"Order {order_id} is {o['status']}; only a draft can be submitted.")
    lines = db.query("SELECT l.quantity, d.schedule FROM stock_order_lines l JOIN drugs d ON d.id = l.drug_id "
                     "WHERE l.order_id = ?", (order_id,))
    if not lines:
        raise ToolError(f"Order {order_id} has no lines; add at least one drug first.")
    if any(x["schedule"] == 2 for x in lines) and actor["role"] != "pharmacist":
        raise ToolError("The order contains schedule II drugs; a pharmacist must submit it.")
    db.execute("UPDATE stock_orders SET status = 'submitted', submitted_by = ?, submitted_at = ? WHERE id = ?",
               (actor["id"], _now(db), order_id))
    return {"order_id": order_id, "status": "submitted", "lines": len(lines),
            "units": sum(x["quantity"] for x in lines)}


@tool(write=True)
def cancel_stock_order(db: Db, order_id: int, actor_email: str) -> dict:
    """Cancel a draft or submitted stock order. The store manager may cancel any; a draft may also be cancelled
    by the person who created it.

    Args:
        order_id: the order's id.
        actor_email: e-mail of the store manager or the draft's creator.
    """
    o = _order(db, order_id)
    actor = _staff_at(db, actor_email, o["store_id"], "cancel its orders")
    if o["status"] not in ("draft", "submitted"):
        raise ToolError(f"Order {order_id} is {o['status']}; it can no longer be cancelled.")
    if actor["role"] != "manager" and not (o["status"] == "draft" and o["created_by"] == actor["id"]):
        raise ToolError("Only the store manager (or, for a draft, the person who created it) can cancel this order.")
    db.execute("UPDATE stock_orders SET status = 'cancelled', closed_at = ? WHERE id = ?", (_now(db), order_id))
    return {"order_id": order_id, "status": "cancelled"}
