"""``schemas/`` holds exactly the JSON Schemas of the pydantic records, and bundles validate against them."""

import json
from pathlib import Path

import jsonschema

from awm.data.schema_export import render, schemas
from tests.conftest import FIXTURE_ROOT

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


def test_exported_schemas_match_the_models():
    expected = schemas()
    on_disk = {p.name for p in SCHEMA_DIR.glob("*.schema.json")}
    assert expected.keys() <= on_disk, "run `make schemas`"
    for name, schema in expected.items():
        assert (SCHEMA_DIR / name).read_text() == render(schema), f"{name} is stale: run `make schemas`"


def test_fixture_files_validate_against_the_exported_schemas():
    load = lambda n: json.loads((SCHEMA_DIR / n).read_text())  # noqa: E731
    env = FIXTURE_ROOT / "envs" / "mini_shop"
    jsonschema.validate(json.loads((env / "env.json").read_text()), load("manifest.schema.json"))
    jsonschema.validate(json.loads((env / "seed.json").read_text()), load("seed.schema.json"))
    for line in (env / "tasks.jsonl").read_text().splitlines():
        jsonschema.validate(json.loads(line), load("task.schema.json"))
    for line in (FIXTURE_ROOT / "verifiers/mini_shop/verifiers.jsonl").read_text().splitlines():
        jsonschema.validate(json.loads(line), load("task_verifier.schema.json"))
