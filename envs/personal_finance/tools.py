"""Tools of the personal_finance world: a budgeting app.

Every tool takes the e-mail of the user acting (``user_email``). A user sees the accounts they own and
the joint accounts of the households they belong to; household owners and editors may change joint
accounts, viewers only look. Budgets, goals, bills, rules, snapshots and alerts are personal.
Amounts given to tools are US dollars (e.g. 45.2 for $45.20); results show dollars too. Transaction
amounts are signed: negative is money out (or a card purchase), positive is money in.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, add_months, filters, like_contains, parse_day, to_cents, tool
from awm.tooling import check_limit as _limit
from awm.tooling import dollars as _d
from awm.tooling import now_iso as _now

MONTHS_BY_FREQ = {"monthly": 1, "quarterly": 3, "yearly": 12}
MAX_ACTIVE_GOALS = 10
MAX_SPLIT_PARTS = 5
PAY_AHEAD_DAYS = 30
MANUAL_TX_MAX_AGE = 60

AccountType = Literal["checking", "savings", "credit_card"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _cents(amount: float, what: str, positive: bool = True) -> int:
    c = to_cents(amount, what, positive=positive)
    if c == 0:
        raise ToolError(f"{what} must not be zero.")
    return c


def _day(value: str, what: str) -> date:
    return parse_day(value, what, "2026-06-15")


def _month(value: str) -> str:
    v = value.strip()
    if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", v):
        raise ToolError(f"month must be written YYYY-MM, e.g. '2026-06' (got {value!r})")
    return v


def _user(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT * FROM users WHERE lower(email) = lower(?)", (email.strip(),),
                  missing=f"No user with e-mail {email!r}.")


_ACCESS_SQL = (
    "SELECT a.*, i.name AS institution, u.full_name AS owner, h.name AS household, "
    "CASE WHEN a.user_id = ? THEN 'owner' ELSE (SELECT m.role FROM household_members m WHERE "
    "m.household_id = a.household_id AND m.user_id = ?) END AS access FROM accounts a "
    "JOIN institutions i ON i.id = a.institution_id JOIN users u ON u.id = a.user_id "
    "LEFT JOIN households h ON h.id = a.household_id WHERE a.id = ? AND access IS NOT NULL")


def _account(db: Db, user: dict[str, Any], account_id: int, edit: bool = False) -> dict[str, Any]:
    a = db.one(_ACCESS_SQL, (user["id"], user["id"], account_id),
               missing=f"{user['full_name']} has no account with id {account_id}; list_accounts shows the ones they "
               "can see.")
    if edit and a["access"] == "viewer":
        raise ToolError(f"{user['full_name']} is only a viewer of the {a['household']} household and cannot change "
                        f"its joint account {a['name']}; ask a household owner or editor.")
    if edit and a["status"] != "active":
        raise ToolError(f"Account {a['name']} is closed.")
    return a


def _category(db: Db, name: str) -> dict[str, Any]:
    return db.one("SELECT * FROM categories WHERE lower(name) = lower(?)", (name.strip(),),
                  missing=f"No category named {name!r}; list_categories shows them.")


def _merchant(db: Db, name: str) -> dict[str, Any]:
    return db.one("SELECT * FROM merchants WHERE lower(name) = lower(?)", (name.strip(),),
                  missing=f"No merchant named {name!r}; search_merchants finds them.")


def _move(db: Db, a: dict[str, Any], amount: int) -> int:
    """Apply a signed amount to an account's balance, refusing overdrafts and over-limit card spending."""
    if a["account_type"] == "credit_card":
        new = a["balance_cents"] - amount
        if new < 0:
            raise ToolError(f"That would pay {a['name']} beyond what is owed ({_d(a['balance_cents'])} dollars).")
        if new > a["credit_limit_cents"]:
            raise ToolError(f"That would take {a['name']} over its credit limit ({_d(a['credit_limit_cents'])} dollars; "
                            f"{_d(a['balance_cents'])} owed now).")
    else:
        new = a["balance_cents"] + amount
        if new < 0:
            raise ToolError(f"{a['name']} only has {_d(a['balance_cents'])} dollars; that would overdraw it.")
    db.execute("UPDATE accounts SET balance_cents = ? WHERE id = ?", (new, a["id"]))
    a["balance_cents"] = new
    return new


def _add_tx(db: Db, a: dict[str, Any], amount: int, description: str, category_id: int | None,
            merchant_id: int | None = None, note: str = "", posted_on: str | None = None) -> int:
    _move(db, a, amount)
    return db.insert("transactions", {"account_id": a["id"], "posted_on": posted_on or db.today().isoformat(),
                                      "description": description, "merchant_id": merchant_id,
                                      "category_id": category_id, "amount_cents": amount, "status": "posted",
                                      "is_split": 0, "note": note, "created_at": _now(db)})


def _bill(db: Db, user: dict[str, Any], bill_id: int, hint: str = "") -> dict[str, Any]:
    return db.one("SELECT * FROM bills WHERE id = ? AND user_id = ?", (bill_id, user["id"]),
                  missing=f"{user['full_name']} has no bill with id {bill_id}{hint}.")


def _transfers_id(db: Db) -> int:
    return db.value("SELECT id FROM categories WHERE name = 'Transfers'")


def _spent(db: Db, user_id: int, month: str, category_id: int) -> int:
    """Net spending (outflows minus refunds) in a category and month on the user's own accounts, splits
    counted by their parts."""
    return db.value(
        "SELECT COALESCE(SUM(-amt), 0) FROM (SELECT t.amount_cents AS amt FROM transactions t JOIN accounts a ON "
        "a.id = t.account_id WHERE a.user_id = ? AND t.is_split = 0 AND t.category_id = ? AND substr(t.posted_on, 1, 7) = ? "
        "UNION ALL SELECT s.amount_cents FROM transaction_splits s JOIN transactions t ON t.id = s.transaction_id JOIN "
        "accounts a ON a.id = t.account_id WHERE a.user_id = ? AND s.category_id = ? AND substr(t.posted_on, 1, 7) = ?)",
        (user_id, category_id, month, user_id, category_id, month))


def _tx(db: Db, user: dict[str, Any], transaction_id: int, edit: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    t = db.one("SELECT * FROM transactions WHERE id = ?", (transaction_id,),
               missing=f"No transaction with id {transaction_id}; list_transactions finds them.")
    a = _account(db, user, t["account_id"], edit)
    return t, a


def _net_worth(db: Db, user_id: int) -> dict[str, int]:
    """Assets (checking and savings balances) and liabilities (card balances) of the user's own active accounts."""
    return db.one("SELECT COALESCE(SUM(CASE WHEN account_type <> 'credit_card' THEN balance_cents END), 0) AS assets, "
                  "COALESCE(SUM(CASE WHEN account_type = 'credit_card' THEN balance_cents END), 0) AS liabilities "
                  "FROM accounts WHERE user_id = ? AND status = 'active'", (user_id,))


def _tx_out(r: dict[str, Any]) -> dict[str, Any]:
    return {"id": r["id"], "account_id": r["account_id"], "posted_on": r["posted_on"], "description": r["description"],
            "merchant": r.get("merchant"), "category": "(split)" if r["is_split"] else r.get("category"),
            "amount": _d(r["amount_cents"]), "status": r["status"], "note": r["note"]}


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def get_profile(db: Db, user_email: str) -> dict:
    """A user's profile and the households they belong to, with their role in each.

    Args:
        user_email: the user's e-mail.
    """
    u = _user(db, user_email)
    return {"full_name": u["full_name"], "email": u["email"], "member_since": u["created_at"][:10],
            "households": db.query("SELECT h.name, m.role FROM household_members m JOIN households h ON "
                                   "h.id = m.household_id WHERE m.user_id = ? ORDER BY h.name", (u["id"],))}


@tool
def list_accounts(db: Db, user_email: str, include_closed: bool = False) -> list[dict]:
    """The accounts a user can see: their own and their households' joint accounts, with balances in
    dollars (for credit cards, the balance is the amount owed) and the user's access (owner, editor,
    viewer).

    Args:
        user_email: the user's e-mail.
        include_closed: also list closed accounts.
    """
    u = _user(db, user_email)
    rows = db.query(
        "SELECT a.id, a.name, a.account_type, i.name AS institution, a.mask, a.balance_cents, a.credit_limit_cents, "
        "a.status, u.full_name AS owner, h.name AS household, CASE WHEN a.user_id = ? THEN 'owner' ELSE "
        "(SELECT m.role FROM household_members m WHERE m.household_id = a.household_id AND m.user_id = ?) END AS access "
        "FROM accounts a JOIN institutions i ON i.id = a.institution_id JOIN users u ON u.id = a.user_id "
        "LEFT JOIN households h ON h.id = a.household_id WHERE (a.user_id = ? OR a.household_id IN (SELECT "
        "household_id FROM household_members WHERE user_id = ?)) AND (? OR a.status = 'active') ORDER BY a.id",
        (u["id"], u["id"], u["id"], u["id"], int(include_closed)))
    for r in rows:
        r["balance"] = _d(r.pop("balance_cents"))
        r["credit_limit"] = _d(r.pop("credit_limit_cents"))
    return rows


@tool
def get_net_worth(db: Db, user_email: str) -> dict:
    """A user's net worth now from the active accounts in their own name: assets (checking and savings
    balances) minus liabilities (credit-card balances owed), in dollars. Joint accounts owned by someone
    else are not included.

    Args:
        user_email: the user's e-mail.
    """
    u = _user(db, user_email)
    r = _net_worth(db, u["id"])
    return {"assets": _d(r["assets"]), "liabilities": _d(r["liabilities"]), "net_worth": _d(r["assets"] - r["liabilities"])}


@tool
def list_transactions(db: Db, user_email: str, account_id: int | None = None, date_from: str | None = None,
                      date_to: str | None = None, category: str | None = None, merchant: str | None = None,
                      text: str | None = None, uncategorized_only: bool = False, limit: int = 20,
                      offset: int = 0) -> list[dict]:
    """Transactions on the accounts a user can see, newest first. A split transaction shows category
    "(split)"; get_transaction shows its parts.

    Args:
        user_email: the user's e-mail.
        account_id: only this account.
        date_from: posted on or after, YYYY-MM-DD.
        date_to: posted on or before, YYYY-MM-DD.
        category: only this category (unsplit transactions).
        merchant: only this merchant (exact name).
        text: words in the description.
        uncategorized_only: only transactions with no category that are not split.
        limit: maximum number of results, 1 to 50.
        offset: results to skip, for paging.
    """
    _limit(limit)
    if offset < 0:
        raise ToolError("offset must be 0 or more")
    u = _user(db, user_email)
    if account_id is not None:
        _account(db, u, account_id)
    d1 = _day(date_from, "date_from").isoformat() if date_from else None
    d2 = _day(date_to, "date_to").isoformat() if date_to else None
    cid = _category(db, category)["id"] if category else None
    mid = _merchant(db, merchant)["id"] if merchant else None
    t = like_contains(text.strip()) if text else None
    where, params = filters(("t.account_id = ?", account_id), ("t.posted_on >= ?", d1), ("t.posted_on <= ?", d2),
                            ("t.category_id = ?", cid), ("t.merchant_id = ?", mid),
                            ("t.description LIKE ? ESCAPE '\\'", t))
    rows = db.query(
        "SELECT t.*, m.name AS merchant, c.name AS category FROM transactions t JOIN accounts a ON a.id = t.account_id "
        "LEFT JOIN merchants m ON m.id = t.merchant_id LEFT JOIN categories c ON c.id = t.category_id "
        "WHERE (a.user_id = ? OR a.household_id IN (SELECT household_id FROM household_members WHERE user_id = ?)) "
        f"AND {where} AND (? = 0 OR (t.category_id IS NULL AND t.is_split = 0)) "
        "ORDER BY t.posted_on DESC, t.id DESC LIMIT ? OFFSET ?",
        (u["id"], u["id"], *params, int(uncategorized_only), limit, offset))
    return [_tx_out(r) for r in rows]


@tool
def get_transaction(db: Db, user_email: str, transaction_id: int) -> dict:
    """One transaction with its split parts, if any.

    Args:
        user_email: the user's e-mail.
        transaction_id: the transaction's id.
    """
    u = _user(db, user_email)
    t, a = _tx(db, u, transaction_id)
    r = db.one("SELECT t.*, m.name AS merchant, c.name AS category FROM transactions t LEFT JOIN merchants m ON "
               "m.id = t.merchant_id LEFT JOIN categories c ON c.id = t.category_id WHERE t.id = ?", (transaction_id,))
    out = _tx_out(r)
    out["account"] = a["name"]
    out["splits"] = [{"category": s["name"], "amount": _d(s["amount_cents"])} for s in db.query(
        "SELECT c.name, s.amount_cents FROM transaction_splits s JOIN categories c ON c.id = s.category_id WHERE "
        "s.transaction_id = ? ORDER BY s.id", (transaction_id,))]
    return out


@tool
def list_categories(db: Db, kind: Literal["expense", "income", "transfer"] | None = None) -> list[dict]:
    """The spending and income categories.

    Args:
        kind: only expense, income or transfer categories.
    """
    return db.query("SELECT name, kind FROM categories WHERE (? IS NULL OR kind = ?) ORDER BY name", (kind, kind))


@tool
def search_merchants(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Find merchants by part of their name, with their usual category.

    Args:
        query: part of the merchant's name, e.g. "whole".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    return db.query("SELECT m.name, c.name AS default_category FROM merchants m LEFT JOIN categories c ON c.id = "
                    "m.default_category_id WHERE m.name LIKE ? ESCAPE '\\' ORDER BY m.name LIMIT ?",
                    (like_contains(query.strip()), limit))


@tool
def list_budgets(db: Db, user_email: str, month: str) -> list[dict]:
    """A user's budgets for a month, each with the net amount spent so far on their own accounts (split
    transactions counted by their parts, refunds subtracted), what remains, and whether it is over.

    Args:
        user_email: the user's e-mail.
        month: the month, YYYY-MM.
    """
    u = _user(db, user_email)
    m = _month(month)
    out = []
    for b in db.query("SELECT b.*, c.name AS category FROM budgets b JOIN categories c ON c.id = b.category_id WHERE "
                      "b.user_id = ? AND b.month = ? ORDER BY c.name", (u["id"], m)):
        spent = _spent(db, u["id"], m, b["category_id"])
        out.append({"category": b["category"], "limit": _d(b["limit_cents"]), "spent": _d(spent),
                    "remaining": _d(b["limit_cents"] - spent), "over_budget": spent > b["limit_cents"]})
    return out


@tool
def get_spending_summary(db: Db, user_email: str, month: str) -> list[dict]:
    """Net spending per expense category in a month on the user's own accounts (split transactions
    counted by their parts, refunds subtracted), largest first.

    Args:
        user_email: the user's e-mail.
        month: the month, YYYY-MM.
    """
    u = _user(db, user_email)
    m = _month(month)
    out = []
    for c in db.query("SELECT id, name FROM categories WHERE kind = 'expense' ORDER BY name"):
        s = _spent(db, u["id"], m, c["id"])
        if s:
            out.append({"category": c["name"], "spent": _d(s)})
    return sorted(out, key=lambda r: -r["spent"])


@tool
def list_goals(db: Db, user_email: str) -> list[dict]:
    """A user's savings goals with target, amount saved and what is left.

    Args:
        user_email: the user's e-mail.
    """
    u = _user(db, user_email)
    rows = db.query("SELECT id, name, target_cents, saved_cents, target_date, status FROM savings_goals WHERE "
                    "user_id = ? ORDER BY id", (u["id"],))
    return [{"id": r["id"], "name": r["name"], "target": _d(r["target_cents"]), "saved": _d(r["saved_cents"]),
             "left_to_save": _d(r["target_cents"] - r["saved_cents"]), "target_date": r["target_date"],
             "status": r["status"]} for r in rows]


@tool
def list_bills(db: Db, user_email: str, status: Literal["active", "cancelled", "any"] = "active") -> list[dict]:
    """A user's recurring bills with the next due date and whether it is overdue.

    Args:
        user_email: the user's e-mail.
        status: active, cancelled or any.
    """
    u = _user(db, user_email)
    rows = db.query("SELECT b.*, m.name AS merchant, a.name AS account FROM bills b JOIN merchants m ON m.id = "
                    "b.merchant_id JOIN accounts a ON a.id = b.account_id WHERE b.user_id = ? AND (? = 'any' OR "
                    "b.status = ?) ORDER BY b.next_due_on, b.id", (u["id"], status, status))
    today = db.today().isoformat()
    return [{"id": r["id"], "name": r["name"], "merchant": r["merchant"], "amount": _d(r["amount_cents"]),
             "frequency": r["frequency"], "next_due_on": r["next_due_on"], "overdue": r["next_due_on"] < today
             and r["status"] == "active", "autopay": bool(r["autopay"]), "pay_from_account_id": r["account_id"],
             "pay_from": r["account"], "status": r["status"]} for r in rows]


@tool
def list_bill_payments(db: Db, user_email: str, bill_id: int, limit: int = 12) -> list[dict]:
    """Past payments of one of the user's bills, newest first.

    Args:
        user_email: the user's e-mail.
        bill_id: the bill's id.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    u = _user(db, user_email)
    _bill(db, u, bill_id)
    rows = db.query("SELECT p.due_on, p.paid_on, p.amount_cents, a.name AS account FROM bill_payments p JOIN accounts a "
                    "ON a.id = p.account_id WHERE p.bill_id = ? ORDER BY p.due_on DESC LIMIT ?", (bill_id, limit))
    for r in rows:
        r["amount"] = _d(r.pop("amount_cents"))
    return rows


@tool
def list_rules(db: Db, user_email: str) -> list[dict]:
    """A user's categorisation rules (merchant -> category).

    Args:
        user_email: the user's e-mail.
    """
    u = _user(db, user_email)
    return db.query("SELECT r.id, m.name AS merchant, c.name AS category, r.created_at FROM categorization_rules r "
                    "JOIN merchants m ON m.id = r.merchant_id JOIN categories c ON c.id = r.category_id WHERE "
                    "r.user_id = ? ORDER BY r.id", (u["id"],))


@tool
def list_net_worth_snapshots(db: Db, user_email: str, limit: int = 12) -> list[dict]:
    """A user's saved net-worth snapshots, newest first, in dollars.

    Args:
        user_email: the user's e-mail.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    u = _user(db, user_email)
    rows = db.query("SELECT taken_on, assets_cents, liabilities_cents, net_cents FROM net_worth_snapshots WHERE "
                    "user_id = ? ORDER BY taken_on DESC LIMIT ?", (u["id"], limit))
    return [{"taken_on": r["taken_on"], "assets": _d(r["assets_cents"]), "liabilities": _d(r["liabilities_cents"]),
             "net_worth": _d(r["net_cents"])} for r in rows]


@tool
def list_household_members(db: Db, user_email: str, household: str) -> list[dict]:
    """The members of a household the user belongs to, with their roles.

    Args:
        user_email: the user's e-mail.
        household: the household's name.
    """
    u = _user(db, user_email)
    h = db.one("SELECT * FROM households WHERE lower(name) = lower(?)", (household.strip(),))
    if h is None or not db.value("SELECT 1 FROM household_members WHERE household_id = ? AND user_id = ?",
                                 (h["id"], u["id"])):
        raise ToolError(f"{u['full_name']} is not a member of a household called {household!r}; get_profile lists theirs.")
    return db.query("SELECT us.full_name, us.email, m.role, m.joined_at FROM household_members m JOIN users us ON "
                    "us.id = m.user_id WHERE m.household_id = ? ORDER BY m.id", (h["id"],))


@tool
def list_alerts(db: Db, user_email: str) -> list[dict]:
    """A user's alerts.

    Args:
        user_email: the user's e-mail.
    """
    u = _user(db, user_email)
    rows = db.query("SELECT al.id, al.alert_type, a.name AS account, al.threshold_cents, al.is_active FROM alerts al "
                    "LEFT JOIN accounts a ON a.id = al.account_id WHERE al.user_id = ? ORDER BY al.id", (u["id"],))
    for r in rows:
        r["threshold"] = _d(r.pop("threshold_cents"))
    return rows


# ----------------------------------------------------------------------------------------------
# write tools: transactions and transfers
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def categorize_transaction(db: Db, user_email: str, transaction_id: int, category: str) -> dict:
    """Set the category of an unsplit transaction on an account the user may change.

    Args:
        user_email: the acting user's e-mail.
        transaction_id: the transaction's id.
        category: the category name, e.g. "Groceries".
    """
    u = _user(db, user_email)
    t, a = _tx(db, u, transaction_id, edit=True)
    if t["is_split"]:
        raise ToolError(f"Transaction {transaction_id} is split across categories; change it with split_transaction.")
    c = _category(db, category)
    if t["category_id"] == c["id"]:
        raise ToolError(f"Transaction {transaction_id} is already in {c['name']}.")
    db.execute("UPDATE transactions SET category_id = ? WHERE id = ?", (c["id"], transaction_id))
    return {"transaction_id": transaction_id, "category": c["name"]}


@tool(write=True)
def split_transaction(db: Db, user_email: str, transaction_id: int, categories: list[str], amounts: list[float]) -> dict:
    """Split a transaction across 2 to 5 categories. Give the parts as two parallel lists; the amounts are
    positive dollars and must add up exactly to the transaction's amount (ignoring its sign). Splitting
    again replaces the previous parts.

    Args:
        user_email: the acting user's e-mail.
        transaction_id: the transaction's id.
        categories: the category of each part, e.g. ["Groceries", "Home"].
        amounts: the dollars of each part, e.g. [45.2, 12.5].
    """
    u = _user(db, user_email)
    t, a = _tx(db, u, transaction_id, edit=True)
    if len(categories) != len(amounts):
        raise ToolError("categories and amounts must have the same number of items.")
    if not 2 <= len(categories) <= MAX_SPLIT_PARTS:
        raise ToolError(f"A split has 2 to {MAX_SPLIT_PARTS} parts.")
    cats = [_category(db, c) for c in categories]
    cents = [_cents(x, "each split amount") for x in amounts]
    if sum(cents) != abs(t["amount_cents"]):
        raise ToolError(f"The parts add up to {_d(sum(cents))} but the transaction is {_d(abs(t['amount_cents']))}; "
                        "they must match exactly.")
    sign = 1 if t["amount_cents"] > 0 else -1
    db.execute("DELETE FROM transaction_splits WHERE transaction_id = ?", (transaction_id,))
    for c, x in zip(cats, cents):
        db.insert("transaction_splits", {"transaction_id": transaction_id, "category_id": c["id"], "amount_cents": sign * x})
    db.execute("UPDATE transactions SET is_split = 1, category_id = NULL WHERE id = ?", (transaction_id,))
    return {"transaction_id": transaction_id, "parts": [{"category": c["name"], "amount": _d(x)} for c, x in zip(cats, cents)]}


@tool(write=True)
def add_transaction_note(db: Db, user_email: str, transaction_id: int, note: str) -> dict:
    """Set the note of a transaction on an account the user may change (replaces any earlier note).

    Args:
        user_email: the acting user's e-mail.
        transaction_id: the transaction's id.
        note: the note text.
    """
    u = _user(db, user_email)
    t, a = _tx(db, u, transaction_id, edit=True)
    db.execute("UPDATE transactions SET note = ? WHERE id = ?", (note.strip(), transaction_id))
    return {"transaction_id": transaction_id, "note": note.strip()}


@tool(write=True)
def add_manual_transaction(db: Db, user_email: str, account_id: int, posted_on: str, description: str, amount: float,
                           category: str, merchant: str | None = None) -> dict:
    """Record a transaction by hand (e.g. a cash expense or a cheque) on an account the user may change;
    the balance moves with it. The date must be within the last 60 days and not in the future. Accounts
    cannot be overdrawn and cards cannot go over their limit.

    Args:
        user_email: the acting user's e-mail.
        account_id: the account's id.
        posted_on: the date, YYYY-MM-DD.
        description: what it was.
        amount: signed dollars: negative for money out (or a card purchase), positive for money in.
        category: the category name.
        merchant: the merchant's name, if any.
    """
    u = _user(db, user_email)
    a = _account(db, u, account_id, edit=True)
    d = _day(posted_on, "posted_on")
    if d > db.today() or d < db.today() - timedelta(days=MANUAL_TX_MAX_AGE):
        raise ToolError(f"posted_on must be between {(db.today() - timedelta(days=MANUAL_TX_MAX_AGE)).isoformat()} "
                        f"and today ({db.today().isoformat()}).")
    if not description.strip():
        raise ToolError("description must not be empty.")
    amt = _cents(amount, "amount", positive=False)
    c = _category(db, category)
    mid = _merchant(db, merchant)["id"] if merchant else None
    tid = _add_tx(db, a, amt, description.strip(), c["id"], mid, posted_on=d.isoformat())
    return {"transaction_id": tid, "account": a["name"], "new_balance": _d(a["balance_cents"])}


@tool(write=True)
def transfer_funds(db: Db, user_email: str, from_account_id: int, to_account_id: int, amount: float,
                   note: str = "") -> dict:
    """Move money between two accounts the user may change: from a checking or savings account (which
    must hold the amount) to another checking or savings account, or to a credit card as a payment (at most
    what is owed). Records a Transfers transaction on each side, dated today.

    Args:
        user_email: the acting user's e-mail.
        from_account_id: the account the money leaves.
        to_account_id: the account (or card) it goes to.
        amount: dollars, more than zero.
        note: an optional note on both transactions.
    """
    u = _user(db, user_email)
    if from_account_id == to_account_id:
        raise ToolError("from_account_id and to_account_id must differ.")
    src = _account(db, u, from_account_id, edit=True)
    dst = _account(db, u, to_account_id, edit=True)
    if src["account_type"] == "credit_card":
        raise ToolError("Transfers cannot be made out of a credit card.")
    amt = _cents(amount, "amount")
    tr = _transfers_id(db)
    label = "Card payment from" if dst["account_type"] == "credit_card" else "Transfer from"
    out_id = _add_tx(db, src, -amt, f"Transfer to {dst['name']}", tr, note=note.strip())
    in_id = _add_tx(db, dst, amt, f"{label} {src['name']}", tr, note=note.strip())
    return {"from": src["name"], "from_balance": _d(src["balance_cents"]), "to": dst["name"],
            "to_balance": _d(dst["balance_cents"]), "transaction_ids": [out_id, in_id]}


# ----------------------------------------------------------------------------------------------
# write tools: budgets, goals, bills, rules
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def set_budget(db: Db, user_email: str, month: str, category: str, limit: float) -> dict:
    """Create or change a user's budget for an expense category in the current or a future month.

    Args:
        user_email: the user's e-mail.
        month: the month, YYYY-MM (not a past month).
        category: an expense category, e.g. "Dining".
        limit: the monthly limit in dollars.
    """
    u = _user(db, user_email)
    m = _month(month)
    if m < db.today().isoformat()[:7]:
        raise ToolError(f"{m} is in the past; budgets can be set for {db.today().isoformat()[:7]} or later.")
    c = _category(db, category)
    if c["kind"] != "expense":
        raise ToolError(f"{c['name']} is an {c['kind']} category; budgets are for expense categories.")
    cents = _cents(limit, "limit")
    old = db.one("SELECT * FROM budgets WHERE user_id = ? AND month = ? AND category_id = ?", (u["id"], m, c["id"]))
    if old:
        if old["limit_cents"] == cents:
            raise ToolError(f"The {c['name']} budget for {m} is already {_d(cents)}.")
        db.execute("UPDATE budgets SET limit_cents = ? WHERE id = ?", (cents, old["id"]))
    else:
        db.insert("budgets", {"user_id": u["id"], "month": m, "category_id": c["id"], "limit_cents": cents,
                              "created_at": _now(db)})
    return {"month": m, "category": c["name"], "limit": _d(cents), "updated": old is not None}


@tool(write=True)
def create_goal(db: Db, user_email: str, name: str, target: float, target_date: str) -> dict:
    """Create a savings goal (names unique per user, at most 10 active goals, target date in the future).

    Args:
        user_email: the user's e-mail.
        name: e.g. "Emergency fund".
        target: the amount to reach, dollars.
        target_date: when to reach it, YYYY-MM-DD.
    """
    u = _user(db, user_email)
    if not name.strip():
        raise ToolError("name must not be empty.")
    cents = _cents(target, "target")
    d = _day(target_date, "target_date")
    if d <= db.today():
        raise ToolError("target_date must be in the future.")
    db.none("SELECT 1 FROM savings_goals WHERE user_id = ? AND lower(name) = lower(?)", (u["id"], name.strip()),
            found=f"{u['full_name']} already has a goal called {name.strip()!r}.")
    if db.value("SELECT COUNT(*) FROM savings_goals WHERE user_id = ? AND status = 'active'", (u["id"],)) >= MAX_ACTIVE_GOALS:
        raise ToolError(f"At most {MAX_ACTIVE_GOALS} active goals.")
    gid = db.insert("savings_goals", {"user_id": u["id"], "name": name.strip(), "target_cents": cents, "saved_cents": 0,
                                      "target_date": d.isoformat(), "status": "active", "created_at": _now(db)})
    return {"goal_id": gid, "name": name.strip(), "target": _d(cents)}


@tool(write=True)
def contribute_to_goal(db: Db, user_email: str, goal_id: int, from_account_id: int, amount: float) -> dict:
    """Move money from one of the user's checking or savings accounts into one of their active savings
    goals. The amount cannot exceed the account's balance nor what is left to reach the target; a goal that
    reaches its target becomes achieved. Records a Transfers transaction on the account.

    Args:
        user_email: the user's e-mail.
        goal_id: the goal's id (see list_goals).
        from_account_id: the checking or savings account the money comes from.
        amount: dollars, more than zero.
    """
    u = _user(db, user_email)
    g = db.one("SELECT * FROM savings_goals WHERE id = ? AND user_id = ?", (goal_id, u["id"]),
               missing=f"{u['full_name']} has no goal with id {goal_id}; list_goals shows theirs.")
    if g["status"] != "active":
        raise ToolError(f"Goal {g['name']!r} is {g['status']}.")
    a = _account(db, u, from_account_id, edit=True)
    if a["account_type"] == "credit_card":
        raise ToolError("Goals can only be funded from checking or savings accounts.")
    amt = _cents(amount, "amount")
    left = g["target_cents"] - g["saved_cents"]
    if amt > left:
        raise ToolError(f"Only {_d(left)} dollars are left to reach {g['name']!r}; contribute at most that.")
    if amt > a["balance_cents"]:
        raise ToolError(f"{a['name']} only has {_d(a['balance_cents'])} dollars; the contribution cannot exceed it.")
    tid = _add_tx(db, a, -amt, f"Transfer to goal: {g['name']}", _transfers_id(db))
    db.insert("goal_contributions", {"goal_id": goal_id, "from_account_id": a["id"], "transaction_id": tid,
                                     "amount_cents": amt, "contributed_on": db.today().isoformat()})
    saved = g["saved_cents"] + amt
    status = "achieved" if saved == g["target_cents"] else "active"
    db.execute("UPDATE savings_goals SET saved_cents = ?, status = ? WHERE id = ?", (saved, status, goal_id))
    return {"goal_id": goal_id, "saved": _d(saved), "left_to_save": _d(g["target_cents"] - saved), "status": status,
            "account_balance": _d(a["balance_cents"])}


@tool(write=True)
def create_bill(db: Db, user_email: str, name: str, merchant: str, amount: float,
                frequency: Literal["monthly", "quarterly", "yearly"], next_due_on: str, account_id: int,
                autopay: bool = False, category: str | None = None) -> dict:
    """Add a recurring bill, paid from an account the user may change. Its category defaults to the
    merchant's usual category.

    Args:
        user_email: the user's e-mail.
        name: a unique name, e.g. "Electricity".
        merchant: the payee's merchant name.
        amount: the usual amount in dollars.
        frequency: monthly, quarterly or yearly.
        next_due_on: the next due date, YYYY-MM-DD (today or later).
        account_id: the account it is paid from.
        autopay: pay automatically when due.
        category: an expense category, if not the merchant's usual one.
    """
    u = _user(db, user_email)
    if not name.strip():
        raise ToolError("name must not be empty.")
    m = _merchant(db, merchant)
    cents = _cents(amount, "amount")
    d = _day(next_due_on, "next_due_on")
    if d < db.today():
        raise ToolError("next_due_on must be today or later.")
    a = _account(db, u, account_id, edit=True)
    cid = _category(db, category)["id"] if category else m["default_category_id"]
    if cid is None:
        raise ToolError(f"{m['name']} has no usual category; give one.")
    db.none("SELECT 1 FROM bills WHERE user_id = ? AND lower(name) = lower(?)", (u["id"], name.strip()),
            found=f"{u['full_name']} already has a bill called {name.strip()!r}.")
    bid = db.insert("bills", {"user_id": u["id"], "name": name.strip(), "merchant_id": m["id"], "category_id": cid,
                              "account_id": a["id"], "amount_cents": cents, "frequency": frequency,
                              "next_due_on": d.isoformat(), "autopay": int(autopay), "status": "active",
                              "created_at": _now(db)})
    return {"bill_id": bid, "name": name.strip(), "next_due_on": d.isoformat()}


@tool(write=True)
def pay_bill(db: Db, user_email: str, bill_id: int, from_account_id: int | None = None) -> dict:
    """Pay the currently due instalment of one of the user's active bills (its next due date, which must be
    at most 30 days ahead), for the bill's amount, from its usual account or another one the user may
    change. Funds must cover it (cards: within the credit limit). Records the payment and a transaction
    dated today, and moves the next due date on by the bill's frequency. Each due date is paid once.

    Args:
        user_email: the user's e-mail.
        bill_id: the bill's id (see list_bills).
        from_account_id: pay from this account instead of the bill's usual one.
    """
    u = _user(db, user_email)
    b = _bill(db, u, bill_id, "; list_bills shows theirs")
    if b["status"] != "active":
        raise ToolError(f"Bill {b['name']!r} is cancelled.")
    due = date.fromisoformat(b["next_due_on"])
    if due > db.today() + timedelta(days=PAY_AHEAD_DAYS):
        raise ToolError(f"{b['name']} is next due on {b['next_due_on']}; bills can be paid at most {PAY_AHEAD_DAYS} "
                        "days ahead.")
    db.none("SELECT 1 FROM bill_payments WHERE bill_id = ? AND due_on = ?", (bill_id, b["next_due_on"]),
            found=f"The {b['next_due_on']} instalment of {b['name']} is already paid.")
    a = _account(db, u, from_account_id if from_account_id is not None else b["account_id"], edit=True)
    tid = _add_tx(db, a, -b["amount_cents"], b["name"], b["category_id"], b["merchant_id"])
    db.insert("bill_payments", {"bill_id": bill_id, "account_id": a["id"], "transaction_id": tid,
                                "due_on": b["next_due_on"], "amount_cents": b["amount_cents"],
                                "paid_on": db.today().isoformat()})
    nxt = add_months(due, MONTHS_BY_FREQ[b["frequency"]]).isoformat()
    db.execute("UPDATE bills SET next_due_on = ? WHERE id = ?", (nxt, bill_id))
    return {"bill": b["name"], "paid": _d(b["amount_cents"]), "due_on": b["next_due_on"], "from": a["name"],
            "next_due_on": nxt}


@tool(write=True)
def update_bill(db: Db, user_email: str, bill_id: int, amount: float | None = None, autopay: bool | None = None,
                account_id: int | None = None, cancel: bool = False) -> dict:
    """Change one of the user's active bills: its amount, autopay, the account it is paid from, or cancel it.

    Args:
        user_email: the user's e-mail.
        bill_id: the bill's id.
        amount: the new amount in dollars.
        autopay: turn autopay on or off.
        account_id: pay it from this account from now on.
        cancel: cancel the bill.
    """
    u = _user(db, user_email)
    b = _bill(db, u, bill_id)
    if b["status"] != "active":
        raise ToolError(f"Bill {b['name']!r} is already cancelled.")
    if amount is None and autopay is None and account_id is None and not cancel:
        raise ToolError("Nothing to change.")
    cents = _cents(amount, "amount") if amount is not None else b["amount_cents"]
    acc = _account(db, u, account_id, edit=True)["id"] if account_id is not None else b["account_id"]
    auto = int(autopay) if autopay is not None else b["autopay"]
    db.execute("UPDATE bills SET amount_cents = ?, autopay = ?, account_id = ?, status = ? WHERE id = ?",
               (cents, auto, acc, "cancelled" if cancel else "active", bill_id))
    return {"bill_id": bill_id, "amount": _d(cents), "autopay": bool(auto), "account_id": acc,
            "status": "cancelled" if cancel else "active"}


@tool(write=True)
def create_rule(db: Db, user_email: str, merchant: str, category: str, apply_to_existing: bool = False) -> dict:
    """Create a rule that files a merchant's transactions under a category (one rule per merchant per user).
    With apply_to_existing, the merchant's unsplit transactions on the user's own accounts are
    re-categorised now.

    Args:
        user_email: the user's e-mail.
        merchant: the merchant's name.
        category: the category name.
        apply_to_existing: also re-categorise existing transactions.
    """
    u = _user(db, user_email)
    m = _merchant(db, merchant)
    c = _category(db, category)
    db.none("SELECT 1 FROM categorization_rules WHERE user_id = ? AND merchant_id = ?", (u["id"], m["id"]),
            found=f"{u['full_name']} already has a rule for {m['name']}.")
    rid = db.insert("categorization_rules", {"user_id": u["id"], "merchant_id": m["id"], "category_id": c["id"],
                                             "created_at": _now(db)})
    changed = 0
    if apply_to_existing:
        changed = db.execute("UPDATE transactions SET category_id = ? WHERE merchant_id = ? AND is_split = 0 AND "
                             "category_id IS NOT ? AND account_id IN (SELECT id FROM accounts WHERE user_id = ?)",
                             (c["id"], m["id"], c["id"], u["id"]))
    return {"rule_id": rid, "merchant": m["name"], "category": c["name"], "transactions_recategorised": changed}


# ----------------------------------------------------------------------------------------------
# write tools: snapshots, households, alerts
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def take_net_worth_snapshot(db: Db, user_email: str) -> dict:
    """Save today's net worth (see get_net_worth) as a snapshot; one snapshot per day.

    Args:
        user_email: the user's e-mail.
    """
    u = _user(db, user_email)
    today = db.today().isoformat()
    db.none("SELECT 1 FROM net_worth_snapshots WHERE user_id = ? AND taken_on = ?", (u["id"], today),
            found=f"A snapshot for {today} already exists.")
    r = _net_worth(db, u["id"])
    db.insert("net_worth_snapshots", {"user_id": u["id"], "taken_on": today, "assets_cents": r["assets"],
                                      "liabilities_cents": r["liabilities"], "net_cents": r["assets"] - r["liabilities"]})
    return {"taken_on": today, "assets": _d(r["assets"]), "liabilities": _d(r["liabilities"]),
            "net_worth": _d(r["assets"] - r["liabilities"])}


def _owned_household(db: Db, u: dict[str, Any], household: str) -> dict[str, Any]:
    h = db.one("SELECT * FROM households WHERE lower(name) = lower(?)", (household.strip(),),
               missing=f"No household called {household!r}.")
    role = db.value("SELECT role FROM household_members WHERE household_id = ? AND user_id = ?", (h["id"], u["id"]))
    if role != "owner":
        raise ToolError(f"Only an owner of {h['name']} can manage its members; {u['full_name']} is "
                        f"{role or 'not a member'}.")
    return h


@tool(write=True)
def invite_household_member(db: Db, user_email: str, household: str, member_email: str,
                            role: Literal["editor", "viewer"]) -> dict:
    """As an owner of a household, add an existing user to it as an editor (may change joint accounts) or a
    viewer (may only look).

    Args:
        user_email: the acting owner's e-mail.
        household: the household's name.
        member_email: the e-mail of the user to add.
        role: "editor" or "viewer".
    """
    u = _user(db, user_email)
    h = _owned_household(db, u, household)
    m = _user(db, member_email)
    db.none("SELECT 1 FROM household_members WHERE household_id = ? AND user_id = ?", (h["id"], m["id"]),
            found=f"{m['full_name']} is already in {h['name']}; use change_member_role.")
    db.insert("household_members", {"household_id": h["id"], "user_id": m["id"], "role": role, "joined_at": _now(db)})
    return {"household": h["name"], "member": m["email"], "role": role}


@tool(write=True)
def change_member_role(db: Db, user_email: str, household: str, member_email: str,
                       role: Literal["owner", "editor", "viewer"]) -> dict:
    """As an owner of a household, change a member's role. A household always keeps at least one owner.

    Args:
        user_email: the acting owner's e-mail.
        household: the household's name.
        member_email: the member's e-mail.
        role: "owner", "editor" or "viewer".
    """
    u = _user(db, user_email)
    h = _owned_household(db, u, household)
    m = _user(db, member_email)
    cur = db.one("SELECT * FROM household_members WHERE household_id = ? AND user_id = ?", (h["id"], m["id"]),
                 missing=f"{m['full_name']} is not in {h['name']}; add them with invite_household_member.")
    if cur["role"] == role:
        raise ToolError(f"{m['full_name']} is already {role}.")
    if cur["role"] == "owner" and db.value("SELECT COUNT(*) FROM household_members WHERE household_id = ? AND "
                                           "role = 'owner'", (h["id"],)) == 1:
        raise ToolError(f"{m['full_name']} is the only owner of {h['name']}; make someone else owner first.")
    db.execute("UPDATE household_members SET role = ? WHERE id = ?", (role, cur["id"]))
    return {"household": h["name"], "member": m["email"], "role": role}


@tool(write=True)
def create_alert(db: Db, user_email: str, alert_type: Literal["low_balance", "large_transaction", "budget_exceeded",
                 "bill_due"], threshold: float | None = None, account_id: int | None = None) -> dict:
    """Create an alert. low_balance needs a checking or savings account and a threshold; large_transaction
    needs a threshold (optionally one account); budget_exceeded and bill_due take neither. No two active
    alerts of the same type on the same account.

    Args:
        user_email: the user's e-mail.
        alert_type: low_balance, large_transaction, budget_exceeded or bill_due.
        threshold: dollars (balance floor, or transaction size).
        account_id: the account watched.
    """
    u = _user(db, user_email)
    if alert_type in ("low_balance", "large_transaction"):
        if threshold is None:
            raise ToolError(f"{alert_type} alerts need a threshold.")
        cents = _cents(threshold, "threshold")
    else:
        if threshold is not None or account_id is not None:
            raise ToolError(f"{alert_type} alerts take no threshold or account.")
        cents = None
    if alert_type == "low_balance" and account_id is None:
        raise ToolError("low_balance alerts need an account_id.")
    if account_id is not None:
        a = _account(db, u, account_id)
        if alert_type == "low_balance" and a["account_type"] == "credit_card":
            raise ToolError("low_balance alerts are for checking or savings accounts.")
    db.none("SELECT 1 FROM alerts WHERE user_id = ? AND alert_type = ? AND account_id IS ? AND is_active = 1",
            (u["id"], alert_type, account_id), found=f"An active {alert_type} alert for that account already exists.")
    aid = db.insert("alerts", {"user_id": u["id"], "alert_type": alert_type, "account_id": account_id,
                               "threshold_cents": cents, "is_active": 1, "created_at": _now(db)})
    return {"alert_id": aid, "alert_type": alert_type}


@tool(write=True)
def deactivate_alert(db: Db, user_email: str, alert_id: int) -> dict:
    """Turn off one of the user's active alerts.

    Args:
        user_email: the user's e-mail.
        alert_id: the alert's id (see list_alerts).
    """
    u = _user(db, user_email)
    a = db.one("SELECT * FROM alerts WHERE id = ? AND user_id = ?", (alert_id, u["id"]),
               missing=f"{u['full_name']} has no alert with id {alert_id}.")
    if not a["is_active"]:
        raise ToolError(f"Alert {alert_id} is already off.")
    db.execute("UPDATE alerts SET is_active = 0 WHERE id = ?", (alert_id,))
    return {"alert_id": alert_id, "is_active": False}
