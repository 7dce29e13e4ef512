"""The eval harness's JSONL record: one line per episode, the core ``TrajectoryRecord`` plus how it ended.

``status`` separates what the agent did from what the infrastructure did:

- ``passed`` / ``failed``: the agent gave its final answer; the verifier scored the episode 1 / 0.
- ``truncated``: the agent ran out of budget (steps, or the model's context window): scored as a failure.
- ``infra_error``: the LLM endpoint timed out, failed or answered nonsense, or the harness itself broke.
  Never scored: reports count these apart, and rerunning the same command retries them.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from awm.gym.trajectory import TrajectoryRecord


class Status(StrEnum):
    passed = "passed"
    failed = "failed"
    truncated = "truncated"
    infra_error = "infra_error"


SCORED = (Status.passed, Status.failed, Status.truncated)


class InfraProblem(BaseModel):
    """Why an episode could not be scored (``kind``: llm_timeout, llm_http_500, llm_connection,
    llm_bad_response, llm_refused, episode_timeout, agent_error, env_error)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: str
    message: str


class TokenUsage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class EvalRecord(BaseModel):
    """One episode of an eval run (one line of ``results.jsonl``)."""

    model_config = ConfigDict(extra="forbid")
    run_id: str
    agent: str
    model: str | None = None
    env: str
    task_id: str
    trial: int
    seed: int
    status: Status
    outcome: float | None = None  # 1/0 when scored (truncated: 0); None for infra errors
    error: InfraProblem | None = None
    truncation: str | None = None  # max_steps | context_length | max_tokens
    cut_reply: str | None = None  # max_tokens: the text of the reply cut off (content, else its reasoning)
    usage: TokenUsage = TokenUsage()
    seconds: float = 0.0
    trajectory: TrajectoryRecord

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.env, self.task_id, self.trial)

    @property
    def scored(self) -> bool:
        return self.status in SCORED
