"""The runs the viewer shows: ``awm eval`` run directories (``results.jsonl`` + ``run.json``) and
``RecordTrajectory`` JSONL files, given by path on the command line and nothing else.

Reading is tolerant: a malformed line is reported with its file and line number and the rest of the
file is kept. A run is re-read when its file changes (a run still in progress shows new episodes).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from awm.eval.records import EvalRecord, InfraProblem, TokenUsage
from awm.gym.trajectory import TrajectoryRecord
from awm.view.errors import RunPathError, UnknownEpisodeError

RESULTS = "results.jsonl"
RUN_INFO = "run.json"
STATUSES = ("passed", "failed", "truncated", "infra_error")


class LineProblem(BaseModel):
    """A line of a run's file that could not be read (the others were)."""

    model_config = ConfigDict(frozen=True)
    file: str
    line: int
    message: str


class RunEpisode(BaseModel):
    """One episode of a run, whichever file it came from."""

    model_config = ConfigDict(frozen=True)
    env: str
    task_id: str
    trial: int
    seed: int
    status: Literal["passed", "failed", "truncated", "infra_error"]
    outcome: float | None = None
    error: InfraProblem | None = None
    truncation: str | None = None
    usage: TokenUsage = TokenUsage()
    seconds: float = 0.0
    line: int
    trajectory: TrajectoryRecord

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.env, self.task_id, self.trial)

    def summary(self) -> dict[str, Any]:
        """What a run's listing shows of the episode (no steps)."""
        steps = self.trajectory.steps
        return {
            "env": self.env,
            "task_id": self.task_id,
            "task_kind": self.trajectory.task_kind,
            "trial": self.trial,
            "seed": self.seed,
            "status": self.status,
            "outcome": self.outcome,
            "steps": len(steps),
            "tool_errors": sum(not s.ok for s in steps),
            "progress": _final_progress(self.trajectory),
            "error": self.error.model_dump() if self.error else None,
            "truncation": self.truncation,
        }


class RunData(BaseModel):
    """A run as read from disk."""

    model_config = ConfigDict(frozen=True)
    id: str
    path: str
    kind: Literal["eval", "trajectories"]
    info: dict[str, Any]  # run.json (eval runs), or {}
    episodes: list[RunEpisode]
    problems: list[LineProblem]

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for e in self.episodes:
            out[e.status] += 1
        return out

    def summary(self) -> dict[str, Any]:
        counts = self.counts()
        scored = counts["passed"] + counts["failed"] + counts["truncated"]
        agent = self.info.get("agent")
        model = self.info.get("model")
        return {
            "id": self.id,
            "path": self.path,
            "kind": self.kind,
            "label": model or agent or self.id,
            "agent": agent,
            "model": model,
            "k": self.info.get("k"),
            "started": self.info.get("started"),
            "envs": sorted({e.env for e in self.episodes}),
            "tasks": len({(e.env, e.task_id) for e in self.episodes}),
            "episodes": len(self.episodes),
            "counts": counts,
            "pass_rate": counts["passed"] / scored if scored else None,
            "problems": len(self.problems),
        }

    def episode(self, env: str, task_id: str, trial: int) -> RunEpisode:
        for e in self.episodes:
            if e.key == (env, task_id, trial):
                return e
        raise UnknownEpisodeError(f"run {self.id!r} has no episode {env}/{task_id} trial {trial}")


def _final_progress(t: TrajectoryRecord) -> float | None:
    for s in reversed(t.steps):
        p = s.reward_components.get("progress")
        if isinstance(p, (int, float)):
            return float(p)
    return None


def _status(t: TrajectoryRecord) -> Literal["passed", "failed", "truncated"]:
    if t.outcome is not None:
        return "passed" if t.outcome == 1.0 else "failed"
    return "truncated"


_ENV_ID = re.compile(r"^(?:awm/)?(.+?)(?:-v\d+)?$")


def env_of(env_id: str) -> str:
    """``awm/online_store-v0`` -> ``online_store``."""
    m = _ENV_ID.match(env_id)
    return m.group(1) if m else env_id


def _problem(e: Exception) -> str:
    if isinstance(e, ValidationError):
        errs = e.errors()
        shown = "; ".join(f"{'.'.join(str(p) for p in x['loc']) or 'line'}: {x['msg']}" for x in errs[:3])
        return shown + (f" (and {len(errs) - 3} more)" if len(errs) > 3 else "")
    return str(e)


def read_episodes(path: Path) -> tuple[list[RunEpisode], list[LineProblem]]:
    """Every episode of a JSONL file of ``EvalRecord`` or ``TrajectoryRecord`` lines (either, line by line).

    Eval records keep the last line of each (env, task, trial), as ``awm eval`` does when it resumes;
    trajectory records are numbered as trials of their task in file order."""
    latest: dict[tuple[str, str, int], RunEpisode] = {}
    problems: list[LineProblem] = []
    trials: dict[tuple[str, str], int] = {}
    with path.open(encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                if not isinstance(raw, dict):
                    raise ValueError(f"expected a JSON object, found {type(raw).__name__}")
                if "trajectory" in raw:
                    rec = EvalRecord.model_validate(raw)
                    ep = RunEpisode(**{k: getattr(rec, k) for k in RunEpisode.model_fields if k != "line"}, line=n)
                else:
                    t = TrajectoryRecord.model_validate(raw)
                    env = env_of(t.env_id)
                    trial = trials.get((env, t.task_id), 0)
                    trials[(env, t.task_id)] = trial + 1
                    ep = RunEpisode(
                        env=env,
                        task_id=t.task_id,
                        trial=trial,
                        seed=t.seed,
                        status=_status(t),
                        outcome=t.outcome,
                        line=n,
                        trajectory=t,
                    )
            except (ValueError, ValidationError) as e:
                problems.append(LineProblem(file=str(path), line=n, message=_problem(e)))
                continue
            latest[ep.key] = ep
    return list(latest.values()), problems


class RunSource:
    """A run on disk: a results file (and its folder's ``run.json``), read when first asked for and again
    whenever the file changes. Thread-safe."""

    def __init__(self, run_id: str, results: Path, kind: Literal["eval", "trajectories"]):
        self.id, self.results, self.kind = run_id, results, kind
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._data: RunData | None = None

    def load(self) -> RunData:
        try:
            st = self.results.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = (0, -1)  # gone: an empty run that says so
        with self._lock:
            if self._data is None or stamp != self._stamp:
                self._data = self._read()
                self._stamp = stamp
            return self._data

    def _read(self) -> RunData:
        try:
            episodes, problems = read_episodes(self.results)
        except OSError as e:
            episodes, problems = [], [LineProblem(file=str(self.results), line=0, message=e.strerror or str(e))]
        info: dict[str, Any] = {}
        info_path = self.results.parent / RUN_INFO
        if self.kind == "eval" and info_path.exists():
            try:
                loaded = json.loads(info_path.read_text(encoding="utf-8"))
                info = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError) as e:
                problems.append(LineProblem(file=str(info_path), line=0, message=f"not readable: {e}"))
        if not info and episodes:  # a trajectory file, or an eval run without run.json
            run_id = episodes[0].trajectory.run_id
            info = {"run_id": run_id} if run_id else {}
        return RunData(
            id=self.id,
            path=str(self.results),
            kind=self.kind,
            info=info,
            episodes=episodes,
            problems=problems,
        )


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "run"


def discover(paths: Sequence[str | Path]) -> list[RunSource]:
    """The runs at ``paths``: a run directory (``results.jsonl``), a folder of run directories, or a JSONL
    file (``results.jsonl`` or a ``RecordTrajectory`` file). Ids are the folder or file names, made unique."""
    found: list[tuple[str, Path, Literal["eval", "trajectories"]]] = []
    for given in paths:
        p = Path(given).expanduser()
        if p.is_dir():
            if (p / RESULTS).is_file():
                found.append((p.resolve().name, p / RESULTS, "eval"))
                continue
            subs = sorted(d for d in p.iterdir() if d.is_dir() and (d / RESULTS).is_file())
            if not subs:
                raise RunPathError(f"{p}: no {RESULTS} in it or in its folders; give a run directory from awm eval")
            found += [(d.name, d / RESULTS, "eval") for d in subs]
        elif p.is_file():
            if p.suffix != ".jsonl":
                raise RunPathError(f"{p}: a run is a directory or a .jsonl file")
            kind: Literal["eval", "trajectories"] = "eval" if p.name == RESULTS else "trajectories"
            found.append((p.resolve().parent.name if kind == "eval" else p.stem, p, kind))
        else:
            raise RunPathError(f"{p}: no such file or directory")
    sources: list[RunSource] = []
    taken: set[str] = set()
    seen: set[Path] = set()
    for name, results, kind in found:
        if results.resolve() in seen:
            continue
        seen.add(results.resolve())
        base = _slug(name)
        run_id, n = base, 1
        while run_id in taken:
            n += 1
            run_id = f"{base}-{n}"
        taken.add(run_id)
        sources.append(RunSource(run_id, results, kind))
    return sources
