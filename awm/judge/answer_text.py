"""Reading a value out of free text, strictly: the value plus an allow-list around it, nothing else.

Free text is the fallback for agents that cannot emit a typed value. A deny-list of hedge words cannot
hold ("anything but 453.06", "453.06-ish", "circa 453.06", "≥ 453.06" all slip past one), so the rule is
the other way round: the text must be exactly one value of the answer's type, and every other word and
sign in it must be on an allow-list:

- a label: ``Answer:``, ``the total is``, ``= `` is not one (``!=`` is its negation);
- units and currency: ``$``, ``USD``, ``%``, ``days``, ``nights``, ... and the words of the answer's own
  description (``12 working days`` where the description is "the number of working days"), less every
  qualifier (``not``, ``about``, ``at least``, ``ish``, ...), which never counts even if the description
  uses it;
- for dates, a weekday and a time of day (``Friday, March 20, 2026 at 09:00``).

Numbers may be written as digits (``1,234.50``, ``$12``), as words up to ninety-nine (``seven``,
``twenty-one``) or as ``zero``/``none``; dates as ISO (``2026-03-20``), ``March 20, 2026``,
``20 March 2026`` or US ``03/20/2026`` (month first: the catalog's worlds are en_US).
"""

from __future__ import annotations

import contextlib
import functools
import re
import unicodedata
from collections.abc import Iterable
from datetime import date


def _bag(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MONTHS = {
    m: i
    for i, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)
}
_WEEKDAYS = _bag("monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun")
ISO = re.compile(r"(?<![\d-])(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_MDY = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_DMY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([A-Za-z]{3,9})\.?,?\s+(\d{4})\b")
_US = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])")
_TIME = re.compile(r"(?:\bT|\b(?:at\s+)?)(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([ap]\.?m\.?))?(?![\d:])", re.I)
NUMBER = re.compile(r"(?<![\w.])-?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?!\d)")
_DIGITISH = re.compile(r"(?<![\w.])-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)")

_UNITS = {
    "zero": 0, "none": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_NUMBER_WORD = re.compile(
    r"\b(?:(" + "|".join(_TENS) + r")(?:[-\s](" + "|".join(k for k in _UNITS if _UNITS[k] and _UNITS[k] < 10) + r"))?"
    r"|(" + "|".join(_UNITS) + r"))\b",
    re.I,
)

# words a label or a unit may use around any value
_LABEL_WORDS = _bag(
    "answer final result value values total is are was it its the a an of in for this that equals equal "
    "amount count number sum balance figure grand come comes to so there"
)
_UNIT_WORDS = _bag(
    "usd us dollar dollars eur euro euros gbp pound pounds percent pct day days night nights h hour hours "
    "hr hrs minute minutes min mins second seconds week weeks month months year years item items unit "
    "units piece pieces seat seats ticket tickets room rooms spot spots place places copy copies person "
    "people persons member members point points star stars kg km mi miles lb lbs kilometers kilometres "
    "times time"
)
# never part of an accepted answer, even where the answer's description uses the word
QUALIFIERS = _bag(
    "not no never nor or either neither but except excluding exclude anything everything something else "
    "other wrong incorrect false untrue maybe perhaps possibly probably likely unlikely approximately "
    "approx about around roughly nearly almost circa ca ish unsure unknown unclear guess estimate "
    "estimated less more fewer greater than under over above below least most max maximum min minimum up "
    "upto between range somewhere cannot cant couldnt dont doesnt isnt wasnt arent werent wont plus minus "
    "and if unless"
)
_SAFE_SIGNS = frozenset("$€£%:,.()*`\"'")
_STRING_SIGNS = frozenset(".,'’\"`*-()&/#:@_")


def words(text: str) -> list[str]:
    return re.sub(r"[^a-z0-9]+", " ", unicodedata.normalize("NFKD", text).lower().replace("'", "")).split()


@functools.lru_cache(maxsize=4096)
def allowed_words(description: str | None, extra: tuple[str, ...] = ()) -> frozenset[str]:
    """Words that may stand around a value: labels, units, and the answer description's own words
    (singular and plural), less every qualifier."""
    own = set(words(description or "")) | {w for e in extra for w in words(e)}
    own |= {w[:-1] for w in own if w.endswith("s")} | {w + "s" for w in own}
    return frozenset((_LABEL_WORDS | _UNIT_WORDS | own) - QUALIFIERS)


def _residue_problem(rest: str, allowed: frozenset[str], signs: frozenset[str] = _SAFE_SIGNS) -> str | None:
    """Why the text around a value is not just labels and units (None: it is)."""
    for w in words(rest):
        if w not in allowed:
            return w
    for ch in rest:
        if not (ch.isalnum() or ch.isspace() or ch in signs):
            return ch
    return None


# -- numbers ---------------------------------------------------------------------------------------
def number_words(text: str) -> list[tuple[float, tuple[int, int]]]:
    out = []
    for m in _NUMBER_WORD.finditer(text):
        if m.group(3):
            v = _UNITS[m.group(3).lower()]
        else:
            v = _TENS[m.group(1).lower()] + (_UNITS[m.group(2).lower()] if m.group(2) else 0)
        out.append((float(v), m.span()))
    return out


def read_number(text: str, allowed: frozenset[str]) -> tuple[float | None, str]:
    """Exactly one number (digits or words) and only labels and units around it."""
    digits = [(float(m.group(0).replace(",", "")), m.span()) for m in NUMBER.finditer(text)]
    loose = list(_DIGITISH.finditer(text))
    if len(loose) != len(digits):
        return None, "the answer has a number written in a way that is not one plain number; submit the number alone"
    found = digits + number_words(text)
    if len(found) != 1:
        return None, (
            f"a number answer must state exactly one number, found {len(found)}; submit the number alone "
            "(put any working in the explanation)"
        )
    value, (a, b) = found[0]
    if bad := _residue_problem(text[:a] + " " + text[b:], allowed):
        return None, f"the answer is qualified ({bad!r}); submit the number alone"
    return value, ""


# -- dates -----------------------------------------------------------------------------------------
def dates_in(text: str) -> set[date]:
    return {d for d, _ in _date_spans(text)}


def _date_spans(text: str) -> list[tuple[date, tuple[int, int]]]:
    found: list[tuple[date, tuple[int, int]]] = []
    for m in ISO.finditer(text):
        _add(found, int(m.group(1)), int(m.group(2)), int(m.group(3)), m.span())
    for m in _US.finditer(text):
        _add(found, int(m.group(3)), int(m.group(1)), int(m.group(2)), m.span())
    for m in _MDY.finditer(text):
        if m.group(1)[:3].lower() in _MONTHS:
            _add(found, int(m.group(3)), _MONTHS[m.group(1)[:3].lower()], int(m.group(2)), m.span())
    for m in _DMY.finditer(text):
        if m.group(2)[:3].lower() in _MONTHS:
            _add(found, int(m.group(3)), _MONTHS[m.group(2)[:3].lower()], int(m.group(1)), m.span())
    return found


def _add(found: list[tuple[date, tuple[int, int]]], y: int, m: int, d: int, span: tuple[int, int]) -> None:
    with contextlib.suppress(ValueError):
        found.append((date(y, m, d), span))


def read_date(text: str, allowed: frozenset[str]) -> tuple[date | None, str]:
    """Exactly one date (a time of day and a weekday may go with it) and only labels around it."""
    spans = _date_spans(text)
    found = {d for d, _ in spans}
    if len(found) != 1:
        return None, f"a date answer must state exactly one date, found {len(found)}; submit it as YYYY-MM-DD"
    rest, last = [], 0
    for _, (a, b) in sorted(spans, key=lambda s: s[1]):
        if a < last:
            return None, "a date answer must state exactly one date; submit it as YYYY-MM-DD"
        rest.append(text[last:a])
        last = b
    rest.append(text[last:])
    residue = _TIME.sub(" ", " ".join(rest), count=1)
    residue = re.sub(r"\b(?:on|at|dated|date)\b", " ", residue, flags=re.I)
    if any(ch.isdigit() for ch in residue):
        return None, "the answer has numbers besides the date; submit the date alone as YYYY-MM-DD"
    if bad := _residue_problem(residue, allowed | _WEEKDAYS):
        return None, f"the answer is qualified ({bad!r}); submit the date alone"
    return next(iter(found)), ""


def as_date(value: object) -> date | None:
    ds = dates_in(str(value))
    return next(iter(ds)) if len(ds) == 1 else None


# -- strings ---------------------------------------------------------------------------------------
def string_signs_problem(text: str, spellings: Iterable[object]) -> str | None:
    """A sign in a text answer that no accepted spelling has and that is not punctuation (``!=``, ``≠``,
    ``<``, ``~``): the words may equal the value while the signs negate or qualify it."""
    theirs = {ch for s in spellings for ch in str(s)}
    for ch in text:
        if ch.isalnum() or ch.isspace() or ch in _STRING_SIGNS or ch in theirs:
            continue
        return ch
    return None


def strip_label(text: str, allowed: frozenset[str]) -> str | None:
    """``The practitioner is Grace Whitfield`` / ``Practitioner: Grace Whitfield`` -> ``Grace Whitfield``
    when every word of the label is allowed; None when the text has no such label."""
    m = re.match(r"^\s*(.{1,80}?)(?:\s+(?:is|are|was|were)\s+|\s*:\s+)(.+)$", text, re.S)
    if not m:
        return None
    label = words(m.group(1))
    if not label or any(w not in allowed for w in label):
        return None
    return m.group(2).strip()
