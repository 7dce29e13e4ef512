"""Arguments in, values out: the parsing and formatting every environment's tools repeat.

Each parser takes what the agent typed and the argument's name as the agent knows it (``what``), and returns
the value or raises a ``ToolError`` that says what a good value looks like. Money is integer cents in the
database and dollars (two decimals) in results.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime
from typing import TYPE_CHECKING

from awm.errors import ToolError

if TYPE_CHECKING:
    from awm.tooling.core import Db

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?")


def check_limit(limit: int, top: int = 50) -> None:
    """A list tool's ``limit`` argument: 1 to ``top``, or a ``ToolError`` that says so."""
    if not 1 <= limit <= top:
        raise ToolError(f"limit must be between 1 and {top} (got {limit})")


def parse_day(value: str, what: str, example: str = "2026-03-20") -> date:
    """A calendar day written ``YYYY-MM-DD`` (surrounding spaces ignored), or a ``ToolError`` naming ``what``."""
    v = value.strip()
    try:
        if not _DAY.fullmatch(v):
            raise ValueError
        return date.fromisoformat(v)
    except ValueError:
        raise ToolError(f"{what} must be a date written YYYY-MM-DD, e.g. '{example}' (got {value!r})") from None


def parse_optional_day(value: str | None, what: str, example: str = "2026-03-20") -> date | None:
    """``parse_day`` for an optional filter: None (or blank) means no filter."""
    if value is None or not value.strip():
        return None
    return parse_day(value, what, example)


def parse_moment(value: str, what: str, example: str = "2026-03-20T14:30") -> datetime:
    """A local date and time written ``YYYY-MM-DDTHH:MM`` (seconds and a space for the ``T`` allowed)."""
    v = value.strip().replace(" ", "T")
    try:
        if not _MOMENT.fullmatch(v):
            raise ValueError
        return datetime.fromisoformat(v)
    except ValueError:
        raise ToolError(
            f"{what} must be a date and time written YYYY-MM-DDTHH:MM, e.g. '{example}' (got {value!r})"
        ) from None


def iso_seconds(moment: datetime) -> str:
    """A timestamp as rows store it: ISO, to the second (``2026-03-02T09:30:00``)."""
    return moment.replace(microsecond=0).isoformat()


def now_iso(db: Db) -> str:
    """The frozen clock as rows store a timestamp: ISO, to the second (``2026-03-02T09:30:00``)."""
    return iso_seconds(db.now())


def dollars(cents: int | None) -> float | None:
    """Integer cents as dollars with two decimals (None stays None)."""
    return None if cents is None else round(cents / 100.0, 2)


def to_cents(amount: float, what: str = "amount", *, positive: bool = True) -> int:
    """Dollars as the agent gives them (at most two decimals; more than 0 unless ``positive`` is False)."""
    cents = round(amount * 100)
    if abs(amount * 100 - cents) > 1e-6:
        raise ToolError(f"{what} must have at most two decimals (got {amount}).")
    if positive and cents <= 0:
        raise ToolError(f"{what} must be more than 0 (got {amount}).")
    return int(cents)


def clean_text(value: str | None, what: str, lo: int = 1, hi: int = 500) -> str:
    """Free text (a note, a reason, a title): stripped, ``lo`` to ``hi`` characters."""
    v = (value or "").strip()
    if not lo <= len(v) <= hi:
        raise ToolError(f"{what} must be {lo} to {hi} characters.")
    return v


def add_months(day: date, months: int) -> date:
    """The same day ``months`` later (or earlier), at the end of a shorter month: Jan 31 + 1 = Feb 28/29."""
    m = day.month - 1 + months
    year, month = day.year + m // 12, m % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))
