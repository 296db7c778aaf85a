"""``make bench``: host throughput of the golden model (warp instructions per second).

Runs MM, HS and BFS at ``default`` size in functional mode, twice each (the first run
also pays for parsing/linking), and prints the best throughput.
"""

from __future__ import annotations

import sys
import time

from golden.workloads import registry

BENCH_WORKLOADS = ("MM", "HS", "BFS")


def bench_functional(names=BENCH_WORKLOADS, size: str = "default", repeats: int = 2) -> list[dict]:
    rows = []
    for name in names:
        w = registry.get(name)
        best = None
        for _ in range(repeats):
            t0 = time.perf_counter()
            run = registry.run_workload(w, size=size, seed=0)
            dt = time.perf_counter() - t0
            sim = sum(s.wall_seconds for s in run.stats)
            winst = sum(s.warp_instructions for s in run.stats)
            r = dict(workload=w.name, warp_instructions=winst, sim_seconds=sim, total_seconds=dt,
                     rate=winst / max(sim, 1e-9))
            if best is None or r["rate"] > best["rate"]:
                best = r
        rows.append(best)
    return rows


def main() -> int:
    print("functional mode, default sizes (best of 2; rate = warp instructions / launch time)")
    print(f"{'workload':<8} {'warp inst':>12} {'launch s':>9} {'total s':>8} {'warp-inst/s':>13}")
    for r in bench_functional():
        print(f"{r['workload']:<8} {r['warp_instructions']:>12,} {r['sim_seconds']:>9.2f} "
              f"{r['total_seconds']:>8.2f} {r['rate']:>13,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
