"""The child side of ``awm.importers.verifier_runner``: runs one verifier function, sandboxed.

Started by path with ``python -I -B`` (no environment variables, no user site, no current folder on the
path) and a scrubbed environment; imports only the standard library. It lowers its resource limits
(no core files, no file writes, no new processes, CPU and memory caps), lets ``sqlite3.connect`` open
only the two state files it is given, read-only and without ``ATTACH``, runs the verifier source it
received (statically checked by the parent), calls the function and prints one JSON reply.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import Any

MAX_OUTPUT = 200_000  # characters of a result


def _limit_resources(cpu_s: int) -> None:
    try:
        import resource
    except ImportError:  # not POSIX: the wall-clock kill still applies
        return
    limits = (
        ("RLIMIT_CORE", 0),
        ("RLIMIT_FSIZE", 0),
        ("RLIMIT_AS", 2 << 30),
        ("RLIMIT_CPU", cpu_s),
        ("RLIMIT_NPROC", 0),
    )
    for name, value in limits:
        with contextlib.suppress(ValueError, OSError, AttributeError):
            limit = getattr(resource, name)
            hard = resource.getrlimit(limit)[1]
            resource.setrlimit(limit, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))


def _read_only_sqlite(allowed: set[str]) -> None:
    """``sqlite3.connect`` in this process opens only the two state files, read-only, with no ATTACH."""
    import sqlite3

    real_connect = sqlite3.connect

    def authorize(action: int, *_args: Any) -> int:
        return sqlite3.SQLITE_DENY if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH) else sqlite3.SQLITE_OK

    def connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        name = str(database)
        if name.startswith("file:"):  # a URI (``file:...?mode=ro``, uri=True): its path part
            name = name[5:].split("?", 1)[0]
        path = os.path.realpath(name)
        if path not in allowed:
            raise PermissionError(f"a verifier may open only the two database paths it is given, not {database!r}")
        conn = real_connect(f"file:{path}?mode=ro", uri=True, check_same_thread=kwargs.get("check_same_thread", True))
        conn.set_authorizer(authorize)
        return conn

    sqlite3.connect = connect  # type: ignore[assignment]


def _child(request: dict[str, Any]) -> dict[str, Any]:
    source = request["source"]
    allowed = {os.path.realpath(request["initial"]), os.path.realpath(request["final"])}
    _read_only_sqlite(allowed)
    import builtins

    safe = {k: v for k, v in vars(builtins).items() if k not in ("open", "exec", "eval", "compile", "input")}
    namespace: dict[str, Any] = {"__builtins__": safe, "__name__": "awm_verifier"}
    code = builtins.compile(source, request["filename"], "exec")
    builtins.exec(code, namespace)  # statically checked; this process holds no secret and cannot write
    fn = namespace.get(request["function"])
    if not callable(fn):
        return {"error": f"the verifier defines no function {request['function']!r}"}
    args: list[Any] = [request["initial"], request["final"]]
    if request["takes_answer"]:
        args.append(request["answer"])
    result = fn(*args)
    text = json.dumps(result, default=str)
    if len(text) > MAX_OUTPUT:
        return {"error": f"the verifier returned more than {MAX_OUTPUT} characters"}
    return {"result": json.loads(text)}


def main() -> None:
    request = json.loads(sys.stdin.read())
    _limit_resources(int(request.get("cpu_s", 11)))
    out = sys.stdout
    sys.stdout = sys.stderr  # a verifier that prints cannot corrupt the reply
    try:
        reply = _child(request)
    except Exception as e:
        reply = {"error": f"the verifier raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:500]}
    out.write(json.dumps(reply) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
