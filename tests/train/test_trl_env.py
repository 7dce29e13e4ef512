"""TRL environment classes generated from the registry, and the reward functions over our channels."""

from __future__ import annotations

import inspect
import itertools
import json

import pytest

import awm
from awm.model.registry import default_registry
from awm.runtime.submit import submit_parameters
from awm.train import (
    REWARDS,
    environment_class,
    environment_factories,
    final_answer,
    gated_process_reward,
    outcome_reward,
    progress_reward,
    task_rows,
    turn_rewards,
    validity_reward,
)
from awm.train.trl_env import _annotation, env_key


def gold_completion(world: awm.World, task_id: str) -> list[dict]:
    gold = world.task(task_id).verifier.gold
    msgs: list[dict] = []
    for c in gold.calls:
        call = {"type": "function", "function": {"name": c.tool, "arguments": c.arguments}}
        msgs += [{"role": "assistant", "tool_calls": [call]}, {"role": "tool", "name": c.tool, "content": "{}"}]
    return [*msgs, {"role": "assistant", "content": f"<think>ok</think>{text_answer(gold.answer)}"}]


def text_answer(answer) -> str:
    """An answer as a model would write it in plain text (the strict fallback)."""
    if isinstance(answer, list):
        return ", ".join(map(str, answer))
    if isinstance(answer, dict):
        return json.dumps(answer)
    if isinstance(answer, float) and answer.is_integer():
        return str(int(answer))
    return "Done." if answer is None else str(answer)


def play_gold(cls: type, task_id: str, seed: int = 0):
    env = cls()
    env.reset(task_id=task_id, seed=seed, prompt=[], environment="x")
    for c in cls.world.task(task_id).verifier.gold.calls:
        out = json.loads(getattr(env, c.tool)(**c.arguments))
        assert out["ok"], out
    return env


def test_one_method_per_tool_and_no_extra_public_members() -> None:
    for name in default_registry().names():
        world = awm.load(name)
        for cls in (environment_class(world), environment_class(world, world.task_ids[0])):
            public = {n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}
            assert public == {t.name for t in world.tool_specs()} | {"reset", "submit_answer"}


def test_gold_solutions_score_1_through_the_generated_methods() -> None:
    for name in default_registry().names():
        world = awm.load(name)
        factories = environment_factories([world])
        for task_id in world.task_ids:
            cls = factories[env_key(world, task_id)]
            env = play_gold(cls, task_id)
            answer = world.task(task_id).verifier.gold.answer
            out = json.loads(env.submit_answer(answer=answer, explanation="the gold answer"))
            assert out == {"ok": True, "submitted": True} and env.final is not None
            assert outcome_reward([gold_completion(world, task_id)], [env]) == [1.0], (name, task_id)
            assert env.episode is not None and env.episode.done
            assert gated_process_reward([gold_completion(world, task_id)], [env]) == [1.0]
            # the plain-text final message is the fallback when the model never calls submit_answer
            env = play_gold(cls, task_id)
            assert outcome_reward([gold_completion(world, task_id)], [env]) == [1.0], (name, task_id, "text")


def test_typed_submit_answer_method_and_the_strict_text_fallback() -> None:
    world = awm.load("clinic")
    task_id = "t02_outstanding_balance"  # a number
    cls = environment_factories([world])[env_key(world, task_id)]
    env = cls()
    env.reset(task_id=task_id, seed=0)
    # malformed arguments: an observation that says what to send; the episode goes on
    bad = json.loads(env.submit_answer(value=102))
    assert bad["error"]["code"] == "malformed_action" and '"type": "number"' in bad["error"]["message"]
    assert env.final is None and not env.episode.done and env.channels[-1].malformed
    # an answer that can never be a number is malformed too: the model is told what to send and goes on
    for answer in ([102], {"balance": 102}, True):
        bad = json.loads(env.submit_answer(answer=answer))
        assert bad["error"]["code"] == "malformed_action" and "must be a number" in bad["error"]["message"]
        assert env.final is None and not env.episode.done and env.channels[-1].malformed
    assert json.loads(env.submit_answer(answer=102.0)) == {"ok": True, "submitted": True}
    assert env.final is not None and env.final.answer_correct is True and outcome_reward(["ignored"], [env]) == [1.0]
    assert json.loads(env.submit_answer(answer=102.0))["error"]["code"] == "episode_ended"
    # free text is strict: a hedge scores 0 even though it contains the value
    env = cls()
    env.reset(task_id=task_id, seed=0)
    assert outcome_reward(["It is 102 or 103"], [env]) == [0.0] and env.final.answer_correct is False
    env = cls()
    env.reset(task_id=task_id, seed=0)
    assert outcome_reward(["1, 2, 3 or 4"], [env]) == [0.0]
    # a rollout ended by the trainer with a value that can never be the type: over, with no answer
    env = cls()
    env.reset(task_id=task_id, seed=0)
    final = env._finish([102])
    assert final.outcome == 0.0 and env.episode is not None and env.episode.done and env.channels[-1].malformed
    with pytest.raises(ValueError, match="route rows"):
        env.reset(task_id="t01_next_appointment_doctor")


def test_rewards_for_failures_truncation_and_bad_calls() -> None:
    world = awm.load("online_store")
    cls = environment_class(world)
    # nothing done: outcome 0, no calls
    env = cls()
    env.reset(task_id="t09_approve_priya_return")
    assert outcome_reward(["I could not."], [env]) == [0.0] and validity_reward([""], [env]) == [0.0]
    # the gold path but cut off while still calling tools: truncated, scored 0 though the state is right
    env = play_gold(cls, "t09_approve_priya_return")
    cut = [{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "x", "arguments": {}}}]}]
    assert outcome_reward([cut], [env]) == [0.0] and env.truncated and env.final is not None
    assert env.final.outcome == 1.0 and progress_reward([cut], [env]) == [1.0]
    # bad calls are observations (error codes), counted by the validity reward; long results are cut
    env = environment_class(world, max_observation_chars=200)()
    env.reset(task_id="t09_approve_priya_return")
    assert '"code": "invalid_arguments"' in env.approve_return(rma="nope")
    assert "more characters cut" in env.list_returns(customer_id=1)
    assert validity_reward(["no"], [env]) == [-0.5]
    assert json.loads(env.list_returns(customer_id=1))["error"]["code"] == "episode_ended"


def test_turn_rewards_expose_potential_based_shaping() -> None:
    world = awm.load("clinic")
    cls = environment_class(world)
    env = play_gold(cls, "t09_record_payment")
    outcome_reward([gold_completion(world, "t09_record_payment")], [env])
    shaped = turn_rewards(env, "shaped")
    outcome_only = turn_rewards(env, "outcome")
    assert len(shaped) == len(env.channels) + 1 and outcome_only[-1] == 1.0 and sum(outcome_only[:-1]) == 0
    # γ = 1: the shaping terms telescope to Φ(terminal) − Φ(s0) = −Φ(s0), a constant per task
    initial = world.task("t09_record_payment").initial_progress
    assert sum(shaped) == pytest.approx(1.0 - initial)
    # the recomputed terms match the ones the episode recorded (γ = 1)
    assert shaped[:-1] == pytest.approx([c.progress_delta for c in env.channels])
    # γ < 1: F_t = γΦ(s') − Φ(s); a step that raises Φ earns more than it costs later
    discounted = turn_rewards(env, awm.RewardSpec(shaping=1.0, gamma=0.9, outcome=0.0))
    phis = [initial, *(c.progress for c in env.channels), 0.0]
    assert discounted == pytest.approx([0.9 * b - a for a, b in itertools.pairwise(phis)])
    assert max(c.progress for c in env.channels) == 1.0


def test_final_answer_parsing() -> None:
    assert final_answer("<think>hm</think> 42") == ("42", False)
    called = {"role": "assistant", "content": "x", "tool_calls": [{"type": "function", "function": {"name": "t"}}]}
    assert final_answer([called]) == (None, True)
    assert final_answer([{"role": "assistant", "content": "x"}, {"role": "tool", "content": "{}"}]) == ("x", False)
    assert final_answer([{"role": "assistant", "content": [{"type": "text", "text": "a"}]}]) == ("a", False)
    assert final_answer([]) == (None, True)


def test_task_rows_route_to_their_environment() -> None:
    worlds = [awm.load("clinic"), awm.load("online_store")]
    rows = task_rows(worlds, repeats=2)
    assert len(rows) == 2 * sum(len(w.task_ids) for w in worlds)
    assert {r["environment"] for r in rows} == {env_key(w, t) for w in worlds for t in w.task_ids}
    assert all(r["environment"] == env_key(r["environment"].split("/")[0], r["task_id"]) for r in rows)
    assert rows == task_rows(worlds, repeats=2) and len({r["seed"] for r in rows}) == len(rows)
    assert rows[0]["prompt"][0]["role"] == "system" and rows[0]["prompt"][1]["role"] == "user"
    assert "submit_answer" in rows[0]["prompt"][0]["content"]
    factories = environment_factories(worlds)
    assert set(factories) == {r["environment"] for r in rows} and set(REWARDS) >= {"outcome", "gated_process"}
    assert all(factories[r["environment"]].task_id == r["task_id"] for r in rows)
    # one class per environment (a generic submit_answer) when asked
    assert {r["environment"] for r in task_rows(worlds, per_task=False)} == {"clinic", "online_store"}
    assert set(environment_factories(worlds, per_task=False)) == {"clinic", "online_store"}


def test_json_schemas_read_back_from_the_generated_methods() -> None:
    pytest.importorskip("transformers", reason="needs the train extra")
    from transformers.utils import get_json_schema

    for name in default_registry().names():
        world = awm.load(name)
        cls = environment_class(world)
        for spec in world.tool_specs():
            fn = get_json_schema(getattr(cls, spec.name))["function"]
            params, props = fn["parameters"], spec.parameters.get("properties", {})
            assert fn["name"] == spec.name and fn["description"] == " ".join(spec.description.split())
            assert set(params.get("required", [])) == set(spec.parameters.get("required", []))
            assert set(params["properties"]) >= set(props)
            for arg, prop in props.items():
                got = params["properties"][arg]
                assert got["description"] == " ".join(prop["description"].split())
                kinds = [o.get("type") for o in prop.get("anyOf", [prop])]
                assert got.get("nullable", False) == ("null" in kinds), (spec.name, arg)
                if "enum" in json.dumps(prop):
                    assert got["enum"]


def test_submit_answer_schema_read_back_is_the_tasks_answer_type() -> None:
    pytest.importorskip("transformers", reason="needs the train extra")
    from transformers.utils import get_json_schema

    seen = set()
    for name in default_registry().names():
        world = awm.load(name)
        for task_id in world.task_ids:
            cls = environment_class(world, task_id)
            fn = get_json_schema(cls.submit_answer)["function"]
            want = submit_parameters(world.task(task_id).task)["properties"]["answer"]
            got = fn["parameters"]["properties"]["answer"]
            assert fn["name"] == "submit_answer" and got["type"] == {"array": "array"}.get(want["type"], want["type"])
            if want["type"] == "array":
                assert got["items"]["type"] == want["items"]["type"]
            if want["type"] == "object":
                assert all(f in got["description"] for f in want["properties"])
            required = fn["parameters"].get("required", [])
            assert ("answer" in required) == (want["type"] != "null") and "explanation" not in required
            seen.add(want["type"])
    assert {"number", "string", "array", "object", "null"} <= seen
    generic = get_json_schema(environment_class(awm.load("clinic")).submit_answer)["function"]
    assert "type" not in generic["parameters"]["properties"]["answer"]  # any type


def test_a_union_of_literals_becomes_one_enum_in_the_generated_signature() -> None:
    """``Literal["open", "closed"] | Literal["unsolved"] | None`` (customer_support's ticket filter) must reach the
    model as one enum of all three, not as an enum plus a bare string."""
    from typing import Literal

    prop = {
        "anyOf": [
            {"enum": ["open", "closed"], "type": "string"},
            {"const": "unsolved", "type": "string"},
            {"type": "null"},
        ]
    }
    assert _annotation(prop) == (Literal["open", "closed", "unsolved"], True)
    assert _annotation({"const": "x", "type": "string"}) == (Literal["x"], False)
    assert _annotation({"anyOf": [{"type": "integer"}, {"type": "null"}]}) == (int, True)
