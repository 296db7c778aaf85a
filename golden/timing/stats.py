"""Statistics of a timing-mode run: the event counters the cycle-level model fills.

One :class:`TimingStats` holds the counters of one SM, one launch, or a merge of several.
It stores only event *counts*; the energy model (:mod:`golden.timing.energy`) turns them
into joules.

Hot-path use
------------
The counters are plain ``int`` attributes and plain ``list[int]`` arrays of a
``slots`` dataclass, so a pipeline unit updates them with one attribute increment and
no allocation::

    st.instructions_fetched += 1
    st.rf_reads[bank] += 1
    st.stalls[STALL_DEPENDENCE] += 1
    st.record_execute(PIPE_ALU, active_lanes)   # executed, thread, histogram, FU counters

Observers that prefer names can call :meth:`TimingStats.count` (``st.count("rf_reads",
bank=3)``), which validates the name and is therefore slower; mechanism-specific
counters go to :meth:`TimingStats.count_mechanism` (a free-form, name-sorted dict).

Counter definitions
-------------------
* ``cycles`` -- GPU core cycles of the run (the kernel's wall time in SM clocks).
  Merging SMs of one launch takes the maximum (they run concurrently); merging
  launches adds (they run one after the other).
* ``instructions_fetched / decoded / issued / executed`` -- warp instructions passing
  each stage. ``instructions_skipped`` counts warp instructions a mechanism removed
  (skipped at fetch, eliminated at decode/issue) instead of executing them.
* ``thread_instructions`` -- active lanes summed over executed warp instructions.
* ``scheduler_cycles`` and ``stalls`` -- every issue scheduler, in every cycle its SM is
  running (including cycles the model skips over), records exactly one outcome, in
  this priority: ``issue`` (it issued), ``no_instruction`` (no warp had a decoded
  instruction: I-buffers empty, fetch or I-cache miss), ``barrier`` (the only warps with
  instructions wait at a barrier), ``memory`` (the oldest blocked instruction waits on a
  register written by an outstanding load), ``dependence`` (it waits on an ALU/SFU
  result: scoreboard RAW/WAW), ``structural`` (operands were ready but no collector unit
  or pipeline was free). :meth:`TimingStats.check` verifies that the six add up to
  ``scheduler_cycles``.
* ``sm_cycles`` / ``resident_warp_cycles`` -- cycles summed over SMs that had resident
  warps, and resident warps summed over those SM-cycles (their ratio is the mean number of
  warps an active SM holds: how much latency it can hide).
* ``rf_reads[b] / rf_writes[b]`` -- warp-wide vector-register accesses of bank ``b``.
* ``oc_bank_conflicts`` -- operand reads that could not be served in the cycle they
  were requested because another read held the bank (one per lost read-cycle).
* ``fu_lane_cycles[p]`` -- active lanes x the instruction's latency in cycles, summed
  (GPUWattch counts execution-unit accesses as lanes x latency; the energy model's
  ALU/SFU terms use this);
* ``fu_ops[p] / fu_lane_ops[p]`` -- warp instructions and active lanes executed by the
  pipeline class ``p`` (:data:`PIPELINES`: alu, sfu, mem; control-flow instructions run
  on the ALU pipeline).
* ``lane_hist[k]`` -- executed warp instructions with ``k`` active lanes (``0..warp_size``;
  ``k = 0`` is an instruction whose guard predicate is false in every lane).
* ``icache_hits / icache_misses`` -- instruction-cache probes by the fetch stage.
* ``l1_bypasses`` -- global-load transactions that bypassed the L1
  (``l1.cache_global_loads: false``);
* ``const_hits / const_misses`` -- constant-cache line lookups of const/param loads;
* ``l1_hits / l1_misses`` -- L1 data-cache transactions (sectors) of global/local
  accesses; ``shared_accesses`` -- shared-memory array accesses (one per serialised
  pass, so an n-way bank conflict counts n); ``shared_bank_conflict_cycles`` -- the
  extra passes (passes minus conflict-free warp accesses).
* ``l2_hits / l2_misses`` -- L2 transactions; ``dram_reads / dram_writes`` -- DRAM
  transactions; ``dram_bytes`` -- bytes moved to or from DRAM.
* memory-system detail (:mod:`golden.timing.memory`): ``l2_mshr_full_delays`` -- L2
  misses that waited for an MSHR (table full or merge limit); ``icnt_flits`` -- flits
  injected into the SM <-> L2 request and reply networks; ``dram_read_bytes /
  dram_write_bytes`` -- the two parts of ``dram_bytes``; ``dram_activates`` (row opens),
  ``dram_precharges`` (row closes), ``dram_row_hits`` (requests served from the open
  row); ``dram_queue_full_delays`` -- requests that waited for a DRAM scheduler-queue
  entry.
* ``mechanism`` -- ``name -> number`` counters a mechanism defines (use a prefix such as
  ``"darsie.skipped_pcs"``); merged by addition.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields

from golden.errors import SimtlabError

#: Per-scheduler-cycle outcomes, in the order of :attr:`TimingStats.stalls`.
STALL_REASONS = ("issue", "no_instruction", "dependence", "structural", "barrier", "memory")
STALL_ISSUE, STALL_NO_INSTRUCTION, STALL_DEPENDENCE, STALL_STRUCTURAL, STALL_BARRIER, \
    STALL_MEMORY = range(len(STALL_REASONS))

#: Execution-pipeline classes, in the order of :attr:`TimingStats.fu_ops`.
PIPELINES = ("alu", "sfu", "mem")
PIPE_ALU, PIPE_SFU, PIPE_MEM = range(len(PIPELINES))

# Plain integer counters (the names accepted by TimingStats.count without ``bank``).
_SCALARS = (
    "cycles",
    "instructions_fetched", "instructions_decoded", "instructions_issued",
    "instructions_executed", "instructions_skipped", "thread_instructions",
    "scheduler_cycles", "sm_cycles", "resident_warp_cycles", "oc_bank_conflicts",
    "icache_hits", "icache_misses",
    "l1_hits", "l1_misses", "l1_bypasses", "const_hits", "const_misses",
    "shared_accesses", "shared_bank_conflict_cycles",
    "l2_hits", "l2_misses",
    "dram_reads", "dram_writes", "dram_bytes",
    "l2_mshr_full_delays", "icnt_flits", "dram_read_bytes", "dram_write_bytes",
    "dram_activates", "dram_precharges", "dram_row_hits", "dram_queue_full_delays",
)
# Arrays indexed by a bank / reason / pipeline / lane count.
_ARRAYS = ("stalls", "rf_reads", "rf_writes", "fu_ops", "fu_lane_ops", "fu_lane_cycles",
           "lane_hist")
# Arrays whose entries are named in to_dict.
_NAMED_ARRAYS = {"stalls": STALL_REASONS, "fu_ops": PIPELINES, "fu_lane_ops": PIPELINES,
                 "fu_lane_cycles": PIPELINES}


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(slots=True, eq=True)
class TimingStats:
    """Event counters of a timing run (see the module docstring for each counter).

    ``rf_banks`` and ``warp_size`` size the per-bank arrays and the lane histogram;
    build one from a configuration with :meth:`for_config`.
    """

    rf_banks: int
    warp_size: int
    cycles: int = 0
    instructions_fetched: int = 0
    instructions_decoded: int = 0
    instructions_issued: int = 0
    instructions_executed: int = 0
    instructions_skipped: int = 0
    thread_instructions: int = 0
    scheduler_cycles: int = 0
    sm_cycles: int = 0
    resident_warp_cycles: int = 0
    stalls: list = field(default_factory=list)
    rf_reads: list = field(default_factory=list)
    rf_writes: list = field(default_factory=list)
    oc_bank_conflicts: int = 0
    fu_ops: list = field(default_factory=list)
    fu_lane_ops: list = field(default_factory=list)
    fu_lane_cycles: list = field(default_factory=list)
    lane_hist: list = field(default_factory=list)
    icache_hits: int = 0
    icache_misses: int = 0
    l1_hits: int = 0
    l1_misses: int = 0
    l1_bypasses: int = 0
    const_hits: int = 0
    const_misses: int = 0
    shared_accesses: int = 0
    shared_bank_conflict_cycles: int = 0
    l2_hits: int = 0
    l2_misses: int = 0
    dram_reads: int = 0
    dram_writes: int = 0
    dram_bytes: int = 0
    l2_mshr_full_delays: int = 0
    icnt_flits: int = 0
    dram_read_bytes: int = 0
    dram_write_bytes: int = 0
    dram_activates: int = 0
    dram_precharges: int = 0
    dram_row_hits: int = 0
    dram_queue_full_delays: int = 0
    mechanism: dict = field(default_factory=dict)

    def __post_init__(self):
        for name in ("rf_banks", "warp_size"):
            v = getattr(self, name)
            if not _is_count(v) or v < 1:
                raise SimtlabError(f"TimingStats: {name} must be a positive int, got {v!r}")
        sizes = self._array_sizes()
        for name in _ARRAYS:
            arr = getattr(self, name)
            if not arr:
                setattr(self, name, [0] * sizes[name])
            elif len(arr) != sizes[name]:
                raise SimtlabError(f"TimingStats: {name} has {len(arr)} entries, "
                                   f"expected {sizes[name]}")

    def _array_sizes(self) -> dict:
        return {"stalls": len(STALL_REASONS), "rf_reads": self.rf_banks,
                "rf_writes": self.rf_banks, "fu_ops": len(PIPELINES),
                "fu_lane_ops": len(PIPELINES), "fu_lane_cycles": len(PIPELINES),
                "lane_hist": self.warp_size + 1}

    @classmethod
    def for_config(cls, config) -> "TimingStats":
        """Empty counters shaped for a :class:`golden.configs.schema.GPUConfig`."""
        return cls(rf_banks=config.register_file.banks, warp_size=config.core.warp_size)

    # ------------------------------------------------------------------ recording

    def record_execute(self, pipe: int, active_lanes: int, latency: int = 1,
                       fu_lanes: int | None = None) -> None:
        """One warp instruction executed on pipeline class ``pipe`` with ``active_lanes``,
        occupying the pipeline's stages for ``latency`` cycles. ``fu_lanes`` (default:
        ``active_lanes``) are the lanes charged to the execution unit (a mechanism may run
        the instruction on fewer lanes, :class:`golden.timing.hooks.IssueOverride`)."""
        self.instructions_executed += 1
        self.thread_instructions += active_lanes
        self.lane_hist[active_lanes] += 1
        self.fu_ops[pipe] += 1
        lanes = active_lanes if fu_lanes is None else fu_lanes
        self.fu_lane_ops[pipe] += lanes
        self.fu_lane_cycles[pipe] += lanes * latency

    def count(self, event: str, n: int = 1, *, bank: int | None = None) -> None:
        """Add ``n`` to counter ``event`` (a field name); ``bank`` indexes an array counter.

        Slower than incrementing the field directly, but checks the name: an unknown
        counter, a missing or out-of-range index raises :class:`SimtlabError`.
        """
        if bank is None:
            if event not in _SCALARS:
                hint = " (an array counter: pass bank=)" if event in _ARRAYS else ""
                raise SimtlabError(f"TimingStats.count: unknown counter {event!r}{hint}; "
                                   f"known: {', '.join(_SCALARS + _ARRAYS)}")
            setattr(self, event, getattr(self, event) + n)
            return
        if event not in _ARRAYS:
            raise SimtlabError(f"TimingStats.count: {event!r} is not an array counter; "
                               f"array counters: {', '.join(_ARRAYS)}")
        arr = getattr(self, event)
        if not 0 <= bank < len(arr):
            raise SimtlabError(f"TimingStats.count: {event}[{bank}] out of range "
                               f"(0..{len(arr) - 1})")
        arr[bank] += n

    def count_mechanism(self, name: str, n: int | float = 1) -> None:
        """Add ``n`` to the mechanism-specific counter ``name``."""
        m = self.mechanism
        m[name] = m.get(name, 0) + n

    # ------------------------------------------------------------------ derived values

    @property
    def ipc(self) -> float:
        """Executed warp instructions per cycle (0 before the first cycle)."""
        return self.instructions_executed / self.cycles if self.cycles else 0.0

    @property
    def thread_ipc(self) -> float:
        """Executed thread instructions (active lanes) per cycle."""
        return self.thread_instructions / self.cycles if self.cycles else 0.0

    @property
    def simd_utilization(self) -> float:
        """Mean fraction of a warp's lanes active per executed warp instruction."""
        n = sum(self.lane_hist)
        if not n:
            return 0.0
        lanes = sum(k * c for k, c in enumerate(self.lane_hist))
        return lanes / (self.warp_size * n)

    @property
    def rf_reads_total(self) -> int:
        """Warp-register reads over all banks."""
        return sum(self.rf_reads)

    @property
    def rf_writes_total(self) -> int:
        """Warp-register writes over all banks."""
        return sum(self.rf_writes)

    def stall_breakdown(self) -> dict:
        """``reason -> scheduler cycles``, in :data:`STALL_REASONS` order."""
        return dict(zip(STALL_REASONS, self.stalls))

    def stall_fractions(self) -> dict:
        """``reason -> fraction of scheduler cycles`` (zeros if no cycle was recorded)."""
        total = self.scheduler_cycles
        return {r: (c / total if total else 0.0) for r, c in zip(STALL_REASONS, self.stalls)}

    def check(self) -> None:
        """Verify the counters' invariants; raise :class:`SimtlabError` naming the first broken one.

        * the stall outcomes add up to ``scheduler_cycles``;
        * the lane histogram and the per-pipeline counters add up to
          ``instructions_executed``; the histogram's lanes add up to
          ``thread_instructions``, and the lanes charged to the units (``fu_lane_ops``)
          to at most that (a mechanism may run an instruction on fewer lanes than it has
          active threads, :class:`golden.timing.hooks.IssueOverride` ``lanes``);
        * every counter is a non-negative int.
        """
        self.check_types()
        if sum(self.stalls) != self.scheduler_cycles:
            parts = ", ".join(f"{r} {c}" for r, c in zip(STALL_REASONS, self.stalls))
            raise SimtlabError(f"TimingStats: stall breakdown ({parts}) adds up to "
                               f"{sum(self.stalls)}, not scheduler_cycles "
                               f"{self.scheduler_cycles}")
        n_hist = sum(self.lane_hist)
        lanes_hist = sum(k * c for k, c in enumerate(self.lane_hist))
        for label, count, lanes in (("lane_hist", n_hist, lanes_hist),
                                    ("fu_ops", sum(self.fu_ops), sum(self.fu_lane_ops))):
            if count != self.instructions_executed:
                raise SimtlabError(f"TimingStats: {label} counts {count} warp instructions, "
                                   f"instructions_executed is {self.instructions_executed}")
            if lanes != self.thread_instructions if label == "lane_hist" \
                    else lanes > self.thread_instructions:
                raise SimtlabError(f"TimingStats: {label} counts {lanes} active lanes, "
                                   f"thread_instructions is {self.thread_instructions}")
        for name, value in self.mechanism.items():
            if not isinstance(name, str) or isinstance(value, bool) \
                    or not isinstance(value, (int, float)):
                raise SimtlabError(f"TimingStats: mechanism counter {name!r} = {value!r} "
                                   f"is not a number")

    # ------------------------------------------------------------------ merging

    def merge(self, other: "TimingStats", *, concurrent: bool) -> None:
        """Add ``other``'s counters into this one.

        ``concurrent=True`` for parts that ran at the same time (SMs of one launch):
        ``cycles`` becomes the maximum. ``concurrent=False`` for parts that ran one after
        the other (successive launches): ``cycles`` adds. Every other counter adds.
        """
        if (other.rf_banks, other.warp_size) != (self.rf_banks, self.warp_size):
            raise SimtlabError(
                f"TimingStats.merge: shapes differ (rf_banks {self.rf_banks} vs "
                f"{other.rf_banks}, warp_size {self.warp_size} vs {other.warp_size})")
        cycles = max(self.cycles, other.cycles) if concurrent else self.cycles + other.cycles
        for name in _SCALARS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.cycles = cycles
        for name in _ARRAYS:
            mine = getattr(self, name)
            for i, v in enumerate(getattr(other, name)):
                mine[i] += v
        for name, v in other.mechanism.items():
            self.mechanism[name] = self.mechanism.get(name, 0) + v

    @classmethod
    def merged(cls, parts, *, concurrent: bool) -> "TimingStats":
        """A new object holding the merge of ``parts`` (an iterable of at least one)."""
        parts = list(parts)
        if not parts:
            raise SimtlabError("TimingStats.merged: nothing to merge")
        out = cls(rf_banks=parts[0].rf_banks, warp_size=parts[0].warp_size)
        for p in parts:  # the first merge into zero cycles gives p.cycles in both modes
            out.merge(p, concurrent=concurrent)
        return out

    # ------------------------------------------------------------------ serialisation

    def to_dict(self) -> dict:
        """A JSON-ready dict with a fixed key order; ``derived`` holds computed values."""
        d = {"rf_banks": self.rf_banks, "warp_size": self.warp_size}
        for f in fields(self):
            name = f.name
            if name in ("rf_banks", "warp_size", "mechanism"):
                continue
            value = getattr(self, name)
            if name in _NAMED_ARRAYS:
                d[name] = dict(zip(_NAMED_ARRAYS[name], value))
            elif name in _ARRAYS:
                d[name] = list(value)
            else:
                d[name] = value
        d["mechanism"] = dict(sorted(self.mechanism.items()))
        d["derived"] = {
            "ipc": self.ipc,
            "thread_ipc": self.thread_ipc,
            "simd_utilization": self.simd_utilization,
            "rf_reads_total": self.rf_reads_total,
            "rf_writes_total": self.rf_writes_total,
            "stall_fractions": self.stall_fractions(),
        }
        return d

    def to_json(self, **kwargs) -> str:
        """``json.dumps(self.to_dict())`` (keyword arguments go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, data: dict) -> "TimingStats":
        """Rebuild from :meth:`to_dict` output (``derived`` is recomputed, not read)."""
        if not isinstance(data, dict):
            raise SimtlabError(f"TimingStats.from_dict: expected a dict, got "
                               f"{type(data).__name__}")
        known = {f.name for f in fields(cls)} | {"derived"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SimtlabError(f"TimingStats.from_dict: unknown keys {', '.join(unknown)}")
        kwargs = {}
        for name, value in data.items():
            if name == "derived":
                continue
            if name in _NAMED_ARRAYS:
                names = _NAMED_ARRAYS[name]
                if not isinstance(value, dict) or set(value) != set(names):
                    raise SimtlabError(f"TimingStats.from_dict: {name} must map exactly "
                                       f"{', '.join(names)}")
                value = [value[k] for k in names]
            elif name in _ARRAYS:
                value = list(value)
            elif name == "mechanism":
                value = dict(value)
            kwargs[name] = value
        out = cls(**kwargs)
        out.check_types()
        return out

    def check_types(self) -> None:
        """Raise :class:`SimtlabError` if a counter is not a non-negative int (or an array has
        the wrong length)."""
        for name in _SCALARS:
            if not _is_count(getattr(self, name)):
                raise SimtlabError(f"TimingStats: {name} = {getattr(self, name)!r} is not a "
                                   f"non-negative int")
        sizes = self._array_sizes()
        for name in _ARRAYS:
            arr = getattr(self, name)
            if len(arr) != sizes[name] or not all(_is_count(v) for v in arr):
                raise SimtlabError(f"TimingStats: {name} = {arr!r} is not {sizes[name]} "
                                   f"non-negative ints")

    # ------------------------------------------------------------------ presentation

    def format(self) -> str:
        """A short human-readable summary (cycles, IPC, stalls, RF, caches, DRAM)."""
        lines = [
            f"cycles                {self.cycles:>14,}",
            f"warp instr fetched    {self.instructions_fetched:>14,}",
            f"warp instr issued     {self.instructions_issued:>14,}",
            f"warp instr executed   {self.instructions_executed:>14,}",
            f"warp instr skipped    {self.instructions_skipped:>14,}",
            f"IPC (warp / thread)   {self.ipc:>14.3f} / {self.thread_ipc:.2f}",
            f"SIMD utilisation      {self.simd_utilization:>14.1%}",
            "stall breakdown (share of scheduler cycles):",
        ]
        for reason, frac in self.stall_fractions().items():
            lines.append(f"  {reason:<20}{frac:>14.1%}")
        lines += [
            f"RF reads / writes     {self.rf_reads_total:>14,} / {self.rf_writes_total:,}",
            f"OC bank conflicts     {self.oc_bank_conflicts:>14,}",
            f"I-cache hit / miss    {self.icache_hits:>14,} / {self.icache_misses:,}",
            f"L1 hit / miss         {self.l1_hits:>14,} / {self.l1_misses:,}",
            f"shared acc / conflict {self.shared_accesses:>14,} / "
            f"{self.shared_bank_conflict_cycles:,}",
            f"L2 hit / miss         {self.l2_hits:>14,} / {self.l2_misses:,}",
            f"DRAM rd / wr / bytes  {self.dram_reads:>14,} / {self.dram_writes:,} / "
            f"{self.dram_bytes:,}",
            f"DRAM row hit / act    {self.dram_row_hits:>14,} / {self.dram_activates:,}",
            f"interconnect flits    {self.icnt_flits:>14,}",
        ]
        for name, v in sorted(self.mechanism.items()):
            lines.append(f"  {name:<20}{v:>14,}")
        return "\n".join(lines)
