"""Stage ``scenario``: a short idea becomes the manifest's fields (id, title, description, frozen clock)."""

from __future__ import annotations

from awm.bundle.records import Provenance
from awm.gen.records import ScenarioOut
from awm.gen.stages.base import Draft, Stage, StageEnv

RESERVED = ("sqlite", "initial", "prev", "main", "temp")


class ScenarioStage(Stage[ScenarioOut]):
    name = "scenario"
    output = ScenarioOut

    def values(self, draft: Draft, env: StageEnv) -> dict[str, str]:
        return {"idea_name": draft.idea.name, "idea": draft.idea.description}

    async def check(self, out: ScenarioOut, draft: Draft, env: StageEnv) -> list[str]:
        problems = []
        if out.clock.tzinfo is not None:
            problems.append(f"clock {out.clock.isoformat()} has a time zone; give a local time without one")
        if not 1990 <= out.clock.year <= 2100:
            problems.append(f"clock year {out.clock.year} is implausible; use a date near today")
        if out.id in RESERVED or out.id.startswith("_"):
            problems.append(f"id {out.id!r} is reserved; choose another")
        return problems

    def apply(self, out: ScenarioOut, draft: Draft, env: StageEnv) -> None:
        env_id = out.id
        if env_id in env.taken_ids:  # another environment has this name: keep the job's own, stable suffix
            env_id = f"{out.id[:33]}_{draft.key[:6]}"
        env.taken_ids.add(env_id)
        draft.scenario, draft.env_id = out, env_id
        draft.write_manifest(Provenance(source="generated"))
