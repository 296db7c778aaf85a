"""Energy model: events counted in :class:`~golden.timing.stats.TimingStats` x per-event
energy from the configuration's ``energy`` section, plus static power x run time.

This is the GPUWattch-style accounting the seeds use (DARSIE §5 and Table 2, UV §2.5,
G-Scalar §5): dynamic energy is a sum over event classes of *count x energy per event*;
static energy is the GPU's static power times the simulated time.

Event -> constant mapping
-------------------------
================  =====================================  ===============================
component         events (``TimingStats`` counters)      constant (``config.energy``)
================  =====================================  ===============================
register_file     ``sum(rf_reads)`` warp-register reads   ``rf_read`` (pJ per read)
                  ``sum(rf_writes)`` warp-register writes ``rf_write`` (pJ per write)
alu               ``fu_lane_ops[alu]`` active lanes       ``alu_op_per_lane``
sfu               ``fu_lane_ops[sfu]`` active lanes       ``sfu_op_per_lane``
fetch_decode      ``instructions_fetched`` warp instrs    ``fetch_decode``
icache            ``icache_hits + icache_misses``         ``icache_access``
l1_shared         ``l1_hits + l1_misses +                 ``l1_shared_access``
                  shared_accesses`` transactions
l2                ``l2_hits + l2_misses`` transactions    ``l2_access``
dram              ``dram_bytes``                          ``dram_per_byte``
static            ``cycles / (clock_mhz x 1e6)`` seconds  ``static_power`` (W)
================  =====================================  ===============================

Notes: one RF "access" is a warp-wide vector register read or write of one bank
(the unit of DARSIE Table 2's 14.2/25.9 pJ). ALU and SFU energy is charged per *active*
lane, so divergence and predication lower it; the MEM pipeline's lanes have no constant
of their own (its energy is the L1/shared, L2 and DRAM terms). Instructions a mechanism
skips before fetch cost no fetch/decode energy; those it eliminates after fetch still
cost fetch/decode but no RF or execution energy. Shared-memory bank conflicts cost
energy through ``shared_accesses``, which counts every serialised pass. Mechanism
structures (skip tables, reuse buffers...) are not included here: a mechanism report adds
its own overhead terms.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from golden.configs.schema import EnergyConfig, EnergyEvent, StaticPower
from golden.errors import ConfigError
from golden.timing.stats import PIPE_ALU, PIPE_SFU, TimingStats

PJ = 1e-12

#: Components of an :class:`EnergyReport`, in report order (``static`` last).
COMPONENTS = ("register_file", "alu", "sfu", "fetch_decode", "icache", "l1_shared", "l2",
              "dram", "static")


def _rf_reads(st: TimingStats) -> int:
    return sum(st.rf_reads)


def _rf_writes(st: TimingStats) -> int:
    return sum(st.rf_writes)


def _alu_lanes(st: TimingStats) -> int:
    return st.fu_lane_ops[PIPE_ALU]


def _sfu_lanes(st: TimingStats) -> int:
    return st.fu_lane_ops[PIPE_SFU]


def _fetched(st: TimingStats) -> int:
    return st.instructions_fetched


def _icache(st: TimingStats) -> int:
    return st.icache_hits + st.icache_misses


def _l1_shared(st: TimingStats) -> int:
    return st.l1_hits + st.l1_misses + st.shared_accesses


def _l2(st: TimingStats) -> int:
    return st.l2_hits + st.l2_misses


def _dram_bytes(st: TimingStats) -> int:
    return st.dram_bytes


#: (component, event description, constant name in EnergyConfig, event counter).
DYNAMIC_TERMS = (
    ("register_file", "warp-register reads", "rf_read", _rf_reads),
    ("register_file", "warp-register writes", "rf_write", _rf_writes),
    ("alu", "active ALU lane operations", "alu_op_per_lane", _alu_lanes),
    ("sfu", "active SFU lane operations", "sfu_op_per_lane", _sfu_lanes),
    ("fetch_decode", "warp instructions fetched and decoded", "fetch_decode", _fetched),
    ("icache", "I-cache accesses", "icache_access", _icache),
    ("l1_shared", "L1 and shared-memory transactions", "l1_shared_access", _l1_shared),
    ("l2", "L2 transactions", "l2_access", _l2),
    ("dram", "DRAM bytes", "dram_per_byte", _dram_bytes),
)

#: Every constant the model reads from ``config.energy``.
REQUIRED_CONSTANTS = tuple(t[2] for t in DYNAMIC_TERMS) + ("static_power",)


@dataclass(frozen=True)
class EnergyTerm:
    """One event class: how many events, the energy per event and its source, the joules."""

    event: str
    constant: str
    count: float
    per_event: float  # pJ per event, or W for the static term
    unit: str  # "pJ" or "W"
    source: str
    joules: float

    def to_dict(self) -> dict:
        return {"event": self.event, "constant": self.constant, "count": self.count,
                "per_event": self.per_event, "unit": self.unit, "source": self.source,
                "joules": self.joules}


@dataclass(frozen=True)
class EnergyComponent:
    """Energy of one hardware component: the sum of its terms."""

    name: str
    terms: tuple

    @property
    def joules(self) -> float:
        return sum(t.joules for t in self.terms)

    def to_dict(self) -> dict:
        return {"joules": self.joules, "terms": [t.to_dict() for t in self.terms]}


@dataclass(frozen=True)
class EnergyReport:
    """Dynamic, static and total energy of a run, with the per-component breakdown."""

    components: tuple  # EnergyComponent, in COMPONENTS order
    seconds: float

    def component(self, name: str) -> EnergyComponent:
        for c in self.components:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def dynamic(self) -> float:
        """Dynamic energy in joules (every component except ``static``)."""
        return sum(c.joules for c in self.components if c.name != "static")

    @property
    def static(self) -> float:
        """Static energy in joules."""
        return sum(c.joules for c in self.components if c.name == "static")

    @property
    def total(self) -> float:
        """Dynamic plus static energy in joules."""
        return self.dynamic + self.static

    def by_component(self) -> dict:
        """``component -> joules`` in report order."""
        return {c.name: c.joules for c in self.components}

    def to_dict(self) -> dict:
        return {"dynamic_j": self.dynamic, "static_j": self.static, "total_j": self.total,
                "seconds": self.seconds,
                "components": {c.name: c.to_dict() for c in self.components}}

    def format(self) -> str:
        """A table: component, event, count, energy per event, joules, share, source."""
        total = self.total
        head = f"{'component':<14}{'event':<40}{'count':>16}{'per event':>12}" \
               f"{'energy':>13}{'share':>8}  source"
        lines = [head, "-" * len(head)]
        for c in self.components:
            for t in c.terms:
                share = t.joules / total if total else 0.0
                count = f"{t.count:,.0f}" if t.unit == "pJ" else f"{t.count:.3e} s"
                src = t.source if len(t.source) <= 60 else t.source[:57] + "..."
                lines.append(f"{c.name:<14}{t.event:<40}{count:>16}"
                             f"{t.per_event:>9.3g} {t.unit:<2}{_fmt_j(t.joules):>13}"
                             f"{share:>8.1%}  {src}")
        lines.append("-" * len(head))
        for label, value in (("dynamic", self.dynamic), ("static", self.static),
                             ("total", total)):
            lines.append(f"{label:<14}{'':<40}{'':>16}{'':>12}{_fmt_j(value):>13}"
                         f"{(value / total if total else 0.0):>8.1%}")
        return "\n".join(lines)


def _fmt_j(joules: float) -> str:
    for scale, unit in ((1.0, "J"), (1e-3, "mJ"), (1e-6, "uJ"), (1e-9, "nJ")):
        if abs(joules) >= scale:
            return f"{joules / scale:.4g} {unit}"
    return f"{joules / 1e-12:.4g} pJ"


class EnergyModel:
    """Events x per-event energy plus static power x time, for one ``EnergyConfig``."""

    def __init__(self, energy: EnergyConfig):
        self.energy = energy
        for name in REQUIRED_CONSTANTS:
            value = getattr(energy, name, None)
            want = StaticPower if name == "static_power" else EnergyEvent
            if not isinstance(value, want):
                raise ConfigError(f"energy.{name}: missing or not a {want.__name__} "
                                  f"(the energy model needs: {', '.join(REQUIRED_CONSTANTS)})")

    @staticmethod
    def required_constants() -> tuple:
        """Names of the ``config.energy`` fields this model reads."""
        return REQUIRED_CONSTANTS

    def compute(self, stats: TimingStats, config) -> EnergyReport:
        """The energy of the run ``stats`` recorded on the GPU ``config``.

        ``config`` supplies the core clock that converts ``stats.cycles`` to seconds.
        """
        by_comp = {name: [] for name in COMPONENTS}
        for comp, event, const, counter in DYNAMIC_TERMS:
            ev = getattr(self.energy, const)
            n = counter(stats)
            by_comp[comp].append(EnergyTerm(event=event, constant=const, count=n,
                                            per_event=ev.pj, unit="pJ", source=ev.source,
                                            joules=n * ev.pj * PJ))
        clock_hz = config.core.clock_mhz * 1e6
        seconds = stats.cycles / clock_hz
        sp = self.energy.static_power
        by_comp["static"].append(EnergyTerm(
            event=f"run time ({stats.cycles:,} cycles at {config.core.clock_mhz:g} MHz)",
            constant="static_power", count=seconds, per_event=sp.watts, unit="W",
            source=sp.source, joules=sp.watts * seconds))
        return EnergyReport(
            components=tuple(EnergyComponent(name, tuple(by_comp[name])) for name in COMPONENTS),
            seconds=seconds)


def energy_constants(energy: EnergyConfig) -> dict:
    """``constant -> (value, unit, source)`` of an energy section, in schema order."""
    out = {}
    for f in fields(energy):
        v = getattr(energy, f.name)
        if isinstance(v, StaticPower):
            out[f.name] = (v.watts, "W", v.source)
        else:
            out[f.name] = (v.pj, "pJ", v.source)
    return out
