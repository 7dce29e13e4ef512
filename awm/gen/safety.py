"""Static safety check of generated ``tools.py``, run before the file is ever imported.

An allow-list, not a deny-list: only a fixed set of imports; no ``open``/``exec``/``eval``/
``__import__``/``getattr``-style builtins; no dunder or private attributes (so no escape through
``db._conn`` or ``().__class__``); SQL text passed to the ``Db`` handle must be a string literal (no
string-built SQL: values go in bound parameters); the clock is read only through ``db.now()`` /
``db.today()``; module level holds only imports, constants and ``@tool`` functions. The check is
defence in depth: the code also runs in a child process with a scrubbed environment and time limits.
"""

from __future__ import annotations

import ast

ALLOWED_MODULES = frozenset(
    {
        "__future__",
        "typing",
        "datetime",
        "json",
        "math",
        "re",
        "decimal",
        "fractions",
        "statistics",
        "itertools",
        "functools",
        "collections",
        "string",
        "awm.tooling",
        "awm.errors",
    }
)
ALLOWED_FROM_AWM = {
    "awm.tooling": {
        "Db",
        "ToolError",
        "tool",
        "like_contains",
        "like_prefix",
        "like_escape",
        "check_limit",
        "now_iso",
        # the authors' vocabulary (awm/tooling/values.py, rules.py); not filters(): its SQL is built with an f-string
        "parse_day",
        "parse_optional_day",
        "parse_moment",
        "to_cents",
        "dollars",
        "clean_text",
        "require_status",
        "require_role",
        "require_owner",
        "either",
        "add_months",
        "iso_seconds",
    },
    "awm.errors": {"ToolError"},
}
# Calls a module-level constant may make: constructors of plain values, evaluated once at import.
HARMLESS_CALLS = frozenset(
    {
        "time",
        "date",
        "datetime",
        "timedelta",
        "Decimal",
        "Fraction",
        "frozenset",
        "set",
        "tuple",
        "list",
        "dict",
        "range",
        "sorted",
        "str",
        "int",
        "float",
        "bool",
        "len",
        "compile",  # re.compile
        "namedtuple",
        "defaultdict",
        "Counter",
        "OrderedDict",
        "fromisoformat",
        "enumerate",
        "zip",
    }
)
HARMLESS_MODULES = frozenset({"re", "datetime", "decimal", "fractions", "collections", "date", "time"})
# Faker methods that read the real clock (a builder takes dates from ctx.clock / ctx.today / ctx.days_ago)
FAKER_CLOCK = frozenset(
    {
        "date_between",
        "date_time_between",
        "past_date",
        "future_date",
        "past_datetime",
        "future_datetime",
        "date_this_year",
        "date_this_month",
        "date_this_decade",
        "date_this_century",
        "date_time_this_year",
        "date_time_this_month",
        "date_time_this_decade",
        "date_time_this_century",
        "date_of_birth",
        "date_object",
        "date_time",
        "date_time_ad",
        "iso8601",
        "unix_time",
        "time_series",
        "year",
        "month",
        "day_of_month",
        "day_of_week",
        "time_object",
        "date_between_dates",
        "date_time_between_dates",
    }
)
FORBIDDEN_NAMES = frozenset(
    {
        "open",
        "exec",
        "eval",
        "compile",
        "__import__",
        "globals",
        "locals",
        "vars",
        "dir",
        "getattr",
        "setattr",
        "delattr",
        "hasattr",
        "breakpoint",
        "help",
        "exit",
        "quit",
        "memoryview",
        "object",
        "super",
        "classmethod",
        "staticmethod",
        "property",
    }
)
# Builtins that are only a problem when used as builtins: a parameter or variable of that name is fine.
SHADOWABLE_NAMES = frozenset({"input", "type", "id", "hash", "copyright", "credits", "license"})
SQL_METHODS = frozenset({"query", "one", "value", "execute"})
FORBIDDEN_METHODS = frozenset(
    {
        "executescript",
        "executemany",
        "set_authorizer",
        "set_progress_handler",
        "create_function",
        "create_aggregate",
        "enable_load_extension",
        "load_extension",
        "backup",
        "serialize",
        "deserialize",
        "interrupt",
        "cursor",
        "commit",
        "rollback",
        "close",
    }
)
CLOCK_METHODS = frozenset({"now", "today", "utcnow"})
MAX_SOURCE = 200_000


def check_tools_source(source: str) -> list[str]:
    """Every reason ``source`` may not be imported; an empty list means it passed."""
    if len(source) > MAX_SOURCE:
        return [f"tools.py is {len(source)} characters; the limit is {MAX_SOURCE}"]
    try:
        tree = ast.parse(source, filename="tools.py")
    except SyntaxError as e:
        return [f"tools.py does not parse: line {e.lineno}: {e.msg}"]
    checker = _Checker()
    checker.check_module(tree)
    return checker.problems


class _Checker(ast.NodeVisitor):
    def __init__(self) -> None:
        self.problems: list[str] = []
        self.str_constants: set[str] = set()
        self.db_names: set[str] = {"db"}
        self.bound: list[set[str]] = [set()]

    def bad(self, node: ast.AST, message: str) -> None:
        line = getattr(node, "lineno", "?")
        text = f"line {line}: {message}"
        if text not in self.problems and len(self.problems) < 30:
            self.problems.append(text)

    # -- module level ----------------------------------------------------------------------------
    def check_module(self, tree: ast.Module) -> None:
        for i, stmt in enumerate(tree.body):
            if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef)):
                pass
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and i == 0:
                pass  # module docstring
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                value = stmt.value
                calls = [n for n in ast.walk(value) if isinstance(n, ast.Call)] if value is not None else []
                if bad_call := next((c for c in calls if not _harmless(c)), None):
                    self.bad(
                        stmt,
                        f"a module-level constant may not call {ast.unparse(bad_call.func)}(); constants are literals "
                        'or plain values such as time(8, 0), timedelta(days=30), re.compile(r"..."), '
                        'frozenset({...}), Decimal("0.05"); do the rest inside a function',
                    )
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if (
                    isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                    and len(targets) == 1
                    and isinstance(targets[0], ast.Name)
                ):
                    self.str_constants.add(targets[0].id)
            else:
                self.bad(
                    stmt,
                    f"module-level {type(stmt).__name__} statement is not allowed; "
                    "only imports, constants and @tool functions",
                )
        self.visit(tree)

    # -- imports ---------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name not in ALLOWED_MODULES or alias.name.startswith("awm"):
                self.bad(node, f"`import {alias.name}` is not allowed; the code may import only {_allowed()}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or module not in ALLOWED_MODULES:
            self.bad(
                node,
                f"`from {'.' * node.level}{module} import ...` is not allowed; the code may import only {_allowed()}",
            )
            return
        for alias in node.names:
            if alias.name == "*":
                self.bad(node, f"`from {module} import *` is not allowed; import names explicitly")
            elif module in ALLOWED_FROM_AWM and alias.name not in ALLOWED_FROM_AWM[module]:
                self.bad(node, f"`from {module} import {alias.name}` is not allowed; use Db, ToolError, tool")

    # -- definitions -----------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.name.startswith("__"):
            self.bad(node, f"function name {node.name!r} is not allowed")
        for dec in node.decorator_list:
            if not _is_tool_decorator(dec):
                self.bad(dec, "the only decorator allowed is @tool or @tool(write=True)")
        for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]:
            if any(isinstance(n, ast.Call) for n in ast.walk(default)):
                self.bad(default, "default values must be literals (they run at import time)")
        if node.args.args and node.decorator_list:
            self.db_names.add(node.args.args[0].arg)
        args = node.args
        bound = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
        bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self.bound.append(bound | self.bound[-1])
        self.generic_visit(node)
        self.bound.pop()

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.bad(node, "async functions are not allowed; tools are plain functions")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bad(node, "classes are not allowed in tools.py; use functions and dicts")

    def visit_Global(self, node: ast.Global) -> None:
        self.bad(node, "`global` is not allowed: tools keep no state outside the database")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.bad(node, "`nonlocal` is not allowed: tools keep no state outside the database")

    def visit_Await(self, node: ast.Await) -> None:
        self.bad(node, "`await` is not allowed")

    def visit_Yield(self, node: ast.Yield) -> None:
        self.bad(node, "generators are not allowed; return a list")

    def visit_YieldFrom(self, node: ast.YieldFrom) -> None:
        self.bad(node, "generators are not allowed; return a list")

    def visit_Try(self, node: ast.Try) -> None:
        for handler in node.handlers:
            names = _handler_names(handler.type)
            if handler.type is None or "BaseException" in names:
                self.bad(handler, "bare `except:` / `except BaseException` is not allowed; catch specific errors")
        self.generic_visit(node)

    visit_TryStar = visit_Try  # type: ignore[assignment]

    # -- names and attributes --------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if node.id in FORBIDDEN_NAMES or (node.id in SHADOWABLE_NAMES and node.id not in self.bound[-1]):
            self.bad(node, f"`{node.id}` is not allowed in tools")
        elif node.id.startswith("__"):
            self.bad(node, f"dunder name `{node.id}` is not allowed")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("_"):
            self.bad(node, f"access to private or dunder attribute `.{node.attr}` is not allowed")
        elif node.attr in FORBIDDEN_METHODS:
            self.bad(node, f"`.{node.attr}` is not allowed: the Db handle runs one transaction per call for you")
        self.generic_visit(node)

    # -- calls -----------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr in SQL_METHODS and _is_db(func.value, self.db_names):
                sql = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "sql"), None)
                if sql is not None and not self._literal_sql(sql):
                    self.bad(
                        node,
                        f"db.{func.attr}() needs SQL text as a string literal; string-built SQL is not allowed "
                        "(put values in ? parameters; for optional filters use `(? IS NULL OR col = ?)`)",
                    )
            elif func.attr == "insert" and _is_db(func.value, self.db_names):
                if not (node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                    self.bad(node, "db.insert() needs the table name as a string literal")
            elif func.attr in CLOCK_METHODS and not _is_db(func.value, self.db_names):
                self.bad(node, f"`.{func.attr}()` reads the wall clock; use db.now() or db.today() (the world's clock)")
        self.generic_visit(node)

    def _literal_sql(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return True
        return isinstance(node, ast.Name) and node.id in self.str_constants


def _harmless(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in HARMLESS_CALLS
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id in HARMLESS_MODULES and func.attr in HARMLESS_CALLS
    return False


def check_world_source(source: str) -> list[str]:
    """Every reason a generated ``world.py`` may not run (a lint: the builder runs isolated anyway)."""
    if len(source) > MAX_SOURCE:
        return [f"world.py is {len(source)} characters; the limit is {MAX_SOURCE}"]
    try:
        tree = ast.parse(source, filename="world.py")
    except SyntaxError as e:
        return [f"world.py does not parse: line {e.lineno}: {e.msg}"]
    checker = _WorldChecker()
    checker.check_module(tree)
    if not any(isinstance(s, ast.FunctionDef) and s.name == "build" for s in tree.body):
        checker.problems.append("world.py defines no module-level function build(ctx)")
    return checker.problems


def _is_db(node: ast.expr, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names


def _is_tool_decorator(dec: ast.expr) -> bool:
    if isinstance(dec, ast.Name):
        return dec.id == "tool"
    if isinstance(dec, ast.Call) and isinstance(dec.func, ast.Name) and dec.func.id == "tool":
        return not dec.args and all(isinstance(k.value, ast.Constant) for k in dec.keywords)
    return False


def _handler_names(node: ast.expr | None) -> set[str]:
    if node is None:
        return set()
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Tuple):
        return {e.id for e in node.elts if isinstance(e, ast.Name)}
    return set()


def _allowed() -> str:
    return ", ".join(sorted(m for m in ALLOWED_MODULES if m != "__future__"))


class _WorldChecker(_Checker):
    """``world.py``: the rules of ``tools.py`` without the database ones; no import from awm (the builder
    gets everything through ``ctx``); no Faker method that reads the real clock."""

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if (node.module or "").startswith("awm"):
            self.bad(node, "world.py imports nothing from awm: build(ctx) gets rng, faker and clock through ctx")
            return
        super().visit_ImportFrom(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.decorator_list:
            self.bad(node, "world.py functions take no decorators")
        node.decorator_list, saved = [], node.decorator_list
        try:
            super().visit_FunctionDef(node)
        finally:
            node.decorator_list = saved

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in FAKER_CLOCK:
            self.bad(
                node,
                f"`.{func.attr}()` reads the real clock; take dates from ctx.clock, ctx.today, ctx.days_ago(lo, hi) "
                "or ctx.moment_ago(lo, hi)",
            )
        elif isinstance(func, ast.Attribute) and func.attr in CLOCK_METHODS:
            self.bad(node, f"`.{func.attr}()` reads the wall clock; use ctx.clock / ctx.today (the world's clock)")
        self.generic_visit(node)
