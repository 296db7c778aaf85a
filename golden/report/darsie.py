"""DARSIE report (issue 5 step 6; seeds 000/001): our measurements beside the paper's.

For every workload of the suite at the requested size, on the Pascal GTX1080Ti-like
configuration (``pascal``, DARSIE Table 2): the baseline and the five mechanisms
``darsie``, ``darsie-ignore-store``, ``darsie-no-cf-sync``, ``uv``, ``dac-ideal``. Rows
give instructions fetched and executed removed (%), speedup (baseline cycles / cycles),
energy reduction (total and dynamic, our energy model), DARSIE's skip-table and rename
statistics, and whether outputs stayed bit-identical to the baseline. Geometric means are
taken separately over 1D and 2D workloads (TB shape of the workload) -- removal
percentages as ``100 * (1 - geomean(new / old))``. The ablation and sensitivity grid
(SENSITIVITY) runs on the 2D and the 1D workloads; for 1D a per-workload table sets DARSIE
with one cost removed at a time beside DAC-IDEAL (issue 67 point 6, seed 001 §6.1/§6.2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from golden.report.runner import (ReportOptions, TimingJob, geomean, selects, user_workloads,
                                  workload_label)

if TYPE_CHECKING:
    from golden.workloads.base import Workload

CONFIG = "pascal"
MECHS = ("darsie", "darsie-ignore-store", "darsie-no-cf-sync", "uv", "dac-ideal")

#: The paper's published values (paper-facts 1.8).
PAPER = {
    "fetched_2d": "23% (abstract) / 17% geomean (Fig. 10 text)",
    "speedup_2d": {"darsie": 1.30, "uv": 1.02, "dac-ideal": 1.11},
    "energy": {"darsie": 25.0, "uv": 7.0, "dac-ideal": 20.0},
    "removed_dac": 11.0,
}

DIFFERENCES = """\
How our setup differs from the paper's:

* **Workloads and inputs.** Our own CUDA kernels (PTX from nvcc, `golden/workloads/`)
  stand in for the paper's SDK/Rodinia/Pannotia applications, at the input size named in
  the header: `paper` (what `make speedups` runs) gives at least two full waves of TBs on
  the 28-SM Pascal; `small` leaves most SMs with one or two TBs, so launch and tail
  effects weigh more than in the paper's full inputs.
* **PTX, not SASS/PTXPlus.** The marking runs on nvcc's PTX (virtual registers, no
  register allocation; more, simpler instructions); the paper marks register-allocated
  PTXPlus. Rename-table register names are sized to the PTX register count.
* **Timing model.** Ours (`golden/timing/`), not GPGPU-Sim 4.0, set up as the paper
  states (one warp fetched per cycle, 2-entry I-buffer, 4 GTO schedulers issuing up to 2)
  and otherwise as GPGPU-Sim 4's Pascal config (16-byte fetch, per-opcode latencies,
  sub-core RF and units, L1 bypass for global loads, perfect I-cache, memcpy-warmed L2;
  `make validate` correlates it with GPGPU-Sim); energy from the component model with
  the `pascal` YAML constants (GPUWattch/AccelWattch-derived, not GPUWattch itself).
  DARSIE's own structures (skip table, PC coalescer, rename and version tables, freelist)
  are charged per transaction by the bits searched, read and written at the 40 nm
  per-bit energy of UV's scalar RF (seed 002 Table 2; `structure_energy.yaml`), since
  the paper's CACTI numbers are not published; a CAM search bit is priced like a read
  bit, a lower bound.
* **DARSIE details the paper leaves open** (see `golden/mechanisms/darsie/skip.py`): the
  leader is the first eligible warp to *decode* a marked PC (§4.3.1) when the PC is
  certainly on its path (no unresolved branch ahead of it in the I-buffer), else the
  first to issue it; a skip-table read port is
  needed per distinct <TB, PC> per cycle (2 ports); at most 4 skips per warp per fetch
  cycle; a full table, short freelist or full rename table make the leader execute
  privately; a warp's rename entry is dropped at the register's last use (PTX liveness,
  standing in for the register reuse of the paper's register-allocated code; the
  sensitivity table shows the effect); a `bra` is a TB-wide barrier (Fig. 5) unless it
  branches forward and is unconditional or on a condition the marking proves TB-uniform
  (every majority-path warp takes it the same way, and no warp can reach a PC twice
  between barriers); warps held at a barrier keep fetching non-skippable
  instructions; warps that left the majority path rejoin it at `__syncthreads` (§4.3.3),
  which is unsound with the paper's marking as published (HS writes `%rs8` = 0 or 1 on
  the two sides of a vector branch, the join meets DR with DR, and a rejoined warp would
  copy a wrong `setp` result), so the kernel is marked with control dependence at
  reconvergence points (a register written under a non-DR branch is met with the
  branch's class at its immediate post-dominator).
* **Comparison points.** `uv` eliminates at issue instructions whose source values are
  uniform across the warp (no memory instructions); `dac-ideal` skips at fetch, once per TB
  and dynamic instance, instructions found affine per warp at run time, without
  synchronisation; `darsie-no-cf-sync` is an oracle on exact path signatures (see their
  module docstrings).
"""


#: the ``stands_for`` prefix of the paper's workloads (user workloads join with it too)
STANDS_FOR = "DARSIE"


def _workloads(opts: ReportOptions | None = None) -> list[tuple[str, Workload]]:
    """``(name, workload)`` of the DARSIE Table 1 stand-ins (13 workloads; every built-in
    with ``all_configs``), then the user workloads of ``--workloads`` standing for
    :data:`STANDS_FOR` (every one with ``all_configs``), named by reference."""
    from golden.workloads import registry
    prefix = None if opts is not None and opts.all_configs else STANDS_FOR
    return [(w.name, w) for w in registry.all_workloads().values()
            if selects(prefix, w.stands_for)] \
        + [(r, registry.get(r)) for r in user_workloads(prefix, opts)]


#: SM count of the "filled SMs" runs: the 2D workloads' small inputs on a Pascal with this
#: many SMs, so each SM holds about as many warps as the default inputs give a 28-SM GPU.
FILLED_SMS = 2


def _job(name: str, opts: ReportOptions, mech: tuple = (), sms: int | None = None,
         structures: str | None = None) -> TimingJob:
    ov = (("core.num_sms", sms),) if sms else ()
    if structures:      # energy.structures (issue 69): the only difference is the energy
        ov += (("energy.structures", structures),)
    return TimingJob(name, CONFIG, size=opts.size, seed=opts.seed, mechanisms=mech, overrides=ov)


def _filled_sms(opts: ReportOptions) -> int | None:
    """SM count of the occupancy runs (None: not run; the default inputs fill the GPU)."""
    return FILLED_SMS if opts.size == "small" else None


#: ablation and sensitivity of the renaming structures on the 2D workloads (issue 13):
#: label -> mechanism name with arguments (the paper's 32 entries are ``darsie``)
SENSITIVITY = {"32 (paper), free at last use": "darsie",
               "32, free at redefinition only": "darsie:free_dead=false",
               "64": "darsie:freelist=64,rename_entries=64",
               "256": "darsie:freelist=256,rename_entries=256",
               "1 skip-table read port": "darsie:read_ports=1",
               "4 skip-table read ports": "darsie:read_ports=4",
               "followers re-probe every cycle while LeaderWB = 0": "darsie:wait_for_wb=false",
               "leader chosen at issue, not decode": "darsie:lead_at_decode=false",
               "every bra a TB-wide barrier": "darsie:branch_sync=all",
               "warps held at a branch barrier do not fetch": "darsie:fetch_while_held=false",
               "skip-table bank replaces its LRU entry when full": "darsie:replace_when_full=true",
               "no rejoin at bar.sync (the paper's marking)": "darsie:rejoin_at_barrier=false",
               "all issue-13 fixes off (the model before)":
                   "darsie:free_dead=false,wait_for_wb=false,branch_sync=all,"
                   "fetch_while_held=false,lead_at_decode=false,rejoin_at_barrier=false",
               "DAC-IDEAL comparison point (claims each instance at fetch)": "dac-ideal",
               "DAC-IDEAL as before issue 13 (claims at issue)": "dac-ideal:claim_at_fetch=false"}


def jobs(opts: ReportOptions) -> list[TimingJob]:
    """Baseline and every DARSIE variant / comparison point on every workload, the
    renaming-structure sensitivity on the 2D workloads, plus the 2D workloads on a
    ``FILLED_SMS``-SM Pascal when inputs are small, then the sensitivity on the 1D workloads,
    DARSIE with RTL structure energies, and the 1D single changes of ``TOWARD_IDEAL_1D``."""
    variants = [()] + [(v,) for v in MECHS]
    out = [_job(n, opts, m) for n, w in _workloads(opts) for m in variants]
    out += [_job(n, opts, (m,)) for n, w in _workloads(opts) if w.dims >= 2
            for m in SENSITIVITY.values() if m not in MECHS]
    sms = _filled_sms(opts)
    if sms:
        out += [_job(n, opts, m, sms) for n, w in _workloads(opts) if w.dims >= 2 for m in variants]
    # the same grid on the 1D workloads (issue 67 point 6), appended last so every earlier
    # job keeps its key and its place
    out += [_job(n, opts, (m,)) for n, w in _workloads(opts) if w.dims < 2
            for m in SENSITIVITY.values() if m not in MECHS]
    # DARSIE with the structure energies measured on our RTL (issue 69), last for the same reason
    out += [_job(n, opts, ("darsie",), structures="rtl") for n, _w in _workloads(opts)]
    # the 1D single changes toward DAC-IDEAL (issue 67 point 6), last for the same reason
    out += [_job(n, opts, (m,)) for n, w in _workloads(opts) if w.dims < 2
            for m in TOWARD_IDEAL_1D.values()]
    return out


def _same_cell(r: dict) -> str:
    """The ``same`` column: NO if any variant's outputs differ from the baseline's, yes if
    every variant ran and matched, else how many of them have run (a partial report)."""
    vals = [r.get(f"same_{m}") for m in MECHS]
    if any(v is False for v in vals):
        return "NO"
    have = sum(v is True for v in vals)
    return "yes" if have == len(vals) else "–" if not have else f"yes ({have} of {len(vals)} run)"


def _ratio(new, old):
    return new / old if old else None


def row(base: dict, runs: dict) -> dict:
    """Values of one workload: ``fetch_<m>`` / ``exec_<m>`` (% removed), ``speedup_<m>``,
    ``energy_<m>`` / ``dyn_<m>`` (% total / dynamic energy reduction), ``same_<m>``
    (outputs bit-identical to the baseline), plus DARSIE's counters."""
    bt = base["timing"]
    out: dict = {"cycles": base["cycles"], "fetched": bt["instructions_fetched"]}
    for m, r in runs.items():
        if r is None or "error" in r:
            out[f"error_{m}"] = None if r is None else r["error"]
            continue
        t = r["timing"]
        out[f"fetch_{m}"] = _ratio(t["instructions_fetched"], bt["instructions_fetched"])
        out[f"exec_{m}"] = _ratio(t["instructions_executed"], bt["instructions_executed"])
        out[f"speedup_{m}"] = _ratio(base["cycles"], r["cycles"])
        out[f"energy_{m}"] = _ratio(r["energy"]["total_j"], base["energy"]["total_j"])
        out[f"dyn_{m}"] = _ratio(r["energy"]["dynamic_j"], base["energy"]["dynamic_j"])
        out[f"same_{m}"] = r["output_digest"] == base["output_digest"] and r["outputs_match"]
        if m == "darsie":
            mc = t["mechanism"]
            for k in ("skipped", "leader", "probes", "coalesced", "port_retries", "follower_waits",
                      "sync_points", "branch_syncs", "majority_leaves", "copyback_regs",
                      "renamed_reads", "table_full", "freelist_short", "load_drops"):
                out[f"d_{k}"] = mc.get(f"darsie.{k}", 0)
            out["d_bank_conflicts"] = t["oc_bank_conflicts"] - bt["oc_bank_conflicts"]
    return out


def _pct_removed(x):
    return None if x is None else 100.0 * (1.0 - x)


def _fmt(v, kind="pct"):
    if v is None or v != v:
        return "–"
    if kind == "pct":
        return f"{v:.1f}"
    if kind == "x":
        return f"{v:.2f}"
    return f"{v:,}"


def _geo(rows: list, key: str):
    vals = [r.get(key) for r in rows if r.get(key)]
    return geomean(vals) if vals else None


def _geomeans(rows: list) -> dict:
    """Geomean of every per-mechanism ratio over ``rows``."""
    return {k: _geo(rows, k) for k in
            [f"{p}_{m}" for p in ("fetch", "exec", "speedup", "energy", "dyn") for m in MECHS]}


def _speedups(r: dict) -> str:
    """Table cells: speedup of darsie, uv, dac-ideal, darsie-ignore-store, darsie-no-cf-sync."""
    return " | ".join(_fmt(r.get(f"speedup_{m}"), "x") for m in
                      ("darsie", "uv", "dac-ideal", "darsie-ignore-store", "darsie-no-cf-sync"))


def _why(results: dict, opts: ReportOptions, rows2d: list) -> list[str]:
    """Measured context for the 2D speedups: how issue-bound the baseline is, how much of
    its energy is static, and where DARSIE's schedulers lose cycles."""
    out = []
    for name, _r in rows2d:
        base = results.get(_job(name, opts).key)
        d = results.get(_job(name, opts, ("darsie",)).key)
        if not base or not d or "error" in d or "error" in base:
            continue
        bs, ds = base["stall_fractions"], d["stall_fractions"]
        e = base["energy"]
        out.append(f"| {workload_label(name)} | {100 * bs['issue']:.0f} | {100 * bs['memory']:.0f} | "
                   f"{100 * e['static_j'] / e['total_j']:.0f} | {100 * ds['issue']:.0f} | "
                   f"{100 * bs['no_instruction']:.0f} → {100 * ds['no_instruction']:.0f} | "
                   f"{100 * bs['barrier']:.0f} → {100 * ds['barrier']:.0f} |")
    if not out:
        return []
    return ["Why (measured, 2D): share of scheduler-cycles that issue, that wait on memory, "
            "static share of total energy, and the stall outcomes DARSIE changes (no "
            "instruction: I-buffer empty, e.g. a follower waiting for LeaderWB or a skip-table "
            "port; barrier: includes warps held at DARSIE branch/freelist synchronisation). A "
            "run whose schedulers issue in few cycles is latency-bound, so removing issued "
            "instructions cannot shorten it, and energy follows cycles when static energy "
            "dominates.", "",
            "| workload | base issue % | base memory-stall % | static energy % | DARSIE issue % | "
            "no-instruction % base → DARSIE | barrier % base → DARSIE |",
            "|---|---|---|---|---|---|---|"] + out


def structures_joules(result: dict) -> float:
    """Joules of DARSIE's own structures in one run's energy report (0 without them)."""
    from golden.timing.energy import MECHANISM_COMPONENT
    comps = result["energy"].get("components", {})
    c = comps.get(MECHANISM_COMPONENT) if isinstance(comps, dict) else next(
        (x for x in comps if x["name"] == MECHANISM_COMPONENT), None)
    return c["joules"] if c else 0.0


#: DARSIE's structures in the order of the RTL-energy table
_STRUCTS = ("skip_table", "pc_coalescer", "version_table", "rename_table", "phys_freelist")


def _rtl_energy(results: dict, opts: ReportOptions, names: list) -> list[str]:
    """DARSIE's structure energy priced by the paper-derived per-bit constants (the
    ``darsie`` run) and by the energies measured on our RTL (the same run with
    ``energy.structures: rtl``): per workload, and per structure over all workloads."""
    from golden.mechanisms.darsie.structure_energy import RTL_CHARGES
    out = ["### DARSIE structure energy: paper constants vs RTL-measured (issue 69)", "",
           "Each workload's `darsie` run priced twice. *papers*: every access at the per-bit "
           "energy of UV's 40 nm scalar RF (seed 002 Table 2; `structure_energy.yaml`); "
           "*RTL*: `energy.structures: rtl`, the skip table, version table and PC coalescer "
           "charged per access at the energy of that operation type measured on our RTL on "
           "real-kernel traces (OpenSTA on osu018, scaled to 16 nm; "
           "golden/timing/rtl_energy.yaml), the rename table and physical-register freelist "
           "(no trace energy at their synthesised sizes) as in *papers*. Structures: % of "
           "the run's dynamic energy (the paper: 0.95%); energy −%: total energy reduction "
           "vs the baseline. Cycles: the two runs' cycles (must be equal).", "",
           "| workload | cycles papers / RTL | structures µJ papers | RTL | structures % dyn "
           "papers | RTL | energy −% papers | RTL |", "|---|---|--:|--:|--:|--:|--:|--:|"]
    per = {s: [0.0, 0.0] for s in _STRUCTS}
    pct_p, pct_r, n = [], [], 0
    for name in names:
        base = results.get(_job(name, opts).key)
        p = results.get(_job(name, opts, ("darsie",)).key)
        r = results.get(_job(name, opts, ("darsie",), structures="rtl").key)
        if not all(x and "error" not in x for x in (base, p, r)):
            continue
        n += 1
        jp, jr = structures_joules(p), structures_joules(r)
        dp, dr = p["energy"]["dynamic_j"], r["energy"]["dynamic_j"]
        pct_p.append(100.0 * jp / dp if dp else 0.0)
        pct_r.append(100.0 * jr / dr if dr else 0.0)
        for s in _STRUCTS:
            per[s][0] += p["timing"]["mechanism"].get(f"darsie.energy_pj.{s}", 0.0)
            per[s][1] += r["timing"]["mechanism"].get(f"darsie.energy_pj.{s}", 0.0)
        same = "same" if p["cycles"] == r["cycles"] else "DIFFER"
        out.append(f"| {workload_label(name)} | {p['cycles']:,} / {r['cycles']:,} ({same}) | {jp * 1e6:.3f} | "
                   f"{jr * 1e6:.3f} | {pct_p[-1]:.2f} | {pct_r[-1]:.2f} | "
                   f"{_fmt(_pct_removed(_ratio(p['energy']['total_j'], base['energy']['total_j'])))} | "
                   f"{_fmt(_pct_removed(_ratio(r['energy']['total_j'], base['energy']['total_j'])))} |")
    if not n:
        return out + ["| (not run) | | | | | | | |", ""]
    out.append(f"| **mean** | | | | **{sum(pct_p) / n:.2f}** | **{sum(pct_r) / n:.2f}** | | |")
    out += ["", f"Per structure, summed over the {n} workloads (µJ; RTL: the operation types "
            "charged):", "", "| structure | papers | RTL-measured | RTL charges |",
            "|---|--:|--:|---|"]
    for s in _STRUCTS:
        charges = RTL_CHARGES.get(s)
        how = (", ".join(f"{m} = {c.op}" for m, c in charges.items()) if charges
               else "no trace energy: papers' per-bit constants")
        out.append(f"| {s} | {per[s][0] * 1e-6:.3f} | {per[s][1] * 1e-6:.3f} | {how} |")
    return out + [""]


def _sensitivity(results: dict, opts: ReportOptions, names: list,
                 dims: int = 2) -> tuple[list[str], dict]:
    """Geomean over the ``dims``-D workloads ``names`` of each renaming-structure variant
    (SENSITIVITY): speedup, fetched instructions removed, and how often a leader found the
    freelist short or the rename table full (then it executes privately)."""
    out = [f"### Renaming structures: ablation and sensitivity ({dims}D workloads)", "",
           "Freelist and rename table entries per TB (the paper: 32 each), with and without "
           "freeing a version at the register's last use (PTX registers are virtual and never "
           "reused, so without it dead versions stay renamed until the warp exits), and one "
           "skip-table read port instead of two, and followers that re-probe the skip table "
           "every cycle while the leader has not written back (instead of waiting for the "
           "writeback); then the other modelling fixes of issue 13 one at a time (the leader "
           "chosen at issue instead of decode, every `bra` a barrier, held warps that stop "
           "fetching) and all of them off. Short / full: leaders that found the freelist "
           "short or the rename table full and executed privately (sum over the workloads); "
           "private: eligible warps that executed a marked PC themselves; structures: "
           "DARSIE's own structures' energy in % of the run's dynamic energy (mean; the paper: "
           "0.95%). `darsie`, same workloads: the geomean speedup of the default `darsie` "
           "over the workloads of that row, so a row that covers only some of them (in the "
           "middle of a campaign) is still compared like with like.", "",
           "| variant | speedup (geomean) | `darsie`, same workloads | fetched −% (geomean) | "
           "freelist short | rename full | private | structures % dyn | workloads | "
           "outputs identical |",
           "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    data: dict = {}
    for label, mech in SENSITIVITY.items():
        sp, fetch, short, full, same, n, priv, own = [], [], 0, 0, True, 0, 0, []
        ref: list | None = []       # plain darsie on the same workloads (None: one is missing)
        for name in names:
            base = results.get(_job(name, opts).key)
            r = results.get(_job(name, opts, (mech,)).key)
            if not base or not r or "error" in base or "error" in r:
                continue
            n += 1
            sp.append(base["cycles"] / r["cycles"])
            d = results.get(_job(name, opts, ("darsie",)).key)
            if ref is not None and d and "error" not in d:
                ref.append(base["cycles"] / d["cycles"])
            else:
                ref = None
            fetch.append(r["timing"]["instructions_fetched"] / base["timing"]["instructions_fetched"])
            m = r["timing"]["mechanism"]
            short += m.get("darsie.freelist_short", 0)
            full += m.get("darsie.rename_full", 0)
            priv += m.get("darsie.private_redundant", 0)
            if r["energy"]["dynamic_j"]:
                own.append(100.0 * structures_joules(r) / r["energy"]["dynamic_j"])
            same &= r["output_digest"] == base["output_digest"] and r["outputs_match"]
        g, gf = geomean(sp), geomean(fetch)
        g_ref = geomean(ref) if ref else None
        own_pct = sum(own) / len(own) if own else None
        data[label] = {"mechanism": mech, "speedup": g, "darsie_same_workloads": g_ref,
                       "fetch_ratio": gf, "freelist_short": short,
                       "rename_full": full, "private_redundant": priv,
                       "structures_pct_dynamic": own_pct, "workloads": n,
                       "outputs_identical": same}
        if not n:   # not run yet: no counts, and no verdict on outputs
            data[label]["outputs_identical"] = None
            out.append(f"| {label} (`{mech}`) | – | – | – | – | – | – | – | 0 | not run |")
            continue
        out.append(f"| {label} (`{mech}`) | {_fmt(g, 'x')} | {_fmt(g_ref, 'x')} | "
                   f"{_fmt(_pct_removed(gf))} | "
                   f"{short:,} | {full:,} | {priv:,} | {'–' if own_pct is None else f'{own_pct:.2f}'} | {n} | "
                   f"{'yes' if same else 'NO'} |")
    return out + [""], data


#: the 1D per-workload grid (issue 67 point 6): DARSIE, the comparison points that
#: remove all of DARSIE's synchronisation (``darsie-no-cf-sync``) or all of its structures
#: and synchronisation (``dac-ideal``), then SENSITIVITY's single changes
GRID_1D = {"DARSIE (paper sizes)": "darsie",
           "DAC-IDEAL": "dac-ideal",
           "DARSIE-NO-CF-SYNC (no synchronisation, oracle paths)": "darsie-no-cf-sync",
           "DARSIE-IGNORE-STORE": "darsie-ignore-store"}

#: single changes run on the 1D workloads only, each taking DARSIE one step toward
#: DAC-IDEAL's idealisation or DAC-IDEAL one step toward DARSIE (issue 67 point 6). The
#: skip table is enlarged to 16 entries per TB, not 32: the compiled skip table
#: (``skip_table_fast``) reports an empty 32- or 64-entry bank full (a 32-bit shift), so
#: ``darsie:entries=32`` skips nothing.
TOWARD_IDEAL_1D = {
    "skip table 16 entries per TB": "darsie:entries=16",
    "every DARSIE structure enlarged (freelist/rename 256, 4 read ports, 16 entries)":
        "darsie:freelist=256,rename_entries=256,read_ports=4,entries=16",
    "DAC-IDEAL, a skipping warp waits for the claimant's writeback":
        "dac-ideal:wait_for_claimant=true"}


def _grid_1d(results: dict, opts: ReportOptions, names: list) -> tuple[list[str], dict]:
    """Per 1D workload, the speedup of DARSIE, DAC-IDEAL and each variant that removes one
    of DARSIE's costs (SENSITIVITY), with the leaders that found the freelist short and the
    branch barriers taken, so the cost that separates DARSIE from DAC-IDEAL shows per
    workload (seed 001 §6.1: in 1D the two tie)."""
    variants = {**GRID_1D, **{k: v for k, v in SENSITIVITY.items() if v not in GRID_1D.values()},
                **TOWARD_IDEAL_1D}
    cols = []
    for name in names:
        base = results.get(_job(name, opts).key)
        if base and "error" not in base:
            cols.append((name, base))
    if not cols:
        return [], {}
    out = ["### DARSIE against DAC-IDEAL on the 1D workloads, one cost removed at a time", "",
           "Speedup over the baseline per 1D workload (the paper: DAC-IDEAL ≈ DARSIE in 1D, "
           "§6.1). Each row below the comparison points changes one DARSIE switch from the "
           "default `darsie` (see the sensitivity table for what each does); `short` = "
           "leaders that found the freelist short and executed privately, `syncs` = "
           "TB-wide branch barriers plus freelist synchronisation entries (sums over the "
           "workloads). `–`: not run.", "",
           "| variant | " + " | ".join(workload_label(n) for n, _ in cols) + " | geomean | short | syncs |",
           "|---|" + "--:|" * (len(cols) + 3)]
    data: dict = {}
    for label, mech in variants.items():
        cells, sp, short, syncs, row_d = [], [], 0, 0, {}
        for name, base in cols:
            r = results.get(_job(name, opts, (mech,)).key)
            if not r or "error" in r:
                cells.append("–")
                continue
            x = base["cycles"] / r["cycles"]
            sp.append(x)
            row_d[name] = x
            m = r["timing"]["mechanism"]
            short += m.get("darsie.freelist_short", 0)
            syncs += m.get("darsie.branch_syncs", 0) + m.get("darsie.sync_points", 0)
            same = r["output_digest"] == base["output_digest"] and r["outputs_match"]
            cells.append(_fmt(x, "x") + ("" if same else " (outputs differ)"))
        g = geomean(sp) if len(sp) == len(cols) else None
        data[label] = {"mechanism": mech, "speedup": row_d, "geomean": g,
                       "freelist_short": short, "syncs": syncs}
        counts = f"{short:,} | {syncs:,}" if row_d else "– | –"   # not run: no counts
        out.append(f"| {label} (`{mech}`) | " + " | ".join(cells) +
                   f" | {_fmt(g, 'x')} | {counts} |")
    return out + [""], data


def _filled(results: dict, opts: ReportOptions, names: list) -> tuple[list[str], dict]:
    """The 2D workloads again on a ``FILLED_SMS``-SM Pascal (same inputs): how the
    speedups change when each SM has enough warps to hide DARSIE's waits."""
    sms = _filled_sms(opts)
    if not sms:
        return [], {}
    rows, table = [], []
    for name in names:
        base = results.get(_job(name, opts, (), sms).key)
        if base is None or "error" in base:
            continue
        r = row(base, {m: results.get(_job(name, opts, (m,), sms).key) for m in MECHS})
        full = results.get(_job(name, opts).key)
        r["warps_per_sm"] = _resident_warps(base)
        r["warps_per_sm_full_gpu"] = _resident_warps(full) if full and "error" not in full else None
        rows.append(r)
        table.append((name, r))
    if not rows:
        return [], {}
    out = [f"### Filled SMs: the same 2D runs on a {sms}-SM Pascal", "",
           f"The small inputs leave most of the 28 SMs with one or two TBs, so few warps hide a "
           f"follower's LeaderWB wait or a TB-wide branch synchronisation. Here the same inputs "
           f"run on `{CONFIG}` with `core.num_sms = {sms}` (everything else unchanged), so each SM "
           f"holds tens of warps, as the paper's full-size inputs give a full GPU. Warps/SM = "
           f"mean resident warps of an active SM (baseline run), 28 SMs → {sms} SMs.", "",
           "| workload | warps/SM | fetched −% D | speedup D | UV | DAC-IDEAL | IGN-STORE | "
           "NO-CF-SYNC | energy −% D | same |", "|" + "---|" * 10]
    for name, r in table:
        same = _same_cell(r)
        wf = r["warps_per_sm_full_gpu"]
        out.append(
            f"| {workload_label(name)} | {_fmt(wf, 'x') if wf else '–'} → {_fmt(r['warps_per_sm'], 'x')} | "
            f"{_fmt(_pct_removed(r.get('fetch_darsie')))} | {_speedups(r)} | "
            f"{_fmt(_pct_removed(r.get('energy_darsie')))} | {same} |")
    g = _geomeans(rows)
    out.append(
        f"| **geomean 2D** | | {_fmt(_pct_removed(g['fetch_darsie']))} | {_speedups(g)} | "
        f"{_fmt(_pct_removed(g['energy_darsie']))} | |")
    out.append("| *paper 2D* | | 23 / 17 | 1.30 | 1.02 | 1.11 | ≈ DARSIE | figure only | 25 | |")
    sp = g.get("speedup_darsie") or 0
    beats = [m for m in ("uv", "dac-ideal") if sp > (g.get(f"speedup_{m}") or 0)]
    out += ["", f"With filled SMs DARSIE's 2D geomean speedup is {_fmt(sp, 'x')}; it beats "
            f"{' and '.join(beats) if beats else 'neither UV nor DAC-IDEAL'}"
            f"{'' if len(beats) == 2 else ' (not both, unlike the paper)'}. "
            f"`darsie-no-cf-sync` (the same skipping without DARSIE's synchronisation) reaches "
            f"{_fmt(g.get('speedup_darsie-no-cf-sync'), 'x')}: the gap between the two is what "
            f"branch synchronisation and LeaderWB waits cost in our model.", ""]
    return out, {"num_sms": sms, "workloads": dict(table), "geomean": g}


def _resident_warps(r: dict) -> float | None:
    """Mean resident warps of an SM that has any (over its active cycles)."""
    t = r["timing"]
    return t["resident_warp_cycles"] / t["sm_cycles"] if t.get("sm_cycles") else None


def render(results: dict, opts: ReportOptions) -> tuple[str, dict]:
    """Markdown tables and a JSON-ready dict of every value."""
    data: dict = {"config": CONFIG, "size": opts.size, "seed": opts.seed, "workloads": {}}
    groups: dict = {1: [], 2: []}
    for name, w in _workloads(opts):
        base = results.get(_job(name, opts).key)
        if base is None or "error" in base:
            continue
        runs = {m: results.get(_job(name, opts, (m,)).key) for m in MECHS}
        r = row(base, runs)
        r["dims"] = 2 if w.dims >= 2 else 1
        r["tb"] = list(w.tb_dims)
        data["workloads"][name] = r
        groups[r["dims"]].append((name, r))

    lines = ["## DARSIE (seeds 000/001): instructions removed, speedup, energy", "",
             f"Configuration `{CONFIG}`, size `{opts.size}`, seed {opts.seed}. Removed = % of the "
             "baseline's warp instructions; speedup = baseline cycles / cycles; energy = % "
             "reduction of total (dynamic) energy. `same` = outputs bit-identical to the baseline.",
             ""]
    head = ("| workload | TB | fetched −% D | executed −% D | speedup D | UV | DAC-IDEAL | "
            "IGN-STORE | NO-CF-SYNC | energy −% D | UV | DAC | same |")
    sep = "|" + "---|" * 13
    geo: dict = {}
    for dims in (2, 1):
        lines += [f"### {dims}D workloads", "", head, sep]
        rows = [r for _, r in groups[dims]]
        for name, r in groups[dims]:
            same = _same_cell(r)
            lines.append(
                f"| {workload_label(name)} | {tuple(r['tb'][:2])} | {_fmt(_pct_removed(r.get('fetch_darsie')))} | "
                f"{_fmt(_pct_removed(r.get('exec_darsie')))} | {_speedups(r)} | "
                f"{_fmt(_pct_removed(r.get('energy_darsie')))} ({_fmt(_pct_removed(r.get('dyn_darsie')))}) | "
                f"{_fmt(_pct_removed(r.get('energy_uv')))} | {_fmt(_pct_removed(r.get('energy_dac-ideal')))} | "
                f"{same} |")
        g = _geomeans(rows)
        geo[dims] = g
        # a partial report (some workloads not yet run) says over how many the geomean is
        have = sum(r.get("speedup_darsie") is not None for r in rows)
        of = "" if have == len(rows) else f" ({have} of {len(rows)})"
        lines.append(
            f"| **geomean {dims}D**{of} | | {_fmt(_pct_removed(g['fetch_darsie']))} | "
            f"{_fmt(_pct_removed(g['exec_darsie']))} | {_speedups(g)} | "
            f"{_fmt(_pct_removed(g['energy_darsie']))} ({_fmt(_pct_removed(g['dyn_darsie']))}) | "
            f"{_fmt(_pct_removed(g['energy_uv']))} | {_fmt(_pct_removed(g['energy_dac-ideal']))} | |")
        if dims == 2:
            lines.append(
                f"| *paper 2D* | | {PAPER['fetched_2d']} | same | 1.30 | 1.02 | 1.11 | "
                f"≈ DARSIE | figure only | 25 | 7 | 20 | |")
        else:
            lines.append("| *paper 1D* | | figure only | | figure only | | ≈ DARSIE | | | | | | |")
        lines.append("")
    g2 = geo[2]
    lines += ["### Comparison points on 2D workloads (geomean)", "",
              "| mechanism | fetched −% | executed −% | speedup | energy −% (dynamic) | paper speedup | paper energy −% |",
              "|---|---|---|---|---|---|---|"]
    for m in MECHS:
        ps = PAPER["speedup_2d"].get(m)
        pe = PAPER["energy"].get(m)
        lines.append(f"| {m} | {_fmt(_pct_removed(g2[f'fetch_{m}']))} | {_fmt(_pct_removed(g2[f'exec_{m}']))} | "
                     f"{_fmt(g2[f'speedup_{m}'], 'x')} | {_fmt(_pct_removed(g2[f'energy_{m}']))} "
                     f"({_fmt(_pct_removed(g2[f'dyn_{m}']))}) | {ps if ps else '–'} | {pe if pe else '–'} |")
    lines += _rtl_energy(results, opts, [n for d in (2, 1) for n, _ in groups[d]])
    lines += ["", "### DARSIE structure statistics (variant `darsie`)", "",
              "| workload | skipped | leaders | probes | coalesced | port retries | LeaderWB waits | "
              "freelist syncs | branch syncs | majority leaves | copy-back regs | renamed reads | "
              "extra bank conflicts | table full | freelist short | load drops |",
              "|" + "---|" * 16]
    for dims in (2, 1):
        for name, r in groups[dims]:
            if "d_skipped" not in r:
                continue
            keys = ("skipped", "leader", "probes", "coalesced", "port_retries", "follower_waits",
                    "sync_points", "branch_syncs", "majority_leaves", "copyback_regs",
                    "renamed_reads", "bank_conflicts", "table_full", "freelist_short", "load_drops")
            lines.append(f"| {workload_label(name)} | " + " | ".join(_fmt(r[f'd_{k}'], 'n') for k in keys) + " |")
    sp = g2.get("speedup_darsie")
    verdict = ("DARSIE beats UV and DAC-IDEAL on 2D geomean speedup in our model."
               if sp and sp > (g2.get("speedup_uv") or 0) and sp > (g2.get("speedup_dac-ideal") or 0)
               else "In our model DARSIE does **not** beat both UV and DAC-IDEAL on 2D geomean "
                    "speedup; see the structure statistics (LeaderWB waits, branch syncs, freelist "
                    "syncs, port retries) for where its removed instructions are paid back.")
    lines += ["", verdict, ""]
    lines += _why(results, opts, groups[2])
    sens_lines, sens = _sensitivity(results, opts, [n for n, _ in groups[2]])
    lines += sens_lines
    data["sensitivity"] = sens
    sens1_lines, sens1 = _sensitivity(results, opts, [n for n, _ in groups[1]], dims=1)
    lines += sens1_lines
    data["sensitivity_1d"] = sens1
    grid_lines, grid = _grid_1d(results, opts, [n for n, _ in groups[1]])
    lines += grid_lines
    if grid:
        data["grid_1d"] = grid
    filled_lines, filled = _filled(results, opts, [n for n, _ in groups[2]])
    lines += filled_lines
    lines += ["", DIFFERENCES]
    data["geomean"] = {f"{d}D": g for d, g in geo.items()}
    if filled:
        data["filled_sms"] = filled
    data["paper"] = PAPER
    return "\n".join(lines), data
