"""Parametric task templates: draw slot values from a world, fill the task and its judge with them.

An instance is an ordinary ``Task`` and ``TaskVerifier``; the world compiles it like a hand-written task
(answer computed on the initial state, gold solution replayed, its net diff becoming the write frame),
so every instance is judged exactly like a fixed task. Instantiation is a pure function of the world's
initial state, the template and the instance seed.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from awm.bundle.records import Difficulty, Task, TaskTemplate, TaskVerifier, VerifierTemplate
from awm.errors import AwmError
from awm.sql.checks import read_only_problem
from awm.tooling import NONDETERMINISTIC

SLOT = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")
QUOTED_SLOT = re.compile(r"'\{[A-Za-z_][A-Za-z0-9_]*\}'")
MAX_SLOT_ROWS = 50_000
SQL_KEYS = frozenset({"sql", "distractors_sql", "where", "near_duplicates_sql"})


class TemplateError(AwmError):
    """A template cannot be instantiated in a world (no candidate rows, a bad slot, broken SQL)."""


@dataclass(frozen=True)
class Template:
    """A template's two halves, joined."""

    task: TaskTemplate
    verifier: VerifierTemplate

    @property
    def id(self) -> str:
        return self.task.id


@dataclass(frozen=True)
class Instance:
    task: Task
    verifier: TaskVerifier
    slots: dict[str, Any]
    row: int  # which slot row
    rows: int  # how many the world offers


# -- filling ------------------------------------------------------------------------------------
def sql_literal(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float) and not math.isfinite(v):  # SQLite holds infinities; repr() would give a name
        return "NULL" if math.isnan(v) else "9e999" if v > 0 else "-9e999"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, dict)):
        v = json.dumps(v, sort_keys=True)
    return "'" + str(v).replace("'", "''") + "'"


def _sub(s: str, slots: dict[str, Any], render: Any, where: str) -> str:
    def one(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok in ("{{", "}}"):
            return tok[0]
        name = m.group(1)
        if name not in slots:
            raise TemplateError(f"{where}: unknown slot {{{name}}} (slots: {', '.join(sorted(slots)) or 'none'})")
        return render(slots[name], name)

    return SLOT.sub(one, s)


def _text(v: Any, name: str) -> str:
    if v is None:
        raise TemplateError(f"slot {{{name}}} is NULL in this world and cannot appear in text")
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    return str(v)


def fill_text(s: str, slots: dict[str, Any], where: str = "text") -> str:
    return _sub(s, slots, _text, where)


def fill_sql(s: str, slots: dict[str, Any], where: str = "sql") -> str:
    if m := QUOTED_SLOT.search(s):
        raise TemplateError(f"{where}: {m.group(0)} — a slot in SQL is already a literal; drop the quotes")
    return _sub(s, slots, lambda v, _n: sql_literal(v), where)


def fill_value(v: Any, slots: dict[str, Any], where: str = "gold") -> Any:
    """Gold arguments and answers: ``"{slot}"`` alone is the typed value; other strings are text."""
    if isinstance(v, str):
        m = SLOT.fullmatch(v)
        if m and m.group(1):
            if m.group(1) not in slots:
                raise TemplateError(f"{where}: unknown slot {v} (slots: {', '.join(sorted(slots)) or 'none'})")
            return slots[m.group(1)]
        return fill_text(v, slots, where)
    if isinstance(v, list):
        return [fill_value(x, slots, where) for x in v]
    if isinstance(v, dict):
        return {k: fill_value(x, slots, f"{where}.{k}") for k, x in v.items()}
    return v


def _fill_judge(obj: Any, slots: dict[str, Any], where: str) -> Any:
    """The verifier's SQL fields get literals; names (tables, columns, tools) are left alone."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k in SQL_KEYS and isinstance(v, str):
                out[k] = fill_sql(v, slots, f"{where}.{k}")
            elif k == "gold":
                out[k] = fill_value(v, slots, f"{where}.gold")
            else:
                out[k] = _fill_judge(v, slots, f"{where}.{k}")
        return out
    if isinstance(obj, list):
        return [_fill_judge(x, slots, f"{where}[{i}]") for i, x in enumerate(obj)]
    return obj


def used_slots(t: Template) -> set[str]:
    """Every ``{slot}`` the template mentions."""
    found: set[str] = set()

    def walk(o: Any) -> None:
        if isinstance(o, str):
            found.update(m.group(1) for m in SLOT.finditer(o) if m.group(1))
        elif isinstance(o, dict):
            for k, v in o.items():
                if k not in ("slots", "template_id"):
                    walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(t.task.model_dump(mode="json", exclude={"id"}))
    walk(t.verifier.model_dump(mode="json"))
    return found


# -- instance ids ---------------------------------------------------------------------------------
# the world part is any label-like token: ``WorldKey.parse`` then says what is wrong with a bad one (``s01``)
_INSTANCE = re.compile(r"^([a-z][a-z0-9_]*)\.(c|[sl]\d+d?)\.(\d+)(\.u)?$")


def instance_id(template_id: str, world: str, row: int, underspecified: bool) -> str:
    """``<template>.<world label>.<row>[.u]``: the id of an instance (``.u``: the underspecified phrasing)."""
    return f"{template_id}.{world}.{row}{'.u' if underspecified else ''}"


def parse_instance_id(task_id: str) -> tuple[str, str, int, bool] | None:
    """(template, world label, row, underspecified) of an instance id; None for any other id."""
    m = _INSTANCE.match(task_id)
    if not m:
        return None
    return m.group(1), m.group(2), int(m.group(3)), bool(m.group(4))


# -- drawing ------------------------------------------------------------------------------------
def clock_slots(clock: datetime | None) -> dict[str, Any]:
    """Built-in slots from the world's frozen clock: ``{today}`` (YYYY-MM-DD) and ``{now}`` (ISO, seconds)."""
    if clock is None:
        return {}
    return {"today": clock.date().isoformat(), "now": clock.isoformat(timespec="seconds")}


def slot_rows(
    conn: sqlite3.Connection, t: Template, clock: datetime | None = None
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The slots query's columns and rows on this world (``{today}`` and ``{now}`` filled from ``clock``)."""
    sql = t.verifier.slots
    if clock is not None:
        sql = fill_sql(sql, clock_slots(clock), f"template {t.id!r} slots")
    if why := read_only_problem(sql):
        raise TemplateError(f"template {t.id!r} slots: {why}")
    if m := NONDETERMINISTIC.search(sql):
        raise TemplateError(f"template {t.id!r} slots uses {m.group(0)!r}; instances must be deterministic")
    try:
        cur = conn.execute(sql)
        rows = cur.fetchmany(MAX_SLOT_ROWS)
    except sqlite3.Error as e:
        raise TemplateError(f"template {t.id!r} slots query fails: {e}") from None
    cols = [d[0] for d in cur.description or ()]
    if len(set(cols)) != len(cols):
        raise TemplateError(f"template {t.id!r} slots: duplicate column names {cols}")
    return cols, rows


def decode_slots(cols: list[str], row: tuple[Any, ...], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c, v in zip(cols, row, strict=True):
        if c.endswith("__json") and isinstance(v, str):
            try:
                v = json.loads(v)
            except json.JSONDecodeError as e:
                raise TemplateError(f"{where}: slot {c} is not JSON: {e}") from None
        out[c] = v
    return out


def instantiate(
    conn: sqlite3.Connection,
    t: Template,
    world: str,
    pick: int,
    *,
    scale: str = "canonical",
    world_distractors: bool = False,
    underspecified: bool = False,
    rows: tuple[list[str], list[tuple[Any, ...]]] | None = None,
    clock: datetime | None = None,
) -> Instance:
    """Instance ``pick`` (taken modulo the number of slot rows) of template ``t`` in this world.
    ``rows``: the slots query's result on this world, if already known."""
    cols, rows_ = rows if rows is not None else slot_rows(conn, t, clock)
    rows_list = rows_
    if not rows_list:
        raise TemplateError(f"template {t.id!r} has no instance in world {world}: its slots query returns no row")
    index = pick % len(rows_list)
    task_id = instance_id(t.id, world, index, underspecified)
    where = f"template {t.id!r} instance {task_id}"
    slots = clock_slots(clock) | decode_slots(cols, rows_list[index], where)
    tt = t.task
    if underspecified and tt.underspecified_instruction is None:
        raise TemplateError(f"template {t.id!r} has no underspecified_instruction")
    text = tt.underspecified_instruction if underspecified and tt.underspecified_instruction else tt.instruction
    judge = _fill_judge(t.verifier.model_dump(mode="json", exclude={"template_id", "slots"}), slots, where)
    near = judge.pop("near_duplicates_sql", None)
    near_count = 0
    if near:
        try:
            got = conn.execute(near).fetchone()
        except sqlite3.Error as e:
            raise TemplateError(f"{where}: near_duplicates_sql fails: {e}") from None
        near_count = int(got[0]) if got and isinstance(got[0], (int, float)) else 0
    gold = judge["gold"]
    write_steps = 0  # filled by the world, which knows which tools write
    answer = tt.answer
    if answer is not None and answer.description:
        answer = answer.model_copy(update={"description": fill_text(answer.description, slots, where)})
    task = Task(
        id=task_id,
        instruction=fill_text(text, slots, f"{where} instruction"),
        kind=tt.kind,
        answer=answer,
        tags=list(tt.tags),
        template=t.id,
        world=world,
        difficulty=Difficulty(
            steps=len(gold["calls"]),
            write_steps=write_steps,
            near_duplicates=near_count,
            underspecified=underspecified,
            scale=scale,
            world_distractors=world_distractors,
        ),
    )
    verifier = TaskVerifier.model_validate({"task_id": task_id, **judge})
    return Instance(task, verifier, slots, index, len(rows_list))


def join(tasks: Iterable[TaskTemplate], verifiers: Iterable[VerifierTemplate]) -> tuple[dict[str, Template], list[str]]:
    """Pair the two halves by id; problems name what is missing."""
    problems: list[str] = []
    tasks = list(tasks)
    tv = {v.template_id: v for v in verifiers}
    out: dict[str, Template] = {}
    for t in tasks:
        if t.id in out:
            problems.append(f"template id {t.id!r} appears twice in templates.jsonl")
        elif t.id not in tv:
            problems.append(f"template {t.id!r} has no verifier template")
        else:
            out[t.id] = Template(t, tv[t.id])
    for vid in tv:
        if vid not in {t.id for t in tasks}:
            problems.append(f"verifier template for unknown template {vid!r}")
    return out, problems
