"""ILP techniques for shader cores (seed 002 ch. 4): the many-thread-aware scoreboard
(:mod:`.scoreboard`, mechanism ``ilp-sc``)."""
