"""Writes imported-AWM bundles (the importer's contract, ``awm/importers/__init__.py``) for the escape tests,
plus the small pieces of test machinery every probe needs: per-test secrets, socket listeners that record
connections, the parent's peak RSS, and the text of a step or verdict to search for leaked secrets.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm.importers.awm1k import TOOLS_PY

REPO_ROOT = Path(__file__).resolve().parents[2]
# a file holding the judge's gold answers of a shipped environment: no imported code may read it
PROJECT_GOLD = REPO_ROOT / "verifiers" / "banking" / "verifiers.jsonl"

SCHEMA = """
CREATE TABLE iso_items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, qty INTEGER NOT NULL);
CREATE TABLE iso_orders (id INTEGER PRIMARY KEY, item_id INTEGER NOT NULL REFERENCES iso_items(id),
                         qty INTEGER NOT NULL);
CREATE INDEX idx_iso_orders_item ON iso_orders(item_id);
"""
SEED = {
    "tables": {
        "iso_items": [{"id": 1, "name": "lamp", "qty": 5}, {"id": 2, "name": "chair", "qty": 3}],
        "iso_orders": [{"id": 1, "item_id": 1, "qty": 1}],
    }
}

# t00 of every environment: "add an item 'desk' with quantity 7" (add_item), judged by this verifier
NORMAL_VERIFIER = '''
import sqlite3


def verify_desk_added(initial_db_path, final_db_path):
    """One desk, quantity 7, added; nothing else changed."""
    before = sqlite3.connect(initial_db_path).execute("SELECT COUNT(*) FROM iso_items").fetchone()[0]
    final = sqlite3.connect(final_db_path)
    after = final.execute("SELECT COUNT(*) FROM iso_items").fetchone()[0]
    desks = final.execute("SELECT COUNT(*) FROM iso_items WHERE name = 'desk' AND qty = 7").fetchone()[0]
    return {"result": "complete" if desks == 1 and after == before + 1 else "others"}
'''
CORRECT = {"name": "desk", "qty": 7}  # add_item arguments solving t00
WRONG = {"name": "desk", "qty": 6}  # and a wrong solution

ANSWER_SCHEMA = {"type": "string", "description": "your final answer"}


@dataclass(frozen=True)
class Verifier:
    """One task's code verifier. ``takes_answer``: the probe's parameters arrive as ``final_answer``."""

    source: str
    takes_answer: bool = False
    timeout_s: float | None = None


def function_name(source: str) -> str:
    return next(ln.split("(")[0][4:] for ln in source.splitlines() if ln.startswith("def verify_"))


def write_env(
    root: Path,
    env: str,
    app: str,
    verifiers: Mapping[str, Verifier] | None = None,
    *,
    gold: str = "",
    schema: str = SCHEMA,
    seed: Mapping[str, Any] = SEED,
) -> Path:
    """``root/envs/<env>/`` and ``root/verifiers/<env>/`` as ``awm import awm`` writes them. t00 is always the
    normal task (NORMAL_VERIFIER) unless ``verifiers`` replaces it. Every verifier file starts with a comment
    holding ``gold`` (the judge's secret: an app must never be able to read it)."""
    env_dir, ver_dir = root / "envs" / env, root / "verifiers" / env
    env_dir.mkdir(parents=True)
    ver_dir.mkdir(parents=True)
    manifest = {
        "id": env,
        "version": 0,
        "title": env,
        "description": f"Isolation probe environment {env}.",
        "clock": "2026-01-01T00:00:00",
        "tags": ["awm-1k"],
        "provenance": {"source": "imported", "dataset": "AgentWorldModel-1K", "scenario": env},
    }
    (env_dir / "env.json").write_text(json.dumps(manifest))
    (env_dir / "schema.sql").write_text(schema)
    (env_dir / "seed.json").write_text(json.dumps(seed))
    (env_dir / "awm_app.py").write_text(app)
    (env_dir / "awm_spec.json").write_text("{}")
    (env_dir / "tools.py").write_text(TOOLS_PY)
    all_verifiers = {"t00": Verifier(NORMAL_VERIFIER), **(verifiers or {})}
    tasks, lines = [], []
    for tid, v in all_verifiers.items():
        task: dict[str, Any] = {
            "id": tid,
            "instruction": "Add an item named desk with quantity 7." if tid == "t00" else f"Probe {tid}.",
            "kind": "multi_step",
            "tags": ["awm-1k"],
        }
        if v.takes_answer:
            task["answer"] = ANSWER_SCHEMA
        tasks.append(task)
        file = f"verify_{tid}.py"
        header = f"# gold: {gold}\n" if gold else ""
        (ver_dir / file).write_text(header + textwrap.dedent(v.source))
        check: dict[str, Any] = {
            "file": file,
            "function": function_name(v.source),
            "mode": "code",
            "takes_answer": v.takes_answer,
        }
        if v.timeout_s is not None:
            check["timeout_s"] = v.timeout_s
        line = {"task_id": tid, "checks": [], "answer": None, "code": check, "write_frame": False}
        line["gold"] = {"calls": []}
        lines.append(json.dumps(line) + "\n")
    (env_dir / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    (ver_dir / "verifiers.jsonl").write_text("".join(lines))
    return env_dir


def token(prefix: str = "AWMISO") -> str:
    return f"{prefix}{secrets.token_hex(12)}"


# -- per-test secrets and targets ---------------------------------------------------------------------
@dataclass
class Ctx:
    """Fresh secrets and side-effect targets in one folder; ``arg()`` is what a probe receives."""

    dir: Path
    secret: str = field(default_factory=token)
    touch: str = "/usr/bin/touch"

    def __post_init__(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.secret_path = self.dir / "secret.txt"
        self.secret_path.write_text(f"the secret is {self.secret}\n")
        self.secret_path.chmod(0o644)
        self.secret_db = self.dir / "secret.db"
        conn = sqlite3.connect(self.secret_db)
        conn.execute("CREATE TABLE secret (token TEXT)")
        conn.execute("INSERT INTO secret VALUES (?)", (self.secret,))
        conn.commit()
        conn.close()
        self.secret_db.chmod(0o644)
        self.victim = self.dir / "victim.txt"
        self.victim.write_text("victim content\n")
        self.victim.chmod(0o644)
        os.utime(self.victim, (1_700_000_000, 1_700_000_000))
        self.marker = self.dir / f"marker-{token('')}"
        self.dirent = self.dir / f"dirent-{token('')}"  # a name only a directory listing reveals
        self.dirent.write_text("")
        self.host_tmp = Path(tempfile.gettempdir()) / f"awm-iso-{token('')}"  # must not appear on the host
        # stand-ins for a verifier's two state files, for the unconfined control
        self.initial_db, self.final_db = self.dir / "initial.db", self.dir / "final.db"
        for path in (self.initial_db, self.final_db):
            db = sqlite3.connect(path)
            db.executescript(SCHEMA)
            db.commit()
            db.close()
            path.chmod(0o444)

    def victim_state(self) -> tuple[bool, str, int, int]:
        if not self.victim.exists():
            return (False, "", 0, 0)
        st = self.victim.stat()
        return (True, self.victim.read_text(), st.st_mode & 0o7777, int(st.st_mtime))

    def arg(self, **extra: Any) -> dict[str, Any]:
        return {
            "path": str(self.secret_path),
            "db": str(self.secret_db),
            "marker": str(self.marker),
            "victim": str(self.victim),
            "dir": str(self.dir),
            "touch": self.touch,
            "initial": str(self.initial_db),
            "final": str(self.final_db),
            "pid": os.getpid(),
            **extra,
        }

    def cleanup_host(self) -> None:
        with contextlib.suppress(OSError):
            self.host_tmp.unlink()


# -- listeners ------------------------------------------------------------------------------------------
class Listener:
    """A TCP (127.0.0.1), UDP (127.0.0.1) or unix-socket server in a thread that records every contact."""

    def __init__(self, kind: str):
        self.kind = kind
        self.contacts: list[str] = []
        self._stop = threading.Event()
        self._tmp: str | None = None
        if kind == "unix":  # a short path: AF_UNIX paths are limited to 108 bytes
            self._tmp = tempfile.mkdtemp(prefix="awmiso-")
            self.address: Any = os.path.join(self._tmp, "s.sock")
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        elif kind == "udp":
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        else:
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(self.address if kind == "unix" else ("127.0.0.1", 0))
        if kind != "unix":
            self.address = self.sock.getsockname()[1]
        if kind != "udp":
            self.sock.listen(8)
        self.sock.settimeout(0.1)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                if self.kind == "udp":
                    data, _ = self.sock.recvfrom(4096)
                    self.contacts.append(data.decode("latin-1"))
                    continue
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(1)
                try:
                    data = conn.recv(4096)
                except OSError:
                    data = b""
                self.contacts.append("connection:" + data.decode("latin-1"))

    def settle(self, seconds: float = 0.2) -> list[str]:
        time.sleep(seconds)
        return list(self.contacts)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.address)
            with contextlib.suppress(OSError):
                os.rmdir(self._tmp)


@contextlib.contextmanager
def listener(kind: str) -> Iterator[Listener]:
    srv = Listener(kind)
    try:
        yield srv
    finally:
        srv.close()


# -- the parent's memory ---------------------------------------------------------------------------------
def _status_kb(field_name: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    return 0


class PeakRss:
    """The parent's peak resident memory during a block, in MB above its RSS at the start (VmHWM after
    resetting it through clear_refs, and a 20 ms sampler as a fallback)."""

    def __init__(self) -> None:
        self.grown_mb = 0.0

    def __enter__(self) -> PeakRss:
        with contextlib.suppress(OSError):
            Path("/proc/self/clear_refs").write_text("5")
        self._start = _status_kb("VmRSS")
        self._peak = self._start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            self._peak = max(self._peak, _status_kb("VmRSS"))

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(1)
        peak = max(self._peak, _status_kb("VmHWM"), _status_kb("VmRSS"))
        self.grown_mb = (peak - self._start) / 1024


# -- what a probe got back -------------------------------------------------------------------------------
def step_text(res: Any) -> str:
    """Everything a StepResult carries back to the caller (result, error message), as one string."""
    parts = [json.dumps(res.result, default=str)]
    if res.error is not None:
        parts += [res.error.code, res.error.message]
    return "\n".join(parts)


def verdict_text(ev: Any) -> str:
    """Everything an Evaluation carries about the code verifier (result, reason) and the reasons."""
    parts = [json.dumps(ev.code.result, default=str) if ev.code is not None else ""]
    if ev.code is not None:
        parts.append(ev.code.reason)
    parts += ev.reasons()
    return "\n".join(parts)


def leaked(text: str, needles: list[str]) -> list[str]:
    """The needles found in ``text`` (short names only: never the whole, possibly huge, text)."""
    return [n[:60] for n in needles if n and n in text]


COMMON_ENV = {"PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "PWD", "OLDPWD", "SHLVL", "_", "USER"}
COMMON_ENV |= {"LOGNAME", "SHELL", "HOSTNAME", "TMPDIR", "VIRTUAL_ENV", "MAIL"}


def env_needles(path: str = "/proc/self/environ") -> list[str]:
    """``NAME=value`` entries of a process's original environment (default: this one's) that a sandbox has no
    reason to share: what a probe reading some process's environ must not bring back. [] if unreadable."""
    try:
        raw = Path(path).read_bytes().decode("utf-8", "replace")
    except OSError:
        return []
    out = []
    for entry in raw.split("\0"):
        name, _, value = entry.partition("=")
        if not name or name in COMMON_ENV or name.startswith(("LC_", "PYTHON", "OMP_", "MKL_", "OPENBLAS_")):
            continue
        if len(value) >= 8:
            out.append(entry)
    return out


def project_gold_needle() -> str:
    """A substring of the shipped judge's gold answers (read here, by the test, not by the probe)."""
    line = PROJECT_GOLD.read_text().splitlines()[0]
    return line[len(line) // 2 : len(line) // 2 + 40]


# -- probe scenarios: what a probe gets, what it must not bring back, what it must not cause -----------------
SPAWNS = ("os_system", "subprocess", "fork_exec", "posix_spawn", "pty_fork", "ctypes_system")
NETWORK = ("tcp", "unix", "udp")
WRITE_TARGETS = ("tmp_path", "bundle_dir", "app_file", "verifier_file", "repo", "host_tmp", "dev_shm")


@dataclass(frozen=True)
class Where:
    """The bundle a probe runs in: its registry root, its environment, the process's env secret, the gold token."""

    root: Path
    env: str
    env_secret: tuple[str, str]
    gold: str


@dataclass
class Scenario:
    """One probe's parameters, the secrets it must not bring back and the side effects it must not cause."""

    arg: dict[str, Any]
    needles: list[str] = field(default_factory=list)
    effects: Callable[[], list[str]] = lambda: []
    controllable: bool = True  # False: not even an unconfined process can do it here (nothing to prove)


def read_target(target: str, ctx: Ctx, where: Where) -> tuple[str, list[str]]:
    token_value = where.env_secret[1]
    if target == "secret":
        return str(ctx.secret_path), [ctx.secret]
    if target == "passwd":
        return "/etc/passwd", ["root:x:0:"]
    if target == "project":
        return str(PROJECT_GOLD), [project_gold_needle()]
    if target == "own_verifier":
        return str(where.root / "verifiers" / where.env / "verify_t00.py"), [where.gold]
    if target == "proc_self_environ":
        return "/proc/self/environ", [*env_needles(), token_value]
    if target == "proc_1_environ":
        return "/proc/1/environ", [*env_needles("/proc/1/environ"), *env_needles(), token_value]
    if target == "proc_parent_environ":
        return f"/proc/{os.getpid()}/environ", env_needles()
    raise AssertionError(target)


def write_target(kind: str, ctx: Ctx, where: Where, control: bool) -> Path:
    """Where a write probe writes. The bundle's own app and verifier files are overwritten in place by the
    sandboxed probe and, by the unconfined control, in a copy."""
    if kind in ("app_file", "verifier_file"):
        folder = where.root / ("envs" if kind == "app_file" else "verifiers") / where.env
        real = folder / ("awm_app.py" if kind == "app_file" else "verify_t00.py")
        if not control:
            return real
        copy = ctx.dir / f"copy-{real.name}"
        shutil.copy(real, copy)
        return copy
    return {
        "tmp_path": ctx.dir / "written.txt",
        "bundle_dir": where.root / "envs" / where.env / f"written-{ctx.secret}.txt",
        "repo": REPO_ROOT / f".awm-iso-{ctx.secret}.txt",
        "host_tmp": ctx.host_tmp,
        "dev_shm": Path("/dev/shm") / f"awm-iso-{ctx.secret}",
    }[kind]


def _readable(path: str) -> bool:
    try:
        Path(path).read_bytes()
    except OSError:
        return False
    return True


def _file_state(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


_received: list[int] = []


@contextlib.contextmanager
def scenario(action: str, ctx: Ctx, where: Where, *, target: str = "", control: bool = False) -> Iterator[Scenario]:
    """Set up ``action``'s targets in ``ctx``; yields what to pass and what to check; cleans up after."""
    if action in ("read_file", "read_os"):
        path, needles = read_target(target, ctx, where)
        # some containers deny even root /proc/1/environ: then the control has nothing to show
        yield Scenario(ctx.arg(path=path), needles, controllable=target != "proc_1_environ" or _readable(path))
    elif action in ("sqlite_read", "sqlite_class", "sqlite_attach", "sqlite_attach_final", "sqlite_uri"):
        yield Scenario(ctx.arg(), [ctx.secret])
    elif action == "listdir":
        yield Scenario(ctx.arg(), [ctx.dirent.name])
    elif action in ("environ", "format_environ", "format_class_globals"):
        yield Scenario(ctx.arg(), [where.env_secret[1]])
    elif action in SPAWNS:
        yield Scenario(ctx.arg(), effects=lambda: [f"{ctx.marker.name} exists"] if ctx.marker.exists() else [])
    elif action in NETWORK:
        with listener(action) as srv:
            key = {"tcp": "port", "unix": "unix", "udp": "udp"}[action]
            yield Scenario(ctx.arg(**{key: srv.address}), effects=srv.settle)
    elif action in ("write_file", "sqlite_create"):
        path = write_target(target, ctx, where, control)
        before = _file_state(path)
        try:
            yield Scenario(
                ctx.arg(target=str(path)),
                effects=lambda: [f"{path} written"] if _file_state(path) != before else [],
            )
        finally:
            if before is None:
                with contextlib.suppress(OSError):
                    path.unlink()
            elif _file_state(path) != before:
                path.write_bytes(before)
    elif action == "sqlite_write_other":
        before = _file_state(ctx.secret_db)
        yield Scenario(ctx.arg(), effects=lambda: ["secret.db changed"] if _file_state(ctx.secret_db) != before else [])
    elif action == "modify":
        state = ctx.victim_state()

        def modified() -> list[str]:
            now = ctx.victim_state()
            moved = Path(str(ctx.victim) + ".moved").exists()
            return [f"victim {target}: {state} -> {now}"] if now != state or moved else []

        yield Scenario(ctx.arg(op=target), effects=modified)
    elif action == "modify_dbs":
        states = {p: (_file_state(p), p.stat().st_mode) for p in (ctx.initial_db, ctx.final_db)}

        def dbs_changed() -> list[str]:
            return [
                f"{p.name} changed"
                for p, s in states.items()
                if not p.exists() or (_file_state(p), p.stat().st_mode) != s
            ]

        yield Scenario(ctx.arg(), effects=dbs_changed)
    elif action in ("signal", "ps"):
        n = 86_400 + int.from_bytes(os.urandom(3), "big")
        victim = subprocess.Popen(["sleep", str(n)])
        old = signal.signal(signal.SIGUSR1, lambda *_: _received.append(1))
        _received.clear()

        def signalled() -> list[str]:
            time.sleep(0.3)
            out = ["the victim process was killed"] if victim.poll() is not None else []
            return out + ["the test process got SIGUSR1"] * bool(_received)

        try:
            if action == "signal":
                yield Scenario(ctx.arg(victim_pid=victim.pid), effects=signalled)
            else:
                yield Scenario(ctx.arg(), [f"sleep {n}"])
        finally:
            signal.signal(signal.SIGUSR1, old)
            victim.kill()
            victim.wait()
    else:
        raise AssertionError(action)


def assert_blocked(what: str, out: str, needles: list[str], effects: list[str]) -> None:
    found = leaked(out, needles)
    assert not found and not effects, f"{what} ESCAPED: leaked {found}, side effects {effects}; got {out[:400]!r}"


def assert_control_escapes(what: str, out: str, needles: list[str], effects: list[str]) -> None:
    assert leaked(out, needles) or effects, f"the unconfined control of {what} did not escape: {out[:600]!r}"
