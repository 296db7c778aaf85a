"""Golden CAPRI warp compaction unit with adequacy evaluator (seed 004 §2.2, §3.1, §3.3
step 6; Figs. 7-8): the paper's walk-through and properties on random masks against a
brute-force reference."""

import random

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.capri import Wcu, WcuOps, WcuParams
from golden.structures.trace import TraceRecorder, read_trace

SEED = 20260304


def test_fig7_8_walkthrough():
    """paper-facts §7.3: a CTA of 3 warps of 4 lanes. W0 = 0123 (non-divergent, UMask 0),
    W1 = 4xx7 and W2 = 89xx (stalled). The WCU compacts only W1 and W2 into 49x7 and
    8xxx: still 2 warps. Lane counts over all 3 warps are 3, 1, 1, 2: max 3 = 3 active
    warps, so compaction is inadequate."""
    threads = [[0, 1, 2, 3], [4, None, None, 7], [8, 9, None, None]]
    masks = [sum(1 << lane for lane, t in enumerate(w) if t is not None) for w in threads]
    wcu = Wcu(WcuParams(warps=3, lanes=4))
    r = wcu.compact(masks, umask=0b110)
    formed = [[threads[r.src[k][lane]][lane] if r.src[k][lane] is not None else None
               for lane in range(4)] for k in range(r.n_formed)]
    assert formed == [[4, 9, None, 7], [8, None, None, None]]
    assert r.n_formed == 2
    assert (r.max_lane_count, r.n_active_warps, r.adequate) == (3, 3, False)
    # TBC (every warp stalls) would have formed 3 warps from the 3: no gain either
    assert wcu.compact(masks, umask=0b111).n_formed == 3


def test_adequate_when_threads_fit_fewer_warps():
    wcu = Wcu(WcuParams(warps=4, lanes=4))
    r = wcu.compact([0b0001, 0b0010, 0b0100, 0b1000], umask=0b1111)
    assert r.warps == (0b1111,) and r.src == ((0, 1, 2, 3),)
    assert (r.max_lane_count, r.n_active_warps, r.adequate) == (1, 4, True)


def test_empty_path_and_empty_umask():
    wcu = Wcu(WcuParams(warps=4, lanes=8))
    r = wcu.compact([], umask=0b1111)
    assert (r.n_formed, r.max_lane_count, r.n_active_warps, r.adequate) == (0, 0, 0, False)
    r = wcu.compact([0xFF, 0x0F], umask=0)
    assert r.n_formed == 0 and (r.max_lane_count, r.n_active_warps) == (2, 2)


def _brute(masks, umask, lanes):
    """Independent reference: per lane, the UMask warps' threads in warp order go to
    formed warps 0, 1, 2, ...; evaluator over all warps."""
    formed = {}
    for lane in range(lanes):
        k = 0
        for w, m in enumerate(masks):
            if umask >> w & 1 and m >> lane & 1:
                formed.setdefault(k, {})[lane] = w
                k += 1
    counts = [sum(m >> lane & 1 for m in masks) for lane in range(lanes)]
    active = sum(1 for m in masks if m)
    return formed, max(counts), active


@pytest.mark.parametrize("warps,lanes", [(8, 32), (3, 4), (16, 32), (5, 7), (1, 4)])
def test_random_masks_against_brute_force(warps, lanes):
    print(f"seed {SEED}")
    rng = random.Random(SEED + warps * 100 + lanes)
    wcu = Wcu(WcuParams(warps=warps, lanes=lanes))
    for _ in range(300):
        n = rng.randint(0, warps)
        dens = rng.choice((0.05, 0.3, 0.6, 0.95, 1.0))
        masks = [sum(1 << l for l in range(lanes) if rng.random() < dens) for _ in range(n)]
        umask = rng.randrange(1 << warps)
        r = wcu.compact(masks, umask)
        formed, max_lane, active = _brute(masks, umask, lanes)
        # formed warps == max lane count over the UMask warps
        stalled = [m for w, m in enumerate(masks) if umask >> w & 1]
        assert r.n_formed == max([sum(m >> l & 1 for m in stalled) for l in range(lanes)] + [0])
        assert r.n_formed == len(formed)
        # every thread of a UMask warp appears exactly once, in its home lane; none else
        seen = []
        for k in range(r.n_formed):
            assert r.warps[k], "a formed warp is empty"
            for lane in range(lanes):
                w = r.src[k][lane]
                assert (w is not None) == bool(r.warps[k] >> lane & 1)
                if w is not None:
                    assert umask >> w & 1 and masks[w] >> lane & 1
                    seen.append((w, lane))
        assert sorted(seen) == sorted((w, lane) for w, m in enumerate(masks)
                                      if umask >> w & 1 for lane in range(lanes) if m >> lane & 1)
        assert len(seen) == len(set(seen))
        assert {k: {l: r.src[k][l] for l in range(lanes) if r.src[k][l] is not None}
                for k in range(r.n_formed)} == formed
        # the evaluator covers all warps
        assert (r.max_lane_count, r.n_active_warps) == (max_lane, active)
        assert r.adequate == (max_lane < active)
        assert r.max_lane_count <= r.n_active_warps


def test_port_packing():
    p = WcuParams()
    assert (p.warp_bits, p.count_bits, p.mask_bits, p.src_bits) == (3, 4, 256, 768)
    wcu = Wcu(WcuParams(warps=2, lanes=2))
    out = wcu.step(WcuOps(mask=0b1111, umask=0b11))
    assert out.as_dict() == dict(formed=0b1111, src=0b1100, n_formed=2, max_lane_count=2,
                                 n_active_warps=2, adequate=0)


def test_bad_parameters_and_requests():
    for kw in ({"warps": 0}, {"lanes": 0}, {"warps": 2.0}):
        with pytest.raises(ConfigError):
            WcuParams(**kw)
    wcu = Wcu(WcuParams(warps=2, lanes=4))
    for ops in (WcuOps(mask=1 << 8), WcuOps(umask=4), WcuOps(mask=-1)):
        with pytest.raises(SimtlabError):
            wcu.step(ops)
    with pytest.raises(SimtlabError):
        wcu.compact([1, 2, 3], 0)
    with pytest.raises(SimtlabError):
        wcu.compact([1 << 4], 0)
    with pytest.raises(SimtlabError):
        Wcu(object())


def test_recorder(tmp_path):
    path = tmp_path / "wcu.jsonl"
    p = WcuParams(warps=3, lanes=4)
    with TraceRecorder.open(path, "capri_wcu", p) as rec:
        wcu = Wcu(p, recorder=rec)
        wcu.compact([0b1111, 0b1001, 0b0011], 0b110)
    trace = read_trace(path)
    assert trace.structure == "capri_wcu" and len(trace.cycles) == 1
    ops, out = trace.cycles[0]
    assert Wcu(p).step(ops) == out and out.adequate == 0
