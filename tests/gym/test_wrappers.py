"""Chat observations, reward composition, trajectory recording, vector envs and async stepping."""

from __future__ import annotations

import asyncio
import json

import gymnasium as gym
import jsonschema
import pytest

from awm.gym import ComposeReward, RecordTrajectory, make_vec, step_many
from awm.gym.trajectory import TrajectoryRecord
from awm.judge.rewards import RewardSpec

ORDER = {"customer_id": 1, "product_id": 1, "quantity": 2}


def test_chat_observation_openai_with_history_window():
    env = gym.make("awm/mini_shop-v0", action_format="openai", observation="chat", history=1)
    obs, info = env.reset(seed=0, options={"task_id": "t02_buy_lamp"})
    msgs = json.loads(obs)
    assert [m["role"] for m in msgs] == ["system", "user"] and msgs[1]["content"].startswith("Order two")
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_customer", "arguments": '{"email": "ada@example.com"}'},
            }
        ],
    }
    obs, *_, info = env.step(call)
    msgs = json.loads(obs)
    assert msgs[-1]["role"] == "tool" and msgs[-1]["tool_call_id"] == "c1" and "Ada" in msgs[-1]["content"]
    assert info["messages"] == msgs
    call2 = {
        "role": "assistant",
        "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "place_order", "arguments": json.dumps(ORDER)}}
        ],
    }
    msgs = json.loads(env.step(call2)[0])
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool"]  # window of 1 turn
    assert msgs[-1]["tool_call_id"] == "c2"
    obs, reward, terminated, *_ = env.step({"role": "assistant", "content": "Ordered."})
    assert terminated and reward == 1.0 and json.loads(obs)[-1] == {"role": "assistant", "content": "Ordered."}


def test_chat_observation_hermes_puts_tools_in_system_prompt():
    env = gym.make("awm/mini_shop-v0", action_format="hermes", observation="chat")
    msgs = json.loads(env.reset(seed=0)[0])
    assert "<tools>" in msgs[0]["content"] and "place_order" in msgs[0]["content"]
    msgs = json.loads(env.step("<tool_call>{oops</tool_call>")[0])
    assert msgs[-1]["role"] == "user" and "malformed_action" in msgs[-1]["content"]


@pytest.mark.parametrize(
    ("spec", "expected"), [("shaped", 1.0), (RewardSpec(shaping=0.5), 0.5), (lambda ch: ch.progress * 10, 10.0)]
)
def test_compose_reward(spec, expected):
    env = ComposeReward(gym.make("awm/mini_shop-v0"), spec)
    env.reset(seed=0, options={"task_id": "t02_buy_lamp"})
    assert env.step(json.dumps({"tool": "place_order", "arguments": ORDER}))[1] == expected


def test_reward_kwarg_through_make():
    env = gym.make("awm/mini_shop-v0", reward="dense")
    env.reset(seed=0, options={"task_id": "t02_buy_lamp"})
    assert env.step('{"tool": "nope"}')[1] == pytest.approx(-0.1)


def test_record_trajectory(tmp_path):
    path = tmp_path / "runs" / "traj.jsonl"
    env = RecordTrajectory(gym.make("awm/mini_shop-v0"), path, run_id="r1")
    env.reset(seed=0, options={"task_id": "t02_buy_lamp"})
    env.step(json.dumps({"tool": "place_order", "arguments": ORDER}))
    env.step('{"answer": null}')
    env.reset(seed=1, options={"task_id": "t01_lamp_price"})
    env.step('{"tool": "search_products", "arguments": {"query": "Brass"}}')
    env.close()  # an unfinished episode is flushed as truncated
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    first, second = (TrajectoryRecord.model_validate_json(x) for x in lines)
    assert first.outcome == 1.0 and first.steps[0].diff and first.total_reward == 1.0 and not first.truncated
    assert second.truncated and second.outcome is None
    schema = json.loads(
        (__import__("pathlib").Path(__file__).parents[2] / "schemas/trajectory.schema.json").read_text()
    )
    for line in lines:
        jsonschema.validate(json.loads(line), schema)


def test_sync_vector_env():
    venv = gym.make_vec("awm/mini_shop-v0", num_envs=3, vectorization_mode="sync")
    obs, info = venv.reset(seed=0)
    assert len(obs) == 3 and all(isinstance(o, str) and o for o in obs)
    obs, rew, term, trunc, info = venv.step(['{"tool": "search_products", "arguments": {"query": "Lamp"}}'] * 3)
    assert all("Brass" in o for o in obs)
    venv.close()


@pytest.mark.slow
def test_async_vector_env_keeps_text():
    venv = make_vec("awm/mini_shop-v0", num_envs=2, mode="async")
    obs, _ = venv.reset(seed=0)
    assert all(o.strip() for o in obs)
    obs, *_ = venv.step(['{"tool": "search_products", "arguments": {"query": "Oak"}}'] * 2)
    assert all("Oak Floor Lamp" in o for o in obs)
    venv.close()


def test_step_many_concurrently():
    envs = [gym.make("awm/mini_shop-v0") for _ in range(8)]
    for i, e in enumerate(envs):
        e.reset(seed=i, options={"task_id": "t02_buy_lamp"})
    results = asyncio.run(step_many(envs, [json.dumps({"tool": "place_order", "arguments": ORDER})] * 8))
    assert all(r[4]["ok"] for r in results)
    assert all(e.unwrapped.episode.query("SELECT stock FROM products WHERE id = 1")[0][0] == 1 for e in envs)
    r = asyncio.run(envs[0].unwrapped.astep('{"answer": null}'))
    assert r[2] and r[4]["outcome"] == 1.0


def test_chat_observation_answers_every_parallel_tool_call():
    env = gym.make("awm/mini_shop-v0", action_format="openai", observation="chat")
    env.reset(seed=0, options={"task_id": "t02_buy_lamp"})
    msg = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "search_products", "arguments": '{"query": "Lamp"}'}},
            {
                "id": "b",
                "type": "function",
                "function": {"name": "get_customer", "arguments": '{"email": "ada@example.com"}'},
            },
        ],
    }
    msgs = json.loads(env.step(msg)[0])
    tools = [m for m in msgs if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["a", "b"]
    assert "Brass" in tools[0]["content"] and "not_executed" in tools[1]["content"]


def test_chat_observation_offers_the_typed_submit_answer_and_answers_its_call():
    env = gym.make("awm/mini_shop-v0", action_format="hermes", observation="chat")
    msgs = json.loads(env.reset(seed=0, options={"task_id": "t01_lamp_price"})[0])
    system = msgs[0]["content"]
    tools = [json.loads(line) for line in system.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0].splitlines()]
    submit = next(t["function"] for t in tools if t["function"]["name"] == "submit_answer")
    assert submit["parameters"]["properties"]["answer"]["type"] == "number" and "submit_answer" in system
    # a malformed call is answered with what to send, and the episode goes on
    msgs = json.loads(env.step('<tool_call>{"name": "submit_answer", "arguments": {"value": 1}}</tool_call>')[0])
    assert msgs[-1]["role"] == "user" and "malformed_action" in msgs[-1]["content"]
    # native calls: the submit_answer call gets its tool message too (chat APIs need one per call id)
    env = gym.make("awm/mini_shop-v0", action_format="openai", observation="chat")
    env.reset(seed=0, options={"task_id": "t01_lamp_price"})
    call = {"id": "s1", "type": "function", "function": {"name": "submit_answer", "arguments": '{"answer": 4599}'}}
    obs, reward, terminated, _, info = env.step({"role": "assistant", "content": None, "tool_calls": [call]})
    assert terminated and info["outcome"] == 1.0
    assert json.loads(obs)[-1] == {"role": "tool", "tool_call_id": "s1", "content": '{"ok": true, "submitted": true}'}
