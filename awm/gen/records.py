"""Typed outputs of the generation stages. Where a bundle record exists (``Task``, ``SeedData``,
``TaskVerifier``) the stage output *is* that record, so generated bundles are indistinguishable in
format from hand-written ones."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from awm.bundle.records import ID_PATTERN, Task, TaskTemplate, TaskVerifier


class Output(BaseModel):
    """A stage's top-level answer. Unknown top-level keys (a model's "reasoning") are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class ScenarioIdea(Output):
    """One line of ``generators/*.jsonl``: what an environment is about, before any stage ran."""

    name: str = Field(min_length=2, max_length=80)
    description: str = Field(min_length=10, max_length=3000)


class IdeasOut(Output):
    scenarios: list[ScenarioIdea]


class ScenarioOut(Output):
    """Stage ``scenario``: the manifest's fields."""

    id: str = Field(pattern=ID_PATTERN, max_length=40)
    title: str = Field(min_length=2, max_length=120)
    description: str = Field(min_length=10, max_length=2000)
    clock: datetime
    tags: list[str] = []


class TasksOut(Output):
    tasks: list[Task]


class SchemaOut(Output):
    schema_sql: str = Field(min_length=10)


class SeedOut(Output):
    tables: dict[str, list[dict[str, Any]]]


class ToolsOut(Output):
    tools_py: str = Field(min_length=10)


class VerifiersOut(Output):
    verifiers: list[TaskVerifier]


class WorldOut(Output):
    """Stage ``world``: the world builder, ``world.py``."""

    world_py: str = Field(min_length=10)


class TemplatePair(Output):
    """One task template, both halves: what the agent reads and how its instances are judged."""

    task: TaskTemplate
    verifier: dict[str, Any]  # a VerifierTemplate without template_id (it is task.id)


class TemplatesOut(Output):
    templates: list[TemplatePair]
