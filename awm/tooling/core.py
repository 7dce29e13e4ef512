"""The tool machinery: ``@tool``, ``ToolError``, the ``Db`` handle and how a tool becomes a JSON Schema.

A tool is a plain typed function whose first parameter is the ``Db``. Its signature and docstring
become the JSON Schema the agent sees; pydantic validates arguments before the function runs.
"""

from __future__ import annotations

import inspect
import re
import sqlite3
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from awm.errors import ToolDefinitionError, ToolError

MAX_STRING = 10_000  # longest string argument a tool accepts

# SQL that reads the wall clock or randomness: forbidden in schemas, seeds, tools and verifiers
NONDETERMINISTIC = re.compile(r"\bcurrent_(time|date|timestamp)\b|'now'|\brandom(blob)?\s*\(", re.I)


def quote(identifier: str) -> str:
    """An SQL identifier, double-quoted."""
    return '"' + identifier.replace('"', '""') + '"'


WRITE_EVENTS = ("insert", "update", "delete")  # what a statement can do to a table's rows


@dataclass(frozen=True, slots=True)
class StatementPlan:
    """What one SQL text does, learned once per world through the SQLite authorizer: the tables it writes
    and, per table, the kinds of write (FK actions and the bodies of schema triggers included)."""

    writes: frozenset[str]
    events: frozenset[tuple[str, str]]  # (table, "insert" | "update" | "delete")


@dataclass(frozen=True, slots=True)
class ToolDef:
    """A tool ready to run: its function, argument model and JSON Schema.

    ``actor`` names the parameter that identifies the person on whose behalf a call acts
    (``@tool(write=True, actor="customer_email")``): metadata for the audit's ``write.impersonate``
    probe and the generator, never part of the JSON Schema the agent sees."""

    name: str
    fn: Callable[..., Any]
    write: bool
    description: str
    args_model: type[BaseModel]
    parameters: dict[str, Any]
    actor: str | None = None

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Validated keyword arguments, or ``ValidationError``.

        Beyond the schema, what SQLite and the tools cannot hold is refused here, at the boundary, so no
        agent input reaches a Python exception: integers outside SQLite's 64 bits, NaN and infinities
        (the model's config), NUL characters in text."""
        model = self.args_model.model_validate(arguments)
        values = {k: getattr(model, k) for k in type(model).model_fields}
        problems = [(k, why) for k, v in values.items() if (why := _boundary_problem(v)) is not None]
        if problems:
            raise ValidationError.from_exception_data(
                f"{self.name}_arguments",
                [
                    {"type": "value_error", "loc": (k,), "input": values[k], "ctx": {"error": ValueError(why)}}
                    for k, why in problems
                ],
            )
        return values


INT64 = (-(1 << 63), (1 << 63) - 1)


def _boundary_problem(value: Any) -> str | None:
    """Why an argument value cannot reach SQLite or a tool safely (None when it can)."""
    if isinstance(value, int) and not isinstance(value, bool) and not INT64[0] <= value <= INT64[1]:
        return "an integer outside the 64-bit range SQLite stores (-2^63 to 2^63-1)"
    if isinstance(value, str) and "\x00" in value:
        return "text must not contain NUL characters"
    if isinstance(value, (list, tuple)):
        return next((why for v in value if (why := _boundary_problem(v)) is not None), None)
    return None


def tool(
    fn: Callable[..., Any] | None = None, *, write: bool = False, name: str | None = None, actor: str | None = None
) -> Any:
    """Mark a function as a tool. ``@tool`` reads; ``@tool(write=True)`` may change the database.

    ``actor`` names the required parameter that identifies the person the call acts for
    (``@tool(write=True, actor="customer_email")``); the tool must refuse rows that are not theirs."""

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        f.__awm_tool__ = build_tool(f, write=write, name=name, actor=actor)  # type: ignore[attr-defined]
        return f

    return wrap(fn) if fn is not None else wrap


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and ``Args:`` entries."""
    doc = inspect.cleandoc(doc or "")
    head, _, rest = doc.partition("\nArgs:")
    args: dict[str, str] = {}
    current = None
    for line in rest.splitlines():
        if line and not line[0].isspace() and line.rstrip().endswith(":"):
            break  # next section (Returns:, Raises:)
        m = re.match(r"^\s+(\w+)\s*(?:\([^)]*\))?:\s*(.*)$", line)
        if m and (current is None or len(line) - len(line.lstrip()) <= 8):
            current = m.group(1)
            args[current] = m.group(2).strip()
        elif current and line.strip():
            args[current] = (args[current] + " " + line.strip()).strip()
    head = re.split(r"\n(?:Returns|Raises|Yields|Examples?|Notes?):", head)[0]
    paragraphs = [" ".join(line.strip() for line in p.splitlines()) for p in head.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p), args


_ALLOWED_LEAF = (int, float, str, bool, type(None))


def _check_annotation(ann: Any, where: str) -> None:
    origin = typing.get_origin(ann)
    if ann in _ALLOWED_LEAF:
        return
    if origin in (typing.Union, types.UnionType):
        for a in typing.get_args(ann):
            _check_annotation(a, where)
        return
    if origin is typing.Literal:
        return
    if origin in (list, Sequence) and typing.get_args(ann):
        _check_annotation(typing.get_args(ann)[0], where)
        return
    raise ToolDefinitionError(
        f"{where}: unsupported type {ann!r}; use int, float, str, bool, Literal, X | None or list[X]"
    )


def strip_titles(schema: Any) -> Any:
    """Drop pydantic's generated ``title`` keywords; argument names under ``properties`` are kept
    (an argument may well be called ``title``)."""
    if isinstance(schema, list):
        return [strip_titles(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for k, v in schema.items():
        if k == "title" and isinstance(v, str):
            continue
        if k in ("properties", "$defs", "definitions") and isinstance(v, dict):
            out[k] = {name: strip_titles(sub) for name, sub in v.items()}
        else:
            out[k] = strip_titles(v)
    return out


def build_tool(f: Callable[..., Any], *, write: bool, name: str | None = None, actor: str | None = None) -> ToolDef:
    tool_name = name or f.__name__
    where = f"tool {tool_name!r}"
    if not re.match(r"^[A-Za-z][A-Za-z0-9_]{0,63}$", tool_name):
        raise ToolDefinitionError(f"{where}: name must match [A-Za-z][A-Za-z0-9_]*")
    description, arg_docs = parse_docstring(f.__doc__ or "")
    if not description:
        raise ToolDefinitionError(f"{where}: needs a docstring saying what it does")
    sig = inspect.signature(f)
    hints = typing.get_type_hints(f)
    params = list(sig.parameters.values())
    if not params:
        raise ToolDefinitionError(f"{where}: the first parameter must be the Db handle")
    fields: dict[str, Any] = {}
    for p in params[1:]:
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            raise ToolDefinitionError(f"{where}: parameter {p.name!r} must be a plain named parameter")
        if p.name not in hints:
            raise ToolDefinitionError(f"{where}: parameter {p.name!r} needs a type hint")
        _check_annotation(hints[p.name], f"{where} parameter {p.name!r}")
        default = ... if p.default is p.empty else p.default
        fields[p.name] = (hints[p.name], Field(default, description=arg_docs.get(p.name) or None))
    _check_actor(actor, sig, where)
    config = ConfigDict(extra="forbid", strict=True, str_max_length=MAX_STRING, allow_inf_nan=False)
    model = create_model(f"{tool_name}_arguments", __config__=config, **fields)
    schema = strip_titles(model.model_json_schema())
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    return ToolDef(tool_name, f, write, description, model, schema, actor)


def _check_actor(actor: str | None, sig: inspect.Signature, where: str) -> None:
    """``actor`` must name one of the tool's own required parameters (the Db handle is not one)."""
    if actor is None:
        return
    params = list(sig.parameters.values())[1:]
    names = [p.name for p in params]
    if not isinstance(actor, str) or actor not in names:
        raise ToolDefinitionError(
            f"{where}: actor={actor!r} must name one of the tool's parameters ({', '.join(names) or 'it has none'})"
        )
    if sig.parameters[actor].default is not inspect.Parameter.empty:
        raise ToolDefinitionError(
            f"{where}: actor parameter {actor!r} has a default; the acting person must be a required argument"
        )


def format_validation_error(tool_name: str, err: ValidationError, accepted: Sequence[str]) -> str:
    """One line per problem, naming the argument and what to send instead."""
    lines = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "arguments"
        kind = e["type"]
        if kind == "missing":
            lines.append(f"missing required argument {loc!r}")
        elif kind == "extra_forbidden":
            lines.append(f"unknown argument {loc!r} (this tool takes: {', '.join(accepted) or 'no arguments'})")
        else:
            got = repr(e.get("input"))
            got = got if len(got) <= 60 else got[:57] + "..."
            lines.append(f"argument {loc!r}: {e['msg']} (got {got})")
    return f"invalid arguments for {tool_name}: " + "; ".join(lines)


class Db:
    """The database handle a tool receives. SQL text is constant; values are bound parameters."""

    __slots__ = ("_clock", "_conn", "_plans", "_tables", "_writable", "before_write", "seed", "step")

    def __init__(
        self,
        conn: sqlite3.Connection,
        plans: dict[str, StatementPlan],
        clock: datetime,
        tables: Mapping[str, Sequence[str]],
    ):
        self._conn = conn
        self._plans = plans
        self._clock = clock
        self._tables = tables
        self._writable = False
        # called with the (table, event) pairs a statement is about to write, before it runs (the
        # episode installs its change capture there)
        self.before_write: Callable[[frozenset[tuple[str, str]]], None] | None = None
        # the episode's seed and the number of the running step: what seeds imported code's chance
        self.seed = 0
        self.step = 0

    # -- time ---------------------------------------------------------------------------------
    def now(self) -> datetime:
        """The world's frozen clock."""
        return self._clock

    def today(self) -> date:
        return self._clock.date()

    # -- queries ------------------------------------------------------------------------------
    def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[dict[str, Any]]:
        """All rows as dicts."""
        cur = self._run(sql, params)
        cols = [d[0] for d in cur.description or ()]
        return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]

    @typing.overload
    def one(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, missing: str) -> dict[str, Any]: ...
    @typing.overload
    def one(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, missing: None = None
    ) -> dict[str, Any] | None: ...
    def one(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, missing: str | None = None
    ) -> dict[str, Any] | None:
        """The first row as a dict, or None; with ``missing``, a ``ToolError`` with that message instead of None
        (the lookup-or-refuse of every tool that takes a code or an e-mail: say what was not found and which
        tool finds it, e.g. ``missing=f"No patient with MRN {mrn!r}; use find_patients to look one up."``)."""
        cur = self._run(sql, params)
        row = cur.fetchone()
        if row is None:
            if missing is not None:
                raise ToolError(missing)
            return None
        return dict(zip([d[0] for d in cur.description], row, strict=True))

    def none(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, found: str) -> None:
        """Refuse with ``found`` if ``sql`` returns a row: the counterpart of ``one(..., missing=...)`` for what
        must not exist yet (``found=f"{title!r} is already on the list."``)."""
        if self._run(sql, params).fetchone() is not None:
            raise ToolError(found)

    def value(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> Any:
        """The first column of the first row, or None."""
        row = self._run(sql, params).fetchone()
        return None if row is None else row[0]

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> int:
        """Run a write statement; returns the number of rows changed."""
        return self._run(sql, params).rowcount

    def insert(self, table: str, values: Mapping[str, Any]) -> int:
        """Insert one row; returns its rowid (the INTEGER PRIMARY KEY when there is one)."""
        cols = self._tables.get(table)
        if cols is None:
            raise ToolDefinitionError(f"insert into unknown table {table!r}")
        bad = [c for c in values if c not in cols]  # names come from the schema, and are quoted
        if bad:
            raise ToolDefinitionError(f"insert into {table!r}: unknown columns {bad}")
        names = list(values)
        sql = f"INSERT INTO {quote(table)} ({', '.join(map(quote, names))}) VALUES ({', '.join('?' for _ in names)})"
        cur = self._run(sql, [values[c] for c in names])
        return int(cur.lastrowid or 0)

    def raw_connection(self) -> sqlite3.Connection:
        """The episode's connection, for imported code that runs its own SQL (``awm.importers.runtime``).

        Only during a write tool's call: change capture is installed on every table first, so the
        step's diff sees whatever the code writes, and the call's transaction still wraps it all.
        Hand-written tools never need this; use ``query``/``execute``.
        """
        if not self._writable:
            raise ToolDefinitionError("raw_connection() is only for write tools, during their call")
        if self.before_write is not None:
            self.before_write(frozenset((t, e) for t in self._tables for e in WRITE_EVENTS))
        return self._conn

    # -- engine -------------------------------------------------------------------------------
    def _run(self, sql: str, params: Sequence[Any] | Mapping[str, Any]) -> sqlite3.Cursor:
        plan = self._plans.get(sql)
        if plan is None:
            return self._learn(sql, params)
        if plan.writes:
            if not self._writable:
                raise ToolDefinitionError("a read tool tried to write; declare it @tool(write=True)")
            if self.before_write is not None:
                self.before_write(plan.events)
        return self._conn.execute(sql, params)

    def _learn(self, sql: str, params: Sequence[Any] | Mapping[str, Any]) -> sqlite3.Cursor:
        """First sight of this SQL text in this world: compile it under the authorizer, then run it."""
        if NONDETERMINISTIC.search(sql):
            raise ToolDefinitionError("tool SQL must not read the wall clock or random(); use db.now()")
        writes: set[str] = set()
        events: set[tuple[str, str]] = set()
        denied: list[str] = []

        def authorize(action: int, arg1: str | None, arg2: str | None, dbname: str | None, _t: str | None) -> int:
            if dbname not in (None, "main", "temp"):
                denied.append(f"access to schema {dbname!r}")
                return sqlite3.SQLITE_DENY
            if action in _WRITE_ACTIONS:
                if arg1 and not arg1.startswith(("sqlite_", "_awm_")):
                    writes.add(arg1)
                    events.add((arg1, _WRITE_ACTIONS[action]))
                if not self._writable:
                    denied.append(f"write to {arg1!r} from a read tool; declare it @tool(write=True)")
                    return sqlite3.SQLITE_DENY
                return sqlite3.SQLITE_OK
            if action in _ALLOWED_ACTIONS:
                return sqlite3.SQLITE_OK
            if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() not in _DENIED_FUNCTIONS:
                return sqlite3.SQLITE_OK
            denied.append(f"statement kind {action} ({arg1 or arg2 or ''})")
            return sqlite3.SQLITE_DENY

        self._conn.set_authorizer(authorize)
        try:
            self._conn.execute("EXPLAIN " + sql, params)  # compiles (and authorizes) without running
        except sqlite3.DatabaseError as e:
            if denied:
                raise ToolDefinitionError("tool SQL not allowed: " + "; ".join(denied)) from e
            raise
        finally:
            self._conn.set_authorizer(None)
        self._plans[sql] = StatementPlan(frozenset(writes), frozenset(events))
        return self._run(sql, params)


_WRITE_ACTIONS = {sqlite3.SQLITE_INSERT: "insert", sqlite3.SQLITE_UPDATE: "update", sqlite3.SQLITE_DELETE: "delete"}
_ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE}
_DENIED_FUNCTIONS = {"load_extension", "random", "randomblob", "readfile", "writefile", "edit", "fts3_tokenizer"}
