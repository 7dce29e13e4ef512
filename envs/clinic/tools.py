"""Tools of the clinic environment: a multi-location medical clinic's front desk and billing.

Conventions: datetimes are ISO 'YYYY-MM-DDTHH:MM:SS' in clinic local time, dates 'YYYY-MM-DD',
money is integer cents. Appointments start on a quarter hour. Every write tool records an
audit_log row; appointment changes also record appointment_history rows.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, check_limit, filters, like_any, tool
from awm.tooling import iso_seconds as _fmt

# ---------------------------------------------------------------------------------------------
# constants and small helpers
# ---------------------------------------------------------------------------------------------

ISO = "%Y-%m-%dT%H:%M:%S"
SLOT_MINUTES = 15
LATE_CANCEL_HOURS = 24
CHECK_IN_EARLY_MINUTES = 60
INVOICE_DUE_DAYS = 30
MAX_SLOT_SEARCH_DAYS = 31
CONTROLLED_MAX_QUANTITY = 30
BLOCKING = ("scheduled", "checked_in", "completed")
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")


def _parse_dt(value: str, field: str) -> datetime:
    text = (value or "").strip().replace(" ", "T")
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        raise ToolError(f"{field} must be an ISO datetime such as '2026-03-05T10:00', got {value!r}") from None
    if dt.tzinfo is not None:
        dt = dt.replace(tzinfo=None)
    if len(text) <= 10:
        raise ToolError(f"{field} needs a time of day as well, e.g. '{text}T10:00'")
    return dt


def _parse_date(value: str, field: str) -> date:
    text = (value or "").strip()
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        raise ToolError(f"{field} must be an ISO date such as '2026-03-05', got {value!r}") from None


def _money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _date_window(
    db: Db, first_value: str, first_name: str, last_value: str, last_name: str, top_days: int, too_long: str
) -> tuple[date, date]:
    """Two days that bound a period: the first today or later, the last not before it, at most ``top_days`` apart."""
    first, last = _parse_date(first_value, first_name), _parse_date(last_value, last_name)
    if first < db.today():
        raise ToolError(f"{first_name} is in the past")
    if last < first:
        raise ToolError(f"{last_name} is before {first_name}")
    if (last - first).days > top_days:
        raise ToolError(too_long)
    return first, last


def _optional_search(text: str | None, *columns: str) -> tuple[str, list[str | None]]:
    """``like_any`` for a search the agent may leave out: one condition and its parameters, true for every row
    when ``text`` is None."""
    condition, params = like_any(text or "", *columns)
    pattern = None if text is None else params[0]
    return f"(? IS NULL OR {condition})", [pattern] * (len(params) + 1)


def _prac_name(row: dict[str, Any]) -> str:
    if row["credential"] in ("MD", "DO"):
        return f"Dr. {row['first_name']} {row['last_name']}"
    return f"{row['first_name']} {row['last_name']}, {row['credential']}"


def _age_on(dob: str, day: date) -> int:
    born = date.fromisoformat(dob)
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))


def _audit(db: Db, action: str, entity_type: str, entity_id: int, details: dict[str, Any]) -> None:
    db.insert(
        "audit_log",
        {
            "logged_at": _fmt(db.now()),
            "action": action,
            "entity_type": entity_type,
            "entity_id": entity_id,
            "details": json.dumps(details, sort_keys=True),
        },
    )


def _history(
    db: Db,
    appointment_id: int,
    event: str,
    *,
    old_start: str | None = None,
    new_start: str | None = None,
    old_prac: int | None = None,
    new_prac: int | None = None,
    note: str | None = None,
) -> None:
    db.insert(
        "appointment_history",
        {
            "appointment_id": appointment_id,
            "event": event,
            "old_starts_at": old_start,
            "new_starts_at": new_start,
            "old_practitioner_id": old_prac,
            "new_practitioner_id": new_prac,
            "note": note,
            "created_at": _fmt(db.now()),
        },
    )


def _patient(db: Db, patient_id: int) -> dict[str, Any]:
    return db.one("SELECT * FROM patients WHERE id = ?", (patient_id,),
                  missing=f"no patient with id {patient_id}; find the patient with search_patients first")


def _practitioner(db: Db, practitioner_id: int) -> dict[str, Any]:
    return db.one(
        "SELECT pr.*, s.name AS specialty, s.code AS specialty_code FROM practitioners pr "
        "JOIN specialties s ON s.id = pr.specialty_id WHERE pr.id = ?",
        (practitioner_id,),
        missing=f"no practitioner with id {practitioner_id}; use search_practitioners to find one",
    )


def _appt_type(db: Db, appointment_type_id: int) -> dict[str, Any]:
    return db.one(
        "SELECT t.*, s.name AS specialty FROM appointment_types t JOIN specialties s ON s.id = t.specialty_id "
        "WHERE t.id = ?",
        (appointment_type_id,),
        missing=f"no appointment type with id {appointment_type_id}; see list_appointment_types",
    )


def _appointment(db: Db, appointment_id: int) -> dict[str, Any]:
    return db.one("SELECT * FROM appointments WHERE id = ?", (appointment_id,),
                  missing=f"no appointment with id {appointment_id}; use list_appointments to find it")


def _appointment_in(db: Db, appointment_id: int, statuses: tuple[str, ...], rule: str) -> dict[str, Any]:
    """The appointment, refused unless its status is one of ``statuses`` (``rule`` says which may do what)."""
    appt = _appointment(db, appointment_id)
    if appt["status"] not in statuses:
        raise ToolError(f"appointment {appointment_id} is {appt['status']}; {rule}")
    return appt


def _clinic(db: Db, clinic_id: int) -> dict[str, Any]:
    return db.one("SELECT id FROM clinics WHERE id = ?", (clinic_id,),
                  missing=f"no clinic with id {clinic_id}; see list_clinics")


def _waitlist_entry(db: Db, waitlist_id: int) -> dict[str, Any]:
    return db.one("SELECT * FROM waitlist_entries WHERE id = ?", (waitlist_id,),
                  missing=f"no waitlist entry with id {waitlist_id}; see list_waitlist")


def _invoice(db: Db, invoice_number: str) -> dict[str, Any]:
    return db.one("SELECT * FROM invoices WHERE invoice_number = ?", (invoice_number.strip().upper(),),
                  missing=f"no invoice numbered {invoice_number!r}; list_invoices shows a patient's invoices")


def _paid_cents(db: Db, invoice_id: int) -> int:
    return int(db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM payments WHERE invoice_id = ?", (invoice_id,)))


def _balance_cents(db: Db, patient_id: int) -> int:
    return int(
        db.value(
            "SELECT COALESCE(SUM(i.patient_due_cents - COALESCE((SELECT SUM(p.amount_cents) FROM payments p "
            "WHERE p.invoice_id = i.id), 0)), 0) FROM invoices i WHERE i.patient_id = ? AND i.status != 'void'",
            (patient_id,),
        )
    )


def _policy_on(db: Db, patient_id: int, day: date) -> dict[str, Any] | None:
    return db.one(
        "SELECT pp.id, pp.member_id, pp.valid_from, pp.valid_to, ip.id AS plan_id, ip.plan_code, "
        "ip.name AS plan_name, ip.payer, ip.coverage_percent, ip.copay_cents, ip.active AS plan_active "
        "FROM patient_policies pp JOIN insurance_plans ip ON ip.id = pp.plan_id "
        "WHERE pp.patient_id = ? AND pp.valid_from <= ? AND (pp.valid_to IS NULL OR pp.valid_to >= ?) "
        "ORDER BY pp.valid_from DESC, pp.id DESC LIMIT 1",
        (patient_id, day.isoformat(), day.isoformat()),
    )


def _insurer_share(fee: int, copay_cents: int, coverage_percent: int) -> tuple[int, int]:
    """(copay, insurer's share) of a covered fee: the copay (capped at the fee), then coverage_percent of the
    remainder, rounded down to the cent."""
    copay = min(copay_cents, fee)
    return copay, (fee - copay) * coverage_percent // 100


def _coverage(db: Db, patient_id: int, atype: dict[str, Any], day: date) -> dict[str, Any]:
    """Split an appointment type's fee between insurer and patient for a visit on ``day``.

    Rule: with a policy valid on the visit day whose plan is active and does not exclude the type,
    the patient pays the plan's copay (capped at the fee) and the insurer pays coverage_percent of
    the remainder, rounded down to the cent; the patient owes everything the insurer does not pay.
    """
    fee = int(atype["fee_cents"])
    pol = _policy_on(db, patient_id, day)
    covered = 0
    if pol is None:
        note = f"no insurance policy valid on {day.isoformat()}: the patient pays the full fee"
    elif not pol["plan_active"]:
        note = f"plan {pol['plan_name']} is no longer active: the patient pays the full fee"
    elif db.value(
        "SELECT 1 FROM plan_exclusions WHERE plan_id = ? AND appointment_type_id = ?", (pol["plan_id"], atype["id"])
    ):
        note = f"{pol['plan_name']} does not cover {atype['name']}: the patient pays the full fee"
    else:
        copay, covered = _insurer_share(fee, int(pol["copay_cents"]), int(pol["coverage_percent"]))
        note = (
            f"{pol['plan_name']}: copay {_money(copay)}, then {pol['coverage_percent']}% of the remaining "
            f"{_money(fee - copay)} is covered"
        )
    return {
        "fee_cents": fee,
        "insurance_covered_cents": covered,
        "patient_due_cents": fee - covered,
        "policy_id": pol["id"] if pol else None,
        "plan": pol["plan_name"] if pol else None,
        "explanation": note,
    }


def _invoice_number(year: int, seq: int) -> str:
    return f"INV-{year}-{seq:04d}"


def _next_invoice_number(db: Db) -> str:
    top = db.value("SELECT MAX(CAST(substr(invoice_number, 10) AS INTEGER)) FROM invoices")
    return _invoice_number(db.today().year, int(top or 100) + 1)


def _create_invoice(
    db: Db,
    *,
    patient_id: int,
    appointment_id: int,
    kind: str,
    description: str,
    fee_cents: int,
    covered_cents: int = 0,
    policy_id: int | None = None,
) -> dict[str, Any]:
    number = _next_invoice_number(db)
    due = fee_cents - covered_cents
    status = "paid" if due == 0 else "issued"
    invoice_id = db.insert(
        "invoices",
        {
            "invoice_number": number,
            "patient_id": patient_id,
            "appointment_id": appointment_id,
            "policy_id": policy_id,
            "kind": kind,
            "issued_on": db.today().isoformat(),
            "due_on": (db.today() + timedelta(days=INVOICE_DUE_DAYS)).isoformat(),
            "subtotal_cents": fee_cents,
            "insurance_covered_cents": covered_cents,
            "patient_due_cents": due,
            "status": status,
        },
    )
    db.insert(
        "invoice_lines",
        {
            "invoice_id": invoice_id,
            "description": description,
            "quantity": 1,
            "unit_price_cents": fee_cents,
            "amount_cents": fee_cents,
        },
    )
    _audit(
        db,
        "invoice_issued",
        "invoice",
        invoice_id,
        {
            "invoice_number": number,
            "kind": kind,
            "appointment_id": appointment_id,
            "subtotal_cents": fee_cents,
            "insurance_covered_cents": covered_cents,
            "patient_due_cents": due,
        },
    )
    return {
        "invoice_id": invoice_id,
        "invoice_number": number,
        "kind": kind,
        "subtotal_cents": fee_cents,
        "insurance_covered_cents": covered_cents,
        "patient_due_cents": due,
        "status": status,
    }


def _fee_invoice(db: Db, appt: dict[str, Any], atype: dict[str, Any], kind: str, label: str) -> dict[str, Any]:
    """The appointment type's late-cancellation fee, billed to the patient (never covered by insurance)."""
    return _create_invoice(
        db,
        patient_id=appt["patient_id"],
        appointment_id=appt["id"],
        kind=kind,
        description=f"{label} - {atype['name']} {appt['starts_at'][:10]}",
        fee_cents=int(atype["late_cancel_fee_cents"]),
    )


# ---------------------------------------------------------------------------------------------
# scheduling engine (shared by find_available_slots, booking and rescheduling)
# ---------------------------------------------------------------------------------------------


class _Day:
    """Everything that blocks time on one calendar day, loaded once."""

    def __init__(self, db: Db, day: date):
        self.day = day
        lo, hi = day.isoformat() + "T00:00:00", (day + timedelta(days=1)).isoformat() + "T00:00:00"
        self.appts = db.query(
            "SELECT id, patient_id, practitioner_id, room_id, starts_at, ends_at FROM appointments "
            "WHERE starts_at < ? AND ends_at > ? AND status IN ('scheduled', 'checked_in', 'completed')",
            (hi, lo),
        )
        self.rooms = db.query("SELECT id, clinic_id, name, room_type FROM rooms WHERE active = 1 ORDER BY id")

    @staticmethod
    def _overlap(a: dict[str, Any], start: str, end: str) -> bool:
        return a["starts_at"] < end and a["ends_at"] > start

    def _clash(self, column: str, value: int, start: str, end: str, exclude: int | None) -> dict | None:
        return next(
            (a for a in self.appts if a[column] == value and a["id"] != exclude and self._overlap(a, start, end)),
            None,
        )

    def practitioner_conflict(self, prac_id: int, start: str, end: str, exclude: int | None) -> dict | None:
        return self._clash("practitioner_id", prac_id, start, end, exclude)

    def patient_conflict(self, patient_id: int, start: str, end: str, exclude: int | None) -> dict | None:
        return self._clash("patient_id", patient_id, start, end, exclude)

    def room_free(self, room_id: int, start: str, end: str, exclude: int | None) -> bool:
        return not any(
            a["room_id"] == room_id and a["id"] != exclude and self._overlap(a, start, end) for a in self.appts
        )

    def free_room(
        self, clinic_id: int, room_type: str, start: str, end: str, exclude: int | None, prefer: int | None = None
    ) -> dict | None:
        candidates = [r for r in self.rooms if r["clinic_id"] == clinic_id and r["room_type"] == room_type]
        candidates.sort(key=lambda r: (r["id"] != prefer, r["id"]))
        return next((r for r in candidates if self.room_free(r["id"], start, end, exclude)), None)


def _blocks(db: Db, prac_id: int, day: date) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """(working blocks on ``day`` as dicts with clinic_id/start/end datetimes, time-off row or None)."""
    off = db.one(
        "SELECT id, start_date, end_date, reason FROM time_off WHERE practitioner_id = ? "
        "AND start_date <= ? AND end_date >= ?",
        (prac_id, day.isoformat(), day.isoformat()),
    )
    rows = db.query(
        "SELECT w.clinic_id, c.name AS clinic, w.start_time, w.end_time FROM working_hours w "
        "JOIN clinics c ON c.id = w.clinic_id WHERE w.practitioner_id = ? AND w.weekday = ? "
        "ORDER BY w.start_time",
        (prac_id, day.weekday()),
    )
    blocks = [
        {
            "clinic_id": r["clinic_id"],
            "clinic": r["clinic"],
            "start": datetime.combine(day, datetime.strptime(r["start_time"], "%H:%M").time()),
            "end": datetime.combine(day, datetime.strptime(r["end_time"], "%H:%M").time()),
        }
        for r in rows
    ]
    return ([] if off else blocks), off


def _hours_text(blocks: list[dict[str, Any]]) -> str:
    return ", ".join(f"{b['start']:%H:%M}-{b['end']:%H:%M} at {b['clinic']}" for b in blocks) or "no hours"


def _qualify(prac: dict[str, Any], atype: dict[str, Any]) -> None:
    if not prac["active"]:
        raise ToolError(f"{_prac_name(prac)} no longer practises at the clinic; choose an active practitioner")
    if prac["specialty_id"] != atype["specialty_id"]:
        raise ToolError(
            f"{_prac_name(prac)} ({prac['specialty']}) does not perform '{atype['name']}', which "
            f"needs a {atype['specialty']} practitioner; use search_practitioners(specialty="
            f"'{atype['specialty']}')"
        )


def _eligible(patient: dict[str, Any], atype: dict[str, Any], day: date) -> None:
    if patient["status"] != "active":
        raise ToolError(
            f"patient {patient['first_name']} {patient['last_name']} is {patient['status']}; "
            "appointments can only be booked for active patients"
        )
    age = _age_on(patient["date_of_birth"], day)
    if atype["min_age"] is not None and age < atype["min_age"]:
        raise ToolError(f"'{atype['name']}' is for patients aged {atype['min_age']}+; the patient will be {age}")
    if atype["max_age"] is not None and age > atype["max_age"]:
        raise ToolError(
            f"'{atype['name']}' is for patients aged {atype['max_age']} or younger; the patient will be {age}"
        )


def _place(
    db: Db,
    *,
    patient: dict[str, Any],
    prac: dict[str, Any],
    atype: dict[str, Any],
    start: datetime,
    room_id: int | None,
    exclude: int | None,
    prefer_room: int | None = None,
) -> dict[str, Any]:
    """Validate a slot for booking/rescheduling; returns clinic_id, room_id, starts_at, ends_at."""
    if start <= db.now():
        raise ToolError(f"{_fmt(start)} is not in the future (it is now {_fmt(db.now())}); pick a later time")
    if start.minute % SLOT_MINUTES or start.second or start.microsecond:
        raise ToolError(f"appointments start on the quarter hour (:00, :15, :30, :45); {_fmt(start)} does not")
    _qualify(prac, atype)
    _eligible(patient, atype, start.date())
    end = start + timedelta(minutes=int(atype["duration_minutes"]))
    blocks, off = _blocks(db, prac["id"], start.date())
    name = _prac_name(prac)
    if off:
        raise ToolError(
            f"{name} is on time off from {off['start_date']} to {off['end_date']} ({off['reason']}); "
            "choose another day or practitioner"
        )
    block = next((b for b in blocks if b["start"] <= start and end <= b["end"]), None)
    if block is None:
        raise ToolError(
            f"{_fmt(start)}-{end:%H:%M} ({atype['duration_minutes']} min) is outside {name}'s working "
            f"hours on {WEEKDAYS[start.weekday()]} {start.date().isoformat()} "
            f"({_hours_text(blocks)}); use find_available_slots"
        )
    s, e = _fmt(start), _fmt(end)
    day = _Day(db, start.date())
    clash = day.practitioner_conflict(prac["id"], s, e, exclude)
    if clash:
        raise ToolError(
            f"{name} already has appointment {clash['id']} from {clash['starts_at'][11:16]} to "
            f"{clash['ends_at'][11:16]}; use find_available_slots to pick a free time"
        )
    clash = day.patient_conflict(patient["id"], s, e, exclude)
    if clash:
        raise ToolError(
            f"the patient already has appointment {clash['id']} from {clash['starts_at']} to "
            f"{clash['ends_at'][11:16]} that overlaps; pick another time"
        )
    if room_id is not None:
        room = db.one("SELECT * FROM rooms WHERE id = ?", (room_id,),
                      missing=f"no room with id {room_id}; list_rooms shows a clinic's rooms")
        if room["clinic_id"] != block["clinic_id"]:
            raise ToolError(f"room {room['name']} is not at {block['clinic']}, where {name} works at that time")
        if not room["active"]:
            raise ToolError(f"room {room['name']} is out of service; leave room_id empty to pick a free room")
        if room["room_type"] != atype["room_type"]:
            raise ToolError(
                f"'{atype['name']}' needs a room of type '{atype['room_type']}'; {room['name']} is of type "
                f"'{room['room_type']}'"
            )
        if not day.room_free(room_id, s, e, exclude):
            raise ToolError(f"room {room['name']} is taken at that time; leave room_id empty to pick a free room")
        chosen = room
    else:
        chosen = day.free_room(block["clinic_id"], atype["room_type"], s, e, exclude, prefer_room)
        if chosen is None:
            raise ToolError(
                f"no {atype['room_type']} room is free at {block['clinic']} from {s[11:16]} to "
                f"{e[11:16]}; use find_available_slots, which only lists times with a free room"
            )
    return {
        "clinic_id": block["clinic_id"],
        "clinic": block["clinic"],
        "room_id": chosen["id"],
        "room": chosen["name"],
        "starts_at": s,
        "ends_at": e,
    }


def _insert_appointment(
    db: Db,
    patient: dict[str, Any],
    prac: dict[str, Any],
    atype: dict[str, Any],
    place: dict[str, Any],
    reason: str | None,
    note: str,
) -> dict[str, Any]:
    appt_id = db.insert(
        "appointments",
        {
            "patient_id": patient["id"],
            "practitioner_id": prac["id"],
            "clinic_id": place["clinic_id"],
            "room_id": place["room_id"],
            "appointment_type_id": atype["id"],
            "starts_at": place["starts_at"],
            "ends_at": place["ends_at"],
            "status": "scheduled",
            "reason": reason,
            "booked_at": _fmt(db.now()),
        },
    )
    _history(db, appt_id, "booked", new_start=place["starts_at"], new_prac=prac["id"], note=note)
    _audit(
        db,
        "appointment_booked",
        "appointment",
        appt_id,
        {
            "patient_id": patient["id"],
            "practitioner_id": prac["id"],
            "appointment_type": atype["code"],
            "starts_at": place["starts_at"],
            "room_id": place["room_id"],
        },
    )
    return {
        "appointment_id": appt_id,
        "status": "scheduled",
        "patient": f"{patient['first_name']} {patient['last_name']}",
        "practitioner": _prac_name(prac),
        "appointment_type": atype["name"],
        "starts_at": place["starts_at"],
        "ends_at": place["ends_at"],
        "clinic": place["clinic"],
        "room": place["room"],
    }


_APPT_SELECT = (
    "SELECT a.id, a.starts_at, a.ends_at, a.status, a.reason, a.patient_id, "
    "p.first_name || ' ' || p.last_name AS patient, a.practitioner_id, "
    "CASE WHEN pr.credential IN ('MD', 'DO') THEN 'Dr. ' || pr.first_name || ' ' || pr.last_name "
    "ELSE pr.first_name || ' ' || pr.last_name || ', ' || pr.credential END AS practitioner, "
    "a.clinic_id, c.name AS clinic, a.room_id, r.name AS room, a.appointment_type_id, t.name AS appointment_type "
    "FROM appointments a JOIN patients p ON p.id = a.patient_id "
    "JOIN practitioners pr ON pr.id = a.practitioner_id JOIN clinics c ON c.id = a.clinic_id "
    "JOIN rooms r ON r.id = a.room_id JOIN appointment_types t ON t.id = a.appointment_type_id "
)


# ---------------------------------------------------------------------------------------------
# read tools: directory
# ---------------------------------------------------------------------------------------------


@tool
def list_clinics(db: Db) -> list[dict]:
    """List the clinic locations with their address, phone and number of active rooms.

    Args:
    """
    return db.query(
        "SELECT c.id, c.name, c.address_line, c.city, c.state, c.postal_code, c.phone, c.email, "
        "(SELECT COUNT(*) FROM rooms r WHERE r.clinic_id = c.id AND r.active = 1) AS active_rooms "
        "FROM clinics c ORDER BY c.id"
    )


@tool
def search_practitioners(
    db: Db,
    name: str | None = None,
    specialty: str | None = None,
    clinic_id: int | None = None,
    include_inactive: bool = False,
    limit: int = 20,
) -> list[dict]:
    """Find practitioners (doctors, physiotherapists, nurses) by name, specialty or clinic.

    Args:
        name: part of the first or last name, e.g. "Hart".
        specialty: specialty name or code, e.g. "Dermatology" or "DERM".
        clinic_id: only practitioners with working hours at this clinic.
        include_inactive: also return practitioners who no longer work at the clinic.
        limit: maximum number of results, 1 to 50.
    """
    check_limit(limit)
    who, who_params = _optional_search(
        name.strip() if name else None, "pr.first_name", "pr.last_name", "(pr.first_name || ' ' || pr.last_name)"
    )
    spec, spec_params = _optional_search(specialty.strip() if specialty else None, "s.name", "s.code")
    where, params = filters(
        ("EXISTS (SELECT 1 FROM working_hours w WHERE w.practitioner_id = pr.id AND w.clinic_id = ?)", clinic_id)
    )
    rows = db.query(
        "SELECT pr.id, pr.first_name, pr.last_name, pr.credential, pr.email, pr.phone, s.name AS specialty, "
        "pr.can_prescribe, pr.active FROM practitioners pr JOIN specialties s ON s.id = pr.specialty_id "
        f"WHERE {who} AND {spec} AND {where} AND (? = 1 OR pr.active = 1) ORDER BY pr.last_name, pr.first_name LIMIT ?",
        (*who_params, *spec_params, *params, 1 if include_inactive else 0, limit),
    )
    for r in rows:
        r["display_name"] = _prac_name(r)
        r["can_prescribe"] = bool(r["can_prescribe"])
        r["active"] = bool(r["active"])
    return rows


@tool
def get_practitioner(db: Db, practitioner_id: int) -> dict:
    """Show a practitioner's profile, weekly working hours, upcoming time off and the appointment types they perform.

    Args:
        practitioner_id: the practitioner's id.
    """
    prac = _practitioner(db, practitioner_id)
    hours = db.query(
        "SELECT w.weekday, w.start_time, w.end_time, w.clinic_id, c.name AS clinic FROM working_hours w "
        "JOIN clinics c ON c.id = w.clinic_id WHERE w.practitioner_id = ? ORDER BY w.weekday, w.start_time",
        (practitioner_id,),
    )
    for h in hours:
        h["day"] = WEEKDAYS[h["weekday"]]
    off = db.query(
        "SELECT id, start_date, end_date, reason FROM time_off WHERE practitioner_id = ? "
        "AND end_date >= ? ORDER BY start_date",
        (practitioner_id, db.today().isoformat()),
    )
    types = db.query(
        "SELECT id, code, name, duration_minutes, fee_cents FROM appointment_types WHERE specialty_id = ? ORDER BY id",
        (prac["specialty_id"],),
    )
    return {
        "id": prac["id"],
        "display_name": _prac_name(prac),
        "first_name": prac["first_name"],
        "last_name": prac["last_name"],
        "credential": prac["credential"],
        "specialty": prac["specialty"],
        "email": prac["email"],
        "phone": prac["phone"],
        "license_number": prac["license_number"],
        "can_prescribe": bool(prac["can_prescribe"]),
        "active": bool(prac["active"]),
        "weekly_hours": hours,
        "upcoming_time_off": off,
        "appointment_types": types,
    }


@tool
def get_practitioner_day(db: Db, practitioner_id: int, date: str) -> dict:
    """Show one practitioner's working hours and booked appointments on one day.

    Cancelled appointments are not shown.

    Args:
        practitioner_id: the practitioner's id.
        date: the day, ISO 'YYYY-MM-DD'.
    """
    prac = _practitioner(db, practitioner_id)
    day = _parse_date(date, "date")
    blocks, off = _blocks(db, practitioner_id, day)
    appts = db.query(
        _APPT_SELECT + "WHERE a.practitioner_id = ? AND a.starts_at >= ? AND a.starts_at < ? "
        "AND a.status != 'cancelled' ORDER BY a.starts_at",
        (practitioner_id, day.isoformat(), (day + timedelta(days=1)).isoformat()),
    )
    return {
        "practitioner": _prac_name(prac),
        "date": day.isoformat(),
        "weekday": WEEKDAYS[day.weekday()],
        "time_off": off,
        "working_blocks": [
            {
                "clinic_id": b["clinic_id"],
                "clinic": b["clinic"],
                "start": f"{b['start']:%H:%M}",
                "end": f"{b['end']:%H:%M}",
            }
            for b in blocks
        ],
        "appointments": appts,
    }


@tool
def list_rooms(
    db: Db, clinic_id: int, room_type: Literal["exam", "procedure", "therapy", "diagnostics", "treatment"] | None = None
) -> list[dict]:
    """List the rooms of one clinic, including rooms out of service.

    Args:
        clinic_id: the clinic's id (see list_clinics).
        room_type: only rooms of this type.
    """
    _clinic(db, clinic_id)
    where, params = filters(("room_type = ?", room_type))
    rows = db.query(
        f"SELECT id, name, room_type, active, notes FROM rooms WHERE clinic_id = ? AND {where} ORDER BY id",
        (clinic_id, *params),
    )
    for r in rows:
        r["active"] = bool(r["active"])
    return rows


@tool
def list_appointment_types(db: Db, specialty: str | None = None) -> list[dict]:
    """List the bookable appointment types with duration, fee, late-cancellation fee, room type and age limits.

    Args:
        specialty: only types of this specialty (name or code, e.g. "Cardiology").
    """
    spec, params = _optional_search(specialty.strip() if specialty else None, "s.name", "s.code")
    return db.query(
        "SELECT t.id, t.code, t.name, s.name AS specialty, t.duration_minutes, t.fee_cents, "
        "t.late_cancel_fee_cents, t.room_type, t.min_age, t.max_age, t.description "
        f"FROM appointment_types t JOIN specialties s ON s.id = t.specialty_id WHERE {spec} ORDER BY t.id",
        params,
    )


@tool
def list_insurance_plans(db: Db) -> list[dict]:
    """List the insurance plans the clinic accepts, with coverage percentage, copay and excluded appointment types.

    Args:
    """
    plans = db.query(
        "SELECT id, plan_code, name, payer, coverage_percent, copay_cents, active FROM insurance_plans ORDER BY id"
    )
    for p in plans:
        p["active"] = bool(p["active"])
        p["excluded_appointment_types"] = [
            r["name"]
            for r in db.query(
                "SELECT t.name FROM plan_exclusions x JOIN appointment_types t ON t.id = x.appointment_type_id "
                "WHERE x.plan_id = ? ORDER BY t.id",
                (p["id"],),
            )
        ]
    return plans


# ---------------------------------------------------------------------------------------------
# read tools: patients
# ---------------------------------------------------------------------------------------------


@tool
def search_patients(db: Db, query: str | None = None, date_of_birth: str | None = None, limit: int = 20) -> list[dict]:
    """Find patients by name, email, phone or medical record number, optionally narrowed by date of birth.

    Args:
        query: part of the full name, email, phone or MRN, e.g. "Ramirez" or "MRN-100231".
        date_of_birth: exact date of birth, ISO 'YYYY-MM-DD'.
        limit: maximum number of results, 1 to 50.
    """
    check_limit(limit)
    if not (query and query.strip()) and not date_of_birth:
        raise ToolError("give a query (name, email, phone or MRN) or a date_of_birth")
    dob = _parse_date(date_of_birth, "date_of_birth").isoformat() if date_of_birth else None
    text = query.strip() if query and query.strip() else None
    who, params = _optional_search(text, "(first_name || ' ' || last_name)", "last_name", "email", "phone", "mrn")
    where, filter_params = filters(("date_of_birth = ?", dob))
    return db.query(
        "SELECT id, mrn, first_name, last_name, date_of_birth, email, phone, status FROM patients "
        f"WHERE {who} AND {where} ORDER BY last_name, first_name, id LIMIT ?",
        (*params, *filter_params, limit),
    )


@tool
def get_patient(db: Db, patient_id: int) -> dict:
    """Show a patient's record: contact details, insurance policies, allergies, balance owed and upcoming appointments.

    Args:
        patient_id: the patient's id.
    """
    p = _patient(db, patient_id)
    today = db.today()
    policies = db.query(
        "SELECT pp.id, ip.name AS plan, ip.plan_code, pp.member_id, pp.valid_from, pp.valid_to "
        "FROM patient_policies pp JOIN insurance_plans ip ON ip.id = pp.plan_id WHERE pp.patient_id = ? "
        "ORDER BY pp.valid_from",
        (patient_id,),
    )
    current = _policy_on(db, patient_id, today)
    allergies = db.query(
        "SELECT id, substance, reaction, severity FROM allergies WHERE patient_id = ? ORDER BY id", (patient_id,)
    )
    upcoming = db.query(
        _APPT_SELECT + "WHERE a.patient_id = ? AND a.status IN ('scheduled', 'checked_in') "
        "AND a.ends_at > ? ORDER BY a.starts_at LIMIT 5",
        (patient_id, _fmt(db.now())),
    )
    return {
        "id": p["id"],
        "mrn": p["mrn"],
        "first_name": p["first_name"],
        "last_name": p["last_name"],
        "date_of_birth": p["date_of_birth"],
        "age": _age_on(p["date_of_birth"], today),
        "sex": p["sex"],
        "email": p["email"],
        "phone": p["phone"],
        "address": ", ".join(x for x in (p["address_line"], p["city"], p["state"], p["postal_code"]) if x),
        "preferred_clinic_id": p["preferred_clinic_id"],
        "status": p["status"],
        "registered_on": p["registered_on"],
        "current_insurance": (
            {
                "policy_id": current["id"],
                "plan": current["plan_name"],
                "member_id": current["member_id"],
                "valid_from": current["valid_from"],
                "valid_to": current["valid_to"],
            }
            if current
            else None
        ),
        "policies": policies,
        "allergies": allergies,
        "balance_due_cents": _balance_cents(db, patient_id),
        "upcoming_appointments": upcoming,
    }


@tool
def estimate_visit_cost(db: Db, patient_id: int, appointment_type_id: int, visit_date: str | None = None) -> dict:
    """Estimate what the insurer and the patient would pay for an appointment type on a given day.

    Uses the insurance policy valid on that day: the patient pays the plan's copay, the plan pays its
    coverage percentage of the rest (rounded down to the cent); excluded types are not covered at all.

    Args:
        patient_id: the patient's id.
        appointment_type_id: the appointment type's id (see list_appointment_types).
        visit_date: day of the visit, ISO 'YYYY-MM-DD'; defaults to today.
    """
    p = _patient(db, patient_id)
    atype = _appt_type(db, appointment_type_id)
    day = _parse_date(visit_date, "visit_date") if visit_date else db.today()
    est = _coverage(db, patient_id, atype, day)
    est.update(
        {
            "patient": f"{p['first_name']} {p['last_name']}",
            "appointment_type": atype["name"],
            "visit_date": day.isoformat(),
        }
    )
    return est


# ---------------------------------------------------------------------------------------------
# read tools: appointments and waitlist
# ---------------------------------------------------------------------------------------------


@tool
def find_available_slots(
    db: Db,
    appointment_type_id: int,
    date_from: str,
    date_to: str | None = None,
    practitioner_id: int | None = None,
    clinic_id: int | None = None,
    patient_id: int | None = None,
    limit: int = 20,
) -> dict:
    """Find free start times for an appointment type, earliest first.

    A slot is offered when a qualified, active practitioner works then (weekly hours, not on time
    off) for the whole duration, has no overlapping appointment, and a free room of the required
    type exists at that clinic. Start times are on the quarter hour and later than now.

    Args:
        appointment_type_id: the appointment type's id (see list_appointment_types).
        date_from: first day to search, ISO 'YYYY-MM-DD'.
        date_to: last day to search (inclusive), ISO 'YYYY-MM-DD'; defaults to date_from + 6 days. At most 31 days.
        practitioner_id: only this practitioner.
        clinic_id: only this clinic.
        patient_id: also skip times when this patient already has an appointment, and check age limits.
        limit: maximum number of slots, 1 to 50.
    """
    check_limit(limit)
    atype = _appt_type(db, appointment_type_id)
    first = _parse_date(date_from, "date_from")
    last = _parse_date(date_to, "date_to") if date_to else first + timedelta(days=6)
    if last < first:
        raise ToolError("date_to is before date_from")
    if (last - first).days >= MAX_SLOT_SEARCH_DAYS:
        raise ToolError(f"search at most {MAX_SLOT_SEARCH_DAYS} days at a time")
    patient = _patient(db, patient_id) if patient_id is not None else None
    if practitioner_id is not None:
        prac = _practitioner(db, practitioner_id)
        _qualify(prac, atype)
        pracs = [prac]
    else:
        pracs = db.query(
            "SELECT pr.*, s.name AS specialty FROM practitioners pr JOIN specialties s "
            "ON s.id = pr.specialty_id WHERE pr.specialty_id = ? AND pr.active = 1 ORDER BY pr.id",
            (atype["specialty_id"],),
        )
    if clinic_id is not None:
        _clinic(db, clinic_id)
    now = db.now()
    duration = timedelta(minutes=int(atype["duration_minutes"]))
    slots: list[dict[str, Any]] = []
    more = False
    day = max(first, now.date())
    while day <= last and not more:
        if patient is not None:
            age = _age_on(patient["date_of_birth"], day)
            if (atype["min_age"] is not None and age < atype["min_age"]) or (
                atype["max_age"] is not None and age > atype["max_age"]
            ):
                raise ToolError(
                    f"'{atype['name']}' is for ages {atype['min_age'] or 0}-{atype['max_age'] or 'any'}; "
                    f"the patient is {age}"
                )
        state = _Day(db, day)
        found: list[dict[str, Any]] = []
        for prac in pracs:
            blocks, _off = _blocks(db, prac["id"], day)
            for b in blocks:
                if clinic_id is not None and b["clinic_id"] != clinic_id:
                    continue
                t = b["start"]
                while t + duration <= b["end"]:
                    s, e = _fmt(t), _fmt(t + duration)
                    if (
                        t > now
                        and not state.practitioner_conflict(prac["id"], s, e, None)
                        and not (patient and state.patient_conflict(patient["id"], s, e, None))
                    ):
                        room = state.free_room(b["clinic_id"], atype["room_type"], s, e, None)
                        if room:
                            found.append(
                                {
                                    "starts_at": s,
                                    "ends_at": e,
                                    "practitioner_id": prac["id"],
                                    "practitioner": _prac_name(prac),
                                    "clinic_id": b["clinic_id"],
                                    "clinic": b["clinic"],
                                    "room_id": room["id"],
                                    "room": room["name"],
                                }
                            )
                    t += timedelta(minutes=SLOT_MINUTES)
        found.sort(key=lambda x: (x["starts_at"], x["practitioner_id"]))
        for f in found:
            if len(slots) >= limit:
                more = True
                break
            slots.append(f)
        day += timedelta(days=1)
    return {
        "appointment_type": atype["name"],
        "duration_minutes": atype["duration_minutes"],
        "slots": slots,
        "more_available": more,
    }


@tool
def list_appointments(
    db: Db,
    patient_id: int | None = None,
    practitioner_id: int | None = None,
    clinic_id: int | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    status: Literal["scheduled", "checked_in", "completed", "cancelled", "no_show"] | None = None,
    limit: int = 20,
) -> list[dict]:
    """List appointments matching the filters, ordered by start time.

    Args:
        patient_id: only this patient's appointments.
        practitioner_id: only this practitioner's appointments.
        clinic_id: only appointments at this clinic.
        date_from: only appointments starting on or after this day, ISO 'YYYY-MM-DD'.
        date_to: only appointments starting on or before this day (inclusive), ISO 'YYYY-MM-DD'.
        status: only appointments in this status.
        limit: maximum number of results, 1 to 50.
    """
    check_limit(limit)
    lo = _parse_date(date_from, "date_from").isoformat() if date_from else None
    hi = (_parse_date(date_to, "date_to") + timedelta(days=1)).isoformat() if date_to else None
    where, params = filters(
        ("a.patient_id = ?", patient_id),
        ("a.practitioner_id = ?", practitioner_id),
        ("a.clinic_id = ?", clinic_id),
        ("a.starts_at >= ?", lo),
        ("a.starts_at < ?", hi),
        ("a.status = ?", status),
    )
    return db.query(_APPT_SELECT + f"WHERE {where} ORDER BY a.starts_at, a.id LIMIT ?", (*params, limit))


@tool
def get_appointment(db: Db, appointment_id: int) -> dict:
    """Show one appointment in full: times, status, cancellation details, history, visit notes,
    prescriptions and invoices.

    Args:
        appointment_id: the appointment's id.
    """
    row = db.one(_APPT_SELECT + "WHERE a.id = ?", (appointment_id,),
                 missing=f"no appointment with id {appointment_id}; use list_appointments to find it")
    extra = db.one(
        "SELECT booked_at, checked_in_at, completed_at, cancelled_at, cancelled_by, "
        "cancellation_reason FROM appointments WHERE id = ?",
        (appointment_id,),
    )
    row.update(extra or {})
    row["history"] = db.query(
        "SELECT event, old_starts_at, new_starts_at, old_practitioner_id, "
        "new_practitioner_id, note, created_at FROM appointment_history "
        "WHERE appointment_id = ? ORDER BY id",
        (appointment_id,),
    )
    row["visit_notes"] = db.query(
        "SELECT id, chief_complaint, assessment, plan, created_at FROM visit_notes "
        "WHERE appointment_id = ? ORDER BY id",
        (appointment_id,),
    )
    row["prescriptions"] = db.query(
        "SELECT rx.id, m.name || ' ' || m.strength AS medication, rx.quantity, rx.refills_allowed, rx.status "
        "FROM prescriptions rx JOIN medications m ON m.id = rx.medication_id WHERE rx.appointment_id = ? "
        "ORDER BY rx.id",
        (appointment_id,),
    )
    row["invoices"] = db.query(
        "SELECT invoice_number, kind, patient_due_cents, status FROM invoices WHERE appointment_id = ? ORDER BY id",
        (appointment_id,),
    )
    return row


@tool
def list_waitlist(
    db: Db,
    appointment_type_id: int | None = None,
    practitioner_id: int | None = None,
    patient_id: int | None = None,
    status: Literal["waiting", "booked", "removed"] | None = "waiting",
    limit: int = 20,
) -> list[dict]:
    """List waitlist entries, longest-waiting first (by the date they were added).

    Args:
        appointment_type_id: only entries for this appointment type.
        practitioner_id: only entries that asked for this practitioner (entries without a preference are included too).
        patient_id: only this patient's entries.
        status: entry status; null lists all statuses.
        limit: maximum number of results, 1 to 50.
    """
    check_limit(limit)
    where, params = filters(
        ("w.appointment_type_id = ?", appointment_type_id),
        ("w.practitioner_id IS NULL OR w.practitioner_id = ?", practitioner_id),
        ("w.patient_id = ?", patient_id),
        ("w.status = ?", status),
    )
    rows = db.query(
        "SELECT w.id, w.patient_id, p.first_name || ' ' || p.last_name AS patient, w.appointment_type_id, "
        "t.name AS appointment_type, w.practitioner_id, w.clinic_id, w.earliest_date, w.latest_date, w.status, "
        "w.notes, w.created_at, w.booked_appointment_id FROM waitlist_entries w "
        "JOIN patients p ON p.id = w.patient_id JOIN appointment_types t ON t.id = w.appointment_type_id "
        f"WHERE {where} ORDER BY w.created_at, w.id LIMIT ?",
        (*params, limit),
    )
    names = {
        r["id"]: _prac_name(r) for r in db.query("SELECT id, first_name, last_name, credential FROM practitioners")
    }
    clinics = {r["id"]: r["name"] for r in db.query("SELECT id, name FROM clinics")}
    for r in rows:
        r["preferred_practitioner"] = names.get(r["practitioner_id"]) if r["practitioner_id"] else "any"
        r["preferred_clinic"] = clinics.get(r["clinic_id"]) if r["clinic_id"] else "any"
    return rows


# ---------------------------------------------------------------------------------------------
# read tools: clinical and billing
# ---------------------------------------------------------------------------------------------


@tool
def search_medications(db: Db, query: str, limit: int = 20) -> list[dict]:
    """Search the medication formulary by name or drug class.

    Args:
        query: part of the medication name or class, e.g. "amoxicillin" or "statin".
        limit: maximum number of results, 1 to 50.
    """
    check_limit(limit)
    if not query.strip():
        raise ToolError("query must not be empty")
    what, params = like_any(query.strip(), "name", "drug_class")
    rows = db.query(
        f"SELECT id, name, strength, form, drug_class, controlled FROM medications WHERE {what} "
        "ORDER BY name, strength LIMIT ?",
        (*params, limit),
    )
    for r in rows:
        r["controlled"] = bool(r["controlled"])
    return rows


@tool
def list_prescriptions(
    db: Db, patient_id: int, status: Literal["active", "completed", "cancelled", "expired"] | None = None
) -> list[dict]:
    """List a patient's prescriptions with refills remaining and expiry dates, newest first.

    Args:
        patient_id: the patient's id.
        status: only prescriptions in this status.
    """
    _patient(db, patient_id)
    where, params = filters(("rx.status = ?", status))
    rows = db.query(
        "SELECT rx.id, m.name AS medication, m.strength, m.form, rx.dosage_instructions, rx.quantity, "
        "rx.refills_allowed, rx.refills_used, rx.refills_allowed - rx.refills_used AS refills_remaining, "
        "rx.status, rx.issued_on, rx.expires_on, rx.last_filled_on, rx.appointment_id, "
        "pr.first_name || ' ' || pr.last_name AS prescriber FROM prescriptions rx "
        "JOIN medications m ON m.id = rx.medication_id JOIN practitioners pr ON pr.id = rx.practitioner_id "
        f"WHERE rx.patient_id = ? AND {where} ORDER BY rx.issued_on DESC, rx.id DESC LIMIT 50",
        (patient_id, *params),
    )
    return rows


@tool
def list_visit_notes(db: Db, patient_id: int, limit: int = 10) -> list[dict]:
    """List a patient's visit notes, newest first.

    Args:
        patient_id: the patient's id.
        limit: maximum number of notes, 1 to 50.
    """
    check_limit(limit)
    _patient(db, patient_id)
    return db.query(
        "SELECT n.id, n.appointment_id, a.starts_at, pr.first_name || ' ' || pr.last_name AS practitioner, "
        "n.chief_complaint, n.assessment, n.plan, n.created_at FROM visit_notes n "
        "JOIN appointments a ON a.id = n.appointment_id JOIN practitioners pr ON pr.id = n.practitioner_id "
        "WHERE a.patient_id = ? ORDER BY a.starts_at DESC, n.id DESC LIMIT ?",
        (patient_id, limit),
    )


@tool
def list_invoices(
    db: Db,
    patient_id: int | None = None,
    status: Literal["issued", "partially_paid", "paid", "void"] | None = None,
    limit: int = 20,
) -> list[dict]:
    """List invoices with amounts paid and outstanding, newest first.

    Args:
        patient_id: only this patient's invoices.
        status: only invoices in this status.
        limit: maximum number of results, 1 to 50.
    """
    check_limit(limit)
    where, params = filters(("i.patient_id = ?", patient_id), ("i.status = ?", status))
    rows = db.query(
        "SELECT i.id, i.invoice_number, i.patient_id, p.first_name || ' ' || p.last_name AS patient, "
        "i.appointment_id, i.kind, i.issued_on, i.due_on, i.subtotal_cents, i.insurance_covered_cents, "
        "i.patient_due_cents, i.status, COALESCE((SELECT SUM(x.amount_cents) FROM payments x "
        "WHERE x.invoice_id = i.id), 0) AS paid_cents FROM invoices i JOIN patients p ON p.id = i.patient_id "
        f"WHERE {where} ORDER BY i.issued_on DESC, i.id DESC LIMIT ?",
        (*params, limit),
    )
    for r in rows:
        r["outstanding_cents"] = 0 if r["status"] == "void" else r["patient_due_cents"] - r["paid_cents"]
    return rows


@tool
def get_invoice(db: Db, invoice_number: str) -> dict:
    """Show one invoice with its lines, payments and outstanding amount.

    Args:
        invoice_number: the invoice number, e.g. "INV-2026-0112".
    """
    inv = _invoice(db, invoice_number)
    inv["lines"] = db.query(
        "SELECT description, quantity, unit_price_cents, amount_cents FROM invoice_lines "
        "WHERE invoice_id = ? ORDER BY id",
        (inv["id"],),
    )
    inv["payments"] = db.query(
        "SELECT id, amount_cents, method, reference, paid_at FROM payments WHERE invoice_id = ? ORDER BY paid_at, id",
        (inv["id"],),
    )
    paid = sum(p["amount_cents"] for p in inv["payments"])
    inv["paid_cents"] = paid
    inv["outstanding_cents"] = 0 if inv["status"] == "void" else inv["patient_due_cents"] - paid
    return inv


@tool
def list_audit_log(db: Db, entity_type: str | None = None, entity_id: int | None = None, limit: int = 20) -> list[dict]:
    """List audit log entries, newest first.

    Args:
        entity_type: only entries about this kind of record, e.g. "appointment", "invoice", "patient".
        entity_id: only entries about the record with this id.
        limit: maximum number of results, 1 to 50.
    """
    check_limit(limit)
    where, params = filters(("entity_type = ?", entity_type), ("entity_id = ?", entity_id))
    return db.query(
        f"SELECT id, logged_at, action, entity_type, entity_id, details FROM audit_log WHERE {where} "
        "ORDER BY id DESC LIMIT ?",
        (*params, limit),
    )


# ---------------------------------------------------------------------------------------------
# write tools: patients
# ---------------------------------------------------------------------------------------------


@tool(write=True)
def register_patient(
    db: Db,
    first_name: str,
    last_name: str,
    date_of_birth: str,
    sex: Literal["F", "M", "X"],
    phone: str,
    email: str | None = None,
    address_line: str | None = None,
    city: str | None = None,
    state: str | None = None,
    postal_code: str | None = None,
    preferred_clinic_id: int | None = None,
) -> dict:
    """Register a new patient and give them a medical record number (MRN).

    Refuses a duplicate: a patient with the same first name, last name and date of birth.

    Args:
        first_name: given name.
        last_name: family name.
        date_of_birth: ISO 'YYYY-MM-DD'.
        sex: 'F', 'M' or 'X'.
        phone: contact phone number.
        email: contact email address.
        address_line: street address.
        city: city.
        state: two-letter state code.
        postal_code: ZIP code.
        preferred_clinic_id: the clinic the patient usually visits.
    """
    first, last = first_name.strip(), last_name.strip()
    if not first or not last:
        raise ToolError("first_name and last_name must not be empty")
    dob = _parse_date(date_of_birth, "date_of_birth")
    if dob > db.today() or dob.year < 1900:
        raise ToolError(f"date_of_birth {dob.isoformat()} is not plausible")
    if email is not None and not _EMAIL.match(email.strip()):
        raise ToolError(f"email {email!r} is not a valid address")
    if not phone.strip():
        raise ToolError("phone must not be empty")
    if preferred_clinic_id is not None:
        _clinic(db, preferred_clinic_id)
    dup = db.one(
        "SELECT id, mrn FROM patients WHERE lower(first_name) = lower(?) AND lower(last_name) = lower(?) "
        "AND date_of_birth = ?",
        (first, last, dob.isoformat()),
    )
    if dup:
        raise ToolError(
            f"patient {first} {last} born {dob.isoformat()} is already registered as id {dup['id']} "
            f"({dup['mrn']}); use that record"
        )
    top = db.value("SELECT MAX(CAST(substr(mrn, 5) AS INTEGER)) FROM patients")
    mrn = f"MRN-{int(top or 100000) + 1}"
    pid = db.insert(
        "patients",
        {
            "mrn": mrn,
            "first_name": first,
            "last_name": last,
            "date_of_birth": dob.isoformat(),
            "sex": sex,
            "email": email.strip().lower() if email else None,
            "phone": phone.strip(),
            "address_line": address_line,
            "city": city,
            "state": state,
            "postal_code": postal_code,
            "preferred_clinic_id": preferred_clinic_id,
            "status": "active",
            "registered_on": db.today().isoformat(),
        },
    )
    _audit(db, "patient_registered", "patient", pid, {"mrn": mrn, "name": f"{first} {last}"})
    return {"patient_id": pid, "mrn": mrn, "name": f"{first} {last}", "date_of_birth": dob.isoformat()}


@tool(write=True)
def update_patient_contact(
    db: Db,
    patient_id: int,
    email: str | None = None,
    phone: str | None = None,
    address_line: str | None = None,
    city: str | None = None,
    state: str | None = None,
    postal_code: str | None = None,
) -> dict:
    """Change a patient's contact details; only the fields given are changed.

    Args:
        patient_id: the patient's id.
        email: new email address.
        phone: new phone number.
        address_line: new street address.
        city: new city.
        state: new two-letter state code.
        postal_code: new ZIP code.
    """
    p = _patient(db, patient_id)
    changes = {
        k: v
        for k, v in {
            "email": email,
            "phone": phone,
            "address_line": address_line,
            "city": city,
            "state": state,
            "postal_code": postal_code,
        }.items()
        if v is not None
    }
    if not changes:
        raise ToolError("give at least one field to change")
    if "email" in changes:
        if not _EMAIL.match(changes["email"].strip()):
            raise ToolError(f"email {email!r} is not a valid address")
        changes["email"] = changes["email"].strip().lower()
    new = {k: changes.get(k, p[k]) for k in ("email", "phone", "address_line", "city", "state", "postal_code")}
    db.execute(
        "UPDATE patients SET email = ?, phone = ?, address_line = ?, city = ?, state = ?, postal_code = ? WHERE id = ?",
        (new["email"], new["phone"], new["address_line"], new["city"], new["state"], new["postal_code"], patient_id),
    )
    _audit(db, "patient_contact_updated", "patient", patient_id, {k: [p[k], v] for k, v in changes.items()})
    return {"patient_id": patient_id, "updated": sorted(changes), **new}


@tool(write=True)
def update_patient_insurance(
    db: Db, patient_id: int, effective_date: str, plan_id: int | None = None, member_id: str | None = None
) -> dict:
    """Record a change of insurance from a given date: the policy in force ends the day before and
    the new one starts.

    With no plan_id the patient's coverage simply ends (self-pay from effective_date). Invoices
    already issued are not recalculated.

    Args:
        patient_id: the patient's id.
        effective_date: first day the change applies, ISO 'YYYY-MM-DD' (within 90 days of today).
        plan_id: the new insurance plan's id (see list_insurance_plans); omit to end coverage.
        member_id: the member id printed on the new insurance card; required with plan_id.
    """
    p = _patient(db, patient_id)
    eff = _parse_date(effective_date, "effective_date")
    if abs((eff - db.today()).days) > 90:
        raise ToolError("effective_date must be within 90 days of today")
    plan = None
    if plan_id is not None:
        plan = db.one("SELECT * FROM insurance_plans WHERE id = ?", (plan_id,),
                      missing=f"no insurance plan with id {plan_id}; see list_insurance_plans")
        if not plan["active"]:
            raise ToolError(f"plan {plan['name']} is no longer accepted by the clinic")
        if not member_id or not member_id.strip():
            raise ToolError("member_id is required when setting a plan")
    open_pols = db.query(
        "SELECT pp.*, ip.name AS plan_name FROM patient_policies pp JOIN insurance_plans ip "
        "ON ip.id = pp.plan_id WHERE pp.patient_id = ? AND (pp.valid_to IS NULL OR pp.valid_to >= ?) "
        "ORDER BY pp.valid_from",
        (patient_id, eff.isoformat()),
    )
    for pol in open_pols:
        if pol["valid_from"] >= eff.isoformat():
            raise ToolError(
                f"policy {pol['id']} ({pol['plan_name']}) already starts on {pol['valid_from']}, not "
                "before effective_date; the change cannot be recorded over it"
            )
    if (
        plan is not None
        and open_pols
        and open_pols[-1]["plan_id"] == plan_id
        and open_pols[-1]["member_id"] == member_id.strip()
    ):
        raise ToolError(
            f"{p['first_name']} {p['last_name']} already has {plan['name']} with member id {member_id.strip()} on file"
        )
    if plan is None and not open_pols:
        raise ToolError("the patient has no policy in force on that date; nothing to end")
    ended = []
    end_day = (eff - timedelta(days=1)).isoformat()
    for pol in open_pols:
        db.execute("UPDATE patient_policies SET valid_to = ? WHERE id = ?", (end_day, pol["id"]))
        ended.append({"policy_id": pol["id"], "plan": pol["plan_name"], "valid_to": end_day})
    new_id = None
    if plan is not None:
        new_id = db.insert(
            "patient_policies",
            {
                "patient_id": patient_id,
                "plan_id": plan_id,
                "member_id": member_id.strip(),
                "valid_from": eff.isoformat(),
                "valid_to": None,
            },
        )
    _audit(
        db,
        "insurance_updated",
        "patient",
        patient_id,
        {
            "ended_policy_ids": [e["policy_id"] for e in ended],
            "new_policy_id": new_id,
            "plan_id": plan_id,
            "effective_date": eff.isoformat(),
        },
    )
    return {
        "patient_id": patient_id,
        "ended_policies": ended,
        "new_policy": (
            {"policy_id": new_id, "plan": plan["name"], "member_id": member_id.strip(), "valid_from": eff.isoformat()}
            if plan
            else None
        ),
    }


@tool(write=True)
def add_allergy(
    db: Db, patient_id: int, substance: str, reaction: str, severity: Literal["mild", "moderate", "severe"]
) -> dict:
    """Record an allergy on a patient's chart; prescribing checks against it.

    Args:
        patient_id: the patient's id.
        substance: the drug, drug class or other substance, e.g. "penicillin" or "sulfonamide".
        reaction: what happens, e.g. "hives".
        severity: 'mild', 'moderate' or 'severe'.
    """
    _patient(db, patient_id)
    sub = substance.strip().lower()
    if not sub or not reaction.strip():
        raise ToolError("substance and reaction must not be empty")
    db.none(
        "SELECT id FROM allergies WHERE patient_id = ? AND lower(substance) = ?",
        (patient_id, sub),
        found=f"an allergy to {sub} is already recorded for this patient",
    )
    aid = db.insert(
        "allergies",
        {
            "patient_id": patient_id,
            "substance": sub,
            "reaction": reaction.strip(),
            "severity": severity,
            "recorded_on": db.today().isoformat(),
        },
    )
    _audit(db, "allergy_added", "patient", patient_id, {"allergy_id": aid, "substance": sub, "severity": severity})
    return {"allergy_id": aid, "patient_id": patient_id, "substance": sub, "severity": severity}


# ---------------------------------------------------------------------------------------------
# write tools: appointments
# ---------------------------------------------------------------------------------------------


@tool(write=True)
def book_appointment(
    db: Db,
    patient_id: int,
    practitioner_id: int,
    appointment_type_id: int,
    starts_at: str,
    room_id: int | None = None,
    reason: str | None = None,
) -> dict:
    """Book an appointment after checking every scheduling rule.

    The practitioner must have the type's specialty and work then (weekly hours, no time off) for
    the whole duration; neither practitioner nor patient may have an overlapping appointment; a room
    of the required type must be free at that clinic (the first free one is chosen unless room_id is
    given); the patient must be within the type's age limits.

    Args:
        patient_id: the patient's id.
        practitioner_id: the practitioner's id.
        appointment_type_id: the appointment type's id (see list_appointment_types).
        starts_at: start time, ISO 'YYYY-MM-DDTHH:MM', on a quarter hour.
        room_id: a specific room; omit to let the system choose a free one.
        reason: the reason for the visit, in the patient's words.
    """
    patient = _patient(db, patient_id)
    prac = _practitioner(db, practitioner_id)
    atype = _appt_type(db, appointment_type_id)
    start = _parse_dt(starts_at, "starts_at")
    place = _place(db, patient=patient, prac=prac, atype=atype, start=start, room_id=room_id, exclude=None)
    return _insert_appointment(db, patient, prac, atype, place, reason, "booked by front desk")


@tool(write=True)
def reschedule_appointment(
    db: Db,
    appointment_id: int,
    new_starts_at: str,
    practitioner_id: int | None = None,
    room_id: int | None = None,
    note: str | None = None,
) -> dict:
    """Move a scheduled appointment to a new time (and optionally another practitioner), keeping its id.

    The same rules as booking apply (hours, time off, conflicts, rooms); the current room is kept
    when it is free at the new time. The move is recorded in the appointment's history.

    Args:
        appointment_id: the appointment's id.
        new_starts_at: new start time, ISO 'YYYY-MM-DDTHH:MM', on a quarter hour.
        practitioner_id: move to this practitioner instead (same specialty); omit to keep the current one.
        room_id: a specific room; omit to keep the current room if free or pick a free one.
        note: why it was moved.
    """
    appt = _appointment_in(db, appointment_id, ("scheduled",), "only scheduled appointments can be moved")
    patient = _patient(db, appt["patient_id"])
    prac = _practitioner(db, practitioner_id if practitioner_id is not None else appt["practitioner_id"])
    atype = _appt_type(db, appt["appointment_type_id"])
    start = _parse_dt(new_starts_at, "new_starts_at")
    same_place = prac["id"] == appt["practitioner_id"] and room_id in (None, appt["room_id"])
    if _fmt(start) == appt["starts_at"] and same_place:
        raise ToolError(f"appointment {appointment_id} already starts at {appt['starts_at']} with that practitioner")
    place = _place(
        db,
        patient=patient,
        prac=prac,
        atype=atype,
        start=start,
        room_id=room_id,
        exclude=appointment_id,
        prefer_room=appt["room_id"],
    )
    db.execute(
        "UPDATE appointments SET practitioner_id = ?, clinic_id = ?, room_id = ?, starts_at = ?, ends_at = ? "
        "WHERE id = ?",
        (prac["id"], place["clinic_id"], place["room_id"], place["starts_at"], place["ends_at"], appointment_id),
    )
    _history(
        db,
        appointment_id,
        "rescheduled",
        old_start=appt["starts_at"],
        new_start=place["starts_at"],
        old_prac=appt["practitioner_id"],
        new_prac=prac["id"],
        note=note,
    )
    _audit(
        db,
        "appointment_rescheduled",
        "appointment",
        appointment_id,
        {
            "old_starts_at": appt["starts_at"],
            "new_starts_at": place["starts_at"],
            "old_practitioner_id": appt["practitioner_id"],
            "new_practitioner_id": prac["id"],
            "room_id": place["room_id"],
        },
    )
    return {
        "appointment_id": appointment_id,
        "status": "scheduled",
        "old_starts_at": appt["starts_at"],
        "starts_at": place["starts_at"],
        "ends_at": place["ends_at"],
        "practitioner": _prac_name(prac),
        "clinic": place["clinic"],
        "room": place["room"],
    }


@tool(write=True)
def cancel_appointment(
    db: Db, appointment_id: int, cancelled_by: Literal["patient", "clinic"], reason: str, waive_fee: bool = False
) -> dict:
    """Cancel a scheduled appointment, charging the late-cancellation fee when the policy requires it.

    Policy: when the patient cancels less than 24 hours before the start, an invoice for the
    appointment type's late-cancellation fee is issued (not covered by insurance) unless waive_fee
    is true. Cancellations by the clinic are never charged. The result lists waitlist entries that
    could take the freed slot.

    Args:
        appointment_id: the appointment's id.
        cancelled_by: 'patient' when the patient cancels, 'clinic' when the clinic does.
        reason: why it was cancelled.
        waive_fee: waive the late-cancellation fee (only with a manager's approval).
    """
    appt = _appointment_in(db, appointment_id, ("scheduled",), "only scheduled appointments can be cancelled")
    if not reason.strip():
        raise ToolError("give a reason for the cancellation")
    start = datetime.strptime(appt["starts_at"], ISO)
    now = db.now()
    if start <= now:
        raise ToolError(
            f"appointment {appointment_id} started at {appt['starts_at']}; use mark_no_show if the patient did not come"
        )
    atype = _appt_type(db, appt["appointment_type_id"])
    hours_before = round((start - now).total_seconds() / 3600, 2)
    late = cancelled_by == "patient" and hours_before < LATE_CANCEL_HOURS
    db.execute(
        "UPDATE appointments SET status = 'cancelled', cancelled_at = ?, cancelled_by = ?, "
        "cancellation_reason = ? WHERE id = ?",
        (_fmt(now), cancelled_by, reason.strip(), appointment_id),
    )
    _history(
        db,
        appointment_id,
        "cancelled",
        old_start=appt["starts_at"],
        old_prac=appt["practitioner_id"],
        note=f"cancelled by {cancelled_by}: {reason.strip()}",
    )
    fee_invoice = None
    if late and atype["late_cancel_fee_cents"] > 0 and not waive_fee:
        fee_invoice = _fee_invoice(db, appt, atype, "late_cancellation", "Late cancellation fee")
    _audit(
        db,
        "appointment_cancelled",
        "appointment",
        appointment_id,
        {
            "cancelled_by": cancelled_by,
            "reason": reason.strip(),
            "hours_before_start": hours_before,
            "late": late,
            "fee_waived": bool(late and waive_fee),
            "fee_invoice": fee_invoice["invoice_number"] if fee_invoice else None,
        },
    )
    day = appt["starts_at"][:10]
    candidates = db.query(
        "SELECT w.id AS waitlist_id, w.patient_id, p.first_name || ' ' || p.last_name AS patient, "
        "w.earliest_date, w.latest_date, w.practitioner_id, w.clinic_id, w.created_at FROM waitlist_entries w "
        "JOIN patients p ON p.id = w.patient_id WHERE w.status = 'waiting' AND w.appointment_type_id = ? "
        "AND w.earliest_date <= ? AND w.latest_date >= ? AND (w.practitioner_id IS NULL OR w.practitioner_id = ?) "
        "AND (w.clinic_id IS NULL OR w.clinic_id = ?) AND w.patient_id != ? ORDER BY w.created_at, w.id LIMIT 5",
        (appt["appointment_type_id"], day, day, appt["practitioner_id"], appt["clinic_id"], appt["patient_id"]),
    )
    return {
        "appointment_id": appointment_id,
        "status": "cancelled",
        "cancelled_by": cancelled_by,
        "hours_before_start": hours_before,
        "late_cancellation": late,
        "fee_waived": bool(late and waive_fee and atype["late_cancel_fee_cents"] > 0),
        "fee_invoice": fee_invoice,
        "freed_slot": {
            "starts_at": appt["starts_at"],
            "ends_at": appt["ends_at"],
            "practitioner_id": appt["practitioner_id"],
        },
        "waitlist_matches": candidates,
    }


@tool(write=True)
def check_in_patient(db: Db, appointment_id: int) -> dict:
    """Check a patient in for today's appointment (from 60 minutes before the start until its end).

    Args:
        appointment_id: the appointment's id.
    """
    appt = _appointment_in(db, appointment_id, ("scheduled",), "only scheduled appointments can be checked in")
    now = db.now()
    start = datetime.strptime(appt["starts_at"], ISO)
    end = datetime.strptime(appt["ends_at"], ISO)
    if start.date() != now.date():
        raise ToolError(
            f"appointment {appointment_id} is on {appt['starts_at'][:10]}, not today "
            f"({now.date().isoformat()}); patients can only check in on the day"
        )
    if now < start - timedelta(minutes=CHECK_IN_EARLY_MINUTES):
        raise ToolError(f"check-in opens {CHECK_IN_EARLY_MINUTES} minutes before the {appt['starts_at'][11:16]} start")
    if now >= end:
        raise ToolError(
            f"appointment {appointment_id} ended at {appt['ends_at'][11:16]}; reschedule it or mark_no_show"
        )
    db.execute(
        "UPDATE appointments SET status = 'checked_in', checked_in_at = ? WHERE id = ?", (_fmt(now), appointment_id)
    )
    _history(db, appointment_id, "checked_in", note="patient arrived")
    _audit(db, "patient_checked_in", "appointment", appointment_id, {"checked_in_at": _fmt(now)})
    pol = _policy_on(db, appt["patient_id"], now.date())
    return {
        "appointment_id": appointment_id,
        "status": "checked_in",
        "checked_in_at": _fmt(now),
        "late_minutes": max(0, int((now - start).total_seconds() // 60)),
        "insurance_on_file": pol["plan_name"] if pol else None,
        "patient_balance_due_cents": _balance_cents(db, appt["patient_id"]),
    }


@tool(write=True)
def complete_appointment(db: Db, appointment_id: int) -> dict:
    """Mark a checked-in appointment as completed once the practitioner has seen the patient.

    Args:
        appointment_id: the appointment's id.
    """
    _appointment_in(
        db,
        appointment_id,
        ("checked_in",),
        "only checked-in appointments can be completed (check the patient in first)",
    )
    now = _fmt(db.now())
    db.execute("UPDATE appointments SET status = 'completed', completed_at = ? WHERE id = ?", (now, appointment_id))
    _history(db, appointment_id, "completed")
    _audit(db, "appointment_completed", "appointment", appointment_id, {"completed_at": now})
    return {
        "appointment_id": appointment_id,
        "status": "completed",
        "completed_at": now,
        "next_step": "issue_invoice bills the visit",
    }


@tool(write=True)
def mark_no_show(db: Db, appointment_id: int, charge_fee: bool = True) -> dict:
    """Mark a scheduled appointment whose start time has passed as a no-show, by default charging
    the appointment type's late-cancellation fee.

    Args:
        appointment_id: the appointment's id.
        charge_fee: issue a no-show fee invoice (the appointment type's late-cancellation fee).
    """
    appt = _appointment_in(db, appointment_id, ("scheduled",), "only scheduled appointments can be marked as no-show")
    if datetime.strptime(appt["starts_at"], ISO) > db.now():
        raise ToolError(f"appointment {appointment_id} starts at {appt['starts_at']}, which has not come yet")
    atype = _appt_type(db, appt["appointment_type_id"])
    db.execute("UPDATE appointments SET status = 'no_show' WHERE id = ?", (appointment_id,))
    _history(db, appointment_id, "no_show")
    fee = None
    if charge_fee and atype["late_cancel_fee_cents"] > 0:
        fee = _fee_invoice(db, appt, atype, "no_show", "No-show fee")
    _audit(
        db,
        "appointment_no_show",
        "appointment",
        appointment_id,
        {"fee_invoice": fee["invoice_number"] if fee else None},
    )
    return {"appointment_id": appointment_id, "status": "no_show", "fee_invoice": fee}


@tool(write=True)
def add_visit_note(db: Db, appointment_id: int, chief_complaint: str, assessment: str, plan: str) -> dict:
    """File the practitioner's clinical note for a checked-in or completed appointment.

    Args:
        appointment_id: the appointment's id.
        chief_complaint: the main complaint, in brief.
        assessment: the practitioner's assessment or diagnosis.
        plan: the treatment plan and follow-up.
    """
    appt = _appointment_in(
        db,
        appointment_id,
        ("checked_in", "completed"),
        "notes can only be filed for checked-in or completed visits",
    )
    if not (chief_complaint.strip() and assessment.strip() and plan.strip()):
        raise ToolError("chief_complaint, assessment and plan must all be filled in")
    nid = db.insert(
        "visit_notes",
        {
            "appointment_id": appointment_id,
            "practitioner_id": appt["practitioner_id"],
            "chief_complaint": chief_complaint.strip(),
            "assessment": assessment.strip(),
            "plan": plan.strip(),
            "created_at": _fmt(db.now()),
        },
    )
    _audit(db, "visit_note_added", "appointment", appointment_id, {"visit_note_id": nid})
    return {"visit_note_id": nid, "appointment_id": appointment_id}


@tool(write=True)
def add_time_off(db: Db, practitioner_id: int, start_date: str, end_date: str, reason: str) -> dict:
    """Block a practitioner's calendar for one or more whole days (leave, conference, sickness).

    Refused while the practitioner still has scheduled or checked-in appointments in that period:
    reschedule or cancel them first (the error lists them).

    Args:
        practitioner_id: the practitioner's id.
        start_date: first day off, ISO 'YYYY-MM-DD' (today or later).
        end_date: last day off (inclusive), ISO 'YYYY-MM-DD'.
        reason: why, e.g. "conference".
    """
    prac = _practitioner(db, practitioner_id)
    first, last = _date_window(
        db, start_date, "start_date", end_date, "end_date", 60, "time off longer than 60 days must be arranged with HR"
    )
    if not reason.strip():
        raise ToolError("give a reason")
    overlap = db.one(
        "SELECT id, start_date, end_date FROM time_off WHERE practitioner_id = ? AND start_date <= ? AND end_date >= ?",
        (practitioner_id, last.isoformat(), first.isoformat()),
    )
    if overlap:
        raise ToolError(
            f"{_prac_name(prac)} already has time off {overlap['start_date']} to {overlap['end_date']} "
            f"(id {overlap['id']}) overlapping these dates"
        )
    booked = db.query(
        "SELECT id, starts_at, patient_id FROM appointments WHERE practitioner_id = ? "
        "AND status IN ('scheduled', 'checked_in') AND starts_at >= ? AND starts_at < ? "
        "ORDER BY starts_at",
        (practitioner_id, first.isoformat(), (last + timedelta(days=1)).isoformat()),
    )
    if booked:
        listing = ", ".join(f"#{b['id']} at {b['starts_at']}" for b in booked)
        raise ToolError(
            f"{_prac_name(prac)} still has {len(booked)} appointment(s) in that period ({listing}); "
            "reschedule or cancel them first, then add the time off"
        )
    tid = db.insert(
        "time_off",
        {
            "practitioner_id": practitioner_id,
            "start_date": first.isoformat(),
            "end_date": last.isoformat(),
            "reason": reason.strip(),
            "created_at": _fmt(db.now()),
        },
    )
    _audit(
        db,
        "time_off_added",
        "practitioner",
        practitioner_id,
        {"time_off_id": tid, "start_date": first.isoformat(), "end_date": last.isoformat()},
    )
    return {
        "time_off_id": tid,
        "practitioner": _prac_name(prac),
        "start_date": first.isoformat(),
        "end_date": last.isoformat(),
        "reason": reason.strip(),
    }


# ---------------------------------------------------------------------------------------------
# write tools: waitlist
# ---------------------------------------------------------------------------------------------


@tool(write=True)
def add_to_waitlist(
    db: Db,
    patient_id: int,
    appointment_type_id: int,
    earliest_date: str,
    latest_date: str,
    practitioner_id: int | None = None,
    clinic_id: int | None = None,
    notes: str | None = None,
) -> dict:
    """Put a patient on the waitlist for an appointment type within a date window.

    A patient can have only one waiting entry per appointment type.

    Args:
        patient_id: the patient's id.
        appointment_type_id: the appointment type's id (see list_appointment_types).
        earliest_date: first acceptable day, ISO 'YYYY-MM-DD' (today or later).
        latest_date: last acceptable day, ISO 'YYYY-MM-DD' (at most 90 days after earliest_date).
        practitioner_id: a preferred practitioner; omit for any qualified practitioner.
        clinic_id: a preferred clinic; omit for any clinic.
        notes: anything the scheduler should know, e.g. "mornings only".
    """
    patient = _patient(db, patient_id)
    atype = _appt_type(db, appointment_type_id)
    first, last = _date_window(
        db, earliest_date, "earliest_date", latest_date, "latest_date", 90, "the window may be at most 90 days long"
    )
    _eligible(patient, atype, first)
    if practitioner_id is not None:
        _qualify(_practitioner(db, practitioner_id), atype)
    if clinic_id is not None:
        _clinic(db, clinic_id)
    dup = db.one(
        "SELECT id FROM waitlist_entries WHERE patient_id = ? AND appointment_type_id = ? AND status = 'waiting'",
        (patient_id, appointment_type_id),
    )
    if dup:
        raise ToolError(f"the patient is already waiting for {atype['name']} (waitlist entry {dup['id']})")
    wid = db.insert(
        "waitlist_entries",
        {
            "patient_id": patient_id,
            "appointment_type_id": appointment_type_id,
            "practitioner_id": practitioner_id,
            "clinic_id": clinic_id,
            "earliest_date": first.isoformat(),
            "latest_date": last.isoformat(),
            "status": "waiting",
            "notes": notes,
            "created_at": _fmt(db.now()),
        },
    )
    _audit(db, "waitlist_added", "waitlist_entry", wid, {"patient_id": patient_id, "appointment_type": atype["code"]})
    position = db.value(
        "SELECT COUNT(*) FROM waitlist_entries WHERE status = 'waiting' AND appointment_type_id = ? AND id <= ?",
        (appointment_type_id, wid),
    )
    return {
        "waitlist_id": wid,
        "status": "waiting",
        "appointment_type": atype["name"],
        "earliest_date": first.isoformat(),
        "latest_date": last.isoformat(),
        "position": position,
    }


@tool(write=True)
def remove_from_waitlist(db: Db, waitlist_id: int, reason: str) -> dict:
    """Take a waiting entry off the waitlist.

    Args:
        waitlist_id: the waitlist entry's id.
        reason: why, e.g. "booked elsewhere".
    """
    w = _waitlist_entry(db, waitlist_id)
    if w["status"] != "waiting":
        raise ToolError(f"waitlist entry {waitlist_id} is already {w['status']}")
    db.execute(
        "UPDATE waitlist_entries SET status = 'removed', removed_reason = ? WHERE id = ?", (reason.strip(), waitlist_id)
    )
    _audit(db, "waitlist_removed", "waitlist_entry", waitlist_id, {"reason": reason.strip()})
    return {"waitlist_id": waitlist_id, "status": "removed"}


@tool(write=True)
def book_from_waitlist(
    db: Db, waitlist_id: int, starts_at: str, practitioner_id: int | None = None, room_id: int | None = None
) -> dict:
    """Book the appointment a waiting patient asked for and mark their waitlist entry as booked.

    The start must fall within the entry's date window and match its practitioner and clinic
    preferences; all booking rules apply.

    Args:
        waitlist_id: the waitlist entry's id.
        starts_at: start time, ISO 'YYYY-MM-DDTHH:MM', on a quarter hour.
        practitioner_id: the practitioner; defaults to the entry's preferred practitioner (required when it has none).
        room_id: a specific room; omit to let the system choose a free one.
    """
    w = _waitlist_entry(db, waitlist_id)
    if w["status"] != "waiting":
        raise ToolError(f"waitlist entry {waitlist_id} is {w['status']}, not waiting")
    start = _parse_dt(starts_at, "starts_at")
    day = start.date().isoformat()
    if not w["earliest_date"] <= day <= w["latest_date"]:
        raise ToolError(f"{day} is outside the entry's window {w['earliest_date']} to {w['latest_date']}")
    if practitioner_id is None:
        if w["practitioner_id"] is None:
            raise ToolError("this entry has no preferred practitioner; pass practitioner_id")
        practitioner_id = w["practitioner_id"]
    elif w["practitioner_id"] is not None and w["practitioner_id"] != practitioner_id:
        raise ToolError(
            f"the patient asked for practitioner {w['practitioner_id']}; book with them or ask the patient first"
        )
    patient = _patient(db, w["patient_id"])
    prac = _practitioner(db, practitioner_id)
    atype = _appt_type(db, w["appointment_type_id"])
    place = _place(db, patient=patient, prac=prac, atype=atype, start=start, room_id=room_id, exclude=None)
    if w["clinic_id"] is not None and place["clinic_id"] != w["clinic_id"]:
        raise ToolError("that time is at a different clinic from the one the patient asked for")
    booked = _insert_appointment(
        db, patient, prac, atype, place, w["notes"], f"booked from waitlist entry {waitlist_id}"
    )
    db.execute(
        "UPDATE waitlist_entries SET status = 'booked', booked_appointment_id = ? WHERE id = ?",
        (booked["appointment_id"], waitlist_id),
    )
    _audit(db, "waitlist_booked", "waitlist_entry", waitlist_id, {"appointment_id": booked["appointment_id"]})
    booked["waitlist_id"] = waitlist_id
    return booked


# ---------------------------------------------------------------------------------------------
# write tools: prescriptions
# ---------------------------------------------------------------------------------------------


@tool(write=True)
def prescribe_medication(
    db: Db, appointment_id: int, medication_id: int, dosage_instructions: str, quantity: int, refills: int = 0
) -> dict:
    """Issue a prescription during a visit, prescribed by the visit's practitioner.

    Checks: the visit is checked in or completed within the last 14 days; the practitioner may
    prescribe; the patient has no recorded allergy to the medication or its drug class; no active
    prescription of the same medication exists; controlled substances get at most 30 units and no
    refills. Prescriptions expire after a year (controlled: 90 days).

    Args:
        appointment_id: the visit's appointment id.
        medication_id: the medication's id (see search_medications).
        dosage_instructions: how to take it, e.g. "1 tablet by mouth twice daily".
        quantity: number of units dispensed (tablets, capsules, inhalers...), 1 to 365.
        refills: number of refills allowed, 0 to 11.
    """
    appt = _appointment_in(
        db,
        appointment_id,
        ("checked_in", "completed"),
        "prescriptions are issued during a checked-in or completed visit",
    )
    if (db.today() - date.fromisoformat(appt["starts_at"][:10])).days > 14:
        raise ToolError("the visit was more than 14 days ago; the patient needs a new appointment")
    prac = _practitioner(db, appt["practitioner_id"])
    if not prac["can_prescribe"]:
        raise ToolError(f"{_prac_name(prac)} is not authorised to prescribe medication")
    med = db.one("SELECT * FROM medications WHERE id = ?", (medication_id,),
                 missing=f"no medication with id {medication_id}; use search_medications")
    if not 1 <= quantity <= 365:
        raise ToolError("quantity must be between 1 and 365")
    if not 0 <= refills <= 11:
        raise ToolError("refills must be between 0 and 11")
    if not dosage_instructions.strip():
        raise ToolError("dosage_instructions must not be empty")
    allergy = db.one(
        "SELECT substance, reaction, severity FROM allergies WHERE patient_id = ? "
        "AND (lower(substance) = lower(?) OR lower(substance) = lower(?))",
        (appt["patient_id"], med["name"], med["drug_class"]),
    )
    if allergy:
        raise ToolError(
            f"the patient is allergic to {allergy['substance']} ({allergy['severity']} "
            f"{allergy['reaction']}); {med['name']} is a {med['drug_class']}. Choose another medication"
        )
    if med["controlled"] and (refills > 0 or quantity > CONTROLLED_MAX_QUANTITY):
        raise ToolError(
            f"{med['name']} is a controlled substance: at most {CONTROLLED_MAX_QUANTITY} units and no refills"
        )
    dup = db.one(
        "SELECT id FROM prescriptions WHERE patient_id = ? AND medication_id = ? AND status = 'active' "
        "AND expires_on >= ?",
        (appt["patient_id"], medication_id, db.today().isoformat()),
    )
    if dup:
        raise ToolError(
            f"the patient already has an active prescription {dup['id']} for {med['name']} "
            f"{med['strength']}; refill it or cancel it first"
        )
    issued = db.today()
    expires = issued + timedelta(days=90 if med["controlled"] else 365)
    rx = db.insert(
        "prescriptions",
        {
            "patient_id": appt["patient_id"],
            "practitioner_id": prac["id"],
            "appointment_id": appointment_id,
            "medication_id": medication_id,
            "dosage_instructions": dosage_instructions.strip(),
            "quantity": quantity,
            "refills_allowed": refills,
            "refills_used": 0,
            "status": "active",
            "issued_on": issued.isoformat(),
            "expires_on": expires.isoformat(),
            "last_filled_on": issued.isoformat(),
        },
    )
    _audit(
        db,
        "prescription_issued",
        "prescription",
        rx,
        {"appointment_id": appointment_id, "medication_id": medication_id, "quantity": quantity, "refills": refills},
    )
    return {
        "prescription_id": rx,
        "medication": f"{med['name']} {med['strength']} {med['form']}",
        "quantity": quantity,
        "refills_allowed": refills,
        "expires_on": expires.isoformat(),
        "prescriber": _prac_name(prac),
    }


@tool(write=True)
def refill_prescription(db: Db, prescription_id: int) -> dict:
    """Dispense one refill of an active, unexpired prescription that has refills left.

    Args:
        prescription_id: the prescription's id.
    """
    rx = db.one(
        "SELECT rx.*, m.name AS medication FROM prescriptions rx JOIN medications m "
        "ON m.id = rx.medication_id WHERE rx.id = ?",
        (prescription_id,),
        missing=f"no prescription with id {prescription_id}; see list_prescriptions",
    )
    if rx["status"] != "active":
        raise ToolError(f"prescription {prescription_id} is {rx['status']}; a new prescription is needed")
    if rx["expires_on"] < db.today().isoformat():
        raise ToolError(f"prescription {prescription_id} expired on {rx['expires_on']}; book a visit to renew it")
    if rx["refills_used"] >= rx["refills_allowed"]:
        raise ToolError(f"prescription {prescription_id} has no refills left; book a visit to renew it")
    used = rx["refills_used"] + 1
    db.execute(
        "UPDATE prescriptions SET refills_used = ?, last_filled_on = ? WHERE id = ?",
        (used, db.today().isoformat(), prescription_id),
    )
    _audit(db, "prescription_refilled", "prescription", prescription_id, {"refills_used": used})
    return {
        "prescription_id": prescription_id,
        "medication": rx["medication"],
        "refills_used": used,
        "refills_remaining": rx["refills_allowed"] - used,
    }


@tool(write=True)
def cancel_prescription(db: Db, prescription_id: int, reason: str) -> dict:
    """Cancel an active prescription (e.g. stopped by the doctor or replaced).

    Args:
        prescription_id: the prescription's id.
        reason: why it is cancelled.
    """
    rx = db.one("SELECT * FROM prescriptions WHERE id = ?", (prescription_id,),
                missing=f"no prescription with id {prescription_id}; see list_prescriptions")
    if rx["status"] != "active":
        raise ToolError(f"prescription {prescription_id} is {rx['status']}; only active prescriptions can be cancelled")
    if not reason.strip():
        raise ToolError("give a reason")
    db.execute(
        "UPDATE prescriptions SET status = 'cancelled', cancel_reason = ? WHERE id = ?",
        (reason.strip(), prescription_id),
    )
    _audit(db, "prescription_cancelled", "prescription", prescription_id, {"reason": reason.strip()})
    return {"prescription_id": prescription_id, "status": "cancelled"}


# ---------------------------------------------------------------------------------------------
# write tools: billing
# ---------------------------------------------------------------------------------------------


@tool(write=True)
def issue_invoice(db: Db, appointment_id: int) -> dict:
    """Bill a completed visit: the fee is split between insurer and patient using the policy valid on the visit day.

    Only one non-void visit invoice may exist per appointment. An invoice with nothing left for the
    patient to pay is issued as paid.

    Args:
        appointment_id: the completed appointment's id.
    """
    appt = _appointment_in(
        db, appointment_id, ("completed",), "only completed visits are invoiced (complete_appointment first)"
    )
    existing = db.one(
        "SELECT invoice_number FROM invoices WHERE appointment_id = ? AND kind = 'visit' AND status != 'void'",
        (appointment_id,),
    )
    if existing:
        raise ToolError(f"appointment {appointment_id} is already invoiced ({existing['invoice_number']})")
    atype = _appt_type(db, appt["appointment_type_id"])
    cov = _coverage(db, appt["patient_id"], atype, date.fromisoformat(appt["starts_at"][:10]))
    inv = _create_invoice(
        db,
        patient_id=appt["patient_id"],
        appointment_id=appointment_id,
        kind="visit",
        description=f"{atype['name']} {appt['starts_at'][:10]}",
        fee_cents=cov["fee_cents"],
        covered_cents=cov["insurance_covered_cents"],
        policy_id=cov["policy_id"],
    )
    inv["coverage"] = cov["explanation"]
    return inv


@tool(write=True)
def record_payment(
    db: Db,
    invoice_number: str,
    amount_cents: int,
    method: Literal["card", "cash", "check", "bank_transfer"],
    reference: str | None = None,
) -> dict:
    """Record a patient payment against an invoice; the invoice becomes partially_paid or paid.

    Args:
        invoice_number: the invoice number, e.g. "INV-2026-0112".
        amount_cents: amount paid in cents (e.g. 4550 for $45.50); at most the outstanding amount.
        method: 'card', 'cash', 'check' or 'bank_transfer'.
        reference: card authorisation code, check number or transfer reference.
    """
    inv = _invoice(db, invoice_number)
    if inv["status"] in ("void", "paid"):
        raise ToolError(f"invoice {inv['invoice_number']} is {inv['status']}; no payment is due")
    outstanding = inv["patient_due_cents"] - _paid_cents(db, inv["id"])
    if amount_cents <= 0:
        raise ToolError("amount_cents must be positive")
    if amount_cents > outstanding:
        raise ToolError(
            f"{_money(amount_cents)} is more than the {_money(outstanding)} outstanding on {inv['invoice_number']}"
        )
    pid = db.insert(
        "payments",
        {
            "invoice_id": inv["id"],
            "amount_cents": amount_cents,
            "method": method,
            "reference": reference.strip() if reference else None,
            "paid_at": _fmt(db.now()),
        },
    )
    remaining = outstanding - amount_cents
    status = "paid" if remaining == 0 else "partially_paid"
    db.execute("UPDATE invoices SET status = ? WHERE id = ?", (status, inv["id"]))
    _audit(
        db,
        "payment_recorded",
        "invoice",
        inv["id"],
        {"payment_id": pid, "amount_cents": amount_cents, "method": method},
    )
    return {
        "payment_id": pid,
        "invoice_number": inv["invoice_number"],
        "amount_cents": amount_cents,
        "outstanding_cents": remaining,
        "invoice_status": status,
    }


@tool(write=True)
def void_invoice(db: Db, invoice_number: str, reason: str) -> dict:
    """Void an invoice issued in error; refused once any payment has been recorded on it.

    Args:
        invoice_number: the invoice number, e.g. "INV-2026-0112".
        reason: why it is voided.
    """
    inv = _invoice(db, invoice_number)
    if inv["status"] == "void":
        raise ToolError(f"invoice {inv['invoice_number']} is already void")
    if _paid_cents(db, inv["id"]) > 0:
        raise ToolError(f"invoice {inv['invoice_number']} has payments recorded; it cannot be voided")
    if not reason.strip():
        raise ToolError("give a reason")
    db.execute("UPDATE invoices SET status = 'void', void_reason = ? WHERE id = ?", (reason.strip(), inv["id"]))
    _audit(db, "invoice_voided", "invoice", inv["id"], {"reason": reason.strip()})
    return {"invoice_number": inv["invoice_number"], "status": "void"}
