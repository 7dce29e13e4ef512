"""Tools of the email world: a company mail service.

Every tool acts for one mailbox owner, named by ``account_email``: the acting user may only read and
change their own mailbox. Messages, drafts, contacts and the rest are named by the ids the read tools
return; folders and labels by name. Sending between accounts of the service delivers a copy to each
recipient's mailbox (filters, blocked senders, vacation auto-replies and quotas apply); mail to
outside addresses leaves only the sender's copy.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from awm.tooling import Db, ToolError, clean_text, like_any, like_contains, parse_day, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

SYSTEM_FOLDERS = ("inbox", "sent", "drafts", "archive", "spam", "trash")
LABEL_COLORS = ("red", "orange", "yellow", "green", "blue", "purple", "gray")
MAX_CUSTOM_FOLDERS = 25
MAX_LABELS = 30
MAX_FILTERS = 20
MAX_SIGNATURES = 5
MAX_RECIPIENTS = 50
MAX_GROUP_MEMBERS = 100
MAX_VACATION_DAYS = 60
HEADER_BYTES = 400
EMAIL_RE = re.compile(r"^[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}$")

Color = Literal["red", "orange", "yellow", "green", "blue", "purple", "gray"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _addr(value: str, what: str = "address") -> str:
    a = value.strip().lower()
    if not EMAIL_RE.match(a):
        raise ToolError(f"{what} {value!r} is not a valid e-mail address (like 'name@example.com').")
    return a


def _account(db: Db, account_email: str) -> dict[str, Any]:
    row = db.one("SELECT * FROM accounts WHERE email = ?", (account_email.strip().lower(),),
                 missing=f"No mailbox for {account_email!r} on this service. Give the acting user's own "
                         "address (use find_people to look colleagues up by name).")
    if row["status"] != "active":
        raise ToolError(f"The mailbox {row['email']} is suspended; nothing can be read or changed in it.")
    return row


def _own_rows(db: Db, account_email: str, sql: str) -> list[dict[str, Any]]:
    """The rows of one of the acting user's lists: ``sql`` takes the mailbox's account id as its only parameter."""
    return db.query(sql, (_account(db, account_email)["id"],))


def _named(db: Db, table: str, account_id: int, name: str, missing: str | None = None) -> dict[str, Any] | None:
    """The acting user's folder, label, filter, signature or contact group called ``name`` (case ignored)."""
    return db.one(f"SELECT * FROM {table} WHERE account_id = ? AND lower(name) = lower(?)", (account_id, name.strip()),
                  missing=missing)


def _refuse_taken(db: Db, table: str, account_id: int, name: str, what: str) -> None:
    db.none(f"SELECT 1 FROM {table} WHERE account_id = ? AND lower(name) = lower(?)", (account_id, name.strip()),
            found=f"You already have a {what} named {name!r}.")


def _folder(db: Db, account_id: int, name: str) -> dict[str, Any]:
    row = _named(db, "folders", account_id, name)
    if row is None:
        names = [r["name"] for r in db.query("SELECT name FROM folders WHERE account_id = ? ORDER BY id",
                                             (account_id,))]
        raise ToolError(f"You have no folder named {name!r}. Your folders: {', '.join(names)}.")
    return row


def _kind_folder(db: Db, account_id: int, kind: str) -> dict[str, Any]:
    return db.one("SELECT * FROM folders WHERE account_id = ? AND kind = ?", (account_id, kind))


def _own_row(db: Db, sql: str, row_id: int, account_id: int, missing: str) -> dict[str, Any]:
    """The row ``sql`` finds by id, if it belongs to the acting user's mailbox; else ``missing``."""
    row = db.one(sql, (row_id,), missing=missing)
    require_owner(row, "account_id", account_id, missing)
    return row


def _message(db: Db, acct: dict[str, Any], message_id: int) -> dict[str, Any]:
    return _own_row(db, "SELECT m.*, f.name AS folder, f.kind AS folder_kind FROM messages m "
                        "JOIN folders f ON f.id = m.folder_id WHERE m.id = ?", message_id, acct["id"],
                    f"There is no message {message_id} in {acct['email']}'s mailbox; you can only see your "
                    "own mail. Use list_messages or search_messages to find message ids.")


def _label(db: Db, account_id: int, name: str) -> dict[str, Any]:
    row = _named(db, "labels", account_id, name)
    if row is None:
        names = [r["name"] for r in db.query("SELECT name FROM labels WHERE account_id = ? ORDER BY name",
                                             (account_id,))]
        raise ToolError(f"You have no label named {name!r}. Your labels: {', '.join(names) or 'none'}; "
                        "create_label makes a new one.")
    return row


def _usage(db: Db, account_id: int) -> int:
    return db.value("SELECT COALESCE((SELECT SUM(size_bytes) FROM messages WHERE account_id = ?), 0) + "
                    "COALESCE((SELECT SUM(a.size_bytes) FROM attachments a JOIN messages m ON m.id = a.message_id "
                    "WHERE m.account_id = ?), 0)", (account_id, account_id))


def _text_size(subject: str, body: str) -> int:
    return HEADER_BYTES + len(subject.encode()) + len(body.encode())


def _recipients(db: Db, message_id: int, include_bcc: bool = True) -> list[dict[str, Any]]:
    rows = db.query("SELECT kind, address, name FROM message_recipients WHERE message_id = ? ORDER BY "
                    "CASE kind WHEN 'to' THEN 0 WHEN 'cc' THEN 1 ELSE 2 END, id", (message_id,))
    return [r for r in rows if include_bcc or r["kind"] != "bcc"]


def _summary(db: Db, m: dict[str, Any]) -> dict[str, Any]:
    to = [r["address"] for r in _recipients(db, m["id"]) if r["kind"] == "to"]
    n_att = db.value("SELECT COUNT(*) FROM attachments WHERE message_id = ?", (m["id"],))
    labels = [r["name"] for r in db.query("SELECT l.name FROM message_labels ml JOIN labels l ON l.id = ml.label_id "
                                          "WHERE ml.message_id = ? ORDER BY l.name", (m["id"],))]
    return {"id": m["id"], "folder": m.get("folder"), "from": m["from_address"], "from_name": m["from_name"],
            "to": to, "subject": m["subject"], "date": m["received_at"] or m["sent_at"] or m["updated_at"],
            "is_read": bool(m["is_read"]), "is_starred": bool(m["is_starred"]), "attachments": n_att,
            "labels": labels, "thread_id": m["thread_id"]}


def _next_ref(db: Db, account_id: int) -> str:
    n = db.value("SELECT COUNT(*) FROM messages") + 1
    while True:
        ref = f"<m{n}.{account_id}@mail.northpeak.io>"
        if db.value("SELECT 1 FROM messages WHERE message_ref = ?", (ref,)) is None:
            return ref
        n += 1


def _parse_list(values: list[str] | None, what: str) -> list[str]:
    out: list[str] = []
    for v in values or []:
        a = _addr(v, f"{what} address")
        if a not in out:
            out.append(a)
    return out


def _name_for(db: Db, account_id: int, address: str) -> str:
    n = db.value("SELECT display_name FROM accounts WHERE email = ?", (address,))
    if n is None:
        n = db.value("SELECT name FROM contacts WHERE account_id = ? AND email = ?", (account_id, address))
    return n or ""


def _add_recipients(db: Db, message_id: int, account_id: int, to: list[str], cc: list[str], bcc: list[str]) -> None:
    """Record a message's recipients, named as the mailbox ``account_id`` knows them."""
    for kind, lst in (("to", to), ("cc", cc), ("bcc", bcc)):
        for a in lst:
            db.insert("message_recipients", {"message_id": message_id, "kind": kind, "address": a,
                                             "name": _name_for(db, account_id, a)})


def _add_attachments(db: Db, message_id: int, attachments: list[dict[str, Any]]) -> None:
    for a in attachments:
        db.insert("attachments", {"message_id": message_id, "filename": a["filename"], "mime_type": a["mime_type"],
                                  "size_bytes": a["size_bytes"]})


def _check_recipients(to: list[str], cc: list[str], bcc: list[str]) -> None:
    if not to and not cc and not bcc:
        raise ToolError("A message needs at least one recipient in to, cc or bcc.")
    seen: dict[str, str] = {}
    for kind, lst in (("to", to), ("cc", cc), ("bcc", bcc)):
        for a in lst:
            if a in seen:
                raise ToolError(f"{a} is listed in both {seen[a]} and {kind}; list each address once.")
            seen[a] = kind
    if len(seen) > MAX_RECIPIENTS:
        raise ToolError(f"A message may have at most {MAX_RECIPIENTS} recipients (got {len(seen)}).")


def _deliver(db: Db, sender: dict[str, Any], sent: dict[str, Any], to: list[str], cc: list[str], bcc: list[str],
             attachments: list[dict[str, Any]]) -> list[str]:
    """Copy a sent message into each internal recipient's mailbox; returns the internal addresses reached."""
    now = _now(db)
    delivered = []
    att_bytes = sum(a["size_bytes"] for a in attachments)
    for addr in to + cc + bcc:
        rcpt = db.one("SELECT * FROM accounts WHERE email = ?", (addr,))
        if rcpt is None or rcpt["id"] == sender["id"]:
            continue
        if rcpt["status"] != "active":
            raise ToolError(f"{addr}'s mailbox is suspended and cannot receive mail; remove that recipient.")
        if _usage(db, rcpt["id"]) + sent["size_bytes"] + att_bytes > rcpt["quota_bytes"]:
            raise ToolError(f"{rcpt['display_name']}'s mailbox ({addr}) is full; the message would bounce. Remove "
                            "that recipient or ask them to free space.")
        blocked = db.value("SELECT 1 FROM blocked_senders WHERE account_id = ? AND address = ?",
                           (rcpt["id"], sender["email"])) is not None
        folder = _kind_folder(db, rcpt["id"], "spam" if blocked else "inbox")
        is_read, starred, labels = 0, 0, []
        if not blocked:
            for f in db.query("SELECT * FROM filters WHERE account_id = ? AND is_active = 1 ORDER BY id", (rcpt["id"],)):
                hay = sender["email"] if f["match_field"] == "from" else sent["subject"]
                if f["match_value"].lower() not in hay.lower():
                    continue
                if f["action"] == "move":
                    folder = db.one("SELECT * FROM folders WHERE id = ?", (f["folder_id"],))
                elif f["action"] == "label":
                    labels.append(f["label_id"])
                elif f["action"] == "mark_read":
                    is_read = 1
                else:
                    starred = 1
        mid = db.insert("messages", {
            "account_id": rcpt["id"], "folder_id": folder["id"], "thread_id": sent["thread_id"],
            "message_ref": sent["message_ref"], "in_reply_to": sent["in_reply_to"],
            "from_address": sender["email"], "from_name": sender["display_name"], "subject": sent["subject"],
            "body": sent["body"], "is_draft": 0, "is_read": is_read, "is_starred": starred,
            "size_bytes": sent["size_bytes"], "sent_at": now, "received_at": now, "updated_at": now})
        _add_recipients(db, mid, rcpt["id"], to, cc, [])
        if addr in bcc:
            db.insert("message_recipients", {"message_id": mid, "kind": "bcc", "address": addr,
                                             "name": rcpt["display_name"]})
        _add_attachments(db, mid, attachments)
        for lid in dict.fromkeys(labels):
            db.insert("message_labels", {"message_id": mid, "label_id": lid})
        delivered.append(addr)
        if not blocked:
            _vacation_reply(db, rcpt, sender, sent)
    return delivered


def _vacation_reply(db: Db, rcpt: dict[str, Any], sender: dict[str, Any], sent: dict[str, Any]) -> None:
    vr = db.one("SELECT * FROM vacation_responders WHERE account_id = ? AND is_enabled = 1 AND start_date <= ? "
                "AND end_date >= ?", (rcpt["id"], db.today().isoformat(), db.today().isoformat()))
    if vr is None or db.value("SELECT 1 FROM vacation_replies WHERE responder_id = ? AND sender_address = ?",
                              (vr["id"], sender["email"])) is not None:
        return
    now = _now(db)
    inbox = _kind_folder(db, sender["id"], "inbox")
    mid = db.insert("messages", {
        "account_id": sender["id"], "folder_id": inbox["id"], "thread_id": sent["thread_id"],
        "message_ref": _next_ref(db, rcpt["id"]), "in_reply_to": sent["message_ref"],
        "from_address": rcpt["email"], "from_name": rcpt["display_name"], "subject": vr["subject"],
        "body": vr["body"], "is_draft": 0, "is_read": 0, "is_starred": 0,
        "size_bytes": _text_size(vr["subject"], vr["body"]), "sent_at": now, "received_at": now, "updated_at": now})
    db.insert("message_recipients", {"message_id": mid, "kind": "to", "address": sender["email"],
                                     "name": sender["display_name"]})
    db.insert("vacation_replies", {"responder_id": vr["id"], "sender_address": sender["email"], "replied_at": now})


def _signed(db: Db, acct: dict[str, Any], body: str, signature: str | None) -> str:
    if signature is None:
        return body
    sig = _named(db, "signatures", acct["id"], signature)
    if sig is None:
        names = [r["name"] for r in db.query("SELECT name FROM signatures WHERE account_id = ?", (acct["id"],))]
        raise ToolError(f"You have no signature named {signature!r}. Yours: {', '.join(names) or 'none'}.")
    return body.rstrip() + "\n\n-- \n" + sig["body"]


def _send(db: Db, acct: dict[str, Any], subject: str, body: str, to: list[str], cc: list[str], bcc: list[str],
          thread_id: int | None, in_reply_to: str | None, attachments: list[dict[str, Any]],
          draft_id: int | None = None) -> dict[str, Any]:
    _check_recipients(to, cc, bcc)
    if not subject.strip():
        raise ToolError("The message has no subject; give it one before sending.")
    now = _now(db)
    size = _text_size(subject, body)
    att_bytes = sum(a["size_bytes"] for a in attachments)
    current = _usage(db, acct["id"])
    if draft_id is not None:
        current -= db.value("SELECT size_bytes FROM messages WHERE id = ?", (draft_id,))
        current -= att_bytes
    if current + size + att_bytes > acct["quota_bytes"]:
        raise ToolError(f"Your mailbox is over its quota ({acct['quota_bytes'] // 1048576} MB) and cannot keep a copy "
                        "in Sent. Free space first, e.g. empty the trash or delete large attachments' messages.")
    sent_folder = _kind_folder(db, acct["id"], "sent")
    if thread_id is None:
        thread_id = db.insert("threads", {"subject": subject.strip(), "started_at": now})
    if draft_id is None:
        mid = db.insert("messages", {
            "account_id": acct["id"], "folder_id": sent_folder["id"], "thread_id": thread_id,
            "message_ref": _next_ref(db, acct["id"]), "in_reply_to": in_reply_to, "from_address": acct["email"],
            "from_name": acct["display_name"], "subject": subject.strip(), "body": body, "is_draft": 0,
            "is_read": 1, "is_starred": 0, "size_bytes": size, "sent_at": now, "received_at": None, "updated_at": now})
        _add_recipients(db, mid, acct["id"], to, cc, bcc)
        _add_attachments(db, mid, attachments)
    else:
        mid = draft_id
        db.execute("UPDATE messages SET folder_id = ?, thread_id = ?, is_draft = 0, is_read = 1, size_bytes = ?, "
                   "sent_at = ?, updated_at = ? WHERE id = ?", (sent_folder["id"], thread_id, size, now, now, mid))
    sent = db.one("SELECT * FROM messages WHERE id = ?", (mid,))
    delivered = _deliver(db, acct, sent, to, cc, bcc, attachments)
    return {"message_id": mid, "thread_id": thread_id, "subject": sent["subject"], "sent_at": now,
            "delivered_internally_to": delivered,
            "external_recipients": [a for a in to + cc + bcc if a not in delivered]}


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def find_people(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Look up colleagues in the company directory by part of their name, address or department.

    Args:
        query: words of a name, an address or a department, e.g. "Priya" or "finance".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "lower(display_name)", "email", "lower(department)", lower=True)
    return db.query(f"SELECT display_name AS name, email, department, status FROM accounts WHERE {who} "
                    "ORDER BY display_name, email LIMIT ?", (*params, limit))


@tool
def get_account(db: Db, account_email: str) -> dict:
    """Show the acting user's mailbox: name, department, storage used against the quota, and unread counts.

    Args:
        account_email: the acting user's own e-mail address.
    """
    a = _account(db, account_email)
    used = _usage(db, a["id"])
    unread = db.value("SELECT COUNT(*) FROM messages m JOIN folders f ON f.id = m.folder_id WHERE m.account_id = ? "
                      "AND f.kind = 'inbox' AND m.is_read = 0", (a["id"],))
    return {"email": a["email"], "name": a["display_name"], "department": a["department"],
            "quota_bytes": a["quota_bytes"], "used_bytes": used, "free_bytes": a["quota_bytes"] - used,
            "used_percent": round(100.0 * used / a["quota_bytes"], 1), "unread_in_inbox": unread}


@tool
def list_folders(db: Db, account_email: str) -> list[dict]:
    """List the acting user's folders with message counts, unread counts and the bytes each holds.

    Args:
        account_email: the acting user's own e-mail address.
    """
    return _own_rows(
        db, account_email,
        "SELECT f.name, f.kind, COUNT(m.id) AS messages, COALESCE(SUM(m.is_read = 0), 0) AS unread, "
        "COALESCE(SUM(m.size_bytes), 0) + COALESCE((SELECT SUM(x.size_bytes) FROM attachments x JOIN messages y "
        "ON y.id = x.message_id WHERE y.folder_id = f.id), 0) AS bytes FROM folders f "
        "LEFT JOIN messages m ON m.folder_id = f.id WHERE f.account_id = ? GROUP BY f.id ORDER BY f.id")


@tool
def list_messages(db: Db, account_email: str, folder: str = "inbox", unread_only: bool = False,
                  starred_only: bool = False, label: str | None = None, from_address: str | None = None,
                  limit: int = 20, offset: int = 0) -> dict:
    """List messages in one of the acting user's folders, newest first.

    Args:
        account_email: the acting user's own e-mail address.
        folder: folder name, e.g. "inbox", "sent", "drafts", "archive", "spam", "trash" or a custom folder.
        unread_only: only unread messages.
        starred_only: only starred messages.
        label: only messages carrying this label.
        from_address: only messages from this sender address.
        limit: maximum number of messages, 1 to 50.
        offset: how many of the newest matching messages to skip (for paging).
    """
    a = _account(db, account_email)
    _limit(limit)
    if offset < 0:
        raise ToolError("offset must be 0 or more")
    f = _folder(db, a["id"], folder)
    lid = _label(db, a["id"], label)["id"] if label else None
    frm = from_address.strip().lower() if from_address else None
    where = ("m.folder_id = ? AND (? = 0 OR m.is_read = 0) AND (? = 0 OR m.is_starred = 1) "
             "AND (? IS NULL OR EXISTS (SELECT 1 FROM message_labels ml WHERE ml.message_id = m.id AND ml.label_id = ?)) "
             "AND (? IS NULL OR m.from_address = ?)")
    params = (f["id"], int(unread_only), int(starred_only), lid, lid, frm, frm)
    total = db.value("SELECT COUNT(*) FROM messages m WHERE " + where, params)
    rows = db.query("SELECT m.*, ? AS folder FROM messages m WHERE " + where +
                    " ORDER BY COALESCE(m.received_at, m.sent_at, m.updated_at) DESC, m.id DESC LIMIT ? OFFSET ?",
                    (f["name"], *params, limit, offset))
    return {"folder": f["name"], "total": total, "messages": [_summary(db, m) for m in rows]}


@tool
def search_messages(db: Db, account_email: str, text: str | None = None, from_address: str | None = None,
                    to_address: str | None = None, folder: str | None = None, date_from: str | None = None,
                    date_to: str | None = None, has_attachment: bool | None = None, limit: int = 20) -> dict:
    """Search the acting user's whole mailbox (every folder) by words, sender, recipient and date.

    Args:
        account_email: the acting user's own e-mail address.
        text: words that must appear in the subject or the body.
        from_address: only messages from this address (exact) or containing this text, e.g. "@acme.com".
        to_address: only messages with this address among their recipients.
        folder: only this folder.
        date_from: only messages dated on or after this day, YYYY-MM-DD.
        date_to: only messages dated on or before this day, YYYY-MM-DD.
        has_attachment: true for only messages with attachments, false for only messages without.
        limit: maximum number of results, 1 to 50.
    """
    a = _account(db, account_email)
    _limit(limit)
    fid = _folder(db, a["id"], folder)["id"] if folder else None
    d1 = parse_day(date_from, "date_from").isoformat() if date_from else None
    d2 = parse_day(date_to, "date_to").isoformat() if date_to else None
    t = text.strip() if text else None
    words, word_params = like_any(t or "", "lower(m.subject)", "lower(m.body)", lower=True)
    frm = from_address.strip().lower() if from_address else None
    to = to_address.strip().lower() if to_address else None
    att = None if has_attachment is None else int(has_attachment)
    where = ("m.account_id = ? AND (? IS NULL OR m.folder_id = ?) "
             f"AND (? IS NULL OR {words}) "
             "AND (? IS NULL OR m.from_address = ? OR instr(m.from_address, ?) > 0) "
             "AND (? IS NULL OR EXISTS (SELECT 1 FROM message_recipients r WHERE r.message_id = m.id AND r.address = ?)) "
             "AND (? IS NULL OR substr(COALESCE(m.received_at, m.sent_at, m.updated_at), 1, 10) >= ?) "
             "AND (? IS NULL OR substr(COALESCE(m.received_at, m.sent_at, m.updated_at), 1, 10) <= ?) "
             "AND (? IS NULL OR (EXISTS (SELECT 1 FROM attachments x WHERE x.message_id = m.id)) = ?)")
    params = (a["id"], fid, fid, t, *word_params, frm, frm, frm, to, to, d1, d1, d2, d2, att, att)
    total = db.value("SELECT COUNT(*) FROM messages m WHERE " + where, params)
    rows = db.query("SELECT m.*, f.name AS folder FROM messages m JOIN folders f ON f.id = m.folder_id WHERE " + where +
                    " ORDER BY COALESCE(m.received_at, m.sent_at, m.updated_at) DESC, m.id DESC LIMIT ?", (*params, limit))
    return {"total": total, "messages": [_summary(db, m) for m in rows]}


@tool
def read_message(db: Db, account_email: str, message_id: int) -> dict:
    """Show one message of the acting user in full: headers, recipients, body, attachments and labels.
    Reading does not mark it read; use mark_read for that.

    Args:
        account_email: the acting user's own e-mail address.
        message_id: the message's id.
    """
    a = _account(db, account_email)
    m = _message(db, a, message_id)
    out = _summary(db, m)
    out.update({"recipients": _recipients(db, m["id"]), "body": m["body"], "is_draft": bool(m["is_draft"]),
                "sent_at": m["sent_at"], "received_at": m["received_at"], "size_bytes": m["size_bytes"],
                "attachments": db.query("SELECT id, filename, mime_type, size_bytes FROM attachments "
                                        "WHERE message_id = ? ORDER BY id", (m["id"],))})
    return out


@tool
def get_thread(db: Db, account_email: str, thread_id: int) -> dict:
    """Show a conversation: the acting user's messages in one thread, oldest first.

    Args:
        account_email: the acting user's own e-mail address.
        thread_id: the thread's id (every message summary carries it).
    """
    a = _account(db, account_email)
    rows = db.query("SELECT m.*, f.name AS folder FROM messages m JOIN folders f ON f.id = m.folder_id "
                    "WHERE m.account_id = ? AND m.thread_id = ? ORDER BY COALESCE(m.sent_at, m.updated_at), m.id",
                    (a["id"], thread_id))
    if not rows:
        raise ToolError(f"You have no messages in thread {thread_id}.")
    return {"thread_id": thread_id, "subject": db.value("SELECT subject FROM threads WHERE id = ?", (thread_id,)),
            "messages": [_summary(db, m) for m in rows]}


@tool
def list_attachments(db: Db, account_email: str, folder: str | None = None, min_size_kb: int = 0,
                     filename: str | None = None, limit: int = 20) -> list[dict]:
    """List attachments in the acting user's mailbox, largest first, with the message each belongs to.

    Args:
        account_email: the acting user's own e-mail address.
        folder: only attachments of messages in this folder.
        min_size_kb: only attachments of at least this many kilobytes (1 KB = 1024 bytes).
        filename: only attachments whose file name contains this text.
        limit: maximum number of results, 1 to 50.
    """
    a = _account(db, account_email)
    _limit(limit)
    fid = _folder(db, a["id"], folder)["id"] if folder else None
    fn = like_contains(filename.strip(), lower=True) if filename else None
    return db.query("SELECT x.id, x.filename, x.mime_type, x.size_bytes, m.id AS message_id, m.subject, "
                    "m.from_address, f.name AS folder FROM attachments x JOIN messages m ON m.id = x.message_id "
                    "JOIN folders f ON f.id = m.folder_id WHERE m.account_id = ? AND (? IS NULL OR m.folder_id = ?) "
                    "AND x.size_bytes >= ? AND (? IS NULL OR lower(x.filename) LIKE ? ESCAPE '\\') "
                    "ORDER BY x.size_bytes DESC, x.id LIMIT ?", (a["id"], fid, fid, min_size_kb * 1024, fn, fn, limit))


@tool
def list_labels(db: Db, account_email: str) -> list[dict]:
    """List the acting user's labels with their colours and how many messages carry each.

    Args:
        account_email: the acting user's own e-mail address.
    """
    return _own_rows(db, account_email, "SELECT l.name, l.color, COUNT(ml.id) AS messages FROM labels l "
                     "LEFT JOIN message_labels ml ON ml.label_id = l.id WHERE l.account_id = ? GROUP BY l.id "
                     "ORDER BY l.name")


@tool
def list_filters(db: Db, account_email: str) -> list[dict]:
    """List the acting user's filters (rules applied to incoming mail from colleagues), in the order they run.

    Args:
        account_email: the acting user's own e-mail address.
    """
    return _own_rows(db, account_email, "SELECT r.id, r.name, r.match_field, r.match_value, r.action, "
                     "f.name AS folder, l.name AS label, r.is_active FROM filters r LEFT JOIN folders f "
                     "ON f.id = r.folder_id LEFT JOIN labels l ON l.id = r.label_id WHERE r.account_id = ? "
                     "ORDER BY r.id")


@tool
def list_contacts(db: Db, account_email: str, query: str | None = None, group: str | None = None,
                  limit: int = 20) -> list[dict]:
    """List or search the acting user's contacts, with the groups each belongs to.

    Args:
        account_email: the acting user's own e-mail address.
        query: words of the contact's name, address or company.
        group: only members of this contact group.
        limit: maximum number of results, 1 to 100.
    """
    a = _account(db, account_email)
    _limit(limit, 100)
    gid = None
    if group:
        g = _named(db, "contact_groups", a["id"], group,
                   missing=f"You have no contact group named {group!r}; list_contact_groups shows yours.")
        gid = g["id"]
    q = query.strip() if query else None
    who, who_params = like_any(q or "", "lower(c.name)", "c.email", "lower(COALESCE(c.company, ''))", lower=True)
    rows = db.query(f"SELECT c.id, c.name, c.email, c.phone, c.company FROM contacts c WHERE c.account_id = ? "
                    f"AND (? IS NULL OR {who}) "
                    "AND (? IS NULL OR EXISTS (SELECT 1 FROM contact_group_members gm WHERE gm.contact_id = c.id "
                    "AND gm.group_id = ?)) ORDER BY c.name, c.id LIMIT ?", (a["id"], q, *who_params, gid, gid, limit))
    for r in rows:
        r["groups"] = [g["name"] for g in db.query("SELECT g.name FROM contact_group_members gm JOIN contact_groups g "
                                                   "ON g.id = gm.group_id WHERE gm.contact_id = ? ORDER BY g.name",
                                                   (r["id"],))]
    return rows


@tool
def list_contact_groups(db: Db, account_email: str) -> list[dict]:
    """List the acting user's contact groups with their ids and member counts.

    Args:
        account_email: the acting user's own e-mail address.
    """
    return _own_rows(db, account_email, "SELECT g.id, g.name, COUNT(gm.id) AS members FROM contact_groups g "
                     "LEFT JOIN contact_group_members gm ON gm.group_id = g.id WHERE g.account_id = ? "
                     "GROUP BY g.id ORDER BY g.name")


@tool
def list_signatures(db: Db, account_email: str) -> list[dict]:
    """List the acting user's signatures and which one is the default.

    Args:
        account_email: the acting user's own e-mail address.
    """
    return _own_rows(db, account_email,
                     "SELECT name, body, is_default FROM signatures WHERE account_id = ? ORDER BY name")


@tool
def get_vacation_responder(db: Db, account_email: str) -> dict:
    """Show the acting user's out-of-office auto-reply settings and whether it is answering mail today.

    Args:
        account_email: the acting user's own e-mail address.
    """
    a = _account(db, account_email)
    vr = db.one("SELECT * FROM vacation_responders WHERE account_id = ?", (a["id"],))
    if vr is None:
        return {"configured": False, "is_enabled": False}
    today = db.today().isoformat()
    replied = db.value("SELECT COUNT(*) FROM vacation_replies WHERE responder_id = ?", (vr["id"],))
    return {"configured": True, "is_enabled": bool(vr["is_enabled"]), "start_date": vr["start_date"],
            "end_date": vr["end_date"], "subject": vr["subject"], "body": vr["body"],
            "answering_today": bool(vr["is_enabled"]) and vr["start_date"] <= today <= vr["end_date"],
            "senders_already_answered": replied}


@tool
def list_blocked_senders(db: Db, account_email: str) -> list[dict]:
    """List the addresses the acting user has blocked (their mail goes straight to Spam).

    Args:
        account_email: the acting user's own e-mail address.
    """
    return _own_rows(db, account_email,
                     "SELECT address, blocked_at FROM blocked_senders WHERE account_id = ? ORDER BY address")


# ----------------------------------------------------------------------------------------------
# write tools: message state and organisation
# ----------------------------------------------------------------------------------------------

def _purge(db: Db, message_id: int) -> None:
    """Delete a message for good, with its labels, attachments and recipients."""
    for t in ("message_labels", "attachments", "message_recipients"):
        db.execute(f"DELETE FROM {t} WHERE message_id = ?", (message_id,))
    db.execute("DELETE FROM messages WHERE id = ?", (message_id,))


def _owned(db: Db, a: dict[str, Any], ids: list[int]) -> list[dict[str, Any]]:
    if not ids:
        raise ToolError("Give at least one message id.")
    if len(ids) > 100:
        raise ToolError("At most 100 messages at a time.")
    if len(set(ids)) != len(ids):
        raise ToolError("A message id is listed twice; list each message once.")
    return [_message(db, a, i) for i in ids]


@tool(write=True)
def mark_read(db: Db, account_email: str, message_ids: list[int], read: bool = True) -> dict:
    """Mark messages of the acting user as read (or unread again). Drafts are always read.

    Args:
        account_email: the acting user's own e-mail address.
        message_ids: ids of the messages.
        read: true to mark read, false to mark unread.
    """
    a = _account(db, account_email)
    msgs = _owned(db, a, message_ids)
    for m in msgs:
        if m["is_draft"] and not read:
            raise ToolError(f"Message {m['id']} is a draft; drafts cannot be marked unread.")
    changed = 0
    for m in msgs:
        if m["is_read"] != int(read):
            db.execute("UPDATE messages SET is_read = ?, updated_at = ? WHERE id = ?", (int(read), _now(db), m["id"]))
            changed += 1
    return {"updated": changed, "unchanged": len(msgs) - changed, "read": read}


@tool(write=True)
def set_starred(db: Db, account_email: str, message_id: int, starred: bool = True) -> dict:
    """Star or unstar one of the acting user's messages.

    Args:
        account_email: the acting user's own e-mail address.
        message_id: the message's id.
        starred: true to star, false to remove the star.
    """
    a = _account(db, account_email)
    m = _message(db, a, message_id)
    if m["is_starred"] == int(starred):
        raise ToolError(f"Message {message_id} is already {'starred' if starred else 'not starred'}.")
    db.execute("UPDATE messages SET is_starred = ?, updated_at = ? WHERE id = ?", (int(starred), _now(db), message_id))
    return {"message_id": message_id, "is_starred": starred}


@tool(write=True)
def move_messages(db: Db, account_email: str, message_ids: list[int], folder: str) -> dict:
    """Move messages of the acting user to another of their folders (inbox, archive, spam, a custom folder).
    Nothing can be moved into Sent, Drafts or Trash (use delete_message for Trash), and drafts cannot be
    moved at all.

    Args:
        account_email: the acting user's own e-mail address.
        message_ids: ids of the messages to move.
        folder: the destination folder's name.
    """
    a = _account(db, account_email)
    dest = _folder(db, a["id"], folder)
    if dest["kind"] in ("sent", "drafts", "trash"):
        hint = " Use delete_message to put mail in Trash." if dest["kind"] == "trash" else ""
        raise ToolError(f"Messages cannot be moved into {dest['name']}.{hint}")
    msgs = _owned(db, a, message_ids)
    for m in msgs:
        if m["is_draft"]:
            raise ToolError(f"Message {m['id']} is a draft; drafts stay in Drafts until sent or deleted.")
        if m["folder_id"] == dest["id"]:
            raise ToolError(f"Message {m['id']} is already in {dest['name']}.")
        if m["folder_kind"] == "sent" and dest["kind"] in ("inbox", "spam"):
            raise ToolError(f"Message {m['id']} is one you sent; sent mail can go to Archive or a custom folder, "
                            "not the inbox or spam.")
    for m in msgs:
        db.execute("UPDATE messages SET folder_id = ?, updated_at = ? WHERE id = ?", (dest["id"], _now(db), m["id"]))
    return {"moved": [m["id"] for m in msgs], "folder": dest["name"]}


@tool(write=True)
def delete_message(db: Db, account_email: str, message_id: int) -> dict:
    """Delete one of the acting user's messages: anything outside Trash moves to Trash; a message already in
    Trash is deleted for good, with its attachments and labels.

    Args:
        account_email: the acting user's own e-mail address.
        message_id: the message's id.
    """
    a = _account(db, account_email)
    m = _message(db, a, message_id)
    if m["folder_kind"] == "trash":
        _purge(db, message_id)
        return {"message_id": message_id, "deleted_forever": True}
    trash = _kind_folder(db, a["id"], "trash")
    db.execute("UPDATE messages SET folder_id = ?, updated_at = ? WHERE id = ?", (trash["id"], _now(db), message_id))
    return {"message_id": message_id, "moved_to": trash["name"], "deleted_forever": False}


@tool(write=True)
def empty_trash(db: Db, account_email: str) -> dict:
    """Delete for good every message in the acting user's Trash, freeing their storage.

    Args:
        account_email: the acting user's own e-mail address.
    """
    a = _account(db, account_email)
    trash = _kind_folder(db, a["id"], "trash")
    ids = [r["id"] for r in db.query("SELECT id FROM messages WHERE folder_id = ?", (trash["id"],))]
    if not ids:
        raise ToolError("Your Trash is already empty.")
    before = _usage(db, a["id"])
    for i in ids:
        _purge(db, i)
    return {"deleted": len(ids), "bytes_freed": before - _usage(db, a["id"])}


@tool(write=True)
def create_folder(db: Db, account_email: str, name: str) -> dict:
    """Create a custom folder in the acting user's mailbox (at most 25 custom folders).

    Args:
        account_email: the acting user's own e-mail address.
        name: the new folder's name, 1 to 40 characters, not a system folder's name.
    """
    a = _account(db, account_email)
    n = clean_text(name, "A folder name", 1, 40)
    if n.lower() in SYSTEM_FOLDERS:
        raise ToolError(f"{n!r} is a system folder name; choose another name.")
    _refuse_taken(db, "folders", a["id"], n, "folder")
    if db.value("SELECT COUNT(*) FROM folders WHERE account_id = ? AND kind = 'custom'", (a["id"],)) >= MAX_CUSTOM_FOLDERS:
        raise ToolError(f"You already have {MAX_CUSTOM_FOLDERS} custom folders, the limit.")
    fid = db.insert("folders", {"account_id": a["id"], "name": n, "kind": "custom", "created_at": _now(db)})
    return {"folder_id": fid, "name": n}


@tool(write=True)
def create_label(db: Db, account_email: str, name: str, color: Color = "gray") -> dict:
    """Create a label in the acting user's mailbox (at most 30 labels, names unique).

    Args:
        account_email: the acting user's own e-mail address.
        name: the label's name, 1 to 30 characters.
        color: its colour.
    """
    a = _account(db, account_email)
    n = clean_text(name, "A label name", 1, 30)
    _refuse_taken(db, "labels", a["id"], n, "label")
    if db.value("SELECT COUNT(*) FROM labels WHERE account_id = ?", (a["id"],)) >= MAX_LABELS:
        raise ToolError(f"You already have {MAX_LABELS} labels, the limit; delete one first.")
    lid = db.insert("labels", {"account_id": a["id"], "name": n, "color": color, "created_at": _now(db)})
    return {"label_id": lid, "name": n, "color": color}


@tool(write=True)
def label_message(db: Db, account_email: str, message_id: int, label: str, remove: bool = False) -> dict:
    """Put one of the acting user's labels on one of their messages, or take it off.

    Args:
        account_email: the acting user's own e-mail address.
        message_id: the message's id.
        label: the label's name.
        remove: true to take the label off instead.
    """
    a = _account(db, account_email)
    m = _message(db, a, message_id)
    lab = _label(db, a["id"], label)
    has = db.value("SELECT 1 FROM message_labels WHERE message_id = ? AND label_id = ?", (m["id"], lab["id"]))
    if remove:
        if not has:
            raise ToolError(f"Message {message_id} does not carry the label {lab['name']!r}.")
        db.execute("DELETE FROM message_labels WHERE message_id = ? AND label_id = ?", (m["id"], lab["id"]))
    else:
        if has:
            raise ToolError(f"Message {message_id} already carries the label {lab['name']!r}.")
        db.insert("message_labels", {"message_id": m["id"], "label_id": lab["id"]})
    return {"message_id": message_id, "label": lab["name"], "removed": remove}


# ----------------------------------------------------------------------------------------------
# write tools: composing and sending
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def save_draft(db: Db, account_email: str, subject: str, body: str, to: list[str] | None = None,
               cc: list[str] | None = None, bcc: list[str] | None = None, draft_id: int | None = None) -> dict:
    """Save a draft in the acting user's Drafts: a new one, or (with draft_id) replace the subject, body and
    recipients of an existing draft. A draft may have no recipients yet; sent mail can no longer be edited.

    Args:
        account_email: the acting user's own e-mail address.
        subject: the subject line.
        body: the message text.
        to: addresses for To.
        cc: addresses for Cc.
        bcc: addresses for Bcc.
        draft_id: the id of the draft to overwrite; leave empty to start a new draft.
    """
    a = _account(db, account_email)
    to_l, cc_l, bcc_l = _parse_list(to, "to"), _parse_list(cc, "cc"), _parse_list(bcc, "bcc")
    if to_l or cc_l or bcc_l:
        _check_recipients(to_l, cc_l, bcc_l)
    now = _now(db)
    size = _text_size(subject, body)
    if draft_id is None:
        drafts = _kind_folder(db, a["id"], "drafts")
        thread = db.insert("threads", {"subject": subject.strip() or "(no subject)", "started_at": now})
        mid = db.insert("messages", {
            "account_id": a["id"], "folder_id": drafts["id"], "thread_id": thread,
            "message_ref": _next_ref(db, a["id"]), "in_reply_to": None, "from_address": a["email"],
            "from_name": a["display_name"], "subject": subject.strip(), "body": body, "is_draft": 1, "is_read": 1,
            "is_starred": 0, "size_bytes": size, "sent_at": None, "received_at": None, "updated_at": now})
    else:
        m = _message(db, a, draft_id)
        if not m["is_draft"]:
            raise ToolError(f"Message {draft_id} is not a draft (it was sent or received); start a new draft instead.")
        mid = draft_id
        db.execute("UPDATE messages SET subject = ?, body = ?, size_bytes = ?, updated_at = ? WHERE id = ?",
                   (subject.strip(), body, size, now, mid))
        db.execute("DELETE FROM message_recipients WHERE message_id = ?", (mid,))
    _add_recipients(db, mid, a["id"], to_l, cc_l, bcc_l)
    return {"draft_id": mid, "subject": subject.strip(), "to": to_l, "cc": cc_l, "bcc": bcc_l}


@tool(write=True)
def send_draft(db: Db, account_email: str, draft_id: int) -> dict:
    """Send one of the acting user's drafts as it stands: it moves to Sent, and colleagues on the service
    among its recipients get a copy in their mailbox (their filters and blocks apply; a full mailbox refuses it).

    Args:
        account_email: the acting user's own e-mail address.
        draft_id: the draft's id.
    """
    a = _account(db, account_email)
    m = _message(db, a, draft_id)
    if not m["is_draft"]:
        raise ToolError(f"Message {draft_id} is not a draft; it has already been sent or was received.")
    rc = _recipients(db, m["id"])
    to = [r["address"] for r in rc if r["kind"] == "to"]
    cc = [r["address"] for r in rc if r["kind"] == "cc"]
    bcc = [r["address"] for r in rc if r["kind"] == "bcc"]
    atts = db.query("SELECT filename, mime_type, size_bytes FROM attachments WHERE message_id = ? ORDER BY id", (m["id"],))
    thread = m["thread_id"]
    return _send(db, a, m["subject"], m["body"], to, cc, bcc, thread, m["in_reply_to"], atts, draft_id=m["id"])


@tool(write=True)
def send_message(db: Db, account_email: str, to: list[str], subject: str, body: str, cc: list[str] | None = None,
                 bcc: list[str] | None = None, signature: str | None = None) -> dict:
    """Write and send a new message from the acting user in one step (a copy is kept in Sent).

    Args:
        account_email: the acting user's own e-mail address.
        to: addresses for To (at least one recipient overall).
        subject: the subject line (required).
        body: the message text.
        cc: addresses for Cc.
        bcc: addresses for Bcc (hidden from the other recipients).
        signature: the name of one of the user's signatures to append below the text; none if empty.
    """
    a = _account(db, account_email)
    to_l, cc_l, bcc_l = _parse_list(to, "to"), _parse_list(cc, "cc"), _parse_list(bcc, "bcc")
    return _send(db, a, subject, _signed(db, a, body, signature), to_l, cc_l, bcc_l, None, None, [])


@tool(write=True)
def reply_to_message(db: Db, account_email: str, message_id: int, body: str, reply_all: bool = False,
                     signature: str | None = None) -> dict:
    """Reply to one of the acting user's messages, in the same thread, with subject "Re: <subject>". The reply
    goes to the sender (for your own sent message: to its To recipients); reply_all adds everyone else on To
    and Cc except you. Drafts and messages in Spam cannot be replied to.

    Args:
        account_email: the acting user's own e-mail address.
        message_id: the id of the message answered.
        body: the reply's text.
        reply_all: also reply to the other To and Cc recipients.
        signature: the name of one of the user's signatures to append; none if empty.
    """
    a = _account(db, account_email)
    m = _message(db, a, message_id)
    if m["is_draft"]:
        raise ToolError(f"Message {message_id} is a draft; finish and send it with send_draft instead.")
    if m["folder_kind"] == "spam":
        raise ToolError(f"Message {message_id} is in Spam; move it to the inbox first if it is genuine.")
    rc = _recipients(db, m["id"], include_bcc=False)
    if m["from_address"] == a["email"]:
        to = [r["address"] for r in rc if r["kind"] == "to"]
        cc = [r["address"] for r in rc if r["kind"] == "cc"] if reply_all else []
    else:
        to = [m["from_address"]]
        if reply_all:
            to += [r["address"] for r in rc if r["kind"] == "to" and r["address"] not in (a["email"], m["from_address"])]
        cc = [r["address"] for r in rc if r["kind"] == "cc" and r["address"] not in (a["email"], *to)] if reply_all else []
    subject = m["subject"] if m["subject"].lower().startswith("re:") else "Re: " + m["subject"]
    return _send(db, a, subject, _signed(db, a, body, signature), list(dict.fromkeys(to)), list(dict.fromkeys(cc)),
                 [], m["thread_id"], m["message_ref"], [])


@tool(write=True)
def forward_message(db: Db, account_email: str, message_id: int, to: list[str], note: str = "",
                    keep_attachments: bool = True) -> dict:
    """Forward one of the acting user's messages, with subject "Fwd: <subject>", the note above the quoted
    original, and (unless keep_attachments is false) its attachments.

    Args:
        account_email: the acting user's own e-mail address.
        message_id: the id of the message forwarded.
        to: addresses to forward it to.
        note: text written above the forwarded message.
        keep_attachments: include the original's attachments.
    """
    a = _account(db, account_email)
    m = _message(db, a, message_id)
    if m["is_draft"]:
        raise ToolError(f"Message {message_id} is a draft and cannot be forwarded.")
    to_l = _parse_list(to, "to")
    subject = m["subject"] if m["subject"].lower().startswith("fwd:") else "Fwd: " + m["subject"]
    quoted = (f"---------- Forwarded message ----------\nFrom: {m['from_name']} <{m['from_address']}>\n"
              f"Date: {m['sent_at']}\nSubject: {m['subject']}\n\n{m['body']}")
    body = (note.strip() + "\n\n" + quoted) if note.strip() else quoted
    atts = db.query("SELECT filename, mime_type, size_bytes FROM attachments WHERE message_id = ? ORDER BY id",
                    (m["id"],)) if keep_attachments else []
    return _send(db, a, subject, body, to_l, [], [], None, None, atts)


@tool(write=True)
def delete_draft(db: Db, account_email: str, draft_id: int) -> dict:
    """Throw away one of the acting user's drafts for good.

    Args:
        account_email: the acting user's own e-mail address.
        draft_id: the draft's id.
    """
    a = _account(db, account_email)
    m = _message(db, a, draft_id)
    if not m["is_draft"]:
        raise ToolError(f"Message {draft_id} is not a draft; use delete_message for other mail.")
    _purge(db, draft_id)
    return {"draft_id": draft_id, "deleted": True}


# ----------------------------------------------------------------------------------------------
# write tools: settings, filters, contacts
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_filter(db: Db, account_email: str, name: str, match_field: Literal["from", "subject"], match_value: str,
                  action: Literal["move", "label", "mark_read", "star"], folder: str | None = None,
                  label: str | None = None) -> dict:
    """Create a filter for the acting user's incoming mail from colleagues on the service: when the sender's
    address (match_field "from") or the subject contains match_value, the action runs (move to a folder,
    add a label, mark read, or star). It applies to new mail only. At most 20 filters, names unique.

    Args:
        account_email: the acting user's own e-mail address.
        name: a name for the filter.
        match_field: "from" (the sender's address) or "subject".
        match_value: the text to look for (case does not matter).
        action: "move", "label", "mark_read" or "star".
        folder: for "move": the destination folder (Archive or a custom folder).
        label: for "label": the label to add.
    """
    a = _account(db, account_email)
    n, v = name.strip(), match_value.strip().lower()
    if not n:
        raise ToolError("Give the filter a name.")
    if not 1 <= len(v) <= 100:
        raise ToolError("match_value must be 1 to 100 characters.")
    _refuse_taken(db, "filters", a["id"], n, "filter")
    if db.value("SELECT COUNT(*) FROM filters WHERE account_id = ?", (a["id"],)) >= MAX_FILTERS:
        raise ToolError(f"You already have {MAX_FILTERS} filters, the limit.")
    db.none("SELECT 1 FROM filters WHERE account_id = ? AND match_field = ? AND match_value = ? AND action = ? "
            "AND is_active = 1", (a["id"], match_field, v, action),
            found="An active filter with the same condition and action already exists.")
    fid = lid = None
    if action == "move":
        if not folder:
            raise ToolError("A 'move' filter needs the destination folder.")
        f = _folder(db, a["id"], folder)
        if f["kind"] not in ("archive", "custom"):
            raise ToolError("A filter can only move mail to Archive or a custom folder.")
        fid = f["id"]
    elif folder:
        raise ToolError("folder is only used by 'move' filters.")
    if action == "label":
        if not label:
            raise ToolError("A 'label' filter needs the label to add.")
        lid = _label(db, a["id"], label)["id"]
    elif label:
        raise ToolError("label is only used by 'label' filters.")
    rid = db.insert("filters", {"account_id": a["id"], "name": n, "match_field": match_field, "match_value": v,
                                "action": action, "folder_id": fid, "label_id": lid, "is_active": 1,
                                "created_at": _now(db)})
    return {"filter_id": rid, "name": n}


@tool(write=True)
def set_filter_active(db: Db, account_email: str, filter_id: int, active: bool) -> dict:
    """Switch one of the acting user's filters on or off.

    Args:
        account_email: the acting user's own e-mail address.
        filter_id: the filter's id (list_filters shows it).
        active: true to switch it on, false to switch it off.
    """
    a = _account(db, account_email)
    f = _own_row(db, "SELECT * FROM filters WHERE id = ?", filter_id, a["id"],
                 f"You have no filter {filter_id}; list_filters shows yours.")
    if f["is_active"] == int(active):
        raise ToolError(f"Filter {f['name']!r} is already {'on' if active else 'off'}.")
    db.execute("UPDATE filters SET is_active = ? WHERE id = ?", (int(active), filter_id))
    return {"filter_id": filter_id, "name": f["name"], "is_active": active}


@tool(write=True)
def add_contact(db: Db, account_email: str, name: str, email: str, phone: str | None = None,
                company: str | None = None) -> dict:
    """Add a contact to the acting user's address book (one contact per address).

    Args:
        account_email: the acting user's own e-mail address.
        name: the contact's full name.
        email: the contact's e-mail address.
        phone: a phone number, if known.
        company: the company they work for, if known.
    """
    a = _account(db, account_email)
    addr = _addr(email, "email")
    if not name.strip():
        raise ToolError("Give the contact's name.")
    old = db.one("SELECT id, name FROM contacts WHERE account_id = ? AND email = ?", (a["id"], addr))
    if old:
        raise ToolError(f"{addr} is already in your contacts as {old['name']!r} (contact {old['id']}).")
    cid = db.insert("contacts", {"account_id": a["id"], "name": name.strip(), "email": addr,
                                 "phone": phone.strip() if phone else None,
                                 "company": company.strip() if company else None, "created_at": _now(db)})
    return {"contact_id": cid, "name": name.strip(), "email": addr}


@tool(write=True)
def create_contact_group(db: Db, account_email: str, name: str) -> dict:
    """Create an empty contact group in the acting user's address book (names unique).

    Args:
        account_email: the acting user's own e-mail address.
        name: the group's name, 1 to 40 characters.
    """
    a = _account(db, account_email)
    n = clean_text(name, "A group name", 1, 40)
    _refuse_taken(db, "contact_groups", a["id"], n, "contact group")
    gid = db.insert("contact_groups", {"account_id": a["id"], "name": n, "created_at": _now(db)})
    return {"group_id": gid, "name": n}


@tool(write=True)
def add_contact_to_group(db: Db, account_email: str, contact_id: int, group: str) -> dict:
    """Add one of the acting user's contacts to one of their contact groups (at most 100 members a group).

    Args:
        account_email: the acting user's own e-mail address.
        contact_id: the contact's id (list_contacts shows it).
        group: the group's name.
    """
    a = _account(db, account_email)
    c = _own_row(db, "SELECT * FROM contacts WHERE id = ?", contact_id, a["id"],
                 f"You have no contact {contact_id}; add the person with add_contact first.")
    g = _named(db, "contact_groups", a["id"], group,
               missing=f"You have no contact group named {group!r}; create_contact_group makes one.")
    db.none("SELECT 1 FROM contact_group_members WHERE group_id = ? AND contact_id = ?", (g["id"], c["id"]),
            found=f"{c['name']} is already in {g['name']!r}.")
    if db.value("SELECT COUNT(*) FROM contact_group_members WHERE group_id = ?", (g["id"],)) >= MAX_GROUP_MEMBERS:
        raise ToolError(f"{g['name']!r} already has {MAX_GROUP_MEMBERS} members, the limit.")
    db.insert("contact_group_members", {"group_id": g["id"], "contact_id": c["id"], "added_at": _now(db)})
    return {"group": g["name"], "contact": c["name"], "email": c["email"]}


@tool(write=True)
def remove_contact_from_group(db: Db, account_email: str, contact_id: int, group: str) -> dict:
    """Take one of the acting user's contacts out of one of their groups (the contact itself stays).

    Args:
        account_email: the acting user's own e-mail address.
        contact_id: the contact's id.
        group: the group's name.
    """
    a = _account(db, account_email)
    g = _named(db, "contact_groups", a["id"], group, missing=f"You have no contact group named {group!r}.")
    n = db.execute("DELETE FROM contact_group_members WHERE group_id = ? AND contact_id = ?", (g["id"], contact_id))
    if not n:
        raise ToolError(f"Contact {contact_id} is not in {g['name']!r}.")
    return {"group": g["name"], "removed_contact_id": contact_id}


@tool(write=True)
def set_signature(db: Db, account_email: str, name: str, body: str, make_default: bool = False) -> dict:
    """Create a signature for the acting user, or replace the text of the one with this name; make_default
    makes it the default (only one default at a time). At most 5 signatures.

    Args:
        account_email: the acting user's own e-mail address.
        name: the signature's name.
        body: its text, 1 to 1000 characters.
        make_default: make it the default signature.
    """
    a = _account(db, account_email)
    n, b = name.strip(), body.strip()
    if not n or not 1 <= len(b) <= 1000:
        raise ToolError("A signature needs a name and a text of 1 to 1000 characters.")
    old = _named(db, "signatures", a["id"], n)
    if old is None and db.value("SELECT COUNT(*) FROM signatures WHERE account_id = ?", (a["id"],)) >= MAX_SIGNATURES:
        raise ToolError(f"You already have {MAX_SIGNATURES} signatures, the limit.")
    if make_default:
        db.execute("UPDATE signatures SET is_default = 0 WHERE account_id = ? AND is_default = 1", (a["id"],))
    if old is None:
        db.insert("signatures", {"account_id": a["id"], "name": n, "body": b, "is_default": int(make_default)})
    else:
        if old["body"] == b and (old["is_default"] or not make_default):
            raise ToolError(f"Signature {old['name']!r} already has exactly this text.")
        db.execute("UPDATE signatures SET body = ?, is_default = ? WHERE id = ?",
                   (b, 1 if make_default else old["is_default"], old["id"]))
    return {"name": n, "is_default": bool(make_default or (old and old["is_default"]))}


@tool(write=True)
def set_vacation_responder(db: Db, account_email: str, enabled: bool, start_date: str | None = None,
                           end_date: str | None = None, subject: str | None = None, body: str | None = None) -> dict:
    """Turn the acting user's out-of-office auto-reply on (with its dates and text) or off. While on and
    within its dates, each colleague who writes gets one automatic reply. The period may last at most 60
    days and must not end in the past. Changing the settings starts a fresh period (everyone may be answered
    again).

    Args:
        account_email: the acting user's own e-mail address.
        enabled: true to turn it on, false to turn it off (the other arguments are then ignored).
        start_date: first day away, YYYY-MM-DD.
        end_date: last day away, YYYY-MM-DD.
        subject: the auto-reply's subject.
        body: the auto-reply's text.
    """
    a = _account(db, account_email)
    vr = db.one("SELECT * FROM vacation_responders WHERE account_id = ?", (a["id"],))
    now = _now(db)
    if not enabled:
        if vr is None or not vr["is_enabled"]:
            raise ToolError("Your out-of-office reply is already off.")
        db.execute("UPDATE vacation_responders SET is_enabled = 0, updated_at = ? WHERE id = ?", (now, vr["id"]))
        return {"is_enabled": False}
    if not (start_date and end_date and subject and subject.strip() and body and body.strip()):
        raise ToolError("To turn the auto-reply on give start_date, end_date, subject and body.")
    d1, d2 = parse_day(start_date, "start_date"), parse_day(end_date, "end_date")
    if d2 < d1:
        raise ToolError("end_date is before start_date.")
    if d2 < db.today():
        raise ToolError(f"end_date {d2} is already past (today is {db.today()}).")
    if (d2 - d1).days + 1 > MAX_VACATION_DAYS:
        raise ToolError(f"An auto-reply period may last at most {MAX_VACATION_DAYS} days.")
    row = {"is_enabled": 1, "start_date": d1.isoformat(), "end_date": d2.isoformat(), "subject": subject.strip(),
           "body": body.strip(), "updated_at": now}
    if vr is None:
        db.insert("vacation_responders", {"account_id": a["id"], **row})
    else:
        db.execute("DELETE FROM vacation_replies WHERE responder_id = ?", (vr["id"],))
        db.execute("UPDATE vacation_responders SET is_enabled = 1, start_date = ?, end_date = ?, subject = ?, body = ?, "
                   "updated_at = ? WHERE id = ?", (row["start_date"], row["end_date"], row["subject"], row["body"],
                                                   now, vr["id"]))
    return {"is_enabled": True, "start_date": row["start_date"], "end_date": row["end_date"]}


@tool(write=True)
def block_sender(db: Db, account_email: str, address: str) -> dict:
    """Block an address for the acting user: their future mail goes straight to Spam, and the messages from
    them now in the inbox move to Spam too. You cannot block yourself.

    Args:
        account_email: the acting user's own e-mail address.
        address: the sender's e-mail address.
    """
    a = _account(db, account_email)
    addr = _addr(address)
    if addr == a["email"]:
        raise ToolError("You cannot block your own address.")
    db.none("SELECT 1 FROM blocked_senders WHERE account_id = ? AND address = ?", (a["id"], addr),
            found=f"{addr} is already blocked.")
    db.insert("blocked_senders", {"account_id": a["id"], "address": addr, "blocked_at": _now(db)})
    inbox, spam = _kind_folder(db, a["id"], "inbox"), _kind_folder(db, a["id"], "spam")
    moved = db.execute("UPDATE messages SET folder_id = ?, updated_at = ? WHERE folder_id = ? AND from_address = ?",
                       (spam["id"], _now(db), inbox["id"], addr))
    return {"blocked": addr, "moved_to_spam": moved}


@tool(write=True)
def unblock_sender(db: Db, account_email: str, address: str) -> dict:
    """Unblock an address for the acting user (mail already in Spam stays there).

    Args:
        account_email: the acting user's own e-mail address.
        address: the blocked e-mail address.
    """
    a = _account(db, account_email)
    addr = _addr(address)
    if not db.execute("DELETE FROM blocked_senders WHERE account_id = ? AND address = ?", (a["id"], addr)):
        raise ToolError(f"{addr} is not on your blocked list.")
    return {"unblocked": addr}
