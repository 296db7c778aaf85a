"""Issue 67 item 6 experiments: ``simtlab run`` with the experiment mechanism
``dac-ideal-affine`` (golden/mechanisms/darsie/dac_affine.py) registered for this process,
and the LIBBENCH workload of this folder available through ``--workloads``.

    .venv/bin/python docs/results/darsie_lib_bench/run.py BIN --size small --mode timing \
        --mechanism dac-ideal-affine --json out.json
    .venv/bin/python docs/results/darsie_lib_bench/run.py LIBBENCH --size small --mode timing \
        --mechanism darsie:freelist=64,rename_entries=64

The arguments are those of ``simtlab run``; ``--workloads`` points at this folder.
"""
import sys
from pathlib import Path

from golden.cli import main
from golden.mechanisms import registry

# the name these experiments were first run under; dac-ideal is now the same mechanism
registry.MECHANISMS.setdefault("dac-ideal-affine",
                               "golden.mechanisms.darsie.dac_affine:make_dac_ideal")

if __name__ == "__main__":
    sys.exit(main(["run", *sys.argv[1:], "--workloads", str(Path(__file__).resolve().parent)]))
