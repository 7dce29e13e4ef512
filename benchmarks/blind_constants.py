"""The best blind constant of every information template: the share of instances one answer, submitted
without a tool call, scores on (``awm.proof.leaks``; ``awm validate --seeds`` fails a template over 10%).

    .venv/bin/python benchmarks/blind_constants.py SEEDS [ENV ...] [--distractors]
"""

from __future__ import annotations

import sys
import time

from awm.model.registry import default_registry
from awm.proof.leaks import blind_constants


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    distractors = "--distractors" in sys.argv
    reg = default_registry()
    names = [a for a in sys.argv[2:] if not a.startswith("--")] or reg.names()
    bad = total = 0
    worst: list[float] = []
    for name in names:
        t0 = time.perf_counter()
        results, problems = blind_constants(reg.load(name), range(seeds), distractors=distractors)
        for r in results:
            total += 1
            bad += not r.ok
            worst.append(r.share)
            print("FAIL" if not r.ok else "ok  ", name, r.template, r, flush=True)
        for p in problems[:3]:
            print("PROBLEM", name, p)
        print(f"## {name} {time.perf_counter() - t0:.1f}s", flush=True)
    if worst:
        worst.sort()
        median, top = worst[len(worst) // 2], worst[-1]
        print(f"templates: {total}, over the limit: {bad}, median share {median:.1%}, max {top:.1%}")


if __name__ == "__main__":
    main()
