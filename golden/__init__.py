"""simtlab golden SIMT model."""
