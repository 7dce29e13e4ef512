"""``awm export``: task datasets (one row per task instance) and trajectories, as JSONL or Parquet.

Rows have one type per column, so ``datasets``, pandas, verl, SkyRL and prime-rl read them without
guessing: nested values whose shape varies from row to row (tool schemas, answer schemas, diffs,
reward channels) are JSON text; ``prompt`` is the chat message list (system + user) that TRL's and
verl's ``prompt`` column expects; ``extra_info`` carries what an environment needs to rebuild the
episode (``gym.make(env_id, world=..., tasks=...)`` then ``reset(options={"task_id": task_id})``).
Parquet is written by DuckDB from a JSONL staging file with the schema stated column by column.

Splits are disjoint by construction (``SPLIT_WORLDS``): the canonical world (the fixed tasks, and template
instances drawn on it) belongs to the train split only, and each split builds its worlds from its own block
of world seeds, so no (env, task id, world) row is in two splits.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from awm.errors import AwmError
from awm.model.registry import Registry
from awm.model.templates import parse_instance_id
from awm.model.world import CompiledTask, World, stable_int
from awm.runtime.actions import agent_tools
from awm.runtime.chat import system_prompt
from awm.worldgen import Scale, WorldKey


class ExportFormat(StrEnum):
    jsonl = "jsonl"
    parquet = "parquet"


class ExportError(AwmError):
    """Nothing to export, an export that would cross splits, or an instance whose gold solution does not score."""


class Split(StrEnum):
    train = "train"
    validation = "validation"
    test = "test"


# Each split's block of world seeds. The canonical world is the train split's alone (see ``ExportPlan.check``).
SPLIT_WORLDS: dict[Split, range] = {
    Split.train: range(0, 1_000_000),
    Split.test: range(1_000_000, 2_000_000),
    Split.validation: range(2_000_000, 3_000_000),
}


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
    """Which instances: every fixed task once and/or ``per_template`` instances of every template.

    ``fixed=None`` and ``start_world=None`` take the split's defaults: fixed tasks in the train split only,
    world seeds from the first of the split's block (``SPLIT_WORLDS``)."""

    envs: Sequence[str]
    per_template: int = 10
    seed: int = 0
    random_worlds: bool = True
    scale: Scale = Scale.small
    distractors: bool = False
    num_worlds: int = 0
    start_world: int | None = None
    fixed: bool | None = None
    templates: bool = True
    split: str = Split.train
    verify: bool = True
    require_builders: bool = True  # False: an env without world.py gives its fixed tasks only
    registry: Registry = field(default_factory=Registry, compare=False)

    @property
    def split_worlds(self) -> range:
        """The world seeds that belong to this plan's split."""
        try:
            return SPLIT_WORLDS[Split(self.split)]
        except ValueError:
            raise ExportError(f"unknown split {self.split!r}: use {', '.join(Split)}") from None

    @property
    def include_fixed(self) -> bool:
        return self.split == Split.train if self.fixed is None else self.fixed

    @property
    def first_world(self) -> int:
        return self.split_worlds.start if self.start_world is None else self.start_world

    def world_seed(self, i: int) -> int:
        """The seed of the world that instance ``i`` of every template is drawn in."""
        index = (self.seed + i) % self.num_worlds if self.num_worlds else self.seed + i
        return self.first_world + index

    def check(self) -> None:
        """Refuse a plan whose rows could also be in another split."""
        block = self.split_worlds
        span = f"world seeds {block.start}-{block.stop - 1}"
        if self.split != Split.train and self.include_fixed:
            raise ExportError(
                f"--split {self.split} with fixed tasks: they are on the canonical world, which belongs to the "
                "train split only (leave out --fixed)"
            )
        if not (self.templates and self.per_template):
            return
        if not self.random_worlds:
            if self.split != Split.train:
                raise ExportError(
                    f"--split {self.split} on the canonical world: it belongs to the train split only; "
                    f"the {self.split} split draws built worlds from {span}"
                )
            return
        if self.first_world not in block:
            raise ExportError(f"--start-world {self.first_world} is outside the {self.split} split's {span}")
        outside = [s for s in map(self.world_seed, range(self.per_template)) if s not in block]
        if outside:
            raise ExportError(
                f"world seed {outside[0]} (--start-world {self.first_world}, --seed {self.seed}, --per-template "
                f"{self.per_template}) is outside the {self.split} split's {span}"
            )


@dataclass
class ExportResult:
    rows: int = 0
    skipped_duplicates: int = 0
    worlds: int = 0
    fixed_rows: int = 0
    instance_rows: int = 0
    world_seeds: tuple[int, int] | None = None  # the lowest and highest seed of the built worlds used
    per_env: dict[str, int] = field(default_factory=dict)
    without_builder: list[str] = field(default_factory=list)  # envs whose templates were left out


def describe(plan: ExportPlan, result: ExportResult) -> dict[str, Any]:
    """What an exported file holds (printed by ``awm export``, and the Parquet file's ``awm_export`` metadata)."""
    block = plan.split_worlds
    return {
        "split": str(plan.split),
        "split_world_seeds": [block.start, block.stop - 1],
        "envs": dict(result.per_env),
        "fixed_tasks": plan.include_fixed,
        "fixed_rows": result.fixed_rows,
        "world": "random" if plan.random_worlds else "canonical",
        "world_seeds": list(result.world_seeds) if result.world_seeds else None,
        "built_worlds": result.worlds,
        "scale": str(plan.scale),
        "distractors": plan.distractors,
        "seed": plan.seed,
        "per_template": plan.per_template,
        "template_instances": result.instance_rows,
        "skipped_duplicates": result.skipped_duplicates,
        "templates_left_out": list(result.without_builder),
        "rows": result.rows,
    }


def task_rows(plan: ExportPlan, result: ExportResult | None = None) -> Iterator[dict[str, Any]]:
    """The dataset's rows, deterministic from the plan (checked first: ``ExportPlan.check``)."""
    plan.check()
    result = result if result is not None else ExportResult()
    seen_worlds: set[tuple[str, WorldKey]] = set()
    for env in plan.envs:
        base = plan.registry.load(env)
        seen: set[str] = set()
        count = 0
        if plan.include_fixed:
            for tid in base.task_ids:
                yield _row(base, base.tasks[tid], plan, count)
                count += 1
                result.fixed_rows += 1
        if plan.templates and base.templates and plan.random_worlds and base.files.builder_path is None:
            if plan.require_builders:
                raise ExportError(f"{env} has no world builder: export its templates with --world canonical")
            result.without_builder.append(env)
        elif plan.templates and base.templates:
            for i in range(plan.per_template):
                if plan.random_worlds:
                    key = WorldKey(plan.world_seed(i), plan.scale, plan.distractors)
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
                    result.instance_rows += 1
        result.per_env[env] = count
        result.rows += count
    result.worlds = len(seen_worlds)
    seeds = [k.seed for _, k in seen_worlds if k.seed is not None]
    result.world_seeds = (min(seeds), max(seeds)) if seeds else None


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
            "split": str(plan.split),
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


def write(
    rows: Iterable[dict[str, Any]],
    out: Path,
    fmt: ExportFormat,
    columns: dict[str, str],
    metadata: Callable[[], dict[str, Any]] | None = None,
) -> int:
    """Write ``rows`` (keys exactly ``columns``) to ``out``; returns the row count. ``metadata`` (called once
    the rows are written) becomes a Parquet file's ``awm_export`` key-value metadata, as JSON text; JSONL has
    no place for it."""
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
        kv = f", KV_METADATA {{awm_export: {_sql_text(json.dumps(metadata(), sort_keys=True))}}}" if metadata else ""
        con = duckdb.connect()
        try:
            con.execute(
                f"COPY (SELECT * FROM read_json(?, format = 'newline_delimited', columns = {{{cols}}})) "
                f"TO {_sql_text(str(out))} (FORMAT parquet{kv})",
                [str(staged)],
            )
        finally:
            con.close()
    return n


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def read_metadata(path: Path) -> dict[str, Any] | None:
    """A Parquet export's ``awm_export`` metadata (``describe``), or None."""
    import duckdb

    con = duckdb.connect()
    try:
        rows = con.execute("SELECT key, value FROM parquet_kv_metadata(?)", [str(path)]).fetchall()
    finally:
        con.close()
    for key, value in rows:
        if bytes(key) == b"awm_export":
            data = json.loads(bytes(value))
            return data if isinstance(data, dict) else None
    return None


@dataclass(frozen=True)
class TaskRef:
    """A dataset row resolved in its own environment."""

    env: str
    task_id: str
    world: str  # the world's label: ``c`` (canonical) or that of a built world
    where: str  # ``path:line`` (JSONL) or ``path row N`` (Parquet), for messages

    @property
    def key(self) -> str:
        """``env/task_id``: task ids cannot hold a ``/``, so this names the task in one environment only."""
        return f"{self.env}/{self.task_id}"


def _dataset_rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    if not path.is_file():
        raise ExportError(f"{path}: no such file")
    if path.suffix == ".parquet":
        import duckdb

        con = duckdb.connect()
        try:
            cur = con.execute("SELECT * FROM read_parquet(?)", [str(path)])
            names = [d[0] for d in cur.description or []]
            records = cur.fetchall()
        except duckdb.Error as e:
            raise ExportError(f"{path}: cannot read it as Parquet: {e}") from None
        finally:
            con.close()
        for n, values in enumerate(records, start=1):
            yield f"{path} row {n}", dict(zip(names, values, strict=True))
        return
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                row = json.loads(line)
            except ValueError:
                raise ExportError(f"{path}:{n}: not a JSON row") from None
            if not isinstance(row, dict):
                raise ExportError(f"{path}:{n}: not a JSON object")
            yield f"{path}:{n}", row


def read_task_rows(path: Path, registry: Registry) -> list[TaskRef]:
    """The rows of a dataset from ``awm export`` (JSONL or Parquet), in order, each resolved by its own
    environment (``env``, else ``extra_info.env``), task id and world, never by task id alone: the same task
    id may be in several environments. A row naming an unknown environment or task, or a world its task is
    not on, is an error naming the row."""
    refs, known = [], set(registry.names())
    for where, row in _dataset_rows(path):
        extra = row.get("extra_info")
        extra = extra if isinstance(extra, dict) else {}
        env, task_id, label = row.get("env") or extra.get("env"), row.get("task_id"), row.get("world")
        if not isinstance(env, str) or not env:
            raise ExportError(f"{where}: the row names no environment (an env column, or extra_info.env)")
        if not isinstance(task_id, str) or not task_id:
            raise ExportError(f"{where}: the row has no task_id")
        if env not in known:
            raise ExportError(f"{where}: unknown environment {env!r} (task {task_id})")
        try:
            world = registry.load(env)
        except AwmError as e:
            raise ExportError(f"{where}: {env}: {e}") from None
        inst = parse_instance_id(task_id)
        if task_id in world.task_ids:
            on = "c"
        elif inst is not None and inst[0] in world.templates:
            try:
                world.resolve(task_id)
            except AwmError as e:
                raise ExportError(f"{where}: {env} {task_id}: {e}") from None
            on = inst[1]
        else:
            raise ExportError(f"{where}: no task {task_id!r} in {env}")
        if label is not None and label != on:
            raise ExportError(f"{where}: {env} {task_id} is on world {on}, but the row says world {label!r}")
        refs.append(TaskRef(env, task_id, on, where))
    return refs
