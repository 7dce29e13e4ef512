"""Server benchmark: tool calls/s and latency over HTTP and MCP at 1, 16 and 64 concurrent clients, and
resident memory with 1,000 live episodes. The server runs in its own process (``awm serve``); the
baseline is the same calls made in-process on an ``Episode``. Episodes are created on the control plane
(the agent port + 1) and driven on the agent plane, as a trainer and its agents do.

    python benchmarks/bench_serve.py [--env online_store] [--seconds 4] [--workers N]
    python benchmarks/bench_serve.py --scaling 1,2 [--rounds 5]   # calls/s of awm serve --workers 1 vs 2 (wrk)

``--scaling`` starts one server per worker count and alternates wrk runs between them, round after round
(medians): "one episode per connection" (each wrk connection drives its own episode, as an agent with
its own client does) and "episodes mixed" (every connection takes the episodes in turn, so with N
workers most requests reach a worker that does not hold their episode and are forwarded).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

import awm

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A free port whose successor (the control plane's) is free too."""
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


def control(url: str) -> str:
    """The control plane of the server whose agent plane is ``url``."""
    base, port = url.rsplit(":", 1)
    return f"{base}:{int(port) + 1}"


async def new_episodes(url: str, env: str, task: str, n: int) -> list[str]:
    async with httpx.AsyncClient(base_url=control(url), timeout=60) as c:
        return [(await c.post("/episodes", json={"env": env, "task_id": task})).json()["episode_id"] for _ in range(n)]


async def drop_episodes(url: str, eids: list[str]) -> None:
    async with httpx.AsyncClient(base_url=control(url), timeout=60) as c:
        for e in eids:
            await c.delete(f"/episodes/{e}")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pick_call(world) -> tuple[str, str, dict]:
    """A read call from a gold solution: safe to repeat, realistic in cost."""
    for tid in world.task_ids:
        for c in world.tasks[tid].verifier.gold.calls:
            if not world.tools[c.tool].write:
                return tid, c.tool, c.arguments
    raise SystemExit("no read call in any gold solution")


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def http_load(url: str, env: str, task: str, tool: str, args: dict, clients: int, seconds: float):
    lat: list[float] = []
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    eids = await new_episodes(url, env, task, clients)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as c:
        # one request first: from a cold pool, all clients connect at once and httpx settles on twice the
        # connections it needs, halving its own throughput at 64 clients (the client, not the server)
        r = await c.post(f"/episodes/{eids[0]}/call", json={"tool": tool, "arguments": args})
        assert r.status_code == 200, r.text
        stop = time.perf_counter() + seconds

        async def worker(eid: str) -> None:
            while time.perf_counter() < stop:
                t0 = time.perf_counter()
                r = await c.post(f"/episodes/{eid}/call", json={"tool": tool, "arguments": args})
                assert r.status_code == 200 and r.json()["ok"], r.text
                lat.append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        await asyncio.gather(*(worker(e) for e in eids))
        wall = time.perf_counter() - t0
    await drop_episodes(url, eids)
    return len(lat) / wall, lat


WRK_SCRIPT = """
local ids = {%s}
local body = '%s'
local i = 0
request = function()
  i = i + 1
  local path = "/episodes/" .. ids[(i %% #ids) + 1] .. "/call"
  return wrk.format("POST", path, {["Content-Type"] = "application/json"}, body)
end
done = function(summary, latency, requests)
  io.write(string.format("AWM %%d %%f %%f %%f %%d\\n", summary.requests, summary.duration / 1e6,
    latency:percentile(50) / 1e6, latency:percentile(99) / 1e6, summary.errors.status))
end
"""


WRK_MCP = """
local ids = {%s}
local body = '%s'
local i = 0
request = function()
  i = i + 1
  local headers = {["Content-Type"] = "application/json", ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = "2026-07-28", ["Mcp-Method"] = "tools/call", ["Mcp-Name"] = "%s",
    ["X-AWM-Episode"] = ids[(i %% #ids) + 1]}
  return wrk.format("POST", "/envs/%s/mcp", headers, body)
end
done = function(summary, latency, requests)
  io.write(string.format("AWM %%d %%f %%f %%f %%d\\n", summary.requests, summary.duration / 1e6,
    latency:percentile(50) / 1e6, latency:percentile(99) / 1e6, summary.errors.status))
end
"""


WRK_STICKY = """
local ids = {%s}
local body = '%s'
local n = 0
function setup(thread)
  n = n + 1
  thread:set("id", ids[n])
end
request = function()
  return wrk.format("POST", "/episodes/" .. id .. "/call", {["Content-Type"] = "application/json"}, body)
end
done = function(summary, latency, requests)
  io.write(string.format("AWM %%d %%f %%f %%f %%d\\n", summary.requests, summary.duration / 1e6,
    latency:percentile(50) / 1e6, latency:percentile(99) / 1e6, summary.errors.status))
end
"""


def wrk_run(url: str, script: str, clients: int, seconds: float, threads: int = 1) -> tuple[float, float, float]:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(script)
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{clients}", f"-d{max(1, round(seconds))}s", "-s", f.name, url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    os.unlink(f.name)
    n, dur, p50, p99, errors = next(line for line in out.splitlines() if line.startswith("AWM ")).split()[1:]
    if int(errors):
        raise SystemExit(f"wrk saw {errors} non-2xx answers")
    return int(n) / float(dur), float(p50), float(p99)


def wrk_mcp(url: str, env: str, task: str, tool: str, args: dict, clients: int, seconds: float):
    """MCP tools/call requests of the sessionless protocol, one episode per connection (header)."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "wrk", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args, "_meta": meta}}
    ).replace("'", "\\'")
    eids = asyncio.run(new_episodes(url, env, task, clients))
    try:
        return wrk_run(url, WRK_MCP % (", ".join(f'"{e}"' for e in eids), body, tool, env), clients, seconds)
    finally:
        asyncio.run(drop_episodes(url, eids))


def wrk_load(url: str, env: str, task: str, tool: str, args: dict, clients: int, seconds: float):
    """HTTP load from wrk (C, one thread): the Python client saturates a core before the server does."""

    eids = asyncio.run(new_episodes(url, env, task, clients))
    body = json.dumps({"tool": tool, "arguments": args}).replace("'", "\\'")
    try:
        return wrk_run(url, WRK_SCRIPT % (", ".join(f'"{e}"' for e in eids), body), clients, seconds)
    finally:
        asyncio.run(drop_episodes(url, eids))


def wrk_sticky(url: str, env: str, task: str, tool: str, args: dict, clients: int, seconds: float):
    """HTTP load from wrk, one episode per connection (a wrk thread each)."""
    eids = asyncio.run(new_episodes(url, env, task, clients))
    body = json.dumps({"tool": tool, "arguments": args}).replace("'", "\\'")
    try:
        return wrk_run(url, WRK_STICKY % (", ".join(f'"{e}"' for e in eids), body), clients, seconds, clients)
    finally:
        asyncio.run(drop_episodes(url, eids))


def start_server(env: str, workers: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "awm.cli", "serve", "--port", str(port), "--env", env, "--max-episodes", "5000"]
    proc = subprocess.Popen(
        [*cmd, "--workers", str(workers)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    for _ in range(400):
        try:
            if httpx.get(f"{url}/health").status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.05)
    return proc, url


def scaling(env: str, counts: list[int], rounds: int, seconds: float, clients: int) -> None:
    """calls/s of awm serve --workers N for each N, alternating, medians over the rounds."""
    if not shutil.which("wrk"):
        raise SystemExit("--scaling needs wrk (apt-get install wrk): a Python load generator would take a core")
    world = awm.load(env)
    task, tool, args = pick_call(world)
    servers = {n: start_server(env, n) for n in counts}
    rates: dict[tuple[str, int], list[float]] = {}
    try:
        print(f"awm serve --workers {'/'.join(map(str, counts))} · {os.cpu_count()} CPUs shared with wrk · env {env} · "
              f"{clients} connections · {rounds} rounds of {seconds:.0f} s, alternating")  # fmt: skip
        for r in range(rounds):
            for name, load in (("one episode per connection", wrk_sticky), ("episodes mixed", wrk_load)):
                for n in counts[r % 2 :] + counts[: r % 2]:
                    rate, _, _ = load(servers[n][1], env, task, tool, args, clients, seconds)
                    rates.setdefault((name, n), []).append(rate)
        for name in ("one episode per connection", "episodes mixed"):
            base = statistics.median(rates[(name, counts[0])])
            cells = "  ".join(
                f"{n} worker(s) {statistics.median(rates[(name, n)]):6.0f}/s "
                f"({statistics.median(rates[(name, n)]) / base:4.2f}×)"
                for n in counts
            )
            print(f"{name:27} {cells}   per round: " + "; ".join(
                f"{n}: " + " ".join(f"{x:.0f}" for x in rates[(name, n)]) for n in counts))  # fmt: skip
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(15)


async def mcp_load(url: str, env: str, task: str, tool: str, args: dict, clients: int, seconds: float):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    lat: list[float] = []
    eids = await new_episodes(url, env, task, clients)
    connected = asyncio.Barrier(clients)  # the clock starts once every client has connected
    window: list[float] = []

    async def worker(i: int) -> None:
        http = create_mcp_http_client(headers={"X-AWM-Episode": eids[i]})
        async with http, Client(streamable_http_client(f"{url}/envs/{env}/mcp", http_client=http)) as c:
            await c.call_tool(tool, args)  # the client lists the tools on its first call
            if await connected.wait() == 0:
                window.append(time.perf_counter())
            stop = time.perf_counter() + seconds
            while time.perf_counter() < stop:
                t0 = time.perf_counter()
                r = await c.call_tool(tool, args)
                assert not r.is_error, r.content
                lat.append(time.perf_counter() - t0)

    await asyncio.gather(*(worker(i) for i in range(clients)))
    rate = len(lat) / (time.perf_counter() - window[0])
    await drop_episodes(url, eids)
    return rate, lat


async def fill(url: str, env: str, task: str, tool: str, args: dict, n: int) -> None:
    async with httpx.AsyncClient(timeout=60) as c:
        sem = asyncio.Semaphore(32)

        async def one() -> None:
            async with sem:
                new = await c.post(f"{control(url)}/episodes", json={"env": env, "task_id": task})
                await c.post(f"{url}/episodes/{new.json()['episode_id']}/call", json={"tool": tool, "arguments": args})

        await asyncio.gather(*(one() for _ in range(n)))


def report(proto: str, clients: int, rate: float, p50: float, p99: float, inproc: float) -> None:
    print(
        f"{proto:17} {clients:3d} clients: {rate:7.0f} calls/s  p50 {p50 * 1e3:6.2f} ms  p99 {p99 * 1e3:7.2f} ms  "
        f"({rate / inproc:4.2f}× in-process)"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--env", default="online_store")
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--clients", default="1,16,64")
    ap.add_argument("--workers", type=int, default=1, help="awm serve --workers")
    ap.add_argument("--scaling", default=None, help="worker counts to compare, e.g. 1,2 (wrk, 16 connections)")
    ap.add_argument("--rounds", type=int, default=5, help="--scaling: rounds")
    a = ap.parse_args()
    if a.scaling:
        scaling(a.env, [int(x) for x in a.scaling.split(",")], a.rounds, a.seconds, 16)
        return
    world = awm.load(a.env)
    task, tool, args = pick_call(world)

    ep = world.episode(task)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 1.0:
        ep.call(tool, args)
        n += 1
    inproc = n / (time.perf_counter() - t0)

    proc, url = start_server(a.env, a.workers)
    try:
        base_rss = rss_mib(proc.pid)
        print(
            f"AWM Gym server benchmark · {os.cpu_count()} CPUs (server and load generator share them) · "
            f"env {a.env} · call {tool}({json.dumps(args)})"
        )
        print(f"in-process baseline: {inproc:8.0f} calls/s (one Episode, no HTTP)")
        print("each client drives its own episode; the Python load generators saturate a core before the server")
        levels = [int(x) for x in a.clients.split(",")]
        if shutil.which("wrk"):
            for name, fn in (("HTTP (wrk)", wrk_load), ("MCP (wrk)", wrk_mcp)):
                for clients in levels:
                    rate, p50, p99 = fn(url, a.env, task, tool, args, clients, a.seconds)
                    report(name, clients, rate, p50, p99, inproc)
        for proto, load in (("HTTP (httpx)", http_load), ("MCP (mcp client)", mcp_load)):
            for clients in levels:
                rate, lat = asyncio.run(load(url, a.env, task, tool, args, clients, a.seconds))
                report(proto, clients, rate, statistics.median(lat), pct(lat, 0.99), inproc)
        asyncio.run(fill(url, a.env, task, tool, args, 1000))
        live = httpx.get(f"{url}/health").json()["episodes"]
        rss = rss_mib(proc.pid)
        print(
            f"memory: {rss:.0f} MiB resident with {live} live episodes "
            f"({base_rss:.0f} MiB at start; {(rss - base_rss) * 1024 / max(live, 1):.0f} KiB per episode)"
        )
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
