"""Tools of an imported AWM environment: its generated FastAPI app, run in-process on the episode's database.

``awm_tools(env_dir, module_name)`` turns ``awm_app.py`` into one tool per endpoint ``operation_id``:

- **Checked, then loaded once per process.** ``check_app_code`` (``awm.importers.appcheck``) must pass;
  the code then runs once per content hash in a fresh module whose ``__import__`` admits only the
  allow-listed modules, with ``os`` replaced by a stub (``os.environ`` holds only
  ``DATABASE_PATH``/``DATABASE_URL`` pointing at memory), ``uvicorn`` by a stub whose ``run`` does
  nothing, ``sqlalchemy.create_engine`` by ours, and ``getattr``/``setattr``/``hasattr`` by versions
  that refuse names starting with ``_``. The module's ``__name__`` is never ``"__main__"``, so the
  ``uvicorn.run`` entry point does not run.
- **SQLAlchemy is bound to the current episode.** Every ``create_engine`` in the app returns one
  engine (``NullPool``) whose connections are proxies of the connection of the episode whose tool is
  running (set around each call under a process-wide lock; episodes serialise their calls anyway).
  A proxy opens a SAVEPOINT; its ``commit()`` releases it into our per-call transaction and opens a
  new one, ``rollback()`` rolls back to it, ``close()`` discards what was not committed. Nothing the
  app does ends ``Episode.call``'s ``BEGIN`` … ``COMMIT``/``ROLLBACK``: a 4xx/5xx or an exception
  becomes a ``ToolError`` and the whole call rolls back. During the call an SQLite authorizer denies
  ``ATTACH``, transaction control, schema changes and setting pragmas (``foreign_keys = ON`` aside).
  Outside a call (the app's import-time ``create_all``) connections go to a scratch in-memory database.
- **Each call is an ASGI request** to the app, made in-process (no server, no socket): our arguments
  are mapped onto the endpoint's path, query and JSON-body parameters as fastapi-mcp does, so FastAPI
  validates them and runs the dependencies exactly as under AWM's server.
- **Schemas** come from the app's OpenAPI document: path, query and body properties merged into one
  object (``$ref``s inlined), the description from the summary and description.
- **Every AWM tool is a write tool** (``write=True``), whatever its HTTP method: AWM's GET routes
  sometimes write, and a write tool is what gets a transaction and change capture
  (``Db.raw_connection``), so such a write shows in the step's diff instead of failing. The cost: a
  read that changes nothing sets the ``noop`` channel (weight 0 in the default reward).
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import contextvars
import hashlib
import importlib
import itertools
import json
import re
import sqlite3
import sys
import threading
import types
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from pydantic import BaseModel, ConfigDict, create_model

from awm.errors import ImportedCodeError, ToolError
from awm.importers.appcheck import (
    APP_MODULES,
    FORBIDDEN_APP_NAMES,
    FORBIDDEN_METHODS,
    FORBIDDEN_NAMES,
    GUARDED_BUILTINS,
    check_app_code,
)
from awm.tooling import Db, ToolDef, strip_titles

__all__ = ["ImportedCodeError", "awm_tools", "check_app_code"]

INSTALL_HINT = "install awm-gym[awm] (sqlalchemy) to run imported AWM environments"
MAX_ERROR = 500  # characters of an error detail shown to the agent
_TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")

_LOCK = threading.RLock()  # one app call (or app import) at a time in this process
_current: sqlite3.Connection | None = None  # the connection of the episode whose tool is running
_clock: datetime | None = None  # and its frozen clock
_apps: dict[str, _App] = {}  # content hash -> loaded app
_savepoints = itertools.count()
_thread = threading.local()
_helper: ThreadPoolExecutor | None = None


@dataclass(frozen=True)
class _Endpoint:
    name: str
    method: str
    path: str
    path_params: frozenset[str]
    query_params: frozenset[str]
    body_params: frozenset[str]
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class _App:
    asgi: Any
    endpoints: dict[str, _Endpoint]


# -- public ------------------------------------------------------------------------------------------
def awm_tools(env_dir: Path, module_name: str) -> dict[str, Callable[..., Any]]:
    """One tool function per endpoint of ``env_dir/awm_app.py`` (each carries ``__awm_tool__``)."""
    source_path = Path(env_dir) / "awm_app.py"
    try:
        source = source_path.read_text(encoding="utf-8")
    except OSError as e:
        raise ImportedCodeError(f"cannot read {source_path.name}: {e}") from e
    problems = check_app_code(source)
    if problems:
        raise ImportedCodeError(f"{source_path.name} fails the static check: " + "; ".join(problems[:10]))
    try:
        importlib.import_module("sqlalchemy")
    except ImportError as e:
        raise ImportedCodeError(INSTALL_HINT) from e
    app = _load(source, str(source_path))
    return {name: _tool_function(app, ep, module_name) for name, ep in app.endpoints.items()}


# -- loading -----------------------------------------------------------------------------------------
def _load(source: str, filename: str) -> _App:
    digest = hashlib.sha256(source.encode()).hexdigest()
    with _LOCK:
        if digest in _apps:
            return _apps[digest]
        name = f"_awm_app_{digest[:16]}"
        module = types.ModuleType(name)
        module.__dict__["__builtins__"] = _builtins()
        module.__file__ = filename
        sys.modules[name] = module  # pydantic and SQLAlchemy resolve annotations through sys.modules
        module.__dict__[CLOCK_NOW] = _clock_now
        module.__dict__[CLOCK_TODAY] = _clock_today
        try:
            code = builtins.compile(_freeze_clock(source, filename), filename, "exec")
            builtins.exec(code, module.__dict__)  # checked code, restricted import and builtins
        except Exception as e:
            sys.modules.pop(name, None)
            raise ImportedCodeError(f"awm_app.py does not import: {type(e).__name__}: {e}") from e
        from fastapi import FastAPI

        asgi = next((v for v in vars(module).values() if isinstance(v, FastAPI)), None)
        if asgi is None:
            raise ImportedCodeError("awm_app.py defines no FastAPI app")
        try:
            endpoints = _endpoints(asgi)
        except Exception as e:
            raise ImportedCodeError(f"awm_app.py: cannot read its endpoints: {type(e).__name__}: {e}") from e
        if not endpoints:
            raise ImportedCodeError("awm_app.py has no endpoint with an operation_id")
        _inline_threads()
        _apps[digest] = _App(asgi, endpoints)
        return _apps[digest]


CLOCK_NOW, CLOCK_TODAY = "_awm_clock_now", "_awm_clock_today"
_CLOCK_ATTRS = {"now": CLOCK_NOW, "utcnow": CLOCK_NOW, "today": CLOCK_NOW}


class _FreezeClock(ast.NodeTransformer):
    """``datetime.now()``, ``datetime.utcnow()``, ``datetime.today()``, ``date.today()`` (also referenced
    uncalled, as in ``default=datetime.utcnow``, and through ``datetime.datetime``) read the world's frozen
    clock, so an imported app is deterministic like our own tools (the clock of the running episode)."""

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        owner = node.value
        name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else None
        if node.attr in _CLOCK_ATTRS and name in ("datetime", "date"):
            target = CLOCK_TODAY if (name == "date" and node.attr == "today") else _CLOCK_ATTRS[node.attr]
            return ast.copy_location(ast.Name(id=target, ctx=ast.Load()), node)
        return node


def _freeze_clock(source: str, filename: str) -> ast.Module:
    tree = ast.parse(source, filename)
    return ast.fix_missing_locations(_FreezeClock().visit(tree))


def _clock_now(tz: Any = None) -> datetime:
    """The running episode's frozen clock (naive, as our worlds' clocks are); with ``tz``, that zone."""
    now = _clock if _clock is not None else datetime(2026, 1, 1)
    return now.replace(tzinfo=tz) if tz is not None else now


def _clock_today() -> date:
    return _clock_now().date()


def _builtins() -> dict[str, Any]:
    safe = {k: v for k, v in vars(builtins).items() if k not in _DENIED_BUILTINS}
    safe["__import__"] = _import
    safe["getattr"] = _guarded(getattr)
    safe["setattr"] = _guarded(setattr)
    safe["hasattr"] = _guarded(hasattr)
    return safe


# by name at run time too (not FORBIDDEN_ATTRIBUTES' module names: data columns may share them)
_FORBIDDEN_AT_RUN_TIME = FORBIDDEN_APP_NAMES | FORBIDDEN_METHODS | {"create_engine"}
_DENIED_BUILTINS = (FORBIDDEN_NAMES - {"__builtins__", "__loader__", "__spec__"}) | GUARDED_BUILTINS


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``getattr``/``setattr``/``hasattr`` that reach no private attribute and none the static check forbids
    by name (a name built at run time cannot slip past it)."""

    def guarded(obj: Any, name: str, *rest: Any) -> Any:
        if not isinstance(name, str) or name.startswith("_") or name in _FORBIDDEN_AT_RUN_TIME:
            raise AttributeError(f"{fn.__name__}() of attribute {name!r} is not allowed")
        return fn(obj, name, *rest)

    guarded.__name__ = fn.__name__
    return guarded


def _import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> types.ModuleType:
    root = name.split(".")[0]
    if level or root not in APP_MODULES:
        raise ImportError(f"import of {name!r} is not allowed in imported AWM code")
    if root == "os":
        return _OS
    if root == "uvicorn":
        return _UVICORN
    module = importlib.import_module(name)
    if name == "sqlalchemy" or (root == "sqlalchemy" and not fromlist):
        return _SQLALCHEMY
    return module if fromlist else importlib.import_module(root)


def _stub_os() -> types.ModuleType:
    os_stub = types.ModuleType("os")
    env = {"DATABASE_PATH": ":memory:", "DATABASE_URL": "sqlite://", "HOST": "127.0.0.1", "PORT": "8001"}
    os_stub.environ = env  # type: ignore[attr-defined]
    os_stub.getenv = env.get  # type: ignore[attr-defined]
    return os_stub


def _stub_uvicorn() -> types.ModuleType:
    stub = types.ModuleType("uvicorn")
    stub.run = lambda *args, **kwargs: None  # type: ignore[attr-defined]
    return stub


class _SqlAlchemyFacade(types.ModuleType):
    """``sqlalchemy`` as the app sees it: the real package, with ``create_engine`` bound to the episode."""

    def __getattr__(self, name: str) -> Any:
        if name == "create_engine":
            return _create_engine
        return getattr(importlib.import_module("sqlalchemy"), name)


_OS = _stub_os()
_UVICORN = _stub_uvicorn()
_SQLALCHEMY = _SqlAlchemyFacade("sqlalchemy")
_engine: Any = None


def _create_engine(*_args: Any, **_kwargs: Any) -> Any:
    """Whatever URL the app asks for: the one engine bound to the running episode's connection."""
    global _engine
    with _LOCK:
        if _engine is None:
            from sqlalchemy import create_engine
            from sqlalchemy.pool import NullPool

            _engine = create_engine("sqlite://", creator=_connect, poolclass=NullPool, pool_reset_on_return=None)
        return _engine


def _connect() -> _Connection:
    conn = _current
    if conn is None:  # import time (``create_all``): a throwaway database
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    return _Connection(conn)


class _Connection:
    """A DB-API connection proxy whose commit/rollback/close work on a SAVEPOINT inside our call."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn
        self._name = f"awm_app_{next(_savepoints)}"
        self._open = False
        self._begin()

    def _begin(self) -> None:
        self._conn.execute(f"SAVEPOINT {self._name}")
        self._open = True

    def commit(self) -> None:
        if self._open:
            self._conn.execute(f"RELEASE {self._name}")
        self._begin()

    def rollback(self) -> None:
        if self._open:
            self._conn.execute(f"ROLLBACK TO {self._name}")

    def close(self) -> None:
        if self._open:
            self._conn.execute(f"ROLLBACK TO {self._name}")
            self._conn.execute(f"RELEASE {self._name}")
            self._open = False

    def cursor(self, *args: Any) -> sqlite3.Cursor:
        return self._conn.cursor(*args)

    def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._conn.create_function(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name in ("set_authorizer", "deserialize", "serialize", "backup", "enable_load_extension", "interrupt"):
            raise AttributeError(name)
        return getattr(self._conn, name)


# -- endpoints and schemas ---------------------------------------------------------------------------
def _endpoints(app: Any) -> dict[str, _Endpoint]:
    from fastapi.routing import APIRoute

    spec = app.openapi()
    components = spec.get("components", {}).get("schemas", {})
    out: dict[str, _Endpoint] = {}
    for route in app.routes:
        if not isinstance(route, APIRoute) or not route.operation_id:
            continue
        name = re.sub(r"[^A-Za-z0-9_]", "_", route.operation_id)
        if not _TOOL_NAME.match(name) or name in out:
            continue
        method = sorted(route.methods or {"GET"})[0]
        op = spec.get("paths", {}).get(route.path_format, {}).get(method.lower(), {})
        properties: dict[str, Any] = {}
        required: list[str] = []
        path_params: set[str] = set()
        query_params: set[str] = set()
        for p in op.get("parameters", []):
            if p.get("in") not in ("path", "query"):
                continue
            (path_params if p["in"] == "path" else query_params).add(p["name"])
            schema = dict(_inline(p.get("schema", {}), components))
            if p.get("description"):
                schema.setdefault("description", p["description"])
            properties[p["name"]] = schema
            if p.get("required"):
                required.append(p["name"])
        body_params: set[str] = set()
        body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        if body is not None:
            body = _inline(body, components)
            for k, v in body.get("properties", {}).items():
                properties.setdefault(k, v)
                body_params.add(k)
            required += [r for r in body.get("required", []) if r not in required]
        parameters: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        if required:
            parameters["required"] = required
        text = [t for t in (op.get("summary") or route.summary, op.get("description") or route.description) if t]
        description = "\n\n".join(dict.fromkeys(text)) or name.replace("_", " ")
        out[name] = _Endpoint(
            name,
            method,
            route.path_format,
            frozenset(path_params),
            frozenset(query_params),
            frozenset(body_params),
            description,
            strip_titles(parameters),
        )
    return out


def _inline(schema: Any, components: Mapping[str, Any], depth: int = 0) -> Any:
    """``schema`` with ``#/components/schemas/...`` references replaced by their targets."""
    if isinstance(schema, list):
        return [_inline(s, components, depth) for s in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        if depth > 8:
            return {}
        target = components.get(ref.rsplit("/", 1)[1], {})
        return _inline({**target, **{k: v for k, v in schema.items() if k != "$ref"}}, components, depth + 1)
    return {k: _inline(v, components, depth) for k, v in schema.items()}


# -- tools -------------------------------------------------------------------------------------------
class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


_UNSET: Any = _Unset()


def _tool_function(app: _App, ep: _Endpoint, module_name: str) -> Callable[..., Any]:
    def run(db: Db, **arguments: Any) -> Any:
        return _call(app, ep, db, {k: v for k, v in arguments.items() if v is not _UNSET})

    run.__name__ = run.__qualname__ = ep.name
    run.__module__ = module_name
    run.__doc__ = ep.description
    required = set(ep.parameters.get("required", ()))
    # FastAPI validates the values; our model only rejects unknown and missing arguments
    fields: dict[str, Any] = {p: (Any, ... if p in required else _UNSET) for p in ep.parameters["properties"]}
    model: type[BaseModel] = create_model(f"{ep.name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    run.__awm_tool__ = ToolDef(ep.name, run, True, ep.description, model, ep.parameters)  # type: ignore[attr-defined]
    return run


def _call(app: _App, ep: _Endpoint, db: Db, arguments: dict[str, Any]) -> Any:
    global _current
    path = ep.path
    for name in ep.path_params:
        if name in arguments:
            path = path.replace("{" + name + "}", quote(str(_scalar(arguments[name])), safe=""))
    query = [(k, _scalar(v)) for k, v in arguments.items() if k in ep.query_params]
    query_items = [(k, item) for k, v in query for item in (v if isinstance(v, list) else [v])]
    body = {k: v for k, v in arguments.items() if k in ep.body_params}
    payload = json.dumps(body).encode() if ep.body_params else b""
    global _clock
    with _LOCK:
        conn = db.raw_connection()
        _current, _clock = conn, db.now()
        conn.set_authorizer(_authorize)
        try:
            status, content, error = _run(_request(app.asgi, ep.method, path, urlencode(query_items), payload))
        finally:
            conn.set_authorizer(None)
            _current, _clock = None, None
    if error is not None:
        _raise_for(error)
    text = content.decode("utf-8", "replace")
    try:
        result = json.loads(text) if text else None
    except json.JSONDecodeError:
        result = text
    if status >= 400:
        raise ToolError(f"{ep.name} failed (HTTP {status}): {_detail(result)}")
    return result


def _scalar(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return [_scalar(v) for v in value]
    return value


def _detail(result: Any) -> str:
    detail = result.get("detail", result) if isinstance(result, dict) else result
    if isinstance(detail, list):  # FastAPI's validation errors
        parts = []
        for e in detail:
            if isinstance(e, dict):
                loc = ".".join(str(x) for x in e.get("loc", ())[1:]) or "arguments"
                parts.append(f"{loc}: {e.get('msg', e)}")
        detail = "invalid arguments: " + "; ".join(parts) if parts else detail
    text = detail if isinstance(detail, str) else json.dumps(detail, default=str)
    return text[:MAX_ERROR]


def _raise_for(error: BaseException) -> None:
    orig = getattr(error, "orig", None)  # SQLAlchemy wraps the driver's error
    if isinstance(orig, sqlite3.OperationalError) and "interrupted" in str(orig):
        raise orig  # the episode's SQLite time limit: reported as a timeout
    if isinstance(orig, sqlite3.IntegrityError):
        raise ToolError(f"the database rejected the change: {orig}") from error
    shown = orig if isinstance(orig, BaseException) else error
    message = str(shown).splitlines()[0] if str(shown) else ""
    raise ToolError(f"the environment's code raised {type(shown).__name__}: {message[:MAX_ERROR]}") from error


async def _request(
    asgi: Any, method: str, path: str, query: str, body: bytes
) -> tuple[int, bytes, BaseException | None]:
    headers = [(b"host", b"awm.local"), (b"content-length", str(len(body)).encode())]
    if body:
        headers.append((b"content-type", b"application/json"))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query.encode(),
        "headers": headers,
        "client": ("127.0.0.1", 0),
        "server": ("awm.local", 80),
    }
    sent = False
    status = 500
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    _RUN_INLINE.set(True)  # this task's context only
    try:
        await asgi(scope, receive, send)
    except Exception as e:  # the app's own error: Starlette sent a 500 and re-raised it
        return status, b"".join(chunks), e
    return status, b"".join(chunks), None


_RUN_INLINE: contextvars.ContextVar[bool] = contextvars.ContextVar("awm_app_inline", default=False)
_patched = False


def _inline_threads() -> None:
    """Make ``anyio.to_thread.run_sync`` run inline inside our app calls (only there: a context variable).

    FastAPI sends sync endpoints and ``yield`` dependencies (AWM's ``get_db``) to a worker thread, about
    eight thread hops per call; our private loop runs one request at a time, so inline is equivalent
    and several times faster. Every other caller (``awm serve``'s own routes) is unaffected."""
    global _patched
    if _patched:
        return
    import anyio.to_thread

    real = anyio.to_thread.run_sync

    async def run_sync(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if _RUN_INLINE.get():
            return func(*args)
        return await real(func, *args, **kwargs)

    anyio.to_thread.run_sync = run_sync  # type: ignore[assignment]
    _patched = True


def _run(coro: Any) -> Any:
    """Run a coroutine to completion on this thread's loop (or a helper thread's, inside a running loop)."""
    global _helper
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _thread_loop().run_until_complete(coro)
    if _helper is None:
        _helper = ThreadPoolExecutor(1, thread_name_prefix="awm-app")
    return _helper.submit(lambda: _thread_loop().run_until_complete(coro)).result()


def _thread_loop() -> asyncio.AbstractEventLoop:
    loop = getattr(_thread, "loop", None)
    if loop is None or loop.is_closed():
        loop = _thread.loop = asyncio.new_event_loop()
    return loop


# -- SQL the app may run during a call ---------------------------------------------------------------
_ALLOWED_ACTIONS = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_INSERT,
    sqlite3.SQLITE_UPDATE,
    sqlite3.SQLITE_DELETE,
    sqlite3.SQLITE_RECURSIVE,
    sqlite3.SQLITE_SAVEPOINT,
}
_DENIED_FUNCTIONS = {"load_extension", "random", "randomblob", "readfile", "writefile", "edit", "fts3_tokenizer"}


def _authorize(action: int, arg1: str | None, arg2: str | None, dbname: str | None, _source: str | None) -> int:
    if dbname not in (None, "main", "temp"):
        return sqlite3.SQLITE_DENY
    if action in _ALLOWED_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION:
        return sqlite3.SQLITE_DENY if (arg2 or "").lower() in _DENIED_FUNCTIONS else sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA:
        if arg2 is None or ((arg1 or "").lower() == "foreign_keys" and arg2.lower() in ("on", "1", "true")):
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_IGNORE  # a setting the app may not change: a silent no-op
    return sqlite3.SQLITE_DENY
