"""Core benchmark: episode reset, step (all reward channels), memory per idle episode.

Each figure is reported as p50/p95 next to a baseline measured in the same run:
- reset vs. an AWM-style reset (copy the seed database file, open it);
- a step's touched-tables-only diff vs. diffing every table.

    python benchmarks/bench_core.py [--envs online_store,clinic] [--repeat 2000]
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from awm.judge import verify
from awm.model.registry import Registry
from awm.sql.diff import diff_tables


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def us(x: float) -> str:
    return f"{x * 1e6:8.1f} µs"


def rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def bench_reset(world, repeat: int) -> tuple[list[float], list[float]]:
    task = world.default_task
    ours, base = [], []
    tmp = Path(tempfile.mkdtemp())
    seed_file = tmp / "seed.db"
    src = sqlite3.connect(":memory:")
    src.deserialize(world.seed_blob)
    dst = sqlite3.connect(seed_file)
    src.backup(dst)
    dst.close()
    for i in range(repeat):
        t0 = time.perf_counter()
        ep = world.episode(task)
        t1 = time.perf_counter()
        ours.append(t1 - t0)
        ep.close()
        t0 = time.perf_counter()
        f = tmp / f"ep{i % 4}.db"
        shutil.copyfile(seed_file, f)
        c = sqlite3.connect(f)
        c.execute("PRAGMA foreign_keys = ON")
        t1 = time.perf_counter()
        base.append(t1 - t0)
        c.close()
    shutil.rmtree(tmp)
    return ours, base


def bench_steps(world, rounds: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {
        "read": [],
        "write": [],
        "submit": [],
        "full_diff": [],
        "touched_diff": [],
        "raw": [],
        "full": [],
    }
    for _ in range(rounds):
        for tid in world.task_ids:
            ct = world.tasks[tid]
            ep = world.episode(tid)
            raw = world.episode(tid)  # baseline: the same tool functions called bare, no validation/diff/checks
            for call in ct.verifier.gold.calls:
                td = world.tools[call.tool]
                write = td.write
                before = ep.state_bytes() if write else None
                t0 = time.perf_counter()
                res = ep.call(call.tool, call.arguments)
                full = time.perf_counter() - t0
                out["write" if write else "read"].append(full)
                kwargs = td.validate(call.arguments)
                raw.db._writable = write
                t0 = time.perf_counter()
                if write:
                    raw.conn.execute("BEGIN")
                td.fn(raw.db, **kwargs)
                if write:
                    raw.conn.execute("COMMIT")
                out["raw"].append(time.perf_counter() - t0)
                out["full"].append(full)
                if write and res.diff:
                    verify.attach_copy(ep.conn, "bprev", before)
                    tables = [world.tables[t] for t in res.diff.tables]
                    t0 = time.perf_counter()
                    diff_tables(ep.conn, tables, "bprev")
                    out["touched_diff"].append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    diff_tables(ep.conn, world.tables.values(), "bprev")
                    out["full_diff"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            ep.submit(ct.verifier.gold.answer)
            out["submit"].append(time.perf_counter() - t0)
    return out


def bench_memory(world, n: int = 1000) -> float:
    gc.collect()
    base = rss()
    eps = [world.episode(world.default_task) for _ in range(n)]
    gc.collect()
    per = (rss() - base) / n
    for e in eps:
        e.close()
    return per


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", default="")
    ap.add_argument("--repeat", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--path", action="append", default=[])
    a = ap.parse_args()
    reg = Registry(a.path)
    names = [n for n in a.envs.split(",") if n] or reg.names()
    print(f"AWM Gym core benchmark · {os.cpu_count()} CPUs · targets: reset p50 ≤ 100 µs, step p50 ≤ 500 µs")
    for name in names:
        world = reg.load(name)
        rows = sum(len(r) for r in world.files.seed.tables.values())
        print(
            f"\n== {name}: {len(world.tables)} tables, {rows} seed rows, {len(world.tools)} tools, "
            f"seed blob {len(world.seed_blob) // 1024} KiB"
        )
        ours, base = bench_reset(world, a.repeat)
        m, mb = statistics.median(ours), statistics.median(base)
        print(
            f"reset        p50 {us(m)}  p95 {us(pct(ours, 0.95))}   | file-copy baseline p50 {us(mb)}  "
            f"→ {mb / m:5.1f}× faster"
        )
        steps = bench_steps(world, a.rounds)
        for kind in ("read", "write", "submit"):
            xs = steps[kind]
            if xs:
                print(f"step {kind:7} p50 {us(statistics.median(xs))}  p95 {us(pct(xs, 0.95))}   (n={len(xs)})")
        allsteps = steps["read"] + steps["write"]
        print(f"step all     p50 {us(statistics.median(allsteps))}  p95 {us(pct(allsteps, 0.95))}")
        r, f = statistics.median(steps["raw"]), statistics.median(steps["full"])
        print(f"bare tool    p50 {us(r)}   | full step p50 {us(f)}  → framework overhead {us(f - r)} per step")
        if steps["touched_diff"]:
            t, f = statistics.median(steps["touched_diff"]), statistics.median(steps["full_diff"])
            print(f"diff EXCEPT  p50 {us(t)} on touched tables | {us(f)} on all tables (the trigger log replaces both)")
        per = bench_memory(world)
        print(f"memory per idle episode: {per / 1024:.0f} KiB (1,000 episodes ≈ {per * 1000 / 2**20:.0f} MiB)")


if __name__ == "__main__":
    main()
