"""The workload suite: discovery, lookup, one run, and output checking.

* :func:`all_workloads` (from :mod:`golden.workloads.suite`) collects every built-in
  ``WORKLOAD`` and checks paper-specific versions (:func:`check_variant`);
* :func:`variants_of` names the versions of a workload;
* :func:`get` finds one by name (case-insensitive);
* :func:`run_workload` makes seeded inputs, loads the kernel module on a device, runs the
  workload's launches (recording each launch's grid, block and statistics) and computes
  the numpy reference;
* :func:`check_outputs` compares device outputs with the reference: integers exactly,
  floats within the workload's stated :class:`~golden.workloads.base.Tolerance`.

``python -m golden.workloads.registry [NAME ...] [--size small|default] [--seed N]`` runs
workloads and prints one line per workload (time, launches, mismatches).
"""

from __future__ import annotations

import copy
import importlib
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from golden.cli_args import seed as seed_arg
from golden.errors import SimtlabError
from golden.workloads.base import Tolerance, Workload
from golden.workloads.suite import DEFS_PACKAGE, all_workloads, check_variant  # noqa: F401 (re-exported)

#: how many differing elements a mismatch description lists
_MAX_LISTED = 3


def variants_of(name: str) -> list[str]:
    """Names of the paper-specific versions of workload ``name``, sorted."""
    base = get(name).name
    return sorted(n for n, w in all_workloads().items() if w.variant_of == base)


def get(name: str) -> Workload:
    """The workload called ``name`` (case-insensitive, e.g. ``"mm"`` or ``"MM"``), or the
    user workload a reference ``NAME@FILE`` names (:mod:`golden.workloads.user_ref`)."""
    if "@" in name:     # user_ref.SEP; built-in names never hold it
        # looked up by name, not imported: a built-in's result cannot depend on user_ref,
        # so it stays out of their dependency sets (golden.jobs.deps reads import
        # statements); a user workload's jobs name it as a root themselves
        return importlib.import_module("golden.workloads.user_ref").load(name)
    workloads = all_workloads()
    for known, workload in workloads.items():
        if known.lower() == name.lower():
            return workload
    raise SimtlabError(f"unknown workload {name!r}; known workloads: {', '.join(workloads)}")


def resolve_size(w: Workload | str, size: str) -> str:
    """The size a run of ``w`` at ``size`` uses: ``published`` is ``paper`` for a workload
    without a ``published`` size of its own (no paper names its input, or the paper size
    is that input: :mod:`golden.workloads.published`); every other size is itself."""
    if size != "published":
        return size
    w = get(w) if isinstance(w, str) else w
    return size if size in w.sizes or "paper" not in w.sizes else "paper"


@dataclass(frozen=True)
class LaunchRecord:
    """One kernel launch a workload made: kernel name, grid and block as 3-tuples."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]


@dataclass
class WorkloadRun:
    """Result of :func:`run_workload`.

    outputs: what the device produced; reference: what numpy computed from the same inputs;
    stats: the statistics object each kernel launch returned, in launch order;
    launches: grid/block of each launch, in the same order; wall_time: seconds spent in
    the workload's ``launch`` (device copies plus kernels).
    """

    workload: Workload
    size: str
    seed: int
    params: dict[str, Any]
    outputs: dict[str, np.ndarray]
    reference: dict[str, np.ndarray]
    stats: list[Any] = field(default_factory=list)
    launches: list[LaunchRecord] = field(default_factory=list)
    wall_time: float = 0.0

    def mismatches(self) -> list[str]:
        """Differences between outputs and reference (empty when they agree)."""
        return check_outputs(self.workload, self.outputs, self.reference)


def _dim3(value: Any) -> tuple[int, int, int]:
    """Grid or block given as an int or a tuple of up to 3 ints, as a 3-tuple."""
    if isinstance(value, (int, np.integer)):
        return (int(value), 1, 1)
    dims = tuple(int(v) for v in value)
    return dims + (1,) * (3 - len(dims))


class _RecordingKernel:
    """A kernel handle that records each launch (grid, block, returned stats)."""

    def __init__(self, kernel: Any, name: str, run: WorkloadRun):
        self._kernel, self._name, self._run = kernel, name, run

    def __call__(self, grid, block, args, *rest, **kwargs):
        stats = self._kernel(grid, block, args, *rest, **kwargs)
        self._run.launches.append(LaunchRecord(self._name, _dim3(grid), _dim3(block)))
        self._run.stats.append(stats)
        return stats

    def __getattr__(self, attr):
        return getattr(self._kernel, attr)


class _RecordingModule:
    """A loaded module whose kernels record their launches into a :class:`WorkloadRun`."""

    def __init__(self, module: Any, run: WorkloadRun):
        self._module, self._run = module, run

    def get_function(self, name: str) -> _RecordingKernel:
        return _RecordingKernel(self._module.get_function(name), name, self._run)

    def __getattr__(self, attr):
        return getattr(self._module, attr)


def run_workload(w: Workload | str, size: str = "small", seed: int = 0,
                 device: Any = None) -> WorkloadRun:
    """Run workload ``w`` at ``size`` with inputs drawn from ``numpy.random.default_rng(seed)``.

    The kernel module is loaded with ``device.load_module(w.ptx_path)``; ``device`` is a
    new functional-mode :class:`golden.host.Device` when not given.
    """
    if isinstance(w, str):
        w = get(w)
    size = resolve_size(w, size)
    if size not in w.sizes:
        raise SimtlabError(
            f"workload {w.name} has no size {size!r}; sizes: {', '.join(w.sizes)}")
    if not w.ptx_path.is_file():
        raise SimtlabError(
            f"workload {w.name}: PTX file {w.ptx_path} is missing "
            f"(regenerate it with `make ptx`)")
    if device is None:
        from golden.host import Device  # imported here: the host API is optional for discovery
        device = Device()
    params = dict(w.sizes[size])
    inputs = w.make_inputs(params, np.random.default_rng(seed))
    run = WorkloadRun(workload=w, size=size, seed=seed, params=params, outputs={}, reference={})
    module = _RecordingModule(device.load_module(w.ptx_path), run)
    start = time.perf_counter()
    outputs = w.launch(device, module, copy.deepcopy(inputs), params)
    run.wall_time = time.perf_counter() - start
    run.outputs = {name: np.asarray(value) for name, value in outputs.items()}
    run.reference = {name: np.asarray(value) for name, value in w.reference(inputs, params).items()}
    return run


def _where(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def _compare_array(name: str, got: np.ndarray, want: np.ndarray, tol: Tolerance | None) -> str | None:
    """One mismatch description for output ``name``, or None when it matches."""
    if got.shape != want.shape:
        return f"{name}: shape {got.shape} differs from reference shape {want.shape}"
    if got.dtype != want.dtype:
        return f"{name}: dtype {got.dtype} differs from reference dtype {want.dtype}"
    if np.issubdtype(want.dtype, np.floating) or np.issubdtype(want.dtype, np.complexfloating):
        tol = tol or Tolerance()
        g, r = got.astype(np.float64), want.astype(np.float64)
        both_nan = np.isnan(g) & np.isnan(r)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.abs(g - r)
            same_inf = np.isinf(g) & np.isinf(r) & (g == r)
            bad = ~(both_nan | same_inf | (err <= tol.atol + tol.rtol * np.abs(r)))
        if not bad.any():
            return None
        idx = np.argwhere(bad)
        listed = ", ".join(f"{_where(i)}: got {got[tuple(i)].item()!r} want {want[tuple(i)].item()!r}"
                           for i in idx[:_MAX_LISTED])
        finite = err[bad & np.isfinite(err)]
        worst = f"; max abs error {finite.max():.3g}" if finite.size else ""
        return (f"{name}: {len(idx)} of {want.size} elements outside tolerance "
                f"(rtol={tol.rtol}, atol={tol.atol}){worst}; {listed}")
    bad = got != want
    if not bad.any():
        return None
    idx = np.argwhere(bad)
    listed = ", ".join(f"{_where(i)}: got {got[tuple(i)].item()!r} want {want[tuple(i)].item()!r}"
                       for i in idx[:_MAX_LISTED])
    return f"{name}: {len(idx)} of {want.size} elements differ (exact compare); {listed}"


def check_outputs(w: Workload, outputs: dict[str, Any], reference: dict[str, Any]) -> list[str]:
    """Describe every way ``outputs`` differ from ``reference``; empty list if they agree.

    Integer and boolean outputs must be equal; float outputs must satisfy the workload's
    tolerance for that output (exact when none is stated); NaN matches NaN. A missing or
    unexpected output, or a shape or dtype difference, is reported as a mismatch.
    """
    problems: list[str] = []
    for name in reference:
        if name not in outputs:
            problems.append(f"{name}: missing from the device outputs")
    for name in outputs:
        if name not in reference:
            problems.append(f"{name}: not in the reference outputs")
    for name in reference:
        if name in outputs:
            msg = _compare_array(name, np.asarray(outputs[name]), np.asarray(reference[name]),
                                 w.tolerance.get(name))
            if msg:
                problems.append(msg)
    return problems


def main(argv: list[str] | None = None) -> int:
    """Command line: run workloads and print one line per workload; exit 1 on a mismatch."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m golden.workloads.registry",
                                     description="Run suite workloads and check them against numpy.")
    parser.add_argument("names", nargs="*", help="workload names (default: all)")
    parser.add_argument("--size", default="small")
    parser.add_argument("--seed", type=seed_arg, default=0)
    args = parser.parse_args(argv)
    names = args.names or list(all_workloads())
    failed = 0
    for name in names:
        run = run_workload(name, size=args.size, seed=args.seed)
        problems = run.mismatches()
        failed += bool(problems)
        status = "ok" if not problems else "MISMATCH"
        print(f"{run.workload.name:8s} {args.size:8s} {run.wall_time:7.2f}s "
              f"{len(run.launches):3d} launches  {status}")
        for p in problems:
            print(f"    {p}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
