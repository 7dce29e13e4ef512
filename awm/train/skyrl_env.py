"""Our environments as one SkyRL-gym text environment, ``env_class="awm"``, plus its dataset rows.

SkyRL (``skyrl_gym`` 0.4, trained with ``skyrl.train``) makes one environment per rollout with
``skyrl_gym.make(env_class, env_config=<environment.skyrl_gym.<env_class>>, extras=<the row's other
columns, plus max_turns>)``, calls ``init(prompt)``, then ``step(<the model's text>)`` until ``done``.
``AwmTextEnv`` maps that onto one isolated ``Episode`` per rollout, as ``awm.train.trl_env`` does for TRL:

- the row's ``env``, ``task_id`` (a fixed task or a template instance id from ``awm export``) and ``seed``
  select the episode; ``init`` puts the tools (and ``submit_answer`` typed for the task) in the system
  prompt as Hermes text, since SkyRL renders the chat template without a ``tools`` argument;
- each action is parsed as Hermes ``<tool_call>{...}</tool_call>`` text (``awm.runtime.actions.parse_hermes``, the
  Gymnasium env's ``hermes`` format) and run by ``apply_action``; one call per turn, as everywhere in awm;
  the observation is the tool's result or error (``observation_text``) as one ``tool`` message;
- ``submit_answer`` ends the episode: the step's reward is the verifier's 0/1 outcome (or the composition
  ``reward`` names: ``"shaped"``, ``"dense"``); a plain-text reply is the strict free-text answer, as in
  the Gymnasium env, unless ``text_answers=False`` (then it is an error observation and the episode goes on);
- the ``max_turns``-th step without a submission ends the rollout truncated: no outcome (0), as in ``awm eval``;
- step ``metadata`` carries every reward channel (``step_info``); ``get_metrics`` gives the episode's
  outcome, final progress Φ and validity rates, which SkyRL averages per environment class.

The policy sees the instruction, the tool specs and the observations; checks, gold solutions and verdict
internals stay in ``metadata`` and metrics, which SkyRL never puts in the conversation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from awm.errors import AwmError
from awm.judge.rewards import RewardChannels
from awm.model.registry import load
from awm.model.world import World, stable_int
from awm.runtime.actions import apply_action, observation_text, parse_hermes, step_info, to_json_action
from awm.runtime.chat import system_prompt
from awm.runtime.episode import Episode, StepResult

try:
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
    from skyrl_gym.envs.registration import register, registry
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("awm.train.skyrl_env needs SkyRL-gym: pip install skyrl-gym") from e

ENV_CLASS = "awm"
ENTRY_POINT = "awm.train.skyrl_env:AwmTextEnv"
DEFAULT_MAX_TURNS = 20  # SkyRL always passes max_turns (generator.max_turns); this is for direct use

_THINK = re.compile(r"<think>.*?</think>", re.S)
_ENDED = {"code": "episode_ended", "message": "the episode has ended; no more actions are run"}
_NOT_RUN = {
    "code": "not_executed",
    "message": "one tool call per turn: only the first call ran; make this call again in its own turn",
}
_NO_CALL = (
    "no <tool_call> in your reply: call a tool, or finish with submit_answer, as "
    '<tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>'
)


class AwmEnvConfig(BaseModel):
    """Options, from ``environment.skyrl_gym.awm`` (SkyRL's ``env_config``) or, per row, from the dataset."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    reward: str = Field("outcome", description='"outcome", "shaped" or "dense" (awm.judge.rewards presets)')
    text_answers: bool = Field(True, description="a reply with no tool call is the final answer (else an error)")
    prompt: Literal["tools", "row"] = Field("tools", description='"tools": awm system prompt with the tools')
    observation_role: Literal["tool", "user"] = "tool"
    max_observation_chars: int | None = Field(None, ge=1)


class AwmRow(BaseModel):
    """What a dataset row (SkyRL's ``extras``) must say: which task, on which environment, with which seed.
    ``awm export`` rows name the environment in ``env`` (and in ``extra_info.env``) and carry no seed."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    env: str
    task_id: str
    seed: int | None = None
    max_turns: int = Field(DEFAULT_MAX_TURNS, ge=1)

    @classmethod
    def from_extras(cls, extras: Mapping[str, Any]) -> AwmRow:
        data = dict(extras)
        info = data.get("extra_info")
        if isinstance(info, Mapping):  # an ``awm export`` row without the top-level columns
            data.setdefault("env", info.get("env"))
            data.setdefault("task_id", info.get("task_id"))
        try:
            return cls.model_validate({k: v for k, v in data.items() if v is not None})
        except ValidationError as e:
            raise AwmError(f"a SkyRL row for env_class={ENV_CLASS!r} needs env and task_id: {e}") from None


class AwmTextEnv(BaseTextEnv):
    """One awm episode per rollout, driven by the model's text (see the module docstring)."""

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.config = AwmEnvConfig.model_validate({**_as_dict(env_config), **_overrides(extras or {})})
        self.row = AwmRow.from_extras(extras or {})
        self.max_turns = self.row.max_turns
        world, ct = load(self.row.env).resolve(self.row.task_id)
        seed = self.row.seed if self.row.seed is not None else stable_int("skyrl", world.id, ct.id) % 2**31
        self.world: World = world
        self.episode: Episode = world.episode(ct.id, seed=seed, reward=self.config.reward)
        self.channels: list[RewardChannels] = []  # one per step that did not end the episode
        self.final: RewardChannels | None = None  # the submit step's channels (outcome, checks, ...)
        self.truncated = False

    def init(self, prompt: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The conversation to start from: by default awm's system prompt (the tools as Hermes text), then
        the row's non-system messages (the task's instruction when the row has none)."""
        messages = [dict(m) for m in prompt or []]
        task = self.episode.task.task
        if self.config.prompt == "tools":
            head = {"role": "system", "content": system_prompt(self.world, text_tools=True, task=task)}
            messages = [head, *(m for m in messages if m.get("role") != "system")]
        if not any(m.get("role") == "user" for m in messages):
            messages.append({"role": "user", "content": task.instruction})
        return messages, {"env": self.world.id, "task_id": task.id}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        ep = self.episode
        if ep.done or self.truncated:
            return _output([self._message(json.dumps({"ok": False, "error": _ENDED}))], 0.0, True, {"error": _ENDED})
        text = action if isinstance(action, str) else json.dumps(action, ensure_ascii=False, default=str)
        calls = _THINK.sub("", text).count("<tool_call>")
        if calls == 0 and not self.config.text_answers:  # (a submit_answer call parses to an Answer too)
            res = ep.reject(_NO_CALL)
        else:
            res = apply_action(ep, to_json_action(parse_hermes(text)))
        info = step_info(ep, res)
        if res.done:
            self.final = res.rewards
            return _output([], float(res.reward), True, {**info, "truncated": False})
        self.channels.append(res.rewards)
        if self.turns >= self.max_turns:  # cut off without a submission: no outcome, as a truncated eval episode
            self.truncated = True
            return _output([], float(res.reward), True, {**info, "truncated": True})
        messages = [self._message(self._observation(res))]
        messages += [self._message(json.dumps({"ok": False, "error": _NOT_RUN}))] * max(0, calls - 1)
        return _output(messages, float(res.reward), False, {**info, "truncated": False})

    def get_metrics(self) -> dict[str, Any]:
        """The episode's outcome (0 when truncated or never submitted), final Φ and validity rates."""
        steps = self.channels
        last = self.final or (steps[-1] if steps else None)
        n = len(steps)
        return {
            "outcome": float(self.final.outcome or 0.0) if self.final is not None else 0.0,
            "progress": last.progress if last is not None else self.episode.task.initial_progress,
            "submitted": float(self.final is not None),
            "truncated": float(self.truncated),
            "turns": float(self.turns),
            "invalid_rate": sum(not c.valid for c in steps) / n if n else 0.0,
            "tool_error_rate": sum(c.tool_error or c.timeout for c in steps) / n if n else 0.0,
            "collateral_rate": sum(c.collateral > 0 for c in steps) / n if n else 0.0,
        }

    def close(self) -> None:
        self.episode.close()

    def _observation(self, res: StepResult) -> str:
        text = observation_text(res)
        limit = self.config.max_observation_chars
        if limit is not None and len(text) > limit:
            text = text[:limit] + f"... [{len(text) - limit} more characters cut; narrow the request]"
        return text

    def _message(self, content: str) -> dict[str, str]:
        return {"role": self.config.observation_role, "content": content}


def _output(obs: list[dict[str, str]], reward: float, done: bool, meta: dict[str, Any]) -> BaseTextEnvStepOutput:
    return BaseTextEnvStepOutput(observations=obs, reward=reward, done=done, metadata=meta)


def _as_dict(config: Any) -> dict[str, Any]:
    """SkyRL's ``env_config``: a dict, an OmegaConf ``DictConfig``, a dataclass, or nothing."""
    if config is None:
        return {}
    if isinstance(config, Mapping):
        return dict(config)
    try:  # DictConfig without importing omegaconf here
        from omegaconf import OmegaConf

        if OmegaConf.is_config(config):
            out = OmegaConf.to_container(config, resolve=True)
            return {str(k): v for k, v in out.items()} if isinstance(out, dict) else {}
    except ImportError:
        pass
    return {k: v for k, v in vars(config).items() if not k.startswith("_")}


def _overrides(extras: Mapping[str, Any]) -> dict[str, Any]:
    """Per-row options (columns named like ``AwmEnvConfig`` fields, e.g. ``reward``) override env_config."""
    return {k: extras[k] for k in AwmEnvConfig.model_fields if extras.get(k) is not None}


def register_env(env_id: str = ENV_CLASS) -> None:
    """Register ``AwmTextEnv`` with skyrl_gym as ``env_id`` (idempotent; done on import for ``"awm"``).
    Register it where SkyRL makes environments: in skyrl-train, inside the entrypoint's Ray task."""
    if env_id not in registry:
        register(id=env_id, entry_point=ENTRY_POINT)


register_env()


# -- data -----------------------------------------------------------------------------------------
ROW_COLUMNS: dict[str, str] = {
    "data_source": "VARCHAR",
    "prompt": "STRUCT(role VARCHAR, content VARCHAR)[]",
    "env_class": "VARCHAR",
    "env": "VARCHAR",
    "task_id": "VARCHAR",
    "seed": "BIGINT",
}


def skyrl_rows(
    worlds: Sequence[World | str], task_ids: Sequence[str] | None = None, repeats: int = 1, seed: int = 0
) -> list[dict[str, Any]]:
    """SkyRL dataset rows (``ROW_COLUMNS``): the prompt (awm's system prompt with the tools as Hermes text,
    then the instruction), ``env_class="awm"``, ``data_source`` (SkyRL's per-source eval metrics), ``env``,
    ``task_id`` and a sha256-derived ``seed``. ``awm export`` rows work as they are too."""
    rows = []
    for r in range(repeats):
        for w in (load(x) if isinstance(x, str) else x for x in worlds):
            for tid in w.task_ids:
                if task_ids and tid not in task_ids:
                    continue
                task = w.task(tid).task
                rows.append(
                    {
                        "data_source": f"awm/{w.id}",
                        "prompt": [
                            {"role": "system", "content": system_prompt(w, text_tools=True, task=task)},
                            {"role": "user", "content": task.instruction},
                        ],
                        "env_class": ENV_CLASS,
                        "env": w.id,
                        "task_id": tid,
                        "seed": stable_int("skyrl", seed, w.id, tid, r) % 2**31,
                    }
                )
    return rows


def write_dataset(rows: Sequence[dict[str, Any]], out: str | Path) -> int:
    """Write ``skyrl_rows`` as Parquet (``.parquet``) or JSONL (else), the files SkyRL's ``PromptDataset``
    reads (``data.train_data=['<out>']``); returns the row count."""
    from awm.data.export import ExportFormat, write

    path = Path(out)
    fmt = ExportFormat.parquet if path.suffix == ".parquet" else ExportFormat.jsonl
    return write(rows, path, fmt, ROW_COLUMNS)


# -- training -------------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> None:
    """skyrl-train's ``main_base`` with ``env_class="awm"`` registered in the Ray task that makes the
    environments (skyrl-train imports no adapter by itself): ``python -m awm.train.skyrl_env <overrides>``,
    also reached as ``main_base trainer.override_entrypoint=awm.train.skyrl_env``. Needs ``skyrl[fsdp]``."""
    import sys

    import ray
    from skyrl.train.config import SkyRLTrainConfig
    from skyrl.train.entrypoints.main_base import validate_cfg
    from skyrl.train.utils import initialize_ray

    args = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("trainer.override_entrypoint=")]
    cfg = SkyRLTrainConfig.from_cli_overrides(args)
    validate_cfg(cfg)
    initialize_ray(cfg)
    ray.get(ray.remote(num_cpus=1)(_train).remote(cfg))


def _train(cfg: Any) -> None:
    from skyrl.train.entrypoints.main_base import BasePPOExp

    from awm.train.skyrl_env import register_env as register_here  # this module, imported in the Ray worker

    register_here()
    BasePPOExp(cfg).run()


if __name__ == "__main__":
    main()
