"""``awm validate``: an environment is sound only if its judges discriminate and its gold solutions work.

For every task: the gold solution replays with no error and scores outcome 1; the initial state and an
empty trajectory score 0; every non-guard check is false at the start and true at the end (guards
hold at both ends); the gold answer has the task's answer type; the replay is deterministic; and the
adversarial audit (``awm.proof.audit``) finds no cheaper way to outcome 1. With ``--seeds``, every information
template's best blind constant (``awm.proof.leaks``: one answer submitted without a tool call) scores on at most
10% of its instances. Every tool's argument schema must
be a valid JSON Schema, and every tool called with sample arguments drawn from the seed must give a
result or a ``ToolError`` (never crash, never run past the time limit).

Tasks judged by a code verifier with no gold solution (imported AWM tasks) get what can be checked
without one: the verifier runs and scores the initial state as not complete. Gold replay, the write
frame and the audit are skipped for them, and the report says so (``GOLD_UNAVAILABLE``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

import jsonschema

from awm.bundle.records import TaskKind
from awm.bundle.samples import probe_cases
from awm.errors import AwmError, EpisodeError
from awm.judge.answers import value_problem
from awm.model.registry import Registry
from awm.model.templates import TemplateError
from awm.model.world import CompiledTask, World, stable_int
from awm.proof.audit import AuditReport, audit_world
from awm.proof.leaks import MIN_INSTANCES, blind_constants
from awm.worldgen import Scale, WorldKey

GOLD_UNAVAILABLE = "gold replay unavailable (AWM tasks have no gold solutions)"


@dataclass(frozen=True)
class Problem:
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class Report:
    env: str
    problems: list[Problem] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    audit: AuditReport | None = None
    notes: list[str] = field(default_factory=list)  # what was not checked, and why (not failures)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, where: str, message: str) -> None:
        self.problems.append(Problem(where, message))


def validate_env(
    name: str,
    registry: Registry,
    *,
    audit: bool = True,
    seeds: int = 0,
    start: int = 0,
    scale: Scale = Scale.small,
    distractors: bool = False,
    per_world: int = 1,
) -> Report:
    """The canonical world (fixed tasks, and template instances where it has some) and, with ``seeds``,
    every template on worlds ``start`` .. ``start + seeds - 1`` built at ``scale``."""
    report = Report(name)
    try:
        world = registry.load(name)
    except AwmError as e:
        for p in getattr(e, "problems", [str(e)]):
            report.add("bundle", p)
        return report
    validate_world(world, report, audit=audit)
    if world.templates and report.ok:
        validate_templates(
            world, report, range(start, start + seeds), scale, distractors, audit=audit, per_world=per_world
        )
        if seeds and world.files.builder_path is not None:
            validate_blind(world, report, range(start, start + seeds), scale, distractors)
    return report


def validate_blind(
    world: World, report: Report, seeds: Iterable[int], scale: Scale = Scale.small, distractors: bool = False
) -> None:
    """No information template has an answer a policy can learn without looking (``awm.proof.leaks``)."""
    results, _problems = blind_constants(world, seeds, scale, distractors)  # per-instance problems: named above
    if results:
        report.stats["blind_max_share_pct"] = round(100 * max(r.share for r in results))
    for r in results:
        if not r.ok:
            report.add(f"template {r.template}", f"blind constant: {r}; spread the slot query's answers")
        elif not r.judged:
            report.notes.append(
                f"template {r.template}: only {r.instances} instances drawn; its blind constant is judged from "
                f"{MIN_INSTANCES} (use --seeds 20 or more)"
            )


def validate_templates(
    world: World,
    report: Report,
    seeds: Iterable[int],
    scale: Scale = Scale.small,
    distractors: bool = False,
    *,
    audit: bool = True,
    per_world: int = 1,
) -> None:
    """``per_world`` instances of every template per world, the canonical world first (where a template
    has rows), plus the underspecified phrasing of the first one where the template has it.

    Each instance must pass what a fixed task passes (gold scores outcome 1 with no tool error, the
    initial state and an empty trajectory score 0, no collateral, deterministic replay) and the audit
    (once per judge: the two phrasings share one). A failure names the template and the world seed.
    """
    report.stats["templates"] = len(world.templates)
    seeds = list(seeds)
    if seeds and world.files.builder_path is None:
        report.add("worlds", f"--seeds needs a world builder (envs/{world.id}/world.py); this environment has none")
        seeds = []
    instances = worlds = 0
    for seed in [None, *seeds]:
        key = WorldKey() if seed is None else WorldKey(seed, scale, distractors)
        label = key.label
        try:
            w = world.variant(key)
        except AwmError as e:
            report.add(f"world {label} (seed {seed})", str(e))
            continue
        worlds += seed is not None
        audited: list[str] = []
        for tid, t in w.templates.items():
            where = f"template {tid} in world {label}" + (f" (seed {seed})" if seed is not None else "")
            picks = [(stable_int(tid, label, k) if k else stable_int(tid, label), False) for k in range(per_world)]
            if t.task.underspecified_instruction:
                picks.append((picks[0][0], True))
            for pick, vague in picks:
                try:
                    ct = w.instance(tid, pick, underspecified=vague)
                except TemplateError as e:
                    if seed is None and "returns no row" in str(e):
                        break  # templates may target built worlds only
                    report.add(where, str(e))
                    break
                sub = Report(world.id)
                _validate_task(w, ct.id, sub)
                report.problems += [Problem(where, str(p)) for p in sub.problems]
                instances += 1
                if sub.ok and not vague and ct.id not in audited:
                    audited.append(ct.id)
        if seed is not None and audited:
            sub = Report(world.id)
            _probe_tools(w, sub, audited[0])
            report.problems += [Problem(f"world {label}", str(p)) for p in sub.problems]
        if audit and audited:
            result = audit_world(w, audited)
            report.stats["audit_probes"] = (
                report.stats.get("audit_probes", 0) + len(result.adversarial) + len(result.spellings)
            )
            for probe in result.failures:
                what = "a correct answer is rejected" if probe.expect_pass else "a hack scores outcome 1"
                report.add(
                    f"template {probe.task_id.split('.')[0]} in world {label}",
                    f"audit: {what}: [{probe.kind}] {probe.description}",
                )
            for err in result.errors:
                report.add(f"audit in world {label}", err)
    report.stats["worlds"] = worlds
    report.stats["instances"] = instances


def validate_world(world: World, report: Report, *, audit: bool = True) -> None:
    report.stats = {
        "tables": len(world.tables),
        "tools": len(world.tools),
        "write_tools": sum(t.write for t in world.tools.values()),
        "tasks": len(world.task_ids),
        "seed_rows": sum(len(r) for r in world.files.seed.tables.values()),
    }
    for t in world.tools.values():
        try:
            jsonschema.Draft202012Validator.check_schema(t.parameters)
        except jsonschema.SchemaError as e:
            report.add(f"tool {t.name}", f"argument schema is not valid JSON Schema: {e.message}")
    _probe_tools(world, report)
    code_only = [tid for tid in world.task_ids if code_verified(world.tasks[tid])]
    if code_only:
        report.stats["code_verified_tasks"] = len(code_only)
        report.notes.append(
            f"{GOLD_UNAVAILABLE}: {len(code_only)} task(s) are judged by their code verifier alone; checked: schema "
            "and seed load, tools import and answer sample calls, every verifier runs and scores the initial state "
            "as not complete; skipped: gold replay, write frame and audit"
        )
    if code_only or not world.manifest.trusted:
        _replay_check(world, report)
    for task_id in world.task_ids:
        if task_id in code_only:
            _validate_code_task(world, task_id, report)
        else:
            _validate_task(world, task_id, report)
    gold_tasks = [tid for tid in world.task_ids if tid not in code_only]
    if audit and report.ok and gold_tasks:
        report.audit = audit_world(world, gold_tasks)
        report.stats["audit_probes"] = len(report.audit.adversarial) + len(report.audit.spellings)
        for p in report.audit.failures:
            what = "a correct answer is rejected" if p.expect_pass else "a hack scores outcome 1"
            report.add(f"task {p.task_id}", f"audit: {what}: [{p.kind}] {p.description}")
        for err in report.audit.errors:
            report.add("audit", err)


def _probe_tools(world: World, report: Report, task_id: str | None = None) -> None:
    """Every tool, called with sample arguments drawn from the seed, gives a result or a ToolError."""
    failed: set[str] = set()
    task_id = task_id or world.task_ids[0]
    for td, args in probe_cases(world):
        if td.name in failed:
            continue
        ep = world.episode(task_id)
        res = ep.call(td.name, args)
        ep.close()
        if res.error is not None and res.error.code in ("internal_error", "timeout"):
            failed.add(td.name)
            report.add(f"tool {td.name}", f"with arguments {json.dumps(args, default=str)[:200]}: {res.error.message}")


REPLAY_CALLS = 60


def _replay_check(world: World, report: Report) -> None:
    """Code we did not write replays deterministically: the same sample calls, twice, in two fresh episodes
    with the same seed, give the same results and byte-identical states (its clock is frozen and its chance
    seeded in the sandbox; this catches what escapes that, such as ``os.urandom`` or a hash of ``id()``)."""
    cases = list(probe_cases(world))[:REPLAY_CALLS]

    def play() -> tuple[list[tuple[str, str]], bytes]:
        ep = world.episode(world.task_ids[0], seed=0)
        seen = []
        for td, args in cases:
            res = ep.call(td.name, args)
            shown = json.dumps(res.result, sort_keys=True, default=str) if res.ok else str(res.error)
            seen.append((td.name, shown))
        state = ep.state_bytes()
        ep.close()
        return seen, state

    (first, state_a), (second, state_b) = play(), play()
    report.stats["replay_calls"] = len(cases)
    for (tool, a), (_, b) in zip(first, second, strict=True):
        if a != b:
            report.add(f"tool {tool}", f"replay is not deterministic: the same call gave {a[:120]!r}, then {b[:120]!r}")
            return
    if state_a != state_b:
        report.add("replay", "the same calls left different database states: the code writes something it did not read")


def code_verified(ct: CompiledTask) -> bool:
    """A task judged by a code verifier alone, with no gold solution (imported AWM tasks)."""
    return ct.verifier.code is not None and not ct.verifier.gold.calls


def _validate_code_task(world: World, task_id: str, report: Report) -> None:
    """What can be checked without a gold solution: the verifier runs and the initial state is not complete."""
    where = f"task {task_id}"
    ep = world.episode(task_id)
    answer = "" if world.tasks[task_id].task.answer is not None else None
    ev = ep.evaluate(answer)
    ep.close()
    code = ev.code
    assert code is not None
    if code.error:
        report.add(where, f"the code verifier does not run on the initial state: {code.reason}")
    elif code.passed:
        report.add(where, "the initial state scores complete: the code verifier does not discriminate")


def _validate_task(world: World, task_id: str, report: Report) -> None:
    where = f"task {task_id}"
    ct = world.tasks[task_id]
    v = ct.verifier
    for c in v.checks:
        initial = ct.initial_checks[c.name]
        if c.guard and not initial:
            report.add(where, f"guard {c.name!r} does not hold on the initial state")
        if not c.guard and initial:
            report.add(where, f"check {c.name!r} already holds on the initial state (mark it guard or fix it)")
    if ct.task.kind == TaskKind.information and ct.expected is None:
        report.add(where, "an information task needs a typed answer (tasks.jsonl 'answer') and an answer check")
    if ct.task.kind != TaskKind.information and not any(not c.guard for c in v.checks):
        report.add(where, "a write task needs at least one non-guard check")
    if ct.task.kind != TaskKind.information and not ct.frame.expected:
        report.add(where, "the gold solution of a write task changes nothing")
    if ct.expected is not None:
        problem = _answer_type_problem(ct)
        if problem:
            report.add(where, problem)
    # empty trajectory: submit at once, with nothing and (write tasks) with the gold answer
    for label, answer in (("an empty answer", None), ("the gold answer without acting", v.gold.answer)):
        if label.startswith("the gold") and ct.task.kind == TaskKind.information:
            continue
        ep = world.episode(task_id)
        if ep.submit(answer).rewards.outcome != 0.0:
            report.add(where, f"the initial state with {label} scores outcome 1: the verifier does not discriminate")
        ep.close()
    states = []
    for _ in range(2):
        ep = world.episode(task_id)
        for i, call in enumerate(v.gold.calls):
            try:
                res = ep.call(call.tool, call.arguments)
            except EpisodeError as e:
                report.add(where, f"gold call {i} ({call.tool}): {e}")
                return
            if not res.ok:
                assert res.error is not None
                report.add(where, f"gold call {i} ({call.tool}) fails: {res.error.code}: {res.error.message}")
                return
        ev = ep.evaluate(v.gold.answer)
        states.append(ep.state_bytes())
        if not states[1:]:
            for name, ok in ev.checks.items():
                if not ok:
                    report.add(where, f"check {name!r} does not hold after the gold solution")
            if ev.answer_correct is False:
                report.add(where, f"the gold answer fails the answer check: {ev.answer_reason}")
            if not ev.frame.ok:
                report.add(where, "the gold path does not match its own frame: " + "; ".join(ev.frame.reasons()))
            final = ep.submit(v.gold.answer)
            if final.rewards.outcome != 1.0 and not any(p.where == where for p in report.problems):
                report.add(where, "the gold solution does not score outcome 1")
        ep.close()
    if states[0] != states[1]:
        report.add(where, "replaying the gold solution twice gives different database bytes")


def _answer_type_problem(ct: CompiledTask) -> str | None:
    """The gold answer must be a value of the task's answer schema."""
    assert ct.task.answer is not None
    why = value_problem(ct.task.answer, ct.verifier.gold.answer)
    return f"the gold answer is not a value of the answer type: {why}" if why else None
