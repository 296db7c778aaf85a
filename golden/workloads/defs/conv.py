"""CONV: separable 17-tap convolution with global memory in place of textures (CUDA SDK
convolutionTexture structure), TB (16,16).

Kernels ``convolution_rows`` then ``convolution_columns`` in ``kernels/conv.cu``: one
thread per pixel, taps in ``__constant__`` memory (set through ``module.get_global``),
clamp-to-edge coordinates computed per tap (what the texture unit does in the SDK
sample), fully unrolled tap loop. WarpMan's CT (Table 5: 6-warp TBs) is the version
CONV-WARPMAN (``conv_warpman.py``).
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

TB = (16, 16, 1)
KERNEL_RADIUS = 8
KERNEL_LENGTH = 2 * KERNEL_RADIUS + 1
F32 = np.float32


def make_inputs(params, rng):
    """Random image in [0, 1) and a normalised random smoothing filter."""
    h, w = params["height"], params["width"]
    taps = rng.random(KERNEL_LENGTH)
    return {"image": rng.random((h, w), dtype=F32), "taps": (taps / taps.sum()).astype(F32)}


def separable_launch(tb: tuple, rows_kernel: str, columns_kernel: str):
    """The launch of a separable convolution: ``rows_kernel`` then ``columns_kernel`` in
    ``tb``-shaped TBs (CONV's, and the versions of CONV with other TB shapes)."""
    def launch(dev, module, inputs, params):
        image = inputs["image"]
        h, w = image.shape
        module.get_global("c_kernel", F32).set(inputs["taps"])
        d_src = dev.to_device(image)
        d_tmp = dev.empty((h, w), F32)
        d_dst = dev.empty((h, w), F32)
        grid = (-(-w // tb[0]), -(-h // tb[1]))
        args = (np.int32(w), np.int32(h))
        module.get_function(rows_kernel)(grid, tb[:2], (d_tmp, d_src) + args)
        module.get_function(columns_kernel)(grid, tb[:2], (d_dst, d_tmp) + args)
        return {"rows": d_tmp.get(), "result": d_dst.get()}
    return launch


launch = separable_launch(TB, "convolution_rows", "convolution_columns")


def _filter(a, taps, axis):
    """out[i] = sum_k a[clamp(i + k)] * taps[R - k] along `axis`, in float64."""
    r = KERNEL_RADIUS
    pad = [(0, 0), (0, 0)]
    pad[axis] = (r, r)
    p = np.pad(a.astype(np.float64), pad, mode="edge")
    n = a.shape[axis]
    out = np.zeros(a.shape)
    for k in range(-r, r + 1):
        window = p[r + k:r + k + n, :] if axis == 0 else p[:, r + k:r + k + n]
        out += window * np.float64(taps[r - k])
    return out


def reference(inputs, params):
    taps = inputs["taps"]
    rows = _filter(inputs["image"], taps, axis=1).astype(F32)
    return {"rows": rows, "result": _filter(rows, taps, axis=0).astype(F32)}


WORKLOAD = Workload(
    name="CONV",
    description="separable 17-tap convolution, rows then columns, clamp-to-edge global "
                "loads (CUDA SDK convolutionTexture structure without textures)",
    source="conv.cu",
    tb_dims=TB,
    stands_for=("DARSIE Table 1: CONVTEX convolutionTexture [CUDA SDK] with global memory, "
                "TB (16,16)",
                "UV (dissertation ch. 2) Table 3: Convolution (CONV)",
                "ILP (dissertation ch. 4) workloads: Con(v)"),
    sizes={"small": {"height": 64, "width": 64},
           "default": {"height": 256, "width": 256},
           # paper: UV Table 3 (seed 002 ch. 2, paper-facts 2.8): Convolution (512,512). 32 x 32 =
           # 1024 TBs: 4.57 waves on pascal_1080ti, 11.38 on gtx480, 8.53 on gtx285 (the smallest
           # square image with 2 waves on the 1080 Ti would be 352 x 352).
           "paper": {"height": 512, "width": 512}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    # 17-term float32 sums of values in [0, 1) vs float64
    tolerance={"rows": Tolerance(rtol=1e-5, atol=1e-6),
               "result": Tolerance(rtol=1e-5, atol=1e-6)},
)
