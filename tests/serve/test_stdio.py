"""`awm mcp <env>` over stdio, driven by the official MCP client as a subprocess."""

from __future__ import annotations

import asyncio
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import FIXTURE_ROOT


def test_stdio_server_plays_a_task_end_to_end():
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "awm.cli", "mcp", "mini_shop", "--task", "t02_buy_lamp", "-p", str(FIXTURE_ROOT)],
    )

    async def run():
        for mode in ("auto", "legacy"):
            async with Client(params, mode=mode) as c:
                names = [t.name for t in (await c.list_tools()).tools]
                assert "place_order" in names and "submit_answer" in names
                r = await c.call_tool("place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})
                assert not r.is_error and r.structured_content["result"]["total_cents"] == 9198
                bad = await c.call_tool("place_order", {"customer_id": 1, "product_id": 1, "quantity": 99})
                assert bad.is_error and bad.structured_content["error"]["code"] == "tool_error"
                done = await c.call_tool("submit_answer", {})
                assert done.structured_content == {"ok": True, "submitted": True}

    asyncio.run(asyncio.wait_for(run(), 60))


def test_stdio_lists_the_tasks_answer_schema_and_takes_typed_answers():
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "awm.cli", "mcp", "mini_shop", "--task", "t01_lamp_price", "-p", str(FIXTURE_ROOT)],
    )

    async def run():
        async with Client(params) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert tools["submit_answer"].input_schema["properties"]["answer"]["type"] == "number"
            bad = await c.call_tool("submit_answer", {"value": 4599})
            assert bad.is_error and bad.structured_content["error"]["code"] == "malformed_action"
            done = await c.call_tool("submit_answer", {"answer": 4599, "explanation": "from search_products"})
            assert not done.is_error and done.structured_content == {"ok": True, "submitted": True}

    asyncio.run(asyncio.wait_for(run(), 60))
