"""Loader of constant files whose every value carries its source.

Several mechanisms keep their constants in a YAML file beside their code (G-Scalar's
``timing.yaml`` and ``rf_energy.yaml``, DARSIE's ``structure_energy.yaml``), one entry per
field of a frozen parameter dataclass::

    read_pj_per_bit:
      value: 0.0055
      source: "seed 002 Table 2 ..."

:func:`load_sourced` reads such a file into the dataclass; the dataclass's own
``__post_init__`` checks the values. An unreadable file, an unknown key, a missing value
or source, or an extra field is a :class:`~golden.errors.ConfigError` naming the file and
the key.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import yaml

from golden.errors import ConfigError


def load_sourced(path: str | Path, cls, what: str):
    """An instance of dataclass ``cls`` from the ``{value, source}`` file ``path``
    (``what`` names the constants in errors; YAML lists become tuples)."""
    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"{p}: cannot read {what}: {e}") from e
    if not isinstance(raw, dict):
        raise ConfigError(f"{p}: expected a mapping of constants")
    known = {f.name for f in fields(cls)}
    kwargs = {}
    for key, entry in raw.items():
        if key not in known:
            raise ConfigError(f"{p}: unknown key '{key}'; known: {', '.join(sorted(known))}")
        if not isinstance(entry, dict) or "value" not in entry:
            raise ConfigError(f"{p}: '{key}' must be a mapping with 'value' and 'source'")
        extra = set(entry) - {"value", "source"}
        if extra:
            raise ConfigError(f"{p}: '{key}.{sorted(extra)[0]}' is not a known field "
                              f"(value, source)")
        if not isinstance(entry.get("source"), str) or not entry["source"].strip():
            raise ConfigError(f"{p}: '{key}.source' must say where the value comes from")
        value = entry["value"]
        kwargs[key] = tuple(value) if isinstance(value, list) else value
    return cls(**kwargs)
