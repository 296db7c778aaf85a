"""Every structure that records JSON-lines transaction traces, by trace name.

The trace format (golden/structures/darsie/trace.py) is shared by the DARSIE, ILP and
uniform-vector (UV) structures; a trace header's ``structure`` must be a key of
:func:`traced_structures`. (G-Scalar records register-value traces in its own format.)
"""

from __future__ import annotations


def traced_structures() -> dict:
    """``{name: StructureInfo}`` over the DARSIE, ILP and UV structures."""
    from golden.structures.darsie import STRUCTURES as DARSIE
    from golden.structures.ilp import STRUCTURES as ILP
    from golden.structures.uv import STRUCTURES as UV
    return {**DARSIE, **ILP, **UV}
