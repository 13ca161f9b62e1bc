"""Wang et al. (2013), Sec. 4 on our data: NDCG of the first n documents of
long lists against n, per ranker and measure (their Figs. 1-4).

Each query's documents are kept in a fixed "generation" order (the order of
the collection: the synthetic generator draws them i.i.d., so the first n
documents are a random subset of n); the list of size n is the first n
documents of every query, ranked by each ranker's scores. :func:`prefix_ndcg`
averages NDCG over the queries for every n of a grid -- all queries take part
at every n, so the grid stops at the shortest query.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalrank.metrics.ndcg import ndcg
from evalrank.papers.wang2013.experiments import theory_measure

__all__ = ["prefix_ndcg", "longest_queries"]


def longest_queries(offsets, n_queries: int) -> np.ndarray:
    """Indices of the ``n_queries`` longest queries (ties: the earlier one),
    in collection order."""
    sizes = np.diff(np.asarray(offsets))
    if not 1 <= n_queries <= sizes.size:
        raise ValueError(f"n_queries: expected 1..{sizes.size}, got {n_queries}")
    return np.sort(np.argsort(-sizes, kind="stable")[:n_queries])


def prefix_ndcg(scores: dict, labels, offsets, sizes, measures) -> pd.DataFrame:
    """Mean and standard error over queries of NDCG of each query's first n
    documents, for every n in ``sizes``, ranker (``scores``: name -> (n_docs,)
    scores) and measure name (:func:`~evalrank.papers.wang2013.experiments.theory_measure`).
    Raises ValueError naming ``sizes`` if an n exceeds the shortest query."""
    offsets = np.asarray(offsets, dtype=np.int64)
    labels = np.asarray(labels)
    q_sizes = np.diff(offsets)
    sizes = [int(n) for n in sizes]
    if not sizes or min(sizes) < 1 or max(sizes) > q_sizes.min():
        raise ValueError(f"sizes: every n must lie in 1..{int(q_sizes.min())} (the shortest query), got {sizes}")
    for name, s in scores.items():
        if np.asarray(s).shape != labels.shape:
            raise ValueError(f"scores[{name!r}]: expected shape {labels.shape}, got {np.asarray(s).shape}")
    measures = [theory_measure(m) for m in measures]
    Q = q_sizes.size
    rows = []
    for n in sizes:
        idx = (offsets[:-1, None] + np.arange(n)[None, :]).ravel()
        off = np.arange(0, Q * n + 1, n)
        for name, s in scores.items():
            s_n = np.asarray(s, dtype=np.float64)[idx]
            for m in measures:
                v = ndcg(s_n, labels[idx], off, m.k, discount=m.discount)
                rows.append({"ranker": name, "n": n, "measure": str(m), "queries": Q, "mean": float(v.mean()),
                             "se": float(v.std(ddof=1) / np.sqrt(Q)) if Q > 1 else np.nan})
    return pd.DataFrame(rows)
