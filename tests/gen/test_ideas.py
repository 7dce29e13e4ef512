"""Scenario diversity: the seed list, lexical and embedding de-duplication, ``awm gen scenarios``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from awm.cli import app
from awm.gen.dedup import LEXICAL_THRESHOLD, LexicalIndex, normalise_name
from awm.gen.ideas import generate_ideas, ideas_from_text, read_ideas
from awm.gen.prompts import GENERATORS_DIR
from awm.gen.records import ScenarioIdea
from tests.gen.conftest import client
from tests.gen.fake_llm import FakeLLM, Reply

SEEDS = GENERATORS_DIR / "seed_scenarios.jsonl"


def ideas_reply(*pairs: tuple[str, str]) -> Reply:
    return Reply(json.dumps({"scenarios": [{"name": n, "description": d} for n, d in pairs]}))


def test_seed_list_is_large_and_diverse() -> None:
    seeds = read_ideas(SEEDS)
    assert len(seeds) >= 100
    assert len({normalise_name(s.name) for s in seeds}) == len(seeds)
    for i, s in enumerate(seeds):  # no seed is a near-duplicate of another
        index = LexicalIndex()
        for j, t in enumerate(seeds):
            if i != j:
                index.add(t.name, t.description)
        assert not index.is_duplicate(s.name, s.description)[0], s.name


@pytest.mark.parametrize(
    ("name", "text", "dup"),
    [
        (
            "Animal hospital",
            "A veterinary hospital for pets: owners, vaccination records, appointments with vets.",
            True,
        ),
        ("Veterinary Clinic", "Something else entirely.", True),  # same name
        (
            "Bicycle rental stations",
            "Riders rent bikes from docking stations with prepaid balances; bikes need repair.",
            True,
        ),
        ("Space tourism agency", "Book trips to orbit with astronaut training schedules.", False),
        ("Orthodontist", "An orthodontist: braces treatment plans, adjustment visits and payment plans.", False),
    ],
)
def test_lexical_dedup(name: str, text: str, dup: bool) -> None:
    index = LexicalIndex(LEXICAL_THRESHOLD)
    for s in read_ideas(SEEDS):
        index.add(s.name, s.description)
    assert index.is_duplicate(name, text)[0] is dup


def test_reading_ideas(tmp_path: Path) -> None:
    path = tmp_path / "ideas.jsonl"
    path.write_text(
        '{"name": "Dentist", "description": "A dental practice."}\n\n# comment\na ferry company\n{"description": "a zoo with keepers"}\n'
    )
    assert [(i.name, i.description) for i in read_ideas(path)] == [
        ("Dentist", "A dental practice."),
        ("a ferry company", "a ferry company"),
        ("a zoo with keepers", "a zoo with keepers"),
    ]
    assert [i.name for i in ideas_from_text("a veterinary clinic; a bike-sharing service;")] == [
        "veterinary clinic",
        "bike-sharing service",
    ]


def test_generate_ideas_dedups_against_seeds_and_itself(fake_llm: FakeLLM) -> None:
    fake_llm.script(
        "scenario_ideas",
        ideas_reply(
            ("Lighthouse museum", "A lighthouse museum selling tour tickets and gift shop items."),
            ("Veterinary clinic", "A vet practice."),  # a seed
            ("Lighthouse museum tours", "A lighthouse museum selling tour tickets and gift-shop items."),  # itself
            ("Beekeeping club", "A beekeeping club: hives, members, honey harvests and equipment loans."),
        ),
        ideas_reply(("Kite festival", "A kite festival: entrants, flying slots, judges and prizes.")),
        "not json at all",
    )
    seeds = read_ideas(SEEDS)
    accepted: list[ScenarioIdea] = []

    async def main() -> object:
        async with client(fake_llm) as llm:
            return await generate_ideas(llm, seeds=seeds, count=3, parallel=1, on_accept=accepted.append)

    result = asyncio.run(main())
    assert [i.name for i in accepted] == ["Lighthouse museum", "Beekeeping club", "Kite festival"]
    assert {d[0] for d in result.duplicates} == {"Veterinary clinic", "Lighthouse museum tours"}  # type: ignore[attr-defined]
    first = fake_llm.seen("scenario_ideas")[0].text()
    assert "Examples of the kind wanted" in first and "Propose 10 new" in first


def test_embedding_dedup_through_the_same_endpoint(fake_llm: FakeLLM) -> None:
    fake_llm.script(
        "scenario_ideas",
        ideas_reply(("Garden club", "garden club plants seeds"), ("Plants seeds club", "club garden seeds plants")),
    )
    seeds = [ScenarioIdea(name="Bakery", description="bread cakes orders")]

    async def main() -> object:
        async with client(fake_llm) as llm:
            return await generate_ideas(
                llm, seeds=seeds, count=2, parallel=1, threshold=1.01, embed_model="emb", max_rounds=1
            )

    result = asyncio.run(main())
    assert [i.name for i in result.accepted] == ["Garden club"]  # type: ignore[attr-defined]
    assert fake_llm.embedding_requests == 2  # the pool once, the round's candidates once


def test_gen_scenarios_command(fake_llm: FakeLLM, tmp_path: Path) -> None:
    fake_llm.script(
        "scenario_ideas",
        ideas_reply(
            ("Lighthouse museum", "A lighthouse museum selling tour tickets and gift shop items."),
            ("Beekeeping club", "A beekeeping club: hives, members, honey harvests and equipment loans."),
        ),
    )
    out = tmp_path / "scenarios.jsonl"
    out.write_text(json.dumps({"name": "Beekeeping club", "description": "Hives and honey for members."}) + "\n")
    seeds_before = SEEDS.read_bytes()
    args = ["gen", "scenarios", "--count", "1", "--out", str(out), "--base-url", fake_llm.base_url, "--model", "m"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = [json.loads(x)["name"] for x in out.read_text().splitlines()]
    assert lines == ["Beekeeping club", "Lighthouse museum"]  # appended, de-duplicated against the file
    assert SEEDS.read_bytes() == seeds_before
    assert (tmp_path / ".awm-gen" / "cache").is_dir()
    bad = CliRunner().invoke(app, ["gen", "scenarios", "--from", str(out), "--out", str(out), "--model", "m"])
    assert bad.exit_code == 2 and "must differ" in bad.output
