from __future__ import annotations

import pytest

from awm.gen.safety import check_tools_source, check_world_source
from tests.gen.scripted import BIKE_TOOLS, VET_TOOLS

HEAD = "from awm.tooling import Db, ToolError, tool\n\n"


def tool_with(body: str, header: str = "") -> str:
    return HEAD + header + f'\n@tool\ndef t(db: Db, x: int = 1) -> dict:\n    """Doc."""\n{body}\n'


def test_good_tools_pass() -> None:
    assert check_tools_source(VET_TOOLS) == []
    assert check_tools_source(BIKE_TOOLS) == []


def test_parameters_may_shadow_harmless_builtins() -> None:
    src = (
        HEAD
        + '@tool\ndef t(db: Db, id: int, type: str = "a") -> dict:\n    """Doc."""\n    return {"id": id, "type": type}\n'
    )
    assert check_tools_source(src) == []


@pytest.mark.parametrize(
    ("source", "needle"),
    [
        (tool_with("    return {}", "import os\n"), "`import os` is not allowed"),
        (tool_with("    return {}", "import subprocess\n"), "`import subprocess`"),
        (tool_with("    return {}", "from socket import socket\n"), "`from socket import ...`"),
        (tool_with("    return {}", "from .x import y\n"), "not allowed"),
        (tool_with("    return {}", "from awm.model.registry import Registry\n"), "not allowed"),
        (tool_with("    return {}", "from awm.tooling import build_tool\n"), "use Db, ToolError, tool"),
        (tool_with("    return open('/etc/passwd').read()"), "`open` is not allowed"),
        (tool_with("    return eval('1')"), "`eval`"),
        (tool_with("    exec('x = 1')\n    return {}"), "`exec`"),
        (tool_with("    return __import__('os')"), "`__import__`"),
        (tool_with("    return getattr(db, 'x')"), "`getattr`"),
        (tool_with("    return ().__class__.__bases__"), "dunder attribute"),
        (tool_with("    return db._conn.execute('DROP TABLE t')"), "private or dunder attribute `._conn`"),
        (tool_with("    return db.query(f'SELECT * FROM t WHERE id = {x}')"), "string-built SQL"),
        (tool_with("    return db.query('SELECT * FROM t WHERE id = ' + str(x))"), "string-built SQL"),
        (tool_with("    return db.query('SELECT * FROM t WHERE id = %s' % x)"), "string-built SQL"),
        (tool_with("    return db.execute('DELETE FROM {}'.format('t'))"), "string-built SQL"),
        (tool_with("    sql = 'SELECT 1'\n    return db.value(sql)"), "string-built SQL"),
        (tool_with("    return db.insert(x, {})"), "table name as a string literal"),
        (tool_with("    from datetime import datetime\n    return datetime.now().isoformat()"), "wall clock"),
        (tool_with("    try:\n        return {}\n    except:\n        return {}"), "bare `except:`"),
        (tool_with("    global y\n    return {}"), "`global`"),
        (tool_with("    return hash('a')"), "`hash`"),
        (HEAD + "print('import time')\n", "module-level Expr statement is not allowed"),
        (HEAD + "X = print('abc')\n", "a module-level constant may not call print()"),
        (HEAD + "import datetime\nSTART = datetime.datetime.now()\n", "may not call datetime.datetime.now()"),
        (HEAD + "from datetime import date\nTODAY = date.today()\n", "may not call date.today()"),
        (HEAD + "class A:\n    pass\n", "classes are not allowed"),
        (HEAD + "@staticmethod\ndef f(db: Db) -> int:\n    return 1\n", "decorator"),
        (HEAD + "def f(db: Db, x: int = len('a')) -> int:\n    return 1\n", "default values must be literals"),
        (HEAD + "def f(db: Db) -> int\n", "does not parse"),
        (tool_with("    return db.conn.executescript('x')"), "`.executescript`"),
    ],
)
def test_unsafe_code_is_rejected(source: str, needle: str) -> None:
    problems = check_tools_source(source)
    assert problems, source
    assert any(needle in p for p in problems), problems


def test_module_level_string_constant_may_hold_sql() -> None:
    src = HEAD + 'SQL = "SELECT 1"\n\n@tool\ndef t(db: Db) -> int:\n    """Doc."""\n    return db.value(SQL)\n'
    assert check_tools_source(src) == []


def test_problems_carry_line_numbers() -> None:
    (problem,) = check_tools_source(tool_with("    return eval('1')"))
    assert problem.startswith("line 7:")


def test_harmless_module_constants_pass() -> None:
    src = (
        "import re\nfrom datetime import time, timedelta\nfrom decimal import Decimal\n"
        "from awm.tooling import Db, ToolError, check_limit, like_contains, tool\n\n"
        "OPEN_AT = time(8, 0)\nWINDOW = timedelta(days=30)\nCODE = re.compile(r'^[A-Z]{2}-\\d+$')\n"
        "STATUSES = frozenset({'open', 'closed'})\nRATE = Decimal('0.05')\n\n"
        '@tool\ndef t(db: Db, q: str, limit: int = 5) -> list:\n    """Doc."""\n    check_limit(limit, 50)\n'
        "    return db.query(\"SELECT 1 WHERE ? LIKE ? ESCAPE '\\\\'\", (q, like_contains(q)))\n"
    )
    assert check_tools_source(src) == []


def test_world_builders_are_linted() -> None:
    good = "from datetime import timedelta\nSTEP = timedelta(days=1)\n\ndef build(ctx):\n    return {'t': [{'id': 1, 'd': (ctx.today - STEP).isoformat()}]}\n"
    assert check_world_source(good) == []
    assert any(
        "reads the real clock" in p
        for p in check_world_source(good.replace("ctx.today - STEP", "ctx.faker.date_between()"))
    )
    assert any(
        "imports nothing from awm" in p for p in check_world_source("from awm.worldgen import WorldContext\n" + good)
    )
    assert any("`import random`" in p for p in check_world_source("import random\n" + good))
    assert any("no module-level function build" in p for p in check_world_source("def make(ctx):\n    return {}\n"))
    assert any("wall clock" in p for p in check_world_source(good.replace("ctx.today - STEP", "ctx.clock.now()")))


@pytest.mark.parametrize("prompt", ["tools", "catalog_tools"])
def test_the_prompts_example_uses_the_vocabulary_and_passes_the_lint(prompt: str) -> None:
    """The worked example each tools prompt shows the model is code the lint accepts, written with the authors'
    vocabulary (a lookup-or-refuse ``db.one(..., missing=...)`` and a state rule), so generated environments
    read like the hand-written ones."""
    from awm.gen.prompts import GENERATORS_DIR

    text = (GENERATORS_DIR / f"{prompt}.md").read_text()
    example = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert "missing=" in example and "require_status(" in example
    assert check_tools_source(example) == []
