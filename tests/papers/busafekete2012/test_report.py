"""The study's tables: the paper's standard error, orderings, the claims as
identities on synthetic runs, LETOR folds, and the figures."""

import numpy as np
import pandas as pd
import pytest

from evalrank.data.collection import Collection
from evalrank.papers.busafekete2012 import report
from evalrank.papers.busafekete2012.folds import letor_fold
from evalrank.papers.busafekete2012.runs import run_doc_ids as doc_ids_of


def test_curves_standard_error_in_quadrature_over_folds():
    pq = pd.DataFrame({"learner": "a", "train_convention": "ranklib", "eval_convention": "ranklib", "k": 10,
                       "fold": [1, 1, 1, 2, 2], "ndcg": [0.2, 0.4, 0.6, 0.5, 0.7]})
    c = report.curves(pq).iloc[0]
    assert c["mean"] == pytest.approx((0.4 + 0.6) / 2)
    assert c["se"] == pytest.approx(np.sqrt(0.04 / 3 + 0.02 / 2) / 2)
    assert (c["folds"], c["n_queries"]) == (2, 5)


def synthetic_runs(seed=0, n_queries=120):
    rng = np.random.default_rng(seed)
    runs = []
    for learner, quality in (("good", 2.0), ("bad", 0.3)):
        for fold in (1, 2):
            r = np.random.default_rng([seed, fold])
            sizes = r.integers(1, 25, n_queries)
            offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
            labels = r.integers(0, 3, offsets[-1]) * (np.repeat(r.random(n_queries) < 0.7, sizes))
            scores = quality * labels + rng.normal(size=labels.size)
            arrays = dict(scores=scores, labels=labels, offsets=offsets, qids=np.arange(n_queries) + 1000 * fold,
                          doc_ids=np.array([f"d{i}" for i in range(labels.size)]))
            for conv in ("ranklib", "letor4"):
                runs.append(({"learner": learner, "convention": conv, "fold": fold}, arrays))
    return runs


def test_claims_hold_as_identities_and_ordering_is_sane():
    pq = report.per_query(synthetic_runs(), max_k=10)
    claims = report.claims(pq, listwise=("good",))
    ident = claims[claims["claim"].str.startswith(("yahoo", "reference"))]
    np.testing.assert_allclose(ident["measured"], ident["predicted"], atol=1e-12)
    short = claims[claims["claim"].str.startswith("reference")]
    assert short.groupby("k")["measured"].mean().is_monotonic_increasing  # LETOR bites harder as k grows
    order = report.ordering(pq, train_convention="ranklib", reference="ranklib")
    first = order[order["rank"] == 1]
    assert (first["learner"] == "good").all() and (first["p_value"] < 1e-6).all()
    assert (order["kendall_tau_vs_reference"] == 1).all()


def test_ordering_detects_a_flip():
    pq = pd.DataFrame({"learner": ["a", "b"] * 4, "train_convention": "t", "k": 10, "fold": 1,
                       "qid": [1, 1, 2, 2] * 2, "eval_convention": ["x"] * 4 + ["y"] * 4,
                       "ndcg": [0.9, 0.1, 0.8, 0.2, 0.1, 0.9, 0.2, 0.8]})
    o = report.ordering(pq, train_convention="t", reference="x")
    assert o[o["eval_convention"] == "y"]["kendall_tau_vs_reference"].iloc[0] == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="no runs trained with"):
        report.ordering(pq, train_convention="zz", reference="x")


def tiny_partition(k, n_queries=6):
    sizes = np.full(n_queries, 3)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    return Collection(features=np.full((offsets[-1], 2), float(k), dtype=np.float32),
                      labels=np.zeros(offsets[-1], dtype=np.int8), offsets=offsets,
                      qids=np.arange(n_queries, dtype=np.int64) + 100 * k)


def test_letor_fold_rotation_and_subsampling(tmp_path):
    files = {}
    for k in range(1, 6):
        files[k] = tmp_path / f"S{k}.npz"
        tiny_partition(k).save(files[k])
    train, vali, test = letor_fold(files, 2)
    assert set(train.qids // 100) == {2, 3, 4} and set(vali.qids // 100) == {5} and set(test.qids // 100) == {1}
    sub1, _, _ = letor_fold(files, 2, max_train_queries=5, seed=3)
    sub2, _, _ = letor_fold(files, 2, max_train_queries=5, seed=3)
    assert sub1.n_queries == 5 and np.array_equal(sub1.qids, sub2.qids)
    assert np.all(np.diff(sub1.qids) > 0)  # original order kept
    with pytest.raises(ValueError, match="needs partitions"):
        letor_fold({1: files[1]}, 1)
    ids = doc_ids_of(test)
    assert ids[:3].tolist() == ["0", "1", "2"]


def test_figures_are_written(tmp_path):
    from evalrank.papers.busafekete2012.plots import plot_fig1, plot_fig2

    cur = report.curves(report.per_query(synthetic_runs(n_queries=30), max_k=5))
    plot_fig1(cur, ["good", "bad"], ["ranklib", "letor4"], ["ranklib", "letor4"], tmp_path / "f1.png")
    plot_fig2(cur, ["good", "bad"], "ranklib", ["ranklib", "yahoo"], tmp_path / "f2.png")
    assert (tmp_path / "f1.png").stat().st_size > 5000 and (tmp_path / "f2.png").stat().st_size > 5000
    with pytest.raises(ValueError, match="lacks column"):
        plot_fig1(cur.drop(columns="se"), ["good"], ["ranklib"], ["ranklib"], tmp_path / "x.png")
