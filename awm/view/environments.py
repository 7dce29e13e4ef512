"""What the viewer shows of an environment: its schema (tables, keys, relations), its seed rows, its
tools, its tasks and templates. The judge's side (gold solutions, checks, answer checks) only when the
viewer was started with ``show_answers``; an agent-facing answer *type* is always shown."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict

from awm.bundle.records import Task, TaskVerifier, VerifierTemplate
from awm.errors import AwmError
from awm.model.registry import Registry
from awm.model.world import World
from awm.tooling import quote
from awm.view.errors import UnknownTableError

MAX_PAGE = 500


class ForeignKey(BaseModel):
    model_config = ConfigDict(frozen=True)
    table: str
    column: str


class Column(BaseModel):
    model_config = ConfigDict(frozen=True)
    name: str
    type: str
    pk: bool
    notnull: bool
    default: str | None
    fk: ForeignKey | None


class TableView(BaseModel):
    model_config = ConfigDict(frozen=True)
    name: str
    columns: list[Column]
    key: list[str]
    rows: int


class TableRows(BaseModel):
    model_config = ConfigDict(frozen=True)
    table: str
    columns: list[str]
    total: int
    offset: int
    limit: int
    rows: list[list[Any]]


@contextlib.contextmanager
def _seed(world: World) -> Iterator[sqlite3.Connection]:
    """A private read-only copy of the world's initial database."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(world.seed_blob)
        conn.execute("PRAGMA query_only = ON")
        yield conn
    finally:
        conn.close()


def tables(world: World) -> list[TableView]:
    """Every table with its columns, primary key, foreign keys and seed row count."""
    out = []
    with _seed(world) as conn:
        for name, info in world.tables.items():
            fks: dict[str, ForeignKey] = {}
            for fk in conn.execute(f"PRAGMA foreign_key_list({quote(name)})").fetchall():
                parent, src, dst = fk[2], fk[3], fk[4]
                if dst is None:  # REFERENCES parent: its primary key
                    parent_key = world.tables[parent].key if parent in world.tables else ("id",)
                    dst = parent_key[fk[1]] if fk[1] < len(parent_key) else parent_key[0]
                fks[src] = ForeignKey(table=parent, column=dst)
            cols = [
                Column(name=r[1], type=r[2] or "", pk=bool(r[5]), notnull=bool(r[3]), default=r[4], fk=fks.get(r[1]))
                for r in conn.execute(f"PRAGMA table_info({quote(name)})").fetchall()
            ]
            count = conn.execute(f"SELECT count(*) FROM {quote(name)}").fetchone()[0]
            out.append(TableView(name=name, columns=cols, key=list(info.key), rows=count))
    return out


def table_rows(world: World, table: str, offset: int = 0, limit: int = 50) -> TableRows:
    """One page of a table's seed rows, in primary-key order."""
    info = world.tables.get(table)
    if info is None:
        raise UnknownTableError(f"environment {world.id!r} has no table {table!r}")
    offset, limit = max(0, offset), max(1, min(limit, MAX_PAGE))
    order = ", ".join(map(quote, info.key))
    with _seed(world) as conn:
        total = conn.execute(f"SELECT count(*) FROM {quote(table)}").fetchone()[0]
        cur = conn.execute(
            f"SELECT {', '.join(map(quote, info.columns))} FROM {quote(table)} ORDER BY {order} LIMIT ? OFFSET ?",
            (limit, offset),
        )
        rows = [list(r) for r in cur.fetchall()]
    return TableRows(table=table, columns=list(info.columns), total=total, offset=offset, limit=limit, rows=rows)


def _judge(v: TaskVerifier | VerifierTemplate) -> dict[str, Any]:
    """The judge's side of a task or template: only shown with ``show_answers``."""
    out: dict[str, Any] = {
        "gold": v.gold.model_dump(mode="json"),
        "checks": [c.model_dump(mode="json") for c in v.checks],
        "answer_check": v.answer.model_dump(mode="json", exclude_none=True) if v.answer else None,
        "free_columns": list(v.free_columns),
        "allowed_writes": [w.model_dump(mode="json", exclude_none=True) for w in v.allowed_writes],
    }
    if isinstance(v, VerifierTemplate):
        out["slots"] = v.slots
    return out


def task_view(task: Task, verifier: TaskVerifier | None, *, show_answers: bool) -> dict[str, Any]:
    """A task as the viewer shows it: what an agent is told, and the judge's side only if asked for."""
    out: dict[str, Any] = {
        "id": task.id,
        "kind": str(task.kind),
        "instruction": task.instruction,
        "answer": task.answer.model_dump(mode="json", exclude_none=True) if task.answer else None,
        "tags": list(task.tags),
        "template": task.template,
        "world": task.world,
        "difficulty": task.difficulty.model_dump() if task.difficulty else None,
    }
    if show_answers and verifier is not None:
        out["judge"] = _judge(verifier)
    return out


def summary(registry: Registry, name: str) -> dict[str, Any]:
    """One line of the environments list (a broken environment is listed with its error)."""
    entry = registry.entries().get(name)
    row: dict[str, Any] = {"env": name, "title": None, "error": entry.error if entry else None}
    if row["error"] is None:
        try:
            w = registry.load(name)
        except AwmError as e:
            row["error"] = str(e)
        else:
            row |= {
                "title": w.manifest.title,
                "description": w.manifest.description,
                "version": w.version,
                "tables": len(w.tables),
                "tools": len(w.tools),
                "tasks": len(w.task_ids),
                "templates": len(w.template_ids),
            }
    return row


def detail(world: World, *, show_answers: bool) -> dict[str, Any]:
    """Everything the environment page shows."""
    templates = []
    for t in world.templates.values():
        view: dict[str, Any] = {
            "id": t.id,
            "kind": str(t.task.kind),
            "instruction": t.task.instruction,
            "underspecified_instruction": t.task.underspecified_instruction,
            "answer": t.task.answer.model_dump(mode="json", exclude_none=True) if t.task.answer else None,
            "tags": list(t.task.tags),
        }
        if show_answers:
            view["judge"] = _judge(t.verifier)
        templates.append(view)
    return {
        "env": world.id,
        "env_id": f"awm/{world.id}-v{world.version}",
        "manifest": world.manifest.model_dump(mode="json"),
        "clock": world.clock.isoformat(),
        "tables": [t.model_dump() for t in tables(world)],
        "tools": [s.model_dump() for s in world.tool_specs()],
        "tasks": [
            task_view(ct.task, ct.verifier, show_answers=show_answers)
            for ct in (world.tasks[tid] for tid in world.task_ids)
        ],
        "templates": templates,
        "world_builder": world.files.builder_path is not None,
        "show_answers": show_answers,
    }
