"""Converts an AgentWorldModel-1K folder (AWM's ``gen_*.jsonl`` files) into bundles (``awm import awm``).

Each scenario becomes ``ROOT/envs/<env>/`` + ``ROOT/verifiers/<env>/`` as the contract in
``awm.importers`` describes. Every scenario AWM's own code runs is imported; a part AWM's code skips or
cannot use is skipped here the same way and recorded in the scenario's ``notes`` (the import report and
``provenance.notes``), never the whole scenario for one bad part:

- the database is built as AWM builds it (``awm.core.db.create_sqlite_database`` then
  ``awm.core.sample.execute_sample_data``): per table its ``ddl``, ``indexes`` and ``examples`` in order,
  foreign keys off, a failure ending that table's statements; then the sample inserts one by one with
  foreign keys on, a failing one skipped. The seed is the resulting rows (a table without a primary key
  is keyed by rowid);
- a task whose verifier AWM cannot run (no verifier line, code that does not parse, no ``def verify_``
  line naming a module-level function) is skipped; the others keep their AWM index (``t{idx:02d}``);
- the static checks (``awm.importers.appcheck``), the API spec and routes without an ``operation_id``
  (their tool is named by FastAPI's generated id) are lints: notes, never a reason to skip.

A scenario is skipped (with its reasons) only when AWM's code cannot run it: no line in ``gen_envs.jsonl``,
``gen_db.jsonl`` or ``gen_sample.jsonl``, an app that does not parse or defines no route, no table created,
no task with a runnable verifier. (DDL calling ``random()`` imports: at run time it draws from the
sandbox's seeded generator; an ``operation_id`` that names one of the episode's own actions gets the
prefix ``app_``.) AWM's code is never imported or executed here.

AWM's data reads the wall clock (``datetime('now', '-3 days')`` in inserts, ``DEFAULT
CURRENT_TIMESTAMP`` in DDL); the importer freezes it at ``CLOCK``, the manifest's clock, so the
seed is the same on every import. ``provenance.files`` holds, per AWM file, the sha256 of this
scenario's lines in it (canonical JSON, one per line).
"""

from __future__ import annotations

import ast
import datetime as dt
import hashlib
import json
import re
import shutil
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from awm.bundle.loader import dump_jsonl
from awm.bundle.records import ID_PATTERN, Manifest, Provenance, SeedData, Task, TaskVerifier
from awm.errors import AwmError
from awm.isolation.guest.determinism import frozen_date_functions
from awm.sql.diff import TableInfo, read_tables
from awm.sql.seeding import insert_seed
from awm.tooling import NONDETERMINISTIC, quote

DATASET = "AgentWorldModel-1K"
CLOCK = "2026-01-01T00:00:00"
CLOCK_SQL = "2026-01-01 00:00:00"
REQUIRED_FILES = ("gen_tasks.jsonl", "gen_db.jsonl", "gen_sample.jsonl", "gen_envs.jsonl")
OPTIONAL_FILES = ("gen_scenario.jsonl", "gen_spec.jsonl")
VERIFIER_FILES = {"code": "gen_verifier.pure_code.jsonl", "sql": "gen_verifier.jsonl"}
DEFAULT_VERIFIER = {"code": "verify_task_completion", "sql": "verify_task"}  # awm.core.verify.run_verifier
RESERVED_TOOLS = frozenset({"submit_answer", "list_tools", "call_tool"})  # awm.model.world.RESERVED_TOOLS
RESERVED_PREFIX = "app_"  # awm.importers.runtime renames such a tool
ROUTE_METHODS = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "trace"})
ANSWER_SCHEMA = {"type": "string", "description": "your final answer, if the task asks for information; otherwise null"}
SKIP_KINDS = ("tables", "indexes", "examples", "inserts", "rows", "tasks")  # the summary's skipped counts
TOOLS_PY = '''"""Tools of an environment imported from AgentWorldModel-1K: AWM's generated FastAPI app (awm_app.py),
run in an isolated worker process (awm.isolation) against the episode's database (awm.importers.runtime)."""
from pathlib import Path

from awm.importers.runtime import awm_tools

globals().update(awm_tools(Path(__file__).parent, __name__))
'''
_SQL_CLOCK = {  # DDL defaults that read the wall clock, frozen at CLOCK
    re.compile(r"\bcurrent_timestamp\b", re.I): f"'{CLOCK_SQL}'",
    re.compile(r"\bcurrent_date\b", re.I): f"'{CLOCK_SQL[:10]}'",
    re.compile(r"\bcurrent_time\b", re.I): f"'{CLOCK_SQL[11:]}'",
    re.compile(r"'now'", re.I): f"'{CLOCK_SQL}'",
}
_BLANK = " \t\n\r\f\v;"  # characters that execute as an empty statement
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ImportSourceError(AwmError):
    """The dataset folder cannot be read: missing, a required file absent, or a line that is not JSON."""


def normalize_name(name: str) -> str:
    """AWM's join key: lower-case, runs of non-alphanumerics to one ``_``, no ``_`` at the ends."""
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]", "_", name.lower())).strip("_")


def env_name(name: str) -> str:
    """The bundle name of a scenario: its normalised name, prefixed ``awm_`` unless it starts with a letter."""
    key = normalize_name(name)
    return key if re.match(ID_PATTERN, key) else f"awm_{key}"


# -- reading ----------------------------------------------------------------------------------------
@dataclass
class Scenario:
    """Every record of one scenario, joined by normalised name across the dataset's files."""

    key: str
    name: str = ""
    description: str = ""
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # file -> this scenario's lines

    def one(self, file: str) -> dict[str, Any] | None:
        """The line AWM uses: the first (``awm.tools.find_scenario_entry``), the last of ``gen_envs.jsonl``
        (``awm.core.server`` keys a dict by scenario)."""
        rows = self.records.get(file)
        if not rows:
            return None
        return rows[-1] if file == "gen_envs.jsonl" else rows[0]


@dataclass(frozen=True)
class Dataset:
    source_dir: Path
    present: frozenset[str]  # which gen_* files exist
    scenarios: dict[str, Scenario]  # by normalised name, in first-seen order


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise ImportSourceError(f"{path.name} line {i} is not JSON: {e.msg}") from e
        if not isinstance(row, dict):
            raise ImportSourceError(f"{path.name} line {i} is not a JSON object")
        rows.append(row)
    return rows


def read_dataset(source_dir: str | Path) -> Dataset:
    """The dataset's files, joined by scenario; ``ImportSourceError`` when the folder is not one."""
    src = Path(source_dir).expanduser()
    if not src.is_dir():
        raise ImportSourceError(f"{source_dir}: no such folder")
    missing = [f for f in REQUIRED_FILES if not (src / f).is_file()]
    if not any((src / f).is_file() for f in VERIFIER_FILES.values()):
        missing.append(" or ".join(VERIFIER_FILES.values()))
    if missing:
        raise ImportSourceError(
            f"{source_dir} is not an AgentWorldModel-1K folder: missing {', '.join(missing)} "
            "(the folder `huggingface-cli download <AgentWorldModel-1K dataset> --repo-type dataset "
            "--local-dir DIR` writes)"
        )
    scenarios: dict[str, Scenario] = {}
    present = set()
    for file in (*OPTIONAL_FILES[:1], *REQUIRED_FILES, *OPTIONAL_FILES[1:], *VERIFIER_FILES.values()):
        path = src / file
        if not path.is_file():
            continue
        present.add(file)
        for i, row in enumerate(_read_jsonl(path), start=1):
            name = row.get("name") if file == "gen_scenario.jsonl" else row.get("scenario")
            if not isinstance(name, str) or not normalize_name(name):
                raise ImportSourceError(f"{file} line {i} has no scenario name")
            sc = scenarios.setdefault(normalize_name(name), Scenario(normalize_name(name)))
            first = not sc.records.get(file)
            sc.records.setdefault(file, []).append(row)
            if file == "gen_scenario.jsonl" and first:
                sc.name, sc.description = name, str(row.get("description") or "")
            elif not sc.name:
                sc.name = name
    return Dataset(src, frozenset(present), scenarios)


# -- converting one scenario ------------------------------------------------------------------------
@dataclass
class Converted:
    """A scenario's bundle files (relative to ROOT) and its report line, or the reasons it was skipped.

    ``notes``: every part skipped (a table, an index, an insert, a task...) with why, and the lints;
    ``skipped``: how many of each kind (``SKIP_KINDS``)."""

    scenario: str
    env: str
    reasons: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)

    def skip(self, kind: str, note: str, n: int = 1) -> None:
        self.skipped[kind] += n
        self.notes.append(note)


def _short(sql: Any, limit: int = 160) -> str:
    text = " ".join(str(sql).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _freeze_clock(sql: str, *, keywords_only: bool = False) -> tuple[str, int]:
    n = 0
    for pattern, literal in _SQL_CLOCK.items():
        if keywords_only and pattern.pattern == "'now'":
            continue
        sql, k = pattern.subn(literal, sql)
        n += k
    return sql, n


def _no_files(action: int, *_: Any) -> int:
    """AWM's SQL is data: it may not reach a file (``ATTACH``, ``VACUUM INTO``)."""
    return sqlite3.SQLITE_DENY if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH) else sqlite3.SQLITE_OK


def _connect_frozen() -> sqlite3.Connection:
    """An in-memory database whose date functions read ``'now'`` as CLOCK; foreign keys off (sqlite3's
    default, as in ``awm.core.db.create_sqlite_database``)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    frozen_date_functions(conn, lambda: CLOCK_SQL)
    conn.set_authorizer(_no_files)
    return conn


def _awm_items(value: Any) -> list[Any] | None:
    """The items ``for x in value`` gives in AWM's loops (a string gives its characters); None if it raises."""
    try:
        return list(value)
    except TypeError:
        return None


def _schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA schema_version").fetchone()[0])


def _statement(sql: str) -> str:
    """A statement for schema.sql, terminated (a trailing ``--`` comment cannot swallow the ``;``)."""
    sql = sql.strip()
    if sqlite3.complete_statement(sql):
        return sql
    return sql + ";" if sqlite3.complete_statement(sql + ";") else sql + "\n;"


@dataclass
class _Db:
    conn: sqlite3.Connection
    schema: list[str] = field(default_factory=list)  # statements that changed the schema, in order
    frozen: int = 0  # wall-clock defaults frozen in them

    def run(self, sql: str) -> str | None:
        """Execute one statement as AWM's ``cursor.execute`` (clock frozen); the error, or None. A statement
        that changes the schema goes to schema.sql with every wall-clock default frozen."""
        sql, n = _freeze_clock(sql, keywords_only=True)
        before = _schema_version(self.conn)
        try:
            self.conn.execute(sql)
        except sqlite3.Error as e:
            return f"{e}"
        if _schema_version(self.conn) != before:  # DDL (wherever AWM's data put it) belongs in schema.sql
            ddl, k = _freeze_clock(sql)
            self.schema.append(_statement(ddl))
            self.frozen += n + k
        return None


def _create_tables(db: _Db, tables: list[dict[str, Any]], out: Converted) -> None:
    """``awm.core.db.create_sqlite_database``: per table its ``ddl``, ``indexes`` and ``examples``, foreign
    keys off; the first failure ends that table's statements (AWM logs it and goes on to the next table)."""
    for t in tables:
        name = str(t.get("name", "unknown"))
        ddl = t.get("ddl")
        if not isinstance(ddl, str):
            out.skip("tables", f"gen_db.jsonl: table {name} has no DDL: table skipped")
            continue
        if error := db.run(ddl):
            out.skip("tables", f"gen_db.jsonl: the DDL of table {name} fails ({error}): table skipped")
            continue
        steps: list[tuple[str, int, Any]] = []
        for kind in ("indexes", "examples"):
            value = t.get(kind, [])
            items = _awm_items(value)
            if isinstance(value, str):  # AWM runs it character by character: the first letter fails
                items = [value] if value.strip(_BLANK) else []
            if items is None:
                steps.append((kind, 0, value))  # AWM's loop raises: the table's remaining statements are lost
                break
            steps += [(kind, i, s) for i, s in enumerate(items, start=1)]
        for n, (kind, i, sql) in enumerate(steps):
            what = "index" if kind == "indexes" else "example"
            if i == 0:
                error = f"{kind} is {type(sql).__name__}, not a list"
            elif isinstance(t.get(kind), str):
                error = f"{kind} is a string, which AWM runs character by character: {sql.strip(_BLANK)[0]!r} fails"
            elif not isinstance(sql, str):
                error = f"not SQL text: {_short(json.dumps(sql, default=str), 60)}"
            else:
                error = db.run(sql)
            if error is None:
                continue
            rest = Counter(k for k, j, _ in steps[n:] if j)
            label = f"{what} #{i} of table {name}" if i else f"the {kind} of table {name}"
            note = f"gen_db.jsonl: {label} fails: {error}: skipped"
            if len(steps) - n > 1:
                note += f" with the table's {len(steps) - n - 1} later statement(s) (AWM stops the table there)"
            out.notes.append(note)
            out.skipped.update(rest)
            break


def _insert_sample(db: _Db, sample_data: Any, out: Converted) -> None:
    """``awm.core.sample.execute_sample_data``: foreign keys on, one transaction, each statement on its own;
    a failing one is counted and skipped. Anything else that raises rolls the whole sample back."""
    conn = db.conn
    if conn.in_transaction:  # create_sqlite_database ends with conn.commit()
        conn.execute("COMMIT")
    conn.execute("PRAGMA foreign_keys = ON")
    kept = len(db.schema)
    conn.execute("BEGIN")
    k = failed = 0
    abort: str | None = None
    groups = _awm_items(sample_data.get("tables", [])) if isinstance(sample_data, dict) else None
    total = sum(len(_awm_items(g.get("insert_statements", [])) or []) for g in groups or [] if isinstance(g, dict))
    if groups is None:
        abort = "sample_data has no list of tables"
    for group in groups or []:
        if not isinstance(group, dict):
            abort = f"a tables entry is {type(group).__name__}, not an object"
            break
        table = group.get("table_name", "unknown")
        statements = _awm_items(group.get("insert_statements", []))
        if statements is None:
            abort = f"insert_statements of {table} is not a list"
            break
        for stmt in statements:
            k += 1
            if not isinstance(stmt, str):
                abort = f"insert #{k} ({table}) is not SQL text"
                break
            if error := db.run(stmt):
                failed += 1
                out.skip("inserts", f"gen_sample.jsonl: insert #{k} ({table}) fails: {error}: skipped: {_short(stmt)}")
                if not conn.in_transaction:  # an ON CONFLICT ROLLBACK ended the transaction
                    conn.execute("BEGIN")
        if abort:
            break
    if abort is None:
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as e:  # a deferred foreign key: AWM's conn.commit() raises
            abort = f"the commit fails: {e}"
    if abort is not None:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        del db.schema[kept:]
        out.skip(
            "inserts",
            f"gen_sample.jsonl: AWM's execute_sample_data raises ({abort}) and rolls back: no sample row is kept",
            max(total, k) - failed,
        )
    elif k == 0:
        out.notes.append("gen_sample.jsonl: no insert statements: the tables start empty")
    conn.execute("PRAGMA foreign_keys = OFF")


def _table_order(conn: sqlite3.Connection, names: list[str]) -> list[str]:
    """Parents before children (a table's rows only reference rows already inserted); schema order otherwise."""
    deps = {
        n: {r[2] for r in conn.execute(f"PRAGMA foreign_key_list({quote(n)})") if r[2] != n and r[2] in names}
        for n in names
    }
    order: list[str] = []
    while len(order) < len(names):
        ready = [n for n in names if n not in order and deps[n] <= set(order)]
        order += ready or [n for n in names if n not in order]  # a cycle: keep schema order
    return order


def _dump(conn: sqlite3.Connection, tables: Mapping[str, TableInfo]) -> dict[str, list[dict[str, Any]]]:
    """Every table's rows (its declared columns) in rowid order, parents first."""
    schema_order = [
        r[0]
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
        if r[0] in tables
    ]
    rows: dict[str, list[dict[str, Any]]] = {}
    for name in _table_order(conn, schema_order):
        t = tables[name]
        select = f"SELECT {', '.join(map(quote, t.columns))} FROM {quote(name)}"
        try:
            cur = conn.execute(select + " ORDER BY rowid")
        except sqlite3.OperationalError:  # a WITHOUT ROWID table
            cur = conn.execute(select + f" ORDER BY {', '.join(map(quote, t.key))}")
        rows[name] = [dict(zip(t.columns, r, strict=True)) for r in cur.fetchall()]
    return rows


def _build_database(db_schema: Mapping[str, Any], sample: Mapping[str, Any], out: Converted) -> tuple[str, SeedData]:
    """AWM's database for the scenario (``awm.core.reset.process_schema``): schema.sql and the seed."""
    tables = [t for t in db_schema.get("tables") or [] if isinstance(t, dict)]
    db = _Db(_connect_frozen())
    try:
        _create_tables(db, tables, out)
        _insert_sample(db, sample.get("sample_data"), out)
        rows = _dump(db.conn, read_tables(db.conn))
    finally:
        db.conn.close()
    for stmt in db.schema:
        if m := NONDETERMINISTIC.search(stmt):
            out.notes.append(
                f"gen_db.jsonl: {_short(stmt, 80)} uses {m.group(0)!r}: at run time it draws from the sandbox's "
                "seeded generator, so replays stay identical"
            )
    if db.frozen:
        out.notes.append(f"schema: {db.frozen} wall-clock default(s) frozen at {CLOCK_SQL}")
    for name, table_rows in rows.items():
        kept = [r for r in table_rows if not any(isinstance(v, bytes) for v in r.values())]
        if len(kept) < len(table_rows):
            n = len(table_rows) - len(kept)
            out.skip(
                "rows",
                f"gen_sample.jsonl: {n} row(s) of {name} hold BLOB values, which seed.json cannot hold: skipped",
                n,
            )
            rows[name] = kept
    return "\n".join(db.schema) + "\n", SeedData(tables=rows)


def _check_seed(schema_sql: str, seed: SeedData, out: Converted) -> None:
    """The seed loads as the world will load it (``World._build_seed`` with the manifest's ``foreign_keys``
    off, as AWM's SQLAlchemy connection has them) and gives back AWM's rows."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.executescript(schema_sql)
        tables = read_tables(conn)
        problems = insert_seed(conn, seed, tables, max_problems=5)
        reloaded = _dump(conn, tables) if not problems else {}
    except sqlite3.Error as e:
        problems, reloaded = [f"schema.sql does not execute: {e}"], {}
    finally:
        conn.close()
    out.reasons += [f"seed.json does not reload: {p}" for p in problems]
    if not problems and reloaded != seed.tables:
        differ = [t for t in seed.tables if reloaded.get(t) != seed.tables[t]]
        out.notes.append(f"seed.json reloads differently from AWM's database in {', '.join(differ)} (a trigger?)")


def _static_check(kind: str) -> Callable[[str], list[str]] | None:
    """The runtime's static check of app or verifier code (``awm.importers.appcheck``), if installed: a lint."""
    try:
        from awm.importers import appcheck
    except ImportError:
        return None
    fn = getattr(appcheck, f"check_{kind}_code", None)
    return fn if callable(fn) else None


def fastapi_operation_id(name: str, path: str, method: str) -> str:
    """FastAPI's ``generate_unique_id``: the operationId (and fastapi-mcp's tool name) of a route without one."""
    path_format = re.sub(r"\{([^}:]+)(?::[^}]*)?\}", r"{\1}", path)  # {id:int} -> {id}, as compile_path does
    return re.sub(r"\W", "_", f"{name}{path_format}") + f"_{method.lower()}"


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    operation_id: str | None  # as written
    tool: str  # the operationId FastAPI publishes: operation_id, or its generated id


def _routes(tree: ast.Module) -> list[Route]:
    """Every ``@<app or router>.<method>(path, ...)`` / ``.api_route(path, methods=[...])`` route, in source order."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for dec in node.decorator_list:
            if not (isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute)):
                continue
            attr, kw = dec.func.attr, {k.arg: k.value for k in dec.keywords if k.arg}
            if attr == "api_route":
                m = kw.get("methods")
                elts = m.elts if isinstance(m, (ast.List, ast.Tuple, ast.Set)) else []
                methods = [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                methods = methods[:1] or ["GET"]
            elif attr in ROUTE_METHODS:
                methods = [attr]
            else:
                continue
            p = dec.args[0] if dec.args else kw.get("path")
            path = p.value if isinstance(p, ast.Constant) and isinstance(p.value, str) else "?"
            op = kw.get("operation_id")
            op_id = op.value if isinstance(op, ast.Constant) and isinstance(op.value, str) and op.value else None
            nm = kw.get("name")
            name = nm.value if isinstance(nm, ast.Constant) and isinstance(nm.value, str) else node.name
            method = methods[0].upper()
            out.append(Route(method, path, op_id, op_id or fastapi_operation_id(name, path, method)))
    return out


def _check_app(code: str, out: Converted) -> list[str]:
    """Reasons AWM's server cannot offer the app's tools; lints and route quirks as notes. The tool names."""
    try:
        tree = ast.parse(code, filename="awm_app.py")
    except SyntaxError as e:
        out.reasons.append(
            f"gen_envs.jsonl: full_code does not parse (AWM's server cannot start): line {e.lineno}: {e.msg}"
        )
        return []
    check = _static_check("app")
    if check is not None:
        out.notes += [f"gen_envs.jsonl: lint: {p}" for p in check(code)]
    routes = _routes(tree)
    if not routes:
        out.reasons.append("gen_envs.jsonl: full_code defines no route (AWM's server offers no tool)")
    for r in routes:
        if r.operation_id is None:
            out.notes.append(
                f"gen_envs.jsonl: route {r.method} {r.path} has no operation_id: its tool is {r.tool!r} "
                "(FastAPI's generated id, as fastapi-mcp names it)"
            )
    tools = [r.tool for r in routes]
    for dup in sorted({t for t in tools if tools.count(t) > 1}):
        out.notes.append(f"gen_envs.jsonl: {tools.count(dup)} routes publish the operation id {dup!r}")
    for bad in sorted(set(tools) & RESERVED_TOOLS):
        out.notes.append(
            f"gen_envs.jsonl: operation_id {bad!r} is the name of one of the episode's own actions: "
            f"its tool is {RESERVED_PREFIX + bad!r}"
        )
    return list(dict.fromkeys(tools))


def _check_spec(spec: Mapping[str, Any], out: Converted) -> None:
    """AWM's server never reads the spec (it is the app's design document): its problems are notes."""
    groups = (spec.get("api_spec") or {}).get("api_groups") if isinstance(spec.get("api_spec"), dict) else None
    if not isinstance(groups, list):
        out.notes.append("gen_spec.jsonl: api_spec has no api_groups")
        return
    for group in groups:
        for ep in (group.get("endpoints") if isinstance(group, dict) else None) or []:
            if isinstance(ep, dict) and not ep.get("operation_id"):
                out.notes.append(f"gen_spec.jsonl: endpoint {ep.get('method')} {ep.get('path')} has no operation_id")


def _bindings(body: list[ast.stmt], name: str) -> list[ast.stmt]:
    """The module-level statements that bind ``name`` (through if/try/with/for blocks), in order."""
    out: list[ast.stmt] = []
    for node in body:
        names: list[str] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in node.names]
        if name in names:
            out.append(node)
        for block in ("body", "orelse", "finalbody", "handlers"):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = getattr(node, block, None)
                if isinstance(inner, list):
                    stmts = [s for h in inner for s in (h.body if isinstance(h, ast.ExceptHandler) else [h])]
                    out += _bindings(stmts, name)
    return out


def _verifier_function(code: Any, mode: str = "code") -> tuple[str | None, bool, str | None]:
    """The function AWM's ``run_verifier`` calls (the first line starting ``def verify_``, else its default
    name) and whether ``_call_verifier_func`` passes it the agent's answer: a ``final_answer`` parameter,
    or, with no parameter named ``initial_db_path``/``final_db_path``, at least 3 parameters (positional).
    ``(function, takes_answer, problem)``: a problem means AWM's call can never succeed."""
    if not isinstance(code, str) or len(code.strip()) < 10:
        return None, False, "is empty"
    fn, from_line = DEFAULT_VERIFIER.get(mode, DEFAULT_VERIFIER["code"]), False
    for line in code.split("\n"):
        line = line.strip()
        if line.startswith("def verify_") and "(" in line:
            fn, from_line = line.split("(")[0].replace("def ", "").strip(), True
            break
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        return fn, False, f"does not parse: line {e.lineno}: {e.msg}"
    bound = _bindings(tree.body, fn) if _IDENTIFIER.match(fn) else []
    if not bound:
        why = f"defines no module-level function {fn!r}"
        return None, False, why + ("" if from_line else " (it has no `def verify_...` line; AWM then looks for it)")
    node = bound[-1]
    if isinstance(node, ast.AsyncFunctionDef):
        return None, False, f"makes {fn!r} async (AWM calls it without awaiting it)"
    if not isinstance(node, ast.FunctionDef):
        return None, False, f"binds {fn!r} to something other than a `def`"
    a = node.args
    params = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)] + [x.arg for x in (a.vararg, a.kwarg) if x]
    takes_answer = "final_answer" in params or (
        not {"initial_db_path", "final_db_path"} & set(params) and len(params) >= 3
    )
    return fn, takes_answer, None


def _seed_json(tables: Mapping[str, list[dict[str, Any]]]) -> str:
    """``seed.json`` with one row per line."""
    parts = []
    for name, rows in tables.items():
        body = ",\n".join("    " + json.dumps(r, ensure_ascii=False) for r in rows)
        parts.append(f"  {json.dumps(name)}: [" + (f"\n{body}\n  ]" if rows else "]"))
    return '{"tables": {\n' + ",\n".join(parts) + "\n}}\n"


def _sha256(rows: Iterable[dict[str, Any]]) -> str:
    text = "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows)
    return hashlib.sha256(text.encode()).hexdigest()


def _tasks(sc: Scenario, texts: list[Any], mode: str, out: Converted) -> tuple[list[Task], list[dict[str, Any]]]:
    """One task per AWM task whose verifier AWM can run; the others skipped (noted). Ids keep AWM's index."""
    vfile = VERIFIER_FILES[mode]
    by_idx: dict[Any, dict[str, Any]] = {}
    for r in sc.records.get(vfile, []):
        by_idx.setdefault(r.get("task_idx"), r)  # awm.tools.find_scenario_entry: the first line
    check_verifier = _static_check("verifier")
    tasks: list[Task] = []
    verifiers: list[dict[str, Any]] = []
    env = out.env
    for idx, text in enumerate(texts):
        task_id = f"t{idx:02d}"
        if not isinstance(text, str) or not text.strip():
            out.skip("tasks", f"gen_tasks.jsonl: task {idx} has no text: skipped")
            continue
        rec = by_idx.get(idx)
        if rec is None:
            out.skip("tasks", f"task {idx}: no verifier in {vfile}: skipped")
            continue
        verification = rec.get("verification")
        code = verification.get("code", "") if isinstance(verification, dict) else None
        fn, takes_answer, problem = _verifier_function(code, mode)
        if problem or fn is None or not isinstance(code, str):
            out.skip("tasks", f"task {idx}: the verifier in {vfile} {problem}: skipped")
            continue
        if check_verifier is not None:
            out.notes += [f"task {idx}: verifier lint: {p}" for p in check_verifier(code)]
        out.files[f"verifiers/{env}/verify_{task_id}.py"] = code
        verifiers.append(
            {
                "task_id": task_id,
                "checks": [],
                "answer": None,
                "code": {"file": f"verify_{task_id}.py", "function": fn, "mode": mode, "takes_answer": takes_answer},
                "write_frame": False,
                "gold": {"calls": []},
            }
        )
        tasks.append(
            Task.model_validate(
                {
                    "id": task_id,
                    "instruction": text.strip(),
                    "kind": "multi_step",
                    "answer": ANSWER_SCHEMA if takes_answer else None,
                    "tags": ["awm-1k"],
                }
            )
        )
    return tasks, verifiers


def convert_scenario(sc: Scenario, present: frozenset[str], date: str) -> Converted:
    """One scenario as bundle files, or the reasons AWM's code cannot run it. Never runs AWM's code."""
    env = env_name(sc.key)
    out = Converted(sc.name or sc.key, env)
    reasons = out.reasons
    for file in (*REQUIRED_FILES, *OPTIONAL_FILES):
        if file in present and not sc.records.get(file):
            (reasons if file in REQUIRED_FILES else out.notes).append(f"no line in {file}")
    for file, rows in sc.records.items():
        if len(rows) > 1 and file not in VERIFIER_FILES.values():
            which = "last" if file == "gen_envs.jsonl" else "first"
            out.notes.append(f"{len(rows)} lines in {file}: the {which} is used, as AWM does")
    tasks_rec, db, sample, app, spec = (
        sc.one(f) for f in ("gen_tasks.jsonl", "gen_db.jsonl", "gen_sample.jsonl", "gen_envs.jsonl", "gen_spec.jsonl")
    )
    texts = tasks_rec.get("tasks") if tasks_rec is not None else None
    if tasks_rec is not None and (not isinstance(texts, list) or not texts):
        reasons.append("gen_tasks.jsonl: no tasks")
    texts = texts if isinstance(texts, list) else []

    tools = _check_app(str(app.get("full_code") or ""), out) if app is not None else []
    if spec is not None:
        _check_spec(spec, out)

    schema_sql, seed = "", SeedData(tables={})
    if db is not None and sample is not None:
        db_schema = db.get("db_schema")
        tables = db_schema.get("tables", []) if isinstance(db_schema, dict) else None
        if (
            not isinstance(db_schema, dict)
            or not isinstance(tables, list)
            or not all(isinstance(t, dict) for t in tables)
        ):
            reasons.append("gen_db.jsonl: db_schema has no list of tables (AWM's create_sqlite_database raises)")
        elif "sample_data" not in sample:
            reasons.append("gen_sample.jsonl: no sample_data (AWM's reset_single_database raises)")
        else:
            schema_sql, seed = _build_database(db_schema, sample, out)
            if not seed.tables:
                reasons.append("gen_db.jsonl: no table is created")

    mode = next((m for m, f in VERIFIER_FILES.items() if sc.records.get(f)), None)
    tasks: list[Task] = []
    verifier_rows: list[dict[str, Any]] = []
    if mode is None:
        reasons.append(f"no verifier in {' or '.join(f for f in VERIFIER_FILES.values() if f in present)}")
    else:
        tasks, verifier_rows = _tasks(sc, texts, mode, out)
        if texts and not tasks:
            reasons.append(f"no task has a verifier AWM can run ({len(texts)} skipped)")
        if mode == "sql":
            out.notes.append("only sql-mode verifiers (evidence for an LLM judge): recorded, never outcome 1")

    if not reasons:
        _check_seed(schema_sql, seed, out)
    if reasons or app is None or db is None:
        out.files = {}
        return out

    provenance = Provenance.model_validate(
        {
            "source": "imported",
            "dataset": DATASET,
            "scenario": sc.name or sc.key,
            "files": {f: _sha256(sc.records[f]) for f in sorted(sc.records)},
            "date": date,
            "notes": out.notes,
        }
    )
    manifest = Manifest(
        id=env,
        version=0,
        title=sc.name or sc.key,
        description=sc.description or f"{sc.name or sc.key} (imported from {DATASET})",
        clock=dt.datetime.fromisoformat(CLOCK),
        default_task=tasks[0].id,
        tags=["awm-1k"],
        provenance=provenance,
        foreign_keys=False,  # AWM's app runs on SQLAlchemy's sqlite connection: foreign keys off
    )
    for row in verifier_rows:
        TaskVerifier.model_validate(row)
    manifest_json = manifest.model_dump(mode="json", exclude_none=True)
    e = f"envs/{env}/"
    out.files.update(
        {
            e + "env.json": json.dumps(manifest_json, indent=2, ensure_ascii=False) + "\n",
            e + "schema.sql": schema_sql,
            e + "seed.json": _seed_json(seed.tables),
            e + "awm_app.py": str(app["full_code"]),
            e + "awm_spec.json": json.dumps((spec or {}).get("api_spec") or {"api_groups": []}, indent=1) + "\n",
            e + "tools.py": TOOLS_PY,
            e + "tasks.jsonl": "".join(t.model_dump_json(exclude_none=True) + "\n" for t in tasks),
            f"verifiers/{env}/verifiers.jsonl": dump_jsonl(verifier_rows),
        }
    )
    out.summary = {
        "scenario": out.scenario,
        "env": env,
        "tables": len(seed.tables),
        "rows": sum(len(r) for r in seed.tables.values()),
        "tools": len(tools),
        "tasks": len(verifier_rows),
        "verifier_mode": mode,
        "skipped": {k: out.skipped[k] for k in SKIP_KINDS},
        "notes": out.notes,
    }
    return out


# -- the whole import -------------------------------------------------------------------------------
@dataclass
class ImportReport:
    source_dir: str
    date: str
    converted: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    errors: int = 0  # scenarios that failed unexpectedly (a bug in the importer, not in the data)

    def totals(self) -> dict[str, Any]:
        """Scenarios converted and skipped; the parts skipped inside the converted ones, by kind."""
        parts = {k: sum(c.get("skipped", {}).get(k, 0) for c in self.converted) for k in SKIP_KINDS}
        return {"converted": len(self.converted), "skipped": len(self.skipped), "skipped_parts": parts}

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_dir": self.source_dir,
            "date": self.date,
            "totals": self.totals(),
            "converted": self.converted,
            "skipped": self.skipped,
        }


def _write_bundle(root: Path, env: str, files: Mapping[str, str]) -> None:
    """Write one bundle's two folders, each first under a temporary name, then renamed into place."""
    for part in ("envs", "verifiers"):
        final = root / part / env
        tmp = root / part / f".{env}.importing"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for rel, text in files.items():
            if rel.startswith(f"{part}/{env}/"):
                (tmp / rel.split("/", 2)[2]).write_text(text, encoding="utf-8")
        if final.exists():
            shutil.rmtree(final)
        tmp.rename(final)


def import_awm(
    source_dir: str | Path,
    out: str | Path,
    *,
    scenarios: Iterable[str] | None = None,
    overwrite: bool = False,
    today: str | None = None,
) -> ImportReport:
    """Convert the dataset at ``source_dir`` into bundles under ``out``; writes ``out/import_report.json``."""
    data = read_dataset(source_dir)
    root = Path(out).expanduser()
    date = today or dt.date.today().isoformat()
    report = ImportReport(str(data.source_dir), date)
    wanted = list(data.scenarios)
    if scenarios is not None:
        wanted = []
        for s in scenarios:
            key = normalize_name(s)
            if key in data.scenarios:
                wanted.append(key)
            else:
                report.skipped.append({"scenario": s, "reasons": [f"no scenario {s!r} in {data.source_dir}"]})
    root.mkdir(parents=True, exist_ok=True)
    (root / "envs").mkdir(exist_ok=True)
    (root / "verifiers").mkdir(exist_ok=True)
    seen_envs: set[str] = set()
    for key in dict.fromkeys(wanted):
        sc = data.scenarios[key]
        try:
            conv = convert_scenario(sc, data.present, date)
        except (ValidationError, sqlite3.Error, ValueError, TypeError, AttributeError, KeyError) as e:
            report.errors += 1
            report.skipped.append(
                {"scenario": sc.name or key, "reasons": [f"unexpected error: {type(e).__name__}: {e}"]}
            )
            continue
        clash = conv.env in seen_envs
        if clash:
            conv.reasons.append(f"another scenario already became environment {conv.env!r}")
        seen_envs.add(conv.env)
        exists = [p for p in (root / "envs" / conv.env, root / "verifiers" / conv.env) if p.exists()]
        if not conv.reasons and exists and not overwrite:
            conv.reasons.append(f"{exists[0]} already exists (pass --overwrite to replace it)")
        if conv.reasons:
            if overwrite and not clash:  # a stale bundle of a scenario that no longer converts goes too
                for p in exists:
                    shutil.rmtree(p)
            entry: dict[str, Any] = {"scenario": conv.scenario, "reasons": conv.reasons}
            if conv.notes:
                entry["notes"] = conv.notes
            report.skipped.append(entry)
            continue
        _write_bundle(root, conv.env, conv.files)
        report.converted.append(conv.summary)
    (root / "import_report.json").write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n")
    return report
