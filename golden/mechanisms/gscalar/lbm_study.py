"""Sensitivity study of LBM's G-Scalar properties to kernel form, lattice and step count
(G-Scalar §1 and §5.2: LBM about 50% divergent, 30% divergent-scalar, >= 40% eligible;
issue 66; docs/lbm.md).

Single-change experiments on the LBM stand-in (``golden/workloads/defs/lbm.py``), each run in
functional mode with :class:`~.per_pc.PerPCGScalarObserver` and checked against the
workload's numpy reference (the variants compute the same lattice update). Nothing here is
fitted and nothing replaces the workload: the committed stand-in's kernel is unchanged.

Kernels (``KERNELS``):

* ``committed`` – ``golden/workloads/kernels/lbm.cu`` as the suite runs it (each branch
  gathers, nvcc 13 hoists the common gathers above the flag test);
* ``parboil-cuda`` – ``lbm_kernels/lbm_parboil_cuda.cu``: the control flow of Parboil's
  CUDA ``performStreamCollide_kernel`` (all gathers before the flag test, bounce-back as a
  register swap, BGK in the other branch, all stores after the join);
* ``cpu-form`` – ``lbm_kernels/lbm_cpu_form.cu``: the control flow of Parboil's CPU lbm
  (SPEC's): each branch gathers and stores its own populations; the two paths are separate
  ``__noinline__`` functions, as they are separate code in that source, so nvcc cannot
  merge their gathers above the flag test.

Each variant's PTX is committed beside it (``nvcc -ptx -arch=sm_75`` run in that folder,
as :mod:`golden.workloads.build_ptx` does for the suite), so no nvcc is needed.

Divergence definition (``--count-partial``): the suite's observer calls an instruction
divergent when it runs on fewer than the threads its warp was launched with, so the fourth
warp of a 120-thread TB (24 threads) is not divergent by itself. ``--count-partial`` counts
against all 32 lanes instead (a partial warp's every instruction is then divergent and its
equal-valued instructions divergent-scalar), the reading under which a simulator that
compares active masks with a full warp would report it. G-Scalar does not say which it used.

Run: ``python -m golden.mechanisms.gscalar.lbm_study [--size paper] [--kernels ...]
[--set steps=N --set ny=N --set nz=N] [--count-partial] [--pcs N]``.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import numpy as np

from golden.mechanisms.gscalar.analysis import CONFIG, summarise
from golden.mechanisms.gscalar.observing import ObservingDevice
from golden.mechanisms.gscalar.per_pc import PerPCGScalarObserver, pc_table
from golden.mechanisms.gscalar.observer import _pack
from golden.report.present.cells import markdown_table

#: folder of the study's kernel variants (each .cu with its committed .ptx beside it)
VARIANT_DIR = Path(__file__).resolve().parent / "lbm_kernels"
#: kernel name -> .cu path (None: the workload's committed kernel)
KERNELS = {"committed": None, "parboil-cuda": VARIANT_DIR / "lbm_parboil_cuda.cu",
           "cpu-form": VARIANT_DIR / "lbm_cpu_form.cu"}


class PartialWarpDivergentObserver(PerPCGScalarObserver):
    """Per-PC G-Scalar statistics with divergence judged against all 32 lanes: the lanes a
    partial warp was launched without count as inactive (``--count-partial``)."""

    def on_launch_begin(self, launch) -> None:
        super().on_launch_begin(launch)
        self._full32 = _pack(np.ones_like(self._full_rows))


def run_case(size: str = "small", kernel: str = "committed", seed: int = 0,
             count_partial: bool = False, **overrides):
    """One LBM run with the per-PC observer; ``overrides`` replace size parameters
    (ny, nz, steps, sphere_radius); ``count_partial`` judges divergence against 32 lanes
    (:class:`PartialWarpDivergentObserver`). Returns (summary row, observer)."""
    from golden.configs import load_config
    from golden.workloads import registry
    from golden.workloads.defs.lbm import WORKLOAD
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; choose from {', '.join(KERNELS)}")
    params = dict(WORKLOAD.sizes[size], **overrides)
    cu = KERNELS[kernel]
    w = dataclasses.replace(WORKLOAD, sizes={size: params}, **({"source": str(cu)} if cu else {}))
    cls = PartialWarpDivergentObserver if count_partial else PerPCGScalarObserver
    obs = cls(None, load_config(CONFIG).pipelines)
    run = registry.run_workload(w, size=size, seed=seed, device=ObservingDevice([obs]))
    s = summarise(obs.counts)
    c = obs.counts
    row = {"kernel": kernel, "partial": "divergent" if count_partial else "full", "lattice": f"{params['nx']}x{params['ny']}x{params['nz']}",
           "steps": params["steps"], "outputs_match": not run.mismatches(),
           "warp_insts": c.warp_insts, "div": s["div"], "e_div": s["e_div"],
           "e_total": s["e_total"]}
    return row, obs


COLUMNS = ("kernel", "partial", "lattice", "steps", "warp_insts", "div", "e_div", "e_total", "outputs_match")


def render(rows: list[dict]) -> str:
    """Markdown table of :func:`run_case` rows (percentages of warp instructions)."""
    return markdown_table(rows, COLUMNS)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="small", choices=("small", "default", "paper"))
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--pcs", type=int, default=0, help="print the N most divergent PCs per kernel")
    ap.add_argument("--count-partial", action="store_true",
                    help="also run with a partial warp's missing lanes counted as divergence")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=INT",
                    help="override a size parameter (ny, nz, steps)")
    a = ap.parse_args(argv)
    over = {}
    for kv in a.set:
        k, _, v = kv.partition("=")
        if k not in ("ny", "nz", "steps") or not v.isdigit():
            ap.error(f"--set takes ny=N, nz=N or steps=N, not {kv!r}")
        over[k] = int(v)
    rows = []
    for name in a.kernels.split(","):
        if name not in KERNELS:
            ap.error(f"unknown kernel {name!r}; choose from {', '.join(KERNELS)}")
        for partial in ((False, True) if a.count_partial else (False,)):
            row, obs = run_case(a.size, name, count_partial=partial, **over)
            rows.append(row)
            if a.pcs:
                print(f"## {name} (partial warps {row['partial']}): top {a.pcs} PCs by "
                      "divergent warp instructions")
                for r in pc_table(obs, a.pcs):
                    print(f"{r['pc']:4d} {r['insts']:7d} div {r['div']:7d} path {r['path_div']:7d} "
                          f"oracle {r['oracle']:7d} e_div {r['e_div']:7d}  {r['ptx']}")
    print(render(rows))


if __name__ == "__main__":
    main()
