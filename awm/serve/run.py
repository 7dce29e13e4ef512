"""Running the server: one uvicorn server listening on the agent plane's and the control plane's sockets,
with the guarded HTTP protocol (see ``awm.serve.guard``). Sockets are bound before anything is announced,
so a busy port is a clear error, not a traceback after "serving on"."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from awm.errors import AwmError
from awm.registry import Registry
from awm.serve.app import Planes, create_planes
from awm.serve.config import ServeConfig
from awm.serve.guard import GuardedHttpToolsProtocol


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening-ready TCP socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
    except OSError as e:
        sock.close()
        raise AwmError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return sock


def _url(host: str, sock: socket.socket) -> str:
    port = sock.getsockname()[1]
    return f"http://[{host.strip('[]')}]:{port}" if ":" in host else f"http://{host}:{port}"


@dataclass
class Bound:
    """A server ready to run: its planes, sockets and addresses."""

    planes: Planes
    server: uvicorn.Server
    sockets: list[socket.socket]
    agent_url: str
    control_url: str

    def run(self) -> None:
        self.server.run(sockets=self.sockets)


def prepare(
    config: ServeConfig,
    host: str = "127.0.0.1",
    port: int = 8000,
    control_host: str = "127.0.0.1",
    control_port: int | None = None,
    registry: Registry | None = None,
    log_level: str = "warning",
    view_runs: Sequence[str | Path] = (),
) -> Bound:
    """Check the settings, load every environment and bind both sockets (``control_port`` None: the
    agent port + 1, or any free port when ``port`` is 0). ``view_runs``: the runs the control plane's
    viewer (``/view/``) shows."""
    if control_port is None:
        control_port = port + 1 if port else 0
    if port and control_port == port:
        raise AwmError(f"the control plane needs a port of its own (both are {port})")
    if not is_loopback(control_host) and not config.control_token:
        raise AwmError(
            f"the control plane on {control_host} would be reachable from other hosts without a token: "
            "set --control-token-env, or keep --control-host on loopback"
        )
    if not is_loopback(host):  # agents reach it by any name of this host
        config = config.model_copy(update={"loopback_only_hosts": False})
    planes = create_planes(config, registry, view_runs)
    agent_sock = bind(host, port)
    try:
        control_sock = bind(control_host, control_port)
    except AwmError:
        agent_sock.close()
        raise
    protocol = GuardedHttpToolsProtocol.configured(config.max_headers, config.max_header_bytes, config.head_timeout)
    uv = uvicorn.Config(
        planes.asgi({control_sock.getsockname()[1]}),
        http=protocol,
        lifespan="on",
        log_level=log_level,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,
    )
    return Bound(
        planes, uvicorn.Server(uv), [agent_sock, control_sock], _url(host, agent_sock), _url(control_host, control_sock)
    )
