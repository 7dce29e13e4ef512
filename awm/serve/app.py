"""``awm serve``: every environment over plain HTTP (OpenAPI) and MCP (streamable HTTP), with many
isolated episodes in one process, split into two planes that share the episodes.

**Agent plane** (``--host``/``--port``, default 127.0.0.1:8000; optional bearer ``--token-env``): what an
agent may use, and nothing of the judge.

- ``/envs/<env>/mcp`` (MCP), ``POST /episodes/{id}/call``, the typed
  ``POST /envs/<env>/episodes/{id}/tools/<tool>``, ``POST /episodes/{id}/submit`` and
  ``GET /episodes/{id}`` (instruction, tools, ``submit_answer`` schema, steps, done).
- Results are observations (``{"ok", "result" | "error"}``, ``{"ok": true, "submitted": true}``): no
  reward channels, no checks, no diff of the task, no verdict (``--expose-rewards`` shows rewards over MCP,
  for debugging only).
- No route creates, lists, snapshots, restores, forks or deletes episodes, or lists tasks: those
  paths answer 404 ``not_found`` (or 405). An agent cannot revive a submitted episode.
- An episode id is a server-generated, unguessable token (``ep-`` + 128 random bits) and is the agent's
  credential for that one episode. Clients never choose ids, so ids cannot be guessed or taken over.
- By default an agent acts only in episodes the trainer created. With ``--session-episodes`` (for MCP
  Inspector and other clients that cannot send a header, in local use) a legacy MCP session that names
  no episode gets one of its own (any task: ``X-AWM-Task`` / ``X-AWM-Seed``); it counts against
  ``--max-episodes``, expires with ``--idle-ttl`` and is freed when the session closes (HTTP DELETE).

**Control plane** (``--control-host``/``--control-port``, default 127.0.0.1 and the agent port + 1;
optional bearer ``--control-token-env``, required when the control host is not loopback): the
trainer's API, a superset of the agent plane's episode routes.

- ``GET /envs``, ``GET /envs/{env}`` (every task and its instruction), ``POST /episodes`` (create),
  ``GET /episodes/{id}`` (checks, progress, diff; the final verdict once done), ``/call`` and ``/submit``
  with reward channels, ``/step`` (Gymnasium, used by ``awm.remote``), ``/snapshot``, ``/restore``,
  ``/fork``, ``DELETE``.
- ``/view/``: the viewer (``awm.view``: environments, and the runs given with ``--view-runs``, their
  episodes and the judge's reasons); ``GET /`` redirects there. Not part of the OpenAPI document.

The agent plane's ``GET /`` is a small JSON index (its documentation and MCP endpoints).

Environments compile on their first use (an episode, ``GET /envs/<env>``, the MCP endpoint), not at
startup; a broken one answers ``500 broken_env`` with its bundle's problems. The steps an agent and a trainer
take on every turn (``POST /episodes/{id}/call``, MCP ``tools/call``/``tools/list``) skip FastAPI's routing
(``Planes.asgi``, ``awm.serve.mcp_fast``) and answer exactly as the routes do.

Each plane has its own OpenAPI document (``/openapi.json``, ``/docs``), with every response's schema
and every error status. Infrastructure errors are ``{"error": {"code", "message"}}`` everywhere (see
``awm.serve.guard`` for the limits on heads, bodies, nesting and time).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
from fastapi import APIRouter, Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, RedirectResponse, Response
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from awm.bundle.records import ToolSpec
from awm.errors import EpisodeClosedError
from awm.model.registry import Registry, default_registry
from awm.runtime.actions import agent_tools, apply_action, generic_submit_spec, observation_text, step_info
from awm.runtime.episode import Episode, StepResult
from awm.runtime.submit import MAX_EXPLANATION, SUBMIT, parse_submission, submit_spec
from awm.serve import models as m
from awm.serve.config import ServeConfig
from awm.serve.guard import GuardMiddleware, send_error
from awm.serve.mcp_fast import FastMcp, replay
from awm.serve.mcp_server import CURRENT_ENV, AgentMcp
from awm.serve.sessions import ApiError, EpisodeStore, Slot


class FastJSON(JSONResponse):
    """Serialises with the stdlib encoder straight to bytes (FastAPI's encoder walks every value).

    Always valid JSON in valid UTF-8, whatever an agent sent: a NaN or infinity becomes the string
    ``"NaN"``/``"Infinity"``/``"-Infinity"`` and a lone UTF-16 surrogate U+FFFD (only on that slower path)."""

    def render(self, content: Any) -> bytes:
        return _render(content)


def _render(content: Any) -> bytes:
    """``content`` as ``FastJSON`` writes it."""
    try:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":"), default=str, allow_nan=False).encode()
    except (ValueError, UnicodeEncodeError):
        return json.dumps(json_safe(content), ensure_ascii=False, separators=(",", ":"), default=str).encode()


def json_safe(value: Any) -> Any:
    """``value`` with non-finite floats as strings and lone surrogates replaced (JSON-encodable as UTF-8)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def _error(code: str, status: int, message: str, headers: dict[str, str] | None = None) -> FastJSON:
    return FastJSON({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


_WHY = {
    400: "bad request: the body is not JSON (or not UTF-8), or nests too deeply",
    401: "missing or wrong bearer token",
    404: "unknown environment, task, episode or snapshot",
    408: "the request body did not arrive in time",
    409: "the episode has ended",
    410: "the episode expired (idle) or was retired (a call that did not finish)",
    413: "request body too large",
    500: "the environment cannot be loaded (broken_env: the message lists its bundle's problems)",
    422: "the request does not match its schema",
    503: "the server holds its maximum of live episodes",
    504: "a tool call did not finish in time; its episode is retired",
}
_BODY = (400, 408, 413)  # any request with a body may meet these


def _responses(model: Any, *errors: int, status: int = 200, auth: bool = False) -> dict[Any, Any]:
    codes = sorted({*errors, *_BODY, *((401,) if auth else ())})
    out: dict[Any, Any] = {status: {"model": model}}
    out.update({c: {"model": m.ErrorBody, "description": _WHY[c]} for c in codes})
    return out


_EPISODE = (404, 410)  # any route on an existing episode
_CALL = (*_EPISODE, 409, 422, 504)  # any step on an episode


_MCP_ROUTE = re.compile(r"^/envs/([^/]+)/mcp$")
_CALL_ROUTE = re.compile(r"^/episodes/([^/]+)/call$")
_CALL_KEYS = frozenset({"tool", "arguments"})
_MCP_METHODS = frozenset({"GET", "POST", "DELETE"})


@dataclass
class Planes:
    """The two ASGI apps of one server and the episodes they share."""

    agent: FastAPI
    control: FastAPI
    store: EpisodeStore
    fast_paths: bool = True  # tool calls and MCP skip FastAPI's routing (False: everything through FastAPI)

    def asgi(self, control_ports: set[int]) -> ASGIApp:
        """One ASGI app for one uvicorn server listening on both planes' sockets: a request reaching a
        port in ``control_ports`` goes to the control plane, any other to the agent plane.

        The requests an agent and a trainer make on every step (``POST /episodes/{id}/call``, MCP) go
        straight to their handler behind the plane's guard (``app.state.direct``): FastAPI's routing,
        validation and middleware add nothing to them but time. They answer as the FastAPI routes do, and a
        request that is not plainly well formed goes through FastAPI (its validation writes the error)."""
        agent, control = self.agent, self.control
        direct_agent: ASGIApp = agent.state.direct
        direct_control: ASGIApp = control.state.direct

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            server = scope.get("server")
            plane = scope.get("awm.plane")  # a request another worker forwarded (awm.serve.workers)
            is_control = plane == "control" or (
                plane is None and scope["type"] != "lifespan" and server is not None and server[1] in control_ports
            )
            if scope["type"] == "http" and self.fast_paths and _direct_route(scope, not is_control):
                await (direct_control if is_control else direct_agent)(scope, receive, send)
            elif is_control:
                await control(scope, receive, send)
            else:
                await agent(scope, receive, send)  # the agent plane owns the lifespan (MCP sessions, sweeper)

        return app


def _direct_route(scope: Scope, agent: bool) -> bool:
    method, path = scope["method"], scope["path"]
    if method == "POST" and _CALL_ROUTE.match(path):
        return True
    return agent and method in _MCP_METHODS and _MCP_ROUTE.match(path) is not None


class _Direct:
    """A plane's hot paths behind its guard (see ``Planes.asgi``): ``POST /episodes/{id}/call`` and, on the
    agent plane, MCP; ``fallback`` (the plane's FastAPI app) gets any request this does not answer."""

    def __init__(
        self,
        store: EpisodeStore,
        render: Callable[[StepResult], Any],
        fallback: ASGIApp,
        mcp: ASGIApp | None = None,
    ):
        self.store, self.render, self.fallback, self.mcp = store, render, fallback, mcp

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.mcp is not None and (m := _MCP_ROUTE.match(scope["path"])):
            await self.mcp({**scope, "path_params": {"env": m.group(1)}}, receive, send)
            return
        message = await receive()  # the whole body: the guard read it
        if message["type"] != "http.request":
            return
        raw = message.get("body", b"")
        body = self._call_body(scope, raw)
        if body is None:  # FastAPI validates it, and writes the error
            await self.fallback(scope, replay(raw, receive), send)
            return
        eid = _CALL_ROUTE.match(scope["path"]).group(1)  # type: ignore[union-attr]
        try:
            slot = _slot(self.store, eid)
            res = await slot.run(lambda ep: _call(ep, body))
            status, content = 200, self.render(res)
        except ApiError as e:
            status, content = e.status, {"error": {"code": e.code, "message": e.message}}
        except EpisodeClosedError as e:
            status, content = 409, {"error": {"code": "episode_ended", "message": str(e)}}
        out = _render(content)  # what FastJSON sends, without building a Response
        head = [(b"content-length", str(len(out)).encode()), (b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": status, "headers": head})
        await send({"type": "http.response.body", "body": out})

    @staticmethod
    def _call_body(scope: Scope, raw: bytes) -> m.CallBody | None:
        """The body as ``m.CallBody`` when it plainly is one (a JSON object with a string ``tool`` and
        ``arguments`` an object, a string or null, nothing else), else None."""
        ctype = next((v for k, v in scope["headers"] if k == b"content-type"), b"")
        if not ctype.startswith(b"application/json"):
            return None
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("tool"), str) or not data.keys() <= _CALL_KEYS:
            return None
        arguments = data.get("arguments")
        if not (arguments is None or isinstance(arguments, (dict, str))):
            return None
        return m.CallBody.model_construct(tool=data["tool"], arguments=arguments)


def _direct(cfg: ServeConfig, token: str | None, app: ASGIApp) -> ASGIApp:
    """``app`` behind a plane's guard (the same limits and token as its FastAPI app)."""
    return GuardMiddleware(
        _LastResort(app),
        token=token,
        max_body=cfg.max_body_bytes,
        max_depth=cfg.max_json_depth,
        body_timeout=cfg.body_timeout,
    )


def create_planes(
    config: ServeConfig | None = None, registry: Registry | None = None, view_runs: Sequence[str | Path] = ()
) -> Planes:
    """Both planes over one episode store; ``view_runs``: the runs the control plane's viewer shows."""
    cfg = config or ServeConfig()
    reg = registry or (Registry(cfg.paths) if cfg.paths else default_registry())
    names = check_names(reg, cfg.envs)  # manifests only: each environment compiles on its first use
    store = EpisodeStore(reg, names, cfg.max_episodes, cfg.idle_ttl, cfg.call_timeout)
    views = _Views(store)
    agent = _agent_plane(cfg, store, views)
    control = _control_plane(cfg, store, views)
    _mount_viewer(control, store, view_runs)
    return Planes(agent, control, store)


def check_names(reg: Registry, envs: Sequence[str] | None) -> list[str]:
    """The environments to serve (default: every bundle whose manifest reads), each checked to exist
    (``UnknownEnvironmentError`` with suggestions); nothing is compiled."""
    entries = reg.entries()
    names = list(envs) if envs else reg.names()
    for name in names:
        if name not in entries:
            reg.load(name)  # raises UnknownEnvironmentError, with the closest names
    return names


def _mount_viewer(control: FastAPI, store: EpisodeStore, runs: Sequence[str | Path]) -> None:
    """The viewer at ``/view/`` on the control plane (it shows verdicts and reward channels: the trainer's)."""
    from awm.view.app import create_view_app

    control.mount("/view", create_view_app(store.registry, runs, envs=store.envs))

    @control.get("/", include_in_schema=False)
    @control.get("/view", include_in_schema=False)
    async def to_viewer() -> Response:
        return RedirectResponse("/view/", status_code=307)


# -- shared pieces -------------------------------------------------------------------------------
class _Views:
    """The JSON views of environments and episodes; tool listings are built once per (env, task)."""

    def __init__(self, store: EpisodeStore):
        self.store = store
        self._listings: dict[tuple[str, str], tuple[dict[str, Any], list[dict[str, Any]]]] = {}

    def listing(self, env: str, ep: Episode) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """(submit_answer record, OpenAI tools) of an episode's task."""
        key = (env, ep.task.id)
        if key not in self._listings:
            spec = submit_spec(ep.task.task)
            self._listings[key] = (spec.model_dump(exclude={"write"}), agent_tools(ep.world, ep.task.task))
        return self._listings[key]

    def episode(self, slot: Slot) -> dict[str, Any]:
        ep = slot.episode
        world = ep.world
        task = ep.task.task
        submit_record, tools = self.listing(slot.env, ep)
        return {
            "episode_id": slot.id,
            "env": slot.env,
            "env_id": f"awm/{world.id}-v{world.version}",
            "task": {
                "id": ep.task.id,
                "kind": str(task.kind),
                "instruction": task.instruction,
                **_answer_of(task),
                "world": world.key.label,
                "template": task.template,
                "difficulty": task.difficulty.model_dump() if task.difficulty else None,
            },
            "seed": ep.seed,
            "steps": ep.steps,
            "done": ep.done,
            "submit": submit_record,
            "tools": tools,
        }

    def agent_episode(self, slot: Slot) -> dict[str, Any]:
        ep = slot.episode
        submit_record, tools = self.listing(slot.env, ep)
        return {
            "episode_id": slot.id,
            "env": slot.env,
            "instruction": ep.instruction,
            "steps": ep.steps,
            "done": ep.done,
            "submit": submit_record,
            "tools": tools,
        }


def _answer_of(task: Any) -> dict[str, Any]:
    """The task's answer schema for listings (what to submit, never the value)."""
    schema = task.answer
    return {"answer": schema.model_dump(mode="json", exclude_none=True) if schema is not None else None}


def _allowed(app: FastAPI, scope: Scope) -> list[str]:
    """Every method some route accepts on this path (Starlette names only the first route's)."""
    methods: set[str] = set()
    for route in app.router.routes:
        match, _ = route.matches(scope)
        if match != Match.NONE:
            methods |= getattr(route, "methods", None) or set()
    return sorted(methods | {"OPTIONS"}) if methods else []


def _base_app(title: str, description: str, cfg: ServeConfig, token: str | None, store: EpisodeStore) -> FastAPI:
    app = FastAPI(
        default_response_class=FastJSON,
        title=title,
        version="0.1.0",
        description=description,
    )
    app.add_middleware(
        GuardMiddleware,
        token=token,
        max_body=cfg.max_body_bytes,
        max_depth=cfg.max_json_depth,
        body_timeout=cfg.body_timeout,
    )

    @app.exception_handler(ApiError)
    async def api_error(_: Request, e: ApiError) -> Response:
        return _error(e.code, e.status, e.message)

    @app.exception_handler(EpisodeClosedError)
    async def closed(_: Request, e: EpisodeClosedError) -> Response:
        return _error("episode_ended", 409, str(e))

    @app.exception_handler(RecursionError)
    async def recursion(_: Request, e: RecursionError) -> Response:  # a last resort: the guard stops these first
        return _error("nesting_too_deep", 400, "the request nests too deeply")

    @app.exception_handler(Exception)
    async def internal(_: Request, e: Exception) -> Response:  # a bug: logged by the server, same body shape
        return _error("internal_error", 500, f"the server failed on this request ({type(e).__name__})")

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, e: RequestValidationError) -> Response:
        errs = e.errors()
        if any(x.get("type") == "json_invalid" for x in errs):
            return _error("invalid_json", 400, "the request body is not valid JSON")
        msg = "; ".join(f"{'.'.join(str(p) for p in x['loc'][1:]) or 'body'}: {x['msg']}" for x in errs[:5])
        return _error("invalid_request", 422, msg)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, e: StarletteHTTPException) -> Response:
        if e.status_code == 404:
            return _error("not_found", 404, f"no route {request.method} {request.url.path} here; see /docs")
        if e.status_code == 405:
            allow = ", ".join(_allowed(app, request.scope))
            if request.method == "OPTIONS":
                return Response(status_code=204, headers={"allow": allow})
            return _error("method_not_allowed", 405, f"{request.url.path} accepts {allow}", {"allow": allow})
        if e.status_code == 400:  # FastAPI could not read the body (not UTF-8, ...)
            return _error("invalid_json", 400, "the request body is not valid JSON (UTF-8)")
        return _error("http_error", e.status_code, str(e.detail))

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            docs = getattr(app.state, "doc_routes", None)  # routes documented, not served (the typed tool routes)
            routes = [*app.routes, *(docs() if docs is not None else [])]
            doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=routes)
            if token:
                doc.setdefault("components", {})["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
                doc["security"] = [{"bearer": []}]
                doc["paths"]["/health"]["get"]["security"] = []
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    @app.get("/health", tags=["server"], operation_id="health", response_model=m.Health, responses=_responses(m.Health))
    async def health() -> Response:
        return FastJSON({"ok": True, "envs": len(store.envs), "episodes": len(store.slots)})

    return app


def _slot(store: EpisodeStore, episode_id: str, env: str | None = None) -> Slot:
    slot = store.get(episode_id)
    if env is not None and slot.env != env:
        raise ApiError("unknown_episode", 404, f"episode {episode_id!r} belongs to {slot.env!r}, not {env!r}")
    return slot


def _tool_routes(
    app: FastAPI, store: EpisodeStore, auth: bool, model: type[BaseModel], render: Callable[[StepResult], Any]
) -> None:
    """One typed operation per tool (``POST /envs/<env>/episodes/{id}/tools/<tool>``) for OpenAPI clients.
    The body is validated by the episode, so a bad one is a recorded step; its answer is then a 422. An answer
    of the wrong type for the episode's task fits the generic ``submit_answer`` schema the route documents: it is
    a recorded malformed step too, answered 200 (``ok`` false), as on ``/submit``.

    One route serves every tool of every environment (so that nothing compiles at startup); the OpenAPI
    document lists each tool as its own operation, with its schema (built when the document is first asked for)."""
    validators: dict[tuple[str, str], jsonschema.protocols.Validator | None] = {}

    def validator(env: str, tool: str) -> jsonschema.protocols.Validator | None:
        """The tool's documented schema (None: ``submit_answer``, whose route documents any answer); KeyError:
        no such tool."""
        key = (env, tool)
        if key not in validators:
            world = store.world(env)
            if tool in world.tools:
                validators[key] = jsonschema.Draft202012Validator(world.tools[tool].parameters)
            elif tool == SUBMIT:
                validators[key] = None
            else:
                raise KeyError(tool)
        return validators[key]

    async def run_tool(request: Request, env: str, episode_id: str, tool: str) -> Response:
        if env not in store.envs:
            return _error("not_found", 404, f"no route {request.method} {request.url.path} here; see /docs")
        await store.load(env)
        try:
            documented = validator(env, tool)
        except KeyError:
            return _error("not_found", 404, f"no route {request.method} {request.url.path} here; see /docs")
        raw = await request.body()
        try:
            arguments = json.loads(raw) if raw.strip() else {}
        except (ValueError, RecursionError):
            return _error("invalid_json", 400, "the request body is not valid JSON")
        if not isinstance(arguments, dict):
            return _error("invalid_request", 422, "body: Input should be a valid dictionary")
        slot = _slot(store, episode_id, env)
        # submit_answer's route documents the generic schema (any answer): a body that fits it is
        # no 422 even when the answer is of the wrong type for this episode's task (an observation);
        # nor is a body that fits the tool's documented schema but is refused beyond it (an integer
        # past 64 bits, NUL in text: awm.tooling's boundary checks): an observation too
        if tool == SUBMIT:
            action = {"tool": SUBMIT, "arguments": arguments}
            res = await slot.run(lambda ep: apply_action(ep, action))
        else:
            res = await slot.run(lambda ep: ep.call(tool, arguments))
        bad = res.error is not None and res.error.code in ("invalid_arguments", "malformed_action")
        if bad:  # only then does the documented schema decide (its validation costs more than many calls)
            if tool == SUBMIT:
                fits_route = parse_submission(arguments)[2] is None
            else:
                fits_route = documented is not None and documented.is_valid(arguments)
            return FastJSON(render(res), status_code=200 if fits_route else 422)
        return FastJSON(render(res))

    app.add_api_route(
        "/envs/{env}/episodes/{episode_id}/tools/{tool}", run_tool, methods=["POST"], include_in_schema=False
    )

    def doc_routes() -> list[BaseRoute]:
        """The typed routes as the OpenAPI document shows them: one per tool of every environment that loads."""
        router = APIRouter()
        for env in store.envs:
            try:
                world = store.world(env)
            except ApiError:
                continue  # a broken environment: its requests say why
            specs = world.tool_specs()
            if SUBMIT not in world.tools:
                specs.append(generic_submit_spec())  # its real schema is per task: GET /episodes/{id} -> submit
            for spec in specs:

                async def documented(episode_id: str, arguments: dict[str, Any] = _ANY_BODY) -> Response:
                    raise NotImplementedError  # documentation only: run_tool serves these paths

                router.add_api_route(
                    f"/envs/{env}/episodes/{{episode_id}}/tools/{spec.name}",
                    documented,
                    methods=["POST"],
                    tags=[f"tools: {env}"],
                    summary=spec.description[:120],
                    operation_id=f"{env}__{spec.name}",
                    response_model=model,
                    responses=_responses(model, *_CALL, auth=auth),
                    openapi_extra={
                        "requestBody": {"required": True, "content": {"application/json": {"schema": _accepted(spec)}}}
                    },
                )
        return list(router.routes)

    app.state.doc_routes = doc_routes


_ANY_BODY = Body(default_factory=dict)


def _accepted(spec: ToolSpec) -> dict[str, Any]:
    """The body a typed route accepts: the tool's schema (``submit_answer`` also takes a null explanation,
    and cuts a long one to its first characters)."""
    schema: dict[str, Any] = json.loads(json.dumps(spec.parameters))
    if spec.name == SUBMIT and "explanation" in schema.get("properties", {}):
        text = f"optional prose for people, never graded; cut to {MAX_EXPLANATION} characters"
        schema["properties"]["explanation"] = {"type": ["string", "null"], "description": text}
    return schema


# -- the agent plane -----------------------------------------------------------------------------
def _agent_plane(cfg: ServeConfig, store: EpisodeStore, views: _Views) -> FastAPI:
    agent_mcp = AgentMcp(store, cfg.expose_rewards, cfg.session_episodes)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=cfg.loopback_only_hosts,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "testserver"],
    )
    sessions = StreamableHTTPSessionManager(
        app=agent_mcp.server,
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

    auth = cfg.token is not None
    app = _base_app(
        "AWM Gym: agent plane",
        "What an agent may use: its episode's tools (here, typed, and over MCP at /envs/<env>/mcp) and "
        "submit_answer. Results are observations: agent-level errors (unknown tool, invalid arguments, "
        'tool errors) are {"ok": false, "error"}; no reward channels, checks or verdicts. Infrastructure '
        'errors are HTTP errors with a stable {"error": {"code", "message"}} body.',
        cfg,
        cfg.token,
        store,
    )
    app.router.lifespan_context = lifespan
    app.state.store = store
    app.state.config = cfg
    app.state.sessions = sessions

    @app.get(
        "/episodes/{episode_id}",
        tags=["episode"],
        operation_id="get_episode",
        response_model=m.AgentEpisode,
        responses=_responses(m.AgentEpisode, *_EPISODE, 422, auth=auth),
    )
    async def get_episode(episode_id: str) -> Response:
        """The instruction, the tools and the ``submit_answer`` schema of this episode."""
        return FastJSON(views.agent_episode(_slot(store, episode_id)))

    _step_routes(
        app,
        store,
        _PlaneView("episode", m.Observation, StepResult.observation, auth),
        call_doc="One tool call; ``submit_answer`` (the episode's ``submit`` schema) ends the episode, unless it is "
        "malformed (an answer that can never be of the task's type): then it is an error observation and the "
        "episode goes on.",
        submit_doc="End the episode with a typed answer (the type is the episode's ``submit.parameters.answer``). "
        "An answer that can never be of that type (a number for a date, a list for a single value, ...) is an "
        "error observation (``malformed_action``, saying what to send) and the episode goes on.",
    )

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        """Where things are: the documentation and each environment's MCP endpoint."""
        return FastJSON(
            {
                "service": "AWM Gym agent plane",
                "docs": "/docs",
                "openapi": "/openapi.json",
                "mcp": {env: f"/envs/{env}/mcp" for env in store.envs},
            }
        )

    _tool_routes(app, store, auth, m.Observation, StepResult.observation)

    mcp_endpoint = _McpEndpoint(StreamableHTTPASGIApp(sessions), store, FastMcp(agent_mcp, security))
    app.state.direct = _direct(cfg, cfg.token, _Direct(store, StepResult.observation, app, mcp_endpoint))
    app.router.add_route(
        "/envs/{env}/mcp",
        mcp_endpoint,  # type: ignore[arg-type]  # an ASGI app, which Starlette accepts as an endpoint
        methods=["GET", "POST", "DELETE"],
        include_in_schema=False,
    )
    return app


class _LastResort:
    """An unexpected exception becomes the same 500 body as everywhere else (and is logged)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as e:
            logging.getLogger("awm.serve").exception("the MCP endpoint failed")
            if not started:
                msg = f"the server failed on this request ({type(e).__name__})"
                await send_error(send, 500, "internal_error", msg)


class _McpEndpoint:
    """MCP over streamable HTTP: the environment compiles on its first use; the agent's everyday requests
    (sessionless ``tools/call``, ``tools/list``) take the fast path, the rest the SDK; closing a legacy
    session (HTTP DELETE) frees the episode it made."""

    def __init__(self, mcp: ASGIApp, store: EpisodeStore, fast: FastMcp | None = None):
        self.mcp, self.store, self.fast = mcp, store, fast

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        env = str((scope.get("path_params") or {}).get("env", ""))
        if env in self.store.envs and not self.store.loaded(env):
            try:
                await self.store.load(env)
            except ApiError as e:
                await send_error(send, e.status, e.code, e.message)
                return
        token = CURRENT_ENV.set(env)
        try:
            await self._serve(env, scope, receive, send)
        finally:
            CURRENT_ENV.reset(token)

    async def _serve(self, env: str, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] == "POST" and self.fast is not None:
            message = await receive()  # the whole body: the guard read it
            if message["type"] != "http.request":
                return  # the client left
            body = message.get("body", b"")
            if await self.fast.handle(scope, body, env, receive, send):
                return
            receive = replay(body, receive)
        if scope["method"] != "DELETE":
            await self.mcp(scope, receive, send)
            return
        session = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"mcp-session-id"), None)
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        await self.mcp(scope, receive, watch)
        if session is not None and 200 <= status < 300:
            await self.store.close_session(session)


@dataclass(frozen=True)
class _PlaneView:
    """How a plane shows a step: the OpenAPI tag, the response model and the view of a ``StepResult``."""

    tag: str
    model: Any
    render: Callable[[StepResult], Any]
    auth: bool


def _step_routes(app: FastAPI, store: EpisodeStore, view: _PlaneView, *, call_doc: str, submit_doc: str) -> None:
    """The step operations, ``POST /episodes/{id}/call`` and ``/submit``, defined once and mounted on a plane
    with that plane's view of a step (the agent's observation, or the trainer's step with its reward channels)."""

    async def call(episode_id: str, body: m.CallBody) -> Response:
        slot = _slot(store, episode_id)
        return FastJSON(view.render(await slot.run(lambda ep: _call(ep, body))))

    async def submit(episode_id: str, body: m.SubmitBody) -> Response:
        slot = _slot(store, episode_id)
        return FastJSON(view.render(await slot.run(lambda ep: _submit(ep, body))))

    for name, endpoint, doc in (("call", call, call_doc), ("submit", submit, submit_doc)):
        app.add_api_route(
            f"/episodes/{{episode_id}}/{name}",
            endpoint,
            methods=["POST"],
            tags=[view.tag],
            operation_id=name,
            description=doc,
            response_model=view.model,
            responses=_responses(view.model, *_CALL, auth=view.auth),
        )


def _call(ep: Episode, body: m.CallBody) -> StepResult:
    if body.tool == SUBMIT:
        return apply_action(ep, {"tool": SUBMIT, "arguments": body.arguments})
    return ep.call(body.tool, body.arguments)


def _submit(ep: Episode, body: m.SubmitBody) -> StepResult:
    explanation = body.explanation[:MAX_EXPLANATION] if body.explanation is not None else None
    return ep.submit(body.answer, explanation)


# -- the control plane ---------------------------------------------------------------------------
def _control_plane(cfg: ServeConfig, store: EpisodeStore, views: _Views) -> FastAPI:
    auth = cfg.control_token is not None
    app = _base_app(
        "AWM Gym: control plane",
        "The trainer's API: environments and their tasks, episode creation, state, reward channels, "
        "verdicts, snapshots, forks. Never give this address or its token to an agent: the agent plane "
        'is the agent\'s. Infrastructure errors are HTTP errors with a stable {"error": {"code", "message"}} '
        "body; agent-level errors are steps with ok=false.",
        cfg,
        cfg.control_token,
        store,
    )
    app.state.store = store
    app.state.config = cfg

    @app.get(
        "/envs",
        tags=["environments"],
        operation_id="list_envs",
        response_model=list[m.EnvSummary],
        responses=_responses(list[m.EnvSummary], auth=auth),
    )
    async def list_envs() -> Response:
        """Every environment, from its manifest; ``tools`` and ``tasks`` are counted once it has compiled (its
        first use), null before (listing a catalog compiles nothing)."""
        out = []
        entries = store.registry.entries()
        for n in store.envs:
            manifest = entries[n].manifest
            w = store.world(n) if store.loaded(n) else None
            out.append(
                {
                    "env": n,
                    "env_id": entries[n].gym_id,
                    "title": manifest.title if manifest is not None else n,
                    "tools": len(w.tools) if w is not None else None,
                    "tasks": len(w.task_ids) if w is not None else None,
                    "mcp": f"/envs/{n}/mcp",
                }
            )
        return FastJSON(out)

    @app.get(
        "/envs/{env}",
        tags=["environments"],
        operation_id="get_env",
        response_model=m.EnvDetail,
        responses=_responses(m.EnvDetail, 404, 422, 500, auth=auth),
    )
    async def get_env(env: str) -> Response:
        """The manifest, the tools, every task and template with its instruction and answer schema, and
        whether the environment builds random worlds (``POST /episodes`` with ``world: random``)."""
        w = await store.load(env)
        return FastJSON(
            {
                "env": env,
                "manifest": w.manifest.model_dump(mode="json"),
                "tools": [s.model_dump() for s in w.tool_specs()],
                "tasks": [
                    {"id": t.id, "kind": str(t.task.kind), "instruction": t.task.instruction, **_answer_of(t.task)}
                    for t in (w.tasks[tid] for tid in w.task_ids)
                ],
                "templates": [
                    {"id": t.id, "kind": str(t.task.kind), "instruction": t.task.instruction, **_answer_of(t.task)}
                    for t in w.templates.values()
                ],
                "world_builder": w.files.builder_path is not None,
            }
        )

    @app.post(
        "/episodes",
        tags=["episodes"],
        status_code=201,
        operation_id="create_episode",
        response_model=m.EpisodeView,
        responses=_responses(m.EpisodeView, 404, 422, 500, 503, status=201, auth=auth),
    )
    async def create_episode(body: m.CreateEpisode) -> Response:
        """A new episode; its ``episode_id`` is also what its agent sends (``X-AWM-Episode`` over MCP, or the
        path of the agent plane's routes)."""
        keys = ("world", "tasks", "scale", "distractors", "num_worlds", "start_world", "min_steps", "max_steps")
        dist = {k: getattr(body, k) for k in keys}
        await store.load(body.env)
        slot = store.create(body.env, body.task_id, body.seed, body.reward, distribution=dist)
        return FastJSON(views.episode(slot), status_code=201)

    @app.get(
        "/episodes/{episode_id}",
        tags=["episodes"],
        operation_id="get_episode",
        response_model=m.EpisodeView,
        responses=_responses(m.EpisodeView, *_EPISODE, 422, 504, auth=auth),
    )
    async def get_episode(episode_id: str) -> Response:
        """The episode with its state (checks, progress, diff) while it runs, and its verdict once it ended."""
        slot = _slot(store, episode_id)

        def summary(ep: Episode) -> dict[str, Any]:
            ev = ep.evaluate()
            return {
                "checks": ev.checks,
                "progress": ev.progress,
                "collateral": len(ev.collateral),
                "diff": ep.diff_from_initial().to_dict(),
            }

        view = views.episode(slot)
        view.pop("tools")
        if not slot.episode.done:
            view["state"] = await slot.run(summary)
        elif slot.final is not None:
            view["result"] = slot.final.to_dict()
        return FastJSON(view)

    _step_routes(
        app,
        store,
        _PlaneView("episodes", m.StepOut, StepResult.to_dict, auth),
        call_doc="One tool call with its reward channels; ``submit_answer`` ends the episode (a malformed one does "
        "not).",
        submit_doc="End the episode with a typed answer; the answer carries the verdict. A malformed answer (one "
        "that can never be of the task's type) is a step flagged ``malformed``, ``done`` false: the episode goes on.",
    )

    @app.post(
        "/episodes/{episode_id}/step",
        tags=["episodes"],
        operation_id="step",
        response_model=m.GymStep,
        responses=_responses(m.GymStep, *_CALL, auth=auth),
    )
    async def step(episode_id: str, body: m.StepBody) -> Response:
        """Gymnasium-style step on our JSON action; used by ``awm.remote``."""
        slot = _slot(store, episode_id)

        def run(ep: Episode) -> dict[str, Any]:
            res = apply_action(ep, body.action)
            if res.done:
                slot.final = res
            return {
                "observation": observation_text(res),
                "reward": res.reward,
                "terminated": res.done,
                "truncated": False,
                "info": step_info(ep, res),
            }

        return FastJSON(await slot.run(run))

    @app.post(
        "/episodes/{episode_id}/snapshot",
        tags=["episodes"],
        operation_id="snapshot",
        response_model=m.SnapshotOut,
        responses=_responses(m.SnapshotOut, *_EPISODE, 422, 504, auth=auth),
    )
    async def snapshot(episode_id: str) -> Response:
        slot = _slot(store, episode_id)
        snap = await slot.run(lambda ep: ep.snapshot())
        sid = f"snap-{len(slot.snapshots) + 1}"
        slot.snapshots[sid] = snap
        return FastJSON({"snapshot_id": sid})

    @app.post(
        "/episodes/{episode_id}/restore",
        tags=["episodes"],
        operation_id="restore",
        response_model=m.EpisodeView,
        responses=_responses(m.EpisodeView, *_EPISODE, 422, 503, 504, auth=auth),
    )
    async def restore(episode_id: str, body: m.RestoreBody) -> Response:
        """Back to a snapshot. After a submit the verdict is final: the answer is a NEW episode (its view, with a
        new ``episode_id``) starting at the snapshot, and the submitted one stays as it ended."""
        slot = _slot(store, episode_id)
        snap = slot.snapshots.get(body.snapshot_id)
        if snap is None:
            raise ApiError("unknown_snapshot", 404, f"episode {episode_id!r} has no snapshot {body.snapshot_id!r}")
        if slot.episode.submitted:  # its verdict is final: the rollout from the snapshot is a new episode
            child = await slot.run(lambda ep: ep.branch(snap))
            return FastJSON(views.episode(store.adopt(slot.env, child)))
        await slot.run(lambda ep: ep.restore(snap))
        if not slot.episode.done:
            slot.final = None
        return FastJSON(views.episode(slot))

    @app.post(
        "/episodes/{episode_id}/fork",
        tags=["episodes"],
        status_code=201,
        operation_id="fork",
        response_model=m.EpisodeView,
        responses=_responses(m.EpisodeView, *_EPISODE, 422, 503, 504, status=201, auth=auth),
    )
    async def fork(episode_id: str) -> Response:
        """A copy of the episode under a new id (for the trainer's search; give an agent only its own id)."""
        slot = _slot(store, episode_id)
        child = await slot.run(lambda ep: ep.fork())
        return FastJSON(views.episode(store.adopt(slot.env, child)), status_code=201)

    @app.delete(
        "/episodes/{episode_id}",
        tags=["episodes"],
        operation_id="delete_episode",
        response_model=m.Deleted,
        responses=_responses(m.Deleted, *_EPISODE, 422, auth=auth),
    )
    async def delete(episode_id: str) -> Response:
        slot = _slot(store, episode_id)
        async with slot.lock:
            store.delete(episode_id)
        return FastJSON({"deleted": True})

    _tool_routes(app, store, auth, m.StepOut, StepResult.to_dict)
    app.state.direct = _direct(cfg, cfg.control_token, _Direct(store, StepResult.to_dict, app))
    return app
