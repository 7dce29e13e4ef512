"""Our environments as TRL ``environment_factory`` classes, plus reward functions over our reward channels.

``environment_class(world, task)`` builds a class with one method per tool, generated from the registry's JSON
schemas (``transformers.utils.get_json_schema`` reads the tool schema back from the signature and the
docstring; TRL's tool loop calls the methods), plus ``submit_answer`` whose ``answer`` has the task's answer
schema (TRL renders one tool list per environment, so ``environment_factories`` gives one class per task,
keyed ``"<env>/<task_id>"``, and ``task_rows`` routes each row to it). TRL creates one instance per rollout
and calls ``reset(**row)`` with the dataset row (``task_id``, ``seed``), which starts an isolated episode.

Reward functions (TRL signature ``f(prompts, completions, environments, **kw) -> list[float]``):

- ``outcome_reward``: the verifier's 0/1 on the final state and the final answer: the typed value the
  model passed to ``submit_answer``, else (the strict free-text fallback) its last assistant message.
  A rollout cut off while still calling tools, without submitting, scores 0, as a truncated eval episode does.
- ``progress_reward``: Φ of the final state (partial credit; biased toward half-done work, keep it small).
- ``validity_reward``: minus the fraction of tool calls that were invalid or failed.
- ``gated_process_reward``: outcome × (fraction of calls that were valid, not redundant, not no-ops):
  process quality counts only when the task was solved (outcome-gated, seeds §3).
Step-level channels stay on the instance (``env.channels``: one ``RewardChannels`` per tool call) for a
custom advantage; ``turn_rewards`` turns them into per-call scalars, e.g. potential-based shaping.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar, Literal

from awm.bundle.records import Task, ToolSpec
from awm.judge.rewards import RewardChannels, RewardFn, RewardSpec, reward_fn
from awm.model.world import World
from awm.runtime.actions import apply_action, generic_submit_spec, observation_text
from awm.runtime.episode import Episode
from awm.runtime.submit import SUBMIT, submit_spec

RESERVED = frozenset({"reset", "get_reward"})
_THINK = re.compile(r"<think>.*?</think>", re.S)
_SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}


class AwmToolEnv:
    """Base of the generated classes: one episode of ``world`` per rollout."""

    world: ClassVar[World]
    task_id: ClassVar[str | None] = None  # the task whose submit_answer schema the class carries
    max_observation_chars: ClassVar[int | None] = None

    def __init__(self) -> None:
        self.episode: Episode | None = None
        self.channels: list[RewardChannels] = []  # one per tool call, in order
        self.final: RewardChannels | None = None  # the submit step's channels (outcome, checks, ...)
        self.truncated = False

    def reset(self, task_id: str | None = None, seed: int = 0, **row: Any) -> str | None:
        """Start a fresh episode; the dataset row's prompt already holds the task."""
        bound = type(self).task_id
        if bound is not None and task_id is not None and task_id != bound:
            raise ValueError(f"{type(self).__name__} runs task {bound!r}, not {task_id!r}; route rows with task_rows")
        if self.episode is not None:
            self.episode.close()
        tid = task_id if task_id is not None else bound
        if tid is None:
            self.episode = self.world.episode(None, seed=int(seed or 0))
        else:  # a fixed task, or a template instance (from ``awm export``) on its own built world
            world, ct = self.world.resolve(tid)
            self.episode = world.episode(ct.id, seed=int(seed or 0))
        self.channels, self.final, self.truncated = [], None, False
        return None

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        ep = self.episode
        if ep is None:
            raise RuntimeError("reset() was not called")
        if ep.done:
            return json.dumps({"ok": False, "error": {"code": "episode_ended", "message": "the episode has ended"}})
        res = ep.call(name, arguments)
        self.channels.append(res.rewards)
        text = observation_text(res)
        limit = self.max_observation_chars
        if limit is not None and len(text) > limit:
            text = text[:limit] + f"... [{len(text) - limit} more characters cut; narrow the request]"
        return text

    def _submit(self, arguments: dict[str, Any]) -> str:
        """The ``submit_answer`` tool: the typed answer ends the episode; malformed arguments, or an answer that
        can never be of the task's type (``Episode.submit``), are a step the model can correct."""
        ep = self.episode
        if ep is None:
            raise RuntimeError("reset() was not called")
        if ep.done:
            return json.dumps({"ok": False, "error": {"code": "episode_ended", "message": "the episode has ended"}})
        res = apply_action(ep, {"tool": SUBMIT, "arguments": arguments})
        if res.done:
            self.final = res.rewards
        else:
            self.channels.append(res.rewards)
        return observation_text(res)

    def _finish(self, answer: Any, truncated: bool = False, explanation: str | None = None) -> RewardChannels:
        """End the episode with ``answer`` (once; later calls return the same verdict)."""
        if self.final is None:
            ep = self.episode
            if ep is None:
                raise RuntimeError("reset() was not called")
            self.truncated = truncated
            res = ep.submit(answer, explanation)
            if not res.done:  # an answer that can never be of the type: the rollout is over, with no answer
                self.channels.append(res.rewards)
                res = ep.submit(None, explanation)
            self.final = res.rewards
        return self.final


def environment_class(
    world: World, task: str | Task | None = None, *, max_observation_chars: int | None = None
) -> type[AwmToolEnv]:
    """A TRL environment class for ``world``: ``reset``, one public method per tool, and ``submit_answer``
    whose ``answer`` has ``task``'s answer schema (any type when ``task`` is None)."""
    if isinstance(task, str):
        task = world.task(task).task
    methods: dict[str, Any] = {}
    for spec in world.tool_specs():
        if spec.name in RESERVED or spec.name == SUBMIT or spec.name.startswith("_") or not spec.name.isidentifier():
            raise ValueError(f"tool name {spec.name!r} cannot be a method of a TRL environment")
        methods[spec.name] = _tool_method(spec)
    methods[SUBMIT] = _tool_method(submit_spec(task) if task is not None else generic_submit_spec(), submit=True)
    name = _camel(world.id) + (_camel(task.id) if task is not None else "") + "Env"
    attrs = {
        "world": world,
        "task_id": task.id if task is not None else None,
        "max_observation_chars": max_observation_chars,
        "__module__": __name__,
        **methods,
    }
    return type(name, (AwmToolEnv,), attrs)


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", name) if p)


def env_key(world: World | str, task_id: str) -> str:
    """The ``environment`` name of a task's class in ``environment_factories`` and ``task_rows``."""
    return f"{world if isinstance(world, str) else world.id}/{task_id}"


def _tool_method(spec: ToolSpec, submit: bool = False) -> Any:
    props: dict[str, Any] = dict(spec.parameters.get("properties", {}))
    required = set(spec.parameters.get("required", []))
    name = spec.name

    def method(self: AwmToolEnv, **kwargs: Any) -> str:
        return self._submit(kwargs) if submit else self._call(name, kwargs)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for pname, prop in props.items():
        hint, nullable = _annotation(prop)
        optional = pname not in required
        if nullable and hint is not type(None) and hint is not Any:
            hint = hint | None
        annotations[pname] = hint
        default = inspect.Parameter.empty if not optional else prop.get("default")
        params.append(inspect.Parameter(pname, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint))
    annotations["return"] = str
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    method.__name__ = method.__qualname__ = name
    doc = " ".join(spec.description.split()) or name
    if props:
        doc += "\n\nArgs:" + "".join(f"\n    {p}: {_arg_doc(v)}" for p, v in props.items())
    method.__doc__ = doc + "\n\nReturns:\n    The tool's result or error, as JSON."
    return method


def _annotation(prop: dict[str, Any]) -> tuple[Any, bool]:
    """(Python type, nullable) for a JSON Schema property."""
    options = prop.get("anyOf")
    if options:
        nullable = any(o.get("type") == "null" for o in options)
        rest = [o for o in options if o.get("type") != "null"]
        literals = [o["enum"] if "enum" in o else [o["const"]] if "const" in o else None for o in rest]
        if rest and all(v is not None for v in literals):  # Literal["a", "b"] | Literal["c"]: one enum of all three
            return Literal[tuple(dict.fromkeys(x for v in literals for x in v or ()))], nullable
        hints = [_annotation(o)[0] for o in rest] or [Any]
        hint = hints[0]
        for h in hints[1:]:
            hint = hint | h
        return hint, nullable
    if "enum" in prop:
        return Literal[tuple(prop["enum"])], False
    if "const" in prop:
        return Literal[prop["const"]], False
    kind = prop.get("type")
    if kind == "array":
        item, _ = _annotation(prop.get("items") or {})
        return list[item], False  # type: ignore[valid-type]
    if kind == "object":
        return dict[str, Any], False
    if kind == "null":
        return type(None), True
    return _SCALARS.get(str(kind), Any), False


def _arg_doc(prop: dict[str, Any]) -> str:
    text = str(prop.get("description") or prop.get("title") or "no description")
    fields = prop.get("properties") if prop.get("type") == "object" else None
    if fields:  # a typed object answer: the signature says dict, the description names its fields
        text += "; an object with the fields " + ", ".join(f"{k} ({_type_doc(v)})" for k, v in fields.items())
    return " ".join(text.split())


def _type_doc(prop: dict[str, Any]) -> str:
    if prop.get("type") == "array":
        return f"list of {_type_doc(prop.get('items') or {})}"
    if prop.get("format") == "date":
        return "date YYYY-MM-DD"
    return str(prop.get("type", "any"))


def environment_factories(
    worlds: Sequence[World], *, per_task: bool = True, **kwargs: Any
) -> dict[str, type[AwmToolEnv]]:
    """``{environment: class}`` for ``GRPOTrainer(environment_factory=...)`` (rows carry ``environment``).

    ``per_task`` (default): one class per task, keyed ``env_key(world, task_id)``, whose ``submit_answer`` has
    the task's answer schema (TRL renders one tool list per environment). ``per_task=False``: one class per
    environment, keyed by its name, with a generic ``submit_answer`` (answer of any type)."""
    if not per_task:
        return {w.id: environment_class(w, **kwargs) for w in worlds}
    return {env_key(w, tid): environment_class(w, tid, **kwargs) for w in worlds for tid in w.task_ids}


# -- rewards --------------------------------------------------------------------------------------
def final_answer(completion: Any) -> tuple[str | None, bool]:
    """(the answer, truncated): the last assistant message's text; truncated if it still calls tools."""
    if isinstance(completion, str):
        return _THINK.sub("", completion).strip(), False
    for msg in reversed(completion or []):
        if msg.get("role") != "assistant":
            continue
        if msg.get("tool_calls"):
            return None, True
        content = msg.get("content")
        if isinstance(content, list):
            content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
        return (_THINK.sub("", content).strip() if isinstance(content, str) else None), False
    return None, True


def _finished(completions: Sequence[Any], environments: Sequence[AwmToolEnv]) -> list[RewardChannels]:
    out = []
    for completion, env in zip(completions, environments, strict=True):
        if env.final is None:
            answer, truncated = final_answer(completion)
            env._finish(answer, truncated)
        assert env.final is not None
        out.append(env.final)
    return out


def outcome_reward(completions: Sequence[Any], environments: Sequence[AwmToolEnv], **_: Any) -> list[float]:
    """1.0 iff the verifier passes the final state and answer (0 when the rollout was cut off)."""
    finals = _finished(completions, environments)
    return [0.0 if env.truncated else float(f.outcome or 0.0) for f, env in zip(finals, environments, strict=True)]


def progress_reward(completions: Sequence[Any], environments: Sequence[AwmToolEnv], **_: Any) -> list[float]:
    """Φ of the final state: the weighted fraction of the task's checks that hold."""
    return [f.progress for f in _finished(completions, environments)]


def validity_reward(completions: Sequence[Any], environments: Sequence[AwmToolEnv], **_: Any) -> list[float]:
    """Minus the fraction of tool calls that were invalid, failed, or timed out (0 with no calls)."""
    _finished(completions, environments)
    out = []
    for env in environments:
        bad = sum((not c.valid) or c.tool_error or c.timeout for c in env.channels)
        out.append(-bad / len(env.channels) if env.channels else 0.0)
    return out


def gated_process_reward(completions: Sequence[Any], environments: Sequence[AwmToolEnv], **_: Any) -> list[float]:
    """Outcome × the fraction of clean calls (valid, no error, not redundant, not a no-op): 0 unless solved."""
    outcomes = outcome_reward(completions, environments)
    out = []
    for o, env in zip(outcomes, environments, strict=True):
        clean = sum(c.valid and not (c.tool_error or c.timeout or c.redundant or c.noop) for c in env.channels)
        out.append(o * (clean / len(env.channels) if env.channels else 1.0))
    return out


REWARDS = {
    "outcome": outcome_reward,
    "progress": progress_reward,
    "validity": validity_reward,
    "gated_process": gated_process_reward,
}


def turn_rewards(env: AwmToolEnv, spec: str | RewardSpec | RewardFn = "shaped") -> list[float]:
    """Per-step scalar rewards of a finished rollout (each tool call, then the final answer), composed from
    the step channels, for a custom per-turn advantage. The shaping term is recomputed with the spec's γ:
    F_t = γ·Φ(s_t+1) − Φ(s_t), Φ(terminal) = 0 (potential-based, so the optimal policy is unchanged).
    With γ = 1 the terms telescope to −Φ(s_0), a constant per task: trajectory-level GRPO gains nothing
    from them, per-turn advantages (or γ < 1) do."""
    fn, gamma = reward_fn(spec)
    ep = env.episode
    if ep is None:
        return []
    steps = [*env.channels, *([env.final] if env.final is not None else [])]
    phi = ep.task.initial_progress
    out = []
    for i, ch in enumerate(steps):
        terminal = env.final is not None and i == len(steps) - 1
        after = 0.0 if terminal else ch.progress
        out.append(float(fn(replace(ch, progress_delta=gamma * after - phi))))
        phi = after
    return out


# -- data -----------------------------------------------------------------------------------------
def task_rows(
    worlds: Sequence[World],
    task_ids: Sequence[str] | None = None,
    repeats: int = 1,
    seed: int = 0,
    *,
    per_task: bool = True,
) -> list[dict[str, Any]]:
    """Dataset rows: the chat prompt (system + task), ``environment`` (``env_key(world, task_id)``, or the
    environment's name with ``per_task=False``, as in ``environment_factories``), ``task_id`` and a
    sha256-derived ``seed``."""
    from awm.model.world import stable_int
    from awm.runtime.chat import system_prompt

    rows = []
    for r in range(repeats):
        for w in worlds:
            for tid in w.task_ids:
                if task_ids and tid not in task_ids:
                    continue
                task = w.task(tid).task
                prompt = [
                    {"role": "system", "content": system_prompt(w, task=task)},
                    {"role": "user", "content": task.instruction},
                ]
                rows.append(
                    {
                        "prompt": prompt,
                        "environment": env_key(w, tid) if per_task else w.id,
                        "task_id": tid,
                        "seed": stable_int("train", seed, w.id, tid, r) % 2**31,
                    }
                )
    return rows
