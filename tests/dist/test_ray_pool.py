"""Episodes on Ray actors give exactly what the local Gymnasium env gives (needs the ``ray`` extra)."""

from __future__ import annotations

import json
import os

import gymnasium as gym
import pytest

os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # no token file under ~/.ray in tests
ray = pytest.importorskip("ray")

from awm.dist import EpisodePool  # noqa: E402
from awm.gym import register_all  # noqa: E402
from awm.model.registry import Registry  # noqa: E402
from tests.conftest import FIXTURE_ROOT  # noqa: E402

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def ray_local():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def pool(ray_local):
    p = EpisodePool("online_store", hosts=2, num_cpus=0.5, max_steps=30)
    yield p
    p.close()


def test_gold_solutions_on_actors_match_the_local_env(pool):
    import awm

    world = awm.load("online_store")
    tasks = world.task_ids
    started = pool.reset(seeds=range(len(tasks)), task_ids=tasks)
    assert {h.host for h, _, _ in started} == {0, 1}
    handles = [h for h, _, _ in started]
    plans = [
        [json.dumps({"tool": c.tool, "arguments": c.arguments}) for c in world.tasks[t].verifier.gold.calls]
        + [json.dumps({"answer": world.tasks[t].verifier.gold.answer})]
        for t in tasks
    ]
    local = [gym.make("awm/online_store-v0", max_episode_steps=30) for _ in tasks]
    for env, t, (h, obs, info) in zip(local, tasks, started, strict=True):
        lobs, linfo = env.reset(seed=h.id, options={"task_id": t})
        assert obs == lobs and info["task_id"] == t
        assert info["tools"] == linfo["tools"]  # the env's tools + submit_answer typed for the task
    for step in range(max(len(p) for p in plans)):
        live = [i for i, p in enumerate(plans) if step < len(p)]
        remote = pool.step([handles[i] for i in live], [plans[i][step] for i in live])
        for i, r in zip(live, remote, strict=True):
            expected = local[i].step(plans[i][step])
            assert r[:4] == expected[:4]
            assert r[4] == json.loads(json.dumps(expected[4]))
    finals = pool.step(handles, ['{"answer": "again"}'] * len(handles))
    assert all(f[2] and f[4]["error"]["code"] == "episode_ended" for f in finals)


def test_isolation_restart_and_bad_actions(pool):
    (a, _, _), (b, _, _) = pool.reset(seeds=[1, 2], task_ids=["t12_elena_first_order"] * 2)
    before = pool.state_bytes(b)
    out = pool.step([a, b], ['{"tool": "find_customers", "arguments": {"query": "elena"}}', "not json"])
    assert json.loads(out[0][0])["ok"] and out[1][4]["reward_components"]["malformed"]
    assert pool.state_bytes(b) == before
    ((a2, obs, info),) = pool.reset(seeds=[1], task_ids=["t01_priya_2026_spend"], handles=[a])
    assert a2 == a and info["task_id"] == "t01_priya_2026_spend"
    pool.close([a, b])
    assert pool.step([a], ['{"answer": null}'])[0][4]["error"]["code"] == "episode_ended"


def test_fixture_roots_reach_the_actors(ray_local):
    register_all(Registry([FIXTURE_ROOT], include_default=False))
    p = EpisodePool("mini_shop", hosts=1, paths=[str(FIXTURE_ROOT)], num_cpus=0.5)
    try:
        ((h, obs, info),) = p.reset(seeds=[0], task_ids=["t02_buy_lamp"])
        r = p.step(
            [h], [json.dumps({"tool": "place_order", "arguments": {"customer_id": 1, "product_id": 1, "quantity": 2}})]
        )[0]
        assert r[4]["reward_components"]["progress"] == 1.0
        assert p.step([h], ['{"answer": null}'])[0][1] == 1.0
    finally:
        p.close()


def test_by_default_the_pool_has_an_actor_per_cpu(ray_local):
    """The count only: this module's own pool holds some of the CPUs, so these actors are never scheduled."""
    cpus = ray.cluster_resources()["CPU"]
    for num_cpus in (1.0, 0.5):
        p = EpisodePool("mini_shop", paths=[str(FIXTURE_ROOT)], num_cpus=num_cpus)
        try:
            assert len(p.hosts) == int(cpus // num_cpus) >= 2
        finally:
            p.close()


def test_typed_answers_pass_through_the_actors(ray_local):
    p = EpisodePool("mini_shop", hosts=1, paths=[str(FIXTURE_ROOT)], num_cpus=0.5)
    try:
        started = p.reset(seeds=[0, 1, 2], task_ids=["t01_lamp_price"] * 3)
        (h1, _, info), (h2, _, _), (h3, _, _) = started
        submit = next(t["function"] for t in info["tools"] if t["function"]["name"] == "submit_answer")
        assert submit["parameters"]["properties"]["answer"]["type"] == "number"
        bad, typed, hedged = p.step(
            [h1, h2, h3],
            [
                {"tool": "submit_answer", "arguments": {"value": 4599}},
                {"tool": "submit_answer", "arguments": {"answer": 4599, "explanation": "the list price"}},
                {"answer": "1, 2, 3 or 4"},
            ],
        )
        assert not bad[2] and bad[4]["error"]["code"] == "malformed_action"
        assert typed[2] and typed[1] == 1.0 and typed[4]["arguments"]["answer"] == 4599
        assert hedged[2] and hedged[4]["outcome"] == 0.0
        assert p.step([h1], [{"answer": 4599.0}])[0][4]["outcome"] == 1.0
    finally:
        p.close()
