"""Reference model of DARSIE's PC coalescer (seed 000 §4.3.4, Fig. 7 A).

What it does
------------
The fetch stage presents, each cycle, up to ``slots`` skip-table requests: one per warp
whose next instruction is marked TB-redundant, each a (TB slot, PC) key. Like the global
memory coalescer, but on exact matches, the PC coalescer merges requests with the same
key so that one skip-table read serves all of them, and hands at most ``ports`` distinct
keys to the skip table's read ports (§4.3.4: "reduces the port requirement on the PC skip
table to 2"; ``ports`` = 2 is the paper's design, 1 to :data:`MAX_PORTS` are built for the
port sensitivity of issue 13). It stores nothing (purely combinational, latency 0).

Selection (shared with :class:`rtl.darsie.coalescer.PCCoalescer`)
----------------------------------------------------------------
Port 0 takes the key of the lowest-numbered valid slot and serves every valid slot with
that key (``port0_slots`` bitmask); port ``k`` takes the key of the lowest-numbered valid
slot served by none of ports 0..k-1 and serves every remaining slot with that key. Valid
slots served by no port are reported in ``leftover`` (they retry next cycle). Unused
ports output 0; the interface always has :data:`MAX_PORTS` port outputs, those at or
above ``ports`` are constant 0.

The number of slots examined per cycle is not given in the paper; 8 is our default (one
fetch-scheduler window), ``slots`` = 32 covers every warp of a TB.

Request ports are packed: slot ``i``'s TB is ``req_tb[i*tb_width +: tb_width]`` and its PC
``req_pc[i*pc_width +: pc_width]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from golden.errors import SimtlabError

from golden.structures._check import fits, param_int, width_of
from golden.structures.ports import OutputPorts

__all__ = ["CoalescerParams", "CoalescerOps", "CoalescerOutputs", "CoalescedPort", "PCCoalescer"]

STRUCT = "pc_coalescer"
#: Read ports of the interface (the port-sensitivity sweep goes to 4).
MAX_PORTS = 4


@dataclass(frozen=True)
class CoalescerParams:
    """Sizes of the PC coalescer.

    Attributes
    ----------
    slots : int
        Requests examined per cycle (our assumption: 8).
    tbs : int
        TB slots of the SM (32); the TB field is ``ceil(log2(tbs))`` bits.
    pc_width : int
        PC width (48).
    ports : int
        Skip-table read ports granted per cycle (the paper: 2; 1 to :data:`MAX_PORTS`).
    """

    slots: int = 8
    tbs: int = 32
    pc_width: int = 48
    ports: int = 2

    def __post_init__(self):
        param_int(STRUCT, "slots", self.slots, 1)
        param_int(STRUCT, "tbs", self.tbs, 1)
        param_int(STRUCT, "pc_width", self.pc_width, 1)
        param_int(STRUCT, "ports", self.ports, 1, MAX_PORTS)

    @property
    def tb_width(self) -> int:
        return width_of(self.tbs)


@dataclass(frozen=True)
class CoalescerOps:
    """Requests of one cycle (RTL input ports; ``req_tb``/``req_pc`` packed per slot)."""

    req_valid: int = 0
    req_tb: int = 0
    req_pc: int = 0


@dataclass(frozen=True)
class CoalescerOutputs(OutputPorts):
    """Every RTL output port in one cycle (ports at or above ``params.ports`` stay 0)."""

    port0_valid: int = 0
    port0_tb: int = 0
    port0_pc: int = 0
    port0_slots: int = 0
    port1_valid: int = 0
    port1_tb: int = 0
    port1_pc: int = 0
    port1_slots: int = 0
    port2_valid: int = 0
    port2_tb: int = 0
    port2_pc: int = 0
    port2_slots: int = 0
    port3_valid: int = 0
    port3_tb: int = 0
    port3_pc: int = 0
    port3_slots: int = 0
    leftover: int = 0

    def port(self, k: int) -> tuple[int, int, int, int]:
        """``(valid, tb, pc, slots)`` of read port ``k``."""
        return tuple(getattr(self, f"port{k}_{f}") for f in ("valid", "tb", "pc", "slots"))


class CoalescedPort(NamedTuple):
    """One skip-table read the coalescer issues: key and the slots it serves."""

    tb: int
    pc: int
    slots: int


class PCCoalescer:
    """PC coalescer (see module docstring). Stateless; ``recorder`` records :meth:`step`."""

    def __init__(self, params: CoalescerParams | None = None, *, recorder=None,
                 check: bool = True):
        params = CoalescerParams() if params is None else params
        if not isinstance(params, CoalescerParams):
            raise SimtlabError(f"{STRUCT}: expected CoalescerParams, not {type(params).__name__}")
        self._params = params
        self._recorder = recorder
        # Range checks of the per-event requests; a simulator that builds in-range
        # requests may turn them off, except while a recorder writes a trace.
        self._checked = check or recorder is not None

    @property
    def params(self) -> CoalescerParams:
        return self._params

    def coalesce(self, requests: list[tuple[int, int] | None]) -> tuple[list[CoalescedPort], int]:
        """Per-event form: ``requests[i]`` is slot ``i``'s (tb, pc) or None.

        Returns (the reads issued, at most ``ports``, in port order; bitmask of leftover
        slots).
        """
        p = self._params
        if len(requests) > p.slots:
            raise SimtlabError(f"{STRUCT}: {len(requests)} requests for {p.slots} slots")
        if not self._checked:
            valid = 0
            for i, req in enumerate(requests):
                if req is not None:
                    valid |= 1 << i
            ports, leftover = self._combine(requests, valid)
            return [CoalescedPort(tb, pc, slots) for v, tb, pc, slots in ports if v], leftover
        valid = tb = pc = 0
        for i, req in enumerate(requests):
            if req is None:
                continue
            valid |= 1 << i
            tb |= fits(STRUCT, "tb", req[0], p.tb_width) << (i * p.tb_width)
            pc |= fits(STRUCT, "pc", req[1], p.pc_width) << (i * p.pc_width)
        out = self.step(CoalescerOps(req_valid=valid, req_tb=tb, req_pc=pc))
        ports = []
        for k in range(p.ports):
            v, ptb, ppc, slots = out.port(k)
            if v:
                ports.append(CoalescedPort(ptb, ppc, slots))
        return ports, out.leftover

    def step(self, ops: CoalescerOps) -> CoalescerOutputs:
        """Combine one cycle of requests; return every RTL output."""
        p = self._params
        if not isinstance(ops, CoalescerOps):
            raise SimtlabError(f"{STRUCT}.step: expected CoalescerOps, not {type(ops).__name__}")
        fits(STRUCT, "req_valid", ops.req_valid, p.slots)
        fits(STRUCT, "req_tb", ops.req_tb, p.slots * p.tb_width)
        fits(STRUCT, "req_pc", ops.req_pc, p.slots * p.pc_width)
        keys = [((ops.req_tb >> (i * p.tb_width)) & ((1 << p.tb_width) - 1),
                 (ops.req_pc >> (i * p.pc_width)) & ((1 << p.pc_width) - 1))
                for i in range(p.slots)]
        ports, remaining = self._combine(keys, ops.req_valid)
        fields_ = {"leftover": remaining}
        for k, (v, ptb, ppc, slots) in enumerate(ports):
            fields_.update({f"port{k}_valid": v, f"port{k}_tb": ptb, f"port{k}_pc": ppc,
                            f"port{k}_slots": slots})
        out = CoalescerOutputs(**fields_)
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out

    def _combine(self, keys: list, valid: int) -> tuple[list[tuple], int]:
        """Grant the ports: each takes the lowest remaining valid slot's key and serves
        every remaining slot with the same key. Returns ([(valid, tb, pc, slots)] per
        port, leftover slots)."""
        remaining = valid
        ports = []
        for _ in range(self._params.ports):
            if not remaining:
                ports.append((0, 0, 0, 0))
                continue
            first = (remaining & -remaining).bit_length() - 1
            key = keys[first]
            served = 0
            rest = remaining
            while rest:
                low = rest & -rest
                if keys[low.bit_length() - 1] == key:
                    served |= low
                rest ^= low
            remaining &= ~served
            ports.append((1, key[0], key[1], served))
        return ports, remaining
