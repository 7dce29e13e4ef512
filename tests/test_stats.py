"""``awm stats``: the catalog's figures agree with the compiled worlds; a broken bundle is named, exit 1."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from awm.cli import app
from awm.registry import Registry
from awm.stats import catalog_stats, p90
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
