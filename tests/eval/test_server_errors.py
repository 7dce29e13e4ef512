"""``awm eval`` against what real servers answer: llama.cpp's ``llama-server``, vLLM, SGLang and Ollama's
OpenAI-compatible endpoint, their answers recorded in ``tests/fixtures/llm_servers`` (its README names
where each was seen) and served by the fake server on 127.0.0.1.

- A context overflow (a 400, or a 500 from some llama-server builds and from Ollama) ends that episode as
  ``truncated`` (``context_length``), is not retried, and the run goes on; the report counts it.
- A server that refuses native tools (llama-server without ``--jinja`` answers 500) or whose chat template
  cannot render tool results: ``--tool-format auto`` switches to text once for the run and says so at once.
- A reply cut at ``max_tokens``: its request, its tokens and its text are in the record, and in the report.
"""

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
from tests.eval.fake_openai import Reply, completion, count_prompt, fake_openai, recorded, recording, tool_call
from tests.eval.test_fake_server import ENV, GOLD, TEXT, gold_reply, task_of

LONG = "t03_liam_tracking"  # planned before GOLD: the run must go on after it
NUMBER = "t01_priya_2026_spend"

OVERFLOWS = [
    "llamacpp/context_overflow",
    "llamacpp/context_overflow_500",
    "vllm/context_overflow",
    "vllm/context_overflow_decoder_prompt",
    "sglang/context_overflow",
    "sglang/context_overflow_requested",
    "ollama/context_overflow",
]
TOOLS_REFUSED = [
    "llamacpp/tools_need_jinja",
    "llamacpp/tools_unsupported_param",
    "vllm/tools_auto_choice",
    "ollama/tools_unsupported",
]
TEMPLATE_TOOL_ROLE = ["sglang/template_tool_role", "sglang/template_tool_role_500"]
CUTS = ["llamacpp/cut", "vllm/cut_reasoning", "sglang/cut", "ollama/cut"]
SWITCHED = "switched to text tool format because"


def turn_of(body: dict[str, Any]) -> int:
    return sum(m["role"] == "assistant" for m in body["messages"])


def run(agent: ChatAgent, out: Path, tasks: list[str], on_record: Any = None, **kw: Any):
    cfg = EvalConfig(out=out, envs=[ENV], task_ids=tasks, **{"concurrency": 1, **kw})
    return asyncio.run(run_eval(agent, cfg, on_record=on_record))


# -- context overflow ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", OVERFLOWS)
def test_a_context_overflow_truncates_that_episode_and_the_run_goes_on(tmp_path: Path, name: str) -> None:
    sent: Counter[str] = Counter()

    def server(body: dict[str, Any]) -> Reply:
        task = task_of(body)
        sent[task] += 1
        if task == LONG:  # one tool call, then the conversation no longer fits
            if turn_of(body) == 0:
                return completion(None, [tool_call("find_customers", '{"query": "Liam"}')])
            return recorded(name)
        return gold_reply(body, task)

    with fake_openai(server) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=2, backoff=0.01), tool_format="native")
        result = run(agent, tmp_path, [GOLD, LONG])
    assert result.fatal is None  # not a refusal: the run went on
    records = {r.task_id: r for r in read_records(tmp_path / "results.jsonl")}
    assert list(records) == [LONG, GOLD] and records[GOLD].status == Status.passed
    long = records[LONG]
    assert long.status == Status.truncated and long.truncation == "context_length", long
    assert long.error is None and long.outcome == 0.0 and long.trajectory.truncated
    assert sent[LONG] == 2  # the overflow is answered once: never retried
    assert long.usage.requests == 2  # ... and counted, the request that overflowed included
    report = build_report(tmp_path)
    assert report["statuses"] == {"passed": 1, "truncated": 1} and report["infra_error_kinds"] == {}
    assert report["overall"]["episodes"] == 2 and report["overall"]["truncated"] == 1
    assert report["overall"]["pass@1"] == pytest.approx(0.5)


# -- tools refused, chat templates that fail on tools -----------------------------------------------------
def refuses_tools(name: str):
    def server(body: dict[str, Any]) -> Reply:
        if "tools" in body:
            return recorded(name)
        if body.get("max_tokens") == 1:
            return completion("x")
        return gold_reply(body, task_of(body), text=True)

    return server


@pytest.mark.parametrize("name", TOOLS_REFUSED)
def test_auto_switches_to_text_once_and_says_so_before_any_episode_ends(tmp_path: Path, name: str) -> None:
    events: list[tuple[str, str]] = []
    with fake_openai(refuses_tools(name)) as srv:
        client = ChatClient(srv.url, "m", retries=3, backoff=0.01)
        agent = ChatAgent(client, tool_format="auto")
        agent.on_note = lambda n: events.append(("note", n))
        run(agent, tmp_path, [GOLD, TEXT], concurrency=2, on_record=lambda r: events.append(("record", r.task_id)))
        with_tools = [b for b in srv.requests if "tools" in b]
    records = read_records(tmp_path / "results.jsonl")
    assert [r.status for r in records] == [Status.passed, Status.passed], records
    assert len(with_tools) == 1  # one refused request with tools for the whole run, never retried
    notes = [n for kind, n in events if kind == "note"]
    assert len(notes) == 1 and notes[0].startswith(SWITCHED)
    assert events[0][0] == "note"  # said when it happened, before the first episode ended
    assert json.loads((tmp_path / "run.json").read_text())["invocations"][0]["notes"] == notes


@pytest.mark.parametrize("name", TOOLS_REFUSED)
def test_the_cli_prints_the_switch_when_it_happens(tmp_path: Path, name: str) -> None:
    with fake_openai(refuses_tools(name)) as srv:
        res = CliRunner().invoke(
            app,
            ["eval", "--base-url", srv.url, "--model", "m", "--envs", ENV, "--task-id", GOLD, "--task-id", TEXT,
             "--retries", "1", "--concurrency", "1", "--out", str(tmp_path)],
        )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert {r.status for r in read_records(tmp_path / "results.jsonl")} == {Status.passed}
    # printed by the agent the moment it switched (stderr), not only in the summary after the run
    assert res.stderr.count(f"note: {SWITCHED} the server refuses native tools") == 1, res.stderr
    first = res.output.index(SWITCHED)
    assert "[awm eval] 1/2" not in res.output or first < res.output.index("[awm eval] 1/2")


@pytest.mark.parametrize("name", TEMPLATE_TOOL_ROLE)
def test_a_template_that_cannot_render_tool_results_switches_mid_episode(tmp_path: Path, name: str) -> None:
    """The first turn's native tool call works; the next request, holding a ``tool`` message, fails in the
    chat template: the run goes on in text format, this episode with its history rewritten as text."""

    def server(body: dict[str, Any]) -> Reply:
        if body.get("max_tokens") == 1:  # auto's probe: the server shows the tools to the model
            return completion("x")
        if "tools" in body and any(m["role"] == "tool" for m in body["messages"]):
            return recorded(name)
        return gold_reply(body, task_of(body), text="tools" not in body)

    events: list[str] = []
    with fake_openai(server) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=2, backoff=0.01))
        agent.on_note = events.append
        result = run(agent, tmp_path, [GOLD], on_record=lambda r: events.append("record"))
        bodies = [b for b in srv.requests if b.get("max_tokens") != 1]
    (rec,) = result.records
    assert rec.status == Status.passed and rec.error is None, rec
    assert len(events) == 2 and events[0].startswith(SWITCHED) and "tool role" in events[0]
    assert agent.text_mode and agent.notes == events[:1]
    failed = [i for i, b in enumerate(bodies) if "tools" in b and any(m["role"] == "tool" for m in b["messages"])]
    assert len(failed) == 1  # failed once, never retried; from then on text only
    after = bodies[failed[0] + 1 :]
    assert after and all("tools" not in b and "<tools>" in b["messages"][0]["content"] for b in after)
    history = after[0]["messages"][2:]  # the first turn, rewritten: a <tool_call> block, a <tool_response>
    assert [m["role"] for m in history] == ["assistant", "user"]
    assert history[0]["content"].startswith("<tool_call>") and history[1]["content"].startswith("<tool_response>")
    assert rec.usage.requests == len(bodies)  # the failed request is counted too


def test_a_null_content_template_crash_is_avoided(tmp_path: Path) -> None:
    """Qwen3's chat template in llama-server subscripts an assistant message's content: a null one (a reply
    that is only tool calls) fails every later request with a 500. The agent sends "" instead."""

    def server(body: dict[str, Any]) -> Reply:
        if any(m["role"] == "assistant" and m.get("content") is None for m in body["messages"]):
            return recorded("llamacpp/template_null_content")
        return gold_reply(body, task_of(body))

    with fake_openai(server) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=1, backoff=0.01), tool_format="native")
        (rec,) = run(agent, tmp_path, [GOLD]).records
        bodies = list(srv.requests)
    assert rec.status == Status.passed, rec
    echoed = [m for b in bodies for m in b["messages"] if m["role"] == "assistant"]
    assert echoed and all(m["content"] == "" and m["tool_calls"] for m in echoed)


# -- replies cut at max_tokens ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", CUTS)
def test_a_first_reply_cut_at_max_tokens_is_recorded_with_its_tokens_and_text(tmp_path: Path, name: str) -> None:
    body = recording(name)["body"]
    message, usage = body["choices"][0]["message"], body["usage"]
    text = message.get("content") or message.get("reasoning_content") or message.get("reasoning")
    with fake_openai(lambda b: recorded(name)) as srv:
        res = CliRunner().invoke(
            app,
            ["eval", "--base-url", srv.url, "--model", "m", "--envs", ENV, "--task-id", NUMBER,
             "--tool-format", "native", "--max-tokens", "16", "--out", str(tmp_path)],
        )  # fmt: skip
    assert res.exit_code == 0, res.output
    (rec,) = read_records(tmp_path / "results.jsonl")
    assert rec.status == Status.truncated and rec.truncation == "max_tokens" and rec.trajectory.steps == []
    assert (rec.usage.requests, rec.usage.prompt_tokens, rec.usage.completion_tokens) == (
        1,
        usage["prompt_tokens"],
        usage["completion_tokens"],
    )
    assert text and rec.cut_reply == text
    tokens = build_report(tmp_path)["overall"]["tokens"]
    assert tokens == usage["prompt_tokens"] + usage["completion_tokens"]  # awm report counts them


def test_a_later_cut_adds_its_request_and_tokens_to_the_earlier_turns(tmp_path: Path) -> None:
    first: list[int] = []

    def server(body: dict[str, Any]) -> Reply:
        if turn_of(body) == 0:
            first.append(count_prompt(body))
            return gold_reply(body, GOLD)  # a tool call: 10 completion tokens, the prompt counted
        return recorded("ollama/cut")

    with fake_openai(server) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=0), tool_format="native", max_tokens=1)
        (rec,) = run(agent, tmp_path, [GOLD]).records
    assert rec.status == Status.truncated and rec.truncation == "max_tokens" and len(rec.trajectory.steps) == 1
    assert (rec.usage.requests, rec.usage.prompt_tokens, rec.usage.completion_tokens) == (2, first[0] + 23, 10 + 1)
    assert rec.cut_reply == "Hello"


def test_a_native_tool_call_cut_mid_arguments_does_not_run(tmp_path: Path) -> None:
    cut_call = tool_call("find_customers", '{"query": "Pri')

    def server(body: dict[str, Any]) -> Reply:
        return completion(None, [cut_call], finish="length")

    with fake_openai(server) as srv:
        agent = ChatAgent(ChatClient(srv.url, "m", retries=0), tool_format="native", max_tokens=8)
        (rec,) = run(agent, tmp_path, [NUMBER]).records
    assert rec.status == Status.truncated and rec.truncation == "max_tokens"
    assert rec.trajectory.steps == [] and rec.usage.requests == 1 and rec.usage.completion_tokens == 10
    assert rec.cut_reply is not None and '{\\"query\\": \\"Pri' in rec.cut_reply
