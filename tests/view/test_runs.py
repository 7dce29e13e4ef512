"""Reading runs: the paths a user gives (a run directory, a folder of them, a results file, a trajectory
file), unique ids, unreadable lines reported by file and line without losing the rest, re-reading a run
that grows, and the last line of an episode winning as in ``awm eval``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from awm.view.errors import RunPathError, UnknownEpisodeError
from awm.view.runs import discover, env_of, read_episodes
from tests.view.conftest import TASKS, Runs


def test_every_kind_of_path_is_a_run(runs: Runs, tmp_path: Path) -> None:
    folder = tmp_path / "all"
    folder.mkdir()
    shutil.copytree(runs.oracle, folder / "oracle")
    shutil.copytree(runs.random, folder / "random")
    sources = discover([folder, runs.trajectories, runs.oracle / "results.jsonl", runs.oracle])
    assert [s.id for s in sources] == ["oracle", "random", "manual", "oracle-2"]  # the same file twice: once
    assert [s.kind for s in sources] == ["eval", "eval", "trajectories", "eval"]


@pytest.mark.parametrize("bad", ["missing", "empty_dir", "notes.txt"])
def test_a_path_that_is_no_run_is_an_error(tmp_path: Path, bad: str) -> None:
    (tmp_path / "empty_dir").mkdir()
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(RunPathError, match=bad):
        discover([tmp_path / bad])


def test_eval_run(runs: Runs) -> None:
    run = discover([runs.random])[0].load()
    assert run.kind == "eval" and run.info["agent"] == "random" and not run.problems
    assert {e.task_id for e in run.episodes} == set(TASKS)
    assert run.counts() == {"passed": 0, "failed": 8, "truncated": 0, "infra_error": 0}
    summary = run.summary()
    assert summary["label"] == "random" and summary["pass_rate"] == 0.0 and summary["tasks"] == 4
    assert run.episode("mini_shop", "cancel_order.s3.0", 1).trial == 1
    with pytest.raises(UnknownEpisodeError, match="no episode"):
        run.episode("mini_shop", "t01_lamp_price", 7)


def test_unreadable_lines_are_reported_and_the_rest_kept(runs: Runs) -> None:
    episodes, problems = read_episodes(runs.trajectories)
    assert [(e.task_id, e.status, e.line) for e in episodes] == [
        ("t03_cancel_alan", "failed", 1),
        ("cancel_order.s3.0", "truncated", 2),
    ]
    assert len(problems) == 1
    p = problems[0]
    assert p.file == str(runs.trajectories) and p.line == 3 and "steps" in p.message


def test_garbage_and_partial_lines(tmp_path: Path, runs: Runs) -> None:
    good = (runs.oracle / "results.jsonl").read_text().splitlines()
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(["not json", "[1, 2]", good[0], good[1][:50], ""]) + "\n")
    episodes, problems = read_episodes(path)
    assert len(episodes) == 1
    assert [p.line for p in problems] == [1, 2, 4]
    assert "JSON object" in problems[1].message


def test_a_growing_run_is_read_again_and_the_last_line_wins(tmp_path: Path, runs: Runs) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(runs.oracle, run_dir)
    src = discover([run_dir])[0]
    first = src.load()
    assert src.load() is first  # unchanged file: not read again
    results = run_dir / "results.jsonl"
    line = results.read_text().splitlines()[0].replace('"status":"passed"', '"status":"failed"')
    with results.open("a") as f:
        f.write(line + "\n")
    again = src.load()
    assert again is not first and len(again.episodes) == len(first.episodes)
    assert again.counts()["failed"] == 1


def test_env_of() -> None:
    assert env_of("awm/online_store-v0") == "online_store"
    assert env_of("awm/my-env-v12") == "my-env"
    assert env_of("mini_shop") == "mini_shop"
