"""Imported AWM verifiers are hostile code too: they run at submit/evaluate and must not escape either.

Each probe is a task whose verifier ``verify_<action>(initial_db_path, final_db_path, final_answer)`` ATTEMPTS
an escape (its per-test parameters arrive as ``final_answer``, JSON) and returns ``{"result": "others", "got":
...}``. A test asserts that nothing leaked into the verdict (result, reason) and nothing happened on the host;
a runaway verifier must end not-passed with a reason within a bound; a verifier cannot make a verdict pass
that it did not return, nor change a later verdict. File, environment, network and process probes also run
unconfined in a plain subprocess, which must escape (the positive control).
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from awm.errors import AwmError
from awm.model.registry import Registry
from tests.isolation import bundles as b
from tests.isolation import probes as p

pytest.importorskip("sqlalchemy")
pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="the sandbox needs bubblewrap (bwrap)")

ENV, OTHER = "iso_verify", "iso_vother"
GOLD = b.token("GOLD")
BOUND_S = 30.0
RSS_MB = 200.0

# (kit, action): one task each, id "<kit>_<action>"
PROBES = [
    ("alias", a)
    for a in (
        "read_file",
        "listdir",
        "environ",
        "format_environ",
        "sqlite_class",
        "sqlite_attach",
        "sqlite_attach_final",
        "sqlite_uri",
        "sqlite_write_other",
        "modify",
        "modify_dbs",
        "os_system",
        "subprocess",
        "fork_exec",
        "ctypes_system",
        "signal",
        "ps",
        "tcp",
        "unix",
        "write_file",
        "busy",
        "alloc_bytes",
        "forge_print",
        "forge_fds",
        "forge_exit",
        "forge_close",
        "tamper_worker",
    )
] + [("direct", a) for a in ("read_file", "environ", "os_system", "tcp", "write_file", "sqlite_class")]
TIMEOUTS = {"busy": 2.0, "alloc_bytes": 5.0}


def tid(kit: str, action: str) -> str:
    return f"{kit}_{action}"


# -- fixtures -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def env_secret() -> Iterator[tuple[str, str]]:
    name, value = b.token("AWM_ISO_SECRET_"), b.token()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(name, value)
        yield name, value


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("iso_verifiers")
    verifiers = {
        tid(kit, action): b.Verifier(p.verifier_source(action, kit), takes_answer=True, timeout_s=TIMEOUTS.get(action))
        for kit, action in PROBES
    }
    b.write_env(root, ENV, p.NORMAL_APP, verifiers, gold=GOLD)
    b.write_env(root, OTHER, "# another environment\n" + p.NORMAL_APP, gold=GOLD)
    return root


@pytest.fixture(scope="module")
def reg(root: Path, env_secret: tuple[str, str]) -> Iterator[Registry]:
    registry = Registry([root], include_default=False)
    yield registry
    registry.refresh()


@pytest.fixture
def ctxs(tmp_path: Path) -> Iterator[tuple[b.Ctx, b.Ctx]]:
    box, ctl = b.Ctx(tmp_path / "box"), b.Ctx(tmp_path / "ctl")
    yield box, ctl
    box.cleanup_host()
    ctl.cleanup_host()


# -- helpers --------------------------------------------------------------------------------------------------
def evaluate(reg: Registry, task: str, arg: dict[str, Any]) -> tuple[str, Any]:
    """(everything the verdict says, the Evaluation) of the probe task with ``arg`` as the final answer."""
    try:
        world = reg.load(ENV)
    except AwmError as e:
        return str(e), None
    ev = world.episode(task).evaluate(json.dumps(arg))
    return b.verdict_text(ev), ev


def check_probe(
    reg: Registry,
    root: Path,
    ctxs: tuple[b.Ctx, b.Ctx],
    env_secret: tuple[str, str],
    action: str,
    *,
    kit: str = "alias",
    target: str = "",
) -> None:
    box, ctl = ctxs
    where = b.Where(root, ENV, env_secret, GOLD)
    what = f"verifier {kit}/{action}{'[' + target + ']' if target else ''}"
    with b.scenario(action, box, where, target=target) as sc:
        out, ev = evaluate(reg, tid(kit, action), sc.arg)
        b.assert_blocked(what, out, sc.needles, sc.effects())
        assert ev is None or not ev.passed, f"{what}: a verifier returning 'others' passed"
    with b.scenario(action, ctl, where, target=target, control=True) as sc:
        if sc.controllable:
            out = p.run_control(action, sc.arg, kit, cwd=ctl.dir)
            b.assert_control_escapes(what, out, sc.needles, sc.effects())


def outcome(reg: Registry, env: str, arguments: dict[str, Any]) -> float:
    ep = reg.load(env).episode("t00")
    assert ep.call("add_item", arguments).ok
    return ep.submit().rewards.outcome


def judged_correctly(reg: Registry, *envs: str) -> list[str]:
    """Problems with the normal task's verdicts (t00: a wrong solution scores 0, the right one 1)."""
    out = []
    for env in envs:
        wrong, right = outcome(reg, env, b.WRONG), outcome(reg, env, b.CORRECT)
        if (wrong, right) != (0.0, 1.0):
            out.append(f"{env}: wrong solution {wrong}, right solution {right}")
    return out


# -- the control case -----------------------------------------------------------------------------------------
def test_a_normal_verifier_still_judges(reg):
    assert judged_correctly(reg, ENV, OTHER) == []
    ev = reg.load(ENV).episode("t00").evaluate()
    assert not ev.passed and ev.code is not None and ev.code.reason  # untouched: not complete, and it says why


# -- files ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kit", "action", "target"),
    [
        ("alias", "read_file", "secret"),
        ("alias", "read_file", "passwd"),
        ("alias", "read_file", "project"),
        ("alias", "listdir", ""),
        ("direct", "read_file", "secret"),
        ("direct", "read_file", "passwd"),
    ],
)
def test_a_verifier_reads_no_host_file(reg, root, ctxs, env_secret, kit, action, target):
    check_probe(reg, root, ctxs, env_secret, action, kit=kit, target=target)


@pytest.mark.parametrize(
    ("kit", "action"),
    [
        ("alias", "sqlite_class"),
        ("alias", "sqlite_attach"),
        ("alias", "sqlite_attach_final"),
        ("alias", "sqlite_uri"),
        ("direct", "sqlite_class"),
    ],
)
def test_a_verifier_opens_no_other_database(reg, root, ctxs, env_secret, kit, action):
    check_probe(reg, root, ctxs, env_secret, action, kit=kit)


def test_a_verifier_writes_no_other_database(reg, root, ctxs, env_secret):
    check_probe(reg, root, ctxs, env_secret, "sqlite_write_other")


@pytest.mark.parametrize("op", ["truncate", "rename", "chmod", "unlink", "append"])
def test_a_verifier_modifies_no_host_file(reg, root, ctxs, env_secret, op):
    check_probe(reg, root, ctxs, env_secret, "modify", target=op)


@pytest.mark.parametrize(("kit", "target"), [("alias", "host_tmp"), ("alias", "repo"), ("alias", "tmp_path")])
def test_a_verifier_writes_no_host_file(reg, root, ctxs, env_secret, kit, target):
    check_probe(reg, root, ctxs, env_secret, "write_file", kit=kit, target=target)


def test_a_verifier_writes_no_host_file_directly(reg, root, ctxs, env_secret):
    check_probe(reg, root, ctxs, env_secret, "write_file", kit="direct", target="host_tmp")


def test_a_verifier_cannot_spoil_the_state_files_of_later_verdicts(reg, root, ctxs, env_secret):
    """Truncating, renaming or chmodding its initial/final database files changes no later verdict."""
    box, ctl = ctxs
    out, ev = evaluate(reg, tid("alias", "modify_dbs"), box.arg())
    assert ev is None or not ev.passed, out[:300]
    assert judged_correctly(reg, ENV, OTHER) == []
    with b.scenario("modify_dbs", ctl, b.Where(root, ENV, env_secret, GOLD), control=True) as sc:
        out = p.run_control("modify_dbs", sc.arg, cwd=ctl.dir)
        b.assert_control_escapes("modify_dbs", out, [], sc.effects())


# -- processes and network ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kit", "action"),
    [
        ("alias", "os_system"),
        ("alias", "subprocess"),
        ("alias", "fork_exec"),
        ("alias", "ctypes_system"),
        ("alias", "signal"),
        ("alias", "ps"),
        ("direct", "os_system"),
    ],
)
def test_a_verifier_spawns_signals_and_sees_no_process(reg, root, ctxs, env_secret, kit, action):
    check_probe(reg, root, ctxs, env_secret, action, kit=kit)


@pytest.mark.parametrize(("kit", "action"), [("alias", "tcp"), ("alias", "unix"), ("direct", "tcp")])
def test_a_verifier_reaches_no_socket(reg, root, ctxs, env_secret, kit, action):
    check_probe(reg, root, ctxs, env_secret, action, kit=kit)


# -- the environment ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kit", "action", "target"),
    [
        ("alias", "environ", ""),
        ("alias", "format_environ", ""),
        ("direct", "environ", ""),
        ("alias", "read_file", "proc_parent_environ"),
        ("alias", "read_file", "proc_1_environ"),
        ("alias", "read_file", "proc_self_environ"),
    ],
)
def test_a_verifier_sees_no_host_environment(reg, root, ctxs, env_secret, kit, action, target):
    check_probe(reg, root, ctxs, env_secret, action, kit=kit, target=target)


# -- resources ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ["busy", "alloc_bytes"])
def test_a_runaway_verifier_is_stopped(reg, action):
    box: dict[str, Any] = {}
    start = time.monotonic()
    with b.PeakRss() as rss:
        thread = threading.Thread(target=lambda: box.update(ev=evaluate(reg, tid("alias", action), {})[1]))
        thread.daemon = True
        thread.start()
        thread.join(BOUND_S)
    seconds = time.monotonic() - start
    ev = box.get("ev")
    assert ev is not None and seconds < BOUND_S, f"{action}: no verdict within {BOUND_S:g} s"
    assert not ev.passed and ev.code is not None and ev.code.reason, ev
    assert rss.grown_mb < RSS_MB, f"{action}: the parent grew by {rss.grown_mb:.0f} MB"
    assert judged_correctly(reg, ENV) == []


# -- the verdict itself ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ["forge_print", "forge_fds", "forge_exit", "forge_close"])
def test_a_verifier_cannot_forge_its_verdict(reg, action):
    """It prints/writes a forged 'complete' reply (to stdout, stderr and every pipe or socket it has) and
    returns "others", exits, or closes its descriptors: the verdict is never passed. (A verifier that patches
    json inside its own run changes only its own result, which it could return outright: the verifier *is*
    its task's judge. What it must not reach is any other verdict: the next test.)"""
    out, ev = evaluate(reg, tid("alias", action), {})
    assert ev is not None and not ev.passed, f"{action} ESCAPED: the verdict passed ({out[:300]})"


def test_a_verifier_cannot_change_later_verdicts(reg):
    """After a verifier patched json (every "others" serialised becomes "complete") in whatever process ran it,
    later verdicts (of this environment and another) are unchanged."""
    evaluate(reg, tid("alias", "tamper_worker"), {})
    for _ in range(2):  # twice: the next run may reuse what ran the tamperer
        assert judged_correctly(reg, ENV, OTHER) == []
    for action in ("forge_fds", "forge_exit", "forge_close"):
        evaluate(reg, tid("alias", action), {})
        assert judged_correctly(reg, ENV) == [], f"after {action}"
