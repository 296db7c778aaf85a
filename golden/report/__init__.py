"""Reports of the main job (``make speedups`` = ``simtlab report all``).

Each report module has ``jobs(opts) -> [TimingJob]`` and ``render(results, opts) ->
(markdown, json-ready dict)``; :mod:`golden.report.runner` runs the union of the jobs.
"""

#: report name -> module. Reports whose module is missing are skipped by ``all``.
REPORTS = {
    "baseline": "golden.report.baseline",
    "darsie": "golden.report.darsie",
    "gscalar": "golden.report.gscalar",
}
