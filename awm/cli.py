"""The ``awm`` command line.

Exit codes, the same for every command: 0 done; 1 the command ran and what it found is a failure (validation
problems, an audit leak, a missed catalog target, nothing scored); 2 a usage error, nothing was done (an unknown
environment, task or agent, a bad option value, a path that cannot be read or written, a run folder holding
another configuration); 130 interrupted (Ctrl-C)."""

from __future__ import annotations

import difflib
import errno
import inspect
import json
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

from awm import __version__
from awm.console import make_console
from awm.data.cli import export_cmd, tasks_cmd
from awm.data.export import ExportFormat
from awm.errors import AwmError, UnknownEnvironmentError
from awm.eval.cli import eval_cmd, given, report_cmd
from awm.gen.cli import app as gen_app
from awm.importers.cli import app as import_app
from awm.model.distribution import TaskDistribution
from awm.model.registry import Registry
from awm.view.cli import view_cmd
from awm.worldgen import Scale


def error_line(e: BaseException) -> str:
    """An error as one line for a user: an ``OSError`` names its file, anything else is its message."""
    if isinstance(e, OSError) and e.strerror:
        return f"{e.filename}: {e.strerror}" if e.filename else e.strerror
    return " ".join(str(e).split()) or type(e).__name__


class _Group(TyperGroup):
    """Every command's ``AwmError`` / ``OSError`` becomes one line on stderr and exit code 2 (a usage error:
    see the module's exit codes), not a traceback."""

    def invoke(self, ctx: Any) -> Any:  # typer.Context; the base class names a private type
        try:
            return super().invoke(ctx)
        except (AwmError, OSError) as e:
            if isinstance(e, OSError) and e.errno == errno.EPIPE:
                raise
            typer.echo(f"awm {ctx.invoked_subcommand or ''}: {error_line(e)}".replace(" :", ":"), err=True)
            raise typer.Exit(2) from e


app = typer.Typer(
    help="AWM Gym: database-backed tool environments for LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    cls=_Group,
)
console = make_console()
app.add_typer(gen_app, name="gen")
app.add_typer(import_app, name="import")
app.command("eval")(eval_cmd)
app.command("report")(report_cmd)
app.command("tasks")(tasks_cmd)

# what an --out file's extension says of its format (a --format that contradicts it is refused)
EXTENSIONS = {".jsonl": ExportFormat.jsonl, ".ndjson": ExportFormat.jsonl, ".json": ExportFormat.jsonl}
EXTENSIONS |= {".parquet": ExportFormat.parquet, ".pq": ExportFormat.parquet}


def _export(ctx: typer.Context, **kw: Any) -> None:
    """``awm export`` with its --out checked before any row is made: the format follows the file's extension
    unless --format says otherwise (a contradiction is refused), and the folder must take a file."""
    out: Path = kw["out"]
    implied = EXTENSIONS.get(out.suffix.lower())
    if implied is not None:
        if given(ctx, "fmt") and kw["fmt"] != implied:
            raise AwmError(
                f"--format {kw['fmt'].value} but --out {out} ends in {out.suffix} ({implied.value}): "
                f"give --out a .{kw['fmt'].value} name, or --format {implied.value}"
            )
        kw["fmt"] = implied
    if out.is_dir():
        raise AwmError(f"--out {out} is a folder: give a file name (e.g. {out / ('data.' + kw['fmt'].value)})")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out.parent, prefix=f".{out.name}.", suffix=".probe"):
            pass
    except OSError as e:
        raise AwmError(f"cannot write --out {out}: {e.strerror or e}") from None
    try:
        export_cmd(**kw)
    except Exception as e:  # DuckDB's own I/O errors (a full disk, ...), which are no OSError
        if type(e).__name__ != "IOException" or not type(e).__module__.startswith("_duckdb"):
            raise
        raise AwmError(f"cannot write --out {out}: {error_line(e)}") from None


_export.__doc__ = export_cmd.__doc__
_sig = inspect.signature(export_cmd, eval_str=True)  # export_cmd's options, and the context
_ctx = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)
_export.__signature__ = _sig.replace(parameters=[_ctx, *_sig.parameters.values()])  # type: ignore[attr-defined]
app.command("export")(_export)
app.command("view")(view_cmd)

PathOpt = Annotated[list[str] | None, typer.Option("--path", "-p", help="extra root holding envs/ and verifiers/")]


def check_names(reg: Registry, names: list[str] | None) -> None:
    """Every name is an environment of ``reg`` (a broken one counts: it is the command's to report), or
    ``UnknownEnvironmentError``: a usage error, before any work."""
    entries = reg.entries()
    for name in names or []:
        if name not in entries:
            raise UnknownEnvironmentError(name, difflib.get_close_matches(name, list(entries), 3), sorted(entries))


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"awm-gym {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="print the version and exit")
    ] = False,
) -> None:
    """AWM Gym: database-backed tool environments for LLM agents."""


@app.command("list")
def list_envs(
    path: PathOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="a JSON array, one object per environment")] = False,
) -> None:
    """The environments in the registry, with table, tool and task counts."""
    reg = Registry(path or [])
    rows: list[dict[str, Any]] = []
    for name, entry in reg.entries().items():
        row: dict[str, Any] = {"env": name, "gym_id": None, "tables": None, "tools": None, "tasks": None}
        row |= {"title": None, "error": entry.error}
        if entry.error is None:
            row["gym_id"] = entry.gym_id
            try:
                row |= reg.summary(name)  # from the compile cache: no tools imported, no sandbox started
            except AwmError as e:
                row["error"] = str(e)
        rows.append(row)
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    table = Table("env", "gym id", "tables", "tools", "tasks", "title / error")
    for row in rows:
        counts = (str(row[c]) if row[c] is not None else "-" for c in ("tables", "tools", "tasks"))
        cells = [row["env"], row["gym_id"] or "-", *counts]
        table.add_row(*cells, f"[red]{escape(row['error'])}[/red]" if row["error"] else escape(row["title"] or ""))
    console.print(table)


@app.command()
def stats(
    names: Annotated[list[str] | None, typer.Argument(help="environments (default: all)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object: environments, errors, summary")] = False,
    check: Annotated[
        bool, typer.Option("--check", help="also check the catalog's targets; exit 1 if one is missed")
    ] = False,
    path: PathOpt = None,
) -> None:
    """The catalog's figures: tables, tools, seed rows, tasks and templates per environment, with mean,
    median and p90 over the catalog."""
    from awm.proof.stats import FIGURES, catalog_stats, check_targets

    reg = Registry(path or [])
    check_names(reg, names)
    out = catalog_stats(reg, names)
    targets = check_targets(out) if check else []
    if check:
        out["targets"] = [r.model_dump() for r in targets]
    if as_json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        heads = ("env", "source", "tables", "tools (write)", "seed rows", "tasks (i / s / m)", "templates", "worlds")
        table = Table(*heads)
        for e in out["environments"]:
            table.add_row(
                e["env"],
                e["source"],
                str(e["tables"]),
                f"{e['tools']} ({e['write_tools']})",
                str(e["seed_rows"]),
                f"{e['tasks']} ({e['information']} / {e['single_write']} / {e['multi_step']})",
                str(e["templates"]),
                "yes" if e["world_builder"] else "-",
            )
        console.print(table)
        summary = Table(f"over {out['count']} environments", *FIGURES)
        for stat in ("mean", "median", "p90", "total"):
            summary.add_row(stat, *(f"{out['summary'][f][stat]:g}" if f in out["summary"] else "-" for f in FIGURES))
        console.print(summary)
        for env, err in out["errors"].items():
            console.print(f"[red]✗[/red] {escape(env)}: {escape(err)}", soft_wrap=True)
        if targets:
            tt = Table("target", "wanted", "catalog", "", "short of it")
            for r in targets:
                mark = "[green]✓[/green]" if r.ok else "[red]✗[/red]"
                tt.add_row(r.target, r.wanted, r.actual, mark, escape(", ".join(r.short)))
            console.print(tt)
    if out["errors"] or not all(r.ok for r in targets):
        raise typer.Exit(1)


@app.command()
def validate(
    names: Annotated[list[str] | None, typer.Argument(help="environments (default: all)")] = None,
    seeds: Annotated[
        int, typer.Option("--seeds", min=0, help="also instantiate every template on this many built worlds")
    ] = 0,
    start: Annotated[int, typer.Option("--start", min=0, help="the first world seed")] = 0,
    scale: Annotated[Scale, typer.Option("--scale", help="size of the built worlds")] = Scale.small,
    distractors: Annotated[bool, typer.Option("--distractors", help="build worlds with near-duplicate rows")] = False,
    per_world: Annotated[
        int, typer.Option("--per-world", min=1, help="instances of each template per world (different slot rows)")
    ] = 1,
    no_audit: Annotated[bool, typer.Option("--no-audit", help="skip the adversarial audit (faster)")] = False,
    path: PathOpt = None,
) -> None:
    """Validate environments; exit 1 with a report if any fails."""
    from awm.proof.validate import validate_env

    reg = Registry(path or [])
    check_names(reg, names)
    targets = names or list(reg.entries())
    failed = 0
    for name in targets:
        report = validate_env(
            name,
            reg,
            audit=not no_audit,
            seeds=seeds,
            start=start,
            scale=scale,
            distractors=distractors,
            per_world=per_world,
        )
        stats = ", ".join(f"{v} {k}" for k, v in report.stats.items())
        if report.ok:
            console.print(f"[green]✓[/green] {name} is valid ({stats})")
            for note in report.notes:
                console.print(f"    note: {note}", markup=False, soft_wrap=True)
        else:
            failed += 1
            console.print(f"[red]✗[/red] {name}: {len(report.problems)} problem(s)")
            for p in report.problems:
                console.print(f"    - {p}", markup=False, soft_wrap=True)
    if failed:
        console.print(f"[red]{failed} of {len(targets)} environment(s) failed validation[/red]")
        raise typer.Exit(1)


@app.command()
def audit(
    names: Annotated[list[str] | None, typer.Argument(help="environments (default: all)")] = None,
    task: Annotated[
        list[str] | None, typer.Option("--task", "-t", help="only these task ids (fixed, or template instance ids)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per environment")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="list every probe")] = False,
    path: PathOpt = None,
) -> None:
    """Adversarial probes of every task's verifier; exit 1 if any hack scores or a correct answer fails."""
    from awm.model.world import World
    from awm.proof.audit import AuditReport, audit_world

    reg = Registry(path or [])
    check_names(reg, names)
    targets = names or list(reg.entries())
    failed = 0
    for name in targets:
        try:
            world = reg.load(name)
        except AwmError as e:
            failed += 1
            console.print(f"[red]✗[/red] {name}: {e}", markup=True, soft_wrap=True)
            continue
        by_world: dict[str, tuple[World, list[str]]] = {}
        unknown = []
        for t in task or []:
            try:
                w, ct = world.resolve(t)  # a fixed task, or a template instance on its built world
            except AwmError:
                unknown.append(t)
                continue
            by_world.setdefault(w.key.label, (w, []))[1].append(ct.id)
        if unknown:
            known = world.task_ids + world.template_ids
            close = dict.fromkeys(c for t in unknown for c in difflib.get_close_matches(t, known, 3, 0.5))
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            console.print(f"[red]✗[/red] {name}: no tasks {unknown}.{hint}", markup=True, soft_wrap=True)
            raise typer.Exit(2)
        rep = audit_world(world) if not task else AuditReport(world.id)
        for w, ids in by_world.values():
            part = audit_world(w, ids)
            rep.probes += part.probes
            rep.errors += part.errors
        failed += not rep.ok
        if as_json:
            print(json.dumps(rep.to_dict()))
            continue
        adv, sp = rep.adversarial, rep.spellings
        mark = "[green]✓[/green]" if rep.ok else "[red]✗[/red]"
        console.print(
            f"{mark} {name}: hack resistance {rep.score:.1%} ({sum(p.ok for p in adv)}/{len(adv)} adversarial probes "
            f"rejected), correct variants accepted {rep.acceptance:.1%} ({sum(p.ok for p in sp)}/{len(sp)})"
        )
        table = Table("probe kind", "run", "as required")
        for kind, (n, ok) in rep.by_kind().items():
            table.add_row(kind, str(n), str(ok) if ok == n else f"[red]{ok}[/red]")
        console.print(table)
        shown = rep.probes if verbose else rep.failures
        for p in shown:
            console.print(f"    - {p}", markup=False, soft_wrap=True)
        for err in rep.errors:
            console.print(f"    - {err}", markup=False, soft_wrap=True)
    if failed:
        console.print(f"[red]{failed} of {len(targets)} environment(s) failed the audit[/red]")
        raise typer.Exit(1)


@app.command()
def demo(
    env: Annotated[str, typer.Argument(help="environment")] = "online_store",
    task: Annotated[
        str | None, typer.Option(help="task id or template instance id (default: the env's default task)")
    ] = None,
    path: PathOpt = None,
) -> None:
    """Play one task with its gold solution, printing each step's call, result, diff and rewards."""
    reg = Registry(path or [])  # an unknown environment or task: AwmError, a usage error (exit 2)
    world = reg.load(env)
    world, ct = TaskDistribution(env, registry=reg).resolve(task or world.default_task)
    ep = world.episode(ct.id, seed=0)
    console.rule(f"{world.id}-v{world.version} · task {ct.id} ({ct.task.kind})")
    console.print(f"[bold]Task:[/bold] {ct.task.instruction}\n")
    held = dict(ep.evaluate().checks)
    for i, call in enumerate(ct.verifier.gold.calls, start=1):
        res = ep.call(call.tool, call.arguments)
        console.print(f"[bold cyan]step {i}[/bold cyan] {call.tool}({json.dumps(call.arguments)})")
        body = res.result if res.ok else res.error.to_dict() if res.error else None
        text = json.dumps(body, default=str)
        console.print(f"  result: {text[:300]}{'…' if len(text) > 300 else ''}", markup=False)
        for change in res.diff.to_dict()[:6]:
            console.print(f"  diff:   {json.dumps(change, default=str)[:300]}", markup=False)
        if len(res.diff) > 6:
            console.print(f"  diff:   … {len(res.diff) - 6} more row changes")
        ch = res.rewards
        flips = [("+" if v else "-") + k for k, v in ch.checks.items() if held.get(k) != v]
        held.update(ch.checks)
        console.print(
            f"  rewards: progress Φ={ch.progress:.2f} (Δ {ch.progress_delta:+.2f}) · checks "
            f"{sum(ch.checks.values())}/{len(ch.checks)} {' '.join(flips)} · noop={ch.noop} "
            f"redundant={ch.redundant} collateral={ch.collateral} · reward={res.reward}",
            markup=False,
        )
    final = ep.submit(ct.verifier.gold.answer)
    submitted = json.dumps({"answer": ct.verifier.gold.answer}, default=str)
    console.print("[bold]submit_answer[/bold]", end="")
    console.print(f"({submitted})", markup=False)
    ch = final.rewards
    colour = "green" if ch.outcome == 1.0 else "red"
    console.print(
        f"[{colour}]outcome={ch.outcome}[/{colour}] answer_correct={ch.answer_correct} "
        f"checks {sum(ch.checks.values())}/{len(ch.checks)} collateral={ch.collateral} reward={final.reward}"
    )


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="agent plane: bind address (loopback by default)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="agent plane: TCP port")] = 8000,
    control_host: Annotated[
        str, typer.Option(help="control plane (the trainer's API): bind address; off loopback it needs a token")
    ] = "127.0.0.1",
    control_port: Annotated[
        int | None, typer.Option(help="control plane: TCP port (default: the agent port + 1)")
    ] = None,
    env: Annotated[list[str] | None, typer.Option("--env", help="serve only these environments")] = None,
    max_episodes: Annotated[int, typer.Option(help="live episodes at most")] = 10_000,
    idle_ttl: Annotated[float, typer.Option(help="seconds before an idle episode expires")] = 900.0,
    token_env: Annotated[
        str | None,
        typer.Option(help="name of an environment variable holding a bearer token every agent-plane request must send"),
    ] = None,
    control_token_env: Annotated[
        str | None,
        typer.Option(help="name of an environment variable holding the control plane's bearer token"),
    ] = None,
    session_episodes: Annotated[
        bool,
        typer.Option(
            help="a legacy MCP session that names no episode gets one of its own, of any task (for MCP Inspector; "
            "off: agents act only in episodes the trainer created)"
        ),
    ] = False,
    expose_rewards: Annotated[bool, typer.Option(help="show reward channels in MCP results")] = False,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=255,
            help="server processes on the same ports (SO_REUSEPORT); an episode (and a legacy MCP session) lives in "
            "the worker that created it, and a request reaching another worker is forwarded to it",
        ),
    ] = 1,
    view_runs: Annotated[
        list[Path] | None,
        typer.Option("--view-runs", help="a run (awm eval directory or trajectory JSONL) for the viewer at /view/"),
    ] = None,
    path: PathOpt = None,
) -> None:
    """Serve every environment: the agent plane (MCP at /envs/<env>/mcp, tool calls) and the trainer's
    control plane (episodes, state, rewards, snapshots, and the viewer at /view/) on its own port. OpenAPI
    at /docs on each."""
    import os

    from awm.serve.config import ServeConfig
    from awm.serve.run import prepare

    def secret(var: str | None) -> str | None:
        if var is None:
            return None
        value = os.environ.get(var)
        if not value:
            raise AwmError(f"environment variable {var} is not set or empty")
        return value

    cfg = ServeConfig(
        envs=env,
        paths=path or [],
        max_episodes=max_episodes,
        idle_ttl=idle_ttl,
        token=secret(token_env),
        control_token=secret(control_token_env),
        session_episodes=session_episodes,
        expose_rewards=expose_rewards,
    )

    def say(line: str) -> None:  # progress and readiness: stderr, a line each, flushed (for a log or a pipe)
        print(f"awm serve: {line}", file=sys.stderr, flush=True)

    # binds both ports first (a busy one is an error at once), then loads for seconds, saying so
    bound = prepare(
        cfg, host, port, control_host, control_port, view_runs=view_runs or [], progress=say, workers=workers
    )
    envs = ", ".join(bound.planes.store.envs)
    console.print(f"AWM Gym serving {envs}", markup=False)
    console.print(f"  agent plane:   {bound.agent_url}  (MCP: /envs/<env>/mcp · OpenAPI: /docs)", markup=False)
    console.print(
        f"  control plane: {bound.control_url}  (trainer only: episodes, rewards · OpenAPI: /docs)", markup=False
    )
    console.print(f"  viewer:        {bound.control_url}/view/  (environments and runs)", markup=False)
    console.file.flush()
    bound.run(on_ready=lambda: say(f"ready: agent plane {bound.agent_url}, control plane {bound.control_url}"))


@app.command("mcp")
def mcp_stdio(
    env: Annotated[str, typer.Argument(help="environment")],
    task: Annotated[str | None, typer.Option(help="task id (default: chosen from the seed)")] = None,
    seed: Annotated[int, typer.Option(help="seed")] = 0,
    path: PathOpt = None,
) -> None:
    """Serve one environment over MCP stdio (for desktop MCP clients)."""
    from awm.serve.stdio import run_stdio

    run_stdio(Registry(path or []), env, task, seed)


def main() -> None:
    try:
        app()
    except (AwmError, OSError) as e:  # raised outside a command (while options are parsed)
        print(f"awm: {error_line(e)}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
