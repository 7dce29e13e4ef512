"""Fingerprint what an environment does, to prove a rewrite of its code changed nothing an agent or a trainer sees.

For each environment: the bytes of its seed world and of built worlds (small, large, with distractors); the tool
specs the agent reads; every fixed task's gold solution, step by step (result, row diff, reward channels) and its
verdict; template instances on each world the same way; the audit's verdict on every probe; and the outcome of
the schema-valid sample call of every tool (ok or the error code). Error *messages* of the sample calls are kept
apart: a rewrite may reword them (the comparison lists each change) but may not change anything else.

    .venv/bin/python benchmarks/env_fingerprint.py --out before.json [env ...]
    .venv/bin/python benchmarks/env_fingerprint.py --out after.json [env ...]
    .venv/bin/python benchmarks/env_fingerprint.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from awm.bundle.samples import probe_cases
from awm.model.registry import Registry
from awm.model.world import World
from awm.proof.audit import audit_world
from awm.worldctx import Scale, WorldKey

KEYS = [
    WorldKey(),
    WorldKey(1),
    WorldKey(2),
    WorldKey(3, Scale.large),
    WorldKey(4, Scale.small, True),
]
PICKS = 3  # template instances per template and world


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _play(world: World, task_id: str) -> dict[str, Any]:
    ct = world.task(task_id)  # a fixed task or a template instance
    ep = world.episode(task_id)
    steps = []
    for call in ct.verifier.gold.calls:
        res = ep.call(call.tool, dict(call.arguments))
        steps.append(_digest(res.to_dict()))
    final = ep.submit(ct.verifier.gold.answer)
    state = hashlib.sha256(ep.state_bytes()).hexdigest()[:16]
    out = {"steps": steps, "final": _digest(final.to_dict()), "state": state, "reward": final.reward}
    ep.close()
    return out


def fingerprint(world: World) -> dict[str, Any]:
    fp: dict[str, Any] = {"worlds": {}, "tasks": {}, "instances": {}, "probes": {}, "messages": {}}
    fp["specs"] = _digest([s.model_dump(mode="json") for s in world.tool_specs()])
    for key in KEYS:
        w = world if key.canonical else world.variant(key)
        fp["worlds"][key.label] = hashlib.sha256(w.seed_blob).hexdigest()[:16]
        for tid in w.template_ids:
            for pick in range(PICKS):
                try:
                    ct = w.instance(tid, pick)
                except Exception as e:
                    fp["instances"][f"{tid}@{key.label}#{pick}"] = f"{type(e).__name__}"
                    continue
                fp["instances"][ct.id] = _play(w, ct.id)
    for tid in world.task_ids:
        fp["tasks"][tid] = _play(world, tid)
    report = audit_world(world)
    fp["audit"] = {
        "errors": report.errors,
        "probes": _digest([(p.task_id, p.kind, p.description, p.passed, p.equivalent) for p in report.probes]),
    }
    fp["audit_count"] = len(report.probes)
    for i, (td, args) in enumerate(probe_cases(world)):
        ep = world.episode(world.task_ids[0] if world.task_ids else None)
        res = ep.call(td.name, args)
        ep.close()
        fp["probes"][f"{i}:{td.name}"] = _digest(res.result) if res.ok else res.error.code if res.error else "?"
        if not res.ok and res.error is not None:
            fp["messages"][f"{i}:{td.name}"] = res.error.message
    return fp


def _compare(a: dict[str, Any], b: dict[str, Any]) -> int:
    bad = 0
    for env in sorted(set(a) | set(b)):
        if env not in a or env not in b:
            print(f"{env}: only in {'after' if env in b else 'before'}")
            bad += 1
            continue
        for part in ("specs", "worlds", "tasks", "instances", "audit", "audit_count", "probes"):
            x, y = a[env].get(part), b[env].get(part)
            if x == y:
                continue
            bad += 1
            if isinstance(x, dict) and isinstance(y, dict):
                diff = [k for k in sorted(set(x) | set(y)) if x.get(k) != y.get(k)]
                print(f"{env}: {part} differ at {len(diff)} keys: {', '.join(diff[:8])}")
            else:
                print(f"{env}: {part} differ: {str(x)[:120]} -> {str(y)[:120]}")
        ma, mb = a[env].get("messages", {}), b[env].get("messages", {})
        for k in sorted(set(ma) | set(mb)):
            if ma.get(k) != mb.get(k):
                print(f"{env}: (message, allowed) {k}: {ma.get(k)!r} -> {mb.get(k)!r}")
    print("identical" if not bad else f"{bad} difference(s)")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("envs", nargs="*", help="environments (default: every bundled one)")
    ap.add_argument("--out", type=Path, help="write the fingerprints here")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    if args.compare:
        return _compare(*(json.loads(p.read_text()) for p in args.compare))
    reg = Registry()
    names = args.envs or reg.names()
    out = {}
    for name in names:
        out[name] = fingerprint(reg.load(name))
        print(
            f"{name}: {len(out[name]['tasks'])} tasks, {len(out[name]['instances'])} instances, "
            f"{out[name]['audit_count']} probes",
            file=sys.stderr,
        )
    text = json.dumps(out, sort_keys=True, indent=1)
    if args.out:
        args.out.write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
