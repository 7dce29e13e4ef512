"""``awm view``: a small web app to browse environments and replay episodes of runs.

JSON under ``/api`` and a single page (``static/``: plain HTML, CSS and JavaScript modules, nothing
fetched from elsewhere; a Content-Security-Policy says so to the browser). Paths are relative, so the
same app also serves mounted under a prefix (``awm serve`` mounts it on the control plane at ``/view``).

- ``GET /api/info``: the viewer's settings (``show_answers``) and counts.
- ``GET /api/envs``, ``GET /api/envs/{env}`` (tables with keys and relations, tools, tasks, templates),
  ``GET /api/envs/{env}/tables/{table}/rows?offset=&limit=`` (seed rows, a page at a time).
- ``GET /api/runs``, ``GET /api/runs/{run}`` (per-task trials and the lines that could not be read),
  ``GET /api/runs/{run}/episodes/{env}/{task_id}/{trial}`` (steps, and the judge's reasons from a replay).
- ``GET /api/compare?runs=a,b``: tasks x runs, pass/fail per trial.

Only files of the runs given when the app was created are ever read. Errors are
``{"error": {"code", "message"}}`` with a 4xx status (unknown run, episode, environment, task or table: 404).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from awm.errors import AwmError, UnknownEnvironmentError, UnknownTaskError
from awm.model.registry import Registry
from awm.model.world import World
from awm.view import environments, episodes
from awm.view.errors import UnknownEpisodeError, UnknownRunError, UnknownTableError
from awm.view.runs import RunData, RunSource, discover

STATIC = Path(__file__).parent / "static"
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
_NOT_FOUND: dict[type[AwmError], str] = {
    UnknownRunError: "unknown_run",
    UnknownEpisodeError: "unknown_episode",
    UnknownTableError: "unknown_table",
    UnknownEnvironmentError: "unknown_env",
    UnknownTaskError: "unknown_task",
}


class _JSON(JSONResponse):
    """The stdlib encoder straight to bytes (FastAPI's encoder walks every value of a long trajectory);
    values JSON lacks (a BLOB column) become text."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":"), default=str).encode()


def _error(code: str, status: int, message: str) -> _JSON:
    return _JSON({"error": {"code": code, "message": message}}, status_code=status)


class Viewer:
    """The runs and environments one app shows."""

    def __init__(self, registry: Registry, runs: Sequence[RunSource], envs: Sequence[str] | None, show_answers: bool):
        self.registry, self.show_answers = registry, show_answers
        self.runs = {r.id: r for r in runs}
        self._envs = list(envs) if envs is not None else None

    def env_names(self) -> list[str]:
        return self._envs if self._envs is not None else list(self.registry.entries())

    def world(self, env: str) -> World:
        if self._envs is not None and env not in self._envs:
            raise UnknownEnvironmentError(env, difflib.get_close_matches(env, self._envs, 3), self._envs)
        return self.registry.load(env)

    def run(self, run_id: str) -> RunData:
        src = self.runs.get(run_id)
        if src is None:
            known = ", ".join(self.runs) or "none"
            raise UnknownRunError(f"no run {run_id!r}; the runs shown are: {known}")
        return src.load()


def create_view_app(
    registry: Registry,
    runs: Sequence[str | Path] = (),
    *,
    show_answers: bool = False,
    envs: Sequence[str] | None = None,
) -> FastAPI:
    """The viewer over ``registry``'s environments (or only ``envs``) and the runs at ``runs`` (run
    directories, folders of them, or JSONL files; a path that is none of these raises ``RunPathError``)."""
    viewer = Viewer(registry, discover(runs), envs, show_answers)
    app = FastAPI(title="AWM Gym viewer", version="0.1.0", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.viewer = viewer

    @app.middleware("http")
    async def headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        response.headers.setdefault("content-security-policy", CSP)
        response.headers.setdefault("x-content-type-options", "nosniff")
        response.headers.setdefault("referrer-policy", "no-referrer")
        return response

    @app.exception_handler(AwmError)
    async def awm_error(_: Request, e: AwmError) -> Response:
        for cls, code in _NOT_FOUND.items():
            if isinstance(e, cls):
                return _error(code, 404, str(e))
        return _error("env_error", 422, str(e))  # e.g. a broken bundle: shown, not a crash

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, e: RequestValidationError) -> Response:
        msg = "; ".join(f"{'.'.join(str(p) for p in x['loc'])}: {x['msg']}" for x in e.errors()[:5])
        return _error("invalid_request", 422, msg)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, e: StarletteHTTPException) -> Response:
        if e.status_code == 404:
            return _error("not_found", 404, f"no route {request.method} {request.url.path} here")
        return _error("http_error", e.status_code, str(e.detail))

    @app.get("/", include_in_schema=False)
    def index() -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    @app.get("/api/info")
    def info() -> Response:
        return _JSON({"show_answers": show_answers, "runs": len(viewer.runs), "envs": len(viewer.env_names())})

    @app.get("/api/envs")
    def list_envs() -> Response:
        return _JSON([environments.summary(registry, n) for n in viewer.env_names()])

    @app.get("/api/envs/{env}")
    def get_env(env: str) -> Response:
        return _JSON(environments.detail(viewer.world(env), show_answers=show_answers))

    @app.get("/api/envs/{env}/tables/{table}/rows")
    def get_rows(
        env: str, table: str, offset: int = Query(0, ge=0), limit: int = Query(50, ge=1, le=environments.MAX_PAGE)
    ) -> Response:
        return _JSON(environments.table_rows(viewer.world(env), table, offset, limit).model_dump())

    @app.get("/api/runs")
    def list_runs() -> Response:
        return _JSON([src.load().summary() for src in viewer.runs.values()])

    @app.get("/api/runs/{run_id}")
    def get_run(run_id: str) -> Response:
        return _JSON(episodes.run_view(viewer.run(run_id)))

    @app.get("/api/runs/{run_id}/episodes/{env}/{task_id}/{trial}")
    def get_episode(run_id: str, env: str, task_id: str, trial: int) -> Response:
        run = viewer.run(run_id)
        return _JSON(episodes.episode_view(registry, run, run.episode(env, task_id, trial), show_answers=show_answers))

    @app.get("/api/compare")
    def compare(runs: str = Query(..., description="run ids, comma-separated")) -> Response:
        ids = list(dict.fromkeys(r for r in runs.split(",") if r))
        return _JSON(episodes.compare_view([viewer.run(r) for r in ids]))

    @app.get("/api/{rest:path}", include_in_schema=False)
    def no_api(rest: str) -> Response:
        return _error("not_found", 404, f"no API route /api/{rest}")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
