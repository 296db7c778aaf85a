"""G-Scalar special moves (seed 003 §3.3): the compiler-assisted liveness rule
(golden.mechanisms.gscalar.dead_dst) against the hardware-only rule, and the costs of the
prior ALU-scalar design (issue 67 point 3)."""

from __future__ import annotations

import numpy as np
import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms.gscalar.dead_dst import move_free_destinations
from golden.mechanisms.gscalar.timing import (
    ALU_SCALAR_FREE, GScalarMechanism, GScalarTimingParams, energy_report, mechanism_counters)
from golden.mechanisms.registry import make_mechanisms
from golden.ptx.parser import parse_ptx
from golden.simt.liveness import live_registers
from golden.simt.program import link
from golden.timing.stats import TimingStats
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry

CFG = load_config("gtx480")

_HEAD = """
.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .pred %p<3>;
    .reg .b32 %r<9>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    cvt.u64.u32 %rd2, %r1;
    shl.b64 %rd2, %rd2, 2;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r5, 5;
    setp.lt.u32 %p1, %r1, 8;
"""

# The threads that skip the write read the old %r5 at the join: per-thread liveness says
# %r5 is dead at the write (it is overwritten), but the move is needed.
OLD_READ_AT_JOIN = _HEAD + """
    @!%p1 bra $J;
    mov.u32 %r5, 1;
$J:
    st.global.u32 [%rd3], %r5;
    ret;
}
"""

# Nobody reads the old %r5 after the divergent write: the join stores %r6 only.
OLD_DEAD = _HEAD + """
    add.u32 %r6, %r5, %r1;
    @!%p1 bra $J;
    mov.u32 %r5, 1;
    add.u32 %r6, %r5, %r6;
$J:
    st.global.u32 [%rd3], %r6;
    ret;
}
"""

# A guarded divergent write: the guard-false threads keep their old value at this PC.
GUARDED_READ = _HEAD + """
    @%p1 mov.u32 %r5, 1;
    st.global.u32 [%rd3], %r5;
    ret;
}
"""
GUARDED_DEAD = _HEAD + """
    @%p1 mov.u32 %r5, 1;
    st.global.u32 [%rd3], %r1;
    ret;
}
"""

# The old value is read on the sibling path (taken by the other threads after this one).
SIBLING_READ = _HEAD + """
    @%p1 bra $T;
    add.u32 %r6, %r5, 1;
    bra.uni $J;
$T:
    mov.u32 %r5, 1;
    mov.u32 %r6, %r5;
$J:
    st.global.u32 [%rd3], %r6;
    ret;
}
"""


def _slot_of(prog, text: str) -> int:
    """Slot of the divergent write ``mov.u32 %r5, 1`` (the second definition of %r5)."""
    hits = [i for i, s in enumerate(prog.slots) if s.inst is not None
            and s.inst.opcode == "mov" and getattr(s.inst.operands[0], "name", "") == "%r5"]
    assert len(hits) == 2, text
    return hits[1]


@pytest.mark.parametrize("src, free", [
    (OLD_READ_AT_JOIN, False), (OLD_DEAD, True), (GUARDED_READ, False), (GUARDED_DEAD, True),
    (SIBLING_READ, False)])
def test_liveness_rule_skips_only_dead_destinations(src, free):
    prog = link(parse_ptx(src), "k")
    i = _slot_of(prog, src)
    key = prog.slots[i].regs["%r5"]
    assert (key in move_free_destinations(prog)[i]) is free


def test_per_thread_liveness_alone_would_be_unsound():
    """The case the rule exists for: %r5 is not live into the divergent write, yet the
    inactive threads read its old value at the join."""
    prog = link(parse_ptx(OLD_READ_AT_JOIN), "k")
    i = _slot_of(prog, OLD_READ_AT_JOIN)
    key = prog.slots[i].regs["%r5"]
    assert key not in live_registers(prog)[i]
    assert key not in move_free_destinations(prog)[i]


def test_kernels_with_calls_keep_every_move():
    src = """
.version 7.0
.target sm_75
.address_size 64
.func f()
{
    ret;
}
.visible .entry k()
{
    call f;
    ret;
}
"""
    assert move_free_destinations(link(parse_ptx(src), "k")) is None


def _run(src, mech):
    dev = TimingDevice(CFG, mechanisms=[mech], echo_printf=False)
    out = dev.to_device(np.zeros(32, dtype=np.uint32))
    st = dev.load_module(code=src).get_function("k")((1,), (32,), (out,))
    return out.get(), st.timing


@pytest.mark.parametrize("variant", ["gscalar", "gscalar-half", "alu-scalar"])
def test_liveness_drops_the_move_only_for_the_dead_destination(variant):
    """OLD_READ_AT_JOIN: the write to %r5 keeps its move. OLD_DEAD: the move for %r5 goes;
    where compression keeps %r6 = 5 + tid (3 common bytes), its divergent update keeps its
    move (the inactive threads store their %r6 at the join); the scalar RF holds no %r6."""
    tid = np.arange(32)
    r6_moves = 0 if variant == "alu-scalar" else 1
    for src, want, n_all, n_live in (
            (OLD_READ_AT_JOIN, np.where(tid < 8, 1, 5), 1, 1),
            (OLD_DEAD, np.where(tid < 8, 1 + 5 + tid, 5 + tid), 1 + r6_moves, r6_moves)):
        runs = {m: _run(src, GScalarMechanism(CFG, variant, special_moves=m))
                for m in ("all", "liveness")}
        for m, (out, st) in runs.items():
            assert (out == want).all(), (variant, m)
        c_all = mechanism_counters(runs["all"][1], variant)
        c_live = mechanism_counters(runs["liveness"][1], variant)
        assert c_all["special_moves"] == n_all and c_all["moves_dead"] == 0
        assert c_live["special_moves"] == n_live and c_live["moves_dead"] == n_all - n_live
        if n_live == n_all:
            assert runs["liveness"][1].cycles == runs["all"][1].cycles


LOOP_DEAD = _HEAD + """
    mov.u32 %r4, 0;
    mov.u32 %r6, 0;
$L:
    mov.u32 %r5, 5;
    add.u32 %r6, %r6, %r5;
    @!%p1 bra $J;
    add.u32 %r5, %r4, %r6;
    add.u32 %r6, %r6, %r5;
$J:
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, {iters};
    @%p2 bra $L;
    st.global.u32 [%rd3], %r6;
    ret;
}
"""


def test_dropped_moves_leave_the_critical_path():
    """Every iteration overwrites a dead scalar %r5 divergently on the loop-carried chain:
    the hardware-only rule injects a pipeline pass ahead of it each time, the liveness rule
    none (the move for %r6, live at the join, stays under both)."""
    iters = 30
    src = LOOP_DEAD.replace("{iters}", str(iters))
    runs = {m: _run(src, GScalarMechanism(CFG, "gscalar", special_moves=m))
            for m in ("all", "liveness")}
    assert (runs["all"][0] == runs["liveness"][0]).all()
    c_all = mechanism_counters(runs["all"][1], "gscalar")
    c_live = mechanism_counters(runs["liveness"][1], "gscalar")
    assert c_live["moves_dead"] == iters
    assert c_all["special_moves"] - c_live["special_moves"] == iters
    interval = -(-32 // CFG.pipelines.alu.simd_width)
    assert runs["all"][1].cycles - runs["liveness"][1].cycles >= interval * (iters - 1)


def test_special_moves_switch_parses():
    ms = [make_mechanisms([n], CFG)[0]
          for n in ("gscalar", "gscalar:special_moves=all", "gscalar-half:special_moves=all",
                    "alu-scalar:costs=free", "alu-scalar")]
    assert [m.special_moves for m in ms] == ["liveness", "all", "all", "liveness", "liveness"]
    assert [m.extra_latency for m in ms] == [3, 3, 3, 0, 2]
    assert ms[3].variant is ALU_SCALAR_FREE and ms[4].variant.prior_costs
    with pytest.raises(ConfigError, match="special_moves must be one of liveness, all"):
        make_mechanisms(["gscalar:special_moves=some"], CFG)
    with pytest.raises(ConfigError, match="costs must be design or free"):
        make_mechanisms(["alu-scalar:costs=cheap"], CFG)


class _StackChecked(GScalarMechanism):
    """G-Scalar that checks, at every divergent instruction, that each destination the
    liveness rule marks move-free is dead at every PC an inactive thread of the warp waits
    at (SIMT stack entries below the top; the next PC for guard-false threads)."""

    checked = 0

    def on_issue(self, sm, warp, pc, inst):
        ov = super().on_issue(sm, warp, pc, inst)
        cur = self._cur
        if cur is None or not self._move_free:
            return ov
        _, _, st, active, full = cur
        if active == full or not st.move_free:
            return ov
        live = self._live.get(id(sm.launch.program))
        if live is None:
            live = self._live[id(sm.launch.program)] = live_registers(sm.launch.program)
        s = warp.wave.stacks
        w = warp.widx
        depth = int(s.depth[w])
        waiting = []
        for d in range(depth):
            m = int(s.mask[w, d]) & full & ~active
            if m and (d < depth - 1 or st.guard is not None):
                waiting.append((pc >> 3) + 1 if d == depth - 1 else int(s.pc[w, d]) >> 3)
        for key in st.move_free:
            for q in waiting:
                assert key not in live[q], (sm.launch.program.kernel.name, pc, key, q)
                self.checked += 1
        return ov


@pytest.mark.slow
@pytest.mark.parametrize("name", ["TPACF", "LBM", "HS"])
def test_liveness_rule_is_sound_on_the_live_simt_stack(name, shrink_small):
    shrink_small.tiny(name)
    mech = _StackChecked(CFG, "gscalar")
    mech._live = {}
    dev = TimingDevice(CFG, mechanisms=[mech], echo_printf=False)
    run = registry.run_workload(name, size="small", seed=0, device=dev)
    assert not run.mismatches()
    st = TimingStats.merged([s.timing for s in run.stats], concurrent=False)
    c = mechanism_counters(st, "gscalar")
    assert mech.checked > 0, name           # divergent writes to move-free registers seen
    if name == "TPACF":   # the workload whose moves the rule drops (LBM's, HS's are live)
        assert c["moves_dead"] > 0


def test_alu_scalar_design_costs_in_the_energy_report():
    p = GScalarTimingParams()
    # comparators' area share: 0.7% x 4 x 11,624 / (4 x 11,624 + 16 x 7,332)
    assert p.comparator_area_share == pytest.approx(0.007 * 46496 / 163808)
    st = TimingStats.for_config(CFG)
    st.cycles = 1400
    st.sm_cycles = 2800
    st.rf_reads[0] = 3
    for k, v in {"rf_reads": 3, "srf_reads": 2, "rf_read_arrays": 8, "compressions": 10}.items():
        st.count_mechanism(f"alu-scalar.{k}", v)
    free = energy_report(st, CFG, ALU_SCALAR_FREE)
    design = energy_report(st, CFG, "alu-scalar")
    assert design.component("register_file").joules == free.component("register_file").joules
    assert design.component("gscalar_logic").joules == pytest.approx(10 * 16.22 / 1.4 * 1e-12)
    sm_seconds = 2800 / (CFG.core.clock_mhz * 1e6)
    assert design.static - free.static == pytest.approx(
        p.comparator_area_share * CFG.energy.sm_leakage.watts * sm_seconds)
    with pytest.raises(KeyError):
        free.component("gscalar_logic")


def test_single_srf_bank_serialises_scalar_operands():
    """Two scalar sources of one instruction take two cycles of the one SRF bank [3]."""
    src = _HEAD + """
    mov.u32 %r6, 7;
    add.u32 %r7, %r5, %r6;
    add.u32 %r8, %r7, %r1;
    st.global.u32 [%rd3], %r8;
    ret;
}
"""
    out_d, st_d = _run(src, GScalarMechanism(CFG, "alu-scalar"))
    out_f, st_f = _run(src, make_mechanisms(["alu-scalar:costs=free"], CFG)[0])
    assert (out_d == out_f).all()
    c = mechanism_counters(st_d, "alu-scalar")
    assert c["srf_wait_cycles"] >= 1
    assert mechanism_counters(st_f, "alu-scalar")["srf_wait_cycles"] == 0
    assert st_d.cycles > st_f.cycles
