"""QSRDM: base-2 quasirandom sequence (Sobol-type direction numbers) and its inverse
normal CDF, TB (128,1) (CUDA SDK quasirandomGenerator structure).

Kernels in ``kernels/qsrdm.cu``: ``qrng_sobol`` (grid (blocks, 3): one dimension per grid
row; point i is the XOR of the direction numbers selected by the bits of i, selected with
a mask as the SDK's compiled code predicates it; grid-stride loop) and
``qrng_inverse_cnd`` (as the SDK sample runs it, without an input array: the evenly
spaced probabilities (i + 1) / (count + 1), count = 3 n, through a Beasley-Springer-Moro
style inverse normal CDF: a rational function in the centre, a log-log polynomial in the
tails, so neighbouring lanes agree except at the two switch points).

Direction numbers: Sobol's construction from primitive polynomials over GF(2) (dimension
0 is van der Corput), computed here and set in ``__constant__`` memory, where the SDK
uses Niederreiter's base-2 table; the sequence has the same digital structure (and
kernel work). The SDK's default is 2^20 points per dimension; ours are smaller (sizes).
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

TB = 128
DIMS = 3
BITS = 31
#: (degree s, coefficient bits a, initial m_1..m_s) of each dimension after the first
POLYS = ((1, 0, (1,)), (2, 1, (1, 3)))


def direction_numbers() -> np.ndarray:
    """``(DIMS, BITS)`` uint32: v[d][k] = m_k << (BITS - 1 - k), with the m_k of Sobol's
    recurrence m_k = 2^s m_{k-s} ^ m_{k-s} ^ XOR_i a_i 2^i m_{k-i}."""
    v = np.zeros((DIMS, BITS), np.uint32)
    v[0] = [1 << (BITS - 1 - k) for k in range(BITS)]
    for d, (s, a, m0) in enumerate(POLYS, start=1):
        m = list(m0)
        for k in range(s, BITS):
            x = m[k - s] ^ (m[k - s] << s)
            for i in range(1, s):
                if (a >> (s - 1 - i)) & 1:
                    x ^= m[k - i] << i
            m.append(x)
        v[d] = [m[k] << (BITS - 1 - k) for k in range(BITS)]
    return v


def make_inputs(params, rng):
    # the sequence is deterministic; the seed only picks nothing (kept for the interface)
    return {"dirs": direction_numbers()}


def launch(dev, module, inputs, params):
    n, per_thread = params["n"], params["per_thread"]
    blocks = max(1, n // (TB * per_thread))
    module.get_global("c_dirs", np.uint32).set(inputs["dirs"].ravel())
    d_u = dev.zeros((DIMS, n), np.float32)
    d_z = dev.zeros((DIMS, n), np.float32)
    module.get_function("qrng_sobol")((blocks, DIMS, 1), (TB, 1, 1), (d_u, np.uint32(n)))
    module.get_function("qrng_inverse_cnd")((blocks * DIMS, 1, 1), (TB, 1, 1),
                                            (d_z, np.uint32(DIMS * n)))
    return {"uniform": d_u.get(), "normal": d_z.get()}


A = (2.50662823884, -18.61500062529, 41.39119773534, -25.44106049637)
B = (-8.47351093090, 23.08336743743, -21.06224101826, 3.13082909833)
C = (0.3374754822726147, 0.9761690190917186, 0.1607979714918209, 0.0276438810333863,
     0.0038405729373609, 0.0003951896511919, 0.0000321767881768, 0.0000002888167364,
     0.0000003960315187)


def inverse_cnd(p: np.ndarray) -> np.ndarray:
    """The kernel's approximation evaluated in float64."""
    p = p.astype(np.float64)
    y = p - 0.5
    r = y * y
    central = y * (((A[3] * r + A[2]) * r + A[1]) * r + A[0]) / (
        (((B[3] * r + B[2]) * r + B[1]) * r + B[0]) * r + 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.log(-np.log(np.where(y > 0, 1.0 - p, p)))
    tail = np.zeros_like(t)
    for c in reversed(C):
        tail = tail * t + c
    tail = np.where(y < 0, -tail, tail)
    return np.where(np.abs(y) < 0.42, central, tail)


def reference(inputs, params):
    n = params["n"]
    i = np.arange(n, dtype=np.uint64)
    x = np.zeros((DIMS, n), np.uint64)
    for b in range(BITS):
        x ^= np.where((i >> np.uint64(b)) & np.uint64(1), inputs["dirs"][:, b, None].astype(np.uint64), 0)
    uniform = ((x + 1).astype(np.float32) * np.float32(2.0 ** -31)).astype(np.float32)
    count = DIMS * n
    spacing = np.float32(1.0) / np.float32(count + 1)
    p = np.arange(1, count + 1).astype(np.float32) * spacing
    return {"uniform": uniform, "normal": inverse_cnd(p).reshape(DIMS, n).astype(np.float32)}


WORKLOAD = Workload(
    name="QSRDM",
    description="quasirandom generator: Sobol-type direction-number XOR sequence, then "
                "inverse normal CDF (CUDA SDK quasirandomGenerator structure)",
    source="qsrdm.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("CAPRI Table 2: QSRDM Quasirandom Generator (non-divergent, 95% WPDOM SIMD "
                "utilisation)",),
    sizes={"small": {"n": 8192, "per_thread": 4},
           # default: 96 x 3 = 288 TBs per launch, more than one wave of 30 SMs
           "default": {"n": 49152, "per_thread": 4},
           # paper: 160 x 3 = 480 TBs per launch, >= 3 waves on quadro_fx5800 (registers
           # limit it to 2-5 TBs/SM); the SDK's 2^20 points per dimension would be 13x the work
           "paper": {"n": 81920, "per_thread": 4}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    # uniform: (x + 1) converted to float32 and scaled by 2^-31 (exact power of two) rounds
    # the same way on both sides, so it compares exactly. normal: float32 evaluation of the
    # rational / log-log polynomial against float64; |z| <= 5.6, float32 logf and Horner
    # rounding give errors of a few 1e-7 relative; 2e-5 relative + 2e-6 absolute leaves margin
    tolerance={"normal": Tolerance(rtol=2e-5, atol=2e-6)},
)
