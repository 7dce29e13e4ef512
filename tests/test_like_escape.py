"""LIKE-safe searches: what the agent types is text, never a wildcard."""

import ast
import re
import sqlite3
from pathlib import Path

import pytest

from awm.tooling import like_contains, like_escape, like_prefix

ENVS = Path(__file__).resolve().parents[1] / "envs"
TOOLS = sorted(ENVS.glob("*/tools.py"))


def test_patterns_escape_wildcards_and_the_escape_character():
    assert like_contains("50%_off\\") == "%50\\%\\_off\\\\%"
    assert like_prefix("Ab_") == "Ab\\_%" and like_contains("AB", lower=True) == "%ab%"
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('50% off'), ('50 off'), ('a_b'), ('axb'), ('c\\d');"
    )

    def hits(text: str) -> list[str]:
        sql = "SELECT v FROM t WHERE v LIKE ? ESCAPE '\\' ORDER BY v"
        return [r[0] for r in conn.execute(sql, (like_contains(text),))]

    assert hits("%") == ["50% off"] and hits("_") == ["a_b"] and hits("\\") == ["c\\d"]
    assert hits("off") == ["50 off", "50% off"] and hits("") == sorted(["50% off", "50 off", "a_b", "axb", "c\\d"])
    assert like_escape("plain") == "plain"


def test_the_scan_sees_sql_and_not_prose() -> None:
    source = '''def f(db):
    """A LIKE pattern, in prose."""
    db.query("SELECT 1 FROM t WHERE a LIKE ? ESCAPE '\\\\' "
             "OR b LIKE ?", (1, 2))
'''
    sql = sql_strings(source)
    assert "prose" not in sql
    assert len(re.findall(r"\bLIKE\b", sql)) == 2
    assert len(re.findall(r"\bLIKE\s+(?:\?|:\w+)\s+ESCAPE\s+'\\'", sql)) == 1


def sql_strings(source: str) -> str:
    """Every string literal of ``source`` but its docstrings (prose may say "a LIKE pattern"), as the parser
    joins them: SQL split over several lines is one string."""
    tree = ast.parse(source)
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return "\n".join(
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    )


@pytest.mark.parametrize("path", TOOLS, ids=lambda p: p.parent.name)
def test_every_like_in_the_catalog_declares_its_escape(path: Path):
    sql = sql_strings(path.read_text())
    likes = len(re.findall(r"\bLIKE\b", sql))
    escaped = len(re.findall(r"\bLIKE\s+(?:\?|:\w+)\s+ESCAPE\s+'\\'", sql))
    assert likes == escaped, (
        f"{path.parent.name}: {likes - escaped} LIKE without ESCAPE '\\' (use awm.tooling.like_contains)"
    )


def _wildcard_dumps(env: str) -> list[str]:
    """Read tools whose text argument, given only wildcards, answers differently from a nonsense word."""
    from awm.bundle.samples import probe_cases
    from awm.model.registry import default_registry

    world = default_registry().load(env)
    task = world.task_ids[0]
    out, seen = [], set()
    for td, args in probe_cases(world):
        if td.write:
            continue
        for name, schema in td.parameters.get("properties", {}).items():
            kinds = {schema.get("type")} | {s.get("type") for s in schema.get("anyOf", [])}
            if "string" not in kinds or "enum" in schema or (td.name, name) in seen:
                continue
            seen.add((td.name, name))
            results = []
            for text in ("%%%%", "____", "qzxqzxqzx"):
                ep = world.episode(task)
                res = ep.call(td.name, {**args, name: text})
                ep.close()
                results.append(repr(res.result) if res.ok else res.error.code if res.error else "")
            if results[0] != results[2] or results[1] != results[2]:
                out.append(f"{td.name}({name}=...): wildcards answer {results[0][:80]} / nonsense {results[2][:80]}")
    return out


@pytest.mark.parametrize("env", ["online_store", "clinic", "project_tracker", "email", "hotel"])
def test_wildcards_typed_by_the_agent_list_nothing(env):
    assert _wildcard_dumps(env) == []
