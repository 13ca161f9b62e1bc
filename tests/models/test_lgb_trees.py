"""evalrank.models.lgb_trees: LightGBM's trees walked in compiled code give LightGBM's own leaf ids
and raw scores, bit for bit (rows on the thresholds, missing values of each kind, one-leaf trees),
and the forests' LightGBM predictions are the ones LightGBM's predictor gives."""

from __future__ import annotations

import numpy as np
import pytest

lgb = pytest.importorskip("lightgbm")

from evalrank import _jit  # noqa: E402
from evalrank.models import lgb_trees  # noqa: E402
from evalrank.models.forest import TREES_PER_BOOSTER, RandomForestModel  # noqa: E402
from evalrank.models.ordinal_forest import OrdinalForestModel  # noqa: E402


def booster_and_rows(seed, *, nan=False, zero_as_missing=False, rounds=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(600, 6)).astype(np.float32)
    X[rng.random(X.shape) < 0.2] = 0.0
    if nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) ** 2 + rng.normal(scale=0.1, size=600)
    params = {"verbosity": -1, "num_leaves": 15, "min_data_in_leaf": 5, "seed": seed, "num_threads": 1,
              "zero_as_missing": zero_as_missing, "use_missing": True}
    booster = lgb.train(params, lgb.Dataset(X, y), num_boost_round=rounds)
    # the rows to walk: fresh ones, plus rows whose every value is one of the trees' thresholds
    # (as float32: a threshold lies between two training values) or exactly 0 / NaN
    thresholds = lgb_trees.flatten(booster).nodes[:, 3].view(np.float64)
    T = rng.choice(thresholds.astype(np.float32), size=(300, 6))
    fresh = rng.normal(size=(300, 6)).astype(np.float32)
    fresh[rng.random(fresh.shape) < 0.2] = 0.0
    if nan:
        fresh[rng.random(fresh.shape) < 0.1] = np.nan
    return booster, np.vstack([fresh, T, X])


@pytest.mark.parametrize("jit", ["python", "numba"])
@pytest.mark.parametrize("kind", ["plain", "nan", "zero"])
def test_walk_equals_lightgbm(kind, jit):
    booster, X = booster_and_rows(7, nan=kind == "nan", zero_as_missing=kind == "zero")
    X = X[1:]  # 1,199 rows: the last block's last lockstep group (lgb_trees.LANES) is partial
    assert X.shape[0] % lgb_trees.BLOCK_ROWS % lgb_trees.LANES
    types = (lgb_trees.flatten(booster).nodes[:, 0] >> 32) & 3
    assert {"plain": 0, "nan": 2, "zero": 1}[kind] in set(types.tolist())  # the missing type is exercised
    with _jit.mode(jit):
        leaves, raw = lgb_trees.walk(booster, X, 2)
    np.testing.assert_array_equal(leaves, booster.predict(X, pred_leaf=True).reshape(X.shape[0], -1))
    np.testing.assert_array_equal(raw, booster.predict(X, raw_score=True))  # the same doubles


def test_one_leaf_trees_and_refusals():
    X = np.zeros((50, 3), dtype=np.float32)
    booster = lgb.train({"verbosity": -1, "boost_from_average": True}, lgb.Dataset(X, np.arange(50.0)),
                        num_boost_round=2)
    assert (lgb_trees.flatten(booster).root == -1).all()
    leaves, raw = lgb_trees.walk(booster, X[:5])
    np.testing.assert_array_equal(leaves, booster.predict(X[:5], pred_leaf=True).reshape(5, -1))
    np.testing.assert_array_equal(raw, booster.predict(X[:5], raw_score=True))
    rng = np.random.default_rng(0)
    C = rng.integers(0, 5, size=(300, 2)).astype(np.float32)
    cat = lgb.train({"verbosity": -1, "min_data_per_group": 1, "cat_smooth": 0},
                    lgb.Dataset(C, C[:, 0] * 2.0 + rng.normal(size=300), categorical_feature=[0]),
                    num_boost_round=2)
    with pytest.raises(ValueError, match="categorical"):
        lgb_trees.walk(cat, C)


@pytest.mark.parametrize("cls", [RandomForestModel, OrdinalForestModel])
def test_forest_predictions_are_lightgbm_predictors(toy_split, cls):
    """The forests' scores and probabilities, walked here, equal the old computation from
    LightGBM's predictor (raw scores summed booster by booster, leaves from pred_leaf)."""
    train, vali, test = toy_split
    model = cls(backend="lightgbm", n_estimators=2 * TREES_PER_BOOSTER + 3, min_samples_leaf=4)
    model.fit(train, vali, grid={}, seed=5, n_jobs=2)
    X = np.ascontiguousarray(test.features, dtype=np.float32)
    with _jit.mode("numba"):
        scores, proba = model.score_and_proba(X)
    parts = [model.state_] if cls is RandomForestModel else [p for p in model.state_["parts"] if isinstance(p, dict)]
    means = []
    for part in parts:
        total = np.zeros(X.shape[0])
        for booster in part["boosters"]:
            if booster.num_trees():
                total += booster.predict(X, raw_score=True)
        means.append((total + part["constant"].sum()) / len(part["trees"]))
    if cls is RandomForestModel:
        np.testing.assert_array_equal(scores, means[0])
        expected = np.zeros((X.shape[0], model.n_grades))
        for g, booster in enumerate(model.state_["boosters"]):
            block = booster.predict(X, pred_leaf=True).reshape(X.shape[0], -1) if booster.num_trees() else None
            for t in range(g * TREES_PER_BOOSTER, min((g + 1) * TREES_PER_BOOSTER, len(model.state_["trees"]))):
                index = model.state_["trees"][t]
                expected += model.state_["tables"][t][0 if index < 0 else block[:, index]]
        expected /= len(model.state_["trees"])
        expected /= expected.sum(axis=1, keepdims=True)
        np.testing.assert_array_equal(proba, expected)
    else:
        cumulative = model._cumulative(model.state_, X)
        k = 0
        for j, part in enumerate(model.state_["parts"]):
            if isinstance(part, dict):
                np.testing.assert_array_equal(cumulative[:, j], means[k])
                k += 1
