"""Many episodes at once: Gymnasium vector envs with safe defaults, and an asyncio batch stepper."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium as gym


def make_vec(env_id: str, num_envs: int, mode: str = "sync", **kwargs: Any) -> gym.vector.VectorEnv:
    """``gym.make_vec`` with ``shared_memory=False`` for async mode: Gymnasium's shared memory
    silently corrupts text observations (they come back as blanks)."""
    if mode == "async":
        return gym.make_vec(
            env_id, num_envs=num_envs, vectorization_mode="async", vector_kwargs={"shared_memory": False}, **kwargs
        )
    return gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode, **kwargs)


async def step_many(
    envs: Sequence[gym.Env], actions: Sequence[Any]
) -> list[tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]]:
    """Step each env with its action concurrently (worker threads; SQLite releases the GIL)."""
    if len(envs) != len(actions):
        raise ValueError(f"{len(envs)} envs but {len(actions)} actions")
    return list(await asyncio.gather(*(asyncio.to_thread(e.step, a) for e, a in zip(envs, actions, strict=True))))
