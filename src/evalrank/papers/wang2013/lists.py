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

__all__ = ["prefix_ndcg", "longest_queries", "lists_files"]


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
    scores) and measure name (:func:`~evalrank.papers.wang2013.experiments.theory_measure`),
    and ``step_se``: the standard error of the move from the previous size, paired by query
    (NaN at the first size).
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
    before = {}   # (ranker, measure) -> per-query values at the previous size
    for n in sizes:
        idx = (offsets[:-1, None] + np.arange(n)[None, :]).ravel()
        off = np.arange(0, Q * n + 1, n)
        for name, s in scores.items():
            s_n = np.asarray(s, dtype=np.float64)[idx]
            for m in measures:
                v = ndcg(s_n, labels[idx], off, m.k, discount=m.discount)
                prev = before.get((name, str(m)))
                step = v - prev if prev is not None else None
                rows.append({"ranker": name, "n": n, "measure": str(m), "queries": Q, "mean": float(v.mean()),
                             "se": float(v.std(ddof=1) / np.sqrt(Q)) if Q > 1 else np.nan,
                             # the se of the move from the previous size: the same queries' lists, paired
                             "step_se": float(step.std(ddof=1) / np.sqrt(Q)) if step is not None and Q > 1
                             else np.nan})
                before[(name, str(m))] = v
    return pd.DataFrame(rows)


def _long_lists(source, *, queries, docs_per_query, n_features, seed, stream_partition, partition):
    """Sec. 4's long lists: the generator's (``source`` 'synthetic': ``queries`` lists of
    ``docs_per_query`` documents, in generation order) or the longest queries of a parsed
    partition ('dataset') -> (collection, description)."""
    from evalrank.data.collection import Collection
    from evalrank.data.synthetic import generate

    if source == "synthetic":
        c = generate(queries, seed=seed, partition=stream_partition, n_features=n_features,
                     mean_docs=docs_per_query, sigma_docs=0.0, p_small=0.0, max_docs=docs_per_query)
        return c, f"{queries} generated queries of {docs_per_query} documents"
    if not partition:
        raise ValueError("--partition: needed with --source dataset")
    full = Collection.load(partition)
    c = full.select_queries(longest_queries(full.offsets, queries))
    return c, f"the {queries} longest queries of {partition} ({int(np.diff(c.offsets).min())} documents or more)"


def lists_files(*, models: dict, source: str, partition, queries: int, docs_per_query: int, n_features: int,
                stream_partition: int, sizes, measures, seed: int, out_dir, log=None) -> None:
    """Sec. 4 on our data (Figs. 1-4): NDCG of the first n documents of long lists
    (:func:`prefix_ndcg`) for the trained rankers (``models``: name -> model file, loaded before
    the lists are built) and a random scorer (stream ``wang2013/lists/random``) -> ``lists.csv`` and
    ``lists_fig<i>.png`` in ``out_dir``. Sizes above the shortest list are dropped (logged)."""
    from pathlib import Path

    from evalrank import io, seeds
    from evalrank.models.zoo import load_model
    from evalrank.papers.wang2013 import plots

    say = log or (lambda message: None)
    rankers = [(name, load_model(path)) for name, path in models.items()]
    c, what = _long_lists(source, queries=queries, docs_per_query=docs_per_query, n_features=n_features, seed=seed,
                          stream_partition=stream_partition, partition=partition)
    scores = {name: model.score(c.features) for name, model in rankers}
    scores["random"] = seeds.rng(seed, "theory", "lists", "random").random(c.n_docs)
    shortest = int(np.diff(c.offsets).min())
    kept = [n for n in sizes if n <= shortest]
    if len(kept) < len(sizes):
        say(f"sizes above the shortest query ({shortest}) dropped: {[n for n in sizes if n > shortest]}")
    table = prefix_ndcg(scores, c.labels, c.offsets, kept, measures)
    out = Path(out_dir)
    io.write_table(table, out / "lists.csv", float_format="%.6f")
    for i, m in enumerate(table["measure"].unique(), start=1):
        plots.plot_lists(table[table.measure == m], out / f"lists_fig{i}.png", inset=(i == 1),
                         title=f"Fig. {i} analogue: {m}, the first n documents of {c.n_queries} queries")
    say(f"{what}: {len(kept)} sizes x {len(scores)} rankers x {len(measures)} measures")
