"""The pipeline end to end through real HTTP against the scripted fake server."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from gymnasium.utils.env_checker import check_env
from typer.testing import CliRunner

from awm.cli import app
from awm.gen.pipeline import GenConfig, Generator
from awm.gen.stages import Limits
from awm.gen.workspace import Workspace
from awm.gym import AwmEnv
from awm.model.registry import Registry
from awm.proof.validate import validate_env
from tests.gen.conftest import client, generate, idea, script_env
from tests.gen.fake_llm import FakeLLM, Gate, Hang, Reply, Status
from tests.gen.scripted import BIKE, STAGES, VET, answer, variant


def listing(root: Path) -> dict[str, list[str]]:
    return {sub: sorted(os.listdir(root / sub)) if (root / sub).is_dir() else [] for sub in ("envs", "verifiers")}


def test_two_scenarios_become_two_valid_environments(fake_llm: FakeLLM, root: Path) -> None:
    script_env(fake_llm, VET)
    script_env(fake_llm, BIKE)
    report = generate(fake_llm, root, [VET, BIKE])
    assert sorted(report.written) == ["bike_share", "vet_clinic"]
    assert listing(root) == {"envs": ["bike_share", "vet_clinic"], "verifiers": ["bike_share", "vet_clinic"]}
    reg = Registry([root], include_default=False)
    for name in ("vet_clinic", "bike_share"):
        rep = validate_env(name, reg)
        assert rep.ok, rep.problems
        env = AwmEnv(name, paths=[str(root)])
        check_env(env, skip_render_check=True)
        manifest = json.loads((root / "envs" / name / "env.json").read_text())
        assert manifest["trusted"] is False  # generated code runs sandboxed until a person reviews it
        prov = manifest["provenance"]
        assert prov["source"] == "generated" and prov["model"] == "fake-model"
        assert prov["attempts"] == dict.fromkeys(STAGES, 1)
        assert len(prov["prompts_hash"]) == 16 and prov["seed"] == 0 and prov["date"]
        assert prov["tokens"]["prompt"] > 0
    result = CliRunner().invoke(app, ["validate", "-p", str(root), "vet_clinic", "bike_share"])
    assert result.exit_code == 0 and result.output.count("is valid") == 2, result.output
    assert fake_llm.counts() == dict.fromkeys(STAGES, 2)
    assert all(r.answered == "reply" for r in fake_llm.seen())
    assert not any((root / ".awm-gen" / "staging").iterdir())
    # every stage reports tokens and cost; the report is on disk
    data = json.loads((root / ".awm-gen" / "report.json").read_text())
    assert data["counts"] == {"written": 2}
    assert all(data["stages"][s]["prompt_tokens"] > 0 and data["stages"][s]["cost"] > 0 for s in STAGES)
    per_env = [j["tokens"] for j in data["jobs"]]
    assert all(t["prompt"] > 1000 and t["completion"] > 500 for t in per_env)


def test_generated_bundle_matches_the_hand_written_format(fake_llm: FakeLLM, root: Path) -> None:
    script_env(fake_llm, VET)
    generate(fake_llm, root, [VET])
    env_dir = root / "envs" / "vet_clinic"
    assert sorted(os.listdir(env_dir)) == ["env.json", "schema.sql", "seed.json", "tasks.jsonl", "tools.py"]
    assert os.listdir(root / "verifiers" / "vet_clinic") == ["verifiers.jsonl"]
    assert (env_dir / "tools.py").read_text() == VET["tools"]["tools_py"].rstrip() + "\n"
    tasks = [json.loads(line) for line in (env_dir / "tasks.jsonl").read_text().splitlines()]
    assert [t["id"] for t in tasks] == [t["id"] for t in VET["tasks"]["tasks"]]


# -- faults the pipeline must correct, feeding the error back ---------------------------------------
def _bad_ddl(d: dict[str, Any]) -> None:
    d["schema_sql"] = d["schema_sql"].replace("CREATE TABLE pets", "CREATE TABEL pets")


def _bad_fk(d: dict[str, Any]) -> None:
    d["tables"]["pets"][0]["owner_id"] = 99


def _raising_tool(d: dict[str, Any]) -> None:
    d["tools_py"] = d["tools_py"].replace("    return owner\n", '    return owner["phone"]\n', 1)


def _looping_tool(d: dict[str, Any]) -> None:
    d["tools_py"] = d["tools_py"].replace(
        '    if db.one("SELECT id FROM pets WHERE id = ?", (pet_id,)) is None:\n        raise ToolError(f"no pet {pet_id}")\n    return',
        "    while True:\n        pass\n    return",
        1,
    )


def _reserved_tool_name(d: dict[str, Any]) -> None:
    d["tools_py"] = d["tools_py"].replace("def list_appointments(", "def submit_answer(", 1)


def _unsafe_tool(d: dict[str, Any]) -> None:
    d["tools_py"] = "import os\n" + d["tools_py"]


def _writing_verifier(d: dict[str, Any]) -> None:
    d["verifiers"][1]["checks"][0]["sql"] = "UPDATE appointments SET status = 'cancelled' WHERE id = 2"


def _failing_gold(d: dict[str, Any]) -> None:
    d["verifiers"][1]["gold"]["calls"][-1]["arguments"]["appointment_id"] = 3  # cancels Luna's, not Biscuit's


def _untyped_answer(d: dict[str, Any]) -> None:
    del d["tasks"][0]["answer"]  # an information task whose answer type is not declared


def _sentence_gold_answer(d: dict[str, Any]) -> None:
    d["verifiers"][0]["gold"]["answer"] = "Maria Lopez has 2 or 3 pets registered."  # hedge-able prose


def _like_check(d: dict[str, Any]) -> None:
    check = d["verifiers"][2]["checks"][0]
    check["sql"] = check["sql"].replace("reason = 'vaccination'", "reason LIKE '%vaccin%'")


def _wide_allowed_write(d: dict[str, Any]) -> None:
    # lets the agent cancel anyone's appointment: only the adversarial audit in `awm validate` sees it
    d["verifiers"][1]["allowed_writes"] = [
        {"table": "appointments", "ops": ["update"], "where": "status = 'cancelled'", "columns": ["status"]}
    ]


CONTENT_FAULTS = {
    "malformed_json": ("tasks", Reply('{"tasks": [{"id": "t01", oops'), "not valid JSON"),
    "ddl_fails": ("schema", Reply(variant(VET, "schema", _bad_ddl)), 'near "TABEL": syntax error'),
    "seed_breaks_foreign_key": ("seed", Reply(variant(VET, "seed", _bad_fk)), "owner_id = 99 but owners has no row"),
    "tool_raises": ("tools", Reply(variant(VET, "tools", _raising_tool)), "KeyError: 'phone'"),
    "tool_loops_forever": ("tools", Reply(variant(VET, "tools", _looping_tool)), "ran longer than"),
    "reserved_tool_name": ("tools", Reply(variant(VET, "tools", _reserved_tool_name)), "'submit_answer' is reserved"),
    "unsafe_tool": ("tools", Reply(variant(VET, "tools", _unsafe_tool)), "`import os` is not allowed"),
    "verifier_writes": ("verifiers", Reply(variant(VET, "verifiers", _writing_verifier)), "read-only SELECT"),
    "untyped_answer": ("tasks", Reply(variant(VET, "tasks", _untyped_answer)), "declares the type of its answer"),
    "sentence_gold_answer": (
        "verifiers",
        Reply(variant(VET, "verifiers", _sentence_gold_answer)),
        "is not a value of the answer type (number)",
    ),
    "like_check": ("verifiers", Reply(variant(VET, "verifiers", _like_check)), "uses 'LIKE'"),
    "audit_leak_fed_back": (
        "verifiers",
        Reply(variant(VET, "verifiers", _wide_allowed_write)),
        "audit: a hack scores outcome 1: [write.other_row] gold + cancel_appointment",
    ),
    "gold_fails_its_verifier": (
        "verifiers",
        Reply(variant(VET, "verifiers", _failing_gold)),
        "check 'cancelled' does not hold after the gold solution",
    ),
}


# a malformed reply, a gold solution its verifier rejects and an audit leak by default (the feedback loop is the
# same for every stage); the other kinds of fault run under -m slow (CI runs them)
DEFAULT_FAULTS = {"malformed_json", "gold_fails_its_verifier", "audit_leak_fed_back"}


@pytest.mark.parametrize(
    "fault", [f if f in DEFAULT_FAULTS else pytest.param(f, marks=pytest.mark.slow) for f in sorted(CONTENT_FAULTS)]
)
def test_bad_outputs_are_corrected_with_feedback(fake_llm: FakeLLM, root: Path, fault: str) -> None:
    stage, bad, expected = CONTENT_FAULTS[fault]
    script_env(fake_llm, VET, {stage: [bad]})
    report = generate(fake_llm, root, [VET])
    assert report.written == ["vet_clinic"], report.jobs[0].problems
    first, second = fake_llm.seen(stage)
    assert second.messages[:2] == first.messages  # the same request, plus the answer and the feedback
    assert second.messages[2] == {"role": "assistant", "content": bad.content}
    feedback = second.messages[3]["content"]
    assert expected in feedback and "attempt 1 of 3" in feedback
    assert feedback.count(expected) == 1  # said once, even when two probes find the same thing
    assert report.jobs[0].stages[stage].attempts == 2
    prov = json.loads((root / "envs" / "vet_clinic" / "env.json").read_text())["provenance"]
    assert prov["attempts"][stage] == 2
    assert validate_env("vet_clinic", Registry([root], include_default=False)).ok


TRANSPORT_FAULTS = {
    "rate_limited_429": ("scenario", Status(429, retry_after=0)),
    "server_error_500": ("schema", Status(500)),
    "hang_past_timeout": ("seed", Hang(2.0)),
}


@pytest.mark.parametrize(  # the 500 by default; the 429 and the hang under -m slow (the same retry path)
    "fault",
    [f if f == "server_error_500" else pytest.param(f, marks=pytest.mark.slow) for f in sorted(TRANSPORT_FAULTS)],
)
def test_transport_faults_are_retried_without_costing_an_attempt(fake_llm: FakeLLM, root: Path, fault: str) -> None:
    stage, bad = TRANSPORT_FAULTS[fault]
    script_env(fake_llm, VET, {stage: [bad]})
    report = generate(fake_llm, root, [VET], timeout=0.5)
    assert report.written == ["vet_clinic"]
    first, second = fake_llm.seen(stage)
    assert first.messages == second.messages  # a plain retry: no feedback
    assert report.jobs[0].stages[stage].attempts == 1


def test_exhausted_attempts_reject_with_a_report(fake_llm: FakeLLM, root: Path) -> None:
    script_env(fake_llm, VET, {"schema": [Reply(variant(VET, "schema", _bad_ddl))] * 3})
    report = generate(fake_llm, root, [VET], attempts=2)
    (job,) = report.jobs
    assert (job.status, job.stage, job.stages["schema"].attempts) == ("rejected", "schema", 2)
    assert any('near "TABEL"' in p for p in job.problems)
    assert listing(root) == {"envs": [], "verifiers": []}
    assert len(fake_llm.seen("schema")) == 2 and not fake_llm.seen("seed")
    data = json.loads((root / ".awm-gen" / "report.json").read_text())
    assert data["jobs"][0]["status"] == "rejected" and data["jobs"][0]["stage"] == "schema"
    (kept,) = (root / ".awm-gen" / "rejected").iterdir()
    assert (kept / "envs" / "vet_clinic" / "tasks.jsonl").is_file()  # the candidate, for inspection
    # a rerun does not repeat it
    fake_llm.reset_log()
    again = generate(fake_llm, root, [VET], attempts=2)
    assert again.jobs[0].status == "skipped" and fake_llm.counts() == {}


def test_an_llm_outage_is_an_error_not_a_reject(fake_llm: FakeLLM, root: Path) -> None:
    script_env(fake_llm, VET, {"tasks": [Status(503)] * 10})
    report = generate(fake_llm, root, [VET], retries=1)
    (job,) = report.jobs
    assert (job.status, job.stage) == ("error", "tasks")
    assert "failed after 2 attempt" in job.problems[0]
    assert listing(root) == {"envs": [], "verifiers": []}
    assert Workspace(root).job_state(job.key) is None  # not final: a rerun tries again


def test_unverifiable_tasks_are_dropped_when_enough_remain(fake_llm: FakeLLM, root: Path) -> None:
    bad = Reply(variant(VET, "verifiers", _failing_gold))
    script_env(fake_llm, VET, {"verifiers": [bad] * 3})
    report = generate(fake_llm, root, [VET], attempts=2, min_tasks=2)
    (job,) = report.jobs
    assert job.status == "written" and job.dropped_tasks == ["t02_cancel_biscuit"]
    tasks = (root / "envs" / "vet_clinic" / "tasks.jsonl").read_text()
    assert "t02_cancel_biscuit" not in tasks and "t03_vaccinate_both" in tasks
    assert validate_env("vet_clinic", Registry([root], include_default=False)).ok


def test_too_few_tasks_left_rejects(fake_llm: FakeLLM, root: Path) -> None:
    script_env(fake_llm, VET, {"verifiers": [Reply(variant(VET, "verifiers", _failing_gold))] * 3})
    report = generate(fake_llm, root, [VET], attempts=2, min_tasks=3)
    assert report.jobs[0].status == "rejected" and report.jobs[0].stage == "verifiers"
    assert listing(root) == {"envs": [], "verifiers": []}


def test_a_taken_name_gets_a_stable_suffix(fake_llm: FakeLLM, root: Path) -> None:
    (root / "envs" / "vet_clinic").mkdir(parents=True)  # someone else's environment
    script_env(fake_llm, VET)
    (env,) = generate(fake_llm, root, [VET]).written
    assert env.startswith("vet_clinic_") and env != "vet_clinic"
    assert json.loads((root / "envs" / env / "env.json").read_text())["id"] == env


def test_near_duplicate_ideas_are_skipped(fake_llm: FakeLLM, root: Path) -> None:
    from awm.gen.records import ScenarioIdea

    script_env(fake_llm, VET)
    config = GenConfig(root=root, limits=Limits(tasks=3), profile="compact")
    ideas = [idea(VET), ScenarioIdea(name="the veterinary clinic", description="a veterinary clinic!")]

    async def main() -> Any:
        async with client(fake_llm) as llm:
            return await Generator(llm, config, show_progress=False).run(ideas)

    report = asyncio.run(main())
    assert [j.status for j in report.jobs] == ["written", "duplicate"]
    assert len(fake_llm.seen("scenario")) == 1


# -- atomicity -----------------------------------------------------------------------------------------
def test_cancelling_a_run_leaves_the_roots_unchanged(fake_llm: FakeLLM, root: Path) -> None:
    gate = threading.Event()
    script_env(fake_llm, VET, {"verifiers": [Gate(gate, Reply(answer(VET, "verifiers")))]})
    config = GenConfig(root=root, limits=Limits(tasks=3), dedup_threshold=None, profile="compact")

    async def main() -> None:
        async with client(fake_llm, timeout=30) as llm:
            task = asyncio.create_task(Generator(llm, config, show_progress=False).run([idea(VET)]))
            while not fake_llm.seen("verifiers"):
                await asyncio.sleep(0.02)
            assert any((root / ".awm-gen" / "staging").iterdir())  # work in progress lives in staging
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(main())
    gate.set()
    assert listing(root) == {"envs": [], "verifiers": []}
    assert not any((root / ".awm-gen" / "staging").iterdir())
    report = json.loads((root / ".awm-gen" / "report.json").read_text())
    assert report["jobs"][0]["status"] == "interrupted"


def _staged(ws: Workspace, env: str) -> Path:
    staging = ws.new_staging("k")
    for sub, name in (("envs", "env.json"), ("verifiers", "verifiers.jsonl")):
        (staging / sub / env).mkdir(parents=True)
        (staging / sub / env / name).write_text("{}")
    return staging


def test_a_crash_between_the_two_renames_is_rolled_forward(root: Path) -> None:
    ws = Workspace(root)
    staging = _staged(ws, "half_done")
    (staging / "COMMIT").write_text(json.dumps({"env": "half_done"}))
    (root / "verifiers").mkdir()
    os.rename(staging / "verifiers" / "half_done", root / "verifiers" / "half_done")  # ...then the process died
    assert ws.recover() == ["completed the interrupted commit of half_done"]
    assert listing(root) == {"envs": ["half_done"], "verifiers": ["half_done"]}
    assert not staging.exists()


def test_unfinished_staging_is_removed_and_never_published(root: Path) -> None:
    ws = Workspace(root)
    staging = _staged(ws, "unfinished")
    ws.recover()
    assert not staging.exists() and listing(root) == {"envs": [], "verifiers": []}


def test_commit_refuses_to_overwrite(root: Path) -> None:
    from awm.gen.workspace import WorkspaceError

    ws = Workspace(root)
    (root / "envs" / "taken").mkdir(parents=True)
    with pytest.raises(WorkspaceError, match="already exists"):
        ws.commit(_staged(ws, "taken"), "taken")


def test_one_run_per_root(root: Path) -> None:
    from awm.gen.workspace import WorkspaceError

    ws = Workspace(root)
    with ws.lock(), pytest.raises(WorkspaceError, match="another"), Workspace(root).lock():
        pass


def test_report_timing_is_recorded(fake_llm: FakeLLM, root: Path) -> None:
    script_env(fake_llm, VET)
    started = time.monotonic()
    report = generate(fake_llm, root, [VET])
    assert 0 < report.seconds <= time.monotonic() - started
    assert report.jobs[0].stages["tools"].seconds > 0


def test_an_internal_error_fails_one_job_not_the_run(
    fake_llm: FakeLLM, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from awm.gen.stages.seed import SeedStage

    real = SeedStage.check

    async def flaky(self: SeedStage, out: Any, draft: Any, env: Any) -> list[str]:
        if draft.env_id == "vet_clinic":
            raise ValueError("boom")
        return await real(self, out, draft, env)

    monkeypatch.setattr(SeedStage, "check", flaky)
    script_env(fake_llm, VET)
    script_env(fake_llm, BIKE)
    report = generate(fake_llm, root, [VET, BIKE])
    status = {j.scenario: (j.status, j.stage) for j in report.jobs}
    assert status == {"a veterinary clinic": ("error", "seed"), "a bike-sharing service": ("written", None)}
    assert report.jobs[0].problems == ["internal error: ValueError: boom"]
    assert listing(root)["envs"] == ["bike_share"]
