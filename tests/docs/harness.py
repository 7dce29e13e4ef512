"""Parse the code blocks of a Markdown file with their ``<!-- docs: ... -->`` directives, and run them
in a sandbox that looks like a fresh clone after ``make demo`` (see ``tests/test_docs.py``)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "examples" / "README.md"]
RUNNABLE = {"bash", "python"}
NOT_CODE = {"json", "jsonc", "text", "jinja", "toml", "yaml", "markdown", "console", "diff"}
DEFAULT_TIMEOUT = 60.0
# what a fresh clone does not have yet; everything else is linked (``schemas`` is copied: ``make schemas`` writes it)
LEFT_OUT = {"runs", ".awm-gen", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", "dist", "build"}
COPIED = {"schemas"}

_DIRECTIVE = re.compile(r"<!--\s*docs:\s*(.*?)\s*-->", re.S)
_FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
_BACKGROUND = re.compile(r"(?<!&)&\s*(?:#.*)?$")
_PORT_FLAG = re.compile(r"--[\w-]*port[= ](\d+)\b")
# never run by the test, even by mistake: they change the machine (a `docs: skip` must say so)
_INSTALLS = re.compile(r"\b(pip3?|uv|npm|apt|apt-get|conda|brew)\b[^|;&]*\binstall\b|\bsudo\b")
# servers run until stopped: pasted as they are, they would hold the shell (and the test) forever
_LONG_RUNNING = re.compile(r"\b(awm|vllm|ollama) (serve|mcp|view)\b")
NESTED = "AWM_DOCS_TEST_NESTED"
# the venv the clone's ``.venv`` is (default: this checkout's): ``make test-adapters`` runs a trainer's README
# blocks in the venv that has its library (``.venv-verifiers`` ...), as a user who installed that extra would
VENV = Path(os.environ.get("AWM_DOCS_VENV") or ROOT / ".venv").absolute()
NOT_ON_PATH = {"awm", "python", "python3", "pip", "pip3", "pytest", "ruff", "mypy"}


@dataclass
class Command:
    text: str  # the logical command, continuation lines included
    line: int

    @property
    def background(self) -> bool:
        return bool(_BACKGROUND.search(self.text))

    @property
    def ports(self) -> list[int]:
        return [int(p) for p in _PORT_FLAG.findall(self.text)]


@dataclass
class Block:
    path: Path
    section: str
    index: int  # position among the runnable blocks of its section
    line: int
    lang: str
    text: str
    skip: str | None = None  # reason the whole block is not run
    skip_prefixes: dict[str, str] = field(default_factory=dict)  # command prefix -> reason
    slow: str | None = None
    requires: list[str] = field(default_factory=list)
    timeout: float = DEFAULT_TIMEOUT

    @property
    def runnable(self) -> bool:
        return self.lang in RUNNABLE

    @property
    def key(self) -> tuple[str, str]:
        return (str(self.path), self.section)

    @property
    def id(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.section.lower()).strip("-") or "top"
        return f"{self.path.relative_to(ROOT)}:{self.line}:{slug}"

    def commands(self) -> list[Command]:
        out: list[Command] = []
        pending: list[str] = []
        start = 0
        for n, raw in enumerate(self.text.splitlines(), self.line + 1):
            if not pending:
                if not raw.strip() or raw.lstrip().startswith("#"):
                    continue
                start = n
            pending.append(raw)
            if not raw.rstrip().endswith("\\"):
                out.append(Command("\n".join(pending), start))
                pending = []
        if pending:
            out.append(Command("\n".join(pending), start))
        return out

    def problems(self) -> list[str]:
        """Commands that must not run as written: not on a fresh shell's PATH, or installing packages."""
        out = []
        for cmd in self.commands() if self.lang == "bash" and self.skip is None else []:
            if self.skipped_because(cmd) is not None:
                continue
            words = cmd.text.split()
            if words and words[0] in NOT_ON_PATH:
                out.append(
                    f"{self.id}: `{words[0]}` is not on PATH in a fresh shell (.venv/bin/{words[0]}): {cmd.text}"
                )
            if _LONG_RUNNING.search(cmd.text) and not cmd.background and "<" not in cmd.text:
                out.append(f"{self.id}: runs until stopped; give it a background form (`... &`): {cmd.text}")
            if _INSTALLS.search(cmd.text):
                out.append(f"{self.id}: installs packages; mark it `<!-- docs: skip ... -->`: {cmd.text}")
        return out

    def skipped_because(self, cmd: Command) -> str | None:
        first = cmd.text.strip()
        return next((why for prefix, why in self.skip_prefixes.items() if first.startswith(prefix)), None)


def _reason(rest: str) -> str:
    reason = rest.strip().lstrip("—–-:").strip()
    return reason[1:-1].strip() if reason.startswith("(") and reason.endswith(")") else reason


def _apply(block: Block, directive: str, errors: list[str], where: str) -> None:
    word, _, rest = directive.partition(" ")
    if word == "skip":
        lead = re.match(r"\s*((?:`[^`]+`[\s,]*)*)(.*)", rest, re.S)
        assert lead is not None
        prefixes = re.findall(r"`([^`]+)`", lead.group(1))
        reason = _reason(lead.group(2))
        if not reason:
            errors.append(f"{where}: `docs: skip` needs a reason")
        if prefixes:
            block.skip_prefixes.update(dict.fromkeys(prefixes, reason))
        else:
            block.skip = reason
    elif word == "slow":
        block.slow = _reason(rest) or "slow"
    elif word == "requires":
        block.requires += [m for m in re.split(r"[\s,]+", rest) if m]
    elif word == "timeout":
        try:
            block.timeout = float(rest.split()[0])
        except (IndexError, ValueError):
            errors.append(f"{where}: `docs: timeout` needs a number of seconds")
    else:
        errors.append(f"{where}: unknown directive {directive!r} (skip, slow, requires, timeout)")


def parse(path: Path) -> tuple[list[Block], list[str]]:
    """Every fenced block of ``path`` with the directives written above it, and the format errors."""
    lines = path.read_text().splitlines()
    rel = path.relative_to(ROOT)
    blocks: list[Block] = []
    errors: list[str] = []
    pending: list[tuple[int, str]] = []  # directives waiting for their block
    section = ""
    counts: dict[str, int] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#") and not line.startswith("#!") and re.match(r"^#{1,2} ", line):
            if pending:
                errors.append(f"{rel}:{pending[0][0]}: a docs directive with no code block after it")
                pending = []
            section = line.lstrip("#").strip()
        for m in _DIRECTIVE.finditer(line):
            pending.append((i + 1, m.group(1)))
        fence = _FENCE.match(line)
        if fence:
            indent, lang = fence.groups()
            body: list[str] = []
            i += 1
            while i < len(lines) and not re.match(rf"^{indent}```\s*$", lines[i]):
                body.append(lines[i][len(indent) :])
                i += 1
            start = i - len(body)
            if not lang:
                errors.append(f"{rel}:{start}: a code block without a language (```bash, ```python, ```text, ...)")
            elif lang not in RUNNABLE and lang not in NOT_CODE:
                errors.append(f"{rel}:{start}: unknown code block language {lang!r}")
            block = Block(path, section, counts.get(section, 0), start, lang, "\n".join(body) + "\n")
            if block.runnable:
                counts[section] = block.index + 1
            for n, directive in pending:
                _apply(block, directive, errors, f"{rel}:{n}")
            if pending and not block.runnable:
                errors.append(f"{rel}:{pending[0][0]}: a docs directive above a block that does not run")
            pending = []
            blocks.append(block)
        i += 1
    if pending:
        errors.append(f"{rel}:{pending[0][0]}: a docs directive with no code block after it")
    return blocks, errors


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _kill_group(pgid: int) -> None:
    """SIGTERM a process group, then SIGKILL what is left after 5 s."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            os.killpg(pgid, 0)  # ProcessLookupError once the whole group is gone
            time.sleep(0.05)
        os.killpg(pgid, signal.SIGKILL)


_SCRIPT_HEAD = r"""set -eEo pipefail
trap 'echo "docs: exit status $? from: $BASH_COMMAND" >&2' ERR
__docs_wait_ports() {  # pid port...: wait until each port accepts connections, while pid lives
    local pid=$1 port i; shift
    for port in "$@"; do
        for i in $(seq 300); do
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue 2; fi
            kill -0 "$pid" 2>/dev/null || { echo "docs: the background command exited before port $port opened" >&2; return 1; }
            sleep 0.1
        done
        echo "docs: nothing listens on port $port after 30 s" >&2; return 1
    done
}
"""


class DocsRunner:
    """Runs blocks in a sandbox clone; background processes live until their section is left."""

    def __init__(self, sandbox: Path, blocks: list[Block]):
        self.sandbox = sandbox
        self.python = Path(sys.executable)
        self.by_section: dict[tuple[str, str], list[Block]] = {}
        for b in blocks:
            if b.runnable:
                self.by_section.setdefault(b.key, []).append(b)
        self.done: dict[tuple[str, str], int] = {}  # blocks of the section already run
        self.failed: dict[tuple[str, str], str] = {}
        self.ports: dict[tuple[str, str], dict[int, int]] = {}
        self.env_of: dict[tuple[str, str], dict[str, str]] = {}
        self.groups: dict[tuple[str, str], list[int]] = {}  # process groups holding background commands
        for entry in ROOT.iterdir():
            if entry.name in LEFT_OUT or entry.name == "__pycache__":
                continue
            if entry.name in COPIED:
                shutil.copytree(entry, sandbox / entry.name)
            elif entry.name == ".venv":
                (sandbox / ".venv").symlink_to(VENV)
            else:
                (sandbox / entry.name).symlink_to(entry)
        (sandbox / ".docs").mkdir()
        self.base_env = self._fresh_shell_env()

    def _fresh_shell_env(self) -> dict[str, str]:
        venv_bins = {
            str(ROOT / ".venv" / "bin"),
            str(VENV / "bin"),
            str(Path(sys.prefix) / "bin"),
            str(self.python.parent),
        }
        env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "AWM_PATH", "PYTHONPATH"}}
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p not in venv_bins)
        env["PYTHONUNBUFFERED"] = "1"
        env[NESTED] = "1"  # a README block that runs the test suite must not run these tests again
        env.setdefault("RAY_AUTH_MODE", "disabled")
        return env

    def close(self) -> None:
        for key in list(self.groups):
            self._stop(key)

    def _stop(self, key: tuple[str, str]) -> None:
        for pgid in self.groups.pop(key, []):
            _kill_group(pgid)

    def run(self, block: Block) -> None:
        """Run ``block`` (after the blocks before it in its section, if they have not run yet)."""
        key = block.key
        for other in list(self.groups):
            if other != key:
                self._stop(other)  # a section's servers live until another section runs
        if key not in self.ports:
            ports = sorted({p for b in self.by_section[key] for c in self._background(b) for p in c.ports})
            self.ports[key] = {p: _free_port() for p in ports}
        for earlier in self.by_section[key][self.done.get(key, 0) : block.index]:
            self.done[key] = earlier.index + 1
            # a block that is skipped or slow is no dependency of later ones: its own test reports it
            runs = earlier.slow is None and not earlier.problems() and self._why_not(earlier) is None
            if key not in self.failed and runs:
                self._run_once(earlier)
        if key in self.failed:
            pytest.fail(f"an earlier block of this section failed: {self.failed[key]}", pytrace=False)
        self.done[key] = block.index + 1
        if block.problems():
            pytest.fail("\n".join(block.problems()), pytrace=False)
        why = self._why_not(block)
        if why is not None:
            pytest.skip(f"{block.id}: {why}")
        self._run_once(block)

    def _why_not(self, block: Block) -> str | None:
        """Why ``block`` cannot run here, or None."""
        if block.skip is not None:
            return block.skip
        missing = [m for m in block.requires if find_spec(m) is None]
        if missing:
            return f"needs {', '.join(missing)} (not installed here)"
        uses_make = any(c.text.strip().startswith("make ") for c in block.commands() if not block.skipped_because(c))
        if block.lang == "bash" and uses_make:
            stale = subprocess.run(["make", "-q", ".venv/.installed"], cwd=ROOT, capture_output=True).returncode
            if stale:
                return ".venv is older than pyproject.toml; run `make install` first (make would reinstall here)"
        return None

    def _background(self, block: Block) -> list[Command]:
        return [c for c in block.commands() if c.background] if block.lang == "bash" else []

    def _run_once(self, block: Block) -> None:
        error = self._execute(block)
        if error is not None:
            self.failed[block.key] = f"{block.id} ({error.split(';')[0]})"
            pytest.fail(error, pytrace=False)

    def _remap(self, key: tuple[str, str], text: str) -> str:
        for old, new in self.ports.get(key, {}).items():
            text = re.sub(rf"(?:(?<=:)|(?<=port[ =])){old}(?!\d)", str(new), text)
        return text

    def _execute(self, block: Block) -> str | None:
        """Run ``block``; None, or what went wrong with the end of its output."""
        key = block.key
        log = self.sandbox / ".docs" / f"{block.path.stem}-{block.line}.log"
        env = dict(self.env_of.get(key, self.base_env))
        if block.lang == "python":
            script = self.sandbox / ".docs" / f"{block.path.stem}-{block.line}.py"
            script.write_text(self._remap(key, block.text))
            argv = [str(VENV / "bin" / "python"), str(script)]
        else:
            argv = ["bash", str(self._bash_script(block, key))]
        with log.open("wb") as out:
            proc = subprocess.Popen(
                argv, cwd=self.sandbox, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
            try:
                rc = proc.wait(timeout=block.timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                rc = None
        if self._background(block):
            self.groups.setdefault(key, []).append(proc.pid)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # nothing of a foreground block outlives it
        if rc != 0:
            tail = log.read_text(errors="replace")[-4000:]
            what = f"timed out after {block.timeout:.0f} s" if rc is None else f"exited {rc}"
            return f"{what}; the end of its output:\n{tail}"
        dump = self.sandbox / ".docs" / "env"
        if block.lang == "bash" and dump.exists():
            pairs = (item.split("=", 1) for item in dump.read_bytes().decode(errors="replace").split("\0") if item)
            self.env_of[key] = {k: v for k, v in pairs if k not in {"PWD", "OLDPWD", "SHLVL", "_"}}
            dump.unlink()
        return None

    def _bash_script(self, block: Block, key: tuple[str, str]) -> Path:
        parts = [_SCRIPT_HEAD]
        for cmd in block.commands():
            why = block.skipped_because(cmd)
            if why is not None:
                parts.append(f"# docs: not run ({why}): {cmd.text.splitlines()[0]}")
                continue
            text = self._remap(key, cmd.text)
            parts.append(text)
            if cmd.background:
                ports = [self.ports[key].get(p, p) for p in cmd.ports]
                parts.append(f"__docs_wait_ports $! {' '.join(map(str, ports))}")
        parts.append(f'env -0 > "{self.sandbox}/.docs/env"')
        script = self.sandbox / ".docs" / f"{block.path.stem}-{block.line}.sh"
        script.write_text("\n".join(parts) + "\n")
        return script
