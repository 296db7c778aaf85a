"""Temporal and spatial locality of an address trace (Ping Xiang's dissertation, ch. 5).

The measure (paper-facts §5.1): the conditional probability that, after an access, the
*same* address (temporal locality) or an address in its *neighbourhood* (spatial
locality) is accessed again within the next ``W`` accesses. Chapter 5 reads it as a
cache-design guide: ``W`` is about the number of cache blocks, the neighbourhood about
the block size; a table that keeps rising with the neighbourhood at small ``W`` says the
accesses are coarse-grained (the case for the coarse-grained L1 of §5.1).

Definitions used here (the chapter gives the idea, not a formula):

* an address trace ``a[0..n-1]`` (bytes, in access order), optionally split into
  *streams* (e.g. one per SM's L1): windows count only the accesses of the same stream;
* the *neighbourhood* of ``N`` bytes of address ``a`` is the aligned block
  ``[a - a mod N, a - a mod N + N)``; ``N`` is a power of two, so a neighbourhood of
  ``N`` lies inside the one of ``2N`` (the same aligned groups the coarse L1 fetches);
  temporal locality at granularity ``g`` is the neighbourhood ``N = g`` (``g = 1``:
  byte-exact addresses; a trace of 128 B L1 blocks gives block-granular temporal
  locality at ``N = 128``);
* ``P(W, N)`` = (number of accesses ``i`` followed, within the next ``W`` accesses of
  its stream, by an access ``j`` with ``a[j] // N == a[i] // N``) / ``n``. Every access
  is counted in the denominator, also the last ``W`` of a stream (their window is cut
  short by the trace's end): that keeps ``P`` a probability over one fixed set of
  accesses, so ``P`` is non-decreasing in ``W`` (a larger window holds the smaller one)
  and in ``N`` (an access in the ``N`` neighbourhood is in the ``2N`` one).

Cost: per neighbourhood one stable sort of the trace (``O(n log n)``, numpy), then the
whole ``W`` column comes from one histogram of next-use distances -- about a second for
``n = 10^6`` and a dozen neighbourhoods.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.errors import SimtlabError

__all__ = ["LocalityTable", "next_use_distance", "locality_table", "powers_of_two"]


def powers_of_two(lo: int, hi: int) -> tuple[int, ...]:
    """``lo, 2 lo, ..., hi`` (both powers of two, ``lo <= hi``)."""
    for v in (lo, hi):
        if v < 1 or v & (v - 1):
            raise SimtlabError(f"{v} is not a power of two")
    out, v = [], lo
    while v <= hi:
        out.append(v)
        v *= 2
    return tuple(out)


def _check_pow2(name: str, values) -> tuple[int, ...]:
    vals = tuple(int(v) for v in values)
    if not vals:
        raise SimtlabError(f"locality: no {name} given")
    for v in vals:
        if v < 1 or v & (v - 1):
            raise SimtlabError(f"locality: {name} must be powers of two, got {v}")
    if list(vals) != sorted(set(vals)):
        raise SimtlabError(f"locality: {name} must be increasing without repeats, got {vals}")
    return vals


def next_use_distance(keys: np.ndarray, streams: np.ndarray | None = None) -> np.ndarray:
    """For every access ``i``, how many accesses of its stream later the same key comes
    again (``j - i`` counted in the stream's own accesses); 0 if it never does.

    ``keys``: integer key per access (e.g. ``address // N``); ``streams``: optional stream
    id per access (same length).
    """
    keys = np.asarray(keys, dtype=np.int64)
    n = keys.shape[0]
    if streams is None:
        pos = np.arange(n, dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        same = keys[order[1:]] == keys[order[:-1]]
    else:
        streams = np.asarray(streams, dtype=np.int64)
        if streams.shape != keys.shape:
            raise SimtlabError(f"locality: {streams.shape[0]} stream ids for {n} accesses")
        # position of each access inside its own stream
        by_stream = np.argsort(streams, kind="stable")
        s_sorted = streams[by_stream]
        first = np.r_[0, np.flatnonzero(s_sorted[1:] != s_sorted[:-1]) + 1]
        run_start = np.repeat(first, np.diff(np.r_[first, n]))
        pos = np.empty(n, dtype=np.int64)
        pos[by_stream] = np.arange(n, dtype=np.int64) - run_start
        # sort by (stream, key), stably, so equal pairs stay in access order
        order = np.lexsort((keys, streams))
        same = (keys[order[1:]] == keys[order[:-1]]) & (streams[order[1:]] == streams[order[:-1]])
    dist = np.zeros(n, dtype=np.int64)
    if n > 1:
        prev, nxt = order[:-1][same], order[1:][same]
        dist[prev] = pos[nxt] - pos[prev]
    return dist


@dataclass(frozen=True)
class LocalityTable:
    """``prob[w, k]`` = P(window ``windows[w]``, neighbourhood ``neighbourhoods[k]`` bytes)
    over ``accesses`` accesses (see the module docstring)."""

    windows: tuple[int, ...]
    neighbourhoods: tuple[int, ...]
    prob: np.ndarray
    accesses: int

    def at(self, window: int, neighbourhood: int) -> float:
        """``P(window, neighbourhood)``."""
        return float(self.prob[self.windows.index(window), self.neighbourhoods.index(neighbourhood)])

    def format(self, digits: int = 4) -> str:
        """The table as text: one row per window W, one column per neighbourhood N (bytes)."""
        head = "W \\ N (B)"
        cols = [_size(n) for n in self.neighbourhoods]
        width = max(digits + 2, *(len(c) for c in cols))
        lines = [f"{head:>10} " + " ".join(f"{c:>{width}}" for c in cols)]
        for w, row in zip(self.windows, self.prob):
            lines.append(f"{w:>10} " + " ".join(f"{p:>{width}.{digits}f}" for p in row))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"windows": list(self.windows), "neighbourhoods": list(self.neighbourhoods),
                "accesses": self.accesses, "prob": self.prob.tolist()}


def _size(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}M"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10}K"
    return str(n)


def locality_table(addresses, windows, neighbourhoods, streams=None) -> LocalityTable:
    """The ``len(windows) x len(neighbourhoods)`` locality table of a byte-address trace.

    ``windows`` and ``neighbourhoods`` (bytes) are increasing powers of two; ``streams``
    (optional) gives each access's stream (e.g. SM id) so windows count per stream.
    """
    windows = _check_pow2("windows", windows)
    neighbourhoods = _check_pow2("neighbourhoods", neighbourhoods)
    a = np.asarray(addresses)
    if a.ndim != 1:
        raise SimtlabError(f"locality: expected a 1-D address trace, got shape {a.shape}")
    if a.size and (a.dtype.kind not in "iu" or a.min() < 0):
        raise SimtlabError("locality: addresses must be non-negative integers")
    a = a.astype(np.uint64, copy=False)
    n = a.shape[0]
    prob = np.zeros((len(windows), len(neighbourhoods)))
    wmax = windows[-1]
    w_idx = np.asarray(windows, dtype=np.int64)
    for k, nb in enumerate(neighbourhoods):
        if not n:
            break
        keys = (a >> np.uint64(nb.bit_length() - 1)).astype(np.int64)
        d = next_use_distance(keys, streams)
        hist = np.bincount(d[(d > 0) & (d <= wmax)], minlength=wmax + 1)
        cum = np.cumsum(hist)
        prob[:, k] = cum[w_idx] / n
    return LocalityTable(windows, neighbourhoods, prob, n)


def workload_locality(name: str, size: str = "small", seed: int = 0,
                      config_name: str = "gtx480_coarse", windows=None, neighbourhoods=None,
                      unit: str = "line", kinds=("load", "load_bypass", "store", "atomic"),
                      merged: bool = False, fetch_group: int | None = None) -> dict:
    """Run workload ``name`` in timing mode with an L1 access recorder and return its
    locality table over the L1 accesses the memory hierarchy saw.

    ``unit``: one access per coalesced L1 transaction at its line address (``"line"``:
    temporal locality = the same L1 block) or one per touched sector (``"sector"``);
    ``kinds``: access kinds kept (:data:`golden.timing.memory.l1_trace.KINDS`);
    ``merged``: one stream for the whole GPU in port-cycle order instead of a window per
    SM's L1; ``fetch_group``: run with ``memory.l1.fetch_group`` overridden. Defaults:
    windows 1..1024, neighbourhoods from the unit (line or sector) to 4 KB.
    Returns ``{"table": LocalityTable, ...}`` with the run's identity and outcome.
    """
    from golden.configs import load_config
    from golden.timing.memory.l1_trace import L1AccessRecorder
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry

    overrides = {} if fetch_group is None else {"memory.l1.fetch_group": fetch_group}
    cfg = load_config(config_name, overrides)
    step = cfg.memory.l1.line_bytes if unit == "line" else cfg.memory.coalescing.sector_bytes
    windows = tuple(windows) if windows else powers_of_two(1, 1024)
    neighbourhoods = tuple(neighbourhoods) if neighbourhoods else powers_of_two(step, max(step, 4096))
    _check_pow2("windows", windows)
    _check_pow2("neighbourhoods", neighbourhoods)
    rec = L1AccessRecorder(kinds=kinds)
    w = registry.get(name)
    dev = TimingDevice(cfg, echo_printf=False)
    dev.gpu.memory_observers.append(rec)
    run = registry.run_workload(w, size=size, seed=seed, device=dev)
    addrs, sms = rec.addresses(unit=unit, sector_bytes=cfg.memory.coalescing.sector_bytes)
    table = locality_table(addrs, windows, neighbourhoods, streams=None if merged else sms)
    return {"workload": w.name, "size": size, "seed": seed, "config": cfg.name,
            "unit": unit, "unit_bytes": step, "merged": merged, "kinds": list(kinds),
            "fetch_group": cfg.memory.l1.fetch_group, "outputs_match": not run.mismatches(),
            "cycles": sum(s.timing.cycles for s in run.stats), "table": table}
