"""G-Scalar byte-wise register compression: vectorised encoding functions (seed 003 §3, §4.2).

These are pure numpy functions over *many* register writes at once (one row per warp
write, one column per lane). They are the arithmetic of the compressor, the decompressor
and the read-activation rule; the structure classes in :mod:`golden.structures.gscalar`
(and the value statistics of the mechanism) are built on them.

Encoding (paper §3.1, paper-facts §6.2)
---------------------------------------
Byte position ``i`` (3 = most significant) is *common* when every active lane holds the
same byte ``i``. Only a prefix of common bytes starting at the MSB is exploited, written
as a 4-bit thermometer code ``enc[3:0]``:

====== ============= ==============================
enc    common bytes  meaning
====== ============= ==============================
0000   0             nothing common (stored as is)
1000   1             byte[3] common
1100   2             byte[3:2] common
1110   3             byte[3:1] common
1111   4             scalar: every lane equal
====== ============= ==============================

Base value (BVR content)
    The value of the **first active lane** (lowest lane index). For a non-divergent
    write this is lane 0, the paper's ``op[0]``. For a divergent write (§3.3, §4.2) the
    comparison is across active lanes only: inactive lanes are replaced by the broadcast
    of one active lane, which is equivalent to ignoring them; any active lane gives the
    same ``enc``. (The paper draws the leading-one detector from the MSB side; the
    choice only changes which lane drives the bus, never ``enc``, and the base bytes
    covered by ``enc`` are equal in every active lane.) For a divergent write the
    register file stores the writer's active mask in the BVR instead of this base; that
    is the business of :class:`~golden.structures.gscalar.bank.CompressedBank`.

Rows with no active lane
    ``enc = 0b0000`` and ``base = 0``: nothing is claimed common, so such a row is never
    counted as scalar and a read of it would activate every array. (A warp never writes
    a register with an empty mask; the convention only keeps the functions total.)

Half-register (group) compression (paper §3.2, §4.3)
    :func:`group_enc` splits the lanes into equal contiguous groups and encodes each
    group on its own (its own base and ``enc``). :func:`half_enc` is the two-group case
    of the paper (``encL`` = lanes ``0..lanes/2-1``, ``encH`` = the upper half) and also
    returns the **FS** bit: both halves scalar with the same value, so one lane can serve
    the whole warp.

Physical arrays (paper §3.1, §6.1)
    Bytes are stored reordered: a 128-bit SRAM array holds byte ``i`` of 16 lanes, so a
    32-lane register uses 2 arrays per byte position, 8 in all. A read activates the
    arrays of the byte positions not covered by the base (every array when the register
    was written by a divergent instruction, ``D = 1``) plus the small BVR/EBR array.
"""

from __future__ import annotations

import numpy as np

from golden.errors import SimtlabError

__all__ = [
    "ENC_CODES",
    "ARRAY_BITS",
    "LANES_PER_ARRAY",
    "common_bytes",
    "enc_from_common",
    "covered_mask",
    "byte_enc",
    "group_enc",
    "half_enc",
    "decompress",
    "group_decompress",
    "arrays_read",
    "group_arrays_read",
]

#: The five legal encodings, indexed by the number of common MSB bytes (0..4).
ENC_CODES = (0b0000, 0b1000, 0b1100, 0b1110, 0b1111)
#: Width in bits of one SRAM array of a bank (paper: 8 x 128-bit arrays per bank).
ARRAY_BITS = 128
#: Lanes whose byte ``i`` fits in one array (128 / 8).
LANES_PER_ARRAY = ARRAY_BITS // 8

_ENC_TO_COMMON = np.full(16, -1, dtype=np.int8)
for _k, _code in enumerate(ENC_CODES):
    _ENC_TO_COMMON[_code] = _k
_COMMON_TO_ENC = np.array(ENC_CODES, dtype=np.uint8)
#: Bits of a 32-bit value covered by the base, indexed by the number of common bytes.
_COVER = np.array([0x00000000, 0xFF000000, 0xFFFF0000, 0xFFFFFF00, 0xFFFFFFFF], dtype=np.uint32)
_DIFF_LIMITS = np.array([1 << 24, 1 << 16, 1 << 8, 1], dtype=np.uint64)


# ----------------------------------------------------------------------------- helpers
def _values_2d(values, what: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 2:
        raise SimtlabError(f"gscalar.{what}: values must have shape (n, lanes), not {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise SimtlabError(f"gscalar.{what}: values must be an integer array, not {arr.dtype}")
    if arr.dtype.itemsize > 4:
        if (arr.dtype.kind == "u" and np.any(arr > 0xFFFFFFFF)) or \
           (arr.dtype.kind == "i" and np.any((arr < -(1 << 31)) | (arr > 0xFFFFFFFF))):
            raise SimtlabError(f"gscalar.{what}: values must fit in 32 bits")
    return arr.astype(np.uint32, copy=False) if arr.dtype != np.uint32 else arr


def _active_2d(active, shape, what: str) -> np.ndarray:
    if active is None:
        return np.ones(shape, dtype=bool)
    act = np.asarray(active)
    if act.shape != shape:
        raise SimtlabError(f"gscalar.{what}: active must have shape {shape}, not {act.shape}")
    return act.astype(bool, copy=False)


def _enc_array(enc, what: str) -> np.ndarray:
    arr = np.asarray(enc)
    if arr.dtype.kind not in "iu" or np.any((arr < 0) | (arr > 15)):
        raise SimtlabError(f"gscalar.{what}: enc must hold 4-bit codes")
    k = _ENC_TO_COMMON[arr.astype(np.intp)]
    if np.any(k < 0):
        bad = int(np.asarray(arr)[k < 0].flat[0])
        raise SimtlabError(f"gscalar.{what}: enc 0b{bad:04b} is not one of "
                           f"{', '.join(f'0b{c:04b}' for c in ENC_CODES)}")
    return k


def common_bytes(enc) -> np.ndarray:
    """Number of common MSB bytes (0..4) of each thermometer code in *enc*."""
    return _enc_array(enc, "common_bytes").astype(np.uint8)


def enc_from_common(k) -> np.ndarray:
    """Thermometer code of *k* common MSB bytes (0..4)."""
    arr = np.asarray(k)
    if arr.dtype.kind not in "iu" or np.any((arr < 0) | (arr > 4)):
        raise SimtlabError("gscalar.enc_from_common: k must be in 0..4")
    return _COMMON_TO_ENC[arr.astype(np.intp)]


def covered_mask(enc) -> np.ndarray:
    """32-bit mask of the bits each code takes from the base (e.g. 0b1100 -> 0xFFFF0000)."""
    return _COVER[_enc_array(enc, "covered_mask").astype(np.intp)]


# ----------------------------------------------------------------------------- compress
def byte_enc(values, active=None) -> tuple[np.ndarray, np.ndarray]:
    """Compress many register writes: per row, ``enc`` and the base value.

    Parameters
    ----------
    values : array of uint32, shape ``(n, lanes)``
        Lane values of each written register (row = one warp's write).
    active : array of bool, shape ``(n, lanes)``, optional
        Lanes that write; ``None`` means all. Inactive lanes are ignored by the
        comparison (paper §4.2 broadcast of an active lane).

    Returns
    -------
    enc : uint8 array ``(n,)``
        Thermometer code (see module docstring).
    base : uint32 array ``(n,)``
        Value of the first active lane; 0 for a row with no active lane (whose ``enc``
        is then 0b0000).
    """
    vals = _values_2d(values, "byte_enc")
    act = _active_2d(active, vals.shape, "byte_enc")
    n = vals.shape[0]
    if vals.shape[1] == 0:
        raise SimtlabError("gscalar.byte_enc: a register needs at least one lane")
    any_active = act.any(axis=1)
    first = np.argmax(act, axis=1)
    base = vals[np.arange(n), first]
    base = np.where(any_active, base, np.uint32(0)).astype(np.uint32)
    # OR over active lanes of (lane ^ base): its leading zero bytes are the common bytes.
    diff = np.bitwise_or.reduce(np.where(act, vals ^ base[:, None], np.uint32(0)), axis=1)
    diff = diff.astype(np.uint64)
    k = (diff[:, None] < _DIFF_LIMITS[None, :]).sum(axis=1)
    k = np.where(any_active, k, 0)
    return _COMMON_TO_ENC[k], base


def group_enc(values, active=None, groups: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Encode each of *groups* equal contiguous lane groups on its own.

    Returns ``enc`` uint8 and ``base`` uint32, both of shape ``(n, groups)``; column
    ``g`` covers lanes ``g * lanes/groups`` to ``(g + 1) * lanes/groups - 1``. With
    ``groups=2`` this is the half-register compression of §3.2 (column 0 = ``encL``,
    column 1 = ``encH``); with 64-lane warps and ``groups=4`` the "quarter-scalar"
    granularity of §5.2.
    """
    vals = _values_2d(values, "group_enc")
    act = _active_2d(active, vals.shape, "group_enc")
    n, lanes = vals.shape
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1 or lanes % groups:
        raise SimtlabError(f"gscalar.group_enc: groups={groups!r} must divide lanes={lanes}")
    width = lanes // groups
    enc, base = byte_enc(vals.reshape(n * groups, width), act.reshape(n * groups, width))
    return enc.reshape(n, groups), base.reshape(n, groups)


def half_enc(values, active=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Half-register compression (§3.2, §4.3): ``(encL, encH, baseL, baseH, fs)``.

    ``encL``/``baseL`` cover the lower half of the lanes, ``encH``/``baseH`` the upper
    half (shape ``(n,)`` each). ``fs`` (full scalar) is True when both halves are scalar
    (``1111``) with the same value, i.e. the whole register is one scalar.
    """
    enc, base = group_enc(values, active, groups=2)
    full = np.uint8(ENC_CODES[4])
    fs = (enc[:, 0] == full) & (enc[:, 1] == full) & (base[:, 0] == base[:, 1])
    return enc[:, 0], enc[:, 1], base[:, 0], base[:, 1], fs


# ----------------------------------------------------------------------------- decompress
def decompress(stored, enc, base, d=None) -> np.ndarray:
    """Rebuild lane values from stored bytes and the BVR, selected by the EBR (§3.1).

    Parameters
    ----------
    stored : uint32 array ``(n, lanes)``
        What the byte arrays hold for each lane; bytes covered by the base are ignored
        (they are neither stored nor read).
    enc : codes ``(n,)``; base : uint32 ``(n,)``
    d : bool ``(n,)``, optional
        D bit: a register written by a divergent instruction is not compressed, so its
        ``enc`` is ignored and the stored lanes are returned as they are (§3.3 rule 4).
    """
    vals = _values_2d(stored, "decompress")
    n = vals.shape[0]
    cover = covered_mask(enc)
    b = np.asarray(base).astype(np.uint32)
    if cover.shape != (n,) or b.shape != (n,):
        raise SimtlabError(f"gscalar.decompress: enc and base must have shape ({n},)")
    if d is not None:
        dd = np.asarray(d, dtype=bool)
        if dd.shape != (n,):
            raise SimtlabError(f"gscalar.decompress: d must have shape ({n},)")
        cover = np.where(dd, np.uint32(0), cover).astype(np.uint32)
    return ((vals & ~cover[:, None]) | (b[:, None] & cover[:, None])).astype(np.uint32)


def group_decompress(stored, enc, base, d=None) -> np.ndarray:
    """:func:`decompress` for group-encoded registers: ``enc``/``base`` of shape ``(n, groups)``."""
    vals = _values_2d(stored, "group_decompress")
    n, lanes = vals.shape
    e = np.asarray(enc)
    b = np.asarray(base)
    if e.ndim != 2 or e.shape[0] != n or b.shape != e.shape or lanes % e.shape[1]:
        raise SimtlabError("gscalar.group_decompress: enc/base must have shape (n, groups) "
                           "with groups dividing lanes")
    groups = e.shape[1]
    width = lanes // groups
    dd = None if d is None else np.repeat(np.asarray(d, dtype=bool), groups)
    out = decompress(vals.reshape(n * groups, width), e.reshape(-1), b.reshape(-1), dd)
    return out.reshape(n, lanes)


# ----------------------------------------------------------------------------- activations
def _arrays_per_byte(lanes: int) -> int:
    if not isinstance(lanes, int) or isinstance(lanes, bool) or lanes < 1:
        raise SimtlabError(f"gscalar: lanes must be a positive integer, not {lanes!r}")
    return -(-lanes // LANES_PER_ARRAY)


def arrays_read(enc, d=None, lanes: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """Arrays a register read activates (§3.1): ``(byte_arrays, bvr_read)``.

    ``byte_arrays`` (uint8, shape of *enc*) counts the 128-bit byte arrays that must be
    activated: the byte positions not covered by the base times the arrays per byte
    position (``ceil(lanes / 16)``: 2 for 32 lanes, so 0..8; 1 for 16 lanes, 0..4). With
    ``d`` set the register is stored uncompressed and every array is read.

    ``bvr_read`` (bool) says the small BVR/EBR/D/FS array is read. In G-Scalar it is
    read before **every** register read (the extra pipeline stage of §5.1: the encoding
    decides which arrays to activate), so it is always True; it is returned so that
    energy accounting can count it per read.
    """
    k = common_bytes(enc).astype(np.int64)
    per = _arrays_per_byte(lanes)
    uncovered = 4 - k
    if d is not None:
        dd = np.asarray(d, dtype=bool)
        if dd.shape != k.shape:
            raise SimtlabError(f"gscalar.arrays_read: d must have shape {k.shape}, not {dd.shape}")
        uncovered = np.where(dd, 4, uncovered)
    return (uncovered * per).astype(np.uint8), np.ones(k.shape, dtype=bool)


def group_arrays_read(enc, d=None, lanes: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """Arrays activated by a read of a group-encoded register; ``enc`` shape ``(n, groups)``.

    An array holds byte ``i`` of 16 consecutive lanes. It is activated when any group
    that has lanes in it does not have byte ``i`` covered by its base (or when ``d``).
    For 32 lanes and 2 groups each half owns one array per byte position, so halves are
    activated separately as the paper describes. Returns ``(byte_arrays (n,), bvr_read (n,))``.
    """
    e = np.asarray(enc)
    if e.ndim != 2:
        raise SimtlabError("gscalar.group_arrays_read: enc must have shape (n, groups)")
    n, groups = e.shape
    per = _arrays_per_byte(lanes)
    if lanes % groups:
        raise SimtlabError(f"gscalar.group_arrays_read: groups={groups} must divide lanes={lanes}")
    k = common_bytes(e).astype(np.int64)                   # (n, groups)
    if d is not None:
        dd = np.asarray(d, dtype=bool)
        if dd.shape != (n,):
            raise SimtlabError(f"gscalar.group_arrays_read: d must have shape ({n},)")
        k = np.where(dd[:, None], 0, k)
    width = lanes // groups
    total = np.zeros(n, dtype=np.int64)
    for a in range(per):
        lo, hi = a * LANES_PER_ARRAY, min(lanes, (a + 1) * LANES_PER_ARRAY)
        owners = [g for g in range(groups) if g * width < hi and (g + 1) * width > lo]
        # Byte position i (from the MSB, 0-based j = 3 - i) is needed unless every owner
        # covers it: needed positions = 4 - min(common bytes of the owners).
        total += 4 - k[:, owners].min(axis=1)
    return total.astype(np.uint8), np.ones(n, dtype=bool)
