"""Per-warp SIMT reconvergence stacks (immediate post-dominator, PDOM), vectorised over warps.

Every warp owns a stack of entries ``(pc, rpc, mask)``: the next PC of the path, the
PC at which the path reconverges with its siblings (``rpc``), and the 32-bit active
mask. The top-of-stack (TOS) entry is what the warp executes. On a divergent branch
the TOS entry becomes the reconvergence entry (``pc = rpc_of_branch``) and the
not-taken and taken paths are pushed (taken on top, so it runs first). A path is
popped when its ``pc`` reaches its ``rpc`` or its mask becomes empty (all lanes exited).
Paths whose start PC equals the reconvergence PC are not pushed: their lanes simply
wait in the reconvergence entry.

All warps' stacks are stored in ``(W, D)`` numpy arrays so that a group of warps can
be updated with one vectorised operation. ``D`` grows on demand.
"""

from __future__ import annotations

import numpy as np

from golden.simt.program import NO_RECONVERGENCE

FULL = np.int64(0xFFFFFFFF)


class SimtStacks:
    """SIMT stacks of ``nwarps`` warps with initial masks ``init_masks`` (int64 array)."""

    def __init__(self, init_masks: np.ndarray, start_pc: int = 0, depth: int = 8):
        w = init_masks.size
        self.pc = np.zeros((w, depth), dtype=np.int64)
        self.rpc = np.full((w, depth), NO_RECONVERGENCE, dtype=np.int64)
        self.mask = np.zeros((w, depth), dtype=np.int64)
        self.depth = np.zeros(w, dtype=np.int64)
        live = init_masks != 0
        self.pc[:, 0] = start_pc
        self.mask[:, 0] = init_masks
        self.depth[live] = 1

    @property
    def nwarps(self) -> int:
        return self.depth.size

    def tos_pc(self) -> np.ndarray:
        """TOS pc of every warp; ``-1`` for finished warps."""
        d = np.maximum(self.depth - 1, 0)
        out = self.pc[np.arange(self.nwarps), d]
        return np.where(self.depth > 0, out, -1)

    def tos_mask(self, warps: np.ndarray) -> np.ndarray:
        return self.mask[warps, self.depth[warps] - 1]

    def set_tos_pc(self, warps: np.ndarray, pcs) -> None:
        self.pc[warps, self.depth[warps] - 1] = pcs

    def _ensure(self, extra: int) -> None:
        need = int(self.depth.max(initial=0)) + extra
        if need <= self.pc.shape[1]:
            return
        grow = max(need, 2 * self.pc.shape[1])
        for name, fill in (("pc", 0), ("rpc", NO_RECONVERGENCE), ("mask", 0)):
            old = getattr(self, name)
            new = np.full((old.shape[0], grow), fill, dtype=np.int64)
            new[:, : old.shape[1]] = old
            setattr(self, name, new)

    def branch(self, warps: np.ndarray, taken: np.ndarray, target: int, fallthrough: int,
               rpc: int) -> np.ndarray:
        """Resolve a branch for ``warps`` whose taken-lane bitmasks are ``taken``.

        Returns a boolean array: which of ``warps`` diverged.
        """
        cur = self.tos_mask(warps)
        taken = taken & cur
        nottaken = cur & ~taken
        all_taken = nottaken == 0
        none_taken = taken == 0
        div = ~(all_taken | none_taken)
        if all_taken.any():
            self.set_tos_pc(warps[all_taken], target)
        if (none_taken & ~all_taken).any():
            self.set_tos_pc(warps[none_taken & ~all_taken], fallthrough)
        if div.any():
            dw = warps[div]
            self._ensure(2)
            top = self.depth[dw] - 1
            self.pc[dw, top] = rpc
            pos = top + 1
            for path_pc, path_mask in ((fallthrough, nottaken[div]), (target, taken[div])):
                if path_pc == rpc:
                    continue  # these lanes wait in the reconvergence entry
                self.pc[dw, pos] = path_pc
                self.rpc[dw, pos] = rpc
                self.mask[dw, pos] = path_mask
                pos = pos + 1
            self.depth[dw] = pos
        return div

    def advance(self, warps: np.ndarray, next_pc: int) -> None:
        self.set_tos_pc(warps, next_pc)

    def advance_one(self, warp: int, next_pc: int) -> int:
        """:meth:`advance` then :meth:`reconverge` for a single warp (scalar fast path).
        Returns the warp's PC afterwards (its new top entry's), -1 if it has none left."""
        d = int(self.depth[warp]) - 1
        pcs, rpcs, masks = self.pc, self.rpc, self.mask
        pcs[warp, d] = next_pc
        if next_pc != rpcs[warp, d] and masks[warp, d] != 0:
            return next_pc  # the common case: the top entry stays (depth unchanged)
        while d >= 0 and (pcs[warp, d] == rpcs[warp, d] or masks[warp, d] == 0):
            d -= 1
        self.depth[warp] = d + 1
        return int(pcs[warp, d]) if d >= 0 else -1

    def kill_lanes(self, warps: np.ndarray, lanes: np.ndarray) -> None:
        """Lanes (bitmask per warp) exit: remove them from every entry of the warp."""
        self.mask[warps, :] &= ~lanes[:, None]

    def reconverge(self, warps: np.ndarray) -> None:
        """Pop entries that reached their reconvergence PC or have no lanes left."""
        w = warps
        while w.size:
            d = self.depth[w] - 1
            live = d >= 0
            w, d = w[live], d[live]
            if not w.size:
                return
            pop = (self.pc[w, d] == self.rpc[w, d]) | (self.mask[w, d] == 0)
            if not pop.any():
                return
            w = w[pop]
            self.depth[w] -= 1
