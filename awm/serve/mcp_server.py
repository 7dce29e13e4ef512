"""The MCP face of the server: one low-level MCP ``Server`` for every environment, reached at
``/envs/<env>/mcp`` on the agent plane. Tools come from the registry; a ``submit_answer`` tool ends
the episode (a malformed one, e.g. a number where a date is due, is an error result and does not).

Which episode a request acts on (mcp 2.x default clients are sessionless):
1. the ``X-AWM-Episode`` header: an episode the trainer created (control plane ``POST /episodes``);
   an id the server does not hold is refused (ids are server-generated, never chosen by clients);
2. else a legacy ``Mcp-Session-Id``: the session's own episode, made on its first tool call
   (``X-AWM-Task`` / ``X-AWM-Seed`` choose the task) when the server runs with ``session_episodes``
   (off by default), freed when the session closes (HTTP DELETE) or after the idle TTL;
3. else the call is refused with a message saying how to name an episode.
``tools/list`` gives ``submit_answer`` with the answer schema of the task the request names (the
episode's, or the one ``X-AWM-Task`` / ``X-AWM-Seed`` would start for a session); a request that names
no episode gets a generic ``submit_answer`` whose answer may be of any type.
Reward channels stay hidden from the agent unless the server runs with ``expose_rewards``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types as types
from mcp.server import Server

from awm.actions import apply_action, generic_submit_spec
from awm.bundle import Task, ToolSpec
from awm.episode import Episode, StepResult
from awm.errors import AwmError, EpisodeClosedError
from awm.serve.sessions import ApiError, EpisodeStore, Slot
from awm.submit import SUBMIT, submit_spec
from awm.world import World

_PATH = re.compile(r"/envs/([^/]+)/mcp/?$")
_NAME_IT = (
    "name your episode: send an X-AWM-Episode header with the episode_id the trainer got from the "
    "control plane (POST /episodes)"
)
_OR_SESSIONS = " (a server started with --session-episodes gives each legacy MCP session an episode of its own)"


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


def _mcp_tool(spec: ToolSpec) -> types.Tool:
    return types.Tool(name=spec.name, description=spec.description, input_schema=spec.parameters)


def mcp_tools(world: World, task: Task | None = None) -> types.ListToolsResult:
    """An environment's tools as MCP tools, plus ``submit_answer`` with ``task``'s answer schema
    (a generic one, answer of any type, when no task is known)."""
    tools = [_mcp_tool(s) for s in world.tool_specs()]
    if SUBMIT not in world.tools:
        tools.append(_mcp_tool(submit_spec(task) if task is not None else generic_submit_spec()))
    return types.ListToolsResult(tools=tools)


def call_tool(ep: Episode, name: str, arguments: dict[str, Any]) -> StepResult:
    """One MCP ``tools/call`` on an episode: ``submit_answer`` passes its typed answer to ``Episode.submit``
    (malformed arguments, or an answer that can never be of the task's type, are a recorded step flagged
    ``malformed`` that does not end the episode); other tools are plain calls."""
    if name == SUBMIT and SUBMIT not in ep.world.tools:
        return apply_action(ep, {"tool": SUBMIT, "arguments": arguments})
    return ep.call(name, arguments)


def tool_result(body: dict[str, Any], is_error: bool) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(body, default=str))],
        structured_content=body,
        is_error=is_error,
    )


def build_mcp_server(store: EpisodeStore, expose_rewards: bool = False, session_episodes: bool = False) -> Server[Any]:
    def seed_of(headers: Any) -> int:
        seed = headers.get("x-awm-seed", "0")
        if not seed.lstrip("-").isdigit() or len(seed) > 20:
            raise ApiError("invalid_request", 400, "X-AWM-Seed must be an integer")
        return int(seed)

    async def resolve(ctx: Any, env: str) -> Slot:
        store.world(env)  # an unknown environment says so first
        headers = ctx.request.headers
        if eid := headers.get("x-awm-episode"):
            slot = store.get(eid)
        elif sid := headers.get("mcp-session-id"):
            own = store.sessions.get(sid)
            if own is not None:
                slot = store.get(own)
            elif session_episodes:
                slot = store.create(env, headers.get("x-awm-task") or None, seed_of(headers), session=sid)
            else:
                raise ApiError("episode_required", 400, _NAME_IT + _OR_SESSIONS)
        else:
            raise ApiError(
                "episode_required", 400, _NAME_IT + ("; or open a legacy MCP session" if session_episodes else "")
            )
        if slot.env != env:
            raise ApiError("invalid_request", 400, f"episode {slot.id!r} belongs to {slot.env!r}, not {env!r}")
        return slot

    def listed_task(ctx: Any, env: str) -> str | None:
        """The task whose submit_answer a tools/list shows: the named episode's, or the task a session's
        episode would start with (without creating it); None when the request names no episode."""
        headers = ctx.request.headers
        if eid := headers.get("x-awm-episode"):
            slot = store.slots.get(eid)
            return slot.episode.task.id if slot is not None and slot.env == env else None
        sid = headers.get("mcp-session-id")
        if not sid or not session_episodes:
            return None
        slot = store.slots.get(store.sessions.get(sid, ""))
        if slot is not None:
            return slot.episode.task.id if slot.env == env else None
        try:
            return store.world(env).task(headers.get("x-awm-task") or None, seed_of(headers)).id
        except AwmError:
            return None  # the call will say what is wrong

    # per (env, task): the SDK lists tools on every tools/call
    listings: dict[tuple[str, str | None], types.ListToolsResult] = {}

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        env = _env_of(ctx)
        task_id = listed_task(ctx, env)
        key = (env, task_id)
        if key not in listings:
            world = store.world(env)
            listings[key] = mcp_tools(world, world.task(task_id).task if task_id is not None else None)
        return listings[key]

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            env = _env_of(ctx)
            slot = await resolve(ctx, env)
            args = params.arguments or {}
            res = await slot.run(lambda ep: call_tool(ep, params.name, args))
        except ApiError as e:
            return tool_result({"ok": False, "error": {"code": e.code, "message": e.message}}, True)
        except EpisodeClosedError as e:
            return tool_result({"ok": False, "error": {"code": "episode_ended", "message": str(e)}}, True)
        body = res.observation()
        if expose_rewards:
            body["rewards"] = res.rewards.to_dict()
        return tool_result(body, not res.ok)

    return Server("awm-gym", version="0.1.0", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
