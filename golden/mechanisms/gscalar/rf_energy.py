"""RF dynamic-energy constants of the G-Scalar comparison (seed 003 §3.2, §5.1, Fig. 12).

:func:`load_rf_energy` reads ``rf_energy.yaml`` (next to this module, or a file given by
the caller) into a frozen :class:`RFEnergyParams`. Every entry of the YAML carries the
source of its number; values are in units of one whole 1024-bit vector-register access
of the baseline bank, because the paper reports RF energy only relative to its baseline.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


from golden.configs.sourced import load_sourced
from golden.errors import ConfigError

DEFAULT_PATH = Path(__file__).with_name("rf_energy.yaml")


@dataclass(frozen=True)
class RFEnergyParams:
    """Per-event RF energies (unit: one baseline 1024-bit vector-register access).

    arrays_per_register: 128-bit SRAM arrays per vector register (8 for 32 lanes).
    array_access: energy of activating one array for a read or a write.
    metadata_access: one BVR/EBR/D/FS entry access (G-Scalar, full-register compression).
    metadata_access_half: the same with half-register compression (two BVR/EBR sets).
    scalar_rf_access: one access of the scalar RF of the scalar-only design.
    bdi_metadata_access: the compression-type bits of a BDI (Warped-Compression) register.
    bdi_base_bytes: size of the BDI base stored with the deltas.
    bdi_delta_bytes: BDI delta sizes tried, smallest first (0 = all lanes equal).
    """

    arrays_per_register: int = 8
    array_access: float = 0.125
    metadata_access: float = 0.052
    metadata_access_half: float = 0.101
    scalar_rf_access: float = 0.052
    bdi_metadata_access: float = 0.0041
    bdi_base_bytes: int = 4
    bdi_delta_bytes: tuple[int, ...] = (0, 1, 2)

    def __post_init__(self):
        if not isinstance(self.arrays_per_register, int) or self.arrays_per_register < 1:
            raise ConfigError("rf_energy.arrays_per_register: must be a positive integer")
        for name in ("array_access", "metadata_access", "metadata_access_half",
                     "scalar_rf_access", "bdi_metadata_access"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise ConfigError(f"rf_energy.{name}: must be a non-negative number, not {v!r}")
        if not isinstance(self.bdi_base_bytes, int) or not 1 <= self.bdi_base_bytes <= 8:
            raise ConfigError("rf_energy.bdi_base_bytes: must be an integer in 1..8")
        ds = self.bdi_delta_bytes
        if not ds or any(isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 3 for d in ds) \
                or list(ds) != sorted(set(ds)):
            raise ConfigError("rf_energy.bdi_delta_bytes: must be increasing integers in 0..3")


def load_rf_energy(path: str | Path | None = None) -> RFEnergyParams:
    """Read the energy YAML (default: ``rf_energy.yaml`` beside this module).

    Each top-level key must be a field of :class:`RFEnergyParams` mapping to
    ``{value: ..., source: "..."}``; an unknown key, a missing source or a bad value
    raises :class:`~golden.errors.ConfigError` naming the key.
    """
    return load_sourced(path if path is not None else DEFAULT_PATH, RFEnergyParams,
                        "the RF energy file")
