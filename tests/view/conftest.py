"""Runs to view, made the way users make them, on the fixture bundle (mini_shop): ``awm eval`` with the
oracle and the random agent, and a ``RecordTrajectory`` file of OpenAI-format tool calls (one episode
with collateral writes, one unfinished template instance) plus a line that cannot be read. And a real
uvicorn server on a free loopback port, in a thread."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI
from typer.testing import CliRunner

from awm.cli import app as cli
from awm.gym.env import AwmEnv
from awm.gym.wrappers import RecordTrajectory, ToolCallFormat
from awm.listen import bind
from awm.model.registry import Registry
from tests.conftest import FIXTURE_ROOT

TASKS = ["t01_lamp_price", "t02_buy_lamp", "t03_cancel_alan", "cancel_order.s3.0"]  # the last: a template instance


@dataclass(frozen=True)
class Runs:
    oracle: Path  # awm eval run directory: every episode passes
    random: Path  # awm eval run directory, k = 2: every episode fails
    trajectories: Path  # RecordTrajectory JSONL with one unreadable line (line 3)

    @property
    def all(self) -> list[Path]:
        return [self.oracle, self.random, self.trajectories]


def _eval(out: Path, agent: str, k: int) -> None:
    args = ["eval", "--agent", agent, "--envs", "mini_shop", "--path", str(FIXTURE_ROOT), "--out", str(out)]
    args += ["--k", str(k)] + [a for t in TASKS for a in ("--task-id", t)]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output


def openai_call(tool: str, arguments: dict) -> dict:
    fn = {"name": tool, "arguments": json.dumps(arguments)}
    return {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": fn}]}


def record_trajectories(path: Path) -> None:
    env = RecordTrajectory(ToolCallFormat(AwmEnv("mini_shop", paths=[str(FIXTURE_ROOT)]), "openai"), path, "manual")
    env.reset(seed=5, options={"task_id": "t03_cancel_alan"})
    env.step(openai_call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 1}))  # collateral
    env.step(openai_call("set_order_status", {"order_id": 1, "status": "cancelled"}))  # what was asked
    env.step({"role": "assistant", "content": "Done."})  # the final answer, as text
    env.reset(seed=6, options={"task_id": "cancel_order.s3.0"})
    env.step(openai_call("search_products", {"query": "Lamp"}))
    env.close()  # unfinished: recorded as truncated
    lines = path.read_text().splitlines()
    bad = {"env_id": "awm/mini_shop-v0", "task_id": "t01_lamp_price", "task_kind": "information", "instruction": "?"}
    lines.insert(2, json.dumps(bad | {"seed": 1, "steps": "not a list"}))
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    base = tmp_path_factory.mktemp("runs")
    r = Runs(base / "oracle", base / "random", base / "manual.jsonl")
    _eval(r.oracle, "oracle", 1)
    _eval(r.random, "random", 2)
    record_trajectories(r.trajectories)
    return r


@pytest.fixture(scope="session")
def registry() -> Registry:
    return Registry([FIXTURE_ROOT], include_default=False)


@contextlib.contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """``app`` on a real uvicorn server on a free loopback port; yields its base URL."""
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="error"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the viewer did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(10)
