"""BP: backprop input->hidden layer step (Rodinia backprop structure), TB (16,16).

Kernels in ``kernels/bp.cu``: ``bpnn_layerforward`` (``if (tx == 0)`` shared load, 16x16
shared product tile, tree sum over ty with ``ty % stride == 0`` guards and a barrier per
level) and ``bpnn_adjust_weights`` (momentum update with "+1" bias offsets in every
index). Between them the host finishes the forward pass (sum of the per-block partial
sums plus bias, sigmoid) and forms the hidden-unit deltas from a given back-propagated
error, as the Rodinia host code does on the CPU.

Special-function work (issue 66): like Rodinia's ``bpnn_layerforward_CUDA``, the tree loop
is bounded by ``__log2f`` of the tree height and its stride is ``__powf(2, level)``, so
the kernel runs TB-uniform ``lg2.approx`` / ``ex2.approx`` instructions (one lg2 per
thread, hoisted by nvcc, and one ex2 per level) and a ``rem`` by the runtime stride. This
is the scalar SFU work G-Scalar (seed 003, §5.3) credits for BP's +79% IPC/W (its BP: SFUs
14% of instructions, >25% of power, ~60% of SFU instructions scalar). The strides are
exact powers of two, so the partial sums are still those of :func:`reference`'s tree,
bit for bit.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

TB = (16, 16, 1)
HIDDEN = 16
HEIGHT = 16
ETA = np.float32(0.3)
MOMENTUM = np.float32(0.3)
F32 = np.float32


def make_inputs(params, rng):
    n_in = params["inputs"]
    inp = rng.random(n_in + 1, dtype=F32)
    inp[0] = 1.0                                              # bias unit
    weights = rng.uniform(-0.5, 0.5, (n_in + 1, HIDDEN + 1)).astype(F32)
    old = rng.uniform(-0.05, 0.05, (n_in + 1, HIDDEN + 1)).astype(F32)
    err = rng.uniform(-1.0, 1.0, HIDDEN).astype(F32)          # back-propagated error
    return {"input": inp, "weights": weights, "old_weights": old, "error": err}


def hidden_layer(partial, weights, err):
    """Host part: hidden activations sigmoid(sum of block partials + bias weight) and the
    hidden deltas h*(1-h)*err (index 0 of the delta vector is the unused bias slot)."""
    net = np.add.reduce(partial, axis=0, dtype=F32) + weights[0, 1:]
    hidden = (F32(1.0) / (F32(1.0) + np.exp(-net))).astype(F32)
    delta = np.zeros(HIDDEN + 1, F32)
    delta[1:] = hidden * (F32(1.0) - hidden) * err
    return hidden, delta


def launch(dev, module, inputs, params):
    n_in = params["inputs"]
    grid = (1, n_in // HEIGHT)
    d_in = dev.to_device(inputs["input"])
    d_w = dev.to_device(inputs["weights"])
    d_old = dev.to_device(inputs["old_weights"])
    d_partial = dev.empty((n_in // HEIGHT, HIDDEN), F32)
    module.get_function("bpnn_layerforward")(grid, TB[:2], (d_in, d_w, d_partial))
    partial = d_partial.get()
    hidden, delta = hidden_layer(partial, inputs["weights"], inputs["error"])
    d_delta = dev.to_device(delta)
    module.get_function("bpnn_adjust_weights")(grid, TB[:2], (d_delta, d_in, d_w, d_old))
    return {"partial": partial, "hidden": hidden,
            "weights": d_w.get(), "old_weights": d_old.get()}


def reference(inputs, params):
    """Products and the ty-tree of each 16x16 block replayed in float32, then the update.
    (The kernel's strides come from ex2.approx of small integers, exactly 2, 4, 8, 16.)"""
    inp, w, old = inputs["input"], inputs["weights"], inputs["old_weights"]
    n_in = params["inputs"]
    blocks = n_in // HEIGHT
    tile = w[1:, 1:].reshape(blocks, HEIGHT, HIDDEN) * inp[1:].reshape(blocks, HEIGHT, 1)
    k = 1
    while (1 << k) <= HEIGHT:
        p = 1 << k
        tile[:, 0::p, :] = tile[:, 0::p, :] + tile[:, p // 2::p, :]
        k += 1
    partial = tile[:, 0, :].copy()
    hidden, delta = hidden_layer(partial, w, inputs["error"])
    w, old = w.copy(), old.copy()
    dw = ETA * delta[1:][None, :] * inp[1:, None] + MOMENTUM * old[1:, 1:]
    w[1:, 1:] += dw
    old[1:, 1:] = dw
    dw0 = ETA * delta[1:] + MOMENTUM * old[0, 1:]
    w[0, 1:] += dw0
    old[0, 1:] = dw0
    return {"partial": partial, "hidden": hidden, "weights": w, "old_weights": old}


WORKLOAD = Workload(
    name="BP",
    description="backprop input->hidden forward sums (shared tree, lg2/ex2 stride) and "
                "momentum weight update (Rodinia backprop structure)",
    source="bp.cu",
    tb_dims=TB,
    stands_for=("DARSIE Table 1: BP Backprop [Rodinia], TB (16,16)",
                "G-Scalar Table 2: backprop (BP)",
                "CAPRI Table 2: BACKP Back Propagation (divergent)",
                "Locality (dissertation ch. 5): backprop [Rodinia]"),
    sizes={"small": {"inputs": 1024},
           "default": {"inputs": 16384},
           # paper: 7168 / 16 = 448 TBs: 2.00 waves on pascal_1080ti (8 TBs/SM), 4.98 on gtx480,
           # 3.73 on quadro_fx5800 (the seeds give no input; the smallest multiple of 16 that
           # fills 2 waves of the 1080 Ti).
           "paper": {"inputs": 7168}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
    # partial sums replay the kernel's float32 order exactly; the update has contracted
    # multiply-adds on the device
    tolerance={"partial": Tolerance(rtol=1e-6, atol=1e-7),
               "hidden": Tolerance(rtol=1e-6, atol=1e-7),
               "weights": Tolerance(rtol=1e-6, atol=1e-6),
               "old_weights": Tolerance(rtol=1e-5, atol=1e-6)},
)
