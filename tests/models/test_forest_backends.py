"""The forests' ``backend="lightgbm"`` (evalrank.models.forest, module docstring) against
scikit-learn's: its in-bag leaf histograms by brute force, the expected grade = the score,
equal quality on held-out data, determinism, storage, the parameter mapping."""

from __future__ import annotations

import collections

import numpy as np
import pytest

pytest.importorskip("lightgbm")

from evalrank.active.theorem3 import batch_mean_var  # noqa: E402
from evalrank.data.synthetic import generate  # noqa: E402
from evalrank.metrics import ndcg  # noqa: E402
from evalrank.metrics.ranking import rank_order  # noqa: E402
from evalrank.models import zoo  # noqa: E402
from evalrank.models.forest import (  # noqa: E402
    TREES_PER_BOOSTER,
    RandomForestModel,
    bootstrap_weights,
    lightgbm_params,
)
from evalrank.models.ordinal_forest import OrdinalForestModel  # noqa: E402
from evalrank.models.quality import log_loss  # noqa: E402


def lightgbm_rf(train, vali, seed=3, n_jobs=1, **params):
    params = dict({"n_estimators": 12, "min_samples_leaf": 4}, **params)
    return RandomForestModel(backend="lightgbm", **params).fit(train, vali, grid={}, seed=seed, n_jobs=n_jobs)


def tree_leaves(model, t, X):
    """Leaf ids of the rows of X in tree t (None: a one-leaf tree), LightGBM asked one tree at a time."""
    index = model.state_["trees"][t]
    if index < 0:
        return None
    booster = model.state_["boosters"][t // TREES_PER_BOOSTER]
    return booster.predict(X, pred_leaf=True, start_iteration=int(index), num_iteration=1).reshape(-1)


# -- the in-bag leaf histograms, by brute force ----------------------------------------
def test_lightgbm_histograms_match_brute_force(toy_split):
    train, vali, test = toy_split
    model = lightgbm_rf(train, vali)
    X = test.features[:200]
    n = train.n_docs
    proba = np.zeros((X.shape[0], 5))
    mean = np.zeros(X.shape[0])
    for t in range(12):
        w = bootstrap_weights(3, ("models", "rf"), t, n, n)  # the tree's bag: n draws, seeded per tree
        assert w.sum() == n and 0.55 < np.mean(w > 0) < 0.70
        train_leaf, test_leaf = tree_leaves(model, t, train.features), tree_leaves(model, t, X)
        hist = {}
        for row, leaf in enumerate(train_leaf):
            h = hist.setdefault(int(leaf), [0.0] * 5)
            h[int(train.labels[row])] += w[row]
        booster = model.state_["boosters"][t // TREES_PER_BOOSTER]
        for leaf, h in hist.items():  # every leaf holds in-bag rows; its output is their weighted mean grade
            assert sum(h) >= 1
            value = booster.get_leaf_output(int(model.state_["trees"][t]), leaf)
            assert value == pytest.approx(np.dot(h, np.arange(5)) / sum(h), abs=1e-12)
        for i, leaf in enumerate(test_leaf):
            h = hist[int(leaf)]
            proba[i] += np.array(h) / sum(h)
            mean[i] += booster.get_leaf_output(int(model.state_["trees"][t]), int(leaf))
    np.testing.assert_allclose(model.predict_proba(X), proba / 12, rtol=0, atol=1e-12)
    # the score is the forest's mean prediction (LightGBM's), and the in-bag histograms'
    # expected grade equals it, as the sklearn backend's do
    np.testing.assert_allclose(model.score(X), mean / 12, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.expected_grade(X), model.score(X), rtol=0, atol=1e-9)


def test_lightgbm_all_rows_histograms(toy_split):
    train, vali, test = toy_split
    model = lightgbm_rf(train, vali, n_estimators=4, leaf_counts="all")
    X = test.features[:50]
    expected = np.zeros((50, 5))
    for t in range(4):
        tl, xl = tree_leaves(model, t, train.features), tree_leaves(model, t, X)
        for i in range(50):
            expected[i] += np.bincount(train.labels[tl == xl[i]], minlength=5) / np.count_nonzero(tl == xl[i])
    np.testing.assert_allclose(model.predict_proba(X), expected / 4, rtol=0, atol=1e-12)


def test_lightgbm_unsplittable_bags(toy_split):
    """A bag no split can divide (one grade, or too few draws): LightGBM keeps no tree (or a
    0 tree first in a booster), the forest keeps a one-leaf tree of the bag's mean."""
    train, vali, test = toy_split
    model = lightgbm_rf(train, vali, n_estimators=25, max_samples=4, min_samples_leaf=1)
    trees = model.state_["trees"]
    assert (trees < 0).any() and (trees >= 0).any()
    pure = 0
    for t in range(25):
        w = bootstrap_weights(3, ("models", "rf"), t, train.n_docs, 4)
        if np.unique(train.labels[w > 0]).size == 1:
            pure += 1
            assert trees[t] < 0  # nothing to gain from a split
        if trees[t] < 0:
            assert model.state_["constant"][t] == pytest.approx(w @ train.labels / 4, abs=1e-15)
    assert pure
    X = test.features
    p = model.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.expected_grade(X), model.score(X), rtol=0, atol=1e-9)
    nothing = lightgbm_rf(train, vali, n_estimators=3, min_samples_leaf=0.6)  # no bag can be split
    assert (nothing.state_["trees"] < 0).all()
    np.testing.assert_allclose(nothing.score(X), nothing.state_["constant"].mean(), rtol=0, atol=1e-12)


# -- equal quality on held-out data -----------------------------------------------------
def held_out_quality(model, test) -> dict:
    scores, proba = model.score_and_proba(test.features)
    y = test.labels.astype(np.int64)
    ece = []
    for g in range(5):  # per grade: 15 equal-width bins of p_g
        b = np.clip(np.ceil(proba[:, g] * 15).astype(np.int64) - 1, 0, 14)
        gap = np.bincount(b, weights=(y == g).astype(float), minlength=15) - np.bincount(b, weights=proba[:, g],
                                                                                           minlength=15)
        ece.append(np.abs(gap).sum() / y.size)
    order = rank_order(scores, test.offsets)
    mean, var = batch_mean_var(proba, test.offsets, order, "dcg", k=10)  # Theorem 3's per-query DCG@10
    realised, _ = batch_mean_var(np.eye(5)[y], test.offsets, order, "dcg", k=10)
    return {"log_loss": log_loss(proba, y), "ndcg10": float(np.mean(ndcg(scores, y, test.offsets, k=10))),
            "grade_ece": np.array(ece), "ratio": float(np.mean((realised - mean) ** 2) / np.mean(var))}


@pytest.fixture(scope="module")
def synthetic_split():
    """MSLR-like data (evalrank.data.synthetic, 136 features): ~5,400 training rows (40
    queries), 200 held-out queries (~25,000 rows)."""
    return generate(40, seed=1, partition=1), generate(5, seed=1, partition=2), generate(200, seed=1, partition=3)


#: (model, trees, log-loss tolerance). The tolerances are what "equal" means here: on these
#: data scikit-learn's own forests move by up to 0.005 (rf) / 0.03 (ordinal_rf) in log-loss,
#: 0.015 in NDCG@10 and 1.13x in the variance ratio between seeds; 15 trees per cumulative
#: forest leave ordinal_rf's log-loss noisier.
QUALITY = [("rf", 40, 0.02), ("ordinal_rf", 12, 0.05)]


@pytest.mark.parametrize("name, trees, ll_tol", QUALITY)
def test_lightgbm_quality_equals_sklearn(synthetic_split, name, trees, ll_tol):
    train, vali, test = synthetic_split
    q = {}
    for backend in ("sklearn", "lightgbm"):
        model = zoo.make_model(name, n_estimators=trees, min_samples_leaf=20, backend=backend)
        q[backend] = held_out_quality(model.fit(train, vali, grid={}, seed=2, n_jobs=2), test)
    s, g = q["sklearn"], q["lightgbm"]
    assert abs(g["log_loss"] - s["log_loss"]) <= ll_tol, q
    assert abs(g["ndcg10"] - s["ndcg10"]) <= 0.02, q
    np.testing.assert_allclose(g["grade_ece"], s["grade_ece"], rtol=0, atol=0.01, err_msg=str(q))
    assert 1 / 1.35 <= g["ratio"] / s["ratio"] <= 1.35, q  # a heavy-tailed per-query statistic
    assert s["ndcg10"] > 0.35 and g["ndcg10"] > 0.35  # both rank far above random (~0.2 here)


# -- determinism, storage -----------------------------------------------------------------
@pytest.mark.parametrize("name", ["rf", "ordinal_rf"])
def test_lightgbm_same_seed_same_forest_at_any_threads(toy_split, name):
    train, vali, test = toy_split
    n = 2 * TREES_PER_BOOSTER + 3  # three boosters
    fits = [zoo.make_model(name, n_estimators=n, backend="lightgbm").fit(train, vali, grid={}, seed=5, n_jobs=j)
            for j in (1, 2, 1)]
    s, p = fits[0].score_and_proba(test.features)
    for other in fits[1:]:
        s2, p2 = other.score_and_proba(test.features)
        assert np.array_equal(s, s2) and np.array_equal(p, p2)
        assert other.tuning_ == fits[0].tuning_
    fits[1].n_jobs = 1  # prediction threads do not matter either
    assert np.array_equal(fits[1].predict_proba(test.features), p)
    other_seed = zoo.make_model(name, n_estimators=n, backend="lightgbm").fit(train, vali, grid={}, seed=6)
    assert not np.array_equal(other_seed.score(test.features), s)


@pytest.mark.parametrize("name", ["rf", "ordinal_rf"])
def test_lightgbm_save_load_roundtrip(toy_split, name, tmp_path):
    train, vali, test = toy_split
    model = zoo.make_model(name, n_estimators=5, backend="lightgbm")
    model.fit(train, vali, grid={"min_samples_leaf": [3, 10]}, seed=1)
    assert model.best_params_["backend"] == "lightgbm" and all(r["backend"] == "lightgbm" for r in model.tuning_)
    zoo.save_model(model, tmp_path / "m.joblib")
    back = zoo.load_model(tmp_path / "m.joblib")
    X = test.features
    assert np.array_equal(back.score(X), model.score(X))
    assert np.array_equal(back.predict_proba(X), model.predict_proba(X))


# -- parameters ------------------------------------------------------------------------------
def test_backend_parameter():
    for cls in (RandomForestModel, OrdinalForestModel):
        assert "backend" in cls.param_names
        assert "backend" not in cls.default_params()  # left out = sklearn; the tuning table keeps its columns
        assert "tune_backend" in cls.param_names and "tune_backend" not in cls.default_params()
    assert zoo.make_model("rf").params.get("backend", "sklearn") == "sklearn"


def test_backend_checked(toy_split):
    train, vali, _ = toy_split
    for name in ("rf", "ordinal_rf"):
        with pytest.raises(ValueError, match="backend"):
            zoo.make_model(name, n_estimators=2, backend="xgboost").fit(train, vali, grid={}, seed=0)


@pytest.mark.parametrize("name", ["rf", "ordinal_rf"])
def test_tune_backend_searches_on_one_backend_and_refits_on_the_other(toy_split, name):
    """tune_backend: the grid is searched by scikit-learn (each point as a direct sklearn fit of it
    scores it), the winner refit by LightGBM; the kept model equals a direct LightGBM fit of the
    winner, and taking its tuning (best_params_, as train_sized does) fits one LightGBM point."""
    train, vali, test = toy_split
    grid = {"min_samples_leaf": [2, 10], "max_features": [0.5]}
    fixed = dict(n_estimators=12, tune_n_estimators=4, backend="lightgbm", tune_backend="sklearn")
    model = zoo.make_model(name, **fixed).fit(train, vali, grid=grid, seed=3)
    searched = [r for r in model.tuning_ if not r.get("refit")]
    assert [r["backend"] for r in searched] == ["sklearn", "sklearn"]
    assert all(r["n_estimators"] == 4 for r in searched)
    for row in searched:  # each searched point is the sklearn forest of that point with 4 trees
        alone = zoo.make_model(name, n_estimators=4, max_features=0.5, min_samples_leaf=row["min_samples_leaf"])
        alone.fit(train, vali, grid={}, seed=3)
        assert row["vali_ndcg10"] == pytest.approx(alone.best_vali_ndcg10_, abs=1e-12)
    assert model.tuning_[-1]["refit"] and model.tuning_[-1]["backend"] == "lightgbm"
    assert model.best_params_["backend"] == "lightgbm" and model.best_params_["n_estimators"] == 12
    assert "boosters" in (model.state_ if name == "rf" else model.state_["parts"][0])
    best_leaf = max(searched, key=lambda r: r["vali_ndcg10"])["min_samples_leaf"]
    direct = zoo.make_model(name, n_estimators=12, backend="lightgbm", max_features=0.5, min_samples_leaf=best_leaf)
    direct.fit(train, vali, grid={}, seed=3)
    np.testing.assert_array_equal(model.score(test.features), direct.score(test.features))
    np.testing.assert_array_equal(model.predict_proba(test.features), direct.predict_proba(test.features))
    again = zoo.make_model(name).fit(train, vali, grid={k: [v] for k, v in model.best_params_.items()}, seed=3)
    assert len(again.tuning_) == 1
    np.testing.assert_array_equal(again.score(test.features), direct.score(test.features))


def test_tune_backend_checked(toy_split):
    train, vali, _ = toy_split
    with pytest.raises(ValueError, match="tune_backend"):
        zoo.make_model("rf", n_estimators=2, tune_backend="xgboost").fit(
            train, vali, grid={"min_samples_leaf": [1, 2]}, seed=0)


def test_lightgbm_params_follow_sklearn_counts():
    base = {"max_features": 0.1, "min_samples_leaf": 20, "max_samples": None, "max_depth": None}
    p, draws = lightgbm_params(base, n_rows=10_000, n_features=136, n_valid_features=130)
    assert draws == 10_000
    assert p["feature_fraction_bynode"] == 13 / 130  # scikit-learn's int(0.1 * 136), among the usable features
    distinct = 10_000 * (1 - (1 - 1 / 10_000) ** 10_000)
    assert p["min_sum_hessian_in_leaf"] == pytest.approx(20 * 10_000 / distinct)  # ~31.6 draws
    assert p["num_leaves"] == int(10_000 // p["min_sum_hessian_in_leaf"]) and p["max_depth"] == -1
    assert p["bagging_freq"] == 0 and p["learning_rate"] == 1.0 and p["lambda_l2"] == 0.0
    assert p["num_threads"] == 1 and p["deterministic"]
    p, draws = lightgbm_params(dict(base, max_features="sqrt", max_samples=0.5, max_depth=3, min_samples_leaf=0.001),
                               n_rows=10_000, n_features=136, n_valid_features=136)
    assert draws == 5_000 and p["feature_fraction_bynode"] == 11 / 136
    assert p["num_leaves"] == 8 and p["max_depth"] == 3
    distinct = 10_000 * (1 - (1 - 1 / 10_000) ** 5_000)
    assert p["min_sum_hessian_in_leaf"] == pytest.approx(10 * 5_000 / distinct)  # ceil(0.001 * 10,000) rows
    p, _ = lightgbm_params(dict(base, min_samples_leaf=1), n_rows=1_000_000, n_features=136, n_valid_features=136)
    assert p["num_leaves"] == 131_072  # LightGBM's limit
    with pytest.raises(ValueError, match="max_features"):
        lightgbm_params(dict(base, max_features=0.0), n_rows=100, n_features=10, n_valid_features=10)


def test_bags_are_sklearn_bootstraps():
    """n draws with replacement: multiplicities ~ Binomial(n, 1/n), 63.2 % of rows in bag."""
    w = np.stack([bootstrap_weights(0, ("x",), t, 2_000, 2_000) for t in range(50)])
    assert (w.sum(axis=1) == 2_000).all()
    assert abs(np.mean(w > 0) - (1 - (1 - 1 / 2_000) ** 2_000)) < 0.005
    counts = collections.Counter(w.ravel().astype(int).tolist())
    assert abs(counts[2] / w.size - 0.184) < 0.005  # P(multiplicity 2) = e^-1 / 2
    assert not np.array_equal(w[0], w[1])
    np.testing.assert_array_equal(bootstrap_weights(0, ("x",), 7, 2_000, 2_000), w[7])
