"""Timing statistics container and the component energy model (issue 4, item 5)."""

from __future__ import annotations

import json
import math
import random
from dataclasses import fields, replace
from types import SimpleNamespace

import numpy as np
import pytest

from golden.configs.loader import list_configs, load_config
from golden.configs.schema import EnergyConfig, EnergyEvent, StaticPower
from golden.errors import ConfigError, SimtlabError
from golden.timing.energy import COMPONENTS, REQUIRED_CONSTANTS, EnergyModel
from golden.timing.stats import (
    PIPE_ALU, PIPE_MEM, PIPE_SFU, PIPELINES, STALL_BARRIER, STALL_DEPENDENCE, STALL_ISSUE,
    STALL_MEMORY, STALL_NO_INSTRUCTION, STALL_REASONS, STALL_STRUCTURAL, TimingStats,
)

SEED = 20240504


def _ev(pj, src):
    return EnergyEvent(pj=pj, source=src)


#: Round numbers so the expected joules can be worked out by hand.
TOY_ENERGY = EnergyConfig(
    fetch_decode=_ev(5.0, "toy fd"), icache_access=_ev(14.0, "toy ic"),
    icache_fill=_ev(100.0, "toy ic fill"), scheduler_issue=_ev(3.0, "toy sched"),
    scheduler_cycle=_ev(0.5, "toy sched cycle"),
    rf_read=_ev(10.0, "toy rf_read"), rf_write=_ev(20.0, "toy rf_write"),
    operand_collector=_ev(2.0, "toy oc"), rf_crossbar=_ev(4.0, "toy xbar"),
    alu_op_per_lane=_ev(1.0, "toy alu"), sfu_op_per_lane=_ev(8.0, "toy sfu"),
    mem_op_per_lane=_ev(0.5, "toy agu"),
    l1_access=_ev(50.0, "toy l1"), shared_access=_ev(60.0, "toy shared"),
    const_access=_ev(7.0, "toy const"), l2_access=_ev(100.0, "toy l2"),
    icnt_flit=_ev(30.0, "toy icnt"), dram_activate=_ev(1000.0, "toy act"),
    dram_read_byte=_ev(2.0, "toy rd"), dram_write_byte=_ev(3.0, "toy wr"),
    dram_io_byte=_ev(1.0, "toy io"),
    sm_leakage=StaticPower(watts=1.0, source="toy leakage"),
    chip_constant=StaticPower(watts=10.0, source="toy constant"),
)


def _toy_config():
    """Pascal with the toy energy constants and a 1000 MHz clock."""
    cfg = load_config("pascal")
    return replace(cfg, energy=TOY_ENERGY, core=replace(cfg.core, clock_mhz=1000.0))


def _small_stats(banks=4, warp_size=32) -> TimingStats:
    """A hand-built run: every number below is used in the hand computation."""
    st = TimingStats(rf_banks=banks, warp_size=warp_size)
    st.cycles = 2000
    st.instructions_fetched = 12
    st.instructions_decoded = 12
    st.instructions_issued = 10
    for _ in range(6):
        st.record_execute(PIPE_ALU, 32)   # 6 full ALU instructions: 192 lanes
    st.record_execute(PIPE_ALU, 16)       # 1 half-warp ALU instruction: 16 lanes
    st.record_execute(PIPE_SFU, 8)        # 1 SFU instruction: 8 lanes
    st.record_execute(PIPE_MEM, 32)       # 2 MEM instructions
    st.record_execute(PIPE_MEM, 0)        # (guard false everywhere)
    st.instructions_skipped = 2
    for b, (r, w) in enumerate(zip([3, 4, 5, 6], [2, 2, 1, 0])):
        st.rf_reads[b % banks] += r       # 18 reads
        st.rf_writes[b % banks] += w      # 5 writes
    st.icache_hits, st.icache_misses = 10, 2        # 12 I-cache accesses
    st.l1_hits, st.l1_misses = 3, 4                  # 7 L1 transactions
    st.shared_accesses, st.shared_bank_conflict_cycles = 3, 1   # +3 -> 10 L1/shared
    st.l2_hits, st.l2_misses = 1, 3                  # 4 L2 transactions
    st.dram_reads, st.dram_writes, st.dram_bytes = 3, 1, 128
    st.scheduler_cycles = 2 * 2000
    st.stalls[STALL_ISSUE] = 10
    st.stalls[STALL_NO_INSTRUCTION] = 90
    st.stalls[STALL_DEPENDENCE] = 300
    st.stalls[STALL_STRUCTURAL] = 100
    st.stalls[STALL_BARRIER] = 0
    st.stalls[STALL_MEMORY] = 3500
    return st


def _random_stats(rng: random.Random, banks=8, warp_size=32) -> TimingStats:
    """A consistent random stats object (passes check())."""
    st = TimingStats(rf_banks=banks, warp_size=warp_size)
    st.cycles = rng.randrange(1, 10_000)
    for _ in range(rng.randrange(0, 200)):
        st.record_execute(rng.randrange(len(PIPELINES)), rng.randrange(warp_size + 1))
    st.instructions_issued = st.instructions_executed + rng.randrange(5)
    st.instructions_decoded = st.instructions_issued + rng.randrange(5)
    st.instructions_fetched = st.instructions_decoded + rng.randrange(5)
    st.instructions_skipped = rng.randrange(50)
    for b in range(banks):
        st.rf_reads[b] = rng.randrange(100)
        st.rf_writes[b] = rng.randrange(100)
    for r in range(len(STALL_REASONS)):
        st.stalls[r] = rng.randrange(1000)
    st.scheduler_cycles = sum(st.stalls)
    for name in ("oc_bank_conflicts", "icache_hits", "icache_misses", "l1_hits", "l1_misses",
                 "shared_accesses", "shared_bank_conflict_cycles", "l2_hits", "l2_misses",
                 "dram_reads", "dram_writes"):
        setattr(st, name, rng.randrange(500))
    st.dram_bytes = 32 * (st.dram_reads + st.dram_writes)
    for name in rng.sample(["darsie.skipped", "uv.irb_hits", "capri.captured"], 2):
        st.count_mechanism(name, rng.randrange(1, 100))
    return st


# --------------------------------------------------------------------------- stats

def test_record_execute_and_derived_values():
    st = _small_stats()
    st.check()
    assert st.instructions_executed == 10
    assert st.thread_instructions == 192 + 16 + 8 + 32 + 0
    assert st.fu_ops == [7, 1, 2]
    assert st.fu_lane_ops == [208, 8, 32]
    assert st.lane_hist[32] == 7 and st.lane_hist[16] == 1 and st.lane_hist[8] == 1
    assert st.lane_hist[0] == 1 and sum(st.lane_hist) == 10
    assert st.ipc == pytest.approx(10 / 2000)
    assert st.thread_ipc == pytest.approx(248 / 2000)
    assert st.simd_utilization == pytest.approx(248 / (32 * 10))
    assert st.rf_reads_total == 18 and st.rf_writes_total == 5


def test_empty_stats_derived_values_are_zero():
    st = TimingStats(rf_banks=2, warp_size=32)
    st.check()
    assert st.ipc == 0.0 and st.thread_ipc == 0.0 and st.simd_utilization == 0.0
    assert all(v == 0.0 for v in st.stall_fractions().values())


def test_stall_breakdown_consistency():
    st = _small_stats()
    st.check()
    bd = st.stall_breakdown()
    assert tuple(bd) == STALL_REASONS
    assert sum(bd.values()) == st.scheduler_cycles
    assert sum(st.stall_fractions().values()) == pytest.approx(1.0)
    assert st.stall_fractions()["memory"] == pytest.approx(3500 / 4000)
    st.stalls[STALL_BARRIER] += 1          # one scheduler cycle counted twice
    with pytest.raises(SimtlabError, match="stall breakdown.*4001.*4000"):
        st.check()


def test_check_catches_histogram_and_pipeline_mismatch():
    st = _small_stats()
    st.instructions_executed += 1          # executed without recording lanes
    with pytest.raises(SimtlabError, match="instructions_executed"):
        st.check()
    st = _small_stats()
    st.fu_lane_ops[PIPE_SFU] += 3
    with pytest.raises(SimtlabError, match="fu_ops counts 251 active lanes"):
        st.check()
    st = _small_stats()
    st.l2_misses = -1
    with pytest.raises(SimtlabError, match="l2_misses"):
        st.check()


def test_count_api_matches_direct_fields():
    a, b = TimingStats(rf_banks=4, warp_size=32), TimingStats(rf_banks=4, warp_size=32)
    a.count("rf_reads", bank=3)
    a.count("rf_writes", 2, bank=0)
    a.count("icache_misses")
    a.count("dram_bytes", 64)
    a.count("stalls", bank=STALL_DEPENDENCE)
    b.rf_reads[3] += 1
    b.rf_writes[0] += 2
    b.icache_misses += 1
    b.dram_bytes += 64
    b.stalls[STALL_DEPENDENCE] += 1
    assert a == b
    with pytest.raises(SimtlabError, match="unknown counter 'rf_read'"):
        a.count("rf_read", bank=None)
    with pytest.raises(SimtlabError, match="array counter"):
        a.count("rf_reads")
    with pytest.raises(SimtlabError, match="not an array counter"):
        a.count("cycles", bank=0)
    with pytest.raises(SimtlabError, match=r"rf_reads\[4\] out of range"):
        a.count("rf_reads", bank=4)


def test_slots_reject_misspelled_counters():
    st = TimingStats(rf_banks=2, warp_size=32)
    with pytest.raises(AttributeError):
        st.l1_hit = 3  # noqa: the real counter is l1_hits


def test_shape_validation():
    with pytest.raises(SimtlabError, match="rf_banks"):
        TimingStats(rf_banks=0, warp_size=32)
    with pytest.raises(SimtlabError, match="rf_reads has 3 entries, expected 4"):
        TimingStats(rf_banks=4, warp_size=32, rf_reads=[1, 2, 3])
    cfg = load_config("pascal")
    st = TimingStats.for_config(cfg)
    assert len(st.rf_reads) == cfg.register_file.banks
    assert len(st.lane_hist) == cfg.core.warp_size + 1


def test_merge_concurrent_and_sequential():
    rng = random.Random(SEED)
    parts = [_random_stats(rng) for _ in range(3)]
    sm = TimingStats.merged(parts, concurrent=True)
    seq = TimingStats.merged(parts, concurrent=False)
    for m in (sm, seq):
        m.check()
        assert m.instructions_executed == sum(p.instructions_executed for p in parts)
        assert m.scheduler_cycles == sum(p.scheduler_cycles for p in parts)
        assert m.rf_reads == [sum(p.rf_reads[b] for p in parts) for b in range(8)]
        assert m.lane_hist == [sum(p.lane_hist[k] for p in parts) for k in range(33)]
        assert m.stalls == [sum(p.stalls[r] for p in parts) for r in range(6)]
        assert m.dram_bytes == sum(p.dram_bytes for p in parts)
        keys = {k for p in parts for k in p.mechanism}
        assert m.mechanism == {k: sum(p.mechanism.get(k, 0) for p in parts) for k in keys}
    assert sm.cycles == max(p.cycles for p in parts)
    assert seq.cycles == sum(p.cycles for p in parts)
    # merging never changes its inputs
    assert parts[0] == _random_stats(random.Random(SEED))


def test_merge_is_order_independent_and_rejects_shape_mismatch():
    rng = random.Random(SEED + 1)
    parts = [_random_stats(rng) for _ in range(4)]
    fwd = TimingStats.merged(parts, concurrent=True)
    rev = TimingStats.merged(parts[::-1], concurrent=True)
    assert fwd.to_json() == rev.to_json()
    with pytest.raises(SimtlabError, match="shapes differ"):
        fwd.merge(TimingStats(rf_banks=4, warp_size=32), concurrent=True)
    with pytest.raises(SimtlabError, match="nothing to merge"):
        TimingStats.merged([], concurrent=True)


def test_json_round_trip():
    rng = random.Random(SEED + 2)
    for _ in range(5):
        st = _random_stats(rng)
        text = st.to_json()
        back = TimingStats.from_dict(json.loads(text))
        assert back == st
        assert back.to_json() == text
    d = json.loads(_small_stats().to_json())
    assert d["stalls"]["memory"] == 3500
    assert d["fu_ops"] == {"alu": 7, "sfu": 1, "mem": 2}
    assert d["derived"]["ipc"] == pytest.approx(0.005)
    with pytest.raises(SimtlabError, match="unknown keys bogus"):
        TimingStats.from_dict({**d, "bogus": 1})
    with pytest.raises(SimtlabError, match="stalls must map"):
        TimingStats.from_dict({**d, "stalls": {"issue": 1}})


def test_serialisation_is_deterministic():
    a, b = _small_stats(), _small_stats()
    # same counters, mechanism counters inserted in a different order
    a.count_mechanism("z.last", 1)
    a.count_mechanism("a.first", 2)
    b.count_mechanism("a.first", 2)
    b.count_mechanism("z.last", 1)
    assert a.to_json() == b.to_json()
    assert list(a.to_dict()["mechanism"]) == ["a.first", "z.last"]
    # same seed, same object, same text
    assert _random_stats(random.Random(7)).to_json() == _random_stats(random.Random(7)).to_json()


def test_format_mentions_key_numbers():
    text = _small_stats().format()
    assert "2,000" in text and "memory" in text and "87.5%" in text


# --------------------------------------------------------------------------- energy

#: Every counter the energy model reads, including the optional ones other parts of the
#: model may not provide yet (icnt_flits, dram_activates, dram_read_bytes...), with round
#: numbers so the expected joules can be worked out by hand.
FULL_COUNTS = dict(
    cycles=2000, sm_cycles=3000, instructions_fetched=12, instructions_issued=10,
    scheduler_cycles=4000, icache_hits=10, icache_misses=2,
    rf_reads=[3, 4, 5, 6], rf_writes=[2, 2, 1, 0],          # 18 reads, 5 writes
    fu_lane_ops=[208, 8, 32],                               # alu, sfu, mem lanes
    fu_lane_cycles=[208 * 4, 8 * 20, 32 * 4],               # lanes x latency
    l1_hits=3, l1_misses=4, shared_accesses=3, const_accesses=6,
    l2_hits=1, l2_misses=3, icnt_flits=9,
    dram_reads=3, dram_writes=1, dram_bytes=128, dram_read_bytes=96, dram_write_bytes=32,
    dram_activates=2, dram_row_hits=2,
)

#: pJ per component for FULL_COUNTS and TOY_ENERGY (static: watts x seconds, below).
FULL_PJ = {
    "fetch_decode": 12 * 5.0,                    # 60
    "icache": 12 * 14.0 + 2 * 100.0,             # 368
    "scheduler": 10 * 3.0 + 4000 * 0.5,          # 2030
    "register_file": 18 * 10.0 + 5 * 20.0,       # 280
    "operand_collector": 18 * (4.0 + 2.0),       # 108: crossbar + collector per read
    "alu": 208 * 4 * 1.0,                        # per lane-cycle (lanes x latency)
    "sfu": 8 * 20 * 8.0,
    "mem_pipe": 32 * 0.5,
    "l1_shared": 7 * 50.0 + 3 * 60.0,            # 530
    "const_cache": 6 * 7.0,
    "l2": 4 * 100.0,
    "interconnect": 9 * 30.0,
    "dram": 2 * 1000.0 + 96 * 2.0 + 32 * 3.0 + 128 * 1.0,   # 2416
}


def _ns_stats(**overrides):
    """A stats-like namespace holding exactly the given counters (the model only reads
    attributes, so this also stands for TimingStats with or without optional counters)."""
    d = {k: (list(v) if isinstance(v, list) else v) for k, v in FULL_COUNTS.items()}
    d.update(overrides)
    return SimpleNamespace(**{k: v for k, v in d.items() if v is not None})


def _toy_static_j(stats):
    """SM leakage (1 W per active SM) + chip constant (10 W) at the toy 1000 MHz clock."""
    return 1.0 * stats.sm_cycles / 1e9 + 10.0 * stats.cycles / 1e9


def test_energy_hand_computed():
    cfg = _toy_config()
    st = _ns_stats()
    rep = EnergyModel(cfg.energy).compute(st, cfg)
    by = rep.by_component()
    assert tuple(by) == COMPONENTS
    for name, v in FULL_PJ.items():
        assert by[name] == pytest.approx(v * 1e-12), name
    # 1 W x 3000 SM-cycles + 10 W x 2000 cycles, at 1 GHz: 3 uJ + 20 uJ
    assert rep.term("sm_leakage").joules == pytest.approx(3e-6)
    assert rep.term("chip_constant").joules == pytest.approx(20e-6)
    assert rep.static == pytest.approx(23e-6) == by["static"]
    assert rep.dynamic == pytest.approx(sum(FULL_PJ.values()) * 1e-12)
    assert rep.seconds == pytest.approx(2e-6)
    rf = rep.component("register_file").terms
    assert [(t.constant, t.count, t.source) for t in rf] == [
        ("rf_read", 18, "toy rf_read"), ("rf_write", 5, "toy rf_write")]
    assert [t.constant for t in rep.component("static").terms] == ["sm_leakage",
                                                                   "chip_constant"]
    assert rep.term("sm_leakage").source == "toy leakage"


def test_fallbacks_for_counters_not_yet_provided():
    """Without icnt_flits, dram_activates, dram_read/write_bytes, const_accesses the model
    uses the documented fallbacks and says so in the event text."""
    cfg = _toy_config()
    model = EnergyModel(cfg.energy)
    st = _ns_stats(icnt_flits=None, dram_activates=None, dram_row_hits=None,
                   dram_read_bytes=None, dram_write_bytes=None, const_accesses=None,
                   const_hits=4, const_misses=1)
    rep = model.compute(st, cfg)
    assert rep.term("icnt_flit").count == 2 * 4                     # 2 per L2 sector
    assert "fallback" in rep.term("icnt_flit").event
    assert rep.term("dram_activate").count == 3 + 1                 # one per request
    assert rep.term("dram_read_byte").count == pytest.approx(128 * 3 / 4)
    assert rep.term("dram_write_byte").count == pytest.approx(128 * 1 / 4)
    assert rep.term("const_access").count == 5                      # hits + misses
    # dram_row_hits alone lowers the activation estimate
    st2 = _ns_stats(dram_activates=None, dram_row_hits=3)
    assert model.compute(st2, cfg).term("dram_activate").count == 1
    # no constant-cache counter at all: nothing charged
    st3 = _ns_stats(const_accesses=None)
    assert model.compute(st3, cfg).term("const_access").joules == 0.0
    # a real TimingStats (whatever optional counters it has today) is accepted
    rep4 = model.compute(_small_stats(), cfg)
    assert rep4.total == pytest.approx(sum(rep4.by_component().values()))


def test_breakdown_adds_up_and_shares_sum_to_one():
    cfg = load_config("gtx480")
    rng = random.Random(SEED + 5)
    model = EnergyModel(cfg.energy)
    for _ in range(5):
        st = _random_stats(rng, banks=cfg.register_file.banks)
        st.sm_cycles = rng.randrange(0, cfg.core.num_sms * st.cycles + 1)
        rep = model.compute(st, cfg)
        terms = [t.joules for c in rep.components for t in c.terms]
        assert rep.total == pytest.approx(sum(terms))
        assert rep.total == pytest.approx(rep.dynamic + rep.static)
        assert sum(rep.shares().values()) == pytest.approx(1.0)
        g = rep.groups()
        by = rep.by_component()
        assert g["execution_units"] == pytest.approx(by["alu"] + by["sfu"])
        assert g["register_file_with_collectors"] == pytest.approx(
            by["register_file"] + by["operand_collector"])
        assert all(t.joules >= 0 for c in rep.components for t in c.terms)


def test_zero_activity_run_costs_only_the_chip_constant():
    cfg = _toy_config()
    model = EnergyModel(cfg.energy)
    st = TimingStats.for_config(cfg)
    st.cycles = 5000                         # time passes, nothing runs, no SM holds warps
    rep = model.compute(st, cfg)
    assert rep.dynamic == 0.0
    assert rep.term("sm_leakage").joules == 0.0
    assert rep.total == pytest.approx(10.0 * 5000 / 1e9)     # 10 W x 5 us
    assert rep.total == rep.term("chip_constant").joules
    assert model.compute(TimingStats.for_config(cfg), cfg).total == 0.0


def test_sm_leakage_is_charged_per_active_sm_cycle():
    cfg = _toy_config()
    model = EnergyModel(cfg.energy)
    one = model.compute(_ns_stats(sm_cycles=2000), cfg)      # one SM busy all run
    four = model.compute(_ns_stats(sm_cycles=8000), cfg)     # four SMs busy all run
    assert four.term("sm_leakage").joules == pytest.approx(4 * one.term("sm_leakage").joules)
    assert four.term("chip_constant").joules == one.term("chip_constant").joules
    assert four.dynamic == one.dynamic


def test_energy_scales_linearly_with_repeated_runs():
    cfg = _toy_config()
    model = EnergyModel(cfg.energy)
    one = _small_stats()
    one.sm_cycles = 3000
    two = TimingStats.merged([one, _small_stats()], concurrent=False)
    two.sm_cycles = 6000
    e1, e2 = model.compute(one, cfg), model.compute(two, cfg)
    assert e2.dynamic == pytest.approx(2 * e1.dynamic)
    assert e2.static == pytest.approx(2 * e1.static)


_INC_PTX = """
.version 7.0
.target sm_75
.address_size 64

.visible .entry inc(
    .param .u64 inc_param_0
)
{
    .reg .f32 %f<3>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [inc_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    mul.wide.s32 %rd3, %r4, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    add.f32 %f2, %f1, 0f3F800000;
    st.global.f32 [%rd4], %f2;
    ret;
}
"""


def test_unused_sms_cost_no_leakage_in_a_real_run():
    """One thread block on a 15-SM GPU: only one SM ever holds warps, so SM leakage is at
    most one SM for the run time (idle SMs are power-gated); 15 blocks wake more SMs."""
    from golden.timing.timing_device import TimingDevice
    cfg = load_config("gtx480")
    leak = cfg.energy.sm_leakage.watts
    hz = cfg.core.clock_mhz * 1e6
    out = {}
    for tbs in (1, cfg.core.num_sms):
        dev = TimingDevice(cfg)
        a = dev.to_device(np.arange(32 * tbs, dtype=np.float32))
        st = dev.load_module(code=_INC_PTX).get_function("inc")((tbs, 1, 1), (32, 1, 1), (a,))
        assert np.array_equal(a.get(), np.arange(32 * tbs, dtype=np.float32) + 1)
        t, e = st.timing, st.energy
        assert e.term("sm_leakage").joules == pytest.approx(leak * t.sm_cycles / hz)
        assert e.term("chip_constant").joules == pytest.approx(
            cfg.energy.chip_constant.watts * t.cycles / hz)
        out[tbs] = t
    one = out[1]
    assert 0 < one.sm_cycles <= one.cycles          # at most one SM's worth of cycles
    many = out[cfg.core.num_sms]
    assert many.sm_cycles > one.sm_cycles and many.sm_cycles > many.cycles


def test_energy_report_dict_and_format():
    cfg = _toy_config()
    rep = EnergyModel(cfg.energy).compute(_ns_stats(), cfg)
    d = json.loads(json.dumps(rep.to_dict()))
    assert list(d["components"]) == list(COMPONENTS)
    assert d["total_j"] == pytest.approx(d["dynamic_j"] + d["static_j"])
    assert d["components"]["dram"]["terms"][0]["count"] == 2
    assert d["components"]["sfu"]["terms"][0]["source"] == "toy sfu"
    assert math.isclose(sum(c["joules"] for c in d["components"].values()), d["total_j"])
    assert sum(d["shares"].values()) == pytest.approx(1.0)
    assert d["group_shares"]["execution_units"] == pytest.approx(
        d["shares"]["alu"] + d["shares"]["sfu"])
    text = rep.format()
    for name in COMPONENTS:
        assert name in text
    assert "toy l2" in text and "20 uJ" in text and "execution_units" in text


def test_energy_model_rejects_incomplete_or_mistyped_section():
    with pytest.raises(ConfigError, match="energy.chip_constant"):
        EnergyModel(replace(TOY_ENERGY, chip_constant=None))
    with pytest.raises(ConfigError, match="energy.sm_leakage: missing or not a StaticPower"):
        EnergyModel(replace(TOY_ENERGY, sm_leakage=_ev(1.0, "pJ where watts belong")))
    with pytest.raises(ConfigError, match="energy.rf_crossbar"):
        EnergyModel(replace(TOY_ENERGY, rf_crossbar=None))


#: A source must cite a paper, a tool's shipped configuration, or say "estimate".
_CITED = ("estimate", "GPUWattch", "AccelWattch", "DARSIE", "UV", "G-Scalar", "Horowitz")


@pytest.mark.parametrize("name", list_configs())
def test_every_shipped_config_has_the_energy_constants_with_sources(name):
    cfg = load_config(name)
    model = EnergyModel(cfg.energy)           # raises if a constant is missing
    # every constant of the section (``structures`` is a switch, not a constant)
    assert set(REQUIRED_CONSTANTS) == {f.name for f in fields(EnergyConfig) if f.name != "structures"}
    for const in REQUIRED_CONSTANTS:
        ev = getattr(cfg.energy, const)
        assert ev.source.strip(), f"{name}: energy.{const} has no source"
        assert any(k in ev.source for k in _CITED), f"{name}: energy.{const}: {ev.source}"
        value = ev.watts if const in ("sm_leakage", "chip_constant") else ev.pj
        assert value > 0, f"{name}: energy.{const} is {value}"
    rep = model.compute(_small_stats(banks=cfg.register_file.banks,
                                     warp_size=cfg.core.warp_size), cfg)
    assert rep.dynamic > 0 and rep.static > 0
    assert rep.component("register_file").terms[0].per_event == cfg.energy.rf_read.pj


def test_seed_table_constants_are_used_where_the_seeds_give_them():
    """DARSIE Table 2's 14.2 / 25.9 pJ per thread register (x 32 lanes; a read also pays
    crossbar + collector, GPUWattch's read coefficient) on Pascal and GTX 480; UV Table 2's
    2.46 / 5.82 pJ x 32 on the GT200 configs."""
    for name in ("pascal", "gtx480"):
        e = load_config(name).energy
        assert e.rf_write.pj == pytest.approx(32 * 25.9, rel=2e-3)
        assert e.rf_read.pj + e.rf_crossbar.pj + e.operand_collector.pj == pytest.approx(
            32 * 14.2, rel=2e-3)
    for name in ("gtx285", "fx5800"):
        e = load_config(name).energy
        assert e.rf_read.pj == pytest.approx(32 * 2.46, rel=2e-3)
        assert e.rf_write.pj == pytest.approx(32 * 5.82, rel=2e-3)
