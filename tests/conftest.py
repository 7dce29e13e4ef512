"""Shared fixtures: a tiny real bundle on disk (tests/fixtures/root) and helpers to break copies of it."""

from __future__ import annotations

import functools
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from awm.model.registry import Registry, default_registry
from awm.model.world import World
from awm.proof.validate import Report, validate_env

if os.environ.get("PYTEST_XDIST_WORKER"):  # xdist's workers get COLUMNS=80, LINES=24: a terminal nobody has
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)

FIXTURE_ROOT = Path(__file__).parent / "fixtures" / "root"

# Sweeps over every environment run one representative of each class in the default run (hand-written,
# generated, the test fixture) and the rest under ``-m slow`` (``make test-slow``, run by CI too).
REPRESENTATIVES = frozenset({"online_store", "marina", "mini_shop"})


def sweep(
    envs: list[str], *, key: Callable[[str], str] = lambda e: e, representatives: frozenset[str] = REPRESENTATIVES
) -> list[Any]:
    """``envs`` as parameters: the representatives as they are, every other one marked slow.
    ``key`` maps a parameter to its environment's name (a gym id, a (gym id, task) pair ...)."""
    return [e if key(e) in representatives else pytest.param(e, marks=pytest.mark.slow) for e in envs]


FAULTY_TOOLS = Path(__file__).parent / "fixtures" / "faulty_tools.py"


def make_lab_root(directory: Path) -> Path:
    """A copy of the fixture root whose mini_shop also has misbehaving tools (a read tool that writes,
    a runaway query, a tool that sleeps in Python): the engine's defences are tested on it."""
    root = directory / "lab"
    shutil.copytree(FIXTURE_ROOT, root)
    tools = root / "envs" / "mini_shop" / "tools.py"
    extra = FAULTY_TOOLS.read_text().split('"""', 2)[2]
    tools.write_text(tools.read_text() + extra)
    return root


@pytest.fixture(scope="session")
def mini_registry() -> Registry:
    return Registry([FIXTURE_ROOT], include_default=False)


@pytest.fixture(scope="session")
def mini_world(mini_registry: Registry) -> World:
    return mini_registry.load("mini_shop")


@pytest.fixture(scope="session")
def lab_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_lab_root(tmp_path_factory.mktemp("lab"))


@pytest.fixture(scope="session")
def lab_world(lab_root: Path) -> World:
    return Registry([lab_root], include_default=False).load("mini_shop")


@pytest.fixture
def bundle_copy(tmp_path: Path) -> Path:
    """A writable copy of the fixture root, to break on purpose."""
    root = tmp_path / "root"
    shutil.copytree(FIXTURE_ROOT, root)
    return root


def rewrite_verifier(root: Path, task_id: str, **changes: object) -> None:
    """Change fields of one task's verifier in a bundle copy's ``verifiers.jsonl``."""
    path = root / "verifiers/mini_shop/verifiers.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for r in rows:
        if r["task_id"] == task_id:
            r.update(changes)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@functools.cache
def catalog_report(env: str) -> Report:
    """``awm validate`` of a shipped environment with the audit, on its canonical world and built world s11;
    run once per session (the catalog and reference tests both read it)."""
    return validate_env(env, default_registry(), seeds=1, start=11)


# -- the sandbox of untrusted code (awm.isolation: imported and generated environments): tests that need it
# skip without bubblewrap, except in CI
_SANDBOXED = ("tests/importers/", "tests/isolation/", "tests/gen/")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    import os

    from awm.isolation import INSTALL_HINT, available

    if available():
        return
    if os.environ.get("AWM_REQUIRE_SANDBOX"):  # .ci/run: a missing sandbox is a failure, not a skip
        raise pytest.UsageError(f"AWM_REQUIRE_SANDBOX is set but {INSTALL_HINT}")
    skip = pytest.mark.skip(reason=INSTALL_HINT)
    root = Path(config.rootpath)
    for item in items:
        rel = Path(str(item.fspath)).resolve().relative_to(root.resolve()).as_posix()
        if rel.startswith(_SANDBOXED):
            item.add_marker(skip)
