"""The cycle a synthesis target gets in its paper's pipeline, in FO4 delays (issue 69, item 2).

``synth/cycle_budgets.yaml`` names, per target, the GPU of its paper (node, shader clock)
and how many pipeline cycles the paper gives the structure. The cycle is turned into FO4
delays of that node with the rule of thumb of :func:`synth.fo4.fo4_rule_of_thumb_ns`
(0.36 ns per um of drawn length): a rule of thumb, not a measurement of the papers'
libraries. A measured critical path in FO4 (osu018) then "fits" when it is at most the
budget in FO4 -- a comparison of logic depth that ignores wires and the faster cells and
sizing a commercial 40 nm / 16 nm flow would use.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from golden.errors import ConfigError

from .fo4 import fo4_rule_of_thumb_ns

DEFAULT_BUDGETS = Path(__file__).with_name("cycle_budgets.yaml")


@dataclass(frozen=True)
class CycleBudget:
    """One target's pipeline budget: its GPU's node and clock, and the cycles it gets."""

    target: str
    gpu: str
    node_nm: float
    clock_ghz: float
    cycles: int
    stage: str
    note: str = ""
    assumed: str = ""

    @property
    def cycle_ns(self) -> float:
        return 1.0 / self.clock_ghz

    @property
    def fo4(self) -> float:
        """The budget (cycles x cycle time) in FO4 delays of the paper's node."""
        return self.cycles * self.cycle_ns / fo4_rule_of_thumb_ns(self.node_nm)

    def describe(self) -> str:
        return (f"{self.cycles} x {self.cycle_ns:.3f} ns at {self.node_nm:g} nm "
                f"({self.gpu}) = {self.fo4:.0f} FO4")


def load_budgets(path: str | Path = DEFAULT_BUDGETS) -> dict[str, CycleBudget]:
    """Every target's budget of the YAML file, keyed by target name."""
    try:
        doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        gpus = doc["gpus"]
        out = {}
        for name, row in doc["targets"].items():
            g = gpus[row["gpu"]]
            out[name] = CycleBudget(target=name, gpu=row["gpu"], node_nm=float(g["node_nm"]),
                                    clock_ghz=float(g["clock_ghz"]), cycles=int(row["cycles"]),
                                    stage=str(row["stage"]), note=str(row.get("note", "")),
                                    assumed=str(g.get("assumed", "")))
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: malformed cycle budget file ({type(exc).__name__}: {exc})") from None
    return out
