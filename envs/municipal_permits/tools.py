"""Tools of the municipal_permits world: a city permits office.

Applicants (residents and businesses) and city staff are named by e-mail, parcels by parcel number
("N-412-0007"), permit types by code ("BLD", "EVT", "PRK", "SGN", "FTK"), applications by application
number ("A26-10042"), issued permits by permit number ("SGN-2026-00042"), and inspections, notices and
appeals by the ids the read tools return. Applicant tools act only on the applicant's own applications;
staff tools check the staff member's role (clerk, reviewer, inspector, supervisor).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, filters, like_any, parse_day, require_owner, require_role, tool
from awm.tooling import check_limit as _limit
from awm.tooling import dollars as _money
from awm.tooling import now_iso as _now

REINSPECTION_FEE = 7500
MAX_REINSPECTIONS = 2
REINSPECTION_GAP_DAYS = 2
APPEAL_WINDOW_DAYS = 30
RENEWAL_WINDOW_DAYS = 30
AppStatus = Literal["draft", "submitted", "under_review", "approved", "rejected", "issued", "expired", "withdrawn"]
PayMethod = Literal["card", "check", "cash"]
Position = Literal["support", "oppose", "neutral"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _today(db: Db) -> str:
    return db.today().isoformat()


def _date(value: str, what: str) -> date:
    return parse_day(value, what, "2026-10-01")


def _applicant(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT * FROM applicants WHERE lower(email) = lower(?)", (email.strip(),),
                  missing=f"No applicant account with e-mail {email!r}. Use find_applicants to look one up.")


def _staff(db: Db, email: str, roles: tuple[str, ...], what: str) -> dict[str, Any]:
    row = db.one("SELECT * FROM staff WHERE lower(email) = lower(?)", (email.strip(),),
                 missing=f"No city staff member with e-mail {email!r}. Use list_staff.")
    if not row["is_active"]:
        raise ToolError(f"{row['full_name']} no longer works in the permits office.")
    require_role(row, roles, what)
    return row


_APP_SQL = ("SELECT a.*, t.code AS type_code, t.name AS type_name, t.requires_inspection, t.notice_days, t.validity_days, "
            "t.min_lead_days, t.renewal_fee_cents, t.base_fee_cents, t.per_day_fee_cents, t.applicant_kind, "
            "p.parcel_number, p.address, p.district_id, ap.name AS applicant_name, ap.email AS applicant_email "
            "FROM applications a JOIN permit_types t ON t.id = a.permit_type_id JOIN parcels p ON p.id = a.parcel_id "
            "JOIN applicants ap ON ap.id = a.applicant_id ")


def _app(db: Db, app_number: str) -> dict[str, Any]:
    return db.one(_APP_SQL + "WHERE upper(a.app_number) = upper(?)", (app_number.strip(),),
                  missing=f"No application {app_number!r}. Numbers look like 'A26-10042'; use search_applications.")


def _own(db: Db, app: dict[str, Any], applicant_email: str) -> dict[str, Any]:
    """``app``, once the applicant acting (``applicant_email``) is found to be its applicant."""
    require_owner(app, "applicant_id", _applicant(db, applicant_email)["id"],
                  f"Application {app['app_number']} belongs to another applicant; you can only act on your own.")
    return app


def _paid(db: Db, app_id: int) -> tuple[int, int]:
    fee = db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM payments WHERE application_id = ? AND kind = 'fee'", (app_id,))
    ref = db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM payments WHERE application_id = ? AND kind = 'refund'", (app_id,))
    return fee, ref


def _missing_docs(db: Db, app: dict[str, Any]) -> list[dict[str, Any]]:
    return db.query("SELECT r.doc_code, r.name FROM required_documents r WHERE r.permit_type_id = ? AND NOT EXISTS "
                    "(SELECT 1 FROM application_documents d WHERE d.application_id = ? AND d.doc_code = r.doc_code) "
                    "ORDER BY r.id", (app["permit_type_id"], app["id"]))


def _next_ref(db: Db, prefix: str) -> str:
    n = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM payments")
    return f"{prefix}-{n:06d}"


def _next_app_number(db: Db) -> str:
    n = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM applications")
    return f"A{db.today().year % 100:02d}-{10000 + n}"


def _deciding(db: Db, app_number: str, reviewer_email: str, verb: str, done: str) -> dict[str, Any]:
    """The application under review that ``reviewer_email`` (its reviewer or a supervisor) is about to ``verb``."""
    a = _app(db, app_number)
    s = _staff(db, reviewer_email, ("reviewer", "supervisor"), f"{verb} applications")
    if a["status"] != "under_review":
        raise ToolError(f"Application {a['app_number']} is {a['status']}; only applications under review can be {done}.")
    if s["role"] != "supervisor" and a["reviewer_id"] != s["id"]:
        raise ToolError("Only the application's reviewer or a supervisor can decide it.")
    return a


def _blockers(db: Db, app: dict[str, Any]) -> list[str]:
    """What still stops an application under review from being approved."""
    out = []
    if app["notice_days"]:
        n = db.one("SELECT * FROM public_notices WHERE application_id = ?", (app["id"],))
        if n is None:
            out.append(f"a public notice must be posted ({app['notice_days']}-day comment period)")
        elif n["comment_deadline"] >= _today(db):
            out.append(f"the public comment period runs until {n['comment_deadline']}")
    if app["requires_inspection"]:
        if not db.value("SELECT 1 FROM inspections WHERE application_id = ? AND status = 'passed'", (app["id"],)):
            out.append("a site inspection must be passed")
    return out


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def list_permit_types(db: Db) -> list[dict]:
    """List the permit types: fees (base, per day for events, renewal), validity, who may apply, whether a site
    inspection and a public notice are needed, the lead time, the zones allowed and the required documents."""
    rows = db.query("SELECT * FROM permit_types ORDER BY id")
    out = []
    for t in rows:
        out.append({"code": t["code"], "name": t["name"], "base_fee": _money(t["base_fee_cents"]),
                    "per_day_fee": _money(t["per_day_fee_cents"]), "renewal_fee": _money(t["renewal_fee_cents"]),
                    "validity_days": t["validity_days"], "applicant_kind": t["applicant_kind"] or "any",
                    "requires_inspection": bool(t["requires_inspection"]), "public_notice_days": t["notice_days"],
                    "min_lead_days": t["min_lead_days"],
                    "zones": [r["code"] for r in db.query("SELECT z.code FROM permit_type_zones x JOIN zones z ON z.id = x.zone_id "
                                                          "WHERE x.permit_type_id = ? ORDER BY z.id", (t["id"],))],
                    "required_documents": db.query("SELECT doc_code, name FROM required_documents WHERE permit_type_id = ? "
                                                   "ORDER BY id", (t["id"],))})
    return out


@tool
def find_applicants(db: Db, query: str, kind: Literal["resident", "business"] | None = None, limit: int = 10) -> list[dict]:
    """Find resident or business applicant accounts by part of the name, e-mail or business licence number.

    Args:
        query: words of the name, or part of the e-mail / licence number.
        kind: only residents or only businesses.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "lower(a.name)", "lower(a.email)", "lower(coalesce(a.business_license_no, ''))",
                           lower=True)
    return db.query("SELECT a.name, a.email, a.kind, a.phone, a.business_license_no, p.address AS home_address FROM applicants a "
                    f"LEFT JOIN parcels p ON p.id = a.home_parcel_id WHERE {who} "
                    "AND (? IS NULL OR a.kind = ?) ORDER BY a.name, a.id LIMIT ?",
                    (*params, kind, kind, limit))


@tool
def lookup_parcel(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Find parcels by parcel number or street address, with their district and zoning.

    Args:
        query: part of the parcel number or address, e.g. "412 Oak".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    where, params = like_any(query.strip(), "lower(p.parcel_number)", "lower(p.address)", lower=True)
    return db.query("SELECT p.parcel_number, p.address, d.code AS district, z.code AS zone, z.name AS zone_name FROM parcels p "
                    f"JOIN districts d ON d.id = p.district_id JOIN zones z ON z.id = p.zone_id WHERE {where} "
                    "ORDER BY p.address LIMIT ?", (*params, limit))


@tool
def search_applications(db: Db, applicant_email: str | None = None, status: AppStatus | None = None,
                        permit_type: str | None = None, district_code: str | None = None, limit: int = 20) -> list[dict]:
    """Search applications, newest first, by applicant, status, permit type and district.

    Args:
        applicant_email: only this applicant's applications.
        status: only applications with this status.
        permit_type: only this permit type code, e.g. "SGN".
        district_code: only parcels in this district, e.g. "N".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    aid = _applicant(db, applicant_email)["id"] if applicant_email else None
    where, params = filters(("a.applicant_id = ?", aid), ("a.status = ?", status), ("t.code = upper(?)", permit_type),
                            ("d.code = upper(?)", district_code))
    return db.query("SELECT a.app_number, t.code AS permit_type, ap.name AS applicant, p.address, d.code AS district, a.status, "
                    "a.description, a.submitted_at, a.permit_number FROM applications a JOIN permit_types t ON t.id = a.permit_type_id "
                    "JOIN applicants ap ON ap.id = a.applicant_id JOIN parcels p ON p.id = a.parcel_id JOIN districts d ON "
                    f"d.id = p.district_id WHERE {where} ORDER BY a.created_at DESC, a.id DESC LIMIT ?", (*params, limit))


@tool
def get_application(db: Db, app_number: str) -> dict:
    """An application in full: type, applicant, parcel, dates, status, fee, payments and balance owed, documents
    uploaded and still missing, inspections, public notice, appeal, and what still blocks approval.

    Args:
        app_number: the application number, e.g. "A26-10042".
    """
    a = _app(db, app_number)
    fee_paid, refunded = _paid(db, a["id"])
    reviewer = db.value("SELECT full_name FROM staff WHERE id = ?", (a["reviewer_id"],))
    out = {k: a[k] for k in ("app_number", "type_code", "type_name", "applicant_name", "applicant_email", "parcel_number",
                             "address", "description", "start_date", "end_date", "status", "reinspections", "submitted_at",
                             "decided_at", "decision_note", "permit_number", "issued_at", "expires_on", "withdrawn_at")}
    out.update(reviewer=reviewer, fee=_money(a["fee_cents"]), paid=_money(fee_paid), refunded=_money(refunded),
               balance_due=_money(max(0, a["fee_cents"] - fee_paid)),
               documents=db.query("SELECT doc_code, file_name, uploaded_at FROM application_documents WHERE application_id = ? "
                                  "ORDER BY id", (a["id"],)),
               missing_documents=_missing_docs(db, a),
               inspections=db.query("SELECT i.id, i.kind, i.scheduled_date, i.status, i.result_note, s.full_name AS inspector "
                                    "FROM inspections i JOIN staff s ON s.id = i.inspector_id WHERE i.application_id = ? ORDER BY i.id",
                                    (a["id"],)),
               public_notice=db.one("SELECT id, posted_on, comment_deadline FROM public_notices WHERE application_id = ?", (a["id"],)),
               appeal=db.one("SELECT id, status, reason, filed_at, decision_note FROM appeals WHERE application_id = ?", (a["id"],)),
               renewal_of=db.value("SELECT permit_number FROM applications WHERE id = ?", (a["renewal_of_id"],)))
    if a["status"] == "under_review":
        out["approval_blockers"] = _blockers(db, a)
    return out


@tool
def list_payments(db: Db, app_number: str) -> list[dict]:
    """List the fee payments and refunds of an application.

    Args:
        app_number: the application number.
    """
    a = _app(db, app_number)
    rows = db.query("SELECT reference, kind, amount_cents, method, paid_at FROM payments WHERE application_id = ? ORDER BY id", (a["id"],))
    for r in rows:
        r["amount"] = _money(r.pop("amount_cents"))
    return rows


@tool
def list_staff(db: Db, role: Literal["clerk", "reviewer", "inspector", "supervisor"] | None = None,
               district_code: str | None = None) -> list[dict]:
    """List permits-office staff, e.g. the inspectors of a district with their daily capacity.

    Args:
        role: only this role.
        district_code: only inspectors of this district, e.g. "N".
    """
    where, params = filters(("s.role = ?", role), ("d.code = upper(?)", district_code))
    return db.query("SELECT s.full_name, s.email, s.role, d.code AS district, s.daily_capacity, s.is_active FROM staff s "
                    f"LEFT JOIN districts d ON d.id = s.district_id WHERE {where} ORDER BY s.role, s.full_name", params)


@tool
def get_inspector_schedule(db: Db, inspector_email: str, day: str) -> dict:
    """An inspector's inspections on one day and how many slots are left under their daily capacity.

    Args:
        inspector_email: the inspector's e-mail.
        day: the date, YYYY-MM-DD.
    """
    s = _staff(db, inspector_email, ("inspector",), "hold an inspection schedule")
    d = _date(day, "day")
    rows = db.query("SELECT i.id, a.app_number, p.address, i.kind, i.status FROM inspections i JOIN applications a ON a.id = i.application_id "
                    "JOIN parcels p ON p.id = a.parcel_id WHERE i.inspector_id = ? AND i.scheduled_date = ? AND i.status <> 'cancelled' "
                    "ORDER BY i.id", (s["id"], d.isoformat()))
    return {"inspector": s["full_name"], "district": db.value("SELECT code FROM districts WHERE id = ?", (s["district_id"],)),
            "day": d.isoformat(), "capacity": s["daily_capacity"], "booked": len(rows),
            "free_slots": max(0, s["daily_capacity"] - len(rows)) if d.weekday() < 5 else 0, "inspections": rows}


@tool
def list_inspections(db: Db, inspector_email: str | None = None, status: Literal["scheduled", "passed", "failed", "cancelled"] | None = None,
                     date_from: str | None = None, date_to: str | None = None, limit: int = 20) -> list[dict]:
    """List inspections, optionally of one inspector, with a status, in a date range.

    Args:
        inspector_email: only this inspector's inspections.
        status: only inspections with this status.
        date_from: only on or after this date (YYYY-MM-DD).
        date_to: only on or before this date (YYYY-MM-DD).
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    sid = _staff(db, inspector_email, ("inspector",), "hold inspections")["id"] if inspector_email else None
    lo = _date(date_from, "date_from").isoformat() if date_from else None
    hi = _date(date_to, "date_to").isoformat() if date_to else None
    where, params = filters(("i.inspector_id = ?", sid), ("i.status = ?", status), ("i.scheduled_date >= ?", lo),
                            ("i.scheduled_date <= ?", hi))
    return db.query("SELECT i.id, a.app_number, t.code AS permit_type, p.address, i.kind, i.scheduled_date, i.status, "
                    "s.full_name AS inspector FROM inspections i JOIN applications a ON a.id = i.application_id JOIN permit_types t "
                    "ON t.id = a.permit_type_id JOIN parcels p ON p.id = a.parcel_id JOIN staff s ON s.id = i.inspector_id "
                    f"WHERE {where} ORDER BY i.scheduled_date, i.id LIMIT ?", (*params, limit))


@tool
def get_public_notice(db: Db, app_number: str) -> dict:
    """The public notice of an application and the comments received.

    Args:
        app_number: the application number.
    """
    a = _app(db, app_number)
    n = db.one("SELECT * FROM public_notices WHERE application_id = ?", (a["id"],))
    if n is None:
        return {"app_number": a["app_number"], "notice": None, "comments": []}
    comments = db.query("SELECT commenter_name, position, body, submitted_at FROM public_comments WHERE notice_id = ? ORDER BY id", (n["id"],))
    return {"app_number": a["app_number"], "notice_id": n["id"], "posted_on": n["posted_on"],
            "comment_deadline": n["comment_deadline"], "open": n["comment_deadline"] >= _today(db), "comments": comments}


@tool
def list_appeals(db: Db, status: Literal["filed", "upheld", "denied"] | None = None, limit: int = 20) -> list[dict]:
    """List appeals against rejections.

    Args:
        status: only appeals with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    return db.query("SELECT x.id, a.app_number, ap.name AS applicant, x.reason, x.status, x.filed_at, x.decision_note FROM appeals x "
                    "JOIN applications a ON a.id = x.application_id JOIN applicants ap ON ap.id = a.applicant_id "
                    "WHERE (? IS NULL OR x.status = ?) ORDER BY x.filed_at DESC LIMIT ?", (status, status, limit))


@tool
def get_permit(db: Db, permit_number: str) -> dict:
    """An issued permit: holder, type, parcel, issue and expiry dates, whether it is still valid and whether a
    renewal can be requested now.

    Args:
        permit_number: the permit number, e.g. "SGN-2026-00042".
    """
    a = db.one(_APP_SQL + "WHERE upper(a.permit_number) = upper(?)", (permit_number.strip(),),
               missing=f"No permit {permit_number!r}. Permit numbers look like 'SGN-2026-00042'.")
    renewed = db.value("SELECT app_number FROM applications WHERE renewal_of_id = ?", (a["id"],))
    days_left = (date.fromisoformat(a["expires_on"]) - db.today()).days
    return {"permit_number": a["permit_number"], "app_number": a["app_number"], "type": a["type_code"], "holder": a["applicant_name"],
            "address": a["address"], "issued_at": a["issued_at"], "expires_on": a["expires_on"], "status": a["status"],
            "valid": a["status"] == "issued" and days_left >= 0, "renewal_application": renewed,
            "renewable_now": a["renewal_fee_cents"] is not None and renewed is None and -RENEWAL_WINDOW_DAYS <= days_left <= RENEWAL_WINDOW_DAYS}


@tool
def list_districts(db: Db) -> list[dict]:
    """List the city's districts with their codes and how many inspectors cover each."""
    return db.query("SELECT d.code, d.name, (SELECT COUNT(*) FROM staff s WHERE s.district_id = d.id AND s.role = 'inspector' "
                    "AND s.is_active = 1) AS inspectors FROM districts d ORDER BY d.id")


@tool
def get_applicant(db: Db, email: str) -> dict:
    """An applicant account: kind, contact details, business licence, home address, and their applications and
    permits by status.

    Args:
        email: the applicant's e-mail.
    """
    a = _applicant(db, email)
    home = db.one("SELECT parcel_number, address FROM parcels WHERE id = ?", (a["home_parcel_id"],)) if a["home_parcel_id"] else None
    apps = db.query("SELECT a.app_number, t.code AS permit_type, a.status, a.permit_number, a.expires_on FROM applications a "
                    "JOIN permit_types t ON t.id = a.permit_type_id WHERE a.applicant_id = ? ORDER BY a.created_at DESC, a.id DESC "
                    "LIMIT 20", (a["id"],))
    return {"name": a["name"], "email": a["email"], "kind": a["kind"], "phone": a["phone"],
            "business_license_no": a["business_license_no"], "home_parcel": home, "applications": apps}


@tool
def list_zones(db: Db) -> list[dict]:
    """List the zoning codes and which permit types each allows."""
    rows = db.query("SELECT id, code, name FROM zones ORDER BY id")
    for r in rows:
        r["permit_types"] = [x["code"] for x in db.query("SELECT t.code FROM permit_type_zones z JOIN permit_types t ON t.id = "
                                                         "z.permit_type_id WHERE z.zone_id = ? ORDER BY t.id", (r.pop("id"),))]
    return rows


# ----------------------------------------------------------------------------------------------
# write tools: applicants
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_application(db: Db, applicant_email: str, permit_type: str, parcel_number: str, description: str,
                       start_date: str | None = None, end_date: str | None = None) -> dict:
    """Start a draft application. The parcel's zone must allow the permit type; parking permits are for residents on
    their own home parcel; signage and food truck permits are for businesses; event permits need the event's start
    and end dates (the fee is the base fee plus a fee per event day), other types take no dates.

    Args:
        applicant_email: the applicant's e-mail.
        permit_type: "BLD", "EVT", "PRK", "SGN" or "FTK".
        parcel_number: the parcel, e.g. "N-412-0007".
        description: what the permit is for.
        start_date: event permits only: first event day, YYYY-MM-DD.
        end_date: event permits only: last event day, YYYY-MM-DD.
    """
    ap = _applicant(db, applicant_email)
    t = db.one("SELECT * FROM permit_types WHERE code = upper(?)", (permit_type.strip(),),
               missing=f"Unknown permit type {permit_type!r}; see list_permit_types.")
    p = db.one("SELECT p.*, z.code AS zone FROM parcels p JOIN zones z ON z.id = p.zone_id WHERE upper(p.parcel_number) = upper(?)",
               (parcel_number.strip(),),
               missing=f"No parcel {parcel_number!r}; use lookup_parcel with the address.")
    if not db.value("SELECT 1 FROM permit_type_zones WHERE permit_type_id = ? AND zone_id = ?", (t["id"], p["zone_id"])):
        raise ToolError(f"A {t['name'].lower()} is not allowed in zone {p['zone']} ({p['address']}).")
    if t["applicant_kind"] and ap["kind"] != t["applicant_kind"]:
        raise ToolError(f"Only {t['applicant_kind']} accounts can apply for a {t['name'].lower()}.")
    if t["code"] == "PRK" and ap["home_parcel_id"] != p["id"]:
        raise ToolError("A residential parking permit can only be requested for the applicant's own home parcel.")
    if not description.strip():
        raise ToolError("Describe what the permit is for.")
    days = 0
    if t["per_day_fee_cents"] or t["min_lead_days"]:
        if not start_date or not end_date:
            raise ToolError(f"A {t['name'].lower()} needs start_date and end_date.")
        s, e = _date(start_date, "start_date"), _date(end_date, "end_date")
        if e < s or (e - s).days > 13:
            raise ToolError("end_date must be on or after start_date, and an event may last at most 14 days.")
        if s <= db.today():
            raise ToolError("The event must start in the future.")
        days = (e - s).days + 1
        dates = (s.isoformat(), e.isoformat())
    else:
        if start_date or end_date:
            raise ToolError(f"A {t['name'].lower()} takes no dates.")
        dates = (None, None)
    number = _next_app_number(db)
    aid = db.insert("applications", {"app_number": number, "permit_type_id": t["id"], "applicant_id": ap["id"], "parcel_id": p["id"],
                                     "description": description.strip(), "start_date": dates[0], "end_date": dates[1],
                                     "status": "draft", "fee_cents": t["base_fee_cents"] + t["per_day_fee_cents"] * days,
                                     "reinspections": 0, "created_at": _now(db)})
    req = db.query("SELECT doc_code, name FROM required_documents WHERE permit_type_id = ? ORDER BY id", (t["id"],))
    return {"app_number": number, "id": aid, "status": "draft", "fee": _money(t["base_fee_cents"] + t["per_day_fee_cents"] * days),
            "required_documents": req}


@tool(write=True)
def upload_document(db: Db, app_number: str, doc_code: str, file_name: str, applicant_email: str) -> dict:
    """Attach one of the documents the permit type requires to your application (draft, submitted or under review).
    Each document code is attached once; a rejected or closed application takes no more documents.

    Args:
        app_number: the application number.
        doc_code: the required document's code, e.g. "SITE_PLAN" (see get_application's missing_documents).
        file_name: the file's name, e.g. "site_plan_v2.pdf".
        applicant_email: your e-mail; it must be your application.
    """
    a = _own(db, _app(db, app_number), applicant_email)
    if a["status"] not in ("draft", "submitted", "under_review"):
        raise ToolError(f"Application {a['app_number']} is {a['status']}; it takes no more documents.")
    code = doc_code.strip().upper()
    if not db.value("SELECT 1 FROM required_documents WHERE permit_type_id = ? AND doc_code = ?", (a["permit_type_id"], code)):
        codes = ", ".join(r["doc_code"] for r in db.query("SELECT doc_code FROM required_documents WHERE permit_type_id = ?",
                                                          (a["permit_type_id"],)))
        raise ToolError(f"{code!r} is not a document of a {a['type_name'].lower()}; its documents are {codes}.")
    db.none("SELECT 1 FROM application_documents WHERE application_id = ? AND doc_code = ?", (a["id"], code),
            found=f"{code} is already attached to {a['app_number']}.")
    if not re.fullmatch(r"[\w.\- ]{1,100}\.(pdf|jpg|jpeg|png)", file_name.strip(), re.IGNORECASE):
        raise ToolError("file_name must be a PDF, JPG or PNG file name, e.g. 'site_plan.pdf'.")
    db.insert("application_documents", {"application_id": a["id"], "doc_code": code, "file_name": file_name.strip(),
                                         "uploaded_at": _now(db)})
    return {"app_number": a["app_number"], "doc_code": code, "still_missing": [d["doc_code"] for d in _missing_docs(db, a)]}


@tool(write=True)
def submit_application(db: Db, app_number: str, applicant_email: str) -> dict:
    """Submit your draft application for review. All required documents must be attached, and an event must start
    at least the type's lead time from today (21 days for events).

    Args:
        app_number: the application number.
        applicant_email: your e-mail; it must be your application.
    """
    a = _own(db, _app(db, app_number), applicant_email)
    if a["status"] != "draft":
        raise ToolError(f"Application {a['app_number']} is {a['status']}; only drafts can be submitted.")
    missing = _missing_docs(db, a)
    if missing:
        raise ToolError("Attach the missing documents first: " + ", ".join(f"{m['doc_code']} ({m['name']})" for m in missing) + ".")
    if a["start_date"] and date.fromisoformat(a["start_date"]) < db.today() + timedelta(days=a["min_lead_days"]):
        raise ToolError(f"Events must be submitted at least {a['min_lead_days']} days before they start.")
    db.execute("UPDATE applications SET status = 'submitted', submitted_at = ? WHERE id = ?", (_now(db), a["id"]))
    return {"app_number": a["app_number"], "status": "submitted", "fee_due": _money(a["fee_cents"] - _paid(db, a["id"])[0])}


@tool(write=True)
def pay_fee(db: Db, app_number: str, amount: float, method: PayMethod, applicant_email: str) -> dict:
    """Pay what is still owed on your submitted, under-review or approved application. The amount must equal the
    balance due exactly (the fee plus any re-inspection fees, minus what was already paid).

    Args:
        app_number: the application number.
        amount: the amount in US dollars, e.g. 120.0.
        method: "card", "check" or "cash".
        applicant_email: your e-mail; it must be your application.
    """
    a = _own(db, _app(db, app_number), applicant_email)
    if a["status"] not in ("submitted", "under_review", "approved"):
        raise ToolError(f"Application {a['app_number']} is {a['status']}; fees are paid once it is submitted and before it is issued.")
    due = a["fee_cents"] - _paid(db, a["id"])[0]
    if due <= 0:
        raise ToolError(f"Nothing is owed on {a['app_number']}.")
    if round(amount * 100) != due:
        raise ToolError(f"The balance due on {a['app_number']} is {_money(due)}; pay exactly that amount.")
    ref = _next_ref(db, "PMT")
    db.insert("payments", {"application_id": a["id"], "kind": "fee", "amount_cents": due, "method": method, "reference": ref,
                           "recorded_by": None, "paid_at": _now(db)})
    return {"app_number": a["app_number"], "reference": ref, "paid": _money(due), "balance_due": 0.0}


@tool(write=True)
def withdraw_application(db: Db, app_number: str, applicant_email: str) -> dict:
    """Withdraw your application while it is a draft, submitted or under review. Refunds are made by a supervisor.

    Args:
        app_number: the application number.
        applicant_email: your e-mail; it must be your application.
    """
    a = _own(db, _app(db, app_number), applicant_email)
    if a["status"] not in ("draft", "submitted", "under_review"):
        raise ToolError(f"Application {a['app_number']} is {a['status']} and can no longer be withdrawn.")
    db.execute("UPDATE applications SET status = 'withdrawn', withdrawn_at = ? WHERE id = ?", (_now(db), a["id"]))
    db.execute("UPDATE inspections SET status = 'cancelled' WHERE application_id = ? AND status = 'scheduled'", (a["id"],))
    return {"app_number": a["app_number"], "status": "withdrawn"}


@tool(write=True)
def file_appeal(db: Db, app_number: str, reason: str, applicant_email: str) -> dict:
    """Appeal the rejection of your application, within 30 days of the decision; one appeal per application.

    Args:
        app_number: the rejected application's number.
        reason: why the decision should change.
        applicant_email: your e-mail; it must be your application.
    """
    a = _own(db, _app(db, app_number), applicant_email)
    if a["status"] != "rejected":
        raise ToolError(f"Application {a['app_number']} is {a['status']}; only rejections can be appealed.")
    if (db.today() - date.fromisoformat(a["decided_at"][:10])).days > APPEAL_WINDOW_DAYS:
        raise ToolError(f"The appeal window of {APPEAL_WINDOW_DAYS} days after the decision ({a['decided_at'][:10]}) has passed.")
    db.none("SELECT 1 FROM appeals WHERE application_id = ?", (a["id"],),
            found=f"Application {a['app_number']} has already been appealed.")
    if not reason.strip():
        raise ToolError("Give the reason for the appeal.")
    xid = db.insert("appeals", {"application_id": a["id"], "reason": reason.strip(), "status": "filed", "filed_at": _now(db)})
    return {"appeal_id": xid, "app_number": a["app_number"], "status": "filed"}


@tool(write=True)
def renew_permit(db: Db, permit_number: str, applicant_email: str) -> dict:
    """Ask to renew your permit: allowed for renewable types (parking, signage, food truck) from 30 days before until
    30 days after expiry, once per permit. It creates a submitted renewal application on the same parcel with the
    type's renewal fee; no new documents are needed.

    Args:
        permit_number: the permit number, e.g. "PRK-2025-00012".
        applicant_email: the permit holder's e-mail.
    """
    a = db.one(_APP_SQL + "WHERE upper(a.permit_number) = upper(?)", (permit_number.strip(),),
               missing=f"No permit {permit_number!r}.")
    _own(db, a, applicant_email)
    if a["renewal_fee_cents"] is None:
        raise ToolError(f"{a['type_name']}s cannot be renewed; apply for a new permit.")
    days_left = (date.fromisoformat(a["expires_on"]) - db.today()).days
    if not -RENEWAL_WINDOW_DAYS <= days_left <= RENEWAL_WINDOW_DAYS:
        raise ToolError(f"Permit {a['permit_number']} expires on {a['expires_on']}; renewals open 30 days before expiry and "
                        "close 30 days after.")
    db.none("SELECT 1 FROM applications WHERE renewal_of_id = ?", (a["id"],),
            found=f"Permit {a['permit_number']} already has a renewal application.")
    number = _next_app_number(db)
    db.insert("applications", {"app_number": number, "permit_type_id": a["permit_type_id"], "applicant_id": a["applicant_id"],
                               "parcel_id": a["parcel_id"], "description": f"Renewal of {a['permit_number']}", "status": "submitted",
                               "fee_cents": a["renewal_fee_cents"], "reinspections": 0, "created_at": _now(db),
                               "submitted_at": _now(db), "renewal_of_id": a["id"]})
    return {"app_number": number, "status": "submitted", "fee": _money(a["renewal_fee_cents"]), "renewal_of": a["permit_number"]}


@tool(write=True)
def add_public_comment(db: Db, notice_id: int, commenter_name: str, commenter_email: str, position: Position, body: str) -> dict:
    """Add a member of the public's comment to a public notice while its comment period is open; one comment per
    e-mail per notice.

    Args:
        notice_id: the notice's id (from get_public_notice).
        commenter_name: the commenter's name.
        commenter_email: the commenter's e-mail.
        position: "support", "oppose" or "neutral".
        body: the comment, 1 to 2000 characters.
    """
    n = db.one("SELECT * FROM public_notices WHERE id = ?", (notice_id,),
               missing=f"No public notice {notice_id}; use get_public_notice with the application number.")
    if n["comment_deadline"] < _today(db):
        raise ToolError(f"The comment period closed on {n['comment_deadline']}.")
    if not commenter_name.strip() or "@" not in commenter_email or not 1 <= len(body.strip()) <= 2000:
        raise ToolError("Give the commenter's name, a valid e-mail and a comment of 1 to 2000 characters.")
    db.none("SELECT 1 FROM public_comments WHERE notice_id = ? AND lower(commenter_email) = lower(?)",
            (notice_id, commenter_email.strip()), found="This e-mail has already commented on this notice.")
    cid = db.insert("public_comments", {"notice_id": notice_id, "commenter_name": commenter_name.strip(),
                                        "commenter_email": commenter_email.strip().lower(), "position": position,
                                        "body": body.strip(), "submitted_at": _now(db)})
    return {"comment_id": cid, "notice_id": notice_id}


# ----------------------------------------------------------------------------------------------
# write tools: staff
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def start_review(db: Db, app_number: str, reviewer_email: str) -> dict:
    """Take a submitted application into review (submitted -> under_review) as its reviewer. For types with a public
    notice, the notice is posted now with its comment period.

    Args:
        app_number: the application number.
        reviewer_email: e-mail of the reviewer (or supervisor) taking it.
    """
    a = _app(db, app_number)
    s = _staff(db, reviewer_email, ("reviewer", "supervisor"), "review applications")
    if a["status"] != "submitted":
        raise ToolError(f"Application {a['app_number']} is {a['status']}; only submitted applications can go into review.")
    db.execute("UPDATE applications SET status = 'under_review', reviewer_id = ? WHERE id = ?", (s["id"], a["id"]))
    notice = None
    if a["notice_days"]:
        dl = (db.today() + timedelta(days=a["notice_days"])).isoformat()
        db.insert("public_notices", {"application_id": a["id"], "posted_on": _today(db), "comment_deadline": dl, "posted_by": s["id"]})
        notice = dl
    return {"app_number": a["app_number"], "status": "under_review", "reviewer": s["full_name"],
            "public_comment_deadline": notice, "needs_inspection": bool(a["requires_inspection"])}


@tool(write=True)
def schedule_inspection(db: Db, app_number: str, inspector_email: str, day: str, scheduler_email: str) -> dict:
    """Book a site inspection for an application under review that needs one. The inspector must cover the parcel's
    district and have a free slot that weekday (daily capacity); the day must be in the future; only one inspection
    may be scheduled at a time. After a failed inspection the next one is a re-inspection, at least 2 days after the
    failure, costs 75 dollars (added to the fee) and at most 2 are allowed. Reviewers and supervisors may book any
    inspector; an inspector may book only themselves.

    Args:
        app_number: the application number.
        inspector_email: e-mail of the inspector.
        day: the inspection day, YYYY-MM-DD.
        scheduler_email: e-mail of the staff member booking it.
    """
    a = _app(db, app_number)
    who = _staff(db, scheduler_email, ("reviewer", "supervisor", "inspector"), "book inspections")
    ins = _staff(db, inspector_email, ("inspector",), "carry out inspections")
    if who["role"] == "inspector" and who["id"] != ins["id"]:
        raise ToolError("Inspectors can only book inspections for themselves.")
    if a["status"] != "under_review":
        raise ToolError(f"Application {a['app_number']} is {a['status']}; inspections are booked during review.")
    if not a["requires_inspection"]:
        raise ToolError(f"A {a['type_name'].lower()} needs no site inspection.")
    if ins["district_id"] != a["district_id"]:
        raise ToolError(f"{ins['full_name']} does not cover the district of {a['address']}; choose an inspector of that district.")
    d = _date(day, "day")
    if d <= db.today() or d.weekday() >= 5:
        raise ToolError("Inspections are booked on a future weekday.")
    db.none("SELECT 1 FROM inspections WHERE application_id = ? AND status = 'scheduled'", (a["id"],),
            found=f"{a['app_number']} already has an inspection scheduled; record or cancel it first.")
    db.none("SELECT 1 FROM inspections WHERE application_id = ? AND status = 'passed'", (a["id"],),
            found=f"{a['app_number']} already passed its inspection.")
    booked = db.value("SELECT COUNT(*) FROM inspections WHERE inspector_id = ? AND scheduled_date = ? AND status <> 'cancelled'",
                      (ins["id"], d.isoformat()))
    if booked >= ins["daily_capacity"]:
        raise ToolError(f"{ins['full_name']} is fully booked on {d.isoformat()} ({booked} of {ins['daily_capacity']}); pick another day or inspector.")
    last_fail = db.one("SELECT * FROM inspections WHERE application_id = ? AND status = 'failed' ORDER BY scheduled_date DESC, id DESC LIMIT 1",
                       (a["id"],))
    kind = "initial"
    if last_fail:
        kind = "reinspection"
        if a["reinspections"] >= MAX_REINSPECTIONS:
            raise ToolError(f"{a['app_number']} already had {MAX_REINSPECTIONS} re-inspections; it must be rejected.")
        earliest = date.fromisoformat(last_fail["scheduled_date"]) + timedelta(days=REINSPECTION_GAP_DAYS)
        if d < earliest:
            raise ToolError(f"A re-inspection can be booked from {earliest.isoformat()}, {REINSPECTION_GAP_DAYS} days after the failure.")
        db.execute("UPDATE applications SET reinspections = reinspections + 1, fee_cents = fee_cents + ? WHERE id = ?",
                   (REINSPECTION_FEE, a["id"]))
    iid = db.insert("inspections", {"application_id": a["id"], "inspector_id": ins["id"], "kind": kind,
                                    "scheduled_date": d.isoformat(), "status": "scheduled"})
    return {"inspection_id": iid, "kind": kind, "day": d.isoformat(), "inspector": ins["full_name"],
            "fee_added": _money(REINSPECTION_FEE) if kind == "reinspection" else 0.0}


@tool(write=True)
def record_inspection_result(db: Db, inspection_id: int, result: Literal["passed", "failed"], note: str, inspector_email: str) -> dict:
    """Record the outcome of a scheduled inspection on or after its day. Only the assigned inspector records it.

    Args:
        inspection_id: the inspection's id.
        result: "passed" or "failed".
        note: what was found (required for a failure).
        inspector_email: the assigned inspector's e-mail.
    """
    i = db.one("SELECT * FROM inspections WHERE id = ?", (inspection_id,),
               missing=f"No inspection {inspection_id}; use list_inspections.")
    ins = _staff(db, inspector_email, ("inspector",), "record inspections")
    if i["inspector_id"] != ins["id"]:
        raise ToolError("Only the inspector assigned to this inspection can record its result.")
    if i["status"] != "scheduled":
        raise ToolError(f"Inspection {inspection_id} is {i['status']}.")
    if i["scheduled_date"] > _today(db):
        raise ToolError(f"Inspection {inspection_id} is on {i['scheduled_date']}; record it on or after that day.")
    if result == "failed" and not note.strip():
        raise ToolError("Say what failed in the note.")
    db.execute("UPDATE inspections SET status = ?, result_note = ?, completed_at = ? WHERE id = ?",
               (result, note.strip() or None, _now(db), inspection_id))
    return {"inspection_id": inspection_id, "status": result}


@tool(write=True)
def cancel_inspection(db: Db, inspection_id: int, staff_email: str) -> dict:
    """Cancel a scheduled inspection (reviewer, supervisor or the assigned inspector). A cancelled re-inspection's
    fee is taken off the application's fee.

    Args:
        inspection_id: the inspection's id.
        staff_email: e-mail of the staff member cancelling.
    """
    i = db.one("SELECT * FROM inspections WHERE id = ?", (inspection_id,),
               missing=f"No inspection {inspection_id}.")
    s = _staff(db, staff_email, ("reviewer", "supervisor", "inspector"), "cancel inspections")
    if s["role"] == "inspector" and s["id"] != i["inspector_id"]:
        raise ToolError("Inspectors can only cancel their own inspections.")
    if i["status"] != "scheduled":
        raise ToolError(f"Inspection {inspection_id} is {i['status']}; only scheduled ones can be cancelled.")
    db.execute("UPDATE inspections SET status = 'cancelled' WHERE id = ?", (inspection_id,))
    if i["kind"] == "reinspection":
        db.execute("UPDATE applications SET reinspections = reinspections - 1, fee_cents = fee_cents - ? WHERE id = ?",
                   (REINSPECTION_FEE, i["application_id"]))
    return {"inspection_id": inspection_id, "status": "cancelled"}


@tool(write=True)
def approve_application(db: Db, app_number: str, reviewer_email: str) -> dict:
    """Approve an application under review. Only its reviewer or a supervisor; the public comment period must be
    over (for types with a notice) and a site inspection passed (for types that need one).

    Args:
        app_number: the application number.
        reviewer_email: e-mail of the application's reviewer or a supervisor.
    """
    a = _deciding(db, app_number, reviewer_email, "approve", "approved")
    blockers = _blockers(db, a)
    if blockers:
        raise ToolError(f"{a['app_number']} cannot be approved yet: " + "; ".join(blockers) + ".")
    db.execute("UPDATE applications SET status = 'approved', decided_at = ?, decision_note = NULL WHERE id = ?", (_now(db), a["id"]))
    return {"app_number": a["app_number"], "status": "approved", "balance_due": _money(a["fee_cents"] - _paid(db, a["id"])[0])}


@tool(write=True)
def reject_application(db: Db, app_number: str, reason: str, reviewer_email: str) -> dict:
    """Reject an application under review with a reason (its reviewer or a supervisor). Scheduled inspections are
    cancelled.

    Args:
        app_number: the application number.
        reason: why it is rejected.
        reviewer_email: e-mail of the application's reviewer or a supervisor.
    """
    a = _deciding(db, app_number, reviewer_email, "reject", "rejected")
    if not reason.strip():
        raise ToolError("Give the reason for the rejection.")
    db.execute("UPDATE applications SET status = 'rejected', decided_at = ?, decision_note = ? WHERE id = ?",
               (_now(db), reason.strip(), a["id"]))
    db.execute("UPDATE inspections SET status = 'cancelled' WHERE application_id = ? AND status = 'scheduled'", (a["id"],))
    return {"app_number": a["app_number"], "status": "rejected"}


@tool(write=True)
def issue_permit(db: Db, app_number: str, clerk_email: str) -> dict:
    """Issue the permit of an approved application whose fee is fully paid (clerk or supervisor). It gets a permit
    number and an expiry date: the event's last day for events, otherwise today plus the type's validity.

    Args:
        app_number: the application number.
        clerk_email: e-mail of the clerk or supervisor issuing it.
    """
    a = _app(db, app_number)
    _staff(db, clerk_email, ("clerk", "supervisor"), "issue permits")
    if a["status"] != "approved":
        raise ToolError(f"Application {a['app_number']} is {a['status']}; only approved applications get a permit.")
    due = a["fee_cents"] - _paid(db, a["id"])[0]
    if due > 0:
        raise ToolError(f"{_money(due)} is still owed on {a['app_number']}; the fee must be paid in full before the permit is issued.")
    number = f"{a['type_code']}-{db.today().year}-{a['id']:05d}"
    expires = a["end_date"] or (db.today() + timedelta(days=a["validity_days"])).isoformat()
    db.execute("UPDATE applications SET status = 'issued', permit_number = ?, issued_at = ?, expires_on = ? WHERE id = ?",
               (number, _now(db), expires, a["id"]))
    return {"app_number": a["app_number"], "permit_number": number, "expires_on": expires}


@tool(write=True)
def refund_payment(db: Db, app_number: str, amount: float, supervisor_email: str) -> dict:
    """Refund fees to the original payment method (supervisors only): up to everything paid on a withdrawn
    application, up to half of what was paid on a rejected one; never more than paid minus earlier refunds.

    Args:
        app_number: the application number.
        amount: the refund in US dollars.
        supervisor_email: the supervisor's e-mail.
    """
    a = _app(db, app_number)
    s = _staff(db, supervisor_email, ("supervisor",), "refund fees")
    if a["status"] not in ("withdrawn", "rejected"):
        raise ToolError(f"Application {a['app_number']} is {a['status']}; only withdrawn or rejected applications get refunds.")
    paid, refunded = _paid(db, a["id"])
    cap = paid if a["status"] == "withdrawn" else paid // 2
    cents = round(amount * 100)
    if cents <= 0:
        raise ToolError("amount must be positive.")
    if refunded + cents > cap:
        raise ToolError(f"At most {_money(max(0, cap - refunded))} can still be refunded on {a['app_number']} "
                        f"({'all' if a['status'] == 'withdrawn' else 'half'} of {_money(paid)} paid, {_money(refunded)} already refunded).")
    ref = _next_ref(db, "RFD")
    db.insert("payments", {"application_id": a["id"], "kind": "refund", "amount_cents": cents, "method": "original_method",
                           "reference": ref, "recorded_by": s["id"], "paid_at": _now(db)})
    return {"app_number": a["app_number"], "reference": ref, "refunded": _money(cents)}


@tool(write=True)
def decide_appeal(db: Db, appeal_id: int, outcome: Literal["upheld", "denied"], note: str, supervisor_email: str) -> dict:
    """Decide a filed appeal (supervisors only). Upholding it sends the application back to review; denying it
    leaves the rejection in place.

    Args:
        appeal_id: the appeal's id (from list_appeals).
        outcome: "upheld" or "denied".
        note: the decision's explanation.
        supervisor_email: the supervisor's e-mail.
    """
    x = db.one("SELECT * FROM appeals WHERE id = ?", (appeal_id,),
               missing=f"No appeal {appeal_id}; use list_appeals.")
    s = _staff(db, supervisor_email, ("supervisor",), "decide appeals")
    if x["status"] != "filed":
        raise ToolError(f"Appeal {appeal_id} was already {x['status']}.")
    if not note.strip():
        raise ToolError("Explain the decision in the note.")
    db.execute("UPDATE appeals SET status = ?, decided_by = ?, decided_at = ?, decision_note = ? WHERE id = ?",
               (outcome, s["id"], _now(db), note.strip(), appeal_id))
    if outcome == "upheld":
        db.execute("UPDATE applications SET status = 'under_review', decided_at = NULL, decision_note = NULL WHERE id = ?",
                   (x["application_id"],))
    return {"appeal_id": appeal_id, "status": outcome}
