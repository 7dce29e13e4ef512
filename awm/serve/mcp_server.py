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
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

import mcp_types as types
from mcp.server import Server

from awm.bundle.records import Task, ToolSpec
from awm.errors import AwmError, EpisodeClosedError
from awm.model.world import World
from awm.runtime.actions import apply_action, generic_submit_spec
from awm.runtime.episode import Episode, StepResult
from awm.runtime.submit import SUBMIT, submit_spec
from awm.serve.sessions import ApiError, EpisodeStore, Slot

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


CURRENT_ENV: ContextVar[str | None] = ContextVar("awm_mcp_env", default=None)


class AgentMcp:
    """The MCP tools of every environment, for the SDK's ``Server`` (``self.server``) and for the fast path
    (``awm.serve.mcp_fast``), which answer the same requests the same way."""

    def __init__(self, store: EpisodeStore, expose_rewards: bool = False, session_episodes: bool = False):
        self.store, self.expose_rewards, self.session_episodes = store, expose_rewards, session_episodes
        # per (env, task): the SDK lists tools on every tools/call
        self.listings: dict[tuple[str, str | None], types.ListToolsResult] = {}
        self.server: Server[Any] = Server(
            "awm-gym",
            version="0.1.0",
            on_list_tools=self._on_list_tools,
            on_call_tool=self._on_call_tool,
            get_tool_input_schema=self._input_schema,
        )

    def seed_of(self, headers: Mapping[str, str]) -> int:
        seed = headers.get("x-awm-seed", "0")
        if not seed.lstrip("-").isdigit() or len(seed) > 20:
            raise ApiError("invalid_request", 400, "X-AWM-Seed must be an integer")
        return int(seed)

    def resolve(self, headers: Mapping[str, str], env: str) -> Slot:
        store = self.store
        store.world(env)  # an unknown environment says so first
        if eid := headers.get("x-awm-episode"):
            slot = store.get(eid)
        elif sid := headers.get("mcp-session-id"):
            own = store.sessions.get(sid)
            if own is not None:
                slot = store.get(own)
            elif self.session_episodes:
                slot = store.create(env, headers.get("x-awm-task") or None, self.seed_of(headers), session=sid)
            else:
                raise ApiError("episode_required", 400, _NAME_IT + _OR_SESSIONS)
        else:
            raise ApiError(
                "episode_required", 400, _NAME_IT + ("; or open a legacy MCP session" if self.session_episodes else "")
            )
        if slot.env != env:
            raise ApiError("invalid_request", 400, f"episode {slot.id!r} belongs to {slot.env!r}, not {env!r}")
        return slot

    def listed_task(self, headers: Mapping[str, str], env: str) -> str | None:
        """The task whose submit_answer a tools/list shows: the named episode's, or the task a session's
        episode would start with (without creating it); None when the request names no episode."""
        store = self.store
        if eid := headers.get("x-awm-episode"):
            slot = store.slots.get(eid)
            return slot.episode.task.id if slot is not None and slot.env == env else None
        sid = headers.get("mcp-session-id")
        if not sid or not self.session_episodes:
            return None
        slot = store.slots.get(store.sessions.get(sid, ""))
        if slot is not None:
            return slot.episode.task.id if slot.env == env else None
        try:
            return store.world(env).task(headers.get("x-awm-task") or None, self.seed_of(headers)).id
        except AwmError:
            return None  # the call will say what is wrong

    def listing(self, headers: Mapping[str, str], env: str) -> tuple[tuple[str, str | None], types.ListToolsResult]:
        """The tools/list answer for a request, and its cache key."""
        key = (env, self.listed_task(headers, env))
        if key not in self.listings:
            world = self.store.world(env)
            self.listings[key] = mcp_tools(world, world.task(key[1]).task if key[1] is not None else None)
        return key, self.listings[key]

    async def call(self, headers: Mapping[str, str], env: str, name: str, args: dict[str, Any]) -> tuple[Any, bool]:
        """One tools/call: the observation (``structuredContent``) and whether it is an error."""
        try:
            slot = self.resolve(headers, env)
            res = await slot.run(lambda ep: call_tool(ep, name, args))
        except ApiError as e:
            return {"ok": False, "error": {"code": e.code, "message": e.message}}, True
        except EpisodeClosedError as e:
            return {"ok": False, "error": {"code": "episode_ended", "message": str(e)}}, True
        body = res.observation()
        if self.expose_rewards:
            body["rewards"] = res.rewards.to_dict()
        return body, not res.ok

    def _input_schema(self, name: str) -> Mapping[str, Any] | None:
        """The called tool's input schema, for the SDK's ``Mcp-Param-*`` header check (the environment is
        the request's, set by the endpoint); None when unknown (then nothing is checked)."""
        env = CURRENT_ENV.get()
        if env is None or not self.store.loaded(env):
            return None
        tool = self.store.world(env).tools.get(name)
        return tool.parameters if tool is not None else None

    async def _on_list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return self.listing(ctx.request.headers, _env_of(ctx))[1]

    async def _on_call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            env = _env_of(ctx)
        except ApiError as e:
            return tool_result({"ok": False, "error": {"code": e.code, "message": e.message}}, True)
        body, is_error = await self.call(ctx.request.headers, env, params.name, params.arguments or {})
        return tool_result(body, is_error)


def build_mcp_server(store: EpisodeStore, expose_rewards: bool = False, session_episodes: bool = False) -> Server[Any]:
    return AgentMcp(store, expose_rewards, session_episodes).server
