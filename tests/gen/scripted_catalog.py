"""A scripted catalog-profile environment (a tiny bakery), stage by stage, at reduced limits.

``BAKERY`` maps a catalog stage (its prompt name) to the JSON answer a good model would send. It is
small on purpose (``LIMITS``: 3 tables, 4 tools, 3 templates) so the whole pipeline, isolated world
builds and ``awm validate --seeds`` with the audit included, runs in seconds.
"""

from __future__ import annotations

from typing import Any

from awm.gen.stages import Limits

LIMITS = Limits(
    min_tables=3,
    min_tools=4,
    min_write_tools=1,
    templates=3,
    min_templates=3,
    min_per_kind=1,
    min_world_rows=30,
    large_factor=3,
    validate_seeds=2,
    cover_seeds=(6, 2),
    blind_seeds=0,  # six cakes: a guessable answer by design; the blind gate is exercised by the transcripts
)

STAGES = ("scenario", "catalog_schema", "world", "catalog_tools", "templates")

SCHEMA = """CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE
);
CREATE TABLE cakes (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  price_cents INTEGER NOT NULL
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  number TEXT NOT NULL UNIQUE,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  cake_id INTEGER NOT NULL REFERENCES cakes(id),
  pickup_on TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('placed', 'ready', 'cancelled')),
  note TEXT
);
"""

WORLD = """from datetime import timedelta

CAKES = ["Lemon Drizzle", "Black Forest", "Carrot Cake", "Victoria Sponge", "Opera", "Tres Leches"]
REASONS = ["Plans changed", "Ordered twice", "Party cancelled"]


def build(ctx):
    tables = {"customers": [], "cakes": [], "orders": []}
    for i, name in enumerate(CAKES, start=1):
        tables["cakes"].append({"id": i, "name": name, "price_cents": ctx.rng.randint(18, 60) * 100})
    seen = set()
    for cid in range(1, ctx.n(12, 60) + 1):
        first, last = ctx.faker.first_name(), ctx.faker.last_name()
        email = ctx.unique(lambda: f"{first}.{last}{ctx.rng.randint(1, 999)}@example.com".lower(), seen)
        tables["customers"].append({"id": cid, "full_name": f"{first} {last}", "email": email})
    if ctx.distractors:
        twin = dict(tables["customers"][0])
        twin["id"] = len(tables["customers"]) + 1
        twin["email"] = "twin." + twin["email"]
        tables["customers"].append(twin)
    oid = 0
    for c in tables["customers"]:
        for _ in range(ctx.rng.randint(1, 4)):
            oid += 1
            day = ctx.today + timedelta(days=ctx.rng.randint(-20, 20))
            tables["orders"].append(
                {
                    "id": oid,
                    "number": f"BK-{1000 + ctx.seed * 7 + oid}",
                    "customer_id": c["id"],
                    "cake_id": ctx.rng.randint(1, len(CAKES)),
                    "pickup_on": day.isoformat(),
                    "status": ctx.weighted({"placed": 3, "ready": 2, "cancelled": 1}),
                    "note": None,
                }
            )
    return tables
"""

TOOLS = '''from awm.tooling import Db, ToolError, check_limit, like_contains, tool


def _customer(db: Db, email: str) -> dict:
    row = db.one("SELECT id, full_name, email FROM customers WHERE email = ?", (email.strip().lower(),))
    if row is None:
        raise ToolError(f"no customer with email {email!r}")
    return row


@tool
def find_customer(db: Db, email: str) -> dict:
    """Look a customer up by email, with their orders.

    Args:
        email: the customer's email address.
    """
    c = _customer(db, email)
    c["orders"] = db.query(
        "SELECT o.number, k.name AS cake, k.price_cents, o.pickup_on, o.status FROM orders o "
        "JOIN cakes k ON k.id = o.cake_id WHERE o.customer_id = ? ORDER BY o.pickup_on, o.id",
        (c["id"],),
    )
    return c


@tool
def search_cakes(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Search cakes by words in their name.

    Args:
        query: words to look for.
        limit: maximum number of results, 1 to 50.
    """
    check_limit(limit, 50)
    return db.query(
        "SELECT id, name, price_cents FROM cakes WHERE name LIKE ? ESCAPE '\\\\' ORDER BY name LIMIT ?",
        (like_contains(query), limit),
    )


@tool
def get_order(db: Db, number: str) -> dict:
    """One order by its number.

    Args:
        number: the order number, e.g. "BK-1012".
    """
    row = db.one(
        "SELECT o.number, c.full_name AS customer, k.name AS cake, k.price_cents, o.pickup_on, o.status, o.note "
        "FROM orders o JOIN customers c ON c.id = o.customer_id JOIN cakes k ON k.id = o.cake_id WHERE o.number = ?",
        (number.strip().upper(),),
    )
    if row is None:
        raise ToolError(f"no order {number!r}")
    return row


@tool(write=True, actor="customer_email")
def cancel_order(db: Db, customer_email: str, number: str, reason: str) -> dict:
    """Cancel one of the customer's own orders that is still placed.

    Args:
        customer_email: the email of the customer asking.
        number: the order number.
        reason: why it is cancelled.
    """
    c = _customer(db, customer_email)
    o = db.one("SELECT id, customer_id, status FROM orders WHERE number = ?", (number.strip().upper(),))
    if o is None:
        raise ToolError(f"no order {number!r}")
    if o["customer_id"] != c["id"]:
        raise ToolError(f"order {number} is not {customer_email}'s order")
    if o["status"] != "placed":
        raise ToolError(f"order {number} is {o['status']}; only placed orders can be cancelled")
    if not reason.strip():
        raise ToolError("give a reason")
    db.execute("UPDATE orders SET status = 'cancelled', note = ? WHERE id = ?", (reason.strip(), o["id"]))
    return {"number": number, "status": "cancelled"}


@tool(write=True, actor="customer_email")
def change_pickup(db: Db, customer_email: str, number: str, pickup_on: str) -> dict:
    """Move the pickup day of one of the customer's own placed orders.

    Args:
        customer_email: the email of the customer asking.
        number: the order number.
        pickup_on: the new day, YYYY-MM-DD.
    """
    c = _customer(db, customer_email)
    o = db.one("SELECT id, customer_id, status FROM orders WHERE number = ?", (number.strip().upper(),))
    if o is None:
        raise ToolError(f"no order {number!r}")
    if o["customer_id"] != c["id"]:
        raise ToolError(f"order {number} is not {customer_email}'s order")
    if o["status"] != "placed":
        raise ToolError(f"order {number} is {o['status']}; only placed orders can move")
    if len(pickup_on) != 10 or pickup_on[4] != "-" or pickup_on[7] != "-":
        raise ToolError("pickup_on must be a date such as 2026-05-02")
    db.execute("UPDATE orders SET pickup_on = ? WHERE id = ?", (pickup_on, o["id"]))
    return {"number": number, "pickup_on": pickup_on}
'''

_ONLY = "(SELECT COUNT(*) FROM customers z WHERE z.full_name = c.full_name) = 1"

TEMPLATES: list[dict[str, Any]] = [
    {
        "task": {
            "id": "order_cake",
            "kind": "information",
            "instruction": "Which cake is on order {number}? Give the cake's name.",
            "answer": {"type": "string", "description": "the cake's name"},
        },
        "verifier": {
            "slots": "SELECT o.number, k.name AS cake FROM orders o JOIN cakes k ON k.id = o.cake_id "
            "WHERE (SELECT COUNT(*) FROM orders z WHERE z.cake_id = o.cake_id) >= 1 ORDER BY o.id",
            "answer": {
                "sql": "SELECT k.name FROM orders o JOIN cakes k ON k.id = o.cake_id WHERE o.number = {number}",
                "distractors_sql": "SELECT name FROM cakes WHERE name != {cake} ORDER BY id",
            },
            "gold": {"calls": [{"tool": "get_order", "arguments": {"number": "{number}"}}], "answer": "{cake}"},
        },
    },
    {
        "task": {
            "id": "cancel_order",
            "kind": "single_write",
            "instruction": 'I\'m {full_name} ({email}). Please cancel my cake order {number}; the reason is "{reason}".',
        },
        "verifier": {
            "slots": "SELECT c.full_name, c.email, o.id AS order_id, o.number, CASE o.id % 3 WHEN 0 THEN "
            "'Plans changed' WHEN 1 THEN 'Ordered twice' ELSE 'Party cancelled' END AS reason FROM orders o "
            f"JOIN customers c ON c.id = o.customer_id WHERE o.status = 'placed' AND {_ONLY} ORDER BY o.id",
            "checks": [
                {
                    "name": "cancelled",
                    "sql": "SELECT status = 'cancelled' AND note = {reason} FROM orders WHERE id = {order_id}",
                }
            ],
            "gold": {
                "calls": [
                    {"tool": "find_customer", "arguments": {"email": "{email}"}},
                    {
                        "tool": "cancel_order",
                        "arguments": {"customer_email": "{email}", "number": "{number}", "reason": "{reason}"},
                    },
                ],
                "answer": None,
            },
        },
    },
    {
        "task": {
            "id": "move_and_cancel",
            "kind": "multi_step",
            "instruction": "I'm {full_name} ({email}). Move the pickup of my order {keep_number} to {new_day}, and "
            'cancel my order {drop_number} because "{reason}".',
        },
        "verifier": {
            "slots": "SELECT c.full_name, c.email, a.id AS keep_id, a.number AS keep_number, b.id AS drop_id, b.number AS "
            "drop_number, date(a.pickup_on, '+' || (1 + a.id % 5) || ' days') AS new_day, CASE b.id % 2 WHEN 0 THEN "
            "'Ordered twice' ELSE 'Plans changed' END AS reason FROM customers c JOIN orders a ON a.customer_id = "
            "c.id AND a.status = 'placed' JOIN orders b ON b.customer_id = c.id AND b.status = 'placed' AND b.id > "
            f"a.id WHERE {_ONLY} ORDER BY a.id, b.id",
            "checks": [
                {"name": "moved", "sql": "SELECT pickup_on = {new_day} FROM orders WHERE id = {keep_id}"},
                {
                    "name": "cancelled",
                    "sql": "SELECT status = 'cancelled' AND note = {reason} FROM orders WHERE id = {drop_id}",
                },
            ],
            "gold": {
                "calls": [
                    {"tool": "find_customer", "arguments": {"email": "{email}"}},
                    {
                        "tool": "change_pickup",
                        "arguments": {"customer_email": "{email}", "number": "{keep_number}", "pickup_on": "{new_day}"},
                    },
                    {
                        "tool": "cancel_order",
                        "arguments": {"customer_email": "{email}", "number": "{drop_number}", "reason": "{reason}"},
                    },
                ],
                "answer": None,
            },
        },
    },
]

BAKERY: dict[str, Any] = {
    "marker": "Crumb & Co",
    "idea": "a neighbourhood bakery taking cake orders",
    "scenario": {
        "id": "bakery",
        "title": "Crumb & Co Bakery",
        "description": "A neighbourhood bakery: customers order cakes for pickup and change or cancel them.",
        "clock": "2026-05-04T09:00:00",
        "tags": ["food", "orders"],
    },
    "catalog_schema": {"schema_sql": SCHEMA},
    "world": {"world_py": WORLD},
    "catalog_tools": {"tools_py": TOOLS},
    "templates": {"templates": TEMPLATES},
}
