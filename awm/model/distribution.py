"""Where an episode's world and task come from: the fixed tasks, or template instances on built worlds.

A ``TaskDistribution`` maps a seed to (world, task) deterministically, like Procgen's levels:
``num_worlds`` worlds starting at ``start_world`` (0: a new world per seed), ``templates`` a subset of
template ids (a template split), ``underspecified`` the phrasing, ``min_steps``/``max_steps`` the
templates whose gold solution needs that many calls (a difficulty knob). Same seed, same world and instance.
Worlds are built once per world seed and cached by the registry, so ``draw`` on a seen world costs
microseconds plus, on the first draw of an instance, its compilation (a gold replay).

Train/test splits: hold out worlds (``start_world``/``num_worlds``: train on 0..999, test from 10_000)
and templates (``split_templates``), and measure generalisation on what training never saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from awm.errors import AwmError
from awm.model.registry import Registry, default_registry
from awm.model.world import CompiledTask, World, stable_int
from awm.worldgen import Scale, WorldKey


class WorldMode(StrEnum):
    canonical = "canonical"  # the bundle's seed.json
    random = "random"  # built by world.py from the seed


class TaskMode(StrEnum):
    fixed = "fixed"  # tasks.jsonl
    templates = "templates"  # template instances
    all = "all"  # both (canonical world only)


class DistributionError(AwmError):
    """An impossible combination of options, or an id that names no world or task."""


@dataclass(frozen=True)
class TaskDistribution:
    env: str
    world: WorldMode = WorldMode.canonical
    tasks: TaskMode = TaskMode.fixed
    scale: Scale = Scale.small
    distractors: bool = False
    num_worlds: int = 0
    start_world: int = 0
    templates: tuple[str, ...] | None = None
    underspecified: bool | None = None
    min_steps: int = 0  # templates whose gold solution has at least this many calls
    max_steps: int | None = None  # ... and at most this many
    registry: Registry = field(default_factory=default_registry, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "world", WorldMode(self.world))
        object.__setattr__(self, "tasks", TaskMode(self.tasks))
        object.__setattr__(self, "scale", Scale(self.scale))
        if self.templates is not None:
            object.__setattr__(self, "templates", tuple(self.templates))
        if self.num_worlds < 0 or self.start_world < 0:
            raise DistributionError("num_worlds and start_world must be >= 0")
        if self.world == WorldMode.random and self.tasks != TaskMode.templates:
            raise DistributionError(
                "world='random' needs tasks='templates' (fixed tasks name rows of the canonical world), "
                f"not {str(self.tasks)!r}"
            )
        base = self.registry.load(self.env)
        if self.tasks != TaskMode.fixed and not base.templates:
            raise DistributionError(f"{self.env} has no task templates (envs/{self.env}/templates.jsonl)")
        if self.world == WorldMode.random and base.files.builder_path is None:
            raise DistributionError(f"{self.env} has no world builder (envs/{self.env}/world.py)")
        unknown = sorted(set(self.templates or ()) - set(base.templates))
        if unknown:
            raise DistributionError(f"{self.env} has no templates {unknown} (it has {', '.join(base.template_ids)})")
        if self.tasks != TaskMode.fixed and not self._pool(base):
            steps = sorted({len(t.verifier.gold.calls) for t in base.templates.values()})
            most = "any number of" if self.max_steps is None else self.max_steps
            raise DistributionError(
                f"{self.env}: no template has between {self.min_steps} and {most} gold steps "
                f"(their gold solutions have {steps} calls)"
            )

    # -- drawing ----------------------------------------------------------------------------------
    def world_key(self, seed: int) -> WorldKey:
        """The world of ``seed``: canonical, or ``start_world + seed mod num_worlds`` (0: ``start_world + seed``)."""
        if self.world == WorldMode.canonical:
            return WorldKey()
        index = seed % self.num_worlds if self.num_worlds else seed
        return WorldKey(self.start_world + index, self.scale, self.distractors)

    def draw(self, seed: int) -> tuple[World, CompiledTask]:
        """The world and task of ``seed``."""
        world = self.registry.world(self.env, self.world_key(seed))
        if self.tasks == TaskMode.fixed:
            return world, world.task(None, seed)
        if self.tasks == TaskMode.all and stable_int(self.env, "kind", seed) % (
            len(world.task_ids) + len(self._pool(world))
        ) < len(world.task_ids):
            return world, world.task(None, seed)
        return world, world.sample(seed, templates=self._pool(world), underspecified=self.underspecified)

    def resolve(self, task_id: str) -> tuple[World, CompiledTask]:
        """A task by id: a fixed task, or an instance id (``template.world.row[.u]``) on its own world."""
        return self.registry.load(self.env).resolve(task_id)

    def _pool(self, world: World) -> list[str]:
        ids = list(self.templates) if self.templates is not None else world.template_ids
        return [t for t in ids if self._steps_ok(len(world.templates[t].verifier.gold.calls))]

    def _steps_ok(self, n: int) -> bool:
        return n >= self.min_steps and (self.max_steps is None or n <= self.max_steps)


def split_templates(
    template_ids: Sequence[str], test_fraction: float = 0.25, salt: str = ""
) -> tuple[list[str], list[str]]:
    """A deterministic train/test split of template ids (by hash, stable as templates are added)."""
    if not 0 <= test_fraction <= 1:
        raise DistributionError("test_fraction must be between 0 and 1")
    test = [t for t in template_ids if stable_int("split", salt, t) % 10_000 < test_fraction * 10_000]
    return [t for t in template_ids if t not in test], test
