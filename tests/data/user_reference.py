"""numpy references of the kernels in user_kernels.cu: each takes the kernel's inputs by
argument name and returns the outputs it should produce."""

import numpy as np


def saxpy(a, x, y, n):
    return {"y": a * x + y}


def histogram(data, bins, n):
    return {"bins": np.bincount(data[:n], minlength=256).astype(np.uint32)}


def histogram_off_by_one(data, bins, n):
    """A wrong reference (counts one byte too few), to show a failing check."""
    return {"bins": np.bincount(data[:n - 1], minlength=256)}
