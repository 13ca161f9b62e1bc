"""The campaign's estimators (evalrank.active.estimators) and the floor under q* (sampling.defensive)."""

import numpy as np
import pytest

from evalrank.active.estimators import aipw, aipw_terms, default_estimator, eq6, hajek, hajek_values
from evalrank.active.sampling import defensive, max_weight


def test_aipw_is_unbiased_whatever_the_label_model_exact_expectation_over_q():
    rng = np.random.default_rng(0)
    m = 40
    L = rng.gamma(0.3, 5.0, size=m)              # skewed per-query values
    q = rng.dirichlet(np.full(m, 0.3))
    for f in (L + rng.normal(0, 3, m), np.zeros(m), 2 * L + 1):   # a useful, a useless, a wrong model
        w = 1.0 / (m * q)
        psi = aipw_terms(w, L, f, f.mean())        # the term of every query, were it drawn
        assert np.dot(q, psi) == pytest.approx(L.mean(), rel=1e-12)


def test_aipw_and_eq6_by_hand():
    w, L, f = np.array([2.0, 0.5, 1.0]), np.array([3.0, 1.0, 0.0]), np.array([2.5, 1.5, 0.5])
    assert aipw(w, L, f, 1.25) == pytest.approx(1.25 + (2 * 0.5 + 0.5 * -0.5 + 1 * -0.5) / 3)
    assert eq6(w, L) == pytest.approx((6 + 0.5 + 0) / 3.5)
    with pytest.raises(ValueError, match="weights"):
        aipw(np.array([0.0, 1.0]), np.ones(2), np.ones(2), 0.0)
    with pytest.raises(ValueError, match="f_draws"):
        aipw_terms(np.ones(2), np.ones(2), np.ones(3), 0.0)


def test_hajek_by_hand_and_as_eq6_on_residuals():
    w, L, f = np.array([2.0, 0.5, 1.0]), np.array([3.0, 1.0, 0.0]), np.array([2.5, 1.5, 0.5])
    assert hajek(w, L, f, 1.25) == pytest.approx(1.25 + (2 * 0.5 + 0.5 * -0.5 + 1 * -0.5) / 3.5)
    assert hajek(w, L, f, 1.25) == pytest.approx(eq6(w, L - f + 1.25))
    assert np.array_equal(hajek_values(L, f, 1.25), L - f + 1.25)
    with pytest.raises(ValueError, match="f_draws"):
        hajek(np.ones(2), np.ones(2), np.ones(3), 0.0)
    with pytest.raises(ValueError, match="f_pool"):
        hajek(np.ones(2), np.ones(2), np.ones(2), float("nan"))


def test_hajek_is_exact_for_a_constant_offset_where_aipw_and_eq6_are_not():
    """A label model that misses every query by the same c: the normalized residual mean is c
    whatever the draws, so the estimate is the pool's mean; AIPW's (1/n) sum w c and eq. 6's
    ratio of the values themselves move with the draws."""
    rng = np.random.default_rng(1)
    m = 50
    f = rng.uniform(0, 1, m)
    L = f + 0.3
    q = rng.dirichlet(np.full(m, 0.5))
    d = rng.choice(m, size=12, p=q)
    w = 1.0 / (m * q[d])
    assert hajek(w, L[d], f[d], f.mean()) == pytest.approx(L.mean(), abs=1e-12)
    assert abs(aipw(w, L[d], f[d], f.mean()) - L.mean()) > 1e-3
    assert abs(eq6(w, L[d]) - L.mean()) > 1e-3


def test_hajek_is_consistent_monte_carlo():
    """The normalized estimator's bias is O(1/n): over 4,000 campaigns of n draws its mean error
    shrinks about n-fold from n = 5 to n = 400, and at n = 400 it is within 3 Monte Carlo se."""
    rng = np.random.default_rng(2)
    m = 60
    L = rng.gamma(0.5, 1.0, m)
    f = 0.5 * L + rng.normal(0, 0.3, m)
    q = 0.5 * (L + 0.1) / (L + 0.1).sum() + 0.5 / m
    errs = {}
    for n in (5, 400):
        d = rng.choice(m, size=(4000, n), p=q)
        w = 1.0 / (m * q[d])
        est = f.mean() + (w * (L[d] - f[d])).sum(1) / w.sum(1)
        errs[n] = (est.mean() - L.mean(), est.std() / np.sqrt(est.size))
    assert abs(errs[400][0]) < 3 * errs[400][1]
    assert abs(errs[5][0]) > 3 * errs[5][1]      # the small-sample bias is real ...
    assert abs(errs[400][0]) < abs(errs[5][0]) / 5   # ... and vanishes


def test_default_estimator_is_hajek_for_one_ranker_aipw_for_a_difference():
    assert default_estimator(False) == "hajek"
    assert default_estimator(True) == "aipw"
    with pytest.raises(TypeError, match="difference"):
        default_estimator("yes")


def test_defensive_mixture_bounds_every_weight():
    q = np.array([0.0, 1e-6, 0.5, 0.5 - 1e-6])
    assert max_weight(q) == np.inf
    for eps in (0.02, 0.1, 0.5):
        d = defensive(q, eps)
        assert d.sum() == pytest.approx(1.0)
        assert np.allclose(d, (1 - eps) * q / q.sum() + eps / q.size)
        assert max_weight(d) <= 1 / eps + 1e-9
    assert np.array_equal(defensive(q, 0.0), q / q.sum())
    with pytest.raises(ValueError, match="epsilon"):
        defensive(q, 1.5)
    with pytest.raises(TypeError, match="epsilon"):
        defensive(q, "0.1")
