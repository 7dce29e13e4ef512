"""What makes code we did not write deterministic inside the worker: the world's frozen clock and seeded chance.

- ``datetime.now()``/``utcnow()``/``today()`` and ``date.today()`` in the code's own source (also
  referenced uncalled, as in ``default=datetime.utcnow``) read the frozen clock: an AST rewrite.
- ``time.time()``/``time_ns()``/``localtime()``/``gmtime()``/``ctime()``/``strftime()`` read it too.
- ``random``'s global generator and ``uuid.uuid1``/``uuid4`` are reseeded per call from a seed the parent
  derives from the episode and its step, so a replay draws the same values.
- ``sqlite3`` connections the code opens itself (verifiers) get SQLite's date functions with ``'now'``
  bound to the frozen clock, and ``CURRENT_TIMESTAMP``/``CURRENT_DATE``/``CURRENT_TIME`` rewritten.
"""

from __future__ import annotations

import ast
import datetime as _dt
import random
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

CLOCK_NOW, CLOCK_TODAY = "_awm_clock_now", "_awm_clock_today"
_CLOCK_ATTRS = {"now": CLOCK_NOW, "utcnow": CLOCK_NOW, "today": CLOCK_NOW}
_clock = _dt.datetime(2026, 1, 1)
_rng = random.Random(0)
_real_connect = sqlite3.connect
_plain = threading.local()  # an untouched connection per thread, whose date functions do the arithmetic
_DATE_FUNCTIONS = ("date", "time", "datetime", "julianday", "strftime", "unixepoch")
_KEYWORDS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\b(current_timestamp|current_date|current_time)\b", re.I)


def set_clock(clock: _dt.datetime, seed: int) -> None:
    """The frozen clock and the chance seed of the next piece of work."""
    global _clock
    _clock = clock
    random.seed(seed)
    _rng.seed(seed ^ 0x5EED)


def clock_now(tz: Any = None) -> _dt.datetime:
    return _clock.replace(tzinfo=tz) if tz is not None else _clock


def clock_today() -> _dt.date:
    return _clock.date()


def _epoch() -> float:
    return _clock.replace(tzinfo=_dt.UTC).timestamp()


class _FreezeClock(ast.NodeTransformer):
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        owner = node.value
        name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else None
        if node.attr in _CLOCK_ATTRS and name in ("datetime", "date"):
            target = CLOCK_TODAY if (name == "date" and node.attr == "today") else _CLOCK_ATTRS[node.attr]
            return ast.copy_location(ast.Name(id=target, ctx=ast.Load()), node)
        return node


def compile_frozen(source: str, filename: str) -> Any:
    """``source`` compiled with its clock reads bound to the frozen clock (names ``CLOCK_NOW``/``CLOCK_TODAY``)."""
    tree = ast.fix_missing_locations(_FreezeClock().visit(ast.parse(source, filename)))
    return compile(tree, filename, "exec")


def clock_names() -> dict[str, Any]:
    return {CLOCK_NOW: clock_now, CLOCK_TODAY: clock_today}


def stamp() -> str:
    """The frozen clock as SQLite writes a timestamp."""
    return _clock.strftime("%Y-%m-%d %H:%M:%S")


def freeze_sql(sql: str, now: str | None = None) -> str:
    """``CURRENT_TIMESTAMP``/``CURRENT_DATE``/``CURRENT_TIME`` outside string literals → the clock ``now``
    (a ``YYYY-MM-DD HH:MM:SS`` stamp; the worker's frozen clock by default)."""
    if "current_" not in sql.lower():
        return sql
    now = now or stamp()
    parts = {"current_timestamp": now, "current_date": now[:10], "current_time": now[11:]}
    return _KEYWORDS.sub(lambda m: f"'{parts[m.group(1).lower()]}'" if m.group(1) else m.group(0), sql)


def frozen_date_functions(conn: sqlite3.Connection, now: Callable[[], str] = stamp) -> None:
    """SQLite's date functions on ``conn`` with ``'now'`` (also implied: ``date()``, ``strftime(fmt)``) read as
    the clock ``now()`` gives. Shared by the worker, the parent's SQL host and the importer."""
    for name in _DATE_FUNCTIONS:

        def fn(*args: Any, _name: str = name) -> Any:
            current = now()
            args = args or (current,)
            if _name == "strftime" and len(args) == 1:
                args = (*args, current)
            args = tuple(current if isinstance(a, str) and a.strip().lower() == "now" else a for a in args)
            plain = getattr(_plain, "conn", None)
            if plain is None:
                plain = _plain.conn = _real_connect(":memory:")
            return plain.execute(f"SELECT {_name}({', '.join('?' for _ in args)})", args).fetchone()[0]

        conn.create_function(name, -1, fn, deterministic=True)


class FrozenCursor(sqlite3.Cursor):
    def execute(self, sql: str, *args: Any) -> Any:
        return super().execute(freeze_sql(sql), *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        return super().executemany(freeze_sql(sql), *args)


class FrozenConnection(sqlite3.Connection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        frozen_date_functions(self)

    def cursor(self, factory: Any = FrozenCursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, *args: Any) -> Any:
        return self.cursor().execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        return self.cursor().executemany(sql, *args)


def install() -> None:
    """Patch the process-wide sources of time and chance (the worker runs one piece of work at a time)."""
    time.time = _epoch
    time.time_ns = lambda: int(_epoch() * 1_000_000_000)
    real_localtime, real_gmtime, real_ctime, real_strftime = time.localtime, time.gmtime, time.ctime, time.strftime
    time.localtime = lambda secs=None: real_localtime(_epoch() if secs is None else secs)
    time.gmtime = lambda secs=None: real_gmtime(_epoch() if secs is None else secs)
    time.ctime = lambda secs=None: real_ctime(_epoch() if secs is None else secs)
    time.strftime = lambda fmt, t=None: real_strftime(fmt, real_gmtime(_epoch()) if t is None else t)
    uuid.uuid4 = lambda: uuid.UUID(int=_rng.getrandbits(128), version=4)
    uuid.uuid1 = lambda node=None, clock_seq=None: uuid.UUID(int=_rng.getrandbits(128), version=1)

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        kwargs.setdefault("factory", FrozenConnection)
        return _real_connect(*args, **kwargs)

    sqlite3.connect = connect  # type: ignore[assignment]
