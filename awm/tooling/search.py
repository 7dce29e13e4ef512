"""Searches: optional filters as one constant SQL text, and ``LIKE`` patterns that treat the agent's ``%`` and
``_`` as letters."""

from __future__ import annotations

from typing import Any

LIKE_ESCAPE = "\\"  # the escape character the catalog's searches declare: ``LIKE ? ESCAPE '\'``


def like_contains(text: str, *, lower: bool = False) -> str:
    """A ``LIKE`` pattern matching ``text`` anywhere, with LIKE's own wildcards escaped: ``%`` and ``_`` in
    what the agent typed are letters, not "anything" (``"%"`` would otherwise list the whole directory).
    Use it with ``... LIKE ? ESCAPE '\\'`` (in Python source: ``"LIKE ? ESCAPE '\\\\'"``)."""
    return "%" + like_escape(text.lower() if lower else text) + "%"


def like_prefix(text: str, *, lower: bool = False) -> str:
    """A ``LIKE`` pattern matching values that start with ``text`` (escaped as in ``like_contains``)."""
    return like_escape(text.lower() if lower else text) + "%"


def like_escape(text: str) -> str:
    """``text`` with ``%``, ``_`` and the escape character escaped for ``LIKE ... ESCAPE '\\'``."""
    return text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", LIKE_ESCAPE + "%").replace("_", LIKE_ESCAPE + "_")


def filters(*conditions: tuple[str, Any]) -> tuple[str, list[Any]]:
    """Optional filters of a search as one constant SQL text and its parameters.

    Each ``(condition, value)`` pair holds one ``?``; it becomes ``(? IS NULL OR condition)``, true when the
    agent left that filter out (``value`` None). The text does not depend on which filters are given, so the
    statement is compiled once::

        where, params = filters(("r.status = ?", status), ("r.arrival_date >= ?", arriving_from))
        db.query(f"SELECT ... WHERE {where} ORDER BY r.arrival_date LIMIT ?", (*params, limit))
    """
    parts, params = [], []
    for condition, value in conditions:
        if condition.count("?") != 1:
            raise ValueError(f"a filter condition holds exactly one '?': {condition!r}")
        parts.append(f"(? IS NULL OR {condition})")
        params += [value, value]
    return " AND ".join(parts) or "1", params


def like_any(text: str | None, *columns: str, lower: bool = False, optional: bool = False) -> tuple[str, list[Any]]:
    """A search of ``text`` in any of ``columns`` (SQL expressions: ``"c.email"``, ``"IFNULL(c.phone, '')"``), as
    one condition and its parameters: ``("(c.name LIKE ? ESCAPE '\\' OR c.email LIKE ? ESCAPE '\\')", [pattern,
    pattern])``, the pattern from ``like_contains(text, lower=lower)``::

        who, params = like_any(query, "c.full_name", "c.email")
        db.query(f"SELECT ... WHERE {who} ORDER BY c.full_name LIMIT ?", (*params, limit))

    ``optional=True``: a search box the agent may leave empty; ``text`` is stripped, and None or blank text
    matches every row (``(? IS NULL OR (...))``, the same SQL text either way).
    """
    if not columns:
        raise ValueError("like_any needs at least one column")
    if optional:
        words = (text or "").strip()
        inner, params = like_any(words, *columns, lower=lower)
        return f"(? IS NULL OR {inner})", [words or None, *params]
    if text is None:
        raise ValueError("like_any: no text (pass optional=True for a search the agent may leave empty)")
    pattern = like_contains(text, lower=lower)
    return "(" + " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in columns) + ")", [pattern] * len(columns)
