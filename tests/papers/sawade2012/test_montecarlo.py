"""The Monte Carlo's running sums and standard errors against Algorithm 1 run by run and the
interval of a single campaign (evalrank.active.interval.weighted_interval)."""

from __future__ import annotations

import numpy as np
import pytest

from evalrank import seeds
from evalrank.active.estimate import algorithm1
from evalrank.active.interval import weighted_interval
from evalrank.papers.sawade2012.montecarlo import SUMS, simulate, standard_errors


def _pool(seed, m=30):
    g = np.random.default_rng(seed)
    q = g.gamma(0.7, size=m)
    q /= q.sum()
    costs = g.uniform(0.3, 2.5, size=m)
    values = g.lognormal(0.0, 1.0, size=m)  # skewed, like DCG
    return q, costs, values


def test_sums_and_standard_errors_equal_a_brute_force_run_by_run():
    q, costs, values = _pool(1)
    q[4] = 1e-7                       # rarely drawn: some runs reach the cap
    q /= q.sum()
    pool_cost = costs.sum()
    budgets = np.array([1.0, 3.0, 8.0, pool_cost - 0.5, pool_cost + 1.0])
    sim = simulate(q, costs, values, budgets, seed=3, stream=("sums",), repetitions=range(20), max_draws=600)
    se, half = standard_errors(sim, q, level=0.9)
    assert sim["capped"][:, -2].any() and sim["whole_pool"][:, -1].all()
    for r in range(20):
        for j, b in enumerate(budgets):
            ref = algorithm1(q, costs, b, seeds.rng(3, "sums", r), values=values, max_draws=600)
            x = ref["queries"]
            w = np.ones(x.size) if ref["whole_pool"] else 1.0 / (q.size * q[x])
            v = values[x]
            expect = [w.sum(), (w * v).sum(), (w * w).sum(), (w * w * v).sum(), (w * w * v * v).sum()]
            np.testing.assert_allclose([sim[k][r, j] for k in SUMS], expect, rtol=1e-11)
            exact = ref["whole_pool"] or ref["exhausted"]   # q > 0 everywhere here
            if x.size == 0:
                assert np.isnan(se[r, j])
                continue
            iv = weighted_interval(w, v, level=0.9, exact=exact)
            assert se[r, j] == pytest.approx(iv["stderr"], rel=1e-9, abs=1e-12)
            assert half[r, j] == pytest.approx(iv["ci_high"] - iv["estimate"], rel=1e-9, abs=1e-12)
            if not ref["exhausted"]:
                assert sim["estimate"][r, j] == pytest.approx(iv["estimate"], rel=1e-12)


def test_exhausted_runs_are_exact_only_when_every_query_can_be_drawn():
    values = np.array([1.0, 3.0, 100.0])
    for q, expect in ((np.array([0.5, 0.3, 0.2]), 0.0), (np.array([0.5, 0.5, 0.0]), np.nan)):
        sim = simulate(q, np.ones(3), values, [2.5, 2.9], seed=0, stream=("x",), repetitions=range(4))
        assert sim["exhausted"][:, -1].all() or q[2] > 0
        se, half = standard_errors(sim, q)
        done = sim["exhausted"]
        np.testing.assert_array_equal(se[done], expect)
        np.testing.assert_array_equal(half[done], expect)


def test_one_draw_gives_an_infinite_interval_and_none_no_interval():
    # query 1 never fits the budget: runs draw query 0 until they draw 1 (n = 0, 1, 2, ...)
    q = np.array([0.5, 0.5])
    sim = simulate(q, np.array([1.0, 1.5]), np.array([0.0, 1.0]), [1.2], seed=0, stream=(), repetitions=range(40))
    se, half = standard_errors(sim, q)
    n = sim["n"][:, 0]
    assert {0, 1, 2} <= set(n.tolist())
    assert np.isnan(half[n == 0, 0]).all() and np.isinf(half[n == 1, 0]).all()
    assert (half[n >= 2, 0] == 0).all()  # every draw the same query: no spread


def test_coverage_at_a_small_size_is_near_nominal():
    """2,000 campaigns on a skewed pool of 400 queries, ~60 draws each: the 95 % interval covers
    the truth in 91-98 % of them, passive and with a cost-aware q (the DAG's study is the real check)."""
    g = np.random.default_rng(5)
    m = 400
    values = g.gamma(2.0, size=m)
    costs = g.uniform(0.5, 1.5, size=m)
    truth = values.mean()
    scale = np.sqrt(values + 0.5) / np.sqrt(costs)  # a q* of an imperfect label model
    for q in (np.full(m, 1.0 / m), scale / scale.sum()):
        sim = simulate(q, costs, values, [60.0], seed=11, stream=("cov",), repetitions=range(2000))
        _, half = standard_errors(sim, q)
        covered = np.abs(sim["estimate"][:, 0] - truth) <= half[:, 0]
        assert 0.91 <= covered.mean() <= 0.98, covered.mean()


def test_results_do_not_depend_on_how_the_uniforms_are_chunked(monkeypatch):
    """A run that outgrows its first chunk continues the same stream with doubling chunks: the
    arrays equal a run whose chunks hold 3 uniforms each (every run needs many chunks there)."""
    from evalrank.papers.sawade2012 import montecarlo

    q, costs, values = _pool(5)
    q[:3] *= 40.0                     # a few queries drawn again and again: runs outgrow the first chunk
    q /= q.sum()
    budgets = np.array([2.0, 6.0, 15.0, costs.sum() - 0.2])
    ref = simulate(q, costs, values, budgets, seed=9, stream=("chunks",), repetitions=range(12), max_draws=5000)
    assert ref["n"][:, -1].max() > 2 * (2 * budgets[-1] / np.dot(q, costs) + 64)  # a third chunk was needed
    monkeypatch.setattr(montecarlo, "CHUNK", 3)
    small = simulate(q, costs, values, budgets, seed=9, stream=("chunks",), repetitions=range(12), max_draws=5000)
    for k in ("estimate", "importance", "n", "spent", "stop", *SUMS):
        np.testing.assert_array_equal(small[k], ref[k], err_msg=k)


def test_stream_rngs_are_the_seeds_module_streams():
    from evalrank.papers.sawade2012.montecarlo import stream_rngs

    reps = [0, 1, 7, 2**31 + 5, 2**32 + 3]
    stream = ("active-mc", "fig1_rf", 1, "err", "active")
    for r, gen in zip(reps, stream_rngs(20120924, stream, reps)):
        np.testing.assert_array_equal(gen.random(20), seeds.rng(20120924, *stream, r).random(20))


@pytest.mark.parametrize("batch", [1, 2000, 1 << 21])
def test_batched_runs_equal_algorithm_1_run_by_run(monkeypatch, batch):
    """Repetitions run in batches (many rows per call, sharing the labelled-query stamps); a run
    that outgrows its first chunk is restarted alone: every run equals Algorithm 1 fed its own
    stream, whatever the batch size (1 uniform per batch: one row per call; 2,000: ~16 rows)."""
    from evalrank.papers.sawade2012 import montecarlo

    monkeypatch.setattr(montecarlo, "BATCH_UNIFORMS", batch)
    q, costs, values = _pool(8, m=25)
    q = q / q.sum() + 0.02
    q[:2] *= 30.0                      # runs that repeat queries: many outgrow the first chunk
    q[6] = 0.0                         # an undrawable query: runs exhaust the drawable ones
    q /= q.sum()
    budgets = np.array([1.5, 4.0, 12.0, costs.sum() - 0.5 * costs[6], costs.sum() + 1.0])
    sim = simulate(q, costs, values, budgets, seed=5, stream=("batch", batch), repetitions=range(3, 33), max_draws=5000)
    assert sim["exhausted"].any() and (sim["stop"][:, 2] == 0).all() and sim["whole_pool"][:, -1].all()
    assert (sim["n"][:, -2] > 2 * (2 * budgets[-2] / np.dot(q, costs) + 64)).any()  # a third chunk was needed
    for i, r in enumerate(range(3, 33)):
        for j, b in enumerate(budgets):
            ref = algorithm1(q, costs, b, seeds.rng(5, "batch", batch, r), values=values, max_draws=5000)
            assert sim["n"][i, j] == ref["n"] and sim["spent"][i, j] == pytest.approx(ref["spent"], rel=1e-12)
            assert bool(sim["exhausted"][i, j]) == bool(ref["exhausted"])
            assert sim["estimate"][i, j] == pytest.approx(ref["estimate"], rel=1e-12, nan_ok=True)


def test_the_guided_inverse_cdf_is_searchsorted():
    """The kernels' inverse CDF (guide table + binary search) against np.searchsorted on cdfs
    with flat stretches (undrawable queries), steps at the guide's bucket ends and uniforms at,
    just below and just above those ends."""
    from evalrank.active.estimate import draws_from_cdf, query_cdf
    from evalrank.papers.sawade2012.montecarlo import _inverse_cdf, guide_table

    g = np.random.default_rng(0)
    for m in (1, 2, 3, 7, 64, 1000):
        for kind in ("gamma", "zeros", "grid", "spike"):
            q = g.gamma(0.3, size=m) + (kind == "grid")
            if kind == "zeros":
                q[g.random(m) < 0.5] = 0.0
                q[0] += 1e-3
            if kind == "spike":
                q[m // 2] = 1e6
            cdf = query_cdf(q / q.sum())
            guide = guide_table(cdf)
            edges = np.concatenate([np.arange(m + 1) / m, cdf])
            u = np.concatenate([g.random(2000), edges, np.nextafter(edges, 0), np.nextafter(edges, 2)])
            u = u[(u >= 0) & (u < 1)]
            got = np.array([_inverse_cdf(cdf, guide, x) for x in u])
            np.testing.assert_array_equal(got, draws_from_cdf(cdf, u))
