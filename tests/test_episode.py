"""Episodes on a real in-memory SQLite database: isolation, transactions, bad input, channels."""

import datetime
import json

import pytest

import awm
from awm.bundle.records import AnswerSchema, AnswerType
from awm.errors import EpisodeClosedError
from awm.judge.rewards import RewardSpec
from awm.runtime.episode import answer_type_problem


def stock(ep, pid=1):
    return ep.query("SELECT stock FROM products WHERE id = ?", (pid,))[0][0]


def test_episodes_are_isolated(mini_world):
    a = mini_world.episode("t02_buy_lamp")
    b = mini_world.episode("t02_buy_lamp")
    assert a.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 2}).ok
    assert stock(a) == 1 and stock(b) == 3


def test_gold_path_scores_one_with_progress_and_diff(mini_world):
    ep = mini_world.episode("t02_buy_lamp")
    r = ep.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})
    assert r.ok and r.result == {"order_id": 2, "total_cents": 9198}
    assert {(c.table, c.op) for c in r.diff.changes} == {("orders", "insert"), ("products", "update")}
    upd = next(c for c in r.diff.changes if c.op == "update")
    assert upd.key == {"id": 1} and upd.changed_columns == ["stock"]
    assert r.rewards.checks == {"order_placed": True, "stock_taken": True, "other_orders_untouched": True}
    assert r.rewards.progress == 1.0 and r.rewards.progress_delta == 1.0
    assert r.reward == 0.0  # default scalar: outcome only
    final = ep.submit()
    assert final.done and final.rewards.outcome == 1.0 and final.reward == 1.0
    assert final.rewards.progress_delta == -1.0  # Φ(terminal) = 0


def test_progress_is_weighted(mini_world):
    ep = mini_world.episode("t02_buy_lamp")
    # taking stock without an order satisfies only the weight-1 check of 3
    ep.call("place_order", {"customer_id": 1, "product_id": 3, "quantity": 1})
    assert ep.evaluate().progress == 0.0


def test_information_task_answer(mini_world):
    ep = mini_world.episode("t01_lamp_price")
    assert ep.submit("4599").rewards.outcome == 1.0
    ep = mini_world.episode("t01_lamp_price")
    r = ep.submit("45.99 dollars")
    assert r.rewards.outcome == 0.0 and r.rewards.answer_correct is False


def test_tool_error_leaves_no_partial_write(mini_world):
    ep = mini_world.episode("t02_buy_lamp")
    before = ep.state_bytes()
    # place_order inserts the order *before* it checks stock, then raises: the insert must be rolled back
    r = ep.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 5})
    assert not r.ok and r.error.code == "tool_error" and "only 3 in stock" in r.error.message
    assert r.rewards.tool_error and ep.state_bytes() == before and stock(ep) == 3


def test_constraint_violation_is_a_tool_error_and_rolled_back(mini_world):
    ep = mini_world.episode("t02_buy_lamp")
    before = ep.state_bytes()
    r = ep.call("place_order", {"customer_id": 99, "product_id": 1, "quantity": 1})  # FK fails on insert
    assert r.error.code == "tool_error" and "FOREIGN KEY" in r.error.message
    assert ep.state_bytes() == before


@pytest.mark.parametrize(
    ("tool", "args", "code", "fragment"),
    [
        ("plac_order", {}, "unknown_tool", "Did you mean place_order"),
        ("", {}, "unknown_tool", "unknown tool"),
        ("place_order", {"customer_id": 1}, "invalid_arguments", "missing required argument 'product_id'"),
        (
            "place_order",
            {"customer_id": 1, "product_id": 1, "colour": "red"},
            "invalid_arguments",
            "unknown argument 'colour'",
        ),
        ("place_order", {"customer_id": "one", "product_id": 1}, "invalid_arguments", "argument 'customer_id'"),
        ("place_order", {"customer_id": 1.5, "product_id": 1}, "invalid_arguments", "argument 'customer_id'"),
        ("place_order", '{"customer_id": 1,', "invalid_arguments", "not valid JSON"),
        ("place_order", "[1, 2]", "invalid_arguments", "JSON object"),
        ("search_products", {"query": "x" * 20_000}, "invalid_arguments", "at most 10000 characters"),
        ("search_products", json.dumps({"query": "x" * 1_000_000}), "invalid_arguments", "limit is"),
        ("set_order_status", {"order_id": 1, "status": "shipped"}, "invalid_arguments", "'placed' or 'cancelled'"),
    ],
)
def test_bad_calls_are_observations_and_change_nothing(mini_world, tool, args, code, fragment):
    ep = mini_world.episode("t02_buy_lamp")
    before = ep.state_bytes()
    r = ep.call(tool, args)
    assert not r.ok and r.error.code == code and fragment in r.error.message, r.error
    assert r.rewards.valid is False
    assert r.observation() == {"ok": False, "error": {"code": code, "message": r.error.message}}
    assert ep.state_bytes() == before and not ep.done


def test_sql_in_arguments_is_data(mini_world):
    ep = mini_world.episode("t02_buy_lamp")
    before = ep.state_bytes()
    r = ep.call("search_products", {"query": "'; DROP TABLE products; --"})
    assert r.ok and r.result == []
    r = ep.call("get_customer", {"email": "x' OR '1'='1"})
    assert r.error.code == "tool_error"
    assert ep.state_bytes() == before


def test_empty_arguments_string_means_no_arguments(lab_world):
    ep = lab_world.episode("t02_buy_lamp")
    assert ep.call("search_products", "").error.code == "invalid_arguments"  # query is required
    assert ep.call("sneaky_read", "").error.code == "internal_error"


def test_read_tool_that_writes_is_refused(lab_world):
    ep = lab_world.episode("t02_buy_lamp")
    before = ep.state_bytes()
    for _ in range(2):  # first call learns the statement; the second uses the learned plan
        r = ep.call("sneaky_read", {})
        assert r.error.code == "internal_error" and "write=True" in r.error.message and r.rewards.crashed
    assert ep.state_bytes() == before


def test_runaway_query_times_out(lab_world):
    ep = lab_world.episode("t02_buy_lamp")
    r = ep.call("spin", {"n": 100_000_000})
    assert r.error.code == "timeout" and r.rewards.timeout
    assert ep.call("spin", {"n": 10}).result == 10  # the episode is still usable


def test_call_after_end_raises(mini_world):
    ep = mini_world.episode("t01_lamp_price")
    ep.submit("4599")
    with pytest.raises(EpisodeClosedError, match="has ended"):
        ep.call("search_products", {"query": "x"})
    with pytest.raises(EpisodeClosedError):
        ep.submit("again")


def test_redundant_and_noop_flags(mini_world):
    ep = mini_world.episode("t03_cancel_alan")
    assert not ep.call("search_products", {"query": "Lamp"}).rewards.redundant
    assert ep.call("search_products", {"query": "Lamp"}).rewards.redundant
    assert ep.call("set_order_status", {"order_id": 1, "status": "cancelled"}).diff
    assert not ep.call("search_products", {"query": "Lamp"}).rewards.redundant  # state changed since
    r = ep.call("set_order_status", {"order_id": 1, "status": "cancelled"})
    assert r.ok and r.rewards.noop and not r.diff


def test_collateral_writes_are_flagged_and_fail_the_outcome(mini_world):
    ep = mini_world.episode("t03_cancel_alan")
    r = ep.call("delete_order", {"order_id": 1})
    # the cascade to order_notes is found even though the tool never named that table
    assert {(c.table, c.op) for c in r.diff.changes} == {("orders", "delete"), ("order_notes", "delete")}
    assert r.rewards.collateral == 2
    assert ep.submit().rewards.outcome == 0.0


def test_write_then_revert_is_not_collateral(mini_world):
    ep = mini_world.episode("t03_cancel_alan")
    ep.call("set_order_status", {"order_id": 1, "status": "cancelled"})
    ep.call("set_order_status", {"order_id": 1, "status": "placed"})
    assert not ep.diff_from_initial()
    ep.call("set_order_status", {"order_id": 1, "status": "cancelled"})
    assert ep.submit().rewards.outcome == 1.0


def test_determinism_same_actions_same_bytes_and_rewards(mini_world):
    def run():
        ep = mini_world.episode("t02_buy_lamp", seed=7, reward="dense")
        out = [
            ep.call("search_products", {"query": "Lamp"}).to_dict(),
            ep.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 1}).to_dict(),
            ep.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 9}).to_dict(),
        ]
        return out, ep.state_bytes(), ep.submit().to_dict()

    assert run() == run()


def test_snapshot_restore_and_fork(mini_world):
    ep = mini_world.episode("t02_buy_lamp")
    ep.call("place_order", {"customer_id": 1, "product_id": 3, "quantity": 1})
    snap = ep.snapshot()
    child = ep.fork()
    ep.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})
    ev = ep.evaluate()  # every check holds, but the extra cushion order and its stock change are collateral
    assert all(ev.checks.values()) and not ev.passed
    assert sorted((c.table, c.op) for c in ev.frame.collateral) == [("orders", "insert"), ("products", "update")]
    assert stock(child) == 3 and child.steps == 1
    child.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})
    assert child.state_bytes() == ep.state_bytes()
    ep.restore(snap)
    assert stock(ep) == 3 and ep.steps == 1 and ep.evaluate().progress == 0.0
    assert child.evaluate().progress == 1.0


def test_reward_compositions(mini_world):
    ep = mini_world.episode("t02_buy_lamp", reward="shaped")
    assert ep.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 2}).reward == 1.0
    assert ep.submit().reward == 0.0  # outcome 1 + shaping -1: the total stays policy-invariant
    ep = mini_world.episode("t02_buy_lamp", reward=RewardSpec(invalid_action=0.5))
    assert ep.call("nope", {}).reward == -0.5
    ep = mini_world.episode("t02_buy_lamp", reward=lambda ch: 10.0 * ch.redundant)
    ep.call("search_products", {"query": "a"})
    assert ep.call("search_products", {"query": "a"}).reward == 10.0
    with pytest.raises(ValueError, match="unknown reward preset"):
        mini_world.episode("t02_buy_lamp", reward="nope")


def test_task_chosen_from_seed_is_stable(mini_world):
    picks = [mini_world.episode(seed=s).task.id for s in range(20)]
    assert picks == [mini_world.episode(seed=s).task.id for s in range(20)]
    assert len(set(picks)) > 1


def test_discounted_shaping_follows_gamma_phi_prime_minus_phi(mini_world):
    ep = mini_world.episode("t02_buy_lamp", reward=RewardSpec(outcome=0.0, shaping=1.0, gamma=0.9))
    assert ep.call("search_products", {"query": "a"}).reward == 0.0  # Φ 0 -> 0
    r = ep.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})
    assert r.rewards.progress_delta == pytest.approx(0.9)  # 0.9 * 1 - 0
    assert ep.call("search_products", {"query": "a"}).rewards.progress_delta == pytest.approx(-0.1)
    assert ep.submit().rewards.progress_delta == -1.0  # Φ(terminal) = 0


# -- the final answer's type ------------------------------------------------------------------------
# (env, task, a value that can never be of the task's answer type, what the message names)
WRONG_TYPE = [
    ("library", "t02_clark_due_date", 19, 'a date (a "YYYY-MM-DD" string), not a number'),  # a date
    ("library", "t02_clark_due_date", ["2026-04-19"], "not a list"),
    ("online_store", "t01_priya_2026_spend", {"total": 453.06}, "must be a number, not an object"),
    ("online_store", "t01_priya_2026_spend", True, "must be a number, not a boolean"),
    ("online_store", "t02_best_rated_kitchen", ["Countertop Blender Pro"], "must be a string, not a list"),
    ("online_store", "t04_boots_sold_out", 9, "a list (JSON array)"),  # a scalar for a list
    ("online_store", "t04_boots_sold_out", ["RDG-TRB-09", ["RDG-TRB-11"]], "item 1 of the answer must be a string"),
    ("online_store", "t03_liam_tracking", {"carrier": "FedEx"}, "lacks the field 'tracking_number'"),
    ("online_store", "t03_liam_tracking", ["FedEx", "770403560786"], "an object with the fields"),
    ("it_helpdesk", "t05_barbara_vpn_deadline", {"due_date": "2026-03-26", "breached": "yes", "x": 1}, "no field 'x'"),
    ("it_helpdesk", "t05_barbara_vpn_deadline", {"due_date": 26, "breached": True}, "field 'due_date' of the answer"),
    ("it_helpdesk", "t05_barbara_vpn_deadline", {"due_date": "2026-03-26", "breached": 1}, "true or false"),
]


@pytest.mark.parametrize(("env", "task_id", "answer", "says"), WRONG_TYPE)
def test_a_wrongly_typed_answer_is_malformed_and_the_episode_goes_on(env, task_id, answer, says):
    """What the README promises: a malformed submission does not end the episode. A value that can never be of
    the answer type is one: a step flagged malformed whose message says what to send; the episode goes on."""
    world = awm.load(env)
    ep = world.episode(task_id)
    res = ep.submit(answer, explanation="my reasoning")
    assert not res.done and not ep.done and not res.ok and ep.steps == 1
    assert res.rewards.malformed and res.rewards.outcome is None and res.reward == 0.0
    assert res.error is not None and res.error.code == "malformed_action"
    msg = res.error.message
    assert "the episode goes on" in msg and says in msg, msg
    schema = json.dumps(ep.task.task.answer.json_schema())
    assert schema in msg and '"answer"' in msg and "explanation" in msg  # what to send and how
    assert res.arguments == {"answer": answer, "explanation": "my reasoning"}  # recorded as sent
    assert res.observation() == {"ok": False, "error": res.error.to_dict()}
    final = ep.submit(world.task(task_id).verifier.gold.answer)
    assert final.done and final.rewards.outcome == 1.0 and ep.steps == 2


@pytest.mark.parametrize(
    ("env", "task_id", "answer"),
    [
        ("library", "t02_clark_due_date", "19"),  # text: the strict fallback, judged (and wrong)
        ("library", "t02_clark_due_date", "April 20, 2026"),
        ("online_store", "t01_priya_2026_spend", "453.06 or 453.07"),
        ("online_store", "t02_best_rated_kitchen", 12),  # a number is a string's spelling
        ("online_store", "t04_boots_sold_out", "RDG-TRB-09"),
        ("online_store", "t04_boots_sold_out", []),
        ("online_store", "t03_liam_tracking", "FedEx 770403560786"),
        ("online_store", "t03_liam_tracking", {"carrier": "UPS", "tracking_number": 770403560786}),
        ("it_helpdesk", "t05_barbara_vpn_deadline", {"due_date": "March 26", "breached": "no"}),
        ("online_store", "t01_priya_2026_spend", None),  # no answer: ends the episode, scores 0
        ("online_store", "t01_priya_2026_spend", ""),
    ],
)
def test_answers_of_the_type_or_free_text_are_judged_and_end_the_episode(env, task_id, answer):
    ep = awm.load(env).episode(task_id)
    res = ep.submit(answer)
    assert res.done and ep.done and not res.rewards.malformed and res.rewards.outcome == 0.0, res.error


def test_a_write_task_takes_any_answer_without_judging_it(mini_world):
    for answer in (19, [1], {"a": 1}, "done"):
        ep = mini_world.episode("t03_cancel_alan")
        ep.call("set_order_status", {"order_id": 1, "status": "cancelled"})
        res = ep.submit(answer)
        assert res.done and res.rewards.outcome == 1.0 and not res.rewards.malformed


def test_answer_type_problem_only_for_values_that_can_never_be_the_type():
    number, date_ = AnswerSchema(type=AnswerType.number), AnswerSchema(type=AnswerType.date)
    strings = AnswerSchema(type=AnswerType.list, items=AnswerType.string)
    for ok in (1, 2.5, "about 3", "", None):
        assert answer_type_problem(number, ok) is None, ok
    for bad in (True, [1], {"n": 1}):
        assert answer_type_problem(number, bad), bad
    assert answer_type_problem(date_, datetime.date(2026, 4, 19)) is None  # the Python API may pass a date
    assert answer_type_problem(date_, 20260419) and answer_type_problem(date_, False)
    assert answer_type_problem(strings, ["a", 1, "b"]) is None and answer_type_problem(strings, "a, b") is None
    assert "item 1 of the answer" in (answer_type_problem(strings, ["a", None]) or "")
    assert answer_type_problem(AnswerSchema(type=AnswerType.string), False)


def test_a_submitted_verdict_is_final(mini_world):
    """After submit, restore is refused (a second submit could score); a rollout from an earlier snapshot is a
    new episode (branch), and the submitted one keeps its verdict."""
    from awm.errors import EpisodeClosedError

    ep = mini_world.episode("t02_buy_lamp")
    snap = ep.snapshot()
    assert ep.submit().rewards.outcome == 0.0
    with pytest.raises(EpisodeClosedError, match="verdict is final"):
        ep.restore(snap)
    child = ep.branch(snap)
    assert child is not ep and not child.done and ep.done and ep.submitted
    child.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 2})
    assert child.submit().rewards.outcome == 1.0
    before = mini_world.episode("t02_buy_lamp")  # restore before a submit still works
    early = before.snapshot()
    before.call("place_order", {"customer_id": 1, "product_id": 1, "quantity": 1})
    before.restore(early)
    assert before.steps == 0 and not before.diff_from_initial()


def test_the_instruction_and_answer_type_are_read_from_the_episode(mini_world):
    for task_id in mini_world.task_ids:
        ep = mini_world.episode(task_id)
        assert ep.instruction == mini_world.tasks[task_id].task.instruction and ep.instruction
        assert ep.answer_schema == mini_world.tasks[task_id].task.answer
    assert any(mini_world.episode(t).answer_schema is not None for t in mini_world.task_ids)
