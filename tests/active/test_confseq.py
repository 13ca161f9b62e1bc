"""Confidence sequences (evalrank.active.confseq): the formulas against independent computations,
and time-uniform coverage by simulation."""

import math

import numpy as np
import pytest

from evalrank.active import confseq


def test_mixture_margin_is_theorem_2_2_and_rho_is_near_optimal_at_t_star():
    alpha, t_star = 0.05, 200
    rho2 = confseq.best_rho2(t_star, alpha)
    # Howard et al. (2021) eq. (3.12), typed independently
    assert rho2 == pytest.approx((-2 * math.log(alpha) + math.log(-2 * math.log(alpha) + 1)) / t_star)
    t = 37
    by_hand = math.sqrt(2 * (t * rho2 + 1) / (t * t * rho2) * math.log(math.sqrt(t * rho2 + 1) / alpha))
    assert confseq.mixture_margin(t, rho2, alpha) == pytest.approx(by_hand, rel=1e-12)
    # the tuned rho2 is within 1 % of the best margin at t* over a fine grid
    grid = np.geomspace(rho2 / 30, rho2 * 30, 4001)
    best = confseq.mixture_margin(t_star, grid, alpha).min()
    assert confseq.mixture_margin(t_star, rho2, alpha) <= 1.01 * best


def test_asymptotic_cs_half_width_from_its_parts():
    rng = np.random.default_rng(3)
    psi = rng.gamma(0.5, 2.0, size=60)
    out = confseq.asymptotic_cs(psi, level=0.95, t_star=40, var_floor=0.7)
    a = confseq.BOUNDARY_ALPHA_SHARE * 0.05
    rho2 = confseq.best_rho2(40, a)
    from scipy import stats

    for t in (2, 10, 60):
        x = psi[:t]
        s2 = x.var(ddof=1)
        pooled = ((t - 1) * s2 + confseq.FLOOR_TERMS * 0.7) / (t - 1 + confseq.FLOOR_TERMS)
        want = math.sqrt(pooled) * confseq.mixture_margin(t, rho2, a) * stats.t.ppf(1 - a / 2, t - 1) / stats.norm.ppf(
            1 - a / 2)
        assert out["half"][t - 1] == pytest.approx(want, rel=1e-9)
        assert out["estimate"][t - 1] == pytest.approx(x.mean(), rel=1e-12)
    assert np.isinf(confseq.asymptotic_cs(psi, t_star=40)["half"][0])


@pytest.mark.parametrize("dist", ["normal", "skewed"])
def test_asymptotic_cs_covers_at_every_look(dist):
    """Time-uniform: the share of sequences whose interval covers the mean at every t from 10
    to 500 is at least the nominal 95 % (and a fixed-n t interval looked at every t is not)."""
    rng = np.random.default_rng(11)
    R, T = 1000, 500
    x = rng.normal(size=(R, T)) if dist == "normal" else rng.exponential(size=(R, T)) - 1.0
    t = np.arange(1, T + 1)
    mean = np.cumsum(x, 1) / t
    s2 = np.maximum(np.cumsum(x * x, 1) - t * mean ** 2, 0) / np.maximum(t - 1, 1)
    a = confseq.BOUNDARY_ALPHA_SHARE * 0.05
    half = confseq.cs_half_width(t, s2, confseq.best_rho2(200, a), a)
    start = 9 if dist == "normal" else 49      # an asymptotic sequence: the skewed terms need some draws
    ok = (np.abs(mean) <= half)[:, start:].all(axis=1).mean()
    assert ok >= 0.95
    from scipy import stats

    t_half = stats.t.ppf(0.975, np.maximum(t - 1, 1)) * np.sqrt(s2 / t)
    assert (np.abs(mean) <= t_half)[:, 9:].all(axis=1).mean() < 0.8   # peeking breaks the t interval


def _capital(x, m, lam, c=0.5):
    """Hedged capital at candidate mean m by a plain loop (independent of the vectorized code)."""
    kp = km = 1.0
    out = []
    for xi, li in zip(x, lam):
        kp *= 1 + min(li, c / m) * (xi - m)
        km *= 1 - min(li, c / (1 - m)) * (xi - m)
        out.append(max(kp, km) / 2)
    return np.array(out)


def test_betting_cs_rejects_exactly_where_the_capital_crosses_one_over_alpha():
    rng = np.random.default_rng(5)
    x = rng.beta(2, 5, size=80)
    out = confseq.betting_cs(x, 0.0, 1.0, level=0.9, grid=400)
    t = np.arange(1, x.size + 1)
    mu = (0.5 + np.cumsum(x)) / (t + 1)
    sig2 = (0.25 + np.cumsum((x - mu) ** 2)) / (t + 1)
    lam = np.sqrt(2 * math.log(2 / 0.1) / (np.concatenate(([0.25], sig2[:-1])) * t * np.log1p(t)))
    for m in (out["ci_low"][-1] - 0.01, out["ci_high"][-1] + 0.01):
        assert (np.maximum.accumulate(_capital(x, m, lam)) >= 10).any()
    mid = (out["ci_low"][-1] + out["ci_high"][-1]) / 2
    assert (_capital(x, mid, lam) < 10).all()
    assert (np.diff(out["ci_low"]) >= -1e-12).all() and (np.diff(out["ci_high"]) <= 1e-12).all()


def test_betting_cs_is_valid_at_every_look_and_refuses_terms_outside_its_range():
    rng = np.random.default_rng(8)
    hits = 0
    for _ in range(600):
        x = (rng.random(150) < 0.3137).astype(float)
        out = confseq.betting_cs(x, 0.0, 1.0, grid=500)
        hits += bool(((out["ci_low"] <= 0.3137) & (0.3137 <= out["ci_high"])).all())
    assert hits / 600 >= 0.95
    with pytest.raises(ValueError, match="outside the range"):
        confseq.betting_cs(np.array([0.5, 1.5]), 0.0, 1.0)
    with pytest.raises(ValueError, match="level"):
        confseq.asymptotic_cs(np.ones(3), level=1.5, t_star=3)


def test_small_sample_factor_is_scipy_stats_quantiles_exactly_without_importing_scipy_stats():
    """The factor comes from scipy.special's kernels: bit for bit what scipy.stats' t and normal
    quantiles give (the active stage's outputs must not change), and a process computing it
    does not import scipy.stats."""
    import subprocess
    import sys

    from scipy import stats

    t = np.concatenate([np.arange(1.0, 3000.0), [1e4, 1e5, 2.5e5]])
    for alpha in (0.8 * 0.05, 0.8 * 0.1, 0.05, 0.001, 0.3):
        want = stats.t.ppf(1.0 - alpha / 2, np.maximum(t - 1.0, 1.0)) / stats.norm.ppf(1.0 - alpha / 2)
        np.testing.assert_array_equal(confseq.small_sample_factor(t, alpha), want)
    assert confseq.small_sample_factor(10, 0.05) == pytest.approx(2.262157 / 1.959964, rel=1e-6)  # printed tables
    code = ("import sys; from evalrank.active import confseq; confseq.small_sample_factor([2.0, 9.0], 0.04); "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cs_half_width_with_its_factors_given_is_the_same():
    rng = np.random.default_rng(1)
    t = np.arange(1.0, 301.0)
    s2 = rng.gamma(1.0, size=(6, 300))
    rho2 = np.array([confseq.best_rho2(ts, 0.04) for ts in (2, 10, 50, 100, 200, 300)])[:, None]
    factors = (confseq.mixture_margin(t, rho2, 0.04), confseq.small_sample_factor(t, 0.04))
    for floor in (0.0, 0.3):
        want = confseq.cs_half_width(t, s2, rho2, 0.04, floor)
        np.testing.assert_array_equal(confseq.cs_half_width(t, s2, rho2, 0.04, floor, factors=factors), want)
        # and against the formula typed out at one point
        k, j = 3, 40
        pooled = (j * s2[k, j] + confseq.FLOOR_TERMS * floor) / (j + confseq.FLOOR_TERMS)
        by_hand = math.sqrt(pooled) * math.sqrt(2 * (41 * rho2[k, 0] + 1) / (41 * 41 * rho2[k, 0])
                                                * math.log(math.sqrt(41 * rho2[k, 0] + 1) / 0.04))
        from scipy import stats
        by_hand *= stats.t.ppf(1 - 0.02, 40) / stats.norm.ppf(1 - 0.02)
        assert want[k, j] == pytest.approx(by_hand, rel=1e-12)
