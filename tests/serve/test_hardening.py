"""Hostile input never gets a 500 or a traceback: deep nesting, odd headers, bad bytes, oversized and
slow requests. Every refusal is the documented ``{"error": {"code", "message"}}``."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from awm.serve.config import ServeConfig
from awm.serve.guard import _Corked, too_deep
from tests.conftest import FIXTURE_ROOT
from tests.serve.conftest import start_server, stop_server

DEEP = "[" * 20_000
SEARCH = {"tool": "search_products", "arguments": {"query": "Lamp"}}


def new_episode(live, task="t02_buy_lamp"):
    return httpx.post(f"{live.control}/episodes", json={"env": "mini_shop", "task_id": task}).json()["episode_id"]


def steps(live, eid):
    return live.store.slots[eid].episode.steps


@pytest.mark.parametrize(
    ("plane", "route", "body"),
    [
        ("url", "call", {"tool": "place_order", "arguments": DEEP}),
        ("control", "call", {"tool": "place_order", "arguments": DEEP}),
        ("control", "call", {"tool": "submit_answer", "arguments": DEEP}),
        ("control", "step", {"action": DEEP}),
        ("control", "step", {"action": {"tool": "place_order", "arguments": DEEP}}),
        ("control", "step", {"action": json.dumps({"tool": "call_tool", "arguments": json.dumps({"x": DEEP})})}),
        ("control", "step", {"action": '["]",' * 5_000}),  # brackets inside strings do not hide the depth
        ("url", "call", {"tool": "place_order", "arguments": {"customer_id": json.loads("[" * 500 + "]" * 500)}}),
    ],
)
def test_deep_nesting_is_a_400_and_not_a_step(live, plane, route, body):
    eid = new_episode(live)
    r = httpx.post(f"{getattr(live, plane)}/episodes/{eid}/{route}", json=body)
    assert r.status_code == 400 and r.json()["error"]["code"] == "nesting_too_deep", r.text
    assert steps(live, eid) == 0
    ok = httpx.post(f"{live.url}/episodes/{eid}/call", json=SEARCH)
    assert ok.status_code == 200 and ok.json()["ok"] and steps(live, eid) == 1


def test_shallow_json_text_is_still_an_observation(live):
    eid = new_episode(live)
    r = httpx.post(f"{live.control}/episodes/{eid}/call", json={"tool": "place_order", "arguments": "[[[1]]]"})
    assert r.status_code == 200 and r.json()["error"]["code"] == "invalid_arguments" and steps(live, eid) == 1


def _depth(x) -> int:
    if isinstance(x, list):
        return 1 + max((_depth(v) for v in x), default=0)
    if isinstance(x, dict):
        return 1 + max((_depth(v) for v in x.values()), default=0)
    return 0


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='"\\ab,:]}'),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet='"]}ab', max_size=3), inner, max_size=3)
    ),
    max_leaves=40,
)


@settings(max_examples=200, deadline=None)
@given(_json, st.integers(1, 8))
def test_too_deep_measures_json_nesting_exactly(value, limit):
    assert too_deep(json.dumps(value).encode(), limit) == (_depth(value) > limit)
    assert too_deep(json.dumps(json.dumps(value)).encode(), limit) == (_depth(value) > limit)  # JSON text in a string
    # a string is measured as the JSON text a parser would read: as deep as its opening brackets go
    assert too_deep(json.dumps("[" * (limit + 1)).encode(), limit)
    assert not too_deep(json.dumps("[" * limit + '"' + "[" * 9).encode(), limit)  # an open string stops the parser


def test_too_deep_is_linear_on_adversarial_strings():
    for text in ['"' + '\\"' * 300_000 + "[" * 100, '"' * 300_000 + "[{" * 100, '"\\' * 300_000]:
        t0 = time.perf_counter()
        too_deep(text.encode(), 64)
        assert time.perf_counter() - t0 < 1.0


@pytest.fixture(scope="module")
def guarded():
    srv, thread = start_server(
        ServeConfig(
            paths=[str(FIXTURE_ROOT)],
            envs=["mini_shop"],
            token="agent-tok",
            control_token="ctl-tok",
            max_body_bytes=4096,
            max_headers=20,
            max_header_bytes=4096,
            head_timeout=0.5,
            body_timeout=0.5,
        )
    )
    yield srv
    stop_server(srv, thread)


def test_a_non_ascii_authorization_header_is_a_401(guarded):
    for base in (guarded.url, guarded.control):
        for value in (b"Bearer \xc3\xa9", b"\xff\xfe", "Bearer ctl-tok\u00e9".encode()):
            r = httpx.get(f"{base}/episodes/x", headers={"Authorization": value})
            assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    assert httpx.get(f"{guarded.url}/health").status_code == 200


CTL = {"Authorization": "Bearer ctl-tok"}


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "code"),
    [
        ("POST", "/episodes", {"content": b'{"env": "\xff"}'}, 400, "invalid_json"),
        ("POST", "/episodes", {"content": b'{"env": "mini_shop"'}, 400, "invalid_json"),
        ("POST", "/episodes", {"content": iter([b"{" + b" " * 3000] * 3)}, 413, "body_too_large"),  # chunked
        ("POST", "/episodes", {"content": b" " * 5000}, 413, "body_too_large"),
        ("GET", "/nowhere", {}, 404, "not_found"),
        ("PUT", "/episodes", {}, 405, "method_not_allowed"),
        ("PATCH", "/envs/mini_shop", {}, 405, "method_not_allowed"),
    ],
)
def test_transport_errors_have_the_documented_shape(guarded, method, path, kwargs, status, code):
    headers = {**CTL, "content-type": "application/json"}
    r = httpx.request(method, f"{guarded.control}{path}", headers=headers, **kwargs)
    assert r.status_code == status and set(r.json()) == {"error"} and r.json()["error"]["code"] == code, r.text
    if status == 405:
        assert "OPTIONS" in r.headers["allow"]


def test_options_lists_every_method_of_a_path(live):
    eid = new_episode(live)
    r = httpx.options(f"{live.control}/episodes/{eid}")
    assert r.status_code == 204 and set(r.headers["allow"].split(", ")) == {"GET", "DELETE", "OPTIONS"}
    r = httpx.delete(f"{live.url}/episodes/{eid}")  # the agent plane cannot delete
    assert r.status_code == 405 and set(r.headers["allow"].split(", ")) == {"GET", "OPTIONS"}


# -- the socket level: head limits and slow clients ----------------------------------------------
def _raw(base: str, data: bytes, wait: float = 3.0) -> tuple[bytes, float]:
    """Send ``data`` and read until the server closes: (what came back, seconds until closed)."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as s:
        t0 = time.monotonic()
        if data:
            s.sendall(data)
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except ConnectionResetError:  # closed with the client's bytes unread: the answer may be lost
            pass
        return out, time.monotonic() - t0


def _status_and_code(raw: bytes) -> tuple[int, str]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)["error"]["code"]


@pytest.mark.parametrize(
    ("head", "status", "code"),
    [
        (b"".join(b"X-%d: y\r\n" % i for i in range(30)), 431, "too_many_headers"),
        (b"X-Big: " + b"a" * 5000 + b"\r\n", 431, "headers_too_large"),
        (b"X-Big: " + b"a" * 100_000, 431, "headers_too_large"),  # never finished
    ],
)
def test_header_count_and_size_are_limited(guarded, head, status, code):
    raw, took = _raw(guarded.url, b"GET /health HTTP/1.1\r\nHost: x\r\n" + head + b"\r\n")
    assert _status_and_code(raw) == (status, code) if raw else took < 1.0


def test_a_long_request_line_is_refused(guarded):
    raw, _ = _raw(guarded.url, b"GET /" + b"a" * 10_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert _status_and_code(raw) == (414, "uri_too_long")


def test_malformed_http_gets_a_json_error(guarded):
    raw, _ = _raw(guarded.url, b"NOT HTTP AT ALL\r\n\r\n")
    assert _status_and_code(raw) == (400, "bad_request")


def test_a_half_sent_head_times_out(guarded):
    raw, took = _raw(guarded.url, b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    assert _status_and_code(raw) == (408, "request_timeout") and took < 2.0


def test_a_trickled_head_times_out(guarded):
    host, port = guarded.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as s:
        t0 = time.monotonic()
        for byte in b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: abcdefghijklmnopqrstuvwxyz":
            try:
                s.sendall(bytes([byte]))
            except OSError:
                break
            time.sleep(0.05)
        out = s.recv(65536)
    assert _status_and_code(out) == (408, "request_timeout") and time.monotonic() - t0 < 2.0


def test_a_silent_connection_is_closed(guarded):
    raw, took = _raw(guarded.url, b"")
    assert took < 2.0 and (not raw or _status_and_code(raw)[0] == 408)


def test_a_half_sent_body_times_out(guarded):
    head = b"POST /episodes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ctl-tok\r\nContent-Type: application/json\r\n"
    raw, took = _raw(guarded.control, head + b"Content-Length: 100\r\n\r\n" + b'{"env": ')
    assert _status_and_code(raw) == (408, "request_timeout") and took < 2.0


def test_keep_alive_requests_still_work(guarded):
    host, port = guarded.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as s:
        for _ in range(3):
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            got = s.recv(65536)
            assert got.startswith(b"HTTP/1.1 200") and b'"ok":true' in got
            time.sleep(0.3)  # idle between requests, under the head timeout each time


def test_even_a_bug_answers_in_the_documented_shape(guarded, monkeypatch):
    def broken(env):
        raise RuntimeError("a bug")

    monkeypatch.setattr(guarded.store, "world", broken)
    r = httpx.post(f"{guarded.control}/episodes", json={"env": "mini_shop"}, headers=CTL)
    assert r.status_code == 500 and r.json()["error"]["code"] == "internal_error"


class _Recorder:
    """A transport that records what is written to it."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed, "written after close"
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str) -> str:
        return f"extra:{name}"


def test_a_response_head_goes_out_with_its_body_in_one_write():
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        head = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n"
        t = _Recorder()
        corked = _Corked(t, loop)  # type: ignore[arg-type]
        corked.write(head)
        assert t.writes == []  # held for the body
        corked.write(b"{}")
        assert t.writes == [head + b"{}"]
        await asyncio.sleep(0)
        assert t.writes == [head + b"{}"]  # nothing left to flush
        # a streamed response: the head goes alone at the loop's next turn, chunks as they come
        t2 = _Recorder()
        corked2 = _Corked(t2, loop)  # type: ignore[arg-type]
        corked2.write(head)
        await asyncio.sleep(0)
        assert t2.writes == [head]
        corked2.write(b"a")
        assert t2.writes == [head, b"a"]
        # a close sends what is held first; everything else reaches the real transport
        t3 = _Recorder()
        corked3 = _Corked(t3, loop)  # type: ignore[arg-type]
        corked3.write(head)
        corked3.close()
        assert t3.writes == [head] and t3.closed
        await asyncio.sleep(0)  # the pending flush finds nothing held
        assert corked3.get_extra_info("peername") == "extra:peername"

    asyncio.run(scenario())
