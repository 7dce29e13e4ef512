"""Pydantic records of every file in a bundle (``envs/<env>/`` + ``verifiers/<env>/``).

These models are the file contract; ``schemas/`` holds their JSON Schemas, exported by
``awm.schema_export``. Records are frozen: behaviour lives elsewhere.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

ID_PATTERN = r"^[a-z][a-z0-9_]*$"
TASK_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"


class Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Provenance(Record):
    """Where an environment came from: hand-written, or generated (model, prompts, seed, attempts)."""

    model_config = ConfigDict(frozen=True, extra="allow")
    source: str = Field("hand-written", description="'hand-written' or 'generated'")
    model: str | None = None
    prompts_hash: str | None = None
    seed: int | None = None
    date: str | None = None
    attempts: dict[str, int] | None = None


class Manifest(Record):
    """``envs/<env>/env.json``."""

    id: str = Field(pattern=ID_PATTERN, description="equal to the folder name")
    version: int = Field(0, ge=0, description="the N of the Gymnasium id awm/<id>-vN")
    title: str
    description: str
    clock: datetime = Field(description="the frozen 'now' of the world; tools read it via db.now()")
    default_task: str | None = None
    tags: list[str] = []
    provenance: Provenance = Provenance()


class SeedData(Record):
    """``envs/<env>/seed.json``: rows per table, inserted in the order given."""

    tables: dict[str, list[dict[str, Any]]]


class TaskKind(StrEnum):
    information = "information"
    single_write = "single_write"
    multi_step = "multi_step"


class Task(Record):
    """One line of ``envs/<env>/tasks.jsonl``: what the user asks. Never holds the answer."""

    id: str = Field(pattern=TASK_ID_PATTERN)
    instruction: str = Field(min_length=1)
    kind: TaskKind
    tags: list[str] = []


class Check(Record):
    """A named, weighted read-only SQL predicate over the current state (initial state as ``initial``)."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    sql: str
    weight: float = Field(1.0, gt=0)
    guard: bool = Field(False, description="holds from the start and must keep holding; no progress")
    description: str = ""


class AnswerMatch(StrEnum):
    number = "number"
    text = "text"
    list = "list"
    date = "date"
    boolean = "boolean"


class AnswerCheck(Record):
    """How an information task's answer is judged; expected values come from SQL on the initial state."""

    sql: str
    match: AnswerMatch
    tolerance: float = Field(0.01, ge=0, description="absolute tolerance for match=number")
    forbidden_sql: str | None = Field(None, description="values that must not appear in the answer")


class AllowedWrite(Record):
    """A table (and optionally columns) the task may change; anything else is collateral damage."""

    table: str
    columns: list[str] | None = Field(None, description="null: any column, inserts and deletes")


class GoldCall(Record):
    tool: str
    arguments: dict[str, Any] = {}


class GoldSolution(Record):
    calls: list[GoldCall]
    answer: str | None = None


class TaskVerifier(Record):
    """One line of ``verifiers/<env>/verifiers.jsonl``: the judge of one task."""

    task_id: str
    checks: list[Check] = []
    answer: AnswerCheck | None = None
    allowed_writes: list[AllowedWrite] = []
    gold: GoldSolution


class ToolSpec(Record):
    """A tool as every surface sees it (gym action, MCP tool, HTTP operation, trainer schema)."""

    name: str
    description: str
    write: bool
    parameters: dict[str, Any] = Field(description="JSON Schema of the arguments object")

    def openai(self) -> dict[str, Any]:
        """The OpenAI chat-completions ``tools`` entry."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


RECORDS: dict[str, type[BaseModel]] = {
    "manifest": Manifest,
    "seed": SeedData,
    "task": Task,
    "task_verifier": TaskVerifier,
    "tool_spec": ToolSpec,
}
