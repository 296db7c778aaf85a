"""Parameter dataclasses of a simulated GPU (what a ``golden/configs/*.yaml`` file holds).

Every field carries its documentation and its validation rule in ``field(metadata=...)``:

* ``doc``     -- what the value means, with its unit;
* ``min`` / ``max`` -- inclusive numeric range;
* ``choices`` -- the allowed strings of an enumerated field;
* ``pow2``    -- the value must be a power of two.

The loader (:mod:`golden.configs.loader`) reads these annotations and metadata to check a
YAML file key by key, so the schema below is the single place where a parameter is
declared. All dataclasses are frozen: a configuration is a value, not shared mutable state.

Units: latencies in SM core-clock cycles, sizes in bytes, bandwidths in bytes per SM
core-clock cycle, energies in picojoules (pJ), power in watts.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass

# The enumerations the timing model understands.
SCHEDULER_POLICIES = ("lrr", "gto", "two_level")
FETCH_POLICIES = ("lrr",)
DEPENDENCE_TRACKING = ("scoreboard",)
BANK_MAPPINGS = ("warp_plus_reg", "reg")


def _p(doc: str, *, lo=None, hi=None, choices=None, pow2: bool = False):
    """A required field with its documentation and validation rule."""
    meta = {"doc": doc}
    if lo is not None:
        meta["min"] = lo
    if hi is not None:
        meta["max"] = hi
    if choices is not None:
        meta["choices"] = tuple(choices)
    if pow2:
        meta["pow2"] = True
    return field(metadata=meta)


# --------------------------------------------------------------------------- core

@dataclass(frozen=True)
class ICacheConfig:
    """Per-SM instruction cache probed by the fetch stage (DARSIE §3: fetch, then I-cache)."""

    size_bytes: int = _p("capacity in bytes", lo=64, pow2=True)
    assoc: int = _p("ways per set", lo=1)
    line_bytes: int = _p("line size in bytes (one line holds line_bytes/8 instructions)",
                         lo=8, pow2=True)
    hit_latency: int = _p("cycles from fetch to the instruction entering the I-buffer on a hit",
                          lo=0, hi=10_000)
    miss_latency: int = _p("extra cycles a fetch waits on an I-cache miss", lo=0, hi=100_000)

    @property
    def sets(self) -> int:
        """Number of sets (size / (assoc * line))."""
        return self.size_bytes // (self.assoc * self.line_bytes)


@dataclass(frozen=True)
class CoreConfig:
    """SM count, clock, occupancy limits and the front end (fetch, I-buffer, issue)."""

    num_sms: int = _p("number of streaming multiprocessors (SMs, 'shader cores')", lo=1, hi=1024)
    clock_mhz: float = _p("SM (shader) core clock in MHz; all latencies count these cycles",
                          lo=1.0, hi=10_000.0)
    warp_size: int = _p("threads per warp", lo=1, hi=64, pow2=True)
    max_threads_per_sm: int = _p("resident threads per SM (TB dispatch limit)", lo=1)
    max_tbs_per_sm: int = _p("resident thread blocks (CTAs) per SM", lo=1, hi=1024)
    max_warps_per_sm: int = _p("resident warps per SM (scheduler slots)", lo=1, hi=1024)
    registers_per_sm: int = _p("32-bit registers per SM (per-thread registers x threads)", lo=1)
    shared_mem_per_sm: int = _p("shared memory per SM in bytes", lo=0)
    num_schedulers_per_sm: int = _p(
        "issue (warp) schedulers per SM; warps are statically partitioned among them "
        "(warp w goes to scheduler w mod num_schedulers_per_sm)", lo=1, hi=64)
    scheduler: str = _p("issue-scheduler policy: lrr (loose round robin), gto (greedy then "
                        "oldest) or two_level (active set of two_level_active_warps, LRR inside)",
                        choices=SCHEDULER_POLICIES)
    two_level_active_warps: int = _p(
        "size of the active (ready) warp set per scheduler; used only by the two_level policy",
        lo=1, hi=1024)
    issue_width: int = _p("instructions one scheduler may issue per cycle, all from one warp",
                          lo=1, hi=8)
    fetch_width: int = _p("warps the fetch scheduler serves per cycle (one instruction each)",
                          lo=1, hi=64)
    fetch_policy: str = _p("fetch scheduler policy over warps with a free I-buffer slot "
                           "(lrr = loose round robin, DARSIE §3)", choices=FETCH_POLICIES)
    ibuffer_entries: int = _p("decoded-instruction buffer entries per warp", lo=1, hi=64)
    icache: ICacheConfig = _p("instruction cache")


# --------------------------------------------------------------------------- pipelines

@dataclass(frozen=True)
class PipelineConfig:
    """One class of execution pipeline (ALU, SFU or MEM) of an SM.

    A warp instruction occupies one pipeline of the class for ``ceil(warp_size /
    simd_width)`` cycles (its initiation interval) and its result is written back
    ``latency`` cycles after its last lane group entered the pipeline.
    """

    count: int = _p("pipelines of this class per SM", lo=1, hi=64)
    simd_width: int = _p("lanes per pipeline (threads started per cycle)", lo=1, hi=64)
    latency: int = _p("cycles from entering the pipeline to writeback (MEM: to the memory "
                      "system request, which then adds its own latency)", lo=1, hi=10_000)


@dataclass(frozen=True)
class PipelinesConfig:
    """Execution pipelines per SM and the baseline dependence tracking."""

    alu: PipelineConfig = _p("integer / single-precision arithmetic and logic pipelines")
    sfu: PipelineConfig = _p("special-function pipelines (rcp, rsqrt, sin, cos, lg2, ex2...)")
    mem: PipelineConfig = _p("load/store (address generation and coalescing) pipelines")
    dependence_tracking: str = _p(
        "scoreboard = per-warp register reservation: an instruction whose source or "
        "destination register awaits a pending write stalls (RAW/WAW)",
        choices=DEPENDENCE_TRACKING)


# --------------------------------------------------------------------------- register file

@dataclass(frozen=True)
class RegisterFileConfig:
    """Banked vector register file read through operand collectors."""

    banks: int = _p("register-file banks per SM; each holds whole 32-lane vector registers",
                    lo=1, hi=256)
    ports_per_bank: int = _p("accesses (read or write) one bank serves per cycle", lo=1, hi=8)
    collector_units: int = _p("operand collector units per SM (one instruction each)",
                              lo=1, hi=256)
    bank_mapping: str = _p(
        "which bank holds register r of warp w: warp_plus_reg -> (w + r) mod banks "
        "(GPGPU-Sim's skew, spreads warps); reg -> r mod banks", choices=BANK_MAPPINGS)


# --------------------------------------------------------------------------- memory

@dataclass(frozen=True)
class CoalescingConfig:
    """How a warp's addresses are grouped into memory transactions."""

    sector_bytes: int = _p("smallest transaction: addresses of a warp falling in one aligned "
                           "sector form one request", lo=4, pow2=True)
    line_bytes: int = _p("aligned line that groups sectors (one cache tag)", lo=4, pow2=True)


@dataclass(frozen=True)
class SharedMemConfig:
    """Banked shared (scratchpad) memory; accesses to distinct words of one bank serialise."""

    banks: int = _p("shared-memory banks", lo=1, hi=256, pow2=True)
    bank_width_bytes: int = _p("bytes per bank word (successive words go to successive banks)",
                               lo=1, hi=64, pow2=True)
    latency: int = _p("load-to-use cycles of a conflict-free shared-memory access",
                      lo=1, hi=10_000)


@dataclass(frozen=True)
class L1Config:
    """Per-SM L1 data cache: set-associative, LRU, with miss status holding registers."""

    size_bytes: int = _p("capacity in bytes", lo=0)
    assoc: int = _p("ways per set", lo=1, hi=1024)
    line_bytes: int = _p("line size in bytes", lo=4, pow2=True)
    hit_latency: int = _p("load-to-use cycles on an L1 hit", lo=1, hi=10_000)
    mshrs: int = _p("outstanding missed lines per SM (misses to a pending line merge)",
                    lo=1, hi=65_536)

    @property
    def sets(self) -> int:
        """Number of sets (size / (assoc * line))."""
        return self.size_bytes // (self.assoc * self.line_bytes)


@dataclass(frozen=True)
class L2Config:
    """Shared L2, split into address-interleaved partitions (one per memory channel)."""

    size_bytes: int = _p("total capacity over all partitions, in bytes", lo=0)
    assoc: int = _p("ways per set", lo=1, hi=1024)
    line_bytes: int = _p("line size in bytes", lo=4, pow2=True)
    latency: int = _p("load-to-use cycles seen by an SM on an L2 hit (includes the L1 miss and "
                      "the interconnect)", lo=1, hi=100_000)
    partitions: int = _p("L2 partitions (slices)", lo=1, hi=1024)
    bytes_per_cycle_per_partition: float = _p(
        "bytes one partition returns per SM core cycle", lo=0.001, hi=65_536.0)

    @property
    def sets_per_partition(self) -> int:
        """Sets in one partition."""
        return self.size_bytes // (self.partitions * self.assoc * self.line_bytes)


@dataclass(frozen=True)
class DRAMConfig:
    """Off-chip DRAM as bandwidth-limited channels with a fixed access latency."""

    channels: int = _p("memory channels (controllers)", lo=1, hi=1024)
    bytes_per_cycle_per_channel: float = _p(
        "peak bytes one channel delivers per SM core cycle", lo=0.001, hi=65_536.0)
    latency: int = _p("cycles a request spends in DRAM beyond the L2 latency (so an L2 miss "
                      "costs l2.latency + dram.latency plus queueing)", lo=1, hi=100_000)
    request_queue_entries: int = _p("requests a channel can hold waiting for service",
                                    lo=1, hi=65_536)


@dataclass(frozen=True)
class MemoryConfig:
    """Coalescer, shared memory, L1 per SM, shared L2 and DRAM."""

    coalescing: CoalescingConfig = _p("transaction granularity of global/local accesses")
    shared: SharedMemConfig = _p("shared memory banks")
    l1: L1Config = _p("per-SM L1 data cache")
    l2: L2Config = _p("shared L2 cache")
    dram: DRAMConfig = _p("off-chip DRAM")


# --------------------------------------------------------------------------- energy

@dataclass(frozen=True)
class EnergyEvent:
    """Energy of one event, with where the number comes from."""

    pj: float = _p("energy per event in picojoules", lo=0.0, hi=1e9)
    source: str = _p("where the value comes from: paper and table, or 'estimate' and why")


@dataclass(frozen=True)
class StaticPower:
    """Static (leakage plus constant) power of the whole GPU, with its source."""

    watts: float = _p("static power of the whole GPU in watts", lo=0.0, hi=10_000.0)
    source: str = _p("where the value comes from: paper and table, or 'estimate' and why")


@dataclass(frozen=True)
class EnergyConfig:
    """Per-event energies (energy model = events x pJ + static power x time)."""

    rf_read: EnergyEvent = _p("one warp-wide vector register read (one bank access)")
    rf_write: EnergyEvent = _p("one warp-wide vector register write (one bank access)")
    alu_op_per_lane: EnergyEvent = _p("one ALU operation of one active lane")
    sfu_op_per_lane: EnergyEvent = _p("one SFU operation of one active lane")
    fetch_decode: EnergyEvent = _p("fetch + decode + I-buffer write of one warp instruction "
                                   "(excluding the I-cache array)")
    icache_access: EnergyEvent = _p("one instruction-cache access")
    l1_shared_access: EnergyEvent = _p("one L1 data or shared-memory access (one transaction)")
    l2_access: EnergyEvent = _p("one L2 access (one transaction, including the interconnect)")
    dram_per_byte: EnergyEvent = _p("one byte transferred to or from DRAM")
    static_power: StaticPower = _p("static power of the whole GPU")


# --------------------------------------------------------------------------- top level

@dataclass(frozen=True)
class GPUConfig:
    """A complete simulated GPU: the baseline machine of one seed paper."""

    name: str = _p("short name of the configuration")
    description: str = _p("one line: which GPU and which paper table it reproduces")
    core: CoreConfig = _p("SMs, occupancy limits, front end")
    pipelines: PipelinesConfig = _p("execution pipelines")
    register_file: RegisterFileConfig = _p("banked register file and operand collectors")
    memory: MemoryConfig = _p("memory hierarchy")
    energy: EnergyConfig = _p("per-event energy constants and static power")

    @property
    def peak_dram_bytes_per_cycle(self) -> float:
        """Peak DRAM bandwidth of the whole GPU in bytes per SM core cycle."""
        return self.memory.dram.channels * self.memory.dram.bytes_per_cycle_per_channel

    @property
    def peak_dram_gb_per_s(self) -> float:
        """Peak DRAM bandwidth in GB/s (10^9 bytes per second)."""
        return self.peak_dram_bytes_per_cycle * self.core.clock_mhz * 1e6 / 1e9

    @property
    def peak_ipc_threads(self) -> int:
        """Peak thread-instructions per cycle over the GPU, counting ALU pipelines only."""
        alu = self.pipelines.alu
        return self.core.num_sms * alu.count * alu.simd_width


def field_doc(cls, name: str) -> str:
    """The documentation string of field ``name`` of dataclass ``cls``."""
    for f in fields(cls):
        if f.name == name:
            return f.metadata.get("doc", "")
    raise KeyError(name)


def as_dict(obj) -> dict:
    """A nested plain-dict copy of a configuration dataclass (for JSON statistics)."""
    if is_dataclass(obj):
        return {f.name: as_dict(getattr(obj, f.name)) for f in fields(obj)}
    return obj
