"""A world builder (``envs/<env>/world.py`` of a bundle that is not trusted) inside the worker: build one world.

The worker sees ``awm.worldctx`` and ``awm.errors`` only (bound read-only at ``/awm-pkg/awm`` and imported
without ``awm/__init__``); ``awm.worldgen``, where builders import ``WorldContext`` from, is a shim that
holds the public names of ``awm.worldctx``. The builder's source arrives as raw bytes and is compiled as
the parent's import compiles it (its own ``__future__`` flags, its coding cookie, no rewrite), then
``build(ctx)`` runs with a real ``WorldContext``: the rows are those the trusted path builds.

The reply is one of ``{"tables"}`` (each row value a JSON scalar, or tagged: ``{"$b"}`` bytes,
``{"$date"}``/``{"$datetime"}`` ISO text, ``{"$json"}`` a list or object value, which the parent stores
as canonical JSON text), ``{"import_error"}``, ``{"no_build"}``, ``{"world_error"}`` (a
``WorldBuildError`` the builder or its context raised), ``{"build_error"}`` (any other exception),
``{"not_dict"}``, ``{"invalid"}`` (a shape the parent's ``SeedData`` would refuse, worded as pydantic
words it) or ``{"unsupported"}`` (a value that cannot leave the sandbox).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import sys
import types
from collections.abc import Iterable
from typing import Any

from protocol import encode_value

PKG_ROOT = "/awm-pkg"
_SCALARS = (str, int, float, bool, type(None))
_loaded: dict[tuple[str, str, str], Any] = {}


def _awm_shim() -> None:
    """``import awm.worldctx`` (and the ``awm.worldgen`` builders name) without the rest of the package."""
    if "awm" not in sys.modules:
        pkg = types.ModuleType("awm")
        pkg.__path__ = [f"{PKG_ROOT}/awm"]
        sys.modules["awm"] = pkg
    if "awm.worldgen" not in sys.modules:
        import awm.worldctx as ctx

        shim = types.ModuleType("awm.worldgen", "What a world builder may import (awm.worldctx's names).")
        for name in ctx.__all__:
            setattr(shim, name, getattr(ctx, name))
        shim.__all__ = list(ctx.__all__)  # type: ignore[attr-defined]
        sys.modules["awm.worldgen"] = shim
        sys.modules["awm"].worldgen = shim  # type: ignore[attr-defined]


_awm_shim()  # at start, before the first request: faker and its en_US providers load now

from awm.worldctx import Scale, WorldBuildError, WorldContext  # noqa: E402

WorldContext(0, Scale.small, False, _dt.datetime(2026, 1, 1))  # warm: faker imports its providers lazily


class _Invalid(Exception):
    """A shape ``SeedData`` refuses: ``where`` (pydantic's loc, dotted) and its message."""

    def __init__(self, where: str, msg: str):
        super().__init__(where, msg)
        self.where, self.msg = where, msg


class _Unsupported(Exception):
    """A row value that JSON cannot carry back."""


def _module(source: bytes, filename: str, module_name: str) -> types.ModuleType:
    """``source`` run as module ``module_name`` (once per source, file and module name), as the parent's import
    runs it: compiled from the bytes, registered in ``sys.modules`` (dataclasses and annotations resolve
    through it)."""
    key = (filename, module_name, hashlib.sha256(source).hexdigest())
    if key not in _loaded:
        module = types.ModuleType(module_name)
        module.__file__ = filename
        sys.modules[module_name] = module
        exec(compile(source, filename, "exec", dont_inherit=True), module.__dict__)
        _loaded[key] = module
    return _loaded[key]


def _load(source: bytes, filename: str, module_name: str) -> Any:
    """The builder's ``build`` (None when it defines none)."""
    build = getattr(_module(source, filename, module_name), "build", None)
    return build if callable(build) else None


def _load_tools(source: bytes, module_name: str) -> types.ModuleType:
    """The bundle's ``tools.py`` for ``ctx.tools``: its helpers (its ``@tool`` functions are only defined, never
    called here)."""
    return _module(source, "tools.py", module_name)


def build(request: dict[str, Any], source: bytes, tools_source: bytes | None = None) -> dict[str, Any]:
    """Import the builder (once) and build the world of ``request``'s seed, scale, distractors and clock."""
    try:
        fn = _load(source, str(request.get("filename") or "world.py"), str(request.get("module") or "_awm_world"))
    except Exception as e:
        return {"import_error": {"type": type(e).__name__, "message": str(e)}}
    if fn is None:
        return {"no_build": True}
    ctx = WorldContext(
        int(request["seed"]),
        Scale(request["scale"]),
        bool(request["distractors"]),
        _dt.datetime.fromisoformat(request["clock"]),
        tools_loader=None
        if tools_source is None
        else lambda: _load_tools(tools_source, "_awm_world_tools_" + str(request.get("module") or "_awm_world")),
    )
    try:
        tables = fn(ctx)
    except WorldBuildError as e:
        return {"world_error": str(e)}
    except Exception as e:
        return {"build_error": f"{type(e).__name__}: {e}"}
    if not isinstance(tables, dict):
        return {"not_dict": type(tables).__name__}
    try:
        return {"tables": _tables(tables)}
    except _Invalid as e:
        return {"invalid": {"where": e.where, "msg": e.msg}}
    except _Unsupported as e:
        return {"unsupported": str(e)}


# -- the rows, as the parent's SeedData(tables=...) takes them ------------------------------------------
def _tables(tables: dict[Any, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for table, rows in tables.items():
        if not isinstance(table, str):
            raise _Invalid(f"tables.{table}.[key]", "Input should be a valid string")
        out[table] = _rows(rows, f"tables.{table}")
    return out


def _rows(rows: Any, where: str) -> list[Any]:
    if isinstance(rows, (str, bytes, bytearray, dict)) or not isinstance(rows, Iterable):
        raise _Invalid(where, "Input should be a valid list")  # pydantic's list takes any other iterable
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise _Invalid(f"{where}.{i}", "Input should be a valid dictionary")
        plain = {}
        for column, value in row.items():
            if not isinstance(column, str):
                raise _Invalid(f"{where}.{i}.{column}.[key]", "Input should be a valid string")
            plain[column] = _value(value, f"{where}.{i}.{column}")
        out.append(plain)
    return out


def _value(value: Any, where: str) -> Any:
    """A row value as it travels; what the parent's SQLite binding takes (its date adapters too)."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return encode_value(value)
    if isinstance(value, _dt.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, _dt.date):
        return {"$date": value.isoformat()}
    if isinstance(value, (dict, list)):
        try:
            json.dumps(value, sort_keys=True)  # what the parent stores (awm.sql.seeding.seed_value)
        except (TypeError, ValueError) as e:
            raise _Unsupported(f"{where}: a list or object value that is not JSON ({e})") from None
        return {"$json": value}
    raise _Unsupported(
        f"{where}: a value of type {type(value).__name__} "
        "(a row value is a str, int, float, bool, None, bytes, date, datetime, or a JSON list or object)"
    )
