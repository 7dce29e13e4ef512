"""The process's worker pools, one per piece of untrusted code, closed when idle ones pile up and at exit."""

from __future__ import annotations

import atexit
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from awm.isolation.sandbox import Limits
from awm.isolation.worker import Pool, Worker

MAX_POOLS = 24  # pools with live workers (each up to 2 of ~40-90 MiB); the least recently used beyond are closed
IDLE_S = 600.0  # a pool unused this long is closed when another is created (it restarts on its next use)
_pools: OrderedDict[tuple[str, str], Pool] = OrderedDict()
_lock = threading.Lock()


def get_pool(
    kind: str, key: str, limits: Limits | None = None, setup: Callable[[Worker], None] | None = None, size: int = 2
) -> Pool:
    """The pool of ``(kind, key)`` (e.g. an app's content hash), created on first use."""
    with _lock:
        pool = _pools.get((kind, key))
        if pool is None:
            pool = _pools[(kind, key)] = Pool(kind, limits or Limits(), setup, size)
        _pools.move_to_end((kind, key))
        # pools stay (they are small, and their users hold them); what is closed is their workers
        now = time.monotonic()
        live = [p for k, p in _pools.items() if k != (kind, key) and p.busy_or_warm]
        for p in live:
            if now - p.last_used > IDLE_S:
                p.close()
        live = sorted((p for p in live if p.busy_or_warm), key=lambda p: p.last_used)
        for p in live[: max(0, len(live) + 1 - MAX_POOLS)]:
            p.close()
        return pool


def close_all() -> None:
    with _lock:
        for pool in _pools.values():
            pool.close()
        _pools.clear()


atexit.register(close_all)
