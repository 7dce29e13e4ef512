"""Parent side of a sandboxed worker: start it, send it requests, answer its SQL, kill it on a breach.

A ``Worker`` is one bubblewrap process (``awm.isolation.sandbox``) speaking the framed protocol of
``guest/protocol.py`` over two pipes. ``request`` sends one message and serves what the worker asks
while it works (``sql`` requests, answered by the caller's ``handler``; ``tx`` notices) until its
``done`` reply. Every read has the request's deadline: past it, or on anything that is not a valid
message, or when the process dies, the worker is killed and the request raises (``WorkerTimeout`` /
``WorkerCrashed``); the next request starts a fresh worker and replays its ``setup`` (e.g. loading
the app), so a breach costs one call, never the environment.

A ``Pool`` holds the workers of one piece of code (one app, one verifier set): up to ``size`` of
them, each serving one request at a time, so a slow call of one environment never waits behind
another environment's, and two episodes of one environment can run at once.
"""

from __future__ import annotations

import collections
import contextlib
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

from awm.errors import IsolationError, WorkerCrashed, WorkerTimeout
from awm.isolation.guest import protocol
from awm.isolation.sandbox import INSTALL_HINT, Limits, available, command, drop_privileges, preexec_limits

Handler = Callable[[dict[str, Any]], dict[str, Any] | None]
STDERR_KEEP = 4_000
SANDBOX_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}


class Worker:
    def __init__(self, kind: str, limits: Limits, setup: Callable[[Worker], None] | None = None):
        self.kind = kind
        self.limits = limits
        self.setup = setup
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.generation = 0  # the pool's generation it belongs to
        self._stderr: collections.deque[bytes] = collections.deque(maxlen=64)
        self._in = self._out = -1

    # -- life ------------------------------------------------------------------------------------
    def _start(self) -> None:
        if not available():
            raise IsolationError(INSTALL_HINT)
        limits = self.limits
        self.proc = subprocess.Popen(
            command(self.kind, limits),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: preexec_limits(limits),
            close_fds=True,
            env=SANDBOX_ENV,  # bwrap's own init (pid 1 inside) keeps its environment: give it nothing
            **drop_privileges(),
        )
        self.starts += 1
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self._in, self._out = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        stderr = self.proc.stderr
        self._stderr.clear()
        threading.Thread(target=self._drain, args=(stderr,), daemon=True, name="awm-worker-stderr").start()
        try:
            hello, _ = self._receive(time.monotonic() + limits.start_s)
        except IsolationError:
            self.kill()
            raise
        if hello.get("op") != "ready" or hello.get("error"):
            self.kill()
            raise WorkerCrashed(f"the sandbox did not start: {hello.get('error') or hello}")
        if self.setup is not None:
            self.setup(self)

    def _drain(self, stream: Any) -> None:
        with contextlib.suppress(Exception):
            while chunk := stream.read1(4096):
                self._stderr.append(chunk)

    def stderr_tail(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")[-STDERR_KEEP:]

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            proc.send_signal(signal.SIGKILL)  # bwrap dies; --die-with-parent takes the sandbox with it
        with contextlib.suppress(Exception):
            proc.wait(5)
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(Exception):
                stream.close()  # type: ignore[union-attr]

    close = kill

    # -- messages --------------------------------------------------------------------------------
    def request(
        self,
        header: dict[str, Any],
        blobs: tuple[bytes, ...] = (),
        *,
        handler: Handler | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Send one request; serve the worker's messages through ``handler`` until it is done.

        ``handler`` answers a message with a reply (sent back) or None (a notice, nothing is sent);
        it raises ``WorkerCrashed`` or ``ProtocolError`` for a message it does not accept."""
        if not self.alive:
            self._start()
        deadline = time.monotonic() + (timeout if timeout is not None else self.limits.call_s)
        try:
            protocol.write_all(self._in, protocol.pack(header, blobs))
            while True:
                message, _ = self._receive(deadline)
                op = message.get("op")
                if op == "done":
                    return message
                if handler is None:
                    raise WorkerCrashed(f"the worker sent an unexpected message {str(op)[:40]!r}")
                reply = handler(message)  # raises on a message it does not know; None: a notice
                if reply is not None:
                    protocol.write_all(self._in, protocol.pack(reply))
        except (OSError, protocol.ProtocolError) as e:
            tail = self.stderr_tail().strip().splitlines()[-3:]
            self.kill()
            raise WorkerCrashed(f"the worker died ({e})" + (": " + " | ".join(tail) if tail else "")) from e
        except BaseException:  # a timeout, or the caller interrupted (Ctrl-C, an alarm): never reuse it mid-request
            self.kill()
            raise

    def _receive(self, deadline: float) -> tuple[dict[str, Any], list[bytes]]:
        header = protocol.parse_header(self._read_frame(deadline))
        return header, [self._read_frame(deadline) for _ in range(header.get("blobs", 0))]

    def _read_frame(self, deadline: float) -> bytes:
        (n,) = protocol.HEADER.unpack(self._read_exact(protocol.HEADER.size, deadline))
        if n > protocol.MAX_FRAME:
            raise protocol.ProtocolError(f"a frame of {n} bytes")
        return self._read_exact(n, deadline)

    def _read_exact(self, n: int, deadline: float) -> bytes:
        chunks = []
        while n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                raise WorkerTimeout(f"no answer within the {self.kind} worker's time limit")
            chunk = os.read(self._out, min(n, 1 << 20))
            if not chunk:
                raise protocol.ProtocolError("the pipe closed")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)


class Pool:
    """Up to ``size`` workers for one piece of code; each request takes a free one (or starts one)."""

    def __init__(self, kind: str, limits: Limits, setup: Callable[[Worker], None] | None = None, size: int = 2):
        self.kind, self.limits, self.setup, self.size = kind, limits, setup, max(1, size)
        self._free: list[Worker] = []
        self._count = 0
        self._generation = 0
        self._cond = threading.Condition()
        self.last_used = time.monotonic()

    def request(self, header: dict[str, Any], blobs: tuple[bytes, ...] = (), **kwargs: Any) -> dict[str, Any]:
        worker = self._take()
        try:
            return worker.request(header, blobs, **kwargs)
        finally:
            self._give(worker)

    def _take(self) -> Worker:
        with self._cond:
            while True:
                if self._free:
                    return self._free.pop()
                if self._count < self.size:
                    self._count += 1
                    worker = Worker(self.kind, self.limits, self.setup)
                    worker.generation = self._generation
                    return worker
                self._cond.wait()

    def _give(self, worker: Worker) -> None:
        with self._cond:
            self.last_used = time.monotonic()
            if worker.generation != self._generation:  # the pool was closed while it worked
                worker.kill()
            else:
                self._free.append(worker)
            self._cond.notify()

    @property
    def busy_or_warm(self) -> bool:
        """Whether the pool holds a worker (one at work, or one waiting that has started)."""
        with self._cond:
            return self._count > len(self._free) or any(w.alive for w in self._free)

    def warm(self) -> Worker:
        """Start one worker now (and keep it): its setup's result is what loading the code gives."""
        worker = self._take()
        try:
            if not worker.alive:
                worker._start()
        finally:
            self._give(worker)
        return worker

    def close(self) -> None:
        """End every worker (one at work ends when its request does); the pool restarts on its next use."""
        with self._cond:
            for w in self._free:
                w.kill()
            self._free.clear()
            self._count = 0
            self._generation += 1
            self._cond.notify_all()
