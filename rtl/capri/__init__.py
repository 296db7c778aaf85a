"""Amaranth components of the CAPRI structures of seed 004: the compaction-adequacy
prediction table (:mod:`.capt`) and the warp compaction unit with its adequacy evaluator
(:mod:`.wcu`)."""
