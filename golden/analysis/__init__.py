"""Trace analyses that run over statistics or traces the golden model records (not part of
the timing loop): :mod:`golden.analysis.locality` (dissertation ch. 5 locality measure)."""
