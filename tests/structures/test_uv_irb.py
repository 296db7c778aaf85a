"""Golden instruction reuse buffer (seed 002 ch. 2, §2.4.3, §2.4.4)."""

import random

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.uv import IRB, IRBOps, IRBParams


def test_paper_size_is_1192_bits():
    p = IRBParams()
    assert (p.age_bits, p.entry_bits, p.total_bits) == (3, 149, 1192)
    assert IRBParams(parity=True).total_bits == 1192 + 8
    assert p.state_bits == 1192 + 8                    # + one valid bit per way
    assert IRBParams(value_bits=64).entry_bits == 10 + 8 + 4 * 64 + 3
    assert IRBParams(entries=16).age_bits == 4


def _fill(irb, n):
    for w in range(n):
        irb.update(w, tag=w, opcode=1, srcs=(w, w + 1, w + 2), dst=100 + w)


def test_reset_state_and_victim_prefers_lowest_invalid_way():
    irb = IRB()
    assert irb.ages == list(range(8)) and not any(irb.valid)
    assert irb.lookup(0, 0).victim == 0
    irb.update(0, 5, 1, (1,), 9)
    assert irb.lookup(0, 0).victim == 1
    irb.update(3, 6, 1, (1,), 9)
    assert irb.lookup(0, 0).victim == 1


def test_hit_match_mismatch_miss_and_opcode_alias():
    irb = IRB()
    _fill(irb, 2)
    out = irb.lookup(1, 1, (1, 2, 3))
    assert (out.hit, out.hit_way, out.match, out.value) == (1, 1, 1, 101)
    out = irb.lookup(1, 1, (1, 2, 4))
    assert (out.hit, out.match, out.value) == (1, 0, 101)
    assert irb.lookup(1, 2, (1, 2, 3)).hit == 0      # same partial PC, other opcode
    out = irb.lookup(7, 1)
    assert (out.hit, out.hit_way, out.value) == (0, 0, 0)


def test_missing_sources_are_zero():
    irb = IRB()
    irb.update(0, 1, 1, (5,), 7)
    assert irb.entry(0).srcs == (5, 0, 0)
    assert irb.lookup(1, 1, (5,)).match == 1
    assert irb.lookup(1, 1, (5, 0, 0)).match == 1


def test_lru_order_and_eviction_with_all_ways_full():
    irb = IRB()
    _fill(irb, 8)                                     # way 7 written last: MRU
    assert irb.ages == [7, 6, 5, 4, 3, 2, 1, 0]
    assert irb.lookup(0, 0).victim == 0               # all valid: the LRU way
    irb.lookup(0, 1)                                  # hit way 0 -> MRU
    assert irb.ages == [0, 7, 6, 5, 4, 3, 2, 1]
    assert irb.lookup(9, 9).victim == 1               # a miss does not touch
    irb.lookup(3, 1, (0, 0, 0))                       # a mismatching hit still touches
    assert irb.ages[3] == 0 and irb.lookup(9, 9).victim == 1
    irb.update(1, 20, 1, (), 0)
    assert irb.lookup(9, 9).victim == 2
    assert sorted(irb.ages) == list(range(8))


def test_same_cycle_lookup_sees_old_state_and_touch_order():
    irb = IRB(IRBParams(entries=4))
    _fill(irb, 4)                                     # ages [3, 2, 1, 0]
    out = irb.step(IRBOps(lk_en=1, lk_tag=0, lk_opcode=1, lk_src0=0, lk_src1=1, lk_src2=2,
                          up_en=1, up_way=0, up_tag=9, up_opcode=1, up_dst=5))
    assert (out.hit, out.match, out.value, out.victim) == (1, 1, 100, 0)
    assert irb.entry(0).tag == 9 and irb.ages == [0, 3, 2, 1]
    # hit way 1 touched first, then update of way 2 touched: way 2 MRU, way 1 next
    irb.step(IRBOps(lk_en=1, lk_tag=1, lk_opcode=1, up_en=1, up_way=2, up_tag=2, up_opcode=1))
    assert irb.ages == [2, 1, 0, 3]


def test_parity_detects_a_flipped_bit_and_an_update_repairs_it():
    p = IRBParams(parity=True)
    irb = IRB(p)
    irb.update(2, 3, 4, (10, 11, 12), 13)
    e = irb.entry(2)
    assert e.parity == (bin(3).count("1") + bin(4).count("1") + bin(10).count("1")
                        + bin(11).count("1") + bin(12).count("1") + bin(13).count("1")) % 2
    assert irb.lookup(3, 4, (10, 11, 12)).match == 1
    irb.inject_fault(2, p.data_bits - 1)              # top bit of dst
    out = irb.lookup(3, 4, (10, 11, 12))
    assert (out.hit, out.parity_error, out.match) == (1, 1, 0)
    assert out.value == 13 | (1 << 31)
    irb.update(2, 3, 4, (10, 11, 12), 13)
    assert irb.lookup(3, 4, (10, 11, 12)).match == 1
    irb.inject_fault(2, p.data_bits)                  # the parity bit itself
    assert irb.lookup(3, 4, (10, 11, 12)).parity_error == 1
    irb.inject_fault(2, 0)                            # tag bit: now a miss, no error shown
    out = irb.lookup(3, 4, (10, 11, 12))
    assert (out.hit, out.parity_error) == (0, 0)


def test_fault_injection_after_update_in_the_same_cycle():
    irb = IRB(IRBParams(parity=True))
    irb.step(IRBOps(up_en=1, up_way=1, up_tag=5, up_opcode=2, fi_en=1, fi_way=1,
                    fi_bit=IRBParams().tag_bits))    # flips opcode bit 0 of the new word
    assert irb.entry(1).opcode == 3 and irb.lookup(5, 3).parity_error == 1


@pytest.mark.parametrize("ops", [IRBOps(lk_en=2), IRBOps(lk_tag=1 << 10), IRBOps(up_opcode=256),
                                 IRBOps(up_src1=1 << 32), IRBOps(up_way=8), IRBOps(fi_en=1)])
def test_out_of_range_requests_are_errors(ops):
    with pytest.raises(SimtlabError):
        IRB().step(ops)


def test_unused_sources_and_bad_fault_bits_are_errors():
    with pytest.raises(SimtlabError):
        IRB(IRBParams(sources=2)).step(IRBOps(lk_src2=1))
    with pytest.raises(SimtlabError):
        IRB(IRBParams(sources=2)).lookup(1, 1, (1, 2, 3))
    p = IRBParams(parity=True)
    with pytest.raises(SimtlabError):
        IRB(p).step(IRBOps(fi_en=1, fi_bit=p.word_bits))


def test_bad_parameters_are_errors():
    with pytest.raises(ConfigError):
        IRBParams(entries=1)
    with pytest.raises(SimtlabError):
        IRBParams(entries=6)
    with pytest.raises(ConfigError):
        IRBParams(sources=4)
    with pytest.raises(SimtlabError):
        IRBParams(parity="yes")
    with pytest.raises(SimtlabError):
        IRB().step("not ops")


def test_convenience_methods_equal_step():
    rng = random.Random(7)
    p = IRBParams(entries=4, value_bits=64)
    a, b = IRB(p), IRB(p)
    for _ in range(400):
        tag, op = rng.randrange(6), rng.randrange(2)
        srcs = tuple(rng.randrange(3) for _ in range(rng.randrange(4)))
        if rng.random() < 0.5:
            got = a.lookup(tag, op, srcs)
            kw = {f"lk_src{i}": v for i, v in enumerate(srcs)}
            assert got == b.step(IRBOps(lk_en=1, lk_tag=tag, lk_opcode=op, **kw))
        else:
            way, dst = rng.randrange(4), rng.getrandbits(64)
            a.update(way, tag, op, srcs, dst)
            kw = {f"up_src{i}": v for i, v in enumerate(srcs)}
            b.step(IRBOps(up_en=1, up_way=way, up_tag=tag, up_opcode=op, up_dst=dst, **kw))
        assert (a.valid, a.words, a.ages) == (b.valid, b.words, b.ages)
