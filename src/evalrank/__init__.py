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

from evalrank.data.collection import Collection  # noqa: E402

__all__ = ["Collection", "__version__"]
