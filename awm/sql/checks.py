"""Static check that verifier SQL is one read-only SELECT (sqlglot). Runtime enforcement is
``PRAGMA query_only`` on the connection that runs it (see ``awm.judge.verify``): sqlglot alone lets
function calls such as ``load_extension`` through."""

from __future__ import annotations

import logging

import sqlglot
from sqlglot import exp

_WRITE_NODES: tuple[type[exp.Expr], ...] = tuple(
    getattr(exp, n)
    for n in (
        "Insert",
        "Update",
        "Delete",
        "Create",
        "Drop",
        "Alter",
        "Merge",
        "Command",
        "Pragma",
        "Attach",
        "Detach",
        "TruncateTable",
        "Transaction",
        "Commit",
        "Rollback",
        "Set",
    )
    if hasattr(exp, n)
)
_QUERY_NODES: tuple[type[exp.Expr], ...] = (exp.Select, exp.Union, exp.Intersect, exp.Except)
logging.getLogger("sqlglot").setLevel(logging.ERROR)  # it warns on every Command fallback
_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "random", "randomblob", "edit"}


def read_only_problem(sql: str) -> str | None:
    """None when ``sql`` is a single read-only SELECT; otherwise what is wrong with it."""
    try:
        stmts = [s for s in sqlglot.parse(sql, read="sqlite", error_level=sqlglot.ErrorLevel.RAISE) if s is not None]
    except sqlglot.errors.SqlglotError as e:
        return f"does not parse: {str(e).splitlines()[0]}"
    if len(stmts) != 1:
        return f"must be exactly one statement, found {len(stmts)}"
    stmt = stmts[0]
    if not isinstance(stmt, _QUERY_NODES):
        return f"must be a SELECT, found {type(stmt).__name__.upper()}"
    for node in stmt.walk():
        if isinstance(node, _WRITE_NODES):
            return f"contains a write ({type(node).__name__.upper()})"
        if isinstance(node, exp.Anonymous) and str(node.name).lower() in _DENIED_FUNCTIONS:
            return f"calls forbidden function {node.name}()"
    return None
