"""Validation microbenchmarks: each kernel's timing follows from the configuration.

The kernels are in ``golden/validate/kernels/microbench.cu`` (PTX committed). Each
function below runs one microbenchmark on the timing model of a configuration and
returns a :class:`Measurement` -- what the model measured beside what the configuration
predicts (the formula is in each docstring). ``simtlab validate`` prints them;
``tests/timing/test_microbench.py`` asserts them.

The expected values use only configuration parameters and the memory model's own
latency for one isolated access (:meth:`MemoryHierarchy.access` on an empty system), so
a mismatch means the SM pipeline (fetch, issue, operand collection, writeback) does not
add up the way its documentation says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from golden.timing.memory.hierarchy import MemoryHierarchy
from golden.timing.stats import STALL_MEMORY
from golden.timing.timing_device import TimingDevice

PTX = Path(__file__).resolve().parent / "kernels" / "microbench.ptx"
SEED = 1234


@dataclass(frozen=True)
class Measurement:
    """One microbenchmark result: ``measured`` by the model, ``expected`` from the config."""

    name: str
    measured: float
    expected: float
    unit: str
    note: str = ""
    #: a second measured figure where one is useful (peak IPC: the whole-run IPC, which
    #: includes start-up and must never exceed the peak)
    whole_run: float | None = None

    @property
    def ratio(self) -> float:
        return self.measured / self.expected if self.expected else float("nan")


def run_kernel(cfg, kernel: str, grid, block, make_args):
    """Run one microbenchmark kernel on a fresh timing device; ``(device, stats)``."""
    dev = TimingDevice(cfg, echo_printf=False)
    mod = dev.load_module(PTX)
    args = make_args(dev)
    st = mod.get_function(kernel)(grid, block, args)
    st.timing.check()
    return dev, st


def _with(cfg, **ideal):
    return replace(cfg, idealisations=replace(cfg.idealisations, **ideal))


def _interval(cfg, pipe) -> int:
    return -(-cfg.core.warp_size // pipe.simd_width)


def dependent_issue_distance(cfg, pipe, latency: int) -> int:
    """Cycles from issuing an instruction to issuing one that depends on it (no bank
    conflict): operand read ``read_delay`` after issue, pipeline entry ``dispatch_delay``
    after the read, writeback ``interval - 1 + latency`` after entry, scoreboard release
    ``writeback_delay`` later; the dependent issues in the release cycle. With
    ``pipelines.bypass`` the dependent enters EX1 right after the producer's last EX
    stage: ``interval - 1 + latency``."""
    rf = cfg.register_file
    if cfg.pipelines.bypass:  # EX(last) -> EX1 forwarding: only the execution stages count
        return _interval(cfg, pipe) - 1 + latency
    return (rf.read_delay + rf.dispatch_delay + _interval(cfg, pipe) - 1 + latency
            + rf.writeback_delay)


def peak_ipc_per_sm(cfg) -> float:
    """Warp instructions one SM can start per cycle on independent fma code: the minimum
    of fetch (warps per cycle x instructions per fetch), issue (one ALU instruction per
    scheduler and cycle when dual issue needs distinct units) and the ALU pipelines."""
    c, alu = cfg.core, cfg.pipelines.alu
    per_sched = 1 if c.dual_issue_distinct_units else c.issue_width
    ii = cfg.pipelines.op_classes.fp_mad.initiation
    return min(c.fetch_width * c.fetch_instructions, c.num_schedulers_per_sm * per_sched,
               alu.count * alu.simd_width / (c.warp_size * ii))


def dependent_alu_latency(cfg) -> Measurement:
    """64 extra dependent fma cost 64 x :func:`dependent_issue_distance` of the fp_mad
    class plus any RF bank-conflict waits (perfect I-cache, so the extra instructions'
    cold misses do not count)."""
    c = _with(cfg, perfect_icache=True)

    def args(dev):
        a = np.random.default_rng(SEED).random(32).astype(np.float32)
        return (dev.to_device(a), dev.zeros(32, np.float32), np.float32(0.5), np.float32(0.25))

    _, s64 = run_kernel(c, "alu_chain64", 1, 32, args)
    _, s128 = run_kernel(c, "alu_chain128", 1, 32, args)
    per = (s128.cycles - s64.cycles) / 64
    fma = cfg.pipelines.op_classes.fp_mad
    # an operand that waits for its RF bank (two sources of one fma in one bank) delays
    # the chain by the waiting cycles: counted by the model, added to the formula
    conflicts = (s128.timing.oc_bank_conflicts - s64.timing.oc_bank_conflicts) / 64
    return Measurement("dependent fma chain", per,
                       dependent_issue_distance(cfg, cfg.pipelines.alu, fma.latency) + conflicts,
                       "cycles/inst", f"incl. {conflicts:.2f} bank-conflict cycles/inst")


def peak_alu_ipc(cfg) -> Measurement:
    """1024 threads of eight independent fma chains on one SM: steady-state warp IPC
    (cycles in which every scheduler waited on the first load excluded, an estimate
    good to about 1%) reaches the configured peak (:func:`peak_ipc_per_sm`); the
    whole-run IPC never exceeds it."""
    a = np.random.default_rng(SEED).random(1024).astype(np.float32)
    threads = min(1024, cfg.core.max_threads_per_sm)
    _, st = run_kernel(cfg, "alu_independent", 1, threads,
                       lambda dev: (dev.to_device(a[:threads]), dev.zeros(threads, np.float32)))
    t = st.timing
    n_sched = cfg.core.num_schedulers_per_sm
    steady = t.instructions_executed / (t.cycles - t.stalls[STALL_MEMORY] / n_sched)
    return Measurement("peak ALU IPC (one SM)", steady, peak_ipc_per_sm(cfg), "warp inst/cycle",
                       f"whole-run IPC {t.ipc:.2f}", whole_run=t.ipc)


def isolated_load_latency(cfg, warm: bool) -> int:
    """The memory model's latency of one isolated 8-byte global load on an empty system
    (L2 hit if ``warm``: the whole line is placed in the L2 first, since an L1 that
    fetches whole lines, ``memory.l1.fetch_line``, asks the L2 for all of it)."""
    mem = MemoryHierarchy(cfg)
    addr = 1 << 20
    if warm:
        mem.warm_l2([(addr, cfg.memory.l2.line_bytes)])
    addrs = np.zeros(cfg.core.warp_size, dtype=np.uint64)
    addrs[0] = addr
    return mem.access(0, 0, 0, addrs, 1, 8).completion_cycle


def _chase_args(n_lines: int, stride: int, steps: int):
    def args(dev):
        buf = dev.zeros(n_lines * stride // 8, np.uint64)
        order = np.random.default_rng(SEED).permutation(n_lines)
        ptrs = np.zeros(n_lines * stride // 8, np.uint64)
        for i in range(n_lines):
            nxt = order[(i + 1) % n_lines]
            ptrs[order[i] * stride // 8] = buf.ptr + nxt * stride
        buf.set(ptrs)
        return (np.uint64(buf.ptr + order[0] * stride), np.int32(steps), dev.zeros(1, np.uint64))
    return args


def _chase_overhead(cfg) -> float:
    """SM cycles a pointer-chasing load adds to its memory latency: operand read + MEM
    pipeline interval and depth, plus the dependent ``cvta.to.global`` nvcc places before
    3 of every 4 unrolled loads."""
    mp, alu = cfg.pipelines.mem, cfg.pipelines.alu
    # issue -> request to memory, plus writeback_delay after the data returns
    mem_stage = dependent_issue_distance(cfg, mp, mp.latency)
    cvta = 0.75 * dependent_issue_distance(cfg, alu, alu.latency)
    return mem_stage + cvta


def load_latency(cfg, level: str) -> Measurement:
    """Pointer chasing through 256 lines 4 KB apart: each dependent load costs the memory
    model's isolated latency at ``level`` ("l2": lines warmed into the L2 by the host copy;
    "dram": cold L2) plus :func:`_chase_overhead`. For DRAM the expectation is the
    closed-bank latency; the chase also meets row hits and conflicts, so it lies within
    a few percent (tests/timing/test_microbench.py replays the exact sequence)."""
    warm = level == "l2"
    c = _with(cfg, l2_warm_on_memcpy=warm)
    if warm and c.memory.l2.size_bytes < (2 << 20):
        # the chase's 1 MiB (warmed by its host copy) must stay in the L2; an L2 hit's
        # latency does not depend on the capacity, so give a small L2 room
        l2 = c.memory.l2
        c = replace(c, memory=replace(c.memory, l2=replace(l2, size_bytes=l2.size_bytes * 4)))
    n_lines, stride = 256, 4096
    _, s1 = run_kernel(c, "pointer_chase", 1, 1, _chase_args(n_lines, stride, 64))
    _, s2 = run_kernel(c, "pointer_chase", 1, 1, _chase_args(n_lines, stride, 192))
    per = (s2.cycles - s1.cycles) / 128
    iso = isolated_load_latency(c, warm)
    return Measurement(f"dependent load, {'L2 hit' if warm else 'DRAM (L2 miss)'}", per,
                       iso + _chase_overhead(c), "cycles/load",
                       f"memory model alone: {iso} cycles")


def dram_bandwidth(cfg) -> Measurement:
    """A float4 read stream over 1 MiB with four independent loads per iteration, on 4 SMs
    and 2 DRAM channels (so 4 SMs can saturate them), cold L2: bytes per cycle reach the
    configured DRAM peak."""
    c = replace(_with(cfg, l2_warm_on_memcpy=False),
                core=replace(cfg.core, num_sms=4),
                memory=replace(cfg.memory, dram=replace(cfg.memory.dram, channels=2)))
    n4 = 1 << 16
    data = np.random.default_rng(SEED).random(4 * n4).astype(np.float32)
    _, st = run_kernel(c, "stream_read", 8, 256,
                       lambda dev: (dev.to_device(data), np.int32(n4),
                                    dev.zeros(8 * 256, np.float32)))
    t = st.timing
    return Measurement("DRAM streaming bandwidth (2 channels)", t.dram_bytes / t.cycles,
                       c.peak_dram_bytes_per_cycle, "bytes/cycle",
                       f"{t.dram_bytes:,} bytes in {t.cycles:,} cycles")


def shared_passes(warp_size: int, banks: int, stride: int) -> int:
    """Serialised passes of one warp access where lane ``l`` reads word ``l * stride``:
    the busiest bank holds ``warp_size * gcd(stride, banks) / banks`` distinct words."""
    return max(1, warp_size * math.gcd(stride, banks) // banks)


def shared_conflicts(cfg, stride: int) -> Measurement:
    """Lane ``l`` reads shared word ``l * stride + k`` 16 times after a unit-stride
    initialisation (1024 words, one warp): each read costs :func:`shared_passes` passes
    (on 32 banks, ``stride`` passes for stride <= 32)."""
    _, st = run_kernel(cfg, "shared_stride", 1, 32,
                       lambda dev: (dev.zeros(32, np.float32), np.int32(stride)))
    t = st.timing
    ws, banks = cfg.core.warp_size, cfg.memory.shared.banks
    writes = (1024 // ws) * shared_passes(ws, banks, 1)  # the initialisation stores
    passes = (t.shared_accesses - writes) / 16
    return Measurement(f"shared-memory passes per read, stride {stride}", passes,
                       float(shared_passes(ws, banks, stride)), "passes")


def all_measurements(cfg) -> list[Measurement]:
    """Every microbenchmark on ``cfg`` (a few seconds each)."""
    out = [dependent_alu_latency(cfg), peak_alu_ipc(cfg), load_latency(cfg, "l2"),
           load_latency(cfg, "dram"), dram_bandwidth(cfg)]
    out += [shared_conflicts(cfg, s) for s in (1, 2, 4, 32)]
    return out
