"""Value and eligibility statistics of G-Scalar, observed on the functional model (seed 003).

:class:`GScalarStatsObserver` is an instruction observer (``golden.simt.observer``): for
every executed warp instruction it

* classifies it as divergent or not (Fig. 1) and, if divergent, whether all its source
  values are equal across the active lanes (Fig. 1 "divergent scalar", a value oracle);
* reads the per-warp RF metadata model (:class:`~.regstate.RegisterEncodingTracker`) to
  decide scalar-execution eligibility in the classes of Fig. 9 (§4.1-§4.3): ALU scalar,
  SFU / memory scalar ("all scalar"), half-warp scalar and divergent scalar (source
  scalar with D = 0, or D = 1 with the stored mask equal to the current mask);
* emulates 64-thread warps at 16-thread granularity (Fig. 10) by pairing adjacent warps
  of a thread block (see :meth:`GScalarStatsObserver._quarter_scalar`);
* counts every physical 32-bit register read and write with its similarity class
  (Fig. 8), the special moves of §3.3, RF dynamic energy of the baseline, G-Scalar (full
  and half-register compression), a scalar-only RF and Warped-Compression BDI (Fig. 12)
  and the bytes each design stores (compression ratio, §5.3);
* then applies the instruction's register writes to the tracker.

Modelling choices (all documented in :mod:`golden.mechanisms.gscalar`):
the *execution mask* is the SIMT path mask AND the guard predicate (a guarded write is a
partial write, which is what matters for compression); for control instructions (bra,
exit, ret, call, bar) it is the path mask. An instruction is divergent when its
execution mask is not every thread the warp was launched with (an instruction whose guard
is false on every lane is counted apart, as predicated off). 64-bit PTX registers are
two physical 32-bit registers (low and high word, as SASS register pairs); 8/16-bit
registers occupy one zero-extended 32-bit register; predicate registers live in a
separate predicate file (tracked for eligibility, not counted as RF accesses). Special
registers (``%tid``, ``%ctaid`` ...) are scalar when their value is equal for every thread
of the warp; immediates, symbols and parameters are scalar.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

import numpy as np

from golden.mechanisms.gscalar.regstate import HALF_LANES, WARP_LANES, RegisterEncodingTracker
from golden.mechanisms.gscalar.rf_energy import RFEnergyParams, load_rf_energy
from golden.ptx.ir import Reg, SpecialReg
from golden.simt.stats import OPCODE_CLASS
from golden.timing.pipelines import unit_class

#: opcode classes that can execute as scalar (§4.1: ALU, SFU and memory pipelines)
ELIGIBLE_CLASSES = ("alu", "sfu", "mem")
#: designs whose RF energy is accumulated
DESIGNS = ("baseline", "gscalar", "gscalar_half", "scalar_rf", "bdi")
_LANE = np.arange(WARP_LANES)


@dataclass
class GScalarCounts:
    """Counters of one or more launches (all additive; see :meth:`merge`).

    Instruction counts are warp instructions. ``write_nc[k]`` / ``read_nc[k]`` count
    physical-register writes / reads whose top ``k`` bytes are common to all lanes
    (k = 4: scalar). Energies are in units of one baseline 1024-bit register access.
    """

    warp_insts: int = 0
    by_class: dict = field(default_factory=lambda: {c: 0 for c in ("alu", "sfu", "mem", "ctrl", "other")})
    divergent: int = 0
    path_divergent: int = 0
    predicated_off: int = 0
    div_scalar_values: int = 0
    elig_alu: int = 0
    elig_sfu: int = 0
    elig_mem: int = 0
    elig_half: int = 0
    elig_div: int = 0
    special_moves: int = 0
    special_moves_half: int = 0
    writes: int = 0
    write_nc: list = field(default_factory=lambda: [0] * 5)
    write_div: int = 0
    reads: int = 0
    read_nc: list = field(default_factory=lambda: [0] * 5)
    read_dstored: int = 0
    read_div: int = 0
    w64_insts: int = 0
    w64_full: int = 0
    w64_quarter: int = 0
    energy: dict = field(default_factory=lambda: {d: 0.0 for d in DESIGNS})
    bytes_raw: int = 0
    bytes_gscalar: int = 0
    bytes_gscalar_half: int = 0
    bytes_bdi: int = 0

    def merge(self, other: "GScalarCounts") -> None:
        """Add ``other``'s counts to these."""
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if isinstance(a, dict):
                for k, v in b.items():
                    a[k] = a.get(k, 0) + v
            elif isinstance(a, list):
                for i, v in enumerate(b):
                    a[i] += v
            else:
                setattr(self, f.name, a + b)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "GScalarCounts":
        return cls(**{f.name: d[f.name] for f in fields(cls) if f.name in d})


def _parts32(values: np.ndarray) -> list[np.ndarray]:
    """The physical 32-bit registers holding ``values``: one, or two (low, high) for 64-bit."""
    if values.dtype == np.bool_:
        return [values.astype(np.uint32)]
    size = values.dtype.itemsize
    if size == 8:
        u = values.view(np.uint64)
        return [(u & np.uint64(0xFFFFFFFF)).astype(np.uint32), (u >> np.uint64(32)).astype(np.uint32)]
    if size == 4:
        return [values.view(np.uint32)]
    return [values.view(np.uint16 if size == 2 else np.uint8).astype(np.uint32)]


def _pack(mask: np.ndarray) -> np.ndarray:
    """Bool ``(n, 32)`` lane masks as uint32 (bit i = lane i)."""
    return np.packbits(mask, axis=1, bitorder="little").view("<u4").reshape(-1).astype(np.uint32)


@dataclass
class _Src:
    kind: str          # "reg" (vector RF), "pred" (predicate file) or "special"
    name: str
    nparts: int
    read: bool         # counted as an RF read (first occurrence of a vector register)


@dataclass
class _Static:
    opclass: str
    srcs: list
    dsts: list         # [(name, kind, nparts)]


class GScalarStatsObserver:
    """Collects :class:`GScalarCounts` over every launch it observes.

    Attach to launches with ``kernel(grid, block, args, observers=[obs])`` (or run a whole
    workload with :func:`golden.mechanisms.gscalar.analysis.analyse_workload`).
    ``pipelines`` (a :class:`~golden.configs.schema.PipelinesConfig`) routes ALU/SFU
    instructions to the unit they are counted under, by the rule the timing model uses
    (:func:`golden.timing.pipelines.pipe_of`); None = only the transcendental opcodes
    are SFU instructions.
    """

    def __init__(self, energy: RFEnergyParams | None = None, pipelines=None):
        self.pipelines = pipelines
        self.energy = energy if energy is not None else load_rf_energy()
        self.counts = GScalarCounts()
        e = self.energy
        self._bdi_arrays = {d: min(e.arrays_per_register, -(-(e.bdi_base_bytes + WARP_LANES * d) // 16))
                            for d in e.bdi_delta_bytes}
        self._bdi_bytes = {d: e.bdi_base_bytes + WARP_LANES * d for d in e.bdi_delta_bytes}
        self.tracker: RegisterEncodingTracker | None = None

    # ---------------------------------------------------------------- launch boundaries
    def on_launch_begin(self, launch) -> None:
        """Fresh RF state for a launch (registers do not survive a kernel)."""
        geo = launch.geo
        self.wpt = geo.warps_per_tb
        self.tracker = RegisterEncodingTracker(geo.num_tbs * self.wpt,
                                               bdi_delta_sizes=self.energy.bdi_delta_bytes)
        threads = np.clip(geo.threads_per_tb - WARP_LANES * np.arange(self.wpt), 0, WARP_LANES)
        self._full_rows = _LANE[None, :] < threads[:, None]          # (wpt, 32) warp's threads
        self._full32 = _pack(self._full_rows)
        self._static: dict[int, _Static] = {}

    def on_launch_end(self, stats) -> None:
        self.tracker = None

    # ---------------------------------------------------------------- per instruction
    def _static_info(self, ev) -> _Static:
        st = self._static.get(ev.pc)
        if st is not None:
            return st
        inst = ev.inst
        opclass = OPCODE_CLASS.get(inst.opcode, "other") if inst is not None else "ctrl"
        if opclass in ("alu", "sfu") and self.pipelines is not None:
            opclass = unit_class(inst.opcode, inst.types, self.pipelines)
        srcs, seen = [], set()
        for op, vals in ev.srcs:
            if isinstance(op, SpecialReg):
                srcs.append(_Src("special", f"%{op.name}.{op.component}", 1, False))
            elif isinstance(op, Reg):
                kind = "pred" if vals.dtype == np.bool_ else "reg"
                nparts = 2 if vals.dtype.itemsize == 8 else 1
                srcs.append(_Src(kind, op.name, nparts, kind == "reg" and op.name not in seen))
                seen.add(op.name)
        dsts = []
        for r, vals in ev.dsts:
            kind = "pred" if vals.dtype == np.bool_ else "reg"
            dsts.append((r.name, kind, 2 if vals.dtype.itemsize == 8 else 1))
        st = _Static(opclass, srcs, dsts)
        self._static[ev.pc] = st
        return st

    def on_exec(self, ev) -> None:
        c = self.counts
        T = self.tracker
        st = self._static_info(ev)
        n = ev.warps.shape[0]
        c.warp_insts += n
        c.by_class[st.opclass] += n
        wit = ev.warp_in_tb
        full_rows = self._full_rows[wit]
        full32 = self._full32[wit]
        path32 = _pack(ev.path_mask)
        c.path_divergent += int((path32 != full32).sum())
        if st.opclass == "ctrl":
            c.divergent += int((path32 != full32).sum())
            nondiv = path32 == full32
            self._quarter_scalar(ev, nondiv, None, None, None, False)
            return
        act = ev.active
        mask32 = _pack(act)
        nondiv = mask32 == full32
        empty = mask32 == 0
        div = ~nondiv
        c.divergent += int((div & ~empty).sum())     # an all-false guard does no work at all
        c.predicated_off += int(empty.sum())
        warps = ev.warps

        # ---- sources: scalar flags from the tracker (what the hardware knows)
        s_full = np.ones(n, bool)
        s_div = np.ones(n, bool)
        s_half = np.ones((n, 2), bool)
        bases = []
        live_div = div & ~empty
        oracle = live_div.copy() if live_div.any() else None
        if oracle is not None:
            first = np.argmax(act, axis=1)
        e = self.energy
        A, M, Mh = e.array_access, e.metadata_access, e.metadata_access_half
        en = c.energy
        for src, (op, vals) in zip(st.srcs, ev.srcs):
            parts = _parts32(vals)
            if oracle is not None:
                for v in parts:
                    ref = v[np.arange(n), first]
                    oracle &= ((v == ref[:, None]) | ~act).all(axis=1)
            if src.kind == "special":
                v = parts[0]
                eq = (v == v[:, :1]) | ~full_rows
                uni = eq.all(axis=1)
                s_full &= uni
                s_div &= uni
                s_half &= eq.reshape(n, 2, HALF_LANES).all(axis=2) & \
                    full_rows.reshape(n, 2, HALF_LANES).any(axis=2)
                bases.append(v[:, 0])
                continue
            prefix = "p:" if src.kind == "pred" else "r:"
            for k in range(src.nparts):
                col = T.column((prefix + src.name, k))
                nc, d = T.nc[warps, col], T.d[warps, col]
                ncg = T.ncg[warps, col]
                sc = nc == 4
                s_full &= sc & ~d
                s_div &= sc & (~d | (T.mask[warps, col] == mask32))
                s_half &= (ncg == 4) & ~d[:, None]
                bases.append(T.base[warps, col])
                if src.read:
                    self._count_reads(c, nc, d, ncg, T.bdi[warps, col], div, A, M, Mh, en)

        if oracle is not None:
            c.div_scalar_values += int(oracle.sum())

        # ---- eligibility classes of Fig. 9 (cumulative, each instruction in one class)
        if st.opclass in ELIGIBLE_CLASSES:
            full_el = nondiv & s_full
            k = int(full_el.sum())
            if st.opclass == "alu":
                c.elig_alu += k
            elif st.opclass == "sfu":
                c.elig_sfu += k
            else:
                c.elig_mem += k
            c.elig_half += int((nondiv & ~s_full & s_half.any(axis=1)).sum())
            c.elig_div += int((live_div & s_div).sum())
        self._quarter_scalar(ev, nondiv, s_full, s_half, bases, st.opclass in ELIGIBLE_CLASSES)

        # ---- register writes
        if not st.dsts:
            return
        rows = np.flatnonzero(~empty)
        if rows.size == 0:
            return
        if rows.size != n:
            warps_w, act_w, nd_w, m_w = warps[rows], act[rows], nondiv[rows], mask32[rows]
        else:
            warps_w, act_w, nd_w, m_w = warps, act, nondiv, mask32
        for (name, kind, nparts), (_, vals) in zip(st.dsts, ev.dsts):
            parts = _parts32(vals if rows.size == n else vals[rows])
            prefix = "p:" if kind == "pred" else "r:"
            for k, v in enumerate(parts):
                res = T.write(warps_w, T.column((prefix + name, k)), v, act_w, nd_w, m_w)
                if kind == "reg":
                    self._count_write(c, res, act_w, nd_w, A, M, Mh, en)

    # ---------------------------------------------------------------- RF accounting
    def _count_reads(self, c, nc, d, ncg, bdi, div, A, M, Mh, en) -> None:
        """One read of one physical register by each warp of the instruction."""
        n = nc.shape[0]
        e = self.energy
        full = e.arrays_per_register
        c.reads += n
        c.read_div += int(div.sum())
        nd = ~div
        c.read_dstored += int((nd & d).sum())
        clean = nd & ~d
        if clean.any():
            c.read_nc = [a + int(b) for a, b in zip(c.read_nc, np.bincount(nc[clean], minlength=5))]
        nc64 = nc.astype(np.int64)
        en["baseline"] += n * full * A
        en["gscalar"] += float(np.where(d, full, 2 * (4 - nc64)).sum()) * A + n * M
        en["gscalar_half"] += float(np.where(d, full, 8 - ncg.astype(np.int64).sum(axis=1)).sum()) * A + n * Mh
        in_srf = (nc == 4) & ~d
        k = int(in_srf.sum())
        en["scalar_rf"] += k * e.scalar_rf_access + (n - k) * full * A
        en["bdi"] += self._bdi_energy(bdi, ~d) + n * e.bdi_metadata_access

    def _bdi_energy(self, bdi, ok) -> float:
        e = self.energy
        total = 0.0
        unc = np.ones(bdi.shape[0], bool)
        for dsz, arrays in self._bdi_arrays.items():
            sel = ok & (bdi == dsz)
            total += int(sel.sum()) * arrays * e.array_access
            unc &= ~sel
        return total + int(unc.sum()) * e.arrays_per_register * e.array_access

    def _count_write(self, c, res, act, nondiv, A, M, Mh, en) -> None:
        """One write of one physical register by each (non-empty) warp; special moves."""
        e = self.energy
        full = e.arrays_per_register
        n = nondiv.shape[0]
        div = ~nondiv
        c.writes += n
        ndiv = int(div.sum())
        c.write_div += ndiv
        nc = res.nc.astype(np.int64)
        ncg_sum = res.ncg.astype(np.int64).sum(axis=1)
        if ndiv < n:
            c.write_nc = [a + int(b) for a, b in zip(c.write_nc, np.bincount(res.nc[nondiv], minlength=5))]
        # baseline: a partial write activates only the arrays holding active lanes
        per_array = WARP_LANES // full
        base_arrays = act.reshape(n, full, per_array).any(axis=2).sum(axis=1)
        en["baseline"] += float(base_arrays.sum()) * A
        # G-Scalar (full-register compression): divergent writes are stored whole (§3.3)
        en["gscalar"] += float(np.where(nondiv, 2 * (4 - nc), full).sum()) * A + n * M
        move = div & ~res.prev_d & (res.prev_nc > 0)
        nm = int(move.sum())
        c.special_moves += nm
        if nm:
            en["gscalar"] += float((2 * (4 - res.prev_nc[move].astype(np.int64))).sum() + nm * full) * A + 2 * nm * M
        # half-register compression
        en["gscalar_half"] += float(np.where(nondiv, 8 - ncg_sum, full).sum()) * A + n * Mh
        move_h = div & ~res.prev_d & (res.prev_ncg.max(axis=1) > 0)
        nmh = int(move_h.sum())
        c.special_moves_half += nmh
        if nmh:
            prev = 8 - res.prev_ncg[move_h].astype(np.int64).sum(axis=1)
            en["gscalar_half"] += float(prev.sum() + nmh * full) * A + 2 * nmh * Mh
        # scalar-only RF: uniform non-divergent values go to the scalar RF
        to_srf = nondiv & (nc == 4)
        k = int(to_srf.sum())
        en["scalar_rf"] += k * e.scalar_rf_access + float(base_arrays[~to_srf].sum()) * A
        srf_move = div & ~res.prev_d & (res.prev_nc == 4)
        ks = int(srf_move.sum())
        en["scalar_rf"] += ks * (e.scalar_rf_access + full * A)
        # BDI (Warped-Compression)
        en["bdi"] += self._bdi_energy(res.bdi, nondiv) + n * e.bdi_metadata_access
        bmove = div & ~res.prev_d & (res.prev_bdi >= 0)
        kb = int(bmove.sum())
        if kb:
            en["bdi"] += self._bdi_energy(res.prev_bdi[bmove], np.ones(kb, bool)) + \
                kb * (full * A + 2 * e.bdi_metadata_access)
        # stored bytes (compression ratio): base bytes + uncovered bytes of every lane
        raw = WARP_LANES * 4
        c.bytes_raw += n * raw
        c.bytes_gscalar += int(np.where(nondiv, nc + WARP_LANES * (4 - nc), raw).sum())
        half_bytes = (res.ncg.astype(np.int64) + HALF_LANES * (4 - res.ncg.astype(np.int64))).sum(axis=1)
        c.bytes_gscalar_half += int(np.where(nondiv, half_bytes, raw).sum())
        bdi_bytes = np.full(n, raw, np.int64)
        for dsz, nb in self._bdi_bytes.items():
            bdi_bytes[nondiv & (res.bdi == dsz)] = nb
        c.bytes_bdi += int(bdi_bytes.sum())

    # ---------------------------------------------------------------- 64-thread warps
    def _quarter_scalar(self, ev, nondiv, s_full, s_half, bases, eligible: bool) -> None:
        """Fig. 10: 64-thread warps checked at 16-thread granularity ("quarter-scalar").

        Approximation: warps ``2k`` and ``2k+1`` of a thread block form one 64-thread
        warp. When both execute this instruction in the same group they count as one
        64-thread instruction; non-divergent when both are, fully scalar when every
        source is scalar in both with equal base values, and quarter-scalar when it is
        not fully scalar but some 16-lane quarter has every source scalar. A warp that
        executes without its partner (the pair took different paths) counts as one
        divergent 64-thread instruction, never eligible; a warp without a partner in its
        thread block (odd warp count) is a whole 64-thread warp on its own.
        """
        c = self.counts
        wit = ev.warp_in_tb
        warps = ev.warps
        n = warps.shape[0]
        nxt = np.zeros(n, bool)
        nxt[:-1] = warps[1:] == warps[:-1] + 1
        pair_first = (wit % 2 == 0) & nxt & (wit + 1 < self.wpt)
        pair_second = np.zeros(n, bool)
        pair_second[1:] = pair_first[:-1]
        single = ~(pair_first | pair_second)
        alone = single & ((wit ^ 1) >= self.wpt)        # no partner in the thread block
        i = np.flatnonzero(pair_first)
        c.w64_insts += i.size + int(single.sum())
        if not eligible:
            return
        j = i + 1
        nd = nondiv[i] & nondiv[j]
        same = np.ones(i.size, bool)
        for b in bases:
            same &= b[i] == b[j]
        full64 = nd & s_full[i] & s_full[j] & same
        quarter = nd & ~full64 & (s_half[i].any(axis=1) | s_half[j].any(axis=1))
        full_alone = alone & nondiv & s_full
        quarter_alone = alone & nondiv & ~s_full & s_half.any(axis=1)
        c.w64_full += int(full64.sum()) + int(full_alone.sum())
        c.w64_quarter += int(quarter.sum()) + int(quarter_alone.sum())
