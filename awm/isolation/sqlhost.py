"""The parent's side of a worker's database: runs the SQL a sandboxed app sends, on the episode's connection.

One ``SqlHost`` serves one call. Each of the worker's DB-API connections maps onto a SAVEPOINT
inside the call's transaction, opened at its first statement: ``commit`` releases it (kept, as AWM's
file database keeps a commit even when the response then fails), ``rollback``/``close`` roll it
back. ``finish`` rolls back whatever was never committed. Every statement runs under an authorizer
(no ATTACH, no schema change, no transaction control, no PRAGMA that changes a setting, no
``load_extension``/file functions), SQLite's length limit and the episode's VM-step time limit;
``CURRENT_TIMESTAMP`` and ``'now'`` read the world's frozen clock and ``random()``/``randomblob()``
a generator seeded per call, so replays are byte-identical. Results are capped in rows and bytes
(the parent's memory is not the worker's to spend).
"""

from __future__ import annotations

import itertools
import random
import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from awm.isolation.guest.determinism import freeze_sql, frozen_date_functions
from awm.isolation.guest.protocol import ProtocolError, decode_value, encode_value

MAX_SQL = 1 << 20  # characters of one statement
MAX_ROWS = 100_000
MAX_RESULT_BYTES = 32 << 20
MAX_VALUE_BYTES = 16 << 20  # SQLite's length limit during a call (strings and blobs it builds)
_names = itertools.count()
_ALLOWED_ACTIONS = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_INSERT,
    sqlite3.SQLITE_UPDATE,
    sqlite3.SQLITE_DELETE,
    sqlite3.SQLITE_RECURSIVE,
}
_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "sqlite_offset"}
_SCALARS = (int, float, str, bytes, type(None))


def frozen_functions(conn: sqlite3.Connection, clock: datetime, seed: int) -> None:
    """SQLite's date functions read ``'now'`` as ``clock``; ``random()``/``randomblob()`` draw from ``seed``."""
    now = clock.strftime("%Y-%m-%d %H:%M:%S")
    frozen_date_functions(conn, lambda: now)
    rng = random.Random(seed)
    conn.create_function("random", 0, lambda: rng.getrandbits(64) - (1 << 63))
    conn.create_function("randomblob", 1, lambda n: rng.randbytes(max(1, min(int(n or 1), 1 << 20))))


class SqlHost:
    def __init__(self, conn: sqlite3.Connection, clock: datetime, seed: int):
        self.conn = conn
        self.clock = clock
        self.interrupted = False  # a statement hit the episode's time limit
        self.integrity: str | None = None  # the last constraint the database refused
        self._open: dict[int, str] = {}  # worker connection id -> its open savepoint
        self._stack: list[str] = []  # open savepoints, outermost first
        self._control = False
        self._old_length = conn.getlimit(sqlite3.SQLITE_LIMIT_LENGTH)
        frozen_functions(conn, clock, seed)
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        conn.set_authorizer(self._authorize)

    # -- the protocol ----------------------------------------------------------------------------
    def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
        if message.get("op") not in ("sql", "tx"):
            raise ProtocolError(f"unexpected message {str(message.get('op'))[:40]!r}")
        cid = message.get("conn")
        if not isinstance(cid, int):
            raise ProtocolError("a database message without a connection id")
        if message["op"] == "tx":
            action = message.get("action")
            if action == "commit":
                self._release(cid)
            elif action in ("rollback", "close"):
                self._rollback(cid)
            return None
        try:
            return self._sql(cid, message)
        except sqlite3.Error as e:
            text = str(e)
            if "interrupted" in text:
                self.interrupted = True
            if isinstance(e, sqlite3.IntegrityError):
                self.integrity = text
            return {"error": {"type": type(e).__name__, "message": text[:2000]}}

    def _sql(self, cid: int, message: Mapping[str, Any]) -> dict[str, Any]:
        sql, params, many = message.get("sql"), message.get("params"), bool(message.get("many"))
        if not isinstance(sql, str) or len(sql) > MAX_SQL:
            raise sqlite3.ProgrammingError(f"a statement must be a string of at most {MAX_SQL} characters")
        sql = freeze_sql(sql, self.clock.strftime("%Y-%m-%d %H:%M:%S"))
        self._savepoint(cid)
        if many:
            if not isinstance(params, list) or len(params) > MAX_ROWS:
                raise sqlite3.ProgrammingError("executemany needs a list of parameter sets")
            cur = self.conn.executemany(sql, [_params(p) for p in params])
        else:
            cur = self.conn.execute(sql, _params(params))
        columns = [d[0] for d in cur.description] if cur.description else None
        rows: list[list[Any]] = []
        size = 0
        if columns is not None:
            while batch := cur.fetchmany(500):
                for row in batch:
                    size += sum(len(v) if isinstance(v, (str, bytes)) else 8 for v in row)
                    rows.append([encode_value(v) for v in row])
                if len(rows) > MAX_ROWS or size > MAX_RESULT_BYTES:
                    raise sqlite3.OperationalError(
                        f"the result is larger than {MAX_ROWS} rows or {MAX_RESULT_BYTES >> 20} MB; narrow the query"
                    )
        return {"columns": columns, "rows": rows, "rowcount": cur.rowcount, "lastrowid": cur.lastrowid}

    # -- savepoints ------------------------------------------------------------------------------
    def _control_sql(self, sql: str) -> None:
        self._control = True
        try:
            self.conn.execute(sql)
        finally:
            self._control = False

    def _savepoint(self, cid: int) -> None:
        if cid not in self._open:
            name = f"awm_w{next(_names)}"
            self._control_sql(f"SAVEPOINT {name}")
            self._open[cid] = name
            self._stack.append(name)

    def _forget_from(self, name: str) -> None:
        """``name`` and every savepoint opened after it are gone (released or rolled back together)."""
        i = self._stack.index(name)
        gone = set(self._stack[i:])
        del self._stack[i:]
        self._open = {c: n for c, n in self._open.items() if n not in gone}

    def _release(self, cid: int) -> None:
        name = self._open.get(cid)
        if name is not None:
            self._control_sql(f"RELEASE {name}")
            self._forget_from(name)

    def _rollback(self, cid: int) -> None:
        name = self._open.get(cid)
        if name is not None:
            self._control_sql(f"ROLLBACK TO {name}")
            self._control_sql(f"RELEASE {name}")
            self._forget_from(name)

    def finish(self) -> None:
        """Roll back what was never committed; restore the connection's settings."""
        try:
            if self._stack:
                first = self._stack[0]
                self._control_sql(f"ROLLBACK TO {first}")
                self._control_sql(f"RELEASE {first}")
                self._forget_from(first)
        finally:
            self.conn.set_authorizer(None)
            self.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, self._old_length)

    # -- the authorizer --------------------------------------------------------------------------
    def _authorize(self, action: int, arg1: str | None, arg2: str | None, dbname: str | None, _src: str | None) -> int:
        if dbname not in (None, "main", "temp"):
            return sqlite3.SQLITE_DENY
        if action in _ALLOWED_ACTIONS:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_SAVEPOINT:
            return sqlite3.SQLITE_OK if self._control else sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION:
            return sqlite3.SQLITE_DENY if (arg2 or "").lower() in _DENIED_FUNCTIONS else sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA:
            name = (arg1 or "").lower()
            if arg2 is None and not name.startswith("writable"):
                return sqlite3.SQLITE_OK  # reading a setting or table_info
            return sqlite3.SQLITE_IGNORE  # a setting the code may not change: a silent no-op
        return sqlite3.SQLITE_DENY


def _param(value: Any) -> Any:
    value = decode_value(value)
    if not isinstance(value, _SCALARS) or isinstance(value, bool):
        if isinstance(value, bool):
            return int(value)
        raise sqlite3.ProgrammingError(f"a parameter of type {type(value).__name__} is not supported")
    if isinstance(value, int) and not -(1 << 63) <= value < (1 << 63):
        raise sqlite3.ProgrammingError("an integer parameter out of SQLite's 64-bit range")
    return value


def _params(params: Any) -> Any:
    if params is None:
        return ()
    if isinstance(params, dict):
        return {str(k): _param(v) for k, v in params.items()}
    if isinstance(params, list):
        return [_param(v) for v in params]
    raise sqlite3.ProgrammingError("parameters must be a list or an object")
