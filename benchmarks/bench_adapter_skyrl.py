"""SkyRL-gym adapter benchmark: episodes/s through ``skyrl_gym.make("awm", ...)`` + ``init`` + ``step`` (Hermes
text) next to plain ``gymnasium.make("awm/<env>-v0")`` (our JSON actions) for the same tasks and gold actions,
in the same run; the median of several rounds. Every episode must score 1 on both sides.

    .venv-skyrl/bin/python benchmarks/bench_adapter_skyrl.py [--envs online_store,clinic] [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import gymnasium as gym
import skyrl_gym

import awm  # registers the Gymnasium ids; awm.load
from awm.train.skyrl_env import ENV_CLASS


def gold(world):
    for tid in world.task_ids:
        g = world.tasks[tid].verifier.gold
        yield tid, [(c.tool, c.arguments) for c in g.calls], g.answer


def hermes(name: str, arguments) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def run_skyrl(world, tasks) -> int:
    for tid, calls, answer in tasks:
        env = skyrl_gym.make(ENV_CLASS, env_config={}, extras={"env": world.id, "task_id": tid, "max_turns": 100})
        env.init([{"role": "user", "content": "task"}])
        for tool, args in calls:
            env.step(hermes(tool, args))
        out = env.step(hermes("submit_answer", {"answer": answer}))
        assert out["done"] and out["reward"] == 1.0, (world.id, tid)
        env.close()
    return len(tasks)


def run_gym(world, tasks) -> int:
    env = gym.make(f"awm/{world.id}-v{world.version}", max_episode_steps=100)
    for tid, calls, answer in tasks:
        env.reset(seed=0, options={"task_id": tid})
        for tool, args in calls:
            env.step(json.dumps({"tool": tool, "arguments": args}))
        _, reward, terminated, _, _ = env.step(json.dumps({"answer": answer}))
        assert terminated and reward == 1.0, (world.id, tid)
    env.close()
    return len(tasks)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--envs", default="online_store,clinic,project_tracker,hotel")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    print(f"| env | tasks | gymnasium.make ep/s | skyrl_gym.make ep/s | skyrl / gym | (median of {args.rounds})")
    print("|---|---|---|---|---|")
    for name in args.envs.split(","):
        world = awm.load(name)
        tasks = list(gold(world))
        run_gym(world, tasks), run_skyrl(world, tasks)  # warm-up: compiled statements, connection pool
        rates: dict[str, list[float]] = {"gym": [], "skyrl": []}
        for _ in range(args.rounds):  # interleaved, so drift on a shared machine hits both sides alike
            for side, fn in (("gym", run_gym), ("skyrl", run_skyrl)):
                t0 = time.perf_counter()
                n = fn(world, tasks)
                rates[side].append(n / (time.perf_counter() - t0))
        g, s = statistics.median(rates["gym"]), statistics.median(rates["skyrl"])
        print(f"| {name} | {len(tasks)} | {g:,.0f} | {s:,.0f} | {s / g:.2f} |")


if __name__ == "__main__":
    main()
