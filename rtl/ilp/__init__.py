"""Amaranth components of the ILP structures of seed 002 ch. 4: the many-thread-aware
scoreboard (:mod:`.scoreboard`) and the gshare branch predictor (:mod:`.gshare`)."""
