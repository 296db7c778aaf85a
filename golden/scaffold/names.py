"""Names of a new mechanism or structure: checked once, then spelled every way the
templates need (registry name, Python package/module, class name, title).

A bad name is a one-line :class:`golden.errors.ConfigError`, never a half-written tree.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

from golden.errors import ConfigError

__all__ = ["Names", "mechanism_names", "structure_names"]

#: a mechanism's registry name: lower case words joined by ``-`` or ``_`` (``reuse-cache``)
_MECHANISM = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
#: a structure's (and a group's) name: a lower-case Python identifier (``value_cache``)
_STRUCTURE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


@dataclass(frozen=True)
class Names:
    """Every spelling of one name.

    Attributes
    ----------
    name : str
        As the user gave it: the registry name of a mechanism, the module and trace name of
        a structure.
    module : str
        Python module/package name (``-`` replaced by ``_``).
    camel : str
        Class name (``reuse_cache`` -> ``ReuseCache``).
    title : str
        Words for docstrings (``reuse cache``).
    """

    name: str
    module: str
    camel: str
    title: str


def _spell(name: str) -> Names:
    module = name.replace("-", "_")
    words = module.split("_")
    return Names(name=name, module=module, camel="".join(w[:1].upper() + w[1:] for w in words),
                 title=" ".join(words))


def _check(kind: str, name: str, pattern: re.Pattern, example: str) -> Names:
    if not isinstance(name, str) or not pattern.fullmatch(name):
        raise ConfigError(f"invalid {kind} name {name!r}: use lower-case letters, digits and "
                          f"{'-/_' if kind == 'mechanism' else '_'} between words, starting "
                          f"with a letter (e.g. {example})")
    names = _spell(name)
    if keyword.iskeyword(names.module) or names.module in ("test", "tests", "common"):
        raise ConfigError(f"invalid {kind} name {name!r}: {names.module!r} is a reserved word")
    return names


def mechanism_names(name: str) -> Names:
    """Checked spellings of a mechanism name (``reuse-cache``)."""
    return _check("mechanism", name, _MECHANISM, "reuse-cache")


def structure_names(name: str, what: str = "structure") -> Names:
    """Checked spellings of a structure or group name (``value_cache``)."""
    return _check(what, name, _STRUCTURE, "value_cache")
