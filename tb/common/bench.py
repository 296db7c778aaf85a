"""Shared cocotb bodies and pytest launchers of the ILP testbenches (scoreboard, gshare).

A structure is described by an :class:`ILPBench` (golden class and dataclasses, stimulus
functions, coverage goals, the real-kernel trace recorder and an optional ``preload``
that puts SRAM contents the DUT's reset does not clear into the golden reset state). Each
``tb/ilp/test_<name>.py`` declares three cocotb tests calling :func:`directed`,
:func:`random_run` and :func:`replay`, and pytest launchers calling :func:`run_structure`
and :func:`run_real_traces`:

* ``directed``: named scenarios, each from reset on a fresh golden model;
* ``random_run``: seeded random cycles, every output scored every cycle, coverage goals
  asserted;
* ``replay``: traces recorded from timing runs of real kernels (the launcher records
  them), each from reset, every cycle scored against the recorded outputs and against a
  fresh golden model.
"""

from __future__ import annotations

import json
import os
import random
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from tb.runner import Scoreboard as Board
from tb.runner import default_seed, run_cocotb, tb_params, tb_seed
from tb.stepper import StepTB, play_directed, play_random

__all__ = ["ILPBench", "directed", "random_run", "replay", "run_real_traces", "run_structure"]

RANDOM_CYCLES = 3000


@dataclass(frozen=True)
class ILPBench:
    """Everything the generic bodies need about one ILP structure."""

    name: str                      # toplevel and trace structure name, e.g. "ilp_gshare"
    golden: type
    params_cls: type
    ops_cls: type
    outputs_cls: type
    rtl: type
    directed: Callable             # params -> [(name, [ops])]
    random_ops: Callable           # (params, rng, cycles) -> [ops]
    count_events: Callable         # params -> count(expected, ops, cov)
    goals: dict
    record_trace: Callable         # (workload, path, max_cycles=) -> path
    env_trace_files: str           # env var carrying the JSON list of traces to replay
    preload: Callable | None = None  # (dut, params) -> None, after every reset

    def make_tb(self, dut, params) -> StepTB:
        bench = self

        class _TB(StepTB):
            async def restart(self) -> None:
                await super().restart()
                if bench.preload is not None:
                    bench.preload(self.dut, params)

        tb = _TB(dut, self.ops_cls, self.outputs_cls)
        tb.start()
        return tb


def _setup(dut, bench: ILPBench):
    params = bench.params_cls(**tb_params())
    return params, bench.make_tb(dut, params)


async def directed(dut, bench: ILPBench) -> None:
    """The structure's named scenarios, each from reset."""
    params, tb = _setup(dut, bench)
    board = Board(f"{bench.name}{params} directed", log=dut._log)
    await play_directed(tb, lambda: bench.golden(params), bench.directed(params), board)
    board.finish()


async def random_run(dut, bench: ILPBench) -> None:
    """Seeded random cycles, scored every cycle, coverage goals asserted."""
    params, tb = _setup(dut, bench)
    seed = tb_seed()
    dut._log.info("%s %s random: seed %d, %d cycles", bench.name, params, seed, RANDOM_CYCLES)
    ops = bench.random_ops(params, random.Random(seed), RANDOM_CYCLES)
    board = Board(f"{bench.name}{params} random", log=dut._log)
    await play_random(tb, bench.golden(params), ops, board, bench.count_events(params),
                      bench.goals)


async def replay(dut, bench: ILPBench) -> None:
    """Replay real-kernel traces: every cycle vs the recorded outputs and vs golden."""
    from golden.structures.darsie.trace import read_trace
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


def run_structure(bench: ILPBench, params, test_module: str) -> None:
    """pytest side: directed + random at ``params``."""
    run_cocotb(bench.rtl, params.__dict__, test_module=test_module, toplevel=bench.name,
               testcase=["run_directed", "run_random"], seed=default_seed())


def run_real_traces(bench: ILPBench, workloads, cycles: int, tmp_path: Path,
                    test_module: str) -> None:
    """pytest side: record SM 0's traffic in timing runs of ``workloads``, replay on the
    RTL (one DUT build per parameter set)."""
    from golden.structures.darsie.trace import read_trace
    groups = defaultdict(list)
    for w in workloads:
        path = bench.record_trace(w, tmp_path / f"{bench.name}_{w}.jsonl", max_cycles=cycles)
        groups[json.dumps(asdict(read_trace(path).params), sort_keys=True)].append(str(path))
    for key, paths in groups.items():
        run_cocotb(bench.rtl, json.loads(key), test_module=test_module, toplevel=bench.name,
                   testcase="run_replay", seed=default_seed(),
                   extra_env={bench.env_trace_files: json.dumps(paths)})
