"""Registers every registry environment as ``awm/<env>-v<N>`` (Gymnasium 1.x has no entry points)."""

from __future__ import annotations

import gymnasium as gym

from awm.model.registry import Registry, default_registry

DEFAULT_MAX_STEPS = 50


def register_all(registry: Registry | None = None) -> list[str]:
    """Register (or re-register) every environment whose manifest reads; returns the ids."""
    reg = registry or default_registry()
    ids = []
    for name, entry in reg.entries().items():
        if entry.error is not None or entry.manifest is None:
            continue
        gym_id = entry.gym_id
        kwargs = {"env": name} if registry is None else {"env": name, "paths": [str(r) for r in reg.roots]}
        if gym_id in gym.registry:
            del gym.registry[gym_id]
        gym.register(
            id=gym_id,
            entry_point="awm.gym.factory:make_env",
            kwargs=kwargs,
            max_episode_steps=DEFAULT_MAX_STEPS,
            disable_env_checker=False,
        )
        ids.append(gym_id)
    return ids
