"""SMs that hold thread blocks of several kernels at once (GPGPU-Sim's
``-gpgpu_concurrent_kernel_sm``), for concurrent kernel execution
(:meth:`golden.timing.gpu.GPU.run_partitions` with ``mixed_sms=True``).

Each launch keeps its own :class:`~golden.timing.sm.SM` object per SM id (its program,
statistics and mechanisms), but the launches resident on one physical SM share what the
hardware has once (:class:`PhysicalSM`):

* **TB resources** -- TB slots, threads, warp slots, registers and shared memory: a TB of
  any kernel is placed only if it fits what the TBs of *every* kernel on the SM leave free
  (:meth:`MixedSMSharing.fits`); the warp slots are one free list, so slot ids (register
  banks, scheduler assignment) never collide;
* **execution** -- the pipelines (one object per class, so a unit busy with one kernel's
  warp is busy for the other's), the operand collector's units and register banks, and the
  issue slots: at most ``num_schedulers_per_sm x issue_width`` warp instructions issue per
  cycle on the SM, whichever kernel they belong to (:class:`SharedSMCollector`);
* **L1 / constant cache** -- the memory hierarchy's caches are per SM id already; they are
  never emptied while kernels share the SM.

Which kernel issues when both have a ready warp: the launches tick in partition order, and
a kernel that issued in the previous cycle while another kernel's ready warp was refused
the slot yields it this cycle (round robin between kernels, as GPGPU-Sim's schedulers see
the warps of every kernel in one list; the chapter's baseline scheduler is round robin).

Which kernel places the next TB (GPGPU-Sim's ``simt_core_cluster::issue_block2core`` with
the option on asks ``gpgpu_sim::select_kernel`` for every TB): the kernel that placed a TB
last keeps the dispatcher while it has TBs left; only then do the others place TBs, in
partition order after it (:meth:`MixedSMSharing.may_dispatch`).

Simplifications: fetch, the instruction cache, the memory port and the write-back port stay
per launch (two kernels on one SM each fetch and each send a memory access per cycle);
partial-TB dispatch mechanisms are not supported on mixed SMs.
"""

from __future__ import annotations

from golden.errors import LaunchError
from golden.timing.operand_collector import OperandCollector

__all__ = ["IssueGate", "SharedSMCollector", "PhysicalSM", "MixedSMSharing"]


class IssueGate:
    """The issue slots of one physical SM: ``cap`` warp instructions per cycle over all
    kernels; ``count`` issued in cycle ``cycle``; who issued / was refused last."""

    def __init__(self, cap: int):
        self.cap = cap
        self.cycle = -1
        self.count = 0
        #: key of the launch that issued last, and the cycle
        self.last_issuer = None
        self.last_issue_cycle = -1
        #: launch key -> last cycle it had a ready instruction refused for want of a slot
        self.refused: dict = {}

    def may_issue(self, key, now: int) -> bool:
        if self.cycle == now and self.count >= self.cap:
            self.refused[key] = now
            return False
        if self.last_issuer is key and self.last_issue_cycle == now - 1 and self.cycle != now:
            for k, c in self.refused.items():
                if k is not key and c == now - 1:
                    self.refused[key] = now   # yield the slot to the kernel that waited
                    return False
        return True

    def issued(self, key, now: int) -> None:
        if self.cycle != now:
            self.cycle = now
            self.count = 0
        self.count += 1
        self.last_issuer = key
        self.last_issue_cycle = now


class SharedSMCollector(OperandCollector):
    """One launch's view of a shared SM's operand collector: the collector units and bank
    reservations are the physical SM's (shared lists), and an instruction issues only when
    the SM's :class:`IssueGate` has a slot this cycle. A refusal marks the launch's
    schedulers dirty, so they try again next cycle (no event skipping past it)."""

    def __init__(self, cfg, schedulers: int, physical: "PhysicalSM", key):
        super().__init__(cfg, schedulers)
        self._busy = physical.busy
        self._release = physical.release
        self.gate = physical.gate
        self.key = key
        self.sm = None

    def free_unit(self, now: int) -> bool:
        if not self.gate.may_issue(self.key, now):
            if self.sm is not None:
                self.sm.wake_schedulers()
            return False
        return OperandCollector.free_unit(self, now)

    def read(self, now: int, warp: int, regs, stats) -> int:
        self.gate.issued(self.key, now)
        return OperandCollector.read(self, now, warp, regs, stats)


class PhysicalSM:
    """What launches sharing SM ``sm_id`` share (see the module docstring); ``residents``:
    the SM objects of the launches now on it, in the order they arrived."""

    def __init__(self, sm_id: int, proto):
        core = proto.cfg.core
        self.sm_id = sm_id
        self.cfg = proto.cfg
        self.pipes = proto.pipes
        self.busy = proto.oc._busy
        self.release = proto.oc._release
        self.free_slots = proto.free_slots
        self.gate = IssueGate(core.num_schedulers_per_sm * core.issue_width)
        self.residents: list = []


def select_kernel_order(runs: list, last) -> list:
    """``runs`` in GPGPU-Sim's ``select_kernel`` order: ``last`` (the launch that placed a
    TB last) first, then the others after it in their given order; ``runs`` unchanged when
    ``last`` is None or not among them. Both kinds of SM sharing dispatch in this order."""
    if last is None or last not in runs:
        return list(runs)
    i = runs.index(last)
    return runs[i:] + runs[:i]


class MixedSMSharing:
    """:class:`golden.timing.gpu.SMSharing`'s counterpart for SMs that hold TBs of several
    launches at once (see the module docstring)."""

    mixed = True

    def __init__(self, memory):
        self.memory = memory
        self.physical: dict = {}
        self.last_issued = None

    # -- wiring a launch's SM objects to the physical SMs
    def attach(self, kr) -> None:
        if kr._partial:
            raise LaunchError(f"kernel {kr.launch.name}: partial-TB dispatch mechanisms cannot "
                              f"run on SMs shared by several kernels (mixed_sms)")
        for sm in kr.sms:
            p = self.physical.get(sm.id)
            if p is None:
                p = self.physical[sm.id] = PhysicalSM(sm.id, sm)
            elif p.cfg.core != sm.cfg.core or p.cfg.pipelines != sm.cfg.pipelines:
                raise LaunchError(f"SM {sm.id} is shared by launches of different SM "
                                  f"configurations ({p.cfg.name}, {sm.cfg.name})")
            sm.pipes = p.pipes
            sm.free_slots = p.free_slots
            oc = SharedSMCollector(sm.cfg.register_file, sm.cfg.core.num_schedulers_per_sm,
                                   p, kr)
            oc.sm = sm
            sm.oc = oc
            p.residents.append(sm)

    def detach(self, kr) -> None:
        """``kr`` finished: its SM objects leave their physical SMs."""
        for sm in kr.sms:
            p = self.physical.get(sm.id)
            if p is not None and sm in p.residents:
                p.residents.remove(sm)
        if self.last_issued is kr:
            self.last_issued = None

    # -- the dispatcher's questions
    def may_dispatch(self, kr) -> bool:
        """GPGPU-Sim's ``select_kernel``: the last kernel to place a TB keeps the dispatcher
        while it has TBs left (a finished launch is forgotten by :meth:`detach`)."""
        last = self.last_issued
        return last is None or last is kr or last.next_tb >= last.n_tbs

    def may_use(self, kr, sm_id: int) -> bool:
        return True

    def fits(self, kr, sm) -> bool:
        """A TB of ``kr`` fits what every kernel's TBs on SM ``sm.id`` leave free."""
        core = sm.cfg.core
        tbs = threads = warps = regs = shared = 0
        for o in self.physical[sm.id].residents:
            tbs += len(o.tbs)
            threads += o.used_threads
            warps += o.used_warps
            regs += o.used_regs
            shared += o.used_shared
        return (tbs < core.max_tbs_per_sm
                and threads + kr.threads <= core.max_threads_per_sm
                and warps + kr.wpt <= core.max_warps_per_sm
                and regs + kr.regs <= core.registers_per_sm
                and shared + kr.shared <= core.shared_mem_per_sm)

    def take(self, kr, sm_id: int, now: int) -> None:
        self.last_issued = kr

    def release_idle(self, kr) -> bool:
        """Resources freed on shared SMs: the other launches may place TBs."""
        return True

    def dispatch_order(self, runs: list) -> list:
        """``runs`` in select_kernel order (:func:`select_kernel_order`)."""
        return select_kernel_order(runs, self.last_issued)

    def occupancy_now(self, sm_id: int) -> dict:
        """Resources in use on physical SM ``sm_id`` by every resident launch (for tests)."""
        out = {"tbs": 0, "threads": 0, "warps": 0, "regs": 0, "shared": 0, "kernels": set()}
        for o in self.physical[sm_id].residents:
            if o.tbs:
                out["kernels"].add(o.launch.name)
            out["tbs"] += len(o.tbs)
            out["threads"] += o.used_threads
            out["warps"] += o.used_warps
            out["regs"] += o.used_regs
            out["shared"] += o.used_shared
        return out
