"""JSON-lines transaction traces of the hardware structures: recording and reading.

The one trace format of the DARSIE, ILP, uniform-vector (UV), WarpMan and CAPRI structures
(:func:`golden.structures.registry.traced_structures`); G-Scalar records register-value
traces in its own format.

A trace is the ordered list of clock cycles one structure instance performed, each
cycle as its ops (requests) and its outputs (responses), starting from the reset state.
Replaying the ops on the RTL (tb/darsie/replay.py) and on a fresh golden instance, and
comparing both with the recorded outputs, is the trace-driven cosimulation of DESIGN.md.

File format (``*.jsonl``, UTF-8, one JSON object per line)
---------------------------------------------------------
Line 1, the header::

    {"format": "simtlab-trace/1", "structure": "skip_table",
     "params": {"tbs": 2, "entries": 4, "warps": 8, "pc_width": 16},
     "meta": {"workload": "mm", "tb": 3, "seed": 1}}

``structure`` is a key of :func:`golden.structures.registry.traced_structures`; ``params`` are the
fields of that structure's parameter dataclass (the RTL component takes the same
keywords); ``meta`` is free-form provenance (workload, variant, SM, TB slot, seed...).

Every further line is one clock cycle::

    {"ops": {"rd0_en": 1, "rd0_pc": 64}, "out": {"rd0_hit": 0, ...}}

``ops`` holds the fields of the ops dataclass that differ from their default (the idle
request), so idle fields are omitted; ``out`` holds every output field. Integers only
(enums are written as their integer value). Blank lines are ignored.

Recording from the golden model
-------------------------------
Every traced golden class takes ``recorder=`` (a :class:`TraceRecorder`); its ``step``
then appends one line per cycle, and its per-event methods (``probe``, ``alloc``...)
go through ``step`` so they are recorded as well. The DARSIE timing mechanism creates
one recorder per structure instance it wants to trace, e.g. under ``build/traces/``::

    with TraceRecorder.open(path, "skip_table", params, meta={"workload": "mm"}) as rec:
        table = SkipTable(params, recorder=rec)
        ...
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import IO, Any

from golden.errors import ConfigError
from golden.structures.registry import traced_structures

__all__ = ["TRACE_FORMAT", "Trace", "TraceRecorder", "read_trace", "trace_files"]

#: Value of the header's ``format`` key.
TRACE_FORMAT = "simtlab-trace/1"


def _int_fields(obj: Any) -> dict[str, int]:
    return {f.name: int(getattr(obj, f.name)) for f in fields(obj)}


class TraceRecorder:
    """Appends the cycles of one structure instance to a JSON-lines trace.

    Parameters
    ----------
    stream : text file
        Where lines go (the recorder writes the header immediately).
    structure : str
        Structure name (a key of ``STRUCTURES``).
    params : dataclass
        The structure's parameter dataclass instance.
    meta : dict, optional
        Provenance written into the header.
    """

    def __init__(self, stream: IO[str], structure: str, params: Any, meta: dict | None = None):
        STRUCTURES = traced_structures()

        if structure not in STRUCTURES:
            raise ConfigError(f"trace: unknown structure {structure!r} "
                              f"(known: {', '.join(STRUCTURES)})")
        if not isinstance(params, STRUCTURES[structure].params_cls):
            raise ConfigError(f"trace: params of {structure} must be a "
                              f"{STRUCTURES[structure].params_cls.__name__}, not {params!r}")
        self._stream = stream
        self._owns = False
        self.structure = structure
        self.params = params
        self.cycles = 0
        header = {"format": TRACE_FORMAT, "structure": structure, "params": asdict(params),
                  "meta": dict(meta or {})}
        stream.write(json.dumps(header, sort_keys=True) + "\n")

    @classmethod
    def open(cls, path: str | Path, structure: str, params: Any,
             meta: dict | None = None) -> "TraceRecorder":
        """Create (truncate) the file at *path* and record into it; close with :meth:`close`."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        stream = path.open("w", encoding="utf-8")
        try:
            rec = cls(stream, structure, params, meta)
        except ConfigError:
            stream.close()
            path.unlink()
            raise
        rec._owns = True
        return rec

    def record(self, ops: Any, outputs: Any) -> None:
        """Append one cycle: the non-default fields of *ops* and every field of *outputs*."""
        idle = type(ops)()
        changed = {f.name: int(getattr(ops, f.name)) for f in fields(ops)
                   if getattr(ops, f.name) != getattr(idle, f.name)}
        self._stream.write(json.dumps({"ops": changed, "out": _int_fields(outputs)},
                                      sort_keys=True) + "\n")
        self.cycles += 1

    def close(self) -> None:
        """Flush, and close the file if this recorder opened it."""
        self._stream.flush()
        if self._owns:
            self._stream.close()

    def __enter__(self) -> "TraceRecorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass(frozen=True)
class Trace:
    """A trace read back: header fields plus ``cycles`` as (ops, outputs) dataclass pairs."""

    path: str
    structure: str
    params: Any
    meta: dict
    cycles: list[tuple[Any, Any]]


def _build(cls: type, data: Any, where: str, complete: bool) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected an object, got {type(data).__name__}")
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {unknown} for {cls.__name__}")
    missing = sorted(names - set(data))
    if complete and missing:
        raise ConfigError(f"{where}: missing field(s) {missing} for {cls.__name__}")
    for key, value in data.items():
        if not isinstance(value, int) or isinstance(value, bool):
            raise ConfigError(f"{where}.{key}: expected an integer, got {value!r}")
    return cls(**data)


def read_trace(path: str | Path) -> Trace:
    """Read and validate a trace file; errors name the file, line and field."""
    STRUCTURES = traced_structures()

    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read trace: {exc.strerror or exc}") from None
    rows = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if not rows:
        raise ConfigError(f"{path}: empty trace (no header line)")

    def parse(n: int, line: str) -> Any:
        try:
            return json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{n}: malformed JSON: {exc.msg}") from None

    header = parse(*rows[0])
    if not isinstance(header, dict) or header.get("format") != TRACE_FORMAT:
        raise ConfigError(f"{path}:1: not a {TRACE_FORMAT} header")
    structure = header.get("structure")
    if structure not in STRUCTURES:
        raise ConfigError(f"{path}:1: unknown structure {structure!r} (known: {', '.join(STRUCTURES)})")
    info = STRUCTURES[structure]
    params_raw = header.get("params")
    if not isinstance(params_raw, dict):
        raise ConfigError(f"{path}:1: params: expected an object")
    try:
        params = info.params_cls(**params_raw)
    except TypeError as exc:
        raise ConfigError(f"{path}:1: params: {exc}") from None
    cycles = []
    for n, line in rows[1:]:
        row = parse(n, line)
        if not isinstance(row, dict) or set(row) != {"ops", "out"}:
            raise ConfigError(f"{path}:{n}: expected an object with keys 'ops' and 'out'")
        cycles.append((_build(info.ops_cls, row["ops"], f"{path}:{n}: ops", complete=False),
                       _build(info.outputs_cls, row["out"], f"{path}:{n}: out", complete=True)))
    meta = header.get("meta") or {}
    return Trace(path=str(path), structure=structure, params=params, meta=dict(meta),
                 cycles=cycles)


def trace_files(directory: str | Path, structure: str | None = None) -> list[Path]:
    """Sorted ``*.jsonl`` files under *directory* (recursively), optionally only those whose
    header names *structure*. A missing directory raises ConfigError."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ConfigError(f"trace directory {directory} does not exist")
    found = []
    for path in sorted(directory.rglob("*.jsonl")):
        if structure is None:
            found.append(path)
            continue
        with path.open(encoding="utf-8") as f:
            first = f.readline()
        try:
            header = json.loads(first)
        except json.JSONDecodeError:
            raise ConfigError(f"{path}:1: malformed JSON header") from None
        if isinstance(header, dict) and header.get("structure") == structure:
            found.append(path)
    return found

