"""Stage ``templates``: the task templates, both halves (what the agent reads, how instances are judged).

Checked in three rounds, each naming the template at fault: the records (kinds, counts, instructions,
answer types); one instance of every template drawn in the canonical world, held to every static rule a
fixed verifier is held to (read-only SQL, known tools, stated values compared exactly, answer checks
shaped like the answer type); then the whole bundle is validated in the sandbox, ``awm validate
--seeds N`` with the adversarial audit. The fixed tasks (``tasks.jsonl``) are those canonical instances,
one per template, so the environment's fixed tasks and its distribution are judged by the same code.
After the last attempt, failing templates are dropped while enough of every kind remain.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from typing import Any

from pydantic import ValidationError

from awm.bundle.loader import dump_jsonl
from awm.bundle.records import Task, TaskKind, TaskVerifier, VerifierTemplate
from awm.gen.records import TemplatePair, TemplatesOut
from awm.gen.stages.base import Draft, Stage, StageEnv, scenario_block, seed_block, tools_block
from awm.gen.stages.schema import build_schema
from awm.gen.stages.tasks import answer_problems, instruction_problems
from awm.gen.stages.verifiers import _seed_values, verifier_problems
from awm.model.templates import Template, TemplateError, instantiate
from awm.model.world import stable_int
from awm.sql.diff import read_tables
from awm.sql.seeding import insert_seed

GENERAL = "(environment)"  # problems not tied to one template


def fixed_id(index: int, template_id: str) -> str:
    return f"t{index + 1:02d}_{template_id}"[:64]


class TemplatesStage(Stage[TemplatesOut]):
    name = "templates"
    output = TemplatesOut

    def __init__(self) -> None:
        self.last: dict[str, dict[str, list[str]]] = {}  # job key -> problems by template id

    def values(self, draft: Draft, env: StageEnv) -> dict[str, str]:
        lim = env.limits
        return {
            "scenario": scenario_block(draft),
            "schema": draft.schema_sql,
            "seed": seed_block(draft.seed, max_rows=4, max_chars=400),
            "tools": tools_block(draft.tool_specs),
            "tools_py": draft.tools_py,
            "world_py": draft.world_py,
            "n_templates": str(lim.templates),
            "min_per_kind": str(lim.min_per_kind),
        }

    async def check(self, out: TemplatesOut, draft: Draft, env: StageEnv) -> list[str]:
        found = await self._problems(out.templates, draft, env, final=False)
        self.last[draft.key] = found
        return [p for ps in found.values() for p in ps]

    async def _problems(
        self, pairs: list[TemplatePair], draft: Draft, env: StageEnv, *, final: bool
    ) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        lim = env.limits
        ids = [p.task.id for p in pairs]
        if dup := [i for i, c in Counter(ids).items() if c > 1]:
            found.setdefault(GENERAL, []).append(f"template ids must be unique; repeated: {dup}")
        if not final:
            kinds = Counter(p.task.kind for p in pairs)
            if len(pairs) < lim.min_templates:
                found.setdefault(GENERAL, []).append(
                    f"got {len(pairs)} templates; write {lim.templates} (at least {lim.min_templates})"
                )
            short = [f"{k.value} ({kinds[k]})" for k in TaskKind if kinds[k] < lim.min_per_kind]
            if short:
                found.setdefault(GENERAL, []).append(
                    f"write at least {lim.min_per_kind} templates of every kind; too few: {', '.join(short)}"
                )
        templates: list[Template] = []
        for pair in pairs:
            bad = found.setdefault(pair.task.id, [])
            bad += self._record_problems(pair)
            try:
                vt = VerifierTemplate.model_validate({**pair.verifier, "template_id": pair.task.id})
            except ValidationError as e:
                first = e.errors()[0]
                where = ".".join(str(x) for x in first["loc"])
                bad.append(f"template {pair.task.id}: verifier.{where}: {first['msg']}")
                continue
            templates.append(Template(pair.task, vt))
        if any(found.values()):
            return {k: v for k, v in found.items() if v}
        fixed = self._instances(templates, draft, found)
        if any(found.values()):
            return {k: v for k, v in found.items() if v}
        self._write(draft, templates, fixed)
        res = await env.sandbox.validate(
            draft.staging,
            draft.env_id,
            seeds=lim.validate_seeds,
            blind_seeds=lim.blind_seeds,
            cover_seeds=lim.cover_seeds,
            timeout=max(env.sandbox.timeout, 900.0),
        )
        ids_known = [t.id for t in templates]
        for p in res.problems:
            found.setdefault(template_of(p, ids_known), []).append(p)
        return {k: v for k, v in found.items() if v}

    def _record_problems(self, pair: TemplatePair) -> list[str]:
        t = pair.task
        where = f"template {t.id}"
        out = instruction_problems(t.instruction, where)
        if t.underspecified_instruction:
            out += instruction_problems(t.underspecified_instruction, f"{where} underspecified_instruction")
        if t.kind == TaskKind.information and t.answer is None:
            out.append(f'{where}: an information template declares the type of its answer ("answer": {{"type": ...}})')
        elif t.answer is not None and t.kind != TaskKind.information:
            out.append(f'{where}: only information templates have an "answer" type; a write is judged on the data')
        elif t.answer is not None:
            out += answer_problems(t.answer, f"{where} answer")
        if "slots" not in pair.verifier:
            out.append(f'{where}: the verifier needs "slots", a SELECT returning one row per possible instance')
        return out

    def _instances(
        self, templates: list[Template], draft: Draft, found: dict[str, list[str]]
    ) -> list[tuple[Task, TaskVerifier]]:
        """One instance of every template in the canonical world (a slot row chosen by the template's id),
        checked like a fixed task."""
        assert draft.seed is not None and draft.scenario is not None
        conn, problems = build_schema(draft.schema_sql)
        if conn is None:
            found.setdefault(GENERAL, []).extend(problems)
            return []
        fixed: list[tuple[Task, TaskVerifier]] = []
        try:
            tables = read_tables(conn)
            insert_seed(conn, draft.seed, tables, max_problems=5)
            conn.execute("ATTACH DATABASE ':memory:' AS initial")  # checks name initial.<table>
            for name in tables:
                conn.execute(f"CREATE TABLE initial.{name} AS SELECT * FROM main.{name}")
            specs = {t["name"]: t for t in draft.tool_specs}
            seed_values = _seed_values(draft)
            for i, t in enumerate(templates):
                bad = found.setdefault(t.id, [])
                try:  # a pick per template: the fixed tasks are about different people and records
                    inst = instantiate(conn, t, "c", stable_int("fixed", t.id), clock=draft.scenario.clock)
                except (TemplateError, ValidationError, sqlite3.Error) as e:
                    bad.append(f"template {t.id}: {_one_line(e)} (in the seed-0 world)")
                    continue
                fid = fixed_id(i, t.id)
                task = inst.task.model_copy(update={"id": fid, "template": None, "world": None, "difficulty": None})
                verifier = inst.verifier.model_copy(update={"task_id": fid})
                for p in verifier_problems(verifier, task, specs, tables, seed_values, conn):
                    bad.append(f"template {t.id} ({_instance_note(inst.slots)}): {p.removeprefix(f'task {fid}')}")
                fixed.append((task, verifier))
        finally:
            conn.close()
        return fixed

    def _write(self, draft: Draft, templates: list[Template], fixed: list[tuple[Task, TaskVerifier]]) -> None:
        draft.templates = templates
        draft.tasks = [t for t, _ in fixed]
        draft.verifiers = [v for _, v in fixed]
        draft.write_tasks()
        draft.write_verifiers()
        draft.write(
            "templates.jsonl",
            dump_jsonl([t.task.model_dump(mode="json", exclude_defaults=True) for t in templates]),
        )
        folder = draft.verifier_dir
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "templates.jsonl").write_text(
            dump_jsonl([t.verifier.model_dump(mode="json", exclude_defaults=True) for t in templates]),
            encoding="utf-8",
        )

    def apply(self, out: TemplatesOut, draft: Draft, env: StageEnv) -> None:
        self.last.pop(draft.key, None)

    async def salvage(self, out: TemplatesOut, problems: list[str], draft: Draft, env: StageEnv) -> bool:
        """Drop the templates that still fail, if enough of every kind remain."""
        found = self.last.pop(draft.key, None)
        if not found or GENERAL in found:
            return False
        keep = [p for p in out.templates if p.task.id not in found]
        lim = env.limits
        kinds = Counter(p.task.kind for p in keep)
        if len(keep) < lim.min_templates or any(kinds[k] < lim.min_per_kind for k in TaskKind):
            return False
        again = await self._problems(keep, draft, env, final=True)
        if again:
            return False
        draft.dropped_tasks = sorted(found)
        return True


def template_of(problem: str, ids: list[str]) -> str:
    """Which template a validation problem is about: a fixed task ``tNN_<id>``, an instance ``<id>.<world>.<row>``
    or ``template '<id>'``; the longest id named wins. ``GENERAL`` when none is."""
    best = GENERAL
    for tid in ids:
        named = re.search(rf"(?<![A-Za-z0-9_])(?:t\d\d_)?{re.escape(tid)}(?![A-Za-z0-9_])", problem)
        if named and (best == GENERAL or len(tid) > len(best)):
            best = tid
    return best


def _instance_note(slots: dict[str, Any]) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in list(slots.items())[:4] if k not in ("today", "now"))
    return f"canonical instance {text}" if len(text) <= 160 else f"canonical instance {text[:157]}..."


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:400]
