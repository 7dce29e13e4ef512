"""Tolerant parsing of LLM output into typed records.

Strips reasoning blocks (``<think>``) and code fences, finds the JSON object inside surrounding prose,
repairs trailing commas. Every failure is an ``OutputError`` whose message is short enough to feed back.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
MAX_ERRORS = 12


class OutputError(ValueError):
    """The model's answer cannot become the stage's record; the message says why, for the model to read."""


def strip_reasoning(text: str) -> str:
    """The answer without ``<think>`` blocks (Qwen3, DeepSeek-R1 style)."""
    text = _THINK.sub("", text)
    low = text.lower()
    if "<think>" in low:  # opened, never closed: the answer was cut off while reasoning
        raise OutputError("the response ended inside a <think> block; answer with the JSON object only")
    if "</think>" in low:  # some servers drop the opening tag
        text = text[low.rindex("</think>") + len("</think>") :]
    return text.strip()


def extract_json(text: str | None) -> Any:
    """The JSON value in ``text``: the whole text, a fenced block, or the first ``{...}`` in prose."""
    if text is None or not text.strip():
        raise OutputError("the response was empty; answer with one JSON object")
    body = strip_reasoning(text)
    candidates = [body, *(m.group(1).strip() for m in _FENCE.finditer(body))]
    start, end = body.find("{"), body.rfind("}")
    if start != -1 and end > start:
        span = body[start : end + 1]
        candidates += [span, _TRAILING_COMMA.sub(r"\1", span)]
    errors: list[json.JSONDecodeError] = []
    for c in candidates:
        try:
            return json.loads(c)
        except json.JSONDecodeError as err:
            errors.append(err)
    decoder = json.JSONDecoder()
    for m in list(re.finditer(r"\{", body))[:20]:
        try:
            return decoder.raw_decode(body, m.start())[0]
        except json.JSONDecodeError:
            continue
    e = errors[-2] if start != -1 and end > start else errors[0]  # the {...} span's own error, if any
    where = f"{e.msg} at line {e.lineno} column {e.colno}"
    raise OutputError(f"the response is not valid JSON ({where}); send one JSON object")


def format_validation_error(err: ValidationError, limit: int = MAX_ERRORS) -> str:
    """One short line per problem, naming the field path."""
    lines = []
    for e in err.errors()[:limit]:
        loc = ".".join(str(p) for p in e["loc"]) or "(top level)"
        got = repr(e.get("input"))
        got = got if len(got) <= 60 else got[:57] + "..."
        lines.append(f"{loc}: {e['msg']}" + (f" (got {got})" if e["type"] != "missing" else ""))
    more = err.error_count() - limit
    if more > 0:
        lines.append(f"... and {more} more")
    return "; ".join(lines)


def parse_output(text: str | None, model: type[T]) -> T:
    """Parse an LLM answer into ``model``; ``OutputError`` with a concise reason otherwise."""
    obj = extract_json(text)
    if not isinstance(obj, dict):
        raise OutputError(f"expected a JSON object, got a JSON {type(obj).__name__}")
    try:
        return model.model_validate(obj)
    except ValidationError as e:
        raise OutputError("the JSON does not match the requested format: " + format_validation_error(e)) from e
