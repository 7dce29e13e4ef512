"""SkyRL-gym adapter: ``skyrl_gym.make("awm", ...)`` driven by scripted Hermes text, rewards equal to awm's
own verdicts for the same actions, bad input as observations, truncation, and the dataset rows."""

from __future__ import annotations

import json
from typing import Any

import pytest

skyrl_gym = pytest.importorskip("skyrl_gym", reason="needs skyrl-gym (pip install skyrl-gym)")

import awm  # noqa: E402
from awm.train.skyrl_env import ENV_CLASS, AwmTextEnv, skyrl_rows, write_dataset  # noqa: E402

# (env, task): information tasks of several answer types, a single write, a multi-step write, in two envs
TASKS = [
    ("online_store", "t01_priya_2026_spend"),
    ("online_store", "t08_cancel_jamal_order"),
    ("online_store", "t12_elena_first_order"),
    ("clinic", "t01_next_appointment_doctor"),
    ("clinic", "t04_uninsured_cardiology_patients"),
    ("clinic", "t08_update_insurance"),
]
WRONG = "not the answer"


def call(name: str, arguments: Any) -> str:
    return f"<think>next step</think><tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def policy(env: str, task_id: str, wrong: bool) -> list[tuple[str, dict[str, Any]]]:
    """Gold: the gold calls then submit_answer(gold answer). Wrong: the gold reads only (writes skipped),
    then a wrong answer: it fails a write task and an information task alike."""
    world = awm.load(env)
    gold = world.task(task_id).verifier.gold
    calls = [(c.tool, dict(c.arguments)) for c in gold.calls if not (wrong and world.tools[c.tool].write)]
    return [*calls, ("submit_answer", {"answer": WRONG if wrong else gold.answer})]


def awm_verdict(env: str, task_id: str, seed: int, actions: list[tuple[str, dict[str, Any]]]) -> float:
    """awm's own outcome for the same actions, straight on an Episode."""
    ep = awm.load(env).episode(task_id, seed=seed)
    for name, args in actions[:-1]:
        ep.call(name, args)
    res = ep.submit(actions[-1][1]["answer"])
    assert res.done
    return float(res.rewards.outcome or 0.0)


def make(env: str, task_id: str, seed: int = 0, max_turns: int = 30, **config: Any) -> AwmTextEnv:
    e = skyrl_gym.make(
        ENV_CLASS, env_config=config, extras={"env": env, "task_id": task_id, "seed": seed, "max_turns": max_turns}
    )
    assert isinstance(e, AwmTextEnv)
    return e


def test_registered_with_skyrl_gym() -> None:
    from skyrl_gym.envs.base_text_env import BaseTextEnv

    assert ENV_CLASS in skyrl_gym.envs.registration.registry
    env = make("clinic", "t01_next_appointment_doctor")
    assert isinstance(env, BaseTextEnv)
    env.close()


@pytest.mark.parametrize("wrong", [False, True], ids=["gold", "wrong"])
@pytest.mark.parametrize(("env_name", "task_id"), TASKS)
def test_rewards_equal_awm_verdicts(env_name: str, task_id: str, wrong: bool) -> None:
    actions = policy(env_name, task_id, wrong)
    env = make(env_name, task_id, seed=3)
    prompt, _ = env.init([{"role": "user", "content": env.episode.instruction}])
    rewards, out = [], None
    for name, args in actions:
        out = env.step(call(name, args))
        rewards.append(out["reward"])
        meta = out["metadata"]
        assert "reward_components" in meta and meta["task_id"] == task_id
        if name != "submit_answer":
            assert not out["done"] and meta["ok"], meta
            assert [m["role"] for m in out["observations"]] == ["tool"]
            assert json.loads(out["observations"][0]["content"])["ok"] is True
    assert out is not None and out["done"] and out["observations"] == []
    assert rewards[:-1] == [0.0] * (len(actions) - 1)  # the outcome preset: the verdict on the last step only
    expected = awm_verdict(env_name, task_id, 3, actions)
    assert rewards[-1] == expected == (0.0 if wrong else 1.0)
    metrics = env.get_metrics()
    assert metrics["outcome"] == expected and metrics["submitted"] == 1.0 and metrics["truncated"] == 0.0
    env.close()


def test_prompt_shows_tools_and_instruction_never_the_judge() -> None:
    env = make("online_store", "t01_priya_2026_spend")
    ct = env.episode.task
    messages, meta = env.init([{"role": "system", "content": "x"}, {"role": "user", "content": ct.task.instruction}])
    assert [m["role"] for m in messages] == ["system", "user"] and meta["task_id"] == ct.id
    system = messages[0]["content"]
    assert "<tool_call>" in system and '"submit_answer"' in system and '"find_customers"' in system
    assert messages[1]["content"] == ct.task.instruction
    assert "453.06" not in json.dumps(messages)  # the gold answer
    env.close()


def test_bad_input_is_an_observation_never_a_crash() -> None:
    env = make("clinic", "t02_outstanding_balance")
    env.init([])

    def error_code(action: str) -> str:
        out = env.step(action)
        assert not out["done"] and out["reward"] == 0.0
        return json.loads(out["observations"][0]["content"])["error"]["code"]

    assert error_code("<tool_call>{not json</tool_call>") == "malformed_action"
    assert error_code('<tool_call>["search_patients"]</tool_call>') == "malformed_action"
    assert error_code(call("drop_table", {})) == "unknown_tool"
    assert error_code(call("search_patients", {"query": 17, "bogus": True})) == "invalid_arguments"
    assert error_code(call("submit_answer", {"answer": [1, 2]})) == "malformed_action"  # a list for a number
    assert error_code("<tool_call>" + "x" * 2_000_000 + "</tool_call>") == "malformed_action"
    # two calls in one turn: the first runs, the second is reported as not run
    out = env.step(call("search_patients", {"query": "a"}) + call("search_patients", {"query": "b"}))
    assert [json.loads(m["content"]).get("error", {}).get("code") for m in out["observations"]] == [
        None,
        "not_executed",
    ]
    # plain text is the strict free-text answer (as in the Gymnasium env): it ends the episode with its verdict
    out = env.step("I could not find it.")
    assert out["done"] and out["reward"] == 0.0 and out["metadata"]["outcome"] == 0.0
    out = env.step(call("search_patients", {"query": "a"}))  # after the end
    assert out["done"] and out["reward"] == 0.0
    assert json.loads(out["observations"][0]["content"])["error"]["code"] == "episode_ended"
    env.close()


def test_text_without_a_tool_call_can_be_refused() -> None:
    env = make("clinic", "t02_outstanding_balance", text_answers=False)
    for text in ("I think the answer is 102.", "", "<think>hmm</think>"):
        out = env.step(text)
        assert not out["done"] and out["reward"] == 0.0
        err = json.loads(out["observations"][0]["content"])["error"]
        assert err["code"] == "malformed_action" and "<tool_call>" in err["message"]
    out = env.step(call("submit_answer", {"answer": 102}))
    assert out["done"] and out["reward"] == 1.0
    env.close()


def test_max_turns_truncates_without_an_outcome() -> None:
    task = "t08_cancel_jamal_order"  # its gold writes, then the turns run out before submit_answer
    actions = policy("online_store", task, wrong=False)[:-1]
    env = make("online_store", task, max_turns=len(actions))
    outs = [env.step(call(name, args)) for name, args in actions]
    assert [o["done"] for o in outs] == [False] * (len(actions) - 1) + [True]
    assert outs[-1]["reward"] == 0.0 and outs[-1]["metadata"]["truncated"] is True and outs[-1]["observations"] == []
    m = env.get_metrics()
    assert m["outcome"] == 0.0 and m["truncated"] == 1.0 and m["submitted"] == 0.0 and m["progress"] > 0
    env.close()


def test_shaped_reward_preset_from_env_config() -> None:
    actions = policy("online_store", "t08_cancel_jamal_order", wrong=False)
    env = make("online_store", "t08_cancel_jamal_order", reward="shaped")
    rewards = [env.step(call(n, a))["reward"] for n, a in actions]
    ep = awm.load("online_store").episode("t08_cancel_jamal_order", seed=0, reward="shaped")
    direct = [ep.call(n, a).reward for n, a in actions[:-1]] + [ep.submit(actions[-1][1]["answer"]).reward]
    assert rewards == pytest.approx(direct) and sum(rewards) > 0
    env.close()


def test_dataset_rows_load_and_drive_the_env(tmp_path) -> None:
    import duckdb

    rows = skyrl_rows(["online_store", "clinic"], task_ids=["t01_priya_2026_spend", "t02_outstanding_balance"])
    assert [(r["env"], r["task_id"]) for r in rows] == [
        ("online_store", "t01_priya_2026_spend"),
        ("clinic", "t02_outstanding_balance"),
    ]
    out = tmp_path / "train.parquet"
    assert write_dataset(rows, out) == 2
    cur = duckdb.connect().execute("SELECT * FROM read_parquet(?)", [str(out)])
    for values in cur.fetchall():
        record = dict(zip([d[0] for d in cur.description], values, strict=True))
        # what skyrl-train's PromptDataset hands the generator: the prompt, env_class, the rest as extras
        prompt = [dict(m) for m in record.pop("prompt")]
        env_class = record.pop("env_class")
        env = skyrl_gym.make(env_class, env_config={}, extras={**record, "max_turns": 5})
        messages, _ = env.init(prompt)
        assert messages == prompt  # our rows already carry awm's prompt with the tools
        env.close()


def test_awm_export_rows_work_as_they_are() -> None:
    from awm.data.export import ExportPlan, task_rows

    row = next(task_rows(ExportPlan(envs=["hotel"], templates=False, verify=False)))
    extras = {k: v for k, v in row.items() if k not in ("prompt", "env_class")}
    env = skyrl_gym.make(row["env_class"], env_config={}, extras={**extras, "max_turns": 5})
    messages, _ = env.init(row["prompt"])
    assert "<tool_call>" in messages[0]["content"] and messages[1] == row["prompt"][1]
    gold = env.episode.task.verifier.gold
    for c in gold.calls:
        env.step(call(c.tool, c.arguments))
    assert env.step(call("submit_answer", {"answer": gold.answer}))["reward"] == 1.0
    env.close()
