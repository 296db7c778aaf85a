"""cocotb testbench: rtl.gscalar.bank.CompressedBank vs golden CompressedBank (seed 003 §3).

The RTL's read outputs arrive one cycle after the request (synchronous-read SRAM arrays,
``rtl.gscalar.bank.READ_LATENCY``); the golden bank is scored through
:class:`golden.structures.registered.Registered`.

* ``run_random``: seeded random cycles (compressed and divergent writes with their
  special moves, decompressed reads, raw cycles with a read and a write together, writes
  that skip the special move), every output scored every cycle, coverage goals asserted.
* ``run_traces``: replay of the register writes and reads of real kernels (recorded
  from golden functional runs by the pytest wrapper, see :data:`TRACE_WORKLOADS`); each
  cycle is scored against the golden bank, each read is decompressed from the DUT's
  outputs and must equal the value the kernel read, and its activated-array count must
  equal :func:`golden.structures.gscalar.encoding.arrays_read` of its metadata.

The arrays are SRAM (not reset), so each run first clears every register with a raw
write of zeros, which the golden bank sees too.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import cocotb
import numpy as np
import pytest

from golden.structures.gscalar.bank import BankOps, BankOutputs, CompressedBank
from golden.structures.gscalar.decompressor import Decompressor
from golden.structures.gscalar.encoding import arrays_read
from golden.structures.gscalar.params import GScalarParams, unpack_fields, unpack_lanes
from golden.structures.gscalar.trace import RegisterTrace, bank_cycles, record_register_trace
from golden.structures.registered import Registered
from rtl.gscalar.bank import READ_LATENCY, READ_OUTPUTS
from rtl.gscalar.bank import CompressedBank as BankRTL
from tb.gscalar.stimulus import (
    BANK_COVERAGE_GOALS, TRACE_WORKLOADS, bank_coverage, random_bank_ops,
)
from tb.runner import REPO_ROOT, Scoreboard, run_cocotb, tb_params, tb_seed
from tb.stepper import LazyText, StepTB, play, play_random

RANDOM_CYCLES = 600
TRACE_EVENTS = 300
#: Environment variable with the trace files (os.pathsep-separated) for ``run_traces``.
ENV_TRACES = "SIMTLAB_GSCALAR_TRACES"


def _params() -> GScalarParams:
    return GScalarParams(**tb_params())


def clear_ops(params: GScalarParams) -> list[BankOps]:
    """Raw writes of zeros to every register: DUT and a fresh golden bank then agree."""
    return [BankOps(wr_en=1, wr_reg=r, wr_mask=params.full_mask, wr_raw=1)
            for r in range(params.registers)]


@cocotb.test()
async def run_random(dut):
    params = _params()
    seed = tb_seed()
    dut._log.info("bank %s random: seed %d, %d cycles", params, seed, RANDOM_CYCLES)
    ops = clear_ops(params) + random_bank_ops(params, random.Random(seed), RANDOM_CYCLES)
    tb = StepTB(dut, BankOps, BankOutputs)
    tb.start()
    board = Scoreboard(f"bank {params} random", log=dut._log)
    golden = _registered(CompressedBank(params))
    # scored on the registered read ports; coverage counted on the request cycle's outputs
    await play_random(tb, golden, ops + [BankOps()], board,
                      lambda e, o, cov: bank_coverage(golden.last, o, params, cov), BANK_COVERAGE_GOALS)


def _registered(golden: CompressedBank) -> Registered:
    """The golden bank as the RTL's ports show it: read outputs one cycle late (SRAM arrays)."""
    return Registered(golden, READ_OUTPUTS, READ_LATENCY)


@cocotb.test()
async def run_traces(dut):
    params = _params()
    paths = [p for p in os.environ.get(ENV_TRACES, "").split(os.pathsep) if p]
    assert len(paths) >= 3, f"{ENV_TRACES} must name at least three trace files, got {paths}"
    tb = StepTB(dut, BankOps, BankOutputs)
    tb.start()
    await tb.restart()
    dec = Decompressor(params)
    for path in paths:
        trace = RegisterTrace.load(path)
        cycles, replayed = bank_cycles(trace, params)     # golden: reads return the kernel's values
        board = Scoreboard(f"bank trace {trace.workload}", log=dut._log)
        golden = _registered(CompressedBank(params))
        await play(tb, golden, clear_ops(params), board, "clear")
        reads = 0
        pending = None      # the read requested last cycle: its outputs arrive now
        for i, ops in enumerate([c.ops for c in cycles] + [BankOps()]):
            got = await tb.cycle(ops)
            board.check(LazyText("{} cycle {} {}", trace.workload, i, ops), golden.step(ops), got)
            cyc, pending = pending, (cycles[i] if i < len(cycles) and cycles[i].expect is not None
                                     else None)
            if cyc is None:
                continue
            values = dec.decompress(unpack_lanes(got.rd_data, 32), unpack_fields(got.rd_enc, 4, 1),
                                    unpack_fields(got.rd_bvr, 32, 1), bool(got.rd_d))
            board.check(f"{trace.workload} read {i} value", cyc.expect.tolist(), values.tolist())
            want = int(arrays_read(np.array([got.rd_enc]), np.array([bool(got.rd_d)]), 32)[0][0])
            board.check(f"{trace.workload} read {i} arrays", want, bin(got.rd_arrays).count("1"))
            reads += 1
        board.finish()
        dut._log.info("trace %s: %d cycles, %d reads, %d special moves, all matched",
                      trace.workload, len(cycles), reads, replayed.special_moves)
        assert reads > 0


def make_traces(events: int = TRACE_EVENTS) -> list[Path]:
    """Record the register traces of :data:`TRACE_WORKLOADS` into build/traces/."""
    out = []
    for workload, warp in TRACE_WORKLOADS:
        path = REPO_ROOT / "build" / "traces" / f"gscalar_{workload}_w{warp}_{events}.npz"
        record_register_trace(workload, warps=(warp,), max_events=events).save(path)
        out.append(path)
    return out


@pytest.mark.parametrize(("lanes", "registers", "groups"), [(32, 64, 1), (32, 8, 1), (16, 6, 2)],
                         ids=["paper", "small", "half_groups"])
def test_bank_random_cocotb(lanes, registers, groups):
    run_cocotb(BankRTL, {"lanes": lanes, "registers": registers, "groups": groups},
               test_module=__name__, toplevel="bank", testcase="run_random")


def test_bank_traces_cocotb():
    paths = make_traces()
    run_cocotb(BankRTL, {"lanes": 32, "registers": 64, "groups": 1}, test_module=__name__,
               toplevel="bank", testcase="run_traces",
               extra_env={ENV_TRACES: os.pathsep.join(str(p) for p in paths)})
