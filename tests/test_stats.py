"""``awm stats``: the catalog's figures agree with the compiled worlds; a broken bundle is named, exit 1."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from awm.cli import app
from awm.model.registry import Registry
from awm.proof.stats import CatalogTargets, catalog_stats, check_targets, p90
from tests.conftest import FIXTURE_ROOT


def test_figures_match_the_worlds() -> None:
    reg = Registry([FIXTURE_ROOT], include_default=False)
    out = catalog_stats(reg)
    (e,) = out["environments"]
    w = reg.load("mini_shop")
    assert (
        (e["tables"], e["tools"], e["tasks"], e["templates"])
        == (4, 5, 3, 3)
        == (
            len(w.tables),
            len(w.tools),
            len(w.task_ids),
            len(w.templates),
        )
    )
    assert e["information"] + e["single_write"] + e["multi_step"] == e["tasks"]
    assert e["world_builder"] is True and out["with_world_builder"] == 1
    assert out["summary"]["tools"] == {"mean": 5.0, "median": 5.0, "p90": 5.0, "total": 5.0}


def test_p90_interpolates() -> None:
    assert p90([7]) == 7
    assert p90(list(range(1, 11))) == 9.1


def test_cli_json_and_a_broken_bundle(bundle_copy: Path) -> None:
    res = CliRunner().invoke(app, ["stats", "--json", "-p", str(FIXTURE_ROOT)])
    assert res.exit_code == 0, res.output
    names = {e["env"] for e in json.loads(res.output)["environments"]}
    assert {"mini_shop", "online_store", "clinic", "project_tracker"} <= names
    (bundle_copy / "envs/mini_shop/schema.sql").write_text("CREATE TABLE nope (")
    res = CliRunner().invoke(app, ["stats", "mini_shop", "-p", str(bundle_copy)])
    assert res.exit_code == 1 and "mini_shop" in res.output and "schema.sql" in res.output


def test_targets_name_what_falls_short() -> None:
    # mini_shop: 4 tables, 5 tools, 3 tasks (no multi-step one)
    out = catalog_stats(Registry([FIXTURE_ROOT], include_default=False))
    results = {r.target: r for r in check_targets(out)}
    assert not results["environments"].ok and results["environments"].actual == "1"
    assert not results["tables"].ok and results["tables"].short == ["mini_shop"]
    assert not results["mean tools"].ok and results["mean tools"].actual == "5"
    assert results["world builder"].ok
    easy = CatalogTargets(
        environments=1,
        min_tables=4,
        min_tools=5,
        min_seed_rows=1,
        min_tasks=3,
        min_tasks_per_kind=0,
        mean_tools=5,
        mean_tables=4,
    )
    assert all(r.ok for r in check_targets(out, easy))
    assert not all(r.ok for r in check_targets(out, easy.model_copy(update={"mean_tables": 4.5})))


def test_cli_check_exits_1_on_a_missed_target_and_reports_them_in_json() -> None:
    res = CliRunner().invoke(app, ["stats", "--check", "--json", "-p", str(FIXTURE_ROOT), "mini_shop"])
    assert res.exit_code == 1
    targets = {t["target"]: t for t in json.loads(res.output)["targets"]}
    assert targets["tools"]["short"] == ["mini_shop"] and targets["world builder"]["ok"] is True
    res = CliRunner().invoke(app, ["stats", "--check", "-p", str(FIXTURE_ROOT), "mini_shop"])
    assert res.exit_code == 1 and "short of it" in res.output
