"""Gradient boosted regression trees (Dinçer et al. 2016, Sec. 6.1's "plain
gradient boosted regression trees learner"): it ranks, it is LightGBM's own
L2 regression tree for tree, and it is deterministic."""

from __future__ import annotations

import numpy as np
import pytest

lgb = pytest.importorskip("lightgbm")

from evalrank.metrics import ndcg  # noqa: E402
from evalrank.models import zoo  # noqa: E402
from evalrank.models.gbrt import GBRTModel, L2Objective  # noqa: E402
from evalrank.models.lambdamart import LambdaMARTModel  # noqa: E402
from evalrank.models.quality import random_baseline  # noqa: E402
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


def test_ranks_better_than_random(fitted, data):
    test = data[2]
    value = float(np.mean(ndcg(fitted.score(test.features), test.labels, test.offsets, 10)))
    base = random_baseline(test.labels, test.offsets, seed=0)["ndcg@10"]
    assert value > base + 0.15, (value, base)
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


def test_deterministic_and_n_jobs_invariant(data):
    train, vali, test = data
    small = dict(num_boost_round=25, early_stopping_rounds=5)  # n_jobs=2 busy-waits on a loaded machine
    one = GBRTModel(**small).fit(train, vali, grid={"num_leaves": [7]}, seed=4)
    again = GBRTModel(**small).fit(train, vali, grid={"num_leaves": [7]}, seed=4)
    two = GBRTModel(**small).fit(train, vali, grid={"num_leaves": [7]}, seed=4, n_jobs=2)
    for other in (again, two):
        assert other.tuning_ == one.tuning_
        assert np.array_equal(other.score(test.features), one.score(test.features))
        assert np.array_equal(other.predict_proba(test.features), one.predict_proba(test.features))


def test_probabilities_and_params(fitted, data):
    test = data[2]
    p = fitted.predict_proba(test.features)
    assert p.shape == (test.n_docs, 5) and p.min() >= 0
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert "truncation_level" not in GBRTModel.param_names  # no lambda gradients
    with pytest.raises(TypeError, match="unknown"):
        GBRTModel(truncation_level=10)
    model = zoo.make_model("gbrt")
    assert isinstance(model, GBRTModel) and model.name == "gbrt"
