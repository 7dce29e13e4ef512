"""The three reference environments: rich enough to matter, and sound by `awm validate`."""

from __future__ import annotations

import re

import pytest

from awm.bundle.records import TaskKind
from awm.model.registry import default_registry
from tests.conftest import catalog_report

REFERENCE = ["online_store", "clinic", "project_tracker"]


# every reference environment under -m slow: the default run validates online_store with the audit in
# tests/test_catalog.py
@pytest.mark.slow
@pytest.mark.parametrize("env", REFERENCE)
def test_reference_env_is_valid_and_passes_every_probe_class_of_the_audit(env):
    report = catalog_report(env)
    assert report.ok, "\n".join(map(str, report.problems))
    assert report.audit is not None and report.audit.ok and report.audit.score == 1.0
    kinds = set(report.audit.by_kind())
    assert {"write.mutate", "write.minus", "write.other_row", "answer.hedge", "answer.negation"} <= kinds
    assert {"answer.everything", "answer.dump", "answer.wrong", "answer.spelling", "answer.missing"} <= kinds
    assert report.stats["audit_probes"] > 300


@pytest.mark.parametrize("env", REFERENCE)
def test_reference_env_is_rich(env):
    world = default_registry().load(env)
    assert len(world.tables) >= 10
    assert len(world.tools) >= 25 and sum(t.write for t in world.tools.values()) >= 8
    assert sum(len(rows) for rows in world.files.seed.tables.values()) >= 100
    kinds = [t.task.kind for t in world.tasks.values()]
    assert len(kinds) >= 12 and set(kinds) == set(TaskKind)
    assert all(t.verifier.gold.calls or t.task.kind == TaskKind.information for t in world.tasks.values())


@pytest.mark.parametrize("env", REFERENCE)
def test_reference_verifiers_use_typed_answers_and_exact_checks(env):
    world = default_registry().load(env)
    for t in world.tasks.values():
        assert (t.task.kind == TaskKind.information) == (t.expected is not None), t.id
        for c in t.verifier.checks:
            assert not re.search(r"\b(LIKE|GLOB)\b", c.sql, re.I), f"{t.id} {c.name}: compare stated values exactly"
