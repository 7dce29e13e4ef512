"""Our environments as veRL multi-turn tools: a ``BaseTool`` per tool, the tool config, dataset rows, the reward.

How veRL 0.9's ``ToolAgentLoop`` drives a ``BaseTool``: each tool call is ``create(create_kwargs=...)`` (the row's
``extra_info.tools_kwargs[<tool>].create_kwargs``) → ``execute(instance_id, arguments, agent_data=...)`` →
``release(instance_id)``, with a fresh ``instance_id`` per call, and ``calc_reward`` is never called. The one object
shared by the calls of one trajectory is its ``AgentData`` (its ``request_id`` is ``det-<priority>`` under
``full_determinism``, not a safe key), so the episode is keyed on that object, weakly: veRL dropping the trajectory
closes the episode. Callers with an explicit lifecycle (``create(instance_id)`` → ``execute`` → ``calc_reward`` →
``release``, as veRL's older rollouts did) share one episode per ``instance_id``.

The outcome reaches the trainer through ``compute_score`` (``reward.custom_reward_function``), which veRL runs in its
reward workers, another process: the tools record every action that reached the episode in
``agent_data.extra_fields["awm_calls"]``, veRL hands that to the reward function as ``extra_info["awm_calls"]``, and
``compute_score`` replays it on a fresh episode of the row's task (episodes are deterministic) and returns the
verifier's 0/1 verdict. A trajectory that never called ``submit_answer`` is judged on its final text (the strict
free-text fallback), or scores 0 when it was cut off while still calling tools, as in ``awm.train.trl_env``.
Each ``execute`` also returns the step's scalar under the tool config's reward preset (``"outcome"`` by default: 0
per tool call, the verdict on ``submit_answer``); veRL collects them in ``extra_info["tool_rewards"]``.

veRL renders one tool list per run (a row narrows it with ``extra_info.tool_selection``) and keeps only ``type``,
``description`` and ``enum`` of each parameter: ``verl_tool_schema`` folds the rest (list items, date formats, object
fields, defaults) into the description, and ``submit_answer`` is generic, its answer type stated in the row's
system prompt. The episode still validates every call against the full schema.

The policy gets the tool specs, the instruction and each observation; checks, gold solutions and verdict
internals stay with the tools' sessions and ``compute_score``.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple
from uuid import uuid4

from pydantic import BaseModel, ConfigDict, ValidationError

from awm.errors import AwmError
from awm.judge.rewards import RewardChannels
from awm.model.registry import load
from awm.runtime.actions import apply_action, generic_submit_spec, observation_text
from awm.runtime.submit import SUBMIT, submit_parameters

if TYPE_CHECKING:
    from awm.model.world import World
    from awm.runtime.episode import Episode

    _ToolBase: Any = object
else:
    try:
        from verl.tools.base_tool import BaseTool as _ToolBase
    except ImportError:  # rows, tool configs and compute_score need no verl; the tool does
        _ToolBase = object

TOOL_CLASS = f"{__name__}.AwmTool"
AGENT_NAME = "tool_agent"  # veRL's ToolAgentLoop
CALLS_KEY = "awm_calls"  # agent_data.extra_fields key, seen by compute_score as extra_info[CALLS_KEY]
_THINK = re.compile(r"<think>.*?</think>", re.S)
_ROLE_HEADER = re.compile(r"^\s*(?:<\|im_end\|>\s*)?(?:<\|im_start\|>)?assistant\s*\n")
_ANY_TYPE = ["string", "number", "integer", "boolean", "array", "object", "null"]


class EpisodeSpec(BaseModel):
    """The episode a trajectory plays: each tool's ``create_kwargs`` in the row, and the row's ground truth."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    env: str
    task_id: str
    seed: int = 0


class _Session:
    """One trajectory's episode, and the actions that reached it (what the judge replays). A plain class, as
    is ``Judgement``: veRL may load this file by path, outside ``sys.modules``, where dataclasses fail."""

    def __init__(self, episode: Episode | None, env: str | None = None, error: str | None = None) -> None:
        self.episode = episode
        self.env = env
        self.error = error
        self.calls: list[dict[str, Any]] = []
        self.final: RewardChannels | None = None

    def close(self) -> None:
        if self.episode is not None:
            self.episode.close()


def _open(kwargs: Mapping[str, Any] | None, reward: str | None) -> _Session:
    """A fresh episode for ``create_kwargs``; a bad spec is a session whose calls all say why."""
    try:
        spec = EpisodeSpec.model_validate(dict(kwargs or {}))
        world, ct = load(spec.env).resolve(spec.task_id)
        return _Session(world.episode(ct.id, seed=spec.seed, reward=reward), env=spec.env)
    except (ValidationError, AwmError, KeyError, TypeError, ValueError) as e:
        return _Session(None, error=f"no episode for create_kwargs {dict(kwargs or {})!r}: {e}")


def _error(code: str, message: str) -> str:
    return json.dumps({"ok": False, "error": {"code": code, "message": message}})


class AwmTool(_ToolBase):
    """One tool of an environment (``config``: ``env``, ``tool``, ``reward``), or ``submit_answer`` (no ``env``).

    Every instance in a process shares the sessions below: all tools of one trajectory act on one episode."""

    _by_trajectory: ClassVar[weakref.WeakKeyDictionary[Any, _Session]] = weakref.WeakKeyDictionary()
    _by_instance: ClassVar[dict[str, _Session]] = {}  # explicit lifecycle: create(instance_id) ... release(instance_id)
    _pending: ClassVar[dict[str, dict[str, Any]]] = {}  # instance id -> create kwargs, until the first execute

    def __init__(self, config: dict[str, Any], tool_schema: Any) -> None:
        if _ToolBase is object:
            raise ImportError("AwmTool needs veRL: pip install verl")
        super().__init__(config, tool_schema)
        self.env: str | None = config.get("env")
        self.tool: str = config.get("tool") or self.name
        self.reward: str | None = config.get("reward")

    async def create(
        self, instance_id: str | None = None, create_kwargs: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> tuple[str, Any]:
        """Remember the episode spec (``create_kwargs``, or the keywords themselves); the episode opens on use."""
        from verl.tools.schemas import ToolResponse

        iid = instance_id or uuid4().hex
        self._pending[iid] = dict(create_kwargs if create_kwargs is not None else kwargs)
        return iid, ToolResponse()

    def _session(self, instance_id: str, agent_data: Any) -> _Session | None:
        if agent_data is not None:
            try:
                session = self._by_trajectory.get(agent_data)
            except TypeError:  # not weakly referable: fall back to the instance id
                agent_data = None
            else:
                if session is None and instance_id in self._pending:
                    session = _open(self._pending[instance_id], self.reward)
                    self._by_trajectory[agent_data] = session
                    weakref.finalize(agent_data, session.close)
                return session
        session = self._by_instance.get(instance_id)
        if session is None and instance_id in self._pending:
            session = self._by_instance[instance_id] = _open(self._pending[instance_id], self.reward)
        return session

    async def execute(
        self, instance_id: str, parameters: dict[str, Any], **kwargs: Any
    ) -> tuple[Any, float, dict[str, Any]]:
        """Run the call on the trajectory's episode: (observation text, step reward, validity metrics)."""
        from verl.tools.schemas import ToolResponse

        agent_data = kwargs.get("agent_data")
        text, reward, metrics = self._step(self._session(instance_id, agent_data), parameters, agent_data)
        return ToolResponse(text=text), reward, metrics

    def _step(self, session: _Session | None, parameters: Any, agent_data: Any) -> tuple[str, float, dict[str, Any]]:
        if session is None:
            return _error("unknown_instance", "no episode for this tool instance: call create() first"), 0.0, {}
        if session.episode is None:
            return _error("no_episode", session.error or "no episode"), 0.0, {}
        ep = session.episode
        if ep.done:
            return _error("episode_ended", "the episode has ended"), 0.0, {}
        # a tool of another environment (a namespaced config): the episode reports an unknown tool
        name = self.tool if self.env in (None, session.env) else self.name
        action = {"tool": name, "arguments": parameters}
        res = apply_action(ep, action)
        session.calls.append(action)
        if agent_data is not None and isinstance(getattr(agent_data, "extra_fields", None), dict):
            agent_data.extra_fields[CALLS_KEY] = session.calls
        if res.done:
            session.final = res.rewards
            ep.close()
        ch = res.rewards
        metrics = {"ok": res.ok, "done": res.done, "valid": ch.valid, "tool_error": ch.tool_error}
        return observation_text(res), float(res.reward), metrics

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        """The verdict once ``submit_answer`` ended the episode (0.0 before: no answer yet)."""
        session = self._session(instance_id, kwargs.get("agent_data"))
        final = session.final if session is not None else None
        return float(final.outcome or 0.0) if final is not None else 0.0

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        """Forget the instance; an explicit-lifecycle episode closes (the agent loop's closes with its trajectory)."""
        self._pending.pop(instance_id, None)
        session = self._by_instance.pop(instance_id, None)
        if session is not None:
            session.close()


# -- the tool config ------------------------------------------------------------------------------
def tool_name(env: str, tool: str, namespace: bool) -> str:
    """The name veRL (and the model) knows a tool by: ``<env>__<tool>`` with ``namespace``; ``submit_answer`` never."""
    return f"{env}__{tool}" if namespace and tool != SUBMIT else tool


def verl_tool_schema(name: str, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI function schema that veRL's ``OpenAIFunctionToolSchema`` keeps whole (it drops every parameter
    key but ``type``, ``description`` and ``enum``): what it would drop is said in the description."""
    props = {p: _verl_property(v) for p, v in (parameters.get("properties") or {}).items()}
    params = {"type": "object", "properties": props, "required": list(parameters.get("required") or [])}
    return {
        "type": "function",
        "function": {"name": name, "description": " ".join(description.split()), "parameters": params},
    }


def _verl_property(prop: Mapping[str, Any]) -> dict[str, Any]:
    options: list[Mapping[str, Any]] = [o for o in prop.get("anyOf") or prop.get("oneOf") or [] if isinstance(o, dict)]
    options = options or [prop]
    values = [o for o in options if o.get("type") != "null"]
    types: list[str] = []
    for o in options:
        t = o.get("type")
        types += [t] if isinstance(t, str) else list(t or [])
    enum = [v for o in values for v in (o.get("enum") or ([o["const"]] if "const" in o else []))]
    closed = bool(values) and all("enum" in o or "const" in o for o in values)  # every value is listed
    if closed and not [t for t in types if t != "null"]:
        types = [*sorted({_json_type(v) for v in enum}), *(["null"] if "null" in types else [])]
    types = list(dict.fromkeys(types)) or list(_ANY_TYPE)
    text = " ".join(str(prop.get("description") or prop.get("title") or "").split())
    notes = list(dict.fromkeys(n for n in map(_type_note, values) if n))
    if notes:
        text += ("; " if text else "") + "; ".join(notes)
    if prop.get("default") is not None:
        text += f" (default {json.dumps(prop['default'])})"
    out: dict[str, Any] = {"type": types[0] if len(types) == 1 else types}
    if text:
        out["description"] = text
    if closed:
        out["enum"] = list(dict.fromkeys(enum)) + ([None] if "null" in types else [])
    return out


def _type_note(prop: Mapping[str, Any]) -> str:
    if prop.get("type") == "array":
        return f"a list of {_type_text(prop.get('items') or {})}"
    if prop.get("type") == "object" and prop.get("properties"):
        return "an object with " + ", ".join(f"{k} ({_type_text(v)})" for k, v in prop["properties"].items())
    if prop.get("format") == "date":
        return "a date YYYY-MM-DD"
    return ""


def _type_text(prop: Mapping[str, Any]) -> str:
    if prop.get("format") == "date":
        return "date YYYY-MM-DD"
    if prop.get("type") == "array":
        return f"list of {_type_text(prop.get('items') or {})}"
    if "enum" in prop:
        return "one of " + ", ".join(map(json.dumps, prop["enum"]))
    return str(prop.get("type", "any"))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {int: "integer", float: "number", str: "string", list: "array", dict: "object"}.get(type(value), "string")


def tool_config(
    worlds: Sequence[World], *, namespace: bool = False, reward: str = "outcome"
) -> dict[str, list[dict[str, Any]]]:
    """veRL's tool config (``actor_rollout_ref.rollout.multi_turn.tool_config_path``): one ``AwmTool`` per tool of
    each world, and one generic ``submit_answer``. Tool names must be unique across the worlds: ``namespace``
    prefixes them with the environment (the rows must be built with the same ``namespace``)."""
    tools: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    for w in worlds:
        for spec in w.tool_specs():
            if spec.name == SUBMIT:
                raise ValueError(f"{w.id} defines its own {SUBMIT!r} tool; veRL's generic one would shadow it")
            name = tool_name(w.id, spec.name, namespace)
            if name in seen:
                raise ValueError(f"tool {name!r} is in both {seen[name]} and {w.id}: build with namespace=True")
            seen[name] = w.id
            config = {"type": "native", "env": w.id, "tool": spec.name, "reward": reward}
            schema = verl_tool_schema(name, spec.description, spec.parameters)
            tools.append({"class_name": TOOL_CLASS, "config": config, "tool_schema": schema})
    submit = generic_submit_spec()
    schema = verl_tool_schema(SUBMIT, submit.description, submit.parameters)
    tools.append(
        {
            "class_name": TOOL_CLASS,
            "config": {"type": "native", "tool": SUBMIT, "reward": reward},
            "tool_schema": schema,
        }
    )
    return {"tools": tools}


def write_tool_config(worlds: Sequence[World], path: str | Path, **kwargs: Any) -> Path:
    """Write ``tool_config(worlds, **kwargs)`` as the YAML file veRL loads."""
    import yaml

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(tool_config(worlds, **kwargs), sort_keys=False, allow_unicode=True), encoding="utf-8")
    return out


# -- dataset rows ---------------------------------------------------------------------------------
def task_rows(
    worlds: Sequence[World],
    task_ids: Sequence[str] | None = None,
    repeats: int = 1,
    seed: int = 0,
    *,
    namespace: bool = False,
    split: str = "train",
) -> list[dict[str, Any]]:
    """veRL ``RLHFDataset`` rows: ``data_source``, ``agent_name`` (the tool agent loop), ``prompt`` (system +
    task; the system message states the answer's type, which veRL's generic ``submit_answer`` cannot),
    ``ability``, ``reward_model.ground_truth`` (the episode spec, JSON: the judge rebuilds the task from it, no
    gold in the row) and ``extra_info`` (``index``, ``tools_kwargs`` with every tool's ``create_kwargs``, and
    ``tool_selection``: the row's own tools)."""
    from awm.model.world import stable_int
    from awm.runtime.chat import system_prompt

    rows: list[dict[str, Any]] = []
    for r in range(repeats):
        for w in worlds:
            names = [tool_name(w.id, s.name, namespace) for s in w.tool_specs()] + [SUBMIT]
            for tid in w.task_ids:
                if task_ids and tid not in task_ids:
                    continue
                task = w.task(tid).task
                spec = EpisodeSpec(env=w.id, task_id=tid, seed=stable_int("verl", seed, w.id, tid, r) % 2**31)
                answer = json.dumps(submit_parameters(task)["properties"]["answer"], ensure_ascii=False)
                system = system_prompt(w, task=task) + f"\nFor this task, submit_answer's `answer` is: {answer}"
                create = spec.model_dump()
                rows.append(
                    {
                        "data_source": f"awm/{w.id}",
                        "agent_name": AGENT_NAME,
                        "prompt": [
                            {"role": "system", "content": system},
                            {"role": "user", "content": task.instruction},
                        ],
                        "ability": "tool_use",
                        "reward_model": {"style": "rule", "ground_truth": spec.model_dump_json()},
                        "extra_info": {
                            "split": split,
                            "index": len(rows),
                            **create,
                            "need_tools_kwargs": True,
                            "tools_kwargs": {n: {"create_kwargs": create} for n in names},
                            "tool_selection": names,
                        },
                    }
                )
    return rows


def write_rows(rows: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """Write rows as the Parquet file ``data.train_files`` names (pyarrow comes with veRL)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist([{**r} for r in rows]), out)
    return out


# -- the reward -----------------------------------------------------------------------------------
def final_text(solution: str) -> tuple[str | None, bool]:
    """(the answer text, truncated) of a decoded response that ended without ``submit_answer``: the model's text
    after the last tool response; truncated when that text still holds a tool call nobody ran."""
    tail = _THINK.sub("", solution.rsplit("</tool_response>", 1)[-1])
    if "<tool_call>" in tail:
        return None, True
    return _ROLE_HEADER.sub("", tail, count=1).strip(), False


class Judgement(NamedTuple):
    """The verifier's verdict on a replayed trajectory (for the trainer, never the policy)."""

    outcome: float
    final: RewardChannels
    steps: list[RewardChannels]
    submitted: bool
    truncated: bool


def judge(
    spec: EpisodeSpec, calls: Sequence[Mapping[str, Any]], solution: str = "", reward: str | None = None
) -> Judgement:
    """Replay ``calls`` (the tools' record) on a fresh episode of ``spec`` and judge it: the submitted answer,
    else ``solution``'s final text (0 when it was cut off while calling tools)."""
    world, ct = load(spec.env).resolve(spec.task_id)
    ep = world.episode(ct.id, seed=spec.seed, reward=reward)
    steps: list[RewardChannels] = []
    try:
        for action in calls:
            res = apply_action(ep, dict(action))
            if res.done:
                return Judgement(float(res.rewards.outcome or 0.0), res.rewards, steps, True, False)
            steps.append(res.rewards)
        text, truncated = final_text(solution)
        res = ep.submit(text)
        if not res.done:  # never malformed for text; kept for symmetry with the trainer's other surfaces
            res = ep.submit(None)
        outcome = 0.0 if truncated else float(res.rewards.outcome or 0.0)
        return Judgement(outcome, res.rewards, steps, False, truncated)
    finally:
        ep.close()


def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: Mapping[str, Any] | None = None, **_: Any
) -> dict[str, float]:
    """veRL's custom reward function (``reward.custom_reward_function.path/name``): ``score`` is the verifier's
    0/1 outcome; progress Φ and the validity counts ride along as metrics (``reward_extra_info``)."""
    try:
        spec = (
            EpisodeSpec.model_validate_json(ground_truth)
            if isinstance(ground_truth, str | bytes)
            else (EpisodeSpec.model_validate(ground_truth))
        )
    except ValidationError as e:
        raise ValueError(
            f"{data_source}: ground_truth is not an awm episode spec ({e.error_count()} problem(s))"
        ) from e
    calls = list((extra_info or {}).get(CALLS_KEY) or [])
    j = judge(spec, calls, solution_str or "")
    bad = sum((not c.valid) or c.tool_error or c.timeout for c in j.steps)
    return {
        "score": j.outcome,
        "progress": float(j.final.progress),
        "submitted": float(j.submitted),
        "truncated": float(j.truncated),
        "tool_calls": float(len(j.steps)),
        "invalid_calls": float(bad),
    }
