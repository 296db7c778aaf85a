"""``simtlab config``: make and inspect GPU configurations of your own.

    simtlab config new NAME --from CONFIG [--out FILE] [--force]
        write NAME.yaml (or FILE): ``inherits: CONFIG`` and every inherited key, commented
        out, with its value and the citation of the line that set it
    simtlab config show NAME|FILE [--json FILE]
        the effective configuration: every value with the file:line that set it (through the
        ``inherits`` chain) or ``default (schema)``

See docs/own-gpu.md.
"""

from __future__ import annotations

import json
from pathlib import Path

from golden.cli_args import output_file
from golden.errors import ConfigError
from golden.fileio import write_output


def cmd_config_new(args) -> int:
    from golden.configs.loader import load_config
    from golden.configs.provenance import annotated_child
    out = Path(args.out) if args.out else Path(f"{args.name}.yaml")
    if out.suffix not in (".yaml", ".yml"):
        raise ConfigError(f"--out {out}: a configuration file ends in .yaml")
    if out.exists() and not args.force:
        raise ConfigError(f"{out} exists; choose another --out or pass --force to replace it")
    text = annotated_child(args.name, args.from_, out.parent)
    write_output(out, text)
    load_config(out)  # the file just written must load: inherits resolves, nothing else set
    print(f"wrote {out}: {args.name}, inheriting {args.from_}; edit the keys that differ and "
          f"check it with `simtlab config show {out}`")
    return 0


def cmd_config_show(args) -> int:
    from golden.configs.provenance import effective_config, format_origins
    cfg, rows = effective_config(args.config)
    print(format_origins(cfg, rows))
    if args.json:
        write_output(Path(args.json), json.dumps(
            {"name": cfg.name, "description": cfg.description,
             "values": [{"key": r.key, "value": r.value, "set_by": r.where,
                         "comment": r.comment} for r in rows]}, indent=1))
    return 0


def add_subcommand(sub) -> None:
    """Register ``simtlab config new|show``."""
    c = sub.add_parser("config", help="make (new) or inspect (show) a GPU configuration")
    cs = c.add_subparsers(dest="config_cmd", required=True)
    n = cs.add_parser("new", help="write an annotated YAML that inherits a configuration")
    n.add_argument("name", help="name of the new configuration (its 'name:' key)")
    n.add_argument("--from", dest="from_", required=True, metavar="CONFIG",
                   help="the configuration to inherit (a shipped name such as gtx480, or a file)")
    n.add_argument("--out", type=output_file, metavar="FILE",
                   help="where to write it (default NAME.yaml in the current directory)")
    n.add_argument("--force", action="store_true", help="replace FILE if it exists")
    n.set_defaults(fn=cmd_config_new)
    s = cs.add_parser("show", help="print the effective configuration and where each value "
                                   "was set (file:line)")
    s.add_argument("config", metavar="NAME|FILE")
    s.add_argument("--json", type=output_file, help="also write the table as JSON")
    s.set_defaults(fn=cmd_config_show)
