"""The generator's private folder inside an output root, and atomic commits into ``envs/`` + ``verifiers/``.

``<root>/.awm-gen/`` holds ``staging/`` (environments being built; each is itself a registry root),
``rejected/`` (the last candidate of each rejected environment, for inspection), ``cache/`` (LLM
responses), ``jobs/`` (one state file per finished job), ``batch.json`` (what ``--resume`` continues)
and ``report.json``. A lock file keeps two runs off the same root.

Commit protocol: the staging folder gets a ``COMMIT`` journal naming the environment, then
``verifiers/<env>`` and ``envs/<env>`` are renamed into place (same file system: each rename is
atomic; the registry finds environments through ``envs/``, so the judge lands first), then the
staging folder is removed. ``recover()`` at the start of every run rolls forward a commit that a
crash interrupted and deletes every other staging folder, so an interrupted run leaves ``envs/`` and
``verifiers/`` as they were, plus complete environments only.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from awm.errors import AwmError

WORKDIR = ".awm-gen"


class WorkspaceError(AwmError):
    """The output root is busy (another run holds it) or an environment name is already taken."""


def resolve_root(out: str | os.PathLike[str]) -> Path:
    """``--out envs/`` means the root above it; any other folder is the root itself."""
    path = Path(out).expanduser().resolve()
    return path.parent if path.name == "envs" else path


class Workspace:
    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root)
        self.dir = self.root / WORKDIR
        self.staging = self.dir / "staging"
        self.rejected = self.dir / "rejected"
        self.jobs = self.dir / "jobs"
        self.cache = self.dir / "cache"
        self.batch_file = self.dir / "batch.json"
        self.report_file = self.dir / "report.json"

    # -- locking and recovery ----------------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        self.dir.mkdir(parents=True, exist_ok=True)
        import fcntl

        with open(self.dir / "lock", "a+") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise WorkspaceError(f"another `awm gen` run is using {self.root}; wait for it to finish") from None
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def recover(self) -> list[str]:
        """Finish interrupted commits, delete abandoned staging folders. Returns what was done."""
        done: list[str] = []
        if not self.staging.is_dir():
            return done
        for folder in sorted(self.staging.iterdir()):
            journal = folder / "COMMIT"
            if journal.is_file():
                env = self._finish(folder)
                done.append(f"completed the interrupted commit of {env}")
            else:
                shutil.rmtree(folder, ignore_errors=True)
                done.append(f"removed unfinished staging folder {folder.name}")
        return done

    # -- staging and commit ------------------------------------------------------------------------
    def new_staging(self, key: str) -> Path:
        folder = self.staging / f"{key}-{uuid.uuid4().hex[:6]}"
        folder.mkdir(parents=True)
        return folder

    def existing_envs(self) -> set[str]:
        names: set[str] = set()
        for sub in ("envs", "verifiers"):
            d = self.root / sub
            if d.is_dir():
                names |= {p.name for p in d.iterdir() if p.is_dir()}
        return names

    def commit(self, staging: Path, env: str) -> Path:
        """Move a validated environment into place (see the module docstring). Returns ``envs/<env>``."""
        for sub in ("envs", "verifiers"):
            if not (staging / sub / env).is_dir():
                raise WorkspaceError(f"staging folder {staging} has no {sub}/{env}")
            if (self.root / sub / env).exists():
                raise WorkspaceError(f"{sub}/{env} already exists in {self.root}")
        for sub in ("envs", "verifiers"):
            (self.root / sub).mkdir(exist_ok=True)
        journal = staging / "COMMIT"
        with open(journal, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"env": env}))
            fh.flush()
            os.fsync(fh.fileno())
        _fsync_dir(staging)
        self._finish(staging)
        return self.root / "envs" / env

    def _finish(self, staging: Path) -> str:
        env = json.loads((staging / "COMMIT").read_text(encoding="utf-8"))["env"]
        for sub in ("verifiers", "envs"):  # the judge first: the registry discovers envs/
            src, dst = staging / sub / env, self.root / sub / env
            if src.is_dir() and not dst.exists():
                dst.parent.mkdir(exist_ok=True)
                os.rename(src, dst)
                _fsync_dir(dst.parent)
        shutil.rmtree(staging, ignore_errors=True)
        return str(env)

    def discard(self, staging: Path, keep_as: str | None = None) -> Path | None:
        """Drop a staging folder; with ``keep_as``, move it to ``rejected/<keep_as>`` for inspection."""
        if not staging.exists():
            return None
        if keep_as:
            dst = self.rejected / keep_as
            shutil.rmtree(dst, ignore_errors=True)
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.rename(staging, dst)
            return dst
        shutil.rmtree(staging, ignore_errors=True)
        return None

    # -- batch and job state -----------------------------------------------------------------------
    def save_batch(self, batch: dict[str, Any]) -> None:
        _write_json(self.batch_file, batch)

    def load_batch(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self.batch_file.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        return data if isinstance(data, dict) else None

    def job_state(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads((self.jobs / f"{key}.json").read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        return data if isinstance(data, dict) else None

    def save_job_state(self, key: str, state: dict[str, Any]) -> None:
        _write_json(self.jobs / f"{key}.json", state)


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
