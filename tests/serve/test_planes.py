"""Agent/trainer separation: with what an agent holds (the agent plane's address, its episode id, the
agent token) nothing of the judge is reachable; the trainer's control plane has it all."""

from __future__ import annotations

import re

import httpx
import pytest

from awm.errors import AwmError
from awm.serve.config import ServeConfig
from awm.serve.run import prepare
from tests.conftest import FIXTURE_ROOT

ORDER = {"customer_id": 1, "product_id": 1, "quantity": 2}


def new_episode(live, task="t02_buy_lamp"):
    r = httpx.post(f"{live.control}/episodes", json={"env": "mini_shop", "task_id": task})
    assert r.status_code == 201
    return r.json()["episode_id"]


def test_episode_ids_are_unguessable_server_tokens(live):
    ids = {new_episode(live) for _ in range(20)}
    assert len(ids) == 20 and all(re.fullmatch(r"ep-[0-9a-f]{32}", i) for i in ids)
    r = httpx.post(f"{live.control}/episodes", json={"env": "mini_shop", "episode_id": "my-run-1"})
    assert r.status_code == 422  # a client cannot choose one


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/envs"),
        ("GET", "/envs/mini_shop"),  # every instruction
        ("POST", "/episodes"),  # a copy of any task to probe
        ("POST", "/episodes/{id}/step"),  # rewards
        ("POST", "/episodes/{id}/snapshot"),
        ("POST", "/episodes/{id}/restore"),  # reviving a submitted episode
        ("POST", "/episodes/{id}/fork"),  # fork + submit: an answer oracle
        ("DELETE", "/episodes/{id}"),
        ("GET", "/docs/../envs/mini_shop"),
    ],
)
def test_the_judges_routes_are_unreachable_on_the_agent_plane(live, method, path):
    eid = new_episode(live)
    r = httpx.request(method, live.url + path.format(id=eid), json={"env": "mini_shop", "snapshot_id": "snap-1"})
    assert r.status_code in (404, 405) and r.json()["error"]["code"] in ("not_found", "method_not_allowed"), r.text
    assert "instruction" not in r.text and "checks" not in r.text


def test_the_agent_plane_shows_observations_only(live):
    eid = new_episode(live)
    view = httpx.get(f"{live.url}/episodes/{eid}").json()
    assert set(view) == {"episode_id", "env", "instruction", "steps", "done", "submit", "tools"}
    r = httpx.post(f"{live.url}/episodes/{eid}/call", json={"tool": "place_order", "arguments": ORDER}).json()
    assert r == {"ok": True, "result": r["result"]}  # no rewards, no diff
    r = httpx.post(f"{live.url}/envs/mini_shop/episodes/{eid}/tools/search_products", json={"query": "Lamp"}).json()
    assert set(r) == {"ok", "result"}
    bad = httpx.post(f"{live.url}/envs/mini_shop/episodes/{eid}/tools/place_order", json={"customer_id": "x"})
    assert bad.status_code == 422 and set(bad.json()) == {"ok", "error"}  # a recorded step, answered 422
    done = httpx.post(f"{live.url}/episodes/{eid}/submit", json={"answer": None})
    assert done.json() == {"ok": True, "submitted": True}  # no verdict
    again = httpx.post(f"{live.url}/episodes/{eid}/call", json={"tool": "search_products", "arguments": {}})
    assert again.status_code == 409 and again.json()["error"]["code"] == "episode_ended"
    # the trainer sees the verdict
    judged = httpx.get(f"{live.control}/episodes/{eid}").json()
    assert judged["result"]["rewards"]["outcome"] == 1.0 and judged["steps"] == 4


def test_a_submitted_episode_stays_submitted_for_its_agent(live):
    eid = new_episode(live)
    snap = httpx.post(f"{live.control}/episodes/{eid}/snapshot").json()["snapshot_id"]
    httpx.post(f"{live.url}/episodes/{eid}/submit", json={})
    r = httpx.post(f"{live.url}/episodes/{eid}/restore", json={"snapshot_id": snap})
    assert r.status_code == 404
    assert httpx.get(f"{live.url}/episodes/{eid}").json()["done"]


def test_the_agent_planes_openapi_names_no_judge_route(live):
    agent = httpx.get(f"{live.url}/openapi.json").json()
    control = httpx.get(f"{live.control}/openapi.json").json()
    paths = set(agent["paths"])
    assert not paths & {"/envs", "/envs/{env}", "/episodes", "/episodes/{episode_id}/step"}
    assert not any(p.endswith(("/snapshot", "/restore", "/fork")) for p in paths)
    schemas = agent["components"]["schemas"]
    assert "StepOut" not in schemas and "EpisodeView" not in schemas and "rewards" not in str(schemas)
    assert {"/envs", "/episodes", "/episodes/{episode_id}/fork"} <= set(control["paths"])


def test_control_plane_settings_are_checked_before_binding():
    cfg = ServeConfig(paths=[str(FIXTURE_ROOT)], envs=["mini_shop"])
    with pytest.raises(AwmError, match="without a token"):
        prepare(cfg, port=0, control_host="0.0.0.0")
    with pytest.raises(AwmError, match="port of its own"):
        prepare(cfg, port=18_000, control_port=18_000)
    bound = prepare(cfg.model_copy(update={"control_token": "t"}), port=0, control_host="0.0.0.0")
    try:
        assert bound.control_url.startswith("http://0.0.0.0:") and bound.agent_url.startswith("http://127.0.0.1:")
    finally:
        for s in bound.sockets:
            s.close()


def test_a_busy_port_is_an_error_naming_it():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(AwmError, match=f"cannot listen on 127.0.0.1:{port}"):
            prepare(ServeConfig(paths=[str(FIXTURE_ROOT)], envs=["mini_shop"]), port=port)


def test_remote_needs_the_control_plane_and_its_token():
    import awm
    from awm.remote import RemoteError
    from tests.serve.conftest import start_server, stop_server

    srv, thread = start_server(ServeConfig(paths=[str(FIXTURE_ROOT)], envs=["mini_shop"], control_token="ctl"))
    try:
        with pytest.raises(RemoteError, match="control plane"):
            awm.remote(srv.url, "mini_shop")
        with pytest.raises(RemoteError, match="unauthorized"):
            awm.remote(srv.control, "mini_shop")
        env = awm.remote(srv.control, "mini_shop", token="ctl")
        obs, info = env.reset(seed=0, options={"task_id": "t01_lamp_price"})
        assert re.fullmatch(r"ep-[0-9a-f]{32}", info["episode_id"])
        assert env.step({"answer": 4599})[1] == 1.0
        env.close()
    finally:
        stop_server(srv, thread)


def test_mcp_answers_any_host_name_when_the_agent_plane_binds_beyond_loopback():
    import json
    import threading
    import time

    cfg = ServeConfig(paths=[str(FIXTURE_ROOT)], envs=["mini_shop"])
    bound = prepare(cfg, host="0.0.0.0", port=0, log_level="error")
    thread = threading.Thread(target=bound.run, daemon=True)
    thread.start()
    try:
        while not bound.server.started:
            time.sleep(0.01)
        agent = bound.agent_url.replace("0.0.0.0", "127.0.0.1")
        eid = httpx.post(f"{bound.control_url}/episodes", json={"env": "mini_shop"}).json()["episode_id"]
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        params = {"name": "search_products", "arguments": {"query": "Lamp"}, "_meta": meta}
        headers = {
            "Host": "agents.example:8000",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "search_products",
            "X-AWM-Episode": eid,
        }
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        r = httpx.post(f"{agent}/envs/mini_shop/mcp", content=json.dumps(body), headers=headers)
        assert r.status_code == 200 and "Brass Desk Lamp" in r.text, r.text
    finally:
        bound.server.should_exit = True
        thread.join(10)
