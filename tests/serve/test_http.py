"""The HTTP API on a live loopback server: OpenAPI, isolation under concurrency, lifecycle, bad input.
Episodes are created and judged on the control plane (``live.control``); agents act on ``live.url``."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from openapi_spec_validator import validate

from awm.model.registry import Registry
from awm.serve.config import ServeConfig
from tests.conftest import FIXTURE_ROOT
from tests.serve.conftest import start_server, stop_server

ORDER = {"customer_id": 1, "product_id": 1, "quantity": 2}


def new_episode(live, task="t02_buy_lamp", **kw):
    r = httpx.post(f"{live.control}/episodes", json={"env": "mini_shop", "task_id": task, **kw})
    assert r.status_code == 201, r.text
    return r.json()


def test_openapi_document_is_valid_and_lists_every_tool(live):
    doc = httpx.get(f"{live.control}/openapi.json").json()
    validate(doc)
    validate(httpx.get(f"{live.url}/openapi.json").json())
    world = Registry([FIXTURE_ROOT], include_default=False).load("mini_shop")
    ops = {op["operationId"]: op for path in doc["paths"].values() for op in path.values()}
    for name, td in world.tools.items():
        op = ops[f"mini_shop__{name}"]
        schema = dict(op["requestBody"]["content"]["application/json"]["schema"])
        schema.pop("title", None)
        assert schema == td.parameters
    assert "/envs/{env}/mcp" not in doc["paths"]
    submit = ops["mini_shop__submit_answer"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(submit["properties"]) == {"answer", "explanation"}  # typed per task: see GET /episodes/{id}


def test_typed_tool_route_and_episode_lifecycle(live):
    ep = new_episode(live)
    eid = ep["episode_id"]
    assert ep["task"]["id"] == "t02_buy_lamp" and ep["tools"]
    r = httpx.post(f"{live.control}/envs/mini_shop/episodes/{eid}/tools/place_order", json=ORDER).json()
    assert r["ok"] and r["rewards"]["progress"] == 1.0 and r["diff"]
    state = httpx.get(f"{live.control}/episodes/{eid}").json()
    assert state["state"]["checks"]["order_placed"] and len(state["state"]["diff"]) == 2
    snap = httpx.post(f"{live.control}/episodes/{eid}/snapshot").json()["snapshot_id"]
    fork = httpx.post(f"{live.control}/episodes/{eid}/fork").json()["episode_id"]
    assert httpx.post(
        f"{live.control}/episodes/{eid}/call",
        json={"tool": "set_order_status", "arguments": {"order_id": 1, "status": "cancelled"}},
    ).json()["ok"]
    assert httpx.post(f"{live.control}/episodes/{eid}/restore", json={"snapshot_id": snap}).status_code == 200
    assert httpx.post(f"{live.control}/episodes/{eid}/submit", json={}).json()["rewards"]["outcome"] == 1.0
    assert httpx.post(f"{live.control}/episodes/{fork}/submit", json={}).json()["rewards"]["outcome"] == 1.0
    assert httpx.delete(f"{live.control}/episodes/{eid}").json() == {"deleted": True}
    assert httpx.get(f"{live.control}/episodes/{eid}").json()["error"]["code"] == "unknown_episode"
    final = httpx.get(f"{live.control}/episodes/{fork}").json()
    assert final["done"] and final["result"]["rewards"]["outcome"] == 1.0 and "state" not in final


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "code"),
    [
        (
            "POST",
            "/episodes",
            {"content": b"{not json", "headers": {"content-type": "application/json"}},
            400,
            "invalid_json",
        ),
        ("POST", "/episodes", {"json": {"env": "mini_shp"}}, 404, "unknown_env"),
        ("POST", "/episodes", {"json": {"env": "mini_shop", "task_id": "nope"}}, 404, "unknown_task"),
        ("POST", "/episodes", {"json": {"env": "mini_shop", "seed": "x"}}, 422, "invalid_request"),
        ("POST", "/episodes", {"json": {"env": "mini_shop", "reward": "bogus"}}, 422, "invalid_request"),
        ("POST", "/episodes/ep-nope/call", {"json": {"tool": "x"}}, 404, "unknown_episode"),
        (
            "POST",
            "/episodes",
            {"content": b"{" + b" " * 300_000 + b"}", "headers": {"content-type": "application/json"}},
            413,
            "body_too_large",
        ),
    ],
)
def test_infrastructure_errors_have_stable_codes(live, method, path, kwargs, status, code):
    r = httpx.request(method, f"{live.control}{path}", **kwargs)
    assert r.status_code == status and r.json()["error"]["code"] == code, r.text
    assert httpx.get(f"{live.control}/health").json()["ok"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"tool": "nope", "arguments": {}}, "unknown_tool"),
        ({"tool": "place_order", "arguments": {"customer_id": "one", "product_id": 1}}, "invalid_arguments"),
        ({"tool": "place_order", "arguments": "{broken"}, "invalid_arguments"),
        ({"tool": "place_order", "arguments": {"customer_id": 1, "product_id": 1, "quantity": 50}}, "tool_error"),
        ({"tool": "search_products", "arguments": {"query": "'; DROP TABLE products; --"}}, None),
        ({"tool": "spin", "arguments": {"n": 100_000_000}}, "timeout"),
    ],
)
def test_agent_errors_are_observations_and_isolated(live, body, code):
    bystander = new_episode(live)["episode_id"]
    httpx.post(f"{live.control}/episodes/{bystander}/call", json={"tool": "place_order", "arguments": ORDER})
    eid = new_episode(live)["episode_id"]
    r = httpx.post(f"{live.control}/episodes/{eid}/call", json=body, timeout=30)
    assert r.status_code == 200
    out = r.json()
    if code is None:
        assert out["ok"] and out["result"] == []
    else:
        assert not out["ok"] and out["error"]["code"] == code
    assert out["diff"] == []
    assert httpx.post(f"{live.control}/episodes/{eid}/submit", json={}).json()["rewards"]["outcome"] == 0.0
    assert httpx.post(f"{live.control}/episodes/{bystander}/submit", json={}).json()["rewards"]["outcome"] == 1.0


def test_concurrent_episodes_have_no_cross_talk(live):
    """50 episodes x 20 calls at once; each final state equals the same calls made in-process."""
    world = Registry([FIXTURE_ROOT], include_default=False).load("mini_shop")

    def script(i):
        calls = []
        for j in range(20):
            if j % 5 == 0:
                calls.append(
                    {
                        "tool": "place_order",
                        "arguments": {"customer_id": 1 + i % 2, "product_id": 3, "quantity": 1 + (i + j) % 2},
                    }
                )
            elif j % 7 == 0:
                calls.append(
                    {
                        "tool": "set_order_status",
                        "arguments": {"order_id": 1, "status": ["cancelled", "placed"][(i + j) % 2]},
                    }
                )
            else:
                calls.append(
                    {"tool": "search_products", "arguments": {"query": ["Lamp", "Cushion", "Oak"][(i * j) % 3]}}
                )
        return calls

    async def drive(client, i):
        eid = (await client.post("/episodes", json={"env": "mini_shop", "task_id": "t02_buy_lamp"})).json()[
            "episode_id"
        ]
        results = []
        for call in script(i):
            results.append((await client.post(f"/episodes/{eid}/call", json=call)).json())
        return eid, results

    async def main():
        async with httpx.AsyncClient(base_url=live.control, timeout=60) as client:
            return await asyncio.gather(*(drive(client, i) for i in range(50)))

    outcomes = asyncio.run(main())
    for i, (eid, results) in enumerate(outcomes):
        local = world.episode("t02_buy_lamp")
        expected = [local.call(c["tool"], c["arguments"]).to_dict() for c in script(i)]
        assert results == json.loads(json.dumps(expected)), f"episode {i} diverged"
        assert live.store.slots[eid].episode.state_bytes() == local.state_bytes()


def test_limits_expiry_and_tokens():
    srv, thread = start_server(
        ServeConfig(
            paths=[str(FIXTURE_ROOT)],
            envs=["mini_shop"],
            max_episodes=3,
            idle_ttl=2.0,  # long enough for the first requests on a loaded machine; the sleep below outlasts it
            sweep_interval=0.1,
            token="agent-s3cret",
            control_token="s3cret",
        )
    )
    auth = {"Authorization": "Bearer s3cret"}
    agent = {"Authorization": "Bearer agent-s3cret"}
    try:
        assert httpx.get(f"{srv.control}/envs").json()["error"]["code"] == "unauthorized"
        assert httpx.get(f"{srv.control}/envs", headers={"Authorization": "Bearer nope"}).status_code == 401
        assert httpx.get(f"{srv.control}/envs", headers=agent).status_code == 401  # agent credentials
        assert httpx.get(f"{srv.control}/health").status_code == 200
        ids = [
            httpx.post(f"{srv.control}/episodes", json={"env": "mini_shop"}, headers=auth).json()["episode_id"]
            for _ in range(3)
        ]
        assert httpx.get(f"{srv.url}/episodes/{ids[0]}", headers=auth).status_code == 401  # the trainer's token
        assert httpx.get(f"{srv.url}/episodes/{ids[0]}", headers=agent).status_code == 200
        full = httpx.post(f"{srv.control}/episodes", json={"env": "mini_shop"}, headers=auth)
        assert full.status_code == 503 and full.json()["error"]["code"] == "limit_reached"
        time.sleep(2.6)
        r = httpx.post(
            f"{srv.url}/episodes/{ids[0]}/call",
            json={"tool": "search_products", "arguments": {"query": "a"}},
            headers=agent,
        )
        assert r.status_code == 410 and r.json()["error"]["code"] == "expired_episode"
        assert httpx.post(f"{srv.control}/episodes", json={"env": "mini_shop"}, headers=auth).status_code == 201
    finally:
        stop_server(srv, thread)
    assert not srv.store.slots  # graceful shutdown closed every episode


def test_sweep_never_touches_a_busy_episode(mini_registry):
    from awm.serve.sessions import EpisodeStore

    store = EpisodeStore(mini_registry, ["mini_shop"], 10, idle_ttl=0.0)

    async def main():
        slot = store.create("mini_shop")
        async with slot.lock:  # a call in progress
            assert store.sweep(now=time.monotonic() + 100) == 0
        assert store.sweep(now=time.monotonic() + 100) == 1

    asyncio.run(main())


def test_remote_env_passes_the_gold_solution_test(live):
    import awm

    world = Registry([FIXTURE_ROOT], include_default=False).load("mini_shop")
    env = awm.remote(live.control, "mini_shop")
    for task_id in world.task_ids:
        obs, info = env.reset(seed=0, options={"task_id": task_id})
        assert info["task_id"] == task_id and obs == world.tasks[task_id].task.instruction
        gold = world.tasks[task_id].verifier.gold
        for call in gold.calls:
            obs, reward, terminated, truncated, info = env.step(
                json.dumps({"tool": call.tool, "arguments": call.arguments})
            )
            assert info["ok"] and not terminated
        obs, reward, terminated, truncated, info = env.step({"answer": gold.answer})
        assert terminated and reward == 1.0 and info["outcome"] == 1.0
    obs, reward, terminated, *_ = env.step('{"tool": "search_products", "arguments": {"query": "a"}}')
    assert terminated and json.loads(obs)["error"]["code"] == "episode_ended"
    env.close()


def test_remote_matches_local_step_for_step(live):
    import gymnasium as gym

    from awm.gym import register_all

    register_all(Registry([FIXTURE_ROOT], include_default=False))
    import awm

    actions = [
        '{"tool": "search_products", "arguments": {"query": "Lamp"}}',
        "garbage",
        json.dumps({"tool": "place_order", "arguments": ORDER}),
        '{"answer": "done"}',
    ]
    local, remote = gym.make("awm/mini_shop-v0", disable_env_checker=True), awm.remote(live.control, "mini_shop")
    assert local.reset(seed=5)[0] == remote.reset(seed=5)[0]
    for a in actions:
        lo, ro = local.step(a), remote.step(a)
        assert lo[:4] == ro[:4]
        assert json.loads(json.dumps(lo[4])) == ro[4]


def test_a_stuck_call_retires_its_episode_only(lab):
    srv, thread = start_server(ServeConfig(paths=[lab], envs=["mini_shop"], call_timeout=0.3))
    try:
        stuck = httpx.post(f"{srv.control}/episodes", json={"env": "mini_shop"}).json()["episode_id"]
        other = httpx.post(f"{srv.control}/episodes", json={"env": "mini_shop"}).json()["episode_id"]
        r = httpx.post(f"{srv.url}/episodes/{stuck}/call", json={"tool": "nap", "arguments": {"seconds": 1.0}})
        assert r.status_code == 504 and r.json()["error"]["code"] == "call_timeout"
        r = httpx.post(
            f"{srv.url}/episodes/{stuck}/call", json={"tool": "search_products", "arguments": {"query": "a"}}
        )
        assert r.status_code == 410 and r.json()["error"]["code"] == "episode_broken"
        r = httpx.post(
            f"{srv.url}/episodes/{other}/call", json={"tool": "search_products", "arguments": {"query": "a"}}
        )
        assert r.status_code == 200 and r.json()["ok"]
    finally:
        stop_server(srv, thread)


# -- typed final answers -------------------------------------------------------------------------
def test_episode_view_lists_the_tasks_submit_answer_schema(live):
    ep = new_episode(live, "t01_lamp_price")
    assert ep["task"]["answer"]["type"] == "number"
    assert ep["submit"]["name"] == "submit_answer"
    assert ep["submit"]["parameters"]["properties"]["answer"]["type"] == "number"
    tools = {t["function"]["name"]: t["function"] for t in ep["tools"]}
    assert tools["submit_answer"]["parameters"] == ep["submit"]["parameters"] and "place_order" in tools
    view = httpx.get(f"{live.control}/episodes/{ep['episode_id']}").json()
    assert view["submit"] == ep["submit"] and "tools" not in view
    write = new_episode(live, "t02_buy_lamp")
    assert write["task"]["answer"] is None and write["submit"]["parameters"]["properties"]["answer"]["type"] == "null"
    tasks = {t["id"]: t for t in httpx.get(f"{live.control}/envs/mini_shop").json()["tasks"]}
    assert tasks["t01_lamp_price"]["answer"]["type"] == "number" and tasks["t03_cancel_alan"]["answer"] is None


@pytest.mark.parametrize(
    ("body", "outcome"),
    [
        ({"answer": 4599}, 1.0),
        ({"answer": 4599.0, "explanation": "the catalogue price"}, 1.0),
        ({"answer": "4599"}, 1.0),  # text is the strict fallback
        ({"answer": "1, 2, 3 or 4"}, 0.0),
        ({"answer": "4599 or 4600"}, 0.0),
        ({"answer": "[4599, 4600]"}, 0.0),  # text: the strict fallback, judged
        ({}, 0.0),
    ],
)
def test_typed_submit_over_http(live, body, outcome):
    eid = new_episode(live, "t01_lamp_price")["episode_id"]
    out = httpx.post(f"{live.control}/episodes/{eid}/submit", json=body).json()
    assert out["done"] and out["rewards"]["outcome"] == outcome, out
    assert out["arguments"]["answer"] == body.get("answer")  # passed on as the typed value
    assert out["arguments"].get("explanation") == body.get("explanation")


@pytest.mark.parametrize("answer", [[4599], {"price": 4599}, True])
def test_a_wrongly_typed_answer_over_http_is_malformed_and_the_episode_goes_on(live, answer):
    """On both planes' ``/submit``, ``/call`` and ``/step``, and the typed route (200: the body fits the generic
    schema it documents): a value that can never be a number does not end the episode; the error says what to
    send, and a typed answer then ends it."""
    schema = '"type": "number"'
    eid = new_episode(live, "t01_lamp_price")["episode_id"]
    agent = httpx.post(f"{live.url}/episodes/{eid}/submit", json={"answer": answer, "explanation": "x"})
    assert agent.status_code == 200 and agent.json()["error"]["code"] == "malformed_action"
    assert schema in agent.json()["error"]["message"] and "the episode goes on" in agent.json()["error"]["message"]
    assert httpx.get(f"{live.url}/episodes/{eid}").json()["done"] is False
    control = httpx.post(f"{live.control}/episodes/{eid}/submit", json={"answer": answer}).json()
    assert not control["done"] and control["rewards"]["malformed"] and control["rewards"]["outcome"] is None
    call = {"tool": "submit_answer", "arguments": {"answer": answer}}
    for plane in (live.url, live.control):
        out = httpx.post(f"{plane}/episodes/{eid}/call", json=call).json()
        assert not out["ok"] and out["error"]["code"] == "malformed_action" and not out.get("done")
    typed = httpx.post(f"{live.url}/envs/mini_shop/episodes/{eid}/tools/submit_answer", json={"answer": answer})
    assert (
        typed.status_code == 200 and typed.json()["error"]["code"] == "malformed_action"
    )  # fits the documented schema
    step = httpx.post(f"{live.control}/episodes/{eid}/step", json={"action": {"answer": answer}}).json()
    assert not step["terminated"] and step["info"]["reward_components"]["malformed"]
    done = httpx.post(f"{live.control}/episodes/{eid}/submit", json={"answer": 4599}).json()
    assert done["done"] and done["rewards"]["outcome"] == 1.0
    assert httpx.get(f"{live.control}/episodes/{eid}").json()["steps"] == 7  # six malformed steps, then the answer


def test_submit_body_is_strict(live):
    eid = new_episode(live, "t01_lamp_price")["episode_id"]
    r = httpx.post(f"{live.control}/episodes/{eid}/submit", json={"answer": 4599, "confidence": 1})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    r = httpx.post(f"{live.control}/episodes/{eid}/submit", json={"answer": 4599, "explanation": 5})
    assert r.status_code == 422
    assert (
        httpx.post(f"{live.control}/episodes/{eid}/submit", json={"answer": 4599}).json()["rewards"]["outcome"] == 1.0
    )


def test_submit_answer_through_call_step_and_the_typed_route(live):
    url = live.control
    eid = new_episode(live, "t01_lamp_price")["episode_id"]
    bad = httpx.post(f"{url}/episodes/{eid}/call", json={"tool": "submit_answer", "arguments": {"value": 1}}).json()
    assert not bad["ok"] and not bad["done"] and bad["error"]["code"] == "malformed_action"
    assert '"type": "number"' in bad["error"]["message"]
    ok = httpx.post(f"{url}/episodes/{eid}/call", json={"tool": "submit_answer", "arguments": {"answer": 4599}}).json()
    assert ok["done"] and ok["rewards"]["outcome"] == 1.0

    eid = new_episode(live, "t01_lamp_price")["episode_id"]
    route = f"{url}/envs/mini_shop/episodes/{eid}/tools/submit_answer"
    bad = httpx.post(route, json={"answer": 4599, "extra": True}).json()
    assert bad["error"]["code"] == "malformed_action" and not bad["done"]
    assert httpx.post(route, json={"answer": 4599}).json()["rewards"]["outcome"] == 1.0

    eid = new_episode(live, "t01_lamp_price")["episode_id"]
    step = f"{url}/episodes/{eid}/step"
    out = httpx.post(step, json={"action": {"tool": "submit_answer", "arguments": [4599]}}).json()
    assert not out["terminated"] and json.loads(out["observation"])["error"]["code"] == "malformed_action"
    out = httpx.post(step, json={"action": {"answer": 4599, "explanation": "see search"}}).json()
    assert out["terminated"] and out["reward"] == 1.0 and out["info"]["arguments"]["answer"] == 4599


def test_remote_env_offers_the_typed_submit_and_passes_typed_answers(live):
    import awm

    env = awm.remote(live.control, "mini_shop")
    _, info = env.reset(seed=0, options={"task_id": "t01_lamp_price"})
    tools = {t["function"]["name"]: t["function"] for t in info["tools"]}
    assert tools["submit_answer"]["parameters"]["properties"]["answer"]["type"] == "number"
    obs, reward, terminated, _, info = env.step({"answer": 4599.0})
    assert terminated and reward == 1.0 and info["arguments"]["answer"] == 4599.0
    env.reset(seed=0, options={"task_id": "t01_lamp_price"})
    assert env.step({"answer": "1, 2, 3 or 4"})[4]["outcome"] == 0.0
    env.close()


@pytest.mark.parametrize("answer", ["\ud800", float("nan"), float("inf"), ["\udfff", float("-inf")]])
def test_every_response_is_valid_json_whatever_the_answer(live, answer):
    """A lone surrogate or a non-finite number in an answer never breaks the control plane's JSON."""
    created = httpx.post(f"{live.control}/episodes", json={"env": "mini_shop", "task_id": "t01_lamp_price"})
    eid = created.json()["episode_id"]
    body = json.dumps({"answer": answer}, ensure_ascii=True).encode()  # NaN/Infinity as Python's json writes them
    httpx.post(f"{live.control}/episodes/{eid}/submit", content=body, headers={"Content-Type": "application/json"})
    for _ in range(2):  # and again: the view keeps working
        r = httpx.get(f"{live.control}/episodes/{eid}")
        assert r.status_code == 200, r.text[:200]
        json.loads(r.content.decode("utf-8"), parse_constant=lambda c: pytest.fail(f"invalid JSON constant {c}"))


def test_restore_after_submit_is_a_new_episode(live):
    created = httpx.post(f"{live.control}/episodes", json={"env": "mini_shop", "task_id": "t02_buy_lamp"})
    eid = created.json()["episode_id"]
    sid = httpx.post(f"{live.control}/episodes/{eid}/snapshot").json()["snapshot_id"]
    assert httpx.post(f"{live.control}/episodes/{eid}/submit", json={"answer": None}).status_code == 200
    again = httpx.post(f"{live.control}/episodes/{eid}/restore", json={"snapshot_id": sid})
    assert again.status_code == 200 and again.json()["episode_id"] != eid and not again.json()["done"]
    assert httpx.get(f"{live.control}/episodes/{eid}").json()["done"]  # the submitted one keeps its verdict
