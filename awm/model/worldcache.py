"""Compiled worlds cached on disk, keyed by what they are compiled from.

Compiling a canonical world (reading its records, loading the seed, checking every template's slot query,
parsing every verifier's SQL, replaying every gold solution to derive its write frame) costs 0.3–1.2 s per
environment; unpickling the result costs 10–20 ms. ``load_world`` keys the result by a digest of

- every file of the bundle (its ``envs/<id>/`` and ``verifiers/<id>/`` folders, names and bytes),
- the code that compiles it (every ``.py`` file of the ``awm`` package), the Python, SQLite and sqlglot
  versions,

so a change to any of them is a miss, never a stale world. An entry also keeps the world's summary (table,
tool and task counts, title): ``cached_summary`` answers ``awm list`` from it without importing any
``tools.py`` or starting a sandboxed worker. Only a world that compiled without problems is stored; a bundle
with problems compiles (and fails) every time, naming them. The tools are never cached: ``tools.py`` is
imported (or, untrusted, started in its sandboxed worker) on every load, as before. The folder paths are not
part of the key: a copy of a bundle elsewhere reuses the entry, with its own paths.

The cache lives in ``$AWM_CACHE_DIR`` (default ``$XDG_CACHE_HOME/awm`` or ``~/.cache/awm``), folder
``worlds/``, private to the user (mode 0700); ``AWM_CACHE=off`` turns it off. Entries are written atomically
(a reader sees a whole entry or none, across processes), the least recently used are dropped beyond
``MAX_ENTRIES``, and an entry that does not unpickle is a miss (and is replaced).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import pickle
import sqlite3
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from awm.bundle.loader import BundleFiles, read_bundle
from awm.model.world import World

MAX_ENTRIES = 2000  # compiled worlds kept (0.2–1 MiB each)
FORMAT = 2  # bump when the stored state's layout changes in a way the code digest cannot see
PACKAGE = Path(__file__).resolve().parents[1]  # the awm package: every source file keys the cache


def cache_dir() -> Path | None:
    """Where compiled worlds are kept, or None when caching is off (``AWM_CACHE=off``)."""
    if os.environ.get("AWM_CACHE", "").lower() in {"off", "0", "false", "no"}:
        return None
    base = os.environ.get("AWM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "awm"
    )
    return Path(base) / "worlds"


@cache
def code_digest() -> str:
    """The compiler's identity: the ``awm`` package's source, Python, SQLite and sqlglot versions."""
    import sqlglot

    h = hashlib.sha256(f"{FORMAT}|{sys.version}|{sqlite3.sqlite_version}|{sqlglot.__version__}".encode())
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        h.update(str(path.relative_to(PACKAGE)).encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def bundle_digest(env_dir: Path, verifier_dir: Path) -> str:
    """Every file of the bundle (relative names and bytes) and the compiler's identity."""
    h = hashlib.sha256(code_digest().encode())
    for label, folder in (("envs", env_dir), ("verifiers", verifier_dir)):
        if not folder.is_dir():
            h.update(f"{label}: none\0".encode())
            continue
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            h.update(f"{label}/{path.relative_to(folder).as_posix()}\0".encode())
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def load_world(env_dir: Path, verifier_dir: Path) -> World:
    """The canonical world of the bundle at ``env_dir``/``verifier_dir``: from the cache when its digest is
    there, else compiled (``BundleError`` with every problem) and stored."""
    folder = cache_dir()
    if folder is None:
        return World(read_bundle(env_dir, verifier_dir))
    digest = bundle_digest(env_dir, verifier_dir)
    entry = folder / f"{env_dir.name}-{digest[:40]}.pkl"
    stored = _read(entry)
    if stored is not None:
        world = World.restore(_relocate(stored["world"], env_dir, verifier_dir))
        _touch(entry)
        return world
    world = World(read_bundle(env_dir, verifier_dir))
    _write(folder, entry, {"world": world.state(), "summary": summary_of(world)})
    return world


def summary_of(world: World) -> dict[str, Any]:
    """What ``awm list`` shows of a world that loads."""
    return {
        "tables": len(world.tables),
        "tools": len(world.tools),
        "tasks": len(world.task_ids),
        "title": world.manifest.title,
    }


def cached_summary(env_dir: Path, verifier_dir: Path) -> dict[str, Any] | None:
    """The summary stored with the bundle's compiled world (the same files, the same compiler), or None when
    it has not compiled here yet. Reading it imports no ``tools.py``: the counts are those of the load that
    stored it, from the same files."""
    folder = cache_dir()
    if folder is None:
        return None
    stored = _read(folder / f"{env_dir.name}-{bundle_digest(env_dir, verifier_dir)[:40]}.pkl")
    return None if stored is None else dict(stored["summary"])


def _relocate(state: dict[str, Any], env_dir: Path, verifier_dir: Path) -> dict[str, Any]:
    """The stored state with this copy's paths (an entry may come from a copy of the bundle elsewhere)."""
    out = dict(state)
    for key in ("files", "_canonical_files"):
        files: BundleFiles = out[key]
        out[key] = dataclasses.replace(
            files,
            env_dir=env_dir,
            verifier_dir=verifier_dir,
            tools_path=env_dir / files.tools_path.name,
            builder_path=None if files.builder_path is None else env_dir / files.builder_path.name,
        )
    return out


def _read(entry: Path) -> dict[str, Any] | None:
    try:
        data = entry.read_bytes()
    except OSError:
        return None
    try:
        state = pickle.loads(data)  # written by _write below, in a folder only this user can write
    except Exception:  # a truncated or foreign file: a miss, replaced by the next write
        return None
    ok = isinstance(state, dict) and isinstance(state.get("world"), dict) and isinstance(state.get("summary"), dict)
    return state if ok else None


def _write(folder: Path, entry: Path, state: dict[str, Any]) -> None:
    """Atomically: a temporary file in the same folder, then a rename. A failure to write only costs speed."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".pkl")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(state, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, entry)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _prune(folder)
    except OSError:
        return


def _touch(entry: Path) -> None:
    with contextlib.suppress(OSError):
        os.utime(entry)


def _prune(folder: Path) -> None:
    """Drop the least recently used entries beyond ``MAX_ENTRIES``."""
    entries = list(folder.glob("*.pkl"))
    if len(entries) <= MAX_ENTRIES:
        return
    by_age = sorted(entries, key=lambda p: p.stat().st_mtime if p.exists() else 0.0)
    for stale in by_age[: len(entries) - MAX_ENTRIES]:
        with contextlib.suppress(OSError):
            stale.unlink()
