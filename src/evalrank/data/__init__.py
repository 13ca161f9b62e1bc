"""Data layer: the flat Collection, the LETOR reader/writer, the synthetic
MSLR-like generator and the dataset registry (download, checksum, layout)."""

__all__ = ["Collection"]


def __getattr__(name):
    # Collection on first use: the TREC reader (evalrank evaluate) needs none of its imports
    if name == "Collection":
        from evalrank.data.collection import Collection

        return Collection
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
