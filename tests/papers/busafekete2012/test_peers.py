"""Conformance: every evalrank NDCG preset against the real tool it names,
on randomized inputs with empty queries, lists shorter than k, exact ties and
near-ties below float32 resolution; agreement to 1e-9 per query.

The adapters (:mod:`evalrank.papers.busafekete2012.peers`) call each tool on the same
flat arrays; where a tool gives no value for a query (0 rows; scikit-learn:
1 document) the adapter returns NaN and the query is not compared.
"""

import numpy as np
import pytest

from evalrank.papers.busafekete2012 import peers
from evalrank.metrics import ndcg

KS = [1, 3, 5, 10, 30]
SEEDS = [0, 1, 2]


def random_case(seed, n_queries=80, max_docs=25, tie_kind="mixed", max_grade=2):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, max_docs + 1, size=n_queries)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(offsets[-1])
    labels = rng.integers(0, max_grade + 1, size=n)
    labels[rng.random(n) < 0.5] = 0
    empty_q = rng.random(n_queries) < 0.25  # a quarter of the queries without a relevant document
    labels[np.repeat(empty_q, sizes)] = 0
    if tie_kind == "none":
        scores = rng.permutation(n).astype(np.float64) / max(n, 1) + 0.5
    else:
        base = rng.integers(0, 5, size=n).astype(np.float64)  # exact ties
        near = rng.random(n) < 0.3
        base[near] += rng.choice([1e-9, 2e-8, 3e-7, 1e-5], size=near.sum())  # some tie only in float32
        scores = base
    doc_ids = np.array([f"doc{rng.integers(0, 10**5)}-{i}" for i in range(n)])
    return scores, labels, offsets, doc_ids


def compare(ours, theirs):
    ok = ~np.isnan(theirs)
    assert ok.sum() > 10
    np.testing.assert_allclose(ours[ok], theirs[ok], rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", KS)
def test_pytrec_eval_is_trec(seed, k):
    pytest.importorskip("pytrec_eval")
    s, y, off, ids = random_case(seed)
    compare(ndcg(s, y, off, k, convention="trec", doc_ids=ids), peers.pytrec_eval_ndcg(s, y, off, k, ids))
    # exponential gains by relabelling the qrels 0, 1, 2 -> 0, 1, 3
    compare(ndcg(s, y, off, k, convention="trec", gain="exp", doc_ids=ids),
            peers.pytrec_eval_ndcg(s, y, off, k, ids, gain="exp"))


def test_trec_needs_float32_and_descending_docids():
    """The two subtle rules are load-bearing: without them the preset fails."""
    pytest.importorskip("pytrec_eval")
    s, y, off, ids = random_case(7)
    theirs = peers.pytrec_eval_ndcg(s, y, off, 5, ids)
    ok = ~np.isnan(theirs)
    for wrong in (dict(precision="float64"), dict(docid_order="ascending"), dict(ties="stable")):
        ours = ndcg(s, y, off, 5, convention="trec", doc_ids=ids, **wrong)
        assert np.abs(ours[ok] - theirs[ok]).max() > 1e-3, wrong


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [1, 5, 30])
def test_ir_measures_is_trec(seed, k):
    pytest.importorskip("ir_measures")
    s, y, off, ids = random_case(seed)
    compare(ndcg(s, y, off, k, convention="trec", doc_ids=ids), peers.ir_measures_ndcg(s, y, off, k, ids))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", KS)
def test_ranx_is_trec_at_float64(seed, k):
    """ranx ndcg / ndcg_burges = trec in float64 (linear / exp gain). Its tie
    order is numba's unstable argsort: input order up to 15 documents, so tied
    lists are compared there, tie-free lists everywhere."""
    pytest.importorskip("ranx")
    for tie_kind, max_docs, ties in (("none", 40, "stable"), ("mixed", 15, "stable")):
        s, y, off, ids = random_case(seed, tie_kind=tie_kind, max_docs=max_docs)
        compare(ndcg(s, y, off, k, convention="trec", precision="float64", ties=ties),
                peers.ranx_ndcg(s, y, off, k, ids, variant="ndcg"))
        compare(ndcg(s, y, off, k, convention="trec", precision="float64", ties=ties, gain="exp"),
                peers.ranx_ndcg(s, y, off, k, ids, variant="ndcg_burges"))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", KS)
def test_sklearn_ndcg_score(seed, k):
    pytest.importorskip("sklearn")
    s, y, off, ids = random_case(seed)
    compare(ndcg(s, y, off, k, convention="sklearn"), peers.sklearn_ndcg(s, y, off, k, ids, ignore_ties=False))
    s, y, off, ids = random_case(seed, tie_kind="none")
    compare(ndcg(s, y, off, k, convention="sklearn", ties="stable"),
            peers.sklearn_ndcg(s, y, off, k, ids, ignore_ties=True))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", KS)
def test_lightgbm_ndcg_metric(seed, k):
    pytest.importorskip("lightgbm")
    s, y, off, ids = random_case(seed)
    compare(ndcg(s, y, off, k, convention="lightgbm"), peers.lightgbm_ndcg(s, y, off, k, ids))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", KS)
def test_xgboost_ndcg_metrics(seed, k):
    pytest.importorskip("xgboost")
    s, y, off, ids = random_case(seed)
    compare(ndcg(s, y, off, k, convention="xgboost"), peers.xgboost_ndcg(s, y, off, k, ids, empty_one=True))
    compare(ndcg(s, y, off, k, convention="xgboost", empty=0.0), peers.xgboost_ndcg(s, y, off, k, ids, empty_one=False))


def test_presets_really_differ_on_these_inputs():
    """Guards the tests above against inputs too easy to tell conventions apart."""
    s, y, off, ids = random_case(0)
    vals = {c: ndcg(s, y, off, 10, convention=c, doc_ids=ids) for c in ("trec", "sklearn", "lightgbm", "xgboost")}
    assert not np.allclose(vals["trec"], vals["sklearn"])
    assert not np.allclose(vals["lightgbm"], vals["xgboost"])  # float32 ties
    assert not np.allclose(vals["lightgbm"], ndcg(s, y, off, 10, convention="letor3"))  # empty = 1 vs 0
