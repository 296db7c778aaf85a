"""Synthesis targets: which RTL component to build, at which parameters, under which name.

``synth/targets.yaml`` lists the targets::

    targets:
      - name: cam_8x48                          # Verilog top module and file name
        component: rtl.common.cam.CAM           # dotted path of an amaranth Component class
        params: {entries: 8, tag_width: 48}     # keyword arguments of its constructor
        notes: DARSIE PC skip table of one TB   # optional, copied into the area report
        paper: 82 bits per entry (seed 000 §6.3)  # optional, the paper's figure, shown beside ours

The file is validated when it is loaded; every problem raises
:class:`golden.errors.ConfigError` with the file name and the key path
(``targets[2].params.entries: expected int, got str``).  Parameter names and simple
annotated types (``int``, ``bool``, ``str``, ``float``) are checked against the component's
constructor when the component is built.
"""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from golden.errors import ConfigError

from .errors import SynthError

DEFAULT_TARGETS = Path(__file__).with_name("targets.yaml")

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DOTTED_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")
_TARGET_KEYS = {"name": True, "component": True, "params": False, "notes": False, "paper": False}
_SCALARS = (bool, int, float, str)
_SIMPLE_TYPES = {"int": int, "bool": bool, "str": str, "float": float}


@dataclass(frozen=True)
class Target:
    """One synthesis target: a component class, its constructor keywords and a name.

    ``name`` becomes the Verilog top module and the output file stem; ``where`` is the key
    path of the entry in its YAML file (``targets[2]``) and ``source`` the file, both used
    to point error messages at the offending entry.
    """

    name: str
    component: str
    params: dict[str, Any] = field(default_factory=dict)
    notes: str = ""
    #: The source paper's published figure for this structure (bits, area), shown beside ours.
    paper: str = ""
    where: str = "targets[?]"
    source: str = "<targets>"

    @property
    def class_name(self) -> str:
        """Last component of the dotted class path (``CAM`` for ``rtl.common.cam.CAM``)."""
        return self.component.rpartition(".")[2]

    def describe(self) -> str:
        """``name (Class(k=v, ...))`` for progress lines and error messages."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.name} ({self.class_name}({args}))"


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML safe loader that rejects a mapping key given twice (PyYAML keeps the last)."""


def _construct_unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False):
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark,
                f"found duplicate key {key!r}", key_node.start_mark)
        seen[key] = key_node
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                                 _construct_unique_mapping)


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _fail(source: str, path: str, message: str) -> ConfigError:
    return ConfigError(f"{source}: {path}: {message}" if path else f"{source}: {message}")


def parse_targets(text: str, source: str = "<targets>") -> list[Target]:
    """Parse and validate the YAML text of a targets file into :class:`Target` rows."""
    try:
        doc = yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{source}{where}: malformed YAML: {problem}") from None
    if not isinstance(doc, dict):
        raise _fail(source, "", f"expected a mapping with key 'targets', got {_type_name(doc)}")
    for key in doc:
        if key != "targets":
            raise _fail(source, str(key), "unknown key (expected: targets)")
    if "targets" not in doc:
        raise _fail(source, "targets", "missing required key")
    rows = doc["targets"]
    if not isinstance(rows, list) or not rows:
        raise _fail(source, "targets", f"expected a non-empty list, got {_type_name(rows)}")

    targets: list[Target] = []
    first_seen: dict[str, str] = {}
    for i, row in enumerate(rows):
        where = f"targets[{i}]"
        target = _parse_row(row, where, source)
        if target.name in first_seen:
            raise _fail(source, f"{where}.name",
                        f"duplicate target name {target.name!r} (first given at {first_seen[target.name]})")
        first_seen[target.name] = where
        targets.append(target)
    return targets


def _parse_row(row: Any, where: str, source: str) -> Target:
    if not isinstance(row, dict):
        raise _fail(source, where, f"expected a mapping, got {_type_name(row)}")
    for key in row:
        if key not in _TARGET_KEYS:
            raise _fail(source, f"{where}.{key}",
                        f"unknown key (expected one of: {', '.join(_TARGET_KEYS)})")
    for key, required in _TARGET_KEYS.items():
        if required and key not in row:
            raise _fail(source, f"{where}.{key}", "missing required key")

    name = row["name"]
    if not isinstance(name, str):
        raise _fail(source, f"{where}.name", f"expected str, got {_type_name(name)}")
    if not _NAME_RE.match(name):
        raise _fail(source, f"{where}.name",
                    f"{name!r} is not a valid module name (letters, digits, '_'; not starting with a digit)")

    component = row["component"]
    if not isinstance(component, str):
        raise _fail(source, f"{where}.component", f"expected str, got {_type_name(component)}")
    if not _DOTTED_RE.match(component):
        raise _fail(source, f"{where}.component",
                    f"{component!r} is not a dotted class path like 'rtl.common.cam.CAM'")

    params = row.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise _fail(source, f"{where}.params", f"expected a mapping, got {_type_name(params)}")
    for key, value in params.items():
        if not isinstance(key, str) or not key.isidentifier():
            raise _fail(source, f"{where}.params.{key}", "parameter names must be Python identifiers")
        _check_param_value(value, f"{where}.params.{key}", source)

    notes = row.get("notes", "")
    if notes is None:
        notes = ""
    if not isinstance(notes, str):
        raise _fail(source, f"{where}.notes", f"expected str, got {_type_name(notes)}")

    paper = row.get("paper", "")
    if paper is None:
        paper = ""
    if not isinstance(paper, (str, int, float)) or isinstance(paper, bool):
        raise _fail(source, f"{where}.paper", f"expected str or number, got {_type_name(paper)}")

    return Target(name=name, component=component, params=dict(params), notes=notes.strip(),
                  paper=str(paper).strip(), where=where, source=source)


def _check_param_value(value: Any, path: str, source: str) -> None:
    if isinstance(value, _SCALARS):
        return
    if isinstance(value, list):
        for j, item in enumerate(value):
            if not isinstance(item, _SCALARS):
                raise _fail(source, f"{path}[{j}]",
                            f"expected int, bool, float or str, got {_type_name(item)}")
        return
    raise _fail(source, path, f"expected int, bool, float, str or a list of them, got {_type_name(value)}")


def load_targets(path: str | Path = DEFAULT_TARGETS) -> list[Target]:
    """Read and validate a targets file (default: ``synth/targets.yaml``)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read targets file: {exc.strerror or exc}") from None
    return parse_targets(text, source=str(path))


def select_targets(targets: list[Target], only: list[str] | None) -> list[Target]:
    """The targets named in ``only`` (in that order), or all of them when ``only`` is empty.

    An unknown name raises :class:`ConfigError` listing every known name.
    """
    if not only:
        return list(targets)
    by_name = {t.name: t for t in targets}
    unknown = [n for n in only if n not in by_name]
    if unknown:
        source = targets[0].source if targets else "<targets>"
        raise ConfigError(f"unknown synthesis target{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(map(repr, unknown))} (not in {source}); "
                          f"known targets: {', '.join(by_name)}")
    chosen: list[Target] = []
    for n in only:
        if by_name[n] not in chosen:
            chosen.append(by_name[n])
    return chosen


def component_class(target: Target) -> type:
    """Import the class named by ``target.component``; failures raise :class:`SynthError`."""
    module_name, _, class_name = target.component.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # an ImportError or any error raised while importing the module
        raise SynthError(f"target {target.name}: cannot import module {module_name!r} of component "
                         f"{target.component} ({target.where} in {target.source}): "
                         f"{type(exc).__name__}: {exc}") from exc
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise SynthError(f"target {target.name}: module {module_name!r} has no class {class_name!r} "
                         f"({target.where}.component in {target.source})")
    return cls


def check_params(target: Target, cls: type) -> None:
    """Check ``target.params`` against the constructor signature of ``cls``.

    Unknown keywords, missing required keywords and values that do not match a simple
    annotation (int, bool, str, float) raise :class:`ConfigError` naming the key path.
    """
    try:
        sig = inspect.signature(cls, eval_str=True)
    except Exception:
        try:
            sig = inspect.signature(cls)
        except (TypeError, ValueError):
            return
    params = sig.parameters
    takes_var_kw = any(p.kind is p.VAR_KEYWORD for p in params.values())
    keywords = {n: p for n, p in params.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    for key, value in target.params.items():
        path = f"{target.where}.params.{key}"
        if key not in keywords:
            if takes_var_kw:
                continue
            raise _fail(target.source, path,
                        f"{cls.__name__} has no parameter {key!r} "
                        f"(parameters: {', '.join(keywords) or 'none'})")
        expected = _simple_type(keywords[key].annotation)
        if expected is not None and not _matches(value, expected):
            raise _fail(target.source, path,
                        f"expected {expected.__name__}, got {_type_name(value)} {value!r}")
    for name, p in keywords.items():
        if p.default is p.empty and name not in target.params:
            raise _fail(target.source, f"{target.where}.params",
                        f"missing required parameter {name!r} of {cls.__name__}")


def _simple_type(annotation: Any) -> type | None:
    if isinstance(annotation, str):
        return _SIMPLE_TYPES.get(annotation.strip())
    if annotation in _SIMPLE_TYPES.values():
        return annotation
    return None


def _matches(value: Any, expected: type) -> bool:
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if expected is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, expected)


def build_component(target: Target):
    """Import, check and construct the component of ``target``.

    Returns the ``amaranth.lib.wiring.Component`` instance.  A constructor that rejects the
    parameters (``TypeError``/``ValueError``) gives a :class:`ConfigError` at the target's
    ``params`` path; any other failure gives a :class:`SynthError` naming the component.
    """
    from amaranth.lib import wiring

    cls = component_class(target)
    check_params(target, cls)
    try:
        component = cls(**target.params)
    except (TypeError, ValueError) as exc:
        raise _fail(target.source, f"{target.where}.params",
                    f"{target.component} rejected {target.params}: {exc}") from exc
    except Exception as exc:
        raise SynthError(f"target {target.name}: constructing {target.component}({target.params}) "
                         f"failed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(component, wiring.Component):
        raise SynthError(f"target {target.name}: {target.component} is not an "
                         f"amaranth.lib.wiring.Component (got {type(component).__name__}); "
                         "the flow takes its ports from the component's signature")
    return component
