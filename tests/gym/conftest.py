from __future__ import annotations

import json

import pytest

from awm.gym import register_all
from awm.model.registry import Registry, default_registry
from tests.conftest import FIXTURE_ROOT


def all_gym_ids() -> list[str]:
    """The fixture env plus every environment in the repository's registry."""
    ids = register_all(Registry([FIXTURE_ROOT], include_default=False))
    return ids + [e.gym_id for n, e in default_registry().entries().items() if e.error is None]


@pytest.fixture(scope="session", autouse=True)
def _registered() -> None:
    register_all()
    register_all(Registry([FIXTURE_ROOT], include_default=False))


def env_of(gym_id: str) -> str:
    """``awm/online_store-v0`` -> ``online_store``."""
    return gym_id.removeprefix("awm/").rsplit("-v", 1)[0]


def task_ids_of(gym_id: str) -> list[str]:
    """The fixed tasks' ids, in file order, from the bundle's ``tasks.jsonl`` (no world compiled)."""
    env = env_of(gym_id)
    for reg in (Registry([FIXTURE_ROOT], include_default=False), default_registry()):
        entry = reg.entries().get(env)
        if entry is not None:
            lines = (entry.env_dir / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
            return [json.loads(line)["id"] for line in lines if line.strip()]
    raise KeyError(gym_id)
