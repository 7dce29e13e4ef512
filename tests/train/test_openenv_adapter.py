"""Our environments through OpenEnv (openenv-core): its own server on a loopback port, its own WebSocket client,
several sessions at once; every reward equals the verdict of the same actions on a local episode."""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

pytest.importorskip("openenv", reason="needs openenv-core: pip install -e '.[dev]' openenv-core")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import httpx

import awm
from awm.runtime.actions import apply_action
from awm.train import gated_process_reward, outcome_reward, validity_reward
from awm.train.openenv_env import (
    CHANNELS,
    AwmAction,
    AwmEnvClient,
    Served,
    openenv_environment_factories,
)
from awm.train.trl_env import env_key

# an answer task (a list), a typed number, a write task (and its wrong variant skips the write)
TASKS = [
    ("online_store", "t04_boots_sold_out"),
    ("clinic", "t02_outstanding_balance"),
    ("clinic", "t09_record_payment"),
]


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    srv = Served(["online_store", "clinic"])
    yield srv
    srv.stop()


def script(env: str, task_id: str, policy: str) -> list[dict[str, Any]]:
    """The actions of a scripted policy: ``gold``, or ``wrong`` (a wrong typed answer, or the write skipped)."""
    gold = awm.load(env).task(task_id).verifier.gold
    calls = [{"tool": c.tool, "arguments": c.arguments} for c in gold.calls]
    answer = gold.answer
    if policy == "wrong":
        if answer is None:
            calls = calls[:-1]
        else:
            answer = answer[:1] if isinstance(answer, list) else answer + 1
    return [*calls, {"tool": "submit_answer", "arguments": {"answer": answer}}]


def play(url: str, env: str, task_id: str, policy: str, seed: int) -> list[Any]:
    """One session through OpenEnv's sync client: [(reward, done, rewards)] per step, then the state."""
    out: list[Any] = []
    with AwmEnvClient(url).sync() as client:
        first = client.reset(env=env, task_id=task_id, seed=seed)
        assert first.observation.task_id == task_id and not first.done
        assert first.observation.instruction == awm.load(env).task(task_id).task.instruction
        names = [t["function"]["name"] for t in first.observation.tools or []]
        assert "submit_answer" in names and len(names) == len(awm.load(env).tools) + 1
        for a in script(env, task_id, policy):
            r = client.step(AwmAction(tool_name=a["tool"], arguments=a["arguments"]))
            out.append((r.reward, r.done, r.observation.rewards, r.observation.ok))
        out.append(client.state())
    return out


def local(env: str, task_id: str, policy: str, seed: int) -> list[tuple[float, bool, dict[str, Any], bool]]:
    """awm's own verdict for the same actions on a local episode."""
    ep = awm.load(env).episode(task_id, seed=seed)
    out = []
    for a in script(env, task_id, policy):
        res = apply_action(ep, a)
        ch = res.rewards.to_dict()
        out.append((res.reward, res.done, {k: ch[k] for k in CHANNELS}, res.ok))
    return out


def test_concurrent_sessions_gold_and_wrong_rewards_equal_awm_verdicts(server: Served) -> None:
    jobs = [(env, tid, policy, seed) for env, tid in TASKS for policy in ("gold", "wrong") for seed in (0, 1)]
    with ThreadPoolExecutor(len(jobs)) as pool:  # 12 sessions at once, 2 environments, 3 tasks
        results = list(pool.map(lambda j: play(server.url, *j), jobs))
    for (env, tid, policy, seed), got in zip(jobs, results, strict=True):
        *steps, state = got
        want = local(env, tid, policy, seed)
        assert steps == want, (env, tid, policy)
        reward, done, channels, _ = steps[-1]
        assert done and reward == (1.0 if policy == "gold" else 0.0) == channels["outcome"]
        assert state.env == env and state.task_id == tid and state.step_count == len(steps) and state.done
        assert set(type(state).model_fields) | set(state.model_dump()) <= {
            "episode_id", "step_count", "env", "task_id", "seed", "done"
        }  # fmt: skip
        assert all("checks" not in s[2] for s in steps)  # the verifier's checks never leave the server


def test_bad_input_is_an_observation_or_a_clear_error_and_the_server_survives(server: Served) -> None:
    with AwmEnvClient(server.url).sync() as client:
        r = client.step(AwmAction(tool_name="search_patients", arguments={}))
        assert r.done and r.observation.error_code == "no_episode"
        for kwargs, message in [
            ({"task_id": "t02_outstanding_balance"}, "reset needs env"),
            ({"env": "hotel"}, "does not run 'hotel'"),
            ({"env": "clinic", "task_id": "t02_outstanding_balanc"}, "Did you mean 't02_outstanding_balance'"),
            ({"env": "clinic", "colour": "red"}, "not ['colour']"),
        ]:
            with pytest.raises(RuntimeError, match=re.escape(message)):
                client.reset(**kwargs)
        client.reset(env="clinic", task_id="t02_outstanding_balance", seed=0)
        cases = [
            (AwmAction(tool_name="no_such_tool", arguments={}), "unknown_tool"),
            (AwmAction(tool_name="search_patients", arguments="{not json"), "invalid_arguments"),
            (AwmAction(tool_name="list_invoices", arguments={"patient_id": "abc"}), "invalid_arguments"),
            (AwmAction(tool_name="submit_answer", arguments={"answer": [102]}), "malformed_action"),
            (AwmAction(tool_name="submit_answer", arguments={"value": 102}), "malformed_action"),
            (AwmAction(tool_name=""), "malformed_action"),
        ]
        for action, code in cases:
            r = client.step(action)
            assert not r.done and not r.observation.ok and r.observation.error_code == code, (action, r)
            assert r.reward == 0.0 and json.loads(r.observation.text)["error"]["code"] == code
        assert r.observation.rewards["malformed"]
        listing = client.step(AwmAction(type="list_tools"))
        assert listing.observation.ok and "submit_answer" in listing.observation.text
        # a payload of the wrong shape is refused by OpenEnv's validation; the session goes on
        bad = AwmAction.model_construct(type="call_tool", tool_name=5, arguments=7, metadata={})
        with warnings.catch_warnings(), pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            warnings.simplefilter("ignore")  # pydantic warns when it serialises the ill-typed fields
            client.step(bad)
        r = client.step(AwmAction(tool_name="submit_answer", arguments={"answer": 102}))
        assert r.done and r.reward == 1.0
        r = client.step(AwmAction(tool_name="submit_answer", arguments={"answer": 102}))
        assert r.done and r.observation.error_code == "episode_ended" and r.reward == 0.0
        assert client.state().step_count == len(cases) + 2
    # OpenEnv's stateless HTTP routes and an unknown session: answers, never a crash
    step = httpx.post(f"{server.url}/step", json={"action": {"tool_name": "search_patients"}}, timeout=10)
    assert step.status_code == 200 and step.json()["observation"]["error_code"] == "no_episode"
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"session_id": "nope"}}
    assert "Unknown session_id" in httpx.post(f"{server.url}/mcp", json=rpc, timeout=10).json()["error"]["message"]
    assert httpx.get(f"{server.url}/health", timeout=10).json()["status"] == "healthy"


def test_trl_environment_classes_over_openenv_score_like_local_episodes(server: Served) -> None:
    worlds = [awm.load(env) for env in ("online_store", "clinic")]
    factories = openenv_environment_factories(worlds, server.url)
    for env, tid in TASKS:
        cls = factories[env_key(env, tid)]
        assert {"submit_answer", "reset"} <= set(dir(cls)) and "close" not in vars(cls)
        gold = awm.load(env).task(tid).verifier.gold
        solved, text_only, wrong = cls(), cls(), cls()
        for e in (solved, text_only, wrong):
            e.reset(task_id=tid, seed=0)
        for c in gold.calls:
            assert json.loads(getattr(solved, c.tool)(**c.arguments))["ok"]
            getattr(text_only, c.tool)(**c.arguments)
        solved.submit_answer(answer=gold.answer)
        answer = gold.answer if not isinstance(gold.answer, list) else ", ".join(gold.answer)
        completions = ["ignored", [{"role": "assistant", "content": str(answer or "Done.")}], "I am not sure."]
        assert json.loads(wrong._call("no_such_tool", {}))["error"]["code"] == "unknown_tool"
        envs = [solved, text_only, wrong]
        assert outcome_reward(completions, envs) == [1.0, 1.0, 0.0], (env, tid)
        assert validity_reward(completions, envs) == [0.0, 0.0, -1.0]
        assert gated_process_reward(completions, envs) == [1.0, 1.0, 0.0]
        for e in envs:
            e._close()


@pytest.mark.train
@pytest.mark.slow  # ~20 s on 2 cores; test_grpo_smoke covers the trainer by default, the tests above the server
def test_grpo_two_steps_on_cpu_through_openenv(server: Served, tmp_path) -> None:
    """examples/train_grpo.py --openenv-url: its environment classes over our OpenEnv server (TRL's
    environment_factory path): the tiny scripted model of test_grpo_smoke, half of each group solving its task."""
    pytest.importorskip("trl", reason="needs the train extra: pip install -e '.[train]'")
    from awm.train.openenv_env import OpenEnvToolEnv
    from tests.train import test_grpo_smoke as smoke

    example = smoke.load_example()
    tokenizer = smoke.tiny_tokenizer()
    model = smoke.scripted_model(tokenizer)
    argv = ["--cpu", "--envs", ",".join(smoke.TASKS), "--task-ids", ",".join(smoke.TASKS.values()), "--repeats", "4"]
    argv += ["--chat-template", "qwen3", "--max-steps", "2", "--batch-size", "4", "--num-generations", "4"]
    argv += ["--lr", "1e-2", "--max-completion-length", "2048", "--max-tool-calls", "4", "--rewards", "outcome"]
    argv += ["--output-dir", str(tmp_path), "--openenv-url", server.url]
    trainer = example.build_trainer(example.parse_args(argv), model=model, tokenizer=tokenizer)
    trainer.train()
    logs = [h for h in trainer.state.log_history if "loss" in h]
    assert len(logs) == 2 and all(h["rewards/outcome_reward/mean"] == pytest.approx(0.5) for h in logs)
    assert all(h["grad_norm"] > 0 and h["tools/failure_frequency"] == 0 for h in logs)
    envs = [e for pool in trainer._environment_pool.values() for e in pool]
    assert envs and all(isinstance(e, OpenEnvToolEnv) and e.episode is None for e in envs)  # no local episode
    assert sum(e.final is not None and e.final.outcome == 1.0 for e in envs) >= 2
    for e in envs:
        e._close()
