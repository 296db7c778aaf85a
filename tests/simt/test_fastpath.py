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
                                                   ("SP", "gtx285", ()),
                                                   # dynamic warps (step_threads' _home_step)
                                                   ("MM", "fx5800", ("capri",)),
                                                   ("BFS", "fx5800", ("tbc-plus",))])
def test_whole_runs_identical_with_and_without_the_kernels(monkeypatch, workload, config, mechs,
                                                           shrink_small):
    from golden.jobs.rekey import first_differences, simulation_part
    from golden.report.runner import TimingJob, run_job
    shrink_small.tiny(workload)
    job = TimingJob(workload, config, size="small", mechanisms=mechs)
    monkeypatch.setattr(FunctionalLaunch, "use_fastpath", False)
    ref = run_job(job)
    monkeypatch.setattr(FunctionalLaunch, "use_fastpath", True)
    fast = run_job(job)
    assert first_differences(simulation_part(ref), simulation_part(fast)) == []


# ----------------------------------------------------------------------------- ALU kernels

from types import SimpleNamespace   # noqa: E402

from golden.exec import DTYPE, compile_op, imm_as, read_as, write_as   # noqa: E402
from golden.ptx.ir import Imm   # noqa: E402
from golden.simt import engine   # noqa: E402
from tests.exec.exec_helpers import mk   # noqa: E402

#: instruction forms the kernels implement: (text, operands, register types by name)
FORMS = [
    ("add.s32", "d, a, b", dict(d="b32", a="b32", b="b32")),
    ("add.s32", "d, a, -7", dict(d="b32", a="b32")),
    ("add.u64", "d, a, b", dict(d="b64", a="b64", b="b64")),
    ("add.s64", "d, a, b", dict(d="b64", a="b64", b="b64")),
    ("sub.s32", "d, a, b", dict(d="s32", a="b32", b="u32")),
    ("sub.u64", "d, 5, b", dict(d="b64", b="b64")),
    ("mul.lo.s32", "d, a, b", dict(d="b32", a="b32", b="b32")),
    ("mul.lo.u64", "d, a, 12", dict(d="b64", a="b64")),
    ("mul.wide.s32", "d, a, b", dict(d="b64", a="b32", b="b32")),
    ("mul.wide.s32", "d, a, 4", dict(d="b64", a="b32")),
    ("mul.wide.u32", "d, a, b", dict(d="b64", a="b32", b="b32")),
    ("mad.lo.s32", "d, a, b, c", dict(d="b32", a="b32", b="b32", c="b32")),
    ("mad.lo.s32", "d, a, 3, c", dict(d="b32", a="b32", c="b32")),
    ("min.s32", "d, a, b", dict(d="b32", a="b32", b="b32")),
    ("max.s32", "d, a, 0", dict(d="b32", a="b32")),
    ("min.u32", "d, a, b", dict(d="b32", a="b32", b="b32")),
    ("max.u64", "d, a, b", dict(d="b64", a="b64", b="b64")),
    ("min.s64", "d, a, b", dict(d="b64", a="b64", b="b64")),
    ("shl.b32", "d, a, 3", dict(d="b32", a="b32")),
    ("shl.b32", "d, a, b", dict(d="b32", a="b32", b="b32")),
    ("shl.b64", "d, a, b", dict(d="b64", a="b64", b="b32")),
    ("shr.u32", "d, a, b", dict(d="b32", a="b32", b="b32")),
    ("shr.s32", "d, a, b", dict(d="b32", a="b32", b="b32")),
    ("shr.s32", "d, a, 31", dict(d="b32", a="b32")),
    ("shr.s64", "d, a, b", dict(d="b64", a="b64", b="b32")),
    ("shr.b32", "d, a, 40", dict(d="b32", a="b32")),
    ("and.b32", "d, a, b", dict(d="b32", a="b32", b="b32")),
    ("or.b64", "d, a, 255", dict(d="b64", a="b64")),
    ("xor.b32", "d, a, b", dict(d="b32", a="b32", b="b32")),
    ("and.pred", "d, a, b", dict(d="pred", a="pred", b="pred")),
    ("or.pred", "d, a, b", dict(d="pred", a="pred", b="pred")),
    ("xor.pred", "d, a, b", dict(d="pred", a="pred", b="pred")),
    ("not.pred", "d, a", dict(d="pred", a="pred")),
    ("not.b32", "d, a", dict(d="b32", a="b32")),
    ("mov.u32", "d, a", dict(d="b32", a="b32")),
    ("mov.b32", "d, a", dict(d="f32", a="b32")),
    ("mov.u16", "d, 77", dict(d="b16")),
    ("mov.f32", "d, 0f3F800000", dict(d="f32")),
    ("mov.f64", "d, a", dict(d="f64", a="f64")),
    ("mov.pred", "d, a", dict(d="pred", a="pred")),
    ("selp.b32", "d, a, b, c", dict(d="b32", a="b32", b="b32", c="pred")),
    ("selp.s64", "d, a, 9, c", dict(d="b64", a="b64", c="pred")),
    ("cvt.s64.s32", "d, a", dict(d="b64", a="b32")),
    ("cvt.u64.u32", "d, a", dict(d="b64", a="b32")),
    ("setp.lt.s32", "d, a, b", dict(d="pred", a="b32", b="b32")),
    ("setp.ge.s32", "d, a, 0", dict(d="pred", a="b32")),
    ("setp.gt.u32", "d, a, b", dict(d="pred", a="b32", b="b32")),
    ("setp.le.u64", "d, a, b", dict(d="pred", a="b64", b="b64")),
    ("setp.eq.s16", "d, a, 3", dict(d="pred", a="b16")),
    ("setp.ne.b32", "d, a, b", dict(d="pred", a="b32", b="b32")),
    ("setp.lt.s64", "d, a, b", dict(d="pred", a="b64", b="b64")),
    ("add.f32", "d, a, b", dict(d="f32", a="f32", b="f32")),
    ("add.rn.f32", "d, a, 0f3F000000", dict(d="f32", a="f32")),
    ("sub.f32", "d, a, b", dict(d="f32", a="f32", b="f32")),
    ("mul.f32", "d, a, b", dict(d="f32", a="f32", b="b32")),
    ("fma.rn.f32", "d, a, b, c", dict(d="f32", a="f32", b="f32", c="f32")),
    ("fma.rn.f32", "d, a, 0fC0000000, c", dict(d="f32", a="f32", c="f32")),
]


def _random_bits(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind == "f":
        # mostly ordinary values, plus zeros of both signs, infinities, NaNs, subnormals and
        # values close to each other (cancellation)
        u = rng.integers(0, 1 << (8 * dtype.itemsize), n, dtype=np.uint64, endpoint=False)
        raw = u.astype(f"u{dtype.itemsize}").view(dtype)
        normal = rng.normal(0, 1e3, n).astype(dtype)
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-42, 1.0, 1.0000001],
                           dtype=dtype)
        pick = rng.integers(0, 3, n)
        return np.where(pick == 0, raw, np.where(pick == 1, normal,
                                                  special[rng.integers(0, len(special), n)]))
    info = np.iinfo(dtype)
    edge = np.array([0, 1, info.max, info.min, 31, 32, 33, 63, 64], dtype=dtype)
    vals = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    pick = rng.integers(0, 4, n)
    return np.where(pick == 0, edge[rng.integers(0, len(edge), n)], vals)


@pytest.mark.parametrize("form", FORMS, ids=[f"{f[0]} {f[1]}" for f in FORMS])
def test_alu_kernels_give_the_numpy_builders_bits(form):
    head, ops, types = form
    inst = mk(head, *[o.strip() for o in ops.split(",")])
    c = compile_op(inst)
    srcs = []
    for o, t in zip(c.src_operands, c.src_types):
        if isinstance(o, Imm):
            srcs.append((None, None, t, imm_as(o, t)))
        else:
            srcs.append((o.name, types[o.name], t, None))
    dsts = tuple((r.name, t, types[r.name]) if r is not None else None
                 for r, t in zip(c.dst_operands, c.dst_types))
    nat = engine._native_alu(inst, tuple(srcs), dsts)
    assert nat is not None, "a form the kernels implement was not mapped to them"
    rng = np.random.default_rng(abs(hash(head + ops)) % (1 << 32))
    for trial in range(25):
        regs = {name: _random_bits(rng, DTYPE[t], 64) for name, t in types.items()}
        active = int(rng.integers(1, 1 << 32)) if trial % 3 else 0xFFFFFFFF
        lanes = np.array([(active >> i) & 1 for i in range(32)], dtype=bool)
        want = {k: v.copy() for k, v in regs.items()}
        vals = [imm if key is None else read_as(want[key][32:], rt, t) for key, rt, t, imm in srcs]
        with np.errstate(all="ignore"):
            res = c.fn(*vals)
        for d, v in zip(dsts, res):
            if d is not None:
                key, t, rt = d
                v = np.broadcast_to(write_as(np.asarray(v), t, rt), (32,))
                want[key][32:][lanes] = v[lanes]
        w = SimpleNamespace(regs={k: v.copy() for k, v in regs.items()}, reg_bytes={}, reg_f32={})
        done = engine.FunctionalLaunch._alu_fast(w, nat, 32, active)
        if not done:       # the f32 kernel declines NaN results: the numpy path owns them
            assert any(np.isnan(np.asarray(v, dtype=np.float64)).any() for v in res)
            assert all(np.array_equal(w.regs[k].view(np.uint8), regs[k].view(np.uint8))
                       for k in regs)   # nothing written
            continue
        for k in types:
            assert np.array_equal(w.regs[k].view(np.uint8), want[k].view(np.uint8)), (k, trial)


@pytest.mark.parametrize("size", [1, 2, 4, 8])
@pytest.mark.parametrize("use_imm", [False, True])
def test_scatter_matches_numpy_indexed_assignment(size, use_imm):
    rng = np.random.default_rng(size + 10 * use_imm)
    dtype = {1: np.uint8, 2: np.uint16, 4: np.float32, 8: np.uint64}[size]
    for _ in range(30):
        mem = rng.integers(0, 256, size=2048, dtype=np.uint8)
        active = int(rng.integers(1, 1 << 32))
        k = int(rng.integers(0, 3))
        # few distinct addresses: lanes collide, the last active lane's value must stay
        addrs = (rng.integers(0, 8, size=32) * size).astype(np.uint64)
        src = rng.integers(0, 256, size=64 * size, dtype=np.uint8)
        imm = int(rng.integers(0, 1 << (8 * size), dtype=np.uint64))
        lanes = np.array([(active >> i) & 1 for i in range(32)], dtype=bool)
        want = mem.copy()
        vals = (np.full(32, imm, dtype=f"u{size}").view(dtype) if use_imm
                else src.view(dtype)[32:64])
        idx = addrs.view(np.int64) // size + k
        want.view(dtype)[idx[lanes]] = vals[lanes]
        got = mem.copy()
        fastpath.scatter(got, addrs, 0, 0, size, k, active, None if use_imm else src, imm, 32)
        assert np.array_equal(got, want)
