"""Row-level diffs keyed by primary key.

A step's diff comes from change-capture triggers (``capture_ddl``) that an episode installs on its own
connection: one read of a small log, whatever the table sizes. ``diff_tables`` compares two schemas
with EXCEPT queries; it is the reference the tests and the benchmark check the triggers against.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class TableInfo:
    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]  # primary-key columns, or ("rowid",) for a table without one

    @property
    def image_columns(self) -> tuple[str, ...]:
        """The columns of a row's image: the rowid first for a table without a primary key."""
        return ("rowid", *self.columns) if self.key == ("rowid",) else self.columns

    @property
    def select_list(self) -> str:
        return ", ".join(map(_q, self.image_columns))


@dataclass(frozen=True, slots=True)
class RowChange:
    table: str
    op: Literal["insert", "update", "delete"]
    key: dict[str, Any]
    before: dict[str, Any] | None
    after: dict[str, Any] | None

    @property
    def changed_columns(self) -> list[str]:
        if self.before is None or self.after is None:
            return list((self.after or self.before or {}).keys())
        return [c for c in self.after if self.after[c] != self.before.get(c)]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"table": self.table, "op": self.op, "key": self.key}
        if self.op == "update":
            assert self.before is not None and self.after is not None
            d["changes"] = {c: [self.before[c], self.after[c]] for c in self.changed_columns}
        else:
            d["row"] = self.after if self.op == "insert" else self.before
        return d


@dataclass(frozen=True, slots=True)
class Diff:
    changes: tuple[RowChange, ...] = field(default_factory=tuple)

    def __bool__(self) -> bool:
        return bool(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    @property
    def tables(self) -> list[str]:
        return sorted({c.table for c in self.changes})

    def to_dict(self) -> list[dict[str, Any]]:
        return [c.to_dict() for c in self.changes]


EMPTY = Diff()


def read_tables(conn: sqlite3.Connection, schema: str = "main") -> dict[str, TableInfo]:
    """Columns and primary keys of every user table in ``schema``."""
    names = [
        r[0]
        for r in conn.execute(
            f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
            "AND name NOT LIKE '\\_awm\\_%' ESCAPE '\\' ORDER BY name"
        )
    ]
    out = {}
    for name in names:
        info = conn.execute(f"PRAGMA {schema}.table_info({_q(name)})").fetchall()
        cols = tuple(r[1] for r in info)
        pk = tuple(r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5]))
        out[name] = TableInfo(name, cols, pk or ("rowid",))
    return out


def diff_tables(conn: sqlite3.Connection, tables: Iterable[TableInfo], old: str, new: str = "main") -> Diff:
    """The row changes from schema ``old`` to schema ``new`` in the given tables."""
    changes: list[RowChange] = []
    for t in sorted(tables, key=lambda t: t.name):
        cols = ("rowid", *t.columns) if t.key == ("rowid",) else t.columns
        sel = t.select_list
        added = conn.execute(
            f"SELECT {sel} FROM {new}.{_q(t.name)} EXCEPT SELECT {sel} FROM {old}.{_q(t.name)}"
        ).fetchall()
        if not added:
            removed = conn.execute(
                f"SELECT {sel} FROM {old}.{_q(t.name)} EXCEPT SELECT {sel} FROM {new}.{_q(t.name)}"
            ).fetchall()
            if not removed:
                continue
        else:
            removed = conn.execute(
                f"SELECT {sel} FROM {old}.{_q(t.name)} EXCEPT SELECT {sel} FROM {new}.{_q(t.name)}"
            ).fetchall()
        changes.extend(_pair(t, cols, removed, added))
    return Diff(tuple(changes))


def _pair(t: TableInfo, cols: tuple[str, ...], removed: list[tuple], added: list[tuple]) -> list[RowChange]:
    idx = [cols.index(k) for k in t.key]

    def key_of(row: tuple) -> tuple:
        return tuple(row[i] for i in idx)

    before = {key_of(r): dict(zip(cols, r, strict=True)) for r in removed}
    after = {key_of(r): dict(zip(cols, r, strict=True)) for r in added}
    out = []
    for k in sorted(before.keys() | after.keys(), key=_sort_key):
        b, a = before.get(k), after.get(k)
        op: Literal["insert", "update", "delete"] = "update" if b and a else ("insert" if a else "delete")
        out.append(RowChange(t.name, op, dict(zip(t.key, k, strict=True)), b, a))
    return out


def _sort_key(k: tuple) -> tuple:
    return tuple((0, v) if isinstance(v, (int, float)) else (1, str(v)) for v in k)


CHANGE_LOG = "temp._awm_changes"
CHANGE_LOG_DDL = (
    "CREATE TEMP TABLE IF NOT EXISTS _awm_changes (seq INTEGER PRIMARY KEY, tbl TEXT NOT NULL, old TEXT, new TEXT)"
)


CAPTURE_EVENTS = ("insert", "update", "delete")  # the order of ``capture_ddl``'s triggers


def capture_ddl(t: TableInfo) -> list[str]:
    """Temporary triggers that log every row change of ``t`` (old and new image as a JSON array of the
    values of ``t.image_columns``: a third of ``json_object``'s cost per row), one per event of
    ``CAPTURE_EVENTS``.

    An episode installs each the first time a write tool is about to do that kind of write to ``t`` (every
    event of the tables FK actions can change), so reset pays nothing and a step's diff is one read of a
    small log, whatever the table sizes. They live in the ``temp`` schema: never in the world's state."""

    def image(ref: str) -> str:
        return "json_array(" + ", ".join(f"{ref}.{_q(c)}" for c in t.image_columns) + ")"

    images = {
        "insert": ("NULL", image("NEW")),
        "update": (image("OLD"), image("NEW")),
        "delete": (image("OLD"), "NULL"),
    }
    out = []
    for event in CAPTURE_EVENTS:
        old, new = images[event]
        out.append(
            f"CREATE TEMP TRIGGER IF NOT EXISTS {_q(f'_awm_{t.name}_{event}')} "
            f"AFTER {event.upper()} ON main.{_q(t.name)} "
            f"BEGIN INSERT INTO _awm_changes (tbl, old, new) VALUES ({_lit(t.name)}, {old}, {new}); END"
        )
    return out


Row = dict[str, Any]


def _q(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


Touched = dict[str, set[str] | None]  # table -> lower-cased columns an update changed; None: rows came or went


def changes_from_log(
    tables: Mapping[str, TableInfo], log: list[tuple[str, str | None, str | None]], touched: Touched | None = None
) -> Diff:
    """Fold a step's change log into one change per row: first old image vs last new image.

    ``touched`` (when given) gains what every logged write may have changed, net or not: a table whose
    rows were inserted or deleted maps to None, an updated one to the columns whose values differ (a REAL
    value always counts: its JSON text need not tell two values apart).

    Runs on every write step: the images stay value lists (one ``json.loads`` for the whole log) until
    the changes that remain become rows (their values zipped with the columns, strictly, as ``_touch``
    does for an update)."""
    images = json.loads("[" + ",".join([x if x is not None else "null" for r in log for x in (r[1], r[2])]) + "]")
    first: dict[tuple[str, tuple], list[Any] | None] = {}
    last: dict[tuple[str, tuple], list[Any] | None] = {}
    for i, (tbl, _, _) in enumerate(log):
        _, key_of, lower = _layout(tables[tbl])
        old, new = images[2 * i], images[2 * i + 1]
        if touched is not None:
            _touch(touched, tbl, lower, old, new)
        if old is not None:
            k = (tbl, key_of(old))
            first.setdefault(k, old)
            last[k] = new if new is not None and key_of(new) == k[1] else None
        if new is not None:
            k = (tbl, key_of(new))
            first.setdefault(k, None)
            last[k] = new
    out = []
    for k in sorted(first, key=lambda k: (k[0], _sort_key(k[1]))) if len(first) > 1 else first:  # one: no sort
        before, after = first[k], last[k]
        if before == after:
            continue
        op: Literal["insert", "update", "delete"] = "update" if before and after else ("insert" if after else "delete")
        t = tables[k[0]]
        cols = _layout(t)[0]
        out.append(
            RowChange(
                k[0],
                op,
                dict(zip(t.key, k[1], strict=True)),
                None if before is None else dict(zip(cols, before, strict=True)),
                None if after is None else dict(zip(cols, after, strict=True)),
            )
        )
    return Diff(tuple(out))


@lru_cache(maxsize=4096)
def _layout(t: TableInfo) -> tuple[tuple[str, ...], Callable[[list[Any]], tuple], tuple[str, ...]]:
    """How ``changes_from_log`` reads an image of ``t`` (a value list): its columns, the function that
    takes the primary-key tuple from it, and the lower-cased column names (what ``touched`` holds)."""
    cols = t.image_columns
    idx = [cols.index(k) for k in t.key]
    if len(idx) == 1:
        (i,) = idx

        def key_of(row: list[Any]) -> tuple:
            return (row[i],)

    else:
        get = itemgetter(*idx)

        def key_of(row: list[Any]) -> tuple:
            return get(row)

    return cols, key_of, tuple(c.lower() for c in cols)


def _touch(touched: Touched, table: str, lower: tuple[str, ...], old: list[Any] | None, new: list[Any] | None) -> None:
    name = table.lower()
    cols = touched.get(name, set())
    if cols is None:
        return
    if old is None or new is None:
        touched[name] = None
        return
    for c, v, w in zip(lower, new, old, strict=True):
        if v != w or type(v) is not type(w) or type(v) is float:
            cols.add(c)
    touched[name] = cols


def fold(net: dict[tuple[str, tuple], tuple[Row | None, Row | None]], step: Diff) -> None:
    """Add a step's changes to the net change since the initial state (key -> (initial, now))."""
    for c in step.changes:
        k = (c.table, tuple(c.key.values()))
        initial = net[k][0] if k in net else c.before
        if initial == c.after:
            net.pop(k, None)
        else:
            net[k] = (initial, c.after)


def net_diff(tables: Mapping[str, TableInfo], net: Mapping[tuple[str, tuple], tuple[Row | None, Row | None]]) -> Diff:
    """The whole change since the initial state, from the folded net changes (no query)."""
    out = []
    for k in sorted(net, key=lambda k: (k[0], _sort_key(k[1]))):
        before, after = net[k]
        op: Literal["insert", "update", "delete"] = "update" if before and after else ("insert" if after else "delete")
        out.append(RowChange(k[0], op, dict(zip(tables[k[0]].key, k[1], strict=True)), before, after))
    return Diff(tuple(out))


def collateral(diff: Diff, allowed: Mapping[str, frozenset[str] | None]) -> list[RowChange]:
    """Changes outside the allowed write set (table -> allowed columns, None = whole rows)."""
    bad = []
    for c in diff.changes:
        if c.table not in allowed:
            bad.append(c)
            continue
        cols = allowed[c.table]
        if cols is None:
            continue
        if c.op != "update" or any(col not in cols for col in c.changed_columns):
            bad.append(c)
    return bad
