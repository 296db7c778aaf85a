"""Invariants of the RTL structures as Amaranth ``Assert`` / ``Assume`` / ``Cover`` statements.

A structure states its invariants in its own ``elaborate`` next to the logic they constrain,
but only when it is elaborated for a :class:`PropertyPlatform`::

    fv = properties(platform)
    if fv is not None:
        fv.check(m, self.free_count == n_free, "free_count equals the free entries")

With the ordinary platform (``None``: ``make synth``, ``make verilog``, the cocotb export) no
property is emitted, so netlists and areas are unchanged. The same statements are checked by
the formal flow (``make formal``: RTLIL -> SymbiYosys, k-induction / BMC / cover, see
``tb/formal`` and docs/formal.md) and by the Amaranth simulator (pysim raises
``AssertionError`` on a violated ``Assert``), elaborated via :func:`with_properties`.

The platform records every property it emitted (kind, structure, name, source line) so the
formal flow can report one row per property and map a solver's failing source line back to
its name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amaranth.hdl import Assert, Assume, Cover, Elaboratable, Fragment

__all__ = ["PropertyPlatform", "Property", "properties", "with_properties"]


@dataclass(frozen=True)
class Property:
    """One emitted property: its kind, owner, readable name and source location."""

    kind: str          # "assert", "assume" or "cover"
    structure: str     # class name of the structure (or harness) that stated it
    name: str
    src_file: str
    src_line: int


@dataclass
class PropertyPlatform:
    """Elaboration platform that asks structures to emit their properties.

    Stores the list of emitted properties; holds no other state (one instance per run).
    """

    emitted: list[Property] = field(default_factory=list)
    exposed: dict[int, dict] = field(default_factory=dict)

    def expose(self, owner, **signals) -> None:
        """Make internal state of ``owner`` readable by a harness (``state_of``)."""
        self.exposed.setdefault(id(owner), {}).update(signals)

    def state_of(self, owner) -> dict:
        """The internal signals ``owner`` exposed when it was elaborated."""
        return self.exposed[id(owner)]

    def _emit(self, m, ctor, kind, owner, test, name, domain):
        stmt = ctor(test, name, src_loc_at=2)
        m.d[domain] += stmt
        src_file, src_line = stmt.src_loc
        self.emitted.append(Property(kind, _owner_name(owner), name, src_file, src_line))
        return stmt

    def check(self, m, test, name: str, *, owner=None, domain: str = "sync"):
        """``Assert(test)``: an invariant of ``owner`` (a structure instance or a name)."""
        return self._emit(m, Assert, "assert", owner, test, name, domain)

    def assume(self, m, test, name: str, *, owner=None, domain: str = "sync"):
        """``Assume(test)``: an environment (input protocol) constraint."""
        return self._emit(m, Assume, "assume", owner, test, name, domain)

    def cover(self, m, test, name: str, *, owner=None, domain: str = "sync"):
        """``Cover(test)``: a corner that must be reachable."""
        return self._emit(m, Cover, "cover", owner, test, name, domain)

    def past(self, m, value, name: str):
        """A register holding ``value`` of the previous cycle (0 after reset)."""
        from amaranth.hdl import Signal, Value
        value = Value.cast(value)
        reg = Signal(len(value), name=f"past_{name}")
        m.d.sync += reg.eq(value)
        return reg

    def of(self, kind: str) -> list[Property]:
        return [p for p in self.emitted if p.kind == kind]


def _owner_name(owner) -> str:
    if owner is None:
        return "harness"
    if isinstance(owner, str):
        return owner
    return type(owner).__name__


def properties(platform) -> PropertyPlatform | None:
    """The property platform if ``platform`` asks for properties, else ``None``."""
    return platform if isinstance(platform, PropertyPlatform) else None


class _Elaborated(Elaboratable):
    def __init__(self, top, platform):
        self._top, self._platform = top, platform

    def elaborate(self, platform):
        return Fragment.get(self._top, self._platform)


def with_properties(top, platform: PropertyPlatform | None = None) -> Elaboratable:
    """``top`` elaborated with its properties, for ``amaranth.sim.Simulator``."""
    return _Elaborated(top, platform if platform is not None else PropertyPlatform())
