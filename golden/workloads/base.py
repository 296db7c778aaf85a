"""Workload description shared by every kernel in the suite.

A workload is one of our own CUDA programs (``golden/workloads/kernels/<file>.cu`` with
the committed ``<file>.ptx`` that ``nvcc -ptx -arch=sm_75`` produced), plus:

* ``make_inputs(params, rng)`` – numpy inputs for a size (seeded ``numpy.random.Generator``);
* ``launch(dev, module, inputs, params)`` – allocates device arrays, runs one or more
  kernel launches through the host API and returns the outputs as numpy arrays;
* ``reference(inputs, params)`` – the same outputs computed with numpy only.

Each workload module under ``golden/workloads/defs/`` defines ``WORKLOAD = Workload(...)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"


@dataclass(frozen=True)
class Tolerance:
    """Allowed difference for a float output: ``|got - want| <= atol + rtol * |want|``.
    Integer outputs are always compared exactly."""

    rtol: float = 0.0
    atol: float = 0.0


@dataclass(frozen=True)
class Workload:
    """One benchmark of the suite.

    Attributes
    ----------
    name: short upper-case name as the papers abbreviate it (``"MM"``, ``"HS"``, ``"BFS"``).
    description: one line: what the kernel computes.
    source: file name of the CUDA source in ``kernels/`` (the PTX has the same stem).
    tb_dims: thread-block shape used at every size, e.g. ``(16, 16, 1)``.
    stands_for: which seed tables this workload stands in for, e.g.
        ``("DARSIE Table 1: MM (32,32)",)``.
    sizes: ``{"small": {...}, "default": {...}}`` – the parameters passed to the
        three functions; ``small`` runs in under ~2 s in functional mode.
    divergent: True if the kernel has real (data-dependent) control divergence.
    tolerance: per-output float tolerance; outputs not listed compare exactly.
    """

    name: str
    description: str
    source: str
    tb_dims: tuple[int, int, int]
    stands_for: tuple[str, ...]
    sizes: dict[str, dict[str, Any]]
    make_inputs: Callable[[dict[str, Any], np.random.Generator], dict[str, np.ndarray]]
    launch: Callable[..., dict[str, np.ndarray]]
    reference: Callable[[dict[str, Any], dict[str, Any]], dict[str, np.ndarray]]
    divergent: bool = False
    tolerance: dict[str, Tolerance] = field(default_factory=dict)

    @property
    def cu_path(self) -> Path:
        return KERNEL_DIR / self.source

    @property
    def ptx_path(self) -> Path:
        return self.cu_path.with_suffix(".ptx")

    @property
    def dims(self) -> int:
        """1, 2 or 3: how many TB dimensions are larger than one."""
        return max(1, sum(1 for d in self.tb_dims if d > 1))
