"""Energy of the uniform-vector structures (seed 002 ch. 2, §2.6.2; Table 2 constants).

The baseline energy model (golden/timing/energy.py) already sees what the mechanism
removed: register reads and writes that moved to one VRF lane or to the SRF are not
counted as warp-wide bank accesses (``on_operand_read`` / ``on_writeback``), scalarised
instructions charge one lane (two with reliability) to the ALU, and IRB hits none. This
module prices what the mechanism *added*, from its ``uv.*`` counters:

=====================  ==========================================  ===================
term                   events                                      energy per event
=====================  ==========================================  ===================
VRF lane read          ``uv.vrf_lane_reads`` (token design)         2.46 pJ (Table 2)
VRF lane write         ``uv.vrf_lane_writes`` (scalar results)      5.82 pJ (Table 2)
SRF read / write       ``uv.srf_reads`` / ``uv.srf_writes``         0.176 / 0.162 pJ
copy-on-write          ``uv.cow_vrf_writes`` (a full vector write)  config ``rf_write``
IRB lookup / update    ``uv.irb_lookups`` / ``uv.irb_misses +       1.0 / 1.0 pJ
                       irb_mismatches``                             (estimate)
SRF leakage            SM-seconds (SRF design)                      0.001 W/SM (Table 2)
IRB leakage            SM-seconds (inter / combined)                0.0003 W/SM
                                                                    (estimate)
=====================  ==========================================  ===================

Table 2 gives two per-access numbers per structure without saying which is the read
(paper-facts §2.9 ⚠); we read them as read / write, as the baseline's ``rf_read`` /
``rf_write`` do. The IRB is not in Table 2: a lookup compares 8 x 18 tag+opcode bits and
reads one 149-bit entry, a write writes one; we charge each like ~6 SRF 32-bit accesses
(1 pJ), an estimate. Its leakage is the SRF's scaled by bits (1,192 / 4,096 x 0.001 W).

With ``energy.structures: rtl`` (issue 69; :func:`energy_params`) an IRB lookup and an IRB
update cost what they cost on our IRB RTL on real-kernel traces (:data:`RTL_CHARGES`,
:mod:`golden.timing.rtl_energy`, scaled to 40 nm). The VRF and SRF arrays have no RTL of
their own (SRAM arrays), so their Table 2 energies stay.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from golden.timing.rtl_energy import Charge, load_rtl_energy

PJ = 1e-12

#: ``energy.structures: rtl``: the IRB operation types charged per lookup / update: the IRB
#: with 64-bit values, as the mechanism records it on real kernels (synth target
#: ``uv_irb_8_v64``; a lookup cycle ``lk_en``, an update cycle ``up_en``).
RTL_CHARGES = {"irb_lookup_pj": Charge("uv_irb_8_v64", "lk_en"),
               "irb_update_pj": Charge("uv_irb_8_v64", "up_en")}


@dataclass(frozen=True)
class UVEnergyParams:
    """Energy constants of the UV structures (see module docstring for sources)."""

    vrf_lane_read_pj: float = 2.46
    vrf_lane_write_pj: float = 5.82
    srf_read_pj: float = 0.176
    srf_write_pj: float = 0.162
    irb_lookup_pj: float = 1.0
    irb_update_pj: float = 1.0
    srf_leakage_w: float = 0.001
    irb_leakage_w: float = 0.001 * 1192 / 4096


def uv_energy(counters: dict, *, sm_cycles: int, clock_mhz: float, rf_write_pj: float,
              design: str, irb: bool, params: UVEnergyParams | None = None) -> dict:
    """Joules the UV structures add to a run: ``{"dynamic", "static", "terms"}``.

    ``counters`` are the run's mechanism counters (``uv.*`` keys), ``sm_cycles`` its
    active SM-cycles (``TimingStats.sm_cycles``), ``rf_write_pj`` the configuration's
    warp-wide RF write energy (a copy-on-write writes a whole register)."""
    p = params or UVEnergyParams()

    def n(k):
        return counters.get(f"uv.{k}", 0)

    terms = {
        "vrf_lane_reads": n("vrf_lane_reads") * p.vrf_lane_read_pj * PJ,
        "vrf_lane_writes": n("vrf_lane_writes") * p.vrf_lane_write_pj * PJ,
        "srf_reads": n("srf_reads") * p.srf_read_pj * PJ,
        "srf_writes": n("srf_writes") * p.srf_write_pj * PJ,
        "cow_writes": n("cow_vrf_writes") * rf_write_pj * PJ,
        "irb_lookups": n("irb_lookups") * p.irb_lookup_pj * PJ,
        "irb_updates": (n("irb_misses") + n("irb_mismatches")) * p.irb_update_pj * PJ,
    }
    seconds = sm_cycles / (clock_mhz * 1e6)
    static = ((p.srf_leakage_w if design == "srf" else 0.0)
              + (p.irb_leakage_w if irb else 0.0)) * seconds
    terms["leakage"] = static
    return {"dynamic": sum(v for k, v in terms.items() if k != "leakage"), "static": static,
            "terms": terms}


def energy_params(config) -> UVEnergyParams:
    """The UV structure energies ``config.energy.structures`` asks for: the papers' (and
    estimated) constants of :class:`UVEnergyParams`, or with ``rtl`` the IRB's per-access
    energies of :data:`RTL_CHARGES` measured on our RTL and scaled to 40 nm."""
    if config.energy.structures != "rtl":
        return UVEnergyParams()
    table = load_rtl_energy()
    return replace(UVEnergyParams(), **{k: table.per_access_pj(c) for k, c in RTL_CHARGES.items()})
