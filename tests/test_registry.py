"""Discovery, did-you-mean, extra roots, and malformed bundles that are reported and skipped."""

import pytest

from awm.errors import BundleError, UnknownEnvironmentError
from awm.model.registry import Registry
from tests.conftest import rewrite_verifier


def test_discovers_fixture_and_loads(mini_registry):
    assert mini_registry.names() == ["mini_shop"]
    assert mini_registry.entries()["mini_shop"].gym_id == "awm/mini_shop-v0"
    assert mini_registry.load("mini_shop") is mini_registry.load("mini_shop")  # cached


def test_unknown_name_suggests(mini_registry):
    with pytest.raises(UnknownEnvironmentError, match="Did you mean 'mini_shop'") as e:
        mini_registry.load("mini_shp")
    assert e.value.suggestions == ["mini_shop"]


def test_env_var_adds_roots(bundle_copy, monkeypatch):
    monkeypatch.setenv("AWM_PATH", str(bundle_copy))
    assert "mini_shop" in Registry().names()


def _break(root, rel, text):
    (root / rel).write_text(text)


@pytest.mark.parametrize(
    ("rel", "text", "fragment"),
    [
        ("envs/mini_shop/schema.sql", "CREATE TABLE (oops", "schema.sql does not execute"),
        (
            "envs/mini_shop/schema.sql",
            "CREATE TABLE t (id INTEGER PRIMARY KEY, at TEXT DEFAULT CURRENT_TIMESTAMP);",
            "wall clock",
        ),
        ("envs/mini_shop/tools.py", "import nonexistent_module\n", "tools.py does not import"),
        ("envs/mini_shop/tools.py", "raise RuntimeError('boom')\n", "RuntimeError: boom"),
        ("envs/mini_shop/tools.py", "x = 1\n", "defines no @tool"),
        ("envs/mini_shop/tasks.jsonl", '{"id": "t01_lamp_price", "kind": "information"}\n', "instruction"),
        (
            "envs/mini_shop/seed.json",
            '{"tables": {"products": [{"id": 1, "name": "x", "price_cents": -5, "stock": 1}]}}',
            "CHECK constraint failed",
        ),
        (
            "envs/mini_shop/seed.json",
            '{"tables": {"orders": [{"id": 1, "customer_id": 9, "product_id": 9, "quantity": 1,'
            ' "total_cents": 1, "placed_at": "2026-01-01"}]}}',
            "FOREIGN KEY",
        ),
        ("envs/mini_shop/env.json", "{not json", "env.json"),
    ],
)
def test_malformed_bundles_give_specific_errors(bundle_copy, rel, text, fragment):
    _break(bundle_copy, rel, text)
    reg = Registry([bundle_copy], include_default=False)
    with pytest.raises(BundleError) as e:
        reg.load("mini_shop")
    assert fragment in str(e.value)


@pytest.mark.parametrize(
    ("sql", "fragment"),
    [
        ("DELETE FROM orders", "must be a SELECT"),
        ("SELECT 1; DELETE FROM orders", "exactly one statement"),
        ("SELECT load_extension('x')", "load_extension"),
        ("SELECT nope FROM orders", "fails to run"),
        ("SELECT COUNT(*) FROM orders WHERE placed_at < datetime('now')", "literal dates"),
    ],
)
def test_verifier_sql_is_checked_at_load(bundle_copy, sql, fragment):
    rewrite_verifier(bundle_copy, "t03_cancel_alan", checks=[{"name": "c", "sql": sql}])
    with pytest.raises(BundleError, match=fragment):
        Registry([bundle_copy], include_default=False).load("mini_shop")


def test_a_malformed_bundle_never_takes_the_registry_down(bundle_copy):
    broken = bundle_copy / "envs" / "broken_env"
    broken.mkdir()
    (broken / "env.json").write_text("{}")
    reg = Registry([bundle_copy], include_default=False)
    entries = reg.entries()
    assert entries["broken_env"].error is not None and "id" in entries["broken_env"].error
    assert reg.names() == ["mini_shop"] and reg.load("mini_shop")
    with pytest.raises(BundleError):
        reg.load("broken_env")


def test_missing_verifier_is_reported(bundle_copy):
    (bundle_copy / "verifiers/mini_shop/verifiers.jsonl").write_text("")
    with pytest.raises(BundleError, match="has no verifier"):
        Registry([bundle_copy], include_default=False).load("mini_shop")
