"""``awm stats``: the catalog's figures — per environment and summarised (mean, median, p90).

Per environment: tables, tools (and write tools), seed rows, fixed tasks by kind, templates, whether it
builds randomized worlds, and its source (hand-written, generated, imported). Environments that do not
load are listed with their error and left out of the summary.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any

from awm.bundle import TaskKind
from awm.errors import AwmError
from awm.registry import Registry

FIGURES = ("tables", "tools", "write_tools", "seed_rows", "tasks", "templates")


@dataclass(frozen=True)
class EnvStats:
    env: str
    source: str
    tables: int
    tools: int
    write_tools: int
    seed_rows: int
    tasks: int
    information: int
    single_write: int
    multi_step: int
    templates: int
    world_builder: bool


def env_stats(registry: Registry, name: str) -> EnvStats:
    w = registry.load(name)
    kinds = [w.tasks[t].task.kind for t in w.task_ids]
    return EnvStats(
        env=name,
        source=w.manifest.provenance.source,
        tables=len(w.tables),
        tools=len(w.tools),
        write_tools=sum(t.write for t in w.tools.values()),
        seed_rows=sum(len(rows) for rows in w.files.seed.tables.values()),
        tasks=len(w.task_ids),
        information=kinds.count(TaskKind.information),
        single_write=kinds.count(TaskKind.single_write),
        multi_step=kinds.count(TaskKind.multi_step),
        templates=len(w.templates),
        world_builder=w.files.builder_path is not None,
    )


def p90(values: list[int]) -> float:
    """The 90th percentile, linearly interpolated (the single value for one environment)."""
    if len(values) == 1:
        return float(values[0])
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def catalog_stats(registry: Registry, names: list[str] | None = None) -> dict[str, Any]:
    """``{"environments": [...], "errors": {env: message}, "summary": {figure: {mean, median, p90, total}}}``."""
    envs: list[EnvStats] = []
    errors: dict[str, str] = {}
    for name in names or list(registry.entries()):
        try:
            envs.append(env_stats(registry, name))
        except AwmError as e:
            errors[name] = " ".join(str(e).split())
    summary: dict[str, dict[str, float]] = {}
    for fig in FIGURES:
        values = [getattr(e, fig) for e in envs]
        if values:
            summary[fig] = {
                "mean": round(statistics.fmean(values), 2),
                "median": float(statistics.median(values)),
                "p90": round(p90(values), 2),
                "total": float(sum(values)),
            }
    return {
        "count": len(envs),
        "with_world_builder": sum(e.world_builder for e in envs),
        "environments": [asdict(e) for e in envs],
        "errors": errors,
        "summary": summary,
    }
