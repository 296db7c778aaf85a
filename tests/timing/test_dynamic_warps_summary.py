"""Dynamic warps' dependence tracker (golden/timing/dynamic_warps.py ThreadScoreboard):
``blocked`` answers from the per-register summary of pending writes, and must give the
same answer as ``blocked_reference`` (the walk over every pending token) after any
sequence of reservations and releases by the TB's warps."""

import random
from types import SimpleNamespace

from golden.timing.dynamic_warps import ThreadScoreboard


class _Regs(tuple):
    """The SM's writeback record: the registers written, with the reservation's token."""
    token = None


def _tracker_pairs(seed: int, n_warps: int = 4, n_rows: int = 4):
    rng = random.Random(seed)
    pending: dict = {}
    summary: dict = {}
    warps = []
    for _ in range(n_warps):
        rows = {r: rng.getrandbits(32) for r in rng.sample(range(n_rows), rng.randint(0, 2))}
        warps.append(ThreadScoreboard(pending, {r: m for r, m in rows.items() if m}, summary))
    return rng, warps


def test_summary_answers_equal_the_token_walk_under_random_reserve_release():
    for seed in range(30):
        rng, warps = _tracker_pairs(seed)
        inflight = []
        for _ in range(300):
            w = rng.choice(warps)
            op = rng.random()
            if op < 0.4:
                regs = _Regs(rng.sample(range(6), rng.randint(1, 2)))
                regs.token = w.reserve(regs, rng.random() < 0.4, rng.getrandbits(32))
                inflight.append(regs)
            elif op < 0.7 and inflight:
                regs = inflight.pop(rng.randrange(len(inflight)))
                w.release(regs)
            d = SimpleNamespace(hazard=tuple(rng.sample(range(6), rng.randint(1, 3))))
            for t in warps:
                assert t.blocked(d) == t.blocked_reference(d)
        for regs in inflight:
            warps[0].release(regs)
        assert warps[0].empty()
        d = SimpleNamespace(hazard=tuple(range(6)))
        assert all(t.blocked(d) == 0 for t in warps)


def test_a_load_pending_on_one_of_the_warps_threads_blocks_as_memory():
    pending, summary = {}, {}
    a = ThreadScoreboard(pending, {0: 0x0000FFFF}, summary)
    b = ThreadScoreboard(pending, {0: 0xFFFF0000}, summary)
    d = SimpleNamespace(hazard=(5,))
    regs = _Regs((5,))
    regs.token = a.reserve(regs, True)
    assert (a.blocked(d), b.blocked(d)) == (2, 0)   # only a's own threads wait on the load
    a.release(regs)
    regs.token = b.reserve(regs, False)
    assert (a.blocked(d), b.blocked(d)) == (0, 1)
