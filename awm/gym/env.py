"""``AwmEnv``: one registry environment as a Gymnasium env. Everything beyond reset/step is a wrapper."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Sequence
from typing import Any

import gymnasium as gym

from awm.errors import EpisodeClosedError
from awm.gym.spaces import AnyText
from awm.judge.rewards import RewardFn, RewardSpec
from awm.model.distribution import TaskDistribution, TaskMode, WorldMode
from awm.model.registry import default_registry, registry_for
from awm.model.world import CompiledTask, World
from awm.runtime.actions import MAX_ACTION, MAX_OBSERVATION, agent_tools, apply_action, observation_text, step_info
from awm.runtime.episode import Episode
from awm.worldgen import Scale


class AwmEnv(gym.Env[str, str]):
    """Observations and actions are text.

    ``reset`` returns the task instruction; ``step`` takes an action in our JSON form (see
    ``awm.runtime.actions``; wrappers translate OpenAI / Hermes / AWM tool calls into it) and returns the
    tool's result or error as JSON.
    ``info`` carries the task, the tools as OpenAI function schemas (the environment's tools plus
    ``submit_answer``, whose ``answer`` has the task's answer schema), ``reward_components`` (every
    reward channel) and ``diff`` (this step's row changes). Agent mistakes never raise.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        env: str,
        task_id: str | None = None,
        reward: str | RewardSpec | RewardFn | None = None,
        render_mode: str | None = None,
        paths: Sequence[str] | None = None,
        world: World | str | None = None,
        tasks: str = "fixed",
        scale: str = "small",
        distractors: bool = False,
        num_worlds: int = 0,
        start_world: int = 0,
        templates: Sequence[str] | None = None,
        underspecified: bool | None = None,
        min_steps: int = 0,
        max_steps: int | None = None,
    ):
        """``world``: ``"canonical"`` (the bundle's seed data, default), ``"random"`` (a world built from
        each reset's seed; needs ``tasks="templates"``) or a compiled ``World``. ``tasks``: ``"fixed"``,
        ``"templates"`` or ``"all"``. The rest shape the distribution (``awm.model.distribution``)."""
        registry = registry_for(tuple(paths)) if paths else default_registry()
        if isinstance(world, World):
            self.world = world
            self.distribution: TaskDistribution | None = None
        else:
            self.distribution = TaskDistribution(
                env,
                world=WorldMode(world or "canonical"),
                tasks=TaskMode(tasks),
                scale=Scale(scale),
                distractors=distractors,
                num_worlds=num_worlds,
                start_world=start_world,
                templates=tuple(templates) if templates is not None else None,
                underspecified=underspecified,
                min_steps=min_steps,
                max_steps=max_steps,
                registry=registry,
            )
            self.world = registry.load(env)
        self.task_id = task_id
        if task_id is not None:
            self._resolve(task_id)  # fail early on an unknown task
        self.reward_spec = reward
        self.render_mode = render_mode
        self.action_space = AnyText(MAX_ACTION)
        self.observation_space = AnyText(MAX_OBSERVATION)
        self.episode: Episode | None = None
        self._last: str = ""
        self._tools: dict[str, list[dict[str, Any]]] = {}  # per task: the env's tools + its submit_answer

    # -- Gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        options = options or {}
        task_seed = seed if seed is not None else int(self.np_random.integers(2**31))
        task_id = options.get("task_id", self.task_id)
        if self.episode is not None:
            self.episode.close()
        if task_id is not None:
            self.world, ct = self._resolve(task_id)
        elif self.distribution is not None:
            self.world, ct = self.distribution.draw(task_seed)
        else:
            ct = self.world.task(None, task_seed)
        self.episode = self.world.episode(ct.id, seed=task_seed, reward=options.get("reward", self.reward_spec))
        task = self.episode.task.task
        self._last = task.instruction
        info = {
            "env_id": f"awm/{self.world.id}-v{self.world.version}",
            "task_id": task.id,
            "task_kind": str(task.kind),
            "instruction": task.instruction,
            "tools": self.tools_for(task.id),
            "seed": task_seed,
            "world": self.world.key.label,
        }
        if task.template is not None:
            info["template"] = task.template
            info["difficulty"] = task.difficulty.model_dump() if task.difficulty else None
        return task.instruction, info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        ep = self._require_episode()
        if ep.done:
            return self._after_end()
        res = apply_action(ep, action)
        self._last = observation_text(res)
        return self._last, float(res.reward), res.done, False, step_info(ep, res)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        ep = self.episode
        head = f"[{self.world.id} · {ep.task.id} · step {ep.steps}]" if ep else f"[{self.world.id}]"
        return f"{head}\n{self._last}\n"

    def close(self) -> None:
        if self.episode is not None:
            self.episode.close()
            self.episode = None

    def tools_for(self, task_id: str) -> list[dict[str, Any]]:
        """The OpenAI tools of a task: the environment's tools plus its typed ``submit_answer``."""
        if task_id not in self._tools:
            self._tools[task_id] = agent_tools(self.world, self.world.task(task_id).task)
        return copy.deepcopy(self._tools[task_id])

    # -- extras for trainers --------------------------------------------------------------------
    async def astep(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """``step`` in a worker thread, for trainers that drive many episodes from one event loop."""
        return await asyncio.to_thread(self.step, action)

    def snapshot(self) -> Any:
        return self._require_episode().snapshot()

    def restore(self, snapshot: Any) -> None:
        """Back to ``snapshot``; after a submit, in a new episode (a submitted verdict is final)."""
        ep = self._require_episode()
        if ep.submitted:
            self.episode = ep.branch(snapshot)
            ep.close()
        else:
            ep.restore(snapshot)

    def fork(self) -> AwmEnv:
        """An independent env whose episode continues from this one's current state."""
        ep = self._require_episode()
        other = AwmEnv(self.world.id, self.task_id, self.reward_spec, self.render_mode, world=self.world)
        other.distribution = self.distribution
        other.episode = ep.fork()
        other._last = self._last
        return other

    # -- internals ------------------------------------------------------------------------------
    def _resolve(self, task_id: str) -> tuple[World, CompiledTask]:
        if self.distribution is not None:
            return self.distribution.resolve(task_id)
        return self.world, self.world.task(task_id)

    def _after_end(self) -> tuple[str, float, bool, bool, dict[str, Any]]:
        msg = "the episode has ended; call reset() to start a new one"
        obs = json.dumps({"ok": False, "error": {"code": "episode_ended", "message": msg}})
        return obs, 0.0, True, False, {"error": {"code": "episode_ended", "message": msg}}

    def _require_episode(self) -> Episode:
        if self.episode is None:
            raise EpisodeClosedError("call reset() before step()")
        return self.episode
