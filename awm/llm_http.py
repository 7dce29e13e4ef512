"""The one HTTP transport behind every OpenAI-compatible client here (generator and eval harness):
POST a JSON body, retry timeouts, network errors, 429 and 5xx with exponential backoff and jitter
(honouring ``Retry-After``), and hand anything else back to the caller to decide. A caller's ``on_error``
sees every failed answer first, so an answer that retrying cannot fix (a context overflow or a missing
server feature, which some servers send as a 5xx) ends at once instead of being retried."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524})

# what a refusal hook answers: retry at once (it changed the request), or give up with this exception
RETRY_NOW = "retry-now"


class TransportFailure(Exception):
    """Every attempt failed for a reason worth retrying; ``kind`` classifies the last one."""

    def __init__(self, last: str, kind: str, attempts: int):
        self.last, self.kind, self.attempts = last, kind, attempts
        super().__init__(f"failed after {attempts} attempt(s): {last}")


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 30.0
    timeout: float = 120.0

    def delay(self, attempt: int) -> float:
        return min(self.max_backoff, self.backoff * 2**attempt) * (1 + random.random() / 4)


@contextlib.asynccontextmanager
async def _no_limit() -> AsyncIterator[None]:
    yield


async def post_json(
    client: httpx.AsyncClient,
    path: str,
    payload: Callable[[], dict[str, Any]],
    policy: RetryPolicy,
    *,
    on_refused: Callable[[httpx.Response, dict[str, Any]], str | Exception],
    on_error: Callable[[httpx.Response, dict[str, Any]], Exception | None] | None = None,
    on_retry: Callable[[], None] = lambda: None,
    limit: Callable[[], contextlib.AbstractAsyncContextManager[Any]] = _no_limit,
    grace: float = 1.0,
) -> dict[str, Any]:
    """The JSON object a 200 answer holds. ``payload()`` builds the body for each attempt;
    ``on_error(resp, body)``, when given, sees every other answer first and returns an exception to raise
    at once (no retry) or None; then 429/5xx are retried and ``on_refused(resp, body)`` decides the rest:
    ``RETRY_NOW`` or an exception to raise."""
    last, kind = "", "llm_error"
    for attempt in range(policy.retries + 1):
        body = payload()
        delay: float | None = None
        try:
            async with limit(), asyncio.timeout(policy.timeout + grace):
                resp = await client.post(path, json=body)
        except (httpx.TimeoutException, TimeoutError):
            last, kind = f"no answer within {policy.timeout:g} s", "llm_timeout"
        except httpx.TransportError as e:
            last, kind = f"network error: {type(e).__name__}", "llm_connection"
        else:
            final = on_error(resp, body) if on_error is not None and resp.status_code != 200 else None
            if final is not None:
                raise final
            if resp.status_code == 200:
                try:
                    data = resp.json()
                except ValueError:
                    data = None
                if isinstance(data, dict):
                    return data
                last, kind = "the answer is not a JSON object", "llm_bad_response"
            elif resp.status_code in RETRY_STATUS or resp.status_code >= 500:
                last, kind = f"HTTP {resp.status_code}: {snippet(resp)}", f"llm_http_{resp.status_code}"
                delay = retry_after(resp)
            else:
                decision = on_refused(resp, body)
                if isinstance(decision, Exception):
                    raise decision
                last, kind, delay = f"HTTP {resp.status_code}: {snippet(resp)}", "llm_refused", 0.0
        if attempt == policy.retries:
            break
        on_retry()
        await asyncio.sleep(min(policy.delay(attempt) if delay is None else delay, policy.max_backoff))
    raise TransportFailure(last, kind, policy.retries + 1)


def retry_after(resp: httpx.Response) -> float | None:
    value = resp.headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def snippet(resp: httpx.Response) -> str:
    text = " ".join(resp.text.split())
    return text[:300] + ("..." if len(text) > 300 else "")
