import pytest

from awm.answers import match_answer, normalise
from awm.bundle import AnswerMatch as M


@pytest.mark.parametrize(
    ("answer", "expected", "how", "ok"),
    [
        ("The total is $1,234.50.", [1234.5], M.number, True),
        ("The total is 1234.49", [1234.5], M.number, True),  # within the default 0.01 tolerance
        ("The total is 1234.4", [1234.5], M.number, False),
        ("1 2 3 4 5 6", [3], M.number, False),  # shotgun answers fail
        ("3 open issues: KUB-11, KUB-12, OBS-5 and OBS-7", [3], M.number, True),  # codes hold no numbers
        ("The balance is -12.5 dollars", [-12.5], M.number, True),
        ("It costs .5", [0.5], M.number, True),
        ("It was on March 5th, 2026", ["2026-03-05"], M.date, True),
        ("5 Mar 2026", ["2026-03-05T10:00:00"], M.date, True),
        ("2026-03-06", ["2026-03-05"], M.date, False),
        ("Dr. Amelia  ORTIZ!", ["Amelia Ortiz"], M.text, True),
        ("Amelia Ortizson", ["Amelia Ortiz"], M.text, False),  # whole words only
        ("Yes, it is in stock", [1], M.boolean, True),
        ("No.", [1], M.boolean, False),
        ("brass lamp and oak lamp", ["Brass Lamp", "Oak Lamp"], M.list, True),
        ("brass lamp", ["Brass Lamp", "Oak Lamp"], M.list, False),
        ("", ["x"], M.text, False),
        (None, ["x"], M.text, False),
    ],
)
def test_matching(answer, expected, how, ok):
    assert match_answer(answer, expected, how)[0] is ok


def test_forbidden_values_defeat_list_everything_answers():
    ok, reason = match_answer(
        "Brass Lamp, Oak Lamp, Steel Lamp", ["Brass Lamp", "Oak Lamp"], M.list, forbidden=["Steel Lamp"]
    )
    assert not ok and "not part of the correct answer" in reason


def test_huge_answers_fail():
    assert not match_answer("4599 " + "x" * 10_000, [4599], M.number)[0]


def test_normalise():
    assert normalise("  Héllo,   WORLD. ") == "hello world"
    assert normalise("jo.smith@example.com.") == "jo.smith@example.com"
