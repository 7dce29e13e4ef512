"""``awm eval`` and ``awm report`` (registered by ``awm.cli``; heavy imports stay inside the commands)."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from awm.console import make_console
from awm.errors import AwmError

if TYPE_CHECKING:
    from rich.progress import Progress

    from awm.eval.records import EvalRecord

console = make_console()

PathOpt = Annotated[list[str] | None, typer.Option("--path", "-p", help="extra root holding envs/ and verifiers/")]


def eval_cmd(
    ctx: typer.Context,
    agent: Annotated[str, typer.Option(help="openai (a chat model at --base-url), oracle, random or noop")] = "openai",
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    ] = None,
    model: Annotated[str | None, typer.Option(help="model name sent to the endpoint")] = None,
    api_key_env: Annotated[
        str | None, typer.Option(help="name of the environment variable holding the API key, e.g. OPENAI_API_KEY")
    ] = None,
    envs: Annotated[str, typer.Option(help="'all' or a comma-separated list of environments")] = "all",
    tasks: Annotated[str, typer.Option(help="'all', or N: the same N tasks of each env in every run")] = "all",
    task_id: Annotated[
        list[str] | None, typer.Option("--task-id", help="only these task ids (fixed, or template instance ids)")
    ] = None,
    task_file: Annotated[
        Path | None,
        typer.Option("--task-file", help="run the rows of a dataset from awm export (JSONL or Parquet)"),
    ] = None,
    k: Annotated[int, typer.Option("--k", help="trials per task (pass@k, pass^k)")] = 1,
    seed: Annotated[int, typer.Option(help="run seed; each trial's seed is sha256-derived from it")] = 0,
    concurrency: Annotated[int, typer.Option(help="episodes in flight")] = 8,
    max_steps: Annotated[int, typer.Option(help="env steps per episode before truncation")] = 30,
    timeout: Annotated[float, typer.Option(help="seconds per LLM request")] = 120.0,
    retries: Annotated[int, typer.Option(help="retries per LLM request (timeouts, 429, 5xx)")] = 3,
    episode_timeout: Annotated[float, typer.Option(help="wall-clock seconds per episode")] = 1800.0,
    temperature: Annotated[float | None, typer.Option(help="sampling temperature")] = 0.7,
    max_tokens: Annotated[int | None, typer.Option(help="max completion tokens per turn")] = None,
    tool_format: Annotated[
        str,
        typer.Option(
            help="auto (native, or text when the server refuses or drops tools), native (API tool calls) "
            "or text (<tool_call> tags)"
        ),
    ] = "auto",
    max_tools: Annotated[
        int | None,
        typer.Option(help="offer only the N tools most relevant to each task's instruction (small context windows)"),
    ] = None,
    short_descriptions: Annotated[
        bool, typer.Option(help="one-sentence tool descriptions, no parameter descriptions (shorter prompt)")
    ] = False,
    history: Annotated[int | None, typer.Option(help="send only the last K turns (default: all)")] = None,
    extra_body: Annotated[
        str | None, typer.Option(help="JSON merged into each request, e.g. '{\"chat_template_kwargs\": {...}}'")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="run directory (default: runs/<model or agent>)")] = None,
    overwrite: Annotated[bool, typer.Option(help="discard earlier results in --out instead of resuming")] = False,
    path: PathOpt = None,
) -> None:
    """Run an agent on the environments; one JSONL trajectory per episode in OUT/results.jsonl.

    Rerunning into the same --out resumes: scored episodes are kept, infra errors are retried (the same
    configuration only: another one is refused). Exits 1 when nothing could be scored, 2 on a usage error.
    Ctrl-C stops it at once: the summary of what finished, and the command that resumes the run (exit 130)."""
    import asyncio

    from awm.data.export import read_task_rows
    from awm.eval.agents import BUILTIN, ChatAgent
    from awm.eval.llm import ChatClient
    from awm.eval.records import Status
    from awm.eval.report import build_report, print_report
    from awm.eval.runner import EvalConfig, plan, run_eval
    from awm.model.registry import default_registry, registry_for

    _check_options(
        k=k, concurrency=concurrency, max_steps=max_steps, timeout=timeout, retries=retries,
        episode_timeout=episode_timeout, temperature=temperature, max_tokens=max_tokens, max_tools=max_tools,
        history=history,
    )  # fmt: skip
    if tasks != "all" and not tasks.isdigit():
        raise AwmError(f"--tasks is 'all' or a number, not {tasks!r}")
    body = _extra_body(extra_body)
    meta: dict[str, object] = {}
    if agent == "openai":
        if not base_url or not model:
            raise AwmError("--agent openai needs --base-url and --model")
        api_key = os.environ.get(api_key_env) if api_key_env else None
        if api_key_env and not api_key:
            raise AwmError(f"--api-key-env {api_key_env}: the environment variable {api_key_env} is not set")
        if tool_format not in ("auto", "native", "text"):
            raise AwmError(f"--tool-format is auto, native or text, not {tool_format!r}")
        client = ChatClient(base_url, model, api_key=api_key, timeout=timeout, retries=retries, extra_body=body)
        the_agent: object = ChatAgent(
            client,
            tool_format=tool_format,
            history=history,
            temperature=temperature,
            max_tokens=max_tokens,
            max_tools=max_tools,
            short_descriptions=short_descriptions,
        )
        meta = {
            "base_url": base_url,
            "temperature": temperature,
            "tool_format": tool_format,
            "history": history,
            "max_tokens": max_tokens,
            "extra_body": body,
            "max_tools": max_tools,
            "short_descriptions": short_descriptions,
        }
    elif agent in BUILTIN:
        flags = _flags(ctx, MODEL_OPTIONS)
        if flags:
            raise AwmError(
                f"{', '.join(flags)} {'is' if len(flags) == 1 else 'are'} for --agent openai only: "
                f"--agent {agent} asks no model"
            )
        the_agent = BUILTIN[agent]()
    else:
        raise AwmError(f"unknown agent {agent!r}; choose openai, {', '.join(BUILTIN)}")
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", (model or agent).rsplit("/", 1)[-1]).strip("-").lower()
    cfg = EvalConfig(
        out=out or Path("runs") / slug,
        envs=None if envs == "all" else [e.strip() for e in envs.split(",") if e.strip()],
        tasks=None if tasks == "all" else int(tasks),
        # a task file's rows as env/task_id, each resolved in its own environment (a task id may be in several)
        task_ids=[
            *(task_id or []),
            *(r.key for r in read_task_rows(task_file, registry_for(tuple(path)) if path else default_registry())),
        ]
        if task_file
        else task_id,
        k=k,
        seed=seed,
        concurrency=concurrency,
        max_steps=max_steps,
        episode_timeout=episode_timeout,
        paths=path or [],
        overwrite=overwrite,
        meta=meta,
    )
    total = len(plan(cfg))  # an unknown environment or task: EvalConfigError, a usage error (exit 2)
    if total == 0:
        console.print(f"[red]nothing to run: {_selection(envs, tasks, task_id)} selects no episode[/red]")
        raise typer.Exit(1)
    try:
        cfg.out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise AwmError(f"cannot create --out {cfg.out}: {e.strerror or e}") from None
    label = f"{agent}{' ' + model if model else ''}"
    with _progress(label, total) as tick:
        try:
            result = asyncio.run(run_eval(the_agent, cfg, on_record=tick))  # type: ignore[arg-type]
        except KeyboardInterrupt:  # Ctrl-C twice: the episodes that finished are in results.jsonl already
            console.print(f"[yellow]interrupted again: stopped at once.[/yellow] {_RESUME}", soft_wrap=True)
            console.print(f"  {resume_command(ctx, cfg.out)}", markup=False, soft_wrap=True)
            raise typer.Exit(130) from None
    for note in getattr(the_agent, "notes", []):
        console.print(f"[yellow]note: {note}[/yellow]", soft_wrap=True)
    console.print(
        f"{len(result.records)} episodes in {result.seconds:.1f} s ({result.episodes_per_s:.1f} episodes/s)"
        + (f", {result.skipped} already scored" if result.skipped else "")
        + f" → {result.out / 'results.jsonl'}"
    )
    scored = sum(r.scored for r in result.records) + result.skipped
    if scored:
        print_report(build_report(result.out), console)
    infra = result.count(Status.infra_error)
    if result.interrupted:
        left = total - result.skipped - len(result.records)
        console.print(
            f"[yellow]interrupted: {left} of {total} episode(s) not run; "
            f"{len(result.records)} finished and are in {result.out / 'results.jsonl'}.[/yellow] {_RESUME}",
            soft_wrap=True,
        )
        console.print(f"  {resume_command(ctx, cfg.out)}", markup=False, soft_wrap=True)
        raise typer.Exit(130)
    if infra and scored:
        console.print(
            f"[yellow]{infra} episode(s) hit infrastructure errors; rerun the same command to retry them[/yellow]"
        )
    if result.fatal:
        console.print(f"[red]stopped: {result.fatal}[/red]", soft_wrap=True)
        raise typer.Exit(1)
    if not scored:
        console.print(f"[red]nothing was scored: {_why_unscored(result.records)}[/red]", soft_wrap=True)
        raise typer.Exit(1)


_RESUME = "Resume with (keeps what is scored, runs the rest):"
# options that only a model uses: given with a built-in agent, they are refused rather than ignored
MODEL_OPTIONS = (
    "base_url", "model", "api_key_env", "timeout", "retries", "temperature", "max_tokens", "tool_format",
    "max_tools", "short_descriptions", "history", "extra_body",
)  # fmt: skip


def _check_options(**values: float | None) -> None:
    """Ranges of eval's numeric options: one line and exit 2 (via AwmError), never a traceback later on."""
    least = {"k": 1, "concurrency": 1, "max_steps": 1, "retries": 0, "max_tokens": 1, "max_tools": 0, "history": 1}
    for name, low in least.items():
        value = values[name]
        if value is not None and value < low:
            raise AwmError(f"--{name.replace('_', '-')} must be at least {low}, not {value:g}")
    for name in ("timeout", "episode_timeout"):
        value = values[name]
        if value is not None and not value > 0:
            raise AwmError(f"--{name.replace('_', '-')} must be more than 0 seconds, not {value:g}")
    temperature = values["temperature"]
    if temperature is not None and temperature < 0:
        raise AwmError(f"--temperature must be at least 0, not {temperature:g}")


def _extra_body(text: str | None) -> dict[str, object] | None:
    """``--extra-body``: a JSON object (merged into each request), checked whatever the agent."""
    if text is None:
        return None
    try:
        body = json.loads(text)
    except json.JSONDecodeError as e:
        raise AwmError(f"--extra-body is not JSON: {e}") from None
    if not isinstance(body, dict):
        raise AwmError(f"--extra-body must be a JSON object (merged into each request), not {text!r}")
    return body


def given(ctx: typer.Context, name: str) -> bool:
    """Whether the command line (or the environment) set option ``name``, rather than its default."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


def _flag(p: Any) -> str:
    return next((o for o in p.opts if o.startswith("--")), p.opts[0])


def _flags(ctx: typer.Context, names: Sequence[str]) -> list[str]:
    """The flags of the options among ``names`` that were given."""
    return [_flag(p) for p in ctx.command.params if p.name in names and given(ctx, p.name)]


def resume_command(ctx: typer.Context, out: Path) -> str:
    """The command that resumes this ``awm eval``: the options given on its command line (the rest are the
    defaults either way), without ``--overwrite`` (it would discard what finished), with ``--out``."""
    prog = sys.argv[0] if Path(sys.argv[0]).name == "awm" else "awm"
    words = [prog, ctx.info_name or "eval"]
    for p in ctx.command.params:
        name = p.name or ""
        if p.param_type_name != "option" or name in ("out", "overwrite") or not given(ctx, name):
            continue
        value = ctx.params[name]
        if getattr(p, "is_flag", False):
            flag = _flag(p) if value else next(iter(getattr(p, "secondary_opts", [])), None)
            words += [flag] if flag else []
        else:
            for v in value if getattr(p, "multiple", False) else [value]:
                words += [_flag(p), str(v)]
    return shlex.join([*words, "--out", str(out)])


def _selection(envs: str, tasks: str, task_ids: Sequence[str] | None) -> str:
    parts = [f"--envs {envs}", f"--tasks {tasks}"] + [f"--task-id {t}" for t in task_ids or []]
    return " ".join(parts)


def _why_unscored(records: Sequence[EvalRecord]) -> str:
    errors = [r.error for r in records if r.error is not None]
    if not errors:
        return "no episode ran"
    kinds = Counter(e.kind for e in errors)
    top = kinds.most_common(1)[0][0]
    example = next(e.message for e in errors if e.kind == top)
    counts = ", ".join(f"{k} {n}" for k, n in kinds.most_common())
    return f"all {len(records)} episode(s) hit infrastructure errors ({counts}); e.g. {example}"


class _progress:
    """A progress bar on a terminal; elsewhere (a piped log) a line every 10% of the episodes or 30 s."""

    def __init__(self, label: str, total: int, every_s: float = 30.0):
        self.label, self.total, self.every_s = label, total, every_s
        self.done = 0
        self.counts: Counter[str] = Counter()
        self.bar: Progress | None = None

    def __enter__(self) -> Callable[[EvalRecord], None]:
        self.started = self.last = time.monotonic()
        self.step = 0
        if console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
            bar = Progress(*columns, console=console, transient=True)
            bar.__enter__()
            job = bar.add_task(self.label, total=self.total)
            self.bar = bar
            return lambda rec: bar.advance(job)
        return self._line

    def _line(self, rec: EvalRecord) -> None:
        self.done += 1
        self.counts[rec.status.value] += 1
        now = time.monotonic()
        step = self.done * 10 // max(1, self.total)
        if step > self.step or now - self.last >= self.every_s:
            self.step, self.last = step, now
            counts = ", ".join(f"{s} {n}" for s, n in sorted(self.counts.items()))
            print(f"[awm eval] {self.done}/{self.total} episodes, {now - self.started:.0f} s ({counts})", flush=True)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def report_cmd(
    runs: Annotated[
        list[Path],
        typer.Argument(help="run directories written by awm eval; two or more are compared", metavar="RUN"),
    ],
    k: Annotated[
        int | None,
        typer.Option("--k", min=1, help="k for pass@k / pass^k (default: the run's k; comparing: the smallest)"),
    ] = None,
    tasks: Annotated[
        bool, typer.Option(help="also print the per-task table (one run; a comparison always does)")
    ] = False,
    png: Annotated[bool, typer.Option(help="write report.png")] = True,
    out: Annotated[
        Path | None,
        typer.Option(
            help="where to write report.json, report.md and report.png (default: the run directory; comparing: "
            "compare-<run>-vs-<run> next to the first run)"
        ),
    ] = None,
) -> None:
    """Metrics of a run per environment, per task and overall, or of several runs side by side.

    One run: tables, and report.json, report.md and report.png in the run directory.

    Several runs: a table per environment and run, a tasks × runs grid of passed/scored trials, the same files in --out.

    Exit 1, writing nothing, when a run has nothing scored (no results.jsonl, an empty one, only infra errors).
    Exit 2 when a run directory does not exist."""
    import errno

    from awm.eval.report import (
        EmptyRunError,
        default_comparison_dir,
        print_comparison,
        print_report,
        unique_dirs,
        write_comparison,
        write_report,
    )

    for run in runs:
        if not run.exists():
            raise FileNotFoundError(errno.ENOENT, "no such run directory", str(run))
        if not run.is_dir():
            raise NotADirectoryError(
                errno.ENOTDIR, "not a run directory (give the folder holding results.jsonl)", str(run)
            )
    dirs = unique_dirs(runs)
    target = out or (dirs[0] if len(dirs) == 1 else default_comparison_dir(dirs))
    try:
        if len(dirs) == 1:
            report = write_report(dirs[0], k=k, png=png, out=target)
        else:
            comparison = write_comparison(dirs, out=target, k=k, png=png)
    except EmptyRunError as e:
        for empty in e.each:
            typer.echo(f"awm report: {empty.run_dir}: {empty.reason}", err=True)
        raise typer.Exit(1) from e
    if len(dirs) == 1:
        print_report(report, console, tasks=tasks)
    else:
        print_comparison(comparison, console)
    written = ", ".join(n for n in ("report.json", "report.md", "report.png") if (target / n).exists())
    console.print(f"wrote {written} in {target}", soft_wrap=True, markup=False)
