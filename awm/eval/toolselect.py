"""Fewer or shorter tools, for models with a small context window (the text-mode system prompt of our
environments is 8-10k tokens with every tool described in full).

- ``select_tools(tools, instruction, n)``: the ``n`` tools most relevant to the instruction, by
  idf-weighted word overlap with each tool's name (counted three times), description and parameter
  names, plus a bonus for look-up tools (``find_``, ``search_``, ``list_``, ``get_``, ...: most tasks
  start by finding a record); ``submit_answer`` always stays and the original order is kept. On our 51
  reference tasks, 16 of ~42 tools hold 81% of the gold solutions' tools, 20 hold 87%.
- ``shorten_tools(tools)``: each description cut to its first sentence, parameter descriptions dropped
  (types, enums and required fields stay); ``submit_answer`` is left whole.

A tool that is not offered can still be called: the environment runs every tool it has.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Sequence
from typing import Any

from awm.runtime.submit import SUBMIT

_WORD = re.compile(r"[a-z0-9]+")
_LOOKUP = ("find_", "search_", "list_", "get_", "view_", "preview_")
LOOKUP_BONUS = 4.0
_STOP = frozenset(
    _WORD.findall(
        "a an and any are as at be by did do does each for from get has have her his how i if in into is it "
        "its me my no not of on one or set that the their them then this to was were what when which who with you your"
    )
)


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _WORD.findall(text.lower().replace("_", " ")) if w not in _STOP}


def _name(tool: dict[str, Any]) -> str:
    return str((tool.get("function") or {}).get("name", ""))


def select_tools(tools: Sequence[dict[str, Any]], instruction: str, n: int) -> list[dict[str, Any]]:
    """The ``n`` tools (``submit_answer`` not counted) whose words best match ``instruction``."""
    if n < 0:
        raise ValueError("the number of tools must be at least 0")
    candidates = [t for t in tools if _name(t) != SUBMIT]
    if len(candidates) <= n:
        return list(tools)
    fields = []
    for t in candidates:
        fn = t.get("function") or {}
        params = " ".join((fn.get("parameters") or {}).get("properties") or {})
        fields.append((_stems(_name(t)), _stems(f"{fn.get('description') or ''} {params}")))
    df: dict[str, int] = {}
    for name, rest in fields:
        for w in name | rest:
            df[w] = df.get(w, 0) + 1
    asked = _stems(instruction)

    def idf(w: str) -> float:
        return math.log(1 + len(candidates) / df[w])

    scores = [
        sum(3 * idf(w) for w in asked & name) + sum(idf(w) for w in asked & (rest - name)) for name, rest in fields
    ]
    scores = [s + LOOKUP_BONUS * _name(t).startswith(_LOOKUP) for s, t in zip(scores, candidates, strict=True)]
    best = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))[:n]
    keep = {id(candidates[i]) for i in best}
    return [t for t in tools if id(t) in keep or _name(t) == SUBMIT]


def _first_sentence(text: str, limit: int = 120) -> str:
    first = re.split(r"(?<=[.!?])\s|\n", text.strip(), maxsplit=1)[0]
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def _strip_descriptions(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_strip_descriptions(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in ("description", "title", "examples"):
            continue
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: _strip_descriptions(sub) for name, sub in value.items()}
        else:
            out[key] = _strip_descriptions(value)
    return out


def shorten_tools(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of ``tools`` with one-sentence descriptions and no parameter descriptions."""
    out = []
    for tool in tools:
        tool = copy.deepcopy(tool)
        fn = tool.get("function")
        if isinstance(fn, dict) and fn.get("name") != SUBMIT:
            if isinstance(fn.get("description"), str):
                fn["description"] = _first_sentence(fn["description"])
            if isinstance(fn.get("parameters"), dict):
                fn["parameters"] = _strip_descriptions(fn["parameters"])
        out.append(tool)
    return out
