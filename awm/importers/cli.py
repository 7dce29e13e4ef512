"""``awm import``: bring other projects' environments in as bundles (``awm import awm DIR --out ROOT``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from awm.console import make_console

app = typer.Typer(help="Import other projects' environments as bundles.", no_args_is_help=True, add_completion=False)


@app.command("awm")
def import_awm_cmd(
    source: Annotated[Path, typer.Argument(help="AgentWorldModel-1K folder holding the gen_*.jsonl files")],
    out: Annotated[Path, typer.Option("--out", "-o", help="root to write envs/<env>/ and verifiers/<env>/ into")],
    scenarios: Annotated[
        str | None, typer.Option("--scenarios", help="comma-separated scenario names (default: all)")
    ] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="replace bundles that already exist")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Convert AWM's AgentWorldModel-1K dataset: one bundle per scenario, skipping (and reporting) broken ones.

    Exit 0 when at least one scenario converted, 1 when none did (or the importer failed on one), 2 when
    DIR is not an AgentWorldModel-1K folder. Load the result with `--path ROOT` / `Registry([ROOT])`.
    """
    from awm.importers.awm1k import ImportSourceError, import_awm

    names = [s.strip() for s in scenarios.split(",") if s.strip()] if scenarios is not None else None
    try:
        report = import_awm(source, out, scenarios=names, overwrite=overwrite)
    except ImportSourceError as e:
        typer.echo(f"awm import awm: {e}", err=True)
        raise typer.Exit(2) from e
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        console = make_console()
        table = Table(
            title=f"AgentWorldModel-1K import: {len(report.converted)} converted, {len(report.skipped)} skipped"
        )
        for col in ("scenario", "env", "tables", "rows", "tools", "tasks", "verifiers / why skipped"):
            table.add_column(col, overflow="fold")
        for c in report.converted:
            mode = c["verifier_mode"] + (" (evidence only)" if c["verifier_mode"] == "sql" else "")
            parts = ", ".join(f"{n} {kind}" for kind, n in c.get("skipped", {}).items() if n)
            mode += f"\nskipped {parts} (see the report's notes)" if parts else ""
            table.add_row(
                escape(c["scenario"]), c["env"], *(str(c[k]) for k in ("tables", "rows", "tools", "tasks")), mode
            )
        for s in report.skipped:
            why = "\n".join(escape(r) for r in s["reasons"])
            table.add_row(escape(s["scenario"]), "[red]skipped[/red]", "", "", "", "", why)
        console.print(table)
        console.print(f"report: {Path(out) / 'import_report.json'}; load with --path {out}")
    if not report.converted or report.errors:
        raise typer.Exit(1)
