"""Property tests: whatever arguments an agent sends, a step never raises, and a failed call leaves the
database byte-identical; snapshots round-trip."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from awm.model.registry import default_registry

ENVS = ["online_store", "clinic", "project_tracker"]
JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False)
    | st.text(max_size=30)
    | st.sampled_from(["'; DROP TABLE x; --", "2026-03-02", "2026-03-02T10:00:00", "", "%", "\x00"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def calls(draw):
    env = draw(st.sampled_from(ENVS))
    world = default_registry().load(env)
    tool = draw(st.sampled_from(sorted(world.tools)))
    props = list(world.tools[tool].parameters.get("properties", {}))
    keys = draw(st.lists(st.sampled_from([*props, "extra"]) if props else st.just("extra"), max_size=4, unique=True))
    args = {k: draw(JSONISH | st.integers(1, 40)) for k in keys}
    return env, tool, args


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls())
def test_any_arguments_give_a_result_or_a_clean_error(call):
    env, tool, args = call
    world = default_registry().load(env)
    ep = world.episode(seed=0)
    before = ep.state_bytes()
    res = ep.call(tool, args)
    assert res.ok or res.error is not None
    if not res.ok:
        assert res.error.code in {"invalid_arguments", "tool_error", "timeout"}, res.error
        assert ep.state_bytes() == before and not res.diff
    assert not res.rewards.crashed, res.error


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(ENVS), st.integers(0, 10**6))
def test_snapshot_restore_round_trip(env, seed):
    world = default_registry().load(env)
    ep = world.episode(seed=seed)
    for c in ep.task.verifier.gold.calls[:2]:
        ep.call(c.tool, c.arguments)
    snap, state = ep.snapshot(), ep.state_bytes()
    for c in ep.task.verifier.gold.calls[2:]:
        ep.call(c.tool, c.arguments)
    ep.restore(snap)
    assert ep.state_bytes() == state
    fork = ep.fork()
    assert fork.state_bytes() == state and fork.evaluate().checks == ep.evaluate().checks


@st.composite
def submissions(draw):
    """Any submit_answer call an agent might make, in every action form (valid, typed, malformed)."""
    args = draw(JSONISH | st.dictionaries(st.sampled_from(["answer", "explanation", "value"]), JSONISH, max_size=3))
    form = draw(st.sampled_from(["answer", "tool", "meta", "text"]))
    if form == "answer" and isinstance(args, dict):
        return {"answer": None, **args}
    if form == "meta":
        return {"tool": "call_tool", "arguments": {"tool_name": "submit_answer", "arguments": args}}
    if form == "text":
        return {"tool": "submit_answer", "arguments": json.dumps(args)}
    return {"tool": "submit_answer", "arguments": args}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ENVS), st.integers(0, 10**6), submissions())
def test_any_submission_ends_with_a_verdict_or_is_a_clean_malformed_step(env, seed, action):
    from awm.runtime.actions import apply_action, observation_text

    world = default_registry().load(env)
    ep = world.episode(seed=seed)
    before = ep.state_bytes()
    res = apply_action(ep, action)
    observation_text(res)
    if res.done:
        assert res.rewards.outcome in (0.0, 1.0) and ep.done
    else:
        assert res.error is not None and res.error.code == "malformed_action" and res.rewards.malformed
        assert "submit_answer" in res.error.message and not ep.done
    assert ep.state_bytes() == before
