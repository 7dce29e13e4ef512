"""A real uvicorn server (both planes) on random loopback ports, in a background thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import uvicorn

from awm.serve.app import Planes
from awm.serve.config import ServeConfig
from awm.serve.run import prepare
from tests.conftest import make_lab_root


@dataclass
class Live:
    url: str  # the agent plane
    control: str  # the control plane
    planes: Planes
    server: uvicorn.Server

    @property
    def store(self):
        return self.planes.store


def start_server(cfg: ServeConfig) -> tuple[Live, threading.Thread]:
    bound = prepare(cfg, port=0, log_level="error")
    thread = threading.Thread(target=bound.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not bound.server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("server did not start")
        time.sleep(0.01)
    return Live(bound.agent_url, bound.control_url, bound.planes, bound.server), thread


def stop_server(srv: Live, thread: threading.Thread) -> None:
    srv.server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(make_lab_root(tmp_path_factory.mktemp("serve")))


@pytest.fixture(scope="module")
def live(lab: str) -> Iterator[Live]:
    cfg = ServeConfig(paths=[lab], envs=["mini_shop"], max_body_bytes=200_000, session_episodes=True)
    srv, thread = start_server(cfg)
    yield srv
    stop_server(srv, thread)
