"""Automatic Feature Selection (Metzler 2007), Dinçer et al.'s (2016, Sec.
6.1) linear baseline learner: it selects the features that carry the
signal, its greedy path only climbs, one greedy step is exactly a brute-force
search with ``RankingModel.metric``, and it is deterministic."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from evalrank.data.collection import Collection
from evalrank.metrics import ndcg
from evalrank.models.afs import AFSModel, best_addition
from evalrank.models.coordinate_ascent import BatchMetric
from evalrank.models.quality import random_baseline
from toy_data import alter_short_queries, toy_collection

N_FEATURES = 6
SIGNAL = (1, 3)  # labels are a linear function of these two features


def two_feature_collection(n_queries: int, seed: int, *, short_fraction: float = 0.0) -> Collection:
    """Grades cut from ``x_1 + 0.6 x_3`` plus query and document noise; the
    other four features are noise. A ``short_fraction`` of the queries has
    4-9 documents (fewer than k = 10), the others 12-30."""
    r = np.random.default_rng(seed)
    short = r.random(n_queries) < short_fraction
    sizes = np.where(short, r.integers(4, 10, n_queries), r.integers(12, 31, n_queries))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(offsets[-1])
    X = r.standard_normal((n, N_FEATURES))
    q = np.repeat(np.arange(n_queries), sizes)
    lat = X[:, 1] + 0.6 * X[:, 3] + 0.3 * r.standard_normal(n_queries)[q] + 0.3 * r.standard_normal(n)
    y = np.searchsorted([0.3, 1.0, 1.7, 2.3], lat).astype(np.int8)
    return Collection(features=X.astype(np.float32), labels=y, offsets=offsets,
                      qids=np.arange(n_queries, dtype=np.int64) + 1000 * seed)


@pytest.fixture(scope="module")
def data():
    return two_feature_collection(60, 1), two_feature_collection(60, 2), two_feature_collection(60, 3)


@pytest.fixture(scope="module")
def fitted(data):
    train, vali, _ = data
    return AFSModel(max_features=4).fit(train, vali, grid={"log1p": ["auto", "none"]}, seed=0)


def mean_metric(model, scores, c) -> float:
    return float(BatchMetric.mean(model.metric(scores, c.labels, c.offsets))[0])


# -- it selects the signal ----------------------------------------------------------
def test_selects_the_signal_features_first(fitted, data):
    model = fitted
    assert [row["feature"] for row in model.path_[:2]] == list(SIGNAL)
    assert model.path_[0]["weight"] == 1.0
    lam = model.path_[1]["weight"]
    assert 0.2 < lam < 1.5, lam  # true ratio 0.6 (on z-scored features, same scale here)
    assert set(SIGNAL) <= set(model.selected_.tolist())
    assert model.n_selected_ == model.selected_.size == model.weights_.size
    coef = model.coef_
    assert coef.shape == (N_FEATURES,) and np.count_nonzero(coef) == model.n_selected_
    test = data[2]
    got = float(np.mean(ndcg(model.score(test.features), test.labels, test.offsets, 10)))
    base = random_baseline(test.labels, test.offsets, seed=0)["ndcg@10"]
    assert got > base + 0.2, (got, base)


def test_starts_from_a_strongest_feature_of_the_toy_collection(toy_split):
    # (that it beats a random ranking there: test_models.test_beats_random_ranking)
    train, vali, _ = toy_split
    model = AFSModel().fit(train, vali, grid={}, seed=0)
    assert model.path_[0]["feature"] in (0, 4)  # the strongest single signals


def test_path_climbs_and_the_kept_prefix_is_the_best_on_validation(fitted, data):
    train, vali, _ = data
    model = fitted
    train_values = [row["train"] for row in model.path_]
    assert all(b > a for a, b in zip(train_values, train_values[1:]))  # non-decreasing, in fact strictly
    assert all(b - a >= model.best_params_["tolerance"] for a, b in zip(train_values, train_values[1:]))
    m = model.n_selected_
    vali_values = [row["vali"] for row in model.path_]
    assert m == 1 + int(np.argmax(vali_values))
    # the recorded values are the model's own, bit for bit
    assert model.path_[m - 1]["train"] == mean_metric(model, model.score(train.features), train)
    assert model.path_[m - 1]["vali"] == mean_metric(model, model.score(vali.features), vali)
    assert model.best_vali_ndcg10_ == model.path_[m - 1]["vali"]
    assert [row["n_selected"] for row in model.tuning_] and all("train_ndcg" in row for row in model.tuning_)


def test_stops_at_max_features_and_on_tolerance(data):
    train, vali, _ = data
    one = AFSModel(max_features=1).fit(train, vali, grid={}, seed=0)
    assert len(one.path_) == 1 and one.n_selected_ == 1
    strict = AFSModel(max_features=6, tolerance=0.5).fit(train, vali, grid={}, seed=0)
    assert len(strict.path_) == 1  # no addition gains 0.5


# -- one greedy step is the brute-force search ---------------------------------------
def brute_force_step(model, Z, c, selected, weights, grid):
    """Pure NumPy, one ``RankingModel.metric`` call per candidate: the
    ``(feature, lambda)`` maximizing the training mean metric of
    ``s + lambda x_f`` (ties: first feature, then first lambda)."""
    s = Z[:, selected[0]] * weights[0]
    for f, w in zip(selected[1:], weights[1:]):
        s = s + w * Z[:, f]
    best = (-1, 0.0, -np.inf)
    for f in range(Z.shape[1]):
        if f in selected:
            continue
        for lam in grid:
            value = mean_metric(model, s + lam * Z[:, f], c)
            if value > best[2]:
                best = (f, float(lam), value)
    return best


def test_greedy_steps_equal_brute_force():
    train = toy_collection(12, 5, min_docs=4, max_docs=14)
    vali = toy_collection(12, 6, min_docs=4, max_docs=14)
    model = AFSModel(max_features=3, n_steps=3, step_base=0.25, tolerance=0.0).fit(train, vali, grid={}, seed=0)
    Z = model.state_["transform"].transform(train.features)
    path = model.path_
    assert len(path) >= 2
    # step 1: the best single feature, weight 1
    singles = [mean_metric(model, Z[:, f], train) for f in range(Z.shape[1])]
    assert path[0]["feature"] == int(np.argmax(singles)) and path[0]["train"] == max(singles)
    mags = 0.25 * 2.0 ** np.arange(3)
    for t in range(1, len(path)):
        selected = [row["feature"] for row in path[:t]]
        weights = [row["weight"] for row in path[:t]]
        grid = np.concatenate([mags, -mags]) * np.abs(weights).sum()
        f, lam, value = brute_force_step(model, Z, train, selected, weights, grid)
        assert (path[t]["feature"], path[t]["weight"], path[t]["train"]) == (f, lam, value)


@pytest.mark.parametrize("per_block,n_threads", [(None, 1), (1, 1), (1, 2), (2, 3), (4, 2)])
def test_best_addition_blocks_and_threads(per_block, n_threads):
    """Any block size and thread count: the same pick as the brute force."""
    c = toy_collection(15, 8, min_docs=3, max_docs=12)
    model = AFSModel()
    Z = np.ascontiguousarray(np.round(c.features.astype(np.float64), 1))  # ties on purpose
    s = np.round(np.random.default_rng(1).standard_normal(c.n_docs), 1)
    features = np.array([0, 2, 3, 5, 6, 7])
    grid = np.array([0.5, 1.0, 2.0, -0.5, -1.0, -2.0])
    batch = BatchMetric(model, c.labels, c.offsets, 10)
    max_cells = 1 << 22 if per_block is None else per_block * grid.size * c.n_docs
    got = best_addition(batch, s, np.ascontiguousarray(Z.T), features, grid, max_cells=max_cells,
                        n_threads=n_threads)
    best = (-1, 0.0, -np.inf)
    for f in features:
        for lam in grid:
            value = mean_metric(model, s + lam * Z[:, f], c)
            if value > best[2]:
                best = (int(f), float(lam), value)
    assert got == best


# -- conventions: LETOR 4.0's short queries carry no weight ----------------------------------
def test_letor4_ignores_short_training_queries():
    train = two_feature_collection(50, 11, short_fraction=0.5)
    vali = two_feature_collection(40, 12)
    altered = alter_short_queries(train)
    a = AFSModel(convention="letor4", max_features=4).fit(train, vali, grid={}, seed=0)
    b = AFSModel(convention="letor4", max_features=4).fit(altered, vali, grid={}, seed=0)
    assert a.path_ == b.path_ and np.array_equal(a.coef_, b.coef_)
    c = AFSModel(convention="letor3", max_features=4).fit(train, vali, grid={}, seed=0)
    d = AFSModel(convention="letor3", max_features=4).fit(altered, vali, grid={}, seed=0)
    assert c.path_ != d.path_


# -- determinism: threads within the greedy steps (over grid points: test_models.test_n_jobs_bit_identical)
def test_threads_within_steps_change_nothing(data):
    train, vali, test = data
    grid = {}
    one = AFSModel(max_features=4).fit(train, vali, grid=grid, seed=0)
    two = AFSModel(max_features=4).fit(train, vali, grid=grid, seed=0, n_jobs=2)
    assert one.tuning_ == two.tuning_ and one.path_ == two.path_
    assert np.array_equal(one.score(test.features), two.score(test.features))
    assert np.array_equal(one.predict_proba(test.features), two.predict_proba(test.features))


# -- argument checks -----------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [dict(max_features=0), dict(max_features=2.5), dict(n_steps=0),
                                 dict(step_base=0.0), dict(step_base=float("nan")), dict(step_scale=1.0),
                                 dict(tolerance=-0.1), dict(metric_k=0), dict(log1p="sqrt"),
                                 dict(calibration_alpha=-1.0)])
def test_bad_params_raise(bad):
    (name,) = bad
    with pytest.raises(ValueError, match=name):
        AFSModel(**bad)


def test_bad_grid_values_raise(data):
    train, vali, _ = data
    with pytest.raises(ValueError, match="max_features"):
        AFSModel().fit(train, vali, grid={"max_features": [3, 0]}, seed=0)
    with pytest.raises(TypeError, match="unknown"):
        AFSModel(n_restarts=3)


# -- pickling (probabilities, save/load, the zoo's name: test_models) -------------------------------
def test_pickle_drops_the_metric_cache(fitted):
    assert pickle.loads(pickle.dumps(fitted))._cache == {}
