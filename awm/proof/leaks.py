"""Answers a policy can learn without looking: the best constant answer of each information template.

The audit judges each instance alone, so it cannot see a template whose answer is the same value on most
instances (``9`` working days on every draw, ``0`` rooms left on four in five). In RL that is the one leak
that pays: a policy learns to submit the constant without calling a tool. This check draws many instances
of every information template over many worlds, takes every value that is right on some instance (plus the
type's cheap guesses: 0, 1, yes, no) and judges it, unchanged, against every instance with the real judge.
The share of instances the best constant scores on must stay at or under ``LIMIT`` (for a boolean: the
answer space's own share, one half, plus ``LIMIT``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from awm.bundle.records import AnswerType, TaskKind
from awm.errors import AwmError
from awm.judge.answers import Expected, compute_expected, judge
from awm.model.templates import TemplateError, instantiate, slot_rows
from awm.model.world import World, stable_int
from awm.worldgen import Scale, WorldKey

LIMIT = 0.10  # the best blind constant may score on at most this share of instances
MIN_INSTANCES = 50  # fewer than this: too few to judge a 10% share (a note, not a failure; --seeds 20 draws 60-170)
PER_WORLD = 8  # instances drawn per template per world
_GUESSES: dict[AnswerType, tuple[Any, ...]] = {
    AnswerType.number: (0, 1, 2),
    AnswerType.boolean: (True, False),
}


@dataclass(frozen=True)
class BlindConstant:
    """The best constant answer of one template over its drawn instances."""

    template: str
    answer_type: AnswerType
    instances: int
    value: Any
    hits: int

    @property
    def share(self) -> float:
        return self.hits / self.instances if self.instances else 0.0

    @property
    def limit(self) -> float:
        return 0.5 + LIMIT if self.answer_type == AnswerType.boolean else LIMIT

    @property
    def judged(self) -> bool:
        return self.instances >= MIN_INSTANCES

    @property
    def ok(self) -> bool:
        return not self.judged or self.share <= self.limit

    def __str__(self) -> str:
        shown = json.dumps(self.value, default=str)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return (
            f"the constant answer {shown} scores on {self.hits} of {self.instances} "
            f"instances ({self.share:.0%}; limit {self.limit:.0%}) without a tool call"
        )


def blind_constants(
    world: World,
    seeds: Iterable[int],
    scale: Scale = Scale.small,
    distractors: bool = False,
    *,
    per_world: int = PER_WORLD,
) -> tuple[list[BlindConstant], list[str]]:
    """Every information template's best blind constant over the canonical world and the seeds' worlds,
    ``per_world`` instances (distinct slot rows) each; and the problems met drawing them."""
    drawn: dict[str, list[Expected]] = {}
    problems: list[str] = []
    info = [tid for tid, t in world.templates.items() if t.task.kind == TaskKind.information and t.task.answer]
    if not info:
        return [], []
    for seed in [None, *seeds]:
        key = WorldKey() if seed is None else WorldKey(seed, scale, distractors)
        try:
            w = world.variant(key)
        except AwmError as e:
            problems.append(f"world {key.label}: {e}")
            continue
        conn = w._initial_conn()
        try:
            for tid in info:
                t = w.templates[tid]
                try:
                    rows = slot_rows(conn, t, w.clock)
                except TemplateError as e:
                    problems.append(str(e))
                    continue
                n = len(rows[1])
                picks = sorted({stable_int("blind", tid, key.label, k) % n for k in range(per_world)}) if n else []
                for pick in picks:
                    try:
                        inst = instantiate(conn, t, key.label, pick, rows=rows, clock=w.clock)
                        assert inst.task.answer is not None and inst.verifier.answer is not None
                        exp = compute_expected(conn, inst.task.answer, inst.verifier.answer)
                    except AwmError as e:  # the per-instance checks of validate name these
                        problems.append(f"template {tid} in world {key.label}: {e}")
                        continue
                    except Exception as e:
                        problems.append(f"template {tid} in world {key.label}: {type(e).__name__}: {e}")
                        continue
                    drawn.setdefault(tid, []).append(exp)
        finally:
            conn.close()
    return [best_constant(tid, exps) for tid, exps in drawn.items()], problems


def best_constant(template: str, instances: list[Expected]) -> BlindConstant:
    """The constant that scores on the most instances, judged with the real judge."""
    t = instances[0].schema.type
    candidates: dict[str, Any] = {}
    for value in [*_GUESSES.get(t, ()), *(e.canonical() for e in instances)]:
        candidates.setdefault(json.dumps(value, sort_keys=True, default=str), value)
    best_value: Any = None
    best = -1
    for value in candidates.values():
        hits = sum(judge(value, e)[0] for e in instances)
        if hits > best:
            best_value, best = value, hits
    return BlindConstant(template, t, len(instances), best_value, max(best, 0))
