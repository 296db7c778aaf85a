"""Typed mechanism arguments: ``name:key=value,...`` parsed by each mechanism's declared
parameters (issue 74).

A factory's parameters are declared in one of two ways:

* by its signature: every keyword parameter after ``config`` with a type annotation
  (``def make_ilp_sc(config, entries: int = 8)``);
* for a factory that passes ``**kw`` on to a parameter dataclass, by :func:`takes`
  beside it: the dataclass's fields, less those the registry name already fixes
  (``coarse2`` fixes ``group`` and ``duel``) and internal ones that are no user argument.

:func:`parameters` returns ``({key: type}, fixed keys)``; :func:`convert` parses one
value strictly by its type. Booleans take true/false/on/off/yes/no/1/0 (any case);
integers and floats must parse whole; strings pass unchanged to the mechanism's own
validation. The text of a mechanism is never rewritten: results stay keyed by what the
user (or a report) wrote.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
import typing
from dataclasses import dataclass

from golden.errors import ConfigError

TRUE = ("true", "on", "yes", "1")
FALSE = ("false", "off", "no", "0")
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class Takes:
    """What a ``**kw`` factory accepts: the fields of ``params`` (a dataclass) except
    ``fixed`` (set by the registry name) and ``internal`` (not user arguments)."""

    params: type
    fixed: tuple = ()
    internal: tuple = ()


#: (module, function name) of a ``**kw`` factory -> its :class:`Takes`. A table rather
#: than a function attribute: a factory in a compiled module (``make native``) is a
#: builtin function, which takes no attributes.
_DECLARED: dict[tuple[str, str], Takes] = {}


def _id(factory) -> tuple[str, str]:
    return factory.__module__, factory.__name__


def takes(params: type, *, fixed=(), internal=()):
    """Decorator declaring a ``**kw`` factory's arguments (see :class:`Takes`); returns
    the factory unchanged."""
    def mark(factory):
        _DECLARED[_id(factory)] = Takes(params, tuple(fixed), tuple(internal))
        return factory
    return mark


def _kind(annotation) -> type:
    """bool, int, float or str of an annotation (``int | None`` -> int); str otherwise."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else str
    return annotation if annotation in (bool, int, float) else str


def parameters(factory) -> tuple[dict[str, type], frozenset]:
    """``({key: bool|int|float|str}, fixed keys)`` a registry factory accepts."""
    decl = _DECLARED.get(_id(factory))
    if decl is not None:
        hints = typing.get_type_hints(decl.params)
        skip = set(decl.fixed) | set(decl.internal)
        return ({f.name: _kind(hints[f.name]) for f in dataclasses.fields(decl.params)
                 if f.name not in skip}, frozenset(decl.fixed))
    sig = inspect.signature(factory, eval_str=True)
    out = {}
    for i, (k, p) in enumerate(sig.parameters.items()):
        if i == 0 or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            if p.kind is p.VAR_KEYWORD:
                raise TypeError(f"{factory.__qualname__} takes **{k}: declare its "
                                f"arguments with golden.mechanisms.arguments.takes")
            continue
        ann = p.annotation if p.annotation is not p.empty else type(p.default)
        out[k] = _kind(ann)
    return out, frozenset()


def accepted(kind: type) -> str:
    """The accepted values of a type, for error messages."""
    if kind is bool:
        return "true/false/on/off/yes/no/1/0"
    if kind is int:
        return "an integer"
    if kind is float:
        return "a number"
    return "a word"


def accepted_arguments(name: str, params: dict) -> str:
    """``"accepted: entries=<int>, free_dead=<bool>; <bool>: true/false/..."`` (or that
    ``name`` takes none), for error messages."""
    if not params:
        return f"{name} takes no arguments"
    short = {bool: "bool", int: "int", float: "number", str: "word"}
    out = "accepted: " + ", ".join(f"{k}=<{short[t]}>" for k, t in params.items())
    return out + (f"; <bool>: {accepted(bool)}" if bool in params.values() else "")


def convert(text: str, key: str, value: str, kind: type):
    """``value`` as ``kind``; a one-line ConfigError naming ``text``, ``key`` and the
    accepted values if it does not parse."""
    v = value.lower()
    if kind is bool and v in TRUE + FALSE:
        return v in TRUE
    if kind is int and _INT.fullmatch(value):
        return int(value)
    if kind is float and _FLOAT.fullmatch(value):
        return float(value)
    if kind is str:
        return value
    raise ConfigError(f"mechanism '{text}': {key} must be {accepted(kind)}, not {value!r}")
