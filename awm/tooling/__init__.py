"""What environment code imports: ``@tool``, ``ToolError``, the ``Db`` handle and the authors' vocabulary.

A tool is a plain typed function whose first parameter is the ``Db``. Its signature and docstring become the
JSON Schema the agent sees; pydantic validates arguments before the function runs.

The vocabulary is what the catalog's environments showed they all need, written once:

- lookup-or-refuse: ``db.one(sql, params, missing="No patient with MRN ...; use find_patients ...")``, and its
  counterpart for what must not exist yet: ``db.none(sql, params, found="... is already on the list.")``;
- arguments: ``parse_day``, ``parse_optional_day``, ``parse_moment``, ``to_cents``, ``clean_text``,
  ``check_limit``; results: ``dollars``, ``iso_seconds``, ``now_iso``; dates: ``add_months``;
- searches: ``filters`` (optional filters as one constant SQL text), ``like_any`` (text in any of several
  columns), ``like_contains`` / ``like_prefix``
  (``LIKE`` patterns with the agent's ``%`` and ``_`` escaped);
- rules: ``require_status`` (a row's state before a transition), ``require_role`` (the acting person's role),
  ``require_owner`` (a row of the acting person's own),
  ``either`` (allowed values as a refusal names them).
"""

from __future__ import annotations

from awm.errors import ToolError
from awm.tooling.core import (
    MAX_STRING,
    NONDETERMINISTIC,
    WRITE_EVENTS,
    Db,
    StatementPlan,
    ToolDef,
    build_tool,
    format_validation_error,
    parse_docstring,
    quote,
    strip_titles,
    tool,
)
from awm.tooling.rules import either, require_owner, require_role, require_status
from awm.tooling.search import LIKE_ESCAPE, filters, like_any, like_contains, like_escape, like_prefix
from awm.tooling.values import (
    add_months,
    check_limit,
    clean_text,
    dollars,
    iso_seconds,
    now_iso,
    parse_day,
    parse_moment,
    parse_optional_day,
    to_cents,
)

__all__ = [
    "LIKE_ESCAPE",
    "MAX_STRING",
    "NONDETERMINISTIC",
    "WRITE_EVENTS",
    "Db",
    "StatementPlan",
    "ToolDef",
    "ToolError",
    "add_months",
    "build_tool",
    "check_limit",
    "clean_text",
    "dollars",
    "either",
    "filters",
    "format_validation_error",
    "iso_seconds",
    "like_any",
    "like_contains",
    "like_escape",
    "like_prefix",
    "now_iso",
    "parse_day",
    "parse_docstring",
    "parse_moment",
    "parse_optional_day",
    "quote",
    "require_owner",
    "require_role",
    "require_status",
    "strip_titles",
    "to_cents",
    "tool",
]
