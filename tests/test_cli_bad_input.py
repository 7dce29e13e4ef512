"""Bad input to ``awm export`` and ``awm eval`` is one line on stderr (``awm <command>: ...``) and exit code 2,
before any work: never a traceback, never silently accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from awm.cli import app
from tests.conftest import FIXTURE_ROOT

EVAL = ["eval", "--envs", "mini_shop", "-p", str(FIXTURE_ROOT)]
EXPORT = ["export", "--envs", "mini_shop", "-p", str(FIXTURE_ROOT), "--per-template", "1"]


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": None})


def refused(res, command: str, *fragments: str) -> None:
    """Exit 2, one line on stderr naming the command, with each fragment, and no traceback."""
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"awm {command}: "), res.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.mark.parametrize(
    "out",
    [
        pytest.param("/proc/x.parquet", id="in-proc"),  # a folder no file can be created in
        pytest.param("{tmp}/a-file/x.parquet", id="under-a-file"),
    ],
)
def test_export_to_a_place_it_cannot_write_is_refused_up_front(tmp_path: Path, out: str) -> None:
    (tmp_path / "a-file").write_text("")
    out = out.format(tmp=tmp_path)
    res = invoke(*EXPORT, "--out", out)
    refused(res, "export", f"cannot write --out {out}")


def test_export_to_a_folder_is_refused(tmp_path: Path) -> None:
    refused(invoke(*EXPORT, "--out", str(tmp_path)), "export", f"--out {tmp_path} is a folder")


def test_export_format_and_extension(tmp_path: Path) -> None:
    # a --format that contradicts the file's extension is refused, and nothing is written
    res = invoke(*EXPORT, "--format", "parquet", "--out", str(tmp_path / "x.jsonl"))
    refused(res, "export", "--format parquet", "ends in .jsonl", "--format jsonl")
    res = invoke(*EXPORT, "-f", "jsonl", "--out", str(tmp_path / "x.parquet"))
    refused(res, "export", "--format jsonl", "ends in .parquet")
    assert not list(tmp_path.iterdir())
    # without --format, the extension says it: JSON lines in x.jsonl, Parquet in y.parquet
    res = invoke(*EXPORT, "--out", str(tmp_path / "x.jsonl"))
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in (tmp_path / "x.jsonl").read_text().splitlines()]
    assert rows and all(r["env"] == "mini_shop" for r in rows)
    res = invoke(*EXPORT, "--out", str(tmp_path / "y.parquet"))
    assert res.exit_code == 0, res.output
    assert (tmp_path / "y.parquet").read_bytes()[:4] == b"PAR1"
    # an agreeing --format, and another extension with an explicit one, are fine
    res = invoke(*EXPORT, "--format", "jsonl", "--out", str(tmp_path / "z.data"))
    assert res.exit_code == 0 and json.loads((tmp_path / "z.data").read_text().splitlines()[0])


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--max-steps", "0", "--max-steps must be at least 1, not 0"),
        ("--concurrency", "0", "--concurrency must be at least 1, not 0"),
        ("--k", "0", "--k must be at least 1, not 0"),
        ("--episode-timeout", "0", "--episode-timeout must be more than 0 seconds"),
        ("--tasks", "few", "--tasks is 'all' or a number"),
    ],
)
def test_eval_option_out_of_range(tmp_path: Path, option: str, value: str, message: str) -> None:
    res = invoke(*EVAL, "--agent", "oracle", option, value, "--out", str(tmp_path / "run"))
    refused(res, "eval", message)
    assert not (tmp_path / "run").exists()


def test_eval_model_options_are_checked_for_a_model_too(tmp_path: Path) -> None:
    model = [*EVAL, "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--out", str(tmp_path / "run")]
    refused(invoke(*model, "--extra-body", "{bad"), "eval", "--extra-body is not JSON")
    refused(invoke(*model, "--extra-body", "[1]"), "eval", "--extra-body must be a JSON object")
    refused(invoke(*model, "--history", "0"), "eval", "--history must be at least 1")
    refused(invoke(*model, "--timeout", "-1"), "eval", "--timeout must be more than 0 seconds")
    refused(invoke(*model, "--temperature", "-0.5"), "eval", "--temperature must be at least 0")


def test_extra_body_with_a_builtin_agent(tmp_path: Path) -> None:
    """Invalid JSON is refused as such; valid JSON, or any other model option, is refused as meaningless with a
    built-in agent (it asks no model: ignoring the option would let a run look like something it is not)."""
    run = ["--agent", "oracle", "--out", str(tmp_path / "run")]
    refused(invoke(*EVAL, *run, "--extra-body", "{bad"), "eval", "--extra-body is not JSON")
    res = invoke(*EVAL, *run, "--extra-body", '{"chat_template_kwargs": {}}')
    refused(res, "eval", "--extra-body is for --agent openai only", "--agent oracle asks no model")
    res = invoke(*EVAL, *run, "--temperature", "0", "--model", "m")
    refused(res, "eval", "--model, --temperature are for --agent openai only")
    assert not (tmp_path / "run").exists()
    assert invoke(*EVAL, *run).exit_code == 0  # the defaults of those options are no problem
