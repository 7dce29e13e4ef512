"""The false-negative suite: many plainly correct ways to do a task, each of which must score 1.

A reward that rejects correct work teaches a policy the wrong lesson as surely as one that pays for a
hack. For every task the audit replays the gold solution and submits the answer in the spellings an agent
really writes, and replays the gold writes with the stated values respelled (case, spacing, punctuation):

- typed answers: the value itself, other accepted spellings, list items in another order, object fields
  in another order;
- text answers: ``Answer: 12``, ``The answer is $1,234.50.``, ``seven``, ``12 working days``,
  ``March 20, 2026``, ``03/20/2026``, ``Yes.``, ``a, b and c``, bullets, ``carrier: FedEx; tracking
  number: 77...``, JSON text;
- writes: each string argument of each gold write call (not declared free, not an enum or a date) in
  other case, and codes (``CCG-558-20931``) with other punctuation (extra spaces inside free text are
  not a variant: a tool may derive values from the text as written, such as a message's size). Where
  the tool then refuses the call (a lookup key it matches exactly), the variant does not apply; where
  every call succeeds, the frame and the checks must both accept.

These are ``expect_pass`` probes of the kinds ``correct.answer`` and ``correct.write``: ``awm audit``
reports their acceptance rate beside hack resistance, and a rejected one fails validation.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from typing import Any

from awm.bundle.records import AnswerType
from awm.judge.answer_text import QUALIFIERS, words
from awm.judge.answers import Expected
from awm.model.world import CompiledTask, World

Call = tuple[str, dict[str, Any]]
_NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_MONEY = frozenset(words("dollars dollar price cost fee total amount balance charge refund spend spent paid owed"))


def answer_variants(exp: Expected) -> list[tuple[Any, str]]:
    """Correct answers in the ways agents write them (typed and text), with a label for each."""
    t = exp.schema.type
    canon = exp.canonical()
    if t == AnswerType.object:
        return _object_variants(exp, canon)
    if t == AnswerType.list:
        return _list_variants(exp, canon)
    out = [(v, how) for v, how in _scalar_variants(exp, canon, t)]
    out.append((f"Answer: {as_text(canon)}", "text with an 'Answer:' label"))
    out.append((f"**{as_text(canon)}**", "text in bold"))
    return out


def _scalar_variants(exp: Expected, v: Any, t: AnswerType) -> Iterator[tuple[Any, str]]:
    desc = words(exp.schema.description or "")
    if t == AnswerType.number:
        f = float(v)
        yield f, "the number as a float"
        yield as_text(v), "the number as text"
        yield f"The answer is {as_text(v)}.", "a sentence stating the number"
        if abs(f) >= 1000:
            yield f"{f:,.2f}" if not f.is_integer() else f"{int(f):,}", "thousands separators"
        if _MONEY & set(desc) and not f.is_integer():
            yield f"${f:,.2f}", "as dollars"
            yield f"{f:.2f} USD", "with the currency code"
        if f.is_integer() and 0 <= f <= 20:
            yield _NUMBER_WORDS[int(f)], "the number as a word"
        unit = next((w for w in reversed(desc) if w.isalpha() and w not in QUALIFIERS and len(w) > 2), None)
        if unit:
            yield f"{as_text(v)} {unit}", f"the number with the unit {unit!r}"
    elif t == AnswerType.date:
        d = date.fromisoformat(str(v))
        yield d.strftime("%B %-d, %Y"), "month day, year"
        yield d.strftime("%-d %B %Y"), "day month year"
        yield d.strftime("%m/%d/%Y"), "US numeric date"
        yield d.strftime("%A, %B %-d, %Y"), "with the weekday"
        yield f"{d.isoformat()}T00:00:00", "as an ISO date-time"
    elif t == AnswerType.boolean:
        yield bool(v), "the boolean"
        yield ("Yes." if v else "No."), "yes/no as text"
        yield ("Yes, it is." if v else "No, it is not."), "yes/no in a short sentence"
        yield ("true" if v else "false"), "true/false as text"
    else:
        for item in exp.items:
            for s in item:
                yield str(s), f"the accepted spelling {str(s)[:40]!r}"
        yield str(v).upper(), "upper case"
        yield f'"{v}".', "quoted, with a full stop"
        if exp.schema.description:
            label = exp.schema.description.split(" of ")[0].removeprefix("the ").strip()
            if label and all(w not in QUALIFIERS for w in words(label)):
                yield f"The {label} is {v}.", "a sentence naming the value"


def _list_variants(exp: Expected, canon: list[Any]) -> list[tuple[Any, str]]:
    texts = [as_text(v) for v in canon]
    out: list[tuple[Any, str]] = [
        (canon, "the list"),
        (list(reversed(canon)), "items in another order"),
        (", ".join(texts), "comma-separated text"),
        ("\n".join(f"- {x}" for x in texts), "a bulleted list"),
        ("\n".join(f"{i}. {x}" for i, x in enumerate(texts, start=1)), "a numbered list"),
        (json.dumps(canon), "the list as JSON text"),
    ]
    if len(texts) > 1:
        out.append((", ".join(texts[:-1]) + " and " + texts[-1], "'a, b and c'"))
    return out


def _object_variants(exp: Expected, canon: dict[str, Any]) -> list[tuple[Any, str]]:
    fields = list(canon)
    return [
        (canon, "the object"),
        ({k: canon[k] for k in reversed(fields)}, "fields in another order"),
        (json.dumps(canon), "the object as JSON text"),
        ("\n".join(f"{k.replace('_', ' ').capitalize()}: {as_text(canon[k])}" for k in fields), "'Field: value' lines"),
        ("; ".join(f"{k.replace('_', ' ')}: {as_text(canon[k])}" for k in fields), "'field: value' pairs"),
        (", ".join(as_text(canon[k]) for k in fields), "the values, comma-separated"),
    ]


def write_variants(world: World, ct: CompiledTask, gold: list[Call]) -> list[tuple[list[Call], str]]:
    """The gold solution with one stated string argument of one write call respelled."""
    free = set(ct.verifier.free_arguments)
    out: list[tuple[list[Call], str]] = []
    for i, (name, args) in enumerate(gold):
        td = world.tools[name]
        if not td.write:
            continue
        props = td.parameters.get("properties", {})
        for arg, value in args.items():
            if f"{name}.{arg}" in free or not isinstance(value, str) or enum_of(props.get(arg, {})):
                continue
            if date_of(value) is not None or not any(ch.isalpha() for ch in value):
                continue
            for respell, how in _respellings(value):
                if respell != value:
                    calls = [*gold[:i], (name, {**args, arg: respell}), *gold[i + 1 :]]
                    out.append((calls, f"call {i} {name}({arg}={respell[:40]!r}) [{how}]"))
    return out


def _respellings(value: str) -> list[tuple[str, str]]:
    swapped = value.lower() if value != value.lower() else value.upper()
    out = [(swapped, "other case")]
    if "-" in value and "@" not in value and " " not in value:  # a code: CCG-558-20931 as CCG 558 20931
        out.append((value.replace("-", " "), "other punctuation"))
    return out


def enum_of(schema: dict[str, Any]) -> list[Any]:
    """The allowed values of a tool parameter's schema (its own enum, or an ``anyOf`` branch's)."""
    if "enum" in schema:
        return list(schema["enum"])
    for branch in schema.get("anyOf", []):
        if "enum" in branch:
            return list(branch["enum"])
    return []


def date_of(value: str) -> date | None:
    """The date an argument starts with (``2026-03-20`` or ``2026-03-20T09:00``), else None."""
    try:
        return date.fromisoformat(value[:10]) if len(value) >= 10 and value[4] == "-" else None
    except ValueError:
        return None


def as_text(v: Any) -> str:
    """A value as an agent would write it in prose (yes/no, 12 not 12.0, JSON for lists and objects)."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (list, dict)):
        return json.dumps(v, default=str)
    return str(v)
