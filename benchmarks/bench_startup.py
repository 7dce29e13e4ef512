"""Start-up at catalog scale: how long ``awm serve`` takes to answer its first request, serving one
environment or a thousand, with the compile cache cold and warm; and how long a fresh process takes to
load one world (``gym.make``'s path), from the cache and compiled.

A temporary root holds ``--count`` synthetic bundles: copies of one catalog environment under new names
(``synth_0000`` ...; each ``env.json`` names its copy, every other file is a hard link, so each is its own
bundle with its own digest). Each measurement starts a fresh ``awm serve`` process and times, from the
spawn, until the first request has been answered: creating an episode of ``synth_0000`` on the control
plane and one read tool call in it on the agent plane. The cases alternate, ``--repeat`` times each:

- ``one``: ``awm serve --env synth_0000`` (the root holds all the bundles, one is served);
- ``all``: ``awm serve`` over every bundle of the root (and the catalog);
- ``cold``: as ``one`` with an empty compile cache (``AWM_CACHE_DIR`` a new folder), ``warm`` with the cache
  filled by an earlier run.

Also the resident memory after the first request, and after one episode in each of ``--touch`` more
environments (memory must grow with the environments used, not with the environments served).

    .venv/bin/python benchmarks/bench_startup.py [--count 1000] [--env online_store] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from bench_serve import free_port  # the control plane's port (port + 1) must be free too

ROOT = Path(__file__).resolve().parent.parent
AWM = [sys.executable, "-m", "awm.cli"]


def make_root(folder: Path, env: str, count: int) -> list[str]:
    """``count`` copies of ``env`` (hard links, a new ``env.json`` each) under ``folder``."""
    src_env, src_ver = ROOT / "envs" / env, ROOT / "verifiers" / env
    names = [f"synth_{i:04d}" for i in range(count)]
    manifest = json.loads((src_env / "env.json").read_text())
    for name in names:
        for src, sub in ((src_env, "envs"), (src_ver, "verifiers")):
            dst = folder / sub / name
            shutil.copytree(src, dst, copy_function=os.link, ignore=shutil.ignore_patterns("__pycache__", "env.json"))
        (folder / "envs" / name / "env.json").write_text(json.dumps({**manifest, "id": name}))
    return names


def read_call(env: str) -> tuple[str, str, dict[str, Any]]:
    """A task of ``env`` and a read call of its gold solution."""
    from awm.model.registry import load

    world = load(env)
    for tid in world.task_ids:
        for c in world.tasks[tid].verifier.gold.calls:
            if not world.tools[c.tool].write:
                return tid, c.tool, c.arguments
    raise SystemExit(f"{env}: no read call in a gold solution")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def first_answer(
    root: Path, cache: Path, only: str | None, task: str, tool: str, args: dict[str, Any], touch: list[str]
) -> dict[str, float]:
    """Spawn ``awm serve``; seconds until its first request is answered, and its memory."""
    port = free_port()
    cmd = [*AWM, "serve", "--port", str(port), "--path", str(root)]
    if only:
        cmd += ["--env", only]
    env = {**os.environ, "AWM_CACHE_DIR": str(cache)}
    env.pop("AWM_CACHE", None)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        agent, control = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port + 1}"
        with httpx.Client(timeout=120) as c:
            while True:
                if proc.poll() is not None:
                    raise SystemExit(f"awm serve exited {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
                try:
                    r = c.post(f"{control}/episodes", json={"env": "synth_0000", "task_id": task})
                    break
                except httpx.TransportError:
                    time.sleep(0.01)
            r.raise_for_status()
            eid = r.json()["episode_id"]
            r = c.post(f"{agent}/episodes/{eid}/call", json={"tool": tool, "arguments": args})
            assert r.status_code == 200 and r.json()["ok"], r.text
            first = time.perf_counter() - t0
            rss_first = rss_mib(proc.pid)
            for name in touch:
                c.post(f"{control}/episodes", json={"env": name, "task_id": task}).raise_for_status()
            rss_touched = rss_mib(proc.pid)
        return {"first_s": first, "rss_mib": rss_first, "rss_touched_mib": rss_touched}
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def load_in_fresh_process(root: Path, cache: Path | None) -> float:
    """Seconds for a new interpreter to import awm and load one world (``gym.make``'s path)."""
    script = (
        "import time; t = time.perf_counter(); from awm.model.registry import Registry;"
        f"Registry([{str(root)!r}]).load('synth_0000'); print(time.perf_counter() - t)"
    )
    env = {**os.environ}
    if cache is None:
        env["AWM_CACHE"] = "off"
    else:
        env["AWM_CACHE_DIR"] = str(cache)
        env.pop("AWM_CACHE", None)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000, help="synthetic environments in the root")
    ap.add_argument("--env", default="online_store", help="the catalog environment the copies are made of")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--touch", type=int, default=10, help="environments used after the first (memory)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    task, tool, args = read_call(a.env)
    with tempfile.TemporaryDirectory(prefix="awm-startup-") as tmp:
        root = Path(tmp) / "root"
        t = time.perf_counter()
        names = make_root(root, a.env, a.count)
        made = time.perf_counter() - t
        touch = names[1 : 1 + a.touch]
        warm = Path(tmp) / "warm-cache"
        first_answer(root, warm, "synth_0000", task, tool, args, [])  # fills the cache for synth_0000
        runs: dict[str, list[dict[str, float]]] = {"one": [], "all": [], "cold": []}
        loads: dict[str, list[float]] = {"fresh process, cached": [], "fresh process, compiled": []}
        for i in range(a.repeat):
            runs["one"].append(first_answer(root, warm, "synth_0000", task, tool, args, []))
            runs["all"].append(first_answer(root, warm, None, task, tool, args, touch if i == 0 else []))
            runs["cold"].append(first_answer(root, Path(tmp) / f"cold-{i}", "synth_0000", task, tool, args, []))
            loads["fresh process, cached"].append(load_in_fresh_process(root, warm))
            loads["fresh process, compiled"].append(load_in_fresh_process(root, None))
    med = {k: statistics.median(r["first_s"] for r in v) for k, v in runs.items()}
    rss = {k: statistics.median(r["rss_mib"] for r in v) for k, v in runs.items()}
    report = {
        "count": a.count,
        "env": a.env,
        "root_seconds": made,
        "first_answer_s": med,
        "all_over_one": med["all"] / med["one"],
        "cold_over_warm": med["cold"] / med["one"],
        "rss_mib": rss,
        "rss_after_touching_mib": runs["all"][0]["rss_touched_mib"],
        "touched": a.touch,
        "load_s": {k: statistics.median(v) for k, v in loads.items()},
    }
    if a.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{a.count} synthetic bundles (copies of {a.env}) written in {made:.1f} s; medians of {a.repeat} runs\n")
    print(f"{'awm serve, first request answered':44s} {'seconds':>8s} {'RSS MiB':>8s}")
    for k, label in (
        ("one", "serving 1 (warm cache)"),
        ("all", f"serving {a.count + 1}+ (warm cache)"),
        ("cold", "serving 1 (cold cache)"),
    ):
        print(f"  {label:42s} {med[k]:8.2f} {rss[k]:8.1f}")
    print(f"\n  serving all / serving one: {report['all_over_one']:.2f}x (target <= 1.5x)")
    print(f"  RSS after {a.touch} more environments used: {report['rss_after_touching_mib']:.1f} MiB")
    print("\nload one world in a fresh process (import awm + Registry.load):")
    for k, v in report["load_s"].items():
        print(f"  {k:40s} {v:8.2f} s")


if __name__ == "__main__":
    main()
