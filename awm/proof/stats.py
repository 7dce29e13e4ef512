"""``awm stats``: the catalog's figures — per environment and summarised (mean, median, p90).

Per environment: tables, tools (and write tools), seed rows, fixed tasks by kind, templates, whether it
builds randomized worlds, and its source (hand-written, generated, imported). Environments that do not
load are listed with their error and left out of the summary.

``check_targets`` measures the catalog against ``CatalogTargets`` (issue 12's bar: at least 25
environments; each with ≥ 10 tables, ≥ 25 tools, ≥ 100 seed rows, ≥ 12 tasks with ≥ 4 of every kind and a
world builder; on average ≥ 30 tools and ≥ 14 tables). ``awm stats --check`` prints the result and exits 1
when a target is missed, so CI can hold the catalog to it.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from awm.bundle.records import TaskKind
from awm.errors import AwmError
from awm.model.registry import Registry

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


class CatalogTargets(BaseModel):
    """What the catalog must reach: per-environment floors and catalog-wide means."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    environments: int = 25
    min_tables: int = 10
    min_tools: int = 25
    min_seed_rows: int = 100
    min_tasks: int = 12
    min_tasks_per_kind: int = 4
    world_builder: bool = True
    mean_tools: float = 30
    mean_tables: float = 14


class TargetResult(BaseModel):
    """One target: what it asks, what the catalog has, and which environments fall short (floors)."""

    model_config = ConfigDict(frozen=True)

    target: str
    wanted: str
    actual: str
    ok: bool
    short: list[str] = []


def check_targets(out: dict[str, Any], targets: CatalogTargets | None = None) -> list[TargetResult]:
    """Each target of ``targets`` against ``catalog_stats``'s output; a broken bundle fails the count."""
    t = targets or CatalogTargets()
    envs = out["environments"]
    results = [
        TargetResult(
            target="environments",
            wanted=f">= {t.environments}",
            actual=f"{len(envs)}" + (f" (+{len(out['errors'])} broken)" if out["errors"] else ""),
            ok=len(envs) >= t.environments and not out["errors"],
            short=sorted(out["errors"]),
        )
    ]

    def floor(name: str, wanted: int, value: Any) -> None:
        short = [e["env"] for e in envs if value(e) < wanted]
        lowest = min((value(e) for e in envs), default=0)
        results.append(
            TargetResult(target=name, wanted=f">= {wanted} each", actual=f"min {lowest}", ok=not short, short=short)
        )

    floor("tables", t.min_tables, lambda e: e["tables"])
    floor("tools", t.min_tools, lambda e: e["tools"])
    floor("seed rows", t.min_seed_rows, lambda e: e["seed_rows"])
    floor("tasks", t.min_tasks, lambda e: e["tasks"])
    for kind in TaskKind:
        floor(f"{kind.value} tasks", t.min_tasks_per_kind, lambda e, k=kind.value: e[k])
    if t.world_builder:
        short = [e["env"] for e in envs if not e["world_builder"]]
        results.append(
            TargetResult(
                target="world builder",
                wanted="every environment",
                actual=f"{len(envs) - len(short)} of {len(envs)}",
                ok=not short,
                short=short,
            )
        )
    for fig, wanted in (("tools", t.mean_tools), ("tables", t.mean_tables)):
        mean = out["summary"].get(fig, {}).get("mean", 0.0)
        results.append(
            TargetResult(target=f"mean {fig}", wanted=f">= {wanted:g}", actual=f"{mean:g}", ok=mean >= wanted)
        )
    return results
