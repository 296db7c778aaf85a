"""Sensitivity study of HS's divergent-scalar fraction (G-Scalar §5.2: HS 17%; issue 66).

Single-change experiments on the HS stand-in (``golden/workloads/defs/hs.py``), each run in
functional mode with :class:`~.per_pc.PerPCGScalarObserver` and checked against the numpy
reference. Nothing here is fitted: the inputs are labelled sensitivity cases, not
replacements of the workload's input.

Inputs (``INPUTS``; every case keeps the workload's grid, steps and pyramid height):

* ``generated`` – the workload's own :func:`~golden.workloads.defs.hs.make_inputs`
  (temperature uniform in 323..343 K per cell, power uniform 0..0.2 per cell plus four
  8x8 hot units): every cell differs from its neighbours;
* ``constant`` – one temperature (330 K) and one power (0.1) everywhere: the upper bound;
* ``floorplan`` – power constant over rectangular functional units (a 4x4 floorplan of
  equal units, one power per unit), temperature as ``generated``;
* ``floorplan+const-T`` – the floorplan power and one temperature everywhere;
* ``smooth`` – floorplan power and a smooth temperature field (a float32 linear ramp
  323..343 K along the rows and columns; every cell distinct but neighbours close).

Kernel variant (``--rodinia-double``, needs nvcc): Rodinia's own kernel writes ``2.0*temp``
with a double literal, so the bracketed update is evaluated in double precision; ours
writes ``2.0f``. The variant compiles a copy of ``hs.cu`` with the two literals as double
(``nvcc -ptx -arch=sm_75`` into a temporary folder) and runs it in place of the committed
PTX; its outputs are still checked against the float32 reference within HS's tolerance.

Run: ``python -m golden.mechanisms.gscalar.hs_study [--size small] [--pcs N] [--rodinia-double]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from golden.mechanisms.gscalar.analysis import CONFIG, summarise
from golden.mechanisms.gscalar.observing import ObservingDevice
from golden.mechanisms.gscalar.per_pc import PerPCGScalarObserver, pc_table
from golden.report.present.cells import markdown_table

F32 = np.float32


def _floorplan_power(rows: int, cols: int, rng: np.random.Generator, units: int = 4) -> np.ndarray:
    """Power constant over each of ``units`` x ``units`` equal rectangles (one draw per unit)."""
    levels = rng.uniform(0.0, 1.0, (units, units))
    r = np.minimum(np.arange(rows) * units // rows, units - 1)
    c = np.minimum(np.arange(cols) * units // cols, units - 1)
    return levels[r[:, None], c[None, :]].astype(F32)


def _ramp(rows: int, cols: int) -> np.ndarray:
    y = np.linspace(0.0, 10.0, rows)[:, None]
    x = np.linspace(0.0, 10.0, cols)[None, :]
    return (323.0 + y + x).astype(F32)


def _inputs_generated(params, rng):
    from golden.workloads.defs.hs import make_inputs
    return make_inputs(params, rng)


def _inputs_constant(params, rng):
    shape = (params["rows"], params["cols"])
    return {"temp": np.full(shape, 330.0, F32), "power": np.full(shape, 0.1, F32)}


def _inputs_floorplan(params, rng):
    base = _inputs_generated(params, rng)
    return {"temp": base["temp"], "power": _floorplan_power(params["rows"], params["cols"], rng)}


def _inputs_floorplan_const_t(params, rng):
    shape = (params["rows"], params["cols"])
    return {"temp": np.full(shape, 330.0, F32),
            "power": _floorplan_power(params["rows"], params["cols"], rng)}


def _inputs_smooth(params, rng):
    return {"temp": _ramp(params["rows"], params["cols"]),
            "power": _floorplan_power(params["rows"], params["cols"], rng)}


INPUTS = {"generated": _inputs_generated, "constant": _inputs_constant,
          "floorplan": _inputs_floorplan, "floorplan+const-T": _inputs_floorplan_const_t,
          "smooth": _inputs_smooth}


def rodinia_double_kernel(folder: Path) -> Path:
    """Write ``hs.cu`` with Rodinia's double literal (``2.0 * t``) into ``folder`` and compile
    its PTX there; returns the .cu path (the PTX is beside it)."""
    from golden.workloads.build_ptx import NVCC_OPTIONS, require_nvcc
    from golden.workloads.defs.hs import WORKLOAD
    src = WORKLOAD.cu_path.read_text()
    if src.count("2.0f * t") != 2:
        raise RuntimeError("hs.cu no longer has the two `2.0f * t` terms this variant edits")
    cu = Path(folder) / "hs.cu"
    cu.write_text(src.replace("2.0f * t", "2.0 * t"))
    subprocess.run([require_nvcc(), *NVCC_OPTIONS, "-o", "hs.ptx", "hs.cu"], cwd=folder, check=True)
    return cu


def run_case(size: str = "small", inputs: str = "generated", seed: int = 0,
             kernel: Path | None = None, **overrides):
    """One HS run with the per-PC observer; ``overrides`` replace size parameters
    (rows, cols, steps, pyramid_height); ``kernel`` is another .cu path whose PTX lies beside
    it (see :func:`rodinia_double_kernel`). Returns (summary row, observer)."""
    from golden.configs import load_config
    from golden.workloads import registry
    from golden.workloads.defs.hs import WORKLOAD
    params = dict(WORKLOAD.sizes[size], **overrides)
    w = dataclasses.replace(WORKLOAD, make_inputs=INPUTS[inputs], sizes={size: params},
                            **({"source": str(kernel)} if kernel else {}))
    obs = PerPCGScalarObserver(None, load_config(CONFIG).pipelines)
    run = registry.run_workload(w, size=size, seed=seed, device=ObservingDevice([obs]))
    s = summarise(obs.counts)
    c = obs.counts
    row = {"kernel": "rodinia-double" if kernel else "committed", "inputs": inputs, **params, "outputs_match": not run.mismatches(),
           "warp_insts": c.warp_insts, "div": s["div"], "path_div": s["path_div"],
           "oracle_of_all": 100.0 * c.div_scalar_values / c.warp_insts,
           "e_div": s["e_div"], "e_total": s["e_total"]}
    return row, obs


COLUMNS = ("kernel", "inputs", "rows", "steps", "pyramid_height", "warp_insts", "div", "path_div",
           "oracle_of_all", "e_div", "e_total", "outputs_match")


def render(rows: list[dict]) -> str:
    """Markdown table of :func:`run_case` rows (percentages of warp instructions)."""
    return markdown_table(rows, COLUMNS)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="small")
    ap.add_argument("--pcs", type=int, default=0, help="print the N most divergent PCs per input")
    ap.add_argument("--inputs", default=",".join(INPUTS))
    ap.add_argument("--set", action="append", default=[], metavar="KEY=INT",
                    help="override a size parameter (rows, cols, steps, pyramid_height)")
    ap.add_argument("--rodinia-double", action="store_true",
                    help="run Rodinia's double-literal version of the kernel (needs nvcc)")
    a = ap.parse_args(argv)
    over = {}
    for kv in a.set:
        k, _, v = kv.partition("=")
        over[k] = int(v)
    rows = []
    tmp = tempfile.TemporaryDirectory(prefix="hs_double_") if a.rodinia_double else None
    kernel = rodinia_double_kernel(Path(tmp.name)) if tmp else None
    for name in a.inputs.split(","):
        if name not in INPUTS:
            ap.error(f"unknown input {name!r}; choose from {', '.join(INPUTS)}")
        row, obs = run_case(a.size, name, kernel=kernel, **over)
        rows.append(row)
        if a.pcs:
            print(f"## {name}: top {a.pcs} PCs by divergent warp instructions")
            for r in pc_table(obs, a.pcs):
                print(f"{r['pc']:4d} {r['insts']:7d} div {r['div']:7d} path {r['path_div']:7d} "
                      f"oracle {r['oracle']:7d} e_div {r['e_div']:7d}  {r['ptx']}")
    print(render(rows))
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
