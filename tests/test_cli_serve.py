"""``awm serve`` says what it does while it starts (environments compile on their first use, not at startup),
then a ready line once both planes accept connections: a script waits for that line, or for ``GET /health``
as the README does."""

from __future__ import annotations

import httpx

from tests.serving import READY, awm_serve


def test_serve_prints_progress_then_ready() -> None:
    with awm_serve("--env", "online_store", "--env", "clinic", "--port", "0") as served:
        lines = served.lines
        assert lines[:1] == [
            "awm serve: building the agent and control planes (2 environments, each compiled on first use)",
        ], lines
        assert READY.fullmatch(lines[1]) is not None, lines
        # ready means ready: both planes answer at once
        assert httpx.get(f"{served.agent}/health", timeout=5).json()["envs"] == 2
        assert httpx.get(f"{served.control}/health", timeout=5).json() == {"ok": True, "envs": 2, "episodes": 0}
    assert not any("Traceback" in line for line in served.lines), served.lines
