"""Reward channels reported on every step, and how they compose into one scalar.

Channels (all in ``StepResult.rewards`` and, in Gymnasium, ``info["reward_components"]``):

- ``outcome``: 1.0 iff every check holds, the typed answer equals the expected one and the net
  change is the expected one (``writes_ok``); reported when the episode ends, ``None`` before.
- ``checks``: the per-check vector (name -> holds).
- ``progress``: Φ(s) = weighted fraction of the non-guard checks that hold, times 1 if every guard
  holds (else 0). Depends on the state only. Φ of the terminal state is 0 by convention.
- ``progress_delta``: γ·Φ(s') − Φ(s), the potential-based shaping term (Ng et al. 1999), which
  leaves the optimal policy unchanged.
- validity flags: ``malformed`` (the action could not be parsed), ``unknown_tool``,
  ``invalid_arguments``, ``tool_error`` (a ``ToolError`` the agent caused), ``timeout``,
  ``crashed`` (a bug in the environment's code, not the agent's fault).
- ``noop``: a write tool that changed nothing. ``redundant``: the same call with the same arguments
  on an unchanged state. ``collateral``: rows changed outside the task's write frame (the gold
  solution's row-level net diff plus declared exceptions).
- ``writes_ok`` (at the end): the net change is exactly the expected one — nothing outside the
  frame, nothing missing, no expected value wrong.

The **default scalar reward is the outcome alone** (0 on every step, 0/1 on the last). Choose
another composition with a preset name (``"outcome"``, ``"shaped"``, ``"dense"``), a ``RewardSpec``
with your own weights, or any ``Callable[[RewardChannels], float]``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


@dataclass(slots=True)
class RewardChannels:
    outcome: float | None = None
    checks: dict[str, bool] = field(default_factory=dict)
    progress: float = 0.0
    progress_delta: float = 0.0
    answer_correct: bool | None = None
    malformed: bool = False
    unknown_tool: bool = False
    invalid_arguments: bool = False
    tool_error: bool = False
    timeout: bool = False
    crashed: bool = False
    noop: bool = False
    redundant: bool = False
    collateral: int = 0
    writes_ok: bool | None = None

    @property
    def valid(self) -> bool:
        """The action named a real tool with valid arguments."""
        return not (self.malformed or self.unknown_tool or self.invalid_arguments)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["checks"] = dict(self.checks)
        return d


class RewardSpec(BaseModel):
    """A linear composition of the channels. Penalty weights are subtracted when the flag is set."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    outcome: float = 1.0
    shaping: float = Field(0.0, description="weight of progress_delta")
    gamma: float = Field(1.0, ge=0.0, le=1.0, description="discount used in progress_delta")
    invalid_action: float = Field(
        0.0, ge=0.0, description="penalty for malformed action / unknown tool / bad arguments"
    )
    tool_error: float = Field(0.0, ge=0.0)
    noop: float = Field(0.0, ge=0.0)
    redundant: float = Field(0.0, ge=0.0)
    collateral: float = Field(0.0, ge=0.0, description="penalty per step with collateral writes")

    def __call__(self, ch: RewardChannels) -> float:
        r = self.outcome * (ch.outcome or 0.0) + self.shaping * ch.progress_delta
        if not ch.valid:
            r -= self.invalid_action
        if ch.tool_error or ch.timeout:
            r -= self.tool_error
        if ch.noop:
            r -= self.noop
        if ch.redundant:
            r -= self.redundant
        if ch.collateral:
            r -= self.collateral
        return r


PRESETS: dict[str, RewardSpec] = {
    "outcome": RewardSpec(),
    "shaped": RewardSpec(shaping=1.0),
    "dense": RewardSpec(shaping=1.0, invalid_action=0.1, tool_error=0.05, noop=0.02, redundant=0.02, collateral=0.2),
}

RewardFn = Callable[[RewardChannels], float]


def reward_fn(spec: str | RewardSpec | RewardFn | None) -> tuple[RewardFn, float]:
    """The scalar function for ``spec`` and the γ it uses for ``progress_delta``."""
    if spec is None:
        return PRESETS["outcome"], 1.0
    if isinstance(spec, str):
        if spec not in PRESETS:
            raise ValueError(f"unknown reward preset {spec!r}; choose one of {sorted(PRESETS)}")
        spec = PRESETS[spec]
    if isinstance(spec, RewardSpec):
        return spec, spec.gamma
    if callable(spec):
        return spec, 1.0
    raise TypeError(f"reward must be a preset name, a RewardSpec or a callable, not {type(spec).__name__}")
