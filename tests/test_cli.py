"""The ``awm`` command line as a user meets it: messages instead of tracebacks, output that survives a pipe,
``--version`` and ``list --json``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from awm import __version__
from awm.cli import app
from awm.model.registry import REPO_ROOT, RegistryPathError, default_registry

NO_COLUMNS = {"COLUMNS": None}  # as in a pipe or a CI log: no terminal, no COLUMNS


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), env=NO_COLUMNS)


def test_version() -> None:
    res = invoke("--version")
    assert res.exit_code == 0 and res.output.strip() == f"awm-gym {__version__}"


def test_list_is_not_cut_when_piped() -> None:
    res = invoke("list")
    assert res.exit_code == 0, res.output
    for name, entry in default_registry().entries().items():  # manifests: no world needs loading here
        assert entry.manifest is not None
        line = next(x for x in res.output.splitlines() if f" {name} " in x)
        assert entry.gym_id in line and entry.manifest.title in line
    assert "…" not in res.output


def test_list_json() -> None:
    res = invoke("list", "--json")
    assert res.exit_code == 0, res.output
    rows = {r["env"]: r for r in json.loads(res.output)}
    assert set(rows) == set(default_registry().names())
    store = rows["online_store"]
    world = default_registry().load("online_store")
    assert store["gym_id"] == "awm/online_store-v0" and store["error"] is None
    assert (store["tables"], store["tools"], store["tasks"]) == (
        len(world.tables),
        len(world.tools),
        len(world.task_ids),
    )


@pytest.mark.parametrize(("command", "code"), [("list", 2), ("validate", 2), ("audit", 2), ("demo", 2)])
def test_a_missing_path_is_an_error(command: str, code: int, tmp_path: Path) -> None:
    res = invoke(command, "--path", "/nonexistent")
    assert res.exit_code == code, res.output
    assert "--path /nonexistent: no such folder" in res.output and "Traceback" not in res.output
    empty = tmp_path / "empty"
    empty.mkdir()
    res = invoke(command, "--path", str(empty))
    assert res.exit_code == code and "no envs/ folder" in res.output


def test_a_path_may_name_the_envs_folder() -> None:
    res = invoke("list", "--path", str(REPO_ROOT / "envs"), "--json")
    assert res.exit_code == 0, res.output


def test_registry_rejects_a_missing_root() -> None:
    from awm.model.registry import Registry

    with pytest.raises(RegistryPathError):
        Registry(["/nonexistent"])


def test_eval_into_an_unwritable_out_is_a_message() -> None:
    res = invoke("eval", "--agent", "oracle", "--envs", "online_store", "--tasks", "1", "--out", "/proc/nope")
    assert res.exit_code == 2, res.output
    assert "cannot create --out /proc/nope" in res.output and "Traceback" not in res.output


def test_unknown_environment_and_task_get_suggestions() -> None:
    """Usage errors: exit 2, like an unknown name in every other command (tests/test_cli_exit_codes.py)."""
    res = invoke("eval", "--agent", "oracle", "--envs", "onlin_store")
    assert res.exit_code == 2 and "Did you mean 'online_store'" in res.output
    res = invoke("eval", "--agent", "oracle", "--envs", "online_store", "--task-id", "t09_aprove_priya_return")
    assert res.exit_code == 2 and "Did you mean t09_approve_priya_return" in " ".join(res.output.split())
    res = invoke("eval", "--agent", "oracle", "--envs", "online_store", "--task-id", "t99_nope")
    assert res.exit_code == 2 and "closest of the 17 task ids" in " ".join(res.output.split())
    res = invoke("audit", "online_store", "--task", "t09_aprove_priya_return")
    assert res.exit_code == 2 and "Did you mean t09_approve_priya_return" in " ".join(res.output.split())


def test_any_awm_error_is_one_line_and_exit_code_2() -> None:
    """The top-level handler: an AwmError that no command catches (here: an unknown environment for the
    MCP stdio server) is one line on stderr, from ``awm`` run as a program, without a traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "awm.cli", "mcp", "onlin_store"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "Did you mean 'online_store'" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_eval_report_per_task_table_is_readable_when_piped(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = invoke("eval", "--agent", "oracle", "--envs", "online_store", "--out", str(out))
    assert res.exit_code == 0, res.output
    assert "[awm eval] 17/17 episodes" in res.output  # progress lines when not on a terminal
    rep = invoke("report", str(out), "--tasks", "--no-png")
    assert rep.exit_code == 0, rep.output
    for task_id in default_registry().load("online_store").task_ids:
        assert task_id in rep.output
    assert "…" not in rep.output
