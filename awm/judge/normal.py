"""The one text normalisation every judge uses: write frames, check respelling and typed answers.

Two texts are the same value when they differ only in case, accents, spacing, apostrophes and the
punctuation between words: ``"CCG-558-20931"`` = ``"ccg 558 20931"``, ``"Apt. 4"`` = ``"apt 4"``,
``"(503) 555-0219"`` = ``"503-555-0219"``, ``"Zoë"`` = ``"Zoe"``. Letters and digits, their order, and
``@``/``+`` are kept, so ``"12.50"`` differs from ``"1250"`` and ``"a.b@x.com"`` from ``"ab@x.com"``.
A leading minus sign on a number is kept (``"-5"`` is not ``"5"``).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

_SEPARATORS = re.compile(r"(?:(?!\x00)[^\w@+])+|_+")
_SIGNED = re.compile(r"(?:(?<=\s)|^)-(?=\d)")


def text_key(value: Any) -> str:
    """The normalised form of a text value (case, accents, spacing, punctuation between words)."""
    s = unicodedata.normalize("NFKD", str(value))
    s = "".join(ch for ch in s if not unicodedata.combining(ch)).casefold()
    s = s.replace("'", "").replace("\u2019", "")
    s = _SIGNED.sub("\x00", s)  # a minus sign that starts a number survives
    return " ".join(_SEPARATORS.sub(" ", s).split()).replace("\x00", "-")
