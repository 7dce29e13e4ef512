"""``awm eval --task-file``: every row of a dataset from ``awm export`` runs once, in its own environment
and world, even where two environments share a task id; a row that does not resolve is an error naming it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from awm.cli import app
from awm.data.export import TASK_COLUMNS, ExportFormat, ExportPlan, task_rows, write
from awm.eval import read_records
from awm.model.registry import Registry
from tests.conftest import FIXTURE_ROOT

ENVS = ("mini_shop", "mini_twin")


@pytest.fixture(scope="module")
def twin_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture root plus ``mini_twin``, a copy of ``mini_shop``: every task id is in both environments."""
    root = tmp_path_factory.mktemp("twin") / "root"
    shutil.copytree(FIXTURE_ROOT, root)
    shutil.copytree(root / "envs/mini_shop", root / "envs/mini_twin")
    shutil.copytree(root / "verifiers/mini_shop", root / "verifiers/mini_twin")
    manifest = root / "envs/mini_twin/env.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "id": "mini_twin"}))
    return root


def invoke(root: Path, *args: str | Path) -> Any:
    return CliRunner().invoke(app, [*map(str, args), "-p", str(root)], env={"COLUMNS": "200"})


def export(root: Path, path: Path, fmt: ExportFormat) -> Path:
    """Fixed tasks and template instances of both environments, as ``awm export`` writes them, less a few rows
    of each, so that the rows are not every task id in every environment."""
    plan = ExportPlan(ENVS, per_template=2, registry=Registry([root], include_default=False))
    dropped = {("mini_shop", "t03_cancel_alan"), ("mini_twin", "t02_buy_lamp")}
    rows = (
        r
        for r in task_rows(plan)
        if (r["env"], r["task_id"]) not in dropped and (r["env"], r["template"]) != ("mini_twin", "buy_two")
    )
    write(rows, path, fmt, TASK_COLUMNS)
    return path


@pytest.fixture(scope="module")
def task_file(twin_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export(twin_root, tmp_path_factory.mktemp("data") / "tasks.jsonl", ExportFormat.jsonl)


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_each_row_is_one_episode_in_its_own_environment(
    twin_root: Path, task_file: Path, tmp_path: Path, fmt: str
) -> None:
    rows = _rows(task_file)
    wanted = [(r["env"], r["task_id"]) for r in rows]
    shared = {t for e, t in wanted if e == "mini_shop"} & {t for e, t in wanted if e == "mini_twin"}
    assert "t01_lamp_price" in shared and "t02_buy_lamp" not in shared  # some ids in both environments, some not
    path = task_file if fmt == "jsonl" else export(twin_root, tmp_path / "tasks.parquet", ExportFormat.parquet)
    out = tmp_path / "run"
    res = invoke(twin_root, "eval", "--agent", "oracle", "--envs", ",".join(ENVS), "--task-file", path, "--out", out)
    assert res.exit_code == 0, res.output
    records = read_records(out / "results.jsonl")
    assert sorted((r.env, r.task_id) for r in records) == sorted(wanted)  # exactly one episode per row
    assert all(r.trajectory.env_id == f"awm/{r.env}-v0" for r in records)
    assert all(r.outcome == 1.0 for r in records)  # the oracle's gold solution, so each ran on the row's world


def test_envs_keeps_the_rows_of_those_environments(twin_root: Path, task_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = invoke(twin_root, "eval", "--agent", "oracle", "--envs", "mini_twin", "--task-file", task_file, "--out", out)
    assert res.exit_code == 0, res.output
    wanted = sorted((r["env"], r["task_id"]) for r in _rows(task_file) if r["env"] == "mini_twin")
    assert sorted((r.env, r.task_id) for r in read_records(out / "results.jsonl")) == wanted


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"env": "nope"}, "unknown environment 'nope' (task t01_lamp_price)"),
        ({"env": None, "extra_info": None}, "the row names no environment"),
        ({"task_id": "t99_nothing"}, "no task 't99_nothing' in mini_twin"),
        ({"world": "s5"}, "mini_twin t01_lamp_price is on world c, but the row says world 's5'"),
    ],
)
def test_a_row_that_does_not_resolve_is_an_error_naming_it(
    twin_root: Path, task_file: Path, tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    rows = _rows(task_file)
    row = next(r for r in rows if (r["env"], r["task_id"]) == ("mini_twin", "t01_lamp_price"))
    row.update(change)
    line = rows.index(row) + 1
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "run"
    res = invoke(twin_root, "eval", "--agent", "oracle", "--envs", ",".join(ENVS), "--task-file", path, "--out", out)
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert f"{path}:{line}: {message}" in text and "Traceback" not in text
    assert not (out / "results.jsonl").exists()


def test_an_instance_row_must_be_on_its_own_world(twin_root: Path, task_file: Path, tmp_path: Path) -> None:
    rows = _rows(task_file)
    n, row = next((n, r) for n, r in enumerate(rows, start=1) if r["template"] and r["env"] == "mini_shop")
    row["world"] = "s999"
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = invoke(
        twin_root, "eval", "--agent", "oracle", "--envs", ",".join(ENVS), "--task-file", path, "--out", tmp_path
    )
    assert res.exit_code == 2, res.output
    assert f"{path}:{n}: mini_shop {row['task_id']} is on world" in " ".join(res.output.split())
