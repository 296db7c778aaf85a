"""BP's tree sum does TB-uniform special-function work, as Rodinia's backprop does (issue 66).

Rodinia's ``bpnn_layerforward_CUDA`` bounds its tree loop with ``__log2f`` and forms each
level's stride with ``__powf(2, level)``; G-Scalar (seed 003, §5.3) attributes BP's +79%
IPC/W to that scalar SFU work. These tests pin the property in the committed PTX, in the
functional counts (SFU class, full warps, one value per thread block) and in the timing
model (SFU pipeline, SFU energy, G-Scalar scalar-SFU eligibility), so a rewrite of
``kernels/bp.cu`` cannot silently drop it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from golden.workloads.observed import run_observed
from golden.ptx.cfg import branch_target
from golden.ptx.ir import Reg
from golden.ptx.parser import parse_ptx
from golden.report.runner import TimingJob, run_job
from golden.simt.stats import OPCODE_CLASS
from golden.timing.pipelines import SFU_OPCODES
from golden.workloads import registry

HEIGHT = 16                      # rows of the tree (TB y extent)
LEVELS = HEIGHT.bit_length() - 1  # log2(16) = 4 tree levels
#: SFU instructions per thread of bpnn_layerforward: the hoisted lg2.approx of the loop
#: bound plus one ex2.approx per level
SFU_PER_THREAD = 1 + LEVELS


def _layerforward():
    w = registry.get("BP")
    return parse_ptx(w.ptx_path.read_text(), str(w.ptx_path)).functions["bpnn_layerforward"]


def _tree_loop(func):
    """(first, last) instruction indices of the backward-branch loop holding a barrier."""
    loops = []
    for i, inst in enumerate(func.instructions):
        t = branch_target(func, i)
        if t is not None and t <= i and any(
                func.instructions[k].opcode == "bar" for k in range(t, i + 1)):
            loops.append((t, i))
    assert len(loops) == 1, f"expected one tree loop with a barrier, found {loops}"
    return loops[0]


def _written(inst):
    d = inst.operands[0] if inst.operands else None
    return d.name if isinstance(d, Reg) else None


def _reads(inst):
    return {o.name for o in inst.operands[1:] if isinstance(o, Reg)}


def test_bp_tree_loop_stride_is_ex2_and_its_bound_is_lg2_in_ptx():
    func = _layerforward()
    first, last = _tree_loop(func)
    body = func.instructions[first:last + 1]
    ex2 = [i for i in body if i.opcode == "ex2"]
    assert ex2, "no ex2.approx (the __powf stride) inside the tree loop"
    # the stride is the truncated ex2 result and divides ty (rem), i.e. it drives the guard
    cvt = [i for i in body if i.opcode == "cvt" and _reads(i) & {_written(e) for e in ex2}]
    assert cvt and any(i.opcode == "rem" and _reads(i) & {_written(c) for c in cvt} for i in body)
    # the loop test (setp feeding the backward branch) compares against the lg2 result
    lg2 = {_written(i) for i in func.instructions if i.opcode == "lg2"}
    assert lg2, "no lg2.approx (the __log2f loop bound) in bpnn_layerforward"
    back = func.instructions[last]
    setp = [i for i in body if i.opcode == "setp" and back.guard is not None
            and isinstance(i.operands[0], Reg) and i.operands[0].name == back.guard.reg.name]
    assert setp and _reads(setp[-1]) & lg2, "the tree loop's exit test does not use lg2.approx"
    # both are SFU work for the functional statistics and the timing model
    for op in ("lg2", "ex2"):
        assert OPCODE_CLASS[op] == "sfu" and op in SFU_OPCODES


class _SfuRecorder:
    """Per SFU warp instruction: kernel PC, TB, whether all 32 lanes ran, source values."""

    def __init__(self):
        self.events = []

    def on_exec(self, ev):
        if ev.inst is None or OPCODE_CLASS.get(ev.inst.opcode) != "sfu":
            return
        for row in range(len(ev.warps)):
            srcs = tuple(v[row] for _, v in ev.srcs)
            self.events.append((ev.inst.opcode, int(ev.tbs[row]), bool(ev.active[row].all()), srcs))


def test_bp_sfu_work_is_counted_full_warp_and_tb_uniform(shrink_small):
    shrink_small.tiny("BP")
    rec = _SfuRecorder()
    run = run_observed(registry.get("BP"), [rec], size="small")
    assert not run.mismatches()
    forward = [s for s, l in zip(run.stats, run.launches) if l.kernel == "bpnn_layerforward"]
    assert len(forward) == 1
    warps = forward[0].warps
    assert warps == run.launches[0].grid[1] * HEIGHT * HEIGHT // 32
    # counted as SFU work: lg2 once, ex2 once per level, in every warp
    assert forward[0].by_class["sfu"] == warps * SFU_PER_THREAD
    assert Counter(op for op, *_ in rec.events) == {"lg2": warps, "ex2": warps * LEVELS}
    assert sum(s.by_class["sfu"] for s in run.stats) == len(rec.events)
    # scalar work: every lane of every warp of a TB runs it on one value
    per_tb: dict = {}
    for op, tb, full, srcs in rec.events:
        assert full, f"{op} ran with a partial mask"
        for v in srcs:
            assert np.all(v == v[0]), f"{op} sources differ across lanes"
        per_tb.setdefault((op, tb), set()).update(float(v[0]) for v in srcs)
    assert all(len(vals) == (1 if op == "lg2" else LEVELS) for (op, _), vals in per_tb.items())


def test_bp_sfu_work_reaches_sfu_pipeline_energy_and_gscalar(shrink_small):
    shrink_small.tiny("BP")
    r = run_job(TimingJob("BP", "gtx480", mechanisms=("gscalar",)))
    assert r["outputs_match"]
    t = r["timing"]
    n_sfu = t["mechanism"]["gscalar.scalar_sfu"]
    # every lg2/ex2 of the tree is TB-uniform, so G-Scalar runs all of them as scalars
    tbs = registry.get("BP").sizes["small"]["inputs"] // HEIGHT
    assert n_sfu == tbs * (HEIGHT * HEIGHT // 32) * SFU_PER_THREAD
    assert t["fu_ops"]["sfu"] >= n_sfu
    assert t["mechanism"]["gscalar.lanes_saved_sfu"] == 31 * n_sfu
    assert r["energy"]["components"]["sfu"]["joules"] > 0
