"""``awm gen`` from the command line: a real Ctrl-C in a child process, then ``--resume``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from awm.cli import app
from awm.model.registry import REPO_ROOT, Registry
from awm.proof.validate import validate_env
from tests.gen.conftest import script_env
from tests.gen.fake_llm import FakeLLM, Gate, Reply
from tests.gen.scripted import BIKE, VET, answer

SECRET = "sk-test-SECRET-0123456789"


def base_args(fake: FakeLLM, root: Path) -> list[str]:
    return [
        "--out",
        str(root),
        "--base-url",
        fake.base_url,
        "--model",
        "fake-model",
        "--profile",
        "compact",
        "--tasks",
        "3",
        "--quiet",
    ]


def test_help_lists_the_flags() -> None:
    result = CliRunner().invoke(app, ["gen", "--help"], terminal_width=200)
    assert result.exit_code == 0
    for flag in (
        "--scenarios",
        "--from",
        "--count",
        "--concurrency",
        "--base-url",
        "--model",
        "--resume",
        "--api-key-env",
    ):
        assert flag in result.output
    result = CliRunner().invoke(app, ["gen", "scenarios", "--help"], terminal_width=200)
    assert result.exit_code == 0 and "--embeddings" in result.output


def test_needs_ideas_and_a_model(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["gen", "--out", str(tmp_path), "--model", "m"])
    assert result.exit_code == 2 and "--scenarios" in result.output
    result = CliRunner().invoke(app, ["gen", "--out", str(tmp_path), "--scenarios", "a dentist"])
    assert result.exit_code == 2 and "--model is required" in result.output
    result = CliRunner().invoke(app, ["gen", "--out", str(tmp_path), "--resume", "--model", "m"])
    assert result.exit_code == 2 and "nothing to resume" in result.output


@pytest.mark.slow  # ~10 s: a real interrupted generation run (CI runs it with -m slow)
def test_interrupted_run_then_resume_repeats_no_completed_request(fake_llm: FakeLLM, root: Path) -> None:
    gate = threading.Event()
    script_env(fake_llm, BIKE)
    script_env(fake_llm, VET, {"tools": [Gate(gate, Reply(answer(VET, "tools")))]})
    cmd = [sys.executable, "-m", "awm.cli", "gen", "--scenarios", "a veterinary clinic; a bike-sharing service"]
    env = {**os.environ, "OPENAI_API_KEY": SECRET, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen(
        [*cmd, *base_args(fake_llm, root), "--no-dedup"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        # as in a terminal: a runner that starts us in the background (SIGINT ignored) must not leak that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while not (fake_llm.seen("tools", when="Happy Paws") and (root / "envs" / "bike_share").is_dir()):
            assert proc.poll() is None, proc.communicate()[0].decode()
            assert time.monotonic() < deadline, "the run never reached the gated request"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)  # Ctrl-C while vet_clinic waits for its tools
        output = proc.communicate(timeout=120)[0].decode()  # generous: CI machines can be loaded
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, output
    assert "--resume" in output and SECRET not in output
    # only the complete environment was published
    assert sorted(os.listdir(root / "envs")) == ["bike_share"]
    assert sorted(os.listdir(root / "verifiers")) == ["bike_share"]
    assert validate_env("bike_share", Registry([root], include_default=False)).ok
    assert all(r.authorization == f"Bearer {SECRET}" for r in fake_llm.seen())
    first = fake_llm.counts()
    assert first["tools"] == 2 and first["verifiers"] == 1  # bike finished; vet was waiting at tools

    gate.set()
    fake_llm.reset_log()
    result = CliRunner().invoke(app, ["gen", "--resume", "--out", str(root), "--quiet"], env={"OPENAI_API_KEY": SECRET})
    assert result.exit_code == 0, result.output
    # scenario/tasks/schema/seed of vet_clinic came from the cache; bike_share was not touched
    assert fake_llm.counts() == {"tools": 1, "verifiers": 1}
    assert sorted(os.listdir(root / "envs")) == ["bike_share", "vet_clinic"]
    assert validate_env("vet_clinic", Registry([root], include_default=False)).ok
    assert "skipped" in result.output and "vet_clinic" in result.output

    # report.json is cumulative (both environments written), each run also has its own report
    report_file = root / ".awm-gen" / "report.json"
    before = report_file.read_text()
    cumulative = json.loads(before)
    assert {j["env"]: j["status"] for j in cumulative["jobs"]} == {"bike_share": "written", "vet_clinic": "written"}
    assert [r["report"] for r in cumulative["runs"]] == ["0001.json", "0002.json"]
    # a second resume is free, generates nothing, says so, exits non-zero and keeps the report
    fake_llm.reset_log()
    again = CliRunner().invoke(app, ["gen", "--resume", "--out", str(root), "--quiet"], env={"OPENAI_API_KEY": SECRET})
    assert again.exit_code == 1 and fake_llm.counts() == {}
    assert "nothing to generate" in " ".join(again.output.split())
    assert report_file.read_text() == before
    assert sorted(os.listdir(root / ".awm-gen" / "reports")) == ["0001.json", "0002.json"]
    # the key is never written anywhere
    for path in root.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path
    batch = json.loads((root / ".awm-gen" / "batch.json").read_text())
    assert batch["settings"]["api_key_env"] == "OPENAI_API_KEY" and len(batch["ideas"]) == 2


def test_out_may_name_the_envs_folder(fake_llm: FakeLLM, tmp_path: Path) -> None:
    script_env(fake_llm, VET)
    args = base_args(fake_llm, tmp_path / "envs")
    result = CliRunner().invoke(app, ["gen", "--scenarios", "a veterinary clinic", *args])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "envs" / "vet_clinic" / "env.json").is_file()
    assert (tmp_path / "verifiers" / "vet_clinic" / "verifiers.jsonl").is_file()
    assert "tokens in" in result.output or "awm gen" in result.output


def test_from_file_with_count(fake_llm: FakeLLM, root: Path, tmp_path: Path) -> None:
    script_env(fake_llm, BIKE)
    ideas = tmp_path / "ideas.jsonl"
    ideas.write_text(
        json.dumps({"name": "bike-sharing service", "description": "a bike-sharing service"})
        + "\n"
        + json.dumps({"name": "dentist", "description": "a dental practice"})
        + "\n"
    )
    result = CliRunner().invoke(app, ["gen", "--from", str(ideas), "--count", "1", *base_args(fake_llm, root)])
    assert result.exit_code == 0, result.output
    assert os.listdir(root / "envs") == ["bike_share"]
    assert fake_llm.counts()["scenario"] == 1


def test_all_rejected_exits_nonzero(fake_llm: FakeLLM, root: Path) -> None:
    script_env(fake_llm, VET, {"scenario": [Reply("not json")] * 3})
    result = CliRunner().invoke(
        app, ["gen", "--scenarios", "a veterinary clinic", "--attempts", "2", *base_args(fake_llm, root)]
    )
    assert result.exit_code == 1
    assert "rejected at scenario after 2 attempt(s)" in " ".join(result.output.split())
