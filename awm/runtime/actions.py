"""Parsers from the ways LLM agents speak to one canonical action.

Canonical forms (what ``AwmEnv.step`` accepts, as a dict or its JSON text):
    {"tool": "<name>", "arguments": {...}}     a tool call ("name" is accepted for "tool")
    {"answer": <value>, "explanation": "..."}  the final answer; ends the episode (explanation optional),
                                               unless the value can never be of the task's answer type
    {"tool": "list_tools"}                     the tool list (AWM's meta-tool), changes nothing
    {"malformed": "<why>"}                     what a format wrapper sends when it cannot parse the model
                                               (with "submit": true for a malformed submit_answer call)
The answer is a typed value (the task's answer schema: a number, a string, a date, a boolean, a list or
an object; null for tasks that only change data). A call of the ``submit_answer`` tool (in every format,
also through AWM's meta-tool ``call_tool``) is the same action; a malformed one (arguments that do not
parse, or an answer that can never be of the type: a number for a date, a list for a single value, ...;
see ``Episode.submit``) is reported as a step flagged ``malformed`` and does not end the episode. A
model's plain-text reply (no tool call) is its answer as text: the strict fallback.
AWM's meta-tool form ``{"tool": "call_tool", "arguments": {"tool_name": ..., "arguments": ...}}`` is
unwrapped to a plain tool call wherever it appears.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from awm.bundle.records import Task, ToolSpec
from awm.runtime.submit import SUBMIT, parse_submission, submit_spec

if TYPE_CHECKING:
    from awm.model.world import World
    from awm.runtime.episode import Episode, StepResult

MAX_ACTION = 1_000_000  # characters
MAX_OBSERVATION = 1_000_000


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    arguments: Any  # dict, or a JSON string that the episode parses (and reports on)
    call_id: str | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """The final answer: a typed value (or a model's plain text, the strict fallback) and optional prose."""

    value: Any
    explanation: str | None = None

    @property
    def text(self) -> str | None:
        """The answer as text (``None`` when there is none)."""
        if self.value is None or isinstance(self.value, str):
            return self.value
        return json.dumps(self.value, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class ListTools:
    pass


@dataclass(frozen=True, slots=True)
class Malformed:
    message: str
    submit: bool = False  # a malformed submit_answer call: the message gains the task's answer schema


Action = ToolCall | Answer | ListTools | Malformed

_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_THINK = re.compile(r"<think>.*?</think>", re.S)


def _submission(arguments: Any) -> Answer | Malformed:
    """``submit_answer`` arguments (a dict or its JSON text) as the final answer, or why they are malformed."""
    if isinstance(arguments, str) and len(arguments) > MAX_ACTION:
        return Malformed(f"submit_answer arguments are {len(arguments)} characters; the limit is {MAX_ACTION}", True)
    value, explanation, problem = parse_submission(arguments)
    if problem is not None:
        return Malformed(problem, True)
    return Answer(value, explanation)


def _from_mapping(d: dict[str, Any], call_id: str | None = None) -> Action:
    if isinstance(d.get("malformed"), str):
        return Malformed(d["malformed"], d.get("submit") is True)
    if "answer" in d and "tool" not in d and "name" not in d:
        return _submission(d)
    name = d.get("tool", d.get("name"))
    if not isinstance(name, str):
        return Malformed('an action needs "tool" (a tool name) or "answer"')
    args = d.get("arguments", d.get("args", {}))
    if name == "list_tools":
        return ListTools()
    if name == "call_tool":  # AWM's meta-tool
        inner = args
        if isinstance(inner, str):
            try:
                inner = json.loads(inner)
            except json.JSONDecodeError:
                return Malformed("call_tool arguments are not valid JSON")
        if not isinstance(inner, dict) or not isinstance(inner.get("tool_name"), str):
            return Malformed('call_tool needs {"tool_name": "<tool>", "arguments": {...}}')
        if inner["tool_name"] == SUBMIT:
            return _submission(inner.get("arguments"))
        return ToolCall(inner["tool_name"], inner.get("arguments", {}) or {}, call_id)
    if name == SUBMIT:
        return _submission(args)
    return ToolCall(name, args if args is not None else {}, call_id)


def parse_json_action(action: Any) -> Action:
    """Our JSON form (dict or text)."""
    if isinstance(action, dict):
        return _from_mapping(action)
    if not isinstance(action, str):
        return Malformed(f"an action must be a JSON object or its text, not {type(action).__name__}")
    if not action.strip():
        return Malformed('empty action: send a JSON object with "tool" and "arguments", or with "answer"')
    d = _json_object(action, "action", 'send a JSON object with "tool" and "arguments", or with "answer"')
    return d if isinstance(d, Malformed) else _from_mapping(d)


def parse_openai_message(action: Any) -> Action:
    """An OpenAI chat assistant message (dict or JSON text) with ``tool_calls``; no tool call = answer.

    Only the first tool call is executed; the others are reported as ignored by the chat wrapper.
    """
    msg = action
    if isinstance(action, str):
        try:
            msg = json.loads(action)
        except json.JSONDecodeError:
            return Answer(action)  # plain text from the model: its final answer
    if isinstance(msg, list) and msg and all(isinstance(c, dict) for c in msg):  # a bare tool_calls list
        msg = {"tool_calls": msg}
    if not isinstance(msg, dict):
        if isinstance(action, str):
            return Answer(action)  # plain text that happens to be JSON ("42", "[...]"): its final answer
        return Malformed("expected an assistant message object")
    calls = msg.get("tool_calls") or []
    if not calls:
        if "tool" in msg or "answer" in msg:
            return _from_mapping({k: v for k, v in msg.items() if k not in ("role", "content", "tool_calls")})
        return Answer(_strip_think(msg.get("content")))
    first = calls[0]
    fn = first.get("function", first) if isinstance(first, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        return Malformed("tool_calls[0] needs function.name and function.arguments")
    return _from_mapping({"tool": fn["name"], "arguments": fn.get("arguments") or {}}, first.get("id"))


def parse_hermes(action: Any) -> Action:
    """Hermes / Qwen text: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``; no tag = answer."""
    if not isinstance(action, str):
        return parse_openai_message(action)
    text = _strip_think(action) or ""
    m = _HERMES.search(text)
    if m is None:
        return Answer(text.strip())
    # no tag and no JSON example in the message: a model that echoes it back must not send a new bad call
    d = _json_object(m.group(1), "the tool call", "put one JSON object with name and arguments between the tags")
    return d if isinstance(d, Malformed) else _from_mapping(d)


def _json_object(text: str, what: str, hint: str) -> dict[str, Any] | Malformed:
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        return Malformed(f"{what} is not valid JSON ({e.msg} at position {e.pos}); {hint}")
    if not isinstance(d, dict):
        return Malformed(f"{what} must be a JSON object; {hint}")
    return d


def _strip_think(text: Any) -> str | None:
    if text is None:
        return None
    return _THINK.sub("", str(text)).strip()


PARSERS = {"json": parse_json_action, "openai": parse_openai_message, "hermes": parse_hermes}


def to_json_action(action: Action) -> dict[str, Any]:
    """The canonical dict form of a parsed action."""
    if isinstance(action, ToolCall):
        return {"tool": action.name, "arguments": action.arguments}
    if isinstance(action, Answer):
        out: dict[str, Any] = {"answer": action.value}
        if action.explanation is not None:
            out["explanation"] = action.explanation
        return out
    if isinstance(action, ListTools):
        return {"tool": "list_tools"}
    return {"malformed": action.message, "submit": True} if action.submit else {"malformed": action.message}


def generic_submit_spec() -> ToolSpec:
    """``submit_answer`` when no task is known yet: ``answer`` of any type (a listing before an episode)."""
    return ToolSpec(
        name=SUBMIT,
        description=(
            "Give the final answer and finish the task. Call it once, at the end. `answer` must be the value "
            "alone, of the type the task asks for (a number, a string, a YYYY-MM-DD date, a boolean, a list "
            "or an object; null for tasks that only change data); put any explanation in `explanation`."
        ),
        write=False,
        parameters={
            "type": "object",
            "properties": {
                "answer": {"description": "the final answer value, of the type the task asks for"},
                "explanation": {
                    "type": "string",
                    "description": "optional: your reasoning or a message for the user; it is not graded",
                },
            },
            "additionalProperties": False,
        },
    )


def agent_tools(world: World, task: Task | None = None) -> list[dict[str, Any]]:
    """The OpenAI ``tools`` an agent gets: the environment's tools plus ``submit_answer`` for ``task``
    (its answer schema; a generic one when ``task`` is None)."""
    tools = world.openai_tools()
    if SUBMIT not in world.tools:
        tools.append((submit_spec(task) if task is not None else generic_submit_spec()).openai())
    return tools


def _submit_hint(ep: Episode) -> str:
    params = submit_spec(ep.task.task).parameters
    answer = params["properties"]["answer"]
    return f'; submit_answer takes "answer" ({json.dumps(answer)}) and an optional "explanation"'


def apply_action(ep: Episode, action: Any) -> StepResult:
    """Parse ``action`` (our JSON form, dict or text) and run it on ``ep``; never raises for bad input."""
    if isinstance(action, str) and len(action) > MAX_ACTION:
        return ep.reject(f"action is {len(action)} characters; the limit is {MAX_ACTION}")
    parsed = parse_json_action(action)
    if isinstance(parsed, ToolCall):
        return ep.call(parsed.name, parsed.arguments)
    if isinstance(parsed, Answer):
        return ep.submit(parsed.value, parsed.explanation)
    if isinstance(parsed, ListTools):
        res = ep.list_tools()
        if res.ok and isinstance(res.result, list) and SUBMIT not in ep.world.tools:
            res.result = [*res.result, submit_spec(ep.task.task).model_dump(exclude={"write"})]
        return res
    return ep.reject(parsed.message + (_submit_hint(ep) if parsed.submit else ""))


def step_info(ep: Episode, res: StepResult) -> dict[str, Any]:
    """The ``info`` dict of a Gymnasium step (also returned by the HTTP ``/step`` endpoint)."""
    return {
        "task_id": ep.task.id,
        "step": ep.steps,
        "tool": res.tool,
        "arguments": res.arguments,
        "ok": res.ok,
        "error": res.error.to_dict() if res.error else None,
        "diff": res.diff.to_dict(),
        "reward_components": res.rewards.to_dict(),
        "outcome": res.rewards.outcome,
    }


def observation_text(res: StepResult) -> str:
    """The agent's observation as JSON text, bounded in size."""
    obs = json.dumps(res.observation(), ensure_ascii=False, default=str)
    if len(obs) > MAX_OBSERVATION:
        obs = json.dumps(
            {
                "ok": False,
                "error": {"code": "result_too_large", "message": "the result is too large; narrow the request"},
            }
        )
    return obs
