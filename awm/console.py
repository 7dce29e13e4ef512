"""The rich console every command prints with: terminal width on a terminal; when piped (``awm list | cat``,
a CI log) wide enough that tables are not cut to 80 columns (``COLUMNS``, when set, still wins)."""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleDimensions

PIPE_WIDTH = 200


class _Console(Console):
    @property
    def size(self) -> ConsoleDimensions:
        dims = super().size
        if self._width is None and not self.is_terminal and not (self._environ.get("COLUMNS") or "").isdigit():
            return ConsoleDimensions(PIPE_WIDTH, dims.height)
        return dims

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size


def make_console(**kwargs: Any) -> Console:
    """A ``rich.console.Console`` (same arguments) that does not wrap piped output at 80 columns."""
    return _Console(**kwargs)
