"""A generated environment's ``tools.py`` inside the worker: load it, list its tools, run a call.

The worker sees ``awm.tooling`` and ``awm.errors`` only (the package folder is bound read-only at
``/awm-pkg/awm`` and imported without running ``awm/__init__``). Tools get a ``RemoteDb``: the same
methods as ``awm.tooling.Db``, each one a message to the parent, which runs it on the episode's real
``Db`` (its statement plans, write permission, change capture, authorizer and time limit).
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
import sys
import types
from collections.abc import Mapping, Sequence
from typing import Any

import determinism
from protocol import decode_tree, encode_value

PKG_ROOT = "/awm-pkg"
_tools: dict[str, Any] = {}
_exchange: Any = None


def _awm_shim() -> None:
    """``import awm.tooling`` without ``awm/__init__`` (which would load the whole package and the catalog)."""
    if "awm" not in sys.modules:
        pkg = types.ModuleType("awm")
        pkg.__path__ = [f"{PKG_ROOT}/awm"]
        sys.modules["awm"] = pkg


def _raise(error: Mapping[str, Any]) -> None:
    from awm.errors import ToolDefinitionError, ToolError

    kind, message = str(error.get("type")), str(error.get("message", ""))
    if kind == "ToolError":
        raise ToolError(message)
    if kind == "ToolDefinitionError":
        raise ToolDefinitionError(message)
    raise getattr(sqlite3, kind, sqlite3.DatabaseError)(message)


def _params(params: Any) -> Any:
    if isinstance(params, Mapping):
        return {str(k): encode_value(_scalar(v)) for k, v in params.items()}
    return [encode_value(_scalar(v)) for v in params or ()]


def _scalar(value: Any) -> Any:
    if isinstance(value, _dt.datetime):
        return value.isoformat(" ")
    if isinstance(value, _dt.date):
        return value.isoformat()
    return value


class RemoteDb:
    """``awm.tooling.Db`` as a generated tool sees it inside the worker."""

    def _ask(self, method: str, **fields: Any) -> Any:
        reply = _exchange({"op": "db", "method": method, **fields})
        if "error" in reply:
            _raise(reply["error"])
        return decode_tree(reply.get("value"))

    def now(self) -> _dt.datetime:
        return determinism.clock_now()

    def today(self) -> _dt.date:
        return determinism.clock_today()

    def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[dict[str, Any]]:
        return self._ask("query", sql=sql, params=_params(params))

    def one(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, missing: str | None = None
    ) -> dict[str, Any] | None:
        row = self._ask("one", sql=sql, params=_params(params))
        if row is None and missing is not None:
            from awm.errors import ToolError

            raise ToolError(missing)
        return row

    def none(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, found: str) -> None:
        if self._ask("one", sql=sql, params=_params(params)) is not None:
            from awm.errors import ToolError

            raise ToolError(found)

    def value(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> Any:
        return self._ask("value", sql=sql, params=_params(params))

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> int:
        return int(self._ask("execute", sql=sql, params=_params(params)))

    def insert(self, table: str, values: Mapping[str, Any]) -> int:
        encoded = {str(k): encode_value(_scalar(v)) for k, v in values.items()}
        return int(self._ask("insert", table=table, values=encoded))

    def raw_connection(self) -> Any:
        from awm.errors import ToolDefinitionError

        raise ToolDefinitionError("raw_connection() is not available to generated tools")


def load(source: str, module_name: str) -> list[dict[str, Any]]:
    """Run ``tools.py``; returns each ``@tool``'s name, description, write flag, JSON Schema and actor."""
    _awm_shim()
    from awm.tooling import ToolDef

    module = types.ModuleType(module_name)
    module.__file__ = "tools.py"
    sys.modules[module_name] = module
    module.__dict__.update(determinism.clock_names())
    exec(determinism.compile_frozen(source, "tools.py"), module.__dict__)
    for obj in vars(module).values():
        td = getattr(obj, "__awm_tool__", None)
        if isinstance(td, ToolDef) and getattr(obj, "__module__", None) == module_name:
            _tools[td.name] = td
    return [
        {
            "name": td.name,
            "description": td.description,
            "write": td.write,
            "parameters": td.parameters,
            "actor": td.actor,
        }
        for td in _tools.values()
    ]


def call(tool: str, arguments: dict[str, Any], exchange: Any) -> dict[str, Any]:
    """``{"result"}``, ``{"invalid": errors}`` (pydantic's), ``{"tool_error": message}`` or ``{"error": ...}``."""
    global _exchange
    from pydantic import ValidationError

    from awm.errors import ToolDefinitionError, ToolError

    td = _tools.get(tool)
    if td is None:
        return {"tool_error": f"unknown tool {tool!r}"}
    try:
        kwargs = td.validate(arguments)
    except ValidationError as e:
        return {"invalid": json.loads(e.json(include_url=False))}
    _exchange = exchange
    try:
        result = td.fn(RemoteDb(), **kwargs)
        json.dumps(result)
    except ToolError as e:
        return {"tool_error": str(e) or "the tool refused the request"}
    except sqlite3.IntegrityError as e:
        return {"integrity": str(e)[:2000]}
    except ToolDefinitionError as e:
        return {"definition_error": str(e)[:2000]}
    except Exception as e:
        if isinstance(e, sqlite3.OperationalError) and "interrupted" in str(e):
            return {"interrupted": True}
        return {"error": {"type": type(e).__name__, "message": str(e)[:2000]}}
    finally:
        _exchange = None
    return {"result": result}
