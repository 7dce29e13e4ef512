"""The layers of ``docs/ARCHITECTURE.md`` hold: a module of ``awm/`` imports only from its own layer or the layers
below it, and the parts of ``awm/`` (its top-level modules and packages) import one another without a circle.

Every import counts, a function's lazy import too; only imports under ``if TYPE_CHECKING:`` (annotations) do not.
The one known exception is listed in ``ALLOWED`` with its reason, and ``docs/ARCHITECTURE.md`` names it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "ARCHITECTURE.md").read_text()

# the layers, lowest first: the table of docs/ARCHITECTURE.md, part by part (a part: awm/<name>.py or awm/<name>/)
LAYERS: dict[str, list[str]] = {
    # what bundle code imports (tools.py: tooling; world.py: worldgen, a facade of worldctx), and small shared pieces
    "foundations": ["errors", "tooling", "worldctx", "worldgen", "listen", "console", "llm_http"],
    "bundle": ["bundle"],
    "sql": ["sql"],
    "judge": ["judge"],
    "isolation": ["isolation"],
    "environment model": ["model"],
    "runtime": ["runtime"],
    "proof": ["proof"],
    "surfaces": ["__init__", "gym", "serve", "remote", "eval", "data", "train", "dist", "view"],
    "authoring": ["gen", "importers"],
    "command line": ["cli"],  # every command: surfaces and authoring alike
}
RANK = {part: rank for rank, parts in enumerate(LAYERS.values()) for part in parts}
# (file, imported part): the one known upward import, in that one file
ALLOWED = {("awm/model/world.py", "runtime"): "World.episode() creates an episode (a lazy import)"}


def parts_of(package: Path) -> set[str]:
    return {p.stem if p.is_file() else p.name for p in package.iterdir() if _is_part(p)}


def _is_part(p: Path) -> bool:
    return (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists())) and p.name != "__pycache__"


def imports(package: Path) -> Iterator[tuple[str, str, str]]:
    """(part, imported part, where) for every import between two parts of ``package`` (``awm`` in the tests),
    outside ``if TYPE_CHECKING:`` blocks."""
    name = package.name
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(package)
        part = rel.parts[0].removesuffix(".py") if len(rel.parts) > 1 or rel.name != "__init__.py" else "__init__"
        module = ".".join((name, *rel.with_suffix("").parts)).removesuffix(".__init__")
        here = module if path.name == "__init__.py" else module.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = {
            id(node)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for stmt in block.body
            for node in ast.walk(stmt)
        }
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join([*up, *([node.module] if node.module else [])])
                # `from awm.judge import verify` imports the part `verify`; `from awm import __version__` the package
                targets = [f"{base}.{a.name}" for a in node.names] if base == name else [base]
            for target in targets:
                bits = target.split(".")
                if bits[0] != name:
                    continue
                named = len(bits) > 1 and ((package / bits[1]).is_dir() or (package / f"{bits[1]}.py").is_file())
                other = bits[1] if named else "__init__"
                if other != part:
                    yield part, other, f"{path.relative_to(package.parent)}:{node.lineno}"


def _allowed(where: str, other: str) -> bool:
    return (where.rpartition(":")[0], other) in ALLOWED


def upward(package: Path) -> list[str]:
    """Imports from a part to a part of a higher layer (or of no layer), except the allowed ones."""
    out = []
    for part, other, where in imports(package):
        if _allowed(where, other):
            continue
        if part not in RANK or other not in RANK:
            out.append(f"{where}: {part} -> {other}: a part with no layer (add it to LAYERS and the doc's table)")
        elif RANK[other] > RANK[part]:
            out.append(f"{where}: {part} ({_layer(part)}) imports {other} ({_layer(other)}), a higher layer")
    return out


def circles(package: Path) -> list[list[str]]:
    """The groups of parts that import one another in a circle (strongly connected, more than one part)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for part, other, where in imports(package):
        if not _allowed(where, other):
            graph[part].add(other)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(list(graph)):
        if v not in index:
            visit(v)
    return found


def _layer(part: str) -> str:
    return next(layer for layer, parts in LAYERS.items() if part in parts)


def test_no_part_of_awm_imports_a_higher_layer() -> None:
    problems = upward(ROOT / "awm")
    assert not problems, "\n".join(problems)


def test_the_parts_of_awm_import_one_another_without_a_circle() -> None:
    assert circles(ROOT / "awm") == []


def test_every_part_has_a_layer_and_the_doc_names_it() -> None:
    parts = parts_of(ROOT / "awm") - {"_data"}  # _data: the bundles a wheel carries (no code)
    assert parts <= set(RANK), sorted(parts - set(RANK))
    for part in set(RANK) - {"__init__"}:
        shown = f"`{part}/`" if (ROOT / "awm" / part).is_dir() else f"`{part}`"
        assert shown in DOC, f"docs/ARCHITECTURE.md's table does not name {shown}"
    assert "World.episode" in DOC  # the allowed exception is documented


@pytest.fixture
def tangled(tmp_path: Path) -> Path:
    """A package with an upward import (base -> top) and a circle (mid <-> top)."""
    pkg = tmp_path / "awm"
    (pkg / "top").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "errors.py").write_text("def helper():\n    from awm.cli import main  # lazy, still counted\n")
    (pkg / "model.py").write_text("from awm import errors\nfrom typing import TYPE_CHECKING\n")
    (pkg / "runtime.py").write_text("from awm.model import x\nif TYPE_CHECKING:\n    from awm.cli import y\n")
    (pkg / "cli.py").write_text("from awm.runtime import z\n")
    (pkg / "top" / "__init__.py").write_text("from . import inner\n")
    (pkg / "top" / "inner.py").write_text("from ..errors import helper\n")
    return pkg


def test_the_checks_find_an_upward_import_and_a_circle(tangled: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = upward(tangled)
    assert any("errors (foundations) imports cli (command line)" in p for p in found), found
    assert any("top -> errors: a part with no layer" in p for p in found), found
    assert not any("runtime" in p and "cli" in p for p in found)  # under TYPE_CHECKING: not counted
    assert circles(tangled) == [["cli", "errors", "model", "runtime"]]  # errors -> cli -> runtime -> model -> errors
