"""Load and validate GPU configurations from YAML.

``load_config(name_or_path, overrides=None)`` returns a frozen :class:`GPUConfig`.
A name is a file stem in this package's folder (``gtx480``) or a short alias
(``pascal``, ``fx5800``); anything containing a path separator or ending in
``.yaml``/``.yml`` is read as a path.

A file may start with ``inherits: <name>``: the named configuration is loaded first and
the file's keys replace the inherited ones key by key (nested mappings merge). The merged
result is validated like a stand-alone file, and every error names the file that supplied
the offending key (for example ``pascal_1080ti.yaml: memory.l1.assoc: expected int, got
str 'four'``). ``overrides`` maps dotted keys to values (``{"memory.l1.assoc": 4}``) and is
applied last, with the same checks; its errors name ``overrides``. Every key is required
except the few whose schema field declares a default (e.g. ``memory.l1.fetch_group``).

All problems raise :class:`golden.errors.ConfigError`.
"""

from __future__ import annotations

import math
import types
import typing
from dataclasses import fields, is_dataclass
from pathlib import Path

import yaml

from golden.errors import ConfigError
from golden.configs.schema import GPUConfig

CONFIG_DIR = Path(__file__).resolve().parent

#: Short command-line names -> file stems.
ALIASES = types.MappingProxyType({
    "pascal": "pascal_1080ti",
    "1080ti": "pascal_1080ti",
    "fermi": "gtx480",
    "warpman": "gtx480_warpman",
    "coarse": "gtx480_coarse",
    "fx5800": "quadro_fx5800",
    "gtx280": "gtx280_ilp",
    "ilp": "gtx280_ilp",
})

_MAX_INHERIT_DEPTH = 8


def list_configs() -> list[str]:
    """Names of the shipped configurations (file stems), sorted."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))


def list_aliases() -> dict[str, str]:
    """Short names accepted by :func:`load_config`, mapped to the configuration they mean."""
    return dict(ALIASES)


def resolve_path(name_or_path: str | Path) -> Path:
    """The YAML file a configuration name, alias or path refers to."""
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or "/" in text or "\\" in text \
            or text.endswith((".yaml", ".yml")):
        path = Path(text)
        if not path.is_file():
            raise ConfigError(f"{text}: no such configuration file")
        return path
    stem = ALIASES.get(text, text)
    path = CONFIG_DIR / f"{stem}.yaml"
    if not path.is_file():
        known = ", ".join(list_configs())
        aliases = ", ".join(f"{a} -> {s}" for a, s in sorted(ALIASES.items()))
        raise ConfigError(f"unknown configuration {text!r}; known: {known} "
                          f"(aliases: {aliases})")
    return path


def load_config(name_or_path: str | Path, overrides: dict | None = None) -> GPUConfig:
    """Load, merge (``inherits``), override and validate one configuration."""
    path = resolve_path(name_or_path)
    data, origin = _load_merged(path, chain=())
    if overrides:
        _apply_overrides(data, origin, overrides)
    cfg = _build(GPUConfig, data, origin, (), path.name)
    _check_consistency(cfg, origin, path.name)
    return cfg


# --------------------------------------------------------------------------- reading

class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (plain YAML keeps the last
    one silently, so a typo'd copy of a section would override the real one)."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, f"a mapping key must be a plain name, not a "
                    f"{type(key).__name__}", key_node.start_mark) from None
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first given on line {seen[key]})",
                    key_node.start_mark)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def _read_yaml(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text (UTF-8) YAML file") from None
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"{path.name}:{mark.line + 1}:{mark.column + 1}" if mark else path.name
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{where}: malformed YAML: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path.name}: expected a mapping of keys at the top level, "
                          f"got {type(data).__name__}")
    return data


def _load_merged(path: Path, chain: tuple) -> tuple[dict, dict]:
    """The file's data merged over its ``inherits`` parent, and the origin of every key.

    ``origin`` maps a dotted key path to the file name that supplied it.
    """
    if path.resolve() in chain:
        names = " -> ".join(p.name for p in chain + (path.resolve(),))
        raise ConfigError(f"{path.name}: inherits: cycle {names}")
    if len(chain) >= _MAX_INHERIT_DEPTH:
        raise ConfigError(f"{path.name}: inherits: chain deeper than {_MAX_INHERIT_DEPTH}")
    raw = _read_yaml(path)
    parent = raw.pop("inherits", None)
    if parent is None:
        base, origin = {}, {}
    else:
        if not isinstance(parent, str):
            raise ConfigError(f"{path.name}: inherits: expected a configuration name, "
                              f"got {_describe(parent)}")
        if "/" in parent or parent.endswith((".yaml", ".yml")):
            parent_path = (path.parent / parent)
            if not parent_path.is_file():
                raise ConfigError(f"{path.name}: inherits: no such file {parent}")
        else:
            try:
                parent_path = resolve_path(parent)
            except ConfigError as exc:
                raise ConfigError(f"{path.name}: inherits: {exc}") from None
        base, origin = _load_merged(parent_path, chain + (path.resolve(),))
    _merge(base, raw, origin, (), path.name)
    return base, origin


def _merge(dst: dict, src: dict, origin: dict, prefix: tuple, fname: str) -> None:
    for key, value in src.items():
        kp = prefix + (str(key),)
        if isinstance(value, dict) and isinstance(dst.get(key), dict):
            _merge(dst[key], value, origin, kp, fname)
        else:
            dst[key] = _copy(value)
            for k in [k for k in origin if k[:len(kp)] == kp]:
                del origin[k]
            _mark(origin, kp, value, fname)
        origin.setdefault(kp, fname)


def _mark(origin: dict, kp: tuple, value, fname: str) -> None:
    origin[kp] = fname
    if isinstance(value, dict):
        for k, v in value.items():
            _mark(origin, kp + (str(k),), v, fname)


def _copy(value):
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _apply_overrides(data: dict, origin: dict, overrides: dict) -> None:
    if not isinstance(overrides, dict):
        raise ConfigError(f"overrides: expected a mapping of dotted keys, "
                          f"got {_describe(overrides)}")
    for dotted, value in overrides.items():
        if not isinstance(dotted, str) or not dotted or any(not p for p in dotted.split(".")):
            raise ConfigError(f"overrides: bad key {dotted!r} (expected dotted keys such as "
                              f"'memory.l1.assoc')")
        parts = tuple(dotted.split("."))
        node, cls = data, GPUConfig
        for i, part in enumerate(parts[:-1]):
            sub = _field_types(cls).get(part) if cls is not None else None
            if sub is None or not is_dataclass(sub):
                raise ConfigError(f"overrides: {'.'.join(parts[:i + 1])}: unknown section"
                                  f"{_known(cls)}")
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"overrides: {'.'.join(parts[:i + 1])}: not a section")
            cls = sub
        if parts[-1] not in _field_types(cls):
            raise ConfigError(f"overrides: {dotted}: unknown key{_known(cls)}")
        node[parts[-1]] = _copy(value)
        for k in [k for k in origin if k[:len(parts)] == parts]:
            del origin[k]
        _mark(origin, parts, value, "overrides")


# --------------------------------------------------------------------------- validation

def _field_types(cls) -> dict:
    return typing.get_type_hints(cls)


def _known(cls) -> str:
    if cls is None or not is_dataclass(cls):
        return ""
    return " (known: " + ", ".join(f.name for f in fields(cls)) + ")"


def _describe(value) -> str:
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type(value).__name__} {text}"


def _where(origin: dict, kp: tuple, default: str) -> str:
    while kp:
        if kp in origin:
            return origin[kp]
        kp = kp[:-1]
    return default


def _fail(origin: dict, kp: tuple, default: str, message: str):
    raise ConfigError(f"{_where(origin, kp, default)}: {'.'.join(kp)}: {message}")


def _build(cls, data, origin: dict, kp: tuple, fname: str):
    """Instantiate dataclass ``cls`` from mapping ``data``, checking every key."""
    if not isinstance(data, dict):
        where = _where(origin, kp, fname)
        label = ".".join(kp) if kp else "top level"
        raise ConfigError(f"{where}: {label}: expected a mapping, got {_describe(data)}")
    hints = _field_types(cls)
    for key in data:
        if key not in hints:
            _fail(origin, kp + (str(key),), fname, f"unknown key{_known(cls)}")
    kwargs = {}
    for f in fields(cls):
        fkp = kp + (f.name,)
        if f.name not in data and "default" in f.metadata:
            kwargs[f.name] = f.metadata["default"]
            continue
        if f.name not in data:
            label = ".".join(fkp)
            where = _where(origin, kp, fname) if kp else fname
            raise ConfigError(f"{where}: {label}: missing required key ({f.metadata['doc']})")
        kwargs[f.name] = _value(hints[f.name], f.metadata, data[f.name], origin, fkp, fname)
    return cls(**kwargs)


def _value(tp, meta, value, origin, kp, fname):
    if is_dataclass(tp):
        return _build(tp, value, origin, kp, fname)
    if tp is bool:
        if not isinstance(value, bool):
            _fail(origin, kp, fname, f"expected bool, got {_describe(value)}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            _fail(origin, kp, fname, f"expected int, got {_describe(value)}")
    elif tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            _fail(origin, kp, fname, f"expected float, got {_describe(value)}")
        value = float(value)
        if not math.isfinite(value):
            _fail(origin, kp, fname, f"expected a finite number, got {value}")
    elif tp is str:
        if not isinstance(value, str):
            _fail(origin, kp, fname, f"expected str, got {_describe(value)}")
        if not value.strip():
            _fail(origin, kp, fname, "expected a non-empty string")
        choices = meta.get("choices")
        if choices and value not in choices:
            _fail(origin, kp, fname, f"{value!r} is not one of {', '.join(choices)}")
        return value
    else:  # pragma: no cover - schema uses only the types above
        raise TypeError(f"unsupported schema type {tp!r} at {'.'.join(kp)}")
    choices = meta.get("choices")
    if choices and value not in choices:
        only = " or ".join(str(c) for c in choices)
        _fail(origin, kp, fname, f"{value} is not supported; only {only} "
                                 f"{'is' if len(choices) == 1 else 'are'} supported")
    lo, hi = meta.get("min"), meta.get("max")
    if lo is not None and value < lo:
        _fail(origin, kp, fname, f"{value} is out of range (minimum {lo})")
    if hi is not None and value > hi:
        _fail(origin, kp, fname, f"{value} is out of range (maximum {hi})")
    if meta.get("pow2") and (value <= 0 or int(value) & (int(value) - 1)):
        _fail(origin, kp, fname, f"{value} is not a power of two")
    return value


def _check_consistency(cfg: GPUConfig, origin: dict, fname: str) -> None:
    """Checks that involve more than one key."""
    c, m = cfg.core, cfg.memory

    def fail(path: str, message: str):
        _fail(origin, tuple(path.split(".")), fname, message)

    if c.max_threads_per_sm > c.max_warps_per_sm * c.warp_size:
        fail("core.max_threads_per_sm",
             f"{c.max_threads_per_sm} threads need more than max_warps_per_sm "
             f"({c.max_warps_per_sm}) x warp_size ({c.warp_size})")
    if c.num_schedulers_per_sm > c.max_warps_per_sm:
        fail("core.num_schedulers_per_sm",
             f"{c.num_schedulers_per_sm} schedulers exceed max_warps_per_sm "
             f"({c.max_warps_per_sm})")
    for path, size, assoc, line, parts in (
            ("core.icache.size_bytes", c.icache.size_bytes, c.icache.assoc,
             c.icache.line_bytes, 1),
            ("memory.l1.size_bytes", m.l1.size_bytes, m.l1.assoc, m.l1.line_bytes, 1),
            ("memory.l2.size_bytes", m.l2.size_bytes, m.l2.assoc, m.l2.line_bytes,
             m.l2.partitions)):
        if size and (size % (parts * assoc * line) or size < parts * assoc * line):
            fail(path, f"{size} bytes is not a whole number of sets "
                       f"({'partitions x ' if parts > 1 else ''}assoc x line_bytes = "
                       f"{parts * assoc * line})")
    if m.coalescing.line_bytes < m.coalescing.sector_bytes:
        fail("memory.coalescing.line_bytes",
             f"{m.coalescing.line_bytes} is smaller than sector_bytes "
             f"({m.coalescing.sector_bytes})")
    if m.l1.line_bytes % m.coalescing.sector_bytes:
        fail("memory.l1.line_bytes",
             f"{m.l1.line_bytes} is not a multiple of coalescing.sector_bytes "
             f"({m.coalescing.sector_bytes})")
