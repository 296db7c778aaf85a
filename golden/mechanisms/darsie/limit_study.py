"""DARSIE's limit study and redundancy taxonomy by value comparison (DARSIE §1, §2, Figs. 1-2).

:class:`RedundancyObserver` watches every executed warp instruction of a run (attach it
to launches, e.g. with :func:`golden.workloads.observed.run_observed`) and, at the
end of each launch, classifies each one.

Definitions
-----------
* **Dynamic instance.** The k-th execution of a PC by a warp is matched with the k-th
  execution of that PC by the other warps of its TB (TB level) or of the grid (grid
  level). Its *operands* are the source register vectors (including special registers and
  address registers) and the active mask (so a guard predicate counts too); immediates
  and symbols are the same for every warp by construction.
* **Diverged** executions (a SIMT path mask with an inactive lane, including the missing
  lanes of a partial warp) are non-redundant at every level (Fig. 2's rule) and take no
  part in the comparison (DARSIE §4.5: such warps do not participate in skipping).
* **Grid-redundant**: every warp of the launch that executes the instance with a full
  mask does so on the same operand vectors, and at least two warps do. **TB-redundant**: the same
  within the warps of one TB (§1: "all warp instructions within a TB use the same vector
  operands"). **Warp-redundant**: every source vector holds one scalar in all 32 lanes.
  The three levels are reported independently (Fig. 1) and as an exclusive hierarchy
  grid > TB > warp > none.
* **Taxonomy of TB-redundant instructions** (Fig. 2 classifies "based on the type of
  redundancy in their source registers"; Fig. 3 classifies a load by the values it
  produces, so a load from an affine address is *unstructured*). We take the weakest
  pattern among the source vectors and the destination vector: *uniform* if every one
  is a single scalar, *affine* if every one is ``base + sx*tx + sy*ty`` over the lanes'
  thread coordinates inside the warp (one stride per TB dimension; for a TB with x >= 32
  this is the single pair ``base + stride*lane``), else *unstructured*. Integers are
  compared modulo their width, floats exactly, predicates only as uniform.

Cross-check with the compiler pass
----------------------------------
For every launch the observer also marks the kernel (:func:`mark_kernel` with the
launch's TB shape) and counts executions of PCs marked DR at launch. Warps that share the
same control-flow history (every branch outcome, lane by lane) and a full mask form one
*lock-step group* per instance; DARSIE would execute the instance once per group (the
leader) and let the others skip it (§4.1: skipping is restricted to warps on the same
path). **Soundness**: inside each lock-step group of a DR-marked instance, all warps must
see identical operands and produce identical results (active lanes of the destination,
which also covers loaded values). Any difference is reported as a violation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from golden.mechanisms.darsie.lattice import Redundancy
from golden.mechanisms.darsie.marking import Marking, MarkingOptions, mark_kernel

#: seed of the random multipliers of the operand-vector hash
HASH_SEED = 20200316

#: taxonomy codes
UNIFORM, AFFINE, UNSTRUCTURED = 0, 1, 2

#: executed warp instructions buffered before their values are hashed and classified
PENDING_ROWS = 16384

#: how many soundness violations a result keeps as text
MAX_LISTED_VIOLATIONS = 8

_LANES = np.arange(32, dtype=np.int64)


@dataclass
class RedundancyCounts:
    """Counts of executed warp instructions (one per warp per dynamic instruction).

    warp_instructions: all executed warp instructions; diverged: those with a partial mask.
    grid / tb / warp: redundant at that level (independent, Fig. 1).
    excl_grid / excl_tb / excl_warp / excl_none: exclusive hierarchy grid > TB > warp.
    tb_uniform / tb_affine / tb_unstructured: TB-redundant ones by taxonomy (Fig. 2).
    marked_dr: executions of PCs the compiler pass marks DR for the launch's TB shape.
    marked_dr_tb_redundant: of those, TB-redundant by value.
    skippable: executions DARSIE could skip (DR-marked, full mask, not the first warp of
        its lock-step group); tb_removable: the same count for value-based TB redundancy
        (TB-redundant instances minus one leader each).
    lockstep_groups: lock-step groups of DR-marked instances checked for soundness;
        violations: groups whose warps disagreed.
    """

    warp_instructions: int = 0
    diverged: int = 0
    grid: int = 0
    tb: int = 0
    warp: int = 0
    excl_grid: int = 0
    excl_tb: int = 0
    excl_warp: int = 0
    excl_none: int = 0
    tb_uniform: int = 0
    tb_affine: int = 0
    tb_unstructured: int = 0
    marked_dr: int = 0
    marked_dr_tb_redundant: int = 0
    skippable: int = 0
    tb_removable: int = 0
    lockstep_groups: int = 0
    violations: int = 0

    def add(self, other: "RedundancyCounts") -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def fraction(self, name: str) -> float:
        return getattr(self, name) / self.warp_instructions if self.warp_instructions else 0.0

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass
class PerPCRedundancy:
    """The limit study of one launch split by PC (index ``pc >> 3`` of the launch's
    program; each array has one element per instruction slot). The fields mean what the
    :class:`RedundancyCounts` fields of the same name mean, restricted to executions of
    that PC; ``marked_dr`` says whether the PC is marked DR for the launch's TB shape (so
    its executions count in ``RedundancyCounts.marked_dr``). Each array sums to the
    launch's count of the same name."""

    warp_instructions: np.ndarray
    diverged: np.ndarray
    tb: np.ndarray
    tb_removable: np.ndarray
    skippable: np.ndarray
    marked_dr: np.ndarray


@dataclass
class LaunchRedundancy:
    """Limit-study result of one launch: kernel, TB shape, counts, marking, violations,
    and the counts per PC (:class:`PerPCRedundancy`)."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    counts: RedundancyCounts
    marking: Marking
    violation_notes: list[str] = field(default_factory=list)
    per_pc: PerPCRedundancy | None = None


def _as_words(parts: list[np.ndarray], n: int) -> np.ndarray:
    """Rows of ``parts`` (each ``(n, 32)``) as one ``(n, C)`` uint64 matrix of their bytes."""
    cols = [np.ascontiguousarray(p).view(np.uint8).reshape(n, -1) for p in parts]
    b = np.concatenate(cols, axis=1) if len(cols) > 1 else cols[0]
    pad = -b.shape[1] % 8
    if pad:
        b = np.concatenate([b, np.zeros((n, pad), dtype=np.uint8)], axis=1)
    return np.ascontiguousarray(b).view(np.uint64)


class RedundancyObserver:
    """Observer computing the limit study of every launch it sees (see module docstring).

    ``launches`` collects one :class:`LaunchRedundancy` per launch; ``total`` sums them.
    ``options`` are the compiler-pass options used for the cross-check; ``marker``
    (default :func:`mark_kernel`) maps ``(program, block, options)`` to the
    :class:`Marking` that is cross-checked, so other markings can be audited too.
    """

    def __init__(self, options: MarkingOptions | None = None, hash_seed: int = HASH_SEED,
                 marker=None):
        self.options = options or MarkingOptions()
        self.marker = marker or mark_kernel
        rng = np.random.default_rng(hash_seed)
        self._mult = rng.integers(1, np.iinfo(np.uint64).max, size=1024, dtype=np.uint64) | np.uint64(1)
        self.launches: list[LaunchRedundancy] = []
        self._marks_cache: dict[tuple[int, tuple], Marking] = {}
        self._uint_of = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
        self._reset()

    # ------------------------------------------------------------------ launch lifecycle
    def _reset(self) -> None:
        self._rows: list[tuple] = []
        self._pending: dict[int, list[tuple]] = {}
        self._pending_rows = 0
        self._count: dict[int, np.ndarray] = {}
        self._path: np.ndarray | None = None
        self._launch = None

    def on_launch_begin(self, launch) -> None:
        self._reset()
        self._launch = launch
        geo = launch.geo
        self._nwarps = geo.num_tbs * geo.warps_per_tb
        self._path = np.zeros(self._nwarps, dtype=np.uint64)
        bx = geo.block[0]
        p = bx if bx < 32 and 32 % bx == 0 else 32
        self._period = p
        self._txu, self._tyu = (_LANES % p).astype(np.uint64), (_LANES // p).astype(np.uint64)
        self._txf, self._tyf = self._txu.astype(np.float64), self._tyu.astype(np.float64)
        key = (id(launch.program), tuple(geo.block))
        mk = self._marks_cache.get(key)
        if mk is None:
            mk = self.marker(launch.program, geo.block, self.options)
            self._marks_cache[key] = mk
        self._marking = mk
        self._dr_pc = np.array([mk.final(m.pc) is Redundancy.DR for m in mk.marks], dtype=bool)

    def on_launch_end(self, stats) -> None:
        launch = self._launch
        self._flush()
        counts, notes, per_pc = self._analyse()
        self.launches.append(LaunchRedundancy(kernel=launch.name, grid=tuple(launch.geo.grid),
                                              block=tuple(launch.geo.block), counts=counts,
                                              marking=self._marking, violation_notes=notes,
                                              per_pc=per_pc))
        self._reset()

    @property
    def total(self) -> RedundancyCounts:
        t = RedundancyCounts()
        for lr in self.launches:
            t.add(lr.counts)
        return t

    # ------------------------------------------------------------------ per event
    def _hash(self, parts: list[np.ndarray], n: int) -> np.ndarray:
        w = _as_words(parts, n)
        c = w.shape[1]
        if c > self._mult.size:
            rng = np.random.default_rng(HASH_SEED + c)
            extra = rng.integers(1, np.iinfo(np.uint64).max, size=c, dtype=np.uint64) | np.uint64(1)
            self._mult = np.concatenate([self._mult, extra])
        w = (w ^ (w >> np.uint64(31))) * np.uint64(0x9E3779B97F4A7C15)
        w ^= w >> np.uint64(29)
        h = (w * self._mult[:c]).sum(axis=1, dtype=np.uint64)
        return h ^ (h >> np.uint64(33))

    def _vector_class(self, v: np.ndarray) -> np.ndarray | None:
        """Per row: UNIFORM, AFFINE or UNSTRUCTURED (see module docstring); None = all uniform."""
        dt = v.dtype
        bits = v if dt.kind in "biu" else v.view(self._uint_of[dt.itemsize])
        uni = (bits == bits[:, :1]).all(axis=1)
        if uni.all():
            return None
        out = np.where(uni, UNIFORM, UNSTRUCTURED).astype(np.int8)
        if dt.kind == "b":
            return out
        rest = ~uni
        x = v[rest]
        p = self._period
        if dt.kind == "f":
            d = x.astype(np.float64)
            d -= d[:, :1]
            sx = d[:, 1:2]
            pred = sx * self._txf
            if p < 32:
                pred += d[:, p:p + 1] * self._tyf
            with np.errstate(all="ignore"):
                aff = (d == pred).all(axis=1)
        else:
            d = x.astype(np.uint64)
            d -= d[:, :1]
            pred = d[:, 1:2] * self._txu
            if p < 32:
                pred += d[:, p:p + 1] * self._tyu
            if dt.itemsize < 8:
                m = np.uint64((1 << (8 * dt.itemsize)) - 1)
                d &= m
                pred &= m
            aff = (d == pred).all(axis=1)
        out[rest] = np.where(aff, AFFINE, UNSTRUCTURED)
        return out

    def on_exec(self, ev) -> None:
        """Record one event: per-warp execution index and path now, values batched by PC."""
        n = int(ev.warps.size)
        pci = ev.pc >> 3
        cnt = self._count.get(pci)
        if cnt is None:
            cnt = np.zeros(self._nwarps, dtype=np.int32)
            self._count[pci] = cnt
        warps = ev.warps
        k = cnt[warps]
        cnt[warps] += 1
        full = ev.path_mask.all(axis=1)
        active = ev.active.copy()
        path = self._path[warps]
        inst = ev.inst
        if inst is not None and inst.opcode == "bra":
            taken = _pack(active)
            onpath = _pack(ev.path_mask)
            h = (path * np.uint64(0x100000001B3)) ^ (np.uint64(ev.pc) << np.uint64(40))
            h = (h * np.uint64(0xC2B2AE3D27D4EB4F)) ^ (taken << np.uint64(32)) ^ onpath
            self._path[warps] = h
        entry = (k, ev.tbs.astype(np.int64), path, full, active,
                 [a for _, a in ev.srcs], [a for _, a in ev.dsts])
        self._pending.setdefault(pci, []).append(entry)
        self._pending_rows += n
        if self._pending_rows >= PENDING_ROWS:
            self._flush()

    def _flush(self) -> None:
        """Hash and classify the batched events, PC by PC (same operand shapes per PC)."""
        for pci, entries in self._pending.items():
            k, tbs, path, full, active = (np.concatenate([e[i] for e in entries]) for i in range(5))
            n = k.size
            srcs = [np.concatenate([e[5][j] for e in entries]) for j in range(len(entries[0][5]))]
            dsts = [np.concatenate([e[6][j] for e in entries]) for j in range(len(entries[0][6]))]
            src_h = self._hash(srcs + [active], n)
            if dsts and self._dr_pc[pci]:
                dparts = [np.where(active, a, np.zeros((), dtype=a.dtype)) for a in dsts]
                data_h = self._hash(srcs + [active] + dparts, n)
            else:
                data_h = src_h
            cls = np.zeros(n, dtype=np.int8)
            for a in srcs:
                vc = self._vector_class(a)
                if vc is not None:
                    np.maximum(cls, vc, out=cls)
            src_uni = cls == UNIFORM
            for a in dsts:
                vc = self._vector_class(a)
                if vc is not None:
                    np.maximum(cls, vc, out=cls)
            self._rows.append((np.full(n, pci, dtype=np.int32), k, tbs, path, full,
                               src_h, data_h, cls, src_uni))
        self._pending = {}
        self._pending_rows = 0

    # ------------------------------------------------------------------ end of launch
    def _analyse(self) -> tuple[RedundancyCounts, list[str], PerPCRedundancy]:
        c = RedundancyCounts()
        npc = len(self._dr_pc)
        zeros = np.zeros(npc, dtype=np.int64)
        per_pc = PerPCRedundancy(zeros, zeros.copy(), zeros.copy(), zeros.copy(), zeros.copy(),
                                 self._dr_pc.copy())
        if not self._rows:
            return c, [], per_pc
        cols = list(zip(*self._rows))
        pc, k, tb, path, full, src_h, data_h, cls, src_uni = (np.concatenate(x) for x in cols)
        n = pc.size
        c.warp_instructions = n
        c.diverged = int((~full).sum())

        tb_red = _group_redundant((pc, k, tb), full, src_h)
        grid_red = _group_redundant((pc, k), full, src_h)
        # warp level: every source uniform and no divergence
        warp_red = full & src_uni
        c.tb, c.grid, c.warp = int(tb_red.sum()), int(grid_red.sum()), int(warp_red.sum())
        c.excl_grid = c.grid
        c.excl_tb = int((tb_red & ~grid_red).sum())
        c.excl_warp = int((warp_red & ~tb_red & ~grid_red).sum())
        c.excl_none = n - c.excl_grid - c.excl_tb - c.excl_warp
        c.tb_uniform = int((tb_red & (cls == UNIFORM)).sum())
        c.tb_affine = int((tb_red & (cls == AFFINE)).sum())
        c.tb_unstructured = int((tb_red & (cls == UNSTRUCTURED)).sum())
        c.tb_removable = c.tb - _n_groups((pc, k, tb), tb_red)
        per_pc.warp_instructions = np.bincount(pc, minlength=npc)
        per_pc.diverged = np.bincount(pc[~full], minlength=npc)
        per_pc.tb = np.bincount(pc[tb_red], minlength=npc)
        per_pc.tb_removable = per_pc.tb - _group_pcs((pc, k, tb), tb_red, npc)

        dr = self._dr_pc[pc]
        c.marked_dr = int(dr.sum())
        c.marked_dr_tb_redundant = int((dr & tb_red).sum())
        sel = dr & full
        notes: list[str] = []
        if sel.any():
            keys = (pc[sel], k[sel], tb[sel], path[sel])
            order, starts, sizes = _groups(keys)
            c.lockstep_groups = int(starts.size)
            c.skippable = int((sizes - 1).sum())
            per_pc.skippable = np.bincount(keys[0][order][starts], weights=sizes - 1,
                                           minlength=npc).astype(np.int64)
            dh = data_h[sel][order]
            lo = np.minimum.reduceat(dh, starts)
            hi = np.maximum.reduceat(dh, starts)
            bad = np.flatnonzero(lo != hi)
            c.violations = int(bad.size)
            first_pc = keys[0][order][starts]
            first_k = keys[1][order][starts]
            first_tb = keys[2][order][starts]
            mk = self._marking
            for g in bad[:MAX_LISTED_VIOLATIONS]:
                m = mk.marks[int(first_pc[g])]
                notes.append(f"{mk.kernel} pc 0x{m.pc:x} (line {m.line}) '{m.text}' [{m.static.name}: "
                             f"{m.reason}]: TB {int(first_tb[g])}, execution {int(first_k[g])}: warps "
                             f"on the same path saw different operands or results")
        return c, notes, per_pc


def _pack(mask: np.ndarray) -> np.ndarray:
    """Bool ``(n, 32)`` lane masks as uint64 bit masks."""
    return (mask.astype(np.uint64) << _LANES.astype(np.uint64)).sum(axis=1, dtype=np.uint64)


def _groups(keys: tuple[np.ndarray, ...]):
    """Sort rows by ``keys``; return (order, group start offsets in sorted order, sizes)."""
    order = np.lexsort(keys[::-1])
    n = order.size
    if n == 0:
        return order, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for key in keys:
        s = key[order]
        change[1:] |= s[1:] != s[:-1]
    starts = np.flatnonzero(change)
    sizes = np.diff(np.append(starts, n))
    return order, starts, sizes


def _group_redundant(keys: tuple[np.ndarray, ...], full: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Per row: the row has a full mask and its instance group, restricted to full-mask
    rows, has >= 2 rows that all carry the same hash. Diverged rows are never redundant
    and do not prevent the other warps of the instance from being redundant."""
    out = np.zeros(full.size, dtype=bool)
    sel = np.flatnonzero(full)
    if sel.size == 0:
        return out
    order, starts, sizes = _groups(tuple(x[sel] for x in keys))
    hs = h[sel][order]
    same = np.minimum.reduceat(hs, starts) == np.maximum.reduceat(hs, starts)
    ok = same & (sizes >= 2)
    out[sel[order]] = np.repeat(ok, sizes)
    return out


def _group_pcs(keys: tuple[np.ndarray, ...], sel: np.ndarray, npc: int) -> np.ndarray:
    """Per PC (``keys[0]``): how many groups of ``keys`` the rows ``sel`` form."""
    if not sel.any():
        return np.zeros(npc, dtype=np.int64)
    order, starts, _ = _groups(tuple(x[sel] for x in keys))
    return np.bincount(keys[0][sel][order][starts], minlength=npc)


def _n_groups(keys: tuple[np.ndarray, ...], sel: np.ndarray) -> int:
    if not sel.any():
        return 0
    _, starts, _ = _groups(tuple(x[sel] for x in keys))
    return int(starts.size)


@dataclass
class WorkloadRedundancy:
    """Limit study of one workload run: its TB dimensionality and per-launch results."""

    workload: str
    tb_dims: tuple[int, int, int]
    dims: int
    size: str
    launches: list[LaunchRedundancy]
    outputs_match: bool

    @property
    def counts(self) -> RedundancyCounts:
        t = RedundancyCounts()
        for lr in self.launches:
            t.add(lr.counts)
        return t

    @property
    def violation_notes(self) -> list[str]:
        return [n for lr in self.launches for n in lr.violation_notes]


def study_workload(name: str, size: str = "small", seed: int = 0,
                   options: MarkingOptions | None = None) -> WorkloadRedundancy:
    """Run workload ``name`` with a :class:`RedundancyObserver` on every launch."""
    from golden.workloads.observed import run_observed
    obs = RedundancyObserver(options)
    run = run_observed(name, [obs], size=size, seed=seed)
    w = run.workload
    return WorkloadRedundancy(workload=w.name, tb_dims=tuple(w.tb_dims), dims=w.dims, size=size,
                              launches=obs.launches, outputs_match=not run.mismatches())
