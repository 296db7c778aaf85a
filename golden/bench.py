"""``make bench``: host throughput of the golden model (warp instructions per second).

Functional mode: MM, HS and BFS at ``default`` size, twice each (the first run also pays
for parsing/linking), best throughput printed. Timing mode: the same workloads once each
on the Pascal configuration (``--timing-size``, default ``default``); rates = warp
instructions issued per CPU-second (process time, robust on a shared machine) and per
wall-second of the whole run. ``--skip-timing`` omits it.
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


def bench_timing(names=BENCH_WORKLOADS, size: str = "default", config: str = "pascal") -> list[dict]:
    from golden.report.runner import TimingJob, run_job
    rows = []
    for name in names:
        r = run_job(TimingJob(name, config, size=size))
        winst = r["timing"]["instructions_issued"]
        rows.append(dict(workload=name, config=r["config_name"], warp_instructions=winst,
                         cycles=r["cycles"], seconds=r["wall_seconds"], cpu_seconds=r["cpu_seconds"],
                         rate=winst / max(r["wall_seconds"], 1e-9),
                         cpu_rate=winst / max(r["cpu_seconds"], 1e-9)))
    return rows


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m golden.bench")
    ap.add_argument("--timing-size", default="default", choices=("small", "default"))
    ap.add_argument("--skip-timing", action="store_true")
    args = ap.parse_args(argv)
    print("functional mode, default sizes (best of 2; rate = warp instructions / launch time)")
    print(f"{'workload':<8} {'warp inst':>12} {'launch s':>9} {'total s':>8} {'warp-inst/s':>13}")
    for r in bench_functional():
        print(f"{r['workload']:<8} {r['warp_instructions']:>12,} {r['sim_seconds']:>9.2f} "
              f"{r['total_seconds']:>8.2f} {r['rate']:>13,.0f}")
    if not args.skip_timing:
        print(f"\ntiming mode, {args.timing_size} sizes, pascal (warp instructions issued per "
              "CPU-second of this process, and per wall-second)")
        print(f"{'workload':<8} {'warp inst':>12} {'cycles':>12} {'CPU s':>8} {'wall s':>8} "
              f"{'per CPU-s':>11} {'per wall-s':>11}")
        for r in bench_timing(size=args.timing_size):
            print(f"{r['workload']:<8} {r['warp_instructions']:>12,} {r['cycles']:>12,} "
                  f"{r['cpu_seconds']:>8.1f} {r['seconds']:>8.1f} {r['cpu_rate']:>11,.0f} "
                  f"{r['rate']:>11,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
