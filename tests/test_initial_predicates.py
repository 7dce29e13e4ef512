"""``allowed_writes[].where`` predicates that read the initial state (schema ``initial``).

The write frame judges such a predicate on the episode's connection. ``initial`` used to be attached
only when the task's checks first ran, after the step's frame check: on an episode's first write step
(and at the end of a task whose checks never read ``initial``) the predicate failed to run and the
write it allows counted as collateral. A fresh episode must score exactly as one whose ``initial``
was already attached.

No shipped verifier has such a predicate yet (their predicates read the current state); the tests
spell a real task's predicates against ``initial`` (the rows they name never change) and play its gold
solution plus the comment the rules allow.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from awm.judge import verify
from awm.model.registry import default_registry
from awm.model.world import CompiledTask, World
from awm.runtime.episode import Episode

TASK = "t07_assign_vies_to_jonas"
COMMENT = ("add_comment", {"issue_key": "BIL-4", "author_email": "marcus.lee@halcyon.io", "body": "Jonas takes it."})


@pytest.fixture(scope="module")
def tracker() -> World:
    return default_registry().load("project_tracker")


def _reading_initial(ct: CompiledTask, *, checks_read_initial: bool) -> CompiledTask:
    """``ct`` with its allowed_writes predicates reading ``initial`` (and, if not ``checks_read_initial``,
    only the checks that never read it)."""
    rules = tuple(
        r.model_copy(
            update={
                "where": r.where.replace("FROM issues", "FROM initial.issues").replace(
                    "FROM users", "FROM initial.users"
                )
            }
        )
        if r.where
        else r
        for r in ct.frame.rules
    )
    assert all("initial." in (r.where or "") for r in rules)
    out = dataclasses.replace(ct, frame=dataclasses.replace(ct.frame, rules=rules))
    if not checks_read_initial:
        checks = [c for c in ct.verifier.checks if "initial." not in c.sql]
        assert checks and len(checks) < len(ct.verifier.checks)
        verifier = ct.verifier.model_copy(update={"checks": checks})
        out = dataclasses.replace(
            out,
            verifier=verifier,
            initial_checks={c.name: ct.initial_checks[c.name] for c in checks},
            initial_progress=verify.progress(checks, {c.name: ct.initial_checks[c.name] for c in checks}),
            needs_initial=False,
        )
    return out


def _play(world: World, ct: CompiledTask, calls: list[tuple[str, dict]], *, attach_first: bool) -> list[str]:
    ep = Episode(world, ct, reward="dense")
    if attach_first:
        verify.attach_copy(ep.conn, "initial", world.seed_blob)
    out = [json.dumps(ep.call(tool, args).to_dict(), sort_keys=True, default=str) for tool, args in calls]
    ev = ep.evaluate()
    out.append(json.dumps([ev.passed, ev.checks, [c.to_dict() for c in ev.frame.collateral]], default=str))
    out.append(json.dumps(ep.submit().to_dict(), sort_keys=True, default=str))
    ep.close()
    return out


@pytest.mark.parametrize("checks_read_initial", [True, False])
@pytest.mark.parametrize("comment_first", [True, False])
def test_a_rule_reading_initial_allows_its_rows_from_the_first_write(tracker, checks_read_initial, comment_first):
    ct = _reading_initial(tracker.tasks[TASK], checks_read_initial=checks_read_initial)
    gold = [(c.tool, c.arguments) for c in ct.verifier.gold.calls]
    calls = [COMMENT, *gold] if comment_first else [*gold, COMMENT]
    fresh = _play(tracker, ct, calls, attach_first=False)
    attached = _play(tracker, ct, calls, attach_first=True)
    assert fresh == attached
    steps = [json.loads(s) for s in fresh[: len(calls)]]
    comment = steps[0] if comment_first else steps[-1]
    assert comment["ok"] and comment["diff"], comment
    assert all(s["rewards"]["collateral"] == 0 for s in steps), [s["rewards"]["collateral"] for s in steps]
    final = json.loads(fresh[-1])
    assert final["rewards"]["outcome"] == 1.0 and final["rewards"]["writes_ok"] is True, final


def test_the_shipped_task_scores_the_same(tracker):
    """The same path on the task as shipped (predicates on the current state): the reference."""
    ct = tracker.tasks[TASK]
    calls = [COMMENT, *[(c.tool, c.arguments) for c in ct.verifier.gold.calls]]
    shipped = _play(tracker, ct, calls, attach_first=False)
    rewritten = _play(tracker, _reading_initial(ct, checks_read_initial=True), calls, attach_first=False)
    assert shipped == rewritten
