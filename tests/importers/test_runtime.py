"""Imported AWM environments run in-process: a hand-made bundle following the importer's contract."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from awm.importers.appcheck import check_app_code
from awm.model.registry import Registry
from awm.model.world import World
from awm.proof.validate import GOLD_UNAVAILABLE, validate_env

pytest.importorskip("sqlalchemy")

ENV = "awm_shop"

APP = """
import os
from datetime import datetime
from typing import List, Optional

import uvicorn
from fastapi import Depends, FastAPI, HTTPException, Query
from pydantic import BaseModel, ConfigDict
from sqlalchemy import Column, Float, ForeignKey, Integer, String, create_engine
from sqlalchemy.orm import Session, declarative_base, sessionmaker

DATABASE_PATH = os.environ.get("DATABASE_PATH", "shop.db")
engine = create_engine(f"sqlite:///{DATABASE_PATH}", connect_args={"check_same_thread": False})
SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)
Base = declarative_base()


class User(Base):
    __tablename__ = "users"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False)


class Product(Base):
    __tablename__ = "products"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False)
    category = Column(String, nullable=False)
    price = Column(Float, nullable=False)
    stock = Column(Integer, nullable=False)


class Order(Base):
    __tablename__ = "orders"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    product_id = Column(Integer, ForeignKey("products.id"), nullable=False)
    quantity = Column(Integer, nullable=False)
    status = Column(String, nullable=False)


Base.metadata.create_all(bind=engine)


class UserOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    name: str


class ProductOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    name: str
    category: str
    price: float
    stock: int


class OrderIn(BaseModel):
    user_id: int
    product_id: int
    quantity: int = 1


class OrderOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    user_id: int
    product_id: int
    quantity: int
    status: str


class StatusIn(BaseModel):
    status: str


app = FastAPI(title="Shop")


def get_db():
    db = SessionLocal()
    try:
        yield db
    finally:
        db.close()


@app.get("/users/{user_id}", response_model=UserOut, operation_id="get_user", summary="Get a user by id")
async def get_user(user_id: int, db: Session = Depends(get_db)):
    user = db.query(User).filter(User.id == user_id).first()
    if user is None:
        raise HTTPException(status_code=404, detail="User not found")
    return user


@app.get("/products", response_model=List[ProductOut], operation_id="list_products",
         summary="List products", description="Products of a category, cheapest first.")
async def list_products(category: Optional[str] = None, limit: int = Query(10, ge=1, le=50),
                        db: Session = Depends(get_db)):
    q = db.query(Product)
    if category is not None:
        q = q.filter(Product.category == category)
    return q.order_by(Product.price).limit(limit).all()


@app.post("/orders", response_model=OrderOut, operation_id="create_order", summary="Place an order")
async def create_order(order: OrderIn, db: Session = Depends(get_db)):
    product = db.query(Product).filter(Product.id == order.product_id).first()
    product.stock = product.stock - order.quantity
    row = Order(user_id=order.user_id, product_id=order.product_id, quantity=order.quantity, status="placed")
    db.add(row)
    db.commit()
    db.refresh(row)
    return row


@app.put("/orders/{order_id}/status", response_model=OrderOut, operation_id="update_order_status",
         summary="Change an order's status")
def update_order_status(order_id: int, body: StatusIn, db: Session = Depends(get_db)):
    row = db.query(Order).filter(Order.id == order_id).first()
    for key, value in body.model_dump().items():
        setattr(row, key, value)
    db.commit()
    return row


@app.post("/products/{product_id}/restock", response_model=ProductOut, operation_id="restock_product",
          summary="Restock a product")
async def restock_product(product_id: int, amount: int, db: Session = Depends(get_db)):
    product = db.query(Product).filter(Product.id == product_id).first()
    product.stock = product.stock + amount
    db.commit()
    if amount > 100:
        raise ValueError("supplier cannot deliver that many")
    return product


if __name__ == "__main__":
    uvicorn.run(app, host=os.getenv("HOST", "0.0.0.0"), port=int(os.getenv("PORT", "8001")))
"""

SCHEMA = """
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL,
                       price REAL NOT NULL, stock INTEGER NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
                     product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL,
                     status TEXT NOT NULL);
CREATE INDEX idx_orders_user ON orders(user_id);
"""

SEED = {
    "tables": {
        "users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bo"}],
        "products": [
            {"id": 1, "name": "Desk lamp", "category": "lighting", "price": 19.99, "stock": 5},
            {"id": 2, "name": "Floor lamp", "category": "lighting", "price": 49.5, "stock": 3},
            {"id": 3, "name": "Chair", "category": "furniture", "price": 80.0, "stock": 7},
        ],
        "orders": [{"id": 1, "user_id": 2, "product_id": 3, "quantity": 1, "status": "placed"}],
    }
}

VERIFY_ORDER = '''
import sqlite3


def verify_task_completion(initial_db_path, final_db_path):
    """Two floor lamps ordered for user 1, stock down by two."""
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    before = init.execute("SELECT stock FROM products WHERE id = 2").fetchone()[0]
    after = final.execute("SELECT stock FROM products WHERE id = 2").fetchone()[0]
    orders = final.execute(
        "SELECT COUNT(*) FROM orders WHERE user_id = 1 AND product_id = 2 AND quantity = 2"
    ).fetchone()[0]
    if orders == 1 and after == before - 2:
        return {"result": "complete"}
    return {"result": "others"}
'''

VERIFY_ANSWER = """
import re
import sqlite3


def verify_cheapest(initial_db_path, final_db_path, final_answer=None):
    conn = sqlite3.connect(final_db_path)
    name = conn.execute("SELECT name FROM products ORDER BY price LIMIT 1").fetchone()[0]
    if final_answer and re.search(re.escape(name), final_answer, re.I):
        return {"result": "complete"}
    return {"result": "others"}
"""

TOOLS_PY = '''"""Tools of an environment imported from AgentWorldModel-1K: AWM's generated FastAPI app (awm_app.py),
statically checked and run in-process against the episode's database (awm.importers.runtime)."""
from pathlib import Path

from awm.importers.runtime import awm_tools

globals().update(awm_tools(Path(__file__).parent, __name__))
'''


def make_awm_root(directory: Path, *, app: str = APP, verifiers: dict[str, str] | None = None) -> Path:
    """A registry root holding one imported-AWM bundle, written by hand after the importer's contract."""
    root = directory / "awm_root"
    env, ver = root / "envs" / ENV, root / "verifiers" / ENV
    env.mkdir(parents=True)
    ver.mkdir(parents=True)
    manifest = {
        "id": ENV,
        "version": 0,
        "title": "Shop",
        "description": "An AWM-style shop.",
        "clock": "2026-01-01T00:00:00",
        "tags": ["awm-1k"],
        "provenance": {"source": "imported", "dataset": "AgentWorldModel-1K", "scenario": "Shop"},
    }
    (env / "env.json").write_text(json.dumps(manifest))
    (env / "schema.sql").write_text(SCHEMA)
    (env / "seed.json").write_text(json.dumps(SEED))
    (env / "awm_app.py").write_text(app)
    (env / "awm_spec.json").write_text("{}")
    (env / "tools.py").write_text(TOOLS_PY)
    answer = {"type": "string", "description": "your final answer"}
    tasks = [
        {"id": "t00", "instruction": "Order two floor lamps for me.", "kind": "multi_step", "tags": ["awm-1k"]},
        {
            "id": "t01",
            "instruction": "Which product is the cheapest?",
            "kind": "multi_step",
            "answer": answer,
            "tags": ["awm-1k"],
        },
    ]
    (env / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    sources = {"t00": VERIFY_ORDER, "t01": VERIFY_ANSWER, **(verifiers or {})}
    lines = []
    for tid, code in sources.items():
        (ver / f"verify_{tid}.py").write_text(textwrap.dedent(code))
        function = next(ln.split("(")[0][4:] for ln in code.splitlines() if ln.startswith("def verify_"))
        check = {"file": f"verify_{tid}.py", "function": function, "mode": "code", "takes_answer": tid == "t01"}
        line = {
            "task_id": tid,
            "checks": [],
            "answer": None,
            "code": check,
            "write_frame": False,
            "gold": {"calls": []},
        }
        lines.append(json.dumps(line) + "\n")
    (ver / "verifiers.jsonl").write_text("".join(lines))
    return root


@pytest.fixture(scope="module")
def awm_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_awm_root(tmp_path_factory.mktemp("awm"))


@pytest.fixture(scope="module")
def world(awm_root: Path) -> World:
    return Registry([awm_root], include_default=False).load(ENV)


def call(ep, tool, **args):
    return ep.call(tool, args)


def test_every_endpoint_is_a_tool_with_its_schema(world):
    specs = {s.name: s for s in world.tool_specs()}
    assert set(specs) == {"get_user", "list_products", "create_order", "update_order_status", "restock_product"}
    assert specs["list_products"].description == "List products\n\nProducts of a category, cheapest first."
    assert specs["get_user"].parameters["required"] == ["user_id"]  # a path parameter
    assert specs["list_products"].parameters["properties"]["limit"]["maximum"] == 50  # a query parameter
    order = specs["create_order"].parameters  # the JSON body's fields, flattened as fastapi-mcp does
    assert set(order["properties"]) == {"user_id", "product_id", "quantity"}
    assert order["required"] == ["user_id", "product_id"] and order["additionalProperties"] is False
    assert set(specs["update_order_status"].parameters["properties"]) == {"order_id", "status"}  # path + body
    assert all(s.write for s in specs.values())  # AWM's GETs may write: every call is captured


def test_calls_run_the_app_in_its_worker(world):
    ep = world.episode("t00")
    assert call(ep, "get_user", user_id=1).result == {"id": 1, "name": "Ada"}
    lamps = call(ep, "list_products", category="lighting", limit=1)
    assert lamps.ok and [p["name"] for p in lamps.result] == ["Desk lamp"]
    assert len(call(ep, "list_products").result) == 3  # FastAPI's defaults apply


def test_http_errors_and_exceptions_become_tool_errors(world):
    ep = world.episode("t00")
    missing = call(ep, "get_user", user_id=9)
    assert missing.error.code == "tool_error" and "HTTP 404" in missing.error.message
    assert "User not found" in missing.error.message
    invalid = call(ep, "list_products", limit=0)  # FastAPI's own validation: a 422
    assert invalid.error.code == "tool_error" and "limit" in invalid.error.message
    crash = call(ep, "create_order", user_id=1, product_id=99)  # AWM apps have no error handling
    assert crash.error.code == "tool_error"
    assert crash.error.message.startswith("the environment's code raised AttributeError")
    assert call(ep, "get_user", user_id=1, extra=1).error.code == "invalid_arguments"
    assert call(ep, "get_user").error.code == "invalid_arguments"


def test_writes_show_in_the_diff_and_a_commit_stands_as_in_awm(world):
    ep = world.episode("t00")
    res = call(ep, "create_order", user_id=1, product_id=2, quantity=2)
    assert res.ok and res.result["status"] == "placed"
    ops = {(c.table, c.op) for c in res.diff.changes}
    assert ops == {("orders", "insert"), ("products", "update")}
    status = call(ep, "update_order_status", order_id=1, status="shipped")  # setattr in a sync handler
    assert status.ok and [c.op for c in status.diff.changes] == ["update"]
    # the handler commits, then raises: AWM's file database keeps the commit, and so does the episode
    boom = call(ep, "restock_product", product_id=1, amount=500)
    assert boom.error.code == "tool_error" and "supplier cannot deliver" in boom.error.message
    assert ep.query("SELECT stock FROM products WHERE id = 1") == [(505,)]
    assert boom.diff.to_dict()[0]["changes"] == {"stock": [5, 505]}
    assert call(ep, "restock_product", product_id=1, amount=5).diff.to_dict()[0]["changes"] == {"stock": [505, 510]}
    assert call(ep, "get_user", user_id=1).rewards.noop  # a read changes nothing


def test_episodes_are_isolated(world):
    a, b = world.episode("t00"), world.episode("t00")
    assert call(a, "create_order", user_id=1, product_id=2, quantity=2).ok
    assert a.query("SELECT COUNT(*) FROM orders") == [(2,)]
    assert b.query("SELECT COUNT(*) FROM orders") == [(1,)]
    assert [p["stock"] for p in call(b, "list_products", category="lighting").result] == [5, 3]


def test_the_code_verifier_scores_the_outcome(world):
    untouched = world.episode("t00").submit()
    assert untouched.rewards.outcome == 0.0 and untouched.rewards.checks == {"awm_verifier": False}
    ep = world.episode("t00")
    call(ep, "get_user", user_id=1)
    call(ep, "create_order", user_id=1, product_id=2, quantity=2)
    ev = ep.evaluate()
    assert ev.passed and ev.code is not None and ev.code.result == {"result": "complete"}
    done = ep.submit()
    assert done.rewards.outcome == 1.0 and done.rewards.writes_ok and done.rewards.collateral == 0
    wrong = world.episode("t00")
    call(wrong, "create_order", user_id=1, product_id=2, quantity=1)
    assert wrong.evaluate().reasons() == ["awm_verifier: the verifier says the task is not complete"]


def test_the_answer_goes_to_the_verifier(world):
    assert world.tasks["t01"].task.answer is not None
    assert world.episode("t01").submit("The desk lamp.").rewards.outcome == 1.0
    assert world.episode("t01").submit("the chair").rewards.outcome == 0.0


def test_static_check_findings_are_lints_not_a_refusal(tmp_path):
    """The sandbox is the boundary: an app that imports what AWM's apps import still loads and runs."""
    odd = APP.replace("import os\n", "import os\nimport subprocess, random, hashlib, logging, time, uuid\n")
    assert check_app_code(odd)  # the lint still reports it
    world = Registry([make_awm_root(tmp_path, app=odd)], include_default=False).load(ENV)
    assert call(world.episode("t00"), "get_user", user_id=1).ok


@pytest.mark.parametrize(
    ("snippet", "why"),
    [
        ("import socket", "`import socket` is not allowed"),
        ("x = open('/etc/passwd')", "`open` is not allowed"),
        ("x = os.system('id')", "`.system` is not allowed"),
        ("os.environ['X'] = '1'", "writing os.environ"),
        ("x = eval('1')", "`eval` is not allowed"),
        ("x = ().__class__", "dunder attribute `.__class__`"),
        ("def f(db, n):\n    return db.execute(text(f'SELECT {n}'))", "string-built SQL"),
        ("from os import path", "`from os import path` is not allowed"),
        ("global engine", "`global` is not allowed"),
    ],
)
def test_the_app_check_refuses(snippet, why):
    problems = check_app_code("import os\nfrom sqlalchemy import text\n" + snippet + "\n")
    assert any(why in p for p in problems), problems


def test_the_app_check_accepts_awm_idioms():
    assert check_app_code(APP) == []


def test_raw_sql_cannot_attach_files(tmp_path):
    app = APP.replace(
        "    user = db.query(User).filter(User.id == user_id).first()\n",
        "    db.execute(text(\"ATTACH DATABASE 'evil.db' AS evil\"))\n"
        "    user = db.query(User).filter(User.id == user_id).first()\n",
    ).replace("from sqlalchemy import Column", "from sqlalchemy import text, Column")
    world = Registry([make_awm_root(tmp_path, app=app)], include_default=False).load(ENV)
    res = call(world.episode("t00"), "get_user", user_id=1)
    assert res.error.code == "tool_error" and "not authorized" in res.error.message
    assert not (tmp_path / "evil.db").exists() and not Path("evil.db").exists()


def test_missing_sqlalchemy_is_a_clear_error(tmp_path, monkeypatch):
    from awm.importers.runtime import ImportedCodeError, awm_tools

    root = make_awm_root(tmp_path)
    monkeypatch.setitem(sys.modules, "sqlalchemy", None)
    with pytest.raises(ImportedCodeError, match=r"awm-gym\[awm\]"):
        awm_tools(root / "envs" / ENV, "x")


def test_validate_passes_and_says_gold_replay_is_unavailable(awm_root):
    report = validate_env(ENV, Registry([awm_root], include_default=False))
    assert report.ok, report.problems
    assert report.stats["code_verified_tasks"] == 2 and any(GOLD_UNAVAILABLE in n for n in report.notes)
    assert "gold replay unavailable (AWM tasks have no gold solutions)" in report.notes[0]


@pytest.mark.parametrize(
    ("drawn", "deterministic"),
    [("str(uuid.uuid4()) + str(random.random())", True), ("os.urandom(8).hex()", False)],
)
def test_validate_replays_imported_code_twice(tmp_path, drawn, deterministic):
    route = f"""

@app.get("/token", operation_id="draw_token", summary="A token")
async def draw_token():
    import os, random, uuid
    return {{"token": {drawn}}}
"""
    app = APP.replace('\nif __name__ == "__main__":', route + '\nif __name__ == "__main__":')
    report = validate_env(ENV, Registry([make_awm_root(tmp_path, app=app)], include_default=False))
    assert report.stats["replay_calls"] > 5
    assert report.ok is deterministic, report.problems
    if not deterministic:
        assert any("replay is not deterministic" in p.message for p in report.problems)


def test_gym_make_runs_imported_tasks(awm_root):
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    from awm.gym.registration import register_all

    ids = register_all(Registry([awm_root], include_default=False))
    gym_id = next(i for i in ids if ENV in i)
    check_env(gym.make(gym_id).unwrapped, skip_render_check=True)
    env = gym.make(gym_id, task_id="t00")
    env.reset(seed=0)
    order = {"tool": "create_order", "arguments": {"user_id": 1, "product_id": 2, "quantity": 2}}
    _, _, _, _, info = env.step(json.dumps(order))
    assert info["reward_components"]["tool_error"] is False
    _, reward, terminated, _, _ = env.step(json.dumps({"tool": "submit_answer", "arguments": {"answer": None}}))
    assert terminated and reward == 1.0


def test_awm_serve_runs_imported_tasks(awm_root):
    import httpx

    from awm.serve.config import ServeConfig
    from tests.serve.conftest import start_server, stop_server

    srv, thread = start_server(ServeConfig(paths=[str(awm_root)], envs=[ENV]))
    try:
        r = httpx.post(f"{srv.control}/episodes", json={"env": ENV, "task_id": "t00"})
        assert r.status_code == 201
        eid = r.json()["episode_id"]
        args = {"user_id": 1, "product_id": 2, "quantity": 2}
        out = httpx.post(f"{srv.url}/episodes/{eid}/call", json={"tool": "create_order", "arguments": args}).json()
        assert out["ok"] and out["result"]["quantity"] == 2
        done = httpx.post(f"{srv.url}/episodes/{eid}/submit", json={"answer": None})
        assert done.status_code == 200
    finally:
        stop_server(srv, thread)
