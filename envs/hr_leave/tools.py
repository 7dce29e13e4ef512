"""Tools of the hr_leave world: a company's HR system.

People are named by e-mail, departments by code ("ENG"), leave types by code ("annual", "sick",
"parental", "unpaid"), and requests, claims, timesheets, delegations and onboarding tasks by the ids the
read tools return. Every write tool takes the e-mail of the person acting and checks what they may do.
Leave is counted in working days: Monday to Friday, minus the public holidays of the employee's country.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, dollars, filters, like_any, parse_day, require_owner, to_cents, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

LeaveCode = Literal["annual", "sick", "parental", "unpaid"]
RequestStatus = Literal["draft", "submitted", "approved", "rejected", "cancelled"]
ClaimStatus = Literal["submitted", "approved", "rejected", "paid"]
LIVE = ("draft", "submitted", "approved")
SICK_BACKDATE_DAYS = 30
CLAIM_MAX_AGE_DAYS = 90
MAX_DAY_HOURS = 12


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _date(value: str, what: str) -> date:
    return parse_day(value, what, "2026-06-01")


_EMP_SQL = ("SELECT e.*, d.code AS dept_code, d.name AS dept_name, j.title, j.expense_limit_cents, "
            "l.country_code, l.name AS location FROM employees e JOIN departments d ON d.id = e.department_id "
            "JOIN job_titles j ON j.id = e.job_title_id JOIN locations l ON l.id = e.location_id ")


def _emp(db: Db, email: str, what: str = "employee") -> dict[str, Any]:
    return db.one(_EMP_SQL + "WHERE lower(e.email) = lower(?)", (email.strip(),),
                  missing=f"No {what} with e-mail {email!r}. Use find_employees to look people up by name.")


def _emp_id(db: Db, emp_id: int) -> dict[str, Any]:
    return db.one(_EMP_SQL + "WHERE e.id = ?", (emp_id,))


def _active(db: Db, email: str, what: str = "acting employee") -> dict[str, Any]:
    e = _emp(db, email, what)
    if e["status"] != "active":
        raise ToolError(f"{e['full_name']} ({e['email']}) has left the company and cannot act.")
    return e


def _leave_type(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM leave_types WHERE code = ?", (code,),
                  missing=f"Unknown leave type {code!r}; use annual, sick, parental or unpaid.")


def _holidays(db: Db, country: str, lo: str, hi: str) -> set[str]:
    return {r["holiday_date"] for r in db.query(
        "SELECT holiday_date FROM public_holidays WHERE country_code = ? AND holiday_date BETWEEN ? AND ?", (country, lo, hi))}


def _working_days(db: Db, country: str, s: date, e: date) -> int:
    return _count_working_days(s, e, _holidays(db, country, s.isoformat(), e.isoformat()))


def _count_working_days(s: date, e: date, holidays: set[str]) -> int:
    """Mondays to Fridays from s to e (both included) that are not in ``holidays`` (ISO dates); the world
    builder counts its leave requests with it too."""
    n, d = 0, s
    while d <= e:
        if d.weekday() < 5 and d.isoformat() not in holidays:
            n += 1
        d += timedelta(days=1)
    return n


def _balance(db: Db, emp_id: int, type_id: int, year: int) -> dict[str, Any]:
    return db.one("SELECT * FROM leave_balances WHERE employee_id = ? AND leave_type_id = ? AND year = ?",
                  (emp_id, type_id, year),
                  missing=f"No leave balance for {year}; leave can only be requested for years with a balance.")


def _available(b: dict[str, Any]) -> int:
    return b["entitled_days"] + b["carried_over_days"] - b["used_days"] - b["pending_days"]


def _request(db: Db, request_id: int) -> dict[str, Any]:
    return db.one("SELECT r.*, t.code AS type_code, t.min_notice_days, t.blackout_applies, e.full_name, e.email, "
                  "e.manager_id, e.department_id FROM leave_requests r JOIN leave_types t ON t.id = r.leave_type_id "
                  "JOIN employees e ON e.id = r.employee_id WHERE r.id = ?", (request_id,),
                  missing=f"No leave request with id {request_id}. Use list_leave_requests to find it.")


def _own_request(db: Db, request_id: int, email: str, verb: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The request and its employee, who must be the active person acting (only they may ``verb`` it)."""
    r = _request(db, request_id)
    emp = _active(db, email, "employee")
    require_owner(r, "employee_id", emp["id"],
                  f"Request {request_id} belongs to {r['full_name']}; only they can {verb} it.")
    return r, emp


def _release_pending(db: Db, r: dict[str, Any]) -> None:
    """Give a submitted request's held (pending) days back to its year's balance."""
    db.execute("UPDATE leave_balances SET pending_days = pending_days - ? WHERE employee_id = ? AND leave_type_id = ? "
               "AND year = ?", (r["working_days"], r["employee_id"], r["leave_type_id"], int(r["start_date"][:4])))


def _req_out(r: dict[str, Any]) -> dict[str, Any]:
    return {k: r.get(k) for k in ("id", "full_name", "email", "type_code", "start_date", "end_date", "working_days",
                                  "reason", "status", "submitted_at", "decided_at", "decision_note")}


def _delegate_for(db: Db, manager_id: int, day: str) -> list[int]:
    return [r["delegate_id"] for r in db.query(
        "SELECT delegate_id FROM delegations WHERE manager_id = ? AND revoked_at IS NULL AND start_date <= ? "
        "AND end_date >= ?", (manager_id, day, day))]


def _can_approve(db: Db, approver: dict[str, Any], employee_id: int, manager_id: int | None) -> str:
    """'manager' or 'delegate' when the approver may decide for this employee, else raise."""
    if approver["id"] == employee_id:
        raise ToolError("Nobody can approve their own requests.")
    if manager_id == approver["id"]:
        return "manager"
    if manager_id is not None and approver["id"] in _delegate_for(db, manager_id, db.today().isoformat()):
        return "delegate"
    mgr = _emp_id(db, manager_id) if manager_id else None
    raise ToolError(f"{approver['full_name']} is neither the manager ({mgr['full_name'] if mgr else 'none'}) of this "
                    "employee nor that manager's delegate today; only they can decide.")


def _decidable_request(db: Db, request_id: int, approver_email: str,
                       decided: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A submitted request and the approver who may decide it (``decided``: "approved" or "rejected")."""
    r = _request(db, request_id)
    a = _active(db, approver_email, "approver")
    _can_approve(db, a, r["employee_id"], r["manager_id"])
    if r["status"] != "submitted":
        raise ToolError(f"Request {request_id} is {r['status']}; only submitted requests can be {decided}.")
    return r, a


def _blackout(db: Db, dept_id: int, s: str, e: str) -> dict[str, Any] | None:
    return db.one("SELECT * FROM blackout_periods WHERE department_id = ? AND NOT (end_date < ? OR start_date > ?) "
                  "ORDER BY start_date LIMIT 1", (dept_id, s, e))


def _check_submit(db: Db, r: dict[str, Any], emp: dict[str, Any], lt: dict[str, Any]) -> dict[str, Any]:
    """The submission rules; returns the balance row."""
    today = db.today()
    s = date.fromisoformat(r["start_date"])
    if lt["code"] == "sick":
        if s < today - timedelta(days=SICK_BACKDATE_DAYS):
            raise ToolError(f"Sick leave can be reported at most {SICK_BACKDATE_DAYS} days back.")
    else:
        if s < today + timedelta(days=lt["min_notice_days"]):
            raise ToolError(f"{lt['name']} needs {lt['min_notice_days']} days' notice: the earliest start date today is "
                            f"{(today + timedelta(days=lt['min_notice_days'])).isoformat()}.")
    if lt["blackout_applies"]:
        b = _blackout(db, emp["department_id"], r["start_date"], r["end_date"])
        if b:
            raise ToolError(f"{emp['dept_name']} has a blackout period from {b['start_date']} to {b['end_date']} "
                            f"({b['reason']}); {lt['name'].lower()} cannot overlap it. Choose other dates.")
    bal = _balance(db, emp["id"], lt["id"], s.year)
    if _available(bal) < r["working_days"]:
        raise ToolError(f"Not enough {lt['name'].lower()}: {r['working_days']} working days requested, "
                        f"{_available(bal)} available in {s.year}.")
    return bal


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def find_employees(db: Db, query: str, department_code: str | None = None, limit: int = 10) -> list[dict]:
    """Find employees by part of their name, e-mail or employee number.

    Args:
        query: words of the name, or part of the e-mail / employee number.
        department_code: only this department, e.g. "ENG".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "lower(e.full_name)", "lower(e.email)", "lower(e.employee_no)", lower=True)
    where, filter_params = filters(("d.code = upper(?)", department_code))
    return db.query("SELECT e.employee_no, e.full_name, e.email, d.code AS department, j.title, l.name AS location, "
                    "m.full_name AS manager, e.status FROM employees e JOIN departments d ON d.id = e.department_id "
                    "JOIN job_titles j ON j.id = e.job_title_id JOIN locations l ON l.id = e.location_id "
                    f"LEFT JOIN employees m ON m.id = e.manager_id WHERE {who} AND {where} ORDER BY e.full_name, e.id "
                    "LIMIT ?", (*params, *filter_params, limit))


@tool
def get_employee(db: Db, email: str) -> dict:
    """An employee's profile: department, job title (with its expense approval limit), manager, location and
    country, hire date, status and number of direct reports.

    Args:
        email: the employee's e-mail.
    """
    e = _emp(db, email)
    mgr = _emp_id(db, e["manager_id"]) if e["manager_id"] else None
    return {"employee_no": e["employee_no"], "full_name": e["full_name"], "email": e["email"],
            "department": f"{e['dept_name']} ({e['dept_code']})", "title": e["title"],
            "expense_approval_limit": dollars(e["expense_limit_cents"]), "is_hr": bool(e["is_hr"]),
            "manager": {"full_name": mgr["full_name"], "email": mgr["email"]} if mgr else None,
            "location": e["location"], "country_code": e["country_code"], "hire_date": e["hire_date"],
            "status": e["status"], "direct_reports": db.value("SELECT COUNT(*) FROM employees WHERE manager_id = ?", (e["id"],))}


@tool
def list_direct_reports(db: Db, manager_email: str, limit: int = 30) -> list[dict]:
    """List the people who report directly to a manager.

    Args:
        manager_email: the manager's e-mail.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    m = _emp(db, manager_email, "manager")
    return db.query("SELECT e.full_name, e.email, j.title, e.status FROM employees e JOIN job_titles j ON j.id = e.job_title_id "
                    "WHERE e.manager_id = ? ORDER BY e.full_name LIMIT ?", (m["id"], limit))


@tool
def list_departments(db: Db) -> list[dict]:
    """List the departments with their codes, heads and head counts."""
    return db.query("SELECT d.code, d.name, d.cost_center, (SELECT COUNT(*) FROM employees e WHERE e.department_id = d.id "
                    "AND e.status = 'active') AS active_employees, (SELECT h.full_name FROM employees h WHERE "
                    "h.department_id = d.id AND h.job_title_id = 2 LIMIT 1) AS head FROM departments d ORDER BY d.code")


@tool
def list_leave_types(db: Db) -> list[dict]:
    """List the leave types: yearly entitlement, carry-over cap, notice needed and whether blackout periods apply."""
    rows = db.query("SELECT code, name, paid, yearly_entitlement_days, carry_over_cap_days, min_notice_days, "
                    "blackout_applies FROM leave_types ORDER BY id")
    for r in rows:
        r["paid"], r["blackout_applies"] = bool(r["paid"]), bool(r["blackout_applies"])
    return rows


@tool
def get_leave_balances(db: Db, email: str, year: int = 2026) -> list[dict]:
    """An employee's leave balances for a year, per leave type: entitled, carried over, used (approved), pending
    (submitted, awaiting a decision) and available (entitled + carried over - used - pending).

    Args:
        email: the employee's e-mail.
        year: the calendar year.
    """
    e = _emp(db, email)
    rows = db.query("SELECT t.code AS leave_type, b.entitled_days, b.carried_over_days, b.used_days, b.pending_days "
                    "FROM leave_balances b JOIN leave_types t ON t.id = b.leave_type_id WHERE b.employee_id = ? AND b.year = ? "
                    "ORDER BY t.id", (e["id"], year))
    for r in rows:
        r["available_days"] = r["entitled_days"] + r["carried_over_days"] - r["used_days"] - r["pending_days"]
    return rows


@tool
def count_working_days(db: Db, email: str, start_date: str, end_date: str) -> dict:
    """How many working days a leave from start_date to end_date (inclusive) would take for this employee:
    Monday to Friday, minus the public holidays of the employee's country.

    Args:
        email: the employee's e-mail.
        start_date: first day of leave, YYYY-MM-DD.
        end_date: last day of leave, YYYY-MM-DD.
    """
    e = _emp(db, email)
    s, en = _date(start_date, "start_date"), _date(end_date, "end_date")
    if en < s:
        raise ToolError("end_date must be on or after start_date.")
    if (en - s).days > 366:
        raise ToolError("The range may span at most a year.")
    hol = db.query("SELECT holiday_date, name FROM public_holidays WHERE country_code = ? AND holiday_date BETWEEN ? AND ? "
                   "ORDER BY holiday_date", (e["country_code"], s.isoformat(), en.isoformat()))
    return {"working_days": _working_days(db, e["country_code"], s, en), "country_code": e["country_code"],
            "public_holidays_in_range": hol}


@tool
def list_public_holidays(db: Db, country_code: str, year: int = 2026) -> list[dict]:
    """List the public holidays of a country in a year.

    Args:
        country_code: two-letter country code, e.g. "US", "GB", "DE".
        year: the calendar year.
    """
    return db.query("SELECT holiday_date, name FROM public_holidays WHERE country_code = upper(?) AND substr(holiday_date, 1, 4) = ? "
                    "ORDER BY holiday_date", (country_code.strip(), str(year)))


@tool
def list_blackout_periods(db: Db, department_code: str) -> list[dict]:
    """List a department's blackout periods, during which annual and unpaid leave cannot be taken.

    Args:
        department_code: the department's code, e.g. "ENG".
    """
    d = db.one("SELECT * FROM departments WHERE code = upper(?)", (department_code.strip(),),
               missing=f"No department {department_code!r}; use list_departments.")
    return db.query("SELECT start_date, end_date, reason FROM blackout_periods WHERE department_id = ? ORDER BY start_date", (d["id"],))


@tool
def list_leave_requests(db: Db, email: str | None = None, manager_email: str | None = None,
                        status: RequestStatus | None = None, date_from: str | None = None, date_to: str | None = None,
                        limit: int = 20) -> list[dict]:
    """List leave requests of one employee, or of all direct reports of a manager, optionally only those with a
    status or overlapping a date range.

    Args:
        email: the employee's e-mail.
        manager_email: instead, the requests of this manager's direct reports.
        status: only requests with this status.
        date_from: only requests ending on or after this date (YYYY-MM-DD).
        date_to: only requests starting on or before this date (YYYY-MM-DD).
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    if (email is None) == (manager_email is None):
        raise ToolError("Give exactly one of email or manager_email.")
    lo = _date(date_from, "date_from").isoformat() if date_from else None
    hi = _date(date_to, "date_to").isoformat() if date_to else None
    if email is not None:
        who, col = _emp(db, email)["id"], "e.id"
    else:
        who, col = _emp(db, manager_email, "manager")["id"], "e.manager_id"
    where, params = filters(("r.status = ?", status), ("r.end_date >= ?", lo), ("r.start_date <= ?", hi))
    rows = db.query("SELECT r.*, t.code AS type_code, e.full_name, e.email FROM leave_requests r "
                    "JOIN leave_types t ON t.id = r.leave_type_id JOIN employees e ON e.id = r.employee_id "
                    f"WHERE {col} = ? AND {where} ORDER BY r.start_date, r.id LIMIT ?", (who, *params, limit))
    return [_req_out(r) for r in rows]


@tool
def list_pending_approvals(db: Db, approver_email: str, limit: int = 20) -> dict:
    """What is waiting for a person's decision today: submitted leave requests and submitted timesheets of their
    direct reports (and of the managers they are a delegate for today), and submitted expense claims of anyone
    below them in the reporting line.

    Args:
        approver_email: the approver's e-mail.
        limit: maximum number of results per kind, 1 to 50.
    """
    _limit(limit)
    a = _emp(db, approver_email)
    today = db.today().isoformat()
    managers = [a["id"]] + [r["manager_id"] for r in db.query(
        "SELECT manager_id FROM delegations WHERE delegate_id = ? AND revoked_at IS NULL AND start_date <= ? AND end_date >= ?",
        (a["id"], today, today))]
    marks = ",".join("?" * len(managers))
    leave = db.query("SELECT r.*, t.code AS type_code, e.full_name, e.email FROM leave_requests r JOIN leave_types t ON "
                     f"t.id = r.leave_type_id JOIN employees e ON e.id = r.employee_id WHERE e.manager_id IN ({marks}) "
                     "AND r.status = 'submitted' AND e.id <> ? ORDER BY r.start_date, r.id LIMIT ?", (*managers, a["id"], limit))
    sheets = db.query("SELECT ts.id, ts.week_start, e.full_name, e.email FROM timesheets ts JOIN employees e ON e.id = ts.employee_id "
                      f"WHERE e.manager_id IN ({marks}) AND ts.status = 'submitted' AND e.id <> ? ORDER BY ts.week_start, ts.id LIMIT ?",
                      (*managers, a["id"], limit))
    claims = db.query(
        "WITH RECURSIVE below(id) AS (SELECT id FROM employees WHERE manager_id = ? UNION SELECT e.id FROM employees e "
        "JOIN below b ON e.manager_id = b.id) SELECT c.id, e.full_name, e.email, c.amount_cents, c.expense_date, c.description "
        "FROM expense_claims c JOIN employees e ON e.id = c.employee_id WHERE c.employee_id IN (SELECT id FROM below) "
        "AND c.status = 'submitted' ORDER BY c.submitted_at, c.id LIMIT ?", (a["id"], limit))
    for c in claims:
        c["amount"] = dollars(c.pop("amount_cents"))
        c["within_your_limit"] = c["amount"] * 100 <= a["expense_limit_cents"]
    return {"leave_requests": [_req_out(r) for r in leave], "timesheets": sheets, "expense_claims": claims}


@tool
def list_delegations(db: Db, email: str) -> list[dict]:
    """List the approval delegations a manager has set up, or that were given to this person.

    Args:
        email: the manager's or delegate's e-mail.
    """
    e = _emp(db, email)
    return db.query("SELECT d.id, m.full_name AS manager, m.email AS manager_email, x.full_name AS delegate, "
                    "x.email AS delegate_email, d.start_date, d.end_date, d.revoked_at FROM delegations d "
                    "JOIN employees m ON m.id = d.manager_id JOIN employees x ON x.id = d.delegate_id "
                    "WHERE d.manager_id = ? OR d.delegate_id = ? ORDER BY d.start_date DESC", (e["id"], e["id"]))


@tool
def list_expense_categories(db: Db) -> list[dict]:
    """List the expense categories with their per-claim caps."""
    rows = db.query("SELECT code, name, per_claim_cap_cents FROM expense_categories ORDER BY id")
    for r in rows:
        r["per_claim_cap"] = dollars(r.pop("per_claim_cap_cents"))
    return rows


@tool
def list_expense_claims(db: Db, email: str, status: ClaimStatus | None = None, limit: int = 20) -> list[dict]:
    """List an employee's expense claims, newest first.

    Args:
        email: the employee's e-mail.
        status: only claims with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    e = _emp(db, email)
    where, params = filters(("c.status = ?", status))
    rows = db.query("SELECT c.id, k.code AS category, c.expense_date, c.amount_cents, c.description, c.status, "
                    "c.submitted_at, d.full_name AS decided_by, c.decided_at, c.decision_note FROM expense_claims c "
                    "JOIN expense_categories k ON k.id = c.category_id LEFT JOIN employees d ON d.id = c.decided_by "
                    f"WHERE c.employee_id = ? AND {where} ORDER BY c.expense_date DESC, c.id DESC LIMIT ?",
                    (e["id"], *params, limit))
    for r in rows:
        r["amount"] = dollars(r.pop("amount_cents"))
    return rows


@tool
def get_timesheet(db: Db, email: str, week_start: str) -> dict:
    """An employee's timesheet for the week starting on a Monday, with its entries and daily totals.

    Args:
        email: the employee's e-mail.
        week_start: the Monday of the week, YYYY-MM-DD.
    """
    e = _emp(db, email)
    ws = _date(week_start, "week_start")
    ts = db.one("SELECT * FROM timesheets WHERE employee_id = ? AND week_start = ?", (e["id"], ws.isoformat()))
    if ts is None:
        return {"employee": e["full_name"], "week_start": ws.isoformat(), "exists": False, "entries": []}
    entries = db.query("SELECT t.id, t.work_date, p.code AS project, t.hours, t.note FROM timesheet_entries t "
                       "JOIN projects p ON p.id = t.project_id WHERE t.timesheet_id = ? ORDER BY t.work_date, t.id", (ts["id"],))
    return {"employee": e["full_name"], "timesheet_id": ts["id"], "week_start": ts["week_start"], "status": ts["status"],
            "exists": True, "entries": entries, "total_hours": sum(x["hours"] for x in entries)}


@tool
def list_projects(db: Db, department_code: str | None = None) -> list[dict]:
    """List the project codes time can be logged against (inactive ones are closed for time).

    Args:
        department_code: only this department's projects, e.g. "ENG".
    """
    where, params = filters(("d.code = upper(?)", department_code))
    return db.query("SELECT p.code, p.name, d.code AS department, p.is_active FROM projects p JOIN departments d ON "
                    f"d.id = p.department_id WHERE {where} ORDER BY p.code", params)


@tool
def list_onboarding_tasks(db: Db, email: str) -> list[dict]:
    """List the onboarding checklist of a new hire: each task, its owner, due date and completion.

    Args:
        email: the new hire's e-mail.
    """
    e = _emp(db, email)
    return db.query("SELECT o.id, o.title, w.full_name AS owner, w.email AS owner_email, o.due_date, o.completed_at "
                    "FROM onboarding_tasks o JOIN employees w ON w.id = o.owner_id WHERE o.employee_id = ? ORDER BY o.due_date, o.id",
                    (e["id"],))


# ----------------------------------------------------------------------------------------------
# write tools: leave
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def request_leave(db: Db, email: str, leave_type: LeaveCode, start_date: str, end_date: str, reason: str = "",
                  submit: bool = True) -> dict:
    """Create a leave request for yourself, submitted for your manager's approval (or kept as a draft with
    submit=false). The request is counted in working days (weekends and your country's public holidays are free)
    and must lie within one calendar year and not overlap your other draft, submitted or approved requests.
    Submitting also needs: the type's notice (annual 5 days, unpaid 10, parental 30; sick leave may be backdated
    up to 30 days), no overlap with your department's blackout periods for annual and unpaid leave, and enough
    available balance; the days are then held as pending.

    Args:
        email: your e-mail (the employee taking the leave).
        leave_type: "annual", "sick", "parental" or "unpaid".
        start_date: first day of leave, YYYY-MM-DD.
        end_date: last day of leave, YYYY-MM-DD.
        reason: optional short reason.
        submit: true to submit now, false to keep a draft.
    """
    emp = _active(db, email, "employee")
    lt = _leave_type(db, leave_type)
    s, en = _date(start_date, "start_date"), _date(end_date, "end_date")
    if en < s:
        raise ToolError("end_date must be on or after start_date.")
    if s.year != en.year:
        raise ToolError("A request must lie within one calendar year; split it into two requests.")
    if emp["manager_id"] is None:
        raise ToolError("You have no manager to approve leave; ask HR.")
    days = _working_days(db, emp["country_code"], s, en)
    if days < 1:
        raise ToolError("That range has no working days (only weekends or public holidays); nothing to request.")
    clash = db.one("SELECT id, start_date, end_date, status FROM leave_requests WHERE employee_id = ? AND status IN "
                   "('draft', 'submitted', 'approved') AND NOT (end_date < ? OR start_date > ?)",
                   (emp["id"], s.isoformat(), en.isoformat()))
    if clash:
        raise ToolError(f"It overlaps your {clash['status']} request {clash['id']} ({clash['start_date']} to "
                        f"{clash['end_date']}); change or cancel that one first.")
    row = {"employee_id": emp["id"], "leave_type_id": lt["id"], "start_date": s.isoformat(), "end_date": en.isoformat(),
           "working_days": days, "reason": reason.strip(), "status": "draft", "created_at": _now(db)}
    if submit:
        bal = _check_submit(db, row, emp, lt)
        row.update(status="submitted", submitted_at=_now(db))
        db.execute("UPDATE leave_balances SET pending_days = pending_days + ? WHERE id = ?", (days, bal["id"]))
    rid = db.insert("leave_requests", row)
    return {"request_id": rid, "status": row["status"], "working_days": days, "leave_type": lt["code"],
            "start_date": row["start_date"], "end_date": row["end_date"]}


@tool(write=True)
def submit_leave_request(db: Db, request_id: int, email: str) -> dict:
    """Submit one of your draft leave requests for approval (same rules as request_leave with submit=true).

    Args:
        request_id: the draft's id.
        email: your e-mail; it must be your own request.
    """
    r, emp = _own_request(db, request_id, email, "submit")
    if r["status"] != "draft":
        raise ToolError(f"Request {request_id} is {r['status']}; only drafts can be submitted.")
    lt = _leave_type(db, r["type_code"])
    bal = _check_submit(db, r, emp, lt)
    db.execute("UPDATE leave_requests SET status = 'submitted', submitted_at = ? WHERE id = ?", (_now(db), request_id))
    db.execute("UPDATE leave_balances SET pending_days = pending_days + ? WHERE id = ?", (r["working_days"], bal["id"]))
    return {"request_id": request_id, "status": "submitted", "working_days": r["working_days"]}


@tool(write=True)
def approve_leave_request(db: Db, request_id: int, approver_email: str, note: str | None = None) -> dict:
    """Approve a submitted leave request. Only the employee's manager, or a delegate that manager set up for
    today, may approve; nobody approves their own. The pending days become used days.

    Args:
        request_id: the request's id.
        approver_email: e-mail of the manager or delegate.
        note: optional note to the employee.
    """
    r, a = _decidable_request(db, request_id, approver_email, "approved")
    year = int(r["start_date"][:4])
    db.execute("UPDATE leave_balances SET pending_days = pending_days - ?, used_days = used_days + ? WHERE employee_id = ? "
               "AND leave_type_id = ? AND year = ?", (r["working_days"], r["working_days"], r["employee_id"],
                                                      r["leave_type_id"], year))
    db.execute("UPDATE leave_requests SET status = 'approved', decided_by = ?, decided_at = ?, decision_note = ? WHERE id = ?",
               (a["id"], _now(db), note.strip() if note and note.strip() else None, request_id))
    return {"request_id": request_id, "status": "approved", "employee": r["full_name"], "working_days": r["working_days"]}


@tool(write=True)
def reject_leave_request(db: Db, request_id: int, approver_email: str, reason: str) -> dict:
    """Reject a submitted leave request with a reason; its pending days are released. Same approvers as
    approve_leave_request.

    Args:
        request_id: the request's id.
        approver_email: e-mail of the manager or delegate.
        reason: why it is rejected (shown to the employee).
    """
    r, a = _decidable_request(db, request_id, approver_email, "rejected")
    if not reason.strip():
        raise ToolError("Give the employee a reason for the rejection.")
    _release_pending(db, r)
    db.execute("UPDATE leave_requests SET status = 'rejected', decided_by = ?, decided_at = ?, decision_note = ? WHERE id = ?",
               (a["id"], _now(db), reason.strip(), request_id))
    return {"request_id": request_id, "status": "rejected", "employee": r["full_name"]}


@tool(write=True)
def cancel_leave_request(db: Db, request_id: int, email: str) -> dict:
    """Cancel one of your own leave requests: a draft, a submitted one (its pending days are released) or an
    approved one that has not started yet (its used days are given back).

    Args:
        request_id: the request's id.
        email: your e-mail; it must be your own request.
    """
    r, emp = _own_request(db, request_id, email, "cancel")
    if r["status"] not in LIVE:
        raise ToolError(f"Request {request_id} is already {r['status']}.")
    if r["status"] == "approved" and r["start_date"] <= db.today().isoformat():
        raise ToolError(f"Request {request_id} started on {r['start_date']}; leave that has started cannot be cancelled. Ask HR.")
    if r["status"] == "submitted":
        _release_pending(db, r)
    elif r["status"] == "approved":
        db.execute("UPDATE leave_balances SET used_days = used_days - ? WHERE employee_id = ? AND leave_type_id = ? "
                   "AND year = ?", (r["working_days"], r["employee_id"], r["leave_type_id"], int(r["start_date"][:4])))
    db.execute("UPDATE leave_requests SET status = 'cancelled', cancelled_at = ? WHERE id = ?", (_now(db), request_id))
    return {"request_id": request_id, "status": "cancelled", "days_returned": r["working_days"] if r["status"] != "draft" else 0}


@tool(write=True)
def create_delegation(db: Db, manager_email: str, delegate_email: str, start_date: str, end_date: str) -> dict:
    """Let someone decide your team's leave requests and timesheets while you are away (not expense claims: those
    follow job-title limits). The delegate must be an active colleague of your department or your own manager;
    the period must not start in the past, may last at most 60 days and must not overlap another active
    delegation of yours.

    Args:
        manager_email: your e-mail (the manager who will be away).
        delegate_email: the colleague who decides in your place.
        start_date: first day of the delegation, YYYY-MM-DD.
        end_date: last day, YYYY-MM-DD.
    """
    m = _active(db, manager_email, "manager")
    d = _active(db, delegate_email, "delegate")
    db.one("SELECT 1 FROM employees WHERE manager_id = ? AND status = 'active'", (m["id"],),
           missing=f"{m['full_name']} has no active direct reports; there is nothing to delegate.")
    if d["id"] == m["id"]:
        raise ToolError("You cannot delegate to yourself.")
    if d["department_id"] != m["department_id"] and d["id"] != m["manager_id"]:
        raise ToolError(f"{d['full_name']} is in {d['dept_name']}; choose a colleague from {m['dept_name']} or your own manager.")
    if d["manager_id"] == m["id"]:
        raise ToolError(f"{d['full_name']} reports to you and would approve their own team's requests; choose a peer "
                        "or your own manager.")
    s, en = _date(start_date, "start_date"), _date(end_date, "end_date")
    if s < db.today():
        raise ToolError("A delegation cannot start in the past.")
    if en < s or (en - s).days > 59:
        raise ToolError("end_date must be on or after start_date and the delegation at most 60 days long.")
    clash = db.one("SELECT id, start_date, end_date FROM delegations WHERE manager_id = ? AND revoked_at IS NULL AND NOT "
                   "(end_date < ? OR start_date > ?)", (m["id"], s.isoformat(), en.isoformat()))
    if clash:
        raise ToolError(f"Delegation {clash['id']} ({clash['start_date']} to {clash['end_date']}) already covers part of "
                        "that period; revoke it first.")
    did = db.insert("delegations", {"manager_id": m["id"], "delegate_id": d["id"], "start_date": s.isoformat(),
                                    "end_date": en.isoformat(), "created_at": _now(db), "revoked_at": None})
    return {"delegation_id": did, "manager": m["full_name"], "delegate": d["full_name"], "start_date": s.isoformat(),
            "end_date": en.isoformat()}


@tool(write=True)
def revoke_delegation(db: Db, delegation_id: int, manager_email: str) -> dict:
    """Revoke one of your delegations (for example when you come back early).

    Args:
        delegation_id: the delegation's id (from list_delegations).
        manager_email: your e-mail; it must be your delegation.
    """
    d = db.one("SELECT * FROM delegations WHERE id = ?", (delegation_id,),
               missing=f"No delegation {delegation_id}; use list_delegations.")
    m = _active(db, manager_email, "manager")
    require_owner(d, "manager_id", m["id"], f"Delegation {delegation_id} is not {m['full_name']}'s.")
    if d["revoked_at"] is not None:
        raise ToolError(f"Delegation {delegation_id} was already revoked.")
    if d["end_date"] < db.today().isoformat():
        raise ToolError(f"Delegation {delegation_id} already ended on {d['end_date']}.")
    db.execute("UPDATE delegations SET revoked_at = ? WHERE id = ?", (_now(db), delegation_id))
    return {"delegation_id": delegation_id, "revoked": True}


# ----------------------------------------------------------------------------------------------
# write tools: expenses
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def submit_expense_claim(db: Db, email: str, category_code: str, expense_date: str, amount: float, description: str) -> dict:
    """Submit an expense claim for yourself. The expense must be dated in the last 90 days (not in the future) and
    within the category's per-claim cap.

    Args:
        email: your e-mail.
        category_code: the category, e.g. "TRAVEL", "MEALS" (see list_expense_categories).
        expense_date: when the expense happened, YYYY-MM-DD.
        amount: the amount in US dollars, e.g. 84.5.
        description: what it was for.
    """
    emp = _active(db, email, "employee")
    cat = db.one("SELECT * FROM expense_categories WHERE code = upper(?)", (category_code.strip(),),
                 missing=f"Unknown category {category_code!r}; see list_expense_categories.")
    d = _date(expense_date, "expense_date")
    if d > db.today() or (db.today() - d).days > CLAIM_MAX_AGE_DAYS:
        raise ToolError(f"The expense must be dated between {(db.today() - timedelta(days=CLAIM_MAX_AGE_DAYS)).isoformat()} and today.")
    cents = to_cents(amount)
    if cents > cat["per_claim_cap_cents"]:
        raise ToolError(f"{cat['name']} claims are capped at {dollars(cat['per_claim_cap_cents'])} per claim.")
    if not description.strip():
        raise ToolError("Describe the expense.")
    cid = db.insert("expense_claims", {"employee_id": emp["id"], "category_id": cat["id"], "expense_date": d.isoformat(),
                                       "amount_cents": cents, "description": description.strip(), "status": "submitted",
                                       "submitted_at": _now(db)})
    return {"claim_id": cid, "status": "submitted", "amount": dollars(cents)}


def _claim_decider(db: Db, claim_id: int, approver_email: str) -> tuple[dict[str, Any], dict[str, Any]]:
    c = db.one("SELECT c.*, e.full_name FROM expense_claims c JOIN employees e ON e.id = c.employee_id WHERE c.id = ?",
               (claim_id,), missing=f"No expense claim {claim_id}; use list_expense_claims or list_pending_approvals.")
    a = _active(db, approver_email, "approver")
    if c["status"] != "submitted":
        raise ToolError(f"Claim {claim_id} is {c['status']}; only submitted claims can be decided.")
    if a["id"] == c["employee_id"]:
        raise ToolError("Nobody can decide their own expense claims.")
    chain, m = [], db.value("SELECT manager_id FROM employees WHERE id = ?", (c["employee_id"],))
    while m is not None:
        chain.append(m)
        m = db.value("SELECT manager_id FROM employees WHERE id = ?", (m,))
    if a["id"] not in chain:
        raise ToolError(f"{a['full_name']} is not in {c['full_name']}'s reporting line; only their managers can decide.")
    return c, a


@tool(write=True)
def approve_expense_claim(db: Db, claim_id: int, approver_email: str) -> dict:
    """Approve a submitted expense claim. The approver must be in the claimant's reporting line (their manager, that
    manager's manager, and so on) and their job title's approval limit must cover the amount; otherwise it goes to
    someone higher up. Delegations do not apply to expenses.

    Args:
        claim_id: the claim's id.
        approver_email: e-mail of the approving manager.
    """
    c, a = _claim_decider(db, claim_id, approver_email)
    if c["amount_cents"] > a["expense_limit_cents"]:
        raise ToolError(f"{dollars(c['amount_cents'])} is above {a['full_name']}'s approval limit of "
                        f"{dollars(a['expense_limit_cents'])} ({a['title']}); someone higher in the reporting line must approve it.")
    db.execute("UPDATE expense_claims SET status = 'approved', decided_by = ?, decided_at = ? WHERE id = ?",
               (a["id"], _now(db), claim_id))
    return {"claim_id": claim_id, "status": "approved", "amount": dollars(c["amount_cents"])}


@tool(write=True)
def reject_expense_claim(db: Db, claim_id: int, approver_email: str, reason: str) -> dict:
    """Reject a submitted expense claim with a reason. Anyone in the claimant's reporting line may reject,
    whatever the amount.

    Args:
        claim_id: the claim's id.
        approver_email: e-mail of the manager rejecting it.
        reason: why (shown to the employee).
    """
    c, a = _claim_decider(db, claim_id, approver_email)
    if not reason.strip():
        raise ToolError("Give a reason for the rejection.")
    db.execute("UPDATE expense_claims SET status = 'rejected', decided_by = ?, decided_at = ?, decision_note = ? WHERE id = ?",
               (a["id"], _now(db), reason.strip(), claim_id))
    return {"claim_id": claim_id, "status": "rejected"}


# ----------------------------------------------------------------------------------------------
# write tools: timesheets and onboarding
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def log_time(db: Db, email: str, work_date: str, project_code: str, hours: float, note: str = "") -> dict:
    """Log hours on a project for yourself. The week's timesheet is created if needed and must still be open.
    Not allowed on future dates, weekends, your country's public holidays or days of your approved leave; at most
    12 hours per day in quarter hours; only active projects.

    Args:
        email: your e-mail.
        work_date: the day worked, YYYY-MM-DD.
        project_code: the project's code, e.g. "ENG-PLAT" (see list_projects).
        hours: hours worked, in steps of 0.25.
        note: optional note.
    """
    emp = _active(db, email, "employee")
    d = _date(work_date, "work_date")
    if d > db.today():
        raise ToolError("You cannot log time for a future day.")
    if d.weekday() >= 5:
        raise ToolError(f"{d.isoformat()} is a weekend day.")
    db.none("SELECT 1 FROM public_holidays WHERE country_code = ? AND holiday_date = ?",
            (emp["country_code"], d.isoformat()), found=f"{d.isoformat()} is a public holiday in {emp['country_code']}.")
    db.none("SELECT 1 FROM leave_requests WHERE employee_id = ? AND status = 'approved' AND start_date <= ? "
            "AND end_date >= ?", (emp["id"], d.isoformat(), d.isoformat()),
            found=f"You are on approved leave on {d.isoformat()}; cancel the leave before logging work that day.")
    p = db.one("SELECT * FROM projects WHERE code = upper(?)", (project_code.strip(),))
    if p is None or not p["is_active"]:
        raise ToolError(f"{project_code!r} is not an active project; see list_projects.")
    if hours <= 0 or hours > MAX_DAY_HOURS or abs(hours * 4 - round(hours * 4)) > 1e-9:
        raise ToolError("hours must be more than 0, at most 12, in steps of 0.25.")
    ws = (d - timedelta(days=d.weekday())).isoformat()
    ts = db.one("SELECT * FROM timesheets WHERE employee_id = ? AND week_start = ?", (emp["id"], ws))
    if ts is None:
        tsid = db.insert("timesheets", {"employee_id": emp["id"], "week_start": ws, "status": "open"})
    elif ts["status"] != "open":
        raise ToolError(f"Your timesheet for the week of {ws} is {ts['status']} and can no longer change.")
    else:
        tsid = ts["id"]
    day_total = db.value("SELECT COALESCE(SUM(hours), 0) FROM timesheet_entries WHERE timesheet_id = ? AND work_date = ?",
                         (tsid, d.isoformat()))
    if day_total + hours > MAX_DAY_HOURS:
        raise ToolError(f"You already logged {day_total} hours on {d.isoformat()}; at most {MAX_DAY_HOURS} per day.")
    eid = db.insert("timesheet_entries", {"timesheet_id": tsid, "work_date": d.isoformat(), "project_id": p["id"],
                                          "hours": float(hours), "note": note.strip()})
    return {"entry_id": eid, "timesheet_id": tsid, "week_start": ws, "day_total_hours": day_total + hours}


@tool(write=True)
def submit_timesheet(db: Db, timesheet_id: int, email: str) -> dict:
    """Submit your open timesheet for your manager's approval; it needs at least one entry and its week must have
    started.

    Args:
        timesheet_id: the timesheet's id (from get_timesheet).
        email: your e-mail; it must be your timesheet.
    """
    ts = db.one("SELECT * FROM timesheets WHERE id = ?", (timesheet_id,),
                missing=f"No timesheet {timesheet_id}; use get_timesheet.")
    emp = _active(db, email, "employee")
    require_owner(ts, "employee_id", emp["id"], "That is someone else's timesheet; only its owner submits it.")
    if ts["status"] != "open":
        raise ToolError(f"Timesheet {timesheet_id} is already {ts['status']}.")
    n = db.value("SELECT COUNT(*) FROM timesheet_entries WHERE timesheet_id = ?", (timesheet_id,))
    if n == 0:
        raise ToolError("The timesheet has no entries; log time first.")
    db.execute("UPDATE timesheets SET status = 'submitted', submitted_at = ? WHERE id = ?", (_now(db), timesheet_id))
    return {"timesheet_id": timesheet_id, "status": "submitted", "entries": n}


@tool(write=True)
def approve_timesheet(db: Db, timesheet_id: int, approver_email: str) -> dict:
    """Approve a submitted timesheet: the employee's manager, or that manager's delegate today.

    Args:
        timesheet_id: the timesheet's id.
        approver_email: e-mail of the manager or delegate.
    """
    ts = db.one("SELECT t.*, e.manager_id FROM timesheets t JOIN employees e ON e.id = t.employee_id WHERE t.id = ?",
                (timesheet_id,), missing=f"No timesheet {timesheet_id}; use list_pending_approvals.")
    a = _active(db, approver_email, "approver")
    _can_approve(db, a, ts["employee_id"], ts["manager_id"])
    if ts["status"] != "submitted":
        raise ToolError(f"Timesheet {timesheet_id} is {ts['status']}; only submitted timesheets can be approved.")
    db.execute("UPDATE timesheets SET status = 'approved', approved_by = ?, approved_at = ? WHERE id = ?",
               (a["id"], _now(db), timesheet_id))
    return {"timesheet_id": timesheet_id, "status": "approved"}


@tool(write=True)
def complete_onboarding_task(db: Db, task_id: int, actor_email: str) -> dict:
    """Mark an onboarding task done. Only the task's owner or someone from HR may do it.

    Args:
        task_id: the task's id (from list_onboarding_tasks).
        actor_email: e-mail of the owner or an HR colleague.
    """
    t = db.one("SELECT o.*, w.full_name AS owner FROM onboarding_tasks o JOIN employees w ON w.id = o.owner_id "
               "WHERE o.id = ?", (task_id,),
               missing=f"No onboarding task {task_id}; use list_onboarding_tasks with the new hire's e-mail.")
    a = _active(db, actor_email)
    if a["id"] != t["owner_id"] and not a["is_hr"]:
        raise ToolError(f"Only the task's owner ({t['owner']}) or HR can complete it.")
    if t["completed_at"] is not None:
        raise ToolError(f"'{t['title']}' was already completed on {t['completed_at'][:10]}.")
    db.execute("UPDATE onboarding_tasks SET completed_at = ?, completed_by = ? WHERE id = ?", (_now(db), a["id"], task_id))
    return {"task_id": task_id, "title": t["title"], "completed": True}


@tool(write=True)
def reassign_onboarding_task(db: Db, task_id: int, new_owner_email: str, actor_email: str) -> dict:
    """Give an open onboarding task to another active owner. HR only.

    Args:
        task_id: the task's id.
        new_owner_email: e-mail of the new owner.
        actor_email: e-mail of the HR colleague making the change.
    """
    t = db.one("SELECT * FROM onboarding_tasks WHERE id = ?", (task_id,), missing=f"No onboarding task {task_id}.")
    a = _active(db, actor_email)
    if not a["is_hr"]:
        raise ToolError("Only HR can reassign onboarding tasks.")
    o = _active(db, new_owner_email, "new owner")
    if t["completed_at"] is not None:
        raise ToolError("That task is already completed.")
    if o["id"] == t["owner_id"]:
        raise ToolError(f"{o['full_name']} already owns it.")
    db.execute("UPDATE onboarding_tasks SET owner_id = ? WHERE id = ?", (o["id"], task_id))
    return {"task_id": task_id, "owner": o["full_name"]}
