"""The ch. 5 locality measure (golden/analysis/locality.py): known answers on synthetic
traces, a brute-force cross-check, monotonicity in W and N (seeded random property test:
hypothesis is not installed in the venv), per-stream windows and input errors (speed: ``make bench``)."""

from __future__ import annotations

import numpy as np
import pytest

from golden.analysis.locality import (
    locality_table, next_use_distance, powers_of_two,
)
from golden.bench import strided_trace
from golden.errors import SimtlabError

WINDOWS = powers_of_two(1, 256)
NEIGHBOURHOODS = powers_of_two(4, 4096)


def brute_force(addrs, windows, neighbourhoods, streams=None):
    """P(W, N) straight from the definition (quadratic; small traces only)."""
    n = len(addrs)
    streams = [0] * n if streams is None else list(streams)
    out = np.zeros((len(windows), len(neighbourhoods)))
    for k, nb in enumerate(neighbourhoods):
        for w_i, w in enumerate(windows):
            hits = 0
            for i in range(n):
                seen = 0
                for j in range(i + 1, n):
                    if streams[j] != streams[i]:
                        continue
                    seen += 1
                    if seen > w:
                        break
                    if addrs[j] // nb == addrs[i] // nb:
                        hits += 1
                        break
            out[w_i, k] = hits / n
    return out


def test_sequential_words():
    """A stream of consecutive 4 B words: no temporal reuse; half the accesses have their
    8 B neighbour next; 31 of 32 share their 128 B block with the next access."""
    n = 1024 * 4
    t = locality_table(np.arange(n) * 4, WINDOWS, NEIGHBOURHOODS)
    assert t.accesses == n
    assert np.all(t.prob[:, 0] == 0)                       # N = 4: temporal
    assert np.allclose(t.prob[:, 1], 0.5)                  # N = 8
    assert t.at(1, 128) == pytest.approx(31 / 32)
    # N = 4096 (1024 words): every access but the last of each 4 KB page, at any W
    assert t.at(1, 4096) == pytest.approx(1 - 1 / 1024)


def test_cyclic_reuse_distance():
    """K blocks visited round robin: temporal reuse exactly at W >= K."""
    K, rounds = 16, 50
    a = np.tile(np.arange(K) * 128, rounds)
    n = K * rounds
    t = locality_table(a, WINDOWS, (128,))
    for w in WINDOWS:
        want = 0.0 if w < K else (n - K) / n
        assert t.at(w, 128) == pytest.approx(want)


def test_streams_window_per_stream():
    """Two SMs interleaved, each hitting its own address every access: per stream the
    reuse distance is 1; merged (no streams) it is 2."""
    a = np.array([0, 4096] * 100)
    s = np.array([0, 1] * 100)
    per_sm = locality_table(a, (1, 2), (4,), streams=s)
    merged = locality_table(a, (1, 2), (4,))
    assert per_sm.at(1, 4) == pytest.approx(198 / 200)
    assert merged.at(1, 4) == 0 and merged.at(2, 4) == pytest.approx(198 / 200)
    assert list(next_use_distance(np.array([5, 6, 5, 5]))) == [2, 0, 1, 0]
    assert list(next_use_distance(np.array([5, 5, 5, 5]), np.array([0, 1, 0, 1]))) == [1, 1, 0, 0]


@pytest.mark.parametrize("seed", range(8))
def test_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    addrs = rng.integers(0, 2048, size=n)
    streams = rng.integers(0, 3, size=n) if seed % 2 else None
    ws, nbs = powers_of_two(1, 32), powers_of_two(1, 1024)
    t = locality_table(addrs, ws, nbs, streams=streams)
    assert np.allclose(t.prob, brute_force(list(addrs), ws, nbs, streams))


@pytest.mark.parametrize("seed", range(25))
def test_monotone_in_window_and_neighbourhood(seed):
    """Property: P is non-decreasing along W and along N, within [0, 1], for random traces
    of every shape (uniform, clustered, strided, repeated, per-stream)."""
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(1, 3000))
    kind = seed % 4
    if kind == 0:
        a = rng.integers(0, 1 << 20, size=n)
    elif kind == 1:
        a = rng.integers(0, 64, size=n) * int(rng.choice([4, 32, 128]))
    elif kind == 2:
        a = (np.arange(n) * int(rng.integers(1, 600))) % (1 << 16)
    else:
        a = rng.choice(rng.integers(0, 1 << 24, size=8), size=n)
    streams = rng.integers(0, 4, size=n) if rng.random() < 0.5 else None
    t = locality_table(a, WINDOWS, powers_of_two(1, 1 << 16), streams=streams)
    assert np.all(np.diff(t.prob, axis=0) >= 0)
    assert np.all(np.diff(t.prob, axis=1) >= 0)
    assert np.all((t.prob >= 0) & (t.prob <= 1))


def test_bad_inputs():
    with pytest.raises(SimtlabError, match="power"):
        locality_table([0, 4], (3,), (4,))
    with pytest.raises(SimtlabError, match="increasing"):
        locality_table([0, 4], (2, 1), (4,))
    with pytest.raises(SimtlabError, match="non-negative"):
        locality_table([-4, 4], (1,), (4,))
    with pytest.raises(SimtlabError, match="stream"):
        locality_table([0, 4], (1,), (4,), streams=[0])
    t = locality_table([], (1, 2), (4,))
    assert t.accesses == 0 and np.all(t.prob == 0)
    assert "W" in t.format() and t.to_dict()["accesses"] == 0


def test_a_long_multi_stream_trace_gives_a_monotone_table():
    """Large-trace behaviour (its speed is a ``make bench`` figure, not a test limit)."""
    a, s = strided_trace(200_000)
    t = locality_table(a, powers_of_two(1, 1 << 16), powers_of_two(4, 1 << 16), streams=s)
    assert t.prob.shape == (17, 15)
    assert np.all((t.prob >= 0) & (t.prob <= 1))
    assert np.all(np.diff(t.prob, axis=0) >= -1e-12) and np.all(np.diff(t.prob, axis=1) >= -1e-12)
