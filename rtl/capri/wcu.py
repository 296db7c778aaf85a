"""CAPRI warp compaction unit (WCU) with adequacy evaluator of one core (seed 004 §2.2,
§3.1, §3.3 step 6, Figs. 7-8; paper-facts §7.1-§7.3).

Reference model: :class:`golden.structures.capri.wcu.Wcu` (its docstring gives the
rules and the packing of the ports). Purely combinational (0 cycles, no clock, no state).

Compaction of the UMask warps (§3.3 step 6a). For every lane ``l`` the requests
``req_0 = {mask[w][l] & umask[w]}_w`` feed a chain of ``warps``
:class:`~rtl.common.priority_encoder.PriorityEncoder` s (lowest warp wins): encoder ``k``
gives formed warp ``k``'s thread in lane ``l`` (``formed`` bit = its ``valid``, ``src``
field = its ``index``), and ``req_{k+1} = req_k & (req_k - 1)`` drops the thread it took.
Every thread stays in its home lane. Formed warp ``k`` exists when any lane's encoder
``k`` is valid; those flags form a thermometer code over ``k`` and a
:class:`~rtl.common.popcount.PopCount` of it is ``n_formed``.

Adequacy evaluator (§3.1 "Predictor", §3.3 step 6b), over all warps: one
:class:`~rtl.common.popcount.PopCount` per lane of that lane's active bits, a tree of
comparators for ``max_lane_count``, a PopCount of the per-warp OR-reductions for
``n_active_warps``, and ``adequate = max_lane_count < n_active_warps``.

Cost grows as warps^2 x lanes priority-encoder bits for the compactor and warps x lanes
for the evaluator (the paper calls the evaluator negligible next to the compactor).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.widths import count_width
from rtl.common.popcount import PopCount
from rtl.common.priority_encoder import PriorityEncoder
from rtl.common.properties import properties
from rtl.darsie._util import check_int, index_width

__all__ = ["Wcu"]


class Wcu(wiring.Component):
    """Warp compaction unit with adequacy evaluator (see module docstring).

    Parameters
    ----------
    warps : int
        Warps of the largest CTA (warps_per_cta, 8).
    lanes : int
        SIMD lanes, threads per warp (32).

    Ports
    -----
    mask : In(warps * lanes)
        CTA-wide active mask of the path; warp ``w``'s lanes at bits ``w*lanes ..``.
    umask : In(warps)
        Bit ``w``: warp ``w`` stalled for compaction (0: it bypassed).
    formed : Out(warps * lanes)
        Formed warp ``k``'s mask at bits ``k*lanes ..``; 0 for ``k >= n_formed``.
    src : Out(warps * lanes * log2(warps))
        Source warp of formed warp ``k``'s thread in lane ``l`` at bits
        ``(k*lanes + l) * log2(warps)``; 0 where there is none.
    n_formed : Out(range(warps + 1))
        Warps formed from the UMask warps.
    max_lane_count : Out(range(warps + 1))
        Largest per-lane count of active threads over all warps.
    n_active_warps : Out(range(warps + 1))
        Warps with any active thread.
    adequate : Out(1)
        ``max_lane_count < n_active_warps``.

    The ports are the fields of :class:`golden.structures.capri.WcuOps` (inputs) and
    :class:`golden.structures.capri.WcuOutputs` (outputs).
    """

    def __init__(self, *, warps: int = 8, lanes: int = 32):
        self._warps = check_int("Wcu", "warps", warps, 1)
        self._lanes = check_int("Wcu", "lanes", lanes, 1)
        cw, wb = count_width(warps), index_width(warps)
        super().__init__({
            "mask": In(warps * lanes), "umask": In(warps),
            "formed": Out(warps * lanes), "src": Out(warps * lanes * wb),
            "n_formed": Out(cw), "max_lane_count": Out(cw), "n_active_warps": Out(cw),
            "adequate": Out(1),
        })

    @property
    def warps(self) -> int:
        return self._warps

    @property
    def lanes(self) -> int:
        return self._lanes

    def elaborate(self, platform):
        m = Module()
        W, L = self._warps, self._lanes
        wb, cw = index_width(W), count_width(W)
        rows = [self.mask[w * L:(w + 1) * L] for w in range(W)]
        valid_k = [[None] * L for _ in range(W)]          # [k][lane]
        counts = []
        for lane in range(L):
            col = Signal(W, name=f"lane{lane}_active")
            m.d.comb += col.eq(Cat(*[rows[w][lane] for w in range(W)]))
            # compactor: priority-encoder chain over the UMask warps
            req = Signal(W, name=f"lane{lane}_req0")
            m.d.comb += req.eq(col & self.umask)
            for k in range(W):
                pe = PriorityEncoder(width=W)
                m.submodules[f"pe_l{lane}_k{k}"] = pe
                m.d.comb += pe.requests.eq(req)
                bit = k * L + lane
                m.d.comb += [self.formed[bit].eq(pe.valid),
                             self.src[bit * wb:(bit + 1) * wb].eq(pe.index)]
                valid_k[k][lane] = pe.valid
                if k + 1 < W:
                    nxt = Signal(W, name=f"lane{lane}_req{k + 1}")
                    m.d.comb += nxt.eq(req & (req - 1))
                    req = nxt
            # evaluator: per-lane population count over all warps
            pc = PopCount(width=W)
            m.submodules[f"count_l{lane}"] = pc
            m.d.comb += pc.bits.eq(col)
            counts.append(pc.count)

        any_formed = Signal(W, name="formed_any")
        m.d.comb += any_formed.eq(Cat(*[Cat(*valid_k[k]).any() for k in range(W)]))
        m.submodules.n_formed_count = nf = PopCount(width=W)
        m.d.comb += [nf.bits.eq(any_formed), self.n_formed.eq(nf.count)]

        level, depth = counts, 0
        while len(level) > 1:                             # comparator tree: max
            depth += 1
            nxt = []
            for j in range(0, len(level) - 1, 2):
                mx = Signal(cw, name=f"max_l{depth}_{j // 2}")
                a, b = level[j], level[j + 1]
                m.d.comb += mx.eq(Mux(a > b, a, b))
                nxt.append(mx)
            if len(level) % 2:
                nxt.append(level[-1])
            level = nxt
        m.submodules.active_count = act = PopCount(width=W)
        m.d.comb += act.bits.eq(Cat(*[r.any() for r in rows]))
        m.d.comb += [
            self.max_lane_count.eq(level[0]),
            self.n_active_warps.eq(act.count),
            self.adequate.eq(level[0] < act.count),
        ]

        fv = properties(platform)
        if fv is not None:
            self._properties(m, fv, rows)
        return m

    def _properties(self, m, fv, rows):
        """Compaction as a specification over the input masks: every formed thread is a
        thread of the path (same PC: the mask is one path's) from a stalled warp, in its
        home lane, taken once, and every stalled thread is placed."""
        W, L = self._warps, self._lanes
        wb = index_width(W)
        formed = [[self.formed[k * L + l] for l in range(L)] for k in range(W)]
        src = [[self.src[(k * L + l) * wb:(k * L + l + 1) * wb] for l in range(L)] for k in range(W)]
        from rtl.darsie._util import any_of
        for k in range(W):
            for l in range(L):
                origin = any_of([(src[k][l] == w) & rows[w][l] & self.umask[w] for w in range(W)])
                fv.check(m, ~formed[k][l] | origin,
                         "a formed thread is a stalled warp's thread of this path, in its lane",
                         owner=self)
                for k2 in range(k + 1, W):
                    fv.check(m, ~(formed[k][l] & formed[k2][l]) | (src[k][l] < src[k2][l]),
                             "no thread is placed in two formed warps", owner=self)
        for l in range(L):
            stalled = sum(rows[w][l] & self.umask[w] for w in range(W))
            fv.check(m, sum(formed[k][l] for k in range(W)) == stalled,
                     "every stalled thread is placed (threads conserved per lane)", owner=self)
        exists = [Cat(*formed[k]).any() for k in range(W)]
        fv.check(m, self.n_formed == sum(exists), "n_formed counts the non-empty formed warps",
                 owner=self)
        for k in range(W - 1):
            fv.check(m, exists[k] | ~exists[k + 1], "formed warps are packed from warp 0",
                     owner=self)
        fv.check(m, self.adequate == (self.max_lane_count < self.n_active_warps),
                 "adequate iff compaction would form fewer warps than are active", owner=self)
        for l in range(L):
            fv.check(m, self.max_lane_count >= sum(rows[w][l] for w in range(W)),
                     "max_lane_count bounds every lane's active count", owner=self)
