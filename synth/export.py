"""Verilog export of the synthesis targets: ``python -m synth.export --out DIR [--only NAME...]``.

Each target's component is built from its ``synth/targets.yaml`` row, elaborated and
written with ``amaranth.back.verilog.convert`` (ports from the component's signature, top
module named after the target, no source-location attributes so the text does not depend
on where the checkout lives).  That is the same conversion the cocotb runner
(``tb/runner.py``) uses, so the Verilog that is simulated is the Verilog that is synthesised.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from .cli import make_parser, run_cli
from .size_limits import check_sizes
from .errors import SynthError
from .fileio import write_atomic
from .targets import Target, build_component, load_targets, select_targets


def verilog_of(target: Target) -> str:
    """Elaborate ``target``'s component and return its Verilog (top module ``target.name``)."""
    from amaranth.back import verilog

    component = build_component(target)
    try:
        return verilog.convert(component, name=target.name, emit_src=False)
    except verilog.YosysError as exc:
        raise SynthError(f"target {target.name} ({target.component}): Amaranth could not run Yosys "
                         f"to write Verilog: {exc} (install it with `pip install 'amaranth[builtin-yosys]'`, "
                         "pip install 'amaranth[builtin-yosys]')") from exc
    except Exception as exc:
        raise SynthError(f"target {target.name}: elaborating {target.component}({_kwargs(target)}) "
                         f"failed: {type(exc).__name__}: {exc}") from exc


def _kwargs(target: Target) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in target.params.items())


def export_targets(targets: list[Target], out_dir: str | Path,
                   progress: Callable[[str], None] | None = print) -> list[Path]:
    """Write ``out_dir/<name>.v`` for every target; return the paths.

    All targets are converted before any file is written, so a failing target leaves the
    folder as it was.
    """
    texts: list[tuple[Target, str]] = []
    for i, target in enumerate(targets, 1):
        start = time.monotonic()
        text = verilog_of(target)
        texts.append((target, text))
        if progress:
            progress(f"[{i}/{len(targets)}] {target.describe()}: Verilog "
                     f"{len(text.splitlines())} lines ({time.monotonic() - start:.1f} s)")
    return [write_atomic(Path(out_dir) / f"{t.name}.v", text) for t, text in texts]


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the process exit code."""
    parser = make_parser("python -m synth.export",
                         "Export the RTL components listed in synth/targets.yaml to Verilog.",
                         default_out="build/verilog")

    def job(args) -> None:
        targets = select_targets(load_targets(args.targets), args.only)
        check_sizes(targets, args.allow_large)
        paths = export_targets(targets, args.out)
        print(f"wrote {len(paths)} Verilog file{'s' if len(paths) != 1 else ''} to {args.out}")

    return run_cli(parser, job, argv)


if __name__ == "__main__":
    raise SystemExit(main())
