"""Hack resistance before and after the reward-integrity redesign, measured by the same audit.

"Before" replays the verifiers of an earlier revision (default: 524fb81, the last one with free-text
answer matching and table-level write sets) with that revision's judging rules: the old checks, the
old answer matcher (containment, up to 4 numbers, ``forbidden_sql``) on the answer as text, and the
old ``allowed_writes`` (table/column level). "After" is the current tree. Both are probed by
``awm.proof.audit`` with the current tasks' answer types, so the probes are the same kinds.

    .venv/bin/python benchmarks/audit_before_after.py [--rev 524fb81] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import awm.runtime.episode
from awm.judge.frame import Verdict
from awm.model.registry import Registry
from awm.proof.audit import audit_world
from awm.runtime.episode import Episode, Evaluation

ROOT = Path(__file__).resolve().parents[1]
ENVS = ["clinic", "online_store", "project_tracker"]


def _git_show(rev: str, path: str) -> str:
    return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def _old_matcher(rev: str) -> types.ModuleType:
    src = _git_show(rev, "awm/answers.py").replace(  # the old revision's path and import
        "from awm.bundle import AnswerMatch",
        "from enum import StrEnum\nclass AnswerMatch(StrEnum):\n"
        "    number = 'number'\n    text = 'text'\n    list = 'list'\n    date = 'date'\n    boolean = 'boolean'\n",
    )
    mod = types.ModuleType("old_answers")
    exec(compile(src, "old_answers.py", "exec"), mod.__dict__)  # our own earlier source, from git
    return mod


def _legacy_root(rev: str, tmp: Path) -> tuple[Path, dict[str, dict[str, dict[str, Any]]]]:
    """A root with today's worlds and the old verifiers (minus what today's records reject).

    Fixed tasks only: the old revision had no task templates, so the world's ``templates.jsonl`` (whose
    verifier half lives beside today's verifiers) is left out, and the before/after audits cover the same tasks.
    """
    legacy: dict[str, dict[str, dict[str, Any]]] = {}
    for env in ENVS:
        shutil.copytree(ROOT / "envs" / env, tmp / "envs" / env, ignore=shutil.ignore_patterns("templates.jsonl"))
        new = {json.loads(x)["task_id"]: json.loads(x) for x in (ROOT / f"verifiers/{env}/verifiers.jsonl").open()}
        out = []
        legacy[env] = {}
        for line in _git_show(rev, f"verifiers/{env}/verifiers.jsonl").splitlines():
            old = json.loads(line)
            cur = new[old["task_id"]]
            legacy[env][old["task_id"]] = {"answer": old.get("answer"), "allowed": old.get("allowed_writes", [])}
            out.append(
                {
                    "task_id": old["task_id"],
                    "checks": old.get("checks", []),
                    "answer": cur.get("answer"),  # today's typed check: only to shape the probes
                    "free_arguments": cur.get("free_arguments", []),
                    "gold": {"calls": old["gold"]["calls"], "answer": cur["gold"].get("answer")},
                }
            )
        (tmp / "verifiers" / env).mkdir(parents=True)
        (tmp / f"verifiers/{env}/verifiers.jsonl").write_text("".join(json.dumps(v) + "\n" for v in out))
    return tmp, legacy


def _as_text(answer: Any) -> str | None:
    if answer is None or isinstance(answer, str):
        return answer
    if isinstance(answer, list):
        return ", ".join(map(str, answer))
    if isinstance(answer, dict):
        return " ".join(map(str, answer.values()))
    return str(answer)


def _install_legacy_judging(old: types.ModuleType, legacy: dict[str, dict[str, dict[str, Any]]]) -> None:
    cache: dict[tuple[str, str], tuple[Any, ...]] = {}

    def expected(ep: Episode, spec: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        key = (ep.world.id, ep.task.id)
        if key not in cache:
            probe = ep.world.episode(ep.task.id)
            exp = tuple(r[0] for r in probe.query(spec["sql"]))
            bad = tuple(r[0] for r in probe.query(spec["forbidden_sql"])) if spec.get("forbidden_sql") else ()
            cache[key] = (exp, tuple(x for x in bad if x not in exp))
        return cache[key]  # type: ignore[return-value]

    def evaluate(self: Episode, answer: Any = None) -> Evaluation:
        spec = legacy[self.world.id][self.task.id]
        allowed = {w["table"]: (None if w.get("columns") is None else set(w["columns"])) for w in spec["allowed"]}
        bad = tuple(
            c
            for c in self.diff_from_initial().changes
            if c.table not in allowed
            or (allowed[c.table] is not None and (c.op != "update" or set(c.changed_columns) - allowed[c.table]))
        )
        ok, reason = None, ""
        if spec["answer"]:
            a = spec["answer"]
            exp, forbidden = expected(self, a)
            ok, reason = old.match_answer(_as_text(answer), exp, a["match"], a.get("tolerance", 0.01), forbidden)
        checks = dict(self._refresh_checks())
        passed = all(checks.values()) and ok is not False and not bad
        return Evaluation(checks, self._phi, ok, reason, Verdict(bad), passed)

    Episode.evaluate = evaluate  # type: ignore[method-assign]
    awm.runtime.episode.Episode.evaluate = evaluate  # type: ignore[method-assign]


def _summary(report: Any) -> dict[str, Any]:
    d = report.to_dict()
    return {k: d[k] for k in ("adversarial", "rejected", "spellings", "accepted", "score")} | {
        "leaking_tasks": len({p.task_id for p in report.failures if not p.expect_pass}),
        "tasks": len({p.task_id for p in report.probes}),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rev", default="524fb81")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    after = {env: _summary(audit_world(Registry().load(env))) for env in ENVS}
    with tempfile.TemporaryDirectory() as tmp:
        root, legacy = _legacy_root(args.rev, Path(tmp))
        _install_legacy_judging(_old_matcher(args.rev), legacy)
        reg = Registry([root], include_default=False)
        before = {env: _summary(audit_world(reg.load(env))) for env in ENVS}
    if args.json:
        print(json.dumps({"before": before, "after": after}, indent=2))
        return
    print(
        f"{'env':16} {'':7} {'adversarial':>11} {'rejected':>9} {'score':>7} {'leaking tasks':>14} {'spellings ok':>13}"
    )
    for env in ENVS:
        for label, s in (("before", before[env]), ("after", after[env])):
            print(
                f"{env:16} {label:7} {s['adversarial']:>11} {s['rejected']:>9} {s['score']:>7.1%} "
                f"{s['leaking_tasks']:>8}/{s['tasks']:<5} {s['accepted']:>6}/{s['spellings']:<6}"
            )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
