"""Write the skeleton of a new mechanism or structure into a simtlab source tree.

:func:`new_mechanism` writes ``golden/mechanisms/<module>/`` (the mechanism class on the
hooks and its factory), ``golden/report/beside_<module>.py`` (a run beside the baseline),
``tests/mechanisms/test_<module>.py``, and registers the factory with one line in the
``MECHANISMS`` table of ``golden/mechanisms/registry.py``. :func:`new_structure` writes the
three views of a structure -- ``golden/structures/<group>/<module>.py``,
``rtl/<group>/<module>.py``, ``tb/<group>/test_<module>.py`` with its stimulus -- plus
``tests/structures/test_<module>.py``, a row of ``synth/targets.yaml``, and the lines
that make its traces readable (its group's ``STRUCTURES`` table, and for a new group one
import in ``golden/structures/registry.py``).

Everything is checked before the first file is written: an existing name or file is a
one-line :class:`golden.errors.ConfigError` and the tree stays as it was. Templates are
:class:`string.Template` texts (``${name}``) in ``templates/`` beside this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

import yaml

from golden.errors import ConfigError
from golden.fileio import write_atomic
from golden.scaffold.names import Names, mechanism_names, structure_names

__all__ = ["Generated", "default_dest", "new_mechanism", "new_structure"]

TEMPLATES = Path(__file__).with_name("templates")
REGISTRY = Path("golden/mechanisms/registry.py")
TRACED = Path("golden/structures/registry.py")
TARGETS = Path("synth/targets.yaml")
#: the mechanism table in registry.py: its opening line and the line that closes it
_TABLE = re.compile(r"^MECHANISMS: dict\[str, str\] = \{\n(?P<body>.*?)^\}\n", re.M | re.S)
_KEY = re.compile(r'^\s*"([^"]+)"\s*:', re.M)
#: the STRUCTURES table of a group package simtlab new wrote (golden_init.py.tmpl)
_GROUP_TABLE = re.compile(r"^STRUCTURES: dict\[str, StructureInfo\] = \{\n(?P<body>.*?)^\}\n",
                          re.M | re.S)
#: the return line of golden.structures.registry.traced_structures()
_TRACED_RETURN = re.compile(r"^(?P<indent>[ ]+)return \{(?=\*\*)", re.M)


@dataclass(frozen=True)
class Generated:
    """What one ``simtlab new`` wrote: files created and files edited (paths relative to
    the tree), and the commands that test the result."""

    created: tuple[Path, ...]
    edited: tuple[Path, ...]
    next_steps: tuple[str, ...]


def default_dest() -> Path:
    """The source tree this simtlab runs from (the folder holding ``golden/``)."""
    return Path(__file__).resolve().parents[2]


def _tree(dest) -> Path:
    root = Path(default_dest() if dest is None else dest)
    if not all((root / p).is_file() for p in (REGISTRY, TRACED, TARGETS)):
        raise ConfigError(f"{root} is not a simtlab source tree (no {REGISTRY}, {TRACED} "
                          f"or {TARGETS})")
    return root


def _render(template: str, **values: str) -> str:
    return Template((TEMPLATES / template).read_text()).substitute(values)


def _refuse_existing(root: Path, paths, what: str) -> None:
    for p in paths:
        if (root / p).exists():
            raise ConfigError(f"{what} exists already: {p} (choose another name)")


def _write(root: Path, files: dict[Path, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)


def _registry_names(text: str) -> tuple[re.Match, list[str]]:
    table = _TABLE.search(text)
    if table is None:
        raise ConfigError(f"{REGISTRY}: cannot find the 'MECHANISMS: dict[str, str] = {{' table")
    return table, _KEY.findall(table.group("body"))


def new_mechanism(name: str, dest=None) -> Generated:
    """Write the skeleton of mechanism ``name`` (a registry name such as ``reuse-cache``)."""
    n: Names = mechanism_names(name)
    root = _tree(dest)
    registry = (root / REGISTRY).read_text()
    table, known = _registry_names(registry)
    if name in known:
        raise ConfigError(f"mechanism '{name}' exists already in {REGISTRY} (choose another name)")
    values = dict(name=n.name, module=n.module, camel=n.camel, title=n.title[:1].upper() + n.title[1:])
    files = {
        Path(f"golden/mechanisms/{n.module}/__init__.py"): _render("mechanism/__init__.py.tmpl", **values),
        Path(f"golden/mechanisms/{n.module}/mechanism.py"): _render("mechanism/mechanism.py.tmpl", **values),
        Path(f"golden/report/beside_{n.module}.py"): _render("mechanism/beside.py.tmpl", **values),
        Path(f"tests/mechanisms/test_{n.module}.py"): _render("mechanism/test_mechanism.py.tmpl", **values),
    }
    _refuse_existing(root, [Path(f"golden/mechanisms/{n.module}"), *files], f"mechanism '{name}'")
    line = f'    "{n.name}": "golden.mechanisms.{n.module}.mechanism:make_{n.module}",\n'
    end = table.end("body")
    _write(root, files)
    write_atomic(root / REGISTRY, registry[:end] + line + registry[end:])
    return Generated(tuple(files), (REGISTRY,), (
        f"pytest tests/mechanisms/test_{n.module}.py",
        f"simtlab run FFT --mode timing --mechanism {n.name}",
        f"python -m golden.report.beside_{n.module} FFT MM",
    ))


def new_structure(name: str, dest=None, group: str | None = None) -> Generated:
    """Write the three views of structure ``name`` (a module name such as
    ``value_cache``) into folder ``group`` (default: ``name``) of golden/structures, rtl
    and tb, its tests and its synth target, and make it traceable (a line in its group's
    ``STRUCTURES`` table; for a new group, one import in
    :func:`golden.structures.registry.traced_structures`). A group that exists without a
    table written by ``simtlab new`` (the papers' mechanisms) is refused."""
    n = structure_names(name)
    g = structure_names(group or name, "group")
    root = _tree(dest)
    targets_text = (root / TARGETS).read_text()
    rows = (yaml.safe_load(targets_text) or {}).get("targets") or []
    if any(isinstance(r, dict) and r.get("name") == n.name for r in rows):
        raise ConfigError(f"structure '{name}' exists already: {TARGETS} has a target '{name}' "
                          f"(choose another name)")
    values = dict(name=n.name, module=n.module, camel=n.camel, upper=n.module.upper(),
                  title=n.title, group=g.module, group_title=g.title)
    test = f"test_{n.module}.py" if g.module == n.module else f"test_{g.module}_{n.module}.py"
    files = {
        Path(f"golden/structures/{g.module}/{n.module}.py"): _render("structure/golden.py.tmpl", **values),
        Path(f"rtl/{g.module}/{n.module}.py"): _render("structure/rtl.py.tmpl", **values),
        Path(f"tb/{g.module}/{n.module}_stimulus.py"): _render("structure/stimulus.py.tmpl", **values),
        Path(f"tb/{g.module}/test_{n.module}.py"): _render("structure/tb.py.tmpl", **values),
        Path(f"tests/structures/{test}"): _render("structure/test_structure.py.tmpl", **values),
    }
    _refuse_existing(root, files, f"structure '{name}'")
    taken = [p for p in sorted((root / "golden/structures").glob("*/__init__.py"))
             if f'StructureInfo("{n.name}"' in p.read_text()]
    if taken:
        raise ConfigError(f"structure '{name}' exists already: {taken[0].relative_to(root)} "
                          f"traces a structure of that name (choose another name)")
    edits = _register_traced(root, n, g, values, files)
    for top, tmpl in (("rtl", "rtl_init"), ("tb", "tb_init")):
        init = Path(f"{top}/{g.module}/__init__.py")
        if not (root / init).exists():
            files[init] = _render(f"structure/{tmpl}.py.tmpl", **values)
    row = _render("structure/target.yaml.tmpl", **values)
    _write(root, files)
    for rel, text in edits.items():
        write_atomic(root / rel, text)
    sep = "" if targets_text.endswith("\n") else "\n"
    write_atomic(root / TARGETS, targets_text + sep + row)
    return Generated(tuple(files), (*edits, TARGETS), (
        f"pytest tests/structures/{test} tb/{g.module}/test_{n.module}.py",
        f"python -m synth.area --flow quick --only {n.name} --out build/synth-quick",
    ))


def _register_traced(root: Path, n: Names, g: Names, values: dict, files: dict) -> dict:
    """The group package's STRUCTURES line for ``n`` (a new ``__init__.py`` is added to
    ``files``); returns ``{path: new text}`` of the files to edit (checked, not written)."""
    entry = (f'    "{n.name}": StructureInfo("{n.name}", _{n.module}.{n.camel}, '
             f"_{n.module}.{n.camel}Params, _{n.module}.{n.camel}Ops, "
             f"_{n.module}.{n.camel}Outputs),\n")
    group_init = Path(f"golden/structures/{g.module}/__init__.py")
    if (root / group_init).exists():
        text = (root / group_init).read_text()
        table = _GROUP_TABLE.search(text)
        imports = list(re.finditer(r"^from \. import \w+ as _\w+\n", text, re.M))
        if table is None or not imports:
            raise ConfigError(f"group '{g.module}' exists and {group_init} has no STRUCTURES "
                              f"table written by simtlab new: choose a new --group")
        end, at = table.end("body"), imports[-1].end()
        return {group_init: (text[:at] + f"from . import {n.module} as _{n.module}\n"
                             + text[at:end] + entry + text[end:])}
    files[group_init] = _render("structure/golden_init.py.tmpl", entry=entry, **values)
    traced = (root / TRACED).read_text()
    ret = _TRACED_RETURN.search(traced)
    if ret is None:
        raise ConfigError(f"{TRACED}: cannot find the 'return {{**...}}' line of "
                          f"traced_structures() to register group '{g.module}'")
    alias = f"_{g.module.upper()}"
    line = f"{ret.group('indent')}from golden.structures.{g.module} import STRUCTURES as {alias}\n"
    return {TRACED: (traced[:ret.start()] + line + traced[ret.start():ret.end()]
                     + f"**{alias}, " + traced[ret.end():])}
