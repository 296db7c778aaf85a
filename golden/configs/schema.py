"""Parameter dataclasses of a simulated GPU (what a ``golden/configs/*.yaml`` file holds).

Every field carries its documentation and its validation rule in ``field(metadata=...)``:

* ``doc``     -- what the value means, with its unit;
* ``min`` / ``max`` -- inclusive numeric range;
* ``choices`` -- the allowed strings of an enumerated field (or the allowed values of an
  int field that only supports a few);
* ``pow2``    -- the value must be a power of two.

The loader (:mod:`golden.configs.loader`) reads these annotations and metadata to check a
YAML file key by key, so the schema below is the single place where a parameter is
declared. All dataclasses are frozen: a configuration is a value, not shared mutable state.

Units: latencies in SM core-clock cycles (except the DRAM device timings ``memory.dram.t*``,
in DRAM command-clock cycles as data sheets give them), sizes in bytes, bandwidths in
bytes (or flits) per SM core-clock cycle, energies in picojoules (pJ), power in watts.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields, is_dataclass

# The enumerations the timing model understands.
SCHEDULER_POLICIES = ("lrr", "gto", "sticky_rr", "two_level")
FETCH_POLICIES = ("lrr",)
DEPENDENCE_TRACKING = ("scoreboard", "one_in_flight")
BANK_MAPPINGS = ("warp_plus_reg", "reg", "subcore_warp_plus_reg")
ENERGY_STRUCTURE_SOURCES = ("papers", "rtl")


def _p(doc: str, *, lo=None, hi=None, choices=None, pow2: bool = False, default=MISSING):
    """A field with its documentation and validation rule; required unless ``default`` is
    given (an optional key: a YAML file may leave it out and gets ``default``)."""
    meta = {"doc": doc}
    if lo is not None:
        meta["min"] = lo
    if hi is not None:
        meta["max"] = hi
    if choices is not None:
        meta["choices"] = tuple(choices)
    if pow2:
        meta["pow2"] = True
    if default is not MISSING:
        meta["default"] = default
        return field(default=default, metadata=meta)
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
    warp_size: int = _p("threads per warp (only 32 is supported: the functional core, the "
                        "statistics and the mechanisms run 32-lane warps)", choices=(32,))
    max_threads_per_sm: int = _p("resident threads per SM (TB dispatch limit)", lo=1)
    max_tbs_per_sm: int = _p("resident thread blocks (CTAs) per SM", lo=1, hi=1024)
    max_warps_per_sm: int = _p("resident warps per SM (scheduler slots)", lo=1, hi=1024)
    registers_per_sm: int = _p("32-bit registers per SM (per-thread registers x threads)", lo=1)
    shared_mem_per_sm: int = _p("shared memory per SM in bytes", lo=0)
    num_schedulers_per_sm: int = _p(
        "issue (warp) schedulers per SM; warps are statically partitioned among them "
        "(warp w goes to scheduler w mod num_schedulers_per_sm)", lo=1, hi=64)
    scheduler: str = _p("issue-scheduler policy: lrr (loose round robin), gto (greedy then "
                        "oldest), sticky_rr (the last issuer's thread block keeps priority, "
                        "round robin inside it and across blocks) or two_level (active set of "
                        "two_level_active_warps, LRR inside)",
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
    fetch_instructions: int = _p(
        "instructions one fetch delivers to the warp's I-buffer (GPGPU-Sim fetches 16 bytes "
        "= 2 instructions); fewer if the I-buffer has fewer free entries", lo=1, hi=64)
    fetch_needs_empty_ibuffer: bool = _p(
        "true: a warp is fetched for only when its I-buffer is empty (GPGPU-Sim); false: "
        "whenever it has a free entry")
    sub_core_units: bool = _p(
        "true: scheduler s issues ALU and SFU instructions only to unit s mod count of each "
        "class with at least one unit per scheduler (GPGPU-Sim -gpgpu_sub_core_model 1); "
        "the MEM pipeline stays shared. false: any free unit")
    dual_issue_distinct_units: bool = _p(
        "true: the instructions one scheduler issues from a warp in one cycle must go to "
        "different pipeline classes (GPGPU-Sim -gpgpu_dual_issue_diff_exec_units)")
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
class OpTiming:
    """Latency and initiation interval of one class of arithmetic instructions."""

    latency: int = _p("cycles from entering the pipeline to writeback", lo=1, hi=10_000)
    initiation: int = _p("initiation interval in the lane-group cycles of "
                         "pipelines.class_initiation_unit (1 = fully pipelined)",
                         lo=1, hi=10_000)
    pipe: str = _p("pipeline class that executes the class's instructions (GPGPU-Sim's "
                   "op = SFU_OP: sfu); mul24/mad24 always run on the ALU and rem follows "
                   "pipelines.rem_pipe", choices=("alu", "sfu"), default="alu")


@dataclass(frozen=True)
class OpClassesConfig:
    """Per-instruction latency by arithmetic class (GPGPU-Sim's ``-ptx_opcode_latency_*`` /
    ``-ptx_opcode_initiation_*``: ADD, MAX, MUL, MAD, DIV for int, fp32 and fp64, plus
    SHFL), and the pipeline each class runs on (``pipe``). ALU instructions outside these
    classes (mov, logic, shifts, setp, selp, cvt...) take ``pipelines.alu.latency``; SFU instructions take ``pipelines.sfu.latency``.
    ``div`` covers div and rem (rem only with ``pipelines.rem_class: div``); ``max``
    covers min and max; ``mad`` covers mad, madc, fma and mad24; ``mul`` covers mul,
    mul24 and mul.wide."""

    int_add: OpTiming = _p("integer add/sub (with carry)")
    int_max: OpTiming = _p("integer min/max")
    int_mul: OpTiming = _p("integer multiply")
    int_mad: OpTiming = _p("integer multiply-add")
    int_div: OpTiming = _p("integer divide / remainder")
    fp_add: OpTiming = _p("fp32 add/sub")
    fp_max: OpTiming = _p("fp32 min/max")
    fp_mul: OpTiming = _p("fp32 multiply")
    fp_mad: OpTiming = _p("fp32 fused multiply-add")
    fp_div: OpTiming = _p("fp32 divide")
    dp_add: OpTiming = _p("fp64 add/sub")
    dp_max: OpTiming = _p("fp64 min/max")
    dp_mul: OpTiming = _p("fp64 multiply")
    dp_mad: OpTiming = _p("fp64 fused multiply-add")
    dp_div: OpTiming = _p("fp64 divide")
    shfl: OpTiming = _p("warp shuffle")


@dataclass(frozen=True)
class PipelinesConfig:
    """Execution pipelines per SM and the baseline dependence tracking."""

    alu: PipelineConfig = _p("integer / single-precision arithmetic and logic pipelines")
    sfu: PipelineConfig = _p("special-function pipelines (rcp, rsqrt, sin, cos, lg2, ex2...)")
    mem: PipelineConfig = _p("load/store (address generation and coalescing) pipelines")
    op_classes: OpClassesConfig = _p("per-instruction latency and initiation interval of "
                                     "the arithmetic classes")
    rem_pipe: str = _p("pipeline class that executes rem (timed by the div class; "
                       "GPGPU-Sim 3.x: alu, 4.x: sfu); div follows op_classes.*_div.pipe",
                       choices=("alu", "sfu"))
    dependence_tracking: str = _p(
        "scoreboard = per-warp register reservation: an instruction whose source or "
        "destination register awaits a pending write stalls (RAW/WAW); one_in_flight = "
        "a ready bit per warp, cleared at issue and set when the instruction reaches WB "
        "(every instruction, stores and branches included: ILP chapter baseline)",
        choices=DEPENDENCE_TRACKING)
    bypass: bool = _p(
        "ALU/SFU results forwarded from the last EX stage to the first (ILP chapter "
        "§4.4.1, EX8 -> EX1 per SP): a dependent instruction may issue `latency` cycles "
        "after its producer instead of after the producer's register-file writeback; "
        "never for memory instructions")
    control_latency: int = _p(
        "cycles from a control instruction's (bra, bar, exit...) entry into the ALU "
        "pipeline until it resolves and its warp may issue the next instruction; 0 = like "
        "any ALU instruction (the ALU latency, then writeback). Matters only where the "
        "dependence tracking holds a warp on control instructions (one_in_flight, or a "
        "mechanism's tracker); ILP chapter §4.4.4 sets 1 for its branch-prediction study",
        lo=0, hi=1000)
    class_initiation_unit: str = _p(
        "what one cycle of an op class's initiation interval is: alu = the ALU's warp-issue "
        "time ceil(warp_size / alu.simd_width) on every pipeline (GPGPU-Sim's core cycle: "
        "a unit is held for the initiation interval whatever its width); pipe = the "
        "executing pipeline's own ceil(warp_size / simd_width) (on a narrow SFU the "
        "interval is multiplied by its lane groups)", choices=("alu", "pipe"), default="pipe")
    rem_class: str = _p(
        "what times rem: div = the div op class of its type (op_classes.int_div...; "
        "GPGPU-Sim 4.x: REM shares DIV's latency/initiation); none = no class, the "
        "executing pipeline's own latency and interval like any unclassed instruction "
        "(GPGPU-Sim 3.x: REM is not in set_opcode_and_latency's switch, latency = "
        "initiation = 1)", choices=("div", "none"), default="div")


# --------------------------------------------------------------------------- register file

@dataclass(frozen=True)
class RegisterFileConfig:
    """Banked vector register file read through operand collectors."""

    banks: int = _p("register-file banks per SM; each holds whole 32-lane vector registers",
                    lo=1, hi=256)
    ports_per_bank: int = _p("accesses (read or write) one bank serves per cycle", lo=1, hi=8)
    collector_units: int = _p("operand collector units per SM (one instruction each)",
                              lo=1, hi=256)
    read_delay: int = _p(
        "cycles from issue to the first operand read (1: read in the cycle after issue; "
        "GPGPU-Sim 2: a collector unit is allocated the cycle after issue and its reads are "
        "granted the cycle after that)", lo=1, hi=16)
    dispatch_delay: int = _p(
        "cycles from the last operand read to pipeline entry (1: the next cycle; GPGPU-Sim "
        "2: the ready collector unit dispatches to the OC_EX register, the unit takes it a "
        "cycle later)", lo=1, hi=16)
    writeback_delay: int = _p(
        "cycles from a result leaving the pipeline (or returning from memory) to the "
        "scoreboard release a dependent instruction waits for (0: same cycle; GPGPU-Sim 1: "
        "the EX_WB register is written back the next cycle)", lo=0, hi=16)
    bank_mapping: str = _p(
        "which bank holds register r of warp w: warp_plus_reg -> (w + r) mod banks "
        "(GPGPU-Sim's skew, spreads warps); reg -> r mod banks; subcore_warp_plus_reg -> "
        "the banks are split evenly among the schedulers and warp w (of scheduler s) uses "
        "s's share: s * B + (w // schedulers + r) mod B with B = banks / schedulers "
        "(GPGPU-Sim -gpgpu_sub_core_model 1)", choices=BANK_MAPPINGS)


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
    cache_global_loads: bool = _p(
        "true: global loads are cached in the L1; false: they bypass it and go to the L2 "
        "(GPGPU-Sim -gpgpu_gmem_skip_L1D 1). Local memory is always cached")
    fetch_group: int = _p(
        "blocks per L1 fetch group (optional, default 1 = baseline): a load also checks "
        "the other blocks of its aligned group of fetch_group x line_bytes and, if any is "
        "absent, misses and fetches the absent ones with it in one L2 request (the "
        "coarse-grained L1 of dissertation ch. 5: 2 = coarse2, 4 = coarse4). Switchable "
        "per SM at run time with MemoryHierarchy.set_l1_fetch_group",
        lo=1, hi=64, pow2=True, default=1)
    mshr_max_merge: int = _p(
        "requests one L1 MSHR entry holds, the first miss included (GPGPU-Sim's dl1 MSHR "
        "<merge>, 8 in the 3.x GTX480); a load that would merge into a full entry is a "
        "reservation fail and retries. Optional, default 0 = unlimited merging",
        lo=0, hi=65_536, default=0)
    fetch_group_wait_all: bool = _p(
        "fetch groups only (optional, default false): true = a load waits for every line "
        "its group request fetched, even when its own data was resident (the older model); "
        "false = it waits only for its own line (a resident line hits, a line in flight "
        "is a reserved hit of its MSHR entry, as GPGPU-Sim's HIT_RESERVED)", default=False)
    fetch_line: bool = _p(
        "true: a load miss fetches every sector of its line that is not valid (GPGPU-Sim's "
        "line caches, 'N' in -gpgpu_cache:dl1, send a miss as a whole-line request); false "
        "(optional default): only the requested sectors that miss", default=False)
    port_cycles: int = _p(
        "SM cycles the L1/shared-memory port spends on one coalesced transaction or one "
        "shared-memory pass (optional, default 1). GPGPU-Sim's LD/ST unit takes one access "
        "per core cycle; its GTX480 core clock is 700 MHz, 2 of our 1400 MHz cycles",
        lo=1, hi=64, default=1)
    miss_latency: int = _p(
        "cycles a load miss spends in the L1 before its request leaves for the L2 "
        "(optional, default 0). GPGPU-Sim 4 puts every L1 access through its "
        "-gpgpu_l1_latency queue before the tag lookup, so misses pay it too",
        lo=0, hi=10_000, default=0)

    @property
    def sets(self) -> int:
        """Number of sets (size / (assoc * line))."""
        return self.size_bytes // (self.assoc * self.line_bytes)


@dataclass(frozen=True)
class ConstCacheConfig:
    """Per-SM constant cache serving ``ld.const`` and ``ld.param`` (kernel parameters live
    in the constant bank on NVIDIA GPUs). Read-only, LRU; a miss goes to the L2.

    A warp's access costs one cycle per distinct ``line_bytes`` line it touches
    (accesses to the same address broadcast)."""

    size_bytes: int = _p("capacity in bytes", lo=64, pow2=True)
    assoc: int = _p("ways per set", lo=1, hi=1024)
    line_bytes: int = _p("line size in bytes", lo=4, pow2=True)
    hit_latency: int = _p("load-to-use cycles on a hit", lo=1, hi=10_000)

    @property
    def sets(self) -> int:
        """Number of sets (size / (assoc * line))."""
        return max(1, self.size_bytes // (self.assoc * self.line_bytes))


@dataclass(frozen=True)
class L2Config:
    """Shared L2, split into address-interleaved partitions (slices; GPGPU-Sim's memory
    sub-partitions), each with its own MSHRs (:mod:`golden.timing.memory.l2`)."""

    size_bytes: int = _p("total capacity over all partitions, in bytes", lo=0)
    assoc: int = _p("ways per set", lo=1, hi=1024)
    line_bytes: int = _p("line size in bytes", lo=4, pow2=True)
    latency: int = _p("the L2's own access latency in cycles, from a request's arrival at its "
                      "slice to the tag lookup (GPGPU-Sim -gpgpu_l2_rop_latency); the "
                      "interconnect is memory.interconnect, so an L2 hit seen by an SM costs "
                      "request network + latency + slice port + reply network",
                      lo=1, hi=100_000)
    partitions: int = _p("L2 partitions (slices); interleaved like the DRAM channels "
                         "(memory.dram.interleave_bytes)", lo=1, hi=1024)
    bytes_per_cycle_per_partition: float = _p(
        "bytes one partition's data port moves per SM core cycle", lo=0.001, hi=65_536.0)
    mshrs: int = _p("MSHR entries per partition: lines with a DRAM fetch outstanding (a miss "
                    "needing a new entry when all are busy waits for the earliest fill)",
                    lo=1, hi=65_536)
    mshr_max_merge: int = _p("requests one MSHR entry holds, the first miss included "
                             "(GPGPU-Sim's MSHR <merge>); one more waits for the fill",
                             lo=1, hi=65_536)
    fetch_line: bool = _p(
        "true: a miss fetches every sector of the line that is not valid, as one DRAM "
        "request (GPGPU-Sim 3.x's line L2, 'N' in -gpgpu_cache:dl2); false (optional "
        "default): only the requested sectors that miss", default=False)
    dram_sector_requests: bool = _p(
        "true: every missing sector is its own DRAM request, each a column command of a "
        "whole burst (GPGPU-Sim 4's sectored L2, 'S' in -gpgpu_cache:dl2, breaks line "
        "requests into 32 B sector requests); false (optional default): one request per "
        "line miss", default=False)
    write_miss: str = _p(
        "write-miss policy: 'lazy_fetch_on_read' (optional default; GPGPU-Sim 4's 'L': "
        "allocate the written sectors dirty, no fetch) or 'write_allocate' (GPGPU-Sim 3.x's "
        "'W': send the write on to DRAM and read the line into an MSHR entry)",
        choices=("lazy_fetch_on_read", "write_allocate"), default="lazy_fetch_on_read")

    @property
    def sets_per_partition(self) -> int:
        """Sets in one partition."""
        return self.size_bytes // (self.partitions * self.assoc * self.line_bytes)


@dataclass(frozen=True)
class DRAMConfig:
    """Off-chip DRAM: channels of banks with row buffers (:mod:`golden.timing.memory.dram`).

    Device timings (``tCL`` ... ``tWL``) are in DRAM command-clock cycles (``clock_mhz``),
    as data sheets and GPGPU-Sim's ``-gpgpu_dram_timing_opt`` give them; the model converts
    them to SM core cycles. Peak bandwidth is derived, not configured:
    ``channels x bus_width_bytes x data_rate x clock_mhz`` bytes per microsecond."""

    channels: int = _p("memory channels (controllers); lines are interleaved over them",
                       lo=1, hi=1024)
    clock_mhz: float = _p("DRAM command clock in MHz (GPGPU-Sim's DRAM clock domain)",
                          lo=1.0, hi=100_000.0)
    data_rate: int = _p("data transfers per command clock on each data pin: 2 = DDR "
                        "(GDDR3), 4 = GDDR5/GDDR5X (GPGPU-Sim -dram_data_command_freq_ratio)",
                        lo=1, hi=16)
    bus_width_bytes: int = _p("data-bus width of one channel in bytes (GPGPU-Sim "
                              "-gpgpu_dram_buswidth x -gpgpu_n_mem_per_ctrlr)", lo=1, hi=1024)
    burst_length: int = _p("data transfers per column command; one burst moves "
                           "bus_width_bytes x burst_length bytes", lo=1, hi=64)
    banks: int = _p("banks per channel (each with one open row)", lo=1, hi=1024)
    row_bytes: int = _p("bytes of one row of one bank across the channel's devices (the row "
                        "buffer); a multiple of the line size", lo=32, pow2=True)
    tCL: int = _p("CAS latency: read command to first data (command cycles)", lo=1, hi=1000)
    tWL: int = _p("write latency: write command to first data (command cycles)",
                  lo=0, hi=1000)
    tRCD: int = _p("activate to column command (command cycles)", lo=1, hi=1000)
    tRP: int = _p("precharge to activate (command cycles)", lo=1, hi=1000)
    tRAS: int = _p("activate to precharge, minimum (command cycles)", lo=1, hi=1000)
    tRC: int = _p("activate to activate of the same bank, minimum (command cycles)",
                  lo=1, hi=1000)
    tCCD: int = _p("column command to column command on the channel (command cycles)",
                   lo=1, hi=1000)
    tRRD: int = _p("activate to activate of different banks of the channel (command cycles)",
                   lo=0, hi=1000)
    latency: int = _p("fixed SM core cycles from the L2 to the DRAM controller's queue, on "
                      "top of the device timing (GPGPU-Sim -dram_latency)", lo=0, hi=100_000)
    request_queue_entries: int = _p("scheduler-queue entries per channel: a request cannot "
                                    "enter a full queue and waits for an entry",
                                    lo=1, hi=65_536)
    interleave_bytes: int = _p(
        "bytes of consecutive addresses one channel serves before the next channel's (optional, "
        "default 0 = one line, memory.coalescing.line_bytes): the channel of an address is "
        "(addr // interleave_bytes) mod channels, and the L2 slices interleave the same way. "
        "GPGPU-Sim's -gpgpu_mem_addr_mapping dramid@k is interleave_bytes = 2^k. A power-of-"
        "two multiple of the line that divides row_bytes", lo=0, hi=1 << 20, default=0)
    bank_groups: int = _p("bank groups per channel (optional, default 1 = none; GPGPU-Sim "
                          "nbkgrp): bank b is in group b // (banks / bank_groups)",
                          lo=1, hi=64, default=1)
    tCCDL: int = _p("column command to column command of the same bank group (command "
                    "cycles; optional, default 0 = no constraint beyond tCCD; GPGPU-Sim CCDL)",
                    lo=0, hi=1000, default=0)

    @property
    def bytes_per_burst(self) -> int:
        """Bytes one column command moves."""
        return self.bus_width_bytes * self.burst_length

    def bytes_per_core_cycle(self, core_mhz: float) -> float:
        """Peak bytes one channel moves per SM core cycle (one burst every
        ``max(burst_length / data_rate, tCCD)`` command cycles)."""
        slot = max(self.burst_length / self.data_rate, self.tCCD)
        return self.bytes_per_burst / slot * self.clock_mhz / core_mhz


@dataclass(frozen=True)
class InterconnectConfig:
    """SM <-> L2-slice interconnect: a request and a reply network, each a fixed latency
    plus bandwidth-limited end ports (:mod:`golden.timing.memory.interconnect`)."""

    latency: int = _p("SM core cycles from a packet leaving its source port to its head "
                      "reaching the destination port (each network)", lo=0, hi=100_000)
    flit_bytes: int = _p("bytes per flit (GPGPU-Sim -icnt_flit_size)", lo=1, hi=4096)
    header_bytes: int = _p("control bytes in every packet (address, ids): a read request is "
                           "only a header, a read reply and a write request carry data too",
                           lo=0, hi=4096)
    sm_port_flits_per_cycle: float = _p(
        "flits per SM core cycle one SM injects (request network) or ejects (reply network)",
        lo=0.001, hi=1024.0)
    l2_port_flits_per_cycle: float = _p(
        "flits per SM core cycle one L2 slice ejects (request network) or injects (reply "
        "network)", lo=0.001, hi=1024.0)


@dataclass(frozen=True)
class MemoryConfig:
    """Coalescer, shared memory, L1 per SM, interconnect, shared L2 and DRAM."""

    coalescing: CoalescingConfig = _p("transaction granularity of global/local accesses")
    shared: SharedMemConfig = _p("shared memory banks")
    l1: L1Config = _p("per-SM L1 data cache")
    const_cache: ConstCacheConfig = _p("per-SM constant cache (ld.const, ld.param)")
    interconnect: InterconnectConfig = _p("SM <-> L2 request and reply networks")
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
    """A power drawn over time (leakage or constant power), with its source; whether it is
    per SM or for the whole chip is said by the field that holds it."""

    watts: float = _p("power in watts", lo=0.0, hi=10_000.0)
    source: str = _p("where the value comes from: paper and table, or 'estimate' and why")


@dataclass(frozen=True)
class EnergyConfig:
    """Component energy model in the style of GPUWattch / AccelWattch
    (:mod:`golden.timing.energy`): dynamic energy = sum over components of events x pJ per
    event; SM leakage = watts per SM x active SM-seconds (idle SMs are power-gated); chip
    constant = watts x run time. "Warp-register access" means one bank access of a whole
    warp-wide (warp_size x 32-bit) register."""

    # front end
    fetch_decode: EnergyEvent = _p("fetch + decode + I-buffer write and read of one warp "
                                   "instruction (excluding the I-cache array)")
    icache_access: EnergyEvent = _p("one instruction-cache probe (reads fetch_instructions "
                                    "instructions)")
    icache_fill: EnergyEvent = _p("one instruction-cache miss: writing the fetched line")
    scheduler_issue: EnergyEvent = _p("issue of one warp instruction: scoreboard check, "
                                      "selection, dispatch")
    scheduler_cycle: EnergyEvent = _p("one scheduler-cycle of arbitration by a scheduler that "
                                      "has resident warps (issued or stalled)")
    # register file and operand delivery
    rf_read: EnergyEvent = _p("one warp-register read: the bank array only (one bank access)")
    rf_write: EnergyEvent = _p("one warp-register write (one bank access, incl. the writeback "
                               "path)")
    operand_collector: EnergyEvent = _p("one source operand (a warp register) written into a "
                                        "collector unit and read out to the pipeline")
    rf_crossbar: EnergyEvent = _p("one warp register moved through the crossbar from a bank "
                                  "to a collector unit")
    # execution units
    alu_op_per_lane: EnergyEvent = _p("one ALU-pipeline (integer/fp32) lane-cycle: one "
                                      "active lane for one cycle of the instruction's "
                                      "latency (GPUWattch counts SP accesses as lanes x "
                                      "latency)")
    sfu_op_per_lane: EnergyEvent = _p("one SFU lane-cycle (active lane x cycle of latency)")
    mem_op_per_lane: EnergyEvent = _p("address generation of one active lane of a memory "
                                      "instruction (MEM pipeline)")
    # memory system
    l1_access: EnergyEvent = _p("one L1 data-cache transaction (one sector, hit or miss)")
    shared_access: EnergyEvent = _p("one shared-memory pass (all banks, incl. the bank "
                                    "crossbar; an n-way bank conflict costs n passes)")
    const_access: EnergyEvent = _p("one constant-cache access (read and broadcast)")
    l2_access: EnergyEvent = _p("one L2 transaction (one sector, array only)")
    icnt_flit: EnergyEvent = _p("one 32-byte flit over the SM <-> L2 interconnect")
    dram_activate: EnergyEvent = _p("one DRAM row activation (activate + its precharge)")
    dram_read_byte: EnergyEvent = _p("one byte read from the DRAM arrays (column access)")
    dram_write_byte: EnergyEvent = _p("one byte written to the DRAM arrays (column access)")
    dram_io_byte: EnergyEvent = _p("one byte over the DRAM interface (I/O, both directions)")
    # static
    sm_leakage: StaticPower = _p("leakage of one SM in watts, charged only for the cycles "
                                 "the SM holds warps (idle SMs are power-gated)")
    chip_constant: StaticPower = _p("whole-chip constant power in watts (L2, memory "
                                    "controllers, interconnect, clock/uncore), charged for "
                                    "the whole run")
    # where the mechanisms' own structures get their energy per access
    structures: str = _p("energy per access of DARSIE's, G-Scalar's and UV's own structures: "
                         "'papers' (the constants copied from the papers) or 'rtl' (measured "
                         "on our RTL with OpenSTA, golden/timing/rtl_energy.yaml, scaled to "
                         "the paper's node)", choices=ENERGY_STRUCTURE_SOURCES,
                         default="papers")


# --------------------------------------------------------------------------- idealisations

@dataclass(frozen=True)
class IdealisationsConfig:
    """Simplifications a reference simulator makes that are not properties of the GPU.

    They are explicit switches so a config can follow what the paper's simulator did
    (GPGPU-Sim's tested Pascal config turns on all of them) and say so."""

    perfect_icache: bool = _p("every instruction fetch hits the I-cache "
                              "(GPGPU-Sim -gpgpu_perfect_inst_const_cache)")
    perfect_const_cache: bool = _p("every constant/parameter load hits the constant cache "
                                   "(GPGPU-Sim -gpgpu_perfect_inst_const_cache)")
    l2_warm_on_memcpy: bool = _p(
        "host-to-device copies leave their data in the L2 (GPGPU-Sim "
        "-gpgpu_perf_sim_memcpy), so a kernel starts with its inputs in L2 as far as they fit")


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
    energy: EnergyConfig = _p("component energy model: per-event energies, SM leakage "
                              "and chip constant power")
    idealisations: IdealisationsConfig = _p("reference-simulator idealisations (switches)")

    @property
    def peak_dram_bytes_per_cycle(self) -> float:
        """Peak DRAM bandwidth of the whole GPU in bytes per SM core cycle."""
        d = self.memory.dram
        return d.channels * d.bytes_per_core_cycle(self.core.clock_mhz)

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
