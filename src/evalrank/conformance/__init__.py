"""Conformance checks of evalrank's measures against external evaluation tools (peers)."""
