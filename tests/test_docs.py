"""Every CLI command is documented in the README, and the README's quick start is two commands."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

from awm.cli import app

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_every_command_is_in_the_readme():
    group = typer.main.get_group(app)
    for name in group.commands:
        assert re.search(rf"awm {name}\b", README), f"`awm {name}` is not documented in README.md"


def test_quick_start_is_two_commands():
    block = README.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    lines = [line for line in block.strip().splitlines() if line.strip()]
    assert len(lines) == 2 and lines[1].startswith("make test")
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    assert "make test" in ci
