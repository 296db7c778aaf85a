"""Write-port operation encodings of the DARSIE tables, as Amaranth enum shapes.

The RTL owns its encodings (a bug in shared code must not hit the RTL and its golden
reference at once); ``tests/rtl/test_rtl_independence.py`` checks that every named value
equals the golden model's (:class:`golden.structures.darsie.skip_table.SkipOp`,
:class:`golden.structures.darsie.rename_table.RenameOp`). Unused codes are named
``RESERVED_*``: they do nothing, and a simulator may still drive them.
"""

from __future__ import annotations

from amaranth.lib import enum

__all__ = ["RenameOp", "SkipOp"]


class SkipOp(enum.Enum, shape=3):
    """Skip-table write port (seed 000 §4.3.2): the ``wr_op`` port's values."""

    NONE = 0
    ALLOC = 1
    ARRIVE = 2
    LEADER_WB = 3
    INVALIDATE = 4
    FLUSH_TB = 5
    RESERVED_6 = 6
    RESERVED_7 = 7


class RenameOp(enum.Enum, shape=2):
    """Rename-table write port (seed 000 §4.3.1): the ``wr_op`` port's values."""

    NONE = 0
    SET = 1
    DROP = 2
    RESERVED_3 = 3
