"""The coarse-grained L1 with SM set-dueling (dissertation ch. 5)."""
