"""Typed answers: equality after normalisation; free text only as a strict fallback."""

import sqlite3

import pytest

from awm.bundle.records import AnswerCheck, AnswerSchema, AnswerType
from awm.judge.answers import AnswerSqlError, Expected, compute_expected, final_text, judge, normalise

T = AnswerType


def exp(t, *items, tolerance=0.0, item_type=None):
    schema = AnswerSchema(type=t, items=item_type)
    return Expected(schema, tuple(i if isinstance(i, tuple) else (i,) for i in items), None, tolerance)


@pytest.mark.parametrize(
    ("answer", "expected", "ok"),
    [
        # numbers: one value, within the tolerance
        (453.06, exp(T.number, 453.06), True),
        ("453.06", exp(T.number, 453.06), True),
        ("$453.06", exp(T.number, 453.06), True),
        ("Answer: $1,234.50", exp(T.number, 1234.5), True),
        ("The total is 1234.50 dollars.", exp(T.number, 1234.5), True),
        (23, exp(T.number, 23), True),
        ("23h", exp(T.number, 23), True),
        (453.07, exp(T.number, 453.06), False),
        (453.064, exp(T.number, 453.06, tolerance=0.005), True),
        (True, exp(T.number, 1), False),
        ([453.06], exp(T.number, 453.06), False),
        # hedges, negations, qualifiers and dumps fail
        ("1, 2, 3 or 4", exp(T.number, 3), False),
        ("5, 6, 7 or 8", exp(T.number, 7), False),
        ("Not $453.06 - I could not work it out.", exp(T.number, 453.06), False),
        ("about 453.06", exp(T.number, 453.06), False),
        ("453.06 or 454", exp(T.number, 453.06), False),
        ("~453", exp(T.number, 453), False),
        ("7?", exp(T.number, 7), False),
        ("2026-03-05?", exp(T.date, "2026-03-05"), False),
        ('[{"id": 3, "total": 453.06}]', exp(T.number, 453.06), False),
        # strings: equal to one accepted spelling
        ("Whitfield", exp(T.string, ("Grace Whitfield", "Whitfield")), True),
        ("Dr. Grace  WHITFIELD.", exp(T.string, ("Grace Whitfield", "Whitfield")), True),
        ("It is not Dr. Whitfield.", exp(T.string, ("Grace Whitfield", "Whitfield")), False),
        ("Whitfield or Ortiz", exp(T.string, ("Grace Whitfield", "Whitfield")), False),
        ("Whitfieldson", exp(T.string, ("Whitfield",)), False),
        ("Whitfield?", exp(T.string, ("Whitfield",)), False),
        # dates: exactly one
        ("2026-03-05", exp(T.date, "2026-03-05T10:00:00"), True),
        ("March 5th, 2026", exp(T.date, "2026-03-05"), True),
        ("2026-03-06", exp(T.date, "2026-03-05"), False),
        ("2026-03-05 or 2026-03-06", exp(T.date, "2026-03-05"), False),
        (", ".join(f"2026-03-{d:02d}" for d in range(1, 32)), exp(T.date, "2026-03-05"), False),
        # booleans
        (True, exp(T.boolean, 1), True),
        ("Yes, it is in stock", exp(T.boolean, 1), True),
        ("No.", exp(T.boolean, 1), False),
        ("yes or no", exp(T.boolean, 1), False),
        ("Yes, probably", exp(T.boolean, 1), False),
        # lists: the expected set, nothing more, nothing less
        (["Oak Lamp", "brass lamp"], exp(T.list, "Brass Lamp", "Oak Lamp"), True),
        (["Brass Lamp", "Brass Lamp", "Oak Lamp"], exp(T.list, "Brass Lamp", "Oak Lamp"), True),
        (["Brass Lamp"], exp(T.list, "Brass Lamp", "Oak Lamp"), False),
        (["Brass Lamp", "Oak Lamp", "Steel Lamp"], exp(T.list, "Brass Lamp", "Oak Lamp"), False),
        ("Brass Lamp, Oak Lamp", exp(T.list, "Brass Lamp", "Oak Lamp"), True),
        ("Brass Lamp and Oak Lamp", exp(T.list, "Brass Lamp", "Oak Lamp"), True),
        ("Salt and Pepper Mill, Oak Lamp", exp(T.list, "Salt and Pepper Mill", "Oak Lamp"), True),
        ("Brass Lamp, or else Oak Lamp, Steel Lamp", exp(T.list, "Brass Lamp", "Oak Lamp"), False),
        ("Brass Lamp, Oak Lamp, Steel-Lamp", exp(T.list, "Brass Lamp", "Oak Lamp"), False),
        ([1, 2], exp(T.list, 1, 2, item_type=T.number), True),
        ([1, 2, 3], exp(T.list, 1, 2, item_type=T.number), False),
        # empty answers
        (None, exp(T.string, "x"), False),
        ("   ", exp(T.string, "x"), False),
    ],
)
def test_judge(answer, expected, ok):
    assert judge(answer, expected)[0] is ok


def test_object_answers_are_judged_field_by_field():
    schema = AnswerSchema(
        type=T.object,
        fields={"tracking_number": AnswerSchema(type=T.string), "carrier": AnswerSchema(type=T.string)},
    )
    e = Expected(
        schema,
        fields={"tracking_number": exp(T.string, "1Z999"), "carrier": exp(T.string, ("UPS", "United Parcel Service"))},
    )
    assert judge({"tracking_number": "1z999", "carrier": "United Parcel Service"}, e)[0]
    assert judge('{"carrier": "ups", "tracking_number": "1Z999"}', e)[0]
    ok, why = judge({"tracking_number": "1Z999", "carrier": "FedEx"}, e)
    assert not ok and "carrier" in why
    assert not judge({"tracking_number": "1Z999"}, e)[0]
    assert not judge({"tracking_number": "1Z999", "carrier": "UPS", "note": "x"}, e)[0]
    assert not judge("1Z999 via UPS", e)[0]


def test_reasons_tell_the_agent_what_to_fix():
    assert "exactly one number" in judge("1, 2, 3 or 4", exp(T.number, 3))[1]
    assert "qualified" in judge("about 3", exp(T.number, 3))[1]
    assert "missing" in judge(["Brass Lamp"], exp(T.list, "Brass Lamp", "Oak Lamp"))[1]
    assert "not one of the expected items" in judge(["Steel Lamp"], exp(T.list, "Brass Lamp"))[1]


def test_normalise_and_final_text():
    assert normalise("Dr. Amelia  ORTIZ!") == "amelia ortiz"
    assert normalise("Dr") == "dr"  # a lone honorific stays
    assert final_text("I looked at 3 invoices.\nAnswer: $102.00") == "$102.00"
    assert final_text("**Final answer:** 7.") == "7"


def test_expected_values_come_from_sql_on_the_initial_state():
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE p (first TEXT, last TEXT); INSERT INTO p VALUES ('Grace', 'Whitfield'), ('Amelia', 'Ortiz');"
    )
    e = compute_expected(conn, AnswerSchema(type=T.list), AnswerCheck(sql="SELECT first || ' ' || last, last FROM p"))
    assert e.items == (("Grace Whitfield", "Whitfield"), ("Amelia Ortiz", "Ortiz"))
    assert judge(["ortiz", "Grace Whitfield"], e)[0]
    assert e.canonical() == ["Grace Whitfield", "Amelia Ortiz"]
    with pytest.raises(AnswerSqlError, match="no value"):
        compute_expected(conn, AnswerSchema(type=T.string), AnswerCheck(sql="SELECT last FROM p WHERE 0"))
    with pytest.raises(AnswerSqlError, match="not a number"):
        compute_expected(conn, AnswerSchema(type=T.number), AnswerCheck(sql="SELECT last FROM p"))
    with pytest.raises(AnswerSqlError, match=r"query_only|readonly|fails"):
        compute_expected(conn, AnswerSchema(type=T.number), AnswerCheck(sql="DELETE FROM p RETURNING 1"))


def test_answer_schemas_are_json_schemas():
    s = AnswerSchema(type=T.list, items=T.number, description="order ids")
    assert s.json_schema()["type"] == "array" and s.json_schema()["items"] == {"type": "number"}
    o = AnswerSchema(type=T.object, fields={"when": AnswerSchema(type=T.date), "ok": AnswerSchema(type=T.boolean)})
    js = o.json_schema()
    assert js["required"] == ["when", "ok"] and js["additionalProperties"] is False
    assert js["properties"]["when"]["format"] == "date"


def described(t, *items, description="", fields=None):
    return Expected(
        AnswerSchema(type=t, description=description), tuple((i,) if not isinstance(i, tuple) else i for i in items)
    )


@pytest.mark.parametrize(
    "answer",
    [
        "!= 453.06", "\u2260 453.06", "453.06 is wrong", "anything but 453.06", "\u2265 453.06", "453.06+",
        "circa 453.06", "453.06-ish", "at least 453.06", "453.06 or more", "+453.06", "453.06 (not sure)",
        "453.06?", "six, 453.06",
    ],
)  # fmt: skip
def test_qualified_numbers_score_zero_by_allow_list(answer):
    assert not judge(answer, described(T.number, 453.06, description="the total in dollars"))[0]


@pytest.mark.parametrize(
    "answer",
    ["453.06", "$453.06", "453.06 dollars", "Total: $453.06", "The total is $453.06.", "453.06 USD", "**453.06**"],
)
def test_plain_numbers_with_labels_and_units_pass(answer):
    assert judge(answer, described(T.number, 453.06, description="the total in dollars"))[0]


def test_number_words_and_description_units():
    days = described(T.number, 7, description="the number of working days")
    assert all(judge(a, days)[0] for a in ["seven", "Seven working days", "7 days", "7 working days."])
    assert not any(judge(a, days)[0] for a in ["six, 7", "7 or more", "eight", "7 weekdays at most"])
    assert judge("twenty-one", described(T.number, 21))[0] and judge("none", described(T.number, 0))[0]


def test_dates_accept_common_forms_and_reject_residue():
    d = described(T.date, "2026-03-20", description="the date of the visit")
    ok = ["03/20/2026", "Friday, March 20, 2026", "2026-03-20T09:00:00", "March 20, 2026 at 9:30 am", "20 March 2026"]
    assert all(judge(a, d)[0] for a in ok)
    bad = ["2026-03-20/21", "2026-03-20, 03-21, 03-22", "on or after 2026-03-20", "!= 2026-03-20", "2026-03-20 or so"]
    assert not any(judge(a, d)[0] for a in bad)


def test_strings_refuse_signs_and_accept_a_label():
    s = described(T.string, ("Dr. Grace Whitfield", "Grace Whitfield"), description="the practitioner's name")
    assert all(
        judge(a, s)[0]
        for a in ["Grace Whitfield", "The practitioner is Dr. Grace Whitfield", "Practitioner: Grace Whitfield"]
    )
    assert not any(judge(a, s)[0] for a in ["!= Dr. Grace Whitfield", "~Grace Whitfield", "Grace Whitfield <"])
    assert not judge("The patient is not Grace Whitfield", s)[0]


def test_object_answers_from_text():
    e = Expected(
        AnswerSchema(
            type=T.object,
            fields={"carrier": AnswerSchema(type=T.string), "tracking_number": AnswerSchema(type=T.string)},
        ),
        fields={"carrier": described(T.string, "FedEx"), "tracking_number": described(T.string, "770403560786")},
    )
    for ok in [
        "FedEx, tracking number 770403560786",
        "carrier: FedEx; tracking number: 770403560786",
        "Carrier: FedEx\nTracking number: 770403560786",
        "770403560786, FedEx",
    ]:
        assert judge(ok, e)[0], ok
    for bad in ["FedEx or UPS, 770403560786", "FedEx, 770403560786, UPS", "UPS, 770403560786", "FedEx"]:
        assert not judge(bad, e)[0], bad


def test_a_list_answer_is_a_set_even_when_the_sql_repeats_an_item():
    conn = sqlite3.connect(":memory:")
    conn.executescript("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('Wild Harbor'), ('wild harbor'), ('Oak');")
    e = compute_expected(conn, AnswerSchema(type=T.list), AnswerCheck(sql="SELECT x FROM t"))
    assert e.items == (("Wild Harbor",), ("Oak",))
    assert judge(["Wild Harbor", "Oak"], e)[0] and not judge(["Oak"], e)[0]


def test_list_items_may_hold_commas_and_ands_in_text_answers():
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('Dental scale and polish'), ('Tooth extraction, per tooth'), "
        "('Rabies vaccine');"
    )
    e = compute_expected(conn, AnswerSchema(type=T.list), AnswerCheck(sql="SELECT x FROM t"))
    for ok in [
        "Dental scale and polish, Tooth extraction, per tooth, Rabies vaccine",
        "- Dental scale and polish\n- Tooth extraction, per tooth\n- Rabies vaccine",
        "1. Rabies vaccine\n2. Tooth extraction, per tooth\n3. Dental scale and polish",
        "Tooth extraction, per tooth; Dental scale and polish and Rabies vaccine",
    ]:
        assert judge(ok, e)[0], ok
    for bad in [
        "Dental scale and polish, Tooth extraction, Rabies vaccine",  # not the item: its qualifier is missing
        "Dental scale and polish, Tooth extraction, per tooth",  # one missing
        "Dental scale and polish, Tooth extraction, per tooth, Rabies vaccine, Flea treatment",  # one extra
        "Dental scale and polish, Tooth extraction, per tooth, per visit, Rabies vaccine",
    ]:
        assert not judge(bad, e)[0], bad
