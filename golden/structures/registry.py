"""Every structure that records JSON-lines transaction traces, by trace name.

The trace format (:mod:`golden.structures.trace`) is shared by the DARSIE, ILP,
uniform-vector (UV), WarpMan and CAPRI structures; a trace header's ``structure`` must be a key of
:func:`traced_structures`. (G-Scalar records register-value traces in its own format.)
"""

from __future__ import annotations

from golden.structures.capri import STRUCTURES as CAPRI
from golden.structures.darsie import STRUCTURES as DARSIE
from golden.structures.ilp import STRUCTURES as ILP
from golden.structures.uv import STRUCTURES as UV
from golden.structures.warpman import STRUCTURES as WARPMAN


def traced_structures() -> dict:
    """``{name: StructureInfo}`` over the DARSIE, ILP, UV, WarpMan and CAPRI structures."""
    return {**DARSIE, **ILP, **UV, **WARPMAN, **CAPRI}
