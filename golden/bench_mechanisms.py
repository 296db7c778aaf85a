"""``make bench``'s mechanism-speed rows (issue 68 item 4): host speed of every mechanism.

Every mechanism of the registry (:data:`golden.mechanisms.registry.MECHANISMS`; a name whose
factory another name already gives, e.g. ``uv-token-combined`` = ``uv-token``, is measured
once) runs on its paper's configuration (:data:`FAMILY_CONFIGS`, keyed by the mechanism's
package) beside the baseline on that same configuration and workload, measured in the same
run: per row the warp instructions issued per CPU-second of the simulation (process time,
the figure ``make bench``'s timing rows use) and its ratio to the baseline's. The issue's
target is a ratio of at least :data:`TARGET` for every mechanism; rows below it are marked.

To keep ``make bench`` short on a shared machine the rows run at ``small`` size on MM by
default, ``repeats`` times in alternation (baseline, mechanism 1, mechanism 2, ..., baseline,
...), keeping each case's best rate; ``--mech-size`` and ``--mech-workloads`` widen them.
Because DARSIE and UV skip instructions, their issued count is lower than the baseline's
for the same program; ``cpu_ratio`` (baseline CPU seconds / mechanism CPU seconds on the
same program) is printed beside the rate ratio so both readings are visible.
"""

from __future__ import annotations

from golden.mechanisms import registry as mech_registry

#: the configuration each mechanism family (its package under golden/mechanisms/) runs on:
#: the configuration of its paper's report (golden/report/<family>.py ``CONFIG``)
FAMILY_CONFIGS: dict[str, str] = {
    "darsie": "pascal",
    "uv": "gtx285",
    "gscalar": "gtx480",
    "ilp": "gtx280",
    "warpman": "gtx480_warpman",
    "coarse_l1": "gtx480_coarse",
    "capri": "quadro_fx5800",
}
#: the issue's target: every mechanism at least this fraction of the baseline's rate
TARGET = 0.5
#: default workloads and size of the rows
WORKLOADS = ("MM",)
SIZE = "small"


def family(name: str) -> str:
    """The package (under golden/mechanisms/) that registers mechanism ``name``."""
    module = mech_registry.MECHANISMS[name].partition(":")[0]
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["golden", "mechanisms"] else module


def config_of(name: str) -> str:
    """The configuration mechanism ``name`` is measured on; a family missing from
    :data:`FAMILY_CONFIGS` is a ConfigError (a new family must be given one)."""
    from golden.errors import ConfigError
    fam = family(name)
    if fam not in FAMILY_CONFIGS:
        raise ConfigError(f"bench: mechanism '{name}' (family '{fam}') has no configuration "
                          f"in golden/bench_mechanisms.py FAMILY_CONFIGS")
    return FAMILY_CONFIGS[fam]


def mechanism_cases() -> list[tuple[str, str]]:
    """``[(config, mechanism)]`` for every registered mechanism, one name per factory
    (the first in sorted order), grouped by configuration in :data:`FAMILY_CONFIGS` order."""
    seen: set[str] = set()
    out = []
    for name in mech_registry.names():
        spec = mech_registry.MECHANISMS[name]
        if spec in seen:
            continue
        seen.add(spec)
        out.append((config_of(name), name))
    order = list(FAMILY_CONFIGS.values())
    return sorted(out, key=lambda c: (order.index(c[0]), c[1]))


def _run(workload: str, config: str, mechanisms: tuple, size: str) -> dict:
    from golden.report.runner import TimingJob, run_job
    r = run_job(TimingJob(workload, config, size=size, mechanisms=mechanisms))
    winst = r["timing"]["instructions_issued"]
    return dict(workload=workload, config=config, mechanism="+".join(mechanisms) or "baseline",
                warp_instructions=winst, cycles=r["cycles"], cpu_seconds=r["cpu_seconds"],
                cpu_rate=winst / max(r["cpu_seconds"], 1e-9), outputs_match=r["outputs_match"])


def bench_mechanisms(workloads=WORKLOADS, size: str = SIZE, repeats: int = 2,
                     cases=None) -> list[dict]:
    """The mechanism-speed rows: per workload and configuration, the baseline row then one
    row per mechanism, each the best of ``repeats`` alternated runs, with ``vs_base`` (rate
    / the baseline's rate in this run), ``cpu_ratio`` (baseline CPU s / this row's) and
    ``below_target`` (``vs_base`` < :data:`TARGET`)."""
    cases = mechanism_cases() if cases is None else list(cases)
    configs = list(dict.fromkeys(c for c, _ in cases))
    rows = []
    for workload in workloads:
        for config in configs:
            names = [()] + [(m,) for c, m in cases if c == config]
            best: dict = {}
            for _ in range(repeats):
                for mechs in names:
                    r = _run(workload, config, mechs, size)
                    if mechs not in best or r["cpu_rate"] > best[mechs]["cpu_rate"]:
                        best[mechs] = r
            base = best[()]
            for mechs in names:
                r = best[mechs]
                r["vs_base"] = r["cpu_rate"] / base["cpu_rate"]
                r["cpu_ratio"] = base["cpu_seconds"] / max(r["cpu_seconds"], 1e-9)
                r["below_target"] = r["vs_base"] < TARGET
                rows.append(r)
    return rows


def print_rows(rows: list[dict], size: str, repeats: int) -> None:
    """The table ``make bench`` prints."""
    print(f"\nmechanism speed, {size} size (issue 68: each >= {TARGET}x its baseline's warp "
          f"instructions issued per CPU-second, same workload and config, this run; best of "
          f"{repeats} alternated)")
    print(f"{'workload':<8} {'config':<15} {'mechanism':<19} {'warp inst':>10} {'cycles':>9} "
          f"{'CPU s':>6} {'per CPU-s':>10} {'vs base':>7} {'time':>6}")
    below = 0
    for r in rows:
        mark = f"  BELOW {TARGET}x" if r["below_target"] else ""
        below += r["below_target"]
        print(f"{r['workload']:<8} {r['config']:<15} {r['mechanism']:<19} "
              f"{r['warp_instructions']:>10,} {r['cycles']:>9,} {r['cpu_seconds']:>6.2f} "
              f"{r['cpu_rate']:>10,.0f} {r['vs_base']:>6.2f}x {r['cpu_ratio']:>5.2f}x{mark}"
              + ("" if r["outputs_match"] else "  OUTPUTS DIFFER"))
    print(f"(vs base: rate / the baseline's; time: baseline CPU s / this row's, the same "
          f"program; {below} row(s) below the {TARGET}x target)")
