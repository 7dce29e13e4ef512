from __future__ import annotations

import pytest

from awm.gen.jsonparse import OutputError, extract_json, parse_output
from awm.gen.records import ScenarioOut, TasksOut


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '```json\n{"a": 1}\n```',
        'Here you go:\n```\n{"a": 1}\n```\nAnything else?',
        '<think>I should answer {"a": 2} maybe</think>\n{"a": 1}',
        'Sure! {"a": 1} Hope this helps.',
        '{"a": 1,}',
        'reasoning without the opening tag</think>{"a": 1}',
    ],
)
def test_tolerant_parsing_finds_the_object(text: str) -> None:
    assert extract_json(text) == {"a": 1}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("<think>still thinking about {", "<think>"),
        ('{"tasks": [ {"id": "t01", oops', "not valid JSON"),
    ],
)
def test_unparseable_answers_say_why(text: str, reason: str) -> None:
    with pytest.raises(OutputError, match=reason):
        extract_json(text)


def test_validation_errors_name_the_field() -> None:
    with pytest.raises(OutputError) as e:
        parse_output('{"tasks": [{"id": "t01", "instruction": "x", "kind": "chat"}]}', TasksOut)
    assert "tasks.0.kind" in str(e.value)
    with pytest.raises(OutputError, match="expected a JSON object"):
        parse_output("[1, 2]", TasksOut)


def test_extra_top_level_keys_are_ignored() -> None:
    out = parse_output(
        '{"reasoning": "...", "id": "vet", "title": "Vet", "description": "A vet clinic in town.", '
        '"clock": "2026-03-02T09:30:00"}',
        ScenarioOut,
    )
    assert out.id == "vet"
