"""Tools of the real_estate world: a property listings portal shared by several estate agencies.

Listings are named by their reference ("RE-10042"), agencies by their short code ("HRB") or name,
agents and clients (buyers and renters) by e-mail, and viewings, offers, enquiries, open houses,
saved searches and commissions by the ids the read tools return. Prices are whole US dollars (the
asking price for a sale, the monthly rent for a rental). Agents act with ``actor_email``; buyers and
renters act with ``client_email``. Only agents of the agency that owns a listing may change it.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, filters, like_any, like_contains, parse_day, parse_moment, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import iso_seconds as _ts
from awm.tooling import now_iso as _now

OPEN_LISTING = ("draft", "active", "under_offer")
LIVE_OFFER = ("submitted", "countered")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MAX_SAVED_SEARCHES = 5
MAX_PHOTOS = 20

ListingType = Literal["sale", "rent"]
PropertyType = Literal["house", "flat", "townhouse", "bungalow", "studio"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _moment(value: str, what: str) -> datetime:
    return parse_moment(value, what, "2026-04-20T14:30")


def _day(value: str, what: str) -> str:
    """A day as rows store it (``YYYY-MM-DD``), checked."""
    return parse_day(value, what, "2026-04-20").isoformat()


def _future_start(db: Db, starts_at: str, every: int, rule: str) -> datetime:
    """The ``starts_at`` of a new booking: on a multiple of ``every`` minutes (``rule`` says so) and in the future."""
    start = _moment(starts_at, "starts_at")
    if start.minute % every or start.second:
        raise ToolError(rule)
    if start <= db.now():
        raise ToolError(f"starts_at must be in the future (it is now {_now(db)}).")
    return start


def _agent(db: Db, email: str, what: str = "agent") -> dict[str, Any]:
    row = db.one("SELECT a.*, g.code AS agency_code, g.name AS agency_name FROM agents a "
                 "JOIN agencies g ON g.id = a.agency_id WHERE lower(a.email) = lower(?)", (email.strip(),),
                 missing=f"No {what} with e-mail {email!r}. Use find_agents to look agents up by name.")
    if not row["is_active"]:
        raise ToolError(f"{row['full_name']} ({row['email']}) no longer works at {row['agency_name']} and cannot "
                        "act on the portal; ask an active agent of the agency.")
    return row


def _client(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT * FROM clients WHERE lower(email) = lower(?)", (email.strip(),),
                  missing=f"No buyer or renter with e-mail {email!r}. Use find_clients to look people up by name.")


_LISTING_SQL = (
    "SELECT l.*, p.address, p.city, p.postcode, p.property_type, p.bedrooms, p.bathrooms, p.floor_area_sqm, "
    "p.year_built, g.code AS agency_code, g.name AS agency_name, a.full_name AS agent_name, a.email AS agent_email "
    "FROM listings l JOIN properties p ON p.id = l.property_id JOIN agencies g ON g.id = l.agency_id "
    "JOIN agents a ON a.id = l.agent_id WHERE upper(l.reference) = upper(?)")


def _listing(db: Db, reference: str) -> dict[str, Any]:
    return db.one(_LISTING_SQL, (reference.strip(),),
                  missing=f"No listing with reference {reference!r}. References look like 'RE-10042'; use "
                          "search_listings to find one by address or city.")


def _own_listing(db: Db, actor_email: str, reference: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The acting agent and the listing, which must belong to the agent's agency."""
    actor = _agent(db, actor_email, "acting agent")
    listing = _listing(db, reference)
    require_owner(listing, "agency_id", actor["agency_id"],
                  f"Listing {listing['reference']} belongs to {listing['agency_name']}; {actor['full_name']} works at "
                  f"{actor['agency_name']} and cannot change it. Only agents of the listing's own agency may edit it.")
    return actor, listing


def _agency(db: Db, agency: str) -> dict[str, Any]:
    return db.one("SELECT * FROM agencies WHERE upper(code) = upper(?) OR lower(name) = lower(?)",
                  (agency.strip(), agency.strip()),
                  missing=f"No agency with code or name {agency!r}. Use list_agencies to see them.")


def _agent_conflict(db: Db, agent_id: int, start: datetime, end: datetime,
                    skip_viewing: int | None = None) -> str | None:
    """Why the agent cannot take [start, end), or None when the slot is free and inside working hours."""
    if start.date() != end.date():
        return "it must start and end on the same day"
    hours = db.one("SELECT start_time, end_time FROM agent_availability WHERE agent_id = ? AND weekday = ?",
                   (agent_id, start.weekday()))
    if hours is None:
        return f"the agent does not work on {WEEKDAYS[start.weekday()]}s"
    if start.strftime("%H:%M") < hours["start_time"] or end.strftime("%H:%M") > hours["end_time"]:
        return (f"the agent works {hours['start_time']}-{hours['end_time']} on {WEEKDAYS[start.weekday()]}s, "
                "and the slot falls outside those hours")
    clash = db.one("SELECT id, starts_at, ends_at FROM viewings WHERE agent_id = ? AND status = 'scheduled' "
                   "AND starts_at < ? AND ends_at > ? AND id IS NOT ? ORDER BY starts_at LIMIT 1",
                   (agent_id, _ts(end), _ts(start), skip_viewing))
    if clash:
        return f"the agent already has viewing {clash['id']} from {clash['starts_at']} to {clash['ends_at']}"
    clash = db.one("SELECT id, starts_at, ends_at FROM open_houses WHERE agent_id = ? AND status = 'scheduled' "
                   "AND starts_at < ? AND ends_at > ? ORDER BY starts_at LIMIT 1", (agent_id, _ts(end), _ts(start)))
    if clash:
        return f"the agent is hosting open house {clash['id']} from {clash['starts_at']} to {clash['ends_at']}"
    return None


_LISTING_LINE_SQL = (
    "SELECT l.reference, l.status, l.listing_type, l.price, l.headline, p.address, p.city, p.property_type, "
    "p.bedrooms, g.code AS agency_code, a.email AS agent_email FROM listings l "
    "JOIN properties p ON p.id = l.property_id JOIN agencies g ON g.id = l.agency_id "
    "JOIN agents a ON a.id = l.agent_id ")  # the columns of _listing_out


def _reference(listing_id: int) -> str:
    """A listing's reference: "RE-" and 10000 plus its id."""
    return f"RE-{10000 + listing_id}"


def _listing_out(r: dict[str, Any]) -> dict[str, Any]:
    return {"reference": r["reference"], "status": r["status"], "listing_type": r["listing_type"],
            "price": r["price"], "headline": r["headline"], "address": r["address"], "city": r["city"],
            "property_type": r["property_type"], "bedrooms": r["bedrooms"], "agency": r["agency_code"],
            "agent_email": r["agent_email"]}


def _own_offer(db: Db, client_email: str, offer_id: int, hint: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The acting buyer and one of their own offers (``hint`` ends the refusal when it is not theirs)."""
    c = _client(db, client_email)
    refusal = f"{c['full_name']} has no offer with id {offer_id}; {hint}."
    o = db.one("SELECT * FROM offers WHERE id = ?", (offer_id,), missing=refusal)
    require_owner(o, "client_id", c["id"], refusal)
    return c, o


def _commission_cents(agency: dict[str, Any], listing_type: str, basis: int) -> int:
    """What the agency earns on a closed deal, in cents: its sale commission (basis points, rounded) on the
    agreed price, or its letting fee (a percentage of one month's rent)."""
    if listing_type == "sale":
        return (basis * agency["sale_commission_bp"] + 50) // 100
    return basis * agency["letting_fee_pct"]


def _reject_live_offers(db: Db, listing_id: int, agent_id: int, now: str, keep: int | None = None) -> int:
    return db.execute("UPDATE offers SET status = 'rejected', responded_at = ?, responded_by = ? "
                      "WHERE listing_id = ? AND status IN ('submitted', 'countered') AND id IS NOT ?",
                      (now, agent_id, listing_id, keep))


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def list_agencies(db: Db, city: str | None = None) -> list[dict]:
    """List the estate agencies on the portal with their codes, home city and fees (sale commission in
    percent of the agreed price, letting fee in percent of one month's rent).

    Args:
        city: only agencies based in this city.
    """
    rows = db.query("SELECT code, name, city, email, phone, sale_commission_bp, letting_fee_pct FROM agencies "
                    "WHERE (? IS NULL OR lower(city) = lower(?)) ORDER BY name", (city, city))
    return [{"code": r["code"], "name": r["name"], "city": r["city"], "email": r["email"], "phone": r["phone"],
             "sale_commission_pct": r["sale_commission_bp"] / 100, "letting_fee_pct": r["letting_fee_pct"]}
            for r in rows]


@tool
def find_agents(db: Db, query: str | None = None, agency: str | None = None, limit: int = 10) -> list[dict]:
    """Find agents by part of their name or e-mail, optionally within one agency.

    Args:
        query: words of the agent's name or e-mail, e.g. "Rosa".
        agency: an agency code or name, e.g. "HRB".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    agency_id = _agency(db, agency)["id"] if agency else None
    who, params = like_any((query or '').strip(), "a.full_name", "a.email")
    return db.query("SELECT a.full_name, a.email, a.phone, a.role, a.is_active, g.code AS agency, g.name AS agency_name "
                    f"FROM agents a JOIN agencies g ON g.id = a.agency_id WHERE {who} "
                    "AND (? IS NULL OR a.agency_id = ?) ORDER BY a.full_name, a.id LIMIT ?",
                    (*params, agency_id, agency_id, limit))


@tool
def get_agent_schedule(db: Db, agent_email: str, date: str) -> dict:
    """An agent's working hours on a date and what is already booked then (scheduled viewings and open
    houses). Use it to find a free slot before booking a viewing or an open house.

    Args:
        agent_email: the agent's e-mail.
        date: the day, YYYY-MM-DD.
    """
    day = _day(date, "date")
    a = db.one("SELECT id, full_name, email FROM agents WHERE lower(email) = lower(?)", (agent_email.strip(),),
               missing=f"No agent with e-mail {agent_email!r}. Use find_agents to look agents up by name.")
    wd = datetime.fromisoformat(day).weekday()
    hours = db.one("SELECT start_time, end_time FROM agent_availability WHERE agent_id = ? AND weekday = ?",
                   (a["id"], wd))
    viewings = db.query("SELECT v.id, v.starts_at, v.ends_at, l.reference FROM viewings v JOIN listings l "
                        "ON l.id = v.listing_id WHERE v.agent_id = ? AND v.status = 'scheduled' "
                        "AND substr(v.starts_at, 1, 10) = ? ORDER BY v.starts_at", (a["id"], day))
    houses = db.query("SELECT o.id, o.starts_at, o.ends_at, l.reference FROM open_houses o JOIN listings l "
                      "ON l.id = o.listing_id WHERE o.agent_id = ? AND o.status = 'scheduled' "
                      "AND substr(o.starts_at, 1, 10) = ? ORDER BY o.starts_at", (a["id"], day))
    return {"agent": a["full_name"], "email": a["email"], "date": day, "weekday": WEEKDAYS[wd],
            "working_hours": f"{hours['start_time']}-{hours['end_time']}" if hours else "not working",
            "viewings": viewings, "open_houses": houses}


@tool
def search_listings(db: Db, city: str | None = None, listing_type: ListingType | None = None,
                    status: Literal["draft", "active", "under_offer", "sold", "let", "withdrawn", "any"] = "active",
                    property_type: PropertyType | None = None, min_bedrooms: int | None = None,
                    max_price: int | None = None, text: str | None = None, agency: str | None = None,
                    limit: int = 10, offset: int = 0) -> list[dict]:
    """Search listings. By default only active listings are returned; pass status "any" for all.

    Args:
        city: only listings in this city.
        listing_type: "sale" or "rent".
        status: the listing status to match, or "any".
        property_type: house, flat, townhouse, bungalow or studio.
        min_bedrooms: at least this many bedrooms.
        max_price: at most this price in dollars (monthly rent for rentals).
        text: words in the street address or the headline, e.g. "Maple".
        agency: an agency code or name.
        limit: maximum number of results, 1 to 50.
        offset: results to skip, for paging.
    """
    _limit(limit)
    if offset < 0:
        raise ToolError("offset must be 0 or more")
    agency_id = _agency(db, agency)["id"] if agency else None
    t = like_contains(text.strip()) if text else None
    where, params = filters(("lower(p.city) = lower(?)", city), ("l.listing_type = ?", listing_type),
                            ("p.property_type = ?", property_type), ("p.bedrooms >= ?", min_bedrooms),
                            ("l.price <= ?", max_price), ("l.agency_id = ?", agency_id))
    rows = db.query(
        _LISTING_LINE_SQL + "WHERE (? = 'any' OR l.status = ?) "
        "AND (? IS NULL OR p.address LIKE ? ESCAPE '\\' OR l.headline LIKE ? ESCAPE '\\') "
        f"AND {where} ORDER BY l.id LIMIT ? OFFSET ?",
        (status, status, t, t, t, *params, limit, offset))
    return [_listing_out(r) for r in rows]


@tool
def get_listing(db: Db, reference: str) -> dict:
    """Everything about one listing: the property, its features and photos, the agent, the minimum
    acceptable offer (sales) and the price history.

    Args:
        reference: the listing reference, e.g. "RE-10042".
    """
    r = _listing(db, reference)
    out = _listing_out(r)
    out.update({
        "property_id": r["property_id"], "postcode": r["postcode"], "bathrooms": r["bathrooms"],
        "floor_area_sqm": r["floor_area_sqm"], "year_built": r["year_built"], "min_offer": r["min_offer"],
        "description": r["description"], "agency_name": r["agency_name"], "agent": r["agent_name"],
        "created_at": r["created_at"], "listed_at": r["listed_at"], "closed_at": r["closed_at"],
        "features": [x["feature"] for x in db.query(
            "SELECT feature FROM property_features WHERE property_id = ? ORDER BY feature", (r["property_id"],))],
        "photos": db.query("SELECT sort_order, filename, caption FROM property_photos WHERE property_id = ? "
                           "ORDER BY sort_order LIMIT 10", (r["property_id"],)),
        "price_history": db.query("SELECT pc.changed_at, pc.old_price, pc.new_price, pc.reason, a.email AS changed_by "
                                  "FROM price_changes pc JOIN agents a ON a.id = pc.changed_by "
                                  "WHERE pc.listing_id = ? ORDER BY pc.changed_at, pc.id", (r["id"],)),
    })
    return out


@tool
def find_properties(db: Db, agency: str | None = None, text: str | None = None, city: str | None = None,
                    limit: int = 10) -> list[dict]:
    """Find properties on an agency's books (listed or not), with their current listing if any.

    Args:
        agency: an agency code or name.
        text: words in the street address, e.g. "Juniper Lane".
        city: only properties in this city.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    agency_id = _agency(db, agency)["id"] if agency else None
    t = like_contains(text.strip()) if text else None
    where, params = filters(("p.agency_id = ?", agency_id), ("p.address LIKE ? ESCAPE '\\'", t),
                            ("lower(p.city) = lower(?)", city))
    return db.query(
        "SELECT p.id AS property_id, p.address, p.city, p.property_type, p.bedrooms, g.code AS agency, "
        "(SELECT COUNT(*) FROM property_photos ph WHERE ph.property_id = p.id) AS photos, "
        "(SELECT l.reference FROM listings l WHERE l.property_id = p.id ORDER BY l.id DESC LIMIT 1) AS latest_listing, "
        "(SELECT l.status FROM listings l WHERE l.property_id = p.id ORDER BY l.id DESC LIMIT 1) AS latest_status "
        f"FROM properties p JOIN agencies g ON g.id = p.agency_id WHERE {where} ORDER BY p.id LIMIT ?",
        (*params, limit))


@tool
def find_clients(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Find buyers and renters by part of their name or e-mail.

    Args:
        query: words of the person's name or e-mail.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "full_name", "email")
    return db.query(f"SELECT full_name, email, phone, client_type FROM clients WHERE {who} "
                    "ORDER BY full_name, id LIMIT ?", (*params, limit))


@tool
def get_client(db: Db, client_email: str) -> dict:
    """A buyer's or renter's profile with their saved searches, favourite listings and live offers.

    Args:
        client_email: the person's e-mail.
    """
    c = _client(db, client_email)
    return {
        "full_name": c["full_name"], "email": c["email"], "phone": c["phone"], "client_type": c["client_type"],
        "max_budget": c["max_budget"],
        "saved_searches": db.query("SELECT id, name, listing_type, city, property_type, min_bedrooms, max_price, "
                                   "alerts_enabled FROM saved_searches WHERE client_id = ? ORDER BY id", (c["id"],)),
        "favourites": [x["reference"] for x in db.query(
            "SELECT l.reference FROM favourites f JOIN listings l ON l.id = f.listing_id WHERE f.client_id = ? "
            "ORDER BY f.id LIMIT 30", (c["id"],))],
        "live_offers": db.query("SELECT o.id, l.reference, o.amount, o.status, o.counter_amount FROM offers o "
                                "JOIN listings l ON l.id = o.listing_id WHERE o.client_id = ? "
                                "AND o.status IN ('submitted', 'countered', 'accepted') ORDER BY o.id", (c["id"],)),
    }


@tool
def run_saved_search(db: Db, client_email: str, search_id: int, limit: int = 10) -> list[dict]:
    """The active listings that match one of a client's saved searches.

    Args:
        client_email: the e-mail of the client who saved the search.
        search_id: the saved search's id (see get_client).
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    c = _client(db, client_email)
    s = db.one("SELECT * FROM saved_searches WHERE id = ? AND client_id = ?", (search_id, c["id"]),
               missing=f"{c['full_name']} has no saved search with id {search_id}; get_client lists theirs.")
    where, params = filters(("lower(p.city) = lower(?)", s["city"]), ("p.property_type = ?", s["property_type"]),
                            ("l.price <= ?", s["max_price"]))
    rows = db.query(
        _LISTING_LINE_SQL + "WHERE l.status = 'active' AND l.listing_type = ? AND p.bedrooms >= ? "
        f"AND {where} ORDER BY l.price, l.id LIMIT ?",
        (s["listing_type"], s["min_bedrooms"], *params, limit))
    return [_listing_out(r) for r in rows]


@tool
def list_viewings(db: Db, listing_reference: str | None = None, client_email: str | None = None,
                  agent_email: str | None = None,
                  status: Literal["scheduled", "completed", "no_show", "cancelled"] | None = None,
                  date_from: str | None = None, date_to: str | None = None, limit: int = 20) -> list[dict]:
    """List viewings of a listing, of a client or of an agent (give at least one of the three).

    Args:
        listing_reference: the listing reference.
        client_email: the client's e-mail.
        agent_email: the agent's e-mail.
        status: only viewings with this status.
        date_from: only viewings on or after this date, YYYY-MM-DD.
        date_to: only viewings on or before this date, YYYY-MM-DD.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    if not (listing_reference or client_email or agent_email):
        raise ToolError("Give a listing_reference, a client_email or an agent_email.")
    lid = _listing(db, listing_reference)["id"] if listing_reference else None
    cid = _client(db, client_email)["id"] if client_email else None
    aid = db.one("SELECT id FROM agents WHERE lower(email) = lower(?)", (agent_email.strip(),),
                 missing=f"No agent with e-mail {agent_email!r}.")["id"] if agent_email else None
    d1 = _day(date_from, "date_from") if date_from else None
    d2 = _day(date_to, "date_to") if date_to else None
    where, params = filters(("v.listing_id = ?", lid), ("v.client_id = ?", cid), ("v.agent_id = ?", aid),
                            ("v.status = ?", status), ("substr(v.starts_at, 1, 10) >= ?", d1),
                            ("substr(v.starts_at, 1, 10) <= ?", d2))
    return db.query(
        "SELECT v.id, l.reference, p.address, c.full_name AS client, c.email AS client_email, a.email AS agent_email, "
        "v.starts_at, v.ends_at, v.status, v.feedback FROM viewings v JOIN listings l ON l.id = v.listing_id "
        "JOIN properties p ON p.id = l.property_id JOIN clients c ON c.id = v.client_id "
        f"JOIN agents a ON a.id = v.agent_id WHERE {where} ORDER BY v.starts_at, v.id LIMIT ?", (*params, limit))


@tool
def list_offers(db: Db, listing_reference: str,
                status: Literal["submitted", "countered", "accepted", "rejected", "withdrawn"] | None = None,
                limit: int = 20) -> list[dict]:
    """The offers made on a sale listing, newest first.

    Args:
        listing_reference: the listing reference.
        status: only offers with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    lid = _listing(db, listing_reference)["id"]
    return db.query(
        "SELECT o.id, c.full_name AS buyer, c.email AS buyer_email, o.amount, o.status, o.counter_amount, "
        "o.agreed_amount, o.conditions, o.submitted_at, o.responded_at FROM offers o JOIN clients c "
        "ON c.id = o.client_id WHERE o.listing_id = ? AND (? IS NULL OR o.status = ?) "
        "ORDER BY o.submitted_at DESC, o.id DESC LIMIT ?", (lid, status, status, limit))


@tool
def list_enquiries(db: Db, listing_reference: str | None = None, client_email: str | None = None,
                   status: Literal["open", "answered", "closed"] | None = None, limit: int = 20) -> list[dict]:
    """List enquiries about a listing or from a client (give at least one).

    Args:
        listing_reference: the listing reference.
        client_email: the client's e-mail.
        status: only enquiries with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    if not (listing_reference or client_email):
        raise ToolError("Give a listing_reference or a client_email.")
    lid = _listing(db, listing_reference)["id"] if listing_reference else None
    cid = _client(db, client_email)["id"] if client_email else None
    where, params = filters(("e.listing_id = ?", lid), ("e.client_id = ?", cid), ("e.status = ?", status))
    return db.query(
        "SELECT e.id, l.reference, c.full_name AS client, c.email AS client_email, e.subject, e.status, e.created_at, "
        "(SELECT COUNT(*) FROM messages m WHERE m.enquiry_id = e.id) AS messages FROM enquiries e "
        "JOIN listings l ON l.id = e.listing_id JOIN clients c ON c.id = e.client_id "
        f"WHERE {where} ORDER BY e.created_at DESC, e.id DESC LIMIT ?", (*params, limit))


@tool
def get_enquiry(db: Db, enquiry_id: int) -> dict:
    """One enquiry with its messages in order.

    Args:
        enquiry_id: the enquiry's id.
    """
    e = db.one("SELECT e.*, l.reference, c.full_name AS client, c.email AS client_email FROM enquiries e "
               "JOIN listings l ON l.id = e.listing_id JOIN clients c ON c.id = e.client_id WHERE e.id = ?",
               (enquiry_id,),
               missing=f"No enquiry with id {enquiry_id}. Use list_enquiries to find one.")
    msgs = db.query("SELECT m.sender_type, a.email AS agent_email, m.body, m.sent_at FROM messages m "
                    "LEFT JOIN agents a ON a.id = m.agent_id WHERE m.enquiry_id = ? ORDER BY m.sent_at, m.id LIMIT 30",
                    (enquiry_id,))
    return {"id": e["id"], "reference": e["reference"], "client": e["client"], "client_email": e["client_email"],
            "subject": e["subject"], "status": e["status"], "created_at": e["created_at"], "messages": msgs}


@tool
def list_open_houses(db: Db, listing_reference: str | None = None, city: str | None = None,
                     date_from: str | None = None, date_to: str | None = None,
                     status: Literal["scheduled", "completed", "cancelled", "any"] = "scheduled",
                     limit: int = 20) -> list[dict]:
    """List open houses with their capacity and the places already taken (RSVPs that are going, counting
    each party's size).

    Args:
        listing_reference: only open houses of this listing.
        city: only open houses in this city.
        date_from: on or after this date, YYYY-MM-DD.
        date_to: on or before this date, YYYY-MM-DD.
        status: only this status, or "any".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    lid = _listing(db, listing_reference)["id"] if listing_reference else None
    d1 = _day(date_from, "date_from") if date_from else None
    d2 = _day(date_to, "date_to") if date_to else None
    where, params = filters(("o.listing_id = ?", lid), ("lower(p.city) = lower(?)", city),
                            ("substr(o.starts_at, 1, 10) >= ?", d1), ("substr(o.starts_at, 1, 10) <= ?", d2))
    rows = db.query(
        "SELECT o.id, l.reference, p.address, p.city, a.email AS host_email, o.starts_at, o.ends_at, o.capacity, "
        "o.status, (SELECT COALESCE(SUM(r.party_size), 0) FROM open_house_rsvps r WHERE r.open_house_id = o.id "
        "AND r.status = 'going') AS places_taken FROM open_houses o JOIN listings l ON l.id = o.listing_id "
        "JOIN properties p ON p.id = l.property_id JOIN agents a ON a.id = o.agent_id "
        f"WHERE (? = 'any' OR o.status = ?) AND {where} ORDER BY o.starts_at, o.id LIMIT ?",
        (status, status, *params, limit))
    for r in rows:
        r["places_left"] = r["capacity"] - r["places_taken"]
    return rows


@tool
def list_commissions(db: Db, agency: str, status: Literal["pending", "invoiced", "paid"] | None = None,
                     limit: int = 20) -> list[dict]:
    """Commission records of an agency (one per sold or let listing), amounts in dollars.

    Args:
        agency: the agency code or name.
        status: only commissions with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    g = _agency(db, agency)
    rows = db.query(
        "SELECT c.id, l.reference, l.listing_type, a.email AS agent_email, c.basis_amount, c.amount_cents, c.status, "
        "c.created_at, c.invoiced_at, c.paid_at FROM commissions c JOIN listings l ON l.id = c.listing_id "
        "JOIN agents a ON a.id = c.agent_id WHERE c.agency_id = ? AND (? IS NULL OR c.status = ?) "
        "ORDER BY c.created_at DESC, c.id DESC LIMIT ?", (g["id"], status, status, limit))
    for r in rows:
        r["amount"] = r.pop("amount_cents") / 100
    return rows


# ----------------------------------------------------------------------------------------------
# write tools: listings
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_listing(db: Db, actor_email: str, property_id: int, listing_type: ListingType, price: int,
                   headline: str, description: str = "", min_offer: int | None = None) -> dict:
    """Create a draft listing for a property on the acting agent's agency's books; the acting agent
    becomes the listing agent. A property can have only one open listing (draft, active or under offer)
    at a time. Publish the draft with publish_listing.

    Args:
        actor_email: the e-mail of the agent creating the listing.
        property_id: the property's id (see find_properties).
        listing_type: "sale" or "rent".
        price: the asking price in whole dollars, or the monthly rent for a rental.
        headline: a short headline, e.g. "Bright two-bed flat near the park".
        description: the full description (needed before publishing).
        min_offer: for sales only, the lowest offer the seller will consider, in dollars (at most the price).
    """
    actor = _agent(db, actor_email, "acting agent")
    p = db.one("SELECT * FROM properties WHERE id = ?", (property_id,),
               missing=f"No property with id {property_id}. Use find_properties to look it up.")
    require_owner(p, "agency_id", actor["agency_id"],
                  f"Property {property_id} ({p['address']}) is not on {actor['agency_name']}'s books; an agent can "
                  "only list their own agency's properties.")
    if price <= 0:
        raise ToolError("price must be a positive number of dollars")
    if not headline.strip():
        raise ToolError("headline must not be empty")
    if min_offer is not None and (listing_type != "sale" or not 0 < min_offer <= price):
        raise ToolError("min_offer applies to sales only and must be between 1 and the asking price")
    current = db.one("SELECT reference, status FROM listings WHERE property_id = ? AND status IN "
                     "('draft', 'active', 'under_offer')", (property_id,))
    if current:
        raise ToolError(f"{p['address']} already has an open listing, {current['reference']} ({current['status']}); "
                        "update or withdraw it instead of creating another.")
    new_id = (db.value("SELECT MAX(id) FROM listings") or 0) + 1
    ref = _reference(new_id)
    now = _now(db)
    db.insert("listings", {"id": new_id, "reference": ref, "property_id": property_id, "agency_id": actor["agency_id"],
                           "agent_id": actor["id"], "listing_type": listing_type, "status": "draft", "price": price,
                           "min_offer": min_offer, "headline": headline.strip(), "description": description.strip(),
                           "created_at": now, "updated_at": now})
    return {"reference": ref, "status": "draft", "price": price, "listing_type": listing_type}


@tool(write=True)
def update_listing(db: Db, actor_email: str, reference: str, headline: str | None = None,
                   description: str | None = None, min_offer: int | None = None) -> dict:
    """Edit a draft or active listing's headline, description or minimum offer (sales). Only agents of
    the listing's own agency may edit it. Change the price with change_price.

    Args:
        actor_email: the e-mail of the agent making the change.
        reference: the listing reference.
        headline: the new headline.
        description: the new description.
        min_offer: the new minimum acceptable offer in dollars (sales only, at most the asking price).
    """
    actor, l = _own_listing(db, actor_email, reference)
    if l["status"] not in ("draft", "active"):
        raise ToolError(f"Listing {l['reference']} is {l['status']}; only draft or active listings can be edited.")
    if headline is None and description is None and min_offer is None:
        raise ToolError("Nothing to change: give a headline, a description or a min_offer.")
    if headline is not None and not headline.strip():
        raise ToolError("headline must not be empty")
    if min_offer is not None and (l["listing_type"] != "sale" or not 0 < min_offer <= l["price"]):
        raise ToolError(f"min_offer applies to sales only and must be between 1 and the asking price ({l['price']}).")
    db.execute("UPDATE listings SET headline = COALESCE(?, headline), description = COALESCE(?, description), "
               "min_offer = COALESCE(?, min_offer), updated_at = ? WHERE id = ?",
               (headline.strip() if headline is not None else None,
                description.strip() if description is not None else None, min_offer, _now(db), l["id"]))
    return _listing_out(_listing(db, l["reference"])) | {"min_offer": min_offer if min_offer is not None else l["min_offer"]}


@tool(write=True)
def publish_listing(db: Db, actor_email: str, reference: str) -> dict:
    """Publish a draft listing (draft -> active). The property needs at least one photo and the listing
    a description.

    Args:
        actor_email: the e-mail of an agent of the listing's agency.
        reference: the listing reference.
    """
    actor, l = _own_listing(db, actor_email, reference)
    if l["status"] != "draft":
        raise ToolError(f"Listing {l['reference']} is {l['status']}; only drafts can be published.")
    if not db.value("SELECT COUNT(*) FROM property_photos WHERE property_id = ?", (l["property_id"],)):
        raise ToolError(f"{l['address']} has no photos yet; add one with add_property_photo before publishing.")
    if not l["description"].strip():
        raise ToolError("The listing has no description; add one with update_listing before publishing.")
    now = _now(db)
    db.execute("UPDATE listings SET status = 'active', listed_at = ?, updated_at = ? WHERE id = ?", (now, now, l["id"]))
    return {"reference": l["reference"], "status": "active", "listed_at": now}


@tool(write=True)
def change_price(db: Db, actor_email: str, reference: str, new_price: int, reason: str) -> dict:
    """Change the asking price (or monthly rent) of a draft or active listing and record it in the
    listing's price history. The minimum offer may not end up above the price: lower it first.

    Args:
        actor_email: the e-mail of an agent of the listing's agency.
        reference: the listing reference.
        new_price: the new price in whole dollars.
        reason: why the price changes, e.g. "Price reduced after feedback".
    """
    actor, l = _own_listing(db, actor_email, reference)
    if l["status"] not in ("draft", "active"):
        raise ToolError(f"Listing {l['reference']} is {l['status']}; the price can only change while it is draft or "
                        "active.")
    if new_price <= 0:
        raise ToolError("new_price must be a positive number of dollars")
    if new_price == l["price"]:
        raise ToolError(f"The price is already {new_price}.")
    if l["min_offer"] is not None and l["min_offer"] > new_price:
        raise ToolError(f"The minimum offer ({l['min_offer']}) is above {new_price}; lower it with update_listing "
                        "first.")
    now = _now(db)
    db.insert("price_changes", {"listing_id": l["id"], "old_price": l["price"], "new_price": new_price,
                                "changed_by": actor["id"], "reason": reason.strip(), "changed_at": now})
    db.execute("UPDATE listings SET price = ?, updated_at = ? WHERE id = ?", (new_price, now, l["id"]))
    return {"reference": l["reference"], "old_price": l["price"], "new_price": new_price}


@tool(write=True)
def withdraw_listing(db: Db, actor_email: str, reference: str) -> dict:
    """Take a draft, active or under-offer listing off the market (-> withdrawn). Every offer still
    open or accepted on it is rejected, its scheduled viewings and open houses are cancelled.

    Args:
        actor_email: the e-mail of an agent of the listing's agency.
        reference: the listing reference.
    """
    actor, l = _own_listing(db, actor_email, reference)
    if l["status"] not in OPEN_LISTING:
        raise ToolError(f"Listing {l['reference']} is already {l['status']}.")
    now = _now(db)
    offers = db.execute("UPDATE offers SET status = 'rejected', agreed_amount = NULL, responded_at = ?, "
                        "responded_by = ? WHERE listing_id = ? AND status IN ('submitted', 'countered', 'accepted')",
                        (now, actor["id"], l["id"]))
    viewings = db.execute("UPDATE viewings SET status = 'cancelled' WHERE listing_id = ? AND status = 'scheduled'",
                          (l["id"],))
    houses = db.execute("UPDATE open_houses SET status = 'cancelled' WHERE listing_id = ? AND status = 'scheduled'",
                        (l["id"],))
    db.execute("UPDATE listings SET status = 'withdrawn', closed_at = ?, updated_at = ? WHERE id = ?",
               (now, now, l["id"]))
    return {"reference": l["reference"], "status": "withdrawn", "offers_rejected": offers,
            "viewings_cancelled": viewings, "open_houses_cancelled": houses}


@tool(write=True)
def add_property_photo(db: Db, actor_email: str, property_id: int, filename: str, caption: str = "",
                       width_px: int = 1600, height_px: int = 1200) -> dict:
    """Record a new photo of a property on the acting agent's agency's books; it goes after the existing
    photos. Photos must be .jpg, .jpeg, .png or .webp, at least 800x600 pixels, at most 20 per property.

    Args:
        actor_email: the e-mail of an agent of the property's agency.
        property_id: the property's id.
        filename: the image file name, e.g. "kitchen.jpg".
        caption: a short caption.
        width_px: width in pixels.
        height_px: height in pixels.
    """
    actor = _agent(db, actor_email, "acting agent")
    p = db.one("SELECT * FROM properties WHERE id = ?", (property_id,),
               missing=f"No property with id {property_id}. Use find_properties to look it up.")
    require_owner(p, "agency_id", actor["agency_id"], f"Property {property_id} is not on {actor['agency_name']}'s books.")
    name = filename.strip()
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*\.(jpe?g|png|webp)", name, re.I):
        raise ToolError("filename must be a plain file name ending in .jpg, .jpeg, .png or .webp, e.g. 'garden.jpg'")
    if width_px < 800 or height_px < 600:
        raise ToolError("Photos must be at least 800x600 pixels.")
    db.none("SELECT 1 FROM property_photos WHERE property_id = ? AND lower(filename) = lower(?)", (property_id, name),
            found=f"{p['address']} already has a photo named {name!r}.")
    count = db.value("SELECT COUNT(*) FROM property_photos WHERE property_id = ?", (property_id,))
    if count >= MAX_PHOTOS:
        raise ToolError(f"{p['address']} already has {MAX_PHOTOS} photos, the most allowed.")
    order = (db.value("SELECT MAX(sort_order) FROM property_photos WHERE property_id = ?", (property_id,)) or 0) + 1
    db.insert("property_photos", {"property_id": property_id, "filename": name, "caption": caption.strip(),
                                  "sort_order": order, "width_px": width_px, "height_px": height_px,
                                  "uploaded_at": _now(db)})
    return {"property_id": property_id, "filename": name, "sort_order": order}


@tool(write=True)
def complete_listing(db: Db, actor_email: str, reference: str, tenant_email: str | None = None) -> dict:
    """Close a deal. A sale listing that is under offer becomes sold to the buyer of its accepted offer at
    the agreed amount; an active rental becomes let to the tenant named. A pending commission is
    recorded for the agency: its sale commission rate on the agreed amount, or its letting fee (a
    percentage of one month's rent).

    Args:
        actor_email: the e-mail of an agent of the listing's agency.
        reference: the listing reference.
        tenant_email: rentals only, the e-mail of the renter taking the tenancy.
    """
    actor, l = _own_listing(db, actor_email, reference)
    g = db.one("SELECT * FROM agencies WHERE id = ?", (l["agency_id"],))
    now = _now(db)
    if l["listing_type"] == "sale":
        if tenant_email:
            raise ToolError("tenant_email is only for rentals; a sale completes with the accepted offer's buyer.")
        if l["status"] != "under_offer":
            raise ToolError(f"Listing {l['reference']} is {l['status']}; a sale can only complete once an offer has "
                            "been accepted (status under_offer).")
        offer = db.one("SELECT * FROM offers WHERE listing_id = ? AND status = 'accepted'", (l["id"],),
                       missing=f"Listing {l['reference']} has no accepted offer.")
        client_id, basis = offer["client_id"], offer["agreed_amount"]
        new_status = "sold"
    else:
        if l["status"] != "active":
            raise ToolError(f"Listing {l['reference']} is {l['status']}; only an active rental can be let.")
        if not tenant_email:
            raise ToolError("Give tenant_email: the renter taking the tenancy.")
        tenant = _client(db, tenant_email)
        if tenant["client_type"] == "buyer":
            raise ToolError(f"{tenant['full_name']} is registered as a buyer only, not a renter.")
        client_id, basis = tenant["id"], l["price"]
        new_status = "let"
    amount = _commission_cents(g, l["listing_type"], basis)
    db.execute("UPDATE listings SET status = ?, closed_at = ?, closed_client_id = ?, updated_at = ? WHERE id = ?",
               (new_status, now, client_id, now, l["id"]))
    _reject_live_offers(db, l["id"], actor["id"], now)
    db.execute("UPDATE viewings SET status = 'cancelled' WHERE listing_id = ? AND status = 'scheduled' "
               "AND starts_at > ?", (l["id"], now))
    db.execute("UPDATE open_houses SET status = 'cancelled' WHERE listing_id = ? AND status = 'scheduled' "
               "AND starts_at > ?", (l["id"], now))
    cid = db.insert("commissions", {"listing_id": l["id"], "agency_id": l["agency_id"], "agent_id": l["agent_id"],
                                    "basis_amount": basis, "amount_cents": amount, "status": "pending",
                                    "created_at": now})
    return {"reference": l["reference"], "status": new_status, "commission_id": cid, "commission": amount / 100}


@tool(write=True)
def update_commission_status(db: Db, actor_email: str, commission_id: int,
                             status: Literal["invoiced", "paid"]) -> dict:
    """Move a commission forward: pending -> invoiced -> paid, one step at a time. Only a manager of the
    agency that earned it may do this.

    Args:
        actor_email: the e-mail of a manager of the agency.
        commission_id: the commission's id (see list_commissions).
        status: "invoiced" or "paid".
    """
    actor = _agent(db, actor_email, "acting agent")
    c = db.one("SELECT * FROM commissions WHERE id = ?", (commission_id,),
               missing=f"No commission with id {commission_id}. Use list_commissions to find it.")
    require_owner(c, "agency_id", actor["agency_id"], "That commission belongs to another agency.")
    if actor["role"] != "manager":
        raise ToolError(f"{actor['full_name']} is not a manager; only a manager of {actor['agency_name']} can "
                        "invoice or mark commissions paid.")
    step = {"pending": "invoiced", "invoiced": "paid"}
    if step.get(c["status"]) != status:
        raise ToolError(f"Commission {commission_id} is {c['status']}; it can only move "
                        f"{c['status']} -> {step.get(c['status'], 'nothing (already paid)')}.")
    now = _now(db)
    if status == "invoiced":
        db.execute("UPDATE commissions SET status = 'invoiced', invoiced_at = ? WHERE id = ?", (now, commission_id))
    else:
        db.execute("UPDATE commissions SET status = 'paid', paid_at = ? WHERE id = ?", (now, commission_id))
    return {"commission_id": commission_id, "status": status}


# ----------------------------------------------------------------------------------------------
# write tools: viewings and open houses
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def schedule_viewing(db: Db, client_email: str, reference: str, starts_at: str,
                     duration_minutes: Literal[30, 45, 60] = 30) -> dict:
    """Book a viewing of an active listing for a client with the listing's agent. The slot must start on
    a quarter hour in the future, fit the agent's working hours that day and not overlap the agent's
    other viewings or open houses, nor the client's other viewings. A client can hold only one
    scheduled viewing per listing.

    Args:
        client_email: the e-mail of the buyer or renter.
        reference: the listing reference.
        starts_at: the start, YYYY-MM-DDTHH:MM, e.g. "2026-04-20T14:30".
        duration_minutes: 30, 45 or 60.
    """
    c = _client(db, client_email)
    l = _listing(db, reference)
    if l["status"] != "active":
        raise ToolError(f"Listing {l['reference']} is {l['status']}; viewings can only be booked on active listings.")
    start = _future_start(db, starts_at, 15, "Viewings start on the quarter hour (:00, :15, :30 or :45).")
    end = start + timedelta(minutes=duration_minutes)
    db.none("SELECT 1 FROM viewings WHERE listing_id = ? AND client_id = ? AND status = 'scheduled'",
            (l["id"], c["id"]),
            found=f"{c['full_name']} already has a viewing of {l['reference']} scheduled; reschedule by cancelling it "
                  "first.")
    why = _agent_conflict(db, l["agent_id"], start, end)
    if why:
        raise ToolError(f"{l['agent_name']} cannot show {l['reference']} then: {why}. Use get_agent_schedule to pick "
                        "a free slot.")
    mine = db.one("SELECT id, starts_at FROM viewings WHERE client_id = ? AND status = 'scheduled' AND starts_at < ? "
                  "AND ends_at > ?", (c["id"], _ts(end), _ts(start)))
    if mine:
        raise ToolError(f"{c['full_name']} already has viewing {mine['id']} at {mine['starts_at']} overlapping that "
                        "slot.")
    vid = db.insert("viewings", {"listing_id": l["id"], "client_id": c["id"], "agent_id": l["agent_id"],
                                 "starts_at": _ts(start), "ends_at": _ts(end), "status": "scheduled",
                                 "created_at": _now(db)})
    return {"viewing_id": vid, "reference": l["reference"], "starts_at": _ts(start), "ends_at": _ts(end),
            "agent_email": l["agent_email"]}


@tool(write=True)
def cancel_viewing(db: Db, actor_email: str, viewing_id: int) -> dict:
    """Cancel a scheduled viewing that has not started. The client who booked it or an agent of the
    listing's agency may cancel.

    Args:
        actor_email: the e-mail of the client who booked it, or of an agent of the listing's agency.
        viewing_id: the viewing's id.
    """
    v = db.one("SELECT v.*, l.agency_id, l.reference FROM viewings v JOIN listings l ON l.id = v.listing_id "
               "WHERE v.id = ?", (viewing_id,),
               missing=f"No viewing with id {viewing_id}. Use list_viewings to find it.")
    c = db.one("SELECT id FROM clients WHERE lower(email) = lower(?)", (actor_email.strip(),))
    a = db.one("SELECT id, agency_id, is_active FROM agents WHERE lower(email) = lower(?)", (actor_email.strip(),))
    if not ((c and c["id"] == v["client_id"]) or (a and a["is_active"] and a["agency_id"] == v["agency_id"])):
        raise ToolError(f"{actor_email} may not cancel viewing {viewing_id}: only the client who booked it or an agent "
                        "of the listing's agency can.")
    if v["status"] != "scheduled":
        raise ToolError(f"Viewing {viewing_id} is {v['status']}, not scheduled.")
    if v["starts_at"] <= _now(db):
        raise ToolError(f"Viewing {viewing_id} has already started; record its outcome with complete_viewing.")
    db.execute("UPDATE viewings SET status = 'cancelled' WHERE id = ?", (viewing_id,))
    return {"viewing_id": viewing_id, "reference": v["reference"], "status": "cancelled"}


@tool(write=True)
def complete_viewing(db: Db, actor_email: str, viewing_id: int, outcome: Literal["completed", "no_show"],
                     feedback: str = "") -> dict:
    """Record how a scheduled viewing that has already started went: completed (with optional feedback) or
    no_show. Only the viewing's agent or a manager of its agency may record it.

    Args:
        actor_email: the e-mail of the viewing's agent or of a manager of the agency.
        viewing_id: the viewing's id.
        outcome: "completed" or "no_show".
        feedback: what the client said, e.g. "Liked the garden, worried about traffic".
    """
    actor = _agent(db, actor_email, "acting agent")
    v = db.one("SELECT v.*, l.agency_id FROM viewings v JOIN listings l ON l.id = v.listing_id WHERE v.id = ?",
               (viewing_id,),
               missing=f"No viewing with id {viewing_id}. Use list_viewings to find it.")
    if not (actor["id"] == v["agent_id"] or (actor["role"] == "manager" and actor["agency_id"] == v["agency_id"])):
        raise ToolError(f"Only the viewing's own agent or a manager of its agency can record viewing {viewing_id}.")
    if v["status"] != "scheduled":
        raise ToolError(f"Viewing {viewing_id} is already {v['status']}.")
    if v["starts_at"] > _now(db):
        raise ToolError(f"Viewing {viewing_id} starts at {v['starts_at']}, in the future; it cannot be recorded yet.")
    db.execute("UPDATE viewings SET status = ?, feedback = ? WHERE id = ?", (outcome, feedback.strip(), viewing_id))
    return {"viewing_id": viewing_id, "status": outcome}


@tool(write=True)
def schedule_open_house(db: Db, actor_email: str, reference: str, starts_at: str, duration_minutes: int,
                        capacity: int) -> dict:
    """Schedule an open house for an active listing, hosted by the acting agent (of the listing's
    agency). It must start on the hour or half hour in the future, last 60 to 240 minutes in steps of 30,
    fit the host's working hours and not overlap the host's viewings or other open houses. A listing has
    at most one open house per day.

    Args:
        actor_email: the e-mail of the hosting agent.
        reference: the listing reference.
        starts_at: the start, YYYY-MM-DDTHH:MM.
        duration_minutes: 60 to 240, a multiple of 30.
        capacity: how many visitors may come (1 to 60), counting each party's size.
    """
    actor, l = _own_listing(db, actor_email, reference)
    if l["status"] != "active":
        raise ToolError(f"Listing {l['reference']} is {l['status']}; open houses are only for active listings.")
    start = _future_start(db, starts_at, 30, "Open houses start on the hour or half hour.")
    if not (60 <= duration_minutes <= 240 and duration_minutes % 30 == 0):
        raise ToolError("duration_minutes must be 60 to 240, a multiple of 30.")
    if not 1 <= capacity <= 60:
        raise ToolError("capacity must be between 1 and 60.")
    end = start + timedelta(minutes=duration_minutes)
    db.none("SELECT 1 FROM open_houses WHERE listing_id = ? AND status = 'scheduled' AND substr(starts_at, 1, 10) = ?",
            (l["id"], start.date().isoformat()),
            found=f"{l['reference']} already has an open house on {start.date().isoformat()}.")
    why = _agent_conflict(db, actor["id"], start, end)
    if why:
        raise ToolError(f"{actor['full_name']} cannot host then: {why}. Use get_agent_schedule to pick a free slot.")
    oid = db.insert("open_houses", {"listing_id": l["id"], "agent_id": actor["id"], "starts_at": _ts(start),
                                    "ends_at": _ts(end), "capacity": capacity, "status": "scheduled",
                                    "created_at": _now(db)})
    return {"open_house_id": oid, "reference": l["reference"], "starts_at": _ts(start), "ends_at": _ts(end),
            "capacity": capacity}


@tool(write=True)
def rsvp_open_house(db: Db, client_email: str, open_house_id: int, party_size: int = 1) -> dict:
    """Reserve places at a scheduled open house that has not started. The places taken (each going
    party's size) may not exceed its capacity; one RSVP per client (a cancelled one is re-activated).

    Args:
        client_email: the e-mail of the buyer or renter.
        open_house_id: the open house's id (see list_open_houses).
        party_size: how many people are coming, 1 to 4.
    """
    c = _client(db, client_email)
    o = db.one("SELECT * FROM open_houses WHERE id = ?", (open_house_id,),
               missing=f"No open house with id {open_house_id}. Use list_open_houses to find one.")
    if o["status"] != "scheduled" or o["starts_at"] <= _now(db):
        raise ToolError(f"Open house {open_house_id} is {o['status']} and starts {o['starts_at']}; RSVPs are only "
                        "taken for scheduled open houses that have not started.")
    if not 1 <= party_size <= 4:
        raise ToolError("party_size must be between 1 and 4.")
    mine = db.one("SELECT * FROM open_house_rsvps WHERE open_house_id = ? AND client_id = ?", (open_house_id, c["id"]))
    if mine and mine["status"] == "going":
        raise ToolError(f"{c['full_name']} is already going to open house {open_house_id} "
                        f"(party of {mine['party_size']}).")
    taken = db.value("SELECT COALESCE(SUM(party_size), 0) FROM open_house_rsvps WHERE open_house_id = ? "
                     "AND status = 'going'", (open_house_id,))
    if taken + party_size > o["capacity"]:
        raise ToolError(f"Open house {open_house_id} has only {o['capacity'] - taken} place(s) left; a party of "
                        f"{party_size} does not fit.")
    if mine:
        db.execute("UPDATE open_house_rsvps SET status = 'going', party_size = ?, created_at = ? WHERE id = ?",
                   (party_size, _now(db), mine["id"]))
    else:
        db.insert("open_house_rsvps", {"open_house_id": open_house_id, "client_id": c["id"], "party_size": party_size,
                                       "status": "going", "created_at": _now(db)})
    return {"open_house_id": open_house_id, "party_size": party_size,
            "places_left": o["capacity"] - taken - party_size}


# ----------------------------------------------------------------------------------------------
# write tools: offers
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def submit_offer(db: Db, client_email: str, reference: str, amount: int, conditions: str = "") -> dict:
    """Make an offer on an active sale listing. The amount must be at least the listing's minimum offer
    (when it has one). A buyer may hold only one open offer (submitted or countered) per listing.

    Args:
        client_email: the e-mail of the buyer.
        reference: the listing reference.
        amount: the offer in whole dollars.
        conditions: optional conditions, e.g. "Subject to survey".
    """
    c = _client(db, client_email)
    l = _listing(db, reference)
    if l["listing_type"] != "sale":
        raise ToolError(f"{l['reference']} is a rental; offers are only for sale listings.")
    if l["status"] != "active":
        raise ToolError(f"Listing {l['reference']} is {l['status']}; offers are only taken on active listings.")
    if c["client_type"] == "renter":
        raise ToolError(f"{c['full_name']} is registered as a renter only and cannot make purchase offers.")
    if amount <= 0:
        raise ToolError("amount must be a positive number of dollars")
    if l["min_offer"] is not None and amount < l["min_offer"]:
        raise ToolError(f"The seller will not consider offers below {l['min_offer']} dollars on {l['reference']}.")
    live = db.one("SELECT id, amount, status FROM offers WHERE listing_id = ? AND client_id = ? "
                  "AND status IN ('submitted', 'countered')", (l["id"], c["id"]))
    if live:
        raise ToolError(f"{c['full_name']} already has offer {live['id']} ({live['amount']}, {live['status']}) on "
                        f"{l['reference']}; withdraw it first to make a new one.")
    oid = db.insert("offers", {"listing_id": l["id"], "client_id": c["id"], "amount": amount, "status": "submitted",
                               "conditions": conditions.strip(), "submitted_at": _now(db)})
    return {"offer_id": oid, "reference": l["reference"], "amount": amount, "status": "submitted"}


@tool(write=True)
def respond_to_offer(db: Db, actor_email: str, offer_id: int, decision: Literal["accept", "reject", "counter"],
                     counter_amount: int | None = None) -> dict:
    """Answer a buyer's offer as an agent of the listing's agency. accept (a submitted offer, while the
    listing is active): the offer is accepted at its amount, the listing goes under offer and every other
    open offer on it is rejected; only one offer per listing can be accepted. reject: a submitted or
    countered offer. counter: a submitted offer, with counter_amount above the offer and at most the
    asking price; the buyer then accepts the counter or withdraws.

    Args:
        actor_email: the e-mail of an agent of the listing's agency.
        offer_id: the offer's id (see list_offers).
        decision: "accept", "reject" or "counter".
        counter_amount: for counter only, the amount proposed to the buyer, in dollars.
    """
    actor = _agent(db, actor_email, "acting agent")
    o = db.one("SELECT * FROM offers WHERE id = ?", (offer_id,),
               missing=f"No offer with id {offer_id}. Use list_offers with the listing reference.")
    l = db.one("SELECT l.*, g.name AS agency_name FROM listings l JOIN agencies g ON g.id = l.agency_id "
               "WHERE l.id = ?", (o["listing_id"],))
    require_owner(l, "agency_id", actor["agency_id"],
                  f"Offer {offer_id} is on a {l['agency_name']} listing; {actor['full_name']} cannot answer it.")
    now = _now(db)
    if decision != "counter" and counter_amount is not None:
        raise ToolError("counter_amount is only used with decision 'counter'.")
    if decision == "accept":
        if o["status"] != "submitted":
            raise ToolError(f"Offer {offer_id} is {o['status']}; only a submitted offer can be accepted (a countered "
                            "offer is accepted by the buyer).")
        if l["status"] != "active":
            raise ToolError(f"Listing {l['reference']} is {l['status']}; an offer can only be accepted while it is "
                            "active (one accepted offer per listing).")
        db.execute("UPDATE offers SET status = 'accepted', agreed_amount = amount, responded_at = ?, responded_by = ? "
                   "WHERE id = ?", (now, actor["id"], offer_id))
        rejected = _reject_live_offers(db, l["id"], actor["id"], now, keep=offer_id)
        db.execute("UPDATE listings SET status = 'under_offer', updated_at = ? WHERE id = ?", (now, l["id"]))
        return {"offer_id": offer_id, "status": "accepted", "agreed_amount": o["amount"],
                "other_offers_rejected": rejected, "listing_status": "under_offer"}
    if decision == "reject":
        if o["status"] not in LIVE_OFFER:
            raise ToolError(f"Offer {offer_id} is {o['status']}; only submitted or countered offers can be rejected.")
        db.execute("UPDATE offers SET status = 'rejected', responded_at = ?, responded_by = ? WHERE id = ?",
                   (now, actor["id"], offer_id))
        return {"offer_id": offer_id, "status": "rejected"}
    if o["status"] != "submitted":
        raise ToolError(f"Offer {offer_id} is {o['status']}; only a submitted offer can be countered.")
    if l["status"] != "active":
        raise ToolError(f"Listing {l['reference']} is {l['status']}; counter-offers are only made on active listings.")
    if counter_amount is None or not o["amount"] < counter_amount <= l["price"]:
        raise ToolError(f"counter_amount must be above the offer ({o['amount']}) and at most the asking price "
                        f"({l['price']}).")
    db.execute("UPDATE offers SET status = 'countered', counter_amount = ?, responded_at = ?, responded_by = ? "
               "WHERE id = ?", (counter_amount, now, actor["id"], offer_id))
    return {"offer_id": offer_id, "status": "countered", "counter_amount": counter_amount}


@tool(write=True)
def accept_counter_offer(db: Db, client_email: str, offer_id: int) -> dict:
    """As the buyer, accept the agent's counter to your offer: the offer is accepted at the counter
    amount, the listing goes under offer and the other open offers on it are rejected. The listing
    must still be active.

    Args:
        client_email: the e-mail of the buyer who made the offer.
        offer_id: the offer's id.
    """
    c, o = _own_offer(db, client_email, offer_id, "get_client lists their live offers")
    if o["status"] != "countered":
        raise ToolError(f"Offer {offer_id} is {o['status']}; only a countered offer can be accepted by the buyer.")
    l = db.one("SELECT * FROM listings WHERE id = ?", (o["listing_id"],))
    if l["status"] != "active":
        raise ToolError(f"Listing {l['reference']} is {l['status']}; the counter can no longer be accepted.")
    now = _now(db)
    db.execute("UPDATE offers SET status = 'accepted', agreed_amount = counter_amount WHERE id = ?", (offer_id,))
    _reject_live_offers(db, l["id"], l["agent_id"], now, keep=offer_id)
    db.execute("UPDATE listings SET status = 'under_offer', updated_at = ? WHERE id = ?", (now, l["id"]))
    return {"offer_id": offer_id, "status": "accepted", "agreed_amount": o["counter_amount"]}


@tool(write=True)
def withdraw_offer(db: Db, client_email: str, offer_id: int) -> dict:
    """As the buyer, withdraw your own offer (submitted, countered or accepted). Withdrawing an accepted
    offer puts the listing back on the market (under offer -> active).

    Args:
        client_email: the e-mail of the buyer who made the offer.
        offer_id: the offer's id.
    """
    c, o = _own_offer(db, client_email, offer_id, "only your own offers can be withdrawn")
    if o["status"] not in ("submitted", "countered", "accepted"):
        raise ToolError(f"Offer {offer_id} is already {o['status']}.")
    l = db.one("SELECT * FROM listings WHERE id = ?", (o["listing_id"],))
    if o["status"] == "accepted" and l["status"] != "under_offer":
        raise ToolError(f"Listing {l['reference']} is {l['status']}; the deal can no longer be withdrawn from.")
    now = _now(db)
    db.execute("UPDATE offers SET status = 'withdrawn', agreed_amount = NULL, responded_at = COALESCE(responded_at, ?) "
               "WHERE id = ?", (now, offer_id))
    relisted = False
    if o["status"] == "accepted":
        db.execute("UPDATE listings SET status = 'active', updated_at = ? WHERE id = ?", (now, l["id"]))
        relisted = True
    return {"offer_id": offer_id, "status": "withdrawn", "listing_back_on_market": relisted}


# ----------------------------------------------------------------------------------------------
# write tools: clients
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def add_favourite(db: Db, client_email: str, reference: str) -> dict:
    """Save an active or under-offer listing to a client's favourites.

    Args:
        client_email: the client's e-mail.
        reference: the listing reference.
    """
    c = _client(db, client_email)
    l = _listing(db, reference)
    if l["status"] not in ("active", "under_offer"):
        raise ToolError(f"Listing {l['reference']} is {l['status']}; only listings on the market can be favourited.")
    db.none("SELECT 1 FROM favourites WHERE client_id = ? AND listing_id = ?", (c["id"], l["id"]),
            found=f"{l['reference']} is already in {c['full_name']}'s favourites.")
    db.insert("favourites", {"client_id": c["id"], "listing_id": l["id"], "created_at": _now(db)})
    return {"reference": l["reference"], "favourited": True}


@tool(write=True)
def create_saved_search(db: Db, client_email: str, name: str, listing_type: ListingType, city: str | None = None,
                        property_type: PropertyType | None = None, min_bedrooms: int = 0,
                        max_price: int | None = None, alerts_enabled: bool = True) -> dict:
    """Save a search for a client, with e-mail alerts on or off. Names are unique per client; a client
    can keep at most 5 saved searches.

    Args:
        client_email: the client's e-mail.
        name: a name for the search, e.g. "Family homes in Denver".
        listing_type: "sale" or "rent".
        city: only this city.
        property_type: only this property type.
        min_bedrooms: at least this many bedrooms (0 to 10).
        max_price: at most this price in dollars (monthly rent for rentals).
        alerts_enabled: send alerts for new matches.
    """
    c = _client(db, client_email)
    if not name.strip():
        raise ToolError("name must not be empty")
    if not 0 <= min_bedrooms <= 10:
        raise ToolError("min_bedrooms must be between 0 and 10")
    if max_price is not None and max_price <= 0:
        raise ToolError("max_price must be positive")
    db.none("SELECT 1 FROM saved_searches WHERE client_id = ? AND lower(name) = lower(?)", (c["id"], name.strip()),
            found=f"{c['full_name']} already has a saved search called {name.strip()!r}.")
    if db.value("SELECT COUNT(*) FROM saved_searches WHERE client_id = ?", (c["id"],)) >= MAX_SAVED_SEARCHES:
        raise ToolError(f"{c['full_name']} already has {MAX_SAVED_SEARCHES} saved searches, the most allowed.")
    if city is not None and not db.value("SELECT 1 FROM properties WHERE lower(city) = lower(?)", (city.strip(),)):
        raise ToolError(f"No properties are listed in {city!r}; check the city's spelling.")
    sid = db.insert("saved_searches", {"client_id": c["id"], "name": name.strip(), "listing_type": listing_type,
                                       "city": city.strip() if city else None, "property_type": property_type,
                                       "min_bedrooms": min_bedrooms, "max_price": max_price,
                                       "alerts_enabled": int(alerts_enabled), "created_at": _now(db)})
    return {"search_id": sid, "name": name.strip()}


@tool(write=True)
def send_enquiry(db: Db, client_email: str, reference: str, subject: str, message: str) -> dict:
    """Send the listing's agency a question about an active or under-offer listing; opens an enquiry.

    Args:
        client_email: the client's e-mail.
        reference: the listing reference.
        subject: a short subject line.
        message: the question.
    """
    c = _client(db, client_email)
    l = _listing(db, reference)
    if l["status"] not in ("active", "under_offer"):
        raise ToolError(f"Listing {l['reference']} is {l['status']}; enquiries are only for listings on the market.")
    if not subject.strip() or not message.strip():
        raise ToolError("subject and message must not be empty")
    now = _now(db)
    eid = db.insert("enquiries", {"listing_id": l["id"], "client_id": c["id"], "subject": subject.strip()[:200],
                                  "status": "open", "created_at": now, "updated_at": now})
    db.insert("messages", {"enquiry_id": eid, "sender_type": "client", "body": message.strip(), "sent_at": now})
    return {"enquiry_id": eid, "status": "open"}


@tool(write=True)
def reply_to_enquiry(db: Db, actor_email: str, enquiry_id: int, message: str, close: bool = False) -> dict:
    """Answer an enquiry as an agent of the listing's agency; it becomes answered, or closed when
    close is true. Closed enquiries take no more replies.

    Args:
        actor_email: the e-mail of an agent of the listing's agency.
        enquiry_id: the enquiry's id.
        message: the reply.
        close: close the enquiry with this reply.
    """
    actor = _agent(db, actor_email, "acting agent")
    e = db.one("SELECT e.*, l.agency_id FROM enquiries e JOIN listings l ON l.id = e.listing_id WHERE e.id = ?",
               (enquiry_id,),
               missing=f"No enquiry with id {enquiry_id}. Use list_enquiries to find it.")
    require_owner(e, "agency_id", actor["agency_id"],
                  f"Enquiry {enquiry_id} is about another agency's listing; {actor['full_name']} cannot answer.")
    if e["status"] == "closed":
        raise ToolError(f"Enquiry {enquiry_id} is closed.")
    if not message.strip():
        raise ToolError("message must not be empty")
    now = _now(db)
    db.insert("messages", {"enquiry_id": enquiry_id, "sender_type": "agent", "agent_id": actor["id"],
                           "body": message.strip(), "sent_at": now})
    status = "closed" if close else "answered"
    db.execute("UPDATE enquiries SET status = ?, updated_at = ? WHERE id = ?", (status, now, enquiry_id))
    return {"enquiry_id": enquiry_id, "status": status}
