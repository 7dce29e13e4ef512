"""Worker pools: one per piece of code, restarted after a breach, bounded in number, never reused mid-request."""

from __future__ import annotations

import threading
import time

import pytest

from awm.errors import WorkerTimeout
from awm.isolation import Limits, Worker, get_pool, pools

APP = """
from fastapi import FastAPI
import os, time
app = FastAPI()

@app.get("/pid", operation_id="pid")
def pid():
    return {"pid": os.getpid(), "t": time.time()}

@app.get("/spin", operation_id="spin")
def spin():
    while True:
        pass
"""


def _setup(worker: Worker) -> None:
    assert worker.request({"op": "load", "source": APP}, timeout=30).get("tools")


def _call(pool, tool: str, timeout: float = 5.0) -> dict:
    return pool.request({"op": "call", "tool": tool, "arguments": {}, "seed": 1}, timeout=timeout)


def test_a_breach_kills_the_worker_and_the_next_call_gets_a_fresh_one():
    pool = get_pool("app", "test-breach", Limits(call_s=1.0), _setup, size=1)
    assert _call(pool, "pid")["status"] == 200
    with pytest.raises(WorkerTimeout):
        _call(pool, "spin", timeout=0.5)
    assert _call(pool, "pid")["status"] == 200
    (worker,) = pool._free
    assert worker.starts == 2 and worker.alive  # killed at the breach, started afresh for the next call
    pool.close()
    assert not worker.alive


def test_two_pools_run_at_once_while_one_spins():
    spinning = get_pool("app", "test-spin", Limits(), _setup, size=1)
    other = get_pool("app", "test-other", Limits(), _setup, size=1)
    _call(other, "pid")  # started
    errors: list[BaseException] = []

    def spin() -> None:
        try:
            _call(spinning, "spin", 3.0)
        except WorkerTimeout as e:
            errors.append(e)

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    time.sleep(0.3)
    t = time.perf_counter()
    assert _call(other, "pid")["status"] == 200
    assert time.perf_counter() - t < 1.0  # not behind the spinning pool (the benchmark measures the real delay)
    thread.join(10)
    assert errors  # the spinning call itself ended at its limit
    spinning.close()
    other.close()


def test_pools_beyond_the_limit_lose_their_workers_least_recently_used_first(monkeypatch):
    monkeypatch.setattr(pools, "MAX_POOLS", 2)
    made = [get_pool("app", f"test-lru-{i}", Limits(), _setup, size=1) for i in range(2)]
    for p in made:
        _call(p, "pid")
    third = get_pool("app", "test-lru-2", Limits(), _setup, size=1)  # the oldest one's worker ends
    assert not made[0].busy_or_warm and made[1].busy_or_warm
    assert _call(made[0], "pid")["status"] == 200  # and it restarts on its next use
    for p in [*made, third]:
        p.close()
