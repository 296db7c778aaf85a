"""EXPERIMENT (issue 67.6, not a suite workload): LIB with the published benchmark's inputs.

The GPGPU-Sim distribution's LIBOR gives every path the same Gaussian increments
(``z[i] = 0.3``, ``L[i] = 0.05`` in the kernel; "for real application, z should be randomly
generated"), so every path computes the same rates. Our LIB draws z per path. This module runs
``lib_bench.cu`` (our lib.cu with z generated in the kernel as the benchmark does) to measure
how much of the paper's LIB redundancy comes from that input property.
"""
from pathlib import Path

import numpy as np

from golden.workloads.base import Workload
from golden.workloads.defs import lib

Z0 = np.float32(0.3)


def make_inputs(params, rng):
    inp = lib.make_inputs(dict(params, paths=1), rng)
    inp["z"] = np.full((params["Nmat"], params["paths"]), Z0, np.float32)
    return inp


def launch(dev, module, inputs, params):
    z = inputs["z"]
    nmat, paths = z.shape
    F32 = np.float32
    module.get_global("c_lambda", F32).set(lib._padded(inputs["lambda"], lib.NN_MAX, F32))
    module.get_global("c_maturities", np.int32).set(lib._padded(inputs["maturities"], lib.NOPT_MAX, np.int32))
    module.get_global("c_swaprates", F32).set(lib._padded(inputs["swaprates"], lib.NOPT_MAX, F32))
    d_value = dev.empty((paths,), F32)
    module.get_function("libor_portfolio_bench")(
        -(-paths // lib.THREADS), lib.THREADS,
        (d_value, np.int32(paths), np.int32(params["N"]), np.int32(nmat),
         np.int32(params["Nopt"]), F32(lib.DELTA), F32(lib.L0), Z0))
    return {"value": d_value.get()}


WORKLOAD = Workload(
    name="LIBBENCH",
    description="LIB with the GPGPU-Sim LIBOR benchmark's inputs (z = 0.3 for every path)",
    source=str(Path(__file__).with_name("lib_bench.cu")),
    tb_dims=(256, 1, 1),
    stands_for=(),
    # "default": small's model sizes with 4096 paths (16 TBs: 8 per SM on a 2-SM Pascal)
    sizes={"small": dict(lib.WORKLOAD.sizes["small"]),
           "default": dict(lib.WORKLOAD.sizes["small"], paths=4096)},
    make_inputs=make_inputs,
    launch=launch,
    reference=lib.reference,
    tolerance=lib.WORKLOAD.tolerance,
)
