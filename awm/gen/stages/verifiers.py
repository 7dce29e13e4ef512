"""Stage ``verifiers``: per task, a gold solution, read-only SQL checks, a typed answer check and the
declared exceptions to the write frame (``free_columns``, ``free_arguments``, ``allowed_writes``).

Static checks first (read-only SQL, known tools, tables and columns, one verifier per task, the
answer check shaped like the task's answer type, a typed gold answer, stated values compared with
exact equality and written the way the instruction states them); then the bundle is validated in
full in the sandbox (``awm validate``, adversarial audit included): every gold solution replays and
scores 1, the initial state and an empty trajectory score 0, and no probe (a mutated write, a write to
another row, a hedged answer) scores 1. After the last attempt, tasks that still fail are dropped if
enough remain."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Iterator
from typing import Any

from awm.bundle.records import AnswerCheck, AnswerSchema, AnswerType, Task, TaskKind, TaskVerifier
from awm.gen.records import VerifiersOut
from awm.gen.sandbox import SandboxResult
from awm.gen.stages.base import Draft, Stage, StageEnv, scenario_block, seed_block, tasks_block, tools_block
from awm.gen.stages.schema import build_schema
from awm.judge.answers import normalise, value_problem
from awm.judge.frame import declaration_problems, predicate_problem
from awm.sql.checks import read_only_problem
from awm.sql.diff import TableInfo, read_tables

_FUZZY = re.compile(r"\b(?:NOT\s+)?(?:LIKE|GLOB)\b", re.I)
_COUNT = re.compile(r"\bCOUNT\s*\(", re.I)
_DATE_LIKE = re.compile(r"^\s*\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\s*$")


def static_problems(out: VerifiersOut, draft: Draft) -> dict[str | None, list[str]]:
    """Problems found without running the tools, by task id (``None``: not tied to one task)."""
    conn = build_schema(draft.schema_sql)[0] if draft.schema_sql.strip() else None
    try:
        return _static(out, draft, conn)
    finally:
        if conn is not None:
            conn.close()


def _static(out: VerifiersOut, draft: Draft, conn: sqlite3.Connection | None) -> dict[str | None, list[str]]:
    found: dict[str | None, list[str]] = {}
    task_ids = [t.id for t in draft.tasks]
    tasks = {t.id: t for t in draft.tasks}
    specs = {t["name"]: t for t in draft.tool_specs}
    tables = read_tables(conn) if conn is not None else None
    seed_values = _seed_values(draft)
    counts = Counter(v.task_id for v in out.verifiers)
    for tid in task_ids:
        if counts[tid] == 0:
            found.setdefault(tid, []).append(f"task {tid}: no verifier; give exactly one per task")
        elif counts[tid] > 1:
            found.setdefault(tid, []).append(f"task {tid}: {counts[tid]} verifiers; give exactly one")
    for v in out.verifiers:
        if v.task_id not in tasks:
            found.setdefault(None, []).append(f"verifier for unknown task {v.task_id!r} (tasks: {', '.join(task_ids)})")
            continue
        bad = found.setdefault(v.task_id, [])
        bad += verifier_problems(v, tasks[v.task_id], specs, tables, seed_values, conn)
    return {k: v for k, v in found.items() if v}


def verifier_problems(
    v: TaskVerifier,
    task: Task,
    specs: dict[str, dict[str, Any]],
    tables: dict[str, TableInfo] | None,
    seed_values: set[str],
    conn: sqlite3.Connection | None = None,
) -> list[str]:
    """The static problems of one verifier (``tables`` None: the schema is unknown, skip those checks)."""
    where = f"task {v.task_id}"
    info = task.kind == TaskKind.information
    bad: list[str] = []
    # -- SQL is read-only -------------------------------------------------------------------------
    sqls = [(f"check {c.name!r}", c.sql) for c in v.checks]
    if v.answer is not None:
        sqls += list(_answer_sqls(v.answer, "answer"))
    for what, sql in sqls:
        if why := read_only_problem(sql):
            bad.append(f"{where} {what}: verifier SQL must be one read-only SELECT; it {why}")
    names = [c.name for c in v.checks]
    if len(set(names)) != len(names):
        bad.append(f"{where}: check names must be unique")
    for c in v.checks:
        if m := _FUZZY.search(c.sql):
            bad.append(
                f"{where} check {c.name!r} uses {m.group(0).upper()!r}: compare every value the instruction "
                "states with exact equality (e.g. reason = 'vaccination'), never a pattern or prefix"
            )
    # -- gold ---------------------------------------------------------------------------------------
    writes = []
    for i, call in enumerate(v.gold.calls):
        spec = specs.get(call.tool)
        if spec is None:
            bad.append(f"{where} gold call {i}: unknown tool {call.tool!r} (tools: {', '.join(sorted(specs))})")
        elif spec.get("write"):
            writes.append((i, call))
    if info and writes:
        i, call = writes[0]
        bad.append(
            f"{where} gold call {i}: an information task changes nothing; its gold solution calls only read "
            f"tools, not {call.tool!r}"
        )
    if not info and not writes and not any(c.tool not in specs for c in v.gold.calls):
        bad.append(f"{where}: the gold solution of a write task must make the change (it calls no write tool)")
    if not info and not any(not c.guard for c in v.checks):
        bad.append(f"{where}: a write task needs at least one non-guard check")
    bad += _stated_value_problems(v, task, specs, writes, seed_values)
    # -- answer ---------------------------------------------------------------------------------
    schema = task.answer
    if schema is None and v.answer is not None:
        bad.append(f"{where}: the task declares no answer type, so its verifier has no answer check (null)")
    if schema is None and v.gold.answer is not None:
        bad.append(f"{where}: gold.answer must be null for a task without an answer type")
    if schema is not None:
        if v.answer is None:
            bad.append(f"{where}: an information task needs an answer check ('answer': {{'sql': ...}})")
        else:
            bad += answer_check_problems(schema, v.answer, f"{where} answer")
        if v.gold.answer is None:
            bad.append(f"{where}: gold.answer must be the typed value the agent submits (a {schema.type})")
        elif why := value_problem(schema, v.gold.answer):
            bad.append(
                f"{where}: gold.answer {_short(v.gold.answer)} is not a value of the answer type "
                f"({schema.type}): {why}. Give the value alone, never a sentence"
            )
    # -- the write frame's exceptions -------------------------------------------------------------
    columns = {t: info.columns for t, info in tables.items()} if tables is not None else None
    params = {name: (spec.get("parameters") or {}).get("properties", {}) for name, spec in specs.items()}
    bad += [f"{where} {p}" for p in declaration_problems(v.free_columns, v.free_arguments, columns, params)]
    if info and (v.allowed_writes or v.free_columns):
        bad.append(f"{where}: an information task writes nothing: allowed_writes and free_columns stay empty")
    for k, w in enumerate(v.allowed_writes):
        label = f"{where} allowed_writes[{k}]"
        if tables is not None and w.table not in tables:
            bad.append(f"{label}: unknown table {w.table!r}")
            continue
        cols = tables[w.table].columns if tables is not None else None
        if cols is not None and (missing := [c for c in (w.columns or []) if c not in cols]):
            bad.append(f"{label}: {w.table} has no columns {missing}")
        if not w.where:
            bad.append(
                f"{label}: give a 'where' predicate that names the rows this task may add or change (e.g. "
                "order_id = 17); without it any row of the table may change, another person's included"
            )
            continue
        if why := read_only_problem(f"SELECT 1 WHERE {w.where}"):
            bad.append(f"{label}.where: must be a read-only SQL predicate; it {why}")
        elif cols is not None and conn is not None and (err := predicate_problem(conn, w.where, cols)):
            bad.append(f"{label}.where: {err} (the predicate sees the row's columns: {', '.join(cols)})")
    return bad


def answer_check_problems(schema: AnswerSchema, check: AnswerCheck, where: str) -> list[str]:
    """The answer check has the shape of the task's answer type."""
    out: list[str] = []
    if schema.type == AnswerType.object:
        want = set(schema.fields or {})
        got = set(check.fields or {})
        if check.sql:
            out.append(f"{where}: an object answer has no 'sql'; give 'fields' with one check per field")
        if want != got:
            out.append(
                f"{where}: 'fields' must have exactly the answer type's fields {sorted(want)}"
                + (f"; got {sorted(got)}" if got else "")
            )
        for name in sorted(want & got):
            out += answer_check_problems((schema.fields or {})[name], (check.fields or {})[name], f"{where}.{name}")
        return out
    if check.fields:
        out.append(f"{where}: 'fields' is for object answers; a {schema.type} answer has one 'sql'")
    if not check.sql:
        out.append(f"{where}: a {schema.type} answer needs 'sql' returning the expected value")
    if check.tolerance and schema.type != AnswerType.number:
        out.append(f"{where}: 'tolerance' is for number answers only; leave it 0")
    if check.tolerance and check.sql and _COUNT.search(check.sql) and not re.search(r"/|\bAVG\s*\(", check.sql, re.I):
        out.append(f"{where}: a count is exact: 'tolerance' must be 0")
    if schema.type == AnswerType.list and not check.distractors_sql:
        out.append(
            f"{where}: a list answer needs 'distractors_sql' (plausible wrong items, e.g. the items before the "
            "question's filter), so that listing every candidate can be shown to fail"
        )
    return out


def _stated_value_problems(
    v: TaskVerifier,
    task: Task,
    specs: dict[str, dict[str, Any]],
    writes: list[tuple[int, Any]],
    seed_values: set[str],
) -> list[str]:
    """Text a gold write uses must come from the instruction or the data: the agent cannot guess it."""
    out: list[str] = []
    said = f" {normalise(task.instruction)} "
    free = set(v.free_arguments)
    for i, call in writes:
        props = (specs[call.tool].get("parameters") or {}).get("properties", {})
        for arg, value in call.arguments.items():
            if f"{call.tool}.{arg}" in free:
                continue
            for text in value if isinstance(value, list) else [value]:
                if not isinstance(text, str) or _enum(props.get(arg, {})) or _DATE_LIKE.match(text):
                    continue
                norm = normalise(text)
                if " " not in text.strip() and re.search(r"\d", text):
                    continue  # a code or key (often made by an earlier call): looked up, not stated
                if len(norm) < 2 or not re.search(r"[a-z]", norm) or f" {norm} " in said or norm in seed_values:
                    continue
                out.append(
                    f"task {v.task_id} gold call {i} {call.tool}: {arg}={text!r} is stated neither in the instruction "
                    "nor in the data, so an agent cannot know it and the write frame would reject its wording. Use "
                    f"the instruction's own words; if the instruction leaves this value to the agent, list "
                    f"'{call.tool}.{arg}' in free_arguments and the column it fills in free_columns"
                )
    return out


def _answer_sqls(check: AnswerCheck, label: str) -> Iterator[tuple[str, str]]:
    if check.sql:
        yield f"{label}.sql", check.sql
    if check.distractors_sql:
        yield f"{label}.distractors_sql", check.distractors_sql
    for name, sub in (check.fields or {}).items():
        yield from _answer_sqls(sub, f"{label}.{name}")


def _seed_values(draft: Draft) -> set[str]:
    """Every text cell of the seed, normalised, and every two text cells of one row joined (a full name)."""
    out: set[str] = set()
    if draft.seed is None:
        return out
    for rows in draft.seed.tables.values():
        for r in rows:
            cells = [normalise(v) for v in r.values() if isinstance(v, str)]
            out.update(cells)
            out.update(f"{a} {b}" for a in cells for b in cells if a != b and len(cells) <= 12)
    return out


def _enum(schema: dict[str, Any]) -> bool:
    return "enum" in schema or any("enum" in b for b in schema.get("anyOf", []))


def _short(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 80 else s[:77] + "..."


class VerifiersStage(Stage[VerifiersOut]):
    name = "verifiers"
    output = VerifiersOut

    def __init__(self) -> None:
        self.last: dict[str, SandboxResult] = {}  # job key -> the last sandbox validation

    def values(self, draft: Draft, env: StageEnv) -> dict[str, str]:
        return {
            "scenario": scenario_block(draft),
            "tasks": tasks_block(draft.tasks),
            "schema": draft.schema_sql,
            "seed": seed_block(draft.seed, max_rows=60),
            "tools": tools_block(draft.tool_specs),
            "tools_py": draft.tools_py,
        }

    async def check(self, out: VerifiersOut, draft: Draft, env: StageEnv) -> list[str]:
        self.last.pop(draft.key, None)
        static = static_problems(out, draft)
        if static:
            return [p for ps in static.values() for p in ps]
        draft.verifiers = list(out.verifiers)
        draft.write_verifiers()
        res = await env.sandbox.validate(draft.staging, draft.env_id)
        self.last[draft.key] = res
        return res.problems

    def apply(self, out: VerifiersOut, draft: Draft, env: StageEnv) -> None:
        draft.verifiers = list(out.verifiers)
        self.last.pop(draft.key, None)

    async def salvage(self, out: VerifiersOut, problems: list[str], draft: Draft, env: StageEnv) -> bool:
        """Drop the tasks that still fail, if at least ``min_tasks`` sound ones remain."""
        res = self.last.pop(draft.key, None)
        static = static_problems(out, draft)
        if None in static:
            return False
        bad = {k for k in static if k is not None}
        if res is not None:
            attributed = sum(len(ps) for ps in res.task_problems.values())
            if attributed < len(res.problems):
                return False  # a problem not tied to one task: dropping tasks cannot fix it
            bad |= set(res.task_problems)
        keep = [t for t in draft.tasks if t.id not in bad]
        if not bad or len(keep) < env.limits.min_tasks:
            return False
        keep_ids = {t.id for t in keep}
        draft.tasks = keep
        draft.verifiers = [v for v in out.verifiers if v.task_id in keep_ids]
        draft.dropped_tasks = sorted(bad)
        draft.write_tasks()
        draft.write_verifiers()
        return (await env.sandbox.validate(draft.staging, draft.env_id)).ok
