"""``awm serve --workers N``: N server processes on the same two ports, each holding its own episodes.

Every worker listens on both planes' ports (``SO_REUSEPORT``: the kernel spreads connections over the
workers) and on a unix socket of its own in a private folder. A connection may reach any worker, so every
request names the worker it belongs to, and one that reached another worker is forwarded to it over its
unix socket (``WorkerRouter``, the outermost ASGI layer):

- an episode id names its worker: its last two hex digits (``awm.serve.sessions.new_episode_id``; 120 random
  bits remain). Routes under ``/episodes/{id}`` and ``/envs/<env>/episodes/{id}/...`` go to that worker, and
  so does MCP with an ``X-AWM-Episode`` header. ``POST /episodes`` creates the episode on the worker that
  accepted the connection; a fork or a restore's new episode stays on its parent's worker.
- a legacy MCP session id names its worker the same way: the worker that made the session appends its index
  to the SDK's id on the way out and takes it off on the way in (``SessionSuffix``); requests of the session
  (tools, its SSE stream, DELETE) go there.
- anything else (listings, ``/health``, the viewer, documentation) is answered where it arrives.

A forwarded request is streamed both ways (bodies and SSE streams), with the plane it arrived on. If the
worker that holds an episode has stopped, its episodes are gone: a request for one is answered at once with
503 ``worker_gone`` saying so (never a hang), while the other workers go on serving theirs.

The supervisor (``WorkerSet.run``) binds every socket before it forks the workers, so a busy port is an
error at once; it reports each worker's pid and the readiness of all of them, passes SIGINT/SIGTERM on, and
reports a worker that stops.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import multiprocessing
import os
import re
import select
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from awm.errors import AwmError
from awm.serve.guard import send_error
from awm.serve.sessions import worker_of

_EPISODE_PATH = re.compile(r"^/(?:envs/[^/]+/)?episodes/([^/]+)")
_MCP_PATH = re.compile(r"^/envs/[^/]+/mcp/?$")
_PLANE = b"x-awm-plane"
_HOP = {b"connection", b"keep-alive", b"transfer-encoding", b"content-length", b"te", b"upgrade", _PLANE}
_UPSTREAM_DROP = {b"connection", b"keep-alive", b"transfer-encoding", b"date", b"server"}
_IDLE = 2.0  # seconds an idle forwarding connection is reused (the workers keep them open 5 s)


def session_worker(session: str, workers: int) -> int | None:
    """The worker a (suffixed) MCP session id names."""
    if len(session) != 34:
        return None
    try:
        w = int(session[-2:], 16)
    except ValueError:
        return None
    return w if w < workers else None


class SessionSuffix:
    """Legacy MCP session ids name their worker: the SDK's id plus two hex digits on the way out, the same
    taken off on the way in (inside each worker, so the SDK and the episode store see the SDK's ids)."""

    def __init__(self, app: ASGIApp, worker: int, workers: int):
        self.app, self.suffix, self.workers = app, f"{worker:02x}".encode(), workers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _MCP_PATH.match(scope["path"]):
            await self.app(scope, receive, send)
            return
        headers = []
        for k, v in scope["headers"]:
            if k == b"mcp-session-id" and len(v) == 34 and v.endswith(self.suffix):
                v = v[:-2]
            headers.append((k, v))
        scope = {**scope, "headers": headers}

        async def suffixed(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": [
                        (k, v + self.suffix if k == b"mcp-session-id" and len(v) == 32 else v)
                        for k, v in message.get("headers", [])
                    ],
                }
            await send(message)

        await self.app(scope, receive, suffixed)


@dataclass
class _Pool:
    """Idle HTTP/1.1 connections to one worker's unix socket."""

    path: str
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]] = field(default_factory=list)

    async def get(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        now = time.monotonic()
        while self.idle:
            r, w, since = self.idle.pop()
            if now - since < _IDLE and not r.at_eof() and not w.is_closing():
                return r, w
            w.close()
        return await asyncio.wait_for(asyncio.open_unix_connection(self.path), 5)

    def put(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        self.idle.append((r, w, time.monotonic()))


class WorkerGone(Exception):
    """The worker a request was forwarded to has stopped; ``before_sending``: nothing of it reached there."""

    def __init__(self, why: str, before_sending: bool = False):
        super().__init__(why)
        self.before_sending = before_sending


class WorkerRouter:
    """Sends each request to the worker that holds its episode or session (see the module's docstring)."""

    def __init__(self, app: ASGIApp, worker: int, workers: int, sockets: list[str], control_ports: set[int]):
        self.app, self.worker, self.workers = app, worker, workers
        self.pools = [_Pool(p) for p in sockets]
        self.control_ports = control_ports
        self.turn = worker  # the worker the next new episode goes to (round robin)

    def owner(self, scope: Scope) -> tuple[int | None, str]:
        """The worker a request belongs to (None: any) and what names it."""
        path = scope["path"]
        if m := _EPISODE_PATH.match(path):
            return worker_of(m.group(1), self.workers), f"episode {m.group(1)!r}"
        if _MCP_PATH.match(path):
            session = None
            for k, v in scope["headers"]:
                if k == b"x-awm-episode":
                    eid = v.decode("latin-1")
                    return worker_of(eid, self.workers), f"episode {eid!r}"
                if k == b"mcp-session-id":
                    session = v.decode("latin-1")
            if session is not None:
                return session_worker(session, self.workers), f"MCP session {session!r}"
        return None, ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        server = scope.get("server")
        if server is not None and server[1] is None:  # from another worker, over this worker's unix socket
            plane = next((v for k, v in scope["headers"] if k == _PLANE), b"agent")
            await self.app({**scope, "awm.plane": plane.decode("latin-1")}, receive, send)
            return
        plane = "control" if server is not None and server[1] in self.control_ports else "agent"
        if plane == "control" and scope["method"] == "POST" and scope["path"] == "/episodes":
            # new episodes are spread over the workers (a trainer creates them over one connection)
            chosen, self.turn = self.turn % self.workers, self.turn + 1
            if chosen != self.worker:
                try:
                    await self.forward(chosen, plane, scope, receive, send)
                    return
                except WorkerGone as e:
                    if not e.before_sending:
                        raise
            await self.app(scope, receive, send)  # here, or the chosen worker has stopped: here too
            return
        target, what = self.owner(scope)
        if target is None or target == self.worker:
            await self.app(scope, receive, send)
            return
        try:
            await self.forward(target, plane, scope, receive, send)
        except WorkerGone as e:
            msg = (
                f"{what} is held by worker {target} of {self.workers}, which has stopped ({e}); "
                "its episodes are gone: create a new one"
            )
            await send_error(send, 503, "worker_gone", msg, [(b"connection", b"close")])

    async def forward(self, target: int, plane: str, scope: Scope, receive: Receive, send: Send) -> None:
        pool = self.pools[target]
        try:
            reader, writer = await pool.get()
        except (OSError, TimeoutError) as e:
            raise WorkerGone(type(e).__name__, before_sending=True) from None
        reusable = False
        started = False
        try:
            length = None
            chunked = False
            head = [f"{scope['method']} ".encode() + scope.get("raw_path", scope["path"].encode())]
            if scope.get("query_string"):
                head[0] += b"?" + scope["query_string"]
            head[0] += b" HTTP/1.1"
            for k, v in scope["headers"]:
                if k == b"content-length":
                    length = v
                elif k == b"transfer-encoding":
                    chunked = True
                if k not in _HOP:
                    head.append(k + b": " + v)
            head.append(_PLANE + b": " + plane.encode())
            if length is not None:
                head.append(b"content-length: " + length)
            elif chunked:
                head.append(b"transfer-encoding: chunked")
            writer.write(b"\r\n".join(head) + b"\r\n\r\n")
            # the request body, as it arrives (the owner's guard holds it to its limits in size and time)
            more = length is not None or chunked
            while more:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client left
                body = message.get("body", b"")
                more = message.get("more_body", False)
                if chunked:
                    writer.write(b"%x\r\n%s\r\n" % (len(body), body) if body else b"")
                    if not more:
                        writer.write(b"0\r\n\r\n")
                elif body:
                    writer.write(body)
            await writer.drain()
            try:
                status_line = await reader.readuntil(b"\r\n")
            except (asyncio.IncompleteReadError, ConnectionError) as e:
                raise WorkerGone(type(e).__name__) from None
            status = int(status_line.split(b" ", 2)[1])
            raw_headers = (await reader.readuntil(b"\r\n\r\n"))[:-4]
            headers: list[tuple[bytes, bytes]] = []
            size = None
            up_chunked = keep = False
            for line in raw_headers.split(b"\r\n") if raw_headers else []:
                k, _, v = line.partition(b":")
                k, v = k.strip().lower(), v.strip()
                if k == b"content-length":
                    size = int(v)
                elif k == b"transfer-encoding" and v.lower() == b"chunked":
                    up_chunked = True
                elif k == b"connection" and v.lower() == b"keep-alive":
                    keep = True
                if k not in _UPSTREAM_DROP:
                    headers.append((k, v))
            keep = keep or b"connection: close" not in raw_headers.lower()
            await send({"type": "http.response.start", "status": status, "headers": headers})
            started = True
            watcher = asyncio.ensure_future(_until_disconnect(receive, writer))
            try:
                if scope["method"] == "HEAD" or status in (204, 304) or status < 200:
                    await send({"type": "http.response.body", "body": b""})
                elif size is not None:
                    await send({"type": "http.response.body", "body": await reader.readexactly(size)})
                elif up_chunked:
                    while True:
                        n = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                        if n == 0:
                            await reader.readuntil(b"\r\n")
                            break
                        chunk = await reader.readexactly(n + 2)
                        await send({"type": "http.response.body", "body": chunk[:-2], "more_body": True})
                    await send({"type": "http.response.body", "body": b""})
                else:
                    keep = False
                    while chunk := await reader.read(65536):
                        await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    await send({"type": "http.response.body", "body": b""})
            except (asyncio.IncompleteReadError, ConnectionError, OSError):
                if watcher.done():
                    return  # the client left (an SSE stream it closed): nothing more to send
                raise
            finally:
                watcher.cancel()
            reusable = keep and status != 101
        except (asyncio.IncompleteReadError, ConnectionError, OSError) as e:
            if not started:
                raise WorkerGone(type(e).__name__) from None
            raise  # mid-answer: the client's connection is cut, as the worker's was
        finally:
            if reusable:
                pool.put(reader, writer)
            else:
                writer.close()


async def _until_disconnect(receive: Receive, upstream: asyncio.StreamWriter) -> None:
    """Close the forwarded request's connection when its client leaves (an SSE stream ends so)."""
    while (await receive())["type"] != "http.disconnect":
        pass
    upstream.close()


# -- moving a connection to its worker -----------------------------------------------------------
class Handoff:
    """A new connection whose first request belongs to another worker moves there: its socket (SCM_RIGHTS)
    and the bytes read so far go over that worker's handoff socket, and it serves the connection from then
    on. An agent that keeps one connection for its episode is then never forwarded; a later request on a
    moved connection that names yet another worker is forwarded as usual. When the move cannot be made
    (a large first read, the worker gone), the request is served here and forwarded."""

    MAX = 60_000  # bytes of a first read that may travel with the socket

    def __init__(self, router: WorkerRouter, paths: list[str]):
        self.router, self.paths = router, paths
        self.out = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.out.setblocking(False)

    def target(self, head: bytes) -> int | None:
        """The worker a request head (request line and headers) belongs to, if it is another one."""
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ")
        if len(parts) != 3:
            return None
        path = parts[1].split(b"?", 1)[0].decode("latin-1")
        headers = []
        for line in lines[1:]:
            k, _, v = line.partition(b":")
            headers.append((k.strip().lower(), v.strip()))
        target, _ = self.router.owner({"path": path, "headers": headers})
        return target if target is not None and target != self.router.worker else None

    def give(self, target: int, transport: asyncio.BaseTransport, data: bytes) -> bool:
        sock = transport.get_extra_info("socket")
        if sock is None or len(data) > self.MAX:
            return False
        fds = array.array("i", [sock.fileno()])
        try:
            self.out.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)], 0, self.paths[target])
        except OSError:  # the worker is gone, or its queue is full: serve (forward) it here
            return False
        return True

    @staticmethod
    def receive(dgram: socket.socket, make_protocol: Callable[[], asyncio.Protocol]) -> None:
        """Adopt every connection waiting on this worker's handoff socket (a reader callback)."""
        loop = asyncio.get_running_loop()
        while True:
            try:
                data, anc, _, _ = dgram.recvmsg(Handoff.MAX, socket.CMSG_SPACE(4))
            except (BlockingIOError, InterruptedError):
                return
            fds = array.array("i")
            for level, kind, payload in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
            for fd in fds:
                conn = socket.socket(fileno=fd)
                conn.setblocking(False)

                def factory(data: bytes = data) -> asyncio.Protocol:
                    protocol = make_protocol()
                    protocol.preload = data  # type: ignore[attr-defined]
                    return protocol

                task = asyncio.ensure_future(loop.connect_accepted_socket(factory, conn))
                _ADOPTING.add(task)
                task.add_done_callback(_ADOPTING.discard)


_ADOPTING: set[asyncio.Future[Any]] = set()


class HandoffMixin:
    """Before an http protocol: on a new TCP connection, hold the bytes of the first request head, and move
    the connection if that request belongs to another worker (``Handoff``)."""

    handoff: Handoff | None = None
    max_header_bytes = 32_768
    preload: bytes | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._transport = transport
        tcp = not isinstance(transport.get_extra_info("sockname"), str)
        preload, self.preload = self.preload, None
        self._first: bytes | None = b"" if self.handoff is not None and tcp and preload is None else None
        if preload:
            self.data_received(preload)

    def data_received(self, data: bytes) -> None:
        if self._first is None:
            super().data_received(data)  # type: ignore[misc]
            return
        self._first += data
        end = self._first.find(b"\r\n\r\n")
        if end < 0 and len(self._first) <= self.max_header_bytes:
            return
        buffered, self._first = self._first, None
        handoff = self.handoff
        if end >= 0 and handoff is not None:
            target = handoff.target(buffered[:end])
            if target is not None and handoff.give(target, self._transport, buffered):
                self._transport.close()  # the socket lives on in the other worker
                return
        super().data_received(buffered)  # type: ignore[misc]


# -- the processes --------------------------------------------------------------------------------
def reuseport_sockets(host: str, port: int, n: int) -> list[socket.socket]:
    """``n`` TCP sockets bound to ``host:port`` with ``SO_REUSEPORT`` (port 0: one free port for all)."""
    if not hasattr(socket, "SO_REUSEPORT"):
        raise AwmError("--workers needs SO_REUSEPORT, which this system does not have")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    out: list[socket.socket] = []
    try:
        for _ in range(n):
            sock = socket.socket(family, socket.SOCK_STREAM)
            out.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((host.strip("[]"), port))
            port = sock.getsockname()[1]
    except OSError as e:
        for s in out:
            s.close()
        raise AwmError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return out


def unix_sockets(n: int) -> tuple[Path, list[socket.socket], list[socket.socket]]:
    """A private folder and, for each of ``n`` workers, a stream socket (forwarded requests, ``w<i>.sock``)
    and a datagram socket (connections handed over, ``h<i>.sock``) in it."""
    folder = Path(tempfile.mkdtemp(prefix="awm-serve-"))
    folder.chmod(0o700)
    streams, dgrams = [], []
    for i in range(n):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(folder / f"w{i}.sock"))
        streams.append(sock)
        dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        dgram.bind(str(folder / f"h{i}.sock"))
        dgram.setblocking(False)
        dgrams.append(dgram)
    return folder, streams, dgrams


@dataclass
class WorkerSet:
    """N workers ready to start: ``run`` forks them and supervises."""

    n: int
    agent: list[socket.socket]
    control: list[socket.socket]
    unix: list[socket.socket]
    handoff: list[socket.socket]
    folder: Path
    make_server: Callable[[int], Any]  # in the worker: its uvicorn server (the app routes for worker i)
    say: Callable[[str], None] | None = None

    def close(self) -> None:
        for s in (*self.agent, *self.control, *self.unix, *self.handoff):
            s.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _child(self, i: int, ready: int) -> None:
        mine = {s.fileno() for s in (self.agent[i], self.control[i], self.unix[i], self.handoff[i])}
        for s in (*self.agent, *self.control, *self.unix, *self.handoff):
            if s.fileno() not in mine:
                s.close()
        server = self.make_server(i)
        server.handoff_socket = self.handoff[i]
        server.on_ready = lambda: os.write(ready, b"%c" % i)
        server.run(sockets=[self.agent[i], self.control[i], self.unix[i]])

    def run(self, on_ready: Callable[[], None] | None = None) -> None:
        ctx = multiprocessing.get_context("fork")
        read_end, write_end = os.pipe()
        for s in self.unix:
            s.listen(2048)
        procs = []
        try:
            for i in range(self.n):
                p = ctx.Process(target=self._child, args=(i, write_end), name=f"awm-serve-worker-{i}")
                p.start()
                procs.append(p)
                if self.say is not None:
                    self.say(f"worker {i} of {self.n}: pid {p.pid}")
        finally:
            os.close(write_end)
            for s in (*self.agent, *self.control, *self.unix, *self.handoff):
                s.close()  # the workers hold them: a worker that stops takes its sockets with it
        stopping = False

        def stop(signum: int, frame: Any) -> None:
            nonlocal stopping
            stopping = True
            for p in procs:
                if p.is_alive() and p.pid is not None:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(p.pid, signal.SIGTERM)

        old = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            seen: set[int] = set()
            while len(seen) < self.n and any(p.is_alive() for p in procs):
                r, _, _ = select.select([read_end], [], [], 0.5)
                if r:
                    data = os.read(read_end, 64)
                    if not data:
                        break
                    seen.update(data)
            if len(seen) == self.n and on_ready is not None and not stopping:
                on_ready()
            alive = {p.pid: p for p in procs}
            while alive:
                for pid, p in list(alive.items()):
                    p.join(0.2)
                    if not p.is_alive():
                        del alive[pid]
                        if not stopping and self.say is not None:
                            self.say(
                                f"worker {procs.index(p)} (pid {pid}) stopped with status {p.exitcode}; its episodes "
                                f"are gone, {len(alive)} worker(s) go on"
                            )
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)
            os.close(read_end)
            shutil.rmtree(self.folder, ignore_errors=True)
            for p in procs:
                if p.is_alive():
                    p.kill()
            sys.stderr.flush()
