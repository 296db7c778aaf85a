"""G-Scalar (seed 003, HPCA 2017): value and eligibility statistics on the functional model.

* :mod:`.regstate` – per-warp model of the BVR/EBR/D/FS state of the whole RF (plus the
  state of the BDI comparison), updated on every register write;
* :mod:`.observer` – the instruction observer that counts divergence (Fig. 1), value
  similarity (Fig. 8), scalar-execution eligibility (Fig. 9, Fig. 10), special moves
  (§3.3), stored bytes (compression ratio) and RF dynamic energy (Fig. 12) for the
  baseline, G-Scalar, a scalar-only RF and Warped-Compression BDI;
* :mod:`.rf_energy` / ``rf_energy.yaml`` – the RF energy constants with their sources;
* :mod:`.observing` – attaches observers to every launch of a workload run;
* :mod:`.analysis` – runs the analysis over workloads (in parallel) and renders the
  table with the paper's values beside ours (``simtlab gscalar-stats``).
"""

from golden.mechanisms.gscalar.observer import GScalarCounts, GScalarStatsObserver  # noqa: F401
from golden.mechanisms.gscalar.regstate import RegisterEncodingTracker  # noqa: F401
from golden.mechanisms.gscalar.rf_energy import RFEnergyParams, load_rf_energy  # noqa: F401
