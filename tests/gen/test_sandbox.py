"""Generated code runs only in a child process: scrubbed environment, safety check, time limits."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from awm.gen import sandbox as sandbox_mod
from awm.gen.sandbox import Sandbox, SandboxResult, sandbox_env
from tests.gen.scripted import BIKE, VET, write_bundle


def run(coro: Any) -> SandboxResult:
    return asyncio.run(coro)


@pytest.fixture
def vet_root(tmp_path: Path) -> Path:
    write_bundle(VET, tmp_path)
    return tmp_path


def patch_tools(root: Path, old: str, new: str) -> None:
    path = root / "envs" / "vet_clinic" / "tools.py"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_probe_and_validate_a_sound_bundle(vet_root: Path) -> None:
    write_bundle(BIKE, vet_root)
    sb = Sandbox(call_timeout=1.0)
    res = run(sb.probe(vet_root, "vet_clinic"))
    assert res.ok, res.problems
    assert {t["name"] for t in res.tools} == {
        "find_owner",
        "list_appointments",
        "book_appointment",
        "cancel_appointment",
    }
    assert res.stats["calls"] >= 8
    assert run(sb.validate(vet_root, "bike_share")).ok


def test_an_unhandled_exception_is_reported_with_its_line(vet_root: Path) -> None:
    patch_tools(vet_root, "    return owner\n", "    return owner['phone']\n")
    res = run(Sandbox().probe(vet_root, "vet_clinic"))
    assert not res.ok
    (problem,) = res.problems
    assert problem.startswith("tool find_owner(email='maria.lopez@example.com')")
    assert "KeyError: 'phone'" in problem and "tools.py line 20, in find_owner" in problem


def test_a_result_that_is_not_json_is_reported(vet_root: Path) -> None:
    patch_tools(vet_root, "    return owner\n", "    return {'when': db.now()}\n")
    (problem,) = run(Sandbox().probe(vet_root, "vet_clinic")).problems
    assert "not JSON serializable" in problem


def test_a_python_loop_is_stopped_by_the_call_timer(vet_root: Path) -> None:
    patch_tools(vet_root, '    owner = db.one("SELECT', '    while True:\n        pass\n    owner = db.one("SELECT')
    started = time.monotonic()
    res = run(Sandbox(call_timeout=0.3).probe(vet_root, "vet_clinic"))
    assert time.monotonic() - started < 10
    assert any(p.startswith("tool find_owner(") and "ran longer than 0.3 s" in p for p in res.problems)


def test_a_hung_child_is_killed_at_the_wall_clock_limit(vet_root: Path) -> None:
    # validate replays gold calls without a per-call timer: only the parent's kill can stop this
    patch_tools(vet_root, '    owner = db.one("SELECT', '    while True:\n        pass\n    owner = db.one("SELECT')
    started = time.monotonic()
    res = run(Sandbox(timeout=2.0).validate(vet_root, "vet_clinic"))
    assert time.monotonic() - started < 8
    assert res.timed_out and not res.ok
    assert "did not finish within 2 s while validating" in res.problems[0]


def test_the_child_repeats_the_safety_check(vet_root: Path) -> None:
    patch_tools(vet_root, "from datetime import datetime\n", "from datetime import datetime\nimport os\n")
    for res in (run(Sandbox().probe(vet_root, "vet_clinic")), run(Sandbox().validate(vet_root, "vet_clinic"))):
        assert not res.ok and any("`import os` is not allowed" in p for p in res.problems)


def test_a_crashing_child_is_reported(vet_root: Path) -> None:
    (vet_root / "envs" / "vet_clinic" / "tools.py").unlink()
    res = run(Sandbox().probe(vet_root, "vet_clinic"))
    assert not res.ok and res.problems


def test_the_child_environment_holds_no_secret(monkeypatch: pytest.MonkeyPatch, vet_root: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "nope")
    env = sandbox_env()
    assert not {k for k in env if "KEY" in k or "SECRET" in k or "TOKEN" in k}
    assert {k for k in env if not k.endswith("_NUM_THREADS")} == {
        "PATH",
        "PYTHONPATH",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONHASHSEED",
        "PYTHONIOENCODING",
        "LC_ALL",
    }
    seen: dict[str, Any] = {}
    real = asyncio.create_subprocess_exec

    async def spy(*args: Any, **kw: Any) -> Any:
        seen.update(kw, args=args)
        return await real(*args, **kw)

    monkeypatch.setattr(sandbox_mod.asyncio, "create_subprocess_exec", spy)
    assert run(Sandbox().probe(vet_root, "vet_clinic")).ok
    assert seen["env"] == env and "sk-should-not-leak" not in str(seen)
    assert seen["start_new_session"] is True and "-P" in seen["args"] and "-B" in seen["args"]
    assert not list(vet_root.rglob("__pycache__"))  # nothing written next to the bundle
