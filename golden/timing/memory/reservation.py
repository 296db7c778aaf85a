"""Reservation calendar of one shared resource (a bus, a network port, a command slot).

The memory system computes every request's timing when the request is presented
("promise at arrival"), and requests are not presented in the order of the times at
which they use a resource: a DRAM channel's data bus is asked for a row hit that can
go now after a row miss that needs it only after its precharge and activate; a network
port is asked for a quick L2-hit reply after a slow DRAM reply. A single "free from"
pointer would make the later request wait behind the earlier one's far-future use.

:class:`Calendar` stores instead the busy intervals already promised, as two sorted
lists of start and end times (fractional SM core cycles; touching intervals merged).
:meth:`Calendar.reserve` books the earliest interval of the requested length that starts
at or after the requested time and overlaps no booked interval -- it may fill a gap
before bookings made earlier. Bookings are never moved.

:meth:`Calendar.prune` forgets intervals that end before a time no future request can
start before (the caller's monotone "now"), which keeps the lists short.
"""

from __future__ import annotations

from bisect import bisect_right

_EPS = 1e-9


class Calendar:
    """Busy intervals of one resource that serves one thing at a time."""

    __slots__ = ("_starts", "_ends", "busy")

    def __init__(self):
        self._starts: list[float] = []
        self._ends: list[float] = []
        self.busy = 0.0         #: total booked time (utilisation statistic)

    def __len__(self) -> int:
        return len(self._starts)

    def intervals(self) -> list[tuple[float, float]]:
        """The booked ``(start, end)`` intervals still remembered, in time order."""
        return list(zip(self._starts, self._ends))

    def earliest(self, t: float, duration: float) -> float:
        """Start of the first free interval of ``duration`` at or after ``t`` (no booking)."""
        starts, ends = self._starts, self._ends
        i = bisect_right(ends, t + _EPS)
        s = t
        n = len(starts)
        while i < n and starts[i] < s + duration - _EPS:
            if ends[i] > s:
                s = ends[i]
            i += 1
        return s

    def reserve(self, t: float, duration: float) -> float:
        """Book ``duration`` cycles at the earliest free start ``>= t``; returns the start."""
        start = self.earliest(t, duration)
        if duration <= 0:
            return start
        s, e = start, start + duration
        starts, ends = self._starts, self._ends
        i = bisect_right(ends, s + _EPS)       # first interval ending after s
        if i > 0 and ends[i - 1] >= s - _EPS:   # a predecessor ends where we start: extend it
            i -= 1
            if i + 1 < len(starts) and starts[i + 1] <= e + _EPS:
                ends[i] = ends[i + 1]
                del starts[i + 1], ends[i + 1]
            else:
                ends[i] = e
        elif i < len(starts) and starts[i] <= e + _EPS:   # a successor starts where we end
            starts[i] = s
        else:
            starts.insert(i, s)
            ends.insert(i, e)
        self.busy += duration
        return start

    def prune(self, before: float) -> None:
        """Forget intervals that end at or before ``before``."""
        k = bisect_right(self._ends, before)
        if k:
            del self._starts[:k], self._ends[:k]
