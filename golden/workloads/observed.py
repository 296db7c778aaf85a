"""Run a suite workload with instruction observers attached to every kernel launch.

The workload registry (:func:`golden.workloads.registry.run_workload`) loads the kernel
module through the device it is given, and workloads launch kernels with
``module.get_function(name)(grid, block, args)``. :class:`ObservedDevice` is a functional
:class:`golden.host.Device` whose modules hand out kernels that add the device's
observers to each launch, so any workload can be observed without changing it.
"""

from __future__ import annotations

from typing import Any, Sequence

from golden.host import Device, Kernel, RawModule
from golden.workloads import registry


class ObservedKernel:
    """A kernel handle that passes ``observers`` (plus any given per call) to every launch."""

    def __init__(self, kernel: Kernel, observers: Sequence[Any]):
        self._kernel = kernel
        self._observers = list(observers)

    def __call__(self, grid, block, args=(), shared_mem: int = 0, observers=()):
        return self._kernel(grid, block, args, shared_mem=shared_mem,
                            observers=list(observers) + self._observers)

    def __getattr__(self, attr):
        return getattr(self._kernel, attr)


class ObservedModule:
    """A loaded module whose ``get_function`` returns :class:`ObservedKernel` handles."""

    def __init__(self, module: RawModule, observers: Sequence[Any]):
        self._module = module
        self._observers = observers

    def get_function(self, name: str) -> ObservedKernel:
        return ObservedKernel(self._module.get_function(name), self._observers)

    def __getattr__(self, attr):
        return getattr(self._module, attr)


class ObservedDevice(Device):
    """A functional-mode device that attaches ``observers`` to every launch of its modules."""

    def __init__(self, observers: Sequence[Any], **kwargs):
        super().__init__(**kwargs)
        self.observers = list(observers)

    def load_module(self, path=None, code=None) -> ObservedModule:  # type: ignore[override]
        return ObservedModule(RawModule(path=path, code=code, device=self), self.observers)


def run_observed(workload, observers: Sequence[Any], size: str = "small", seed: int = 0):
    """:func:`golden.workloads.registry.run_workload` with ``observers`` on every launch."""
    return registry.run_workload(workload, size=size, seed=seed,
                                 device=ObservedDevice(observers, echo_printf=False))
