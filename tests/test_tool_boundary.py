"""No agent input reaches a Python exception: every tool, called with valid sample arguments where one is
replaced by an edge value (integers beyond 64 bits, NaN and infinities, NUL in text), gives an
``invalid_arguments`` step or a tool error, never ``internal_error``."""

from __future__ import annotations

import json

import pytest

from awm.bundle.samples import probe_cases
from awm.model.registry import default_registry
from awm.model.world import World

EDGES = {
    "integer": [2**63, -(2**63) - 1, 10**30],
    "number": [float("nan"), float("inf"), float("-inf"), 10**400],
    "string": ["a\x00b", "\x00"],
}
REFERENCE = ("online_store", "clinic", "project_tracker")


def _kinds(schema: dict) -> set[str]:
    kinds = {schema["type"]} if isinstance(schema.get("type"), str) else set(schema.get("type") or [])
    for sub in schema.get("anyOf", []):
        kinds |= _kinds(sub)
    if "items" in schema:
        kinds |= {f"list:{k}" for k in _kinds(schema["items"])}
    return kinds


def fuzz(world: World) -> list[str]:
    crashes = []
    task = world.task_ids[0]
    seen: set[tuple[str, str]] = set()
    for td, args in probe_cases(world):
        for name, schema in td.parameters.get("properties", {}).items():
            if (td.name, name) in seen:
                continue
            seen.add((td.name, name))
            for kind in _kinds(schema):
                for edge in EDGES.get(kind.removeprefix("list:"), []):
                    value = [edge] if kind.startswith("list:") else edge
                    ep = world.episode(task)
                    res = ep.call(td.name, {**args, name: value})
                    if res.error is not None and res.error.code == "internal_error":
                        crashes.append(f"{td.name}({name}={value!r}): {res.error.message[:160]}")
                    ep.close()
    return crashes


def test_edge_values_in_json_text_are_refused_at_the_boundary():
    world = default_registry().load("online_store")
    ep = world.episode(world.task_ids[0])
    td, args = next((td, a) for td, a in probe_cases(world) if "limit" in td.parameters.get("properties", {}))
    for text in ('{"limit": NaN}', '{"limit": Infinity}', '{"limit": 9223372036854775808}'):
        res = ep.call(td.name, json.dumps(args)[:-1] + ", " + text[1:] if args else text)
        assert res.error is not None and res.error.code == "invalid_arguments", (text, res.error)


@pytest.mark.parametrize("env", REFERENCE)
def test_reference_tools_never_crash_on_edge_values(env):
    assert fuzz(default_registry().load(env)) == []


@pytest.mark.slow
@pytest.mark.parametrize("env", sorted(set(default_registry().entries()) - set(REFERENCE)))
def test_catalog_tools_never_crash_on_edge_values(env):
    assert fuzz(default_registry().load(env)) == []
