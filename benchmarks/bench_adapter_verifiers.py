"""verifiers adapter benchmark: gold episodes/s through the adapter (the task's tool server runs every call, then
verifiers' own ``Task.score`` replays them as the judge) next to plain ``gymnasium.make("awm/<env>-v0")`` with the
same tasks and gold actions, in the same run; medians of several rounds. The model and the harness program are
left out (they need a served model and a uv-provisioned agent program): this is the environment's own cost.

    python benchmarks/bench_adapter_verifiers.py [--envs online_store clinic] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

import gymnasium as gym
import verifiers.v1 as vf

import awm  # registers the gymnasium ids
from awm.train.verifiers_env import AwmTaskset, AwmTasksetConfig, AwmToolset


def run_verifiers(tasks, gold) -> int:
    n = 0
    for task in tasks:
        calls, answer = gold[task.data.env, task.data.task_id]
        toolset = AwmToolset(vf.ToolsetConfig())
        asyncio.run(toolset.setup_task(task))
        for tool, args in calls:
            toolset.step(tool, args)
        toolset.step("submit_answer", {"answer": answer})
        trace = vf.Trace(
            task=vf.TraceTask(type="awm", data=task.data),
            agent=vf.AgentInfo(config=vf.AgentConfig()),
            state=toolset.state,
        )
        asyncio.run(task.score(trace))
        assert trace.rewards["outcome"].value == 1.0
        n += 1
    return n


def run_gym(tasks, gold, envs) -> int:
    n = 0
    for task in tasks:
        calls, answer = gold[task.data.env, task.data.task_id]
        env = envs[task.data.env]
        env.reset(seed=task.data.seed, options={"task_id": task.data.task_id})
        for tool, args in calls:
            env.step(json.dumps({"tool": tool, "arguments": args}))
        _, reward, terminated, _, _ = env.step(json.dumps({"answer": answer}))
        assert terminated and reward == 1.0
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", nargs="+", default=["online_store", "clinic"])
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    tasks = list(AwmTaskset(AwmTasksetConfig(envs=a.envs)))
    gold = {}
    for name in a.envs:
        world = awm.load(name)
        for tid in world.task_ids:
            g = world.tasks[tid].verifier.gold
            gold[name, tid] = ([(c.tool, c.arguments) for c in g.calls], g.answer)
    envs = {name: gym.make(f"awm/{name}-v0", max_episode_steps=100) for name in a.envs}
    rates: dict[str, list[float]] = {"verifiers adapter (tool server + Task.score)": [], "gymnasium.make": []}
    for _ in range(a.rounds):
        for label, fn in (
            ("verifiers adapter (tool server + Task.score)", lambda: run_verifiers(tasks, gold)),
            ("gymnasium.make", lambda: run_gym(tasks, gold, envs)),
        ):
            t0 = time.perf_counter()
            n = fn()
            rates[label].append(n / (time.perf_counter() - t0))
    print(f"{len(tasks)} gold episodes per round over {', '.join(a.envs)}; median of {a.rounds} rounds")
    print(f"{'path':<48}{'episodes/s':>12}")
    for label, r in rates.items():
        print(f"{label:<48}{statistics.median(r):>12.1f}")


if __name__ == "__main__":
    main()
