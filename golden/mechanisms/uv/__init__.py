"""Uniform-vector elimination (seed 002 ch. 2, published as ICS 2013): the token and
scalar-RF designs with the instruction reuse buffer (:mod:`.mechanism`), their static
decode (:mod:`.decode`)."""
