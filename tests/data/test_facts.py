"""Data facts for the data-tied config checks (evalrank.data.facts)."""

from __future__ import annotations

import numpy as np
import pytest

from evalrank.data.collection import Collection
from evalrank.data.facts import partition_facts, read_facts, synthetic_facts, write_facts
from evalrank.data.synthetic import generate


def test_synthetic_facts_are_exactly_the_generated_partitions():
    """The prediction at DAG start equals the facts of the data the generator writes."""
    cfg = {"seed": 11, "dataset": {"n_features": 40, "max_grade": 4,
                                   "synthetic": {"queries_per_partition": 30, "mean_docs": 25, "p_small": 0.2,
                                                 "max_docs": 90, "p_no_relevant": 0.03}}}
    predicted = synthetic_facts(cfg)
    parts = {k: generate(30, seed=11, partition=k, n_features=40, mean_docs=25, p_small=0.2, max_docs=90)
             for k in range(1, 6)}
    actual = partition_facts(parts)
    for k in range(1, 6):
        np.testing.assert_array_equal(predicted.query_sizes[k], actual.query_sizes[k])
    assert predicted.n_features == actual.n_features == 40
    # the generator's stream lengths (MSLR ids 11-15) are non-negative integers; its IDF (16) is not
    assert {11, 12, 13, 14, 15} <= actual.length_like and 16 not in actual.length_like
    assert predicted.pool_queries(2) == 120


def test_facts_see_unused_features_and_round_trip(tmp_path):
    X = np.zeros((6, 5), dtype=np.float32)
    X[:, 0] = [1, 2, 3, 0, 5, 6]
    X[:, 1] = [0.5, 1, 1, 1, 1, 1]
    X[2, 2] = -1.0
    c = Collection(features=X, labels=np.array([0, 1, 2, 0, 0, 1], dtype=np.int8),
                   offsets=np.array([0, 2, 6]), qids=np.array([1, 2]))
    facts = partition_facts({k: c for k in range(1, 6)})
    assert facts.used_features == 3 and facts.length_like == frozenset({1, 4, 5}) and facts.max_label == 2
    write_facts(facts, tmp_path / "f.json")
    back = read_facts(tmp_path / "f.json")
    assert back.used_features == 3 and back.length_like == facts.length_like
    np.testing.assert_array_equal(back.query_sizes[3], [2, 4])
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="bad.json is not a data-facts file"):
        read_facts(tmp_path / "bad.json")
