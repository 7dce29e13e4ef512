"""Static allow-list checks of imported AWM code, run before it is ever executed.

``check_app_code``: AWM's generated FastAPI + SQLAlchemy app (``awm_app.py``). ``check_verifier_code``: AWM's
verifier functions (``verify_*.py``). Both in the spirit of ``awm.gen.safety``: imports only from an allow-
list; no ``open``/``exec``/``eval``/``compile``/``__import__``/``globals``-style builtins; no dunder attribute
access beyond what ORM models need; no ``global`` state. An app may read ``os`` only through
``os.environ.get`` / ``os.getenv`` (for ``DATABASE_PATH``, ``HOST``, ``PORT``), and raw ``text()`` SQL must be
a literal; nothing that serves files (``FileResponse``, ``StaticFiles``) or opens another database
(``create_engine`` other than ``sqlalchemy.create_engine``, which the runtime binds). The checks are defence
in depth: apps run with a restricted ``__import__`` and guarded ``getattr``/``setattr``
(``awm.importers.runtime``), and SQL runs under an authorizer; verifiers run in a child process with a
scrubbed environment and resource limits.
"""

from __future__ import annotations

import ast

from awm.gen.safety import FORBIDDEN_NAMES as TOOL_FORBIDDEN_NAMES

APP_MODULES = frozenset(
    {
        "__future__",
        "fastapi",
        "pydantic",
        "sqlalchemy",
        "typing",
        "typing_extensions",
        "datetime",
        "enum",
        "decimal",
        "json",
        "math",
        "re",
        "uuid",
        "uvicorn",
        "os",
        "collections",
        "dataclasses",
        "functools",
        "itertools",
        "string",
    }
)
VERIFIER_MODULES = frozenset(
    {
        "__future__",
        "sqlite3",
        "json",
        "re",
        "datetime",
        "math",
        "collections",
        "typing",
        "decimal",
        "itertools",
        "functools",
        "statistics",
        "string",
    }
)
# builtins an app may name only through the guarded versions the runtime gives it
GUARDED_BUILTINS = frozenset({"getattr", "setattr", "hasattr"})
# the builtins a generated tool may not name (``awm.gen.safety``), less what AWM apps legitimately use:
# the class machinery of ORM and pydantic models, and getattr/setattr/hasattr (guarded by the runtime)
CLASS_MACHINERY = frozenset({"object", "super", "classmethod", "staticmethod", "property"})
FORBIDDEN_NAMES = (TOOL_FORBIDDEN_NAMES - GUARDED_BUILTINS - CLASS_MACHINERY) | {
    "input",
    "__builtins__",
    "__loader__",
    "__spec__",
}
# dunders ORM models and pydantic classes legitimately touch
ALLOWED_DUNDERS = frozenset(
    {"__tablename__", "__table_args__", "__table__", "__mapper_args__", "__abstract__", "__init__", "__name__"}
)
FORBIDDEN_METHODS = frozenset(
    {"exec_driver_sql", "executescript", "set_authorizer", "enable_load_extension", "load_extension", "backup"}
)
# attribute names that reach a dangerous module or call through an allowed package's internals (not
# ``code``: the stdlib module is not reachable from the allowed packages, and "code" is a common column)
FORBIDDEN_ATTRIBUTES = frozenset(
    {"os", "sys", "subprocess", "builtins", "importlib", "socket", "shutil", "pathlib", "ctypes", "pickle"}
    | {"marshal", "io", "threading", "multiprocessing", "signal", "inspect", "gc", "types", "system"}
    | {"popen", "spawn", "fork", "execv", "execve", "remove", "unlink", "rmtree"}
)
# names that reach files or other databases through an allowed package (an app talks to its own database
# only through the runtime's engine: ``sqlalchemy.create_engine`` / ``from sqlalchemy import create_engine``)
FORBIDDEN_APP_NAMES = frozenset(
    {"FileResponse", "StaticFiles", "TestClient", "Jinja2Templates", "create_async_engine", "engine_from_config"}
    | {"create_mock_engine", "URL", "make_url", "staticfiles", "testclient", "templating"}
)
MAX_SOURCE = 500_000


def check_app_code(source: str) -> list[str]:
    """Every reason AWM app code ``source`` may not run; an empty list means it passed."""
    return _check(source, "awm_app.py", APP_MODULES, app=True)


def check_verifier_code(source: str) -> list[str]:
    """Every reason verifier code ``source`` may not run; an empty list means it passed."""
    return _check(source, "verifier", VERIFIER_MODULES, app=False)


def _check(source: str, filename: str, modules: frozenset[str], *, app: bool) -> list[str]:
    if len(source) > MAX_SOURCE:
        return [f"{filename} is {len(source)} characters; the limit is {MAX_SOURCE}"]
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as e:
        return [f"{filename} does not parse: line {e.lineno}: {e.msg}"]
    checker = _Checker(modules, app=app)
    checker.visit(tree)
    return checker.problems


class _Checker(ast.NodeVisitor):
    def __init__(self, modules: frozenset[str], *, app: bool) -> None:
        self.modules = modules
        self.app = app
        self.problems: list[str] = []
        self.os_names: set[str] = set()

    def bad(self, node: ast.AST, message: str) -> None:
        text = f"line {getattr(node, 'lineno', '?')}: {message}"
        if text not in self.problems and len(self.problems) < 30:
            self.problems.append(text)

    def _allowed(self, module: str) -> bool:
        return module.split(".")[0] in self.modules

    # -- imports ---------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not self._allowed(alias.name):
                self.bad(node, f"`import {alias.name}` is not allowed; allowed: {_show(self.modules)}")
            elif alias.name == "os":
                self.os_names.add(alias.asname or "os")
            elif alias.name.startswith("os."):
                self.bad(node, f"`import {alias.name}` is not allowed; read settings with os.environ.get")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or not self._allowed(module):
            self.bad(
                node, f"`from {'.' * node.level}{module} import ...` is not allowed; allowed: {_show(self.modules)}"
            )
            return
        if self.app and module.startswith("sqlalchemy.") and any(a.name == "create_engine" for a in node.names):
            self.bad(node, f"`from {module} import create_engine` is not allowed; use sqlalchemy.create_engine")
        if self.app and (set(module.split(".")) & FORBIDDEN_APP_NAMES):
            self.bad(node, f"`from {module} import ...` is not allowed (it serves files)")
        for alias in node.names:
            if self.app and alias.name in FORBIDDEN_APP_NAMES:
                self.bad(node, f"`{alias.name}` is not allowed in an imported app (files, other databases)")
            if alias.name == "*":
                self.bad(node, f"`from {module} import *` is not allowed; import names explicitly")
            elif module.split(".")[0] == "os" and (module != "os" or alias.name != "getenv"):
                self.bad(node, f"`from {module} import {alias.name}` is not allowed; use os.environ.get or os.getenv")

    # -- state -----------------------------------------------------------------------------------
    def visit_Global(self, node: ast.Global) -> None:
        self.bad(node, "`global` is not allowed: state lives in the database")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.bad(node, "`nonlocal` is not allowed: state lives in the database")

    # -- names and attributes --------------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if self.app and node.id in FORBIDDEN_APP_NAMES:
            self.bad(node, f"`{node.id}` is not allowed in an imported app (files, other databases)")
        elif node.id in FORBIDDEN_NAMES or (not self.app and node.id in GUARDED_BUILTINS):
            self.bad(node, f"`{node.id}` is not allowed")
        elif node.id.startswith("__") and node.id not in ALLOWED_DUNDERS:
            self.bad(node, f"dunder name `{node.id}` is not allowed")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr.startswith("__") and attr not in ALLOWED_DUNDERS:
            self.bad(node, f"access to dunder attribute `.{attr}` is not allowed")
        elif attr in FORBIDDEN_METHODS or attr in FORBIDDEN_ATTRIBUTES:
            self.bad(node, f"`.{attr}` is not allowed")
        elif self.app and attr in FORBIDDEN_APP_NAMES:
            self.bad(node, f"`.{attr}` is not allowed in an imported app (files, other databases)")
        elif (
            self.app
            and attr == "create_engine"
            and not (isinstance(node.value, ast.Name) and node.value.id == "sqlalchemy")
        ):
            self.bad(node, "only sqlalchemy.create_engine may make an engine (it is bound to the episode's database)")
        elif isinstance(node.value, ast.Name) and node.value.id in self.os_names and attr not in ("environ", "getenv"):
            self.bad(node, f"`os.{attr}` is not allowed; only os.environ.get and os.getenv")
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if _is_os_environ(node.value, self.os_names) and isinstance(node.ctx, ast.Store | ast.Del):
            self.bad(node, "writing os.environ is not allowed")
        self.generic_visit(node)

    # -- calls -----------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute):
            if _is_os_environ(func.value, self.os_names) and func.attr != "get":
                self.bad(node, f"`os.environ.{func.attr}()` is not allowed; only os.environ.get")
            if self.app and func.attr in ("text", "execute"):
                self._literal_sql(node, func.attr)
        elif self.app and isinstance(func, ast.Name) and func.id == "text":
            self._literal_sql(node, "text")
        self.generic_visit(node)

    def _literal_sql(self, node: ast.Call, what: str) -> None:
        arg = node.args[0] if node.args else None
        if isinstance(arg, ast.JoinedStr | ast.BinOp) or (
            isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "format"
        ):
            self.bad(node, f"`{what}()` with string-built SQL is not allowed; bind values as parameters")


def _is_os_environ(node: ast.expr, os_names: set[str]) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id in os_names
    )


def _show(modules: frozenset[str]) -> str:
    return ", ".join(sorted(m for m in modules if m != "__future__"))
