"""Mechanisms by name: what ``simtlab run --mechanism NAME`` and the reports attach.

Each entry maps a mechanism name to ``"module:factory"``; ``factory(config)`` returns a
:class:`golden.timing.hooks.Mechanism` instance (a fresh one per GPU run, since mechanisms
keep per-run state). Modules are imported only when their mechanism is asked for, so a
broken or heavy mechanism never slows down the others. The baseline is the empty list.
"""

from __future__ import annotations

import importlib

from golden.errors import ConfigError

#: name -> "module:factory". Mechanism authors add one line here.
MECHANISMS: dict[str, str] = {
}


def names() -> list[str]:
    """Registered mechanism names, sorted."""
    return sorted(MECHANISMS)


def make_mechanisms(mechanisms, config) -> list:
    """Instantiate the named mechanisms for ``config`` (a :class:`GPUConfig`)."""
    out = []
    for name in mechanisms:
        spec = MECHANISMS.get(name)
        if spec is None:
            known = ", ".join(names()) or "(none registered)"
            raise ConfigError(f"unknown mechanism '{name}'; known mechanisms: {known}")
        module, _, factory = spec.partition(":")
        out.append(getattr(importlib.import_module(module), factory)(config))
    return out
