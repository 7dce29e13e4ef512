"""The ``submit_answer`` action, the same on every surface (Python, Gymnasium, MCP, HTTP, trainer).

Its ``answer`` argument has the task's answer schema (a number, a string, a date, a boolean, a list
or an object); ``explanation`` carries prose for people and is never graded. Tasks that only change
data take no answer.
"""

from __future__ import annotations

import json
from typing import Any

from awm.bundle.records import Task, ToolSpec

SUBMIT = "submit_answer"
MAX_EXPLANATION = 4_000

_EXPLANATION = {
    "type": "string",
    "maxLength": MAX_EXPLANATION,
    "description": "optional: your reasoning or a message for the user; it is not graded",
}


def submit_parameters(task: Task) -> dict[str, Any]:
    """The JSON Schema of ``submit_answer``'s arguments for ``task``."""
    if task.answer is None:
        return {
            "type": "object",
            "properties": {
                "answer": {"type": "null", "description": "this task is judged on the data: no answer needed"},
                "explanation": _EXPLANATION,
            },
            "additionalProperties": False,
        }
    return {
        "type": "object",
        "properties": {"answer": task.answer.json_schema(), "explanation": _EXPLANATION},
        "required": ["answer"],
        "additionalProperties": False,
    }


def submit_spec(task: Task) -> ToolSpec:
    """``submit_answer`` as a tool record (OpenAI, MCP and HTTP listings are built from it)."""
    if task.answer is None:
        desc = "Finish the task once all the requested changes are made. Call it once, at the end."
    else:
        desc = (
            "Give the final answer and finish the task. Call it once, at the end. `answer` must be the value "
            "alone, of the type shown (no hedging, no alternatives); put any explanation in `explanation`."
        )
    return ToolSpec(name=SUBMIT, description=desc, write=False, parameters=submit_parameters(task))


def parse_submission(arguments: Any) -> tuple[Any, str | None, str | None]:
    """(answer, explanation, problem) from ``submit_answer`` arguments (a dict or its JSON text)."""
    if arguments is None:
        return None, None, None
    if isinstance(arguments, (str, bytes)):
        try:
            arguments = json.loads(arguments) if str(arguments).strip() else {}
        except json.JSONDecodeError as e:
            return None, None, f'submit_answer arguments are not valid JSON ({e.msg}); send {{"answer": ...}}'
    if not isinstance(arguments, dict):
        return None, None, 'submit_answer arguments must be an object: {"answer": ..., "explanation": "..."}'
    extra = sorted(set(arguments) - {"answer", "explanation"})
    if extra:
        return None, None, f"submit_answer takes 'answer' and 'explanation', not {extra}"
    explanation = arguments.get("explanation")
    if explanation is not None and not isinstance(explanation, str):
        return None, None, "submit_answer 'explanation' must be a string"
    if explanation is not None and len(explanation) > MAX_EXPLANATION:
        explanation = explanation[:MAX_EXPLANATION]
    return arguments.get("answer"), explanation, None
