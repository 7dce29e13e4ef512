"""Tools of the banking world: a retail bank's customer-facing systems.

Customers are identified by their e-mail (``customer_email``) on every call and may only see and change
their own accounts, cards, payees, payments, alerts and disputes. Accounts are named by their 10-digit
account numbers, cards by their last four digits, transactions and disputes by their references
("TX260212000123", "DSP-00012"). Amounts are in US dollars with at most two decimals. Dispute officers act
with their staff e-mail (``staff_email``). Every write is recorded in the activity log.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, filters, like_any, require_owner, require_status, tool
from awm.tooling import check_limit as _limit
from awm.tooling import dollars as _money
from awm.tooling import now_iso as _now
from awm.tooling import parse_day as _date
from awm.tooling import to_cents as _cents

DISPUTE_WINDOW_DAYS = 60
MAX_PAYEES = 25
MAX_ACTIVE_SCHEDULES = 10
MAX_ALERTS = 5
MIN_CARD_LIMIT_CENTS = 5000

Frequency = Literal["once", "weekly", "monthly"]
TxKind = Literal["deposit", "withdrawal", "card_purchase", "transfer_in", "transfer_out", "bill_payment", "fee",
                 "interest", "refund"]
DisputeStatus = Literal["opened", "under_review", "resolved", "rejected", "withdrawn"]
Reason = Literal["unauthorized", "duplicate", "not_received", "wrong_amount", "other"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _customer(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT * FROM customers WHERE lower(email) = lower(?)", (email.strip(),),
                  missing=f"No customer with e-mail {email!r}. Ask the customer for the e-mail address registered "
                  "with the bank.")


def _acting(db: Db, email: str) -> dict[str, Any]:
    c = _customer(db, email)
    if c["status"] == "locked":
        raise ToolError(f"The online access of {c['first_name']} {c['last_name']} is locked; changes must be made "
                        "in person at their home branch (list_branches shows addresses and phone numbers).")
    return c


_ACCOUNT_SQL = ("SELECT a.*, p.code AS product_code, p.name AS product_name, p.kind AS kind, "
                "p.daily_transfer_limit_cents, p.monthly_withdrawal_limit, p.overdraft_fee_cents, "
                "p.max_card_daily_limit_cents FROM accounts a JOIN products p ON p.id = a.product_id ")


def _account(db: Db, customer: dict[str, Any], account_number: str) -> dict[str, Any]:
    return db.one(_ACCOUNT_SQL + "WHERE a.account_number = ? AND a.customer_id = ?",
                  (account_number.strip(), customer["id"]),
                  missing=f"Account {account_number!r} is not one of {customer['first_name']} "
                  f"{customer['last_name']}'s accounts. Use list_accounts to see their account numbers.")


def _card(db: Db, customer: dict[str, Any], last4: str) -> dict[str, Any]:
    return db.one("SELECT c.*, a.account_number, a.status AS account_status, a.product_id FROM cards c "
                  "JOIN accounts a ON a.id = c.account_id WHERE a.customer_id = ? AND c.last4 = ? "
                  "ORDER BY c.id DESC", (customer["id"], last4.strip()),
                  missing=f"{customer['first_name']} {customer['last_name']} has no card ending in {last4!r}. Use "
                  "list_cards to see their cards.")


def _payee(db: Db, customer: dict[str, Any], payee_id: int) -> dict[str, Any]:
    return db.one("SELECT * FROM payees WHERE id = ? AND customer_id = ? AND status = 'active'",
                  (payee_id, customer["id"]),
                  missing=f"Payee {payee_id} is not one of this customer's saved payees. Use list_payees to find the "
                  "payee id, or add_payee to save a new one.")


def _schedule(db: Db, customer: dict[str, Any], schedule_id: int) -> dict[str, Any]:
    return db.one("SELECT s.*, p.name AS payee_name FROM scheduled_payments s JOIN payees p ON p.id = s.payee_id "
                  "WHERE s.id = ? AND s.customer_id = ?", (schedule_id, customer["id"]),
                  missing=f"Scheduled payment {schedule_id} is not one of this customer's; list_scheduled_payments "
                  "shows their ids.")


def _staff(db: Db, email: str) -> dict[str, Any]:
    row = db.one("SELECT * FROM staff WHERE lower(email) = lower(?)", (email.strip(),),
                 missing=f"No bank employee with e-mail {email!r}.")
    if not row["is_active"]:
        raise ToolError(f"{row['full_name']}'s staff account is deactivated.")
    if row["role"] != "dispute_officer":
        raise ToolError(f"{row['full_name']} is a {row['role'].replace('_', ' ')}; only dispute officers handle "
                        "disputes.")
    return row


def _dispute(db: Db, reference: str) -> dict[str, Any]:
    return db.one("SELECT d.*, t.reference AS transaction_reference, t.merchant, t.posted_at, t.account_id, "
                  "t.amount_cents AS charged_cents FROM disputes d JOIN transactions t ON t.id = d.transaction_id "
                  "WHERE upper(d.reference) = upper(?)", (reference.strip(),),
                  missing=f"No dispute with reference {reference!r}; references look like 'DSP-00012'.")


def _log(db: Db, action: str, detail: str, customer_id: int | None = None, staff_id: int | None = None) -> None:
    db.insert("activity_log", {"customer_id": customer_id, "staff_id": staff_id, "action": action,
                               "detail": detail, "created_at": _now(db)})


def _dispute_event(db: Db, dispute_id: int, from_status: str | None, to_status: str, actor: str,
                   note: str = "") -> None:
    db.insert("dispute_events", {"dispute_id": dispute_id, "from_status": from_status, "to_status": to_status,
                                 "actor": actor, "note": note, "created_at": _now(db)})


def _require_open(acct: dict[str, Any], what: str) -> None:
    if acct["status"] == "frozen":
        raise ToolError(f"Account {acct['account_number']} is frozen by the bank, so it cannot {what}. The customer "
                        "must contact their home branch.")
    if acct["status"] == "closed":
        raise ToolError(f"Account {acct['account_number']} is closed and cannot {what}.")


def _used_today(db: Db, account_id: int) -> int:
    return db.value("SELECT COALESCE(SUM(amount_cents), 0) FROM transfers WHERE from_account_id = ? "
                    "AND substr(created_at, 1, 10) = ?", (account_id, db.today().isoformat()))


def _withdrawals_this_month(db: Db, account_id: int) -> int:
    return db.value("SELECT COUNT(*) FROM transactions WHERE account_id = ? AND amount_cents < 0 "
                    "AND kind IN ('withdrawal', 'transfer_out', 'bill_payment') AND substr(posted_at, 1, 7) = ?",
                    (account_id, db.today().isoformat()[:7]))


def _check_outgoing(db: Db, acct: dict[str, Any], cents: int) -> None:
    _require_open(acct, "send money")
    available = acct["balance_cents"] + acct["overdraft_limit_cents"]
    if cents > available:
        raise ToolError(f"Insufficient funds: account {acct['account_number']} has ${available / 100:,.2f} available "
                        f"(balance ${acct['balance_cents'] / 100:,.2f}, overdraft limit "
                        f"${acct['overdraft_limit_cents'] / 100:,.2f}) and ${cents / 100:,.2f} was requested. "
                        "Send less or move money in first.")
    used = _used_today(db, acct["id"])
    limit = acct["daily_transfer_limit_cents"]
    if used + cents > limit:
        raise ToolError(f"Daily transfer limit: {acct['product_name']} accounts may send ${limit / 100:,.2f} a day; "
                        f"${used / 100:,.2f} has already been sent today, so at most ${(limit - used) / 100:,.2f} more "
                        "can go out today. Send less, or schedule the rest for a later day.")
    if acct["monthly_withdrawal_limit"] is not None:
        n = _withdrawals_this_month(db, acct["id"])
        if n >= acct["monthly_withdrawal_limit"]:
            raise ToolError(f"Savings withdrawal limit: {acct['product_name']} allows {acct['monthly_withdrawal_limit']} "
                            f"withdrawals or transfers out per calendar month and {n} were made this month.")


def _book(db: Db, tid: int, account_id: int, kind: str, cents: int, balance_after: int, description: str,
          transfer_id: int | None = None) -> str:
    """Insert transaction ``tid`` and set the account's balance to ``balance_after``; returns its reference."""
    ref = f"TX{db.today().strftime('%y%m%d')}{tid:06d}"
    db.insert("transactions", {"id": tid, "reference": ref, "account_id": account_id, "posted_at": _now(db),
                               "kind": kind, "amount_cents": cents, "balance_after_cents": balance_after,
                               "description": description, "merchant": None, "card_id": None,
                               "transfer_id": transfer_id})
    db.execute("UPDATE accounts SET balance_cents = ? WHERE id = ?", (balance_after, account_id))
    return ref


def _post(db: Db, acct: dict[str, Any], kind: str, cents: int, description: str,
          transfer_id: int | None = None) -> dict[str, Any]:
    """Post one transaction, update the balance, charge an overdraft fee and fire alerts."""
    before = db.value("SELECT balance_cents FROM accounts WHERE id = ?", (acct["id"],))
    after = before + cents
    tid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM transactions")
    ref = _book(db, tid, acct["id"], kind, cents, after, description, transfer_id)
    out = {"reference": ref, "amount": _money(cents), "balance_after": _money(after)}
    if cents < 0 and after < 0 <= before and acct["overdraft_fee_cents"] > 0:
        fee = acct["overdraft_fee_cents"]
        _book(db, tid + 1, acct["id"], "fee", -fee, after - fee, "Overdraft fee")
        after -= fee
        out["overdraft_fee"] = _money(fee)
        out["balance_after"] = _money(after)
    if cents < 0:
        for al in db.query("SELECT * FROM alerts WHERE account_id = ? AND is_active = 1 ORDER BY id", (acct["id"],)):
            msg = None
            if al["alert_type"] == "large_transaction" and -cents >= al["threshold_cents"]:
                msg = f"A payment of ${-cents / 100:,.2f} left account ending {acct['account_number'][-4:]}."
            elif al["alert_type"] == "low_balance" and after < al["threshold_cents"] <= before:
                msg = (f"The balance of account ending {acct['account_number'][-4:]} fell to ${after / 100:,.2f}, "
                       f"below your alert level of ${al['threshold_cents'] / 100:,.2f}.")
            if msg:
                db.insert("notifications", {"customer_id": acct["customer_id"], "alert_id": al["id"],
                                            "channel": al["channel"], "message": msg, "created_at": _now(db)})
    return out


def _new_transfer(db: Db, customer_id: int, from_id: int, to_id: int | None, payee_id: int | None, cents: int,
                  memo: str, schedule_id: int | None = None) -> tuple[int, str]:
    trid = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM transfers")
    ref = f"TRF{trid:07d}"
    db.insert("transfers", {"id": trid, "reference": ref, "customer_id": customer_id, "from_account_id": from_id,
                            "to_account_id": to_id, "payee_id": payee_id, "amount_cents": cents,
                            "memo": memo.strip()[:140], "scheduled_payment_id": schedule_id, "created_at": _now(db)})
    return trid, ref


def _period(date_from: str | None, date_to: str | None) -> tuple[str | None, str | None]:
    """A listing's optional first and last day as ISO text (None: open-ended)."""
    return (_date(date_from, "date_from").isoformat() if date_from else None,
            _date(date_to, "date_to").isoformat() if date_to else None)


def _acct_row(a: dict[str, Any]) -> dict[str, Any]:
    return {"account_number": a["account_number"], "product": a["product_name"], "type": a["kind"],
            "nickname": a["nickname"], "status": a["status"], "balance": _money(a["balance_cents"]),
            "overdraft_limit": _money(a["overdraft_limit_cents"])}


def _card_row(c: dict[str, Any]) -> dict[str, Any]:
    return {"last4": c["last4"], "network": c["network"], "status": c["status"], "account_number": c["account_number"],
            "daily_limit": _money(c["daily_limit_cents"]), "expires_on": c["expires_on"], "issued_on": c["issued_on"]}


def _set_card_status(db: Db, customer: dict[str, Any], card: dict[str, Any], status: str, action: str) -> dict:
    """Freeze or unfreeze a card (its checks done) and log it as ``action``."""
    db.execute("UPDATE cards SET status = ? WHERE id = ?", (status, card["id"]))
    _log(db, action, f"card {card['last4']}", customer["id"])
    return {"last4": card["last4"], "status": status}


def _next_run(start: date, frequency: str, today: date) -> date:
    d = start
    while d <= today:
        if frequency == "weekly":
            d += timedelta(days=7)
        else:
            y, m = (d.year + (d.month // 12), d.month % 12 + 1)
            day = min(d.day, 28)
            d = date(y, m, day)
    return d


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def list_branches(db: Db, city: str | None = None, limit: int = 20) -> dict:
    """List the bank's branches with their code, address, phone number and branch manager.

    Args:
        city: only branches in this city, e.g. "Oakland".
        limit: maximum number of branches, 1 to 50.
    """
    _limit(limit)
    rows = db.query("SELECT b.id, b.code, b.name, b.city, b.address, b.phone, "
                    "(SELECT full_name FROM staff s WHERE s.branch_id = b.id AND s.role = 'branch_manager' "
                    "AND s.is_active = 1 ORDER BY s.id LIMIT 1) AS manager FROM branches b "
                    "WHERE (? IS NULL OR lower(b.city) = lower(?)) ORDER BY b.city, b.name LIMIT ?",
                    (city, city, limit))
    return {"count": len(rows), "branches": rows}


@tool
def get_customer_profile(db: Db, customer_email: str) -> dict:
    """Show a customer's profile: name, contact details, home branch, status and a summary of their accounts.

    Args:
        customer_email: the customer's registered e-mail address.
    """
    c = _customer(db, customer_email)
    b = db.one("SELECT code, name, city, phone FROM branches WHERE id = ?", (c["home_branch_id"],))
    accts = db.query(_ACCOUNT_SQL + "WHERE a.customer_id = ? ORDER BY a.id", (c["id"],))
    return {"name": f"{c['first_name']} {c['last_name']}", "email": c["email"], "phone": c["phone"],
            "date_of_birth": c["date_of_birth"], "status": c["status"], "customer_since": c["created_at"][:10],
            "home_branch": b, "accounts": [_acct_row(a) for a in accts]}


@tool
def list_accounts(db: Db, customer_email: str, include_closed: bool = False) -> dict:
    """List a customer's accounts with product, balance, overdraft limit and status.

    Args:
        customer_email: the customer's registered e-mail address.
        include_closed: also list closed accounts (default false).
    """
    c = _customer(db, customer_email)
    rows = db.query(_ACCOUNT_SQL + "WHERE a.customer_id = ? AND (? = 1 OR a.status <> 'closed') ORDER BY a.id",
                    (c["id"], 1 if include_closed else 0))
    return {"customer": f"{c['first_name']} {c['last_name']}", "accounts": [_acct_row(a) for a in rows]}


@tool
def get_account(db: Db, customer_email: str, account_number: str) -> dict:
    """Show one of the customer's accounts in detail: balance, overdraft limit, available funds (balance plus
    overdraft limit), the product's rules (daily transfer limit, monthly withdrawal limit for savings, overdraft
    fee), how much has been sent today and how many withdrawals were made this month.

    Args:
        customer_email: the customer's registered e-mail address.
        account_number: the 10-digit account number.
    """
    c = _customer(db, customer_email)
    a = _account(db, c, account_number)
    out = _acct_row(a)
    used = _used_today(db, a["id"])
    out.update({"available": _money(a["balance_cents"] + a["overdraft_limit_cents"]), "opened_on": a["opened_on"],
                "daily_transfer_limit": _money(a["daily_transfer_limit_cents"]), "sent_today": _money(used),
                "overdraft_fee": _money(a["overdraft_fee_cents"])})
    if a["monthly_withdrawal_limit"] is not None:
        out["monthly_withdrawal_limit"] = a["monthly_withdrawal_limit"]
        out["withdrawals_this_month"] = _withdrawals_this_month(db, a["id"])
    return out


@tool
def list_transactions(db: Db, customer_email: str, account_number: str, date_from: str | None = None,
                      date_to: str | None = None, kind: TxKind | None = None, merchant: str | None = None,
                      limit: int = 20, offset: int = 0) -> dict:
    """List transactions of one of the customer's accounts, newest first, with optional filters. Amounts are
    negative for money going out. Also returns the count and the sum of all matching transactions.

    Args:
        customer_email: the customer's registered e-mail address.
        account_number: the 10-digit account number.
        date_from: first posting day to include, YYYY-MM-DD.
        date_to: last posting day to include, YYYY-MM-DD.
        kind: only this kind of transaction, e.g. "card_purchase".
        merchant: only card purchases at this merchant (exact name, case-insensitive), e.g. "Safeway".
        limit: maximum number of transactions to return, 1 to 50.
        offset: how many matching transactions to skip (for paging).
    """
    _limit(limit)
    if offset < 0:
        raise ToolError("offset must be 0 or more.")
    c = _customer(db, customer_email)
    a = _account(db, c, account_number)
    d1, d2 = _period(date_from, date_to)
    optional, params = filters(("substr(t.posted_at, 1, 10) >= ?", d1), ("substr(t.posted_at, 1, 10) <= ?", d2),
                               ("t.kind = ?", kind), ("lower(t.merchant) = lower(?)", merchant))
    where = "WHERE t.account_id = ? AND " + optional
    params = (a["id"], *params)
    rows = db.query("SELECT t.reference, t.posted_at, t.kind, t.amount_cents, t.balance_after_cents, t.description, "
                    "t.merchant, c.last4 AS card_last4 FROM transactions t LEFT JOIN cards c ON c.id = t.card_id "
                    + where + " ORDER BY t.posted_at DESC, t.id DESC LIMIT ? OFFSET ?", (*params, limit, offset))
    agg = db.one("SELECT COUNT(*) AS n, COALESCE(SUM(t.amount_cents), 0) AS total FROM transactions t " + where, params)
    for r in rows:
        r["amount"] = _money(r.pop("amount_cents"))
        r["balance_after"] = _money(r.pop("balance_after_cents"))
    return {"account_number": a["account_number"], "matching": agg["n"], "matching_total": _money(agg["total"]),
            "transactions": rows}


@tool
def get_transaction(db: Db, customer_email: str, reference: str) -> dict:
    """Show one transaction of the customer's by its reference, with any dispute raised on it.

    Args:
        customer_email: the customer's registered e-mail address.
        reference: the transaction reference, e.g. "TX260212000123".
    """
    c = _customer(db, customer_email)
    t = db.one("SELECT t.*, a.account_number, a.customer_id, cd.last4 AS card_last4 FROM transactions t "
               "JOIN accounts a ON a.id = t.account_id LEFT JOIN cards cd ON cd.id = t.card_id "
               "WHERE upper(t.reference) = upper(?) AND a.customer_id = ?", (reference.strip(), c["id"]),
               missing=f"No transaction {reference!r} on this customer's accounts; list_transactions shows them.")
    disputes = db.query("SELECT reference, status, amount_cents FROM disputes WHERE transaction_id = ? ORDER BY id",
                        (t["id"],))
    return {"reference": t["reference"], "account_number": t["account_number"], "posted_at": t["posted_at"],
            "kind": t["kind"], "amount": _money(t["amount_cents"]), "balance_after": _money(t["balance_after_cents"]),
            "description": t["description"], "merchant": t["merchant"], "card_last4": t["card_last4"],
            "disputes": [{"reference": d["reference"], "status": d["status"], "amount": _money(d["amount_cents"])}
                         for d in disputes]}


@tool
def list_cards(db: Db, customer_email: str, include_inactive: bool = False) -> dict:
    """List the customer's debit cards (last four digits, status, daily spending limit, expiry, account).

    Args:
        customer_email: the customer's registered e-mail address.
        include_inactive: also list cancelled and expired cards (default false).
    """
    c = _customer(db, customer_email)
    rows = db.query("SELECT c.*, a.account_number FROM cards c JOIN accounts a ON a.id = c.account_id "
                    "WHERE a.customer_id = ? AND (? = 1 OR c.status IN ('active', 'frozen')) ORDER BY c.id",
                    (c["id"], 1 if include_inactive else 0))
    return {"cards": [_card_row(r) for r in rows]}


@tool
def list_payees(db: Db, customer_email: str, query: str | None = None, limit: int = 25) -> dict:
    """List the customer's saved payees (id, name, bank, masked account number, nickname).

    Args:
        customer_email: the customer's registered e-mail address.
        query: words to look for in the payee's name or nickname.
        limit: maximum number of payees, 1 to 50.
    """
    _limit(limit)
    c = _customer(db, customer_email)
    words = (query or "").strip()
    who, patterns = like_any(words, "name", "nickname")
    rows = db.query("SELECT id AS payee_id, name, bank_name, account_number, nickname FROM payees "
                    f"WHERE customer_id = ? AND status = 'active' AND (? IS NULL OR {who}) ORDER BY name, id LIMIT ?",
                    (c["id"], words or None, *patterns, limit))
    for r in rows:
        r["account_number"] = "****" + r["account_number"][-4:]
    return {"count": len(rows), "payees": rows}


@tool
def list_transfers(db: Db, customer_email: str, account_number: str | None = None, date_from: str | None = None,
                   date_to: str | None = None, limit: int = 20) -> dict:
    """List transfers and payments the customer made, newest first.

    Args:
        customer_email: the customer's registered e-mail address.
        account_number: only those sent from this account.
        date_from: first day to include, YYYY-MM-DD.
        date_to: last day to include, YYYY-MM-DD.
        limit: maximum number of transfers, 1 to 50.
    """
    _limit(limit)
    c = _customer(db, customer_email)
    aid = _account(db, c, account_number)["id"] if account_number else None
    d1, d2 = _period(date_from, date_to)
    where, params = filters(("t.from_account_id = ?", aid), ("substr(t.created_at, 1, 10) >= ?", d1),
                            ("substr(t.created_at, 1, 10) <= ?", d2))
    rows = db.query("SELECT t.reference, t.created_at, fa.account_number AS from_account, "
                    "ta.account_number AS to_account, p.name AS payee, t.amount_cents, t.memo, "
                    "t.scheduled_payment_id FROM transfers t JOIN accounts fa ON fa.id = t.from_account_id "
                    "LEFT JOIN accounts ta ON ta.id = t.to_account_id LEFT JOIN payees p ON p.id = t.payee_id "
                    f"WHERE t.customer_id = ? AND {where} ORDER BY t.created_at DESC, t.id DESC LIMIT ?",
                    (c["id"], *params, limit))
    for r in rows:
        r["amount"] = _money(r.pop("amount_cents"))
    return {"count": len(rows), "transfers": rows}


@tool
def list_scheduled_payments(db: Db, customer_email: str,
                            status: Literal["active", "paused", "cancelled", "completed"] | None = None) -> dict:
    """List the customer's scheduled and recurring payments (id, payee, amount, frequency, next run, status).

    Args:
        customer_email: the customer's registered e-mail address.
        status: only payments in this status.
    """
    c = _customer(db, customer_email)
    rows = db.query("SELECT s.id AS schedule_id, p.name AS payee, s.payee_id, a.account_number AS from_account, "
                    "s.amount_cents, s.frequency, s.next_run_on, s.end_on, s.status, s.memo FROM scheduled_payments s "
                    "JOIN payees p ON p.id = s.payee_id JOIN accounts a ON a.id = s.from_account_id "
                    "WHERE s.customer_id = ? AND (? IS NULL OR s.status = ?) ORDER BY s.id", (c["id"], status, status))
    for r in rows:
        r["amount"] = _money(r.pop("amount_cents"))
    return {"count": len(rows), "scheduled_payments": rows}


@tool
def list_disputes(db: Db, customer_email: str, status: DisputeStatus | None = None) -> dict:
    """List the customer's disputes of card purchases with the merchant, amount and status.

    Args:
        customer_email: the customer's registered e-mail address.
        status: only disputes in this status ("opened", "under_review", "resolved", "rejected", "withdrawn").
    """
    c = _customer(db, customer_email)
    rows = db.query("SELECT d.reference, t.reference AS transaction_reference, t.merchant, "
                    "substr(t.posted_at, 1, 10) AS purchase_date, d.amount_cents, d.reason, d.status, "
                    "substr(d.opened_at, 1, 10) AS opened_on FROM disputes d JOIN transactions t ON t.id = d.transaction_id "
                    "WHERE d.customer_id = ? AND (? IS NULL OR d.status = ?) ORDER BY d.opened_at DESC, d.id DESC",
                    (c["id"], status, status))
    for r in rows:
        r["amount"] = _money(r.pop("amount_cents"))
    return {"count": len(rows), "disputes": rows}


@tool
def get_dispute(db: Db, dispute_reference: str, actor_email: str) -> dict:
    """Show a dispute with its history. Visible to the customer who raised it and to dispute officers.

    Args:
        dispute_reference: the dispute reference, e.g. "DSP-00012".
        actor_email: e-mail of the customer who raised it, or of a dispute officer.
    """
    d = _dispute(db, dispute_reference)
    cust = db.one("SELECT id, email, first_name, last_name FROM customers WHERE lower(email) = lower(?)",
                  (actor_email.strip(),))
    if cust is None or cust["id"] != d["customer_id"]:
        _staff(db, actor_email)
    officer = db.value("SELECT full_name FROM staff WHERE id = ?", (d["officer_id"],)) if d["officer_id"] else None
    events = db.query("SELECT from_status, to_status, actor, note, created_at FROM dispute_events WHERE dispute_id = ? "
                      "ORDER BY id", (d["id"],))
    owner = db.one("SELECT first_name || ' ' || last_name AS name, email FROM customers WHERE id = ?",
                   (d["customer_id"],))
    return {"reference": d["reference"], "customer": owner, "transaction_reference": d["transaction_reference"],
            "merchant": d["merchant"], "purchase_posted_at": d["posted_at"], "charged": _money(-d["charged_cents"]),
            "disputed_amount": _money(d["amount_cents"]), "reason": d["reason"], "status": d["status"],
            "officer": officer, "resolution_note": d["resolution_note"], "opened_at": d["opened_at"],
            "closed_at": d["closed_at"], "history": events}


@tool
def list_statements(db: Db, customer_email: str, account_number: str) -> dict:
    """List the monthly statements of one of the customer's accounts with opening and closing balances.

    Args:
        customer_email: the customer's registered e-mail address.
        account_number: the 10-digit account number.
    """
    c = _customer(db, customer_email)
    a = _account(db, c, account_number)
    rows = db.query("SELECT period_start, period_end, opening_balance_cents, closing_balance_cents, total_in_cents, "
                    "total_out_cents, issued_on FROM statements WHERE account_id = ? ORDER BY period_start DESC",
                    (a["id"],))
    out = []
    for r in rows:
        out.append({"month": r["period_start"][:7], "period_start": r["period_start"], "period_end": r["period_end"],
                    "opening_balance": _money(r["opening_balance_cents"]),
                    "closing_balance": _money(r["closing_balance_cents"]), "money_in": _money(r["total_in_cents"]),
                    "money_out": _money(r["total_out_cents"]), "issued_on": r["issued_on"]})
    return {"account_number": a["account_number"], "statements": out}


@tool
def list_alerts(db: Db, customer_email: str, include_inactive: bool = False) -> dict:
    """List the customer's balance and large-transaction alerts.

    Args:
        customer_email: the customer's registered e-mail address.
        include_inactive: also list deleted alerts (default false).
    """
    c = _customer(db, customer_email)
    rows = db.query("SELECT al.id AS alert_id, a.account_number, al.alert_type, al.threshold_cents, al.channel, "
                    "al.is_active FROM alerts al JOIN accounts a ON a.id = al.account_id WHERE al.customer_id = ? "
                    "AND (? = 1 OR al.is_active = 1) ORDER BY al.id", (c["id"], 1 if include_inactive else 0))
    for r in rows:
        r["threshold"] = _money(r.pop("threshold_cents"))
        r["is_active"] = bool(r["is_active"])
    return {"alerts": rows}


@tool
def list_notifications(db: Db, customer_email: str, limit: int = 10) -> dict:
    """List the most recent messages the bank sent the customer (alerts, statements), newest first.

    Args:
        customer_email: the customer's registered e-mail address.
        limit: maximum number of messages, 1 to 50.
    """
    _limit(limit)
    c = _customer(db, customer_email)
    rows = db.query("SELECT channel, message, created_at FROM notifications WHERE customer_id = ? "
                    "ORDER BY created_at DESC, id DESC LIMIT ?", (c["id"], limit))
    return {"notifications": rows}


@tool
def list_dispute_queue(db: Db, staff_email: str, status: Literal["opened", "under_review"] = "opened",
                       limit: int = 20) -> dict:
    """For dispute officers: disputes waiting for review ("opened") or being reviewed ("under_review"), oldest
    first, with the customer, merchant, amount and assigned officer.

    Args:
        staff_email: the dispute officer's staff e-mail.
        status: "opened" (default) or "under_review".
        limit: maximum number of disputes, 1 to 50.
    """
    _limit(limit)
    _staff(db, staff_email)
    rows = db.query("SELECT d.reference, c.first_name || ' ' || c.last_name AS customer, c.email AS customer_email, "
                    "t.merchant, d.amount_cents, d.reason, d.opened_at, s.full_name AS officer FROM disputes d "
                    "JOIN customers c ON c.id = d.customer_id JOIN transactions t ON t.id = d.transaction_id "
                    "LEFT JOIN staff s ON s.id = d.officer_id WHERE d.status = ? ORDER BY d.opened_at, d.id LIMIT ?",
                    (status, limit))
    for r in rows:
        r["amount"] = _money(r.pop("amount_cents"))
    return {"count": len(rows), "disputes": rows}


# ----------------------------------------------------------------------------------------------
# write tools: money movement
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def transfer_between_accounts(db: Db, customer_email: str, from_account_number: str, to_account_number: str,
                              amount: float, memo: str = "") -> dict:
    """Move money between two of the customer's own open accounts, immediately. The amount must be covered by the
    sending account's balance plus its overdraft limit, fit in its product's daily transfer limit (counting what it
    already sent today), and savings accounts allow only a few withdrawals per calendar month. Frozen or closed
    accounts can neither send nor receive. A checking account that goes below zero pays its overdraft fee.

    Args:
        customer_email: the customer's registered e-mail address (the customer making the transfer).
        from_account_number: the account the money leaves.
        to_account_number: the account the money goes to (one of the same customer's accounts).
        amount: the amount in dollars, e.g. 250 or 99.95.
        memo: an optional note shown on the transfer.
    """
    c = _acting(db, customer_email)
    src = _account(db, c, from_account_number)
    dst = _account(db, c, to_account_number)
    if src["id"] == dst["id"]:
        raise ToolError("The sending and receiving accounts are the same; choose two different accounts.")
    cents = _cents(amount)
    _require_open(dst, "receive money")
    _check_outgoing(db, src, cents)
    trid, ref = _new_transfer(db, c["id"], src["id"], dst["id"], None, cents, memo)
    out_leg = _post(db, src, "transfer_out", -cents, f"Transfer to {dst['kind']} ...{dst['account_number'][-4:]}", trid)
    in_leg = _post(db, dst, "transfer_in", cents, f"Transfer from {src['kind']} ...{src['account_number'][-4:]}", trid)
    _log(db, "transfer", f"{ref}: {cents} cents {src['account_number']} -> {dst['account_number']}", c["id"])
    return {"transfer_reference": ref, "amount": _money(cents), "from": {"account_number": src["account_number"],
            **out_leg}, "to": {"account_number": dst["account_number"], **in_leg}}


@tool(write=True)
def pay_payee(db: Db, customer_email: str, from_account_number: str, payee_id: int, amount: float,
              memo: str = "") -> dict:
    """Pay one of the customer's saved payees now from one of their accounts. Same funds, daily limit and savings
    withdrawal rules as transfers; frozen or closed accounts cannot pay.

    Args:
        customer_email: the customer's registered e-mail address.
        from_account_number: the account to pay from.
        payee_id: the saved payee's id (list_payees shows ids).
        amount: the amount in dollars.
        memo: an optional note for the payee, e.g. an invoice number.
    """
    c = _acting(db, customer_email)
    src = _account(db, c, from_account_number)
    p = _payee(db, c, payee_id)
    cents = _cents(amount)
    _check_outgoing(db, src, cents)
    trid, ref = _new_transfer(db, c["id"], src["id"], None, p["id"], cents, memo)
    leg = _post(db, src, "bill_payment", -cents, f"Payment to {p['name']}", trid)
    _log(db, "payment", f"{ref}: {cents} cents to payee {p['id']}", c["id"])
    return {"transfer_reference": ref, "payee": p["name"], "from_account": src["account_number"], **leg}


@tool(write=True)
def add_payee(db: Db, customer_email: str, name: str, bank_name: str, account_number: str,
              nickname: str = "") -> dict:
    """Save a new payee for the customer. Account numbers are 6 to 17 digits and unique among the customer's
    payees; a customer keeps at most 25 payees.

    Args:
        customer_email: the customer's registered e-mail address.
        name: the payee's name as it should appear, e.g. "Sunrise Apartments".
        bank_name: the payee's bank, e.g. "Wells Fargo".
        account_number: the payee's account number, digits only.
        nickname: an optional short name for the customer's own use.
    """
    c = _acting(db, customer_email)
    n, bank, num = name.strip(), bank_name.strip(), account_number.strip()
    if not 2 <= len(n) <= 80:
        raise ToolError("name must be 2 to 80 characters.")
    if not 2 <= len(bank) <= 80:
        raise ToolError("bank_name must be 2 to 80 characters.")
    if not re.fullmatch(r"\d{6,17}", num):
        raise ToolError(f"account_number must be 6 to 17 digits with no spaces or dashes (got {account_number!r}).")
    existing = db.one("SELECT id, name, status FROM payees WHERE customer_id = ? AND account_number = ?", (c["id"], num))
    if existing and existing["status"] == "active":
        raise ToolError(f"This account number is already saved as payee {existing['id']} ({existing['name']}).")
    count = db.value("SELECT COUNT(*) FROM payees WHERE customer_id = ? AND status = 'active'", (c["id"],))
    if count >= MAX_PAYEES:
        raise ToolError(f"The customer already has {MAX_PAYEES} payees; remove one first.")
    if existing:
        db.execute("UPDATE payees SET name = ?, bank_name = ?, nickname = ?, status = 'active', removed_at = NULL "
                   "WHERE id = ?", (n, bank, nickname.strip(), existing["id"]))
        pid = existing["id"]
    else:
        pid = db.insert("payees", {"customer_id": c["id"], "name": n, "bank_name": bank, "account_number": num,
                                   "nickname": nickname.strip(), "status": "active", "created_at": _now(db),
                                   "removed_at": None})
    _log(db, "payee_added", f"payee {pid}: {n}", c["id"])
    return {"payee_id": pid, "name": n, "bank_name": bank, "account_number": "****" + num[-4:],
            "nickname": nickname.strip()}


@tool(write=True)
def remove_payee(db: Db, customer_email: str, payee_id: int) -> dict:
    """Remove a saved payee. Refused while an active or paused scheduled payment still goes to it (cancel that
    first). Past payments stay in the history.

    Args:
        customer_email: the customer's registered e-mail address.
        payee_id: the payee's id.
    """
    c = _acting(db, customer_email)
    p = _payee(db, c, payee_id)
    live = db.query("SELECT id FROM scheduled_payments WHERE payee_id = ? AND status IN ('active', 'paused')", (p["id"],))
    if live:
        raise ToolError(f"{p['name']} still has scheduled payment(s) {', '.join(str(r['id']) for r in live)}; cancel "
                        "them with cancel_scheduled_payment before removing the payee.")
    db.execute("UPDATE payees SET status = 'removed', removed_at = ? WHERE id = ?", (_now(db), p["id"]))
    _log(db, "payee_removed", f"payee {p['id']}: {p['name']}", c["id"])
    return {"payee_id": p["id"], "name": p["name"], "status": "removed"}


# ----------------------------------------------------------------------------------------------
# write tools: scheduled payments
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def schedule_payment(db: Db, customer_email: str, from_account_number: str, payee_id: int, amount: float,
                     frequency: Frequency, start_date: str, end_date: str | None = None, memo: str = "") -> dict:
    """Set up a future or recurring payment to a saved payee. The first payment is on start_date (tomorrow at the
    earliest, within a year); a one-off payment has no end date; the amount may not exceed the paying account's
    daily transfer limit. The same payee, amount and frequency cannot be scheduled twice, and a customer has at
    most 10 active schedules.

    Args:
        customer_email: the customer's registered e-mail address.
        from_account_number: the account to pay from (open, not frozen).
        payee_id: the saved payee's id.
        amount: the amount of each payment in dollars.
        frequency: "once", "weekly" or "monthly".
        start_date: the day of the first payment, YYYY-MM-DD.
        end_date: optional last day on which a recurring payment may run, YYYY-MM-DD.
        memo: an optional note sent with each payment.
    """
    c = _acting(db, customer_email)
    src = _account(db, c, from_account_number)
    _require_open(src, "make payments")
    p = _payee(db, c, payee_id)
    cents = _cents(amount)
    if cents > src["daily_transfer_limit_cents"]:
        raise ToolError(f"${cents / 100:,.2f} exceeds the {src['product_name']} daily transfer limit of "
                        f"${src['daily_transfer_limit_cents'] / 100:,.2f}.")
    d1 = _date(start_date, "start_date")
    if d1 <= db.today():
        raise ToolError(f"start_date must be after today ({db.today().isoformat()}); use pay_payee to pay now.")
    if d1 > db.today() + timedelta(days=365):
        raise ToolError("start_date can be at most one year ahead.")
    d2 = None
    if end_date is not None:
        if frequency == "once":
            raise ToolError("A one-off payment has no end_date; leave it out.")
        d2 = _date(end_date, "end_date")
        if d2 < d1:
            raise ToolError("end_date must be on or after start_date.")
    dup = db.value("SELECT id FROM scheduled_payments WHERE customer_id = ? AND payee_id = ? AND amount_cents = ? "
                   "AND frequency = ? AND status IN ('active', 'paused')", (c["id"], p["id"], cents, frequency))
    if dup:
        raise ToolError(f"Scheduled payment {dup} already pays {p['name']} this amount {frequency}.")
    n = db.value("SELECT COUNT(*) FROM scheduled_payments WHERE customer_id = ? AND status = 'active'", (c["id"],))
    if n >= MAX_ACTIVE_SCHEDULES:
        raise ToolError(f"The customer already has {MAX_ACTIVE_SCHEDULES} active scheduled payments.")
    sid = db.insert("scheduled_payments", {"customer_id": c["id"], "from_account_id": src["id"], "payee_id": p["id"],
                                           "amount_cents": cents, "frequency": frequency,
                                           "next_run_on": d1.isoformat(), "end_on": d2.isoformat() if d2 else None,
                                           "status": "active", "memo": memo.strip()[:140], "created_at": _now(db)})
    _log(db, "schedule_created", f"schedule {sid}: {cents} cents {frequency} to payee {p['id']}", c["id"])
    return {"schedule_id": sid, "payee": p["name"], "amount": _money(cents), "frequency": frequency,
            "next_run_on": d1.isoformat(), "end_on": d2.isoformat() if d2 else None, "status": "active"}


@tool(write=True)
def pause_scheduled_payment(db: Db, customer_email: str, schedule_id: int) -> dict:
    """Pause an active scheduled payment; it keeps its next run date until resumed.

    Args:
        customer_email: the customer's registered e-mail address.
        schedule_id: the scheduled payment's id.
    """
    c = _acting(db, customer_email)
    s = _schedule(db, c, schedule_id)
    require_status(s, ("active",), f"Scheduled payment {schedule_id}", "paused")
    db.execute("UPDATE scheduled_payments SET status = 'paused' WHERE id = ?", (s["id"],))
    _log(db, "schedule_paused", f"schedule {s['id']}", c["id"])
    return {"schedule_id": s["id"], "payee": s["payee_name"], "status": "paused", "next_run_on": s["next_run_on"]}


@tool(write=True)
def resume_scheduled_payment(db: Db, customer_email: str, schedule_id: int) -> dict:
    """Resume a paused scheduled payment. If its next run date has passed, it moves to the next date after today
    in its rhythm (weekly or monthly); a paused one-off payment whose date has passed cannot be resumed.

    Args:
        customer_email: the customer's registered e-mail address.
        schedule_id: the scheduled payment's id.
    """
    c = _acting(db, customer_email)
    s = _schedule(db, c, schedule_id)
    require_status(s, ("paused",), f"Scheduled payment {schedule_id}", "resumed")
    nxt = _date(s["next_run_on"], "next_run_on")
    if nxt <= db.today():
        if s["frequency"] == "once":
            raise ToolError("This one-off payment's date has passed; cancel it and schedule a new one.")
        nxt = _next_run(nxt, s["frequency"], db.today())
    if s["end_on"] and nxt.isoformat() > s["end_on"]:
        raise ToolError(f"The next run would be after its end date {s['end_on']}; cancel it instead.")
    db.execute("UPDATE scheduled_payments SET status = 'active', next_run_on = ? WHERE id = ?",
               (nxt.isoformat(), s["id"]))
    _log(db, "schedule_resumed", f"schedule {s['id']}", c["id"])
    return {"schedule_id": s["id"], "payee": s["payee_name"], "status": "active", "next_run_on": nxt.isoformat()}


@tool(write=True)
def cancel_scheduled_payment(db: Db, customer_email: str, schedule_id: int) -> dict:
    """Cancel an active or paused scheduled payment for good (it cannot be resumed afterwards).

    Args:
        customer_email: the customer's registered e-mail address.
        schedule_id: the scheduled payment's id.
    """
    c = _acting(db, customer_email)
    s = _schedule(db, c, schedule_id)
    if s["status"] not in ("active", "paused"):
        raise ToolError(f"Scheduled payment {schedule_id} is already {s['status']}.")
    db.execute("UPDATE scheduled_payments SET status = 'cancelled', next_run_on = NULL WHERE id = ?", (s["id"],))
    _log(db, "schedule_cancelled", f"schedule {s['id']}", c["id"])
    return {"schedule_id": s["id"], "payee": s["payee_name"], "status": "cancelled"}


# ----------------------------------------------------------------------------------------------
# write tools: cards and accounts
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def freeze_card(db: Db, customer_email: str, card_last4: str) -> dict:
    """Temporarily freeze an active card so that no purchase goes through; unfreeze_card reverses it.

    Args:
        customer_email: the customer's registered e-mail address.
        card_last4: the last four digits of the card.
    """
    c = _acting(db, customer_email)
    card = _card(db, c, card_last4)
    if card["status"] != "active":
        raise ToolError(f"The card ending {card['last4']} is {card['status']}; only an active card can be frozen.")
    return _set_card_status(db, c, card, "frozen", "card_frozen")


@tool(write=True)
def unfreeze_card(db: Db, customer_email: str, card_last4: str) -> dict:
    """Unfreeze a frozen card. Refused when the card has expired or its account is frozen or closed.

    Args:
        customer_email: the customer's registered e-mail address.
        card_last4: the last four digits of the card.
    """
    c = _acting(db, customer_email)
    card = _card(db, c, card_last4)
    if card["status"] != "frozen":
        raise ToolError(f"The card ending {card['last4']} is {card['status']}; only a frozen card can be unfrozen.")
    if card["expires_on"] < db.today().isoformat():
        raise ToolError(f"The card ending {card['last4']} expired on {card['expires_on']}.")
    if card["account_status"] != "open":
        raise ToolError(f"Its account {card['account_number']} is {card['account_status']}; the card stays frozen.")
    return _set_card_status(db, c, card, "active", "card_unfrozen")


@tool(write=True)
def report_card(db: Db, customer_email: str, card_last4: str, reason: Literal["lost", "stolen", "damaged"]) -> dict:
    """Report an active or frozen card lost, stolen or damaged: the card is cancelled for good and a replacement
    with new last four digits, the same daily limit and a four-year expiry is issued on the same account.

    Args:
        customer_email: the customer's registered e-mail address.
        card_last4: the last four digits of the card.
        reason: "lost", "stolen" or "damaged".
    """
    c = _acting(db, customer_email)
    card = _card(db, c, card_last4)
    if card["status"] not in ("active", "frozen"):
        raise ToolError(f"The card ending {card['last4']} is already {card['status']}.")
    if card["account_status"] == "closed":
        raise ToolError(f"Its account {card['account_number']} is closed; no replacement can be issued.")
    db.execute("UPDATE cards SET status = 'cancelled', cancel_reason = ? WHERE id = ?", (reason, card["id"]))
    taken = {r["last4"] for r in db.query("SELECT c.last4 FROM cards c JOIN accounts a ON a.id = c.account_id "
                                          "WHERE a.customer_id = ?", (c["id"],))}
    new_id = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM cards")
    seed = (int(card["last4"]) * 7 + new_id * 131) % 10000
    while f"{seed:04d}" in taken:
        seed = (seed + 1) % 10000
    t = db.today()
    exp = date(t.year + 4, t.month, 28)
    db.insert("cards", {"id": new_id, "account_id": card["account_id"], "last4": f"{seed:04d}",
                        "network": card["network"], "status": "active", "daily_limit_cents": card["daily_limit_cents"],
                        "expires_on": exp.isoformat(), "issued_on": t.isoformat(), "replaced_card_id": card["id"],
                        "cancel_reason": None})
    _log(db, "card_reported", f"card {card['last4']} {reason}; replacement {seed:04d}", c["id"])
    return {"cancelled_card": card["last4"], "reason": reason,
            "replacement": {"last4": f"{seed:04d}", "status": "active", "expires_on": exp.isoformat(),
                            "daily_limit": _money(card["daily_limit_cents"])}}


@tool(write=True)
def set_card_daily_limit(db: Db, customer_email: str, card_last4: str, daily_limit: float) -> dict:
    """Change a card's daily spending limit. It must be at least $50 and at most the account product's card limit
    ($1,500 for Everyday Checking, $5,000 for Premier Checking); cancelled or expired cards cannot be changed.

    Args:
        customer_email: the customer's registered e-mail address.
        card_last4: the last four digits of the card.
        daily_limit: the new limit in dollars, e.g. 800.
    """
    c = _acting(db, customer_email)
    card = _card(db, c, card_last4)
    if card["status"] not in ("active", "frozen"):
        raise ToolError(f"The card ending {card['last4']} is {card['status']} and cannot be changed.")
    cents = _cents(daily_limit, "daily_limit")
    top = db.value("SELECT max_card_daily_limit_cents FROM products WHERE id = ?", (card["product_id"],))
    if not MIN_CARD_LIMIT_CENTS <= cents <= top:
        raise ToolError(f"daily_limit must be between ${MIN_CARD_LIMIT_CENTS / 100:,.2f} and ${top / 100:,.2f} for this "
                        "card's account.")
    if cents == card["daily_limit_cents"]:
        raise ToolError(f"The card's daily limit is already ${cents / 100:,.2f}.")
    db.execute("UPDATE cards SET daily_limit_cents = ? WHERE id = ?", (cents, card["id"]))
    _log(db, "card_limit", f"card {card['last4']}: {card['daily_limit_cents']} -> {cents}", c["id"])
    return {"last4": card["last4"], "daily_limit": _money(cents), "previous_daily_limit": _money(card["daily_limit_cents"])}


@tool(write=True)
def set_account_nickname(db: Db, customer_email: str, account_number: str, nickname: str) -> dict:
    """Give one of the customer's accounts a nickname (1 to 30 characters; an empty string clears it).

    Args:
        customer_email: the customer's registered e-mail address.
        account_number: the 10-digit account number.
        nickname: the new nickname, e.g. "Holiday fund".
    """
    c = _acting(db, customer_email)
    a = _account(db, c, account_number)
    if a["status"] == "closed":
        raise ToolError(f"Account {a['account_number']} is closed.")
    n = nickname.strip()
    if len(n) > 30:
        raise ToolError("nickname must be at most 30 characters.")
    if (a["nickname"] or "") == n:
        raise ToolError(f"Account {a['account_number']} already has that nickname." if n else
                        f"Account {a['account_number']} has no nickname to clear.")
    db.execute("UPDATE accounts SET nickname = ? WHERE id = ?", (n, a["id"]))
    _log(db, "account_nickname", f"{a['account_number']}: {n}", c["id"])
    return {"account_number": a["account_number"], "nickname": n}


@tool(write=True)
def create_alert(db: Db, customer_email: str, account_number: str,
                 alert_type: Literal["low_balance", "large_transaction"], threshold: float,
                 channel: Literal["email", "sms", "push"]) -> dict:
    """Create an alert on one of the customer's accounts: "low_balance" fires when a payment takes the balance
    below the threshold, "large_transaction" when a single payment is at least the threshold. One active alert of
    each type per account, at most 5 active alerts per customer.

    Args:
        customer_email: the customer's registered e-mail address.
        account_number: the 10-digit account number.
        alert_type: "low_balance" or "large_transaction".
        threshold: the amount in dollars.
        channel: how to send it: "email", "sms" or "push".
    """
    c = _acting(db, customer_email)
    a = _account(db, c, account_number)
    if a["status"] == "closed":
        raise ToolError(f"Account {a['account_number']} is closed.")
    cents = _cents(threshold, "threshold")
    dup = db.value("SELECT id FROM alerts WHERE account_id = ? AND alert_type = ? AND is_active = 1",
                   (a["id"], alert_type))
    if dup:
        raise ToolError(f"Alert {dup} is already an active {alert_type} alert on this account; delete it first to "
                        "replace it.")
    n = db.value("SELECT COUNT(*) FROM alerts WHERE customer_id = ? AND is_active = 1", (c["id"],))
    if n >= MAX_ALERTS:
        raise ToolError(f"The customer already has {MAX_ALERTS} active alerts; delete one first.")
    aid = db.insert("alerts", {"customer_id": c["id"], "account_id": a["id"], "alert_type": alert_type,
                               "threshold_cents": cents, "channel": channel, "is_active": 1, "created_at": _now(db)})
    _log(db, "alert_created", f"alert {aid}: {alert_type} {cents} via {channel}", c["id"])
    return {"alert_id": aid, "account_number": a["account_number"], "alert_type": alert_type,
            "threshold": _money(cents), "channel": channel}


@tool(write=True)
def delete_alert(db: Db, customer_email: str, alert_id: int) -> dict:
    """Delete (switch off) one of the customer's active alerts.

    Args:
        customer_email: the customer's registered e-mail address.
        alert_id: the alert's id (list_alerts shows ids).
    """
    c = _acting(db, customer_email)
    db.one("SELECT id FROM alerts WHERE id = ? AND customer_id = ? AND is_active = 1", (alert_id, c["id"]),
           missing=f"Alert {alert_id} is not one of this customer's active alerts; list_alerts shows them.")
    db.execute("UPDATE alerts SET is_active = 0 WHERE id = ?", (alert_id,))
    _log(db, "alert_deleted", f"alert {alert_id}", c["id"])
    return {"alert_id": alert_id, "is_active": False}


# ----------------------------------------------------------------------------------------------
# write tools: disputes
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def open_dispute(db: Db, customer_email: str, transaction_reference: str, reason: Reason,
                 amount: float | None = None) -> dict:
    """Dispute a card purchase on one of the customer's accounts. Only card purchases posted in the last 60 days
    can be disputed, and only once (unless an earlier dispute was withdrawn). The disputed amount defaults to the
    full purchase and may not exceed it. The dispute starts as "opened" until a dispute officer reviews it.

    Args:
        customer_email: the customer's registered e-mail address.
        transaction_reference: the purchase's transaction reference (list_transactions shows them).
        reason: "unauthorized", "duplicate", "not_received", "wrong_amount" or "other".
        amount: the amount disputed in dollars; omit it to dispute the whole purchase.
    """
    c = _acting(db, customer_email)
    t = db.one("SELECT t.*, a.customer_id FROM transactions t JOIN accounts a ON a.id = t.account_id "
               "WHERE upper(t.reference) = upper(?) AND a.customer_id = ?", (transaction_reference.strip(), c["id"]),
               missing=f"No transaction {transaction_reference!r} on this customer's accounts.")
    if t["kind"] != "card_purchase":
        raise ToolError(f"{t['reference']} is a {t['kind'].replace('_', ' ')}; only card purchases can be disputed.")
    if t["posted_at"][:10] < (db.today() - timedelta(days=DISPUTE_WINDOW_DAYS)).isoformat():
        raise ToolError(f"{t['reference']} was posted on {t['posted_at'][:10]}, more than {DISPUTE_WINDOW_DAYS} days "
                        "ago; it can no longer be disputed.")
    prior = db.one("SELECT reference, status FROM disputes WHERE transaction_id = ? AND status <> 'withdrawn'",
                   (t["id"],))
    if prior:
        raise ToolError(f"This purchase is already disputed in {prior['reference']} ({prior['status']}).")
    cents = -t["amount_cents"] if amount is None else _cents(amount)
    if cents > -t["amount_cents"]:
        raise ToolError(f"The disputed amount ${cents / 100:,.2f} exceeds the purchase of "
                        f"${-t['amount_cents'] / 100:,.2f}.")
    did = db.value("SELECT COALESCE(MAX(id), 0) + 1 FROM disputes")
    # the next number of the bank's dispute counter (which need not have started at 1)
    ref_no = db.value("SELECT COALESCE(MAX(CAST(substr(reference, 5) AS INTEGER)), 0) + 1 FROM disputes")
    ref = f"DSP-{max(did, ref_no):05d}"
    db.insert("disputes", {"id": did, "reference": ref, "customer_id": c["id"], "transaction_id": t["id"],
                           "reason": reason, "amount_cents": cents, "status": "opened", "officer_id": None,
                           "resolution_note": None, "opened_at": _now(db), "closed_at": None})
    _dispute_event(db, did, None, "opened", c["email"])
    _log(db, "dispute_opened", f"{ref} on {t['reference']}", c["id"])
    return {"dispute_reference": ref, "transaction_reference": t["reference"], "merchant": t["merchant"],
            "amount": _money(cents), "reason": reason, "status": "opened"}


@tool(write=True)
def withdraw_dispute(db: Db, customer_email: str, dispute_reference: str) -> dict:
    """Withdraw one of the customer's disputes. Only possible while it is still "opened" (not yet under review).

    Args:
        customer_email: the customer's registered e-mail address.
        dispute_reference: the dispute reference, e.g. "DSP-00012".
    """
    c = _acting(db, customer_email)
    d = _dispute(db, dispute_reference)
    require_owner(d, "customer_id", c["id"], f"{d['reference']} is not one of this customer's disputes.")
    if d["status"] != "opened":
        raise ToolError(f"{d['reference']} is {d['status']}; only an opened dispute can be withdrawn.")
    db.execute("UPDATE disputes SET status = 'withdrawn', closed_at = ? WHERE id = ?", (_now(db), d["id"]))
    _dispute_event(db, d["id"], "opened", "withdrawn", c["email"])
    _log(db, "dispute_withdrawn", d["reference"], c["id"])
    return {"dispute_reference": d["reference"], "status": "withdrawn"}


@tool(write=True)
def start_dispute_review(db: Db, staff_email: str, dispute_reference: str) -> dict:
    """For dispute officers: take an opened dispute and start reviewing it (opened -> under_review). The officer
    becomes the dispute's owner.

    Args:
        staff_email: the dispute officer's staff e-mail.
        dispute_reference: the dispute reference, e.g. "DSP-00012".
    """
    s = _staff(db, staff_email)
    d = _dispute(db, dispute_reference)
    if d["status"] != "opened":
        raise ToolError(f"{d['reference']} is {d['status']}; only an opened dispute can be taken under review.")
    db.execute("UPDATE disputes SET status = 'under_review', officer_id = ? WHERE id = ?", (s["id"], d["id"]))
    _dispute_event(db, d["id"], "opened", "under_review", s["email"])
    _log(db, "dispute_review", d["reference"], staff_id=s["id"])
    return {"dispute_reference": d["reference"], "status": "under_review", "officer": s["full_name"]}


@tool(write=True)
def resolve_dispute(db: Db, staff_email: str, dispute_reference: str, outcome: Literal["resolved", "rejected"],
                    note: str) -> dict:
    """For dispute officers: decide a dispute under review. Only the officer reviewing it may decide.
    "resolved" (in the customer's favour) credits the disputed amount back to the account as a refund;
    "rejected" leaves the charge in place. The note explains the decision to the customer.

    Args:
        staff_email: the reviewing dispute officer's staff e-mail.
        dispute_reference: the dispute reference.
        outcome: "resolved" (refund the customer) or "rejected".
        note: the decision's explanation, 5 to 500 characters.
    """
    s = _staff(db, staff_email)
    d = _dispute(db, dispute_reference)
    if d["status"] != "under_review":
        raise ToolError(f"{d['reference']} is {d['status']}; only a dispute under review can be decided "
                        "(start_dispute_review first if it is opened).")
    if d["officer_id"] != s["id"]:
        who = db.value("SELECT full_name FROM staff WHERE id = ?", (d["officer_id"],))
        raise ToolError(f"{d['reference']} is being reviewed by {who}; only they can decide it.")
    n = note.strip()
    if not 5 <= len(n) <= 500:
        raise ToolError("note must be 5 to 500 characters.")
    out: dict[str, Any] = {"dispute_reference": d["reference"], "status": outcome}
    if outcome == "resolved":
        acct = db.one(_ACCOUNT_SQL + "WHERE a.id = ?", (d["account_id"],))
        if acct["status"] == "closed":
            raise ToolError(f"Account {acct['account_number']} is closed; the refund cannot be credited.")
        out["refund"] = _post(db, acct, "refund", d["amount_cents"],
                              f"Dispute {d['reference']} refund - {d['merchant']}")
    db.execute("UPDATE disputes SET status = ?, resolution_note = ?, closed_at = ? WHERE id = ?",
               (outcome, n, _now(db), d["id"]))
    _dispute_event(db, d["id"], "under_review", outcome, s["email"], n)
    _log(db, "dispute_decided", f"{d['reference']}: {outcome}", staff_id=s["id"])
    return out
