"""Server settings."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ServeConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    envs: list[str] | None = Field(None, description="restrict to these environments (default: all)")
    paths: list[str] = Field(default_factory=list, description="extra registry roots")
    max_episodes: int = Field(10_000, ge=1, description="live episodes at most; creating more is refused")
    idle_ttl: float = Field(900.0, gt=0, description="seconds an unused episode lives")
    sweep_interval: float = Field(5.0, gt=0)
    call_timeout: float = Field(30.0, gt=0, description="seconds one tool call may take before its episode is retired")
    max_body_bytes: int = Field(1_048_576, ge=1024, description="largest request body accepted")
    token: str | None = Field(None, description="bearer token required on every request, if set")
    expose_rewards: bool = Field(False, description="include reward channels in MCP tool results")
