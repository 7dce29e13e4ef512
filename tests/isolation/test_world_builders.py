"""World builders of untrusted bundles (``env.json`` ``"trusted": false``) run in a sandboxed ``world`` worker.

The same builder gives byte-identical worlds trusted and untrusted, ``awm validate --seeds`` passes on an
untrusted copy of a catalog environment, and a hostile or broken builder ends with a clear
``WorldBuildError`` while this process, and the next build, are fine.
"""

from __future__ import annotations

import json
import shutil
import time
from datetime import datetime
from pathlib import Path

import pytest

from awm.isolation import Limits, worlds
from awm.model.builders import build_seed
from awm.model.registry import Registry
from awm.model.world import World
from awm.proof.validate import validate_env
from awm.worldgen import Scale, WorldBuildError, WorldKey

REPO = Path(__file__).resolve().parents[2]
ENV = "calendar"
KEYS = [WorldKey(1), WorldKey(7, Scale.small, True), WorldKey(12)]
CLOCK = datetime(2026, 3, 16, 9, 0)


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two copies of the catalog's calendar: trusted, and marked untrusted."""
    out = []
    for trusted in (True, False):
        root = tmp_path_factory.mktemp("trusted" if trusted else "untrusted")
        shutil.copytree(REPO / "envs" / ENV, root / "envs" / ENV, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "verifiers" / ENV, root / "verifiers" / ENV)
        path = root / "envs" / ENV / "env.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "trusted": trusted}))
        out.append(root)
    return out[0], out[1]


@pytest.fixture(scope="module")
def pair(roots: tuple[Path, Path]) -> tuple[World, World]:
    trusted, untrusted = (Registry([r], include_default=False).load(ENV) for r in roots)
    assert trusted.manifest.trusted and not untrusted.manifest.trusted
    return trusted, untrusted


@pytest.mark.parametrize("key", KEYS, ids=lambda k: k.label)
def test_an_untrusted_builder_builds_the_same_world_as_a_trusted_one(pair, key: WorldKey) -> None:
    trusted, untrusted = pair
    a, b = World(trusted._canonical_files, key=key), World(untrusted._canonical_files, key=key)
    assert a.files.seed == b.files.seed
    assert a.seed_blob == b.seed_blob
    assert sum(len(rows) for rows in b.files.seed.tables.values()) > 30
    # the seed data itself, as the trusted path returns it from the builder
    path = untrusted.files.builder_path
    assert path is not None
    assert build_seed(path, key, untrusted.clock, trusted=False) == build_seed(path, key, untrusted.clock)


def test_variants_of_an_untrusted_world_are_built(pair) -> None:
    trusted, untrusted = pair
    key = WorldKey(3, Scale.small, True)
    assert untrusted.variant(key).seed_blob == trusted.variant(key).seed_blob


def test_validate_with_seeds_passes_on_an_untrusted_catalog_environment(roots) -> None:
    report = validate_env(ENV, Registry([roots[1]], include_default=False), seeds=2, audit=False)
    assert report.ok, "\n".join(map(str, report.problems))
    assert report.stats["worlds"] == 2 and report.stats["instances"] > 0


# -- hostile and broken builders ------------------------------------------------------------------------
GOOD = "def build(ctx):\n    return {'t': [{'v': ctx.rng.randint(0, 10**9), 'name': ctx.faker.name()}]}\n"
HOSTILE = [
    pytest.param(
        "def build(ctx):\n    return {'t': [{'v': open('/etc/passwd').read()}]}\n",
        "build failed: FileNotFoundError: [Errno 2] No such file or directory: '/etc/passwd'",
        id="reads-etc-passwd",
    ),
    pytest.param(
        f"def build(ctx):\n    return {{'t': [{{'v': open({str(REPO / 'awm' / 'world.py')!r}).read()}}]}}\n",
        "build failed: FileNotFoundError",
        id="reads-the-project",
    ),
    pytest.param(
        "import socket\n\ndef build(ctx):\n    socket.socket().connect(('127.0.0.1', 80))\n    return {}\n",
        "build failed: PermissionError: [Errno 1] Operation not permitted",
        id="opens-a-socket",
    ),
    pytest.param(
        "def build(ctx):\n    raise ValueError('no rooms left')\n",
        "build failed: ValueError: no rooms left",
        id="raises",
    ),
    pytest.param("def make(ctx):\n    return {}\n", "defines no build(ctx) function", id="no-build"),
    pytest.param("import no_such_module_awm\n", "does not import: ModuleNotFoundError", id="bad-import"),
    pytest.param(
        "from awm.worldgen import WorldContext\n\ndef build(ctx: WorldContext):\n"
        "    seen = set()\n    return {'t': [{'v': ctx.unique(lambda: 1, seen)} for _ in range(2)]}\n",
        "could not draw a unique value after 200 tries (last 1)",
        id="unique-exhausted",
    ),
    pytest.param(
        "def build(ctx):\n    return [('t', [])]\n",
        "build() must return a dict of table -> rows, got list",
        id="not-a-dict",
    ),
    pytest.param(
        "def build(ctx):\n    return {'t': [1, 2]}\n",
        "must return table -> list of row dicts: tables.t.0: Input should be a valid dictionary",
        id="not-rows",
    ),
    pytest.param(
        "def build(ctx):\n    return {'t': [{'v': object()}]}\n",
        "must return table -> list of row dicts: tables.t.0.v: a value of type object",
        id="unsupported-value",
    ),
    pytest.param(
        "def build(ctx):\n    x = bytearray(10 << 30)\n    return {}\n",
        "build failed: MemoryError",
        id="allocates-10-gb",
    ),
    pytest.param(
        "import sys\n\ndef build(ctx):\n    sys.exit(3)\n",
        "build failed: the code tried to exit (SystemExit)",
        id="exits",
    ),
    pytest.param(
        "import os\n\ndef build(ctx):\n    os._exit(3)\n",
        "build failed: its sandboxed worker failed: the worker died",
        id="kills-its-worker",
    ),
]


def _builder(tmp_path: Path, body: str, name: str = "env") -> Path:
    path = tmp_path / name / "world.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return path


@pytest.mark.parametrize(("body", "fragment"), HOSTILE)
def test_a_hostile_or_broken_builder_gives_a_clear_error_and_the_next_build_works(
    tmp_path: Path, body: str, fragment: str
) -> None:
    with pytest.raises(WorldBuildError) as info:
        build_seed(_builder(tmp_path, body), WorldKey(4), CLOCK, trusted=False)
    assert fragment in str(info.value)
    good = _builder(tmp_path, GOOD, "good")
    assert build_seed(good, WorldKey(4), CLOCK, trusted=False) == build_seed(good, WorldKey(4), CLOCK)


def test_the_errors_are_worded_as_the_trusted_path_words_them(tmp_path: Path) -> None:
    for i, body in enumerate(
        [
            "def build(ctx):\n    raise ValueError('no rooms left')\n",
            "def make(ctx):\n    return {}\n",
            "def build(ctx)\n    return {}\n",
            "def build(ctx):\n    return {'t': 5}\n",
            "def build(ctx):\n    return {'t': [{1: 2}]}\n",
            "def build(ctx):\n    return 3\n",
        ]
    ):
        path = _builder(tmp_path, body, f"env{i}")
        messages = []
        for trusted in (True, False):
            with pytest.raises(WorldBuildError) as info:
                build_seed(path, WorldKey(4), CLOCK, trusted=trusted)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


def test_a_builder_that_never_returns_is_stopped_at_the_time_limit(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(worlds, "LIMITS", Limits(call_s=1.0))
    path = _builder(tmp_path, "def build(ctx):\n    while True:\n        pass\n")
    t = time.monotonic()
    with pytest.raises(WorldBuildError, match=r"env world s4: build failed: did not finish within 1 s"):
        build_seed(path, WorldKey(4), CLOCK, trusted=False)
    assert time.monotonic() - t < 10
    good = _builder(tmp_path, GOOD, "good")
    assert build_seed(good, WorldKey(4), CLOCK, trusted=False) == build_seed(good, WorldKey(4), CLOCK)


def test_no_bubblewrap_is_a_world_build_error_with_the_install_hint(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(worlds, "available", lambda: False)
    with pytest.raises(WorldBuildError, match="apt-get install bubblewrap"):
        build_seed(_builder(tmp_path, GOOD), WorldKey(1), CLOCK, trusted=False)


def test_a_venv_reached_through_a_symlink_under_tmp_still_runs_the_worker(roots, tmp_path: Path) -> None:
    """A clone whose ``.venv`` is a symlink (the README harness's sandbox clone, a venv linked from elsewhere):
    ``sys.executable`` names a path under ``/tmp`` that the sandbox does not mount, so the worker must be started
    by the venv's real path, or every untrusted build dies with "the pipe closed"."""
    import subprocess
    import sys

    link = tmp_path / "linked-venv"
    link.symlink_to(Path(sys.prefix).resolve())
    python = link / "bin" / Path(sys.executable).name
    script = (
        "import sys; from pathlib import Path; from awm.model.registry import Registry; from awm.model.world import World;"
        "from awm.worldgen import WorldKey;"
        f"w = Registry([Path({str(roots[1])!r})], include_default=False).load({ENV!r});"
        "print(sum(len(r) for r in World(w._canonical_files, key=WorldKey(3)).files.seed.tables.values()))"
    )
    out = subprocess.run([str(python), "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.strip().splitlines()[-1]) > 30


def test_a_python_installed_under_tmp_is_mounted_after_the_private_tmp(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clone (and its venv) under /tmp, as in a CI checkout there: the sandbox's private /tmp must be mounted
    before the interpreter's folders, or it hides them and every untrusted build dies with "the pipe closed"."""
    from awm.isolation import sandbox

    monkeypatch.setattr(sandbox, "_python_roots", lambda: ["/tmp/ci-checkout/.venv", "/opt/python"])
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: "/usr/bin/bwrap")
    argv = sandbox.command("tools", Limits())
    tmpfs = argv.index("--tmpfs")
    assert argv[tmpfs + 1] == "/tmp"
    binds = [i for i, a in enumerate(argv) if a == "--ro-bind" and argv[i + 2].startswith("/tmp/")]
    assert binds and all(i > tmpfs for i in binds), argv


SHARED_TOOLS = '''from awm.tooling import Db, dollars, tool


def fee_cents(nights: int) -> int:
    return 1500 + 250 * nights


@tool
def quote_fee(db: Db, nights: int) -> dict:
    """The fee for a stay.

    Args:
        nights: how many nights.
    """
    return {"fee": dollars(fee_cents(nights))}
'''
SHARED_WORLD = """def build(ctx):
    nights = [ctx.rng.randint(1, 9) for _ in range(5)]
    return {"stays": [{"id": i + 1, "nights": n, "fee_cents": ctx.tools.fee_cents(n)} for i, n in enumerate(nights)]}
"""


def test_a_builder_calls_its_own_tools_helpers_through_ctx_tools_trusted_or_not(tmp_path: Path) -> None:
    path = _builder(tmp_path, SHARED_WORLD)
    (path.parent / "tools.py").write_text(SHARED_TOOLS)
    here, isolated = (build_seed(path, WorldKey(3), CLOCK, trusted=t) for t in (True, False))
    assert here == isolated
    rows = here.tables["stays"]
    assert [r["fee_cents"] for r in rows] == [1500 + 250 * r["nights"] for r in rows]
    # a builder with no tools.py beside it is told so, in either path
    lonely = _builder(tmp_path, SHARED_WORLD, "lonely")
    messages = []
    for trusted in (True, False):
        with pytest.raises(WorldBuildError, match=r"without its bundle's tools.py") as info:
            build_seed(lonely, WorldKey(3), CLOCK, trusted=trusted)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
