"""Randomized worlds (``awm.worldgen``): world labels, the builder's seeded context, and builders that fail."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from awm.bundle.loader import read_bundle
from awm.model.builders import build_seed, load_builder
from awm.model.registry import Registry
from awm.model.world import World
from awm.worldgen import Scale, Tables, WorldBuildError, WorldContext, WorldKey

CLOCK = datetime(2026, 3, 2, 9, 30)


def _ctx(seed: int = 1, scale: Scale = Scale.small, distractors: bool = False) -> WorldContext:
    return WorldContext(seed, scale, distractors, CLOCK)


def _files(root: Path):
    return read_bundle(root / "envs" / "mini_shop", root / "verifiers" / "mini_shop")


def _builder(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "env" / "world.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(body)
    return path


# -- WorldKey -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("key", "label"),
    [
        (WorldKey(), "c"),
        (WorldKey(0), "s0"),
        (WorldKey(12), "s12"),
        (WorldKey(12, Scale.large), "l12"),
        (WorldKey(12, Scale.small, True), "s12d"),
        (WorldKey(12, Scale.large, True), "l12d"),
        (WorldKey(10_000), "s10000"),
    ],
)
def test_label_and_parse_are_inverses(key: WorldKey, label: str) -> None:
    assert key.label == label
    assert WorldKey.parse(label) == key
    assert key.canonical == (label == "c")


@pytest.mark.parametrize(
    "label", ["", "C", "x1", "s", "l", "sd", "s12dd", "d12", "s1.5", "s-1", "s+1", "s01", "s1_0", "s 1", " s1", "s١"]
)
def test_bad_labels_are_refused(label: str) -> None:
    with pytest.raises(WorldBuildError, match="bad world label"):
        WorldKey.parse(label)


# -- WorldContext ---------------------------------------------------------------------------------
def _draws(ctx: WorldContext) -> list[object]:
    return [
        ctx.rng.random(),
        ctx.faker.name(),
        ctx.faker.email(),
        ctx.pick(["a", "b", "c", "d"]),
        ctx.sample(range(100), 5),
        ctx.chance(0.5),
        ctx.weighted({"x": 1.0, "y": 2.0, "z": 3.0}),
        ctx.days_ago(0, 365),
        ctx.moment_ago(0, 30),
    ]


def test_same_seed_same_draws_and_different_seeds_differ() -> None:
    assert _draws(_ctx(7)) == _draws(_ctx(7))
    assert _draws(_ctx(7)) != _draws(_ctx(8))
    # the Faker of one context does not share state with another's
    a, b = _ctx(7), _ctx(7)
    _ctx(7).faker.name()
    assert a.faker.name() == b.faker.name()


def test_n_by_scale() -> None:
    assert _ctx(scale=Scale.small).n(8, 80) == 8
    assert _ctx(scale=Scale.large).n(8, 80) == 80
    assert _ctx(scale=Scale.large).large and not _ctx().large


def test_dates_are_relative_to_the_frozen_clock() -> None:
    ctx = _ctx(3)
    assert ctx.today == date(2026, 3, 2)
    for _ in range(200):
        d = ctx.days_ago(5, 10)
        assert date(2026, 2, 20) <= d <= date(2026, 2, 25)
        assert ctx.days_ago(-3, -1) > ctx.today  # negative: the future
        m = ctx.moment_ago(1, 2)
        assert CLOCK - timedelta(days=2) <= m <= CLOCK - timedelta(days=1)
        assert m.microsecond == 0
    assert ctx.days_ago(0, 0) == ctx.today and ctx.moment_ago(0, 0) == CLOCK


def test_between_draws_inside_the_range_and_nothing_for_an_empty_one() -> None:
    ctx = WorldContext(3, Scale.small, False, CLOCK)
    lo, hi = CLOCK - timedelta(days=2), CLOCK - timedelta(days=1)
    moments = [ctx.between(lo, hi) for _ in range(50)]
    assert all(lo <= m <= hi and m.microsecond == 0 for m in moments) and len(set(moments)) > 40
    state = ctx.rng.getstate()
    assert ctx.between(hi, lo) == hi and ctx.between(hi, hi) == hi
    assert ctx.rng.getstate() == state  # an empty range draws nothing: later draws stay as they were


def test_tables_number_each_tables_rows_in_insert_order() -> None:
    t = Tables(["customers", "orders"])
    assert list(t) == ["customers", "orders"] and t["orders"] == []
    ann = t.add("customers", {"name": "Ann"})
    t.add("orders", {"customer_id": ann["id"]})
    t.add("orders", {"customer_id": ann["id"], "id": 99})  # an explicit id wins
    assert t == {
        "customers": [{"id": 1, "name": "Ann"}],
        "orders": [{"id": 1, "customer_id": 1}, {"id": 99, "customer_id": 1}],
    }
    assert isinstance(t, dict)


def test_unique_adds_to_seen_and_raises_when_exhausted() -> None:
    ctx = _ctx()
    seen: set[int] = set()
    values = [ctx.unique(lambda: ctx.rng.randint(1, 3), seen) for _ in range(3)]
    assert sorted(values) == [1, 2, 3] and seen == {1, 2, 3}
    with pytest.raises(WorldBuildError, match="could not draw a unique value after 50 tries"):
        ctx.unique(lambda: ctx.rng.randint(1, 3), seen, tries=50)


# -- build_seed and load_builder ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("def make(ctx):\n    return {}\n", "defines no build(ctx) function"),
        ("build = 3\n", "defines no build(ctx) function"),
        ("import no_such_module_awm\n", "does not import: ModuleNotFoundError"),
        ("def build(ctx)\n    return {}\n", "does not import: SyntaxError"),
        (
            "def build(ctx):\n    raise RuntimeError('out of names')\n",
            "env world s4: build failed: RuntimeError: out of names",
        ),
        ("def build(ctx):\n    return [('customers', [])]\n", "build() must return a dict of table -> rows, got list"),
        ("def build(ctx):\n    return {'customers': 5}\n", "must return table -> list of row dicts: tables.customers"),
        ("def build(ctx):\n    return {'customers': [1, 2]}\n", "must return table -> list of row dicts"),
    ],
)
def test_build_seed_errors_are_world_build_errors(tmp_path: Path, body: str, fragment: str) -> None:
    path = _builder(tmp_path, body)
    with pytest.raises(WorldBuildError) as info:
        build_seed(path, WorldKey(4), CLOCK)
    assert fragment in str(info.value)


def test_build_seed_passes_the_key_and_clock(tmp_path: Path) -> None:
    path = _builder(
        tmp_path,
        "def build(ctx):\n"
        "    return {'t': [{'seed': ctx.seed, 'scale': str(ctx.scale), 'd': ctx.distractors,\n"
        "                   'today': ctx.today.isoformat()}]}\n",
    )
    seed = build_seed(path, WorldKey(9, Scale.large, True), CLOCK)
    assert seed.tables == {"t": [{"seed": 9, "scale": "large", "d": True, "today": "2026-03-02"}]}
    assert load_builder(path) is load_builder(path)  # imported once per file content


def test_a_changed_builder_is_imported_again(tmp_path: Path) -> None:
    path = _builder(tmp_path, "def build(ctx):\n    return {'t': [{'v': 1}]}\n")
    assert build_seed(path, WorldKey(1), CLOCK).tables["t"] == [{"v": 1}]
    path.write_text("def build(ctx):\n    return {'t': [{'v': 2}]}\n")
    assert build_seed(path, WorldKey(1), CLOCK).tables["t"] == [{"v": 2}]


# -- built worlds ---------------------------------------------------------------------------------
def _rows(world: World, sql: str) -> list[tuple]:
    conn = sqlite3.connect(":memory:")
    conn.deserialize(world.seed_blob)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_built_worlds_are_deterministic_and_differ_by_seed(mini_world: World) -> None:
    a = mini_world.variant(WorldKey(7))
    b = World(mini_world.files, key=WorldKey(7), tools=mini_world.tools)
    assert a is not b and a.seed_blob == b.seed_blob
    assert mini_world.variant(WorldKey(8)).seed_blob != a.seed_blob
    assert a.seed_blob != mini_world.seed_blob
    assert a.key.label == "s7" and a.task_ids == [] and a.template_ids == mini_world.template_ids
    assert mini_world.variant(WorldKey()) is mini_world


def test_scale_and_distractors_shape_the_world(mini_world: World) -> None:
    count = "SELECT COUNT(*) FROM customers"
    small = _rows(mini_world.variant(WorldKey(5)), count)[0][0]
    large = _rows(mini_world.variant(WorldKey(5, Scale.large)), count)[0][0]
    assert large >= 10 * small
    twins = "SELECT COUNT(*) FROM (SELECT name FROM customers GROUP BY name HAVING COUNT(*) > 1)"
    assert _rows(mini_world.variant(WorldKey(5, Scale.small, True)), twins)[0][0] > 0
    latest = _rows(mini_world.variant(WorldKey(5)), "SELECT MAX(placed_at), MIN(placed_at) FROM orders")[0]
    assert latest[0] <= mini_world.clock.isoformat() and latest[1] >= "2026-01-01"  # the frozen clock, not now


BAD_ROWS = """
def build(ctx):
    return {
        "customers": [
            {"id": 1, "name": "A", "email": "a@example.com", "credit_cents": -5},
            {"id": 2, "name": "B", "email": "a@example.com", "credit_cents": 0},
        ],
        "orders": [{"id": 1, "customer_id": 9, "product_id": 9, "quantity": 1, "total_cents": 1,
                    "placed_at": "2026-03-01T00:00:00"}],
    }
"""


def test_rows_the_schema_rejects_name_the_world(bundle_copy: Path) -> None:
    (bundle_copy / "envs/mini_shop/world.py").write_text(BAD_ROWS)
    with pytest.raises(WorldBuildError, match="mini_shop world s4 is not a valid database: ") as info:
        World(_files(bundle_copy), key=WorldKey(4))
    assert "customers[0]: CHECK constraint failed: credit_cents >= 0" in str(info.value)
    assert "orders[0]: FOREIGN KEY constraint failed" in str(info.value)
    registry = Registry([bundle_copy], include_default=False)
    registry.load("mini_shop")  # the canonical world is unaffected
    with pytest.raises(WorldBuildError, match="mini_shop world l4d is not a valid database"):
        registry.world("mini_shop", WorldKey(4, Scale.large, True))


def test_a_failed_build_is_not_cached(bundle_copy: Path) -> None:
    builder = bundle_copy / "envs/mini_shop/world.py"
    good = builder.read_text()
    builder.write_text("def build(ctx):\n    raise ValueError('not today')\n")
    registry = Registry([bundle_copy], include_default=False)
    with pytest.raises(WorldBuildError, match="mini_shop world s2: build failed: ValueError: not today"):
        registry.world("mini_shop", WorldKey(2))
    builder.write_text(good)
    world = registry.world("mini_shop", WorldKey(2))
    assert world.key == WorldKey(2) and registry.world("mini_shop", WorldKey(2)) is world


def test_an_env_without_a_builder_has_only_its_canonical_world(bundle_copy: Path) -> None:
    (bundle_copy / "envs/mini_shop/world.py").unlink()
    registry = Registry([bundle_copy], include_default=False)
    world = registry.load("mini_shop")
    assert world.files.builder_path is None
    with pytest.raises(WorldBuildError, match=r"mini_shop has no world builder \(envs/mini_shop/world.py\)"):
        world.variant(WorldKey(1))
    with pytest.raises(WorldBuildError, match="no world builder"):
        registry.world("mini_shop", WorldKey(1))
    assert registry.world("mini_shop", WorldKey()) is world
