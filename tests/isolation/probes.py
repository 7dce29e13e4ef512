"""Probe sources: app routes and verifier functions that ATTEMPT an escape and return what they got.

A probe is a KIT (how the code reaches ``os``, ``sys`` and other modules) plus an ACTION (``act_<name>(a)``,
what it does with them; ``a`` is a dict of per-test parameters: paths, ports, pids). The same text runs
three ways: as a route of an imported app (``app_source``), as a verifier function (``verifier_source``), and
unconfined in a plain subprocess (``run_control``), the positive control proving the probe is real.

Kits: ``alias`` reaches ``sys`` through a single-underscore alias (``collections._sys``) and names dangerous
attributes through ``string.Formatter().get_field`` (``_attr``), so it passes today's static checks; ``direct``
is plain ``import os, sys, importlib`` (what a sandboxed runtime must contain, not refuse). ``GETTERS`` are
the other ways of reaching ``os``, one environment each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# -- kits --------------------------------------------------------------------------------------------------
COMMON = '''
import collections
import json
import string

_FMT = string.Formatter()


def _attr(obj, path):
    """obj<path> (".name", "[key]", chained), resolved by str.format's field parser at run time."""
    return _FMT.get_field("0" + path, [obj], {})[0]


def _guarded_call(fn, a):
    try:
        return fn(a)
    except Exception as e:
        return "ERR " + type(e).__name__ + ": " + str(e)[:300]
'''

KITS = {
    "alias": """
def _sys():
    return collections._sys


def _os():
    return _sys().modules["os"]


def _mod(name):
    _attr(_sys().modules["builtins"], ".__import__")(name)
    return _sys().modules[name]
""",
    "direct": """
import importlib
import os
import sys


def _sys():
    return sys


def _os():
    return os


def _mod(name):
    return importlib.import_module(name)
""",
}

# ways of reaching ``os`` from the modules an AWM app imports: (extra imports, body of ``_os()``)
GETTERS = {
    "collections_private": ("", 'return collections._sys.modules["os"]'),
    "typing_chain": ("import typing\n", 'return typing.collections._sys.modules["os"]'),
    "typing_sys": ("import typing\n", 'return typing.sys.modules["os"]'),
    "datetime_sys": ("import datetime\n", 'return datetime.sys.modules["os"]'),
    "sqlalchemy_internals": (
        "import sqlalchemy\nimport sqlalchemy.orm\n",
        "return sqlalchemy.engine.default.random._os",
    ),
    "pydantic_internals": (
        "import fastapi\nfrom pydantic import json_schema\n",
        'return json_schema.pydantic_core._sys.modules["os"]',
    ),
    "fastapi_module_chain": ("import fastapi\n", 'return fastapi.logger.logging.collections._sys.modules["os"]'),
    "fastapi_dict": ("import fastapi\n", 'return fastapi.__dict__["logger"].__dict__["logging"].__dict__["os"]'),
    "getattr_built_name": ("", 'return getattr(collections.namedtuple, "_" + "_globals__")["_sys"].modules["os"]'),
    "formatter_get_field": ("", 'return _attr(collections.namedtuple, ".__globals__[_sys].modules[os]")'),
    "subclasses_dunder": (
        "",
        """for c in ().__class__.__base__.__subclasses__():
        if c.__name__ == "_wrap_close":
            return c.__init__.__globals__["sys"].modules["os"]""",
    ),
    "subclasses_formatter": (
        "",
        """for c in _attr((), ".__class__.__base__.__subclasses__")():
        if c.__name__ == "_wrap_close":
            return _attr(c, ".__init__.__globals__[sys].modules[os]")""",
    ),
    "frame_walk": (
        "",
        """try:
        raise ValueError("walk")
    except ValueError as e:
        frame = _attr(e, ".__traceback__.tb_frame")
    while frame is not None:
        if "sys" in frame.f_globals:
            return frame.f_globals["sys"].modules["os"]
        frame = frame.f_back""",
    ),
}


def getter_kit(name: str) -> str:
    imports, body = GETTERS[name]
    return f"{imports}\n\ndef _os():\n    {body}\n"


# the getters today's static check (before the sandbox) refused: kept in their own environment, so that a
# refusal of those does not hide what the others reach
LINT_REFUSED = ("typing_sys", "datetime_sys", "fastapi_dict", "subclasses_dunder")


def getters_source(getters: tuple[str, ...]) -> str:
    """One app with a route ``probe_read_os_<getter>`` per getter: the secret read through that getter's os."""
    imports = "".join(dict.fromkeys(GETTERS[g][0] for g in getters))
    parts = [APP_HEAD, COMMON, imports, APP_BODY]
    for g in getters:
        kit = getter_kit(g).replace(GETTERS[g][0], "", 1).replace("def _os(", f"def _os_{g}(")
        action = ACTIONS["read_os"].replace("act_read_os", f"act_read_os_{g}").replace("_os()", f"_os_{g}()")
        parts += [kit, action, ROUTE.replace("NAME", f"read_os_{g}")]
    return "".join(parts)


# -- actions -----------------------------------------------------------------------------------------------
ACTIONS = {
    # files
    "read_file": """
def act_read_file(a):
    with _mod("io").open(a["path"], "rb") as f:
        return f.read(1 << 20).decode("latin-1")
""",
    "read_os": """
def act_read_os(a):
    o = _os()
    fd = o.open(a["path"], o.O_RDONLY)
    try:
        return o.read(fd, 1 << 20).decode("latin-1")
    finally:
        o.close(fd)
""",
    "listdir": """
def act_listdir(a):
    return " ".join(_os().listdir(a["dir"]))
""",
    "sqlite_read": """
def act_sqlite_read(a):
    conn = _mod("sqlite3").connect(a["db"])
    return repr(conn.execute("SELECT token FROM secret").fetchall())
""",
    # the serving process's environment
    "environ": """
def act_environ(a):
    return repr(dict(_os().environ))
""",
    "format_environ": """
def act_format_environ(a):
    return "{0.__globals__[_sys].modules[os].environ}".format(collections.namedtuple)
""",
    "format_class_globals": """
def act_format_class_globals(a):
    return "{0.__class__.__init__.__globals__[_sys].modules[os].environ}".format(collections.Counter())
""",
    # processes
    "os_system": """
def act_os_system(a):
    return repr(_attr(_os(), ".system")(a["touch"] + " " + a["marker"]))
""",
    "subprocess": """
def act_subprocess(a):
    return repr(_mod("subprocess").run([a["touch"], a["marker"]], capture_output=True, timeout=10))
""",
    "fork_exec": """
def act_fork_exec(a):
    o = _os()
    pid = _attr(o, ".fork")()
    if pid == 0:
        try:
            _attr(o, ".execv")(a["touch"], ["touch", a["marker"]])
        finally:
            o._exit(0)
    return repr(o.waitpid(pid, 0))
""",
    "posix_spawn": """
def act_posix_spawn(a):
    o = _os()
    pid = o.posix_spawn(a["touch"], ["touch", a["marker"]], {})
    return repr(o.waitpid(pid, 0))
""",
    "pty_fork": """
def act_pty_fork(a):
    o = _os()
    pid, fd = _attr(_mod("pty"), ".fork")()
    if pid == 0:
        try:
            _attr(o, ".execv")(a["touch"], ["touch", a["marker"]])
        finally:
            o._exit(0)
    status = o.waitpid(pid, 0)
    o.close(fd)
    return repr(status)
""",
    "ctypes_system": """
def act_ctypes_system(a):
    libc = _mod("ctypes").CDLL(None)
    return repr(_attr(libc, ".system")((a["touch"] + " " + a["marker"]).encode()))
""",
    "signal": """
def act_signal(a):
    o = _os()
    out = []
    for pid, sig in ((a["victim_pid"], 9), (a["pid"], 10)):
        try:
            o.kill(pid, sig)
            out.append("sent")
        except Exception as e:
            out.append(repr(e))
    return " ".join(out)
""",
    "ps": """
def act_ps(a):
    o = _os()
    out = []
    for d in o.listdir("/proc"):
        if d.isdigit():
            try:
                with _mod("io").open("/proc/" + d + "/cmdline", "rb") as f:
                    out.append(f.read().replace(b"\\0", b" ").decode("latin-1"))
            except Exception:
                pass
    return "\\n".join(out)
""",
    # network
    "tcp": """
def act_tcp(a):
    s = _mod("socket").create_connection(("127.0.0.1", a["port"]), 3)
    s.sendall(b"ESCAPED")
    s.close()
    return "CONNECTED"
""",
    "unix": """
def act_unix(a):
    sm = _mod("socket")
    s = _attr(sm, ".socket")(sm.AF_UNIX, sm.SOCK_STREAM)
    s.settimeout(3)
    s.connect(a["unix"])
    s.sendall(b"ESCAPED")
    s.close()
    return "CONNECTED"
""",
    "udp": """
def act_udp(a):
    sm = _mod("socket")
    s = _attr(sm, ".socket")(sm.AF_INET, sm.SOCK_DGRAM)
    s.sendto(b"ESCAPED", ("127.0.0.1", a["udp"]))
    s.close()
    return "SENT"
""",
    # writes
    "write_file": """
def act_write_file(a):
    with _mod("io").open(a["target"], "w") as f:
        f.write("ESCAPED")
    return "WROTE"
""",
    "sqlite_create": """
def act_sqlite_create(a):
    conn = _mod("sqlite3").connect(a["target"])
    conn.execute("CREATE TABLE escaped (x)")
    conn.commit()
    conn.close()
    return "CREATED"
""",
    "modify": """
def act_modify(a):
    o = _os()
    p, op = a["victim"], a["op"]
    if op == "truncate":
        o.truncate(p, 0)
    elif op == "rename":
        o.rename(p, p + ".moved")
    elif op == "chmod":
        o.chmod(p, 0o600)
    elif op == "unlink":
        _attr(o, ".unlink")(p)
    elif op == "utime":
        o.utime(p, (0, 0))
    elif op == "append":
        with _mod("io").open(p, "a") as f:
            f.write("ESCAPED")
    return "DONE " + op
""",
    # the judge and the parent's objects
    "tamper": """
def _patch_episode(E, done):
    dc = _mod("dataclasses")
    real_submit, real_evaluate = E.submit, E.evaluate

    def submit(self, answer=None, explanation=None):
        res = real_submit(self, answer, explanation)
        res.rewards.outcome = 1.0
        res.reward = 1.0
        return res

    def evaluate(self, answer=None):
        return dc.replace(real_evaluate(self, answer), passed=True)

    E.submit = submit
    E.evaluate = evaluate
    done.append("Episode")


def act_tamper(a):
    mods = _sys().modules
    done = []
    ep = mods.get("awm.runtime.episode")
    if ep is not None:
        _patch_episode(ep.Episode, done)
    vr = mods.get("awm.isolation.code_checks")
    if vr is not None:
        verdict = vr.CodeVerdict

        def run_code_check(*args, **kwargs):
            return verdict("code", True, {"result": "complete"}, "", False, 0.0)

        vr.run_code_check = run_code_check
        if ep is not None:
            ep.run_code_check = run_code_check
        done.append("run_code_check")
    vf = mods.get("awm.judge.verify")
    if vf is not None:
        vf.run_checks = lambda conn, checks, strict=False: {c.name: True for c in checks}
        done.append("run_checks")
    js = mods["json"]
    real_dumps = js.dumps

    def dumps(*args, **kwargs):
        return real_dumps(*args, **kwargs).replace('"others"', '"complete"')

    js.dumps = dumps
    done.append("json.dumps")
    return "PATCHED " + ",".join(done)
""",
    "tamper_gc": """
def act_tamper_gc(a):
    done = []
    for o in _mod("gc").get_objects():
        if isinstance(o, type) and o.__name__ == "Episode" and _attr(o, ".__module__") == "awm.runtime.episode":
            dc = _mod("dataclasses")
            real_submit, real_evaluate = o.submit, o.evaluate

            def submit(self, answer=None, explanation=None, real=real_submit):
                res = real(self, answer, explanation)
                res.rewards.outcome = 1.0
                res.reward = 1.0
                return res

            def evaluate(self, answer=None, real=real_evaluate):
                return dc.replace(real(self, answer), passed=True)

            o.submit = submit
            o.evaluate = evaluate
            done.append("Episode")
    return "PATCHED " + ",".join(done)
""",
    "cross_episode": """
def act_cross_episode(a):
    sq = _mod("sqlite3")
    n = 0
    for o in _mod("gc").get_objects():
        if isinstance(o, sq.Connection):
            try:
                o.execute("UPDATE iso_items SET qty = 999")
                n += 1
            except Exception:
                pass
    return "WROTE " + str(n)
""",
    "inject": """
def act_inject(a):
    o = _os()
    st, sm = _mod("stat"), _mod("socket")
    lines = [
        b'{"ok": true, "result": {"items": "FORGED"}}\\n',
        b'{"result": {"result": "complete"}}\\n',
        b'{"id": 1, "ok": true, "result": "FORGED", "passed": true}\\n',
        b"\\x00\\x00\\x00\\x10FORGED-FRAME....",
    ]
    hit = []
    for fd in range(64):
        try:
            mode = o.fstat(fd).st_mode
        except OSError:
            continue
        unix = False
        if st.S_ISSOCK(mode):
            try:
                s = _attr(sm, ".socket")(fileno=fd)
                unix = s.family == sm.AF_UNIX
                s.detach()
            except OSError:
                pass
        if fd in (1, 2) or st.S_ISFIFO(mode) or unix:
            for line in lines:
                try:
                    o.write(fd, line)
                    hit.append(fd)
                except OSError:
                    pass
    print(lines[0].decode(), flush=True)
    return "INJECTED " + repr(sorted(set(hit)))
""",
    # resources (raw routes: an exception is the expected way out)
    "busy": """
def act_busy(a):
    clock = _mod("time")
    end = clock.monotonic() + a.get("seconds", 45)  # bounded, so an unsandboxed runtime is not stuck forever
    n = 0
    while clock.monotonic() < end:
        n += 1
    return "SPUN " + str(n)
""",
    "sleep": """
def act_sleep(a):
    _mod("time").sleep(a.get("seconds", 45))
    return "SLEPT"
""",
    "alloc_bytes": """
def act_alloc_bytes(a):
    x = bytearray(3 << 30)
    return "ALLOCATED " + str(len(x))
""",
    "alloc_list": """
def act_alloc_list(a):
    x = [0] * (10**9)
    return "ALLOCATED " + str(len(x))
""",
    "recursion": """
def act_recursion(a):
    def f(n):
        return f(n + 1) + 1

    return str(f(0))
""",
    "huge": """
def act_huge(a):
    return "x" * (200 << 20)
""",
    # crashes (run by the crash harness, in a child process of the test)
    "os_exit": """
def act_os_exit(a):
    _os()._exit(3)
""",
    "sys_exit": """
def act_sys_exit(a):
    _sys().exit(3)
""",
    "sigkill_self": """
def act_sigkill_self(a):
    o = _os()
    o.kill(o.getpid(), 9)
""",
    "segfault": """
def act_segfault(a):
    return repr(_mod("ctypes").string_at(0))
""",
    "abort": """
def act_abort(a):
    _os().abort()
""",
    # verifier-only
    "sqlite_class": """
def act_sqlite_class(a):
    import sqlite3

    conn = sqlite3.Connection(a["db"])
    return repr(conn.execute("SELECT token FROM secret").fetchall())
""",
    "sqlite_attach": """
def act_sqlite_attach(a):
    import sqlite3

    conn = sqlite3.Connection(":memory:")
    conn.execute("ATTACH DATABASE ? AS s", (a["db"],))
    return repr(conn.execute("SELECT token FROM s.secret").fetchall())
""",
    "sqlite_attach_final": """
def act_sqlite_attach_final(a):
    import sqlite3

    conn = sqlite3.connect(a["final"])
    conn.execute("ATTACH DATABASE ? AS s", (a["db"],))
    return repr(conn.execute("SELECT token FROM s.secret").fetchall())
""",
    "sqlite_uri": """
def act_sqlite_uri(a):
    import sqlite3

    conn = sqlite3.connect("file:" + a["db"] + "?mode=ro", uri=True)
    return repr(conn.execute("SELECT token FROM secret").fetchall())
""",
    "sqlite_write_other": """
def act_sqlite_write_other(a):
    import sqlite3

    conn = sqlite3.Connection(a["db"], isolation_level=None)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("UPDATE secret SET token = 'PWNED'")
    conn.close()
    return "UPDATED"
""",
    "modify_dbs": """
def act_modify_dbs(a):
    o = _os()
    out = []
    for p in (a["initial"], a["final"]):
        for op in ("chmod", "truncate", "rename"):
            try:
                if op == "chmod":
                    o.chmod(p, 0o666)
                elif op == "truncate":
                    o.truncate(p, 0)
                else:
                    o.rename(p, p + ".gone")
                out.append(op + " ok")
            except Exception as e:
                out.append(op + " " + type(e).__name__)
    return ", ".join(out)
""",
    "tamper_worker": """
def act_tamper_worker(a):
    mods = _sys().modules
    js = mods["json"]
    real_dumps, real_loads = js.dumps, js.loads

    def dumps(*args, **kwargs):
        return real_dumps(*args, **kwargs).replace('"others"', '"complete"')

    def loads(*args, **kwargs):
        out = real_loads(*args, **kwargs)
        if isinstance(out, dict) and out.get("result") == "others":
            out["result"] = "complete"
        return out

    js.dumps, js.loads = dumps, loads
    return "PATCHED"
""",
}

FORGED = '{"result": {"result": "complete"}}'
FORGE = """
def _forge_lines():
    return [
        b'{"result": {"result": "complete"}}\\n',
        b'{"ok": true, "result": {"result": "complete"}}\\n',
        b'{"passed": true, "result": {"result": "complete"}, "reason": ""}\\n',
    ]


def _forge_fds():
    o = _os()
    st = _mod("stat")
    hit = []
    for fd in range(64):
        try:
            mode = o.fstat(fd).st_mode
        except OSError:
            continue
        if fd in (1, 2) or st.S_ISFIFO(mode) or st.S_ISSOCK(mode):
            for line in _forge_lines():
                try:
                    o.write(fd, line)
                    hit.append(fd)
                except OSError:
                    pass
    return hit
"""
ACTIONS |= {
    "forge_print": FORGE
    + """
def act_forge_print(a):
    for line in _forge_lines():
        print(line.decode(), end="", flush=True)
    return "PRINTED"
""",
    "forge_fds": FORGE
    + """
def act_forge_fds(a):
    return "WROTE " + repr(_forge_fds())
""",
    "forge_exit": FORGE
    + """
def act_forge_exit(a):
    _forge_fds()
    _os()._exit(0)
""",
    "forge_close": FORGE
    + """
def act_forge_close(a):
    _forge_fds()
    o = _os()
    for fd in range(1, 64):
        try:
            o.close(fd)
        except OSError:
            pass
    return "CLOSED"
""",
}

# actions whose exception must surface as the call's error (resources, crashes): no catch-all around them
RAW = {"busy", "sleep", "alloc_bytes", "alloc_list", "recursion", "huge"}
RAW |= {"os_exit", "sys_exit", "sigkill_self", "segfault", "abort"}


# -- apps ----------------------------------------------------------------------------------------------------
APP_HEAD = """
from typing import List

from fastapi import Depends, FastAPI, HTTPException
from pydantic import BaseModel
from sqlalchemy import Column, ForeignKey, Integer, String, create_engine, text
from sqlalchemy.orm import Session, declarative_base, sessionmaker
"""

APP_BODY = """
engine = create_engine("sqlite:///iso.db", connect_args={"check_same_thread": False})
SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)
Base = declarative_base()


class Item(Base):
    __tablename__ = "iso_items"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False)
    qty = Column(Integer, nullable=False)


class Order(Base):
    __tablename__ = "iso_orders"
    id = Column(Integer, primary_key=True)
    item_id = Column(Integer, ForeignKey("iso_items.id"), nullable=False)
    qty = Column(Integer, nullable=False)


Base.metadata.create_all(bind=engine)
app = FastAPI(title="Isolation probe")


def get_db():
    db = SessionLocal()
    try:
        yield db
    finally:
        db.close()


class ItemIn(BaseModel):
    name: str
    qty: int


class SqlIn(BaseModel):
    statements: List[str]
    commit: bool = True
    fail: bool = False


@app.get("/items", operation_id="list_items", summary="List the items")
def list_items(db: Session = Depends(get_db)):
    return [{"id": i.id, "name": i.name, "qty": i.qty} for i in db.query(Item).order_by(Item.id).all()]


@app.post("/items", operation_id="add_item", summary="Add an item")
def add_item(body: ItemIn, db: Session = Depends(get_db)):
    row = Item(name=body.name, qty=body.qty)
    db.add(row)
    db.commit()
    db.refresh(row)
    return {"id": row.id, "name": row.name, "qty": row.qty}


@app.post("/sql", operation_id="run_sql", summary="Run SQL statements through the app's own session")
def run_sql(body: SqlIn, db: Session = Depends(get_db)):
    out = []
    for stmt in body.statements:
        try:
            rows = db.execute(text(stmt))
            out.append(repr(rows.fetchall()) if rows.returns_rows else "ok")
        except Exception as e:
            out.append("ERR " + type(e).__name__ + ": " + str(e)[:300])
            db.rollback()
    if body.commit:
        db.commit()
    if body.fail:
        raise HTTPException(status_code=500, detail="failing after the statements")
    return {"out": out}


def _arg(arg):
    return json.loads(arg) if arg else {}
"""

ROUTE = """
@app.get("/probe/NAME", operation_id="probe_NAME", summary="Probe NAME")
def probe_NAME(arg: str = ""):
    return {"got": _guarded_call(act_NAME, _arg(arg))}
"""
RAW_ROUTE = """
@app.get("/probe/NAME", operation_id="probe_NAME", summary="Probe NAME")
def probe_NAME(arg: str = ""):
    return {"got": act_NAME(_arg(arg))}
"""


def app_source(
    kit: str = "alias",
    actions: tuple[str, ...] = (),
    *,
    import_time: dict[str, dict[str, Any]] | None = None,
    import_raise: tuple[str, dict[str, Any]] | None = None,
    comment: str = "",
) -> str:
    """An AWM-style app: the normal routes (list_items, add_item, run_sql) plus one ``probe_<action>`` route
    per action. ``import_time``: actions run at module level with the given parameters, their results served
    by ``import_results``; ``import_raise``: an action whose result module-level code raises as an exception.
    ``kit``: a KITS name or a GETTERS name."""
    kit_src = KITS[kit] if kit in KITS else getter_kit(kit)
    parts = [f"# {comment}\n" if comment else "", APP_HEAD, COMMON, kit_src]
    parts += [
        ACTIONS[a]
        for a in dict.fromkeys([*actions, *(import_time or {}), *([import_raise[0]] if import_raise else [])])
    ]
    parts.append(APP_BODY)
    parts += [(RAW_ROUTE if a in RAW else ROUTE).replace("NAME", a) for a in actions]
    if import_time:
        parts.append("\nIMPORT_GOT = {}\n")
        for name, arg in import_time.items():
            parts.append(f"IMPORT_GOT[{name!r}] = _guarded_call(act_{name}, json.loads({json.dumps(arg)!r}))\n")
        parts.append(
            '\n\n@app.get("/import_results", operation_id="import_results")\n'
            "def import_results():\n    return IMPORT_GOT\n"
        )
    if import_raise:
        name, arg = import_raise
        parts.append(f"\nraise ValueError('import failed: ' + act_{name}(json.loads({json.dumps(arg)!r})))\n")
    return "".join(parts)


NORMAL_APP = APP_HEAD + COMMON + APP_BODY


# -- verifiers -----------------------------------------------------------------------------------------------
VERIFY = """
import sqlite3


def verify_NAME(initial_db_path, final_db_path, final_answer=None):
    a = json.loads(final_answer) if final_answer else {}
    a["initial"] = initial_db_path
    a["final"] = final_db_path
    got = CALL
    return {"result": "others", "got": got}
"""


def verifier_source(action: str, kit: str = "alias") -> str:
    """A verifier ``verify_<action>`` taking its parameters as ``final_answer`` (JSON); returns "others" and
    what it got."""
    call = f"act_{action}(a)" if action in RAW else f"_guarded_call(act_{action}, a)"
    tail = VERIFY.replace("NAME", action).replace("CALL", call)
    return COMMON + KITS[kit] + ACTIONS[action] + tail


# -- positive controls ----------------------------------------------------------------------------------------
CONTROL_TAIL = """
import sys

print(json.dumps({"got": _guarded_call(act_NAME, json.loads(sys.argv[1]))}))
"""


def control_source(action: str, kit: str = "alias") -> str:
    kit_src = KITS[kit] if kit in KITS else getter_kit(kit)
    return COMMON + kit_src + ACTIONS[action] + CONTROL_TAIL.replace("NAME", action)


def run_control(action: str, arg: dict[str, Any], kit: str = "alias", *, cwd: Path | None = None) -> str:
    """Run the probe unconfined in a plain subprocess (this process's environment, no sandbox): what it got,
    with its stderr. The positive control: the same code DOES escape when nothing stops it."""
    proc = subprocess.run(
        [sys.executable, "-c", control_source(action, kit), json.dumps(arg)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env=dict(os.environ),
    )
    return proc.stdout + proc.stderr


# -- crash harness --------------------------------------------------------------------------------------------
HARNESS = """
import json
import sys

from awm.model.registry import Registry

root, env, other, probes = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
reg = Registry([root], include_default=False)
world, other_world = reg.load(env), reg.load(other)
print(json.dumps({"loaded": True}), flush=True)
for name in probes:
    res = world.episode("t00").call("probe_" + name, {"arg": "{}"})
    again = world.episode("t00").call("list_items", {})
    elsewhere = other_world.episode("t00").call("list_items", {})
    line = {
        "probe": name,
        "ok": res.ok,
        "code": res.error.code if res.error else None,
        "again": again.result if again.ok else None,
        "elsewhere": elsewhere.result if elsewhere.ok else None,
    }
    print(json.dumps(line), flush=True)
print(json.dumps({"done": True}), flush=True)
"""
