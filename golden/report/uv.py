"""Uniform-vector report (issue 14; seed 002 ch. 2, §2.6): the token and SRF designs,
intra-warp / inter-warp (IRB) / combined, beside the chapter's numbers.

Sections, all on ``gtx285`` (UV Table 1: 30 SMs, NumSP = 8, one scheduler):

0. **Redundancy limit study** (§2.2, Fig. 2): functional runs with
   :mod:`golden.mechanisms.uv.limit_study` (:class:`LimitJob`).
1. **Performance and energy** (§2.6.1-§2.6.2): speedup (baseline cycles / cycles) and
   total-energy reduction of ``uv-token[-intra|-inter]`` and ``uv-srf[-intra|-inter]``,
   with the dynamic-energy reduction of the combined designs.
2. **IRB size** (§2.6.3): token, combined, 2 / 4 / 8 / 16 entries.
3. **SRF size** (§2.6.3): SRF, combined, 16 to 256 entries.
4. **NumSP = 16** (§2.6.3): 15 SMs of 16 SPs, token combined over its own baseline.
5. **Reliability** (§2.6.4): ALU coverage and the energy overhead of dual-lane
   execution, the second copy and IRB parity; copy-on-write frequency.
6. **SRF: PTX registers vs parameter constants** (issue 67.4): ``uv-srf`` (parameter-
   derived registers are constant operands, as SASS reads kernel parameters from a
   constant bank: the default) beside ``uv-srf:param_constants=false`` (as PTX sees it:
   every ``ld.param`` result and pointer derived from it takes an SRF entry), with the
   structural hazards of each.

Energy = the baseline model's energy of the run (which already sees fewer RF accesses and
ALU lanes) + the UV structures' terms (:mod:`golden.mechanisms.uv.energy`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

from golden.report.present.cells import outputs_verdict
from golden.report.runner import (ReportOptions, TimingJob, WorkloadProbe, geomean,
                                  same_outputs, speedup_sweep, standing_for, succeeded, workload_label)

CONFIG = "gtx285"
#: the ``stands_for`` prefix of the paper's workloads (user workloads join with it too)
STANDS_FOR = "UV"
#: 15 SMs x 16 SPs (§2.6.3: the same ALU-to-memory ratio)
SP16 = (("core.num_sms", 15), ("pipelines.alu.simd_width", 16), ("pipelines.mem.simd_width", 16))
#: label -> mechanism name
VARIANTS = {"token intra": "uv-token-intra", "token inter": "uv-token-inter",
            "token combined": "uv-token", "SRF intra": "uv-srf-intra",
            "SRF inter": "uv-srf-inter", "SRF combined": "uv-srf"}
#: the chapter's geometric-mean performance gains and total-energy savings (§2.6.1-2), %
PAPER_PERF = {"token intra": 7.4, "token inter": 8.1, "token combined": 12.0,
              "SRF intra": 6.7, "SRF inter": 7.2, "SRF combined": 10.7}
PAPER_ENERGY = {"token intra": 9.8, "token inter": 8.0, "token combined": 12.7,
                "SRF intra": 10.3, "SRF inter": 7.6, "SRF combined": 12.2}
PAPER_DYNAMIC = {"token combined": 13.6, "SRF combined": 14.7}
#: Table 3: the chapter's baseline IPC (thread instructions per cycle, peak 240)
PAPER_IPC = {"NQU": 89.3, "VA": 207.5, "FFT": 164.1, "CONV": 220.2, "BFS": 12.2, "MM": 135.2,
             "MT": 122.9, "SP": 177.1, "RAY": 193.6, "DT": 215.6, "HT": 169.8, "HS": 182.3,
             "PF": 209.0}
IRB_SIZES = (2, 4, 8, 16)
PAPER_IRB = {2: 10.8, 4: 11.5, 8: 12.0, 16: 12.3}
SRF_SIZES = (16, 32, 64, 128, 256)
PAPER_SP16 = 8.5
#: §2.6.4: ALU coverage (token 21.1%, SRF 19.5% inferred), total-energy overhead
PAPER_RELIABILITY = {"token": {"alu_coverage": 21.1, "vrf_coverage": 14.1,
                               "energy_overhead": 0.14},
                     "SRF": {"alu_coverage": 19.5, "energy_overhead": 0.08}}

DIFFERENCES = """\
How our setup differs from the chapter's:

* **Workloads and inputs.** Our own CUDA kernels stand in for the 13 of Table 3, at the
  input size in the header (`paper`: at least two waves of TBs on this GPU; Table 3's
  inputs where that fits the time budget, see `simtlab list`). MT generates far fewer
  numbers than the chapter's 48 M.
* **PTX instead of SASS.** PTX registers are virtual and never reused: the SRF design
  frees a mapping at the register's death (liveness, full-mask instructions only)
  instead of at its redefinition by register-allocated code. Our PTX has 64-bit
  addresses where GT200's SASS has 32-bit ones, so the IRB's values are 64-bit here
  (the synth row keeps the chapter's 32-bit entry). The IRB opcode is an 8-bit hash of the
  PTX operation; the partial PC is the instruction index's low 10 bits.
* **Detection.** Thread-independent special registers are `%ctaid`, `%ntid`, `%nctaid`,
  `%smid`, `%nsmid`, `%gridid`, `%warpid`, `%nwarpid` (not clocks); `%tid` never counts,
  even in a dimension of size 1. The broadcast path sets a token for loads whose active
  lanes (all 32) read one global, shared or constant address, and for `.param` loads.
  Copy-on-write follows the safe rule: a copy before *any* divergent write to a uniform
  register. A copy occupies one vector-pipeline slot ahead of the instruction.
* **Inter-only SRF.** A uniform instruction that misses in the IRB runs as a vector and
  its destination is not mapped (the token design still sets its token).
* **PTX registers in the VRF.** Kernel parameters, pointers derived from them and loop
  bounds are registers in PTX (GT200's SASS reads parameters as shared/constant operands),
  so more long-lived uniform registers compete for the SRF and count as live in the VRF
  coverage.
* **Small inputs underfill the GPU** (e.g. RAY small is 1.07 waves, HS 0.6): a run's end
  is set by its slowest TBs, so a few percent of changed interleaving moves cycles by
  more than the mechanism does (non-monotonic size sweeps; BFS, a racy kernel, also
  executes slightly different work per interleaving). Compare at `default` or `paper`.
* **Energy.** Our component model at 40 nm with Table 2's VRF/SRF constants, plus IRB
  estimates (golden/mechanisms/uv/energy.py); GPUWattch/McPAT are not run.
* **VRF coverage** is sampled at every issued instruction (live registers of the issuing
  warp at that PC, from PTX liveness, and how many are held in two copies); the chapter
  does not say how it samples.
"""


#: the chapter's Fig. 2 (§2.2): geometric mean / average and maximum, %
PAPER_LIMIT = {"intra": (18.1, 41.5), "inter": (8.9, 28.5), "combined": (18.4, 42.4)}


@dataclass(frozen=True)
class LimitJob(WorkloadProbe):
    """The Fig. 2 redundancy limit study of one workload (a functional run)."""

    KIND: ClassVar[str] = "uv-limit"

    def compute(self) -> dict:
        from golden.mechanisms.uv.limit_study import study_workload
        return study_workload(self.workload, self.size, self.seed)


def _paper_ipc(w: str):
    """Table 3's baseline IPC of stand-in ``w``; a paper-specific version (MM-UV) by its
    base's name; '' for a benchmark Table 3 does not list."""
    from golden.workloads import registry
    known = registry.all_workloads().get(w)
    base = known.variant_of if known is not None and known.variant_of else w
    return PAPER_IPC.get(base, "")


def _workloads(opts: ReportOptions) -> list[str]:
    """The paper's stand-ins, then the user workloads of ``--workloads`` whose
    ``stands_for`` begins with :data:`STANDS_FOR`."""
    return standing_for(STANDS_FOR, opts)


def _job(w: str, opts: ReportOptions, mech: str | None = None, overrides=()) -> TimingJob:
    return TimingJob(w, CONFIG, size=opts.size, seed=opts.seed,
                     mechanisms=(mech,) if mech else (), overrides=tuple(overrides))


def _irb_job(w, opts, n):
    return _job(w, opts, "uv-token" if n == 8 else f"uv-token:irb_entries={n}")


def _srf_job(w, opts, n):
    return _job(w, opts, "uv-srf" if n == 128 else f"uv-srf:srf_entries={n}")


def _rel_job(w, opts, design):
    return _job(w, opts, f"uv-{design.lower()}:reliability=true")


def jobs(opts: ReportOptions) -> list[TimingJob]:
    out = []
    for w in _workloads(opts):
        out.append(LimitJob(w, opts.size, opts.seed))
        out.append(_job(w, opts))
        out += [_job(w, opts, m) for m in VARIANTS.values()]
        out += [_irb_job(w, opts, n) for n in IRB_SIZES]
        out += [_srf_job(w, opts, n) for n in SRF_SIZES]
        out += [_job(w, opts, None, SP16), _job(w, opts, "uv-token", SP16)]
        out += [_rel_job(w, opts, d) for d in ("token", "SRF")]
        out.append(_job(w, opts, PTX_REGISTERS))
    return out


#: the SRF design with parameter-derived registers in the SRF, as PTX has them (issue 67.4;
#: ``uv-srf`` treats them as constant operands)
PTX_REGISTERS = "uv-srf:param_constants=false"


def _param_constants(results, opts, names, md, data) -> None:
    md += ["## SRF: PTX registers vs parameter constants (issue 67.4)", "",
           f"`{PTX_REGISTERS}` keeps every uniform register in the SRF, including what our "
           "PTX loads with `ld.param` and computes from parameters and launch constants "
           "alone; `uv-srf` (the default, `param_constants`) treats those as constant "
           "operands that hold no SRF entry (golden/mechanisms/uv/register_class.py), as a "
           "design reading SASS would. SRF full = uniform instructions that found the free "
           "list too short.", "",
           "| workload | SRF (PTX) | SRF (param constants) | SRF full (PTX) | "
           "SRF full (param constants) | outputs |", "|---|--:|--:|--:|--:|---|"]
    cols = {"ptx": [], "const": []}
    rows = []
    for w in names:
        base = results.get(_job(w, opts).key)
        runs = {"ptx": results.get(_job(w, opts, PTX_REGISTERS).key),
                "const": results.get(_job(w, opts, "uv-srf").key)}
        if not succeeded(base) or not all(succeeded(r) for r in runs.values()):
            md.append(f"| {workload_label(w)} | missing or error | | | | |")
            continue
        same = all(same_outputs(r, base) for r in runs.values())
        row = {"workload": w, "outputs_identical": same}
        for k, r in runs.items():
            row[k] = {"speedup": base["cycles"] / r["cycles"],
                      "srf_full": _mech(r).get("uv.srf_full", 0)}
            cols[k].append(row[k]["speedup"])
        rows.append(row)
        md.append(f"| {workload_label(w)} | {row['ptx']['speedup']:.3f} | {row['const']['speedup']:.3f} | "
                  f"{row['ptx']['srf_full']:,} | {row['const']['srf_full']:,} | "
                  f"{'match' if same else 'DIFFER'} |")
    gm = {k: geomean(v) for k, v in cols.items()}
    md += [f"| **geomean** | **{gm['ptx']:.3f}** | **{gm['const']:.3f}** | | | |",
           f"| paper (SRF combined) | {1 + PAPER_PERF['SRF combined'] / 100:.3f} | | | | |", ""]
    data["param_constants"] = {"rows": rows, "geomean_speedup": gm}


def _mech(r) -> dict:
    return r["timing"]["mechanism"]


@functools.lru_cache(maxsize=None)
def _config(name: str, overrides: tuple):
    from golden.configs import load_config
    return load_config(name, dict(overrides) if overrides else None)


def energy_j(r, structures: str | None = None) -> tuple[float, float]:
    """(total, dynamic) joules of a run: the baseline model's plus the UV structures',
    priced as ``structures`` says (``papers`` / ``rtl``; None: the run's configuration)."""
    from golden.mechanisms.uv.energy import energy_params, uv_energy
    from golden.timing.rtl_energy import with_structures
    e = r["energy"]
    mechs = r.get("mechanisms") or ()
    if not mechs:
        return e["total_j"], e["dynamic_j"]
    cfg = _config(r["config"], tuple(tuple(o) for o in r.get("overrides") or ()))
    if structures is not None:
        cfg = with_structures(cfg, structures)
    name = mechs[0]
    extra = uv_energy(_mech(r), sm_cycles=r["timing"]["sm_cycles"],
                      clock_mhz=cfg.core.clock_mhz, rf_write_pj=cfg.energy.rf_write.pj,
                      design="srf" if name.startswith("uv-srf") else "token",
                      irb="intra" not in name, params=energy_params(cfg))
    return e["total_j"] + extra["dynamic"] + extra["static"], e["dynamic_j"] + extra["dynamic"]


class _RTLEnergy:
    """Energy ratios of the same runs priced with ``energy.structures: rtl`` (the table's
    absence or a missing entry is kept as ``error`` and shown, not raised)."""

    def __init__(self):
        self.error = None
        self.ratio = {}
        self.dyn = {}
        self._base = None

    def base(self, r) -> None:
        self._base = self._price(r)

    def _price(self, r):
        from golden.errors import ConfigError
        if self.error is not None:
            return None
        try:
            return energy_j(r, "rtl")
        except ConfigError as exc:
            self.error = str(exc)
            return None

    def add(self, v: str, r) -> None:
        e = self._price(r)
        if e is None or self._base is None:
            return
        self.ratio.setdefault(v, []).append(e[0] / self._base[0])
        if v in PAPER_DYNAMIC:
            self.dyn.setdefault(v, []).append(e[1] / self._base[1])

    def geomeans(self) -> tuple[dict, dict]:
        if self.error is not None:
            return {}, {}
        return ({v: geomean(x) for v, x in self.ratio.items()},
                {v: geomean(x) for v, x in self.dyn.items()})

    @staticmethod
    def describe() -> str:
        from golden.mechanisms.uv.energy import RTL_CHARGES, UVEnergyParams
        from golden.timing.rtl_energy import load_rtl_energy
        t = load_rtl_energy()
        p = UVEnergyParams()
        return "; ".join(f"{k.replace('_pj', '')}: {getattr(p, k):g} pJ (papers) vs "
                         f"{t.per_access_pj(c):.3g} pJ RTL ({c}, "
                         f"{t.pj_180nm(c):.3g} pJ at 180 nm)" for k, c in RTL_CHARGES.items())


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:+.1f}%"


def _limit(results, opts, names, md, data) -> None:
    md += ["## Redundancy limit study (§2.2, Fig. 2)", "",
           "Redundant scalar operations / dynamic scalar instructions, by value in functional "
           "runs (golden/mechanisms/uv/limit_study.py): intra = 31 per full-mask instance whose "
           "sources are uniform; inter = 32 per such instance whose scalar sources an earlier "
           "instance by another warp of the launch had (inter (TB): another warp of the same "
           "TB); combined = intra + 1 per inter instance.", "",
           "| workload | intra | inter | inter (TB) | combined | outputs |",
           "|---|--:|--:|--:|--:|---|"]
    cols = {k: [] for k in ("intra", "inter", "inter_tb", "combined")}
    rows = []
    for w in names:
        r = results.get(LimitJob(w, opts.size, opts.seed).key)
        if not succeeded(r):
            md.append(f"| {workload_label(w)} | {'missing' if r is None else 'error'} | | | | |")
            continue
        rows.append({"workload": w, **{k: r[k] for k in cols}})
        for k in cols:
            cols[k].append(r[k])
        md.append(f"| {workload_label(w)} | " + " | ".join(f"{100 * r[k]:.1f}%" for k in cols) +
                  f" | {'match' if r['outputs_match'] else 'DIFFER'} |")
    gm = {k: geomean(v) for k, v in cols.items()}
    mean = {k: (sum(v) / len(v) if v else float("nan")) for k, v in cols.items()}
    mx = {k: max(v, default=float("nan")) for k, v in cols.items()}
    md.append("| **geomean** | " + " | ".join(f"**{100 * gm[k]:.1f}%**" for k in cols) + " | |")
    md.append("| **mean** | " + " | ".join(f"**{100 * mean[k]:.1f}%**" for k in cols) + " | |")
    md.append("| **maximum** | " + " | ".join(f"{100 * mx[k]:.1f}%" for k in cols) + " | |")
    md.append(f"| paper (GM / avg.; max.) | {PAPER_LIMIT['intra'][0]}% GM; {PAPER_LIMIT['intra'][1]}% | "
              f"{PAPER_LIMIT['inter'][0]}% avg.; {PAPER_LIMIT['inter'][1]}% (VA) | | "
              f"{PAPER_LIMIT['combined'][0]}% avg.; {PAPER_LIMIT['combined'][1]}% (VA) | |")
    md += ["", "Our inter-warp count is a limit (unbounded history per launch, functional "
           "order): nearly every uniform instance repeats one of another warp here, where the "
           "chapter finds about half; its counting window is not stated.", ""]
    data["limit_study"] = {"rows": rows, "geomean": gm, "mean": mean, "maximum": mx,
                           "paper_percent": PAPER_LIMIT}


def _perf(results, opts, names, md, data) -> None:
    md += ["## Performance and energy (§2.6.1-§2.6.2)", "",
           "Speedup = baseline cycles / cycles; energy = reduction of total energy "
           "(baseline model + UV structures) against the baseline run.", "",
           "IPC = thread instructions per cycle of the baseline (peak 240), beside Table 3's.",
           "",
           "| workload | baseline cycles | IPC | paper IPC | " +
           " | ".join(VARIANTS) + " | energy token | energy SRF | uniform | outputs |",
           "|---|--:|--:|--:|" + "--:|" * (len(VARIANTS) + 3) + "---|"]
    sp = {v: [] for v in VARIANTS}
    en = {v: [] for v in VARIANTS}
    dyn = {v: [] for v in PAPER_DYNAMIC}
    rtl = _RTLEnergy()                       # the same runs priced with energy.structures: rtl
    rows = []
    for w in names:
        base = results.get(_job(w, opts).key)
        if not succeeded(base):
            md.append(f"| {workload_label(w)} | {'missing' if base is None else 'error: ' + base['error']} |"
                      + " |" * (len(VARIANTS) + 6))
            continue
        bt, bd = energy_j(base)
        rtl.base(base)
        tipc = base["timing"]["thread_instructions"] / max(1, base["cycles"])
        row = {"workload": w, "cycles": base["cycles"]}
        cells, same, missing = [], True, 0
        for v, m in VARIANTS.items():
            r = results.get(_job(w, opts, m).key)
            if not succeeded(r):
                cells.append("error" if r else "missing")
                missing += r is None
                same = same and r is None   # a failed run counts, a missing one not yet
                continue
            same &= same_outputs(r, base)
            s = base["cycles"] / r["cycles"]
            tj, dj = energy_j(r)
            sp[v].append(s)
            en[v].append(tj / bt)
            if v in dyn:
                dyn[v].append(dj / bd)
            rtl.add(v, r)
            row[v] = {"speedup": s, "energy_ratio": tj / bt, "dynamic_ratio": dj / bd,
                      "counters": {k: x for k, x in _mech(r).items() if k.startswith("uv.")}}
            cells.append(f"{s:.3f}")
        comb = row.get("token combined", {})
        uni = comb.get("counters", {}).get("uv.uniform", 0)
        issued = base["timing"]["instructions_issued"]
        row["uniform_fraction"] = uni / issued if issued else 0.0
        verdict, row["outputs_identical"] = outputs_verdict(not same, missing)
        rows.append(row)
        e_tok = row.get("token combined", {}).get("energy_ratio")
        e_srf = row.get("SRF combined", {}).get("energy_ratio")
        row["thread_ipc"] = tipc
        md.append(f"| {workload_label(w)} | {base['cycles']:,} | {tipc:.1f} | {_paper_ipc(w)} | "
                  + " | ".join(cells) +
                  f" | {_pct(None if e_tok is None else e_tok - 1)} | "
                  f"{_pct(None if e_srf is None else e_srf - 1)} | "
                  f"{100 * row['uniform_fraction']:.1f}% | "
                  f"{verdict} |")
    gm = {v: geomean(x) for v, x in sp.items()}
    ge = {v: geomean(x) for v, x in en.items()}
    gd = {v: geomean(x) for v, x in dyn.items()}
    md.append("| **geomean** | | | | " + " | ".join(f"**{gm[v]:.3f}**" for v in VARIANTS) +
              f" | **{_pct(ge['token combined'] - 1)}** | **{_pct(ge['SRF combined'] - 1)}** | | |")
    md.append("| paper | | | | " + " | ".join(f"{1 + PAPER_PERF[v] / 100:.3f}" for v in VARIANTS)
              + f" | −{PAPER_ENERGY['token combined']}% | −{PAPER_ENERGY['SRF combined']}% | | |")
    md += ["", "Total-energy change (geomean of ratios) per variant, ours vs the chapter. Two "
           "pricings of the same runs: *papers* (the IRB at 1 pJ per lookup / update, an "
           "estimate; Table 2's VRF and SRF) and *RTL-measured* (`energy.structures: rtl`: "
           "the IRB's lookup and update measured on our RTL on real-kernel traces, OpenSTA on "
           "osu018, scaled to 40 nm, golden/timing/rtl_energy.yaml; the VRF and SRF arrays "
           "have no RTL and keep Table 2's).", "",
           "| variant | speedup | paper | total energy | RTL-measured | paper | dynamic energy "
           "| RTL-measured | paper |",
           "|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    rg, rgd = rtl.geomeans()
    for v in VARIANTS:
        d = gd.get(v)
        rt, rd = rg.get(v), rgd.get(v)
        md.append(f"| {v} | {gm[v]:.3f} | {1 + PAPER_PERF[v] / 100:.3f} | {_pct(ge[v] - 1)} | "
                  f"{_pct(None if rt is None else rt - 1)} | "
                  f"−{PAPER_ENERGY[v]}% | {_pct(None if d is None else d - 1)} | "
                  f"{_pct(None if rd is None else rd - 1)} | "
                  f"{'−' + str(PAPER_DYNAMIC[v]) + '%' if v in PAPER_DYNAMIC else ''} |")
    if rtl.error:
        md += ["", f"RTL-measured column not priced: {rtl.error}"]
    else:
        md += ["", "IRB energy per access charged: " + rtl.describe()]
    best = max(((r["token combined"]["speedup"], r["workload"]) for r in rows
                if "token combined" in r), default=None)
    if best:
        md += ["", f"Maximum (token combined): **{best[0]:.3f}** on {best[1]} "
               "(chapter: 1.239 on PF)."]
    md.append("")
    data.update(rows=rows, geomean_speedup=gm, geomean_energy_ratio=ge,
                geomean_dynamic_ratio=gd, geomean_energy_ratio_rtl=rg,
                geomean_dynamic_ratio_rtl=rgd, paper_gain_percent=PAPER_PERF,
                paper_energy_saving_percent=PAPER_ENERGY)


def _sweep(results, opts, names, md, data, title, sizes, make, paper, key) -> None:
    md += [title, "", "| workload | " + " | ".join(f"{n}" for n in sizes) + " |",
           "|---|" + "--:|" * len(sizes)]
    table, rows, gm = speedup_sweep(results, names, lambda w: _job(w, opts),
                                    lambda w, n: make(w, opts, n), sizes)
    md += table
    if paper:
        md.append("| paper | " + " | ".join(f"{1 + paper[n] / 100:.3f}" if n in paper else ""
                                            for n in sizes) + " |")
    md.append("")
    data[key] = {"rows": rows, "geomean_speedup": gm}


def _sp16(results, opts, names, md, data) -> None:
    sps = []
    for w in names:
        b = results.get(_job(w, opts, None, SP16).key)
        r = results.get(_job(w, opts, "uv-token", SP16).key)
        if succeeded(b) and succeeded(r) and same_outputs(r, b):
            sps.append(b["cycles"] / r["cycles"])
    gm = geomean(sps)
    md += ["## NumSP = 16 (§2.6.3)", "",
           f"15 SMs of 16 SPs, token combined over the same GPU's baseline: geomean speedup "
           f"**{gm:.3f}** over {len(sps)} workloads (chapter: {1 + PAPER_SP16 / 100:.3f}).", ""]
    data["numsp16"] = {"geomean_speedup": gm, "workloads": len(sps),
                       "paper_gain_percent": PAPER_SP16}


def _reliability(results, opts, names, md, data) -> None:
    md += ["## Opportunistic reliability and copy-on-write (§2.6.4, §2.4)", "",
           "ALU coverage = ALU/SFU thread operations computed on two lanes or served by a "
           "parity-protected IRB hit / all ALU/SFU thread operations. Energy overhead = "
           "total energy with reliability / without − 1. Copy-on-write = copies / issued "
           "instructions (token combined).", "",
           "| workload | ALU cov. token | ALU cov. SRF | VRF cov. token | overhead token | "
           "overhead SRF | copy-on-write |", "|---|--:|--:|--:|--:|--:|--:|"]
    cov = {"token": [], "SRF": []}
    vrf = []
    ovh = {"token": [], "SRF": []}
    cows = []
    rows = []
    for w in names:
        row, cells = {"workload": w}, []
        for d in ("token", "SRF"):
            r = results.get(_rel_job(w, opts, d).key)
            plain = results.get(_job(w, opts, VARIANTS[f"{d} combined"]).key)
            if not (succeeded(r) and succeeded(plain)):
                cells.append(("–", "–"))
                continue
            m = _mech(r)
            c = m.get("uv.alu_ops_covered", 0) / m["uv.alu_ops"] if m.get("uv.alu_ops") else 0.0
            o = energy_j(r)[0] / energy_j(plain)[0] - 1
            cov[d].append(c)
            ovh[d].append(o)
            row[d] = {"alu_coverage": c, "energy_overhead": o}
            if d == "token" and m.get("uv.live_regs"):
                row[d]["vrf_coverage"] = m.get("uv.live_regs_covered", 0) / m["uv.live_regs"]
                vrf.append(row[d]["vrf_coverage"])
            cells.append((f"{100 * c:.1f}%", f"{100 * o:+.2f}%"))
        plain = results.get(_job(w, opts, "uv-token").key)
        cw = None
        if succeeded(plain):
            cw = _mech(plain).get("uv.cow", 0) / max(1, plain["timing"]["instructions_issued"])
            cows.append(cw)
        row["cow_fraction"] = cw
        rows.append(row)
        vc = row.get("token", {}).get("vrf_coverage")
        md.append(f"| {workload_label(w)} | {cells[0][0]} | {cells[1][0] if len(cells) > 1 else '–'} | "
                  f"{'–' if vc is None else f'{100 * vc:.1f}%'} | {cells[0][1]} | {cells[1][1] if len(cells) > 1 else '–'} | "
                  f"{'–' if cw is None else f'{100 * cw:.3f}%'} |")

    def mean(x):
        return sum(x) / len(x) if x else float("nan")
    md.append(f"| **mean** | **{100 * mean(cov['token']):.1f}%** | **{100 * mean(cov['SRF']):.1f}%** "
              f"| **{100 * mean(vrf):.1f}%** | **{100 * mean(ovh['token']):+.2f}%** | **{100 * mean(ovh['SRF']):+.2f}%** | "
              f"**{100 * mean(cows):.3f}%** |")
    md.append("| paper | 21.1% | 19.5% | 14.1% | +0.14% | +0.08% | 0.010% |")
    md.append("")
    data["reliability"] = {"rows": rows, "mean_alu_coverage": {k: mean(v) for k, v in cov.items()},
                           "mean_vrf_coverage_token": mean(vrf),
                           "mean_energy_overhead": {k: mean(v) for k, v in ovh.items()},
                           "mean_cow_fraction": mean(cows), "paper": PAPER_RELIABILITY}


def render(results: dict, opts: ReportOptions) -> tuple[str, dict]:
    names = _workloads(opts)
    md = ["# Uniform-vector elimination (seed 002 ch. 2): token and SRF designs with the "
          "instruction reuse buffer", "",
          f"Timing on `{CONFIG}` (UV Table 1: 30 SMs, NumSP = 8, one scheduler), size "
          f"`{opts.size}`, seed {opts.seed}. Outputs of every variant must equal the "
          "baseline's bit for bit (`outputs`).", ""]
    data = {"config": CONFIG, "size": opts.size, "seed": opts.seed}
    _limit(results, opts, names, md, data)
    _perf(results, opts, names, md, data)
    _sweep(results, opts, names, md, data, "## IRB size (§2.6.3): token, combined, speedup",
           IRB_SIZES, _irb_job, PAPER_IRB, "irb_sizes")
    _sweep(results, opts, names, md, data,
           "## SRF size (§2.6.3): SRF, combined, speedup (the chapter's per-size values are "
           "in a figure only)", SRF_SIZES, _srf_job, None, "srf_sizes")
    _sp16(results, opts, names, md, data)
    _reliability(results, opts, names, md, data)
    _param_constants(results, opts, names, md, data)
    md += [DIFFERENCES]
    return "\n".join(md) + "\n", data
