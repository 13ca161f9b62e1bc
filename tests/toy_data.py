"""Test data shared by several test modules (importable because pyproject's
pytest ``pythonpath`` lists ``tests``; not collected: no ``test_`` prefix)."""

from __future__ import annotations

import numpy as np

from evalrank.data.collection import Collection

N_FEATURES = 8


def toy_collection(n_queries: int, seed: int, *, max_grade: int = 4, min_docs: int = 8,
                   max_docs: int = 40) -> Collection:
    """Small LETOR-like data from a latent model: a nonlinear score of the
    features plus a query offset and noise, cut into grades 0..4 with
    MSLR-like marginals; column 4 is a heavy-tailed non-negative signal.
    Query sizes are drawn from ``min_docs .. max_docs - 1``."""
    r = np.random.default_rng(seed)
    sizes = r.integers(min_docs, max_docs, n_queries)
    n = int(sizes.sum())
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    X = r.standard_normal((n, N_FEATURES))
    q = np.repeat(np.arange(n_queries), sizes)
    lat = (1.2 * X[:, 0] + 0.8 * X[:, 1] - 0.6 * X[:, 2] + 0.7 * np.sin(2 * X[:, 3])
           + 0.4 * r.standard_normal(n_queries)[q] + 0.5 * r.standard_normal(n))
    X[:, 4] = np.exp(1.5 * (0.6 * lat + 0.5 * r.standard_normal(n)))
    cuts = np.array([0.0, 1.2, 2.2, 3.0])
    y = np.minimum(np.searchsorted(cuts, lat), max_grade).astype(np.int8)
    return Collection(features=X.astype(np.float32), labels=y, offsets=offsets,
                      qids=np.arange(n_queries, dtype=np.int64) + 1000 * seed)


def toy_scores(collection: Collection, noise: dict, seed: int) -> dict:
    """Rankers of varying quality on a toy collection: ``name -> label + N(0,1)
    + noise[name] * N(0,1)`` (the shared N(0,1) makes them correlated)."""
    r = np.random.default_rng(seed)
    lat = collection.labels + r.standard_normal(collection.labels.size)
    return {name: lat + s * r.standard_normal(lat.size) for name, s in noise.items()}
