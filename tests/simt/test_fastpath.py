"""golden.simt.fastpath: the per-lane kernels against the numpy paths they replace.

The kernels run as plain Python here when the core is not compiled (slow, same results),
so the random comparisons hold in both forms; the whole-run comparison needs the compiled
form (the engine uses the kernels only then) and says so when it is not.
"""

import numpy as np
import pytest

from golden.simt import fastpath
from golden.simt.engine import FunctionalLaunch


def _numpy_addresses(reg: np.ndarray, lane0: int, offset: int) -> np.ndarray:
    v = reg[lane0:lane0 + 32]
    return (v.view(np.uint64) if v.dtype.itemsize == 8 else v.astype(np.uint64)) + np.uint64(offset)


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.uint64, np.int64])
def test_addresses_match_numpy(dtype):
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    for _ in range(40):
        reg = rng.integers(info.min, info.max, size=96, dtype=dtype, endpoint=True)
        lane0 = int(rng.choice([0, 32, 64]))
        offset = int(rng.integers(0, 1 << 64, dtype=np.uint64))
        active = int(rng.integers(1, 1 << 32))
        out = np.empty(32, dtype=np.uint64)
        acc, lo, hi = fastpath.load_addresses(reg.view(np.uint8), reg.itemsize,
                                              reg.dtype.kind == "i", lane0, offset, active, out)
        want = _numpy_addresses(reg, lane0, offset)
        assert np.array_equal(out, want)
        act = want[np.array([(active >> i) & 1 for i in range(32)], dtype=bool)]
        assert acc == int(np.bitwise_or.reduce(act))
        assert (lo, hi) == (int(act.min()), int(act.max()))


@pytest.mark.parametrize("size", [1, 2, 4, 8])
@pytest.mark.parametrize("sub,base_off", [(0, 0), (0, 48), (1 << 32, 0)])
def test_gather_matches_numpy_indexing(size, sub, base_off):
    rng = np.random.default_rng(size * 100 + base_off)
    mem = rng.integers(0, 256, size=4096, dtype=np.uint8)
    dtype = {1: np.uint8, 2: np.uint16, 4: np.float32, 8: np.float64}[size]
    for _ in range(30):
        active = int(rng.integers(1, 1 << 32))
        k = int(rng.integers(0, 3))
        addrs = (rng.integers(0, (4096 - base_off) // size - 3, size=32) * size).astype(np.uint64) \
            + np.uint64(sub)
        reg = rng.integers(0, 256, size=64 * size, dtype=np.uint8).view(dtype)
        want = reg.copy()
        lanes = np.array([(active >> i) & 1 for i in range(32)], dtype=bool)
        view = mem[base_off:base_off + (4096 - base_off) // size * size].view(dtype)
        idx = ((addrs - np.uint64(sub)).view(np.int64)) // size + k
        want[32:64][lanes] = view[idx[lanes]]
        got = reg.copy()
        fastpath.gather(mem, addrs, sub, base_off, size, k, active, got.view(np.uint8), 32)
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))   # bits, NaNs included


@pytest.mark.skipif(not fastpath.COMPILED, reason="the engine uses the per-lane kernels only "
                    "when golden.simt.fastpath is compiled (make native)")
@pytest.mark.parametrize("workload,config,mechs", [("MM", "pascal", ()), ("HS", "pascal", ()),
                                                   ("BFS", "pascal", ()), ("CP", "pascal", ("darsie",)),
                                                   ("SP", "gtx285", ())])
def test_whole_runs_identical_with_and_without_the_kernels(monkeypatch, workload, config, mechs):
    from golden.report.rekey import first_differences, simulation_part
    from golden.report.runner import TimingJob, run_job
    job = TimingJob(workload, config, size="small", mechanisms=mechs)
    monkeypatch.setattr(FunctionalLaunch, "use_fastpath", False)
    ref = run_job(job)
    monkeypatch.setattr(FunctionalLaunch, "use_fastpath", True)
    fast = run_job(job)
    assert first_differences(simulation_part(ref), simulation_part(fast)) == []
