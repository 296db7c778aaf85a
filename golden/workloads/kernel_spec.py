"""The argument spec of a user kernel: what ``simtlab run FILE.ptx --args SPEC.yaml`` launches.

A spec is a small YAML file::

    kernel: saxpy                 # the .entry to launch (or --kernel)
    grid: 40                      # int or [x, y, z] (or --grid X,Y,Z)
    block: 256                    # int or [x, y, z] (or --block X,Y,Z)
    shared_mem: 0                 # bytes of dynamic (extern __shared__) memory, default 0
    args:                         # the kernel's parameters, in order
      - {name: a, value: 2.5, dtype: float32}                 # a scalar
      - {name: x, npy: x.npy}                                  # an array from a file
      - {name: y, generate: random, dtype: float32, shape: 10000, seed: 1, low: -1, high: 1}
      - {name: n, value: 10000, dtype: int32}
    outputs:                      # arrays read back after the launch
      - {name: y, save: y_out.npy, rtol: 1.0e-6}
    reference: saxpy_ref.py:reference   # func(**inputs) -> {output name: expected array}

* ``npy`` paths and the ``reference`` module are relative to the spec's folder; ``save``
  paths are relative to the current directory (like ``--json``).
* ``generate`` is ``zeros``, ``ones``, ``arange`` (``start``, ``step``) or ``random``
  (``seed``, ``low``, ``high``: uniform in [low, high), default [0, 1) for floats and
  [0, 100) for integers). Without ``seed`` an argument draws from
  ``numpy.random.default_rng([run seed, argument index])``.
* An output is checked against ``reference: FILE.npy`` of its own entry, or against what
  the top-level ``reference`` function returns for it (a dict by name, or one array when
  one output is checked that way). Float outputs compare within ``rtol``/``atol``
  (default exact); integers compare exactly.
* In a ``--workloads DIR`` folder a spec also names its kernel file (``ptx: FILE.ptx`` or
  ``FILE.cu``) and may give ``name``, ``description`` and ``stands_for`` (a list of
  ``"REPORT PREFIX: text"`` entries, e.g. ``"Locality: my stencil"``: the reports that
  select their workloads by that prefix include it under ``simtlab report --workloads DIR``).

:func:`load_spec` reads and checks a spec; every problem is one
:class:`~golden.errors.ConfigError` line naming ``file:line: key path``, e.g.
``spec.yaml:9: args[2].dtype: unknown dtype 'f33'``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from golden.errors import ConfigError

#: dtype names a spec accepts (numpy names and PTX's) -> numpy dtype
DTYPES = {
    **{n: np.dtype(n) for n in ("int8", "uint8", "int16", "uint16", "int32", "uint32",
                                "int64", "uint64", "float16", "float32", "float64")},
    **{p: np.dtype(n) for p, n in (("s8", "int8"), ("u8", "uint8"), ("s16", "int16"),
                                   ("u16", "uint16"), ("s32", "int32"), ("u32", "uint32"),
                                   ("s64", "int64"), ("u64", "uint64"), ("f16", "float16"),
                                   ("f32", "float32"), ("f64", "float64"))},
}

GENERATORS = ("zeros", "ones", "arange", "random")

#: largest generated array (bytes): far beyond what a simulation can process, so a larger
#: shape is a typo rather than an input
MAX_ARRAY_BYTES = 256 << 20

_TOP_KEYS = ("name", "description", "stands_for", "ptx", "kernel", "grid", "block",
             "shared_mem", "args", "outputs", "reference")
_ARG_KEYS = ("name", "value", "npy", "generate", "dtype", "shape", "seed", "low", "high",
             "start", "step")
_OUT_KEYS = ("name", "save", "reference", "rtol", "atol")


@dataclass(frozen=True)
class ArgSpec:
    """One kernel parameter: a scalar (``value``), an array read from ``npy`` or an array
    made by ``generate``. ``index`` is its position in the parameter list."""

    index: int
    name: str
    dtype: np.dtype | None
    value: Any = None
    npy: Path | None = None
    generate: str | None = None
    shape: tuple[int, ...] = ()
    seed: int | None = None
    low: float | None = None
    high: float | None = None
    start: float = 0
    step: float = 1

    @property
    def is_array(self) -> bool:
        return self.value is None


@dataclass(frozen=True)
class OutputSpec:
    """An array argument read back after the launch: saved to ``save`` and/or compared with
    ``reference`` (a ``.npy`` file) or the spec's reference function, within ``rtol``/``atol``."""

    name: str
    save: Path | None = None
    reference: Path | None = None
    rtol: float = 0.0
    atol: float = 0.0


@dataclass(frozen=True)
class KernelSpec:
    """A checked spec file: the launch (kernel, grid, block, dynamic shared bytes), the
    arguments in order, the outputs and the optional reference function ``(file, func)``;
    ``lines`` maps key paths (``args[2].dtype``) to their line in the file."""

    path: Path
    kernel: str | None
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    shared_mem: int
    args: tuple[ArgSpec, ...]
    outputs: tuple[OutputSpec, ...]
    reference_fn: tuple[Path, str] | None = None
    name: str | None = None
    description: str | None = None
    ptx: Path | None = None
    #: ``stands_for`` entries (``"Locality: my stencil"``): the reports that include it
    stands_for: tuple[str, ...] = ()
    lines: dict = field(default_factory=dict, compare=False, repr=False)

    def where(self, key: str) -> str:
        """``file:line`` of a key path of this spec (the file alone if unknown)."""
        return f"{self.path.name}:{self.lines[key]}" if key in self.lines else self.path.name


# --------------------------------------------------------------------------- YAML with lines

def _compose(path: Path) -> tuple[Any, dict[str, int]]:
    """The YAML file's data and the 1-based line of every key path (``args[2].dtype``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the spec: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text (UTF-8) YAML file") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path.name}:{mark.line + 1}" if mark else path.name
        raise ConfigError(f"{where}: malformed YAML: {getattr(exc, 'problem', None) or exc}") \
            from None
    lines: dict[str, int] = {}
    if node is None:
        return {}, lines
    loader = yaml.SafeLoader("")

    def walk(n, key: str):
        lines.setdefault(key, n.start_mark.line + 1)
        if isinstance(n, yaml.MappingNode):
            out = {}
            for kn, vn in n.value:
                k = loader.construct_object(kn, deep=True)
                if not isinstance(kn, yaml.ScalarNode):
                    raise ConfigError(f"{path.name}:{kn.start_mark.line + 1}: {key or 'top level'}"
                                      f": a key must be a plain name, not a "
                                      f"{type(k).__name__}")
                sub = f"{key}.{k}" if key else str(k)
                if k in out:
                    raise ConfigError(f"{path.name}:{kn.start_mark.line + 1}: {sub}: "
                                      f"given twice")
                lines[sub] = kn.start_mark.line + 1
                out[k] = walk(vn, sub)
            return out
        if isinstance(n, yaml.SequenceNode):
            return [walk(v, f"{key}[{i}]") for i, v in enumerate(n.value)]
        return loader.construct_object(n, deep=True)

    return walk(node, ""), lines


class _Checker:
    """Raises one ``file:line: key: message`` error."""

    def __init__(self, path: Path, lines: dict[str, int]):
        self.path, self.lines = path, lines

    def fail(self, key: str, message: str):
        k = key
        while k and k not in self.lines:
            k = k.rsplit(".", 1)[0] if "." in k else ""
        line = self.lines.get(k)
        where = f"{self.path.name}:{line}" if line else self.path.name
        raise ConfigError(f"{where}: {key}: {message}" if key else f"{where}: {message}")

    def keys(self, data: dict, key: str, known: tuple[str, ...]):
        if not isinstance(data, dict):
            self.fail(key, f"expected a mapping of {', '.join(known)}, got {_describe(data)}")
        for k in data:
            if k not in known:
                self.fail(f"{key}.{k}" if key else str(k),
                          f"unknown key (known: {', '.join(known)})")

    def number(self, value, key: str, integer: bool = False, positive: bool = False):
        ok = isinstance(value, int) if integer else isinstance(value, (int, float))
        if isinstance(value, bool) or not ok:
            self.fail(key, f"expected {'an integer' if integer else 'a number'}, "
                           f"got {_describe(value)}")
        if positive and value < 1:
            self.fail(key, f"expected a positive integer, got {value}")
        if not integer and not np.isfinite(value):
            self.fail(key, f"expected a finite number, got {value}")
        return value

    def dtype(self, value, key: str) -> np.dtype:
        if not isinstance(value, str) or value not in DTYPES:
            self.fail(key, f"unknown dtype {value!r} (known: "
                           f"{', '.join(n for n in DTYPES if not n[1:].isdigit())} "
                           f"or s32/u32/f32...)")
        return DTYPES[value]

    def dim3(self, value, key: str) -> tuple[int, int, int]:
        items = value if isinstance(value, list) else [value]
        if not 1 <= len(items) <= 3:
            self.fail(key, f"expected 1 to 3 positive integers, got {len(items)}")
        dims = tuple(self.number(v, key, integer=True, positive=True) for v in items)
        return dims + (1,) * (3 - len(dims))

    def text(self, value, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            self.fail(key, f"expected a non-empty string, got {_describe(value)}")
        return value

    def file(self, value, key: str, suffixes: tuple[str, ...]) -> Path:
        p = Path(self.text(value, key))
        if p.suffix not in suffixes:
            self.fail(key, f"expected a {' or '.join(suffixes)} file, got {value!r}")
        full = p if p.is_absolute() else self.path.parent / p
        if not full.is_file():
            self.fail(key, f"no such file {value!r} (relative to {self.path.parent or '.'})")
        return full


def _describe(value) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:37] + '...' if len(text) > 40 else text}"


# --------------------------------------------------------------------------- the spec

def load_spec(path: str | Path) -> KernelSpec:
    """Read and check the spec at ``path`` (see the module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such spec file")
    data, lines = _compose(path)
    ck = _Checker(path, lines)
    if data == {}:
        data = {}
    ck.keys(data, "", _TOP_KEYS)
    kernel = ck.text(data["kernel"], "kernel") if "kernel" in data else None
    grid = ck.dim3(data["grid"], "grid") if "grid" in data else None
    block = ck.dim3(data["block"], "block") if "block" in data else None
    shared = ck.number(data.get("shared_mem", 0), "shared_mem", integer=True)
    if shared < 0:
        ck.fail("shared_mem", f"expected bytes >= 0, got {shared}")
    raw_args = data.get("args")
    if not isinstance(raw_args, list) or not raw_args:
        ck.fail("args", "expected a list of the kernel's arguments, in order"
                if raw_args is None or raw_args == [] else
                f"expected a list of the kernel's arguments, got {_describe(raw_args)}")
    args = tuple(_arg(ck, i, a) for i, a in enumerate(raw_args))
    names = {}
    for a in args:
        if a.name in names:
            ck.fail(f"args[{a.index}].name", f"{a.name!r} is already args[{names[a.name]}]")
        names[a.name] = a.index
    raw_out = data.get("outputs", [])
    if not isinstance(raw_out, list):
        ck.fail("outputs", f"expected a list of output arrays, got {_describe(raw_out)}")
    outputs = tuple(_output(ck, i, o, {a.name: a for a in args}) for i, o in enumerate(raw_out))
    seen = set()
    for i, o in enumerate(outputs):
        if o.name in seen:
            ck.fail(f"outputs[{i}].name", f"{o.name!r} is listed twice")
        seen.add(o.name)
    ref = None
    if "reference" in data:
        text = ck.text(data["reference"], "reference")
        file, _, func = text.rpartition(":")
        if not file or not func.isidentifier():
            ck.fail("reference", f"expected FILE.py:FUNCTION, got {text!r}")
        ref = (ck.file(file, "reference", (".py",)), func)
        if not any(o.reference is None for o in outputs):
            ck.fail("reference", "no output is left for the reference function to check "
                                 "(list it under outputs without its own reference .npy)")
    ptx = ck.file(data["ptx"], "ptx", (".ptx", ".cu")) if "ptx" in data else None
    name = ck.text(data["name"], "name") if "name" in data else None
    if name is not None and not name.replace("_", "").replace("-", "").isalnum():
        ck.fail("name", f"expected letters, digits, '_' or '-', got {name!r}")
    desc = ck.text(data["description"], "description") if "description" in data else None
    stands = _stands_for(ck, data["stands_for"]) if "stands_for" in data else ()
    spec = KernelSpec(path=path, kernel=kernel, grid=grid, block=block, shared_mem=shared,
                      args=args, outputs=outputs, reference_fn=ref, name=name,
                      description=desc, ptx=ptx, stands_for=stands, lines=lines)
    return spec


def _stands_for(ck: _Checker, raw) -> tuple[str, ...]:
    """``stands_for``: one ``"PREFIX: text"`` string or a list of them."""
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for i, item in enumerate(items):
        key = f"stands_for[{i}]" if isinstance(raw, list) else "stands_for"
        text = ck.text(item, key)
        if ":" not in text or not text.split(":", 1)[0].strip():
            ck.fail(key, f"expected 'REPORT PREFIX: text' (e.g. 'Locality: my kernel'), "
                         f"got {text!r}")
        out.append(text.strip())
    return tuple(out)


def _arg(ck: _Checker, i: int, a) -> ArgSpec:
    key = f"args[{i}]"
    ck.keys(a, key, _ARG_KEYS)
    if "name" not in a:
        ck.fail(key, "missing 'name'")
    name = ck.text(a["name"], f"{key}.name")
    if not name.isidentifier():
        ck.fail(f"{key}.name", f"{name!r} is not a valid Python identifier (the reference "
                               f"function receives it as a keyword argument)")
    kinds = [k for k in ("value", "npy", "generate") if k in a]
    if len(kinds) != 1:
        ck.fail(key, f"give exactly one of value (a scalar), npy (an array file) or generate "
                     f"(an array generator); got {', '.join(kinds) or 'none'}")
    kind = kinds[0]
    dtype = ck.dtype(a["dtype"], f"{key}.dtype") if "dtype" in a else None
    allowed = {"value": ("name", "value", "dtype"), "npy": ("name", "npy", "dtype"),
               "generate": _ARG_KEYS}[kind]
    for k in a:
        if k not in allowed:
            ck.fail(f"{key}.{k}", f"does not go with {kind} (allowed: {', '.join(allowed)})")
    if kind == "value":
        if dtype is None:
            ck.fail(key, "a scalar needs a dtype (e.g. int32, float32)")
        v = ck.number(a["value"], f"{key}.value", integer=dtype.kind in "iu")
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= v <= info.max:
                ck.fail(f"{key}.value", f"{v} does not fit in {dtype.name}")
        return ArgSpec(index=i, name=name, dtype=dtype, value=dtype.type(v))
    if kind == "npy":
        return ArgSpec(index=i, name=name, dtype=dtype,
                       npy=ck.file(a["npy"], f"{key}.npy", (".npy",)))
    gen = a["generate"]
    if gen not in GENERATORS:
        ck.fail(f"{key}.generate", f"unknown generator {gen!r} (known: {', '.join(GENERATORS)})")
    if dtype is None:
        ck.fail(key, "a generated array needs a dtype")
    if "shape" not in a:
        ck.fail(key, "a generated array needs a shape (an int or a list of ints)")
    shape = a["shape"] if isinstance(a["shape"], list) else [a["shape"]]
    shape = tuple(ck.number(s, f"{key}.shape", integer=True, positive=True) for s in shape)
    nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if nbytes > MAX_ARRAY_BYTES:
        ck.fail(f"{key}.shape", f"{nbytes:,} bytes is more than the {MAX_ARRAY_BYTES >> 20} MiB "
                                f"a generated array may have (the simulator is slow: use "
                                f"small inputs)")
    extra = {"zeros": (), "ones": (), "arange": ("start", "step"),
             "random": ("seed", "low", "high")}[gen]
    for k in ("seed", "low", "high", "start", "step"):
        if k in a and k not in extra:
            ck.fail(f"{key}.{k}", f"does not go with generate: {gen}")
    seed = ck.number(a["seed"], f"{key}.seed", integer=True) if "seed" in a else None
    if seed is not None and seed < 0:
        ck.fail(f"{key}.seed", f"expected a seed >= 0, got {seed}")
    nums = {k: ck.number(a[k], f"{key}.{k}", integer=dtype.kind in "iu" and k in ("low", "high"))
            for k in ("low", "high", "start", "step") if k in a}
    low = nums.get("low", 0)
    high = nums.get("high", 1 if dtype.kind == "f" else 100)
    if gen == "random" and not low < high:
        ck.fail(f"{key}.high" if "high" in a else f"{key}.low",
                f"expected low < high, got [{low}, {high})")
    if gen == "random" and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if low < info.min or high - 1 > info.max:
            ck.fail(f"{key}.low", f"[{low}, {high}) does not fit in {dtype.name}")
    return ArgSpec(index=i, name=name, dtype=dtype, generate=gen, shape=shape, seed=seed,
                   low=low, high=high, start=nums.get("start", 0), step=nums.get("step", 1))


def _output(ck: _Checker, i: int, o, args: dict[str, ArgSpec]) -> OutputSpec:
    key = f"outputs[{i}]"
    if isinstance(o, str):
        o = {"name": o}
    ck.keys(o, key, _OUT_KEYS)
    if "name" not in o:
        ck.fail(key, "missing 'name' (an array argument)")
    name = ck.text(o["name"], f"{key}.name")
    if name not in args:
        ck.fail(f"{key}.name", f"{name!r} is not an argument (arguments: {', '.join(args)})")
    if not args[name].is_array:
        ck.fail(f"{key}.name", f"{name!r} is a scalar; only arrays are read back")
    ref = ck.file(o["reference"], f"{key}.reference", (".npy",)) if "reference" in o else None
    tol = {}
    for k in ("rtol", "atol"):
        if k in o:
            tol[k] = float(ck.number(o[k], f"{key}.{k}"))
            if tol[k] < 0:
                ck.fail(f"{key}.{k}", f"expected >= 0, got {o[k]}")
    save = Path(ck.text(o["save"], f"{key}.save")) if "save" in o else None
    if save is not None and save.suffix != ".npy":
        ck.fail(f"{key}.save", f"expected a .npy file name, got {o['save']!r}")
    return OutputSpec(name=name, save=save, reference=ref, **tol)


def parse_dim3(text: str, what: str) -> tuple[int, int, int]:
    """``--grid 40`` / ``--block 16,16`` -> a 3-tuple of positive ints (ConfigError if not)."""
    parts = text.split(",")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise ConfigError(f"{what}: expected 1 to 3 positive integers such as 256 or 16,16, "
                          f"got {text!r}")
    return dims + (1,) * (3 - len(dims))
