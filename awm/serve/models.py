"""The server's request bodies and the schemas of its responses, as the OpenAPI documents show them.

Handlers answer with ``FastJSON`` built from plain dicts (no per-response validation); these models
only document the shapes, and the Schemathesis run in the tests holds each response to them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from awm.judge.rewards import PRESETS

RewardPreset = Literal[tuple(sorted(PRESETS))]  # type: ignore[valid-type]


# -- request bodies ------------------------------------------------------------------------------
class CreateEpisode(BaseModel):
    model_config = ConfigDict(extra="forbid")
    env: str
    task_id: str | None = Field(
        None, description="a fixed task, or a template instance id (template.world.row); default: drawn from the seed"
    )
    seed: int = 0
    reward: RewardPreset | None = Field(None, description="reward preset (default: outcome)")  # type: ignore[valid-type]
    world: Literal["canonical", "random"] = Field(
        "canonical", description="canonical: the bundle's seed data; random: a world built from the seed"
    )
    tasks: Literal["fixed", "templates", "all"] = Field(
        "fixed", description="where a drawn task comes from (random worlds need templates)"
    )
    scale: Literal["small", "large"] = "small"
    distractors: bool = False
    num_worlds: int = Field(0, ge=0, le=2**31, description="draw worlds from this many (0: one per seed)")
    start_world: int = Field(0, ge=0, le=2**31, description="the first world seed")
    min_steps: int = Field(0, ge=0, le=1000, description="templates whose gold solution has at least this many calls")
    max_steps: int | None = Field(None, ge=0, le=1000, description="... and at most this many")


class CallBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tool: str
    arguments: dict[str, Any] | str | None = Field(None, description="a JSON object, or its text")


class StepBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: dict[str, Any] | str = Field(
        description='our JSON action: {"tool", "arguments"} or {"answer": <value>, "explanation": "..."}'
    )


class SubmitBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: Any = Field(
        None,
        description="the final answer: a value of the task's answer type (the episode's submit.parameters); "
        "null for tasks that only change data",
    )
    explanation: str | None = Field(None, description="optional prose for people; never graded")


class RestoreBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    snapshot_id: str


# -- responses -----------------------------------------------------------------------------------
class ErrorInfo(BaseModel):
    code: str = Field(description="stable, machine-readable")
    message: str = Field(description="for people")


class ErrorBody(BaseModel):
    """Every infrastructure error. A typed tool route's 422 also carries the recorded step."""

    error: ErrorInfo


class Health(BaseModel):
    ok: bool
    envs: int
    episodes: int


class EnvSummary(BaseModel):
    env: str
    env_id: str = Field(description="the Gymnasium id")
    title: str
    tools: int | None = Field(description="how many tools; null until the environment has compiled (its first use)")
    tasks: int | None = Field(description="how many fixed tasks; null until the environment has compiled")
    mcp: str = Field(description="the MCP path on the agent plane")


class TaskInfo(BaseModel):
    id: str
    kind: str
    instruction: str
    answer: dict[str, Any] | None = Field(description="the answer's JSON Schema (never its value); null: no answer")


class EpisodeTask(TaskInfo):
    world: str = Field(description="the initial world: c (canonical), s<seed> or l<seed> (built), d: distractors")
    template: str | None = Field(description="the template of an instance; null: a fixed task")
    difficulty: dict[str, Any] | None = Field(description="an instance's difficulty features")


class ToolInfo(BaseModel):
    name: str
    description: str
    write: bool
    parameters: dict[str, Any]


class EnvDetail(BaseModel):
    env: str
    manifest: dict[str, Any]
    tools: list[ToolInfo]
    tasks: list[TaskInfo]
    templates: list[TaskInfo] = Field(description="parametric tasks; instructions hold {slots}")
    world_builder: bool = Field(description="whether episodes can start on built worlds (world: random)")


class EpisodeState(BaseModel):
    checks: dict[str, bool]
    progress: float
    collateral: int
    diff: list[dict[str, Any]]


class StepOut(BaseModel):
    """One step as the trainer sees it: the observation's content plus reward channels."""

    tool: str | None
    arguments: Any
    ok: bool
    result: Any
    error: ErrorInfo | None
    diff: list[dict[str, Any]]
    rewards: dict[str, Any] = Field(description="every reward channel (see awm.judge.rewards)")
    reward: float
    done: bool


class EpisodeView(BaseModel):
    """An episode as the trainer sees it."""

    episode_id: str = Field(description="unguessable; also the agent's credential for this episode")
    env: str
    env_id: str
    task: EpisodeTask
    seed: int
    steps: int
    done: bool
    submit: dict[str, Any] = Field(description="the task's submit_answer tool (its answer schema)")
    tools: list[dict[str, Any]] | None = Field(None, description="OpenAI tools; in POST answers only")
    state: EpisodeState | None = Field(None, description="checks, progress and diff while the episode runs")
    result: StepOut | None = Field(None, description="the step that ended the episode, with its verdict")


class GymStep(BaseModel):
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]


class SnapshotOut(BaseModel):
    snapshot_id: str


class Deleted(BaseModel):
    deleted: bool


class Observation(BaseModel):
    """What an agent sees of a step: the result or the error, never reward channels."""

    ok: bool
    result: Any = None
    error: ErrorInfo | None = None
    submitted: bool | None = Field(None, description="true when the step submitted the final answer")


class AgentEpisode(BaseModel):
    """An episode as its agent sees it: the instruction and the tools, nothing of the judge."""

    episode_id: str
    env: str
    instruction: str
    steps: int
    done: bool
    submit: dict[str, Any]
    tools: list[dict[str, Any]] = Field(description="OpenAI tools, submit_answer included")
