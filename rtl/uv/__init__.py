"""Amaranth components of the uniform-vector structures of seed 002 ch. 2: the instruction
reuse buffer (:mod:`.irb`), the SRF renaming map with its free list (:mod:`.srf_map`) and
the uniform detection logic (:mod:`.detect`)."""
