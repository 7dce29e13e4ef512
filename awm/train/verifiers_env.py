"""Our environments as a PrimeIntellect ``verifiers`` (v1 stack, 0.4.x) taskset: one task per (environment, task,
seed), a per-rollout MCP tool server holding the rollout's own isolated episode, and the verifier's 0/1 as the reward.

verifiers 0.4 splits an environment into a ``Taskset`` (the rows), a ``Task`` (per-row hooks and ``@reward`` /
``@metric`` scoring), ``Toolset`` MCP servers (the tools; a task-level toolset is launched once per rollout, in its
own process) and a harness (the agent program that talks to the model). So:

- ``AwmTaskset`` yields one ``AwmTask`` per task row (``task_rows``: system prompt + instruction, ``env``,
  ``task_id`` and a stable seed). The task data carries only ids: no checks, gold solutions or verdicts.
- ``AwmToolset`` is the task's tool server, in its own process (``python -m awm.train.verifiers_env``; it gets the
  rollout's task data over verifiers' ``/task`` channel and its ``AwmToolsetConfig`` as ``VF_CONFIG``):
  ``setup_task`` opens the rollout's episode, ``list_tools`` advertises the environment's tools plus
  ``submit_answer`` (the task's typed answer schema), ``call_tool`` runs each call through ``apply_action`` (bad
  input becomes an observation the model can correct) and appends the call to the rollout state's action log
  (synced back to the host over verifiers' state channel). ``submit_answer`` ends it.
- Scoring runs in the host process, as the judge: ``verdict`` replays the logged actions on a fresh episode of the
  same seed and submits the logged answer (no answer: a truncated rollout, outcome 0), so the reward never trusts
  numbers reported by the tool process (the replay costs a few ms, against seconds of model turns).
  ``outcome`` is the one weighted reward (1.0); ``progress``, ``validity``, ``gated_process`` and ``num_calls``
  are recorded as metrics (weight 0).

``load_environment(...)`` builds the ``SingleAgentEnv`` that ``vf-eval`` / prime-rl construct from the taskset id
``awm-gym`` (the ``integrations/verifiers`` package re-exports the taskset under that id).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import verifiers.v1 as vf
from mcp.types import CallToolResult, TextContent, Tool
from pydantic import BaseModel, Field

from awm.judge.rewards import RewardChannels
from awm.model.world import World
from awm.runtime.actions import agent_tools, apply_action, observation_text
from awm.runtime.episode import Episode
from awm.runtime.submit import SUBMIT
from awm.train.trl_env import task_rows

TASKSET_ID = "awm-gym"  # the module ``awm_gym`` (integrations/verifiers) that re-exports AwmTaskset
_ENDED = {"ok": False, "error": {"code": "episode_ended", "message": "the episode has ended"}}


class AwmState(vf.State):
    """Per-rollout state synced between the tool server and the host: the calls as the model sent them."""

    actions: list[dict[str, Any]] = Field(default_factory=list)  # {"tool": name, "arguments": ...}, in order
    submitted: bool = False


class AwmData(vf.TaskData):
    """One row: which environment, task and seed (ids only: the policy never sees checks or gold data)."""

    env: str
    task_id: str
    seed: int = 0


class AwmToolsetConfig(vf.ToolsetConfig):
    """The tool server's config: verifiers hands it to the server process (``VF_CONFIG``), which sees no task
    config, so the observation cap travels here."""

    max_observation_chars: int | None = None


class AwmTaskConfig(vf.TaskConfig):
    """Knobs under ``--env.taskset.task.*``."""

    tools: AwmToolsetConfig = AwmToolsetConfig()
    max_observation_chars: int | None = None  # copied onto ``tools`` (the server's own config)


class AwmTasksetConfig(vf.TasksetConfig):
    """``--env.taskset.*``: the environments, an optional task filter, repeats and the seed."""

    envs: list[str] = Field(default_factory=lambda: ["online_store"])
    tasks: list[str] = Field(default_factory=list)  # task ids (or template instances); empty: all
    repeats: int = 1
    seed: int = 0
    task: AwmTaskConfig = AwmTaskConfig()


@functools.lru_cache(maxsize=64)
def _world(name: str) -> World:
    import awm

    return awm.load(name)


def open_episode(data: AwmData) -> Episode:
    """The rollout's isolated episode: a fixed task, or a template instance on its own built world."""
    world, ct = _world(data.env).resolve(data.task_id)
    return world.episode(ct.id, seed=int(data.seed))


class Verdict(BaseModel):
    """The judge's replay of one rollout: the final channels and one ``RewardChannels`` dict per call."""

    final: dict[str, Any]
    steps: list[dict[str, Any]] = Field(default_factory=list)
    truncated: bool = False


def verdict(data: AwmData, state: AwmState) -> Verdict:
    """Replay the logged calls on a fresh episode with the same seed and finish it with the logged answer."""
    ep = open_episode(data)
    try:
        steps: list[RewardChannels] = []
        res = None
        for action in state.actions:
            if ep.done:
                break
            res = apply_action(ep, action)
            if not res.done:
                steps.append(res.rewards)
        truncated = not ep.done
        if truncated:  # cut off without a submit_answer: over, with no answer (outcome 0, as in eval)
            res = ep.submit(None)
        assert res is not None
        return Verdict(final=res.rewards.to_dict(), steps=[c.to_dict() for c in steps], truncated=truncated)
    finally:
        ep.close()


class AwmToolset(vf.Toolset[AwmToolsetConfig, AwmState]):
    """The rollout's tool server: our tools and ``submit_answer``, advertised bare (no server prefix)."""

    TOOL_PREFIX = None

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        self.episode: Episode | None = None
        self.max_observation_chars: int | None = getattr(config, "max_observation_chars", None)

    async def setup_task(self, task: Any) -> None:
        """Open the rollout's episode. In the server process verifiers passes the task's data (fetched from the
        rollout's ``/task`` channel), not the ``Task``; accept either."""
        if self.episode is not None:
            self.episode.close()
        self.episode = open_episode(getattr(task, "data", task))

    def register(self, mcp: Any) -> None:
        # the tool list depends on the rollout's task (submit_answer's answer schema), as in verifiers' NeMo Gym
        # bridge: replace the protocol handlers instead of registering static tools
        mcp.list_tools = self._with_state(self.list_tools)
        mcp.call_tool = self._with_state(self.call_tool)

    async def list_tools(self) -> list[Tool]:
        ep = self.episode
        if ep is None:
            return []
        return [
            Tool(name=f["name"], description=f.get("description"), input_schema=f["parameters"])
            for f in (t["function"] for t in agent_tools(ep.world, ep.task.task))
        ]

    async def call_tool(self, name: str, arguments: Any = None, context: Any = None) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=self.step(name, arguments))], is_error=False)

    def step(self, name: Any, arguments: Any) -> str:
        """Run one call on the episode and log it; never raises for bad input (the model reads the error)."""
        ep = self.episode
        if ep is None:
            return json.dumps({"ok": False, "error": {"code": "no_episode", "message": "no task is running"}})
        if ep.done:
            return json.dumps(_ENDED)
        action = {"tool": str(name), "arguments": {} if arguments is None else arguments}
        res = apply_action(ep, action)
        self.state.actions.append(action)
        if res.done and name == SUBMIT:
            self.state.submitted = True
        text = observation_text(res)
        limit = self.max_observation_chars
        if limit is not None and len(text) > limit:
            text = text[:limit] + f"... [{len(text) - limit} more characters cut; narrow the request]"
        return text


def _verdict(task: AwmTask, trace: Any) -> Verdict:
    """One replay per trace, shared by the reward and the metrics."""
    cached = trace.info.get("awm_verdict")
    if cached is None:
        v = verdict(task.data, trace.state if isinstance(trace.state, AwmState) else AwmState())
        trace.info["awm_verdict"] = v.model_dump(mode="json")
        return v
    return Verdict.model_validate(cached)


def _channels(step: dict[str, Any]) -> RewardChannels:
    return RewardChannels(**{k: v for k, v in step.items() if k in RewardChannels.__dataclass_fields__})


def _valid(step: dict[str, Any]) -> bool:
    """A call that named a real tool with valid arguments and neither failed nor timed out."""
    ch = _channels(step)
    return ch.valid and not (ch.tool_error or ch.timeout)


def _clean(step: dict[str, Any]) -> bool:
    """Valid, and neither redundant nor a no-op."""
    ch = _channels(step)
    return _valid(step) and not (ch.redundant or ch.noop)


class AwmTask(vf.Task[AwmData, AwmState, AwmTaskConfig]):
    """One (environment, task, seed): its tool server, the outcome reward and the other channels as metrics."""

    @property
    def key(self) -> str:
        return f"{self.data.env}/{self.data.task_id}#{self.data.seed}"

    @classmethod
    def toolsets(cls, config: AwmTaskConfig) -> list[vf.Toolset]:
        tools = config.tools
        if config.max_observation_chars is not None:
            tools = tools.model_copy(update={"max_observation_chars": config.max_observation_chars})
        return [AwmToolset(tools)]

    @vf.reward(weight=1.0)
    async def outcome(self, trace: Any) -> float:
        """1.0 iff every check holds, the answer is right and the net change is exactly the expected one."""
        v = _verdict(self, trace)
        return 0.0 if v.truncated else float(v.final.get("outcome") or 0.0)

    @vf.metric
    async def progress(self, trace: Any) -> float:
        """Φ of the final state: the weighted fraction of the task's checks that hold (partial credit)."""
        return float(_verdict(self, trace).final.get("progress") or 0.0)

    @vf.metric
    async def validity(self, trace: Any) -> float:
        """Minus the fraction of tool calls that were malformed, unknown, invalid, failed or timed out."""
        steps = _verdict(self, trace).steps
        bad = sum(not _valid(s) for s in steps)
        return -bad / len(steps) if steps else 0.0

    @vf.metric
    async def gated_process(self, trace: Any) -> float:
        """Outcome × the fraction of clean calls (valid, no error, not redundant, not a no-op)."""
        v = _verdict(self, trace)
        outcome = 0.0 if v.truncated else float(v.final.get("outcome") or 0.0)
        return outcome * (sum(map(_clean, v.steps)) / len(v.steps) if v.steps else 1.0)

    @vf.metric
    async def num_calls(self, trace: Any) -> float:
        return float(len(_verdict(self, trace).steps))


class AwmTaskset(vf.Taskset[AwmTask, AwmTasksetConfig]):
    """The rows: system prompt + instruction, and the ids that open the episode."""

    def load(self) -> list[AwmTask]:
        cfg = self.config
        worlds = [_world(name) for name in cfg.envs]
        tasks = []
        for row in task_rows(worlds, cfg.tasks or None, cfg.repeats, cfg.seed, per_task=False):
            system, user = row["prompt"][0]["content"], row["prompt"][1]["content"]
            data = AwmData(
                name=f"{row['environment']}/{row['task_id']}",
                prompt=user,
                system_prompt=system,
                env=row["environment"],
                task_id=row["task_id"],
                seed=row["seed"],
            )
            tasks.append(AwmTask(data, cfg.task))
        return tasks


def load_environment(
    envs: list[str] | str = "online_store", tasks: list[str] | None = None, repeats: int = 1, **env: Any
) -> vf.Env:
    """The env ``vf-eval awm-gym`` runs: verifiers' single-agent env over ``AwmTaskset``. ``env`` goes to
    ``SingleAgentEnvConfig`` (e.g. ``agent={"harness": {"id": "null"}}``)."""
    taskset = AwmTasksetConfig(
        id=TASKSET_ID, envs=[envs] if isinstance(envs, str) else list(envs), tasks=tasks or [], repeats=repeats
    )
    return vf.load_environment(vf.SingleAgentEnvConfig(taskset=taskset, **env))


__all__ = ["AwmTaskset"]

if __name__ == "__main__":  # verifiers launches a task's tool server as ``python -m <its module>``
    AwmToolset.run()
