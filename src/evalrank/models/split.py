"""Training / validation halves of the training partition (Sawade et al. 2012, Sec. 5).

Sawade Sec. 5.1: "Half of the available training fold is used for model
training, the other half is used as a validation set to tune
hyperparameters". Sec. 5.2 varies the "training-set size (number of
query-document pairs)", so the size of each half is a config value
(``train_pairs``) reached by subsampling whole queries.
"""

from __future__ import annotations

import numpy as np

from evalrank import seeds
from evalrank.data.collection import Collection

__all__ = ["split_training_part", "split_query_indices"]


def split_query_indices(query_sizes, *, train_pairs, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Query positions of the training and validation halves (sorted).

    1. One random permutation of all queries (stream ``seeds.rng(seed, "split")``);
       the first ``n_queries // 2`` positions of it form the training half, the
       rest the validation half.
    2. Within each half, queries are taken in that (random) permutation order
       until the number of query-document pairs reaches ``train_pairs``: the
       query that crosses the target is included, so each half holds at least
       ``train_pairs`` pairs, or the whole half if it has fewer.

    Because the permutation does not depend on ``train_pairs``, a larger
    ``train_pairs`` gives a superset of queries (nested training sets, as in
    Sawade Sec. 5.2's 100,000 vs 120,000-200,000 pairs comparison).
    ``train_pairs=None`` keeps both halves whole.
    """
    sizes = np.asarray(query_sizes)
    if sizes.ndim != 1 or not np.issubdtype(sizes.dtype, np.integer):
        raise ValueError("query_sizes must be a 1-d integer array")
    n = sizes.size
    if n < 2:
        raise ValueError(f"the training partition needs at least 2 queries to be split, got {n}")
    if train_pairs is not None:
        if isinstance(train_pairs, bool) or not isinstance(train_pairs, (int, np.integer)) or train_pairs < 1:
            raise ValueError(f"train_pairs must be a positive integer or None, got {train_pairs!r}")
    perm = seeds.rng(seed, "split").permutation(n)
    halves = (perm[: n // 2], perm[n // 2 :])
    out = []
    for half in halves:
        if train_pairs is not None:
            cum = np.cumsum(sizes[half])
            # first position whose cumulative count reaches the target, inclusive
            take = int(np.searchsorted(cum, train_pairs, side="left")) + 1
            half = half[:take]
        out.append(np.sort(half))
    return out[0], out[1]


def split_training_part(collection: Collection, *, train_pairs, seed: int) -> tuple[Collection, Collection]:
    """Split a training partition into (train, vali) collections (Sawade Sec. 5.1).

    See :func:`split_query_indices` for the procedure; queries keep their
    original order within each returned collection, and the two are disjoint.

    Parameters
    ----------
    collection : the training partition (one MSLR fold).
    train_pairs : target number of query-document pairs per half (int), or
        ``None`` for the whole halves.
    seed : config seed (stream ``"split"``).
    """
    if not isinstance(collection, Collection):
        raise TypeError(f"collection must be an evalrank Collection, got {type(collection).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    tr, va = split_query_indices(collection.query_sizes, train_pairs=train_pairs, seed=seed)
    return collection.select_queries(tr), collection.select_queries(va)
