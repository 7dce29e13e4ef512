"""Importers of other projects' environments. ``awm1k``: AgentWorldModel-1K (``awm import awm``).

THE BUNDLE CONTRACT of an imported AWM scenario (the converter writes it, the runtime runs it):

## The shared contract (two engineers build issue 13 at the same time; keep to this exactly)

An imported AWM scenario becomes a normal bundle in an output root `ROOT/` (a registry root: `ROOT/envs/<env>/`,
`ROOT/verifiers/<env>/`, loadable with `Registry([ROOT])` / `--path ROOT`). `<env>` is AWM's normalised scenario
name (lower-case, non-alphanumerics → `_`, prefixed `awm_` if it does not start with a letter; must match
`^[a-z][a-z0-9_]*$`).

`ROOT/envs/<env>/`:
- `env.json` — `Manifest`: `id`, `version` 0, `title` (scenario name), `description` (scenario description),
  `clock` = `"2026-01-01T00:00:00"` (AWM data has no frozen clock), `tags: ["awm-1k"]`, `provenance`: `{"source":
  "imported", "dataset": "AgentWorldModel-1K", "scenario": <original name>, "files": {<AWM file>: <sha256>},
  "date": <import date>}` (Provenance allows extra keys).
- `schema.sql` — the DDL that executes in AWM's order (each table's `ddl`, `indexes`, then `examples`, as
  `awm.core.db.create_sqlite_database` runs them; a failure ends that table's statements), `;`-terminated.
- `seed.json` — `SeedData`: AWM's database (the tables' `examples` with foreign keys off, then the
  `insert_statements` one by one with foreign keys ON, a failing one skipped, as `awm.core.sample` does), every
  table's rows in rowid order (a table without a PRIMARY KEY is keyed by rowid). `env.json` has
  `"foreign_keys": false`. Every skipped part is listed in `provenance.notes` and the import report.
- `awm_app.py` — AWM's `full_code`, verbatim (untrusted; never imported by the importer).
- `awm_spec.json` — the `api_spec` object, verbatim.
- `tools.py` — exactly this file (the runtime builds the tools from the two files above):
  ```python
  '''Tools of an environment imported from AgentWorldModel-1K: AWM's generated FastAPI app (awm_app.py),
  run in an isolated worker process (awm.isolation) against the episode's database (awm.importers.runtime).'''
  from pathlib import Path

  from awm.importers.runtime import awm_tools

  globals().update(awm_tools(Path(__file__).parent, __name__))
  ```
  `awm_tools(env_dir, module_name) -> dict[str, function]` returns functions carrying `__awm_tool__` (an
  `awm.tooling.ToolDef`) with `__module__ == module_name`, one per endpoint `operation_id`, so
  `World._import_tools` collects them unchanged. It raises an `AwmError` subclass (`ImportedCodeError`) when the
  code fails the static check or does not import; the world then reports a bundle problem.
- `tasks.jsonl` — one `Task` per AWM task whose verifier AWM can run (the others are skipped and noted): `id` =
  `t{idx:02d}` (AWM's list index, so ids may have gaps; `default_task` is the first), `instruction` = the task
  text, `kind` = `"multi_step"` (AWM does not say), `answer` = `{"type": "string", "description": "your final
  answer, if the task asks for information; otherwise null"}` when AWM passes the verifier function the agent's
  answer (a `final_answer` parameter, or 3+ positional ones), else null; `tags: ["awm-1k"]`.

`ROOT/verifiers/<env>/`:
- `verify_t{idx:02d}.py` — the verifier's `code`, verbatim.
- `verifiers.jsonl` — one `TaskVerifier` per task: `{"task_id": "t00", "checks": [], "answer": null, "code":
  {"file": "verify_t00.py", "function": "<name of the first def verify_...>", "mode": "code", "takes_answer":
  true|false}, "write_frame": false, "gold": {"calls": []}}`.
  - Only pure-code verifiers (`gen_verifier.pure_code.jsonl`, returning `{"result": "complete"|"others"}`) become
    outcome checks (`mode: "code"`). A scenario offering only sql-mode verifiers (`gen_verifier.jsonl`: evidence
    dicts for an LLM judge) is imported with `mode: "sql"` code checks, which the runtime runs and records as
    evidence but which never give outcome 1 (our rewards need no LLM); the import report says so.

New record fields (`awm/bundle/records.py`, added by the runtime engineer): `TaskVerifier.code: CodeCheck | None` with
`CodeCheck{file: str, function: str, mode: Literal["code", "sql"], takes_answer: bool, timeout_s: float = 10.0}`,
and `TaskVerifier.write_frame: bool = True` (False: no row-level write frame — AWM's verifier alone decides;
collateral is not counted).

"""
