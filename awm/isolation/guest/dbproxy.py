"""A DB-API connection whose SQL runs in the PARENT, on the episode's database.

The worker has no database: every statement travels to the parent, which runs it on the episode's
connection under its authorizer and time limit and answers with the rows. ``commit``/``rollback``/
``close`` are messages too; the parent maps them onto savepoints inside the call's transaction (a
commit is kept as AWM keeps it; what was never committed is rolled back when the call ends).
"""

from __future__ import annotations

import datetime as _dt
import itertools
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from protocol import decode_value, encode_value

Exchange = Callable[[dict[str, Any]], dict[str, Any]]  # send a request to the parent, get its reply
Notify = Callable[[dict[str, Any]], None]  # send a message that needs no reply
_ids = itertools.count(1)
_ERRORS = {
    name: getattr(sqlite3, name)
    for name in (
        "IntegrityError",
        "OperationalError",
        "ProgrammingError",
        "DataError",
        "NotSupportedError",
        "InterfaceError",
        "InternalError",
        "DatabaseError",
    )
}


def _param(value: Any) -> Any:
    if value is None or isinstance(value, (int, float, str, bytes)):
        return encode_value(value) if isinstance(value, bytes) else value
    if isinstance(value, (bytearray, memoryview)):
        return encode_value(bytes(value))
    if isinstance(value, _dt.datetime):
        return value.isoformat(" ")
    if isinstance(value, _dt.date):
        return value.isoformat()
    try:
        adapted: Any = sqlite3.adapt(value)  # type: ignore[call-overload]
    except Exception as e:
        raise sqlite3.ProgrammingError(
            f"Error binding parameter: type {type(value).__name__!r} is not supported"
        ) from e
    return _param(adapted) if adapted is not value else str(adapted)


def _params(params: Any) -> Any:
    if params is None:
        return []
    if isinstance(params, dict):
        return {str(k): _param(v) for k, v in params.items()}
    return [_param(v) for v in params]


class RemoteCursor:
    arraysize = 1

    def __init__(self, conn: RemoteConnection):
        self.connection = conn
        self.description: tuple[tuple[Any, ...], ...] | None = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self._rows: list[tuple[Any, ...]] = []
        self._pos = 0

    def _run(self, sql: str, params: Any, many: bool) -> RemoteCursor:
        if not isinstance(sql, str):
            raise sqlite3.ProgrammingError("SQL must be a string")
        if many:
            payload: Any = [_params(p) for p in params]
        else:
            payload = _params(params)
        reply = self.connection._exchange(
            {"op": "sql", "conn": self.connection.id, "sql": sql, "params": payload, "many": many}
        )
        if "error" in reply:
            err = reply["error"]
            raise _ERRORS.get(err.get("type"), sqlite3.DatabaseError)(str(err.get("message", "")))
        names = reply.get("columns")
        self.description = tuple((n, None, None, None, None, None, None) for n in names) if names else None
        self._rows = [tuple(decode_value(v) for v in row) for row in reply.get("rows", ())]
        self._pos = 0
        self.rowcount = int(reply.get("rowcount", -1))
        self.lastrowid = reply.get("lastrowid")
        return self

    def execute(self, sql: str, params: Any = ()) -> RemoteCursor:
        return self._run(sql, params, False)

    def executemany(self, sql: str, seq: Sequence[Any]) -> RemoteCursor:
        return self._run(sql, list(seq), True)

    def executescript(self, _script: str) -> RemoteCursor:
        raise sqlite3.OperationalError("executescript is not available to environment code")

    def fetchone(self) -> tuple[Any, ...] | None:
        if self._pos >= len(self._rows):
            return None
        self._pos += 1
        return self._rows[self._pos - 1]

    def fetchmany(self, size: int | None = None) -> list[tuple[Any, ...]]:
        n = size or self.arraysize
        out = self._rows[self._pos : self._pos + n]
        self._pos += len(out)
        return out

    def fetchall(self) -> list[tuple[Any, ...]]:
        out = self._rows[self._pos :]
        self._pos = len(self._rows)
        return out

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        while (row := self.fetchone()) is not None:
            yield row

    def close(self) -> None:
        self._rows = []

    def setinputsizes(self, *_: Any) -> None:
        pass

    def setoutputsize(self, *_: Any) -> None:
        pass


class RemoteConnection:
    """What ``sqlite3.connect`` gives SQLAlchemy inside the worker (via its ``creator``)."""

    isolation_level = ""
    in_transaction = True
    row_factory = None
    text_factory = str

    def __init__(self, exchange: Exchange, notify: Notify):
        self.id = next(_ids)
        self._exchange = exchange
        self._notify = notify
        self._closed = False

    def cursor(self, *_: Any) -> RemoteCursor:
        return RemoteCursor(self)

    def execute(self, sql: str, params: Any = ()) -> RemoteCursor:
        return self.cursor().execute(sql, params)

    def executemany(self, sql: str, seq: Sequence[Any]) -> RemoteCursor:
        return self.cursor().executemany(sql, seq)

    def commit(self) -> None:
        self._notify({"op": "tx", "conn": self.id, "action": "commit"})

    def rollback(self) -> None:
        self._notify({"op": "tx", "conn": self.id, "action": "rollback"})

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._notify({"op": "tx", "conn": self.id, "action": "close"})

    def create_function(self, *_: Any, **__: Any) -> None:
        """Functions run in the parent's SQL engine, which offers SQLite's own (and ``regexp``) only."""

    def create_aggregate(self, *_: Any, **__: Any) -> None:
        pass

    def create_collation(self, *_: Any, **__: Any) -> None:
        pass
