"""Instruction observers: callers see every executed warp instruction with its values.

Attach an observer to a launch (``kernel(grid, block, args, observers=[obs])``). The
executor runs warps that share a PC together, so one :class:`ExecEvent` describes a
*group* of warps executing the same instruction: arrays have one row per warp of the
group and 32 columns (lanes). Values are the raw register contents (dtype of the
register's declaration); source values are read before the instruction executes,
destination values after it wrote them. Inactive lanes of ``dsts`` hold the register's
previous contents (they were not written).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from golden.ptx.ir import Instruction


@dataclass
class ExecEvent:
    """One instruction executed by a group of warps.

    Attributes
    ----------
    inst: the PTX instruction (``inst.pc`` is its PC in the kernel).
    pc: PC in the linked program (equal to ``inst.pc`` for kernel code; callee code follows the kernel).
    warps: global warp ids of the group (``tb * warps_per_tb + warp_in_tb``), shape ``(n,)``.
    tbs: linear thread-block id of each warp, shape ``(n,)``.
    warp_in_tb: warp index inside its thread block, shape ``(n,)``.
    active: lanes that executed (TOS mask and guard), bool ``(n, 32)``.
    path_mask: lanes on the executing path before the guard, bool ``(n, 32)``.
    srcs: ``[(operand, values (n, 32))]`` for register and special-register sources.
    dsts: ``[(Reg, values (n, 32))]`` for register destinations.
    """

    inst: Instruction
    pc: int
    warps: np.ndarray
    tbs: np.ndarray
    warp_in_tb: np.ndarray
    active: np.ndarray
    path_mask: np.ndarray
    srcs: list
    dsts: list


class Observer(Protocol):
    """Anything with ``on_exec(event)``; optional ``on_launch_begin(info)`` / ``on_launch_end(stats)``."""

    def on_exec(self, event: ExecEvent) -> None: ...
