"""The trajectory record: one JSONL line per episode, written by ``RecordTrajectory`` and read by the
eval harness and exporters. Its JSON Schema is ``schemas/trajectory.schema.json``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class StepRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: str | dict[str, Any]
    observation: str
    tool: str | None
    ok: bool
    error: dict[str, str] | None = None
    diff: list[dict[str, Any]] = []
    reward: float
    reward_components: dict[str, Any]


class TrajectoryRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run_id: str | None = None
    env_id: str
    task_id: str
    task_kind: str
    instruction: str
    seed: int
    steps: list[StepRecord]
    outcome: float | None = None
    truncated: bool = False
    total_reward: float = 0.0
