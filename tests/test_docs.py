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
import shutil
import subprocess
import sys
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


# one runner per process: were this module's tests interleaved with other modules' (pytest-xdist's default
# distribution; make test keeps modules whole), a module-scoped runner would be rebuilt at each switch and
# re-run each section's earlier blocks
@pytest.fixture(scope="session")
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


def test_slow_blocks_run_with_m_slow() -> None:
    """A block marked slow is deselected by default and runs under ``-m slow`` (``make test-all``): it carries
    the slow mark and nothing else (no skip, no requirement, nothing that keeps the harness from running it)."""
    slow = [b for b in BLOCKS if b.slow]
    assert slow, "no README block is marked slow: drop this test or restore the directive"
    for block in slow:
        marks = _param(block).marks  # type: ignore[attr-defined]
        assert [m.name for m in marks] == ["slow"], block.id
        assert block.skip is None and not block.skip_prefixes and not block.requires and not block.problems()
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-o", "addopts=", "-q", "-m", "slow", "-p", "no:cacheprovider",
         __file__],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    for block in slow:
        assert f"test_readme_block_runs_as_pasted[{block.id}]" in out.stdout, out.stdout + out.stderr


_WRITES = re.compile(r"--(?:out|output-dir)[= ](\S+)")


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs git and a clone")
def test_what_the_readme_writes_into_the_clone_is_ignored_by_git() -> None:
    """The README's commands write into the clone (``--out data/...``, ``--out imported``, ``--out runs/...``):
    a ``git status`` after following it must stay clean."""
    written = {
        path
        for block in BLOCKS
        if block.lang == "bash" and block.skip is None
        for cmd in block.commands()
        if block.skipped_because(cmd) is None
        for path in _WRITES.findall(cmd.text)
    }
    assert {"data/train.parquet", "imported", "runs/oracle"} <= written, written
    for path in sorted(written):
        as_file_or_folder = (path, path.rstrip("/") + "/")
        checks = [subprocess.run(["git", "check-ignore", "-q", "--no-index", p], cwd=ROOT) for p in as_file_or_folder]
        assert any(c.returncode == 0 for c in checks), f"README blocks write {path}, and .gitignore does not ignore it"


def test_the_ray_section_explains_the_token_auth_warning() -> None:
    """Ray prints a token-authentication warning on ``ray.init()``; the tests set RAY_AUTH_MODE=disabled
    (``DocsRunner``, ``.ci/run``), and the README says what the warning means and how to silence it."""
    section = README.split("## Many machines: Ray", 1)[1].split("\n## ", 1)[0]
    assert "Token authentication" in section and "export RAY_AUTH_MODE=disabled" in section
    assert "ray.init()" in section.split("RAY_AUTH_MODE=disabled", 1)[0]


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
