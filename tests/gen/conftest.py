"""Fixtures of the generator tests: the fake LLM server, clients pointed at it, output roots."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from awm.gen.cache import ResponseCache
from awm.gen.llm import LLMClient, Price
from awm.gen.pipeline import GenConfig, Generator
from awm.gen.records import ScenarioIdea
from awm.gen.report import RunReport
from awm.gen.stages import Limits
from tests.gen.fake_llm import FakeLLM, Reply, ServerThread
from tests.gen.scripted import STAGES, answer

FAST = {"timeout": 2.0, "retries": 3, "backoff": 0.01, "max_backoff": 0.05}


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    fake = FakeLLM()
    server = ServerThread(fake.app)
    port = server.start()
    fake.base_url = f"http://127.0.0.1:{port}/v1"
    yield fake
    server.stop()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty output root (envs/ and verifiers/ are created by the first commit)."""
    r = tmp_path / "out"
    r.mkdir()
    return r


def client(fake: FakeLLM, cache: Path | None = None, **kw: Any) -> LLMClient:
    opts: dict[str, Any] = {**FAST, "price": Price(2.0, 8.0), **kw}
    return LLMClient(fake.base_url, "fake-model", cache=ResponseCache(cache) if cache else None, **opts)


def script_env(fake: FakeLLM, env: dict[str, Any], faults: dict[str, list[Any]] | None = None) -> None:
    """Every stage of ``env``: the ``faults`` first (per stage, in order), then the good answer."""
    faults = faults or {}
    for stage in STAGES:
        when = env["idea"] if stage == "scenario" else env["marker"]
        fake.script(stage, *faults.get(stage, []), Reply(answer(env, stage)), when=when)


def idea(env: dict[str, Any]) -> ScenarioIdea:
    return ScenarioIdea(name=env["idea"], description=env["idea"])


def generate(
    fake: FakeLLM, root: Path, envs: list[dict[str, Any]], *, attempts: int = 3, cache: bool = True, **kw: Any
) -> RunReport:
    config = GenConfig(
        root=root,
        profile="compact",
        max_attempts=attempts,
        limits=Limits(tasks=3, min_tasks=kw.pop("min_tasks", 3)),
        sandbox_timeout=kw.pop("sandbox_timeout", 30.0),
        call_timeout=kw.pop("call_timeout", 1.0),
        dedup_threshold=None,
    )

    async def main() -> RunReport:
        async with client(fake, root / ".awm-gen" / "cache" if cache else None, **kw) as llm:
            return await Generator(llm, config, show_progress=False).run([idea(e) for e in envs])

    return asyncio.run(main())
