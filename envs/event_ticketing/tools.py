"""Tools of the event_ticketing world: a ticketing platform for concerts, theatre, comedy, sports and talks.

Events are named by id (search_events finds them), sections by name within the venue ("Orchestra"), seats by
row and number ("B4"), orders by order number, tickets by their barcode code, people by e-mail. Customer-side
write tools take ``customer_email`` and only touch that customer's own orders and tickets; organiser-side
tools take ``staff_email`` and only work on the events of that staff member's organiser (managers run events
and promo codes, gate staff scan tickets). Money goes out in dollars and is kept in integer cents.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Literal

from awm.tooling import (
    Db,
    ToolError,
    clean_text,
    dollars,
    filters,
    iso_seconds,
    like_any,
    like_contains,
    require_owner,
    tool,
)
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

HOLD_MINUTES = 15
MIN_FEE_CENTS = 150
LIVE = ("held", "valid")
SCAN_WINDOW_HOURS = 4


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _usd(cents: int | None) -> float:
    return dollars(cents or 0)


def _fee(price: int) -> int:
    return max(MIN_FEE_CENTS, price // 10)


def _customer(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT * FROM customers WHERE lower(email) = lower(?)", (email.strip(),),
                  missing=f"No customer with e-mail {email!r}; find_customers looks people up by name.")


_EVENT_SQL = ("SELECT e.*, v.name AS venue_name, v.city, o.name AS organiser_name FROM events e JOIN venues v "
              "ON v.id = e.venue_id JOIN organisers o ON o.id = e.organiser_id WHERE e.id = ?")


def _event(db: Db, event_id: int) -> dict[str, Any]:
    return db.one(_EVENT_SQL, (event_id,),
                  missing=f"No event with id {event_id}; search_events finds events by title, city or date.")


def _staff(db: Db, email: str, event: dict[str, Any], roles: tuple[str, ...], what: str) -> dict[str, Any]:
    s = db.one("SELECT s.*, o.name AS organiser_name FROM organiser_staff s JOIN organisers o ON o.id = s.organiser_id "
               "WHERE lower(s.email) = lower(?)", (email.strip(),),
               missing=f"No organiser staff member with e-mail {email!r}.")
    if s["organiser_id"] != event["organiser_id"]:
        raise ToolError(f"{s['full_name']} works for {s['organiser_name']}, which does not run this event; only "
                        f"{event['organiser_name']} staff can {what}.")
    if s["role"] not in roles:
        raise ToolError(f"{s['full_name']} is {s['role']} staff; only {' or '.join(roles)} staff can {what}.")
    return s


def _order(db: Db, number: str) -> dict[str, Any]:
    return db.one("SELECT * FROM orders WHERE upper(order_number) = upper(?)", (number.strip(),),
                  missing=f"No order {number!r}; list_orders shows a customer's orders.")


def _own_order(db: Db, number: str, email: str) -> tuple[dict[str, Any], dict[str, Any]]:
    c = _customer(db, email)
    o = _order(db, number)
    require_owner(o, "customer_id", c["id"],
                  f"Order {o['order_number']} was placed by another customer; {c['full_name']} can only manage "
                  "their own orders.")
    return o, c


_TICKET_SQL = ("SELECT t.*, pt.name AS tier_name, vs.name AS section, vs.id AS section_id, vs.kind AS section_kind, "
               "s.row_label, s.seat_number, c.full_name AS holder_name, c.email AS holder_email FROM tickets t "
               "JOIN price_tiers pt ON pt.id = t.price_tier_id JOIN venue_sections vs ON vs.id = pt.section_id "
               "LEFT JOIN seats s ON s.id = t.seat_id JOIN customers c ON c.id = t.holder_id ")


def _ticket(db: Db, code: str) -> dict[str, Any]:
    return db.one(_TICKET_SQL + "WHERE upper(t.code) = upper(?)", (code.strip(),),
                  missing=f"No ticket with code {code!r}; list_tickets shows a customer's tickets and codes.")


def _seat_label(t: dict[str, Any]) -> str | None:
    return f"{t['row_label']}{t['seat_number']}" if t.get("row_label") else None


def _ticket_line(t: dict[str, Any]) -> dict[str, Any]:
    return {"code": t["code"], "section": t["section"], "seat": _seat_label(t), "status": t["status"],
            "holder": t["holder_name"], "price_usd": _usd(t["price_cents"]), "discount_usd": _usd(t["discount_cents"]),
            "fee_usd": _usd(t["fee_cents"]), "scanned_at": t["scanned_at"]}


def _remaining(db: Db, tier_id: int) -> int:
    t = db.one("SELECT pt.*, vs.capacity FROM price_tiers pt JOIN venue_sections vs ON vs.id = pt.section_id "
               "WHERE pt.id = ?", (tier_id,))
    live = db.value("SELECT COUNT(*) FROM tickets WHERE price_tier_id = ? AND status IN ('held', 'valid')", (tier_id,))
    return t["capacity"] - live


def _event_remaining(db: Db, event_id: int) -> int:
    return sum(_remaining(db, r["id"]) for r in db.query("SELECT id FROM price_tiers WHERE event_id = ?", (event_id,)))


def _held_by(db: Db, event_id: int, customer_id: int) -> int:
    return db.value("SELECT COUNT(*) FROM tickets WHERE event_id = ? AND holder_id = ? AND status IN ('held', 'valid')",
                    (event_id, customer_id))


def _reopen_if_freed(db: Db, event_id: int) -> None:
    db.execute("UPDATE events SET status = 'on_sale' WHERE id = ? AND status = 'sold_out'", (event_id,))


def _close_if_full(db: Db, event_id: int) -> None:
    if _event_remaining(db, event_id) <= 0:
        db.execute("UPDATE events SET status = 'sold_out' WHERE id = ? AND status = 'on_sale'", (event_id,))


def _parse_seat(label: str) -> tuple[str, int]:
    m = re.fullmatch(r"\s*([A-Za-z]{1,2})\s*-?\s*(\d{1,3})\s*", label)
    if not m:
        raise ToolError(f"Seat {label!r} is not a seat label; write the row letter and seat number, e.g. 'B4'.")
    return m.group(1).upper(), int(m.group(2))


def _order_totals(db: Db, order_id: int) -> dict[str, Any]:
    r = db.one("SELECT COUNT(*) AS n, COALESCE(SUM(price_cents), 0) AS sub, COALESCE(SUM(discount_cents), 0) AS disc, "
               "COALESCE(SUM(fee_cents), 0) AS fees FROM tickets WHERE order_id = ?", (order_id,))
    refunded = db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM refunds WHERE order_id = ?", (order_id,))
    return {"tickets": r["n"], "subtotal_usd": _usd(r["sub"]), "discount_usd": _usd(r["disc"]),
            "fees_usd": _usd(r["fees"]), "total_usd": _usd(r["sub"] - r["disc"] + r["fees"]),
            "refunded_usd": _usd(refunded)}


def _refund_cutoff(start: datetime, policy: str) -> datetime:
    """When customer refunds close under a refund policy that allows them (until 7 days or 24 hours before)."""
    return start - (timedelta(days=7) if policy == "until_7_days" else timedelta(hours=24))


def _refund_check(db: Db, e: dict[str, Any]) -> str:
    """The refund reason allowed now for a customer request, or an error."""
    if e["status"] == "cancelled":
        raise ToolError("The event was cancelled; every ticket was refunded automatically.")
    if e["status"] == "completed" or e["starts_at"] <= _now(db):
        raise ToolError("The event has already taken place; tickets can no longer be refunded.")
    if e["status"] == "postponed":
        return "event_postponed"
    start = datetime.fromisoformat(e["starts_at"])
    if e["refund_policy"] == "no_refunds":
        raise ToolError("This event's tickets are non-refundable (refunds only if the event is cancelled or "
                        "postponed). The ticket can be transferred to someone else instead.")
    cutoff = _refund_cutoff(start, e["refund_policy"])
    if db.now() > cutoff:
        raise ToolError(f"Refunds for this event closed at {cutoff.isoformat()} ({e['refund_policy'].replace('_', ' ')}). "
                        "The ticket can be transferred to someone else instead.")
    return "customer_request"


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def list_venues(db: Db) -> list[dict]:
    """Every venue: name, city, address and its sections (seated or standing, capacity)."""
    out = []
    for v in db.query("SELECT * FROM venues ORDER BY name"):
        secs = db.query("SELECT name, kind, capacity FROM venue_sections WHERE venue_id = ? ORDER BY id", (v["id"],))
        out.append({"name": v["name"], "city": v["city"], "address": v["address"], "sections": secs})
    return out


@tool
def search_events(db: Db, query: str | None = None, city: str | None = None,
                  category: Literal["concert", "theatre", "comedy", "sports", "talk"] | None = None,
                  status: Literal["on_sale", "sold_out", "postponed", "cancelled", "completed"] | None = None,
                  date_from: str | None = None, date_to: str | None = None, limit: int = 20) -> dict:
    """Find events by words in the title, city, category, status or start date range (YYYY-MM-DD, inclusive).

    Args:
        query: words in the title, e.g. "Quartet".
        city: the venue's city, e.g. "Portland".
        category: concert, theatre, comedy, sports or talk.
        status: on_sale, sold_out, postponed, cancelled or completed.
        date_from: first start date, YYYY-MM-DD.
        date_to: last start date, YYYY-MM-DD.
        limit: maximum number of events, 1 to 50.
    """
    _limit(limit)
    for what, value in (("date_from", date_from), ("date_to", date_to)):
        if value is not None and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise ToolError(f"{what} must be a date like 2026-07-18 (got {value!r}).")
    like = like_contains(query.strip()) if query and query.strip() else None
    where, params = filters(("e.title LIKE ? ESCAPE '\\'", like), ("lower(v.city) = lower(?)", city),
                            ("e.category = ?", category), ("e.status = ?", status),
                            ("substr(e.starts_at, 1, 10) >= ?", date_from),
                            ("substr(e.starts_at, 1, 10) <= ?", date_to))
    rows = db.query("SELECT e.id, e.title, e.category, e.starts_at, e.status, v.name AS venue, v.city FROM events e "
                    f"JOIN venues v ON v.id = e.venue_id WHERE {where} ORDER BY e.starts_at, e.id LIMIT ?",
                    (*params, limit))
    return {"count": len(rows), "events": [{"event_id": r.pop("id"), **r} for r in rows]}


@tool
def get_event(db: Db, event_id: int) -> dict:
    """One event: organiser, venue, times, status, refund policy, per-customer ticket limit, and each price tier
    (section, price, service fee per ticket, tickets still available).

    Args:
        event_id: the event's id.
    """
    e = _event(db, event_id)
    tiers = db.query("SELECT pt.id, pt.name, pt.price_cents, vs.name AS section, vs.kind FROM price_tiers pt "
                     "JOIN venue_sections vs ON vs.id = pt.section_id WHERE pt.event_id = ? ORDER BY pt.id", (event_id,))
    return {"event_id": e["id"], "title": e["title"], "category": e["category"], "organiser": e["organiser_name"],
            "venue": e["venue_name"], "city": e["city"], "starts_at": e["starts_at"], "doors_at": e["doors_at"],
            "original_starts_at": e["original_starts_at"], "status": e["status"], "cancel_reason": e["cancel_reason"],
            "refund_policy": e["refund_policy"], "per_customer_limit": e["per_customer_limit"],
            "tiers": [{"tier": t["name"], "section": t["section"], "kind": t["kind"], "price_usd": _usd(t["price_cents"]),
                       "fee_usd": _usd(_fee(t["price_cents"])), "available": _remaining(db, t["id"])} for t in tiers]}


@tool
def get_seat_map(db: Db, event_id: int, section: str, available_only: bool = True, limit: int = 60) -> dict:
    """The seats of one seated section for an event, with whether each is still free (not sold or held).

    Args:
        event_id: the event's id.
        section: the section name, e.g. "Orchestra".
        available_only: only free seats (default true).
        limit: maximum number of seats, 1 to 200.
    """
    _limit(limit, 200)
    e = _event(db, event_id)
    sec = db.one("SELECT * FROM venue_sections WHERE venue_id = ? AND lower(name) = lower(?)",
                 (e["venue_id"], section.strip()),
                 missing=f"{e['venue_name']} has no section {section!r}; get_event lists the sections.")
    if sec["kind"] != "seated":
        raise ToolError(f"{sec['name']} is standing room without seats; get_event shows how many places are left.")
    rows = db.query("SELECT s.row_label, s.seat_number, s.accessible, (SELECT COUNT(*) FROM tickets t WHERE t.event_id = ? "
                    "AND t.seat_id = s.id AND t.status IN ('held', 'valid')) AS taken FROM seats s WHERE s.section_id = ? "
                    "ORDER BY s.row_label, s.seat_number", (event_id, sec["id"]))
    seats = [{"seat": f"{r['row_label']}{r['seat_number']}", "accessible": bool(r["accessible"]), "free": not r["taken"]}
             for r in rows if not (available_only and r["taken"])]
    return {"event_id": event_id, "section": sec["name"], "count": min(len(seats), limit), "seats": seats[:limit]}


@tool
def find_customers(db: Db, query: str, limit: int = 10) -> dict:
    """Find customers by part of their name or e-mail.

    Args:
        query: e.g. "Nguyen" or "sam.p".
        limit: maximum number of customers, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "full_name", "email")
    rows = db.query(f"SELECT full_name AS name, email FROM customers WHERE {who} ORDER BY full_name, id LIMIT ?",
                    (*params, limit))
    return {"count": len(rows), "customers": rows}


@tool
def get_customer(db: Db, email: str) -> dict:
    """A customer's profile with the number of orders and of live tickets they hold.

    Args:
        email: the customer's e-mail address.
    """
    c = _customer(db, email)
    orders = db.value("SELECT COUNT(*) FROM orders WHERE customer_id = ?", (c["id"],))
    live = db.value("SELECT COUNT(*) FROM tickets WHERE holder_id = ? AND status IN ('held', 'valid')", (c["id"],))
    waits = db.query("SELECT w.event_id, e.title, w.quantity, w.status FROM waitlist_entries w JOIN events e "
                     "ON e.id = w.event_id WHERE w.customer_id = ? ORDER BY w.id", (c["id"],))
    return {"name": c["full_name"], "email": c["email"], "phone": c["phone"], "orders": orders, "live_tickets": live,
            "waitlists": waits}


@tool
def list_orders(db: Db, customer_email: str, event_id: int | None = None,
                status: Literal["pending", "paid", "partially_refunded", "refunded", "cancelled"] | None = None,
                limit: int = 20) -> dict:
    """A customer's orders, newest first.

    Args:
        customer_email: the customer's e-mail.
        event_id: only orders for this event.
        status: only orders in this status.
        limit: maximum number of orders, 1 to 50.
    """
    _limit(limit)
    c = _customer(db, customer_email)
    rows = db.query("SELECT o.id, o.order_number, o.status, o.created_at, e.id AS event_id, e.title, e.starts_at "
                    "FROM orders o JOIN events e ON e.id = o.event_id WHERE o.customer_id = ? AND (? IS NULL OR "
                    "o.event_id = ?) AND (? IS NULL OR o.status = ?) ORDER BY o.created_at DESC, o.id DESC LIMIT ?",
                    (c["id"], event_id, event_id, status, status, limit))
    return {"count": len(rows), "orders": [{k: v for k, v in r.items() if k != "id"} | _order_totals(db, r["id"])
                                           for r in rows]}


@tool
def get_order(db: Db, order_number: str) -> dict:
    """An order in full: buyer, event, status, hold expiry, promo code, tickets (codes, seats, holders, prices,
    discounts, fees), refunds and totals.

    Args:
        order_number: the order number.
    """
    o = _order(db, order_number)
    e = _event(db, o["event_id"])
    buyer = db.one("SELECT full_name, email FROM customers WHERE id = ?", (o["customer_id"],))
    tickets = db.query(_TICKET_SQL + "WHERE t.order_id = ? ORDER BY t.id", (o["id"],))
    promo = db.value("SELECT code FROM promo_codes WHERE id = ?", (o["promo_code_id"],)) if o["promo_code_id"] else None
    refunds = db.query("SELECT t.code, r.amount_cents, r.reason, r.created_at FROM refunds r JOIN tickets t "
                       "ON t.id = r.ticket_id WHERE r.order_id = ? ORDER BY r.id", (o["id"],))
    return {"order_number": o["order_number"], "status": o["status"], "buyer": buyer["full_name"],
            "buyer_email": buyer["email"], "event_id": e["id"], "event": e["title"], "starts_at": e["starts_at"],
            "created_at": o["created_at"], "hold_expires_at": o["hold_expires_at"], "paid_at": o["paid_at"],
            "promo_code": promo, "tickets": [_ticket_line(t) for t in tickets],
            "refunds": [{"ticket": r["code"], "amount_usd": _usd(r["amount_cents"]), "reason": r["reason"],
                         "at": r["created_at"]} for r in refunds], **_order_totals(db, o["id"])}


@tool
def list_tickets(db: Db, customer_email: str, event_id: int | None = None,
                 status: Literal["held", "valid", "refunded", "cancelled"] | None = None, limit: int = 30) -> dict:
    """Tickets a customer holds now (bought or received by transfer), with codes, seats and scan state.

    Args:
        customer_email: the customer's e-mail.
        event_id: only tickets for this event.
        status: only tickets in this status.
        limit: maximum number of tickets, 1 to 50.
    """
    _limit(limit)
    c = _customer(db, customer_email)
    rows = db.query(_TICKET_SQL + "WHERE t.holder_id = ? AND (? IS NULL OR t.event_id = ?) AND (? IS NULL OR t.status = ?) "
                    "ORDER BY t.event_id, t.id LIMIT ?", (c["id"], event_id, event_id, status, status, limit))
    out = []
    for t in rows:
        title = db.value("SELECT title FROM events WHERE id = ?", (t["event_id"],))
        order_no = db.value("SELECT order_number FROM orders WHERE id = ?", (t["order_id"],))
        out.append({**_ticket_line(t), "event_id": t["event_id"], "event": title, "order_number": order_no})
    return {"count": len(out), "tickets": out}


@tool
def get_ticket(db: Db, code: str) -> dict:
    """One ticket by its code: event, section and seat, holder, status, prices and scan state.

    Args:
        code: the ticket code.
    """
    t = _ticket(db, code)
    e = _event(db, t["event_id"])
    return {**_ticket_line(t), "event_id": e["id"], "event": e["title"], "starts_at": e["starts_at"],
            "event_status": e["status"],
            "order_number": db.value("SELECT order_number FROM orders WHERE id = ?", (t["order_id"],))}


@tool
def check_promo_code(db: Db, code: str) -> dict:
    """Whether a promo code can be used now: its event, discount, validity window and uses left.

    Args:
        code: the promo code, e.g. "SPRING15".
    """
    p = db.one("SELECT p.*, e.title FROM promo_codes p JOIN events e ON e.id = p.event_id WHERE upper(p.code) = upper(?)",
               (code.strip(),),
               missing=f"No promo code {code!r}.")
    now = _now(db)
    usable = bool(p["active"]) and p["valid_from"] <= now <= p["valid_until"] and p["uses"] < p["max_uses"]
    return {"code": p["code"], "event_id": p["event_id"], "event": p["title"], "discount_pct": p["discount_pct"],
            "valid_from": p["valid_from"], "valid_until": p["valid_until"], "uses_left": p["max_uses"] - p["uses"],
            "active": bool(p["active"]), "usable_now": usable}


@tool
def quote_refund(db: Db, order_number: str, ticket_codes: list[str]) -> dict:
    """What refunding some tickets of an order would return now, or why it is not allowed. A customer refund
    returns each ticket's price less its discount (service fees are kept); it needs the event's refund policy
    to allow it (no_refunds, until 7 days or until 24 hours before the start), except that a postponed
    event's tickets can always be refunded. Changes nothing.

    Args:
        order_number: the order number.
        ticket_codes: codes of the tickets to refund.
    """
    o = _order(db, order_number)
    e = _event(db, o["event_id"])
    reason = _refund_check(db, e)
    total, lines = 0, []
    for code in ticket_codes:
        t = _ticket(db, code)
        if t["order_id"] != o["id"]:
            raise ToolError(f"Ticket {t['code']} is not part of order {o['order_number']}.")
        if t["status"] != "valid" or t["scanned_at"]:
            raise ToolError(f"Ticket {t['code']} is {'already scanned' if t['scanned_at'] else t['status']}; it cannot be "
                            "refunded.")
        if t["holder_id"] != o["customer_id"]:
            raise ToolError(f"Ticket {t['code']} was transferred to {t['holder_name']}; it can no longer be refunded.")
        amount = t["price_cents"] - t["discount_cents"]
        lines.append({"code": t["code"], "seat": _seat_label(t), "refund_usd": _usd(amount)})
        total += amount
    return {"order_number": o["order_number"], "reason": reason, "tickets": lines, "refund_usd": _usd(total)}


@tool
def get_waitlist(db: Db, event_id: int, limit: int = 20) -> dict:
    """The waitlist of an event in joining order (only people still waiting).

    Args:
        event_id: the event's id.
        limit: maximum number of entries, 1 to 50.
    """
    _limit(limit)
    _event(db, event_id)
    rows = db.query("SELECT c.full_name AS name, c.email, w.quantity, w.created_at FROM waitlist_entries w JOIN customers c "
                    "ON c.id = w.customer_id WHERE w.event_id = ? AND w.status = 'waiting' ORDER BY w.created_at, w.id "
                    "LIMIT ?", (event_id, limit))
    return {"event_id": event_id, "count": len(rows), "waiting": [{"position": i, **r} for i, r in enumerate(rows, 1)]}


@tool
def get_event_sales(db: Db, event_id: int) -> dict:
    """Sales of an event per tier: tickets sold (valid), on hold, refunded, scanned, still available, and the
    money collected net of refunds.

    Args:
        event_id: the event's id.
    """
    e = _event(db, event_id)
    tiers = []
    for t in db.query("SELECT pt.id, pt.name, vs.name AS section FROM price_tiers pt JOIN venue_sections vs "
                      "ON vs.id = pt.section_id WHERE pt.event_id = ? ORDER BY pt.id", (event_id,)):
        c = db.one("SELECT SUM(status = 'valid') AS sold, SUM(status = 'held') AS held, SUM(status = 'refunded') AS "
                   "refunded, SUM(scanned_at IS NOT NULL) AS scanned FROM tickets WHERE price_tier_id = ?", (t["id"],))
        tiers.append({"tier": t["name"], "section": t["section"], "sold": c["sold"] or 0, "held": c["held"] or 0,
                      "refunded": c["refunded"] or 0, "scanned": c["scanned"] or 0, "available": _remaining(db, t["id"])})
    gross = db.value("SELECT COALESCE(SUM(t.price_cents - t.discount_cents + t.fee_cents), 0) FROM tickets t JOIN orders o "
                     "ON o.id = t.order_id WHERE t.event_id = ? AND o.paid_at IS NOT NULL", (event_id,))
    refunded = db.value("SELECT COALESCE(SUM(r.amount_cents), 0) FROM refunds r JOIN orders o ON o.id = r.order_id "
                        "WHERE o.event_id = ?", (event_id,))
    return {"event_id": event_id, "title": e["title"], "status": e["status"], "tiers": tiers,
            "net_collected_usd": _usd(gross - refunded)}


@tool
def list_organiser_staff(db: Db, event_id: int) -> list[dict]:
    """The staff of the organiser running an event: name, e-mail and role (manager or gate).

    Args:
        event_id: the event's id.
    """
    e = _event(db, event_id)
    return db.query("SELECT full_name AS name, email, role FROM organiser_staff WHERE organiser_id = ? ORDER BY role, "
                    "full_name", (e["organiser_id"],))


# ----------------------------------------------------------------------------------------------
# write tools: customers
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def reserve_tickets(db: Db, customer_email: str, event_id: int, section: str, seats: list[str] | None = None,
                    quantity: int | None = None) -> dict:
    """Hold tickets for the acting customer in one section of an event on sale: name the seats of a seated
    section (e.g. ["B4", "B5"]) or give a quantity for a standing section. Creates a pending order whose holds
    last 15 minutes; pay it with pay_order. A customer may hold at most the event's per-customer limit of live
    tickets, and a seat is sold or held only once.

    Args:
        customer_email: e-mail of the customer buying.
        event_id: the event's id.
        section: the section name, e.g. "Orchestra" or "Floor".
        seats: seat labels for a seated section.
        quantity: number of places for a standing section.
    """
    c = _customer(db, customer_email)
    e = _event(db, event_id)
    if e["status"] != "on_sale" or e["starts_at"] <= _now(db):
        raise ToolError(f"{e['title']} is {e['status'].replace('_', ' ')}; tickets can only be bought while it is on "
                        "sale." + (" Join the waitlist instead." if e["status"] == "sold_out" else ""))
    tier = db.one("SELECT pt.*, vs.kind, vs.name AS section_name FROM price_tiers pt JOIN venue_sections vs "
                  "ON vs.id = pt.section_id WHERE pt.event_id = ? AND lower(vs.name) = lower(?)",
                  (event_id, section.strip()),
                  missing=f"{e['title']} sells no section {section!r}; get_event lists the tiers.")
    seat_ids: list[int | None]
    if tier["kind"] == "seated":
        if not seats or quantity not in (None, len(seats)):
            raise ToolError(f"{tier['section_name']} is seated: name the seats (e.g. ['B4', 'B5']); get_seat_map shows "
                            "the free ones.")
        seat_ids = []
        for label in seats:
            row, num = _parse_seat(label)
            s = db.one("SELECT id FROM seats WHERE section_id = ? AND row_label = ? AND seat_number = ?",
                       (tier["section_id"], row, num),
                       missing=f"There is no seat {row}{num} in {tier['section_name']}.")
            if s["id"] in seat_ids:
                raise ToolError(f"Seat {row}{num} is listed twice.")
            db.none("SELECT 1 FROM tickets WHERE event_id = ? AND seat_id = ? AND status IN ('held', 'valid')",
                    (event_id, s["id"]),
                    found=f"Seat {row}{num} is already sold or held; get_seat_map shows the free seats.")
            seat_ids.append(s["id"])
    else:
        if seats:
            raise ToolError(f"{tier['section_name']} is standing room; give a quantity instead of seats.")
        if quantity is None or quantity < 1:
            raise ToolError("Give the number of standing places (quantity of at least 1).")
        if _remaining(db, tier["id"]) < quantity:
            raise ToolError(f"Only {_remaining(db, tier['id'])} places left in {tier['section_name']}.")
        seat_ids = [None] * quantity
    n = len(seat_ids)
    have = _held_by(db, event_id, c["id"])
    if have + n > e["per_customer_limit"]:
        raise ToolError(f"{e['title']} allows {e['per_customer_limit']} tickets per customer; {c['full_name']} already "
                        f"holds {have}, so at most {max(e['per_customer_limit'] - have, 0)} more.")
    next_id = (db.value("SELECT COALESCE(MAX(id), 0) FROM orders") or 0) + 1
    number = f"T-{100000 + next_id}"
    expires = iso_seconds(db.now() + timedelta(minutes=HOLD_MINUTES))
    oid = db.insert("orders", {"order_number": number, "customer_id": c["id"], "event_id": event_id, "status": "pending",
                               "promo_code_id": None, "created_at": _now(db), "hold_expires_at": expires, "paid_at": None})
    codes = []
    for sid in seat_ids:
        tid = (db.value("SELECT COALESCE(MAX(id), 0) FROM tickets") or 0) + 1
        code = f"TN{1000000 + tid}"
        db.insert("tickets", {"code": code, "order_id": oid, "event_id": event_id, "price_tier_id": tier["id"],
                              "seat_id": sid, "holder_id": c["id"], "status": "held", "price_cents": tier["price_cents"],
                              "discount_cents": 0, "fee_cents": _fee(tier["price_cents"]), "scanned_at": None})
        codes.append(code)
    _close_if_full(db, event_id)
    return {"order_number": number, "status": "pending", "hold_expires_at": expires, "ticket_codes": codes,
            **_order_totals(db, oid)}


@tool(write=True)
def apply_promo_code(db: Db, order_number: str, customer_email: str, promo_code: str) -> dict:
    """Apply a promo code to the acting customer's pending order: the code must belong to the order's event, be
    active, inside its validity window and have uses left; one code per order. The discount is a percentage of
    each ticket's price (service fees are not discounted).

    Args:
        order_number: the pending order.
        customer_email: e-mail of the customer who placed it.
        promo_code: the code, e.g. "EARLY10".
    """
    o, c = _own_order(db, order_number, customer_email)
    if o["status"] != "pending":
        raise ToolError(f"Order {o['order_number']} is {o['status']}; promo codes apply before payment.")
    if o["promo_code_id"]:
        raise ToolError(f"Order {o['order_number']} already uses a promo code; only one per order.")
    p = db.one("SELECT * FROM promo_codes WHERE upper(code) = upper(?)", (promo_code.strip(),),
               missing=f"No promo code {promo_code!r}.")
    if p["event_id"] != o["event_id"]:
        raise ToolError(f"{p['code']} is for another event.")
    now = _now(db)
    if not p["active"] or not p["valid_from"] <= now <= p["valid_until"]:
        raise ToolError(f"{p['code']} is not valid now (valid {p['valid_from']} to {p['valid_until']}"
                        f"{', deactivated' if not p['active'] else ''}).")
    if p["uses"] >= p["max_uses"]:
        raise ToolError(f"{p['code']} has been used its maximum of {p['max_uses']} times.")
    db.execute("UPDATE tickets SET discount_cents = price_cents * ? / 100 WHERE order_id = ?", (p["discount_pct"], o["id"]))
    db.execute("UPDATE orders SET promo_code_id = ? WHERE id = ?", (p["id"], o["id"]))
    db.execute("UPDATE promo_codes SET uses = uses + 1 WHERE id = ?", (p["id"],))
    return {"order_number": o["order_number"], "promo_code": p["code"], "discount_pct": p["discount_pct"],
            **_order_totals(db, o["id"])}


@tool(write=True)
def pay_order(db: Db, order_number: str, customer_email: str) -> dict:
    """Pay the acting customer's pending order before its hold expires; the held tickets become valid.

    Args:
        order_number: the pending order.
        customer_email: e-mail of the customer who placed it.
    """
    o, c = _own_order(db, order_number, customer_email)
    if o["status"] != "pending":
        raise ToolError(f"Order {o['order_number']} is {o['status']}; only pending orders can be paid.")
    if o["hold_expires_at"] < _now(db):
        raise ToolError(f"The hold on {o['order_number']} expired at {o['hold_expires_at']}; reserve the tickets again.")
    db.execute("UPDATE tickets SET status = 'valid' WHERE order_id = ? AND status = 'held'", (o["id"],))
    db.execute("UPDATE orders SET status = 'paid', paid_at = ?, hold_expires_at = NULL WHERE id = ?", (_now(db), o["id"]))
    return {"order_number": o["order_number"], "status": "paid", **_order_totals(db, o["id"])}


@tool(write=True)
def cancel_pending_order(db: Db, order_number: str, customer_email: str) -> dict:
    """Drop the acting customer's pending (unpaid) order: its held seats are released and a promo code use is
    given back.

    Args:
        order_number: the pending order.
        customer_email: e-mail of the customer who placed it.
    """
    o, c = _own_order(db, order_number, customer_email)
    if o["status"] != "pending":
        raise ToolError(f"Order {o['order_number']} is {o['status']}; paid orders are refunded with request_refund.")
    db.execute("UPDATE tickets SET status = 'cancelled' WHERE order_id = ?", (o["id"],))
    db.execute("UPDATE orders SET status = 'cancelled', hold_expires_at = NULL WHERE id = ?", (o["id"],))
    if o["promo_code_id"]:
        db.execute("UPDATE promo_codes SET uses = uses - 1 WHERE id = ?", (o["promo_code_id"],))
    _reopen_if_freed(db, o["event_id"])
    return {"order_number": o["order_number"], "status": "cancelled"}


@tool(write=True)
def request_refund(db: Db, order_number: str, customer_email: str, ticket_codes: list[str]) -> dict:
    """Refund tickets of the acting customer's paid order, as the event's refund policy allows (see quote_refund):
    each ticket returns its price less its discount. Only valid, unscanned tickets the buyer still holds (not
    transferred away). The order becomes partially_refunded or refunded.

    Args:
        order_number: the order.
        customer_email: e-mail of the customer who placed it.
        ticket_codes: codes of the tickets to refund.
    """
    o, c = _own_order(db, order_number, customer_email)
    if o["status"] not in ("paid", "partially_refunded"):
        raise ToolError(f"Order {o['order_number']} is {o['status']}; only paid orders can be refunded.")
    e = _event(db, o["event_id"])
    reason = _refund_check(db, e)
    if not ticket_codes or len(set(x.upper() for x in ticket_codes)) != len(ticket_codes):
        raise ToolError("Name each ticket to refund once.")
    total = 0
    for code in ticket_codes:
        t = _ticket(db, code)
        if t["order_id"] != o["id"]:
            raise ToolError(f"Ticket {t['code']} is not part of order {o['order_number']}.")
        if t["status"] != "valid":
            raise ToolError(f"Ticket {t['code']} is {t['status']}.")
        if t["holder_id"] != c["id"]:
            raise ToolError(f"Ticket {t['code']} was transferred to {t['holder_name']}; it can no longer be refunded.")
        if t["scanned_at"]:
            raise ToolError(f"Ticket {t['code']} was already scanned.")
        amount = t["price_cents"] - t["discount_cents"]
        db.execute("UPDATE tickets SET status = 'refunded' WHERE id = ?", (t["id"],))
        db.insert("refunds", {"order_id": o["id"], "ticket_id": t["id"], "amount_cents": amount, "reason": reason,
                              "created_at": _now(db)})
        total += amount
    left = db.value("SELECT COUNT(*) FROM tickets WHERE order_id = ? AND status = 'valid'", (o["id"],))
    status = "partially_refunded" if left else "refunded"
    db.execute("UPDATE orders SET status = ? WHERE id = ?", (status, o["id"]))
    _reopen_if_freed(db, e["id"])
    return {"order_number": o["order_number"], "status": status, "refunded_usd": _usd(total), "reason": reason}


@tool(write=True)
def transfer_ticket(db: Db, code: str, customer_email: str, recipient_email: str) -> dict:
    """Give a valid ticket the acting customer holds to another customer before the event starts. The ticket
    gets a new code (the old one stops working); the recipient must stay within the event's per-customer limit.

    Args:
        code: the ticket's current code.
        customer_email: e-mail of the customer holding it.
        recipient_email: e-mail of the customer receiving it.
    """
    c = _customer(db, customer_email)
    t = _ticket(db, code)
    require_owner(t, "holder_id", c["id"],
                  f"Ticket {t['code']} is not held by {c['full_name']}; only its holder can transfer it.")
    if t["status"] != "valid" or t["scanned_at"]:
        raise ToolError(f"Ticket {t['code']} is {'already scanned' if t['scanned_at'] else t['status']} and cannot be "
                        "transferred.")
    e = _event(db, t["event_id"])
    if e["status"] in ("cancelled", "completed") or e["starts_at"] <= _now(db):
        raise ToolError(f"{e['title']} has started or is over; tickets can no longer be transferred.")
    r = _customer(db, recipient_email)
    if r["id"] == c["id"]:
        raise ToolError("The recipient is the ticket's holder already.")
    if _held_by(db, e["id"], r["id"]) + 1 > e["per_customer_limit"]:
        raise ToolError(f"{r['full_name']} already holds {e['per_customer_limit']} tickets for {e['title']}, the limit.")
    next_id = (db.value("SELECT COALESCE(MAX(id), 0) FROM transfers") or 0) + 1
    new_code = f"TX{500000 + next_id}"
    db.insert("transfers", {"ticket_id": t["id"], "from_customer_id": c["id"], "to_customer_id": r["id"],
                            "old_code": t["code"], "created_at": _now(db)})
    db.execute("UPDATE tickets SET holder_id = ?, code = ? WHERE id = ?", (r["id"], new_code, t["id"]))
    return {"old_code": t["code"], "new_code": new_code, "event": e["title"], "seat": _seat_label(t),
            "new_holder": r["full_name"]}


@tool(write=True)
def change_seat(db: Db, code: str, customer_email: str, new_seat: str) -> dict:
    """Move a valid, unscanned ticket the acting customer holds to another free seat in the same section (same
    price) before the event starts.

    Args:
        code: the ticket code.
        customer_email: e-mail of the customer holding it.
        new_seat: the seat label, e.g. "C7".
    """
    c = _customer(db, customer_email)
    t = _ticket(db, code)
    require_owner(t, "holder_id", c["id"], f"Ticket {t['code']} is not held by {c['full_name']}.")
    if t["status"] != "valid" or t["scanned_at"]:
        raise ToolError(f"Ticket {t['code']} cannot be moved ({'scanned' if t['scanned_at'] else t['status']}).")
    if t["section_kind"] != "seated":
        raise ToolError(f"{t['section']} is standing room; there are no seats to choose.")
    e = _event(db, t["event_id"])
    if e["status"] in ("cancelled", "completed") or e["starts_at"] <= _now(db):
        raise ToolError(f"{e['title']} has started or is over.")
    row, num = _parse_seat(new_seat)
    s = db.one("SELECT id FROM seats WHERE section_id = ? AND row_label = ? AND seat_number = ?",
               (t["section_id"], row, num),
               missing=f"There is no seat {row}{num} in {t['section']}; seats can only change within the section.")
    if s["id"] == t["seat_id"]:
        raise ToolError(f"The ticket is already for seat {row}{num}.")
    db.none("SELECT 1 FROM tickets WHERE event_id = ? AND seat_id = ? AND status IN ('held', 'valid')",
            (t["event_id"], s["id"]), found=f"Seat {row}{num} is taken; get_seat_map shows the free seats.")
    db.execute("UPDATE tickets SET seat_id = ? WHERE id = ?", (s["id"], t["id"]))
    return {"code": t["code"], "section": t["section"], "old_seat": _seat_label(t), "new_seat": f"{row}{num}"}


@tool(write=True)
def join_waitlist(db: Db, event_id: int, customer_email: str, quantity: int) -> dict:
    """Put the acting customer on a sold-out event's waitlist for a number of tickets (within the per-customer
    limit, counting tickets they already hold). One entry per customer per event.

    Args:
        event_id: the sold-out event's id.
        customer_email: e-mail of the customer.
        quantity: tickets wanted, at least 1.
    """
    c = _customer(db, customer_email)
    e = _event(db, event_id)
    if e["status"] != "sold_out":
        raise ToolError(f"{e['title']} is {e['status'].replace('_', ' ')}; waitlists are only for sold-out events.")
    have = _held_by(db, event_id, c["id"])
    if quantity < 1 or have + quantity > e["per_customer_limit"]:
        raise ToolError(f"Ask for 1 to {max(e['per_customer_limit'] - have, 0)} tickets (limit {e['per_customer_limit']} "
                        f"per customer, {have} already held).")
    w = db.one("SELECT * FROM waitlist_entries WHERE event_id = ? AND customer_id = ?", (event_id, c["id"]))
    if w and w["status"] == "waiting":
        raise ToolError(f"{c['full_name']} is already on the waitlist for {w['quantity']} ticket(s).")
    if w:
        db.execute("UPDATE waitlist_entries SET status = 'waiting', quantity = ?, created_at = ? WHERE id = ?",
                   (quantity, _now(db), w["id"]))
    else:
        db.insert("waitlist_entries", {"event_id": event_id, "customer_id": c["id"], "quantity": quantity,
                                       "status": "waiting", "created_at": _now(db)})
    pos = db.value("SELECT COUNT(*) FROM waitlist_entries WHERE event_id = ? AND status = 'waiting'", (event_id,))
    return {"event": e["title"], "quantity": quantity, "position": pos}


@tool(write=True)
def leave_waitlist(db: Db, event_id: int, customer_email: str) -> dict:
    """Take the acting customer off an event's waitlist.

    Args:
        event_id: the event's id.
        customer_email: e-mail of the customer.
    """
    c = _customer(db, customer_email)
    e = _event(db, event_id)
    n = db.execute("UPDATE waitlist_entries SET status = 'removed' WHERE event_id = ? AND customer_id = ? AND "
                   "status = 'waiting'", (event_id, c["id"]))
    if n == 0:
        raise ToolError(f"{c['full_name']} is not on the waitlist for {e['title']}.")
    return {"event": e["title"], "status": "removed"}


@tool(write=True)
def update_customer_phone(db: Db, customer_email: str, phone: str) -> dict:
    """Change the acting customer's phone number.

    Args:
        customer_email: e-mail of the customer.
        phone: digits with optional +, spaces, dashes or parentheses (7 to 20 characters).
    """
    c = _customer(db, customer_email)
    p = phone.strip()
    if not re.fullmatch(r"[+0-9() \-]{7,20}", p) or sum(ch.isdigit() for ch in p) < 7:
        raise ToolError("phone must be 7 to 20 characters of digits, +, spaces, dashes or parentheses.")
    if p == c["phone"]:
        raise ToolError("That is already the customer's phone number.")
    db.execute("UPDATE customers SET phone = ? WHERE id = ?", (p, c["id"]))
    return {"email": c["email"], "phone": p}


# ----------------------------------------------------------------------------------------------
# write tools: organisers
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def scan_ticket(db: Db, code: str, staff_email: str, gate: str) -> dict:
    """Admit a ticket at the gate. Only the organiser's gate staff or managers, from doors opening until four
    hours after the start; the ticket must be valid and is admitted once (a second scan is refused).

    Args:
        code: the ticket code.
        staff_email: e-mail of the staff member scanning.
        gate: the gate name, e.g. "North".
    """
    t = _ticket(db, code)
    e = _event(db, t["event_id"])
    s = _staff(db, staff_email, e, ("gate", "manager"), "scan tickets")
    if e["status"] in ("cancelled", "postponed"):
        raise ToolError(f"{e['title']} is {e['status']}; no admissions.")
    now = _now(db)
    close = (datetime.fromisoformat(e["starts_at"]) + timedelta(hours=SCAN_WINDOW_HOURS)).isoformat()
    if not e["doors_at"] <= now <= close:
        raise ToolError(f"Admission for {e['title']} runs from {e['doors_at']} to {close}.")
    if t["status"] != "valid":
        raise ToolError(f"Ticket {t['code']} is {t['status']}; do not admit.")
    if t["scanned_at"]:
        gate_was = db.value("SELECT gate FROM scans WHERE ticket_id = ?", (t["id"],))
        raise ToolError(f"Ticket {t['code']} was already scanned at {t['scanned_at']} (gate {gate_was}); a ticket "
                        "admits once.")
    g = clean_text(gate, "gate", 1, 20)
    db.execute("UPDATE tickets SET scanned_at = ? WHERE id = ?", (now, t["id"]))
    db.insert("scans", {"ticket_id": t["id"], "staff_id": s["id"], "gate": g, "scanned_at": now})
    return {"code": t["code"], "admitted": True, "holder": t["holder_name"], "section": t["section"],
            "seat": _seat_label(t)}


@tool(write=True)
def cancel_event(db: Db, event_id: int, staff_email: str, reason: str) -> dict:
    """Cancel an event that has not started (a manager of its organiser). Every valid ticket is refunded in full,
    service fee included; pending orders are dropped, waitlists cleared and promo codes deactivated.

    Args:
        event_id: the event's id.
        staff_email: e-mail of a manager of the organiser.
        reason: why, shown to ticket holders (3 to 200 characters).
    """
    e = _event(db, event_id)
    _staff(db, staff_email, e, ("manager",), "cancel events")
    if e["status"] in ("cancelled", "completed") or e["starts_at"] <= _now(db):
        raise ToolError(f"{e['title']} is {e['status']} or has started; it cannot be cancelled.")
    why = clean_text(reason, "reason", 3, 200)
    total = 0
    for t in db.query("SELECT * FROM tickets WHERE event_id = ? AND status = 'valid' ORDER BY id", (event_id,)):
        amount = t["price_cents"] - t["discount_cents"] + t["fee_cents"]
        db.insert("refunds", {"order_id": t["order_id"], "ticket_id": t["id"], "amount_cents": amount,
                              "reason": "event_cancelled", "created_at": _now(db)})
        total += amount
    db.execute("UPDATE tickets SET status = 'refunded' WHERE event_id = ? AND status = 'valid'", (event_id,))
    db.execute("UPDATE tickets SET status = 'cancelled' WHERE event_id = ? AND status = 'held'", (event_id,))
    db.execute("UPDATE orders SET status = 'refunded' WHERE event_id = ? AND status IN ('paid', 'partially_refunded')",
               (event_id,))
    db.execute("UPDATE orders SET status = 'cancelled', hold_expires_at = NULL WHERE event_id = ? AND status = 'pending'",
               (event_id,))
    db.execute("UPDATE waitlist_entries SET status = 'removed' WHERE event_id = ? AND status = 'waiting'", (event_id,))
    db.execute("UPDATE promo_codes SET active = 0 WHERE event_id = ?", (event_id,))
    db.execute("UPDATE events SET status = 'cancelled', cancel_reason = ? WHERE id = ?", (why, event_id))
    return {"event_id": event_id, "status": "cancelled", "refunded_usd": _usd(total)}


@tool(write=True)
def postpone_event(db: Db, event_id: int, staff_email: str, new_starts_at: str) -> dict:
    """Postpone an on-sale or sold-out event to a later start (a manager of its organiser). Doors move with it,
    sales pause, tickets stay valid and holders may refund whatever the refund policy says.

    Args:
        event_id: the event's id.
        staff_email: e-mail of a manager of the organiser.
        new_starts_at: the new start, YYYY-MM-DDTHH:MM.
    """
    e = _event(db, event_id)
    _staff(db, staff_email, e, ("manager",), "postpone events")
    if e["status"] not in ("on_sale", "sold_out") or e["starts_at"] <= _now(db):
        raise ToolError(f"{e['title']} is {e['status']} or has started; only upcoming events on sale can be postponed.")
    try:
        new = datetime.fromisoformat(new_starts_at.strip()).replace(second=0, microsecond=0)
    except ValueError:
        raise ToolError("new_starts_at must look like 2026-07-18T20:00.") from None
    old = datetime.fromisoformat(e["starts_at"])
    if new <= old:
        raise ToolError(f"The new start must be after the current one ({e['starts_at']}).")
    doors = new - (old - datetime.fromisoformat(e["doors_at"]))
    db.execute("UPDATE events SET status = 'postponed', starts_at = ?, doors_at = ?, original_starts_at = "
               "COALESCE(original_starts_at, ?) WHERE id = ?", (new.isoformat(), doors.isoformat(), e["starts_at"], event_id))
    return {"event_id": event_id, "status": "postponed", "starts_at": new.isoformat(), "doors_at": doors.isoformat()}


@tool(write=True)
def resume_sales(db: Db, event_id: int, staff_email: str) -> dict:
    """Put a postponed event back on sale at its new date (sold out if nothing is left).

    Args:
        event_id: the event's id.
        staff_email: e-mail of a manager of the organiser.
    """
    e = _event(db, event_id)
    _staff(db, staff_email, e, ("manager",), "resume sales")
    if e["status"] != "postponed":
        raise ToolError(f"{e['title']} is {e['status']}, not postponed.")
    status = "on_sale" if _event_remaining(db, event_id) > 0 else "sold_out"
    db.execute("UPDATE events SET status = ? WHERE id = ?", (status, event_id))
    return {"event_id": event_id, "status": status, "starts_at": e["starts_at"]}


@tool(write=True)
def create_promo_code(db: Db, event_id: int, staff_email: str, code: str, discount_pct: int, max_uses: int,
                      valid_until: str) -> dict:
    """Create a promo code for an event (a manager of its organiser), valid from now until the given time (before
    the event starts).

    Args:
        event_id: the event's id.
        staff_email: e-mail of a manager of the organiser.
        code: 4 to 20 capital letters or digits, e.g. "FANS20".
        discount_pct: 5 to 50 percent off ticket prices.
        max_uses: how many orders may use it, 1 to 1000.
        valid_until: last moment it works, YYYY-MM-DDTHH:MM.
    """
    e = _event(db, event_id)
    _staff(db, staff_email, e, ("manager",), "create promo codes")
    if e["status"] not in ("on_sale", "sold_out", "postponed"):
        raise ToolError(f"{e['title']} is {e['status']}.")
    c = code.strip().upper()
    if not re.fullmatch(r"[A-Z0-9]{4,20}", c):
        raise ToolError("code must be 4 to 20 letters or digits.")
    db.none("SELECT 1 FROM promo_codes WHERE code = ?", (c,), found=f"Promo code {c} already exists; choose another.")
    if not 5 <= discount_pct <= 50:
        raise ToolError("discount_pct must be 5 to 50.")
    if not 1 <= max_uses <= 1000:
        raise ToolError("max_uses must be 1 to 1000.")
    try:
        until = datetime.fromisoformat(valid_until.strip()).replace(microsecond=0)
    except ValueError:
        raise ToolError("valid_until must look like 2026-07-01T23:59.") from None
    if until <= db.now() or until.isoformat() > e["starts_at"]:
        raise ToolError(f"valid_until must be after now and no later than the start ({e['starts_at']}).")
    pid = db.insert("promo_codes", {"code": c, "event_id": event_id, "discount_pct": discount_pct, "max_uses": max_uses,
                                    "uses": 0, "valid_from": _now(db), "valid_until": until.isoformat(), "active": 1})
    return {"promo_id": pid, "code": c, "event": e["title"], "discount_pct": discount_pct, "max_uses": max_uses,
            "valid_until": until.isoformat()}


@tool(write=True)
def deactivate_promo_code(db: Db, code: str, staff_email: str) -> dict:
    """Switch off a promo code (a manager of the event's organiser); orders that used it keep their discount.

    Args:
        code: the promo code.
        staff_email: e-mail of a manager of the organiser.
    """
    p = db.one("SELECT * FROM promo_codes WHERE upper(code) = upper(?)", (code.strip(),),
               missing=f"No promo code {code!r}.")
    e = _event(db, p["event_id"])
    _staff(db, staff_email, e, ("manager",), "deactivate promo codes")
    if not p["active"]:
        raise ToolError(f"{p['code']} is already inactive.")
    db.execute("UPDATE promo_codes SET active = 0 WHERE id = ?", (p["id"],))
    return {"code": p["code"], "active": False, "uses": p["uses"]}
