"""What ``awm gen`` cost per environment with a model behind the file relay (``awm.gen.relay``).

    python benchmarks/gen_transcripts.py RUN_DIR...            # a table: one row per scenario
    python benchmarks/gen_transcripts.py --pack FIXTURES RUN_DIR...
    python benchmarks/gen_transcripts.py --replay . FIXTURES/*/          # re-generate into the catalog

A RUN_DIR holds ``relay/`` (the relay's requests, answers and log.jsonl) and ``out/`` (the generator's
output root, with ``.awm-gen/report.json`` and the response cache); a run continued in a fresh output
root (the cached answers replayed, new requests to the same relay) links the first run as ``earlier``.
Per scenario: requests, retries per
stage and the first problem each retry was sent back for, characters and estimated tokens in and out
(characters / 4: the relay cannot count a helper's tokens), the model's wall time (waiting for answers)
and the checks' wall time, and the ``awm stats`` row of the environment written.

``--pack`` writes the replayable fixture of each run to ``FIXTURES/<env>/``: ``transcript.jsonl.gz``
(every request's messages and the answer, in order: ``python -m awm.gen.relay replay`` serves it),
``log.jsonl`` and ``run.json`` (the scenario and the settings to replay with).

``--replay ROOT`` takes packed fixtures instead of runs: each is generated again offline from its
transcript with the current code (``awm.gen.relay.replay_fixture``), the environment is copied into
``ROOT/envs`` and ``ROOT/verifiers`` (the catalog, for ``ROOT`` = the repository); with ``--record`` the
requests whose text now differs from the recording are saved in ``run.json`` as ``diverges`` (what the
replay test expects).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
from pathlib import Path
from typing import Any

from awm.model.registry import Registry
from awm.proof.stats import env_stats

FEEDBACK = re.compile(r"failed these checks:\n- (.*)")


def summarise(run: Path) -> dict[str, Any]:
    relay, out = run / "relay", run / "out"
    log = [json.loads(line) for line in (relay / "log.jsonl").read_text().splitlines() if line.strip()]
    retries: dict[str, list[str]] = {}
    for path in sorted((relay / "requests").glob("*-retry*.json")):
        request = json.loads(path.read_text())
        stage = path.stem.split("-", 1)[1].split("-retry")[0]
        last = str(request["messages"][-1]["content"])
        m = FEEDBACK.search(last)
        retries.setdefault(stage, []).append((m.group(1) if m else "?")[:140])
    report = json.loads((out / ".awm-gen" / "report.json").read_text())
    job = report["jobs"][-1]
    row: dict[str, Any] = {
        "run": run.name,
        "scenario": job["scenario"],
        "status": job["status"],
        "env": job.get("env"),
        "requests": len(log),
        "retries": {k: len(v) for k, v in retries.items()},
        "why": retries,
        "chars_in": sum(e["chars_in"] for e in log),
        "chars_out": sum(e["chars_out"] for e in log),
        "tokens_in": sum(e["tokens_estimated"]["prompt_tokens"] for e in log),
        "tokens_out": sum(e["tokens_estimated"]["completion_tokens"] for e in log),
        "model_s": round(sum(e["seconds"] for e in log)),
        "total_s": round(job.get("seconds", 0) + _earlier_seconds(run)),
        "stage": job.get("stage"),
        "problems": job.get("problems", [])[:3],
    }
    row["checks_s"] = max(0, row["total_s"] - row["model_s"])
    if job["status"] == "written" and job.get("env"):
        s = env_stats(Registry([out], include_default=False), job["env"])
        row["stats"] = {
            "tables": s.tables,
            "tools": s.tools,
            "write_tools": s.write_tools,
            "seed_rows": s.seed_rows,
            "tasks": s.tasks,
            "per_kind": [s.information, s.single_write, s.multi_step],
            "templates": s.templates,
            "world_builder": s.world_builder,
        }
    return row


def _earlier_seconds(run: Path) -> float:
    """A run continued in a fresh output root (``run/earlier`` links the first one): its time counts too."""
    earlier = run / "earlier"
    if not (earlier / "out" / ".awm-gen" / "report.json").is_file():
        return 0.0
    report = json.loads((earlier / "out" / ".awm-gen" / "report.json").read_text())
    return float(report["jobs"][-1].get("seconds", 0)) + _earlier_seconds(earlier)


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| scenario | env | status | requests | retries (stage: n) | tokens in / out (est.) | model s | checks s "
        "| tables | tools (write) | seed rows | tasks (i/s/m) | templates |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        st = r.get("stats") or {}
        retries = ", ".join(f"{k}: {v}" for k, v in r["retries"].items()) or "none"
        kinds = "/".join(str(k) for k in st.get("per_kind", [])) or "-"
        lines.append(
            f"| {r['scenario']} | {r['env'] or '-'} | {r['status']} | {r['requests']} | {retries} | "
            f"{r['tokens_in']:,} / {r['tokens_out']:,} | {r['model_s']} | {r['checks_s']} | {st.get('tables', '-')} | "
            f"{st.get('tools', '-')} ({st.get('write_tools', '-')}) | {st.get('seed_rows', '-')} | "
            f"{st.get('tasks', '-')} ({kinds}) | {st.get('templates', '-')} |"
        )
    return "\n".join(lines)


def pack(run: Path, dest: Path, settings: dict[str, Any], superseded: frozenset[str] = frozenset()) -> None:
    report = json.loads((run / "out" / ".awm-gen" / "report.json").read_text())
    target = dest / str(report["jobs"][-1].get("env") or run.name)
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    relay = run / "relay"
    with gzip.open(target / "transcript.jsonl.gz", "wt", encoding="utf-8") as f:
        for path in sorted((relay / "requests").glob("*.json")):
            answer = relay / "answers" / f"{path.stem}.txt"
            request = json.loads(path.read_text())
            f.write(
                json.dumps(
                    {
                        "request": path.stem,
                        "messages": request["messages"],
                        "answer": answer.read_text() if answer.is_file() else None,
                        **({"superseded": True} if path.stem in superseded else {}),
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    shutil.copy(relay / "log.jsonl", target / "log.jsonl")
    batch = json.loads((run / "out" / ".awm-gen" / "batch.json").read_text())
    (target / "run.json").write_text(
        json.dumps({"ideas": batch["ideas"], "settings": {**batch["settings"], **settings}}, indent=1) + "\n"
    )


def replay_into(fixture: Path, root: Path, record: bool = False) -> str:
    import tempfile

    from awm.gen.relay import replay_fixture

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        code, replayer = replay_fixture(fixture, out)
        if code != 0 or replayer.exhausted:
            raise SystemExit(f"{fixture.name}: the replay failed (exit {code}, exhausted {replayer.exhausted})")
        (env,) = [p.name for p in (out / "envs").iterdir() if p.is_dir()]
        for sub in ("envs", "verifiers"):
            target = root / sub / env
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(out / sub / env, target)
    if record:
        spec = json.loads((fixture / "run.json").read_text())
        spec["diverges"] = replayer.diverged
        (fixture / "run.json").write_text(json.dumps(spec, indent=1) + "\n")
    return f"{fixture.name}: {env} written to {root}; {len(replayer.diverged)} request(s) differ from the recording"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--replay", type=Path, help="the runs are packed fixtures: re-generate each into this root")
    ap.add_argument("--record", action="store_true", help="with --replay: save the divergent requests in run.json")
    ap.add_argument("--pack", type=Path, help="write each run's replayable fixture under this folder")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument(
        "--superseded",
        action="append",
        default=[],
        metavar="REQUEST",
        help="with --pack: a request whose answer replied to a check since fixed (kept, marked, not replayed)",
    )
    args = ap.parse_args()
    if args.replay:
        for fixture in args.runs:
            print(replay_into(fixture, args.replay, args.record), flush=True)
        return
    rows = [summarise(r) for r in args.runs]
    if args.pack:
        for r in args.runs:
            pack(r, args.pack, {}, frozenset(args.superseded))
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(table(rows))
    for r in rows:
        for stage, why in r["why"].items():
            for w in why:
                print(f"- {r['run']} {stage} retry: {w}")
        if r["status"] != "written":
            print(f"- {r['run']} {r['status']} at {r['stage']}: {r['problems']}")


if __name__ == "__main__":
    main()
