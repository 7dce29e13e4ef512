"""Episodes per second through veRL's tool API (create → execute → release per call, as its ToolAgentLoop makes them,
async; the reward as its reward manager asks for it) vs plain ``gymnasium.make("awm/<env>-v0")``, with the same
tasks and gold actions, side by side in one run (medians of several rounds).

    .venv-verl/bin/python benchmarks/bench_adapter_verl.py [--rounds 5] [--envs online_store,clinic,hotel]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

import awm
from awm.train.verl_env import compute_score, task_rows, tool_name, write_tool_config


class Trajectory:
    """What ToolAgentLoop passes a tool as ``agent_data``."""

    def __init__(self) -> None:
        self.extra_fields: dict[str, Any] = {}


def plan(envs: list[str]) -> list[tuple[dict, list[tuple[str, Any]], Any]]:
    """(row, gold calls, gold answer) for every fixed task of ``envs``."""
    out = []
    for row in task_rows([awm.load(e) for e in envs], namespace=len(envs) > 1):
        gold = awm.load(row["extra_info"]["env"]).task(row["extra_info"]["task_id"]).verifier.gold
        out.append((row, [(c.tool, json.loads(json.dumps(c.arguments))) for c in gold.calls], gold.answer))
    return out


async def verl_round(tools: dict[str, Any], work: list, with_reward: bool) -> float:
    start = time.perf_counter()
    for row, calls, answer in work:
        traj = Trajectory()
        for name, args in [*calls, ("submit_answer", {"answer": answer})]:
            name = tool_name(row["extra_info"]["env"], name, namespace=name not in tools)
            tool = tools[name]
            iid, _ = await tool.create(create_kwargs=row["extra_info"]["tools_kwargs"][name]["create_kwargs"])
            await tool.execute(iid, args, agent_data=traj)
            await tool.release(iid)
        if with_reward:
            extra = {**row["extra_info"], **traj.extra_fields}
            assert compute_score(row["data_source"], "", row["reward_model"]["ground_truth"], extra)["score"] == 1.0
    return len(work) / (time.perf_counter() - start)


def gym_round(envs: dict[str, Any], work: list) -> float:
    start = time.perf_counter()
    for row, calls, answer in work:
        env = envs[row["extra_info"]["env"]]
        env.reset(seed=row["extra_info"]["seed"], options={"task_id": row["extra_info"]["task_id"]})
        for name, args in calls:
            env.step({"tool": name, "arguments": args})
        _, reward, terminated, _, info = env.step({"answer": answer})
        assert terminated and reward == 1.0, (row["extra_info"]["task_id"], info["reward_components"])
    return len(work) / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--envs", default="online_store,clinic,hotel")
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    names = args.envs.split(",")
    work = plan(names)
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        from verl.tools.tool_registry import initialize_tools_from_config

        path = write_tool_config([awm.load(e) for e in names], Path(tmp) / "tools.yaml", namespace=len(names) > 1)
        tools = {t.name: t for t in initialize_tools_from_config(str(path))}
    envs = {e: gym.make(f"awm/{e}-v0") for e in names}
    gym_round(envs, work)  # warm-up
    asyncio.run(verl_round(tools, work, True))
    rows: dict[str, list[float]] = {"gymnasium.make (step dicts)": [], "veRL tools": [], "veRL tools + reward": []}
    for _ in range(args.rounds):
        rows["gymnasium.make (step dicts)"].append(gym_round(envs, work))
        rows["veRL tools"].append(asyncio.run(verl_round(tools, work, False)))
        rows["veRL tools + reward"].append(asyncio.run(verl_round(tools, work, True)))
    steps = sum(len(c) + 1 for _, c, _ in work)
    print(f"{len(work)} gold episodes ({steps} steps) of {', '.join(names)}; median of {args.rounds} rounds")
    print(f"| {'path':<28} | {'episodes/s':>10} | {'steps/s':>8} | vs gym |")
    print(f"|{'-' * 30}|{'-' * 12}|{'-' * 10}|--------|")
    base = statistics.median(rows["gymnasium.make (step dicts)"])
    for name, values in rows.items():
        eps = statistics.median(values)
        print(f"| {name:<28} | {eps:>10,.0f} | {eps * steps / len(work):>8,.0f} | {eps / base:>5.2f}x |")


if __name__ == "__main__":
    main()
