"""``awm mcp <env>``: one environment over MCP stdio, for desktop MCP clients. One episode per process
(the task is chosen with ``--task``/``--seed``); ``submit_answer`` (with that task's answer schema)
ends it and the next call starts anew."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from awm.model.distribution import TaskDistribution
from awm.model.registry import Registry
from awm.runtime.episode import Episode
from awm.serve.mcp_server import call_tool, mcp_tools, tool_result


def build_stdio_server(registry: Registry, env: str, task_id: str | None = None, seed: int = 0) -> Server[Any]:
    if task_id is not None:  # a fixed task, or a template instance on its own world
        world, ct = TaskDistribution(env, registry=registry).resolve(task_id)
        task_id = ct.id
    else:
        world = registry.load(env)
    state: dict[str, Episode] = {"ep": world.episode(task_id, seed=seed)}

    listing = mcp_tools(world, state["ep"].task.task)  # every episode of this process runs the same task

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return listing

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        ep = state["ep"]
        if ep.done:
            ep = state["ep"] = world.episode(task_id, seed=seed)
        res = call_tool(ep, params.name, params.arguments or {})
        return tool_result(res.observation(), not res.ok)

    return Server(
        f"awm-{env}",
        version="0.1.0",
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        instructions=state["ep"].instruction,
    )


def run_stdio(registry: Registry, env: str, task_id: str | None = None, seed: int = 0) -> None:
    server = build_stdio_server(registry, env, task_id, seed)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
