"""``awm tasks`` (list, --sample) and ``awm validate --seeds`` on the fixture's templates and built worlds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from awm.cli import app
from awm.model.distribution import TaskDistribution
from awm.model.registry import Registry
from tests.conftest import FIXTURE_ROOT

WIDE = {"COLUMNS": "250"}


def invoke(*args: str | Path, root: Path = FIXTURE_ROOT) -> Any:
    return CliRunner().invoke(app, [*map(str, args), "-p", str(root)], env=WIDE)


def _rewrite_template(root: Path, template_id: str, change: Any) -> None:
    """Apply ``change`` to one verifier template of a bundle copy."""
    path = root / "verifiers/mini_shop/templates.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for r in rows:
        if r["template_id"] == template_id:
            change(r)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


# -- awm tasks ------------------------------------------------------------------------------------
def test_tasks_lists_tasks_and_templates() -> None:
    res = invoke("tasks", "mini_shop")
    assert res.exit_code == 0, res.output
    for name in ("t01_lamp_price", "t02_buy_lamp", "t03_cancel_alan", "product_price", "cancel_order", "buy_two"):
        assert name in res.output
    assert "Cancel order number {order_id}" in res.output  # a template shows its slots
    listed = [json.loads(line) for line in invoke("tasks", "mini_shop", "--json").output.splitlines()]
    assert [(r["id"], r["source"]) for r in listed] == [
        ("t01_lamp_price", "task"),
        ("t02_buy_lamp", "task"),
        ("t03_cancel_alan", "task"),
        ("product_price", "template"),
        ("cancel_order", "template"),
        ("buy_two", "template"),
    ]
    assert listed[4]["kind"] == "single_write" and listed[0]["kind"] == "information"


def test_sample_prints_instances_with_gold_deterministically(mini_registry: Registry) -> None:
    res = invoke("tasks", "mini_shop", "--sample", "3", "--seed", "7", "--json")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert len(lines) == 3
    assert invoke("tasks", "mini_shop", "--sample", "3", "--seed", "7", "--json").output == res.output
    records = [json.loads(line) for line in lines]
    assert [r["seed"] for r in records] == [7, 8, 9]
    dist = TaskDistribution("mini_shop", world="random", tasks="templates", registry=mini_registry)
    for r in records:
        assert r["gold"]["calls"] and all("tool" in c and "arguments" in c for c in r["gold"]["calls"])
        assert r["world"] == f"s{r['seed']}"  # by default a new built world per seed
        assert r["difficulty"]["steps"] == len(r["gold"]["calls"])
        world, ct = dist.draw(r["seed"])
        assert (r["task_id"], r["instruction"], r["world"]) == (ct.id, ct.task.instruction, world.key.label)
        assert r["gold"] == ct.verifier.gold.model_dump(mode="json")
    other = invoke("tasks", "mini_shop", "--sample", "3", "--seed", "8", "--json").output.splitlines()
    assert other[:2] == lines[1:]  # draw i uses seed + i


def test_sample_options() -> None:
    res = invoke(
        "tasks", "mini_shop", "-n", "4", "--json", "--num-worlds", "2", "--start-world", "10", "--underspecified"
    )
    assert res.exit_code == 0, res.output
    records = [json.loads(line) for line in res.output.splitlines()]
    assert {r["world"] for r in records} <= {"s10", "s11"}
    assert all(r["task_id"].endswith(".u") and r["difficulty"]["underspecified"] for r in records)
    fixed = [
        json.loads(line)
        for line in invoke("tasks", "mini_shop", "-n", "3", "--tasks", "fixed", "--json").output.splitlines()
    ]
    assert all(r["world"] == "c" and r["template"] is None and r["difficulty"] is None for r in fixed)
    only = invoke("tasks", "mini_shop", "-n", "5", "-t", "product_price", "--json").output.splitlines()
    assert all(json.loads(line)["answer_schema"]["type"] == "number" for line in only)


def test_sample_as_text_shows_the_gold_solution() -> None:
    res = invoke("tasks", "mini_shop", "--sample", "2", "--seed", "7", "-t", "product_price")
    assert res.exit_code == 0, res.output
    assert "product_price.s7." in res.output and "gold 1. search_products(" in res.output
    assert "gold answer: " in res.output and "small world" in res.output


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("tasks", "nope"), "unknown environment 'nope'"),
        (("tasks", "mini_shop", "-n", "1", "--world", "random", "--tasks", "fixed"), "needs tasks='templates'"),
        (("tasks", "mini_shop", "-n", "1", "-t", "nope"), "mini_shop has no templates ['nope']"),
    ],
)
def test_tasks_errors_are_one_line(args: tuple[str, ...], fragment: str) -> None:
    res = invoke(*args)
    assert res.exit_code == 2 and fragment in res.output and "Traceback" not in res.output


# -- awm validate --seeds -------------------------------------------------------------------------
def test_validate_with_seeds_passes_on_the_fixture() -> None:
    res = invoke("validate", "mini_shop", "--seeds", "3")
    assert res.exit_code == 0, res.output
    # canonical + 3 built worlds, each: 3 templates + the underspecified phrasing of cancel_order
    assert "mini_shop is valid" in res.output and "3 templates, 3 worlds, 16 instances" in res.output


def _fails_on_built_worlds(r: dict[str, Any]) -> None:
    """The check also asks for the canonical world's two customers: it can never hold on a built world."""
    r["checks"][0]["sql"] += " AND (SELECT COUNT(*) FROM customers) = 2"


def _gold_names_a_canonical_customer(r: dict[str, Any]) -> None:
    """A gold argument that exists only in the canonical world (built worlds have no ada@example.com)."""
    r["gold"]["calls"][0]["arguments"]["email"] = "ada@example.com"


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (_fails_on_built_worlds, "check 'cancelled' does not hold after the gold solution"),
        (_gold_names_a_canonical_customer, "gold call 0 (get_customer) fails"),
    ],
)
def test_a_template_broken_on_some_worlds_fails_validation(bundle_copy: Path, change: Any, fragment: str) -> None:
    _rewrite_template(bundle_copy, "cancel_order", change)
    assert invoke("validate", "mini_shop", "--no-audit", root=bundle_copy).exit_code == 0  # canonical world only
    res = invoke("validate", "mini_shop", "--seeds", "3", root=bundle_copy)
    assert res.exit_code == 1, res.output
    problems = [line for line in res.output.splitlines() if line.startswith("    - ")]
    for seed in range(3):
        line = next((p for p in problems if f"template cancel_order in world s{seed} (seed {seed})" in p), None)
        assert line is not None and fragment in line, res.output
    assert not any("in world c" in p or "product_price" in p or "buy_two" in p for p in problems), res.output


def test_validate_seeds_start_and_scale(bundle_copy: Path) -> None:
    _rewrite_template(bundle_copy, "cancel_order", _fails_on_built_worlds)
    res = invoke(
        "validate", "mini_shop", "--seeds", "2", "--start", "40", "--scale", "large", "--no-audit", root=bundle_copy
    )
    assert res.exit_code == 1
    assert "template cancel_order in world l40 (seed 40)" in res.output
    assert "template cancel_order in world l41 (seed 41)" in res.output


def test_validate_seeds_needs_a_builder(bundle_copy: Path) -> None:
    (bundle_copy / "envs/mini_shop/world.py").unlink()
    res = invoke("validate", "mini_shop", "--seeds", "2", "--no-audit", root=bundle_copy)
    assert res.exit_code == 1 and "--seeds needs a world builder (envs/mini_shop/world.py)" in res.output
