"""Dynamic energy of DARSIE's own structures (seed 000 §6.1: 0.95% of dynamic energy).

DARSIE prices its PC skip table, majority-path mask, rename and version tables with
CACTI 7.0 but publishes no per-access value. We charge every transaction the mechanism
makes on the golden structures by the bits it touches:

* a **search** compares a key with every stored tag of the bank (the skip table's PC
  tags of one TB, the rename table's register tags, the version table's <reg, version>
  keys, the PC coalescer's requests against its port keys);
* a **read** or **write** touches the named fields of one entry (or a column of bits,
  e.g. one warp's renamed bits when it leaves the majority path);

at the per-bit energies of ``structure_energy.yaml`` (the 40 nm scalar RF of seed 002
Table 2, the smallest SRAM with published numbers among the seeds; a searched bit costs
one read bit, a lower bound for a CAM). The bits each transaction touches follow from the
structures' parameters (:func:`transaction_bits`), so the sensitivity runs (more entries)
pay for their larger structures.

With ``energy.structures: rtl`` (issue 69) the skip table, version table and PC coalescer
are instead charged per call, at the energy of the matching operation type measured on our
RTL on real-kernel traces (:data:`RTL_CHARGES`, :mod:`golden.timing.rtl_energy`, scaled to
16 nm); the rename table and the physical-register freelist, which have no trace energy at
their synthesised sizes, keep the per-bit constants.

:class:`Metered` wraps a structure so each call of a priced method adds its bits to a
:class:`BitTally`; the mechanism turns the tally into ``darsie.bits.<structure>.<kind>``
counters and ``darsie.energy_pj.<structure>`` picojoules at the end of a launch, which the
energy model charges as the ``mechanism_structures`` component
(:func:`golden.timing.energy.mechanism_structure_terms`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import golden


from golden.configs.sourced import load_sourced
from golden.errors import ConfigError
from golden.timing.rtl_energy import Charge, RTLEnergyTable

#: beside this module's source (found through the package: compiled, this module's own
#: ``__file__`` is in the out-of-tree build directory)
DEFAULT_PATH = Path(golden.__file__).parent / "mechanisms" / "darsie" / "structure_energy.yaml"
KINDS = ("search", "read", "write")


@dataclass(frozen=True)
class StructureEnergyParams:
    """Picojoules per bit read, written, or compared in a search."""

    read_pj_per_bit: float = 0.0055
    write_pj_per_bit: float = 0.00506
    search_pj_per_bit: float = 0.0055

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise ConfigError(f"darsie structure energy.{f.name}: must be a non-negative "
                                  f"number, not {v!r}")

    def pj(self, search: int, read: int, write: int) -> float:
        return (search * self.search_pj_per_bit + read * self.read_pj_per_bit
                + write * self.write_pj_per_bit)


def load_params(path: str | Path | None = None) -> StructureEnergyParams:
    """Read ``structure_energy.yaml`` (``key: {value, source}``); clear errors name the key."""
    return load_sourced(path if path is not None else DEFAULT_PATH, StructureEnergyParams,
                        "DARSIE's structure energy constants")


def transaction_bits(structure: str, params) -> dict:
    """``method -> (searched, read, written)`` bits of each priced call of one structure
    (``params`` is the structure's parameter dataclass). The coalescer's ``coalesce`` is
    priced per request (its key compared with each read port's key)."""
    if structure == "skip_table":
        t, w, pcw = params.entries, params.warps, params.pc_width
        flags = 3                                  # IsLoad, LeaderWB, Sync
        return {
            "probe": (t * pcw, w + flags, 0),      # PC tags searched; mask and flags read
            "alloc": (t * pcw, 0, pcw + w + flags),
            "arrive": (0, 2 * w, w),               # mask and majority read, mask written
            "leader_wb": (0, 0, 1),
            "invalidate": (0, 0, 1),
            "flush_tb": (0, 0, t + w),             # valid bits, majority mask to ones
            "store": (0, t, t),                    # IsLoad bits read, valid bits cleared
            "global_atomic": (0, params.tbs * t, params.tbs * t),
            "set_majority": (0, 0, w),
            "entries_of": (0, t * w, 0),           # every entry's mask (majority shrank)
        }
    if structure == "rename_table":
        e, r, v, w = params.entries, params.reg_width, params.version_width + 1, params.warps
        return {
            "lookup": (e * r, v, 0),
            "set": (e * r, v, v),
            "drop": (e * r, v, 1),
            "clear_warp": (0, 0, e),
            "flush": (0, 0, e * w),
        }
    if structure == "version_table":
        e, k, p = params.entries, params.reg_width + params.version_width, params.phys_width
        return {
            "lookup": (e * k, p, 0),
            "insert": (e * k, 0, k + p),
            "remove": (e * k, p, 1),
            "flush": (0, 0, e),
        }
    if structure == "phys_freelist":
        return {"alloc": (0, params.entries, 1), "free": (0, 0, 1)}
    if structure == "pc_coalescer":
        key = max(1, (params.tbs - 1).bit_length()) + params.pc_width
        return {"coalesce": (params.ports * key, 0, 0)}
    raise ConfigError(f"darsie structure energy: unknown structure {structure!r}")


#: ``energy.structures: rtl``: structure -> priced method -> the RTL operation type charged per
#: call (synthesis targets of synth/targets.yaml, operation types of synth/trace_energy.py).
#: A skip-table probe is a read-port-0 cycle, alloc / arrive / leader_wb the write port's
#: ALLOC / ARRIVE / LEADER_WB; the rarer write-port and bulk operations (invalidate, flush,
#: store, global atomic, majority write, and the model's read of every mask when the
#: majority shrinks) are pooled in the traces' ``other`` cycles and charged their mean. A
#: version-table lookup uses the always-on read port (the cycles with no insert or remove,
#: ``idle``), as does a flush (the trace's operation classes have no flush type). One
#: coalescer call is one cycle of requests (``req_valid``).
_SKIP, _VT, _CO = "darsie_skip_table_32tb", "darsie_version_table_1tb", "darsie_pc_coalescer_8"
RTL_CHARGES = {
    "skip_table": {
        "probe": Charge(_SKIP, "rd0_en"), "alloc": Charge(_SKIP, "wr_op=1"),
        "arrive": Charge(_SKIP, "wr_op=2"), "leader_wb": Charge(_SKIP, "wr_op=3"),
        **{m: Charge(_SKIP, "other") for m in ("invalidate", "flush_tb", "store", "global_atomic",
                                               "set_majority", "entries_of")}},
    "version_table": {"lookup": Charge(_VT, "idle"), "insert": Charge(_VT, "ins_en"),
                      "remove": Charge(_VT, "rm_en"), "flush": Charge(_VT, "idle")},
    "pc_coalescer": {"coalesce": Charge(_CO, "req_valid")},
}


def rtl_prices(table: RTLEnergyTable) -> dict:
    """``structure -> method -> pJ per call`` at the paper's node for :data:`RTL_CHARGES`
    (a ConfigError names a charge the table lacks)."""
    return {s: {m: table.per_access_pj(c) for m, c in methods.items()}
            for s, methods in RTL_CHARGES.items()}


class BitTally:
    """Bits searched / read / written per structure, summed over a launch, and the calls of
    each priced method (for per-call RTL energies)."""

    def __init__(self):
        self.bits: dict[str, list] = {}
        self.calls: dict[str, dict[str, list]] = {}

    def call_row(self, structure: str, method: str) -> list:
        """The one-element call count of ``structure.method`` (zeroed by :meth:`flush`)."""
        calls = self.calls.setdefault(structure, {})
        c = calls.get(method)
        if c is None:
            c = calls[method] = [0]
        return c

    def row(self, structure: str) -> list:
        """The [search, read, write] bit counts of ``structure`` (kept across
        :meth:`flush`, which zeroes it: a meter holds on to its row)."""
        b = self.bits.get(structure)
        if b is None:
            b = self.bits[structure] = [0, 0, 0]
        return b

    def add(self, structure: str, s: int, r: int, w: int) -> None:
        b = self.row(structure)
        b[0] += s
        b[1] += r
        b[2] += w

    def flush(self, stats, prefix: str, energy: StructureEnergyParams,
              rtl: dict | None = None) -> None:
        """Add ``<prefix>.bits.<structure>.<kind>`` and ``<prefix>.energy_pj.<structure>``
        to ``stats`` and start over. With ``rtl`` (:func:`rtl_prices`) its structures are
        charged per call instead of per bit, and ``<prefix>.calls.<structure>.<method>``
        are added too."""
        for name in sorted(self.bits):
            s, r, w = self.bits[name]
            for kind, n in zip(KINDS, (s, r, w)):
                if n:
                    stats.count_mechanism(f"{prefix}.bits.{name}.{kind}", n)
            calls = self.calls.get(name, {})
            if rtl is not None and name in rtl:
                pj = 0.0
                for method in sorted(calls):
                    n = calls[method][0]
                    if n:
                        stats.count_mechanism(f"{prefix}.calls.{name}.{method}", n)
                        pj += n * rtl[name][method]
            else:
                pj = energy.pj(s, r, w)
            if pj:
                stats.count_mechanism(f"{prefix}.energy_pj.{name}", pj)
            self.bits[name][:] = [0, 0, 0]
            for c in calls.values():
                c[0] = 0


def _meter(fn, structure: str, method: str, cost: tuple, tally: BitTally, per_item: bool):
    s, r, w = cost
    b = tally.row(structure)
    c = tally.call_row(structure, method)
    if per_item:
        def call(items, *a, **k):
            n = 0
            for x in items:
                if x is not None:
                    n += 1
            b[0] += s * n
            b[1] += r * n
            b[2] += w * n
            c[0] += 1
            return fn(items, *a, **k)
    else:
        def call(*a, **k):
            b[0] += s
            b[1] += r
            b[2] += w
            c[0] += 1
            return fn(*a, **k)
    return call


class Metered:
    """A golden structure whose priced methods add their bits to ``tally`` on every call;
    every other attribute is the structure's own."""

    def __init__(self, obj, structure: str, tally: BitTally):
        self._obj = obj
        priced = transaction_bits(structure, obj.params)
        for name, cost in priced.items():
            setattr(self, name, _meter(getattr(obj, name), structure, name, cost, tally,
                                       per_item=name == "coalesce"))
        # the structure's other public methods, bound once (not looked up through
        # __getattr__ on every call); properties and data stay live through __getattr__
        for name in dir(type(obj)):
            if name.startswith("_") or name in priced:
                continue
            if callable(getattr(type(obj), name, None)):
                setattr(self, name, getattr(obj, name))

    def __getattr__(self, name):
        return getattr(self._obj, name)
