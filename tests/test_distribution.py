"""Task distributions (``awm.model.distribution``): seeds to (world, task), deterministically, and template splits."""

from __future__ import annotations

import pytest

from awm.errors import AwmError, UnknownTaskError
from awm.model.distribution import DistributionError, TaskDistribution, TaskMode, WorldMode, split_templates
from awm.model.registry import Registry
from awm.worldgen import Scale, WorldKey

SEEDS = range(24)


def _dist(registry: Registry, **kw) -> TaskDistribution:
    kw.setdefault("world", "random")
    kw.setdefault("tasks", "templates")
    return TaskDistribution("mini_shop", registry=registry, **kw)


def _draw(dist: TaskDistribution, seed: int) -> tuple[str, str, str]:
    world, ct = dist.draw(seed)
    return world.key.label, ct.id, ct.task.instruction


def test_same_seed_same_world_and_task(mini_registry: Registry) -> None:
    dist = _dist(mini_registry, num_worlds=4)
    first = [_draw(dist, s) for s in SEEDS]
    assert first == [_draw(dist, s) for s in SEEDS]
    # a fresh registry (nothing cached) and an equal distribution draw the same
    again = _dist(Registry(mini_registry.roots, include_default=False), num_worlds=4)
    assert first == [_draw(again, s) for s in SEEDS]
    assert again == dist  # the registry is not part of a distribution's identity
    assert len({t for _, t, _ in first}) > 3 and len({w for w, _, _ in first}) > 1


def test_a_draw_is_an_instance_of_its_world(mini_registry: Registry) -> None:
    dist = _dist(mini_registry, scale="large", distractors=True, num_worlds=2, start_world=40)
    for s in range(6):
        world, ct = dist.draw(s)
        assert world.key == WorldKey(40 + s % 2, Scale.large, True)
        assert ct.task.world == world.key.label and ct.id.split(".")[1] == world.key.label
        assert ct.task.template in world.templates and world.tasks[ct.id] is ct


@pytest.mark.parametrize(("num_worlds", "start_world"), [(1, 0), (3, 0), (3, 100), (5, 10_000)])
def test_world_seeds_stay_in_range(mini_registry: Registry, num_worlds: int, start_world: int) -> None:
    dist = _dist(mini_registry, num_worlds=num_worlds, start_world=start_world)
    keys = {dist.world_key(s) for s in range(40)}
    assert {k.seed for k in keys} == set(range(start_world, start_world + num_worlds))
    for s in range(2 * num_worlds):
        world, _ = dist.draw(s)
        assert start_world <= world.key.seed < start_world + num_worlds  # type: ignore[operator]


def test_no_num_worlds_is_a_new_world_per_seed(mini_registry: Registry) -> None:
    dist = _dist(mini_registry, start_world=7)
    assert [dist.world_key(s).seed for s in range(5)] == [7, 8, 9, 10, 11]
    assert dist.world_key(3) == WorldKey(10, Scale.small, False)


def test_canonical_world_is_the_seed_data(mini_registry: Registry) -> None:
    fixed = TaskDistribution("mini_shop", registry=mini_registry)
    canonical = mini_registry.load("mini_shop")
    for s in SEEDS:
        world, ct = fixed.draw(s)
        assert world is canonical and ct is canonical.task(None, s) and ct.task.template is None
    templates = _dist(mini_registry, world="canonical")
    ids = {templates.draw(s)[1].id for s in SEEDS}
    assert all(".c." in i for i in ids) and templates.draw(0)[0] is canonical


def test_all_mixes_fixed_tasks_and_instances(mini_registry: Registry) -> None:
    dist = TaskDistribution("mini_shop", tasks="all", registry=mini_registry)
    kinds = {dist.draw(s)[1].task.template is None for s in range(40)}
    assert kinds == {True, False}


def test_a_template_subset_is_respected(mini_registry: Registry) -> None:
    dist = _dist(mini_registry, num_worlds=3, templates=["buy_two", "product_price"])
    assert dist.templates == ("buy_two", "product_price")
    got = {dist.draw(s)[1].task.template for s in range(30)}
    assert got == {"buy_two", "product_price"}
    only = _dist(mini_registry, num_worlds=3, templates=("cancel_order",))
    assert {only.draw(s)[1].task.template for s in range(10)} == {"cancel_order"}


def test_phrasing(mini_registry: Registry) -> None:
    vague = _dist(mini_registry, num_worlds=3, underspecified=True)
    for s in SEEDS:
        ct = vague.draw(s)[1]
        assert ct.task.template == "cancel_order" and ct.id.endswith(".u")  # the only one with that phrasing
        assert ct.task.difficulty is not None and ct.task.difficulty.underspecified
    specified = _dist(mini_registry, num_worlds=3, underspecified=False)
    assert not any(specified.draw(s)[1].id.endswith(".u") for s in SEEDS)
    either = _dist(mini_registry, num_worlds=3)
    assert {either.draw(s)[1].id.endswith(".u") for s in range(60)} == {True, False}
    with pytest.raises(AwmError, match="no template to draw from with an underspecified phrasing"):
        _dist(mini_registry, templates=["buy_two"], underspecified=True).draw(0)


@pytest.mark.parametrize(
    ("kw", "fragment"),
    [
        ({"world": "random", "tasks": "fixed"}, "world='random' needs tasks='templates'"),
        ({"world": "random", "tasks": "all"}, "world='random' needs tasks='templates'"),
        ({"templates": ["buy_two", "nope", "gone"]}, "mini_shop has no templates ['gone', 'nope']"),
        ({"num_worlds": -1}, "num_worlds and start_world must be >= 0"),
        ({"start_world": -5}, "num_worlds and start_world must be >= 0"),
    ],
)
def test_impossible_distributions(mini_registry: Registry, kw: dict, fragment: str) -> None:
    kw = {"world": "random", "tasks": "templates", **kw}
    with pytest.raises(DistributionError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        TaskDistribution("mini_shop", registry=mini_registry, **kw)


def test_bad_mode_names(mini_registry: Registry) -> None:
    with pytest.raises(ValueError, match="'everywhere' is not a valid WorldMode"):
        TaskDistribution("mini_shop", world="everywhere", registry=mini_registry)  # type: ignore[arg-type]
    assert TaskDistribution("mini_shop", tasks="all", registry=mini_registry).tasks is TaskMode.all


def test_envs_without_templates_or_builder(bundle_copy, mini_registry: Registry) -> None:
    (bundle_copy / "envs/mini_shop/world.py").unlink()
    no_builder = Registry([bundle_copy], include_default=False)
    with pytest.raises(DistributionError, match=r"mini_shop has no world builder \(envs/mini_shop/world.py\)"):
        TaskDistribution("mini_shop", world=WorldMode.random, tasks=TaskMode.templates, registry=no_builder)
    TaskDistribution("mini_shop", tasks="templates", registry=no_builder)  # the canonical world still has them
    (bundle_copy / "envs/mini_shop/templates.jsonl").unlink()
    (bundle_copy / "verifiers/mini_shop/templates.jsonl").unlink()
    no_templates = Registry([bundle_copy], include_default=False)
    with pytest.raises(DistributionError, match=r"mini_shop has no task templates"):
        TaskDistribution("mini_shop", tasks="templates", registry=no_templates)
    TaskDistribution("mini_shop", registry=no_templates).draw(0)  # fixed tasks are unaffected


def test_resolve_returns_the_drawn_task(mini_registry: Registry) -> None:
    dist = _dist(mini_registry, num_worlds=3)
    for s in range(12):
        world, ct = dist.draw(s)
        again_world, again = dist.resolve(ct.id)
        assert again_world is world and again is ct
    fixed_world, fixed = dist.resolve("t02_buy_lamp")
    assert fixed_world is mini_registry.load("mini_shop") and fixed.id == "t02_buy_lamp"
    # an instance on a world outside the distribution's range still resolves (replay of any exported id)
    world, ct = dist.resolve("buy_two.l900d.1")
    assert world.key == WorldKey(900, Scale.large, True) and ct.id == "buy_two.l900d.1"
    with pytest.raises(UnknownTaskError, match=r"has no task 'no_such_template\.s1\.0'"):
        dist.resolve("no_such_template.s1.0")


@pytest.mark.parametrize(
    ("task_id", "error", "fragment"),
    [
        ("buy_two.c.99", UnknownTaskError, "no task 'buy_two.c.99'. Did you mean 'buy_two.c.0', 'buy_two.c.1'?"),
        ("buy_two.c.01", UnknownTaskError, "no task 'buy_two.c.01'"),  # not the id of row 1
        ("buy_two.s01.0", AwmError, "bad world label 's01'"),  # world s1 is spelled s1
        ("buy_two.c.0.u", AwmError, "'buy_two' has no underspecified_instruction"),
        ("t02_buy_lamp.u", UnknownTaskError, "no task 't02_buy_lamp.u'"),
    ],
)
def test_resolve_refuses_ids_no_draw_gives(mini_registry: Registry, task_id: str, error: type, fragment: str) -> None:
    with pytest.raises(error) as info:
        TaskDistribution("mini_shop", registry=mini_registry).resolve(task_id)
    assert fragment in str(info.value)


def test_a_second_draw_on_a_cached_world_reuses_it(mini_registry: Registry) -> None:
    dist = _dist(mini_registry, num_worlds=2, start_world=300)
    first_world, first = dist.draw(0)
    again_world, again = dist.draw(2)  # same world (300), maybe another task
    assert again_world is first_world
    assert mini_registry.world("mini_shop", WorldKey(300)) is first_world
    assert dist.draw(0)[1] is first  # the compiled instance is cached too
    assert dist.draw(1)[0] is not first_world


def test_split_templates() -> None:
    ids = [f"template_{i}" for i in range(200)]
    train, test = split_templates(ids, 0.25)
    assert (train, test) == split_templates(ids, 0.25)
    assert not set(train) & set(test) and sorted(train + test) == sorted(ids)
    assert train == [t for t in ids if t in set(train)]  # input order kept
    assert 30 <= len(test) <= 70
    # stable as templates are added: a template never changes side
    more_train, more_test = split_templates([*ids, "template_new_a", "template_new_b"], 0.25)
    assert set(test) <= set(more_test) and set(train) <= set(more_train)
    assert split_templates(ids, 0.25, salt="other") != (train, test)
    assert split_templates(ids, 0.0) == (ids, [])
    assert split_templates(ids, 1.0) == ([], ids)
    assert split_templates([], 0.5) == ([], [])
    for bad in (-0.1, 1.5):
        with pytest.raises(DistributionError, match="test_fraction must be between 0 and 1"):
            split_templates(ids, bad)


def test_steps_knob_keeps_templates_by_gold_length(mini_registry) -> None:
    base = mini_registry.load("mini_shop")
    lengths = {t: len(base.templates[t].verifier.gold.calls) for t in base.template_ids}
    d = TaskDistribution("mini_shop", world="random", tasks="templates", min_steps=3, registry=mini_registry)
    drawn = {d.draw(s)[1].task.template for s in range(20)}
    assert drawn == {t for t, n in lengths.items() if n >= 3}
    d = TaskDistribution("mini_shop", world="random", tasks="templates", max_steps=1, registry=mini_registry)
    assert {d.draw(s)[1].task.difficulty.steps for s in range(10)} == {1}
    with pytest.raises(DistributionError, match="no template has between 7 and any number of gold steps"):
        TaskDistribution("mini_shop", world="random", tasks="templates", min_steps=7, registry=mini_registry)
