"""Tools of the customer_support world: Cloudnest's SaaS customer support desk.

Organisations are named by their e-mail domain ("acmehq.com"), contacts and agents by e-mail, teams by code
("T1", "TECH", "BILL"), tickets by number (4123), invoices ("INV-202605-0007"), refunds ("RF-305") and
knowledge-base articles ("KB-204") by theirs. Every write tool takes the e-mail of the person acting (an
agent, or for surveys and feedback the customer contact) and checks what that person may do.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, clean_text, dollars, filters, like_any, require_owner, to_cents, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

UNSOLVED = ("open", "pending", "on_hold")
Status = Literal["open", "pending", "on_hold", "solved", "closed"]
Priority = Literal["low", "normal", "high", "urgent"]
_TRANSITIONS = {
    "open": ("pending", "on_hold", "solved"),
    "pending": ("open", "on_hold", "solved"),
    "on_hold": ("open", "pending", "solved"),
    "solved": ("open", "closed"),
    "closed": (),
}


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


_AGENT_SQL = ("SELECT a.*, t.code AS team_code, t.name AS team_name, r.refund_limit_cents FROM agents a JOIN teams t "
              "ON t.id = a.team_id JOIN role_limits r ON r.role = a.role WHERE lower(a.email) = lower(?)")


def _agent_or_none(db: Db, email: str) -> dict[str, Any] | None:
    return db.one(_AGENT_SQL, (email.strip(),))


def _agent(db: Db, email: str, what: str = "agent") -> dict[str, Any]:
    a = db.one(_AGENT_SQL, (email.strip(),),
               missing=f"No support agent with e-mail {email!r}; list_teams shows the agents.")
    if not a["is_active"]:
        raise ToolError(f"{a['full_name']} has left the support team; act as an active agent.")
    return a


def _contact(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT c.*, o.name AS org_name, o.domain, o.plan_id, o.status AS org_status FROM contacts c JOIN "
                  "organizations o ON o.id = c.org_id WHERE lower(c.email) = lower(?)", (email.strip(),),
                  missing=f"No customer contact with e-mail {email!r}; use find_contacts.")


def _org(db: Db, domain: str) -> dict[str, Any]:
    return db.one("SELECT o.*, p.code AS plan_code, p.name AS plan_name, p.max_contacts, p.chat_support, "
                  "p.phone_support FROM organizations o JOIN plans p ON p.id = o.plan_id "
                  "WHERE lower(o.domain) = lower(?)", (domain.strip(),),
                  missing=f"No organisation with domain {domain!r}; find_organizations looks them up by name.")


def _ticket(db: Db, number: int) -> dict[str, Any]:
    return db.one("SELECT t.*, o.plan_id, o.name AS org_name, o.domain, tm.code AS team_code, tm.name AS team_name "
                  "FROM tickets t JOIN organizations o ON o.id = t.org_id JOIN teams tm ON tm.id = t.team_id "
                  "WHERE t.number = ?", (number,),
                  missing=f"No ticket #{number}; search_tickets finds tickets by subject, organisation or requester.")


def _article(db: Db, number: str) -> dict[str, Any]:
    return db.one("SELECT * FROM kb_articles WHERE upper(number) = upper(?)", (number.strip(),),
                  missing=f"No article {number!r}.")


def _is_lead(a: dict[str, Any]) -> bool:
    return a["role"] in ("lead", "manager")


def _team_agent(db: Db, email: str, t: dict[str, Any]) -> dict[str, Any]:
    a = _agent(db, email, "acting agent")
    if a["team_id"] != t["team_id"] and a["id"] != t["assignee_id"]:
        raise ToolError(f"{a['full_name']} is in {a['team_name']}; ticket #{t['number']} belongs to {t['team_name']}. "
                        "Only that team's agents work it.")
    return a


def _owner_or_lead(db: Db, email: str, t: dict[str, Any], what: str) -> dict[str, Any]:
    a = _team_agent(db, email, t)
    if t["assignee_id"] != a["id"] and not _is_lead(a):
        who = db.value("SELECT full_name FROM agents WHERE id = ?", (t["assignee_id"],)) or "nobody"
        raise ToolError(f"Only the assignee ({who}) or a lead of {t['team_name']} can {what} ticket #{t['number']}.")
    return a


def _not_closed(t: dict[str, Any]) -> None:
    if t["status"] == "closed":
        raise ToolError(f"Ticket #{t['number']} is closed and cannot change; ask the customer to open a new ticket.")


def _comment(db: Db, t: dict[str, Any], body: str, public: bool, agent_id: int | None = None,
             contact_id: int | None = None) -> int:
    now = _now(db)
    cid = db.insert("ticket_comments", {"ticket_id": t["id"], "agent_id": agent_id, "contact_id": contact_id,
                                        "public": 1 if public else 0, "body": body, "created_at": now})
    if agent_id is not None and public and t["first_response_at"] is None:
        db.execute("UPDATE tickets SET first_response_at = ? WHERE id = ?", (now, t["id"]))
        t["first_response_at"] = now
    db.execute("UPDATE tickets SET updated_at = ? WHERE id = ?", (now, t["id"]))
    return cid


def _set_status(db: Db, t: dict[str, Any], status: str) -> None:
    if status not in _TRANSITIONS[t["status"]]:
        allowed = ", ".join(_TRANSITIONS[t["status"]]) or "nothing (closed is final)"
        raise ToolError(f"Ticket #{t['number']} cannot go from {t['status']} to {status}; from {t['status']} it can go "
                        f"to: {allowed}.")
    now = _now(db)
    if status == "solved":
        if t["assignee_id"] is None:
            raise ToolError(f"Ticket #{t['number']} has no assignee; assign it before solving it.")
        replied = db.value("SELECT 1 FROM ticket_comments WHERE ticket_id = ? AND agent_id IS NOT NULL AND public = 1",
                           (t["id"],))
        if not replied:
            raise ToolError(f"Ticket #{t['number']} has no public reply from an agent; tell the customer what was done "
                            "before solving it.")
    solved_at = now if status == "solved" else (t["solved_at"] if status == "closed" else None)
    db.execute("UPDATE tickets SET status = ?, solved_at = ?, closed_at = ?, updated_at = ? WHERE id = ?",
               (status, solved_at, now if status == "closed" else None, now, t["id"]))
    t["status"] = status


def _due(db: Db, t: dict[str, Any], priority: str) -> tuple[str, str]:
    pol = db.one("SELECT * FROM sla_policies WHERE plan_id = ? AND priority = ?", (t["plan_id"], priority))
    created = datetime.fromisoformat(t["created_at"])
    return ((created + timedelta(minutes=pol["first_response_minutes"])).isoformat(),
            (created + timedelta(hours=pol["resolution_hours"])).isoformat())


def _tag(db: Db, name: str) -> dict[str, Any]:
    return db.one("SELECT * FROM tags WHERE name = lower(?)", (name.strip(),),
                  missing=f"No tag {name!r}; list_tags shows the tags in use (new tags are not created here).")


def _refund_number(refund_id: int) -> str:
    """A refund's number from its row id: "RF-305" (the world builder numbers its refunds the same way)."""
    return f"RF-{300 + refund_id}"


def _invoice_room(db: Db, invoice_id: int) -> int:
    return db.value("SELECT i.amount_cents - COALESCE((SELECT SUM(r.amount_cents) FROM refunds r WHERE r.invoice_id = "
                    "i.id AND r.status <> 'rejected'), 0) FROM invoices i WHERE i.id = ?", (invoice_id,))


# ----------------------------------------------------------------------------------------------
# read tools: customers and plans
# ----------------------------------------------------------------------------------------------

@tool
def find_organizations(db: Db, query: str | None = None, plan_code: str | None = None, limit: int = 20) -> dict:
    """Find customer organisations by part of their name or domain.

    Args:
        query: words in the name or domain, e.g. "Acme".
        plan_code: only organisations on this plan: STARTER, TEAM, BUSINESS or ENTERPRISE.
        limit: maximum number of organisations, 1 to 50.
    """
    _limit(limit)
    who, words = like_any(query, "o.name", "o.domain", optional=True)
    rows = db.query("SELECT o.name, o.domain, p.code AS plan, o.status FROM organizations o JOIN plans p ON p.id = "
                    f"o.plan_id WHERE {who} AND (? IS NULL OR upper(p.code) = upper(?)) ORDER BY o.name, o.id LIMIT ?",
                    (*words, plan_code, plan_code, limit))
    return {"count": len(rows), "organizations": rows}


@tool
def get_organization(db: Db, domain: str) -> dict:
    """Show an organisation: plan and support entitlement (channels, contact limit and seats left), SLA targets,
    contacts, unsolved tickets and invoices.

    Args:
        domain: the organisation's e-mail domain, e.g. "acmehq.com".
    """
    o = _org(db, domain)
    contacts = db.query("SELECT full_name AS name, email, role, is_active AS active FROM contacts WHERE org_id = ? "
                        "ORDER BY is_active DESC, full_name", (o["id"],))
    for c in contacts:
        c["active"] = bool(c["active"])
    active = sum(1 for c in contacts if c["active"])
    sla = db.query("SELECT priority, first_response_minutes, resolution_hours FROM sla_policies WHERE plan_id = ? "
                   "ORDER BY first_response_minutes", (o["plan_id"],))
    unsolved = db.query("SELECT number, subject, status, priority FROM tickets WHERE org_id = ? AND status IN "
                        "('open', 'pending', 'on_hold') ORDER BY number", (o["id"],))
    channels = ["email"] + (["chat"] if o["chat_support"] else []) + (["phone"] if o["phone_support"] else [])
    return {"name": o["name"], "domain": o["domain"], "status": o["status"], "plan": o["plan_name"],
            "plan_code": o["plan_code"], "support_channels": channels, "max_contacts": o["max_contacts"],
            "active_contacts": active, "contact_seats_left": o["max_contacts"] - active, "sla": sla,
            "contacts": contacts, "unsolved_tickets": unsolved}


@tool
def find_contacts(db: Db, query: str | None = None, org_domain: str | None = None, include_inactive: bool = False,
                  limit: int = 20) -> dict:
    """Find customer contacts by part of their name or e-mail.

    Args:
        query: words in the name or e-mail.
        org_domain: only contacts of this organisation.
        include_inactive: also list deactivated contacts.
        limit: maximum number of contacts, 1 to 50.
    """
    _limit(limit)
    who, words = like_any(query, "c.full_name", "c.email", optional=True)
    rows = db.query("SELECT c.full_name AS name, c.email, c.role, o.name AS organization, o.domain, c.is_active AS "
                    f"active FROM contacts c JOIN organizations o ON o.id = c.org_id WHERE {who} "
                    "AND (? IS NULL OR lower(o.domain) = lower(?)) AND (? = 1 OR c.is_active = 1) "
                    "ORDER BY c.full_name, c.id LIMIT ?",
                    (*words, org_domain, org_domain, 1 if include_inactive else 0, limit))
    for r in rows:
        r["active"] = bool(r["active"])
    return {"count": len(rows), "contacts": rows}


@tool
def list_plans(db: Db) -> list[dict]:
    """List the subscription plans with price, contact limit, support channels and SLA targets per priority."""
    out = []
    for p in db.query("SELECT * FROM plans ORDER BY monthly_price_cents"):
        sla = db.query("SELECT priority, first_response_minutes, resolution_hours FROM sla_policies WHERE plan_id = ? "
                       "ORDER BY first_response_minutes", (p["id"],))
        out.append({"code": p["code"], "name": p["name"], "monthly_price": dollars(p["monthly_price_cents"]),
                    "max_contacts": p["max_contacts"], "chat_support": bool(p["chat_support"]),
                    "phone_support": bool(p["phone_support"]), "sla": sla})
    return out


@tool
def list_teams(db: Db) -> list[dict]:
    """List the support teams with their agents (name, e-mail, role, active, the refund or credit they may issue
    alone in dollars, unsolved tickets assigned)."""
    out = []
    for t in db.query("SELECT * FROM teams ORDER BY id"):
        agents = db.query("SELECT a.full_name AS name, a.email, a.role, a.is_active AS active, r.refund_limit_cents, "
                          "(SELECT COUNT(*) FROM tickets k WHERE k.assignee_id = a.id AND k.status IN ('open', "
                          "'pending', 'on_hold')) AS unsolved_assigned FROM agents a JOIN role_limits r ON r.role = "
                          "a.role WHERE a.team_id = ? ORDER BY a.id", (t["id"],))
        for a in agents:
            a["active"] = bool(a["active"])
            a["refund_limit"] = dollars(a.pop("refund_limit_cents"))
        out.append({"code": t["code"], "name": t["name"], "agents": agents})
    return out


# ----------------------------------------------------------------------------------------------
# read tools: tickets
# ----------------------------------------------------------------------------------------------

@tool
def search_tickets(db: Db, text: str | None = None, status: Status | Literal["unsolved"] | None = None,
                   org_domain: str | None = None, requester_email: str | None = None,
                   assignee_email: str | None = None, team_code: str | None = None, priority: Priority | None = None,
                   tag: str | None = None, limit: int = 20) -> dict:
    """Search tickets, newest first.

    Args:
        text: words in the subject or description.
        status: one status, or "unsolved" for open, pending and on_hold.
        org_domain: only this organisation's tickets.
        requester_email: only tickets from this contact.
        assignee_email: only tickets assigned to this agent.
        team_code: only this team's tickets: T1, TECH or BILL.
        priority: only this priority.
        tag: only tickets with this tag.
        limit: maximum number of tickets, 1 to 50.
    """
    _limit(limit)
    who, words = like_any(text, "t.subject", "t.description", optional=True)
    rows = db.query(
        "SELECT t.number, t.subject, t.status, t.priority, t.channel, o.domain AS organization, c.full_name AS "
        "requester, a.full_name AS assignee, tm.code AS team, t.created_at FROM tickets t JOIN organizations o ON "
        "o.id = t.org_id JOIN contacts c ON c.id = t.requester_id JOIN teams tm ON tm.id = t.team_id LEFT JOIN agents "
        f"a ON a.id = t.assignee_id WHERE {who} "
        "AND (? IS NULL OR t.status = ? OR (? = 'unsolved' AND t.status IN ('open', 'pending', 'on_hold'))) "
        "AND (? IS NULL OR "
        "lower(o.domain) = lower(?)) AND (? IS NULL OR lower(c.email) = lower(?)) AND (? IS NULL OR lower(a.email) = "
        "lower(?)) AND (? IS NULL OR upper(tm.code) = upper(?)) AND (? IS NULL OR t.priority = ?) AND (? IS NULL OR "
        "EXISTS (SELECT 1 FROM ticket_tags x JOIN tags g ON g.id = x.tag_id WHERE x.ticket_id = t.id AND g.name = "
        "lower(?))) ORDER BY t.created_at DESC, t.id DESC LIMIT ?",
        (*words, status, status, status, org_domain, org_domain, requester_email, requester_email,
         assignee_email, assignee_email, team_code, team_code, priority, priority, tag, tag, limit))
    return {"count": len(rows), "tickets": rows}


@tool
def get_ticket(db: Db, number: int) -> dict:
    """Show a ticket in full: organisation and plan, requester, channel, status, priority, team, assignee, tags,
    SLA deadlines and whether they are breached, the conversation (public replies and internal notes), the
    satisfaction survey and any merge.

    Args:
        number: the ticket number, e.g. 4123.
    """
    t = _ticket(db, number)
    now = _now(db)
    comments = db.query("SELECT k.created_at, CASE WHEN k.public = 1 THEN 'public' ELSE 'internal' END AS visibility, "
                        "COALESCE(a.full_name, c.full_name) AS author, CASE WHEN k.agent_id IS NULL THEN 'customer' "
                        "ELSE 'agent' END AS author_type, k.body FROM ticket_comments k LEFT JOIN agents a ON a.id = "
                        "k.agent_id LEFT JOIN contacts c ON c.id = k.contact_id WHERE k.ticket_id = ? ORDER BY "
                        "k.created_at, k.id", (t["id"],))
    tags = [r["name"] for r in db.query("SELECT g.name FROM ticket_tags x JOIN tags g ON g.id = x.tag_id WHERE "
                                        "x.ticket_id = ? ORDER BY g.name", (t["id"],))]
    survey = db.one("SELECT rating, comment, created_at FROM satisfaction_surveys WHERE ticket_id = ?", (t["id"],))
    req = db.one("SELECT full_name AS name, email FROM contacts WHERE id = ?", (t["requester_id"],))
    asg = db.one("SELECT full_name AS name, email FROM agents WHERE id = ?", (t["assignee_id"],)) \
        if t["assignee_id"] else None
    merged = db.value("SELECT number FROM tickets WHERE id = ?", (t["merged_into_id"],)) if t["merged_into_id"] else None
    unsolved = t["status"] in UNSOLVED
    return {"number": t["number"], "subject": t["subject"], "organization": t["org_name"], "domain": t["domain"],
            "plan": db.value("SELECT code FROM plans WHERE id = ?", (t["plan_id"],)), "requester": req,
            "channel": t["channel"], "status": t["status"], "priority": t["priority"], "team": t["team_code"],
            "assignee": asg, "tags": tags, "created_at": t["created_at"], "updated_at": t["updated_at"],
            "sla": {"first_response_due_at": t["first_response_due_at"], "first_response_at": t["first_response_at"],
                    "first_response_breached": (t["first_response_at"] or now) > t["first_response_due_at"],
                    "resolution_due_at": t["resolution_due_at"],
                    "resolution_breached": (t["solved_at"] or now) > t["resolution_due_at"] if not unsolved else
                    now > t["resolution_due_at"]},
            "solved_at": t["solved_at"], "closed_at": t["closed_at"], "merged_into": merged,
            "satisfaction": survey, "conversation": comments}


@tool
def list_sla_breaches(db: Db, team_code: str | None = None,
                      kind: Literal["first_response", "resolution", "any"] = "any", priority: Priority | None = None,
                      limit: int = 20) -> dict:
    """List unsolved tickets (open, pending, on hold) in breach of an SLA target as of now: no first public reply
    by the first-response deadline (or a late one), or still unsolved after the resolution deadline. Returns the
    total count and the tickets, earliest deadline first.

    Args:
        team_code: only this team's tickets.
        kind: "first_response", "resolution" or "any" (default).
        priority: only tickets of this priority.
        limit: maximum number of tickets listed, 1 to 50 (the count covers all).
    """
    _limit(limit)
    now = _now(db)
    where = ("t.status IN ('open', 'pending', 'on_hold') AND (? IS NULL OR upper(tm.code) = upper(?)) AND "
             "(? IS NULL OR t.priority = ?) AND ((? IN "
             "('first_response', 'any') AND COALESCE(t.first_response_at, ?) > t.first_response_due_at) OR (? IN "
             "('resolution', 'any') AND ? > t.resolution_due_at))")
    params = (team_code, team_code, priority, priority, kind, now, kind, now)
    total = db.value(f"SELECT COUNT(*) FROM tickets t JOIN teams tm ON tm.id = t.team_id WHERE {where}", params)
    rows = db.query("SELECT t.number, t.subject, t.status, t.priority, tm.code AS team, t.first_response_due_at, "
                    "t.first_response_at, t.resolution_due_at FROM tickets t JOIN teams tm ON tm.id = t.team_id "
                    f"WHERE {where} ORDER BY t.first_response_due_at, t.id LIMIT ?", (*params, limit))
    return {"count": total, "tickets": rows}


@tool
def list_macros(db: Db, team_code: str | None = None) -> list[dict]:
    """List the active macros (canned replies) with what each sets: status, priority and tag, and which team may
    use it (null: every team).

    Args:
        team_code: only macros this team may use.
    """
    rows = db.query("SELECT m.name, m.reply, m.set_status, m.set_priority, g.name AS add_tag, t.code AS team FROM "
                    "macros m LEFT JOIN tags g ON g.id = m.add_tag_id LEFT JOIN teams t ON t.id = m.team_id WHERE "
                    "m.is_active = 1 AND (? IS NULL OR m.team_id IS NULL OR upper(t.code) = upper(?)) ORDER BY m.name",
                    (team_code, team_code))
    return rows


@tool
def list_tags(db: Db) -> list[dict]:
    """List the ticket tags with how many unsolved tickets carry each."""
    return db.query("SELECT g.name, (SELECT COUNT(*) FROM ticket_tags x JOIN tickets t ON t.id = x.ticket_id WHERE "
                    "x.tag_id = g.id AND t.status IN ('open', 'pending', 'on_hold')) AS unsolved_tickets FROM tags g "
                    "ORDER BY g.name")


# ----------------------------------------------------------------------------------------------
# read tools: billing, knowledge base, surveys
# ----------------------------------------------------------------------------------------------

@tool
def list_invoices(db: Db, org_domain: str) -> dict:
    """List an organisation's invoices with amount, status, refunds and credits already given, and how much can
    still be refunded or credited (amount minus refunds and credits that were not rejected), in dollars.

    Args:
        org_domain: the organisation's domain.
    """
    o = _org(db, org_domain)
    rows = db.query("SELECT id, number, period, amount_cents, status, issued_on FROM invoices WHERE org_id = ? "
                    "ORDER BY period", (o["id"],))
    out = []
    for r in rows:
        room = _invoice_room(db, r["id"])
        out.append({"number": r["number"], "period": r["period"], "amount": dollars(r["amount_cents"]),
                    "status": r["status"], "issued_on": r["issued_on"],
                    "refunded_or_credited": dollars(r["amount_cents"] - room), "refundable": dollars(room)})
    return {"organization": o["name"], "invoices": out}


@tool
def list_refunds(db: Db, status: Literal["pending_approval", "issued", "rejected"] | None = None,
                 org_domain: str | None = None, limit: int = 20) -> dict:
    """List refunds and credits, newest first, with the invoice, amount in dollars, who asked and who approved.

    Args:
        status: only pending_approval, issued or rejected ones.
        org_domain: only this organisation's.
        limit: maximum number, 1 to 50.
    """
    _limit(limit)
    rows = db.query(
        "SELECT r.number, r.kind, r.amount_cents, r.reason, r.status, i.number AS invoice, o.domain AS organization, "
        "q.full_name AS requested_by, p.full_name AS approved_by, t.number AS ticket, r.created_at FROM refunds r "
        "JOIN invoices i ON i.id = r.invoice_id JOIN organizations o ON o.id = i.org_id JOIN agents q ON q.id = "
        "r.requested_by LEFT JOIN agents p ON p.id = r.approved_by LEFT JOIN tickets t ON t.id = r.ticket_id WHERE "
        "(? IS NULL OR r.status = ?) AND (? IS NULL OR lower(o.domain) = lower(?)) ORDER BY r.created_at DESC, r.id "
        "DESC LIMIT ?", (status, status, org_domain, org_domain, limit))
    for r in rows:
        r["amount"] = dollars(r.pop("amount_cents"))
    return {"count": len(rows), "refunds": rows}


@tool
def search_kb(db: Db, query: str | None = None, section: str | None = None,
              status: Literal["draft", "published", "archived"] | None = None, limit: int = 20) -> dict:
    """Search knowledge-base articles by words in the title, with their helpful / not helpful votes.

    Args:
        query: words in the title.
        section: only this section, e.g. "Billing".
        status: only draft, published or archived articles.
        limit: maximum number of articles, 1 to 50.
    """
    _limit(limit)
    titled, words = like_any(query, "k.title", optional=True)
    where, params = filters(("lower(k.section) = lower(?)", section), ("k.status = ?", status))
    rows = db.query("SELECT k.number, k.title, k.section, k.status, (SELECT COUNT(*) FROM kb_feedback f WHERE "
                    "f.article_id = k.id AND f.helpful = 1) AS helpful, (SELECT COUNT(*) FROM kb_feedback f WHERE "
                    "f.article_id = k.id AND f.helpful = 0) AS not_helpful FROM kb_articles k "
                    f"WHERE {titled} AND {where} ORDER BY k.number LIMIT ?", (*words, *params, limit))
    return {"count": len(rows), "articles": rows}


@tool
def get_kb_article(db: Db, number: str) -> dict:
    """Show one knowledge-base article with its author, votes and the comments readers left.

    Args:
        number: the article number, e.g. "KB-204".
    """
    k = db.one("SELECT k.*, a.full_name AS author FROM kb_articles k JOIN agents a ON a.id = k.author_id WHERE "
               "upper(k.number) = upper(?)", (number.strip(),),
               missing=f"No article {number!r}; search_kb finds articles.")
    fb = db.query("SELECT c.full_name AS contact, f.helpful, f.comment, f.created_at FROM kb_feedback f JOIN contacts c "
                  "ON c.id = f.contact_id WHERE f.article_id = ? ORDER BY f.created_at", (k["id"],))
    return {"number": k["number"], "title": k["title"], "section": k["section"], "status": k["status"],
            "author": k["author"], "updated_at": k["updated_at"], "body": k["body"],
            "helpful": sum(f["helpful"] for f in fb), "not_helpful": sum(1 - f["helpful"] for f in fb), "feedback": fb}


@tool
def list_surveys(db: Db, org_domain: str | None = None, rating: Literal["good", "bad"] | None = None,
                 limit: int = 20) -> dict:
    """List satisfaction survey answers, newest first.

    Args:
        org_domain: only this organisation's.
        rating: only "good" or "bad" ratings.
        limit: maximum number, 1 to 50.
    """
    _limit(limit)
    rows = db.query("SELECT t.number AS ticket, c.full_name AS contact, o.domain AS organization, s.rating, s.comment, "
                    "a.full_name AS assignee, s.created_at FROM satisfaction_surveys s JOIN tickets t ON t.id = "
                    "s.ticket_id JOIN contacts c ON c.id = s.contact_id JOIN organizations o ON o.id = t.org_id LEFT "
                    "JOIN agents a ON a.id = t.assignee_id WHERE (? IS NULL OR lower(o.domain) = lower(?)) AND (? IS "
                    "NULL OR s.rating = ?) ORDER BY s.created_at DESC, s.id DESC LIMIT ?",
                    (org_domain, org_domain, rating, rating, limit))
    return {"count": len(rows), "surveys": rows}


# ----------------------------------------------------------------------------------------------
# write tools: tickets
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_ticket(db: Db, requester_email: str, subject: str, channel: Literal["email", "chat", "phone"],
                  team_code: str, actor_email: str, priority: Priority = "normal", description: str = "") -> dict:
    """Log a ticket on behalf of an active contact of an active organisation. The channel must be one the
    organisation's plan includes (chat: Team and up; phone: Business and up). SLA deadlines come from the plan's
    policy for the priority. The ticket starts open and unassigned.

    Args:
        requester_email: the contact's e-mail.
        subject: a short summary, 3 to 200 characters.
        channel: "email", "chat" or "phone".
        team_code: the team that should handle it: T1 (frontline), TECH (technical) or BILL (billing).
        actor_email: e-mail of the agent logging it.
        priority: low, normal (default), high or urgent.
        description: the customer's message.
    """
    actor = _agent(db, actor_email, "acting agent")
    c = _contact(db, requester_email)
    if not c["is_active"]:
        raise ToolError(f"{c['full_name']} is deactivated; only active contacts can raise tickets.")
    if c["org_status"] != "active":
        raise ToolError(f"{c['org_name']} is suspended; its support is paused until billing is settled.")
    plan = db.one("SELECT * FROM plans WHERE id = ?", (c["plan_id"],))
    if (channel == "chat" and not plan["chat_support"]) or (channel == "phone" and not plan["phone_support"]):
        raise ToolError(f"{c['org_name']} is on the {plan['name']} plan, which does not include {channel} support; "
                        "log it as an email ticket.")
    team = db.one("SELECT * FROM teams WHERE upper(code) = upper(?)", (team_code.strip(),),
                  missing=f"No team {team_code!r}; the teams are T1, TECH and BILL.")
    subj = clean_text(subject, "subject", 3, 200)
    now = db.now().replace(microsecond=0)
    pol = db.one("SELECT * FROM sla_policies WHERE plan_id = ? AND priority = ?", (c["plan_id"], priority))
    number = db.value("SELECT MAX(number) FROM tickets") + 1
    tid = db.insert("tickets", {
        "number": number, "org_id": c["org_id"], "requester_id": c["id"], "channel": channel, "subject": subj,
        "description": description.strip(), "status": "open", "priority": priority, "team_id": team["id"],
        "assignee_id": None, "created_at": now.isoformat(), "updated_at": now.isoformat(), "first_response_at": None,
        "first_response_due_at": (now + timedelta(minutes=pol["first_response_minutes"])).isoformat(),
        "resolution_due_at": (now + timedelta(hours=pol["resolution_hours"])).isoformat(), "solved_at": None,
        "closed_at": None, "merged_into_id": None})
    if description.strip():
        db.insert("ticket_comments", {"ticket_id": tid, "agent_id": None, "contact_id": c["id"], "public": 1,
                                      "body": description.strip()[:5000], "created_at": now.isoformat()})
    return {"number": number, "status": "open", "team": team["code"], "priority": priority,
            "first_response_due_at": (now + timedelta(minutes=pol["first_response_minutes"])).isoformat(),
            "logged_by": actor["full_name"]}


@tool(write=True)
def assign_ticket(db: Db, number: int, assignee_email: str, actor_email: str) -> dict:
    """Assign a ticket that is not closed to an active agent of its team. Agents may take tickets themselves;
    assigning to someone else takes a lead or manager of the team.

    Args:
        number: the ticket number.
        assignee_email: e-mail of the agent who will own it.
        actor_email: e-mail of the agent making the assignment.
    """
    t = _ticket(db, number)
    _not_closed(t)
    actor = _team_agent(db, actor_email, t)
    who = _agent(db, assignee_email, "assignee")
    if who["team_id"] != t["team_id"]:
        raise ToolError(f"{who['full_name']} is in {who['team_name']}, not {t['team_name']}; assign someone from "
                        f"{t['team_name']}.")
    if who["id"] != actor["id"] and not _is_lead(actor):
        raise ToolError(f"{actor['full_name']} is not a lead: agents may only assign tickets to themselves.")
    if t["assignee_id"] == who["id"]:
        raise ToolError(f"Ticket #{t['number']} is already assigned to {who['full_name']}.")
    db.execute("UPDATE tickets SET assignee_id = ?, updated_at = ? WHERE id = ?", (who["id"], _now(db), t["id"]))
    return {"number": t["number"], "assignee": who["full_name"], "status": t["status"]}


@tool(write=True)
def reply_to_ticket(db: Db, number: int, author_email: str, body: str, public: bool = True) -> dict:
    """Add to a ticket's conversation. Agents of the ticket's team (or its assignee) may post a public reply to the
    customer or an internal note; the first public agent reply is the ticket's first response for the SLA. The
    requester may reply too (always public): a reply on a pending or solved ticket sets it back to open.
    Closed tickets take no replies.

    Args:
        number: the ticket number.
        author_email: e-mail of the agent or of the requesting contact.
        body: the message, 1 to 5000 characters.
        public: true for a public reply (default), false for an internal note (agents only).
    """
    t = _ticket(db, number)
    _not_closed(t)
    text = clean_text(body, "body", 1, 5000)
    if _agent_or_none(db, author_email) is not None:
        a = _team_agent(db, author_email, t)
        cid = _comment(db, t, text, public, agent_id=a["id"])
        return {"comment_id": cid, "number": t["number"], "public": public, "author": a["full_name"],
                "first_response_at": t["first_response_at"], "status": t["status"]}
    c = _contact(db, author_email)
    require_owner(t, "requester_id", c["id"], f"{c['full_name']} did not raise ticket #{t['number']} and cannot reply "
                  "on it.")
    if not public:
        raise ToolError("Customers cannot post internal notes.")
    cid = _comment(db, t, text, True, contact_id=c["id"])
    if t["status"] in ("pending", "solved"):
        db.execute("UPDATE tickets SET status = 'open', solved_at = NULL WHERE id = ?", (t["id"],))
        t["status"] = "open"
    return {"comment_id": cid, "number": t["number"], "public": True, "author": c["full_name"], "status": t["status"]}


@tool(write=True)
def set_ticket_status(db: Db, number: int, status: Literal["open", "pending", "on_hold", "solved", "closed"],
                      actor_email: str) -> dict:
    """Move a ticket through its workflow: open, pending (waiting for the customer) and on_hold (waiting on a
    third party) move freely between each other and to solved; solved can be reopened (open) or closed; closed is
    final. Solving needs an assignee and a public agent reply. Only the assignee or a team lead may do this.

    Args:
        number: the ticket number.
        status: the new status.
        actor_email: e-mail of the agent.
    """
    t = _ticket(db, number)
    actor = _owner_or_lead(db, actor_email, t, "change the status of")
    old = t["status"]
    _set_status(db, t, status)
    return {"number": t["number"], "status": status, "previous_status": old, "by": actor["full_name"]}


@tool(write=True)
def set_ticket_priority(db: Db, number: int, priority: Priority, actor_email: str) -> dict:
    """Change an unsolved ticket's priority; its SLA deadlines are recalculated from its creation time with the
    organisation's plan policy for the new priority. Agents of the ticket's team may do this.

    Args:
        number: the ticket number.
        priority: low, normal, high or urgent.
        actor_email: e-mail of the agent.
    """
    t = _ticket(db, number)
    _team_agent(db, actor_email, t)
    if t["status"] not in UNSOLVED:
        raise ToolError(f"Ticket #{t['number']} is {t['status']}; only unsolved tickets change priority.")
    if t["priority"] == priority:
        raise ToolError(f"Ticket #{t['number']} is already {priority}.")
    fr, res = _due(db, t, priority)
    db.execute("UPDATE tickets SET priority = ?, first_response_due_at = ?, resolution_due_at = ?, updated_at = ? "
               "WHERE id = ?", (priority, fr, res, _now(db), t["id"]))
    return {"number": t["number"], "priority": priority, "first_response_due_at": fr, "resolution_due_at": res}


@tool(write=True)
def add_ticket_tags(db: Db, number: int, tags: list[str], actor_email: str) -> dict:
    """Add existing tags to a ticket that is not closed (tags it already has are refused).

    Args:
        number: the ticket number.
        tags: tag names, e.g. ["vip", "billing"] (list_tags shows them).
        actor_email: e-mail of an agent of the ticket's team.
    """
    t = _ticket(db, number)
    _not_closed(t)
    _team_agent(db, actor_email, t)
    if not tags:
        raise ToolError("Give at least one tag.")
    added = []
    for name in tags:
        g = _tag(db, name)
        db.none("SELECT 1 FROM ticket_tags WHERE ticket_id = ? AND tag_id = ?", (t["id"], g["id"]),
                found=f"Ticket #{t['number']} already has the tag {g['name']!r}.")
        db.insert("ticket_tags", {"ticket_id": t["id"], "tag_id": g["id"]})
        added.append(g["name"])
    db.execute("UPDATE tickets SET updated_at = ? WHERE id = ?", (_now(db), t["id"]))
    return {"number": t["number"], "added": added}


@tool(write=True)
def remove_ticket_tag(db: Db, number: int, tag: str, actor_email: str) -> dict:
    """Remove a tag from a ticket that is not closed.

    Args:
        number: the ticket number.
        tag: the tag name.
        actor_email: e-mail of an agent of the ticket's team.
    """
    t = _ticket(db, number)
    _not_closed(t)
    _team_agent(db, actor_email, t)
    g = _tag(db, tag)
    if db.execute("DELETE FROM ticket_tags WHERE ticket_id = ? AND tag_id = ?", (t["id"], g["id"])) == 0:
        raise ToolError(f"Ticket #{t['number']} has no tag {g['name']!r}.")
    db.execute("UPDATE tickets SET updated_at = ? WHERE id = ?", (_now(db), t["id"]))
    return {"number": t["number"], "removed": g["name"]}


@tool(write=True)
def apply_macro(db: Db, number: int, macro_name: str, actor_email: str) -> dict:
    """Apply a macro to a ticket that is not closed: its reply is posted publicly under the agent's name, then its
    priority (recalculating SLA deadlines), tag and status are set. The macro must be active and usable by the
    ticket's team; status changes follow the workflow rules (a macro that solves needs an assignee). Only the
    assignee or a team lead may apply macros.

    Args:
        number: the ticket number.
        macro_name: the macro's exact name (list_macros shows them).
        actor_email: e-mail of the agent.
    """
    t = _ticket(db, number)
    _not_closed(t)
    actor = _owner_or_lead(db, actor_email, t, "apply macros to")
    m = db.one("SELECT * FROM macros WHERE lower(name) = lower(?)", (macro_name.strip(),))
    if m is None or not m["is_active"]:
        raise ToolError(f"No active macro named {macro_name!r}; list_macros shows them.")
    if m["team_id"] is not None and m["team_id"] != t["team_id"]:
        team = db.value("SELECT name FROM teams WHERE id = ?", (m["team_id"],))
        raise ToolError(f"The macro {m['name']!r} belongs to {team}; ticket #{t['number']} is a {t['team_name']} "
                        "ticket.")
    if m["set_status"] and m["set_status"] != t["status"] and m["set_status"] not in _TRANSITIONS[t["status"]]:
        raise ToolError(f"The macro would move ticket #{t['number']} from {t['status']} to {m['set_status']}, which "
                        "the workflow does not allow.")
    _comment(db, t, m["reply"], True, agent_id=actor["id"])
    changes: dict[str, Any] = {}
    if m["set_priority"] and m["set_priority"] != t["priority"]:
        fr, res = _due(db, t, m["set_priority"])
        db.execute("UPDATE tickets SET priority = ?, first_response_due_at = ?, resolution_due_at = ? WHERE id = ?",
                   (m["set_priority"], fr, res, t["id"]))
        changes["priority"] = m["set_priority"]
    if m["add_tag_id"] and not db.value("SELECT 1 FROM ticket_tags WHERE ticket_id = ? AND tag_id = ?",
                                        (t["id"], m["add_tag_id"])):
        db.insert("ticket_tags", {"ticket_id": t["id"], "tag_id": m["add_tag_id"]})
        changes["tag_added"] = db.value("SELECT name FROM tags WHERE id = ?", (m["add_tag_id"],))
    if m["set_status"] and m["set_status"] != t["status"]:
        _set_status(db, t, m["set_status"])
        changes["status"] = m["set_status"]
    return {"number": t["number"], "macro": m["name"], "reply_posted": True, "changes": changes}


@tool(write=True)
def merge_tickets(db: Db, source_number: int, target_number: int, actor_email: str) -> dict:
    """Merge a duplicate ticket into another ticket from the same requester: the source is closed and points at
    the target, and an internal note on each records the merge. Neither may be closed. Only the target's assignee
    or a lead of its team may merge.

    Args:
        source_number: the duplicate ticket that will be closed.
        target_number: the ticket that stays open.
        actor_email: e-mail of the agent.
    """
    s, t = _ticket(db, source_number), _ticket(db, target_number)
    if s["id"] == t["id"]:
        raise ToolError("A ticket cannot be merged into itself.")
    actor = _owner_or_lead(db, actor_email, t, "merge into")
    if s["requester_id"] != t["requester_id"]:
        raise ToolError(f"Tickets #{s['number']} and #{t['number']} come from different requesters; only tickets of "
                        "the same requester can be merged.")
    for x in (s, t):
        _not_closed(x)
    now = _now(db)
    db.execute("UPDATE tickets SET status = 'closed', solved_at = COALESCE(solved_at, ?), closed_at = ?, "
               "merged_into_id = ?, updated_at = ? WHERE id = ?", (now, now, t["id"], now, s["id"]))
    db.insert("ticket_comments", {"ticket_id": s["id"], "agent_id": actor["id"], "contact_id": None, "public": 0,
                                  "body": f"Merged into ticket #{t['number']}.", "created_at": now})
    db.insert("ticket_comments", {"ticket_id": t["id"], "agent_id": actor["id"], "contact_id": None, "public": 0,
                                  "body": f"Ticket #{s['number']} was merged into this ticket.", "created_at": now})
    db.execute("UPDATE tickets SET updated_at = ? WHERE id = ?", (now, t["id"]))
    return {"merged": s["number"], "into": t["number"], "source_status": "closed"}


@tool(write=True)
def submit_satisfaction(db: Db, number: int, contact_email: str, rating: Literal["good", "bad"],
                        comment: str = "") -> dict:
    """Record the requester's satisfaction rating for a solved ticket. Only the requester may rate, only while the
    ticket is solved (not closed), and only once.

    Args:
        number: the ticket number.
        contact_email: e-mail of the requester.
        rating: "good" or "bad".
        comment: an optional comment.
    """
    t = _ticket(db, number)
    c = _contact(db, contact_email)
    require_owner(t, "requester_id", c["id"], f"Only the requester of ticket #{t['number']} can rate it.")
    if t["status"] != "solved":
        raise ToolError(f"Ticket #{t['number']} is {t['status']}; surveys are only taken on solved tickets.")
    db.none("SELECT 1 FROM satisfaction_surveys WHERE ticket_id = ?", (t["id"],),
            found=f"Ticket #{t['number']} has already been rated.")
    db.insert("satisfaction_surveys", {"ticket_id": t["id"], "contact_id": c["id"], "rating": rating,
                                       "comment": comment.strip()[:1000], "created_at": _now(db)})
    return {"number": t["number"], "rating": rating}


# ----------------------------------------------------------------------------------------------
# write tools: customers, billing, knowledge base
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def add_contact(db: Db, org_domain: str, full_name: str, email: str, actor_email: str,
                role: Literal["admin", "member"] = "member") -> dict:
    """Add a contact to an active organisation. The e-mail must be on the organisation's domain and new, and the
    plan's limit on active contacts applies (deactivate someone or upgrade the plan first).

    Args:
        org_domain: the organisation's domain.
        full_name: the contact's full name.
        email: their e-mail address on the organisation's domain.
        actor_email: e-mail of the agent.
        role: "member" (default) or "admin".
    """
    _agent(db, actor_email, "acting agent")
    o = _org(db, org_domain)
    if o["status"] != "active":
        raise ToolError(f"{o['name']} is suspended; contacts cannot be added.")
    name = clean_text(full_name, "full_name", 3, 100)
    e = email.strip().lower()
    if not e.endswith("@" + o["domain"].lower()) or e.count("@") != 1 or e.startswith("@"):
        raise ToolError(f"Contacts of {o['name']} must have an e-mail address @{o['domain']}.")
    db.none("SELECT 1 FROM contacts WHERE lower(email) = ?", (e,), found=f"{e} is already a contact.")
    active = db.value("SELECT COUNT(*) FROM contacts WHERE org_id = ? AND is_active = 1", (o["id"],))
    if active >= o["max_contacts"]:
        raise ToolError(f"{o['name']} already has {active} active contacts, the {o['plan_name']} plan's limit; "
                        "deactivate a contact or move them to a bigger plan first.")
    cid = db.insert("contacts", {"org_id": o["id"], "full_name": name, "email": e, "role": role, "is_active": 1,
                                 "created_at": _now(db)})
    return {"contact_id": cid, "email": e, "organization": o["name"], "active_contacts": active + 1,
            "max_contacts": o["max_contacts"]}


@tool(write=True)
def deactivate_contact(db: Db, email: str, actor_email: str) -> dict:
    """Deactivate a customer contact (they can no longer raise tickets; frees a contact seat).

    Args:
        email: the contact's e-mail.
        actor_email: e-mail of the agent.
    """
    _agent(db, actor_email, "acting agent")
    c = _contact(db, email)
    if not c["is_active"]:
        raise ToolError(f"{c['full_name']} is already deactivated.")
    db.execute("UPDATE contacts SET is_active = 0 WHERE id = ?", (c["id"],))
    return {"email": c["email"], "active": False}


@tool(write=True)
def change_plan(db: Db, org_domain: str, plan_code: Literal["STARTER", "TEAM", "BUSINESS", "ENTERPRISE"],
                actor_email: str) -> dict:
    """Move an organisation to another plan. Only leads and managers may do this. A downgrade is refused while the
    organisation has more active contacts than the new plan allows.

    Args:
        org_domain: the organisation's domain.
        plan_code: STARTER, TEAM, BUSINESS or ENTERPRISE.
        actor_email: e-mail of the lead or manager.
    """
    a = _agent(db, actor_email, "acting agent")
    if not _is_lead(a):
        raise ToolError(f"{a['full_name']} is an agent; only leads and managers change plans.")
    o = _org(db, org_domain)
    p = db.one("SELECT * FROM plans WHERE code = ?", (plan_code,))
    if p["id"] == o["plan_id"]:
        raise ToolError(f"{o['name']} is already on {p['name']}.")
    active = db.value("SELECT COUNT(*) FROM contacts WHERE org_id = ? AND is_active = 1", (o["id"],))
    if active > p["max_contacts"]:
        raise ToolError(f"{o['name']} has {active} active contacts but {p['name']} allows {p['max_contacts']}; "
                        "deactivate contacts first.")
    db.execute("UPDATE organizations SET plan_id = ? WHERE id = ?", (p["id"], o["id"]))
    return {"organization": o["name"], "plan": p["code"], "previous_plan": o["plan_code"]}


@tool(write=True)
def issue_refund(db: Db, invoice_number: str, amount: float, kind: Literal["refund", "credit"], reason: str,
                 actor_email: str, ticket_number: int | None = None) -> dict:
    """Give money back on an invoice: a refund (paid invoices only) or a credit against future invoices. Refunds
    and credits together never exceed the invoice's amount. Billing-team agents only. Within the agent's role
    limit it is issued at once; above it, it waits for approval by an agent whose limit covers it
    (decide_refund).

    Args:
        invoice_number: the invoice, e.g. "INV-202605-0007".
        amount: the amount in dollars, e.g. 49.5.
        kind: "refund" or "credit".
        reason: why, 3 to 500 characters.
        actor_email: e-mail of the billing agent.
        ticket_number: the ticket it relates to (must be the same organisation's), optional.
    """
    a = _agent(db, actor_email, "acting agent")
    if a["team_code"] != "BILL":
        raise ToolError(f"{a['full_name']} is in {a['team_name']}; refunds and credits are issued by the Billing team.")
    inv = db.one("SELECT * FROM invoices WHERE upper(number) = upper(?)", (invoice_number.strip(),),
                 missing=f"No invoice {invoice_number!r}; list_invoices shows an organisation's invoices.")
    cents = to_cents(amount)
    if kind == "refund" and inv["status"] != "paid":
        raise ToolError(f"{inv['number']} is not paid yet; give a credit instead of a refund.")
    room = _invoice_room(db, inv["id"])
    if cents > room:
        raise ToolError(f"Only ${room / 100:.2f} of {inv['number']} can still be refunded or credited.")
    tid = None
    if ticket_number is not None:
        t = _ticket(db, ticket_number)
        if t["org_id"] != inv["org_id"]:
            raise ToolError(f"Ticket #{t['number']} belongs to another organisation.")
        tid = t["id"]
    why = clean_text(reason, "reason", 3)
    status = "issued" if cents <= a["refund_limit_cents"] else "pending_approval"
    now = _now(db)
    rid = db.insert("refunds", {"number": "pending", "invoice_id": inv["id"], "ticket_id": tid, "kind": kind,
                                "amount_cents": cents, "reason": why, "status": status, "requested_by": a["id"],
                                "approved_by": None, "created_at": now,
                                "decided_at": now if status == "issued" else None})
    number = _refund_number(rid)
    db.execute("UPDATE refunds SET number = ? WHERE id = ?", (number, rid))
    out = {"number": number, "status": status, "kind": kind, "amount": dollars(cents)}
    if status == "pending_approval":
        out["note"] = (f"Above {a['full_name']}'s limit of ${a['refund_limit_cents'] / 100:.2f}; a lead or manager "
                       "must approve it with decide_refund.")
    return out


@tool(write=True)
def decide_refund(db: Db, refund_number: str, decision: Literal["approve", "reject"], actor_email: str) -> dict:
    """Approve or reject a refund or credit waiting for approval. The approver's role limit must cover the amount
    and nobody may approve their own request.

    Args:
        refund_number: the refund's number, e.g. "RF-305".
        decision: "approve" or "reject".
        actor_email: e-mail of the approving agent.
    """
    r = db.one("SELECT * FROM refunds WHERE upper(number) = upper(?)", (refund_number.strip(),),
               missing=f"No refund {refund_number!r}; list_refunds shows them.")
    a = _agent(db, actor_email, "acting agent")
    if r["status"] != "pending_approval":
        raise ToolError(f"{r['number']} is already {r['status']}.")
    if r["requested_by"] == a["id"]:
        raise ToolError("Nobody may decide their own refund request.")
    if a["refund_limit_cents"] < r["amount_cents"]:
        raise ToolError(f"{a['full_name']} ({a['role']}) may approve up to ${a['refund_limit_cents'] / 100:.2f}; "
                        f"{r['number']} is ${r['amount_cents'] / 100:.2f}. Ask someone with a higher limit.")
    status = "issued" if decision == "approve" else "rejected"
    db.execute("UPDATE refunds SET status = ?, approved_by = ?, decided_at = ? WHERE id = ?",
               (status, a["id"] if status == "issued" else None, _now(db), r["id"]))
    return {"number": r["number"], "status": status, "amount": dollars(r["amount_cents"])}


@tool(write=True)
def record_kb_feedback(db: Db, article_number: str, contact_email: str, helpful: bool, comment: str = "") -> dict:
    """Record a contact's vote on a published knowledge-base article: helpful or not, with an optional comment.
    One vote per contact and article.

    Args:
        article_number: the article, e.g. "KB-204".
        contact_email: e-mail of the contact voting.
        helpful: true if the article helped.
        comment: an optional comment.
    """
    k = _article(db, article_number)
    if k["status"] != "published":
        raise ToolError(f"{k['number']} is {k['status']}; only published articles take feedback.")
    c = _contact(db, contact_email)
    db.none("SELECT 1 FROM kb_feedback WHERE article_id = ? AND contact_id = ?", (k["id"], c["id"]),
            found=f"{c['full_name']} has already voted on {k['number']}.")
    db.insert("kb_feedback", {"article_id": k["id"], "contact_id": c["id"], "helpful": 1 if helpful else 0,
                              "comment": comment.strip()[:1000], "created_at": _now(db)})
    return {"article": k["number"], "helpful": helpful}


@tool(write=True)
def publish_kb_article(db: Db, article_number: str, actor_email: str) -> dict:
    """Publish a draft knowledge-base article. Leads and managers only, and not their own article.

    Args:
        article_number: the article, e.g. "KB-205".
        actor_email: e-mail of the reviewing lead or manager.
    """
    k = _article(db, article_number)
    a = _agent(db, actor_email, "acting agent")
    if not _is_lead(a):
        raise ToolError(f"{a['full_name']} is an agent; a lead or manager reviews and publishes articles.")
    if k["author_id"] == a["id"]:
        raise ToolError("Authors cannot publish their own articles; another lead must review it.")
    if k["status"] != "draft":
        raise ToolError(f"{k['number']} is {k['status']}; only drafts can be published.")
    db.execute("UPDATE kb_articles SET status = 'published', updated_at = ? WHERE id = ?", (_now(db), k["id"]))
    return {"article": k["number"], "status": "published"}
