"""LUD: blocked LU decomposition without pivoting, in place, 16x16 tiles (Rodinia lud).

Kernels ``lud_diagonal``, ``lud_perimeter`` and ``lud_internal`` in ``kernels/lud.cu``, all
with 16x16 TBs. Step ``s`` of ``n/16 - 1`` launches the diagonal kernel (1 TB), the
perimeter kernel (``n/16 - 1 - s`` TBs, each solving one row tile and one column tile
against the diagonal tile, 3 KB of shared memory) and the internal kernel
(``(n/16 - 1 - s)^2`` TBs, rank-16 update of one trailing tile from a shared-memory L tile
and U tile); a last diagonal launch finishes: ``3 n/16 - 2`` launches whose grids shrink
step by step. Output: the combined factors (strict lower part L with a unit diagonal
implied, upper part U).

Rodinia's perimeter kernel uses TBs of 32 threads and its diagonal kernel 16 threads; all
three of ours use 16x16 (the suite gives a workload one TB shape). Our perimeter kernel
solves with one warp, as Rodinia's does (the other seven only load and store tiles); our
diagonal kernel spreads each elimination step over the tile's 256 threads.

Tolerance: the matrix has uniform(-1, 1) off-diagonal entries and ``n`` on the diagonal,
so it is strictly diagonally dominant by rows and columns: no pivoting is needed, the
growth factor is at most 2 (Wilkinson) and the factors are well conditioned (|L| of order
1/n below the diagonal, U's diagonal near ``n``, U's other entries O(1)). The reference is the
unblocked Doolittle factorisation in float64; the kernels' float32 results differ from it
by rounding only (another summation order, contracted multiply-adds): each element is a
sum of at most ``n`` products, so its error is a few ulp of the largest partial sum,
i.e. a few 1e-6 relative to the element (L entries near zero get an absolute error
~1e-8). Measured, with seeds 0-2 at n = 64 and 256 and seed 0 at n = 512, the worst
element uses under 6% of ``|got - want| <= 1e-6 + 1e-5 |want|`` (worst relative error
6.5e-6 on elements >= 1e-3, worst absolute 6.4e-9 on smaller ones). A missed or doubled
update, or a wrong tile, moves elements by O(1/n) absolute, O(1e-2) relative or more.

Sizes: ``paper`` is 512 x 512 (Rodinia's run script generates 256 x 256; 512 is one of
Rodinia's bundled inputs): at 256 only the first two internal launches (225 and 196 TBs)
fill two waves of 15 SMs (34% of the internal work; main waves 0.28 on gtx480); at 512
the internal launches of two or more waves do about 85% of the work (main waves 2.84).
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Tolerance, Workload

BS = 16
F32 = np.float32


def make_inputs(params, rng):
    n = params["n"]
    if n % BS or n < 2 * BS:
        raise ConfigError(f"LUD: n must be a multiple of {BS} and at least {2 * BS}, got {n}")
    a = rng.uniform(-1.0, 1.0, size=(n, n))
    np.fill_diagonal(a, float(n))
    return {"matrix": a.astype(F32)}


def launch(dev, module, inputs, params):
    a = inputs["matrix"]
    n = a.shape[0]
    nb = n // BS
    d_a = dev.to_device(a)
    diagonal = module.get_function("lud_diagonal")
    perimeter = module.get_function("lud_perimeter")
    internal = module.get_function("lud_internal")
    tb = (BS, BS, 1)
    n32 = np.int32(n)
    for s in range(nb - 1):
        off = np.int32(s * BS)
        rest = nb - 1 - s
        diagonal((1, 1, 1), tb, (d_a, n32, off))
        perimeter((rest, 1, 1), tb, (d_a, n32, off))
        internal((rest, rest, 1), tb, (d_a, n32, off))
    diagonal((1, 1, 1), tb, (d_a, n32, np.int32((nb - 1) * BS)))
    return {"lu": d_a.get()}


def reference(inputs, params):
    """Right-looking Doolittle LU in float64 (no pivoting), L and U packed in one matrix."""
    a = inputs["matrix"].astype(np.float64)
    n = a.shape[0]
    for k in range(n - 1):
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return {"lu": a.astype(F32)}


WORKLOAD = Workload(
    name="LUD",
    description="blocked LU decomposition: diagonal / perimeter / internal kernels on 16x16 "
                "shared-memory tiles, three launches per step (Rodinia lud)",
    source="lud.cu",
    tb_dims=(BS, BS, 1),
    stands_for=("Locality (dissertation ch. 5): lud [Rodinia]",),
    sizes={"small": {"n": 64},
           "default": {"n": 256},
           # paper: 94 launches; main waves 2.84 on gtx480 (internal: 6 TBs/SM, up to 961 TBs)
           "paper": {"n": 512}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    # the triangular solves activate the threads below / right of column k: index-dependent
    # divergence every step
    divergent=True,
    tolerance={"lu": Tolerance(rtol=1e-5, atol=1e-6)},
)
