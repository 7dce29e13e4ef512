"""Why an episode failed: replay its recorded actions on a fresh episode of the same task and ask the judge.

The trajectory holds every step's reward channels, but not the judge's reasons (which check does not
hold, why the answer is wrong, which rows are collateral, which writes are missing). Episodes are
deterministic, so replaying the recorded actions on ``world.resolve(task_id)`` reproduces the final
state; ``Episode.evaluate(answer)`` then gives the verdict. Every replayed step is compared with the
recording, and any difference (another result, another diff) is reported: then the reasons describe
the replay, not necessarily the recorded episode.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from awm.errors import AwmError
from awm.gym.trajectory import StepRecord, TrajectoryRecord
from awm.model.registry import Registry
from awm.runtime.actions import Action as ParsedAction
from awm.runtime.actions import (
    Answer,
    ListTools,
    Malformed,
    ToolCall,
    observation_text,
    parse_hermes,
    parse_json_action,
    parse_openai_message,
)
from awm.runtime.episode import Episode, Evaluation, StepResult


class FailedCheck(BaseModel):
    model_config = ConfigDict(frozen=True)
    name: str
    description: str
    guard: bool


class AnswerVerdict(BaseModel):
    model_config = ConfigDict(frozen=True)
    submitted: bool
    value: Any = None
    correct: bool | None = None  # None: the task takes no answer
    reason: str = ""


class Divergence(BaseModel):
    """A step whose replay differs from the recording."""

    model_config = ConfigDict(frozen=True)
    step: int  # 1-based
    what: str


class ReplayReport(BaseModel):
    """The judge's verdict on the replayed episode, and how faithful the replay was."""

    model_config = ConfigDict(frozen=True)
    replayed: bool  # False: the environment or task could not be loaded (see ``error``)
    error: str | None = None
    passed: bool | None = None
    reasons: list[str] = []
    failed_checks: list[FailedCheck] = []
    answer: AnswerVerdict | None = None
    collateral: list[dict[str, Any]] = []
    missing: list[str] = []
    wrong: list[str] = []
    initial_progress: float | None = None
    divergences: list[Divergence] = []
    notes: list[str] = []


def parse_recorded(action: str | dict[str, Any]) -> ParsedAction:
    """A recorded action in whichever form the agent emitted it: our JSON form (dict or text), an OpenAI
    tool call or message, Hermes ``<tool_call>`` text, or a model's plain text (its final answer)."""
    if isinstance(action, dict):
        if isinstance(action.get("function"), dict):  # one OpenAI tool call, as the eval harness records it
            return parse_openai_message({"tool_calls": [action]})
        if any(k in action for k in ("tool", "name", "answer", "malformed")):
            return parse_json_action(action)
        return parse_openai_message(action)
    if "<tool_call>" in action:
        return parse_hermes(action)
    return parse_openai_message(action)


def _apply(ep: Episode, parsed: ParsedAction, recorded: StepRecord) -> StepResult:
    """One recorded action on the replayed episode (a recorded malformed step is rejected as recorded)."""
    if recorded.error and recorded.error.get("code") == "malformed_action":
        return ep.reject(recorded.error.get("message", "malformed action"))
    if isinstance(parsed, ToolCall):
        return ep.call(parsed.name, parsed.arguments)
    if isinstance(parsed, ListTools):
        return ep.list_tools()
    if isinstance(parsed, Malformed):
        return ep.reject(parsed.message)
    return ep.submit(parsed.value, parsed.explanation)


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _differences(recorded: StepRecord, res: StepResult) -> list[str]:
    out = []
    if recorded.tool != res.tool:
        out.append(f"tool {recorded.tool!r} recorded, {res.tool!r} replayed")
    if recorded.ok != res.ok:
        out.append(f"ok={recorded.ok} recorded, ok={res.ok} replayed")
    got = res.error.code if res.error else None
    want = recorded.error.get("code") if recorded.error else None
    if got != want:
        out.append(f"error {want!r} recorded, {got!r} replayed")
    if _plain(recorded.diff) != _plain(res.diff.to_dict()):
        out.append("another row-level diff")
    try:
        seen = json.loads(recorded.observation)
    except ValueError:
        seen = None
    # only our own observation form is comparable (a chat wrapper records messages instead)
    if isinstance(seen, dict) and "ok" in seen and seen != json.loads(observation_text(res)):
        out.append("another result")
    outcome = recorded.reward_components.get("outcome")
    if res.done and outcome is not None and outcome != res.rewards.outcome:
        out.append(f"outcome {outcome} recorded, {res.rewards.outcome} replayed")
    return out


def replay(registry: Registry, env: str, trajectory: TrajectoryRecord) -> ReplayReport:
    """Replay ``trajectory`` on a fresh episode of its task and judge the result."""
    try:
        world, ct = registry.load(env).resolve(trajectory.task_id)
    except AwmError as e:
        return ReplayReport(replayed=False, error=f"cannot replay: {e}")
    ep = world.episode(ct.id, seed=trajectory.seed)
    divergences: list[Divergence] = []
    answer: Answer | None = None
    ev: Evaluation | None = None
    notes: list[str] = []
    try:
        for i, step in enumerate(trajectory.steps, start=1):
            if ep.done:
                notes.append(f"steps {i} to {len(trajectory.steps)} came after the episode ended: not replayed")
                break
            parsed = parse_recorded(step.action)
            if isinstance(parsed, Answer) and not (step.error and step.error.get("code") == "malformed_action"):
                answer = parsed
                ev = ep.evaluate(parsed.value)  # the verdict on the state the answer was given in
            res = _apply(ep, parsed, step)
            divergences += [Divergence(step=i, what=w) for w in _differences(step, res)]
        if ev is None:
            ev = ep.evaluate(None)
    finally:
        ep.close()
    reasons = ev.reasons()
    if answer is None:
        why = "the episode was truncated" if trajectory.truncated else "the recording ends"
        reasons.insert(0, f"no final answer: {why} before submit_answer")
    checks = {c.name: c for c in ct.verifier.checks}
    failed = [
        FailedCheck(name=n, description=checks[n].description, guard=checks[n].guard)
        for n, ok in ev.checks.items()
        if not ok and n in checks
    ]
    return ReplayReport(
        replayed=True,
        passed=ev.passed and answer is not None,
        reasons=reasons,
        failed_checks=failed,
        answer=AnswerVerdict(
            submitted=answer is not None,
            value=_plain(answer.value) if answer is not None else None,
            correct=ev.answer_correct,
            reason=ev.answer_reason,
        ),
        collateral=[c.to_dict() for c in ev.frame.collateral],
        missing=list(ev.frame.missing),
        wrong=list(ev.frame.wrong),
        initial_progress=ct.initial_progress,
        divergences=divergences,
        notes=notes,
    )
