"""An OpenAI-compatible chat-completions client for agents: native tool calling, timeouts, retries.

Errors are classified for the harness: ``LLMUnavailable`` (timeouts, 5xx, 429, network errors and
malformed answers, after retries) is an infrastructure failure; ``ContextLengthExceeded`` means the
conversation no longer fits the model (the agent's budget ran out); ``ToolsUnsupported`` means the
server cannot take native tool calls (the agent falls back to ``<tool_call>`` text); ``LLMRefused`` is
any other 4xx (a wrong model name or key: fatal for the whole run). The API key lives only in the
request header, never in ``repr()`` or an error message.

Real servers answer these cases in their own ways (``tests/fixtures/llm_servers`` holds recorded answers):
a context overflow is a 400 from vLLM, SGLang and llama.cpp's ``llama-server`` (``exceed_context_size_error``;
a 500 in some builds), and a 500 from Ollama when its own truncation dropped the user's message; missing
tool support is a 400 from vLLM and Ollama, a 500 from ``llama-server`` without ``--jinja``, and a chat
template that cannot render tool calls fails with a 400 or 500 naming the template. Those answers are
classified whatever their status and never retried.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from awm.errors import AwmError
from awm.llm_http import RETRY_STATUS, RetryPolicy, TransportFailure, post_json, snippet

# the conversation does not fit: OpenAI, vLLM ("maximum context length", "maximum model length"), SGLang
# ("longer than the model's context length"), llama-server ("exceeds the available context size")
_CONTEXT = re.compile(
    r"context length|context window|maximum context|context size|exceed_context_size|context_length_exceeded"
    r"|maximum model length|too many tokens|prompt is too long",
    re.I,
)
# Ollama truncates a prompt that does not fit from the front; when that drops the user's message, its chat
# template finds none and it answers 500 with only this (every request here has the task as a user message)
_USER_DROPPED = re.compile(r"\W*no user query found in messages\W*", re.I)
_TOOLS = re.compile(r"tool[_ ]?choice|tool[_ -]?call|\btools\b|function[_ ]calling", re.I)
# a 5xx that says the server has no native tools (llama-server without --jinja; older builds; Ollama)
_TOOLS_5XX = re.compile(r"requires --jinja|unsupported param: tool|does not support tools", re.I)
# a chat template that fails on tools, tool calls or tool results (Jinja errors name the template)
_TEMPLATE = re.compile(
    r"jinja|template|raise_exception|tool role|cannot subscript|value is not callable|roles must alternate", re.I
)
_NO_TEMPLATE = re.compile(r"default chat template|must provide a chat template|no chat template", re.I)
_CONTEXT_STATUS = frozenset({400, 413, 422})


class LLMError(AwmError):
    """Base of the client's errors; ``kind`` names the class of failure for the eval record."""

    kind = "llm_error"

    def __init__(self, message: str, kind: str | None = None):
        super().__init__(message)
        if kind is not None:
            self.kind = kind
        # what the turn that failed had cost when it ended (set by the agent): the requests it sent, the
        # tokens the server counted, and the reply it could not act on (a reply cut at max_tokens)
        self.requests = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.reply: str | None = None


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

    @property
    def reasoning(self) -> str | None:
        """The reasoning text a server split off the content (vLLM and SGLang ``reasoning_content``, newer
        vLLM and Ollama ``reasoning``, llama-server ``reasoning_content``)."""
        for key in ("reasoning_content", "reasoning"):
            value = self.message.get(key)
            if isinstance(value, str) and value:
                return value
        return None


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
        # a reply cut at max_tokens (finish_reason "length") comes back as it is, with its usage: the agent
        # decides what of it can be used, and records what cannot
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

    def _classify(self, resp: httpx.Response, sent: dict[str, Any]) -> LLMError | None:
        """What a failed answer means when retrying cannot fix it, whatever its status; None otherwise."""
        status, text = resp.status_code, " ".join(resp.text.split())[:4000]
        if (status in _CONTEXT_STATUS or status >= 500) and (
            _CONTEXT.search(text) or _USER_DROPPED.fullmatch(_error_message(resp) or "")
        ):
            return ContextLengthExceeded(f"HTTP {status}: {snippet(resp)}")
        if "tools" in sent and (status >= 500 or status not in RETRY_STATUS) and not _NO_TEMPLATE.search(text):
            named = _TOOLS.search(text) if status < 500 else _TOOLS_5XX.search(text)
            if named or _TEMPLATE.search(text):
                return ToolsUnsupported(f"HTTP {status}: {snippet(resp)}")
        return None

    async def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        def refused(resp: httpx.Response, sent: dict[str, Any]) -> Exception:
            return LLMRefused(f"POST {self.endpoint} was refused: HTTP {resp.status_code}: {snippet(resp)}")

        def count_retry() -> None:
            self.retried += 1

        policy = RetryPolicy(self.retries, self.backoff, self.max_backoff, self.timeout)
        try:
            return await post_json(
                self._http(),
                "/chat/completions",
                lambda: body,
                policy,
                on_refused=refused,
                on_error=self._classify,
                on_retry=count_retry,
            )
        except TransportFailure as e:
            raise LLMUnavailable(f"POST {self.endpoint} {e}", e.kind) from None


def _error_message(resp: httpx.Response) -> str | None:
    """The message of an error answer: ``{"error": {"message"}}`` (OpenAI, llama-server, Ollama's /v1),
    ``{"error": "..."}``, ``{"message"}`` (vLLM and SGLang's older ``{"object": "error", ...}``) or ``{"detail"}``."""
    try:
        data = resp.json()
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    if isinstance(error, dict):
        error = error.get("message")
    for value in (error, data.get("message"), data.get("detail")):
        if isinstance(value, str):
            return value
    return None
