"""Scenario de-duplication: lexical similarity by default, embeddings through the same endpoint optionally.

Lexical: TF-IDF cosine over content words and word bigrams of ``name + description`` (stop words and
generic app words removed, crude stemming), plus a name check: the same normalised name is always a
duplicate. No embedding service is needed. ``EmbeddingIndex`` uses ``/embeddings`` of the
OpenAI-compatible endpoint with AWM's cosine threshold (0.85).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Protocol

LEXICAL_THRESHOLD = 0.3  # seed scenarios are pairwise <= 0.25; close paraphrases score 0.3-0.45
EMBEDDING_THRESHOLD = 0.85

_STOP_WORDS = (  # stop words, and words every app description uses
    "a an the and or of for to in on at by with from into as is are be can its their they them this that "
    "these those it which who whom where when how what each per via not no more most other some any all "
    "every both up out off over under about after before while also such than then there here so do does "
    "did has have had app application platform service services system tool tools online web website "
    "digital small local user users customer customers client clients staff people person manage managing "
    "management manages track tracking tracks keep keeps record records list lists view views book "
    "booking books allow allows let lets simple everyday based using use used new own one two who's "
)
_STOP = frozenset(_STOP_WORDS.split())
_WORD = re.compile(r"[a-z0-9]+")


def normalise_name(name: str) -> str:
    """``"Vet Clinic!"`` -> ``"vet_clinic"`` (the env id shape)."""
    out = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    if not out or not out[0].isalpha():
        out = "env_" + out
    return out[:48].rstrip("_")


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s", "ing", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def terms(text: str) -> list[str]:
    words = [_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1]
    return words + [f"{a}_{b}" for a, b in pairwise(words)]


@dataclass
class LexicalIndex:
    """Documents added so far; ``nearest`` scores a text against all of them (TF-IDF cosine)."""

    threshold: float = LEXICAL_THRESHOLD
    names: list[str] = field(default_factory=list)
    _docs: list[Counter[str]] = field(default_factory=list)
    _df: Counter[str] = field(default_factory=Counter)
    _name_set: set[str] = field(default_factory=set)

    def add(self, name: str, text: str) -> None:
        doc = Counter(terms(f"{name.replace('_', ' ')} {text}"))
        self.names.append(name)
        self._docs.append(doc)
        self._df.update(doc.keys())
        self._name_set.add(normalise_name(name))

    def _idf(self, term: str) -> float:
        return math.log((1 + len(self._docs)) / (1 + self._df.get(term, 0))) + 1.0

    def _vector(self, doc: Counter[str]) -> dict[str, float]:
        vec = {t: (1 + math.log(c)) * self._idf(t) for t, c in doc.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {t: v / norm for t, v in vec.items()}

    def nearest(self, name: str, text: str) -> tuple[str | None, float]:
        """The most similar document already in the index, and the similarity (1.0 for a same name)."""
        if normalise_name(name) in self._name_set:
            return normalise_name(name), 1.0
        query = self._vector(Counter(terms(f"{name.replace('_', ' ')} {text}")))
        best: tuple[str | None, float] = (None, 0.0)
        for other, doc in zip(self.names, self._docs, strict=True):
            vec = self._vector(doc)
            score = sum(w * vec.get(t, 0.0) for t, w in query.items())
            if score > best[1]:
                best = (other, score)
        return best

    def is_duplicate(self, name: str, text: str) -> tuple[bool, str | None, float]:
        other, score = self.nearest(name, text)
        return score >= self.threshold, other, score

    def __len__(self) -> int:
        return len(self.names)


class Embedder(Protocol):
    async def embed(self, texts: Sequence[str], *, model: str, stage: str = "embeddings") -> list[list[float]]: ...


@dataclass
class EmbeddingIndex:
    """Cosine similarity of embeddings from the endpoint's ``/embeddings`` (optional)."""

    client: Embedder
    model: str
    threshold: float = EMBEDDING_THRESHOLD
    names: list[str] = field(default_factory=list)
    vectors: list[list[float]] = field(default_factory=list)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [_unit(v) for v in await self.client.embed(list(texts), model=self.model)]

    def add_vector(self, name: str, vector: list[float]) -> None:
        self.names.append(name)
        self.vectors.append(vector)

    def nearest(self, vector: list[float]) -> tuple[str | None, float]:
        best: tuple[str | None, float] = (None, 0.0)
        for name, other in zip(self.names, self.vectors, strict=True):
            score = sum(a * b for a, b in zip(vector, other, strict=False))
            if score > best[1]:
                best = (name, score)
        return best


def _unit(v: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]
