"""The row-level write frame: the gold solution's net diff, with declared exceptions."""

import sqlite3

from awm.bundle.records import AllowedWrite
from awm.judge.frame import Frame, free_map, same_value
from awm.sql.diff import Diff, RowChange, TableInfo

TABLES = {
    "orders": TableInfo("orders", ("id", "customer_id", "status", "note"), ("id",)),
    "lines": TableInfo("lines", ("id", "order_id", "sku", "qty"), ("id",)),
    "comments": TableInfo("comments", ("id", "order_id", "author", "body"), ("id",)),
}
FKS = {"lines": {"order_id": "orders"}, "comments": {"order_id": "orders"}}
AUTO = frozenset(TABLES)


def ins(table, **row):
    return RowChange(table, "insert", {"id": row["id"]}, None, row)


def upd(table, before, **after):
    return RowChange(table, "update", {"id": before["id"]}, before, {**before, **after})


def dele(table, **row):
    return RowChange(table, "delete", {"id": row["id"]}, row, None)


ORDER_7 = {"id": 7, "customer_id": 1, "status": "placed", "note": None}
ORDER_8 = {"id": 8, "customer_id": 2, "status": "placed", "note": None}
GOLD = Diff(
    (
        upd("orders", ORDER_7, status="cancelled", note="customer asked"),
        ins("orders", id=20, customer_id=1, status="placed", note=None),
        ins("lines", id=50, order_id=20, sku="LAMP", qty=2),
        ins("lines", id=51, order_id=20, sku="MUG", qty=1),
    )
)


def frame(**kw):
    return Frame(TABLES, GOLD, fks=FKS, autokeys=AUTO, **kw)


def test_the_gold_change_itself_passes():
    assert frame().judge(GOLD).ok


def test_values_compare_after_normalisation():
    assert same_value("Customer asked.", "customer  asked") and same_value(2, 2.0)
    assert not same_value("customer", "customer asked") and not same_value(None, "")
    agent = Diff((upd("orders", ORDER_7, status="Cancelled", note="Customer asked."), *GOLD.changes[1:]))
    assert frame().judge(agent).ok


def test_inserts_match_by_content_in_any_order_with_new_foreign_keys():
    agent = Diff(
        (
            GOLD.changes[0],
            ins("orders", id=21, customer_id=1, status="placed", note=None),
            ins("lines", id=60, order_id=21, sku="MUG", qty=1),
            ins("lines", id=61, order_id=21, sku="LAMP", qty=2),
        )
    )
    assert frame().judge(agent).ok


def test_someone_elses_row_is_collateral():
    agent = Diff((*GOLD.changes, upd("orders", ORDER_8, status="cancelled")))
    v = frame().judge(agent)
    assert not v.ok and [c.key for c in v.collateral] == [{"id": 8}]
    assert frame().outside(Diff((upd("orders", ORDER_8, status="cancelled"),))) != []
    assert frame().outside(Diff((GOLD.changes[0],))) == []


def test_a_wrong_value_a_missing_change_and_an_extra_insert_fail():
    wrong = Diff((upd("orders", ORDER_7, status="cancelled", note="no reason"), *GOLD.changes[1:]))
    assert frame().judge(wrong).wrong
    missing = Diff(GOLD.changes[:3])
    v = frame().judge(missing)
    assert not v.ok and (v.missing or v.wrong)
    duplicate = Diff((*GOLD.changes, ins("lines", id=52, order_id=20, sku="MUG", qty=1)))
    assert frame().judge(duplicate).collateral
    deleted = Diff((*GOLD.changes, dele("orders", **ORDER_8)))
    assert frame().judge(deleted).collateral


def test_free_columns_may_differ_or_stay_unchanged():
    f = frame(free=free_map(["orders.note"]))
    agent = Diff((upd("orders", ORDER_7, status="cancelled", note="anything"), *GOLD.changes[1:]))
    assert f.judge(agent).ok
    only_free = Frame(TABLES, Diff((upd("orders", ORDER_7, note="x"),)), free=free_map(["orders.note"]))
    assert only_free.judge(Diff()).ok  # nothing but a free column was to change


def test_declared_rules_allow_rows_by_predicate_and_count():
    conn = sqlite3.connect(":memory:")
    rule = AllowedWrite(table="comments", ops=["insert"], where="order_id = 7 AND author = 'agent'", max_rows=1)
    f = frame(rules=(rule,))
    one = ins("comments", id=1, order_id=7, author="agent", body="done")
    two = ins("comments", id=2, order_id=7, author="agent", body="again")
    other = ins("comments", id=3, order_id=8, author="agent", body="hi")
    assert f.judge(Diff((*GOLD.changes, one)), conn).ok
    assert not f.judge(Diff((*GOLD.changes, one, two)), conn).ok  # max_rows
    assert not f.judge(Diff((*GOLD.changes, other)), conn).ok  # predicate
    assert f.outside(Diff((one,)), conn) == [] and f.outside(Diff((other,)), conn) != []


def test_the_episode_reports_collateral_per_step_and_writes_ok_at_the_end(mini_world):
    ep = mini_world.episode("t03_cancel_alan")
    res = ep.call("place_order", {"customer_id": 1, "product_id": 3, "quantity": 1})
    assert res.ok and res.rewards.collateral == 2  # a new order and another product's stock
    ep.call("set_order_status", {"order_id": 1, "status": "cancelled"})
    final = ep.submit()
    assert final.rewards.outcome == 0.0 and final.rewards.writes_ok is False
    assert all(final.rewards.checks.values())
    ep = mini_world.episode("t03_cancel_alan")
    ep.call("set_order_status", {"order_id": 1, "status": "cancelled"})
    final = ep.submit()
    assert final.rewards.outcome == 1.0 and final.rewards.writes_ok is True and final.rewards.collateral == 0


def test_respellings_name_the_values_the_checks_must_see_as_expected():
    agent = Diff((upd("orders", ORDER_7, status="CANCELLED", note="customer-asked"), *GOLD.changes[1:]))
    verdict = frame().judge(agent)
    assert verdict.ok
    assert {(r.table, r.key["id"], r.column, r.value) for r in verdict.respellings} == {
        ("orders", 7, "status", "cancelled"),
        ("orders", 7, "note", "customer asked"),
    }
    assert frame().judge(GOLD).respellings == ()


def test_punctuation_between_words_is_a_separator_but_signs_and_digits_count():
    assert same_value("(503) 555-0219", "503-555-0219") and same_value("Apt. 4", "apt 4")
    assert same_value("CCG-558-20931", "ccg 558 20931") and same_value("Zoë", "Zoe")
    assert not same_value("12.50", "1250") and not same_value("-5", "5") and not same_value("a.b@x.com", "ab@x.com")
    assert not same_value("東京", "大阪")  # letters beyond ASCII are kept, not dropped


def test_log_tables_absorb_extra_inserts_but_still_require_the_expected_ones():
    tables = {**TABLES, "log": TableInfo("log", ("id", "what"), ("id",))}
    gold = Diff((*GOLD.changes, ins("log", id=1, what="cancel 7")))
    f = Frame(tables, gold, fks=FKS, autokeys=AUTO | {"log"}, logs=frozenset({"log"}))
    undo = Diff((*gold.changes, ins("log", id=2, what="add watcher"), ins("log", id=3, what="remove watcher")))
    assert f.judge(undo).ok
    assert f.outside(Diff((ins("log", id=9, what="x"),))) == []
    assert not f.judge(Diff(GOLD.changes)).ok  # the expected log row is still required
    assert not f.judge(Diff((*gold.changes, upd("log", {"id": 1, "what": "cancel 7"}, what="x")))).ok
    strict = Frame(tables, gold, fks=FKS, autokeys=AUTO | {"log"})
    assert not strict.judge(undo).ok
