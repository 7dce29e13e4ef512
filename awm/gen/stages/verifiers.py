"""Stage ``verifiers``: per task, read-only SQL checks, an answer check, the allowed writes and a gold
solution. Static checks first (read-only SQL, known tools, one verifier per task); then the bundle is
validated in full in the sandbox: every gold solution replays and scores 1, the initial state and an
empty trajectory score 0. After the last attempt, tasks that still fail are dropped if enough remain."""

from __future__ import annotations

from collections import Counter

from awm.bundle import TaskKind
from awm.gen.records import VerifiersOut
from awm.gen.sandbox import SandboxResult
from awm.gen.stages.base import Draft, Stage, StageEnv, scenario_block, seed_block, tasks_block, tools_block
from awm.sqlcheck import read_only_problem


def static_problems(out: VerifiersOut, draft: Draft) -> dict[str | None, list[str]]:
    """Problems found without running anything, by task id (``None``: not tied to one task)."""
    found: dict[str | None, list[str]] = {}
    task_ids = [t.id for t in draft.tasks]
    kinds = {t.id: t.kind for t in draft.tasks}
    tools = {t["name"] for t in draft.tool_specs}
    counts = Counter(v.task_id for v in out.verifiers)
    for tid in task_ids:
        if counts[tid] == 0:
            found.setdefault(tid, []).append(f"task {tid}: no verifier; give exactly one per task")
        elif counts[tid] > 1:
            found.setdefault(tid, []).append(f"task {tid}: {counts[tid]} verifiers; give exactly one")
    for v in out.verifiers:
        if v.task_id not in kinds:
            found.setdefault(None, []).append(f"verifier for unknown task {v.task_id!r} (tasks: {', '.join(task_ids)})")
            continue
        where = f"task {v.task_id}"
        bad = found.setdefault(v.task_id, [])
        sqls = [(f"check {c.name!r}", c.sql) for c in v.checks]
        if v.answer is not None:
            sqls.append(("answer.sql", v.answer.sql))
            if v.answer.forbidden_sql:
                sqls.append(("answer.forbidden_sql", v.answer.forbidden_sql))
        for what, sql in sqls:
            if why := read_only_problem(sql):
                bad.append(f"{where} {what}: verifier SQL must be one read-only SELECT; it {why}")
        for i, call in enumerate(v.gold.calls):
            if call.tool not in tools:
                bad.append(f"{where} gold call {i}: unknown tool {call.tool!r} (tools: {', '.join(sorted(tools))})")
        if kinds[v.task_id] == TaskKind.information and v.answer is None:
            bad.append(f"{where}: an information task needs an answer check")
        if kinds[v.task_id] != TaskKind.information and not any(not c.guard for c in v.checks):
            bad.append(f"{where}: a write task needs at least one non-guard check")
        if kinds[v.task_id] == TaskKind.information and v.answer is not None and not v.gold.answer:
            bad.append(f"{where}: the gold solution needs an answer (what the agent would reply)")
    return {k: v for k, v in found.items() if v}


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
