"""Exports the JSON Schema of every on-disk record to ``schemas/`` (``make schemas``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from awm.bundle.records import RECORDS
from awm.gym.trajectory import TrajectoryRecord


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> JSON Schema, for every record of the bundle format."""
    out = {}
    models: dict[str, type[BaseModel]] = {**RECORDS, "trajectory": TrajectoryRecord}
    for name, model in models.items():
        schema = model.model_json_schema()
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["$id"] = f"https://awm-gym.dev/schemas/{name}.schema.json"
        out[f"{name}.schema.json"] = schema
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def export(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for fname, schema in schemas().items():
        path = directory / fname
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in export(Path(sys.argv[1] if len(sys.argv) > 1 else "schemas")):
        print(p)
