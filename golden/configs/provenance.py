"""Where every value of an effective GPU configuration comes from.

A configuration file may ``inherits:`` another (see :mod:`golden.configs.loader`), so the
value the timing model uses can be set several files up the chain, or be a schema default.
:func:`effective_config` loads a configuration (validating it exactly as ``load_config``
does) and returns, for every leaf key, its value and its origin: ``file:line`` of the file
in the chain that set it last, or ``default`` for a schema default. It merges the chain with
the loader's rule (child keys replace parent keys; nested mappings merge key by key).

:func:`annotated_child` writes the text of a new configuration that inherits a shipped one:
every inherited key, commented out, with its value and the citation comment of the line
that set it (``simtlab config new``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path

import yaml

from golden.configs.loader import CONFIG_DIR, load_config, resolve_path
from golden.configs.schema import GPUConfig
from golden.errors import ConfigError


@dataclass(frozen=True)
class Origin:
    """One leaf key of an effective configuration: dotted ``key``, ``value``, the ``file``
    (None for a schema default) and 1-based ``line`` that set it, and that line's comment."""

    key: str
    value: object
    file: Path | None
    line: int | None
    comment: str = ""

    @property
    def where(self) -> str:
        if self.file is None:
            return "default (schema)"
        return f"{_display(self.file)}:{self.line}"


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def chain(name_or_path: str | Path) -> list[Path]:
    """The files of a configuration's ``inherits`` chain, root first."""
    path = resolve_path(name_or_path)
    out = [path]
    for _ in range(16):  # the loader already refused cycles and deep chains
        raw = _compose(path)[0]
        parent = raw.get("inherits") if isinstance(raw, dict) else None
        if parent is None:
            break
        if "/" in parent or parent.endswith((".yaml", ".yml")):
            path = path.parent / parent
        else:
            path = resolve_path(parent)
        out.append(path)
    return out[::-1]


def _compose(path: Path) -> tuple[dict, dict[tuple, int]]:
    """The file's mapping and the line of every key path in it."""
    node = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    lines: dict[tuple, int] = {}
    loader = yaml.SafeLoader("")

    def walk(n, kp: tuple):
        if isinstance(n, yaml.MappingNode):
            out = {}
            for kn, vn in n.value:
                k = str(loader.construct_object(kn, deep=True))
                lines[kp + (k,)] = kn.start_mark.line + 1
                out[k] = walk(vn, kp + (k,))
            return out
        return loader.construct_object(n, deep=True)

    return (walk(node, ()) if node is not None else {}), lines


def _leaves(data, kp: tuple = ()):
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, kp + (k,))
    else:
        yield kp


def effective_config(name_or_path: str | Path) -> tuple[GPUConfig, list[Origin]]:
    """The validated configuration and the origin of each of its leaf values, in schema
    order."""
    cfg = load_config(name_or_path)
    setter: dict[tuple, tuple[Path, int]] = {}
    texts: dict[Path, list[str]] = {}
    for path in chain(name_or_path):
        data, lines = _compose(path)
        data.pop("inherits", None)
        texts[path] = path.read_text(encoding="utf-8").splitlines()
        for kp in _leaves(data):
            # a non-mapping value replaces everything the parents set under its key
            for old in [o for o in setter if o[:len(kp)] == kp and o != kp]:
                del setter[old]
            setter[kp] = (path, lines.get(kp, 0))
    rows: list[Origin] = []
    for kp, value in _values(cfg):
        hit = next((kp[:i] for i in range(len(kp), 0, -1) if kp[:i] in setter), None)
        if hit is None:
            rows.append(Origin(".".join(kp), value, None, None))
            continue
        path, line = setter[hit]
        rows.append(Origin(".".join(kp), value, path, line, _comment(texts[path], line)))
    return cfg, rows


def _values(obj, kp: tuple = ()):
    for f in fields(obj):
        v = getattr(obj, f.name)
        if is_dataclass(v):
            yield from _values(v, kp + (f.name,))
        else:
            yield kp + (f.name,), v


def _comment(lines: list[str], line: int) -> str:
    """The ``# ...`` comment at the end of a YAML line (empty if none)."""
    if not 1 <= line <= len(lines):
        return ""
    text = lines[line - 1]
    for i, ch in enumerate(text):
        if ch == "#" and (i == 0 or text[i - 1] in " \t"):
            before = text[:i]
            if before.count('"') % 2 == 0 and before.count("'") % 2 == 0:
                return text[i + 1:].strip()
    return ""


def format_origins(cfg: GPUConfig, rows: list[Origin]) -> str:
    """The effective configuration as a table: key, value, where it was set."""
    width = max(len(r.key) for r in rows)
    vwidth = min(max(len(_yaml_value(r.value)) for r in rows), 40)
    out = [f"{cfg.name}: {cfg.description}",
           f"{'key':<{width}}  {'value':<{vwidth}}  set by"]
    out += [f"{r.key:<{width}}  {_yaml_value(r.value):<{vwidth}}  {r.where}" for r in rows]
    return "\n".join(out)


def _yaml_value(value) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=10_000).strip() \
        .removesuffix("\n...").removesuffix("...").strip()


def annotated_child(name: str, parent: str, out_dir: Path = Path(".")) -> str:
    """YAML text of configuration ``name`` (to be written in ``out_dir``) that inherits
    ``parent`` and changes nothing yet: every inherited key is listed, commented out, with
    its value and the citation of the line that set it. A shipped parent is inherited by
    name, a parent file by its path relative to ``out_dir``."""
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise ConfigError(f"config name {name!r}: use letters, digits, '_' or '-'")
    cfg, rows = effective_config(parent)
    parent_path = resolve_path(parent).resolve()
    if parent_path.parent == CONFIG_DIR:
        stem = parent_path.stem
    else:
        stem = os.path.relpath(parent_path, Path(out_dir).resolve())
    out = [f"# {name}: a GPU configuration that inherits {stem}",
           f"# (made by `simtlab config new {name} --from {parent}`).",
           "#",
           f"# Every key below is inherited from {stem} unless you set it here. To change one,",
           "# uncomment it (with the section lines above it) and edit the value; say where the",
           "# new value comes from in its comment, as the shipped configurations do. Check",
           "# the result with `simtlab config show FILE` (each value with the file:line that set",
           "# it) and use it with `simtlab run ... --mode timing --config FILE`.",
           f"inherits: {stem}",
           f"name: {name}",
           f"description: \"{name}: {stem} with changes (edit this line)\"",
           ""]
    section: tuple = ()
    for r in rows:
        kp = tuple(r.key.split("."))
        if kp[0] in ("name", "description"):
            continue
        common = 0
        while common < min(len(section), len(kp) - 1) and section[common] == kp[common]:
            common += 1
        if common == 0 and section:
            out.append("")
        for depth in range(common, len(kp) - 1):
            out.append(f"# {'  ' * depth}{kp[depth]}:")
        section = kp[:-1]
        value = _yaml_value(r.value)
        where = f"{r.file.name}:{r.line}" if r.file is not None else "default (schema)"
        note = where + (f": {r.comment}" if r.comment else "")
        entry = f"# {'  ' * (len(kp) - 1)}{kp[-1]}: {value}"
        out.append(f"{entry:<40} # {note}")
    return "\n".join(out) + "\n"
