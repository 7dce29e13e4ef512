"""Runs a code verifier (``CodeCheck``: AWM's ``verify_*`` functions) in a sandboxed worker, as AWM runs it.

``run_code_check`` sends the verifier's source, the initial state (the world's seed image) and the
episode's current state to a worker of the environment's verifier pool (``awm.isolation``: a
bubblewrap process with no network, no files but a private scratch folder, no new processes, a
memory cap and the check's wall-time limit, killed and restarted on a breach). Inside, the worker
writes the two images read-only into its scratch folder and runs the function exactly as AWM's
``verify.py`` does (``awm/isolation/guest/verifier.py``): AWM's namespace, AWM's argument binding,
``""`` for a missing answer, under the world's frozen clock.

Verdicts follow AWM's ``execute_code_verifier``: ``mode: code`` passes iff the result is a dict whose
``"result"`` is ``"complete"``; a dict without ``"result"`` or a non-dict is an execution error; any
other value of ``"result"`` counts as ``"others"``. An exception, a timeout or a crash does not pass,
with the reason. ``mode: sql`` results are evidence for an LLM judge: recorded, never passing.
"""

from __future__ import annotations

import ast
import json
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from awm.bundle.records import CodeCheck
from awm.errors import IsolationError, WorkerTimeout
from awm.isolation import Limits, available, get_pool
from awm.isolation.sandbox import INSTALL_HINT

MAX_REASON = 500
DEFAULT_CLOCK = datetime(2026, 1, 1)


@dataclass(frozen=True)
class CodeVerdict:
    """What one run of a code verifier said."""

    mode: str
    passed: bool
    result: Any  # the function's JSON result (None on error)
    reason: str  # why it did not pass ("" when it passed)
    error: bool  # it did not run to a valid result (raised, timed out, bad return, no sandbox)
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "passed": self.passed, "result": self.result, "reason": self.reason}


def code_check_problems(verifier_dir: Path, check: CodeCheck) -> list[str]:
    """Load-time problems: the file exists in the verifier folder, parses and defines the function."""
    path = verifier_dir / check.file
    if Path(check.file).name != check.file or not path.is_file():
        return [f"{check.file} is not a file in {verifier_dir.name}/"]
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=check.file)
    except (SyntaxError, UnicodeDecodeError, ValueError) as e:
        return [f"{check.file} does not parse: {e}"]
    if not any(isinstance(n, ast.FunctionDef) and n.name == check.function for n in tree.body):
        return [f"{check.file} defines no function {check.function!r}"]
    return []


def run_code_check(
    verifier_dir: Path,
    check: CodeCheck,
    initial: bytes,
    final: bytes,
    answer: Any = None,
    clock: datetime | None = None,
    seed: int = 0,
) -> CodeVerdict:
    """Run ``check`` on two serialised database states, sandboxed; never raises for the verifier's faults."""
    start = time.perf_counter()

    def verdict(passed: bool, result: Any, reason: str, error: bool, mode: str = check.mode) -> CodeVerdict:
        return CodeVerdict(mode, passed, result, reason[:MAX_REASON], error, time.perf_counter() - start)

    try:
        source = (verifier_dir / check.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return verdict(False, None, f"cannot read {check.file}: {e}", True)
    if not available():
        return verdict(False, None, INSTALL_HINT, True)
    if answer is not None and not isinstance(answer, str):
        answer = json.dumps(answer, default=str)
    request = {
        "op": "verify",
        "source": source,
        "filename": check.file,
        "function": check.function,
        "mode": check.mode,
        "answer": answer if check.takes_answer else None,
        "clock": (clock or DEFAULT_CLOCK).isoformat(),
        "seed": seed,
    }
    limits = Limits(call_s=check.timeout_s)
    pool = get_pool("verifier", str(Path(verifier_dir).resolve()), limits)
    try:
        reply = pool.request(request, (initial, final), timeout=check.timeout_s)
    except WorkerTimeout:
        return verdict(False, None, f"the verifier did not finish within {check.timeout_s:g} s and was killed", True)
    except IsolationError as e:
        return verdict(False, None, f"the verifier's sandbox failed: {e}", True)
    if reply.get("error") is not None:
        return verdict(False, None, f"the verifier raised: {str(reply['error'])[:400]}", True)
    result = reply.get("result")
    if check.mode == "sql":
        return verdict(False, result, "sql-mode verifier: evidence for an LLM judge, never outcome 1", False, "sql")
    if not isinstance(result, dict) or "result" not in result:
        shown = json.dumps(result, default=str)[:200]
        return verdict(False, result, f'the verifier returned {shown}, not {{"result": ...}}', True)
    if result["result"] == "complete":
        return verdict(True, result, "", False)
    return verdict(False, result, "the verifier says the task is not complete", False)
