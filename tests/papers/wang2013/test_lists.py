"""Sec. 4's prefix NDCG against a per-query loop; the longest-query selection."""

import numpy as np
import pytest

from evalrank.metrics import ndcg
from evalrank.papers.wang2013.lists import longest_queries, prefix_ndcg


def test_prefix_ndcg_against_a_per_query_loop():
    rng = np.random.default_rng(2)
    sizes = np.array([60, 45, 80, 50])
    offsets = np.r_[0, np.cumsum(sizes)]
    labels = rng.integers(0, 5, offsets[-1])
    scores = {"a": rng.normal(size=offsets[-1]) + labels, "b": rng.normal(size=offsets[-1])}
    t = prefix_ndcg(scores, labels, offsets, [5, 45], ["log2", "poly:2", "log2@frac:0.2"]).set_index(
        ["ranker", "n", "measure"])
    for name, s in scores.items():
        for n in (5, 45):
            for disc, k, m in (("log2", None, "log2"), ("poly:2", None, "poly:2"), ("log2", "frac:0.2", "log2@frac:0.2")):
                per_q = [ndcg(s[o:o + n], labels[o:o + n], np.array([0, n]), k, discount=disc)[0] for o in offsets[:-1]]
                assert t.loc[(name, n, m), "mean"] == pytest.approx(np.mean(per_q), rel=1e-12)
                assert t.loc[(name, n, m), "se"] == pytest.approx(np.std(per_q, ddof=1) / 2, rel=1e-9)
                # the move from the previous size, paired by query
                if n == 5:
                    assert np.isnan(t.loc[(name, n, m), "step_se"])
                else:
                    first = [ndcg(s[o:o + 5], labels[o:o + 5], np.array([0, 5]), k, discount=disc)[0]
                             for o in offsets[:-1]]
                    step = np.subtract(per_q, first)
                    assert t.loc[(name, n, m), "step_se"] == pytest.approx(np.std(step, ddof=1) / 2, rel=1e-9)


def test_sizes_beyond_the_shortest_query_and_bad_scores():
    offsets = np.array([0, 10, 30])
    labels = np.zeros(30, int)
    with pytest.raises(ValueError, match="sizes"):
        prefix_ndcg({"a": np.zeros(30)}, labels, offsets, [5, 11], ["log2"])
    with pytest.raises(ValueError, match="scores"):
        prefix_ndcg({"a": np.zeros(29)}, labels, offsets, [5], ["log2"])


def test_longest_queries():
    assert longest_queries(np.r_[0, np.cumsum([5, 9, 9, 2, 7])], 3).tolist() == [1, 2, 4]
    with pytest.raises(ValueError, match="n_queries"):
        longest_queries(np.array([0, 3]), 2)
