"""``awm serve --workers 2``, for real: two processes on the same ports. Episodes are spread over the
workers and every later request reaches its episode, whichever worker accepts the connection (over HTTP,
fresh connections and kept ones, and over MCP, sessionless and legacy); a worker that stops makes its
episodes' requests fail at once with ``worker_gone``, while the other worker goes on."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.serving import awm_serve

ORDER = {"customer_id": 1, "product_id": 1, "quantity": 1}


@dataclass
class Served:
    agent: str
    control: str
    pids: list[int]
    lines: list[str]


@pytest.fixture(scope="module")
def served(lab: str) -> Iterator[Served]:
    args = ["--workers", "2", "--port", "0", "--control-port", "0", "--path", lab, "--env", "mini_shop"]
    with awm_serve(*args, "--session-episodes", stop_within=20) as s:
        pids = [int(m.group(1)) for line in s.lines if (m := re.search(r"worker \d of 2: pid (\d+)", line))]
        assert len(pids) == 2, s.lines
        yield Served(s.agent, s.control, pids, s.lines)
    assert s.proc.returncode is not None
    assert not any("Traceback" in line for line in s.lines), s.lines


def create(served: Served, n: int, client: httpx.Client) -> list[str]:
    out = []
    for _ in range(n):
        r = client.post(f"{served.control}/episodes", json={"env": "mini_shop", "task_id": "t02_buy_lamp"})
        assert r.status_code == 201, r.text
        out.append(r.json()["episode_id"])
    return out


async def mcp_order(served: Served, eid: str) -> dict:
    http = create_mcp_http_client(headers={"X-AWM-Episode": eid})
    url = f"{served.agent}/envs/mini_shop/mcp"
    async with http, Client(streamable_http_client(url, http_client=http)) as c:
        assert "place_order" in {t.name for t in (await c.list_tools()).tools}
        r = await c.call_tool("place_order", ORDER)
        assert not r.is_error, r.content
        return r.structured_content


def test_every_request_reaches_its_episode(served: Served) -> None:
    with httpx.Client(timeout=30) as kept:  # one connection for the trainer, as a trainer has
        eids = create(served, 24, kept)
    assert {e[-2:] for e in eids} == {"00", "01"}  # spread over both workers
    assert all(re.fullmatch(r"ep-[0-9a-f]{32}", e) for e in eids)
    with httpx.Client(timeout=30) as kept:
        for eid in eids:
            # a fresh connection (any worker), the MCP client, a kept connection: the same episode each time
            first = httpx.post(f"{served.agent}/episodes/{eid}/call", json={"tool": "place_order", "arguments": ORDER})
            assert first.status_code == 200 and first.json()["result"]["order_id"] == 2, first.text
            second = asyncio.run(mcp_order(served, eid))
            assert second["result"]["order_id"] == 3, second
            typed = kept.post(
                f"{served.agent}/envs/mini_shop/episodes/{eid}/tools/search_products", json={"query": "Brass"}
            )
            assert typed.status_code == 200 and typed.json()["result"][0]["stock"] == 1, typed.text
            view = kept.get(f"{served.control}/episodes/{eid}")
            assert view.status_code == 200 and view.json()["steps"] == 3, view.text
            assert kept.get(f"{served.agent}/episodes/{eid}").json()["steps"] == 3
    for eid in eids:  # the control plane's routes are forwarded too
        assert httpx.delete(f"{served.control}/episodes/{eid}").json() == {"deleted": True}
        assert httpx.get(f"{served.control}/episodes/{eid}").json()["error"]["code"] == "unknown_episode"


def test_legacy_mcp_sessions_stay_with_their_worker(served: Served) -> None:
    async def session() -> list[int]:
        http = create_mcp_http_client(headers={"X-AWM-Task": "t02_buy_lamp"})
        url = f"{served.agent}/envs/mini_shop/mcp"
        async with http, Client(streamable_http_client(url, http_client=http), mode="legacy") as c:
            ids = []
            for _ in range(3):
                r = await c.call_tool("place_order", ORDER)
                assert not r.is_error, r.content
                ids.append(r.structured_content["result"]["order_id"])
            return ids

    for _ in range(6):  # sessions opened on either worker: each keeps its own episode across its calls
        assert asyncio.run(session()) == [2, 3, 4]


def test_a_stopped_worker_fails_fast_and_the_other_goes_on(served: Served) -> None:
    with httpx.Client(timeout=30) as kept:
        eids = create(served, 4, kept)
    gone = [e for e in eids if e.endswith("01")]
    alive = [e for e in eids if e.endswith("00")]
    os.kill(served.pids[1], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(f"pid {served.pids[1]}) stopped" in line for line in served.lines) is False:
        assert time.monotonic() < deadline, served.lines
        time.sleep(0.05)
    for eid in gone:
        t0 = time.monotonic()
        r = httpx.post(
            f"{served.agent}/episodes/{eid}/call", json={"tool": "search_products", "arguments": {"query": "Lamp"}}
        )
        assert r.status_code == 503 and r.json()["error"]["code"] == "worker_gone", r.text
        assert "worker 1 of 2" in r.json()["error"]["message"] and time.monotonic() - t0 < 5

        async def over_mcp(eid: str = eid) -> None:
            http = create_mcp_http_client(headers={"X-AWM-Episode": eid})
            url = f"{served.agent}/envs/mini_shop/mcp"
            async with http, Client(streamable_http_client(url, http_client=http)) as c:
                await c.call_tool("search_products", {"query": "Lamp"})

        with pytest.raises(Exception):  # noqa: B017  # the MCP client raises on the 503; it does not hang
            asyncio.run(asyncio.wait_for(over_mcp(), 20))
    for eid in alive:
        r = httpx.post(
            f"{served.agent}/episodes/{eid}/call", json={"tool": "search_products", "arguments": {"query": "Lamp"}}
        )
        assert r.status_code == 200 and r.json()["ok"], r.text
    with httpx.Client(timeout=30) as kept:  # new episodes go to the worker left
        assert {e[-2:] for e in create(served, 4, kept)} == {"00"}
