"""The generation stages, in order. Each is a small module with a typed output and its own checks;
its prompt template is ``generators/<name>.md``."""

from typing import Any

from awm.gen.stages.base import Draft, Limits, Stage, StageEnv
from awm.gen.stages.scenario import ScenarioStage
from awm.gen.stages.schema import SchemaStage
from awm.gen.stages.seed import SeedStage
from awm.gen.stages.tasks import TasksStage
from awm.gen.stages.tools import ToolsStage
from awm.gen.stages.verifiers import VerifiersStage

STAGE_NAMES = ("scenario", "tasks", "schema", "seed", "tools", "verifiers")


def default_stages() -> list[Stage[Any]]:
    return [ScenarioStage(), TasksStage(), SchemaStage(), SeedStage(), ToolsStage(), VerifiersStage()]


__all__ = ["STAGE_NAMES", "Draft", "Limits", "Stage", "StageEnv", "default_stages"]
