"""What a stored report result must look like before anything uses it.

The result cache and the archive (:mod:`golden.jobs.cache`) hold one JSON file per job:
``<sha256(key)[:24]>.json``. The file name is the checksum of the job key the file
carries, so a file whose name and key disagree was not written by the cache (or was
renamed or edited since). :func:`entry_problem` checks a parsed entry against the schema
every report relies on, and returns what is wrong, or None:

* every entry: ``key`` (text; the file name is its checksum), ``deps`` (a non-empty map of
  file -> digest, :mod:`golden.jobs.deps`), ``outputs_match`` (a boolean); no ``error``
  field (failed jobs are never stored);
* ``cycles``, where present, a positive integer; ``timing`` and ``energy`` come together,
  each a mapping, and ``timing.cycles`` equals ``cycles`` (a doubled or garbage top-level
  ``cycles`` disagrees with the statistics it was taken from);
* a :class:`golden.jobs.job.TimingJob` result additionally carries every field
  :func:`golden.jobs.job.run_job` writes (:data:`TIMING_FIELDS`) with its type.

* ``checksum``, where present: the SHA-256 of the rest of the entry in canonical JSON
  (:func:`entry_checksum`). The cache seals every entry it writes (:func:`seal`), and
  ``cache archive`` and ``cache rekey`` seal what they write, so a value edited or
  corrupted after writing is refused even when it still fits the schema.

Entries written before checksums existed (the archive up to 2026-12-06) carry none; they
are checked by the schema alone, and get a checksum the next time they are archived.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

#: fields (and their JSON types) of a TimingJob's result (golden.jobs.job.run_job)
TIMING_FIELDS: dict[str, tuple] = {
    "cycles": (int,), "ipc": (int, float), "timing": (dict,), "energy": (dict,),
    "stall_fractions": (dict,), "output_digest": (str,), "launches": (int,),
    "outputs_match": (bool,),
}

_NAME = re.compile(r"[0-9a-f]{24}\.json")

__all__ = ["CHECKSUM", "TIMING_FIELDS", "entry_checksum", "entry_name", "entry_problem",
           "is_entry_name", "load_entry", "seal"]

#: the field of an entry that holds the checksum of the rest of it
CHECKSUM = "checksum"


def entry_checksum(data: dict) -> str:
    """SHA-256 (hex) of ``data`` without its :data:`CHECKSUM` field, in canonical JSON:
    the value as stored and read back (non-JSON values as text, tuples as lists, keys as
    text), keys sorted, no spaces. Writing and reading an entry give the same digest."""
    body = {k: v for k, v in data.items() if k != CHECKSUM}
    norm = json.loads(json.dumps(body, default=str))
    text = json.dumps(norm, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def seal(data: dict) -> dict:
    """``data`` with its :data:`CHECKSUM` set to :func:`entry_checksum` (a new dict)."""
    return {**{k: v for k, v in data.items() if k != CHECKSUM}, CHECKSUM: entry_checksum(data)}


def entry_name(key: str) -> str:
    """File name of the entry of job ``key``: ``sha256(key)[:24].json``."""
    return hashlib.sha256(key.encode()).hexdigest()[:24] + ".json"


def is_entry_name(name: str) -> bool:
    """True when ``name`` has the form of an entry's file name (24 hex digits + .json)."""
    return _NAME.fullmatch(name) is not None


def load_entry(p: Path) -> tuple[dict | None, str | None]:
    """``(entry, None)`` for a readable JSON object at ``p``; ``(None, None)`` when there
    is no file; ``(None, problem)`` when it cannot be read or parsed."""
    try:
        text = p.read_text()
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as e:
        return None, f"unreadable ({getattr(e, 'strerror', None) or e})"
    try:
        data = json.loads(text)
    except ValueError as e:
        return None, f"not valid JSON ({e.__class__.__name__})"
    if not isinstance(data, dict):
        return None, "not a JSON object"
    return data, None


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _typed(v, types: tuple) -> bool:
    if bool not in types and isinstance(v, bool):
        return False
    return isinstance(v, types)


def entry_problem(data, name: str | None = None, timing_job: bool = False) -> str | None:
    """What is wrong with stored entry ``data`` (see the module docstring), or None.
    ``name``: the file name it was read from (checked against its key); ``timing_job``:
    the entry is a TimingJob's result (its key rebuilt a TimingJob)."""
    if not isinstance(data, dict):
        return "not a JSON object"
    key = data.get("key")
    if not isinstance(key, str) or not key:
        return "no job key"
    if name is not None and name != entry_name(key):
        return f"file name is not the checksum of its key {key!r}"
    if "error" in data:
        return "an error record (failed jobs are never stored)"
    deps = data.get("deps")
    if not isinstance(deps, dict) or not deps \
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in deps.items()):
        return "no dependency map"
    if not isinstance(data.get("outputs_match"), bool):
        return "'outputs_match' is missing or not true/false"
    if timing_job:
        for f, types in TIMING_FIELDS.items():
            if f not in data:
                return f"'{f}' is missing"
            if not _typed(data[f], types):
                return f"'{f}' is {type(data[f]).__name__}, not {types[0].__name__}"
    if "cycles" in data and not (_is_int(data["cycles"]) and data["cycles"] > 0):
        return f"'cycles' is {data['cycles']!r}, not a positive integer"
    has_t, has_e = "timing" in data, "energy" in data
    if has_t != has_e:
        return f"'{'energy' if has_t else 'timing'}' is missing"
    if has_t:
        if not isinstance(data["timing"], dict) or not isinstance(data["energy"], dict):
            return "'timing' or 'energy' is not a mapping"
        tc = data["timing"].get("cycles")
        if "cycles" in data and tc is not None and tc != data["cycles"]:
            return f"'cycles' {data['cycles']!r} differs from its timing record's {tc!r}"
    if CHECKSUM in data and data[CHECKSUM] != entry_checksum(data):
        return "its checksum does not match its contents (edited or corrupted after writing)"
    return None
