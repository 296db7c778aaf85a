"""How large a synthesis target may be before ``synth.export`` / ``synth.area`` refuse it.

Elaborating and synthesising a structure far beyond any the papers describe (a
100,000-wide priority encoder, a 65,536-entry CAM) runs for minutes or hours without a
word. Before anything is elaborated, every selected target's integer parameters are
checked against two stated limits:

* **each dimension** (a width, a number of entries, lanes, warps, ports...) at most
  :data:`MAX_DIMENSION`;
* **their product** (a rough count of the bits or cells the structure holds) at most
  :data:`MAX_PRODUCT`.

Parameters in :data:`BUDGET_PARAMS` are capacities a structure counts against (a register
file's 32,768 registers, 48 KiB of shared memory): the hardware holds each in one counter
of ``log2`` bits, which adds to the structure rather than multiplying it, so they are left
out of both limits.
The limits are 8x and 5x above the largest of ``synth/targets.yaml`` (512 and 393,216);
``--allow-large`` lifts them.
"""

from __future__ import annotations

from .errors import SynthError

#: largest single width / count parameter a target may have without --allow-large
MAX_DIMENSION = 4096
#: largest product of a target's dimension parameters without --allow-large
MAX_PRODUCT = 2 ** 21
#: capacity parameters held in a counter (log2 bits), not replicated hardware
BUDGET_PARAMS = frozenset({"registers", "shared_bytes"})

__all__ = ["BUDGET_PARAMS", "MAX_DIMENSION", "MAX_PRODUCT", "size_problem", "check_sizes"]


def size_problem(target) -> str | None:
    """Why ``target`` is too large to elaborate without ``--allow-large``, or None."""
    product = 1
    for key, value in target.params.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            continue
        if key in BUDGET_PARAMS:
            continue
        if value > MAX_DIMENSION:
            return f"{key}={value:,} is above the limit of {MAX_DIMENSION:,}"
        product *= value
    if product > MAX_PRODUCT:
        dims = " x ".join(f"{k}={v}" for k, v in target.params.items()
                          if isinstance(v, int) and not isinstance(v, bool) and v >= 1
                          and k not in BUDGET_PARAMS)
        return f"{dims} = {product:,} is above the limit of {MAX_PRODUCT:,}"
    return None


def check_sizes(targets, allow_large: bool = False) -> None:
    """Raise a one-line :class:`SynthError` for the first target that is too large
    (nothing is done with ``allow_large``)."""
    if allow_large:
        return
    for t in targets:
        problem = size_problem(t)
        if problem:
            raise SynthError(f"target {t.name} ({t.class_name}): {problem}; elaborating it would "
                             f"run for minutes or more (pass --allow-large to do it anyway)")
