"""The authors' vocabulary in ``awm.tooling``: each parser takes what an agent types and refuses what it should,
with a message that names the argument; the search and rule helpers give the SQL and refusals they promise, on a
real episode of a catalog environment."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime

import pytest

from awm.errors import ToolError
from awm.tooling import (
    add_months,
    check_limit,
    clean_text,
    dollars,
    either,
    filters,
    iso_seconds,
    like_any,
    parse_day,
    parse_moment,
    parse_optional_day,
    require_owner,
    require_role,
    require_status,
    to_cents,
)


@pytest.mark.parametrize("text", ["2026-03-05", " 2026-03-05 "])
def test_parse_day_takes_an_iso_day(text: str) -> None:
    assert parse_day(text, "start_date") == date(2026, 3, 5)


@pytest.mark.parametrize("text", ["2026-3-5", "2026-02-30", "05/03/2026", "2026-03-05T10:00", "", "tomorrow"])
def test_parse_day_refuses_anything_else_and_names_the_argument(text: str) -> None:
    with pytest.raises(ToolError, match=r"start_date must be a date written YYYY-MM-DD, e.g. '2026-06-01'"):
        parse_day(text, "start_date", "2026-06-01")


def test_parse_optional_day_is_none_for_no_filter() -> None:
    assert parse_optional_day(None, "d") is None
    assert parse_optional_day("  ", "d") is None
    assert parse_optional_day("2026-01-31", "d") == date(2026, 1, 31)
    with pytest.raises(ToolError):
        parse_optional_day("31.1.", "d")


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2026-03-05T14:30", datetime(2026, 3, 5, 14, 30)),
        ("2026-03-05 14:30:15", datetime(2026, 3, 5, 14, 30, 15)),
    ],
)
def test_parse_moment_takes_a_local_time(text: str, moment: datetime) -> None:
    assert parse_moment(text, "starts_at") == moment


@pytest.mark.parametrize("text", ["2026-03-05", "2026-03-05T25:00", "2026-03-05T14:30+02:00", "14:30"])
def test_parse_moment_refuses_a_day_alone_an_impossible_time_and_a_zone(text: str) -> None:
    with pytest.raises(ToolError, match="starts_at must be a date and time written YYYY-MM-DDTHH:MM"):
        parse_moment(text, "starts_at")


def test_money_round_trips_in_cents() -> None:
    assert dollars(1999) == 19.99
    assert dollars(None) is None
    assert to_cents(19.99) == 1999
    assert to_cents(0.1 + 0.2) == 30  # float noise is not a third decimal
    with pytest.raises(ToolError, match="refund must have at most two decimals"):
        to_cents(1.005, "refund")
    with pytest.raises(ToolError, match="must be more than 0"):
        to_cents(0)
    assert to_cents(-5, "adjustment", positive=False) == -500


def test_text_limit_and_time_helpers() -> None:
    assert clean_text("  late delivery ", "reason", 3, 50) == "late delivery"
    for bad in ("", "  x ", "y" * 51, None):
        with pytest.raises(ToolError, match="reason must be 3 to 50 characters"):
            clean_text(bad, "reason", 3, 50)
    check_limit(50)
    with pytest.raises(ToolError, match="limit must be between 1 and 20"):
        check_limit(21, 20)
    assert iso_seconds(datetime(2026, 3, 2, 9, 30, 0, 123456)) == "2026-03-02T09:30:00"
    assert add_months(date(2026, 1, 31), 1) == date(2026, 2, 28)
    assert add_months(date(2024, 1, 31), 1) == date(2024, 2, 29)
    assert add_months(date(2026, 11, 15), 3) == date(2027, 2, 15)
    assert add_months(date(2026, 3, 31), -1) == date(2026, 2, 28)


def test_filters_is_one_sql_text_whatever_is_given_and_filters_only_what_is_given() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE r (id INTEGER PRIMARY KEY, status TEXT, day TEXT)")
    conn.executemany(
        "INSERT INTO r VALUES (?, ?, ?)",
        [(1, "booked", "2026-03-01"), (2, "cancelled", "2026-03-02"), (3, "booked", "2026-03-09")],
    )

    def ids(status: str | None, since: str | None) -> list[int]:
        where, params = filters(("status = ?", status), ("day >= ?", since))
        texts.add(where)
        return [r[0] for r in conn.execute(f"SELECT id FROM r WHERE {where} ORDER BY id", params)]

    texts: set[str] = set()
    assert ids(None, None) == [1, 2, 3]
    assert ids("booked", None) == [1, 3]
    assert ids("booked", "2026-03-02") == [3]
    assert ids(None, "2026-03-02") == [2, 3]
    assert len(texts) == 1  # compiled once
    assert filters() == ("1", [])
    with pytest.raises(ValueError, match="exactly one"):
        filters(("a = ? OR b = ?", 1))


def test_status_and_role_refusals_say_what_the_row_is_and_what_is_needed() -> None:
    require_status({"status": "booked"}, ("booked", "confirmed"), "Reservation ABC", "cancelled")
    with pytest.raises(ToolError) as info:
        require_status({"status": "checked_out"}, ("booked", "confirmed"), "Reservation ABC", "cancelled")
    assert str(info.value) == "Reservation ABC is checked_out; only a booked or confirmed one can be cancelled."
    with pytest.raises(ToolError, match=r"^Card 1234 is frozen; only an active one"):
        require_status({"state": "frozen"}, ["active"], "Card 1234", "charged", field="state")
    require_role({"full_name": "Ann Lee", "role": "manager"}, {"manager"}, "approve refunds")
    with pytest.raises(ToolError) as info:
        require_role({"full_name": "Ann Lee", "role": "teller"}, ("branch_manager", "dispute_officer"), "decide")
    assert str(info.value) == "Ann Lee is a teller; only a branch_manager or dispute_officer can decide."
    with pytest.raises(ToolError, match=r"^Bo Li is an intern; only an admin or owner can"):
        require_role({"full_name": "Bo Li", "role": "intern"}, ("admin", "owner"), "delete")
    assert either(["a", "b", "c"]) == "a, b or c"


def test_db_one_with_missing_refuses_on_a_real_episode() -> None:
    from awm.model.registry import default_registry

    world = default_registry().load("hotel")
    ep = world.episode(world.task_ids[0])
    db = ep.db
    assert db.one("SELECT id FROM rooms ORDER BY id LIMIT 1", missing="no room") is not None
    with pytest.raises(ToolError, match=r"^No room numbered 9999; use list_rooms"):
        db.one("SELECT * FROM rooms WHERE id = ?", (9999,), missing="No room numbered 9999; use list_rooms.")
    assert db.one("SELECT * FROM rooms WHERE id = ?", (9999,)) is None
    ep.close()


def test_like_any_searches_every_column_with_one_escaped_pattern() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT, email TEXT, phone TEXT)")
    conn.executemany(
        "INSERT INTO p VALUES (?, ?, ?, ?)",
        [(1, "Ann Lee", "ann@x.org", None), (2, "Bo Li", "bo_li@x.org", "555"), (3, "Cy Bo", "cy@x.org", "0")],
    )

    def ids(text: str) -> list[int]:
        where, params = like_any(text, "name", "email", "IFNULL(phone, '')")
        return [r[0] for r in conn.execute(f"SELECT id FROM p WHERE {where} ORDER BY id", params)]

    assert ids("bo") == [2, 3]  # a name or an e-mail
    assert ids("_li") == [2]  # '_' is a letter, not "any character"
    assert ids("%") == []
    assert ids("55") == [2]
    with pytest.raises(ValueError):
        like_any("x")
    with pytest.raises(ValueError, match="optional=True"):
        like_any(None, "name")

    def box(text: str | None) -> list[int]:  # a search box the agent may leave empty
        where, params = like_any(text, "name", "email", optional=True)
        texts.add(where)
        return [r[0] for r in conn.execute(f"SELECT id FROM p WHERE {where} ORDER BY id", params)]

    texts: set[str] = set()
    assert box(None) == box("  ") == [1, 2, 3]
    assert box(" bo ") == [2, 3] and box("%") == []
    assert len(texts) == 1


def test_db_none_refuses_what_exists_and_require_owner_refuses_another_persons_row() -> None:
    from awm.model.registry import default_registry

    world = default_registry().load("hotel")
    ep = world.episode(world.task_ids[0])
    ep.db.none("SELECT 1 FROM rooms WHERE id = ?", (9999,), found="taken")
    with pytest.raises(ToolError, match=r"^Room 1 is taken\.$"):
        ep.db.none("SELECT 1 FROM rooms WHERE id = ?", (1,), found="Room 1 is taken.")
    ep.close()
    require_owner({"customer_id": 7}, "customer_id", 7, "not yours")
    with pytest.raises(ToolError, match=r"^Order SO-1 is not one of Ann's orders"):
        require_owner({"customer_id": 8}, "customer_id", 7, "Order SO-1 is not one of Ann's orders; list_orders.")
