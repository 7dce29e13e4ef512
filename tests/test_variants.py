"""The false-negative suite's variants are correct answers: the judge accepts every one."""

import pytest

from awm.bundle.records import AnswerSchema, AnswerType
from awm.judge.answers import Expected, judge
from awm.proof.variants import answer_variants

T = AnswerType


def e(t, *items, description="", item_type=None):
    schema = AnswerSchema(type=t, description=description, items=item_type)
    return Expected(schema, tuple((i,) if not isinstance(i, tuple) else i for i in items))


CASES = [
    e(T.number, 453.06, description="the total in dollars"),
    e(T.number, 12, description="the number of working days"),
    e(T.number, 0, description="the number of rooms left"),
    e(T.number, 12345.5, description="the balance due"),
    e(T.date, "2026-03-20", description="the date of the next visit"),
    e(T.boolean, 1, description="whether it is in stock"),
    e(T.boolean, 0),
    e(T.string, ("Dr. Grace Whitfield", "Grace Whitfield", "Whitfield"), description="the practitioner's name"),
    e(T.string, "SO-10037", description="the order number"),
    e(T.list, "Brass Lamp", "Oak Lamp", "Salt and Pepper Mill", description="the products"),
    e(T.list, 3, 5, item_type=T.number, description="the issue numbers"),
    Expected(
        AnswerSchema(
            type=T.object,
            fields={"salary": AnswerSchema(type=T.number), "expires_on": AnswerSchema(type=T.date)},
        ),
        fields={"salary": e(T.number, 154000), "expires_on": e(T.date, "2026-05-29")},
    ),
]


@pytest.mark.parametrize("expected", CASES, ids=lambda x: x.schema.type)
def test_every_variant_is_accepted(expected):
    variants = answer_variants(expected)
    assert len(variants) >= 5
    rejected = [(how, a, judge(a, expected)[1]) for a, how in variants if not judge(a, expected)[0]]
    assert not rejected
