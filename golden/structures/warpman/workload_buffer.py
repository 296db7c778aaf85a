"""Reference model of WarpMan's workload buffer of one SM (seed 002 ch. 3, §3.2 "B" and the
issue rule of §3.3 step 3; digest: paper-facts §3.2, §3.3).

What it stores
--------------
One entry per SM: WarpMan dispatches at most one partial thread block (TB) per SM, and the
entry describes the warps of that TB that were dispatched logically but have no registers
or warp-scheduler entry yet ("dispatched but unissued"):

* ``P_TBid`` (``p_tbid_bits`` = log2(tb_slots) = 3): the physical TB slot of the SM the
  partial TB occupies;
* ``L_TBid`` (``l_tbid_bits``, default 26): the logical (grid) TB id;
* ``start_wid`` (``wid_bits`` = log2(max_warps_per_tb) = 5): the first unissued warp;
* ``end_wid`` (``wid_bits``): the **last** unissued warp, inclusive;
* ``valid`` (1): the partial TB still has unissued warps.

:attr:`WorkloadBufferParams.entry_bits` = 3 + 26 + 5 + 5 + 1 = 40 bits, the paper's count.

The width of L_TBid
~~~~~~~~~~~~~~~~~~~
The paper sizes L_TBid at 26 bits from a "maximum grid of 1024 x 1024 x 64", which are
CUDA's limits on *threads per block*, not on the grid (paper-facts §3.2). ``l_tbid_bits``
is therefore a parameter: it must hold the linear id of every TB of a launch, i.e. at
least ``(num_tbs - 1).bit_length()`` bits (:func:`l_tbid_bits_for`). The default 26 holds
67,108,864 TBs per launch. The simulator accepts CUDA's grid limit
(:data:`golden.host.MAX_GRID_DIM` = (2^31 - 1) x 65,535 x 65,535 TBs), whose linear ids
need :data:`GRID_LIMIT_L_TBID_BITS` = 63 bits; a mechanism that meets a launch larger
than 2^26 TBs must build its buffer with :meth:`WorkloadBufferParams.for_launch` (the golden
model raises when an ``l_tbid`` does not fit).

The off-by-one of the paper
~~~~~~~~~~~~~~~~~~~~~~~~~~~
§3.3 clears ``valid`` "when start_wid == end_wid" after incrementing start_wid, which
with an inclusive end_wid would never issue warp end_wid (and a 5-bit field cannot hold
the exclusive bound 32). This model issues warp ``start_wid``, then clears ``valid`` when
the warp it issued *was* ``end_wid`` (paper-facts §3.3): a partial TB with unissued warps
2..7 issues exactly 2, 3, 4, 5, 6, 7.

Per-cycle interface (shared port for port with :class:`rtl.warpman.workload_buffer.WorkloadBuffer`)
---------------------------------------------------------------------------------------------------
Combinational, on the start-of-cycle state:

1. the read port: ``valid``, and while valid ``p_tbid``, ``l_tbid`` and ``wid`` (the next
   unissued warp, start_wid); all three are 0 while not valid;
2. issue ``issue_en`` (a warp of the SM finished and released its registers and
   scheduler entry; §3.3 step 3): ``issue_ok`` = valid -- warp ``wid`` of TB
   ``p_tbid``/``l_tbid`` gets resources now -- and ``issue_last`` = issue_ok and
   ``wid`` == end_wid (it was the last unissued warp). Without ``valid`` the request does
   nothing (``issue_ok`` = 0: the dispatcher should look for a new TB instead);
3. load ``load_en`` of ``load_p_tbid``, ``load_l_tbid``, ``load_start_wid``,
   ``load_end_wid`` (a partial TB was dispatched; §3.3 step 2): accepted (``load_ok``)
   only when the entry is not valid at the start of the cycle. **Loading while valid is
   an error**: the RTL ignores the request and flags it (``load_err`` = 1, the entry is
   unchanged, even if an issue in the same cycle empties it); :meth:`WorkloadBuffer.step`
   does the same, and the mechanism-level :meth:`WorkloadBuffer.load` raises
   :class:`~golden.errors.SimtlabError` after that cycle (so a trace shows it).

State change at the end of the cycle: an accepted issue increments ``start_wid`` and
clears ``valid`` if ``issue_last``; an accepted load writes all four fields and sets
``valid``. (Both cannot be accepted in one cycle: one needs ``valid``, the other not.)

Requests that are errors (:class:`~golden.errors.SimtlabError`, checked in check mode and
whenever a recorder is attached): a port value that does not fit its width, a
``load_p_tbid`` >= ``tb_slots``, a ``load_end_wid`` >= ``max_warps_per_tb``, and a load with
``load_start_wid`` > ``load_end_wid`` (a partial TB has at least one unissued warp; the RTL
does not guard this).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from golden.errors import SimtlabError
from golden.structures._check import below, fits, is_int, param_int, width_of
from golden.structures.ports import OutputPorts

__all__ = ["GRID_LIMIT_L_TBID_BITS", "PAPER_L_TBID_BITS", "WorkloadBuffer", "WorkloadBufferOps",
           "WorkloadBufferOutputs", "WorkloadBufferParams", "l_tbid_bits_for"]

STRUCT = "warpman_wb"

#: The paper's L_TBid width (§3.2; its justification is wrong, see the module docstring).
PAPER_L_TBID_BITS = 26

#: Bits of the linear TB id at the simulator's grid limit (golden.host.MAX_GRID_DIM).
GRID_LIMIT_L_TBID_BITS = (((1 << 31) - 1) * 65535 * 65535 - 1).bit_length()


def l_tbid_bits_for(num_tbs: int) -> int:
    """Bits an L_TBid field needs to hold the linear ids ``0 .. num_tbs - 1`` (at least 1)."""
    param_int(STRUCT, "num_tbs", num_tbs, 1)
    return width_of(num_tbs)


@dataclass(frozen=True)
class WorkloadBufferParams:
    """Sizes of one SM's workload buffer; defaults are the paper's 40-bit entry.

    Attributes
    ----------
    tb_slots : int
        Physical TB slots of the SM (8, GTX480 "max TBs per SM"); P_TBid has log2 bits.
    max_warps_per_tb : int
        Warps of the largest TB (32 = 1,024 threads); start_wid and end_wid have log2 bits.
    l_tbid_bits : int
        Width of L_TBid (26, the paper's). Must cover the launch's TB count (module
        docstring; :func:`l_tbid_bits_for`).
    """

    tb_slots: int = 8
    max_warps_per_tb: int = 32
    l_tbid_bits: int = PAPER_L_TBID_BITS

    def __post_init__(self):
        param_int(STRUCT, "tb_slots", self.tb_slots, 1)
        param_int(STRUCT, "max_warps_per_tb", self.max_warps_per_tb, 1)
        param_int(STRUCT, "l_tbid_bits", self.l_tbid_bits, 1, 64)

    @classmethod
    def for_launch(cls, num_tbs: int, **kw) -> "WorkloadBufferParams":
        """Params whose L_TBid holds every TB of a launch of ``num_tbs`` TBs: the paper's 26
        bits, or more when the launch needs them (``kw``: the other fields)."""
        p = cls(**kw)
        need = l_tbid_bits_for(num_tbs)
        return replace(p, l_tbid_bits=need) if need > p.l_tbid_bits else p

    @property
    def p_tbid_bits(self) -> int:
        """Bits of P_TBid (3 for 8 TB slots)."""
        return width_of(self.tb_slots)

    @property
    def wid_bits(self) -> int:
        """Bits of start_wid / end_wid (5 for 32 warps)."""
        return width_of(self.max_warps_per_tb)

    @property
    def entry_bits(self) -> int:
        """P_TBid + L_TBid + start_wid + end_wid + valid: 40 at the paper's sizes."""
        return self.p_tbid_bits + self.l_tbid_bits + 2 * self.wid_bits + 1

    @property
    def state_bits(self) -> int:
        """Every stored bit (one entry): entry_bits."""
        return self.entry_bits


@dataclass(frozen=True)
class WorkloadBufferOps:
    """Requests of one cycle (RTL input ports)."""

    load_en: int = 0
    load_p_tbid: int = 0
    load_l_tbid: int = 0
    load_start_wid: int = 0
    load_end_wid: int = 0
    issue_en: int = 0


@dataclass(frozen=True)
class WorkloadBufferOutputs(OutputPorts):
    """Every RTL output port in one cycle."""

    valid: int
    p_tbid: int
    l_tbid: int
    wid: int
    issue_ok: int
    issue_last: int
    load_ok: int
    load_err: int


class WorkloadBuffer:
    """WarpMan workload buffer of one SM (see module docstring).

    Inspection attributes (not cycles): ``valid``, ``p_tbid``, ``l_tbid``, ``start_wid``,
    ``end_wid`` and :attr:`next_warp`.
    """

    def __init__(self, params: WorkloadBufferParams | None = None, *, recorder=None,
                 check: bool = True):
        params = WorkloadBufferParams() if params is None else params
        if not isinstance(params, WorkloadBufferParams):
            raise SimtlabError(f"{STRUCT}: expected WorkloadBufferParams, not "
                               f"{type(params).__name__}")
        self._p = params
        self._checked = check or recorder is not None
        self._recorder = recorder
        self.valid = False
        self.p_tbid = self.l_tbid = self.start_wid = self.end_wid = 0

    @property
    def params(self) -> WorkloadBufferParams:
        return self._p

    @property
    def next_warp(self) -> tuple[int, int, int] | None:
        """``(p_tbid, l_tbid, wid)`` of the next unissued warp, or None (no cycle)."""
        return (self.p_tbid, self.l_tbid, self.start_wid) if self.valid else None

    @property
    def unissued(self) -> int:
        """Warps still unissued (0 when not valid)."""
        return self.end_wid - self.start_wid + 1 if self.valid else 0

    # ------------------------------------------------------------------ one cycle
    def _check(self, ops: WorkloadBufferOps) -> None:
        p = self._p
        fits(STRUCT, "load_en", ops.load_en, 1)
        fits(STRUCT, "issue_en", ops.issue_en, 1)
        fits(STRUCT, "load_p_tbid", ops.load_p_tbid, p.p_tbid_bits)
        if is_int(ops.load_l_tbid) and ops.load_l_tbid >= 1 << p.l_tbid_bits:
            raise SimtlabError(
                f"{STRUCT}: load_l_tbid {ops.load_l_tbid!r} does not fit in the "
                f"{p.l_tbid_bits}-bit L_TBid field; build the buffer with WorkloadBufferParams.for_launch(num_tbs) "
                f"(a launch of N TBs needs (N - 1).bit_length() bits)")
        fits(STRUCT, "load_l_tbid", ops.load_l_tbid, p.l_tbid_bits)
        fits(STRUCT, "load_start_wid", ops.load_start_wid, p.wid_bits)
        fits(STRUCT, "load_end_wid", ops.load_end_wid, p.wid_bits)
        if ops.load_en:
            below(STRUCT, "load_p_tbid", ops.load_p_tbid, p.tb_slots)
            below(STRUCT, "load_end_wid", ops.load_end_wid, p.max_warps_per_tb)
            if ops.load_start_wid > ops.load_end_wid:
                raise SimtlabError(f"{STRUCT}: load of start_wid {ops.load_start_wid} > end_wid "
                                   f"{ops.load_end_wid}; a partial TB has at least one unissued "
                                   f"warp (end_wid is inclusive)")

    def step(self, ops: WorkloadBufferOps) -> WorkloadBufferOutputs:
        """Apply one cycle of requests (judged on the start-of-cycle state)."""
        if not isinstance(ops, WorkloadBufferOps):
            raise SimtlabError(f"{STRUCT}.step: expected WorkloadBufferOps, not "
                               f"{type(ops).__name__}")
        if self._checked:
            self._check(ops)
        valid = self.valid
        wid = self.start_wid if valid else 0
        issue_ok = bool(ops.issue_en) and valid
        issue_last = issue_ok and self.start_wid == self.end_wid
        load_ok = bool(ops.load_en) and not valid
        out = WorkloadBufferOutputs(
            valid=int(valid), p_tbid=self.p_tbid if valid else 0,
            l_tbid=self.l_tbid if valid else 0, wid=wid, issue_ok=int(issue_ok),
            issue_last=int(issue_last), load_ok=int(load_ok),
            load_err=int(bool(ops.load_en) and valid))
        # end of cycle
        if issue_ok:
            self.start_wid += 1
            if issue_last:
                self.valid = False
        if load_ok:
            self.valid = True
            self.p_tbid, self.l_tbid = ops.load_p_tbid, ops.load_l_tbid
            self.start_wid, self.end_wid = ops.load_start_wid, ops.load_end_wid
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out

    # ------------------------------------------------------------------ mechanism API
    def load(self, p_tbid: int, l_tbid: int, start_wid: int, end_wid: int) -> None:
        """One cycle recording a partial TB's unissued warps ``start_wid .. end_wid``
        (inclusive) of TB ``l_tbid`` in slot ``p_tbid``. Raises SimtlabError if the buffer
        already holds a partial TB (the cycle is applied -- and recorded -- first, and
        changes nothing)."""
        out = self.step(WorkloadBufferOps(load_en=1, load_p_tbid=p_tbid, load_l_tbid=l_tbid,
                                          load_start_wid=start_wid, load_end_wid=end_wid))
        if out.load_err:
            raise SimtlabError(
                f"{STRUCT}: load of TB {l_tbid} (slot {p_tbid}, warps {start_wid}..{end_wid}) "
                f"while TB {self.l_tbid} (slot {self.p_tbid}) still has unissued warps "
                f"{self.start_wid}..{self.end_wid}: WarpMan holds at most one partial TB per SM")

    def issue(self) -> tuple[int, int, int] | None:
        """One cycle issuing the next unissued warp: ``(p_tbid, l_tbid, wid)``, or None when
        the buffer is empty. Clears ``valid`` when the issued warp is end_wid."""
        out = self.step(WorkloadBufferOps(issue_en=1))
        return (out.p_tbid, out.l_tbid, out.wid) if out.issue_ok else None

    def read(self) -> WorkloadBufferOutputs:
        """One idle cycle: the read port (``valid``, ``p_tbid``, ``l_tbid``, next ``wid``)."""
        return self.step(WorkloadBufferOps())
