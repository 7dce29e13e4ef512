"""Stage ``tasks``: what users ask, each with a kind (information / single write / multi-step).

Information tasks declare the type of their answer (``Task.answer``, an ``AnswerSchema``): the agent
submits a value of that type and it is judged by equality, so the type must fit the question. The
instruction is what the agent reads: it never names tools, functions or SQL.
"""

from __future__ import annotations

import re
from collections import Counter

from awm.bundle.records import SCALAR_TYPES, AnswerSchema, AnswerType, TaskKind
from awm.gen.records import TasksOut
from awm.gen.stages.base import Draft, Stage, StageEnv, scenario_block

MAX_INSTRUCTION = 600

# What a user would never write: the system's own vocabulary.
_SYSTEM_WORDS = [
    (re.compile(r"\bSQL\b|\bSELECT\b[\s\S]{0,80}?\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+SET\b"), "SQL"),
    (re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\s*\("), "a function call"),
    (re.compile(r"`[A-Za-z_][A-Za-z0-9_]*(?:\(\))?`"), "a code identifier"),
    (re.compile(r"\b(?:use|call|run|invoke)\s+(?:the\s+)?[\w-]+\s+(?:tool|function|endpoint|api)\b", re.I), "a tool"),
    (re.compile(r"\b(?:tools?|function|endpoint|api)\s+(?:call|named)\b", re.I), "a tool"),
    (re.compile(r"\b(?:database|db)\s+(?:table|column|row)s?\b|\b\w+\s+table\s+in\s+the\s+database\b", re.I), "tables"),
]
_HOW_MANY = re.compile(r"^\s*(?:[^.?!]*[,:]\s*)?how\s+(?:many|much)\b", re.I)


def answer_problems(schema: AnswerSchema, where: str, *, top: bool = True) -> list[str]:
    """Problems with the shape of an answer type (a list names its items, an object its fields)."""
    out: list[str] = []
    if not schema.description.strip():
        out.append(f"{where}: give the answer a description saying what the value is, with its unit")
    if schema.type == AnswerType.object:
        if not top:
            out.append(f"{where}: an object field must be a scalar or a list, not another object")
        if not schema.fields:
            out.append(f'{where}: an object answer needs "fields" (name -> answer type)')
        for name, sub in (schema.fields or {}).items():
            if not re.match(r"^[a-z][a-z0-9_]*$", name):
                out.append(f"{where}: field name {name!r} must be snake_case")
            out += answer_problems(sub, f"{where} field {name!r}", top=False)
        if schema.items is not None:
            out.append(f'{where}: "items" is for list answers only')
    elif schema.type == AnswerType.list:
        if schema.items is not None and schema.items not in SCALAR_TYPES:
            out.append(f'{where}: list "items" must be a scalar type (number, string, date, boolean)')
        if schema.fields:
            out.append(f'{where}: "fields" is for object answers only')
    else:
        if schema.items is not None or schema.fields:
            out.append(f'{where}: a {schema.type} answer has no "items" or "fields"')
    return out


def instruction_problems(instruction: str, where: str) -> list[str]:
    out = []
    for pattern, what in _SYSTEM_WORDS:
        if m := pattern.search(instruction):
            out.append(
                f"{where}: the instruction mentions {what} ({m.group(0).strip()!r}); write it as a user would, "
                "without tool names, function calls, SQL or table names"
            )
            break
    return out


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
            where = f"task {t.id}"
            if len(t.instruction) > MAX_INSTRUCTION:
                problems.append(f"{where}: instruction is {len(t.instruction)} characters; keep it under 600")
            problems += instruction_problems(t.instruction, where)
            if t.kind == TaskKind.information and t.answer is None:
                problems.append(
                    f'{where}: an information task declares the type of its answer: "answer": {{"type": "number" | '
                    '"string" | "date" | "boolean" | "list" | "object", "description": "... with the unit"}'
                )
            if t.answer is not None and t.kind != TaskKind.information:
                problems.append(
                    f'{where}: only information tasks have an "answer" (a write task is judged on the data); '
                    "leave it out, or make the question a separate information task"
                )
            elif t.answer is not None:
                problems += answer_problems(t.answer, f"{where} answer")
                if _HOW_MANY.search(t.instruction) and t.answer.type not in (AnswerType.number, AnswerType.object):
                    problems.append(
                        f'{where}: a "how many / how much" question has a number answer, not {t.answer.type}'
                    )
        return problems

    def apply(self, out: TasksOut, draft: Draft, env: StageEnv) -> None:
        draft.tasks = list(out.tasks)
        draft.write_tasks()
