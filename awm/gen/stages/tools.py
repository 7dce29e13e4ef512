"""Stage ``tools``: the whole ``tools.py`` in our tool API. It must pass the static safety check, import,
and survive every tool being called with schema-valid sample arguments (in the sandbox)."""

from __future__ import annotations

import re

from awm.gen.jsonparse import OutputError, parse_output, strip_reasoning
from awm.gen.records import ToolsOut
from awm.gen.safety import check_tools_source
from awm.gen.stages.base import Draft, Stage, StageEnv, scenario_block, seed_block, tasks_block
from awm.runtime.submit import SUBMIT

_PY_FENCE = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S)


class ToolsStage(Stage[ToolsOut]):
    name = "tools"
    output = ToolsOut

    def values(self, draft: Draft, env: StageEnv) -> dict[str, str]:
        return {
            "scenario": scenario_block(draft),
            "tasks": tasks_block(draft.tasks),
            "schema": draft.schema_sql,
            "seed": seed_block(draft.seed, max_rows=8),
            "max_tools": str(env.limits.max_tools),
        }

    def parse(self, text: str) -> ToolsOut:
        try:
            out = parse_output(text, ToolsOut)
        except OutputError:
            # a model may answer with the code itself instead of JSON: accept one python block
            blocks = _PY_FENCE.findall(strip_reasoning(text or ""))
            if len(blocks) != 1 or "@tool" not in blocks[0]:
                raise
            return ToolsOut(tools_py=blocks[0])
        if out.tools_py.lstrip().startswith("```"):
            blocks = _PY_FENCE.findall(out.tools_py)
            if blocks:
                return ToolsOut(tools_py=blocks[0])
        return out

    async def check(self, out: ToolsOut, draft: Draft, env: StageEnv) -> list[str]:
        unsafe = check_tools_source(out.tools_py)
        if unsafe:
            return [f"tools.py {p}" for p in unsafe]
        draft.write("tools.py", out.tools_py.rstrip() + "\n")
        res = await env.sandbox.probe(draft.staging, draft.env_id)
        draft.tool_specs = res.tools
        problems = list(res.problems)
        if res.tools:
            if len(res.tools) > env.limits.max_tools:
                problems.append(f"{len(res.tools)} tools; keep it to {env.limits.max_tools} or fewer")
            if any(t["name"] == SUBMIT for t in res.tools):
                problems.append(f"{SUBMIT!r} is reserved: the platform gives every task that action; rename the tool")
            if not any(not t["write"] for t in res.tools):
                problems.append("there is no read tool (@tool); agents need to look things up")
            if any(t.kind != "information" for t in draft.tasks) and not any(t["write"] for t in res.tools):
                problems.append("there is no write tool (@tool(write=True)) but some tasks change data")
        return problems

    def apply(self, out: ToolsOut, draft: Draft, env: StageEnv) -> None:
        draft.tools_py = out.tools_py.rstrip() + "\n"


class CatalogToolsStage(ToolsStage):
    """The catalog profile's tools: written from the schema and the built world (templates come next), at
    least ``min_tools`` of them, and every write tool acts for a named person (``@tool(write=True,
    actor=...)``), which the audit's ``write.impersonate`` probe later holds it to."""

    prompt = "catalog_tools"

    def values(self, draft: Draft, env: StageEnv) -> dict[str, str]:
        lim = env.limits
        return {
            "scenario": scenario_block(draft),
            "schema": draft.schema_sql,
            "seed": seed_block(draft.seed, max_rows=3, max_chars=400),
            "min_tools": str(lim.min_tools),
            "max_tools": str(lim.max_tools),
            "min_write_tools": str(lim.min_write_tools),
        }

    async def check(self, out: ToolsOut, draft: Draft, env: StageEnv) -> list[str]:
        problems = await super().check(out, draft, env)
        specs = draft.tool_specs
        if not specs:
            return problems
        lim = env.limits
        writes = [t for t in specs if t["write"]]
        if len(specs) < lim.min_tools:
            problems.append(f"{len(specs)} tools; write at least {lim.min_tools} (reads and writes together)")
        if len(writes) < lim.min_write_tools:
            problems.append(f"{len(writes)} write tools; write at least {lim.min_write_tools}, one per kind of change")
        anonymous = [t["name"] for t in writes if not t.get("actor")]
        if anonymous:
            problems.append(
                f"write tools without an acting person: {', '.join(anonymous)}. Declare who acts, e.g. "
                '@tool(write=True, actor="customer_email"), and refuse rows that person may not change '
                "(another customer's booking, a record outside their role)"
            )
        return problems
