"""``awm report RUN [RUN ...]``: DuckDB over a run's ``results.jsonl`` -> metrics per environment, per task and
overall; several runs side by side.

Metrics (infra errors are counted, never scored):

- ``pass@1``: mean over tasks of c/n (n scored trials, c passed).
- ``pass@k``: mean over tasks of 1 − C(n−c, k)/C(n, k) (at least one of k trials passes).
- ``pass^k``: mean over tasks of C(c, k)/C(n, k) (all k trials pass; tau-bench's reliability metric).
- ``outcome``, ``progress`` (Φ of the final state, over write tasks), ``reward`` (the episode's total scalar reward),
  ``answer_correct`` (information tasks): means over scored episodes.
- per-action channel rates over every action before the final answer: ``tool_error_rate`` (any action
  that failed: malformed, unknown tool, invalid arguments, tool error, timeout, crash), and each flag alone.
- ``steps``: env steps per episode (tool calls and the final answer).

Writes ``report.json``, ``report.md`` and ``report.png`` next to the results; a comparison of several runs writes
the same three files (a table per environment and run, a tasks × runs pass grid) into a folder of its own. A run
with nothing scored (no results, an empty file, only infra errors) raises ``EmptyRunError``: no chart of zeros.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Any

from awm.errors import AwmError
from awm.eval.runner import RESULTS, RUN_INFO

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


class ReportError(AwmError):
    """A run's results cannot be read (a malformed ``results.jsonl``)."""


class EmptyRunError(ReportError):
    """A run with nothing to report: no ``results.jsonl``, an empty one, or only infrastructure errors."""

    def __init__(self, run_dir: Path, reason: str, others: Sequence[EmptyRunError] = ()):
        self.run_dir, self.reason = run_dir, reason
        self.each = [self, *others]  # every empty run of a comparison
        more = f" (and {len(others)} more run(s) with nothing scored)" if others else ""
        super().__init__(f"{run_dir}: {reason}{more}")


FLAGS = ("malformed", "unknown_tool", "invalid_arguments", "tool_error", "timeout", "crashed", "noop", "redundant")
_STEP = (
    "STRUCT(tool VARCHAR, ok BOOLEAN, reward DOUBLE, reward_components STRUCT(progress DOUBLE, "
    "answer_correct BOOLEAN, collateral INTEGER, " + ", ".join(f"{f} BOOLEAN" for f in FLAGS) + "))"
)
_COLUMNS = {
    "env": "VARCHAR",
    "task_id": "VARCHAR",
    "trial": "INTEGER",
    "status": "VARCHAR",
    "outcome": "DOUBLE",
    "truncation": "VARCHAR",
    "error": "STRUCT(kind VARCHAR, message VARCHAR)",
    "usage": "STRUCT(requests INTEGER, prompt_tokens BIGINT, completion_tokens BIGINT)",
    "seconds": "DOUBLE",
    "trajectory": f"STRUCT(task_kind VARCHAR, total_reward DOUBLE, steps {_STEP}[])",
}

_EPISODES = """
CREATE TEMP TABLE ep AS
SELECT env, task_id, trial, status, coalesce(outcome, 0.0) AS outcome, truncation, error.kind AS error_kind,
       usage.prompt_tokens AS prompt_tokens, usage.completion_tokens AS completion_tokens, seconds,
       trajectory.task_kind AS task_kind, coalesce(trajectory.total_reward, 0.0) AS reward,
       len(trajectory.steps) AS steps,
       coalesce(trajectory.steps[-1].reward_components.progress, 0.0) AS progress,
       trajectory.steps[-1].reward_components.answer_correct AS answer_correct,
       status <> 'infra_error' AS scored, status = 'passed' AS passed,
       trajectory.steps AS s
FROM read_json(?, format = 'newline_delimited', columns = {columns})
QUALIFY row_number() OVER (PARTITION BY env, task_id, trial ORDER BY (status <> 'infra_error') DESC) = 1
"""

_ACTIONS = """
CREATE TEMP TABLE act AS
SELECT ep.env, ep.task_id, ep.trial, x.s.tool AS tool, x.s.ok AS ok,
       coalesce(x.s.reward_components.collateral, 0) > 0 AS collateral, {flags}
FROM ep, unnest(ep.s) AS x(s)
WHERE ep.scored AND NOT (x.s.tool IS NULL AND x.s.ok)
"""


def _aggregate(group: str) -> str:
    by = f"GROUP BY {group}" if group else ""
    sel = f"{group}," if group else ""
    flags = ", ".join(f"avg({f}::INT) AS {f}" for f in FLAGS)
    return f"""
    WITH e AS (
        SELECT {sel} count(*) FILTER (WHERE scored) AS episodes, count(*) FILTER (WHERE NOT scored) AS infra_errors,
               count(*) FILTER (WHERE status = 'truncated') AS truncated,
               avg(outcome) FILTER (WHERE scored) AS outcome,
               avg(progress) FILTER (WHERE scored AND task_kind <> 'information') AS progress,
               avg(reward) FILTER (WHERE scored) AS reward,
               avg(answer_correct::INT) FILTER (WHERE scored AND task_kind = 'information') AS answer_correct,
               avg(steps) FILTER (WHERE scored) AS steps,
               avg(prompt_tokens + completion_tokens) FILTER (WHERE scored) AS tokens,
               avg(seconds) AS seconds
        FROM ep {by}
    ), a AS (
        SELECT {sel} count(*) AS actions, avg((NOT ok)::INT) AS tool_error_rate, {flags},
               avg(collateral::INT) AS collateral
        FROM act {by}
    )
    SELECT * FROM e {"LEFT JOIN a USING (" + group + ")" if group else "CROSS JOIN a"}
    """


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """P(all k of k trials pass), estimated from c passes in n trials (None when n < k)."""
    return None if n < k or k < 1 else comb(c, k) / comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """P(at least one of k trials passes), estimated from c passes in n trials (None when n < k)."""
    return None if n < k or k < 1 else 1.0 - comb(n - c, k) / comb(n, k)


def _mean(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def build_report(run_dir: str | Path, k: int | None = None) -> dict[str, Any]:
    """Every metric of a run as a JSON-able dict: ``run`` (its run.json), ``dir``, ``k`` (of pass@k, pass^k),
    ``run_k`` (the run's own trials per task), ``overall``, ``envs``, ``tasks``, ``statuses``.

    Raises ``EmptyRunError`` when nothing was scored and ``ReportError`` when the results cannot be read."""
    import duckdb

    run_dir = Path(run_dir)
    results = run_dir / RESULTS
    if not results.is_file():
        raise EmptyRunError(run_dir, _no_results(run_dir))
    info = json.loads((run_dir / RUN_INFO).read_text()) if (run_dir / RUN_INFO).exists() else {}
    con = duckdb.connect()
    try:
        con.execute(_EPISODES.format(columns=_duck_struct(_COLUMNS)), [str(results)])
    except duckdb.Error as e:
        raise ReportError(f"cannot read {results}: {' '.join(str(e).split())}") from e
    total, scored = con.execute("SELECT count(*), count(*) FILTER (WHERE scored) FROM ep").fetchone() or (0, 0)
    if not total:
        raise EmptyRunError(run_dir, f"{RESULTS} holds no episode; nothing to report")
    if not scored:
        kinds = con.execute(
            "SELECT coalesce(error_kind, 'unknown'), count(*) FROM ep GROUP BY 1 ORDER BY 2 DESC, 1"
        ).fetchall()
        counts = ", ".join(f"{kind} {n}" for kind, n in kinds)
        raise EmptyRunError(
            run_dir,
            f"nothing was scored: all {total} episode(s) hit infrastructure errors ({counts}); "
            "rerun the same `awm eval` command to retry them",
        )
    con.execute(_ACTIONS.format(flags=", ".join(f"coalesce(x.s.reward_components.{f}, false) AS {f}" for f in FLAGS)))
    trials = con.execute("SELECT max(trial) + 1 FROM ep").fetchone()
    run_k = int(info.get("k") or (trials[0] if trials and trials[0] else 1))
    k = k or run_k

    def rows(sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        cur = con.execute(sql, params or [])
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    task_rows = rows(
        "SELECT env, task_id, any_value(task_kind) AS task_kind, count(*) FILTER (WHERE scored) AS n, "
        "count(*) FILTER (WHERE passed) AS c FROM ep GROUP BY env, task_id ORDER BY env, task_id"
    )
    per_task_extra = {(r["env"], r["task_id"]): r for r in rows(_aggregate("env, task_id"))}
    tasks = []
    for r in task_rows:
        n, c = int(r["n"]), int(r["c"])
        extra = per_task_extra[(r["env"], r["task_id"])]
        tasks.append(
            {
                **_clean(extra),
                "task_kind": r["task_kind"],
                "passed": c,
                "pass@1": c / n if n else None,
                f"pass@{k}": pass_at_k(n, c, k),
                f"pass^{k}": pass_hat_k(n, c, k),
            }
        )

    def passes(items: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "tasks": len(items),
            "pass@1": _mean([t["pass@1"] for t in items]),
            f"pass@{k}": _mean([t[f"pass@{k}"] for t in items]),
            f"pass^{k}": _mean([t[f"pass^{k}"] for t in items]),
        }

    envs = []
    for r in rows(_aggregate("env") + " ORDER BY env"):
        mine = [t for t in tasks if t["env"] == r["env"]]
        envs.append({"env": r["env"], **passes(mine), **{x: v for x, v in _clean(r).items() if x != "env"}})
    overall_rows = rows(_aggregate(""))
    overall = {"env": "overall", **passes(tasks), **_clean(overall_rows[0] if overall_rows else {})}
    statuses = {
        s: int(n) for s, n in con.execute("SELECT status, count(*) FROM ep GROUP BY status ORDER BY status").fetchall()
    }
    errors = {
        kind: int(n)
        for kind, n in con.execute(
            "SELECT error_kind, count(*) FROM ep WHERE error_kind IS NOT NULL GROUP BY 1 ORDER BY 1"
        ).fetchall()
    }
    progress = {
        env: [float(x) for x in vals]
        for env, vals in con.execute(
            "SELECT env, list(progress ORDER BY task_id, trial) FROM ep "
            "WHERE scored AND task_kind <> 'information' GROUP BY env"
        ).fetchall()
    }
    return {
        "run": info,
        "dir": str(run_dir),
        "k": k,
        "run_k": run_k,
        "statuses": statuses,
        "infra_error_kinds": errors,
        "overall": overall,
        "envs": envs,
        "tasks": tasks,
        "distributions": {"progress": progress},
    }


def _no_results(run_dir: Path) -> str:
    try:
        compared = "compared" in json.loads((run_dir / "report.json").read_text())
    except (OSError, ValueError, TypeError):
        compared = False
    if compared:
        return f"holds a comparison written by `awm report`, not a run (no {RESULTS})"
    return f"no {RESULTS}: nothing was run here; run `awm eval --out {run_dir}` first"


def _duck_struct(cols: dict[str, str]) -> str:
    return "{" + ", ".join(f"'{k}': '{v}'" for k, v in cols.items()) + "}"


def _clean(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (float(v) if hasattr(v, "__float__") and not isinstance(v, (bool, int)) else v) for k, v in row.items()}


# -- rendering -------------------------------------------------------------------------------------
SUMMARY_COLUMNS = ("episodes", "infra_errors", "pass@1", "pass@{k}", "pass^{k}", "progress", "reward",
                   "tool_error_rate", "invalid", "redundant", "steps", "tokens")  # fmt: skip
HEADERS = {"episodes": "n", "infra_errors": "infra", "progress": "Φ", "tool_error_rate": "err",
           "redundant": "redund"}  # fmt: skip


def _columns(k: int, rows: list[dict[str, Any]] | None = None) -> list[str]:
    """Summary columns; with k = 1 pass@k and pass^k equal pass@1 and are left out."""
    cols = list(dict.fromkeys(c.format(k=k) for c in SUMMARY_COLUMNS))
    if k == 1:
        cols.remove("pass^1")
    if rows is not None and not any(r.get("tokens") for r in rows):
        cols.remove("tokens")
    return cols


def _value(row: dict[str, Any], col: str) -> Any:
    if col == "invalid":
        parts = [row.get(f) for f in ("malformed", "unknown_tool", "invalid_arguments")]
        return sum(p for p in parts if p is not None) if any(p is not None for p in parts) else None
    return row.get(col)


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.2f}" if abs(v) < 100 else f"{v:,.0f}"
    return str(v)


def to_markdown(report: dict[str, Any]) -> str:
    k = report["k"]
    run = report["run"]
    cols = _columns(k, [report["overall"]])
    who = run.get("model") or run.get("agent", "?")
    out = [f"# Eval report: {who} ({run.get('agent', '?')} agent)", ""]
    out.append(f"k = {k} · statuses: " + ", ".join(f"{s} {n}" for s, n in report["statuses"].items()))
    if report["infra_error_kinds"]:
        out.append(
            "infra errors (not scored): " + ", ".join(f"{s} {n}" for s, n in report["infra_error_kinds"].items())
        )
    out += [
        "",
        "## Per environment",
        "",
        "| env | " + " | ".join(HEADERS.get(c, c) for c in cols) + " |",
        "|---" * (len(cols) + 1) + "|",
    ]
    for row in [*report["envs"], report["overall"]]:
        out.append(f"| {row['env']} | " + " | ".join(_fmt(_value(row, c)) for c in cols) + " |")
    tcols = ["task_kind", "episodes", "passed", "pass@1", f"pass^{k}", "progress", "tool_error_rate", "steps"]
    out += ["", "## Per task", "", "| env | task | " + " | ".join(tcols) + " |", "|---" * (len(tcols) + 2) + "|"]
    for t in report["tasks"]:
        out.append(f"| {t['env']} | {t['task_id']} | " + " | ".join(_fmt(t.get(c)) for c in tcols) + " |")
    out += ["", "Metrics: see `awm/eval/report.py`. Infra errors are excluded from every rate.", ""]
    return "\n".join(out)


def print_report(report: dict[str, Any], console: Any = None, tasks: bool = False) -> None:
    from rich.table import Table

    from awm.console import make_console

    console = console or make_console()
    k = report["k"]
    cols = [c for c in _columns(k, [report["overall"]]) if c not in ("invalid", "redundant")]  # fit 80 columns
    from rich import box

    title = f"k = {k} · " + ", ".join(f"{s} {n}" for s, n in report["statuses"].items())
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), collapse_padding=True)
    table.add_column("env", no_wrap=True, min_width=max(len(r["env"]) for r in [*report["envs"], report["overall"]]))
    for c in cols:
        table.add_column(HEADERS.get(c, c), justify="right", min_width=len(HEADERS.get(c, c)))
    for row in report["envs"]:
        table.add_row(row["env"], *(_fmt(_value(row, c)) for c in cols))
    table.add_row(*["[bold]overall[/bold]", *(f"[bold]{_fmt(_value(report['overall'], c))}[/bold]" for c in cols)])
    console.print(table)
    if report["infra_error_kinds"]:
        kinds = ", ".join(f"{s} {n}" for s, n in report["infra_error_kinds"].items())
        console.print(f"[yellow]infra errors (not scored): {kinds}[/yellow]")
    if tasks:
        tcols = ["task_kind", "episodes", "passed", "pass@1", f"pass^{k}", "progress", "tool_error_rate", "steps"]
        tt = Table("env", "task", *tcols)
        for t in report["tasks"]:
            tt.add_row(t["env"], t["task_id"], *(_fmt(t.get(c)) for c in tcols))
        console.print(tt)


# -- comparing runs --------------------------------------------------------------------------------
COMPARE_COLUMNS = ("episodes", "pass@1", "pass@{k}", "pass^{k}", "outcome", "progress", "reward", "tool_error_rate")
FAILURES = ("malformed", "unknown_tool", "invalid_arguments", "tool_error", "timeout", "crashed")  # one per failure


def unique_dirs(run_dirs: Sequence[str | Path]) -> list[Path]:
    """The run folders in the order given, each once (a folder named twice is compared once)."""
    given: dict[Path, Path] = {}
    for d in map(Path, run_dirs):
        given.setdefault(d.resolve(), d)
    return list(given.values())


def run_labels(run_dirs: Sequence[str | Path]) -> list[str]:
    """Short unique names for runs: their folder names, with as many parent folders as it takes to tell them apart."""
    paths = [Path(d).resolve() for d in run_dirs]
    for depth in range(1, max((len(p.parts) for p in paths), default=1) + 1):
        labels = ["/".join(p.parts[-depth:]) for p in paths]
        if len(set(labels)) == len(labels):
            return labels
    return [str(p) for p in paths]


def default_comparison_dir(run_dirs: Sequence[str | Path]) -> Path:
    """Where a comparison goes by default: ``compare-<run>-vs-<run>...`` next to the first run."""
    dirs = unique_dirs(run_dirs)
    names = [re.sub(r"[^A-Za-z0-9_.-]+", "-", label).strip("-") for label in run_labels(dirs)]
    name = "compare-" + "-vs-".join(names)
    if len(name) > 100:
        import hashlib

        name = name[:90] + "-" + hashlib.sha256(name.encode()).hexdigest()[:8]
    return dirs[0].parent / name


def build_comparison(run_dirs: Sequence[str | Path], k: int | None = None) -> dict[str, Any]:
    """Several runs side by side at one k (default: the smallest of the runs' k, so that every run has pass@k).

    ``compared`` (the run labels), ``k``, ``runs`` (label, dir, agent/model, own k, statuses), ``envs`` and
    ``overall`` (each run's metric row, as in ``build_report``; None where a run lacks the environment),
    ``tasks`` (the tasks × runs grid: passed and scored trials per run) and ``same_tasks``.
    Raises ``EmptyRunError`` (its ``each`` lists them all) when any run has nothing scored."""
    dirs = unique_dirs(run_dirs)
    reports, empty = [], []
    for d in dirs:
        try:
            reports.append(build_report(d, k))
        except EmptyRunError as e:
            empty.append(e)
    if empty:
        raise EmptyRunError(empty[0].run_dir, empty[0].reason, empty[1:])
    own_k = [r["run_k"] for r in reports]
    if k is None:
        k = min(own_k)
        reports = [r if r["k"] == k else build_report(d, k) for r, d in zip(reports, dirs, strict=True)]
    labels = run_labels(dirs)
    runs = [
        {
            "label": label,
            "dir": str(d),
            "agent": r["run"].get("agent"),
            "model": r["run"].get("model"),
            "k": rk,
            "statuses": r["statuses"],
            "infra_error_kinds": r["infra_error_kinds"],
            "run": r["run"],
        }
        for label, d, r, rk in zip(labels, dirs, reports, own_k, strict=True)
    ]
    env_names = sorted({e["env"] for r in reports for e in r["envs"]})
    by_env = [{e["env"]: e for e in r["envs"]} for r in reports]
    by_task = [{(t["env"], t["task_id"]): t for t in r["tasks"]} for r in reports]
    tasks = []
    for env, task_id in sorted({key for index in by_task for key in index}):
        found = [index.get((env, task_id)) for index in by_task]
        cells = {
            label: None
            if t is None
            else {"passed": t["passed"], "trials": t["episodes"], "infra_errors": t["infra_errors"]}
            for label, t in zip(labels, found, strict=True)
        }
        kind = next((t["task_kind"] for t in found if t is not None), None)
        tasks.append({"env": env, "task_id": task_id, "task_kind": kind, "runs": cells})
    return {
        "compared": labels,
        "k": k,
        "same_tasks": len({frozenset(index) for index in by_task}) == 1,
        "runs": runs,
        "envs": [
            {"env": env, "runs": {label: index.get(env) for label, index in zip(labels, by_env, strict=True)}}
            for env in env_names
        ],
        "overall": {label: r["overall"] for label, r in zip(labels, reports, strict=True)},
        "tasks": tasks,
    }


def _compare_columns(k: int) -> list[str]:
    cols = list(dict.fromkeys(c.format(k=k) for c in COMPARE_COLUMNS))
    return [c for c in cols if c != "pass^1"]


def _who(info: dict[str, Any]) -> str:
    return info.get("model") or f"{info.get('agent') or '?'} agent"


def _run_line(run: dict[str, Any]) -> str:
    statuses = run["statuses"]
    infra = statuses.get("infra_error", 0)
    scored = sum(n for s, n in statuses.items() if s != "infra_error")
    line = f"{run['label']}: {_who(run['run'])} · k={run['k']} · {scored} episodes scored"
    line += f", {infra} infra errors (not scored)" if infra else ""
    return line + (f" · {run['dir']}" if run["dir"] != run["label"] else "")


def _comparison_notes(comp: dict[str, Any]) -> list[str]:
    k = comp["k"]
    notes = []
    if any(r["k"] != k for r in comp["runs"]):
        notes.append(f"the runs ran different k; all are reported at k = {k} (--k to choose another)")
    if not comp["same_tasks"]:
        notes.append("the runs cover different tasks: their overall rows average different task sets")
    return notes


def _comparison_rows(comp: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(env, run label, metric row) for every environment (the runs that have it) and overall."""
    out = [(e["env"], label, row) for e in comp["envs"] for label, row in e["runs"].items() if row is not None]
    return out + [("overall", label, row) for label, row in comp["overall"].items()]


def _cell(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "–"
    if not cell["trials"]:
        return "infra" if cell["infra_errors"] else "–"
    return f"{cell['passed']}/{cell['trials']}"


def comparison_markdown(comp: dict[str, Any]) -> str:
    k = comp["k"]
    cols = _compare_columns(k)
    out = [f"# Eval comparison: {', '.join(comp['compared'])}", "", f"k = {k}", ""]
    out += [f"- {_run_line(r)}" for r in comp["runs"]]
    out += [f"- note: {n}" for n in _comparison_notes(comp)]
    out += ["", "## Per environment", "", "| env | run | " + " | ".join(HEADERS.get(c, c) for c in cols) + " |"]
    out.append("|---" * (len(cols) + 2) + "|")
    for env, label, row in _comparison_rows(comp):
        out.append(f"| {env} | {label} | " + " | ".join(_fmt(row.get(c)) for c in cols) + " |")
    out += ["", "## Per task: passed / scored trials", "", "| env | task | " + " | ".join(comp["compared"]) + " |"]
    out.append("|---" * (len(comp["compared"]) + 2) + "|")
    for t in comp["tasks"]:
        out.append(f"| {t['env']} | {t['task_id']} | " + " | ".join(_cell(c) for c in t["runs"].values()) + " |")
    out += ["", "Metrics: see `awm/eval/report.py`. Infra errors are excluded from every rate.", ""]
    return "\n".join(out)


def print_comparison(comp: dict[str, Any], console: Any = None) -> None:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from awm.console import make_console

    console = console or make_console()
    k = comp["k"]
    cols = _compare_columns(k)
    console.print(f"comparing {len(comp['runs'])} runs at k = {k}")
    for r in comp["runs"]:
        console.print(f"  {escape(_run_line(r))}", soft_wrap=True)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), collapse_padding=True)
    table.add_column("env", no_wrap=True)
    table.add_column("run", no_wrap=True)
    for c in cols:
        table.add_column(HEADERS.get(c, c), justify="right", min_width=len(HEADERS.get(c, c)))
    last = None
    for env, label, row in _comparison_rows(comp):
        if last is not None and env != last:
            table.add_section()
        style = "bold" if env == "overall" else None
        values = (_fmt(row.get(c)) for c in cols)
        table.add_row(env if env != last else "", escape(label), *values, style=style)
        last = env
    console.print(table)
    grid = Table(title="per task: passed / scored trials", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
    grid.add_column("env", no_wrap=True)
    grid.add_column("task", no_wrap=True)
    for label in comp["compared"]:
        grid.add_column(escape(label), justify="right", no_wrap=True)
    for i, t in enumerate(comp["tasks"]):
        if i and t["env"] != comp["tasks"][i - 1]["env"]:
            grid.add_section()
        cells = []
        for c in t["runs"].values():
            colour = None if c is None or not c["trials"] else "green" if c["passed"] == c["trials"] else "red"
            colour = "yellow" if c and 0 < c["passed"] < c["trials"] else colour
            cells.append(f"[{colour}]{_cell(c)}[/{colour}]" if colour else _cell(c))
        grid.add_row(t["env"] if not i or t["env"] != comp["tasks"][i - 1]["env"] else "", t["task_id"], *cells)
    console.print(grid)
    for note in _comparison_notes(comp):
        console.print(f"[yellow]note: {escape(note)}[/yellow]", soft_wrap=True)


# -- charts ----------------------------------------------------------------------------------------
# Horizontal bars, one row per environment, ranked by score: a name is read where it is written (never slanted,
# never under its neighbour's), and the figure grows in height with the environments (27 or 1,000).
METRIC_COLOURS = ("#3b7dd8", "#2a9d8f", "#f0a030")
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
RATE_TICKS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
NAME_CHARS = 28  # an environment's name in a label, cut with an ellipsis beyond this (the gid keeps it whole)
BAR_INCH = 0.16  # one bar's thickness: room for its value printed at 7 points
ROW_GAP_INCH = 0.14  # between two environments' rows
CHAR_INCH = 0.07  # about one character's width at 9 points
PLOT_INCH = 3.6  # a panel's plotting width (0–1 axis)
DECOR_INCH = 1.9  # the suptitle, panel titles, x tick labels and x labels, together


def short(name: str, chars: int = NAME_CHARS) -> str:
    """``name`` cut to ``chars`` characters with an ellipsis when longer."""
    return name if len(name) <= chars else name[: chars - 1].rstrip() + "…"


def _ranked(names: list[str], score: dict[str, float | None]) -> list[str]:
    """``names`` best first by ``score`` (no score last), ties by name; ``overall`` always on top."""
    rest = sorted((n for n in names if n != "overall"), key=lambda n: (score.get(n) is None, -(score.get(n) or 0), n))
    return (["overall"] if "overall" in names else []) + rest


def _rows_height(groups: int, per_group: int) -> float:
    return groups * (per_group * BAR_INCH + ROW_GAP_INCH)


def _label_width(labels: list[str]) -> float:
    return 0.35 + CHAR_INCH * max((len(t) for t in labels), default=0)


def _chart_rows(envs: list[Any], overall: Any) -> list[Any]:
    """The environments, and overall when there is more than one (with one it would repeat the same bars)."""
    return [*envs, overall] if len(envs) > 1 else list(envs)


def _row_axis(ax: Axes, labels: list[str]) -> None:
    """One row per group, top to bottom; a rule under ``overall`` when it heads other rows."""
    ax.set_yticks(range(len(labels)), labels, fontsize=9)
    ax.set_ylim(len(labels) - 0.5, -0.5)  # the first row on top
    ax.tick_params(axis="y", length=0)
    if len(labels) > 1 and labels[0] == "overall":
        ax.axhline(0.5, color="grey", linewidth=0.8)


def _bars(
    ax: Axes, groups: list[str], series: list[tuple[str, list[float | None]]], colours: Sequence[Any], gid: Any
) -> None:
    """Grouped horizontal bars on a 0–1 axis: one row per group (``groups`` are the full names, shown cut to
    ``NAME_CHARS``), one bar per series in it, its value printed at its end (n/a where there is none);
    ``gid(group, series)`` names each bar."""
    height = 0.8 / max(1, len(series))
    for j, (name, values) in enumerate(series):
        offset = (j - (len(series) - 1) / 2) * height
        present = [(i, v) for i, v in enumerate(values) if v is not None]
        bars = ax.barh(
            [i + offset for i, _ in present],
            [v for _, v in present],
            height * 0.9,
            label=name,
            color=colours[j % len(colours)],
        )
        for (i, v), rect in zip(present, bars.patches, strict=True):
            rect.set_gid(gid(groups[i], name))
            inside = v > 0.88
            ax.text(
                v - 0.01 if inside else v + 0.01,
                i + offset,
                f"{v:.2f}",
                ha="right" if inside else "left",
                va="center",
                fontsize=7,
                color="white" if inside else "black",
            )
        for i in (i for i, v in enumerate(values) if v is None):
            ax.text(0.01, i + offset, "n/a", ha="left", va="center", fontsize=7, color="grey")
    _row_axis(ax, [short(g) for g in groups])
    ax.set_xlim(0.0, 1.0)
    ax.set_xticks(RATE_TICKS)
    ax.xaxis.grid(True, alpha=0.3)
    ax.set_axisbelow(True)


def _kind_label(kind: str) -> str:
    """A grid column's header, one word a line (``tool_error_rate`` is any failure)."""
    return "any\nfailure" if kind == "tool_error_rate" else kind.replace("_", "\n")


def _grid(ax: Axes, rows: list[dict[str, Any]], columns: list[str], run: str) -> None:
    """A rows × columns grid of rates (a cell per environment and kind, its value printed in it, shaded by it);
    each cell is a Rectangle whose gid is ``env|kind|run``."""
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    cmap = colormaps["Oranges"]
    top = max((r.get(c) or 0.0 for r in rows for c in columns), default=0.0) or 1.0
    for i, r in enumerate(rows):
        for j, c in enumerate(columns):
            v = r.get(c)
            if v is None:
                continue
            shade = cmap(0.08 + 0.8 * v / top)
            ax.add_patch(
                Rectangle((j - 0.5, i - 0.5), 1.0, 1.0, facecolor=shade, edgecolor="white", gid=f"{r['env']}|{c}|{run}")
            )
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7, color="white" if v / top > 0.6 else "black")
    ax.set_xticks(range(len(columns)), [_kind_label(c) for c in columns], fontsize=8)
    ax.set_xlim(-0.5, len(columns) - 0.5)
    ax.xaxis.set_ticks_position("top")
    ax.xaxis.set_label_position("top")
    ax.tick_params(axis="x", length=0)
    _row_axis(ax, [f"{short(r['env'])} ({r.get('actions') or 0} actions)" for r in rows])
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)


def _label(ax: Axes, title: str, xlabel: str, ylabel: str) -> None:
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def _legend_right(ax: Axes, title: str) -> None:
    """A legend outside the axes, to the right of the plot (clear of the bars and the tick labels)."""
    ax.legend(
        title=title,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        frameon=False,
        fontsize=8,
        title_fontsize=8,
    )


def report_figure(report: dict[str, Any]) -> Figure:
    """The chart of one run, three panels with titles and labelled axes, one row per environment ranked by
    pass@1 (overall on top): pass@1 (with pass@k and pass^k when k > 1) as horizontal bars; final progress Φ
    per write-task episode as horizontal box plots; failed actions (any, then each kind), redundant and no-op
    calls as a grid of rates, one row per environment. Each bar's and cell's gid is ``env|metric|run``."""
    from matplotlib.figure import Figure

    k = report["k"]
    run = run_labels([report["dir"]])[0] if report.get("dir") else "run"
    by_env = {r["env"]: r for r in _chart_rows(report["envs"], report["overall"])}
    rows = [by_env[g] for g in _ranked(list(by_env), {g: r.get("pass@1") for g, r in by_env.items()})]
    groups = [r["env"] for r in rows]
    metrics = ["pass@1", *([f"pass@{k}", f"pass^{k}"] if k > 1 else [])]
    kinds = [f for f in (*FAILURES, "redundant", "noop") if any(r.get(f) for r in rows)]
    columns = ["tool_error_rate", *kinds] if kinds else []
    dist = report["distributions"]["progress"]
    phi = [(g, dist[g]) for g in groups if dist.get(g)]
    phi_labels = [f"{short(env)} ({len(v)} episodes)" for env, v in phi]
    act_labels = [f"{short(g)} ({r.get('actions') or 0} actions)" for g, r in zip(groups, rows, strict=True)]
    widths = [
        PLOT_INCH + (1.2 if len(metrics) > 1 else 0.0),
        PLOT_INCH if phi else 2.5,
        max(2.5, 0.8 * len(columns)),
    ]
    decor = [_label_width([short(g) for g in groups]), _label_width(phi_labels), _label_width(act_labels)]
    height = max(_rows_height(len(groups), len(metrics)), 0.3 * len(phi), 0.3 * len(groups) if columns else 0.0)
    fig = Figure(figsize=(sum(widths) + sum(decor) + 0.6, max(4.4, height + DECOR_INCH)), layout="constrained")
    ax_pass, ax_phi, ax_act = fig.subplots(1, 3, width_ratios=widths)

    series = [(m, [r.get(m) for r in rows]) for m in metrics]
    _bars(ax_pass, groups, series, METRIC_COLOURS, lambda g, m: f"{g}|{m}|{run}")
    if len(metrics) > 1:
        _label(ax_pass, "pass rates per environment", "rate (mean over tasks)", "environment (best first)")
        _legend_right(ax_pass, "metric")
    else:
        _label(ax_pass, "pass@1 per environment", "pass@1 (mean over tasks)", "environment (best first)")

    if phi:
        ax_phi.boxplot(
            [v for _, v in phi], positions=list(range(len(phi))), orientation="horizontal", showmeans=True, widths=0.5
        )
        _row_axis(ax_phi, phi_labels)
    else:
        ax_phi.set_yticks([])
        ax_phi.text(0.5, 0.5, "no write task\nwas scored", ha="center", va="center", transform=ax_phi.transAxes)
    ax_phi.set_xlim(-0.04, 1.04)
    ax_phi.set_xticks(RATE_TICKS)
    ax_phi.xaxis.grid(True, alpha=0.3)
    _label(ax_phi, "final progress Φ per episode (write tasks)", "Φ (fraction of checks met)", "environment")

    if columns:
        _grid(ax_act, rows, columns, run)
        _label(ax_act, "failed, redundant and no-op actions", "fraction of actions", "environment")
    else:
        ax_act.set_xticks([])
        ax_act.set_yticks([])
        ax_act.text(
            0.5, 0.5, "no failed, redundant\nor no-op action", ha="center", va="center", transform=ax_act.transAxes
        )
        _label(ax_act, "failed, redundant and no-op actions", "fraction of actions", "environment")

    scored = report["overall"].get("episodes") or 0
    fig.suptitle(f"{_who(report['run'])} · {run} · {scored} episodes scored · k = {k}")
    return fig


def comparison_figure(comp: dict[str, Any]) -> Figure:
    """The chart of several runs: one panel per metric (pass@1, pass@k when k > 1, mean final progress Φ, tool
    error rate) side by side, sharing one row per environment (ranked by pass@1 averaged over the runs, overall
    on top) with one horizontal bar per run in it, one colour per run, and one legend naming the runs right of
    the panels. Each bar's gid is ``env|metric|run``."""
    from matplotlib.figure import Figure

    k = comp["k"]
    labels = comp["compared"]
    envs = comp["envs"]
    by_env = {e["env"]: e["runs"] for e in envs}
    if len(envs) > 1:
        by_env["overall"] = comp["overall"]
    mean = {g: _mean([(row.get(label) or {}).get("pass@1") for label in labels]) for g, row in by_env.items()}
    groups = _ranked(list(by_env), mean)
    rows = [by_env[g] for g in groups]
    panels = [
        ("pass@1", "pass@1 per environment", "pass@1 (mean over tasks)"),
        *([(f"pass@{k}", f"pass@{k} per environment", f"pass@{k} (mean over tasks)")] if k > 1 else []),
        ("progress", "mean final progress Φ (write tasks)", "Φ (fraction of checks met)"),
        ("tool_error_rate", "failed actions per environment", "tool error rate"),
    ]
    legend = 0.6 + 0.08 * max(len(label) for label in labels)
    width = _label_width([short(g) for g in groups]) + PLOT_INCH * len(panels) + 0.3 * len(panels) + legend
    height = max(4.4, _rows_height(len(groups), len(labels)) + DECOR_INCH)
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False).ravel()
    for ax, (metric, title, xlabel) in zip(axes, panels, strict=True):
        series = [(label, [(row.get(label) or {}).get(metric) for row in rows]) for label in labels]
        _bars(ax, groups, series, PALETTE, lambda g, run, m=metric: f"{g}|{m}|{run}")
        _label(ax, title, xlabel, "environment (best first)" if ax is axes[0] else "")
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, title="run", loc="outside right upper", frameon=False)
    fig.suptitle(f"{len(labels)} runs compared · k = {k}")
    return fig


def plot_report(report: dict[str, Any], path: str | Path) -> Path:
    """Write ``report_figure`` (one run) as a PNG."""
    return _save(report_figure(report), path)


def plot_comparison(comp: dict[str, Any], path: str | Path) -> Path:
    """Write ``comparison_figure`` (several runs) as a PNG."""
    return _save(comparison_figure(comp), path)


def _save(fig: Figure, path: str | Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)  # Agg, offline, no pyplot state
    path = Path(path)
    fig.savefig(path, dpi=110)
    return path


def write_report(
    run_dir: str | Path, k: int | None = None, png: bool = True, out: str | Path | None = None
) -> dict[str, Any]:
    """Build the report and write ``report.json``, ``report.md`` (and ``report.png``) into ``out`` (default:
    ``run_dir``). Raises ``EmptyRunError`` (nothing written) when nothing was scored."""
    report = build_report(run_dir, k)
    _write(Path(out or run_dir), report, to_markdown(report), plot_report if png else None)
    return report


def write_comparison(
    run_dirs: Sequence[str | Path], out: str | Path | None = None, k: int | None = None, png: bool = True
) -> dict[str, Any]:
    """Compare runs and write ``report.json``, ``report.md`` (and ``report.png``) into ``out`` (default:
    ``default_comparison_dir``). Raises ``EmptyRunError`` (nothing written) for a run with nothing scored."""
    comp = build_comparison(run_dirs, k)
    _write(
        Path(out or default_comparison_dir(run_dirs)), comp, comparison_markdown(comp), plot_comparison if png else None
    )
    return comp


def _write(out: Path, data: dict[str, Any], markdown: str, plot: Any) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(data, indent=2, default=str) + "\n")
    (out / "report.md").write_text(markdown)
    if plot is not None:
        plot(data, out / "report.png")
