"""The ``awm`` command line."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from awm.errors import AwmError
from awm.eval.cli import eval_cmd, report_cmd
from awm.gen.cli import app as gen_app
from awm.registry import Registry

app = typer.Typer(
    help="AWM Gym: database-backed tool environments for LLM agents.", no_args_is_help=True, add_completion=False
)
console = Console()
app.add_typer(gen_app, name="gen")
app.command("eval")(eval_cmd)
app.command("report")(report_cmd)

PathOpt = Annotated[list[str] | None, typer.Option("--path", "-p", help="extra root holding envs/ and verifiers/")]


@app.command("list")
def list_envs(path: PathOpt = None) -> None:
    """The environments in the registry, with table, tool and task counts."""
    reg = Registry(path or [])
    table = Table("env", "gym id", "tables", "tools", "tasks", "title / error")
    for name, entry in reg.entries().items():
        if entry.error:
            table.add_row(name, "-", "-", "-", "-", f"[red]{entry.error}[/red]")
            continue
        try:
            w = reg.load(name)
        except AwmError as e:
            table.add_row(name, entry.gym_id, "-", "-", "-", f"[red]{e}[/red]")
            continue
        table.add_row(name, entry.gym_id, str(len(w.tables)), str(len(w.tools)), str(len(w.tasks)), w.manifest.title)
    console.print(table)


@app.command()
def validate(
    names: Annotated[list[str] | None, typer.Argument(help="environments (default: all)")] = None, path: PathOpt = None
) -> None:
    """Validate environments; exit 1 with a report if any fails."""
    from awm.validate import validate_env

    reg = Registry(path or [])
    targets = names or list(reg.entries())
    failed = 0
    for name in targets:
        report = validate_env(name, reg)
        stats = ", ".join(f"{v} {k}" for k, v in report.stats.items())
        if report.ok:
            console.print(f"[green]✓[/green] {name} is valid ({stats})")
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
    task: Annotated[list[str] | None, typer.Option("--task", "-t", help="only these task ids")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per environment")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="list every probe")] = False,
    path: PathOpt = None,
) -> None:
    """Adversarial probes of every task's verifier; exit 1 if any hack scores or a correct answer fails."""
    from awm.audit import audit_world

    reg = Registry(path or [])
    targets = names or list(reg.entries())
    failed = 0
    for name in targets:
        try:
            world = reg.load(name)
        except AwmError as e:
            failed += 1
            console.print(f"[red]✗[/red] {name}: {e}", markup=True, soft_wrap=True)
            continue
        unknown = [t for t in task or [] if t not in world.tasks]
        if unknown:
            console.print(f"[red]✗[/red] {name}: no tasks {unknown}")
            raise typer.Exit(2)
        rep = audit_world(world, task or None)
        failed += not rep.ok
        if as_json:
            print(json.dumps(rep.to_dict()))
            continue
        adv, sp = rep.adversarial, rep.spellings
        mark = "[green]✓[/green]" if rep.ok else "[red]✗[/red]"
        console.print(
            f"{mark} {name}: hack resistance {rep.score:.1%} ({sum(p.ok for p in adv)}/{len(adv)} adversarial probes "
            f"rejected), correct answers accepted {sum(p.ok for p in sp)}/{len(sp)}"
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
    task: Annotated[str | None, typer.Option(help="task id (default: the env's default task)")] = None,
    path: PathOpt = None,
) -> None:
    """Play one task with its gold solution, printing each step's call, result, diff and rewards."""
    try:
        world = Registry(path or []).load(env)
        ct = world.task(task or world.default_task)
    except AwmError as e:
        console.print(f"[red]{e}[/red]")
        raise typer.Exit(1) from e
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
    host: Annotated[str, typer.Option(help="bind address (loopback by default)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    env: Annotated[list[str] | None, typer.Option("--env", help="serve only these environments")] = None,
    max_episodes: Annotated[int, typer.Option(help="live episodes at most")] = 10_000,
    idle_ttl: Annotated[float, typer.Option(help="seconds before an idle episode expires")] = 900.0,
    token_env: Annotated[
        str | None,
        typer.Option(help="name of an environment variable holding a bearer token that every request must send"),
    ] = None,
    expose_rewards: Annotated[bool, typer.Option(help="show reward channels in MCP results")] = False,
    path: PathOpt = None,
) -> None:
    """Serve every environment over HTTP (OpenAPI at /docs) and MCP (/envs/<env>/mcp)."""
    import os

    import uvicorn

    from awm.serve.app import create_app
    from awm.serve.config import ServeConfig

    token = os.environ.get(token_env) if token_env else None
    if token_env and not token:
        console.print(f"[red]environment variable {token_env} is empty[/red]")
        raise typer.Exit(1)
    cfg = ServeConfig(
        envs=env,
        paths=path or [],
        max_episodes=max_episodes,
        idle_ttl=idle_ttl,
        token=token,
        expose_rewards=expose_rewards,
    )
    try:
        app_ = create_app(cfg)
    except AwmError as e:
        console.print(f"[red]{e}[/red]")
        raise typer.Exit(1) from e
    console.print(
        f"AWM Gym serving {', '.join(app_.state.store.envs)} on http://{host}:{port} "
        f"(OpenAPI: /docs · MCP: /envs/<env>/mcp)"
    )
    uvicorn.run(app_, host=host, port=port, log_level="warning")


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
    app()


if __name__ == "__main__":
    main()
