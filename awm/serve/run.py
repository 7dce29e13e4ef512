"""Running the server: one uvicorn server listening on the agent plane's and the control plane's sockets,
with the guarded HTTP protocol (see ``awm.serve.guard``). Sockets are bound before the environments load
(seconds), so a busy port is a clear error at once, not a traceback after "serving on"; ``progress`` hears
each step of the loading, and ``Bound.run(on_ready=...)`` when both planes accept connections."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from awm.errors import AwmError
from awm.registry import Registry, default_registry
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

    def run(self, on_ready: Callable[[], None] | None = None) -> None:
        """Serve until stopped; ``on_ready`` once both planes accept connections."""
        if isinstance(self.server, _Server):
            self.server.on_ready = on_ready
        self.server.run(sockets=self.sockets)


class _Server(uvicorn.Server):
    """uvicorn's server, saying when it listens (after the app's startup, before the first request)."""

    on_ready: Callable[[], None] | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and not self.should_exit and self.on_ready is not None:
            self.on_ready()


def prepare(
    config: ServeConfig,
    host: str = "127.0.0.1",
    port: int = 8000,
    control_host: str = "127.0.0.1",
    control_port: int | None = None,
    registry: Registry | None = None,
    log_level: str = "warning",
    view_runs: Sequence[str | Path] = (),
    progress: Callable[[str], None] | None = None,
) -> Bound:
    """Check the settings, bind both sockets and load every environment (``control_port`` None: the
    agent port + 1, or any free port when ``port`` is 0). ``view_runs``: the runs the control plane's
    viewer (``/view/``) shows; ``progress``: a line as each step of the loading starts."""
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
    reg = registry or (Registry(config.paths) if config.paths else default_registry())
    names = config.envs or reg.names()
    for name in names:
        if name not in reg.entries():
            reg.load(name)  # UnknownEnvironmentError, with suggestions, before anything is bound or loaded
    agent_sock = bind(host, port)
    try:
        control_sock = bind(control_host, control_port)
    except AwmError:
        agent_sock.close()
        raise
    try:
        for i, name in enumerate(names, start=1):
            if progress is not None:
                progress(f"loading {i}/{len(names)} environments: {name}")
            reg.load(name)  # cached: create_planes finds it compiled
        if progress is not None:
            progress(f"building the agent and control planes ({len(names)} environments)")
        planes = create_planes(config, reg, view_runs)
    except BaseException:
        agent_sock.close()
        control_sock.close()
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
        planes, _Server(uv), [agent_sock, control_sock], _url(host, agent_sock), _url(control_host, control_sock)
    )
