"""A real uvicorn server on a random loopback port, in a background thread."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import uvicorn

from awm.serve.app import create_app
from awm.serve.config import ServeConfig
from tests.conftest import make_lab_root


@dataclass
class Live:
    url: str
    app: object
    server: uvicorn.Server

    @property
    def store(self):
        return self.app.state.store


def start_server(cfg: ServeConfig) -> tuple[Live, threading.Thread]:
    app = create_app(cfg)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("server did not start")
        time.sleep(0.01)
    return Live(f"http://127.0.0.1:{port}", app, server), thread


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(make_lab_root(tmp_path_factory.mktemp("serve")))


@pytest.fixture(scope="module")
def live(lab: str) -> Iterator[Live]:
    srv, thread = start_server(ServeConfig(paths=[lab], envs=["mini_shop"], max_body_bytes=200_000))
    yield srv
    srv.server.should_exit = True
    thread.join(10)
