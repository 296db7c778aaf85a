"""Baseline-fidelity capabilities of the SM model (issue 11): per-instruction latency
classes, sub-core unit and bank partitioning, multi-instruction fetch, dual issue to
distinct units, and L2 state across launches (persistence and memcpy warm-up)."""

from dataclasses import replace

import numpy as np
import pytest

from golden.configs import load_config
from golden.configs.schema import PipelineConfig, RegisterFileConfig
from golden.timing.operand_collector import OperandCollector
from golden.timing.pipelines import PipelineClass, op_class, op_timing, pipe_of
from golden.timing.stats import PIPE_ALU, PIPE_MEM, PIPE_SFU
from golden.validate import microbench as mb


@pytest.mark.parametrize("opcode, types, cls", [
    ("add", ("s32",), "int_add"), ("sub", ("f32",), "fp_add"), ("add", ("f64",), "dp_add"),
    ("max", ("u32",), "int_max"), ("min", ("f32",), "fp_max"),
    ("mul", ("lo", "s32"), "int_mul"), ("mul", ("f32",), "fp_mul"),
    ("mad", ("s32",), "int_mad"), ("fma", ("f32",), "fp_mad"), ("fma", ("f64",), "dp_mad"),
    ("div", ("u32",), "int_div"), ("rem", ("s32",), "int_div"), ("div", ("f32",), "fp_div"),
    ("shfl", ("b32",), "shfl"), ("mov", ("u32",), None), ("setp", ("s32",), None),
    ("and", ("b32",), None), ("cvt", ("f32", "s32"), None)])
def test_op_class(opcode, types, cls):
    # mul.lo.s32 has mods ("lo", "s32") but types ("s32",): the parser gives types only
    assert op_class(opcode, tuple(t for t in types if t != "lo")) == cls


def test_op_timing_interval_in_alu_issue_cycles():
    cfg = load_config("pascal")
    p = cfg.pipelines
    g = -(-cfg.core.warp_size // p.alu.simd_width)
    assert op_timing(p, PIPE_ALU, "mad", ("s32",)) == (p.op_classes.int_mad.latency,
                                                       p.op_classes.int_mad.initiation * g, g)
    assert op_timing(p, PIPE_ALU, "mov", ("u32",)) is None
    assert op_timing(p, PIPE_MEM, "add", ("u32",)) is None
    # gtx480: a div on the 4-lane SFU is busy for its initiation interval in 700 MHz
    # cycles (2 of ours), as GPGPU-Sim 3.x holds the SFU, not x ceil(32 / 4)
    g4 = load_config("gtx480").pipelines
    assert g4.class_initiation_unit == "alu"
    assert op_timing(g4, PIPE_SFU, "div", ("s32",)) == (290, 8 * 2, 2)
    # pascal keeps the rule its correlation was calibrated with: x the SFU's 32 / 8 lanes
    assert p.class_initiation_unit == "pipe"
    assert op_timing(p, PIPE_SFU, "div", ("s32",)) == (145, 4 * 4, 4)


def test_rem_timing_class_follows_the_configured_rem_class():
    # gtx480 (+coarse, warpman): GPGPU-Sim 3.x has no REM latency class, so rem takes the
    # ALU's own latency and interval (None) on the SP, like mov
    for name in ("gtx480", "gtx480_coarse", "gtx480_warpman"):
        g = load_config(name).pipelines
        assert g.rem_class == "none"
        assert pipe_of("rem", ("s32",), g) == PIPE_ALU
        assert op_timing(g, PIPE_ALU, "rem", ("s32",)) is None
        assert op_timing(g, PIPE_ALU, "rem", ("s32",)) == op_timing(g, PIPE_ALU, "mov", ("u32",))
        # div keeps its class
        assert op_timing(g, PIPE_SFU, "div", ("s32",))[0] == g.op_classes.int_div.latency
    # rem_class: div on gtx480 times rem by int_div on the pipe rem_pipe names
    g = load_config("gtx480", {"pipelines.rem_class": "div"}).pipelines
    assert op_timing(g, PIPE_ALU, "rem", ("u32",)) == (290, 8 * 2, 2)
    # GPGPU-Sim 4.x (pascal) and every other config: rem timed as div of its type
    p = load_config("pascal").pipelines
    assert p.rem_class == "div"
    assert op_timing(p, pipe_of("rem", ("s32",), p), "rem", ("s32",)) == (145, 4 * 4, 4)
    for name in ("gtx285", "quadro_fx5800", "gtx280_ilp"):
        q = load_config(name).pipelines
        assert q.rem_class == "div"
        assert op_timing(q, PIPE_ALU, "rem", ("s32",)) == op_timing(q, PIPE_ALU, "div", ("s32",))
    # the MM gtx480 validate case runs GPGPU-Sim 4's SM2_GTX480: rem as div, on the SFU
    from golden.validate.correlation import load_cases
    case = next(c for c in load_cases()[1] if c.config == "gtx480")
    v = load_config("gtx480", dict(case.overrides)).pipelines
    assert v.rem_class == "div" and pipe_of("rem", ("s32",), v) == PIPE_SFU


@pytest.mark.parametrize("config, opcode, types, pipe", [
    # GPGPU-Sim 3.x (gtx480): integer mul/mad and every div on the SFU; rem, mul24 and
    # f32 mul/mad/fma on the SP
    ("gtx480", "mul", ("s32",), PIPE_SFU), ("gtx480", "mul", ("u64",), PIPE_SFU),
    ("gtx480", "mad", ("s32",), PIPE_SFU), ("gtx480", "madc", ("u32",), PIPE_SFU),
    ("gtx480", "div", ("s32",), PIPE_SFU), ("gtx480", "div", ("f32",), PIPE_SFU),
    ("gtx480", "div", ("f64",), PIPE_SFU), ("gtx480", "rem", ("s32",), PIPE_ALU),
    ("gtx480", "mul24", ("s32",), PIPE_ALU), ("gtx480", "mad24", ("u32",), PIPE_ALU),
    ("gtx480", "mul", ("f32",), PIPE_ALU), ("gtx480", "fma", ("f32",), PIPE_ALU),
    ("gtx480", "add", ("s32",), PIPE_ALU), ("gtx480", "ex2", ("f32",), PIPE_SFU),
    ("gtx480_warpman", "mad", ("s32",), PIPE_SFU), ("gtx480_coarse", "rem", ("u32",), PIPE_ALU),
    # GPGPU-Sim 4.x (pascal): div and rem on the SFU, integer mul/mad on the ALU
    ("pascal", "div", ("s32",), PIPE_SFU), ("pascal", "rem", ("s32",), PIPE_SFU),
    ("pascal", "mul", ("s32",), PIPE_ALU), ("pascal", "mad", ("s32",), PIPE_ALU),
    ("pascal", "sin", ("f32",), PIPE_SFU),
    # GT200-era GPGPU-Sim: only the transcendentals on the SFU
    ("gtx285", "div", ("s32",), PIPE_ALU), ("quadro_fx5800", "rem", ("s32",), PIPE_ALU),
    ("quadro_fx5800", "mul", ("s32",), PIPE_ALU), ("gtx285", "rsqrt", ("f32",), PIPE_SFU)])
def test_pipe_of_follows_the_configured_routing(config, opcode, types, pipe):
    assert pipe_of(opcode, types, load_config(config).pipelines) == pipe


def test_pipe_of_without_config():
    assert pipe_of("div", ("s32",)) == PIPE_ALU and pipe_of("mul", ("s32",)) == PIPE_ALU
    assert pipe_of("ld") == PIPE_MEM and pipe_of("sin") == PIPE_SFU


def test_pipeline_occupy_with_own_timing_unit_and_injected_work():
    pc = PipelineClass(PipelineConfig(count=2, simd_width=16, latency=5), 32)
    assert pc.interval == 2
    # default timing: writeback = entry + interval - 1 + latency
    assert pc.occupy(10) == 10 + 1 + 5 and pc.free_at == [12, 0]
    # own timing (latency 9, 6 cycles busy, 2-cycle lane groups) on the pinned unit 0,
    # which is busy until 12
    assert pc.occupy(10, (9, 6, 2), unit=0) == 12 + 1 + 9 and pc.free_at == [18, 0]
    assert not pc.available(17, unit=0) and pc.available(17) and pc.available(18, unit=0)
    # 3 cycles of injected work ahead of it (extra pipeline latency is per instruction:
    # golden.timing.hooks.IssueOverride.extra_latency, added by the SM)
    assert pc.occupy(20, None, unit=1, before=3) == 23 + 1 + 5 and pc.free_at == [18, 25]


def test_subcore_bank_mapping_keeps_each_scheduler_in_its_banks():
    rf = RegisterFileConfig(banks=16, ports_per_bank=2, collector_units=8, read_delay=2,
                            dispatch_delay=2, writeback_delay=1,
                            bank_mapping="subcore_warp_plus_reg")
    oc = OperandCollector(rf, schedulers=4)
    for w in range(64):
        s = w % 4
        banks = {oc.bank(w, r) for r in range(32)}
        assert banks == set(range(4 * s, 4 * s + 4))
    # consecutive registers of one warp rotate over its scheduler's 4 banks
    assert [oc.bank(5, r) for r in range(4)] == [4 + (1 + r) % 4 for r in range(4)]


def _independent(cfg):
    return mb.peak_alu_ipc(cfg)


def test_fetch_instructions_and_empty_ibuffer_rule_set_the_front_end_peak():
    """Independent fma on one SM: the fetch-bound peak is fetch_width x fetch_instructions."""
    cfg = load_config("pascal")
    one = replace(cfg, core=replace(cfg.core, fetch_instructions=1, fetch_needs_empty_ibuffer=False))
    m1, m2 = _independent(one), _independent(cfg)
    assert m1.expected == 1 and m2.expected == 2
    assert 0.9 <= m1.measured <= 1.02  # steady state excludes start-up memory stalls
    assert 1.8 <= m2.measured <= 2.04


def test_dual_issue_needs_distinct_units():
    """With a wide front end, issue_width 2 and ALU-only code: distinct-unit dual issue
    gives one ALU instruction per scheduler and cycle (with 4 ALU units and 4 schedulers
    the peak is 4 either way, but 1 scheduler shows the rule)."""
    cfg = load_config("pascal")
    base = replace(cfg, core=replace(cfg.core, fetch_width=8, num_schedulers_per_sm=1,
                                     sub_core_units=False))
    same = replace(base, core=replace(base.core, dual_issue_distinct_units=False))
    d, s = _independent(base), _independent(same)
    assert d.expected == 1 and s.expected == 2
    assert d.measured <= 1.02 and s.measured > 1.3


def _read_twice(cfg):
    from golden.timing.timing_device import TimingDevice
    dev = TimingDevice(cfg, echo_printf=False)
    mod = dev.load_module(mb.PTX)
    n4 = 1 << 12
    data = np.random.default_rng(mb.SEED).random(4 * n4).astype(np.float32)
    d_in = dev.to_device(data)
    out = dev.zeros(2 * 128, np.float32)
    k = mod.get_function("stream_read")
    a = k(2, 128, (d_in, np.int32(n4), out)).timing
    b = k(2, 128, (d_in, np.int32(n4), out)).timing
    return a, b


def test_l2_state_persists_across_launches_and_memcpy_warms_it():
    cfg = load_config("gtx480")
    cold = replace(cfg, idealisations=replace(cfg.idealisations, l2_warm_on_memcpy=False))
    warm = replace(cfg, idealisations=replace(cfg.idealisations, l2_warm_on_memcpy=True))
    a, b = _read_twice(cold)
    assert a.l2_misses > 0 and a.dram_reads > 0
    assert b.dram_reads < a.dram_reads / 4  # the second launch finds the data in L2
    assert b.cycles < a.cycles
    wa, _ = _read_twice(warm)
    assert wa.dram_reads < a.dram_reads / 4  # the copy already put it there
