from __future__ import annotations

import gymnasium as gym
import pytest

from awm.gym import register_all
from awm.registry import Registry, default_registry
from tests.conftest import FIXTURE_ROOT


def all_gym_ids() -> list[str]:
    """The fixture env plus every environment in the repository's registry."""
    ids = register_all(Registry([FIXTURE_ROOT], include_default=False))
    return ids + [e.gym_id for n, e in default_registry().entries().items() if e.error is None]


@pytest.fixture(scope="session", autouse=True)
def _registered() -> None:
    register_all()
    register_all(Registry([FIXTURE_ROOT], include_default=False))


def world_of(gym_id: str):
    return gym.make(gym_id).unwrapped.world
