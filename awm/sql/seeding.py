"""Loading a bundle's seed rows into a fresh schema: the one routine behind the world compiler and the
generator's seed stage. Problems name the row (``table[i]``) and, for a broken reference, which one."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

from awm.bundle.records import SeedData
from awm.sql.diff import TableInfo
from awm.tooling import quote


def seed_value(v: Any) -> Any:
    """A JSON seed value as SQLite stores it (objects and lists as canonical JSON text)."""
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True)
    return v


def insert_seed(
    conn: sqlite3.Connection,
    seed: SeedData,
    tables: Mapping[str, TableInfo],
    *,
    max_problems: int,
    row_check: Callable[[dict[str, Any]], str | None] | None = None,
) -> list[str]:
    """Insert every row in the order given, in one transaction, with foreign keys as the connection has them.
    Stops (and rolls back) after ``max_problems``; ``row_check`` adds a caller's own rule per row."""
    problems: list[str] = []
    conn.execute("BEGIN")
    for table, rows in seed.tables.items():
        if table not in tables:
            problems.append(f"{table}: no such table in the schema (tables: {', '.join(tables)})")
            continue
        known = tables[table].columns
        for i, row in enumerate(rows):
            where = f"{table}[{i}]"
            unknown = [c for c in row if c not in known]
            if unknown:
                problems.append(f"{where}: unknown columns {unknown} ({table} has {', '.join(known)})")
                continue
            if row_check is not None and (why := row_check(row)):
                problems.append(f"{where}: {why}")
            cols = list(row)
            sql = f"INSERT INTO {quote(table)} ({', '.join(map(quote, cols))}) VALUES ({', '.join('?' * len(cols))})"
            try:
                conn.execute(sql, [seed_value(row[c]) for c in cols])
            except sqlite3.IntegrityError as e:
                problems.append(f"{where}: {e}{_explain_fk(conn, table, row) if 'FOREIGN KEY' in str(e) else ''}")
            except (sqlite3.Error, TypeError, OverflowError) as e:
                problems.append(f"{where}: {e}")
            if len(problems) >= max_problems:
                problems.append("(stopped after the first problems; fix these and check the rest the same way)")
                conn.execute("ROLLBACK")
                return problems
    conn.execute("COMMIT")
    return problems


def _explain_fk(conn: sqlite3.Connection, table: str, row: dict[str, Any]) -> str:
    """Which reference is broken: SQLite's own message does not say."""
    out = []
    for fk in conn.execute(f"PRAGMA foreign_key_list({quote(table)})").fetchall():
        parent, frm, to = fk[2], fk[3], fk[4]
        value = row.get(frm)
        if value is None:
            continue
        target = to or _pk(conn, parent)
        if (
            target
            and conn.execute(f"SELECT 1 FROM {quote(parent)} WHERE {quote(target)} = ?", (value,)).fetchone() is None
        ):
            out.append(f"{frm} = {value!r} but {parent} has no row with {target} = {value!r}")
    if not out:
        return ""
    return " — " + "; ".join(out) + " (insert the referenced row first, in an earlier table, or use an existing id)"


def _pk(conn: sqlite3.Connection, table: str) -> str | None:
    pks = [r[1] for r in conn.execute(f"PRAGMA table_info({quote(table)})") if r[5]]
    return pks[0] if len(pks) == 1 else None
