"""Timing statistics container and the energy model (issue 4, item 5)."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace

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
    rf_read=_ev(10.0, "toy rf_read"), rf_write=_ev(20.0, "toy rf_write"),
    alu_op_per_lane=_ev(1.0, "toy alu"), sfu_op_per_lane=_ev(8.0, "toy sfu"),
    fetch_decode=_ev(5.0, "toy fd"), icache_access=_ev(14.0, "toy ic"),
    l1_shared_access=_ev(50.0, "toy l1"), l2_access=_ev(100.0, "toy l2"),
    dram_per_byte=_ev(2.0, "toy dram"),
    static_power=StaticPower(watts=10.0, source="toy static"),
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

def test_energy_hand_computed():
    cfg = _toy_config()
    rep = EnergyModel(cfg.energy).compute(_small_stats(), cfg)
    pj = {
        "register_file": 18 * 10.0 + 5 * 20.0,      # 280 pJ
        "alu": 208 * 1.0,                           # active ALU lanes
        "sfu": 8 * 8.0,                             # 64 pJ
        "fetch_decode": 12 * 5.0,                   # 60 pJ
        "icache": 12 * 14.0,                        # 168 pJ
        "l1_shared": (3 + 4 + 3) * 50.0,            # 500 pJ
        "l2": 4 * 100.0,                            # 400 pJ
        "dram": 128 * 2.0,                          # 256 pJ
    }
    static_j = 10.0 * 2000 / 1e9                    # 10 W x 2 us = 20 uJ
    by = rep.by_component()
    assert tuple(by) == COMPONENTS
    for name, v in pj.items():
        assert by[name] == pytest.approx(v * 1e-12), name
    assert by["static"] == pytest.approx(static_j)
    assert rep.static == pytest.approx(static_j)
    assert rep.dynamic == pytest.approx(sum(pj.values()) * 1e-12)   # 1936 pJ
    assert rep.total == pytest.approx(1936e-12 + 20e-6)
    assert rep.seconds == pytest.approx(2e-6)
    rf = rep.component("register_file").terms
    assert [(t.constant, t.count, t.source) for t in rf] == [
        ("rf_read", 18, "toy rf_read"), ("rf_write", 5, "toy rf_write")]
    assert rep.component("static").terms[0].source == "toy static"


def test_energy_scales_linearly_and_zero_run_costs_nothing():
    cfg = _toy_config()
    model = EnergyModel(cfg.energy)
    zero = model.compute(TimingStats.for_config(cfg), cfg)
    assert zero.total == 0.0
    one = _small_stats()
    two = TimingStats.merged([one, _small_stats()], concurrent=False)
    e1, e2 = model.compute(one, cfg), model.compute(two, cfg)
    assert e2.dynamic == pytest.approx(2 * e1.dynamic)
    assert e2.static == pytest.approx(2 * e1.static)


def test_energy_report_dict_and_format():
    cfg = _toy_config()
    rep = EnergyModel(cfg.energy).compute(_small_stats(), cfg)
    d = json.loads(json.dumps(rep.to_dict()))
    assert list(d["components"]) == list(COMPONENTS)
    assert d["total_j"] == pytest.approx(d["dynamic_j"] + d["static_j"])
    assert d["components"]["dram"]["terms"][0]["count"] == 128
    assert d["components"]["sfu"]["terms"][0]["source"] == "toy sfu"
    assert math.isclose(sum(c["joules"] for c in d["components"].values()), d["total_j"])
    text = rep.format()
    for name in COMPONENTS:
        assert name in text
    assert "toy l2" in text and "20 uJ" in text


def test_energy_model_rejects_incomplete_section():
    bad = replace(TOY_ENERGY, dram_per_byte=None)
    with pytest.raises(ConfigError, match="energy.dram_per_byte"):
        EnergyModel(bad)


@pytest.mark.parametrize("name", list_configs())
def test_every_shipped_config_has_the_energy_constants(name):
    cfg = load_config(name)
    model = EnergyModel(cfg.energy)           # raises if a constant is missing
    for const in REQUIRED_CONSTANTS:
        ev = getattr(cfg.energy, const)
        assert ev.source.strip(), f"{name}: energy.{const} has no source"
        value = ev.watts if const == "static_power" else ev.pj
        assert value > 0, f"{name}: energy.{const} is {value}"
    rep = model.compute(_small_stats(banks=cfg.register_file.banks,
                                     warp_size=cfg.core.warp_size), cfg)
    assert rep.dynamic > 0 and rep.static > 0
    assert rep.component("register_file").terms[0].per_event == cfg.energy.rf_read.pj
