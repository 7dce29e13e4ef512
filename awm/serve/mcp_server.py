"""The MCP face of the server: one low-level MCP ``Server`` for every environment, reached at
``/envs/<env>/mcp``. Tools come from the registry; a ``submit_answer`` tool ends the episode.

Which episode a request acts on (mcp 2.x default clients are sessionless):
1. the ``X-AWM-Episode`` header — an episode created over HTTP, or created here on first use
   (``X-AWM-Task`` / ``X-AWM-Seed`` choose its task);
2. else the legacy ``Mcp-Session-Id`` — each legacy session gets an episode of its own;
3. else the call is refused with a message saying how to name an episode.
Reward channels stay hidden from the agent unless the server runs with ``expose_rewards``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types as types
from mcp.server import Server

from awm.errors import EpisodeClosedError
from awm.serve.sessions import ApiError, EpisodeStore, Slot
from awm.world import World

SUBMIT = "submit_answer"
_PATH = re.compile(r"/envs/([^/]+)/mcp/?$")


def _env_of(ctx: Any) -> str:
    req = ctx.request
    if req is None:
        raise ApiError("invalid_request", 400, "this MCP server is reached over HTTP at /envs/<env>/mcp")
    env = (req.scope.get("path_params") or {}).get("env")
    if env is None and (m := _PATH.search(req.url.path)):
        env = m.group(1)
    if env is None:
        raise ApiError("invalid_request", 400, "use the path /envs/<env>/mcp")
    return str(env)


def mcp_tools(world: World) -> types.ListToolsResult:
    """An environment's tools as MCP tools, plus ``submit_answer``."""
    tools = [types.Tool(name=s.name, description=s.description, input_schema=s.parameters) for s in world.tool_specs()]
    if SUBMIT not in world.tools:
        tools.append(SUBMIT_TOOL)
    return types.ListToolsResult(tools=tools)


def tool_result(body: dict[str, Any], is_error: bool) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(body, default=str))],
        structured_content=body,
        is_error=is_error,
    )


SUBMIT_TOOL = types.Tool(
    name=SUBMIT,
    description="Give your final answer and end the task. Call it once, when the task is complete "
    "(answer may be empty for tasks that only change data).",
    input_schema={
        "type": "object",
        "properties": {"answer": {"type": ["string", "null"], "description": "the final answer"}},
        "additionalProperties": False,
    },
)


def build_mcp_server(store: EpisodeStore, expose_rewards: bool = False) -> Server[Any]:
    async def resolve(ctx: Any, env: str) -> Slot:
        headers = ctx.request.headers
        eid = headers.get("x-awm-episode")
        if eid:
            slot = store.slots.get(eid)
            if slot is None:
                seed = headers.get("x-awm-seed", "0")
                if not seed.lstrip("-").isdigit():
                    raise ApiError("invalid_request", 400, "X-AWM-Seed must be an integer")
                slot = store.create(env, headers.get("x-awm-task") or None, int(seed), episode_id=eid)
        elif sid := headers.get("mcp-session-id"):
            slot = store.slots.get(f"mcp-{sid}") or store.create(
                env, headers.get("x-awm-task") or None, episode_id=f"mcp-{sid}"
            )
        else:
            raise ApiError(
                "episode_required",
                400,
                "name your episode: send an X-AWM-Episode header (create one "
                "with POST /episodes, or pick any new id) or use a legacy MCP session",
            )
        if slot.env != env:
            raise ApiError("invalid_request", 400, f"episode {slot.id!r} belongs to {slot.env!r}, not {env!r}")
        return slot

    listings: dict[str, types.ListToolsResult] = {}  # per env: the SDK lists tools on every tools/call

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        env = _env_of(ctx)
        if env not in listings:
            listings[env] = mcp_tools(store.world(env))
        return listings[env]

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            env = _env_of(ctx)
            slot = await resolve(ctx, env)
            args = params.arguments or {}
            if params.name == SUBMIT and SUBMIT not in store.world(env).tools:
                answer = args.get("answer")
                res = await slot.run(lambda ep: ep.submit(None if answer is None else str(answer)))
            else:
                res = await slot.run(lambda ep: ep.call(params.name, args))
        except ApiError as e:
            return tool_result({"ok": False, "error": {"code": e.code, "message": e.message}}, True)
        except EpisodeClosedError as e:
            return tool_result({"ok": False, "error": {"code": "episode_ended", "message": str(e)}}, True)
        body = res.observation()
        if expose_rewards:
            body["rewards"] = res.rewards.to_dict()
        return tool_result(body, not res.ok)

    return Server("awm-gym", version="0.1.0", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
