"""The OpenAPI documents are the contract: every response's real schema, every error status with the
``{"error": {"code", "message"}}`` body, and Schemathesis (all checks, bounded) finds no departure."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest
from openapi_spec_validator import validate

from awm.serve.app import create_planes
from awm.serve.config import ServeConfig
from tests.conftest import FIXTURE_ROOT
from tests.serve.conftest import start_server, stop_server

ERROR_REF = "#/components/schemas/ErrorBody"


def _operations(doc):
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            yield f"{method.upper()} {path}", op


@pytest.mark.parametrize("token", [None, "t0k"])
def test_every_response_is_documented_with_its_schema(token):
    cfg = ServeConfig(paths=[str(FIXTURE_ROOT)], envs=["mini_shop"], token=token, control_token=token)
    planes = create_planes(cfg)
    for app in (planes.agent, planes.control):
        doc = app.openapi()
        validate(doc)
        assert "HTTPValidationError" not in json.dumps(doc)
        for name, op in _operations(doc):
            codes = op["responses"]
            ok = [c for c in codes if c.startswith("2")]
            assert len(ok) == 1, name
            schema = codes[ok[0]]["content"]["application/json"]["schema"]
            assert schema.get("type") != "string" and ("$ref" in schema or schema.get("type") == "array"), name
            errors = {int(c) for c in codes if not c.startswith("2")}
            assert {400, 408, 413} <= errors, name
            assert (401 in errors) == (token is not None and name != "GET /health"), name
            if "{episode_id}" in name:
                assert {404, 410, 422} <= errors, name
            if name.endswith(("/call", "/step", "/submit")) or "/tools/" in name:
                assert {409, 504} <= errors, name
            for c in errors:
                assert codes[str(c)]["content"]["application/json"]["schema"] == {"$ref": ERROR_REF}, (name, c)
        if token:
            assert doc["components"]["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}
    control = {name for name, _ in _operations(planes.control.openapi())}
    assert {"POST /episodes", "DELETE /episodes/{episode_id}", "POST /episodes/{episode_id}/fork"} <= control
    created = planes.control.openapi()["paths"]["/episodes"]["post"]["responses"]
    assert {"201", "404", "422", "503"} <= set(created)


# a fuzzer over both planes (~20 s): under -m slow (CI runs it); the contract tests above run by default
@pytest.mark.slow
def test_schemathesis_finds_nothing(tmp_path):
    """``st run --checks all`` on both planes, bounded; real episode ids are offered as test data."""
    pytest.importorskip("schemathesis")
    cfg = ServeConfig(paths=[str(FIXTURE_ROOT)], envs=["mini_shop"], token="agent", control_token="ctl")
    srv, thread = start_server(cfg)
    try:
        for base, token in ((srv.control, "ctl"), (srv.url, "agent")):
            ids = [
                httpx.post(
                    f"{srv.control}/episodes",
                    json={"env": "mini_shop", "seed": i},
                    headers={"Authorization": "Bearer ctl"},
                ).json()["episode_id"]
                for i in range(30)
            ]
            config = tmp_path / "schemathesis.toml"
            config.write_text(
                f"[dictionaries.episodes]\nvalues = {json.dumps(ids)}\n"
                '[parameters]\n"path.episode_id" = { dictionary = "episodes", probability = 0.9 }\n'
                # a schema-violating body too large to read is rejected as such
                "[checks.negative_data_rejection]\n"
                'expected-statuses = ["400", "401", "404", "405", "409", "413", "422"]\n'
            )
            cmd = [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run"]
            cmd += [f"{base}/openapi.json", "--checks", "all", "--max-examples", "15", "--seed", "20240601"]
            cmd += ["--header", f"Authorization: Bearer {token}", "--workers", "1"]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=240, cwd=tmp_path)
            (tmp_path / "out.txt").write_text(r.stdout)
            assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-2000:]
            assert "No issues found" in r.stdout
    finally:
        stop_server(srv, thread)
