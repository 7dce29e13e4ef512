"""The worker's entry point, started by ``awm.isolation.worker`` inside bubblewrap: ``python -I -B main.py KIND``.

It moves the protocol off stdin/stdout (so code that prints cannot forge a reply), installs the
seccomp filter and the determinism patches, then serves one request at a time. Nothing of the code
it runs can reach the parent except through these messages, which the parent validates.
"""

from __future__ import annotations

import datetime as _dt
import os
import sys
import traceback
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script's folder off the path

import protocol
import seccomp

IN_FD = OUT_FD = -1
MAX_REPLY = 64 << 20


def _send(header: dict[str, Any], blobs: tuple[bytes, ...] = ()) -> None:
    data = protocol.pack(header, blobs)
    if len(data) > MAX_REPLY:
        data = protocol.pack({"op": "done", "error": f"the reply is {len(data)} bytes; the limit is {MAX_REPLY}"})
    protocol.write_all(OUT_FD, data)


def _exchange(message: dict[str, Any]) -> dict[str, Any]:
    _send(message)
    header, _ = protocol.receive(IN_FD)
    return header


def _notify(message: dict[str, Any]) -> None:
    _send(message)


def _begin(request: dict[str, Any]) -> None:
    import determinism

    clock = _dt.datetime.fromisoformat(request.get("clock") or "2026-01-01T00:00:00")
    determinism.set_clock(clock.replace(tzinfo=None), int(request.get("seed", 0)))


def _serve(kind: str) -> None:
    import determinism

    determinism.install()
    if kind == "app":
        import app  # imports fastapi, sqlalchemy: before any request
    elif kind == "tools":
        import tools
    elif kind == "world":
        import world  # awm.worldctx and faker: before any request
    else:
        import verifier  # noqa: F401  # loaded before the first fork, once
    _send({"op": "ready", "pid": os.getpid()})
    while True:
        try:
            request, blobs = protocol.receive(IN_FD)
        except protocol.ProtocolError:
            return  # the parent closed the pipe
        op = request.get("op")
        _begin(request)
        try:
            if op == "load" and kind == "app":
                tools_, startup = app.load(
                    request["source"], request.get("filename", "awm_app.py"), request.get("schema", "")
                )
                reply: dict[str, Any] = {"tools": tools_, "startup_sql": startup}
            elif op == "call" and kind == "app":
                reply = app.call(request["tool"], request.get("arguments") or {}, _exchange, _notify)
            elif op == "load" and kind == "tools":
                reply = {"tools": tools.load(request["source"], request.get("module", "awm_tools"))}
            elif op == "call" and kind == "tools":
                reply = tools.call(request["tool"], request.get("arguments") or {}, _exchange)
            elif op == "build" and kind == "world" and len(blobs) in (1, 2):
                reply = world.build(request, blobs[0], blobs[1] if len(blobs) == 2 else None)
            elif op == "verify" and kind == "verifier" and len(blobs) == 2:
                reply = _verify_in_child(request, blobs)
            else:
                reply = {"error": f"unknown request {op!r} for a {kind} worker"}
        except BaseException as e:  # the code's failure is data for the parent, never a dead worker
            if isinstance(e, (KeyboardInterrupt, SystemExit)) and op != "load":
                reply = {"error": f"the code tried to exit ({type(e).__name__})"}
            else:
                tail = traceback.format_exception_only(type(e), e)[-1].strip()
                reply = {"error": tail[:1000]}
        _send({"op": "done", **reply})


def _verify_in_child(request: dict[str, Any], blobs: list[bytes]) -> dict[str, Any]:
    """One verifier run in a fresh child forked from this (trusted, never-tampered) zygote.

    The child installs the seccomp filter, runs the verifier and writes its reply into a private pipe;
    it cannot reach the protocol's pipes, and whatever it patches (``json``, ``sqlite3``, this module)
    dies with it, so no verifier run can change another's verdict. The zygote reads at most one
    reply, checks it, and answers for the child if it died without one.
    """
    import verifier

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        code = 0
        try:
            os.close(r)
            os.close(IN_FD)
            os.close(OUT_FD)
            seccomp.install()
            data = protocol.pack({"op": "done", **verifier.run(request, blobs[0], blobs[1])})
            if len(data) > MAX_REPLY:
                data = protocol.pack({"op": "done", "error": f"the verifier returned more than {MAX_REPLY} bytes"})
            protocol.write_all(w, data)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    try:
        header, _ = protocol.receive(r)
    except protocol.ProtocolError:
        header = {}
    finally:
        os.close(r)
        _, status = os.waitpid(pid, 0)
    if header.get("op") != "done":
        how = (
            f"signal {os.WTERMSIG(status)}"
            if os.WIFSIGNALED(status)
            else f"exit code {os.waitstatus_to_exitcode(status)}"
        )
        return {"error": f"the verifier's process ended without a verdict ({how})"}
    return {k: v for k, v in header.items() if k in ("result", "error")}


def main() -> None:
    global IN_FD, OUT_FD
    IN_FD, OUT_FD = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(2, 1)  # print() goes to stderr, never into the protocol
    sys.stdin = open(os.devnull)  # noqa: SIM115
    kind = sys.argv[1] if len(sys.argv) > 1 else "app"
    try:
        if kind == "verifier":  # a zygote: it runs no code of ours but forks a filtered child per verify
            seccomp.undumpable()
            seccomp.program()  # fail now, not per verify, if the filter cannot be built here
        else:
            seccomp.install()
    except Exception as e:
        _send({"op": "ready", "error": f"cannot install the seccomp filter: {e}"})
        return
    _serve(kind)


if __name__ == "__main__":
    main()
