"""Data layer: the flat Collection, the LETOR reader/writer, the synthetic
MSLR-like generator and the dataset registry (download, checksum, layout)."""

from evalrank.data.collection import Collection

__all__ = ["Collection"]
