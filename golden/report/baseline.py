"""Baseline report: every workload on each seed's baseline GPU (issue 4, the main job's
first table).

Per workload and configuration: cycles, IPC, the per-scheduler-cycle stall breakdown,
dynamic / static / total energy, and whether the outputs equal the numpy reference.
Configurations are the five seed baselines (golden/configs): Pascal GTX 1080 Ti
(DARSIE), GTX 480 (G-Scalar, WarpMan), GTX 285 (uniform vectors), Quadro FX 5800 (CAPRI),
GTX 280-like gtx280_ilp (ILP chapter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from golden.report.runner import (ReportOptions, TimingJob, WorkloadProbe, geomean, user_workloads,
                                  workload_label)
from golden.timing.stats import STALL_REASONS

#: (config name, which seeds use it). A config's table covers the workloads whose
#: ``stands_for`` names one of its seeds (``ReportOptions.all_configs``: every workload).
BASELINE_CONFIGS = (("pascal", "DARSIE"), ("gtx480", "G-Scalar, WarpMan"),
                    ("gtx285", "UV"), ("fx5800", "CAPRI"), ("gtx280", "ILP"))
_SEED_TAGS = {"pascal": ("DARSIE",), "gtx480": ("G-Scalar", "WarpMan"),
              "gtx285": ("UV",), "fx5800": ("CAPRI",), "gtx280": ("ILP",)}


#: user workloads of ``--workloads`` join every configuration's table, whatever their
#: ``stands_for`` (None: :func:`golden.report.runner.selects` takes every workload)
STANDS_FOR = None


def workloads_for(config: str, opts: ReportOptions) -> list[str]:
    """Workloads standing for a benchmark of a seed that uses ``config``, then every user
    workload of ``--workloads`` (by reference)."""
    from golden.workloads import registry
    names = sorted(registry.all_workloads())
    if not opts.all_configs:
        tags = _SEED_TAGS[config]
        names = [n for n in names
                 if any(s.startswith(tags) for s in registry.get(n).stands_for)]
    return names + user_workloads(STANDS_FOR, opts)


def _workloads(opts: ReportOptions) -> list[str]:
    """Every workload of the report: the built-ins sorted, then the user workloads."""
    users = user_workloads(STANDS_FOR, opts)
    return sorted({w for cfg, _ in BASELINE_CONFIGS for w in workloads_for(cfg, opts)}
                  - set(users)) + users


@dataclass(frozen=True)
class FunctionalJob(WorkloadProbe):
    """A workload's functional-mode run: its output digest, which every timing run of the
    same workload, size and seed must reproduce (a job, so it runs in parallel and its
    result is cached like a simulation's)."""

    KIND: ClassVar[str] = "functional"

    def compute(self) -> dict:
        from golden.report.runner import output_digest
        from golden.workloads import registry
        run = registry.run_workload(registry.get(self.workload), size=self.size, seed=self.seed)
        return {"outputs_match": not run.mismatches(), "output_digest": output_digest(run.outputs)}


def jobs(opts: ReportOptions) -> list:
    """One baseline simulation per workload and configuration, and one functional run per
    workload (the reference digest)."""
    return ([TimingJob(w, cfg, size=opts.size, seed=opts.seed)
             for cfg, _ in BASELINE_CONFIGS for w in workloads_for(cfg, opts)]
            + [FunctionalJob(w, opts.size, opts.seed) for w in _workloads(opts)])


def functional_digests(results: dict, workloads, opts: ReportOptions) -> dict[str, str | None]:
    """Output digest of each workload's functional-mode run (None if it failed or is missing)."""
    out = {}
    for w in workloads:
        r = results.get(FunctionalJob(w, opts.size, opts.seed).key)
        out[w] = r.get("output_digest") if r is not None and "error" not in r else None
    return out


def render(results: dict, opts: ReportOptions) -> tuple[str, dict]:
    """Markdown tables (one per configuration) and the JSON document."""
    func = functional_digests(results, _workloads(opts), opts)
    md = ["# Baseline timing: every workload on each seed's GPU", "",
          f"Inputs: size `{opts.size}`, seed {opts.seed}. IPC = warp instructions per cycle, "
          "whole GPU. Stall columns: share of scheduler cycles by outcome (issue = an "
          "instruction issued). Energy (golden/timing/energy.py): events x per-event energy "
          "from the config YAML + SM leakage for the cycles an SM holds warps (idle SMs "
          "power-gated) + chip constant power x run time. The second table per configuration "
          "gives each component's share of total energy and the GPUWattch-comparable groups "
          "EU = alu + sfu and RF = register_file + operand_collector (GPUWattch: 24% and 16% "
          "of chip power, quoted in G-Scalar §1).", ""]
    data: dict = {"size": opts.size, "seed": opts.seed, "configs": {}}
    for cfg, seed_name in BASELINE_CONFIGS:
        rows = []
        for w in workloads_for(cfg, opts):
            r = results.get(TimingJob(w, cfg, size=opts.size, seed=opts.seed).key)
            if r is not None:
                rows.append(r)
        name = rows[0].get("config_name", cfg) if rows else cfg
        md += [f"## {name} ({seed_name} baseline)", "",
               "| workload | cycles | IPC | " + " | ".join(STALL_REASONS) +
               " | dynamic uJ | static uJ | total uJ | outputs |",
               "|---|--:|--:|" + "--:|" * len(STALL_REASONS) + "--:|--:|--:|---|"]
        n_identical = n_no_ref = 0
        table = []
        for r in rows:
            if "error" in r:
                md.append(f"| {workload_label(r['workload'])} | error: {r['error']} |" + " |" * (len(STALL_REASONS) + 5))
                table.append({"workload": r["workload"], "error": r["error"]})
                continue
            sf = r["stall_fractions"]
            e = r["energy"]
            ref = func.get(r["workload"])
            same = None if ref is None else r["output_digest"] == ref
            n_identical += bool(same)
            n_no_ref += same is None
            md.append(f"| {workload_label(r['workload'])} | {r['cycles']:,} | {r['ipc']:.2f} | "
                      + " | ".join(f"{100 * sf[k]:.0f}%" for k in STALL_REASONS)
                      + f" | {1e6 * e['dynamic_j']:.1f} | {1e6 * e['static_j']:.1f} | "
                      f"{1e6 * e['total_j']:.1f} | {_outputs(r['outputs_match'], same)} |")
            table.append({"workload": r["workload"], "cycles": r["cycles"], "ipc": r["ipc"],
                          "stall_fractions": sf, "energy": e, "outputs_match": r["outputs_match"],
                          "identical_to_functional": same,
                          "clamped_registers_from": r["timing"]["mechanism"].get(
                              "baseline.registers_clamped_from")})
        ok = [t for t in table if "error" not in t]
        if ok:
            md.append(f"| **geomean IPC** | | **{geomean(t['ipc'] for t in ok):.2f}** |"
                      + " |" * (len(STALL_REASONS) + 4))
        md += ["", f"Outputs bit-identical to the functional-mode run: {n_identical} of {len(rows)} workloads"
               + (f" ({n_no_ref} without a functional run to compare with)." if n_no_ref else ".")]
        if ok:
            md += ["", *_energy_breakdown(ok)]
        clamped = [workload_label(t["workload"]) for t in ok if t.get("clamped_registers_from")]
        if clamped:
            md += ["", f"Registers per thread lowered to fit one TB (as `__launch_bounds__` would; "
                       f"spills not modelled): {', '.join(clamped)}."]
        md.append("")
        data["configs"][cfg] = {"name": name, "seed": seed_name, "rows": table}
    return "\n".join(md) + "\n", data


def _energy_breakdown(rows: list) -> list[str]:
    """Markdown lines: each energy component's share of the total (%) and the
    GPUWattch-comparable groups, as the arithmetic mean over the workloads and their range
    (per-workload shares are in the JSON rows: ``energy.shares`` / ``energy.group_shares``)."""
    from golden.timing.energy import COMPONENTS, GROUPS
    cols = list(COMPONENTS) + [f"EU ({'+'.join(GROUPS['execution_units'])})",
                               f"RF ({'+'.join(GROUPS['register_file_with_collectors'])})"]
    per = []
    for r in rows:
        e = r["energy"]
        comps, total = e.get("components", {}), e["total_j"]
        sh = {n: (comps.get(n, {}).get("joules", 0.0) / total if total else 0.0)
              for n in COMPONENTS}
        per.append([sh[n] for n in COMPONENTS]
                   + [sum(sh[n] for n in GROUPS[g] if n in sh) for g in GROUPS])
    cols_v = list(zip(*per))
    return [f"Energy by component, % of total ({len(rows)} workloads):", "",
            "| | " + " | ".join(cols) + " |", "|---|" + "--:|" * len(cols),
            "| **mean** | " + " | ".join(f"**{100 * sum(c) / len(c):.1f}**" for c in cols_v)
            + " |",
            "| range | " + " | ".join(f"{100 * min(c):.1f}-{100 * max(c):.1f}" for c in cols_v)
            + " |"]


def _outputs(matches_reference: bool, identical: bool | None) -> str:
    """``identical``: None when the functional run is missing (a partial report) or failed."""
    if matches_reference and identical:
        return "match"
    return ("numpy ok" if matches_reference else "numpy MISMATCH") + \
        (", = functional" if identical else ", functional run missing" if identical is None
         else ", != functional")
