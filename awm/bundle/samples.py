"""Schema-valid sample arguments for probing tools (``awm validate`` and the generator's sandbox).

Values come from the seed data where a parameter's name matches a column (``customer_id`` -> the
``id`` column of ``customers`` and every ``customer_id`` column; ``email`` -> email values), then from
type-based edge cases (0, -1, an unknown id, an empty string). Every tool is called with a few such
argument sets; each must give a result or a ``ToolError``, never an unhandled exception.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from awm.bundle.records import SeedData

if TYPE_CHECKING:
    from awm.model.world import World
    from awm.tooling import ToolDef

MAX_POOL = 6


def value_pool(seed: SeedData) -> dict[str, list[Any]]:
    """Parameter name -> candidate values, from the seed rows."""
    pool: dict[str, list[Any]] = {}

    def add(name: str, value: Any) -> None:
        values = pool.setdefault(name.lower(), [])
        if value is not None and not isinstance(value, (dict, list)) and value not in values and len(values) < MAX_POOL:
            values.append(value)

    for table, rows in seed.tables.items():
        singular = _singular(table)
        for row in rows[:MAX_POOL]:
            for col, value in row.items():
                add(col, value)
                add(f"{singular}_{col}", value)
                if col == "id":
                    add("id", value)
                if isinstance(value, str) and col in ("name", "title", "label") and value.split():
                    add("_words", value.split()[0])
    return pool


def _singular(table: str) -> str:
    t = table.lower()
    if t.endswith("ies"):
        return t[:-3] + "y"
    if t.endswith(("sses", "ches", "shes", "xes")):
        return t[:-2]
    if t.endswith("s") and not t.endswith("ss"):
        return t[:-1]
    return t


def candidates(name: str, schema: Mapping[str, Any], pool: Mapping[str, list[Any]], clock: datetime) -> list[Any]:
    """Values to try for one parameter, most useful first."""
    if "anyOf" in schema:
        out: list[Any] = []
        has_null = False
        for branch in schema["anyOf"]:
            if branch.get("type") == "null":
                has_null = True
            else:
                out += candidates(name, branch, pool, clock)
        return _unique(out + ([None] if has_null else []))
    if "enum" in schema:
        return list(schema["enum"])
    if "const" in schema:
        return [schema["const"]]
    kind = schema.get("type")
    known = pool.get(name.lower(), [])
    if kind == "integer":
        return _unique([v for v in known if isinstance(v, int) and not isinstance(v, bool)] + [1, 2, 0, -1, 999_999])
    if kind == "number":
        nums = [float(v) for v in known if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return _unique([*nums, 1.0, 0.0, -1.0])
    if kind == "boolean":
        return [True, False]
    if kind == "array":
        items = candidates(name.removesuffix("s"), schema.get("items", {}), pool, clock)
        return [items[:1], [], items[:2]] if items else [[]]
    if kind == "string":
        strs = [v for v in known if isinstance(v, str)]
        low = name.lower()
        if not strs and "email" in low:
            strs = [v for k, vs in pool.items() if "email" in k for v in vs if isinstance(v, str)][:3]
        if "date" in low or low.endswith(("_on", "day")):
            strs += [clock.date().isoformat()]
        if "time" in low or low.endswith(("_at", "when")):
            strs += [clock.isoformat(timespec="minutes")]
        if not strs:
            strs = [str(w) for w in pool.get("_words", [])[:2]]
        return _unique([*strs, "test", "", "zzz-unknown"])
    return [None]


def sample_arguments(
    parameters: Mapping[str, Any], pool: Mapping[str, list[Any]], clock: datetime, limit: int = 6
) -> list[dict[str, Any]]:
    """Up to ``limit`` argument objects: required-only first, then every parameter, then variations."""
    props: Mapping[str, Any] = parameters.get("properties", {})
    required = [p for p in parameters.get("required", []) if p in props]
    cands = {p: candidates(p, s, pool, clock) or [None] for p, s in props.items()}
    sets = [{p: cands[p][0] for p in required}, {p: cands[p][0] for p in props}]
    for i in range(1, limit * 2):
        sets.append({p: cands[p][i % len(cands[p])] for p in required})
        sets.append({p: cands[p][i % len(cands[p])] for p in props})
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for s in sets:
        key = json.dumps(s, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out[: limit * 3]  # the caller keeps the first ``limit`` that validate


def _unique(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if not any(v == o and type(v) is type(o) for o in out):
            out.append(v)
    return out


def probe_cases(
    world: World, per_tool: int = 4, pool: Mapping[str, list[Any]] | None = None, *, write_only: bool = False
) -> Iterator[tuple[ToolDef, dict[str, Any]]]:
    """For every tool (or every write tool), up to ``per_tool`` sample argument sets that pass its argument
    validation, drawn from ``pool`` (default: the seed's ``value_pool``)."""
    if pool is None:
        pool = value_pool(world.files.seed)
    for td in world.tools.values():
        if write_only and not td.write:
            continue
        kept = 0
        for args in sample_arguments(td.parameters, pool, world.clock, per_tool):
            if kept == per_tool:
                break
            try:
                td.validate(args)
            except ValidationError:
                continue
            kept += 1
            yield td, args
