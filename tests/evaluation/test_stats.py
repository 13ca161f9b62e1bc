"""evalrank.evaluation.stats: the one paired t-test and the one Kendall tau of the package,
bit for bit scipy's numbers, with the guards each caller names (compare, the Dinçer and
Busa-Fekete tables); the callers' old inline code is written out here and must agree."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from evalrank.evaluation.stats import kendall_tau, paired_t_test

NAN = float("nan")


def _same(a: float, b: float) -> bool:
    """Equal bit for bit, NaN equal to NaN."""
    return (math.isnan(a) and math.isnan(b)) or a == b


def _pairs():
    """(a, b) pairs: random of many sizes, plus the edge cases the guards exist for."""
    rng = np.random.default_rng(29)
    out = []
    for n in (2, 3, 5, 8, 30, 200):
        for _ in range(20):
            a = rng.random(n)
            out.append((a, np.clip(a + rng.normal(0, 0.1, n), 0, 1)))
    a = np.array([0.3, 0.5, 0.1, 0.9])
    out += [(a, a.copy()),                          # equal vectors: every difference 0
            (a + 0.05, a),                          # a constant non-zero difference (up to rounding)
            (np.array([0.3 - 0.1, 0.4]), np.array([0.0, 0.2])),  # equal only up to rounding
            (np.array([0.5, 0.7]), np.array([0.1, 0.2])),        # n = 2
            (np.array([0.1, 0.2, 0.4]), np.array([0.1, 0.2, 0.3])),  # one non-zero difference
            (np.round(rng.random(50), 1), np.round(rng.random(50), 1))]  # many ties
    return out


def _scipy(a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = stats.ttest_rel(a, b)
    return float(r.statistic), float(r.pvalue)


def test_paired_t_test_is_scipy_bit_for_bit():
    for a, b in _pairs():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = paired_t_test(a, b)
        want = _scipy(a, b)
        assert _same(got[0], want[0]) and _same(got[1], want[1]), (a, b)
        d = a - b
        if np.any(d != 0):  # the differences alone (b omitted) give the same numbers
            one = paired_t_test(d)
            assert _same(one[0], want[0]) and _same(one[1], want[1])


def _old_compare(d):
    """compare.paired_ttest_p's guards before the helper (n < 2 raises; equal up to rounding: NaN)."""
    d = np.asarray(d, dtype=np.float64)
    if d.size < 2:
        raise ValueError("n < 2")
    if not d.std(ddof=1) > 1e-10 * np.abs(d).max():
        return NAN
    return _scipy(d, np.zeros_like(d))[1]


def _old_learning(s, ref):
    """learning.table7: p = 1 when the learner equals the reference everywhere."""
    return _scipy(s, ref)[1] if np.any(s != ref) else 1.0


def _old_ordering(a, b):
    """report.ordering: (t, p) only for n > 1 and differences that are not all equal."""
    d = a - b
    return _scipy(a, b) if d.size > 1 and np.any(d != d[0]) else (NAN, NAN)


def _old_claims(a, b):
    """report.claims: p for n > 1, else NaN."""
    return _scipy(a, b)[1] if (a - b).size > 1 else NAN


def test_each_callers_guards_give_its_old_numbers():
    pairs = _pairs() + [(np.array([0.4]), np.array([0.1])), (np.array([0.4]), np.array([0.4]))]
    for a, b in pairs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if a.size < 2:
                with pytest.raises(ValueError, match="at least 2"):
                    paired_t_test(a, b, few="raise", equal=NAN, tol=1e-10)
            else:
                assert _same(paired_t_test(a, b, few="raise", equal=NAN, tol=1e-10)[1], _old_compare(a - b))
            assert _same(paired_t_test(a, b, zero=1.0)[1], _old_learning(a, b))
            t, p = paired_t_test(a, b, few=NAN, equal=NAN)
            want = _old_ordering(a, b)
            assert _same(t, want[0]) and _same(p, want[1])
            assert _same(paired_t_test(a, b, few=NAN)[1], _old_claims(a, b))


@pytest.mark.filterwarnings("ignore:Precision loss")
def test_guards_fire_on_their_cases():
    a = np.array([0.3, 0.5, 0.1, 0.9])
    assert paired_t_test(a, a, zero=1.0) == (pytest.approx(NAN, nan_ok=True), 1.0)
    assert math.isnan(paired_t_test(a + 0.05, a, equal=NAN, tol=1e-10)[1])   # constant up to rounding
    t, p = paired_t_test(a + 0.05, a)                                            # no guard: scipy's tiny p
    assert p < 1e-10 and abs(t) > 1e6
    assert math.isnan(paired_t_test([0.4], [0.1], few=NAN)[1])
    assert math.isnan(paired_t_test([1.0, 2.0], [0.0, 1.0], equal=NAN)[1])     # exactly equal differences
    assert paired_t_test([1.0, 2.5], [0.0, 1.0], equal=NAN)[1] < 1              # unequal: tested
    assert 0 <= paired_t_test(np.array([0.1, -0.1, 0.2]))[1] <= 1


def _kendall_pairs():
    rng = np.random.default_rng(7)
    out = [([1, 2, 3, 4], [1, 2, 3, 4]), ([1, 2, 3, 4], [4, 3, 2, 1]), ([1, 1, 2, 3], [1, 2, 2, 3]),
           ([1, 1, 1], [1, 2, 3]), ([1.0, 2.0], [2.0, 1.0])]
    for n in (3, 9, 20, 60):
        out.append((rng.normal(size=n), rng.normal(size=n)))
        out.append((rng.integers(0, 4, n), rng.integers(0, 3, n)))            # ties in both
        out.append((np.round(rng.random(n), 1), np.round(rng.random(n), 2)))
    return [(np.asarray(x, float), np.asarray(y, float)) for x, y in out]


def test_kendall_tau_is_scipy_bit_for_bit():
    for x, y in _kendall_pairs():
        assert _same(kendall_tau(x, y), float(stats.kendalltau(x, y).statistic)), (x, y)


def test_kendall_tau_nan_policies():
    x = np.array([1, np.nan, 3, 4, 2, 6])
    y = np.array([2, 1, np.nan, 4, 3, 5])
    assert math.isnan(kendall_tau(x, y))                                  # propagate, as scipy's default
    ok = ~(np.isnan(x) | np.isnan(y))
    assert kendall_tau(x, y, nan="omit") == float(stats.kendalltau(x[ok], y[ok]).statistic)
    assert math.isnan(kendall_tau([1.0, np.nan], [np.nan, 2.0], nan="omit"))   # fewer than two pairs
    assert math.isnan(kendall_tau([1.0, 2.0, np.nan], [1.0, np.nan, 3.0], nan="omit"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                                   # scipy's SmallSampleWarning
        assert math.isnan(kendall_tau([], []))
    with pytest.raises(ValueError, match="nan must be"):
        kendall_tau(x, y, nan="drop")
    with pytest.raises(ValueError, match="equally long"):
        kendall_tau([1, 2], [1, 2, 3])


def test_kendall_tau_agrees_with_the_hand_written_tau_b_it_replaced():
    """dincer2016.findings had its own tau-b, sum(sign dx sign dy) / sqrt(n_x n_y): the helper
    agrees with it to rounding (the two differ in the last bit only, scipy divides twice)."""
    for x, y in _kendall_pairs():
        i, j = np.triu_indices(len(x), 1)
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        nx, ny = len(i) - np.sum(dx == 0), len(i) - np.sum(dy == 0)
        hand = NAN if nx == 0 or ny == 0 else float(np.sum(dx * dy) / np.sqrt(nx * ny))
        assert kendall_tau(x, y, nan="omit") == pytest.approx(hand, rel=1e-14, nan_ok=True)
