"""``make bench-ir``: the timing model's cost as *machine instructions executed*, counted by
valgrind's callgrind (``Ir``), for A/B comparisons of host speed on a busy machine.

CPU seconds move by 10-20% with what else runs on a shared 2-core machine; instruction
counts do not: the same tree and case give the same count to within about 0.1% (the
child runs with ``PYTHONHASHSEED=0``, so set and dict orders repeat too). Each case runs
once per source tree (``--tree``, default this checkout) in a child process under
callgrind with collection switched on only inside the compiled ``SM.tick`` (the whole
cycle loop below the GPU's Python driver; parsing, linking and reporting are left out).
Compiled core only: without it there is no such C function to scope the count to, and
the tool says so. Callgrind runs the model about 50x slower than
normal, so the default size is ``small``.

Printed per case and tree: warp instructions issued, Ir in the cycle loop, Ir per warp
instruction, the ratio to the first tree, and whether the run's statistics equal the first
tree's (a digest of :func:`golden.jobs.rekey.simulation_part`, the part of a result that
``simtlab cache rekey`` compares): a speed change must leave them identical.

    python -m golden.bench_ir                                # this tree, default cases
    python -m golden.bench_ir --tree ../main --tree . MM HS+darsie -j 2
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

#: default cases: (workload, mechanisms)
CASES = (("MM", ()), ("HS", ()), ("BFS", ()), ("MM", ("darsie",)), ("MM", ("gscalar",)))
#: callgrind function pattern: the Python-callable wrapper of the compiled SM.tick
TICK_PATTERN = "__pyx_pw_*_2sm_2SM_*tick"

_CHILD = r"""
import hashlib, json, sys
from golden import native
from golden.jobs.rekey import simulation_part
from golden.report.runner import TimingJob, run_job
core = native.status()
if not core.active:
    print(json.dumps({"error": "compiled timing core not active: " + core.reason}))
    sys.exit(0)
name, config, size = sys.argv[1:4]
r = run_job(TimingJob(name, config, size=size, mechanisms=tuple(sys.argv[4:])))
digest = hashlib.sha256(json.dumps(simulation_part(r), sort_keys=True).encode()).hexdigest()
print(json.dumps({"warp_instructions": r["timing"]["instructions_issued"], "digest": digest[:16]}))
"""


def parse_case(text: str) -> tuple[str, tuple[str, ...]]:
    """``MM`` or ``MM+darsie+...`` -> (workload, mechanisms)."""
    name, *mechs = text.split("+")
    return name, tuple(mechs)


def measure(tree: Path, case, config: str, size: str, valgrind: str) -> dict:
    """One case under callgrind with ``tree`` first on PYTHONPATH."""
    name, mechs = case
    with tempfile.TemporaryDirectory(prefix="bench-ir-") as tmp:
        out = Path(tmp) / "callgrind.out"
        cmd = [valgrind, "--tool=callgrind", "--collect-atstart=no",
               f"--toggle-collect={TICK_PATTERN}", f"--callgrind-out-file={out}",
               sys.executable, "-c", _CHILD, name, config, size, *mechs]
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")  # same set orders
        p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        tail = (p.stderr or p.stdout).strip().splitlines()[-5:]
        return {"error": f"exit {p.returncode}: " + " | ".join(tail)}
    row = json.loads(lines[-1])
    m = re.search(r"Collected : (\d+)", p.stderr)
    if "error" not in row:
        if not m:
            row["error"] = "callgrind printed no instruction count"
        else:
            row["ir"] = int(m.group(1))
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m golden.bench_ir", description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", help="WORKLOAD or WORKLOAD+mech+... (default: "
                    + ", ".join("+".join((n, *m)) for n, m in CASES) + ")")
    ap.add_argument("--tree", action="append", type=Path,
                    help="source tree to measure (repeatable; default: this checkout); "
                         "the first one is the reference of the ratios")
    ap.add_argument("--config", default="pascal")
    ap.add_argument("--size", default="small", choices=("small", "default", "paper"))
    ap.add_argument("-j", "--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("error: valgrind not found (apt-get install -y valgrind)", file=sys.stderr)
        return 2
    trees = [t.resolve() for t in (args.tree or [Path(__file__).resolve().parents[1]])]
    for t in trees:
        if not (t / "golden" / "__init__.py").is_file():
            print(f"error: {t} is not a simtlab source tree (no golden/__init__.py)", file=sys.stderr)
            return 2
    cases = [parse_case(c) for c in args.cases] or list(CASES)
    work = [(t, c) for c in cases for t in trees]
    with ThreadPoolExecutor(max(1, args.jobs)) as ex:
        rows = list(ex.map(lambda tc: measure(tc[0], tc[1], args.config, args.size, valgrind), work))
    res = dict(zip(work, rows))
    print(f"timing loop cost in machine instructions (callgrind Ir inside SM.tick), "
          f"{args.config}, {args.size} size")
    print(f"{'case':<16} {'tree':<28} {'warp inst':>10} {'Ir (M)':>10} {'Ir/warp-inst':>13} "
          f"{'vs first':>9}  statistics")
    bad = 0
    for c in cases:
        first = res[(trees[0], c)]
        for t in trees:
            r = res[(t, c)]
            label = "+".join((c[0], *c[1]))
            if "error" in r:
                bad += 1
                print(f"{label:<16} {str(t)[-28:]:<28} error: {r['error']}")
                continue
            per = r["ir"] / max(r["warp_instructions"], 1)
            ratio = (f"{first['ir'] / r['ir']:.3f}x" if "ir" in first else "-")
            same = ("reference" if t == trees[0] else
                    "identical" if r.get("digest") == first.get("digest") else "DIFFER")
            bad += same == "DIFFER"
            print(f"{label:<16} {str(t)[-28:]:<28} {r['warp_instructions']:>10,} "
                  f"{r['ir'] / 1e6:>10,.1f} {per:>13,.0f} {ratio:>9}  {same}")
    print("(vs first: the first tree's Ir / this tree's, >1 = fewer instructions)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
