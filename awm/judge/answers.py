"""Typed final answers: expected values computed by SQL, and equality after normalisation.

An information task declares the type of its answer (``AnswerSchema``); the agent submits a value of
that type and it is judged by equality: one number within the task's tolerance, a string equal to
one of the accepted spellings, a date, a boolean, a list equal to the expected *set*, an object field
by field. Prose never counts: it belongs in the submission's ``explanation``, which is not graded.

Free text is the explicit, strict fallback for agents that cannot emit a typed value (a plain-text
final message, or a string where a number, date, boolean or list is expected). The text (or its last
``Answer: ...`` line) must *be* the value: exactly one number, exactly one date, a yes/no, a list
whose every item is an expected item. Hedges ("12 or 13"), negations ("not 12"), qualifiers
("about 12") and dumps of tool output fail.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import re
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import jsonschema

from awm.bundle.records import AnswerCheck, AnswerSchema, AnswerType
from awm.judge.answer_text import (
    QUALIFIERS,
    allowed_words,
    as_date,
    read_date,
    read_number,
    string_signs_problem,
    strip_label,
)
from awm.judge.answer_text import (
    words as _words,
)
from awm.judge.normal import text_key

MAX_ANSWER = 4_000  # characters of a text answer (an answer is not a dump of the database)
MAX_ITEMS = 500

_HONORIFICS = {"dr", "mr", "mrs", "ms", "miss", "mx", "prof", "sir"}
_LABEL = re.compile(r"^\s*(?:\*\*)?(?:final\s+answer|answer)(?:\*\*)?\s*[:=\-]\s*(.+?)\s*$", re.I | re.M)
_POLARITY = frozenset({"not", "no", "never", "isnt", "wasnt", "cant", "cannot", "dont", "doesnt"})
# words that hedge a yes/no ("yes, probably"); the polarity words only contradict a yes
_BOOL_HEDGES = QUALIFIERS - _POLARITY - {"no", "and", "but", "if", "unless", "than", "else", "other", "more", "less"}
_YES = frozenset({"yes", "true", "y"})
_NO = frozenset({"no", "false", "n"})


# -- normalisation ---------------------------------------------------------------------------------
def normalise(text: Any) -> str:
    """``awm.judge.normal.text_key`` (case, accents, spacing, punctuation) with honorifics dropped
    ("Dr. Ortiz" = "ortiz")."""
    words = text_key(text).split()
    while len(words) > 1 and words[0] in _HONORIFICS:
        words = words[1:]
    return " ".join(words)


def final_text(text: str) -> str:
    """The value part of a free-text answer: its last ``Answer: ...`` line, else the whole text."""
    labelled = _LABEL.findall(text)
    value = labelled[-1] if labelled else text
    return value.strip().strip("`*\"'").strip().rstrip(".!").strip()


# -- expected values -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Expected:
    """What a typed answer must equal: accepted spellings per item (scalar: one item), or fields."""

    schema: AnswerSchema
    items: tuple[tuple[Any, ...], ...] = ()
    fields: Mapping[str, Expected] | None = None
    tolerance: float = 0.0

    @property
    def item_type(self) -> AnswerType:
        return (self.schema.items or AnswerType.string) if self.schema.type == AnswerType.list else self.schema.type

    def canonical(self) -> Any:
        """The expected answer as a typed value (first spelling of each item)."""
        if self.schema.type == AnswerType.object:
            return {k: f.canonical() for k, f in (self.fields or {}).items()}
        values = [_canonical(i[0], self.item_type) for i in self.items]
        return values if self.schema.type == AnswerType.list else (values[0] if values else None)

    def spellings(self) -> list[Any]:
        """Every accepted spelling, flattened (for the audit's probes)."""
        if self.fields is not None:
            return [s for f in self.fields.values() for s in f.spellings()]
        return [s for item in self.items for s in item]


def _canonical(value: Any, t: AnswerType) -> Any:
    if t == AnswerType.number:
        f = float(value)
        return int(f) if f.is_integer() else f
    if t == AnswerType.date:
        d = _as_date(value)
        return d.isoformat() if d else str(value)
    if t == AnswerType.boolean:
        return _as_bool(value)
    return str(value)


class AnswerSqlError(Exception):
    """Answer SQL that fails or returns nothing usable on the initial state."""


def compute_expected(conn: sqlite3.Connection, schema: AnswerSchema, check: AnswerCheck) -> Expected:
    """Run the check's SQL (read-only) and shape the rows as the schema says."""
    if schema.type == AnswerType.object:
        if not schema.fields or not check.fields or set(schema.fields) != set(check.fields):
            raise AnswerSqlError("an object answer needs one check per field of the task's answer schema")
        return Expected(
            schema, fields={k: compute_expected(conn, f, check.fields[k]) for k, f in schema.fields.items()}
        )
    if not check.sql:
        raise AnswerSqlError(f"a {schema.type} answer needs sql")
    conn.execute("PRAGMA query_only = ON")
    try:
        rows = conn.execute(check.sql).fetchall()
    except sqlite3.Error as e:
        raise AnswerSqlError(f"answer SQL fails to run: {e}") from e
    finally:
        conn.execute("PRAGMA query_only = OFF")
    items = tuple(tuple(v for v in row if v is not None) for row in rows)
    items = tuple(i for i in items if i)
    if schema.type == AnswerType.list:  # a set: two rows naming the same item (two copies of a title) are one
        seen: set[tuple[str, ...]] = set()
        unique = []
        for item in items:
            key = tuple(normalise(_num_text(v)) for v in item)
            if key not in seen:
                seen.add(key)
                unique.append(item)
        items = tuple(unique)
    if not items:
        raise AnswerSqlError("answer SQL returns no value on the initial state")
    if schema.type != AnswerType.list:
        items = items[:1]
    exp = Expected(schema, items, None, check.tolerance)
    t = exp.item_type
    for item in items:
        for v in item:
            if t == AnswerType.number and _as_number(v) is None:
                raise AnswerSqlError(f"answer SQL returns {v!r}, not a number")
            if t == AnswerType.date and _as_date(v) is None:
                raise AnswerSqlError(f"answer SQL returns {v!r}, not a date")
            if t == AnswerType.boolean and _as_bool(v) is None:
                raise AnswerSqlError(f"answer SQL returns {v!r}, not a boolean")
    return exp


def distractor_values(conn: sqlite3.Connection, check: AnswerCheck) -> list[Any]:
    """Plausible wrong values declared by the verifier (the audit's hedging probes use them)."""
    if not check.distractors_sql:
        return []
    conn.execute("PRAGMA query_only = ON")
    try:
        return [r[0] for r in conn.execute(check.distractors_sql).fetchall() if r and r[0] is not None]
    except sqlite3.Error as e:
        raise AnswerSqlError(f"distractors_sql fails to run: {e}") from e
    finally:
        conn.execute("PRAGMA query_only = OFF")


def value_problem(schema: AnswerSchema, value: Any) -> str | None:
    """Why ``value`` is not a value of the answer type (None: it is); e.g. a sentence where a number is due."""
    try:
        jsonschema.validate(value, schema.json_schema(), format_checker=jsonschema.FormatChecker())
    except jsonschema.ValidationError as e:
        return e.message
    return None


# -- judging ---------------------------------------------------------------------------------------
def judge(answer: Any, exp: Expected, names: tuple[str, ...] = ()) -> tuple[bool, str]:
    """Whether ``answer`` (a typed value, or free text as the strict fallback) equals the expected answer.
    ``names``: labels the value may carry in text (an object field's name)."""
    if answer is None or (isinstance(answer, str) and not answer.strip()):
        return False, "no answer given"
    if isinstance(answer, str) and len(answer) > MAX_ANSWER:
        return False, f"answer longer than {MAX_ANSWER} characters; submit the value alone"
    t = exp.schema.type
    if t == AnswerType.object:
        return _judge_object(answer, exp)
    allowed = allowed_words(exp.schema.description, names)
    if t == AnswerType.list:
        return _judge_list(answer, exp, allowed)
    return _judge_scalar(answer, exp.items[0], t, exp.tolerance, allowed, names)


def _judge_object(answer: Any, exp: Expected) -> tuple[bool, str]:
    fields = exp.fields or {}
    if isinstance(answer, str):
        body = answer.strip()
        if not body.startswith("{"):
            body = final_text(answer)
        if body.startswith("{"):
            try:
                answer = json.loads(body)
            except json.JSONDecodeError:
                return False, f"the answer must be an object with fields {sorted(fields)}"
        else:
            return _judge_object_text(body, exp)
    if not isinstance(answer, dict):
        return False, f"the answer must be an object with fields {sorted(fields)}"
    extra = sorted(set(answer) - set(fields))
    if extra:
        return False, f"unknown answer fields {extra}; the fields are {sorted(fields)}"
    for name, sub in fields.items():
        if name not in answer:
            return False, f"answer field {name!r} is missing"
        ok, why = judge(answer[name], sub)
        if not ok:
            return False, f"answer field {name!r}: {why}"
    return True, ""


def _judge_object_text(text: str, exp: Expected) -> tuple[bool, str]:
    """An object given as text: one segment per field (``FedEx, tracking number 770403560786`` or
    ``carrier: FedEx; tracking number: 770403560786``), each the field's value with at most its label.
    Every field matched by exactly one segment, and no segment left over."""
    fields = list((exp.fields or {}).items())
    segments = [s.strip() for s in re.split(r"[;\n]+", text) if s.strip()]
    if len(segments) < len(fields):
        segments = [s.strip() for s in re.split(r"[;\n]+|,(?!\d)", text) if s.strip()]
    segments = [re.sub(r"^(?:and\s+|[-*\u2022]\s+)", "", s, flags=re.I).strip() for s in segments]
    if len(segments) != len(fields):
        return False, (
            f"the answer must be an object with fields {sorted(n for n, _ in fields)}: give it as JSON, or one "
            f"value per field separated by commas or lines (found {len(segments)} parts for {len(fields)} fields)"
        )
    fits = [
        {i for i, seg in enumerate(segments) if judge(seg, sub, (name.replace("_", " "),))[0]} for name, sub in fields
    ]

    def assign(k: int, used: frozenset[int]) -> bool:
        return k == len(fields) or any(assign(k + 1, used | {i}) for i in fits[k] - used)

    if assign(0, frozenset()):
        return True, ""
    wrong = [name for (name, _), f in zip(fields, fits, strict=True) if not f]
    return False, f"answer field {wrong[0]!r} is not given correctly" if wrong else "the answer's fields do not match"


def _judge_list(answer: Any, exp: Expected, allowed: frozenset[str]) -> tuple[bool, str]:
    t = exp.item_type
    if isinstance(answer, str):
        return _judge_list_text(answer, exp, allowed)
    if not isinstance(answer, (list, tuple)):
        return False, f"the answer must be a list of {t} values"
    if len(answer) > MAX_ITEMS:
        return False, f"the answer lists {len(answer)} items; list only the ones asked for"
    matched: set[int] = set()
    for element in answer:
        i = _which_item(element, exp, allowed)
        if i is None:
            return False, f"{_show(element)} is not one of the expected items"
        matched.add(i)
    if len(matched) < len(exp.items):
        return False, f"{len(exp.items) - len(matched)} of {len(exp.items)} expected items missing"
    return True, ""


def _judge_list_text(text: str, exp: Expected, allowed: frozenset[str]) -> tuple[bool, str]:
    body = final_text(text)
    if body.startswith("["):
        with contextlib.suppress(json.JSONDecodeError):
            parsed = json.loads(body)
            if isinstance(parsed, list):
                return _judge_list(parsed, exp, allowed)
    matched: set[int] = set()
    for line in (s.strip() for s in re.split(r"[;\n]+", body)):
        if not line:
            continue
        hits = _cut_items(line, exp, allowed)
        if hits is None:
            return False, f"{line[:80]!r} is not one of the expected items (list only the items, separated by commas)"
        matched.update(hits)
    if len(matched) < len(exp.items):
        return False, f"{len(exp.items) - len(matched)} of {len(exp.items)} expected items missing"
    return True, ""


MAX_PIECES = 60


def _cut_items(line: str, exp: Expected, allowed: frozenset[str]) -> list[int] | None:
    """The expected items one line lists, separated by commas, where an item may itself hold a comma
    (``Tooth extraction, per tooth``) or an ``and``: the first way to cut the line into items, or None."""

    def one(text: str) -> list[int] | None:
        text = re.sub(r"^(?:and\s+|&\s*|[-*\u2022]\s+|\d+[.)]\s+)", "", text.strip(), flags=re.I).strip()
        if not text:
            return []
        i = _which_item(text, exp, allowed)
        return [i] if i is not None else _split_and(text, exp, allowed)

    found = _cut(re.split(r"(\s*,\s*)", line), one, MAX_PIECES)
    return list(found) if found is not None else None


def _split_and(seg: str, exp: Expected, allowed: frozenset[str]) -> list[int] | None:
    """``a and b`` where ``and`` may also be inside an item (``Salt and Pepper Mill and Oak Lamp``): the
    first way to cut the text at its ``and``s into two or more expected items, or None."""

    def one(text: str) -> list[int] | None:
        i = _which_item(text.strip(), exp, allowed)
        return [i] if i is not None else None

    parts = re.split(r"(\s+(?:and|&)\s+)", seg, flags=re.I)
    if len(parts) == 1:
        return None
    found = _cut(parts, one, 9)
    return list(found) if found is not None and len(found) > 1 else None


def _cut(parts: list[str], one: Callable[[str], list[int] | None], max_pieces: int) -> tuple[int, ...] | None:
    """``parts`` (text split with its separators kept, ``re.split`` with a group) cut into consecutive runs
    of pieces, rejoined with their separators, each of which ``one`` reads as items: the first way, or None."""
    pieces, joins = parts[0::2], parts[1::2]
    if len(pieces) > max_pieces:
        return None

    @functools.cache
    def cut(start: int) -> tuple[int, ...] | None:
        for end in range(start + 1, len(pieces) + 1):
            text = "".join(p + (joins[k] if k < end - 1 else "") for k, p in enumerate(pieces[start:end], start))
            hits = one(text)
            if hits is None:
                continue
            if end == len(pieces):
                return tuple(hits)
            rest = cut(end)
            if rest is not None:
                return (*hits, *rest)
        return None

    return cut(0)


def _which_item(element: Any, exp: Expected, allowed: frozenset[str]) -> int | None:
    for i, item in enumerate(exp.items):
        if _judge_scalar(element, item, exp.item_type, exp.tolerance, allowed)[0]:
            return i
    return None


def _judge_scalar(
    answer: Any,
    spellings: tuple[Any, ...],
    t: AnswerType,
    tolerance: float,
    allowed: frozenset[str] = frozenset(),
    names: tuple[str, ...] = (),
) -> tuple[bool, str]:
    if isinstance(answer, (list, dict)):
        return False, f"the answer must be one {t} value, not a {type(answer).__name__}"
    if t == AnswerType.number:
        got, why = as_number_answer(answer, allowed)
        if got is None:
            return False, why
        want = float(spellings[0])
        ok = abs(got - want) <= tolerance + 1e-9 * max(1.0, abs(want))
        return ok, "" if ok else "the number is not the expected value"
    if t == AnswerType.date:
        d, why = as_date_answer(answer, allowed)
        if d is None:
            return False, why
        ok = any(_as_date(s) == d for s in spellings)
        return ok, "" if ok else "the date is not the expected date"
    if t == AnswerType.boolean:
        b, why = as_bool_answer(answer)
        if b is None and isinstance(answer, str):
            for bare in _unlabelled(final_text(answer), allowed, names)[1:]:
                b, _ = as_bool_answer(bare)
                if b is not None:
                    break
        if b is None:
            return False, why
        ok = b == _as_bool(spellings[0])
        return ok, "" if ok else "the answer is the opposite of the expected one"
    return _judge_string(answer, spellings, allowed, names)


def _judge_string(
    answer: Any, spellings: tuple[Any, ...], allowed: frozenset[str], names: tuple[str, ...]
) -> tuple[bool, str]:
    """Equal to an accepted spelling after normalisation, with no sign that qualifies it (``!=``, ``~``);
    a label (``The practitioner is ...``, ``carrier: ...``, or the field's own name) may go before it."""
    if isinstance(answer, bool) or not isinstance(answer, (str, int, float)):
        return False, "the answer must be a string"
    if not isinstance(answer, str):
        answer = _num_text(answer)
    text = final_text(answer)
    if "?" in text and not any("?" in str(s) for s in spellings):
        return False, "the answer is a question, not a value; submit the value alone"
    if sign := string_signs_problem(text, spellings):
        return False, f"the answer carries {sign!r}; submit the value alone"
    wanted = {normalise(_num_text(s)) for s in spellings}
    ok = any(normalise(c) in wanted and normalise(c) for c in _unlabelled(text, allowed, names))
    return ok, "" if ok else "the answer is not the expected value"


def _unlabelled(text: str, allowed: frozenset[str], names: tuple[str, ...]) -> list[str]:
    """The text, then the text without a label: ``The practitioner is X`` / ``Carrier: X`` (every word of
    the label allowed) or the field's own name before the value (``tracking number 7704...``)."""
    out = [text]
    if (bare := strip_label(text, allowed)) is not None:
        out.append(bare)
    got = normalise(text)
    for name in names:
        label = normalise(name)
        if label and got.startswith(label + " "):
            out.append(got[len(label) + 1 :])
    return out


def _num_text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


# -- typed coercions (the strict fallback for text) ------------------------------------------------
def as_number_answer(answer: Any, allowed: frozenset[str] | None = None) -> tuple[float | None, str]:
    if isinstance(answer, bool):
        return None, "the answer must be a number, not a boolean"
    if isinstance(answer, (int, float)):
        f = float(answer)
        return (f, "") if math.isfinite(f) else (None, "the answer must be a finite number")
    if not isinstance(answer, str):
        return None, "the answer must be a number"
    return read_number(final_text(answer), allowed if allowed is not None else allowed_words(None))


def as_date_answer(answer: Any, allowed: frozenset[str] | None = None) -> tuple[date | None, str]:
    if isinstance(answer, (date, datetime)):
        return (answer.date() if isinstance(answer, datetime) else answer), ""
    if not isinstance(answer, str):
        return None, "the answer must be a date (YYYY-MM-DD)"
    return read_date(final_text(answer), allowed if allowed is not None else allowed_words(None))


def as_bool_answer(answer: Any) -> tuple[bool | None, str]:
    if isinstance(answer, bool):
        return answer, ""
    if not isinstance(answer, str):
        return None, "the answer must be true or false"
    words = _words(final_text(answer))
    if not words or (words[0] not in _YES and words[0] not in _NO):
        return None, "a yes/no answer must start with yes or no (or be true/false)"
    value = words[0] in _YES
    opposite = _NO if value else _YES
    rest = set(words[1:])
    if rest & opposite or (value and rest & _POLARITY) or (rest & _BOOL_HEDGES) or re.search(r"[~\u2248?]", answer):
        return None, "the yes/no answer is hedged or contradicts itself; submit true or false"
    return value, ""


def _as_number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    try:
        return float(str(v).replace(",", "").strip())
    except ValueError:
        return None


def _as_date(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return as_date(value)


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    words = _words(str(value))
    if len(words) == 1 and words[0] in _YES | {"1"}:
        return True
    if len(words) == 1 and words[0] in _NO | {"0"}:
        return False
    return None


def _show(v: Any) -> str:
    s = json.dumps(v, default=str) if not isinstance(v, str) else repr(v)
    return s[:80]
