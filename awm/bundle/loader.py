"""Reads a bundle's files from disk into records, collecting every problem instead of stopping at one."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from awm.bundle.records import Manifest, SeedData, Task, TaskTemplate, TaskVerifier, VerifierTemplate
from awm.errors import BundleError

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class BundleFiles:
    manifest: Manifest
    schema_sql: str
    seed: SeedData
    tools_path: Path
    tasks: list[Task]
    verifiers: list[TaskVerifier]
    env_dir: Path
    verifier_dir: Path
    templates: list[TaskTemplate] = dataclasses.field(default_factory=list)
    verifier_templates: list[VerifierTemplate] = dataclasses.field(default_factory=list)
    builder_path: Path | None = None  # world.py: builds randomized initial worlds


def _short(err: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'record'}: {e['msg']}" for e in err.errors()[:5])


def _read_json(path: Path, model: type[T], problems: list[str]) -> T | None:
    try:
        return model.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        problems.append(f"missing {path.name}")
    except ValidationError as e:
        problems.append(f"{path.name}: {_short(e)}")
    return None


def _read_jsonl(path: Path, model: type[T], problems: list[str]) -> list[T]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        problems.append(f"missing {path.name}")
        return []
    out = []
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            out.append(model.model_validate_json(line))
        except ValidationError as e:
            problems.append(f"{path.name} line {i}: {_short(e)}")
    return out


def read_manifest(env_dir: Path) -> Manifest:
    problems: list[str] = []
    m = _read_json(env_dir / "env.json", Manifest, problems)
    if m is None:
        raise BundleError(env_dir.name, problems)
    if m.id != env_dir.name:
        raise BundleError(env_dir.name, [f"env.json id {m.id!r} differs from the folder name {env_dir.name!r}"])
    return m


def read_bundle(env_dir: Path, verifier_dir: Path) -> BundleFiles:
    """All records of one bundle, or ``BundleError`` listing every problem found."""
    problems: list[str] = []
    name = env_dir.name
    manifest = _read_json(env_dir / "env.json", Manifest, problems)
    if manifest is not None and manifest.id != name:
        problems.append(f"env.json id {manifest.id!r} differs from the folder name {name!r}")
    try:
        schema_sql = (env_dir / "schema.sql").read_text(encoding="utf-8")
    except FileNotFoundError:
        problems.append("missing schema.sql")
        schema_sql = ""
    seed = _read_json(env_dir / "seed.json", SeedData, problems)
    tools_path = env_dir / "tools.py"
    if not tools_path.is_file():
        problems.append("missing tools.py")
    tasks = _read_jsonl(env_dir / "tasks.jsonl", Task, problems)
    if not verifier_dir.is_dir():
        problems.append(f"missing verifier folder {verifier_dir}")
        verifiers: list[TaskVerifier] = []
    else:
        verifiers = _read_jsonl(verifier_dir / "verifiers.jsonl", TaskVerifier, problems)
    task_ids = [t.id for t in tasks]
    ver_ids = [v.task_id for v in verifiers]
    for dup in sorted({t for t in task_ids if task_ids.count(t) > 1}):
        problems.append(f"task id {dup!r} appears twice in tasks.jsonl")
    for dup in sorted({t for t in ver_ids if ver_ids.count(t) > 1}):
        problems.append(f"task id {dup!r} appears twice in verifiers.jsonl")
    for t in sorted(set(task_ids) - set(ver_ids)):
        problems.append(f"task {t!r} has no verifier")
    for t in sorted(set(ver_ids) - set(task_ids)):
        problems.append(f"verifier for unknown task {t!r}")
    if not tasks and (env_dir / "tasks.jsonl").is_file():
        problems.append("tasks.jsonl holds no task")
    if manifest and manifest.default_task and manifest.default_task not in task_ids:
        problems.append(f"default_task {manifest.default_task!r} is not a task id")
    templates: list[TaskTemplate] = []
    verifier_templates: list[VerifierTemplate] = []
    if (env_dir / "templates.jsonl").is_file() or (verifier_dir / "templates.jsonl").is_file():
        templates = _read_jsonl(env_dir / "templates.jsonl", TaskTemplate, problems)
        verifier_templates = _read_jsonl(verifier_dir / "templates.jsonl", VerifierTemplate, problems)
    builder = env_dir / "world.py"
    if problems or manifest is None or seed is None:
        raise BundleError(name, problems)
    return BundleFiles(
        manifest,
        schema_sql,
        seed,
        tools_path,
        tasks,
        verifiers,
        env_dir,
        verifier_dir,
        templates,
        verifier_templates,
        builder if builder.is_file() else None,
    )


def import_file(path: Path, name: str) -> ModuleType:
    """Execute a bundle's Python file (``tools.py``, ``world.py``) as module ``name``, registered in
    ``sys.modules`` (pydantic and dataclasses resolve annotations through it). Raises what the file raises."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    # compiled from the bytes on disk now, never from a __pycache__ entry: bytecode caches are validated by
    # mtime and size, so a file rewritten within the same second at the same length would run its old code
    code = compile(Path(path).read_bytes(), str(path), "exec", dont_inherit=True)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec(code, module.__dict__)  # the bundle's own module, run as exec_module would run it
    return module


def dump_jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
