"""Report metrics on hand-made records with known answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from awm.eval.records import EvalRecord, InfraProblem, Status
from awm.eval.report import build_report, pass_at_k, pass_hat_k, to_markdown
from awm.gym.trajectory import StepRecord, TrajectoryRecord


def step(tool: str | None, ok: bool, **flags: object) -> StepRecord:
    comps = {"progress": flags.pop("progress", 0.0), **flags}
    return StepRecord(action="x", observation="{}", tool=tool, ok=ok, reward=0.0, reward_components=comps)


def record(task: str, trial: int, status: Status, steps: list[StepRecord], kind: str = "single_write") -> EvalRecord:
    traj = TrajectoryRecord(env_id="awm/e-v0", task_id=task, task_kind=kind, instruction="i", seed=trial, steps=steps)
    return EvalRecord(
        run_id="r",
        agent="a",
        env="e",
        task_id=task,
        trial=trial,
        seed=trial,
        status=status,
        outcome=None if status == Status.infra_error else float(status == Status.passed),
        error=InfraProblem(kind="llm_timeout", message="m") if status == Status.infra_error else None,
        trajectory=traj,
    )


def test_pass_estimators() -> None:
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_at_k(4, 2, 2) == pytest.approx(5 / 6)
    assert pass_hat_k(2, 2, 2) == 1.0 and pass_at_k(2, 0, 2) == 0.0
    assert pass_hat_k(1, 1, 2) is None


def test_report_on_known_records(tmp_path: Path) -> None:
    answer = step(None, True, progress=1.0)
    recs = [
        record("a", 0, Status.passed, [step("t", True), answer]),
        record("a", 1, Status.passed, [step("t", False, tool_error=True), answer]),
        record("b", 0, Status.passed, [step("t", False, unknown_tool=True), step("t", True), answer]),
        record("b", 1, Status.failed, [step(None, False, malformed=True), step(None, True, progress=0.5)]),
        record("c", 0, Status.infra_error, [step("t", True)]),  # never scored
        record("c", 1, Status.infra_error, []),
    ]
    # a retried infra error later scored: the scored line wins
    recs.append(record("c", 0, Status.truncated, [step("t", True), step("t", True)]))
    (tmp_path / "results.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in recs))
    rep = build_report(tmp_path, k=2)
    o = rep["overall"]
    assert rep["statuses"] == {"failed": 1, "infra_error": 1, "passed": 3, "truncated": 1}
    assert o["episodes"] == 5 and o["infra_errors"] == 1
    # tasks: a 2/2, b 1/2, c 0/1 -> pass@1 = (1 + .5 + 0) / 3; pass^2 over tasks with 2 scored trials
    assert o["pass@1"] == pytest.approx(0.5)
    assert o["pass^2"] == pytest.approx(0.5) and o["pass@2"] == pytest.approx(1.0)
    # actions before the answer: 1+1+2+1+2 = 7, of which 3 failed
    assert o["actions"] == 7 and o["tool_error_rate"] == pytest.approx(3 / 7)
    assert o["unknown_tool"] == pytest.approx(1 / 7) and o["malformed"] == pytest.approx(1 / 7)
    assert o["steps"] == pytest.approx((2 + 2 + 3 + 2 + 2) / 5)
    assert o["progress"] == pytest.approx((1 + 1 + 1 + 0.5 + 0) / 5)
    assert "| e |" in to_markdown(rep)
