"""Shared cocotb bodies and pytest launchers of the structure testbenches whose golden
model records JSON-lines traces (ILP scoreboard and gshare, the uniform-vector IRB, SRF map
and detection logic).

A structure is described by a :class:`StructureBench` (golden class and dataclasses,
stimulus functions, coverage goals, an optional real-kernel trace recorder, an optional
``preload`` that puts SRAM contents the DUT's reset does not clear into the golden reset
state, and ``comb`` for a DUT without clock). Each ``tb/<mechanism>/test_<name>.py``
declares three cocotb tests calling :func:`directed`, :func:`random_run` and
:func:`replay`, and pytest launchers calling :func:`run_structure`,
:func:`run_real_traces` (record real kernels, then replay) or :func:`run_trace_files`
(replay given trace files, e.g. recorded with :func:`record_random_trace`):

* ``directed``: named scenarios, each from reset on a fresh golden model;
* ``random_run``: seeded random cycles, every output scored every cycle, coverage goals
  asserted;
* ``replay``: JSON-lines traces (golden/structures/trace.py), e.g. recorded from
  timing runs of real kernels, each from reset, every cycle scored against the recorded
  outputs and against a fresh golden model.

(Moved here from tb/ilp/bench.py, where it was ``ILPBench``.)
"""

from __future__ import annotations

import json
import os
import random
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from cocotb.triggers import Timer

from tb.runner import Scoreboard as Board
from tb.runner import default_seed, run_cocotb, tb_params, tb_seed
from tb.stepper import StepTB, play_directed, play_random

__all__ = ["CombTB", "StructureBench", "directed", "random_run", "record_random_trace",
           "make_bench", "replay", "replay_random_trace", "replay_trace_dir", "run_real_traces",
           "run_structure", "run_trace_files"]

RANDOM_CYCLES = 3000


class CombTB:
    """:class:`tb.stepper.StepTB`'s interface for a combinational DUT (no ``clk``/``rst``):
    a "cycle" drives the ops, waits 1 ns and samples the outputs."""

    def __init__(self, dut: Any, ops_cls: type, outputs_cls: type):
        self._step = StepTB(dut, ops_cls, outputs_cls)
        self.dut = dut

    def start(self) -> None:
        self._step.drive(self._step.ops_cls())

    async def restart(self) -> None:
        self.start()
        await Timer(1, unit="ns")

    async def cycle(self, ops: Any) -> Any:
        self._step.drive(ops)
        await Timer(1, unit="ns")
        got = self._step.sample()
        await Timer(1, unit="ns")
        return got


@dataclass(frozen=True)
class StructureBench:
    """Everything the generic bodies need about one traced structure."""

    name: str                      # toplevel and trace structure name, e.g. "ilp_gshare"
    golden: type
    params_cls: type
    ops_cls: type
    outputs_cls: type
    rtl: type
    directed: Callable             # params -> [(name, [ops])]
    random_ops: Callable           # (params, rng, cycles) -> [ops]
    count_events: Callable         # params -> count(expected, ops, cov)
    goals: dict | Callable         # coverage goals, or params -> goals
    env_trace_files: str           # env var carrying the JSON list of traces to replay
    record_trace: Callable | None = None  # (workload, path, max_cycles=) -> path
    preload: Callable | None = None  # (dut, params) -> None, after every reset
    comb: bool = False             # combinational DUT: no clock, no reset

    def goals_for(self, params) -> dict:
        return self.goals(params) if callable(self.goals) else self.goals

    def make_tb(self, dut, params):
        if self.comb:
            tb = CombTB(dut, self.ops_cls, self.outputs_cls)
            tb.start()
            return tb
        bench = self

        class _TB(StepTB):
            async def restart(self) -> None:
                await super().restart()
                if bench.preload is not None:
                    bench.preload(self.dut, params)

        tb = _TB(dut, self.ops_cls, self.outputs_cls)
        tb.start()
        return tb


def make_bench(info, rtl: type, stimulus, prefix: str, env_trace_files: str, *,
               record_trace: Callable | None = None, comb: bool = False) -> StructureBench:
    """The :class:`StructureBench` of the structure ``info`` (a
    :class:`~golden.structures.darsie.StructureInfo`) with the stimulus functions
    ``<prefix>_directed``, ``_random_ops``, ``_count_events`` and ``_goals`` of the module
    ``stimulus``."""
    return StructureBench(
        name=info.name, golden=info.golden_cls, params_cls=info.params_cls,
        ops_cls=info.ops_cls, outputs_cls=info.outputs_cls, rtl=rtl,
        directed=getattr(stimulus, f"{prefix}_directed"),
        random_ops=getattr(stimulus, f"{prefix}_random_ops"),
        count_events=getattr(stimulus, f"{prefix}_count_events"),
        goals=getattr(stimulus, f"{prefix}_goals"), env_trace_files=env_trace_files,
        record_trace=record_trace, comb=comb)


def _setup(dut, bench: StructureBench):
    params = bench.params_cls(**tb_params())
    return params, bench.make_tb(dut, params)


async def directed(dut, bench: StructureBench) -> None:
    """The structure's named scenarios, each from reset."""
    params, tb = _setup(dut, bench)
    board = Board(f"{bench.name}{params} directed", log=dut._log)
    await play_directed(tb, lambda: bench.golden(params), bench.directed(params), board)
    board.finish()


async def random_run(dut, bench: StructureBench) -> None:
    """Seeded random cycles, scored every cycle, coverage goals asserted."""
    params, tb = _setup(dut, bench)
    seed = tb_seed()
    dut._log.info("%s %s random: seed %d, %d cycles", bench.name, params, seed, RANDOM_CYCLES)
    ops = bench.random_ops(params, random.Random(seed), RANDOM_CYCLES)
    board = Board(f"{bench.name}{params} random", log=dut._log)
    await play_random(tb, bench.golden(params), ops, board, bench.count_events(params),
                      bench.goals_for(params))


async def replay(dut, bench: StructureBench) -> None:
    """Replay real-kernel traces: every cycle vs the recorded outputs and vs golden."""
    from golden.structures.trace import read_trace
    params, tb = _setup(dut, bench)
    files = json.loads(os.environ.get(bench.env_trace_files, "[]"))
    assert files, f"{bench.env_trace_files} lists no trace file"
    vs_trace = Board(f"{bench.name}{params} replay vs recorded", log=dut._log)
    vs_golden = Board(f"{bench.name}{params} replay vs golden", log=dut._log)
    for path in files:
        trace = read_trace(path)
        assert trace.params == params, f"{path}: trace of {trace.params} on a {params} DUT"
        dut._log.info("replaying %s: %d cycles, meta %s", path, len(trace.cycles), trace.meta)
        await tb.restart()
        golden = bench.golden(params)
        for cycle, (ops, recorded) in enumerate(trace.cycles):
            got = await tb.cycle(ops)
            label = f"{Path(path).name} cycle {cycle}"
            vs_trace.check(label, recorded, got)
            vs_golden.check(label, golden.step(ops), got)
    vs_trace.finish()
    vs_golden.finish()


def run_structure(bench: StructureBench, params, test_module: str,
                  seed: int | None = None) -> None:
    """pytest side: directed + random at ``params`` (seed: the session seed, or ``seed``)."""
    run_cocotb(bench.rtl, params.__dict__, test_module=test_module, toplevel=bench.name,
               testcase=["run_directed", "run_random"],
               seed=default_seed() if seed is None else seed)


def run_real_traces(bench: StructureBench, workloads, cycles: int, tmp_path: Path,
                    test_module: str) -> None:
    """pytest side: record SM 0's traffic in timing runs of ``workloads``, replay on the
    RTL (one DUT build per parameter set)."""
    if bench.record_trace is None:
        raise ValueError(f"{bench.name}: the bench has no real-kernel trace recorder")
    paths = [bench.record_trace(w, tmp_path / f"{bench.name}_{w}.jsonl", max_cycles=cycles)
             for w in workloads]
    run_trace_files(bench, paths, test_module)


def record_random_trace(bench: StructureBench, params, path: Path, *, seed: int,
                        cycles: int = RANDOM_CYCLES) -> Path:
    """Drive a golden model with the bench's seeded random stimulus through a
    :class:`~golden.structures.trace.TraceRecorder` into ``path``."""
    from golden.structures.trace import TraceRecorder
    ops = bench.random_ops(params, random.Random(seed), cycles)
    with TraceRecorder.open(path, bench.name, params,
                            meta={"source": "random stimulus", "seed": seed}) as rec:
        golden = bench.golden(params, recorder=rec)
        for o in ops:
            golden.step(o)
    return Path(path)


def run_trace_files(bench: StructureBench, paths, test_module: str) -> None:
    """pytest side: replay trace files of ``bench``'s structure on the RTL, one DUT build
    per parameter set found in their headers."""
    from golden.structures.trace import read_trace
    groups = defaultdict(list)
    for path in paths:
        trace = read_trace(path)
        if trace.structure != bench.name:
            raise ValueError(f"{path}: a {trace.structure} trace, not {bench.name}")
        groups[json.dumps(asdict(trace.params), sort_keys=True)].append(str(path))
    if not groups:
        raise ValueError(f"{bench.name}: no trace file to replay")
    for key, paths in groups.items():
        run_cocotb(bench.rtl, json.loads(key), test_module=test_module, toplevel=bench.name,
                   testcase="run_replay", seed=default_seed(),
                   extra_env={bench.env_trace_files: json.dumps(paths)})


def replay_random_trace(bench: StructureBench, params, tmp_path: Path, test_module: str,
                        cycles: int = 1000) -> None:
    """pytest side: record a trace by driving the golden model with the bench's seeded
    random stimulus (session seed) through a TraceRecorder, then replay it on the RTL."""
    path = record_random_trace(bench, params, tmp_path / f"{bench.name}.jsonl",
                               seed=default_seed(), cycles=cycles)
    run_trace_files(bench, [path], test_module)


def replay_trace_dir(bench: StructureBench, test_module: str, env_dir: str, what: str) -> None:
    """pytest side: replay every trace of ``bench``'s structure in the folder named by the
    environment variable ``env_dir`` (``what``: the traces' kind, for the skip message);
    skip if the variable is unset or the folder holds none."""
    import pytest

    from golden.structures.trace import trace_files
    directory = os.environ.get(env_dir)
    if not directory:
        pytest.skip(f"{env_dir} not set (a folder of your own {what} traces; make test "
                    f"replays real kernels in the structure's *_kernel_traces_cocotb test)")
    paths = trace_files(directory, bench.name)
    if not paths:
        pytest.skip(f"no {bench.name} trace under {directory}")
    run_trace_files(bench, paths, test_module)
