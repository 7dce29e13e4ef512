"""What every stage shares: the environment under construction (``Draft``), the stage contract
(``Stage``) and the helpers that render earlier outputs into prompts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel

from awm.bundle.loader import dump_jsonl
from awm.bundle.records import Manifest, Provenance, SeedData, Task, TaskVerifier
from awm.gen.jsonparse import parse_output
from awm.gen.records import ScenarioIdea, ScenarioOut
from awm.gen.sandbox import Sandbox

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class Limits:
    """What a sound environment must look like (configurable from the command line)."""

    tasks: int = 6  # tasks asked for (compact profile)
    min_tasks: int = 3  # fewer than this after dropping unverifiable tasks: reject
    max_tables: int = 20
    max_seed_rows: int = 2000
    max_tools: int = 40
    # the catalog profile (the bar of envs/README.md and ``awm stats --check``)
    min_tables: int = 14
    min_tools: int = 30
    min_write_tools: int = 8
    templates: int = 14  # templates asked for
    min_templates: int = 12  # fewer than this after dropping failing templates: reject
    min_per_kind: int = 4  # templates (and so fixed tasks) of each kind
    min_world_rows: int = 200  # rows of the small seed-0 world
    max_world_rows: int = 5000
    large_factor: int = 5  # the large world has at least this many times the small one's rows
    validate_seeds: int = 5  # built worlds every template is validated on (audit included)
    blind_seeds: int = 20  # worlds the blind-constant check draws from (enough to judge every template)
    cover_seeds: tuple[int, int] = (40, 15)  # every template has instances in these small / distractor worlds


@dataclass
class Draft:
    """The environment under construction. ``staging`` is a registry root (``envs/`` + ``verifiers/``)."""

    idea: ScenarioIdea
    key: str
    staging: Path
    scenario: ScenarioOut | None = None
    env_id: str = ""
    tasks: list[Task] = field(default_factory=list)
    schema_sql: str = ""
    seed: SeedData | None = None
    tools_py: str = ""
    world_py: str = ""
    world_rows: dict[str, int] = field(default_factory=dict)  # rows per table of the seed-0 world
    templates: list[Any] = field(default_factory=list)  # TemplatePair records (catalog profile)
    tool_specs: list[dict[str, Any]] = field(default_factory=list)
    verifiers: list[TaskVerifier] = field(default_factory=list)
    dropped_tasks: list[str] = field(default_factory=list)

    @property
    def env_dir(self) -> Path:
        return self.staging / "envs" / self.env_id

    @property
    def verifier_dir(self) -> Path:
        return self.staging / "verifiers" / self.env_id

    def write(self, name: str, text: str) -> None:
        folder = self.verifier_dir if name == "verifiers.jsonl" else self.env_dir
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")

    def write_tasks(self) -> None:
        self.write("tasks.jsonl", dump_jsonl([t.model_dump(mode="json", exclude_defaults=True) for t in self.tasks]))

    def write_manifest(self, provenance: Provenance) -> Manifest:
        s = self.scenario
        assert s is not None
        default = next((t.id for t in self.tasks if t.kind != "information"), self.tasks[0].id if self.tasks else None)
        manifest = Manifest(
            id=self.env_id,
            title=s.title,
            description=s.description,
            clock=s.clock,
            default_task=default,
            tags=[*s.tags, "generated"] if "generated" not in s.tags else list(s.tags),
            provenance=provenance,
            trusted=False,  # generated code runs sandboxed until a person reviews it (awm.isolation)
        )
        self.write("env.json", manifest.model_dump_json(indent=2, exclude_none=True) + "\n")
        return manifest

    def write_verifiers(self) -> None:
        self.write(
            "verifiers.jsonl", dump_jsonl([v.model_dump(mode="json", exclude_defaults=True) for v in self.verifiers])
        )


@dataclass
class StageEnv:
    """What checks may use besides the draft: limits, the sandbox, ids already taken."""

    limits: Limits
    sandbox: Sandbox
    taken_ids: set[str]


class Stage(Generic[T]):
    """One generation step: prompt values from the draft, a typed output, checks, and where it goes."""

    name: ClassVar[str]
    prompt: ClassVar[str | None] = None  # the template file, generators/<prompt>.md (default: the name)
    output: type[T]

    @classmethod
    def prompt_name(cls) -> str:
        return cls.prompt or cls.name

    def values(self, draft: Draft, env: StageEnv) -> dict[str, str]:
        raise NotImplementedError

    def parse(self, text: str) -> T:
        return parse_output(text, self.output)

    async def check(self, out: T, draft: Draft, env: StageEnv) -> list[str]:
        """Problems with ``out`` (empty: it passed). May write candidate files into the staging folder."""
        raise NotImplementedError

    def apply(self, out: T, draft: Draft, env: StageEnv) -> None:
        raise NotImplementedError

    async def salvage(self, out: T, problems: list[str], draft: Draft, env: StageEnv) -> bool:
        """Last chance after the final attempt failed (e.g. drop unverifiable tasks). True: accepted."""
        return False


# -- prompt blocks ----------------------------------------------------------------------------------
def scenario_block(draft: Draft) -> str:
    s = draft.scenario
    assert s is not None
    return (
        f"id: {draft.env_id}\ntitle: {s.title}\ndescription: {s.description}\n"
        f"clock (the world's frozen 'now'): {s.clock.isoformat()}"
    )


def tasks_block(tasks: Sequence[Task]) -> str:
    return "\n".join(json.dumps(t.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False) for t in tasks)


def seed_block(seed: SeedData | None, max_rows: int = 40, max_chars: int | None = None) -> str:
    if seed is None:
        return "{}"
    lines = []
    for table, rows in seed.tables.items():
        lines.append(f"-- {table}: {len(rows)} rows" + (f" (first {max_rows} shown)" if len(rows) > max_rows else ""))
        for r in rows[:max_rows]:
            line = json.dumps(r, ensure_ascii=False)
            lines.append(line if max_chars is None or len(line) <= max_chars else line[: max_chars - 4] + " ...")
    return "\n".join(lines)


def tools_block(specs: Sequence[dict[str, Any]]) -> str:
    out = []
    for s in specs:
        params = s.get("parameters", {})
        props = params.get("properties", {})
        required = set(params.get("required", []))
        args = ", ".join(f"{p}{'' if p in required else '?'}: {_type(schema)}" for p, schema in props.items())
        kind = "write" if s.get("write") else "read"
        out.append(f"- {s['name']}({args}) [{kind}]: {s.get('description', '')}")
    return "\n".join(out)


def _type(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " | ".join(_type(b) for b in schema["anyOf"])
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if schema.get("type") == "array":
        return f"list[{_type(schema.get('items', {}))}]"
    return str(schema.get("type", "any"))
