"""CAPRI: compaction-adequacy prediction (seed 004)."""
