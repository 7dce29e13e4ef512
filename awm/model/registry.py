"""Finds environment bundles: the repository's ``envs/`` + ``verifiers/`` and any extra roots a
user adds (argument, or the ``AWM_PATH`` environment variable, ``os.pathsep``-separated).

A root is a folder holding ``envs/<env>/`` and ``verifiers/<env>/``; a root passed explicitly that is not
one raises ``RegistryPathError`` (never silently ignored). A malformed bundle is reported in ``entries()``
with its error and skipped; it never takes the registry down.
"""

from __future__ import annotations

import difflib
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from awm.bundle.loader import read_manifest
from awm.bundle.records import Manifest
from awm.errors import AwmError, BundleError, UnknownEnvironmentError
from awm.model.world import World
from awm.model.worldcache import cached_summary, load_world, summary_of
from awm.worldgen import WorldKey

ENV_VAR = "AWM_PATH"
PACKAGE_DIR = Path(__file__).resolve().parents[1]  # the awm package
REPO_ROOT = PACKAGE_DIR.parent
# the environments shipped with AWM Gym: the checkout's envs/ + verifiers/, or the copy inside a wheel
BUNDLED_ROOT = REPO_ROOT if (REPO_ROOT / "envs").is_dir() else PACKAGE_DIR / "_data"


@dataclass(frozen=True)
class Entry:
    """One bundle found on disk; ``error`` is set when its manifest cannot be read."""

    name: str
    env_dir: Path
    verifier_dir: Path
    manifest: Manifest | None
    error: str | None = None

    @property
    def gym_id(self) -> str:
        return f"awm/{self.name}-v{self.manifest.version if self.manifest else 0}"


class RegistryPathError(AwmError):
    """An extra root given explicitly (``--path``, ``Registry([...])``) is not a folder holding ``envs/``."""


def check_root(path: str | os.PathLike[str]) -> Path:
    """``path`` as a registry root: a folder holding ``envs/`` (the ``envs/`` folder itself means its parent)."""
    root = Path(path).expanduser()
    if root.name == "envs" and root.is_dir() and not (root / "envs").is_dir():
        root = root.parent
    if not root.is_dir():
        raise RegistryPathError(f"--path {path}: no such folder")
    if not (root / "envs").is_dir():
        raise RegistryPathError(f"--path {path}: no envs/ folder in it (a root holds envs/<env>/ and verifiers/<env>/)")
    return root


def default_roots(extra: Iterable[str | os.PathLike[str]] = ()) -> list[Path]:
    roots = [check_root(p) for p in extra]
    roots += [Path(p) for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p]
    if (BUNDLED_ROOT / "envs").is_dir():
        roots.append(BUNDLED_ROOT)
    return roots


class Registry:
    """Bundles by name. Worlds are compiled on first ``load`` and cached."""

    def __init__(self, roots: Sequence[str | os.PathLike[str]] | None = None, *, include_default: bool = True):
        self.roots = default_roots(roots or ()) if include_default else [Path(r) for r in roots or ()]
        self._worlds: dict[str, World] = {}
        self._lock = threading.Lock()
        self._entries: dict[str, Entry] | None = None

    def entries(self) -> dict[str, Entry]:
        """Every bundle found, first root wins on a name clash."""
        if self._entries is None:
            found: dict[str, Entry] = {}
            for root in self.roots:
                env_root = root / "envs"
                if not env_root.is_dir():
                    continue
                for d in sorted(p for p in env_root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
                    if d.name in found or not (d / "env.json").exists():
                        continue
                    vdir = root / "verifiers" / d.name
                    try:
                        found[d.name] = Entry(d.name, d, vdir, read_manifest(d))
                    except AwmError as e:
                        found[d.name] = Entry(d.name, d, vdir, None, str(e))
            self._entries = found
        return self._entries

    def names(self) -> list[str]:
        """Names of the bundles whose manifest reads cleanly."""
        return sorted(n for n, e in self.entries().items() if e.error is None)

    def load(self, name: str) -> World:
        """The compiled world, or ``UnknownEnvironmentError`` / ``BundleError``."""
        with self._lock:
            if name in self._worlds:
                return self._worlds[name]
            entries = self.entries()
            entry = entries.get(name)
            if entry is None:
                raise UnknownEnvironmentError(name, difflib.get_close_matches(name, list(entries), 3), sorted(entries))
            if entry.error is not None:
                raise BundleError(name, [entry.error])
            world = load_world(entry.env_dir, entry.verifier_dir)  # compiled once, then from the disk cache
            self._worlds[name] = world
            return world

    def summary(self, name: str) -> dict[str, Any]:
        """Table, tool and task counts and the title of a world that loads (``load``'s errors otherwise):
        from the compile cache when the bundle compiled before, without importing its tools."""
        with self._lock:
            world = self._worlds.get(name)
            entry = self.entries().get(name)
        if world is None and entry is not None and entry.error is None:
            cached = cached_summary(entry.env_dir, entry.verifier_dir)
            if cached is not None:
                return cached
        return summary_of(world if world is not None else self.load(name))

    def world(self, name: str, key: WorldKey | None = None) -> World:
        """The environment on the world ``key`` (None: canonical); built worlds are cached by ``World.variant``."""
        base = self.load(name)
        return base if key is None else base.variant(key)

    def refresh(self) -> None:
        with self._lock:
            self._entries = None
            self._worlds.clear()


@cache
def default_registry() -> Registry:
    return Registry()


@cache
def registry_for(paths: tuple[str, ...]) -> Registry:
    """One shared registry per set of extra roots, so worlds compile once per process."""
    return Registry(list(paths))


def load(name: str, *, paths: Sequence[str | os.PathLike[str]] | None = None) -> World:
    """Compile environment ``name`` from the default registry (plus ``paths``, if given)."""
    if paths:
        return registry_for(tuple(str(p) for p in paths)).load(name)
    return default_registry().load(name)
