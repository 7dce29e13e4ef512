"""Side by side with AWM's released runtime: tool-call latency and calls/s over MCP and over HTTP.

AWM (Agent World Model, arXiv 2602.10090) is on PyPI as ``agent-world-model`` (Python >= 3.12). This script
makes a virtual environment for it outside the repository (default ``~/.cache/awm-bench/awm-venv``),
installs it there once (PyPI), and starts its environment server the way its README says:
``awm env reset_db`` builds the scenario's SQLite file from ``gen_db.jsonl``/``gen_sample.jsonl``, then
``awm env start --scenario ... --envs_load_path gen_envs.jsonl --db_path ...`` runs the generated FastAPI
app with fastapi-mcp's MCP endpoint at ``/mcp`` (one server process per environment, one shared database).

Ours: the same scenario imported with ``awm import awm`` (``indie_bookshop``; AWM's app code runs in our
sandboxed workers) and a native environment (``online_store``), both served by one ``awm serve``.

Both sides are driven by the official MCP client (``mcp.Client`` over streamable HTTP; it negotiates the
handshake-era protocol with AWM's server and the sessionless one with ours) and by plain HTTP (httpx: AWM's
REST route of the same operation, found in its OpenAPI document; our ``POST /episodes/{id}/call``). Every
target runs a batch of ``--calls`` calls per round, rounds alternate the targets (rotating their order),
and the figures are over all rounds: p50 and p90 latency, and calls/s of one client calling back to back.

    python benchmarks/bench_vs_awm.py [--rounds 5] [--calls 100] [--json]
    python benchmarks/bench_vs_awm.py --awm-data ~/AgentWorldModel-1K --scenario "..."   # the real dataset

If AWM's runtime cannot be installed or started the script says exactly why and exits 2; it never
prints figures for a side it did not measure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "awm1k"
# AWM's own lock file (uv.lock, commit 91a9578) pins these; the PyPI package leaves mcp unpinned, and
# mcp 2.x removed the FastMCP module that its mcp-agent dependency imports at start
AWM_PINS = ["mcp==1.26.0", "uvicorn==0.40.0", "sse-starlette==3.0.3"]

# (AWM scenario, our imported id) and the calls: a read and a write that can be repeated
SCENARIO = "Indie Bookshop"
IMPORTED = "indie_bookshop"
READ = ("search_books", {"query": "Left Hand"})
WRITE = ("update_my_profile", {"shipping_city": "Falmouth"})
NATIVE = "online_store"
NATIVE_READ = ("find_customers", {"query": "elena"})
NATIVE_WRITE = ("update_customer_contact", {"customer_id": 3, "phone": "+1-619-555-0112"})


# AWM's package is also named ``awm``: its processes must never see this checkout on their path
AWM_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


class Unavailable(Exception):
    """AWM's runtime could not be installed or started; the message says why."""


def free_port() -> int:
    """A free port whose successor is free too (our control plane takes port + 1)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port


def tail(path: Path, n: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


# -- AWM's side -----------------------------------------------------------------------------------
def find_python(given: str | None) -> str:
    candidates = [given] if given else ["python3.13", "python3.12", "/root/.pyenv/versions/3.12.1/bin/python3"]
    for c in candidates:
        exe = shutil.which(c) or (c if Path(c).is_file() else None)
        if exe is None:
            continue
        out = subprocess.run(
            [exe, "-c", "import sys; print(sys.version_info >= (3, 12))"], capture_output=True, text=True
        )
        if out.stdout.strip() == "True":
            return exe
        if given:
            raise Unavailable(f"--awm-python {given} is not Python >= 3.12, which agent-world-model requires")
    raise Unavailable(
        "agent-world-model needs Python >= 3.12 and none was found (tried "
        + ", ".join(candidates)
        + "); pass one with --awm-python"
    )


def ensure_awm(venv: Path, python: str | None, install: bool) -> Path:
    """The venv's ``awm`` executable (AWM's CLI), installing agent-world-model first if needed."""
    awm = venv / "bin" / "awm"
    check = [str(venv / "bin" / "python"), "-I", "-c", "import awm.cli, awm.core.server, fastapi_mcp"]
    if awm.exists() and subprocess.run(check, capture_output=True, env=AWM_ENV).returncode == 0:
        return awm
    if not install:
        raise Unavailable(f"AWM is not installed in {venv} and --no-install was given")
    exe = find_python(python)
    print(f"installing agent-world-model into {venv} (once; needs PyPI) ...", file=sys.stderr, flush=True)
    if not (venv / "bin" / "python").exists():
        made = subprocess.run([exe, "-m", "venv", str(venv)], capture_output=True, text=True)
        if made.returncode != 0:
            raise Unavailable(f"cannot create a venv at {venv} with {exe}: {made.stderr.strip()[-500:]}")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "agent-world-model", *AWM_PINS]
    done = subprocess.run(pip, capture_output=True, text=True, env=AWM_ENV)
    if done.returncode != 0:
        raise Unavailable("pip install agent-world-model failed:\n" + (done.stderr or done.stdout).strip()[-1500:])
    imported = subprocess.run(check, capture_output=True, text=True, env=AWM_ENV)
    if imported.returncode != 0:
        raise Unavailable("agent-world-model installed but does not import:\n" + imported.stderr.strip()[-1500:])
    return awm


@dataclass
class Server:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    url: str
    pid_note: str = ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def wait_http(server: Server, path: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise Unavailable(f"{server.name} exited with status {server.proc.returncode}:\n{tail(server.log)}")
        try:
            if httpx.get(server.url + path, timeout=2).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise Unavailable(f"{server.name} did not answer {path} within {seconds:.0f} s:\n{tail(server.log)}")


def start_awm(awm: Path, data: Path, scenario: str, work: Path) -> Server:
    """AWM's server for one scenario, as its README starts it: a fresh database, then ``awm env start``."""
    for f in ("gen_db.jsonl", "gen_sample.jsonl", "gen_envs.jsonl"):
        if not (data / f).exists():
            raise Unavailable(f"{data} has no {f} (an AgentWorldModel-1K folder holds gen_*.jsonl)")
    db_dir = work / "awm-db"
    log = work / "awm-server.log"
    reset = subprocess.run(
        [str(awm), "env", "reset_db", "--input_db", str(data / "gen_db.jsonl"),
         "--input_sample", str(data / "gen_sample.jsonl"), "--database_dir", str(db_dir), "--scenarios", scenario],
        capture_output=True, text=True, cwd=work, env=AWM_ENV,
    )  # fmt: skip
    dbs = list(db_dir.glob("*.db")) if db_dir.is_dir() else []
    if reset.returncode != 0 or len(dbs) != 1:
        raise Unavailable(
            f"awm env reset_db did not build {scenario!r}'s database:\n{(reset.stderr or reset.stdout)[-1500:]}"
        )
    port = free_port()
    cmd = [
        str(awm), "env", "start", "--scenario", scenario, "--envs_load_path", str(data / "gen_envs.jsonl"),
        "--db_path", str(dbs[0]), "--port", str(port), "--temp_server_path", str(work / "awm_server.py"),
    ]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=work, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=AWM_ENV
        )
    server = Server("AWM's server (awm env start)", proc, log, f"http://127.0.0.1:{port}")
    wait_http(server, "/openapi.json", 90)
    return server


# -- our side -------------------------------------------------------------------------------------
def start_ours(data: Path, work: Path, workers: int) -> Server:
    imported = work / "imported"
    done = subprocess.run(
        [sys.executable, "-m", "awm.cli", "import", "awm", str(data), "--out", str(imported)],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    if done.returncode != 0 or not (imported / "envs" / IMPORTED).is_dir():
        raise SystemExit(f"awm import awm failed:\n{(done.stderr or done.stdout)[-1500:]}")
    port = free_port()
    log = work / "ours-server.log"
    cmd = [
        sys.executable, "-m", "awm.cli", "serve", "--port", str(port), "--path", str(imported),
        "--env", IMPORTED, "--env", NATIVE, "--max-episodes", "1000",
    ]  # fmt: skip
    if workers > 1:
        cmd += ["--workers", str(workers)]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    server = Server("awm serve", proc, log, f"http://127.0.0.1:{port}")
    wait_http(server, "/health", 120)
    return server


# -- measuring ------------------------------------------------------------------------------------
Call = Callable[[], Awaitable[None]]


@dataclass
class Target:
    key: str  # e.g. "mcp read"
    side: str  # "awm", "ours (imported)", "ours (native)"
    call: Call
    lat: list[float] = field(default_factory=list)
    wall: float = 0.0

    async def batch(self, n: int, warm: int) -> None:
        for _ in range(warm):
            await self.call()
        t0 = time.perf_counter()
        for _ in range(n):
            s = time.perf_counter()
            await self.call()
            self.lat.append(time.perf_counter() - s)
        self.wall += time.perf_counter() - t0

    def figures(self) -> dict[str, float]:
        xs = sorted(self.lat)
        return {
            "p50_ms": statistics.median(xs) * 1e3,
            "p90_ms": xs[min(len(xs) - 1, int(0.9 * len(xs)))] * 1e3,
            "calls_per_s": len(xs) / self.wall,
            "calls": len(xs),
        }


@contextlib.asynccontextmanager
async def mcp_client(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(headers=headers)
    async with http, Client(streamable_http_client(url, http_client=http)) as c:
        yield c


def mcp_call(client: Any, tool: str, args: dict[str, Any]) -> Call:
    async def call() -> None:
        r = await client.call_tool(tool, args)
        if r.is_error:
            raise SystemExit(f"MCP {tool} failed: {r.content}")

    return call


def awm_http_call(http: httpx.AsyncClient, spec: dict[str, Any], tool: str, args: dict[str, Any]) -> Call:
    """The REST route behind one of AWM's MCP tools (fastapi-mcp names a tool by its operation id)."""
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if op.get("operationId") == tool:
                where = {p["name"]: p["in"] for p in op.get("parameters", [])}
                query = {k: v for k, v in args.items() if where.get(k) == "query"}
                route = path.format(**{k: v for k, v in args.items() if where.get(k) == "path"})
                body = {k: v for k, v in args.items() if k not in where} or None

                return _rest(http, method.upper(), route, query, body)
    raise SystemExit(f"AWM's OpenAPI document has no operation {tool!r}")


def _rest(http: httpx.AsyncClient, method: str, route: str, query: dict[str, Any], body: Any) -> Call:
    async def call() -> None:
        r = await http.request(method, route, params=query, json=body)
        if r.status_code >= 400:
            raise SystemExit(f"AWM {method} {route} failed: {r.status_code} {r.text[:300]}")

    return call


def ours_http_call(http: httpx.AsyncClient, episode: str, tool: str, args: dict[str, Any]) -> Call:
    async def call() -> None:
        r = await http.post(f"/episodes/{episode}/call", json={"tool": tool, "arguments": args})
        if r.status_code != 200 or not r.json()["ok"]:
            raise SystemExit(f"our {tool} failed: {r.status_code} {r.text[:300]}")

    return call


async def measure(awm: Server, ours: Server, rounds: int, calls: int, warm: int) -> list[Target]:
    control = ours.url.rsplit(":", 1)[0] + f":{int(ours.url.rsplit(':', 1)[1]) + 1}"
    async with contextlib.AsyncExitStack() as stack:
        ctl = await stack.enter_async_context(httpx.AsyncClient(base_url=control, timeout=120))

        async def episode(env: str) -> str:
            r = await ctl.post("/episodes", json={"env": env})
            if r.status_code != 201:
                raise SystemExit(f"cannot create an episode of {env}: {r.text[:300]}")
            return str(r.json()["episode_id"])

        ep_imp, ep_nat = await episode(IMPORTED), await episode(NATIVE)
        awm_mcp = await stack.enter_async_context(mcp_client(f"{awm.url}/mcp", {}))
        imp_mcp = await stack.enter_async_context(
            mcp_client(f"{ours.url}/envs/{IMPORTED}/mcp", {"X-AWM-Episode": ep_imp})
        )
        nat_mcp = await stack.enter_async_context(
            mcp_client(f"{ours.url}/envs/{NATIVE}/mcp", {"X-AWM-Episode": ep_nat})
        )
        awm_http = await stack.enter_async_context(httpx.AsyncClient(base_url=awm.url, timeout=60))
        our_http = await stack.enter_async_context(httpx.AsyncClient(base_url=ours.url, timeout=60))
        spec = (await awm_http.get("/openapi.json")).json()
        targets = []
        for kind, (tool, args), (ntool, nargs) in (("read", READ, NATIVE_READ), ("write", WRITE, NATIVE_WRITE)):
            targets += [
                Target(f"MCP {kind}", "awm", mcp_call(awm_mcp, tool, args)),
                Target(f"MCP {kind}", "imported", mcp_call(imp_mcp, tool, args)),
                Target(f"MCP {kind}", "native", mcp_call(nat_mcp, ntool, nargs)),
                Target(f"HTTP {kind}", "awm", awm_http_call(awm_http, spec, tool, args)),
                Target(f"HTTP {kind}", "imported", ours_http_call(our_http, ep_imp, tool, args)),
                Target(f"HTTP {kind}", "native", ours_http_call(our_http, ep_nat, ntool, nargs)),
            ]
        for r in range(rounds):
            print(f"round {r + 1}/{rounds} ...", file=sys.stderr, flush=True)
            shift = r % len(targets)
            for t in targets[shift:] + targets[:shift]:
                await t.batch(calls, warm if r == 0 else 0)
        return targets


def versions(awm_venv: Path) -> dict[str, str]:
    out = subprocess.run(
        [str(awm_venv / "bin" / "python"), "-I", "-c",
         "import importlib.metadata as m; print(*(f'{p}=={m.version(p)}' for p in "
         "('agent-world-model', 'fastapi', 'fastapi-mcp', 'mcp', 'uvicorn')))"],
        capture_output=True, text=True, env=AWM_ENV,
    )  # fmt: skip
    from importlib.metadata import version

    return {
        "awm": out.stdout.strip(),
        "ours": f"mcp=={version('mcp')} (client, both sides) uvicorn=={version('uvicorn')}",
    }


def report(targets: list[Target], meta: dict[str, Any], as_json: bool) -> None:
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for t in targets:
        rows.setdefault(t.key, {})[t.side] = t.figures()
    out: dict[str, Any] = {**meta, "results": {}}
    for key, sides in rows.items():
        a = sides["awm"]
        entry = {"awm": a}
        for side in ("imported", "native"):
            o = sides[side]
            entry[side] = {
                **o,
                "p50_speedup": a["p50_ms"] / o["p50_ms"],
                "p90_speedup": a["p90_ms"] / o["p90_ms"],
                "calls_per_s_ratio": o["calls_per_s"] / a["calls_per_s"],
            }
        out["results"][key] = entry
    if as_json:
        print(json.dumps(out, indent=2))
        return
    cpus = meta["cpus"]
    print(f"AWM's runtime vs awm serve · {cpus} CPUs (servers and client share them) · one client, calls back to back")
    print(f"  AWM: {meta['versions']['awm']}; scenario {meta['scenario']!r} from {meta['data']}")
    print(f"  ours: {IMPORTED} (the same scenario, imported; AWM's app code sandboxed) and {NATIVE} (native)")
    print(f"  {meta['rounds']} rounds × {meta['calls']} calls per target, targets alternating; p50 / p90 latency")
    head = f"{'':12} {'AWM':>20} | {'ours: imported':>20} {'×':>6} | {'ours: native':>20} {'×':>6}"
    print(head)
    print("-" * len(head))
    for key, e in out["results"].items():
        a, i, n = e["awm"], e["imported"], e["native"]

        def cell(x: dict[str, float]) -> str:
            return f"{x['p50_ms']:6.2f} / {x['p90_ms']:6.2f} ms"

        print(
            f"{key:12} {cell(a):>20} | {cell(i):>20} {i['p50_speedup']:5.1f}× | {cell(n):>20} {n['p50_speedup']:5.1f}×"
        )
        print(
            f"{'  calls/s':12} {a['calls_per_s']:20.0f} | {i['calls_per_s']:20.0f} {i['calls_per_s_ratio']:5.1f}× | "
            f"{n['calls_per_s']:20.0f} {n['calls_per_s_ratio']:5.1f}×"
        )
    print("× = AWM's p50 / ours (latency), ours / AWM's (calls/s); > 1 means ours is faster")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--awm-venv", type=Path, default=Path("~/.cache/awm-bench/awm-venv").expanduser())
    ap.add_argument("--awm-python", default=None, help="a Python >= 3.12 for AWM's venv (default: found on PATH)")
    ap.add_argument("--no-install", action="store_true", help="use the venv as it is; never pip install")
    ap.add_argument("--awm-data", type=Path, default=FIXTURE, help="AgentWorldModel-1K folder (gen_*.jsonl)")
    ap.add_argument("--scenario", default=SCENARIO)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=100, help="calls per target per round")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--workers", type=int, default=1, help="awm serve --workers")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.scenario != SCENARIO:
        raise SystemExit("the calls measured are Indie Bookshop's (search_books, update_my_profile); add yours here")

    servers: list[Server] = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-vs-awm-") as tmp:
            work = Path(tmp)
            try:
                awm_exe = ensure_awm(a.awm_venv, a.awm_python, not a.no_install)
                awm = start_awm(awm_exe, a.awm_data.resolve(), a.scenario, work)
            except Unavailable as e:
                print(f"AWM's runtime is not available, so nothing was measured:\n{e}", file=sys.stderr)
                raise SystemExit(2) from None
            servers.append(awm)
            servers.append(start_ours(a.awm_data.resolve(), work, a.workers))
            targets = asyncio.run(measure(awm, servers[1], a.rounds, a.calls, a.warmup))
            meta = {
                "cpus": os.cpu_count(),
                "scenario": a.scenario,
                "data": str(a.awm_data),
                "rounds": a.rounds,
                "calls": a.calls,
                "workers": a.workers,
                "versions": versions(a.awm_venv),
                "calls_measured": {
                    "imported/awm": {"read": READ, "write": WRITE},
                    "native": {"read": NATIVE_READ, "write": NATIVE_WRITE},
                },
            }
            report(targets, meta, a.json)
    finally:
        for s in servers:
            s.stop()


if __name__ == "__main__":
    main()
