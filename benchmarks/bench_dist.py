"""Ray benchmark: steps/s for a batch of episodes on Ray actors (one round trip per actor per batch) next
to the same steps on in-process episodes. Needs the ``ray`` extra.

    python benchmarks/bench_dist.py [--env online_store] [--episodes 64] [--hosts 2] [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("RAY_AUTH_MODE", "disabled")

import ray

import awm
from awm.dist import EpisodePool


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--env", default="online_store")
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--hosts", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args()
    world = awm.load(a.env)
    task = world.default_task
    call = next(c for c in world.tasks[task].verifier.gold.calls if not world.tools[c.tool].write)
    action = json.dumps({"tool": call.tool, "arguments": call.arguments})

    eps = [world.episode(task, seed=s) for s in range(a.episodes)]
    t0 = time.perf_counter()
    for _ in range(a.rounds):
        for ep in eps:
            ep.call(call.tool, call.arguments)
    local = a.rounds * a.episodes / (time.perf_counter() - t0)

    t0 = time.perf_counter()
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False, configure_logging=False)
    pool = EpisodePool(a.env, hosts=a.hosts, num_cpus=0.5)
    handles = [h for h, _, _ in pool.reset(seeds=range(a.episodes), task_ids=[task] * a.episodes)]
    startup = time.perf_counter() - t0
    pool.step(handles, [action] * a.episodes)  # warm up
    t0 = time.perf_counter()
    for _ in range(a.rounds):
        pool.step(handles, [action] * a.episodes)
    wall = time.perf_counter() - t0
    print(
        f"AWM Gym Ray benchmark · {os.cpu_count()} CPUs · {a.env} · {a.episodes} episodes on {a.hosts} actors "
        f"· call {call.tool}"
    )
    print(f"ray.init + actors + resets: {startup:.1f} s")
    print(f"in-process episodes: {local:8.0f} steps/s")
    print(
        f"Ray EpisodePool:     {a.rounds * a.episodes / wall:8.0f} steps/s  "
        f"({wall / a.rounds * 1e3:.1f} ms per batch of {a.episodes}; {local / (a.rounds * a.episodes / wall):.1f}× "
        "slower than in-process on one machine)"
    )
    pool.close()
    ray.shutdown()


if __name__ == "__main__":
    main()
