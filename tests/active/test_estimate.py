"""Algorithm 1 (both labelling modes), eq. 6, and the vectorized Monte Carlo."""

from __future__ import annotations

import numpy as np
import pytest

from evalrank import seeds
from evalrank.active.estimate import algorithm1, draw_queries, weighted_estimates
from evalrank.active.montecarlo import shard_range, simulate
from evalrank.active.sampling import q_star
from evalrank.active.theorem3 import batch_moments


class Scripted:
    """A generator stand-in that returns scripted uniforms (to force a query sequence)."""

    def __init__(self, u):
        self.u = list(u)

    def random(self, n):
        return np.array([self.u.pop(0) for _ in range(n)])


def test_deterministic_mode_looks_up_repeats_and_stops_at_first_overrun():
    q = np.array([0.25, 0.25, 0.25, 0.25])
    costs = np.array([1.0, 2.0, 0.5, 3.0])
    values = np.array([0.1, 0.2, 0.3, 0.4])
    # draws: 0, 0 (free), 2, 1, 0 (free), 3 (would exceed 4.0 -> stop), 2
    u = [0.1, 0.1, 0.6, 0.3, 0.2, 0.9, 0.6]
    out = algorithm1(q, costs, 4.0, Scripted(u), values=values)
    np.testing.assert_array_equal(out["queries"], [0, 0, 2, 1, 0])
    assert out["spent"] == 3.5 and out["n"] == 5
    assert out["estimate"] == pytest.approx((0.1 * 3 + 0.3 + 0.2) / 5)
    # stochastic mode charges every draw: 0, 0, 2, 1 costs 4.5 > 4 at the 4th draw
    out = algorithm1(q, costs, 4.0, Scripted(u), sample_loss=lambda x, g: values[x], mode="stochastic")
    np.testing.assert_array_equal(out["queries"], [0, 0, 2])
    assert out["spent"] == 2.5


def test_weights_are_p_over_q():
    q = np.array([0.5, 0.3, 0.2])
    est, imp = weighted_estimates(q, [0, 2, 2], [1.0, 2.0, 4.0])
    w = 1 / (3 * q[[0, 2, 2]])
    assert est == pytest.approx(np.sum(w * [1, 2, 4]) / w.sum())
    assert imp == pytest.approx(np.mean(w * [1, 2, 4]))
    assert np.isnan(weighted_estimates(q, [], [])[0])


def test_exhausted_pool_returns_the_limit():
    q = np.array([0.5, 0.5, 0.0])
    out = algorithm1(q, np.ones(3), 10.0, np.random.default_rng(0), values=np.array([1.0, 3.0, 100.0]))
    assert out["exhausted"] and out["estimate"] == 2.0 and out["spent"] == 2.0


def _model_pool(seed, nq=40):
    g = np.random.default_rng(seed)
    sizes = g.integers(1, 8, size=nq)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    probs = g.dirichlet([3.0, 1.0, 0.5, 0.2, 0.1], size=offsets[-1])
    order = np.arange(offsets[-1])
    costs = g.uniform(0.3, 2.5, size=nq)
    costs /= costs.mean()
    return probs, offsets, order, costs


def _sample_err(probs, offsets, order):
    def sample(x, g):
        docs = order[offsets[x]:offsets[x + 1]]
        y = np.array([g.choice(probs.shape[1], p=probs[d]) for d in docs])
        r = (2.0 ** y - 1) / 16
        keep = np.concatenate([[1.0], np.cumprod(1 - r)[:-1]])
        return float(np.sum(r * keep / np.arange(1, y.size + 1)))
    return sample


def test_stochastic_mode_importance_estimate_is_unbiased():
    """Fixed n (unit costs): E[(1/n) sum w_j L_j] = R exactly for any q; Monte Carlo over
    fresh labels y ~ p(y|x) and fresh draws, against R from Theorem 3's exact means."""
    probs, offsets, order, _ = _model_pool(3, nq=12)
    mean, _ = batch_moments(probs, offsets, order, "err")
    truth = mean.mean()
    q = q_star(probs, offsets, order, "err", np.ones(12))
    q = 0.5 * q + 0.5 * np.r_[1.0, np.zeros(11)]  # deliberately far from uniform
    sample = _sample_err(probs, offsets, order)
    runs = 6000
    imp = np.empty(runs)
    sn = np.empty(runs)
    for i in range(runs):
        out = algorithm1(q, np.ones(12), 3.0, seeds.rng(11, "q", i), sample_loss=sample,
                         label_rng=seeds.rng(11, "y", i), mode="stochastic")
        assert out["n"] == 3
        imp[i], sn[i] = out["importance"], out["estimate"]
    se = imp.std(ddof=1) / np.sqrt(runs)
    assert abs(imp.mean() - truth) < 4 * se
    # ...while the self-normalized eq. 6 with so few draws is visibly biased here
    # (consistent, O(1/n)); with q = p it is the plain mean and unbiased again.
    assert abs(sn.mean() - truth) > 4 * sn.std(ddof=1) / np.sqrt(runs)
    p = np.full(12, 1 / 12)
    sn_p = np.array([algorithm1(p, np.ones(12), 3.0, seeds.rng(12, "q", i), sample_loss=sample,
                                label_rng=seeds.rng(12, "y", i), mode="stochastic")["estimate"]
                     for i in range(3000)])
    assert abs(sn_p.mean() - truth) < 4 * sn_p.std(ddof=1) / np.sqrt(3000)


def test_monte_carlo_equals_algorithm1_run_by_run():
    probs, offsets, order, costs = _model_pool(5)
    q = q_star(probs, offsets, order, "dcg", costs)
    values = np.random.default_rng(0).uniform(0, 3, size=len(costs))
    budgets = np.array([2.0, 5.0, 9.5, 20.0, 60.0])
    sim = simulate(q, costs, values, budgets, seed=9, stream=("t", "dcg"), repetitions=range(25))
    assert sim["exhausted"][:, -1].any()
    for r in range(25):
        for j, b in enumerate(budgets):
            ref = algorithm1(q, costs, b, seeds.rng(9, "t", "dcg", r), values=values)
            assert sim["n"][r, j] == ref["n"]
            assert sim["spent"][r, j] == pytest.approx(ref["spent"], abs=1e-12)
            assert sim["exhausted"][r, j] == ref["exhausted"]
            np.testing.assert_allclose(sim["estimate"][r, j], ref["estimate"], rtol=1e-12)


def test_shards_merge_to_the_same_result():
    probs, offsets, order, costs = _model_pool(6)
    q = q_star(probs, offsets, order, "err", costs)
    values = np.random.default_rng(1).uniform(0, 1, size=len(costs))
    budgets = [3.0, 8.0, 15.0]
    whole = simulate(q, costs, values, budgets, seed=4, stream=("s",), repetitions=range(30))
    parts = [simulate(q, costs, values, budgets, seed=4, stream=("s",), repetitions=shard_range(30, s, 4))
             for s in range(4)]
    for key in ("estimate", "n", "spent", "repetition"):
        np.testing.assert_array_equal(np.concatenate([p[key] for p in parts]), whole[key])
    assert [len(shard_range(30, s, 4)) for s in range(4)] == [7, 8, 7, 8]


def test_active_beats_passive_when_the_model_is_right():
    """Labels drawn from the model itself: q* must give a smaller mean squared error
    than uniform sampling at equal budget (the point of Theorems 1 and 3)."""
    probs, offsets, order, costs = _model_pool(7, nq=400)
    g = np.random.default_rng(8)
    labels = (g.random(probs.shape[0])[:, None] > np.cumsum(probs, axis=1)).sum(axis=1)
    r = (2.0 ** labels - 1) / 16
    values = np.empty(400)
    for x in range(400):
        rr = r[order[offsets[x]:offsets[x + 1]]]
        keep = np.concatenate([[1.0], np.cumprod(1 - rr)[:-1]])
        values[x] = np.sum(rr * keep / np.arange(1, rr.size + 1))
    truth = values.mean()
    errs = {}
    for method in ("passive", "active"):
        q = q_star(probs, offsets, order, "err", costs, method=method)
        sim = simulate(q, costs, values, [20.0, 40.0], seed=1, stream=(method,), repetitions=range(3000))
        errs[method] = np.mean((sim["estimate"] - truth) ** 2, axis=0)
    assert np.all(errs["active"] < 0.85 * errs["passive"]), errs


def test_bad_calls():
    q = np.array([0.5, 0.5])
    with pytest.raises(ValueError, match="cheapest"):
        algorithm1(q, np.array([2.0, 3.0]), 1.0, np.random.default_rng(0), values=np.zeros(2))
    with pytest.raises(ValueError, match="cheapest"):
        simulate(q, np.array([2.0, 3.0]), np.zeros(2), [1.0, 5.0], seed=0, stream=(), repetitions=range(2))
    with pytest.raises(ValueError, match="q must be"):
        algorithm1(np.array([0.5, 0.6]), np.ones(2), 1.0, np.random.default_rng(0), values=np.zeros(2))
    with pytest.raises(ValueError, match="mode"):
        algorithm1(q, np.ones(2), 1.0, np.random.default_rng(0), values=np.zeros(2), mode="oracle")
    with pytest.raises(ValueError, match="values"):
        algorithm1(q, np.ones(2), 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="increasing"):
        simulate(q, np.ones(2), np.zeros(2), [5.0, 1.0], seed=0, stream=(), repetitions=range(2))
    with pytest.raises(ValueError, match="shard"):
        shard_range(10, 3, 3)
    assert draw_queries(np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.5, 0.999999])).tolist() == [1, 1, 1]
