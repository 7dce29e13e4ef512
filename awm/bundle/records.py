"""Pydantic records of every file in a bundle (``envs/<env>/`` + ``verifiers/<env>/``).

These models are the file contract; ``schemas/`` holds their JSON Schemas, exported by
``awm.data.schema_export``. Records are frozen: behaviour lives elsewhere.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ID_PATTERN = r"^[a-z][a-z0-9_]*$"
TASK_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"


class Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Provenance(Record):
    """Where an environment came from: hand-written, or generated (model, prompts, seed, attempts)."""

    model_config = ConfigDict(frozen=True, extra="allow")
    source: str = Field("hand-written", description="'hand-written' or 'generated'")
    model: str | None = None
    prompts_hash: str | None = None
    seed: int | None = None
    date: str | None = None
    attempts: dict[str, int] | None = None


class Manifest(Record):
    """``envs/<env>/env.json``."""

    id: str = Field(pattern=ID_PATTERN, description="equal to the folder name")
    version: int = Field(0, ge=0, description="the N of the Gymnasium id awm/<id>-vN")
    title: str
    description: str
    clock: datetime = Field(description="the frozen 'now' of the world; tools read it via db.now()")
    default_task: str | None = None
    tags: list[str] = []
    provenance: Provenance = Provenance()
    foreign_keys: bool = Field(
        True,
        description="whether the database enforces foreign keys (seed load and every call); false for environments "
        "imported from AWM, whose SQLite connection leaves them off",
    )
    trusted: bool = Field(
        True,
        description="false: tools.py runs in a sandboxed worker process (awm.isolation), as generated code does "
        "until a person has reviewed it and set this to true",
    )
    log_tables: list[str] = Field(
        [],
        description="append-only records of what the tools did (activity logs, audit trails, status histories): "
        "rows inserted there beyond the expected ones are not collateral, so a harmless do-and-undo (add a "
        "watcher, then remove it) is not punished; their effect on the other tables is still judged. Never list "
        "a table whose rows are actions themselves (messages, payments, bookings)",
    )


class SeedData(Record):
    """``envs/<env>/seed.json``: rows per table, inserted in the order given."""

    tables: dict[str, list[dict[str, Any]]]


class TaskKind(StrEnum):
    information = "information"
    single_write = "single_write"
    multi_step = "multi_step"


class AnswerType(StrEnum):
    number = "number"
    string = "string"
    date = "date"
    boolean = "boolean"
    list = "list"
    object = "object"


SCALAR_TYPES = frozenset({AnswerType.number, AnswerType.string, AnswerType.date, AnswerType.boolean})


class AnswerSchema(Record):
    """The type of an information task's final answer. Agent-facing: it says what to submit, never the value.

    ``submit_answer``'s ``answer`` argument takes exactly this type on every surface; a list is
    judged as a set, an object field by field.
    """

    type: AnswerType
    description: str = Field("", description="what the value is, with its unit (e.g. 'the total in dollars')")
    items: AnswerType | None = Field(None, description="list only: the type of its items (default string)")
    fields: dict[str, AnswerSchema] | None = Field(None, description="object only: its fields (scalars or lists)")

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema an agent's answer value must satisfy."""
        t = self.type
        out: dict[str, Any]
        if t == AnswerType.number:
            out = {"type": "number"}
        elif t == AnswerType.string:
            out = {"type": "string"}
        elif t == AnswerType.date:
            out = {"type": "string", "format": "date", "description": "YYYY-MM-DD"}
        elif t == AnswerType.boolean:
            out = {"type": "boolean"}
        elif t == AnswerType.list:
            item = AnswerSchema(type=self.items or AnswerType.string).json_schema()
            out = {"type": "array", "items": item, "description": "every item, each once (order does not matter)"}
        else:
            fields = self.fields or {}
            out = {
                "type": "object",
                "properties": {k: f.json_schema() for k, f in fields.items()},
                "required": list(fields),
                "additionalProperties": False,
            }
        if self.description:
            out["description"] = self.description + (f" ({out['description']})" if "description" in out else "")
        return out


class Difficulty(Record):
    """What makes one task instance hard; recorded on every instance of a template."""

    steps: int = Field(ge=0, description="calls in the gold solution")
    write_steps: int = Field(ge=0, description="write calls in the gold solution")
    near_duplicates: int = Field(0, ge=0, description="rows the agent must tell apart from the target")
    underspecified: bool = Field(False, description="the instruction names no key: a lookup call comes first")
    scale: str = Field("canonical", description="the world: canonical, small or large")
    world_distractors: bool = Field(False, description="the world was built with near-duplicate rows")


class Task(Record):
    """One line of ``envs/<env>/tasks.jsonl``: what the user asks. Never holds the answer.

    A task instantiated from a template also names its template, its world and its difficulty.
    """

    id: str = Field(pattern=TASK_ID_PATTERN)
    instruction: str = Field(min_length=1)
    kind: TaskKind
    answer: AnswerSchema | None = Field(None, description="information tasks: the type of the final answer")
    tags: list[str] = []
    template: str | None = Field(None, description="instances only: the template's id")
    world: str | None = Field(None, description="instances only: the world's label (c, s<seed>, l<seed>[d])")
    difficulty: Difficulty | None = Field(None, description="instances only: difficulty features")


class Check(Record):
    """A named, weighted read-only SQL predicate over the current state (initial state as ``initial``)."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    sql: str
    weight: float = Field(1.0, gt=0)
    guard: bool = Field(False, description="holds from the start and must keep holding; no progress")
    description: str = ""


class AnswerCheck(Record):
    """The expected value of a typed answer, computed by read-only SQL on the initial state.

    Scalar: the first row; each of its columns is an accepted spelling (a number uses the first).
    List: every row is one item, its columns the item's accepted spellings; the answer must equal
    the set of items. Object: ``fields`` holds one check per field of the task's answer schema.
    """

    sql: str | None = Field(None, description="scalar and list answers")
    tolerance: float = Field(0.0, ge=0, description="numbers: absolute tolerance")
    fields: dict[str, AnswerCheck] | None = Field(None, description="object answers: a check per field")
    distractors_sql: str | None = Field(
        None, description="plausible wrong values (first column), used by the audit's hedging probes"
    )


class WriteOp(StrEnum):
    insert = "insert"
    update = "update"
    delete = "delete"


class AllowedWrite(Record):
    """A declared exception to the write frame: rows beyond the gold solution's net diff that may change.

    The frame is the gold solution's row-level net diff; anything else is collateral unless a rule
    here allows it. ``where`` is a SQL predicate over the row's columns (the new image for inserts and
    updates, the old one for deletes); without it the rule covers every row of the table, which the
    audit will flag if another-row writes then pass.
    """

    table: str
    ops: list[WriteOp] = Field(default_factory=lambda: [WriteOp.insert, WriteOp.update, WriteOp.delete])
    where: str | None = Field(None, description="SQL predicate over the row's columns; null: any row")
    columns: list[str] | None = Field(None, description="updates: the columns that may change; null: any")
    max_rows: int | None = Field(None, ge=1, description="at most this many rows under this rule")


class GoldCall(Record):
    tool: str
    arguments: dict[str, Any] = {}


class GoldSolution(Record):
    calls: list[GoldCall]
    answer: Any = Field(None, description="information tasks: the typed answer value")


class CodeCheck(Record):
    """A verifier written as code (AWM's ``verify_*`` functions), run sandboxed on the initial and final states.

    The function takes the paths of two read-only database files (``initial_db_path``, ``final_db_path``)
    and, with ``takes_answer``, the agent's ``final_answer``. ``mode: code`` returns
    ``{"result": "complete" | "others"}`` and is an outcome check (passes iff complete); ``mode: sql``
    returns evidence for an LLM judge: it is run and recorded, and never gives outcome 1.
    """

    file: str = Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.py$", description="a file in verifiers/<env>/")
    function: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    mode: Literal["code", "sql"] = "code"
    takes_answer: bool = False
    timeout_s: float = Field(10.0, gt=0, le=300, description="wall-clock limit of one run (child process killed)")


class TaskVerifier(Record):
    """One line of ``verifiers/<env>/verifiers.jsonl``: the judge of one task.

    Outcome 1 needs every check, the answer, and the write frame: the net change must be the gold
    solution's net change (row by row, normalised values), except ``free_columns`` (legitimately
    variable) and the rows ``allowed_writes`` declares.
    """

    task_id: str
    checks: list[Check] = []
    answer: AnswerCheck | None = None
    free_columns: list[str] = Field(
        [], description="'table.column' whose value may differ from the gold solution's (e.g. a free-text reason)"
    )
    free_arguments: list[str] = Field(
        [], description="'tool.argument' the instruction leaves to the agent; the audit does not mutate them"
    )
    allowed_writes: list[AllowedWrite] = []
    gold: GoldSolution
    code: CodeCheck | None = Field(
        None, description="a verifier written as code (imported AWM tasks); needs no checks or answer check"
    )
    write_frame: bool = Field(
        True, description="false: no row-level write frame (the code check alone decides; no collateral counted)"
    )


class TaskTemplate(Record):
    """One line of ``envs/<env>/templates.jsonl``: a parametric task, agent-facing like ``tasks.jsonl``.

    ``{slot}`` in the instructions is replaced by the value of the instance's slot (a column of the
    verifier template's ``slots`` query); ``{{`` and ``}}`` are literal braces.
    """

    id: str = Field(pattern=ID_PATTERN)
    kind: TaskKind
    instruction: str = Field(min_length=1)
    underspecified_instruction: str | None = Field(
        None, description="the same request naming no key (no id, number or e-mail): a lookup must come first"
    )
    answer: AnswerSchema | None = Field(None, description="information templates: the type of the final answer")
    tags: list[str] = []


class VerifierTemplate(Record):
    """One line of ``verifiers/<env>/templates.jsonl``: how instances are drawn and judged.

    ``slots`` is read-only SQL on the initial world returning one row per possible instance; its
    columns are the slots (a column named ``*__json`` holds JSON text and is decoded). In the SQL fields
    (``checks[].sql``, every ``answer`` SQL, ``allowed_writes[].where``, ``near_duplicates_sql``) a
    ``{slot}`` becomes an SQL literal (write ``{email}``, never ``'{email}'``); in ``gold`` a string that
    is exactly ``"{slot}"`` becomes the typed value, and other strings are filled as text.
    """

    template_id: str = Field(pattern=ID_PATTERN)
    slots: str = Field(description="SELECT returning one row per possible instance; columns are the slots")
    near_duplicates_sql: str | None = Field(
        None, description="SELECT of one count over the slots: rows an agent must tell apart from the target"
    )
    checks: list[Check] = []
    answer: AnswerCheck | None = None
    free_columns: list[str] = []
    free_arguments: list[str] = []
    allowed_writes: list[AllowedWrite] = []
    gold: GoldSolution


class ToolSpec(Record):
    """A tool as every surface sees it (gym action, MCP tool, HTTP operation, trainer schema)."""

    name: str
    description: str
    write: bool
    parameters: dict[str, Any] = Field(description="JSON Schema of the arguments object")
    actor: str | None = Field(
        None,
        description="the parameter naming the person the call acts for (`@tool(actor=...)`); metadata, not an argument",
        exclude_if=lambda v: v is None,  # specs of tools without one dump exactly as before
    )

    def openai(self) -> dict[str, Any]:
        """The OpenAI chat-completions ``tools`` entry."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


RECORDS: dict[str, type[BaseModel]] = {
    "manifest": Manifest,
    "seed": SeedData,
    "task": Task,
    "task_verifier": TaskVerifier,
    "tool_spec": ToolSpec,
    "task_template": TaskTemplate,
    "verifier_template": VerifierTemplate,
}
