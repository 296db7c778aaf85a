"""The papers' own inputs: the ``published`` input size (issue 68).

``published.yaml`` beside this module lists, for each built-in workload whose paper names
its input, where the paper names it (``source``) and the parameters that differ from the
workload's ``paper`` size (``input``). :func:`with_published` gives such a workload a
``published`` size (its ``paper`` parameters with ``input`` merged over them), so a run at
``published`` is an ordinary run at a named size.

A workload without its own ``published`` size runs at ``paper`` when ``published`` is asked
for (:func:`golden.workloads.registry.resolve_size`): either the paper size already is the
named input (an entry without ``input``) or no paper names one (no entry).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from golden.errors import SimtlabError

__all__ = ["PUBLISHED", "PUBLISHED_FILE", "PublishedInput", "published_inputs", "with_published"]

#: the size name
PUBLISHED = "published"
PUBLISHED_FILE = Path(__file__).with_name("published.yaml")


@dataclass(frozen=True)
class PublishedInput:
    """Where a paper names a workload's input, and the parameters that differ from the
    workload's ``paper`` size (empty: the paper size is the named input)."""

    workload: str
    source: str
    input: dict = field(default_factory=dict)


def published_inputs(path: Path = PUBLISHED_FILE) -> dict[str, PublishedInput]:
    """The entries of ``published.yaml``, by workload name; a malformed entry is an error
    naming the file and the key path."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise SimtlabError(f"{path.name}: cannot read the published inputs: {exc}") from None
    if not isinstance(raw, dict):
        raise SimtlabError(f"{path.name}: expected a mapping of workload names")
    out = {}
    for name, entry in raw.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("source"), str):
            raise SimtlabError(f"{path.name}: {name}.source: every entry needs a source text")
        extra = set(entry) - {"source", "input"}
        if extra:
            raise SimtlabError(f"{path.name}: {name}.{sorted(extra)[0]}: unknown key "
                               f"(an entry has source and input)")
        given = entry.get("input") or {}
        if not isinstance(given, dict):
            raise SimtlabError(f"{path.name}: {name}.input: expected a mapping of parameters")
        out[str(name)] = PublishedInput(str(name), " ".join(entry["source"].split()), dict(given))
    return out


def with_published(workloads: dict, path: Path = PUBLISHED_FILE) -> dict:
    """``workloads`` (name -> Workload) with a ``published`` size added to each workload
    whose entry has an ``input``; the Workload objects themselves are not changed."""
    out = dict(workloads)
    for name, entry in published_inputs(path).items():
        w = workloads.get(name)
        if w is None:
            raise SimtlabError(f"{path.name}: {name}: no such workload; known: "
                               f"{', '.join(workloads)}")
        if not entry.input:
            continue
        paper = w.sizes.get("paper")
        if paper is None:
            raise SimtlabError(f"{path.name}: {name}.input: the workload has no paper size "
                               f"to merge the published input over")
        unknown = sorted(set(entry.input) - set(paper))
        if unknown:
            raise SimtlabError(f"{path.name}: {name}.input.{unknown[0]}: not a parameter of "
                               f"{name}'s paper size ({', '.join(paper)})")
        params = {**paper, **{k: _like(paper[k], v) for k, v in entry.input.items()}}
        out[name] = replace(w, sizes={**w.sizes, PUBLISHED: params})
    return out


def _like(old, new):
    """``new`` as the type of the paper size's value it replaces (a YAML list for a tuple)."""
    if isinstance(old, tuple) and isinstance(new, list):
        return tuple(new)
    if isinstance(old, float) and isinstance(new, int):
        return float(new)
    return new
