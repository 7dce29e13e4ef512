"""The ``awm-gym`` taskset id for verifiers (``vf-eval awm-gym``, ``--env.taskset.id awm-gym``, prime-rl): the
adapter lives in ``awm.train.verifiers_env``; this package only gives it the module name verifiers imports."""

from awm.train.verifiers_env import AwmTaskset, load_environment

__all__ = ["AwmTaskset", "load_environment"]
