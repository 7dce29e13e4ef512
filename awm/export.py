"""``awm export``: task datasets (one row per task instance) and trajectories, as JSONL or Parquet.

Rows have one type per column, so ``datasets``, pandas, verl, SkyRL and prime-rl read them without
guessing: nested values whose shape varies from row to row (tool schemas, answer schemas, diffs,
reward channels) are JSON text; ``prompt`` is the chat message list (system + user) that TRL's and
verl's ``prompt`` column expects; ``extra_info`` carries what an environment needs to rebuild the
episode (``gym.make(env_id, world=..., tasks=...)`` then ``reset(options={"task_id": task_id})``).
Parquet is written by DuckDB from a JSONL staging file with the schema stated column by column.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from awm.actions import agent_tools
from awm.chat import system_prompt
from awm.errors import AwmError
from awm.registry import Registry
from awm.world import CompiledTask, World, stable_int
from awm.worldgen import Scale, WorldKey


class ExportFormat(StrEnum):
    jsonl = "jsonl"
    parquet = "parquet"


class ExportError(AwmError):
    """Nothing to export, or an instance whose gold solution does not score."""


TASK_COLUMNS: dict[str, str] = {
    "data_source": "VARCHAR",
    "env_id": "VARCHAR",
    "env": "VARCHAR",
    "task_id": "VARCHAR",
    "template": "VARCHAR",
    "world": "VARCHAR",
    "world_seed": "BIGINT",
    "scale": "VARCHAR",
    "kind": "VARCHAR",
    "instruction": "VARCHAR",
    "answer_schema": "VARCHAR",
    "prompt": "STRUCT(role VARCHAR, content VARCHAR)[]",
    "tools": "VARCHAR",
    "steps": "INTEGER",
    "write_steps": "INTEGER",
    "near_duplicates": "INTEGER",
    "underspecified": "BOOLEAN",
    "world_distractors": "BOOLEAN",
    "env_class": "VARCHAR",
    "extra_info": "STRUCT(env VARCHAR, task_id VARCHAR, world VARCHAR, template VARCHAR, split VARCHAR, index BIGINT)",
}

TRAJECTORY_COLUMNS: dict[str, str] = {
    "run_id": "VARCHAR",
    "env_id": "VARCHAR",
    "task_id": "VARCHAR",
    "task_kind": "VARCHAR",
    "instruction": "VARCHAR",
    "seed": "BIGINT",
    "outcome": "DOUBLE",
    "truncated": "BOOLEAN",
    "total_reward": "DOUBLE",
    "num_steps": "INTEGER",
    "steps": (
        "STRUCT(action VARCHAR, observation VARCHAR, tool VARCHAR, ok BOOLEAN, error_code VARCHAR, "
        "error_message VARCHAR, diff VARCHAR, reward DOUBLE, reward_components VARCHAR)[]"
    ),
}


@dataclass(frozen=True)
class ExportPlan:
    """Which instances: every fixed task once and/or ``per_template`` instances of every template."""

    envs: Sequence[str]
    per_template: int = 10
    seed: int = 0
    random_worlds: bool = True
    scale: Scale = Scale.small
    distractors: bool = False
    num_worlds: int = 0
    start_world: int = 0
    fixed: bool = True
    templates: bool = True
    split: str = "train"
    verify: bool = True
    require_builders: bool = True  # False: an env without world.py gives its fixed tasks only
    registry: Registry = field(default_factory=Registry, compare=False)


@dataclass
class ExportResult:
    rows: int = 0
    skipped_duplicates: int = 0
    worlds: int = 0
    per_env: dict[str, int] = field(default_factory=dict)
    without_builder: list[str] = field(default_factory=list)  # envs whose templates were left out


def task_rows(plan: ExportPlan, result: ExportResult | None = None) -> Iterator[dict[str, Any]]:
    """The dataset's rows, deterministic from the plan."""
    result = result if result is not None else ExportResult()
    seen_worlds: set[tuple[str, WorldKey]] = set()
    for env in plan.envs:
        base = plan.registry.load(env)
        seen: set[str] = set()
        count = 0
        if plan.fixed:
            for tid in base.task_ids:
                yield _row(base, base.tasks[tid], plan, count)
                count += 1
        if plan.templates and base.templates and plan.random_worlds and base.files.builder_path is None:
            if plan.require_builders:
                raise ExportError(f"{env} has no world builder: export its templates with --world canonical")
            result.without_builder.append(env)
        elif plan.templates and base.templates:
            for i in range(plan.per_template):
                if plan.random_worlds:
                    index = (plan.seed + i) % plan.num_worlds if plan.num_worlds else plan.seed + i
                    key = WorldKey(plan.start_world + index, plan.scale, plan.distractors)
                    world = plan.registry.world(env, key)
                    seen_worlds.add((env, key))
                else:
                    world = base
                for tid in world.template_ids:
                    vague = bool(world.templates[tid].task.underspecified_instruction) and (
                        stable_int("phrasing", plan.seed, tid, i) % 2 == 1
                    )
                    ct = world.instance(tid, stable_int(plan.seed, tid, i), underspecified=vague)
                    if ct.id in seen:
                        result.skipped_duplicates += 1
                        continue
                    seen.add(ct.id)
                    if plan.verify:
                        _check_gold(world, ct)
                    yield _row(world, ct, plan, count)
                    count += 1
        result.per_env[env] = count
        result.rows += count
    result.worlds = len(seen_worlds)


def _check_gold(world: World, ct: CompiledTask) -> None:
    ep = world.episode(ct.id)
    try:
        for call in ct.verifier.gold.calls:
            res = ep.call(call.tool, call.arguments)
            if not res.ok:
                raise ExportError(f"{world.id} {ct.id}: gold call {call.tool} fails: {res.error}")
        if ep.submit(ct.verifier.gold.answer).rewards.outcome != 1.0:
            raise ExportError(f"{world.id} {ct.id}: the gold solution does not score outcome 1")
    finally:
        ep.close()


def _row(world: World, ct: CompiledTask, plan: ExportPlan, index: int) -> dict[str, Any]:
    task = ct.task
    d = task.difficulty
    writes = sum(1 for c in ct.verifier.gold.calls if world.tools[c.tool].write)
    tools = agent_tools(world, task)
    label = world.key.label
    return {
        "data_source": f"awm/{world.id}",
        "env_id": f"awm/{world.id}-v{world.version}",
        "env": world.id,
        "task_id": task.id,
        "template": task.template,
        "world": label,
        "world_seed": world.key.seed,
        "scale": "canonical" if world.key.canonical else str(world.key.scale),
        "kind": str(task.kind),
        "instruction": task.instruction,
        "answer_schema": json.dumps(task.answer.json_schema()) if task.answer else None,
        "prompt": [
            {"role": "system", "content": system_prompt(world, task=task)},
            {"role": "user", "content": task.instruction},
        ],
        "tools": json.dumps(tools, ensure_ascii=False),
        "steps": d.steps if d else len(ct.verifier.gold.calls),
        "write_steps": d.write_steps if d else writes,
        "near_duplicates": d.near_duplicates if d else 0,
        "underspecified": d.underspecified if d else False,
        "world_distractors": d.world_distractors if d else False,
        "env_class": "awm",
        "extra_info": {
            "env": world.id,
            "task_id": task.id,
            "world": label,
            "template": task.template,
            "split": plan.split,
            "index": index,
        },
    }


def trajectory_rows(paths: Iterable[Path]) -> Iterator[dict[str, Any]]:
    """Trajectory JSONL (``RecordTrajectory`` lines, or an eval run's ``results.jsonl``, whose records hold
    one each) flattened to one type per column."""
    from awm.gym.trajectory import TrajectoryRecord

    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if isinstance(data, dict) and isinstance(data.get("trajectory"), dict):
                    data = data["trajectory"]  # a line of an eval run's results.jsonl
                rec = TrajectoryRecord.model_validate(data)
            except ValidationError as e:
                first = e.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "the record"
                raise ExportError(
                    f"{path}:{n}: not a trajectory record: {where}: {first['msg']} ({e.error_count()} problem(s))"
                ) from None
            except ValueError as e:
                raise ExportError(f"{path}:{n}: not a trajectory record: not JSON: {e}") from None
            yield {
                "run_id": rec.run_id,
                "env_id": rec.env_id,
                "task_id": rec.task_id,
                "task_kind": rec.task_kind,
                "instruction": rec.instruction,
                "seed": rec.seed,
                "outcome": rec.outcome,
                "truncated": rec.truncated,
                "total_reward": rec.total_reward,
                "num_steps": len(rec.steps),
                "steps": [
                    {
                        "action": s.action if isinstance(s.action, str) else json.dumps(s.action, sort_keys=True),
                        "observation": s.observation,
                        "tool": s.tool,
                        "ok": s.ok,
                        "error_code": (s.error or {}).get("code"),
                        "error_message": (s.error or {}).get("message"),
                        "diff": json.dumps(s.diff, sort_keys=True, default=str),
                        "reward": s.reward,
                        "reward_components": json.dumps(s.reward_components, sort_keys=True, default=str),
                    }
                    for s in rec.steps
                ],
            }


def write(rows: Iterable[dict[str, Any]], out: Path, fmt: ExportFormat, columns: dict[str, str]) -> int:
    """Write ``rows`` (keys exactly ``columns``) to ``out``; returns the row count."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == ExportFormat.jsonl:
        n = 0
        part = out.with_name(out.name + ".part")  # a failed export leaves no partial file that looks complete
        try:
            with part.open("w", encoding="utf-8") as f:
                for row in rows:
                    f.write(json.dumps({c: row[c] for c in columns}, ensure_ascii=False) + "\n")
                    n += 1
            part.replace(out)
        finally:
            part.unlink(missing_ok=True)
        return n
    import duckdb

    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / "rows.jsonl"
        n = write(rows, staged, ExportFormat.jsonl, columns)
        if n == 0:
            raise ExportError("nothing to export")
        cols = ", ".join(f"'{name}': '{typ}'" for name, typ in columns.items())
        con = duckdb.connect()
        try:
            con.execute(
                f"COPY (SELECT * FROM read_json(?, format = 'newline_delimited', columns = {{{cols}}})) "
                "TO '" + str(out).replace("'", "''") + "' (FORMAT parquet)",
                [str(staged)],
            )
        finally:
            con.close()
    return n


def read_task_ids(path: Path) -> list[str]:
    """The ``task_id`` column of an exported dataset (JSONL or Parquet), in order."""
    if not path.is_file():
        raise ExportError(f"{path}: no such file")
    if path.suffix == ".parquet":
        import duckdb

        con = duckdb.connect()
        try:
            return [r[0] for r in con.execute("SELECT task_id FROM read_parquet(?)", [str(path)]).fetchall()]
        except duckdb.Error as e:
            raise ExportError(f"{path}: cannot read a task_id column: {e}") from None
        finally:
            con.close()
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                out.append(str(json.loads(line)["task_id"]))
            except (ValueError, KeyError, TypeError):
                raise ExportError(f"{path}:{n}: not a row with a task_id") from None
    return out
