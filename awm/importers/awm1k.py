"""Converts an AgentWorldModel-1K folder (AWM's ``gen_*.jsonl`` files) into bundles (``awm import awm``).

Each scenario becomes ``ROOT/envs/<env>/`` + ``ROOT/verifiers/<env>/`` as the contract in
``awm.importers`` describes. Everything that can be checked without running AWM's code is checked
here: the DDL executes, the inserts load with foreign keys on, the app and verifier code pass the
static checks (``awm.importers.appcheck``), every route has an ``operation_id``, every task has a
verifier with a ``def verify_...``. A scenario with any problem is skipped and reported with its
reasons; AWM's code is never imported or executed by the importer.

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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from awm.bundle import ID_PATTERN, Manifest, Provenance, SeedData, Task, TaskVerifier
from awm.diff import read_tables
from awm.errors import AwmError
from awm.loader import dump_jsonl
from awm.seeding import insert_seed
from awm.tooling import NONDETERMINISTIC, quote

DATASET = "AgentWorldModel-1K"
CLOCK = "2026-01-01T00:00:00"
CLOCK_SQL = "2026-01-01 00:00:00"
REQUIRED_FILES = ("gen_tasks.jsonl", "gen_db.jsonl", "gen_sample.jsonl", "gen_envs.jsonl")
OPTIONAL_FILES = ("gen_scenario.jsonl", "gen_spec.jsonl")
VERIFIER_FILES = {"code": "gen_verifier.pure_code.jsonl", "sql": "gen_verifier.jsonl"}
RESERVED_TOOLS = frozenset({"submit_answer", "list_tools", "call_tool"})  # awm.world.RESERVED_TOOLS
ROUTE_METHODS = frozenset({"get", "post", "put", "patch", "delete"})
ANSWER_SCHEMA = {"type": "string", "description": "your final answer, if the task asks for information; otherwise null"}
TOOLS_PY = '''"""Tools of an environment imported from AgentWorldModel-1K: AWM's generated FastAPI app (awm_app.py),
statically checked and run in-process against the episode's database (awm.importers.runtime)."""
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
_DATE_FUNCTIONS = ("date", "time", "datetime", "julianday", "strftime", "unixepoch")


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
        rows = self.records.get(file)
        return rows[0] if rows else None


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
            sc.records.setdefault(file, []).append(row)
            if file == "gen_scenario.jsonl":
                sc.name, sc.description = name, str(row.get("description") or "")
            elif not sc.name:
                sc.name = name
    return Dataset(src, frozenset(present), scenarios)


# -- converting one scenario ------------------------------------------------------------------------
@dataclass
class Converted:
    """A scenario's bundle files (relative to ROOT) and its report line, or the reasons it was skipped."""

    scenario: str
    env: str
    reasons: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)


def _freeze_clock(sql: str, *, keywords_only: bool = False) -> tuple[str, int]:
    n = 0
    for pattern, literal in _SQL_CLOCK.items():
        if keywords_only and pattern.pattern == "'now'":
            continue
        sql, k = pattern.subn(literal, sql)
        n += k
    return sql, n


def _frozen_date_function(plain: sqlite3.Connection, name: str) -> Callable[..., Any]:
    """SQLite's ``name(...)`` with ``'now'`` read as CLOCK (computed by an untouched connection)."""

    def fn(*args: Any) -> Any:
        fixed = [CLOCK_SQL if isinstance(a, str) and a.strip().lower() == "now" else a for a in args]
        sql = f"SELECT {name}({', '.join('?' * len(fixed))})"
        return plain.execute(sql, fixed).fetchone()[0]

    return fn


def _connect_frozen() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    plain = sqlite3.connect(":memory:")
    for name in _DATE_FUNCTIONS:
        conn.create_function(name, -1, _frozen_date_function(plain, name), deterministic=True)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def _build_schema(db: Mapping[str, Any], reasons: list[str], notes: list[str]) -> str | None:
    tables = (db.get("db_schema") or {}).get("tables")
    if not isinstance(tables, list) or not tables:
        reasons.append("gen_db.jsonl: db_schema has no tables")
        return None
    statements: list[tuple[str, str]] = []
    for t in tables:
        name = str(t.get("name") or "?")
        statements.append((f"table {name}", str(t.get("ddl") or "")))
        statements += [(f"an index of table {name}", str(ix)) for ix in t.get("indexes") or []]
    conn = sqlite3.connect(":memory:")
    out, frozen = [], 0
    for label, stmt in statements:
        stmt, n = _freeze_clock(stmt.strip().rstrip(";").strip())
        frozen += n
        if not stmt:
            reasons.append(f"gen_db.jsonl: {label} has no DDL")
            continue
        try:
            conn.execute(stmt)
        except sqlite3.Error as e:
            reasons.append(f"gen_db.jsonl: the DDL of {label} does not execute: {e}")
            continue
        if m := NONDETERMINISTIC.search(stmt):
            reasons.append(f"gen_db.jsonl: {label} uses {m.group(0)!r} (the world must be deterministic)")
        out.append(stmt + ";\n")
    conn.close()
    if frozen:
        notes.append(f"schema: {frozen} wall-clock default(s) frozen at {CLOCK_SQL}")
    return "\n".join(out)


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


def _load_seed(schema_sql: str, sample: Mapping[str, Any], reasons: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Run AWM's inserts on the schema (foreign keys on, clock frozen); the rows of every table."""
    conn = _connect_frozen()
    conn.executescript(schema_sql)
    conn.execute("PRAGMA foreign_keys = ON")
    groups = (sample.get("sample_data") or {}).get("tables") or []
    k = 0
    for group in groups:
        for stmt in group.get("insert_statements") or []:
            k += 1
            sql, _ = _freeze_clock(str(stmt), keywords_only=True)  # 'now' is frozen by _connect_frozen
            try:
                conn.execute(sql)
            except sqlite3.Error as e:
                short = " ".join(str(stmt).split())
                short = short if len(short) <= 160 else short[:157] + "..."
                where = f"insert #{k} ({group.get('table_name')})"
                reasons.append(f"gen_sample.jsonl: {where} fails with foreign keys on: {e}: {short}")
                return {}
    if k == 0:
        reasons.append("gen_sample.jsonl: no insert statements")
    for tbl, rowid, parent, _ in conn.execute("PRAGMA foreign_key_check").fetchall()[:3]:
        reasons.append(f"gen_sample.jsonl: {tbl} row {rowid} references a missing {parent} row")
    names = list(read_tables(conn))
    schema_order = [
        r[0]
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
        if r[0] in names
    ]
    rows: dict[str, list[dict[str, Any]]] = {}
    for name in _table_order(conn, schema_order):
        cur = conn.execute(f"SELECT * FROM {quote(name)} ORDER BY rowid")
        cols = [d[0] for d in cur.description]
        rows[name] = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
        if any(isinstance(v, bytes) for r in rows[name] for v in r.values()):
            reasons.append(f"gen_sample.jsonl: table {name} holds BLOB values, which seed.json cannot hold")
    conn.close()
    return rows


def _recheck_seed(schema_sql: str, seed: SeedData, reasons: list[str]) -> None:
    """The seed loads as the world will load it (``awm.seeding.insert_seed``, foreign keys on)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript(schema_sql)
    conn.execute("PRAGMA foreign_keys = ON")
    tables = read_tables(conn)
    for name, t in tables.items():
        if t.key == ("rowid",):
            reasons.append(f"gen_db.jsonl: table {name} has no PRIMARY KEY")
    reasons += [f"seed.json {p}" for p in insert_seed(conn, seed, tables, max_problems=5)]
    conn.close()


def _static_check(kind: str) -> Callable[[str], list[str]] | None:
    """The runtime's static check of app or verifier code (``awm.importers.appcheck``), if installed."""
    try:
        from awm.importers import appcheck
    except ImportError:
        return None
    fn = getattr(appcheck, f"check_{kind}_code", None)
    return fn if callable(fn) else None


def _routes(tree: ast.Module) -> list[tuple[str, str, str | None]]:
    """``(METHOD, path, operation_id)`` of every ``@app.<method>(...)`` route, in source order."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for dec in node.decorator_list:
            if not (isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute)):
                continue
            if dec.func.attr not in ROUTE_METHODS:
                continue
            path = dec.args[0].value if dec.args and isinstance(dec.args[0], ast.Constant) else "?"
            op = next((k.value for k in dec.keywords if k.arg == "operation_id"), None)
            op_id = op.value if isinstance(op, ast.Constant) and isinstance(op.value, str) else None
            out.append((dec.func.attr.upper(), str(path), op_id))
    return out


def _check_app(code: str, reasons: list[str]) -> int:
    """Reasons the app cannot become tools; the number of tools it defines."""
    try:
        tree = ast.parse(code, filename="awm_app.py")
    except SyntaxError as e:
        reasons.append(f"gen_envs.jsonl: full_code does not parse: line {e.lineno}: {e.msg}")
        return 0
    check = _static_check("app")
    if check is not None:
        reasons += [f"gen_envs.jsonl: {p}" for p in check(code)]
    routes = _routes(tree)
    if not routes:
        reasons.append("gen_envs.jsonl: full_code defines no @app route")
    ops = [op for _, _, op in routes if op]
    for method, path, op in routes:
        if op is None:
            reasons.append(f"gen_envs.jsonl: route {method} {path} has no operation_id")
    for dup in sorted({o for o in ops if ops.count(o) > 1}):
        reasons.append(f"gen_envs.jsonl: operation_id {dup!r} is used by two routes")
    for bad in sorted(set(ops) & RESERVED_TOOLS):
        reasons.append(f"gen_envs.jsonl: operation_id {bad!r} is reserved for the episode's own actions")
    return len(set(ops))


def _check_spec(spec: Mapping[str, Any], reasons: list[str]) -> None:
    groups = (spec.get("api_spec") or {}).get("api_groups")
    if not isinstance(groups, list):
        reasons.append("gen_spec.jsonl: api_spec has no api_groups")
        return
    for group in groups:
        for ep in group.get("endpoints") or []:
            if not ep.get("operation_id"):
                reasons.append(f"gen_spec.jsonl: endpoint {ep.get('method')} {ep.get('path')} has no operation_id")


def _verifier_function(code: str) -> tuple[str | None, bool, str | None]:
    """(name of the first top-level ``def verify_...``, whether it takes ``final_answer``, problem)."""
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        return None, False, f"does not parse: line {e.lineno}: {e.msg}"
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("verify_"):
            params = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
            return node.name, "final_answer" in params, None
    return None, False, "has no `def verify_...` function"


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


def convert_scenario(sc: Scenario, present: frozenset[str], date: str) -> Converted:
    """One scenario as bundle files, or the reasons it cannot be imported. Never runs AWM's code."""
    env = env_name(sc.key)
    out = Converted(sc.name or sc.key, env)
    reasons, notes = out.reasons, []
    for file in (*REQUIRED_FILES, *OPTIONAL_FILES):
        if file in present and not sc.records.get(file):
            reasons.append(f"no line in {file}")
        elif len(sc.records.get(file) or []) > 1:
            reasons.append(f"{len(sc.records[file])} lines in {file} (expected one)")
    tasks_rec, db, sample, app, spec = (
        sc.one(f) for f in ("gen_tasks.jsonl", "gen_db.jsonl", "gen_sample.jsonl", "gen_envs.jsonl", "gen_spec.jsonl")
    )
    texts = [t for t in (tasks_rec or {}).get("tasks") or [] if isinstance(t, str)]
    if tasks_rec is not None and not [t for t in texts if t.strip()]:
        reasons.append("gen_tasks.jsonl: no tasks")

    mode = (
        "code" if sc.records.get(VERIFIER_FILES["code"]) else "sql" if sc.records.get(VERIFIER_FILES["sql"]) else None
    )
    if mode is None:
        reasons.append(f"no verifier in {' or '.join(f for f in VERIFIER_FILES.values() if f in present)}")
    by_idx = {r.get("task_idx"): r for r in sc.records.get(VERIFIER_FILES[mode], [])} if mode else {}
    vfile = VERIFIER_FILES[mode] if mode else ""
    check_verifier = _static_check("verifier")
    verifier_rows: list[dict[str, Any]] = []
    for idx, text in enumerate(texts):
        task_id = f"t{idx:02d}"
        rec = by_idx.get(idx)
        code = ((rec or {}).get("verification") or {}).get("code") if mode else None
        if mode and not isinstance(code, str):
            reasons.append(f"task {idx}: no verifier in {vfile}")
            continue
        if not mode or not isinstance(code, str):
            continue
        fn, takes_answer, problem = _verifier_function(code)
        if problem or fn is None:
            reasons.append(f"task {idx}: the verifier in {vfile} {problem}")
            continue
        if check_verifier is not None:
            reasons += [f"task {idx}: the verifier in {vfile}: {p}" for p in check_verifier(code)]
        out.files[f"verifiers/{env}/verify_{task_id}.py"] = code
        verifier_rows.append(
            {
                "task_id": task_id,
                "checks": [],
                "answer": None,
                "code": {"file": f"verify_{task_id}.py", "function": fn, "mode": mode, "takes_answer": takes_answer},
                "write_frame": False,
                "gold": {"calls": []},
            }
        )
        task = Task.model_validate(
            {
                "id": task_id,
                "instruction": text.strip(),
                "kind": "multi_step",
                "answer": ANSWER_SCHEMA if takes_answer else None,
                "tags": ["awm-1k"],
            }
        )
        out.files.setdefault(f"envs/{env}/tasks.jsonl", "")
        out.files[f"envs/{env}/tasks.jsonl"] += task.model_dump_json(exclude_none=True) + "\n"
    if mode == "sql":
        notes.append("only sql-mode verifiers (evidence for an LLM judge): recorded, never outcome 1")

    n_tools = _check_app(str(app.get("full_code") or ""), reasons) if app else 0
    if spec is not None:
        _check_spec(spec, reasons)
    schema_sql = _build_schema(db, reasons, notes) if db else None
    seed_rows: dict[str, list[dict[str, Any]]] = {}
    if schema_sql is not None and not reasons and sample is not None:
        seed_rows = _load_seed(schema_sql, sample, reasons)
        if not reasons:
            _recheck_seed(schema_sql, SeedData(tables=seed_rows), reasons)
    if reasons or schema_sql is None or app is None or db is None:
        out.files = {}
        return out

    provenance = Provenance.model_validate(
        {
            "source": "imported",
            "dataset": DATASET,
            "scenario": sc.name or sc.key,
            "files": {f: _sha256(sc.records[f]) for f in sorted(sc.records)},
            "date": date,
            "notes": notes,
        }
    )
    manifest = Manifest(
        id=env,
        version=0,
        title=sc.name or sc.key,
        description=sc.description or f"{sc.name or sc.key} (imported from {DATASET})",
        clock=dt.datetime.fromisoformat(CLOCK),
        default_task="t00" if texts else None,
        tags=["awm-1k"],
        provenance=provenance,
    )
    for row in verifier_rows:
        if "code" in TaskVerifier.model_fields:  # the runtime's record fields, once they exist
            TaskVerifier.model_validate(row)
    e = f"envs/{env}/"
    out.files.update(
        {
            e + "env.json": json.dumps(
                manifest.model_dump(mode="json", exclude_none=True), indent=2, ensure_ascii=False
            )
            + "\n",
            e + "schema.sql": schema_sql,
            e + "seed.json": _seed_json(seed_rows),
            e + "awm_app.py": str(app["full_code"]),
            e + "awm_spec.json": json.dumps((spec or {}).get("api_spec") or {"api_groups": []}, indent=1) + "\n",
            e + "tools.py": TOOLS_PY,
            f"verifiers/{env}/verifiers.jsonl": dump_jsonl(verifier_rows),
        }
    )
    out.summary = {
        "scenario": out.scenario,
        "env": env,
        "tables": len(seed_rows),
        "rows": sum(len(r) for r in seed_rows.values()),
        "tools": n_tools,
        "tasks": len(verifier_rows),
        "verifier_mode": mode,
        "notes": notes,
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

    def to_dict(self) -> dict[str, Any]:
        return {"source_dir": self.source_dir, "date": self.date, "converted": self.converted, "skipped": self.skipped}


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
            report.skipped.append({"scenario": conv.scenario, "reasons": conv.reasons})
            continue
        _write_bundle(root, conv.env, conv.files)
        report.converted.append(conv.summary)
    (root / "import_report.json").write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n")
    return report
