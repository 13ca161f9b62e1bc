"""RankNet: learns, backprop = finite differences, determinism, early stopping
by the model's NDCG convention, parameter checks, probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from evalrank.data.collection import Collection
from evalrank.models.quality import random_baseline
from evalrank.models.ranknet import RankNetModel, forward, init_net, loss_and_grad, pair_loss
from toy_data import N_FEATURES, mean_ndcg, toy_collection

FAST = dict(max_epochs=12, patience=4, max_pairs_per_epoch=3000, batch_pairs=64, learning_rate=0.01)


@pytest.fixture(scope="module")
def fitted(toy_split):
    train, vali, _ = toy_split
    return RankNetModel(**FAST).fit(train, vali, grid={"hidden_units": [10, 30]}, seed=5)


# -- (a) it learns ----------------------------------------------------------------
def test_beats_random_scorer(fitted, toy_split):
    train, vali, test = toy_split
    model = fitted
    rand_vali = random_baseline(vali.labels, vali.offsets, seed=0)["ndcg@10"]
    rand_test = random_baseline(test.labels, test.offsets, seed=0)["ndcg@10"]
    assert model.best_vali_ndcg10_ > rand_vali + 0.2
    assert mean_ndcg(model.score(test.features), test) > rand_test + 0.2
    # the tuning table and the kept state agree
    assert len(model.tuning_) == 2 and all("best_epoch" in row for row in model.tuning_)
    assert model.best_vali_ndcg10_ == max(row["vali_ndcg10"] for row in model.tuning_)
    assert 1 <= model.best_epoch_ <= model.n_epochs_ <= FAST["max_epochs"]


def test_training_lowers_the_pairwise_loss(toy_split):
    train, vali, _ = toy_split
    model = RankNetModel(**FAST).fit(train, vali, grid={}, seed=5)
    from evalrank.models.pairs import training_pairs

    hi, lo = training_pairs(train.labels, train.offsets, 10**6, np.random.default_rng(0), 5)
    X = model.state_["transform"].transform(train.features)
    init = init_net(N_FEATURES, 1, model.params["hidden_units"], np.random.default_rng(0))
    assert pair_loss(forward(model.state_["net"], X), hi, lo) < pair_loss(forward(init, X), hi, lo) - 0.2


# -- (b) gradient check -------------------------------------------------------------
@pytest.mark.parametrize("layers", [1, 2, 3])
def test_backprop_matches_finite_differences(layers):
    r = np.random.default_rng(layers)
    X = r.standard_normal((7, 4))
    # pairs share documents (doc 0 on top twice, doc 3 both on top and below)
    hi = np.array([0, 0, 3, 5, 6, 2])
    lo = np.array([1, 3, 4, 1, 0, 1])
    params = [p * 2.0 for p in init_net(4, layers, 5, r)]  # larger weights: tanh in its nonlinear range
    params = [p + 0.3 * r.standard_normal(p.shape) for p in params]  # nonzero biases too
    l2 = 0.07
    loss, grads = loss_and_grad(params, X, hi, lo, l2)
    expected_loss = np.mean(np.log1p(np.exp(-(forward(params, X)[hi] - forward(params, X)[lo]))))
    expected_loss += 0.5 * l2 * sum(float((p**2).sum()) for k, p in enumerate(params)
                                    if k % 2 == 0 or k == len(params) - 1)
    assert loss == pytest.approx(expected_loss, rel=1e-12)
    eps = 1e-6
    for k, p in enumerate(params):
        numeric = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            old = p[idx]
            p[idx] = old + eps
            up = loss_and_grad(params, X, hi, lo, l2)[0]
            p[idx] = old - eps
            down = loss_and_grad(params, X, hi, lo, l2)[0]
            p[idx] = old
            numeric[idx] = (up - down) / (2 * eps)
        assert grads[k].shape == p.shape
        np.testing.assert_allclose(grads[k], numeric, rtol=1e-6, atol=1e-8, err_msg=f"parameter {k}")


# -- (c) determinism (n_jobs: test_models.test_n_jobs_bit_identical) ------------------
def test_another_seed_another_model(fitted, toy_split):
    train, vali, test = toy_split
    grid = {"hidden_units": [10, 30]}
    other = RankNetModel(**FAST).fit(train, vali, grid=grid, seed=6)
    assert not np.array_equal(other.score(test.features), fitted.score(test.features))


# -- (d) early stopping follows the model's convention --------------------------------
class SpyRankNet(RankNetModel):
    """Records every score vector the training loop evaluates."""

    def metric(self, scores, labels, offsets, k=10):
        self.seen.append(np.array(scores, copy=True))
        return super().metric(scores, labels, offsets, k)


class ScriptedRankNet(SpyRankNet):
    """Validation 'NDCG' scripted per call: peaks at epoch 3 of 8."""

    script = [0.1, 0.2, 0.9, 0.3, 0.4, 0.5, 0.6, 0.7]

    def metric(self, scores, labels, offsets, k=10):
        super().metric(scores, labels, offsets, k)
        i = len(self.seen) - 1
        value = self.script[i] if i < len(self.script) else 0.0
        return np.full(len(offsets) - 1, value)


def test_vali_curve_is_nanmean_of_self_metric(toy_split):
    train, vali, _ = toy_split
    for convention in (None, "letor4", "yahoo"):
        model = SpyRankNet(convention=convention, **dict(FAST, patience=50))
        model.seen = []
        model.fit(train, vali, grid={}, seed=5)
        curve = model.vali_curve_
        assert len(curve) == FAST["max_epochs"]  # patience 50: every epoch ran
        expected = [mean_ndcg(s, vali, convention) for s in model.seen[:len(curve)]]
        np.testing.assert_array_equal(curve, expected)
        assert model.best_epoch_ == int(np.argmax(curve)) + 1
        # the kept weights are those of the best epoch
        assert np.array_equal(model.score(vali.features), model.seen[model.best_epoch_ - 1])


def test_best_epoch_and_weights_follow_self_metric():
    train, vali = toy_collection(15, 1), toy_collection(10, 2)
    model = ScriptedRankNet(**dict(FAST, max_epochs=8, patience=100))
    model.seen = []
    model.fit(train, vali, grid={}, seed=5)
    assert model.n_epochs_ == 8 and model.best_epoch_ == 3
    np.testing.assert_allclose(model.vali_curve_, ScriptedRankNet.script, rtol=1e-15)
    assert np.array_equal(model.score(vali.features), model.seen[2])
    # patience: without improvement for 2 epochs after epoch 3, training stops at 5
    short = ScriptedRankNet(**dict(FAST, max_epochs=8, patience=2))
    short.seen = []
    short.fit(train, vali, grid={}, seed=5)
    assert short.n_epochs_ == 5 and short.best_epoch_ == 3


def test_conventions_disagree_and_stopping_follows_each(toy_split):
    """LETOR 4.0 (lists shorter than 10 score 0, Busa-Fekete eq. 4) vs the
    textbook convention on validation sets of mostly short queries: the
    training trajectory is the same (the convention only enters model
    selection), the curves differ, each model keeps the argmax of its own
    convention's curve, and so the selected epochs differ."""
    train = toy_split[0]
    params = dict(FAST, max_epochs=10, patience=50, learning_rate=0.03)
    disagree = 0
    for vali_seed in (26, 27, 28, 29):
        vali = toy_collection(30, vali_seed, min_docs=4, max_docs=16)
        models = {}
        for convention in (None, "letor4"):
            models[convention] = SpyRankNet(convention=convention, **params)
            models[convention].seen = []
            models[convention].fit(train, vali, grid={}, seed=9)
        a, b = models[None], models["letor4"]
        for s_a, s_b in zip(a.seen[:10], b.seen[:10]):
            assert np.array_equal(s_a, s_b)
        assert not np.allclose(a.vali_curve_, b.vali_curve_)
        for conv, model in models.items():
            curve = [mean_ndcg(s, vali, conv) for s in model.seen[:10]]
            assert model.best_epoch_ == int(np.argmax(curve)) + 1
        disagree += a.best_epoch_ != b.best_epoch_
    assert disagree >= 2  # 4 of 4 when written: these toy_split sets were chosen so that they disagree


# -- (e) parameter checks -------------------------------------------------------------
@pytest.mark.parametrize("name, value", [
    ("hidden_layers", 0), ("hidden_layers", 4), ("hidden_layers", 1.5), ("hidden_units", 9),
    ("hidden_units", 501), ("learning_rate", 0.0), ("learning_rate", float("nan")), ("max_epochs", 0),
    ("patience", 0), ("max_pairs_per_epoch", 0), ("batch_pairs", True), ("l2", -1.0), ("log1p", "some"),
    ("calibration_alpha", -0.5),
])
def test_bad_params_raise(toy_split, name, value):
    with pytest.raises(ValueError, match=name):
        RankNetModel(**{name: value})
    train, vali, _ = toy_split
    with pytest.raises(ValueError, match=name):
        RankNetModel(**FAST).fit(train, vali, grid={name: [value]}, seed=0)


def test_unknown_param_and_no_pairs(toy_split):
    with pytest.raises(TypeError, match="max_rounds"):
        RankNetModel(max_rounds=3)
    train, vali, _ = toy_split
    flat = Collection(features=train.features, labels=np.zeros_like(train.labels), offsets=train.offsets,
                      qids=train.qids)
    with pytest.raises(ValueError, match="no within-query pair"):
        RankNetModel(**FAST).fit(flat, vali, grid={}, seed=0)


# -- (f) probabilities (distributions: test_models.test_probabilities_are_distributions) --
def test_expected_grade_increases_with_the_score(fitted, toy_split):
    test = toy_split[2]
    s = fitted.score(test.features)
    # calibrated on the validation half: expected grade increases with the score
    order = np.argsort(s)
    assert np.all(np.diff(fitted.expected_grade(test.features)[order]) >= -1e-12)
