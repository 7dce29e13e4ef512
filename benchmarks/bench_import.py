"""Imported AWM environments: reset, tool-call and verifier latency next to a native environment.

Imports the AWM-format fixture (``awm import awm tests/fixtures/awm1k``) into a temporary root, then for
every imported environment and for the native ``online_store`` measures, in the same process:

- reset: one ``world.episode(task)`` (a fresh in-memory copy of the seed), median; memory: the size of
  that copy (SQLite pages);
- call: one read tool call through ``Episode.call`` (for AWM apps: a request to the app's sandboxed
  worker, whose SQL runs back here on the episode's connection), median over many;
- submit: one ``Episode.submit`` (for AWM tasks: the code verifier in its sandboxed worker).

AWM's own figures (a server process per episode, MCP over HTTP, measured on this machine; issue 13)
are printed alongside for comparison.

    .venv/bin/python benchmarks/bench_import.py [--calls 500] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from awm.bundle.samples import probe_cases
from awm.model.registry import Registry
from awm.model.world import World

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "awm1k"
AWM_FIGURES = {"reset_s": 7.0, "reset_mib": 190.0, "call_ms": 10.0}  # AWM's runtime, quoted in issue 13


def _median_s(fn: Any, n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _read_call(world: World) -> tuple[str, dict[str, Any]]:
    """A read call that succeeds: a GET tool for AWM apps, a non-write tool for native ones."""
    task = world.task_ids[0]
    for td, args in probe_cases(world, per_tool=4):
        if td.write and world.manifest.provenance.source != "imported":
            continue
        ep = world.episode(task)
        ok = ep.call(td.name, args).ok and not ep.diff_from_initial()
        ep.close()
        if ok and (world.manifest.provenance.source != "imported" or _is_get(world, td.name)):
            return td.name, args
    raise RuntimeError(f"{world.id}: no read call succeeds")


def _is_get(world: World, tool: str) -> bool:
    from awm.importers import runtime

    return any(t["name"] == tool and t["method"] == "GET" for app in runtime._apps.values() for t in app.tools)


def measure(world: World, calls: int) -> dict[str, Any]:
    task = world.task_ids[0]
    tool, args = _read_call(world)
    reset = _median_s(lambda: world.episode(task).close(), 200)
    probe = world.episode(task)
    mib = len(probe.state_bytes()) / 2**20  # the episode's own database copy (SQLite pages)
    probe.close()
    ep = world.episode(task)
    call = _median_s(lambda: ep.call(tool, args), calls)
    submit = _median_s(lambda: world.episode(task).submit(), 5)
    return {
        "env": world.id,
        "source": world.manifest.provenance.source,
        "tools": len(world.tools),
        "call": f"{tool}({json.dumps(args)})",
        "reset_us": reset * 1e6,
        "episode_mib": mib,
        "call_ms": call * 1e3,
        "submit_ms": submit * 1e3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="awm-bench-import-"))
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "awm.cli", "import", "awm", str(FIXTURE), "--out", str(out)],
        check=True,
        capture_output=True,
    )
    import_s = time.perf_counter() - t
    imported = Registry([out], include_default=False)
    rows = []
    for name in sorted(imported.entries()):
        t = time.perf_counter()
        world = imported.load(name)
        load_s = time.perf_counter() - t
        try:
            rows.append({**measure(world, opts.calls), "load_ms": load_s * 1e3})
        except RuntimeError as e:  # e.g. a scenario whose only table's DDL failed, as in AWM
            print(f"skipped: {e}", file=sys.stderr)
    native = Registry()
    t = time.perf_counter()
    store = native.load("online_store")
    rows.append({**measure(store, opts.calls), "load_ms": (time.perf_counter() - t) * 1e3})
    if opts.json:
        print(json.dumps({"import_s": import_s, "rows": rows, "awm": AWM_FIGURES}, indent=2))
        return
    print(f"imported the fixture in {import_s:.1f} s ({len(rows) - 1} environments) into {out}\n")
    head = f"{'environment':<16} {'source':<12} {'tools':>5} {'load':>8} {'reset':>9} {'memory':>9} "
    head += f"{'call':>8} {'submit':>8}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['env']:<16} {r['source']:<12} {r['tools']:>5} {r['load_ms']:>6.0f}ms {r['reset_us']:>7.0f}µs "
            f"{r['episode_mib']:>6.2f}MiB {r['call_ms']:>6.3f}ms {r['submit_ms']:>6.1f}ms"
        )
    a = AWM_FIGURES
    print(
        f"{'AWM (server)':<16} {'awm':<12} {'':>5} {'':>8} {a['reset_s']:>7.0f} s {a['reset_mib']:>6.0f}MiB "
        f"{a['call_ms']:>6.1f}ms {'LLM':>8}"
    )
    print("\nreset: a new episode; call: median read call; submit: outcome (AWM tasks: sandboxed code verifier)")


if __name__ == "__main__":
    main()
