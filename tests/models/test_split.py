"""Training/validation halves of the training partition (Sawade Sec. 5.1)."""

from __future__ import annotations

import numpy as np
import pytest

from evalrank import seeds
from evalrank.data.collection import Collection
from evalrank.models.split import split_query_indices, split_training_part


def collection(n_queries=50, seed=0) -> Collection:
    r = np.random.default_rng(seed)
    sizes = r.integers(0, 30, n_queries)  # includes empty queries
    n = int(sizes.sum())
    return Collection(
        features=r.standard_normal((n, 3)).astype(np.float32),
        labels=r.integers(0, 5, n).astype(np.int8),
        offsets=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        qids=np.arange(n_queries, dtype=np.int64) * 7 + 3,
    )


def test_halves_are_disjoint_and_reach_the_target():
    c = collection()
    train, vali = split_training_part(c, train_pairs=200, seed=5)
    assert not set(train.qids) & set(vali.qids)
    assert set(train.qids) | set(vali.qids) <= set(c.qids)
    assert train.n_docs >= 200 and vali.n_docs >= 200
    # the documented procedure: one permutation, halves, shortest reaching prefix
    perm = seeds.rng(5, "split").permutation(c.n_queries)
    for part, half in zip((train, vali), (perm[:25], perm[25:])):
        cum = np.cumsum(c.query_sizes[half])
        take = int(np.argmax(cum >= 200)) + 1
        assert cum[take - 1] >= 200 and (take == 1 or cum[take - 2] < 200)
        np.testing.assert_array_equal(part.qids, c.qids[np.sort(half[:take])])
    # whole queries with their rows
    q = int(np.flatnonzero(c.qids == train.qids[0])[0])
    np.testing.assert_array_equal(train.labels[: train.query_sizes[0]], c.labels[c.offsets[q]:c.offsets[q + 1]])


def test_deterministic_nested_and_seeded():
    c = collection()
    a = split_query_indices(c.query_sizes, train_pairs=150, seed=1)
    b = split_query_indices(c.query_sizes, train_pairs=150, seed=1)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    big = split_query_indices(c.query_sizes, train_pairs=300, seed=1)
    assert set(a[0]) <= set(big[0]) and set(a[1]) <= set(big[1])
    other = split_query_indices(c.query_sizes, train_pairs=150, seed=2)
    assert not np.array_equal(a[0], other[0])


def test_none_and_oversized_targets_keep_whole_halves():
    c = collection(51)
    tr, va = split_query_indices(c.query_sizes, train_pairs=None, seed=0)
    assert len(tr) == 25 and len(va) == 26
    assert sorted(np.concatenate([tr, va]).tolist()) == list(range(51))
    tr2, va2 = split_query_indices(c.query_sizes, train_pairs=10**9, seed=0)
    assert np.array_equal(tr, tr2) and np.array_equal(va, va2)


def test_argument_checks():
    c = collection()
    with pytest.raises(TypeError, match="collection"):
        split_training_part(c.features, train_pairs=10, seed=0)
    with pytest.raises(ValueError, match="train_pairs"):
        split_training_part(c, train_pairs=0, seed=0)
    with pytest.raises(ValueError, match="train_pairs"):
        split_training_part(c, train_pairs=2.5, seed=0)
    with pytest.raises(ValueError, match="seed"):
        split_training_part(c, train_pairs=10, seed=-1)
    with pytest.raises(ValueError, match="at least 2 queries"):
        split_training_part(c.select_queries([0]), train_pairs=10, seed=0)
