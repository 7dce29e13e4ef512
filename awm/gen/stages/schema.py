"""Stage ``schema``: SQLite DDL. It must execute, create only tables and indexes, give every table a
primary key, reference only existing keys, and never read the wall clock or ``random()``."""

from __future__ import annotations

import re
import sqlite3

from awm.gen.records import SchemaOut
from awm.gen.stages.base import Draft, Stage, StageEnv, scenario_block, tasks_block
from awm.sql.diff import read_tables
from awm.tooling import NONDETERMINISTIC

__all__ = ["NONDETERMINISTIC", "CatalogSchemaStage", "SchemaStage", "build_schema"]

IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")

MAX_OPS = 200_000  # x 100 VM instructions: plenty for DDL and seed rows, finite for a runaway CHECK
_DDL_OK = {
    sqlite3.SQLITE_CREATE_TABLE,
    sqlite3.SQLITE_CREATE_INDEX,
    sqlite3.SQLITE_DROP_TABLE,
    sqlite3.SQLITE_DROP_INDEX,
    sqlite3.SQLITE_ALTER_TABLE,
    sqlite3.SQLITE_REINDEX,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_FUNCTION,
    sqlite3.SQLITE_TRANSACTION,
    sqlite3.SQLITE_SAVEPOINT,
}
_WRITES = {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}
_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "random", "randomblob"}
_DENIED_ACTIONS = [
    "ATTACH",
    "DETACH",
    "PRAGMA",
    "CREATE_TRIGGER",
    "CREATE_TEMP_TRIGGER",
    "CREATE_VIEW",
    "CREATE_TEMP_VIEW",
    "CREATE_TEMP_TABLE",
    "CREATE_TEMP_INDEX",
    "CREATE_VTABLE",
    "DROP_TRIGGER",
    "DROP_VIEW",
    "DROP_VTABLE",
    "ANALYZE",
    "RECURSIVE",
]
_ACTION_NAMES = {
    getattr(sqlite3, f"SQLITE_{n}"): n.lower().replace("_", " ")
    for n in _DENIED_ACTIONS
    if hasattr(sqlite3, f"SQLITE_{n}")
}


def build_schema(ddl: str) -> tuple[sqlite3.Connection | None, list[str]]:
    """Run ``ddl`` in a fresh in-memory database, allowing only table and index definitions."""
    problems: list[str] = []
    if m := NONDETERMINISTIC.search(ddl):
        problems.append(f"the schema uses {m.group(0)!r}: the world must not read the wall clock or random()")
    denied: list[str] = []

    def authorize(action: int, arg1: str | None, arg2: str | None, _db: str | None, _trigger: str | None) -> int:
        if action in _DDL_OK:
            if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _DENIED_FUNCTIONS:
                denied.append(f"function {arg2}()")
                return sqlite3.SQLITE_DENY
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() == "foreign_keys":
            return sqlite3.SQLITE_OK  # harmless, and models like to write it
        if action in _WRITES and (arg1 or "").startswith("sqlite_"):
            return sqlite3.SQLITE_OK  # the schema table itself, written by CREATE
        if action in _WRITES:
            denied.append(f"writing rows into {arg1!r} (rows belong in the seed data)")
        else:
            denied.append(f"{_ACTION_NAMES.get(action, str(action))} {arg1 or ''}".strip())
        return sqlite3.SQLITE_DENY

    conn = sqlite3.connect(":memory:", isolation_level=None)
    ops = [0]

    def tick() -> int:
        ops[0] += 1
        return 1 if ops[0] > MAX_OPS else 0

    conn.set_progress_handler(tick, 100)
    conn.set_authorizer(authorize)
    try:
        conn.executescript(ddl)
    except sqlite3.Error as e:
        if denied:
            problems.append(f"the schema may only CREATE TABLE and CREATE INDEX; it tried: {'; '.join(denied[:5])}")
        else:
            problems.append(f"the schema does not execute: {e}{_near(ddl, str(e))}")
        conn.close()
        return None, problems
    conn.set_authorizer(None)
    return conn, problems


def _near(ddl: str, message: str) -> str:
    m = re.search(r'near "([^"]+)"', message)
    if not m:
        return ""
    for line in ddl.splitlines():
        if m.group(1) in line:
            return f" (in: {line.strip()[:120]})"
    return ""


def schema_problems(conn: sqlite3.Connection, max_tables: int) -> list[str]:
    problems = []
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    bad = [n for n in names if not IDENT.match(n) or n.lower().startswith(("sqlite", "_awm", "initial"))]
    if bad:  # checked first: the rest of the checks (and the core) build SQL from these names
        return [f"table name {n!r} is not allowed; use a plain snake_case name" for n in bad]
    tables = read_tables(conn)
    if not tables:
        problems.append("the schema creates no table")
    if len(tables) > max_tables:
        problems.append(f"the schema has {len(tables)} tables; keep it to {max_tables} or fewer")
    for name, t in tables.items():
        bad_cols = [c for c in t.columns if not IDENT.match(c)]
        if bad_cols:
            problems.append(f"table {name}: column names {bad_cols} must be plain snake_case identifiers")
        if t.key == ("rowid",):
            problems.append(f"table {name} has no PRIMARY KEY")
        for fk in _foreign_keys(conn, name):
            parent, cols, refs = fk
            if parent not in tables:
                problems.append(f"table {name}: REFERENCES {parent}, which is not a table in the schema")
                continue
            target = tuple(str(r) for r in refs) if all(refs) else tables[parent].key
            if len(target) != len(cols) or not _is_unique(conn, parent, target, tables[parent].key):
                problems.append(
                    f"table {name}: REFERENCES {parent}({', '.join(map(str, target))}) must point at {parent}'s "
                    "PRIMARY KEY or a UNIQUE column"
                )
    return problems


def _foreign_keys(conn: sqlite3.Connection, table: str) -> list[tuple[str, list[str], list[str | None]]]:
    groups: dict[int, tuple[str, list[str], list[str | None]]] = {}
    for row in conn.execute(f"PRAGMA foreign_key_list({table})"):
        fk_id, _seq, parent, frm, to = row[0], row[1], row[2], row[3], row[4]
        g = groups.setdefault(fk_id, (parent, [], []))
        g[1].append(frm)
        g[2].append(to)
    return list(groups.values())


def _is_unique(conn: sqlite3.Connection, table: str, cols: tuple[str, ...], key: tuple[str, ...]) -> bool:
    if tuple(cols) == tuple(key):
        return True
    for idx in conn.execute(f"PRAGMA index_list({table})").fetchall():
        if idx[2]:  # unique
            idx_cols = tuple(r[2] for r in conn.execute(f"PRAGMA index_info({idx[1]})"))
            if set(idx_cols) == set(cols):
                return True
    return False


class SchemaStage(Stage[SchemaOut]):
    name = "schema"
    output = SchemaOut

    def values(self, draft: Draft, env: StageEnv) -> dict[str, str]:
        return {"scenario": scenario_block(draft), "tasks": tasks_block(draft.tasks)}

    async def check(self, out: SchemaOut, draft: Draft, env: StageEnv) -> list[str]:
        conn, problems = build_schema(out.schema_sql)
        if conn is not None:
            problems += schema_problems(conn, env.limits.max_tables)
            conn.close()
        return problems

    def apply(self, out: SchemaOut, draft: Draft, env: StageEnv) -> None:
        draft.schema_sql = out.schema_sql.strip() + "\n"
        draft.write("schema.sql", draft.schema_sql)


class CatalogSchemaStage(SchemaStage):
    """The catalog profile's schema: designed from the scenario alone (templates come after the tools),
    at least ``min_tables`` tables."""

    prompt = "catalog_schema"

    def values(self, draft: Draft, env: StageEnv) -> dict[str, str]:
        lim = env.limits
        return {"scenario": scenario_block(draft), "min_tables": str(lim.min_tables), "max_tables": str(lim.max_tables)}

    async def check(self, out: SchemaOut, draft: Draft, env: StageEnv) -> list[str]:
        conn, problems = build_schema(out.schema_sql)
        if conn is not None:
            problems += schema_problems(conn, env.limits.max_tables)
            n = len(read_tables(conn))
            if 0 < n < env.limits.min_tables:
                problems.append(
                    f"the schema has {n} tables; the environment needs at least {env.limits.min_tables} "
                    "(people, their records, reference data, history and log tables)"
                )
            conn.close()
        return problems
