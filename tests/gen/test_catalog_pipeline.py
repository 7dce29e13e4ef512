"""The catalog profile end to end against the scripted server: scenario -> schema -> world -> tools ->
templates, with world.py and tools.py running isolated and the bundle validated on built worlds."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from awm.gen.pipeline import GenConfig, Generator
from awm.gen.records import ScenarioIdea
from awm.gen.report import RunReport
from awm.isolation import available
from awm.model.registry import Registry
from awm.proof.validate import validate_env
from tests.gen.conftest import client
from tests.gen.fake_llm import FakeLLM, Reply
from tests.gen.scripted_catalog import BAKERY, LIMITS, STAGES

pytestmark = pytest.mark.skipif(not available(), reason="bubblewrap is not available: generated code cannot run")


def script(fake: FakeLLM, env: dict[str, Any], faults: dict[str, list[str]] | None = None) -> None:
    for stage in STAGES:
        when = env["idea"] if stage == "scenario" else env["marker"]
        replies = [Reply(f) for f in (faults or {}).get(stage, [])]
        fake.script(stage, *replies, Reply(json.dumps(env[stage])), when=when)


def run(fake: FakeLLM, root: Path) -> RunReport:
    config = GenConfig(root=root, limits=LIMITS, sandbox_timeout=120.0, dedup_threshold=None, max_attempts=3)

    async def main() -> RunReport:
        async with client(fake) as llm:
            return await Generator(llm, config, show_progress=False).run(
                [ScenarioIdea(name="bakery", description=BAKERY["idea"])]
            )

    return asyncio.run(main())


@pytest.mark.slow  # ~12 s: a whole catalog-profile generation (CI runs it with -m slow)
def test_catalog_profile_writes_templates_world_and_fixed_tasks(fake_llm: FakeLLM, root: Path) -> None:
    no_actor = BAKERY["catalog_tools"]["tools_py"].replace(
        '@tool(write=True, actor="customer_email")\ndef change_pickup', "@tool(write=True)\ndef change_pickup"
    )
    tiny_world = BAKERY["world"]["world_py"].replace("ctx.n(12, 60)", "ctx.n(2, 60)")
    script(
        fake_llm,
        BAKERY,
        {"catalog_tools": [json.dumps({"tools_py": no_actor})], "world": [json.dumps({"world_py": tiny_world})]},
    )
    report = run(fake_llm, root)
    (job,) = report.jobs
    assert job.status == "written", job.problems
    env, ver = root / "envs" / "bakery", root / "verifiers" / "bakery"
    for f in ("env.json", "schema.sql", "seed.json", "tools.py", "world.py", "tasks.jsonl", "templates.jsonl"):
        assert (env / f).is_file(), f
    assert (ver / "templates.jsonl").is_file() and (ver / "verifiers.jsonl").is_file()
    manifest = json.loads((env / "env.json").read_text())
    assert manifest["trusted"] is False and manifest["provenance"]["source"] == "generated"
    assert manifest["provenance"]["attempts"] == {"scenario": 1, "schema": 1, "world": 2, "tools": 2, "templates": 1}
    tasks = [json.loads(line) for line in (env / "tasks.jsonl").read_text().splitlines()]
    assert [t["id"] for t in tasks] == ["t01_order_cake", "t02_cancel_order", "t03_move_and_cancel"]
    assert "template" not in tasks[0] and "{" not in tasks[1]["instruction"]
    # the retries told the model exactly what was wrong
    world_retry = fake_llm.seen("world")[1].text()
    assert "the small world (seed 0) has" in world_retry and "build between 30 and" in world_retry
    tools_retry = fake_llm.seen("catalog_tools")[1].text()
    assert "write tools without an acting person: change_pickup" in tools_retry
    # the committed bundle validates on built worlds (its builder isolated: the manifest is untrusted)
    rep = validate_env("bakery", Registry([root], include_default=False), seeds=2)
    assert rep.ok, [str(p) for p in rep.problems]
    seed = json.loads((env / "seed.json").read_text())
    assert sum(len(r) for r in seed["tables"].values()) >= 30
