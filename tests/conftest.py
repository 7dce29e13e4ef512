"""Shared fixtures: a tiny real bundle on disk (tests/fixtures/root) and helpers to break copies of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from awm.registry import Registry
from awm.world import World

FIXTURE_ROOT = Path(__file__).parent / "fixtures" / "root"


@pytest.fixture(scope="session")
def mini_registry() -> Registry:
    return Registry([FIXTURE_ROOT], include_default=False)


@pytest.fixture(scope="session")
def mini_world(mini_registry: Registry) -> World:
    return mini_registry.load("mini_shop")


@pytest.fixture
def bundle_copy(tmp_path: Path) -> Path:
    """A writable copy of the fixture root, to break on purpose."""
    root = tmp_path / "root"
    shutil.copytree(FIXTURE_ROOT, root)
    return root
