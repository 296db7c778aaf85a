"""``make bench``: host throughput of the golden model (warp instructions per second).

Functional mode: MM, HS and BFS at ``default`` size, twice each (the first run also pays
for parsing/linking), best throughput printed. Timing mode (:data:`TIMING_CASES`): the same
workloads on the Pascal configuration, and MM with the ``darsie`` and ``gscalar``
mechanisms attached (``--timing-size``, default ``default``); rates = warp instructions
issued per CPU-second (process time, robust on a shared machine) and per wall-second of
the whole run. ``--skip-timing`` omits them. Each timing row also shows its ratio to the
figure recorded in ``golden/bench_reference.yaml`` (the speed before the issue-12 work,
same machine kind), so a speed change reads directly as a factor. The last rows
(:func:`bench_views`, ``--skip-views`` omits them) give the cost of the per-run views of
issue 72: the same run with the per-PC profiler and with the timeline on, against off.
Then every registered mechanism against its baseline, same workload and config, same run
(:mod:`golden.bench_mechanisms`, issue 68 item 4; ``--skip-mechanisms`` omits them).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from golden.workloads import registry

BENCH_WORKLOADS = ("MM", "HS", "BFS")
#: (workload, mechanisms) of the timing rows.
TIMING_CASES = (("MM", ()), ("HS", ()), ("BFS", ()), ("MM", ("darsie",)), ("MM", ("gscalar",)))
REFERENCE = Path(__file__).with_name("bench_reference.yaml")


def load_reference(path: Path = REFERENCE) -> dict:
    """``{(workload, mechanism, size): warp-inst per CPU-second}`` recorded earlier (empty if
    the file is missing); a malformed file is a ConfigError naming the key path."""
    import yaml

    from golden.errors import ConfigError
    if not path.is_file():
        return {}
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        rows = doc["timing"]
        return {(str(r["workload"]), str(r.get("mechanism", "baseline")), str(r["size"])):
                float(r["cpu_rate"]) for r in rows}
    except (yaml.YAMLError, KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: timing: expected a list of workload/mechanism/size/cpu_rate "
                          f"rows ({type(exc).__name__}: {exc})") from None


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


def replicated_module(text: str, kernel: str, copies: int) -> str:
    """A PTX module of ``copies`` renamed copies (``<kernel>_<k>``) of the one kernel of
    ``text``: a large input for the parser (its test and :func:`bench_tools`)."""
    head, body = text.split(".visible .entry", 1)
    return head + "".join(".visible .entry" + body.replace(kernel, f"{kernel}_{k}")
                          for k in range(copies))


def strided_trace(n: int, seed: int = 7):
    """``(addresses, streams)``: ``n`` word-strided addresses with up to 4 KB of seeded
    jitter in a 64 MB space, spread over 15 streams (the locality table's large input,
    for its test and :func:`bench_tools`)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    addrs = (np.arange(n) * 4 + rng.integers(0, 1 << 12, size=n)) % (1 << 26)
    return addrs, rng.integers(0, 15, size=n)


def bench_tools() -> list[dict]:
    """Host speed of the front-end and analysis tools (CPU seconds of this process): PTX
    parsing of a 25-kernel module, DARSIE's static marking of every workload kernel (the
    slowest kernel), and the ch. 5 locality table over a million accesses. These figures
    used to be time limits inside unit tests; they are reported here instead."""
    from golden.analysis.locality import locality_table, powers_of_two
    from golden.host import Device
    from golden.mechanisms.darsie import mark_kernel
    from golden.ptx import parse_ptx
    rows = []
    sample = Path(__file__).resolve().parents[1] / "tests" / "ptx" / "samples" / "tiled_matmul.ptx"
    if sample.is_file():
        big = replicated_module(sample.read_text(), "tiled_matmul", 25)
        t0 = time.process_time()
        parse_ptx(big, "big.ptx")
        cpu = time.process_time() - t0
        lines = big.count("\n")
        rows.append(dict(tool="PTX parser", work=f"{lines:,} lines", cpu_seconds=cpu,
                         rate=f"{lines / max(cpu, 1e-9):,.0f} lines/CPU-s"))
    worst, kernels, total = 0.0, 0, 0.0
    for w in registry.all_workloads().values():
        mod = Device().load_module(w.ptx_path)
        for name in mod.ir.kernels:
            prog = mod.get_function(name).program
            t0 = time.process_time()
            mark_kernel(prog, w.tb_dims)
            dt = time.process_time() - t0
            worst, kernels, total = max(worst, dt), kernels + 1, total + dt
    rows.append(dict(tool="DARSIE static marking", work=f"{kernels} kernels", cpu_seconds=total,
                     rate=f"slowest kernel {worst * 1e3:,.0f} ms"))
    a, streams = strided_trace(1_000_000)
    t0 = time.process_time()
    locality_table(a, powers_of_two(1, 1 << 16), powers_of_two(4, 1 << 16), streams=streams)
    cpu = time.process_time() - t0
    rows.append(dict(tool="locality table (ch. 5)", work="1,000,000 accesses, 17 x 15 (W, N)",
                     cpu_seconds=cpu, rate=f"{1e6 / max(cpu, 1e-9):,.0f} accesses/CPU-s"))
    return rows


def bench_timing(cases=TIMING_CASES, size: str = "default", config: str = "pascal") -> list[dict]:
    from golden.report.runner import TimingJob, run_job
    rows = []
    for name, mechanisms in cases:
        r = run_job(TimingJob(name, config, size=size, mechanisms=tuple(mechanisms)))
        winst = r["timing"]["instructions_issued"]
        rows.append(dict(workload=name, mechanism="+".join(mechanisms) or "baseline",
                         config=r["config_name"], warp_instructions=winst,
                         cycles=r["cycles"], seconds=r["wall_seconds"], cpu_seconds=r["cpu_seconds"],
                         rate=winst / max(r["wall_seconds"], 1e-9),
                         cpu_rate=winst / max(r["cpu_seconds"], 1e-9)))
    return rows


def bench_timing_pure(name: str, mechanisms, size: str) -> dict:
    """One timing row in a child process with the compiled core switched off."""
    import json
    import os
    import subprocess

    from golden import native
    code = ("import json, sys\nfrom golden.bench import bench_timing\n"
            f"json.dump(bench_timing((({name!r}, {tuple(mechanisms)!r}),), size={size!r})[0], "
            "sys.stdout)\n")
    env = dict(os.environ, **{native.PURE_ENV: "1"})
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


#: the run of the views-overhead rows (:func:`bench_views`): workload, mechanisms
VIEWS_CASE = ("MM", ("darsie",))
#: the over-time view's interval in the views-overhead rows (``simtlab timeline``'s default)
VIEWS_EVERY = 1000


def _views_run(name: str, mechanisms: tuple, size: str, config: str, view: str) -> dict:
    """One timing run of ``name`` with ``view`` on: ``off`` (neither), ``profile`` (the per-PC
    profiler, :mod:`golden.timing.pc_profile`) or ``timeline`` (the over-time sampler every
    :data:`VIEWS_EVERY` cycles, :mod:`golden.timing.timeline`); the CPU seconds of this
    process spent in the run (building the device, running, reading the stats)."""
    from golden.configs import load_config
    from golden.mechanisms.registry import make_mechanisms
    from golden.timing.pc_profile import PCProfiler
    from golden.timing.stats import TimingStats
    from golden.timing.timeline import Timeline
    from golden.timing.timing_device import TimingDevice
    w = registry.get(name)
    t0 = time.process_time()
    cfg = load_config(config)
    dev = TimingDevice(cfg, mechanisms=make_mechanisms(tuple(mechanisms), cfg), echo_printf=False)
    if view == "profile":
        dev.gpu.pc_profiler = PCProfiler()
    elif view == "timeline":
        dev.gpu.timeline = Timeline(VIEWS_EVERY)
    run = registry.run_workload(w, size=size, seed=0, device=dev)
    total = TimingStats.merged([st.timing for st in run.stats], concurrent=False)
    cpu = time.process_time() - t0
    return dict(view=view, cycles=total.cycles, warp_instructions=total.instructions_issued,
                cpu_seconds=cpu, cpu_rate=total.instructions_issued / max(cpu, 1e-9),
                outputs_match=not run.mismatches())


def bench_views(case=VIEWS_CASE, size: str = "default", config: str = "pascal",
                repeats: int = 2) -> list[dict]:
    """Overhead of the per-run views (issue 72): the same run with the views off, with the
    per-PC profiler on and with the timeline on, alternated (off, profile, timeline, off,
    ...) ``repeats`` times; per view the best warp-inst per CPU-second, its ratio to off
    (``vs_off``, 1.0 = no overhead) and whether its cycles equal the off run's."""
    name, mechs = case
    best: dict = {}
    for _ in range(repeats):
        for view in ("off", "profile", "timeline"):
            r = _views_run(name, tuple(mechs), size, config, view)
            if view not in best or r["cpu_rate"] > best[view]["cpu_rate"]:
                best[view] = r
    off = best["off"]
    for r in best.values():
        r["vs_off"] = r["cpu_rate"] / off["cpu_rate"]
        r["same_cycles"] = r["cycles"] == off["cycles"]
    return list(best.values())


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m golden.bench")
    ap.add_argument("--timing-size", default="default", choices=("small", "default"))
    ap.add_argument("--skip-timing", action="store_true")
    ap.add_argument("--no-pure", action="store_true",
                    help="skip the plain-Python rerun of the first timing row")
    ap.add_argument("--skip-views", action="store_true",
                    help="skip the overhead rows of the per-PC profile and the timeline")
    ap.add_argument("--skip-mechanisms", action="store_true",
                    help="skip the speed rows of every mechanism (golden/bench_mechanisms.py)")
    ap.add_argument("--mech-size", default="small", choices=("small", "default"))
    ap.add_argument("--mech-workloads", default="MM",
                    help="comma-separated workloads of the mechanism-speed rows (default MM)")
    ap.add_argument("--mech-repeats", type=int, default=2)
    args = ap.parse_args(argv)
    mech_workloads = tuple(w.strip() for w in args.mech_workloads.split(",") if w.strip())
    unknown = [w for w in mech_workloads if w not in registry.all_workloads()]
    if unknown or not mech_workloads:
        ap.error(f"--mech-workloads: unknown workload(s) {', '.join(unknown) or '(none given)'}")
    from golden import native
    core = native.status()
    print(f"timing core: {core.reason}")
    print("functional mode, default sizes (best of 2; rate = warp instructions / launch time)")
    print(f"{'workload':<8} {'warp inst':>12} {'launch s':>9} {'total s':>8} {'warp-inst/s':>13}")
    for r in bench_functional():
        print(f"{r['workload']:<8} {r['warp_instructions']:>12,} {r['sim_seconds']:>9.2f} "
              f"{r['total_seconds']:>8.2f} {r['rate']:>13,.0f}")
    print("\nfront-end and analysis tools (CPU seconds of this process)")
    for r in bench_tools():
        print(f"{r['tool']:<24} {r['work']:<36} {r['cpu_seconds']:>8.2f}  {r['rate']}")
    if not args.skip_timing:
        print(f"\ntiming mode, {args.timing_size} sizes, pascal (warp instructions issued per "
              "CPU-second of this process, and per wall-second)")
        ref = load_reference()
        print(f"{'workload':<8} {'mechanism':<9} {'warp inst':>12} {'cycles':>12} {'CPU s':>8} "
              f"{'wall s':>8} {'per CPU-s':>11} {'per wall-s':>11} {'vs recorded':>11}")
        for r in bench_timing(size=args.timing_size):
            base = ref.get((r["workload"], r["mechanism"], args.timing_size))
            ratio = f"{r['cpu_rate'] / base:.2f}x" if base else "-"
            print(f"{r['workload']:<8} {r['mechanism']:<9} {r['warp_instructions']:>12,} "
                  f"{r['cycles']:>12,} {r['cpu_seconds']:>8.1f} {r['seconds']:>8.1f} "
                  f"{r['cpu_rate']:>11,.0f} {r['rate']:>11,.0f} {ratio:>11}")
        if ref:
            print(f"(vs recorded: CPU-second rate / the one in {REFERENCE.name})")
        if core.active and not args.no_pure:
            name, mechs = TIMING_CASES[0]
            pure = bench_timing_pure(name, mechs, args.timing_size)
            comp = bench_timing(((name, mechs),), size=args.timing_size)[0]
            print(f"\ncompiled vs plain Python ({name}, {args.timing_size}, measured back to back): "
                  f"{comp['cpu_rate']:,.0f} vs {pure['cpu_rate']:,.0f} warp-inst per CPU-s = "
                  f"{comp['cpu_rate'] / pure['cpu_rate']:.2f}x"
                  + ("" if comp["cycles"] == pure["cycles"] else "  CYCLES DIFFER"))
        if not args.skip_views:
            name, mechs = VIEWS_CASE
            print(f"\nper-run views, on vs off ({name} {'+'.join(mechs) or 'baseline'}, "
                  f"{args.timing_size}, pascal, same run; best of 2 alternated; timeline every "
                  f"{VIEWS_EVERY} cycles)")
            print(f"{'view':<9} {'cycles':>12} {'CPU s':>8} {'per CPU-s':>11} {'vs off':>7}")
            for r in bench_views(size=args.timing_size):
                print(f"{r['view']:<9} {r['cycles']:>12,} {r['cpu_seconds']:>8.1f} "
                      f"{r['cpu_rate']:>11,.0f} {r['vs_off']:>6.2f}x"
                      + ("" if r["same_cycles"] else "  CYCLES DIFFER")
                      + ("" if r["outputs_match"] else "  OUTPUTS DIFFER"))
    if not args.skip_mechanisms:
        from golden.bench_mechanisms import bench_mechanisms, print_rows
        workloads = mech_workloads
        print_rows(bench_mechanisms(workloads, args.mech_size, max(1, args.mech_repeats)),
                   args.mech_size, max(1, args.mech_repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
