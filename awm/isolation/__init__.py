"""Isolation of code we did not write: imported AWM apps and verifiers, and generated tools and world
builders, run in sandboxed worker processes.

The boundary is the operating system, not Python: each worker is a bubblewrap process with no
network, no other process in sight, no file but read-only Python libraries and a private scratch
tmpfs, an unprivileged uid, a seccomp filter (no new programs or processes, no sockets but
``AF_UNIX``) and limits on memory, CPU and wall time (``sandbox``). The verdict, the episode's
bookkeeping and the rewards stay in the parent; the worker exchanges only JSON messages and raw
database images with it (``guest/protocol.py``), and runs the SQL it needs through the parent
(``guest/dbproxy.py``), which applies its own authorizer and time limit to every statement.

Each piece of code gets its own pool of workers (``pools.get``), so a hostile or broken environment
can only slow itself; idle pools beyond ``MAX_POOLS`` are closed, least recently used first.

    awm.isolation
    ├── sandbox   the bwrap command line, rlimits, who the worker runs as
    ├── worker    Worker (one process, its pipes, deadlines, kill + restart), Pool
    ├── pools     the process-wide pools by key, LRU-closed, closed at exit
    ├── generated untrusted tools.py: each tool a request to a worker (``isolated_tools``)
    ├── worlds    untrusted world.py: each build a request to a worker (``build_isolated``)
    └── guest/    what runs inside: protocol, seccomp, determinism, dbproxy, app, verifier, main
"""

from awm.isolation.pools import close_all, get_pool
from awm.isolation.sandbox import INSTALL_HINT, Limits, available
from awm.isolation.worker import IsolationError, Pool, Worker, WorkerCrashed, WorkerTimeout

__all__ = [
    "INSTALL_HINT",
    "IsolationError",
    "Limits",
    "Pool",
    "Worker",
    "WorkerCrashed",
    "WorkerTimeout",
    "available",
    "close_all",
    "get_pool",
]
