"""Attach instruction observers to every launch of a whole workload run.

:func:`golden.workloads.registry.run_workload` takes a ``device`` but no observers, and
the workloads call kernels as ``module.get_function(name)(grid, block, args)``. An
:class:`ObservingDevice` wraps a :class:`golden.host.Device` so that every kernel of every
module it loads is launched with the given observers; everything else is the wrapped
device's own behaviour (attribute access is forwarded).
"""

from __future__ import annotations

from typing import Any


class _ObservedKernel:
    def __init__(self, kernel: Any, observers: tuple):
        self._kernel, self._observers = kernel, observers

    def __call__(self, grid, block, args=(), *rest, observers=(), **kwargs):
        return self._kernel(grid, block, args, *rest,
                            observers=tuple(observers) + self._observers, **kwargs)

    def __getattr__(self, attr):
        return getattr(self._kernel, attr)


class _ObservedModule:
    def __init__(self, module: Any, observers: tuple):
        self._module, self._observers = module, observers

    def get_function(self, name: str) -> _ObservedKernel:
        return _ObservedKernel(self._module.get_function(name), self._observers)

    def __getattr__(self, attr):
        return getattr(self._module, attr)


class ObservingDevice:
    """A device whose loaded modules launch every kernel with ``observers`` attached."""

    def __init__(self, observers, device: Any = None):
        if device is None:
            from golden.host import Device
            device = Device()
        self._device = device
        self._observers = tuple(observers)

    def load_module(self, path, *args, **kwargs) -> _ObservedModule:
        return _ObservedModule(self._device.load_module(path, *args, **kwargs), self._observers)

    def __getattr__(self, attr):
        return getattr(self._device, attr)
