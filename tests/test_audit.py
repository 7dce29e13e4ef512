"""The adversarial audit: every probe class catches a deliberately weakened verifier."""

import json

import pytest
from typer.testing import CliRunner

import awm.episode
from awm.audit import audit_world
from awm.cli import app
from awm.frame import Frame, Verdict
from awm.registry import Registry
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

    monkeypatch.setattr(awm.episode, "judge", judge)


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

    monkeypatch.setattr(awm.episode, "judge", any_item)
    assert "answer.missing" in _leaking_kinds(_audit(bundle_copy, "t04_low_stock"))


def test_spellings_catch_an_over_strict_matcher(bundle_copy, monkeypatch):
    monkeypatch.setattr(awm.episode, "judge", lambda answer, exp: (answer == exp.canonical(), ""))
    report = _audit(bundle_copy, "t01_lamp_price")
    assert {p.kind for p in report.failures} == {"answer.spelling", "correct.answer"}
    assert report.acceptance < 0.5


def test_correct_writes_in_other_spellings_must_score(bundle_copy, monkeypatch):
    """A judge whose checks see the agent's spelling (no respelling) is caught by the false-negative suite."""
    import awm.verify

    monkeypatch.setattr(
        awm.verify, "run_checks_respelled", lambda conn, checks, _r: awm.verify.run_checks(conn, checks)
    )
    from awm.registry import default_registry

    world = default_registry().load("clinic")
    report = audit_world(world, ["t08_update_insurance"])
    assert any(p.kind == "correct.write" and not p.ok for p in report.failures)
    monkeypatch.undo()
    assert audit_world(world, ["t08_update_insurance"]).ok


def test_validate_fails_a_leaking_task_naming_the_probe(bundle_copy):
    from awm.validate import validate_env

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
