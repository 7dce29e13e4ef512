"""``awm import awm``: the AgentWorldModel-1K converter on a hand-written fixture in AWM's exact format
(tests/fixtures/awm1k: three good scenarios, six broken the ways AWM's audit found)."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from awm.cli import app
from awm.importers.awm1k import CLOCK_SQL, ImportSourceError, env_name, import_awm, normalize_name

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "awm1k"
GOOD = {"indie_bookshop": "code", "habit_tracker": "code", "recipe_box": "sql"}
SKIPPED = {
    "Pet Grooming Salon": [
        "endpoint GET /appointments/next has no operation_id",
        "table appointments does not execute",
    ],
    "Vinyl Record Store": ["insert #4 (orders) fails with foreign keys on: FOREIGN KEY constraint failed"],
    "Fleet Maintenance Log": ["`import subprocess` is not allowed", "`open` is not allowed"],
    "Plant Nursery": ["full_code does not parse"],
    "City Museum Tickets": [
        "task 0: the verifier",
        "does not parse",
        "task 1:",
        "no `def verify_",
        "task 2: no verifier",
    ],
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


def test_good_scenarios_convert_and_broken_ones_are_skipped_with_reasons(imported):
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
    assert set(on_disk) == {"source_dir", "date", "converted", "skipped"}
    book = next(c for c in on_disk["converted"] if c["env"] == "indie_bookshop")
    assert {k: book[k] for k in ("scenario", "tables", "rows", "tools", "tasks")} == {
        "scenario": "Indie Bookshop",
        "tables": 4,
        "rows": 17,
        "tools": 9,
        "tasks": 5,
    }


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
    prov = manifest["provenance"]
    assert prov["source"] == "imported" and prov["dataset"] == "AgentWorldModel-1K"
    assert prov["scenario"] == scenario["name"] and prov["date"] == "2026-02-03"
    assert {"gen_db.jsonl", "gen_envs.jsonl", "gen_sample.jsonl", "gen_tasks.jsonl"} <= set(prov["files"])
    assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in prov["files"].values())

    envs_rec = _record("gen_envs.jsonl", env)
    assert (e / "awm_app.py").read_text() == envs_rec["full_code"]
    assert json.loads((e / "awm_spec.json").read_text()) == _record("gen_spec.jsonl", env)["api_spec"]
    assert "from awm.importers.runtime import awm_tools" in (e / "tools.py").read_text()

    texts = _record("gen_tasks.jsonl", env)["tasks"]
    tasks = [json.loads(line) for line in (e / "tasks.jsonl").read_text().splitlines()]
    assert [t["id"] for t in tasks] == [f"t{i:02d}" for i in range(len(texts))]
    assert [t["instruction"] for t in tasks] == texts
    assert {t["kind"] for t in tasks} == {"multi_step"}

    mode = GOOD[env]
    vfile = "gen_verifier.pure_code.jsonl" if mode == "code" else "gen_verifier.jsonl"
    sources = {r["task_idx"]: r["verification"]["code"] for r in _rows(vfile) if normalize_name(r["scenario"]) == env}
    verifiers = [json.loads(line) for line in (v / "verifiers.jsonl").read_text().splitlines()]
    assert [x["task_id"] for x in verifiers] == [t["id"] for t in tasks]
    for i, (task, ver) in enumerate(zip(tasks, verifiers, strict=True)):
        assert ver["checks"] == [] and ver["answer"] is None and ver["write_frame"] is False
        assert ver["gold"] == {"calls": []}
        code = ver["code"]
        assert code["file"] == f"verify_t{i:02d}.py" and code["mode"] == mode
        assert (v / code["file"]).read_text() == sources[i]
        assert code["function"] == ("verify_task_completion" if mode == "code" else "verify_task")
        assert code["takes_answer"] is (mode == "code")
        assert (task.get("answer") is not None) is code["takes_answer"]


@pytest.mark.parametrize("env", sorted(GOOD))
def test_seed_is_what_the_inserts_produce_with_the_clock_frozen(imported, env):
    root, _ = imported
    schema = (root / "envs" / env / "schema.sql").read_text()
    assert "CURRENT_TIMESTAMP" not in schema.upper() and "'now'" not in schema.lower()
    conn = sqlite3.connect(":memory:")
    conn.executescript(schema)
    conn.execute("PRAGMA foreign_keys = ON")
    for group in _record("gen_sample.jsonl", env)["sample_data"]["tables"]:
        for stmt in group["insert_statements"]:
            conn.execute(stmt.replace("'now'", f"'{CLOCK_SQL}'"))
    seed = json.loads((root / "envs" / env / "seed.json").read_text())["tables"]
    for table, rows in seed.items():
        cur = conn.execute(f'SELECT * FROM "{table}" ORDER BY rowid')
        cols = [d[0] for d in cur.description]
        assert rows == [dict(zip(cols, r, strict=True)) for r in cur.fetchall()], table
    n_tables = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchone()[0]
    assert len(seed) == n_tables


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
    assert "3 converted, 6 skipped" in r.output and "Coworking Space Booking" in r.output
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


def test_imported_environment_runs_end_to_end(imported):
    pytest.importorskip("sqlalchemy")
    pytest.importorskip("awm.importers.runtime")
    from awm.registry import Registry

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
