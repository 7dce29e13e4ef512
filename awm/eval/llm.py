"""An OpenAI-compatible chat-completions client for agents: native tool calling, timeouts, retries.

Errors are classified for the harness: ``LLMUnavailable`` (timeouts, 5xx, 429, network errors and
malformed answers, after retries) is an infrastructure failure; ``ContextLengthExceeded`` means the
conversation no longer fits the model (the agent's budget ran out); ``ToolsUnsupported`` means the
server has no native tool calling (the agent falls back to ``<tool_call>`` text); ``LLMRefused`` is
any other 4xx (a wrong model name or key: fatal for the whole run). The API key lives only in the
request header, never in ``repr()`` or an error message.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from awm.errors import AwmError
from awm.llm_http import RetryPolicy, TransportFailure, post_json, snippet

_CONTEXT = re.compile(r"context length|context window|maximum context|too many tokens|prompt is too long", re.I)
_TOOLS = re.compile(r"tool[_ ]?choice|tool[_ -]?call|\btools\b|function[_ ]calling", re.I)


class LLMError(AwmError):
    """Base of the client's errors; ``kind`` names the class of failure for the eval record."""

    kind = "llm_error"

    def __init__(self, message: str, kind: str | None = None):
        super().__init__(message)
        if kind is not None:
            self.kind = kind


class LLMUnavailable(LLMError):
    """No usable answer after every retry (timeout, server error, network error, malformed answer)."""


class LLMRefused(LLMError):
    """A 4xx that retrying cannot fix (bad model name, bad key, bad request)."""

    kind = "llm_refused"


class ContextLengthExceeded(LLMError):
    """The conversation no longer fits (``reason`` context_length), or the reply was cut at ``max_tokens``
    before it said anything (``reason`` max_tokens): the agent's budget is spent."""

    kind = "context_length"

    def __init__(self, message: str, reason: str = "context_length"):
        super().__init__(message)
        self.reason = reason


class ToolsUnsupported(LLMError):
    kind = "tools_unsupported"


@dataclass(frozen=True)
class Completion:
    message: dict[str, Any]  # the assistant message: role, content, tool_calls
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None


class ChatClient:
    """``POST {base_url}/chat/completions``; one client serves many concurrent episodes."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 120.0,
        retries: int = 3,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        extra_body: Mapping[str, Any] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.__api_key = api_key or None
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.extra_body = dict(extra_body or {})
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.retried = 0

    def __repr__(self) -> str:
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    @property
    def endpoint(self) -> str:
        """``{base_url}/chat/completions`` without any user:password, for messages."""
        url = httpx.URL(self.base_url + "/chat/completions")
        return str(url.copy_with(username=None, password=None)) if url.userinfo else str(url)

    async def prompt_tokens(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None = None
    ) -> int:
        """The prompt tokens the server counts for ``messages`` (and ``tools``), from a one-token completion;
        0 when it reports no usage. A server without native tools raises ``ToolsUnsupported``."""
        body: dict[str, Any] = {"model": self.model, "messages": list(messages), **self.extra_body, "max_tokens": 1}
        if tools:
            body["tools"] = list(tools)
            body["tool_choice"] = "auto"
        usage = (await self._post(body)).get("usage")
        return int(usage.get("prompt_tokens") or 0) if isinstance(usage, Mapping) else 0

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> Completion:
        body: dict[str, Any] = {"model": self.model, "messages": list(messages), **self.extra_body}
        if tools:
            body["tools"] = list(tools)
            body["tool_choice"] = "auto"
        for name, value in (("temperature", temperature), ("max_tokens", max_tokens), ("seed", seed)):
            if value is not None:
                body[name] = value
        data = await self._post(body)
        try:
            choice = data["choices"][0]
            message = dict(choice["message"])
        except (KeyError, IndexError, TypeError) as e:
            raise LLMUnavailable("the endpoint's answer has no choices[0].message", "llm_bad_response") from e
        if not isinstance(message.get("tool_calls") or [], list):
            raise LLMUnavailable("the endpoint's tool_calls is not a list", "llm_bad_response")
        if choice.get("finish_reason") == "length" and not message.get("content") and not message.get("tool_calls"):
            raise ContextLengthExceeded("the model produced nothing before its token limit", reason="max_tokens")
        raw_usage = data.get("usage")
        usage: Mapping[str, Any] = raw_usage if isinstance(raw_usage, Mapping) else {}
        return Completion(
            message,
            int(usage.get("prompt_tokens") or 0),
            int(usage.get("completion_tokens") or 0),
            choice.get("finish_reason"),
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- transport -------------------------------------------------------------------------------
    def _http(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            headers = {"Authorization": f"Bearer {self.__api_key}"} if self.__api_key else {}
            self._client = httpx.AsyncClient(
                base_url=self.base_url,
                headers=headers,
                timeout=httpx.Timeout(self.timeout, connect=min(10.0, self.timeout)),
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
                transport=self._transport,
            )
            self._loop = loop
        return self._client

    async def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        def refused(resp: httpx.Response, sent: dict[str, Any]) -> Exception:
            text = snippet(resp)
            if resp.status_code in (400, 413, 422) and _CONTEXT.search(text):
                return ContextLengthExceeded(f"HTTP {resp.status_code}: {text}")
            if resp.status_code in (400, 422) and "tools" in sent and _TOOLS.search(text):
                return ToolsUnsupported(f"HTTP {resp.status_code}: {text}")
            return LLMRefused(f"POST {self.endpoint} was refused: HTTP {resp.status_code}: {text}")

        def count_retry() -> None:
            self.retried += 1

        policy = RetryPolicy(self.retries, self.backoff, self.max_backoff, self.timeout)
        try:
            return await post_json(
                self._http(), "/chat/completions", lambda: body, policy, on_refused=refused, on_retry=count_retry
            )
        except TransportFailure as e:
            raise LLMUnavailable(f"POST {self.endpoint} {e}", e.kind) from None
