"""Gymnasium spaces for text that may hold any Unicode character."""

from __future__ import annotations

import string
from typing import Any

from gymnasium import spaces

CHARSET = string.printable


class AnyText(spaces.Text):
    """A ``Text`` space that contains any ``str`` within its length bounds (tool output is Unicode)."""

    def __init__(self, max_length: int, min_length: int = 0):
        super().__init__(max_length=max_length, min_length=min_length, charset=CHARSET)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length
