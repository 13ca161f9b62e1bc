"""evalrank: measure ranking functions honestly and cheaply.

The package is importable without Snakemake; heavy learners (LightGBM, mord,
scikit-learn) are imported lazily by :mod:`evalrank.models`.

Sub-packages
------------
data      LETOR reader/writer, synthetic MSLR-like generator, dataset registry
metrics   one implementation of DCG, ERR and NDCG on flat arrays + offsets
models    the model zoo and graded-relevance probabilities
plots     one function per figure
"""

__version__ = "0.1.0"

__all__ = ["Collection", "__version__"]


def __getattr__(name):
    # Collection on first use: ``import evalrank`` (and ``evalrank --help``) stays free of numpy
    if name == "Collection":
        from evalrank.data.collection import Collection

        return Collection
    raise AttributeError(f"module 'evalrank' has no attribute {name!r}")
