"""``awm eval`` says what happened: non-zero exits when nothing was scored, refused resumes with another
configuration, tools a server drops, replies cut at max_tokens, and malformed-action messages a model
cannot paste back into a new malformed action."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from awm.cli import app
from awm.eval import ChatAgent, ChatClient, EvalConfig, Status, read_records, run_eval
from awm.eval.runner import config_changes
from awm.eval.toolselect import select_tools, shorten_tools
from awm.runtime.actions import agent_tools
from awm.runtime.chat import system_prompt
from tests.eval.fake_openai import Reply, completion, fake_openai, tool_call
from tests.eval.test_fake_server import ENV, GOLD, gold_reply, task_of, world

NUMBER = "t01_priya_2026_spend"  # an information task: a typed number answer


def invoke(*args: str, env: dict[str, str | None] | None = None):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": None, **(env or {})})


def run(agent: ChatAgent, out: Path, tasks: list[str], **kw: Any):
    return asyncio.run(run_eval(agent, EvalConfig(out=out, envs=[ENV], task_ids=tasks, concurrency=2, **kw)))


# -- 6: exit codes ---------------------------------------------------------------------------------
def test_nothing_scored_exits_1_and_says_why_naming_the_host(tmp_path: Path) -> None:
    with fake_openai(lambda body: Reply(status=500)) as srv:
        res = invoke(
            "eval", "--base-url", srv.url, "--model", "m", "--envs", ENV, "--tasks", "2", "--retries", "0",
            "--out", str(tmp_path),
        )  # fmt: skip
    text = " ".join(res.output.split())
    assert res.exit_code == 1, res.output
    assert "nothing was scored: all 2 episode(s) hit infrastructure errors (llm_http_500 2)" in text
    assert srv.url.removesuffix("/v1") in text  # the message names the endpoint


def test_an_unreachable_endpoint_stops_the_run_at_once(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once closed
    res = invoke(
        "eval", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m", "--envs", ENV, "--tasks", "10",
        "--retries", "0", "--concurrency", "2", "--out", str(tmp_path),
    )  # fmt: skip
    assert res.exit_code == 1, res.output
    assert f"cannot reach the model: POST http://127.0.0.1:{port}/v1/chat/completions" in " ".join(res.output.split())
    assert len(read_records(tmp_path / "results.jsonl")) <= 2


def test_tasks_0_is_nothing_to_run(tmp_path: Path) -> None:
    res = invoke("eval", "--agent", "oracle", "--envs", ENV, "--tasks", "0", "--out", str(tmp_path))
    assert res.exit_code == 1 and "nothing to run" in res.output


def test_an_unset_api_key_variable_is_an_error_up_front(tmp_path: Path) -> None:
    with fake_openai(lambda body: gold_reply(body, task_of(body))) as srv:
        res = invoke(
            "eval", "--base-url", srv.url, "--model", "m", "--envs", ENV, "--task-id", GOLD,
            "--api-key-env", "AWM_TEST_UNSET_KEY", "--out", str(tmp_path),
            env={"AWM_TEST_UNSET_KEY": None},
        )  # fmt: skip
        assert not srv.requests
    assert res.exit_code == 2
    assert "AWM_TEST_UNSET_KEY" in res.output and "not set" in res.output


# -- 7: resuming with another configuration ------------------------------------------------------------
def test_resuming_with_another_configuration_is_refused(tmp_path: Path) -> None:
    base = ["eval", "--agent", "oracle", "--envs", ENV, "--tasks", "2", "--out", str(tmp_path)]
    assert invoke(*base).exit_code == 0
    info = (tmp_path / "run.json").read_text()
    for change, expected in (
        (["--k", "2"], "k 1 -> 2"),
        (["--tasks", "3"], "tasks_per_env 2 -> 3"),
        (["--max-steps", "5"], "max_steps 30 -> 5"),
        (["--seed", "1"], "seed 0 -> 1"),
        (["--agent", "noop"], "agent 'oracle' -> 'noop'"),
    ):
        res = invoke(*base, *change)  # the last --tasks wins; a usage error: exit 2
        assert res.exit_code == 2, (change, res.output)
        assert expected in " ".join(res.output.split()) and "--overwrite" in res.output
        assert (tmp_path / "run.json").read_text() == info  # not overwritten
    # the same configuration resumes and records the invocation; --overwrite starts afresh
    res = invoke(*base)
    assert res.exit_code == 0 and "2 already scored" in res.output
    assert len(json.loads((tmp_path / "run.json").read_text())["invocations"]) == 2
    res = invoke(*base, "--k", "2", "--overwrite")
    assert res.exit_code == 0
    run_info = json.loads((tmp_path / "run.json").read_text())
    assert run_info["config"]["k"] == 2 and len(run_info["invocations"]) == 1
    assert {r.trial for r in read_records(tmp_path / "results.jsonl")} == {0, 1}


def test_model_settings_are_part_of_the_configuration() -> None:
    before = {"config": {"agent": "openai", "model": "m", "tool_format": "auto", "temperature": 0.7}}
    now = {"agent": "openai", "model": "m", "tool_format": "text", "temperature": 0.7}
    assert config_changes(before, now) == ["tool_format 'auto' -> 'text'"]
    legacy = {"agent": "openai", "model": "m", "k": 1}  # a run.json written before configurations
    assert config_changes(legacy, {"agent": "openai", "model": "m", "k": 2, "seed": 0}) == ["k 1 -> 2"]


# -- 8: tools a server drops, small contexts, cut replies, echoed errors -------------------------------
def test_auto_detects_a_server_that_drops_tools_and_uses_text(tmp_path: Path) -> None:
    def model(body: dict[str, Any]) -> Reply:  # a model that never sees the tools answers in text only
        return gold_reply(body, task_of(body), text=True)

    with fake_openai(model, renders_tools=False) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=0), tool_format="auto")
        result = run(agent, tmp_path, [GOLD])
        bodies = [b for b in srv.requests if b.get("max_tokens") != 1]
    assert [r.status for r in result.records] == [Status.passed]
    assert agent.text_mode and "does not show them to the model" in agent.notes[0]
    assert all("tools" not in b and "<tools>" in b["messages"][0]["content"] for b in bodies)
    assert json.loads((tmp_path / "run.json").read_text())["invocations"][0]["notes"] == agent.notes


def test_max_tools_and_short_descriptions_shrink_the_prompt(tmp_path: Path) -> None:
    with fake_openai(lambda body: gold_reply(body, task_of(body))) as srv:
        res = invoke(
            "eval", "--base-url", srv.url, "--model", "m", "--envs", ENV, "--task-id", GOLD, "--max-tools", "6",
            "--short-descriptions", "--tool-format", "native", "--out", str(tmp_path),
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        bodies = list(srv.requests)
    names = [t["function"]["name"] for t in bodies[0]["tools"]]
    assert len(names) == 7 and names[-1] == "submit_answer"
    assert all(c.tool in names for c in world().task(GOLD).verifier.gold.calls)  # the relevant ones
    assert all(
        "description" not in p
        for t in bodies[0]["tools"][:-1]
        for p in t["function"]["parameters"]["properties"].values()
    )
    assert json.loads((tmp_path / "run.json").read_text())["config"]["max_tools"] == 6
    # text mode: the system prompt of the full tool list is several times longer
    w = world()
    task = w.task(GOLD).task
    tools = agent_tools(w, task)
    full = system_prompt(w, True, task=task)
    small = system_prompt(w, True, task=task, tools=shorten_tools(select_tools(tools, task.instruction, 6)))
    assert len(full) > 4 * len(small)


def test_select_and_shorten_keep_what_matters() -> None:
    w = world()
    task = w.task(GOLD).task
    tools = agent_tools(w, task)
    picked = select_tools(tools, task.instruction, 3)
    assert len(picked) == 4 and picked[-1]["function"]["name"] == "submit_answer"
    assert select_tools(tools, task.instruction, 3) == picked  # deterministic
    assert select_tools(tools, task.instruction, 1000) == tools
    short = shorten_tools(tools)
    for before, after in zip(tools, short, strict=True):
        fb, fa = before["function"], after["function"]
        assert fa["name"] == fb["name"] and fa["parameters"].get("required") == fb["parameters"].get("required")
        assert len(fa["description"]) <= max(120, len(fb["description"]) if fb["name"] == "submit_answer" else 0)
    assert sum(map(len, map(str, short))) < 0.7 * sum(map(len, map(str, tools)))


def test_a_reply_cut_at_max_tokens_is_not_an_answer(tmp_path: Path) -> None:
    gold = world().task(NUMBER).verifier.gold.answer

    def cut(body: dict[str, Any]) -> Reply:  # the right number, but the reply was cut off mid-way
        return completion(f"Let me think. Her orders add up to {gold}, but wait", finish="length")

    with fake_openai(cut) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=0), tool_format="native", max_tokens=16)
        (rec,) = run(agent, tmp_path / "plain", [NUMBER]).records
    assert rec.status == Status.truncated and rec.truncation == "max_tokens" and rec.outcome == 0.0
    assert rec.trajectory.steps == []  # nothing was submitted

    calls = gold_reply({"messages": [{}, {}]}, GOLD, text=True, done=0).body
    assert calls is not None
    first = calls["choices"][0]["message"]["content"]

    def complete_then_cut(body: dict[str, Any]) -> Reply:  # a complete call, then a cut one
        if sum(m["role"] == "assistant" for m in body["messages"]) == 0:
            return completion(first + '\n<tool_call>\n{"name": "get_', finish="length")
        return completion("I am still", finish="length")

    with fake_openai(complete_then_cut) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=0), tool_format="text", max_tokens=64)
        (rec,) = run(agent, tmp_path / "text", [GOLD]).records
    assert rec.status == Status.truncated and rec.truncation == "max_tokens"
    assert len(rec.trajectory.steps) == 1 and rec.trajectory.steps[0].ok  # the complete call ran


def test_a_model_that_echoes_the_error_does_not_loop(tmp_path: Path) -> None:
    """A small model that pastes the last tool response back: the malformed-action message holds no tag and
    no JSON example, so the echo is not another malformed tool call (before: a malformed action every step
    until the step budget ran out)."""
    seen: list[dict[str, Any]] = []

    def echo(body: dict[str, Any]) -> Reply:
        seen.append(body)
        last = body["messages"][-1]
        if last["role"] != "user" or "<tool_response>" not in last["content"]:
            return completion("<tool_call>\n{name: get_order, arguments: {order_id: 7}}\n</tool_call>")
        return completion(last["content"])  # the error, pasted back

    with fake_openai(echo) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=0), tool_format="text")
        (rec,) = run(agent, tmp_path, [GOLD], max_steps=8).records
    steps = rec.trajectory.steps
    codes = [s.error["code"] if s.error else None for s in steps]
    assert codes == ["malformed_action", None], codes  # the echo ended the episode as a (wrong) answer
    assert rec.status == Status.failed and rec.truncation is None
    message = steps[0].error["message"] if steps[0].error else ""
    assert "<tool_call>" not in message and "{" not in message and len(message) < 200

    # native tool calls: a tool call with broken arguments gets a short answer too
    with fake_openai(lambda b: completion(None, [tool_call("submit_answer", '{"answer": ')])) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=0), tool_format="native")
        (rec,) = run(agent, tmp_path / "native", [NUMBER], max_steps=2).records
    assert all("<tool_call>" not in (s.error or {}).get("message", "") for s in rec.trajectory.steps)
