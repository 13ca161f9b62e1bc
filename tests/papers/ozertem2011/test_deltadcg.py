"""ΔDCG moments (Ozertem et al. 2011, eqs. 5-8) against Monte Carlo and exact enumeration."""

import itertools
import math

import numpy as np
import pytest

from evalrank.papers.ozertem2011.deltadcg import (check_tops, dcg_moments, delta_dcg, discount_difference,
                                      printed_eq6_variance, summarize_test, summarize_tests)
from evalrank.papers.ozertem2011.grades import PEGFB, grade_moments

A = PEGFB.a


def _random_test(rng, n_rows=6, k=5):
    """Rows mixing: unchanged lists, swaps, shifts, new pairs, short lists."""
    nov, base = np.full((n_rows, k), -1), np.full((n_rows, k), -1)
    nxt = 0
    for q in range(n_rows):
        pool = np.arange(nxt, nxt + 2 * k)
        nxt += 2 * k
        b = pool[:k].copy()
        kind = q % 4
        if kind == 0:       # same list except ranks 2 and 4 swapped: ranks 1, 3, 5 cancel
            n = b.copy()
            n[[1, 3]] = n[[3, 1]]
        elif kind == 1:     # shifted by one with a new pair on top
            n = np.concatenate([[pool[k]], b[:-1]])
        elif kind == 2:     # random subset of the pool
            n = rng.permutation(pool)[:k]
        else:               # shorter lists
            n = b[:3][::-1].copy()
            b = b[:4]
        nov[q, :len(n)], base[q, :len(b)] = n, b
    return nov, base, nxt


def _delta_loop(g_values, nov, base, k):
    """Per-row ΔDCG for every draw: a plain loop (g_values: (n_draws, n_pairs))."""
    out = np.zeros((g_values.shape[0], nov.shape[0]))
    for q in range(nov.shape[0]):
        for r in range(min(k, nov.shape[1])):
            if nov[q, r] >= 0:
                out[:, q] += g_values[:, nov[q, r]] / math.log2(r + 2)
        for r in range(min(k, base.shape[1])):
            if base[q, r] >= 0:
                out[:, q] -= g_values[:, base[q, r]] / math.log2(r + 2)
    return out


def test_delta_dcg_matches_monte_carlo():
    rng = np.random.default_rng(11)
    nov, base, n_pairs = _random_test(rng)
    pdfs = rng.dirichlet(np.full(5, 0.7), size=n_pairs)
    mean, var = grade_moments(pdfs)
    E, V = delta_dcg(mean, var, nov, base, k=5)
    N = 200_000
    cdf = np.cumsum(pdfs, axis=1)
    cdf[:, -1] = 1.0
    u = rng.random((N, n_pairs))
    grades = (u[:, :, None] > cdf[None, :, :]).sum(axis=2)       # inverse cdf, independent per pair
    draws = _delta_loop(A[grades], nov, base, 5)
    mc_mean, mc_var = draws.mean(0), draws.var(0, ddof=1)
    m4 = ((draws - mc_mean) ** 4).mean(0)
    se_mean = np.sqrt(V / N)
    se_var = np.sqrt(np.maximum(m4 - mc_var**2, 0) / N)             # asymptotic SE of the sample variance
    assert np.all(np.abs(mc_mean - E) <= 5 * se_mean + 1e-12)
    assert np.all(np.abs(mc_var - V) <= 5 * se_var + 1e-12)
    assert V[0] > 0 and np.all(V > 0)
    # the test's average over rows: independent rows, var = sum Var / n^2
    s = summarize_test(E, V)
    avg = draws.mean(1)
    assert abs(avg.mean() - s["delta"]) <= 5 * s["sd"] / np.sqrt(N)
    assert abs(avg.var(ddof=1) / s["var"] - 1) < 0.03


def test_delta_and_dcg_exact_enumeration():
    # two rows, six pairs: row 0 D=(0,1,2) D'=(1,0,3); row 1 D=(4,5) D'=(5,-1)
    nov = np.array([[0, 1, 2], [4, 5, -1]])
    base = np.array([[1, 0, 3], [5, -1, -1]])
    rng = np.random.default_rng(3)
    pdfs = rng.dirichlet(np.ones(5), size=6)
    mean, var = grade_moments(pdfs)
    E, V = delta_dcg(mean, var, nov, base, k=5)
    dE_n, dV_n = dcg_moments(mean, var, nov, k=5)
    ex_mean, ex_sq = np.zeros(2), np.zeros(2)
    dcg_mean, dcg_sq = np.zeros(2), np.zeros(2)
    for combo in itertools.product(range(5), repeat=6):
        p = np.prod(pdfs[np.arange(6), combo])
        g = A[list(combo)][None, :]
        d = _delta_loop(g, nov, base, 5)[0]
        dc = _delta_loop(g, nov, np.full_like(base, -1), 5)[0]
        ex_mean += p * d
        ex_sq += p * d * d
        dcg_mean += p * dc
        dcg_sq += p * dc * dc
    np.testing.assert_allclose(E, ex_mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(V, ex_sq - ex_mean**2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(dE_n, dcg_mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(dV_n, dcg_sq - dcg_mean**2, rtol=0, atol=1e-12)
    # the printed eq. 6 is not the variance
    printed = printed_eq6_variance(mean, var, nov, k=5)
    assert np.all(np.abs(printed - (dcg_sq - dcg_mean**2)) > 0.5)


def test_printed_eq6_can_be_negative():
    # exact grades (zero variance): the true Var(DCG) is 0, the printed eq. 6 gives -E^2
    top = np.array([[0, 1, 2]])
    mean, var = np.array([4.0, 3.0, 2.0]), np.zeros(3)
    E, V = dcg_moments(mean, var, top, k=5)
    assert V[0] == 0.0
    printed = printed_eq6_variance(mean, var, top, k=5)
    assert printed[0] == pytest.approx(-E[0] ** 2)
    assert printed[0] < -10


def test_same_rank_pair_cancels():
    nov = np.array([[0, 1, 2, 3]])
    base = np.array([[4, 1, 3, 5]])   # pair 1 at rank 2 on both sides; pair 3 moves
    mean = np.array([1.0, 2.0, 3.0, 1.5, 0.5, 2.5])
    var = np.array([0.3, 0.4, 0.5, 0.6, 0.7, 0.2])
    rows, pids, dd = discount_difference(nov, base, k=5)
    assert list(pids) == [0, 1, 2, 3, 4, 5] and dd[1] == 0.0
    np.testing.assert_allclose(dd[3], 1 / np.log2(5) - 1 / np.log2(4))
    E1, V1 = delta_dcg(mean, var, nov, base)
    mean2, var2 = mean.copy(), var.copy()
    mean2[1], var2[1] = 4.0, 100.0
    E2, V2 = delta_dcg(mean2, var2, nov, base)
    assert E1[0] == E2[0] and V1[0] == V2[0]
    # a same-rank pair needs no grade; a moved one does
    mean2[1] = var2[1] = np.nan
    assert delta_dcg(mean2, var2, nov, base)[1][0] == V1[0]
    mean2[3] = np.nan
    with pytest.raises(ValueError, match="1 needed pair"):
        delta_dcg(mean2, var2, nov, base)
    # the variance drops by exactly pair 1's variance term when it stops cancelling
    base3 = np.array([[4, 3, 1, 5]])
    _, V3 = delta_dcg(mean, var, nov, base3)
    _, pids3, dd3 = discount_difference(nov, base3)
    assert V3[0] == pytest.approx(np.sum(var[pids3] * dd3**2))
    assert V3[0] > V1[0]


def test_cutoff_ignores_deeper_ranks():
    nov = np.array([[0, 1, 2]])
    base = np.array([[0, 2, 1]])
    mean, var = np.array([1.0, 2.0, 4.0]), np.ones(3)
    E, V = delta_dcg(mean, var, nov, base, k=1)
    assert E[0] == 0 and V[0] == 0
    E2, _ = delta_dcg(mean, var, nov, base, k=2)
    assert E2[0] == pytest.approx((2.0 - 4.0) / np.log2(3))


def test_summaries():
    s = summarize_test([1.0, 2.0, 3.0], [0.1, 0.1, 0.1])
    assert s["delta"] == 2.0 and s["var"] == pytest.approx(0.3 / 9) and s["call"] == "+"
    assert summarize_test([-1.0, -1.0], [0.01, 0.01])["call"] == "-"
    assert summarize_test([0.1, -0.05], [1.0, 1.0])["call"] == "?"
    E = np.array([1.0, 2.0, 3.0, -1.0, -1.0, 0.1, -0.05])
    V = np.array([0.1, 0.1, 0.1, 0.01, 0.01, 1.0, 1.0])
    t = np.array([0, 0, 0, 1, 1, 2, 2])
    m = summarize_tests(E, V, t, 4)
    for j in range(3):
        one = summarize_test(E[t == j], V[t == j])
        assert m["delta"][j] == pytest.approx(one["delta"]) and m["var"][j] == pytest.approx(one["var"])
        assert m["call"][j] == one["call"]
    assert m["n_rows"][3] == 0 and np.isnan(m["delta"][3]) and m["call"][3] == "?"
    assert list(m["call"]) == ["+", "-", "?", "?"]


def test_validation_errors():
    nov = np.array([[0, 1]])
    base = np.array([[1, 2]])
    mean, var = np.ones(3), np.ones(3)
    with pytest.raises(TypeError, match="novel_top"):
        delta_dcg(mean, var, nov.astype(float), base)
    with pytest.raises(ValueError, match="base_top: 2 rows"):
        delta_dcg(mean, var, nov, np.array([[1, 2], [-1, -1]]))
    with pytest.raises(ValueError, match="novel_top: pair 0 appears 2 times"):
        delta_dcg(mean, var, np.array([[0, 0]]), base)
    with pytest.raises(ValueError, match="a pair belongs to one query"):
        check_tops(np.array([[0, -1], [1, -1]]), np.array([[1, -1], [0, -1]]))
    with pytest.raises(ValueError, match=">= 0, or -1"):
        delta_dcg(mean, var, np.array([[0, -2]]), base)
    with pytest.raises(ValueError, match="mean: 3 pairs"):
        delta_dcg(mean, var, np.array([[0, 5]]), base)
    with pytest.raises(ValueError, match="var: shape"):
        delta_dcg(mean, np.ones(2), nov, base)
    with pytest.raises(ValueError, match="negative variance"):
        delta_dcg(mean, np.array([1.0, 1.0, -1.0]), nov, base)
    with pytest.raises(ValueError, match="k: must be >= 1"):
        delta_dcg(mean, var, nov, base, k=0)
    with pytest.raises(TypeError, match="k:"):
        delta_dcg(mean, var, nov, base, k=2.0)
    with pytest.raises(ValueError, match="1 needed pair"):
        dcg_moments(np.array([1.0, np.nan, 1.0]), var, nov)
    with pytest.raises(ValueError, match="E_rows"):
        summarize_test([], [])
    with pytest.raises(ValueError, match="z:"):
        summarize_test([1.0], [1.0], z=-1)
    with pytest.raises(ValueError, match="test_of_row"):
        summarize_tests([1.0], [1.0], [3], 2)
