"""Randomized worlds and template instances: build time, draw time, validation rate.

Per environment with a world builder, medians over the seeds measured:
- world build (small and large): ``world.py`` + loading the rows + compiling the world, next to the
  canonical world's compile time (the baseline: a world that is not built, only loaded);
- first draw of an instance (slot query + instantiation + compilation, i.e. one gold replay), and a
  reset on a seen seed (``TaskDistribution.draw`` + ``World.episode``: what ``reset`` costs after
  warm-up), next to ``World.episode`` on a fixed task (the baseline reset);
- ``awm validate --seeds N`` throughput: instances validated per second, with and without the audit.

    python benchmarks/bench_worlds.py [--envs online_store,clinic] [--seeds 20] [--large 3] [--validate 100]
"""

from __future__ import annotations

import argparse
import statistics
import time

from awm.bundle.loader import read_bundle
from awm.model.distribution import TaskDistribution
from awm.model.registry import Registry
from awm.model.world import World
from awm.proof.validate import Report, validate_templates
from awm.worldgen import Scale, WorldKey


def ms(x: float) -> str:
    return f"{x * 1e3:8.1f} ms"


def us(x: float) -> str:
    return f"{x * 1e6:8.1f} µs"


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def bench_env(reg: Registry, env: str, seeds: int, large: int, validate: int) -> None:
    base = reg.load(env)
    entry = reg.entries()[env]
    canon = []
    for _ in range(3):
        t0 = time.perf_counter()
        World(read_bundle(entry.env_dir, entry.verifier_dir))
        canon.append(time.perf_counter() - t0)
    print(f"\n## {env}: {len(base.templates)} templates")
    print(f"  canonical world compile (baseline)   {ms(med(canon))}   ({len(base.task_ids)} fixed tasks)")
    for scale, n in ((Scale.small, seeds), (Scale.large, large)):
        times, rows = [], []
        for s in range(10_000, 10_000 + n):
            t0 = time.perf_counter()
            w = base.variant(WorldKey(s, scale))
            times.append(time.perf_counter() - t0)
            rows.append(sum(len(r) for r in w.files.seed.tables.values()))
        print(f"  build {scale:<5} world                   {ms(med(times))}   ({int(med(rows))} rows, median of {n})")
    dist = TaskDistribution(env, world="random", tasks="templates", num_worlds=seeds, registry=reg)
    first, again = [], []
    for s in range(seeds * 4):
        dist.registry.world(env, dist.world_key(s))  # the world is built before: only the instance counts
        t0 = time.perf_counter()
        dist.draw(s)
        first.append(time.perf_counter() - t0)
    for s in range(seeds * 4):
        t0 = time.perf_counter()
        w, ct = dist.draw(s)
        ep = w.episode(ct.id)
        again.append(time.perf_counter() - t0)
        ep.close()
    fixed = []
    for _ in range(500):
        t0 = time.perf_counter()
        ep = base.episode(base.default_task)
        fixed.append(time.perf_counter() - t0)
        ep.close()
    print(f"  draw, first time (compile instance)  {ms(med(first))}")
    print(f"  reset: cached draw + episode         {us(med(again))}")
    print(f"  episode on a fixed task (baseline)   {us(med(fixed))}")
    for audit in (False, True):
        report = Report(env)
        n = validate if not audit else max(1, validate // 10)
        t0 = time.perf_counter()
        validate_templates(base, report, range(20_000, 20_000 + n), audit=audit)
        dt = time.perf_counter() - t0
        inst = report.stats.get("instances", 0)
        label = "with audit" if audit else "no audit  "
        ok = "ok" if report.ok else f"{len(report.problems)} PROBLEMS"
        rate = f"{inst / dt:8.1f} instances/s"
        print(f"  validate --seeds {n:<4} {label}        {rate} ({inst} instances, {dt:.1f} s, {ok})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", default="", help="comma-separated (default: every env with a world builder)")
    ap.add_argument("--seeds", type=int, default=20, help="small worlds to build")
    ap.add_argument("--large", type=int, default=3, help="large worlds to build")
    ap.add_argument("--validate", type=int, default=100, help="worlds for the validation rate (a tenth with audit)")
    ap.add_argument("--path", action="append", default=[], help="extra registry root")
    args = ap.parse_args()
    reg = Registry(args.path)
    envs = [e for e in args.envs.split(",") if e] or [
        n for n in reg.names() if reg.load(n).files.builder_path is not None
    ]
    for env in envs:
        bench_env(reg, env, args.seeds, args.large, args.validate)


if __name__ == "__main__":
    main()
