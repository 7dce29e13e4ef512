"""A scripted OpenAI-compatible chat-completions server (FastAPI + uvicorn in a thread, 127.0.0.1, port 0).

Each request is answered by ``script(body) -> Reply``: a JSON body to return, an HTTP error, or a hang.
The script sees the whole request (messages, tools), so it can play a task's gold solution, emit malformed
tool calls or unknown tools, or fail on purpose. ``usage.prompt_tokens`` left as None by ``completion()``
is counted from the request (a token per 4 characters of the messages and tools; with
``renders_tools=False`` the tools are not counted, like a server whose chat template drops them).

``recorded("llamacpp/context_overflow")`` is a real server's answer, status and body as recorded in
``tests/fixtures/llm_servers`` (see its README for where each was seen).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse


@dataclass
class Reply:
    body: dict[str, Any] | None = None
    status: int = 200
    hang: float = 0.0  # seconds to sleep before answering


RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "llm_servers"


def recording(name: str) -> dict[str, Any]:
    """A recorded answer: ``{"status", "body", "source", "verbatim", "note"}``."""
    data: dict[str, Any] = json.loads((RECORDED / f"{name}.json").read_text(encoding="utf-8"))
    return data


def recorded(name: str) -> Reply:
    """The recorded answer ``name`` (``<server>/<case>``), served with its status and body unchanged."""
    data = recording(name)
    return Reply(body=data["body"], status=data["status"])


@dataclass
class FakeServer:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    authorization: list[str | None] = field(default_factory=list)


def completion(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish: str | None = None,
    prompt_tokens: int | None = None,
) -> Reply:
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        msg["tool_calls"] = tool_calls
    return Reply(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": "fake",
            "choices": [
                {"index": 0, "message": msg, "finish_reason": finish or ("tool_calls" if tool_calls else "stop")}
            ],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 10},
        }
    )


def tool_call(name: str, arguments: str, call_id: str = "call_0") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def count_prompt(body: dict[str, Any], renders_tools: bool = True) -> int:
    text = json.dumps(body.get("messages")) + (json.dumps(body.get("tools") or []) if renders_tools else "")
    return len(text) // 4


@contextmanager
def fake_openai(script: Callable[[dict[str, Any]], Reply], renders_tools: bool = True) -> Iterator[FakeServer]:
    app = FastAPI()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = FakeServer(f"http://127.0.0.1:{sock.getsockname()[1]}/v1")

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        server.requests.append(body)
        server.authorization.append(request.headers.get("authorization"))
        reply = script(body)
        if reply.hang:
            await asyncio.sleep(reply.hang)
        if reply.status != 200:
            body = reply.body or {"error": {"message": "scripted failure", "code": reply.status}}
            return JSONResponse(body, reply.status)
        out = dict(reply.body or {})
        usage = out.get("usage")
        if isinstance(usage, dict) and usage.get("prompt_tokens") is None:
            prompt = count_prompt(body, renders_tools)
            out["usage"] = {**usage, "prompt_tokens": prompt, "total_tokens": prompt + usage["completion_tokens"]}
        return JSONResponse(out)

    uv = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="off", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not uv.started:
        if time.monotonic() > deadline:
            raise RuntimeError("fake server did not start")
        time.sleep(0.01)
    try:
        yield server
    finally:
        uv.should_exit = True
        thread.join(5)
