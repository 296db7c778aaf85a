# amaranth: UnusedElaboratable=no
"""DARSIE PC coalescer: golden model on hand-worked cases, RTL vs golden in amaranth.sim."""

from __future__ import annotations

import random

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.darsie.coalescer import CoalescerOps, CoalescerParams, PCCoalescer
from rtl.darsie.coalescer import PCCoalescer as PCCoalescerRTL
from tb.darsie.amaranth_sim import check_against_golden
from tb.darsie.stimulus import directed_coalescer, random_coalescer

SEED = 20240702
SMALL = CoalescerParams(slots=4, tbs=4, pc_width=8)


def test_defaults():
    p = CoalescerParams()
    assert (p.slots, p.tbs, p.pc_width, p.tb_width) == (8, 32, 48, 5)


def test_coalesce_merges_exact_matches_into_two_reads():
    c = PCCoalescer(SMALL)
    ports, left = c.coalesce([(0, 8), (1, 8), (0, 8), (0, 16)])
    # Port 0: key of slot 0 (TB 0, PC 8) with slot 2; port 1: (TB 1, PC 8); slot 3 waits.
    assert [(p.tb, p.pc, p.slots) for p in ports] == [(0, 8, 0b0101), (1, 8, 0b0010)]
    assert left == 0b1000
    ports, left = c.coalesce([None, (2, 24), None, (2, 24)])
    assert [(p.tb, p.pc, p.slots) for p in ports] == [(2, 24, 0b1010)] and left == 0
    assert c.coalesce([]) == ([], 0)


def test_golden_rejects_bad_arguments():
    with pytest.raises(ConfigError):
        CoalescerParams(slots=0)
    c = PCCoalescer(SMALL)
    with pytest.raises(SimtlabError):
        c.coalesce([(0, 256)])
    with pytest.raises(SimtlabError):
        c.coalesce([None] * 5)
    with pytest.raises(SimtlabError):
        c.step(CoalescerOps(req_valid=16))


def test_rtl_rejects_bad_parameters():
    with pytest.raises(TypeError):
        PCCoalescerRTL(slots="8")
    with pytest.raises(ValueError):
        PCCoalescerRTL(slots=0)
    dut = PCCoalescerRTL(slots=3, tbs=5, pc_width=6)
    assert len(dut.req_tb) == 9 and len(dut.req_pc) == 18 and len(dut.port1_slots) == 3


@pytest.mark.parametrize("params", [SMALL, CoalescerParams(slots=3, tbs=5, pc_width=6)],
                         ids=["small", "odd"])
def test_rtl_matches_golden(params):
    print(f"seed {SEED}")
    ops = [op for _, seq in directed_coalescer(params) for op in seq]
    ops += random_coalescer(params, random.Random(SEED), 200)
    check_against_golden("pc_coalescer", params, ops, f"directed + random seed {SEED}")


def test_ports_sets_how_many_distinct_keys_are_read_per_cycle():
    reqs = [(0, 8), (1, 8), (0, 16), (2, 24), (0, 8), (3, 32)]
    p4 = CoalescerParams(slots=8, tbs=4, pc_width=8, ports=4)
    ports, left = PCCoalescer(p4).coalesce(reqs)
    assert [(p.tb, p.pc, p.slots) for p in ports] == [
        (0, 8, 0b010001), (1, 8, 0b000010), (0, 16, 0b000100), (2, 24, 0b001000)]
    assert left == 0b100000
    one, left1 = PCCoalescer(CoalescerParams(slots=8, tbs=4, pc_width=8, ports=1)).coalesce(reqs)
    assert [(p.tb, p.pc, p.slots) for p in one] == [(0, 8, 0b010001)] and left1 == 0b101110
    out = PCCoalescer(CoalescerParams(slots=8, tbs=4, pc_width=8, ports=1)).step(
        CoalescerOps(req_valid=0b11, req_tb=0b0100, req_pc=0x0808))
    assert out.port1_valid == 0 and out.leftover == 0b10       # port 1 is not built
    with pytest.raises(ConfigError):
        CoalescerParams(ports=5)
    with pytest.raises(ValueError):
        PCCoalescerRTL(ports=0)


@pytest.mark.parametrize("ports", [1, 3, 4])
def test_rtl_matches_golden_for_every_port_count(ports):
    params = CoalescerParams(slots=6, tbs=4, pc_width=8, ports=ports)
    ops = random_coalescer(params, random.Random(SEED + ports), 300)
    ops += [o for _, seq in directed_coalescer(params) for o in seq]
    check_against_golden("pc_coalescer", params, ops, f"{ports} ports, seed {SEED + ports}")


def test_rtl_and_golden_agree_on_the_interface_port_count():
    from golden.structures.darsie.coalescer import MAX_PORTS as GOLDEN_MAX
    from rtl.darsie.coalescer import MAX_PORTS as RTL_MAX
    assert RTL_MAX == GOLDEN_MAX == 4
