"""Correct work accepted and qualified answers refused: the judge before and after the allow-list matcher.

For every information task of the chosen environments (fixed tasks, and one instance of every
information template on the canonical world and on built worlds 0..SEEDS-1), the same answers are judged
by the matcher of an earlier revision (default 466518b, the deny-list matcher) and by the current one:

- correct variants (``awm.proof.variants.answer_variants``: typed values, sentences, units, number words, US
  dates, bullets, objects as text) — the share accepted;
- qualified and negated answers (the audit's ``answer.qualified`` probes plus ``not v`` and ``v or w``)
  — the share refused.

For write tasks it replays the false-negative suite's write variants (stated values in other case or
punctuation) with the current judge and with the earlier one's text normalisation and no respelling
of checks — the share that scores 1.

    .venv/bin/python benchmarks/judge_fidelity.py [--rev 466518b] [--seeds 3] [ENV ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import types
import unicodedata
from pathlib import Path
from typing import Any

import awm.judge.frame
import awm.runtime.episode
from awm.judge import verify
from awm.judge.answers import Expected, judge
from awm.model.registry import default_registry
from awm.model.templates import TemplateError
from awm.model.world import CompiledTask, World
from awm.proof.audit import _Player, _qualified
from awm.proof.variants import answer_variants, write_variants
from awm.worldgen import WorldKey

ROOT = Path(__file__).resolve().parents[1]


def old_matcher(rev: str) -> types.ModuleType:
    src = subprocess.run(
        ["git", "show", f"{rev}:awm/judge/answers.py"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    mod = types.ModuleType("old_answers")
    sys.modules["old_answers"] = mod  # dataclasses resolve annotations through sys.modules
    exec(compile(src, f"{rev}:awm/judge/answers.py", "exec"), mod.__dict__)
    return mod


def to_old(old: types.ModuleType, exp: Expected) -> Any:
    fields = {k: to_old(old, f) for k, f in exp.fields.items()} if exp.fields is not None else None
    return old.Expected(exp.schema, exp.items, fields, exp.tolerance)


def information_tasks(world: World, seeds: int) -> list[CompiledTask]:
    out = [world.tasks[t] for t in world.task_ids if world.tasks[t].expected is not None]
    for seed in [None, *range(seeds)]:
        w = world if seed is None else world.variant(WorldKey(seed))
        for tid, t in w.templates.items():
            if t.task.answer is None:
                continue
            try:
                out.append(w.instance(tid, seed or 0))
            except TemplateError:
                continue
    return out


def _old_norm(v: Any) -> str:
    s = unicodedata.normalize("NFKC", str(v)).casefold()
    return " ".join(s.split()).rstrip(".!;,").strip()


def write_acceptance(world: World) -> tuple[int, int, int]:
    """(variants, accepted now, accepted with the earlier normalisation and no check respelling)."""
    total = now = before = 0
    for tid in world.task_ids:
        ct = world.tasks[tid]
        if ct.expected is not None or not ct.verifier.gold.calls:
            continue
        player = _Player(world, ct)
        for calls, _how in write_variants(world, ct, player.gold):
            got = player.play_strict(calls, None)
            if got is None:
                continue
            total += 1
            now += got
            saved = awm.judge.frame.text_key, verify.run_checks_respelled
            awm.judge.frame.text_key = _old_norm
            awm.runtime.episode.verify.run_checks_respelled = lambda conn, checks, _r: verify.run_checks(conn, checks)
            try:
                before += bool(player.play_strict(calls, None))
            finally:
                awm.judge.frame.text_key, awm.runtime.episode.verify.run_checks_respelled = saved
    return total, now, before


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("envs", nargs="*")
    ap.add_argument("--rev", default="466518b")
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    reg = default_registry()
    old = old_matcher(args.rev)
    names = args.envs or reg.names()
    rows = []
    sums = [0] * 9
    for name in names:
        world = reg.load(name)
        c_n = c_now = c_old = q_n = q_now = q_old = 0
        for ct in information_tasks(world, args.seeds):
            exp = ct.expected
            assert exp is not None
            oexp = to_old(old, exp)
            for answer, _how in answer_variants(exp):
                c_n += 1
                c_now += judge(answer, exp)[0]
                c_old += bool(old.judge(answer, oexp)[0])
            canon = exp.canonical()
            text = str(canon) if not isinstance(canon, (list, dict, bool)) else None
            if text is None:
                continue
            if isinstance(canon, float) and canon.is_integer():
                text = str(int(canon))
            for bad in [*_qualified(exp, text), f"not {text}", f"{text} or something else"]:
                q_n += 1
                q_now += not judge(bad, exp)[0]
                q_old += not old.judge(bad, oexp)[0]
        w_n, w_now, w_old = write_acceptance(world)
        vals = [c_n, c_old, c_now, q_n, q_old, q_now, w_n, w_old, w_now]
        sums = [a + b for a, b in zip(sums, vals, strict=True)]
        rows.append((name, *vals))
        print(
            f"{name}: correct {c_old}/{c_n} -> {c_now}/{c_n}; qualified refused {q_old}/{q_n} -> {q_now}/{q_n}; "
            f"writes {w_old}/{w_n} -> {w_now}/{w_n}",
            file=sys.stderr,
            flush=True,
        )

    def pct(a: int, n: int) -> str:
        return f"{a / n:.1%}" if n else "—"

    print("| env | correct answers accepted (before → after) | qualified answers refused | correct writes accepted |")
    print("|---|---|---|---|")
    for name, c_n, c_old, c_now, q_n, q_old, q_now, w_n, w_old, w_now in [*rows, ("**all**", *sums)]:
        print(
            f"| {name} | {pct(c_old, c_n)} → {pct(c_now, c_n)} ({c_n}) | {pct(q_old, q_n)} → {pct(q_now, q_n)} ({q_n})"
            f" | {pct(w_old, w_n)} → {pct(w_now, w_n)} ({w_n}) |"
        )


if __name__ == "__main__":
    main()
