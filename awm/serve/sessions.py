"""Live episodes of a server: creation with a limit, lookup, idle expiry that never touches a busy
episode, and per-episode serialisation of calls.

Episode ids are server-generated, unguessable tokens (128 random bits): an id is the agent's whole
credential for its episode, so clients never choose one. An episode that a legacy MCP session made
for itself is tied to that session and freed when the session closes."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import queue
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from awm.errors import AwmError, UnknownEnvironmentError
from awm.model.distribution import DistributionError, TaskDistribution
from awm.model.registry import Registry
from awm.model.templates import TemplateError
from awm.model.world import World
from awm.runtime.episode import Episode, Snapshot, StepResult
from awm.worldgen import WorldBuildError

T = TypeVar("T")


class ApiError(AwmError):
    """An error with a stable code and HTTP status, returned as ``{"error": {"code", "message"}}``."""

    def __init__(self, code: str, status: int, message: str):
        self.code, self.status, self.message = code, status, message
        super().__init__(message)


@dataclass
class Slot:
    id: str
    env: str
    episode: Episode
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    last_used: float = field(default_factory=time.monotonic)
    snapshots: dict[str, Snapshot] = field(default_factory=dict)

    call_timeout: float = 30.0
    broken: bool = False
    closed: bool = False  # deleted or expired while a call waited for the lock
    session: str | None = None  # the legacy MCP session this episode belongs to, if it made it
    final: StepResult | None = None  # the step that ended the episode: its verdict, for the control plane

    async def run(self, fn: Callable[[Episode], T]) -> T:
        """Run ``fn(episode)`` in a worker thread, one call at a time per episode.

        SQL inside a tool is stopped by the episode's own deterministic step limit; a tool stuck in
        Python past ``call_timeout`` cannot be stopped, so its episode is retired and the caller told."""
        async with self.lock:
            if self.closed:
                raise ApiError("unknown_episode", 404, f"episode {self.id!r} was deleted")
            if self.broken:
                raise ApiError(
                    "episode_broken",
                    410,
                    f"episode {self.id!r} was retired after a call that did not finish; create a new one",
                )
            self.last_used = time.monotonic()
            try:
                out = await _HOP.run(fn, self.episode, self.call_timeout)
            except TimeoutError:
                self.broken = True
                raise ApiError(
                    "call_timeout",
                    504,
                    f"the call did not finish within {self.call_timeout:.0f} s; episode {self.id!r} is retired",
                ) from None
            finally:
                self.last_used = time.monotonic()
            if isinstance(out, StepResult) and out.done:
                self.final = out
            return out


class _Hop:
    """Runs a blocking call on a worker thread, in a copy of the caller's context, and wakes the event loop
    with its outcome: what ``loop.run_in_executor`` does for a tool call (it is on every call's path), without
    its second future, callback chain and idle semaphore (about 30 µs a call).

    Threads start as calls need them, up to ``max_threads`` (as the default executor); a call beyond that
    waits in the queue for the first thread to free up. A thread stuck in a call that timed out stays
    stuck; its outcome, if it ever comes, is dropped."""

    def __init__(self, max_threads: int):
        self.max_threads = max_threads
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._pid = os.getpid()  # a forked worker process starts with no threads
        self._jobs: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._threads = self._idle = self._waiting = 0

    def run(self, fn: Callable[[Any], T], arg: Any, timeout: float) -> asyncio.Future[T]:
        """A future of ``fn(arg)``; it fails with ``TimeoutError`` after ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[T] = loop.create_future()
        timer = loop.call_later(timeout, _expire, fut)
        fut.add_done_callback(lambda _: timer.cancel())
        with self._lock:
            if self._pid != os.getpid():
                self._reset()
            if self._idle:
                self._idle -= 1  # an idle thread takes it
            elif self._threads < self.max_threads:
                self._threads += 1
                threading.Thread(target=self._work, name="awm-episode-call", daemon=True).start()
            else:
                self._waiting += 1  # the first thread to finish takes it
            jobs = self._jobs
        jobs.put((loop, fut, contextvars.copy_context(), fn, arg))
        return fut

    def _work(self) -> None:
        jobs = self._jobs
        while True:
            loop, fut, ctx, fn, arg = jobs.get()
            try:
                outcome: tuple[Any, BaseException | None] = (ctx.run(fn, arg), None)
            except BaseException as e:  # as an executor's future carries it
                outcome = (None, e)
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(_settle, fut, *outcome)
            del loop, fut, ctx, fn, arg, outcome
            with self._lock:
                if self._waiting:
                    self._waiting -= 1
                else:
                    self._idle += 1


def _settle(fut: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if fut.done():  # timed out, or its caller went away
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)


def _expire(fut: asyncio.Future[Any]) -> None:
    if not fut.done():
        fut.set_exception(TimeoutError())


_HOP = _Hop(min(32, (os.cpu_count() or 1) + 4))


def new_episode_id(worker: int = 0, workers: int = 1) -> str:
    """``ep-`` and 32 hex digits; with several workers the last two name the worker that holds the episode
    (120 random bits remain)."""
    if workers == 1:
        return "ep-" + secrets.token_hex(16)
    return f"ep-{secrets.token_hex(15)}{worker:02x}"


def worker_of(episode_id: str, workers: int) -> int | None:
    """The worker an episode id names (None: not an id this server makes)."""
    if workers == 1 or len(episode_id) != 35 or not episode_id.startswith("ep-"):
        return None
    try:
        w = int(episode_id[-2:], 16)
    except ValueError:
        return None
    return w if w < workers else None


class EpisodeStore:
    def __init__(
        self, registry: Registry, envs: list[str], max_episodes: int, idle_ttl: float, call_timeout: float = 30.0
    ):
        self.call_timeout = call_timeout
        self.registry = registry
        self.envs = envs
        self.max_episodes = max_episodes
        self.idle_ttl = idle_ttl
        self.slots: dict[str, Slot] = {}
        self.sessions: dict[str, str] = {}  # legacy MCP session id -> the episode it made
        self._expired: OrderedDict[str, None] = OrderedDict()
        self._known = frozenset(envs)
        self._loaded: set[str] = set()  # compiled (environments compile on their first use)
        self.worker = 0  # this process's index among the server's workers (it names the episodes it makes)
        self.workers = 1

    def world(self, env: str) -> World:
        """The compiled environment (compiled here on its first use: ``load`` does it off the event loop)."""
        if env not in self._known:
            import difflib

            close = difflib.get_close_matches(env, self.envs, 3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise ApiError("unknown_env", 404, f"unknown environment {env!r}.{hint} Available: {', '.join(self.envs)}")
        try:
            world = self.registry.load(env)
        except UnknownEnvironmentError as e:  # its folder went away after the server started
            raise ApiError("unknown_env", 404, str(e)) from e
        except Exception as e:  # BundleError lists the bundle's problems; anything else is named
            problems = str(e) if isinstance(e, AwmError) else f"{type(e).__name__}: {e}"
            raise ApiError("broken_env", 500, f"environment {env!r} cannot be loaded: {problems}") from e
        self._loaded.add(env)
        return world

    async def load(self, env: str) -> World:
        """``world(env)``, compiling it in a worker thread on its first use so that the server keeps answering."""
        if env in self._loaded:
            return self.world(env)
        return await asyncio.to_thread(self.world, env)

    def loaded(self, env: str) -> bool:
        return env in self._loaded

    def create(
        self,
        env: str,
        task_id: str | None = None,
        seed: int = 0,
        reward: Any = None,
        session: str | None = None,
        distribution: dict[str, Any] | None = None,
    ) -> Slot:
        """A new episode: ``task_id`` (fixed or instance id), else drawn from ``seed`` by ``distribution``
        (``awm.model.distribution.TaskDistribution``'s options; default: the canonical world's fixed tasks)."""
        self.world(env)
        self._make_room()
        try:
            dist = TaskDistribution(env, registry=self.registry, **(distribution or {}))
        except DistributionError as e:  # nothing to draw from: no such task on that world (a 404, like an unknown task)
            raise ApiError("unknown_task", 404, str(e)) from e
        try:
            world, ct = dist.resolve(task_id) if task_id is not None else dist.draw(seed)
            episode = world.episode(ct.id, seed=seed, reward=reward)
        except (WorldBuildError, TemplateError) as e:
            raise ApiError("invalid_request", 400, str(e)) from e
        except AwmError as e:
            raise ApiError("unknown_task", 404, str(e)) from e
        except ValueError as e:
            raise ApiError("invalid_request", 400, str(e)) from e
        slot = self._add(env, episode)
        if session is not None:
            slot.session = session
            self.sessions[session] = slot.id
        return slot

    def adopt(self, env: str, episode: Episode) -> Slot:
        """Register an episode made elsewhere (a fork) under a new id."""
        try:
            self._make_room()
        except ApiError:
            episode.close()
            raise
        return self._add(env, episode)

    def _make_room(self) -> None:
        if len(self.slots) >= self.max_episodes:
            self.sweep()
            if len(self.slots) >= self.max_episodes:
                raise ApiError(
                    "limit_reached",
                    503,
                    f"the server holds its maximum of {self.max_episodes} live "
                    "episodes; delete finished ones (DELETE /episodes/{id}) or retry later",
                )

    def _add(self, env: str, episode: Episode) -> Slot:
        slot = Slot(new_episode_id(self.worker, self.workers), env, episode, call_timeout=self.call_timeout)
        self.slots[slot.id] = slot
        return slot

    def get(self, episode_id: str) -> Slot:
        slot = self.slots.get(episode_id)
        if slot is None:
            if episode_id in self._expired:
                raise ApiError(
                    "expired_episode",
                    410,
                    f"episode {episode_id!r} expired after {self.idle_ttl:.0f} s idle; create a new one",
                )
            msg = f"unknown episode {episode_id!r}; the control plane creates them (POST /episodes)"
            raise ApiError("unknown_episode", 404, msg)
        return slot

    def delete(self, episode_id: str) -> None:
        slot = self.get(episode_id)
        del self.slots[episode_id]
        slot.closed = True
        if slot.session is not None:
            self.sessions.pop(slot.session, None)
        if not slot.broken:  # a retired episode's connection may still be in use by its stuck thread
            slot.episode.close()

    async def close_session(self, session: str) -> bool:
        """Free the episode a legacy MCP session made for itself (the session was closed); a call in
        progress on it finishes first."""
        slot = self.slots.get(self.sessions.get(session, ""))
        if slot is None:
            self.sessions.pop(session, None)
            return False
        async with slot.lock:
            if self.slots.get(slot.id) is slot:
                self.delete(slot.id)
        return True

    def sweep(self, now: float | None = None) -> int:
        """Drop episodes idle longer than the TTL; a busy one is never touched."""
        now = time.monotonic() if now is None else now
        dead = [s for s in self.slots.values() if not s.lock.locked() and now - s.last_used > self.idle_ttl]
        for s in dead:
            del self.slots[s.id]
            s.closed = True  # a session keeps its expired episode's id: its next call is told, not given a new one
            if not s.broken:  # a retired episode's connection may still be in use by its stuck thread
                s.episode.close()
            self._expired[s.id] = None
            while len(self._expired) > 100_000:
                self._expired.popitem(last=False)
        while len(self.sessions) > max(100_000, len(self.slots)):  # sessions that expired without closing
            del self.sessions[next(iter(self.sessions))]
        return len(dead)

    def close_all(self) -> None:
        for s in list(self.slots.values()):
            s.closed = True
            if not s.broken:
                s.episode.close()
        self.slots.clear()
        self.sessions.clear()
