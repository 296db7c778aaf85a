"""DAC-IDEAL without unstructured redundancy: the comparison point as DARSIE §6.1 defines it.

DARSIE §6.1: DAC-IDEAL "is able to remove all affine values in both 2D and 1D applications,
but is not able to remove the unstructured redundant instructions we identify in this
paper"; unstructured redundancy (§2) is a value that is identical in every warp without a
pattern, e.g. one loaded from an affine-redundant address, and everything computed from it.

``dac-ideal`` (:mod:`golden.mechanisms.darsie.comparisons`) decides affinity from the
operand *values* of each executed instance ("float registers only when uniform"), so
arithmetic on a loaded value that happens to be uniform (a ``ld.const`` or ``ld.local`` at a
TB-uniform address) counts as affine and is removed. :class:`DacAffineOnlyMechanism` is
``dac-ideal`` with one change: an instruction whose register sources (or guard) derive from
a loaded value is never affine. :func:`loaded_value_pcs` finds them statically:
destinations of loads (except ``ld.param`` of a kernel parameter, which DAC treats as a
scalar) and of the other instructions DAC never removes (atomics, shuffles, votes, texture)
are roots, and any instruction reading a root's register, directly or through other
instructions, is tainted (flow-insensitive: a register tainted at one definition taints all
its reads, which can only remove fewer instructions).

This is the registered ``dac-ideal`` (the paper's definition is the default, issue 67
item 6); ``dac-ideal:unstructured=true`` is the value-based model we ran before
(:class:`~golden.mechanisms.darsie.comparisons.DacIdealMechanism`, cycle for cycle), and
``dac-ideal:wait_for_claimant=true`` the zero-latency experiment below.
"""

from __future__ import annotations

from golden.mechanisms.darsie.comparisons import (_NEVER, DacIdealMechanism, _leaves,
                                                  _sources)
from golden.mechanisms.darsie.frontend import full_mask
from golden.ptx.ir import Reg, Sym


def _kernel_param_load(inst, program) -> bool:
    if inst.opcode != "ld" or "param" not in inst.mods:
        return False
    names = {leaf.name for op in _sources(inst) for leaf in _leaves(op) if isinstance(leaf, Sym)}
    return bool(names) and names <= set(program.param_offsets)


def loaded_value_pcs(program, decoded) -> frozenset[int]:
    """PCs of the instructions DAC may remove (register result, not memory/control) whose
    register sources or guard derive from a loaded value (see the module docstring).
    ``decoded`` is the SM's per-slot decode (``sm.decoded``: destination register indices
    into ``sorted(program.reg_types)``)."""
    keys = sorted(program.reg_types)
    info = []
    for slot, d in zip(program.slots, decoded):
        inst = slot.inst
        if inst is None:
            continue
        dsts = {keys[i] for i in d.dsts}
        ops = list(_sources(inst))
        if inst.guard is not None:
            ops.append(inst.guard.reg)
        srcs = {slot.regs[leaf.name] for op in ops for leaf in _leaves(op)
                if isinstance(leaf, Reg) and leaf.name in slot.regs}
        root = inst.opcode in _NEVER and not _kernel_param_load(inst, program)
        info.append((slot.pc, dsts, srcs, root))
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for _pc, dsts, srcs, root in info:
            if (root or srcs & tainted) and not dsts <= tainted:
                tainted |= dsts
                changed = True
    return frozenset(pc for pc, dsts, srcs, root in info
                     if not root and dsts and srcs & tainted)


class DacAffineOnlyMechanism(DacIdealMechanism):
    """``dac-ideal`` that never removes an instruction computed from a loaded value.

    wait_for_claimant (experiment, off by default): a warp reaching the k-th instance of an
    affine PC that another warp claimed skips it only once an execution of that instance
    has written back (DARSIE's LeaderWB rule applied to the affine stream), instead of at
    once "whether or not the claimant has executed it yet"; until then its fetch is held.
    It measures how much of DAC-IDEAL's lead over DARSIE is the zero-latency idealisation.
    """

    name = "dac"

    def __init__(self, config, max_skips_per_fetch: int = 4, claim_at_fetch: bool = True,
                 wait_for_claimant: bool = False, unstructured: bool = False):
        super().__init__(config, max_skips_per_fetch=max_skips_per_fetch,
                         claim_at_fetch=claim_at_fetch)
        self.wait_for_claimant = wait_for_claimant
        self.unstructured = unstructured
        self._loaded: frozenset[int] = frozenset()
        self._done: dict[tuple, set] = {}      # (sm, tb id, pc) -> instances written back
        self._pending: dict[tuple, tuple] = {}  # (id(warp), pc) -> ((sm, tb id, pc), k)
        self._held: dict[tuple, list] = {}      # ((sm, tb id, pc), k) -> warps held at fetch

    def launch_begin(self, launch, sms) -> None:
        super().launch_begin(launch, sms)
        self._loaded = (frozenset() if self.unstructured
                        else loaded_value_pcs(launch.program, sms[0].decoded))
        self._done.clear()
        self._pending.clear()
        self._held.clear()

    def on_fetch(self, sm, w, pc: int) -> bool:
        if not self.wait_for_claimant or not self.affine.get(pc) or not full_mask(w):
            return super().on_fetch(sm, w, pc)
        t = self._tb(sm, w)
        k = t["visits"][w.widx].get(pc, 0)
        if t["exec"].get(pc, 0) > k:  # another warp claimed instance k
            key = (sm.id, w.tb.tb_id, pc)
            if k not in self._done.get(key, ()):
                w.hold_fetch = True  # released by the instance's writeback
                self._held.setdefault((key, k), []).append(w)
                sm.stats.count_mechanism("dac.claimant_waits")
                return True
        return super().on_fetch(sm, w, pc)

    def on_issue(self, sm, w, pc: int, inst):
        w.hold_fetch = False
        if pc in self._loaded:
            sm.stats.count_mechanism("dac.unstructured_kept")
            return None  # never classified affine, so never skipped
        if self.wait_for_claimant and self.candidate[pc >> 3]:
            t = self._tb(sm, w)
            k = t["visits"][w.widx].get(pc, 0)
            self._pending[(id(w), pc)] = ((sm.id, w.tb.tb_id, pc), k)
        return super().on_issue(sm, w, pc, inst)

    def on_writeback(self, sm, w, pc: int, regs: list) -> list:
        p = self._pending.pop((id(w), pc), None)
        if p is not None:
            key, k = p
            self._done.setdefault(key, set()).add(k)
            for x in self._held.pop((key, k), ()):
                x.hold_fetch = False
        return regs


def make_dac_ideal(config, claim_at_fetch: bool = True, wait_for_claimant: bool = False,
                   unstructured: bool = False):
    """``dac-ideal``: DAC-IDEAL as DARSIE §6.1 defines it (no unstructured redundancy); see
    the module docstring. ``claim_at_fetch=false``: every warp that reaches an instance
    before its first execution issues executes it too (the model before issue 13).
    ``wait_for_claimant=true``: skipped instances wait for an execution's writeback.
    ``unstructured=true``: the value test alone (load-derived uniform values count), the
    model before issue 67."""
    for name, v in (("claim_at_fetch", claim_at_fetch), ("wait_for_claimant", wait_for_claimant),
                    ("unstructured", unstructured)):
        if not isinstance(v, bool):
            from golden.errors import ConfigError
            raise ConfigError(f"dac-ideal: {name} must be true or false, not {v!r}")
    return DacAffineOnlyMechanism(config, claim_at_fetch=claim_at_fetch,
                                  wait_for_claimant=wait_for_claimant, unstructured=unstructured)
