"""``simtlab new mechanism NAME`` / ``simtlab new structure NAME [--group G]``
(:mod:`golden.scaffold.generate`)."""

from __future__ import annotations

from golden.scaffold.generate import new_mechanism, new_structure


def add_subcommand(sub) -> None:
    """Register ``simtlab new`` on the ``simtlab`` subparsers ``sub``."""
    p = sub.add_parser("new", help="generate a working skeleton of a new mechanism or structure")
    kinds = p.add_subparsers(dest="kind", required=True)
    m = kinds.add_parser("mechanism", help="a mechanism on the timing hooks, registered, with a "
                                           "run beside the baseline and tests")
    m.add_argument("name", help="registry name, e.g. reuse-cache")
    s = kinds.add_parser("structure", help="a structure in three views (golden model, Amaranth "
                                           "component, cocotb bench), a synth target and tests")
    s.add_argument("name", help="module name, e.g. value_cache")
    s.add_argument("--group", help="folder under golden/structures, rtl and tb (default: NAME)")
    for q in (m, s):
        q.add_argument("--dest", metavar="DIR",
                       help="simtlab source tree to write into (default: this checkout)")
    p.set_defaults(fn=cmd_new)


def cmd_new(args) -> int:
    if args.kind == "mechanism":
        done = new_mechanism(args.name, args.dest)
    else:
        done = new_structure(args.name, args.dest, args.group)
    for path in done.created:
        print(f"created {path}")
    for path in done.edited:
        print(f"edited  {path}")
    print("next:")
    for step in done.next_steps:
        print(f"  {step}")
    return 0
