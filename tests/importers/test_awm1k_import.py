"""``awm import awm``: the AgentWorldModel-1K converter on a hand-written fixture in AWM's exact format
(tests/fixtures/awm1k: three good scenarios, six broken the ways AWM's audit found)."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from awm.bundle.loader import read_bundle
from awm.cli import app
from awm.importers.awm1k import (
    CLOCK_SQL,
    SKIP_KINDS,
    ImportReport,
    ImportSourceError,
    _verifier_function,
    env_name,
    fastapi_operation_id,
    import_awm,
    normalize_name,
)
from awm.model.registry import Registry
from awm.sql.diff import CHANGE_LOG, CHANGE_LOG_DDL, capture_ddl, changes_from_log, read_tables

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "awm1k"
FILES = (
    "gen_scenario.jsonl",
    "gen_tasks.jsonl",
    "gen_db.jsonl",
    "gen_sample.jsonl",
    "gen_spec.jsonl",
    "gen_envs.jsonl",
    "gen_verifier.jsonl",
    "gen_verifier.pure_code.jsonl",
)
CLEAN = {"indie_bookshop": "code", "habit_tracker": "code", "recipe_box": "sql"}  # every task, every table
GOOD = {  # every scenario AWM's code runs imports; a part AWM skips is skipped here too, and noted
    **CLEAN,
    "pet_grooming_salon": "code",
    "vinyl_record_store": "code",
    "fleet_maintenance_log": "code",
    "city_museum_tickets": "code",
}
NOTES = {  # env -> what its notes must say
    "indie_bookshop": ["example #1 of table orders fails: examples is a string, which AWM runs character by character"],
    "pet_grooming_salon": [
        "endpoint GET /appointments/next has no operation_id",
        'the DDL of table appointments fails (near ",": syntax error): table skipped',
        "insert #2 (appointments) fails: no such table: appointments: skipped",
    ],
    "vinyl_record_store": ["insert #4 (orders) fails: FOREIGN KEY constraint failed: skipped"],
    "fleet_maintenance_log": ["lint: line 53: `import subprocess` is not allowed", "`open` is not allowed"],
    "city_museum_tickets": [
        "task 0: the verifier in gen_verifier.pure_code.jsonl does not parse",
        "task 1: the verifier in gen_verifier.pure_code.jsonl defines no module-level function "
        "'verify_task_completion' (it has no `def verify_...` line",
        "task 2: no verifier in gen_verifier.pure_code.jsonl: skipped",
    ],
}
SKIPPED_PARTS = {  # env -> counts of what was skipped inside it
    "indie_bookshop": {"examples": 1},
    "pet_grooming_salon": {"tables": 1, "inserts": 1},
    "vinyl_record_store": {"inserts": 1},
    "city_museum_tickets": {"tasks": 3},
}
SKIPPED = {  # what AWM's own code cannot run
    "Plant Nursery": ["full_code does not parse (AWM's server cannot start): line 47"],
    "Coworking Space Booking": ["no line in gen_envs.jsonl"],
}


def _rows(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (FIXTURE / name).read_text().splitlines() if line.strip()]


def _record(file: str, scenario: str) -> dict[str, Any]:
    key = "name" if file == "gen_scenario.jsonl" else "scenario"
    return next(r for r in _rows(file) if normalize_name(r[key]) == scenario)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    root = tmp_path_factory.mktemp("awm1k") / "out"
    return root, import_awm(FIXTURE, root, today="2026-02-03")


def test_names_are_normalised_like_awm():
    assert normalize_name("Indie Bookshop & Café") == "indie_bookshop_caf"
    assert normalize_name("E-commerce 33") == "e_commerce_33"
    assert env_name("24/7 Gym") == "awm_24_7_gym"


def test_every_scenario_awm_runs_converts_and_the_rest_is_skipped_with_reasons(imported):
    root, report = imported
    assert {c["env"]: c["verifier_mode"] for c in report.converted} == GOOD
    skipped = {s["scenario"]: " | ".join(s["reasons"]) for s in report.skipped}
    assert set(skipped) == set(SKIPPED)
    for scenario, needles in SKIPPED.items():
        for needle in needles:
            assert needle in skipped[scenario], (scenario, needle)
    assert sorted(p.name for p in (root / "envs").iterdir()) == sorted(GOOD)
    assert sorted(p.name for p in (root / "verifiers").iterdir()) == sorted(GOOD)
    on_disk = json.loads((root / "import_report.json").read_text())
    assert on_disk == report.to_dict()
    assert set(on_disk) == {"source_dir", "date", "totals", "converted", "skipped"}
    book = next(c for c in on_disk["converted"] if c["env"] == "indie_bookshop")
    assert {k: book[k] for k in ("scenario", "tables", "rows", "tools", "tasks")} == {
        "scenario": "Indie Bookshop",
        "tables": 4,
        "rows": 17,
        "tools": 9,
        "tasks": 5,
    }


def test_the_report_notes_every_skipped_part_and_counts_them(imported):
    root, report = imported
    by_env = {c["env"]: c for c in report.converted}
    for env, needles in NOTES.items():
        text = " | ".join(by_env[env]["notes"])
        for needle in needles:
            assert needle in text, (env, needle)
        manifest = json.loads((root / "envs" / env / "env.json").read_text())
        assert manifest["provenance"]["notes"] == by_env[env]["notes"]
    for env, c in by_env.items():
        expected = {k: SKIPPED_PARTS.get(env, {}).get(k, 0) for k in SKIP_KINDS}
        assert c["skipped"] == expected, env
    assert report.to_dict()["totals"] == {
        "converted": len(GOOD),
        "skipped": len(SKIPPED),
        "skipped_parts": {k: sum(p.get(k, 0) for p in SKIPPED_PARTS.values()) for k in SKIP_KINDS},
    }
    assert by_env["fleet_maintenance_log"]["tools"] == 3  # the lints do not stop the export route
    assert by_env["vinyl_record_store"]["rows"] == 3  # the insert AWM's foreign keys reject is not kept


@pytest.mark.parametrize("env", sorted(GOOD))
def test_bundle_files_follow_the_contract(imported, env):
    root, _ = imported
    e, v = root / "envs" / env, root / "verifiers" / env
    assert sorted(p.name for p in e.iterdir()) == [
        "awm_app.py",
        "awm_spec.json",
        "env.json",
        "schema.sql",
        "seed.json",
        "tasks.jsonl",
        "tools.py",
    ]
    manifest = json.loads((e / "env.json").read_text())
    scenario = _record("gen_scenario.jsonl", env)
    assert manifest["id"] == env and manifest["version"] == 0 and manifest["clock"] == "2026-01-01T00:00:00"
    assert manifest["title"] == scenario["name"] and manifest["description"] == scenario["description"]
    assert manifest["foreign_keys"] is False  # AWM's app runs on SQLAlchemy's connection: foreign keys off
    prov = manifest["provenance"]
    assert prov["source"] == "imported" and prov["dataset"] == "AgentWorldModel-1K"
    assert prov["scenario"] == scenario["name"] and prov["date"] == "2026-02-03"
    assert {"gen_db.jsonl", "gen_envs.jsonl", "gen_sample.jsonl", "gen_tasks.jsonl"} <= set(prov["files"])
    assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in prov["files"].values())

    envs_rec = _record("gen_envs.jsonl", env)
    assert (e / "awm_app.py").read_text() == envs_rec["full_code"]
    assert json.loads((e / "awm_spec.json").read_text()) == _record("gen_spec.jsonl", env)["api_spec"]
    tools_py = (e / "tools.py").read_text()
    assert "from awm.importers.runtime import awm_tools" in tools_py
    assert "isolated worker process (awm.isolation)" in tools_py

    texts = _record("gen_tasks.jsonl", env)["tasks"]
    tasks = [json.loads(line) for line in (e / "tasks.jsonl").read_text().splitlines()]
    mode = GOOD[env]
    vfile = "gen_verifier.pure_code.jsonl" if mode == "code" else "gen_verifier.jsonl"
    sources = {r["task_idx"]: r["verification"]["code"] for r in _rows(vfile) if normalize_name(r["scenario"]) == env}
    imported_idx = [int(t["id"][1:]) for t in tasks]
    if env in CLEAN:
        assert imported_idx == list(range(len(texts)))
    assert [t["id"] for t in tasks] == [f"t{i:02d}" for i in imported_idx]  # AWM's index, gaps allowed
    assert manifest["default_task"] == tasks[0]["id"]
    assert [t["instruction"] for t in tasks] == [texts[i] for i in imported_idx]
    assert {t["kind"] for t in tasks} == {"multi_step"}
    verifiers = [json.loads(line) for line in (v / "verifiers.jsonl").read_text().splitlines()]
    assert [x["task_id"] for x in verifiers] == [t["id"] for t in tasks]
    for i, task, ver in zip(imported_idx, tasks, verifiers, strict=True):
        assert ver["checks"] == [] and ver["answer"] is None and ver["write_frame"] is False
        assert ver["gold"] == {"calls": []}
        code = ver["code"]
        assert code["file"] == f"verify_t{i:02d}.py" and code["mode"] == mode
        assert (v / code["file"]).read_text() == sources[i]
        assert code["function"] == ("verify_task_completion" if mode == "code" else "verify_task")
        assert code["takes_answer"] is (mode == "code")
        assert (task.get("answer") is not None) is code["takes_answer"]


def test_tasks_keep_awms_index_when_others_are_skipped(imported):
    root, _ = imported
    e = root / "envs" / "city_museum_tickets"
    assert [json.loads(line)["id"] for line in (e / "tasks.jsonl").read_text().splitlines()] == ["t03"]
    assert json.loads((e / "env.json").read_text())["default_task"] == "t03"
    assert sorted(p.name for p in (root / "verifiers" / "city_museum_tickets").iterdir()) == [
        "verifiers.jsonl",
        "verify_t03.py",
    ]
    files = read_bundle(e, root / "verifiers" / "city_museum_tickets")  # the loader accepts the gap
    assert [t.id for t in files.tasks] == ["t03"] and files.manifest.default_task == "t03"


def _freeze(sql: str) -> str:
    sql = re.sub(r"(?i)\bcurrent_timestamp\b", f"'{CLOCK_SQL}'", sql)
    return sql.replace("'now'", f"'{CLOCK_SQL}'")


def _awm_database(db_schema: dict[str, Any], sample_data: dict[str, Any]) -> sqlite3.Connection:
    """AWM's own steps, written out as its code runs them (``awm.core.db.create_sqlite_database`` then
    ``awm.core.sample.execute_sample_data``), on the frozen clock: the reference for seed.json."""
    conn = sqlite3.connect(":memory:")
    cursor = conn.cursor()
    for table in db_schema.get("tables", []):
        try:
            cursor.execute(_freeze(table["ddl"]))
            for index_sql in table.get("indexes", []):
                cursor.execute(index_sql)
            for example_sql in table.get("examples", []):
                cursor.execute(example_sql)
        except Exception:  # AWM logs it and goes on with the next table
            pass
    conn.commit()
    cursor.execute("PRAGMA foreign_keys = ON;")
    for table_data in sample_data.get("tables", []):
        for stmt in table_data.get("insert_statements", []):
            with contextlib.suppress(sqlite3.Error):  # counted as failed; the rest goes on
                cursor.execute(_freeze(stmt))
    conn.commit()
    return conn


def _seed_matches_awm(root: Path, env: str, db_schema: dict[str, Any], sample_data: dict[str, Any]) -> None:
    schema = (root / "envs" / env / "schema.sql").read_text()
    assert "CURRENT_TIMESTAMP" not in schema.upper() and "'now'" not in schema.lower()
    conn = _awm_database(db_schema, sample_data)
    seed = json.loads((root / "envs" / env / "seed.json").read_text())["tables"]
    for table, rows in seed.items():
        cur = conn.execute(f'SELECT * FROM "{table}" ORDER BY rowid')
        cols = [d[0] for d in cur.description]
        assert rows == [dict(zip(cols, r, strict=True)) for r in cur.fetchall()], table
    n_tables = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchone()[0]
    assert len(seed) == n_tables
    fresh = sqlite3.connect(":memory:")
    fresh.executescript(schema)
    tables = lambda c: c.execute("SELECT type, name FROM sqlite_master ORDER BY name").fetchall()  # noqa: E731
    assert tables(fresh) == tables(conn)  # schema.sql creates what AWM's database has


@pytest.mark.parametrize("env", sorted(GOOD))
def test_seed_is_awms_database_with_the_clock_frozen(imported, env):
    root, _ = imported
    db_schema = _record("gen_db.jsonl", env)["db_schema"]
    _seed_matches_awm(root, env, db_schema, _record("gen_sample.jsonl", env)["sample_data"])


def test_seed_lists_parent_tables_first(imported):
    root, _ = imported
    order = list(json.loads((root / "envs/habit_tracker/seed.json").read_text())["tables"])
    assert order.index("users") < order.index("habits") < order.index("habit_logs")
    assert json.loads((root / "envs/indie_bookshop/seed.json").read_text())["tables"]["orders"][0]["created_at"] == (
        "2025-12-30 00:00:00"
    )


def _solve(db: Path, statements: list[str]) -> None:
    conn = sqlite3.connect(db)
    for s in statements:
        conn.execute(s)
    conn.commit()
    conn.close()


# a correct outcome per task, as SQL (the fixture's own verifiers are trusted test code)
SOLUTIONS: dict[tuple[str, int], tuple[list[str], str | None]] = {
    ("indie_bookshop", 0): (
        ["INSERT INTO orders (user_id, book_id, quantity, status, total_price) VALUES (1, 1, 2, 'pending', 25.98)"],
        None,
    ),
    ("indie_bookshop", 1): (["UPDATE orders SET status = 'cancelled' WHERE id = 1"], None),
    ("indie_bookshop", 2): ([], "Two of her titles are in stock: 2"),
    ("indie_bookshop", 3): (
        ["UPDATE users SET shipping_street='7 Harbour Lane', shipping_city='Falmouth', shipping_postcode='TR11 3QX'"],
        None,
    ),
    ("indie_bookshop", 4): ([], "You paid $11.25."),
    ("habit_tracker", 0): (
        [
            "INSERT INTO habits (user_id, name, frequency, target_per_week) VALUES (1, 'Stretch for 10 minutes', 'daily', 7)"
        ],
        None,
    ),
    ("habit_tracker", 1): (
        ["INSERT INTO habit_logs (habit_id, log_date, note) VALUES (2, '2025-12-31', 'finished chapter 4')"],
        None,
    ),
    ("habit_tracker", 2): (["UPDATE habits SET is_archived = 1 WHERE id = 1"], None),
    ("habit_tracker", 3): ([], "You have logged it 4 times."),
    ("habit_tracker", 4): (["INSERT INTO reminders (habit_id, time_of_day) VALUES (4, '07:30')"], None),
    ("city_museum_tickets", 3): ([], "The museum lists 2 exhibitions."),
    ("vinyl_record_store", 0): ([], "2 records"),
}
WRONG: dict[tuple[str, int], list[str]] = {  # plausible mistakes the verifier must reject
    ("indie_bookshop", 1): ["UPDATE orders SET status = 'cancelled' WHERE id IN (1, 3)"],
    ("habit_tracker", 2): ["UPDATE habits SET is_archived = 1 WHERE id = 5"],
}


@pytest.mark.parametrize("key", sorted(SOLUTIONS))
def test_fixture_code_verifiers_discriminate(imported, tmp_path, key):
    root, _ = imported
    env, idx = key
    namespace: dict[str, Any] = {}
    exec((root / "verifiers" / env / f"verify_t{idx:02d}.py").read_text(), namespace)
    verify = namespace["verify_task_completion"]
    initial = tmp_path / "initial.db"
    conn = sqlite3.connect(initial)
    conn.executescript((root / "envs" / env / "schema.sql").read_text())
    for table, rows in json.loads((root / "envs" / env / "seed.json").read_text())["tables"].items():
        for r in rows:
            conn.execute(f'INSERT INTO "{table}" ({", ".join(r)}) VALUES ({", ".join("?" * len(r))})', list(r.values()))
    conn.commit()
    conn.close()
    final = tmp_path / "final.db"
    shutil.copy(initial, final)
    statements, answer = SOLUTIONS[key]
    assert verify(str(initial), str(final), None) == {"result": "others"}
    assert verify(str(initial), str(final), "I could not find it.") == {"result": "others"}
    _solve(final, statements)
    assert verify(str(initial), str(final), answer) == {"result": "complete"}
    if key in WRONG:
        wrong = tmp_path / "wrong.db"
        shutil.copy(initial, wrong)
        _solve(wrong, WRONG[key])
        assert verify(str(initial), str(wrong), None) == {"result": "others"}


def test_scenarios_subset_and_unknown_names(tmp_path):
    report = import_awm(FIXTURE, tmp_path, scenarios=["habit tracker", "Plant Nursery", "No Such Place"])
    assert [c["env"] for c in report.converted] == ["habit_tracker"]
    assert {s["scenario"] for s in report.skipped} == {"Plant Nursery", "No Such Place"}
    assert [p.name for p in (tmp_path / "envs").iterdir()] == ["habit_tracker"]


def test_refuses_to_clobber_unless_overwrite(tmp_path):
    import_awm(FIXTURE, tmp_path, scenarios=["recipe_box"])
    marker = tmp_path / "envs/recipe_box/schema.sql"
    marker.write_text("-- edited by hand\n")
    again = import_awm(FIXTURE, tmp_path, scenarios=["recipe_box"])
    assert not again.converted and "--overwrite" in again.skipped[0]["reasons"][0]
    assert marker.read_text() == "-- edited by hand\n"
    forced = import_awm(FIXTURE, tmp_path, scenarios=["recipe_box"], overwrite=True)
    assert [c["env"] for c in forced.converted] == ["recipe_box"]
    assert "CREATE TABLE recipes" in marker.read_text()
    assert not list(tmp_path.glob("*/.recipe_box.importing"))


def test_a_bad_folder_is_a_clear_error(tmp_path):
    with pytest.raises(ImportSourceError, match="no such folder"):
        import_awm(tmp_path / "missing", tmp_path / "out")
    partial = tmp_path / "partial"
    partial.mkdir()
    shutil.copy(FIXTURE / "gen_tasks.jsonl", partial)
    with pytest.raises(ImportSourceError, match=r"missing gen_db.jsonl, gen_sample.jsonl, gen_envs.jsonl"):
        import_awm(partial, tmp_path / "out")


def test_optional_files_may_be_missing(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(FIXTURE, src, ignore=shutil.ignore_patterns("gen_scenario.jsonl", "gen_spec.jsonl", "*.txt"))
    report = import_awm(src, tmp_path / "out", scenarios=["habit_tracker"])
    assert [c["env"] for c in report.converted] == ["habit_tracker"]
    manifest = json.loads((tmp_path / "out/envs/habit_tracker/env.json").read_text())
    assert manifest["title"] == "Habit Tracker"
    assert json.loads((tmp_path / "out/envs/habit_tracker/awm_spec.json").read_text()) == {"api_groups": []}


def test_cli_exit_codes_table_and_json(tmp_path):
    runner = CliRunner()
    out = tmp_path / "root"
    r = runner.invoke(app, ["import", "awm", str(FIXTURE), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "7 converted, 2 skipped" in r.output and "Coworking Space Booking" in r.output
    assert "no line in gen_envs.jsonl" in r.output
    r = runner.invoke(app, ["import", "awm", str(FIXTURE), "--out", str(out), "--scenarios", "habit_tracker", "--json"])
    assert r.exit_code == 1  # nothing converted: it exists already
    assert json.loads(r.stdout)["skipped"][0]["scenario"] == "Habit Tracker"
    r = runner.invoke(
        app, ["import", "awm", str(FIXTURE), "-o", str(out), "--scenarios", "habit_tracker,recipe_box", "--overwrite"]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["import", "awm", str(tmp_path / "nope"), "--out", str(out)])
    assert r.exit_code == 2 and "no such folder" in r.output


def _runtime() -> None:
    pytest.importorskip("sqlalchemy")
    pytest.importorskip("awm.importers.runtime")


def test_imported_environment_runs_end_to_end(imported):
    _runtime()
    from awm.model.registry import Registry

    root, _ = imported
    registry = Registry([root], include_default=False)
    assert registry.names() == sorted(GOOD)
    world = registry.load("habit_tracker")
    assert {"create_habit", "list_habits", "log_habit_completion"} <= set(world.tools)
    ep = world.episode("t02")
    listed = ep.call("list_habits", {})
    assert listed.ok, listed.error
    assert [h["name"] for h in listed.result][:2] == ["Morning run", "Read 20 pages"]
    archived = ep.call("archive_habit", {"habit_id": 1})
    assert archived.ok, archived.error
    assert ep.query("SELECT is_archived FROM habits WHERE id = 1")[0][0] == 1
    museum = registry.load("city_museum_tickets")
    assert museum.task_ids == ["t03"] and museum.default_task == "t03"


# -- one quirk at a time: a copy of Habit Tracker with a single change ------------------------------
def _scenario_records(key: str) -> dict[str, list[dict[str, Any]]]:
    """Scenario ``key``'s lines in every fixture file (fresh copies)."""
    return {f: [r for r in _rows(f) if normalize_name(r.get("scenario") or r.get("name")) == key] for f in FILES}


def _one_scenario(tmp_path: Path, edit: Any = None, key: str = "habit_tracker") -> tuple[Path, ImportReport]:
    """Import a dataset holding only scenario ``key``, after ``edit(records)`` (file -> its lines)."""
    records = _scenario_records(key)
    if edit is not None:
        edit(records)
    src = tmp_path / "src"
    src.mkdir()
    for f, rows in records.items():
        (src / f).write_text("".join(json.dumps(r) + "\n" for r in rows))
    root = tmp_path / "out"
    return root, import_awm(src, root, today="2026-02-03")


def _converted(report: ImportReport) -> dict[str, Any]:
    assert not report.skipped, report.skipped
    (c,) = report.converted
    return c


def _tables(records: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return records["gen_db.jsonl"][0]["db_schema"]["tables"]


def _inserts(records: dict[str, list[dict[str, Any]]], table: str) -> list[str]:
    groups = records["gen_sample.jsonl"][0]["sample_data"]["tables"]
    return next(g for g in groups if g["table_name"] == table)["insert_statements"]


def test_a_failing_insert_is_skipped_and_the_rest_kept(tmp_path):
    """``execute_sample_data``: each statement on its own, foreign keys on; a failure is counted, not fatal."""

    def edit(records):
        _inserts(records, "habits").insert(
            1,
            "INSERT INTO habits (id, user_id, name, frequency, target_per_week) VALUES (1, 1, 'Dup', 'daily', 1);",
        )
        _inserts(records, "reminders").extend(
            [
                "INSERT INTO reminders (id, habit_id, time_of_day) VALUES (3, 42, '08:00');",  # no habit 42
                "INSERT INTO reminders (id, habit_id, time_of_day) VALUES (4, 3, '09:00');",
                "INSERT INTO remindres (id) VALUES (5);",
            ]
        )

    root, report = _one_scenario(tmp_path, edit)
    c = _converted(report)
    notes = " | ".join(c["notes"])
    assert "insert #4 (habits) fails: UNIQUE constraint failed: habits.id: skipped" in notes
    assert "insert #21 (reminders) fails: FOREIGN KEY constraint failed: skipped" in notes
    assert "insert #23 (reminders) fails: no such table: remindres: skipped: INSERT INTO remindres" in notes
    assert c["skipped"]["inserts"] == 3 and c["rows"] == 19 + 1
    seed = json.loads((root / "envs/habit_tracker/seed.json").read_text())["tables"]
    assert seed["habits"][0]["name"] == "Morning run"
    assert [r["id"] for r in seed["reminders"]] == [1, 2, 4]


def test_a_table_whose_ddl_fails_is_skipped_with_its_indexes(tmp_path):
    """``create_sqlite_database``: a failing statement ends its table (logged); the other tables stay."""

    def edit(records):
        tables = _tables(records)
        tables.insert(
            1,
            {
                "name": "badges",
                "ddl": "CREATE TABLE badges (id INTEGER PRIMARY KEY,, name TEXT)",
                "indexes": ["CREATE INDEX idx_badges_name ON badges(name)"],
            },
        )
        tables[2]["indexes"] = ["CREATE INDEX idx_x ON habits(no_such_column)", "CREATE INDEX idx_y ON habits(name)"]
        _inserts(records, "users").append("INSERT INTO badges (id, name) VALUES (1, 'early bird');")

    root, report = _one_scenario(tmp_path, edit)
    c = _converted(report)
    notes = " | ".join(c["notes"])
    assert 'the DDL of table badges fails (near ",": syntax error): table skipped' in notes
    assert "index #1 of table habits fails: no such column: no_such_column: skipped with the table's 1 later" in notes
    assert "insert #3 (users) fails: no such table: badges" in notes
    assert c["tables"] == 4 and {k: v for k, v in c["skipped"].items() if v} == {
        "tables": 1,
        "indexes": 2,
        "inserts": 1,
    }
    schema = (root / "envs/habit_tracker/schema.sql").read_text()
    assert "badges" not in schema and "idx_x" not in schema and "idx_y" not in schema
    assert "CREATE TABLE habits" in schema  # created before its index failed, as in AWM's database


def test_a_scenario_without_any_table_is_skipped(tmp_path):
    def edit(records):
        for t in _tables(records):
            t["ddl"] = t["ddl"].replace("(", "((", 1)

    _, report = _one_scenario(tmp_path, edit)
    assert not report.converted
    assert "gen_db.jsonl: no table is created" in report.skipped[0]["reasons"]


def test_examples_rows_are_kept_as_awm_inserts_them(tmp_path):
    """``create_sqlite_database`` runs each table's ``examples`` after its indexes, foreign keys off: their
    rows are part of AWM's database (a sample insert reusing their id then fails, as in AWM)."""
    examples = [
        "INSERT INTO reminders (id, habit_id, time_of_day, enabled) VALUES (7, 4, '07:00', 1);",
        "INSERT INTO reminders (id, habit_id, time_of_day, enabled) VALUES (8, 99, '22:00', 0);",  # no habit 99
    ]

    def edit(records):
        _tables(records)[3]["examples"] = examples
        _tables(records)[0]["examples"] = "SELECT * FROM users"  # a string: AWM runs its characters
        _inserts(records, "reminders").append(
            "INSERT INTO reminders (id, habit_id, time_of_day) VALUES (7, 1, '05:00');"
        )

    root, report = _one_scenario(tmp_path, edit)
    c = _converted(report)
    notes = " | ".join(c["notes"])
    assert "example #1 of table users fails: examples is a string, which AWM runs character by character" in notes
    assert "insert #20 (reminders) fails: UNIQUE constraint failed: reminders.id" in notes
    seed = json.loads((root / "envs/habit_tracker/seed.json").read_text())["tables"]
    assert [(r["id"], r["habit_id"]) for r in seed["reminders"]] == [(1, 1), (2, 2), (7, 4), (8, 99)]
    records = _scenario_records("habit_tracker")
    edit(records)  # the reference: AWM's steps on the same records
    db_schema, sample_data = records["gen_db.jsonl"][0]["db_schema"], records["gen_sample.jsonl"][0]["sample_data"]
    _seed_matches_awm(root, "habit_tracker", db_schema, sample_data)
    _runtime()
    from awm.model.registry import Registry

    world = Registry([root], include_default=False).load("habit_tracker")  # foreign keys off: row 8 loads
    ep = world.episode("t00")
    assert ep.query("SELECT habit_id FROM reminders WHERE id = 8") == [(99,)]


def test_a_table_without_a_primary_key_imports_and_runs(tmp_path):
    """A junction table without a PRIMARY KEY is keyed by rowid: seeded, diffed, and written by a tool."""
    app_extra = """

class HabitTagModel(Base):
    __tablename__ = "habit_tags"
    habit_id = Column(Integer, primary_key=True)
    tag = Column(String, primary_key=True)


class HabitTagResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    habit_id: int
    tag: str


@app.post("/habits/{habit_id}/tags", response_model=HabitTagResponse, operation_id="tag_habit", summary="Tag a habit", tags=["Habits"])
async def tag_habit(habit_id: int = Path(..., description="Habit ID"), tag: str = Query(...), db: Session = Depends(get_db)):
    row = HabitTagModel(habit_id=habit_id, tag=tag)
    db.add(row)
    db.commit()
    return row
"""

    def edit(records):
        _tables(records).append(
            {
                "name": "habit_tags",
                "ddl": "CREATE TABLE habit_tags (habit_id INTEGER NOT NULL REFERENCES habits(id), tag TEXT NOT NULL)",
                "indexes": ["CREATE INDEX idx_habit_tags_habit ON habit_tags(habit_id)"],
            }
        )
        records["gen_sample.jsonl"][0]["sample_data"]["tables"].append(
            {
                "table_name": "habit_tags",
                "reasoning": "tags",
                "insert_statements": [
                    "INSERT INTO habit_tags (habit_id, tag) VALUES (1, 'outdoors');",
                    "INSERT INTO habit_tags (habit_id, tag) VALUES (2, 'evening');",
                ],
            }
        )
        envs = records["gen_envs.jsonl"][0]
        code = envs["full_code"]
        cut = code.index("\n\nif __name__")
        envs["full_code"] = code[:cut] + app_extra + code[cut:]

    root, report = _one_scenario(tmp_path, edit)
    c = _converted(report)
    assert c["tables"] == 5 and c["tools"] == 10 and not any("PRIMARY" in n for n in c["notes"])
    seed = json.loads((root / "envs/habit_tracker/seed.json").read_text())["tables"]
    assert seed["habit_tags"] == [{"habit_id": 1, "tag": "outdoors"}, {"habit_id": 2, "tag": "evening"}]

    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript((root / "envs/habit_tracker/schema.sql").read_text())
    info = read_tables(conn)["habit_tags"]
    assert info.key == ("rowid",)
    conn.executemany("INSERT INTO habit_tags (habit_id, tag) VALUES (:habit_id, :tag)", seed["habit_tags"])
    conn.execute(CHANGE_LOG_DDL)
    for stmt in capture_ddl(info):
        conn.execute(stmt)
    conn.execute("INSERT INTO habit_tags (habit_id, tag) VALUES (3, 'water')")
    conn.execute("UPDATE habit_tags SET tag = 'hydration' WHERE rowid = 1")
    log = conn.execute(f"SELECT tbl, old, new FROM {CHANGE_LOG} ORDER BY seq").fetchall()
    diff = changes_from_log({"habit_tags": info}, log)
    assert [(ch.op, ch.key) for ch in diff.changes] == [("update", {"rowid": 1}), ("insert", {"rowid": 3})]

    _runtime()
    from awm.model.registry import Registry

    world = Registry([root], include_default=False).load("habit_tracker")
    assert world.tables["habit_tags"].key == ("rowid",)
    ep = world.episode("t00")
    assert ep.query("SELECT rowid, habit_id, tag FROM habit_tags ORDER BY rowid") == [
        (1, 1, "outdoors"),
        (2, 2, "evening"),
    ]
    step = ep.call("tag_habit", {"habit_id": 3, "tag": "water"})
    assert step.ok, step.error
    assert [(ch.table, ch.op, ch.key) for ch in step.diff.changes] == [("habit_tags", "insert", {"rowid": 3})]


def test_a_route_without_operation_id_is_a_tool_named_as_fastapi_names_it(tmp_path):
    def edit(records):
        envs = records["gen_envs.jsonl"][0]
        envs["full_code"] = envs["full_code"].replace('operation_id="list_habit_logs", ', "")
        spec = records["gen_spec.jsonl"][0]["api_spec"]["api_groups"]
        for group in spec:
            for ep in group["endpoints"]:
                ep.pop("operation_id", None) if ep["path"] == "/reminders" else None

    _, report = _one_scenario(tmp_path, edit)
    c = _converted(report)
    assert c["tools"] == 9
    notes = " | ".join(c["notes"])
    assert (
        "route GET /habits/{habit_id}/logs has no operation_id: its tool is 'list_habit_logs_habits__habit_id__logs_get'"
        in notes
    )
    assert "gen_spec.jsonl: endpoint GET /reminders has no operation_id" in notes


def test_fastapi_operation_id_is_fastapis_generated_id():
    fastapi = pytest.importorskip("fastapi")
    api = fastapi.FastAPI()

    @api.get("/habits/{habit_id:int}/logs")
    async def list_habit_logs(habit_id: int) -> dict[str, int]:
        return {}

    @api.api_route("/a-b/{x}", methods=["PATCH"], name="custom name")
    async def other(x: str) -> dict[str, int]:
        return {}

    ops = [op["operationId"] for path in api.openapi()["paths"].values() for op in path.values()]
    assert ops == [
        fastapi_operation_id("list_habit_logs", "/habits/{habit_id:int}/logs", "GET"),
        fastapi_operation_id("custom name", "/a-b/{x}", "PATCH"),
    ]


def test_lints_are_notes_never_reasons(imported):
    _, report = imported
    fleet = next(c for c in report.converted if c["env"] == "fleet_maintenance_log")
    assert [n for n in fleet["notes"] if "lint:" in n] and fleet["skipped"] == dict.fromkeys(SKIP_KINDS, 0)


def test_one_task_without_a_runnable_verifier_is_skipped_alone(tmp_path):
    def edit(records):
        rows = records["gen_verifier.pure_code.jsonl"]
        rows[1]["verification"]["code"] += "\n\ndef broken(:\n    pass\n"  # does not parse
        rows[2]["verification"]["code"] = "import sqlite3\n\n\ndef check(a, b):\n    return {}\n"
        del rows[4]
        rows.append({**rows[0], "task_idx": 0, "verification": {"code": "broken"}})  # AWM uses the first line

    root, report = _one_scenario(tmp_path, edit)
    c = _converted(report)
    notes = " | ".join(c["notes"])
    assert "task 1: the verifier in gen_verifier.pure_code.jsonl does not parse" in notes
    assert "task 2: the verifier in gen_verifier.pure_code.jsonl defines no module-level function" in notes
    assert "task 4: no verifier in gen_verifier.pure_code.jsonl: skipped" in notes
    assert c["tasks"] == 2 and c["skipped"]["tasks"] == 3
    tasks = [json.loads(line)["id"] for line in (root / "envs/habit_tracker/tasks.jsonl").read_text().splitlines()]
    assert tasks == ["t00", "t03"]


def test_no_task_with_a_runnable_verifier_skips_the_scenario(tmp_path):
    def edit(records):
        records["gen_verifier.pure_code.jsonl"] = []

    _, report = _one_scenario(tmp_path, edit, key="habit_tracker")
    assert not report.converted
    assert report.skipped[0]["reasons"] == ["no verifier in gen_verifier.pure_code.jsonl or gen_verifier.jsonl"]


HEAD = "import sqlite3\n\n\n"


@pytest.mark.parametrize(
    ("code", "mode", "expected"),
    [
        (
            "def verify_task_completion(initial_db_path, final_db_path):\n    return {}\n",
            "code",
            ("verify_task_completion", False),
        ),
        (
            "def verify_x(initial_db_path, final_db_path, final_answer=None):\n    return {}\n",
            "code",
            ("verify_x", True),
        ),
        ("def verify_x(final_answer, initial_db_path, final_db_path):\n    return {}\n", "code", ("verify_x", True)),
        ("def verify_x(a, b, c):\n    return {}\n", "code", ("verify_x", True)),  # positional: the 3rd
        ("def verify_x(a, b, *rest):\n    return {}\n", "code", ("verify_x", True)),
        ("def verify_x(initial_db_path, final_db_path, answer=None):\n    return {}\n", "code", ("verify_x", False)),
        ("def verify_x(a, b):\n    return {}\n", "code", ("verify_x", False)),
        ("def verify_x(*args):\n    return {}\n", "code", ("verify_x", False)),
        ("def verify_task(initial_db_path, final_db_path):\n    return {}\n", "sql", ("verify_task", False)),
        # the first `def verify_` line names the function, even when another is defined
        ("def verify_b(a, b, c):\n    return {}\n\n\ndef verify_a(a, b):\n    return {}\n", "code", ("verify_b", True)),
        ("if True:\n    def verify_x(a, b):\n        return {}\n", "code", ("verify_x", False)),
        (
            "def helper():\n    pass\n\n\ndef verify_x(a, b, final_answer=''):\n    return {}\n",
            "code",
            ("verify_x", True),
        ),
    ],
)
def test_verifier_function_is_found_and_bound_as_awm_does(code, mode, expected):
    fn, takes_answer, problem = _verifier_function(HEAD + code, mode)
    assert problem is None and (fn, takes_answer) == expected


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        ("def check(a, b):\n    return {}\n", "defines no module-level function 'verify_task_completion'"),
        ("class V:\n    def verify_x(self, a, b):\n        return {}\n", "defines no module-level function 'verify_x'"),
        ("def check(a, b):\n    return {}\n\n\nverify_task_completion = check\n", "something other than a `def`"),
        ("async def verify_x(a, b):\n    return {}\n", "defines no module-level function 'verify_task_completion'"),
        ("def verify_x(a, b):\n    return {\n", "does not parse"),
        ("", "is empty"),
    ],
)
def test_verifier_awm_cannot_call_is_a_problem(code, problem):
    fn, _, why = _verifier_function(HEAD + code if code else code)
    assert fn is None or "parse" in problem
    assert why is not None and problem in why


def test_an_operation_id_named_like_an_episode_action_gets_a_prefix(tmp_path):
    """AWM runs a route whose operation_id is ``list_tools``; here that name is the episode's own action."""

    def edit(records):
        envs = records["gen_envs.jsonl"][0]
        envs["full_code"] = envs["full_code"].replace('operation_id="list_habits"', 'operation_id="list_tools"')

    root, report = _one_scenario(tmp_path, edit)
    c = _converted(report)
    assert "its tool is 'app_list_tools'" in " | ".join(c["notes"])
    world = Registry([root], include_default=False).load(c["env"])
    assert "app_list_tools" in world.tools and "list_tools" not in world.tools
    res = world.episode(world.task_ids[0]).call("app_list_tools", {})
    assert res.ok and isinstance(res.result, list), res.error


def test_ddl_drawing_random_imports_and_replays_identically(tmp_path):
    """``DEFAULT (abs(random()) % 1000)`` draws from the sandbox's seeded generator at run time."""

    def edit(records):
        table = _tables(records)[1]
        table["ddl"] = table["ddl"].replace(
            "name TEXT NOT NULL,", "name TEXT NOT NULL, code INTEGER DEFAULT (abs(random()) % 1000),"
        )

    root, report = _one_scenario(tmp_path, edit)
    c = _converted(report)
    assert "uses 'random('" in " | ".join(c["notes"])
    world = Registry([root], include_default=False).load(c["env"])
    codes = []
    for _ in range(2):
        ep = world.episode(world.task_ids[0])
        res = ep.call("create_habit", {"name": "Stretch", "frequency": "daily"})
        assert res.ok, res.error
        codes.append(ep.query("SELECT code FROM habits WHERE name = 'Stretch'"))
    assert codes[0] == codes[1] and codes[0][0][0] is not None
