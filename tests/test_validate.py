"""``awm validate`` catches verifiers that do not discriminate and gold solutions that do not work."""

import pytest
from typer.testing import CliRunner

from awm.cli import app
from awm.model.registry import Registry
from awm.proof.validate import validate_env
from tests.conftest import FIXTURE_ROOT, rewrite_verifier


def _report(root):
    return validate_env("mini_shop", Registry([root], include_default=False))


def test_fixture_is_valid(mini_registry):
    report = validate_env("mini_shop", mini_registry)
    assert report.ok, report.problems
    assert report.stats["tables"] == 4 and report.stats["tasks"] == 3


@pytest.mark.parametrize(
    ("task", "changes", "fragment"),
    [
        ("t03_cancel_alan", {"checks": [{"name": "always", "sql": "SELECT 1"}]}, "already holds on the initial state"),
        (
            "t03_cancel_alan",
            {
                "checks": [
                    {"name": "g", "sql": "SELECT 0", "guard": True},
                    {"name": "c", "sql": "SELECT status = 'cancelled' FROM orders WHERE id = 1"},
                ]
            },
            "guard 'g' does not hold",
        ),
        ("t03_cancel_alan", {"gold": {"calls": []}}, "does not hold after the gold solution"),
        (
            "t03_cancel_alan",
            {"gold": {"calls": [{"tool": "set_order_status", "arguments": {"order_id": 99, "status": "cancelled"}}]}},
            "gold call 0 (set_order_status) fails",
        ),
        (
            "t03_cancel_alan",
            {"allowed_writes": [{"table": "orders"}, {"table": "products"}]},
            "audit: a hack scores outcome 1: [write.other_row]",
        ),
        ("t01_lamp_price", {"gold": {"calls": [], "answer": "45.99"}}, "gold answer fails"),
        ("t01_lamp_price", {"gold": {"calls": [], "answer": [4599]}}, "not a value of the answer type"),
        ("t01_lamp_price", {"answer": None}, "needs an answer check"),
        (
            "t01_lamp_price",
            {"answer": {"sql": "SELECT price_cents FROM products", "distractors_sql": "SELECT nope FROM products"}},
            "task 't01_lamp_price': distractors_sql fails to run: no such column: nope",
        ),
        ("t03_cancel_alan", {"free_columns": ["orders.nope"]}, "free_columns: no column 'orders.nope'"),
        (
            "t03_cancel_alan",
            {"allowed_writes": [{"table": "orders", "where": "nope = 1"}]},
            "does not run on orders: no such column: nope",
        ),
        ("t03_cancel_alan", {"free_arguments": ["set_order_status.nope"]}, "free_arguments: no argument"),
    ],
)
def test_broken_verifiers_are_caught(bundle_copy, task, changes, fragment):
    rewrite_verifier(bundle_copy, task, **changes)
    report = _report(bundle_copy)
    assert not report.ok
    assert any(fragment in str(p) for p in report.problems), report.problems


def test_cli_validate_exit_codes(bundle_copy):
    runner = CliRunner()
    ok = runner.invoke(app, ["validate", "-p", str(FIXTURE_ROOT), "mini_shop"])
    assert ok.exit_code == 0 and "mini_shop is valid" in ok.output
    rewrite_verifier(bundle_copy, "t03_cancel_alan", gold={"calls": []})
    bad = runner.invoke(app, ["validate", "-p", str(bundle_copy), "mini_shop"])
    assert bad.exit_code == 1 and "does not hold after the gold solution" in bad.output


def test_cli_list_and_demo():
    runner = CliRunner(env={"COLUMNS": "250"})
    out = runner.invoke(app, ["list", "-p", str(FIXTURE_ROOT)])
    assert out.exit_code == 0 and "awm/mini_shop-v0" in out.output
    demo = runner.invoke(app, ["demo", "mini_shop", "-p", str(FIXTURE_ROOT)])
    assert demo.exit_code == 0, demo.output
    assert "place_order" in demo.output and "outcome=1.0" in demo.output and '"op": "insert"' in demo.output
    bad = runner.invoke(app, ["demo", "nope", "-p", str(FIXTURE_ROOT)])
    assert bad.exit_code == 2 and "unknown environment" in bad.output  # a usage error (README: exit codes)
