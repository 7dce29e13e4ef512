"""``awm gen scenarios``: stage 1 alone. New, de-duplicated scenario ideas from seed examples.

Each round sends a few requests in parallel; each shows a different sample of seed examples
(drawn with a seeded RNG, so reruns hit the cache) and the names already taken. Candidates are
de-duplicated against the seeds, the existing output and each other: lexically by default, or with
embeddings from the same endpoint. The input file is never modified.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm.gen.dedup import EMBEDDING_THRESHOLD, LEXICAL_THRESHOLD, EmbeddingIndex, LexicalIndex, normalise_name
from awm.gen.jsonparse import OutputError, parse_output
from awm.gen.llm import ChatModel
from awm.gen.prompts import load_prompt
from awm.gen.records import IdeasOut, ScenarioIdea

STAGE = "scenario_ideas"


def read_ideas(path: str | Path) -> list[ScenarioIdea]:
    """JSONL of ``{"name", "description"}`` (a line with only a description, or plain text, also works)."""
    out = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError:
            data = line
        if isinstance(data, str):
            data = {"description": data}
        if not isinstance(data, dict) or not data.get("description"):
            raise ValueError(f"{path} line {i}: expected {{'name', 'description'}} or plain text")
        name = data.get("name") or " ".join(str(data["description"]).split()[:4])
        out.append(ScenarioIdea(name=str(name), description=str(data["description"])))
    return out


def ideas_from_text(text: str) -> list[ScenarioIdea]:
    """``--scenarios "a veterinary clinic; a bike-sharing service"``."""
    parts = [p.strip() for p in text.replace("\n", ";").split(";") if p.strip()]
    return [
        ScenarioIdea(name=_name_of(p), description=p if len(p) >= 10 else f"{p} (an everyday business)") for p in parts
    ]


def _name_of(text: str) -> str:
    """The idea's head phrase: up to the first clause boundary, never cut inside a phrase."""
    head = re.split(r"[:;,.(\u2014\u2013]| - | with | where | that | which | for | who ", text, maxsplit=1)[0]
    words = [w for w in head.split() if w.lower() not in ("a", "an", "the")]
    if len(words) > 8 or not words:  # no boundary early on: the whole idea, shortened at a word
        words = [w for w in text.split() if w.lower() not in ("a", "an", "the")]
        out = ""
        for w in words:
            if len(out) + len(w) + 1 > 80:
                break
            out = f"{out} {w}".strip()
        return out or text[:80]
    return " ".join(words)[:80]


@dataclass
class IdeasResult:
    accepted: list[ScenarioIdea] = field(default_factory=list)
    duplicates: list[tuple[str, str, float]] = field(default_factory=list)  # (candidate, nearest, score)
    malformed: int = 0
    rounds: int = 0


async def generate_ideas(
    llm: ChatModel,
    *,
    seeds: Sequence[ScenarioIdea],
    existing: Sequence[ScenarioIdea] = (),
    count: int,
    per_request: int = 10,
    parallel: int = 3,
    examples: int = 8,
    threshold: float = LEXICAL_THRESHOLD,
    embed_model: str | None = None,
    embed_threshold: float = EMBEDDING_THRESHOLD,
    focus: str | None = None,
    seed: int = 0,
    max_rounds: int | None = None,
    prompts_dir: Path | None = None,
    on_accept: Callable[[ScenarioIdea], None] | None = None,
) -> IdeasResult:
    prompt = load_prompt(STAGE, prompts_dir)
    result = IdeasResult()
    lexical = LexicalIndex(threshold)
    pool = [*seeds, *existing]
    for idea in pool:
        lexical.add(idea.name, idea.description)
    embedded: EmbeddingIndex | None = None
    if embed_model:
        embed = getattr(llm, "embed", None)
        if embed is None:
            raise TypeError("embeddings need a client with an embed() method (LLMClient)")
        embedded = EmbeddingIndex(llm, embed_model, embed_threshold)  # type: ignore[arg-type]
        for idea, vec in zip(pool, await embedded.embed([_text(i) for i in pool]) if pool else [], strict=True):
            embedded.add_vector(idea.name, vec)
    rounds = max_rounds or (count // max(1, per_request * parallel) + 1) * 3 + 2
    stalled = 0
    while len(result.accepted) < count and result.rounds < rounds and stalled < 3:
        requests = []
        for r in range(parallel):
            rng = random.Random(_stable(seed, result.rounds, r))
            shown = rng.sample(list(seeds), min(examples, len(seeds)))
            taken = [i.name for i in result.accepted[-40:]] + [i.name for i in rng.sample(pool, min(20, len(pool)))]
            values = {
                "examples": "\n".join(f"- {i.name}: {i.description}" for i in shown),
                "avoid": ", ".join(dict.fromkeys(taken)) or "(none)",
                "focus": f"\nFocus on: {focus}\n" if focus else "",
                "n": str(per_request),
            }
            requests.append(llm.chat(prompt.messages(**values), stage=STAGE))
        replies = await asyncio.gather(*requests)
        result.rounds += 1
        candidates: list[ScenarioIdea] = []
        for reply in replies:
            try:
                candidates += parse_output(reply.content, IdeasOut).scenarios
            except OutputError:
                result.malformed += 1
        vectors = await embedded.embed([_text(c) for c in candidates]) if embedded and candidates else []
        before = len(result.accepted)
        for i, idea in enumerate(candidates):
            if len(result.accepted) >= count:
                break
            dup, other, score = lexical.is_duplicate(idea.name, idea.description)
            if not dup and embedded is not None:
                other, score = embedded.nearest(vectors[i])
                dup = score >= embedded.threshold
            if dup:
                result.duplicates.append((idea.name, str(other), round(score, 3)))
                continue
            lexical.add(idea.name, idea.description)
            if embedded is not None:
                embedded.add_vector(idea.name, vectors[i])
            result.accepted.append(idea)
            if on_accept:
                on_accept(idea)
        stalled = stalled + 1 if len(result.accepted) == before else 0
    return result


def _text(idea: ScenarioIdea) -> str:
    return f"{idea.name}: {idea.description[:500]}"


def _stable(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:8], "big")


__all__ = ["IdeasResult", "generate_ideas", "ideas_from_text", "normalise_name", "read_ideas"]
