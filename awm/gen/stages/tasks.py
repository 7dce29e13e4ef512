"""Stage ``tasks``: what users ask, each with a kind (information / single write / multi-step)."""

from __future__ import annotations

from collections import Counter

from awm.bundle import TaskKind
from awm.gen.records import TasksOut
from awm.gen.stages.base import Draft, Stage, StageEnv, scenario_block

MAX_INSTRUCTION = 600


class TasksStage(Stage[TasksOut]):
    name = "tasks"
    output = TasksOut

    def values(self, draft: Draft, env: StageEnv) -> dict[str, str]:
        return {"scenario": scenario_block(draft), "n_tasks": str(env.limits.tasks)}

    async def check(self, out: TasksOut, draft: Draft, env: StageEnv) -> list[str]:
        problems = []
        n, want = len(out.tasks), env.limits.tasks
        low, high = max(env.limits.min_tasks, want - 2), want + 2
        if not low <= n <= high:
            problems.append(f"got {n} tasks; give {want} (between {low} and {high})")
        dup = [i for i, c in Counter(t.id for t in out.tasks).items() if c > 1]
        if dup:
            problems.append(f"task ids must be unique; repeated: {dup}")
        kinds = {t.kind for t in out.tasks}
        missing = [k.value for k in TaskKind if k not in kinds]
        if n >= 3 and missing:
            problems.append(f"include at least one task of each kind; missing: {missing}")
        for t in out.tasks:
            if len(t.instruction) > MAX_INSTRUCTION:
                problems.append(f"task {t.id}: instruction is {len(t.instruction)} characters; keep it under 600")
        return problems

    def apply(self, out: TasksOut, draft: Draft, env: StageEnv) -> None:
        draft.tasks = list(out.tasks)
        draft.write_tasks()
