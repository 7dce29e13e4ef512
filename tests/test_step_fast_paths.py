"""The step path's shortcuts agree with the slow way of computing the same thing.

- change capture installed per (table, event) on first use, and a skipped log read when the tool changed
  nothing (``total_changes``): every step's diff equals an EXCEPT comparison with the state before it;
- checks re-run only when what they read changed: after every step, the episode's checks and Φ equal
  a full run of every check on the current state;
- ``restore`` points the installed capture triggers at the restored database: steps after a restore
  diff exactly as the same steps in an episode that never restored;
- a closed episode's connection serves the next episode of its world: every step result, state and
  final reward is what a fresh connection gives, and a connection something else changed is not reused.
"""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

import awm.runtime.episode
from awm.judge import verify
from awm.model.registry import default_registry
from awm.runtime.episode import _shared
from awm.sql.diff import CAPTURE_EVENTS, diff_tables


@pytest.fixture(autouse=True)
def no_idle_connections():
    """Each test starts with fresh connections (some look at what an episode installed itself)."""
    awm.runtime.episode._POOL.clear()
    yield
    awm.runtime.episode._POOL.clear()


def _norm(diff):
    return sorted((c.table, c.op, tuple(c.key.items()), repr(c.before), repr(c.after)) for c in diff.changes)


def _step(ep, tool, args):
    """One call, checked against the slow paths: the EXCEPT diff and a full run of the checks."""
    before = ep.state_bytes()
    res = ep.call(tool, args)
    verify.attach_copy(ep.conn, "prev", before)
    assert _norm(res.diff) == _norm(diff_tables(ep.conn, ep.world.tables.values(), "prev")), (tool, args)
    ep.conn.execute("DETACH DATABASE prev")
    checks = ep.task.verifier.checks
    if checks and ep.task.needs_initial and res.diff:
        assert ep._initial_attached  # attached when the checks ran, as before
    if checks and (not ep.task.needs_initial or ep._initial_attached):
        full = verify.run_checks(ep.conn, checks)
        assert res.rewards.checks == full, (tool, args)
        assert res.rewards.progress == verify.progress(checks, full)
    return res


MINI_CALLS = [
    ("place_order", {"customer_id": 1, "product_id": 1, "quantity": 2}),
    ("place_order", {"customer_id": 2, "product_id": 3, "quantity": 1}),
    ("place_order", {"customer_id": 1, "product_id": 1, "quantity": 999}),  # refused: rolled back
    ("set_order_status", {"order_id": 1, "status": "cancelled"}),
    ("set_order_status", {"order_id": 1, "status": "cancelled"}),  # changes nothing the second time
    ("set_order_status", {"order_id": 1, "status": "placed"}),
    ("set_order_status", {"order_id": 99, "status": "placed"}),
    ("delete_order", {"order_id": 1}),  # cascades to order_notes
    ("delete_order", {"order_id": 2}),
    ("delete_order", {"order_id": 424242}),  # a tool error
    ("search_products", {"query": "Lamp"}),
]


@pytest.mark.parametrize("seed", range(6))
def test_random_mini_shop_steps_match_the_slow_paths(mini_world, seed):
    rng = random.Random(seed)
    for task_id in ("t02_buy_lamp", "t03_cancel_alan"):
        for _ in range(2):  # the second episode has the task's check cost: its checks re-run selectively
            ep = mini_world.episode(task_id)
            for tool, args in [rng.choice(MINI_CALLS) for _ in range(12)]:
                _step(ep, tool, args)
    assert _shared(mini_world).check_cost  # the selective path ran


def test_a_write_that_changes_nothing(mini_world):
    ep = mini_world.episode("t03_cancel_alan")
    _step(ep, "set_order_status", {"order_id": 1, "status": "cancelled"})
    res = _step(ep, "set_order_status", {"order_id": 1, "status": "cancelled"})  # logged, same images
    assert res.ok and not res.diff and res.rewards.noop
    assert ep.conn.execute("SELECT count(*) FROM temp._awm_changes").fetchone() == (0,)
    # a statement that writes no row: the log is not read at all (total_changes did not move)
    ep.db._writable = True
    ep.conn.execute("BEGIN")
    since = ep.conn.total_changes
    assert ep.db.execute("UPDATE orders SET status = ? WHERE id = ?", ("placed", 999)) == 0
    ran: list[str] = []
    ep.conn.set_trace_callback(ran.append)
    assert ep._take_log(since) == []
    ep.conn.set_trace_callback(None)
    ep.conn.execute("ROLLBACK")
    ep.db._writable = False
    assert ran == []


def test_a_failed_write_rolls_back_its_changes_and_its_capture(mini_world):
    ep = mini_world.episode("t02_buy_lamp")
    res = _step(ep, "place_order", {"customer_id": 1, "product_id": 1, "quantity": 999})
    assert not res.ok and not res.diff
    assert not ep._captured  # the triggers installed during the call went with the rollback
    _step(ep, "place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})
    assert ep.evaluate().checks["order_placed"]


def test_capture_is_installed_per_event_and_cascades_get_every_event(mini_world):
    ep = mini_world.episode("t03_cancel_alan")
    _step(ep, "set_order_status", {"order_id": 1, "status": "cancelled"})
    notes = {("order_notes", e) for e in CAPTURE_EVENTS}  # ON DELETE CASCADE from orders
    assert ep._captured == {("orders", "update")} | notes
    res = _step(ep, "delete_order", {"order_id": 1})
    assert {c.table for c in res.diff.changes} == {"orders", "order_notes"}
    assert ep._captured == {("orders", "update"), ("orders", "delete")} | notes


def test_a_table_without_capture_is_checked_every_time(mini_world, monkeypatch):
    """A table the log cannot show: its checks run after every change, whatever it touched."""
    shared = _shared(mini_world)
    monkeypatch.setattr(shared, "ddl", {k: v for k, v in shared.ddl.items() if k[0] != "products"})
    monkeypatch.setattr(shared, "columns", {t: c for t, c in shared.columns.items() if t != "products"})
    monkeypatch.setattr(shared, "_reads", {})
    ep = mini_world.episode("t02_buy_lamp")
    ep.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})
    checks = ep.task.verifier.checks
    assert ep._checks == verify.run_checks(ep.conn, checks)
    assert shared.reads(ep.conn, next(c.sql for c in checks if c.name == "stock_taken")) is None


def test_only_the_checks_that_read_a_changed_column_run_again(mini_world):
    ep = mini_world.episode("t02_buy_lamp")
    _step(ep, "place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})  # learns the check cost
    ep = mini_world.episode("t02_buy_lamp")
    _step(ep, "place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})
    ran: list[str] = []
    ep.conn.set_trace_callback(ran.append)
    ep.call("set_order_status", {"order_id": 1, "status": "cancelled"})  # orders.status only
    ep.conn.set_trace_callback(None)
    sql = {c.name: c.sql for c in ep.task.verifier.checks}
    assert sql["other_orders_untouched"] in ran  # reads orders.status
    assert sql["order_placed"] not in ran and sql["stock_taken"] not in ran
    assert ep._checks == verify.run_checks(ep.conn, ep.task.verifier.checks)


@pytest.mark.parametrize("env", ["online_store", "clinic", "project_tracker"])
def test_reference_gold_paths_in_random_order_match_the_slow_paths(env):
    world = default_registry().load(env)
    rng = random.Random(env)
    calls = [c for t in world.task_ids for c in world.tasks[t].verifier.gold.calls]
    for task_id in [t for t in world.task_ids if world.tasks[t].verifier.checks][:6]:
        for _ in range(2):
            ep = world.episode(task_id)
            for call in world.tasks[task_id].verifier.gold.calls + rng.sample(calls, 6):
                _step(ep, call.tool, call.arguments)


@pytest.mark.parametrize("env", ["online_store", "clinic", "project_tracker"])
def test_steps_after_restore_diff_as_without_it(env):
    """The capture triggers installed before a snapshot still log after the restore (they went silent)."""
    world = default_registry().load(env)
    for task_id in world.task_ids:
        calls = world.tasks[task_id].verifier.gold.calls
        writes = [i for i, c in enumerate(calls) if world.tools[c.tool].write]
        if not writes:
            continue
        ep, ref = world.episode(task_id), world.episode(task_id)
        for c in calls[: writes[0] + 1]:
            ep.call(c.tool, c.arguments)
            ref.call(c.tool, c.arguments)
        snap = ep.snapshot()
        for c in calls[writes[0] + 1 :]:
            ep.call(c.tool, c.arguments)
        ep.restore(snap)
        for c in calls[writes[0] + 1 :]:
            a, b = ep.call(c.tool, c.arguments), ref.call(c.tool, c.arguments)
            assert a.to_dict() == b.to_dict(), (task_id, c.tool)
        assert ep.state_bytes() == ref.state_bytes()
        gold = world.tasks[task_id].verifier.gold.answer
        assert ep.submit(gold).to_dict() == ref.submit(gold).to_dict()


def test_restore_of_a_capture_that_never_fired(mini_world):
    ep = mini_world.episode("t03_cancel_alan")
    res = ep.call("set_order_status", {"order_id": 99, "status": "placed"})  # installs capture, logs nothing
    assert not res.ok or not res.diff
    ep.conn.execute("BEGIN")
    ep._capture(frozenset({("orders", "update")}))
    ep._captured_now = set()
    ep.conn.execute("COMMIT")
    ep.restore(ep.snapshot())
    res = ep.call("set_order_status", {"order_id": 1, "status": "cancelled"})
    assert [c.table for c in res.diff.changes] == ["orders"]
    assert ep.evaluate().passed


def _replay(world, task_id, *, restore_at=None):
    """Every step result, the final reward and state of the task's gold path, as text."""
    ct = world.tasks[task_id]
    ep = world.episode(task_id, reward="dense")
    out, snap = [], None
    for i, c in enumerate(ct.verifier.gold.calls):
        if i == restore_at:
            snap = ep.snapshot()
            ep.call("list_tools" if "list_tools" in world.tools else c.tool, c.arguments)
            ep.restore(snap)
        out.append(json.dumps(_step(ep, c.tool, c.arguments).to_dict(), sort_keys=True, default=str))
    out.append(json.dumps(ep.submit(ct.verifier.gold.answer).to_dict(), sort_keys=True, default=str))
    out.append(ep.state_bytes().hex())
    ep.close()
    return out


@pytest.mark.parametrize("env", ["online_store", "project_tracker"])
def test_reused_connections_give_what_fresh_ones_give(env, monkeypatch):
    world = default_registry().load(env)
    tasks = [t for t in world.task_ids if world.tasks[t].verifier.gold.calls]
    monkeypatch.setattr(awm.runtime.episode, "POOL_SIZE", 0)
    fresh = {t: _replay(world, t) for t in tasks}
    assert not awm.runtime.episode._POOL
    monkeypatch.setattr(awm.runtime.episode, "POOL_SIZE", 32)
    for order in (tasks, tasks[::-1], random.Random(env).sample(tasks, len(tasks))):  # same and other tasks
        for t in order:
            assert _replay(world, t) == fresh[t], t
    assert awm.runtime.episode._POOL  # they were reused
    for t in tasks[:6]:
        assert _replay(world, t, restore_at=1) == fresh[t], t


def test_a_reused_connection_is_as_an_episode_leaves_it(mini_world):
    ep = mini_world.episode("t02_buy_lamp")
    _step(ep, "place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})
    conn, captured = ep.conn, set(ep._captured)
    ep.close()
    ep.close()  # twice: nothing more
    with pytest.raises(sqlite3.ProgrammingError):
        ep.state_bytes()  # as on a closed connection
    again = mini_world.episode("t02_buy_lamp")
    assert again.conn is conn and again._captured == captured
    assert again.state_bytes() == mini_world.start_blob
    assert again.evaluate().checks == dict(again.task.initial_checks)
    _step(again, "place_order", {"customer_id": 2, "product_id": 3, "quantity": 1})


def test_a_connection_something_else_changed_is_not_reused(mini_world):
    ep = mini_world.episode("t02_buy_lamp")
    verify.attach_copy(ep.conn, "other", mini_world.seed_blob)  # still attached at the end
    ep.close()
    ep = mini_world.episode("t02_buy_lamp")
    ep.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})
    ep._attach_initial()
    ep.conn.execute("DELETE FROM initial.orders")  # the initial state is no longer the initial state
    ep.close()
    ep = mini_world.episode("t02_buy_lamp")
    ep.conn.execute("CREATE TEMP TABLE mine (x)")
    ep.close()
    assert not awm.runtime.episode._POOL
