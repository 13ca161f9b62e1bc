"""The model zoo: probabilities, rf leaf histograms, ordinal monotonicity,
better-than-random rankings, n_jobs determinism, save/load, argument checks."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from evalrank.data.collection import Collection
from evalrank.metrics import ndcg
from evalrank.models import RankingModel, expand_grid
from evalrank.models import zoo
from evalrank.models.forest import RandomForestModel
from evalrank.models.ordinal_forest import OrdinalForestModel, cumulative_to_proba, monotone_cumulative
from evalrank.models.quality import random_baseline
from evalrank.models.ranksvm import count_pairs, sample_pairs
from toy_data import toy_collection



SMALL = {
    "rf": ({"n_estimators": 20}, {"min_samples_leaf": [3, 10]}),
    "ordinal_rf": ({"n_estimators": 10}, {"min_samples_leaf": [3, 10]}),
    "ordered_logit": ({}, {"alpha": [1.0, 10.0]}),
    "ranksvm": ({"max_pairs": 3000}, {"C": [0.01, 0.1]}),
    "lambdamart": ({"num_boost_round": 40, "early_stopping_rounds": 10}, {"num_leaves": [7], "learning_rate": [0.1, 0.3]}),
    "adarank": ({"max_rounds": 30}, {"tolerance": [0.002, 1.0]}),
    "coordinate_ascent": ({"n_restarts": 2, "n_iterations": 5}, {"step_base": [0.001, 0.01]}),
    "ranknet": ({"max_epochs": 10}, {"hidden_units": [10]}),
    "rankboost": ({"max_rounds": 30}, {"n_thresholds": [32]}),
    "gbrt": ({"num_boost_round": 40, "early_stopping_rounds": 10}, {"num_leaves": [7], "learning_rate": [0.1, 0.3]}),
    "afs": ({"max_features": 5}, {"log1p": ["auto", "none"]}),
    "listnet": ({"max_epochs": 20}, {"l2": [0.0, 1e-3]}),
}


def fit(name, train, vali, n_jobs=1, seed=7):
    params, grid = SMALL[name]
    return zoo.make_model(name, **params).fit(train, vali, grid=grid, seed=seed, n_jobs=n_jobs)


@pytest.fixture(scope="module")
def fitted(toy_split):
    train, vali, _ = toy_split
    return {name: fit(name, train, vali) for name in zoo.MODELS}


# -- probabilities ------------------------------------------------------------
@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_probabilities_are_distributions(fitted, toy_split, name):
    model = fitted[name]
    test = toy_split[2]
    p = model.predict_proba(test.features)
    assert p.dtype == np.float64 and p.shape == (test.n_docs, 5)
    assert p.min() >= 0
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    s = model.score(test.features)
    assert s.dtype == np.float64 and s.shape == (test.n_docs,)
    s2, p2 = model.score_and_proba(test.features)
    assert np.array_equal(s, s2) and np.array_equal(p, p2)
    assert model.n_grades == 5
    assert set(model.best_params_) >= set(SMALL[name][1])
    assert len(model.tuning_) == len(expand_grid(SMALL[name][1], model.param_names))
    assert all("vali_ndcg10" in row for row in model.tuning_)


@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_five_columns_when_a_grade_is_missing(toy_split, name):
    train, vali, test = (toy_collection(40, s, max_grade=3) for s in (11, 12, 13))
    assert train.labels.max() == 3
    model = fit(name, train, vali)
    p = model.predict_proba(toy_split[2].features)
    assert p.shape[1] == 5
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert p.min() >= 0
    assert np.all(p[:, 4] == 0)  # never seen -> probability 0 (documented)


# -- random forest leaf histograms ---------------------------------------------
def brute_force_rf_proba(model: RandomForestModel, train: Collection, X: np.ndarray) -> np.ndarray:
    forest = model.forest_
    n_grades = model.n_grades
    out = np.zeros((X.shape[0], n_grades))
    for tree, inbag in zip(forest.estimators_, forest.estimators_samples_):
        counts = collections.Counter(inbag.tolist())
        train_leaf = tree.apply(train.features)
        hist = {}
        for row, leaf in enumerate(train_leaf):
            h = hist.setdefault(int(leaf), [0.0] * n_grades)
            h[int(train.labels[row])] += counts.get(row, 0)
        for i, leaf in enumerate(tree.apply(X)):
            h = hist[int(leaf)]
            total = sum(h)
            for g in range(n_grades):
                out[i, g] += h[g] / total
    return out / len(forest.estimators_)


def test_rf_leaf_histograms_match_brute_force(toy_split):
    train, vali, test = toy_split
    model = RandomForestModel(n_estimators=5, min_samples_leaf=4).fit(train, vali, grid={}, seed=3)
    X = test.features[:200]
    np.testing.assert_allclose(model.predict_proba(X), brute_force_rf_proba(model, train, X), rtol=0, atol=1e-12)
    # in-bag histograms: the expected grade is the forest's regression value
    np.testing.assert_allclose(model.expected_grade(X), model.score(X), rtol=0, atol=1e-9)
    np.testing.assert_allclose(model.score(X), model.forest_.predict(X), rtol=0, atol=1e-9)


def test_rf_all_rows_histograms(toy_split):
    train, vali, test = toy_split
    model = RandomForestModel(n_estimators=5, min_samples_leaf=4, leaf_counts="all").fit(train, vali, grid={}, seed=3)
    forest = model.forest_
    X = test.features[:50]
    expected = np.zeros((50, 5))
    for tree in forest.estimators_:
        tl, xl = tree.apply(train.features), tree.apply(X)
        for i in range(50):
            lab = train.labels[tl == xl[i]]
            expected[i] += np.bincount(lab, minlength=5) / lab.size
    np.testing.assert_allclose(model.predict_proba(X), expected / 5, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="leaf_counts"):
        RandomForestModel(n_estimators=2, leaf_counts="oob").fit(train, vali, grid={}, seed=3)


# -- ordinal forest ----------------------------------------------------------------
def test_monotone_cumulative_repairs_violations():
    c = np.array([[0.5, 0.6, 0.1, 0.2], [0.9, 0.5, 0.3, 0.1], [1.2, -0.1, 0.0, 0.0]])
    m = monotone_cumulative(c)
    assert np.all(np.diff(m, axis=1) <= 0)
    np.testing.assert_array_equal(m[1], c[1])  # monotone rows are unchanged
    np.testing.assert_allclose(m[0], [0.55, 0.55, 0.15, 0.15])
    p = cumulative_to_proba(m)
    assert p.min() >= 0
    np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-15)
    np.testing.assert_allclose(p[1], [0.1, 0.4, 0.2, 0.2, 0.1])


def test_ordinal_rf_cumulative_monotone(fitted, toy_split):
    model: OrdinalForestModel = fitted["ordinal_rf"]
    X = toy_split[2].features
    raw = model.cumulative(X)
    assert raw.shape == (X.shape[0], 4) and raw.min() >= 0 and raw.max() <= 1
    p = model.predict_proba(X)
    tail = np.cumsum(p[:, ::-1], axis=1)[:, ::-1][:, 1:]  # P(y > k) implied by p
    assert np.all(np.diff(tail, axis=1) <= 1e-12)
    np.testing.assert_allclose(tail, monotone_cumulative(raw), atol=1e-12)
    np.testing.assert_allclose(model.score(X), model.expected_grade(X), atol=1e-12)


# -- every model ranks better than random ------------------------------------------
@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_beats_random_ranking(fitted, toy_split, name):
    test = toy_split[2]
    base = random_baseline(test.labels, test.offsets, seed=0)
    s = fitted[name].score(test.features)
    value = float(np.mean(ndcg(s, test.labels, test.offsets, k=10)))
    assert value > base["ndcg@10"] + 0.15, (name, value, base)


# -- determinism -------------------------------------------------------------------
@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_n_jobs_bit_identical(fitted, toy_split, name):
    train, vali, test = toy_split
    one = fitted[name]
    two = fit(name, train, vali, n_jobs=2)
    assert one.tuning_ == two.tuning_
    s1, p1 = one.score_and_proba(test.features)
    s2, p2 = two.score_and_proba(test.features)
    assert np.array_equal(s1, s2)
    assert np.array_equal(p1, p2)
    two.n_jobs = 1  # prediction threads do not matter either
    assert np.array_equal(two.predict_proba(test.features), p2)


def test_seed_changes_random_models(fitted, toy_split):
    train, vali, test = toy_split
    other = fit("rf", train, vali, seed=8)
    assert not np.array_equal(other.score(test.features), fitted["rf"].score(test.features))


# -- save / load --------------------------------------------------------------------
@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_save_load_roundtrip(fitted, toy_split, name, tmp_path):
    model = fitted[name]
    path = tmp_path / f"{name}.joblib"
    zoo.save_model(model, path)
    back = zoo.load_model(path)
    assert type(back) is type(model) and back.best_params_ == model.best_params_
    X = toy_split[2].features
    assert np.array_equal(back.score(X), model.score(X))
    assert np.array_equal(back.predict_proba(X), model.predict_proba(X))


def test_save_load_errors(tmp_path):
    with pytest.raises(TypeError, match="model"):
        zoo.save_model(object(), tmp_path / "x.joblib")
    with pytest.raises(FileNotFoundError):
        zoo.load_model(tmp_path / "missing.joblib")


# -- ranksvm pairs ------------------------------------------------------------------
def test_sample_pairs_uniform_valid_and_capped(toy_split):
    train = toy_split[0]
    y = train.labels.astype(np.int64)
    q = np.repeat(np.arange(train.n_queries), train.query_sizes)
    total = count_pairs(y, train.offsets, 5)
    brute = sum(int((y[a:b][:, None] > y[a:b][None, :]).sum()) for a, b in zip(train.offsets[:-1], train.offsets[1:]))
    assert total == brute
    i, j = sample_pairs(y, train.offsets, 500, np.random.default_rng(0))
    assert i.size == 500
    assert np.all(q[i] == q[j]) and np.all(y[i] > y[j])
    assert len(set(zip(i.tolist(), j.tolist()))) == 500  # without replacement
    i, j = sample_pairs(y, train.offsets, 10 * total, np.random.default_rng(0))
    assert i.size == total and np.all(y[i] > y[j]) and np.all(q[i] == q[j])


# -- zoo and argument checks ------------------------------------------------------
def test_zoo_registry_and_grids():
    assert list(zoo.MODELS) == ["rf", "ordinal_rf", "ordered_logit", "ranksvm", "lambdamart", "adarank",
                                "coordinate_ascent", "ranknet", "rankboost", "gbrt", "afs", "listnet"]
    grids = zoo.default_grids()
    assert set(grids) == set(zoo.MODELS) == set(zoo.PAPER_GRIDS)
    for name, grid in list(grids.items()) + list(zoo.PAPER_GRIDS.items()):
        model = zoo.make_model(name)
        assert isinstance(model, RankingModel) and model.name == name
        assert expand_grid(grid, model.param_names)
    grids["rf"]["min_samples_leaf"].append(99)
    assert 99 not in zoo.default_grids()["rf"]["min_samples_leaf"]
    with pytest.raises(ValueError, match="name"):
        zoo.make_model("svm")
    with pytest.raises(TypeError, match="unknown parameter"):
        zoo.make_model("rf", C=1.0)


def test_argument_checks(toy_split, fitted):
    train, vali, test = toy_split
    model = zoo.make_model("ordered_logit")
    with pytest.raises(ValueError, match="grid key"):
        model.fit(train, vali, grid={"C": [1.0]}, seed=0)
    with pytest.raises(ValueError, match=r"grid\['alpha'\]"):
        model.fit(train, vali, grid={"alpha": []}, seed=0)
    with pytest.raises(ValueError, match="seed"):
        model.fit(train, vali, grid={}, seed=-1)
    with pytest.raises(ValueError, match="n_jobs"):
        model.fit(train, vali, grid={}, seed=0, n_jobs=0)
    with pytest.raises(TypeError, match="train"):
        model.fit(train.features, vali, grid={}, seed=0)
    with pytest.raises(RuntimeError, match="not fitted"):
        model.score(test.features)
    with pytest.raises(ValueError, match="columns"):
        fitted["rf"].score(test.features[:, :3])
    bad = test.features.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fitted["rf"].predict_proba(bad)


@pytest.mark.parametrize("name", ["rf", "ordinal_rf"])
def test_forests_search_the_grid_with_fewer_trees_and_refit_the_winner(toy_split, name):
    """tune_n_estimators: the grid is searched with that many trees, the winner refit with all;
    the kept model equals a direct fit of the winner's parameters (same seed, same trees)."""
    train, vali, test = toy_split
    grid = {"min_samples_leaf": [2, 10], "max_features": [0.5]}
    model = zoo.make_model(name, n_estimators=12, tune_n_estimators=4)
    model.fit(train, vali, grid=grid, seed=3)
    searched = [r for r in model.tuning_ if not r.get("refit")]
    assert len(searched) == 2 and all(r["n_estimators"] == 4 for r in searched)
    assert model.tuning_[-1]["refit"] and model.best_params_["n_estimators"] == 12
    best_leaf = max(searched, key=lambda r: r["vali_ndcg10"])["min_samples_leaf"]
    assert model.best_params_["min_samples_leaf"] == best_leaf
    direct = zoo.make_model(name, n_estimators=12, tune_n_estimators=4)
    direct.fit(train, vali, grid={"min_samples_leaf": [best_leaf], "max_features": [0.5]}, seed=3)
    assert len(direct.tuning_) == 1                       # one point: fitted as it is, no search
    np.testing.assert_array_equal(model.score(test.features), direct.score(test.features))
    np.testing.assert_array_equal(model.predict_proba(test.features), direct.predict_proba(test.features))
