"""``gym.make(..., world="random", tasks="templates")``: a new built world and template instance per seed,
reproducible from the seed or the instance id; the default (canonical world, fixed tasks) is unchanged."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from awm.gym import register_all
from awm.model.distribution import DistributionError
from awm.model.registry import Registry
from tests.conftest import FIXTURE_ROOT

GYM_ID = "awm/mini_shop-v0"
RANDOM = {"world": "random", "tasks": "templates", "num_worlds": 5}
WORLDS = {f"s{i}" for i in range(5)}


@pytest.fixture(scope="module", autouse=True)
def _fixture_registered() -> None:
    register_all(Registry([FIXTURE_ROOT], include_default=False))


def _comparable(info: dict[str, Any]) -> dict[str, Any]:
    return {k: info.get(k) for k in ("task_id", "world", "template", "difficulty", "instruction", "seed", "tools")}


def test_check_env_passes() -> None:
    env = gym.make(GYM_ID, **RANDOM)
    check_env(env.unwrapped, skip_render_check=True)
    check_env(gym.make(GYM_ID, render_mode="ansi", **RANDOM).unwrapped)


def test_reset_with_a_seed_is_reproducible() -> None:
    env = gym.make(GYM_ID, **RANDOM)
    other = gym.make(GYM_ID, **RANDOM)
    seen_worlds, seen_templates = set(), set()
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        again, info_again = env.reset(seed=seed)
        fresh, info_fresh = other.reset(seed=seed)
        assert obs == again == fresh == info["instruction"]
        assert _comparable(info) == _comparable(info_again) == _comparable(info_fresh)
        assert info["world"] in WORLDS and info["task_id"].startswith(f"{info['template']}.{info['world']}.")
        assert info["difficulty"]["scale"] == "small" and info["difficulty"]["steps"] >= 1
        assert info["tools"][-1]["function"]["name"] == "submit_answer"
        seen_worlds.add(info["world"])
        seen_templates.add(info["template"])
    assert len(seen_worlds) > 1 and seen_templates == {"product_price", "cancel_order", "buy_two"}


@pytest.mark.parametrize("seed", range(8))
def test_the_gold_solution_scores_one(seed: int) -> None:
    env = gym.make(GYM_ID, max_episode_steps=20, **RANDOM)
    obs, info = env.reset(seed=seed)
    ct = env.unwrapped.episode.task
    assert ct.id == info["task_id"]
    for call in ct.verifier.gold.calls:
        obs, reward, terminated, truncated, step = env.step(
            json.dumps({"tool": call.tool, "arguments": call.arguments})
        )
        assert step["ok"], obs
        assert not terminated and not truncated
    obs, reward, terminated, truncated, step = env.step(json.dumps({"answer": ct.verifier.gold.answer}))
    assert terminated and step["outcome"] == 1.0 and reward == 1.0, step


def test_a_wrong_answer_scores_zero() -> None:
    env = gym.make(GYM_ID, **{**RANDOM, "templates": ["product_price"]})
    env.reset(seed=3)
    gold = env.unwrapped.episode.task.verifier.gold
    _, reward, terminated, _, step = env.step(json.dumps({"answer": gold.answer + 5}))
    assert terminated and step["outcome"] == 0.0 and reward == 0.0


def test_reset_on_an_instance_id_reproduces_the_draw() -> None:
    env = gym.make(GYM_ID, **RANDOM)
    drawn = [env.reset(seed=s) for s in range(6)]
    replay = gym.make(GYM_ID, world="random", tasks="templates")  # any distribution resolves any instance id
    for obs, info in drawn:
        again, info_again = replay.reset(seed=99, options={"task_id": info["task_id"]})
        assert again == obs
        assert {k: info_again.get(k) for k in ("task_id", "world", "template", "difficulty")} == {
            k: info.get(k) for k in ("task_id", "world", "template", "difficulty")
        }
    fixed = gym.make(GYM_ID, task_id=drawn[0][1]["task_id"], **RANDOM)
    for s in range(3):
        assert fixed.reset(seed=s)[1]["task_id"] == drawn[0][1]["task_id"]


def test_underspecified_and_template_subsets_reach_the_env() -> None:
    env = gym.make(GYM_ID, underspecified=True, **RANDOM)
    for s in range(4):
        _, info = env.reset(seed=s)
        assert info["template"] == "cancel_order" and info["task_id"].endswith(".u")
        assert info["difficulty"]["underspecified"]


def test_large_worlds_with_distractors() -> None:
    env = gym.make(GYM_ID, scale="large", distractors=True, start_world=50, **RANDOM)
    _, info = env.reset(seed=2)
    assert info["world"] == "l52d" and info["difficulty"]["world_distractors"]
    assert info["difficulty"]["scale"] == "large"


def test_impossible_options_fail_at_make() -> None:
    with pytest.raises(DistributionError, match="world='random' needs tasks='templates'"):
        gym.make(GYM_ID, world="random")
    with pytest.raises(DistributionError, match="has no templates"):
        gym.make(GYM_ID, templates=["nope"], **RANDOM)


def test_the_default_is_the_canonical_world_and_fixed_tasks(mini_world) -> None:
    env = gym.make(GYM_ID)
    gym.make(GYM_ID, **RANDOM).reset(seed=1)  # a random env does not change the default one
    for seed in range(10):
        obs, info = env.reset(seed=seed)
        assert info["world"] == "c" and "template" not in info and "difficulty" not in info
        assert info["task_id"] == mini_world.task(None, seed).id and info["task_id"] in mini_world.task_ids
        assert obs == mini_world.tasks[info["task_id"]].task.instruction
    assert env.reset(seed=0, options={"task_id": "t02_buy_lamp"})[1]["task_id"] == "t02_buy_lamp"
