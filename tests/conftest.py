"""Shared pytest configuration. Markers (declared in pyproject.toml):

* ``slow``: long-running tests (e.g. default-size workload runs); part of ``make test``;
  deselect them for a quick run with ``pytest -m "not slow"``.
* ``sweep``: every workload under every variant of a mechanism in timing mode (tens of
  minutes). ``make test`` deselects them (``-m "not sweep"``) to stay inside the CI time
  budget; ``make speedups`` performs the same bit-identical-output check on every run and
  fails if it does not hold; ``make test-sweep`` runs them.
"""
