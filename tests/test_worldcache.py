"""Compiled worlds cached on disk (``awm.model.worldcache``): a hit is the same world as a compile, any change to
the bundle or the compiler is a miss, and a broken or foreign entry costs only speed."""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from unittest.mock import patch

import pytest

from awm.bundle.loader import read_bundle
from awm.errors import BundleError
from awm.model import worldcache
from awm.model.registry import Registry
from awm.model.world import World

REPO = Path(__file__).resolve().parents[1]
ENV = "online_store"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("AWM_CACHE_DIR", str(folder))
    monkeypatch.delenv("AWM_CACHE", raising=False)
    return folder / "worlds"


def copy_bundle(root: Path, env: str = ENV) -> tuple[Path, Path]:
    shutil.copytree(REPO / "envs" / env, root / "envs" / env, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "verifiers" / env, root / "verifiers" / env)
    return root / "envs" / env, root / "verifiers" / env


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.pkl"))


def verdicts(world: World) -> list[tuple[str, float, bytes]]:
    """Every fixed task's gold solution played: the outcome reward and the final database, byte for byte."""
    out = []
    for tid in world.task_ids:
        ep = world.episode(tid)
        for call in ep.task.verifier.gold.calls:
            ep.call(call.tool, call.arguments)
        result = ep.submit(ep.task.verifier.gold.answer)
        out.append((tid, result.reward, ep.conn.serialize()))
        ep.close()
    return out


def test_a_hit_is_the_same_world_as_a_compile(cache: Path, tmp_path: Path) -> None:
    env_dir, ver_dir = copy_bundle(tmp_path / "root")
    compiled = worldcache.load_world(env_dir, ver_dir)
    assert len(entries(cache)) == 1
    hit = worldcache.load_world(env_dir, ver_dir)
    assert hit is not compiled and len(entries(cache)) == 1
    plain = World(read_bundle(env_dir, ver_dir))
    for w in (compiled, hit):
        assert w.seed_blob == plain.seed_blob and w.start_blob == plain.start_blob
        assert w.task_ids == plain.task_ids and w.template_ids == plain.template_ids
        assert [s.model_dump() for s in w.tool_specs()] == [s.model_dump() for s in plain.tool_specs()]
        assert {t: c.frame.expected for t, c in w.tasks.items()} == {
            t: c.frame.expected for t, c in plain.tasks.items()
        }
    assert verdicts(hit) == verdicts(plain)
    assert all(reward == 1.0 for _, reward, _ in verdicts(hit))
    # a built world and a template instance on the restored world, as on the compiled one
    a, b = plain.sample(3), hit.sample(3)
    assert a.id == b.id and a.task.instruction == b.task.instruction and a.expected == b.expected


def test_a_copy_elsewhere_reuses_the_entry_with_its_own_paths(cache: Path, tmp_path: Path) -> None:
    first = copy_bundle(tmp_path / "a")
    second = copy_bundle(tmp_path / "b")
    worldcache.load_world(*first)
    world = worldcache.load_world(*second)
    assert len(entries(cache)) == 1
    assert world.files.env_dir == second[0] and world.files.tools_path == second[0] / "tools.py"
    assert world.files.builder_path == second[0] / "world.py"
    assert world._canonical_files.verifier_dir == second[1]


@pytest.mark.parametrize("change", ["tasks", "verifiers", "tools", "seed"])
def test_any_change_to_the_bundle_is_a_miss(cache: Path, tmp_path: Path, change: str) -> None:
    env_dir, ver_dir = copy_bundle(tmp_path / "root")
    before = worldcache.load_world(env_dir, ver_dir)
    if change == "tasks":
        path = env_dir / "tasks.jsonl"
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        rows[0]["instruction"] += " Please."
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif change == "verifiers":
        (ver_dir / "notes.txt").write_text("a new file in the verifier folder\n")
    elif change == "tools":
        path = env_dir / "tools.py"
        path.write_text(path.read_text() + "\n# a comment\n")
    else:
        path = env_dir / "seed.json"
        seed = json.loads(path.read_text())
        table = next(iter(seed["tables"]))
        seed["tables"][table] = seed["tables"][table][:-1] if len(seed["tables"][table]) > 1 else seed["tables"][table]
        path.write_text(json.dumps(seed))
    try:
        after = worldcache.load_world(env_dir, ver_dir)
    except BundleError:
        after = None  # the change broke the bundle: compiled (and failing) anew, not served stale
    assert len(entries(cache)) == (2 if after is not None else 1)
    if change == "tasks" and after is not None:
        tid = before.task_ids[0]
        assert after.tasks[tid].task.instruction.endswith(" Please.")
        assert not before.tasks[tid].task.instruction.endswith(" Please.")


def test_a_change_to_the_compiler_is_a_miss(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_dir, ver_dir = copy_bundle(tmp_path / "root")
    worldcache.load_world(env_dir, ver_dir)
    monkeypatch.setattr(worldcache, "code_digest", lambda: "another compiler")
    worldcache.load_world(env_dir, ver_dir)
    assert len(entries(cache)) == 2


def test_a_broken_bundle_is_never_stored_and_fails_every_time(cache: Path, tmp_path: Path) -> None:
    env_dir, ver_dir = copy_bundle(tmp_path / "root")
    (env_dir / "schema.sql").write_text("CREATE TABLE broken (\n")
    for _ in range(2):
        with pytest.raises(BundleError, match=r"schema\.sql"):
            worldcache.load_world(env_dir, ver_dir)
    assert entries(cache) == []


def test_a_corrupt_or_foreign_entry_is_a_miss_and_is_replaced(cache: Path, tmp_path: Path) -> None:
    env_dir, ver_dir = copy_bundle(tmp_path / "root")
    worldcache.load_world(env_dir, ver_dir)
    (entry,) = entries(cache)
    entry.write_bytes(b"not a pickle")
    world = worldcache.load_world(env_dir, ver_dir)
    assert world.task_ids and pickle.loads(entry.read_bytes())["world"]["id"] == ENV
    entry.write_bytes(pickle.dumps(["a list, not a world's state"]))
    assert worldcache.load_world(env_dir, ver_dir).task_ids == world.task_ids


def test_off_switch_and_an_unwritable_folder_only_cost_speed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_dir, ver_dir = copy_bundle(tmp_path / "root")
    monkeypatch.setenv("AWM_CACHE", "off")
    monkeypatch.setenv("AWM_CACHE_DIR", str(tmp_path / "off"))
    assert worldcache.load_world(env_dir, ver_dir).task_ids
    assert not (tmp_path / "off").exists()
    monkeypatch.delenv("AWM_CACHE")
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv("AWM_CACHE_DIR", str(blocker))
    assert worldcache.load_world(env_dir, ver_dir).task_ids


def test_old_entries_are_pruned(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worldcache, "MAX_ENTRIES", 2)
    env_dir, ver_dir = copy_bundle(tmp_path / "root")
    for i in range(4):
        (ver_dir / "notes.txt").write_text(f"version {i}\n")
        worldcache.load_world(env_dir, ver_dir)
    assert len(entries(cache)) == 2


def test_another_process_loads_what_this_one_compiled(cache: Path, tmp_path: Path) -> None:
    """The point of the disk cache: the second process (a test worker, a serve worker) skips the compile."""
    root = tmp_path / "root"
    copy_bundle(root)
    Registry([root], include_default=False).load(ENV)
    (entry,) = entries(cache)
    stamp = entry.stat().st_mtime_ns
    script = (
        "import sys; from awm.model import worldcache; from awm.model.world import World;"
        "calls = []; real = World.__init__;"
        "World.__init__ = lambda self, *a, **k: (calls.append(1), real(self, *a, **k))[1];"
        "from awm.model.registry import Registry;"
        f"w = Registry([{str(root)!r}], include_default=False).load({ENV!r});"
        "print(len(calls), len(w.task_ids))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**_env(), "AWM_CACHE_DIR": str(cache.parent)},
    )
    assert out.returncode == 0, out.stderr
    compiles, tasks = map(int, out.stdout.split())
    assert compiles == 0 and tasks > 0
    assert entry.stat().st_mtime_ns >= stamp


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "AWM_CACHE"}


def test_the_summary_comes_from_the_cache_without_importing_tools(cache: Path, tmp_path: Path) -> None:
    """``awm list`` reads counts from the entry: equal to the loaded world's, and no ``tools.py`` is imported
    (a tools.py that no longer imports would fail a load, so the probe below proves it was not)."""
    env_dir, ver_dir = copy_bundle(tmp_path / "root")
    assert worldcache.cached_summary(env_dir, ver_dir) is None  # never compiled here
    world = worldcache.load_world(env_dir, ver_dir)
    summary = worldcache.cached_summary(env_dir, ver_dir)
    assert summary == {
        "tables": len(world.tables),
        "tools": len(world.tools),
        "tasks": len(world.task_ids),
        "title": world.manifest.title,
    }
    reg = Registry([tmp_path / "root"], include_default=False)
    with patch.object(World, "_import_tools", side_effect=AssertionError("tools imported")):
        assert reg.summary(ENV) == summary
    (env_dir / "schema.sql").write_text((env_dir / "schema.sql").read_text() + "\n-- changed\n")
    assert worldcache.cached_summary(env_dir, ver_dir) is None  # another bundle: not compiled yet
