"""``awm serve``: every environment over plain HTTP (OpenAPI) and MCP (streamable HTTP), with many
isolated episodes in one process."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import ASGIApp, Receive, Scope, Send

from awm.actions import agent_tools, apply_action, generic_submit_spec, observation_text, step_info
from awm.errors import EpisodeClosedError
from awm.registry import Registry, default_registry
from awm.rewards import PRESETS
from awm.serve.config import ServeConfig
from awm.serve.mcp_server import build_mcp_server
from awm.serve.sessions import ApiError, EpisodeStore, Slot
from awm.submit import MAX_EXPLANATION, SUBMIT, submit_spec


class CreateEpisode(BaseModel):
    model_config = ConfigDict(extra="forbid")
    env: str
    task_id: str | None = Field(None, description="default: chosen from the seed")
    seed: int = 0
    reward: str | None = Field(None, description=f"reward preset: one of {sorted(PRESETS)}")


class CallBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tool: str
    arguments: dict[str, Any] | str | None = None


class StepBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: dict[str, Any] | str = Field(
        description='our JSON action: {"tool", "arguments"} or {"answer": <value>, "explanation": "..."}'
    )


class SubmitBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: Any = Field(
        None,
        description="the final answer: a value of the task's answer type (the episode's submit.parameters); "
        "null for tasks that only change data",
    )
    explanation: str | None = Field(None, description="optional prose for people; never graded")


class RestoreBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    snapshot_id: str


class FastJSON(Response):
    """Serialises with the stdlib encoder straight to bytes (FastAPI's encoder walks every value)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":"), default=str).encode()


def _error(code: str, status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


class GuardMiddleware:
    """Bearer token (if configured) and a request-size limit, for HTTP and MCP alike."""

    def __init__(self, app: ASGIApp, max_body: int, token: str | None):
        self.app, self.max_body, self.token = app, max_body, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if self.token and scope["path"] != "/health":
            got = headers.get(b"authorization", b"").decode("latin-1")
            if not hmac.compare_digest(got, f"Bearer {self.token}"):
                await _error("unauthorized", 401, "missing or wrong bearer token")(scope, receive, send)
                return
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            msg = f"request body larger than {self.max_body} bytes"
            await _error("body_too_large", 413, msg)(scope, receive, send)
            return
        seen = 0

        async def limited() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise ApiError("body_too_large", 413, f"request body larger than {self.max_body} bytes")
            return message

        await self.app(scope, limited, send)


def create_app(config: ServeConfig | None = None, registry: Registry | None = None) -> FastAPI:
    cfg = config or ServeConfig()
    reg = registry or (Registry(cfg.paths) if cfg.paths else default_registry())
    names = cfg.envs or reg.names()
    for n in names:
        reg.load(n)  # compile up front: a broken env fails at start, not on the first request
    store = EpisodeStore(reg, names, cfg.max_episodes, cfg.idle_ttl, cfg.call_timeout)
    mcp_server = build_mcp_server(store, cfg.expose_rewards)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "testserver"],
    )
    sessions = StreamableHTTPSessionManager(
        app=mcp_server,
        security_settings=security,
        session_idle_timeout=cfg.idle_ttl,
        max_sessions=cfg.max_episodes,
        max_request_body_size=cfg.max_body_bytes,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async def sweeper() -> None:
            while True:
                await asyncio.sleep(cfg.sweep_interval)
                store.sweep()

        task = asyncio.create_task(sweeper())
        async with sessions.run():
            try:
                yield
            finally:
                task.cancel()
                store.close_all()

    app = FastAPI(
        default_response_class=FastJSON,
        title="AWM Gym",
        version="0.1.0",
        lifespan=lifespan,
        description="Database-backed tool environments. Agent-level errors (unknown tool, invalid "
        "arguments, tool errors) are observations: HTTP 200 with ok=false. Infrastructure errors are "
        'HTTP errors with a stable {"error": {"code", "message"}} body.',
    )
    app.state.store = store
    app.state.config = cfg
    app.add_middleware(GuardMiddleware, max_body=cfg.max_body_bytes, token=cfg.token)

    @app.exception_handler(ApiError)
    async def api_error(_: Request, e: ApiError) -> JSONResponse:
        return _error(e.code, e.status, e.message)

    @app.exception_handler(EpisodeClosedError)
    async def closed(_: Request, e: EpisodeClosedError) -> JSONResponse:
        return _error("episode_ended", 409, str(e))

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, e: RequestValidationError) -> JSONResponse:
        errs = e.errors()
        if any(x.get("type") == "json_invalid" for x in errs):
            return _error("invalid_json", 400, "the request body is not valid JSON")
        msg = "; ".join(f"{'.'.join(str(p) for p in x['loc'][1:]) or 'body'}: {x['msg']}" for x in errs[:5])
        return _error("invalid_request", 422, msg)

    listings: dict[tuple[str, str], tuple[dict[str, Any], list[dict[str, Any]]]] = {}

    def listing(env: str, ep: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """(submit_answer record, OpenAI tools) of an episode's task, built once per (env, task)."""
        key = (env, ep.task.id)
        if key not in listings:
            spec = submit_spec(ep.task.task)
            listings[key] = (spec.model_dump(exclude={"write"}), agent_tools(ep.world, ep.task.task))
        return listings[key]

    def episode_view(slot: Slot) -> dict[str, Any]:
        ep = slot.episode
        world = ep.world
        task = ep.task.task
        submit_record, tools = listing(slot.env, ep)
        return {
            "episode_id": slot.id,
            "env": slot.env,
            "env_id": f"awm/{world.id}-v{world.version}",
            "task": {"id": ep.task.id, "kind": str(task.kind), "instruction": task.instruction, **_answer_of(task)},
            "seed": ep.seed,
            "steps": ep.steps,
            "done": ep.done,
            "submit": submit_record,
            "tools": tools,
        }

    @app.get("/health", tags=["server"])
    async def health() -> dict[str, Any]:
        return {"ok": True, "envs": len(names), "episodes": len(store.slots)}

    @app.get("/envs", tags=["environments"])
    async def list_envs() -> list[dict[str, Any]]:
        out = []
        for n in names:
            w = reg.load(n)
            out.append(
                {
                    "env": n,
                    "env_id": f"awm/{n}-v{w.version}",
                    "title": w.manifest.title,
                    "tools": len(w.tools),
                    "tasks": len(w.tasks),
                    "mcp": f"/envs/{n}/mcp",
                }
            )
        return out

    @app.get("/envs/{env}", tags=["environments"])
    async def get_env(env: str) -> dict[str, Any]:
        w = store.world(env)
        return {
            "env": env,
            "manifest": w.manifest.model_dump(mode="json"),
            "tools": [s.model_dump() for s in w.tool_specs()],
            "tasks": [
                {"id": t.id, "kind": str(t.task.kind), "instruction": t.task.instruction, **_answer_of(t.task)}
                for t in w.tasks.values()
            ],
        }

    @app.post("/episodes", tags=["episodes"], status_code=201)
    async def create_episode(body: CreateEpisode) -> dict[str, Any]:
        return episode_view(store.create(body.env, body.task_id, body.seed, body.reward))

    @app.get("/episodes/{episode_id}", tags=["episodes"])
    async def get_episode(episode_id: str) -> dict[str, Any]:
        slot = store.get(episode_id)

        def summary(ep: Any) -> dict[str, Any]:
            ev = ep.evaluate()
            return {
                "checks": ev.checks,
                "progress": ev.progress,
                "collateral": len(ev.collateral),
                "diff": ep.diff_from_initial().to_dict(),
            }

        view = episode_view(slot)
        view.pop("tools")
        if not slot.episode.done:
            view["state"] = await slot.run(summary)
        return view

    @app.post("/episodes/{episode_id}/call", tags=["episodes"])
    async def call(episode_id: str, body: CallBody) -> FastJSON:
        """One tool call; ``submit_answer`` (the episode's ``submit`` schema) ends the episode."""
        if body.tool == SUBMIT:
            action = {"tool": SUBMIT, "arguments": body.arguments}
            res = await store.get(episode_id).run(lambda ep: apply_action(ep, action))
        else:
            res = await store.get(episode_id).run(lambda ep: ep.call(body.tool, body.arguments))
        return FastJSON(res.to_dict())

    @app.post("/episodes/{episode_id}/step", tags=["episodes"])
    async def step(episode_id: str, body: StepBody) -> FastJSON:
        """Gymnasium-style step on our JSON action; used by ``awm.remote``."""

        def run(ep: Any) -> dict[str, Any]:
            res = apply_action(ep, body.action)
            return {
                "observation": observation_text(res),
                "reward": res.reward,
                "terminated": res.done,
                "truncated": False,
                "info": step_info(ep, res),
            }

        return FastJSON(await store.get(episode_id).run(run))

    @app.post("/episodes/{episode_id}/submit", tags=["episodes"])
    async def submit(episode_id: str, body: SubmitBody) -> FastJSON:
        """End the episode with a typed answer (the type is the episode's ``submit.parameters.answer``)."""
        explanation = body.explanation[:MAX_EXPLANATION] if body.explanation is not None else None
        res = await store.get(episode_id).run(lambda ep: ep.submit(body.answer, explanation))
        return FastJSON(res.to_dict())

    @app.post("/episodes/{episode_id}/snapshot", tags=["episodes"])
    async def snapshot(episode_id: str) -> dict[str, str]:
        slot = store.get(episode_id)
        snap = await slot.run(lambda ep: ep.snapshot())
        sid = f"snap-{len(slot.snapshots) + 1}"
        slot.snapshots[sid] = snap
        return {"snapshot_id": sid}

    @app.post("/episodes/{episode_id}/restore", tags=["episodes"])
    async def restore(episode_id: str, body: RestoreBody) -> dict[str, Any]:
        slot = store.get(episode_id)
        snap = slot.snapshots.get(body.snapshot_id)
        if snap is None:
            raise ApiError("unknown_snapshot", 404, f"episode {episode_id!r} has no snapshot {body.snapshot_id!r}")
        await slot.run(lambda ep: ep.restore(snap))
        return episode_view(slot)

    @app.post("/episodes/{episode_id}/fork", tags=["episodes"], status_code=201)
    async def fork(episode_id: str) -> dict[str, Any]:
        slot = store.get(episode_id)
        child = await slot.run(lambda ep: ep.fork())
        return episode_view(store.adopt(slot.env, child))

    @app.delete("/episodes/{episode_id}", tags=["episodes"])
    async def delete(episode_id: str) -> dict[str, bool]:
        slot = store.get(episode_id)
        async with slot.lock:
            store.delete(episode_id)
        return {"deleted": True}

    for n in names:
        _add_typed_tool_routes(app, store, n)

    mcp_asgi = StreamableHTTPASGIApp(sessions)
    app.router.add_route(
        "/envs/{env}/mcp",
        mcp_asgi,  # type: ignore[arg-type]  # an ASGI app, which Starlette accepts as an endpoint
        methods=["GET", "POST", "DELETE"],
        include_in_schema=False,
    )
    return app


_ANY_BODY = Body(default_factory=dict)


def _answer_of(task: Any) -> dict[str, Any]:
    """The task's answer schema for listings (what to submit, never the value)."""
    schema = task.answer
    return {"answer": schema.model_dump(mode="json", exclude_none=True) if schema is not None else None}


def _add_typed_tool_routes(app: FastAPI, store: EpisodeStore, env: str) -> None:
    """One typed operation per tool (``POST /envs/<env>/episodes/{id}/tools/<tool>``) for OpenAPI clients.
    The body is read raw and validated by the episode, so bad arguments are recorded like any other call."""
    world = store.registry.load(env)
    specs = world.tool_specs()
    if SUBMIT not in world.tools:
        specs.append(generic_submit_spec())  # its real schema is per task: GET /episodes/{id} -> submit
    for spec in specs:

        def make(tool: str) -> Any:
            async def run_tool(episode_id: str, arguments: dict[str, Any] = _ANY_BODY) -> Any:
                slot = store.get(episode_id)
                if slot.env != env:
                    raise ApiError("invalid_request", 400, f"episode {episode_id!r} belongs to {slot.env!r}")
                if tool == SUBMIT:
                    action = {"tool": SUBMIT, "arguments": arguments}
                    return FastJSON((await slot.run(lambda ep: apply_action(ep, action))).to_dict())
                return FastJSON((await slot.run(lambda ep: ep.call(tool, arguments))).to_dict())

            return run_tool

        app.add_api_route(
            f"/envs/{env}/episodes/{{episode_id}}/tools/{spec.name}",
            make(spec.name),
            methods=["POST"],
            tags=[f"tools: {env}"],
            summary=spec.description[:120],
            operation_id=f"{env}__{spec.name}",
            openapi_extra={
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": json.loads(json.dumps(spec.parameters))}},
                }
            },
        )
