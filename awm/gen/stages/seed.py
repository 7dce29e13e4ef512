"""Stage ``seed``: the initial rows. They must load in the order given with foreign keys on, name only
existing columns, and hold every identifier the tasks mention. Errors name the row and the reason."""

from __future__ import annotations

import sqlite3
from typing import Any

from awm.bundle.records import SeedData
from awm.gen.records import SeedOut
from awm.gen.stages.base import Draft, Stage, StageEnv, scenario_block, tasks_block
from awm.gen.stages.schema import NONDETERMINISTIC, build_schema
from awm.sql.diff import read_tables
from awm.sql.seeding import insert_seed

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

    def fixed_values(row: dict[str, Any]) -> str | None:
        strings = [v for v in row.values() if isinstance(v, str) and NONDETERMINISTIC.search(v)]
        return f"{strings[0]!r} is not a fixed value; write the date/time itself" if strings else None

    return problems + insert_seed(conn, seed, tables, max_problems=MAX_PROBLEMS - len(problems), row_check=fixed_values)


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
