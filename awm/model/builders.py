"""Randomized worlds: an environment's ``world.py`` builds a consistent initial database from a seed.

A builder is ``build(ctx: WorldContext) -> dict[table, list[row]]`` (rows in insert order, foreign keys
pointing backwards). It must be a pure function of ``ctx``: every random choice comes from ``ctx.rng`` or
``ctx.faker`` (seeded from the world seed) and every date from ``ctx.clock`` (the manifest's frozen now),
never from the real clock or module-level randomness. Same seed, same scale, same knobs: byte-identical
database. ``scale`` is ``small`` (about AWM's size, a few hundred rows) or ``large`` (at least ten times
that, so search and filtering matter); ``distractors`` asks for near-duplicate rows (same names, similar
products) that an agent must tell apart.

The canonical ``seed.json`` stays the default world; a builder only adds more worlds.

What a builder imports (``WorldContext``, ``Scale``, ``WorldBuildError``) lives in ``awm.worldctx`` (standard
library and faker only, so the sandboxed ``world`` worker can run a builder with them) and is named
``awm.worldgen`` for builders. A bundle that is not trusted (``env.json``) has its builder run in that worker
(``build_seed(..., trusted=False)``).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import ValidationError

from awm.bundle.loader import import_file
from awm.bundle.records import SeedData
from awm.worldctx import (
    WorldBuildError,
    WorldContext,
    WorldKey,
    build_failed,
    import_failed,
    module_name,
    no_build,
    not_a_dict,
    not_rows,
)

Builder = Callable[[WorldContext], dict[str, list[dict[str, Any]]]]
_MODULES: dict[tuple[str, str], ModuleType] = {}  # (path, sha256 of its bytes) -> the module imported from it
_LOCK = threading.Lock()


def load_builder(path: Path) -> Builder:
    """``build`` from an environment's ``world.py`` (imported once per file content)."""
    build = getattr(_import_once(path, lambda digest: module_name(path, digest)), "build", None)
    if not callable(build):
        raise no_build(path)
    return build


def load_tools(world_path: Path) -> ModuleType:
    """The ``tools.py`` beside a builder, for ``ctx.tools`` (imported once per file content)."""
    path = world_path.parent / "tools.py"
    return _import_once(path, lambda digest: f"_awm_world_tools_{path.parent.name}_{digest[:8]}")


def _import_once(path: Path, name: Callable[[str], str]) -> ModuleType:
    """``path`` imported as module ``name(its sha256)``, once per file content; an import that fails is a
    ``WorldBuildError`` naming the file."""
    source = path.read_bytes()
    key = (str(path), hashlib.sha256(source).hexdigest())
    with _LOCK:
        if key not in _MODULES:
            try:
                _MODULES[key] = import_file(path, name(key[1]))
            except Exception as e:
                raise import_failed(path, type(e).__name__, str(e)) from e
        return _MODULES[key]


def build_seed(path: Path, key: WorldKey, clock: datetime, *, trusted: bool = True) -> SeedData:
    """Run the builder for ``key`` and return its rows as seed data.

    ``trusted`` False (a bundle whose ``env.json`` says ``"trusted": false``): the builder runs in a
    sandboxed worker (``awm.isolation.worlds``), never in this process; same rows, same errors."""
    assert key.seed is not None
    if trusted:
        tables: Any = _build_here(path, key, clock)
    else:
        from awm.isolation.worlds import build_isolated

        tables = build_isolated(path, key, clock)
    try:
        return SeedData(tables=tables)
    except ValidationError as e:  # e.g. a table mapped to something other than a list of row dicts
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise not_rows(path, f"{where}: {first['msg']}") from None


def _build_here(path: Path, key: WorldKey, clock: datetime) -> dict[Any, Any]:
    assert key.seed is not None
    has_tools = (path.parent / "tools.py").is_file()
    ctx = WorldContext(
        key.seed, key.scale, key.distractors, clock, tools_loader=(lambda: load_tools(path)) if has_tools else None
    )
    try:
        tables = load_builder(path)(ctx)
    except WorldBuildError:
        raise
    except Exception as e:
        raise build_failed(path, key, f"{type(e).__name__}: {e}") from e
    if not isinstance(tables, dict):
        raise not_a_dict(path, type(tables).__name__)
    return tables


__all__ = ["Builder", "build_seed", "load_builder", "load_tools"]
