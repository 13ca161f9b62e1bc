"""Fig. 1's calibrated twin (evalrank.papers.sawade2012.calibrated) through the stage's files: its setup
against an independent assembly from theorem3_correlated, the Monte Carlo's common random numbers with
the base experiment, the summary's rows (the paper's rows unchanged, the twin's appended), the variance
split table and the Fig. 1 overlay."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr

from evalrank import io
from evalrank.active.sampling import METHODS, instrumental
from evalrank.active.theorem3_correlated import (batch_mean_var_factor, doob_increments, fit_factor_correlation,
                                                 true_losses, variance_split)
from evalrank.data.collection import Collection, segment_ids
from evalrank.metrics.ranking import rank_order
from evalrank.papers.sawade2012.experiments import experiments, setup_file
from evalrank.papers.sawade2012.montecarlo import shard_file
from evalrank.papers.sawade2012.report import summary_files

EXP = dict(models=["rf"], drop=0.1, base_pairs=100, base_model=None, sizes=None)


def _queries(g, nq, rho):
    """Queries whose labels follow the copula with correlation rho around random marginals; the
    scores rank by the marginal's mean grade plus noise."""
    sizes = g.integers(3, 25, size=nq)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(offsets[-1])
    probs = g.dirichlet(np.full(5, 0.7), size=n)
    u = np.repeat(g.standard_normal(nq), sizes)
    unif = ndtr(np.sqrt(rho) * u + np.sqrt(1 - rho) * g.standard_normal(n))
    labels = np.minimum((np.cumsum(probs, axis=1) < unif[:, None]).sum(axis=1), 4).astype(np.int8)
    scores = probs @ np.arange(5) + g.normal(0, 0.5, n)
    return {"scores": scores, "probs": probs, "labels": labels, "offsets": offsets,
            "qids": np.arange(nq, dtype=np.int64)}


@pytest.fixture(scope="module")
def stage(tmp_path_factory):
    """Pool (60 queries, two partitions), validation predictions (40 queries), both setups."""
    tmp = tmp_path_factory.mktemp("calibrated")
    g = np.random.default_rng(31)
    pool, vali = _queries(g, 60, 0.3), _queries(g, 40, 0.3)
    n = pool["offsets"][-1]
    X = np.column_stack([g.normal(size=n), g.lognormal(6, 1, size=n)]).astype(np.float32)
    parts = []
    for i, (lo, hi) in enumerate(((0, 30), (30, 60))):
        o = pool["offsets"]
        Collection(features=X[o[lo]:o[hi]], labels=pool["labels"][o[lo]:o[hi]], offsets=o[lo:hi + 1] - o[lo],
                   qids=pool["qids"][lo:hi]).save(tmp / f"S{i + 1}.npz")
        parts.append(tmp / f"S{i + 1}.npz")
    io.save_arrays(tmp / "rf.npz", **pool)
    io.save_arrays(tmp / "rf_vali.npz", **vali)
    kw = dict(EXP, predictions={"rf": tmp / "rf.npz"}, pool=parts, cost_feature=2, measures=["err", "dcg"],
              max_grade=4, seed=5, fold=1)
    setup_file("fig1_rf", **kw, output=tmp / "fig1_rf" / "setup.npz")
    setup_file("fig1_rf_calibrated", **kw, calibrated=["rf"], vali_predictions={"rf": tmp / "rf_vali.npz"},
               output=tmp / "fig1_rf_calibrated" / "setup.npz")
    return {"tmp": tmp, "pool": pool, "vali": vali, "kw": kw, "lengths": X[:, 1].astype(np.float64)}


def test_experiments_add_the_twin_last_and_only_when_asked():
    names = [e.name for e in experiments(["rf", "ordered_logit", "ranksvm"], drop=0.1)]
    twins = experiments(["rf", "ordered_logit", "ranksvm"], drop=0.1, calibrated=["ordered_logit", "rf"])
    assert [e.name for e in twins[:len(names)]] == names and not any(e.calibrated for e in twins[:len(names)])
    assert [(e.name, e.a, e.kind, e.base) for e in twins[len(names):]] == [
        ("fig1_ordered_logit_calibrated", "ordered_logit", "estimate", "fig1_ordered_logit"),
        ("fig1_rf_calibrated", "rf", "estimate", "fig1_rf")]
    with pytest.raises(TypeError, match="calibrated"):
        experiments(["rf"], calibrated="rf")


def test_calibrated_setup_is_the_base_with_the_copula_q(stage):
    base = io.load_arrays(stage["tmp"] / "fig1_rf" / "setup.npz")
    twin = io.load_arrays(stage["tmp"] / "fig1_rf_calibrated" / "setup.npz")
    meta = json.loads(str(twin["meta"]))
    assert meta["calibrated"] is True and meta["base"] == "fig1_rf" and meta["experiment"] == "fig1_rf_calibrated"
    pool, vali = stage["pool"], stage["vali"]
    order, vorder = rank_order(pool["scores"], pool["offsets"]), rank_order(vali["scores"], vali["offsets"])
    for m in ("err", "dcg"):
        for k in ("costs", f"values_{m}", f"truth_{m}", f"q_{m}_passive", f"q_{m}_active_uniD"):
            np.testing.assert_array_equal(twin[k], base[k], err_msg=k)
        rho = fit_factor_correlation(vali["probs"], vali["labels"], vali["offsets"], vorder, m, max_grade=4)
        assert float(twin[f"rho_{m}"]) == rho
        assert 0.05 < rho < 0.8  # the planted 0.3 is seen (40 validation queries)
        mean, var = batch_mean_var_factor(pool["probs"], pool["offsets"], order, m, rho)
        second = var + (mean - mean.mean()) ** 2
        np.testing.assert_allclose(twin[f"q_{m}_active"], instrumental(second, base["costs"]), rtol=1e-12)
        np.testing.assert_allclose(twin[f"q_{m}_active_uniC"], second ** 0.5 / (second ** 0.5).sum(), rtol=1e-12)
        np.testing.assert_array_equal(twin[f"indep_var_{m}"], base[f"pred_var_{m}"])
        assert twin[f"pred_var_{m}"].mean() > base[f"pred_var_{m}"].mean()
        d = doob_increments(pool["labels"], pool["probs"], pool["offsets"], order, m, max_grade=4)
        np.testing.assert_allclose(twin[f"within_{m}"], np.bincount(segment_ids(pool["offsets"]), weights=d * d))
        want = variance_split(vali["labels"], vali["probs"], vali["offsets"], vorder, m, max_grade=4)
        assert float(twin[f"fit_ratio_{m}"]) == pytest.approx(want["ratio_squared_error"], rel=1e-12)
    assert int(twin["fit_queries"]) == 40 and meta["crossfit"] is False


def _take(pred, lo, hi):
    """Queries lo..hi-1 of a prediction dict, offsets from 0."""
    o = pred["offsets"]
    return {"scores": pred["scores"][o[lo]:o[hi]], "probs": pred["probs"][o[lo]:o[hi]],
            "labels": pred["labels"][o[lo]:o[hi]], "offsets": o[lo:hi + 1] - o[lo], "qids": pred["qids"][lo:hi]}


def test_crossfit_fits_rho_on_both_halves(stage):
    """The swapped model's queries join the validation queries: rho is the fit on the 70 queries the
    two files were cut from, and only rho (with what follows from it) differs from the fit on the
    validation queries alone."""
    tmp, g = stage["tmp"], np.random.default_rng(8)
    both = _queries(g, 70, 0.3)
    io.save_arrays(tmp / "rf_vali_40.npz", **_take(both, 0, 40))
    io.save_arrays(tmp / "rf_swap_30.npz", **_take(both, 40, 70))
    kw = dict(stage["kw"], calibrated=["rf"], vali_predictions={"rf": tmp / "rf_vali_40.npz"})
    setup_file("fig1_rf_calibrated", **kw, swap_predictions={"rf": tmp / "rf_swap_30.npz"}, output=tmp / "xf.npz")
    setup_file("fig1_rf_calibrated", **kw, output=tmp / "vali_only.npz")
    xf, alone = io.load_arrays(tmp / "xf.npz"), io.load_arrays(tmp / "vali_only.npz")
    assert json.loads(str(xf["meta"]))["crossfit"] is True and int(xf["fit_queries"]) == 70
    order = rank_order(both["scores"], both["offsets"])
    for m in ("err", "dcg"):
        rho = fit_factor_correlation(both["probs"], both["labels"], both["offsets"], order, m, max_grade=4)
        assert float(xf[f"rho_{m}"]) == pytest.approx(rho, abs=1e-9)
        assert float(xf[f"rho_{m}"]) != float(alone[f"rho_{m}"])
        want = variance_split(both["labels"], both["probs"], both["offsets"], order, m, max_grade=4)
        assert float(xf[f"fit_ratio_{m}"]) == pytest.approx(want["ratio_squared_error"], rel=1e-12)
        np.testing.assert_array_equal(xf[f"indep_var_{m}"], alone[f"indep_var_{m}"])


def test_calibrated_setup_needs_the_validation_predictions(stage):
    with pytest.raises(ValueError, match="vali-predictions"):
        setup_file("fig1_rf_calibrated", **stage["kw"], calibrated=["rf"], output=stage["tmp"] / "x.npz")
    with pytest.raises(ValueError, match="experiment must be one of"):
        setup_file("fig1_rf_calibrated", **stage["kw"], output=stage["tmp"] / "x.npz")


def _shard(setup, out):
    shard_file(setup, budgets=[3.0, 8.0, 20.0], repetitions=40, shard=0, shards=1, seed=5, campaign_repetitions=4,
               campaign_budgets=[3.0, 8.0], epsilons=[0.0, 0.05], tune_budget=8.0, level=0.9, output=out)
    return out


def test_twin_reuses_the_base_streams_and_summary_appends_its_rows(stage):
    tmp = stage["tmp"]
    setups = [tmp / "fig1_rf" / "setup.npz", tmp / "fig1_rf_calibrated" / "setup.npz"]
    shards = [_shard(s, s.parent / "shard0.npz") for s in setups]
    a, b = (io.load_arrays(p) for p in shards)
    for m in ("err", "dcg"):
        for method in ("passive", "active_uniD"):  # same q, same uniforms: the same runs
            np.testing.assert_array_equal(a[f"estimate_{m}_{method}"], b[f"estimate_{m}_{method}"])
        assert not np.array_equal(a[f"estimate_{m}_active"], b[f"estimate_{m}_active"])
    assert "campaign_budgets" in a and "campaign_budgets" not in b
    alone, both = tmp / "alone", tmp / "both"
    common = dict(reference_budget=8.0, train_size_budget=8.0, level=0.9)
    summary_files(setups=setups[:1], shards=shards[:1], out_dir=alone, **common)
    summary_files(setups=setups, shards=shards, out_dir=both, **common)
    for name in ("savings.csv", "curves.csv", "label_model_check.csv", "coverage.csv"):
        old = (alone / name).read_text().splitlines()
        new = (both / name).read_text().splitlines()
        assert new[:len(old)] == old, name  # the paper's rows byte-identical, first
        assert len(new) > len(old) and all("fig1_rf_calibrated" in line for line in new[len(old):]), name
    assert len(pd.read_csv(alone / "label_model_split.csv")) == 0
    split = pd.read_csv(both / "label_model_split.csv")
    assert list(split["experiment"]) == ["fig1_rf_calibrated"] * 2 and list(split["measure"]) == ["err", "dcg"]
    pool = stage["pool"]
    order = rank_order(pool["scores"], pool["offsets"])
    for row in split.itertuples():
        want = variance_split(pool["labels"], pool["probs"], pool["offsets"], order, row.measure, max_grade=4)
        for col in ("predicted_variance", "realized_squared_error", "realized_within", "realized_cross"):
            assert getattr(row, col) == pytest.approx(want[col], rel=1e-5), col
        assert row.ratio == pytest.approx(want["ratio_squared_error"], rel=1e-5)
        assert row.realized_cross > 0  # the planted correlation
        assert row.calibrated_ratio < row.ratio
        base = io.load_arrays(setups[0])
        v, c, m0 = base[f"values_{row.measure}"], base["costs"], base[f"pred_mean_{row.measure}"]
        # the best variance model: each query's true squared error around the paper's mean, with eq. 11's
        # objective over the true losses (Theorem 1: n Var x expected cost per draw, relative to passive)
        q = np.sqrt(((v - m0) ** 2 + (m0 - m0.mean()) ** 2) / c)
        q /= q.sum()
        d2 = (v - v.mean()) ** 2
        want = (d2 / (len(v) ** 2 * q)).sum() * np.dot(q, c) / (d2.mean() * c.mean())
        assert row.budget_factor_true_variance == pytest.approx(want, rel=1e-5)
        assert row.budget_factor_oracle <= row.budget_factor_true_variance
    twin = io.load_arrays(setups[1])
    vali, vorder = stage["vali"], rank_order(stage["vali"]["scores"], stage["vali"]["offsets"])

    def jackknife(err, pv):  # brute force, leave one query out
        loo = np.array([np.delete(err, i).sum() / np.delete(pv, i).sum() for i in range(err.size)])
        return np.sqrt((err.size - 1) / err.size * np.sum((loo - loo.mean()) ** 2))

    for row in split.itertuples():  # the ratio's se: the pool's queries and the fit's, each a jackknife
        m = row.measure
        err = (twin[f"values_{m}"] - twin[f"pred_mean_{m}"]) ** 2
        pv = twin[f"pred_var_{m}"]
        assert row.calibrated_ratio == pytest.approx(err.sum() / pv.sum(), rel=1e-5)
        assert row.calibrated_ratio_se_pool == pytest.approx(jackknife(err, pv), rel=1e-5) and row.calibrated_ratio_se_pool > 0
        np.testing.assert_array_equal(twin["pool_qids"], pool["qids"])
        assert row.distinct_queries == row.queries == 60
        fm, fv = batch_mean_var_factor(vali["probs"], vali["offsets"], vorder, m, float(twin[f"rho_{m}"]))
        ferr = (true_losses(vali["labels"], vali["offsets"], vorder, m, max_grade=4) - fm) ** 2
        want_fit = row.calibrated_ratio * jackknife(ferr, fv) / (ferr.sum() / fv.sum())
        assert row.calibrated_ratio_se_fit == pytest.approx(want_fit, rel=1e-5) and want_fit > 0
        assert row.calibrated_ratio_se == pytest.approx(np.hypot(jackknife(err, pv), want_fit), rel=1e-5)
    lm = pd.read_csv(both / "label_model_check.csv").set_index(["experiment", "measure"])
    for row in split.itertuples():
        assert lm.loc[("fig1_rf_calibrated", row.measure), "ratio"] == pytest.approx(row.calibrated_ratio, rel=1e-5)
        assert lm.loc[("fig1_rf", row.measure), "ratio"] == pytest.approx(row.ratio, rel=1e-5)


def test_fig1_draws_the_twin_in_its_base_panel(stage, monkeypatch):
    import evalrank.papers.sawade2012.plots as plots
    from evalrank.papers.sawade2012.report import _error_figures, summarize

    tmp = stage["tmp"]
    setups = [tmp / "fig1_rf" / "setup.npz", tmp / "fig1_rf_calibrated" / "setup.npz"]
    shards = [_shard(s, s.parent / "shard_fig.npz") for s in setups]
    curves, costs = summarize(setups, shards)
    calls = []
    real = plots.plot_error_curves
    monkeypatch.setattr(plots, "plot_error_curves", lambda c, e, m, p, **k: calls.append((c, e, m)) or real(c, e, m, p, **k))
    _error_figures(curves, costs, tmp / "figs", 8.0)
    fig1 = [(c, e, m) for c, e, m in calls if e == ["fig1_rf"]]
    assert len(fig1) == 2  # one per measure, the twin in no panel of its own
    for c, _, m in fig1:
        got = c[(c["experiment"] == "fig1_rf") & (c["measure"] == m) & (c["method"] == "active_calibrated")]
        want = curves[(curves["experiment"] == "fig1_rf_calibrated") & (curves["measure"] == m)
                      & (curves["method"] == "active")]
        np.testing.assert_array_equal(got["mean_error"].to_numpy(), want["mean_error"].to_numpy())
    assert (tmp / "figs" / "fig1_dcg.png").exists()


def test_ratio_se_is_the_spread_of_the_ratio_over_pools():
    """Monte Carlo: pools of 68 queries (the excerpt's) with skewed, correlated realised errors and
    predicted variances; the jackknife se's root mean square matches the standard deviation of the
    ratio of means over 2,000 pools (their Monte Carlo error ~1.6 %), and the brute force agrees."""
    from evalrank.papers.sawade2012.calibrated import ratio_of_means_se

    g = np.random.default_rng(11)
    den = g.gamma(2.0, 1.0, (2000, 68))
    num = den * g.gamma(1.5, 1 / 1.5, den.shape) * 1.2
    ratios = num.sum(axis=1) / den.sum(axis=1)
    ses = np.array([ratio_of_means_se(n, d) for n, d in zip(num, den)])
    assert np.sqrt(np.mean(ses ** 2)) == pytest.approx(ratios.std(ddof=1), rel=0.06)
    n, d = num[0], den[0]
    loo = np.array([(n.sum() - n[i]) / (d.sum() - d[i]) for i in range(n.size)])
    assert ses[0] == pytest.approx(np.sqrt(67 / 68 * ((loo - loo.mean()) ** 2).sum()), rel=1e-12)
    assert np.isnan(ratio_of_means_se([1.0], [2.0]))
    with pytest.raises(ValueError, match="num and den"):
        ratio_of_means_se([1.0, 2.0], [1.0])


def test_grouped_ratio_se_leaves_a_query_out_with_all_its_entries():
    """Five folds' pools: 20 queries, each in four pools with nearly the same error (the same query,
    other models). The grouped jackknife is the brute force over queries and near the spread of the
    ratio over fresh sets of 20 queries; the ungrouped one, taking 80 entries for independent
    queries, about halves it (here 0.215, 0.220 and 0.104)."""
    from evalrank.papers.sawade2012.calibrated import ratio_of_means_se

    g = np.random.default_rng(3)

    def pools():
        den_q, err_q = g.gamma(2.0, 1.0, 20), g.gamma(1.5, 1 / 1.5, 20)
        qids = np.tile(np.arange(20), 4)
        den = den_q[qids] * g.uniform(0.9, 1.1, 80)
        return den * err_q[qids] * g.uniform(0.9, 1.1, 80), den, qids

    num, den, qids = pools()
    by_query = [np.flatnonzero(qids != q) for q in range(20)]
    loo = np.array([num[k].sum() / den[k].sum() for k in by_query])
    want = np.sqrt(19 / 20 * ((loo - loo.mean()) ** 2).sum())
    assert ratio_of_means_se(num, den, qids) == pytest.approx(want, rel=1e-12)
    runs = [pools() for _ in range(1000)]
    spread = np.std([n.sum() / d.sum() for n, d, _ in runs], ddof=1)
    grouped = np.sqrt(np.mean([ratio_of_means_se(n, d, q) ** 2 for n, d, q in runs]))
    alone = np.sqrt(np.mean([ratio_of_means_se(n, d) ** 2 for n, d, _ in runs]))
    assert grouped == pytest.approx(spread, rel=0.15) and alone < 0.65 * spread
    with pytest.raises(ValueError, match="groups"):
        ratio_of_means_se(num, den, qids[:-1])


@pytest.mark.parametrize("measure", ["dcg", "err"])
def test_fit_part_of_the_se_is_the_spread_over_fit_sets(measure):
    """calibrated_ratio_se's fit part against Monte Carlo: the pool held fixed, rho fitted on 60
    fresh sets of 40 held-out queries (the planted copula); the spread of the pool's calibrated
    ratio over them against the mean predicted se_fit (here 0.19 vs 0.20 for DCG, 0.15 vs 0.17 for
    ERR)."""
    from evalrank.papers.sawade2012.calibrated import calibrated_ratio_se

    g = np.random.default_rng(12)
    pool = _queries(g, 200, 0.3)
    order = rank_order(pool["scores"], pool["offsets"])
    loss = true_losses(pool["labels"], pool["offsets"], order, measure, max_grade=4)
    ratios, predicted = [], []
    for _ in range(60):
        fit = _queries(g, 40, 0.3)
        fo = rank_order(fit["scores"], fit["offsets"])
        rho = fit_factor_correlation(fit["probs"], fit["labels"], fit["offsets"], fo, measure, max_grade=4)
        pm, pv = batch_mean_var_factor(pool["probs"], pool["offsets"], order, measure, rho)
        fm, fv = batch_mean_var_factor(fit["probs"], fit["offsets"], fo, measure, rho)
        ferr = (true_losses(fit["labels"], fit["offsets"], fo, measure, max_grade=4) - fm) ** 2
        ratios.append(((loss - pm) ** 2).mean() / pv.mean())
        predicted.append(calibrated_ratio_se((loss - pm) ** 2, pv, ferr, fv)[2])
    spread = float(np.std(ratios, ddof=1))
    assert 0.7 < spread / np.mean(predicted) < 1.45, (spread, np.mean(predicted))
    assert 0.85 < np.mean(ratios) < 1.15  # the method is calibrated on average (the planted model)
