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
ALLOWED_FROM_AWM = {"awm.tooling": {"Db", "ToolError", "tool"}, "awm.errors": {"ToolError"}}
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
                if value is not None and any(isinstance(n, ast.Call) for n in ast.walk(value)):
                    self.bad(stmt, "module-level code may not call functions; define constants as literals")
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
                self.bad(node, f"`import {alias.name}` is not allowed; tools may import only {_allowed()}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or module not in ALLOWED_MODULES:
            self.bad(
                node, f"`from {'.' * node.level}{module} import ...` is not allowed; tools may import only {_allowed()}"
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
