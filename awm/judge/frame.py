"""The row-level write frame: what a task may change, derived from its gold solution's net diff.

The expected change of a task is the gold solution's net diff (row by row, with values). An agent's
net change passes the frame when it is that change, up to:

- values compared after normalisation (text by ``awm.judge.normal.text_key``: case, accents, spacing and the
  punctuation between words; 1e-9 for numbers), and the checks judged on the expected spelling of such a
  value (``Verdict.respellings``), so a check and the frame never disagree about a spelling;
- ``free_columns`` (``table.column``): legitimately variable values (e.g. a free-text reason);
- inserted rows matched by content, not key (an agent may create rows in another order); a column
  that points at a row inserted in the same episode matches any such row;
- ``allowed_writes``: declared rules for further rows (by table, operation and a SQL predicate);
- the manifest's ``log_tables``: extra rows inserted into an append-only log are not collateral (a
  do-and-undo leaves two log rows and nothing else); the expected log rows are still required.

Anything else the agent changed is **collateral** (someone else's row, another column, an extra
insert, a delete); any expected change not made, or made with other values, is **missing** or
**wrong**. Outcome 1 requires none of the three.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from awm.bundle.records import AllowedWrite, WriteOp
from awm.judge.normal import text_key
from awm.sql.diff import Diff, RowChange, TableInfo


def same_value(a: Any, b: Any) -> bool:
    """Equality after normalisation: numbers to 1e-9, text by ``awm.judge.normal.text_key`` (case, accents,
    spacing, punctuation between words)."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
    return text_key(a) == text_key(b)


@dataclass(frozen=True)
class Respelling:
    """A value the agent wrote as another spelling of the expected one (``ccg-558-20931`` for
    ``CCG-558-20931``): the checks are judged as if it were the expected spelling."""

    table: str
    key: Mapping[str, Any]
    column: str
    value: Any


@dataclass(frozen=True)
class Verdict:
    """How the agent's net change compares with the expected one."""

    collateral: tuple[RowChange, ...] = ()
    missing: tuple[str, ...] = ()
    wrong: tuple[str, ...] = ()
    respellings: tuple[Respelling, ...] = ()  # values equal to the expected ones only after normalisation

    @property
    def ok(self) -> bool:
        return not (self.collateral or self.missing or self.wrong)

    def reasons(self, limit: int = 5) -> list[str]:
        out = [f"collateral: {c.op} {c.table} {c.key}" for c in self.collateral[:limit]]
        out += [f"missing: {m}" for m in self.missing[:limit]]
        out += [f"wrong: {w}" for w in self.wrong[:limit]]
        return out


@dataclass(frozen=True)
class Frame:
    """A task's expected net change plus its declared exceptions."""

    tables: Mapping[str, TableInfo]
    expected: Diff
    free: Mapping[str, frozenset[str]] = field(default_factory=dict)
    rules: Sequence[AllowedWrite] = ()
    fks: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # table -> column -> parent table
    autokeys: frozenset[str] = frozenset()  # tables keyed by an INTEGER PRIMARY KEY (a rowid the db assigns)
    permissive: bool = False  # replaying a gold solution to derive a frame: everything is in frame
    logs: frozenset[str] = frozenset()  # append-only log tables: extra inserts there are not collateral

    @cached_property
    def _keyed(self) -> dict[tuple[str, tuple], RowChange]:
        """Expected updates and deletes by (table, key)."""
        return {(c.table, _key(c)): c for c in self.expected.changes if c.op != "insert"}

    @cached_property
    def _insert_tables(self) -> frozenset[str]:
        return frozenset(c.table for c in self.expected.changes if c.op == "insert")

    # -- per step ------------------------------------------------------------------------------
    def outside(self, diff: Diff, conn: sqlite3.Connection | None = None) -> list[RowChange]:
        """A step's changes that no expected change or rule can account for (the step's collateral)."""
        if self.permissive:
            return []
        out = []
        for c in diff.changes:
            exp = self._keyed.get((c.table, _key(c)))
            if exp is not None and c.op in (exp.op, "update"):
                continue
            if c.op == "insert" and (c.table in self._insert_tables or c.table in self.logs):
                continue
            if self._ruled(c, conn):
                continue
            out.append(c)
        return out

    # -- at the end ----------------------------------------------------------------------------
    def judge(self, net: Diff, conn: sqlite3.Connection | None = None) -> Verdict:
        """Compare the agent's net change since the initial state with the expected one."""
        if self.permissive:
            return Verdict()
        keyed = self._keyed
        collateral: list[RowChange] = []
        wrong: list[str] = []
        used: dict[int, int] = {}
        respell: list[Respelling] = []
        seen: set[tuple[str, tuple]] = set()
        got_inserts: dict[str, list[RowChange]] = {}
        for c in net.changes:
            if c.op == "insert":
                got_inserts.setdefault(c.table, []).append(c)
                continue
            k = (c.table, _key(c))
            exp = keyed.get(k)
            if exp is None or exp.op != c.op:
                if not self._ruled(c, conn, used):
                    collateral.append(c)
                continue
            seen.add(k)
            if c.op == "update":
                assert c.after is not None and exp.after is not None
                diffs = self._differences(c.table, exp.after, c.after)
                if diffs:
                    wrong.append(f"{c.table} {c.key}: " + "; ".join(diffs))
                else:
                    respell += self._respellings(c.table, c.key, exp.after, c.after)
        missing: list[str] = []
        for k, exp in keyed.items():
            if k in seen:
                continue
            if exp.op == "update":
                assert exp.before is not None and exp.after is not None
                if not self._differences(exp.table, exp.after, exp.before):
                    continue  # only free columns were to change
                cols = [c for c in exp.changed_columns if c not in self.free.get(exp.table, ())]
                missing.append(f"update {exp.table} {exp.key} ({', '.join(cols)})")
            else:
                missing.append(f"{exp.op} {exp.table} {exp.key}")
        exp_inserts: dict[str, list[RowChange]] = {}
        for c in self.expected.changes:
            if c.op == "insert":
                exp_inserts.setdefault(c.table, []).append(c)
        new_keys_exp = {t: {_key(c) for c in cs} for t, cs in exp_inserts.items()}
        new_keys_got = {t: {_key(c) for c in cs} for t, cs in got_inserts.items()}
        for table in sorted(set(exp_inserts) | set(got_inserts)):
            exp_rows = list(exp_inserts.get(table, []))
            exp_sigs = {id(e): self._signature(table, e.after or {}, new_keys_exp) for e in exp_rows}
            unmatched_got = []
            for g in got_inserts.get(table, []):
                sig = self._signature(table, g.after or {}, new_keys_got)
                hit = next((e for e in exp_rows if exp_sigs[id(e)] == sig), None)
                if hit is not None:
                    exp_rows.remove(hit)
                    respell += self._respellings(table, g.key, hit.after or {}, g.after or {})
                else:
                    unmatched_got.append(g)
            for g in list(unmatched_got):  # same key, other values: the expected row, done wrong
                e = next((e for e in exp_rows if _key(e) == _key(g)), None)
                if e is None and len(exp_rows) == 1 and len(unmatched_got) == 1:
                    e = exp_rows[0]
                if e is not None:
                    exp_rows.remove(e)
                    unmatched_got.remove(g)
                    diffs = self._differences(table, e.after or {}, g.after or {}, new_keys_exp, new_keys_got)
                    wrong.append(f"new {table} row: " + "; ".join(diffs or ["differs"]))
            for g in unmatched_got:
                if table not in self.logs and not self._ruled(g, conn, used):
                    collateral.append(g)
            missing += [f"insert into {table} {_show_row(e.after)}" for e in exp_rows]
        return Verdict(tuple(collateral), tuple(missing), tuple(wrong), tuple(respell))

    # -- helpers -------------------------------------------------------------------------------
    def _differences(
        self,
        table: str,
        want: Mapping[str, Any],
        got: Mapping[str, Any],
        new_exp: Mapping[str, set[tuple]] | None = None,
        new_got: Mapping[str, set[tuple]] | None = None,
    ) -> list[str]:
        free = self.free.get(table, frozenset())
        info = self.tables[table]
        out = []
        for col in info.columns:
            if col in free or (new_exp is not None and table in self.autokeys and col in info.key):
                continue
            a, b = want.get(col), got.get(col)
            if new_exp is not None and new_got is not None:
                parent = self.fks.get(table, {}).get(col)
                if parent and (a,) in new_exp.get(parent, set()) and (b,) in new_got.get(parent, set()):
                    continue
            if not same_value(a, b):
                out.append(f"{col} is {b!r}, expected {a!r}")
        return out

    def _respellings(
        self, table: str, key: Mapping[str, Any], want: Mapping[str, Any], got: Mapping[str, Any]
    ) -> list[Respelling]:
        free = self.free.get(table, frozenset())
        return [
            Respelling(table, dict(key), col, want[col])
            for col, v in got.items()
            if col not in free and isinstance(v, str) and isinstance(want.get(col), str) and v != want[col]
        ]

    def _signature(self, table: str, row: Mapping[str, Any], new_keys: Mapping[str, set[tuple]]) -> tuple:
        free = self.free.get(table, frozenset())
        info = self.tables[table]
        fks = self.fks.get(table, {})
        sig: list[tuple[str, Any]] = []
        for col in info.columns:
            if col in free or (table in self.autokeys and col in info.key):
                continue
            v = row.get(col)
            parent = fks.get(col)
            if parent and (v,) in new_keys.get(parent, set()):
                sig.append((col, "<new>"))
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                sig.append((col, round(float(v), 9)))
            else:
                sig.append((col, None if v is None else text_key(v)))
        return tuple(sig)

    def _ruled(self, c: RowChange, conn: sqlite3.Connection | None, used: dict[int, int] | None = None) -> bool:
        """Whether a declared rule allows this change (``used`` counts rows per rule for ``max_rows``)."""
        for i, rule in enumerate(self.rules):
            if used is not None and rule.max_rows is not None and used.get(i, 0) >= rule.max_rows:
                continue
            if self._rule_covers(rule, c, conn):
                if used is not None:
                    used[i] = used.get(i, 0) + 1
                return True
        return False

    @staticmethod
    def _rule_covers(rule: AllowedWrite, c: RowChange, conn: sqlite3.Connection | None) -> bool:
        if rule.table != c.table or WriteOp(c.op) not in rule.ops:
            return False
        if c.op == "update" and rule.columns is not None and any(col not in rule.columns for col in c.changed_columns):
            return False
        if rule.where is None:
            return True
        row = c.before if c.op == "delete" else c.after
        return row is not None and conn is not None and row_matches(conn, rule.where, row)


def row_matches(conn: sqlite3.Connection, predicate: str, row: Mapping[str, Any]) -> bool:
    """Whether a SQL predicate over a row's columns holds (subqueries see the current state)."""
    conn.execute("PRAGMA query_only = ON")
    try:
        return conn.execute(_over_row(predicate, list(row), "?"), list(row.values())).fetchone() is not None
    except sqlite3.Error:
        return False
    finally:
        conn.execute("PRAGMA query_only = OFF")


def predicate_problem(conn: sqlite3.Connection, predicate: str, columns: Sequence[str]) -> str | None:
    """Why a row predicate does not compile over a row of these columns, as ``row_matches`` runs it."""
    try:
        conn.execute("EXPLAIN " + _over_row(predicate, columns, "NULL"))
    except sqlite3.Error as e:
        return str(e)
    return None


def _over_row(predicate: str, columns: Sequence[str], value: str) -> str:
    sel = ", ".join(f"{value} AS {_q(c)}" for c in columns) or "NULL AS _"
    return f"SELECT 1 FROM (SELECT {sel}) WHERE ({predicate})"


def foreign_keys(conn: sqlite3.Connection, tables: Iterable[str]) -> dict[str, dict[str, str]]:
    """table -> single-column foreign key -> parent table."""
    out: dict[str, dict[str, str]] = {}
    for t in tables:
        for fk in conn.execute(f"PRAGMA foreign_key_list({_q(t)})").fetchall():
            out.setdefault(t, {})[fk[3]] = fk[2]
    return out


def declaration_problems(
    free_columns: Iterable[str],
    free_arguments: Iterable[str],
    columns: Mapping[str, Collection[str]] | None,
    parameters: Mapping[str, Collection[str]],
) -> list[str]:
    """Free columns and arguments that name no real ``table.column`` / ``tool.argument`` (``columns``
    None: the schema is not known yet, skip the columns)."""
    out = []
    if columns is not None:
        for fc in free_columns:
            table, _, col = fc.partition(".")
            if col not in columns.get(table, ()):
                out.append(f"free_columns: no column {fc!r} (write table.column)")
    for fa in free_arguments:
        tool, _, arg = fa.partition(".")
        if arg not in parameters.get(tool, ()):
            out.append(f"free_arguments: no argument {fa!r} (write tool.argument)")
    return out


def autokey_tables(conn: sqlite3.Connection, tables: Iterable[str]) -> frozenset[str]:
    """Tables whose primary key is one INTEGER column: the database assigns it on insert."""
    out = set()
    for t in tables:
        pk = [r for r in conn.execute(f"PRAGMA table_info({_q(t)})").fetchall() if r[5]]
        if len(pk) == 1 and str(pk[0][2]).upper() == "INTEGER":
            out.add(t)
    return frozenset(out)


def free_map(free_columns: Iterable[str]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for fc in free_columns:
        table, _, col = fc.partition(".")
        out.setdefault(table, set()).add(col)
    return {t: frozenset(cs) for t, cs in out.items()}


def _key(c: RowChange) -> tuple:
    return tuple(c.key.values())


def _q(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _show_row(row: Mapping[str, Any] | None) -> str:
    if not row:
        return "{}"
    items = list(row.items())[:6]
    return "{" + ", ".join(f"{k}: {v!r}" for k, v in items) + (", ..." if len(row) > 6 else "") + "}"
