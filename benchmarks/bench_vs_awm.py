"""Side by side with AWM's released runtime: tool-call latency and calls/s over MCP and over HTTP.

AWM (Agent World Model, arXiv 2602.10090) is on PyPI as ``agent-world-model`` (Python >= 3.12). This script
makes a virtual environment for it outside the repository (default ``~/.cache/awm-bench/awm-venv``),
installs it there once (PyPI), and starts its environment server the way its README says:
``awm env reset_db`` builds the scenario's SQLite file from ``gen_db.jsonl``/``gen_sample.jsonl``, then
``awm env start --scenario ... --envs_load_path gen_envs.jsonl --db_path ...`` runs the generated FastAPI
app with fastapi-mcp's MCP endpoint at ``/mcp`` (one server process per environment, one shared database).

Ours: the same scenario imported with ``awm import awm`` (``indie_bookshop``; AWM's app code runs in our
sandboxed workers) and a native environment (``online_store``), both served by one ``awm serve``.

Two clients drive both sides (``--clients``, default both; the light one's table first):

- **light** (measures the servers): one keep-alive HTTP/1.1 connection per target on a plain socket,
  sending prepared request bytes and timing request -> full response (the check of the answer is outside
  the clock). The MCP requests are the official client's own: its ``tools/call`` (and, for AWM's stateful
  server, its ``initialize`` and ``notifications/initialized``) is recorded once, headers and body, and
  replayed, with the session id AWM's server gives this connection's own handshake; every answer (JSON or
  SSE) is parsed and must be a JSON-RPC result that is no tool error. A no-op request on each server (ours
  ``GET /health``, AWM's ``GET /docs``; AWM's generated app has no trivial route) shows the floor.
- **official**: the official MCP client (``mcp.Client`` over streamable HTTP; it negotiates the
  handshake-era protocol with AWM's server and the sessionless one with ours) and httpx for plain HTTP.
  These figures include the Python clients' own time, the same on both sides, which hides the servers' ratio.

Plain HTTP is AWM's REST route of the same operation (found in its OpenAPI document) and our
``POST /episodes/{id}/call``. Every target runs a batch of ``--calls`` calls per round, rounds alternate the
targets (rotating their order), and the figures are over all rounds: p50 and p90 latency, and calls/s of one
client calling back to back.

    python benchmarks/bench_vs_awm.py [--rounds 5] [--calls 100] [--clients light,official] [--json]
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
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from bench_serve import free_port  # the control plane's port (port + 1) must be free too

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
Call = Callable[[], Awaitable[float | None]]  # a call's latency in seconds (None: time the whole call)


@dataclass
class Target:
    key: str  # e.g. "MCP read"
    side: str  # "awm", "imported", "native"
    call: Call
    lat: list[float] = field(default_factory=list)
    wall: float = 0.0

    async def batch(self, n: int, warm: int) -> None:
        for _ in range(warm):
            await self.call()
        t0 = time.perf_counter()
        for _ in range(n):
            s = time.perf_counter()
            took = await self.call()
            self.lat.append(took if took is not None else time.perf_counter() - s)
        self.wall += time.perf_counter() - t0

    def figures(self) -> dict[str, float]:
        xs = sorted(self.lat)
        return {
            "p50_ms": statistics.median(xs) * 1e3,
            "p90_ms": xs[min(len(xs) - 1, int(0.9 * len(xs)))] * 1e3,
            "calls_per_s": len(xs) / self.wall,
            "calls": len(xs),
        }


async def rotate(targets: list[Target], rounds: int, calls: int, warm: int, label: str) -> None:
    for r in range(rounds):
        print(f"{label}: round {r + 1}/{rounds} ...", file=sys.stderr, flush=True)
        shift = r % len(targets)
        for t in targets[shift:] + targets[:shift]:
            await t.batch(calls, warm if r == 0 else 0)


def control_url(ours: Server) -> str:
    base, port = ours.url.rsplit(":", 1)
    return f"{base}:{int(port) + 1}"


async def episodes(ours: Server) -> tuple[str, str]:
    """A fresh episode of the imported scenario and one of the native environment."""
    async with httpx.AsyncClient(base_url=control_url(ours), timeout=120) as ctl:
        made = []
        for env in (IMPORTED, NATIVE):
            r = await ctl.post("/episodes", json={"env": env})
            if r.status_code != 201:
                raise SystemExit(f"cannot create an episode of {env}: {r.text[:300]}")
            made.append(str(r.json()["episode_id"]))
        return made[0], made[1]


def rest_route(spec: dict[str, Any], tool: str, args: dict[str, Any]) -> tuple[str, str, dict[str, Any], Any]:
    """(method, path, query, JSON body) of the REST route behind one of AWM's MCP tools (fastapi-mcp names
    a tool by its operation id)."""
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if op.get("operationId") == tool:
                where = {p["name"]: p["in"] for p in op.get("parameters", [])}
                query = {k: v for k, v in args.items() if where.get(k) == "query"}
                route = path.format(**{k: v for k, v in args.items() if where.get(k) == "path"})
                body = {k: v for k, v in args.items() if k not in where} or None
                return method.upper(), route, query, body
    raise SystemExit(f"AWM's OpenAPI document has no operation {tool!r}")


# -- the official clients -------------------------------------------------------------------------
Recorded = list[tuple[str, str, list[tuple[str, str]], bytes]]  # (method, path, headers, body) per request


@contextlib.asynccontextmanager
async def mcp_client(url: str, headers: dict[str, str], record: Recorded | None = None) -> AsyncIterator[Any]:
    """The official MCP client; ``record`` (if given) gets every HTTP request it sends."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(headers=headers)
    if record is not None:

        async def keep(request: Any) -> None:
            target = request.url.raw_path.decode("latin-1")
            record.append((request.method, target, list(request.headers.items()), bytes(request.content)))

        http.event_hooks["request"].append(keep)
    async with http, Client(streamable_http_client(url, http_client=http)) as c:
        yield c


def mcp_call(client: Any, tool: str, args: dict[str, Any]) -> Call:
    async def call() -> None:
        r = await client.call_tool(tool, args)
        if r.is_error:
            raise SystemExit(f"MCP {tool} failed: {r.content}")

    return call


def awm_http_call(http: httpx.AsyncClient, spec: dict[str, Any], tool: str, args: dict[str, Any]) -> Call:
    method, route, query, body = rest_route(spec, tool, args)

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


async def official_targets(stack: contextlib.AsyncExitStack, awm: Server, ours: Server) -> list[Target]:
    ep_imp, ep_nat = await episodes(ours)
    awm_mcp = await stack.enter_async_context(mcp_client(f"{awm.url}/mcp", {}))
    imp_mcp = await stack.enter_async_context(mcp_client(f"{ours.url}/envs/{IMPORTED}/mcp", {"X-AWM-Episode": ep_imp}))
    nat_mcp = await stack.enter_async_context(mcp_client(f"{ours.url}/envs/{NATIVE}/mcp", {"X-AWM-Episode": ep_nat}))
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
    return targets


# -- the light client -----------------------------------------------------------------------------
_HOP = frozenset({"host", "content-length", "connection", "transfer-encoding", "keep-alive"})


def encode(method: str, target: str, host: str, headers: list[tuple[str, str]], body: bytes = b"") -> bytes:
    """One HTTP/1.1 request, ready to send on a keep-alive connection."""
    lines = [f"{method} {target} HTTP/1.1", f"host: {host}"]
    lines += [f"{k}: {v}" for k, v in headers if k.lower() not in _HOP]
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append(f"content-length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


class Wire:
    """One keep-alive HTTP/1.1 connection on a plain socket: prepared bytes out, the whole response in
    (``Content-Length`` or chunked), read with as little Python as it takes."""

    def __init__(self, url: str):
        u = urllib.parse.urlsplit(url)
        self.host, self.addr = u.netloc, (u.hostname or "127.0.0.1", u.port or 80)
        self.sock = self._connect()
        self.buf = b""

    def _connect(self) -> socket.socket:
        sock = socket.create_connection(self.addr, timeout=120)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def _more(self) -> None:
        chunk = self.sock.recv(262144)
        if not chunk:
            raise SystemExit(f"{self.host} closed the connection mid-response")
        self.buf += chunk

    def _until(self, mark: bytes) -> bytes:
        """The bytes before ``mark`` (consumed, with it)."""
        while (at := self.buf.find(mark)) < 0:
            self._more()
        out, self.buf = self.buf[:at], self.buf[at + len(mark) :]
        return out

    def _take(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._more()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def exchange(self, request: bytes) -> tuple[float, Answer]:
        """Send ``request``; (seconds until the last byte of the response, the response)."""
        if select.select([self.sock], [], [], 0)[0]:  # the server closed it while idle (keep-alive timeout)
            self.sock.close()
            self.sock, self.buf = self._connect(), b""
        t0 = time.perf_counter()
        self.sock.sendall(request)
        lines = self._until(b"\r\n\r\n").split(b"\r\n")
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(b":")
            headers[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
        if "content-length" in headers:
            body = self._take(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while size := int(self._until(b"\r\n").split(b";")[0], 16):
                parts.append(self._take(size + 2)[:-2])
            while self._until(b"\r\n"):  # trailers, then the empty line
                pass
            body = b"".join(parts)
        else:
            raise SystemExit(f"{self.host} answered with neither Content-Length nor chunks: {lines[0]!r}")
        took = time.perf_counter() - t0
        if headers.get("connection", "").lower() == "close":  # the next request opens another connection
            self.sock.close()
            self.sock, self.buf = self._connect(), b""
        return took, Answer(int(lines[0].split(b" ", 2)[1]), headers, body)

    def close(self) -> None:
        self.sock.close()


def jsonrpc_answer(ans: Answer, rid: Any) -> dict[str, Any]:
    """The JSON-RPC message answering request ``rid`` (a JSON body, or an SSE stream's ``data`` lines)."""
    if ans.status >= 400:
        raise SystemExit(f"MCP request failed: HTTP {ans.status} {ans.body[:300]!r}")
    if ans.headers.get("content-type", "").startswith("text/event-stream"):
        found = []
        for event in ans.body.decode().replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(line[5:].lstrip(" ") for line in event.split("\n") if line.startswith("data:"))
            if data.strip():
                found.append(json.loads(data))
        messages = [m for m in found if isinstance(m, dict) and m.get("id") == rid]
        if not messages:
            raise SystemExit(f"no answer to request {rid!r} in the SSE stream: {ans.body[:300]!r}")
        return dict(messages[-1])
    return dict(json.loads(ans.body))


def tool_succeeded(ans: Answer, rid: Any) -> None:
    msg = jsonrpc_answer(ans, rid)
    if "result" not in msg or msg["result"].get("isError"):
        raise SystemExit(f"MCP tools/call failed: {json.dumps(msg)[:400]}")


def light_call(wire: Wire, request: bytes, check: Callable[[Answer], None]) -> Call:
    async def call() -> float:
        took, ans = wire.exchange(request)
        check(ans)
        return took

    return call


def _jsonrpc(body: bytes) -> dict[str, Any]:
    with contextlib.suppress(ValueError):
        msg = json.loads(body)
        if isinstance(msg, dict):
            return msg
    return {}


async def recorded_mcp(url: str, headers: dict[str, str], tool: str, args: dict[str, Any]) -> Recorded:
    """The HTTP requests the official MCP client sends to make one ``tools/call`` (handshake included)."""
    record: Recorded = []
    async with mcp_client(url, headers, record) as c:
        r = await c.call_tool(tool, args)
        if r.is_error:
            raise SystemExit(f"MCP {tool} failed: {r.content}")
        return list(record)  # before the client closes (its DELETE is not part of a call)


def light_mcp(wire: Wire, record: Recorded) -> Call:
    """Replay the official client's ``tools/call`` on ``wire``; when it carried a session id (a stateful
    server), first replay its ``initialize`` and ``notifications/initialized`` to get this connection's own."""
    posts = [(target, hdrs, body, _jsonrpc(body)) for method, target, hdrs, body in record if method == "POST"]
    call = next(((t, h, b, m) for t, h, b, m in posts if m.get("method") == "tools/call"), None)
    if call is None:
        raise SystemExit("the official client sent no tools/call")
    target, hdrs, body, msg = call
    session = next((v for k, v in hdrs if k.lower() == "mcp-session-id"), None)
    if session is not None:
        init = next((t, h, b) for t, h, b, m in posts if m.get("method") == "initialize")
        _, ans = wire.exchange(encode("POST", init[0], wire.host, init[1], init[2]))
        jsonrpc_answer(ans, _jsonrpc(init[2]).get("id"))
        session = ans.headers.get("mcp-session-id")
        if not session:
            raise SystemExit("AWM's server answered initialize without a session id")
        for t, h, b, m in posts:
            if m.get("method") == "notifications/initialized":
                h = [(k, session if k.lower() == "mcp-session-id" else v) for k, v in h]
                _, ans = wire.exchange(encode("POST", t, wire.host, h, b))
                if ans.status >= 400:
                    raise SystemExit(f"notifications/initialized failed: HTTP {ans.status}")
        hdrs = [(k, session if k.lower() == "mcp-session-id" else v) for k, v in hdrs]
    request = encode("POST", target, wire.host, hdrs, body)
    return light_call(wire, request, lambda ans: tool_succeeded(ans, msg.get("id")))


def light_rest(wire: Wire, spec: dict[str, Any], tool: str, args: dict[str, Any]) -> Call:
    method, route, query, body = rest_route(spec, tool, args)
    target = route + ("?" + urllib.parse.urlencode(query) if query else "")
    data = json.dumps(body).encode() if body is not None else b""
    headers = [("accept", "*/*")] + ([("content-type", "application/json")] if body is not None else [])

    def check(ans: Answer) -> None:
        if ans.status >= 400:
            raise SystemExit(f"AWM {method} {route} failed: {ans.status} {ans.body[:300]!r}")
        json.loads(ans.body)

    return light_call(wire, encode(method, target, wire.host, headers, data), check)


def light_ours(wire: Wire, episode: str, tool: str, args: dict[str, Any]) -> Call:
    body = json.dumps({"tool": tool, "arguments": args}).encode()
    headers = [("accept", "*/*"), ("content-type", "application/json")]

    def check(ans: Answer) -> None:
        if ans.status != 200 or not json.loads(ans.body)["ok"]:
            raise SystemExit(f"our {tool} failed: {ans.status} {ans.body[:300]!r}")

    return light_call(wire, encode("POST", f"/episodes/{episode}/call", wire.host, headers, body), check)


def light_noop(wire: Wire, path: str) -> Call:
    def check(ans: Answer) -> None:
        if ans.status != 200:
            raise SystemExit(f"GET {path} failed: {ans.status}")

    return light_call(wire, encode("GET", path, wire.host, [("accept", "*/*")]), check)


async def light_targets(stack: contextlib.ExitStack, awm: Server, ours: Server) -> list[Target]:
    ep_imp, ep_nat = await episodes(ours)

    def wire(url: str) -> Wire:
        w = Wire(url)
        stack.callback(w.close)
        return w

    spec = httpx.get(awm.url + "/openapi.json", timeout=60).json()
    targets = [
        Target("no-op", "awm", light_noop(wire(awm.url), "/docs")),
        Target("no-op", "ours", light_noop(wire(ours.url), "/health")),
    ]
    for kind, (tool, args), (ntool, nargs) in (("read", READ, NATIVE_READ), ("write", WRITE, NATIVE_WRITE)):
        awm_rec = await recorded_mcp(f"{awm.url}/mcp", {}, tool, args)
        imp_rec = await recorded_mcp(f"{ours.url}/envs/{IMPORTED}/mcp", {"X-AWM-Episode": ep_imp}, tool, args)
        nat_rec = await recorded_mcp(f"{ours.url}/envs/{NATIVE}/mcp", {"X-AWM-Episode": ep_nat}, ntool, nargs)
        targets += [
            Target(f"MCP {kind}", "awm", light_mcp(wire(awm.url), awm_rec)),
            Target(f"MCP {kind}", "imported", light_mcp(wire(ours.url), imp_rec)),
            Target(f"MCP {kind}", "native", light_mcp(wire(ours.url), nat_rec)),
            Target(f"HTTP {kind}", "awm", light_rest(wire(awm.url), spec, tool, args)),
            Target(f"HTTP {kind}", "imported", light_ours(wire(ours.url), ep_imp, tool, args)),
            Target(f"HTTP {kind}", "native", light_ours(wire(ours.url), ep_nat, ntool, nargs)),
        ]
    return targets


async def measure(
    awm: Server, ours: Server, clients: list[str], rounds: int, calls: int, warm: int
) -> dict[str, list[Target]]:
    out: dict[str, list[Target]] = {}
    for client in clients:
        with contextlib.ExitStack() as sync_stack:
            async with contextlib.AsyncExitStack() as stack:
                if client == "light":
                    targets = await light_targets(sync_stack, awm, ours)
                else:
                    targets = await official_targets(stack, awm, ours)
                await rotate(targets, rounds, calls, warm, client)
                out[client] = targets
    return out


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


def summarise(targets: list[Target]) -> dict[str, Any]:
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for t in targets:
        rows.setdefault(t.key, {})[t.side] = t.figures()
    out: dict[str, Any] = {}
    for key, sides in rows.items():
        a = sides["awm"]
        entry = {"awm": a}
        for side in ("imported", "native", "ours"):
            if side not in sides:
                continue
            o = sides[side]
            entry[side] = {
                **o,
                "p50_speedup": a["p50_ms"] / o["p50_ms"],
                "p90_speedup": a["p90_ms"] / o["p90_ms"],
                "calls_per_s_ratio": o["calls_per_s"] / a["calls_per_s"],
            }
        out[key] = entry
    return out


def cell(x: dict[str, float]) -> str:
    return f"{x['p50_ms']:6.2f} / {x['p90_ms']:6.2f} ms"


def report(measured: dict[str, list[Target]], meta: dict[str, Any], as_json: bool) -> None:
    out: dict[str, Any] = {**meta, "results": {client: summarise(ts) for client, ts in measured.items()}}
    if as_json:
        print(json.dumps(out, indent=2))
        return
    print(f"AWM's runtime vs awm serve · {meta['cpus']} CPUs (servers and client share them) · load {meta['load']}")
    print(f"  AWM: {meta['versions']['awm']}; scenario {meta['scenario']!r} from {meta['data']}")
    print(f"  ours: {IMPORTED} (the same scenario, imported; AWM's app code sandboxed) and {NATIVE} (native)")
    print(f"  {meta['rounds']} rounds × {meta['calls']} calls per target, targets alternating; p50 / p90 latency")
    titles = {
        "light": "light client (one keep-alive connection, prepared requests: the servers' time)",
        "official": "official clients (mcp.Client, httpx: the servers' time plus the Python clients')",
    }
    for client, results in out["results"].items():
        print(f"\n{titles[client]}")
        head = f"{'':12} {'AWM':>20} | {'ours: imported':>20} {'×':>6} | {'ours: native':>20} {'×':>6}"
        print(head)
        print("-" * len(head))
        for key, e in results.items():
            a = e["awm"]
            if "ours" in e:  # the floor: one figure for our server
                o = e["ours"]
                print(
                    f"{key:12} {cell(a):>20} | {cell(o):>20} {o['p50_speedup']:5.1f}× | (AWM GET /docs, ours /health)"
                )
                continue
            i, n = e["imported"], e["native"]
            print(
                f"{key:12} {cell(a):>20} | {cell(i):>20} {i['p50_speedup']:5.1f}× | "
                f"{cell(n):>20} {n['p50_speedup']:5.1f}×"
            )
            print(
                f"{'  calls/s':12} {a['calls_per_s']:20.0f} | "
                f"{i['calls_per_s']:20.0f} {i['calls_per_s_ratio']:5.1f}× | "
                f"{n['calls_per_s']:20.0f} {n['calls_per_s_ratio']:5.1f}×"
            )
    print("\n× = AWM's p50 / ours (latency), ours / AWM's (calls/s); > 1 means ours is faster")


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
    ap.add_argument(
        "--clients", default="light,official", help="light (the servers' time), official (mcp.Client, httpx), or both"
    )
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.scenario != SCENARIO:
        raise SystemExit("the calls measured are Indie Bookshop's (search_books, update_my_profile); add yours here")
    clients = [c.strip() for c in a.clients.split(",") if c.strip()]
    if not clients or not set(clients) <= {"light", "official"}:
        raise SystemExit("--clients takes light, official or light,official")

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
            load0 = os.getloadavg()[0]
            measured = asyncio.run(measure(awm, servers[1], clients, a.rounds, a.calls, a.warmup))
            meta = {
                "cpus": os.cpu_count(),
                "load": f"{load0:.1f} -> {os.getloadavg()[0]:.1f} (1-min average, before -> after)",
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
            report(measured, meta, a.json)
    finally:
        for s in servers:
            s.stop()


if __name__ == "__main__":
    main()
