"""AWM Gym: synthetic, database-backed tool environments for LLM agents.

import awm
world = awm.load("online_store")
ep = world.episode(task_id=world.default_task, seed=0)
res = ep.call("search_products", {"query": "lamp"})
res = ep.submit(answer="...")
"""

from awm.errors import AwmError, BundleError, EpisodeClosedError, ToolError, UnknownEnvironmentError
from awm.judge.rewards import RewardChannels, RewardSpec
from awm.model.distribution import TaskDistribution, split_templates
from awm.model.registry import Registry, load
from awm.model.world import World
from awm.remote import RemoteEnv, remote
from awm.runtime.episode import Episode, StepResult
from awm.worldgen import Scale, WorldKey

__all__ = [
    "AwmError",
    "BundleError",
    "Episode",
    "EpisodeClosedError",
    "Registry",
    "RemoteEnv",
    "RewardChannels",
    "RewardSpec",
    "Scale",
    "StepResult",
    "TaskDistribution",
    "ToolError",
    "UnknownEnvironmentError",
    "World",
    "WorldKey",
    "load",
    "remote",
    "split_templates",
]
__version__ = "0.1.0"

from awm.gym.registration import register_all as _register_all

_register_all()
