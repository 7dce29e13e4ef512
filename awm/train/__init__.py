"""Training on the environments: TRL ``environment_factory`` classes generated from the registry's tool
schemas, reward functions over our reward channels, and dataset rows (``examples/train_grpo.py`` uses them).

Nothing here imports torch or TRL; install the ``train`` extra to run a trainer."""

from awm.train.trl_env import (
    REWARDS,
    AwmToolEnv,
    environment_class,
    environment_factories,
    final_answer,
    gated_process_reward,
    outcome_reward,
    progress_reward,
    task_rows,
    turn_rewards,
    validity_reward,
)

__all__ = [
    "REWARDS",
    "AwmToolEnv",
    "environment_class",
    "environment_factories",
    "final_answer",
    "gated_process_reward",
    "outcome_reward",
    "progress_reward",
    "task_rows",
    "turn_rewards",
    "validity_reward",
]
