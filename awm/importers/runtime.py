"""Tools of an imported AWM environment: its generated FastAPI app, run in a sandboxed worker (``awm.isolation``).

``awm_tools(env_dir, module_name)`` turns ``awm_app.py`` into one tool per route:

- **Loaded in a worker, never here.** The app's source goes to a pool of bubblewrap workers keyed by
  its content hash (``awm.isolation``); the first worker runs it and answers with its tools (the
  OpenAPI ``operationId`` of every route, as fastapi-mcp names them, with the merged path, query
  and body parameters as the schema). The static check (``appcheck``) is a lint the importer and
  ``awm validate`` report; it is not the boundary and refuses nothing here.
- **A call is a request to the worker.** The worker builds the ASGI request as fastapi-mcp does and
  runs it; every statement the app's SQLAlchemy engine runs comes back here (``SqlHost``) and runs
  on the episode's connection under an authorizer, inside the call's transaction. AWM's semantics:
  a ``commit`` is kept even when the response then fails (the tool error says so and the step's
  diff shows the write), what was never committed is rolled back, foreign keys are as AWM's
  connection has them (the world's manifest says; off for AWM data).
- **Limits.** A call that does not finish within ``Limits.call_s`` kills its worker (the next call
  starts a fresh one) and reports a timeout; SQL is bounded by the episode's VM-step limit.
- **Deterministic.** The worker's clock is the world's frozen clock and its ``random``/``uuid`` and
  SQLite's ``random()`` are seeded from the episode's seed and step: a replay is byte-identical.
- **Every AWM tool is a write tool** (``write=True``), whatever its HTTP method: AWM's GET routes
  sometimes write, and a write tool is what gets a transaction and change capture.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from awm.errors import ImportedCodeError, ToolError, ToolTimeout
from awm.isolation import INSTALL_HINT, Limits, Pool, Worker, WorkerCrashed, WorkerTimeout, available, get_pool
from awm.isolation.arguments import given, open_model
from awm.isolation.sqlhost import SqlHost
from awm.tooling import Db, ToolDef, strip_titles

__all__ = ["ImportedCodeError", "awm_tools"]

SQLALCHEMY_HINT = "install awm-gym[awm] (sqlalchemy) to run imported AWM environments"
MAX_ERROR = 500  # characters of an error detail shown to the agent
LIMITS = Limits()
RESERVED_TOOLS = frozenset({"submit_answer", "list_tools", "call_tool"})  # awm.model.world.RESERVED_TOOLS


@dataclass(frozen=True)
class _App:
    digest: str
    pool: Pool
    tools: list[dict[str, Any]]
    startup_sql: list[str]


_apps: dict[str, _App] = {}
_loading: dict[str, threading.Lock] = {}
_lock = threading.Lock()


# -- public ------------------------------------------------------------------------------------------
def awm_tools(env_dir: Path, module_name: str) -> dict[str, Any]:
    """One tool function per route of ``env_dir/awm_app.py`` (each carries ``__awm_tool__``), and under
    ``__awm_startup_sql__`` the tables the app's start-up (``create_all``) adds to the schema."""
    source_path = Path(env_dir) / "awm_app.py"
    try:
        source = source_path.read_text(encoding="utf-8")
    except OSError as e:
        raise ImportedCodeError(f"cannot read {source_path.name}: {e}") from e
    try:
        importlib.import_module("sqlalchemy")  # the worker runs this interpreter with these packages
    except ImportError as e:
        raise ImportedCodeError(SQLALCHEMY_HINT) from e
    if not available():
        raise ImportedCodeError(INSTALL_HINT)
    schema_path = Path(env_dir) / "schema.sql"
    schema = schema_path.read_text(encoding="utf-8") if schema_path.is_file() else ""
    app = _load(source, schema)
    out: dict[str, Any] = {t["name"]: _tool_function(app, t, module_name) for t in app.tools}
    out["__awm_startup_sql__"] = list(app.startup_sql)  # read by the world: where episodes start
    return out


def _load(source: str, schema: str) -> _App:
    digest = hashlib.sha256((source + "\0" + schema).encode()).hexdigest()
    with _lock:  # one lock per app: a slow or hostile app's start never holds up another's
        lock = _loading.setdefault(digest, threading.Lock())
    with lock:
        app = _apps.get(digest)
        if app is not None:
            return app
        loaded: list[dict[str, Any]] = []
        startup: list[str] = []

        def setup(worker: Worker) -> None:
            request = {"op": "load", "source": source, "filename": "awm_app.py", "schema": schema}
            reply = worker.request(request, timeout=LIMITS.start_s)
            if reply.get("error"):
                raise ImportedCodeError(f"awm_app.py does not import: {reply['error']}")
            if not loaded:
                loaded.extend(_valid_tools(reply.get("tools")))
                sql = reply.get("startup_sql")
                startup.extend(q for q in sql if isinstance(q, str)) if isinstance(sql, list) else None

        pool = get_pool("app", digest, LIMITS, setup)
        try:
            pool.warm()
        except WorkerTimeout as e:
            raise ImportedCodeError(f"awm_app.py did not load within {LIMITS.start_s:g} s") from e
        except WorkerCrashed as e:
            raise ImportedCodeError(f"awm_app.py crashed its worker while loading: {e}") from e
        if not loaded:
            raise ImportedCodeError("awm_app.py has no route that can be a tool")
        app = _apps[digest] = _App(digest, pool, loaded, startup)
        return app


def _valid_tools(tools: Any) -> list[dict[str, Any]]:
    """The worker's tool list, checked: it is data from code we did not write."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for t in tools if isinstance(tools, list) else []:
        if not isinstance(t, dict):
            continue
        name, params, route = t.get("name"), t.get("parameters"), t.get("name")
        if not isinstance(name, str) or name in seen or not isinstance(params, dict):
            continue
        props = params.get("properties")
        if not isinstance(props, dict) or not all(isinstance(k, str) for k in props):
            continue
        if name in RESERVED_TOOLS:  # a route named like one of the episode's own actions
            name = "app_" + name
        if name in seen:
            continue
        seen.add(name)
        schema = {"type": "object", "properties": props, "additionalProperties": False}
        required = [r for r in params.get("required") or [] if isinstance(r, str) and r in props]
        if required:
            schema["required"] = required
        text = t.get("description")
        description: str = text if isinstance(text, str) else name
        method = t.get("method") if t.get("method") in ("GET", "POST", "PUT", "PATCH", "DELETE") else "POST"
        out.append(
            {
                "name": name,
                "route": route,
                "description": description[:4000],
                "parameters": strip_titles(schema),
                "method": method,
            }
        )
    return out


# -- tools -------------------------------------------------------------------------------------------
def _tool_function(app: _App, spec: dict[str, Any], module_name: str) -> Callable[..., Any]:
    name = spec["name"]
    route = spec.get("route", name)

    def run(db: Db, **arguments: Any) -> Any:
        return _call(app, route, db, given(arguments))

    run.__name__ = run.__qualname__ = name
    run.__module__ = module_name
    run.__doc__ = spec["description"]
    model = open_model(name, spec["parameters"])  # FastAPI validates the values in the worker
    run.__awm_tool__ = ToolDef(name, run, True, spec["description"], model, spec["parameters"])  # type: ignore[attr-defined]
    return run


def call_seed(db: Db, tool: str) -> int:
    """The seed of one call: the episode's seed and step, so a replay draws the same values."""
    text = f"{db.seed}:{db.step}:{tool}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def _call(app: _App, tool: str, db: Db, arguments: dict[str, Any]) -> Any:
    conn = db.raw_connection()
    seed = call_seed(db, tool)
    host = SqlHost(conn, db.now(), seed)
    request = {"op": "call", "tool": tool, "arguments": arguments, "clock": db.now().isoformat(), "seed": seed}
    try:
        reply = app.pool.request(request, handler=host.handle, timeout=LIMITS.call_s)
    except WorkerTimeout as e:
        host.finish()
        raise ToolTimeout(f"{tool} did not finish within {LIMITS.call_s:g} s and was stopped") from e
    except WorkerCrashed as e:
        host.finish()
        raise ToolError(f"{tool} failed: the environment's code crashed ({str(e)[:MAX_ERROR]})") from e
    except BaseException:
        host.finish()
        raise
    host.finish()
    if host.interrupted:
        raise ToolTimeout(f"{tool} took too long in the database and was stopped; narrow the request")
    status = reply.get("status")
    body = reply.get("body")
    text = body if isinstance(body, str) else ""
    try:
        result = json.loads(text) if text else None
    except (json.JSONDecodeError, RecursionError):
        result = text
    error = reply.get("error")
    if not isinstance(status, int) or (error is not None and not isinstance(error, str)):
        raise ToolError(f"{tool} failed: the environment's worker gave a malformed reply").keep_writes()
    if error or reply.get("status", 500) >= 400:
        raise ToolError(_failure(tool, status, result, error, host.integrity)).keep_writes()
    return result


def _failure(tool: str, status: int, result: Any, error: str | None, integrity: str | None) -> str:
    if integrity is not None and (error or status >= 500):
        return f"the database rejected the change: {integrity}"[:MAX_ERROR]
    if error:
        return f"the environment's code raised {error}"[:MAX_ERROR]
    return f"{tool} failed (HTTP {status}): {_detail(result if result is not None else error)}"


def _detail(result: Any) -> str:
    detail = result.get("detail", result) if isinstance(result, dict) else result
    if isinstance(detail, list):  # FastAPI's validation errors
        parts = []
        for e in detail:
            if isinstance(e, dict):
                loc = ".".join(str(x) for x in (e.get("loc") or ())[1:]) or "arguments"
                parts.append(f"{loc}: {e.get('msg', e)}")
        detail = "invalid arguments: " + "; ".join(parts) if parts else detail
    text = detail if isinstance(detail, str) else json.dumps(detail, default=str)
    return text[:MAX_ERROR]
