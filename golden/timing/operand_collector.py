"""Operand collectors reading a banked vector register file.

Bank mapping (documented, from ``register_file.bank_mapping``):

* ``warp_plus_reg``: register ``r`` of warp ``w`` lives in bank ``(w + r) mod banks``
  (GPGPU-Sim's skew, so the same register of different warps spreads over banks);
* ``reg``: bank ``r mod banks``;
* ``subcore_warp_plus_reg``: each of the ``S`` schedulers owns ``B = banks / S`` banks
  (GPGPU-Sim's sub-core model); warp slot ``w`` belongs to scheduler ``s = w mod S`` and
  its register ``r`` lives in bank ``s * B + (w // S + r) mod B``.

``r`` is the register's index in the program's sorted register table
(:attr:`golden.timing.sm.DecodedInst.srcs`). Each bank serves ``ports_per_bank`` accesses
per cycle; reads that map to a busy bank wait for the next free cycle of that bank, so
two operands of one instruction in the same bank (or reads of concurrent instructions)
serialise. An instruction holds one of the SM's ``collector_units`` from issue until its
last operand is read. Simplification: writes take bank bandwidth only as counted events
(they do not delay reads).
"""

from __future__ import annotations

import heapq

from golden.configs.schema import RegisterFileConfig


class OperandCollector:
    """Bank reservation tables and collector units of one SM."""

    def __init__(self, cfg: RegisterFileConfig, schedulers: int = 1):
        self.banks = cfg.banks
        self.ports = cfg.ports_per_bank
        self.units = cfg.collector_units
        self.read_delay = cfg.read_delay
        self.skew = cfg.bank_mapping == "warp_plus_reg"
        self.subcore = cfg.bank_mapping == "subcore_warp_plus_reg"
        self.scheds = max(1, schedulers)
        self.per_sched = max(1, cfg.banks // self.scheds)
        # per bank: cycle -> accesses already granted in that cycle
        self._busy: list[dict[int, int]] = [dict() for _ in range(self.banks)]
        self._release: list[int] = []  # heap of collector-unit release cycles

    def bank(self, warp: int, reg: int) -> int:
        """Bank holding register ``reg`` of (SM-local) warp ``warp``."""
        if self.subcore:
            s = self.scheds
            return (warp % s) * self.per_sched + (warp // s + reg) % self.per_sched
        return (warp + reg) % self.banks if self.skew else reg % self.banks

    def free_unit(self, now: int) -> bool:
        """True if a collector unit is free at cycle ``now``."""
        rel = self._release
        while rel and rel[0] <= now:
            heapq.heappop(rel)
        return len(rel) < self.units

    def next_release(self) -> int | None:
        """Earliest cycle a busy collector unit frees (for event skipping)."""
        return self._release[0] if self._release else None

    def read(self, now: int, warp: int, regs, stats) -> int:
        """Read ``regs`` starting in cycle ``now + read_delay``; return the cycle after the
        last read (the collector unit is released then).

        Counts one RF read per register on its bank and one ``oc_bank_conflicts`` per
        cycle a read waited for its bank.
        """
        first = now + self.read_delay
        done = first
        for r in regs:
            b = self.bank(warp, r)
            busy = self._busy[b]
            t = first
            while busy.get(t, 0) >= self.ports:
                t += 1
            busy[t] = busy.get(t, 0) + 1
            stats.rf_reads[b] += 1
            stats.oc_bank_conflicts += t - first
            if t + 1 > done:
                done = t + 1
        if regs:
            heapq.heappush(self._release, done)
        if len(self._busy[0]) > 64 or (regs and len(busy) > 64):
            self._trim(now)
        return done

    def _trim(self, now: int) -> None:
        for i, busy in enumerate(self._busy):
            if busy:
                self._busy[i] = {t: n for t, n in busy.items() if t > now}
