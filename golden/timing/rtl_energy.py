"""RTL-measured energy per access of the mechanisms' structures (issue 69, item 3).

``rtl_energy.yaml`` (beside this module) is written by ``python -m synth.energy_table``
from what ``make synth`` and ``make synth-energy`` measured on our Amaranth RTL with OpenSTA
on the osu018 (180 nm) netlists: per synthesis target, the energy of each operation type on
real-kernel traces (``trace``) and/or the activity-assumed energy of one access
(``activity_assumed``), with the tools, traces and the node-scaling rule.

With ``energy.structures: rtl`` (:class:`golden.configs.schema.EnergyConfig`) DARSIE's,
G-Scalar's and UV's energy accounting charge these numbers, scaled from 180 nm to the node
of the target's paper GPU (:meth:`RTLEnergyTable.per_access_pj`), instead of the constants
copied from the papers. A mechanism names what it charges as :class:`Charge` values; a
charge the table lacks is a :class:`~golden.errors.ConfigError` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

import golden
from golden.configs.schema import ENERGY_STRUCTURE_SOURCES as STRUCTURE_SOURCES
from golden.errors import ConfigError

#: found through the package (compiled, this module's ``__file__`` is out of tree)
DEFAULT_PATH = Path(golden.__file__).parent / "timing" / "rtl_energy.yaml"
FORMAT = "simtlab-rtl-energy/1"
#: the op name of a target's activity-assumed access
ACTIVITY_ASSUMED = "activity_assumed"


@dataclass(frozen=True)
class Charge:
    """One priced event: synthesis ``target`` and its operation type ``op`` (a traced
    operation type such as ``ins_en``, or :data:`ACTIVITY_ASSUMED`)."""

    target: str
    op: str

    def __str__(self) -> str:
        return f"{self.target}:{self.op}"


@dataclass(frozen=True)
class RTLEnergyTable:
    """The loaded table: ``targets`` as in the YAML, ``scaling`` its node-scaling rule."""

    path: str
    targets: dict
    scaling: dict
    generated: str
    tools: dict

    def _row(self, target: str) -> dict:
        row = self.targets.get(target)
        if row is None:
            raise ConfigError(f"energy.structures: rtl: {self.path} has no target {target!r} "
                              f"(it has: {', '.join(sorted(self.targets))})")
        return row

    def method(self, charge: Charge) -> str:
        """``"trace"`` or ``"activity_assumed"``: how ``charge``'s number was measured."""
        return ACTIVITY_ASSUMED if charge.op == ACTIVITY_ASSUMED else "trace"

    def pj_180nm(self, charge: Charge) -> float:
        """Energy of one ``charge`` at 180 nm (osu018), as measured."""
        row = self._row(charge.target)
        if charge.op == ACTIVITY_ASSUMED:
            entry = row.get(ACTIVITY_ASSUMED)
            pj = entry.get("pj") if isinstance(entry, dict) else None
        else:
            ops = (row.get("trace") or {}).get("ops") or {}
            if charge.op not in ops:
                have = ", ".join(sorted(ops)) or "none: no real-kernel trace at its parameters"
                raise ConfigError(f"energy.structures: rtl: {self.path}: target {charge.target!r} "
                                  f"has no traced operation {charge.op!r} (traced: {have})")
            pj = ops[charge.op].get("pj") if isinstance(ops[charge.op], dict) else None
        if isinstance(pj, bool) or not isinstance(pj, (int, float)) or pj < 0:
            raise ConfigError(f"energy.structures: rtl: {self.path}: {charge}: pj must be a "
                              f"non-negative number, not {pj!r}")
        return float(pj)

    def node_nm(self, target: str) -> float:
        """The node of ``target``'s paper GPU (the node its energies are scaled to)."""
        node = self._row(target).get("paper_node_nm")
        if isinstance(node, bool) or not isinstance(node, (int, float)) or node <= 0:
            raise ConfigError(f"energy.structures: rtl: {self.path}: target {target!r} has no "
                              f"paper_node_nm")
        return float(node)

    def scale(self, node_nm: float) -> float:
        """Factor from the measured node to ``node_nm``: (node / 180) x (vdd(node) / 1.8)^2."""
        s = self.scaling
        vdd = {float(k): float(v) for k, v in (s.get("vdd_v") or {}).items()}
        if float(node_nm) not in vdd:
            raise ConfigError(f"energy.structures: rtl: {self.path}: no supply voltage for "
                              f"{node_nm:g} nm in scaling.vdd_v (has {sorted(vdd)})")
        return (float(node_nm) / float(s["measured_node_nm"])
                * (vdd[float(node_nm)] / float(s["measured_vdd_v"])) ** 2)

    def per_access_pj(self, charge: Charge) -> float:
        """Energy of one ``charge`` in pJ at the node of its paper GPU."""
        return self.pj_180nm(charge) * self.scale(self.node_nm(charge.target))

    def check(self, charges) -> None:
        """Raise the :class:`ConfigError` of the first of ``charges`` the table lacks."""
        for c in charges:
            self.per_access_pj(c)


def load_rtl_energy(path: str | Path | None = None) -> RTLEnergyTable:
    """Read and check the table (default: ``rtl_energy.yaml`` beside this module); an
    unreadable file, another format or a malformed section is a clear ConfigError."""
    p = Path(path) if path is not None else DEFAULT_PATH
    try:
        raw = yaml.safe_load(p.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"energy.structures: rtl: cannot read the RTL energy table {p}: {e}") from e
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ConfigError(f"energy.structures: rtl: {p} is not an RTL energy table "
                          f"(format: {FORMAT}; write it with `python -m synth.energy_table`)")
    targets, scaling = raw.get("targets"), raw.get("scaling")
    if not isinstance(targets, dict) or not all(isinstance(v, dict) for v in targets.values()):
        raise ConfigError(f"energy.structures: rtl: {p}: 'targets' must map target names to entries")
    if (not isinstance(scaling, dict) or not isinstance(scaling.get("vdd_v"), dict)
            or not all(isinstance(scaling.get(k), (int, float))
                       for k in ("measured_node_nm", "measured_vdd_v"))):
        raise ConfigError(f"energy.structures: rtl: {p}: 'scaling' needs measured_node_nm, "
                          f"measured_vdd_v and vdd_v")
    return RTLEnergyTable(path=str(p), targets=targets, scaling=scaling,
                          generated=str(raw.get("generated", "?")), tools=raw.get("tools") or {})


def with_structures(config, source: str):
    """``config`` with ``energy.structures`` set to ``source`` (``papers`` or ``rtl``): a
    report prices one run both ways."""
    from dataclasses import replace

    if source not in STRUCTURE_SOURCES:
        raise ConfigError(f"energy.structures: must be one of {', '.join(STRUCTURE_SOURCES)}, "
                          f"not {source!r}")
    return replace(config, energy=replace(config.energy, structures=source))
