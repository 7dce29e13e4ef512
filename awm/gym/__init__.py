"""Gymnasium interface: every registry environment as ``awm/<env>-v<N>``.

import gymnasium as gym
import awm                                   # registers the ids
env = gym.make("awm/online_store-v0", max_episode_steps=30)
"""

from awm.gym.env import AwmEnv
from awm.gym.factory import make_env
from awm.gym.registration import register_all
from awm.gym.vector import make_vec, step_many
from awm.gym.wrappers import ChatObservation, ComposeReward, RecordTrajectory, ToolCallFormat

__all__ = [
    "AwmEnv",
    "ChatObservation",
    "ComposeReward",
    "RecordTrajectory",
    "ToolCallFormat",
    "make_env",
    "make_vec",
    "register_all",
    "step_many",
]
