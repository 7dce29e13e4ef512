"""The generated catalog environments, re-generated offline from their recorded transcripts.

Each fixture under ``tests/fixtures/gen_relay/<run>/`` is one ``awm gen`` run against a capable model
(a helper session answering every prompt from its text alone, through ``awm.gen.relay``): the transcript
(every request and answer) and the settings. Replaying it (``awm.gen.relay.Replayer``: the n-th request of
a stage gets the n-th recorded answer) runs the whole pipeline again on the model's real output, every
check and the sandbox validation included; a stage that asks for more answers than were recorded fails
the run. The environment it writes must be the one in the catalog, file for file (``env.json`` up to
the provenance's date); the requests' text must match the recording unless a prompt or a check's
message changed since (then the test says which).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from awm.gen.relay import Replayer, replay_fixture
from awm.isolation import available
from awm.model.registry import BUNDLED_ROOT

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gen_relay"
RUNS = sorted(p.parent.name for p in FIXTURES.glob("*/run.json"))
FAST = ["marina"] if "marina" in RUNS else RUNS[:1]  # one representative (the quickest) in the default run

pytestmark = pytest.mark.skipif(not available(), reason="bubblewrap is not available: generated code cannot run")


def replay(run: str, tmp_path: Path) -> tuple[Path, Replayer]:
    out = tmp_path / "out"
    code, replayer = replay_fixture(FIXTURES / run, out)
    assert not replayer.exhausted, f"stages asked for more answers than recorded: {replayer.exhausted}"
    assert code == 0, (out / ".awm-gen" / "report.json").read_text()
    return out, replayer


def same_bundle(written: Path, catalog: Path) -> None:
    for sub in ("envs", "verifiers"):
        got = {p.relative_to(written / sub): p for p in (written / sub).rglob("*") if p.is_file()}
        want = {p.relative_to(catalog / sub): p for p in (catalog / sub).rglob("*") if p.is_file()}
        want = {k: v for k, v in want.items() if "__pycache__" not in k.parts}
        assert sorted(got) == sorted(want)
        for rel, path in got.items():
            if rel.name == "env.json":
                a, b = json.loads(path.read_text()), json.loads(want[rel].read_text())
                a["provenance"].pop("date"), b["provenance"].pop("date")
                assert a == b, (
                    f"{rel} differs from the catalog's (a prompt changed its hash, or the pipeline now takes another "
                    "path): re-generate with `benchmarks/gen_transcripts.py --replay . --record tests/fixtures/gen_relay/*/`"
                )
            else:
                assert path.read_bytes() == want[rel].read_bytes(), rel


def check(run: str, tmp_path: Path) -> None:
    out, replayer = replay(run, tmp_path)
    (env,) = [p.name for p in (out / "envs").iterdir() if p.is_dir()]
    catalog = tmp_path / "catalog"
    for sub in ("envs", "verifiers"):
        shutil.copytree(BUNDLED_ROOT / sub / env, catalog / sub / env)
    same_bundle(out, catalog)
    # a prompt changed since the recording: the requests it changed are listed in run.json (``gen_transcripts.py
    # --record``); any other divergence, or a listed one that no longer diverges, is a change nobody recorded
    recorded = json.loads((FIXTURES / run / "run.json").read_text()).get("diverges", [])
    assert replayer.diverged == recorded, (
        f"requests that differ from the recording: {replayer.diverged}; run.json lists {recorded} (a prompt or a "
        "check's message changed: re-record with `benchmarks/gen_transcripts.py --replay . --record "
        "tests/fixtures/gen_relay/*/`)"
    )


@pytest.mark.slow  # about a minute of CPU; CI runs it (make test-slow), the pipeline's logic runs by default in test_pipeline
@pytest.mark.timeout(600)
@pytest.mark.parametrize("run", FAST)
def test_a_generated_environment_replays_from_its_transcript(run: str, tmp_path: Path) -> None:
    check(run, tmp_path)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("run", [r for r in RUNS if r not in FAST])
def test_every_generated_environment_replays_from_its_transcript(run: str, tmp_path: Path) -> None:
    check(run, tmp_path)


def test_the_fixtures_hold_transcripts_and_settings() -> None:
    assert len(RUNS) >= 5
    for run in RUNS:
        spec = json.loads((FIXTURES / run / "run.json").read_text())
        assert spec["settings"]["profile"] == "catalog" and spec["ideas"]
        assert (FIXTURES / run / "transcript.jsonl.gz").is_file()
