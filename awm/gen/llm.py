"""An OpenAI-compatible chat-completions client (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM, ...).

Async httpx, bounded concurrency, retries with exponential backoff on 429/5xx/timeouts/network errors
(honouring ``Retry-After``), JSON-mode requests, an on-disk cache keyed by the request, and token and
cost accounting per stage in a ``Ledger``. The pipeline receives the client as an object with the
``ChatModel`` shape, so tests can pass a fake. The API key lives only in the request header: it is
never part of a cache key, a log line, ``repr()`` or an error message.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from awm.errors import AwmError
from awm.gen.cache import ResponseCache
from awm.llm_http import RETRY_NOW, RetryPolicy, TransportFailure, post_json, snippet

# USD per 1M input / output tokens, list prices when this was written; override with --price-in/--price-out.
# Unknown models (local vLLM / Ollama) cost 0.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
}


class LLMError(AwmError):
    """The endpoint could not answer (after retries), or refused the request (4xx)."""


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens)

    @classmethod
    def from_api(cls, data: Any) -> Usage:
        if not isinstance(data, Mapping):
            return cls()
        return cls(int(data.get("prompt_tokens") or 0), int(data.get("completion_tokens") or 0))


@dataclass(frozen=True)
class Price:
    """USD per 1M tokens."""

    input_per_m: float = 0.0
    output_per_m: float = 0.0

    def cost(self, usage: Usage) -> float:
        return (usage.prompt_tokens * self.input_per_m + usage.completion_tokens * self.output_per_m) / 1e6


def price_for(model: str, price_in: float | None = None, price_out: float | None = None) -> Price:
    """The model's list price (by exact name, ignoring a ``provider/`` prefix); flags override."""
    known = PRICES.get(model) or PRICES.get(model.rsplit("/", 1)[-1]) or (0.0, 0.0)
    return Price(known[0] if price_in is None else price_in, known[1] if price_out is None else price_out)


@dataclass(frozen=True)
class ChatResult:
    content: str
    usage: Usage
    cached: bool = False
    cost: float = 0.0  # what the request costs (or cost, when it was paid in an earlier run)


@dataclass
class StageTally:
    requests: int = 0
    cached: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0  # paid in this run
    cached_cost: float = 0.0  # saved by the cache in this run
    seconds: float = 0.0


@dataclass
class Ledger:
    """Token and cost accounting per stage, for everything a client sends."""

    stages: dict[str, StageTally] = field(default_factory=dict)

    def tally(self, stage: str) -> StageTally:
        return self.stages.setdefault(stage, StageTally())

    def record(self, stage: str, result: ChatResult, seconds: float) -> None:
        t = self.tally(stage)
        t.requests += 1
        t.seconds += seconds
        t.prompt_tokens += result.usage.prompt_tokens
        t.completion_tokens += result.usage.completion_tokens
        if result.cached:
            t.cached += 1
            t.cached_cost += result.cost
        else:
            t.cost += result.cost

    def total(self) -> StageTally:
        out = StageTally()
        for t in self.stages.values():
            for name in vars(out):
                setattr(out, name, getattr(out, name) + getattr(t, name))
        return out


class ChatModel(Protocol):
    """What the pipeline needs from an LLM. ``LLMClient`` is the real one; tests may pass fakes."""

    model: str
    ledger: Ledger

    async def chat(
        self, messages: Sequence[Mapping[str, str]], *, stage: str, json_mode: bool = True
    ) -> ChatResult: ...


class LLMClient:
    """Chat completions (and embeddings) against ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        concurrency: int = 8,
        timeout: float = 180.0,
        retries: int = 5,
        backoff: float = 2.0,
        max_backoff: float = 60.0,
        temperature: float | None = 0.7,
        max_tokens: int | None = None,
        seed: int | None = None,
        json_mode: bool = True,
        extra_body: Mapping[str, Any] | None = None,
        cache: ResponseCache | None = None,
        price: Price | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.__api_key = api_key or None
        self.concurrency = max(1, concurrency)
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.json_mode = json_mode
        self.extra_body = dict(extra_body or {})
        self.cache = cache
        self.price = price or price_for(model)
        self.ledger = Ledger()
        self._transport = transport
        self._json_supported = True
        self._client: httpx.AsyncClient | None = None
        self._sem: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"LLMClient(base_url={self.base_url!r}, model={self.model!r})"

    # -- public ----------------------------------------------------------------------------------
    async def chat(self, messages: Sequence[Mapping[str, str]], *, stage: str, json_mode: bool = True) -> ChatResult:
        """One completion; served from the cache when the same request was answered before."""
        request: dict[str, Any] = {
            "kind": "chat",
            "model": self.model,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "json_mode": json_mode and self.json_mode,
        }
        if self.extra_body:
            request["extra_body"] = self.extra_body
        key = self.cache.key(request) if self.cache is not None else None
        started = time.monotonic()
        if self.cache is not None and key is not None and (hit := self.cache.get(key)) is not None:
            usage = Usage.from_api(hit.get("usage"))
            result = ChatResult(str(hit.get("content") or ""), usage, cached=True, cost=self.price.cost(usage))
            self.ledger.record(stage, result, 0.0)
            return result
        body: dict[str, Any] = {**self.extra_body, "model": self.model, "messages": request["messages"]}
        for name in ("temperature", "max_tokens", "seed"):
            if request[name] is not None:
                body[name] = request[name]
        data = await self._post("/chat/completions", body, stage, json_mode=request["json_mode"])
        try:
            message = data["choices"][0]["message"]
            content = message.get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError) as e:
            raise LLMError(f"{stage}: the endpoint's answer has no choices[0].message") from e
        usage = Usage.from_api(data.get("usage"))
        result = ChatResult(str(content), usage, cached=False, cost=self.price.cost(usage))
        if self.cache is not None and key is not None:
            self.cache.put(
                key, {"stage": stage, "model": self.model, "content": result.content, "usage": vars(usage).copy()}
            )
        self.ledger.record(stage, result, time.monotonic() - started)
        return result

    async def embed(self, texts: Sequence[str], *, model: str, stage: str = "embeddings") -> list[list[float]]:
        """Embeddings through the same endpoint (``/embeddings``), cached like chat requests."""
        request = {"kind": "embeddings", "model": model, "input": list(texts)}
        key = self.cache.key(request) if self.cache is not None else None
        if self.cache is not None and key is not None and (hit := self.cache.get(key)) is not None:
            self.ledger.tally(stage).cached += 1
            return [list(map(float, v)) for v in hit["vectors"]]
        data = await self._post("/embeddings", {"model": model, "input": list(texts)}, stage, json_mode=False)
        try:
            rows = sorted(data["data"], key=lambda r: r.get("index", 0))
            vectors = [list(map(float, r["embedding"])) for r in rows]
        except (KeyError, TypeError, ValueError) as e:
            raise LLMError("the endpoint's embeddings answer has no data[].embedding") from e
        tally = self.ledger.tally(stage)
        tally.requests += 1
        tally.prompt_tokens += Usage.from_api(data.get("usage")).prompt_tokens
        if self.cache is not None and key is not None:
            self.cache.put(key, {"vectors": vectors})
        return vectors

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- transport -------------------------------------------------------------------------------
    def _ensure(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        if self._client is None or self._sem is None or self._loop is not loop:
            headers = {"Authorization": f"Bearer {self.__api_key}"} if self.__api_key else {}
            self._client = httpx.AsyncClient(
                base_url=self.base_url,
                headers=headers,
                timeout=httpx.Timeout(self.timeout, connect=min(10.0, self.timeout)),
                transport=self._transport,
            )
            self._sem = asyncio.Semaphore(self.concurrency)
            self._loop = loop
        return self._client, self._sem

    async def _post(self, path: str, body: dict[str, Any], stage: str, *, json_mode: bool) -> dict[str, Any]:
        client, sem = self._ensure()

        def payload() -> dict[str, Any]:
            out = dict(body)
            if json_mode and self._json_supported:
                out["response_format"] = {"type": "json_object"}
            return out

        def refused(resp: httpx.Response, sent: dict[str, Any]) -> str | Exception:
            if resp.status_code == 400 and "response_format" in sent and "response_format" in resp.text:
                self._json_supported = False  # this server has no JSON mode: ask again without it
                return RETRY_NOW
            return LLMError(f"{stage}: POST {path} was refused: HTTP {resp.status_code}: {snippet(resp)}")

        def count_retry() -> None:
            self.ledger.tally(stage).retries += 1

        policy = RetryPolicy(self.retries, self.backoff, self.max_backoff, self.timeout)
        try:
            return await post_json(
                client, path, payload, policy, on_refused=refused, on_retry=count_retry, limit=lambda: sem, grace=5.0
            )
        except TransportFailure as e:
            raise LLMError(f"{stage}: POST {path} {e}") from None
