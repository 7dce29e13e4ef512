"""Runs a code verifier (``CodeCheck``: AWM's ``verify_*`` functions) in a sandboxed child process.

Parent side (``run_code_check``): writes the initial state (the world's seed blob) and the episode's
final state to two read-only (0444) files in a private temporary folder, starts
``python -P -B -m awm.importers.verifier_runner`` there with a scrubbed environment (no secrets) in a
new process group, sends one JSON request on stdin and kills the group at ``timeout_s``.

Child side (``awm/importers/verifier_child.py``, run by path with ``python -I -B``: it imports nothing
from ``awm`` and nothing from the bundle, and gets the verifier's source, already checked, in the
request): lowers resource limits (no core files, no file writes, no new processes, a CPU
and memory cap), re-runs the static check (``check_verifier_code``: imports only sqlite3, json, re,
datetime, math, collections, typing and a few more; no ``open``/``exec``/network), makes
``sqlite3.connect`` open only the two state files, read-only, with ``ATTACH`` denied, then calls the
function with the paths (and ``final_answer`` when it takes one) and prints its JSON result.

``mode: code`` passes iff the result is ``{"result": "complete", ...}``; any error, timeout or bad
return does not pass, with the reason. ``mode: sql`` results are evidence for an LLM judge: recorded,
never passing.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from awm.bundle import CodeCheck
from awm.importers.appcheck import check_verifier_code

CHILD = Path(__file__).with_name("verifier_child.py")
MAX_OUTPUT = 200_000  # characters of the child's result kept
STDERR_TAIL = 2_000


@dataclass(frozen=True)
class CodeVerdict:
    """What one run of a code verifier said."""

    mode: str
    passed: bool
    result: Any  # the function's JSON result (None on error)
    reason: str  # why it did not pass ("" when it passed)
    error: bool  # it did not run to a valid result (refused, raised, timed out, bad return)
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
    verifier_dir: Path, check: CodeCheck, initial: bytes, final: bytes, answer: Any = None
) -> CodeVerdict:
    """Run ``check`` on two serialised database states, sandboxed; never raises for the verifier's faults."""
    start = time.perf_counter()
    try:
        source = (verifier_dir / check.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return CodeVerdict(check.mode, False, None, f"cannot read {check.file}: {e}", True, 0.0)
    problems = check_verifier_code(source)
    if problems:
        reason = "the verifier was refused by the static check: " + "; ".join(problems[:5])
        return CodeVerdict(check.mode, False, None, reason, True, time.perf_counter() - start)
    with tempfile.TemporaryDirectory(prefix="awm-verify-") as tmp:
        folder = Path(tmp)
        paths = []
        for name, blob in (("initial.db", initial), ("final.db", final)):
            p = folder / name
            p.write_bytes(blob)
            p.chmod(0o444)
            paths.append(str(p))
        if answer is not None and not isinstance(answer, str):
            answer = json.dumps(answer, default=str)
        request = {
            "source": source,
            "filename": check.file,
            "function": check.function,
            "initial": paths[0],
            "final": paths[1],
            "answer": answer if check.takes_answer else None,
            "takes_answer": check.takes_answer,
            "cpu_s": int(check.timeout_s) + 1,
        }
        outcome, result = _spawn(request, folder, check.timeout_s)
    seconds = time.perf_counter() - start
    if outcome:
        return CodeVerdict(check.mode, False, None, outcome, True, seconds)
    if check.mode == "sql":
        return CodeVerdict(
            "sql", False, result, "sql-mode verifier: evidence for an LLM judge, never outcome 1", False, seconds
        )
    if not isinstance(result, dict) or result.get("result") not in ("complete", "others"):
        shown = json.dumps(result, default=str)[:200]
        return CodeVerdict(
            "code", False, result, f'the verifier returned {shown}, not {{"result": ...}}', True, seconds
        )
    if result["result"] == "complete":
        return CodeVerdict("code", True, result, "", False, seconds)
    return CodeVerdict("code", False, result, "the verifier says the task is not complete", False, seconds)


def _spawn(request: dict[str, Any], cwd: Path, timeout: float) -> tuple[str, Any]:
    """("", result) or (why it failed, None)."""
    from awm.gen.sandbox import sandbox_env

    proc = subprocess.Popen(
        [sys.executable, "-I", "-B", str(CHILD)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=sandbox_env(),
        cwd=cwd,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(json.dumps(request).encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc.pid)
        proc.communicate()
        return f"the verifier did not finish within {timeout:g} s and was killed", None
    except BaseException:
        _kill(proc.pid)
        proc.wait()
        raise
    lines = out.decode("utf-8", "replace").strip().splitlines()
    try:
        reply = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        reply = None
    if not isinstance(reply, dict):
        tail = " | ".join(err.decode("utf-8", "replace").strip().splitlines()[-3:])[-STDERR_TAIL:]
        return f"the verifier process died (exit code {proc.returncode}): {tail}", None
    if reply.get("error"):
        return str(reply["error"]), None
    return "", reply.get("result")


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
