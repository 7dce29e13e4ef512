"""Tools of the library world: a public library system with several branches.

Branches are named by their short codes ("CEN"), patrons by their library card numbers (10 digits) or
e-mails, staff by e-mail, physical copies by their 8-character barcodes, and works, holds, loans,
fines, transfers, rooms, bookings, events and reading lists by the ids the read tools return.

Desk work (checkouts, returns, holds shelf, payments, transfers, repairs) is done under a staff
member's account (``staff_email``) and only at that person's own branch; self-service actions
(renewals, holds, room bookings, events, reading lists) are done under the patron's own account
(``patron_email``) and only touch that patron's rows.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, like_any, parse_day, require_owner, require_role, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

HOLD_SHELF_DAYS = 7  # a ready hold waits this many days on the hold shelf
MAX_BOOKING_MINUTES = 180
MAX_READING_LISTS = 10
MAX_LIST_ITEMS = 50

CopyStatus = Literal["available", "on_loan", "on_hold_shelf", "in_transit", "in_repair", "lost"]
HoldStatus = Literal["placed", "ready", "collected", "expired", "cancelled"]
Genre = Literal["fiction", "mystery", "science_fiction", "fantasy", "romance", "biography", "history", "science",
                "children", "poetry", "cooking", "travel"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _date(value: str, what: str) -> date:
    return parse_day(value, what, "2026-04-20")


def _moment(value: str, what: str) -> datetime:
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?", value.strip()):
            raise ValueError
        return datetime.fromisoformat(value.strip())
    except ValueError:
        raise ToolError(f"{what} must be a local date and time written YYYY-MM-DDTHH:MM, e.g. '2026-04-20T14:00' "
                        f"(got {value!r})") from None


def _money(cents: int) -> str:
    return f"${cents / 100:.2f}"


def _branch(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM branches WHERE upper(code) = upper(?)", (code.strip(),),
                  missing=f"No branch with code {code!r}. Use list_branches to see the branch codes.")


def _staff(db: Db, email: str) -> dict[str, Any]:
    row = db.one("SELECT s.*, b.code AS branch_code, b.name AS branch_name FROM staff s "
                 "JOIN branches b ON b.id = s.branch_id WHERE lower(s.email) = lower(?)", (email.strip(),),
                 missing=f"No staff account with e-mail {email!r}. Desk actions must be made under a staff "
                         "member's library e-mail.")
    if not row["is_active"]:
        raise ToolError(f"The staff account of {row['full_name']} is deactivated; act under an active account.")
    return row


def _at_branch(staff: dict[str, Any], branch_id: int, what: str, db: Db) -> None:
    if staff["branch_id"] != branch_id:
        name = db.value("SELECT name FROM branches WHERE id = ?", (branch_id,))
        raise ToolError(f"{staff['full_name']} works at {staff['branch_name']}; {what} must be done by staff of "
                        f"{name}.")


def _branch_copy(db: Db, staff_email: str, barcode: str, action: str, doing: str) -> tuple[dict, dict]:
    """A librarian or manager handling a copy their own branch owns: the staff member and the copy (``doing``
    names the work, with ``{}`` for the barcode, if the copy belongs to another branch)."""
    s = _staff(db, staff_email)
    require_role(s, ("librarian", "manager"), action)
    c = _copy(db, barcode)
    _at_branch(s, c["branch_id"], doing.format(c["barcode"]), db)
    return s, c


_PATRON_SQL = ("SELECT p.*, c.code AS card_type, c.name AS card_type_name, c.loan_limit, c.loan_days, "
               "c.max_renewals, c.hold_limit, c.fine_per_day_cents, c.max_fine_per_item_cents, "
               "c.block_threshold_cents, b.code AS home_branch_code FROM patrons p "
               "JOIN card_types c ON c.id = p.card_type_id JOIN branches b ON b.id = p.home_branch_id ")


def _patron_by_card(db: Db, card_number: str) -> dict[str, Any]:
    return db.one(_PATRON_SQL + "WHERE p.card_number = ?", (card_number.strip(),),
                  missing=f"No patron with card number {card_number!r}. Card numbers have 10 digits; use "
                          "find_patrons to look a patron up by name or e-mail.")


def _patron_by_email(db: Db, email: str) -> dict[str, Any]:
    return db.one(_PATRON_SQL + "WHERE lower(p.email) = lower(?)", (email.strip(),),
                  missing=f"No patron account with e-mail {email!r}. Self-service actions must be made under the "
                          "patron's own e-mail.")


def _patrons(db: Db, p: dict[str, Any], sql: str, row_id: int, what: str) -> dict[str, Any]:
    """The row ``sql`` finds by id, if it is the patron's own; else "<patron> has no ``what``"."""
    refusal = f"{p['full_name']} has no {what}"
    row = db.one(sql, (row_id,), missing=refusal)
    require_owner(row, "patron_id", p["id"], refusal)
    return row


def _valid_card(db: Db, p: dict[str, Any], why: str) -> None:
    if p["status"] != "active" or p["expires_on"] < db.today().isoformat():
        raise ToolError(f"{p['full_name']}'s card is suspended or expired; {why}.")


def _owed(db: Db, patron_id: int) -> int:
    return db.value("SELECT COALESCE(SUM(amount_cents - paid_cents), 0) FROM fines "
                    "WHERE patron_id = ? AND status = 'open'", (patron_id,))


def _in_good_standing(db: Db, p: dict[str, Any], what: str) -> None:
    if p["status"] != "active":
        raise ToolError(f"{p['full_name']}'s card is suspended, so they cannot {what}. A manager must lift the "
                        "suspension first.")
    if p["expires_on"] < db.today().isoformat():
        raise ToolError(f"{p['full_name']}'s card expired on {p['expires_on']}, so they cannot {what} until the "
                        "card is renewed.")
    owed = _owed(db, p["id"])
    if owed >= p["block_threshold_cents"]:
        raise ToolError(f"{p['full_name']} owes {_money(owed)} in unpaid fines; at {_money(p['block_threshold_cents'])} "
                        f"or more a {p['card_type_name']} card is blocked, so they cannot {what}. Fines must be paid "
                        "(or waived by a manager) below that threshold first.")


def _copy(db: Db, barcode: str) -> dict[str, Any]:
    return db.one("SELECT c.*, e.work_id, e.format, e.isbn, w.title, b.code AS branch_code, b.name AS branch_name "
                  "FROM copies c JOIN editions e ON e.id = c.edition_id JOIN works w ON w.id = e.work_id "
                  "JOIN branches b ON b.id = c.branch_id WHERE upper(c.barcode) = upper(?)", (barcode.strip(),),
                  missing=f"No copy with barcode {barcode!r}. Barcodes have 8 characters like 'LB004512'; use "
                          "list_copies with the work id to find them.")


def _work(db: Db, work_id: int) -> dict[str, Any]:
    return db.one("SELECT w.*, a.full_name AS author FROM works w JOIN authors a ON a.id = w.author_id "
                  "WHERE w.id = ?", (work_id,),
                  missing=f"No work with id {work_id}. Use search_catalog to find a work by its title or author.")


def _hold(db: Db, hold_id: int) -> dict[str, Any]:
    return db.one("SELECT h.*, w.title, b.code AS pickup_branch_code FROM holds h JOIN works w ON w.id = h.work_id "
                  "JOIN branches b ON b.id = h.pickup_branch_id WHERE h.id = ?", (hold_id,),
                  missing=f"No hold with id {hold_id}. Use list_holds to find hold ids.")


def _queue(db: Db, work_id: int) -> list[dict[str, Any]]:
    return db.query("SELECT id, patron_id, pickup_branch_id, placed_at FROM holds WHERE work_id = ? AND status = 'placed' "
                    "ORDER BY placed_at, id", (work_id,))


def _to_hold_shelf(db: Db, hold_id: int, copy_id: int) -> str:
    """Set a copy aside for a hold (now ready); returns the day by which it must be picked up."""
    pickup_by = (db.today() + timedelta(days=HOLD_SHELF_DAYS)).isoformat()
    db.execute("UPDATE holds SET status = 'ready', copy_id = ?, ready_at = ?, pickup_by = ? WHERE id = ?",
               (copy_id, _now(db), pickup_by, hold_id))
    db.execute("UPDATE copies SET status = 'on_hold_shelf' WHERE id = ?", (copy_id,))
    return pickup_by


def _fine_for_late(p: dict[str, Any], due_date: str, today: date) -> int:
    days = (today - date.fromisoformat(due_date)).days
    if days <= 0:
        return 0
    return min(days * p["fine_per_day_cents"], p["max_fine_per_item_cents"])


# ----------------------------------------------------------------------------------------------
# read tools: catalogue and branches
# ----------------------------------------------------------------------------------------------

@tool
def list_branches(db: Db) -> list[dict]:
    """List the library's branches with their codes, addresses, phone numbers and opening hours (the same
    every day)."""
    return db.query("SELECT code, name, address, phone, opens_at, closes_at FROM branches ORDER BY id")


@tool
def search_catalog(db: Db, query: str = "", genre: Genre | None = None, limit: int = 10) -> list[dict]:
    """Search the catalogue for works by words in the title or the author's name.

    Each result gives the work id, title, author, genre, year first published and how many copies are on the
    shelf (available) across all branches.

    Args:
        query: words to look for in the title or author name; empty lists everything (with the other filters).
        genre: only works of this genre.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    words = [w for w in query.lower().split() if w]
    sql = ("SELECT w.id AS work_id, w.title, a.full_name AS author, w.genre, w.first_published, w.audience, "
           "(SELECT COUNT(*) FROM copies c JOIN editions e ON e.id = c.edition_id WHERE e.work_id = w.id "
           "AND c.status = 'available') AS available_copies FROM works w JOIN authors a ON a.id = w.author_id "
           "WHERE (? IS NULL OR w.genre = ?)")
    params: list[Any] = [genre, genre]
    for word in words[:6]:
        either_column, word_params = like_any(word, "lower(w.title)", "lower(a.full_name)")
        sql += f" AND {either_column}"
        params += word_params
    sql += " ORDER BY w.title, w.id LIMIT ?"
    return db.query(sql, (*params, limit))


@tool
def get_work(db: Db, work_id: int) -> dict:
    """Show one work: its editions, how many copies each branch holds by status, and the length of its
    holds queue (holds placed and waiting for a copy).

    Args:
        work_id: the work's id, from search_catalog.
    """
    w = _work(db, work_id)
    editions = db.query("SELECT id AS edition_id, isbn, format, publisher, year, pages FROM editions "
                        "WHERE work_id = ? ORDER BY id", (work_id,))
    by_branch = db.query("SELECT b.code AS branch_code, c.status, COUNT(*) AS copies FROM copies c "
                         "JOIN editions e ON e.id = c.edition_id JOIN branches b ON b.id = c.branch_id "
                         "WHERE e.work_id = ? GROUP BY b.id, c.status ORDER BY b.id, c.status", (work_id,))
    return {"work_id": w["id"], "title": w["title"], "author": w["author"], "genre": w["genre"],
            "first_published": w["first_published"], "audience": w["audience"], "editions": editions,
            "copies_by_branch": by_branch, "holds_waiting": len(_queue(db, work_id))}


@tool
def list_copies(db: Db, work_id: int, branch_code: str | None = None, status: CopyStatus | None = None,
                limit: int = 20) -> list[dict]:
    """List the physical copies of a work with their barcodes, branch, format and status.

    Args:
        work_id: the work's id, from search_catalog.
        branch_code: only copies owned by this branch, e.g. "CEN".
        status: only copies with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    _work(db, work_id)
    bid = _branch(db, branch_code)["id"] if branch_code else None
    return db.query("SELECT c.barcode, b.code AS branch_code, e.format, e.isbn, c.status, "
                    "(SELECT l.due_date FROM loans l WHERE l.copy_id = c.id AND l.status = 'active') AS due_date "
                    "FROM copies c JOIN editions e ON e.id = c.edition_id JOIN branches b ON b.id = c.branch_id "
                    "WHERE e.work_id = ? AND (? IS NULL OR c.branch_id = ?) AND (? IS NULL OR c.status = ?) "
                    "ORDER BY c.id LIMIT ?", (work_id, bid, bid, status, status, limit))


@tool
def get_copy(db: Db, barcode: str) -> dict:
    """Show one copy by barcode: its work, branch, status, replacement price, and its current loan (due date)
    or the hold it is waiting for, if any.

    Args:
        barcode: the copy's 8-character barcode, e.g. "LB004512".
    """
    c = _copy(db, barcode)
    loan = db.one("SELECT l.id AS loan_id, p.card_number, l.checked_out_at, l.due_date, l.renewals FROM loans l "
                  "JOIN patrons p ON p.id = l.patron_id WHERE l.copy_id = ? AND l.status = 'active'", (c["id"],))
    hold = db.one("SELECT id AS hold_id, status, pickup_by FROM holds WHERE copy_id = ? AND status = 'ready'",
                  (c["id"],))
    transfer = db.one("SELECT t.id AS transfer_id, b.code AS to_branch_code, t.sent_at FROM transfers t "
                      "JOIN branches b ON b.id = t.to_branch_id WHERE t.copy_id = ? AND t.status = 'in_transit'",
                      (c["id"],))
    return {"barcode": c["barcode"], "work_id": c["work_id"], "title": c["title"], "format": c["format"],
            "isbn": c["isbn"], "branch_code": c["branch_code"], "status": c["status"],
            "replacement_price": _money(c["price_cents"]), "current_loan": loan, "ready_hold": hold,
            "transfer": transfer}


# ----------------------------------------------------------------------------------------------
# read tools: patrons, loans, holds, fines
# ----------------------------------------------------------------------------------------------

@tool
def find_patrons(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Find patrons by part of their name, e-mail or card number.

    Args:
        query: text to look for, e.g. "Alvarez" or "maria.alvarez@example.net".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "lower(p.full_name)", "lower(p.email)", "p.card_number", lower=True)
    return db.query("SELECT p.card_number, p.full_name, p.email, b.code AS home_branch_code, c.code AS card_type, "
                    "p.status, p.expires_on FROM patrons p JOIN branches b ON b.id = p.home_branch_id "
                    f"JOIN card_types c ON c.id = p.card_type_id WHERE {who} "
                    "ORDER BY p.full_name, p.id LIMIT ?", (*params, limit))


@tool
def get_patron_account(db: Db, card_number: str) -> dict:
    """Show a patron's account: card type and its rules (loan limit, loan period, renewals, hold limit, fine
    rate and cap, blocking threshold), card status and expiry, active loans, active holds, and the total of
    unpaid fines, with whether borrowing is currently blocked.

    Args:
        card_number: the patron's 10-digit library card number.
    """
    p = _patron_by_card(db, card_number)
    loans = db.value("SELECT COUNT(*) FROM loans WHERE patron_id = ? AND status = 'active'", (p["id"],))
    overdue = db.value("SELECT COUNT(*) FROM loans WHERE patron_id = ? AND status = 'active' AND due_date < ?",
                       (p["id"], db.today().isoformat()))
    holds = db.value("SELECT COUNT(*) FROM holds WHERE patron_id = ? AND status IN ('placed', 'ready')", (p["id"],))
    owed = _owed(db, p["id"])
    reasons = []
    if p["status"] != "active":
        reasons.append("card suspended")
    if p["expires_on"] < db.today().isoformat():
        reasons.append("card expired")
    if owed >= p["block_threshold_cents"]:
        reasons.append("unpaid fines at or above the threshold")
    return {"card_number": p["card_number"], "full_name": p["full_name"], "email": p["email"],
            "home_branch_code": p["home_branch_code"], "status": p["status"], "expires_on": p["expires_on"],
            "card_type": {"code": p["card_type"], "name": p["card_type_name"], "loan_limit": p["loan_limit"],
                          "loan_days": p["loan_days"], "max_renewals": p["max_renewals"],
                          "hold_limit": p["hold_limit"], "fine_per_day": _money(p["fine_per_day_cents"]),
                          "max_fine_per_item": _money(p["max_fine_per_item_cents"]),
                          "block_threshold": _money(p["block_threshold_cents"])},
            "active_loans": loans, "overdue_loans": overdue, "active_holds": holds, "unpaid_fines": _money(owed),
            "unpaid_fines_cents": owed, "blocked": bool(reasons), "block_reasons": reasons}


@tool
def list_loans(db: Db, card_number: str, status: Literal["active", "returned", "lost"] | None = "active",
               overdue_only: bool = False, limit: int = 20) -> list[dict]:
    """List a patron's loans, newest first, with the title, barcode, due date, renewals used and status.

    Args:
        card_number: the patron's 10-digit library card number.
        status: only loans with this status (default "active"); null for all.
        overdue_only: only active loans whose due date has passed.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    p = _patron_by_card(db, card_number)
    return db.query("SELECT l.id AS loan_id, w.title, c.barcode, b.code AS branch_code, l.checked_out_at, "
                    "l.due_date, l.renewals, l.status, l.returned_at, "
                    "CASE WHEN l.status = 'active' AND l.due_date < ? THEN 1 ELSE 0 END AS overdue FROM loans l "
                    "JOIN copies c ON c.id = l.copy_id JOIN editions e ON e.id = c.edition_id "
                    "JOIN works w ON w.id = e.work_id JOIN branches b ON b.id = l.branch_id "
                    "WHERE l.patron_id = ? AND (? IS NULL OR l.status = ?) "
                    "AND (? = 0 OR (l.status = 'active' AND l.due_date < ?)) "
                    "ORDER BY l.checked_out_at DESC, l.id DESC LIMIT ?",
                    (db.today().isoformat(), p["id"], status, status, int(overdue_only), db.today().isoformat(),
                     limit))


@tool
def list_holds(db: Db, card_number: str | None = None, work_id: int | None = None, branch_code: str | None = None,
               status: HoldStatus | None = None, limit: int = 20) -> list[dict]:
    """List holds, oldest first. Give a card number for a patron's holds, or a work id for that work's
    holds queue; holds still waiting ("placed") show their position in the work's queue (1 = next).

    Args:
        card_number: only this patron's holds.
        work_id: only holds on this work.
        branch_code: only holds to be picked up at this branch.
        status: only holds with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    if card_number is None and work_id is None and branch_code is None:
        raise ToolError("Give a card_number, a work_id or a branch_code to narrow the list.")
    pid = _patron_by_card(db, card_number)["id"] if card_number else None
    bid = _branch(db, branch_code)["id"] if branch_code else None
    rows = db.query("SELECT h.id AS hold_id, h.work_id, w.title, p.card_number, b.code AS pickup_branch_code, "
                    "h.status, h.placed_at, c.barcode AS copy_barcode, h.ready_at, h.pickup_by, h.closed_at "
                    "FROM holds h JOIN works w ON w.id = h.work_id JOIN patrons p ON p.id = h.patron_id "
                    "JOIN branches b ON b.id = h.pickup_branch_id LEFT JOIN copies c ON c.id = h.copy_id "
                    "WHERE (? IS NULL OR h.patron_id = ?) AND (? IS NULL OR h.work_id = ?) "
                    "AND (? IS NULL OR h.pickup_branch_id = ?) AND (? IS NULL OR h.status = ?) "
                    "ORDER BY h.placed_at, h.id LIMIT ?",
                    (pid, pid, work_id, work_id, bid, bid, status, status, limit))
    for r in rows:
        if r["status"] == "placed":
            ids = [q["id"] for q in _queue(db, r["work_id"])]
            r["queue_position"] = ids.index(r["hold_id"]) + 1
    return rows


@tool
def list_fines(db: Db, card_number: str, status: Literal["open", "paid", "waived"] | None = None,
               limit: int = 20) -> list[dict]:
    """List a patron's fines, oldest first, with what each was for, its amount, what has been paid and what is
    still owed.

    Args:
        card_number: the patron's 10-digit library card number.
        status: only fines with this status ("open" = still owed).
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    p = _patron_by_card(db, card_number)
    rows = db.query("SELECT f.id AS fine_id, f.kind, f.amount_cents, f.paid_cents, f.status, f.created_at, "
                    "w.title, c.barcode FROM fines f LEFT JOIN loans l ON l.id = f.loan_id "
                    "LEFT JOIN copies c ON c.id = l.copy_id LEFT JOIN editions e ON e.id = c.edition_id "
                    "LEFT JOIN works w ON w.id = e.work_id WHERE f.patron_id = ? AND (? IS NULL OR f.status = ?) "
                    "ORDER BY f.created_at, f.id LIMIT ?", (p["id"], status, status, limit))
    for r in rows:
        r["owed_cents"] = r["amount_cents"] - r["paid_cents"] if r["status"] == "open" else 0
    return rows


@tool
def list_transfers(db: Db, branch_code: str, status: Literal["in_transit", "received"] | None = None,
                   limit: int = 20) -> list[dict]:
    """List copy transfers sent from or to a branch, newest first.

    Args:
        branch_code: the branch, e.g. "CEN".
        status: only transfers with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    bid = _branch(db, branch_code)["id"]
    return db.query("SELECT t.id AS transfer_id, c.barcode, w.title, fb.code AS from_branch_code, "
                    "tb.code AS to_branch_code, t.status, t.sent_at, t.received_at FROM transfers t "
                    "JOIN copies c ON c.id = t.copy_id JOIN editions e ON e.id = c.edition_id "
                    "JOIN works w ON w.id = e.work_id JOIN branches fb ON fb.id = t.from_branch_id "
                    "JOIN branches tb ON tb.id = t.to_branch_id WHERE (t.from_branch_id = ? OR t.to_branch_id = ?) "
                    "AND (? IS NULL OR t.status = ?) ORDER BY t.sent_at DESC, t.id DESC LIMIT ?",
                    (bid, bid, status, status, limit))


# ----------------------------------------------------------------------------------------------
# read tools: rooms, events, reading lists
# ----------------------------------------------------------------------------------------------

@tool
def list_rooms(db: Db, branch_code: str) -> list[dict]:
    """List the bookable rooms of a branch with their ids and capacities.

    Args:
        branch_code: the branch, e.g. "CEN".
    """
    bid = _branch(db, branch_code)["id"]
    return db.query("SELECT id AS room_id, name, capacity FROM rooms WHERE branch_id = ? ORDER BY id", (bid,))


@tool
def list_room_bookings(db: Db, room_id: int | None = None, day: str | None = None, card_number: str | None = None,
                       limit: int = 20) -> list[dict]:
    """List room bookings (booked and cancelled) by room and day, or a patron's bookings.

    Args:
        room_id: only bookings of this room.
        day: only bookings starting on this date, YYYY-MM-DD.
        card_number: only this patron's bookings.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    if room_id is None and card_number is None:
        raise ToolError("Give a room_id or a card_number.")
    d = _date(day, "day").isoformat() if day else None
    pid = _patron_by_card(db, card_number)["id"] if card_number else None
    return db.query("SELECT rb.id AS booking_id, r.id AS room_id, r.name AS room, b.code AS branch_code, "
                    "rb.starts_at, rb.ends_at, rb.attendees, rb.purpose, rb.status, "
                    "CASE WHEN rb.patron_id = ? THEN 1 ELSE 0 END AS yours FROM room_bookings rb "
                    "JOIN rooms r ON r.id = rb.room_id JOIN branches b ON b.id = r.branch_id "
                    "WHERE (? IS NULL OR rb.room_id = ?) AND (? IS NULL OR substr(rb.starts_at, 1, 10) = ?) "
                    "AND (? IS NULL OR rb.patron_id = ?) ORDER BY rb.starts_at, rb.id LIMIT ?",
                    (pid, room_id, room_id, d, d, pid, pid, limit))


@tool
def list_events(db: Db, branch_code: str | None = None, date_from: str | None = None, date_to: str | None = None,
                limit: int = 20) -> list[dict]:
    """List library events in date order with their capacity and how many places are left.

    Args:
        branch_code: only events at this branch.
        date_from: only events on or after this date, YYYY-MM-DD.
        date_to: only events on or before this date, YYYY-MM-DD.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    bid = _branch(db, branch_code)["id"] if branch_code else None
    f = _date(date_from, "date_from").isoformat() if date_from else None
    t = _date(date_to, "date_to").isoformat() if date_to else None
    return db.query("SELECT e.id AS event_id, e.title, b.code AS branch_code, e.audience, e.starts_at, e.ends_at, "
                    "e.capacity, e.status, e.capacity - (SELECT COUNT(*) FROM event_registrations r "
                    "WHERE r.event_id = e.id AND r.status = 'registered') AS places_left FROM events e "
                    "JOIN branches b ON b.id = e.branch_id WHERE (? IS NULL OR e.branch_id = ?) "
                    "AND (? IS NULL OR substr(e.starts_at, 1, 10) >= ?) AND (? IS NULL OR substr(e.starts_at, 1, 10) <= ?) "
                    "ORDER BY e.starts_at, e.id LIMIT ?", (bid, bid, f, f, t, t, limit))


@tool
def get_event(db: Db, event_id: int, card_number: str | None = None) -> dict:
    """Show one event: branch, time, audience, capacity, places left, and (with a card number) whether that
    patron is registered.

    Args:
        event_id: the event's id, from list_events.
        card_number: a patron's card number, to see their registration.
    """
    e = db.one("SELECT e.*, b.code AS branch_code FROM events e JOIN branches b ON b.id = e.branch_id WHERE e.id = ?",
               (event_id,),
               missing=f"No event with id {event_id}. Use list_events to find events.")
    taken = db.value("SELECT COUNT(*) FROM event_registrations WHERE event_id = ? AND status = 'registered'",
                     (event_id,))
    out = {"event_id": e["id"], "title": e["title"], "branch_code": e["branch_code"], "audience": e["audience"],
           "starts_at": e["starts_at"], "ends_at": e["ends_at"], "status": e["status"], "capacity": e["capacity"],
           "registered": taken, "places_left": e["capacity"] - taken}
    if card_number:
        p = _patron_by_card(db, card_number)
        out["patron_registration"] = db.value("SELECT status FROM event_registrations WHERE event_id = ? AND "
                                              "patron_id = ?", (event_id, p["id"]))
    return out


@tool
def list_reading_lists(db: Db, card_number: str) -> list[dict]:
    """List a patron's reading lists with the works on each (work id and title).

    Args:
        card_number: the patron's 10-digit library card number.
    """
    p = _patron_by_card(db, card_number)
    lists = db.query("SELECT id AS list_id, name, is_public, created_at FROM reading_lists WHERE patron_id = ? "
                     "ORDER BY id", (p["id"],))
    for rl in lists:
        rl["works"] = db.query("SELECT w.id AS work_id, w.title FROM reading_list_items i JOIN works w "
                               "ON w.id = i.work_id WHERE i.list_id = ? ORDER BY i.id", (rl["list_id"],))
    return lists


# ----------------------------------------------------------------------------------------------
# write tools: circulation desk
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def checkout_copy(db: Db, staff_email: str, card_number: str, barcode: str) -> dict:
    """Lend a copy to a patron at the desk of the staff member's branch. The due date is today plus the card
    type's loan period.

    Rules: the copy must belong to the staff member's branch and be available, or be waiting on the hold
    shelf for this patron's ready hold (that hold is then collected). The patron's card must be active and
    not expired, unpaid fines must be below the card type's blocking threshold, and the patron must have
    fewer active loans than the card type's loan limit.

    Args:
        staff_email: e-mail of the staff member at the desk.
        card_number: the borrower's 10-digit card number.
        barcode: the copy's barcode.
    """
    s = _staff(db, staff_email)
    p = _patron_by_card(db, card_number)
    c = _copy(db, barcode)
    _at_branch(s, c["branch_id"], f"lending copy {c['barcode']} (owned by {c['branch_name']})", db)
    _in_good_standing(db, p, "borrow")
    active = db.value("SELECT COUNT(*) FROM loans WHERE patron_id = ? AND status = 'active'", (p["id"],))
    if active >= p["loan_limit"]:
        raise ToolError(f"{p['full_name']} already has {active} items on loan, the limit of a {p['card_type_name']} "
                        "card; an item must be returned first.")
    hold = None
    if c["status"] == "on_hold_shelf":
        not_theirs = (f"Copy {c['barcode']} is on the hold shelf for another patron's hold and cannot be lent "
                      "to this patron.")
        hold = db.one("SELECT * FROM holds WHERE copy_id = ? AND status = 'ready'", (c["id"],), missing=not_theirs)
        require_owner(hold, "patron_id", p["id"], not_theirs)
    elif c["status"] != "available":
        raise ToolError(f"Copy {c['barcode']} is {c['status'].replace('_', ' ')}, not available for checkout.")
    now = _now(db)
    due = (db.today() + timedelta(days=p["loan_days"])).isoformat()
    loan_id = db.insert("loans", {"copy_id": c["id"], "patron_id": p["id"], "branch_id": c["branch_id"],
                                  "checked_out_by": s["id"], "checked_out_at": now, "due_date": due, "renewals": 0,
                                  "status": "active"})
    db.execute("UPDATE copies SET status = 'on_loan' WHERE id = ?", (c["id"],))
    if hold is not None:
        db.execute("UPDATE holds SET status = 'collected', closed_at = ? WHERE id = ?", (now, hold["id"]))
    return {"loan_id": loan_id, "title": c["title"], "barcode": c["barcode"], "due_date": due,
            "hold_collected": hold["id"] if hold else None}


@tool(write=True)
def renew_loan(db: Db, patron_email: str, loan_id: int) -> dict:
    """Renew one of the patron's own active loans: the due date moves forward by the card type's loan period.

    Rules: only the borrower may renew; the loan must not be overdue (overdue items must be returned at a
    desk); renewals are limited by the card type; a loan cannot be renewed while other patrons have holds
    waiting on the same work; and a blocked account (suspended, expired, or fines at the threshold) cannot
    renew.

    Args:
        patron_email: the borrower's e-mail (the account acting).
        loan_id: the loan's id, from list_loans.
    """
    p = _patron_by_email(db, patron_email)
    loan = _patrons(db, p, "SELECT l.*, e.work_id, w.title FROM loans l JOIN copies c ON c.id = l.copy_id "
                    "JOIN editions e ON e.id = c.edition_id JOIN works w ON w.id = e.work_id WHERE l.id = ?", loan_id,
                    f"loan with id {loan_id}. Use list_loans with their card number.")
    if loan["status"] != "active":
        raise ToolError(f"Loan {loan_id} ('{loan['title']}') is {loan['status']} and cannot be renewed.")
    if loan["due_date"] < db.today().isoformat():
        raise ToolError(f"'{loan['title']}' was due on {loan['due_date']} and is overdue; overdue items cannot be "
                        "renewed and must be returned at a desk.")
    _in_good_standing(db, p, "renew loans")
    if loan["renewals"] >= p["max_renewals"]:
        raise ToolError(f"'{loan['title']}' has already been renewed {loan['renewals']} times, the most a "
                        f"{p['card_type_name']} card allows.")
    waiting = len(_queue(db, loan["work_id"]))
    if waiting:
        raise ToolError(f"'{loan['title']}' cannot be renewed: {waiting} other patron(s) have holds waiting for it. "
                        f"Please return it by {loan['due_date']}.")
    due = (date.fromisoformat(loan["due_date"]) + timedelta(days=p["loan_days"])).isoformat()
    db.execute("UPDATE loans SET due_date = ?, renewals = renewals + 1 WHERE id = ?", (due, loan_id))
    return {"loan_id": loan_id, "title": loan["title"], "due_date": due, "renewals": loan["renewals"] + 1}


@tool(write=True)
def return_copy(db: Db, staff_email: str, barcode: str) -> dict:
    """Check a returned copy in at the desk of its owning branch.

    If it comes back after its due date, an overdue fine is charged: the card type's daily rate for each day
    late, capped at the card type's maximum per item. The copy then goes to the hold shelf for the first
    hold waiting on the work with pickup at this branch (that hold becomes ready, to be picked up within
    7 days); otherwise it goes back on the shelf.

    Args:
        staff_email: e-mail of the staff member at the desk; must work at the copy's branch.
        barcode: the copy's barcode.
    """
    s = _staff(db, staff_email)
    c = _copy(db, barcode)
    _at_branch(s, c["branch_id"], f"checking in copy {c['barcode']} (owned by {c['branch_name']})", db)
    loan = db.one("SELECT * FROM loans WHERE copy_id = ? AND status = 'active'", (c["id"],),
                  missing=f"Copy {c['barcode']} is not on loan (status {c['status']}); there is nothing to check in.")
    p = db.one(_PATRON_SQL + "WHERE p.id = ?", (loan["patron_id"],))
    now, today = _now(db), db.today()
    db.execute("UPDATE loans SET status = 'returned', returned_at = ?, returned_by = ? WHERE id = ?",
               (now, s["id"], loan["id"]))
    fine = _fine_for_late(p, loan["due_date"], today)
    fine_id = None
    if fine:
        fine_id = db.insert("fines", {"patron_id": p["id"], "loan_id": loan["id"], "kind": "overdue",
                                      "amount_cents": fine, "paid_cents": 0, "status": "open", "created_at": now})
    nxt = db.one("SELECT id FROM holds WHERE work_id = ? AND status = 'placed' AND pickup_branch_id = ? "
                 "ORDER BY placed_at, id LIMIT 1", (c["work_id"], c["branch_id"]))
    if nxt:
        _to_hold_shelf(db, nxt["id"], c["id"])
    else:
        db.execute("UPDATE copies SET status = 'available' WHERE id = ?", (c["id"],))
    return {"loan_id": loan["id"], "title": c["title"], "returned_at": now,
            "fine": {"fine_id": fine_id, "amount": _money(fine)} if fine else None,
            "copy_status": "on_hold_shelf" if nxt else "available", "hold_ready": nxt["id"] if nxt else None}


@tool(write=True)
def mark_copy_lost(db: Db, staff_email: str, barcode: str) -> dict:
    """Record a copy as lost. If it is on loan, the loan is closed as lost and the borrower is charged a
    lost-item fine equal to the copy's replacement price. Only a librarian or manager of the copy's branch
    may do this.

    Args:
        staff_email: e-mail of the librarian or manager acting.
        barcode: the copy's barcode.
    """
    s, c = _branch_copy(db, staff_email, barcode, "mark copies lost", "marking copy {} lost")
    if c["status"] not in ("available", "on_loan"):
        raise ToolError(f"Copy {c['barcode']} is {c['status'].replace('_', ' ')}; only copies on the shelf or on "
                        "loan can be marked lost.")
    fine_id = None
    loan = db.one("SELECT * FROM loans WHERE copy_id = ? AND status = 'active'", (c["id"],))
    if loan:
        db.execute("UPDATE loans SET status = 'lost' WHERE id = ?", (loan["id"],))
        fine_id = db.insert("fines", {"patron_id": loan["patron_id"], "loan_id": loan["id"], "kind": "lost_item",
                                      "amount_cents": c["price_cents"], "paid_cents": 0, "status": "open",
                                      "created_at": _now(db)})
    db.execute("UPDATE copies SET status = 'lost' WHERE id = ?", (c["id"],))
    return {"barcode": c["barcode"], "status": "lost", "lost_item_fine_id": fine_id,
            "charged": _money(c["price_cents"]) if loan else None}


@tool(write=True)
def send_copy_to_repair(db: Db, staff_email: str, barcode: str) -> dict:
    """Take an available copy off the shelf for repair (status in_repair). Only a librarian or manager of the
    copy's branch may do this.

    Args:
        staff_email: e-mail of the librarian or manager acting.
        barcode: the copy's barcode.
    """
    s, c = _branch_copy(db, staff_email, barcode, "send copies to repair", "sending copy {} to repair")
    if c["status"] != "available":
        raise ToolError(f"Copy {c['barcode']} is {c['status'].replace('_', ' ')}; only an available copy on the "
                        "shelf can go to repair.")
    db.execute("UPDATE copies SET status = 'in_repair' WHERE id = ?", (c["id"],))
    return {"barcode": c["barcode"], "status": "in_repair"}


@tool(write=True)
def finish_repair(db: Db, staff_email: str, barcode: str) -> dict:
    """Put a repaired copy back on the shelf (in_repair -> available). Only a librarian or manager of the copy's
    branch may do this.

    Args:
        staff_email: e-mail of the librarian or manager acting.
        barcode: the copy's barcode.
    """
    s, c = _branch_copy(db, staff_email, barcode, "return repaired copies to the shelf",
                        "returning copy {} from repair")
    if c["status"] != "in_repair":
        raise ToolError(f"Copy {c['barcode']} is {c['status'].replace('_', ' ')}, not in repair.")
    db.execute("UPDATE copies SET status = 'available' WHERE id = ?", (c["id"],))
    return {"barcode": c["barcode"], "status": "available"}


@tool(write=True)
def send_transfer(db: Db, staff_email: str, barcode: str, to_branch_code: str) -> dict:
    """Send an available copy to another branch, which then owns it once it is received. The copy is in transit
    until staff of the receiving branch receive it. Only a librarian or manager of the sending branch may
    send.

    Args:
        staff_email: e-mail of the librarian or manager of the copy's current branch.
        barcode: the copy's barcode.
        to_branch_code: the receiving branch's code.
    """
    s, c = _branch_copy(db, staff_email, barcode, "send transfers", "sending copy {}")
    to = _branch(db, to_branch_code)
    if to["id"] == c["branch_id"]:
        raise ToolError(f"Copy {c['barcode']} already belongs to {to['name']}.")
    if c["status"] != "available":
        raise ToolError(f"Copy {c['barcode']} is {c['status'].replace('_', ' ')}; only an available copy can be "
                        "transferred.")
    tid = db.insert("transfers", {"copy_id": c["id"], "from_branch_id": c["branch_id"], "to_branch_id": to["id"],
                                  "status": "in_transit", "sent_by": s["id"], "sent_at": _now(db)})
    db.execute("UPDATE copies SET status = 'in_transit' WHERE id = ?", (c["id"],))
    return {"transfer_id": tid, "barcode": c["barcode"], "from_branch_code": c["branch_code"],
            "to_branch_code": to["code"], "status": "in_transit"}


@tool(write=True)
def receive_transfer(db: Db, staff_email: str, transfer_id: int) -> dict:
    """Receive a copy in transit at its destination branch: the copy now belongs to that branch and is
    available. Any staff member of the receiving branch may do this.

    Args:
        staff_email: e-mail of a staff member of the receiving branch.
        transfer_id: the transfer's id, from list_transfers.
    """
    s = _staff(db, staff_email)
    t = db.one("SELECT * FROM transfers WHERE id = ?", (transfer_id,),
               missing=f"No transfer with id {transfer_id}. Use list_transfers with the branch code.")
    if t["status"] != "in_transit":
        raise ToolError(f"Transfer {transfer_id} was already received on {t['received_at']}.")
    _at_branch(s, t["to_branch_id"], f"receiving transfer {transfer_id}", db)
    db.execute("UPDATE transfers SET status = 'received', received_by = ?, received_at = ? WHERE id = ?",
               (s["id"], _now(db), transfer_id))
    db.execute("UPDATE copies SET branch_id = ?, status = 'available' WHERE id = ?", (t["to_branch_id"], t["copy_id"]))
    return {"transfer_id": transfer_id, "status": "received",
            "barcode": db.value("SELECT barcode FROM copies WHERE id = ?", (t["copy_id"],)),
            "branch_code": s["branch_code"]}


# ----------------------------------------------------------------------------------------------
# write tools: holds
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def place_hold(db: Db, patron_email: str, work_id: int, pickup_branch_code: str) -> dict:
    """Join the holds queue for a work, to pick it up at a chosen branch when a copy is ready.

    Rules: the patron's account must be in good standing (active, not expired, fines below the threshold);
    active holds (placed or ready) are limited by the card type; one active hold per work; not for a work
    the patron already has on loan; and not when a copy is already on the shelf at the pickup branch
    (borrow that one instead).

    Args:
        patron_email: the patron's e-mail (the account acting).
        work_id: the work's id, from search_catalog.
        pickup_branch_code: the branch where the patron will pick it up.
    """
    p = _patron_by_email(db, patron_email)
    w = _work(db, work_id)
    b = _branch(db, pickup_branch_code)
    _in_good_standing(db, p, "place holds")
    db.none("SELECT 1 FROM holds WHERE patron_id = ? AND work_id = ? AND status IN ('placed', 'ready')",
            (p["id"], work_id), found=f"{p['full_name']} already has an active hold on '{w['title']}'.")
    n = db.value("SELECT COUNT(*) FROM holds WHERE patron_id = ? AND status IN ('placed', 'ready')", (p["id"],))
    if n >= p["hold_limit"]:
        raise ToolError(f"{p['full_name']} already has {n} active holds, the limit of a {p['card_type_name']} card; "
                        "cancel one first.")
    db.none("SELECT 1 FROM loans l JOIN copies c ON c.id = l.copy_id JOIN editions e ON e.id = c.edition_id "
            "WHERE l.patron_id = ? AND l.status = 'active' AND e.work_id = ?", (p["id"], work_id),
            found=f"{p['full_name']} already has '{w['title']}' on loan.")
    if not db.value("SELECT COUNT(*) FROM copies c JOIN editions e ON e.id = c.edition_id WHERE e.work_id = ? "
                    "AND c.status <> 'lost'", (work_id,)):
        raise ToolError(f"The library has no copies of '{w['title']}' left to hold.")
    on_shelf = db.value("SELECT c.barcode FROM copies c JOIN editions e ON e.id = c.edition_id WHERE e.work_id = ? "
                        "AND c.branch_id = ? AND c.status = 'available' ORDER BY c.id LIMIT 1", (work_id, b["id"]))
    if on_shelf:
        raise ToolError(f"A copy of '{w['title']}' ({on_shelf}) is on the shelf at {b['name']}; borrow it there "
                        "instead of placing a hold.")
    hid = db.insert("holds", {"work_id": work_id, "patron_id": p["id"], "pickup_branch_id": b["id"],
                              "status": "placed", "placed_at": _now(db)})
    return {"hold_id": hid, "title": w["title"], "pickup_branch_code": b["code"], "status": "placed",
            "queue_position": len(_queue(db, work_id))}


@tool(write=True)
def cancel_hold(db: Db, patron_email: str, hold_id: int) -> dict:
    """Cancel one of the patron's own holds that is still placed or ready. A copy waiting on the hold shelf
    for it goes back on the shelf.

    Args:
        patron_email: the patron's e-mail (the account acting).
        hold_id: the hold's id, from list_holds.
    """
    p = _patron_by_email(db, patron_email)
    h = _hold(db, hold_id)
    require_owner(h, "patron_id", p["id"], f"Hold {hold_id} is not {p['full_name']}'s; patrons can only cancel their "
                  "own holds.")
    if h["status"] not in ("placed", "ready"):
        raise ToolError(f"Hold {hold_id} is already {h['status']} and cannot be cancelled.")
    db.execute("UPDATE holds SET status = 'cancelled', closed_at = ? WHERE id = ?", (_now(db), hold_id))
    if h["status"] == "ready":
        db.execute("UPDATE copies SET status = 'available' WHERE id = ? AND status = 'on_hold_shelf'", (h["copy_id"],))
    return {"hold_id": hold_id, "title": h["title"], "status": "cancelled"}


@tool(write=True)
def fill_hold(db: Db, staff_email: str, hold_id: int, barcode: str) -> dict:
    """Put an available copy on the hold shelf for a waiting hold (placed -> ready, to be picked up within
    7 days).

    Rules: the staff member must work at the hold's pickup branch; the copy must be of the held work, belong
    to that branch and be available; holds are filled in queue order, so no earlier placed hold on the work
    may be waiting for the same branch.

    Args:
        staff_email: e-mail of a staff member of the pickup branch.
        hold_id: the hold's id, from list_holds.
        barcode: the copy to set aside.
    """
    s = _staff(db, staff_email)
    h = _hold(db, hold_id)
    _at_branch(s, h["pickup_branch_id"], f"filling hold {hold_id}", db)
    if h["status"] != "placed":
        raise ToolError(f"Hold {hold_id} is {h['status']}; only a placed hold can be filled.")
    first = db.value("SELECT id FROM holds WHERE work_id = ? AND status = 'placed' AND pickup_branch_id = ? "
                     "ORDER BY placed_at, id LIMIT 1", (h["work_id"], h["pickup_branch_id"]))
    if first != hold_id:
        raise ToolError(f"Hold {first} on '{h['title']}' at this branch was placed earlier; fill holds in queue order.")
    c = _copy(db, barcode)
    if c["work_id"] != h["work_id"]:
        raise ToolError(f"Copy {c['barcode']} is '{c['title']}', not '{h['title']}'.")
    if c["branch_id"] != h["pickup_branch_id"]:
        raise ToolError(f"Copy {c['barcode']} belongs to {c['branch_name']}; transfer it to the pickup branch first.")
    if c["status"] != "available":
        raise ToolError(f"Copy {c['barcode']} is {c['status'].replace('_', ' ')}, not available.")
    pickup_by = _to_hold_shelf(db, hold_id, c["id"])
    return {"hold_id": hold_id, "status": "ready", "barcode": c["barcode"], "pickup_by": pickup_by}


@tool(write=True)
def expire_hold(db: Db, staff_email: str, hold_id: int) -> dict:
    """Expire a ready hold that was not picked up by its pickup-by date; its copy goes back on the shelf.
    Only staff of the pickup branch may do this, and only after the pickup-by date has passed.

    Args:
        staff_email: e-mail of a staff member of the pickup branch.
        hold_id: the hold's id, from list_holds.
    """
    s = _staff(db, staff_email)
    h = _hold(db, hold_id)
    _at_branch(s, h["pickup_branch_id"], f"expiring hold {hold_id}", db)
    if h["status"] != "ready":
        raise ToolError(f"Hold {hold_id} is {h['status']}; only a ready hold can expire.")
    if h["pickup_by"] >= db.today().isoformat():
        raise ToolError(f"Hold {hold_id} may still be picked up until {h['pickup_by']}; it cannot expire yet.")
    db.execute("UPDATE holds SET status = 'expired', closed_at = ? WHERE id = ?", (_now(db), hold_id))
    db.execute("UPDATE copies SET status = 'available' WHERE id = ? AND status = 'on_hold_shelf'", (h["copy_id"],))
    return {"hold_id": hold_id, "status": "expired"}


# ----------------------------------------------------------------------------------------------
# write tools: fines
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def pay_fines(db: Db, staff_email: str, card_number: str, amount_cents: int, method: Literal["cash", "card"],
              fine_id: int | None = None) -> dict:
    """Take a payment for a patron's unpaid fines at the desk. With a fine id, the payment goes to that fine
    only; without one, it is applied to the open fines oldest first. A fine paid in full becomes "paid". The
    amount cannot exceed what is owed.

    Args:
        staff_email: e-mail of the staff member taking the payment.
        card_number: the patron's 10-digit card number.
        amount_cents: the amount paid, in cents (e.g. 350 for $3.50).
        method: "cash" or "card".
        fine_id: pay only this fine (from list_fines).
    """
    s = _staff(db, staff_email)
    p = _patron_by_card(db, card_number)
    if amount_cents <= 0:
        raise ToolError("amount_cents must be a positive number of cents.")
    if fine_id is not None:
        f = _patrons(db, p, "SELECT * FROM fines WHERE id = ?", fine_id,
                     f"fine with id {fine_id}. Use list_fines with their card number.")
        if f["status"] != "open":
            raise ToolError(f"Fine {fine_id} is already {f['status']}.")
        fines = [f]
    else:
        fines = db.query("SELECT * FROM fines WHERE patron_id = ? AND status = 'open' ORDER BY created_at, id",
                         (p["id"],))
    owed = sum(f["amount_cents"] - f["paid_cents"] for f in fines)
    if owed == 0:
        raise ToolError(f"{p['full_name']} owes nothing.")
    if amount_cents > owed:
        raise ToolError(f"That is more than is owed: {_money(owed)}"
                        f"{' on fine ' + str(fine_id) if fine_id is not None else ''}. Take at most {owed} cents.")
    left, now, applied = amount_cents, _now(db), []
    for f in fines:
        if left == 0:
            break
        part = min(left, f["amount_cents"] - f["paid_cents"])
        paid = f["paid_cents"] + part
        db.execute("UPDATE fines SET paid_cents = ?, status = ? WHERE id = ?",
                   (paid, "paid" if paid == f["amount_cents"] else "open", f["id"]))
        db.insert("payments", {"fine_id": f["id"], "patron_id": p["id"], "amount_cents": part, "method": method,
                               "staff_id": s["id"], "paid_at": now})
        applied.append({"fine_id": f["id"], "paid": _money(part), "fine_status": "paid" if paid == f["amount_cents"]
                        else "open"})
        left -= part
    return {"card_number": p["card_number"], "applied": applied, "still_owed": _money(_owed(db, p["id"]))}


@tool(write=True)
def waive_fine(db: Db, staff_email: str, fine_id: int, reason: str) -> dict:
    """Waive what is still owed on an open fine. Only a branch manager may waive fines, and a reason is
    required.

    Args:
        staff_email: e-mail of the manager acting.
        fine_id: the fine's id, from list_fines.
        reason: why it is waived, e.g. "book drop was broken".
    """
    s = _staff(db, staff_email)
    require_role(s, ("manager",), "waive fines")
    f = db.one("SELECT * FROM fines WHERE id = ?", (fine_id,),
               missing=f"No fine with id {fine_id}. Use list_fines with the patron's card number.")
    if f["status"] != "open":
        raise ToolError(f"Fine {fine_id} is already {f['status']}.")
    if not reason.strip():
        raise ToolError("Give a reason for waiving the fine.")
    db.execute("UPDATE fines SET status = 'waived', waived_by = ?, waive_reason = ? WHERE id = ?",
               (s["id"], reason.strip(), fine_id))
    return {"fine_id": fine_id, "status": "waived", "waived": _money(f["amount_cents"] - f["paid_cents"])}


# ----------------------------------------------------------------------------------------------
# write tools: rooms, events, reading lists (self-service)
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def book_room(db: Db, patron_email: str, room_id: int, starts_at: str, ends_at: str, attendees: int,
              purpose: str) -> dict:
    """Book a branch room for the patron.

    Rules: the patron's card must be active and not expired; the booking must be in the future, start and
    end on the same day on the hour or half hour, last at most 3 hours, and fall within the branch's opening
    hours; attendees cannot exceed the room's capacity; and it may not overlap another booking of the room.

    Args:
        patron_email: the patron's e-mail (the account acting).
        room_id: the room's id, from list_rooms.
        starts_at: start, local time YYYY-MM-DDTHH:MM.
        ends_at: end, local time YYYY-MM-DDTHH:MM.
        attendees: how many people will attend.
        purpose: what the room is for, e.g. "Book club meeting".
    """
    p = _patron_by_email(db, patron_email)
    _valid_card(db, p, "rooms can only be booked on a valid card")
    r = db.one("SELECT r.*, b.opens_at, b.closes_at, b.name AS branch_name FROM rooms r JOIN branches b "
               "ON b.id = r.branch_id WHERE r.id = ?", (room_id,),
               missing=f"No room with id {room_id}. Use list_rooms with the branch code.")
    s, e = _moment(starts_at, "starts_at"), _moment(ends_at, "ends_at")
    if s <= db.now():
        raise ToolError("Bookings must start in the future.")
    if e <= s or s.date() != e.date():
        raise ToolError("A booking must end after it starts, on the same day.")
    if s.minute % 30 or e.minute % 30 or s.second or e.second:
        raise ToolError("Bookings start and end on the hour or the half hour.")
    if (e - s).total_seconds() > MAX_BOOKING_MINUTES * 60:
        raise ToolError("A booking can last at most 3 hours.")
    if s.strftime("%H:%M") < r["opens_at"] or e.strftime("%H:%M") > r["closes_at"]:
        raise ToolError(f"{r['branch_name']} is open {r['opens_at']}-{r['closes_at']}; book within those hours.")
    if not 1 <= attendees <= r["capacity"]:
        raise ToolError(f"{r['name']} holds at most {r['capacity']} people.")
    if not purpose.strip():
        raise ToolError("Say what the room is for (purpose).")
    si, ei = s.isoformat(timespec="seconds"), e.isoformat(timespec="seconds")
    clash = db.one("SELECT starts_at, ends_at FROM room_bookings WHERE room_id = ? AND status = 'booked' "
                   "AND starts_at < ? AND ends_at > ?", (room_id, ei, si))
    if clash:
        raise ToolError(f"{r['name']} is already booked from {clash['starts_at']} to {clash['ends_at']}; choose "
                        "another time or room.")
    bid = db.insert("room_bookings", {"room_id": room_id, "patron_id": p["id"], "starts_at": si, "ends_at": ei,
                                      "attendees": attendees, "purpose": purpose.strip(), "status": "booked",
                                      "created_at": _now(db)})
    return {"booking_id": bid, "room": r["name"], "starts_at": si, "ends_at": ei, "status": "booked"}


@tool(write=True)
def cancel_room_booking(db: Db, patron_email: str, booking_id: int) -> dict:
    """Cancel one of the patron's own room bookings that has not started yet.

    Args:
        patron_email: the patron's e-mail (the account acting).
        booking_id: the booking's id, from list_room_bookings.
    """
    p = _patron_by_email(db, patron_email)
    b = _patrons(db, p, "SELECT * FROM room_bookings WHERE id = ?", booking_id, f"room booking with id {booking_id}.")
    if b["status"] != "booked":
        raise ToolError(f"Booking {booking_id} is already cancelled.")
    if b["starts_at"] <= _now(db):
        raise ToolError(f"Booking {booking_id} has already started and cannot be cancelled.")
    db.execute("UPDATE room_bookings SET status = 'cancelled' WHERE id = ?", (booking_id,))
    return {"booking_id": booking_id, "status": "cancelled"}


@tool(write=True)
def register_for_event(db: Db, patron_email: str, event_id: int) -> dict:
    """Register the patron for an upcoming scheduled event, if places are left. The patron's card must be active
    and not expired; a patron registers once per event (a cancelled registration can be renewed).

    Args:
        patron_email: the patron's e-mail (the account acting).
        event_id: the event's id, from list_events.
    """
    p = _patron_by_email(db, patron_email)
    _valid_card(db, p, "events need a valid card")
    e = db.one("SELECT * FROM events WHERE id = ?", (event_id,),
               missing=f"No event with id {event_id}. Use list_events to find events.")
    if e["status"] != "scheduled":
        raise ToolError(f"'{e['title']}' has been cancelled.")
    if e["starts_at"] <= _now(db):
        raise ToolError(f"'{e['title']}' has already started.")
    reg = db.one("SELECT * FROM event_registrations WHERE event_id = ? AND patron_id = ?", (event_id, p["id"]))
    if reg and reg["status"] == "registered":
        raise ToolError(f"{p['full_name']} is already registered for '{e['title']}'.")
    taken = db.value("SELECT COUNT(*) FROM event_registrations WHERE event_id = ? AND status = 'registered'",
                     (event_id,))
    if taken >= e["capacity"]:
        raise ToolError(f"'{e['title']}' is full ({e['capacity']} places).")
    if reg:
        db.execute("UPDATE event_registrations SET status = 'registered', registered_at = ? WHERE id = ?",
                   (_now(db), reg["id"]))
    else:
        db.insert("event_registrations", {"event_id": event_id, "patron_id": p["id"], "status": "registered",
                                          "registered_at": _now(db)})
    return {"event_id": event_id, "title": e["title"], "status": "registered", "places_left": e["capacity"] - taken - 1}


@tool(write=True)
def cancel_event_registration(db: Db, patron_email: str, event_id: int) -> dict:
    """Cancel the patron's own registration for an event that has not started yet.

    Args:
        patron_email: the patron's e-mail (the account acting).
        event_id: the event's id.
    """
    p = _patron_by_email(db, patron_email)
    reg = db.one("SELECT r.*, e.starts_at, e.title FROM event_registrations r JOIN events e ON e.id = r.event_id "
                 "WHERE r.event_id = ? AND r.patron_id = ?", (event_id, p["id"]))
    if reg is None or reg["status"] != "registered":
        raise ToolError(f"{p['full_name']} is not registered for event {event_id}.")
    if reg["starts_at"] <= _now(db):
        raise ToolError(f"'{reg['title']}' has already started.")
    db.execute("UPDATE event_registrations SET status = 'cancelled' WHERE id = ?", (reg["id"],))
    return {"event_id": event_id, "title": reg["title"], "status": "cancelled"}


@tool(write=True)
def create_reading_list(db: Db, patron_email: str, name: str, is_public: bool = False) -> dict:
    """Create a new, empty reading list for the patron. Names are unique per patron; at most 10 lists.

    Args:
        patron_email: the patron's e-mail (the account acting).
        name: the list's name, 1 to 80 characters.
        is_public: whether other patrons can see it.
    """
    p = _patron_by_email(db, patron_email)
    name = name.strip()
    if not 1 <= len(name) <= 80:
        raise ToolError("A reading list name has 1 to 80 characters.")
    db.none("SELECT 1 FROM reading_lists WHERE patron_id = ? AND lower(name) = lower(?)", (p["id"], name),
            found=f"{p['full_name']} already has a reading list called {name!r}.")
    if db.value("SELECT COUNT(*) FROM reading_lists WHERE patron_id = ?", (p["id"],)) >= MAX_READING_LISTS:
        raise ToolError(f"{p['full_name']} already has {MAX_READING_LISTS} reading lists, the maximum.")
    lid = db.insert("reading_lists", {"patron_id": p["id"], "name": name, "is_public": int(is_public),
                                      "created_at": _now(db)})
    return {"list_id": lid, "name": name, "is_public": is_public}


@tool(write=True)
def add_to_reading_list(db: Db, patron_email: str, list_id: int, work_id: int) -> dict:
    """Add a work to one of the patron's own reading lists (once; at most 50 works per list).

    Args:
        patron_email: the patron's e-mail (the account acting).
        list_id: the list's id, from list_reading_lists.
        work_id: the work's id, from search_catalog.
    """
    p = _patron_by_email(db, patron_email)
    rl = _patrons(db, p, "SELECT * FROM reading_lists WHERE id = ?", list_id, f"reading list with id {list_id}.")
    w = _work(db, work_id)
    db.none("SELECT 1 FROM reading_list_items WHERE list_id = ? AND work_id = ?", (list_id, work_id),
            found=f"'{w['title']}' is already on {rl['name']!r}.")
    if db.value("SELECT COUNT(*) FROM reading_list_items WHERE list_id = ?", (list_id,)) >= MAX_LIST_ITEMS:
        raise ToolError(f"{rl['name']!r} already has {MAX_LIST_ITEMS} works.")
    db.insert("reading_list_items", {"list_id": list_id, "work_id": work_id, "added_at": _now(db)})
    return {"list_id": list_id, "work_id": work_id, "title": w["title"]}


@tool(write=True)
def remove_from_reading_list(db: Db, patron_email: str, list_id: int, work_id: int) -> dict:
    """Remove a work from one of the patron's own reading lists.

    Args:
        patron_email: the patron's e-mail (the account acting).
        list_id: the list's id, from list_reading_lists.
        work_id: the work's id.
    """
    p = _patron_by_email(db, patron_email)
    rl = _patrons(db, p, "SELECT * FROM reading_lists WHERE id = ?", list_id, f"reading list with id {list_id}.")
    if not db.execute("DELETE FROM reading_list_items WHERE list_id = ? AND work_id = ?", (list_id, work_id)):
        raise ToolError(f"Work {work_id} is not on {rl['name']!r}.")
    return {"list_id": list_id, "work_id": work_id, "removed": True}
