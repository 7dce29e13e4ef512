"""The adversarial audit: every probe class catches a deliberately weakened verifier."""

import json

import pytest
from typer.testing import CliRunner

import awm.runtime.episode
from awm.cli import app
from awm.isolation import available as isolation_available
from awm.judge.frame import Frame, Verdict
from awm.model.registry import Registry
from awm.proof.audit import audit_world
from tests.conftest import FIXTURE_ROOT, rewrite_verifier

ANY_NEW_ORDER = "SELECT COUNT(*) >= 1 FROM orders WHERE customer_id = 1 AND id NOT IN (SELECT id FROM initial.orders)"
LIST_TASK = {
    "id": "t04_low_stock",
    "instruction": "Which products have fewer than 5 units in stock? Give their names.",
    "kind": "information",
    "answer": {"type": "list", "description": "product names"},
}
LIST_VERIFIER = {
    "task_id": "t04_low_stock",
    "answer": {
        "sql": "SELECT name FROM products WHERE stock < 5 ORDER BY id",
        "distractors_sql": "SELECT name FROM products WHERE stock >= 5",
    },
    "gold": {
        "calls": [{"tool": "search_products", "arguments": {"query": "a"}}],
        "answer": ["Brass Desk Lamp", "Oak Floor Lamp"],
    },
}


def _add_list_task(root):
    with open(root / "envs/mini_shop/tasks.jsonl", "a") as f:
        f.write(json.dumps(LIST_TASK) + "\n")
    with open(root / "verifiers/mini_shop/verifiers.jsonl", "a") as f:
        f.write(json.dumps(LIST_VERIFIER) + "\n")


def _audit(root, task):
    world = Registry([root], include_default=False).load("mini_shop")
    return audit_world(world, [task])


def _leaking_kinds(report):
    return {p.kind for p in report.failures}


def test_the_fixture_passes_with_every_probe_class(bundle_copy):
    _add_list_task(bundle_copy)
    world = Registry([bundle_copy], include_default=False).load("mini_shop")
    report = audit_world(world)
    assert report.ok, [str(p) for p in report.failures]
    assert report.score == 1.0
    kinds = set(report.by_kind())
    assert {"write.mutate", "write.minus", "write.other_row", "answer.spelling", "answer.wrong"} <= kinds
    assert {"answer.hedge", "answer.negation", "answer.everything", "answer.dump", "answer.missing"} <= kinds
    assert {"answer.extra", "answer.empty"} <= kinds
    d = report.to_dict()
    assert d["ok"] and d["rejected"] == d["adversarial"] > 50


def test_mutated_arguments_catch_a_value_the_verifier_frees(bundle_copy):
    rewrite_verifier(
        bundle_copy,
        "t02_buy_lamp",
        checks=[{"name": "ordered", "sql": ANY_NEW_ORDER}],
        free_columns=["orders.quantity", "orders.total_cents", "orders.product_id", "products.stock"],
    )
    report = _audit(bundle_copy, "t02_buy_lamp")
    assert "write.mutate" in _leaking_kinds(report)
    assert any("quantity=" in p.description for p in report.failures)


def test_declared_free_arguments_are_not_mutated(bundle_copy):
    rewrite_verifier(
        bundle_copy,
        "t02_buy_lamp",
        checks=[{"name": "ordered", "sql": ANY_NEW_ORDER}],
        free_columns=["orders.quantity", "orders.total_cents", "products.stock"],
        free_arguments=["place_order.quantity"],
    )
    report = _audit(bundle_copy, "t02_buy_lamp")
    assert not any("quantity=" in p.description for p in report.probes)


def test_other_row_writes_catch_a_table_wide_exception(bundle_copy):
    rewrite_verifier(bundle_copy, "t03_cancel_alan", allowed_writes=[{"table": "orders"}, {"table": "products"}])
    assert "write.other_row" in _leaking_kinds(_audit(bundle_copy, "t03_cancel_alan"))


@pytest.fixture
def frame_off(monkeypatch):
    """The old design: no row-level frame at all, only the checks."""
    monkeypatch.setattr(Frame, "judge", lambda self, net, conn=None: Verdict())


def test_minus_and_repeat_catch_checks_that_cover_one_write_of_two(bundle_copy, frame_off):
    gold = {
        "calls": [
            {"tool": "place_order", "arguments": {"customer_id": 1, "product_id": 3, "quantity": 1}},
            {"tool": "set_order_status", "arguments": {"order_id": 1, "status": "cancelled"}},
        ]
    }
    rewrite_verifier(bundle_copy, "t03_cancel_alan", gold=gold)
    kinds = _leaking_kinds(_audit(bundle_copy, "t03_cancel_alan"))
    assert {"write.minus", "write.repeat", "write.other_row"} <= kinds


def test_wrong_values_catch_a_loose_tolerance(bundle_copy):
    rewrite_verifier(
        bundle_copy, "t01_lamp_price", answer={"sql": "SELECT price_cents FROM products WHERE id = 1", "tolerance": 5}
    )
    assert "answer.wrong" in _leaking_kinds(_audit(bundle_copy, "t01_lamp_price"))


@pytest.fixture
def lenient_answers(monkeypatch):
    def judge(answer, exp):
        if answer is None:
            return False, ""
        text = (json.dumps(answer) if not isinstance(answer, str) else answer).lower()
        values = exp.canonical() if isinstance(exp.canonical(), list) else [exp.canonical()]
        return all(str(v).lower() in text for v in values), ""

    monkeypatch.setattr(awm.runtime.episode, "judge", judge)


def test_hedge_negation_everything_and_dump_catch_a_containment_matcher(bundle_copy, lenient_answers):
    kinds = _leaking_kinds(_audit(bundle_copy, "t01_lamp_price"))
    assert {"answer.hedge", "answer.negation", "answer.dump", "answer.everything"} <= kinds


def test_extra_items_catch_a_list_matcher_that_only_wants_the_items_present(bundle_copy, lenient_answers):
    _add_list_task(bundle_copy)
    kinds = _leaking_kinds(_audit(bundle_copy, "t04_low_stock"))
    assert {"answer.extra", "answer.everything"} <= kinds


def test_missing_items_catch_a_list_matcher_that_wants_any_item(bundle_copy, monkeypatch):
    _add_list_task(bundle_copy)

    def any_item(answer, exp):
        return isinstance(answer, list) and bool(answer) and str(answer[0]).lower() in str(exp.canonical()).lower(), ""

    monkeypatch.setattr(awm.runtime.episode, "judge", any_item)
    assert "answer.missing" in _leaking_kinds(_audit(bundle_copy, "t04_low_stock"))


def test_spellings_catch_an_over_strict_matcher(bundle_copy, monkeypatch):
    monkeypatch.setattr(awm.runtime.episode, "judge", lambda answer, exp: (answer == exp.canonical(), ""))
    report = _audit(bundle_copy, "t01_lamp_price")
    assert {p.kind for p in report.failures} == {"answer.spelling", "correct.answer"}
    assert report.acceptance < 0.5


def test_correct_writes_in_other_spellings_must_score(bundle_copy, monkeypatch):
    """A judge whose checks see the agent's spelling (no respelling) is caught by the false-negative suite."""
    import awm.judge.verify

    monkeypatch.setattr(
        awm.judge.verify, "run_checks_respelled", lambda conn, checks, _r: awm.judge.verify.run_checks(conn, checks)
    )
    from awm.model.registry import default_registry

    world = default_registry().load("clinic")
    report = audit_world(world, ["t08_update_insurance"])
    assert any(p.kind == "correct.write" and not p.ok for p in report.failures)
    monkeypatch.undo()
    assert audit_world(world, ["t08_update_insurance"]).ok


def test_validate_fails_a_leaking_task_naming_the_probe(bundle_copy):
    from awm.proof.validate import validate_env

    rewrite_verifier(bundle_copy, "t03_cancel_alan", allowed_writes=[{"table": "orders"}, {"table": "products"}])
    report = validate_env("mini_shop", Registry([bundle_copy], include_default=False))
    assert not report.ok
    assert any("audit: a hack scores outcome 1: [write.other_row]" in p.message for p in report.problems)


def test_cli_audit_exit_codes_and_json(bundle_copy):
    runner = CliRunner()
    ok = runner.invoke(app, ["audit", "mini_shop", "--path", str(FIXTURE_ROOT), "--json"])
    assert ok.exit_code == 0, ok.output
    line = json.loads(ok.output.strip().splitlines()[-1])
    assert line["env"] == "mini_shop" and line["ok"] and line["score"] == 1.0
    rewrite_verifier(bundle_copy, "t03_cancel_alan", allowed_writes=[{"table": "orders"}, {"table": "products"}])
    bad = runner.invoke(app, ["audit", "mini_shop", "--path", str(bundle_copy)])
    assert bad.exit_code == 1 and "write.other_row" in bad.output
    unknown = runner.invoke(app, ["audit", "mini_shop", "--path", str(FIXTURE_ROOT), "--task", "nope"])
    assert unknown.exit_code == 2


# -- write.impersonate: a write tool that declares its acting person must refuse other people's rows ---------
CANCEL_MINE = '''

@tool(write=True, actor="customer_email")
def cancel_my_order(db: Db, customer_email: str, order_id: int) -> dict:
    """Cancel one of your own orders.

    Args:
        customer_email: the email of the customer who asks.
        order_id: the order to cancel.
    """
    owner = db.value(
        "SELECT c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ?", (order_id,)
    )
    if owner is None:
        raise ToolError(f"no order {order_id}")
    if OWNERSHIP and owner.lower() != customer_email.lower():
        raise ToolError(f"order {order_id} is not yours")
    db.execute("UPDATE orders SET status = 'cancelled' WHERE id = ?", (order_id,))
    return {"order_id": order_id, "status": "cancelled"}
'''
MINE_TASK = {
    "id": "t05_alan_cancels",
    "instruction": "I am alan@example.com: cancel my order 1.",
    "kind": "single_write",
}
MINE_VERIFIER = {
    "task_id": "t05_alan_cancels",
    "checks": [{"name": "cancelled", "sql": "SELECT status = 'cancelled' FROM orders WHERE id = 1"}],
    "gold": {
        "calls": [
            {"tool": "cancel_my_order", "arguments": {"customer_email": "alan@example.com", "order_id": 1}},
        ]
    },
}
MINE_TEMPLATE = {
    "id": "cancel_mine",
    "kind": "single_write",
    "instruction": "I am {email}: cancel my order {order_id}.",
}
MINE_VERIFIER_TEMPLATE = {
    "template_id": "cancel_mine",
    "slots": "SELECT o.id AS order_id, c.email FROM orders o JOIN customers c ON c.id = o.customer_id "
    "WHERE o.status = 'placed' ORDER BY o.id",
    "checks": [{"name": "cancelled", "sql": "SELECT status = 'cancelled' FROM orders WHERE id = {order_id}"}],
    "gold": {
        "calls": [{"tool": "cancel_my_order", "arguments": {"customer_email": "{email}", "order_id": "{order_id}"}}]
    },
}


def _add_cancel_mine(root, *, checks_owner: bool, trusted: bool = True):
    tools = root / "envs/mini_shop/tools.py"
    tools.write_text(tools.read_text() + f"\nOWNERSHIP = {checks_owner}\n" + CANCEL_MINE)
    for path, record in (
        ("envs/mini_shop/tasks.jsonl", MINE_TASK),
        ("verifiers/mini_shop/verifiers.jsonl", MINE_VERIFIER),
        ("envs/mini_shop/templates.jsonl", MINE_TEMPLATE),
        ("verifiers/mini_shop/templates.jsonl", MINE_VERIFIER_TEMPLATE),
    ):
        with open(root / path, "a") as f:
            f.write(json.dumps(record) + "\n")
    if not trusted:
        manifest = root / "envs/mini_shop/env.json"
        manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "trusted": False}))
    return Registry([root], include_default=False).load("mini_shop")


def test_impersonation_is_refused_by_a_tool_that_checks_ownership(bundle_copy):
    world = _add_cancel_mine(bundle_copy, checks_owner=True)
    assert {s.name: s.actor for s in world.tool_specs()}["cancel_my_order"] == "customer_email"
    report = audit_world(world, ["t05_alan_cancels"])
    assert report.ok, [str(p) for p in report.failures]
    (probe,) = [p for p in report.probes if p.kind == "write.impersonate"]
    # the acting person swapped for the smallest other e-mail of customers.email (the column it ends with)
    assert (
        probe.description == "gold with call 0 cancel_my_order(customer_email='alan@example.com' -> 'ada@example.com')"
    )
    assert str(probe).endswith(": rejected") and report.by_kind()["write.impersonate"] == (1, 1)


def test_a_tool_that_ignores_its_actor_is_a_finding(bundle_copy):
    world = _add_cancel_mine(bundle_copy, checks_owner=False)
    report = audit_world(world, ["t05_alan_cancels"])
    assert not report.ok and "write.impersonate" in _leaking_kinds(report)
    (probe,) = [p for p in report.failures if p.kind == "write.impersonate"]
    # the same final state as the gold solution does not excuse it: the tool acted for someone else
    assert probe.passed and not probe.equivalent and report.by_kind()["write.impersonate"] == (1, 0)
    assert str(probe) == (
        "task t05_alan_cancels [write.impersonate] gold with call 0 cancel_my_order(customer_email="
        "'alan@example.com' -> 'ada@example.com') accepted: the tool acts for anyone; refuse rows that do not "
        "belong to the acting person"
    )
    assert str(probe) in report.to_dict()["failures"]


def test_template_instances_are_probed_too(bundle_copy):
    world = _add_cancel_mine(bundle_copy, checks_owner=False)
    built, ct = world.resolve("cancel_mine.s3.0")  # an instance on a built world, audited as validate does
    report = audit_world(built, [ct.id])
    assert "write.impersonate" in _leaking_kinds(report)
    (probe,) = [p for p in report.failures if p.kind == "write.impersonate"]
    assert probe.task_id == "cancel_mine.s3.0" and "acts for anyone" in str(probe)


def test_the_acting_person_is_found_by_column_name_suffix_or_table_id(mini_world):
    from awm.proof.audit import _other_person

    ct = mini_world.tasks["t02_buy_lamp"]
    assert _other_person(mini_world, ct, "email", "alan@example.com") == "ada@example.com"
    assert _other_person(mini_world, ct, "acting_email", "ADA@example.com") == "alan@example.com"
    assert _other_person(mini_world, ct, "customer_id", 2) == 1  # customers.id, not orders.id
    assert _other_person(mini_world, ct, "product_id", 1) == 2
    assert _other_person(mini_world, ct, "acting_email", "nobody@example.com") is None
    assert _other_person(mini_world, ct, "customer_id", "2") is None  # a text value is no integer id
    assert _other_person(mini_world, ct, "badge", "x") is None


def test_catalog_tools_declare_no_actor_so_their_audit_is_unchanged(mini_world):
    assert all(td.actor is None for td in mini_world.tools.values())
    assert "write.impersonate" not in audit_world(mini_world, ["t02_buy_lamp", "t03_cancel_alan"]).by_kind()


@pytest.mark.skipif(not isolation_available(), reason="the sandbox (bubblewrap) is not installed")
def test_untrusted_tools_carry_their_actor_through_the_sandbox(bundle_copy):
    world = _add_cancel_mine(bundle_copy, checks_owner=False, trusted=False)
    assert not world.manifest.trusted
    assert world.tools["cancel_my_order"].actor == "customer_email"
    assert {s.name: s.actor for s in world.tool_specs()}["cancel_my_order"] == "customer_email"
    assert all(td.actor is None for name, td in world.tools.items() if name != "cancel_my_order")
    report = audit_world(world, ["t05_alan_cancels"])
    assert "write.impersonate" in _leaking_kinds(report)
