"""``awm serve`` in a child process, for the tests that need the real command: started, read until its ready
line, stopped with Ctrl-C (SIGINT) as a user stops it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from awm.model.registry import REPO_ROOT

READY = re.compile(r"awm serve: ready: agent plane (http://\S+), control plane (http://\S+)")


@dataclass
class Serving:
    proc: subprocess.Popen[str]
    agent: str = ""
    control: str = ""
    lines: list[str] = field(default_factory=list)  # its stderr, line by line, as it comes


@contextmanager
def awm_serve(*args: str, ready_within: float = 120, stop_within: float = 15) -> Iterator[Serving]:
    """``python -m awm.cli serve ARGS``, yielded once it printed its ready line; on exit, SIGINT (then a kill
    after ``stop_within`` seconds) and a moment for its last lines to arrive in ``lines``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "awm.cli", "serve", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        cwd=REPO_ROOT,
    )
    serving = Serving(proc)
    ready = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            serving.lines.append(line.rstrip("\n"))
            if m := READY.match(line):
                serving.agent, serving.control = m.groups()
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert ready.wait(ready_within), f"no ready line in {ready_within:g} s:\n" + "\n".join(serving.lines)
        yield serving
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(stop_within)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        deadline = time.monotonic() + 5
        while reader.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
