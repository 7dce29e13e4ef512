"""An AWM verifier inside the worker, run exactly as AWM's ``verify.py`` runs it.

The two database images arrive from the parent and are written to the worker's private scratch
folder, read-only (0444, as AWM chmods them). The code runs in the namespace AWM's executor gives it
(``sqlite3``, ``json``, ``os``, ``re`` and the builtins), the function is the first ``def verify_``
line (AWM's rule), and its arguments are bound as AWM's ``_call_verifier_func`` binds them: by name
(``initial_db_path``, ``final_db_path``, ``final_answer`` with ``""`` for a missing answer), else
positionally when no parameter has a known name. The clock inside is the world's frozen clock.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sqlite3
from typing import Any

import determinism

SCRATCH = "/tmp"


def function_name(code: str, mode: str) -> str:
    """AWM's rule: the name on the first ``def verify_`` line, else its default for the mode."""
    for line in code.split("\n"):
        line = line.strip()
        if line.startswith("def verify_") and "(" in line:
            return line.split("(")[0].replace("def ", "").strip()
    return "verify_task_completion" if mode == "code" else "verify_task"


def call_verifier(fn: Any, initial: str, final: str, answer: Any) -> Any:
    """AWM's ``_call_verifier_func``: by name, with the positional fallback."""
    params = inspect.signature(fn).parameters
    kwargs: dict[str, Any] = {}
    if "initial_db_path" in params:
        kwargs["initial_db_path"] = initial
    if "final_db_path" in params:
        kwargs["final_db_path"] = final
    if "final_answer" in params:
        kwargs["final_answer"] = answer or ""
    if not kwargs and len(params) >= 2:
        args = [initial, final]
        if len(params) >= 3:
            args.append(answer or "")
        return fn(*args)
    return fn(**kwargs)


def run(request: dict[str, Any], initial_blob: bytes, final_blob: bytes) -> dict[str, Any]:
    """``{"result": ...}`` (JSON-safe) or ``{"error": why}``, as AWM's executor reports an execution error."""
    paths = []
    for name, blob in (("initial.db", initial_blob), ("final.db", final_blob)):
        path = os.path.join(SCRATCH, name)
        if os.path.exists(path):
            os.chmod(path, 0o644)
            os.unlink(path)
        with open(path, "wb") as f:
            f.write(blob)
        os.chmod(path, 0o444)
        paths.append(path)
    code = request["source"]
    mode = request.get("mode", "code")
    fname = request.get("function") or function_name(code, mode)
    namespace: dict[str, Any] = {"sqlite3": sqlite3, "json": json, "os": os, "re": re, "__builtins__": __builtins__}
    namespace.update(determinism.clock_names())
    try:
        exec(determinism.compile_frozen(code, request.get("filename", "verifier.py")), namespace)
        fn = namespace.get(fname)
        if not fn:
            return {"error": f"Function '{fname}' not found"}
        answer = request.get("answer") if mode == "code" else None
        result = call_verifier(fn, paths[0], paths[1], answer)
    except Exception as e:
        return {"error": f"Execution error: {e}"[:1000]}
    try:
        text = json.dumps(result)
    except (TypeError, ValueError):
        text = json.dumps(result, default=str)
    return {"result": json.loads(text)}
