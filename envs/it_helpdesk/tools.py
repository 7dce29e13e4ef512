"""Tools of the it_helpdesk world: the internal IT service desk of Norvale Group.

Employees and IT agents are named by e-mail, support groups by their codes ("SD", "NET"), tickets by
their numbers ("INC-10042"), access requests ("ACC-2007"), changes ("CHG-3004") and knowledge-base
articles ("KB-1012") by theirs, assets by asset tag ("LT-00123") and software by its product name.
Every write tool takes the e-mail of the person acting and checks what that person may do.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, filters, like_any, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

OPEN = ("new", "assigned", "in_progress", "waiting_on_user")
WORKING = ("assigned", "in_progress", "waiting_on_user")  # count against an agent's max_open_tickets
REOPEN_DAYS = 7
TYPE_LIMIT = {"laptop": 1, "phone": 1, "tablet": 1, "monitor": 2}
HIGH_RISK_BUFFER_MINUTES = 60

TicketStatus = Literal["new", "assigned", "in_progress", "waiting_on_user", "resolved", "closed"]
PriorityCode = Literal["P1", "P2", "P3", "P4"]
AssetType = Literal["laptop", "phone", "monitor", "tablet"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _text(value: str, what: str, lo: int = 3, hi: int = 1000) -> str:
    v = (value or "").strip()
    if not lo <= len(v) <= hi:
        raise ToolError(f"{what} must be {lo} to {hi} characters (got {len(v)}).")
    return v


def _employee(db: Db, email: str, what: str = "employee") -> dict[str, Any]:
    return db.one("SELECT e.*, d.code AS dept_code, d.name AS dept_name FROM employees e "
                  "JOIN departments d ON d.id = e.department_id WHERE lower(e.email) = lower(?)", (email.strip(),),
                  missing=f"No {what} with e-mail {email!r}. Use find_employees to look people up by name.")


_AGENT_SQL = ("SELECT a.*, g.code AS group_code, g.name AS group_name, g.handles_assets, g.handles_access "
              "FROM agents a JOIN support_groups g ON g.id = a.group_id WHERE lower(a.email) = lower(?)")


def _agent_or_none(db: Db, email: str) -> dict[str, Any] | None:
    return db.one(_AGENT_SQL, (email.strip(),))


def _agent(db: Db, email: str, what: str = "IT agent") -> dict[str, Any]:
    a = db.one(_AGENT_SQL, (email.strip(),),
               missing=f"No {what} with e-mail {email!r}. IT agents are listed by get_support_group.")
    if not a["is_active"]:
        raise ToolError(f"{a['full_name']} ({a['email']}) no longer works on the service desk; act as an active agent.")
    return a


def _group(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM support_groups WHERE upper(code) = upper(?)", (code.strip(),),
                  missing=f"No support group with code {code!r}. Use list_support_groups to see the codes.")


def _ticket(db: Db, number: str) -> dict[str, Any]:
    return db.one("SELECT t.*, g.code AS group_code, g.name AS group_name, p.code AS priority, "
                  "p.response_minutes, p.resolution_hours FROM tickets t JOIN support_groups g ON g.id = t.group_id "
                  "JOIN priorities p ON p.id = t.priority_id WHERE upper(t.number) = upper(?)", (number.strip(),),
                  missing=f"No ticket numbered {number!r}. Numbers look like 'INC-10042'; use search_tickets to find "
                  "one.")


def _software(db: Db, name: str) -> dict[str, Any]:
    return db.one("SELECT * FROM software WHERE lower(name) = lower(?)", (name.strip(),),
                  missing=f"No software named {name!r}. Use list_software for the exact product names.")


def _asset(db: Db, asset_tag: str, missing: str) -> dict[str, Any]:
    return db.one("SELECT * FROM assets WHERE upper(asset_tag) = upper(?)", (asset_tag.strip(),), missing=missing)


def _is_lead(agent: dict[str, Any]) -> bool:
    return agent["role"] in ("lead", "manager")


def _group_agent(db: Db, actor_email: str, t: dict[str, Any]) -> dict[str, Any]:
    a = _agent(db, actor_email, "acting agent")
    if a["group_id"] != t["group_id"]:
        raise ToolError(f"{a['full_name']} is in {a['group_name']}, but {t['number']} belongs to {t['group_name']}; "
                        "only agents of that group can work it (escalate_ticket moves tickets between groups).")
    return a


def _owner_or_lead(db: Db, actor_email: str, t: dict[str, Any], what: str) -> dict[str, Any]:
    a = _group_agent(db, actor_email, t)
    if t["assignee_id"] != a["id"] and not _is_lead(a):
        owner = db.value("SELECT full_name FROM agents WHERE id = ?", (t["assignee_id"],)) or "nobody"
        raise ToolError(f"Only the assignee ({owner}) or a lead of {t['group_name']} can {what} {t['number']}.")
    return a


def _open(t: dict[str, Any]) -> None:
    if t["status"] not in OPEN:
        raise ToolError(f"{t['number']} is {t['status']}; reopen it with reopen_ticket first (only resolved tickets, "
                        f"within {REOPEN_DAYS} days of resolution).")


def _workload(db: Db, agent_id: int) -> int:
    return db.value("SELECT COUNT(*) FROM tickets WHERE assignee_id = ? AND status IN "
                    "('assigned', 'in_progress', 'waiting_on_user')", (agent_id,))


_GROUPS_THAT = {"handles_access": "SELECT name FROM support_groups WHERE handles_access = 1 ORDER BY id",
                "handles_assets": "SELECT name FROM support_groups WHERE handles_assets = 1 ORDER BY id"}


def _capable_agent(db: Db, actor_email: str, duty: str, what: str) -> dict[str, Any]:
    """The acting agent, whose group must have ``duty`` (handles_access or handles_assets)."""
    a = _agent(db, actor_email, "acting agent")
    if not a[duty]:
        groups = ", ".join(r["name"] for r in db.query(_GROUPS_THAT[duty]))
        raise ToolError(f"{a['full_name']} is in {a['group_name']}, which cannot {what}; ask an agent of: {groups}.")
    return a


def _touch(db: Db, ticket_id: int) -> None:
    db.execute("UPDATE tickets SET updated_at = ? WHERE id = ?", (_now(db), ticket_id))


def _add_comment(db: Db, t: dict[str, Any], body: str, visibility: str, *, agent_id: int | None = None,
                 employee_id: int | None = None) -> int:
    cid = db.insert("ticket_comments", {"ticket_id": t["id"], "agent_id": agent_id, "employee_id": employee_id,
                                        "visibility": visibility, "body": body, "created_at": _now(db)})
    if agent_id is not None and visibility == "public" and t["first_response_at"] is None:
        db.execute("UPDATE tickets SET first_response_at = ? WHERE id = ?", (_now(db), t["id"]))
    return cid


def _sla(db: Db, t: dict[str, Any]) -> dict[str, Any]:
    now = _now(db)
    resp_breached = (t["first_response_at"] > t["response_due_at"]) if t["first_response_at"] \
        else now > t["response_due_at"]
    end = t["resolved_at"] or now
    return {"response_due_at": t["response_due_at"], "first_response_at": t["first_response_at"],
            "response_breached": bool(resp_breached), "resolution_due_at": t["resolution_due_at"],
            "resolution_breached": bool(end > t["resolution_due_at"])}


def _seats_used(db: Db, software_id: int) -> int:
    return db.value("SELECT COUNT(*) FROM licence_assignments WHERE software_id = ?", (software_id,))


def _no_seat_yet(db: Db, s: dict[str, Any], e: dict[str, Any]) -> None:
    db.none("SELECT 1 FROM licence_assignments WHERE software_id = ? AND employee_id = ?", (s["id"], e["id"]),
            found=f"{e['full_name']} already has a {s['name']} seat.")


def _ticket_number(ticket_id: int) -> str:
    """A ticket's number from its row id: "INC-10042" (the world builder numbers its tickets the same way)."""
    return f"INC-{10000 + ticket_id}"


def _access_request_number(request_id: int) -> str:
    """An access request's number from its row id: "ACC-2007" (as the world builder numbers them)."""
    return f"ACC-{2000 + request_id}"


def _emp_short(db: Db, emp_id: int | None) -> dict[str, Any] | None:
    return None if emp_id is None else db.one("SELECT full_name AS name, email FROM employees WHERE id = ?", (emp_id,))


def _agent_short(db: Db, agent_id: int | None) -> dict[str, Any] | None:
    return None if agent_id is None else db.one("SELECT full_name AS name, email FROM agents WHERE id = ?", (agent_id,))


# ----------------------------------------------------------------------------------------------
# read tools: people and groups
# ----------------------------------------------------------------------------------------------

@tool
def find_employees(db: Db, query: str | None = None, department_code: str | None = None,
                   include_terminated: bool = False, limit: int = 20) -> dict:
    """Find employees by part of their name, e-mail or job title, optionally in one department.

    Args:
        query: words to look for in the name, e-mail or job title, e.g. "Okafor". Omit to list everyone.
        department_code: only this department, e.g. "FIN", "SAL", "ENG" (codes: FIN, HR, SAL, MKT, ENG, OPS, LEG, CS).
        include_terminated: also list people who have left the company (default false).
        limit: maximum number of people to return, 1 to 50.
    """
    _limit(limit)
    who, words = like_any(query, "e.full_name", "e.email", "e.job_title", optional=True)
    rows = db.query(
        "SELECT e.full_name AS name, e.email, e.job_title, d.code AS department, e.location, e.status "
        f"FROM employees e JOIN departments d ON d.id = e.department_id WHERE {who} "
        "AND (? IS NULL OR upper(d.code) = upper(?)) AND (? = 1 OR e.status <> 'terminated') "
        "ORDER BY e.full_name, e.id LIMIT ?",
        (*words, department_code, department_code, 1 if include_terminated else 0, limit))
    return {"count": len(rows), "employees": rows}


@tool
def get_employee(db: Db, email: str) -> dict:
    """Show an employee's profile: department, manager (who approves their access requests), account state,
    the equipment and software licences they hold, their open tickets and open access requests.

    Args:
        email: the employee's e-mail address, e.g. "ana.lopez@norvale.com".
    """
    e = _employee(db, email)
    assets = db.query("SELECT asset_tag, asset_type, model, serial_number, warranty_end FROM assets "
                      "WHERE assigned_to = ? ORDER BY asset_type, asset_tag", (e["id"],))
    lic = [r["name"] for r in db.query("SELECT s.name FROM licence_assignments l JOIN software s ON s.id = l.software_id "
                                       "WHERE l.employee_id = ? ORDER BY s.name", (e["id"],))]
    tickets = db.query("SELECT number, subject, status FROM tickets WHERE requester_id = ? AND status IN "
                       "('new', 'assigned', 'in_progress', 'waiting_on_user') ORDER BY id", (e["id"],))
    reqs = db.query("SELECT a.number, s.name AS software, a.status FROM access_requests a "
                    "JOIN software s ON s.id = a.software_id WHERE a.requester_id = ? AND a.status IN "
                    "('pending', 'approved') ORDER BY a.id", (e["id"],))
    return {"name": e["full_name"], "email": e["email"], "job_title": e["job_title"],
            "department": f"{e['dept_name']} ({e['dept_code']})", "location": e["location"], "status": e["status"],
            "manager": _emp_short(db, e["manager_id"]), "account_locked": bool(e["account_locked"]),
            "password_changed_at": e["password_changed_at"], "hired_on": e["hired_on"], "assets": assets,
            "licences": lic, "open_tickets": tickets, "open_access_requests": reqs}


@tool
def list_support_groups(db: Db) -> list[dict]:
    """List the IT support groups: code, name, what they may do (issue hardware; grant licences, fulfil access
    requests and reset passwords), their leads, active agents and open tickets."""
    out = []
    for g in db.query("SELECT * FROM support_groups ORDER BY id"):
        leads = [r["full_name"] for r in db.query("SELECT full_name FROM agents WHERE group_id = ? AND role IN "
                                                  "('lead', 'manager') AND is_active = 1 ORDER BY id", (g["id"],))]
        out.append({"code": g["code"], "name": g["name"], "email": g["email"], "description": g["description"],
                    "handles_assets": bool(g["handles_assets"]), "handles_access": bool(g["handles_access"]),
                    "leads": leads,
                    "active_agents": db.value("SELECT COUNT(*) FROM agents WHERE group_id = ? AND is_active = 1",
                                              (g["id"],)),
                    "open_tickets": db.value("SELECT COUNT(*) FROM tickets WHERE group_id = ? AND status IN "
                                             "('new', 'assigned', 'in_progress', 'waiting_on_user')", (g["id"],))})
    return out


@tool
def get_support_group(db: Db, group_code: str, skill: str | None = None) -> dict:
    """Show a support group's agents: name, e-mail, role (agent, lead, or manager = change advisory board),
    whether active, open tickets against their limit, and skills with levels 1-5.

    Args:
        group_code: the group's code, e.g. "NET" (list_support_groups shows them).
        skill: only agents with this skill, e.g. "VPN".
    """
    g = _group(db, group_code)
    agents = db.query("SELECT id, full_name AS name, email, role, is_active, max_open_tickets FROM agents "
                      "WHERE group_id = ? ORDER BY id", (g["id"],))
    out = []
    for a in agents:
        skills = db.query("SELECT s.name, x.level FROM agent_skills x JOIN skills s ON s.id = x.skill_id "
                          "WHERE x.agent_id = ? ORDER BY s.name", (a["id"],))
        if skill and not any(s["name"].lower() == skill.strip().lower() for s in skills):
            continue
        out.append({"name": a["name"], "email": a["email"], "role": a["role"], "active": bool(a["is_active"]),
                    "open_tickets": _workload(db, a["id"]), "max_open_tickets": a["max_open_tickets"],
                    "skills": {s["name"]: s["level"] for s in skills}})
    return {"code": g["code"], "name": g["name"], "agents": out}


@tool
def list_service_catalog(db: Db) -> dict:
    """The SLA priorities (response and resolution targets, counted from a ticket's creation) and the ticket
    categories with the group they route to and their default priority."""
    prios = db.query("SELECT code, name, response_minutes, resolution_hours FROM priorities ORDER BY code")
    cats = db.query("SELECT c.name, g.code AS routes_to_group, p.code AS default_priority FROM categories c "
                    "JOIN support_groups g ON g.id = c.default_group_id JOIN priorities p ON p.id = "
                    "c.default_priority_id ORDER BY c.id")
    return {"priorities": prios, "categories": cats}


# ----------------------------------------------------------------------------------------------
# read tools: tickets
# ----------------------------------------------------------------------------------------------

@tool
def search_tickets(db: Db, text: str | None = None, status: TicketStatus | Literal["open"] | None = None,
                   group_code: str | None = None, requester_email: str | None = None,
                   assignee_email: str | None = None, priority: PriorityCode | None = None,
                   limit: int = 20) -> dict:
    """Search tickets, newest first.

    Args:
        text: words in the subject or description, e.g. "VPN".
        status: one status, or "open" for every unresolved status (new, assigned, in_progress, waiting_on_user).
        group_code: only tickets of this support group, e.g. "EUC".
        requester_email: only tickets raised by this employee.
        assignee_email: only tickets assigned to this agent.
        priority: only this priority, P1 (critical) to P4 (low).
        limit: maximum number of tickets, 1 to 50.
    """
    _limit(limit)
    who, words = like_any(text, "t.subject", "t.description", optional=True)
    gid = _group(db, group_code)["id"] if group_code else None
    rid = _employee(db, requester_email, "requester")["id"] if requester_email else None
    aid = db.one(_AGENT_SQL, (assignee_email.strip(),),
                 missing=f"No IT agent with e-mail {assignee_email!r}.")["id"] if assignee_email else None
    rows = db.query(
        "SELECT t.number, t.subject, t.status, p.code AS priority, g.code AS group_code, e.full_name AS requester, "
        "a.full_name AS assignee, t.created_at FROM tickets t JOIN priorities p ON p.id = t.priority_id "
        "JOIN support_groups g ON g.id = t.group_id JOIN employees e ON e.id = t.requester_id "
        "LEFT JOIN agents a ON a.id = t.assignee_id "
        f"WHERE {who} "
        "AND (? IS NULL OR t.status = ? OR (? = 'open' AND t.status IN ('new', 'assigned', 'in_progress', "
        "'waiting_on_user'))) AND (? IS NULL OR t.group_id = ?) AND (? IS NULL OR t.requester_id = ?) "
        "AND (? IS NULL OR t.assignee_id = ?) AND (? IS NULL OR p.code = ?) ORDER BY t.created_at DESC, t.id DESC LIMIT ?",
        (*words, status, status, status, gid, gid, rid, rid, aid, aid, priority, priority, limit))
    return {"count": len(rows), "tickets": rows}


@tool
def get_ticket(db: Db, number: str) -> dict:
    """Show a ticket in full: requester, group, assignee, priority, status, timestamps, SLA deadlines and whether
    they are breached, the linked asset, every comment (public and internal) and its escalations.

    Args:
        number: the ticket number, e.g. "INC-10042".
    """
    t = _ticket(db, number)
    comments = db.query(
        "SELECT c.created_at, c.visibility, COALESCE(a.full_name, e.full_name) AS author, "
        "CASE WHEN c.agent_id IS NULL THEN 'requester' ELSE 'agent' END AS author_type, c.body "
        "FROM ticket_comments c LEFT JOIN agents a ON a.id = c.agent_id LEFT JOIN employees e ON e.id = c.employee_id "
        "WHERE c.ticket_id = ? ORDER BY c.created_at, c.id", (t["id"],))
    esc = db.query("SELECT x.created_at, f.code AS from_group, g.code AS to_group, a.full_name AS by_agent, x.reason "
                   "FROM escalations x JOIN support_groups f ON f.id = x.from_group_id JOIN support_groups g "
                   "ON g.id = x.to_group_id JOIN agents a ON a.id = x.escalated_by WHERE x.ticket_id = ? "
                   "ORDER BY x.created_at", (t["id"],))
    asset = db.value("SELECT asset_tag FROM assets WHERE id = ?", (t["asset_id"],)) if t["asset_id"] else None
    return {"number": t["number"], "subject": t["subject"], "description": t["description"], "status": t["status"],
            "priority": t["priority"],
            "category": db.value("SELECT name FROM categories WHERE id = ?", (t["category_id"],)),
            "group": f"{t['group_name']} ({t['group_code']})", "requester": _emp_short(db, t["requester_id"]),
            "assignee": _agent_short(db, t["assignee_id"]), "asset_tag": asset, "created_at": t["created_at"],
            "updated_at": t["updated_at"], "resolved_at": t["resolved_at"], "closed_at": t["closed_at"],
            "resolution_note": t["resolution_note"], "reopen_count": t["reopen_count"], "sla": _sla(db, t),
            "comments": comments, "escalations": esc}


@tool
def list_sla_breaches(db: Db, group_code: str | None = None,
                      kind: Literal["response", "resolution", "any"] = "any", limit: int = 20) -> dict:
    """List unresolved tickets (new, assigned, in progress, waiting on user) that have breached an SLA deadline
    as of now: no first public response by the response deadline (or a late one), or still unresolved after the
    resolution deadline. Returns the total count and the first tickets, oldest deadline first.

    Args:
        group_code: only this support group's tickets, e.g. "SD".
        kind: "response", "resolution" or "any" (default).
        limit: maximum number of tickets listed, 1 to 50 (the count covers all of them).
    """
    _limit(limit)
    gid = _group(db, group_code)["id"] if group_code else None
    now = _now(db)
    where = ("t.status IN ('new', 'assigned', 'in_progress', 'waiting_on_user') AND (? IS NULL OR t.group_id = ?) "
             "AND ((? IN ('response', 'any') AND COALESCE(t.first_response_at, ?) > t.response_due_at) "
             "OR (? IN ('resolution', 'any') AND ? > t.resolution_due_at))")
    params = (gid, gid, kind, now, kind, now)
    total = db.value(f"SELECT COUNT(*) FROM tickets t WHERE {where}", params)
    rows = db.query(
        "SELECT t.number, t.subject, t.status, p.code AS priority, g.code AS group_code, t.response_due_at, "
        "t.first_response_at, t.resolution_due_at FROM tickets t JOIN priorities p ON p.id = t.priority_id "
        f"JOIN support_groups g ON g.id = t.group_id WHERE {where} ORDER BY t.resolution_due_at, t.id LIMIT ?",
        (*params, limit))
    return {"count": total, "tickets": rows}


# ----------------------------------------------------------------------------------------------
# read tools: assets, software, access
# ----------------------------------------------------------------------------------------------

@tool
def list_assets(db: Db, asset_type: AssetType | None = None,
                status: Literal["in_stock", "assigned", "in_repair", "retired"] | None = None,
                holder_email: str | None = None, query: str | None = None, limit: int = 20) -> dict:
    """List equipment (laptops, phones, monitors, tablets) with its holder.

    Args:
        asset_type: only this type.
        status: only this status: in_stock, assigned, in_repair or retired.
        holder_email: only equipment assigned to this employee.
        query: part of the asset tag, model or serial number, e.g. "ThinkPad" or "LT-00123".
        limit: maximum number of assets, 1 to 50.
    """
    _limit(limit)
    hid = _employee(db, holder_email, "holder")["id"] if holder_email else None
    who, words = like_any(query, "a.asset_tag", "a.model", "a.serial_number", optional=True)
    rows = db.query(
        "SELECT a.asset_tag, a.asset_type, a.model, a.serial_number, a.status, e.full_name AS holder, "
        "e.email AS holder_email, a.assigned_at, a.purchase_date, a.warranty_end FROM assets a "
        "LEFT JOIN employees e ON e.id = a.assigned_to WHERE (? IS NULL OR a.asset_type = ?) "
        "AND (? IS NULL OR a.status = ?) AND (? IS NULL OR a.assigned_to = ?) "
        f"AND {who} ORDER BY a.asset_tag LIMIT ?",
        (asset_type, asset_type, status, status, hid, hid, *words, limit))
    return {"count": len(rows), "assets": rows}


@tool
def list_software(db: Db) -> list[dict]:
    """List the licensed software: vendor, seats in use, seat limit, free seats, monthly cost per seat (in
    dollars) and whether a manager-approved access request is needed before a seat is granted."""
    rows = db.query("SELECT s.*, (SELECT COUNT(*) FROM licence_assignments l WHERE l.software_id = s.id) AS used "
                    "FROM software s ORDER BY s.name")
    return [{"name": r["name"], "vendor": r["vendor"], "seats_used": r["used"], "seat_limit": r["seat_limit"],
             "free_seats": r["seat_limit"] - r["used"], "cost_per_seat": r["cost_per_seat_cents"] / 100,
             "requires_approval": bool(r["requires_approval"])} for r in rows]


@tool
def list_licence_holders(db: Db, software_name: str, department_code: str | None = None, limit: int = 50) -> dict:
    """List who holds a seat of one software product.

    Args:
        software_name: the exact product name, e.g. "Tableau Creator" (list_software shows them).
        department_code: only holders in this department, e.g. "FIN".
        limit: maximum number of holders, 1 to 100.
    """
    _limit(limit, 100)
    s = _software(db, software_name)
    rows = db.query("SELECT e.full_name AS name, e.email, d.code AS department, l.assigned_at "
                    "FROM licence_assignments l JOIN employees e ON e.id = l.employee_id "
                    "JOIN departments d ON d.id = e.department_id WHERE l.software_id = ? "
                    "AND (? IS NULL OR upper(d.code) = upper(?)) ORDER BY e.full_name LIMIT ?",
                    (s["id"], department_code, department_code, limit))
    used = _seats_used(db, s["id"])
    return {"software": s["name"], "seats_used": used, "seat_limit": s["seat_limit"], "holders": rows}


@tool
def list_access_requests(db: Db, status: Literal["pending", "approved", "rejected", "fulfilled", "cancelled"] | None
                         = None, requester_email: str | None = None, approver_email: str | None = None,
                         software_name: str | None = None, limit: int = 20) -> dict:
    """List software access requests, newest first, with requester, approver (the requester's manager) and state.

    Args:
        status: only this status: pending, approved, rejected, fulfilled or cancelled.
        requester_email: only requests by this employee.
        approver_email: only requests waiting on or decided by this manager.
        software_name: only requests for this product.
        limit: maximum number of requests, 1 to 50.
    """
    _limit(limit)
    rid = _employee(db, requester_email, "requester")["id"] if requester_email else None
    aid = _employee(db, approver_email, "approver")["id"] if approver_email else None
    sw = _software(db, software_name)["id"] if software_name else None
    where, params = filters(("r.status = ?", status), ("r.requester_id = ?", rid), ("r.approver_id = ?", aid),
                            ("r.software_id = ?", sw))
    rows = db.query(
        "SELECT r.number, s.name AS software, e.full_name AS requester, e.email AS requester_email, "
        "m.full_name AS approver, m.email AS approver_email, r.status, r.justification, r.created_at, r.decided_at, "
        "r.decision_note, r.fulfilled_at FROM access_requests r JOIN software s ON s.id = r.software_id "
        "JOIN employees e ON e.id = r.requester_id JOIN employees m ON m.id = r.approver_id "
        f"WHERE {where} ORDER BY r.created_at DESC, r.id DESC LIMIT ?", (*params, limit))
    return {"count": len(rows), "requests": rows}


# ----------------------------------------------------------------------------------------------
# read tools: changes, knowledge base, accounts
# ----------------------------------------------------------------------------------------------

@tool
def list_change_requests(db: Db, status: Literal["submitted", "approved", "rejected", "scheduled", "implemented",
                                                 "cancelled"] | None = None,
                         group_code: str | None = None, limit: int = 20) -> dict:
    """List change requests with their group, requester, risk, expected duration, status, approver and window.

    Args:
        status: only this status.
        group_code: only changes of this support group, e.g. "INFRA".
        limit: maximum number of changes, 1 to 50.
    """
    _limit(limit)
    gid = _group(db, group_code)["id"] if group_code else None
    rows = db.query(
        "SELECT c.number, c.title, g.code AS group_code, r.full_name AS requested_by, c.risk, c.duration_minutes, "
        "c.status, ap.full_name AS approved_by, w.id AS window_id, w.name AS window, c.created_at "
        "FROM change_requests c JOIN support_groups g ON g.id = c.group_id JOIN agents r ON r.id = c.requested_by "
        "LEFT JOIN agents ap ON ap.id = c.approved_by LEFT JOIN maintenance_windows w ON w.id = c.window_id "
        "WHERE (? IS NULL OR c.status = ?) AND (? IS NULL OR c.group_id = ?) ORDER BY c.id LIMIT ?",
        (status, status, gid, gid, limit))
    return {"count": len(rows), "changes": rows}


@tool
def list_maintenance_windows(db: Db, upcoming_only: bool = True, limit: int = 20) -> dict:
    """List maintenance windows with their length, capacity and how many changes are already in them.

    Args:
        upcoming_only: only windows that have not started yet (default true).
        limit: maximum number of windows, 1 to 50.
    """
    _limit(limit)
    rows = db.query(
        "SELECT w.id, w.name, w.starts_at, w.ends_at, w.max_changes, (SELECT COUNT(*) FROM change_requests c "
        "WHERE c.window_id = w.id AND c.status IN ('scheduled', 'implemented')) AS changes FROM maintenance_windows w "
        "WHERE (? = 0 OR w.starts_at > ?) ORDER BY w.starts_at LIMIT ?", (1 if upcoming_only else 0, _now(db), limit))
    for r in rows:
        r["length_minutes"] = int((datetime.fromisoformat(r["ends_at"]) - datetime.fromisoformat(r["starts_at"]))
                                  .total_seconds() // 60)
        r["free_slots"] = r["max_changes"] - r["changes"]
    return {"count": len(rows), "windows": rows}


@tool
def search_kb(db: Db, query: str | None = None, status: Literal["draft", "published", "retired"] | None = None,
              category: str | None = None, limit: int = 20) -> dict:
    """Search knowledge-base articles by words in the title.

    Args:
        query: words to look for in the title, e.g. "VPN".
        status: only draft, published or retired articles.
        category: only this ticket category, e.g. "Printing".
        limit: maximum number of articles, 1 to 50.
    """
    _limit(limit)
    titled, words = like_any(query, "k.title", optional=True)
    where, params = filters(("k.status = ?", status), ("lower(c.name) = lower(?)", category))
    rows = db.query(
        "SELECT k.number, k.title, c.name AS category, k.status, a.full_name AS author, k.published_at, "
        "k.helpful_votes FROM kb_articles k JOIN categories c ON c.id = k.category_id JOIN agents a ON a.id = k.author_id "
        f"WHERE {titled} AND {where} ORDER BY k.number LIMIT ?", (*words, *params, limit))
    return {"count": len(rows), "articles": rows}


@tool
def get_kb_article(db: Db, number: str) -> dict:
    """Show one knowledge-base article in full.

    Args:
        number: the article number, e.g. "KB-1007".
    """
    k = db.one("SELECT k.*, c.name AS category FROM kb_articles k JOIN categories c ON c.id = k.category_id "
               "WHERE upper(k.number) = upper(?)", (number.strip(),),
               missing=f"No article numbered {number!r}; use search_kb to find one.")
    return {"number": k["number"], "title": k["title"], "category": k["category"], "status": k["status"],
            "author": _agent_short(db, k["author_id"]), "published_by": _agent_short(db, k["published_by"]),
            "published_at": k["published_at"], "helpful_votes": k["helpful_votes"], "created_at": k["created_at"],
            "body": k["body"]}


@tool
def list_account_events(db: Db, employee_email: str, limit: int = 20) -> dict:
    """An employee's account history, newest first: lock-outs, password resets and unlocks.

    Args:
        employee_email: the employee's e-mail.
        limit: maximum number of events, 1 to 50.
    """
    _limit(limit)
    e = _employee(db, employee_email)
    rows = db.query("SELECT x.created_at, x.event_type, a.full_name AS performed_by, t.number AS ticket, x.note "
                    "FROM account_events x LEFT JOIN agents a ON a.id = x.performed_by LEFT JOIN tickets t "
                    "ON t.id = x.ticket_id WHERE x.employee_id = ? ORDER BY x.created_at DESC, x.id DESC LIMIT ?",
                    (e["id"], limit))
    return {"employee": e["full_name"], "account_locked": bool(e["account_locked"]), "events": rows}


# ----------------------------------------------------------------------------------------------
# write tools: tickets
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_ticket(db: Db, requester_email: str, subject: str, category: str, actor_email: str,
                  description: str = "", priority: PriorityCode | None = None, asset_tag: str | None = None) -> dict:
    """Log a new ticket for an employee. It is routed to the category's support group, gets the category's
    default priority unless one is given, and its SLA deadlines are set from the priority. The requester must be
    a current employee (not terminated); a linked asset must be one the requester holds.

    Args:
        requester_email: e-mail of the employee who has the problem.
        subject: a short summary, 3 to 200 characters.
        category: the category name, e.g. "VPN" (list_service_catalog shows them).
        actor_email: e-mail of the IT agent logging the ticket.
        description: details of the problem.
        priority: P1 to P4; omit for the category's default.
        asset_tag: the requester's asset the ticket is about, e.g. "LT-00123".
    """
    actor = _agent(db, actor_email, "acting agent")
    req = _employee(db, requester_email, "requester")
    if req["status"] == "terminated":
        raise ToolError(f"{req['full_name']} has left the company; tickets can only be raised for current staff.")
    cat = db.one("SELECT * FROM categories WHERE lower(name) = lower(?)", (category.strip(),))
    if cat is None:
        names = ", ".join(r["name"] for r in db.query("SELECT name FROM categories ORDER BY id"))
        raise ToolError(f"No category {category!r}. Categories: {names}.")
    subj = _text(subject, "subject", 3, 200)
    pid = db.value("SELECT id FROM priorities WHERE code = ?", (priority,)) if priority else cat["default_priority_id"]
    p = db.one("SELECT * FROM priorities WHERE id = ?", (pid,))
    asset_id = None
    if asset_tag:
        a = _asset(db, asset_tag, f"No asset tagged {asset_tag!r}.")
        require_owner(a, "assigned_to", req["id"],
                      f"{a['asset_tag']} is not assigned to {req['full_name']}; link only their own equipment.")
        asset_id = a["id"]
    now = db.now().replace(microsecond=0)
    tid = db.insert("tickets", {
        "number": "pending", "requester_id": req["id"], "category_id": cat["id"], "priority_id": pid,
        "group_id": cat["default_group_id"], "assignee_id": None, "asset_id": asset_id, "subject": subj,
        "description": description.strip(), "status": "new", "created_at": now.isoformat(),
        "updated_at": now.isoformat(), "first_response_at": None,
        "response_due_at": (now + timedelta(minutes=p["response_minutes"])).isoformat(),
        "resolution_due_at": (now + timedelta(hours=p["resolution_hours"])).isoformat(),
        "resolved_at": None, "closed_at": None, "resolution_note": None, "reopen_count": 0})
    number = _ticket_number(tid)
    db.execute("UPDATE tickets SET number = ? WHERE id = ?", (number, tid))
    g = db.one("SELECT code, name FROM support_groups WHERE id = ?", (cat["default_group_id"],))
    return {"number": number, "status": "new", "group": g["code"], "priority": p["code"],
            "response_due_at": (now + timedelta(minutes=p["response_minutes"])).isoformat(),
            "resolution_due_at": (now + timedelta(hours=p["resolution_hours"])).isoformat(),
            "logged_by": actor["full_name"]}


@tool(write=True)
def assign_ticket(db: Db, number: str, assignee_email: str, actor_email: str) -> dict:
    """Assign an unresolved ticket to an agent of the ticket's own group. Agents may take tickets themselves;
    assigning to someone else takes a lead of the group. The assignee must be active and below their
    max_open_tickets (assigned, in progress and waiting tickets count). A new ticket becomes 'assigned'; any
    other status is kept.

    Args:
        number: the ticket number, e.g. "INC-10042".
        assignee_email: e-mail of the agent who will work the ticket.
        actor_email: e-mail of the agent making the assignment.
    """
    t = _ticket(db, number)
    _open(t)
    actor = _group_agent(db, actor_email, t)
    who = _agent(db, assignee_email, "assignee")
    if who["group_id"] != t["group_id"]:
        raise ToolError(f"{who['full_name']} is in {who['group_name']}, not {t['group_name']}; assign an agent of "
                        f"{t['group_name']} or escalate the ticket to {who['group_name']} first.")
    if who["id"] != actor["id"] and not _is_lead(actor):
        raise ToolError(f"{actor['full_name']} is not a lead of {t['group_name']}: agents may only take tickets "
                        "themselves. Ask a lead to assign it to someone else.")
    if t["assignee_id"] == who["id"]:
        raise ToolError(f"{t['number']} is already assigned to {who['full_name']}.")
    load = _workload(db, who["id"])
    if load >= who["max_open_tickets"]:
        raise ToolError(f"{who['full_name']} already has {load} open tickets, their limit of "
                        f"{who['max_open_tickets']}. Choose another agent (get_support_group shows workloads).")
    status = "assigned" if t["status"] == "new" else t["status"]
    db.execute("UPDATE tickets SET assignee_id = ?, status = ?, updated_at = ? WHERE id = ?",
               (who["id"], status, _now(db), t["id"]))
    return {"number": t["number"], "assignee": who["full_name"], "status": status,
            "previous_assignee": (_agent_short(db, t["assignee_id"]) or {}).get("name")}


_TRANSITIONS = {("assigned", "in_progress"), ("in_progress", "waiting_on_user"), ("waiting_on_user", "in_progress"),
                ("resolved", "closed")}


@tool(write=True)
def update_ticket_status(db: Db, number: str, status: Literal["in_progress", "waiting_on_user", "closed"],
                         actor_email: str) -> dict:
    """Move a ticket along the workflow: assigned -> in_progress, in_progress <-> waiting_on_user (waiting for
    the requester's reply), resolved -> closed. Resolving has its own tool (resolve_ticket), as does reopening
    (reopen_ticket). Only the assignee or a lead of the ticket's group may do this.

    Args:
        number: the ticket number.
        status: the new status: in_progress, waiting_on_user or closed.
        actor_email: e-mail of the agent making the change.
    """
    t = _ticket(db, number)
    actor = _owner_or_lead(db, actor_email, t, "change the status of")
    if (t["status"], status) not in _TRANSITIONS:
        allowed = sorted(b for a, b in _TRANSITIONS if a == t["status"])
        hint = f"From {t['status']} it can go to: {', '.join(allowed)}." if allowed else \
            "Use assign_ticket, resolve_ticket or reopen_ticket instead."
        raise ToolError(f"{t['number']} cannot go from {t['status']} to {status}. {hint}")
    now = _now(db)
    db.execute("UPDATE tickets SET status = ?, closed_at = ?, updated_at = ? WHERE id = ?",
               (status, now if status == "closed" else None, now, t["id"]))
    return {"number": t["number"], "status": status, "previous_status": t["status"], "by": actor["full_name"]}


@tool(write=True)
def resolve_ticket(db: Db, number: str, actor_email: str, resolution_note: str) -> dict:
    """Resolve a ticket that is in progress or waiting on the user, recording what fixed it. The requester can
    reopen it within 7 days. Only the assignee or a lead of the ticket's group may resolve it.

    Args:
        number: the ticket number.
        actor_email: e-mail of the agent resolving it.
        resolution_note: what was done to fix the problem, 3 to 1000 characters.
    """
    t = _ticket(db, number)
    actor = _owner_or_lead(db, actor_email, t, "resolve")
    if t["status"] not in ("in_progress", "waiting_on_user"):
        raise ToolError(f"{t['number']} is {t['status']}; only a ticket in progress or waiting on the user can be "
                        "resolved (move an assigned ticket to in_progress first).")
    note = _text(resolution_note, "resolution_note")
    now = _now(db)
    db.execute("UPDATE tickets SET status = 'resolved', resolved_at = ?, resolution_note = ?, updated_at = ? "
               "WHERE id = ?", (now, note, now, t["id"]))
    out = {"number": t["number"], "status": "resolved", "resolved_at": now, "by": actor["full_name"]}
    if now > t["resolution_due_at"]:
        out["sla"] = f"resolved after the resolution deadline {t['resolution_due_at']} (breached)"
    return out


@tool(write=True)
def reopen_ticket(db: Db, number: str, actor_email: str, reason: str) -> dict:
    """Reopen a resolved ticket because the problem is back. Allowed within 7 days of its resolution, for the
    requester or an agent of the ticket's group; closed tickets cannot be reopened (log a new ticket). The ticket
    goes back to its assignee in progress, and the reason is posted as a public comment.

    Args:
        number: the ticket number.
        actor_email: e-mail of the requester or of an agent of the ticket's group.
        reason: why it is being reopened, 3 to 1000 characters.
    """
    t = _ticket(db, number)
    agent = _agent_or_none(db, actor_email)
    emp_id = None
    if agent is not None:
        agent = _group_agent(db, actor_email, t)
    else:
        e = _employee(db, actor_email, "requester or agent")
        require_owner(t, "requester_id", e["id"], f"{e['full_name']} did not raise {t['number']}; only its requester "
                      f"or an agent of {t['group_name']} can reopen it.")
        emp_id = e["id"]
    if t["status"] != "resolved":
        raise ToolError(f"{t['number']} is {t['status']}; only resolved tickets can be reopened"
                        + (" — it is closed, so log a new ticket instead." if t["status"] == "closed" else "."))
    if db.now() - datetime.fromisoformat(t["resolved_at"]) > timedelta(days=REOPEN_DAYS):
        raise ToolError(f"{t['number']} was resolved on {t['resolved_at'][:10]}, more than {REOPEN_DAYS} days ago; "
                        "log a new ticket instead.")
    body = _text(reason, "reason")
    now = _now(db)
    db.execute("UPDATE tickets SET status = 'in_progress', resolved_at = NULL, resolution_note = NULL, "
               "reopen_count = reopen_count + 1, updated_at = ? WHERE id = ?", (now, t["id"]))
    _add_comment(db, t, body, "public", agent_id=agent["id"] if agent else None, employee_id=emp_id)
    return {"number": t["number"], "status": "in_progress", "reopen_count": t["reopen_count"] + 1,
            "assignee": (_agent_short(db, t["assignee_id"]) or {}).get("name")}


@tool(write=True)
def add_ticket_comment(db: Db, number: str, actor_email: str, body: str,
                       visibility: Literal["public", "internal"] = "public") -> dict:
    """Comment on a ticket that is not closed. Agents of the ticket's group may post public replies (seen by the
    requester) or internal notes (IT only); the first public reply by an agent is the ticket's first response for
    the SLA. The requester may post public comments only.

    Args:
        number: the ticket number.
        actor_email: e-mail of the agent or of the requester writing the comment.
        body: the comment text, 1 to 4000 characters.
        visibility: "public" (default) or "internal".
    """
    t = _ticket(db, number)
    if t["status"] == "closed":
        raise ToolError(f"{t['number']} is closed; comments are no longer accepted. Log a new ticket instead.")
    text = _text(body, "body", 1, 4000)
    agent = _agent_or_none(db, actor_email)
    if agent is not None:
        agent = _group_agent(db, actor_email, t)
        cid = _add_comment(db, t, text, visibility, agent_id=agent["id"])
        author = agent["full_name"]
    else:
        e = _employee(db, actor_email, "requester or agent")
        require_owner(t, "requester_id", e["id"],
                      f"{e['full_name']} is not the requester of {t['number']} and cannot comment on it.")
        if visibility != "public":
            raise ToolError("Requesters can only post public comments.")
        cid = _add_comment(db, t, text, "public", employee_id=e["id"])
        author = e["full_name"]
    _touch(db, t["id"])
    first = db.value("SELECT first_response_at FROM tickets WHERE id = ?", (t["id"],))
    return {"comment_id": cid, "number": t["number"], "author": author, "visibility": visibility,
            "first_response_at": first}


@tool(write=True)
def escalate_ticket(db: Db, number: str, to_group_code: str, actor_email: str, reason: str) -> dict:
    """Hand an unresolved ticket over to another support group. Any agent of the ticket's current group may do
    it; the ticket leaves its assignee and becomes 'new' in the target group's queue. SLA deadlines do not change.

    Args:
        number: the ticket number.
        to_group_code: the code of the group taking it over, e.g. "NET".
        actor_email: e-mail of an agent of the ticket's current group.
        reason: why it is escalated, 3 to 1000 characters.
    """
    t = _ticket(db, number)
    _open(t)
    actor = _group_agent(db, actor_email, t)
    g = _group(db, to_group_code)
    if g["id"] == t["group_id"]:
        raise ToolError(f"{t['number']} is already with {g['name']}.")
    why = _text(reason, "reason")
    now = _now(db)
    db.insert("escalations", {"ticket_id": t["id"], "from_group_id": t["group_id"], "to_group_id": g["id"],
                              "escalated_by": actor["id"], "reason": why, "created_at": now})
    db.execute("UPDATE tickets SET group_id = ?, assignee_id = NULL, status = 'new', updated_at = ? WHERE id = ?",
               (g["id"], now, t["id"]))
    return {"number": t["number"], "from_group": t["group_code"], "to_group": g["code"], "status": "new"}


@tool(write=True)
def change_ticket_priority(db: Db, number: str, priority: PriorityCode, actor_email: str, reason: str) -> dict:
    """Change an unresolved ticket's priority. Both SLA deadlines are recalculated from the ticket's creation time
    with the new priority's targets, and the reason is recorded as an internal note. Any agent of the ticket's
    group may do this.

    Args:
        number: the ticket number.
        priority: the new priority, P1 (critical) to P4 (low).
        actor_email: e-mail of an agent of the ticket's group.
        reason: why the priority changes, 3 to 1000 characters.
    """
    t = _ticket(db, number)
    _open(t)
    actor = _group_agent(db, actor_email, t)
    if t["priority"] == priority:
        raise ToolError(f"{t['number']} is already {priority}.")
    why = _text(reason, "reason")
    p = db.one("SELECT * FROM priorities WHERE code = ?", (priority,))
    created = datetime.fromisoformat(t["created_at"])
    resp = (created + timedelta(minutes=p["response_minutes"])).isoformat()
    res = (created + timedelta(hours=p["resolution_hours"])).isoformat()
    db.execute("UPDATE tickets SET priority_id = ?, response_due_at = ?, resolution_due_at = ?, updated_at = ? "
               "WHERE id = ?", (p["id"], resp, res, _now(db), t["id"]))
    _add_comment(db, t, f"Priority changed from {t['priority']} to {priority}: {why}", "internal",
                 agent_id=actor["id"])
    return {"number": t["number"], "priority": priority, "previous_priority": t["priority"],
            "response_due_at": resp, "resolution_due_at": res}


# ----------------------------------------------------------------------------------------------
# write tools: equipment and licences
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def assign_asset(db: Db, asset_tag: str, employee_email: str, actor_email: str) -> dict:
    """Issue an in-stock asset to a current employee. Each person holds at most one laptop, one phone, one tablet
    and two monitors. Only agents of a group that handles hardware may issue equipment.

    Args:
        asset_tag: the asset's tag, e.g. "LT-00123".
        employee_email: e-mail of the employee receiving it.
        actor_email: e-mail of the agent issuing it.
    """
    actor = _capable_agent(db, actor_email, "handles_assets", "issue equipment")
    a = _asset(db, asset_tag, f"No asset tagged {asset_tag!r}; list_assets(status='in_stock') shows what is available.")
    e = _employee(db, employee_email)
    if e["status"] == "terminated":
        raise ToolError(f"{e['full_name']} has left the company and cannot receive equipment.")
    if a["status"] != "in_stock":
        holder = _emp_short(db, a["assigned_to"])
        raise ToolError(f"{a['asset_tag']} is {a['status']}" + (f" (held by {holder['name']})" if holder else "")
                        + "; choose an in-stock asset.")
    have = db.value("SELECT COUNT(*) FROM assets WHERE assigned_to = ? AND asset_type = ?", (e["id"], a["asset_type"]))
    if have >= TYPE_LIMIT[a["asset_type"]]:
        raise ToolError(f"{e['full_name']} already holds {have} {a['asset_type']}(s), the limit; return the old one "
                        "with return_asset first.")
    now = _now(db)
    db.execute("UPDATE assets SET status = 'assigned', assigned_to = ?, assigned_at = ? WHERE id = ?",
               (e["id"], now, a["id"]))
    return {"asset_tag": a["asset_tag"], "model": a["model"], "assigned_to": e["full_name"], "by": actor["full_name"]}


@tool(write=True)
def return_asset(db: Db, asset_tag: str, actor_email: str, condition: Literal["good", "damaged"]) -> dict:
    """Take back an assigned asset from its holder: in good condition it goes back in stock, damaged it goes to
    repair. Only agents of a group that handles hardware may do this.

    Args:
        asset_tag: the asset's tag.
        actor_email: e-mail of the agent receiving it.
        condition: "good" (back to stock) or "damaged" (to repair).
    """
    actor = _capable_agent(db, actor_email, "handles_assets", "take back equipment")
    a = _asset(db, asset_tag, f"No asset tagged {asset_tag!r}.")
    if a["status"] != "assigned":
        raise ToolError(f"{a['asset_tag']} is {a['status']}, not assigned to anyone.")
    holder = _emp_short(db, a["assigned_to"])
    status = "in_stock" if condition == "good" else "in_repair"
    db.execute("UPDATE assets SET status = ?, assigned_to = NULL, assigned_at = NULL WHERE id = ?", (status, a["id"]))
    return {"asset_tag": a["asset_tag"], "returned_by": holder["name"], "status": status, "by": actor["full_name"]}


@tool(write=True)
def assign_licence(db: Db, software_name: str, employee_email: str, actor_email: str) -> dict:
    """Give an employee a seat of a software product that needs no approval. Products that require approval are
    granted only by fulfilling an approved access request (fulfil_access_request). Refused when every seat is
    taken. Only agents of a group that handles access may do this.

    Args:
        software_name: the exact product name (list_software shows them).
        employee_email: e-mail of the employee.
        actor_email: e-mail of the agent granting the seat.
    """
    actor = _capable_agent(db, actor_email, "handles_access", "grant licences")
    s = _software(db, software_name)
    e = _employee(db, employee_email)
    if e["status"] == "terminated":
        raise ToolError(f"{e['full_name']} has left the company.")
    if s["requires_approval"]:
        raise ToolError(f"{s['name']} needs the manager's approval: the employee submits an access request, their "
                        "manager approves it, and then it is fulfilled with fulfil_access_request.")
    _no_seat_yet(db, s, e)
    used = _seats_used(db, s["id"])
    if used >= s["seat_limit"]:
        raise ToolError(f"All {s['seat_limit']} {s['name']} seats are taken; free one with revoke_licence first.")
    db.insert("licence_assignments", {"software_id": s["id"], "employee_id": e["id"], "assigned_by": actor["id"],
                                      "assigned_at": _now(db)})
    return {"software": s["name"], "employee": e["full_name"], "seats_used": used + 1, "seat_limit": s["seat_limit"]}


@tool(write=True)
def revoke_licence(db: Db, software_name: str, employee_email: str, actor_email: str) -> dict:
    """Take a software seat away from an employee, freeing it. Only agents of a group that handles access may do
    this.

    Args:
        software_name: the exact product name.
        employee_email: e-mail of the employee holding the seat.
        actor_email: e-mail of the agent revoking it.
    """
    actor = _capable_agent(db, actor_email, "handles_access", "revoke licences")
    s = _software(db, software_name)
    e = _employee(db, employee_email)
    n = db.execute("DELETE FROM licence_assignments WHERE software_id = ? AND employee_id = ?", (s["id"], e["id"]))
    if n == 0:
        raise ToolError(f"{e['full_name']} holds no {s['name']} seat.")
    used = _seats_used(db, s["id"])
    return {"software": s["name"], "employee": e["full_name"], "seats_used": used, "seat_limit": s["seat_limit"],
            "by": actor["full_name"]}


# ----------------------------------------------------------------------------------------------
# write tools: access requests
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def submit_access_request(db: Db, requester_email: str, software_name: str, justification: str) -> dict:
    """An employee asks for a seat of a product that requires approval. The request goes to the requester's
    manager. Refused if they already hold the product or already have a pending or approved request for it.

    Args:
        requester_email: e-mail of the employee asking (they submit it themselves).
        software_name: the exact product name (list_software shows which need approval).
        justification: why they need it, 3 to 1000 characters.
    """
    e = _employee(db, requester_email, "requester")
    if e["status"] != "active":
        raise ToolError(f"{e['full_name']} is {e['status']}; only active employees can request access.")
    s = _software(db, software_name)
    if not s["requires_approval"]:
        raise ToolError(f"{s['name']} needs no approval; ask an agent of a group that handles access to assign the "
                        "seat directly (assign_licence).")
    if e["manager_id"] is None:
        raise ToolError(f"{e['full_name']} has no manager on record to approve the request.")
    _no_seat_yet(db, s, e)
    dup = db.value("SELECT number FROM access_requests WHERE requester_id = ? AND software_id = ? AND status IN "
                   "('pending', 'approved')", (e["id"], s["id"]))
    if dup:
        raise ToolError(f"{e['full_name']} already has request {dup} open for {s['name']}.")
    why = _text(justification, "justification")
    rid = db.insert("access_requests", {
        "number": "pending", "requester_id": e["id"], "software_id": s["id"], "justification": why,
        "status": "pending", "approver_id": e["manager_id"], "decided_at": None, "decision_note": None,
        "fulfilled_by": None, "fulfilled_at": None, "created_at": _now(db)})
    number = _access_request_number(rid)
    db.execute("UPDATE access_requests SET number = ? WHERE id = ?", (number, rid))
    return {"number": number, "status": "pending", "software": s["name"], "approver": _emp_short(db, e["manager_id"])}


@tool(write=True)
def decide_access_request(db: Db, number: str, approver_email: str, decision: Literal["approve", "reject"],
                          note: str = "") -> dict:
    """The requester's manager approves or rejects a pending access request. Nobody else may decide it. A
    rejection needs a note saying why.

    Args:
        number: the request number, e.g. "ACC-2007".
        approver_email: e-mail of the manager deciding (must be the request's approver).
        decision: "approve" or "reject".
        note: the decision note (required when rejecting).
    """
    r = db.one("SELECT r.*, s.name AS software FROM access_requests r JOIN software s ON s.id = r.software_id "
               "WHERE upper(r.number) = upper(?)", (number.strip(),),
               missing=f"No access request numbered {number!r}; list_access_requests shows them.")
    m = _employee(db, approver_email, "approver")
    if m["id"] != r["approver_id"]:
        who = _emp_short(db, r["approver_id"])
        raise ToolError(f"Only {who['name']} ({who['email']}), the requester's manager, can decide {r['number']}.")
    if m["status"] != "active":
        raise ToolError(f"{m['full_name']} is {m['status']} and cannot decide requests right now.")
    if r["status"] != "pending":
        raise ToolError(f"{r['number']} is already {r['status']}.")
    text = note.strip()
    if decision == "reject" and len(text) < 3:
        raise ToolError("A rejection needs a note (at least 3 characters) explaining why.")
    status = "approved" if decision == "approve" else "rejected"
    db.execute("UPDATE access_requests SET status = ?, decided_at = ?, decision_note = ? WHERE id = ?",
               (status, _now(db), text or None, r["id"]))
    return {"number": r["number"], "software": r["software"], "status": status}


@tool(write=True)
def fulfil_access_request(db: Db, number: str, actor_email: str) -> dict:
    """Grant the seat for an approved access request and mark it fulfilled. Refused when every seat of the
    product is taken. Only agents of a group that handles access may do this.

    Args:
        number: the request number.
        actor_email: e-mail of the agent fulfilling it.
    """
    actor = _capable_agent(db, actor_email, "handles_access", "fulfil access requests")
    r = db.one("SELECT * FROM access_requests WHERE upper(number) = upper(?)", (number.strip(),),
               missing=f"No access request numbered {number!r}.")
    if r["status"] != "approved":
        raise ToolError(f"{r['number']} is {r['status']}; only approved requests can be fulfilled"
                        + (" (the requester's manager must approve it first)." if r["status"] == "pending" else "."))
    s = db.one("SELECT * FROM software WHERE id = ?", (r["software_id"],))
    e = db.one("SELECT * FROM employees WHERE id = ?", (r["requester_id"],))
    if e["status"] == "terminated":
        raise ToolError(f"{e['full_name']} has left the company.")
    _no_seat_yet(db, s, e)
    used = _seats_used(db, s["id"])
    if used >= s["seat_limit"]:
        raise ToolError(f"All {s['seat_limit']} {s['name']} seats are taken; free one (revoke_licence) before "
                        "fulfilling this request.")
    now = _now(db)
    db.insert("licence_assignments", {"software_id": s["id"], "employee_id": e["id"], "assigned_by": actor["id"],
                                      "assigned_at": now})
    db.execute("UPDATE access_requests SET status = 'fulfilled', fulfilled_by = ?, fulfilled_at = ? WHERE id = ?",
               (actor["id"], now, r["id"]))
    return {"number": r["number"], "status": "fulfilled", "software": s["name"], "employee": e["full_name"],
            "seats_used": used + 1, "seat_limit": s["seat_limit"]}


# ----------------------------------------------------------------------------------------------
# write tools: changes, knowledge base, accounts
# ----------------------------------------------------------------------------------------------

def _change(db: Db, number: str) -> dict[str, Any]:
    return db.one("SELECT * FROM change_requests WHERE upper(number) = upper(?)", (number.strip(),),
                  missing=f"No change request numbered {number!r}; list_change_requests shows them.")


@tool(write=True)
def decide_change_request(db: Db, number: str, actor_email: str, decision: Literal["approve", "reject"]) -> dict:
    """A change advisory board member (an agent with the 'manager' role) approves or rejects a submitted change.
    Nobody may decide their own change.

    Args:
        number: the change number, e.g. "CHG-3004".
        actor_email: e-mail of the CAB manager.
        decision: "approve" or "reject".
    """
    c = _change(db, number)
    actor = _agent(db, actor_email, "acting agent")
    if actor["role"] != "manager":
        names = ", ".join(r["full_name"] for r in db.query("SELECT full_name FROM agents WHERE role = 'manager' "
                                                           "AND is_active = 1 ORDER BY id"))
        raise ToolError(f"{actor['full_name']} is not on the change advisory board; ask one of: {names}.")
    if c["requested_by"] == actor["id"]:
        raise ToolError("Nobody may approve or reject their own change; ask another CAB manager.")
    if c["status"] != "submitted":
        raise ToolError(f"{c['number']} is {c['status']}; only submitted changes can be decided.")
    status = "approved" if decision == "approve" else "rejected"
    db.execute("UPDATE change_requests SET status = ?, approved_by = ?, decided_at = ? WHERE id = ?",
               (status, actor["id"] if status == "approved" else None, _now(db), c["id"]))
    return {"number": c["number"], "status": status, "by": actor["full_name"]}


@tool(write=True)
def schedule_change(db: Db, number: str, window_id: int, actor_email: str) -> dict:
    """Put an approved change into a maintenance window that has not started. The window must have a free slot
    (max_changes) and be long enough for the change's duration — high-risk changes also need 60 minutes spare for
    a rollback. The change's requester, a lead of its group or a CAB manager may schedule it.

    Args:
        number: the change number.
        window_id: the window's id (list_maintenance_windows shows them).
        actor_email: e-mail of the agent scheduling it.
    """
    c = _change(db, number)
    actor = _agent(db, actor_email, "acting agent")
    if not (actor["id"] == c["requested_by"] or actor["role"] == "manager"
            or (actor["role"] == "lead" and actor["group_id"] == c["group_id"])):
        raise ToolError(f"{actor['full_name']} may not schedule {c['number']}: only its requester, a lead of its "
                        "group or a CAB manager can.")
    if c["status"] != "approved":
        raise ToolError(f"{c['number']} is {c['status']}; only approved changes can be scheduled"
                        + (" (a CAB manager must approve it first)." if c["status"] == "submitted" else "."))
    w = db.one("SELECT * FROM maintenance_windows WHERE id = ?", (window_id,),
               missing=f"No maintenance window with id {window_id}.")
    if w["starts_at"] <= _now(db):
        raise ToolError(f"{w['name']} has already started or passed; choose an upcoming window.")
    used = db.value("SELECT COUNT(*) FROM change_requests WHERE window_id = ? AND status IN ('scheduled', "
                    "'implemented')", (w["id"],))
    if used >= w["max_changes"]:
        raise ToolError(f"{w['name']} is full ({used} of {w['max_changes']} changes); choose another window.")
    length = int((datetime.fromisoformat(w["ends_at"]) - datetime.fromisoformat(w["starts_at"])).total_seconds() // 60)
    need = c["duration_minutes"] + (HIGH_RISK_BUFFER_MINUTES if c["risk"] == "high" else 0)
    if length < need:
        raise ToolError(f"{w['name']} lasts {length} minutes but {c['number']} needs {need}"
                        + (" (its duration plus 60 minutes rollback time for a high-risk change)"
                           if c["risk"] == "high" else "") + "; choose a longer window.")
    db.execute("UPDATE change_requests SET status = 'scheduled', window_id = ? WHERE id = ?", (w["id"], c["id"]))
    return {"number": c["number"], "status": "scheduled", "window": w["name"], "starts_at": w["starts_at"],
            "window_changes": used + 1, "max_changes": w["max_changes"]}


@tool(write=True)
def publish_kb_article(db: Db, number: str, actor_email: str) -> dict:
    """Publish a draft knowledge-base article after review. The reviewer must be a lead or manager and may not be
    the article's author.

    Args:
        number: the article number, e.g. "KB-1004".
        actor_email: e-mail of the reviewing lead or manager.
    """
    k = db.one("SELECT * FROM kb_articles WHERE upper(number) = upper(?)", (number.strip(),),
               missing=f"No article numbered {number!r}.")
    actor = _agent(db, actor_email, "acting agent")
    if not _is_lead(actor):
        raise ToolError(f"{actor['full_name']} is not a lead or manager; articles are published by a reviewing lead.")
    if k["author_id"] == actor["id"]:
        raise ToolError("Authors cannot publish their own articles; another lead must review it.")
    if k["status"] != "draft":
        raise ToolError(f"{k['number']} is {k['status']}; only drafts can be published.")
    now = _now(db)
    db.execute("UPDATE kb_articles SET status = 'published', published_by = ?, published_at = ? WHERE id = ?",
               (actor["id"], now, k["id"]))
    return {"number": k["number"], "title": k["title"], "status": "published", "by": actor["full_name"]}


@tool(write=True)
def reset_password(db: Db, employee_email: str, actor_email: str, ticket_number: str | None = None) -> dict:
    """Reset a current employee's password; a locked account is unlocked at the same time. Records the reset
    (and the unlock) in the account history, linked to the employee's ticket when one is given. Only agents of a
    group that handles access may do this.

    Args:
        employee_email: e-mail of the employee.
        actor_email: e-mail of the agent doing the reset.
        ticket_number: the employee's own open ticket about it, e.g. "INC-10042" (optional).
    """
    actor = _capable_agent(db, actor_email, "handles_access", "reset passwords")
    e = _employee(db, employee_email)
    if e["status"] == "terminated":
        raise ToolError(f"{e['full_name']} has left the company; their account stays disabled.")
    tid = None
    if ticket_number:
        t = _ticket(db, ticket_number)
        require_owner(t, "requester_id", e["id"], f"{t['number']} was raised by someone else; link {e['full_name']}'s "
                      "own ticket.")
        _open(t)
        tid = t["id"]
    now = _now(db)
    db.insert("account_events", {"employee_id": e["id"], "event_type": "password_reset", "performed_by": actor["id"],
                                 "ticket_id": tid, "note": "Temporary password issued", "created_at": now})
    if e["account_locked"]:
        db.insert("account_events", {"employee_id": e["id"], "event_type": "account_unlocked",
                                     "performed_by": actor["id"], "ticket_id": tid, "note": "Unlocked with reset",
                                     "created_at": now})
    db.execute("UPDATE employees SET account_locked = 0, password_changed_at = ? WHERE id = ?", (now, e["id"]))
    return {"employee": e["full_name"], "password_reset": True, "was_locked": bool(e["account_locked"]),
            "account_locked": False}
