"""Coordinate Ascent (Metzler & Croft 2007) under an NDCG convention: it learns
a known linear direction, is deterministic, its batched NDCG kernel equals
``RankingModel.metric`` exactly, and -- the point of Busa-Fekete et al. 2012,
Sec. 4-5 -- under the LETOR 4.0 convention queries shorter than k cannot
influence the learned model at all, while under LETOR 3.0 they do."""

from __future__ import annotations

import functools
import pickle

import numpy as np
import pytest

from evalrank.metrics import ndcg
from evalrank.metrics.conventions import CONVENTIONS
from evalrank.models.coordinate_ascent import BatchMetric, CoordinateAscentModel, informative_queries
from evalrank.models.quality import random_baseline
import toy_data
from toy_data import alter_short_queries

N_FEATURES = 6
TRUE_W = np.array([1.0, 0.6, -0.5, 0.3, 0.0, 0.0])
FAST = dict(n_restarts=2, n_iterations=6)


linear_collection = functools.partial(toy_data.linear_collection, w=TRUE_W)


@pytest.fixture(scope="module")
def data():
    return linear_collection(60, 1), linear_collection(60, 2), linear_collection(80, 3)


@pytest.fixture(scope="module")
def fitted(data):
    train, vali, _ = data
    return CoordinateAscentModel(**FAST).fit(train, vali, grid={"step_base": [0.001, 0.01]}, seed=5)


# -- (a) it learns ---------------------------------------------------------------
def test_learns_the_linear_direction(fitted, data):
    _, vali, test = data
    model = fitted
    for c in (vali, test):
        got = np.mean(ndcg(model.score(c.features), c.labels, c.offsets, 10))
        base = random_baseline(c.labels.astype(np.int64), c.offsets, seed=0)["ndcg@10"]
        assert got > base + 0.2, (got, base)
    # score = sum_j coef_j (x_j - mu_j) / sd_j: raw-feature weights are coef / sd
    raw = model.coef_ / model.state_["transform"].scale_
    cos = raw @ TRUE_W / np.linalg.norm(raw) / np.linalg.norm(TRUE_W)
    assert cos > 0.9, cos
    assert np.isclose(np.abs(model.coef_).sum(), 1.0)
    assert len(model.restarts_) == 2 and model.best_restart_ in (0, 1)
    best = model.restarts_[model.best_restart_]
    assert best["vali"] == max(r["vali"] for r in model.restarts_)
    assert all(1 <= r["sweeps"] <= 6 for r in model.restarts_)
    assert [row["vali_ndcg10"] for row in model.tuning_] and model.best_vali_ndcg10_ > 0.6


def test_line_search_never_lowers_the_training_metric(data):
    train, vali, _ = data
    model = CoordinateAscentModel(n_restarts=1, n_iterations=3, convention="letor3").fit(train, vali, grid={}, seed=0)
    start = np.nanmean(model.metric(model.state_["transform"].transform(train.features) @ np.full(N_FEATURES, 1 / 6),
                                    train.labels, train.offsets))
    end = np.nanmean(model.metric(model.score(train.features), train.labels, train.offsets))
    assert end > start + 0.01
    assert model.restarts_[0]["train"] == pytest.approx(end, abs=1e-12)


# -- (b) determinism (n_jobs: test_models.test_n_jobs_bit_identical) -------------------
def test_another_seed_another_model(fitted, data):
    train, vali, test = data
    other = CoordinateAscentModel(**FAST).fit(train, vali, grid={"step_base": [0.001, 0.01]}, seed=6)
    assert not np.array_equal(fitted.coef_, other.coef_)


# -- the batched kernel is RankingModel.metric -------------------------------------------
@pytest.mark.parametrize("convention", [None] + sorted(c for c in CONVENTIONS if c != "trec"))
def test_batch_metric_equals_model_metric_exactly(convention):
    r = np.random.default_rng(4)
    sizes = r.integers(0, 25, 200)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(offsets[-1])
    labels = (r.integers(0, 5, n) * (r.random(n) < 0.5)).astype(np.int8)
    S = np.round(r.standard_normal((6, n)), 1)  # many ties
    S[2] = 0.0  # all tied
    S[3] *= 1e-9  # ties only in float32
    S[4] = -S[4]
    model = CoordinateAscentModel(convention=convention)
    for k in (1, 3, 10, 30):
        bm = BatchMetric(model, labels, offsets, k)
        # kernel for stable ties; sklearn (average) and gdeval/trec (doc ids) take the stacked fallback
        assert bm.fast == (convention not in ("sklearn", "gdeval", "trec"))
        ref = np.stack([model.metric(s, labels, offsets, k=k) for s in S])
        np.testing.assert_array_equal(bm(S), ref)


def test_batch_metric_falls_back_to_an_overridden_metric():
    class SkipEmpty(CoordinateAscentModel):
        def metric(self, scores, labels, offsets, k=10):
            return ndcg(scores, labels, offsets, k, convention=self.convention, empty="skip")

    c = linear_collection(30, 7)
    model = SkipEmpty()
    bm = BatchMetric(model, c.labels, c.offsets, 10)
    assert not bm.fast
    S = np.random.default_rng(0).standard_normal((3, c.n_docs))
    np.testing.assert_array_equal(bm(S), np.stack([model.metric(s, c.labels, c.offsets) for s in S]))
    v = np.array([[np.nan, 1.0, 0.5], [np.nan, np.nan, np.nan]])
    np.testing.assert_array_equal(BatchMetric.mean(v), [0.75, 0.0])


# -- (c) the LETOR 4.0 convention: short queries carry no weight --------------------------
def test_informative_queries():
    labels = np.array([0, 0, 0, 1, 2, 1, 1] + [0] * 5 + [1] + [2] * 5 + [0] * 5, dtype=np.int8)
    offsets = np.array([0, 3, 5, 7, 13, 23], dtype=np.int64)
    # empty | short, mixed | short, one grade | 6 docs mixed | 10 docs mixed
    np.testing.assert_array_equal(informative_queries(labels, offsets, 10, "letor3"), [0, 1, 0, 1, 1])
    np.testing.assert_array_equal(informative_queries(labels, offsets, 10, "letor4"), [0, 0, 0, 0, 1])
    np.testing.assert_array_equal(informative_queries(labels, offsets, 5, "letor4"), [0, 0, 0, 1, 1])


def test_letor4_ignores_short_training_queries_letor3_does_not():
    train = linear_collection(50, 11, short_fraction=0.5)
    vali, test = linear_collection(40, 12), linear_collection(40, 13)
    altered = alter_short_queries(train)
    assert not np.array_equal(train.labels, altered.labels)
    fits = {}
    for conv in ("letor4", "letor3"):
        for name, tr in (("orig", train), ("altered", altered)):
            fits[conv, name] = CoordinateAscentModel(convention=conv, **FAST).fit(tr, vali, grid={}, seed=3)
    a, b = fits["letor4", "orig"], fits["letor4", "altered"]
    assert np.array_equal(a.coef_, b.coef_)
    assert np.array_equal(a.score(test.features), b.score(test.features))
    assert a.restarts_ == b.restarts_
    c, d = fits["letor3", "orig"], fits["letor3", "altered"]
    assert not np.array_equal(c.coef_, d.coef_)
    assert not np.array_equal(c.score(test.features), d.score(test.features))


# -- (d) argument checks ----------------------------------------------------------------------
@pytest.mark.parametrize("bad", [dict(n_restarts=0), dict(n_iterations=0), dict(n_steps=-1), dict(step_base=0.0),
                                 dict(step_scale=1.0), dict(tolerance=-0.1), dict(metric_k=0), dict(n_restarts=2.5),
                                 dict(log1p="sqrt"), dict(calibration_alpha=-1.0), dict(step_base=float("nan"))])
def test_bad_params_raise(bad):
    (name,) = bad
    with pytest.raises(ValueError, match=name):
        CoordinateAscentModel(**bad)


def test_bad_grid_values_raise(data):
    train, vali, _ = data
    with pytest.raises(ValueError, match="n_steps"):
        CoordinateAscentModel().fit(train, vali, grid={"n_steps": [4, 0]}, seed=0)
    with pytest.raises(TypeError, match="unknown"):
        CoordinateAscentModel(n_rounds=3)


# -- (e) pickling (probabilities, save/load: test_models.test_probabilities_are_distributions, ----
# test_save_load_roundtrip)
def test_pickle_drops_the_metric_cache(fitted):
    assert pickle.loads(pickle.dumps(fitted))._cache == {}
