"""Row-level diffs between two schemas of one SQLite connection, keyed by primary key.

Only the tables a step touched are compared, so a step's diff costs a few small EXCEPT queries.
"""

from __future__ import annotations

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
        return ", ".join(("rowid", *self.columns) if self.key == ("rowid",) else self.columns)


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
            f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    out = {}
    for name in names:
        info = conn.execute(f"PRAGMA {schema}.table_info({name})").fetchall()
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
        added = conn.execute(f"SELECT {sel} FROM {new}.{t.name} EXCEPT SELECT {sel} FROM {old}.{t.name}").fetchall()
        if not added:
            removed = conn.execute(
                f"SELECT {sel} FROM {old}.{t.name} EXCEPT SELECT {sel} FROM {new}.{t.name}"
            ).fetchall()
            if not removed:
                continue
        else:
            removed = conn.execute(
                f"SELECT {sel} FROM {old}.{t.name} EXCEPT SELECT {sel} FROM {new}.{t.name}"
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
