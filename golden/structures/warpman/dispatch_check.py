"""Reference model of WarpMan's partial-TB dispatch check in the TB dispatcher of one SM
(seed 002 ch. 3, §3.2 "A" and steps 1-2 of the algorithm in §3.3; digest: paper-facts
§3.2, §3.3).

What it computes (no state)
---------------------------
From the SM's free resources -- warp-scheduler entries ``free_warps``, TB slots
``free_tbs``, registers ``free_regs``, shared-memory bytes ``free_shared`` -- and one
thread block's demands -- ``warps_per_tb``, ``regs_per_warp``, ``shared_per_tb``:

* ``tb_ok``, the baseline **TB-level check** (a full TB fits): free_warps >= warps_per_tb,
  free_tbs >= 1, free_regs >= warps_per_tb x regs_per_warp and free_shared >=
  shared_per_tb;
* ``warp_ok``, WarpMan's **warp-level check** (a partial TB may be dispatched): free_shared
  >= shared_per_tb (shared memory stays TB-granular: the *whole* TB's), free_warps >= 1,
  free_tbs >= 1 and free_regs >= regs_per_warp (registers for at least one warp);
* ``n_warps``, the warps that can get registers and a scheduler entry now, in warp-id
  order: min(warps_per_tb, free_warps, floor(free_regs / regs_per_warp)); with
  ``regs_per_warp`` = 0 registers do not limit it. It ignores the TB slot and shared
  memory, so the dispatcher uses it only when ``warp_ok`` (then n_warps >= 1). ``tb_ok``
  implies n_warps == warps_per_tb; a partial TB issues warps 0 .. n_warps - 1 and loads
  n_warps .. warps_per_tb - 1 into the workload buffer (:mod:`.workload_buffer`).

The MM example of §3.3: 32,768 registers, 48 KB shared; TB = 8 warps x 768 registers,
2 KB. After 5 full TBs (30,720 registers, 10 KB) tb_ok = 0, warp_ok = 1, n_warps = 2.

The hardware (:class:`rtl.warpman.dispatch_check.DispatchCheck`) has no divider: it
compares free_regs against the multiples k x regs_per_warp, k = 1 .. max_warps_per_tb.

Per-cycle interface (shared port for port with the RTL): purely combinational;
:meth:`DispatchCheck.step` exists so the generic bench can drive it like the clocked
structures. Requests that are errors (:class:`~golden.errors.SimtlabError`, in check mode
and whenever a recorder is attached): a free count above the SM's capacity,
``warps_per_tb`` outside 1 .. max_warps_per_tb, ``regs_per_warp`` above ``registers`` and
``shared_per_tb`` above ``shared_bytes``. Which SM is checked, when (launch, resource
release), and the contention controls of §3.3 step 6 are the mechanism's business.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import SimtlabError
from golden.structures._check import below, is_int, param_int
from golden.structures.ports import OutputPorts

__all__ = ["DispatchCheck", "DispatchCheckOps", "DispatchCheckOutputs", "DispatchCheckParams"]

STRUCT = "warpman_check"

#: CUDA's limit on threads per block (golden.host: 1024 x 1 x 1 at most).
MAX_THREADS_PER_TB = 1024


@dataclass(frozen=True)
class DispatchCheckParams:
    """Capacities of one SM, which size the ports; defaults are the gtx480_warpman config
    (WarpMan Table 4: 48 warps, 8 TBs, 32k registers, 48 KB shared; 1,024-thread TBs).

    Attributes
    ----------
    warp_slots : int
        Warp-scheduler entries of the SM (48 = 1,536 threads / 32).
    tb_slots : int
        TB slots of the SM (8).
    registers : int
        32-bit registers of the SM (32,768 = 128 KB).
    shared_bytes : int
        Shared memory of the SM in bytes (49,152 = 48 KB).
    max_warps_per_tb : int
        Warps of the largest TB (32 = 1,024 threads); the length of the comparator chain.
    """

    warp_slots: int = 48
    tb_slots: int = 8
    registers: int = 32768
    shared_bytes: int = 49152
    max_warps_per_tb: int = 32

    def __post_init__(self):
        param_int(STRUCT, "warp_slots", self.warp_slots, 1)
        param_int(STRUCT, "tb_slots", self.tb_slots, 1)
        param_int(STRUCT, "registers", self.registers, 1)
        param_int(STRUCT, "shared_bytes", self.shared_bytes, 0)
        param_int(STRUCT, "max_warps_per_tb", self.max_warps_per_tb, 1)

    @classmethod
    def from_config(cls, config) -> "DispatchCheckParams":
        """The capacities of one SM of a :class:`~golden.configs.schema.GPUConfig`."""
        core = config.core
        threads = min(MAX_THREADS_PER_TB, core.max_threads_per_sm)
        return cls(warp_slots=core.max_warps_per_sm, tb_slots=core.max_tbs_per_sm,
                   registers=core.registers_per_sm, shared_bytes=core.shared_mem_per_sm,
                   max_warps_per_tb=min(-(-threads // core.warp_size), core.max_warps_per_sm))


@dataclass(frozen=True)
class DispatchCheckOps:
    """Inputs of one check (RTL input ports)."""

    free_warps: int = 0
    free_tbs: int = 0
    free_regs: int = 0
    free_shared: int = 0
    warps_per_tb: int = 1
    regs_per_warp: int = 0
    shared_per_tb: int = 0


@dataclass(frozen=True)
class DispatchCheckOutputs(OutputPorts):
    """Every RTL output port."""

    tb_ok: int
    warp_ok: int
    n_warps: int


class DispatchCheck:
    """TB-level and warp-level dispatch checks of one SM (see module docstring)."""

    def __init__(self, params: DispatchCheckParams | None = None, *, recorder=None,
                 check: bool = True):
        params = DispatchCheckParams() if params is None else params
        if not isinstance(params, DispatchCheckParams):
            raise SimtlabError(f"{STRUCT}: expected DispatchCheckParams, not "
                               f"{type(params).__name__}")
        self._p = params
        self._checked = check or recorder is not None
        self._recorder = recorder

    @property
    def params(self) -> DispatchCheckParams:
        return self._p

    def _check(self, ops: DispatchCheckOps) -> None:
        p = self._p
        for name, cap in (("free_warps", p.warp_slots), ("free_tbs", p.tb_slots),
                          ("free_regs", p.registers), ("free_shared", p.shared_bytes),
                          ("regs_per_warp", p.registers), ("shared_per_tb", p.shared_bytes)):
            below(STRUCT, name, getattr(ops, name), cap + 1)
        w = ops.warps_per_tb
        if not is_int(w) or not 1 <= w <= p.max_warps_per_tb:
            raise SimtlabError(f"{STRUCT}: warps_per_tb {w!r} out of range "
                               f"1..{p.max_warps_per_tb}")

    def step(self, ops: DispatchCheckOps) -> DispatchCheckOutputs:
        """Evaluate both checks for one TB on one SM; return every RTL output."""
        if not isinstance(ops, DispatchCheckOps):
            raise SimtlabError(f"{STRUCT}.step: expected DispatchCheckOps, not "
                               f"{type(ops).__name__}")
        if self._checked:
            self._check(ops)
        w, rpw = ops.warps_per_tb, ops.regs_per_warp
        shared_ok = ops.free_shared >= ops.shared_per_tb
        slot_ok = ops.free_tbs >= 1
        tb_ok = (ops.free_warps >= w and slot_ok and ops.free_regs >= w * rpw and shared_ok)
        warp_ok = shared_ok and ops.free_warps >= 1 and slot_ok and ops.free_regs >= rpw
        by_regs = ops.free_regs // rpw if rpw else w
        out = DispatchCheckOutputs(tb_ok=int(tb_ok), warp_ok=int(warp_ok),
                                   n_warps=min(w, ops.free_warps, by_regs))
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out

    def check(self, *, free_warps: int, free_tbs: int, free_regs: int, free_shared: int,
              warps_per_tb: int, regs_per_warp: int, shared_per_tb: int) -> DispatchCheckOutputs:
        """Keyword convenience for :meth:`step` (one evaluation)."""
        return self.step(DispatchCheckOps(
            free_warps=free_warps, free_tbs=free_tbs, free_regs=free_regs,
            free_shared=free_shared, warps_per_tb=warps_per_tb, regs_per_warp=regs_per_warp,
            shared_per_tb=shared_per_tb))
