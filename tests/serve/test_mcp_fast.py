"""The MCP fast path (``awm.serve.mcp_fast``) answers exactly as the MCP SDK does: the same requests, sent
with the fast path on and off, get the same status and the same JSON-RPC answer; what it does not handle
reaches the SDK untouched."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from awm.serve.app import _McpEndpoint

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
ORDER = {"customer_id": 1, "product_id": 1, "quantity": 2}


def _endpoint(live) -> _McpEndpoint:
    route = next(r for r in live.planes.agent.router.routes if getattr(r, "path", "") == "/envs/{env}/mcp")
    endpoint = route.endpoint
    assert isinstance(endpoint, _McpEndpoint)
    return endpoint


@contextmanager
def sdk_only(live) -> Iterator[None]:
    endpoint = _endpoint(live)
    fast, endpoint.fast = endpoint.fast, None
    try:
        yield
    finally:
        endpoint.fast = fast


def new_episode(live, task: str = "t02_buy_lamp") -> str:
    return httpx.post(f"{live.control}/episodes", json={"env": "mini_shop", "task_id": task}).json()["episode_id"]


def rpc(live, method: str, params: dict[str, Any], episode: str | None = None, **extra: str) -> httpx.Response:
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": method,
        **({"X-AWM-Episode": episode} if episode else {}),
        **extra,
    }
    if method == "tools/call":
        headers["Mcp-Name"] = params["name"]
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": {**params, "_meta": META}}
    return httpx.post(f"{live.url}/envs/mini_shop/mcp", json=body, headers=headers)


def both(live, make) -> tuple[tuple[int, Any], tuple[int, Any]]:
    """(status, JSON) of the same request through the fast path and through the SDK alone."""

    def one() -> tuple[int, Any]:
        r = make()
        if not r.headers.get("content-type", "").startswith("application/json"):
            return r.status_code, r.text  # the SDK's plain-text refusals (a wrong Host, Origin, ...)
        return r.status_code, (r.json() if r.content else None)

    fast = one()
    with sdk_only(live):
        sdk = one()
    return fast, sdk


def test_tools_list_is_the_sdks(live):
    for episode in (new_episode(live, "t01_lamp_price"), new_episode(live), None):
        fast, sdk = both(live, lambda e=episode: rpc(live, "tools/list", {}, e))
        assert fast == sdk and fast[0] == 200 and fast[1]["result"]["tools"]


def test_tools_call_is_the_sdks(live):
    calls = [
        ("search_products", {"query": "Lamp"}),
        ("place_order", ORDER),
        ("place_order", {"customer_id": "x"}),  # invalid arguments: an error result
        ("no_such_tool", {}),
        ("submit_answer", {"answer": None}),
    ]
    a, b = new_episode(live), new_episode(live)  # same task: each path drives its own, step by step alike
    for name, args in [*calls, ("place_order", ORDER)]:  # the last one: after the submit, episode_ended
        fast = rpc(live, "tools/call", {"name": name, "arguments": args}, a)
        with sdk_only(live):
            sdk = rpc(live, "tools/call", {"name": name, "arguments": args}, b)
        assert (fast.status_code, fast.json()) == (sdk.status_code, sdk.json()), name
        assert fast.headers["content-type"] == "application/json"
    for episode in ("ep-unknown", None):  # refused: an error result that says why
        answers = both(live, lambda e=episode: rpc(live, "tools/call", {"name": "search_products"}, e))
        assert answers[0] == answers[1] and answers[0][1]["result"]["isError"]


def test_what_the_fast_path_does_not_handle_reaches_the_sdk(live):
    eid = new_episode(live)
    url = f"{live.url}/envs/mini_shop/mcp"
    assert rpc(live, "tools/call", {"name": "search_products"}, eid).status_code == 200  # headers that pass
    cases = [
        lambda: rpc(live, "tools/call", {"name": "search_products"}, eid, Accept="text/html"),
        lambda: rpc(live, "tools/call", {"name": "search_products"}, eid, Host="evil.example"),
        lambda: rpc(live, "tools/call", {"name": "search_products"}, eid, Origin="http://evil.example"),
        lambda: rpc(live, "tools/call", {"name": "search_products"}, eid, **{"Content-Type": "text/plain"}),
        lambda: rpc(live, "tools/call", {"name": "search_products"}, eid, **{"Mcp-Name": "other"}),
        lambda: rpc(live, "tools/call", {"name": "search_products", "arguments": [1]}, eid),
        lambda: rpc(live, "server/discover", {}, eid),
        lambda: rpc(live, "prompts/list", {}, eid),
        lambda: httpx.post(
            url,
            content=b"{nope",
            headers={
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": VERSION,
                "Content-Type": "application/json",
            },
        ),
        lambda: httpx.post(
            url,
            json={"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}},
            headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": VERSION},
        ),
        lambda: httpx.post(
            url,
            json=[{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}],
            headers={
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": VERSION,
                "Mcp-Method": "tools/list",
            },
        ),
    ]
    for make in cases:
        fast, sdk = both(live, make)
        assert fast == sdk


def test_official_client_and_unicode_results(live):
    eid = new_episode(live)

    async def run() -> list[Any]:
        http = create_mcp_http_client(headers={"X-AWM-Episode": eid})
        async with http, Client(streamable_http_client(f"{live.url}/envs/mini_shop/mcp", http_client=http)) as c:
            found = await c.call_tool("search_products", {"query": "Lamp"})
            odd = await c.call_tool("search_products", {"query": "l\u00e4mp \U0001f600"})
            return [found, odd]

    found, odd = asyncio.run(run())
    assert not found.is_error and found.structured_content == json.loads(found.content[0].text)
    assert odd.structured_content == json.loads(odd.content[0].text)


def test_direct_tool_calls_answer_as_the_fastapi_routes(live):
    """``POST /episodes/{id}/call`` skips FastAPI's routing (``Planes.fast_paths``): the same answers."""
    bodies = [
        {"tool": "search_products", "arguments": {"query": "Lamp"}},
        {"tool": "place_order", "arguments": json.dumps(ORDER)},  # arguments as JSON text
        {"tool": "place_order", "arguments": {"customer_id": "x"}},
        {"tool": "no_such_tool"},
        {"tool": "search_products", "arguments": None},
        {"tool": 3},  # not plainly a call body: FastAPI's validation answers, on both paths
        {"tool": "search_products", "extra": 1},
        ["not", "an", "object"],
        {"tool": "submit_answer", "arguments": {"answer": None}},
        {"tool": "search_products", "arguments": {"query": "Lamp"}},  # after the submit: episode_ended
    ]
    for plane in (live.url, live.control):
        a, b = new_episode(live), new_episode(live)
        for body in bodies:
            fast = httpx.post(f"{plane}/episodes/{a}/call", json=body)
            live.planes.fast_paths = False
            try:
                slow = httpx.post(f"{plane}/episodes/{b}/call", json=body)
            finally:
                live.planes.fast_paths = True
            assert (fast.status_code, fast.json()) == (slow.status_code, slow.json()), body
            assert fast.headers["content-type"] == slow.headers["content-type"] == "application/json"
            assert int(fast.headers["content-length"]) == len(fast.content)
        odd: list[tuple[str, dict[str, Any]]] = [
            ("ep-nope", {"json": bodies[0]}),
            (a, {"content": b"{nope", "headers": {"content-type": "application/json"}}),
            (a, {"content": json.dumps(bodies[0]), "headers": {"content-type": "text/plain"}}),
        ]
        for eid, kwargs in odd:
            fast = httpx.post(f"{plane}/episodes/{eid}/call", **kwargs)
            live.planes.fast_paths = False
            try:
                slow = httpx.post(f"{plane}/episodes/{eid}/call", **kwargs)
            finally:
                live.planes.fast_paths = True
            assert (fast.status_code, fast.json()) == (slow.status_code, slow.json())
