"""``awm export``: task datasets and trajectories as JSONL and Parquet, one type per column, replayable ids."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb
import gymnasium as gym
import pytest
from typer.testing import CliRunner

from awm.cli import app
from awm.data.export import SPLIT_WORLDS, TASK_COLUMNS, TRAJECTORY_COLUMNS, Split, read_metadata
from awm.gym import RecordTrajectory, register_all
from awm.model.distribution import TaskDistribution
from awm.model.registry import Registry
from tests.conftest import FIXTURE_ROOT

GYM_ID = "awm/mini_shop-v0"
TEMPLATES = 3
FIXED = 3


def export(*args: str | Path) -> Any:
    return CliRunner().invoke(app, ["export", "-p", str(FIXTURE_ROOT), "--envs", "mini_shop", *map(str, args)])


def _summary(output: str) -> tuple[int, int]:
    """(rows, skipped duplicates) from the command's summary line."""
    rows = re.search(r"(\d+) rows →", output)
    skipped = re.search(r"(\d+) duplicate draws skipped", output)
    assert rows, output
    return int(rows.group(1)), int(skipped.group(1)) if skipped else 0


def _describe(path: Path) -> list[tuple[str, str]]:
    """(column, type) in order, as DuckDB reads the Parquet file back (its quoting of keywords removed)."""
    rows = duckdb.sql(f"DESCRIBE SELECT * FROM read_parquet('{path}')").fetchall()
    return [(name, typ.replace('"', "")) for name, typ, *_ in rows]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One export of each kind, shared by the tests that only read them."""
    d = tmp_path_factory.mktemp("export")
    out: dict[str, Any] = {"dir": d}
    for name, fmt, extra in (
        ("random.jsonl", "jsonl", ["--per-template", "4", "--seed", "3"]),
        ("again.jsonl", "jsonl", ["--per-template", "4", "--seed", "3"]),
        ("random.parquet", "parquet", ["--per-template", "4", "--seed", "3"]),
        ("canonical.parquet", "parquet", ["--per-template", "6", "--world", "canonical"]),
    ):
        res = export("-o", d / name, "-f", fmt, *extra)
        assert res.exit_code == 0, res.output
        out[name] = (d / name, res.output)
    return out


def test_row_count_is_fixed_tasks_plus_instances_minus_duplicates(exported: dict[str, Any]) -> None:
    path, output = exported["random.jsonl"]
    rows, skipped = _summary(output)
    assert len(_jsonl(path)) == rows == FIXED + 4 * TEMPLATES - skipped
    assert "on 4 built worlds" in output
    path, output = exported["canonical.parquet"]
    rows, skipped = _summary(output)
    # the canonical world has 3 + 2 + 1 slot rows (cancel_order in two phrasings): duplicates are certain
    assert skipped > 0 and "duplicate draws skipped" in output
    assert duckdb.sql(f"SELECT COUNT(*) FROM read_parquet('{path}')").fetchall() == [(rows,)]
    assert rows == FIXED + 6 * TEMPLATES - skipped
    ids = [r[0] for r in duckdb.sql(f"SELECT task_id FROM read_parquet('{path}')").fetchall()]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("name", ["random.parquet", "canonical.parquet"])
def test_parquet_columns_have_the_stated_types(exported: dict[str, Any], name: str) -> None:
    path, _ = exported[name]
    assert _describe(path) == list(TASK_COLUMNS.items())


def test_jsonl_rows_have_exactly_the_columns_in_order(exported: dict[str, Any]) -> None:
    path, _ = exported["random.jsonl"]
    for row in _jsonl(path):
        assert list(row) == list(TASK_COLUMNS)


def test_the_same_seed_gives_the_same_bytes(exported: dict[str, Any], tmp_path: Path) -> None:
    a, _ = exported["random.jsonl"]
    b, _ = exported["again.jsonl"]
    assert a.read_bytes() == b.read_bytes()
    other = tmp_path / "other.jsonl"
    assert export("-o", other, "-f", "jsonl", "--per-template", "4", "--seed", "4").exit_code == 0
    assert other.read_bytes() != a.read_bytes()


def test_parquet_and_jsonl_hold_the_same_rows(exported: dict[str, Any]) -> None:
    path, _ = exported["random.parquet"]
    got = duckdb.sql(f"SELECT task_id, instruction, world_seed, steps FROM read_parquet('{path}')").fetchall()
    want = [(r["task_id"], r["instruction"], r["world_seed"], r["steps"]) for r in _jsonl(exported["random.jsonl"][0])]
    assert got == want


def test_rows_carry_prompt_tools_and_difficulty(exported: dict[str, Any]) -> None:
    rows = _jsonl(exported["random.jsonl"][0])
    for i, row in enumerate(rows):
        assert [m["role"] for m in row["prompt"]] == ["system", "user"]
        assert row["prompt"][1]["content"] == row["instruction"] and row["prompt"][0]["content"]
        tools = json.loads(row["tools"])
        names = [t["function"]["name"] for t in tools]
        assert "submit_answer" in names and "place_order" in names
        assert row["extra_info"] == {
            "env": "mini_shop",
            "task_id": row["task_id"],
            "world": row["world"],
            "template": row["template"],
            "split": "train",
            "index": i,
        }
        assert row["env_id"] == GYM_ID and row["env_class"] == "awm"
        if row["template"] is None:  # a fixed task, on the canonical world
            assert (row["world"], row["world_seed"], row["scale"]) == ("c", None, "canonical")
        else:
            assert row["world"] == f"s{row['world_seed']}" and row["scale"] == "small"
            assert row["task_id"].startswith(f"{row['template']}.{row['world']}.")
            assert row["underspecified"] == row["task_id"].endswith(".u")
        schema = row["answer_schema"]
        assert (schema is None) == (row["kind"] != "information")
        if schema is not None:
            assert json.loads(schema)["type"] == "number"
    assert {r["template"] for r in rows} == {None, "product_price", "cancel_order", "buy_two"}


def test_every_exported_task_replays(exported: dict[str, Any], mini_registry: Registry) -> None:
    register_all(Registry([FIXTURE_ROOT], include_default=False))
    dist = TaskDistribution("mini_shop", registry=mini_registry)
    env = gym.make(GYM_ID, world="random", tasks="templates")
    for row in _jsonl(exported["random.jsonl"][0]):
        world, ct = dist.resolve(row["task_id"])
        assert ct.id == row["task_id"] and ct.task.instruction == row["instruction"]
        assert world.key.label == row["world"]
        obs, info = env.reset(seed=0, options={"task_id": row["extra_info"]["task_id"]})
        assert obs == row["instruction"] and info["task_id"] == row["task_id"] and info["world"] == row["world"]
        assert json.loads(row["tools"]) == info["tools"]
    env.close()


def test_canonical_instances_replay(exported: dict[str, Any], mini_registry: Registry) -> None:
    path, _ = exported["canonical.parquet"]
    dist = TaskDistribution("mini_shop", registry=mini_registry)
    for task_id, instruction, world in duckdb.sql(
        f"SELECT task_id, instruction, world FROM read_parquet('{path}')"
    ).fetchall():
        assert world == "c"
        assert dist.resolve(task_id)[1].task.instruction == instruction


def test_a_template_whose_gold_does_not_score_stops_the_export(bundle_copy: Path, tmp_path: Path) -> None:
    path = bundle_copy / "verifiers/mini_shop/templates.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for r in rows:
        if r["template_id"] == "cancel_order":  # holds on the canonical world (2 customers) only
            r["checks"][0]["sql"] += " AND (SELECT COUNT(*) FROM customers) = 2"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "broken.jsonl"
    res = CliRunner().invoke(
        app, ["export", "-p", str(bundle_copy), "--envs", "mini_shop", "-o", str(out), "-f", "jsonl"]
    )
    assert res.exit_code == 2, res.output
    assert re.search(r"mini_shop cancel_order\.s\d+\.\d+(\.u)?: the gold solution does not score outcome 1", res.output)
    assert not out.exists() and not list(tmp_path.glob("*.part"))  # no partial dataset left behind


# -- splits ---------------------------------------------------------------------------------------
def _ids(path: Path) -> set[tuple[str, str, str]]:
    return {(r["env"], r["task_id"], r["world"]) for r in _jsonl(path)}


def test_splits_share_no_row_and_only_train_has_the_fixed_tasks(tmp_path: Path) -> None:
    paths = {}
    for split, extra in (("train", []), ("test", ["--start-world", "1000000"]), ("validation", [])):
        paths[split] = tmp_path / f"{split}.jsonl"
        res = export("-o", paths[split], "-f", "jsonl", "--per-template", "4", "--split", split, *extra)
        assert res.exit_code == 0, res.output
    ids = {split: _ids(path) for split, path in paths.items()}
    assert all(ids.values())
    assert (
        not ids["train"] & ids["test"] and not ids["train"] & ids["validation"] and not ids["test"] & ids["validation"]
    )
    for split, path in paths.items():
        rows = _jsonl(path)
        fixed = {r["task_id"] for r in rows if r["template"] is None}
        assert fixed == ({"t01_lamp_price", "t02_buy_lamp", "t03_cancel_alan"} if split == "train" else set())
        assert all(r["extra_info"]["split"] == split for r in rows)
        block = SPLIT_WORLDS[Split(split)]
        assert all(r["world_seed"] in block for r in rows if r["template"] is not None)


def test_the_summary_and_the_parquet_metadata_say_what_the_file_holds(tmp_path: Path) -> None:
    out = tmp_path / "test.parquet"
    res = export("-o", out, "--per-template", "2", "--split", "test")
    assert res.exit_code == 0, res.output
    rows, _ = _summary(res.output)
    text = " ".join(res.output.split())
    assert "split test (its world seeds: 1000000-1999999)" in text
    assert f"environments mini_shop {rows}" in text
    assert "fixed tasks no (the canonical world belongs to the train split)" in text
    assert f"template instances {rows} on 2 built worlds, seeds 1000000-1000001 (small)" in text
    meta = read_metadata(out)
    assert meta is not None
    assert {
        k: meta[k] for k in ("split", "envs", "fixed_tasks", "fixed_rows", "world_seeds", "template_instances")
    } == {
        "split": "test",
        "envs": {"mini_shop": rows},
        "fixed_tasks": False,
        "fixed_rows": 0,
        "world_seeds": [1_000_000, 1_000_001],
        "template_instances": rows,
    }
    assert meta["rows"] == rows == duckdb.sql(f"SELECT COUNT(*) FROM read_parquet('{out}')").fetchall()[0][0]
    res = export("-o", tmp_path / "train.jsonl", "-f", "jsonl", "--per-template", "1")
    assert "fixed tasks yes, 3 (canonical world)" in " ".join(res.output.split())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--split", "test", "--fixed"], "--split test with fixed tasks: they are on the canonical world"),
        (["--split", "test", "--world", "canonical"], "--split test on the canonical world: it belongs to the train"),
        (["--split", "test", "--start-world", "0"], "--start-world 0 is outside the test split's world seeds"),
        (["--start-world", "1000000"], "--start-world 1000000 is outside the train split's world seeds 0-999999"),
        (["--seed", "999999", "--per-template", "2"], "world seed 1000000 (--start-world 0, --seed 999999"),
        (["--split", "validation", "--num-worlds", "2", "--start-world", "2999999"], "world seed 3000000"),
    ],
)
def test_an_export_that_would_cross_splits_is_refused(tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "x.jsonl"
    res = export("-o", out, "-f", "jsonl", *args)
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split()) and not out.exists()


def test_an_unknown_env_is_an_error(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["export", "-p", str(FIXTURE_ROOT), "--envs", "nope", "-o", str(tmp_path / "x")])
    assert res.exit_code == 2 and "unknown environment 'nope'" in res.output


# -- trajectories ---------------------------------------------------------------------------------
def _act(tool: str, arguments: dict[str, Any]) -> str:
    return json.dumps({"tool": tool, "arguments": arguments})


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two recorded episodes: the gold solution of a template instance, and a failed fixed task."""
    register_all(Registry([FIXTURE_ROOT], include_default=False))
    path = tmp_path_factory.mktemp("traj") / "runs.jsonl"
    env = RecordTrajectory(gym.make(GYM_ID, world="random", tasks="templates", num_worlds=3), path, run_id="r1")
    env.reset(seed=5, options={"task_id": "buy_two.s1.0"})
    gold = env.unwrapped.episode.task.verifier.gold
    for call in gold.calls:
        env.step(_act(call.tool, call.arguments))
    _, reward, terminated, _, _ = env.step(json.dumps({"answer": gold.answer}))
    assert terminated and reward == 1.0
    env.reset(seed=6, options={"task_id": "t01_lamp_price"})
    env.step(_act("no_such_tool", {}))
    env.step(json.dumps({"answer": 1}))
    env.close()
    return path


def test_trajectories_export_to_parquet(trajectories: Path, tmp_path: Path) -> None:
    out = tmp_path / "traj.parquet"
    res = CliRunner().invoke(app, ["export", "--trajectories", str(trajectories), "-o", str(out)])
    assert res.exit_code == 0 and "2 trajectories" in res.output, res.output
    assert _describe(out) == list(TRAJECTORY_COLUMNS.items())
    got = duckdb.sql(
        f"SELECT run_id, task_id, outcome, num_steps, len(steps), steps[1].tool, steps[1].error_code, "
        f"steps[1].ok FROM read_parquet('{out}')"
    ).fetchall()
    assert got == [
        ("r1", "buy_two.s1.0", 1.0, 4, 4, "get_customer", None, True),
        ("r1", "t01_lamp_price", 0.0, 2, 2, "no_such_tool", "unknown_tool", False),
    ]
    steps = duckdb.sql(f"SELECT steps FROM read_parquet('{out}')").fetchall()[0][0]
    placed = steps[2]
    assert placed["tool"] == "place_order" and json.loads(placed["diff"])  # the diff is JSON text
    assert isinstance(json.loads(placed["reward_components"]), dict)
    action = json.loads(placed["action"])  # the action as the agent sent it
    assert action["tool"] == "place_order" and action["arguments"]["quantity"] == 2


def test_trajectories_export_to_jsonl(trajectories: Path, tmp_path: Path) -> None:
    out = tmp_path / "traj.jsonl"
    res = CliRunner().invoke(app, ["export", "--trajectories", str(trajectories), "-o", str(out), "-f", "jsonl"])
    assert res.exit_code == 0, res.output
    rows = _jsonl(out)
    assert [list(r) for r in rows] == [list(TRAJECTORY_COLUMNS)] * 2
    assert all(isinstance(s["diff"], str) for r in rows for s in r["steps"])


@pytest.mark.parametrize("bad", ['{"bad": 1}', "not json at all", '{"env_id": "x"'])
@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_malformed_trajectory_line_names_file_and_line(trajectories: Path, tmp_path: Path, bad: str, fmt: str):
    path = tmp_path / "mixed.jsonl"
    first = trajectories.read_text().splitlines()[0]
    path.write_text(f"{first}\n\n{bad}\n")
    out = tmp_path / f"out.{fmt}"
    res = CliRunner().invoke(app, ["export", "--trajectories", str(path), "-o", str(out), "-f", fmt])
    assert res.exit_code == 2, res.output
    assert f"{path}:3: not a trajectory record" in res.output and "Traceback" not in res.output
    assert not out.exists()


def test_datasets_loads_the_parquet(exported: dict[str, Any], tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    datasets = pytest.importorskip("datasets")
    path, _ = exported["random.parquet"]
    ds = datasets.load_dataset("parquet", data_files=str(path), split="train", cache_dir=str(tmp_path / "hf"))
    assert ds.num_rows == len(_jsonl(exported["random.jsonl"][0]))
    f = ds.features
    string = datasets.Value("string")
    assert f["prompt"] == datasets.List({"role": string, "content": string})
    assert (f["steps"], f["world_seed"], f["underspecified"], f["tools"]) == (
        datasets.Value("int32"),
        datasets.Value("int64"),
        datasets.Value("bool"),
        string,
    )
    assert f["extra_info"]["index"] == datasets.Value("int64") and f["extra_info"]["task_id"] == string
    row = ds[0]
    assert row["prompt"][1] == {"role": "user", "content": row["instruction"]}
    assert row["extra_info"]["task_id"] == row["task_id"]
