"""G-Scalar on the timing model (golden/mechanisms/gscalar/timing.py) and its report.

Fast: a hand-written kernel with a known scalar class per instruction under every variant,
a dependent chain (the +3 cycles cost exactly 3 cycles per link, never speed it up), the
compressor comparison against the reference encoder, the energy arithmetic by hand, the
counters' consistency with the timing model's own events on MM, and the report's
rendering. Slow: outputs bit-identical on every G-Scalar workload under every variant,
and the timing mechanism's eligibility equal to the functional analysis on BP.
"""

from __future__ import annotations

import numpy as np
import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.host import Device
from golden.mechanisms.gscalar.timing import (
    ALU_SCALAR_FREE, COUNTERS, VARIANTS, GScalarMechanism, GScalarTimingParams, common_msb_bytes, energy_report,
    load_timing_params, mechanism_counters, parts32,
)
from golden.mechanisms.registry import make_mechanisms
from golden.report.runner import ReportOptions, TimingJob, output_digest, run_job
from golden.structures.gscalar.encoding import byte_enc, common_bytes, group_enc
from golden.timing.energy import EnergyModel
from golden.timing.stats import PIPE_ALU, PIPE_MEM, PIPE_SFU, TimingStats
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry

SEED = 20170204
CFG = load_config("gtx480")

# Two warps (one TB of 64 threads). Per warp, the class each instruction must get under
# `gscalar`; [half] = half-scalar under `gscalar-half`.
KERNEL = r"""
.version 7.0
.target sm_75
.address_size 64

.visible .entry k(.param .u64 k_param_0)
{
    .reg .pred  %p<2>;
    .reg .b32   %r<16>;
    .reg .f32   %f<3>;
    .reg .b64   %rd<5>;

    ld.param.u64        %rd1, [k_param_0];      // scalar_mem (no register source)
    mov.u32             %r1, %tid.x;            // vector (tid differs)
    mov.u32             %r5, 7;                 // scalar_alu
    add.u32             %r6, %r5, %r5;          // scalar_alu
    add.u32             %r2, %r1, %r5;          // vector
    mov.u32             %r10, %laneid;          // vector
    shr.u32             %r13, %r10, 4;          // vector; each half of r13 is a scalar
    add.u32             %r14, %r13, 1;          // vector [half: both halves scalar, 2 lanes]
    mov.f32             %f2, 0f40800000;        // scalar_alu
    sqrt.approx.f32     %f1, %f2;               // scalar_sfu
    setp.lt.u32         %p1, %r10, 8;           // vector
    @%p1 add.u32        %r7, %r5, 1;            // div_scalar (D=0 scalar source)
    @%p1 add.u32        %r8, %r7, 1;            // div_scalar (D=1 source, same mask)
    @!%p1 add.u32       %r9, %r7, 1;            // vector: r7's stored mask differs (Fig. 7b)
    @%p1 mov.u32        %r5, 3;                 // div_scalar; special move (r5 compressed)
    cvt.u64.u32         %rd2, %r1;              // vector
    shl.b64             %rd3, %rd2, 2;          // vector
    add.s64             %rd4, %rd1, %rd3;       // vector
    st.global.u32       [%rd4], %r6;            // vector (address differs)
    ret;
}
"""
N_INST = 20


def _run_hand(mechs):
    dev = TimingDevice(CFG, mechanisms=mechs, echo_printf=False)
    out = dev.to_device(np.zeros(64, dtype=np.uint32))
    st = dev.load_module(code=KERNEL).get_function("k")((1,), (64,), (out,))
    return out.get(), st.timing


@pytest.fixture(scope="module")
def hand_runs():
    runs = {None: _run_hand([])}
    for v in VARIANTS:
        # the hardware-only rule: a move for every divergent write to a compressed register
        runs[v] = _run_hand([GScalarMechanism(CFG, v, special_moves="all")])
    return runs


def test_hand_kernel_outputs_identical(hand_runs):
    base = hand_runs[None][0]
    assert (base == 14).all()
    for v in VARIANTS:
        assert np.array_equal(hand_runs[v][0], base), v


@pytest.mark.parametrize("variant, expect", [
    ("gscalar", dict(scalar_alu=3, scalar_sfu=1, scalar_mem=1, half=0, div_scalar=3,
                     special_moves=1, lanes_saved_alu=3 * 31 + 3 * 7, lanes_saved_sfu=31,
                     lanes_saved_mem=31)),
    ("gscalar-half", dict(scalar_alu=3, scalar_sfu=1, scalar_mem=1, half=1, div_scalar=3,
                          special_moves=1, lanes_saved_alu=3 * 31 + 3 * 7 + 30,
                          lanes_saved_sfu=31, lanes_saved_mem=31)),
    ("alu-scalar", dict(scalar_alu=3, scalar_sfu=0, scalar_mem=0, half=0, div_scalar=0,
                        special_moves=1, move_srf=1, lanes_saved_alu=3 * 31, lanes_saved_sfu=0,
                        lanes_saved_mem=0)),
])
def test_hand_kernel_classes(hand_runs, variant, expect):
    _, st = hand_runs[variant]
    c = mechanism_counters(st, variant)
    assert c["instructions"] == 2 * N_INST == st.instructions_issued
    assert c["divergent"] == 2 * 4
    assert c["thread_lanes"] == st.thread_instructions
    for k, v in expect.items():
        assert c[k] == 2 * v, (k, c[k])


def test_hand_kernel_rf_events(hand_runs):
    """Reads/writes accounted = the timing model's; scalar writes activate no array."""
    for v in VARIANTS:
        st = hand_runs[v][1]
        c = mechanism_counters(st, v)
        assert c["rf_reads"] == st.rf_reads_total and c["rf_writes"] == st.rf_writes_total
    c = mechanism_counters(hand_runs["gscalar"][1], "gscalar")
    assert c["rf_read_meta"] == c["rf_reads"] and c["rf_write_meta"] == c["rf_writes"]
    assert 0 < c["rf_write_arrays"] < 8 * c["rf_writes"]
    assert c["move_read_arrays"] == 0 and c["move_write_arrays"] == 2 * 8   # r5 was a scalar


# ---------------------------------------------------------------- +3 cycles
def _chain_kernel(links: int, iters: int) -> str:
    """One warp runs a loop whose body is a chain of ``links`` dependent adds (the loop
    keeps the I-cache warm, so the chain, not instruction fetch, bounds the run)."""
    body = "\n".join("    add.u32 %r1, %r1, %r2;" for _ in range(links))
    return f"""
.version 7.0
.target sm_75
.address_size 64
.visible .entry c(.param .u64 c_param_0)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [c_param_0];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 3;
    mov.u32 %r3, %r1;
    mov.u32 %r4, 0;
$L_loop:
{body}
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p1, %r4, {iters};
    @%p1 bra $L_loop;
    cvt.u64.u32 %rd2, %r3;
    shl.b64 %rd2, %rd2, 2;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}}
"""


def test_extra_latency_costs_three_cycles_per_dependent_link():
    links, iters = 8, 20
    cycles, outs = {}, {}
    variants = {None: None, "gscalar": "gscalar", "alu-scalar": "alu-scalar",
                "alu-free": ALU_SCALAR_FREE}
    for v, var in variants.items():
        dev = TimingDevice(CFG, mechanisms=[GScalarMechanism(CFG, var)] if var else [],
                           echo_printf=False)
        out = dev.to_device(np.zeros(32, dtype=np.uint32))
        st = dev.load_module(code=_chain_kernel(links, iters)).get_function("c")((1,), (32,), (out,))
        cycles[v], outs[v] = st.timing.cycles, out.get()
    assert (outs[None] == np.arange(32) + 3 * links * iters).all()
    assert all(np.array_equal(outs[v], outs[None]) for v in outs)
    extra = load_timing_params().extra_latency_cycles
    assert extra == 3
    diff = cycles["gscalar"] - cycles[None]
    # at least the first links - 1 adds of every iteration are on the critical path and each
    # waits 3 cycles longer; at most every instruction of the loop does
    assert extra * (links - 1) * iters <= diff <= extra * (links + 3) * iters + 30
    assert cycles["alu-free"] == cycles[None]
    # ALU scalar with its design's +2 cycles: the same bounds, scaled (its scalar RF adds
    # waits on top only where a link reads a scalar; the chain is vector)
    diff = cycles["alu-scalar"] - cycles[None]
    assert 2 * (links - 1) * iters <= diff <= 2 * (links + 3) * iters + 30


def test_latency_is_per_instruction_and_launch_state_released():
    m = GScalarMechanism(CFG, "gscalar")
    dev = TimingDevice(CFG, mechanisms=[m], echo_printf=False)
    out = dev.to_device(np.zeros(32, dtype=np.uint32))
    f = dev.load_module(code=_chain_kernel(4, 3)).get_function("c")
    c1 = f((1,), (32,), (out,)).timing.cycles
    c2 = f((1,), (32,), (out,)).timing.cycles        # a second launch: same cycles
    assert c1 == c2
    assert m.tracker is None                         # per-launch state released


# A divergent write to a register that holds a compressed (scalar) value needs the special
# move of §3.3 first: 'r2' is written scalar by all 32 threads, then by 8 of them, every
# iteration.
MOVES_KERNEL = r"""
.version 7.0
.target sm_75
.address_size 64

.visible .entry m(.param .u64 m_param_0)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [m_param_0];
    mov.u32 %r1, %tid.x;
    mov.u32 %r3, 0;
    mov.u32 %r4, 0;
$L_loop:
    mov.u32 %r2, 5;
    setp.lt.u32 %p1, %r1, 8;
    @%p1 add.u32 %r2, %r1, %r4;
    add.u32 %r3, %r3, %r2;
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, {iters};
    @%p2 bra $L_loop;
    cvt.u64.u32 %rd2, %r1;
    shl.b64 %rd2, %rd2, 2;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}}
"""


def test_special_moves_occupy_the_pipeline():
    iters = 30
    cycles, outs, moves = {}, {}, {}
    for inject in (False, True):
        m = GScalarMechanism(CFG, "gscalar", inject_moves=inject)
        dev = TimingDevice(CFG, mechanisms=[m], echo_printf=False)
        out = dev.to_device(np.zeros(32, dtype=np.uint32))
        st = dev.load_module(code=MOVES_KERNEL.format(iters=iters)).get_function("m")(
            (1,), (32,), (out,))
        cycles[inject], outs[inject] = st.timing.cycles, out.get()
        moves[inject] = mechanism_counters(st.timing, "gscalar")["special_moves"]
    tid = np.arange(32)
    want = np.where(tid < 8, iters * tid + iters * (iters - 1) // 2, 5 * iters)
    assert (outs[True] == want).all() and (outs[False] == want).all()
    assert moves[True] == moves[False] == iters        # one move per divergent write
    # each move takes one pass of the ALU ahead of the divergent add, on the critical path
    interval = -(-32 // CFG.pipelines.alu.simd_width)
    assert cycles[True] - cycles[False] >= interval * (iters - 1)
    with pytest.raises(ConfigError, match="inject_moves"):
        GScalarMechanism(CFG, "gscalar", inject_moves="yes")


# ---------------------------------------------------------------- compressor comparison
def test_common_msb_bytes_matches_reference_encoder():
    rng = np.random.default_rng(SEED)
    n = 400
    base = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    spread = np.array([0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF], dtype=np.uint32)[rng.integers(0, 5, n)]
    noise = rng.integers(0, 2 ** 32, (n, 32), dtype=np.uint64).astype(np.uint32)
    vals = base[:, None] ^ (noise & spread[:, None])
    act = rng.random((n, 32)) < rng.choice([0.05, 0.5, 1.0], n)[:, None]
    enc, _ = byte_enc(vals, act)
    ref = common_bytes(enc)
    genc, _ = group_enc(vals, act, groups=2)
    gref = common_bytes(genc)
    for i in range(n):
        assert common_msb_bytes(vals[i][act[i]]) == ref[i]
        for h in (0, 1):
            sl = slice(16 * h, 16 * h + 16)
            assert common_msb_bytes(vals[i, sl][act[i, sl]]) == gref[i, h]
    assert set(ref.tolist()) == {0, 1, 2, 3, 4}


def test_parts32_splits_wide_and_narrow_registers():
    v = np.array([0x1122334455667788] * 32, dtype=np.uint64)
    lo, hi = parts32(v)
    assert lo[0] == 0x55667788 and hi[0] == 0x11223344
    (p,) = parts32(np.array([True, False] * 16))
    assert p.dtype == np.uint32 and p[:2].tolist() == [1, 0]
    (s,) = parts32(np.full(32, -1, dtype=np.int16))
    assert s[0] == 0xFFFF


# ---------------------------------------------------------------- energy by hand
def test_energy_report_arithmetic_by_hand():
    st = TimingStats.for_config(CFG)
    st.cycles = 1400
    st.rf_reads[0] = 10
    st.rf_writes[1] = 4
    st.fu_lane_ops[PIPE_ALU] = 320
    st.fu_lane_ops[PIPE_SFU] = 64
    st.fu_lane_cycles[PIPE_ALU] = 320 * 4      # mean ALU latency 4
    st.fu_lane_cycles[PIPE_SFU] = 64 * 20      # mean SFU latency 20
    for k, v in {"rf_reads": 8, "rf_writes": 4, "rf_read_arrays": 16, "rf_write_arrays": 8,
                 "rf_read_meta": 8, "rf_write_meta": 4, "lanes_saved_alu": 62,
                 "lanes_saved_sfu": 31, "special_moves": 1, "move_read_arrays": 2,
                 "move_write_arrays": 8, "move_meta": 2}.items():
        st.count_mechanism(f"gscalar.{k}", v)
    st.count_mechanism("gscalar.decompressions", 11)
    st.count_mechanism("gscalar.compressions", 5)
    st.sm_cycles = 2800
    e = CFG.energy
    rep = energy_report(st, CFG, "gscalar")
    rd, wr = e.rf_read.pj, e.rf_write.pj
    want_rf = ((16 + 2) * rd / 8 + (8 + 1) * 0.052 * rd + 2 * rd        # 2 reads unaccounted
               + (8 + 8) * wr / 8 + (4 + 1) * 0.052 * wr) * 1e-12
    assert rep.component("register_file").joules == pytest.approx(want_rf)
    base = EnergyModel(e).compute(st, CFG)
    # execution units: the run's own lane counts (scalar lanes already reduced at issue)
    for name in ("alu", "sfu", "fetch_decode", "icache", "l1_shared", "l2", "dram"):
        assert rep.component(name).joules == base.component(name).joules
    # the added logic per access: 15.86 mW / 1.4 GHz per decompression, 16.22 per compression
    assert rep.component("gscalar_logic").joules == pytest.approx(
        (11 * 15.86 / 1.4 + 5 * 16.22 / 1.4) * 1e-12)
    # its leakage: 0.7% of the SM leakage over the active SM-seconds
    sm_seconds = 2800 / (CFG.core.clock_mhz * 1e6)
    assert rep.static - base.static == pytest.approx(0.007 * e.sm_leakage.watts * sm_seconds)
    assert rep.total == pytest.approx(sum(c.joules for c in rep.components))
    # the always-on upper bound (the model before issue 13): Table 3 power of every SM
    on = energy_report(st, CFG, "gscalar", logic_energy="always_on")
    seconds = 1400 / (CFG.core.clock_mhz * 1e6)
    logic = (16 * 15.86 + 4 * 16.22) / 1000 * CFG.core.num_sms * seconds
    assert on.component("gscalar_logic").joules == pytest.approx(logic)
    assert on.static == base.static
    with pytest.raises(ConfigError, match="logic_energy"):
        energy_report(st, CFG, "gscalar", logic_energy="sometimes")
    # ALU scalar as modelled before issue 67: no metadata, scalar-RF accesses, no logic power
    st2 = TimingStats.for_config(CFG)
    st2.cycles = 1400
    st2.rf_reads[0] = 3
    for k, v in {"rf_reads": 3, "srf_reads": 2, "rf_read_arrays": 8}.items():
        st2.count_mechanism(f"alu-scalar.{k}", v)
    rep2 = energy_report(st2, CFG, ALU_SCALAR_FREE)
    assert rep2.component("register_file").joules == pytest.approx(
        (8 * rd / 8 + 2 * 0.052 * rd) * 1e-12)
    with pytest.raises(KeyError):
        rep2.component("gscalar_logic")


# ---------------------------------------------------------------- configuration errors
def test_params_and_variant_errors(tmp_path):
    p = GScalarTimingParams()
    assert p.logic_watts_per_sm == pytest.approx(0.31864)
    with pytest.raises(ConfigError, match="unknown G-Scalar variant"):
        GScalarMechanism(CFG, "gscalar-quarter")
    with pytest.raises(ConfigError, match="extra_latency_cycles"):
        GScalarTimingParams(extra_latency_cycles=-1)
    bad = tmp_path / "t.yaml"
    bad.write_text("extra_latency_cycles: {value: 3}\n")
    with pytest.raises(ConfigError, match="source"):
        load_timing_params(bad)
    bad.write_text("latency: {value: 3, source: x}\n")
    with pytest.raises(ConfigError, match="unknown key 'latency'"):
        load_timing_params(bad)
    from types import SimpleNamespace
    cfg64 = SimpleNamespace(core=SimpleNamespace(warp_size=64))
    with pytest.raises(ConfigError, match="warp_size"):
        GScalarMechanism(cfg64, "gscalar")


def test_registry_builds_every_variant():
    ms = [make_mechanisms([n], CFG)[0] for n in ("gscalar", "gscalar-half", "alu-scalar")]
    assert [m.name for m in ms] == ["gscalar", "gscalar-half", "alu-scalar"]
    assert [m.extra_latency for m in ms] == [3, 3, 2]


# ---------------------------------------------------------------- a real workload (MM)
@pytest.fixture(scope="module")
def mm_results():
    out = {}
    for mech in [(), ("gscalar",), ("gscalar-half",), ("alu-scalar",),
                 ("gscalar:inject_moves=false",), ("alu-scalar:costs=free",)]:
        out[mech[0].replace(":costs=free", "-free") if mech else None] = run_job(TimingJob("MM", "gtx480", "small", 0, mech))
    return out


def test_mm_outputs_and_counter_consistency(mm_results):
    base = mm_results[None]
    assert base["outputs_match"]
    bst = TimingStats.from_dict(base["timing"])
    for v in VARIANTS:
        r = mm_results[v]
        assert r["outputs_match"] and r["output_digest"] == base["output_digest"], v
        st = TimingStats.from_dict(r["timing"])
        st.check()
        c = mechanism_counters(st, v)
        assert set(c) == set(COUNTERS)
        assert c["instructions"] == st.instructions_issued == bst.instructions_issued
        assert c["thread_lanes"] == st.thread_instructions
        assert (c["rf_reads"], c["rf_writes"]) == (st.rf_reads_total, st.rf_writes_total)
        assert st.rf_reads_total == bst.rf_reads_total
        # scalar execution charges fewer lanes to the units, instruction by instruction
        for pipe, k in ((PIPE_ALU, "alu"), (PIPE_SFU, "sfu"), (PIPE_MEM, "mem")):
            assert st.fu_lane_ops[pipe] == bst.fu_lane_ops[pipe] - c[f"lanes_saved_{k}"], (v, k)
        assert st.fu_ops == bst.fu_ops
        assert 0 < c["scalar_alu"] and c["lanes_saved_alu"] > 0
        assert c["decompressions"] >= c["rf_reads"] and c["compressions"] > 0
    # ALU scalar without its design's costs adds no latency: the baseline's cycle count
    assert mm_results["alu-scalar-free"]["cycles"] == base["cycles"]
    assert mm_results["alu-scalar"]["cycles"] >= base["cycles"]
    assert mm_results["gscalar"]["cycles"] >= base["cycles"]


def test_mm_energy_sanity(mm_results):
    bst = TimingStats.from_dict(mm_results[None]["timing"])
    brep = EnergyModel(CFG.energy).compute(bst, CFG)
    for v in VARIANTS:
        st = TimingStats.from_dict(mm_results[v]["timing"])
        rep = energy_report(st, CFG, v)
        c = mechanism_counters(st, v)
        assert 0 < rep.component("register_file").joules < brep.component("register_file").joules
        if c["lanes_saved_alu"]:
            assert rep.component("alu").joules < brep.component("alu").joules
        assert rep.total == pytest.approx(rep.dynamic + rep.static)
        if v != "alu-scalar":   # per-access logic energy is far below the always-on bound
            on = energy_report(st, CFG, v, logic_energy="always_on")
            assert 0 < rep.component("gscalar_logic").joules < on.component("gscalar_logic").joules
    # compression activates fewer arrays than the scalar RF design leaves on the vector RF
    g = mechanism_counters(TimingStats.from_dict(mm_results["gscalar"]["timing"]), "gscalar")
    a = mechanism_counters(TimingStats.from_dict(mm_results["alu-scalar"]["timing"]), "alu-scalar")
    assert g["rf_read_arrays"] < a["rf_read_arrays"]
    assert g["scalar_mem"] > 0 and a["scalar_mem"] == 0


def test_report_renders_every_figure(mm_results, monkeypatch):
    import golden.report.gscalar as rep
    monkeypatch.setattr(rep, "_workloads", lambda opts=None: ["MM"])
    opts = ReportOptions(size="small", seed=0, jobs=1)
    keys = {j.key for j in rep.jobs(opts)}
    # baseline, three variants, free moves, hardware-only moves, cost-free ALU scalar,
    # the value analysis
    assert len(keys) == 8
    names = {"alu-scalar-free": "alu-scalar:costs=free"}
    results = {TimingJob("MM", "gtx480", "small", 0, (names.get(v, v),) if v else ()).key: r
               for v, r in mm_results.items()}
    stats = rep.ValueStatsJob("MM", "small", 0)
    results[stats.key] = stats.run()
    md, data = rep.render(results, opts)
    for label in ("Fig. 1", "Fig. 8", "Fig. 9", "Fig. 10", "Fig. 11", "Fig. 12", "2.17 / 2.13",
                  "IPC change from +3 cycles", "IPC/W vs ALU scalar", "How our setup differs"):
        assert label in md, label
    row = data["timing"]["MM"]
    assert row["outputs_gscalar"] and row["outputs_alu-scalar"] and row["outputs_gscalar-half"]
    assert row["ipc_alu_free"] == 0.0 and row["ipc_gscalar"] <= 0.0
    assert row["ipc_alu-scalar"] <= 0.0
    assert "Ablations (issue 67)" in md
    assert row["rf_gscalar"] < 0 and row["rf_alu-scalar"] < 0
    # issue 13's before/after lines: the always-on logic power costs efficiency, and moves
    # that occupy the pipeline cost (at most) cycles
    assert "Modelling fixes (issue 13)" in md and row["outputs_free_moves"]
    assert row["ipcw_gscalar_alwayson"] < row["ipcw_gscalar"]
    assert row["ipc_free_moves"] >= row["ipc_gscalar"]
    f = data["functional"][0]
    # the timing mechanism's eligibility equals the functional analysis (same warp streams)
    assert row["elig_gscalar-half"] == pytest.approx(f["e_total"])
    assert "| **paper** |" in md


# ---------------------------------------------------------------- slow sweeps
def _functional_digest(name: str) -> str:
    return output_digest(registry.run_workload(name, size="small", seed=0, device=Device()).outputs)


GSCALAR_WORKLOADS = ["BP", "HS", "LBM", "MM", "MQ", "MV", "PF", "SR1", "ST", "TPACF"]


def test_workload_list_is_the_gscalar_suite():
    from golden.mechanisms.gscalar.analysis import gscalar_workloads
    assert sorted(gscalar_workloads()) == sorted(GSCALAR_WORKLOADS)


@pytest.mark.sweep
@pytest.mark.parametrize("name", GSCALAR_WORKLOADS)
def test_outputs_bit_identical_under_every_variant(name):
    """Timing-mode outputs equal the functional run's (= the baseline's) byte for byte."""
    want = _functional_digest(name)
    for v in tuple(VARIANTS) + ("gscalar:inject_moves=false",):
        r = run_job(TimingJob(name, "gtx480", "small", 0, (v,)))
        assert r["outputs_match"], (name, v)
        assert r["output_digest"] == want, (name, v)
        st = TimingStats.from_dict(r["timing"])
        c = mechanism_counters(st, v.partition(":")[0])
        assert (c["rf_reads"], c["rf_writes"]) == (st.rf_reads_total, st.rf_writes_total)
        assert c["thread_lanes"] == st.thread_instructions


@pytest.mark.slow
def test_timing_eligibility_equals_functional_analysis_bp(shrink_small):
    """Run the functional observer inside the timing run: identical class counts."""
    shrink_small.tiny("BP")   # 16 TBs: the counts must agree on any input
    from golden.mechanisms.gscalar.observer import GScalarStatsObserver
    from golden.mechanisms.gscalar.observing import ObservingDevice
    from golden.timing.hooks import Mechanism

    obs = GScalarStatsObserver()

    class BeginLaunch(Mechanism):    # the timing launch does not call on_launch_begin
        launch = None

        def on_dispatch(self, sm, tb_id, warps_per_tb):
            if sm.launch is not self.launch:
                self.launch = sm.launch
                obs.on_launch_begin(sm.launch)
            return True

    dev = TimingDevice(CFG, mechanisms=[BeginLaunch(), GScalarMechanism(CFG, "gscalar-half")],
                       echo_printf=False)
    run = registry.run_workload("BP", size="small", seed=0, device=ObservingDevice([obs], device=dev))
    assert not run.mismatches()
    st = TimingStats.merged([s.timing for s in run.stats], concurrent=False)
    c = mechanism_counters(st, "gscalar-half")
    o = obs.counts
    assert (c["instructions"], c["divergent"]) == (o.warp_insts, o.divergent)
    assert (c["scalar_alu"], c["scalar_sfu"], c["scalar_mem"], c["half"], c["div_scalar"]) == \
        (o.elig_alu, o.elig_sfu, o.elig_mem, o.elig_half, o.elig_div)
    assert c["half"] > 0 and c["div_scalar"] > 0


def test_full_warp_common_bytes_equals_the_three_comparisons():
    """G-Scalar-half's one-pass compressor comparison (timing.full_warp_common_bytes)
    against the whole-warp and per-half common_msb_bytes it replaces."""
    import numpy as np

    from golden.mechanisms.gscalar.timing import (full_warp_common_bytes,
                                                  full_warp_common_bytes_reference)
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(4000):
        base = rng.integers(0, 1 << 32, dtype=np.uint64).astype(np.uint32)
        x = np.full(32, base, dtype=np.uint32)
        if rng.random() < 0.5:   # the upper half uniform, apart from the lower in some bytes
            x[16:] ^= np.uint32(int(rng.integers(0, 1 << 32)) & ((1 << int(rng.integers(0, 33))) - 1))
        for lo, hi in ((0, 16), (16, 32), (0, 32)):
            if rng.random() < 0.5:   # perturb some lanes of a half (or the warp) in low bytes
                bits = int(rng.integers(0, 33))
                n = int(rng.integers(1, hi - lo + 1))
                lanes = rng.choice(np.arange(lo, hi), size=n, replace=False)
                x[lanes] ^= rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(
                    np.uint32) & np.uint32((1 << bits) - 1)
        got = full_warp_common_bytes(x)
        assert got == full_warp_common_bytes_reference(x)
        seen.add((got[0], *got[1]))
    assert len(seen) > 20   # every mix of whole-warp and half encodings was exercised
