"""evalrank.metrics.risk against the paper's printed tables, independent
per-cell loops, scipy's chi-square and paired t-test."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evalrank.metrics import risk
from evalrank.papers.dincer2016 import example

CONFIG = Path(__file__).resolve().parents[2] / "config" / "dincer2016"


@pytest.fixture(scope="module")
def table3():
    return example.read_matrix(CONFIG / "dincer2016_table3.csv")


# ---------------------------------------------------------------------------
# the worked example, to the printed precision
# ---------------------------------------------------------------------------
def test_table3_totals_match_print(table3):
    systems, topics, X = table3
    assert systems == [f"s{i}" for i in range(1, 9)] and topics == ["t1", "t2", "t3", "t4", "t5"]
    # The printed totals were summed before s7 and s8 were rounded to 4 decimals: T_5 and N come out
    # one unit of the last digit lower from the printed cells (2.5439 vs 2.5440, 11.7247 vs 11.7248).
    np.testing.assert_allclose(X.sum(axis=0), [2.1460, 2.2123, 2.3449, 2.4776, 2.5440], atol=1.5e-4)
    np.testing.assert_allclose(X.sum(axis=0)[:4], [2.1460, 2.2123, 2.3449, 2.4776], atol=5e-5)
    assert X.sum() == pytest.approx(11.7248, abs=1.5e-4)


def test_table4_matches_print(table3):
    cmp = example.compare(example.table4(*table3), CONFIG / "dincer2016_table4_printed.csv",
                          keys=("system", "baseline"))
    assert len(cmp) == 14 * 6
    assert cmp["match"].all(), cmp[~cmp["match"]]
    s2 = np.array(table3[2])[[1, 0]]
    assert round(risk.zrisk(s2, 0), 4) == 0.1141  # the paper's headline number, s2 vs s1
    assert round(risk.zrisk(s2, 1), 4) == -0.1141


def test_table5_matches_print(table3):
    systems, _, X = table3
    cmp = example.compare(example.table5(systems, X), CONFIG / "dincer2016_table5_printed.csv")
    assert len(cmp) == 8 * 9
    assert cmp["match"].all(), cmp[~cmp["match"]]
    assert round(risk.zrisk(X, 0, 10.0), 3) == -6.835


def _z_variant(X, kind):
    S = X.sum(1, keepdims=True)
    T = X.sum(0, keepdims=True)
    N = X.sum()
    e = S * T / N
    if kind == "no_sqrt":
        return (X - e) / e
    if kind == "sign":
        return (e - X) / np.sqrt(e)
    if kind == "mean_expectation":  # e_ij = T_j / r (the per-topic mean, eq. 3) instead of eq. 5
        e = np.broadcast_to(T / X.shape[0], X.shape)
        return (X - e) / np.sqrt(e)
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["no_sqrt", "sign", "mean_expectation"])
def test_printed_tables_reject_wrong_formulas(table3, kind):
    """The comparison is strict enough to catch each plausible slip."""
    systems, _, X = table3
    z = _z_variant(X, kind)
    zr = {a: np.where(z > 0, z, (1 + a) * z).sum(1) for a in example.TABLE5_ALPHAS}
    import pandas as pd

    wrong = pd.DataFrame({"system": systems, "mean": X.mean(1)})
    for a in example.TABLE5_ALPHAS:
        wrong[f"zrisk_a{a}"] = zr[a]
        wrong[f"geo_a{a}"] = np.sqrt(X.mean(1) * stats.norm.cdf(zr[a] / X.shape[1]))
    cmp = example.compare(wrong, CONFIG / "dincer2016_table5_printed.csv")
    assert not cmp.loc[cmp["column"].str.startswith("zrisk"), "match"].all()


def test_georisk_without_sqrt_is_rejected(table3):
    systems, _, X = table3
    g = risk.georisk(X, None, 5.0) ** 2  # the geometric mean's root forgotten
    printed = example.compare(example.table5(systems, X), CONFIG / "dincer2016_table5_printed.csv")
    geo5 = printed[printed["column"] == "geo_a5"]
    assert not np.allclose(g, geo5["printed"].to_numpy(), atol=5e-4)


# ---------------------------------------------------------------------------
# independent per-cell loops on random matrices
# ---------------------------------------------------------------------------
def _loop_urisk(s, b, a):
    tot = 0.0
    for sq, bq in zip(s, b):
        d = sq - bq
        tot += d if d > 0 else (1 + a) * d
    return tot / len(s)


def _loop_trisk(s, b, a):
    c = len(s)
    dd = [(sq - bq) if sq > bq else (1 + a) * (sq - bq) for sq, bq in zip(s, b)]
    m = sum(dd) / c
    var = sum((x - m) ** 2 for x in dd) / (c - 1)
    return m / math.sqrt(var / c)


def _loop_z(X):
    r, c = len(X), len(X[0])
    S = [sum(X[i][j] for j in range(c)) for i in range(r)]
    T = [sum(X[i][j] for i in range(r)) for j in range(c)]
    N = sum(S)
    return [[(X[i][j] - S[i] * T[j] / N) / math.sqrt(S[i] * T[j] / N) for j in range(c)] for i in range(r)]


def _loop_zrisk(X, i, a):
    return sum(z if z > 0 else (1 + a) * z for z in _loop_z(X)[i])


def _loop_georisk(X, i, a):
    c = len(X[0])
    phi = 0.5 * (1 + math.erf(_loop_zrisk(X, i, a) / c / math.sqrt(2)))
    return math.sqrt(sum(X[i]) / c * phi)


@pytest.fixture(params=[0, 1, 2])
def matrix(request):
    rng = np.random.default_rng(request.param)
    r, c = [(3, 7), (12, 40), (2, 5)][request.param]
    X = rng.beta(1.2, 3.0, size=(r, c))
    X[rng.random(X.shape) < 0.1] = 0.0  # exact zeros (failed topics), as real ERR matrices have
    X[:, X.sum(0) == 0] = 0.05
    return X


@pytest.mark.parametrize("alpha", [0.0, 1.0, 5.0, 20.0])
def test_single_baseline_measures_equal_loops(matrix, alpha):
    X = matrix
    b = X[-1]
    for i in range(X.shape[0] - 1):
        assert risk.urisk(X[i], b, alpha) == pytest.approx(_loop_urisk(X[i], b, alpha), abs=1e-13)
        assert risk.trisk(X[i], b, alpha) == pytest.approx(_loop_trisk(X[i], b, alpha), rel=1e-10)
        mean_q = X.mean(0)
        assert risk.trisk_star(X, i, alpha) == pytest.approx(_loop_trisk(X[i], mean_q, alpha), rel=1e-10)


@pytest.mark.parametrize("alpha", [0.0, 1.0, 5.0, 20.0])
def test_multiple_baseline_measures_equal_loops(matrix, alpha):
    X = matrix
    L = X.tolist()
    np.testing.assert_allclose(risk.standardized_residuals(X), _loop_z(L), atol=1e-13)
    for i in range(X.shape[0]):
        assert risk.zrisk(X, i, alpha) == pytest.approx(_loop_zrisk(L, i, alpha), abs=1e-12)
        assert risk.georisk(X, i, alpha) == pytest.approx(_loop_georisk(L, i, alpha), rel=1e-12)


def test_vectorized_over_systems_and_alpha(matrix):
    X = matrix
    alphas = np.array([0.0, 0.5, 1.0, 5.0, 10.0])
    b = X[0]
    Z = risk.zrisk(X, None, alphas)
    G = risk.georisk(X, None, alphas)
    U = risk.urisk(X, b, alphas)
    T = risk.trisk(X[1:], b, alphas)
    TS = risk.trisk_star(X, None, alphas)
    assert Z.shape == G.shape == U.shape == TS.shape == (X.shape[0], alphas.size)
    assert T.shape == (X.shape[0] - 1, alphas.size)
    for i in range(X.shape[0]):
        for k, a in enumerate(alphas):
            assert Z[i, k] == risk.zrisk(X, i, a)
            assert G[i, k] == risk.georisk(X, i, a)
            assert U[i, k] == pytest.approx(risk.urisk(X[i], b, a), abs=1e-15)
            assert TS[i, k] == pytest.approx(risk.trisk_star(X, i, a), rel=1e-12)
            if i:
                assert T[i - 1, k] == pytest.approx(risk.trisk(X[i], b, a), rel=1e-12)
    assert risk.zrisk(X, [X.shape[0] - 1, 0], alphas).shape == (2, alphas.size)


# ---------------------------------------------------------------------------
# peers: scipy's chi-square test and paired t-test
# ---------------------------------------------------------------------------
def test_zrisk_and_chi_square_statistic(matrix):
    X = matrix
    res = stats.chi2_contingency(X, correction=False)
    np.testing.assert_allclose(risk.expected_values(X), res.expected_freq, rtol=1e-12)
    z = risk.standardized_residuals(X)
    assert risk.chi_square(X) == pytest.approx(res.statistic, rel=1e-12)
    # alpha = 0: ZRisk is the sum of the row's signed chi-square roots, and each row's residuals sum to 0
    np.testing.assert_allclose(risk.zrisk(X, None, 0.0), z.sum(1), atol=1e-13)
    np.testing.assert_allclose((X - risk.expected_values(X)).sum(1), 0.0, atol=1e-12)
    assert res.dof == (X.shape[0] - 1) * (X.shape[1] - 1)


def test_trisk_at_alpha_zero_is_paired_t(matrix):
    X = matrix
    t = stats.ttest_rel(X[0], X[1]).statistic
    assert risk.trisk(X[0], X[1], 0.0) == pytest.approx(t, rel=1e-12)


def test_one_system_has_no_deviation():
    X = np.array([[0.1, 0.4, 0.2]])
    np.testing.assert_allclose(risk.standardized_residuals(X), 0.0, atol=1e-15)
    assert risk.georisk(X, 0) == pytest.approx(math.sqrt(X.mean() * 0.5))


# ---------------------------------------------------------------------------
# profile (Table 7)
# ---------------------------------------------------------------------------
def test_profile_by_hand():
    s = np.array([0.5, 0.2, 0.4, 0.0, 0.3])
    b = np.array([0.3, 0.3, 0.4, 0.2, 0.1])
    p = risk.profile(s, b)
    assert p["mean"] == pytest.approx(0.28)
    assert p["reward"] == pytest.approx((0.2 + 0.2) / 5)
    assert p["risk"] == pytest.approx((0.1 + 0.2) / 5)
    assert p["reward_risk"] == pytest.approx(0.4 / 0.3)
    assert (p["wins"], p["losses"]) == (2, 2)  # topic 3 is a tie
    assert p["win_loss"] == 1.0
    assert p["big_losses"] == 2  # 0.2 < 0.8 * 0.3 and 0 < 0.8 * 0.2
    for a in (0.0, 1.0, 5.0):
        assert risk.urisk(s, b, a) == pytest.approx(p["reward"] - (1 + a) * p["risk"])


def test_profile_macro_average():
    rng = np.random.default_rng(5)
    s = rng.random(30)
    B = rng.random((4, 30))
    p = risk.profile(s, B)
    singles = [risk.profile(s, b) for b in B]
    for key in risk.PROFILE_COLUMNS:
        assert p[key] == pytest.approx(np.mean([q[key] for q in singles]))
    # the ratios are averaged, not recomputed from averaged parts
    assert p["reward_risk"] != pytest.approx(p["reward"] / p["risk"])


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
def test_bad_input_is_explained():
    X = np.array([[0.1, 0.0, 0.3], [0.2, 0.0, 0.1]])
    with pytest.raises(ValueError, match=r"topic column\(s\) \[1\].*zero_totals='ignore'"):
        risk.zrisk(X, 0)
    z = risk.standardized_residuals(X, zero_totals="ignore")
    assert np.isfinite(z).all() and (z[:, 1] == 0).all()
    assert risk.zrisk(X, 0, zero_totals="ignore") == pytest.approx(risk.zrisk(X[:, [0, 2]], 0))
    with pytest.raises(ValueError, match=r"system row\(s\) \[0\]"):
        risk.zrisk(np.array([[0.0, 0.0], [0.1, 0.2]]), 1)
    with pytest.raises(ValueError, match="non-negative"):
        risk.zrisk(np.array([[0.1, -0.2], [0.1, 0.2]]))
    with pytest.raises(ValueError, match="NaN"):
        risk.urisk(np.array([0.1, np.nan]), np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match="same topics"):
        risk.trisk(np.array([0.1, 0.2, 0.3]), np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match="alpha"):
        risk.zrisk(X + 0.1, 0, -1.0)
    with pytest.raises(TypeError, match="alpha"):
        risk.zrisk(X + 0.1, 0, True)
    with pytest.raises(ValueError, match="i must index"):
        risk.georisk(X + 0.1, 5)
    with pytest.raises(TypeError, match="numeric"):
        risk.urisk(["a", "b"], [0.1, 0.2])
    with pytest.raises(ValueError, match="zero_totals"):
        risk.zrisk(X + 0.1, 0, zero_totals="drop")


def test_align_topics():
    systems, topics, X = risk.align_topics({"a": {"q2": 0.5, "q1": 0.1}, "b": {"q1": 0.2, "q2": 0.0}})
    assert systems == ["a", "b"] and topics == ["q1", "q2"]
    np.testing.assert_array_equal(X, [[0.1, 0.5], [0.2, 0.0]])
    with pytest.raises(ValueError, match=r"system 'b' has no score for 1 topic.*\['q3'\]"):
        risk.align_topics({"a": {"q1": 0.1, "q3": 0.2}, "b": {"q1": 0.2}})
    _, _, X = risk.align_topics({"a": {"q1": 0.1, "q3": 0.2}, "b": {"q1": 0.2}}, missing="zero")
    np.testing.assert_array_equal(X, [[0.1, 0.2], [0.2, 0.0]])


def test_trisk_zero_variance():
    s = np.array([0.5, 0.75, 1.0])
    assert risk.trisk(s, s - 0.25) == math.inf  # exact binary fractions: every d'_q equal
    assert risk.trisk(s, s) == 0.0
