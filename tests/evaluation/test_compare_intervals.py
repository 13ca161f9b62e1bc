"""The confidence intervals of evalrank.evaluation.compare (every mean and every delta):
the t interval against scipy.stats.t, the BCa bootstrap against scipy.stats.bootstrap on
the same draws and against a computation written out here, the table's columns against
those functions on the documented streams, and coverage by simulation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalrank import seeds
from evalrank.evaluation import compare as cmp
from evalrank.evaluation import stats as cmp_stats
from evalrank.evaluation.stats import _bootstrap_means, paired_t_test


def tidy(scores: dict[str, np.ndarray], measure: str = "m") -> pd.DataFrame:
    rows = [(run, f"q{j:03d}", measure, float(v)) for run, vs in scores.items() for j, v in enumerate(vs)]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


def row(table: pd.DataFrame, run: str, measure: str = "m") -> pd.Series:
    sel = table[(table["run"] == run) & (table["measure"] == measure)]
    assert len(sel) == 1
    return sel.iloc[0]


# ---------------------------------------------------------------------------
# the t interval
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n, level", [(2, 0.95), (3, 0.9), (17, 0.95), (50, 0.99)])
def test_t_interval_matches_scipy(n, level):
    x = np.random.default_rng(n).beta(0.5, 2.0, n)
    want = stats.t.interval(level, n - 1, loc=x.mean(), scale=stats.sem(x))
    np.testing.assert_allclose(cmp.t_interval(x, level), want, rtol=1e-12)


def test_t_interval_goes_with_the_t_test():
    """At level 1 - a the delta's interval excludes 0 exactly when ttest_p < a."""
    rng = np.random.default_rng(4)
    for _ in range(200):
        d = rng.normal(rng.normal(0, 0.05), 0.1, 12)
        low, high = cmp.t_interval(d, 0.95)
        assert (low > 0 or high < 0) == (paired_t_test(d, few="raise", equal=np.nan, tol=1e-10)[1] < 0.05)


def test_constant_values_give_a_point():
    for f in (lambda x: cmp.t_interval(x), lambda x: cmp.bootstrap_interval(x, rng=np.random.default_rng(0))):
        assert f(np.full(5, 0.25)) == (0.25, 0.25)
        assert f(np.zeros(3)) == (0.0, 0.0)
        low, high = f(np.array([0.3 - 0.1, 0.2, 0.2]))  # equal up to rounding
        assert low == high == pytest.approx(0.2)


# ---------------------------------------------------------------------------
# the BCa bootstrap
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n, level, resamples", [(5, 0.95, 2000), (40, 0.9, 999), (50, 0.95, 10_000)])
def test_bootstrap_equals_scipy_bca_on_the_same_draws(n, level, resamples):
    x = np.random.default_rng(n).beta(0.5, 2.0, n)
    mine = cmp.bootstrap_interval(x, level, resamples=resamples, rng=seeds.rng(3, "t", n))
    res = stats.bootstrap((x,), np.mean, confidence_level=level, n_resamples=resamples, method="BCa",
                          vectorized=True, rng=seeds.rng(3, "t", n))
    np.testing.assert_allclose(mine, tuple(res.confidence_interval), rtol=1e-12, atol=1e-15)


def _bca_by_hand(x: np.ndarray, level: float, resamples: int, rng: np.random.Generator) -> tuple[float, float]:
    """Efron & Tibshirani (1993), eqs. 14.9-14.15, written out with loops."""
    n = len(x)
    idx = rng.integers(0, n, size=(resamples, n))
    means = np.array([sum(x[i] for i in r) / n for r in idx])
    theta = x.mean()
    share = (np.sum(means < theta) + 0.5 * np.sum(means == theta)) / resamples
    z0 = stats.norm.ppf(share)
    jack = np.array([np.delete(x, i).mean() for i in range(n)])
    dev = jack.mean() - jack
    a = np.sum(dev ** 3) / (6 * np.sum(dev ** 2) ** 1.5)
    out = []
    for q in ((1 - level) / 2, (1 + level) / 2):
        z = stats.norm.ppf(q)
        out.append(np.quantile(means, stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))))
    return out[0], out[1]


def test_bootstrap_by_hand_and_reproducible():
    x = np.random.default_rng(8).exponential(0.1, 30)  # skewed: the BCa correction matters
    got = cmp.bootstrap_interval(x, 0.95, resamples=3000, rng=seeds.rng(0, "hand"))
    np.testing.assert_allclose(got, _bca_by_hand(x, 0.95, 3000, seeds.rng(0, "hand")), rtol=1e-10)
    assert cmp.bootstrap_interval(x, 0.95, resamples=3000, rng=seeds.rng(0, "hand")) == got
    assert cmp.bootstrap_interval(x, 0.95, resamples=3000, rng=seeds.rng(1, "hand")) != got
    # BCa moves the percentile interval (a = z0 = 0) towards the long tail
    means = x[seeds.rng(0, "hand").integers(0, 30, size=(3000, 30))].mean(axis=1)
    percentile = np.quantile(means, [0.025, 0.975])
    assert got[0] > percentile[0] and got[1] > percentile[1]


def test_bootstrap_draws_in_blocks(monkeypatch):
    """Many resamples are drawn in blocks of rows (memory); each block is rows of
    rng.integers(0, n, (rows, n)), the last one shorter."""
    x = np.random.default_rng(1).random(20)
    monkeypatch.setattr(cmp_stats, "_BLOCK", 20 * 7)  # blocks of 7 resamples
    got = _bootstrap_means(x, 500, seeds.rng(0, "b"))
    rng = seeds.rng(0, "b")
    want = np.concatenate([x[rng.integers(0, 20, size=(min(7, 500 - k), 20))].mean(axis=1) for k in range(0, 500, 7)])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kw, msg", [
    ({"level": 1.0}, "level must be a number in"), ({"resamples": 0}, "resamples must be a positive integer"),
    ({"rng": 3}, "rng must be a numpy.random.Generator"),
])
def test_bootstrap_refuses_bad_arguments(kw, msg):
    args = {"level": 0.95, "resamples": 400, "rng": np.random.default_rng(0)} | kw
    with pytest.raises(ValueError, match=msg):
        cmp.bootstrap_interval([0.1, 0.2, 0.4], args["level"], resamples=args["resamples"], rng=args["rng"])
    with pytest.raises(ValueError, match="at least 2 values"):
        cmp.t_interval([0.1])


# ---------------------------------------------------------------------------
# the table's columns
# ---------------------------------------------------------------------------
def _runs(n=25, seed=2):
    rng = np.random.default_rng(seed)
    b = rng.beta(0.5, 2.0, n)
    return {"base": b, "s": np.clip(b + rng.normal(0.05, 0.1, n), 0, 1), "t": np.clip(b + rng.normal(0, 0.1, n), 0, 1)}


def test_table_t_columns_are_the_t_intervals():
    scores = _runs()
    table = cmp.compare_table(tidy(scores), baseline="base", permutations=200, level=0.9)
    assert table.attrs["interval"] == "t" and table.attrs["level"] == 0.9
    assert (table["interval"] == "t").all() and (table["level"] == 0.9).all()
    for run in ("base", "s", "t"):
        r = row(table, run)
        assert (r["mean_ci_low"], r["mean_ci_high"]) == pytest.approx(cmp.t_interval(scores[run], 0.9), rel=1e-12)
        assert r["mean_ci_low"] < r["mean"] < r["mean_ci_high"]
    for run in ("s", "t"):
        r = row(table, run)
        want = cmp.t_interval(scores[run] - scores["base"], 0.9)
        assert (r["delta_ci_low"], r["delta_ci_high"]) == pytest.approx(want, rel=1e-12)
        assert r["delta_ci_low"] < r["delta"] < r["delta_ci_high"]
    base = row(table, "base")
    assert np.isnan(base["delta_ci_low"]) and np.isnan(base["delta_ci_high"])


def test_table_bootstrap_columns_use_the_documented_streams():
    scores = _runs()
    per_query = tidy(scores)
    table = cmp.compare_table(per_query, baseline="base", permutations=200, interval="bootstrap",
                              resamples=2000, seed=5)
    assert (table["interval"] == "bootstrap").all() and table.attrs["resamples"] == 2000
    for run in ("base", "s", "t"):
        values, rng = cmp.content_stream(5, scores[run], "compare-bootstrap", "mean")
        want = cmp.bootstrap_interval(values, 0.95, resamples=2000, rng=rng)
        assert (row(table, run)["mean_ci_low"], row(table, run)["mean_ci_high"]) == want
    for run in ("s", "t"):
        d = scores[run] - scores["base"]
        want = cmp.bootstrap_interval(np.sort(d), 0.95, resamples=2000,
                                      rng=cmp.content_stream(5, d, "compare-bootstrap", "delta")[1])
        assert (row(table, run)["delta_ci_low"], row(table, run)["delta_ci_high"]) == want
    # reproducible whatever the row order; a run's mean interval does not depend on the baseline
    shuffled = per_query.sample(frac=1.0, random_state=0)
    pd.testing.assert_frame_equal(cmp.compare_table(shuffled, baseline="base", permutations=200,
                                                    interval="bootstrap", resamples=2000, seed=5), table)
    other = cmp.compare_table(per_query, baseline="t", tests=["s"], permutations=200, interval="bootstrap",
                              resamples=2000, seed=5)
    assert row(other, "s")["mean_ci_low"] == row(table, "s")["mean_ci_low"]
    assert row(other, "s")["delta_ci_low"] != row(table, "s")["delta_ci_low"]
    again = cmp.compare_table(per_query, baseline="base", permutations=200, interval="bootstrap",
                              resamples=2000, seed=6)
    assert not np.array_equal(again["mean_ci_low"], table["mean_ci_low"])


def test_intervals_use_the_queries_of_the_means():
    """A run not compared may have other queries; the intervals, like the means, use the compared ones."""
    scores = _runs(n=10)
    per_query = tidy(scores)
    extra = pd.DataFrame([("t", "q999", "m", 1.0)], columns=per_query.columns)
    per_query = pd.concat([per_query[~((per_query.run == "t") & (per_query.qid == "q000"))], extra])
    table = cmp.compare_table(per_query, baseline="base", tests=["s"], permutations=100)
    r = row(table, "s")
    assert r["n_queries"] == 10
    assert (r["delta_ci_low"], r["delta_ci_high"]) == pytest.approx(cmp.t_interval(scores["s"] - scores["base"]))


@pytest.mark.parametrize("kw, msg", [
    ({"interval": "bca"}, "interval must be one of"), ({"level": 0}, "level must be a number in"),
    ({"level": True}, "level must be a number in"), ({"resamples": 1.5}, "resamples must be a positive integer"),
])
def test_table_refuses_bad_interval_options(kw, msg):
    with pytest.raises(ValueError, match=msg):
        cmp.compare_table(tidy(_runs(n=4)), baseline="base", **kw)
    with pytest.raises(ValueError, match=msg):
        cmp.compare("QRELS", ["a", "b"], ["map"], baseline="a", **kw)  # checked before evaluating


# ---------------------------------------------------------------------------
# coverage by simulation
# ---------------------------------------------------------------------------
N_TOPICS = 50
SIMULATIONS = 3000
#: per-topic scores: baseline b ~ Beta(0.5, 2) (mean 0.2, skewed); the test run gains (1 - b) U(0, 0.5)
#: on 30 % of the topics, loses b U(0, 0.5) on 10 %, ties on the rest, so E[s - b] = 0.3 * 0.8 * 0.25
#: - 0.1 * 0.2 * 0.25 = 0.055 and E[s] = 0.255; the differences are skewed (skewness ~1.6) with ties.
TRUE_DELTA, TRUE_MEAN = 0.055, 0.255


def _comparison(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    b = rng.beta(0.5, 2.0, N_TOPICS)
    u = rng.random(N_TOPICS)
    gain, loss = (1 - b) * rng.uniform(0, 0.5, N_TOPICS), b * rng.uniform(0, 0.5, N_TOPICS)
    return b, np.where(u < 0.3, b + gain, np.where(u < 0.4, b - loss, b))


def test_the_simulation_has_the_stated_truth():
    rng = np.random.default_rng(99)
    b, s = zip(*(_comparison(rng) for _ in range(20_000)))
    d = np.concatenate(s) - np.concatenate(b)
    assert d.mean() == pytest.approx(TRUE_DELTA, abs=0.001)
    assert np.concatenate(s).mean() == pytest.approx(TRUE_MEAN, abs=0.002)
    assert stats.skew(d) > 1 and np.mean(d == 0) == pytest.approx(0.6, abs=0.01)


@pytest.mark.parametrize("interval", ["t", "bootstrap"])
def test_coverage_by_simulation(interval):
    """3,000 simulated comparisons of 50 topics: the 95 % intervals of the delta and of the test
    run's mean cover the truth 92-98 % of the time (measured over 10,000: t 0.934 / 0.949,
    BCa 0.943 / 0.948; the standard error of a share of 3,000 near 0.95 is 0.004)."""
    rng = seeds.rng(2028, "coverage", interval)
    covered = np.zeros(2, dtype=int)
    for _ in range(SIMULATIONS):
        b, s = _comparison(rng)
        for j, (x, truth) in enumerate(((s - b, TRUE_DELTA), (s, TRUE_MEAN))):
            if interval == "t":
                low, high = cmp.t_interval(x, 0.95)
            else:
                low, high = cmp.bootstrap_interval(x, 0.95, resamples=1000, rng=rng)
            covered[j] += low <= truth <= high
    share = covered / SIMULATIONS
    assert 0.92 <= share[0] <= 0.98, f"delta: {share[0]}"
    assert 0.92 <= share[1] <= 0.98, f"mean: {share[1]}"
