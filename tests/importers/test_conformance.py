"""Side-by-side conformance with AgentWorldModel's own code (tests/fixtures/awm_conformance, README.md there).

Every scripted episode (``episodes.jsonl``: tool calls in order and a final answer) runs twice:

- through ``awm_reference`` (tests/importers/awm_reference.py): AWM's database build, server, fastapi-mcp tool
  mapping and ``verify.py`` code-mode verdict, restated, with the clock frozen at the manifest's clock;
- through our import: ``import_awm`` -> ``Registry`` -> ``Episode.call`` / ``Episode.submit``.

Our outcome must be 1.0 exactly when AWM's verdict is ``complete`` (``others`` and ``judge_error`` are 0). The
episodes also record the verdict AWM gives them (``awm``), so a wrong reference or fixture fails on its own
message before our side is compared.

Expected differences by design, and how they are treated:
- a task with no verifier line: ``awm verify`` raises (no verdict: ``judge_error`` here); our import may leave
  the task out, which counts as agreement (neither side can ever say complete);
- sql-mode verifiers (evidence for an LLM judge; ours never give outcome 1) are not in this fixture: AWM's
  code mode cannot run them either;
- the reference runs the installed fastapi / pydantic / SQLAlchemy / starlette, as our runtime does, not AWM's
  pinned versions (fastapi 0.115, SQLAlchemy 2.0.41, starlette 0.46).

The default run covers every quirk with a few episodes (about 80); ``-m slow`` runs all of them. The agreement
table (scenario, episodes, agreements) is printed at the end of the module and written to
``<pytest basetemp>/awm_conformance_agreement.txt``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from awm.importers.awm1k import CLOCK_SQL, import_awm, normalize_name
from awm.model.registry import Registry

from .awm_reference import CLOCK, run_batch

pytest.importorskip("sqlalchemy")

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "awm_conformance"
EPISODES: list[dict[str, Any]] = [
    json.loads(line) for line in (FIXTURE / "episodes.jsonl").read_text().splitlines() if line.strip()
]
SCENARIOS = list(dict.fromkeys(e["scenario"] for e in EPISODES))
COVERS = {e["scenario"]: e["covers"] for e in EPISODES}
RESULTS: dict[str, dict[str, Any]] = {}  # episode id -> {"scenario", "awm", "ours", "agree"}


def _id(e: dict[str, Any]) -> str:
    return f"{normalize_name(e['scenario'])}-t{e['task_idx']}-{e['episode']}"


def _param(e: dict[str, Any]) -> Any:
    return pytest.param(e, id=_id(e), marks=[] if e["default"] else [pytest.mark.slow])


class Reference:
    """AWM's results, computed for the episodes this session selected, in batches of at most ``BATCH`` (one
    subprocess each, so that no single test waits long: pytest's timeout is per test)."""

    BATCH = 60

    def __init__(self, session: pytest.Session):
        self.session = session
        self.results: dict[str, dict[str, Any]] = {}

    def __call__(self, episode: dict[str, Any]) -> dict[str, Any]:
        if _id(episode) not in self.results:
            selected = [episode]
            for item in self.session.items:
                e = getattr(item, "callspec", None) and item.callspec.params.get("episode")
                if isinstance(e, dict):
                    selected.append(e)
            pending = {_id(e): e for e in selected if _id(e) not in self.results}
            same = [k for k, e in pending.items() if e["scenario"] == episode["scenario"]]
            keys = list(dict.fromkeys([_id(episode), *same, *pending]))[: self.BATCH]
            for key, result in zip(keys, run_batch(FIXTURE, [pending[k] for k in keys]), strict=True):
                self.results[key] = result
        return self.results[_id(episode)]


@pytest.fixture(scope="module")
def reference(request: pytest.FixtureRequest) -> Reference:
    return Reference(request.session)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Registry]:
    root = tmp_path_factory.mktemp("awm_conformance") / "out"
    report = import_awm(FIXTURE, root, today="2026-02-03")
    return report, Registry([root], include_default=False)


@pytest.fixture(scope="module", autouse=True)
def agreement_table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    yield
    if not RESULTS:
        return
    lines = [f"{'scenario':<38} {'episodes':>8} {'agree':>6}  disagreeing (episode: AWM verdict / our outcome)"]
    for scenario in SCENARIOS:
        rows = {k: r for k, r in RESULTS.items() if r["scenario"] == scenario}
        if not rows:
            continue
        bad = [f"{k.split('-', 1)[1]}: {r['awm']}/{r['ours']}" for k, r in rows.items() if not r["agree"]]
        agree = sum(r["agree"] for r in rows.values())
        lines.append(f"{scenario:<38} {len(rows):>8} {agree:>6}  {', '.join(bad)}")
    total = sum(r["agree"] for r in RESULTS.values())
    lines.append(f"{'total':<38} {len(RESULTS):>8} {total:>6}")
    text = "\n".join(lines) + "\n"
    (tmp_path_factory.getbasetemp() / "awm_conformance_agreement.txt").write_text(text)
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("\nAWM conformance (AWM's verdict vs our outcome):")
        for line in lines:
            reporter.write_line(line)


def test_reference_freezes_the_manifest_clock():
    assert CLOCK == CLOCK_SQL


def test_fixture_files_are_generated_from_their_sources():
    spec = importlib.util.spec_from_file_location("awm_conformance_make_fixture", FIXTURE / "make_fixture.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses resolve their annotations through sys.modules
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    for name, rows in module.build().items():
        on_disk = [json.loads(line) for line in (FIXTURE / name).read_text().splitlines()]
        assert on_disk == rows, f"{name} is stale: rerun tests/fixtures/awm_conformance/make_fixture.py"
    assert len(SCENARIOS) >= 12


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_scenario_awm_can_run_imports(imported, reference, scenario):
    """AWM starts this scenario's server and judges its tasks, so our import must not skip it."""
    first = next(e for e in EPISODES if e["scenario"] == scenario and e["default"])
    ref = reference(first)
    assert ref["server"] == "ok", f"AWM's server does not start for {scenario}: {ref['server']}"
    report, _ = imported
    skipped = {s["scenario"]: s["reasons"] for s in report.skipped}
    assert scenario not in skipped, f"{scenario} ({COVERS[scenario]}) was skipped: {skipped.get(scenario)}"
    assert scenario in {c["scenario"] for c in report.converted}


OURS: dict[str, dict[str, Any]] = {}  # episode id -> our run (computed once, shared by the two episode tests)


def _ours(registry: Registry, episode: dict[str, Any]) -> dict[str, Any]:
    """Our run: ``outcome`` (None: the task is not in the imported world), each call's ``ok``, and ``notes``
    (failed calls, the evaluation's reasons) for the messages."""
    if _id(episode) in OURS:
        return OURS[_id(episode)]
    world = registry.world(normalize_name(episode["scenario"]))
    task_id = f"t{episode['task_idx']:02d}"
    if task_id not in world.task_ids:
        out: dict[str, Any] = {"outcome": None, "calls_ok": None, "notes": [f"no task {task_id} in {world.task_ids}"]}
    else:
        ep = world.episode(task_id)
        steps = [ep.call(tool, arguments) for tool, arguments in episode["calls"]]
        notes = [f"{s.tool}: {s.error.code}: {s.error.message}" for s in steps if s.error is not None]
        evaluation = ep.evaluate(episode["answer"])
        outcome = ep.submit(episode["answer"]).rewards.outcome
        out = {"outcome": outcome, "calls_ok": [s.ok for s in steps], "notes": notes + evaluation.reasons()}
    OURS[_id(episode)] = out
    return out


def _awm(reference: Reference, imported: tuple[Any, Registry], episode: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """AWM's result (checked against the verdict the fixture records), after checking our import kept the scenario."""
    ref = reference(episode)
    where = f"{episode['scenario']} task {episode['task_idx']} episode {episode['episode']!r} ({episode['covers']})"
    assert ref["server"] == "ok", f"{where}: AWM's server does not start: {ref['server']}"
    assert ref["verdict"] == episode["awm"], (
        f"{where}: the reference says {ref['verdict']!r}, the fixture records {episode['awm']!r} "
        f"(the reference or the fixture is wrong): {ref['detail']}"
    )
    skipped = {s["scenario"]: s["reasons"] for s in imported[0].skipped}
    if episode["scenario"] in skipped:
        RESULTS[_id(episode)] = {
            "scenario": episode["scenario"],
            "awm": ref["verdict"],
            "ours": "skipped",
            "agree": False,
        }
        pytest.fail(
            f"{where}: AWM says {ref['verdict']!r}; our import skipped the scenario: {skipped[episode['scenario']]}"
        )
    return where, ref


@pytest.mark.parametrize("episode", [_param(e) for e in EPISODES])
def test_episode_outcome_matches_awm(imported, reference, episode):
    where, ref = _awm(reference, imported, episode)
    ours = _ours(imported[1], episode)
    expected = 1.0 if ref["verdict"] == "complete" else 0.0
    agree = ours["outcome"] == expected or (ours["outcome"] is None and expected == 0.0)  # absent: never complete
    RESULTS[_id(episode)] = {
        "scenario": episode["scenario"],
        "awm": ref["verdict"],
        "ours": ours["outcome"],
        "agree": agree,
    }
    awm_calls = [(c["status"], str(c["result"])[:120]) for c in ref["calls"]]
    assert agree, (
        f"{where}: AWM says {ref['verdict']!r} ({json.dumps(ref['detail'], default=str)[:300]}), "
        f"our outcome is {ours['outcome']}; AWM's calls: {awm_calls}; ours: {ours['notes']}"
    )


@pytest.mark.parametrize("episode", [_param(e) for e in EPISODES])
def test_episode_calls_succeed_and_fail_as_in_awm(imported, reference, episode):
    """What the agent sees: each call is an error (HTTP 4xx/5xx, unknown tool, refused arguments) under AWM
    exactly when it is one here (the values themselves may differ: ids, random codes)."""
    where, ref = _awm(reference, imported, episode)
    ours = _ours(imported[1], episode)
    if ours["calls_ok"] is None:
        pytest.skip(f"{where}: the task is not in the imported world ({ours['notes']})")
    awm = [c["ok"] for c in ref["calls"]]
    calls = [
        f"{tool}: AWM {c['status']} {str(c['result'])[:100]!r}, ours ok={ok}"
        for (tool, _), c, ok in zip(episode["calls"], ref["calls"], ours["calls_ok"], strict=True)
        if c["ok"] != ok
    ]
    assert ours["calls_ok"] == awm, f"{where}: {calls}; our errors: {ours['notes']}"
