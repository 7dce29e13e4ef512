"""Stage ``seed``: the initial rows. They must load in the order given with foreign keys on, name only
existing columns, and hold every identifier the tasks mention. Errors name the row and the reason."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from awm.bundle import SeedData
from awm.diff import read_tables
from awm.gen.records import SeedOut
from awm.gen.stages.base import Draft, Stage, StageEnv, scenario_block, tasks_block
from awm.gen.stages.schema import NONDETERMINISTIC, build_schema

MAX_PROBLEMS = 12


def seed_problems(schema_sql: str, seed: SeedData, max_rows: int) -> list[str]:
    conn, problems = build_schema(schema_sql)
    if conn is None:
        return problems
    try:
        return _load(conn, seed, max_rows)
    finally:
        conn.close()


def _load(conn: sqlite3.Connection, seed: SeedData, max_rows: int) -> list[str]:
    problems: list[str] = []
    tables = read_tables(conn)
    total = sum(len(rows) for rows in seed.tables.values())
    if total > max_rows:
        problems.append(f"the seed has {total} rows; keep it to {max_rows} or fewer")
    if total == 0:
        problems.append("the seed has no rows")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("BEGIN")
    for table, rows in seed.tables.items():
        if table not in tables:
            problems.append(f"{table}: no such table in the schema (tables: {', '.join(tables)})")
            continue
        cols_known = tables[table].columns
        for i, row in enumerate(rows):
            where = f"{table}[{i}]"
            unknown = [c for c in row if c not in cols_known]
            if unknown:
                problems.append(f"{where}: unknown columns {unknown} ({table} has {', '.join(cols_known)})")
                continue
            strings = [v for v in row.values() if isinstance(v, str) and NONDETERMINISTIC.search(v)]
            if strings:
                problems.append(f"{where}: {strings[0]!r} is not a fixed value; write the date/time itself")
            cols = list(row)
            sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
            try:
                conn.execute(sql, [_value(row[c]) for c in cols])
            except sqlite3.IntegrityError as e:
                problems.append(f"{where}: {e}{_explain_fk(conn, table, row) if 'FOREIGN KEY' in str(e) else ''}")
            except (sqlite3.Error, TypeError, OverflowError) as e:
                problems.append(f"{where}: {e}")
            if len(problems) >= MAX_PROBLEMS:
                problems.append("(stopped after the first problems; fix these and check the rest the same way)")
                conn.execute("ROLLBACK")
                return problems
    conn.execute("COMMIT")
    return problems


def _explain_fk(conn: sqlite3.Connection, table: str, row: dict[str, Any]) -> str:
    """Which reference is broken: SQLite's own message does not say."""
    out = []
    for fk in conn.execute(f"PRAGMA foreign_key_list({table})").fetchall():
        parent, frm, to = fk[2], fk[3], fk[4]
        value = row.get(frm)
        if value is None:
            continue
        target = to or _pk(conn, parent)
        if target and conn.execute(f"SELECT 1 FROM {parent} WHERE {target} = ?", (value,)).fetchone() is None:
            out.append(f"{frm} = {value!r} but {parent} has no row with {target} = {value!r}")
    if not out:
        return ""
    return " — " + "; ".join(out) + " (insert the referenced row first, in an earlier table, or use an existing id)"


def _pk(conn: sqlite3.Connection, table: str) -> str | None:
    pks = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[5]]
    return pks[0] if len(pks) == 1 else None


def _value(v: Any) -> Any:
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True)
    return v


class SeedStage(Stage[SeedOut]):
    name = "seed"
    output = SeedOut

    def values(self, draft: Draft, env: StageEnv) -> dict[str, str]:
        return {
            "scenario": scenario_block(draft),
            "tasks": tasks_block(draft.tasks),
            "schema": draft.schema_sql,
            "max_rows": str(min(env.limits.max_seed_rows, 300)),
        }

    async def check(self, out: SeedOut, draft: Draft, env: StageEnv) -> list[str]:
        return seed_problems(draft.schema_sql, SeedData(tables=out.tables), env.limits.max_seed_rows)

    def apply(self, out: SeedOut, draft: Draft, env: StageEnv) -> None:
        draft.seed = SeedData(tables=out.tables)
        draft.write("seed.json", draft.seed.model_dump_json(indent=1) + "\n")
