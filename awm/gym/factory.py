"""The entry point behind ``gym.make("awm/<env>-v<N>", ...)``: the env plus the wrappers its kwargs ask for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym

from awm.gym.env import AwmEnv
from awm.gym.wrappers import ChatObservation, ToolCallFormat


def make_env(
    env: str,
    task_id: str | None = None,
    reward: Any = None,
    action_format: str = "json",
    observation: str = "text",
    history: int | None = None,
    render_mode: str | None = None,
    paths: Sequence[str] | None = None,
    **distribution: Any,
) -> gym.Env:
    """``action_format``: json | openai | hermes. ``observation``: text (the tool result as JSON) or chat
    (the message list; ``history`` = last k turns). ``distribution``: where tasks come from (``world``,
    ``tasks``, ``scale``, ``distractors``, ``num_worlds``, ``start_world``, ``templates``,
    ``underspecified``; see ``AwmEnv``)."""
    if observation not in ("text", "chat"):
        raise ValueError(f"observation must be 'text' or 'chat', not {observation!r}")
    e: gym.Env = AwmEnv(env, task_id=task_id, reward=reward, render_mode=render_mode, paths=paths, **distribution)
    if action_format != "json":
        e = ToolCallFormat(e, action_format)
    if observation == "chat":
        e = ChatObservation(e, fmt=action_format if action_format != "json" else "openai", history=history)
    return e
