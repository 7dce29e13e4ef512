"""Per-stage checks without any LLM: schema, seed, verifier statics, sample arguments, prompts."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from awm.bundle import SeedData, Task, TaskVerifier
from awm.gen.prompts import load_prompt, prompts_hash, render
from awm.gen.records import ScenarioIdea, ScenarioOut, VerifiersOut
from awm.gen.sandbox import Sandbox
from awm.gen.stages import Draft, Limits, StageEnv, default_stages
from awm.gen.stages.schema import build_schema, schema_problems
from awm.gen.stages.seed import seed_problems
from awm.gen.stages.verifiers import static_problems
from awm.samples import candidates, sample_arguments, value_pool
from tests.gen.scripted import VET

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


def draft_for(tmp_path: Path) -> Draft:
    d = Draft(ScenarioIdea(name="vet", description="a veterinary clinic"), "k", tmp_path)
    d.env_id = "vet_clinic"
    d.tasks = [Task.model_validate(t) for t in VET["tasks"]["tasks"]]
    d.tool_specs = [
        {"name": n, "write": n.endswith("appointment")}
        for n in ("find_owner", "list_appointments", "book_appointment", "cancel_appointment")
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


@pytest.mark.parametrize(
    ("tasks", "needle"),
    [
        (VET["tasks"]["tasks"][:1], "got 1 tasks"),
        ([VET["tasks"]["tasks"][0]] * 3, "repeated"),
        ([dict(t, kind="information") for t in VET["tasks"]["tasks"]], "missing: ['single_write', 'multi_step']"),
    ],
)
def test_task_checks(tasks: list[dict[str, str]], needle: str, tmp_path: Path) -> None:
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
    from awm.bundle import SeedData as Seed

    draft = draft_for(tmp_path)
    draft.scenario = ScenarioOut.model_validate(VET["scenario"])
    draft.schema_sql, draft.seed, draft.tools_py = GOOD_DDL, Seed.model_validate(VET["seed"]), VET["tools"]["tools_py"]
    env = StageEnv(Limits(), Sandbox(), set())
    for stage in default_stages():
        prompt = load_prompt(stage.name)
        values = stage.values(draft, env)
        assert prompt.placeholders() == set(values), stage.name
        system, user = prompt.messages(**values)
        assert system["content"].startswith(f"awm-gen-stage: {stage.name}\n")
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
