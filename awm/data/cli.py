"""``awm tasks`` (list tasks and templates, or sample instances with their gold solutions) and
``awm export`` (a task dataset or trajectories as JSONL / Parquet)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from awm.console import make_console
from awm.data.export import (
    SPLIT_WORLDS,
    TASK_COLUMNS,
    TRAJECTORY_COLUMNS,
    ExportFormat,
    ExportPlan,
    ExportResult,
    Split,
    describe,
    task_rows,
    trajectory_rows,
    write,
)
from awm.model.distribution import TaskDistribution, TaskMode, WorldMode
from awm.model.registry import Registry
from awm.worldgen import Scale

console = make_console()
PathOpt = Annotated[list[str] | None, typer.Option("--path", "-p", help="extra root holding envs/ and verifiers/")]


def tasks_cmd(
    env: Annotated[str, typer.Argument(help="environment")],
    sample: Annotated[int, typer.Option("--sample", "-n", min=0, help="draw this many task instances")] = 0,
    seed: Annotated[int, typer.Option("--seed", help="the first draw's seed (draw i uses seed + i)")] = 0,
    world: Annotated[
        WorldMode | None, typer.Option("--world", help="canonical or random (default: random if the env builds worlds)")
    ] = None,
    tasks: Annotated[
        TaskMode | None, typer.Option("--tasks", help="fixed, templates or all (default: templates if any)")
    ] = None,
    scale: Annotated[Scale, typer.Option("--scale", help="size of built worlds")] = Scale.small,
    distractors: Annotated[bool, typer.Option("--distractors", help="worlds with near-duplicate rows")] = False,
    num_worlds: Annotated[
        int, typer.Option("--num-worlds", min=0, help="draw worlds from this many (0: one per seed)")
    ] = 0,
    start_world: Annotated[int, typer.Option("--start-world", min=0, help="the first world seed")] = 0,
    template: Annotated[list[str] | None, typer.Option("--template", "-t", help="only these templates")] = None,
    underspecified: Annotated[
        bool | None, typer.Option("--underspecified/--specified", help="only one phrasing (default: either)")
    ] = None,
    min_steps: Annotated[int, typer.Option("--min-steps", min=0, help="templates with at least N gold calls")] = 0,
    max_steps: Annotated[
        int | None, typer.Option("--max-steps", min=0, help="templates with at most N gold calls")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per line")] = False,
    path: PathOpt = None,
) -> None:
    """List an environment's tasks and templates, or --sample task instances with their gold solutions."""
    reg = Registry(path or [])
    base = reg.load(env)
    if not sample:
        rows: list[dict[str, Any]] = [
            {"id": t.id, "source": "task", "kind": str(t.kind), "instruction": t.instruction} for t in base.files.tasks
        ]
        rows += [
            {"id": t.id, "source": "template", "kind": str(t.task.kind), "instruction": t.task.instruction}
            for t in base.templates.values()
        ]
        if as_json:
            for r in rows:
                print(json.dumps(r, ensure_ascii=False))
            return
        table = Table("id", "source", "kind", "instruction")
        for r in rows:
            table.add_row(r["id"], r["source"], r["kind"], escape(r["instruction"]))
        console.print(table)
        return
    tasks = tasks or (TaskMode.templates if base.templates else TaskMode.fixed)
    if world is None:
        world = WorldMode.random if tasks == TaskMode.templates and base.files.builder_path else WorldMode.canonical
    dist = TaskDistribution(
        env,
        world=world,
        tasks=tasks,
        scale=scale,
        distractors=distractors,
        num_worlds=num_worlds,
        start_world=start_world,
        templates=tuple(template) if template else None,
        underspecified=underspecified,
        min_steps=min_steps,
        max_steps=max_steps,
        registry=reg,
    )
    for i in range(sample):
        w, ct = dist.draw(seed + i)
        t, v = ct.task, ct.verifier
        rec = {
            "seed": seed + i,
            "task_id": t.id,
            "world": w.key.label,
            "template": t.template,
            "kind": str(t.kind),
            "instruction": t.instruction,
            "answer_schema": t.answer.json_schema() if t.answer else None,
            "difficulty": t.difficulty.model_dump() if t.difficulty else None,
            "gold": v.gold.model_dump(mode="json"),
        }
        if as_json:
            print(json.dumps(rec, ensure_ascii=False, default=str))
            continue
        console.rule(f"seed {seed + i} · {t.id} ({t.kind}) · world {w.key.label}")
        console.print(escape(t.instruction))
        if t.difficulty:
            d = t.difficulty
            console.print(
                f"[dim]difficulty: {d.steps} steps ({d.write_steps} writes), {d.near_duplicates} near-duplicates, "
                f"{'underspecified' if d.underspecified else 'specified'}, {d.scale} world"
                f"{' with distractors' if d.world_distractors else ''}[/dim]"
            )
        for n, call in enumerate(v.gold.calls, start=1):
            console.print(f"  gold {n}. {call.tool}({json.dumps(call.arguments, ensure_ascii=False)})", markup=False)
        if t.answer is not None:
            console.print(f"  gold answer: {json.dumps(v.gold.answer, ensure_ascii=False)}", markup=False)


def export_cmd(
    out: Annotated[Path, typer.Option("--out", "-o", help="output file")],
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f", help="jsonl or parquet")] = ExportFormat.parquet,
    envs: Annotated[
        str | None, typer.Option("--envs", help="comma-separated environments (default: all with templates)")
    ] = None,
    per_template: Annotated[int, typer.Option("--per-template", min=0, help="instances of each template")] = 10,
    seed: Annotated[int, typer.Option("--seed", help="the dataset's seed")] = 0,
    world: Annotated[WorldMode, typer.Option("--world", help="random (built worlds) or canonical")] = WorldMode.random,
    scale: Annotated[Scale, typer.Option("--scale", help="size of built worlds")] = Scale.small,
    distractors: Annotated[bool, typer.Option("--distractors", help="worlds with near-duplicate rows")] = False,
    num_worlds: Annotated[int, typer.Option("--num-worlds", min=0, help="0: world seed + i for instance i")] = 0,
    start_world: Annotated[
        int | None,
        typer.Option("--start-world", min=0, help="the first world seed, in the split's seeds (default: its first)"),
    ] = None,
    fixed: Annotated[
        bool | None,
        typer.Option(
            "--fixed/--no-fixed", help="the fixed tasks (canonical world): train split only (default: in train)"
        ),
    ] = None,
    split: Annotated[
        Split,
        typer.Option(
            "--split",
            help="train (the only one with the fixed tasks), test or validation; each builds worlds from its own "
            f"seeds ({', '.join(f'{k} {r.start}-{r.stop - 1}' for k, r in SPLIT_WORLDS.items())}): no row is in two",
        ),
    ] = Split.train,
    trajectories: Annotated[
        list[Path] | None, typer.Option("--trajectories", help="export these trajectory JSONL files instead")
    ] = None,
    path: PathOpt = None,
) -> None:
    """Write a task dataset (one row per task instance, each gold-verified) or trajectories, as JSONL or Parquet."""
    if trajectories:
        n = write(trajectory_rows(trajectories), out, fmt, TRAJECTORY_COLUMNS)
        console.print(f"[green]✓[/green] {n} trajectories → {out}")
        return
    reg = Registry(path or [])
    names = [e.strip() for e in envs.split(",") if e.strip()] if envs else reg.names()
    plan = ExportPlan(
        names,
        per_template=per_template,
        seed=seed,
        random_worlds=world == WorldMode.random,
        scale=scale,
        distractors=distractors,
        num_worlds=num_worlds,
        start_world=start_world,
        fixed=fixed,
        split=split,
        require_builders=bool(envs),  # named environments must build worlds; by default, use what each has
        registry=reg,
    )
    result = ExportResult()
    write(task_rows(plan, result), out, fmt, TASK_COLUMNS, metadata=lambda: describe(plan, result))
    _print_summary(describe(plan, result), out)


def _print_summary(meta: dict[str, Any], out: Path) -> None:
    """What the file holds: split, environments, fixed tasks, worlds and instances, rows."""
    block = meta["split_world_seeds"]
    console.print(f"[green]✓[/green] {meta['rows']} rows → {escape(str(out))}")
    console.print(f"  split               {meta['split']} (its world seeds: {block[0]}-{block[1]})")
    console.print(f"  environments        {', '.join(f'{k} {v}' for k, v in meta['envs'].items()) or 'none'}")
    fixed = f"yes, {meta['fixed_rows']} (canonical world)" if meta["fixed_tasks"] else "no"
    if not meta["fixed_tasks"] and meta["split"] != Split.train:
        fixed += " (the canonical world belongs to the train split)"
    console.print(f"  fixed tasks         {fixed}")
    if meta["world"] == "canonical":
        worlds = "on the canonical world"
    elif meta["world_seeds"]:
        lo, hi = meta["world_seeds"]
        worlds = (
            f"on {meta['built_worlds']} built worlds, seeds {lo}-{hi} ({meta['scale']}"
            f"{', distractors' if meta['distractors'] else ''})"
        )
    else:
        worlds = "on no built world"
    notes = [f"{meta['skipped_duplicates']} duplicate draws skipped"] if meta["skipped_duplicates"] else []
    if meta["templates_left_out"]:
        notes.append(f"templates left out of {', '.join(meta['templates_left_out'])} (no world builder)")
    console.print(
        f"  template instances  {meta['template_instances']} {worlds}" + (f"; {'; '.join(notes)}" if notes else "")
    )
