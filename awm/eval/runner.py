"""The eval loop: k trials of each selected task, run by an agent over the Gymnasium env, with bounded
concurrency, per-episode timeouts, and one ``EvalRecord`` per episode appended to ``results.jsonl``.

- Concurrency: ``concurrency`` worker coroutines share one job queue (and one HTTP client). Environment
  steps run inline on the event loop (a step is well under a millisecond); LLM requests are awaited.
- Timeouts and retries: each LLM request has a timeout and is retried with backoff on timeouts, 429 and
  5xx (``ChatClient``); each episode also has a wall-clock limit.
- Failures are classified (see ``awm.eval.records``): an agent's bad tool call is an observation and
  the episode goes on; an exhausted budget is ``truncated``; an infrastructure failure is
  ``infra_error`` and is never scored. A refused request (bad model name or key) stops the run.
- Seeds are sha256-derived from (run seed, env, task, trial); ``--tasks N`` picks the same N tasks of
  each environment for every run (sha256 order), so runs of different models are comparable.
- Resuming: rerunning into the same ``out`` directory skips episodes already scored and retries the rest.
  ``run.json`` records the run's configuration (``run_config``: agent, model, envs, tasks, k, seed, step
  budget, tool format, sampling, ...); resuming with a different one is refused, so one results file never
  mixes two configurations. Each invocation is appended to ``run.json``'s ``invocations``.
- A run stops early when the endpoint refuses a request (wrong model or key) or cannot be reached at all
  (connection errors before any request succeeded); both messages name the endpoint, and the episodes in
  flight are dropped (a rerun retries them).
- Ctrl-C (SIGINT, while ``run_eval`` runs in the main thread) stops the run the same way: no new episode
  starts, the ones in flight are dropped, ``run.json`` records the invocation as ``interrupted`` and
  ``EvalResult.interrupted`` is set (rerunning resumes). A second Ctrl-C is the previous handler's.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import signal
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gymnasium.wrappers import TimeLimit

from awm.errors import AwmError
from awm.eval.agents import Agent, EpisodeSpec
from awm.eval.llm import ContextLengthExceeded, LLMError, LLMRefused
from awm.eval.records import EvalRecord, InfraProblem, Status, TokenUsage
from awm.gym.factory import make_env
from awm.gym.trajectory import StepRecord, TrajectoryRecord
from awm.model.registry import Registry, default_registry, registry_for
from awm.model.templates import parse_instance_id
from awm.model.world import World, stable_int

RESULTS = "results.jsonl"
RUN_INFO = "run.json"
# meta keys that do not change what an episode scores: a resumed run may change them
INFRA_KEYS = frozenset({"base_url", "concurrency", "timeout", "retries", "episode_timeout"})


class EvalConfigError(AwmError):
    """The run cannot start (unknown environment, a mismatching earlier run in ``out``, ...)."""


@dataclass(frozen=True)
class Job:
    env: str
    task_id: str
    trial: int
    seed: int


@dataclass
class EvalConfig:
    out: Path
    envs: Sequence[str] | None = None  # None: every environment in the registry
    tasks: int | None = None  # first N tasks of each env in sha256 order; None: all
    task_ids: Sequence[str] | None = None  # explicit task ids (over the selected envs)
    k: int = 1
    seed: int = 0
    concurrency: int = 8
    max_steps: int = 30
    episode_timeout: float = 1800.0
    paths: Sequence[str] = ()
    overwrite: bool = False
    run_id: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)  # recorded in run.json (base URL, temperature, ...)


@dataclass
class EvalResult:
    out: Path
    records: list[EvalRecord]  # this invocation's episodes
    skipped: int  # already scored by an earlier invocation
    seconds: float
    fatal: str | None = None
    interrupted: bool = False  # stopped by Ctrl-C: the planned episodes not in ``records`` did not run

    @property
    def episodes_per_s(self) -> float:
        return len(self.records) / self.seconds if self.seconds > 0 else 0.0

    def count(self, status: Status) -> int:
        return sum(r.status == status for r in self.records)


def _registry(paths: Sequence[str]) -> Registry:
    return registry_for(tuple(paths)) if paths else default_registry()


def plan(cfg: EvalConfig, registry: Registry | None = None) -> list[Job]:
    """Every (env, task, trial) of the run, with its seed."""
    reg = registry or _registry(cfg.paths)
    names = list(cfg.envs) if cfg.envs else reg.names()
    if cfg.k < 1:
        raise EvalConfigError("k must be at least 1")
    jobs = []
    for env in names:
        try:
            world = reg.load(env)
        except AwmError as e:
            raise EvalConfigError(str(e)) from e
        ids = list(world.task_ids)
        if cfg.task_ids:  # bare ids, and ids of this env's tasks as env/task_id (a task file's rows)
            mine = [t.split("/", 1)[-1] for t in cfg.task_ids if "/" not in t or t.split("/", 1)[0] == env]
            wanted = set(mine)
            ids = [t for t in ids if t in wanted] + [t for t in dict.fromkeys(mine) if _instance_of(world, t)]
        if cfg.tasks is not None:
            ids = sorted(ids, key=lambda t: stable_int("tasks", env, t))[: cfg.tasks]
            ids = [t for t in world.task_ids if t in ids] + [t for t in ids if t not in world.task_ids]
        for task_id in ids:
            for trial in range(cfg.k):
                jobs.append(Job(env, task_id, trial, stable_int("eval", cfg.seed, env, task_id, trial) % 2**31))
    if cfg.task_ids:
        known = [t for env in names for t in reg.load(env).task_ids]
        found = set(known) | {f"{env}/{t}" for env in names for t in reg.load(env).task_ids}
        found |= {j.task_id for j in jobs} | {f"{j.env}/{j.task_id}" for j in jobs}
        left_out = set(reg.names()) - set(names)  # env/task_id of an environment --envs leaves out: not run
        unknown = [
            t
            for t in dict.fromkeys(cfg.task_ids)
            if t not in found and not ("/" in t and t.split("/", 1)[0] in left_out)
        ]
        if unknown:
            raise EvalConfigError(f"no task {', '.join(unknown)} in {', '.join(names)}.{_suggest(unknown, known)}")
    return jobs


def _instance_of(world: World, task_id: str) -> bool:
    """Whether ``task_id`` is an instance of one of this world's templates (``template.world.row[.u]``);
    an instance id naming a template of this world that does not resolve is an error, not a skip."""
    inst = parse_instance_id(task_id)
    if inst is None or inst[0] not in world.templates:
        return False
    try:
        world.resolve(task_id)
    except AwmError as e:
        raise EvalConfigError(f"{world.id}: {e}") from e
    return True


def _suggest(unknown: Sequence[str], known: Sequence[str]) -> str:
    close = list(dict.fromkeys(c for t in unknown for c in difflib.get_close_matches(t, known, 3, 0.5)))
    if close:
        return f" Did you mean {', '.join(close)}?"
    nearest = list(dict.fromkeys(c for t in unknown for c in difflib.get_close_matches(t, known, 3, 0.0)))
    return f" The closest of the {len(known)} task ids: {', '.join(nearest)}." if nearest else ""


def run_config(agent: Agent, cfg: EvalConfig, jobs: Sequence[Job]) -> dict[str, Any]:
    """What decides an episode's result: a resumed run must have the same."""
    return {
        "agent": agent.name,
        "model": agent.model,
        "envs": sorted({j.env for j in jobs}),
        "tasks_per_env": cfg.tasks,
        "task_ids": sorted(set(cfg.task_ids)) if cfg.task_ids else None,
        "k": cfg.k,
        "seed": cfg.seed,
        "max_steps": cfg.max_steps,
        **{k: v for k, v in cfg.meta.items() if k not in INFRA_KEYS},
    }


def config_changes(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """How ``now`` differs from the configuration an earlier ``run.json`` recorded."""
    old = before.get("config")
    if not isinstance(old, dict):  # written before configurations were recorded: check what it has
        old = {k: before[k] for k in ("agent", "model", "k", "seed", "max_steps") if k in before}
        now = {k: now.get(k) for k in old}
    keys = sorted(old.keys() | now.keys())
    return [f"{k} {old.get(k)!r} -> {now.get(k)!r}" for k in keys if old.get(k) != now.get(k)]


def read_records(path: Path) -> list[EvalRecord]:
    """The records of a results file; for a key run more than once, the last line wins."""
    if not path.exists():
        return []
    latest: dict[tuple[str, str, int], EvalRecord] = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = EvalRecord.model_validate_json(line)
                latest[rec.key] = rec
    return list(latest.values())


async def run_eval(
    agent: Agent,
    cfg: EvalConfig,
    *,
    registry: Registry | None = None,
    on_record: Callable[[EvalRecord], None] | None = None,
) -> EvalResult:
    """Run every planned episode not already scored in ``cfg.out``; append one record per episode."""
    reg = registry or _registry(cfg.paths)
    jobs = plan(cfg, reg)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    results, info_path = out / RESULTS, out / RUN_INFO
    run_id = cfg.run_id or out.name
    config = run_config(agent, cfg, jobs)
    before: dict[str, Any] = {}
    if cfg.overwrite:
        results.unlink(missing_ok=True)
    elif info_path.exists():
        before = json.loads(info_path.read_text())
        changes = config_changes(before, config)
        if changes:
            raise EvalConfigError(
                f"{out} holds a run with another configuration ({'; '.join(changes)}); resuming would mix "
                "the two: choose another --out, or pass --overwrite to discard it"
            )
    else:
        theirs = {(r.agent, r.model) for r in read_records(results)}
        if theirs - {(agent.name, agent.model)}:
            raise EvalConfigError(
                f"{results} holds episodes of {sorted(theirs, key=str)} and no {RUN_INFO}: "
                "choose another --out, or pass --overwrite to discard them"
            )
    done = {r.key for r in read_records(results) if r.scored}
    todo = [j for j in jobs if (j.env, j.task_id, j.trial) not in done]
    now = datetime.now(UTC).isoformat(timespec="seconds")
    info = {
        "run_id": run_id,
        "agent": agent.name,
        "model": agent.model,
        "envs": config["envs"],
        "tasks": len({(j.env, j.task_id) for j in jobs}),
        "k": cfg.k,
        "seed": cfg.seed,
        "max_steps": cfg.max_steps,
        "concurrency": cfg.concurrency,
        **cfg.meta,
        "config": config,
        "started": before.get("started", now),
        "invocations": list(before.get("invocations") or []),
    }
    invocation: dict[str, Any] = {"started": now, "planned": len(todo), "already_scored": len(jobs) - len(todo)}
    info["invocations"].append(invocation)
    info_path.write_text(json.dumps(info, indent=2) + "\n")

    queue: asyncio.Queue[Job] = asyncio.Queue()
    for j in todo:
        queue.put_nowait(j)
    records: list[EvalRecord] = []
    fatal: list[str] = []
    reached = [False]  # has any request to the model succeeded?
    interrupted = [False]
    started = time.perf_counter()
    with results.open("a", encoding="utf-8") as sink:
        workers: list[asyncio.Task[None]] = []

        def stop(problem: str) -> None:  # the episodes in flight are dropped: a rerun retries them
            fatal.append(problem)
            for w in workers:
                if w is not asyncio.current_task():
                    w.cancel()

        def on_interrupt() -> None:  # Ctrl-C: like stop(), but not a failure; the next Ctrl-C is the old handler's
            interrupted[0] = True
            restore_sigint()
            for w in workers:
                w.cancel()

        restore_sigint = _on_sigint(on_interrupt)

        async def worker() -> None:
            while not fatal and not interrupted[0]:
                try:
                    job = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                rec, problem = await run_episode(agent, job, cfg, run_id, reg)
                if problem is not None:
                    return stop(problem)
                reached[0] = reached[0] or rec.usage.requests > 0
                records.append(rec)
                sink.write(rec.model_dump_json() + "\n")
                sink.flush()
                if on_record is not None:
                    on_record(rec)
                if rec.error is not None and rec.error.kind == "llm_connection" and not reached[0]:
                    return stop(f"cannot reach the model: {rec.error.message}")
                await asyncio.sleep(0)  # agents that never wait (the built-in ones) let a Ctrl-C through here

        try:
            workers += [asyncio.create_task(worker()) for _ in range(max(1, min(cfg.concurrency, len(todo))))]
            for outcome in await asyncio.gather(*workers, return_exceptions=True):
                if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
                    raise outcome
        finally:
            restore_sigint()
            for w in workers:
                w.cancel()
            await agent.aclose()
    seconds = time.perf_counter() - started
    invocation.update(
        finished=datetime.now(UTC).isoformat(timespec="seconds"),
        episodes=len(records),
        seconds=round(seconds, 3),
        episodes_per_s=round(len(records) / seconds, 2) if seconds > 0 else None,
        fatal=fatal[0] if fatal else None,
        interrupted=interrupted[0],
        notes=list(getattr(agent, "notes", None) or []),
    )
    info.update({k: v for k, v in invocation.items() if k not in ("started", "planned", "already_scored")})
    info_path.write_text(json.dumps(info, indent=2) + "\n")
    return EvalResult(out, records, len(jobs) - len(todo), seconds, fatal[0] if fatal else None, interrupted[0])


def _on_sigint(handler: Callable[[], None]) -> Callable[[], None]:
    """Run ``handler`` on the event loop at SIGINT; returns what puts the previous handler back (idempotent).
    Outside the main thread (or without signals) nothing is installed."""
    loop = asyncio.get_running_loop()
    previous = signal.getsignal(signal.SIGINT)
    try:
        loop.add_signal_handler(signal.SIGINT, handler)
    except (ValueError, RuntimeError, NotImplementedError):
        return lambda: None
    restored = [False]

    def restore() -> None:
        if not restored[0]:
            restored[0] = True
            loop.remove_signal_handler(signal.SIGINT)
            signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)

    return restore


class _EnvFailure(Exception):
    pass


def _charge(usage: TokenUsage, e: LLMError) -> None:
    """Add what the turn that failed cost (its requests, the tokens the server counted) to the episode's usage."""
    usage.requests += e.requests
    usage.prompt_tokens += e.prompt_tokens
    usage.completion_tokens += e.completion_tokens


async def run_episode(
    agent: Agent, job: Job, cfg: EvalConfig, run_id: str, registry: Registry | None = None
) -> tuple[EvalRecord, str | None]:
    """One episode; returns its record, and a message when the run must stop (the endpoint refused)."""
    started = time.perf_counter()
    reg = registry or _registry(cfg.paths)
    world, _ = reg.load(job.env).resolve(job.task_id)  # a fixed task, or an instance on its built world
    env = TimeLimit(make_env(job.env, paths=list(cfg.paths) or None), max_episode_steps=cfg.max_steps)
    _obs, info = env.reset(seed=job.seed, options={"task_id": job.task_id})
    traj = TrajectoryRecord(
        run_id=run_id,
        env_id=info["env_id"],
        task_id=job.task_id,
        task_kind=info["task_kind"],
        instruction=info["instruction"],
        seed=job.seed,
        steps=[],
    )
    spec = EpisodeSpec(world, job.env, job.task_id, info["instruction"], info["tools"], job.seed, cfg.max_steps)
    usage = TokenUsage()
    status: Status = Status.infra_error
    outcome: float | None = None
    error: InfraProblem | None = None
    truncation: str | None = None
    cut_reply: str | None = None
    fatal: str | None = None
    try:
        async with asyncio.timeout(cfg.episode_timeout):
            episode = agent.start(spec)
            finished = False
            while not finished:
                turn = await episode.act()
                usage.requests += turn.requests
                usage.prompt_tokens += turn.prompt_tokens
                usage.completion_tokens += turn.completion_tokens
                for action in turn.actions:
                    try:
                        obs, reward, terminated, truncated, info = env.step(action.env_action)
                    except Exception as e:  # agent mistakes never raise: this is a bug in the environment
                        raise _EnvFailure(f"{type(e).__name__}: {e}") from e
                    traj.steps.append(
                        StepRecord(
                            action=action.raw,
                            observation=obs,
                            tool=info.get("tool"),
                            ok=bool(info.get("ok", False)),
                            error=info.get("error"),
                            diff=info.get("diff") or [],
                            reward=float(reward),
                            reward_components=info.get("reward_components") or {},
                        )
                    )
                    if terminated:
                        outcome = float(info.get("outcome") or 0.0)
                        status = Status.passed if outcome == 1.0 else Status.failed
                        traj.outcome = info.get("outcome")
                        finished = True
                        break
                    if truncated:
                        status, outcome, truncation, finished = Status.truncated, 0.0, "max_steps", True
                        traj.truncated = True
                        break
                    episode.observe(action, obs)
    except ContextLengthExceeded as e:  # the context is full, or the reply was cut at max_tokens: this episode only
        status, outcome, truncation = Status.truncated, 0.0, e.reason
        traj.truncated = True
        _charge(usage, e)
        cut_reply = e.reply
    except LLMRefused as e:
        error, fatal = InfraProblem(kind=e.kind, message=str(e)), str(e)
        _charge(usage, e)
    except LLMError as e:
        error = InfraProblem(kind=e.kind, message=str(e))
        _charge(usage, e)
    except TimeoutError:
        error = InfraProblem(kind="episode_timeout", message=f"the episode took longer than {cfg.episode_timeout:g} s")
    except _EnvFailure as e:
        error = InfraProblem(kind="env_error", message=str(e))
    except Exception as e:  # a bug in the agent: record it, never score it
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        error = InfraProblem(kind="agent_error", message=tb)
    finally:
        env.close()
    traj.total_reward = sum(s.reward for s in traj.steps)
    rec = EvalRecord(
        run_id=run_id,
        agent=agent.name,
        model=agent.model,
        env=job.env,
        task_id=job.task_id,
        trial=job.trial,
        seed=job.seed,
        status=status,
        outcome=outcome,
        error=error,
        truncation=truncation,
        cut_reply=cut_reply,
        usage=usage,
        seconds=round(time.perf_counter() - started, 4),
        trajectory=traj,
    )
    return rec, fatal
