"""Live episodes of a server: creation with a limit, lookup, idle expiry that never touches a busy
episode, and per-episode serialisation of calls."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from awm.episode import Episode, Snapshot
from awm.errors import AwmError
from awm.registry import Registry
from awm.world import World

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

    async def run(self, fn: Callable[[Episode], T]) -> T:
        """Run ``fn(episode)`` in a worker thread, one call at a time per episode.

        SQL inside a tool is stopped by the episode's own deterministic step limit; a tool stuck in
        Python past ``call_timeout`` cannot be stopped, so its episode is retired and the caller told."""
        async with self.lock:
            if self.broken:
                raise ApiError(
                    "episode_broken",
                    410,
                    f"episode {self.id!r} was retired after a call that did not finish; create a new one",
                )
            self.last_used = time.monotonic()
            try:
                return await asyncio.wait_for(asyncio.to_thread(fn, self.episode), self.call_timeout)
            except TimeoutError:
                self.broken = True
                raise ApiError(
                    "call_timeout",
                    504,
                    f"the call did not finish within {self.call_timeout:.0f} s; episode {self.id!r} is retired",
                ) from None
            finally:
                self.last_used = time.monotonic()


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
        self._expired: OrderedDict[str, None] = OrderedDict()

    def world(self, env: str) -> World:
        if env not in self.envs:
            import difflib

            close = difflib.get_close_matches(env, self.envs, 3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise ApiError("unknown_env", 404, f"unknown environment {env!r}.{hint} Available: {', '.join(self.envs)}")
        return self.registry.load(env)

    def create(
        self, env: str, task_id: str | None = None, seed: int = 0, reward: Any = None, episode_id: str | None = None
    ) -> Slot:
        world = self.world(env)
        if len(self.slots) >= self.max_episodes:
            self.sweep()
            if len(self.slots) >= self.max_episodes:
                raise ApiError(
                    "limit_reached",
                    503,
                    f"the server holds its maximum of {self.max_episodes} live "
                    "episodes; delete finished ones (DELETE /episodes/{id}) or retry later",
                )
        try:
            episode = world.episode(task_id, seed=seed, reward=reward)
        except AwmError as e:
            raise ApiError("unknown_task", 404, str(e)) from e
        except ValueError as e:
            raise ApiError("invalid_request", 400, str(e)) from e
        eid = episode_id or "ep-" + secrets.token_hex(8)
        if eid in self.slots:
            raise ApiError("invalid_request", 409, f"episode id {eid!r} is already in use")
        slot = Slot(eid, env, episode, call_timeout=self.call_timeout)
        self.slots[eid] = slot
        self._expired.pop(eid, None)
        return slot

    def adopt(self, env: str, episode: Episode) -> Slot:
        """Register an episode made elsewhere (a fork) under a new id."""
        if len(self.slots) >= self.max_episodes:
            raise ApiError("limit_reached", 503, f"the server holds its maximum of {self.max_episodes} episodes")
        slot = Slot("ep-" + secrets.token_hex(8), env, episode, call_timeout=self.call_timeout)
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
            raise ApiError("unknown_episode", 404, f"unknown episode {episode_id!r}; create one with POST /episodes")
        return slot

    def delete(self, episode_id: str) -> None:
        slot = self.get(episode_id)
        del self.slots[episode_id]
        slot.episode.close()

    def sweep(self, now: float | None = None) -> int:
        """Drop episodes idle longer than the TTL; a busy one is never touched."""
        now = time.monotonic() if now is None else now
        dead = [s for s in self.slots.values() if not s.lock.locked() and now - s.last_used > self.idle_ttl]
        for s in dead:
            del self.slots[s.id]
            if not s.broken:  # a retired episode's connection may still be in use by its stuck thread
                s.episode.close()
            self._expired[s.id] = None
            while len(self._expired) > 100_000:
                self._expired.popitem(last=False)
        return len(dead)

    def close_all(self) -> None:
        for s in list(self.slots.values()):
            if not s.broken:
                s.episode.close()
        self.slots.clear()
