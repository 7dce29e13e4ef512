"""Imported AWM apps are hostile code: every probe here tries to break out of the app's sandbox and must fail.

Each probe is an app route that ATTEMPTS an escape and returns what it got. A test asserts only that nothing
leaked (the secret is in no result, error message or load error) and nothing happened (no marker file, no
connection on a listener, no signal, the parent's objects and memory untouched); whether the call errors or
returns something harmless is not asserted, except for resource abuse, which must end in an error within a
bound while other environments keep working. Every file, environment, network and process probe is also run
unconfined in a plain subprocess (the positive control), which must escape: the probe is real.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from awm.errors import AwmError
from awm.model.registry import Registry
from tests.isolation import bundles as b
from tests.isolation import probes as p

pytest.importorskip("sqlalchemy")
pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="the app sandbox needs bubblewrap (bwrap)")

GOLD = b.token("GOLD")  # in every verifier file of the bundles: an app must never read it
SEED_ITEMS = [{"id": 1, "name": "lamp", "qty": 5}, {"id": 2, "name": "chair", "qty": 3}]
ERROR_CODES = {"timeout", "tool_error", "internal_error"}
BOUND_S = 30.0  # a hostile call must come back within this
RSS_MB = 200.0  # and the parent's memory must not grow by more

SPAWNS, NETWORK = b.SPAWNS, b.NETWORK
RESOURCES = ("busy", "sleep", "alloc_bytes", "alloc_list", "recursion", "huge")
CRASHES = ("sys_exit", "os_exit", "sigkill_self", "abort", "segfault")
ALIAS_ACTIONS = (
    "read_file",
    "read_os",
    "listdir",
    "sqlite_read",
    "environ",
    "format_environ",
    "format_class_globals",
    *SPAWNS,
    "signal",
    "ps",
    *NETWORK,
    "write_file",
    "sqlite_create",
    "modify",
    "tamper",
    "tamper_gc",
    "cross_episode",
    "inject",
    *RESOURCES,
)
DIRECT_ACTIONS = ("read_file", "environ", "os_system", "subprocess", "tcp", "write_file")
IMPORT_ACTIONS = ("read_file", "environ", "os_system", "tcp", "write_file")


# -- fixtures -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def env_secret() -> Iterator[tuple[str, str]]:
    """A secret in this process's environment, set before any imported environment is loaded."""
    name, value = b.token("AWM_ISO_SECRET_"), b.token()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(name, value)
        yield name, value


@pytest.fixture(scope="module")
def import_ctxs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, b.Ctx]]:
    """Secrets and targets of the probes that run at import time (known when the bundle is written)."""
    ctxs = {k: b.Ctx(tmp_path_factory.mktemp(f"import_{k}")) for k in ("alias", "direct", "raise")}
    with b.listener("tcp") as tcp_alias, b.listener("tcp") as tcp_direct:
        ctxs["alias"].tcp = tcp_alias  # type: ignore[attr-defined]
        ctxs["direct"].tcp = tcp_direct  # type: ignore[attr-defined]
        yield ctxs
    for ctx in ctxs.values():
        ctx.cleanup_host()


def _import_arg(ctx: b.Ctx) -> dict[str, Any]:
    return ctx.arg(port=ctx.tcp.address, target=str(ctx.host_tmp))  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory, import_ctxs: dict[str, b.Ctx]) -> Path:
    root = tmp_path_factory.mktemp("iso_apps")
    envs = {
        "iso_shop": p.NORMAL_APP,
        "iso_other": "# another environment\n" + p.NORMAL_APP,
        "iso_alias": p.app_source("alias", ALIAS_ACTIONS),
        "iso_direct": p.app_source("direct", DIRECT_ACTIONS),
        "iso_crash": p.app_source("alias", CRASHES),
        "iso_import": p.app_source("alias", import_time={a: _import_arg(import_ctxs["alias"]) for a in IMPORT_ACTIONS}),
        "iso_import_direct": p.app_source(
            "direct", import_time={a: _import_arg(import_ctxs["direct"]) for a in IMPORT_ACTIONS}
        ),
        "iso_import_raise": p.app_source("alias", import_raise=("read_file", import_ctxs["raise"].arg())),
    }
    clean = tuple(g for g in p.GETTERS if g not in p.LINT_REFUSED)
    envs |= {"iso_getters": p.getters_source(clean), "iso_getters_refused": p.getters_source(p.LINT_REFUSED)}
    for env, app in envs.items():
        b.write_env(root, env, app, gold=GOLD)
    return root


@pytest.fixture(scope="module")
def reg(root: Path, env_secret: tuple[str, str]) -> Iterator[Registry]:
    registry = Registry([root], include_default=False)
    yield registry
    registry.refresh()


@pytest.fixture
def ctxs(tmp_path: Path) -> Iterator[tuple[b.Ctx, b.Ctx]]:
    """Fresh secrets for the sandboxed probe and, separately, for its unconfined control."""
    box, ctl = b.Ctx(tmp_path / "box"), b.Ctx(tmp_path / "ctl")
    yield box, ctl
    box.cleanup_host()
    ctl.cleanup_host()


# -- helpers --------------------------------------------------------------------------------------------------
def load(reg: Registry, env: str) -> tuple[Any, str]:
    """(world, "") or (None, the load error): a refused or crashing app is a load error, never a leak."""
    try:
        return reg.load(env), ""
    except AwmError as e:
        return None, str(e)


def probe(reg: Registry, env: str, action: str, arg: dict[str, Any]) -> str:
    """Everything the caller gets back from one probe call (or the environment's load error)."""
    world, err = load(reg, env)
    if world is None:
        return err
    return b.step_text(world.episode("t00").call("probe_" + action, {"arg": json.dumps(arg)}))


assert_blocked, assert_control_escapes = b.assert_blocked, b.assert_control_escapes


def check_probe(
    reg: Registry,
    root: Path,
    ctxs: tuple[b.Ctx, b.Ctx],
    env_secret: tuple[str, str],
    action: str,
    *,
    env: str = "iso_alias",
    kit: str = "alias",
    target: str = "",
) -> None:
    """The probe, sandboxed in ``env``: nothing leaks, nothing happens. Then the same probe unconfined: it
    escapes."""
    box, ctl = ctxs
    where = b.Where(root, env, env_secret, GOLD)
    what = f"{env}/{action}{'[' + target + ']' if target else ''}"
    with b.scenario(action, box, where, target=target) as sc:
        out = probe(reg, env, action, sc.arg)
        assert_blocked(what, out, sc.needles, sc.effects())
    with b.scenario(action, ctl, where, target=target, control=True) as sc:
        if sc.controllable:
            out = p.run_control(action, sc.arg, kit, cwd=ctl.dir)
            assert_control_escapes(what, out, sc.needles, sc.effects())


def normal_calls_work(reg: Registry, *envs: str) -> None:
    for env in envs:
        res = reg.load(env).episode("t00").call("list_items", {})
        assert res.ok and res.result == SEED_ITEMS, f"{env} no longer works: {b.step_text(res)[:300]}"


# -- the control case: a normal imported app and verifier still work ------------------------------------------
def test_a_normal_imported_app_and_verifier_work_end_to_end(reg):
    world = reg.load("iso_shop")
    ep = world.episode("t00")
    assert ep.call("list_items", {}).result == SEED_ITEMS
    added = ep.call("add_item", b.CORRECT)
    assert added.ok and added.result == {"id": 3, "name": "desk", "qty": 7}
    assert [c.op for c in added.diff.changes] == ["insert"]
    assert ep.query("SELECT name, qty FROM iso_items WHERE id = 3") == [("desk", 7)]
    ev = ep.evaluate()
    assert ev.passed and ev.code is not None and ev.code.result == {"result": "complete"}
    assert ep.submit().rewards.outcome == 1.0
    wrong = world.episode("t00")
    assert wrong.call("add_item", b.WRONG).ok
    assert wrong.submit().rewards.outcome == 0.0
    assert world.episode("t00").submit().rewards.outcome == 0.0


# -- 1. direct os / open / subprocess / socket, at route time and at import time ------------------------------
@pytest.mark.parametrize("action", DIRECT_ACTIONS)
def test_direct_os_access_at_route_time(reg, root, ctxs, env_secret, action):
    target = {"read_file": "secret", "write_file": "host_tmp"}.get(action, "")
    check_probe(reg, root, ctxs, env_secret, action, env="iso_direct", kit="direct", target=target)


@pytest.mark.parametrize("kit", ["alias", "direct"])
def test_module_level_code_is_contained(reg, import_ctxs, env_secret, kit):
    ctx = import_ctxs[kit]
    world, out = load(reg, "iso_import" if kit == "alias" else "iso_import_direct")
    if world is not None:
        out += b.step_text(world.episode("t00").call("import_results", {}))
    effects = ctx.tcp.settle()  # type: ignore[attr-defined]
    effects += [f"{f} exists" for f in (ctx.marker, ctx.host_tmp) if f.exists()]
    assert_blocked(f"import-time {kit}", out, [ctx.secret, env_secret[1]], effects)


@pytest.mark.parametrize("action", IMPORT_ACTIONS)
def test_module_level_probes_escape_unconfined(root, ctxs, env_secret, action):
    """The positive control of the import-time probes: each one escapes when run unconfined."""
    _, ctl = ctxs
    target = {"read_file": "secret", "write_file": "host_tmp"}.get(action, "")
    with b.scenario(action, ctl, b.Where(root, "iso_import", env_secret, GOLD), target=target) as sc:
        out = p.run_control(action, sc.arg, cwd=ctl.dir)
        assert_control_escapes(f"import-time {action}", out, sc.needles, sc.effects())


def test_an_import_error_does_not_carry_what_the_code_read(reg, import_ctxs):
    ctx = import_ctxs["raise"]
    world, err = load(reg, "iso_import_raise")
    assert world is None  # the module raises at import
    assert_blocked("import error message", err, [ctx.secret], [])
    assert_control_escapes("import-time read", p.run_control("read_file", ctx.arg()), [ctx.secret], [])


# -- 2. module aliases and attribute tricks reaching sys.modules['os'] ----------------------------------------
@pytest.mark.parametrize("getter", list(p.GETTERS))
def test_module_aliases_do_not_reach_the_host(reg, root, ctxs, env_secret, getter):
    """Each way from an allowed module to ``os`` (aliases, private attributes, format fields, subclass and
    frame walks), then ``os.open``/``os.read`` of the secret."""
    box, ctl = ctxs
    env = "iso_getters_refused" if getter in p.LINT_REFUSED else "iso_getters"
    where = b.Where(root, env, env_secret, GOLD)
    with b.scenario("read_os", box, where, target="secret") as sc:
        out = probe(reg, env, f"read_os_{getter}", sc.arg)
        assert_blocked(f"{env}/{getter}", out, sc.needles, sc.effects())
    with b.scenario("read_os", ctl, where, target="secret", control=True) as sc:
        out = p.run_control("read_os", sc.arg, getter, cwd=ctl.dir)
        assert_control_escapes(getter, out, sc.needles, sc.effects())


@pytest.mark.parametrize("action", ["format_environ", "format_class_globals"])
def test_str_format_attribute_walks_do_not_reach_the_host(reg, root, ctxs, env_secret, action):
    check_probe(reg, root, ctxs, env_secret, action)


# -- 3. tampering with the judge ------------------------------------------------------------------------------
JUDGE = (
    ("awm.runtime.episode", "Episode", "submit"),
    ("awm.runtime.episode", "Episode", "evaluate"),
    ("awm.runtime.episode", None, "run_code_check"),
    ("awm.isolation.code_checks", None, "run_code_check"),
    ("awm.judge.verify", None, "run_checks"),
    ("json", None, "dumps"),
    ("json", None, "loads"),
    ("sqlite3", None, "connect"),
)


def _owner(module: str, cls: str | None) -> Any:
    import importlib

    mod = importlib.import_module(module)
    return getattr(mod, cls) if cls else mod


@pytest.fixture
def judge_originals() -> Iterator[dict[tuple[str, str | None, str], Any]]:
    """The judge's functions before the probe; put back afterwards whatever a probe did (in-process today)."""
    originals = {k: getattr(_owner(k[0], k[1]), k[2]) for k in JUDGE}
    yield originals
    for (module, cls, name), obj in originals.items():
        owner = _owner(module, cls)
        if getattr(owner, name) is not obj:
            setattr(owner, name, obj)


def _outcome(world: Any, arguments: dict[str, Any]) -> float:
    ep = world.episode("t00")
    assert ep.call("add_item", arguments).ok
    return ep.submit().rewards.outcome


@pytest.mark.parametrize("action", ["tamper", "tamper_gc"])
def test_an_app_cannot_tamper_with_the_judge_of_other_environments(reg, judge_originals, action):
    other = reg.load("iso_other")
    probe(reg, "iso_alias", action, {})
    changed = [
        ".".join(x for x in k if x) for k, obj in judge_originals.items() if getattr(_owner(*k[:2]), k[2]) is not obj
    ]
    wrong, right = _outcome(other, b.WRONG), _outcome(other, b.CORRECT)
    assert not changed and wrong == 0.0 and right == 1.0, (
        f"{action} ESCAPED: replaced {changed}; another environment's wrong solution scores {wrong}"
    )


def test_an_app_cannot_tamper_with_its_own_verifier(reg, judge_originals):
    world = reg.load("iso_alias")
    probe(reg, "iso_alias", "tamper", {})
    wrong, right = _outcome(world, b.WRONG), _outcome(world, b.CORRECT)
    assert wrong == 0.0 and right == 1.0, f"tamper ESCAPED: the app's own wrong solution scores {wrong}"


def test_an_app_cannot_write_to_other_episodes(reg):
    victim = reg.load("iso_other").episode("t00")
    sibling = reg.load("iso_alias").episode("t00")
    out = probe(reg, "iso_alias", "cross_episode", {})
    rows = victim.query("SELECT qty FROM iso_items ORDER BY id"), sibling.query("SELECT qty FROM iso_items ORDER BY id")
    assert rows == ([(5,), (3,)], [(5,), (3,)]), f"cross_episode ESCAPED: {out[:200]}; other episodes now {rows}"


# -- 4. the serving process's environment ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("action", "target"),
    [
        ("environ", ""),
        ("read_file", "proc_self_environ"),
        ("read_file", "proc_1_environ"),
        ("read_file", "proc_parent_environ"),
    ],
)
def test_an_app_sees_no_host_environment(reg, root, ctxs, env_secret, action, target):
    check_probe(reg, root, ctxs, env_secret, action, target=target)


# -- files: reads ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("action", "target"),
    [
        ("read_file", "secret"),
        ("read_file", "passwd"),
        ("read_file", "project"),
        ("read_file", "own_verifier"),
        ("read_os", "secret"),
        ("sqlite_read", ""),
        ("listdir", ""),
    ],
)
def test_an_app_reads_no_host_file(reg, root, ctxs, env_secret, action, target):
    check_probe(reg, root, ctxs, env_secret, action, target=target)


# -- 5. processes ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", SPAWNS)
def test_an_app_spawns_no_process(reg, root, ctxs, env_secret, action):
    check_probe(reg, root, ctxs, env_secret, action)


@pytest.mark.parametrize("action", ["signal", "ps"])
def test_an_app_neither_signals_nor_sees_host_processes(reg, root, ctxs, env_secret, action):
    check_probe(reg, root, ctxs, env_secret, action)


# -- 6. network -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", NETWORK)
def test_an_app_reaches_no_socket(reg, root, ctxs, env_secret, action):
    check_probe(reg, root, ctxs, env_secret, action)


# -- 7. SQL through the app's own engine ----------------------------------------------------------------------
SQL_PROBES: dict[str, tuple[list[str], bool]] = {
    "attach": (["ATTACH DATABASE '{other}' AS o", "CREATE TABLE o.t (x)", "INSERT INTO o.t VALUES (1)"], False),
    "attach_uri": (["ATTACH DATABASE 'file:{other}?mode=rwc' AS o", "CREATE TABLE o.t (x)"], False),
    "vacuum_into": (["VACUUM INTO '{other}'"], False),
    "create_table": (["CREATE TABLE evil (x)"], False),
    "drop_table": (["DROP TABLE iso_orders"], False),
    "alter_table": (["ALTER TABLE iso_items ADD COLUMN evil TEXT"], False),
    "temp_trigger": (["CREATE TEMP TRIGGER evil AFTER INSERT ON iso_items BEGIN DELETE FROM iso_orders; END"], False),
    "writable_schema": (
        [
            "PRAGMA writable_schema = ON",
            "UPDATE sqlite_master SET sql = replace(sql, 'qty', 'evil') WHERE name = 'iso_items'",
        ],
        False,
    ),
    "sqlite_master_write": (["DELETE FROM sqlite_master WHERE name = 'idx_iso_orders_item'"], False),
    "load_extension": (["SELECT load_extension('{dir}/evil')"], False),
    "readfile": (["SELECT readfile('/etc/passwd')", "SELECT readfile('{secret}')"], False),
    "foreign_keys_off": (["PRAGMA foreign_keys = OFF", "INSERT INTO iso_orders (item_id, qty) VALUES (999, 1)"], False),
    "pragmas": (
        [
            "PRAGMA defer_foreign_keys = ON",
            "PRAGMA recursive_triggers = ON",
            "PRAGMA ignore_check_constraints = ON",
            "PRAGMA trusted_schema = ON",
            "PRAGMA cache_size = 1",
        ],
        False,
    ),
    # raw transaction control: the app never commits through its session, so nothing may stay
    "commit_then_fail": (["INSERT INTO iso_items (name, qty) VALUES ('evil', 1)", "COMMIT", "BEGIN"], True),
}
PRAGMAS = ("foreign_keys", "writable_schema", "defer_foreign_keys", "recursive_triggers", "ignore_check_constraints")


def _db_state(ep: Any) -> dict[str, Any]:
    return {
        "schema": ep.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"),
        # the episode's own change capture (_awm_*) is not the app's doing
        "temp": ep.query("SELECT type, name, sql FROM sqlite_temp_master WHERE substr(name, 1, 5) != '_awm_'"),
        "pragmas": {name: ep.query(f"PRAGMA {name}") for name in PRAGMAS},
        "fk_check": ep.query("PRAGMA foreign_key_check"),
        "items": ep.query("SELECT * FROM iso_items ORDER BY id"),
        "orders": ep.query("SELECT * FROM iso_orders ORDER BY id"),
    }


@pytest.mark.parametrize("name", list(SQL_PROBES))
def test_app_sql_stays_inside_the_episode(reg, ctxs, name):
    box, _ = ctxs
    other = box.dir / "other.db"
    statements, fail = SQL_PROBES[name]
    statements = [s.format(other=other, dir=box.dir, secret=box.secret_path) for s in statements]
    ep = reg.load("iso_alias").episode("t00")
    before = _db_state(ep)
    res = ep.call("run_sql", {"statements": statements, "commit": not fail, "fail": fail})
    out = b.step_text(res)
    assert_blocked(f"sql {name}", out, ["root:x:0:", box.secret], [f"{other} exists"] if other.exists() else [])
    after = _db_state(ep)
    assert after == before, f"sql {name} changed the episode's database outside its data: {out[:300]}"
    added = ep.call("add_item", b.CORRECT)  # the episode still works, with its constraints
    assert added.ok and ep.query("SELECT COUNT(*) FROM iso_items") == [(3,)]
    ep.call("run_sql", {"statements": ["INSERT INTO iso_orders (item_id, qty) VALUES (999, 1)"]})
    assert ep.query("PRAGMA foreign_key_check") == [], "foreign keys are off after the probe"


# -- 8. resource abuse ----------------------------------------------------------------------------------------
def _bounded_call(world: Any, tool: str, arguments: dict[str, Any], bound: float) -> tuple[Any, float]:
    """The call, made in a thread: (its StepResult or None if it did not come back within ``bound``, seconds)."""
    box: dict[str, Any] = {}
    start = time.monotonic()

    def run() -> None:
        box["res"] = world.episode("t00").call(tool, arguments)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(bound)
    return box.get("res"), time.monotonic() - start


def _describe(res: Any) -> str:
    if res is None:
        return "no result"
    if res.error is not None:
        return f"error {res.error.code}: {res.error.message[:200]}"
    return f"ok, a {type(res.result).__name__} result"


@pytest.mark.parametrize(
    "action",
    ["alloc_bytes", "alloc_list", "recursion", "huge", pytest.param("sleep", marks=pytest.mark.slow)],
)
def test_resource_abuse_ends_in_an_error(reg, action):
    world = reg.load("iso_alias")
    with b.PeakRss() as rss:
        res, seconds = _bounded_call(world, "probe_" + action, {"arg": json.dumps({"seconds": 45})}, BOUND_S)
    code = res.error.code if res is not None and res.error is not None else None
    assert code in ERROR_CODES and seconds < BOUND_S and rss.grown_mb < RSS_MB, (
        f"{action}: {_describe(res)} after {seconds:.1f} s; the parent grew by {rss.grown_mb:.0f} MB"
    )
    del res
    normal_calls_work(reg, "iso_alias", "iso_other")


@pytest.mark.slow  # as long as the runtime's call limit (10 s)
def test_a_busy_loop_is_killed_without_blocking_other_environments(reg):
    hostile, other = reg.load("iso_alias"), reg.load("iso_other")
    normal_calls_work(reg, "iso_other")  # warm
    box: dict[str, Any] = {}
    start = time.monotonic()

    def run_hostile() -> None:
        box["res"] = hostile.episode("t00").call("probe_busy", {"arg": json.dumps({"seconds": 45})})
        box["seconds"] = time.monotonic() - start

    thread = threading.Thread(target=run_hostile, daemon=True)
    thread.start()
    time.sleep(0.5)
    concurrent, latency = _bounded_call(other, "list_items", {}, 10)
    thread.join(max(0.0, BOUND_S - (time.monotonic() - start)))
    res = box.get("res")
    assert concurrent is not None and concurrent.ok and latency < 2.0, (
        f"another environment's call took {latency:.1f} s while the busy loop ran ({_describe(concurrent)})"
    )
    code = res.error.code if res is not None and res.error is not None else None
    assert code in ERROR_CODES, f"busy loop: {_describe(res)} after {time.monotonic() - start:.1f} s"
    normal_calls_work(reg, "iso_alias", "iso_other")


CRASHES_FAST = ("os_exit", "segfault")  # the rest run with -m slow (each group costs a child process)


@pytest.fixture(scope="module")
def crash_runner(root: Path, env_secret: tuple[str, str]) -> Callable[[tuple[str, ...]], dict[str, Any]]:
    """Runs crash probes in a child process of the test (today's in-process runtime would take pytest down with
    them): one line per probe, then whether the same and another environment still answer. Once per group."""
    done: dict[tuple[str, ...], dict[str, Any]] = {}

    def run(group: tuple[str, ...]) -> dict[str, Any]:
        if group not in done:
            args = [sys.executable, "-c", p.HARNESS, str(root), "iso_crash", "iso_other", json.dumps(group)]
            env = {**os.environ, "PYTHONPATH": str(b.REPO_ROOT)}
            try:
                proc = subprocess.run(args, capture_output=True, text=True, timeout=170, cwd=b.REPO_ROOT, env=env)
                stdout, tail, rc = proc.stdout, proc.stderr[-800:], proc.returncode
            except subprocess.TimeoutExpired as e:
                stdout, tail, rc = (e.stdout or b"").decode(), "timed out", None
            lines = {}
            for line in stdout.splitlines():
                with contextlib.suppress(ValueError):
                    obj = json.loads(line)
                    if isinstance(obj, dict) and "probe" in obj:
                        lines[obj["probe"]] = obj
            done[group] = {"lines": lines, "rc": rc, "tail": tail}
        return done[group]

    return run


@pytest.mark.parametrize(
    "action", [*CRASHES_FAST, *(pytest.param(a, marks=pytest.mark.slow) for a in CRASHES if a not in CRASHES_FAST)]
)
def test_a_crashing_app_takes_down_only_its_worker(crash_runner, action):
    group = CRASHES_FAST if action in CRASHES_FAST else tuple(a for a in CRASHES if a not in CRASHES_FAST)
    report = crash_runner(group)
    line = report["lines"].get(action)
    assert line is not None, f"{action} took the serving process down (exit code {report['rc']}): {report['tail']}"
    assert not line["ok"] and line["code"] in ERROR_CODES, line
    assert line["again"] == SEED_ITEMS and line["elsewhere"] == SEED_ITEMS, line


def test_app_output_cannot_forge_replies(reg):
    probe(reg, "iso_alias", "inject", {})
    world = reg.load("iso_alias")
    normal_calls_work(reg, "iso_alias", "iso_other")
    assert _outcome(world, b.WRONG) == 0.0 and _outcome(world, b.CORRECT) == 1.0


# -- 9. writing files -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", b.WRITE_TARGETS)
def test_an_app_writes_no_host_file(reg, root, ctxs, env_secret, target):
    check_probe(reg, root, ctxs, env_secret, "write_file", target=target)


def test_an_app_creates_no_sqlite_file(reg, root, ctxs, env_secret):
    check_probe(reg, root, ctxs, env_secret, "sqlite_create", target="tmp_path")


@pytest.mark.parametrize("op", ["truncate", "rename", "chmod", "unlink", "utime", "append"])
def test_an_app_modifies_no_host_file(reg, root, ctxs, env_secret, op):
    check_probe(reg, root, ctxs, env_secret, "modify", target=op)
