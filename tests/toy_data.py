"""Test data shared by several test modules (importable because pyproject's
pytest ``pythonpath`` lists ``tests``; not collected: no ``test_`` prefix)."""

from __future__ import annotations

import numpy as np

from evalrank.data.collection import Collection
from evalrank.metrics import ndcg

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


def linear_collection(n_queries: int, seed: int, *, w: np.ndarray, short_fraction: float = 0.0) -> Collection:
    """Grades cut from a known linear latent score ``X @ w`` plus query and document noise
    (cuts 0.4, 1.2, 1.9, 2.5); a ``short_fraction`` of the queries has 4-9 documents (fewer
    than k = 10), the others 12-30."""
    r = np.random.default_rng(seed)
    short = r.random(n_queries) < short_fraction
    sizes = np.where(short, r.integers(4, 10, n_queries), r.integers(12, 31, n_queries))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(offsets[-1])
    X = r.standard_normal((n, len(w)))
    q = np.repeat(np.arange(n_queries), sizes)
    lat = X @ w + 0.3 * r.standard_normal(n_queries)[q] + 0.4 * r.standard_normal(n)
    y = np.searchsorted([0.4, 1.2, 1.9, 2.5], lat).astype(np.int8)
    return Collection(features=X.astype(np.float32), labels=y, offsets=offsets,
                      qids=np.arange(n_queries, dtype=np.int64) + 1000 * seed)


def alter_short_queries(c: Collection, k: int = 10, seed: int = 99) -> Collection:
    """Permute the labels within every query shorter than ``k`` and replace those queries'
    features by fresh noise (sizes unchanged): what a learner under the LETOR 4.0 convention
    must not notice."""
    r = np.random.default_rng(seed)
    X, y = c.features.copy(), c.labels.copy()
    short = np.flatnonzero(c.query_sizes < k)
    assert short.size > 0
    for q in short:  # test helper: a loop is fine here
        a, b = c.offsets[q], c.offsets[q + 1]
        y[a:b] = r.permutation(y[a:b])
        X[a:b] = r.standard_normal((b - a, X.shape[1])) * 3.0
    return Collection(features=X, labels=y, offsets=c.offsets, qids=c.qids)


def mean_ndcg(scores, c: Collection, convention=None) -> float:
    """Mean NDCG@10 of ``scores`` on ``c`` over the queries it defines (``nanmean``)."""
    return float(np.nanmean(ndcg(scores, c.labels, c.offsets, 10, convention=convention)))


def write_campaign_files(path, seed: int, n_topics: int = 40):
    """A labelling campaign's files under ``path``: ``run`` and ``runb`` (two runs over the same
    3-9 documents per topic), ``probs`` (a calibrated 3-grade label model, repr floats),
    ``qrels`` (every document's grade drawn from it) and ``costs``. Returns ``path``."""
    rng = np.random.default_rng(seed)
    run, runb, probs, qrels, costs = [], [], [], [], []
    for q in range(n_topics):
        n = int(rng.integers(3, 10))
        p = rng.dirichlet(np.full(3, 0.7), size=n)
        y = (rng.random(n)[:, None] > np.cumsum(p, 1)).sum(1)
        for i in range(n):
            d = f"D{q}-{i}"
            run.append(f"t{q} Q0 {d} {i + 1} {rng.random():.6f} a")
            runb.append(f"t{q} Q0 {d} {i + 1} {rng.random():.6f} b")
            probs.append(f"t{q} {d} " + " ".join(repr(float(x)) for x in p[i]))
            qrels.append(f"t{q} 0 {d} {y[i]}")
        costs.append(f"t{q} {n / 5:.2f}")
    for name, lines in [("run", run), ("runb", runb), ("probs", probs), ("qrels", qrels), ("costs", costs)]:
        (path / name).write_text("\n".join(lines) + "\n")
    return path
