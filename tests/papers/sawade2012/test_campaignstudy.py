"""The labelling tool's coverage study (evalrank.papers.sawade2012.campaignstudy) computes what the tool
reports: the same draws as a plan, the same estimates and intervals as campaign.estimate_from_draws."""

import numpy as np
import pytest

from evalrank.papers.sawade2012 import campaignstudy
from evalrank.active.campaign import estimate_from_draws, predicted_term_variance
from evalrank.active.estimate import budgeted_draws
from evalrank.active.sampling import defensive


def _setup(seed=0, m=120):
    rng = np.random.default_rng(seed)
    L = rng.gamma(0.6, 4.0, size=m)                     # skewed per-query values
    f = L * rng.lognormal(0, 0.4, size=m)               # a rough label model
    var = (0.3 * f) ** 2
    costs = rng.uniform(0.5, 1.5, size=m)
    costs *= m / costs.sum()
    q = np.sqrt((var + (f - f.mean()) ** 2) / costs)
    return {"q_dcg_active": q / q.sum(), "values_dcg": L, "pred_mean_dcg": f, "pred_var_dcg": var, "costs": costs,
            "truth_dcg": np.float64(L.mean())}


def test_campaign_draws_are_algorithm_1s_on_the_same_stream():
    s = _setup()
    q = defensive(s["q_dcg_active"], 0.05)
    budgets = np.array([5.0, 10.0, 30.0, 60.0])
    d, counts = campaignstudy.campaign_draws(q, s["costs"], budgets, np.random.default_rng(42), max_draws=10_000)
    for b, c in zip(budgets, counts):
        ref = budgeted_draws(q, s["costs"], b, np.random.default_rng(42))
        assert np.array_equal(ref["queries"], d[:c])


def test_study_estimates_and_intervals_are_the_tools():
    s = _setup(1)
    budgets = [5.0, 10.0, 30.0, 60.0]
    out = campaignstudy.simulate_campaigns(s, "dcg", epsilons=[0.0, 0.05], budgets=budgets, repetitions=range(6),
                                           seed=3, stream=("t",), tune_budget=30.0, level=0.9)
    from evalrank import seeds

    m = s["values_dcg"].size
    for ei, eps in enumerate([0.0, 0.05]):
        q = defensive(s["q_dcg_active"], eps)
        for r in range(6):
            d, counts = campaignstudy.campaign_draws(q, s["costs"], np.array(budgets),
                                                     seeds.rng(3, "t", f"eps{ei}", r), max_draws=10_000)
            assert np.array_equal(counts, out[f"draws_{ei}"][r])
            w = 1.0 / (m * q[d])
            for est, interval in campaignstudy.COMBOS:
                for j, c in enumerate(counts):
                    if c < 2:
                        continue
                    ref = estimate_from_draws(w[:c], s["values_dcg"][d[:c]], s["pred_mean_dcg"][d[:c]],
                                              s["pred_mean_dcg"].mean(), estimator=est, interval=interval, level=0.9,
                                              t_star=max(counts[2], 2), var_floor=predicted_term_variance(
                                                  q, s["pred_var_dcg"], s["pred_mean_dcg"] if est == "eq6" else None))
                    key = f"{ei}_{est}_{interval}"
                    assert out[f"estimate_{key}"][r, j] == pytest.approx(ref["estimate"], rel=1e-9)
                    assert out[f"low_{key}"][r, j] == pytest.approx(ref["ci_low"], rel=1e-7, abs=1e-9)
                    assert out[f"high_{key}"][r, j] == pytest.approx(ref["ci_high"], rel=1e-7, abs=1e-9)
                    truth = s["values_dcg"].mean()
                    assert out[f"miss_at_{key}"][r, j] == (not ref["ci_low"] <= truth <= ref["ci_high"])


def test_a_miss_between_two_budgets_is_kept():
    miss = np.array([[False, True, False, False, False], [False, False, False, False, True]])
    counts = np.array([[1, 3, 5], [1, 3, 5]])
    at, since = campaignstudy._misses(miss, counts)
    assert at.tolist() == [[False, False, False], [False, False, True]]
    assert since.tolist() == [[False, True, False], [False, False, True]]


def test_offset_share_is_one_for_a_model_off_by_a_constant_and_zero_for_an_unbiased_mean():
    rng = np.random.default_rng(4)
    L = rng.gamma(1.0, 2.0, size=50)
    q = rng.dirichlet(np.ones(50))
    # f = L - 0.7: every term is f_pool + 0.7 w, so psi - R = 0.7 (w - 1): all of the variance
    assert campaignstudy.offset_share(q, L, L - 0.7) == pytest.approx(1.0)
    noise = rng.normal(0, 1, 50)
    f = L + noise - noise.mean()       # f_pool = R: no offset
    assert campaignstudy.offset_share(q, L, f) == pytest.approx(0.0, abs=1e-12)
    assert 0.0 < campaignstudy.offset_share(q, L, L + noise) < 1.0


@pytest.mark.parametrize("seed", range(6))
def test_campaign_draws_follow_the_stream_and_algorithm_1_on_skewed_pools(seed):
    """Pools whose q repeats a few queries often (campaigns outgrow their first chunk of uniforms),
    with undrawable queries (some campaigns label every drawable one) and a small draw cap: the
    draws are the stream's inverse-CDF draws, one uniform each, and at every budget where the
    campaign neither exhausted the drawable queries nor hit the cap they are Algorithm 1's."""
    from evalrank.active.estimate import draws_from_cdf, query_cdf

    g = np.random.default_rng(seed)
    m = 30
    q = g.gamma(0.6, size=m) + 0.01
    q[:3] *= 40.0
    q[3:3 + seed % 3] = 0.0
    q /= q.sum()
    costs = g.uniform(0.3, 2.0, size=m)
    budgets = np.array([1.0, 3.0, 10.0, 0.8 * costs.sum(), costs.sum() - 1e-9, costs.sum() + 1.0])
    cap = (400, 3000)[seed % 2]
    for r in range(8):
        d, counts = campaignstudy.campaign_draws(q, costs, budgets, np.random.default_rng([seed, r]), max_draws=cap)
        stream = draws_from_cdf(query_cdf(q), np.random.default_rng([seed, r]).random(max(d.size, 1)))
        assert np.array_equal(d, stream[:d.size]) and counts.max() == d.size == counts[-1]
        for b, c in zip(budgets[:-1], counts[:-1]):
            ref = budgeted_draws(q, costs, b, np.random.default_rng([seed, r]), max_draws=cap)
            if not (ref["exhausted"] or ref["capped"]):
                assert np.array_equal(ref["queries"], d[:c])
            else:
                assert c >= ref["queries"].size and np.array_equal(ref["queries"], d[:ref["queries"].size])


def test_first_order_ratio_is_the_large_sample_mse_ratio_monte_carlo():
    """n x MSE over 3,000 campaigns of 600 draws, each estimator against eq. 6 on the same draws,
    within 6 % of the exact large-sample ratio; a useless label model (f unrelated to L) is
    above 1, a useful one below."""
    rng = np.random.default_rng(5)
    m = 80
    L = rng.gamma(0.8, 1.0, m)
    q = rng.dirichlet(np.full(m, 2.0))
    for f, side in ((L + rng.normal(0, 0.2, m), "below"), (rng.permutation(L) * 1.5, "above")):
        d = rng.choice(m, size=(3000, 600), p=q)
        w = 1.0 / (m * q[d])
        r = L[d] - f[d]
        err = {"eq6": (w * L[d]).sum(1) / w.sum(1) - L.mean(),
               "aipw": f.mean() + (w * r).mean(1) - L.mean(),
               "hajek": f.mean() + (w * r).sum(1) / w.sum(1) - L.mean()}
        for est in ("aipw", "hajek"):
            exact = campaignstudy.first_order_ratio(q, L, f, est)
            mc = np.mean(err[est] ** 2) / np.mean(err["eq6"] ** 2)
            assert mc == pytest.approx(exact, rel=0.06), (est, side)
            assert (exact < 1) == (side == "below"), (est, side)
    assert campaignstudy.first_order_ratio(q, L, L, "eq6") == 1.0
    with pytest.raises(ValueError, match="estimator"):
        campaignstudy.first_order_ratio(q, L, L, "mean")


def test_the_tools_default_in_the_study_is_finite_estimate_on_the_plans_q():
    """simulate_finite: the plan's q (the control variate's q* for one ranker, floored), Algorithm
    1's draws on its own stream, and at each budget the interval finite_estimate gives on those
    draws; a whole-pool budget is exact."""
    from evalrank import seeds
    from evalrank.active.finite import finite_estimate
    from evalrank.active.sampling import instrumental

    s = _setup(2)
    m = s["values_dcg"].size
    s["range_lo_dcg"], s["range_hi_dcg"] = np.zeros(m), np.full(m, 80.0)
    budgets = [5.0, 10.0, 30.0, 60.0, 1e6]
    out = campaignstudy.simulate_finite(s, "dcg", difference=False, epsilon=0.05, budgets=budgets,
                                        repetitions=range(4), seed=3, stream=("t",), tune_budget=30.0)
    q = defensive(instrumental(s["pred_var_dcg"], s["costs"]), 0.05)
    truth = s["values_dcg"].mean()
    for r in range(4):
        d, counts = campaignstudy.campaign_draws(q, s["costs"], np.array(budgets), seeds.rng(3, "t", "finite", r),
                                                 max_draws=10_000)
        assert np.array_equal(counts, out["draws_finite"][r])
        labels_at = [np.unique(d[:c]).size for c in counts]
        ref = finite_estimate(q, d[:counts[3]], s["values_dcg"], s["pred_mean_dcg"], s["range_lo_dcg"],
                              s["range_hi_dcg"], t_star=labels_at[2])
        for j in range(4):
            k = labels_at[j] - 1
            assert out["estimate_finite_cs"][r, j] == pytest.approx(ref["estimate"][k], rel=1e-12)
            assert (out["low_finite_cs"][r, j], out["high_finite_cs"][r, j]) == pytest.approx(
                (ref["ci_low"][k], ref["ci_high"][k]), rel=1e-12)
        assert out["low_finite_cs"][r, 4] == out["high_finite_cs"][r, 4] == pytest.approx(truth)


def test_on_the_asymptotic_studys_stream_a_difference_labels_the_same_draws():
    """simulate_finite with draw_stream "eps<i>" (what the study passes for the default floor) on a
    difference draws exactly what simulate_campaigns draws at that floor: common random numbers, so
    the two designs' RMSEs compare campaign by campaign."""
    s = _setup(5)
    m = s["values_dcg"].size
    s["range_lo_dcg"], s["range_hi_dcg"] = np.full(m, -80.0), np.full(m, 80.0)
    budgets = [5.0, 10.0, 30.0, 60.0]
    kw = dict(budgets=budgets, repetitions=range(6), seed=4, stream=("t",), tune_budget=30.0)
    camp = campaignstudy.simulate_campaigns(s, "dcg", epsilons=[0.2, 0.05], **kw)
    same = campaignstudy.simulate_finite(s, "dcg", difference=True, epsilon=0.05, draw_stream="eps1", **kw)
    other = campaignstudy.simulate_finite(s, "dcg", difference=True, epsilon=0.05, **kw)
    assert np.array_equal(same["draws_finite"], camp["draws_1"])
    assert not np.array_equal(other["draws_finite"], camp["draws_1"])


def test_rounds_continue_the_plan_with_the_labels_as_the_tool_does():
    """simulate_rounds: each campaign is rounds_campaign on its own stream. Round k's new queries cost
    at most the k-th budget in all; each later round's shares are choose_round's on the plan of the
    rounds before it (the tool's ``plan --continue --qrels``); at each budget the interval is
    finite_estimate's on those draws with those rounds (their q, weights from earlier labels, shape
    shares); a whole-pool budget is exact."""
    from evalrank import seeds
    from evalrank.active.adapt import choose_round
    from evalrank.active.campaign_state import Plan, mixed_rounds
    from evalrank.active.estimate import default_max_draws
    from evalrank.active.finite import finite_estimate
    from evalrank.active.sampling import instrumental

    s = _setup(2)
    m = s["values_dcg"].size
    s["range_lo_dcg"], s["range_hi_dcg"] = np.zeros(m), np.full(m, 80.0)
    L, f, v, costs = s["values_dcg"], s["pred_mean_dcg"], s["pred_var_dcg"], s["costs"]
    budgets = [5.0, 10.0, 30.0, 60.0, 1e6]
    out = campaignstudy.simulate_rounds(s, "dcg", difference=False, epsilon=0.05, budgets=budgets,
                                        repetitions=range(6), seed=3, stream=("t",))
    q = defensive(instrumental(v, costs), 0.05)
    truth = L.mean()
    moved = 0
    for r in range(6):
        d, ends, mixes, shapes = campaignstudy.rounds_campaign(q, costs, L, f, v, budgets[:4],
                                                               seeds.rng(3, "t", "rounds", r),
                                                               max_draws=default_max_draws(m))
        assert np.array_equal(out["draws_finite_rounds"][r], [*ends, ends[-1]])
        for e, b in zip(ends, budgets):
            assert costs[np.unique(d[:e])].sum() <= b + 1e-9
        for k in range(1, ends.size):
            before = Plan([str(i) for i in range(m)], q, costs, f, v, d[:ends[k - 1]], 0.0, False, False, False,
                          {"round_draws": ends[:k].tolist(), "rounds": k, "round_mix": mixes[:k],
                           "round_shape": shapes[:k]})
            assert (mixes[k], shapes[k]) == choose_round(before, L)
        moved += any(x > 0 for x in mixes) or any(x < 1 for x in shapes)
        labels_at = [np.unique(d[:c]).size for c in ends]
        of = np.minimum(np.searchsorted(ends, np.arange(d.size), side="right"), ends.size - 1)
        ref = finite_estimate(mixed_rounds(q, mixes), d, L, f, s["range_lo_dcg"], s["range_hi_dcg"],
                              t_star=max(labels_at[0], 2), draw_rounds=of, adapted=True, round_scale="labels",
                              round_shape=shapes)
        for j in range(4):
            k = labels_at[j] - 1
            assert out["estimate_finite_rounds_cs"][r, j] == pytest.approx(ref["estimate"][k], rel=1e-12)
            assert (out["low_finite_rounds_cs"][r, j], out["high_finite_rounds_cs"][r, j]) == pytest.approx(
                (ref["ci_low"][k], ref["ci_high"][k]), rel=1e-12)
        assert out["low_finite_rounds_cs"][r, 4] == out["high_finite_rounds_cs"][r, 4] == pytest.approx(truth)
    assert moved > 0      # the labels moved some campaign off the plan's q or the model's full shape
