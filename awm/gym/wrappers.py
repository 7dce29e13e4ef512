"""Wrappers: tool-call formats, chat-message observations, reward composition, trajectory recording."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym

from awm.gym.trajectory import StepRecord, TrajectoryRecord
from awm.judge.rewards import RewardChannels, RewardSpec, reward_fn
from awm.runtime.actions import PARSERS, to_json_action
from awm.runtime.chat import system_prompt

_NOT_RUN = json.dumps(
    {
        "ok": False,
        "error": {
            "code": "not_executed",
            "message": "one tool call per turn: only the first call ran; make this call again in its own turn",
        },
    }
)


class ToolCallFormat(gym.ActionWrapper):
    """Accept actions as OpenAI assistant messages (``"openai"``), Hermes/Qwen ``<tool_call>`` text
    (``"hermes"``) or our JSON (``"json"``); AWM's ``list_tools``/``call_tool`` meta-tools work in each."""

    def __init__(self, env: gym.Env, fmt: str = "openai"):
        super().__init__(env)
        if fmt not in PARSERS:
            raise ValueError(f"unknown tool-call format {fmt!r}; choose one of {sorted(PARSERS)}")
        self.fmt = fmt
        self._parse = PARSERS[fmt]

    def action(self, action: Any) -> Any:
        return to_json_action(self._parse(action))


class ChatObservation(gym.Wrapper):
    """Observations become the message list a chat model consumes (as JSON text; also in
    ``info["messages"]``): system prompt (with the tools, for Hermes), the user's task, then the
    assistant and tool turns. ``history=k`` keeps only the last k assistant/tool exchanges (AWM: 3).

    Put it outside ``ToolCallFormat`` so it sees the model's raw output."""

    def __init__(self, env: gym.Env, fmt: str = "openai", history: int | None = None, system_prompt: str | None = None):
        super().__init__(env)
        if history is not None and history < 1:
            raise ValueError("history must be at least 1 (or None for the whole conversation)")
        self.fmt = fmt
        self.history = history
        self.template = system_prompt  # None: the default of awm.runtime.chat
        self._head: list[dict[str, Any]] = []
        self._turns: list[list[dict[str, Any]]] = []

    def reset(self, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        base = self.env.unwrapped
        world = base.world  # type: ignore[attr-defined]
        episode = getattr(base, "episode", None)
        task = episode.task.task if episode is not None else None
        system = system_prompt(world, text_tools=self.fmt == "hermes", template=self.template, task=task)
        self._head = [{"role": "system", "content": system}, {"role": "user", "content": obs}]
        self._turns = []
        return self._emit(info)

    def step(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        turn = [self._assistant_message(action)]
        calls = [c if isinstance(c, dict) else {} for c in (turn[0].get("tool_calls") or [])]
        if calls:  # native tool calls (submit_answer too): every call needs an answer, or chat APIs reject it
            turn.append({"role": "tool", "tool_call_id": calls[0].get("id", "call_0"), "content": obs})
            for extra in calls[1:]:
                turn.append({"role": "tool", "tool_call_id": extra.get("id", ""), "content": _NOT_RUN})
        elif info.get("tool") is not None:
            turn.append(
                {"role": "tool", "tool_call_id": "call_0", "content": obs}
                if self.fmt == "openai"
                else {"role": "tool", "content": obs}
            )
        elif not info.get("ok", True):  # unparseable output: tell the model what to fix
            turn.append({"role": "user", "content": obs})
        self._turns.append(turn)
        out, info = self._emit(info)
        return out, reward, terminated, truncated, info

    def _assistant_message(self, action: Any) -> dict[str, Any]:
        if isinstance(action, dict) and action.get("role") == "assistant":
            return dict(action)
        if self.fmt == "openai" and isinstance(action, str):
            try:
                msg = json.loads(action)
                if isinstance(msg, dict) and msg.get("role") == "assistant":
                    return msg
            except json.JSONDecodeError:
                pass
        text = action if isinstance(action, str) else json.dumps(action, ensure_ascii=False)
        return {"role": "assistant", "content": text}

    def _emit(self, info: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        turns = self._turns if self.history is None else self._turns[-self.history :]
        messages = self._head + [m for t in turns for m in t]
        info = dict(info)
        info["messages"] = messages
        return json.dumps(messages, ensure_ascii=False), info


class ComposeReward(gym.Wrapper):
    """Replace the scalar reward with another composition of ``info["reward_components"]``:
    a preset name (``"outcome"``, ``"shaped"``, ``"dense"``), a ``RewardSpec`` or a callable."""

    def __init__(self, env: gym.Env, spec: str | RewardSpec | Callable[[RewardChannels], float]):
        super().__init__(env)
        self._fn, _ = reward_fn(spec)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        comps = info.get("reward_components")
        if comps is not None:
            reward = float(self._fn(RewardChannels(**comps)))
        return obs, reward, terminated, truncated, info


class RecordTrajectory(gym.Wrapper):
    """Append each finished episode to a JSONL file as one ``TrajectoryRecord`` (``schemas/trajectory``)."""

    def __init__(self, env: gym.Env, path: str | Path, run_id: str | None = None):
        super().__init__(env)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.run_id = run_id
        self._record: TrajectoryRecord | None = None

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        self._flush(truncated=True)
        obs, info = self.env.reset(**kwargs)
        self._record = TrajectoryRecord(
            run_id=self.run_id,
            env_id=info["env_id"],
            task_id=info["task_id"],
            task_kind=info["task_kind"],
            instruction=info["instruction"],
            seed=info["seed"],
            steps=[],
        )
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self._record is not None:
            self._record.steps.append(
                StepRecord(
                    action=action if isinstance(action, (str, dict)) else repr(action),
                    observation=obs,
                    tool=info.get("tool"),
                    ok=info.get("ok", False),
                    error=info.get("error"),
                    diff=info.get("diff", []),
                    reward=reward,
                    reward_components=info.get("reward_components") or {},
                )
            )
            if terminated or truncated:
                self._record.outcome = info.get("outcome")
                self._flush(truncated=truncated and not terminated)
        return obs, reward, terminated, truncated, info

    def close(self) -> None:
        self._flush(truncated=True)
        super().close()

    def _flush(self, truncated: bool) -> None:
        rec = self._record
        if rec is None or not rec.steps:
            self._record = None
            return
        rec.truncated = truncated
        rec.total_reward = sum(s.reward for s in rec.steps)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(rec.model_dump_json() + "\n")
        self._record = None
