"""World builders of untrusted bundles (``Manifest.trusted`` false), sandboxed.

``build_isolated`` sends ``world.py``'s bytes with the world key and the frozen clock to a pool of
``world`` workers keyed by the source's content hash (``guest/world.py``); the worker imports it once,
calls ``build(ctx)`` with a real ``WorldContext`` (``awm.worldctx``, the same class the trusted path
uses) and answers with the rows. The builder never runs in this process: what comes back is checked
here (a table name and rows of JSON values), and ``awm.model.builders.build_seed`` turns it into
``SeedData`` exactly as it does a trusted builder's return value, with the same ``WorldBuildError``
wording. A builder that runs past ``LIMITS.call_s``, exhausts its memory or kills its worker costs
that one build, never this process.
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime
from pathlib import Path
from typing import Any

from awm.errors import IsolationError, WorkerTimeout
from awm.isolation.guest.protocol import ProtocolError, decode_value
from awm.isolation.pools import get_pool
from awm.isolation.sandbox import INSTALL_HINT, Limits, available
from awm.worldctx import (
    WorldBuildError,
    WorldKey,
    build_failed,
    import_failed,
    module_name,
    no_build,
    not_a_dict,
    not_rows,
)

LIMITS = Limits(call_s=60.0)  # wall seconds per build (a large world takes about a second)
POOL_SIZE = 2
MAX_ERROR = 2000
_TAGS = frozenset({"$b", "$date", "$datetime", "$json"})


class _Malformed(Exception):
    """A reply the guest code would never send (the builder tampered with its worker)."""


def build_isolated(path: Path, key: WorldKey, clock: datetime) -> dict[str, list[Any]]:
    """``build(ctx)`` of ``path`` for ``key`` in a sandboxed worker: the tables it returned (rows as dicts).

    Raises ``WorldBuildError`` worded as the trusted path words it (and for a build stopped at its time
    limit, a crashed worker, or a machine without bubblewrap)."""
    assert key.seed is not None
    source = Path(path).read_bytes()
    tools_path = Path(path).parent / "tools.py"  # for ctx.tools: imported in the worker only if the builder asks
    blobs = (source, tools_path.read_bytes()) if tools_path.is_file() else (source,)
    if not available():
        raise WorldBuildError(INSTALL_HINT)
    digest = hashlib.sha256(b"\0".join(blobs)).hexdigest()
    limits = LIMITS
    pool = get_pool("world", digest, limits, size=POOL_SIZE)
    request = {
        "op": "build",
        "filename": str(path),
        "module": module_name(Path(path), digest),
        "seed": key.seed,
        "scale": str(key.scale),
        "distractors": key.distractors,
        "clock": clock.isoformat(),
    }
    try:
        reply = pool.request(request, blobs, timeout=limits.call_s)
    except WorkerTimeout:
        raise build_failed(path, key, f"did not finish within {limits.call_s:g} s and was stopped") from None
    except IsolationError as e:
        raise build_failed(path, key, f"its sandboxed worker failed: {_short(e)}") from None
    try:
        return _outcome(path, key, reply)
    except _Malformed as e:
        raise build_failed(path, key, f"its sandboxed worker sent a malformed reply ({_short(e)})") from None


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= MAX_ERROR else text[:MAX_ERROR] + " ..."


def _outcome(path: Path, key: WorldKey, reply: dict[str, Any]) -> dict[str, list[Any]]:
    if "tables" in reply:
        return _tables(reply["tables"])
    if isinstance(reply.get("import_error"), dict):
        error = reply["import_error"]
        raise import_failed(path, _short(error.get("type")), _short(error.get("message", "")))
    if reply.get("no_build") is True:
        raise no_build(path)
    if isinstance(reply.get("world_error"), str):
        raise WorldBuildError(_short(reply["world_error"]))
    if isinstance(reply.get("build_error"), str):
        raise build_failed(path, key, _short(reply["build_error"]))
    if isinstance(reply.get("not_dict"), str):
        raise not_a_dict(path, _short(reply["not_dict"]))
    if isinstance(reply.get("invalid"), dict):
        where, msg = reply["invalid"].get("where"), reply["invalid"].get("msg")
        raise not_rows(path, f"{_short(where)}: {_short(msg)}")
    if isinstance(reply.get("unsupported"), str):
        raise not_rows(path, _short(reply["unsupported"]))
    if "error" in reply:  # the worker's own catch-all: the builder tried to exit, the reply was too large
        raise build_failed(path, key, _short(reply["error"]))
    raise _Malformed(f"no outcome in {sorted(reply)[:8]}")


def _tables(tables: Any) -> dict[str, list[Any]]:
    if not isinstance(tables, dict):
        raise _Malformed("tables that are not an object")
    out: dict[str, list[Any]] = {}
    for table, rows in tables.items():
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise _Malformed(f"table {_short(table)!r} that is not a list of rows")
        out[table] = [{column: _value(v) for column, v in row.items()} for row in rows]
    return out


def _value(value: Any) -> Any:
    """A row value as the builder returned it (``guest/world.py`` tags what JSON cannot carry)."""
    if not isinstance(value, dict):
        if isinstance(value, list):
            raise _Malformed("an untagged list value")
        return value
    if len(value) != 1 or next(iter(value)) not in _TAGS:
        raise _Malformed("an untagged object value")
    (tag, raw), *_ = value.items()
    try:
        if tag == "$json":
            return raw
        if not isinstance(raw, str):
            raise _Malformed(f"a {tag} value that is not text")
        if tag == "$datetime":
            return datetime.fromisoformat(raw)
        if tag == "$date":
            return date.fromisoformat(raw)
        return decode_value(value)
    except (ValueError, ProtocolError) as e:
        raise _Malformed(f"a bad {tag} value: {e}") from None


__all__ = ["LIMITS", "build_isolated"]
