"""Algorithm 1 (both labelling modes), eq. 6, and the vectorized Monte Carlo."""

from __future__ import annotations

import numpy as np
import pytest

from evalrank import seeds
from evalrank.active.estimate import algorithm1, draw_queries, weighted_estimates
from evalrank.papers.sawade2012.montecarlo import shard_range, simulate
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
    out = algorithm1(q, np.ones(3), 2.5, np.random.default_rng(0), values=np.array([1.0, 3.0, 100.0]))
    assert out["exhausted"] and not out["whole_pool"] and out["estimate"] == 2.0 and out["spent"] == 2.0


def test_a_budget_above_the_pool_cost_labels_the_whole_pool():
    """Whole pool: every query (the undrawable one too) is labelled, the estimate is the truth."""
    q = np.array([0.5, 0.5, 0.0])
    values = np.array([1.0, 3.0, 100.0])
    for budget in (3.0, 10.0):
        out = algorithm1(q, np.ones(3), budget, Scripted([]), values=values)  # no draw is made
        assert out["whole_pool"] and not out["capped"] and out["estimate"] == values.mean()
        assert out["n"] == 3 and out["spent"] == 3.0
    sim = simulate(q, np.ones(3), values, [1.0, 2.9, 3.0, 400.0], seed=0, stream=("w",), repetitions=range(5))
    assert sim["whole_pool"][:, 2:].all() and not sim["whole_pool"][:, :2].any()
    assert (sim["estimate"][:, 2:] == values.mean()).all() and (sim["spent"][:, 2:] == 3.0).all()
    assert sim["exhausted"][:, 1].all() and (sim["estimate"][:, 1] == 2.0).all()


def test_every_run_terminates_within_the_draw_cap_whatever_q_is():
    """The case that hung the DAG: a pool cheaper than the largest budget and a drawable
    query with q ~ 3e-19. Below the pool's cost a run could only stop by drawing that
    query (~10^18 draws); the cap stops it, and eq. 6 is computed over the draws made."""
    m = 240
    g = np.random.default_rng(3)
    costs = g.uniform(0.5, 1.5, m)
    costs[7] = 2.0
    costs /= costs.mean()
    q = np.full(m, 1.0)
    q[7] = 3e-19
    q /= q.sum()
    values = g.uniform(0, 2, m)
    almost = 240.0 - costs[7] / 2          # everything but query 7 is affordable, query 7 is not
    budgets = [10.0, 50.0, 100.0, almost, 300.0, 400.0]   # the pool costs 240
    sim = simulate(q, costs, values, budgets, seed=1, stream=("cap",), repetitions=range(20), max_draws=5000)
    assert sim["capped"][:, 3].all() and (sim["n"][:, 3] == 5000).all()
    assert not sim["capped"][:, :3].any() and sim["whole_pool"][:, 4:].all()
    labelled_mean = np.delete(values, 7).mean()
    np.testing.assert_allclose(sim["estimate"][:, 3], labelled_mean, atol=0.05)  # free re-draws converge to it
    ref = algorithm1(q, costs, almost, seeds.rng(1, "cap", 0), values=values, max_draws=5000)
    assert ref["capped"] and ref["n"] == 5000 and ref["estimate"] == pytest.approx(sim["estimate"][0, 3], rel=1e-12)
    # the default cap: 100 draws per pool query
    sim = simulate(q, costs, values, [almost], seed=1, stream=("cap",), repetitions=range(2))
    assert (sim["n"][:, 0] == 100 * m).all() and sim["capped"].all()


def test_uniforms_are_drawn_in_bounded_chunks():
    """A repetition never asks its generator for more than CHUNK uniforms at once."""
    from evalrank.papers.sawade2012 import montecarlo

    class Counting:
        def __init__(self):
            self.g, self.sizes = np.random.default_rng(0), []

        def random(self, n):
            self.sizes.append(n)
            return self.g.random(n)

    m = 50
    q = np.full(m, 1.0)
    q[0] = 1e-12
    q /= q.sum()
    counter = Counting()
    real_rngs = montecarlo.stream_rngs
    montecarlo.stream_rngs = lambda seed, stream, reps: (counter for _ in reps)
    try:
        out = simulate(q, np.ones(m), np.ones(m), [49.5], seed=0, stream=(), repetitions=[0], max_draws=300_000)
    finally:
        montecarlo.stream_rngs = real_rngs
    assert out["capped"].all() and max(counter.sizes) <= montecarlo.CHUNK and sum(counter.sizes) >= 300_000


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
    q[3] = 1e-7                       # a query the runs rarely draw: some reach the cap
    q /= q.sum()
    budgets = np.array([2.0, 5.0, 9.5, 20.0, 39.5, 60.0])   # the pool costs 40
    sim = simulate(q, costs, values, budgets, seed=9, stream=("t", "dcg"), repetitions=range(25), max_draws=800)
    assert sim["capped"][:, -2].any() and sim["whole_pool"][:, -1].all()
    for r in range(25):
        for j, b in enumerate(budgets):
            ref = algorithm1(q, costs, b, seeds.rng(9, "t", "dcg", r), values=values, max_draws=800)
            assert sim["n"][r, j] == ref["n"]
            assert sim["spent"][r, j] == pytest.approx(ref["spent"], abs=1e-12)
            for flag in ("exhausted", "capped", "whole_pool"):
                assert sim[flag][r, j] == ref[flag]
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
    with pytest.raises(ValueError, match="must not exceed n_repetitions"):
        shard_range(2, 0, 3)
    with pytest.raises(ValueError, match="max_draws"):
        simulate(q, np.ones(2), np.zeros(2), [1.0], seed=0, stream=(), repetitions=range(2), max_draws=0)
    assert draw_queries(np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.5, 0.999999])).tolist() == [1, 1, 1]
