"""Tools of an untrusted bundle (``Manifest.trusted`` false: generated code until a person reviews it), sandboxed.

``isolated_tools`` sends ``tools.py`` to a pool of workers keyed by its content hash; the first one
runs it and answers with each ``@tool``'s name, description, write flag and JSON Schema. Each tool
here is a ``ToolDef`` whose function is a request to a worker: the worker validates the arguments
with the tool's own pydantic model and calls it with a ``RemoteDb``; every ``db.query``/``one``/
``value``/``execute``/``insert`` comes back as a message and runs here on the episode's real ``Db``
(statement plans, read/write permission, change capture, the VM-step time limit), so the bundle's
code never holds the database, the judge, or anything of this process.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from awm.errors import (
    ImportedCodeError,
    IsolationError,
    ToolArgumentsError,
    ToolDefinitionError,
    ToolError,
    ToolTimeout,
    WorkerCrashed,
    WorkerTimeout,
)
from awm.isolation.arguments import given, open_model
from awm.isolation.guest.protocol import decode_tree, decode_value, encode_tree
from awm.isolation.pools import get_pool
from awm.isolation.sandbox import INSTALL_HINT, Limits, available
from awm.isolation.worker import Pool, Worker
from awm.tooling import Db, ToolDef, strip_titles

LIMITS = Limits()
MAX_ERROR = 500
_METHODS = frozenset({"query", "one", "value", "execute", "insert"})
_cache: dict[str, tuple[Pool, list[dict[str, Any]]]] = {}
_loading: dict[str, threading.Lock] = {}
_lock = threading.Lock()


@dataclass
class _Call:
    db: Db
    interrupted: bool = False


def isolated_tools(tools_path: Path, module_name: str) -> dict[str, ToolDef]:
    """``tools.py``'s tools, each running in a sandboxed worker. Raises ``ImportedCodeError`` when it cannot load."""
    source = Path(tools_path).read_text(encoding="utf-8")
    if not available():
        raise ImportedCodeError(INSTALL_HINT)
    pool, specs = _load(source, module_name)
    return {s["name"]: _tool_def(pool, s) for s in specs}


def _load(source: str, module_name: str) -> tuple[Pool, list[dict[str, Any]]]:
    digest = hashlib.sha256(source.encode()).hexdigest()
    with _lock:  # one lock per tools.py: a slow or hostile one's start never holds up another's
        lock = _loading.setdefault(digest, threading.Lock())
    with lock:
        if digest in _cache:
            return _cache[digest]
        loaded: list[dict[str, Any]] = []

        def setup(worker: Worker) -> None:
            reply = worker.request({"op": "load", "source": source, "module": module_name}, timeout=LIMITS.start_s)
            if reply.get("error"):
                raise ImportedCodeError(f"tools.py does not import: {reply['error']}")
            if not loaded:
                loaded.extend(_valid_specs(reply.get("tools")))

        pool = get_pool("tools", digest, LIMITS, setup)
        try:
            pool.warm()
        except (WorkerTimeout, WorkerCrashed) as e:
            raise ImportedCodeError(f"tools.py could not be loaded in its sandbox: {e}") from e
        _cache[digest] = (pool, loaded)
        return pool, loaded


def _valid_specs(tools: Any) -> list[dict[str, Any]]:
    out = []
    for t in tools if isinstance(tools, list) else []:
        if not isinstance(t, dict) or not isinstance(t.get("name"), str) or not isinstance(t.get("parameters"), dict):
            continue
        props = t["parameters"].get("properties")
        if not isinstance(props, dict):
            continue
        required = [r for r in t["parameters"].get("required") or [] if isinstance(r, str) and r in props]
        description = t.get("description") if isinstance(t.get("description"), str) else t["name"]
        params = {k: v for k, v in t["parameters"].items() if k != "required"}
        if required:
            params["required"] = required
        actor = t.get("actor")  # the acting person's parameter: one of the tool's required arguments
        out.append(
            {
                "name": t["name"],
                "write": t.get("write") is True,
                "description": description,
                "parameters": strip_titles(params),
                "actor": actor if isinstance(actor, str) and actor in required else None,
            }
        )
    return out


def _tool_def(pool: Pool, spec: dict[str, Any]) -> ToolDef:
    name = spec["name"]

    def run(db: Db, **arguments: Any) -> Any:
        return _call(pool, name, db, arguments)

    run.__name__ = run.__qualname__ = name
    run.__doc__ = spec["description"]
    model = open_model(name, spec["parameters"])  # types: the tool's own model, in the worker
    return ToolDef(name, run, spec["write"], spec["description"], model, spec["parameters"], spec.get("actor"))


def _call(pool: Pool, tool: str, db: Db, arguments: dict[str, Any]) -> Any:
    state = _Call(db)
    request = {
        "op": "call",
        "tool": tool,
        "arguments": given(arguments),
        "clock": db.now().isoformat(),
        "seed": db.seed * 1_000_003 + db.step,
    }
    try:
        reply = pool.request(request, handler=lambda m: _serve(state, m), timeout=LIMITS.call_s)
    except WorkerTimeout as e:
        raise ToolTimeout(f"{tool} did not finish within {LIMITS.call_s:g} s and was stopped") from e
    except IsolationError as e:
        raise RuntimeError(f"{tool}: the environment's code crashed its worker ({str(e)[:MAX_ERROR]})") from e
    if state.interrupted or reply.get("interrupted"):
        raise sqlite3.OperationalError("interrupted")  # the episode reports its timeout
    if "result" in reply:
        return decode_tree(reply["result"])
    if isinstance(reply.get("invalid"), list):
        parts = []
        for item in reply["invalid"][:5]:
            if isinstance(item, dict):
                loc = ".".join(str(x) for x in item.get("loc") or ()) or "arguments"
                parts.append(f"argument {loc!r}: {item.get('msg', '')}")
        raise ToolArgumentsError(f"invalid arguments for {tool}: " + "; ".join(parts))
    if isinstance(reply.get("tool_error"), str):
        raise ToolError(reply["tool_error"][:2000])
    if isinstance(reply.get("integrity"), str):
        raise sqlite3.IntegrityError(reply["integrity"][:MAX_ERROR])
    if isinstance(reply.get("definition_error"), str):
        raise ToolDefinitionError(reply["definition_error"][:MAX_ERROR])
    raise _guest_exception(reply.get("error"))


class SandboxedError(RuntimeError):
    """An exception raised by sandboxed code; its class is named after the one the code raised."""


def _guest_exception(error: Any) -> Exception:
    """The worker's exception as one here (a subclass of ``SandboxedError`` named like the original)."""
    kind, message = "Exception", str(error)
    if isinstance(error, dict):
        kind, message = str(error.get("type")), str(error.get("message", ""))
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,39}", kind):
        kind = "Exception"
    return type(kind, (SandboxedError,), {})(message[:MAX_ERROR])


def _serve(state: _Call, message: dict[str, Any]) -> dict[str, Any]:
    """One ``db.<method>(...)`` of a sandboxed tool, run on the episode's real ``Db``."""
    if message.get("op") != "db" or message.get("method") not in _METHODS:
        raise WorkerCrashed(f"unexpected message {str(message.get('op'))[:40]!r}")
    method = message["method"]
    db = state.db
    try:
        if method == "insert":
            table, values = message.get("table"), message.get("values")
            if not isinstance(table, str) or not isinstance(values, dict):
                raise ToolDefinitionError("insert needs a table name and an object of values")
            value: Any = db.insert(table, {str(k): _param(v) for k, v in values.items()})
        else:
            sql = message.get("sql")
            if not isinstance(sql, str) or len(sql) > 1 << 20:
                raise ToolDefinitionError("SQL must be a string of at most 1 MiB")
            params = message.get("params")
            bound: Any = (
                {str(k): _param(v) for k, v in params.items()}
                if isinstance(params, dict)
                else [_param(v) for v in params or []]
            )
            value = getattr(db, method)(sql, bound)
    except (ToolError, ToolDefinitionError, sqlite3.Error) as e:
        if "interrupted" in str(e):
            state.interrupted = True
        return {"error": {"type": type(e).__name__, "message": str(e)[:2000]}}
    return {"value": encode_tree(value)}


def _param(value: Any) -> Any:
    value = decode_value(value)
    if isinstance(value, (int, float, str, bytes, type(None))):
        return value
    raise ToolDefinitionError(f"a parameter of type {type(value).__name__} is not supported")


__all__ = ["isolated_tools"]
