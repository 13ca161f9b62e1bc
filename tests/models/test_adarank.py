"""AdaRank (Xu & Li 2007) under an NDCG convention: Algorithm 1 step by step
against a brute-force reference, it learns, is deterministic, and -- Busa-
Fekete et al. 2012, Sec. 4 item 1 -- under the LETOR 4.0 convention a query
shorter than k has E = 0 for every weak ranker and cannot influence the
model, while under LETOR 3.0 it does."""

from __future__ import annotations

import functools
import pickle

import numpy as np
import pytest

from evalrank.data.collection import Collection
from evalrank.metrics import ndcg
from evalrank.models.adarank import AdaRankModel
from evalrank.models.quality import random_baseline
import toy_data
from toy_data import alter_short_queries

N_FEATURES = 6
TRUE_W = np.array([1.0, 0.6, 0.4, 0.3, 0.0, -0.3])


linear_collection = functools.partial(toy_data.linear_collection, w=TRUE_W)


@pytest.fixture(scope="module")
def data():
    return linear_collection(60, 1), linear_collection(60, 2), linear_collection(80, 3)


@pytest.fixture(scope="module")
def fitted(data):
    train, vali, _ = data
    return AdaRankModel().fit(train, vali, grid={"log1p": ["auto", "none"]}, seed=5)


def reference_adarank(model: AdaRankModel, train: Collection, rounds: int):
    """Xu & Li (2007) Algorithm 1 written out with one ``model.metric`` call
    per feature, for ``rounds`` rounds (no stopping rules; the previous
    round's feature is not eligible). Returns the features, alphas, the
    weak-ranker metric matrix and the training mean NDCG after each round."""
    Z = model.state_["transform"].transform(train.features)
    E = np.stack([model.metric(Z[:, j], train.labels, train.offsets) for j in range(Z.shape[1])])
    P = np.full(train.n_queries, 1.0 / train.n_queries)
    f = np.zeros(train.n_docs)
    feats, alphas, curve, last = [], [], [], -1
    for _ in range(rounds):
        score = (E * P).sum(axis=1)
        if last >= 0:
            score[last] = -np.inf
        h = int(np.argmax(score))
        alpha = 0.5 * np.log((P * (1 + E[h])).sum() / (P * (1 - E[h])).sum())
        f = f + alpha * Z[:, h]
        e = model.metric(f, train.labels, train.offsets)
        P = np.exp(-e) / np.exp(-e).sum()
        feats.append(h)
        alphas.append(alpha)
        curve.append(np.mean(e))
        last = h
    return np.array(feats), np.array(alphas), E, np.array(curve)


# -- Algorithm 1 ----------------------------------------------------------------------------
def test_matches_reference_algorithm(data):
    train, vali, _ = data
    model = AdaRankModel(max_rounds=8, patience=8, tolerance=1.0, convention="letor3")
    model.fit(train, vali, grid={}, seed=0)
    assert model.rounds_ == 8 and model.stop_reason_ == "max_rounds"
    feats, alphas, E, curve = reference_adarank(model, train, 8)
    np.testing.assert_allclose(model.train_curve_, curve, rtol=1e-12)
    np.testing.assert_array_equal(model.weak_metrics(train), E)
    kept = model.best_round_
    assert 1 <= kept <= 8 and model.vali_curve_[kept - 1] == model.vali_curve_.max()
    np.testing.assert_array_equal(model.features_, feats[:kept])
    np.testing.assert_allclose(model.alphas_, alphas[:kept], rtol=1e-12)
    assert np.all(model.alphas_ > 0)
    assert np.all(model.features_[1:] != model.features_[:-1])  # never the same feature twice in a row
    # the kept model's training metric is the recorded curve value
    got = np.nanmean(model.metric(model.score(train.features), train.labels, train.offsets))
    assert got == pytest.approx(model.train_curve_[kept - 1], abs=1e-12)
    coef = np.zeros(N_FEATURES)
    np.add.at(coef, feats[:kept], alphas[:kept])
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-12)


def test_previous_feature_is_not_eligible(data):
    # one dominant feature: plain AdaRank would pick it in every round
    w = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    train, vali = linear_collection(40, 31, w=w), linear_collection(40, 32, w=w)
    model = AdaRankModel(max_rounds=6, patience=6, tolerance=1.0).fit(train, vali, grid={}, seed=0)
    assert model.rounds_ == 6
    feats, alphas, _, curve = reference_adarank(model, train, 6)
    np.testing.assert_allclose(model.train_curve_, curve, rtol=1e-12)  # every trained round
    assert feats[0] == 0 and np.all(feats[1:] != feats[:-1])
    np.testing.assert_array_equal(model.features_, feats[:model.best_round_])
    np.testing.assert_allclose(model.alphas_, alphas[:model.best_round_], rtol=1e-12)


def test_features_that_change_nothing_are_blocked():
    # column 1 = 2 x column 0 + 1: the same order, so a round on it changes no
    # query's metric (P stays the same); plain alternation 0, 1, 0, 1, ...
    # would never reach the other features
    train, vali = linear_collection(40, 41), linear_collection(40, 42)
    for c in (train, vali):
        c.features[:, 1] = 2 * c.features[:, 0] + 1
    model = AdaRankModel(max_rounds=6, patience=6, tolerance=1.0).fit(train, vali, grid={}, seed=0)
    assert model.rounds_ == 6
    trained = model.trained_features_.tolist()
    # round 2 (column 1) and round 3 (column 0 again, eligible once column 1
    # was last) leave the metrics unchanged; then both are blocked
    assert trained[:3] == [0, 1, 0] and trained[3] not in (0, 1), trained
    assert model.train_curve_[0] == model.train_curve_[1] == model.train_curve_[2] != model.train_curve_[3]
    np.testing.assert_array_equal(model.features_, trained[:model.best_round_])


# -- (a) it learns ---------------------------------------------------------------------------
def test_learns(fitted, data):
    _, vali, test = data
    for c in (vali, test):
        got = np.mean(ndcg(fitted.score(c.features), c.labels, c.offsets, 10))
        base = random_baseline(c.labels.astype(np.int64), c.offsets, seed=0)["ndcg@10"]
        assert got > base + 0.15, (got, base)
    assert fitted.features_[0] == 0  # the strongest single feature starts
    assert len(fitted.tuning_) == 2 and {"rounds", "best_round"} <= set(fitted.tuning_[0])
    assert fitted.best_round_ == len(fitted.features_) == len(fitted.alphas_) >= 1
    assert fitted.rounds_ >= fitted.best_round_


def test_early_stopping_by_patience(data):
    train, vali, _ = data
    model = AdaRankModel(max_rounds=60, patience=3, tolerance=1.0).fit(train, vali, grid={}, seed=0)
    assert model.stop_reason_ in ("patience", "alpha")
    if model.stop_reason_ == "patience":
        assert model.rounds_ == model.best_round_ + 3
        assert np.all(model.vali_curve_[model.best_round_:] <= model.vali_curve_[model.best_round_ - 1])


# -- (b) determinism (n_jobs: test_models.test_n_jobs_bit_identical) ------------------------------
def test_the_seed_does_not_matter(fitted, data):
    train, vali, test = data
    # AdaRank draws nothing at random: another seed gives the same model
    other = AdaRankModel().fit(train, vali, grid={"log1p": ["auto", "none"]}, seed=6)
    assert np.array_equal(fitted.score(test.features), other.score(test.features))


# -- (c) the LETOR 4.0 convention: short queries carry no weight ------------------------------------
def test_letor4_short_queries_have_zero_metric_and_no_influence():
    train = linear_collection(50, 11, short_fraction=0.5)
    vali, test = linear_collection(40, 12), linear_collection(40, 13)
    short = train.query_sizes < 10
    altered = alter_short_queries(train)
    params = dict(max_rounds=15, patience=15, tolerance=1.0)
    fits = {(conv, name): AdaRankModel(convention=conv, **params).fit(tr, vali, grid={}, seed=0)
            for conv in ("letor4", "letor3") for name, tr in (("orig", train), ("altered", altered))}

    a = fits["letor4", "orig"]
    E4 = a.weak_metrics(train)
    assert np.all(E4[:, short] == 0.0)  # E(h, q) = 0 for every weak ranker on a short query
    assert np.any(E4[:, ~short] > 0)
    E3 = fits["letor3", "orig"].weak_metrics(train)
    assert np.any(E3[:, short] > 0)
    # all short queries keep one common weight (exp(-0) / sum) whatever their content
    w = a.query_weights_[short]
    assert np.all(w == w[0]) and w[0] == a.query_weights_.max()  # exp(-0): the largest weight

    b = fits["letor4", "altered"]
    np.testing.assert_array_equal(a.features_, b.features_)
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    np.testing.assert_array_equal(a.score(test.features), b.score(test.features))
    np.testing.assert_array_equal(a.vali_curve_, b.vali_curve_)

    c, d = fits["letor3", "orig"], fits["letor3", "altered"]
    assert not np.array_equal(c.alphas_, d.alphas_)
    assert not np.array_equal(c.score(test.features), d.score(test.features))


def test_skipped_queries_get_zero_weight():
    class SkipEmpty(AdaRankModel):
        def metric(self, scores, labels, offsets, k=10):
            return ndcg(scores, labels, offsets, k, convention=self.convention, empty="skip")

    train = linear_collection(40, 21)
    y = train.labels.copy()
    y[train.offsets[0]:train.offsets[3]] = 0  # three queries without a relevant document
    train = Collection(features=train.features, labels=y, offsets=train.offsets, qids=train.qids)
    model = SkipEmpty(max_rounds=5).fit(train, linear_collection(30, 22), grid={}, seed=0)
    assert np.all(model.query_weights_[:3] == 0) and np.all(model.query_weights_[3:] > 0)
    assert model.query_weights_.sum() == pytest.approx(1.0)
    assert model.best_round_ >= 1


# -- (d) argument checks ------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [dict(max_rounds=-1), dict(max_rounds=0), dict(patience=0), dict(tolerance=-1.0),
                                 dict(metric_k=0), dict(log1p="yes"), dict(max_rounds=True),
                                 dict(calibration_alpha=float("inf"))])
def test_bad_params_raise(bad):
    (name,) = bad
    with pytest.raises(ValueError, match=name):
        AdaRankModel(**bad)


def test_bad_grid_values_raise(data):
    train, vali, _ = data
    with pytest.raises(ValueError, match="max_rounds"):
        AdaRankModel().fit(train, vali, grid={"max_rounds": [10, -1]}, seed=0)


# -- (e) pickling (probabilities, save/load: test_models.test_probabilities_are_distributions, -------
# test_save_load_roundtrip)
def test_pickle_drops_the_metric_cache(fitted):
    assert pickle.loads(pickle.dumps(fitted))._cache == {}
