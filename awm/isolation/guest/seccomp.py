"""A seccomp filter the worker installs on itself before it runs any code we did not write.

Denied (EPERM): new programs and processes (``execve``, ``execveat``, ``fork``, ``vfork``, ``clone``
without ``CLONE_THREAD``), sockets other than ``AF_UNIX`` (asyncio's self-pipe needs those; the
network namespace has no interface anyway), ``ptrace`` and cross-process memory access, mounts,
namespaces, ``bpf``, ``perf_event_open``, keyrings, ``userfaultfd``, ``io_uring`` (it bypasses
seccomp), modules, ``kexec``, ``reboot``, handle-based opens. ``clone3`` answers ENOSYS so glibc
falls back to ``clone``, whose flags a filter can read. Another architecture than the one the
filter was built for kills the process (no 32-bit or x32 entry points). Thread creation, file
reads inside the sandbox's own view and everything else Python needs stay allowed.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

# fmt: off
_ARCH = {
    "x86_64": (
        0xC000003E,
        {
            "execve": 59,
            "execveat": 322,
            "fork": 57,
            "vfork": 58,
            "ptrace": 101,
            "mount": 165,
            "umount2": 166,
            "pivot_root": 155,
            "chroot": 161,
            "unshare": 272,
            "setns": 308,
            "bpf": 321,
            "perf_event_open": 298,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "keyctl": 250,
            "add_key": 248,
            "request_key": 249,
            "userfaultfd": 323,
            "kexec_load": 246,
            "kexec_file_load": 320,
            "init_module": 175,
            "finit_module": 313,
            "delete_module": 176,
            "open_by_handle_at": 304,
            "name_to_handle_at": 303,
            "ioperm": 173,
            "iopl": 172,
            "reboot": 169,
            "swapon": 167,
            "swapoff": 168,
            "acct": 163,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "personality": 135,
            "socket": 41,
            "clone": 56,
            "clone3": 435,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "execve": 221,
            "execveat": 281,
            "ptrace": 117,
            "mount": 40,
            "umount2": 39,
            "pivot_root": 41,
            "chroot": 51,
            "unshare": 97,
            "setns": 268,
            "bpf": 280,
            "perf_event_open": 241,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "keyctl": 219,
            "add_key": 217,
            "request_key": 218,
            "userfaultfd": 282,
            "kexec_load": 104,
            "kexec_file_load": 294,
            "init_module": 105,
            "finit_module": 273,
            "delete_module": 106,
            "open_by_handle_at": 265,
            "name_to_handle_at": 264,
            "reboot": 142,
            "swapon": 224,
            "swapoff": 225,
            "acct": 89,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "personality": 92,
            "socket": 198,
            "clone": 220,
            "clone3": 435,
        },
    ),
}
# fmt: on
_SPECIAL = {"socket", "clone", "clone3"}

_LD_W_ABS, _JEQ_K, _JSET_K, _RET_K = 0x20, 0x15, 0x45, 0x06
_ALLOW, _KILL_PROCESS, _ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_OFF_NR, _OFF_ARCH, _OFF_ARG0 = 0, 4, 16  # struct seccomp_data; arg0's low 32 bits (little-endian)
_AF_UNIX, _CLONE_THREAD, _X32_BIT = 1, 0x00010000, 0x40000000
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2


class SeccompError(Exception):
    """The filter could not be installed (the worker refuses to run untrusted code then)."""


def _ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes:
    """The filter as raw ``struct sock_filter`` instructions for this machine's architecture."""
    machine = machine or platform.machine()
    if machine not in _ARCH:
        raise SeccompError(f"no seccomp filter for architecture {machine!r}")
    arch, nrs = _ARCH[machine]
    deny = _ERRNO | errno.EPERM
    out = [_ins(_LD_W_ABS, _OFF_ARCH), _ins(_JEQ_K, arch, 1, 0), _ins(_RET_K, _KILL_PROCESS), _ins(_LD_W_ABS, _OFF_NR)]
    if machine == "x86_64":
        out += [_ins(_JSET_K, _X32_BIT, 0, 1), _ins(_RET_K, _KILL_PROCESS)]
    for name, nr in nrs.items():
        if name not in _SPECIAL:
            out += [_ins(_JEQ_K, nr, 0, 1), _ins(_RET_K, deny)]
    out += [_ins(_JEQ_K, nrs["clone3"], 0, 1), _ins(_RET_K, _ERRNO | errno.ENOSYS)]
    for name, test, ok in (("socket", _JEQ_K, _AF_UNIX), ("clone", _JSET_K, _CLONE_THREAD)):
        out += [
            _ins(_JEQ_K, nrs[name], 0, 4),
            _ins(_LD_W_ABS, _OFF_ARG0),
            _ins(test, ok, 0, 1),
            _ins(_RET_K, _ALLOW),
            _ins(_RET_K, deny),
        ]
    out.append(_ins(_RET_K, _ALLOW))
    return b"".join(out)


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


_PR_SET_DUMPABLE = 4


def undumpable() -> None:
    """No other process of the sandbox's uid may ptrace this one or read its memory through /proc."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise SeccompError(f"prctl(DUMPABLE) failed: errno {ctypes.get_errno()}")


def install() -> None:
    """Install the filter on this (single-threaded) process; raises ``SeccompError`` if the kernel refuses."""
    code = program()
    buf = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SeccompError(f"prctl(NO_NEW_PRIVS) failed: errno {ctypes.get_errno()}")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise SeccompError(f"prctl(SECCOMP) failed: errno {ctypes.get_errno()}")
