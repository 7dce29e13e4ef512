"""One exit-code convention for every command (README, "Exit codes"): 2 is a usage error and nothing was done
(here: an unknown environment, one line on stderr with a suggestion); 1 is a job that ran and failed."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from awm.cli import app
from tests.conftest import FIXTURE_ROOT

# every command that takes an environment name, with the unknown name "onlin_store" in that place
UNKNOWN_ENV = {
    "stats": ["stats", "onlin_store"],
    "validate": ["validate", "onlin_store"],
    "audit": ["audit", "onlin_store"],
    "demo": ["demo", "onlin_store"],
    "tasks": ["tasks", "onlin_store"],
    "export": ["export", "--envs", "onlin_store", "--out", "{tmp}/x.jsonl"],
    "eval": ["eval", "--agent", "oracle", "--envs", "onlin_store", "--out", "{tmp}/run"],
    "mcp": ["mcp", "onlin_store"],
    "serve": ["serve", "--env", "onlin_store", "--port", "0"],
}


def invoke(args: list[str]):
    return CliRunner().invoke(app, args, env={"COLUMNS": None}, input="")


@pytest.mark.parametrize("command", list(UNKNOWN_ENV))
def test_an_unknown_environment_is_a_usage_error(command: str, tmp_path: Path) -> None:
    res = invoke([a.replace("{tmp}", str(tmp_path)) for a in UNKNOWN_ENV[command]])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"awm {command}: unknown environment 'onlin_store'. Did you mean 'online_store'")
    assert not list(tmp_path.iterdir())  # nothing was done


def test_every_command_taking_an_environment_is_covered() -> None:
    """A new command with an environment argument or option joins the table above."""
    group = typer.main.get_group(app)
    takes_env = {
        name for name, cmd in group.commands.items() if any(p.name in ("env", "envs", "names") for p in cmd.params)
    }
    assert takes_env == set(UNKNOWN_ENV)


def test_an_unknown_name_among_known_ones_stops_before_any_work() -> None:
    res = invoke(["validate", "mini_shop", "onlin_store", "-p", str(FIXTURE_ROOT)])
    assert res.exit_code == 2 and "mini_shop is valid" not in res.output


def test_a_job_that_ran_and_failed_is_1(tmp_path: Path) -> None:
    """The other side: a bundle that does not load is a finding of ``validate`` (it ran: 1), and the same
    environment asked for by ``demo`` is a usage error (2)."""
    import shutil

    root = tmp_path / "root"
    shutil.copytree(FIXTURE_ROOT, root)
    (root / "envs/mini_shop/schema.sql").write_text("CREATE TABLE nope (")
    res = invoke(["validate", "mini_shop", "-p", str(root)])
    assert res.exit_code == 1 and "failed validation" in res.output
    res = invoke(["demo", "mini_shop", "-p", str(root)])
    assert res.exit_code == 2 and res.stderr.startswith("awm demo: ")
