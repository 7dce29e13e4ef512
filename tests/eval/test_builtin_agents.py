"""The built-in agents over every registry environment, through the same harness code as a real model."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from awm.cli import app
from awm.eval import EvalConfig, NoopAgent, OracleAgent, RandomAgent, Status, plan, read_records, run_eval
from awm.eval.report import build_report
from awm.model.registry import default_registry


def all_tasks(envs: list[str] | None = None) -> int:
    reg = default_registry()
    return sum(len(reg.load(n).task_ids) for n in envs or reg.names())


# one environment of each class in the default run (hand-written, generated), the whole registry under -m slow
SCOPES = [
    pytest.param(["online_store", "marina"], id="representatives"),
    pytest.param(None, id="all", marks=pytest.mark.slow),
]


def envs_args(envs: list[str] | None) -> list[str]:
    return ["--envs", ",".join(envs) if envs else "all"]


@pytest.mark.parametrize("envs", SCOPES)
def test_oracle_scores_100_percent_on_every_environment(tmp_path: Path, envs: list[str] | None) -> None:
    res = CliRunner().invoke(app, ["eval", "--agent", "oracle", *envs_args(envs), "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    records = read_records(tmp_path / "results.jsonl")
    assert len(records) == all_tasks(envs) >= 3
    assert {r.env for r in records} == set(envs or default_registry().names())
    failed = [(r.env, r.task_id, r.status) for r in records if r.status != Status.passed]
    assert not failed
    report = build_report(tmp_path)
    assert report["overall"]["pass@1"] == 1.0
    assert all(e["pass@1"] == 1.0 and e["tool_error_rate"] == 0.0 for e in report["envs"])
    info = json.loads((tmp_path / "run.json").read_text())
    assert info["agent"] == "oracle" and info["episodes"] == len(records) and info["episodes_per_s"] > 0


@pytest.mark.parametrize("envs", SCOPES)
def test_noop_scores_0_percent_on_every_environment(tmp_path: Path, envs: list[str] | None) -> None:
    res = CliRunner().invoke(app, ["eval", "--agent", "noop", *envs_args(envs), "--out", str(tmp_path), "--k", "2"])
    assert res.exit_code == 0, res.output
    records = read_records(tmp_path / "results.jsonl")
    assert len(records) == 2 * all_tasks(envs)
    assert Counter(r.status for r in records) == {Status.failed: len(records)}
    assert all(len(r.trajectory.steps) == 1 and r.trajectory.outcome == 0.0 for r in records)
    report = build_report(tmp_path)
    assert report["k"] == 2 and report["overall"]["pass@1"] == 0.0 and report["overall"]["pass^2"] == 0.0


def test_random_agent_runs_and_is_reproducible(tmp_path: Path) -> None:
    def run(out: Path) -> list[tuple]:
        asyncio.run(run_eval(RandomAgent(), EvalConfig(out=out, concurrency=4)))
        return sorted(
            (r.env, r.task_id, r.status, [s.model_dump_json() for s in r.trajectory.steps])
            for r in read_records(out / "results.jsonl")
        )

    first, second = run(tmp_path / "a"), run(tmp_path / "b")
    assert first == second
    statuses = Counter(s for _, _, s, _ in first)
    assert set(statuses) <= {Status.failed, Status.truncated, Status.passed}
    assert statuses[Status.passed] < len(first) / 10
    assert build_report(tmp_path / "a")["overall"]["tool_error_rate"] > 0


def test_plan_seeds_and_task_subsets_are_stable() -> None:
    cfg = EvalConfig(out=Path("unused"), envs=["clinic", "online_store"], tasks=3, k=2, seed=7)
    jobs = plan(cfg)
    assert len(jobs) == 2 * 3 * 2
    assert jobs == plan(cfg)  # sha256-derived, not Python's salted hash
    assert len({j.seed for j in jobs}) == len(jobs)
    # the task subset does not depend on the run seed, so different runs compare the same tasks
    other = plan(EvalConfig(out=Path("unused"), envs=["clinic", "online_store"], tasks=3, k=1, seed=8))
    assert {(j.env, j.task_id) for j in other} == {(j.env, j.task_id) for j in jobs}
    assert {j.seed for j in other}.isdisjoint({j.seed for j in jobs})


def test_a_run_directory_belongs_to_one_agent(tmp_path: Path) -> None:
    asyncio.run(run_eval(NoopAgent(), EvalConfig(out=tmp_path, envs=["clinic"], tasks=1)))
    res = CliRunner().invoke(app, ["eval", "--agent", "oracle", "--envs", "clinic", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "--overwrite" in res.output  # a usage error
    res = CliRunner().invoke(
        app, ["eval", "--agent", "oracle", "--envs", "clinic", "--out", str(tmp_path), "--overwrite"]
    )
    assert res.exit_code == 0, res.output
    assert {r.status for r in read_records(tmp_path / "results.jsonl")} == {Status.passed}


def test_unknown_environment_and_bad_options_fail_cleanly(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["eval", "--agent", "oracle", "--envs", "nope", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "nope" in res.output  # a usage error
    assert CliRunner().invoke(app, ["eval", "--model", "m"]).exit_code == 2  # no --base-url
    assert CliRunner().invoke(app, ["eval", "--agent", "wizard"]).exit_code == 2
    assert CliRunner().invoke(app, ["report", str(tmp_path / "missing")]).exit_code == 2  # no such run directory


@pytest.mark.slow
def test_oracle_throughput(tmp_path: Path) -> None:
    result = asyncio.run(run_eval(OracleAgent(), EvalConfig(out=tmp_path, k=10, concurrency=32)))
    assert result.count(Status.passed) == 10 * all_tasks()
    print(f"oracle: {result.episodes_per_s:.0f} episodes/s")
