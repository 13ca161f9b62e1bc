"""The campaign's estimators (evalrank.active.estimators) and the floor under q* (sampling.defensive)."""

import numpy as np
import pytest

from evalrank.active.estimators import aipw, aipw_terms, eq6
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
