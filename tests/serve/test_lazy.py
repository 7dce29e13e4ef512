"""Environments compile on their first use, not at startup: a server over a broken bundle starts, lists it
from its manifest, and answers the requests that need it with ``broken_env`` and the bundle's problems."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest

from awm.serve.config import ServeConfig
from tests.conftest import FIXTURE_ROOT
from tests.serve.conftest import start_server, stop_server


@pytest.fixture(scope="module")
def broken_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lazy") / "root"
    shutil.copytree(FIXTURE_ROOT, root)
    for kind in ("envs", "verifiers"):
        shutil.copytree(root / kind / "mini_shop", root / kind / "broken_shop")
    manifest = root / "envs" / "broken_shop" / "env.json"
    manifest.write_text(manifest.read_text().replace('"mini_shop"', '"broken_shop"'))
    (root / "envs" / "broken_shop" / "tools.py").write_text("def broken(:\n")
    return root


def test_a_broken_environment_fails_its_requests_not_the_server(broken_root: Path) -> None:
    srv, thread = start_server(ServeConfig(paths=[str(broken_root)], envs=["broken_shop", "mini_shop"]))
    try:
        assert not srv.store.loaded("broken_shop") and not srv.store.loaded("mini_shop")  # nothing compiled
        listed = {e["env"]: e for e in httpx.get(f"{srv.control}/envs").json()}
        assert listed["broken_shop"]["tools"] is None and listed["mini_shop"]["title"]  # from the manifests
        r = httpx.post(f"{srv.control}/episodes", json={"env": "broken_shop"})
        assert r.status_code == 500 and r.json()["error"]["code"] == "broken_env", r.text
        assert "broken_shop" in r.json()["error"]["message"] and "tools.py" in r.json()["error"]["message"]
        assert httpx.get(f"{srv.control}/envs/broken_shop").json()["error"]["code"] == "broken_env"
        mcp = httpx.post(
            f"{srv.url}/envs/broken_shop/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={"Accept": "application/json, text/event-stream"},
        )
        assert mcp.status_code == 500 and mcp.json()["error"]["code"] == "broken_env"
        ok = httpx.post(f"{srv.control}/episodes", json={"env": "mini_shop", "task_id": "t02_buy_lamp"})
        assert ok.status_code == 201, ok.text  # the other environment compiles on this first use
        listed = {e["env"]: e for e in httpx.get(f"{srv.control}/envs").json()}
        assert listed["mini_shop"]["tools"] > 0 and listed["mini_shop"]["tasks"] == 3
        assert (
            "/envs/mini_shop/episodes/{episode_id}/tools/place_order"
            in httpx.get(f"{srv.url}/openapi.json").json()["paths"]
        )
    finally:
        stop_server(srv, thread)
