"""Task templates (``awm.model.templates``): slot filling, slot rows, instances, and the static checks at load."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from awm.bundle.loader import read_bundle
from awm.bundle.records import (
    AnswerSchema,
    AnswerType,
    Difficulty,
    GoldCall,
    GoldSolution,
    TaskKind,
    TaskTemplate,
    VerifierTemplate,
)
from awm.errors import BundleError
from awm.model.registry import Registry
from awm.model.templates import (
    Template,
    TemplateError,
    decode_slots,
    fill_sql,
    fill_text,
    fill_value,
    instantiate,
    join,
    slot_rows,
    sql_literal,
    used_slots,
)
from awm.model.world import World
from awm.worldgen import Scale, WorldKey
from tests.conftest import FIXTURE_ROOT

SCHEMA = (FIXTURE_ROOT / "envs/mini_shop/schema.sql").read_text()


def _shop(products: list[tuple[int, str, int, int]] = ()) -> sqlite3.Connection:
    """A real SQLite database with the fixture's schema and the given products."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO customers VALUES (1, 'Ada Lovelace', 'ada@example.com', 0)")
    conn.executemany("INSERT INTO products VALUES (?, ?, ?, ?)", products)
    return conn


def _initial(world: World) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.deserialize(world.seed_blob)
    return conn


# -- sql_literal and fill_sql ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "literal"),
    [
        (None, "NULL"),
        (True, "1"),
        (False, "0"),
        (42, "42"),
        (-7, "-7"),
        (2.5, "2.5"),
        ("plain", "'plain'"),
        ("O'Brien", "'O''Brien'"),
        ("''", "''''''"),
        ([1, "a"], "'[1, \"a\"]'"),
        ({"b": 1, "a": 2}, '\'{"a": 2, "b": 1}\''),
        (float("inf"), "9e999"),
        (float("-inf"), "-9e999"),
        (float("nan"), "NULL"),
    ],
)
def test_sql_literal(value: Any, literal: str) -> None:
    assert sql_literal(value) == literal


@pytest.mark.parametrize(
    "value", [None, True, 0, -3, 2.5, 1e100, float("inf"), "", "O'Brien", "a\nb", "x' OR '1'='1", "%_\\"]
)
def test_sql_literal_reads_back_as_the_value(value: Any) -> None:
    conn = sqlite3.connect(":memory:")
    expected = int(value) if isinstance(value, bool) else value
    assert conn.execute(f"SELECT {sql_literal(value)}").fetchone()[0] == expected


@pytest.mark.parametrize("evil", ["x'); DROP TABLE customers; --", "x'; DROP TABLE customers; --"])
def test_a_slot_value_cannot_inject_sql(evil: str) -> None:
    conn = _shop()
    sql = fill_sql("SELECT COUNT(*) FROM customers WHERE name = {name}", {"name": evil})
    conn.executescript(sql)  # would run a second statement if the value escaped its literal
    assert conn.execute(sql).fetchone() == (0,)
    conn.execute("INSERT INTO customers VALUES (2, ?, 'evil@example.com', 0)", (evil,))
    assert conn.execute(sql).fetchone() == (1,)  # it is the value itself, compared as a literal
    assert conn.execute("SELECT COUNT(*) FROM customers").fetchone() == (2,)


def test_naive_quoting_would_have_dropped_the_table() -> None:
    """The control for the test above: the same value pasted between quotes does drop the table."""
    conn = _shop()
    evil = "x'; DROP TABLE customers; --"
    conn.executescript(f"SELECT COUNT(*) FROM customers WHERE name = '{evil}'")
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        conn.execute("SELECT COUNT(*) FROM customers")


def test_fill_sql_refuses_quoted_slots() -> None:
    with pytest.raises(TemplateError, match=r"checks\[0\].sql: '\{email\}' .* drop the quotes"):
        fill_sql("SELECT 1 FROM customers WHERE email = '{email}'", {"email": "a@b.c"}, "checks[0].sql")


def test_fill_sql_escapes_and_literals() -> None:
    slots = {"id": 3, "name": "{id}", "note": None}
    assert fill_sql("SELECT {id}, {name}, {note}, '{{id}}'", slots) == "SELECT 3, '{id}', NULL, '{id}'"
    conn = sqlite3.connect(":memory:")
    assert conn.execute(fill_sql("SELECT {name} = '{{id}}', json_object('k', {id})", slots)).fetchone() == (
        1,
        '{"k":3}',
    )


# -- unknown slots, text, typed values ------------------------------------------------------------
@pytest.mark.parametrize(
    ("fill", "template"),
    [(fill_text, "Cancel {order}."), (fill_sql, "SELECT {order}"), (fill_value, "{order}"), (fill_value, "#{order}")],
)
def test_an_unknown_slot_names_the_slot_and_the_available_ones(fill: Any, template: str) -> None:
    with pytest.raises(TemplateError, match=r"here: unknown slot \{order\} \(slots: email, order_id\)"):
        fill(template, {"order_id": 1, "email": "a@b.c"}, "here")
    with pytest.raises(TemplateError, match=r"\(slots: none\)"):
        fill(template, {}, "here")


def test_fill_text() -> None:
    slots = {"n": 3, "price": 12.0, "ratio": 0.5, "tags": ["a", "b"], "name": "Ada"}
    assert fill_text("{name} has {n} at {price} ({ratio}) {tags}", slots) == 'Ada has 3 at 12 (0.5) ["a", "b"]'
    assert fill_text("{{name}} is {{literal}}, {name} is not", slots) == "{name} is {literal}, Ada is not"
    assert fill_text("{x}", {"x": "{name}"}) == "{name}"  # a value is not filled again
    with pytest.raises(TemplateError, match=r"slot \{gone\} is NULL"):
        fill_text("Ask {gone}.", {"gone": None})


def test_fill_value_keeps_types_for_a_lone_slot_and_interpolates_otherwise() -> None:
    slots = {"id": 7, "price": 4599.0, "vip": True, "none": None, "ids__json": [1, 2], "email": "a@b.c"}
    assert fill_value("{id}", slots) == 7
    assert fill_value("{price}", slots) == 4599.0
    assert fill_value("{vip}", slots) is True
    assert fill_value("{none}", slots) is None
    assert fill_value("{ids__json}", slots) == [1, 2]
    assert fill_value("order {id}", slots) == "order 7"
    assert fill_value("{id}{id}", slots) == "77"
    assert fill_value("{{id}}", slots) == "{id}"
    assert fill_value(5, slots) == 5 and fill_value(None, slots) is None
    nested = {"order_id": "{id}", "lines": [{"price": "{price}", "note": "for {email}"}, "{vip}"], "qty": 2}
    assert fill_value(nested, slots) == {
        "order_id": 7,
        "lines": [{"price": 4599.0, "note": "for a@b.c"}, True],
        "qty": 2,
    }


def test_decode_slots() -> None:
    cols = ["ids__json", "obj__json", "plain", "null__json"]
    got = decode_slots(cols, ("[1, 2]", '{"a": [true]}', "[1, 2]", None), "w")
    assert got == {"ids__json": [1, 2], "obj__json": {"a": [True]}, "plain": "[1, 2]", "null__json": None}
    with pytest.raises(TemplateError, match="w: slot ids__json is not JSON"):
        decode_slots(["ids__json"], ("[1,",), "w")


# -- slot rows and instances ----------------------------------------------------------------------
def test_slot_rows(mini_world: World) -> None:
    conn = _initial(mini_world)
    cols, rows = slot_rows(conn, mini_world.templates["product_price"])
    assert cols == ["product_id", "product", "price_cents"]
    assert rows == [(1, "Brass Desk Lamp", 4599), (2, "Oak Floor Lamp", 12900), (3, "Linen Cushion", 2450)]


def test_used_slots(mini_world: World) -> None:
    assert used_slots(mini_world.templates["cancel_order"]) == {"order_id", "customer_name", "email", "product"}
    assert used_slots(mini_world.templates["buy_two"]) == {"product", "email", "customer_id", "product_id", "total"}


def test_instantiate_is_deterministic_and_takes_the_row_modulo(mini_world: World) -> None:
    t = mini_world.templates["product_price"]
    conn = _initial(mini_world)
    a = instantiate(conn, t, "c", 4)
    assert a == instantiate(conn, t, "c", 4) == instantiate(_initial(mini_world), t, "c", 4)
    assert (a.row, a.rows) == (1, 3) and a.task.id == "product_price.c.1"
    assert a.slots == {"product_id": 2, "product": "Oak Floor Lamp", "price_cents": 12900}
    assert a.task.instruction == "How much does the Oak Floor Lamp cost, in cents?"
    assert a.task.template == "product_price" and a.task.world == "c" and a.task.tags == ["catalogue"]
    assert a.verifier.task_id == a.task.id
    assert a.verifier.answer is not None and a.verifier.answer.sql == "SELECT price_cents FROM products WHERE id = 2"
    assert a.verifier.gold.calls[0].arguments == {"query": "Oak Floor Lamp"}
    assert a.verifier.gold.answer == 12900  # typed, not "12900"
    assert instantiate(conn, t, "c", 1 + 3 * 1000).task == a.task
    assert instantiate(conn, t, "c", 0).task.id == "product_price.c.0"


def test_the_world_compiles_instances_like_fixed_tasks(mini_world: World) -> None:
    fresh = World(read_bundle(FIXTURE_ROOT / "envs/mini_shop", FIXTURE_ROOT / "verifiers/mini_shop"))
    for tid in mini_world.template_ids:
        ct = mini_world.instance(tid, 11)
        assert mini_world.instance(tid, 11) is ct  # cached
        assert mini_world.task(ct.id) is ct  # and found by its id
        other = fresh.instance(tid, 11)
        assert (other.task, other.verifier) == (ct.task, ct.verifier)
        ep = mini_world.episode(ct.id)
        for call in ct.verifier.gold.calls:
            assert ep.call(call.tool, call.arguments).ok
        assert ep.submit(ct.verifier.gold.answer).rewards.outcome == 1.0


def test_underspecified_phrasing(mini_world: World) -> None:
    ct = mini_world.instance("cancel_order", 0, underspecified=True)
    assert ct.id == "cancel_order.c.0.u"
    assert ct.task.instruction == "Alan Turing (alan@example.com) wants to cancel their order of the Linen Cushion."
    assert ct.task.difficulty is not None and ct.task.difficulty.underspecified
    plain = mini_world.instance("cancel_order", 0)
    assert plain.id == "cancel_order.c.0" and plain.task.instruction.startswith("Cancel order number 1 ")
    assert plain.task.difficulty is not None and not plain.task.difficulty.underspecified
    assert plain.verifier.gold == ct.verifier.gold
    with pytest.raises(TemplateError, match="template 'buy_two' has no underspecified_instruction"):
        mini_world.instance("buy_two", 0, underspecified=True)


@pytest.mark.parametrize(
    ("template", "steps", "write_steps"), [("product_price", 1, 0), ("cancel_order", 2, 1), ("buy_two", 3, 1)]
)
def test_difficulty(mini_registry: Registry, template: str, steps: int, write_steps: int) -> None:
    world = mini_registry.load("mini_shop")
    assert world.instance(template, 0).task.difficulty == Difficulty(steps=steps, write_steps=write_steps)
    raw = instantiate(_initial(world), world.templates[template], "c", 0).task.difficulty
    assert raw == Difficulty(steps=steps, write_steps=0)  # the world, which knows which tools write, fills it in
    built = mini_registry.world("mini_shop", WorldKey(3, Scale.large, True)).instance(template, 0).task.difficulty
    assert built is not None
    assert (built.steps, built.write_steps, built.scale, built.world_distractors) == (steps, write_steps, "large", True)


def test_near_duplicates_count_the_rows_to_tell_apart(mini_world: World) -> None:
    t = mini_world.templates["product_price"]
    conn = _shop([(1, "Brass Desk Lamp", 4599, 1), (2, "Brass Floor Lamp", 9000, 1), (3, "Brass Mug", 800, 1)])
    conn.execute("INSERT INTO products VALUES (4, 'Oak Chair', 5000, 1)")
    assert instantiate(conn, t, "c", 0).task.difficulty.near_duplicates == 2  # type: ignore[union-attr]
    assert instantiate(conn, t, "c", 3).task.difficulty.near_duplicates == 0  # type: ignore[union-attr]


def test_no_slot_row_is_a_template_error(mini_world: World, bundle_copy: Path) -> None:
    t = mini_world.templates["buy_two"]
    with pytest.raises(TemplateError, match="template 'buy_two' has no instance in world s9: its slots query"):
        instantiate(_shop(), t, "s9", 0)  # one customer, no product
    _rewrite(bundle_copy, "verifiers", "buy_two", slots=t.verifier.slots.replace("p.stock >= 2", "p.stock >= 1000"))
    world = Registry([bundle_copy], include_default=False).load("mini_shop")  # loads: other worlds may have rows
    with pytest.raises(TemplateError, match="'buy_two' has no instance in mini_shop world c: its slots query"):
        world.instance("buy_two", 0)


# -- the __json convention end to end -------------------------------------------------------------
ORDERS_TEMPLATE = {
    "id": "order_ids",
    "kind": "information",
    "instruction": "Which orders has {customer_name} placed?",
    "answer": {"type": "list", "items": "number", "description": "the order ids"},
}
ORDERS_VERIFIER = {
    "template_id": "order_ids",
    "slots": "SELECT c.name AS customer_name, c.email, json_group_array(o.id) AS ids__json FROM customers c "
    "JOIN orders o ON o.customer_id = c.id GROUP BY c.id ORDER BY c.id",
    "answer": {"sql": "SELECT value FROM json_each({ids__json})"},
    "gold": {"calls": [{"tool": "get_customer", "arguments": {"email": "{email}"}}], "answer": "{ids__json}"},
}


def test_json_slots_are_decoded_for_gold_and_stay_json_text_in_sql(bundle_copy: Path) -> None:
    _append(bundle_copy, ORDERS_TEMPLATE, ORDERS_VERIFIER)
    registry = Registry([bundle_copy], include_default=False)
    ct = registry.load("mini_shop").instance("order_ids", 0)
    assert ct.verifier.gold.answer == [1]
    assert ct.verifier.answer is not None and ct.verifier.answer.sql == "SELECT value FROM json_each('[1]')"
    world = registry.world("mini_shop", WorldKey(3))
    for pick in range(4):
        ct = world.instance("order_ids", pick)
        assert isinstance(ct.verifier.gold.answer, list) and all(isinstance(i, int) for i in ct.verifier.gold.answer)
        ep = world.episode(ct.id)
        assert ep.submit(ct.verifier.gold.answer).rewards.outcome == 1.0


# -- static checks when the bundle loads ----------------------------------------------------------
def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _rewrite(root: Path, side: str, template_id: str, **changes: Any) -> None:
    """Change fields of one template in ``envs`` or ``verifiers`` ``/mini_shop/templates.jsonl``."""
    path = root / side / "mini_shop" / "templates.jsonl"
    key = "id" if side == "envs" else "template_id"
    rows = _lines(path)
    for r in rows:
        if r[key] == template_id:
            r.update(changes)
    _write(path, rows)


def _append(root: Path, task: dict[str, Any] | None, verifier: dict[str, Any] | None) -> None:
    for side, row in (("envs", task), ("verifiers", verifier)):
        if row is not None:
            path = root / side / "mini_shop" / "templates.jsonl"
            _write(path, [*_lines(path), row])


def _load_problems(root: Path) -> str:
    with pytest.raises(BundleError) as info:
        Registry([root], include_default=False).load("mini_shop")
    return str(info.value)


def test_a_slot_the_query_does_not_return(bundle_copy: Path) -> None:
    _rewrite(bundle_copy, "envs", "product_price", instruction="How much does the {product} cost in {currency}?")
    msg = _load_problems(bundle_copy)
    assert "template 'product_price' uses slots its slots query does not return: ['currency']" in msg
    assert "(it returns ['product_id', 'product', 'price_cents'])" in msg


def test_a_slot_in_the_verifier_the_query_does_not_return(bundle_copy: Path) -> None:
    _rewrite(bundle_copy, "verifiers", "cancel_order", checks=[{"name": "c", "sql": "SELECT {order} = 1"}])
    assert "'cancel_order' uses slots its slots query does not return: ['order']" in _load_problems(bundle_copy)


def test_a_verifier_template_for_an_unknown_template(bundle_copy: Path) -> None:
    _append(bundle_copy, None, {**ORDERS_VERIFIER, "template_id": "ghost"})
    assert "verifier template for unknown template 'ghost'" in _load_problems(bundle_copy)


def test_a_template_without_verifier(bundle_copy: Path) -> None:
    _append(bundle_copy, {**ORDERS_TEMPLATE, "id": "orphan"}, None)
    assert "template 'orphan' has no verifier template" in _load_problems(bundle_copy)


def test_a_template_id_twice(bundle_copy: Path) -> None:
    _append(bundle_copy, {**ORDERS_TEMPLATE, "id": "buy_two"}, None)
    assert "template id 'buy_two' appears twice in templates.jsonl" in _load_problems(bundle_copy)


def test_a_gold_call_to_an_unknown_tool(bundle_copy: Path) -> None:
    _rewrite(bundle_copy, "verifiers", "buy_two", gold={"calls": [{"tool": "buy_now", "arguments": {}}]})
    assert "template 'buy_two' gold: unknown tool 'buy_now'" in _load_problems(bundle_copy)


@pytest.mark.parametrize(
    ("slots", "fragment"),
    [
        (
            "DELETE FROM orders RETURNING id AS order_id",
            "template 'cancel_order' slots: must be a SELECT, found DELETE",
        ),
        ("SELECT id AS order_id FROM orders; DROP TABLE orders", "must be exactly one statement, found 2"),
        (
            "SELECT id AS order_id, '' AS customer_name, '' AS email, '' AS product FROM orders ORDER BY random()",
            "template 'cancel_order' slots uses 'random(' ; instances must be deterministic".replace(" ;", ";"),
        ),
        ("SELECT id AS order_id FROM no_such_table", "template 'cancel_order' slots query fails: no such table"),
        ("SELECT id AS email, id AS email FROM orders", "slots: duplicate column names"),
    ],
)
def test_a_bad_slots_query(bundle_copy: Path, slots: str, fragment: str) -> None:
    _rewrite(bundle_copy, "verifiers", "cancel_order", slots=slots)
    assert fragment in _load_problems(bundle_copy)


def test_load_lists_every_template_problem_at_once(bundle_copy: Path) -> None:
    _rewrite(bundle_copy, "verifiers", "buy_two", gold={"calls": [{"tool": "buy_now", "arguments": {}}]})
    _rewrite(bundle_copy, "verifiers", "cancel_order", slots="SELECT 1 AS order_id ORDER BY random()")
    _append(bundle_copy, {**ORDERS_TEMPLATE, "id": "orphan"}, None)
    msg = _load_problems(bundle_copy)
    assert "unknown tool 'buy_now'" in msg and "'random('" in msg and "'orphan' has no verifier" in msg


def test_join_pairs_the_halves() -> None:
    gold = GoldSolution(calls=[GoldCall(tool="t")])
    tasks = [TaskTemplate(id=i, kind=TaskKind.single_write, instruction="x") for i in ("a", "b")]
    verifiers = [VerifierTemplate(template_id=i, slots="SELECT 1 AS x", gold=gold) for i in ("a", "c")]
    templates, problems = join(tasks, verifiers)
    assert list(templates) == ["a"] and isinstance(templates["a"], Template) and templates["a"].id == "a"
    assert problems == ["template 'b' has no verifier template", "verifier template for unknown template 'c'"]


def test_answer_description_is_filled() -> None:
    t = Template(
        TaskTemplate(
            id="price",
            kind=TaskKind.information,
            instruction="Price of {product}?",
            answer=AnswerSchema(type=AnswerType.number, description="the price of {product} in cents"),
        ),
        VerifierTemplate(
            template_id="price",
            slots="SELECT id AS product_id, name AS product FROM products ORDER BY id",
            answer={"sql": "SELECT price_cents FROM products WHERE id = {product_id}"},  # type: ignore[arg-type]
            gold=GoldSolution(calls=[], answer="{product_id}"),
        ),
    )
    inst = instantiate(_shop([(5, "Oak Chair", 5000, 1)]), t, "c", 0)
    assert inst.task.answer is not None and inst.task.answer.description == "the price of Oak Chair in cents"
    assert inst.task.instruction == "Price of Oak Chair?" and inst.verifier.gold.answer == 5


def test_a_draw_skips_a_template_with_no_instance_in_that_world_deterministically(
    bundle_copy: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = bundle_copy / "verifiers/mini_shop/templates.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for r in rows:
        if r["template_id"] == "buy_two":
            r["slots"] = r["slots"].replace("WHERE p.stock >= 2", "WHERE p.stock >= 1000000")
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    world = Registry([bundle_copy], include_default=False).load("mini_shop")
    drawn = {}
    for seed in range(40):
        ct = world.sample(seed)
        assert ct.task.template != "buy_two"
        assert world.sample(seed).id == ct.id  # the same seed, the same task
        drawn[seed] = ct.id
    assert "buy_two" in caplog.text and "drawing the next template instead" in caplog.text
    assert len(set(drawn.values())) > 3
    with pytest.raises(TemplateError, match="no template can be drawn"):
        world.sample(0, templates=["buy_two"])
