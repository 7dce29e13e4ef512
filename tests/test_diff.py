"""The trigger-captured diffs agree with a full EXCEPT comparison against the initial state."""

from __future__ import annotations

import random

import pytest

from awm.judge import verify
from awm.model.registry import default_registry
from awm.sql.diff import diff_tables


def _reference(ep):
    verify.attach_copy(ep.conn, "initial", ep.world.seed_blob)
    return diff_tables(ep.conn, ep.world.tables.values(), "initial")


def _norm(diff):
    return sorted((c.table, c.op, tuple(c.key.items()), repr(c.before), repr(c.after)) for c in diff.changes)


def test_step_and_net_diffs_match_except_scan(mini_world):
    rng = random.Random(1)
    ep = mini_world.episode("t02_buy_lamp")
    calls = [
        ("place_order", {"customer_id": 1, "product_id": 3, "quantity": 2}),
        ("set_order_status", {"order_id": 1, "status": "cancelled"}),
        ("set_order_status", {"order_id": 1, "status": "placed"}),  # reverts: net diff drops it
        ("delete_order", {"order_id": 2}),  # cascades (no notes on 2) and removes an inserted row
        ("place_order", {"customer_id": 2, "product_id": 1, "quantity": 1}),
        ("delete_order", {"order_id": 1}),
    ]  # cascades to order_notes
    for tool, args in calls + [rng.choice(calls) for _ in range(10)]:
        prev = ep.state_bytes()
        res = ep.call(tool, args)
        assert _norm(ep.diff_from_initial()) == _norm(_reference(ep))
        verify.attach_copy(ep.conn, "prev", prev)
        assert _norm(res.diff) == _norm(diff_tables(ep.conn, ep.world.tables.values(), "prev")), tool
    assert any(c.table == "order_notes" for c in ep.diff_from_initial().changes)


@pytest.mark.parametrize("env", ["online_store", "clinic", "project_tracker"])
def test_gold_paths_of_reference_envs_match_except_scan(env):
    world = default_registry().load(env)
    for task_id in world.task_ids:
        ep = world.episode(task_id)
        for call in world.tasks[task_id].verifier.gold.calls:
            ep.call(call.tool, call.arguments)
            assert _norm(ep.diff_from_initial()) == _norm(_reference(ep)), (task_id, call.tool)


def test_odd_identifiers_are_quoted_everywhere(bundle_copy):
    from awm.model.registry import Registry

    env = bundle_copy / "envs" / "mini_shop"
    (env / "schema.sql").write_text(
        (env / "schema.sql").read_text()
        + """
CREATE TABLE "gift cards" ("card id" INTEGER PRIMARY KEY, "it's" TEXT NOT NULL, "group" INTEGER NOT NULL);
"""
    )
    tools = (
        (env / "tools.py").read_text()
        + '''

@tool(write=True)
def add_card(db: Db, label: str) -> int:
    """Add a gift card.

    Args:
        label: the label.
    """
    return db.insert("gift cards", {"it's": label, "group": 1})
'''
    )
    (env / "tools.py").write_text(tools)
    world = Registry([bundle_copy], include_default=False).load("mini_shop")
    ep = world.episode("t02_buy_lamp")
    res = ep.call("add_card", {"label": "x'); DROP TABLE orders; --"})
    assert res.ok and res.diff.changes[0].table == "gift cards"
    assert res.diff.changes[0].after == {"card id": 1, "it's": "x'); DROP TABLE orders; --", "group": 1}
    assert _norm(ep.diff_from_initial()) == _norm(_reference(ep))
