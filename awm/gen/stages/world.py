"""Stage ``world``: ``world.py``, the builder of randomized worlds. The canonical world (``seed.json``) is
its seed-0 small world. Checked by running it isolated (``awm.isolation``) on several worlds: every world
loads into the schema with foreign keys on, seed 0 builds the same twice, the small world has hundreds of
rows in every table, the large world is several times larger, and the distractor world differs."""

from __future__ import annotations

from awm.bundle.records import SeedData
from awm.gen.records import WorldOut
from awm.gen.safety import check_world_source
from awm.gen.stages.base import Draft, Stage, StageEnv, scenario_block
from awm.gen.stages.schema import NONDETERMINISTIC, build_schema
from awm.sql.diff import read_tables

WORLDS = ["s0", "s0", "s1", "s1d", "l2"]  # seed 0 twice: determinism


class WorldStage(Stage[WorldOut]):
    name = "world"
    output = WorldOut

    def values(self, draft: Draft, env: StageEnv) -> dict[str, str]:
        lim = env.limits
        return {
            "scenario": scenario_block(draft),
            "schema": draft.schema_sql,
            "min_rows": str(lim.min_world_rows),
            "max_rows": str(lim.max_world_rows),
            "large_factor": str(lim.large_factor),
        }

    async def check(self, out: WorldOut, draft: Draft, env: StageEnv) -> list[str]:
        problems = check_world_source(out.world_py)
        if problems:
            return [f"world.py {p}" for p in problems]
        draft.write("world.py", out.world_py.rstrip() + "\n")
        res = await env.sandbox.world(draft.staging, draft.env_id, WORLDS, timeout=max(env.sandbox.timeout, 180.0))
        problems = list(res.problems)
        rows: dict[str, dict[str, int]] = res.stats.get("rows", {})
        digests: dict[str, str] = res.stats.get("digests", {})
        if problems or not rows.get("s0"):
            return problems or ["world.py built no seed-0 world"]
        small = rows["s0"]
        draft.seed = SeedData(tables=res.tables or {})
        draft.world_rows = dict(small)
        draft.write("seed.json", draft.seed.model_dump_json(indent=1) + "\n")
        tables = schema_tables(draft.schema_sql)
        if missing := [t for t in tables if t not in small]:
            problems.append(f"the seed-0 world has no rows for {missing}: build() returns every table of the schema")
        if empty := [t for t in tables if small.get(t) == 0]:
            problems.append(f"the seed-0 world leaves {empty} empty; give every table rows")
        total = sum(small.values())
        lim = env.limits
        if not lim.min_world_rows <= total <= lim.max_world_rows:
            problems.append(
                f"the small world (seed 0) has {total} rows; build between {lim.min_world_rows} and "
                f"{lim.max_world_rows} (ctx.n(small, large) sizes each table)"
            )
        large = sum(rows.get("l2", {}).values())
        if "l2" in rows and large < lim.large_factor * sum(rows.get("s1", small).values()):
            problems.append(
                f"the large world has {large} rows, not {lim.large_factor}x the small one's "
                f"{sum(rows.get('s1', small).values())}: size the main tables with ctx.n(small, large)"
            )
        if digests.get("s1") and digests.get("s1") == digests.get("s1d"):
            problems.append("ctx.distractors changes nothing: with distractors, add near-duplicate rows (namesakes)")
        if res.tables is not None:
            moving = [
                f"{t}.{c}={v!r}"
                for t, rs in res.tables.items()
                for r in rs[:200]
                for c, v in r.items()
                if isinstance(v, str) and NONDETERMINISTIC.search(v)
            ]
            if moving:
                problems.append(f"rows hold moving values ({', '.join(moving[:3])}); write the date/time itself")
        return problems

    def apply(self, out: WorldOut, draft: Draft, env: StageEnv) -> None:
        draft.world_py = out.world_py.rstrip() + "\n"


def schema_tables(schema_sql: str) -> list[str]:
    conn, _ = build_schema(schema_sql)
    if conn is None:
        return []
    try:
        return list(read_tables(conn))
    finally:
        conn.close()
