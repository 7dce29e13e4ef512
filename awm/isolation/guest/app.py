"""An AWM app (FastAPI + SQLAlchemy, ``awm_app.py``) inside the worker: load it, list its tools, serve a call.

Loading runs the app's module as AWM's server does (its own ``__name__``, so ``uvicorn.run`` under
``if __name__ == "__main__"`` never runs; ``uvicorn.run`` is a no-op anyway) with every
``create_engine`` bound to ours. At load time the engine is a private in-memory database (for
``create_all``); during a call it is ``RemoteConnection``: the parent's episode database. Tools are
the routes' OpenAPI ``operationId`` (FastAPI's generated id for a route without ``operation_id``,
which is what fastapi-mcp names the tool); a call is one in-process ASGI request whose arguments are
mapped onto path, query and JSON body as fastapi-mcp maps them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
import sys
import types
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode

import determinism
from dbproxy import Exchange, Notify, RemoteConnection

_TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,127}$")
_remote: tuple[Exchange, Notify] | None = None  # set while a call runs
_app: Any = None
_endpoints: dict[str, dict[str, Any]] = {}
_loop: asyncio.AbstractEventLoop | None = None
_engines: list[Any] = []  # every engine the app made: their load-time connections are dropped after loading


_load_db: sqlite3.Connection | None = None  # import time: a private copy of the schema


def _creator() -> Any:
    if _remote is None:  # import time (``create_all``): a private database holding the world's schema
        if _load_db is None:
            return sqlite3.connect(":memory:", check_same_thread=False)
        return _Unclosable(_load_db)
    return RemoteConnection(*_remote)


class _Unclosable:
    """The load-time database, shared by every connection the app opens while it loads."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    def close(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _patch_libraries() -> None:
    import anyio.to_thread
    import sqlalchemy
    import sqlalchemy.engine

    real = sqlalchemy.create_engine

    def create_engine(*_args: Any, **_kwargs: Any) -> Any:
        engine = real("sqlite://", creator=_creator)  # pooled, as AWM's file engine: a connection is reused
        _engines.append(engine)
        return engine

    sqlalchemy.create_engine = create_engine
    sqlalchemy.engine.create_engine = create_engine

    async def run_sync(func: Any, *args: Any, **_kwargs: Any) -> Any:
        return func(*args)  # one request at a time: inline is equivalent, and no thread hops

    anyio.to_thread.run_sync = run_sync  # type: ignore[assignment]
    try:
        import uvicorn

        uvicorn.run = lambda *a, **k: None
    except ImportError:
        stub = types.ModuleType("uvicorn")
        stub.run = lambda *a, **k: None  # type: ignore[attr-defined]
        sys.modules["uvicorn"] = stub


def load(source: str, filename: str, schema: str = "") -> tuple[list[dict[str, Any]], list[str]]:
    """Run the app's module; returns its tools (name, description, parameters, and how to call it) and the
    SQL its start-up ran on the world's schema (``create_all`` adding a table the schema lacks: AWM's server
    runs it on the working database, so every episode starts with that table)."""
    global _app, _endpoints, _load_db
    _patch_libraries()
    _load_db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    with contextlib.suppress(sqlite3.Error):  # what the importer wrote executes; if not, start on what did
        _load_db.executescript(schema)
    before = {r[0] for r in _load_db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")}
    from fastapi import FastAPI

    module = types.ModuleType("awm_app")
    module.__file__ = filename
    sys.modules["awm_app"] = module  # pydantic and SQLAlchemy resolve annotations through sys.modules
    module.__dict__.update(determinism.clock_names())
    exec(determinism.compile_frozen(source, filename), module.__dict__)
    created = [
        r[0]
        for r in _load_db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        if r[0] not in before
    ]
    for engine in _engines:
        engine.dispose()  # calls must never reach the private load-time database
    _load_db = None
    _app = next((v for v in vars(module).values() if isinstance(v, FastAPI)), None)
    if _app is None:
        raise RuntimeError("awm_app.py defines no FastAPI app")
    _endpoints = _read_endpoints(_app)
    if not _endpoints:
        raise RuntimeError("awm_app.py has no route that can be a tool")
    tools = [
        {"name": n, "description": e["description"], "parameters": e["parameters"], "method": e["method"]}
        for n, e in _endpoints.items()
    ]
    return tools, created


def _read_endpoints(app: Any) -> dict[str, dict[str, Any]]:
    from fastapi.routing import APIRoute

    spec = app.openapi()
    components = spec.get("components", {}).get("schemas", {})
    out: dict[str, dict[str, Any]] = {}
    for route in app.routes:
        if not isinstance(route, APIRoute):
            continue
        for method in sorted(route.methods or {"GET"}):
            op = spec.get("paths", {}).get(route.path_format, {}).get(method.lower())
            if not op or not op.get("operationId"):
                continue
            name = re.sub(r"\W", "_", op["operationId"])
            if not _TOOL_NAME.match(name) or name in out:
                continue
            properties: dict[str, Any] = {}
            required: list[str] = []
            where: dict[str, str] = {}
            for p in op.get("parameters", []):
                if p.get("in") not in ("path", "query"):
                    continue
                where[p["name"]] = p["in"]
                schema = dict(_inline(p.get("schema", {}), components))
                if p.get("description"):
                    schema.setdefault("description", p["description"])
                properties[p["name"]] = schema
                if p.get("required"):
                    required.append(p["name"])
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body is not None:
                body = _inline(body, components)
                for k, v in body.get("properties", {}).items():
                    properties.setdefault(k, v)
                    where.setdefault(k, "body")
                required += [r for r in body.get("required", []) if r not in required]
            parameters: dict[str, Any] = {"type": "object", "properties": properties}
            if required:
                parameters["required"] = required
            text = [t for t in (op.get("summary"), op.get("description")) if t]
            out[name] = {
                "method": method,
                "path": route.path_format,
                "where": where,
                "has_body": body is not None,
                "description": "\n\n".join(dict.fromkeys(text)) or name.replace("_", " "),
                "parameters": parameters,
            }
    return out


def _inline(schema: Any, components: Mapping[str, Any], depth: int = 0) -> Any:
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


def _scalar(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return [_scalar(v) for v in value]
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return value


def call(tool: str, arguments: dict[str, Any], exchange: Exchange, notify: Notify) -> dict[str, Any]:
    """One request to the app: ``{"status", "body", "error"}`` (error: the app's own exception, if any)."""
    global _remote, _loop
    ep = _endpoints.get(tool)
    if ep is None:
        return {"status": 404, "body": json.dumps({"detail": f"no tool {tool!r}"}), "error": None}
    path = ep["path"]
    query: list[tuple[str, Any]] = []
    body: dict[str, Any] = {}
    for k, v in arguments.items():
        place = ep["where"].get(k)
        if place == "path":
            path = path.replace("{" + k + "}", quote(str(_scalar(v)), safe=""))
        elif place == "query":
            s = _scalar(v)
            query += [(k, item) for item in s] if isinstance(s, list) else [(k, s)]
        elif place == "body":
            body[k] = v
    payload = json.dumps(body).encode() if ep["has_body"] else b""
    _remote = (exchange, notify)
    if _loop is None:
        _loop = asyncio.new_event_loop()
    try:
        status, content, error = _loop.run_until_complete(
            _request(ep["method"], path, urlencode(query, doseq=False), payload)
        )
    finally:
        _remote = None
    return {"status": status, "body": content.decode("utf-8", "replace"), "error": error}


async def _request(method: str, path: str, query: str, body: bytes) -> tuple[int, bytes, str | None]:
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

    try:
        await _app(scope, receive, send)
    except Exception as e:  # the app's own error: Starlette sent a 500 and re-raised it
        orig = getattr(e, "orig", None)  # SQLAlchemy wraps the driver's error
        shown = orig if isinstance(orig, BaseException) else e
        first = str(shown).splitlines()[0] if str(shown) else ""
        return status, b"".join(chunks), f"{type(shown).__name__}: {first}"[:500]
    return status, b"".join(chunks), None
