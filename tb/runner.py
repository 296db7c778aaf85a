"""Run a cocotb testbench against an Amaranth component under Icarus, from pytest.

This module is the bridge between the three views of a structure (DESIGN.md, "one
structure, three views"): it elaborates the Amaranth component (view 2) with concrete
parameters, exports it to Verilog, compiles it with Icarus and runs the cocotb
testbench (view 3) that scores it against the golden class (view 1).

The pattern every testbench follows
-----------------------------------
Each ``tb/<mechanism>/test_<name>.py`` holds two kinds of functions:

* cocotb coroutines decorated with ``@cocotb.test()`` whose names do **not** start with
  ``test_`` (``run_directed``, ``run_random``...), so pytest never collects them.
  They run inside the simulator, read their parameters with :func:`tb_params` and their
  seed with :func:`tb_seed`, and check every DUT response against the golden class.
* plain pytest functions ``test_<name>_cocotb(...)``, parametrised over the HDL
  parameters, that call :func:`run_cocotb`. Those are what pytest collects; one build
  folder is made per case, and a failing cocotb test fails the pytest function.

Sketch::

    import cocotb, pytest
    from cocotb.triggers import Timer
    from tb.runner import run_cocotb, tb_params, tb_seed
    from rtl.common.popcount import PopCount

    @cocotb.test()
    async def run_random(dut):
        width = tb_params()["width"]
        rng = random.Random(tb_seed())
        ...

    @pytest.mark.parametrize("width", [8, 32])
    def test_popcount_cocotb(width):
        run_cocotb(PopCount, {"width": width}, test_module=__name__)

Importing such a module outside the simulator is safe: ``import cocotb`` and the
``cocotb.triggers`` / ``cocotb.clock`` imports work without a running simulator, and
nothing here touches ``cocotb.top`` at import time.

Seed
----
One seed per pytest session, taken from the environment variable ``SIMTLAB_SEED``
(default ``1``). It is logged by pytest (captured output, shown on failure) and by the
cocotb test, passed to the simulator as both ``SIMTLAB_SEED`` and cocotb's own random
seed. Reproduce a failure with ``SIMTLAB_SEED=<n> pytest tb/...``.

Build directories
-----------------
The design is built once per component, parameters and RTL source state:
``build/sim/dut/<toplevel>_<hash>/`` holds the exported Verilog and the Icarus image,
where the hash covers the component class, its parameters, the top-level name, the
waveform switch, the text of every ``rtl/`` source (and of the component's own module)
and the Amaranth version. Every testbench run of that design reuses it: an edited RTL
file gives a new hash and a fresh build, never a stale one. Each run then simulates in
``build/sim/<toplevel>_<hash>/``, whose hash covers the component class, its parameters,
the testbench module and the test-case filter, so parametrised cases and pytest-xdist
workers never share a run folder. Per-folder ``fcntl`` locks serialise two builds of
one design and two runs of the very same case (two xdist workers, or two pytest
sessions on one checkout); runs of different cases on one design go on in parallel.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import random
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from golden.errors import ConfigError
from golden.fileio import write_atomic

__all__ = [
    "ENV_PARAMS",
    "ENV_SEED",
    "CocotbFailure",
    "ClockResetTB",
    "Scoreboard",
    "biased_vector",
    "default_seed",
    "export_verilog",
    "run_cocotb",
    "tb_params",
    "tb_seed",
]

#: Environment variable carrying the session seed (pytest side and simulator side).
ENV_SEED = "SIMTLAB_SEED"
#: Environment variable carrying the component parameters (JSON) into the simulator.
ENV_PARAMS = "SIMTLAB_TB_PARAMS"

#: Repository root (``tb/`` lives directly under it).
REPO_ROOT = Path(__file__).resolve().parents[1]
#: Root of all simulation build folders.
SIM_BUILD_ROOT = REPO_ROOT / "build" / "sim"
#: Root of the shared design builds (Verilog + Icarus image), see "Build directories".
DUT_BUILD_ROOT = SIM_BUILD_ROOT / "dut"

_log = logging.getLogger("simtlab.tb.runner")


class CocotbFailure(AssertionError):
    """A cocotb testbench reported failing or erroring test cases (or did not finish).

    Subclasses ``AssertionError`` so pytest shows it as an ordinary test failure.
    """


# ---------------------------------------------------------------------------------------
# pytest side
# ---------------------------------------------------------------------------------------

def default_seed() -> int:
    """Return the session seed: ``$SIMTLAB_SEED`` if set, else 1."""
    raw = os.environ.get(ENV_SEED, "1")
    try:
        return int(raw, 0)
    except ValueError:
        raise ConfigError(f"{ENV_SEED}={raw!r} is not an integer seed") from None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _case_dir(toplevel: str, key: Mapping[str, Any], root: Path | None = None) -> Path:
    digest = hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:10]
    return (SIM_BUILD_ROOT if root is None else root) / f"{toplevel}_{digest}"


def _rtl_digest(component_cls: Any) -> str:
    """Hash of what the exported Verilog of ``component_cls`` is made from: every ``.py``
    under ``rtl/``, the file of the component's own module (when it lives elsewhere) and
    the Amaranth version."""
    import amaranth

    files = sorted((REPO_ROOT / "rtl").rglob("*.py"))
    module = sys.modules.get(getattr(component_cls, "__module__", "") or "")
    own = getattr(module, "__file__", None)
    if own and Path(own).resolve() not in files:
        files.append(Path(own).resolve())
    h = hashlib.sha256(getattr(amaranth, "__version__", "?").encode())
    for path in files:
        h.update(str(path).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def export_verilog(component: Any, toplevel: str, path: Path) -> Path:
    """Convert an elaborated Amaranth ``wiring.Component`` to Verilog at *path*.

    The top module is named *toplevel*; ports keep the names of the component's
    signature members (``requests``, ``index``...), plus ``clk``/``rst`` when the
    design uses the ``sync`` domain. The file is only rewritten when its text changes,
    so Icarus does not recompile an unchanged design.
    """
    from amaranth.back import verilog

    text = verilog.convert(component, name=toplevel, emit_src=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        write_atomic(path, text)   # never a half-written design for Icarus
    return path


def _failed_cases(results_xml: Path) -> tuple[int, list[str]]:
    """Return (number of test cases, names of failed/errored ones) from a JUnit file."""
    root = ElementTree.parse(results_xml).getroot()
    total, failed = 0, []
    for case in root.iter("testcase"):
        total += 1
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(case.get("name", "?"))
    return total, failed


def run_cocotb(
    component_cls: Callable[..., Any],
    params: Mapping[str, Any],
    *,
    test_module: str,
    toplevel: str | None = None,
    testcase: str | Sequence[str] | None = None,
    seed: int | None = None,
    waves: bool = False,
    extra_env: Mapping[str, str] | None = None,
) -> Path:
    """Elaborate, export, build and simulate one parametrisation; fail if any test fails.

    Parameters
    ----------
    component_cls : callable
        The Amaranth component class (or factory); called as ``component_cls(**params)``.
    params : mapping of str to JSON-serialisable values
        Keyword parameters of the component. Also handed to the cocotb tests
        (:func:`tb_params`).
    test_module : str
        Dotted name of the module holding the ``@cocotb.test()`` coroutines, usually
        ``__name__`` of the calling pytest module.
    toplevel : str, optional
        Verilog top module name; defaults to the component's file name for classes
        under ``rtl/`` (``rtl.common.popcount.PopCount`` -> ``popcount``), otherwise
        the snake-case class name.
    testcase : str or sequence of str, optional
        Run only these cocotb tests (default: all in *test_module*).
    seed : int, optional
        Random seed; defaults to :func:`default_seed`.
    waves : bool
        Dump an FST waveform (into the design folder, `build/sim/dut/...`).
    extra_env : mapping, optional
        Additional environment variables for the simulator process.

    Returns
    -------
    pathlib.Path
        The JUnit results file of the run.

    Raises
    ------
    CocotbFailure
        If the simulator did not produce results, or any cocotb test failed/errored,
        or no cocotb test ran at all.
    """
    from cocotb_tools.runner import get_runner

    params = dict(params)
    seed = default_seed() if seed is None else int(seed)
    cls_name = getattr(component_cls, "__qualname__", repr(component_cls))
    if toplevel is None:
        module = getattr(component_cls, "__module__", "") or ""
        toplevel = module.rsplit(".", 1)[-1] if module.startswith("rtl.") else \
            _snake(getattr(component_cls, "__name__", "top"))
    cases = [testcase] if isinstance(testcase, str) else (list(testcase) if testcase else None)
    key = {
        "component": f"{getattr(component_cls, '__module__', '')}.{cls_name}",
        "params": params,
        "test_module": test_module,
        "testcase": cases,
        "toplevel": toplevel,
    }
    build_dir = _case_dir(toplevel, key)
    dut_key = {"component": key["component"], "params": params, "toplevel": toplevel,
               "waves": bool(waves), "rtl": _rtl_digest(component_cls)}
    dut_dir = _case_dir(toplevel, dut_key, DUT_BUILD_ROOT)
    print(f"[tb.runner] {toplevel} params={params} seed={seed} build_dir={build_dir} "
          f"design={dut_dir}")
    _log.info("%s params=%s seed=%d build_dir=%s design=%s", toplevel, params, seed,
              build_dir, dut_dir)

    env = {
        ENV_SEED: str(seed),
        ENV_PARAMS: json.dumps(params, sort_keys=True),
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    env.update(extra_env or {})

    runner = get_runner("icarus")
    with _locked(dut_dir):
        source = dut_dir / f"{toplevel}.v"
        if not source.exists():   # the hash says the RTL is unchanged since it was written
            export_verilog(component_cls(**params), toplevel, source)
        runner.build(            # compiles only when sim.vvp is older than the Verilog
            sources=[source],
            hdl_toplevel=toplevel,
            build_dir=dut_dir,
            timescale=("1ns", "1ps"),
            waves=waves,
        )
    with _locked(build_dir):
        results_xml = build_dir / "results.xml"
        results_xml.unlink(missing_ok=True)   # a failed run must not find an old one
        try:
            runner.test(
                test_module=test_module,
                hdl_toplevel=toplevel,
                hdl_toplevel_lang="verilog",
                testcase=cases,
                seed=seed,
                extra_env=env,
                build_dir=dut_dir,
                test_dir=build_dir,
                results_xml=str(results_xml),
                waves=waves,
            )
        except SystemExit as exc:
            # cocotb's runner calls sys.exit() on failures when it sees pytest; turn that
            # into an ordinary assertion failure carrying the names of the failing tests.
            if results_xml.is_file():
                total, failed = _failed_cases(results_xml)
                detail = f"{len(failed)} of {total} cocotb tests failed: {failed}"
            else:
                detail = (f"the simulation ended without a results file (simulator exit "
                          f"{exc.code}); see the cocotb log above")
            raise CocotbFailure(
                f"cocotb run of {toplevel} {params} (seed {seed}): {detail}; build folder {build_dir}"
            ) from None

        if not results_xml.is_file():
            raise CocotbFailure(f"cocotb run of {toplevel} {params} left no results in {build_dir}")
        total, failed = _failed_cases(results_xml)
        if failed:
            raise CocotbFailure(
                f"cocotb run of {toplevel} {params} (seed {seed}): "
                f"{len(failed)} of {total} tests failed: {failed}"
            )
        if total == 0:
            raise CocotbFailure(f"cocotb run of {toplevel} {params} ran no tests from {test_module}")
    return results_xml


# ---------------------------------------------------------------------------------------
# simulator side (called from inside @cocotb.test() coroutines)
# ---------------------------------------------------------------------------------------

def tb_params() -> dict[str, Any]:
    """Return the component parameters :func:`run_cocotb` elaborated the DUT with."""
    raw = os.environ.get(ENV_PARAMS)
    if raw is None:
        raise ConfigError(f"{ENV_PARAMS} is not set: run this testbench through tb.runner.run_cocotb")
    return json.loads(raw)


def tb_seed() -> int:
    """Return the seed for this simulation (same value :func:`run_cocotb` logged)."""
    return default_seed()


class ClockResetTB:
    """Minimal driver shell for a clocked DUT exported by Amaranth (ports ``clk``, ``rst``).

    Parameters
    ----------
    dut : cocotb handle
        The top-level handle given to the cocotb test.
    period_ns : int
        Clock period in nanoseconds.
    """

    def __init__(self, dut: Any, *, period_ns: int = 10):
        if not isinstance(period_ns, int) or period_ns <= 0:
            raise ConfigError(f"period_ns must be a positive integer, not {period_ns!r}")
        self.dut = dut
        self.period_ns = period_ns
        self.log = logging.getLogger(f"cocotb.tb.{type(self).__name__}")

    def start_clock(self) -> None:
        """Start a free-running clock on ``dut.clk``."""
        from cocotb.clock import Clock

        Clock(self.dut.clk, self.period_ns, unit="ns").start()

    async def reset(self, cycles: int = 2) -> None:
        """Hold ``dut.rst`` high for *cycles* rising edges, then release it after an edge."""
        from cocotb.triggers import RisingEdge

        self.dut.rst.value = 1
        for _ in range(cycles):
            await RisingEdge(self.dut.clk)
        self.dut.rst.value = 0
        await RisingEdge(self.dut.clk)

    async def cycles(self, n: int = 1) -> None:
        """Wait for *n* rising clock edges."""
        from cocotb.triggers import ClockCycles

        await ClockCycles(self.dut.clk, n)


#: Stimulus classes drawn by :func:`biased_vector`, with their relative weights.
VECTOR_CLASSES: tuple[tuple[str, int], ...] = (
    ("zero", 1),
    ("ones", 1),
    ("single", 3),
    ("sparse", 5),
    ("dense", 5),
    ("uniform", 5),
)


def class_goals(transactions: int, share: float = 0.4) -> dict[str, int]:
    """Coverage goals of a random run of :func:`biased_vector` draws: every vector class at
    least ``share`` of its expected count (keys ``class_<name>``)."""
    total = sum(w for _, w in VECTOR_CLASSES)
    return {f"class_{name}": int(share * transactions * w / total) for name, w in VECTOR_CLASSES}


def biased_vector(rng: random.Random, width: int) -> tuple[str, int]:
    """Draw one *width*-bit vector from a mix biased towards corner cases.

    Returns ``(class, value)`` where class is one of :data:`VECTOR_CLASSES`: all zero,
    all ones, exactly one bit, sparse (each bit set with probability ~1/8 or at least
    one in *width*), dense (each bit clear with that probability) or uniform.
    """
    names = [name for name, _ in VECTOR_CLASSES]
    weights = [weight for _, weight in VECTOR_CLASSES]
    kind = rng.choices(names, weights)[0]
    full = (1 << width) - 1
    if kind == "zero":
        return kind, 0
    if kind == "ones":
        return kind, full
    if kind == "single":
        return kind, 1 << rng.randrange(width)
    if kind in ("sparse", "dense"):
        p = max(1.0 / width, 0.125)
        value = sum(1 << i for i in range(width) if rng.random() < p)
        return kind, value if kind == "sparse" else full ^ value
    return kind, rng.getrandbits(width)


class Scoreboard:
    """Compare DUT responses with golden-model responses and remember the mismatches.

    Call :meth:`check` once per transaction and :meth:`finish` at the end of the test;
    ``finish`` raises ``AssertionError`` listing the first mismatches, or when nothing
    was checked (a testbench that checks nothing must not pass).
    """

    def __init__(self, name: str, *, log: logging.Logger | None = None, keep: int = 10):
        self.name = name
        self.log = log or logging.getLogger(f"cocotb.tb.{name}")
        self.keep = keep
        self.checked = 0
        self.mismatches: list[str] = []
        self.errors = 0

    def check(self, stimulus: Any, expected: Any, got: Any) -> bool:
        """Score one transaction; return True when *got* equals *expected*."""
        self.checked += 1
        if got == expected:
            return True
        self.errors += 1
        if len(self.mismatches) < self.keep:
            msg = f"stimulus {stimulus}: expected {expected}, got {got}"
            self.mismatches.append(msg)
            self.log.error("%s mismatch: %s", self.name, msg)
        return False

    def finish(self) -> None:
        """Assert that transactions were checked and that all of them matched."""
        if self.checked == 0:
            raise AssertionError(f"{self.name}: scoreboard checked no transactions")
        if self.errors:
            shown = "\n  ".join(self.mismatches)
            raise AssertionError(
                f"{self.name}: {self.errors} of {self.checked} transactions mismatched; first:\n  {shown}"
            )
        self.log.info("%s: %d transactions matched the golden model", self.name, self.checked)
