"""The viewer's JSON API (FastAPI's TestClient), its mounting on ``awm serve``'s control plane (a real
server), and the ``awm view`` command (a real process on a free port)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from awm.cli import app as cli
from awm.model.registry import Registry
from awm.serve.config import ServeConfig
from awm.serve.run import prepare
from awm.view import create_view_app
from awm.view.errors import RunPathError
from tests.conftest import FIXTURE_ROOT
from tests.view.conftest import TASKS, Runs


@pytest.fixture(scope="module")
def client(registry: Registry, runs: Runs) -> TestClient:
    return TestClient(create_view_app(registry, runs.all))


@pytest.fixture(scope="module")
def answers(registry: Registry, runs: Runs) -> TestClient:
    return TestClient(create_view_app(registry, runs.all, show_answers=True))


def test_runs(client: TestClient) -> None:
    runs = {r["id"]: r for r in client.get("/api/runs").json()}
    assert list(runs) == ["oracle", "random", "manual"]
    assert runs["oracle"]["counts"]["passed"] == 4 and runs["oracle"]["pass_rate"] == 1.0
    assert runs["random"]["counts"]["failed"] == 8 and runs["random"]["k"] == 2
    assert runs["manual"]["kind"] == "trajectories" and runs["manual"]["problems"] == 1
    assert client.get("/api/info").json() == {"show_answers": False, "runs": 3, "envs": 1}


def test_run_lists_failing_tasks_first(client: TestClient) -> None:
    oracle = client.get("/api/runs/oracle").json()
    assert [t["task_id"] for t in oracle["tasks"]] == TASKS  # all pass: file order
    manual = client.get("/api/runs/manual").json()
    assert manual["problems"] == [
        {"file": manual["run"]["path"], "line": 3, "message": manual["problems"][0]["message"]}
    ]
    random = client.get("/api/runs/random").json()
    assert all(t["passed"] == 0 and t["n"] == 2 for t in random["tasks"])
    assert [x["trial"] for x in random["tasks"][0]["trials"]] == [0, 1]


def test_episode_with_reasons(client: TestClient) -> None:
    ep = client.get("/api/runs/manual/episodes/mini_shop/t03_cancel_alan/0").json()
    assert ep["episode"]["status"] == "failed" and ep["task"]["kind"] == "single_write"
    assert [s["tool"] for s in ep["steps"]] == ["place_order", "set_order_status", None]
    first, second, last = ep["steps"]
    assert first["arguments"] == {"customer_id": 1, "product_id": 1, "quantity": 1}  # from the OpenAI tool call
    assert {d["table"] for d in first["diff"]} == {"orders", "products"}
    assert second["rewards"]["progress"] == 1.0 and second["rewards"]["checks"] == {"order_cancelled": True}
    assert last["submit"] and last["arguments"] == {"answer": "Done."}
    assert ep["replay"]["reasons"] == ["collateral: update products {'id': 1}", "collateral: insert orders {'id': 2}"]
    assert ep["replay"]["initial_progress"] == 0.0 and ep["replay"]["divergences"] == []
    assert "judge" not in ep["task"]


def test_template_instance_episode(client: TestClient) -> None:
    ep = client.get("/api/runs/random/episodes/mini_shop/cancel_order.s3.0/1").json()
    assert ep["task"]["template"] == "cancel_order" and ep["task"]["world"] == "s3"
    assert ep["replay"]["replayed"] and ep["replay"]["reasons"]
    nb = ep["neighbours"]
    assert nb["prev"]["trial"] == 0 and nb["next_failure"] is not None


def test_passed_episode(client: TestClient) -> None:
    ep = client.get("/api/runs/oracle/episodes/mini_shop/t02_buy_lamp/0").json()
    assert ep["episode"]["status"] == "passed" and ep["replay"]["passed"] and ep["replay"]["reasons"] == []
    assert ep["neighbours"]["next_failure"] is None


def test_environment_hides_the_judge_unless_asked(client: TestClient, answers: TestClient) -> None:
    env = client.get("/api/envs/mini_shop").json()
    assert [t["name"] for t in env["tables"]] == ["customers", "order_notes", "orders", "products"]
    orders = next(t for t in env["tables"] if t["name"] == "orders")
    fks = {c["name"]: c["fk"] for c in orders["columns"] if c["fk"]}
    assert fks == {
        "customer_id": {"table": "customers", "column": "id"},
        "product_id": {"table": "products", "column": "id"},
    }
    assert orders["key"] == ["id"] and orders["rows"] == 1
    assert len(env["tools"]) == 5 and all("parameters" in t for t in env["tools"])
    assert [t["id"] for t in env["tasks"]] == ["t01_lamp_price", "t02_buy_lamp", "t03_cancel_alan"]
    assert env["tasks"][0]["answer"]["type"] == "number"
    assert [t["id"] for t in env["templates"]] == ["product_price", "cancel_order", "buy_two"]
    text = json.dumps(env)
    assert '"judge"' not in text and "4599" not in text and "initial.orders" not in text  # no gold, no check SQL
    shown = answers.get("/api/envs/mini_shop").json()
    assert shown["tasks"][0]["judge"]["gold"]["answer"] == 4599
    assert shown["templates"][1]["judge"]["slots"].startswith("SELECT")
    assert answers.get("/api/info").json()["show_answers"] is True
    ep = answers.get("/api/runs/random/episodes/mini_shop/t02_buy_lamp/0").json()
    assert ep["task"]["judge"]["gold"]["calls"][-1]["tool"] == "place_order"


def test_seed_rows_are_paginated(client: TestClient) -> None:
    page = client.get("/api/envs/mini_shop/tables/products/rows?offset=1&limit=1").json()
    assert page == {
        "table": "products",
        "columns": ["id", "name", "price_cents", "stock"],
        "total": 3,
        "offset": 1,
        "limit": 1,
        "rows": [[2, "Oak Floor Lamp", 12900, 0]],
    }
    assert client.get("/api/envs/mini_shop/tables/products/rows?limit=100000").status_code == 422


def test_compare(client: TestClient) -> None:
    data = client.get("/api/compare?runs=oracle,random").json()
    assert [r["id"] for r in data["runs"]] == ["oracle", "random"]
    assert [r["task_id"] for r in data["rows"]] == TASKS
    row = data["rows"][0]
    assert (
        row["differ"]
        and row["cells"][0]["passed"] == 1
        and row["cells"][1]
        == {
            "trials": [{"trial": 0, "status": "failed"}, {"trial": 1, "status": "failed"}],
            "passed": 0,
            "n": 2,
        }
    )
    assert client.get("/api/compare?runs=oracle,nope").json()["error"]["code"] == "unknown_run"


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/api/runs/nope", "unknown_run"),
        ("/api/runs/oracle/episodes/mini_shop/t01_lamp_price/9", "unknown_episode"),
        ("/api/runs/oracle/episodes/mini_shop/t01_lamp_price/x", "invalid_request"),
        ("/api/envs/nope", "unknown_env"),
        ("/api/envs/mini_shop/tables/nope/rows", "unknown_table"),
        ("/api/nothing/here", "not_found"),
        ("/static/../app.py", "not_found"),
        ("/static/%2e%2e/app.py", "not_found"),
        ("/nothing", "not_found"),
    ],
)
def test_errors_are_json(client: TestClient, path: str, code: str) -> None:
    r = client.get(path)
    assert r.status_code in (404, 422) and r.json()["error"]["code"] == code, r.text
    assert r.json()["error"]["message"]


def test_page_and_assets(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and 'src="static/app.js"' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for name in ("app.js", "dom.js", "svg.js", "runs.js", "episode.js", "envs.js", "app.css"):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and r.text, name
        text = r.text.replace('"http://www.w3.org/2000/svg"', "")  # a namespace name, never fetched
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, name


def test_a_bad_run_path_is_refused(registry: Registry, tmp_path: Path) -> None:
    with pytest.raises(RunPathError):
        create_view_app(registry, [tmp_path / "nope"])
    res = CliRunner().invoke(cli, ["view", str(tmp_path / "nope"), "--no-open"])
    assert res.exit_code == 2 and "no such file or directory" in res.output


def test_awm_serve_mounts_the_viewer_on_the_control_plane(runs: Runs) -> None:
    cfg = ServeConfig(paths=[str(FIXTURE_ROOT)], envs=["mini_shop"])
    bound = prepare(cfg, port=0, log_level="error", view_runs=[runs.random])
    thread = threading.Thread(target=bound.run, daemon=True)
    thread.start()
    try:
        while not bound.server.started:
            thread.join(0.01)
        control, agent = bound.control_url, bound.agent_url
        r = httpx.get(f"{control}/")
        assert r.status_code == 307 and r.headers["location"] == "/view/"
        assert httpx.get(f"{control}/view", follow_redirects=True).url.path == "/view/"
        assert 'src="static/app.js"' in httpx.get(f"{control}/view/").text
        assert [x["id"] for x in httpx.get(f"{control}/view/api/runs").json()] == ["random"]
        assert [e["env"] for e in httpx.get(f"{control}/view/api/envs").json()] == ["mini_shop"]
        ep = httpx.get(f"{control}/view/api/runs/random/episodes/mini_shop/t02_buy_lamp/0").json()
        assert ep["replay"]["reasons"]
        assert not [p for p in httpx.get(f"{control}/openapi.json").json()["paths"] if p == "/" or "view" in p]
        index = httpx.get(f"{agent}/").json()
        assert index == {
            "service": "AWM Gym agent plane",
            "docs": "/docs",
            "openapi": "/openapi.json",
            "mcp": {"mini_shop": "/envs/mini_shop/mcp"},
        }
        assert httpx.get(f"{agent}/view/api/runs").status_code == 404  # verdicts are the trainer's
        assert "/" not in httpx.get(f"{agent}/openapi.json").json()["paths"]
    finally:
        bound.server.should_exit = True
        thread.join(10)


def test_awm_view_command(runs: Runs) -> None:
    cmd = [sys.executable, "-m", "awm.cli", "view", str(runs.oracle), str(runs.trajectories)]
    cmd += ["--path", str(FIXTURE_ROOT), "--port", "0", "--no-open"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        assert m, line
        runs_seen = httpx.get(m.group(1) + "api/runs", timeout=10).json()
        assert [r["id"] for r in runs_seen] == ["oracle", "manual"] and "2 runs" in line
    finally:
        proc.terminate()
        proc.wait(10)
