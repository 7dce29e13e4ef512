"""Gymnasium benchmark: steps/s through ``gym.make`` (checker, order enforcing and time limit wrappers
included), with the chat + Hermes wrappers, next to the raw ``Episode.call`` figure for the same actions.

    python benchmarks/bench_gym.py [--envs online_store] [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym

import awm  # noqa: F401  (registers the ids)
from awm.model.registry import default_registry


def gold_actions(world):
    for tid in world.task_ids:
        g = world.tasks[tid].verifier.gold
        yield tid, [(c.tool, c.arguments) for c in g.calls], g.answer


def run_raw(world, rounds: int) -> tuple[int, float]:
    n, t0 = 0, time.perf_counter()
    for _ in range(rounds):
        for tid, calls, answer in gold_actions(world):
            ep = world.episode(tid)
            for tool, args in calls:
                ep.call(tool, args)
            ep.submit(answer)
            n += len(calls) + 1
    return n, time.perf_counter() - t0


def run_gym(env_id: str, world, rounds: int, fmt: str) -> tuple[int, float]:
    kwargs = {"max_episode_steps": 100}
    if fmt == "hermes-chat":
        kwargs |= {"action_format": "hermes", "observation": "chat", "history": 3}
    env = gym.make(env_id, **kwargs)
    n, t0 = 0, time.perf_counter()
    for _ in range(rounds):
        for tid, calls, answer in gold_actions(world):
            env.reset(seed=0, options={"task_id": tid})
            for tool, args in calls:
                if fmt == "json":
                    action = json.dumps({"tool": tool, "arguments": args})
                else:
                    action = f"<tool_call>{json.dumps({'name': tool, 'arguments': args})}</tool_call>"
                env.step(action)
            if fmt == "json":
                env.step(json.dumps({"answer": answer}))
            else:  # the typed answer through the submit_answer tool
                env.step(
                    f"<tool_call>{json.dumps({'name': 'submit_answer', 'arguments': {'answer': answer}})}</tool_call>"
                )
            n += len(calls) + 1
    return n, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", default="")
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args()
    reg = default_registry()
    names = [n for n in a.envs.split(",") if n] or reg.names()
    print("AWM Gym Gymnasium benchmark · gold trajectories of every task (resets included)")
    for name in names:
        world = reg.load(name)
        env_id = reg.entries()[name].gym_id
        n, t = run_raw(world, a.rounds)
        raw = n / t
        print(f"\n== {name}")
        print(f"raw Episode.call          {raw:8.0f} steps/s")
        for fmt in ("json", "hermes-chat"):
            n, t = run_gym(env_id, world, a.rounds, fmt)
            print(f"gym.make ({fmt:11})   {n / t:8.0f} steps/s  ({n / t / raw:4.2f}× raw)")


if __name__ == "__main__":
    main()
