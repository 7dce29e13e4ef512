"""Running the server: one uvicorn server listening on the agent plane's and the control plane's sockets,
with the guarded HTTP protocol (see ``awm.serve.guard``), or N of them on the same ports (``workers``, see
``awm.serve.workers``). Startup checks that the environments exist (their manifests) and compiles none: each
compiles on its first use. Sockets are bound first, so a busy port is a clear error at once; ``progress``
hears each step, and ``Bound.run(on_ready=...)`` when both planes accept connections (in every worker)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from awm.errors import AwmError
from awm.listen import bind, is_loopback
from awm.model.registry import Registry, default_registry
from awm.serve.app import Planes, check_names, create_planes
from awm.serve.config import ServeConfig
from awm.serve.guard import GuardedHttpToolsProtocol
from awm.serve.workers import (
    Handoff,
    HandoffMixin,
    SessionSuffix,
    WorkerRouter,
    WorkerSet,
    reuseport_sockets,
    unix_sockets,
)


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

    workers: WorkerSet | None = None  # --workers N > 1: the processes to fork (``server`` is not used)

    def run(self, on_ready: Callable[[], None] | None = None) -> None:
        """Serve until stopped; ``on_ready`` once both planes accept connections (in every worker)."""
        if self.workers is not None:
            self.workers.run(on_ready)
            return
        if isinstance(self.server, _Server):
            self.server.on_ready = on_ready
        self.server.run(sockets=self.sockets)


class _Server(uvicorn.Server):
    """uvicorn's server, saying when it listens (after the app's startup, before the first request); a
    worker of several also adopts connections handed to it (``awm.serve.workers.Handoff``)."""

    on_ready: Callable[[], None] | None = None
    handoff_socket: socket.socket | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and self.handoff_socket is not None:
            asyncio.get_running_loop().add_reader(
                self.handoff_socket.fileno(), Handoff.receive, self.handoff_socket, self._protocol
            )
        if self.started and not self.should_exit and self.on_ready is not None:
            self.on_ready()

    def _protocol(self) -> asyncio.Protocol:
        """A connection's protocol, as uvicorn makes one for each connection it accepts."""
        return self.config.http_protocol_class(  # type: ignore[call-arg]
            config=self.config, server_state=self.server_state, app_state=self.lifespan.state
        )


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
    workers: int = 1,
) -> Bound:
    """Check the settings and that every environment exists, and bind both sockets (``control_port`` None: the
    agent port + 1, or any free port when ``port`` is 0); nothing is compiled. ``view_runs``: the runs the
    control plane's viewer (``/view/``) shows; ``progress``: a line as each step starts; ``workers``: server
    processes on the same ports."""
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
    names = check_names(reg, config.envs)  # UnknownEnvironmentError, with suggestions, before anything is bound
    config = config.model_copy(update={"envs": names})
    if workers > 1:
        return _prepare_workers(config, reg, names, host, port, control_host, control_port, log_level, view_runs,
                                progress, workers)  # fmt: skip
    agent_sock = bind(host, port)
    try:
        control_sock = bind(control_host, control_port)
    except AwmError:
        agent_sock.close()
        raise
    try:
        if progress is not None:
            progress(f"building the agent and control planes ({len(names)} environments, each compiled on first use)")
        planes = create_planes(config, reg, view_runs)
    except BaseException:
        agent_sock.close()
        control_sock.close()
        raise
    uv = _uvicorn_config(planes.asgi({control_sock.getsockname()[1]}), config, log_level)
    return Bound(
        planes, _Server(uv), [agent_sock, control_sock], _url(host, agent_sock), _url(control_host, control_sock)
    )


def _uvicorn_config(
    app: ASGIApp, config: ServeConfig, log_level: str, handoff: Handoff | None = None
) -> uvicorn.Config:
    protocol: type[asyncio.Protocol] = GuardedHttpToolsProtocol.configured(
        config.max_headers, config.max_header_bytes, config.head_timeout
    )
    if handoff is not None:
        attrs = {"handoff": handoff, "max_header_bytes": config.max_header_bytes}
        protocol = type("WorkerHttpProtocol", (HandoffMixin, protocol), attrs)
    return uvicorn.Config(
        app,
        http=protocol,
        lifespan="on",
        log_level=log_level,
        # uvicorn formats each access-log line's arguments before the logger drops it: off unless shown
        access_log=log_level.lower() in ("trace", "debug", "info"),
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,
    )


def _prepare_workers(
    config: ServeConfig,
    reg: Registry,
    names: list[str],
    host: str,
    port: int,
    control_host: str,
    control_port: int,
    log_level: str,
    view_runs: Sequence[str | Path],
    progress: Callable[[str], None] | None,
    n: int,
) -> Bound:
    """``n`` workers on the same ports (``awm.serve.workers``): the sockets now, the processes in ``run``."""
    if n > 255:
        raise AwmError("--workers: at most 255")
    agent = reuseport_sockets(host, port, n)
    try:
        control = reuseport_sockets(control_host, control_port, n)
    except AwmError:
        for s in agent:
            s.close()
        raise
    folder, unix, handoff = unix_sockets(n)
    try:
        if progress is not None:
            progress(
                f"building the agent and control planes ({len(names)} environments, each compiled on first use; "
                f"{n} workers)"
            )
        planes = create_planes(config, reg, view_runs)
    except BaseException:
        for s in (*agent, *control, *unix, *handoff):
            s.close()
        raise
    control_ports = {control[0].getsockname()[1]}
    paths = [str(folder / f"w{i}.sock") for i in range(n)]
    handoffs = [str(folder / f"h{i}.sock") for i in range(n)]

    def make_server(i: int) -> _Server:
        planes.store.worker, planes.store.workers = i, n
        router = WorkerRouter(SessionSuffix(planes.asgi(control_ports), i, n), i, n, paths, control_ports)
        return _Server(_uvicorn_config(router, config, log_level, Handoff(router, handoffs)))

    workers = WorkerSet(n, agent, control, unix, handoff, folder, make_server, progress)
    return Bound(planes, None, [], _url(host, agent[0]), _url(control_host, control[0]), workers)  # type: ignore[arg-type]
