"""The generation stages, in order, per profile. Each is a small module with a typed output and its own
checks; its prompt template is ``generators/<prompt>.md``.

- ``catalog`` (the default): scenario -> schema -> world -> tools -> templates. An environment at the
  hand-written catalog's bar (``envs/README.md``, ``awm stats --check``): 14+ tables, a world builder
  with small, large and distractor worlds, 30+ tools whose writes act for a named person, 12+ task
  templates (4+ of each kind) whose canonical instances are the fixed tasks.
- ``compact``: scenario -> tasks -> schema -> seed -> tools -> verifiers. An AWM-sized environment
  (fixed tasks, a hand-listed seed, no world builder): quicker and cheaper.
"""

from typing import Any

from awm.gen.stages.base import Draft, Limits, Stage, StageEnv
from awm.gen.stages.scenario import ScenarioStage
from awm.gen.stages.schema import CatalogSchemaStage, SchemaStage
from awm.gen.stages.seed import SeedStage
from awm.gen.stages.tasks import TasksStage
from awm.gen.stages.templates import TemplatesStage
from awm.gen.stages.tools import CatalogToolsStage, ToolsStage
from awm.gen.stages.verifiers import VerifiersStage
from awm.gen.stages.world import WorldStage

PROFILES = ("catalog", "compact")
STAGE_NAMES = ("scenario", "schema", "world", "tools", "templates")
COMPACT_STAGE_NAMES = ("scenario", "tasks", "schema", "seed", "tools", "verifiers")


def catalog_stages() -> list[Stage[Any]]:
    return [ScenarioStage(), CatalogSchemaStage(), WorldStage(), CatalogToolsStage(), TemplatesStage()]


def compact_stages() -> list[Stage[Any]]:
    return [ScenarioStage(), TasksStage(), SchemaStage(), SeedStage(), ToolsStage(), VerifiersStage()]


def profile_stages(profile: str) -> list[Stage[Any]]:
    if profile == "catalog":
        return catalog_stages()
    if profile == "compact":
        return compact_stages()
    raise ValueError(f"unknown generator profile {profile!r}; choose one of {', '.join(PROFILES)}")


default_stages = catalog_stages

__all__ = [
    "COMPACT_STAGE_NAMES",
    "PROFILES",
    "STAGE_NAMES",
    "Draft",
    "Limits",
    "Stage",
    "StageEnv",
    "catalog_stages",
    "compact_stages",
    "default_stages",
    "profile_stages",
]
