"""The cost of running imported AWM code in sandboxed workers, measured side by side in one run.

Imports two scenarios of the AWM-format fixture (``tests/fixtures/awm1k``) into a temporary root and
measures, on this machine:

1. **call**: one read tool call through ``Episode.call``, median, sandboxed (the app in its bubblewrap
   worker, its SQL run back here) against the same app code run in this process (the worker's own
   modules imported here, SQL straight on the episode's connection): the in-process baseline, which
   is how imported apps ran before isolation. Ratio = sandboxed / in-process.
2. **verify**: one code-verifier run (``run_code_check``), median, on a warm worker against a cold one
   (a fresh sandbox per verify, as the old design started a child process per submit).
3. **interference**: the median and p99 of one environment's calls alone, then while another
   environment's tool spins in a busy loop (until its worker is killed at the call limit), from a
   second thread. The delay is the difference.

    .venv/bin/python benchmarks/bench_isolation.py [--calls 300] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from awm.importers import runtime
from awm.importers.awm1k import import_awm
from awm.isolation import close_all, get_pool
from awm.isolation.code_checks import run_code_check
from awm.isolation.sqlhost import SqlHost
from awm.model.registry import Registry

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "awm1k"
HOSTILE_ROUTE = """

@app.get("/spin", operation_id="spin", summary="Spin")
def spin():
    while True:
        pass
"""


def _times(fn: Any, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def _p(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


def _in_process_call(world: Any, tool: str, args: dict[str, Any]) -> Any:
    """The same app, run in this process: the guest's modules imported here, no sandbox, no pipe."""
    guest = str(ROOT / "awm" / "isolation" / "guest")
    if guest not in sys.path:
        sys.path.insert(0, guest)
    import app as guest_app  # type: ignore[import-not-found]
    import determinism  # type: ignore[import-not-found]

    determinism.set_clock(world.clock, 0)
    guest_app.load((world.files.tools_path.parent / "awm_app.py").read_text(), "awm_app.py")
    ep = world.episode(world.task_ids[0])

    current: dict[str, SqlHost] = {}

    def relay(message: dict[str, Any]) -> Any:  # pooled connections outlive a call, as in the worker
        return current["host"].handle(message)

    def call() -> None:
        conn = ep.conn
        conn.execute("BEGIN")
        host = current["host"] = SqlHost(conn, world.clock, 1)
        try:
            reply = guest_app.call(tool, args, relay, relay)
            assert reply["status"] == 200, reply
        finally:
            host.finish()
            conn.execute("ROLLBACK")

    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="awm-bench-isolation-"))
    import_awm(FIXTURE, tmp, scenarios=["Indie Bookshop", "Habit Tracker"])
    hostile = tmp / "envs" / "hostile_tracker"
    shutil.copytree(tmp / "envs" / "habit_tracker", hostile)
    shutil.copytree(tmp / "verifiers" / "habit_tracker", tmp / "verifiers" / "hostile_tracker")
    manifest = json.loads((hostile / "env.json").read_text())
    (hostile / "env.json").write_text(json.dumps({**manifest, "id": "hostile_tracker"}))
    app_py = hostile / "awm_app.py"
    main_guard = '\nif __name__ == "__main__":'
    app_py.write_text(app_py.read_text().replace(main_guard, HOSTILE_ROUTE + main_guard))
    reg = Registry([tmp], include_default=False)
    shop, hostile_world = reg.load("indie_bookshop"), reg.load("hostile_tracker")
    tool, args = "search_books", {"query": "Left Hand"}
    out: dict[str, Any] = {}

    # 1. call: sandboxed vs in-process
    ep = shop.episode("t00")
    assert ep.call(tool, args).ok
    sandboxed = _times(lambda: ep.call(tool, args), opts.calls)
    inproc = _times(_in_process_call(shop, tool, args), opts.calls)
    out["call"] = {
        "sandboxed_ms": statistics.median(sandboxed) * 1e3,
        "in_process_ms": statistics.median(inproc) * 1e3,
        "ratio": statistics.median(sandboxed) / statistics.median(inproc),
    }

    # 2. verify: warm worker vs a fresh sandbox per run
    check = shop.tasks["t00"].verifier.code
    assert check is not None
    vdir, seed_blob = shop.files.verifier_dir, shop.seed_blob
    final = ep.state_bytes()
    warm = _times(lambda: run_code_check(vdir, check, seed_blob, final, None, clock=shop.clock), 50)

    def cold() -> None:
        get_pool("verifier", str(vdir.resolve())).close()
        run_code_check(vdir, check, seed_blob, final, None, clock=shop.clock)

    cold_t = _times(cold, 8)
    out["verify"] = {"warm_ms": statistics.median(warm) * 1e3, "cold_ms": statistics.median(cold_t) * 1e3}

    # 3. interference: a busy loop in another environment's tool
    alone = _times(lambda: ep.call(tool, args), opts.calls)
    spinner = hostile_world.episode("t00")
    done = threading.Event()

    def spin() -> None:
        while not done.is_set():
            spinner.call("spin", {})  # each ends when its worker is killed at the call limit

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    time.sleep(0.5)  # the busy loop is running
    busy = _times(lambda: ep.call(tool, args), opts.calls)
    done.set()
    out["interference"] = {
        "alone_p50_ms": statistics.median(alone) * 1e3,
        "alone_p99_ms": _p(alone, 0.99) * 1e3,
        "busy_p50_ms": statistics.median(busy) * 1e3,
        "busy_p99_ms": _p(busy, 0.99) * 1e3,
        "delay_p50_ms": (statistics.median(busy) - statistics.median(alone)) * 1e3,
        "call_limit_s": runtime.LIMITS.call_s,
    }
    close_all()
    shutil.rmtree(tmp, ignore_errors=True)
    if opts.json:
        print(json.dumps(out, indent=2))
        return
    c, v, i = out["call"], out["verify"], out["interference"]
    print(f"call   (search_books, median of {opts.calls})")
    print(f"  sandboxed   {c['sandboxed_ms']:.3f} ms")
    print(f"  in-process  {c['in_process_ms']:.3f} ms   ratio {c['ratio']:.2f}x")
    print("verify (the task's AWM verifier, median)")
    print(f"  warm worker {v['warm_ms']:.2f} ms")
    print(f"  cold worker {v['cold_ms']:.1f} ms   (a fresh sandbox per verify)")
    print("interference (another environment's tool in a busy loop)")
    print(f"  alone       p50 {i['alone_p50_ms']:.3f} ms   p99 {i['alone_p99_ms']:.3f} ms")
    print(f"  beside it   p50 {i['busy_p50_ms']:.3f} ms   p99 {i['busy_p99_ms']:.3f} ms")
    print(f"  delay       p50 {i['delay_p50_ms']:+.3f} ms")


if __name__ == "__main__":
    main()
