"""Randomized worlds: an environment's ``world.py`` builds a consistent initial database from a seed.

A builder is ``build(ctx: WorldContext) -> dict[table, list[row]]`` (rows in insert order, foreign keys
pointing backwards). It must be a pure function of ``ctx``: every random choice comes from ``ctx.rng`` or
``ctx.faker`` (seeded from the world seed) and every date from ``ctx.clock`` (the manifest's frozen now),
never from the real clock or module-level randomness. Same seed, same scale, same knobs: byte-identical
database. ``scale`` is ``small`` (about AWM's size, a few hundred rows) or ``large`` (at least ten times
that, so search and filtering matter); ``distractors`` asks for near-duplicate rows (same names, similar
products) that an agent must tell apart.

The canonical ``seed.json`` stays the default world; a builder only adds more worlds.
"""

from __future__ import annotations

import hashlib
import random
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from faker import Faker
from pydantic import ValidationError

from awm.bundle import SeedData
from awm.errors import AwmError
from awm.loader import import_file

T = TypeVar("T")
_LABEL = re.compile(r"([sl])(0|[1-9][0-9]*)(d?)")


class Scale(StrEnum):
    small = "small"
    large = "large"


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


class WorldBuildError(AwmError):
    """A world builder is missing, fails, or produces rows the schema rejects."""


@dataclass
class WorldContext:
    """What a builder gets: seeded randomness, the frozen clock, and the knobs."""

    seed: int
    scale: Scale
    distractors: bool
    clock: datetime
    rng: random.Random = field(init=False)
    faker: Faker = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.faker = Faker("en_US")
        self.faker.seed_instance(self.seed)

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

    def unique(self, make: Callable[[], T], seen: set[T], tries: int = 200) -> T:
        """A value from ``make`` not yet in ``seen`` (added to it)."""
        v: T | None = None
        for _ in range(max(1, tries)):
            v = make()
            if v not in seen:
                seen.add(v)
                return v
        raise WorldBuildError(f"could not draw a unique value after {tries} tries (last {v!r})")


Builder = Callable[[WorldContext], dict[str, list[dict[str, Any]]]]
_BUILDERS: dict[tuple[str, str], Builder] = {}
_LOCK = threading.Lock()


def load_builder(path: Path) -> Builder:
    """``build`` from an environment's ``world.py`` (imported once per file content)."""
    source = path.read_bytes()
    key = (str(path), hashlib.sha256(source).hexdigest())
    with _LOCK:
        if key in _BUILDERS:
            return _BUILDERS[key]
        name = f"_awm_world_{path.parent.name}_{key[1][:8]}"
        try:
            module = import_file(path, name)
        except Exception as e:
            raise WorldBuildError(f"{path}: does not import: {type(e).__name__}: {e}") from e
        build = getattr(module, "build", None)
        if not callable(build):
            raise WorldBuildError(f"{path}: defines no build(ctx) function")
        _BUILDERS[key] = build
        return build


def build_seed(path: Path, key: WorldKey, clock: datetime) -> SeedData:
    """Run the builder for ``key`` and return its rows as seed data."""
    assert key.seed is not None
    ctx = WorldContext(key.seed, key.scale, key.distractors, clock)
    try:
        tables = load_builder(path)(ctx)
    except WorldBuildError:
        raise
    except Exception as e:
        raise WorldBuildError(f"{path.parent.name} world {key.label}: build failed: {type(e).__name__}: {e}") from e
    if not isinstance(tables, dict):
        raise WorldBuildError(f"{path}: build() must return a dict of table -> rows, got {type(tables).__name__}")
    try:
        return SeedData(tables=tables)
    except ValidationError as e:  # e.g. a table mapped to something other than a list of row dicts
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise WorldBuildError(
            f"{path}: build() must return table -> list of row dicts: {where}: {first['msg']}"
        ) from None
