"""simtlab Amaranth RTL components."""
