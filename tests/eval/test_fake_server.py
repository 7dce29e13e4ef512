"""``awm eval`` against a local fake OpenAI-compatible server that scripts the model's replies."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from awm.cli import app
from awm.eval import ChatAgent, ChatClient, EvalConfig, Status, read_records, run_eval
from awm.eval.report import build_report
from awm.model.registry import default_registry
from tests.eval.fake_openai import Reply, completion, fake_openai, tool_call

ENV = "online_store"
GOLD = "t09_approve_priya_return"  # native tool calls, gold solution -> passed
TEXT = "t04_boots_sold_out"  # <tool_call> text in the content -> passed
BAD = "t07_marcus_new_address"  # malformed arguments, unknown tool, no name -> failed, tool errors
LOOP = "t02_best_rated_kitchen"  # never answers -> truncated (max_steps)
LONG = "t03_liam_tracking"  # the server says the context is full -> truncated (context_length)
FAIL = "t10_ship_hannah_order"  # HTTP 500 every time -> infra_error
HANG = "t11_hide_grinder_review"  # never answers in time -> infra_error
TASKS = [GOLD, TEXT, BAD, LOOP, LONG, FAIL, HANG]


def world():
    return default_registry().load(ENV)


def task_of(body: dict[str, Any]) -> str:
    instruction = body["messages"][1]["content"]
    return next(t.id for t in world().files.tasks if t.instruction == instruction)


def gold_reply(body: dict[str, Any], task_id: str, text: bool = False, done: int | None = None) -> Reply:
    """The next step of the task's gold solution (``done``: calls made so far; default: counted in the history)."""
    gold = world().task(task_id).verifier.gold
    if done is None and text:
        done = sum(m["content"].count("<tool_response>") for m in body["messages"] if m["role"] == "user")
    elif done is None:
        done = sum(m["role"] == "tool" for m in body["messages"])
    if done < len(gold.calls):
        call = gold.calls[done]
        if text:
            payload = json.dumps({"name": call.tool, "arguments": call.arguments})
            return completion(f"<think>next step</think>Let me check.\n<tool_call>\n{payload}\n</tool_call>")
        return completion(None, [tool_call(call.tool, json.dumps(call.arguments), f"call_{done}")])
    submit = {"answer": gold.answer, "explanation": "from the gold solution"}  # the typed answer
    if text:
        return completion(f"<tool_call>\n{json.dumps({'name': 'submit_answer', 'arguments': submit})}\n</tool_call>")
    return completion(None, [tool_call("submit_answer", json.dumps(submit), f"call_{done}")])


def script(body: dict[str, Any]) -> Reply:
    task = task_of(body)
    turn = sum(m["role"] == "assistant" for m in body["messages"])
    if task == GOLD:
        return gold_reply(body, task)
    if task == TEXT:
        return gold_reply(body, task, text=True)
    if task == BAD:
        bad = [
            [tool_call("update_customer_contact", '{"customer_id": 3, "phone": ', "c1")],  # arguments are not JSON
            [tool_call("drop_all_tables", "{}", "c2")],  # unknown tool
            [{"id": "c3", "type": "function", "function": {"arguments": "{}"}}],  # no name
            [tool_call("get_order", '{"order_id": "x"}', "c4"), tool_call("get_orderz", "{}", "c5")],  # two at once
        ]
        return completion(None, bad[turn]) if turn < len(bad) else completion("I could not do it.")
    if task == LOOP:
        return completion(None, [tool_call("search_products", '{"query": "kitchen"}', f"c{turn}")])
    if task == LONG:
        if turn == 0:
            return completion(None, [tool_call("search_products", '{"query": "boots"}')])
        return Reply({"error": {"message": "This model's maximum context length is 4096 tokens"}}, status=400)
    if task == FAIL:
        return Reply(status=500)
    if task == HANG:
        return Reply(hang=3.0, body=completion("too late").body)
    raise AssertionError(task)


def test_cli_eval_against_fake_server_statuses_and_report(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with fake_openai(script) as srv:
        args = ["eval", "--base-url", srv.url, "--model", "fake/model-1", "--envs", ENV, "--out", str(out)]
        args += ["--timeout", "0.5", "--retries", "1", "--max-steps", "6", "--concurrency", "4"]
        for t in TASKS:
            args += ["--task-id", t]
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
        probes = [b for b in srv.requests if b.get("max_tokens") == 1]  # auto: does the server render tools?
        bodies = [b for b in srv.requests if b.get("max_tokens") != 1]
    assert "infrastructure errors" in res.output
    assert {"tools" in b for b in probes} == {True, False} and "note:" not in res.output
    records = {r.task_id: r for r in read_records(out / "results.jsonl")}
    assert set(records) == set(TASKS)
    status = {t: r.status for t, r in records.items()}
    assert status == {
        GOLD: Status.passed,
        TEXT: Status.passed,
        BAD: Status.failed,
        LOOP: Status.truncated,
        LONG: Status.truncated,
        FAIL: Status.infra_error,
        HANG: Status.infra_error,
    }
    assert records[LOOP].truncation == "max_steps" and len(records[LOOP].trajectory.steps) == 6
    assert records[LONG].truncation == "context_length"
    assert records[FAIL].error is not None and records[FAIL].error.kind == "llm_http_500"
    assert records[HANG].error is not None and records[HANG].error.kind == "llm_timeout"
    assert records[FAIL].outcome is None and records[BAD].outcome == 0.0 and records[GOLD].outcome == 1.0

    # the agent's mistakes are observations with the env's error codes, recorded step by step
    steps = records[BAD].trajectory.steps
    codes = [s.error["code"] if s.error else None for s in steps]
    assert codes == ["invalid_arguments", "unknown_tool", "malformed_action", "invalid_arguments", "unknown_tool", None]
    assert steps[0].reward_components["invalid_arguments"] and steps[1].reward_components["unknown_tool"]
    assert steps[-1].tool is None and steps[-1].reward_components["outcome"] == 0.0
    assert isinstance(steps[0].action, dict) and steps[0].action["id"] == "c1"  # the raw tool call is recorded
    # the history sent back answers every tool call id, and unparseable arguments are echoed as {}
    last_bad = [b for b in bodies if task_of(b) == BAD][-1]["messages"]
    calls = [c for m in last_bad if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    answered = [m["tool_call_id"] for m in last_bad if m["role"] == "tool"]
    assert [c["id"] for c in calls] == answered == ["c1", "c2", "c3", "c4", "c5"]
    assert calls[0]["function"]["arguments"] == "{}"
    # text tool calls: tool results come back as <tool_response> user turns; <think> is not an answer
    text_steps = records[TEXT].trajectory.steps
    assert all(s.ok for s in text_steps) and text_steps[0].action.startswith("<tool_call>")
    assert records[GOLD].usage.requests == len(records[GOLD].trajectory.steps)
    assert records[GOLD].usage.prompt_tokens > 1000 * records[GOLD].usage.requests  # the tools are counted
    # every request carries the tools and a per-trial seed; the same task's requests share it
    assert all(b["tools"] and b["tool_choice"] == "auto" for b in bodies)
    # submit_answer is offered with each task's answer schema, and its typed arguments reach the episode
    for b in bodies:
        submit = next(t["function"] for t in b["tools"] if t["function"]["name"] == "submit_answer")
        schema = world().task(task_of(b)).task.answer
        answer = submit["parameters"]["properties"]["answer"]
        assert answer["type"] == ("null" if schema is None else schema.json_schema()["type"])
    text_final = records[TEXT].trajectory.steps[-1]
    assert text_final.tool is None and text_final.reward_components["answer_correct"] is True
    assert '"submit_answer"' in text_final.action
    assert len({b["seed"] for b in bodies if task_of(b) == GOLD}) == 1

    rep = CliRunner().invoke(app, ["report", str(out), "--tasks"])
    assert rep.exit_code == 0, rep.output
    for name in ("report.json", "report.md", "report.png"):
        assert (out / name).stat().st_size > 0
    report = json.loads((out / "report.json").read_text())
    assert report["statuses"] == {"failed": 1, "infra_error": 2, "passed": 2, "truncated": 2}
    assert report["infra_error_kinds"] == {"llm_http_500": 1, "llm_timeout": 1}
    overall = report["overall"]
    assert overall["episodes"] == 5 and overall["infra_errors"] == 2
    assert overall["pass@1"] == pytest.approx(2 / 5)  # infra errors are not scored
    assert 0 < overall["tool_error_rate"] < 1 and overall["unknown_tool"] > 0
    assert report["run"]["model"] == "fake/model-1"
    assert "| online_store |" in (out / "report.md").read_text()

    # rerunning resumes: scored episodes are kept, the infra errors are retried (now they succeed)
    def healed(body: dict[str, Any]) -> Reply:
        return gold_reply(body, task_of(body))

    with fake_openai(healed) as srv:
        again = args[:]
        again[again.index("--base-url") + 1] = srv.url
        res = CliRunner().invoke(app, again)
        assert res.exit_code == 0, res.output
        assert {task_of(b) for b in srv.requests} == {FAIL, HANG}
    statuses = Counter(r.status for r in read_records(out / "results.jsonl"))
    assert statuses == {Status.passed: 4, Status.failed: 1, Status.truncated: 2}
    assert build_report(out)["overall"]["infra_errors"] == 0


def test_refused_request_stops_the_run(tmp_path: Path) -> None:
    def not_found(body: dict[str, Any]) -> Reply:
        return Reply(status=404)

    with fake_openai(not_found) as srv:
        res = CliRunner().invoke(
            app,
            ["eval", "--base-url", srv.url, "--model", "nope", "--envs", ENV, "--tasks", "4", "--out", str(tmp_path)],
        )
    assert res.exit_code == 1
    assert "stopped" in res.output and "404" in res.output
    records = read_records(tmp_path / "results.jsonl")
    assert len(records) <= 4 and all(r.status == Status.infra_error for r in records)


def test_the_api_key_is_sent_only_from_the_named_variable(tmp_path: Path) -> None:
    env = {"AWM_TEST_KEY": "sk-test-123", "OPENAI_API_KEY": "sk-should-not-leak"}
    with fake_openai(lambda b: gold_reply(b, task_of(b))) as srv:
        base = ["eval", "--base-url", srv.url, "--model", "m", "--envs", ENV, "--task-id", GOLD]
        res = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "a"), "--api-key-env", "AWM_TEST_KEY"], env=env)
        assert res.exit_code == 0, res.output
        named = set(srv.authorization)
        srv.authorization.clear()
        res = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "b")], env=env)
        assert res.exit_code == 0, res.output
    assert named == {"Bearer sk-test-123"} and set(srv.authorization) == {None}
    assert "sk-test-123" not in (tmp_path / "a" / "run.json").read_text()


def _run(agent: ChatAgent, out: Path, tasks: list[str], **kw: Any):
    cfg = EvalConfig(out=out, envs=[ENV], task_ids=tasks, concurrency=2, **kw)
    return asyncio.run(run_eval(agent, cfg))


def test_text_tool_format_and_history_window(tmp_path: Path) -> None:
    calls: Counter[int] = Counter()

    def stateful(body: dict[str, Any]) -> Reply:  # with a window the history cannot tell how far the model got
        calls[body["seed"]] += 1
        return gold_reply(body, task_of(body), text=True, done=calls[body["seed"]] - 1)

    with fake_openai(stateful) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=0), tool_format="text", history=1)
        result = _run(agent, tmp_path, ["t12_elena_first_order"])
        bodies = list(srv.requests)
    assert [r.status for r in result.records] == [Status.passed]
    assert all("tools" not in b for b in bodies)
    assert "<tools>" in bodies[0]["messages"][0]["content"]
    # with history=1, a request holds system + task + at most one assistant turn and its results
    assert max(len(b["messages"]) for b in bodies) == 4


def test_auto_falls_back_to_text_when_the_server_has_no_tool_calling(tmp_path: Path) -> None:
    def no_tools(body: dict[str, Any]) -> Reply:
        if "tools" in body:
            return Reply({"error": {"message": '"auto" tool choice requires --enable-auto-tool-choice'}}, 400)
        return gold_reply(body, task_of(body), text=True)

    with fake_openai(no_tools) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=0), tool_format="auto")
        result = _run(agent, tmp_path, [GOLD, TEXT])
    assert [r.status for r in result.records] == [Status.passed, Status.passed]
    assert agent.text_mode


def test_episode_timeout_is_an_infra_error(tmp_path: Path) -> None:
    with fake_openai(lambda b: Reply(hang=2.0, body=completion("late").body)) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", timeout=5, retries=0))
        result = _run(agent, tmp_path, [GOLD], episode_timeout=0.3)
    (rec,) = result.records
    assert rec.status == Status.infra_error and rec.error is not None and rec.error.kind == "episode_timeout"


def test_typed_submit_and_the_plain_text_fallback(tmp_path: Path) -> None:
    """A number task: the typed submit_answer passes; plain text passes only when it is the value alone."""
    number = "t01_priya_2026_spend"
    gold = world().task(number).verifier.gold.answer
    replies = {
        "typed": [tool_call("submit_answer", json.dumps({"answer": gold, "explanation": "summed her orders"}))],
        "text": f"Answer: {gold}",
        "hedged": "1, 2, 3 or 4",
        "negated": "Not $453.07",
        "malformed_then_typed": None,
    }
    for name, reply in replies.items():
        seen: list[dict[str, Any]] = []

        def model(body: dict[str, Any], reply: Any = reply, seen: list[dict[str, Any]] = seen) -> Reply:
            seen.append(body)
            if reply is None:  # first a malformed submit_answer (unknown key), then the typed one
                if len(seen) == 1:
                    return completion(None, [tool_call("submit_answer", json.dumps({"value": gold}), "m1")])
                return completion(None, [tool_call("submit_answer", json.dumps({"answer": gold}), "m2")])
            return completion(None, reply) if isinstance(reply, list) else completion(reply)

        with fake_openai(model) as srv:
            agent = ChatAgent(ChatClient(srv.url, "m", retries=0), tool_format="native")
            (rec,) = _run(agent, tmp_path / name, [number]).records
        expected = Status.passed if name in ("typed", "text", "malformed_then_typed") else Status.failed
        assert rec.status == expected, (name, rec.trajectory.steps[-1])
        final = rec.trajectory.steps[-1]
        assert final.reward_components["answer_correct"] is (expected == Status.passed)
        if name == "malformed_then_typed":
            first = rec.trajectory.steps[0]
            assert len(rec.trajectory.steps) == 2 and first.error and first.error["code"] == "malformed_action"
            tool_msgs = [m for m in seen[1]["messages"] if m["role"] == "tool"]
            assert tool_msgs[0]["tool_call_id"] == "m1" and "answer" in tool_msgs[0]["content"]
