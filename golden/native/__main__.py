"""``python -m golden.native build|status``: build or inspect the compiled timing core."""

from __future__ import annotations

import sys

from golden.native import HOT_MODULES, NativeBuildError, build, status


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m golden.native",
                                 description="build or inspect the compiled timing core")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="compile the hot modules for the current sources")
    b.add_argument("--force", action="store_true", help="rebuild even if up to date")
    b.add_argument("-j", "--jobs", type=int, default=None)
    b.add_argument("--verbose", action="store_true")
    sub.add_parser("status", help="say whether the compiled core is used, and why")
    args = ap.parse_args(argv)
    if args.cmd == "build":
        try:
            out = build(force=args.force, jobs=args.jobs, quiet=not args.verbose)
        except NativeBuildError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(f"compiled timing core: {out} ({len(HOT_MODULES)} modules)")
        return 0
    st = status()
    print(f"timing core: {st.reason}; source hash {st.hash}")
    for m in HOT_MODULES:
        print(f"  {m}")
    return 0




if __name__ == "__main__":
    sys.exit(main())
