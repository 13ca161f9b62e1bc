"""Gradient boosted regression trees (Dinçer et al. 2016, Sec. 6.1's "plain
gradient boosted regression trees learner"): it is LightGBM's own L2 regression tree for tree and
not LambdaMART (that it ranks, its determinism, probabilities and save/load:
test_models.py, for every model)."""

from __future__ import annotations

import numpy as np
import pytest

lgb = pytest.importorskip("lightgbm")

from evalrank.models.gbrt import GBRTModel, L2Objective  # noqa: E402
from evalrank.models.lambdamart import LambdaMARTModel  # noqa: E402
from toy_data import toy_collection  # noqa: E402

FAST = dict(num_boost_round=60, early_stopping_rounds=10)
GRID = {"num_leaves": [7, 15]}


@pytest.fixture(scope="module")
def data():
    return toy_collection(60, 1), toy_collection(40, 2), toy_collection(60, 3)


@pytest.fixture(scope="module")
def fitted(data):
    train, vali, _ = data
    return GBRTModel(**FAST).fit(train, vali, grid=GRID, seed=4)


def test_tuning_table(fitted):
    # (that it ranks better than random: test_models.test_beats_random_ranking)
    assert len(fitted.tuning_) == 2 and all(1 <= row["best_iteration"] <= 60 for row in fitted.tuning_)


def test_equals_lightgbm_regression(fitted, data):
    """The same trees as LightGBM's built-in L2 regression started from 0
    (Jforests' GradientBoosting), with the same parameters and rounds."""
    train, _, test = data
    params = fitted._lgb_params(fitted.best_params_)
    direct = lgb.train(dict(params, objective="regression", boost_from_average=False),
                       lgb.Dataset(train.features, label=train.labels.astype(np.int32)),
                       num_boost_round=fitted.best_iteration_)
    np.testing.assert_array_equal(fitted.score(test.features), direct.predict(test.features))
    # the regression targets are the grades: the in-sample fit is close to them
    train_scores = fitted.score(train.features)
    assert np.corrcoef(train_scores, train.labels)[0, 1] > 0.6


def test_is_not_lambdamart(fitted, data):
    train, vali, test = data
    lm = LambdaMARTModel(**FAST).fit(train, vali, grid={"num_leaves": [fitted.best_params_["num_leaves"]]}, seed=4)
    assert not np.array_equal(lm.score(test.features), fitted.score(test.features))


def test_l2_objective():
    grad, hess = L2Objective(np.array([0, 2, 4], dtype=np.int8))(np.array([0.5, 2.0, 1.0]))
    np.testing.assert_array_equal(grad, [0.5, 0.0, -3.0])
    np.testing.assert_array_equal(hess, [1.0, 1.0, 1.0])


# determinism, n_jobs, probabilities, save/load, the zoo's name: test_models (every model)
def test_params():
    assert "truncation_level" not in GBRTModel.param_names  # no lambda gradients
    with pytest.raises(TypeError, match="unknown"):
        GBRTModel(truncation_level=10)
