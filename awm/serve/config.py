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
    max_json_depth: int = Field(64, ge=8, description="deepest nesting of a request body, or of JSON text inside it")
    max_headers: int = Field(100, ge=8, description="request headers at most")
    max_header_bytes: int = Field(32_768, ge=1024, description="largest request head (request line and headers)")
    head_timeout: float = Field(10.0, gt=0, description="seconds a client has to send a whole request head")
    body_timeout: float = Field(30.0, gt=0, description="seconds a client has to send a whole request body")
    token: str | None = Field(None, description="bearer token every agent-plane request must send, if set")
    control_token: str | None = Field(None, description="bearer token every control-plane request must send, if set")
    session_episodes: bool = Field(
        False,
        description="a legacy MCP session that names no episode gets one of its own (any task, X-AWM-Task), freed "
        "when the session closes; off: agents act only in episodes the trainer created",
    )
    expose_rewards: bool = Field(False, description="include reward channels in MCP tool results")
    loopback_only_hosts: bool = Field(
        True,
        description="MCP refuses a Host header that is not a loopback name (DNS-rebinding protection); "
        "awm serve turns it off when the agent plane binds to another address",
    )
