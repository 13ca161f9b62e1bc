"""The Sec. 6 protocol: splits, folds and Table 7."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalrank.metrics import risk
from evalrank.papers.dincer2016 import learning
from toy_data import toy_collection


def test_split_is_a_partition_with_the_papers_shares():
    sp = learning.split_queries(10_000, holdout=0.2, n_folds=5, seed=3)
    assert sp["baseline_train"].size == 1333 and sp["baseline_vali"].size == 667  # 2/3 and 1/3 of 2,000
    assert [p.size for p in sp["parts"]] == [1600] * 5  # 8,000 in five parts
    allq = np.concatenate([sp["baseline_train"], sp["baseline_vali"], *sp["parts"]])
    np.testing.assert_array_equal(np.sort(allq), np.arange(10_000))
    again = learning.split_queries(10_000, holdout=0.2, n_folds=5, seed=3)
    np.testing.assert_array_equal(again["parts"][2], sp["parts"][2])
    other = learning.split_queries(10_000, holdout=0.2, n_folds=5, seed=4)
    assert not np.array_equal(other["parts"][0], sp["parts"][0])
    with pytest.raises(ValueError, match="holdout"):
        learning.split_queries(100, holdout=1.5, seed=1)
    with pytest.raises(ValueError, match="n_queries"):
        learning.split_queries(10, seed=1)


def test_folds_rotate_60_20_20():
    pool = toy_collection(75, 0)  # 15 held out, 5 parts of 12
    sp = learning.split_queries(pool.n_queries, holdout=0.2, n_folds=5, seed=1)
    tests = []
    for f in range(1, 6):
        train, vali, test = learning.fold_collections(pool, sp, f)
        assert train.n_queries == 3 * test.n_queries == 3 * vali.n_queries
        ids = np.concatenate([train.qids, vali.qids, test.qids])
        assert len(set(ids)) == ids.size  # disjoint
        assert not set(ids) & set(pool.qids[sp["baseline_train"]])  # never the baselines' queries
        tests.append(test.qids)
    assert len(set(np.concatenate(tests))) == 60  # every non-holdout query is tested exactly once
    with pytest.raises(ValueError, match="fold"):
        learning.fold_collections(pool, sp, 6)


def test_learner_specs():
    specs = learning.learner_specs(["u-cro", "t*-faro"], [1, 5])
    assert [s["name"] for s in specs] == ["lambdamart", "u-cro_a1", "u-cro_a5", "tstar-faro_a1", "tstar-faro_a5"]
    with pytest.raises(ValueError, match="methods"):
        learning.learner_specs(["x-risk"], [1])


def test_table7_equals_profile_and_paired_t():
    rng = np.random.default_rng(0)
    n = 200
    pq = pd.DataFrame({k: np.clip(rng.normal(m, 0.2, n), 0, 1) for k, m in
                       [("lambdamart", 0.45), ("georisk_a1", 0.46), ("u-cro_a1", 0.44), ("bm25", 0.3),
                        ("b1", 0.4), ("b2", 0.42)]})
    t7 = learning.table7(pq, learners=["lambdamart", "georisk_a1", "u-cro_a1"], baselines=["b1", "b2"])
    assert len(t7) == 6 and set(t7["half"]) == {"vs BM25", "vs 2 learned baselines"}
    row = t7[(t7["half"] == "vs BM25") & (t7["learner"] == "georisk_a1")].iloc[0]
    prof = risk.profile(pq["georisk_a1"].to_numpy(), pq["bm25"].to_numpy())
    for k, v in prof.items():
        assert row[k] == pytest.approx(v)
    assert row["p_vs_reference"] == pytest.approx(stats.ttest_rel(pq["georisk_a1"], pq["lambdamart"]).pvalue)
    low = t7[(t7["half"] != "vs BM25") & (t7["learner"] == "u-cro_a1")].iloc[0]
    macro = risk.profile(pq["u-cro_a1"].to_numpy(), pq[["b1", "b2"]].to_numpy().T)
    assert low["win_loss"] == pytest.approx(macro["win_loss"])
    assert np.isnan(t7.loc[t7["learner"] == "lambdamart", "p_vs_reference"]).all()
    with pytest.raises(ValueError, match="lacks the systems"):
        learning.table7(pq, learners=["lambdamart"], baselines=["b3"])
