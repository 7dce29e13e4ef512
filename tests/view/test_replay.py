"""Replaying a recorded episode gives the judge's reasons: faithful on every recorded episode (no
divergence, the same verdict), honest when the recording was not made by this environment, and able
to read actions in every form agents emit them."""

from __future__ import annotations

import json

import pytest

from awm.model.registry import Registry
from awm.runtime.actions import Answer, ListTools, Malformed, ToolCall
from awm.view.replay import parse_recorded, replay
from awm.view.runs import discover, read_episodes
from tests.view.conftest import Runs


def test_every_recorded_episode_replays_to_its_verdict(registry: Registry, runs: Runs) -> None:
    for src in discover(runs.all):
        for ep in src.load().episodes:
            rep = replay(registry, ep.env, ep.trajectory)
            assert rep.replayed and not rep.divergences, (src.id, ep.key, rep.divergences)
            assert rep.passed == (ep.status == "passed"), (src.id, ep.key)
            assert bool(rep.reasons) == (ep.status != "passed"), (src.id, ep.key, rep.reasons)


def test_reasons_name_the_collateral_rows(registry: Registry, runs: Runs) -> None:
    ep = read_episodes(runs.trajectories)[0][0]
    rep = replay(registry, ep.env, ep.trajectory)
    assert rep.reasons == ["collateral: update products {'id': 1}", "collateral: insert orders {'id': 2}"]
    assert {(c["table"], c["op"]) for c in rep.collateral} == {("products", "update"), ("orders", "insert")}
    assert rep.answer is not None and rep.answer.submitted and rep.answer.value == "Done."
    assert not rep.failed_checks and not rep.missing


def test_an_unfinished_template_instance(registry: Registry, runs: Runs) -> None:
    ep = read_episodes(runs.trajectories)[0][1]
    assert ep.task_id == "cancel_order.s3.0"  # resolved on its own built world
    rep = replay(registry, ep.env, ep.trajectory)
    assert rep.reasons[0] == "no final answer: the episode was truncated before submit_answer"
    assert [c.name for c in rep.failed_checks] == ["cancelled"]
    assert rep.missing and rep.missing[0].startswith("update orders")


def test_wrong_answer_reason(registry: Registry, runs: Runs) -> None:
    run = discover([runs.random])[0].load()
    ep = run.episode("mini_shop", "t01_lamp_price", 0)
    rep = replay(registry, ep.env, ep.trajectory)
    assert rep.answer is not None and rep.answer.correct is False
    assert any(r.startswith("answer: ") for r in rep.reasons)


def test_a_recording_that_differs_is_flagged(registry: Registry, runs: Runs) -> None:
    ep = read_episodes(runs.trajectories)[0][0]
    steps = [s.model_copy(update={"diff": []}) if i == 0 else s for i, s in enumerate(ep.trajectory.steps)]
    steps[1] = steps[1].model_copy(update={"observation": json.dumps({"ok": True, "result": {"order_id": 99}})})
    doctored = ep.trajectory.model_copy(update={"steps": steps})
    rep = replay(registry, ep.env, doctored)
    assert [(d.step, d.what) for d in rep.divergences] == [(1, "another row-level diff"), (2, "another result")]
    assert rep.reasons  # still judged: on the replay


def test_unknown_environment_or_task(registry: Registry, runs: Runs) -> None:
    ep = read_episodes(runs.trajectories)[0][0]
    rep = replay(registry, "nowhere", ep.trajectory)
    assert not rep.replayed and rep.error is not None and "unknown environment 'nowhere'" in rep.error
    rep = replay(registry, ep.env, ep.trajectory.model_copy(update={"task_id": "t99_gone"}))
    assert not rep.replayed and rep.error is not None and "no task 't99_gone'" in rep.error


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"tool": "get_customer", "arguments": {"email": "a"}}, ToolCall("get_customer", {"email": "a"})),
        ('{"tool": "get_customer", "arguments": {"email": "a"}}', ToolCall("get_customer", {"email": "a"})),
        ({"answer": 3, "explanation": "x"}, Answer(3, "x")),
        ({"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}, ToolCall("f", "{}", "c")),
        ('<think>hm</think><tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>', ToolCall("f", {"a": 1})),
        ("The answer is 42.", Answer("The answer is 42.")),
        ({"role": "assistant", "content": "42"}, Answer("42")),
        ({"tool": "list_tools"}, ListTools()),
        ({"malformed": "bad JSON"}, Malformed("bad JSON")),
    ],
)
def test_recorded_action_forms(raw, expected) -> None:
    assert parse_recorded(raw) == expected
