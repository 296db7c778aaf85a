"""Shared-memory bank-conflict model (CUDA programming guide, "shared memory banks").

Shared memory is split into ``banks`` banks; successive ``bank_width`` -byte words go to
successive banks (word ``w`` lives in bank ``w mod banks``). A bank delivers one word per
cycle, so a warp access takes as many cycles as the largest number of *distinct* words
any one bank must deliver. Lanes reading the same word of a bank share it (broadcast), so
they do not conflict.

Atomics (``serialize_same_word=True``) cannot share a word: every lane's read-modify-write
of a word is its own bank access, so the cost is the largest number of lane-word accesses
to one bank.

Simplifications: a lane access wider than a bank word touches every word it overlaps (a
64-bit unit-stride access on 4-byte banks costs 2 cycles, the hardware's two wavefronts);
CC 1.x half-warp issue is not modelled separately (for 16 banks a unit-stride 32-lane warp
costs 2 cycles either way).
"""

from __future__ import annotations

import numpy as np

from golden.errors import SimtlabError
from golden.timing.memory.coalescer import active_lanes


class SharedBanks:
    """Serialised cycles of one warp's shared-memory access."""

    #: most lane patterns whose cycles are remembered at once
    MEMO_LIMIT = 1 << 14

    def __init__(self, *, banks: int, bank_width_bytes: int):
        for name, v in (("banks", banks), ("bank_width_bytes", bank_width_bytes)):
            if v <= 0 or v & (v - 1):
                raise SimtlabError(f"{name} must be a positive power of two, got {v}")
        self._banks = banks
        self._width = bank_width_bytes
        # memo of cycles() per lane pattern: the same tile access pattern recurs in every
        # warp and TB (bounded: emptied when it reaches MEMO_LIMIT patterns)
        self._memo: dict = {}

    @property
    def banks(self) -> int:
        return self._banks

    @property
    def bank_width_bytes(self) -> int:
        return self._width

    def cycles(self, lane_offsets, active_mask, size: int, *,
               serialize_same_word: bool = False) -> int:
        """Cycles to serve the access (1 = conflict-free, 0 if no lane is active)."""
        if size <= 0:
            raise SimtlabError(f"access size must be positive, got {size}")
        offs = np.asarray(lane_offsets, dtype=np.uint64)
        act = active_lanes(active_mask, offs.shape[0])
        key = (offs.tobytes(), act.tobytes(), size, serialize_same_word)
        memo = self._memo
        c = memo.get(key)
        if c is None:
            if len(memo) >= self.MEMO_LIMIT:
                memo.clear()
            c = memo[key] = self._cycles(offs, act, size, serialize_same_word)
        return c

    def _cycles(self, offs, act, size: int, serialize_same_word: bool) -> int:
        offs = offs[act]
        if offs.size == 0:
            return 0
        w = np.uint64(self._width)
        first = offs // w
        last = (offs + np.uint64(size - 1)) // w
        span = int((last - first).max()) + 1
        if span == 1:  # common case: each lane touches one word (plain Python is faster here)
            ws = first.tolist()
            if not serialize_same_word:
                ws = set(ws)
            nb = self._banks
            per_bank: dict = {}
            for x in ws:
                b = x % nb
                per_bank[b] = per_bank.get(b, 0) + 1
            return max(per_bank.values())
        words = [first]
        for k in range(1, span):
            s = first + np.uint64(k)
            words.append(s[s <= last])
        all_words = np.concatenate(words)
        if not serialize_same_word:
            all_words = np.unique(all_words)
        bank_of = (all_words % np.uint64(self._banks)).astype(np.int64)
        return int(np.bincount(bank_of, minlength=self._banks).max())
