"""Formal verification of the RTL structures (``make formal``; docs/formal.md)."""
