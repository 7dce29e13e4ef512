"""The JSON views of runs: a run's tasks and trials (failures first), one episode step by step with
the judge's reasons, and several runs side by side."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from awm.errors import AwmError
from awm.gym.trajectory import StepRecord
from awm.model.registry import Registry
from awm.runtime.actions import Answer, ListTools, Malformed, ToolCall
from awm.view.environments import task_view
from awm.view.replay import parse_recorded, replay
from awm.view.runs import RunData, RunEpisode


def _tasks(run: RunData) -> list[dict[str, Any]]:
    """Per (env, task): its trials; tasks with the fewest passes first, then in file order."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for ep in run.episodes:
        row = rows.setdefault(
            (ep.env, ep.task_id),
            {
                "env": ep.env,
                "task_id": ep.task_id,
                "kind": ep.trajectory.task_kind,
                "instruction": ep.trajectory.instruction,
                "trials": [],
            },
        )
        row["trials"].append(ep.summary())
    out = list(rows.values())
    for row in out:
        row["trials"].sort(key=lambda t: t["trial"])
        row["passed"] = sum(t["status"] == "passed" for t in row["trials"])
        row["n"] = len(row["trials"])
    order = {k: i for i, k in enumerate(rows)}
    out.sort(key=lambda r: (r["passed"] / r["n"], order[(r["env"], r["task_id"])]))
    return out


def run_view(run: RunData) -> dict[str, Any]:
    return {
        "run": run.summary(),
        "info": run.info,
        "problems": [p.model_dump() for p in run.problems],
        "tasks": _tasks(run),
    }


def _arguments(action: str | dict[str, Any]) -> Any:
    """What the recorded action asked for, in our canonical terms (for display)."""
    parsed = parse_recorded(action)
    if isinstance(parsed, ToolCall):
        args = parsed.arguments
        if isinstance(args, str):
            with contextlib.suppress(ValueError):
                args = json.loads(args)
        return args
    if isinstance(parsed, Answer):
        out = {"answer": parsed.value}
        if parsed.explanation is not None:
            out["explanation"] = parsed.explanation
        return out
    if isinstance(parsed, ListTools):
        return {}
    assert isinstance(parsed, Malformed)
    return None


def _step(i: int, s: StepRecord) -> dict[str, Any]:
    try:
        seen = json.loads(s.observation)
    except ValueError:
        seen = None
    result = seen.get("result", seen) if isinstance(seen, dict) and "ok" in seen else s.observation
    return {
        "index": i,
        "tool": s.tool,
        "submit": s.tool is None and s.reward_components.get("outcome") is not None,
        "action": s.action,
        "arguments": _arguments(s.action),
        "ok": s.ok,
        "error": s.error,
        "result": result if s.ok else None,
        "diff": s.diff,
        "reward": s.reward,
        "rewards": s.reward_components,
    }


def _key(ep: RunEpisode) -> dict[str, Any]:
    return {"env": ep.env, "task_id": ep.task_id, "trial": ep.trial, "status": ep.status}


def _neighbours(run: RunData, ep: RunEpisode) -> dict[str, Any]:
    """The previous and next episode in the run page's order, and the next failure after this one."""
    ordered = [run.episode(row["env"], row["task_id"], t["trial"]) for row in _tasks(run) for t in row["trials"]]
    i = next(j for j, e in enumerate(ordered) if e.key == ep.key)
    after = ordered[i + 1 :] + ordered[:i]
    failure = next((e for e in after if e.status != "passed"), None)
    return {
        "prev": _key(ordered[i - 1]) if i > 0 else None,
        "next": _key(ordered[i + 1]) if i + 1 < len(ordered) else None,
        "next_failure": _key(failure) if failure is not None else None,
    }


def episode_view(registry: Registry, run: RunData, ep: RunEpisode, *, show_answers: bool) -> dict[str, Any]:
    """One episode: the task, every step as recorded, and the judge's verdict on a replay."""
    t = ep.trajectory
    task: dict[str, Any] = {"id": t.task_id, "kind": t.task_kind, "instruction": t.instruction}
    try:
        _, ct = registry.load(ep.env).resolve(t.task_id)  # a fixed task or a template instance
    except AwmError:
        pass  # the replay says why
    else:
        task = task_view(ct.task, ct.verifier, show_answers=show_answers)
        task["instruction"] = t.instruction  # what the agent was told
    summary = ep.summary() | {"usage": ep.usage.model_dump(), "seconds": ep.seconds, "line": ep.line}
    return {
        "run": run.summary(),
        "episode": summary,
        "task": task,
        "steps": [_step(i, s) for i, s in enumerate(t.steps, start=1)],
        "replay": replay(registry, ep.env, t).model_dump(mode="json"),
        "neighbours": _neighbours(run, ep),
    }


def compare_view(runs: list[RunData]) -> dict[str, Any]:
    """Tasks x runs: each run's trials of each task, and whether the runs disagree on it."""
    keys: dict[tuple[str, str], str] = {}
    for run in runs:
        for ep in run.episodes:
            keys.setdefault((ep.env, ep.task_id), ep.trajectory.task_kind)
    by_run = [{row["env"] + "\0" + row["task_id"]: row for row in _tasks(run)} for run in runs]
    rows = []
    for (env, task_id), kind in keys.items():
        cells: list[dict[str, Any] | None] = []
        for table in by_run:
            row = table.get(env + "\0" + task_id)
            if row is None:
                cells.append(None)
            else:
                trials = [{"trial": x["trial"], "status": x["status"]} for x in row["trials"]]
                cells.append({"trials": trials, "passed": row["passed"], "n": row["n"]})
        rates = {c["passed"] / c["n"] for c in cells if c is not None}
        rows.append({"env": env, "task_id": task_id, "kind": kind, "cells": cells, "differ": len(rates) > 1})
    return {"runs": [r.summary() for r in runs], "rows": rows}
