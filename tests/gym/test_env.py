"""The Gymnasium surface: checker, gold solutions in every action format, bad actions, determinism."""

from __future__ import annotations

import json
import random

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from tests.conftest import REPRESENTATIVES, sweep
from tests.gym.conftest import all_gym_ids, env_of, task_ids_of

GYM_IDS = all_gym_ids()
SWEPT = sweep(GYM_IDS, key=env_of)  # representatives in the default run, every environment under -m slow


def _task_params():
    """Every fixed task of every environment (read from tasks.jsonl: collecting compiles no world), those of
    environments other than the representatives marked slow."""
    out = []
    for g in GYM_IDS:
        marks = () if env_of(g) in REPRESENTATIVES else (pytest.mark.slow,)
        try:
            out += [pytest.param(g, t, id=f"{g}:{t}", marks=marks) for t in task_ids_of(g)]
        except Exception:  # a broken bundle: fail in the test, not at collection
            out.append(pytest.param(g, None, id=f"{g}:LOAD-FAILS", marks=marks))
    return out


@pytest.mark.parametrize("gym_id", SWEPT)
def test_check_env_passes(gym_id):
    env = gym.make(gym_id)
    check_env(env.unwrapped, skip_render_check=True)
    check_env(gym.make(gym_id, render_mode="ansi").unwrapped)


def _as_format(fmt: str, tool: str, args: dict, i: int):
    if fmt == "json":
        return json.dumps({"tool": tool, "arguments": args})
    if fmt == "openai":
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"call_{i}", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}
            ],
        }
    if fmt == "hermes":
        return f"<think>step {i}</think>\n<tool_call>\n{json.dumps({'name': tool, 'arguments': args})}\n</tool_call>"
    assert fmt == "meta"
    return json.dumps({"tool": "call_tool", "arguments": {"tool_name": tool, "arguments": json.dumps(args)}})


def _answer(fmt: str, answer):
    """The typed answer as a submit_answer call in each format (json: our canonical answer action)."""
    if fmt == "json":
        return json.dumps({"answer": answer})
    return _as_format(fmt, "submit_answer", {"answer": answer, "explanation": "from the gold solution"}, 99)


@pytest.mark.parametrize("fmt", ["json", "openai", "hermes", "meta"])
@pytest.mark.parametrize(("gym_id", "task_id"), _task_params())
def test_gold_solution_through_step_in_every_format(gym_id, task_id, fmt):
    action_format = "json" if fmt == "meta" else fmt
    env = gym.make(gym_id, action_format=action_format, max_episode_steps=100)
    obs, info = env.reset(seed=0, options={"task_id": task_id})
    assert info["task_id"] == task_id and info["tools"]
    gold = env.unwrapped.episode.task.verifier.gold
    if fmt == "meta":
        _, _, _, _, i = env.step(json.dumps({"tool": "list_tools"}))
        assert i["ok"] and i["diff"] == []
    for i, call in enumerate(gold.calls):
        obs, reward, terminated, truncated, info = env.step(_as_format(fmt, call.tool, call.arguments, i))
        assert info["ok"], obs
        assert not terminated and not truncated
    obs, reward, terminated, truncated, info = env.step(_answer(fmt, gold.answer))
    assert terminated and info["outcome"] == 1.0 and reward == 1.0, info
    assert info["arguments"]["answer"] == gold.answer  # the typed value reached Episode.submit as it was


def _text_answer(answer) -> str:
    """An answer as a model would write it in plain text (the strict fallback)."""
    if isinstance(answer, list):
        return ", ".join(str(a) for a in answer)
    if isinstance(answer, dict):
        return json.dumps(answer)
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if isinstance(answer, float) and answer.is_integer():
        return str(int(answer))
    return "Done." if answer is None else str(answer)


@pytest.mark.parametrize("fmt", ["openai", "hermes"])
@pytest.mark.parametrize(("gym_id", "task_id"), _task_params())
def test_plain_text_answer_is_the_strict_fallback(gym_id, task_id, fmt):
    env = gym.make(gym_id, action_format=fmt, max_episode_steps=100)
    env.reset(seed=0, options={"task_id": task_id})
    gold = env.unwrapped.episode.task.verifier.gold
    for i, call in enumerate(gold.calls):
        assert env.step(_as_format(fmt, call.tool, call.arguments, i))[4]["ok"]
    text = _text_answer(gold.answer)
    obs, reward, terminated, truncated, info = env.step(
        {"role": "assistant", "content": text} if fmt == "openai" else text
    )
    assert terminated and info["arguments"]["answer"] == text and info["outcome"] == 1.0, info


@pytest.mark.parametrize("gym_id", SWEPT)
def test_random_agent_never_crashes(gym_id):
    env = gym.make(gym_id, max_episode_steps=20)
    rng = random.Random(0)
    tools = [t["function"]["name"] for t in env.reset(seed=0)[1]["tools"]]
    junk = ["", "{", "[]", "null", '{"tool": 5}', '{"tool": "x"}', "x" * 5000, "<tool_call>{bad</tool_call>"]
    for _ in range(20):
        if rng.random() < 0.3:
            action = rng.choice(junk)
        elif rng.random() < 0.3:
            action = env.action_space.sample()[:200]
        else:
            args = {k: rng.choice([1, 2, "a", None, -1, "2026-03-02", True]) for k in ("id", "name", "limit")}
            action = json.dumps({"tool": rng.choice(tools), "arguments": args})
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(obs, str) and "reward_components" in info
        if terminated or truncated:
            env.reset(seed=rng.randrange(1000))


def test_determinism_same_seed_same_everything():
    def run():
        env = gym.make("awm/mini_shop-v0")
        obs, info = env.reset(seed=3)
        out = [obs]
        for a in [
            '{"tool": "search_products", "arguments": {"query": "Lamp"}}',
            '{"tool": "place_order", "arguments": {"customer_id": 1, "product_id": 1, "quantity": 1}}',
            "not json",
            '{"answer": "ok"}',
        ]:
            o, r, t, tr, i = env.step(a)
            out.append((o, r, t, tr, json.dumps(i, sort_keys=True, default=str)))
        return out, env.unwrapped.episode.state_bytes()

    assert run() == run()


def test_seed_picks_the_task_and_options_override():
    env = gym.make("awm/mini_shop-v0")
    a = [env.reset(seed=s)[1]["task_id"] for s in range(10)]
    assert a == [env.reset(seed=s)[1]["task_id"] for s in range(10)]
    assert env.reset(seed=0, options={"task_id": "t03_cancel_alan"})[1]["task_id"] == "t03_cancel_alan"
    fixed = gym.make("awm/mini_shop-v0", task_id="t01_lamp_price")
    assert {fixed.reset(seed=s)[1]["task_id"] for s in range(5)} == {"t01_lamp_price"}


@pytest.mark.parametrize(
    ("action", "flag", "code"),
    [
        ("not json at all", "malformed", "malformed_action"),
        ("", "malformed", "malformed_action"),
        ('{"tool": "no_such_tool", "arguments": {}}', "unknown_tool", "unknown_tool"),
        ('{"tool": "place_order", "arguments": {"customer_id": "x"}}', "invalid_arguments", "invalid_arguments"),
        ('{"tool": "place_order", "arguments": "{broken"}', "invalid_arguments", "invalid_arguments"),
        ("x" * 1_000_000, "malformed", "malformed_action"),
        ("x" * 1_000_001, "malformed", "malformed_action"),
        (
            json.dumps({"tool": "search_products", "arguments": {"query": "y" * 500_000}}),
            "invalid_arguments",
            "invalid_arguments",
        ),
    ],
)
def test_malformed_actions_are_observations(action, flag, code):
    env = gym.make("awm/mini_shop-v0")
    env.reset(seed=0, options={"task_id": "t02_buy_lamp"})
    before = env.unwrapped.episode.state_bytes()
    obs, reward, terminated, truncated, info = env.step(action)
    assert json.loads(obs)["error"]["code"] == code
    assert info["reward_components"][flag] is True and not terminated
    assert env.unwrapped.episode.state_bytes() == before


def test_step_after_end_is_an_observation():
    env = gym.make("awm/mini_shop-v0", disable_env_checker=True)
    env.reset(seed=0)
    env.step('{"answer": null}')
    obs, reward, terminated, _, info = env.step('{"tool": "search_products", "arguments": {"query": "a"}}')
    assert terminated and json.loads(obs)["error"]["code"] == "episode_ended"


def test_truncation_by_max_steps():
    env = gym.make("awm/mini_shop-v0", max_episode_steps=2)
    env.reset(seed=0)
    assert env.step('{"tool": "search_products", "arguments": {"query": "a"}}')[3] is False
    assert env.step('{"tool": "search_products", "arguments": {"query": "b"}}')[3] is True


def test_snapshot_restore_fork_through_unwrapped():
    env = gym.make("awm/mini_shop-v0")
    env.reset(seed=0, options={"task_id": "t02_buy_lamp"})
    base = env.unwrapped
    snap = base.snapshot()
    child = base.fork()
    env.step('{"tool": "place_order", "arguments": {"customer_id": 1, "product_id": 1, "quantity": 2}}')
    assert child.step('{"answer": null}')[4]["outcome"] == 0.0
    base.restore(snap)
    assert base.step('{"answer": null}')[4]["outcome"] == 0.0


def test_render_ansi():
    env = gym.make("awm/mini_shop-v0", render_mode="ansi")
    env.reset(seed=0, options={"task_id": "t01_lamp_price"})
    assert "t01_lamp_price" in env.render() and "Brass Desk Lamp" in env.render()


def test_unknown_task_and_format_fail_early():
    from awm.errors import UnknownTaskError

    with pytest.raises(UnknownTaskError, match="Did you mean"):
        gym.make("awm/mini_shop-v0", task_id="t01_lamp_prize")
    with pytest.raises(ValueError, match="tool-call format"):
        gym.make("awm/mini_shop-v0", action_format="xml")


# -- typed final answers -------------------------------------------------------------------------
def _tools(info) -> dict:
    return {t["function"]["name"]: t["function"] for t in info["tools"]}


def test_info_tools_carry_the_tasks_submit_answer_schema():
    env = gym.make("awm/mini_shop-v0")
    tools = _tools(env.reset(seed=0, options={"task_id": "t01_lamp_price"})[1])
    assert "search_products" in tools
    params = tools["submit_answer"]["parameters"]
    assert params["properties"]["answer"]["type"] == "number" and params["required"] == ["answer"]
    assert params["properties"]["explanation"]["type"] == "string" and params["additionalProperties"] is False
    write = _tools(env.reset(seed=0, options={"task_id": "t02_buy_lamp"})[1])["submit_answer"]["parameters"]
    assert write["properties"]["answer"]["type"] == "null"
    # AWM's list_tools meta-tool lists it too
    obs = json.loads(env.step('{"tool": "list_tools"}')[0])
    assert {t["name"] for t in obs["result"]} >= {"place_order", "submit_answer"}


@pytest.mark.parametrize(
    ("action", "fmt"),
    [
        ({"answer": 4599}, "json"),
        ({"answer": 4599.0, "explanation": "4599 cents, from search_products"}, "json"),
        ({"tool": "submit_answer", "arguments": {"answer": 4599}}, "json"),
        ({"tool": "submit_answer", "arguments": '{"answer": 4599}'}, "json"),
        ({"tool": "call_tool", "arguments": {"tool_name": "submit_answer", "arguments": {"answer": 4599}}}, "json"),
        (_as_format("openai", "submit_answer", {"answer": 4599}, 0), "openai"),
        (_as_format("hermes", "submit_answer", {"answer": 4599}, 0), "hermes"),
        ({"role": "assistant", "content": "4599"}, "openai"),
        ("<think>it is 4599</think>Answer: 4599", "hermes"),
    ],
)
def test_typed_answer_in_every_form_scores(action, fmt):
    env = gym.make("awm/mini_shop-v0", action_format=fmt)
    env.reset(seed=0, options={"task_id": "t01_lamp_price"})
    obs, reward, terminated, _, info = env.step(action)
    assert terminated and info["outcome"] == 1.0 and info["reward_components"]["answer_correct"] is True, info
    assert json.loads(obs) == {"ok": True, "submitted": True}


@pytest.mark.parametrize(
    ("action", "fmt"),
    [
        ({"role": "assistant", "content": "1, 2, 3 or 4"}, "openai"),
        ("4599 or 4600", "hermes"),
        ({"role": "assistant", "content": "Not 4600"}, "openai"),
        ({"answer": "about 4599"}, "json"),
        ({"answer": "[4599, 4600]"}, "json"),  # text: the strict fallback, judged
        ({"answer": 4600}, "json"),
        (_as_format("openai", "submit_answer", {"answer": "4599 or 4600"}, 0), "openai"),
    ],
)
def test_hedged_or_wrong_answers_score_0(action, fmt):
    env = gym.make("awm/mini_shop-v0", action_format=fmt)
    env.reset(seed=0, options={"task_id": "t01_lamp_price"})
    obs, reward, terminated, _, info = env.step(action)
    assert terminated and info["outcome"] == 0.0 and info["reward_components"]["answer_correct"] is False, info


@pytest.mark.parametrize(
    ("action", "fmt"),
    [
        ({"answer": 4599, "confidence": 0.9}, "json"),
        ({"tool": "submit_answer", "arguments": {"value": 4599}}, "json"),
        ({"tool": "submit_answer", "arguments": [4599]}, "json"),
        ({"tool": "submit_answer", "arguments": "{not json"}, "json"),
        ({"tool": "submit_answer", "arguments": {"answer": 4599, "explanation": 7}}, "json"),
        ({"tool": "call_tool", "arguments": {"tool_name": "submit_answer", "arguments": "4599"}}, "json"),
        (_as_format("openai", "submit_answer", {"final": 4599}, 0), "openai"),
        (_as_format("hermes", "submit_answer", {"final": 4599}, 0), "hermes"),
        # an answer that can never be a number: malformed too, on every form of the final action
        ({"answer": [4599, 4600]}, "json"),
        ({"answer": {"price": 4599}, "explanation": "the lamp"}, "json"),
        ({"answer": True}, "json"),
        ({"tool": "submit_answer", "arguments": {"answer": [4599]}}, "json"),
        ({"tool": "call_tool", "arguments": {"tool_name": "submit_answer", "arguments": {"answer": [4599]}}}, "json"),
        (_as_format("openai", "submit_answer", {"answer": {"cents": 4599}}, 0), "openai"),
        (_as_format("hermes", "submit_answer", {"answer": [4599]}, 0), "hermes"),
    ],
)
def test_malformed_submit_answer_does_not_end_the_episode(action, fmt):
    env = gym.make("awm/mini_shop-v0", action_format=fmt)
    env.reset(seed=0, options={"task_id": "t01_lamp_price"})
    obs, reward, terminated, _, info = env.step(action)
    err = json.loads(obs)["error"]
    assert not terminated and err["code"] == "malformed_action" and info["reward_components"]["malformed"]
    assert "submit_answer" in err["message"] and '"type": "number"' in err["message"], err  # says what to send
    assert not env.unwrapped.episode.done
    again = env.step(_answer(fmt, 4599) if fmt != "json" else {"answer": 4599})
    assert again[2] and again[4]["outcome"] == 1.0


def test_a_number_for_a_date_does_not_end_the_episode():
    """The report: ``{"answer": 19}`` on a date task ended the episode with reward 0 and malformed=False."""
    env = gym.make("awm/library-v0")
    env.reset(seed=0, options={"task_id": "t02_clark_due_date"})
    obs, reward, terminated, truncated, info = env.step('{"answer": 19}')
    err = json.loads(obs)["error"]
    assert not terminated and not truncated and reward == 0.0 and info["reward_components"]["malformed"]
    assert (
        err["code"] == "malformed_action" and '"YYYY-MM-DD"' in err["message"] and '"format": "date"' in err["message"]
    )
    obs, reward, terminated, _, info = env.step('{"answer": "2026-04-19"}')
    assert terminated and reward == 1.0 and not info["reward_components"]["malformed"]


def test_write_task_submits_without_an_answer():
    env = gym.make("awm/mini_shop-v0", action_format="openai")
    env.reset(seed=0, options={"task_id": "t03_cancel_alan"})
    env.step(_as_format("openai", "set_order_status", {"order_id": 1, "status": "cancelled"}, 0))
    out = env.step(_as_format("openai", "submit_answer", {"explanation": "cancelled order 1"}, 1))
    assert out[2] and out[4]["outcome"] == 1.0
    assert out[4]["arguments"] == {"answer": None, "explanation": "cancelled order 1"}
