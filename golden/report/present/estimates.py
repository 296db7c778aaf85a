"""Sampled figures with their 95% intervals, as the report renderers see them (issue 68).

``simtlab report --sample`` hands the renderers results whose ``cycles`` (and
``energy.total_j``) are :class:`Estimate` values (:func:`with_estimates`): a ``float``
that carries its standard error and degrees of freedom. Arithmetic a renderer does with it
propagates the interval, so a speed-up ``base["cycles"] / r["cycles"]`` computed by any
report is itself an :class:`Estimate`, and formatting it with a format spec prints the
value and the 95% half-width: ``f"{sp:.3f}"`` gives ``1.234 ±0.012``. Without ``--sample``
nothing here is used and every figure stays a plain number.

Propagation (first-order delta method; the two figures are treated as *independent*
estimates): for ``r = a / b`` or ``a * b``, ``(se_r / r)^2 = (se_a / a)^2 + (se_b / b)^2``;
for ``a +- b``, ``se^2 = se_a^2 + se_b^2``; a plain number has no error. Degrees of freedom
of a combination: Welch-Satterthwaite over the variance terms, ``df = (sum v_i)^2 /
sum(v_i^2 / df_i)``. The 95% half-width is ``t(0.975, df) * se``. A baseline and a
mechanism run sampled with the same sample seed time the same launches (or units), so their
errors are positively correlated and the independent-estimates interval of their ratio is
conservative (wider than the true one). A figure whose interval is not estimable (a group
of several launches with one detailed) prints ``±?`` and propagates "not estimable".

:func:`with_bounds` gives a report's JSON document a ``<key>_low`` / ``<key>_high`` pair
beside every estimated number of a dict, since JSON writes an :class:`Estimate` as its
value only.
"""

from __future__ import annotations

import math
import re

from golden.timing.sampling import t975

__all__ = ["Estimate", "geomean_estimate", "with_bounds", "with_estimates", "with_intervals"]

_SPEC = re.compile(r"^(?:.?[<>=^])?[+\- ]?z?#?0?(\d+)?(?P<group>[_,])?(?:\.(?P<prec>\d+))?"
                   r"(?P<type>[bcdeEfFgGnosxX%])?$")


class Estimate(float):
    """A sampled estimate: its value (the float), ``se`` (standard error; None when the
    interval is not estimable), ``df`` (degrees of freedom; ``inf`` for a normal
    quantile), ``low`` / ``high`` (the 95% interval; a sampled run may raise the lower end,
    so they need not be symmetric) and ``integral`` (print as an integer: cycles)."""

    def __new__(cls, value, se, df=math.inf, low=None, high=None, integral=False):
        self = super().__new__(cls, value)
        self.se = None if se is None else float(se)
        self.df = math.inf if df is None else float(df)
        self.integral = integral
        half = self.half_width
        self.low = low if low is not None or half is None else float(value) - half
        self.high = high if high is not None or half is None else float(value) + half
        return self

    def __reduce__(self):
        return (Estimate, (float(self), self.se, self.df, self.low, self.high, self.integral))

    @property
    def half_width(self) -> float | None:
        """The 95% half-width ``t(0.975, df) * se`` (None when not estimable)."""
        if self.se is None:
            return None
        if self.se == 0:
            return 0.0
        return (1.959964 if math.isinf(self.df) else t975(self.df)) * self.se

    # -- arithmetic (module docstring) ---------------------------------------------------
    @staticmethod
    def _parts(x):
        """``(value, se, df)`` of an Estimate or a plain number (exact)."""
        if isinstance(x, Estimate):
            return float(x), x.se, x.df
        return float(x), 0.0, math.inf

    @staticmethod
    def _combine(value, terms) -> "Estimate":
        """``value`` with the variance ``sum v`` of ``terms`` ``[(v, df)]`` (v None = not
        estimable); df by Welch-Satterthwaite."""
        if any(v is None for v, _ in terms):
            return Estimate(value, None)
        var = sum(v for v, _ in terms)
        den = sum(v * v / df for v, df in terms if v and not math.isinf(df))
        df = math.inf if den == 0 else var * var / den
        return Estimate(value, math.sqrt(var), df)

    def _relative(self, other, value):
        terms = []
        for x in (self, other):
            v, se, df = self._parts(x)
            if se is None:
                terms.append((None, df))
            elif se == 0:
                terms.append((0.0, df))
            elif v == 0:
                return Estimate(value, None)
            else:
                terms.append(((se / v) ** 2 * value * value, df))
        return self._combine(value, terms)

    def _absolute(self, other, value):
        terms = []
        for x in (self, other):
            _, se, df = self._parts(x)
            terms.append((None if se is None else se * se, df))
        return self._combine(value, terms)

    def __truediv__(self, other):
        if not isinstance(other, (int, float)):
            return NotImplemented
        return self._relative(other, float(self) / float(other))

    def __rtruediv__(self, other):
        if not isinstance(other, (int, float)):
            return NotImplemented
        return self._relative(other, float(other) / float(self))

    def __mul__(self, other):
        if not isinstance(other, (int, float)):
            return NotImplemented
        return self._relative(other, float(self) * float(other))

    __rmul__ = __mul__

    def __add__(self, other):
        if not isinstance(other, (int, float)):
            return NotImplemented
        return self._absolute(other, float(self) + float(other))

    __radd__ = __add__

    def __sub__(self, other):
        if not isinstance(other, (int, float)):
            return NotImplemented
        return self._absolute(other, float(self) - float(other))

    def __rsub__(self, other):
        if not isinstance(other, (int, float)):
            return NotImplemented
        return self._absolute(other, float(other) - float(self))

    def __neg__(self):
        return Estimate(-float(self), self.se, self.df)

    # -- text ----------------------------------------------------------------------------
    def __format__(self, spec: str) -> str:
        """The value as ``spec`` formats it; with a non-empty spec, followed by ``±h`` (the
        95% half-width in the same precision; ``±?`` when not estimable, nothing when
        exact; ``[low, high]`` for an estimate rebuilt from bounds alone)."""
        plain = round(float(self)) if self.integral else float(self)
        core = format(plain, spec)
        if not spec:
            return core
        half = self.half_width
        if half == 0:
            return core
        m = _SPEC.match(spec)
        hspec = "" if m is None else "".join(
            (m["group"] or "", f".{m['prec']}" if m["prec"] else "", m["type"] or ""))
        if half is None and self.low is not None and self.high is not None:
            # rebuilt from a JSON's bounds (with_intervals): the interval is known, se not
            lo, hi = ((round(x) if self.integral else x) for x in (self.low, self.high))
            return f"{core} [{format(lo, hspec)}, {format(hi, hspec)}]"
        if half is None:
            return f"{core} ±?"
        return f"{core} ±{format(round(half) if self.integral else half, hspec)}"


def geomean_estimate(values, value: float) -> "Estimate":
    """The geometric mean ``value`` of the positive ``values`` (some of them
    :class:`Estimate`) as an :class:`Estimate`: first-order delta method in log space, the
    figures taken as independent, ``se(log g) ^ 2 = sum_i (se_i / x_i) ^ 2 / n ^ 2`` and
    ``se_g = g * se(log g)``; a plain number adds no error; df by Welch-Satterthwaite over
    the ``n`` terms; not estimable if any term is. ``value`` is the mean the caller computed
    (so the printed figure is the one a plain-number mean would give)."""
    n = len(values)
    terms = []
    for x in values:
        v, se, df = Estimate._parts(x)
        terms.append((None if se is None else (value * se / (v * n)) ** 2, df))
    return Estimate._combine(value, terms)


def _interval_estimate(value, iv: dict | None, integral: bool):
    """``value`` as an :class:`Estimate` from a sampled record's interval dict (the
    ``to_dict`` of :class:`golden.timing.sampling.Estimate`); the plain value when the
    interval is missing or the figure exact."""
    if not isinstance(iv, dict) or iv.get("exact"):
        return value
    if not iv.get("estimable"):
        return Estimate(value, None, integral=integral)
    return Estimate(value, iv.get("std_error") or 0.0, iv.get("df"), iv.get("low"),
                    iv.get("high"), integral=integral)


def with_estimates(results: dict) -> dict:
    """``results`` with every sampled record's (one with a ``sampling`` block) ``cycles``
    and ``energy.total_j`` as :class:`Estimate` values (copies; the cache's records are
    not changed). Full runs are returned as they are. ``timing.cycles`` stays the
    integer (``TimingStats.from_dict`` checks it), so figures a renderer derives from a
    rebuilt ``TimingStats`` (G-Scalar's IPC and power) carry no interval."""
    out = {}
    for k, r in results.items():
        if not isinstance(r, dict) or not isinstance(r.get("sampling"), dict) or "error" in r:
            out[k] = r
            continue
        ivs = r["sampling"].get("intervals") or {}
        r2 = dict(r)
        r2["cycles"] = _interval_estimate(r["cycles"], ivs.get("cycles"), True)
        if isinstance(r.get("energy"), dict) and "total_j" in r["energy"]:
            r2["energy"] = {**r["energy"], "total_j": _interval_estimate(
                r["energy"]["total_j"], ivs.get("energy_total_j"), False)}
        out[k] = r2
    return out


def with_bounds(doc):
    """``doc`` (a report's JSON document) with ``<key>_low`` / ``<key>_high`` beside every
    :class:`Estimate` value of a dict (None when not estimable); lists are walked, their
    estimates stay plain numbers."""
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            out[k] = with_bounds(v)
            if isinstance(v, Estimate) and isinstance(k, str):
                for side in ("low", "high"):
                    if f"{k}_{side}" not in doc:
                        out[f"{k}_{side}"] = getattr(v, side)
        return out
    if isinstance(doc, (list, tuple)):
        return type(doc)(with_bounds(v) for v in doc) if isinstance(doc, list) else \
            tuple(with_bounds(v) for v in doc)
    return doc


def with_intervals(doc):
    """The inverse of :func:`with_bounds` for drawing: ``doc`` (a sampled report's JSON
    document) with every number of a dict that has finite ``<key>_low`` / ``<key>_high``
    numbers beside it as an :class:`Estimate` holding that interval. The JSON keeps no
    standard error or degrees of freedom, so the rebuilt estimate has ``se`` None: its
    ``low`` / ``high`` are exact, but arithmetic on it (or a mean over it) is *not
    estimable* rather than given an invented interval."""
    def num(x):
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            v = with_intervals(v)
            lo, hi = (doc.get(f"{k}_{side}") if isinstance(k, str) else None
                      for side in ("low", "high"))
            if num(v) and not isinstance(v, Estimate) and num(lo) and num(hi):
                v = Estimate(v, None, low=float(lo), high=float(hi))
            out[k] = v
        return out
    if isinstance(doc, list):
        return [with_intervals(v) for v in doc]
    return doc
