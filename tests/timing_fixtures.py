"""Statistics regression fixtures of the timing model (issue 12, item 5).

Each case is one timing run at ``small`` size; its fixture
(``tests/fixtures/timing_stats/<case>.json``) holds everything the model measures: cycles,
every :class:`TimingStats` counter and the energy report. ``tests/test_timing_fixtures.py``
re-runs every case and requires the same numbers exactly, so a speed change that alters
any statistic fails. A change that is *meant* to alter statistics (fidelity work) rewrites
the fixtures in the same commit and says so in its message:

    .venv/bin/python tests/timing_fixtures.py            # rewrite every fixture
    .venv/bin/python tests/timing_fixtures.py MM-pascal  # rewrite some
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from golden.report.runner import TimingJob, run_job

FIXTURE_DIR = Path(__file__).parent / "fixtures" / "timing_stats"

#: case name -> job: every seed GPU, the mechanisms that exist, regular and divergent
#: workloads, shared memory, atomics and multi-launch workloads.
CASES: dict[str, TimingJob] = {
    "DCT-pascal": TimingJob("DCT", "pascal"),
    "MM-pascal": TimingJob("MM", "pascal"),
    "HS-pascal": TimingJob("HS", "pascal"),
    "BFS-pascal": TimingJob("BFS", "pascal"),
    "MM-pascal-darsie": TimingJob("MM", "pascal", mechanisms=("darsie",)),
    "CONV-pascal-darsie": TimingJob("CONV", "pascal", mechanisms=("darsie",)),
    # DARSIE as modelled before issue 13 (every switch of its fixes off)
    "MM-pascal-darsie-keepdead": TimingJob("MM", "pascal", mechanisms=(
        "darsie:free_dead=false,wait_for_wb=false,branch_sync=all,fetch_while_held=false,"
        "lead_at_decode=false,rejoin_at_barrier=false",)),
    "LIB-pascal-dac-ideal": TimingJob("LIB", "pascal", mechanisms=("dac-ideal",)),
    # DAC-IDEAL as modelled before 2026-12-07 (load-derived uniform values count as affine)
    "LIB-pascal-dac-ideal-unstructured": TimingJob("LIB", "pascal",
                                                   mechanisms=("dac-ideal:unstructured=true",)),
    "FWS-pascal-uv": TimingJob("FWS", "pascal", mechanisms=("uv",)),
    "HS-gtx480": TimingJob("HS", "gtx480"),
    "MV-gtx480-gscalar": TimingJob("MV", "gtx480", mechanisms=("gscalar",)),
    "BP-gtx480-gscalar": TimingJob("BP", "gtx480", mechanisms=("gscalar",)),
    "ST-gtx480-alu-scalar": TimingJob("ST", "gtx480", mechanisms=("alu-scalar",)),
    "NQU-gtx480_warpman": TimingJob("NQU", "gtx480_warpman"),
    "PF-gtx285": TimingJob("PF", "gtx285"),
    "SP-gtx285": TimingJob("SP", "gtx285"),
    "RAY-fx5800": TimingJob("RAY", "fx5800"),
    "MUM-fx5800": TimingJob("MUM", "fx5800"),
    "MUM-fx5800-capri": TimingJob("MUM", "fx5800", mechanisms=("capri",)),
    # CAPRI as modelled before 2026-11-28 (bypassed warps always stop at their path's RPC;
    # and, as before 2026-12-07, every warp is re-formed after every branch)
    "MUM-fx5800-capri-nojoin": TimingJob("MUM", "fx5800",
                                         mechanisms=("capri:join=false,keep=false",)),
    # CAPRI and TBC+ as modelled before 2026-12-07 (warps re-formed after every branch)
    "MUM-fx5800-capri-nokeep": TimingJob("MUM", "fx5800", mechanisms=("capri:keep=false",)),
    "BFS-fx5800-tbc-plus": TimingJob("BFS", "fx5800", mechanisms=("tbc-plus",)),
    "BFS-fx5800-tbc-plus-nokeep": TimingJob("BFS", "fx5800", mechanisms=("tbc-plus:keep=false",)),
    "BS-gtx280": TimingJob("BS", "gtx280"),
    "NQU-gtx280-ilp-sc": TimingJob("NQU", "gtx280", mechanisms=("ilp-sc",)),
    "MT-gtx285-uv-token": TimingJob("MT", "gtx285", mechanisms=("uv-token",)),
    "HS-gtx285-uv-srf": TimingJob("HS", "gtx285", mechanisms=("uv-srf",)),
    # 256 B channel/slice interleave (memory.dram.interleave_bytes, added 2026-12-03)
    "BFS-gtx480_coarse": TimingJob("BFS", "gtx480_coarse"),
    "BFS-gtx480_coarse-coarse2": TimingJob("BFS", "gtx480_coarse", mechanisms=("coarse2",)),
}


def diff(old, new, path=""):
    """First few differing leaves between two JSON trees, as 'path: old -> new'."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in sorted(set(old) | set(new)):
            out += diff(old.get(k), new.get(k), f"{path}.{k}" if path else k)
        return out
    return [] if old == new else [f"{path}: {old!r} -> {new!r}"]


def measure(job: TimingJob) -> dict:
    """The fixture content of one run (JSON-normalised: tuples become lists)."""
    r = run_job(job)
    keep = {k: r[k] for k in ("key", "config_name", "outputs_match", "output_digest", "launches",
                              "cycles", "ipc", "timing", "energy")}
    return json.loads(json.dumps(keep, sort_keys=True))


def write(names=None) -> None:
    FIXTURE_DIR.mkdir(parents=True, exist_ok=True)
    for name in names or CASES:
        if name not in CASES:
            raise SystemExit(f"unknown case '{name}'; cases: {', '.join(CASES)}")
        d = measure(CASES[name])
        (FIXTURE_DIR / f"{name}.json").write_text(json.dumps(d, indent=1, sort_keys=True) + "\n")
        print(f"{name}: {d['cycles']} cycles", file=sys.stderr)


if __name__ == "__main__":
    write(sys.argv[1:])
