"""``simtlab characterise --against-papers``: run the workload-fidelity table
(:mod:`golden.report.fidelity`) from the command line.

The functional probes run (``-j`` workers, through the result cache); the timing runs are
read from the cache and the committed archive, or simulated with ``--simulate``. Writes
``<out>/fidelity.md`` and ``<out>/fidelity.json``; the last line printed is
``K of N rows within tolerance``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from golden.errors import SimtlabError


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file (a clear error on failure)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as exc:
        raise SimtlabError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        tmp.unlink(missing_ok=True)


def run_against_papers(args) -> int:
    """The command (``args``: characterise's parsed arguments); 1 when some workload's
    outputs differ from its numpy reference, else 0."""
    from golden.report import fidelity
    from golden.jobs.cache import ResultCache
    from golden.jobs.executors import run_jobs
    from golden.workloads import registry
    size = args.size or "paper"
    only = [registry.get(n).name for n in args.only] if args.only else None
    func, primary, timing = fidelity.needed_jobs(size, args.seed, only)
    sized = None
    if size == "published":     # at paper where that is the published input (the archive's)
        from golden.jobs.published import published_plan
        sized = published_plan([*func, *primary, *timing])
        func, primary, timing = sized.map(func), sized.map(primary), sized.map(timing)
    cache = None if args.no_cache else ResultCache()
    progress = sys.stderr.isatty()
    results = run_jobs(func, workers=args.jobs, progress=progress, cache=cache)
    if args.simulate:
        results.update(run_jobs(primary, workers=args.jobs, progress=progress, cache=cache))
    elif cache is not None:
        results.update(run_jobs(timing, progress=False, cache=cache, cached_only=True))
    if sized:
        results = sized.view(results)
    rows, bare = fidelity.build_rows(results, size, args.seed, only)
    md = fidelity.render_rows(rows, bare, size, args.seed)
    out = Path(args.out)
    _write(out / "fidelity.md", md)
    _write(out / "fidelity.json", json.dumps(fidelity.to_json(rows, bare, size, args.seed),
                                             indent=1, default=str))
    bad = sorted(k for k, r in results.items() if r.get("outputs_match") is False)
    for k in bad:
        print(f"simtlab: outputs differ from the numpy reference: {k}", file=sys.stderr)
    print(md.rstrip("\n").rsplit("\n", 1)[0])
    print(f"wrote {out / 'fidelity.md'} and .json")
    print(fidelity.summary_line(rows))
    return 1 if bad else 0
