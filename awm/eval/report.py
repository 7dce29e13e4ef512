"""``awm report RUN``: DuckDB over a run's ``results.jsonl`` -> metrics per environment, per task and overall.

Metrics (infra errors are counted, never scored):

- ``pass@1``: mean over tasks of c/n (n scored trials, c passed).
- ``pass@k``: mean over tasks of 1 − C(n−c, k)/C(n, k) (at least one of k trials passes).
- ``pass^k``: mean over tasks of C(c, k)/C(n, k) (all k trials pass; tau-bench's reliability metric).
- ``outcome``, ``progress`` (Φ of the final state, over write tasks), ``reward`` (the episode's total scalar reward),
  ``answer_correct`` (information tasks): means over scored episodes.
- per-action channel rates over every action before the final answer: ``tool_error_rate`` (any action
  that failed: malformed, unknown tool, invalid arguments, tool error, timeout, crash), and each flag alone.
- ``steps``: env steps per episode (tool calls and the final answer).

Writes ``report.json``, ``report.md`` and ``report.png`` next to the results.
"""

from __future__ import annotations

import json
from math import comb
from pathlib import Path
from typing import Any

from awm.eval.runner import RESULTS, RUN_INFO

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
    """Every metric of a run as a JSON-able dict: ``run``, ``k``, ``overall``, ``envs``, ``tasks``, ``statuses``."""
    import duckdb

    run_dir = Path(run_dir)
    results = run_dir / RESULTS
    if not results.exists():
        raise FileNotFoundError(f"{results} does not exist; run `awm eval --out {run_dir}` first")
    info = json.loads((run_dir / RUN_INFO).read_text()) if (run_dir / RUN_INFO).exists() else {}
    con = duckdb.connect()
    con.execute(_EPISODES.format(columns=_duck_struct(_COLUMNS)), [str(results)])
    con.execute(_ACTIONS.format(flags=", ".join(f"coalesce(x.s.reward_components.{f}, false) AS {f}" for f in FLAGS)))
    trials = con.execute("SELECT max(trial) + 1 FROM ep").fetchone()
    k = k or int(info.get("k") or (trials[0] if trials and trials[0] else 1))

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
        "k": k,
        "statuses": statuses,
        "infra_error_kinds": errors,
        "overall": overall,
        "envs": envs,
        "tasks": tasks,
        "distributions": {"progress": progress},
    }


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


def plot_report(report: dict[str, Any], path: str | Path) -> Path:
    """A PNG: pass@1 and pass^k per environment; the distribution of final progress Φ per environment;
    per-action channel rates per environment."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = report["k"]
    envs = report["envs"]
    names = [e["env"] for e in envs] + ["overall"]
    rows = [*envs, report["overall"]]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8), constrained_layout=True)
    x = list(range(len(names)))
    w = 0.38
    ax = axes[0]
    p1 = [r.get("pass@1") or 0.0 for r in rows]
    pk = [r.get(f"pass^{k}") or 0.0 for r in rows]
    shift = w / 2 if k > 1 else 0.0
    ax.bar([i - shift for i in x], p1, w, label="pass@1", color="#3b7dd8")
    if k > 1:
        ax.bar([i + shift for i in x], pk, w, label=f"pass^{k}", color="#f0a030")
    for i, v in enumerate(p1):
        ax.text(i - shift, v + 0.01, f"{v:.2f}", ha="center", fontsize=8)
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylim(0, 1.08)
    ax.set_title("pass rate per environment")
    ax.legend(loc="upper right", fontsize=8)

    ax = axes[1]
    dist = report["distributions"]["progress"]
    data = [dist.get(e["env"], []) or [0.0] for e in envs]
    ax.boxplot(data, showmeans=True)
    ax.set_xticks(range(1, len(envs) + 1), [e["env"] for e in envs], rotation=20)
    ax.set_ylim(-0.05, 1.05)
    ax.set_title("final progress Φ (fraction of checks) per episode")

    ax = axes[2]
    chans = ["tool_error_rate", "invalid_arguments", "unknown_tool", "malformed", "tool_error", "redundant", "noop"]
    cw = 0.8 / max(1, len(envs))
    for j, e in enumerate(envs):
        ax.bar([i + j * cw for i in range(len(chans))], [e.get(c) or 0.0 for c in chans], cw, label=e["env"])
    ax.set_xticks([i + cw * (len(envs) - 1) / 2 for i in range(len(chans))], chans, rotation=30, ha="right")
    ax.set_title("per-action channel rates")
    ax.legend(fontsize=8)
    run = report["run"]
    fig.suptitle(
        f"{run.get('model') or run.get('agent', '')} · {report['overall'].get('episodes', 0)} episodes · k={k}"
    )
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_report(run_dir: str | Path, k: int | None = None, png: bool = True) -> dict[str, Any]:
    """Build the report and write ``report.json``, ``report.md`` (and ``report.png``) into ``run_dir``."""
    run_dir = Path(run_dir)
    report = build_report(run_dir, k)
    (run_dir / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    (run_dir / "report.md").write_text(to_markdown(report))
    if png:
        plot_report(report, run_dir / "report.png")
    return report
