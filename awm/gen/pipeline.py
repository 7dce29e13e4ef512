"""The generation pipeline: scenario ideas in, validated environments out.

Per scenario (a *job*), the stages run in order. Each stage asks the LLM, parses the answer into its
typed record and checks it; on failure the answer and a concise error summary go back to the LLM, up
to ``max_attempts`` times. A job that passes every stage has been validated in full (``awm validate``
in the sandbox) in its staging folder and is then committed atomically (``awm.gen.workspace``); a job
that fails is rejected with its stage, attempts and last errors, and nothing of it reaches ``envs/``.

Runs are idempotent: a job is keyed by its scenario and the settings that shape its requests, a
finished job is not run again, and every LLM answer is cached, so ``--resume`` after an interruption
repeats no paid request.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from awm.bundle.loader import read_bundle
from awm.bundle.records import Manifest, Provenance
from awm.errors import AwmError
from awm.gen.dedup import LEXICAL_THRESHOLD, LexicalIndex
from awm.gen.jsonparse import OutputError, strip_reasoning
from awm.gen.llm import ChatModel, LLMError
from awm.gen.prompts import Prompt, load_prompt, prompts_hash
from awm.gen.records import ScenarioIdea
from awm.gen.report import JobResult, ProgressView, RunReport
from awm.gen.sandbox import Sandbox
from awm.gen.stages import STAGE_NAMES, Draft, Limits, Stage, StageEnv, profile_stages
from awm.gen.workspace import Workspace

MAX_FEEDBACK_PROBLEMS = 15
MAX_PROBLEM_CHARS = 500


@dataclass(frozen=True)
class GenConfig:
    root: Path  # holds envs/ and verifiers/
    max_attempts: int = 5
    limits: Limits = field(default_factory=Limits)
    seed: int = 0
    jobs: int = 4  # environments in flight
    sandbox_timeout: float = 60.0
    call_timeout: float = 2.0
    prompts_dir: Path | None = None
    dedup_threshold: float | None = LEXICAL_THRESHOLD  # None: no de-duplication
    keep_rejects: bool = True  # keep the last candidate of a rejected job under .awm-gen/rejected/
    retry_rejected: bool = False  # run scenarios again that an earlier run rejected
    profile: str = "catalog"  # "catalog": templates + world builder at the catalog's bar; "compact": AWM-sized


class StageFailed(Exception):
    def __init__(self, stage: str, attempts: int, problems: list[str]):
        self.stage, self.attempts, self.problems = stage, attempts, problems
        super().__init__(f"{stage} failed after {attempts} attempt(s)")


def job_key(idea: ScenarioIdea, model: str, seed: int, prompts: str, tasks: int, profile: str = "compact") -> str:
    """Stable id of one job: the scenario plus everything that shapes its requests."""
    parts: list[object] = [idea.name, idea.description, model, seed, prompts, tasks]
    raw = json.dumps(parts if profile == "compact" else [*parts, profile])
    return hashlib.sha256(raw.encode()).hexdigest()[:12]


class Generator:
    """Runs jobs concurrently against one output root. The LLM client is passed in."""

    def __init__(
        self,
        llm: ChatModel,
        config: GenConfig,
        *,
        console: Console | None = None,
        show_progress: bool = True,
        stages: Sequence[Stage[Any]] | None = None,
        sandbox: Sandbox | None = None,
    ):
        self.llm = llm
        self.config = config
        self.console = console or Console(stderr=True)
        self.show_progress = show_progress
        self.stages = list(stages or profile_stages(config.profile))
        self.sandbox = sandbox or Sandbox(timeout=config.sandbox_timeout, call_timeout=config.call_timeout)
        self.workspace = Workspace(config.root)
        self.prompts: dict[str, Prompt] = {
            s.name: load_prompt(s.prompt_name(), config.prompts_dir) for s in self.stages
        }
        self.feedback = load_prompt("feedback", config.prompts_dir)
        self.prompts_hash = prompts_hash(config.prompts_dir)

    def key(self, idea: ScenarioIdea) -> str:
        limits = self.config.limits
        size = limits.tasks if self.config.profile == "compact" else limits.templates
        return job_key(idea, self.llm.model, self.config.seed, self.prompts_hash, size, self.config.profile)

    # -- the run ---------------------------------------------------------------------------------
    async def run(self, ideas: Sequence[ScenarioIdea], *, batch: dict[str, Any] | None = None) -> RunReport:
        """Generate one environment per idea. ``batch`` (settings + ideas, no secrets) is saved for ``--resume``."""
        started = time.monotonic()
        report = RunReport(self.llm.model, [s.name for s in self.stages], started=_now())
        ws = self.workspace
        with ws.lock():
            if batch is not None:
                ws.save_batch(batch)
            for line in ws.recover():
                self.console.print(f"[dim]{line}[/dim]", highlight=False)
            jobs = self._plan(ideas, report)
            todo = [(j, i) for j, i in jobs if j.status == "pending"]
            env = StageEnv(self.config.limits, self.sandbox, ws.existing_envs())
            gate = asyncio.Semaphore(max(1, self.config.jobs))
            view = ProgressView(report.stages, len(todo), self.console, enabled=self.show_progress and bool(todo))

            async def one(job: JobResult, idea: ScenarioIdea) -> None:
                async with gate:
                    await self._job(job, idea, env, view)

            try:
                with view:
                    await asyncio.gather(*(one(j, i) for j, i in todo))
            finally:
                for j, _ in todo:
                    if j.status == "pending":
                        j.status = "interrupted"
                report.seconds = time.monotonic() - started
                report.write(ws.report_file)
        return report

    def _plan(self, ideas: Sequence[ScenarioIdea], report: RunReport) -> list[tuple[JobResult, ScenarioIdea]]:
        """One job per idea; finished jobs are skipped, near-duplicate ideas are not run."""
        ws = self.workspace
        planned: list[tuple[JobResult, ScenarioIdea]] = []
        seen: set[str] = set()
        states = {}
        for idea in ideas:
            key = self.key(idea)
            if key in seen:
                continue
            seen.add(key)
            states[key] = ws.job_state(key)
        ours = {s["env"] for s in states.values() if s and s.get("env")}
        index = LexicalIndex(self.config.dedup_threshold or 1.0)
        if self.config.dedup_threshold is not None:
            for name in sorted(ws.existing_envs() - ours):
                index.add(name, _manifest_description(self.config.root / "envs" / name))
        for key, idea in ((self.key(i), i) for i in ideas):
            if key not in states:
                continue
            state = states.pop(key)
            job = JobResult(key, idea.name)
            report.jobs.append(job)
            planned.append((job, idea))
            if state and state.get("status") == "written" and (self.config.root / "envs" / str(state["env"])).is_dir():
                job.status, job.env, job.note = "skipped", state["env"], "(already written)"
                continue
            if state and state.get("status") == "rejected" and not self.config.retry_rejected:
                job.status, job.stage, job.note = "skipped", state.get("stage"), "(rejected in an earlier run)"
                job.problems = list(state.get("problems", []))
                continue
            if self.config.dedup_threshold is not None:
                dup, other, score = index.is_duplicate(idea.name, idea.description)
                if dup:
                    job.status, job.note = "duplicate", f"(of {other}, similarity {score:.2f})"
                    continue
                index.add(idea.name, idea.description)
        return planned

    async def _job(self, job: JobResult, idea: ScenarioIdea, env: StageEnv, view: ProgressView) -> None:
        started = time.monotonic()
        staging = self.workspace.new_staging(job.key)
        draft = Draft(idea, job.key, staging)
        current: str | None = None
        try:
            for stage in self.stages:
                current = stage.name
                await self._stage(stage, draft, env, job)
                view.passed(stage.name)
            current = None
            self._commit(draft, job)
            job.status, job.env = "written", draft.env_id
        except StageFailed as e:
            job.status, job.stage, job.problems = "rejected", e.stage, e.problems
            job.env = draft.env_id or None
            self.workspace.discard(
                staging, keep_as=f"{draft.env_id or 'scenario'}-{job.key}" if self.config.keep_rejects else None
            )
            view.stopped(e.stage)
        except (LLMError, AwmError, OSError) as e:
            job.status, job.stage, job.problems = "error", current, [str(e)]
            self.workspace.discard(staging)
            view.stopped(current)
        except Exception as e:  # a bug on our side must not take the other jobs down
            job.status, job.stage = "error", current
            job.problems = [f"internal error: {type(e).__name__}: {e}"]
            self.workspace.discard(staging, keep_as=f"error-{job.key}")
            view.stopped(current)
        except BaseException:  # cancelled / Ctrl-C: leave nothing half-built behind
            self.workspace.discard(staging)
            raise
        finally:
            job.seconds = time.monotonic() - started
            job.dropped_tasks = list(draft.dropped_tasks)
        if job.status in ("written", "rejected"):
            self.workspace.save_job_state(
                job.key,
                {
                    "key": job.key,
                    "scenario": idea.model_dump(),
                    "status": job.status,
                    "env": job.env,
                    "stage": job.stage,
                    "problems": job.problems,
                    "attempts": {n: r.attempts for n, r in job.stages.items()},
                    "date": _now(),
                },
            )

    async def _stage(self, stage: Stage[Any], draft: Draft, env: StageEnv, job: JobResult) -> None:
        """Ask, parse, check; feed errors back; up to ``max_attempts``. Raises ``StageFailed``."""
        rec = job.record(stage.name)
        started = time.monotonic()
        base = self.prompts[stage.name].messages(**stage.values(draft, env))
        messages = base
        history: list[str] = []
        problems: list[str] = []
        out: Any = None
        try:
            for attempt in range(1, self.config.max_attempts + 1):
                rec.attempts = attempt
                reply = await self.llm.chat(messages, stage=stage.name)
                rec.add(reply)
                try:
                    out = stage.parse(reply.content)
                except OutputError as e:
                    out, problems = None, [str(e)]
                else:
                    problems = await stage.check(out, draft, env)
                if not problems:
                    stage.apply(out, draft, env)
                    rec.passed, rec.problems = True, []
                    return
                rec.problems = problems
                if attempt < self.config.max_attempts:
                    messages = [
                        *base,
                        {"role": "assistant", "content": _without_reasoning(reply.content)},
                        {"role": "user", "content": self._feedback(problems, history, attempt)},
                    ]
                history.append(f"attempt {attempt}: {problems[0][:160]}" + (" ..." if len(problems) > 1 else ""))
            if out is not None and await stage.salvage(out, problems, draft, env):
                rec.passed = rec.salvaged = True
                return
            raise StageFailed(stage.name, rec.attempts, problems)
        finally:
            rec.seconds += time.monotonic() - started

    def _feedback(self, problems: list[str], history: list[str], attempt: int) -> str:
        problems = list(dict.fromkeys(problems))  # the same finding twice (e.g. two audit probes) is said once
        shown = [p if len(p) <= MAX_PROBLEM_CHARS else p[: MAX_PROBLEM_CHARS - 3] + "..." for p in problems]
        lines = [f"- {p}" for p in shown[:MAX_FEEDBACK_PROBLEMS]]
        if len(problems) > MAX_FEEDBACK_PROBLEMS:
            lines.append(f"- ... and {len(problems) - MAX_FEEDBACK_PROBLEMS} more of the same kind")
        earlier = "\n".join(f"- {h}" for h in history) if history else "- (none)"
        return self.feedback.render_user(
            errors="\n".join(lines),
            earlier=earlier,
            attempt=str(attempt),
            max_attempts=str(self.config.max_attempts),
        )

    def _commit(self, draft: Draft, job: JobResult) -> None:
        usage = {"prompt": job.prompt_tokens, "completion": job.completion_tokens}
        draft.write_manifest(
            Provenance(
                source="generated",
                model=self.llm.model,
                prompts_hash=self.prompts_hash,
                seed=self.config.seed,
                date=datetime.now(UTC).date().isoformat(),
                attempts={name: rec.attempts for name, rec in job.stages.items()},
                generator="awm gen",
                scenario=draft.idea.name,
                job=draft.key,
                tokens=usage,
                dropped_tasks=draft.dropped_tasks or None,
            )
        )
        # The bundle was validated in full by the verifiers stage; only env.json's provenance and
        # default task changed since. Re-read every record (no code runs) to be sure it still parses.
        read_bundle(draft.env_dir, draft.verifier_dir)
        self.workspace.commit(draft.staging, draft.env_id)


def _without_reasoning(text: str) -> str:
    try:
        return strip_reasoning(text) or text
    except OutputError:
        return text


def _manifest_description(env_dir: Path) -> str:
    try:
        m = Manifest.model_validate_json((env_dir / "env.json").read_bytes())
    except (OSError, ValueError):
        return ""
    return f"{m.title}. {m.description}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


__all__ = ["STAGE_NAMES", "GenConfig", "Generator", "StageFailed", "job_key"]
