"""The record naming one golden structure's class and dataclasses (used by every family's
``STRUCTURES`` table and by :mod:`golden.structures.registry`). Kept apart from the
families so importing one family does not import another."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StructureInfo:
    """The golden class and the three dataclasses of one structure."""

    name: str
    golden_cls: type
    params_cls: type
    ops_cls: type
    outputs_cls: type
