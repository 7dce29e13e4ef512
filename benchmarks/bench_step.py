"""Step benchmark: what one ``Episode.call`` costs beyond the tool function itself, and where it goes.

For each environment, every task's gold solution is replayed ``--rounds`` times, each call three ways
side by side (the order rotates every round): through ``Episode.call`` (all reward channels, the
``dense`` preset), through the committed code path (``git show <rev>:awm/runtime/episode.py`` and the modules
it owns, loaded as a private package: the before figure), and bare (the same tool function with the
validated arguments on an equivalent connection: no validation, change capture, diff, checks or
rewards; a write runs in BEGIN/COMMIT as the episode's does). Every episode is closed after its submit,
as the gym env and the server do (the current path then reuses its connection for the next episode of the
world; ``--no-pool`` turns that off). Reported: read and write step p50/p90, write p50 of an episode's first
write and of its later ones, the bare p50, the overhead (median of the paired differences, and the mean
per round, which carries the first write's one-time costs; median of the rounds), and the overhead by
phase from a separate timed pass (wrappers around each phase's function, so the hot path carries no
instrumentation; the wrappers add ~1 µs a step).
Both paths must give byte-identical step results, states and final rewards; the run says so.

    python benchmarks/bench_step.py [--envs clinic,online_store,project_tracker] [--rounds 20] [--rev HEAD] [--no-pool]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import importlib
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import awm.runtime.episode
from awm.judge.frame import Frame
from awm.model.registry import Registry
from awm.tooling import Db, ToolDef

REFERENCE = "clinic,online_store,project_tracker"
# the step path's modules, loaded from the old revision: where each lives (today's layout first, then the flat one
# before the layer packages) and every name it is imported by
OWNED = {
    "episode": (("awm/runtime/episode.py", "awm/episode.py"), ("awm.runtime.episode", "awm.episode")),
    "diff": (("awm/sql/diff.py", "awm/diff.py"), ("awm.sql.diff", "awm.diff")),
    "rewards": (("awm/judge/rewards.py", "awm/rewards.py"), ("awm.judge.rewards", "awm.rewards")),
    "tooling": (("awm/tooling/core.py", "awm/tooling.py"), ("awm.tooling.core", "awm.tooling")),
}
PHASES = ("validate", "tool", "capture", "diff", "checks", "frame", "reward", "other")


# -- the old code path ----------------------------------------------------------------------------
def load_revision(rev: str) -> ModuleType | None:
    """``awm.runtime.episode`` as committed at ``rev`` (with its own diff, rewards and tooling), or None."""
    root = Path(__file__).resolve().parent.parent
    pkg = "awm_" + re.sub(r"\W", "_", rev).lower()
    tmp = Path(tempfile.mkdtemp()) / pkg
    tmp.mkdir()
    (tmp / "__init__.py").write_text("")
    for mod, (paths, _) in OWNED.items():
        src = None
        for path in paths:
            try:
                src = subprocess.run(
                    ["git", "show", f"{rev}:{path}"], cwd=root, capture_output=True, text=True, check=True
                ).stdout
                break
            except (OSError, subprocess.CalledProcessError):
                continue
        if src is None:
            return None
        for other, (_, names) in OWNED.items():
            for name in names:  # the longer (packaged) name first: awm.tooling.core before awm.tooling
                src = src.replace(f"from {name} import", f"from {pkg}.{other} import")
        (tmp / f"{mod}.py").write_text(src)
    sys.path.insert(0, str(tmp.parent))
    return importlib.import_module(f"{pkg}.episode")


def old_world(old: ModuleType, world: Any) -> Any:
    """The world as the old revision sees it: its own capture triggers (the log format may differ)."""
    diff = sys.modules[old.__name__.rsplit(".", 1)[0] + ".diff"]
    view = copy.copy(world)
    view.capture = {n: diff.capture_ddl(t) for n, t in world.tables.items()}
    return view


def old_plans(old: ModuleType, world: Any) -> dict[str, Any]:
    """The world's learned statement plans in the old revision's type (its Db keeps its own dict)."""
    plan = sys.modules[old.__name__.rsplit(".", 1)[0] + ".tooling"].StatementPlan
    names = [f.name for f in dataclasses.fields(plan)]
    return {sql: plan(*(getattr(p, n) for n in names)) for sql, p in world.plans.items()}


# -- timing --------------------------------------------------------------------------------------
class Phases:
    """Exclusive time per phase: a wrapped function's time minus the wrapped functions it calls."""

    def __init__(self) -> None:
        self.ns: dict[str, int] = defaultdict(int)
        self._stack: list[int] = []

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*a: Any, **k: Any) -> Any:
            self._stack.append(0)
            t0 = time.perf_counter_ns()
            try:
                return fn(*a, **k)
            finally:
                dt = time.perf_counter_ns() - t0
                self.ns[name] += dt - self._stack.pop()
                if self._stack:
                    self._stack[-1] += dt

        return timed


@contextmanager
def instrumented(phases: Phases, mod: ModuleType, world: Any) -> Iterator[None]:
    """Wrap each phase's function of episode module ``mod`` (and the world's tools) for the duration."""
    ep = mod.Episode
    targets: list[tuple[Any, str, str]] = [
        (mod, "_parse_arguments", "validate"),
        (ToolDef, "validate", "validate"),
        (ep, "_capture", "capture"),
        (ep, "_take_log", "diff"),
        (mod, "changes_from_log", "diff"),
        (mod, "fold", "diff"),
        (ep, "_refresh_checks", "checks"),
        (Frame, "outside", "frame"),
        (ep, "_finish", "reward"),
    ]
    targets = [(o, a, p) for o, a, p in targets if a in vars(o)]
    saved = [(o, a, vars(o)[a]) for o, a, _ in targets]
    tools = list(world.tools.values())
    fns = [td.fn for td in tools]
    try:
        for o, a, p in targets:
            setattr(o, a, phases.wrap(p, vars(o)[a]))
        for td in tools:
            object.__setattr__(td, "fn", phases.wrap("tool", td.fn))
        yield
    finally:
        for o, a, f in saved:
            setattr(o, a, f)
        for td, fn in zip(tools, fns, strict=True):
            object.__setattr__(td, "fn", fn)


def bare_db(world: Any) -> tuple[sqlite3.Connection, Db]:
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.deserialize(world.start_blob)
    conn.execute(world.foreign_keys_pragma)
    return conn, Db(conn, world.plans, world.clock, world.columns)


def bare_call(conn: sqlite3.Connection, db: Db, td: ToolDef, kwargs: dict[str, Any]) -> float:
    db._writable = td.write
    t0 = time.perf_counter()
    if td.write:
        conn.execute("BEGIN")
    try:
        td.fn(db, **kwargs)
    except Exception:
        pass
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
    return time.perf_counter() - t0


@dataclasses.dataclass
class Figures:
    read: list[float] = dataclasses.field(default_factory=list)
    write: list[float] = dataclasses.field(default_factory=list)
    first_write: list[float] = dataclasses.field(default_factory=list)  # an episode's first write step
    later_write: list[float] = dataclasses.field(default_factory=list)
    overhead: list[float] = dataclasses.field(default_factory=list)  # paired: step - bare
    sweeps: list[float] = dataclasses.field(default_factory=list)  # mean paired overhead of each round
    phases: dict[str, float] = dataclasses.field(default_factory=dict)  # mean µs per step


def replay(
    world: Any, mods: dict[str, ModuleType], rounds: int, check: bool
) -> tuple[dict[str, Figures], dict[str, list[float]], list[str]]:
    """Every task's gold solution, ``rounds`` times, through each path and bare, interleaved."""
    figs = {name: Figures() for name in mods}
    bare: dict[str, list[float]] = {"read": [], "write": []}
    mismatches: list[str] = []
    plans = {name: old_plans(m, world) for name, m in mods.items() if m is not awm.runtime.episode}
    views = {name: world if m is awm.runtime.episode else old_world(m, world) for name, m in mods.items()}
    names = list(mods)
    for r in range(rounds):
        mark = {name: len(f.overhead) for name, f in figs.items()}
        for tid in world.task_ids:
            ct = world.tasks[tid]
            eps = {name: m.Episode(views[name], ct, reward="dense") for name, m in mods.items()}
            for name, ep in eps.items():
                if name in plans:
                    ep.db._plans = plans[name]
            conn, db = bare_db(world)
            results: dict[str, list[Any]] = {name: [] for name in mods}
            wrote = False
            for call in ct.verifier.gold.calls:
                td = world.tools[call.tool]
                kwargs = td.validate(call.arguments)
                order = [*names, "bare"]
                order = order[r % len(order) :] + order[: r % len(order)]
                took: dict[str, float] = {}
                for who in order:
                    if who == "bare":
                        took[who] = bare_call(conn, db, td, kwargs)
                        continue
                    t0 = time.perf_counter()
                    res = eps[who].call(call.tool, call.arguments)
                    took[who] = time.perf_counter() - t0
                    results[who].append(res)
                kind = "write" if td.write else "read"
                bare[kind].append(took["bare"])
                for name in mods:
                    getattr(figs[name], kind).append(took[name])
                    if td.write:
                        (figs[name].later_write if wrote else figs[name].first_write).append(took[name])
                    figs[name].overhead.append(took[name] - took["bare"])
                wrote = wrote or td.write
            for name, ep in eps.items():
                results[name].append(ep.submit(ct.verifier.gold.answer))
                results[name].append(ep.state_bytes())
                ep.close()
            conn.close()
            if check and r == 0 and len(mods) > 1:
                first, *rest = names
                for other in rest:
                    a = [x if isinstance(x, bytes) else json.dumps(x.to_dict(), default=str) for x in results[first]]
                    b = [x if isinstance(x, bytes) else json.dumps(x.to_dict(), default=str) for x in results[other]]
                    if a != b:
                        mismatches.append(tid)
        for name, f in figs.items():
            f.sweeps.append(statistics.mean(f.overhead[mark[name] :]))
    return figs, bare, mismatches


def timed_pass(world: Any, mod: ModuleType, plans: dict[str, Any] | None) -> dict[str, float]:
    """Exclusive µs per step and phase over one round of every task (``other``: the step's time in no
    wrapped phase)."""
    view = world if mod is awm.runtime.episode else old_world(mod, world)
    phases = Phases()
    total = 0
    steps = 0
    with instrumented(phases, mod, world):
        for tid in world.task_ids:
            ct = world.tasks[tid]
            ep = mod.Episode(view, ct, reward="dense")
            if plans is not None:
                ep.db._plans = plans
            for call in ct.verifier.gold.calls:
                t0 = time.perf_counter_ns()
                ep.call(call.tool, call.arguments)
                total += time.perf_counter_ns() - t0
                steps += 1
            ep.close()
    out = {p: phases.ns.get(p, 0) / steps / 1000 for p in PHASES if p != "other"}
    out["other"] = total / steps / 1000 - sum(out.values())
    return out


def p(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1e6 if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", default=REFERENCE)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--rev", default="HEAD", help="the revision to compare with ('' for none)")
    ap.add_argument("--path", action="append", default=[])
    ap.add_argument("--no-pool", action="store_true", help="no reuse of closed episodes' connections")
    a = ap.parse_args()
    if a.no_pool:
        awm.runtime.episode.POOL_SIZE = 0
    mods: dict[str, ModuleType] = {}
    old = load_revision(a.rev) if a.rev else None
    if old is not None:
        mods[a.rev] = old
    mods["now"] = awm.runtime.episode
    reg = Registry(a.path)
    load = f" · load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    pool = "off" if a.no_pool else "on"
    print(
        f"AWM Gym step benchmark · {os.cpu_count()} CPUs{load} · connection reuse {pool} · "
        "targets: write step p50 ≤ 500 µs, overhead ≤ 100 µs/step"
    )
    if old is None and a.rev:
        print(f"(no {a.rev} code path: git show failed; current code only)")
    for name in [n for n in a.envs.split(",") if n]:
        world = reg.load(name)
        for tid in world.task_ids:  # learn every statement plan with the current code first
            ep = world.episode(tid)
            for call in world.tasks[tid].verifier.gold.calls:
                ep.call(call.tool, call.arguments)
            ep.close()
        replay(world, mods, 1, check=False)  # warm-up
        figs, bare, mismatches = replay(world, mods, a.rounds, check=True)
        rounds: dict[str, list[dict[str, float]]] = {label: [] for label in mods}
        for _ in range(max(3, a.rounds // 2)):  # the paths alternate round by round, like the load
            for label, m in mods.items():
                rounds[label].append(
                    timed_pass(world, m, old_plans(m, world) if m is not awm.runtime.episode else None)
                )
        breakdown = {label: {ph: statistics.median(r[ph] for r in rs) for ph in PHASES} for label, rs in rounds.items()}
        nr, nw = len(bare["read"]), len(bare["write"])
        print(f"\n== {name}: {len(world.tables)} tables, {len(world.task_ids)} tasks, {nr} read + {nw} write steps")
        head = f"{'':34}" + "".join(f"{label:>22}" for label in mods)
        print(head)

        def row(label: str, values: list[str]) -> None:
            print(f"{label:34}" + "".join(f"{v:>22}" for v in values))

        row("read step   p50 / p90 (µs)", [f"{p(f.read, 0.5):.0f} / {p(f.read, 0.9):.0f}" for f in figs.values()])
        row("write step  p50 / p90 (µs)", [f"{p(f.write, 0.5):.0f} / {p(f.write, 0.9):.0f}" for f in figs.values()])
        row(
            "write p50   first / later (µs)",
            [f"{p(f.first_write, 0.5):.0f} / {p(f.later_write, 0.5):.0f}" for f in figs.values()],
        )
        row(
            "bare tool   p50 read / write",
            [f"{p(bare['read'], 0.5):.0f} / {p(bare['write'], 0.5):.0f}"] * len(figs),
        )
        row(
            "overhead    p50 paired / mean",
            [f"{p(f.overhead, 0.5):.0f} / {statistics.median(f.sweeps) * 1e6:.0f}" for f in figs.values()],
        )
        row(
            "overhead    p50 all - p50 bare",
            [f"{p(f.read + f.write, 0.5) - p(bare['read'] + bare['write'], 0.5):.0f}" for f in figs.values()],
        )
        print(
            "  per phase, µs per step (timed pass, mean per round, median of rounds; 'tool' runs inside the episode):"
        )
        for ph in PHASES:
            row(f"    {ph}", [f"{b[ph]:.1f}" for b in breakdown.values()])
        row("    = step", [f"{sum(b.values()):.1f}" for b in breakdown.values()])
        if len(mods) > 1:
            same = "identical" if not mismatches else "DIFFER in " + ", ".join(mismatches)
            print(f"  step results, states and final rewards of the {len(mods)} paths: {same}")


if __name__ == "__main__":
    main()
