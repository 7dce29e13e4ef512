"""Per-stage checks without any LLM: schema, seed, verifier statics, sample arguments, prompts."""

from __future__ import annotations

import copy
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from awm.bundle.records import SeedData, Task, TaskVerifier
from awm.bundle.samples import candidates, sample_arguments, value_pool
from awm.gen.prompts import load_prompt, prompts_hash, render
from awm.gen.records import ScenarioIdea, ScenarioOut, VerifiersOut
from awm.gen.sandbox import Sandbox
from awm.gen.stages import Draft, Limits, StageEnv, catalog_stages, compact_stages
from awm.gen.stages.schema import build_schema, schema_problems
from awm.gen.stages.seed import seed_problems
from awm.gen.stages.verifiers import static_problems
from tests.gen.scripted import BIKE, VET

GOOD_DDL = VET["schema"]["schema_sql"]


def ddl_problems(ddl: str) -> list[str]:
    conn, problems = build_schema(ddl)
    if conn is not None:
        problems += schema_problems(conn, max_tables=20)
    return problems


def test_good_schema_passes() -> None:
    assert ddl_problems(GOOD_DDL) == []
    assert ddl_problems("PRAGMA foreign_keys = ON;\n" + GOOD_DDL) == []


@pytest.mark.parametrize(
    ("ddl", "needle"),
    [
        ("CREAT TABLE a (id INTEGER PRIMARY KEY);", 'near "CREAT": syntax error (in: CREAT TABLE'),
        ("CREATE TABLE a (x TEXT);", "table a has no PRIMARY KEY"),
        (
            "CREATE TABLE a (id INTEGER PRIMARY KEY, b_id INTEGER REFERENCES b(id));",
            "REFERENCES b, which is not a table",
        ),
        (
            "CREATE TABLE a (id INTEGER PRIMARY KEY, n TEXT); CREATE TABLE c (id INTEGER PRIMARY KEY, n TEXT REFERENCES a(n));",
            "must point at a's PRIMARY KEY or a UNIQUE column",
        ),
        ("CREATE TABLE a (id INTEGER PRIMARY KEY, t TEXT DEFAULT CURRENT_TIMESTAMP);", "wall clock"),
        ("CREATE TABLE a (id INTEGER PRIMARY KEY); INSERT INTO a VALUES (1);", "rows belong in the seed data"),
        ("ATTACH DATABASE 'x.db' AS x; CREATE TABLE a (id INTEGER PRIMARY KEY);", "attach"),
        ("CREATE TABLE a (id INTEGER PRIMARY KEY); CREATE VIEW v AS SELECT 1;", "create view"),
        ("CREATE TABLE a (id INTEGER PRIMARY KEY); CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END;", "trigger"),
        ('CREATE TABLE "my table" (id INTEGER PRIMARY KEY);', "plain snake_case name"),
        ("CREATE TABLE _awm_log (id INTEGER PRIMARY KEY);", "not allowed"),
    ],
)
def test_schema_problems(ddl: str, needle: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    problems = ddl_problems(ddl)
    assert any(needle in p for p in problems), problems
    assert not (tmp_path / "x.db").exists()  # ATTACH never ran


def test_seed_problems_name_the_row_and_the_broken_reference() -> None:
    seed = SeedData.model_validate(VET["seed"])
    assert seed_problems(GOOD_DDL, seed, 1000) == []
    bad = VET["seed"]["tables"] | {
        "pets": [{"id": 1, "owner_id": 42, "name": "Luna", "species": "cat"}],
        "appointments": [{"id": 1, "pet_id": 1, "starts_at": "now", "reason": "x", "status": "lost", "room": 3}],
    }
    problems = seed_problems(GOOD_DDL, SeedData(tables=bad), 1000)
    assert any(
        p.startswith("pets[0]: FOREIGN KEY") and "owner_id = 42 but owners has no row with id = 42" in p
        for p in problems
    )
    assert any(p.startswith("appointments[0]: unknown columns ['room']") for p in problems)
    problems = seed_problems(GOOD_DDL, SeedData(tables={"owners": [{"id": 1, "name": "A", "email": None}]}), 1000)
    assert problems == ["owners[0]: NOT NULL constraint failed: owners.email"]
    assert "keep it to 2 or fewer" in seed_problems(GOOD_DDL, seed, 2)[0]
    assert seed_problems(GOOD_DDL, SeedData(tables={"ghosts": [{"id": 1}]}), 10)[0].startswith("ghosts: no such table")


def _tasks(i: int, **changes: Any) -> list[dict[str, Any]]:
    """The VET tasks with task ``i`` changed (a ``None`` value removes the key)."""
    tasks = copy.deepcopy(VET["tasks"]["tasks"])
    for k, v in changes.items():
        if v is None:
            tasks[i].pop(k, None)
        else:
            tasks[i][k] = v
    return tasks


def test_scripted_tasks_pass_the_task_checks(tmp_path: Path) -> None:
    import asyncio

    from awm.gen.records import TasksOut
    from awm.gen.stages.tasks import TasksStage

    env = StageEnv(Limits(tasks=3), Sandbox(), set())
    for script in (VET, BIKE):
        out = TasksOut.model_validate(script["tasks"])
        assert asyncio.run(TasksStage().check(out, draft_for(tmp_path), env)) == []


def draft_for(tmp_path: Path) -> Draft:
    d = Draft(ScenarioIdea(name="vet", description="a veterinary clinic"), "k", tmp_path)
    d.env_id = "vet_clinic"
    d.tasks = [Task.model_validate(t) for t in VET["tasks"]["tasks"]]
    d.schema_sql = GOOD_DDL
    d.seed = SeedData.model_validate(VET["seed"])
    params = {
        "find_owner": ["email"],
        "list_appointments": ["pet_id", "status"],
        "book_appointment": ["pet_id", "starts_at", "reason"],
        "cancel_appointment": ["appointment_id"],
    }
    d.tool_specs = [
        {"name": n, "write": n.endswith("appointment"), "parameters": {"properties": {p: {} for p in ps}}}
        for n, ps in params.items()
    ]
    return d


def test_verifier_statics(tmp_path: Path) -> None:
    draft = draft_for(tmp_path)
    good = VerifiersOut.model_validate(VET["verifiers"])
    assert static_problems(good, draft) == {}
    items = [v.model_dump() for v in good.verifiers]
    items[0]["answer"] = None
    items[1]["checks"][0]["sql"] = "DELETE FROM appointments"
    items[2]["gold"]["calls"][0]["tool"] = "find_person"
    found = static_problems(VerifiersOut(verifiers=[TaskVerifier.model_validate(v) for v in items[:3]]), draft)
    assert any("needs an answer check" in p for p in found["t01_count_pets"])
    assert any("one read-only SELECT" in p for p in found["t02_cancel_biscuit"])
    assert any("unknown tool 'find_person'" in p for p in found["t03_vaccinate_both"])
    missing = static_problems(VerifiersOut(verifiers=good.verifiers[:2]), draft)
    assert missing == {"t03_vaccinate_both": ["task t03_vaccinate_both: no verifier; give exactly one per task"]}


def _edited(edit: Any) -> VerifiersOut:
    data = copy.deepcopy(VET["verifiers"])
    edit(data["verifiers"])
    return VerifiersOut.model_validate(data)


def _set(path: str, value: Any) -> Any:
    def edit(vs: list[dict[str, Any]]) -> None:
        *keys, last = path.split("/")
        node: Any = vs
        for k in keys:
            node = node[int(k)] if k.isdigit() else node.setdefault(k, {})
        node[int(last) if last.isdigit() else last] = value

    return edit


VERIFIER_LINTS = {
    "gold answer is prose": (_set("0/gold/answer", "Maria Lopez has 2 pets."), "is not a value of the answer type"),
    "gold answer missing": (_set("0/gold/answer", None), "gold.answer must be the typed value"),
    "a count with tolerance": (_set("0/answer/tolerance", 0.5), "a count is exact"),
    "answer fields on a number": (_set("0/answer/fields", {"n": {"sql": "SELECT 1"}}), "'fields' is for object"),
    "answer on a write task": (_set("1/answer", {"sql": "SELECT 1"}), "declares no answer type"),
    "gold answer on a write task": (_set("1/gold/answer", "done"), "gold.answer must be null"),
    "LIKE in a check": (
        _set("2/checks/0/sql", "SELECT COUNT(*) = 1 FROM appointments WHERE reason LIKE 'vacc%'"),
        "uses 'LIKE'",
    ),
    "GLOB in a check": (_set("1/checks/0/sql", "SELECT status GLOB 'cancel*' FROM appointments WHERE id = 2"), "GLOB"),
    "unknown free column": (_set("2/free_columns", ["appointments.note"]), "no column 'appointments.note'"),
    "unknown free argument": (_set("2/free_arguments", ["book_appointment.notes"]), "no argument"),
    "allowed write without where": (_set("1/allowed_writes", [{"table": "appointments"}]), "give a 'where'"),
    "allowed write on a ghost table": (_set("1/allowed_writes", [{"table": "visits", "where": "id = 1"}]), "unknown"),
    "allowed write, bad column": (
        _set("1/allowed_writes", [{"table": "appointments", "where": "room = 2"}]),
        "no such column: room",
    ),
    "allowed write on a question": (
        _set("0/allowed_writes", [{"table": "pets", "where": "id = 1"}]),
        "an information task writes nothing",
    ),
    "a question that writes": (
        _set("0/gold/calls/0", {"tool": "cancel_appointment", "arguments": {"appointment_id": 2}}),
        "calls only read tools",
    ),
    "a write task that does not write": (_set("1/gold/calls", [{"tool": "find_owner", "arguments": {}}]), "no write"),
    "an unstated value": (
        _set("2/gold/calls/1/arguments/reason", "annual vaccination booster"),
        "reason='annual vaccination booster' is stated neither in the instruction nor in the data",
    ),
}


@pytest.mark.parametrize("case", sorted(VERIFIER_LINTS))
def test_verifier_lints(case: str, tmp_path: Path) -> None:
    edit, needle = VERIFIER_LINTS[case]
    found = static_problems(_edited(edit), draft_for(tmp_path))
    assert any(needle in p for ps in found.values() for p in ps), found


def test_free_values_and_narrow_rules_pass_the_lints(tmp_path: Path) -> None:
    def edit(vs: list[dict[str, Any]]) -> None:
        vs[2]["gold"]["calls"][1]["arguments"]["reason"] = "annual vaccination booster"
        vs[2]["free_arguments"] = ["book_appointment.reason"]
        vs[2]["free_columns"] = ["appointments.reason"]
        vs[1]["allowed_writes"] = [
            {"table": "appointments", "ops": ["update"], "where": "id = 2 AND pet_id IN (SELECT id FROM pets)"}
        ]

    assert static_problems(_edited(edit), draft_for(tmp_path)) == {}


def test_answer_check_shape_follows_the_answer_type() -> None:
    from awm.bundle.records import AnswerCheck, AnswerSchema
    from awm.gen.stages.verifiers import answer_check_problems

    obj = AnswerSchema.model_validate(BIKE["tasks"]["tasks"][0]["answer"])
    good = AnswerCheck.model_validate(BIKE["verifiers"]["verifiers"][0]["answer"])
    assert answer_check_problems(obj, good, "a") == []
    missing = AnswerCheck(fields={"station": good.fields["station"]})  # type: ignore[index]
    assert (
        "exactly the answer type's fields ['available_bikes', 'station']" in answer_check_problems(obj, missing, "a")[0]
    )
    assert any("has no 'sql'" in p for p in answer_check_problems(obj, AnswerCheck(sql="SELECT 1"), "a"))
    names = AnswerSchema(type="list", items="string", description="the pets' names")
    problems = answer_check_problems(names, AnswerCheck(sql="SELECT name FROM pets", tolerance=0.5), "a")
    assert any("distractors_sql" in p for p in problems) and any("number answers only" in p for p in problems)
    assert answer_check_problems(names, AnswerCheck(sql="SELECT name FROM pets", distractors_sql="SELECT 1"), "a") == []


@pytest.mark.parametrize(
    ("tasks", "needle"),
    [
        (VET["tasks"]["tasks"][:1], "got 1 tasks"),
        ([VET["tasks"]["tasks"][0]] * 3, "repeated"),
        ([dict(t, kind="information") for t in VET["tasks"]["tasks"]], "missing: ['single_write', 'multi_step']"),
        (_tasks(0, answer=None), "an information task declares the type of its answer"),
        (_tasks(1, answer={"type": "string", "description": "the status"}), "only information tasks have"),
        (_tasks(0, answer={"type": "string", "description": "how many"}), "has a number answer, not string"),
        (_tasks(0, answer={"type": "number"}), "give the answer a description"),
        (_tasks(0, answer={"type": "object", "description": "x"}), 'an object answer needs "fields"'),
        (
            _tasks(0, answer={"type": "number", "description": "n", "items": "string"}),
            'a number answer has no "items"',
        ),
        (
            _tasks(
                0,
                answer={"type": "object", "description": "x", "fields": {"a": {"type": "object", "description": "y"}}},
            ),
            "not another object",
        ),
        (_tasks(1, instruction="Use the cancel_appointment tool for Biscuit."), "mentions a tool"),
        (_tasks(1, instruction="Run cancel_appointment(2) for Biscuit."), "mentions a function call"),
        (_tasks(0, instruction="SELECT COUNT(*) FROM pets WHERE owner is Maria"), "mentions SQL"),
    ],
)
def test_task_checks(tasks: list[dict[str, Any]], needle: str, tmp_path: Path) -> None:
    import asyncio

    from awm.gen.records import TasksOut
    from awm.gen.stages.tasks import TasksStage

    env = StageEnv(Limits(tasks=3), Sandbox(), set())
    problems = asyncio.run(TasksStage().check(TasksOut.model_validate({"tasks": tasks}), draft_for(tmp_path), env))
    assert any(needle in p for p in problems), problems


def test_scenario_checks(tmp_path: Path) -> None:
    import asyncio

    from awm.gen.stages.scenario import ScenarioStage

    env = StageEnv(Limits(), Sandbox(), set())
    out = ScenarioOut(
        id="main", title="Main", description="A description.", clock=datetime.fromisoformat("2026-03-02T09:00:00+02:00")
    )
    problems = asyncio.run(ScenarioStage().check(out, draft_for(tmp_path), env))
    assert any("time zone" in p for p in problems) and any("reserved" in p for p in problems)


def test_sample_arguments_use_seed_values() -> None:
    pool = value_pool(SeedData.model_validate(VET["seed"]))
    clock = datetime(2026, 3, 2, 9, 30)
    assert candidates("email", {"type": "string"}, pool, clock)[0] == "maria.lopez@example.com"
    assert candidates("pet_id", {"type": "integer"}, pool, clock)[:2] == [1, 2]
    assert candidates("starts_at", {"type": "string"}, pool, clock)[0] == "2026-02-20T11:00"
    status = {"anyOf": [{"enum": ["booked", "done"], "type": "string"}, {"type": "null"}]}
    assert candidates("status", status, pool, clock) == ["booked", "done", None]
    schema = {"properties": {"pet_id": {"type": "integer"}, "status": status}, "required": ["pet_id"]}
    sets = sample_arguments(schema, pool, clock, limit=4)
    assert sets[0] == {"pet_id": 1} and {"pet_id": 1, "status": "booked"} in sets
    assert len({str(s) for s in sets}) == len(sets)


def test_every_stage_has_a_template_that_its_values_fill(tmp_path: Path) -> None:
    from awm.bundle.records import SeedData as Seed

    draft = draft_for(tmp_path)
    draft.scenario = ScenarioOut.model_validate(VET["scenario"])
    draft.schema_sql, draft.seed, draft.tools_py = GOOD_DDL, Seed.model_validate(VET["seed"]), VET["tools"]["tools_py"]
    draft.world_py = "def build(ctx):\n    return {}\n"
    env = StageEnv(Limits(), Sandbox(), set())
    for stage in [*compact_stages(), *catalog_stages()]:
        prompt = load_prompt(stage.prompt_name())
        values = stage.values(draft, env)
        assert prompt.placeholders() == set(values), stage.name
        system, user = prompt.messages(**values)
        assert system["content"].startswith(f"awm-gen-stage: {stage.prompt_name()}\n")
        assert "{{" not in user["content"]
    assert load_prompt("feedback").placeholders() == {"errors", "earlier", "attempt", "max_attempts"}
    assert load_prompt("scenario_ideas").placeholders() == {"examples", "avoid", "focus", "n"}


def test_prompts_hash_changes_with_any_template(tmp_path: Path) -> None:
    from awm.gen.prompts import GENERATORS_DIR

    for f in GENERATORS_DIR.glob("*.md"):
        (tmp_path / f.name).write_text(f.read_text())
    h = prompts_hash(tmp_path)
    assert h == prompts_hash(GENERATORS_DIR) and len(h) == 16
    (tmp_path / "tasks.md").write_text((tmp_path / "tasks.md").read_text() + "\nBe brief.")
    assert prompts_hash(tmp_path) != h
    with pytest.raises(Exception, match="needs values"):
        render("{{a}} and {{b}}", {"a": "1"})
