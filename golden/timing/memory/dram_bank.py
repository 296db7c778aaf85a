"""DRAM device timing and the state of one DRAM bank (its row buffer).

:class:`DRAMTiming` holds the device timing parameters of
:class:`golden.configs.schema.DRAMConfig`, given in DRAM command-clock cycles, converted
to SM core cycles (``x core_mhz / dram_mhz``; fractional) -- the unit every other memory
model uses:

* ``cl`` (tCL) read command -> first data on the bus; ``wl`` (tWL) write command -> data;
* ``rcd`` (tRCD) activate -> first column command of that row;
* ``rp`` (tRP) precharge -> next activate of the bank;
* ``ras`` (tRAS) activate -> earliest precharge of the bank;
* ``rc`` (tRC) activate -> next activate of the same bank;
* ``rrd`` (tRRD) activate -> activate of another bank of the channel;
* ``ccd`` (tCCD) column command -> next column command on the channel;
* ``burst``: data-bus time of one burst, ``burst_length / data_rate`` command cycles
  (a burst moves ``bus_width_bytes x burst_length`` bytes);
* ``slot = max(burst, ccd)``: the spacing of back-to-back column commands, i.e. the
  data-bus time one burst occupies;
* ``ccdl`` (tCCDL) column command -> next column command to a bank of the same bank
  group, and ``bank_groups`` (GDDR5 bank groups; GPGPU-Sim ``nbkgrp``, ``CCDL``); bank
  ``b`` of ``n`` is in group ``b // (n / bank_groups)`` (GPGPU-Sim 3.x's grouping by the
  bank index's high bits). One group (the default) disables the constraint.

:class:`Bank` stores what a bank remembers between requests: the open row (None when
precharged), the cycle of its last activate (for tRAS/tRC), the earliest cycle its next
column command may issue and the earliest cycle it may be precharged (after its last
column command's data: read-to-precharge and write recovery are approximated by the end
of the last burst).

Simplifications: no refresh, no read/write turnaround (tWTR, tCDLR), no tRTPL and no
write recovery beyond the end of the written data.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import SimtlabError

NEVER_ACTIVATED = -1.0e18


@dataclass(frozen=True)
class DRAMTiming:
    """DRAM timing in SM core cycles (see the module docstring)."""

    cl: float
    wl: float
    rcd: float
    rp: float
    ras: float
    rc: float
    rrd: float
    ccd: float
    burst: float
    bytes_per_burst: int
    ccdl: float = 0.0
    bank_groups: int = 1

    @property
    def slot(self) -> float:
        """Data-bus time one burst occupies (bursts issue at least tCCD apart)."""
        return max(self.burst, self.ccd)

    @classmethod
    def from_config(cls, dram, core_mhz: float) -> "DRAMTiming":
        """Convert a :class:`golden.configs.schema.DRAMConfig` to core cycles."""
        if core_mhz <= 0 or dram.clock_mhz <= 0:
            raise SimtlabError(f"clocks must be positive (core {core_mhz} MHz, DRAM "
                               f"{dram.clock_mhz} MHz)")
        k = core_mhz / dram.clock_mhz
        return cls(cl=dram.tCL * k, wl=dram.tWL * k, rcd=dram.tRCD * k, rp=dram.tRP * k,
                   ras=dram.tRAS * k, rc=dram.tRC * k, rrd=dram.tRRD * k, ccd=dram.tCCD * k,
                   burst=dram.burst_length / dram.data_rate * k,
                   bytes_per_burst=dram.bus_width_bytes * dram.burst_length,
                   ccdl=dram.tCCDL * k, bank_groups=dram.bank_groups)


class Bank:
    """Row-buffer state of one DRAM bank (open-row policy)."""

    __slots__ = ("open_row", "activated", "col_ready", "pre_ready")

    def __init__(self):
        self.open_row: int | None = None      #: row in the row buffer, None if precharged
        self.activated = NEVER_ACTIVATED      #: cycle of the last activate
        self.col_ready = 0.0                  #: earliest next column command
        self.pre_ready = 0.0                  #: earliest precharge (after the last burst)
