"""A compiled environment: the seed database as a blob, the tools, and the tasks with their judges.

``World`` is built once per environment (milliseconds) and hands out isolated ``Episode`` objects
(microseconds each: one ``deserialize`` of the seed blob into a fresh in-memory database).
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import hashlib
import logging
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from awm.bundle.loader import BundleFiles, import_file
from awm.bundle.records import Manifest, Task, TaskKind, TaskVerifier, ToolSpec
from awm.errors import AwmError, BundleError, UnknownTaskError
from awm.isolation.code_checks import code_check_problems
from awm.judge import verify
from awm.judge.answers import AnswerSqlError, Expected, compute_expected, distractor_values
from awm.judge.frame import Frame, autokey_tables, declaration_problems, foreign_keys, free_map, predicate_problem
from awm.judge.rewards import RewardFn, RewardSpec
from awm.model.builders import build_seed
from awm.model.templates import (
    TemplateError,
    clock_slots,
    instance_id,
    instantiate,
    parse_instance_id,
    slot_rows,
    used_slots,
)
from awm.model.templates import join as join_templates
from awm.sql.checks import read_only_problem
from awm.sql.diff import EMPTY, TableInfo, capture_ddl, read_tables
from awm.sql.seeding import insert_seed
from awm.tooling import NONDETERMINISTIC, StatementPlan, ToolDef, quote
from awm.worldgen import WorldBuildError, WorldKey

_log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from awm.runtime.episode import Episode


@dataclass(frozen=True)
class CompiledTask:
    """A task joined with its verifier, plus what can be computed once from the initial state."""

    task: Task
    verifier: TaskVerifier
    expected: Expected | None  # the typed answer it must equal (None: the task has no answer)
    initial_checks: Mapping[str, bool]
    initial_progress: float
    needs_initial: bool  # some check reads the initial state (schema ``initial``)
    frame: Frame  # what the task may change: the gold solution's net diff plus declared exceptions

    @property
    def id(self) -> str:
        return self.task.id


MAX_BUILT_WORLDS = 256  # built worlds kept per environment (a small one holds ~0.2-0.5 MiB)
RESERVED_TOOLS = frozenset({"submit_answer", "list_tools", "call_tool"})  # actions every surface handles itself


def stable_int(*parts: object) -> int:
    """A seed derived with sha256 (never Python's salted hash)."""
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:8], "big")


class World:
    """One environment, compiled. Thread-safe to share; episodes are not."""

    def __init__(self, files: BundleFiles, *, key: WorldKey | None = None, tools: dict[str, ToolDef] | None = None):
        """``key`` None or canonical: the bundle's seed data and fixed tasks. Otherwise the world that
        ``world.py`` builds for the key, with no fixed tasks (they name canonical rows): template
        instances only. ``tools`` reuses another world's imported tools (same bundle)."""
        self.key = key or WorldKey()
        self.manifest: Manifest = files.manifest
        self.id = self.manifest.id
        self.version = self.manifest.version
        self.clock: datetime = self.manifest.clock
        self._canonical_files = files
        if not self.key.canonical:
            if files.builder_path is None:
                raise WorldBuildError(
                    f"{self.id} has no world builder (envs/{self.id}/world.py): only its canonical world"
                )
            # code nobody here reviewed (env.json "trusted": false) builds in a sandboxed worker, never here
            seed = build_seed(files.builder_path, self.key, self.clock, trusted=self.manifest.trusted)
            files = dataclasses.replace(files, seed=seed, tasks=[], verifiers=[])
        self.files = files
        problems: list[str] = []
        conn = self._build_seed(problems)
        self.tables: dict[str, TableInfo] = read_tables(conn) if conn else {}
        self.columns = {n: t.columns for n, t in self.tables.items()}
        self.cascades = _cascades(conn) if conn else {}
        self.capture = {n: capture_ddl(t) for n, t in self.tables.items()}
        self._startup_sql: list[str] = []  # tools.py's __awm_startup_sql__ (imported AWM apps' create_all)
        self.tools: dict[str, ToolDef] = tools if tools is not None else self._import_tools(problems)
        self._tool_params = {name: td.parameters.get("properties", {}) for name, td in self.tools.items()}
        if problems or conn is None:
            if not self.key.canonical:
                raise WorldBuildError(
                    f"{self.id} world {self.key.label} is not a valid database: " + "; ".join(problems)
                )
            raise BundleError(self.id, problems)
        self.seed_blob: bytes = conn.serialize()
        # where episodes start: the seed, plus what imported code creates when its server starts (AWM's
        # initial.db is the seed; its working database also has the tables the app's create_all adds)
        self.start_blob: bytes = self._startup_blob(self.seed_blob, problems)
        self.plans: dict[str, StatementPlan] = {}
        self.fks = foreign_keys(conn, self.tables)
        self.autokeys = autokey_tables(conn, self.tables)
        self.templates, template_problems = join_templates(files.templates, files.verifier_templates)
        problems += template_problems
        if self.key.canonical:
            problems += self._check_templates(conn)
            problems += [
                f"env.json log_tables: no table {t!r}" for t in self.manifest.log_tables if t not in self.tables
            ]
        self._lock = threading.RLock()
        self._parent: World | None = None  # a built world's canonical world
        self._variants: OrderedDict[WorldKey, World] = OrderedDict()
        self._building: dict[WorldKey, threading.Lock] = {}
        self.tasks: dict[str, CompiledTask] = self._compile_tasks(conn, problems)
        conn.close()
        if problems:
            raise BundleError(self.id, problems)
        self._derive_frames(problems)
        if problems:
            raise BundleError(self.id, problems)
        self.task_ids = [t.id for t in files.tasks]
        self.template_ids = list(self.templates)
        self._slot_rows: dict[str, tuple[list[str], list[tuple[Any, ...]]]] = {}
        self._attach_tools(self.tools)

    def _attach_tools(self, tools: dict[str, ToolDef]) -> None:
        """What the world derives from its tools, and its own locks and caches of built worlds."""
        self.tools = tools
        self._tool_params = {name: td.parameters.get("properties", {}) for name, td in tools.items()}
        self._lock = threading.RLock()
        self._parent = None
        self._variants = OrderedDict()
        self._building = {}
        self._specs = tuple(
            ToolSpec(name=t.name, description=t.description, write=t.write, parameters=t.parameters, actor=t.actor)
            for t in tools.values()
        )
        self._openai = [s.openai() for s in self._specs]

    # -- the compiled state, for awm.model.worldcache ---------------------------------------------------
    _TRANSIENT = frozenset({"tools", "_tool_params", "_lock", "_parent", "_variants", "_building", "_specs", "_openai"})

    def state(self) -> dict[str, Any]:
        """Everything compiling the canonical world produced, without the tools (code, imported on restore)
        or the locks and caches of a live world: picklable, and ``restore`` makes the same world of it."""
        if not self.key.canonical:
            raise ValueError("only a canonical world's compiled state is kept")
        return {k: v for k, v in vars(self).items() if k not in self._TRANSIENT}

    @classmethod
    def restore(cls, state: dict[str, Any]) -> World:
        """The world ``state()`` described, its ``tools.py`` imported again (``BundleError`` if it no longer
        imports)."""
        world = cls.__new__(cls)
        world.__dict__.update(state)
        problems: list[str] = []
        tools = world._import_tools(problems)
        if problems:
            raise BundleError(world.id, problems)
        world._attach_tools(tools)
        return world

    # -- public ---------------------------------------------------------------------------------
    def episode(
        self, task_id: str | None = None, seed: int = 0, reward: str | RewardSpec | RewardFn | None = None
    ) -> Episode:
        """A fresh, isolated episode. No ``task_id``: a task chosen from ``seed``."""
        from awm.runtime.episode import Episode

        return Episode(self, self.task(task_id, seed), seed=seed, reward=reward)

    def task(self, task_id: str | None = None, seed: int = 0) -> CompiledTask:
        if task_id is None:
            if not self.task_ids:
                return self.sample(seed)
            return self.tasks[self.task_ids[stable_int(self.id, seed) % len(self.task_ids)]]
        ct = self.tasks.get(task_id)
        if ct is not None:
            return ct
        inst = parse_instance_id(task_id)
        if inst is not None and inst[0] in self.templates and inst[1] == self.key.label:
            ct = self.instance(inst[0], inst[2], underspecified=inst[3])
            if ct.id == task_id:
                return ct
            rows = len(self._slot_rows[inst[0]][1])
            last = instance_id(inst[0], inst[1], rows - 1, inst[3])  # rows run 0 .. rows - 1 in this world
            raise UnknownTaskError(self.id, task_id, [instance_id(inst[0], inst[1], 0, inst[3]), last])
        known = self.task_ids + self.template_ids
        raise UnknownTaskError(self.id, task_id, difflib.get_close_matches(task_id, known, 3)) from None

    # -- template instances ---------------------------------------------------------------------
    def instance(self, template_id: str, pick: int, *, underspecified: bool = False) -> CompiledTask:
        """Instance ``pick`` of a template in this world, compiled like a fixed task (cached)."""
        try:
            t = self.templates[template_id]
        except KeyError:
            raise UnknownTaskError(
                self.id, template_id, difflib.get_close_matches(template_id, self.template_ids, 3)
            ) from None
        with self._lock:
            if template_id not in self._slot_rows:
                conn = self._initial_conn()
                try:
                    self._slot_rows[template_id] = slot_rows(conn, t, self.clock)
                finally:
                    conn.close()
            cols, rows = self._slot_rows[template_id]
            if not rows:
                raise TemplateError(
                    f"template {template_id!r} has no instance in {self.id} world {self.key.label}: "
                    "its slots query returns no row"
                )
            task_id = instance_id(template_id, self.key.label, pick % len(rows), underspecified)
            if task_id in self.tasks:
                return self.tasks[task_id]
            conn = self._initial_conn()
            try:
                inst = instantiate(
                    conn,
                    t,
                    self.key.label,
                    pick,
                    scale="canonical" if self.key.canonical else str(self.key.scale),
                    world_distractors=self.key.distractors,
                    underspecified=underspecified,
                    rows=(cols, rows),
                    clock=self.clock,
                )
                writes = sum(1 for c in inst.verifier.gold.calls if c.tool in self.tools and self.tools[c.tool].write)
                task = inst.task
                if task.difficulty is not None:
                    task = task.model_copy(
                        update={"difficulty": task.difficulty.model_copy(update={"write_steps": writes})}
                    )
                problems: list[str] = []
                ct = self._compile_one(conn, task, inst.verifier, problems)
            finally:
                conn.close()
            if ct is not None:
                ct = self._derive_frame(ct, problems)
            if problems or ct is None:
                raise TemplateError(f"{self.id} world {self.key.label}: {'; '.join(problems)}")
            self.tasks[task_id] = ct
            return ct

    def sample(
        self, seed: int, *, templates: Sequence[str] | None = None, underspecified: bool | None = None
    ) -> CompiledTask:
        """A template instance drawn from ``seed``: the template, the phrasing and the slot row."""
        pool = list(templates) if templates is not None else self.template_ids
        if underspecified:
            pool = [t for t in pool if self.templates[t].task.underspecified_instruction]
        if not pool:
            raise TemplateError(
                f"{self.id}: no template to draw from" + (" with an underspecified phrasing" if underspecified else "")
            )
        # the drawn template first; if it has no instance in this world (a rare world where the builder left
        # nothing to draw), the next ones in pool order: the same seed always gives the same task, and a
        # trainer's reset never fails while any template can be drawn (`awm validate --seeds` names the gap)
        first = stable_int(self.id, "template", seed) % len(pool)
        skipped: list[str] = []
        for k in range(len(pool)):
            tid = pool[(first + k) % len(pool)]
            vague = underspecified
            if vague is None:
                vague = (
                    bool(self.templates[tid].task.underspecified_instruction) and stable_int("phrasing", seed) % 2 == 1
                )
            try:
                return self.instance(tid, stable_int(self.id, "row", seed), underspecified=vague)
            except TemplateError as e:
                if k == 0:
                    _log.warning("%s (drawing the next template instead)", e)
                skipped.append(str(e))
        raise TemplateError(f"{self.id} world {self.key.label}: no template can be drawn: {'; '.join(skipped[:3])}")

    def _initial_conn(self) -> sqlite3.Connection:
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.deserialize(self.seed_blob)
        verify.attach_copy(conn, "initial", self.seed_blob)
        return conn

    def _check_templates(self, conn: sqlite3.Connection) -> list[str]:
        """Static checks on the canonical world: slot queries run and return every slot the template uses."""
        problems = []
        for t in self.templates.values():
            try:
                cols, _ = slot_rows(conn, t, self.clock)
            except TemplateError as e:
                problems.append(str(e))
                continue
            missing = sorted(used_slots(t) - set(cols) - set(clock_slots(self.clock)))
            if missing:
                problems.append(
                    f"template {t.id!r} uses slots its slots query does not return: {missing} (it returns {cols})"
                )
            if t.task.kind == TaskKind.information and t.task.answer is None:
                problems.append(f"template {t.id!r}: an information template declares the type of its answer")
            if (t.task.answer is None) != (t.verifier.answer is None):
                problems.append(
                    f"template {t.id!r}: a template with an answer type needs an answer check, and only such one"
                )
            for call in t.verifier.gold.calls:
                if call.tool not in self.tools:
                    problems.append(f"template {t.id!r} gold: unknown tool {call.tool!r}")
        return problems

    def _derive_frames(self, problems: list[str]) -> None:
        """Replay every gold solution once: its net diff is the task's expected change."""
        for tid, ct in list(self.tasks.items()):
            self.tasks[tid] = self._derive_frame(ct, problems)

    def _derive_frame(self, ct: CompiledTask, problems: list[str]) -> CompiledTask:
        """``write_frame: false`` (imported AWM tasks): no frame, the permissive one stays."""
        from awm.runtime.episode import Episode

        if not ct.verifier.write_frame:
            return ct

        ep = Episode(self, ct)
        for i, call in enumerate(ct.verifier.gold.calls):
            res = ep.call(call.tool, call.arguments)
            if not res.ok:
                assert res.error is not None
                problems.append(f"task {ct.id!r} gold call {i} ({call.tool}) fails: {res.error.message}")
                break
        net = ep.diff_from_initial()
        ep.close()
        v = ct.verifier
        frame = Frame(
            self.tables,
            net,
            free_map(v.free_columns),
            tuple(v.allowed_writes),
            self.fks,
            self.autokeys,
            logs=frozenset(self.manifest.log_tables),
        )
        return dataclasses.replace(ct, frame=frame)

    def variant(self, key: WorldKey) -> World:
        """The same environment on another initial world (tools shared, not re-imported).

        Built worlds are cached on the canonical world (the ``MAX_BUILT_WORLDS`` most recently used):
        each is built once per process; concurrent requests for one world wait for one build."""
        if key == self.key:
            return self
        if self._parent is not None:
            return self._parent.variant(key)
        with self._lock:
            if key in self._variants:
                self._variants.move_to_end(key)
                return self._variants[key]
            building = self._building.setdefault(key, threading.Lock())
        with building:
            with self._lock:
                if key in self._variants:
                    return self._variants[key]
            world = World(self._canonical_files, key=key, tools=self.tools)
            world._parent = self
            with self._lock:
                self._variants[key] = world
                self._building.pop(key, None)
                while len(self._variants) > MAX_BUILT_WORLDS:
                    self._variants.popitem(last=False)
            return world

    def resolve(self, task_id: str) -> tuple[World, CompiledTask]:
        """A task by id on its own world: a fixed task here, or an instance id (``template.world.row[.u]``)."""
        inst = parse_instance_id(task_id)
        world = self.variant(WorldKey.parse(inst[1])) if inst is not None else self
        return world, world.task(task_id)

    def tool_specs(self) -> list[ToolSpec]:
        """The tools as records (built once; the list is a fresh copy, the records are frozen)."""
        return list(self._specs)

    def openai_tools(self) -> list[dict[str, Any]]:
        """The OpenAI ``tools`` entries (a fresh deep copy: callers may change it)."""
        return copy.deepcopy(self._openai)

    @property
    def default_task(self) -> str:
        return self.manifest.default_task or self.task_ids[0]

    def __repr__(self) -> str:
        counts = f"{len(self.tables)} tables, {len(self.tools)} tools, {len(self.task_ids)} tasks"
        if self.templates:
            counts += f", {len(self.templates)} templates"
        if not self.key.canonical:
            counts += f", world {self.key.label}"
        return f"<World {self.id}-v{self.version}: {counts}>"

    @property
    def foreign_keys_pragma(self) -> str:
        """What every connection to this world's database runs first (the manifest's ``foreign_keys``)."""
        return f"PRAGMA foreign_keys = {'ON' if self.manifest.foreign_keys else 'OFF'}"

    # -- compilation ----------------------------------------------------------------------------
    def _build_seed(self, problems: list[str]) -> sqlite3.Connection | None:
        schema = self.files.schema_sql
        # imported code's SQL runs through the sandbox's SQL host, where 'now' is the frozen clock and
        # random() a seeded generator: a DEFAULT (random()) of AWM's DDL replays identically there
        imported = self.manifest.provenance.source == "imported"
        if (m := NONDETERMINISTIC.search(schema)) and not (imported and m.group(0).lower().startswith("random")):
            problems.append(f"schema.sql uses {m.group(0)!r}: the world must not read the wall clock or random()")
        conn = sqlite3.connect(":memory:", isolation_level=None)
        try:
            conn.executescript(schema)
        except sqlite3.Error as e:
            problems.append(f"schema.sql does not execute: {e}")
            return None
        conn.execute(self.foreign_keys_pragma)
        tables = read_tables(conn)
        if not tables:
            problems.append("schema.sql creates no table")
        source = "seed.json" if self.key.canonical else f"world.py ({self.key.label})"
        problems += [f"{source} {p}" for p in insert_seed(conn, self.files.seed, tables, max_problems=20)]
        fk_problems = conn.execute("PRAGMA foreign_key_check").fetchall()[:10] if self.manifest.foreign_keys else []
        for tbl, rowid, parent, _fk in fk_problems:
            problems.append(f"{source}: {tbl} row {rowid} references a missing {parent} row")
        reserved = [
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE name LIKE '\\_awm\\_%' ESCAPE '\\'")
        ]
        if reserved:
            problems.append(f"schema.sql: names starting with _awm_ are reserved: {reserved}")
        return conn

    def _import_tools(self, problems: list[str]) -> dict[str, ToolDef]:
        path = self.files.tools_path
        name = f"_awm_tools_{self.id}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
        if not self.manifest.trusted:  # code nobody here reviewed: it runs in a sandboxed worker
            from awm.isolation.generated import isolated_tools

            try:
                sandboxed = isolated_tools(path, name)
            except (AwmError, OSError) as e:
                problems.append(f"tools.py: {e}")
                return {}
            if not sandboxed:
                problems.append("tools.py defines no @tool function")
            for reserved in sorted(set(sandboxed) & RESERVED_TOOLS):
                problems.append(f"tools.py: the tool name {reserved!r} is reserved for the episode's own actions")
            return sandboxed
        try:
            module = import_file(path, name)
        except AwmError as e:
            problems.append(f"tools.py: {e}")
            return {}
        except Exception as e:  # untrusted module: any failure is a bundle problem
            problems.append(f"tools.py does not import: {type(e).__name__}: {e}")
            return {}
        startup = vars(module).get("__awm_startup_sql__", ())
        self._startup_sql = [q for q in startup if isinstance(q, str)] if isinstance(startup, (list, tuple)) else []
        tools: dict[str, ToolDef] = {}
        for obj in vars(module).values():
            td = getattr(obj, "__awm_tool__", None)
            if isinstance(td, ToolDef) and getattr(obj, "__module__", None) == name:
                tools[td.name] = td
        if not tools:
            problems.append("tools.py defines no @tool function")
        for reserved in sorted(set(tools) & RESERVED_TOOLS):
            problems.append(f"tools.py: the tool name {reserved!r} is reserved for the episode's own actions")
        return tools

    def _startup_blob(self, seed: bytes, problems: list[str]) -> bytes:
        sql = self._startup_sql
        if not sql:
            return seed
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.deserialize(seed)
        for statement in sql:
            if not re.match(r"\s*CREATE\s+(UNIQUE\s+)?(TABLE|INDEX)\b", statement, re.I):
                problems.append(f"startup SQL is not a CREATE TABLE or CREATE INDEX: {statement[:80]!r}")
                continue
            try:
                conn.execute(statement)
            except sqlite3.Error as e:
                problems.append(f"startup SQL {statement[:80]!r} fails: {e}")
        blob = conn.serialize()
        conn.close()
        return blob

    def _compile_tasks(self, conn: sqlite3.Connection, problems: list[str]) -> dict[str, CompiledTask]:
        verifiers = {v.task_id: v for v in self.files.verifiers}
        verify.attach_copy(conn, "initial", self.seed_blob)
        out = {}
        for task in self.files.tasks:
            ct = self._compile_one(conn, task, verifiers[task.id], problems)
            if ct is not None:
                out[task.id] = ct
        return out

    def _compile_one(
        self, conn: sqlite3.Connection, task: Task, v: TaskVerifier, problems: list[str]
    ) -> CompiledTask | None:
        """One task against the initial state (``conn``, with ``initial`` attached); None with problems."""
        where = f"task {task.id!r}"
        before = len(problems)
        for sql, what in _verifier_sql(v):
            if why := read_only_problem(sql):
                problems.append(f"{where} {what}: verifier SQL {why}")
            elif m := NONDETERMINISTIC.search(sql):
                problems.append(f"{where} {what}: verifier SQL uses {m.group(0)!r}; compare with literal dates")
        for w in v.allowed_writes:
            if w.table not in self.tables:
                problems.append(f"{where} allowed_writes: unknown table {w.table!r}")
                continue
            bad = [c for c in (w.columns or []) if c not in self.tables[w.table].columns]
            if bad:
                problems.append(f"{where} allowed_writes: {w.table} has no columns {bad}")
            if w.where and (why := predicate_problem(conn, w.where, self.tables[w.table].columns)):
                problems.append(f"{where} allowed_writes: where {w.where!r} does not run on {w.table}: {why}")
        problems += [
            f"{where} {p}"
            for p in declaration_problems(v.free_columns, v.free_arguments, self.columns, self._tool_params)
        ]
        for call in v.gold.calls:
            if call.tool not in self.tools:
                problems.append(f"{where} gold: unknown tool {call.tool!r}")
        if v.code is not None:
            problems += [f"{where} code verifier: {p}" for p in code_check_problems(self.files.verifier_dir, v.code)]
            if v.answer is not None:
                problems.append(f"{where}: a code verifier judges the answer itself; drop the answer check")
        elif not v.checks and v.answer is None:
            problems.append(f"{where}: a verifier needs checks, an answer check or a code check")
        if task.kind == TaskKind.information and task.answer is None:
            problems.append(f"{where}: an information task declares the type of its answer (tasks.jsonl 'answer')")
        if v.code is None and (task.answer is None) != (v.answer is None):
            problems.append(f"{where}: a task with an answer type needs an answer check, and only such a task")
        names = [c.name for c in v.checks]
        if len(set(names)) != len(names):
            problems.append(f"{where}: check names must be unique")
        if len(problems) > before:
            return None
        try:
            checks = verify.run_checks(conn, v.checks, strict=True)
            expected = compute_expected(conn, task.answer, v.answer) if task.answer and v.answer else None
            if v.answer is not None:
                distractor_values(conn, v.answer)  # a broken distractors_sql is the bundle's fault, named here
        except (verify.CheckSqlError, AnswerSqlError) as e:
            problems.append(f"{where}: {e}")
            return None
        return CompiledTask(
            task,
            v,
            expected,
            checks,
            verify.progress(v.checks, checks),
            any(re.search(r"\binitial\s*\.", c.sql, re.I) for c in v.checks),
            Frame(self.tables, EMPTY, permissive=True),
        )


def _verifier_sql(v: TaskVerifier) -> list[tuple[str, str]]:
    out = [(c.sql, f"check {c.name!r}") for c in v.checks]
    todo = [("answer", v.answer)] if v.answer is not None else []
    while todo:
        label, a = todo.pop()
        if a.sql:
            out.append((a.sql, label))
        if a.distractors_sql:
            out.append((a.distractors_sql, f"{label} distractors_sql"))
        todo += [(f"{label}.{k}", f) for k, f in (a.fields or {}).items()]
    for i, w in enumerate(v.allowed_writes):
        if w.where:
            out.append((f"SELECT 1 WHERE {w.where}", f"allowed_writes[{i}].where"))
    return out


def _cascades(conn: sqlite3.Connection) -> dict[str, frozenset[str]]:
    """parent table -> child tables that a write to the parent can change (ON DELETE/UPDATE actions)."""
    tables = [
        r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")
    ]
    direct: dict[str, set[str]] = {}
    for child in tables:
        for fk in conn.execute(f"PRAGMA foreign_key_list({quote(child)})"):
            on_update, on_delete = fk[5].upper(), fk[6].upper()
            if {on_update, on_delete} - {"NO ACTION", "RESTRICT"}:
                direct.setdefault(fk[2], set()).add(child)
    closed: dict[str, frozenset[str]] = {}
    for parent in direct:
        seen, todo = set(), [parent]
        while todo:
            for c in direct.get(todo.pop(), ()):
                if c not in seen:
                    seen.add(c)
                    todo.append(c)
        closed[parent] = frozenset(seen)
    return closed
