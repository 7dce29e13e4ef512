"""The verifier engine: read-only SQL checks over the current state (initial state attached as
schema ``initial``), progress Φ, and answer checks."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from awm.bundle.records import Check
from awm.judge.frame import Respelling


class CheckSqlError(Exception):
    """Verifier SQL that fails at run time (unknown column, wrong shape)."""


def attach_copy(conn: sqlite3.Connection, schema: str, blob: bytes) -> None:
    """Attach an in-memory copy of ``blob`` to ``conn`` as ``schema`` (replacing it if attached)."""
    attached = {r[1] for r in conn.execute("PRAGMA database_list")}
    if schema not in attached:
        conn.execute(f"ATTACH DATABASE ':memory:' AS {schema}")
    conn.deserialize(blob, name=schema)


def run_checks(conn: sqlite3.Connection, checks: Sequence[Check], *, strict: bool = False) -> dict[str, bool]:
    """Evaluate every check on a connection that refuses writes for the duration.

    No row counts as false. A check that fails to run raises ``CheckSqlError`` when ``strict``
    (at load time) and counts as false otherwise (mid-episode: the episode must go on).
    """
    out: dict[str, bool] = {}
    if not checks:
        return out
    conn.execute("PRAGMA query_only = ON")
    try:
        for c in checks:
            try:
                row = conn.execute(c.sql).fetchone()
            except sqlite3.Error as e:
                if strict:
                    raise CheckSqlError(f"check {c.name!r} fails to run: {e}") from e
                row = None
            if strict and row is not None and len(row) != 1:
                raise CheckSqlError(f"check {c.name!r} must return one value per row, not {len(row)}")
            out[c.name] = row is not None and bool(row[0])
    finally:
        conn.execute("PRAGMA query_only = OFF")
    return out


def run_checks_respelled(
    conn: sqlite3.Connection, checks: Sequence[Check], respellings: Sequence[Respelling]
) -> dict[str, bool]:
    """The checks on the current state with each respelled value set to its expected spelling (in a
    savepoint, rolled back): a check and the write frame judge a spelling by the same normalisation."""
    conn.execute("SAVEPOINT awm_respell")
    try:
        for r in respellings:
            where = " AND ".join(f"{_q(k)} IS ?" for k in r.key)
            conn.execute(f"UPDATE {_q(r.table)} SET {_q(r.column)} = ? WHERE {where}", (r.value, *r.key.values()))
        return run_checks(conn, checks)
    finally:
        conn.execute("ROLLBACK TO awm_respell")
        conn.execute("RELEASE awm_respell")


def _q(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def column_values(conn: sqlite3.Connection, sql: str) -> tuple[Any, ...]:
    """The first column of every row of a read-only query."""
    conn.execute("PRAGMA query_only = ON")
    try:
        return tuple(r[0] for r in conn.execute(sql).fetchall())
    except sqlite3.Error as e:
        raise CheckSqlError(f"answer SQL fails to run: {e}") from e
    finally:
        conn.execute("PRAGMA query_only = OFF")


def progress(checks: Sequence[Check], results: Mapping[str, bool]) -> float:
    """Φ(s): weighted fraction of non-guard checks that hold, or 0 if any guard fails.

    One pass (it runs after every step that changed what a check reads); the weights are summed with
    ``sum`` in check order, as ever, so Φ is the same float."""
    weights: list[float] = []
    held: list[float] = []
    for c in checks:
        ok = results.get(c.name, False)
        if c.guard:
            if not ok:
                return 0.0
        else:
            weights.append(c.weight)
            if ok:
                held.append(c.weight)
    total = sum(weights)
    if total == 0:
        return 0.0
    return sum(held) / total
