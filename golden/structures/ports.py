"""Per-cycle port records of the golden structures: what every outputs dataclass shares.

Each golden structure (view 1 of DESIGN.md's "one structure, three views") answers a
cycle's requests with a frozen dataclass holding one field per RTL output port, named as
the port. Those dataclasses differ only in their field lists; the one behaviour they all
have, reading the ports out by name for the cocotb benches, the recorders and the
simulator drivers, lives here once.
"""

from __future__ import annotations

from dataclasses import fields

__all__ = ["OutputPorts"]


class OutputPorts:
    """Base of a structure's frozen ``<Name>Outputs`` dataclass (fields = RTL output ports)."""

    __slots__ = ()

    def as_dict(self) -> dict[str, int]:
        """Every output port by name, each value a plain ``int``."""
        return {f.name: int(getattr(self, f.name)) for f in fields(self)}
