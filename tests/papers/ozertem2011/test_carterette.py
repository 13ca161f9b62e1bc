"""Carterette & Jones' click features and ordinal regression."""

import numpy as np
import pytest

from evalrank.papers.ozertem2011.carterette import FEATURES, OrdinalClickModel, click_features
from evalrank.papers.ozertem2011.logs import session_log


def _random_log(seed, n_pairs=40, n_serps=12, depth=5):
    r = np.random.default_rng(seed)
    serps = np.full((n_serps, depth), -1)
    for s in range(n_serps):
        m = r.integers(2, depth + 1)
        serps[s, :m] = r.choice(n_pairs, m, replace=False)
    n = 400
    row_serp = r.integers(0, n_serps, n)
    lengths = (serps >= 0).sum(1)[row_serp]
    clicks = (r.random((n, depth)) < 0.3) & (np.arange(depth)[None, :] < lengths[:, None])
    return session_log(serps, np.zeros(n_serps, int), row_serp, clicks, counts=r.integers(1, 4, n))


def test_features_against_a_per_session_loop():
    log = _random_log(0)
    n_pairs = 45
    X = click_features(log, n_pairs)
    cm = log.click_matrix()
    depth = log.depth
    # per serp: sessions and clicks per rank, straight from the rows
    sess, clk = {}, {}
    for i in range(log.n_rows):
        s = log.row_serp[i]
        sess[s] = sess.get(s, 0) + log.counts[i]
        clk.setdefault(s, np.zeros(depth))
        clk[s] += log.counts[i] * cm[i]
    acc = {p: [] for p in range(n_pairs)}
    for s, n in sess.items():
        row = log.serps[s]
        ctr = clk[s] / n
        for r in range(depth):
            if row[r] < 0:
                continue
            above = ctr[r - 1] if r > 0 else 0.0
            below = ctr[r + 1] if r + 1 < depth and row[r + 1] >= 0 else 0.0
            acc[row[r]].append((n, ctr[r], above, below, r + 1))
    for p in range(n_pairs):
        if not acc[p]:
            np.testing.assert_array_equal(X[p], [0, 0, 0])
            continue
        a = np.array(acc[p], dtype=float)
        w = a[:, 0]
        expect = [np.average(a[:, 1], weights=w), np.average(a[:, 2], weights=w), np.average(a[:, 3], weights=w)]
        np.testing.assert_allclose(X[p], expect, rtol=1e-12, atol=1e-15)
    assert X.shape[1] == len(FEATURES)


def test_ordinal_regression_orders_grades_by_ctr():
    r = np.random.default_rng(1)
    g = r.integers(0, 5, 3000)
    X = np.column_stack([0.1 + 0.15 * g + 0.05 * r.standard_normal(g.size), r.random(g.size), r.random(g.size)])
    m = OrdinalClickModel(5, alpha=1.0).fit(X, g)
    p = m.predict_proba(X)
    np.testing.assert_allclose(p.sum(1), 1, atol=1e-12)
    expected = p @ np.arange(5)
    assert np.corrcoef(expected, g)[0, 1] > 0.9
    assert m.coef_[0] > 0 and abs(m.coef_[1]) < 0.3 * m.coef_[0]


def test_absent_grades_get_zero_probability_and_errors():
    X = np.random.default_rng(2).random((50, 3))
    g = np.repeat([0, 2], 25)
    p = OrdinalClickModel(5).fit(X, g).predict_proba(X)
    assert np.all(p[:, [1, 3, 4]] == 0)
    with pytest.raises(ValueError, match="min_train_impressions"):
        OrdinalClickModel(5).fit(X[:1], g[:1])
    with pytest.raises(ValueError, match="grades"):
        OrdinalClickModel(5).fit(X, g + 5)
    with pytest.raises(ValueError, match="alpha"):
        OrdinalClickModel(5, alpha=-1)
    with pytest.raises(RuntimeError, match="fit"):
        OrdinalClickModel(5).predict_proba(X)
