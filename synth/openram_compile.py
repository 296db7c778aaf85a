"""Compile one SRAM macro with OpenRAM and print its size as one JSON line.

Runs inside the OpenRAM virtual environment (``make macros`` creates ``.venv-openram`` with
the PyPI ``openram`` package and ``numpy<2``, which OpenRAM 1.2 needs), so it imports nothing
from simtlab. ``python -m synth.macros compile`` calls it once per shape::

    .venv-openram/bin/python synth/openram_compile.py WORDS WIDTH WRITE_SIZE PORTS TECH OUTDIR

PORTS is ``1rw`` or ``1r1w``; WRITE_SIZE 0 means no write mask. The macro is generated with
analytical delay models and without DRC/LVS, supply routing or perimeter pin escape routes
(those need Magic/Netgen and take tens of minutes): the reported size is the bounding box of
the placed and internally routed bank, control logic and address/data flip-flops.
"""

import json
import os
import sys
import time


def _version():
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("openram")
    except PackageNotFoundError:
        return "unknown"


def main(argv):
    words, width, write_size, ports, tech, out = argv
    words, width, write_size = int(words), int(width), int(write_size)
    os.makedirs(out, exist_ok=True)
    name = f"sram_{words}x{width}" + (f"_we{write_size}" if write_size else "") + f"_{ports}"
    cfg_path = os.path.join(out, f"{name}_cfg.py")
    options = {
        "word_size": width, "num_words": words,
        "num_rw_ports": 1 if ports == "1rw" else 0,
        "num_r_ports": 0 if ports == "1rw" else 1,
        "num_w_ports": 0 if ports == "1rw" else 1,
        "tech_name": tech, "nominal_corner_only": True, "process_corners": ["TT"],
        "supply_voltages": [1.0], "temperatures": [25], "check_lvsdrc": False,
        "analytical_delay": True, "route_supplies": False, "perimeter_pins": False,
        "output_path": out, "output_name": name,
    }
    if write_size:
        options["write_size"] = write_size
    with open(cfg_path, "w") as f:
        for k, v in options.items():
            f.write(f"{k} = {v!r}\n")
    import openram
    openram.init_openram(config_file=cfg_path)
    from openram import OPTS, sram, sram_config
    conf = sram_config(OPTS.word_size, OPTS.num_words, write_size=write_size or None)
    start = time.process_time()
    s = sram(name=name, sram_config=conf)
    result = {
        "shape": f"{words}x{width}" + (f"_we{write_size}" if write_size else ""),
        "ports": ports, "width_um": round(float(s.s.width), 3), "height_um": round(float(s.s.height), 3),
        "tech": tech, "tool": "OpenRAM",
        "provenance": {
            "openram": _version(),
            "options": {k: v for k, v in options.items() if k not in ("output_path", "output_name")},
            "words_per_row": getattr(conf, "words_per_row", None),
            "cpu_seconds": round(time.process_time() - start, 1),
        },
    }
    print("SIMTLAB_MACRO " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
