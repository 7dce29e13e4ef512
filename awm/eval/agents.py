"""Agents the eval harness can run: ``openai`` (any OpenAI-compatible chat model), ``oracle`` (the gold
solution), ``random`` and ``noop`` (baselines).

An agent hands out one ``AgentEpisode`` per episode. Each ``act()`` returns a ``Turn``: the actions the
agent takes this turn (tool calls, or its final answer), each with the canonical action the Gymnasium
env receives and the raw form the agent emitted (what the trajectory records). The runner steps the
env with every action and feeds each observation back through ``observe()``.

The final answer is a typed value: the agent's ``submit_answer`` call (its ``answer`` has the task's
answer schema, listed in ``EpisodeSpec.tools``) becomes ``{"answer": <value>, "explanation": ...}``;
a chat model's plain-text reply is the strict free-text fallback.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from awm.eval.llm import ChatClient, Completion, ContextLengthExceeded, LLMError, LLMRefused, ToolsUnsupported
from awm.eval.toolselect import select_tools, shorten_tools
from awm.model.world import World
from awm.runtime.actions import Answer, parse_hermes, parse_openai_message, to_json_action
from awm.runtime.chat import system_prompt
from awm.runtime.submit import SUBMIT

_TOOL_CALL_BLOCK = re.compile(r"<tool_call>.*?(?:</tool_call>|$)", re.S)
_THINK = re.compile(r"<think>.*?</think>", re.S)


@dataclass(frozen=True)
class EpisodeSpec:
    """What an agent is told about its episode (``world`` is there for the oracle only)."""

    world: World
    env: str
    task_id: str
    instruction: str
    tools: list[dict[str, Any]]
    seed: int
    max_steps: int


@dataclass(frozen=True)
class Action:
    env_action: dict[str, Any]  # for env.step: {"tool", "arguments"} | {"answer", "explanation"} | {"malformed"}
    raw: str | dict[str, Any]  # what the agent emitted
    call_id: str | None = None


@dataclass
class Turn:
    actions: list[Action]
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class AgentEpisode(Protocol):
    async def act(self) -> Turn: ...

    def observe(self, action: Action, observation: str) -> None: ...


class Agent(Protocol):
    name: str
    model: str | None

    def start(self, spec: EpisodeSpec) -> AgentEpisode: ...

    async def aclose(self) -> None: ...


# -- built-in agents -----------------------------------------------------------------------------
class _Scripted:
    """An episode that plays a fixed list of actions, one per turn."""

    def __init__(self, actions: list[Action]):
        self._queue = list(actions)

    async def act(self) -> Turn:
        return Turn([self._queue.pop(0) if self._queue else Action({"answer": None}, {"answer": None})])

    def observe(self, action: Action, observation: str) -> None:
        pass


class OracleAgent:
    """Plays each task's gold solution (from the verifier, which only infrastructure can read) and submits
    its typed gold answer."""

    name = "oracle"
    model: str | None = None

    def start(self, spec: EpisodeSpec) -> AgentEpisode:
        gold = spec.world.task(spec.task_id).verifier.gold
        actions = [
            Action({"tool": c.tool, "arguments": c.arguments}, {"tool": c.tool, "arguments": c.arguments})
            for c in gold.calls
        ]
        actions.append(Action({"answer": gold.answer}, {"answer": gold.answer}))
        return _Scripted(actions)

    async def aclose(self) -> None:
        pass


class NoopAgent:
    """Answers at once with nothing: the floor every task must score 0 on."""

    name = "noop"
    model: str | None = None

    def start(self, spec: EpisodeSpec) -> AgentEpisode:
        return _Scripted([Action({"answer": None}, {"answer": None})])

    async def aclose(self) -> None:
        pass


class RandomAgent:
    """Random tools with random (schema-shaped) arguments for a random number of steps, then a random answer.

    Seeded by the episode seed, so a run is reproducible."""

    name = "random"
    model: str | None = None

    def __init__(self, max_calls: int = 8):
        self.max_calls = max_calls

    def start(self, spec: EpisodeSpec) -> AgentEpisode:
        rng = random.Random(spec.seed)
        words = re.findall(r"[A-Za-z0-9@.\-]+", spec.instruction) or ["x"]
        n = rng.randint(0, max(0, min(self.max_calls, spec.max_steps - 1)))
        tools = [t for t in spec.tools if t["function"]["name"] != SUBMIT] or spec.tools
        actions = []
        for _ in range(n):
            tool = rng.choice(tools)["function"]
            args = _random_object(tool.get("parameters") or {}, rng, words)
            actions.append(Action({"tool": tool["name"], "arguments": args}, {"tool": tool["name"], "arguments": args}))
        answer = rng.choice([None, rng.choice(words), str(rng.randint(0, 1000))])
        actions.append(Action({"answer": answer}, {"answer": answer}))
        return _Scripted(actions)

    async def aclose(self) -> None:
        pass


def _random_object(schema: dict[str, Any], rng: random.Random, words: list[str]) -> dict[str, Any]:
    required = set(schema.get("required") or [])
    out = {}
    for name, prop in (schema.get("properties") or {}).items():
        if name in required or rng.random() < 0.5:
            out[name] = _random_value(prop, rng, words)
    return out


def _random_value(prop: dict[str, Any], rng: random.Random, words: list[str]) -> Any:
    options = prop.get("anyOf")
    if options:
        return _random_value(rng.choice(options), rng, words)
    if "enum" in prop:
        return rng.choice(prop["enum"])
    kind = prop.get("type")
    if kind == "integer":
        return rng.randint(0, 60)
    if kind == "number":
        return round(rng.uniform(0, 500), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "array":
        return [_random_value(prop.get("items") or {"type": "string"}, rng, words) for _ in range(rng.randint(0, 2))]
    if kind == "object":
        return _random_object(prop, rng, words)
    return rng.choice(words)


# -- an OpenAI-compatible chat model -------------------------------------------------------------
class ChatAgent:
    """A chat model behind ``ChatClient``. ``tool_format``: ``native`` (the API's ``tools`` and
    ``tool_calls``), ``text`` (tools in the system prompt, ``<tool_call>`` blocks in the reply, results in
    ``<tool_response>`` blocks) or ``auto`` (native, falling back to text when the server refuses tools,
    or accepts them but never shows them to the model: before the first episode, ``auto`` compares the
    prompt tokens the server counts with and without the tools). ``history=k`` sends only the last k turns
    after the task (AWM uses 3). ``max_tools=n`` offers only the n tools most relevant to the instruction
    and ``short_descriptions`` one-sentence tool descriptions, for small context windows.

    ``auto`` also switches when a request with tools fails because of them (llama-server without
    ``--jinja``, Ollama's "does not support tools", vLLM without a tool parser, a chat template that cannot
    render tool calls or tool results): once, for the whole run; an episode under way goes on with its
    history rewritten as text.

    A reply cut off at ``max_tokens`` (``finish_reason`` "length") is never taken as the final answer:
    its complete tool calls run; with none, the episode is ``truncated`` (``max_tokens``), and the
    error carries the turn's usage and the cut text for the record.
    ``notes`` says what ``auto`` found; ``on_note`` hears each note when it is made (default: printed
    to stderr at once, ``note: ...``)."""

    name = "openai"

    def __init__(
        self,
        client: ChatClient,
        *,
        tool_format: str = "auto",
        history: int | None = None,
        temperature: float | None = 0.7,
        max_tokens: int | None = None,
        max_calls_per_turn: int = 16,
        max_tools: int | None = None,
        short_descriptions: bool = False,
        on_note: Callable[[str], None] | None = None,
    ):
        if tool_format not in ("auto", "native", "text"):
            raise ValueError(f"tool_format must be auto, native or text, not {tool_format!r}")
        if history is not None and history < 1:
            raise ValueError("history must be at least 1")
        if max_tools is not None and max_tools < 0:
            raise ValueError("max_tools must be at least 0")
        self.client = client
        self.model: str | None = client.model
        self.tool_format = tool_format
        self.text_mode = tool_format == "text"
        self.history = history
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_calls_per_turn = max_calls_per_turn
        self.max_tools = max_tools
        self.short_descriptions = short_descriptions
        self.notes: list[str] = []
        self.on_note = on_note or _print_note
        self.tools_checked = tool_format != "auto"
        self._check_lock: asyncio.Lock | None = None

    def note(self, note: str) -> None:
        """Record a note for run.json and say it now (a run can take hours: it must not wait for the end)."""
        self.notes.append(note)
        self.on_note(note)

    def use_text(self, why: str) -> None:
        """``auto``: send tools as ``<tool_call>`` text from now on, for every episode (said once)."""
        self.tools_checked = True
        if not self.text_mode:
            self.text_mode = True
            self.note(f"switched to text tool format because {why}: tools are <tool_call> text from now on")

    def start(self, spec: EpisodeSpec) -> AgentEpisode:
        return _ChatEpisode(self, spec)

    def tools_for(self, spec: EpisodeSpec) -> list[dict[str, Any]]:
        """The tools this agent offers in ``spec``'s episode (all, or a selection; shortened or not)."""
        tools = spec.tools if self.max_tools is None else select_tools(spec.tools, spec.instruction, self.max_tools)
        return shorten_tools(tools) if self.short_descriptions else list(tools)

    async def check_tools(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> None:
        """``auto``: once per agent, switch to text tool calls if the server refuses ``tools`` or drops them
        (the same prompt counts as many tokens with the tools as without)."""
        if self.tools_checked:
            return
        self._check_lock = self._check_lock or asyncio.Lock()
        async with self._check_lock:
            if self.tools_checked:
                return
            try:
                with_tools = await self.client.prompt_tokens(messages, tools)
                without = await self.client.prompt_tokens(messages)
            except ToolsUnsupported as e:
                return self.use_text(f"the server refuses native tools ({e})")
            except LLMRefused as e:  # e.g. max_tokens=1 refused: the real requests will tell
                self.tools_checked = True
                self.note(f"could not check whether the server renders tools ({e}); sending them natively")
                return
            self.tools_checked = True
            if not (with_tools and without):
                self.note("the server reports no prompt tokens: cannot check that it renders the tools")
            elif with_tools - without < len(json.dumps(tools)) / 20:  # JSON is ~4 characters a token
                self.use_text(
                    f"the server accepts tools but does not show them to the model ({with_tools} prompt tokens "
                    f"with the tools, {without} without; e.g. a chat template without tool support)"
                )

    async def aclose(self) -> None:
        await self.client.aclose()


@dataclass
class _ChatEpisode:
    agent: ChatAgent
    spec: EpisodeSpec
    turns: list[list[dict[str, Any]]] = field(default_factory=list)
    text_mode: bool = False
    tools: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.text_mode = self.agent.text_mode
        self.tools = self.agent.tools_for(self.spec)

    def _messages(self) -> list[dict[str, Any]]:
        task = self.spec.world.task(self.spec.task_id).task
        system = system_prompt(self.spec.world, self.text_mode, task=task, tools=self.tools)
        head = [{"role": "system", "content": system}, {"role": "user", "content": self.spec.instruction}]
        turns = self.turns if self.agent.history is None else self.turns[-self.agent.history :]
        return head + [m for t in turns for m in t]

    def _use_text(self) -> None:
        """Go on in text format: the system prompt lists the tools, and the turns so far are rewritten as
        ``<tool_call>`` / ``<tool_response>`` text (a server that fails on native tools fails on their history)."""
        self.text_mode = True
        self.turns = [_as_text(turn) for turn in self.turns]

    async def act(self) -> Turn:
        a = self.agent
        if not a.tools_checked and not self.turns:
            await a.check_tools(self._messages(), self.tools)
        if a.text_mode and not self.text_mode:  # the run switched to text (here or in another episode)
            self._use_text()
        requests = 0
        try:
            while True:
                requests += 1
                try:
                    comp = await a.client.complete(
                        self._messages(),
                        tools=None if self.text_mode else self.tools,
                        temperature=a.temperature,
                        max_tokens=a.max_tokens,
                        seed=self.spec.seed % 2**31,
                    )
                    break
                except ToolsUnsupported as e:
                    if a.tool_format != "auto" or self.text_mode:
                        raise
                    a.use_text(f"the server failed a request with native tools ({e})")
                    self._use_text()
            return self._turn(comp, requests)
        except LLMError as e:  # what this turn cost goes into the episode's record all the same
            e.requests = requests
            raise

    def _turn(self, comp: Completion, requests: int) -> Turn:
        a = self.agent
        msg = comp.message
        cut = comp.finish_reason == "length"
        content = msg.get("content")
        content = content if isinstance(content, str) else None
        native = [c for c in (msg.get("tool_calls") or []) if c is not None][: a.max_calls_per_turn]
        if cut:  # a call cut off mid-way has arguments that do not parse: only the complete ones run
            native = [c for c in native if _complete_call(c)]
        actions: list[Action] = []
        if native:
            calls = []
            for i, call in enumerate(native):
                call = dict(call) if isinstance(call, dict) else {"function": call}
                call_id = str(call.get("id") or f"call_{len(self.turns)}_{i}")
                parsed = parse_openai_message({"tool_calls": [call]})
                actions.append(Action(to_json_action(parsed), call, call_id))
                calls.append(_echo_call(call, call_id))
            # content "" rather than null: some chat templates (Qwen3's in llama-server) fail on a null one
            assistant: dict[str, Any] = {"role": "assistant", "content": content or "", "tool_calls": calls}
        else:
            text = content or ""
            blocks = _TOOL_CALL_BLOCK.findall(_THINK.sub("", text))[: a.max_calls_per_turn]
            if cut:  # the last block may be cut off mid-way; a cut reply is never the answer
                blocks = [b for b in blocks if b.rstrip().endswith("</tool_call>")]
                if not blocks:
                    error = ContextLengthExceeded("the reply was cut off at max_tokens", reason="max_tokens")
                    error.prompt_tokens, error.completion_tokens = comp.prompt_tokens, comp.completion_tokens
                    cut_calls = msg.get("tool_calls")  # tool calls cut mid-way, when the reply is nothing else
                    dropped = json.dumps(cut_calls, ensure_ascii=False) if cut_calls else ""
                    error.reply = content or comp.reasoning or dropped
                    raise error
            actions = [Action(to_json_action(parse_hermes(b)), b) for b in blocks]
            if not actions:  # no tool call: the text is the answer (the strict free-text fallback)
                parsed = parse_openai_message({"content": text})
                answer = parsed.value if isinstance(parsed, Answer) else text
                actions = [Action({"answer": answer}, text)]
            assistant = {"role": "assistant", "content": text}
        self.turns.append([assistant])
        return Turn(actions, requests, comp.prompt_tokens, comp.completion_tokens)

    def observe(self, action: Action, observation: str) -> None:
        turn = self.turns[-1]
        if action.call_id is not None:
            turn.append({"role": "tool", "tool_call_id": action.call_id, "content": observation})
            return
        block = f"<tool_response>\n{observation}\n</tool_response>"
        if turn[-1]["role"] == "user":
            turn[-1]["content"] += "\n" + block
        else:
            turn.append({"role": "user", "content": block})


def _print_note(note: str) -> None:
    print(f"note: {note}", file=sys.stderr, flush=True)


def _complete_call(call: Any) -> bool:
    """Whether a tool call of a reply cut at max_tokens is whole: a name, and arguments that parse."""
    fn = call.get("function") if isinstance(call, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        return False
    args = fn.get("arguments")
    if isinstance(args, dict):
        return True
    try:
        return isinstance(args, str) and isinstance(json.loads(args), dict)
    except json.JSONDecodeError:
        return False


def _as_text(turn: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A native turn (an assistant message with ``tool_calls``, then ``tool`` results) as the text format
    writes it: ``<tool_call>`` blocks in the assistant's content, the results as one user message of
    ``<tool_response>`` blocks. A turn in text format already is returned as it is."""
    out: list[dict[str, Any]] = []
    results: list[str] = []
    for m in turn:
        if m["role"] == "assistant" and m.get("tool_calls"):
            blocks = []
            for call in m["tool_calls"]:
                fn = call["function"]
                payload = {"name": fn["name"], "arguments": json.loads(fn["arguments"])}
                blocks.append(f"<tool_call>\n{json.dumps(payload, ensure_ascii=False)}\n</tool_call>")
            out.append({"role": "assistant", "content": "\n".join([m.get("content") or "", *blocks]).lstrip("\n")})
        elif m["role"] == "tool":
            results.append(f"<tool_response>\n{m['content']}\n</tool_response>")
        else:
            out.append(m)
    if results:
        out.append({"role": "user", "content": "\n".join(results)})
    return out


def _echo_call(call: dict[str, Any], call_id: str) -> dict[str, Any]:
    """The tool call as sent back in the history; unparseable arguments become ``{}`` (servers that
    re-render the chat template reject invalid JSON), the tool's answer tells the model what was wrong."""
    raw = call.get("function")
    fn: dict[str, Any] = raw if isinstance(raw, dict) else {}
    name = fn.get("name") if isinstance(fn.get("name"), str) else "invalid"
    args = fn.get("arguments")
    if isinstance(args, dict):
        args = json.dumps(args, ensure_ascii=False)
    try:
        ok = isinstance(args, str) and isinstance(json.loads(args), dict)
    except json.JSONDecodeError:
        ok = False
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args if ok else "{}"}}


BUILTIN = {"oracle": OracleAgent, "random": RandomAgent, "noop": NoopAgent}
