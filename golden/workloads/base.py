"""Workload description shared by every kernel in the suite.

A workload is one of our own CUDA programs (``golden/workloads/kernels/<file>.cu`` with
the committed ``<file>.ptx`` that ``nvcc -ptx -arch=sm_75`` produced), plus:

* ``make_inputs(params, rng)`` – numpy inputs for a size (seeded ``numpy.random.Generator``);
* ``launch(dev, module, inputs, params)`` – allocates device arrays, runs one or more
  kernel launches through the host API and returns the outputs as numpy arrays;
* ``reference(inputs, params)`` – the same outputs computed with numpy only.

Each workload module under ``golden/workloads/defs/`` defines ``WORKLOAD = Workload(...)``.

**Paper-specific versions** (``variant_of``). One workload has one kernel, one TB shape and
one input per size name. When two papers describe the same benchmark differently (DARSIE
Table 1 runs the SDK's MatrixMul with 32x32 TBs, WarpMan Table 5 with 16x16 ones), the
paper that differs gets its own workload: a module of its own with
``variant_of="<base name>"``, named ``<base>-<PAPER>`` (``MM-WARPMAN``), with its own kernel
source, TB shape and sizes, usually reusing the base module's ``make_inputs`` and
``reference``. The ``stands_for`` entries say which version stands for which paper: a
paper's entry moves from the base to the version, so the paper's report
(:func:`golden.report.runner.standing_for`) and the fidelity table
(``simtlab characterise --against-papers``) use the version for that paper and the base
for every other. :func:`golden.workloads.registry.all_workloads` checks that the base
exists, is not itself a version, and never stands for a paper its version stands for.
Versions follow only what the paper publishes about the benchmark (shapes, occupancy,
registers, inputs, instruction counts), never a speed-up; docs/workloads.md lists them.
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
    variant_of: for a paper-specific version of another workload (see the module
        docstring), the base workload's name (``"MM"``); None for a base workload.
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
    variant_of: str | None = None

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
