"""Experiment set-up (truth, index update, mixture), errors, savings and shard merging."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalrank import io
from evalrank.papers.sawade2012.experiments import (
    Experiment,
    dcg_document_residuals,
    drop_documents,
    errors,
    experiments,
    savings_row,
    setup_experiment,
    true_losses,
)
from evalrank.papers.sawade2012.montecarlo import shard_range, simulate
from evalrank.papers.sawade2012.report import savings_table, summarize
from evalrank.active.sampling import METHODS, q_star_difference
from evalrank.metrics import dcg, err
from evalrank.metrics.ranking import rank_order


def _preds(seed, nq=30, models=("rf", "ordinal_rf")):
    g = np.random.default_rng(seed)
    sizes = g.integers(1, 25, size=nq)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = offsets[-1]
    labels = g.choice(5, size=n, p=[0.5, 0.3, 0.13, 0.05, 0.02]).astype(np.int8)
    out = {}
    for m in models:
        probs = g.dirichlet(np.ones(5), size=n)
        out[m] = {"scores": labels + g.normal(0, 1.5, n), "probs": probs, "labels": labels, "offsets": offsets,
                  "qids": np.arange(nq, dtype=np.int64)}
    lengths = g.lognormal(6, 1, size=n)
    return out, lengths


@pytest.mark.parametrize("measure, fn", [("dcg", dcg), ("err", err)])
def test_true_losses_are_the_metrics(measure, fn):
    p, _ = _preds(0)
    rf = p["rf"]
    order = rank_order(rf["scores"], rf["offsets"])
    np.testing.assert_allclose(true_losses(rf["labels"], rf["offsets"], order, measure, max_grade=4),
                               fn(rf["scores"], rf["labels"], rf["offsets"]), rtol=1e-12)


def test_drop_documents():
    offsets = np.array([0, 1, 11, 31, 36])
    order = np.arange(36)[::-1].copy()
    off2, order2 = drop_documents(offsets, order, 0.1, np.random.default_rng(0))
    np.testing.assert_array_equal(np.diff(off2), [1, 9, 18, 5])  # rint(0.1 n) removed: 0, 1, 2, 0 (0.5 -> 0)
    for q in range(4):
        kept = order2[off2[q]:off2[q + 1]]
        full = list(order[offsets[q]:offsets[q + 1]])
        assert set(kept) <= set(full)
        assert list(kept) == [d for d in full if d in set(kept)]  # rank order preserved
    again = drop_documents(offsets, order, 0.1, np.random.default_rng(0))
    np.testing.assert_array_equal(again[1], order2)
    with pytest.raises(ValueError, match="share"):
        drop_documents(offsets, order, 1.0, np.random.default_rng(0))


def test_setup_estimate_and_comparisons():
    p, lengths = _preds(1)
    s = setup_experiment(Experiment("fig1_rf", "estimate", "rf"), p, lengths, ["err", "dcg"], seed=3, fold=1)
    for m in ("err", "dcg"):
        assert s[f"truth_{m}"] == pytest.approx(s[f"values_{m}"].mean())
        for method in METHODS:
            assert s[f"q_{m}_{method}"].sum() == pytest.approx(1.0)
    assert s["costs"].mean() == pytest.approx(1.0)
    # selection: mixture label model, delta of the two rankings
    sel = setup_experiment(Experiment("fig2_rf_vs_ordinal_rf", "select", "rf", "ordinal_rf"), p, lengths, ["err"],
                           seed=3, fold=1)
    rf, orf = p["rf"], p["ordinal_rf"]
    np.testing.assert_allclose(sel["values_err"], err(rf["scores"], rf["labels"], rf["offsets"])
                               - err(orf["scores"], orf["labels"], orf["offsets"]), atol=1e-12)
    mix = 0.5 * (rf["probs"] + orf["probs"])
    q = q_star_difference(mix, rf["offsets"], rank_order(rf["scores"], rf["offsets"]), rf["offsets"],
                          rank_order(orf["scores"], orf["offsets"]), "err", sel["costs"])
    np.testing.assert_allclose(sel["q_err_active"], q)
    # index update: r_2 is r_1 with ~10% of every list removed
    upd = setup_experiment(Experiment("fig3_index_update", "compare", "rf", "rf", b_drop=0.1), p, lengths, ["dcg"],
                           seed=3, fold=1)
    assert upd["values_dcg"].shape == (30,)
    assert not np.allclose(upd["values_dcg"], 0)
    bad = dict(p)
    bad["ordinal_rf"] = dict(p["ordinal_rf"], qids=p["ordinal_rf"]["qids"] + 1)
    with pytest.raises(ValueError, match="same pool"):
        setup_experiment(Experiment("x", "select", "rf", "ordinal_rf"), bad, lengths, ["err"], seed=3, fold=1)


def test_setup_keeps_the_label_models_moments():
    """pred_mean/pred_var: Theorem 3 under the label model q* uses (for two rankers, the mixture)."""
    from evalrank.active.theorem3 import batch_difference_mean_var, batch_mean_var

    p, lengths = _preds(2)
    rf, orf = p["rf"], p["ordinal_rf"]
    order_a, order_b = rank_order(rf["scores"], rf["offsets"]), rank_order(orf["scores"], orf["offsets"])
    s = setup_experiment(Experiment("fig1_rf", "estimate", "rf"), p, lengths, ["dcg"], seed=3, fold=1)
    mean, var = batch_mean_var(rf["probs"], rf["offsets"], order_a, "dcg")
    np.testing.assert_array_equal(s["pred_mean_dcg"], mean)
    np.testing.assert_array_equal(s["pred_var_dcg"], var)
    sel = setup_experiment(Experiment("fig2_rf_vs_ordinal_rf", "select", "rf", "ordinal_rf"), p, lengths, ["err"],
                           seed=3, fold=1)
    mean, var = batch_difference_mean_var(0.5 * (rf["probs"] + orf["probs"]), rf["offsets"], order_a, rf["offsets"],
                                          order_b, "err")
    np.testing.assert_allclose(sel["pred_mean_err"], mean, rtol=1e-12)
    np.testing.assert_allclose(sel["pred_var_err"], var, rtol=1e-12)


def test_dcg_document_residuals():
    """Per query sum c_z^2 (g - E g)^2: the squares of the terms whose sum is L - E_theta[L]; its
    expectation under the label model is Theorem 3's variance; 0 for a model sure of the labels."""
    from evalrank.active.theorem3 import batch_difference_mean_var, batch_mean_var

    p, _ = _preds(4, nq=12)
    rf, orf = p["rf"], p["ordinal_rf"]
    off, labels = rf["offsets"], rf["labels"]
    order_a, order_b = rank_order(rf["scores"], off), rank_order(orf["scores"], off)
    off_d, order_d = drop_documents(off, order_a, 0.3, np.random.default_rng(0))
    gains = 2.0 ** np.arange(5) - 1
    for probs in (rf["probs"], np.eye(5)[labels]):
        for args, mv in (((), batch_mean_var(probs, off, order_a, "dcg")),
                         ((off, order_b), batch_difference_mean_var(probs, off, order_a, off, order_b, "dcg")),
                         ((off_d, order_d), batch_difference_mean_var(probs, off, order_a, off_d, order_d, "dcg"))):
            got = dcg_document_residuals(labels, probs, off, order_a, *args)
            for x in range(12):
                coef = {}
                for k, doc in enumerate(order_a[off[x]:off[x + 1]]):
                    coef[doc] = 1 / np.log2(k + 2)
                if args:
                    ob, ordb = args
                    for k, doc in enumerate(ordb[ob[x]:ob[x + 1]]):
                        coef[doc] = coef.get(doc, 0.0) - 1 / np.log2(k + 2)
                terms = [c * (gains[labels[d]] - probs[d] @ gains) for d, c in coef.items()]
                assert got[x] == pytest.approx(np.sum(np.square(terms)), abs=1e-12)
                assert (sum(terms)) ** 2 == pytest.approx((true_losses(labels, off, order_a, "dcg", max_grade=4)[x] - (
                    true_losses(labels, *args, "dcg", max_grade=4)[x] if args else 0) - mv[0][x]) ** 2, abs=1e-9)
                expect = sum(c * c * (probs[d] @ gains ** 2 - (probs[d] @ gains) ** 2) for d, c in coef.items())
                assert expect == pytest.approx(mv[1][x], abs=1e-9)
            if probs is not rf["probs"]:
                np.testing.assert_allclose(got, 0.0, atol=1e-20)


def test_experiment_list():
    names = [e.name for e in experiments(["rf", "ordinal_rf", "ordered_logit", "ranksvm", "lambdamart"],
                                         base_pairs=10, sizes=[12, 20])]
    assert names == ["fig1_rf", "fig1_ordered_logit", "fig2_rf_vs_ordinal_rf", "fig2_ordered_logit_vs_ranksvm",
                     "fig2_ordered_logit_vs_rf", "fig2_lambdamart_vs_rf", "fig3_index_update",
                     "fig3_train_size_12", "fig3_train_size_20"]
    assert [e.name for e in experiments(["ranksvm"])] == []


def test_errors():
    np.testing.assert_array_equal(errors([0.5, -0.5, 0.0, np.nan], 0.1, "selection_error")[:3], [0, 1, 1])
    assert np.isnan(errors([np.nan], 0.1, "selection_error")[0])
    np.testing.assert_allclose(errors([0.5, -0.5], 0.1, "abs_error"), [0.4, 0.6])
    with pytest.raises(ValueError, match="metric"):
        errors([1.0], 0.0, "mse")


def test_savings_row():
    budgets = [10, 100, 300]
    # active reaches passive's error at 300 (0.1) exactly at budget 100 -> saving 2/3
    r = savings_row(budgets, [0.5, 0.2, 0.1], [0.3, 0.1, 0.05], 300)
    assert r["active_budget_needed"] == pytest.approx(100) and r["saving"] == pytest.approx(2 / 3)
    # halfway in log budget between 10 and 100
    r = savings_row(budgets, [0.5, 0.2, 0.1], [0.2, 0.0, 0.0], 300)
    assert r["active_budget_needed"] == pytest.approx(np.sqrt(10 * 100))
    assert np.isnan(savings_row(budgets, [0.5, 0.2, 0.1], [0.6, 0.5, 0.4], 300)["saving"])
    assert np.isnan(savings_row(budgets, [0.5, 0.2, 0.0], [0.1, 0.0, 0.0], 300)["saving"])
    with pytest.raises(ValueError, match="grid"):
        savings_row(budgets, [1, 1, 1], [1, 1, 1], 200)


def _write_run(tmp_path, n_shards, reps=40):
    p, lengths = _preds(2)
    budgets = [2.0, 5.0, 10.0]
    setups, shards = [], []
    for exp in (Experiment("fig1_rf", "estimate", "rf"), Experiment("fig2_rf_vs_ordinal_rf", "select", "rf", "ordinal_rf")):
        s = setup_experiment(exp, p, lengths, ["err"], seed=5, fold=1)
        meta = {"experiment": exp.name, "kind": exp.kind, "metric": exp.metric, "fold": 1, "measures": ["err"],
                "train_pairs": None}
        sp = tmp_path / f"{n_shards}" / exp.name / "setup.npz"
        io.save_arrays(sp, meta=np.array(json.dumps(meta)), **s)
        setups.append(sp)
        for shard in range(n_shards):
            rr = shard_range(reps, shard, n_shards)
            out = {"repetition": np.asarray(rr, dtype=np.int64), "budgets": np.asarray(budgets),
                   "meta": np.array(json.dumps(meta)), "n_repetitions": np.int64(reps)}
            for method in METHODS:
                sim = simulate(s[f"q_err_{method}"], s["costs"], s["values_err"], budgets, seed=5,
                               stream=(exp.name, method), repetitions=rr)
                out[f"estimate_err_{method}"] = sim["estimate"]
                out[f"n_err_{method}"] = sim["n"]
                out[f"spent_err_{method}"] = sim["spent"]
            path = tmp_path / f"{n_shards}" / exp.name / f"shard{shard}.npz"
            io.save_arrays(path, **out)
            shards.append(path)
    return setups, shards


def test_summary_does_not_depend_on_shard_count(tmp_path):
    one = summarize(*_write_run(tmp_path, 1))[0]
    three = summarize(*_write_run(tmp_path, 3))[0]
    assert one.equals(three)
    assert set(one["metric"]) == {"abs_error", "selection_error"}
    assert (one["n_runs"] + one["n_undefined"] == 40).all()
    sav = savings_table(one, reference_budget=10.0, train_size_budget=5.0)
    assert list(sav.columns) == ["experiment", "measure", "reference_budget", "passive_error",
                                 "active_budget_needed", "saving", "paper_saving"]
    assert sav["paper_saving"].tolist() == ["20%", "30-55%"]
    # the paper prints ERR's savings only: none on a DCG row
    dcg = savings_table(one.assign(measure="dcg"), reference_budget=10.0, train_size_budget=5.0)
    assert dcg["paper_saving"].fillna("").tolist() == ["", ""]


def test_summary_refuses_incomplete_shards(tmp_path):
    setups, shards = _write_run(tmp_path, 3)
    with pytest.raises(ValueError, match="exactly once"):
        summarize(setups, shards[:2] + shards[3:])
    with pytest.raises(ValueError, match="no shards"):
        summarize(setups, shards[:3])
