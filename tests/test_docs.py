"""The README runs as pasted: every ```bash and ```python block of README.md and examples/README.md is
executed, in order, in a sandbox that looks like a fresh clone after ``make demo``.

How a block runs (``tests/docs/harness.py`` has the details):

- a ```bash block is one bash script (``set -eo pipefail``, stdin closed), without the venv on ``PATH``, so
  a bare ``awm`` or ``python`` fails as it would in a new shell; a command ending in ``&`` is a background
  process (a server): the script waits until every port it names with ``--...port N`` accepts connections,
  and the process lives until a block of another section runs (or the module ends);
- a ```python block is a script run by ``.venv/bin/python``, so each one must be self-contained;
- blocks of one ``##`` section run in order: a block's test first runs the blocks before it in its section
  (except skipped and slow ones, which nothing may depend on);
- the ports that background commands name are remapped to free ports throughout their section, so a
  server the developer has running does not collide with the test;
- commands are never run when they would change the machine or hang: a bare ``awm``/``python``/``pip``,
  a package install, or a server (``awm serve``, ``awm mcp``) without ``&`` or a stdin redirect fails
  ``test_readme_blocks_are_well_formed`` unless a directive skips it.

A block that cannot run here says so in the README, with a visible reason, in an HTML comment right
above it (one directive per comment; several comments may stack):

    <!-- docs: skip — needs an OpenAI API key and the network -->         the whole block
    <!-- docs: skip `make test`, `make check` — runs this test suite -->    commands starting with these
    <!-- docs: slow — a 13 s benchmark -->                                 runs only with -m slow
    <!-- docs: requires ray -->                                            skipped, visibly, without ray
    <!-- docs: timeout 180 -->                                             seconds (default 60)

A skip always shows up as a pytest skip with its reason; a fence without a language, a directive
without a reason or a directive that no block follows fails ``test_readme_blocks_are_well_formed``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import typer.main

from awm.cli import app
from tests.docs.harness import DOCS, NESTED, ROOT, Block, DocsRunner, parse

README = (ROOT / "README.md").read_text()
PARSED = [parse(path) for path in DOCS]
BLOCKS = [b for blocks, _ in PARSED for b in blocks if b.runnable]


def _param(block: Block) -> object:
    marks = [pytest.mark.slow] if block.slow else []
    return pytest.param(block, id=block.id, marks=marks)


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory):
    runner = DocsRunner(tmp_path_factory.mktemp("clone"), [b for blocks, _ in PARSED for b in blocks])
    yield runner
    runner.close()


@pytest.mark.skipif(bool(os.environ.get(NESTED)), reason="run from a README block: no README blocks inside it")
@pytest.mark.timeout(900)
@pytest.mark.parametrize("block", [_param(b) for b in BLOCKS])
def test_readme_block_runs_as_pasted(docs: DocsRunner, block: Block) -> None:
    docs.run(block)


def test_readme_blocks_are_well_formed() -> None:
    errors = [e for _, errs in PARSED for e in errs]
    assert not errors, "\n".join(errors)
    assert len(BLOCKS) >= 10, "the docs harness found too few blocks"
    # nothing that a fresh shell lacks (a bare `awm` or `python`) or that installs packages, unless skipped
    problems = [p for block in BLOCKS for p in block.problems()]
    assert not problems, "\n".join(problems)


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


def test_chat_observation_is_the_message_list_as_json_text():
    """What the README says of ``observation="chat"``: the observation is the message list as JSON text
    (a Gymnasium Text space), and the list itself is ``info["messages"]``."""
    import json

    import gymnasium as gym

    import awm  # noqa: F401

    env = gym.make("awm/clinic-v0", observation="chat", action_format="hermes")
    obs, info = env.reset(seed=0)
    assert isinstance(obs, str) and json.loads(obs) == info["messages"]
    assert [m["role"] for m in info["messages"]] == ["system", "user"]
    obs, *_, info = env.step('<tool_call>{"name": "list_doctors", "arguments": {}}</tool_call>')
    assert json.loads(obs) == info["messages"] and info["messages"][-1]["role"] == "tool"
