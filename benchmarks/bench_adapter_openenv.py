"""Episodes per second through OpenEnv (openenv-core's server and WebSocket client) vs plain Gymnasium.

The same gold episodes (every tool call of the task's gold solution, then ``submit_answer``), side by side in
one run, rounds alternating, medians over ``--rounds``:

- ``gymnasium``: ``gymnasium.make("awm/<env>-v0")``, reset + JSON actions, in this process;
- ``openenv, one session``: ``awm.train.openenv_env`` served by OpenEnv's server (uvicorn, loopback, a thread of
  this process), one ``AwmEnvClient(...).sync()`` session reset for every episode (what a trainer does);
- ``openenv, session per episode``: connect, reset, steps, close each episode (OpenEnv's per-session cost);
- ``openenv, N sessions at once`` (``--concurrency``): N threads, each with its own session.

``--awm-starts K`` also times how OpenEnv's ``agent_world_model_env`` starts a session today: it launches AWM's
generated FastAPI server as a subprocess per session (``ScenarioProcess.start``: Popen, then polling the port
every 0.5 s and 0.5 s more once it answers). Here: K starts of that server (``awm env start``, from AWM's runtime
in ``~/.cache/awm-bench/awm-venv``, installed by ``bench_vs_awm.py``) on the fixture scenario, until it answers.

    .venv-openenv/bin/python benchmarks/bench_adapter_openenv.py [--rounds 5] [--episodes 60] [--awm-starts 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gymnasium as gym

import awm
from awm.train.openenv_env import AwmAction, AwmEnvClient, Served

ENVS = ("online_store", "clinic")


def episodes(n: int) -> list[tuple[str, str, list[dict]]]:
    """``n`` gold episodes cycling over every task of ENVS: (env, task_id, actions)."""
    pool = []
    for env in ENVS:
        world = awm.load(env)
        for tid in world.task_ids:
            gold = world.task(tid).verifier.gold
            acts = [{"tool": c.tool, "arguments": c.arguments} for c in gold.calls]
            pool.append((env, tid, [*acts, {"tool": "submit_answer", "arguments": {"answer": gold.answer}}]))
    return [pool[i % len(pool)] for i in range(n)]


def run_gym(eps: list[tuple[str, str, list[dict]]]) -> None:
    made = {env: gym.make(f"awm/{env}-v0") for env in ENVS}
    for env, tid, acts in eps:
        g = made[env]
        g.reset(seed=0, options={"task_id": tid})
        for a in acts:
            _, reward, done, _, _ = g.step(json.dumps(a))
        assert done and reward == 1.0, (env, tid)


def play(client, env: str, tid: str, acts: list[dict]) -> None:
    client.reset(env=env, task_id=tid, seed=0)
    for a in acts:
        r = client.step(AwmAction(tool_name=a["tool"], arguments=a["arguments"]))
    assert r.done and r.reward == 1.0, (env, tid)


def run_session(url: str, eps: list[tuple[str, str, list[dict]]]) -> None:
    with AwmEnvClient(url).sync() as client:
        for e in eps:
            play(client, *e)


def run_fresh(url: str, eps: list[tuple[str, str, list[dict]]]) -> None:
    for e in eps:
        with AwmEnvClient(url).sync() as client:
            play(client, *e)


def run_concurrent(url: str, eps: list[tuple[str, str, list[dict]]], n: int) -> None:
    with ThreadPoolExecutor(n) as pool:
        list(pool.map(lambda i: run_session(url, eps[i::n]), range(n)))


def awm_starts(k: int) -> list[float]:
    """Seconds until AWM's generated server answers, ``k`` times (its runtime must be installed already)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import bench_vs_awm as b

    venv = Path.home() / ".cache" / "awm-bench" / "awm-venv"
    exe = b.ensure_awm(venv, None, install=False)
    out = []
    for _ in range(k):
        with tempfile.TemporaryDirectory() as work:
            t = time.perf_counter()
            server = b.start_awm(exe, b.FIXTURE, b.SCENARIO, Path(work))
            out.append(time.perf_counter() - t)
            server.stop()
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--episodes", type=int, default=60, help="episodes per target per round")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--awm-starts", type=int, default=0, help="also time K starts of AWM's server (0: skip)")
    args = p.parse_args()
    eps = episodes(args.episodes)
    steps = sum(len(a) for _, _, a in eps)
    t = time.perf_counter()
    srv = Served(list(ENVS))
    start = time.perf_counter() - t
    targets: dict[str, Callable[[], None]] = {
        "gymnasium (in process)": lambda: run_gym(eps),
        "openenv, one session": lambda: run_session(srv.url, eps),
        "openenv, session per episode": lambda: run_fresh(srv.url, eps),
        f"openenv, {args.concurrency} sessions at once": lambda: run_concurrent(srv.url, eps, args.concurrency),
    }
    for fn in targets.values():  # warm up (imports, compiled statements, connections)
        fn()
    rates: dict[str, list[float]] = {k: [] for k in targets}
    for r in range(args.rounds):
        names = list(targets)
        for name in names[r % len(names) :] + names[: r % len(names)]:
            t = time.perf_counter()
            targets[name]()
            rates[name].append(args.episodes / (time.perf_counter() - t))
    srv.stop()
    print(f"{args.episodes} gold episodes ({steps} steps) per round, {args.rounds} rounds, medians; ", end="")
    print(f"OpenEnv server start {start:.2f} s (worlds compiled, in process)\n")
    print("| target | episodes/s | ms/episode | steps/s |")
    print("|---|---|---|---|")
    for name, xs in rates.items():
        m = statistics.median(xs)
        print(f"| {name} | {m:,.0f} | {1000 / m:.2f} | {m * steps / args.episodes:,.0f} |")
    if args.awm_starts:
        try:
            xs = awm_starts(args.awm_starts)
        except Exception as e:  # AWM's runtime missing or broken: say why, print no figure for it
            print(f"\nAWM server starts not measured: {e}")
        else:
            m = statistics.median(xs)
            print(f"\nAWM's generated server (one per session in OpenEnv's agent_world_model_env): start {m:.2f} s")
            print(f"median of {len(xs)} ({', '.join(f'{x:.2f}' for x in xs)}), + ~0.5-1 s of its readiness polling")


if __name__ == "__main__":
    main()
