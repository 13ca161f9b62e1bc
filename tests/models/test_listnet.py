"""ListNet: loss and gradient = finite differences and a per-query loop,
it learns, early stopping, determinism, parameter checks, probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from evalrank.models.listnet import ListNetModel, listnet_loss_and_grad
from evalrank.models.quality import random_baseline
from toy_data import N_FEATURES, mean_ndcg

FAST = dict(max_epochs=20, patience=5, learning_rate=0.01, batch_queries=16)


@pytest.fixture(scope="module")
def fitted(toy_split):
    train, vali, _ = toy_split
    return ListNetModel(**FAST).fit(train, vali, grid={"l2": [0.0, 1e-3]}, seed=5)


def random_queries(seed, sizes, d=5):
    r = np.random.default_rng(seed)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(offsets[-1])
    X = r.standard_normal((n, d))
    labels = r.integers(0, 5, n).astype(np.float64)
    w = r.standard_normal(d)
    return w, X, labels, offsets


def loop_loss(w, X, labels, offsets, l2):
    """The definition, one query at a time (Cao et al. 2007, top-one cross entropy)."""
    losses = []
    for a, b in zip(offsets[:-1], offsets[1:]):
        if b == a:
            continue
        s = X[a:b] @ w
        ps = np.exp(s - s.max())
        ps /= ps.sum()
        py = np.exp(labels[a:b] - labels[a:b].max())
        py /= py.sum()
        losses.append(-float(np.sum(py * np.log(ps))))
    return float(np.mean(losses)) + 0.5 * l2 * float(w @ w)


SIZES = [1, 7, 3, 12, 2, 5]  # includes a one-document query


# -- (a) gradient = central finite differences ------------------------------------
@pytest.mark.parametrize("l2", [0.0, 0.07])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_matches_finite_differences(seed, l2):
    w, X, labels, offsets = random_queries(seed, SIZES)
    w = 2.0 * w  # peaked score softmaxes: away from the uniform regime
    loss, grad = listnet_loss_and_grad(w, X, labels, offsets, l2)
    assert grad.shape == w.shape and grad.dtype == np.float64 and np.isfinite(loss)
    eps = 1e-6
    numeric = np.zeros_like(w)
    for k in range(w.size):
        up, down = w.copy(), w.copy()
        up[k] += eps
        down[k] -= eps
        numeric[k] = (listnet_loss_and_grad(up, X, labels, offsets, l2)[0]
                      - listnet_loss_and_grad(down, X, labels, offsets, l2)[0]) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-9)


def test_one_document_query_contributes_nothing():
    w, X, labels, offsets = random_queries(3, [1])
    loss, grad = listnet_loss_and_grad(w, X, labels, offsets, 0.0)
    assert loss == 0.0 and np.all(grad == 0.0)


# -- (b) loss = a per-query loop -----------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_loss_matches_per_query_loop(seed):
    w, X, labels, offsets = random_queries(seed, SIZES)
    for scale, l2 in [(1.0, 0.0), (30.0, 0.0), (1.0, 0.5)]:  # scale 30: exp would overflow unshifted
        ws = scale * w
        loss, _ = listnet_loss_and_grad(ws, X, labels, offsets, l2)
        assert loss == pytest.approx(loop_loss(ws, X, labels, offsets, l2), rel=1e-12)
    # an empty query (repeated offset) is skipped, not counted in the mean
    with_empty = np.insert(offsets, 2, offsets[2])
    assert listnet_loss_and_grad(w, X, labels, with_empty)[0] == pytest.approx(
        listnet_loss_and_grad(w, X, labels, offsets)[0], rel=1e-14)
    # the gradient is the formula X^T (P_s - P_y) / |Q|, query by query
    _, grad = listnet_loss_and_grad(w, X, labels, offsets, 0.0)
    expected = np.zeros_like(w)
    for a, b in zip(offsets[:-1], offsets[1:]):
        s = X[a:b] @ w
        ps, py = np.exp(s) / np.exp(s).sum(), np.exp(labels[a:b]) / np.exp(labels[a:b]).sum()
        expected += X[a:b].T @ (ps - py)
    np.testing.assert_allclose(grad, expected / len(SIZES), rtol=1e-10, atol=1e-14)


def test_loss_argument_checks():
    w, X, labels, offsets = random_queries(0, SIZES)
    with pytest.raises(ValueError, match="w must"):
        listnet_loss_and_grad(w[:-1], X, labels, offsets)
    with pytest.raises(ValueError, match="offsets"):
        listnet_loss_and_grad(w, X, labels, offsets[:-1])
    with pytest.raises(ValueError, match="labels"):
        listnet_loss_and_grad(w, X, labels[:-1], offsets)


# -- (c) it learns ------------------------------------------------------------------
def test_beats_random_scorer(fitted, toy_split):
    train, vali, test = toy_split
    model = fitted
    rand_vali = random_baseline(vali.labels, vali.offsets, seed=0)["ndcg@10"]
    rand_test = random_baseline(test.labels, test.offsets, seed=0)["ndcg@10"]
    assert model.best_vali_ndcg10_ > rand_vali + 0.2
    assert mean_ndcg(model.score(test.features), test) > rand_test + 0.2
    assert len(model.tuning_) == 2 and all("best_epoch" in row for row in model.tuning_)
    assert model.best_vali_ndcg10_ == max(row["vali_ndcg10"] for row in model.tuning_)
    assert 1 <= model.best_epoch_ <= model.n_epochs_ <= FAST["max_epochs"]
    curve = model.vali_curve_
    assert curve.shape == (model.n_epochs_,) and np.all(np.isfinite(curve))
    assert curve[model.best_epoch_ - 1] == max(curve) == pytest.approx(model.best_vali_ndcg10_, abs=1e-12)
    assert model.coef_.shape == (N_FEATURES,)


def test_improves_over_first_epoch_and_lowers_the_loss(toy_split):
    """Full-batch steps (one per epoch): the first epoch is far from the
    optimum, so the kept epoch is clearly better; the training loss of the
    kept weights is below that of the zero start."""
    train, vali, _ = toy_split
    model = ListNetModel(**dict(FAST, batch_queries=train.n_queries, max_epochs=40, patience=40)).fit(
        train, vali, grid={}, seed=5)
    assert model.n_epochs_ == 40 and len(model.vali_curve_) == 40
    assert model.best_vali_ndcg10_ > model.vali_curve_[0] + 0.05
    assert model.best_epoch_ == int(np.argmax(model.vali_curve_)) + 1
    X = model.state_["transform"].transform(train.features)
    y = train.labels.astype(np.float64)
    fitted_loss = listnet_loss_and_grad(model.coef_, X, y, train.offsets)[0]
    zero_loss = listnet_loss_and_grad(np.zeros(N_FEATURES), X, y, train.offsets)[0]
    assert fitted_loss < zero_loss - 0.1


def test_early_stopping_keeps_the_best_epoch(toy_split):
    train, vali, _ = toy_split
    model = ListNetModel(**dict(FAST, max_epochs=60, patience=2, learning_rate=0.05)).fit(
        train, vali, grid={}, seed=5)
    curve = model.vali_curve_
    assert model.best_epoch_ == int(np.argmax(curve)) + 1
    # stopped exactly `patience` epochs after the best one (or ran out of epochs)
    assert model.n_epochs_ == min(model.best_epoch_ + 2, 60)
    assert mean_ndcg(model.score(vali.features), vali) == pytest.approx(curve[model.best_epoch_ - 1], abs=1e-12)


# -- (d) determinism (n_jobs: test_models.test_n_jobs_bit_identical) ------------------
def test_another_seed_another_model(fitted, toy_split):
    train, vali, test = toy_split
    grid = {"l2": [0.0, 1e-3]}
    other = ListNetModel(**FAST).fit(train, vali, grid=grid, seed=6)  # another query order
    assert not np.array_equal(other.score(test.features), fitted.score(test.features))


# -- (e) parameter checks -------------------------------------------------------------
@pytest.mark.parametrize("name, value", [
    ("learning_rate", 0.0), ("learning_rate", float("nan")), ("learning_rate", -1.0), ("max_epochs", 0),
    ("max_epochs", 2.5), ("patience", 0), ("batch_queries", 0), ("batch_queries", True), ("l2", -1.0),
    ("l2", float("inf")), ("log1p", "some"), ("calibration_alpha", -0.5),
])
def test_bad_params_raise(toy_split, name, value):
    with pytest.raises(ValueError, match=name):
        ListNetModel(**{name: value})
    train, vali, _ = toy_split
    with pytest.raises(ValueError, match=name):
        ListNetModel(**FAST).fit(train, vali, grid={name: [value]}, seed=0)


def test_unknown_param():
    with pytest.raises(TypeError, match="hidden_units"):
        ListNetModel(hidden_units=3)


# -- (f) probabilities (distributions: test_models.test_probabilities_are_distributions) --
def test_expected_grade_increases_with_the_score(fitted, toy_split):
    test = toy_split[2]
    s = fitted.score(test.features)
    # calibrated on the validation half: expected grade increases with the score
    order = np.argsort(s)
    assert np.all(np.diff(fitted.expected_grade(test.features)[order]) >= -1e-12)
