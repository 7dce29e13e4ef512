"""``awm eval`` and ``awm report`` (registered by ``awm.cli``; heavy imports stay inside the commands)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

console = Console()

PathOpt = Annotated[list[str] | None, typer.Option("--path", "-p", help="extra root holding envs/ and verifiers/")]


def eval_cmd(
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
    task_id: Annotated[list[str] | None, typer.Option("--task-id", help="only these task ids")] = None,
    k: Annotated[int, typer.Option("--k", help="trials per task (pass@k, pass^k)")] = 1,
    seed: Annotated[int, typer.Option(help="run seed; each trial's seed is sha256-derived from it")] = 0,
    concurrency: Annotated[int, typer.Option(help="episodes in flight")] = 8,
    max_steps: Annotated[int, typer.Option(help="env steps per episode before truncation")] = 30,
    timeout: Annotated[float, typer.Option(help="seconds per LLM request")] = 120.0,
    retries: Annotated[int, typer.Option(help="retries per LLM request (timeouts, 429, 5xx)")] = 3,
    episode_timeout: Annotated[float, typer.Option(help="wall-clock seconds per episode")] = 1800.0,
    temperature: Annotated[float | None, typer.Option(help="sampling temperature")] = 0.7,
    max_tokens: Annotated[int | None, typer.Option(help="max completion tokens per turn")] = None,
    tool_format: Annotated[str, typer.Option(help="auto, native (API tool calls) or text (<tool_call> tags)")] = "auto",
    history: Annotated[int | None, typer.Option(help="send only the last K turns (default: all)")] = None,
    extra_body: Annotated[
        str | None, typer.Option(help="JSON merged into each request, e.g. '{\"chat_template_kwargs\": {...}}'")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="run directory (default: runs/<model or agent>)")] = None,
    overwrite: Annotated[bool, typer.Option(help="discard earlier results in --out instead of resuming")] = False,
    path: PathOpt = None,
) -> None:
    """Run an agent on the environments; one JSONL trajectory per episode in OUT/results.jsonl.

    Rerunning into the same --out resumes: scored episodes are kept, infra errors are retried."""
    import asyncio

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from awm.eval.agents import BUILTIN, ChatAgent
    from awm.eval.llm import ChatClient
    from awm.eval.records import EvalRecord, Status
    from awm.eval.report import build_report, print_report
    from awm.eval.runner import EvalConfig, EvalConfigError, plan, run_eval

    meta: dict[str, object] = {}
    if agent == "openai":
        if not base_url or not model:
            console.print("[red]--agent openai needs --base-url and --model[/red]")
            raise typer.Exit(2)
        body = None
        if extra_body:
            try:
                body = json.loads(extra_body)
            except json.JSONDecodeError as e:
                console.print(f"[red]--extra-body is not JSON: {e}[/red]")
                raise typer.Exit(2) from e
        client = ChatClient(
            base_url,
            model,
            api_key=os.environ.get(api_key_env) if api_key_env else None,
            timeout=timeout,
            retries=retries,
            extra_body=body,
        )
        the_agent: object = ChatAgent(
            client, tool_format=tool_format, history=history, temperature=temperature, max_tokens=max_tokens
        )
        meta = {"base_url": base_url, "temperature": temperature, "tool_format": tool_format, "history": history}
    elif agent in BUILTIN:
        the_agent = BUILTIN[agent]()
    else:
        console.print(f"[red]unknown agent {agent!r}; choose openai, {', '.join(BUILTIN)}[/red]")
        raise typer.Exit(2)
    if tasks != "all" and not tasks.isdigit():
        console.print("[red]--tasks is 'all' or a number[/red]")
        raise typer.Exit(2)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", (model or agent).rsplit("/", 1)[-1]).strip("-").lower()
    cfg = EvalConfig(
        out=out or Path("runs") / slug,
        envs=None if envs == "all" else [e.strip() for e in envs.split(",") if e.strip()],
        tasks=None if tasks == "all" else int(tasks),
        task_ids=task_id,
        k=k,
        seed=seed,
        concurrency=concurrency,
        max_steps=max_steps,
        episode_timeout=episode_timeout,
        paths=path or [],
        overwrite=overwrite,
        meta=meta,
    )
    try:
        total = len(plan(cfg))
    except EvalConfigError as e:
        console.print(f"[red]{e}[/red]")
        raise typer.Exit(1) from e
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        job = bar.add_task(f"{agent}{' ' + model if model else ''}", total=total)

        def tick(rec: EvalRecord) -> None:
            bar.advance(job)

        try:
            result = asyncio.run(run_eval(the_agent, cfg, on_record=tick))  # type: ignore[arg-type]
        except EvalConfigError as e:
            console.print(f"[red]{e}[/red]")
            raise typer.Exit(1) from e
    console.print(
        f"{len(result.records)} episodes in {result.seconds:.1f} s ({result.episodes_per_s:.1f} episodes/s)"
        + (f", {result.skipped} already scored" if result.skipped else "")
        + f" → {result.out / 'results.jsonl'}"
    )
    if result.records or result.skipped:
        print_report(build_report(result.out), console)
    infra = result.count(Status.infra_error)
    if infra:
        console.print(
            f"[yellow]{infra} episode(s) hit infrastructure errors; rerun the same command to retry them[/yellow]"
        )
    if result.fatal:
        console.print(f"[red]stopped: {result.fatal}[/red]")
        raise typer.Exit(1)


def report_cmd(
    run: Annotated[Path, typer.Argument(help="run directory written by awm eval")],
    k: Annotated[int | None, typer.Option("--k", help="k for pass@k / pass^k (default: the run's k)")] = None,
    tasks: Annotated[bool, typer.Option(help="also print the per-task table")] = False,
    png: Annotated[bool, typer.Option(help="write report.png")] = True,
) -> None:
    """Metrics of a run per environment, per task and overall; writes report.json, report.md and report.png."""
    from awm.eval.report import print_report, write_report

    try:
        report = write_report(run, k=k, png=png)
    except FileNotFoundError as e:
        console.print(f"[red]{e}[/red]")
        raise typer.Exit(1) from e
    print_report(report, console, tasks=tasks)
    written = ", ".join(n for n in ("report.json", "report.md", "report.png") if (run / n).exists())
    console.print(f"wrote {written} in {run}")
