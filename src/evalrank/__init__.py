"""evalrank: measure ranking functions honestly and cheaply.

The package is importable without Snakemake; heavy learners (LightGBM, mord,
scikit-learn) are imported lazily by :mod:`evalrank.models`.

For users: :func:`evalrank.evaluate` (trec_eval's measures and evalrank's on qrels + runs,
a DataFrame ``run, qid, measure, value``) and :func:`evalrank.compare` (runs against a
baseline: significance tests and risk measures in one table).

Sub-packages
------------
evaluation  evaluate / compare: TREC files, dicts, DataFrames; trec_eval's evaluation loop
data        LETOR reader/writer, synthetic MSLR-like generator, dataset registry
metrics     one implementation of DCG, ERR and NDCG on flat arrays + offsets
models      the model zoo and graded-relevance probabilities
active      active evaluation (Sawade et al. 2012): the labelling tool, ``evalrank active``
papers      the five reproductions, one sub-package each, with their figures (``papers.<paper>.plots``;
            the shared figure style and the data and model figures in ``papers.common.plots``)
cli         the command line, ``evalrank`` / ``python -m evalrank``
"""

__version__ = "0.1.0"

__all__ = ["Collection", "compare", "evaluate", "__version__"]


def __getattr__(name):
    # Collection on first use: ``import evalrank`` (and ``evalrank --help``) stays free of numpy
    if name == "Collection":
        from evalrank.data.collection import Collection

        return Collection
    if name in ("evaluate", "compare"):
        from evalrank.evaluation import compare, evaluate

        return {"evaluate": evaluate.evaluate, "compare": compare.compare}[name]
    raise AttributeError(f"module 'evalrank' has no attribute {name!r}")
