"""The verifiers (PrimeIntellect, v1 stack) adapter: the taskset loads through verifiers' own loaders, the tool
server runs scripted gold and wrong policies, and verifiers' own ``Task.score`` puts awm's verdict on the trace.
The last test runs verifiers' whole eval loop (``vf-eval``'s ``run_eval``): a scripted OpenAI-compatible model on
127.0.0.1, verifiers' null chat harness as a subprocess, our tool server as the rollout's MCP subprocess, and
verifiers' scoring."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
vf = pytest.importorskip("verifiers.v1", reason="needs verifiers==0.4.0 (pip install verifiers)")

import awm  # noqa: E402
from awm.train.verifiers_env import (  # noqa: E402
    AwmTask,
    AwmTaskset,
    AwmTasksetConfig,
    AwmToolset,
    load_environment,
)

INTEGRATION = Path(__file__).resolve().parents[2] / "integrations" / "verifiers"
CASES = {"online_store": 2, "clinic": 2}  # environment -> how many of its tasks


@pytest.fixture(autouse=True)
def _taskset_id_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """``awm-gym`` resolves to the ``awm_gym`` module of the integration package (as if pip-installed)."""
    monkeypatch.syspath_prepend(str(INTEGRATION))
    sys.modules.pop("awm_gym", None)


def load_tasks() -> list[AwmTask]:
    env = vf.SingleAgentEnvConfig.model_validate({"taskset": {"id": "awm-gym", "envs": list(CASES)}})
    assert isinstance(env.taskset, AwmTasksetConfig)  # narrowed by id through verifiers' loader
    taskset = vf.load_taskset(env.taskset)
    assert isinstance(taskset, AwmTaskset)
    tasks = list(taskset)
    picked = []
    for name, n in CASES.items():
        picked += [t for t in tasks if t.data.env == name][:n]
    return picked


def rollout(task: AwmTask, actions: list[tuple[str, object]]):
    """Drive the task's tool server with scripted calls, then score with verifiers' own Task.score."""
    toolset = AwmToolset(vf.ToolsetConfig())
    asyncio.run(toolset.setup_task(task))
    tools = {t.name for t in asyncio.run(toolset.list_tools())}
    assert "submit_answer" in tools
    observations = [json.loads(toolset.step(name, args)) for name, args in actions]
    trace = vf.Trace(
        task=vf.TraceTask(type="awm", data=task.data, key=task.key),
        agent=vf.AgentInfo(config=vf.AgentConfig()),
        state=toolset.state,
    )
    asyncio.run(task.score(trace))
    return trace, observations


def awm_verdict(task: AwmTask, calls, answer, submit: bool = True) -> float:
    """The same actions straight on an awm episode."""
    ep = awm.load(task.data.env).episode(task.data.task_id, seed=task.data.seed)
    for tool, args in calls:
        ep.call(tool, args)
    return float(ep.submit(answer if submit else None).rewards.outcome or 0.0) if submit else 0.0


def test_gold_and_wrong_policies_score_awm_verdicts() -> None:
    tasks = load_tasks()
    assert len(tasks) >= 3 and {t.data.env for t in tasks} == set(CASES)
    for task in tasks:
        gold = awm.load(task.data.env).task(task.data.task_id).verifier.gold
        calls = [(c.tool, c.arguments) for c in gold.calls]
        # gold
        trace, obs = rollout(task, [*calls, ("submit_answer", {"answer": gold.answer})])
        assert all(o.get("ok") for o in obs), obs
        assert trace.rewards["outcome"].value == awm_verdict(task, calls, gold.answer) == 1.0
        assert trace.metrics["validity"] == 0.0 and trace.metrics["gated_process"] == 1.0
        # wrong: skip the writes (or, for read-only tasks, give a wrong answer)
        wrong = "not the answer" if not any(c.tool for c in gold.calls) else gold.answer
        trace, _ = rollout(task, [("submit_answer", {"answer": wrong})])
        assert trace.rewards["outcome"].value == awm_verdict(task, [], wrong)
        # truncated: no submit_answer at all scores 0 even after the gold calls
        trace, _ = rollout(task, calls)
        assert trace.rewards["outcome"].value == 0.0
        assert trace.metrics["progress"] >= 0.0


def test_bad_input_is_an_observation_not_a_crash() -> None:
    task = load_tasks()[0]
    gold = awm.load(task.data.env).task(task.data.task_id).verifier.gold
    bad = [
        ("no_such_tool", {}),
        (gold.calls[0].tool if gold.calls else "list_tools", "{not json"),
        ("submit_answer", {"value": 1}),  # malformed submit: the episode goes on
    ]
    calls = [(c.tool, c.arguments) for c in gold.calls]
    trace, obs = rollout(task, [*bad, *calls, ("submit_answer", {"answer": gold.answer}), ("anything", {})])
    assert [o["ok"] for o in obs[:3]] == [False, False, False]
    assert obs[-1]["error"]["code"] == "episode_ended"
    assert trace.rewards["outcome"].value == 1.0  # the judge's replay counts the bad calls, the outcome holds
    assert trace.metrics["validity"] < 0.0 and trace.metrics["gated_process"] < 1.0


def test_tool_server_process_sees_task_data_and_its_own_config() -> None:
    """In its own process the server gets the rollout's task *data* (over verifiers' ``/task`` channel) and only
    its toolset config (``VF_CONFIG``): the episode opens from the data, the observation cap rides the config."""
    task = load_tasks()[0]
    (server,) = AwmTask.toolsets(task.config.model_copy(update={"max_observation_chars": 40}))
    config = type(server.config).model_validate_json(server.config.model_dump_json())  # as the process gets it
    toolset = AwmToolset(config)
    asyncio.run(toolset.setup_task(task.data.model_validate_json(task.data.model_dump_json())))
    assert toolset.episode is not None and toolset.episode.task.id == task.data.task_id
    gold = awm.load(task.data.env).task(task.data.task_id).verifier.gold
    text = toolset.step(gold.calls[0].tool, gold.calls[0].arguments)
    assert text.index("... [") == 40 and "more characters cut" in text


def test_load_environment_builds_verifiers_single_agent_env() -> None:
    env = load_environment(["online_store", "clinic"], tasks=None)
    assert isinstance(env, vf.SingleAgentEnv)
    assert {t.data.env for t in env.taskset} == {"online_store", "clinic"}


# --- the full loop: run_eval -> null harness (chat program) -> scripted model + our MCP tool server -> scoring ---


class ScriptedModel(ThreadingHTTPServer):
    """An OpenAI-compatible ``/v1/chat/completions`` on 127.0.0.1 that plays scripts: the task is found by its
    instruction (the user message), the turn by the number of assistant messages so far, and the rollout by the
    ``X-Session-ID`` header verifiers sends upstream (the trace id): a task's first rollout plays its first script,
    the next one its second. Each turn is one tool call; after the script, a plain reply ends the program."""

    def __init__(self, scripts: dict[str, list[list[tuple[str, Any]]]]) -> None:
        super().__init__(("127.0.0.1", 0), _ScriptedHandler)
        self.scripts = scripts  # instruction -> the scripts of its rollouts, in the order they arrive
        self.played: dict[str, tuple[str, int]] = {}  # trace id -> (instruction, script index)
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def turn(self, session: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        user = next(m["content"] for m in messages if m["role"] == "user")
        if isinstance(user, list):
            user = "".join(part.get("text", "") for part in user)
        with self.lock:
            if session not in self.played:
                taken = sum(k == user for k, _ in self.played.values())
                self.played[session] = (user, taken)
            _, index = self.played[session]
        script = self.scripts[user][index]
        step = sum(m["role"] == "assistant" for m in messages)
        if step >= len(script):
            return {"role": "assistant", "content": "Done."}
        name, args = script[step]
        call = {"index": 0, "id": f"call_{step}", "type": "function", "function": {"name": name}}
        call["function"]["arguments"] = json.dumps(args)
        return {"role": "assistant", "content": None, "tool_calls": [call]}


class _ScriptedHandler(BaseHTTPRequestHandler):
    server: ScriptedModel

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        delta = self.server.turn(self.headers.get("X-Session-ID", ""), body["messages"])
        finish = "tool_calls" if delta.get("tool_calls") else "stop"
        head = {"id": "scripted", "object": "chat.completion.chunk", "created": 0, "model": body["model"]}
        if body.get("stream"):  # verifiers' chat program streams; the interception server relays the events
            chunks = [
                {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
                {**head, "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
            ]
            out = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
            kind = "text/event-stream"
        else:
            for call in delta.get("tool_calls", []):
                call.pop("index")
            choice = {"index": 0, "message": delta, "finish_reason": finish}
            usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
            out = json.dumps({**head, "object": "chat.completion", "choices": [choice], "usage": usage}).encode()
            kind = "application/json"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


@pytest.fixture
def chat_program_without_uv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """verifiers provisions its null harness (a PEP 723 chat program) with ``uv sync --script``, which downloads
    the program's dependencies. They are verifiers' own (openai, mcp, httpx2, tenacity, certifi), so register
    this interpreter as the program's prepared one instead: no uv, no network; the program runs unchanged."""
    for dep in ("openai", "httpx2", "tenacity", "certifi"):
        pytest.importorskip(dep)
    from verifiers.v1.harnesses.utils.launch import CHAT_PROGRAM_SOURCE
    from verifiers.v1.runtimes.subprocess import SubprocessRuntime

    scripts = tmp_path / "scripts"
    scripts.mkdir()
    source = CHAT_PROGRAM_SOURCE.encode()
    path = scripts / f"{hashlib.sha256(source).hexdigest()}.py"  # where prepare_uv_script keeps it
    path.write_bytes(source)
    monkeypatch.setattr(SubprocessRuntime, "scripts_dir", str(scripts))
    monkeypatch.setitem(SubprocessRuntime._interpreters, str(path), sys.executable)


def wrong_answer(answer: Any) -> Any:
    """A value of the gold answer's type that is not the gold answer."""
    if isinstance(answer, bool):
        return not answer
    if isinstance(answer, int | float):
        return answer + 1
    if isinstance(answer, str):
        return "Nobody At All"
    if isinstance(answer, list):
        return answer[:-1] if answer else ["Nobody At All"]
    if isinstance(answer, dict) and answer:
        key = sorted(answer)[-1]
        return {**answer, key: wrong_answer(answer[key])}
    raise AssertionError(f"no wrong answer for {answer!r}")


@pytest.mark.parametrize("per_env", [1, pytest.param(3, marks=pytest.mark.slow)])
def test_full_eval_loop_rewards_equal_awm_verdicts(
    per_env: int, chat_program_without_uv: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``vf-eval``'s own ``run_eval`` (no push, no dashboard) over 2 environments x ``per_env`` tasks x 2 rollouts:
    per task one gold rollout and one wrong one (alternately a wrong answer, or the gold calls cut off without
    ``submit_answer``). The reward verifiers puts on each trace equals awm's verdict for the same calls. Each
    rollout starts two Python processes (the tool server and the chat program), hence the slow variant."""
    from verifiers.v1.cli.eval.runner import run_eval
    from verifiers.v1.configs.cli.eval import EvalConfig

    worlds = {name: awm.load(name) for name in CASES}
    picked = {name: w.task_ids[:per_env] for name, w in worlds.items()}
    scripts: dict[str, list[list[tuple[str, Any]]]] = {}
    expected: dict[tuple[str, str, int], tuple[list[tuple[str, Any]], Any, bool]] = {}
    for name, tids in picked.items():
        for tid in tids:
            answers = len(scripts) % 2 == 0  # alternate: a wrong answer, or the gold calls cut off with no answer
            task = worlds[name].task(tid)
            gold = task.verifier.gold
            calls = [(c.tool, c.arguments) for c in gold.calls]
            wrong = wrong_answer(gold.answer)
            scripts[task.task.instruction] = [
                [*calls, ("submit_answer", {"answer": gold.answer})],
                [*calls, ("submit_answer", {"answer": wrong})] if answers else calls,
            ]
            expected[name, tid, 0] = (calls, gold.answer, True)
            expected[name, tid, 1] = (calls, wrong, answers)

    model = ScriptedModel(scripts)
    threading.Thread(target=model.serve_forever, daemon=True).start()
    monkeypatch.setenv("VF_RUN_ID", "awm-test")  # run_eval exports the run id; keep it out of later tests
    config = EvalConfig.model_validate(
        {
            "env": {
                "taskset": {
                    "id": "awm-gym",
                    "envs": list(CASES),
                    "tasks": sorted({t for v in picked.values() for t in v}),
                },
                "agent": {"harness": {"id": "null"}, "runtime": {"type": "subprocess"}, "max_turns": 12},
            },
            "model": "scripted",
            "client": {"type": "eval", "base_url": model.url, "api_key_var": "AWM_SCRIPTED_MODEL_KEY"},
            "num_rollouts": 2,
            "push": False,  # --no-push: no prime login, nothing leaves the machine
            "rich": None,  # --no-rich
            "output_dir": str(tmp_path / "outputs"),
        }
    )
    try:
        episodes = asyncio.run(run_eval(config))
    finally:
        model.shutdown()
        model.server_close()

    assert len(episodes) == 2 * sum(map(len, picked.values()))
    seen = set()
    for ep in episodes:
        assert ep.ok, ep.errors
        (trace,) = ep.traces
        assert trace.ok, trace.errors
        data = trace.task.data
        instruction, index = model.played[trace.id]
        calls, answer, submit = expected[data.env, data.task_id, index]
        seen.add((data.env, data.task_id, index))
        # verifiers routed every scripted call through our tool server, which logged it on the rollout's state
        sent = [{"tool": t, "arguments": a} for t, a in scripts[instruction][index]]
        assert trace.state.actions == sent
        assert trace.state.submitted is submit
        reward = trace.rewards["outcome"].value
        assert reward == awm_verdict(AwmTask(data), calls, answer, submit) == (1.0 if index == 0 else 0.0)
        assert trace.metrics["num_calls"] == len(calls)
    assert seen == set(expected)
    # the run's traces were written locally, as vf-eval writes them (configs + traces.jsonl)
    (traces,) = (tmp_path / "outputs").glob("*/traces.jsonl")
    assert len(traces.read_text().splitlines()) == len(episodes)
