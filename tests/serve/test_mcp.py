"""The official MCP client against a live server: sessionless (header) and legacy modes, isolation,
episodes that sessions make for themselves and free when they close."""

from __future__ import annotations

import asyncio
import json

import httpx
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from awm.serve.config import ServeConfig
from tests.conftest import FIXTURE_ROOT
from tests.serve.conftest import start_server, stop_server

ORDER = {"customer_id": 1, "product_id": 1, "quantity": 2}


def mcp_url(live, env="mini_shop"):
    return f"{live.url}/envs/{env}/mcp"


def new_episode(live, task="t02_buy_lamp"):
    """What a trainer does: create the episode on the control plane, hand its id to the agent."""
    r = httpx.post(f"{live.control}/episodes", json={"env": "mini_shop", "task_id": task})
    assert r.status_code == 201, r.text
    return r.json()["episode_id"]


async def _with_episode(live, episode, fn, headers=None):
    http = create_mcp_http_client(headers={"X-AWM-Episode": episode, **(headers or {})})
    async with http, Client(streamable_http_client(mcp_url(live), http_client=http)) as c:
        return await fn(c)


def test_sessionless_client_with_episode_header(live):
    eid = new_episode(live, "t02_buy_lamp")

    async def run(c):
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert "place_order" in tools and "submit_answer" in tools
        assert tools["place_order"].input_schema["required"] == ["customer_id", "product_id"]
        r = await c.call_tool("place_order", ORDER)
        assert not r.is_error and r.structured_content["result"]["total_cents"] == 9198
        assert "rewards" not in r.structured_content  # hidden from agents by default
        bad = await c.call_tool("place_order", {"customer_id": "x"})
        assert bad.is_error and bad.structured_content["error"]["code"] == "invalid_arguments"
        unknown = await c.call_tool("no_such_tool", {})
        assert unknown.is_error and "unknown tool" in unknown.content[0].text
        done = await c.call_tool("submit_answer", {"answer": None})
        assert not done.is_error and done.structured_content == {"ok": True, "submitted": True}
        after = await c.call_tool("place_order", ORDER)
        assert after.is_error and after.structured_content["error"]["code"] == "episode_ended"

    asyncio.run(_with_episode(live, eid, run))
    ep = live.store.slots[eid].episode
    assert ep.done and ep.evaluate().passed
    verdict = httpx.get(f"{live.control}/episodes/{eid}").json()["result"]  # the trainer reads the verdict
    assert verdict["rewards"]["outcome"] == 1.0


def test_episode_created_over_http_then_driven_over_mcp(live):
    eid = new_episode(live, "t03_cancel_alan")

    async def run(c):
        r = await c.call_tool("set_order_status", {"order_id": 1, "status": "cancelled"})
        assert not r.is_error

    asyncio.run(_with_episode(live, eid, run))
    out = httpx.post(f"{live.control}/episodes/{eid}/submit", json={}).json()
    assert out["rewards"]["outcome"] == 1.0


def test_an_episode_id_the_server_did_not_make_is_refused(live):
    """Client-chosen ids would be guessable: an unknown X-AWM-Episode creates nothing."""
    before = len(live.store.slots)

    async def run(c):
        return await c.call_tool("search_products", {"query": "Lamp"})

    r = asyncio.run(_with_episode(live, "my-run-1", run, {"X-AWM-Task": "t02_buy_lamp"}))
    assert r.is_error and r.structured_content["error"]["code"] == "unknown_episode"
    assert len(live.store.slots) == before and "my-run-1" not in live.store.slots


def test_sessionless_client_without_episode_is_told_what_to_do(live):
    async def run():
        async with Client(mcp_url(live)) as c:
            assert (await c.list_tools()).tools
            r = await c.call_tool("search_products", {"query": "Lamp"})
            assert r.is_error and "X-AWM-Episode" in r.content[0].text

    asyncio.run(run())


def test_legacy_sessions_are_isolated_episodes(live):
    async def run():
        async with Client(mcp_url(live), mode="legacy") as a, Client(mcp_url(live), mode="legacy") as b:
            r = await a.call_tool("place_order", {"customer_id": 1, "product_id": 1, "quantity": 3})
            assert not r.is_error
            sa = json.loads((await a.call_tool("search_products", {"query": "Brass"})).content[0].text)
            sb = json.loads((await b.call_tool("search_products", {"query": "Brass"})).content[0].text)
            assert sa["result"][0]["stock"] == 0 and sb["result"][0]["stock"] == 3

    asyncio.run(run())


def test_closing_a_legacy_session_frees_its_episode():
    """20 clients that open a session, act, and close it never exhaust --max-episodes 20."""
    cfg = ServeConfig(paths=[str(FIXTURE_ROOT)], envs=["mini_shop"], max_episodes=20, session_episodes=True)
    srv, thread = start_server(cfg)
    try:

        async def client(i):
            async with Client(mcp_url(srv), mode="legacy") as c:
                r = await c.call_tool("search_products", {"query": "Lamp"})
                assert not r.is_error, r.content[0].text
                return len(srv.store.slots)

        async def rounds():
            for _ in range(3):  # 60 sessions in all, 20 at a time
                held = await asyncio.gather(*(client(i) for i in range(20)))
                assert max(held) <= 20
                assert not srv.store.slots and not srv.store.sessions  # every DELETE freed its episode

        asyncio.run(rounds())
    finally:
        stop_server(srv, thread)


def test_sessions_get_no_episode_of_their_own_by_default():
    srv, thread = start_server(ServeConfig(paths=[str(FIXTURE_ROOT)], envs=["mini_shop"]))
    try:

        async def run():
            async with Client(mcp_url(srv), mode="legacy") as c:
                return await c.call_tool("search_products", {"query": "Lamp"})

        r = asyncio.run(run())
        assert r.is_error and r.structured_content["error"]["code"] == "episode_required"
        assert not srv.store.slots
    finally:
        stop_server(srv, thread)


def test_two_header_clients_at_once_are_isolated(live):
    async def client(episode, qty):
        async def fn(c):
            await c.call_tool("place_order", {"customer_id": 1, "product_id": 1, "quantity": qty})
            return json.loads((await c.call_tool("search_products", {"query": "Brass"})).content[0].text)

        return await _with_episode(live, episode, fn)

    async def both():
        return await asyncio.gather(client(new_episode(live), 1), client(new_episode(live), 2))

    a, b = asyncio.run(both())
    assert a["result"][0]["stock"] == 2 and b["result"][0]["stock"] == 1


def test_unknown_env_path(live):
    async def run():
        http = create_mcp_http_client(headers={"X-AWM-Episode": "zz"})
        async with http, Client(streamable_http_client(mcp_url(live, "nope"), http_client=http)) as c:
            r = await c.call_tool("x", {})
            assert r.is_error and "unknown environment" in r.content[0].text

    asyncio.run(run())


def test_rewards_visible_only_when_exposed():
    srv, thread = start_server(ServeConfig(paths=[str(FIXTURE_ROOT)], envs=["mini_shop"], expose_rewards=True))
    try:

        async def fn(c):
            return await c.call_tool("place_order", ORDER)

        r = asyncio.run(_with_episode(srv, new_episode(srv, "t02_buy_lamp"), fn))
        assert r.structured_content["rewards"]["progress"] == 1.0
    finally:
        stop_server(srv, thread)


# -- typed final answers -------------------------------------------------------------------------
def _answer_schema(tools) -> dict:
    submit = next(t for t in tools if t.name == "submit_answer")
    return submit.input_schema["properties"]["answer"]


def test_tools_list_shows_the_tasks_answer_schema(live):
    async def listing(c):
        return (await c.list_tools()).tools

    number = asyncio.run(_with_episode(live, new_episode(live, "t01_lamp_price"), listing))
    assert _answer_schema(number)["type"] == "number"
    write = asyncio.run(_with_episode(live, new_episode(live, "t02_buy_lamp"), listing))
    assert _answer_schema(write)["type"] == "null"

    # no episode named: a generic submit_answer whose answer may be of any type
    async def anonymous():
        async with Client(mcp_url(live)) as c:
            return (await c.list_tools()).tools

    generic = _answer_schema(asyncio.run(anonymous()))
    assert "type" not in generic

    # legacy sessions: the task the session's episode runs (X-AWM-Task); listing creates none
    before = len(live.store.slots)

    async def legacy():
        http = create_mcp_http_client(headers={"X-AWM-Task": "t01_lamp_price"})
        async with http, Client(streamable_http_client(mcp_url(live), http_client=http), mode="legacy") as c:
            return (await c.list_tools()).tools

    assert _answer_schema(asyncio.run(legacy()))["type"] == "number"
    assert len(live.store.slots) == before


def test_typed_submit_over_mcp(live):
    eid = new_episode(live, "t01_lamp_price")

    async def run(c):
        r = await c.call_tool("search_products", {"query": "Brass"})
        assert not r.is_error
        bad = await c.call_tool("submit_answer", {"answer": 4599, "confidence": "high"})
        assert bad.is_error and bad.structured_content["error"]["code"] == "malformed_action"
        assert "explanation" in bad.structured_content["error"]["message"]
        done = await c.call_tool("submit_answer", {"answer": 4599, "explanation": "search_products says 4599"})
        assert not done.is_error and done.structured_content == {"ok": True, "submitted": True}

    asyncio.run(_with_episode(live, eid, run))
    ep = live.store.slots[eid].episode
    assert ep.done and ep.steps == 3  # the malformed submit was a step that did not end the episode
    ev = ep.evaluate(4599)
    assert ev.passed and ev.answer_correct


def test_a_wrongly_typed_answer_over_mcp_is_malformed_and_the_episode_goes_on(live):
    eid = new_episode(live, "t01_lamp_price")

    async def run(c):
        for answer in ([4599], {"cents": 4599}, False):
            bad = await c.call_tool("submit_answer", {"answer": answer, "explanation": "the lamp's price"})
            err = bad.structured_content["error"]
            assert bad.is_error and err["code"] == "malformed_action" and '"type": "number"' in err["message"]
            assert "the episode goes on" in err["message"]
        done = await c.call_tool("submit_answer", {"answer": 4599})
        assert not done.is_error and done.structured_content == {"ok": True, "submitted": True}

    asyncio.run(_with_episode(live, eid, run))
    ep = live.store.slots[eid].episode
    assert ep.done and ep.steps == 4 and ep.evaluate(4599).passed


def test_hedged_text_answer_over_mcp_scores_0():
    srv, thread = start_server(ServeConfig(paths=[str(FIXTURE_ROOT)], envs=["mini_shop"], expose_rewards=True))
    try:

        async def hedged(c):
            return await c.call_tool("submit_answer", {"answer": "1, 2, 3 or 4"})

        async def typed(c):
            return await c.call_tool("submit_answer", {"answer": 4599})

        r = asyncio.run(_with_episode(srv, new_episode(srv, "t01_lamp_price"), hedged))
        assert r.structured_content["rewards"]["outcome"] == 0.0
        assert r.structured_content["rewards"]["answer_correct"] is False
        r = asyncio.run(_with_episode(srv, new_episode(srv, "t01_lamp_price"), typed))
        assert r.structured_content["rewards"]["outcome"] == 1.0
    finally:
        stop_server(srv, thread)
