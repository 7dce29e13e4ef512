"""Progress bars while generating, and the run report afterwards (a rich table + ``report.json``).

``report.json`` is cumulative: each run merges its jobs into it (a job skipped as already done keeps its
earlier record), and a run that did anything also leaves its own report in ``reports/NNNN.json`` next to it.
A rerun with nothing to do leaves both untouched.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from awm.gen.llm import ChatResult


@dataclass
class StageRecord:
    """One stage of one environment: attempts, tokens, cost, time, and the last errors."""

    name: str
    attempts: int = 0
    passed: bool = False
    salvaged: bool = False
    seconds: float = 0.0
    requests: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0  # paid in this run
    cached_cost: float = 0.0  # what cached answers cost when they were paid
    problems: list[str] = field(default_factory=list)

    def add(self, reply: ChatResult) -> None:
        self.requests += 1
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens
        if reply.cached:
            self.cached += 1
            self.cached_cost += reply.cost
        else:
            self.cost += reply.cost


@dataclass
class JobResult:
    """What happened to one scenario. ``status``: written | rejected | error | duplicate | skipped | interrupted."""

    key: str
    scenario: str
    status: str = "pending"
    env: str | None = None
    stage: str | None = None  # where it was rejected (or failed)
    problems: list[str] = field(default_factory=list)
    stages: dict[str, StageRecord] = field(default_factory=dict)
    dropped_tasks: list[str] = field(default_factory=list)
    seconds: float = 0.0
    note: str = ""

    def record(self, stage: str) -> StageRecord:
        return self.stages.setdefault(stage, StageRecord(stage))

    @property
    def prompt_tokens(self) -> int:
        return sum(s.prompt_tokens for s in self.stages.values())

    @property
    def completion_tokens(self) -> int:
        return sum(s.completion_tokens for s in self.stages.values())

    @property
    def cost(self) -> float:
        return sum(s.cost + s.cached_cost for s in self.stages.values())

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["tokens"] = {"prompt": self.prompt_tokens, "completion": self.completion_tokens}
        d["cost_usd"] = round(self.cost, 6)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> JobResult:
        known = {f.name for f in fields(cls)} - {"stages"}
        stage_fields = {f.name for f in fields(StageRecord)}
        stages = {
            name: StageRecord(**{k: v for k, v in rec.items() if k in stage_fields})
            for name, rec in (d.get("stages") or {}).items()
        }
        return cls(**{k: v for k, v in d.items() if k in known}, stages=stages)


@dataclass
class RunReport:
    model: str
    stages: Sequence[str]
    jobs: list[JobResult] = field(default_factory=list)
    seconds: float = 0.0
    started: str = ""

    def by_status(self, status: str) -> list[JobResult]:
        return [j for j in self.jobs if j.status == status]

    @property
    def written(self) -> list[str]:
        return [j.env for j in self.by_status("written") if j.env]

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "started": self.started,
            "seconds": round(self.seconds, 2),
            "counts": {s: len(self.by_status(s)) for s in sorted({j.status for j in self.jobs})},
            "stages": {name: asdict(t) for name, t in self._stage_totals().items()},
            "jobs": [j.to_dict() for j in self.jobs],
        }

    @property
    def did_anything(self) -> bool:
        """Whether any job ran or was planned anew (not every one skipped as done in an earlier run)."""
        return any(j.status != "skipped" for j in self.jobs)

    def write(self, path: Any) -> Path | None:
        """Merge this run into the cumulative report at ``path`` and keep this run's own report next to it
        (``reports/NNNN.json``); returns that file, or None when the run did nothing (both stay as they were)."""
        p = Path(path)
        previous: dict[str, Any] = {}
        if p.is_file():
            try:
                previous = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                previous = {}
        if previous and not self.did_anything:
            return None
        p.parent.mkdir(parents=True, exist_ok=True)
        history = p.parent / "reports"
        history.mkdir(exist_ok=True)
        own = history / f"{len(list(history.glob('*.json'))) + 1:04d}.json"
        _write_json(own, self.to_dict())
        merged: dict[str, JobResult] = {}
        for d in previous.get("jobs") or []:
            if isinstance(d, dict) and isinstance(d.get("key"), str):
                merged[d["key"]] = JobResult.from_dict(d)
        for job in self.jobs:
            if job.status != "skipped" or job.key not in merged:
                merged[job.key] = job
        runs = list(previous.get("runs") or [])
        runs.append({"started": self.started, "seconds": round(self.seconds, 2), "report": own.name})
        seconds = float(previous.get("seconds") or 0.0) + self.seconds
        total = RunReport(self.model, self.stages, list(merged.values()), seconds, previous.get("started", ""))
        _write_json(p, {**total.to_dict(), "started": total.started or self.started, "runs": runs})
        return own

    def _stage_totals(self) -> dict[str, StageTotals]:
        out = {name: StageTotals() for name in self.stages}
        for job in self.jobs:
            for name, rec in job.stages.items():
                t = out.setdefault(name, StageTotals())
                t.envs += 1
                t.passed += rec.passed
                t.first_try += rec.passed and rec.attempts == 1
                t.attempts += rec.attempts
                t.requests += rec.requests
                t.cached += rec.cached
                t.prompt_tokens += rec.prompt_tokens
                t.completion_tokens += rec.completion_tokens
                t.cost += rec.cost
                t.cached_cost += rec.cached_cost
                t.seconds += rec.seconds
            if job.status == "rejected" and job.stage in out:
                out[job.stage].rejected += 1
        return out

    def table(self) -> Table:
        totals = self._stage_totals()
        table = Table(title="awm gen", box=box.SIMPLE_HEAD, pad_edge=False)
        table.add_column("stage", no_wrap=True, min_width=9)
        for col in ("passed", "rej", "tries", "1st", "req", "tok in", "tok out", "cost $", "sec"):
            table.add_column(col, justify="right", no_wrap=True)
        all_ = StageTotals()
        for name, t in totals.items():
            all_.merge(t)
            table.add_row(
                name,
                f"{t.passed}/{t.envs}",
                str(t.rejected),
                str(t.attempts),
                f"{t.first_try}/{t.passed}" if t.passed else "-",
                str(t.requests),
                f"{t.prompt_tokens:,}",
                f"{t.completion_tokens:,}",
                f"{t.cost:.4f}",
                f"{t.seconds:.1f}",
            )
        table.add_section()
        table.add_row(
            "total",
            "",
            str(all_.rejected),
            str(all_.attempts),
            "",
            str(all_.requests),
            f"{all_.prompt_tokens:,}",
            f"{all_.completion_tokens:,}",
            f"{all_.cost:.4f}",
            f"{self.seconds:.1f}",
        )
        counts = ", ".join(f"{len(self.by_status(s))} {s}" for s in sorted({j.status for j in self.jobs})) or "no jobs"
        written = self.by_status("written")
        per_env = ""
        if written:
            n = len(written)
            tin = sum(j.prompt_tokens for j in written) / n
            tout = sum(j.completion_tokens for j in written) / n
            per_env = (
                f" · per written env: {tin:,.0f} tokens in, {tout:,.0f} out, ${sum(j.cost for j in written) / n:.4f}"
            )
        saved = f" · {all_.cached} requests from cache (${all_.cached_cost:.4f} saved)" if all_.cached else ""
        table.caption = f"{counts}{per_env}{saved}"
        return table

    def print(self, console: Console) -> None:
        console.print(self.table())
        for job in self.jobs:
            if job.status in ("rejected", "error"):
                console.print(
                    f"[red]✗[/red] {job.scenario}: {job.status} at {job.stage} "
                    f"after {job.stages[job.stage].attempts if job.stage in job.stages else 0} attempt(s)",
                    markup=True,
                    highlight=False,
                )
                for p in job.problems[:5]:
                    console.print(f"    - {p}", markup=False, soft_wrap=True)
            elif job.status == "written":
                dropped = f" (dropped tasks: {', '.join(job.dropped_tasks)})" if job.dropped_tasks else ""
                console.print(f"[green]✓[/green] {job.scenario} -> {job.env}{dropped}", highlight=False)
            elif job.status in ("duplicate", "skipped"):
                console.print(f"[yellow]·[/yellow] {job.scenario}: {job.status} {job.note}", highlight=False)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)


@dataclass
class StageTotals:
    envs: int = 0
    passed: int = 0
    rejected: int = 0
    first_try: int = 0
    attempts: int = 0
    requests: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    cached_cost: float = 0.0
    seconds: float = 0.0

    def merge(self, other: StageTotals) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))


class ProgressView:
    """One rich progress bar per stage; a job that stops early completes the bars after its stop."""

    def __init__(self, stages: Sequence[str], total: int, console: Console | None = None, enabled: bool = True):
        self.stages = list(stages)
        self.progress = Progress(
            TextColumn("{task.description:>10}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            console=console,
            disable=not enabled,
            transient=False,
        )
        self.tasks: dict[str, TaskID] = {s: self.progress.add_task(s, total=total, note="") for s in self.stages}
        self.failed = dict.fromkeys(self.stages, 0)

    def __enter__(self) -> ProgressView:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(None, None, None)

    def passed(self, stage: str) -> None:
        self.progress.advance(self.tasks[stage])

    def stopped(self, stage: str | None) -> None:
        """The job ended at ``stage`` (rejected or failed there): count it for that stage and the rest."""
        start = self.stages.index(stage) if stage in self.stages else 0
        if stage in self.failed:
            self.failed[stage] += 1
            self.progress.update(self.tasks[stage], note=f"[red]{self.failed[stage]} rejected[/red]")
        for name in self.stages[start:]:
            self.progress.advance(self.tasks[name])
