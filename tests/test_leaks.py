"""Answers a policy can learn without looking: the best blind constant of an information template."""

import pytest

from awm.bundle.records import AnswerSchema, AnswerType
from awm.judge.answers import Expected
from awm.model.registry import Registry
from awm.proof.leaks import LIMIT, BlindConstant, best_constant, blind_constants
from tests.conftest import FIXTURE_ROOT


def exp(t, value, tolerance=0.0):
    return Expected(AnswerSchema(type=t), ((value,),), None, tolerance)


def test_the_best_constant_is_judged_with_the_real_judge():
    nine = [exp(AnswerType.number, 9)] * 8 + [exp(AnswerType.number, 10), exp(AnswerType.number, 9.004, 0.005)]
    r = best_constant("days", nine)
    assert (r.value, r.hits, r.instances) == (9, 9, 10)
    spread = [exp(AnswerType.number, v) for v in range(30)]
    assert best_constant("spread", spread).hits == 1


def test_cheap_guesses_count_even_when_no_instance_is_them():
    zeros = [exp(AnswerType.number, v) for v in (3, 4, 5)]
    assert best_constant("x", zeros).hits == 1
    lists = [Expected(AnswerSchema(type=AnswerType.list), (("a",), ("b",))) for _ in range(5)]
    r = best_constant("l", lists)
    assert r.hits == 5 and sorted(r.value) == ["a", "b"]


def test_limits_for_booleans_and_small_samples():
    b = BlindConstant("flag", AnswerType.boolean, 100, True, 58)
    assert b.ok and b.limit == 0.5 + LIMIT
    assert not BlindConstant("n", AnswerType.number, 100, 1, 11).ok
    assert (
        BlindConstant("n", AnswerType.number, 10, 1, 9).ok
        and not BlindConstant("n", AnswerType.number, 10, 1, 9).judged
    )


@pytest.mark.parametrize(
    "env",
    ["hr_leave", pytest.param("hotel", marks=pytest.mark.slow), pytest.param("social_network", marks=pytest.mark.slow)],
)
def test_catalog_envs_have_no_blind_constant_over_the_limit(env):
    """Three environments whose templates once leaked (hr_leave answered 9 on every draw; the other two under -m slow)."""
    reg = Registry([FIXTURE_ROOT])
    results, _ = blind_constants(reg.load(env), range(20))
    assert results and all(r.judged for r in results), [(r.template, r.instances) for r in results]
    bad = [str(r) for r in results if not r.ok]
    assert not bad, f"{env}: {bad}"
