"""Code verifiers (AWM's ``verify_*`` functions) run in a sandboxed worker on two read-only state files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from awm.bundle.records import CodeCheck
from awm.errors import BundleError
from awm.isolation.code_checks import run_code_check
from awm.model.registry import Registry
from tests.importers.test_runtime import ENV, make_awm_root

pytest.importorskip("sqlalchemy")


def _state(stock: int) -> bytes:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE products (id INTEGER PRIMARY KEY, stock INTEGER)")
    conn.execute("INSERT INTO products VALUES (1, ?)", (stock,))
    conn.commit()
    return conn.serialize()


INITIAL, FINAL = _state(5), _state(3)

GOOD = """
import sqlite3

def verify_stock(initial_db_path, final_db_path):
    a = sqlite3.connect(initial_db_path).execute("SELECT stock FROM products").fetchone()[0]
    b = sqlite3.connect(f"file:{final_db_path}?mode=ro", uri=True).execute("SELECT stock FROM products").fetchone()[0]
    return {"result": "complete" if b == a - 2 else "others", "before": a, "after": b}
"""


def run(tmp_path: Path, source: str, *, final: bytes = FINAL, **check) -> object:
    (tmp_path / "verify.py").write_text(source)
    function = next(ln.split("(")[0][4:] for ln in source.splitlines() if ln.startswith("def verify_"))
    return run_code_check(tmp_path, CodeCheck(file="verify.py", function=function, **check), INITIAL, final)


def test_a_verifier_scores_initial_and_final_states(tmp_path):
    done = run(tmp_path, GOOD)
    assert done.passed and not done.error and done.result == {"result": "complete", "before": 5, "after": 3}
    untouched = run(tmp_path, GOOD, final=INITIAL)
    assert not untouched.passed and not untouched.error
    assert untouched.reason == "the verifier says the task is not complete"


def test_the_answer_is_passed_when_the_verifier_takes_it(tmp_path):
    source = "def verify_answer(initial_db_path, final_db_path, final_answer=None):\n"
    source += "    return {'result': 'complete' if final_answer == '42' else 'others'}\n"
    assert run(tmp_path, source, takes_answer=True).passed is False
    (tmp_path / "verify.py").write_text(source)
    check = CodeCheck(file="verify.py", function="verify_answer", takes_answer=True)
    assert run_code_check(tmp_path, check, INITIAL, FINAL, "42").passed


def test_a_verifier_that_loops_forever_is_killed_at_its_timeout(tmp_path):
    verdict = run(tmp_path, "def verify_loop(a, b):\n    while True:\n        pass\n", timeout_s=1.0)
    assert not verdict.passed and verdict.error
    assert "did not finish within 1 s and was killed" in verdict.reason
    assert verdict.seconds < 5


@pytest.mark.parametrize(
    "body",
    [
        "import subprocess\n    return subprocess.run(['id'], capture_output=True).stdout.decode()",
        "return open('/etc/passwd').read()",
        "import socket\n    return str(socket.create_connection(('127.0.0.1', 22), timeout=1))",
        "import os\n    return dict(os.environ)",
        "return ().__class__.__base__.__subclasses__()[-1].__init__.__globals__",
        'return eval(\'__import__("os").listdir("/")\')',
    ],
)
def test_hostile_verifier_bodies_run_sandboxed_and_do_not_pass(tmp_path, body):
    """No static refusal any more: the code runs in its sandbox, finds nothing, and cannot pass."""
    verdict = run(tmp_path, f"def verify_bad(a, b):\n    {body}\n")
    assert not verdict.passed
    shown = json.dumps(verdict.result, default=str) + verdict.reason
    assert "root:x:0" not in shown and "uid=0" not in shown and "pyproject.toml" not in shown


def test_a_verifier_writes_only_its_own_scratch_copies(tmp_path):
    host = tmp_path / "elsewhere.db"
    other = f"import sqlite3\n\ndef verify_x(a, b):\n    sqlite3.connect({str(host)!r}).execute('CREATE TABLE t (x)')\n"
    assert not run(tmp_path, other).passed and not host.exists()
    write = "import sqlite3\n\ndef verify_x(a, b):\n    sqlite3.connect(b).execute('DELETE FROM products')\n"
    assert "readonly" in run(tmp_path, write).reason  # 0444, as AWM leaves the files
    attach = "import sqlite3\n\ndef verify_x(a, b):\n    sqlite3.connect(b).execute(\"ATTACH 'x.db' AS x\")\n"
    assert not run(tmp_path, attach).passed and not (tmp_path / "x.db").exists()


def test_errors_and_bad_returns_do_not_pass(tmp_path):
    raises = run(tmp_path, "def verify_x(a, b):\n    return 1 / 0\n")
    assert raises.error and raises.reason == "the verifier raised: Execution error: division by zero"
    bad = run(tmp_path, "def verify_x(a, b):\n    return {'done': True}\n")
    assert bad.error and 'not {"result": ...}' in bad.reason


def test_sql_mode_records_evidence_and_never_passes(tmp_path):
    source = "import sqlite3\n\ndef verify_task(a, b):\n    return {'result': 'complete', 'rows': 1}\n"
    verdict = run(tmp_path, source, mode="sql")
    assert not verdict.passed and not verdict.error and verdict.result == {"result": "complete", "rows": 1}
    assert "never outcome 1" in verdict.reason


def test_an_episode_with_a_looping_verifier_scores_zero(tmp_path):
    loop = "def verify_loop(initial_db_path, final_db_path):\n    while True:\n        pass\n"
    root = make_awm_root(tmp_path, verifiers={"t00": loop})
    lines = (root / "verifiers" / ENV / "verifiers.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["code"]["timeout_s"] = 1.0
    (root / "verifiers" / ENV / "verifiers.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    ep = Registry([root], include_default=False).load(ENV).episode("t00")
    done = ep.submit()
    assert done.rewards.outcome == 0.0 and done.rewards.checks == {"awm_verifier": False}


def test_a_missing_verifier_file_or_function_is_a_bundle_problem(tmp_path):
    root = make_awm_root(tmp_path)
    ver = root / "verifiers" / ENV
    (ver / "verify_t01.py").unlink()
    text = (ver / "verifiers.jsonl").read_text().replace("verify_task_completion", "verify_nothing")
    (ver / "verifiers.jsonl").write_text(text)
    with pytest.raises(BundleError) as e:
        Registry([root], include_default=False).load(ENV)
    assert "defines no function 'verify_nothing'" in str(e.value)
    assert "verify_t01.py is not a file in" in str(e.value)
