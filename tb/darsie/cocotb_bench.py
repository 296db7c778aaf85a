"""Shared cocotb bodies and pytest launchers of the DARSIE testbenches.

Every ``tb/darsie/test_<name>.py`` declares three cocotb tests that call the bodies here
with its structure name:

* :func:`directed` – named corner cases, DUT reset and a fresh golden model per scenario;
* :func:`random_run` – :data:`RANDOM_TRANSACTIONS` seeded constrained-random cycles scored
  every cycle, then the structure's coverage goals are asserted;
* :func:`replay` – replay of JSON-lines traces (:mod:`golden.structures.trace`):
  each trace from reset; every cycle the DUT outputs are scored against the recorded
  outputs and against a fresh golden model stepping the same ops.

Which traces ``replay`` plays is given by the pytest side through the environment
variable :data:`ENV_TRACE_FILES` (a JSON list of paths). The pytest launchers:

* :func:`run_structure` – directed + random + replay of a trace recorded from a golden
  random run of the same parameters (always runs; proves the replay path end to end);
* :func:`run_trace_dir` – replay of every trace of the structure found under the
  directory named by :data:`ENV_TRACE_DIR` (e.g. ``build/traces`` written by the DARSIE
  timing mechanism for MM/DCT/HS), one DUT build per parameter set found;
* :func:`replay_trace_dir` – the ``test_<name>_trace_dir_cocotb`` body: :func:`run_trace_dir`,
  skipped with a message when the variable is unset or the folder holds no such trace.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from cocotb.triggers import Timer

from golden.errors import ConfigError
from golden.structures.trace import TraceRecorder, read_trace, trace_files
from tb.darsie.benches import BENCHES, Bench
from tb.runner import Scoreboard, run_cocotb, tb_params, tb_seed
from tb.stepper import LazyText, StepTB, check_coverage, play, play_directed

__all__ = ["ENV_TRACE_DIR", "ENV_TRACE_FILES", "RANDOM_TRANSACTIONS", "CombStepTB", "directed",
           "random_run", "record_golden_trace", "replay", "run_structure", "run_trace_dir"]

#: Directory of recorded traces to replay (user-facing).
ENV_TRACE_DIR = "SIMTLAB_DARSIE_TRACES"
#: JSON list of trace files handed to the simulator by the launchers.
ENV_TRACE_FILES = "SIMTLAB_DARSIE_TRACE_FILES"
#: Random cycles per structure in :func:`random_run`.
RANDOM_TRANSACTIONS = 3000
#: Cycles of the golden random run recorded by :func:`record_golden_trace`.
RECORDED_CYCLES = 600


class CombStepTB(StepTB):
    """:class:`tb.stepper.StepTB` for a purely combinational DUT (no ``clk``/``rst``):
    a "cycle" drives the inputs, waits for them to settle and samples the outputs."""

    async def cycle(self, ops: Any) -> Any:
        self.drive(ops)
        await Timer(1, unit="ns")
        got = self.sample()
        await Timer(1, unit="ns")
        return got

    def start(self) -> None:
        self.drive(self.ops_cls())

    async def restart(self) -> None:
        self.drive(self.ops_cls())
        await Timer(1, unit="ns")


def _setup(dut: Any, name: str) -> tuple[Bench, Any, StepTB]:
    bench = BENCHES[name]
    params = bench.info.params_cls(**tb_params())
    cls = StepTB if bench.clocked else CombStepTB
    tb = cls(dut, bench.info.ops_cls, bench.info.outputs_cls)
    tb.start()
    return bench, params, tb


# --------------------------------------------------------------------------- cocotb bodies
async def directed(dut: Any, name: str) -> None:
    """Named corner-case scenarios, each from reset."""
    bench, params, tb = _setup(dut, name)
    board = Scoreboard(f"{name}{params} directed", log=dut._log)
    await play_directed(tb, lambda: bench.golden(params), bench.directed(params), board)
    board.finish()


async def random_run(dut: Any, name: str) -> Counter:
    """Seeded constrained-random cycles, every output scored, coverage goals asserted."""
    bench, params, tb = _setup(dut, name)
    seed = tb_seed()
    dut._log.info("%s %s random: seed %d, %d transactions", name, params, seed, RANDOM_TRANSACTIONS)
    ops = bench.random_ops(params, random.Random(seed), RANDOM_TRANSACTIONS)
    board = Scoreboard(f"{name}{params} random", log=dut._log)
    cov: Counter = Counter()
    count = bench.cover(params)
    await tb.restart()
    await play(tb, bench.golden(params), ops, board, "random",
               on_step=lambda expected, o: count(expected, o, cov))
    board.finish()
    dut._log.info("%s coverage: %s", name, dict(cov))
    check_coverage(cov, bench.goals)
    return cov


async def replay(dut: Any, name: str) -> int:
    """Replay the traces listed in :data:`ENV_TRACE_FILES`; return the cycles replayed."""
    bench, params, tb = _setup(dut, name)
    raw = os.environ.get(ENV_TRACE_FILES)
    if raw is None:
        raise ConfigError(f"{ENV_TRACE_FILES} is not set: launch replays with "
                          "tb.darsie.cocotb_bench.run_structure or run_trace_dir")
    files = json.loads(raw)
    if not files:
        raise ConfigError(f"{ENV_TRACE_FILES} lists no trace file")
    vs_trace = Scoreboard(f"{name}{params} replay vs recorded", log=dut._log)
    vs_golden = Scoreboard(f"{name}{params} replay vs golden", log=dut._log)
    total = 0
    for path in files:
        trace = read_trace(path)
        if trace.structure != name or trace.params != params:
            raise ConfigError(f"{path}: trace of {trace.structure}{trace.params} given to a "
                              f"{name}{params} DUT")
        dut._log.info("replaying %s: %d cycles, meta %s", path, len(trace.cycles), trace.meta)
        await tb.restart()
        golden = bench.golden(params)
        for cycle, (ops, recorded) in enumerate(trace.cycles):
            got = await tb.cycle(ops)
            label = LazyText("{} cycle {} {}", Path(path).name, cycle, ops)
            vs_trace.check(label, recorded, got)
            vs_golden.check(label, golden.step(ops), got)
        total += len(trace.cycles)
    vs_trace.finish()
    vs_golden.finish()
    return total


# --------------------------------------------------------------------------- pytest side
def record_golden_trace(name: str, params: Any, path: Path, seed: int,
                        cycles: int = RECORDED_CYCLES) -> Path:
    """Record a trace of a golden random run (seed ``seed``) of *name* at *params* into *path*."""
    bench = BENCHES[name]
    ops = bench.random_ops(params, random.Random(seed), cycles)
    with TraceRecorder.open(path, name, params, meta={"source": "golden random run", "seed": seed}) as rec:
        golden = bench.golden(params, recorder=rec)
        for o in ops:
            golden.step(o)
    return path


def run_structure(name: str, params: Any, test_module: str, trace_dir: Path, seed: int) -> None:
    """Directed + random + replay of a freshly recorded golden trace, in one simulator run."""
    bench = BENCHES[name]
    trace = record_golden_trace(name, params, trace_dir / f"{name}_golden_random.jsonl", seed + 1)
    run_cocotb(bench.rtl_cls, asdict(params), test_module=test_module, toplevel=name,
               seed=seed, extra_env={ENV_TRACE_FILES: json.dumps([str(trace)])})


def run_trace_dir(name: str, test_module: str) -> int:
    """Replay every trace of *name* under ``$SIMTLAB_DARSIE_TRACES``; return the files replayed.

    Call only when the variable is set (the pytest wrapper skips otherwise). One DUT
    build per distinct parameter set found.
    """
    # Absolute paths: the simulator runs inside its build folder, not in the caller's
    # working folder, so a relative $SIMTLAB_DARSIE_TRACES would not resolve there.
    directory = Path(os.environ[ENV_TRACE_DIR]).resolve()
    files = trace_files(directory, name)
    groups: dict[str, list[str]] = {}
    for path in files:
        params = read_trace(path).params
        groups.setdefault(json.dumps(asdict(params), sort_keys=True), []).append(str(Path(path).resolve()))
    bench = BENCHES[name]
    for key, paths in groups.items():
        run_cocotb(bench.rtl_cls, json.loads(key), test_module=test_module, toplevel=name,
                   testcase="run_replay", extra_env={ENV_TRACE_FILES: json.dumps(paths)})
    return len(files)


def replay_trace_dir(name: str, test_module: str) -> None:
    """pytest side of ``test_<name>_trace_dir_cocotb``: :func:`run_trace_dir`, or skip (with
    what to set) when :data:`ENV_TRACE_DIR` is unset or names no trace of *name*."""
    import pytest

    directory = os.environ.get(ENV_TRACE_DIR)
    if not directory:
        pytest.skip(f"no trace directory: set {ENV_TRACE_DIR}=DIR to replay the {name} traces "
                    f"recorded there (e.g. by the DARSIE timing mechanism); make test replays "
                    f"real kernels in tb/darsie/test_real_traces.py")
    if run_trace_dir(name, test_module) == 0:
        pytest.skip(f"no {name} trace under {ENV_TRACE_DIR}={directory}")
