"""The operating-system boundary: how a worker process is started (bubblewrap, rlimits, an unprivileged user).

``command(kind)`` is the argv of one worker: ``bwrap`` with new user, PID, network, IPC, UTS and
cgroup namespaces (no network interface, no other process visible), uid/gid 65534 inside, every
capability dropped, no further user namespaces, a new session (no terminal injection), killed
with its parent; a filesystem that holds only read-only binds of ``/usr`` (the C libraries),
the Python installation and the virtual environment's packages, the worker's own code at
``/awm-guest`` (kinds ``tools`` and ``world``: also two files of the package at ``/awm-pkg/awm``),
a fresh ``/proc`` and minimal ``/dev``, and a private size-capped tmpfs ``/tmp`` as its only
writable place. No ``/etc``, no home, no project checkout, no bundle: the code it runs
and the data it needs arrive as messages. The environment is cleared.

``preexec_limits`` sets what bwrap and the worker inherit: address space, CPU seconds over the
worker's life, file size, open files, no core dumps. When the parent is root, bwrap itself runs as
uid/gid 65534 too (``user=``/``group=`` of ``subprocess``), so the sandbox is unprivileged on the
host as well, not only inside its namespace.

The worker then installs its own seccomp filter (``guest/seccomp.py``) before running anything.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import site
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GUEST_DIR = Path(__file__).with_name("guest")
GUEST_MOUNT = "/awm-guest"
PKG_DIR = Path(__file__).resolve().parents[1]  # the awm package
PKG_MOUNT = "/awm-pkg"
PKG_FILES = ("tooling", "errors.py")  # the tooling package: @tool, Db and the authors' vocabulary
WORLD_FILES = ("worldctx.py", "errors.py", "tooling")  # a builder's context, and what its ctx.tools imports
NOBODY = 65534


@dataclass(frozen=True)
class Limits:
    """Per-worker limits. ``call_s``: wall seconds per request before the worker is killed."""

    memory_bytes: int = 1 << 30
    cpu_s: int = 600  # CPU seconds over the worker's life; it is restarted after
    file_bytes: int = 64 << 20
    open_files: int = 128
    scratch_bytes: int = 64 << 20
    call_s: float = 10.0
    start_s: float = 30.0


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def available() -> bool:
    """Whether this machine can start a sandboxed worker (bubblewrap installed, Linux)."""
    return sys.platform.startswith("linux") and bwrap_path() is not None


INSTALL_HINT = (
    "imported and generated environments run in a bubblewrap sandbox, which this machine lacks: "
    "install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
)


def _python_roots() -> list[str]:
    """The folders the interpreter and its packages live in (read-only inside the sandbox)."""
    roots = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    for p in [sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")] + list(
        site.getsitepackages()
    ):
        if p:
            roots.add(os.path.realpath(p))
    exe = os.path.realpath(sys.executable)
    roots.add(os.path.dirname(os.path.dirname(exe)))
    # drop a root inside another, and anything /usr already covers
    ordered = sorted(roots, key=len)
    out: list[str] = []
    for r in ordered:
        if r.startswith("/usr/") or r == "/usr":
            continue
        if not any(r == o or r.startswith(o + "/") for o in out):
            out.append(r)
    return out


def command(kind: str, limits: Limits) -> list[str]:
    bwrap = bwrap_path()
    if bwrap is None:
        raise FileNotFoundError(INSTALL_HINT)
    argv = [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--uid",
        str(NOBODY),
        "--gid",
        str(NOBODY),
        "--hostname",
        "sandbox",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin",
        "--setenv",
        "PYTHONHASHSEED",
        "0",
        "--setenv",
        "DATABASE_PATH",
        "sqlite:////tmp/awm.db",
        "--setenv",
        "DATABASE_URL",
        "sqlite:////tmp/awm.db",
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    argv += _top_level()
    # the private /tmp first: a bind below it made before would be hidden by it (a clone or venv under /tmp)
    argv += ["--size", str(limits.scratch_bytes), "--tmpfs", "/tmp"]
    for root in _python_roots():
        argv += ["--ro-bind", root, root]
    argv += ["--ro-bind", str(GUEST_DIR), GUEST_MOUNT]
    # generated tools import awm.tooling, world builders awm.worldctx: that module and the error tree, nothing else
    for name in {"tools": PKG_FILES, "world": WORLD_FILES}.get(kind, ()):
        argv += ["--ro-bind", str(PKG_DIR / name), f"{PKG_MOUNT}/awm/{name}"]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--chdir", "/tmp"]
    argv += [interpreter(), "-I", "-B", f"{GUEST_MOUNT}/main.py", kind]
    return argv


def interpreter() -> str:
    """This interpreter by a path that exists inside the sandbox: ``sys.executable`` may reach the venv through
    a symlink (a clone's ``.venv`` linked from elsewhere, a path under ``/tmp``), and only the real folders are
    mounted. A venv's ``bin/python`` is kept (not resolved to the base interpreter), so the venv's packages load."""
    if sys.prefix != sys.base_prefix:
        exe = os.path.join(os.path.realpath(sys.prefix), "bin", os.path.basename(sys.executable))
        if os.path.exists(exe):
            return exe
    return os.path.realpath(sys.executable)


def _top_level() -> list[str]:
    """/bin, /lib and friends: symlinks into /usr on a merged-/usr system, read-only binds otherwise."""
    argv: list[str] = []
    for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(top):
            argv += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            argv += ["--ro-bind", top, top]
    return argv


def preexec_limits(limits: Limits) -> None:
    """Runs in the child between fork and exec: resource limits bwrap and the worker inherit."""
    for which, value in (
        (resource.RLIMIT_AS, limits.memory_bytes),
        (resource.RLIMIT_CPU, limits.cpu_s),
        (resource.RLIMIT_FSIZE, limits.file_bytes),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_CORE, 0),
    ):
        resource.setrlimit(which, (value, value))


def _traversable_by_others(path: str) -> bool:
    p = Path(path)
    for d in [p, *p.parents]:
        try:
            if not d.stat().st_mode & 0o001:
                return False
        except OSError:
            return False
    return True


def drop_privileges() -> dict[str, Any]:
    """``subprocess`` arguments that drop root before bwrap starts.

    Only when every folder the sandbox binds is reachable by an unprivileged user (a Python under
    ``/root``, as pyenv installs it, is not): otherwise bwrap runs as root and the worker is uid
    65534 inside its user namespace only, with no capability on the host (still no file but its
    binds, no network, no process, the seccomp filter). Nothing when the parent is not root.
    """
    if os.geteuid() != 0:
        return {}
    if not all(_traversable_by_others(r) for r in [*_python_roots(), str(GUEST_DIR)]):
        return {}
    drop = {"user": NOBODY, "group": NOBODY, "extra_groups": []}
    return drop if _unprivileged_bwrap_works(tuple(sorted(drop))) else {}


@functools.cache
def _unprivileged_bwrap_works(_key: tuple[str, ...]) -> bool:
    """Whether bwrap can make its namespaces as uid 65534 here (some kernels allow user namespaces to root only)."""
    bwrap = bwrap_path()
    if bwrap is None:
        return False
    argv = [bwrap, "--unshare-all", "--unshare-user", "--ro-bind", "/usr", "/usr", *_top_level(), "/usr/bin/true"]
    try:
        done = subprocess.run(argv, user=NOBODY, group=NOBODY, extra_groups=[], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
