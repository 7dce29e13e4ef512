"""Row-level diffs keyed by primary key.

A step's diff comes from change-capture triggers baked into the seed (``change_capture_ddl``): one
read of a small log, whatever the table sizes. ``diff_tables`` compares two schemas with EXCEPT
queries; it is the reference the tests and the benchmark check the triggers against.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class TableInfo:
    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]  # primary-key columns, or ("rowid",) for a table without one

    @property
    def select_list(self) -> str:
        return ", ".join(map(_q, ("rowid", *self.columns) if self.key == ("rowid",) else self.columns))


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


def capture_ddl(t: TableInfo) -> list[str]:
    """Temporary triggers that log every row change of ``t`` (old and new image as JSON).

    An episode installs them on its own connection the first time a write tool is about to write ``t``
    (FK cascades included), so reset pays nothing and a step's diff is one read of a small log,
    whatever the table sizes. They live in the ``temp`` schema: never in the world's state."""
    cols = ("rowid", *t.columns) if t.key == ("rowid",) else t.columns

    def image(ref: str) -> str:
        return "json_object(" + ", ".join(f"{_lit(c)}, {ref}.{_q(c)}" for c in cols) + ")"

    out = []
    for event, old, new in (
        ("INSERT", "NULL", image("NEW")),
        ("UPDATE", image("OLD"), image("NEW")),
        ("DELETE", image("OLD"), "NULL"),
    ):
        out.append(
            f"CREATE TEMP TRIGGER IF NOT EXISTS {_q(f'_awm_{t.name}_{event.lower()}')} "
            f"AFTER {event} ON main.{_q(t.name)} "
            f"BEGIN INSERT INTO _awm_changes (tbl, old, new) VALUES ({_lit(t.name)}, {old}, {new}); END"
        )
    return out


Row = dict[str, Any]


def _q(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def changes_from_log(tables: Mapping[str, TableInfo], log: list[tuple[str, str | None, str | None]]) -> Diff:
    """Fold a step's change log into one change per row: first old image vs last new image."""
    first: dict[tuple[str, tuple], Row | None] = {}
    last: dict[tuple[str, tuple], Row | None] = {}
    for tbl, old_json, new_json in log:
        t = tables[tbl]
        old = json.loads(old_json) if old_json is not None else None
        new = json.loads(new_json) if new_json is not None else None
        if old is not None:
            k = (tbl, tuple(old[c] for c in t.key))
            first.setdefault(k, old)
            last[k] = new if new is not None and tuple(new[c] for c in t.key) == k[1] else None
        if new is not None:
            k = (tbl, tuple(new[c] for c in t.key))
            first.setdefault(k, None)
            last[k] = new
    out = []
    for k in sorted(first, key=lambda k: (k[0], _sort_key(k[1]))):
        before, after = first[k], last[k]
        if before == after:
            continue
        op: Literal["insert", "update", "delete"] = "update" if before and after else ("insert" if after else "delete")
        out.append(RowChange(k[0], op, dict(zip(tables[k[0]].key, k[1], strict=True)), before, after))
    return Diff(tuple(out))


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
