"""Amaranth components of DARSIE's skip hardware (seed 000 §4.3, Fig. 7).

Each has a golden twin in :mod:`golden.structures.darsie` with the same ports:
:class:`~rtl.darsie.skip_table.SkipTable` (B, with the majority masks),
:class:`~rtl.darsie.coalescer.PCCoalescer` (A),
:class:`~rtl.darsie.rename_table.RenameTable` (D),
:class:`~rtl.darsie.version_table.VersionTable` (E),
:class:`~rtl.darsie.phys_freelist.PhysRegFreeList` (F).
"""
