"""Report metrics on hand-made records with known answers; comparisons of runs; empty runs; the chart."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import Result
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from typer.testing import CliRunner

from awm.cli import app
from awm.eval.records import EvalRecord, InfraProblem, Status
from awm.eval.report import (
    EmptyRunError,
    build_comparison,
    build_report,
    comparison_figure,
    pass_at_k,
    pass_hat_k,
    report_figure,
    run_labels,
    short,
    to_markdown,
)
from awm.gym.trajectory import StepRecord, TrajectoryRecord


def step(tool: str | None, ok: bool, **flags: object) -> StepRecord:
    comps = {"progress": flags.pop("progress", 0.0), **flags}
    return StepRecord(action="x", observation="{}", tool=tool, ok=ok, reward=0.0, reward_components=comps)


def record(
    task: str, trial: int, status: Status, steps: list[StepRecord], kind: str = "single_write", env: str = "e"
) -> EvalRecord:
    traj = TrajectoryRecord(
        env_id=f"awm/{env}-v0", task_id=task, task_kind=kind, instruction="i", seed=trial, steps=steps
    )
    return EvalRecord(
        run_id="r",
        agent="a",
        env=env,
        task_id=task,
        trial=trial,
        seed=trial,
        status=status,
        outcome=None if status == Status.infra_error else float(status == Status.passed),
        error=InfraProblem(kind="llm_timeout", message="m") if status == Status.infra_error else None,
        trajectory=traj,
    )


def test_pass_estimators() -> None:
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_at_k(4, 2, 2) == pytest.approx(5 / 6)
    assert pass_hat_k(2, 2, 2) == 1.0 and pass_at_k(2, 0, 2) == 0.0
    assert pass_hat_k(1, 1, 2) is None


def test_report_on_known_records(tmp_path: Path) -> None:
    answer = step(None, True, progress=1.0)
    recs = [
        record("a", 0, Status.passed, [step("t", True), answer]),
        record("a", 1, Status.passed, [step("t", False, tool_error=True), answer]),
        record("b", 0, Status.passed, [step("t", False, unknown_tool=True), step("t", True), answer]),
        record("b", 1, Status.failed, [step(None, False, malformed=True), step(None, True, progress=0.5)]),
        record("c", 0, Status.infra_error, [step("t", True)]),  # never scored
        record("c", 1, Status.infra_error, []),
    ]
    # a retried infra error later scored: the scored line wins
    recs.append(record("c", 0, Status.truncated, [step("t", True), step("t", True)]))
    (tmp_path / "results.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in recs))
    rep = build_report(tmp_path, k=2)
    o = rep["overall"]
    assert rep["statuses"] == {"failed": 1, "infra_error": 1, "passed": 3, "truncated": 1}
    assert o["episodes"] == 5 and o["infra_errors"] == 1
    # tasks: a 2/2, b 1/2, c 0/1 -> pass@1 = (1 + .5 + 0) / 3; pass^2 over tasks with 2 scored trials
    assert o["pass@1"] == pytest.approx(0.5)
    assert o["pass^2"] == pytest.approx(0.5) and o["pass@2"] == pytest.approx(1.0)
    # actions before the answer: 1+1+2+1+2 = 7, of which 3 failed
    assert o["actions"] == 7 and o["tool_error_rate"] == pytest.approx(3 / 7)
    assert o["unknown_tool"] == pytest.approx(1 / 7) and o["malformed"] == pytest.approx(1 / 7)
    assert o["steps"] == pytest.approx((2 + 2 + 3 + 2 + 2) / 5)
    assert o["progress"] == pytest.approx((1 + 1 + 1 + 0.5 + 0) / 5)
    assert "| e |" in to_markdown(rep)


# -- several runs, empty runs, the chart -------------------------------------------------------------


def run_dir(path: Path, records: list[EvalRecord], agent: str = "a", k: int | None = None) -> Path:
    """A run folder as ``awm eval`` leaves it: results.jsonl and run.json."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records))
    (path / "run.json").write_text(json.dumps({"agent": agent, "model": None, "k": k}))
    return path


def trials(env: str, task: str, outcomes: str, kind: str = "single_write") -> list[EvalRecord]:
    """One record per character: p passed, f failed (after a failed tool call), i infra error."""
    status = {"p": Status.passed, "f": Status.failed, "i": Status.infra_error}
    out = []
    for trial, o in enumerate(outcomes):
        steps = [step("t", True), step(None, True, progress=1.0)] if o == "p" else [step("t", False, tool_error=True)]
        out.append(record(task, trial, status[o], steps, kind=kind, env=env))
    return out


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    """Two runs over two environments at k = 2; b lacks one task of env y."""
    a = [*trials("x", "t1", "pp"), *trials("x", "t2", "pf"), *trials("y", "t3", "ff", kind="information")]
    a += trials("y", "t4", "pp")
    b = [*trials("x", "t1", "pf"), *trials("x", "t2", "ff"), *trials("y", "t3", "pp", kind="information")]
    return run_dir(tmp_path / "runs" / "a", a, "oracle", 2), run_dir(tmp_path / "runs" / "b", b, "random", 2)


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(app, ["report", *map(str, args)], env={"COLUMNS": None})


REPORT_FILES = ("report.json", "report.md", "report.png")


def assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_compare_runs_prints_and_writes_the_table_and_the_grid(runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = runs
    res = invoke(a, b, "--out", tmp_path / "cmp")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "comparing 2 runs at k = 2" in out
    assert "a: oracle agent · k=2 · 8 episodes scored" in out and "b: random agent" in out
    # per environment and overall, one row per run, pass@1, pass@k, pass^k, outcome, Φ, reward, err side by side
    header = next(line for line in out.splitlines() if "pass@1" in line)
    for col in ("run", "pass@1", "pass@2", "pass^2", "outcome", "Φ", "reward", "err"):
        assert col in header
    assert len([line for line in out.splitlines() if line.split()[:1] == ["overall"]]) == 1  # env named once
    grid = {tuple(line.split()[-3:]) for line in out.splitlines()}
    assert ("t1", "2/2", "1/2") in grid and ("t2", "1/2", "0/2") in grid and ("t4", "2/2", "–") in grid
    assert "different tasks" in out  # b lacks t4: the overall rows are not over the same tasks
    assert f"wrote report.json, report.md, report.png in {tmp_path / 'cmp'}" in out
    for name in REPORT_FILES:
        assert (tmp_path / "cmp" / name).stat().st_size > 0
    assert_png(tmp_path / "cmp" / "report.png")
    assert not (a / "report.json").exists() and not (b / "report.json").exists()  # the runs are left alone

    comp = json.loads((tmp_path / "cmp" / "report.json").read_text())
    assert comp["compared"] == ["a", "b"] and comp["k"] == 2 and comp["same_tasks"] is False
    assert [r["agent"] for r in comp["runs"]] == ["oracle", "random"]
    x = next(e for e in comp["envs"] if e["env"] == "x")["runs"]
    assert x["a"]["pass@1"] == pytest.approx(0.75) and x["b"]["pass@1"] == pytest.approx(0.25)
    assert x["a"]["pass@2"] == pytest.approx(1.0) and x["a"]["pass^2"] == pytest.approx(0.5)
    assert comp["overall"]["b"]["pass@1"] == pytest.approx(0.5)  # t1 1/2, t2 0/2, t3 2/2
    cells = {t["task_id"]: t["runs"] for t in comp["tasks"]}
    assert cells["t1"] == {
        "a": {"passed": 2, "trials": 2, "infra_errors": 0},
        "b": {"passed": 1, "trials": 2, "infra_errors": 0},
    }
    assert cells["t4"]["b"] is None
    md = (tmp_path / "cmp" / "report.md").read_text()
    assert "| x | a | 4 | 0.75 | 1.00 | 0.50 |" in md
    assert "| y | t4 | 2/2 | – |" in md and "| x | t2 | 1/2 | 0/2 |" in md


def test_compare_defaults_to_a_folder_next_to_the_first_run(runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = runs
    res = invoke(a, b, a)  # a run named twice is compared once
    assert res.exit_code == 0, res.output
    assert "comparing 2 runs" in res.stdout
    for name in REPORT_FILES:
        assert (a.parent / "compare-a-vs-b" / name).stat().st_size > 0
    # the comparison folder is not mistaken for a run
    res = invoke(a, a.parent / "compare-a-vs-b")
    assert res.exit_code == 1
    assert "compare-a-vs-b: holds a comparison written by `awm report`, not a run" in res.stderr


def test_runs_of_the_same_name_are_told_apart(tmp_path: Path) -> None:
    one = run_dir(tmp_path / "m1" / "run", trials("x", "t1", "p"))
    two = run_dir(tmp_path / "m2" / "run", trials("x", "t1", "f"))
    assert run_labels([one, two]) == ["m1/run", "m2/run"]
    comp = build_comparison([one, two])
    assert comp["compared"] == ["m1/run", "m2/run"] and comp["k"] == 1


def test_compare_at_the_smallest_k_unless_told(tmp_path: Path) -> None:
    k1 = run_dir(tmp_path / "k1", trials("x", "t1", "p"), k=1)
    k3 = run_dir(tmp_path / "k3", trials("x", "t1", "pff"), k=3)
    comp = build_comparison([k1, k3])
    assert comp["k"] == 1 and [r["k"] for r in comp["runs"]] == [1, 3]
    assert "pass@3" not in comp["overall"]["k3"]
    comp = build_comparison([k1, k3], k=3)
    assert comp["k"] == 3 and [r["k"] for r in comp["runs"]] == [1, 3]
    assert comp["overall"]["k3"]["pass@3"] == pytest.approx(1.0) and comp["overall"]["k1"]["pass@3"] is None
    res = invoke(k1, k3, "--out", tmp_path / "cmp")
    assert res.exit_code == 0 and "the runs ran different k; all are reported at k = 1" in res.stdout


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "no results.jsonl: nothing was run here; run `awm eval --out {run}` first"),
        ("", "results.jsonl holds no episode; nothing to report"),
        ("infra", "nothing was scored: all 2 episode(s) hit infrastructure errors (llm_timeout 2)"),
    ],
)
def test_an_empty_run_is_a_message_and_exit_1_not_a_chart_of_zeros(
    tmp_path: Path, runs: tuple[Path, Path], content: str | None, reason: str
) -> None:
    run = tmp_path / "empty"
    run.mkdir()
    if content == "infra":
        run_dir(run, trials("x", "t1", "ii"))
    elif content is not None:
        (run / "results.jsonl").write_text(content)
    message = f"awm report: {run}: {reason.format(run=run)}"
    res = invoke(run)
    assert res.exit_code == 1
    assert res.stderr.startswith(message) and len(res.stderr.strip().splitlines()) == 1 and res.stdout == ""
    assert not any((run / name).exists() for name in REPORT_FILES)
    with pytest.raises(EmptyRunError):
        build_report(run)
    # in a comparison: every empty run is named, one line each, and nothing is written
    other = run_dir(tmp_path / "other" / "empty", [])
    res = invoke(runs[0], run, other, "--out", tmp_path / "cmp")
    assert res.exit_code == 1
    lines = res.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith(message)
    assert lines[1] == f"awm report: {other}: results.jsonl holds no episode; nothing to report"
    assert not (tmp_path / "cmp").exists()


def test_a_missing_run_directory_is_exit_2(tmp_path: Path, runs: tuple[Path, Path]) -> None:
    res = invoke(runs[0], tmp_path / "nope")
    assert res.exit_code == 2
    assert res.stderr.strip() == f"awm report: {tmp_path / 'nope'}: no such run directory"
    res = invoke(runs[0] / "results.jsonl")
    assert res.exit_code == 2 and "not a run directory" in res.stderr
    res = invoke()
    assert res.exit_code == 2 and "Missing argument" in res.output


def test_a_malformed_results_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run = run_dir(tmp_path / "torn", trials("x", "t1", "pf"))
    with (run / "results.jsonl").open("a") as f:
        f.write('{"env": "x", "task_id": ')
    res = invoke(run)
    assert res.exit_code == 2 and res.stderr.startswith("awm report: cannot read ")
    assert len(res.stderr.strip().splitlines()) == 1


def test_one_run_writes_its_files_and_report_json_keeps_its_keys(runs: tuple[Path, Path]) -> None:
    a, _ = runs
    res = invoke(a)
    assert res.exit_code == 0, res.output
    assert f"wrote report.json, report.md, report.png in {a}" in res.stdout
    assert_png(a / "report.png")
    rep = json.loads((a / "report.json").read_text())
    old = {"run", "k", "statuses", "infra_error_kinds", "overall", "envs", "tasks", "distributions"}
    assert old <= set(rep) and rep["dir"] == str(a) and rep["run_k"] == 2
    for key in ("pass@1", "pass@2", "pass^2", "tool_error_rate", "episodes", "progress", "reward"):
        assert key in rep["overall"]


# -- the chart, structurally ---------------------------------------------------------------------------


def rendered(fig: Figure) -> Any:
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def bars(fig: Figure) -> list[Rectangle]:
    """Every named patch: the bars and the grid's cells."""
    return [p for ax in fig.axes for p in ax.patches if isinstance(p, Rectangle) and p.get_gid()]


def is_bar(p: Rectangle) -> bool:
    return p.axes is not None and any(p in c for c in p.axes.containers)


def tick_labels(fig: Figure) -> list[Any]:
    axes = [ax for ax in fig.axes if ax.get_visible()]
    labels = [t for ax in axes for t in (*ax.get_xticklabels(), *ax.get_yticklabels())]
    return [t for t in labels if t.get_visible() and t.get_text()]


def assert_labels_apart(fig: Figure, renderer: Any = None) -> None:
    """No two tick labels of the figure touch (the 27-environment chart smeared its x labels into one another),
    and each lies inside the figure."""
    renderer = renderer or rendered(fig)
    labels = tick_labels(fig)
    boxes = np.array([t.get_window_extent(renderer).extents for t in labels]).reshape(-1, 4)
    x0, y0, x1, y1 = (boxes[:, i] for i in range(4))
    left, bottom, right, top = fig.bbox.extents
    outside = (x0 < left) | (y0 < bottom) | (x1 > right) | (y1 > top)
    assert not outside.any(), f"{labels[int(np.argmax(outside))].get_text()!r} outside the figure"
    touch = (x0[:, None] <= x1) & (x0 <= x1[:, None]) & (y0[:, None] <= y1) & (y0 <= y1[:, None])
    np.fill_diagonal(touch, False)
    if touch.any():
        i, j = np.argwhere(touch)[0]
        raise AssertionError(f"tick labels {labels[i].get_text()!r} and {labels[j].get_text()!r} overlap")


def assert_readable(fig: Figure) -> None:
    """Every visible panel is titled and labelled (the y axis where its names show); tick labels are apart; bars
    are unique, horizontal, valued, on a 0–1 axis and grid cells valued; legends sit outside every panel, clear of
    bars, tick labels and axis labels, inside the figure."""
    renderer = rendered(fig)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    for ax in axes:
        assert ax.get_title() and ax.get_xlabel()
        assert ax.get_ylabel() or not any(t.get_visible() and t.get_text() for t in ax.get_yticklabels())
    assert_labels_apart(fig, renderer)
    gids = [b.get_gid() for b in bars(fig)]
    assert len(gids) == len(set(gids))
    positions = [(id(b.axes), round(b.get_x(), 6), round(b.get_y() + b.get_height() / 2, 6)) for b in bars(fig)]
    assert len(positions) == len(set(positions))
    texts = {id(ax): [(t.get_text(), *t.get_position()) for t in ax.texts] for ax in axes}
    values = {id(ax): {(text, round(y, 9)) for text, _, y in texts[id(ax)]} for ax in axes}
    centres = {id(ax): {(round(x, 9), round(y, 9)) for text, x, y in texts[id(ax)] if re.fullmatch(r"\d\.\d\d", text)}
               for ax in axes}  # fmt: skip
    for b in bars(fig):
        assert b.axes is not None
        y = round(b.get_y() + b.get_height() / 2, 9)
        if is_bar(b):  # from 0 on a 0–1 axis, its value printed beside it
            assert b.axes.get_xlim() == (0.0, 1.0) and b.get_x() == 0.0
            assert (f"{b.get_width():.2f}", y) in values[id(b.axes)], b.get_gid()
        else:  # a grid cell: its value printed at its centre
            assert (round(b.get_x() + b.get_width() / 2, 9), y) in centres[id(b.axes)], b.get_gid()
    legends = [*fig.legends, *(ax.get_legend() for ax in axes if ax.get_legend() is not None)]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1)
        for ax in axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), "a legend over a panel"
            texts = [*ax.get_xticklabels(), *ax.get_yticklabels(), ax.xaxis.label, ax.yaxis.label, ax.title]
            for t in texts:
                if t.get_text():
                    assert not box.overlaps(t.get_window_extent(renderer)), f"a legend over {t.get_text()!r}"


def test_the_legend_check_bites() -> None:
    fig = Figure(layout="constrained")
    ax = fig.subplots()
    ax.barh([0, 1], [0.9, 0.8], label="pass@1")
    ax.set(title="t", xlabel="x", ylabel="y", xlim=(0.0, 1.0), yticks=[0, 1])
    ax.legend(loc="upper right")  # the old chart's legend: over the bars
    with pytest.raises(AssertionError, match="a legend over a panel"):
        assert_readable(fig)


def test_the_overlap_check_bites() -> None:
    """The old chart's failure: 27 names side by side under a panel run into one another."""
    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = fig.subplots()
    ax.set_xticks(range(27), [f"environment_{i}" for i in range(27)])
    with pytest.raises(AssertionError, match="overlap"):
        assert_labels_apart(fig)


def test_the_chart_of_one_run(runs: tuple[Path, Path]) -> None:
    rep = build_report(runs[0])
    fig = report_figure(rep)
    assert_readable(fig)
    pass_panel, phi_panel, action_panel = fig.axes
    # pass@1, pass@k and pass^k for each environment and overall: one bar each
    expected = {f"{env}|{m}|a" for env in ("x", "y", "overall") for m in ("pass@1", "pass@2", "pass^2")}
    assert {b.get_gid() for b in pass_panel.patches} == expected
    # one row per environment, best first (x 0.75, y 0.5), overall on top
    assert [t.get_text() for t in pass_panel.get_yticklabels()] == ["overall", "x", "y"]
    heights = {b.get_gid(): b.get_width() for b in pass_panel.patches}
    assert heights["x|pass@1|a"] == pytest.approx(0.75) and heights["y|pass^2|a"] == pytest.approx(0.5)
    assert [t.get_text() for t in pass_panel.get_legend().get_texts()] == ["pass@1", "pass@2", "pass^2"]
    # failed actions: any failure, then by kind, one row per environment
    kinds = ("tool_error_rate", "tool_error")
    assert {b.get_gid() for b in action_panel.patches} == {f"{e}|{c}|a" for e in ("x", "y", "overall") for c in kinds}
    assert [t.get_text() for t in action_panel.get_xticklabels()] == ["any\nfailure", "tool\nerror"]
    assert action_panel.get_yticklabels()[1].get_text() == "x (4 actions)"
    assert phi_panel.get_xlabel().startswith("Φ")


def test_one_environment_at_k_1_is_one_bar_and_no_legend(tmp_path: Path) -> None:
    run = run_dir(tmp_path / "solo", [*trials("x", "t1", "p"), *trials("x", "t2", "f")])
    fig = report_figure(build_report(run))
    assert_readable(fig)
    pass_panel = fig.axes[0]
    assert [b.get_gid() for b in pass_panel.patches] == ["x|pass@1|solo"]  # no overall bar repeating x's
    assert pass_panel.get_legend() is None and "pass@1" in pass_panel.get_xlabel()


def many_envs(path: Path, n: int, seed: int, agent: str = "a") -> Path:
    """A run over ``n`` environments (some with 40-character names) at k = 2: three tasks each, random outcomes
    and every kind of failed action."""
    rnd = random.Random(seed)
    kinds = ("malformed", "unknown_tool", "invalid_arguments", "tool_error", "timeout", "noop", "redundant")
    recs = []
    for i in range(n):
        env = f"env_{i:03d}" + ("_a_generated_scenario_with_a_long_name" if i % 9 == 0 else "")
        for t, kind in enumerate(("information", "single_write", "multi_step")):
            for trial in range(2):
                if rnd.random() < 0.5:
                    steps = [step("t", True), step(None, True, progress=1.0)]
                    recs.append(record(f"t{t}", trial, Status.passed, steps, kind=kind, env=env))
                else:
                    flag = rnd.choice(kinds)
                    steps = [step("t", flag in ("noop", "redundant"), **{flag: True}), step(None, True, progress=0.3)]
                    recs.append(record(f"t{t}", trial, Status.failed, steps, kind=kind, env=env))
    return run_dir(path, recs, agent, 2)


@pytest.mark.parametrize("n", [6, pytest.param(27, marks=pytest.mark.slow), pytest.param(100, marks=pytest.mark.slow)])
def test_many_environments_keep_their_labels_apart(tmp_path: Path, n: int) -> None:
    """`awm report` over the 27 reference environments (or 100 generated ones): one row per environment, ranked
    by pass@1, names cut with an ellipsis, the figure as tall as its rows, no tick label over another."""
    a, b = many_envs(tmp_path / "a", n, 0), many_envs(tmp_path / "b", n, 1, agent="random")
    if n == 27:  # what `awm report runs/oracle` does over the reference environments
        res = invoke(a)
        assert res.exit_code == 0, res.output
        assert_png(a / "report.png")
    rep = build_report(a)
    fig = report_figure(rep)
    assert_readable(fig)
    pass_panel = fig.axes[0]
    names = [t.get_text() for t in pass_panel.get_yticklabels()]
    assert len(names) == n + 1 and names[0] == "overall"
    assert max(map(len, names)) <= 28 and any(name.endswith("…") for name in names)
    score = {e["env"]: e["pass@1"] for e in rep["envs"]}
    by_label = {short(env): s for env, s in score.items()}
    assert [by_label[name] for name in names[1:]] == sorted(score.values(), reverse=True)
    assert fig.get_figheight() >= 0.2 * 3 * n  # three bars a row
    comp = build_comparison([a, b])
    fig = comparison_figure(comp)
    assert_readable(fig)
    shown = [[t for t in ax.get_yticklabels() if t.get_visible() and t.get_text()] for ax in fig.axes]
    assert len(shown[0]) == n + 1 and not any(shown[1:])  # the panels share the first one's rows


def test_the_chart_of_several_runs(runs: tuple[Path, Path], tmp_path: Path) -> None:
    c = run_dir(tmp_path / "runs" / "c", trials("x", "t1", "ff"), k=2)
    comp = build_comparison([*runs, c])
    fig = comparison_figure(comp)
    assert_readable(fig)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["a", "b", "c"]
    # one bar per (env, metric, run) that has a value: c has no env y, and b's y has no write task (no Φ)
    metrics = ("pass@1", "pass@2", "progress", "tool_error_rate")
    every = {f"{env}|{m}|{run}" for env in ("x", "y", "overall") for m in metrics for run in ("a", "b", "c")}
    expected = every - {f"y|{m}|c" for m in metrics} - {"y|progress|b"}
    assert {b.get_gid() for b in bars(fig)} == expected
    assert [ax.get_title() for ax in fig.axes][:4] == [
        "pass@1 per environment",
        "pass@2 per environment",
        "mean final progress Φ (write tasks)",
        "failed actions per environment",
    ]
    # one colour per run, the same in every panel
    colours = {b.get_gid().rsplit("|", 1)[1]: set() for b in bars(fig)}
    for b in bars(fig):
        colours[b.get_gid().rsplit("|", 1)[1]].add(b.get_facecolor())
    assert all(len(c) == 1 for c in colours.values()) and len({next(iter(c)) for c in colours.values()}) == 3
    assert any(t.get_text() == "n/a" for t in fig.axes[0].texts)


def test_real_runs_compared_end_to_end(tmp_path: Path) -> None:
    """Built-in agents on the fixture environment, then ``awm report`` on each and on all of them."""
    root = str(Path(__file__).parents[1] / "fixtures" / "root")
    for agent in ("oracle", "noop"):
        args = [
            "eval",
            "--agent",
            agent,
            "--path",
            root,
            "--envs",
            "mini_shop",
            "--k",
            "2",
            "--out",
            str(tmp_path / agent),
        ]
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
    res = invoke(tmp_path / "oracle", tmp_path / "noop")
    assert res.exit_code == 0, res.output
    assert_png(tmp_path / "compare-oracle-vs-noop" / "report.png")
    comp = json.loads((tmp_path / "compare-oracle-vs-noop" / "report.json").read_text())
    assert comp["overall"]["oracle"]["pass@1"] == 1.0 and comp["overall"]["noop"]["pass@1"] == 0.0
    assert all(t["runs"]["oracle"]["passed"] == 2 and t["runs"]["noop"]["passed"] == 0 for t in comp["tasks"])
    fig = comparison_figure(comp)
    assert_readable(fig)
