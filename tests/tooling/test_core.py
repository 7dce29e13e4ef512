import json
from typing import Literal

import jsonschema
import pytest

from awm.errors import ToolDefinitionError
from awm.tooling import Db, parse_docstring, tool


def test_docstring_parsing_gives_description_and_argument_docs():
    desc, args = parse_docstring(
        """Find things.

        More detail that is not the summary.

        Args:
            query: words to
                look for.
            limit (int): at most this many.

        Returns:
            A list.
        """
    )
    assert desc == "Find things.\n\nMore detail that is not the summary."
    assert args == {"query": "words to look for.", "limit": "at most this many."}


def test_signature_becomes_strict_json_schema():
    @tool(write=True)
    def book(
        db: Db,
        patient_id: int,
        when: str,
        kind: Literal["checkup", "surgery"] = "checkup",
        note: str | None = None,
        tags: list[str] | None = None,
    ) -> dict:
        """Book a visit.

        Args:
            patient_id: who.
            when: ISO datetime.
            kind: visit kind.
        """
        return {}

    td = book.__awm_tool__
    assert td.write and td.name == "book" and td.description == "Book a visit."
    schema = td.parameters
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["required"] == ["patient_id", "when"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["kind"]["enum"] == ["checkup", "surgery"]
    assert schema["properties"]["patient_id"] == {"type": "integer", "description": "who."}
    assert td.validate({"patient_id": 3, "when": "2026-03-02T10:00"})["kind"] == "checkup"


@pytest.mark.parametrize(
    "bad",
    [
        lambda: tool(lambda db, x: x),  # no docstring, no hints
    ],
)
def test_bad_definitions_are_rejected(bad):
    with pytest.raises(ToolDefinitionError):
        bad()


def test_unsupported_annotation_is_rejected():
    def f(db: Db, x: dict) -> dict:
        """Takes a dict."""
        return x

    with pytest.raises(ToolDefinitionError, match="unsupported type"):
        tool(f)


def test_missing_hint_is_rejected():
    def f(db, x):  # type: ignore[no-untyped-def]
        """Untyped."""
        return x

    with pytest.raises(ToolDefinitionError, match="type hint"):
        tool(f)


def test_an_argument_called_title_keeps_its_schema():
    @tool
    def post(db: Db, title: str, body: str = "") -> dict:
        """Post something.

        Args:
            title: the headline.
            body: the text.
        """
        return {}

    schema = post.__awm_tool__.parameters
    assert schema["properties"]["title"] == {"type": "string", "description": "the headline.", "maxLength": 10000}
    assert schema["required"] == ["title"] and "title" not in {k for k in schema if k != "properties"}


def test_shared_helpers_check_limits_and_stamp_the_frozen_clock():
    import sqlite3
    from datetime import datetime

    from awm.errors import ToolError
    from awm.tooling import check_limit, now_iso

    check_limit(1)
    check_limit(50)
    check_limit(200, top=200)
    for bad, top in ((0, 50), (51, 50), (-3, 10)):
        with pytest.raises(ToolError, match=rf"limit must be between 1 and {top} \(got {bad}\)"):
            check_limit(bad, top)
    db = Db(sqlite3.connect(":memory:"), {}, datetime(2026, 3, 2, 9, 30, 0, 123456), {})
    assert now_iso(db) == "2026-03-02T09:30:00"


def cancel_booking(db: Db, customer_email: str, booking_id: int, reason: str = "") -> dict:
    """Cancel one of the customer's bookings.

    Args:
        customer_email: the email of the customer who asks.
        booking_id: the booking to cancel.
        reason: why, in the customer's words.
    """
    return {}


def test_actor_names_the_acting_person_and_leaves_the_schema_alone():
    from awm.bundle.records import ToolSpec

    plain = tool(cancel_booking, write=True).__awm_tool__
    td = tool(cancel_booking, write=True, actor="customer_email").__awm_tool__
    assert td.actor == "customer_email" and plain.actor is None
    assert td.parameters == plain.parameters  # metadata, not an argument: the agent's schema is the same
    assert "actor" not in json.dumps(td.parameters)
    spec = ToolSpec(name=td.name, description=td.description, write=td.write, parameters=td.parameters, actor=td.actor)
    assert spec.model_dump()["actor"] == "customer_email"
    assert spec.openai()["function"]["parameters"] == plain.parameters
    # a tool without an actor dumps exactly as before (no ``actor`` key on any surface)
    bare = ToolSpec(name=plain.name, description=plain.description, write=True, parameters=plain.parameters)
    assert "actor" not in bare.model_dump() and "actor" not in bare.model_dump_json()


@pytest.mark.parametrize(
    ("actor", "match"),
    [
        ("email", r"actor='email' must name one of the tool's parameters \(customer_email, booking_id, reason\)"),
        ("db", "must name one of the tool's parameters"),  # the Db handle is no argument
        ("reason", "actor parameter 'reason' has a default"),
    ],
)
def test_actor_must_be_a_required_parameter(actor, match):
    with pytest.raises(ToolDefinitionError, match=match):
        tool(cancel_booking, write=True, actor=actor)
    with pytest.raises(ToolDefinitionError, match=match):
        tool(write=True, actor=actor)(cancel_booking)
