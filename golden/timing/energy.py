"""Energy model in the style of GPUWattch (Leng et al., ISCA 2013) and AccelWattch (Kandiah
et al., MICRO 2021): per-component dynamic energy from event counts, SM leakage for the
cycles an SM is active, and a chip-level constant for the whole run.

    E = sum_components sum_terms count x pJ per event                     (dynamic)
      + sm_leakage [W per SM] x sm_cycles / f                              (SM leakage)
      + chip_constant [W] x cycles / f                                     (chip constant)

The counts come from :class:`~golden.timing.stats.TimingStats`, the constants (each with its
source) from the configuration's ``energy`` section (:class:`~golden.configs.schema.EnergyConfig`).

Components, events and constants
--------------------------------
==================  ============================================  ======================
component           events (``TimingStats`` counters)             constant
==================  ============================================  ======================
fetch_decode        ``instructions_fetched``                      ``fetch_decode``
icache              ``icache_hits + icache_misses`` probes         ``icache_access``
                    ``icache_misses`` line fills                   ``icache_fill``
scheduler           ``instructions_issued``                        ``scheduler_issue``
                    ``scheduler_cycles``                           ``scheduler_cycle``
register_file       ``sum(rf_reads)`` warp-register bank reads     ``rf_read``
                    ``sum(rf_writes)`` warp-register bank writes   ``rf_write``
operand_collector   ``sum(rf_reads)`` operands through the          ``rf_crossbar``
                    bank->collector crossbar, and latched in a     ``operand_collector``
                    collector unit
alu / sfu           ``fu_lane_cycles[alu]`` / ``[sfu]``: active     ``alu_op_per_lane`` /
                    lanes x instruction latency (GPUWattch counts   ``sfu_op_per_lane``
                    SP/SFU accesses as lanes x latency)
mem_pipe            ``fu_lane_ops[mem]`` active lanes (AGU)         ``mem_op_per_lane``
l1_shared           ``l1_hits + l1_misses`` sectors                 ``l1_access``
                    ``shared_accesses`` passes                      ``shared_access``
const_cache         ``const_accesses``                              ``const_access``
l2                  ``l2_hits + l2_misses`` sectors                 ``l2_access``
interconnect        ``icnt_flits``                                  ``icnt_flit``
dram                ``dram_activates`` row activations              ``dram_activate``
                    ``dram_read_bytes`` / ``dram_write_bytes``      ``dram_read_byte`` /
                                                                   ``dram_write_byte``
                    ``dram_bytes`` over the interface (I/O)         ``dram_io_byte``
mechanism_           ``<mech>.energy_pj.<structure>`` mechanism      (the mechanism's own
structures          counters: picojoules a mechanism charged for    sourced constants)
                    its own structures (only when present)
static              ``sm_cycles / f`` active SM-seconds             ``sm_leakage`` (W/SM)
                    ``cycles / f`` run time                         ``chip_constant`` (W)
==================  ============================================  ======================

Counters that other parts of the model may or may not provide yet are read with
``getattr(stats, name, None)``, and a documented fallback is used (and named in the term's
event text) when they are absent:

* ``const_accesses`` -> ``const_hits + const_misses`` -> 0;
* ``icnt_flits`` -> 2 flits (request + 32-byte reply) per L2 transaction;
* ``dram_activates`` -> one activation per DRAM request not counted in ``dram_row_hits``
  (``dram_reads + dram_writes - dram_row_hits``; closed page while ``dram_row_hits`` is
  absent). ``dram_precharges`` is not charged separately: ``dram_activate`` is the energy of
  an activate *and* its precharge;
* ``dram_read_bytes`` / ``dram_write_bytes`` -> ``dram_bytes`` split by the read/write
  request counts.

Power gating: ``sm_cycles`` is the sum over SMs of the cycles they held resident warps
(ticked or skipped while asleep, :meth:`golden.timing.sm.SM.tick` / ``account_idle``); an
SM with no thread block is not counted, so an SM that a kernel never uses costs no SM
leakage, and a run with no activity costs only the chip constant.

Granularity and what is left out: one RF access is a warp-wide (``warp_size`` x 32-bit)
register of one bank, charged whole whatever the active mask (GPUWattch charges per active
thread); ALU/SFU/AGU energy is per *active* lane, so divergence and predication lower it;
integer and fp32 ALU lanes share one constant (no int/fp lane counter yet); non-register
operands (immediates, constants) pass no crossbar here. Instructions a mechanism skips
before fetch cost nothing; those it eliminates after fetch cost front-end energy only.
Mechanism structures (skip tables, reuse buffers...) are not included: a mechanism report
adds its own terms (e.g. :func:`golden.mechanisms.gscalar.timing.energy_report`).

GPUWattch-comparable groups (:data:`GROUPS`): GPUWattch's "execution units" are the ALU/FPU
and SFU lanes (``alu + sfu``), and its register-file read coefficient includes the
crossbar, arbiter and operand collector (``register_file + operand_collector``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from golden.configs.schema import EnergyConfig, EnergyEvent, StaticPower
from golden.errors import ConfigError
from golden.timing.stats import PIPE_ALU, PIPE_MEM, PIPE_SFU, TimingStats

PJ = 1e-12

#: Components of an :class:`EnergyReport`, in report order (``static`` last).
COMPONENTS = ("fetch_decode", "icache", "scheduler", "register_file", "operand_collector",
              "alu", "sfu", "mem_pipe", "l1_shared", "const_cache", "l2", "interconnect",
              "dram", "static")

#: Component groups comparable with GPUWattch's published shares (G-Scalar §1: execution
#: units 24% and register file 16% of chip power).
GROUPS = {
    "execution_units": ("alu", "sfu"),
    "register_file_with_collectors": ("register_file", "operand_collector"),
}

#: Flits per L2 transaction when the stats have no ``icnt_flits`` counter.
FALLBACK_FLITS_PER_L2_TRANSACTION = 2


def _opt(st, name):
    """An optional counter: its value, or None if this TimingStats has no such field."""
    return getattr(st, name, None)


# Each counter function returns (count, note); ``note`` (or "") is appended to the event.
def _fetched(st, cfg):
    return st.instructions_fetched, ""


def _icache_probes(st, cfg):
    return st.icache_hits + st.icache_misses, ""


def _icache_misses(st, cfg):
    return st.icache_misses, ""


def _issued(st, cfg):
    return st.instructions_issued, ""


def _sched_cycles(st, cfg):
    return st.scheduler_cycles, ""


def _rf_reads(st, cfg):
    return sum(st.rf_reads), ""


def _rf_writes(st, cfg):
    return sum(st.rf_writes), ""


def _alu_lanes(st, cfg):
    return st.fu_lane_cycles[PIPE_ALU], ""


def _sfu_lanes(st, cfg):
    return st.fu_lane_cycles[PIPE_SFU], ""


def _mem_lanes(st, cfg):
    return st.fu_lane_ops[PIPE_MEM], ""


def _l1(st, cfg):
    return st.l1_hits + st.l1_misses, ""


def _shared(st, cfg):
    return st.shared_accesses, ""


def _const(st, cfg):
    n = _opt(st, "const_accesses")
    if n is not None:
        return n, ""
    h, m = _opt(st, "const_hits"), _opt(st, "const_misses")
    if h is not None or m is not None:
        return (h or 0) + (m or 0), " [hits + misses]"
    return 0, " [no counter in these stats]"


def _l2(st, cfg):
    return st.l2_hits + st.l2_misses, ""


def _flits(st, cfg):
    n = _opt(st, "icnt_flits")
    if n is not None:
        return n, ""
    k = FALLBACK_FLITS_PER_L2_TRANSACTION
    return k * (st.l2_hits + st.l2_misses), f" [fallback: {k} per L2 sector]"


def _activates(st, cfg):
    n = _opt(st, "dram_activates")
    if n is not None:
        return n, ""
    hits = _opt(st, "dram_row_hits")
    n = max(0, st.dram_reads + st.dram_writes - (hits or 0))
    if hits is None:
        return n, " [fallback: 1 per request]"
    return n, " [fallback: requests - row hits]"


def _rw_bytes(st):
    rb, wb = _opt(st, "dram_read_bytes"), _opt(st, "dram_write_bytes")
    if rb is not None and wb is not None:
        return rb, wb, ""
    req = st.dram_reads + st.dram_writes
    if not req:
        return 0, 0, ""
    rb = st.dram_bytes * st.dram_reads / req
    return rb, st.dram_bytes - rb, " [fallback: split by requests]"


def _dram_read_bytes(st, cfg):
    rb, _, note = _rw_bytes(st)
    return rb, note


def _dram_write_bytes(st, cfg):
    _, wb, note = _rw_bytes(st)
    return wb, note


def _dram_bytes(st, cfg):
    return st.dram_bytes, ""


#: (component, event description, constant in EnergyConfig, counter function).
DYNAMIC_TERMS = (
    ("fetch_decode", "warp instructions fetched and decoded", "fetch_decode", _fetched),
    ("icache", "I-cache probes", "icache_access", _icache_probes),
    ("icache", "I-cache line fills (misses)", "icache_fill", _icache_misses),
    ("scheduler", "warp instructions issued", "scheduler_issue", _issued),
    ("scheduler", "scheduler-cycles with resident warps", "scheduler_cycle", _sched_cycles),
    ("register_file", "warp-register bank reads", "rf_read", _rf_reads),
    ("register_file", "warp-register bank writes", "rf_write", _rf_writes),
    ("operand_collector", "operands through the bank crossbar", "rf_crossbar", _rf_reads),
    ("operand_collector", "operands latched in collector units", "operand_collector",
     _rf_reads),
    ("alu", "active ALU lane-cycles (lanes x latency)", "alu_op_per_lane", _alu_lanes),
    ("sfu", "active SFU lane-cycles (lanes x latency)", "sfu_op_per_lane", _sfu_lanes),
    ("mem_pipe", "active MEM lane address generations", "mem_op_per_lane", _mem_lanes),
    ("l1_shared", "L1 data sectors (hits + misses)", "l1_access", _l1),
    ("l1_shared", "shared-memory passes", "shared_access", _shared),
    ("const_cache", "constant-cache accesses", "const_access", _const),
    ("l2", "L2 sectors (hits + misses)", "l2_access", _l2),
    ("interconnect", "interconnect flits", "icnt_flit", _flits),
    ("dram", "DRAM row activations", "dram_activate", _activates),
    ("dram", "DRAM bytes read (arrays)", "dram_read_byte", _dram_read_bytes),
    ("dram", "DRAM bytes written (arrays)", "dram_write_byte", _dram_write_bytes),
    ("dram", "DRAM bytes over the interface", "dram_io_byte", _dram_bytes),
)

#: Constants charged per second (watts), in the ``static`` component.
STATIC_CONSTANTS = ("sm_leakage", "chip_constant")

#: Every constant the model reads from ``config.energy``.
REQUIRED_CONSTANTS = tuple(dict.fromkeys(t[2] for t in DYNAMIC_TERMS)) + STATIC_CONSTANTS


@dataclass(frozen=True)
class EnergyTerm:
    """One event class: how many events, the energy per event and its source, the joules."""

    event: str
    constant: str
    count: float
    per_event: float  # pJ per event, or W for a static term (count in seconds)
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
    """Dynamic, static and total energy of a run, with the per-component breakdown.

    ``static`` is the component named ``static`` (SM leakage + chip constant); every other
    component (including ones a mechanism report adds) is dynamic.
    """

    components: tuple  # EnergyComponent, in COMPONENTS order (mechanism reports may add)
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
        """Static energy in joules (SM leakage + chip constant)."""
        return sum(c.joules for c in self.components if c.name == "static")

    @property
    def total(self) -> float:
        """Dynamic plus static energy in joules."""
        return self.dynamic + self.static

    def term(self, constant: str) -> EnergyTerm:
        """The first term charged with ``constant`` (e.g. ``"sm_leakage"``)."""
        for c in self.components:
            for t in c.terms:
                if t.constant == constant:
                    return t
        raise KeyError(constant)

    def by_component(self) -> dict:
        """``component -> joules`` in report order."""
        return {c.name: c.joules for c in self.components}

    def shares(self) -> dict:
        """``component -> fraction of the total energy`` (zeros for an empty run)."""
        total = self.total
        return {c.name: (c.joules / total if total else 0.0) for c in self.components}

    def groups(self) -> dict:
        """Joules of the GPUWattch-comparable :data:`GROUPS` (missing components count 0)."""
        by = self.by_component()
        return {g: sum(by.get(n, 0.0) for n in names) for g, names in GROUPS.items()}

    def group_shares(self) -> dict:
        """``group -> fraction of the total energy``."""
        total = self.total
        return {g: (j / total if total else 0.0) for g, j in self.groups().items()}

    def to_dict(self) -> dict:
        return {"dynamic_j": self.dynamic, "static_j": self.static, "total_j": self.total,
                "seconds": self.seconds,
                "components": {c.name: c.to_dict() for c in self.components},
                "shares": self.shares(), "groups": self.groups(),
                "group_shares": self.group_shares()}

    def format(self) -> str:
        """Two tables: every term (count, energy per event, joules, share, source), then
        the components and the GPUWattch-comparable groups with their shares."""
        total = self.total
        head = f"{'component':<18}{'event':<56}{'count':>16}{'per event':>12}" \
               f"{'energy':>13}{'share':>8}  source"
        lines = [head, "-" * len(head)]
        for c in self.components:
            for t in c.terms:
                share = t.joules / total if total else 0.0
                count = f"{t.count:,.0f}" if t.unit == "pJ" else f"{t.count:.3e} s"
                src = t.source if len(t.source) <= 60 else t.source[:57] + "..."
                lines.append(f"{c.name:<18}{t.event[:55]:<56}{count:>16}"
                             f"{t.per_event:>9.3g} {t.unit:<2}{_fmt_j(t.joules):>13}"
                             f"{share:>8.1%}  {src}")
        lines.append("-" * len(head))
        for label, value in (("dynamic", self.dynamic), ("static", self.static),
                             ("total", total)):
            lines.append(f"{label:<18}{'':<56}{'':>16}{'':>12}{_fmt_j(value):>13}"
                         f"{(value / total if total else 0.0):>8.1%}")
        lines += ["", "by component: " + ", ".join(
            f"{n} {s:.1%}" for n, s in self.shares().items()),
            "GPUWattch-comparable: " + ", ".join(
                f"{g} ({'+'.join(GROUPS[g])}) {s:.1%}" for g, s in self.group_shares().items())]
        return "\n".join(lines)


def _fmt_j(joules: float) -> str:
    for scale, unit in ((1.0, "J"), (1e-3, "mJ"), (1e-6, "uJ"), (1e-9, "nJ")):
        if abs(joules) >= scale:
            return f"{joules / scale:.4g} {unit}"
    return f"{joules / 1e-12:.4g} pJ"


class EnergyModel:
    """The component energy model for one ``EnergyConfig``."""

    def __init__(self, energy: EnergyConfig):
        self.energy = energy
        for name in REQUIRED_CONSTANTS:
            value = getattr(energy, name, None)
            want = StaticPower if name in STATIC_CONSTANTS else EnergyEvent
            if not isinstance(value, want):
                raise ConfigError(f"energy.{name}: missing or not a {want.__name__} "
                                  f"(the energy model needs: {', '.join(REQUIRED_CONSTANTS)})")

    @staticmethod
    def required_constants() -> tuple:
        """Names of the ``config.energy`` fields this model reads."""
        return REQUIRED_CONSTANTS

    def compute(self, stats: TimingStats, config) -> EnergyReport:
        """The energy of the run ``stats`` recorded on the GPU ``config``.

        ``config`` supplies the core clock that converts cycles to seconds.
        """
        by_comp = {name: [] for name in COMPONENTS}
        for comp, event, const, counter in DYNAMIC_TERMS:
            ev = getattr(self.energy, const)
            n, note = counter(stats, config)
            by_comp[comp].append(EnergyTerm(event=event + note, constant=const, count=n,
                                            per_event=ev.pj, unit="pJ", source=ev.source,
                                            joules=n * ev.pj * PJ))
        mhz = config.core.clock_mhz
        clock_hz = mhz * 1e6
        seconds = stats.cycles / clock_hz
        sm_seconds = stats.sm_cycles / clock_hz
        leak, const = self.energy.sm_leakage, self.energy.chip_constant
        by_comp["static"] += [
            EnergyTerm(event=f"SM leakage: {stats.sm_cycles:,} active SM-cycles at {mhz:g} MHz",
                       constant="sm_leakage", count=sm_seconds, per_event=leak.watts,
                       unit="W", source=leak.source, joules=leak.watts * sm_seconds),
            EnergyTerm(event=f"chip constant: {stats.cycles:,} cycles at {mhz:g} MHz",
                       constant="chip_constant", count=seconds, per_event=const.watts,
                       unit="W", source=const.source, joules=const.watts * seconds),
        ]
        comps = [EnergyComponent(name, tuple(by_comp[name])) for name in COMPONENTS]
        own = mechanism_structure_terms(stats)
        if own:
            comps.insert(len(comps) - 1, EnergyComponent(MECHANISM_COMPONENT, own))
        return EnergyReport(components=tuple(comps), seconds=seconds)


#: Component holding the dynamic energy mechanisms charge for their own structures.
MECHANISM_COMPONENT = "mechanism_structures"

#: Infix of a mechanism counter that holds picojoules of the mechanism's own structures:
#: ``"<mechanism>.energy_pj.<structure>"`` (e.g. ``darsie.energy_pj.skip_table``).
ENERGY_PJ = ".energy_pj."


def mechanism_structure_terms(stats: TimingStats) -> tuple:
    """Energy terms of the mechanisms' own structures: every ``<mech>.energy_pj.<structure>``
    counter of ``stats.mechanism`` (picojoules the mechanism computed from its own sourced
    per-access constants), one term each, in name order; () when there is none. The
    baseline has none, so its report is unchanged."""
    terms = []
    counters = getattr(stats, "mechanism", None) or {}
    for key in sorted(counters):
        if ENERGY_PJ not in key:
            continue
        mech, _, struct = key.partition(ENERGY_PJ)
        pj = counters[key]
        terms.append(EnergyTerm(event=f"{mech}: {struct} accesses", constant=key, count=pj,
                                per_event=1.0, unit="pJ",
                                source=f"charged by the {mech} mechanism from its own per-access "
                                       f"constants", joules=pj * PJ))
    return tuple(terms)


def energy_constants(energy: EnergyConfig) -> dict:
    """``constant -> (value, unit, source)`` of an energy section, in schema order."""
    out = {}
    for f in fields(energy):
        v = getattr(energy, f.name)
        if isinstance(v, StaticPower):
            out[f.name] = (v.watts, "W", v.source)
        elif isinstance(v, EnergyEvent):
            out[f.name] = (v.pj, "pJ", v.source)
    return out
