"""Theorem 3 with a query-level random effect (evalrank.active.theorem3_correlated) against
independent computations: brute-force enumeration of every label vector with the copula's joint
probabilities integrated by adaptive quadrature (scipy.integrate.quad, not Gauss-Hermite), Monte
Carlo of the copula's generative definition, the recovery of a planted correlation, and the Doob
martingale split against enumeration under the independent model."""

import itertools

import numpy as np
import pytest
from scipy import integrate
from scipy.special import ndtr, ndtri

from evalrank.active.theorem3 import batch_mean_var
from evalrank.active.theorem3_correlated import (batch_difference_mean_var_factor, batch_mean_var_factor,
                                                 doob_increments, factor_probs, fit_factor_correlation,
                                                 variance_split)
from evalrank.metrics import dcg, err

MEASURES = ("dcg", "err")


def values_of(measure, label_matrix, ranking, max_grade):
    """L(ranking, y) for every row y of label_matrix, via evalrank.metrics (not theorem3)."""
    n_vec, n = label_matrix.shape[0], len(ranking)
    labels = label_matrix[:, ranking].ravel()
    scores = np.tile(np.arange(n, 0, -1, dtype=np.float64), n_vec)
    offsets = np.arange(n_vec + 1) * n
    if measure == "dcg":
        return dcg(scores, labels, offsets, None)
    return err(scores, labels, offsets, None, max_grade=max_grade)


def copula_joint(probs, rho):
    """Every label vector and its probability under the one-factor copula: the integral over the
    query effect u of prod_z p(y_z | u), by scipy's adaptive quadrature."""
    n, g = probs.shape
    cum = np.clip(np.cumsum(probs, axis=1), 0.0, 1.0)
    cum[:, -1] = 1.0
    ys = np.array(list(itertools.product(range(g), repeat=n)), dtype=np.int64)

    def cond_cdf(u, z, k):  # p(y_z <= k | u)
        if k < 0:
            return 0.0
        if k >= g - 1:
            return 1.0
        return float(ndtr((ndtri(cum[z, k]) - np.sqrt(rho) * u) / np.sqrt(1.0 - rho)))

    weights = []
    for y in ys:
        def f(u, y=y):
            p = np.exp(-u * u / 2) / np.sqrt(2 * np.pi)
            for z, k in enumerate(y):
                p *= cond_cdf(u, z, k) - cond_cdf(u, z, k - 1)
            return p
        weights.append(integrate.quad(f, -12, 12, epsabs=1e-14, epsrel=1e-12, limit=200)[0])
    return ys, np.array(weights)


def random_probs(rng, n, g):
    return rng.dirichlet(np.full(g, 0.9), size=n)


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("rho", [0.15, 0.5])
def test_moments_match_enumeration_of_the_copula(measure, rho):
    rng = np.random.default_rng(7)
    probs = random_probs(rng, 4, 3)
    ranking = np.array([2, 0, 3, 1])
    ys, w = copula_joint(probs, rho)
    assert w.sum() == pytest.approx(1.0, abs=1e-9)
    v = values_of(measure, ys, ranking, 2)
    want_mean = float(np.dot(w, v))
    want_var = float(np.dot(w, (v - want_mean) ** 2))
    mean, var = batch_mean_var_factor(probs, np.array([0, 4]), ranking, measure, rho, nodes=48)
    assert mean[0] == pytest.approx(want_mean, rel=1e-8)
    assert var[0] == pytest.approx(want_var, rel=1e-7)
    # the correlation adds variance beyond Theorem 3's independent labels
    assert var[0] > batch_mean_var(probs, np.array([0, 4]), ranking, measure)[1][0] * 1.05


@pytest.mark.parametrize("measure", MEASURES)
def test_moments_match_monte_carlo_of_the_generative_model(measure):
    """y_z = F_z^{-1}(Phi(sqrt(rho) u + sqrt(1 - rho) e_z)): no conditional formula used."""
    rng = np.random.default_rng(11)
    probs, rho, n_draws = random_probs(rng, 6, 5), 0.3, 200_000
    ranking = np.array([5, 1, 0, 4, 2, 3])
    u = rng.standard_normal((n_draws, 1))
    e = rng.standard_normal((n_draws, 6))
    unif = ndtr(np.sqrt(rho) * u + np.sqrt(1 - rho) * e)
    cum = np.cumsum(probs, axis=1)
    ys = np.stack([np.minimum(np.searchsorted(cum[z], unif[:, z]), 4) for z in range(6)], axis=1)
    v = values_of(measure, ys, ranking, 4)
    mean, var = batch_mean_var_factor(probs, np.array([0, 6]), ranking, measure, rho)
    se_mean = v.std() / np.sqrt(n_draws)
    se_var = np.sqrt(np.mean((v - v.mean()) ** 4) - v.var() ** 2) / np.sqrt(n_draws)
    assert abs(mean[0] - v.mean()) < 4 * se_mean
    assert abs(var[0] - v.var()) < 4 * se_var


def test_marginals_are_kept_and_rho_zero_is_theorem3():
    rng = np.random.default_rng(3)
    probs = random_probs(rng, 30, 5)
    probs[0] = [0, 0, 1, 0, 0]
    probs[1] = [0.5, 0, 0, 0, 0.5]
    u, w = np.polynomial.hermite_e.hermegauss(40)
    w = w / w.sum()
    mixed = sum(wk * factor_probs(probs, 0.4, uk) for uk, wk in zip(u, w))
    np.testing.assert_allclose(mixed, probs, atol=1e-9)
    np.testing.assert_allclose(factor_probs(probs, 0.4, 1.3).sum(axis=1), 1.0, atol=1e-12)
    offsets, order = np.array([0, 12, 30]), rng.permutation(30)
    order = np.concatenate([np.sort(order[:12]), order[12:]])
    for m in MEASURES:
        want = batch_mean_var(probs, offsets, order, m)
        got = batch_mean_var_factor(probs, offsets, order, m, 0.0)
        assert np.array_equal(want[0], got[0]) and np.array_equal(want[1], got[1])
    # DCG is linear: its mean does not move with the correlation
    np.testing.assert_allclose(batch_mean_var_factor(probs, offsets, order, "dcg", 0.6)[0],
                               batch_mean_var(probs, offsets, order, "dcg")[0], rtol=1e-9)


def test_factor_probs_are_the_numpy_formula_bit_for_bit():
    """The compiled differences of the running maximum give the doubles of the formula written in
    NumPy (cumulative marginals -> latent thresholds -> conditional cumulative -> differences),
    with rows whose cumulative probabilities reach 0 and 1 (infinite thresholds)."""
    rng = np.random.default_rng(9)
    probs = random_probs(rng, 500, 5)
    probs[:3] = [[0, 0, 1, 0, 0], [0.5, 0, 0, 0, 0.5], [1, 0, 0, 0, 0]]
    for rho, u in [(0.3, -1.7), (0.9, 2.4), (0.05, 0.0)]:
        cum = np.clip(np.cumsum(probs[:, :-1], axis=1), 0.0, 1.0)
        with np.errstate(divide="ignore"):
            cond = ndtr((ndtri(cum) - np.sqrt(rho) * u) / np.sqrt(1.0 - rho))
        full = np.concatenate([np.zeros((500, 1)), np.maximum.accumulate(cond, axis=1), np.ones((500, 1))], axis=1)
        assert np.array_equal(factor_probs(probs, rho, u), np.diff(full, axis=1))


@pytest.mark.parametrize("measure", MEASURES)
def test_difference_matches_enumeration(measure):
    rng = np.random.default_rng(5)
    probs, rho = random_probs(rng, 4, 3), 0.35
    ra, rb = np.array([0, 1, 2, 3]), np.array([3, 1, 0])
    ys, w = copula_joint(probs, rho)
    d = values_of(measure, ys, ra, 2) - values_of(measure, ys, rb, 2)
    want_mean = float(np.dot(w, d))
    mean, var = batch_difference_mean_var_factor(probs, np.array([0, 4]), ra, np.array([0, 3]), rb, measure, rho,
                                                 nodes=48)
    assert mean[0] == pytest.approx(want_mean, rel=1e-8, abs=1e-12)
    assert var[0] == pytest.approx(float(np.dot(w, (d - want_mean) ** 2)), rel=1e-7)


def _planted(rng, rho, n_queries=300, n_docs=25):
    """Queries whose labels are drawn from the copula with correlation rho around random marginals."""
    probs = random_probs(rng, n_queries * n_docs, 5)
    cum = np.cumsum(probs, axis=1)
    u = np.repeat(rng.standard_normal(n_queries), n_docs)
    unif = ndtr(np.sqrt(rho) * u + np.sqrt(1 - rho) * rng.standard_normal(u.size))
    labels = np.minimum((cum < unif[:, None]).sum(axis=1), 4)
    offsets = np.arange(n_queries + 1) * n_docs
    return probs, labels, offsets, np.arange(offsets[-1])


@pytest.mark.parametrize("measure,planted", [("dcg", 0.3), ("dcg", 0.0), ("err", 0.4)])
def test_fit_recovers_a_planted_correlation(measure, planted):
    # ERR's variance moves little with rho (the top documents dominate): more, shorter queries
    size = dict(n_queries=1500, n_docs=10) if measure == "err" else {}
    probs, labels, offsets, order = _planted(np.random.default_rng(2024), planted, **size)
    rho = fit_factor_correlation(probs, labels, offsets, order, measure, max_grade=4, nodes=24)
    tol = 0.08 if measure == "err" else 0.06
    assert abs(rho - planted) < tol, (rho, planted)
    # the split: the marginals are right, so the within-document part matches Theorem 3's variance;
    # the planted correlation shows up as the cross-document part only
    split = variance_split(labels, probs, offsets, order, measure, max_grade=4)
    assert 0.85 < split["ratio_within"] < 1.15
    if planted > 0:
        assert split["ratio_cross"] > 0.2 and split["ratio_squared_error"] > 1.2
    else:
        assert abs(split["ratio_cross"]) < 0.2


@pytest.mark.parametrize("measure", MEASURES)
def test_doob_increments_sum_to_the_error_and_square_to_theorem3(measure):
    rng = np.random.default_rng(9)
    probs = random_probs(rng, 5, 3)
    ranking = np.array([4, 2, 0, 1, 3])
    ys = np.array(list(itertools.product(range(3), repeat=5)), dtype=np.int64)
    w = np.prod(probs[np.arange(5), ys], axis=1)
    v = values_of(measure, ys, ranking, 2)
    mean, var = batch_mean_var(probs, np.array([0, 5]), ranking, measure)
    sq = np.empty(len(ys))
    for i, y in enumerate(ys):
        d = doob_increments(y, probs, np.array([0, 5]), ranking, measure, max_grade=2)
        assert d.sum() == pytest.approx(v[i] - mean[0], abs=1e-12)
        sq[i] = np.dot(d, d)
    assert float(np.dot(w, sq)) == pytest.approx(var[0], rel=1e-12)


def test_input_checks():
    probs = np.full((3, 3), 1 / 3)
    with pytest.raises(ValueError, match="rho"):
        batch_mean_var_factor(probs, np.array([0, 3]), np.arange(3), "dcg", 1.0)
    with pytest.raises(TypeError, match="rho"):
        factor_probs(probs, "0.2", 0.0)
    with pytest.raises(ValueError, match="nodes"):
        batch_mean_var_factor(probs, np.array([0, 3]), np.arange(3), "err", 0.2, nodes=0)
    with pytest.raises(ValueError, match="measure"):
        fit_factor_correlation(probs, np.zeros(3, int), np.array([0, 3]), np.arange(3), "ndcg", max_grade=2)
