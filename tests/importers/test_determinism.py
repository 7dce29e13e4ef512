"""Imported AWM apps read the world's frozen clock (``datetime.now()`` is rewritten), so the same actions
give byte-identical states, as on our own environments; and the sandboxed code verifier scores them."""

from __future__ import annotations

from pathlib import Path

import pytest

from awm.model.registry import Registry

pytest.importorskip("sqlalchemy")

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "awm1k"


@pytest.fixture(scope="module")
def bookshop(tmp_path_factory: pytest.TempPathFactory):
    from awm.importers.awm1k import import_awm

    root = tmp_path_factory.mktemp("imported")
    import_awm(FIXTURE, root, scenarios=["Indie Bookshop"])
    return Registry([root], include_default=False).load("indie_bookshop")


def _order_twice(world) -> tuple[bytes, dict, float]:
    ep = world.episode("t00")
    book = ep.call("search_books", {"query": "Left Hand"}).result[0]["id"]
    res = ep.call("place_order", {"book_id": book, "quantity": 2})
    assert res.ok, res.error
    state = ep.state_bytes()
    return state, res.result, ep.submit(None).rewards.outcome


def test_app_clock_is_the_world_clock_and_replays_are_identical(bookshop) -> None:
    a, order, outcome = _order_twice(bookshop)
    b, _, _ = _order_twice(bookshop)
    assert order["created_at"] == bookshop.clock.isoformat(sep=" ", timespec="seconds")
    assert a == b
    assert outcome == 1.0


@pytest.mark.parametrize(
    "source",
    [
        "from fastapi.responses import FileResponse\n",
        "import fastapi\nr = fastapi.responses.FileResponse('/etc/passwd')\n",
        "from fastapi.staticfiles import StaticFiles\n",
        "import sqlalchemy\ne = sqlalchemy.engine.create_engine('sqlite:////etc/passwd')\n",
        "from sqlalchemy.engine import create_engine\n",
    ],
)
def test_apps_cannot_serve_files_or_open_other_databases(source: str) -> None:
    from awm.importers.appcheck import check_app_code

    assert check_app_code(source), source


CHANCE_APP_ROUTE = """

@app.get("/draw", operation_id="draw", summary="Draw")
async def draw(db: Session = Depends(get_db)):
    import random, time, uuid
    from sqlalchemy import text
    row = db.execute(text("SELECT random(), datetime('now'), CURRENT_TIMESTAMP")).fetchone()
    return {"r": random.random(), "u": str(uuid.uuid4()), "t": time.time(), "sql": list(row)}
"""


def test_chance_and_time_in_app_code_replay_identically(tmp_path: Path) -> None:
    """random, uuid4, time.time and SQLite's random()/now inside the worker are seeded by episode and step."""
    from tests.importers.test_runtime import APP, ENV, make_awm_root

    app = APP.replace('\nif __name__ == "__main__":', CHANCE_APP_ROUTE + '\nif __name__ == "__main__":')
    world = Registry([make_awm_root(tmp_path, app=app)], include_default=False).load(ENV)

    def draws(seed: int) -> list[dict]:
        ep = world.episode("t00", seed=seed)
        return [ep.call("draw", {}).result for _ in range(2)]

    first, again, other = draws(0), draws(0), draws(1)
    assert first == again  # same seed, same actions: the same values
    assert first[0] != first[1] and first != other  # a new step or seed draws anew
    clock = world.clock
    assert first[0]["sql"][1:] == [clock.strftime("%Y-%m-%d %H:%M:%S")] * 2
    assert first[0]["t"] == clock.replace(tzinfo=__import__("datetime").timezone.utc).timestamp()
