"""Ctrl-C in ``awm eval``: it stops at once (built-in agents never wait, so before, every remaining episode
ran first), prints the summary of what finished, keeps it in the run folder, prints the command that resumes
the run, and exits 130; that command resumes it."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from awm.eval import read_records
from awm.model.registry import REPO_ROOT
from tests.eval.fake_openai import Reply, fake_openai
from tests.eval.test_fake_server import ENV, gold_reply, task_of

AWM = [sys.executable, "-m", "awm.cli"]


def interrupt(args: list[str], out: Path, after: int = 1) -> tuple[int, str, float]:
    """Start ``awm eval``, send SIGINT once ``after`` episodes are in ``out``, and return its exit code, its
    output and the seconds from the signal to its exit."""
    proc = subprocess.Popen(
        [*AWM, "eval", *args, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "COLUMNS": "300"},
        cwd=REPO_ROOT,
        # as in a terminal: a runner that starts us in the background (SIGINT ignored) must not leak that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 120
        results = out / "results.jsonl"
        while not (results.exists() and len(results.read_text().splitlines()) >= after):
            assert proc.poll() is None, proc.communicate()[0].decode()
            assert time.monotonic() < deadline, "no episode finished in 120 s"
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        output = proc.communicate(timeout=30)[0].decode()
        return proc.returncode, output, time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def resume_line(output: str) -> list[str]:
    lines = output.splitlines()
    at = next(i for i, line in enumerate(lines) if "Resume with" in line)
    return shlex.split(lines[at + 1])


def test_ctrl_c_stops_a_builtin_agent_run_and_says_how_to_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # 8,500 episodes: minutes at the oracle's pace, so an interrupt that waits for them all is plain to see
    args = ["--agent", "oracle", "--envs", ENV, "--k", "500", "--concurrency", "4", "--overwrite"]
    code, output, seconds = interrupt(args, out)
    assert code == 130, output
    assert seconds < 10, f"took {seconds:.1f} s to stop:\n{output}"
    assert "Traceback" not in output
    finished = read_records(out / "results.jsonl")
    assert 1 <= len(finished) < 8500
    # the summary of what finished, and what was not run
    assert f"{len(finished)} episodes in" in output and "pass@1" in output and ENV in output
    assert f"interrupted: {8500 - len(finished)} of 8500 episode(s) not run" in " ".join(output.split())
    run = json.loads((out / "run.json").read_text())
    assert run["invocations"][-1]["interrupted"] is True and run["invocations"][-1]["episodes"] == len(finished)
    # the resume command: the same options, without --overwrite (it would discard them), with --out
    command = resume_line(output)
    assert command[:2] == ["awm", "eval"] and "--overwrite" not in command
    assert command[2:] == ["--agent", "oracle", "--envs", ENV, "--k", "500", "--concurrency", "4", "--out", str(out)]
    # ... which resumes: what finished is kept, and the rest runs (interrupted again once it has)
    code, again, _ = interrupt(command[2:-2], out, after=len(finished) + 1)
    assert code == 130, again
    assert f"{len(finished)} already scored" in again
    assert len(read_records(out / "results.jsonl")) > len(finished)


def test_ctrl_c_stops_a_model_run_and_says_how_to_resume(tmp_path: Path) -> None:
    def slow_gold(body: dict[str, Any]) -> Reply:  # a model that takes its time
        reply = gold_reply(body, task_of(body))
        reply.hang = 0.2
        return reply

    out = tmp_path / "run"
    with fake_openai(slow_gold) as srv:
        args = ["--base-url", srv.url, "--model", "m", "--tool-format", "native", "--envs", ENV, "--k", "20"]
        code, output, seconds = interrupt(args, out)
    assert code == 130, output
    assert seconds < 10, f"took {seconds:.1f} s to stop:\n{output}"
    finished = read_records(out / "results.jsonl")
    assert 1 <= len(finished) < 17 * 20
    assert "of 340 episode(s) not run" in output and "pass@1" in output and "Traceback" not in output
    assert resume_line(output) == [
        "awm", "eval", "--base-url", srv.url, "--model", "m", "--envs", ENV, "--k", "20", "--tool-format", "native",
        "--out", str(out),
    ]  # fmt: skip
