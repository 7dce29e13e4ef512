"""An episode: one isolated in-memory copy of a world's database, driven by tool calls.

Every call is validated, runs in its own transaction, and returns a ``StepResult`` with the tool's
result (or a clear error), this step's row-level diff and every reward channel. Agent mistakes are
results, never exceptions; only misuse by the caller (a call after the end) raises.
"""

from __future__ import annotations

import difflib
import json
import re
import sqlite3
import threading
import weakref
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from awm.bundle.records import AnswerSchema, AnswerType, Check
from awm.errors import EpisodeClosedError, ToolArgumentsError, ToolError, ToolTimeout
from awm.isolation.code_checks import CodeVerdict, run_code_check
from awm.judge import verify
from awm.judge.answers import judge
from awm.judge.frame import Frame, Verdict
from awm.judge.rewards import RewardChannels, RewardFn, RewardSpec, reward_fn
from awm.sql.diff import (
    CAPTURE_EVENTS,
    CHANGE_LOG,
    CHANGE_LOG_DDL,
    EMPTY,
    Diff,
    Row,
    RowChange,
    Touched,
    changes_from_log,
    fold,
    net_diff,
)
from awm.tooling import Db, ToolDef, format_validation_error

if TYPE_CHECKING:
    from awm.model.world import CompiledTask, World

CODE_CHECK = "awm_verifier"  # the name of a code verifier's verdict in ``Evaluation.checks``
MAX_ARGUMENT_BYTES = 65_536  # a larger arguments object is rejected before it is parsed
MAX_VM_STEPS = 5_000  # x 1,000 SQLite VM instructions per call: a deterministic time limit
# a task whose checks never took more than this (x 1,000 VM instructions) re-runs only those that read what
# changed: far below MAX_VM_STEPS, so running them all would not have hit the limit either (a check cut off by
# it counts as false: the checks skipped cannot change which run is cut off)
LIGHT_CHECKS = MAX_VM_STEPS // 10
# connections of closed episodes kept for the next episode of the same world (its change-capture triggers,
# its attached initial state and its compiled statements survive; its database is replaced): at most this
# many in all, each with at most MAX_POOLED_TRIGGERS triggers (every one is parsed again on reuse)
POOL_SIZE = 32
MAX_POOLED_TRIGGERS = 24


@dataclass(frozen=True, slots=True)
class CallError:
    code: str  # malformed_action | unknown_tool | invalid_arguments | tool_error | timeout | internal_error
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


@dataclass(slots=True)
class StepResult:
    """What one action did."""

    tool: str | None
    arguments: Any
    ok: bool
    result: Any = None
    error: CallError | None = None
    diff: Diff = EMPTY
    rewards: RewardChannels = field(default_factory=RewardChannels)
    reward: float = 0.0
    done: bool = False

    def observation(self) -> dict[str, Any]:
        """What the agent sees: the result or the error. Never reward channels."""
        if self.done and self.tool is None:
            return {"ok": True, "submitted": True}
        if self.ok:
            return {"ok": True, "result": self.result}
        assert self.error is not None
        return {"ok": False, "error": self.error.to_dict()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "arguments": self.arguments,
            "ok": self.ok,
            "result": self.result,
            "error": self.error.to_dict() if self.error else None,
            "diff": self.diff.to_dict(),
            "rewards": self.rewards.to_dict(),
            "reward": self.reward,
            "done": self.done,
        }


@dataclass(frozen=True)
class Evaluation:
    """The verifier's verdict on the current state (and an answer, if given)."""

    checks: dict[str, bool]
    progress: float
    answer_correct: bool | None
    answer_reason: str
    frame: Verdict  # the net change against the task's expected change (collateral, missing, wrong)
    passed: bool
    code: CodeVerdict | None = None  # the code verifier's verdict (imported AWM tasks), in checks as awm_verifier

    @property
    def collateral(self) -> tuple[RowChange, ...]:
        return self.frame.collateral

    def reasons(self) -> list[str]:
        """Why the outcome is 0, for people (never shown to the agent)."""
        out = [f"check {n!r} does not hold" for n, ok in self.checks.items() if not ok and n != CODE_CHECK]
        if self.code is not None and not self.code.passed:
            out.append(f"{CODE_CHECK}: {self.code.reason}")
        if self.answer_correct is False:
            out.append(f"answer: {self.answer_reason}")
        return out + self.frame.reasons()


@dataclass(frozen=True)
class Snapshot:
    """Everything needed to put an episode back exactly where it was."""

    blob: bytes
    steps: int
    version: int
    done: bool
    seen: dict[str, int]
    net: dict[tuple[str, tuple], tuple[Row | None, Row | None]]
    checks: dict[str, bool]
    phi: float
    checks_version: int
    stale: Touched | None = None  # what changed since the checks last ran (None: unknown)


class Episode:
    """One isolated run of one task. Not thread-safe: serialise calls per episode."""

    def __init__(
        self,
        world: World,
        task: CompiledTask,
        *,
        seed: int = 0,
        reward: str | RewardSpec | RewardFn | None = None,
        blob: bytes | None = None,
    ):
        self.world = world
        self.task = task
        self.seed = seed
        self.reward_spec = reward
        self._reward, self._gamma = reward_fn(reward)
        self._shared = shared = _shared(world)
        # (table, event) pairs whose change-capture trigger this connection has
        self._captured: set[tuple[str, str]] = set()
        self._initial_attached = False  # schema ``initial`` holds the initial state
        self._raw = False  # the connection was handed to the tools' own code: it never serves another episode
        idle = shared.take(task.id)
        if idle is None:
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            conn.deserialize(blob if blob is not None else world.start_blob)
        else:
            conn, self._captured, self._initial_attached = idle.conn, idle.captured, idle.attached
            conn.deserialize(blob if blob is not None else world.start_blob)
            if self._captured:
                _repoint_triggers(conn)
        conn.execute(world.foreign_keys_pragma)
        conn.set_progress_handler(self._tick, 1000)
        self.conn = conn
        self.db = Db(conn, world.plans, world.clock, world.columns)
        self.db.before_write = self._capture
        self.db.seed = seed
        self._captured_now: set[tuple[str, str]] = set()  # installed during the current call (undone by a rollback)
        self.steps = 0
        self.version = 0  # bumped by every step that changes the database
        self.done = False
        self.submitted = False  # a submitted episode's verdict is final: it is never restored
        self._ops = 0
        self._seen: dict[str, int] = {}
        self._net: dict[tuple[str, tuple], tuple[Row | None, Row | None]] = {}  # (table, key) -> (initial, now)
        self._checks: dict[str, bool] = dict(task.initial_checks)
        self._phi = task.initial_progress
        self._phi_before = self._phi
        self._checks_version = 0
        # what changed since the checks last ran (None: unknown, re-run them all); the task's compiled
        # initial checks hold at the start when the episode starts from the seed itself
        self._stale: Touched | None = {} if self._shared.start_is_seed and blob is None else None
        # the write frame's rules read the initial state: attached before the frame judges a change
        self._frame_initial = _rules_read_initial(task.frame)
        self._check_reads: list[tuple[Check, Reads | None]] | None = None  # each check with what it reads
        self._code_cache: tuple[tuple[int, str], CodeVerdict] | None = None

    # -- what the agent is asked --------------------------------------------------------------------
    @property
    def instruction(self) -> str:
        """The task as the agent reads it."""
        return self.task.task.instruction

    @property
    def answer_schema(self) -> AnswerSchema | None:
        """The type of the final answer ``submit`` takes (None: the task only changes data)."""
        return self.task.task.answer

    # -- actions --------------------------------------------------------------------------------
    def call(self, tool: str, arguments: dict[str, Any] | str | None = None) -> StepResult:
        """Run one tool call. ``arguments`` may be a dict or a JSON object string."""
        self._ensure_open()
        self.steps += 1
        self._phi_before = self._phi
        ch = RewardChannels(checks=dict(self._checks), progress=self._phi)
        td = self.world.tools.get(tool) if isinstance(tool, str) else None
        if td is None:
            ch.unknown_tool = True
            return self._finish(
                StepResult(str(tool), arguments, False, error=CallError("unknown_tool", self._unknown_tool(tool))), ch
            )
        args, canonical, problem = _parse_arguments(arguments)
        if problem is None:
            assert args is not None
            try:
                kwargs = td.validate(args)
            except ValidationError as e:
                problem = format_validation_error(td.name, e, list(td.parameters.get("properties", {})))
        if problem is not None:
            ch.invalid_arguments = True
            return self._finish(
                StepResult(td.name, arguments, False, error=CallError("invalid_arguments", problem)), ch
            )
        key = td.name + canonical
        ch.redundant = self._seen.get(key) == self.version
        self._seen[key] = self.version
        return self._execute(td, args or {}, kwargs, ch)

    def list_tools(self) -> StepResult:
        """The tool specs, as a step (AWM agents start with ``list_tools``); changes nothing."""
        self._ensure_open()
        self.steps += 1
        self._phi_before = self._phi
        ch = RewardChannels(checks=dict(self._checks), progress=self._phi)
        ch.redundant = self._seen.get("list_tools") == self.version
        self._seen["list_tools"] = self.version
        specs = [s.model_dump(exclude={"write", "actor"}) for s in self.world.tool_specs()]
        return self._finish(StepResult("list_tools", {}, True, result=specs), ch)

    def reject(self, message: str) -> StepResult:
        """Record a step whose action could not be parsed at all; changes nothing."""
        self._ensure_open()
        return self._malformed(message)

    def _malformed(self, message: str, arguments: Any = None) -> StepResult:
        self.steps += 1
        self._phi_before = self._phi
        ch = RewardChannels(checks=dict(self._checks), progress=self._phi, malformed=True)
        return self._finish(StepResult(None, arguments, False, error=CallError("malformed_action", message)), ch)

    def submit(self, answer: Any = None, explanation: str | None = None) -> StepResult:
        """End the episode with the final answer; the result carries the outcome.

        ``answer`` is a value of the task's answer type (``self.task.task.answer``); free text is the
        strict fallback, judged as the value it states, and ``None`` is no answer (it ends the episode and
        scores 0). A value that can never be of the type (a number for a date, a list for a scalar, an
        object without the answer's fields, ...) is a malformed submission: a step flagged ``malformed``
        whose error says what to send, and the episode goes on. ``explanation`` is prose for people and is
        never graded. Tasks that only change data need no answer (one given is not judged).
        """
        self._ensure_open()
        args: dict[str, Any] = {"answer": answer}
        if explanation is not None:
            args["explanation"] = explanation
        schema = self.task.task.answer
        problem = answer_type_problem(schema, answer) if schema is not None else None
        if schema is not None and problem is not None:
            return self._malformed(_malformed_answer_message(schema, problem), args)
        self.steps += 1
        self.done = True
        self.submitted = True
        ev = self.evaluate(answer)
        ch = RewardChannels(
            outcome=1.0 if ev.passed else 0.0,
            checks=ev.checks,
            progress=ev.progress,
            progress_delta=-ev.progress,
            answer_correct=ev.answer_correct,
            collateral=len(ev.frame.collateral),
            writes_ok=ev.frame.ok,
        )
        res = StepResult(None, args, True, rewards=ch, done=True)
        res.reward = self._reward(ch)
        return res

    # -- inspection -----------------------------------------------------------------------------
    def evaluate(self, answer: Any = None) -> Evaluation:
        """Judge the current state (and an answer) without ending the episode."""
        t = self.task
        if self._frame_initial:
            self._attach_initial()
        verdict = t.frame.judge(self.diff_from_initial(), self.conn)
        answer_ok, reason = None, ""
        if t.expected is not None:
            answer_ok, reason = judge(answer, t.expected)
        checks = dict(self._refresh_checks())
        if verdict.ok and verdict.respellings and not all(checks.values()):
            checks = verify.run_checks_respelled(self.conn, t.verifier.checks, verdict.respellings)
        code = self._code_verdict(answer)
        if code is not None:
            checks[CODE_CHECK] = code.passed
        passed = all(checks.values()) and answer_ok is not False and verdict.ok
        return Evaluation(checks, self._phi, answer_ok, reason, verdict, passed, code)

    def _code_verdict(self, answer: Any) -> CodeVerdict | None:
        """The code verifier on the initial and current states (sandboxed; once per state and answer)."""
        check = self.task.verifier.code
        if check is None:
            return None
        key = (self.version, json.dumps(answer, sort_keys=True, default=str))
        if self._code_cache is None or self._code_cache[0] != key:
            verdict = run_code_check(
                self.world.files.verifier_dir,
                check,
                self.world.seed_blob,
                self.conn.serialize(),
                answer,
                clock=self.world.clock,
                seed=self.seed,
            )
            self._code_cache = (key, verdict)
        return self._code_cache[1]

    def diff_from_initial(self) -> Diff:
        """Net row changes since the start of the episode."""
        return net_diff(self.world.tables, self._net) if self._net else EMPTY

    def state_bytes(self) -> bytes:
        """The database, serialised: byte-identical for the same seed and actions."""
        return self.conn.serialize()

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Read-only SQL for inspection by infrastructure (never exposed to the agent)."""
        self.conn.execute("PRAGMA query_only = ON")
        try:
            return self.conn.execute(sql, params).fetchall()
        finally:
            self.conn.execute("PRAGMA query_only = OFF")

    # -- snapshot / restore / fork ---------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        return Snapshot(
            self.conn.serialize(),
            self.steps,
            self.version,
            self.done,
            dict(self._seen),
            dict(self._net),
            dict(self._checks),
            self._phi,
            self._checks_version,
            _copy_touched(self._stale),
        )

    def restore(self, snap: Snapshot) -> None:
        """Put this episode back at ``snap``. Refused once it was submitted: its verdict is final, so a
        rollout from an earlier state is a new episode (``branch``), never a second submit of this one."""
        if self.submitted:
            raise EpisodeClosedError(
                f"episode of task {self.task.id!r} was submitted and its verdict is final; "
                "continue from the snapshot in a new episode with episode.branch(snapshot)"
            )
        conn = self.conn
        conn.deserialize(snap.blob)
        if self._captured:
            _repoint_triggers(conn)
        conn.execute(self.world.foreign_keys_pragma)
        self.steps, self.version, self.done = snap.steps, snap.version, snap.done
        self._seen = dict(snap.seen)
        self._net = dict(snap.net)
        self._checks, self._phi, self._checks_version = dict(snap.checks), snap.phi, snap.checks_version
        self._stale = _copy_touched(snap.stale)
        self._code_cache = None

    def fork(self) -> Episode:
        """An independent copy of this episode at its current state."""
        return self.branch(self.snapshot())

    def branch(self, snap: Snapshot) -> Episode:
        """A new, independent episode of the same task, starting at ``snap`` (taken from this one or a copy)."""
        other = Episode(self.world, self.task, seed=self.seed, reward=self.reward_spec, blob=snap.blob)
        other.restore(snap)
        return other

    def close(self) -> None:
        """End the episode and free its connection: kept for the next episode of this world when nothing
        but the episode itself used it (else closed). Using ``conn`` afterwards raises, as on a closed one."""
        self.done = True
        conn = self.conn
        if conn is _CLOSED:
            return
        self.conn = self.db._conn = _CLOSED
        if self._raw or not self._shared.give(self.task.id, conn, self._captured, self._initial_attached):
            conn.close()

    # -- internals ------------------------------------------------------------------------------
    def _execute(self, td: ToolDef, args: dict[str, Any], kwargs: dict[str, Any], ch: RewardChannels) -> StepResult:
        name, write = td.name, td.write
        conn, db = self.conn, self.db
        log: list[tuple[str, str | None, str | None]] = []
        db._writable = write
        db.step = self.steps
        self._ops = 0
        error: CallError | None = None
        result: Any = None
        completed = False
        since = 0
        if write:
            conn.execute("BEGIN")
            since = conn.total_changes
        try:
            result = td.fn(db, **kwargs)
            json.dumps(result)
            log = self._take_log(since) if write else log
            completed = True
        except ToolTimeout as e:
            error = CallError("timeout", str(e) or f"{name} took too long and was stopped; narrow the request")
        except ToolArgumentsError as e:
            error = CallError("invalid_arguments", str(e))
        except ToolError as e:
            error = CallError("tool_error", str(e) or "the tool refused the request")
            if e.keeps_writes and write:  # the code committed before failing: what it wrote stands
                log = self._take_log(since)
                completed = True
        except sqlite3.IntegrityError as e:
            error = CallError("tool_error", f"the database rejected the change: {e}")
        except sqlite3.OperationalError as e:
            if "interrupted" in str(e):
                error = CallError("timeout", f"{name} took too long and was stopped; narrow the request")
            else:
                error = CallError("internal_error", f"{name} failed: {e}")
        except Exception as e:  # a bug in the environment (incl. ToolDefinitionError), not the agent's fault
            error = CallError("internal_error", f"{name} failed inside the environment: {type(e).__name__}: {e}")
        finally:  # also on KeyboardInterrupt: never leave a half-applied call behind
            db._writable = False
            if conn.in_transaction:
                conn.execute("COMMIT" if completed else "ROLLBACK")
            if not completed:
                self._captured -= self._captured_now  # the rollback removed them too
            self._captured_now = set()
        diff = changes_from_log(self.world.tables, log, self._stale) if log else EMPTY
        changed = bool(diff)  # tested once: every read step passes here
        if changed:
            self.version += 1
            fold(self._net, diff)
        if error is not None:
            ch.invalid_arguments = error.code == "invalid_arguments"
            ch.tool_error = error.code == "tool_error"
            ch.timeout = error.code == "timeout"
            ch.crashed = error.code == "internal_error"
            if changed:
                ch.collateral = self._collateral(diff)
                ch.checks = dict(self._refresh_checks())
                ch.progress = self._phi
            return self._finish(StepResult(name, args, False, error=error, diff=diff), ch)
        ch.noop = write and not changed
        if changed:
            ch.collateral = self._collateral(diff)
            ch.checks = dict(self._refresh_checks())
            ch.progress = self._phi
        return self._finish(StepResult(name, args, True, result=result, diff=diff), ch)

    def _collateral(self, diff: Diff) -> int:
        if self._frame_initial:
            self._attach_initial()
        return len(self.task.frame.outside(diff, self.conn))

    def _take_log(self, since: int) -> list[tuple[str, str | None, str | None]]:
        """The change log of the running call (emptied). Every log row is an insert by a trigger, which
        ``total_changes`` counts: when it has not moved since ``since``, the log is empty."""
        if not self._captured or self.conn.total_changes == since:
            return []
        log = self.conn.execute(f"SELECT tbl, old, new FROM {CHANGE_LOG} ORDER BY seq").fetchall()
        if log:
            self.conn.execute(f"DELETE FROM {CHANGE_LOG}")
        return log

    def _capture(self, events: frozenset[tuple[str, str]]) -> None:
        """Install change capture for these (table, event) pairs, and every event of the tables their FK
        actions can change (the statement plans name those too; this is the safe side)."""
        if events == self._shared.every_event:  # Db.raw_connection: the tools' own code has the connection
            self._raw = True
        missing = set(events) - self._captured
        if not missing:
            return
        cascades = self.world.cascades
        for t, _ in list(missing):
            for child in cascades.get(t, ()):
                missing.update((child, e) for e in CAPTURE_EVENTS)
        missing -= self._captured
        if not self._captured:
            self.conn.execute(CHANGE_LOG_DDL)
        ddl = self._shared.ddl
        for key in sorted(missing):
            if key in ddl:
                self.conn.execute(ddl[key])
        self._captured |= missing
        self._captured_now |= missing

    def _finish(self, res: StepResult, ch: RewardChannels) -> StepResult:
        """Complete a non-terminal step: shaping γΦ(s') − Φ(s) from the potential before and after it."""
        ch.progress_delta = self._gamma * self._phi - self._phi_before
        res.rewards = ch
        res.reward = self._reward(ch)
        return res

    def _refresh_checks(self) -> dict[str, bool]:
        """The checks on the current state. A check whose tables and columns no write touched since the
        checks last ran keeps its value (a check is a pure function of what it reads); all run when
        what changed is unknown, or when the task's checks are not known to be light."""
        checks = self.task.verifier.checks
        if self._checks_version != self.version and checks:
            if self.task.needs_initial:
                self._attach_initial()
            shared, stale = self._shared, self._stale
            rerun = self._check_reads
            if rerun is None:  # learned on the first refresh, once ``initial`` is attached (a check may read it)
                rerun = self._check_reads = [(c, shared.reads(self.conn, c.sql)) for c in checks]
            if stale is not None and shared.check_cost.get(self.task.id, LIGHT_CHECKS) < LIGHT_CHECKS:
                rerun = [(c, r) for c, r in rerun if _stale(r, stale)]
            self._ops = 0
            if len(rerun) == len(checks):
                self._checks = self._run_checks(rerun)
                self._phi = verify.progress(checks, self._checks)
            elif rerun:
                fresh = self._run_checks(rerun)
                self._checks = {c.name: fresh.get(c.name, self._checks.get(c.name, False)) for c in checks}
                self._phi = verify.progress(checks, self._checks)
            if rerun:
                shared.check_cost[self.task.id] = max(shared.check_cost.get(self.task.id, 0), self._ops)
            self._stale = {}
        self._checks_version = self.version
        return self._checks

    def _run_checks(self, checks: list[tuple[Check, Reads | None]]) -> dict[str, bool]:
        """``verify.run_checks``, without its ``PRAGMA query_only`` when the authorizer saw that every check
        only reads: setting a pragma expires every prepared statement of the connection (the checks' and
        the tools'), which then compile again on their next use."""
        if any(r is None for _, r in checks):
            return verify.run_checks(self.conn, [c for c, _ in checks])
        out: dict[str, bool] = {}
        for c, _ in checks:  # as verify.run_checks: a check that fails to run is false
            try:
                row = self.conn.execute(c.sql).fetchone()
            except sqlite3.Error:
                row = None
            out[c.name] = row is not None and bool(row[0])
        return out

    def _attach_initial(self) -> None:
        if not self._initial_attached:
            verify.attach_copy(self.conn, "initial", self.world.seed_blob)
            self._initial_attached = True

    def _tick(self) -> int:
        self._ops += 1
        return 1 if self._ops > MAX_VM_STEPS else 0

    def _ensure_open(self) -> None:
        if self.done:
            raise EpisodeClosedError(
                f"episode of task {self.task.id!r} has ended; start a new one with world.episode(...)"
            )

    def _unknown_tool(self, tool: object) -> str:
        names = list(self.world.tools)
        close = difflib.get_close_matches(str(tool), names, 3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        shown = ", ".join(names[:40]) + (" ..." if len(names) > 40 else "")
        return f"unknown tool {str(tool)[:80]!r}.{hint} Available tools: {shown}"


class _Shared:
    """What every episode of one world reuses: the capture triggers by (table, event), what each check
    reads, how costly each task's checks were (VM instructions / 1,000), and the connections of its closed
    episodes (``take``, ``give``). Holds no reference to the world (it lives as long as the world does)."""

    def __init__(self, world: World) -> None:
        self.seed_blob = world.seed_blob
        # imported code may change its connection in ways a check here cannot see: never reused
        self.poolable = world.manifest.provenance.source != "imported"
        self.every_event = frozenset((t, e) for t in world.columns for e in CAPTURE_EVENTS)
        self.ddl = {
            (t, event): ddl
            for t, ddls in world.capture.items()
            for event, ddl in zip(CAPTURE_EVENTS, ddls, strict=True)
        }
        self.start_is_seed = world.start_blob == world.seed_blob
        # the tables whose writes the log shows (a check reading another one runs every time)
        self.columns = {
            n.lower(): frozenset(c.lower() for c in t.columns) for n, t in world.tables.items() if n in world.capture
        }
        self.check_cost: dict[str, int] = {}  # task id -> the most a run of its checks took
        self._reads: dict[str, Reads | None] = {}

    def reads(self, conn: sqlite3.Connection, sql: str) -> Reads | None:
        """What check ``sql`` reads (learned once per world, on an episode's connection)."""
        if sql not in self._reads:
            self._reads[sql] = _reads(conn, sql, self.columns)
        return self._reads[sql]

    def take(self, task_id: str) -> _Idle | None:
        """An idle connection of this world (one a closed episode of the same task used, if any)."""
        mine = [e for e in list(_POOL) if e.shared is self]
        for e in sorted(mine, key=lambda e: e.task_id != task_id):
            try:
                _POOL.remove(e)  # another thread may have taken it first
            except ValueError:
                continue
            return e
        return None

    def give(self, task_id: str, conn: sqlite3.Connection, captured: set[tuple[str, str]], attached: bool) -> bool:
        """Keep a closed episode's connection for the next episode, when it is as an episode leaves it:
        no transaction, no other schema attached, ``initial`` (if attached) still the initial state, only
        the change log (empty) and capture triggers in schema temp."""
        installed = sum(1 for k in captured if k in self.ddl)
        if not self.poolable or POOL_SIZE <= 0 or conn.in_transaction or installed > MAX_POOLED_TRIGGERS:
            return False
        try:
            conn.set_progress_handler(None, 0)  # it held the episode
            names = {r[1] for r in conn.execute("PRAGMA database_list")} - {"temp"}
            if names != ({"main", "initial"} if attached else {"main"}):
                return False
            if attached and conn.serialize(name="initial") != self.seed_blob:
                return False
            temp = conn.execute("SELECT count(*) FROM temp.sqlite_master").fetchone()[0]
            if temp != (installed + 1 if captured else 0):
                return False
            if captured and conn.execute(f"SELECT 1 FROM {CHANGE_LOG} LIMIT 1").fetchone() is not None:
                return False
        except sqlite3.Error:
            return False
        _POOL.append(_Idle(self, task_id, conn, captured, attached))  # the oldest idle one goes when full
        return True


@dataclass(eq=False, slots=True)
class _Idle:
    """A closed episode's connection, waiting for the next episode of its world."""

    shared: _Shared
    task_id: str
    conn: sqlite3.Connection
    captured: set[tuple[str, str]]
    attached: bool


_POOL: deque[_Idle] = deque(maxlen=POOL_SIZE)  # appends and removes are atomic: no lock to hold
_CLOSED = sqlite3.connect(":memory:", check_same_thread=False)  # a closed episode's conn: every use raises
_CLOSED.close()


def _repoint_triggers(conn: sqlite3.Connection) -> None:
    """After ``deserialize`` replaced the main database, the change-capture triggers (schema temp) still
    point at the tables of the replaced one, and would stay silent. A new version of the temp schema, read
    at once, makes SQLite parse it again, which points them at the new tables."""
    (version,) = conn.execute("PRAGMA temp.schema_version").fetchone()
    conn.execute(f"PRAGMA temp.schema_version = {int(version) + 1}")
    conn.execute("SELECT count(*) FROM temp.sqlite_master").fetchone()


_INITIAL = re.compile(r"\binitial\s*\.", re.I)


def _rules_read_initial(frame: Frame) -> bool:
    """Whether a rule of the write frame reads the initial state (schema ``initial``)."""
    return any(r.where is not None and _INITIAL.search(r.where) is not None for r in frame.rules)


Reads = dict[str, frozenset[str] | None]  # table -> lower-cased columns a check reads (None: the whole table)

_SHARED: weakref.WeakKeyDictionary[Any, _Shared] = weakref.WeakKeyDictionary()
_SHARED_LOCK = threading.Lock()


def _shared(world: World) -> _Shared:
    shared = _SHARED.get(world)
    if shared is None:
        with _SHARED_LOCK:
            shared = _SHARED.get(world)
            if shared is None:
                shared = _SHARED[world] = _Shared(world)
    return shared


_OUTSIDE_FUNCTIONS = frozenset({"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"})


def _reads(conn: sqlite3.Connection, sql: str, columns: Mapping[str, frozenset[str]]) -> Reads | None:
    """What ``sql`` reads in schema main, told by the authorizer while it compiles: table -> columns,
    None for a whole table (its rows only, a rowid, a column the table info does not list). None when
    that cannot be told or the SQL may do more than read (a view, a pragma, another schema, a function
    outside SQL, SQL that does not compile): such a check runs every time, under ``query_only``."""
    reads: dict[str, set[str] | None] = {}
    unknown = False

    def authorize(action: int, arg1: str | None, arg2: str | None, dbname: str | None, _source: str | None) -> int:
        nonlocal unknown
        if action == sqlite3.SQLITE_READ:
            table, column = (arg1 or "").lower(), (arg2 or "").lower()
            if dbname == "initial":
                pass
            elif dbname not in (None, "main") or table not in columns:
                unknown = True
            elif column not in columns[table]:
                reads[table] = None
            elif (cols := reads.setdefault(table, set())) is not None:
                cols.add(column)
        elif action == sqlite3.SQLITE_FUNCTION:
            unknown = unknown or (arg2 or "").lower() in _OUTSIDE_FUNCTIONS
        elif action not in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE):
            unknown = True
        return sqlite3.SQLITE_OK

    conn.set_authorizer(authorize)
    try:
        conn.execute("EXPLAIN " + sql)  # compiles (and authorizes) without running
    except sqlite3.Error:
        return None
    finally:
        conn.set_authorizer(None)
    return None if unknown else {t: None if c is None else frozenset(c) for t, c in reads.items()}


def _stale(reads: Reads | None, touched: Touched) -> bool:
    """Whether a check that reads ``reads`` may see another value after the writes ``touched``."""
    if reads is None:
        return True
    for table, cols in reads.items():
        if table in touched:
            changed = touched[table]
            if changed is None or cols is None or not cols.isdisjoint(changed):
                return True
    return False


def _copy_touched(touched: Touched | None) -> Touched | None:
    return None if touched is None else {t: None if c is None else set(c) for t, c in touched.items()}


def _type_words(schema: AnswerSchema) -> str:
    """What a value of ``schema`` is, for a message (never the expected value)."""
    t = schema.type
    if t == AnswerType.list:
        return f"a list (JSON array) of {_type_words(AnswerSchema(type=schema.items or AnswerType.string))} items"
    if t == AnswerType.object:
        return "an object with the fields " + ", ".join(repr(k) for k in schema.fields or {})
    return {
        AnswerType.number: "a number",
        AnswerType.string: "a string",
        AnswerType.date: 'a date (a "YYYY-MM-DD" string)',
        AnswerType.boolean: "true or false",
    }[t]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


def answer_type_problem(schema: AnswerSchema, value: Any, where: str = "the answer") -> str | None:
    """Why ``value`` can never be an answer of type ``schema`` (None when it can be judged).

    Judged, never malformed: text (the value itself for a string, else the strict free-text fallback),
    ``None`` as the whole answer (no answer), a number for a string (its spelling). Malformed: any other
    value outside the type, at any depth: a number or a list for a date, an object for a number, a list
    for a scalar, a scalar for a list, an object with missing or unknown fields, a null item or field."""
    if isinstance(value, str) or (value is None and where == "the answer"):
        return None
    t = schema.type
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if t == AnswerType.list and isinstance(value, (list, tuple)):
        item = AnswerSchema(type=schema.items or AnswerType.string)
        for i, element in enumerate(value):
            if why := answer_type_problem(item, element, f"item {i} of {where}"):
                return why
        return None
    if t == AnswerType.object and isinstance(value, dict):
        fields = schema.fields or {}
        if unknown := sorted(map(str, set(value) - set(fields))):
            return f"{where} has no field {', '.join(map(repr, unknown))}; its fields are {sorted(fields)}"
        if missing := [k for k in fields if k not in value]:
            return f"{where} lacks the field {', '.join(map(repr, missing))}; its fields are {sorted(fields)}"
        for k, sub in fields.items():
            if why := answer_type_problem(sub, value[k], f"field {k!r} of {where}"):
                return why
        return None
    fits = {
        AnswerType.number: number,
        AnswerType.string: number,
        AnswerType.date: isinstance(value, (date, datetime)),
        AnswerType.boolean: isinstance(value, bool),
    }.get(t, False)
    if fits:
        return None
    shown = json.dumps(value, default=str)
    shown = "" if value is None else f" ({shown})" if len(shown) <= 60 else f" ({shown[:57]}...)"
    return f"{where} must be {_type_words(schema)}, not {_json_type(value)}{shown}"


def _malformed_answer_message(schema: AnswerSchema, problem: str) -> str:
    return (
        f"malformed submission, the episode goes on: {problem}. Submit again with the answer as "
        f'{_type_words(schema)}: {{"answer": <the value>, "explanation": "..."}} (the arguments of '
        f'submit_answer, or the final action); "answer" has the JSON Schema {json.dumps(schema.json_schema())}. '
        'Prose goes in "explanation", which is never graded; free text is judged strictly as the value it states'
    )


# ``json.dumps(..., sort_keys=True)`` without building an encoder on every call (the same text)
_canonical_json = json.JSONEncoder(sort_keys=True).encode


def _parse_arguments(arguments: Any) -> tuple[dict[str, Any] | None, str, str | None]:
    """(arguments, their canonical JSON text, problem): the text sizes the request and keys redundancy."""
    if arguments is None:
        return {}, "{}", None
    if isinstance(arguments, (str, bytes)):
        if len(arguments) > MAX_ARGUMENT_BYTES:
            return None, "", f"arguments are {len(arguments)} bytes; the limit is {MAX_ARGUMENT_BYTES}"
        if not str(arguments).strip():
            return {}, "{}", None
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as e:
            return None, "", f"arguments are not valid JSON ({e.msg} at position {e.pos}); send a JSON object"
    if not isinstance(arguments, dict):
        return None, "", f"arguments must be a JSON object, not {type(arguments).__name__}"
    try:
        text = _canonical_json(arguments)
    except (TypeError, ValueError):
        return None, "", "arguments must contain only JSON values"
    if len(text) > MAX_ARGUMENT_BYTES:
        return None, "", f"arguments are {len(text)} bytes; the limit is {MAX_ARGUMENT_BYTES}"
    return arguments, text, None
