"""The three reference environments: rich enough to matter, and sound by `awm validate`."""

from __future__ import annotations

import pytest

from awm.bundle import TaskKind
from awm.registry import default_registry
from awm.validate import validate_env

REFERENCE = ["online_store", "clinic", "project_tracker"]


@pytest.mark.parametrize("env", REFERENCE)
def test_reference_env_is_valid(env):
    report = validate_env(env, default_registry())
    assert report.ok, "\n".join(map(str, report.problems))


@pytest.mark.parametrize("env", REFERENCE)
def test_reference_env_is_rich(env):
    world = default_registry().load(env)
    assert len(world.tables) >= 10
    assert len(world.tools) >= 25 and sum(t.write for t in world.tools.values()) >= 8
    assert sum(len(rows) for rows in world.files.seed.tables.values()) >= 100
    kinds = [t.task.kind for t in world.tasks.values()]
    assert len(kinds) >= 12 and set(kinds) == set(TaskKind)
    assert all(t.verifier.gold.calls or t.task.kind == TaskKind.information for t in world.tasks.values())


def test_every_registry_env_validates():
    reg = default_registry()
    bad = {n: validate_env(n, reg).problems for n in reg.entries()}
    assert not {n: p for n, p in bad.items() if p}
