"""``EpisodePool``: episodes spread over Ray actors; resets and steps are batched per actor, and each
step returns exactly what ``gym.make("awm/<env>-v<N>")`` returns for the same action."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from awm.errors import AwmError

StepOut = tuple[str, float, bool, bool, dict[str, Any]]


class _Host:
    """One actor: a compiled world and the episodes it holds (``ray.remote`` is applied lazily)."""

    def __init__(self, env: str, paths: Sequence[str] | None, reward: Any, max_steps: int | None):
        from awm.model.registry import load

        self.world = load(env, paths=paths)
        self.reward = reward
        self.max_steps = max_steps
        self.episodes: dict[int, Any] = {}
        self.tools: dict[str, list[dict[str, Any]]] = {}  # per task: the env's tools + its submit_answer

    def reset(self, items: list[tuple[int, str | None, int]]) -> list[tuple[str, dict[str, Any]]]:
        from awm.runtime.actions import agent_tools

        out = []
        for eid, task_id, seed in items:
            old = self.episodes.pop(eid, None)
            if old is not None:
                old.close()
            ep = self.world.episode(task_id, seed=seed, reward=self.reward)
            self.episodes[eid] = ep
            task = ep.task.task
            if task.id not in self.tools:
                self.tools[task.id] = agent_tools(self.world, task)
            out.append(
                (
                    task.instruction,
                    {
                        "env_id": f"awm/{self.world.id}-v{self.world.version}",
                        "task_id": task.id,
                        "task_kind": str(task.kind),
                        "instruction": task.instruction,
                        "tools": self.tools[task.id],
                        "seed": seed,
                    },
                )
            )
        return out

    def step(self, items: list[tuple[int, Any]]) -> list[StepOut]:
        from awm.runtime.actions import apply_action, observation_text, step_info

        out: list[StepOut] = []
        for eid, action in items:
            ep = self.episodes.get(eid)
            if ep is None or ep.done:
                msg = "the episode has ended; reset it" if ep is not None else f"unknown episode {eid}"
                out.append(
                    (
                        '{"ok": false, "error": {"code": "episode_ended", "message": "' + msg + '"}}',
                        0.0,
                        True,
                        False,
                        {"error": {"code": "episode_ended", "message": msg}},
                    )
                )
                continue
            res = apply_action(ep, action)
            truncated = not res.done and self.max_steps is not None and ep.steps >= self.max_steps
            out.append((observation_text(res), float(res.reward), res.done, truncated, step_info(ep, res)))
        return out

    def state_bytes(self, eid: int) -> bytes:
        return self.episodes[eid].state_bytes()

    def close(self, eids: list[int]) -> int:
        for eid in eids:
            ep = self.episodes.pop(eid, None)
            if ep is not None:
                ep.close()
        return len(self.episodes)


@dataclass(frozen=True)
class EpisodeHandle:
    """Where an episode lives: its actor and its id there."""

    host: int
    id: int


class EpisodePool:
    """``hosts`` Ray actors serving one environment (default: as many as the cluster's CPUs hold,
    ``num_cpus`` each).
    Needs ``ray`` (the ``ray`` extra); starts a local cluster if ``ray.init()`` was not called."""

    def __init__(
        self,
        env: str,
        hosts: int | None = None,
        *,
        paths: Sequence[str] | None = None,
        reward: Any = None,
        max_steps: int | None = None,
        num_cpus: float = 1.0,
    ):
        try:
            import ray
        except ImportError as e:  # pragma: no cover - exercised only without the extra
            raise AwmError("EpisodePool needs Ray: pip install 'awm-gym[ray]'") from e
        if hosts is not None and hosts < 1:
            raise ValueError("hosts must be at least 1")
        if not ray.is_initialized():
            ray.init(include_dashboard=False, log_to_driver=False)
        if hosts is None:  # every core: as many actors as the cluster's CPUs hold
            hosts = max(1, int(ray.cluster_resources().get("CPU", num_cpus) // num_cpus))
        self._ray: Any = ray
        actor: Any = ray.remote(num_cpus=num_cpus)(_Host)
        self.hosts: list[Any] = [
            actor.remote(env, list(paths) if paths else None, reward, max_steps) for _ in range(hosts)
        ]
        self._next = 0

    def reset(
        self,
        seeds: Iterable[int] = (0,),
        task_ids: Sequence[str | None] | None = None,
        handles: Sequence[EpisodeHandle] | None = None,
    ) -> list[tuple[EpisodeHandle, str, dict[str, Any]]]:
        """Start one episode per seed (round-robin over the actors), or restart ``handles`` in place."""
        seeds = list(seeds)
        tasks = list(task_ids) if task_ids is not None else [None] * len(seeds)
        if len(tasks) != len(seeds) or (handles is not None and len(handles) != len(seeds)):
            raise ValueError("seeds, task_ids and handles must have the same length")
        if handles is None:
            handles = []
            for _ in seeds:
                handles.append(EpisodeHandle(self._next % len(self.hosts), self._next))
                self._next += 1
        batches: dict[int, list[tuple[int, tuple[int, str | None, int]]]] = defaultdict(list)
        for i, (h, task, seed) in enumerate(zip(handles, tasks, seeds, strict=True)):
            batches[h.host].append((i, (h.id, task, seed)))
        results = self._gather({host: [item for _, item in b] for host, b in batches.items()}, "reset")
        out: list[Any] = [None] * len(seeds)
        for host, b in batches.items():
            for (i, _), (obs, info) in zip(b, results[host], strict=True):
                out[i] = (handles[i], obs, info)
        return out

    def step(self, handles: Sequence[EpisodeHandle], actions: Sequence[Any]) -> list[StepOut]:
        """Step every episode with its action: one round trip per actor, results in input order."""
        if len(handles) != len(actions):
            raise ValueError(f"{len(handles)} episodes but {len(actions)} actions")
        batches: dict[int, list[tuple[int, tuple[int, Any]]]] = defaultdict(list)
        for i, (h, a) in enumerate(zip(handles, actions, strict=True)):
            batches[h.host].append((i, (h.id, a)))
        results = self._gather({host: [item for _, item in b] for host, b in batches.items()}, "step")
        out: list[Any] = [None] * len(handles)
        for host, b in batches.items():
            for (i, _), r in zip(b, results[host], strict=True):
                out[i] = r
        return out

    def state_bytes(self, handle: EpisodeHandle) -> bytes:
        """The episode's database, serialised (for determinism checks)."""
        return bytes(self._ray.get(self.hosts[handle.host].state_bytes.remote(handle.id)))

    def close(self, handles: Sequence[EpisodeHandle] | None = None) -> None:
        """Close some episodes, or (no argument) every actor."""
        if handles is None:
            for actor in self.hosts:
                self._ray.kill(actor)
            self.hosts = []
            return
        by_host: dict[int, list[int]] = defaultdict(list)
        for h in handles:
            by_host[h.host].append(h.id)
        self._ray.get([self.hosts[host].close.remote(ids) for host, ids in by_host.items()])

    def _gather(self, batches: dict[int, list[Any]], method: str) -> dict[int, Any]:
        refs = {host: getattr(self.hosts[host], method).remote(items) for host, items in batches.items()}
        values = self._ray.get(list(refs.values()))
        return dict(zip(refs.keys(), values, strict=True))
