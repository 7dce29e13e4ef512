"""A scripted OpenAI-compatible server (FastAPI + uvicorn on a random 127.0.0.1 port) for offline tests.

Answers are queued per stage (the stage is read from the ``awm-gen-stage:`` line of the system
message) and optionally per scenario (``when``: a string the prompt must contain). The last answer of
a queue repeats. Besides replies it can send HTTP errors, hang, or wait on a gate. Every request is
recorded, so tests can count requests per stage and read the error feedback a pipeline sent.
"""

from __future__ import annotations

import asyncio
import math
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

STAGE_LINE = re.compile(r"^awm-gen-stage: (\S+)", re.M)


@dataclass
class Reply:
    content: str


@dataclass
class Status:
    code: int
    retry_after: float | None = None
    message: str = ""


@dataclass
class Hang:
    """Sleep past the client's timeout, then answer (too late)."""

    seconds: float
    then: Reply = field(default_factory=lambda: Reply("{}"))


@dataclass
class Gate:
    """Hold the request until ``open`` is set, then answer ``then``."""

    open: threading.Event
    then: Reply


@dataclass
class Rule:
    stage: str
    when: str | None
    responses: deque[Any]


@dataclass
class Logged:
    stage: str
    messages: list[dict[str, str]]
    body: dict[str, Any]
    authorization: str | None
    answered: str  # reply | status NNN | hang | gate | unscripted

    def text(self) -> str:
        return "\n".join(m["content"] for m in self.messages)


class FakeLLM:
    def __init__(self) -> None:
        self.rules: list[Rule] = []
        self.requests: list[Logged] = []
        self.embedding_requests = 0
        self.lock = threading.Lock()
        self.base_url = ""
        self.app = FastAPI()
        self.app.post("/v1/chat/completions")(self._chat)
        self.app.post("/v1/embeddings")(self._embeddings)

    # -- scripting ---------------------------------------------------------------------------------
    def script(self, stage: str, *responses: Any, when: str | None = None, first: bool = False) -> None:
        rule = Rule(stage, when, deque(r if not isinstance(r, str) else Reply(r) for r in responses))
        with self.lock:
            if first:
                self.rules.insert(0, rule)
            else:
                self.rules.append(rule)

    def seen(self, stage: str | None = None, when: str | None = None) -> list[Logged]:
        with self.lock:
            return [
                r for r in self.requests if (stage is None or r.stage == stage) and (when is None or when in r.text())
            ]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.seen():
            out[r.stage] = out.get(r.stage, 0) + 1
        return out

    def reset_log(self) -> None:
        with self.lock:
            self.requests.clear()

    # -- endpoints ---------------------------------------------------------------------------------
    async def _chat(self, request: Request) -> Any:
        body = await request.json()
        messages = body.get("messages", [])
        system = next((m["content"] for m in messages if m.get("role") == "system"), "")
        m = STAGE_LINE.search(system)
        stage = m.group(1) if m else "?"
        text = "\n".join(x.get("content", "") for x in messages)
        with self.lock:
            rule = next((r for r in self.rules if r.stage == stage and (r.when is None or r.when in text)), None)
            response = None
            if rule is not None:
                response = rule.responses.popleft() if len(rule.responses) > 1 else rule.responses[0]
            kind = _kind(response)
            self.requests.append(Logged(stage, messages, body, request.headers.get("authorization"), kind))
        if response is None:
            return JSONResponse({"error": {"message": f"unscripted request for stage {stage}"}}, status_code=500)
        if isinstance(response, Status):
            headers = {"retry-after": str(response.retry_after)} if response.retry_after is not None else {}
            message = response.message or f"scripted {response.code}"
            return JSONResponse({"error": {"message": message}}, response.code, headers=headers)
        if isinstance(response, Hang):
            await asyncio.sleep(response.seconds)
            response = response.then
        if isinstance(response, Gate):
            deadline = time.monotonic() + 60
            while not response.open.is_set() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            response = response.then
        content = response.content
        usage = {
            "prompt_tokens": math.ceil(len(text) / 4),
            "completion_tokens": math.ceil(len(content) / 4),
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": usage,
        }

    async def _embeddings(self, request: Request) -> Any:
        body = await request.json()
        with self.lock:
            self.embedding_requests += 1
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"index": i, "embedding": _bag_of_letters(t)} for i, t in enumerate(texts)]
        return {"data": data, "model": body.get("model"), "usage": {"prompt_tokens": sum(len(t) for t in texts) // 4}}


def _kind(response: Any) -> str:
    if response is None:
        return "unscripted"
    if isinstance(response, Status):
        return f"status {response.code}"
    return type(response).__name__.lower()


def _bag_of_letters(text: str) -> list[float]:
    """A toy embedding: word-hash buckets. Same words, same vector."""
    vec = [0.0] * 64
    for word in re.findall(r"[a-z]+", text.lower()):
        vec[sum(map(ord, word)) % 64] += 1.0
    return vec


class ServerThread:
    """uvicorn in a daemon thread on port 0."""

    def __init__(self, app: Any):
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
        config.timeout_graceful_shutdown = 1
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> int:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the fake LLM server did not start")
            time.sleep(0.01)
        return int(self.server.servers[0].sockets[0].getsockname()[1])

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
