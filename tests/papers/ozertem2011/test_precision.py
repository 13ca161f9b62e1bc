"""What the clicks study's tables resolve (evalrank.papers.ozertem2011.precision), each against an
independent computation: scipy's sem and pearsonr, the delta method written out term by term, a
Monte Carlo, pandas' group means, numpy's polyfit."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalrank.papers.ozertem2011 import precision


def test_mean_se_is_scipys_sem_over_finite_values():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 40))
    x[1, :5] = np.nan
    got = precision.mean_se(x)
    for i in range(3):
        assert got[i] == pytest.approx(stats.sem(x[i][np.isfinite(x[i])]), rel=1e-12)
    assert np.isnan(precision.mean_se([1.0, np.nan]))


def test_ratio_se_is_the_delta_method_written_out():
    rng = np.random.default_rng(2)
    a = rng.normal(2.0, 1.0, 200)
    b = 0.5 * a + rng.normal(3.0, 1.0, 200)
    n, ma, mb = a.size, a.mean(), b.mean()
    va, vb, cab = a.var(ddof=1), b.var(ddof=1), np.cov(a, b, ddof=1)[0, 1]
    var = (va / mb ** 2 - 2 * ma * cab / mb ** 3 + ma ** 2 * vb / mb ** 4) / n
    assert precision.ratio_se(a, b) == pytest.approx(np.sqrt(var), rel=1e-9)


def test_mse_ratio_se_matches_a_monte_carlo():
    """The sd of the MSE ratio over 2,000 redraws of 500 paired errors, against the formula's."""
    rng = np.random.default_rng(np.random.SeedSequence(2011))

    def draw():
        r = rng.normal(0, 1.0, 500)
        return 0.9 * r + rng.normal(0, 0.3, 500), r

    ratios = [precision.mse_ratio(*draw())[0] for _ in range(2000)]
    se = np.mean([precision.mse_ratio(*draw())[1] for _ in range(200)])
    assert np.std(ratios) == pytest.approx(se, rel=0.1)
    with pytest.raises(ValueError, match="same pairs"):
        precision.mse_ratio([1.0, 2.0], [1.0])


def test_per_test_correlations_against_pearsonr_loops():
    rng = np.random.default_rng(3)
    ro = np.array([0, 30, 55, 57, 90])     # test 3 has 2 queries: undefined
    n = ro[-1]
    truth = rng.normal(size=n)
    rows = {"a": (truth + rng.normal(size=n), None), "r1": (truth + rng.normal(size=n), None),
            "r2": (truth + rng.normal(size=n), None)}
    imp = rng.integers(0, 100, n)
    got = precision.per_test_correlations(rows, ro, imp, ["a"], ["r1", "r2"], thresholds=(50, 0))["a"]
    ia = precision.per_test_inter_annotator(rows, ro, imp, ["r1", "r2"], thresholds=(50, 0))
    for i, k in enumerate((50, 0)):
        for t in range(4):
            keep = np.arange(ro[t], ro[t + 1])[imp[ro[t]:ro[t + 1]] >= k]
            if keep.size < 3:
                assert np.isnan(got[i, t]) and np.isnan(ia[i, t])
                continue
            want = np.mean([stats.pearsonr(rows["a"][0][keep], rows[r][0][keep])[0] for r in ("r1", "r2")])
            assert got[i, t] == pytest.approx(want, abs=1e-12)
            assert ia[i, t] == pytest.approx(stats.pearsonr(rows["r1"][0][keep], rows["r2"][0][keep])[0], abs=1e-12)
    # signs
    s = precision.per_test_correlations(rows, ro, imp, ["a"], ["r1"], thresholds=(0,), sign=True)["a"]
    keep = np.arange(0, 30)
    assert s[0, 0] == pytest.approx(stats.pearsonr(np.sign(rows["a"][0][keep]), np.sign(rows["r1"][0][keep]))[0])


def test_between_query_share_is_the_anova_share():
    rng = np.random.default_rng(4)
    q = rng.integers(0, 20, 300)
    g = rng.integers(0, 5, 300) + (q % 3)
    d = pd.DataFrame({"g": g.astype(float), "q": q})
    between = (d.groupby("q")["g"].transform("mean") - d["g"].mean()) ** 2
    assert precision.between_query_share(g, q) == pytest.approx(between.sum() / ((d["g"] - d["g"].mean()) ** 2).sum())
    assert precision.between_query_share([1, 2, 1, 2], [0, 0, 1, 1]) == 0.0     # equal query means
    assert precision.between_query_share([1, 1, 3, 3], [0, 0, 1, 1]) == 1.0     # all between


def test_slope_is_polyfits():
    rng = np.random.default_rng(5)
    x = rng.normal(size=50)
    y = 0.3 * x + rng.normal(0, 0.1, 50)
    assert precision.slope(y, x) == pytest.approx(np.polyfit(x, y, 1)[0], rel=1e-10)
    assert np.isnan(precision.slope([1.0, 2.0], [1.0, 1.0]))
