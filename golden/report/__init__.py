"""Reports of the main job (``make speedups`` = ``simtlab report all``).

Each report module has ``jobs(opts) -> [TimingJob]`` and ``render(results, opts) ->
(markdown, json-ready dict)``; :mod:`golden.report.runner` runs the union of the jobs.
"""

#: report name -> module. Reports whose module is missing are skipped by ``all``.
REPORTS = {
    "baseline": "golden.report.baseline",
    "darsie": "golden.report.darsie",
    "gscalar": "golden.report.gscalar",
    "ilp": "golden.report.ilp",
    "hetero": "golden.report.hetero",
    "uv": "golden.report.uv",
    "warpman": "golden.report.warpman",
    "coarse": "golden.report.coarse",
    "capri": "golden.report.capri",
    "compose": "golden.report.compose",
    "fidelity": "golden.report.fidelity",
}


def available_reports() -> dict:
    """``{name: module}`` of every report whose module can be imported (a missing report
    module is skipped; an import error inside an existing one is raised)."""
    import importlib

    out = {}
    for name, module in REPORTS.items():
        try:
            out[name] = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name != module:
                raise
    return out
