"""The one text normalisation every judge uses."""

import pytest

from awm.judge.answers import normalise
from awm.judge.normal import text_key


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("CCG-558-20931", "ccg-558-20931", True),
        ("Apt. 4", "apt 4", True),
        ("(503) 555-0219", "503-555-0219", True),
        ("Hello   World.", "hello world", True),
        ("Zoë Brontë", "zoe bronte", True),
        ("don't", "dont", True),
        ("12.50", "1250", False),
        ("-5", "5", False),
        ("a.b@x.com", "ab@x.com", False),
        ("Bjørn", "Bjrn", False),
        ("東京", "大阪", False),
    ],
)
def test_text_key(a, b, same):
    assert (text_key(a) == text_key(b)) is same


def test_answers_use_the_same_key_and_drop_honorifics():
    assert normalise("Dr. Grace  WHITFIELD.") == text_key("grace whitfield")
    assert normalise("Dr.") == "dr"  # a lone honorific is the value itself
