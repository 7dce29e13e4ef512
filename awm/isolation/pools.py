"""The process's worker pools, one per piece of untrusted code, closed when idle ones pile up and at exit."""

from __future__ import annotations

import atexit
import threading
from collections import OrderedDict
from collections.abc import Callable

from awm.isolation.sandbox import Limits
from awm.isolation.worker import Pool, Worker

MAX_POOLS = 64  # pools kept; the least recently used idle ones beyond are closed (their workers end)
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
        while len(_pools) > MAX_POOLS:
            _, old = _pools.popitem(last=False)
            old.close()
        return pool


def close_all() -> None:
    with _lock:
        for pool in _pools.values():
            pool.close()
        _pools.clear()


atexit.register(close_all)
