"""Per-PC profile of a timing run and the side-by-side diff of two runs (issue 72, part 1).

:func:`profile_workload` runs a workload in timing mode with the GPU's per-PC counters on
(:mod:`golden.timing.pc_profile`) and returns a :class:`RunProfile`: one
:class:`InstructionRow` per PTX instruction of every kernel the run launched (launches of
the same kernel added), plus one row per kernel (``pc = -1``) for what no instruction
owns. Every column of the rows sums to the run's global counter of the same name
(:meth:`RunProfile.check` verifies it). :func:`diff_profiles` matches the rows of two
runs of the same workload by kernel and PC and sorts them by the scheduler-cycles the
second run gained or lost at each. Rendering is in :mod:`golden.report.profile_render`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from golden.errors import SimtlabError
from golden.timing.stats import STALL_REASONS

#: the columns of a row that sum to a global TimingStats counter of the run
TOTALS = {"issued": "instructions_issued", "executed": "instructions_executed",
          "skipped": "instructions_skipped", "lanes": "thread_instructions"}


@dataclass
class InstructionRow:
    """The counters of one PTX instruction (one PC of one kernel) over a run.

    ``cycles`` maps each scheduler outcome (:data:`~golden.timing.stats.STALL_REASONS`)
    to the scheduler-cycles attributed to the instruction; ``cycles["issue"]`` are its
    issue cycles. ``source`` is ``(cuda file, line, text)`` or None; ``pc = -1`` is the
    kernel's row for what no instruction owns."""

    kernel: str
    pc: int
    func: str = ""
    text: str = ""
    ptx_line: int = 0
    source: tuple | None = None
    issued: int = 0
    executed: int = 0
    eliminated: int = 0
    skipped: int = 0
    lanes: int = 0
    overridden: int = 0
    scalar: int = 0
    converted: int = 0
    cycles: dict = field(default_factory=lambda: {r: 0 for r in STALL_REASONS})
    mem: dict = field(default_factory=dict)
    mech: dict = field(default_factory=dict)

    @property
    def total_cycles(self) -> int:
        """Scheduler-cycles attributed to the instruction (issue + every stall reason)."""
        return sum(self.cycles.values())

    @property
    def stall_cycles(self) -> int:
        return self.total_cycles - self.cycles["issue"]

    def lane_fraction(self, warp_size: int) -> float | None:
        """Mean fraction of active lanes of its executed warp instructions."""
        return self.lanes / (self.executed * warp_size) if self.executed else None

    def to_dict(self, warp_size: int) -> dict:
        return {"kernel": self.kernel, "pc": self.pc, "func": self.func, "ptx": self.text,
                "ptx_line": self.ptx_line,
                "source": ({"file": self.source[0], "line": self.source[1],
                            "text": self.source[2]} if self.source else None),
                "issued": self.issued, "executed": self.executed,
                "eliminated": self.eliminated, "skipped": self.skipped,
                "active_lanes": self.lanes, "lane_fraction": self.lane_fraction(warp_size),
                "overridden": self.overridden, "scalar": self.scalar,
                "converted": self.converted, "cycles": dict(self.cycles),
                "total_cycles": self.total_cycles, "memory": dict(self.mem),
                "mechanism": dict(self.mech)}


@dataclass
class RunProfile:
    """Per-PC profile of one timing run and its global counters (``totals``: the merged
    TimingStats of its launches as a dict)."""

    workload: str
    size: str
    seed: int
    config: str
    mechanisms: tuple
    cycles: int
    outputs_match: bool
    launches: int
    warp_size: int
    totals: dict
    rows: list
    source_note: str = ""
    output_digest: str = ""

    @property
    def label(self) -> str:
        return "+".join(self.mechanisms) or "baseline"

    def row_map(self) -> dict:
        return {(r.kernel, r.pc): r for r in self.rows}

    def line_rows(self) -> list[InstructionRow]:
        """The rows summed per kernel and CUDA source line (instructions without a line are
        left out), in order of each line's first PC; ``pc`` is that first PC and ``text``
        the source text."""
        out: dict = {}
        for r in self.rows:
            if r.pc < 0 or not r.source:
                continue
            key = (r.kernel, r.source[0], r.source[1])
            agg = out.get(key)
            if agg is None:
                agg = out[key] = InstructionRow(r.kernel, r.pc, func=r.func, text=r.source[2],
                                                source=r.source)
            for col in ("issued", "executed", "eliminated", "skipped", "lanes", "overridden",
                        "scalar", "converted"):
                setattr(agg, col, getattr(agg, col) + getattr(r, col))
            for k, v in r.cycles.items():
                agg.cycles[k] += v
            for d, into in ((r.mem, agg.mem), (r.mech, agg.mech)):
                for k, v in d.items():
                    into[k] = into.get(k, 0) + v
        return list(out.values())

    def check(self) -> list[str]:
        """Columns whose sum differs from the run's global counter (empty: all equal)."""
        bad = []
        for col, name in TOTALS.items():
            s = sum(getattr(r, col) for r in self.rows)
            if s != self.totals[name]:
                bad.append(f"{col}: rows sum to {s}, the run counted {self.totals[name]}")
        for reason in STALL_REASONS:
            s = sum(r.cycles[reason] for r in self.rows)
            if s != self.totals["stalls"][reason]:
                bad.append(f"cycles[{reason}]: rows sum to {s}, the run counted "
                           f"{self.totals['stalls'][reason]}")
        return bad

    def to_dict(self) -> dict:
        return {"workload": self.workload, "size": self.size, "seed": self.seed,
                "config": self.config, "mechanisms": list(self.mechanisms),
                "cycles": self.cycles, "outputs_match": self.outputs_match,
                "launches": self.launches, "source_note": self.source_note,
                "output_digest": self.output_digest,
                "totals": self.totals, "rows": [r.to_dict(self.warp_size) for r in self.rows],
                "source_lines": [r.to_dict(self.warp_size) for r in self.line_rows()]}


def _cache_dir() -> Path:
    from golden.workloads.base import KERNEL_DIR
    return KERNEL_DIR.parents[2] / "build" / "lineinfo"


def _rows_of(profiles, warp_size: int, sources: dict) -> list[InstructionRow]:
    """Sum the launches' :class:`~golden.timing.pc_profile.PCProfile` s per kernel and PC."""
    rows: dict = {}
    order: list = []
    for p in profiles:
        slots = p.program.slots
        for i in range(p.n + 1):
            pc = 8 * i if i < p.n else -1
            key = (p.kernel, pc)
            r = rows.get(key)
            if r is None:
                r = InstructionRow(p.kernel, pc)
                if pc >= 0:
                    s = slots[i]
                    r.func = s.func
                    if s.inst is not None:
                        r.text = s.inst.text
                        r.ptx_line = s.inst.loc.line
                        smap = sources.get(s.inst.loc.file)
                        r.source = smap.at(r.ptx_line) if smap is not None else None
                    else:
                        r.text = f"(end of {s.func})"
                else:
                    r.text = "(not attributed to an instruction)"
                rows[key] = r
                order.append(key)
            r.issued += p.issued[i]
            r.eliminated += p.eliminated[i]
            r.executed += p.issued[i] - p.eliminated[i]
            r.skipped += p.skipped[i]
            r.lanes += p.lanes[i]
            r.overridden += p.overridden[i]
            r.scalar += p.scalar[i]
            r.converted += p.converted[i]
            for k, reason in enumerate(STALL_REASONS):
                r.cycles[reason] += p.outcomes[k][i]
            for d, into in ((p.mem[i], r.mem), (p.mech[i], r.mech)):
                if d:
                    for name, v in d.items():
                        into[name] = into.get(name, 0) + v
    return [rows[k] for k in order]


def profile_workload(name: str, size: str = "small", seed: int = 0, config: str = "pascal",
                     mechanisms: tuple = (), source_lines: bool = True) -> RunProfile:
    """Run workload ``name`` in timing mode with per-PC counters on; see :class:`RunProfile`.

    ``source_lines``: map instructions to CUDA source lines (needs nvcc,
    :mod:`golden.report.profile_lines`)."""
    from golden.configs import load_config
    from golden.mechanisms.registry import make_mechanisms
    from golden.timing.pc_profile import PCProfiler
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry

    w = registry.get(name)
    if size not in w.sizes:
        raise SimtlabError(f"workload {w.name} has no size {size!r}; sizes: {', '.join(w.sizes)}")
    cfg = load_config(config)
    dev = TimingDevice(cfg, mechanisms=make_mechanisms(tuple(mechanisms), cfg),
                       echo_printf=False)
    profiler = PCProfiler()
    dev.gpu.pc_profiler = profiler
    run = registry.run_workload(w, size=size, seed=seed, device=dev)
    return profile_of_run(w, size, seed, cfg, tuple(mechanisms), profiler, run,
                          source_lines=source_lines)


def profile_of_run(w, size: str, seed: int, cfg, mechanisms: tuple, profiler, run,
                   source_lines: bool = True) -> RunProfile:
    """The :class:`RunProfile` of a finished timing run ``run`` of workload ``w`` (a
    Workload) on configuration ``cfg``, whose GPU had ``profiler`` (a PCProfiler) attached
    for the whole run. Shared by ``simtlab profile`` and ``simtlab run --profile``."""
    from golden.report.runner import output_digest
    from golden.timing.stats import TimingStats

    if len(profiler.profiles) != len(run.stats):
        raise SimtlabError(f"profile of {w.name}: {len(profiler.profiles)} profiled launches "
                           f"for {len(run.stats)} launches")
    total = TimingStats.merged([s.timing for s in run.stats], concurrent=False)
    sources: dict = {}
    notes = []
    if source_lines:
        from golden.report.profile_lines import source_lines as map_lines
        for p in profiler.profiles:
            ptx = Path(p.program.kernel.loc.file)
            if str(ptx) not in sources:
                cu = w.ptx_path.with_suffix(".cu") if ptx == w.ptx_path else ptx.with_suffix(".cu")
                sources[str(ptx)] = smap = map_lines(ptx, cu, _cache_dir())
                if smap.note:
                    notes.append(smap.note)
    rows = _rows_of(profiler.profiles, cfg.core.warp_size, sources)
    return RunProfile(workload=w.name, size=size, seed=seed, config=cfg.name,
                      mechanisms=tuple(mechanisms), cycles=total.cycles,
                      outputs_match=not run.mismatches(), launches=len(run.stats),
                      warp_size=cfg.core.warp_size, totals=total.to_dict(), rows=rows,
                      source_note="; ".join(dict.fromkeys(notes)),
                      output_digest=output_digest(run.outputs))


@dataclass
class DiffRow:
    """One instruction in two runs: ``a`` (the reference, e.g. the baseline) and ``b``;
    ``gained`` = scheduler-cycles of ``a`` minus those of ``b`` (positive: ``b`` spent fewer
    cycles at this instruction)."""

    kernel: str
    pc: int
    a: InstructionRow
    b: InstructionRow

    @property
    def gained(self) -> int:
        return self.a.total_cycles - self.b.total_cycles

    def gained_by_reason(self) -> dict:
        return {r: self.a.cycles[r] - self.b.cycles[r] for r in STALL_REASONS}


def diff_profiles(a: RunProfile, b: RunProfile) -> list[DiffRow]:
    """Rows of ``a`` and ``b`` matched by (kernel, PC), sorted by the cycles gained or lost
    (largest change first, ``|gained|`` descending; ties in kernel and PC order)."""
    if a.workload != b.workload or a.size != b.size:
        raise SimtlabError(f"cannot diff {a.workload} ({a.size}) with {b.workload} ({b.size})")
    am, bm = a.row_map(), b.row_map()
    keys = list(am) + [k for k in bm if k not in am]
    out = []
    for k in keys:
        ra = am.get(k) or InstructionRow(k[0], k[1], text=bm[k].text, func=bm[k].func,
                                         source=bm[k].source, ptx_line=bm[k].ptx_line)
        rb = bm.get(k) or InstructionRow(k[0], k[1], text=ra.text, func=ra.func,
                                         source=ra.source, ptx_line=ra.ptx_line)
        out.append(DiffRow(k[0], k[1], ra, rb))
    pos = {k: i for i, k in enumerate(keys)}
    out.sort(key=lambda d: (-abs(d.gained), pos[(d.kernel, d.pc)]))
    return out
