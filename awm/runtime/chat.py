"""The system prompt every chat surface gives a model (Gymnasium chat wrapper, eval harness, trainer)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from awm.bundle.records import Task
    from awm.model.world import World

SYSTEM_PROMPT = (
    "You are an assistant operating {title}. {description}\n"
    "Use the tools to read and change the system's data. Work step by step. "
    "When the task is done, call submit_answer once: `answer` is the final answer value alone, of the type "
    "its schema gives (no hedging, no alternatives; null when the task only asks for changes), and any "
    "explanation goes in `explanation`. That ends the episode. A reply without a tool call also ends it: "
    "its text is then read strictly as the answer value."
)
TEXT_TOOLS = (
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{tools}\n</tools>\n\n"
    "For each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{{"name": <function-name>, "arguments": <args-json-object>}}\n</tool_call>'
)


def system_prompt(
    world: World,
    text_tools: bool = False,
    template: str | None = None,
    task: Task | None = None,
    tools: Sequence[dict[str, Any]] | None = None,
) -> str:
    """The system message: the world's title and description, and the tools when the model calls them
    as ``<tool_call>`` text (Hermes / Qwen format) instead of native tool calls. The tools are ``tools``
    when given (a selection, shortened descriptions), else every tool plus ``submit_answer`` with
    ``task``'s answer schema (a generic one without a task)."""
    from awm.runtime.actions import agent_tools

    text = (template or SYSTEM_PROMPT).format(title=world.manifest.title, description=world.manifest.description)
    if text_tools:
        listed = agent_tools(world, task) if tools is None else tools
        text += TEXT_TOOLS.format(tools="\n".join(json.dumps(t, ensure_ascii=False) for t in listed))
    return text
