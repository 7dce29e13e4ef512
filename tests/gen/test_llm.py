"""The LLM client against the fake server over real HTTP: retries, timeouts, JSON mode, cache, accounting."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from awm.gen.cache import ResponseCache
from awm.gen.llm import LLMClient, LLMError, Price, Usage, price_for
from tests.gen.conftest import client
from tests.gen.fake_llm import FakeLLM, Hang, Reply, Status

MESSAGES = [{"role": "system", "content": "awm-gen-stage: probe\nYou answer."}, {"role": "user", "content": "Hi"}]


def chat(llm: LLMClient, messages: list[dict[str, str]] = MESSAGES) -> Any:
    async def main() -> Any:
        async with llm:
            return await llm.chat(messages, stage="probe")

    return asyncio.run(main())


def test_reply_usage_and_cost(fake_llm: FakeLLM) -> None:
    fake_llm.script("probe", Reply('{"ok": true}'))
    llm = client(fake_llm)
    res = chat(llm)
    assert res.content == '{"ok": true}' and not res.cached
    assert res.usage.prompt_tokens > 0 and res.usage.completion_tokens == 3
    assert res.cost == pytest.approx((res.usage.prompt_tokens * 2.0 + 3 * 8.0) / 1e6)
    tally = llm.ledger.stages["probe"]
    assert (tally.requests, tally.retries, tally.cost) == (1, 0, res.cost)
    (req,) = fake_llm.seen("probe")
    assert req.body["response_format"] == {"type": "json_object"}
    assert req.body["model"] == "fake-model" and req.body["temperature"] == 0.7


@pytest.mark.parametrize("fault", [Status(429, retry_after=0), Status(500), Status(503), Hang(1.5)])
def test_transient_faults_are_retried(fake_llm: FakeLLM, fault: Any) -> None:
    fake_llm.script("probe", fault, Reply('{"ok": 1}'))
    llm = client(fake_llm, timeout=0.4)
    assert chat(llm).content == '{"ok": 1}'
    assert len(fake_llm.seen("probe")) == 2
    assert llm.ledger.stages["probe"].retries == 1


def test_retry_after_is_honoured(fake_llm: FakeLLM) -> None:
    import time

    fake_llm.script("probe", Status(429, retry_after=0.3), Reply("{}"))
    started = time.monotonic()
    chat(client(fake_llm, max_backoff=1.0))
    assert time.monotonic() - started >= 0.3


def test_gives_up_after_the_retry_budget(fake_llm: FakeLLM) -> None:
    fake_llm.script("probe", Status(502))
    with pytest.raises(LLMError, match="failed after 3 attempt"):
        chat(client(fake_llm, retries=2))
    assert len(fake_llm.seen("probe")) == 3


def test_client_errors_are_not_retried_and_never_show_the_key(fake_llm: FakeLLM) -> None:
    fake_llm.script("probe", Status(401, message="bad key"))
    with pytest.raises(LLMError) as e:
        chat(client(fake_llm, api_key="sk-live-SECRET-123"))
    assert "HTTP 401" in str(e.value) and "SECRET" not in str(e.value)
    assert len(fake_llm.seen("probe")) == 1


def test_json_mode_falls_back_when_unsupported(fake_llm: FakeLLM) -> None:
    fake_llm.script("probe", Status(400, message="response_format is not supported"), Reply('{"a": 1}'))
    llm = client(fake_llm)
    assert chat(llm).content == '{"a": 1}'
    first, second = fake_llm.seen("probe")
    assert "response_format" in first.body and "response_format" not in second.body


def test_no_json_mode_flag(fake_llm: FakeLLM) -> None:
    fake_llm.script("probe", Reply("{}"))
    chat(client(fake_llm, json_mode=False))
    assert "response_format" not in fake_llm.seen("probe")[0].body


def test_cache_makes_reruns_free(fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.script("probe", Reply('{"n": 1}'), Reply('{"n": 2}'))
    first = chat(client(fake_llm, tmp_path / "cache"))
    again = client(fake_llm, tmp_path / "cache")
    second = chat(again)
    assert second.content == first.content == '{"n": 1}'
    assert second.cached and len(fake_llm.seen("probe")) == 1
    tally = again.ledger.stages["probe"]
    assert (tally.cached, tally.cost, tally.cached_cost) == (1, 0.0, pytest.approx(first.cost))
    other = [*MESSAGES[:1], {"role": "user", "content": "Hello"}]
    assert chat(client(fake_llm, tmp_path / "cache"), other).content == '{"n": 2}'  # a new request is a miss


def test_api_key_goes_only_into_the_header(fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.script("probe", Reply("{}"))
    llm = client(fake_llm, tmp_path / "cache", api_key="sk-live-SECRET-123")
    chat(llm)
    assert fake_llm.seen("probe")[0].authorization == "Bearer sk-live-SECRET-123"
    assert "SECRET" not in repr(llm)
    for f in (tmp_path / "cache").rglob("*"):
        if f.is_file():
            assert "SECRET" not in f.read_text()


def test_cache_key_ignores_the_endpoint_and_key() -> None:
    request = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    assert ResponseCache.key(request) == ResponseCache.key(dict(reversed(list(request.items()))))


def test_embeddings(fake_llm: FakeLLM, tmp_path: Path) -> None:
    async def main(llm: LLMClient) -> list[list[float]]:
        async with llm:
            return await llm.embed(["a bike shop", "a bike shop", "a dentist"], model="emb")

    vectors = asyncio.run(main(client(fake_llm, tmp_path / "c")))
    assert vectors[0] == vectors[1] != vectors[2]
    asyncio.run(main(client(fake_llm, tmp_path / "c")))
    assert fake_llm.embedding_requests == 1  # the second call was cached


def test_price_table() -> None:
    assert price_for("gpt-4o-mini") == Price(0.15, 0.60)
    assert price_for("openai/gpt-4o-mini") == Price(0.15, 0.60)
    assert price_for("qwen3-32b") == Price(0.0, 0.0)
    assert price_for("qwen3-32b", 0.1, 0.3) == Price(0.1, 0.3)
    assert Price(1.0, 2.0).cost(Usage(1_000_000, 500_000)) == 2.0
