"""What a world builder (``envs/<env>/world.py``) gets: ``WorldContext`` and ``Scale``, and the error it may raise.

Dependency-light on purpose: the standard library, ``faker`` and ``awm.errors`` only, so the same
module runs a builder in this process (``awm.worldgen``, trusted bundles) and inside the sandboxed
``world`` worker (``awm.isolation.guest.world``, untrusted bundles), which sees these two files of
the package and nothing else. Builders import them as ``from awm.worldgen import WorldContext``
(``awm.worldgen`` re-exports them; inside the sandbox a shim of that name does). ``WorldKey`` and the
wording of a builder's errors live here too, so the sandbox's parent side (``awm.isolation.worlds``)
needs nothing of ``awm.worldgen``, which calls it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from faker import Faker

from awm.errors import AwmError

T = TypeVar("T")


class WorldBuildError(AwmError):
    """A world builder is missing, fails, or produces rows the schema rejects."""


class Scale(StrEnum):
    small = "small"
    large = "large"


@dataclass
class WorldContext:
    """What a builder gets: seeded randomness, the frozen clock, and the knobs."""

    seed: int
    scale: Scale
    distractors: bool
    clock: datetime
    # imports the bundle's own tools.py (set by whoever runs the builder: here or in the sandboxed worker)
    tools_loader: Callable[[], ModuleType] | None = field(default=None, repr=False, compare=False)
    rng: random.Random = field(init=False)
    faker: Faker = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.faker = Faker("en_US")
        self.faker.seed_instance(self.seed)

    @property
    def tools(self) -> ModuleType:
        """The bundle's own ``tools.py`` as a module, for a builder that shares its rules (a price, a fee, a code
        format): ``ctx.tools.unit_price(...)`` instead of a copy that drifts. Imported once per file content."""
        if self.tools_loader is None:
            raise WorldBuildError("ctx.tools: this builder was run without its bundle's tools.py")
        return self.tools_loader()

    # -- sizes ------------------------------------------------------------------------------------
    @property
    def large(self) -> bool:
        return self.scale == Scale.large

    def n(self, small: int, large: int) -> int:
        """A count by scale."""
        return large if self.large else small

    # -- choices ----------------------------------------------------------------------------------
    def pick(self, items: Sequence[T]) -> T:
        return items[self.rng.randrange(len(items))]

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        return self.rng.sample(list(items), min(k, len(items)))

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def weighted(self, options: dict[T, float]) -> T:
        keys = list(options)
        return self.rng.choices(keys, weights=[options[k] for k in keys], k=1)[0]

    # -- time (relative to the frozen clock, never the real one) ----------------------------------
    @property
    def today(self) -> date:
        return self.clock.date()

    def days_ago(self, lo: int, hi: int) -> date:
        """A date between ``hi`` and ``lo`` days before today (``lo`` <= ``hi``; negative: the future)."""
        return self.today - timedelta(days=self.rng.randint(lo, hi))

    def moment_ago(self, lo_days: float, hi_days: float) -> datetime:
        """A datetime (whole seconds) between ``hi_days`` and ``lo_days`` before the clock."""
        seconds = self.rng.randint(int(lo_days * 86400), int(hi_days * 86400))
        return (self.clock - timedelta(seconds=seconds)).replace(microsecond=0)

    def between(self, lo: datetime, hi: datetime) -> datetime:
        """A moment (whole seconds after ``lo``) from ``lo`` to ``hi``; ``lo`` itself, drawing nothing, when
        ``hi`` is not after it."""
        if hi <= lo:
            return lo
        return lo + timedelta(seconds=self.rng.randint(0, int((hi - lo).total_seconds())))

    def unique(self, make: Callable[[], T], seen: set[T], tries: int = 200) -> T:
        """A value from ``make`` not yet in ``seen`` (added to it)."""
        v: T | None = None
        for _ in range(max(1, tries)):
            v = make()
            if v not in seen:
                seen.add(v)
                return v
        raise WorldBuildError(f"could not draw a unique value after {tries} tries (last {v!r})")


_LABEL = re.compile(r"([sl])(0|[1-9][0-9]*)(d?)")


@dataclass(frozen=True, order=True)
class WorldKey:
    """Which initial world: the canonical seed data (``seed`` None) or a built one."""

    seed: int | None = None
    scale: Scale = Scale.small
    distractors: bool = False

    @property
    def canonical(self) -> bool:
        return self.seed is None

    @property
    def label(self) -> str:
        """Short, id-safe: ``c`` (canonical), ``s12`` (small, seed 12), ``l12d`` (large, with distractors)."""
        if self.seed is None:
            return "c"
        return f"{'s' if self.scale == Scale.small else 'l'}{self.seed}{'d' if self.distractors else ''}"

    @classmethod
    def parse(cls, label: str) -> WorldKey:
        if label == "c":
            return cls()
        m = _LABEL.fullmatch(label)
        if m is None:  # strict, the inverse of label: int() alone takes "s+1", "s01", "s1_0", "s 1"
            raise WorldBuildError(f"bad world label {label!r}: use c, s<seed>, l<seed>, optionally ending in d")
        return cls(int(m.group(2)), Scale.small if m.group(1) == "s" else Scale.large, bool(m.group(3)))


def module_name(path: Path, digest: str) -> str:
    """The module name a builder is imported under (here and in the sandbox alike)."""
    return f"_awm_world_{path.parent.name}_{digest[:8]}"


# -- the errors of a builder, worded alike whether it ran here or in its sandbox --------------------
def import_failed(path: Path, kind: str, message: str) -> WorldBuildError:
    return WorldBuildError(f"{path}: does not import: {kind}: {message}")


def no_build(path: Path) -> WorldBuildError:
    return WorldBuildError(f"{path}: defines no build(ctx) function")


def build_failed(path: Path, key: WorldKey, why: str) -> WorldBuildError:
    """``why``: ``"<ExceptionType>: <message>"``, or what stopped a sandboxed build."""
    return WorldBuildError(f"{path.parent.name} world {key.label}: build failed: {why}")


def not_a_dict(path: Path, type_name: str) -> WorldBuildError:
    return WorldBuildError(f"{path}: build() must return a dict of table -> rows, got {type_name}")


def not_rows(path: Path, detail: str) -> WorldBuildError:
    return WorldBuildError(f"{path}: build() must return table -> list of row dicts: {detail}")


class Tables(dict[str, list[dict[str, Any]]]):
    """What a builder returns, being filled: each table's rows in insert order. ``add`` numbers a table's rows
    1, 2, 3 ... (``id``) as they come; ``Tables(["customers", "orders"])`` starts every table empty, in
    that (parents first) order."""

    def __init__(self, names: Iterable[str] = ()):
        super().__init__((name, []) for name in names)

    def add(self, table: str, row: dict[str, Any]) -> dict[str, Any]:
        """``row`` with the next ``id`` of ``table`` first, appended to it (and returned)."""
        row = {"id": len(self[table]) + 1, **row}
        self[table].append(row)
        return row


__all__ = [
    "Scale",
    "Tables",
    "WorldBuildError",
    "WorldContext",
    "WorldKey",
    "build_failed",
    "import_failed",
    "module_name",
    "no_build",
    "not_a_dict",
    "not_rows",
]
