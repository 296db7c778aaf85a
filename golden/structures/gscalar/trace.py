"""Register write/read traces of real kernels, for the G-Scalar bank cosimulation.

:func:`record_register_trace` runs a workload on the golden functional model with an
instruction observer (:mod:`golden.simt.observer`) and keeps, for a few warps, every
read and write of a 32-bit register (a 64-bit register counts as two 32-bit registers,
low then high word, as in a real register file; predicates and 16-bit registers are not
kept). Each kept register gets a slot of one bank (first come first served, never
reused, so a slot is zero until its register is first written, as the golden model's
registers are); once ``registers`` slots are taken, later registers are skipped.

:func:`bank_cycles` turns a trace into the cycles a
:class:`~golden.structures.gscalar.bank.CompressedBank` runs for it (compression, the
special move before a divergent write to a compressed register, decompressed reads),
with the value each read must return.

``run_workload`` has no ``observers`` parameter, so the recorder hands it a device whose
kernels are launched with the observer attached (:class:`_ObservingDevice`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from golden.errors import SimtlabError
from golden.ptx.ir import Reg
from golden.structures.gscalar.bank import BankOps, BankOutputs, CompressedBank
from golden.structures.gscalar.params import GScalarParams

__all__ = ["RegisterTrace", "record_register_trace", "bank_cycles", "TraceCycle"]

#: Event kinds of a trace.
WRITE, READ = 0, 1


@dataclass
class RegisterTrace:
    """Ordered register accesses of a few warps of one workload run.

    ``kind[i]`` is :data:`WRITE` or :data:`READ`; ``slot[i]`` the bank register;
    ``values[i]`` the 32 lane values (after the write / as read, all lanes);
    ``mask[i]`` the writer's active mask (all ones for reads).
    """

    workload: str
    kind: np.ndarray
    slot: np.ndarray
    values: np.ndarray
    mask: np.ndarray

    def __len__(self) -> int:
        return len(self.kind)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, workload=np.array(self.workload), kind=self.kind,
                            slot=self.slot, values=self.values, mask=self.mask)
        return path

    @classmethod
    def load(cls, path: str | Path) -> "RegisterTrace":
        with np.load(Path(path)) as f:
            return cls(str(f["workload"]), f["kind"], f["slot"], f["values"], f["mask"])


class _Recorder:
    """Observer keeping the register accesses of the tracked warps."""

    def __init__(self, warps: tuple[int, ...], registers: int, max_events: int):
        self.warps = set(warps)
        self.registers = registers
        self.max_events = max_events
        self.launch = -1
        self.slots: dict[tuple, int] = {}
        self.kind: list[int] = []
        self.slot: list[int] = []
        self.values: list[np.ndarray] = []
        self.mask: list[int] = []

    def on_launch_begin(self, info=None) -> None:
        self.launch += 1

    def _words(self, vals: np.ndarray):
        """The 32-bit words of a register row: [(part, uint32 lanes)] or [] if not kept."""
        size = vals.dtype.itemsize
        if vals.dtype == bool or size not in (4, 8):
            return []
        raw = vals.view(np.uint32 if size == 4 else np.uint64)
        if size == 4:
            return [(0, raw.astype(np.uint32))]
        return [(0, (raw & 0xFFFFFFFF).astype(np.uint32)), (1, (raw >> 32).astype(np.uint32))]

    def _slot(self, key) -> int | None:
        if key not in self.slots:
            if len(self.slots) >= self.registers:
                return None
            self.slots[key] = len(self.slots)
        return self.slots[key]

    def _add(self, kind: int, key, row: np.ndarray, mask: int) -> None:
        if len(self.kind) >= self.max_events:
            return
        slot = self._slot(key)
        if slot is None:
            return
        self.kind.append(kind)
        self.slot.append(slot)
        self.values.append(row)
        self.mask.append(mask)

    def on_exec(self, event) -> None:
        if len(self.kind) >= self.max_events:
            return
        for row, warp in enumerate(event.warps):
            if int(warp) not in self.warps:
                continue
            for operand, vals in event.srcs:
                if isinstance(operand, Reg):
                    for part, words in self._words(np.asarray(vals)[row]):
                        self._add(READ, (self.launch, int(warp), operand.name, part), words,
                                  (1 << 32) - 1)
            active = np.asarray(event.active)[row]
            mask = int(sum(1 << i for i, a in enumerate(active) if a))
            for reg, vals in event.dsts:
                for part, words in self._words(np.asarray(vals)[row]):
                    self._add(WRITE, (self.launch, int(warp), reg.name, part), words, mask)


class _ObservingKernel:
    def __init__(self, kernel, observer):
        self._kernel, self._observer = kernel, observer

    def __call__(self, grid, block, args=(), shared_mem: int = 0, observers=()):
        return self._kernel(grid, block, args, shared_mem,
                            observers=(*observers, self._observer))

    def __getattr__(self, attr):
        return getattr(self._kernel, attr)


class _ObservingModule:
    def __init__(self, module, observer):
        self._module, self._observer = module, observer

    def get_function(self, name: str):
        return _ObservingKernel(self._module.get_function(name), self._observer)

    def __getattr__(self, attr):
        return getattr(self._module, attr)


class _ObservingDevice:
    """A functional :class:`golden.host.Device` whose kernels run with one extra observer."""

    def __init__(self, observer):
        from golden.host import Device
        self._device, self._observer = Device(), observer

    def load_module(self, *args, **kwargs):
        return _ObservingModule(self._device.load_module(*args, **kwargs), self._observer)

    def __getattr__(self, attr):
        return getattr(self._device, attr)


def record_register_trace(workload: str, *, size: str = "small", seed: int = 0,
                          warps: tuple[int, ...] = (0, 1), registers: int = 64,
                          max_events: int = 2000) -> RegisterTrace:
    """Run *workload* functionally and record the register accesses of *warps*.

    Raises SimtlabError when the run's outputs differ from the workload's reference or
    when nothing was recorded.
    """
    from golden.workloads.registry import run_workload

    rec = _Recorder(tuple(int(w) for w in warps), registers, max_events)
    run = run_workload(workload, size, seed, device=_ObservingDevice(rec))
    bad = run.mismatches()
    if bad:
        raise SimtlabError(f"gscalar trace of {workload}: outputs differ from the reference: {bad[0]}")
    if not rec.kind:
        raise SimtlabError(f"gscalar trace of {workload}: no register access of warps {warps} recorded")
    return RegisterTrace(workload, np.array(rec.kind, dtype=np.uint8),
                         np.array(rec.slot, dtype=np.int32),
                         np.stack(rec.values).astype(np.uint32),
                         np.array(rec.mask, dtype=np.uint64))


@dataclass(frozen=True)
class TraceCycle:
    """One bank cycle of a replayed trace; ``expect`` = lanes the decompressed read must give."""

    ops: BankOps
    outputs: BankOutputs
    expect: np.ndarray | None


def bank_cycles(trace: RegisterTrace, params: GScalarParams) -> tuple[list[TraceCycle], CompressedBank]:
    """Replay *trace* on a fresh golden bank; return its cycles and the bank.

    Every read is checked here already: its decompressed value must equal the recorded
    value (else SimtlabError). ``params.lanes`` must be 32 (warp width of the traces).
    """
    if params.lanes != 32:
        raise SimtlabError(f"gscalar trace replay needs lanes=32, not {params.lanes}")
    if len(trace) and int(trace.slot.max()) >= params.registers:
        raise SimtlabError(f"gscalar trace of {trace.workload} uses {int(trace.slot.max()) + 1} "
                           f"registers, the bank has {params.registers}")
    bank = CompressedBank(params)
    cycles: list[TraceCycle] = []
    for i in range(len(trace)):
        reg, vals = int(trace.slot[i]), trace.values[i]
        if trace.kind[i] == WRITE:
            for ops, out in bank.write_warp(reg, vals, int(trace.mask[i])):
                cycles.append(TraceCycle(ops, out, None))
        else:
            got = bank.read_warp(reg)
            if not np.array_equal(got.values, vals):
                raise SimtlabError(f"gscalar trace of {trace.workload}, event {i}: register slot "
                                   f"{reg} reads back {got.values.tolist()}, recorded {vals.tolist()}")
            cycles.append(TraceCycle(got.ops, got.outputs, vals))
    return cycles, bank
