"""``simtlab new mechanism NAME`` / ``simtlab new structure NAME``: the skeleton of a new
mechanism (timing hooks, registration, a beside-the-baseline comparison and tests) or of a
new key structure in its three views (DESIGN.md, "one structure, three views": golden
model, Amaranth component, cocotb bench, plus a synth target and tests).

The files are rendered from the templates in ``golden/scaffold/templates/`` (package data)
by :mod:`golden.scaffold.generate`; names are checked by :mod:`golden.scaffold.names`. The
generated skeleton works as generated: its tests pass before the user changes a line.
"""
