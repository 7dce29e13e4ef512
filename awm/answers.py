"""Normalised matching of a free-text answer against expected values computed by SQL."""

from __future__ import annotations

import contextlib
import re
import unicodedata
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from awm.bundle import AnswerMatch

MAX_ANSWER = 4_000  # longer answers fail: an answer is not a dump of the database
MAX_NUMBERS = 4  # more distinct numbers than this in a number answer is a shotgun answer

# a number that is not part of a word or code: "KUB-11", "A4", "v2.1" hold no numbers; "-5", "$1,234.50" do
_NUMBER = re.compile(r"(?:(?<![\w.])[-+](?=[\d.])|(?<![\w.+-]))(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?![\w])")
_MONTHS = {
    m: i
    for i, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)
}
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})")
_MDY = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_DMY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([A-Za-z]{3,9})\.?,?\s+(\d{4})\b")
_YES = {"yes", "true", "y", "correct", "affirmative"}
_NO = {"no", "false", "n", "not", "negative"}


def normalise(text: str) -> str:
    """Case-, accent-, space- and punctuation-insensitive form, words separated by one space."""
    text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    return " ".join(re.sub(r"[^a-z0-9@.+-]+", " ", text.lower()).replace(". ", " ").split()).strip(" .")


def contains_phrase(haystack: str, needle: str) -> bool:
    """Whole-word containment after normalisation."""
    n = normalise(needle)
    return bool(n) and f" {n} " in f" {normalise(haystack)} "


def numbers_in(text: str) -> list[float]:
    out = []
    for m in _NUMBER.finditer(text):
        token = m.group(0).replace(",", "")
        if token.strip("+-."):
            out.append(float(token))
    return out


def dates_in(text: str) -> set[date]:
    found: set[date] = set()
    for y, m, d in _ISO.findall(text):
        _add_date(found, int(y), int(m), int(d))
    for mon, d, y in _MDY.findall(text):
        if mon[:3].lower() in _MONTHS:
            _add_date(found, int(y), _MONTHS[mon[:3].lower()], int(d))
    for d, mon, y in _DMY.findall(text):
        if mon[:3].lower() in _MONTHS:
            _add_date(found, int(y), _MONTHS[mon[:3].lower()], int(d))
    return found


def _add_date(found: set[date], y: int, m: int, d: int) -> None:
    with contextlib.suppress(ValueError):
        found.add(date(y, m, d))


def _as_date(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    ds = dates_in(str(value))
    return next(iter(ds)) if len(ds) == 1 else None


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, (int, float)):
        return bool(value)
    words = set(normalise(str(value)).split())
    if words & _YES and not words & _NO:
        return True
    if words & _NO and not words & _YES:
        return False
    return None


def match_answer(
    answer: str | None,
    expected: Sequence[Any],
    how: AnswerMatch,
    tolerance: float = 0.01,
    forbidden: Sequence[Any] = (),
) -> tuple[bool, str]:
    """Whether ``answer`` states the expected values; the reason when it does not."""
    if answer is None or not str(answer).strip():
        return False, "no answer given"
    answer = str(answer)
    if len(answer) > MAX_ANSWER:
        return False, f"answer longer than {MAX_ANSWER} characters"
    if not expected:
        return False, "the expected answer is empty"
    for bad in forbidden:
        if bad is not None and str(bad).strip() and _states(answer, bad, how, tolerance):
            return False, "answer contains a value that is not part of the correct answer"
    if how == AnswerMatch.list:
        missing = [e for e in expected if not _states(answer, e, AnswerMatch.text, tolerance)]
        return (not missing, "" if not missing else f"{len(missing)} of {len(expected)} expected items missing")
    if how == AnswerMatch.number:
        distinct = {round(n, 6) for n in numbers_in(answer)}
        if len(distinct) > MAX_NUMBERS:
            return False, f"answer states {len(distinct)} different numbers; state the one asked for"
    ok = _states(answer, expected[0], how, tolerance)
    return ok, "" if ok else "answer does not state the expected value"


def _states(answer: str, value: Any, how: AnswerMatch, tolerance: float) -> bool:
    if how == AnswerMatch.number:
        try:
            target = float(value)
        except (TypeError, ValueError):
            return False
        return any(abs(n - target) <= tolerance + 1e-9 for n in numbers_in(answer))
    if how == AnswerMatch.date:
        d = _as_date(value)
        return d is not None and d in dates_in(answer)
    if how == AnswerMatch.boolean:
        want = _as_bool(value)
        return want is not None and _as_bool(answer) == want
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return contains_phrase(answer, str(value))
