"""``awm serve`` says what it does while it starts (environments compile on their first use, not at startup),
then a ready line once both planes accept connections: a script waits for that line, or for ``GET /health``
as the README does."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time

import httpx

from awm.registry import REPO_ROOT


def test_serve_prints_progress_then_ready() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "awm.cli", "serve", "--env", "online_store", "--env", "clinic", "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        cwd=REPO_ROOT,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))
            if line.startswith("awm serve: ready:"):
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert ready.wait(120), "no ready line in 120 s:\n" + "\n".join(lines)
        assert lines[:1] == [
            "awm serve: building the agent and control planes (2 environments, each compiled on first use)",
        ], lines
        m = re.fullmatch(r"awm serve: ready: agent plane (http://\S+), control plane (http://\S+)", lines[1])
        assert m is not None, lines
        agent, control = m.groups()
        # ready means ready: both planes answer at once
        assert httpx.get(f"{agent}/health", timeout=5).json()["envs"] == 2
        assert httpx.get(f"{control}/health", timeout=5).json() == {"ok": True, "envs": 2, "episodes": 0}
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 5
    while reader.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any("Traceback" in line for line in lines), lines
