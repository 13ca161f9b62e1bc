"""Wang et al. (2013) limits: the canonical gain curve g(s) against Monte Carlo,
the quadrature against independent closed forms, and two limits against the
empirical NDCG of large i.i.d. samples (tolerance from the standard error)."""

import numpy as np
import pytest
from numpy.polynomial.legendre import leggauss

from evalrank.metrics import ndcg
from evalrank.papers.wang2013 import EmpiricalPopulation, LogisticPopulation, Scorer, ndcg_limit
from evalrank.papers.wang2013.limits import family

GRADED = LogisticPopulation(5.0, [0.3, 0.6, 0.85])      # 4 grades, gain 2^y - 1
BINARY = LogisticPopulation(6.0, [0.5])


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _gauss(f, a, b, n=400):
    x, w = leggauss(n)
    t = 0.5 * (b - a) * x + 0.5 * (a + b)
    return 0.5 * (b - a) * np.sum(w * f(t))


def test_g_and_marginals_against_monte_carlo():
    rng = np.random.default_rng(11)
    N = 400_000
    for sc in (Scorer(0.7), Scorer(0.3, reverse=True), Scorer(1.0)):
        scores, grades = GRADED.sample(N, [sc], rng)
        s = (np.argsort(np.argsort(scores[0])) + 0.5) / N          # canonical score = empirical CDF
        gain = GRADED.gains[grades]
        bins = np.minimum((s * 20).astype(int), 19)
        for b in range(20):
            m = bins == b
            se = gain[m].std(ddof=1) / np.sqrt(m.sum())
            assert abs(gain[m].mean() - GRADED.g(s[m], sc).mean()) < 4.5 * se + 2e-3, (sc, b)
    freq = np.bincount(grades, minlength=4) / N
    tail = np.cumsum(freq[::-1])[::-1]
    np.testing.assert_allclose(GRADED.tail(), tail, atol=4 * np.sqrt(0.25 / N))


def test_binary_limits_equal_the_closed_forms():
    """wang2013-limits.md, binary case, for the scorer ranking by u: y(s) = sigmoid(b (s - tau))."""
    b, tau = 6.0, 0.5
    y = lambda s: _sigmoid(b * (s - tau))
    p = (np.log1p(np.exp(b * (1 - tau))) - np.log1p(np.exp(-b * tau))) / b
    for beta in (0.2, 0.5, 0.8):
        # (1-beta) int y(s)(1-s)^-beta ds / p^(1-beta); x = (1-s)^(1-beta) removes the singularity
        closed = _gauss(lambda x: y(1 - x ** (1 / (1 - beta))), 0.0, 1.0) / p ** (1 - beta)
        assert ndcg_limit(BINARY, Scorer(1.0), f"poly:{beta}").value == pytest.approx(closed, rel=1e-9)
    for c in (0.1, 0.3, 0.9):
        closed = _gauss(y, 1 - c, 1.0) / min(c, p)
        assert ndcg_limit(BINARY, Scorer(1.0), "log2", f"frac:{c}").value == pytest.approx(closed, rel=1e-9)
    top = ndcg_limit(BINARY, Scorer(1.0), "zipf")
    assert top.value == pytest.approx(y(1.0), rel=1e-12) and top.theorem == "Theorem 5"
    assert ndcg_limit(BINARY, Scorer(1.0), "log", "pow:0.5").value == pytest.approx(y(1.0), rel=1e-12)
    assert ndcg_limit(BINARY, Scorer(0.0), "zipf").value == pytest.approx(p, rel=1e-12)   # random: mean gain


def test_graded_poly_limit_against_an_independent_quadrature():
    """The general limit (Theorem 10) by Gauss-Legendre on t = (1-s)^(1-beta)
    of g averaged over the scorer's interval by brute force, not quad."""
    sc, beta = Scorer(0.6), 0.5
    g = lambda s: GRADED.g(s, sc)
    h = lambda x: g(1 - x ** (1 / (1 - beta)))
    knots = np.r_[0.0, np.sort((1 - GRADED.breakpoints(sc)) ** (1 - beta)), 1.0]   # g's kinks, in x
    num = sum(_gauss(h, a, b, n=200) for a, b in zip(knots[:-1], knots[1:])) / (1 - beta)
    T = np.r_[GRADED.tail(), 0.0]
    den = sum(G * (T[j] ** (1 - beta) - T[j + 1] ** (1 - beta)) / (1 - beta) for j, G in enumerate(GRADED.gains))
    assert ndcg_limit(GRADED, sc, "poly:0.5").value == pytest.approx(num / den, rel=1e-9)


def test_no_limit_rows_and_the_table_gaps():
    for d, k in (("poly:2", None), ("geometric:0.5", None), ("log2", 10), ("poly:0.5", 10), ("poly:1.5", "frac:0.5")):
        L = ndcg_limit(GRADED, Scorer(0.7), d, k)
        assert not L.exists and L.theorem == "Theorem 6"
    assert ndcg_limit(GRADED, Scorer(0.2), "log").value == 1.0
    assert ndcg_limit(GRADED, Scorer(0.2), "log", "frac:1").value == pytest.approx(1.0, rel=1e-9)
    assert family("poly:1") == ("zipf", None) and family("log:10") == ("log", None)
    with pytest.raises(ValueError, match="Zipf with k = c n"):
        ndcg_limit(GRADED, Scorer(0.7), "zipf", "frac:0.5")


def _empirical(pop, sc, discount, k, n, R, seed):
    scores, grades = pop.sample(n * R, [sc], np.random.default_rng(seed))
    v = ndcg(scores[0], grades, np.arange(0, n * R + 1, n), k, discount=discount)
    return v.mean(), v.std(ddof=1) / np.sqrt(R)


@pytest.mark.parametrize("discount, k", [("poly:0.5", None), ("poly:0.5", "frac:0.3")])
def test_two_limits_against_empirical_ndcg(discount, k):
    """n = 50,000, R = 20 samples: the empirical mean lies within 4 standard
    errors of the limit (measured finite-n bias at this n: under 1.5 SE), and
    a scorer with a different limit is many SEs away -- the test can fail."""
    sc = Scorer(0.7)
    mean, se = _empirical(GRADED, sc, discount, k, 50_000, 20, seed=3)
    assert se < 2e-3
    assert abs(mean - ndcg_limit(GRADED, sc, discount, k).value) < 4 * se
    assert abs(mean - ndcg_limit(GRADED, Scorer(1.0), discount, k).value) > 8 * se


def test_empirical_population_limits():
    rng = np.random.default_rng(5)
    scores, grades = GRADED.sample(300_000, [Scorer(1.0)], rng)
    emp = EmpiricalPopulation(scores[0], grades)
    # (with beta near 1 the top few pool documents weigh a lot: the pool's own noise, ~ N^-(1-beta))
    for d, k in (("poly:0.5", None), ("log2", "frac:0.3"), ("poly:0.5", "frac:0.2")):
        assert ndcg_limit(emp, None, d, k).value == pytest.approx(ndcg_limit(GRADED, Scorer(1.0), d, k).value,
                                                                  abs=0.01)
    # a tiny pool: g is a step function, the limit a finite sum -- against a fine midpoint rule
    emp = EmpiricalPopulation(np.array([0.1, 0.5, 0.5, 0.9, 0.3]), np.array([0, 2, 0, 1, 1]))
    m = 2_000_000
    s = (np.arange(m) + 0.5) / m
    num = np.mean(emp.g(s) * (1 - s) ** -0.5)
    T = np.r_[emp.tail(), 0.0]
    t = (np.arange(m) + 0.5) / m
    Q = emp.gains[np.searchsorted(-T[1:], -t, side="right")]
    den = np.mean(Q * t ** -0.5)
    assert ndcg_limit(emp, None, "poly:0.5").value == pytest.approx(num / den, rel=2e-3)
    assert emp.g(np.array([0.45, 0.55])).tolist() == [1.5, 1.5]     # the tied 0.5s share their mean gain


def test_bad_arguments():
    with pytest.raises(ValueError, match="slope"):
        LogisticPopulation(0.0, [0.5])
    with pytest.raises(ValueError, match="thresholds"):
        LogisticPopulation(1.0, [0.5, 0.2])
    with pytest.raises(ValueError, match="weight"):
        Scorer(1.5)
    with pytest.raises(ValueError, match="grades"):
        EmpiricalPopulation(np.array([0.1, 0.2]), np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="discount"):
        ndcg_limit(GRADED, Scorer(0.5), "cosine")
