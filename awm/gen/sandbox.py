"""Runs generated code in a child process: ``python -P -B -m awm.gen.sandbox`` with a scrubbed environment.

Parent side (``Sandbox``): starts the child with only ``PATH``/``PYTHONPATH`` and a few Python
settings in its environment (never the API key), sends one JSON request on stdin, reads JSON lines
back, and kills the whole process group when the wall-clock limit passes (a ``while True: pass``
in a tool cannot hang the pipeline).

Child side (``main``): lowers resource limits, re-runs the static safety check, then either
*probes* the tools (imports ``tools.py`` and calls every tool with schema-valid sample arguments,
each call under a timer; a call must return a result or a ``ToolError``) or *validates* the whole
bundle exactly as ``awm validate`` does. SQLite-level time limits come from the episode's progress
handler (``awm.runtime.episode.MAX_VM_STEPS``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm.model.registry import REPO_ROOT

STDERR_TAIL = 4_000
MAX_RESULT_CHARS = 50_000


@dataclass
class SandboxResult:
    ok: bool
    problems: list[str] = field(default_factory=list)
    task_problems: dict[str, list[str]] = field(default_factory=dict)
    tools: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    timed_out: bool = False
    tables: dict[str, list[dict[str, Any]]] | None = None  # command "world": the first world's rows


def sandbox_env() -> dict[str, str]:
    """The child's whole environment: nothing inherited, so no API key or other secret."""
    return {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(REPO_ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONIOENCODING": "utf-8",
        "LC_ALL": "C.UTF-8",
        "OMP_NUM_THREADS": "1",  # numeric libraries reserve memory per thread; the child needs none
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


class Sandbox:
    """Parent side. ``timeout``: wall-clock seconds per child; ``call_timeout``: seconds per probed call."""

    def __init__(
        self, *, timeout: float = 60.0, call_timeout: float = 2.0, calls_per_tool: int = 6, parallel: int | None = None
    ):
        self.timeout = timeout
        self.call_timeout = call_timeout
        self.calls_per_tool = calls_per_tool
        self.parallel = parallel or max(1, os.cpu_count() or 1)
        self._sem: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.runs = 0

    async def probe(self, root: Path, env: str) -> SandboxResult:
        """Import tools.py (no verifiers needed) and call every tool with sample arguments."""
        return await self._run(
            {
                "command": "probe",
                "root": str(root),
                "env": env,
                "call_timeout": self.call_timeout,
                "calls_per_tool": self.calls_per_tool,
            }
        )

    async def validate(
        self,
        root: Path,
        env: str,
        *,
        seeds: int = 0,
        blind_seeds: int = 0,
        cover_seeds: tuple[int, int] = (0, 0),
        timeout: float | None = None,
    ) -> SandboxResult:
        """``awm validate`` of the bundle under ``root``, in full (``seeds``: also every template on that many
        built worlds, as ``awm validate --seeds``; ``blind_seeds``: then the blind-constant check on that many
        worlds, enough instances to judge every information template; ``cover_seeds``: then every template must
        have an instance in that many small worlds and that many with distractors)."""
        request = {
            "command": "validate",
            "root": str(root),
            "env": env,
            "seeds": seeds,
            "blind_seeds": blind_seeds,
            "cover_seeds": cover_seeds,
        }
        return await self._run(request, timeout)

    async def world(self, root: Path, env: str, worlds: list[str], *, timeout: float | None = None) -> SandboxResult:
        """Build ``world.py`` (isolated) for each world label (``s0``, ``s1d``, ``l0``, ...), load each into the
        schema with foreign keys on; ``stats`` holds rows per table per label, ``tables`` the first world's rows."""
        return await self._run({"command": "world", "root": str(root), "env": env, "worlds": worlds}, timeout)

    async def _run(self, request: dict[str, Any], timeout: float | None = None) -> SandboxResult:
        loop = asyncio.get_running_loop()
        if self._sem is None or self._loop is not loop:
            self._sem, self._loop = asyncio.Semaphore(self.parallel), loop
        async with self._sem:
            self.runs += 1
            return await self._spawn(request, timeout or self.timeout)

    async def _spawn(self, request: dict[str, Any], timeout: float) -> SandboxResult:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-P",
            "-B",
            "-m",
            "awm.gen.sandbox",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=sandbox_env(),
            cwd=request["root"],
            start_new_session=True,
            limit=1 << 24,
        )
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        events: list[dict[str, Any]] = []
        tail = bytearray()

        async def read_out() -> None:
            assert proc.stdout is not None
            while line := await proc.stdout.readline():
                with contextlib.suppress(ValueError):
                    event = json.loads(line)
                    if isinstance(event, dict):
                        events.append(event)

        async def read_err() -> None:
            assert proc.stderr is not None
            while chunk := await proc.stderr.read(65536):
                tail.extend(chunk)
                del tail[:-STDERR_TAIL]

        timed_out = False
        try:
            proc.stdin.write(json.dumps(request).encode())
            await proc.stdin.drain()
            proc.stdin.close()
            await asyncio.wait_for(asyncio.gather(read_out(), read_err(), proc.wait()), timeout)
        except (TimeoutError, BrokenPipeError, ConnectionResetError) as e:
            timed_out = isinstance(e, TimeoutError)
            _kill(proc.pid)
            await proc.wait()
        except BaseException:  # cancelled (Ctrl-C): never leave a child behind
            _kill(proc.pid)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), 5)
            raise
        done = next((e for e in reversed(events) if e.get("event") == "done"), None)
        if done is not None:
            return SandboxResult(
                bool(done.get("ok")),
                list(done.get("problems", [])),
                dict(done.get("task_problems", {})),
                list(done.get("tools", [])),
                dict(done.get("stats", {})),
                tables=done.get("tables"),
            )
        last = next((e for e in reversed(events) if e.get("event") in ("call", "stage")), None)
        where = _describe_event(last)
        if timed_out:
            return SandboxResult(
                False, [f"did not finish within {timeout:g} s{where}: something loops forever"], timed_out=True
            )
        err = tail.decode("utf-8", "replace").strip().splitlines()[-3:]
        return SandboxResult(
            False, [f"the checking process died (exit code {proc.returncode}){where}: " + " | ".join(err)]
        )


def _describe_event(event: dict[str, Any] | None) -> str:
    if not event:
        return ""
    if event.get("event") == "call":
        return f" while calling {event.get('tool')}({_short_args(event.get('arguments') or {})})"
    return f" while {event.get('what', 'checking')}"


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _short_args(args: dict[str, Any]) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in args.items())
    return text if len(text) <= 120 else text[:117] + "..."


# ==== child side ==================================================================================


class CallTimeout(BaseException):
    """A probed call ran past its time limit."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def alarm(_signum: int, _frame: object) -> None:
        raise CallTimeout

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _limit_resources() -> None:
    try:
        import resource
    except ImportError:  # not POSIX: the wall-clock limit still applies
        return
    for name, value in (("RLIMIT_CORE", 0), ("RLIMIT_FSIZE", 0), ("RLIMIT_AS", 4 << 30)):
        with contextlib.suppress(ValueError, OSError, AttributeError):
            limit = getattr(resource, name)
            hard = resource.getrlimit(limit)[1]
            resource.setrlimit(limit, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))


def main() -> None:
    _limit_resources()
    out = sys.stdout
    sys.stdout = sys.stderr  # generated code that prints cannot corrupt the protocol

    def emit(event: dict[str, Any]) -> None:
        out.write(json.dumps(event, default=str) + "\n")
        out.flush()

    request = json.loads(sys.stdin.read())
    root, env = Path(request["root"]), request["env"]
    tools_py = root / "envs" / env / "tools.py"
    from awm.gen.safety import check_tools_source

    unsafe = check_tools_source(tools_py.read_text(encoding="utf-8")) if tools_py.is_file() else []
    if unsafe:
        emit({"event": "done", "ok": False, "problems": [f"tools.py: {p}" for p in unsafe]})
        return
    if request["command"] == "probe":
        emit({"event": "done", **_probe(root, env, request["call_timeout"], request["calls_per_tool"], emit)})
    elif request["command"] == "validate":
        seeds, blind = int(request.get("seeds") or 0), int(request.get("blind_seeds") or 0)
        cover = tuple(int(x) for x in request.get("cover_seeds") or (0, 0))
        emit({"event": "done", **_validate(root, env, emit, seeds, blind, (cover[0], cover[1]))})
    elif request["command"] == "world":
        emit({"event": "done", **_world(root, env, list(request["worlds"]), emit)})
    else:
        emit({"event": "done", "ok": False, "problems": [f"unknown command {request['command']!r}"]})


def _probe(
    root: Path, env: str, call_timeout: float, calls_per_tool: int, emit: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    from pydantic import ValidationError

    from awm.bundle.loader import BundleFiles
    from awm.bundle.records import Check, GoldSolution, Manifest, SeedData, Task, TaskKind, TaskVerifier
    from awm.bundle.samples import probe_cases
    from awm.errors import BundleError
    from awm.model.world import World

    env_dir = root / "envs" / env
    emit({"event": "stage", "what": "importing tools.py"})
    try:
        files = BundleFiles(
            Manifest.model_validate_json((env_dir / "env.json").read_bytes()),
            (env_dir / "schema.sql").read_text(encoding="utf-8"),
            SeedData.model_validate_json((env_dir / "seed.json").read_bytes()),
            env_dir / "tools.py",
            [Task(id="probe", instruction="probe the tools", kind=TaskKind.single_write)],  # tasks are not needed yet
            [TaskVerifier(task_id="probe", checks=[Check(name="probe", sql="SELECT 0")], gold=GoldSolution(calls=[]))],
            env_dir,
            root / "verifiers" / env,
        )
        with _time_limit(max(5.0, call_timeout * 5)):
            world = World(files)
    except BundleError as e:
        return {"ok": False, "problems": e.problems}
    except CallTimeout:
        return {"ok": False, "problems": ["importing tools.py took too long"]}
    except (OSError, ValidationError) as e:
        return {"ok": False, "problems": [f"cannot read the bundle: {e}"]}
    problems: list[str] = []
    calls = 0
    failed: set[str] = set()
    for td, args in probe_cases(world, calls_per_tool):
        if td.name in failed:  # one problem per tool is enough
            continue
        emit({"event": "call", "tool": td.name, "arguments": args})
        calls += 1
        ep = world.episode("probe")
        problem = None
        try:
            with _time_limit(call_timeout):
                res = ep.call(td.name, args)
        except CallTimeout:
            res = None
            problem = f"ran longer than {call_timeout:g} s: a loop never ends or the work is far too large"
        finally:
            ep.close()
        if res is not None and not res.ok and res.error is not None and res.error.code in ("internal_error", "timeout"):
            problem = res.error.message + _locate(world, td.name, args)
        elif res is not None and res.ok and len(json.dumps(res.result, default=str)) > MAX_RESULT_CHARS:
            problem = f"returned more than {MAX_RESULT_CHARS} characters; limit or paginate the result"
        if problem is not None:
            problems.append(f"tool {td.name}({_short_args(args)}) {problem}")
            failed.add(td.name)
    tools = [s.model_dump() for s in world.tool_specs()]
    return {"ok": not problems, "problems": problems, "tools": tools, "stats": {"calls": calls}}


def _locate(world: Any, tool: str, args: dict[str, Any]) -> str:
    """Where in tools.py an unhandled exception comes from: re-run the call and read the traceback."""
    import traceback

    td = world.tools[tool]
    ep = world.episode("probe")
    try:
        ep.db._writable = td.write
        ep.conn.execute("BEGIN")
        with _time_limit(2.0):
            td.fn(ep.db, **td.validate(args))
    except CallTimeout:
        return ""
    except Exception as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename.endswith("tools.py")]
        if frames:
            f = frames[-1]
            return f" (tools.py line {f.lineno}, in {f.name}: {(f.line or '').strip()[:100]})"
    finally:
        if ep.conn.in_transaction:
            ep.conn.execute("ROLLBACK")
        ep.close()
    return ""


def _world(root: Path, env: str, labels: list[str], emit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Build each world with the isolated builder and load it into the schema (foreign keys on)."""
    import hashlib
    import sqlite3

    from awm.bundle.records import Manifest
    from awm.errors import AwmError
    from awm.model.builders import build_seed
    from awm.sql.diff import read_tables
    from awm.sql.seeding import insert_seed
    from awm.worldgen import WorldKey

    env_dir = root / "envs" / env
    manifest = Manifest.model_validate_json((env_dir / "env.json").read_bytes())
    schema = (env_dir / "schema.sql").read_text(encoding="utf-8")
    problems: list[str] = []
    counts: dict[str, dict[str, int]] = {}
    digests: dict[str, str] = {}
    first: dict[str, Any] | None = None
    for label in labels:
        emit({"event": "stage", "what": f"building world {label}"})
        try:
            seed = build_seed(env_dir / "world.py", WorldKey.parse(label), manifest.clock, trusted=False)
        except AwmError as e:
            problems.append(f"world {label}: {e}")
            continue
        tables_rows = seed.tables
        if first is None:
            first = {t: rows for t, rows in tables_rows.items()}
        counts[label] = {t: len(rows) for t, rows in tables_rows.items()}
        digest = hashlib.sha256(seed.model_dump_json().encode()).hexdigest()
        if digests.setdefault(label, digest) != digest:
            problems.append(
                f"world {label} built twice gives different rows: build() must be a pure function of ctx (random "
                "choices from ctx.rng / ctx.faker only, no iteration over sets of strings, dates from ctx.clock)"
            )
            continue
        conn = sqlite3.connect(":memory:", isolation_level=None)
        try:
            conn.executescript(schema)
            conn.execute("PRAGMA foreign_keys = ON")
            found = insert_seed(conn, seed, read_tables(conn), max_problems=8)
            problems += [f"world {label}: {p}" for p in found]
        finally:
            conn.close()
    return {"ok": not problems, "problems": problems, "stats": {"rows": counts, "digests": digests}, "tables": first}


def _coverage_gaps(world: Any, small: int, distractors: int) -> dict[str, list[str]]:
    """Templates whose slots query returns no row in some built world: template id -> world labels."""
    import sqlite3

    from awm.model.builders import build_seed
    from awm.model.templates import slot_rows
    from awm.sql.diff import read_tables
    from awm.sql.seeding import insert_seed
    from awm.worldgen import WorldKey

    gaps: dict[str, list[str]] = {}
    path = world.files.builder_path
    if path is None or not world.templates:
        return gaps
    keys = [WorldKey(s) for s in range(small)] + [WorldKey(s, distractors=True) for s in range(distractors)]
    for key in keys:
        seed = build_seed(path, key, world.clock, trusted=world.manifest.trusted)
        conn = sqlite3.connect(":memory:", isolation_level=None)
        try:
            conn.executescript(world.files.schema_sql)
            insert_seed(conn, seed, read_tables(conn), max_problems=1)
            for tid, t in world.templates.items():
                if not slot_rows(conn, t, world.clock)[1]:
                    gaps.setdefault(tid, []).append(key.label)
        finally:
            conn.close()
    return gaps


def _validate(
    root: Path,
    env: str,
    emit: Callable[[dict[str, Any]], None],
    seeds: int = 0,
    blind_seeds: int = 0,
    cover_seeds: tuple[int, int] = (0, 0),
) -> dict[str, Any]:
    import re

    from awm.model.registry import Registry
    from awm.proof.validate import validate_blind, validate_env

    emit({"event": "stage", "what": "validating the bundle (gold solutions replay)"})
    registry = Registry([root], include_default=False)
    report = validate_env(env, registry, seeds=seeds)
    if report.ok and blind_seeds > seeds:
        emit({"event": "stage", "what": f"checking answers a policy could guess blind ({blind_seeds} worlds)"})
        world = registry.load(env)
        if world.templates and world.files.builder_path is not None:
            validate_blind(world, report, range(blind_seeds))
    if report.ok and any(cover_seeds):
        emit({"event": "stage", "what": "checking every template has instances in every world"})
        world = registry.load(env)
        for tid, labels in _coverage_gaps(world, *cover_seeds).items():
            report.add(
                f"template {tid}",
                f"no instance in world(s) {', '.join(labels[:8])}{' ...' if len(labels) > 8 else ''} (its slots query "
                f"returns no row there; {cover_seeds[0]} small worlds and {cover_seeds[1]} with near-duplicates were "
                "built): every world a user builds must offer one. Base the query on what world.py plants in "
                "every world, or widen it",
            )
    by_task: dict[str, list[str]] = {}
    problems = []
    for p in report.problems:
        problems.append(str(p))
        m = (
            re.match(r"task (\S+)$", p.where)
            or re.search(r"task '([^']+)'", p.message)
            or re.match(r"task (\S+?):", p.message)
        )
        if m:
            by_task.setdefault(m.group(1), []).append(str(p))
    return {"ok": report.ok, "problems": problems, "task_problems": by_task, "stats": report.stats}


if __name__ == "__main__":
    main()
