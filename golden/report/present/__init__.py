"""Presentation of report results: figures, the tidy CSV and the browsable HTML page.

Everything here reads the reports' JSON documents and the simulations' result dicts; none of
it can change a simulation, so it is left out of the result cache's model fingerprint
(golden/jobs/cache.py) and ``simtlab publish`` rebuilds it from ``build/results`` without
simulating.
"""

from golden.report.present.publish import publish  # noqa: F401
