"""Costs and q* (eqs. 11, 12) against brute-force enumeration, and Lemma 1's optimality."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from evalrank.active.costs import query_costs
from evalrank.active.sampling import METHODS, instrumental, q_star, q_star_difference


def _loss(measure, labels_in_rank_order, n_grades):
    y = np.asarray(labels_in_rank_order, dtype=float)
    if measure == "dcg":
        return float(np.sum((2 ** y - 1) / np.log2(np.arange(2, y.size + 2))))
    r = (2 ** y - 1) / 2 ** (n_grades - 1)
    keep = np.concatenate([[1.0], np.cumprod(1 - r)[:-1]])
    return float(np.sum(r * keep / np.arange(1, y.size + 1)))


def _enumerate(probs, docs, fn):
    """Exact E[fn(y)] over all label vectors of ``docs`` (eq. 13)."""
    n_grades = probs.shape[1]
    total = 0.0
    for ys in itertools.product(range(n_grades), repeat=len(docs)):
        p = np.prod([probs[d, y] for d, y in zip(docs, ys)])
        total += p * fn(dict(zip(docs, ys)))
    return total


def _pool(seed=0, n_grades=3):
    g = np.random.default_rng(seed)
    sizes = [3, 1, 4, 2]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    probs = g.dirichlet(np.ones(n_grades) * 0.7, size=offsets[-1])
    order = np.concatenate([g.permutation(np.arange(offsets[i], offsets[i + 1])) for i in range(len(sizes))])
    costs = g.uniform(0.3, 3.0, size=len(sizes))
    return probs, offsets, order, costs


@pytest.mark.parametrize("measure", ["dcg", "err"])
@pytest.mark.parametrize("method", ["active", "active_uniC", "active_uniD"])
def test_q_star_single_matches_enumeration(measure, method):
    probs, offsets, order, costs = _pool(1)
    model = np.full_like(probs, 1 / probs.shape[1]) if method == "active_uniD" else probs
    lam = np.ones_like(costs) if method == "active_uniC" else costs
    nq = len(offsets) - 1
    rankings = [order[offsets[i]:offsets[i + 1]] for i in range(nq)]
    means = [_enumerate(model, list(r), lambda y, r=r: _loss(measure, [y[d] for d in r], 3)) for r in rankings]
    r_theta = np.mean(means)
    second = [_enumerate(model, list(r), lambda y, r=r: (_loss(measure, [y[d] for d in r], 3) - r_theta) ** 2)
              for r in rankings]
    expected = np.sqrt(np.array(second) / lam)
    expected /= expected.sum()
    np.testing.assert_allclose(q_star(probs, offsets, order, measure, costs, method=method), expected, rtol=1e-10)


@pytest.mark.parametrize("measure", ["dcg", "err"])
def test_q_star_difference_matches_enumeration(measure):
    probs, offsets, order, costs = _pool(2)
    nq = len(offsets) - 1
    # r_b: a partly overlapping ranking -- drop the last document, reverse the rest
    ra = [list(order[offsets[i]:offsets[i + 1]]) for i in range(nq)]
    rb = [list(reversed(r[:-1])) if len(r) > 1 else r for r in ra]
    off_b = np.concatenate([[0], np.cumsum([len(r) for r in rb])])
    order_b = np.concatenate([np.array(r, dtype=np.int64) for r in rb])

    def delta(y, a, b):
        return _loss(measure, [y[d] for d in a], 3) - _loss(measure, [y[d] for d in b], 3)

    means = [_enumerate(probs, a, lambda y, a=a, b=b: delta(y, a, b)) for a, b in zip(ra, rb)]
    d_theta = np.mean(means)
    second = [_enumerate(probs, a, lambda y, a=a, b=b: (delta(y, a, b) - d_theta) ** 2) for a, b in zip(ra, rb)]
    expected = np.sqrt(np.array(second) / costs)
    expected /= expected.sum()
    got = q_star_difference(probs, offsets, order, off_b, order_b, measure, costs)
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_passive_is_uniform():
    probs, offsets, order, costs = _pool(3)
    np.testing.assert_array_equal(q_star(probs, offsets, order, "err", costs, method="passive"), np.full(4, 0.25))


def test_lemma1_q_star_minimizes_variance_times_cost():
    """G[q] = (sum a/q)(sum lambda q) (Lemma 1) is smallest at q* among many random q."""
    g = np.random.default_rng(0)
    a = g.gamma(0.5, size=50)
    lam = g.uniform(0.2, 5.0, size=50)
    qs = instrumental(a, lam)

    def G(q):
        return np.sum(a / q) * np.sum(lam * q)

    best = G(qs)
    for _ in range(2000):
        other = g.dirichlet(np.ones(50) * g.uniform(0.3, 5))
        assert G(other) >= best * (1 - 1e-12)
    # and small perturbations of q* do not improve it
    for _ in range(200):
        other = qs * np.exp(0.01 * g.standard_normal(50))
        assert G(other / other.sum()) >= best * (1 - 1e-12)


def test_query_costs_by_hand():
    lengths = np.array([0.0, np.e - 1, 9.0, 99.0])
    offsets = np.array([0, 2, 4])
    raw = query_costs(lengths, offsets, normalize=False)
    np.testing.assert_allclose(raw, [1.0, np.log(10) + np.log(100)])
    c = query_costs(lengths, offsets)
    assert c.mean() == pytest.approx(1.0)
    np.testing.assert_allclose(c / c[0], raw / raw[0])


@pytest.mark.parametrize(
    "lengths, offsets, match",
    [
        (np.array([1.0, 2.0]), np.array([0, 0, 2]), "no documents"),
        (np.array([0.0, 0.0, 3.0]), np.array([0, 2, 3]), "cost nothing"),
        (np.array([-1.0, 2.0]), np.array([0, 2]), "lengths"),
        (np.array([np.nan, 2.0]), np.array([0, 2]), "lengths"),
        (np.array([1.0, 2.0]), np.array([0, 3]), "offsets"),
    ],
)
def test_query_costs_errors(lengths, offsets, match):
    with pytest.raises(ValueError, match=match):
        query_costs(lengths, offsets)


def test_bad_calls():
    probs, offsets, order, costs = _pool(4)
    with pytest.raises(ValueError, match="method"):
        q_star(probs, offsets, order, "err", costs, method="activ")
    with pytest.raises(ValueError, match="measure"):
        q_star(probs, offsets, order, "map", costs)
    with pytest.raises(ValueError, match="costs"):
        q_star(probs, offsets, order, "err", costs[:3])
    with pytest.raises(ValueError, match="costs"):
        q_star(probs, offsets, order, "err", np.zeros(4))
    with pytest.raises(ValueError, match="probs"):
        q_star(probs * 1.1, offsets, order, "err", costs)
    bad = order.copy()
    bad[1] = bad[0]
    with pytest.raises(ValueError, match="order"):
        q_star(probs, offsets, bad, "dcg", costs)
    bad = order.copy()
    bad[0] = 99
    with pytest.raises(ValueError, match="order"):
        q_star(probs, offsets, bad, "dcg", costs)
    assert set(METHODS) == {"passive", "active", "active_uniD", "active_uniC"}
