"""The active stage's coverage study and label-model check (evalrank.papers.sawade2012.report)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalrank import io, seeds
from evalrank.active.estimate import algorithm1
from evalrank.papers.sawade2012.experiments import Experiment, setup_experiment
from evalrank.active.interval import weighted_interval
from evalrank.papers.sawade2012.montecarlo import shard_range, simulate, standard_errors
from evalrank.papers.sawade2012.report import COVERAGE_COLUMNS, LABEL_CHECK_COLUMNS, coverage_table, label_model_table
from evalrank.active.sampling import METHODS

BUDGETS = [2.0, 5.0, 12.0, 25.0]   # the pools cost 20: the last labels the whole pool
REPS = 30


def _preds(seed, nq=20):
    g = np.random.default_rng(seed)
    sizes = g.integers(1, 15, size=nq)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = offsets[-1]
    labels = g.choice(5, size=n, p=[0.5, 0.3, 0.13, 0.05, 0.02]).astype(np.int8)
    out = {m: {"scores": labels + g.normal(0, 1.5, n), "probs": g.dirichlet(np.ones(5), size=n), "labels": labels,
               "offsets": offsets, "qids": np.arange(nq, dtype=np.int64)} for m in ("rf", "ordinal_rf")}
    return out, g.lognormal(6, 1, size=n)


def _write_run(tmp_path, *, stderr=True):
    """Setups and 2 shards of two experiments on two folds, as the stage writes them."""
    setups, shards = [], []
    for fold in (1, 2):
        p, lengths = _preds(fold)
        for exp in (Experiment("fig1_rf", "estimate", "rf"),
                    Experiment("fig2_rf_vs_ordinal_rf", "select", "rf", "ordinal_rf")):
            s = setup_experiment(exp, p, lengths, ["err"], seed=5, fold=fold)
            s.pop("seconds_err")
            meta = json.dumps({"experiment": exp.name, "kind": exp.kind, "metric": exp.metric, "fold": fold,
                               "measures": ["err"], "train_pairs": None})
            sp = tmp_path / f"f{fold}" / exp.name / "setup.npz"
            io.save_arrays(sp, meta=np.array(meta), **s)
            setups.append(sp)
            for shard in range(2):
                rr = shard_range(REPS, shard, 2)
                out = {"repetition": np.asarray(rr, dtype=np.int64), "budgets": np.asarray(BUDGETS),
                       "meta": np.array(meta), "n_repetitions": np.int64(REPS)}
                for method in METHODS:
                    sim = simulate(s[f"q_err_{method}"], s["costs"], s["values_err"], BUDGETS, seed=5,
                                   stream=(exp.name, fold, method), repetitions=rr)
                    for key in ("estimate", "n", "stop"):
                        out[f"{key}_err_{method}"] = sim[key]
                    if stderr:
                        out[f"stderr_err_{method}"] = standard_errors(sim, s[f"q_err_{method}"])[0]
                path = tmp_path / f"f{fold}" / exp.name / f"shard{shard}.npz"
                io.save_arrays(path, **out)
                shards.append(path)
    return setups, shards


def test_coverage_table_equals_campaigns_judged_one_by_one(tmp_path):
    setups, shards = _write_run(tmp_path)
    cov = coverage_table(setups, shards, level=0.9)
    assert list(cov.columns) == COVERAGE_COLUMNS
    assert len(cov) == 2 * len(METHODS) * len(BUDGETS)
    assert (cov["campaigns"] + cov["n_no_interval"] == 2 * REPS).all()
    assert set(cov["quantity"]) == {"ranker", "difference"} and (cov["level"] == 0.9).all()
    # brute force: Algorithm 1 on the same streams, each campaign's interval from weighted_interval
    for exp in ("fig1_rf", "fig2_rf_vs_ordinal_rf"):
        for method in METHODS:
            hits = {b: [] for b in BUDGETS}
            widths = {b: [] for b in BUDGETS}
            for fold in (1, 2):
                s = io.load_arrays(tmp_path / f"f{fold}" / exp / "setup.npz")
                q, values, truth = s[f"q_err_{method}"], s["values_err"], float(s["truth_err"])
                for r in range(REPS):
                    for b in BUDGETS:
                        ref = algorithm1(q, s["costs"], b, seeds.rng(5, exp, fold, method, r), values=values)
                        x = ref["queries"]
                        if x.size == 0 or (ref["exhausted"] and not (q > 0).all()):
                            continue  # no interval (montecarlo.standard_errors)
                        w = np.ones(x.size) if ref["whole_pool"] else 1 / (q.size * q[x])
                        iv = weighted_interval(w, values[x], level=0.9, exact=ref["whole_pool"] or (
                            ref["exhausted"] and bool((q > 0).all())))
                        est = ref["estimate"]
                        hits[b].append(abs(est - truth) <= iv["ci_high"] - iv["estimate"] + 1e-12)
                        if np.isfinite(iv["ci_high"]):
                            widths[b].append(iv["ci_high"] - iv["ci_low"])
            row = cov[(cov["experiment"] == exp) & (cov["method"] == method)].set_index("budget")
            for b in BUDGETS:
                assert row.loc[b, "campaigns"] == len(hits[b])
                assert row.loc[b, "coverage"] == pytest.approx(np.mean(hits[b]), abs=1e-12)
                if widths[b]:
                    assert row.loc[b, "mean_width"] == pytest.approx(np.mean(widths[b]), rel=1e-9)
    last = cov[cov["budget"] == BUDGETS[-1]]
    assert (last["n_exact"] == 2 * REPS).all() and (last["coverage"] == 1).all() and (last["mean_width"] == 0).all()
    c = cov["coverage"]
    np.testing.assert_allclose(cov["coverage_se"], np.sqrt(c * (1 - c) / cov["campaigns"]))
    assert (cov["miss_low"] + cov["miss_high"] <= 1 - cov["coverage"] + 1e-12).all()


def test_coverage_needs_shards_with_standard_errors(tmp_path):
    setups, shards = _write_run(tmp_path, stderr=False)
    with pytest.raises(ValueError, match="no standard errors"):
        coverage_table(setups, shards)


def _hand_setup(path, fold, values, mean, var, q, costs, experiment="fig1_rf", doc_sq=None, qids=None):
    meta = json.dumps({"experiment": experiment, "kind": "estimate", "metric": "abs_error", "fold": fold,
                       "measures": ["dcg"], "train_pairs": None})
    arrays = {"values_dcg": values, "pred_mean_dcg": mean, "pred_var_dcg": var, "q_dcg_active": q, "costs": costs,
              "truth_dcg": np.float64(np.mean(values))}
    if doc_sq is not None:
        arrays["doc_sq_dcg"] = doc_sq
    ids = {} if qids is None else {"pool_qids": np.asarray(qids, dtype=np.int64)}
    io.save_arrays(path, meta=np.array(meta), **{k: np.asarray(v, dtype=np.float64) for k, v in arrays.items()}, **ids)
    return path


def test_label_model_table_by_hand(tmp_path):
    # L = 1, 2, 3, 6 (R = 3); the model predicts means 1.5, 2, 2, 4.5 (R_theta = 2.5), variances
    # 0.25, 1, 0.5, 2.25 (mean 1); realized squared errors 0.25, 0, 1, 2.25 (mean 0.875)
    q = np.array([0.1, 0.2, 0.3, 0.4])
    costs = np.array([1.0, 1.0, 2.0, 0.5])
    p = _hand_setup(tmp_path / "s.npz", 1, [1, 2, 3, 6], [1.5, 2, 2, 4.5], [0.25, 1, 0.5, 2.25], q, costs,
                    doc_sq=[0.25, 0.0, 0.5, 1.25])
    t = label_model_table([p])
    assert list(t.columns) == LABEL_CHECK_COLUMNS and len(t) == 1
    row = t.iloc[0]
    assert (row["experiment"], row["quantity"], row["measure"], row["queries"]) == ("fig1_rf", "ranker", "dcg", 4)
    assert row["predicted_variance"] == pytest.approx(1.0)
    assert row["realized_squared_error"] == pytest.approx(0.875)
    assert row["ratio"] == pytest.approx(0.875) and not row["overconfident"]
    assert row["realized_documents"] == pytest.approx(0.5)
    # q*'s factor: var + (mean - 2.5)^2 = 1.25, 1.25, 0.75, 6.25 against (L - 3)^2 = 4, 1, 0, 9
    pred, true = np.array([1.25, 1.25, 0.75, 6.25]), np.array([4.0, 1.0, 0.0, 9.0])
    assert row["corr_second_moment"] == pytest.approx(np.corrcoef(pred, true)[0, 1])
    assert row["corr_abs_deviation"] == pytest.approx(np.corrcoef(np.sqrt(pred), np.sqrt(true))[0, 1])
    # budget factors: [sum (L-R)^2 / (16 q)] [sum q lambda] over [mean (L-R)^2] [mean lambda]
    passive = 14 / 4 * 4.5 / 4
    active = (4 / 1.6 + 1 / 3.2 + 0 + 9 / 6.4) * (0.1 + 0.2 + 0.6 + 0.2)
    assert row["budget_factor_active"] == pytest.approx(active / passive)
    oracle = np.array([2.0, 1.0, 0.0, 3.0]) / np.sqrt(costs)
    oracle /= oracle.sum()
    keep = true > 0
    expect = np.sum(true[keep] / (16 * oracle[keep])) * np.dot(oracle, costs) / passive
    assert row["budget_factor_oracle"] == pytest.approx(expect)
    assert row["budget_factor_oracle"] <= row["budget_factor_active"]
    # an overconfident model (ratio > 3) is flagged; folds are pooled
    p2 = _hand_setup(tmp_path / "s2.npz", 2, [1, 2, 3, 6], [3, 3, 3, 3], [0.1, 0.1, 0.1, 0.1], q, costs)
    both = label_model_table([p, p2]).iloc[0]
    assert both["queries"] == 8
    assert both["realized_squared_error"] == pytest.approx((0.875 * 4 + 14) / 8)
    assert both["predicted_variance"] == pytest.approx((4 + 0.4) / 8)
    assert both["overconfident"] and np.isnan(both["realized_documents"])  # one fold lacks doc_sq_dcg
    assert np.isnan(both["distinct_queries"])  # setups without pool_qids
    # two folds' pools sharing queries 3 and 4: 8 entries, 6 different queries, and the power counts 6
    from evalrank.papers.sawade2012.power import pool_queries

    ids = [_hand_setup(tmp_path / f"q{f}.npz", f, [1, 2, 3, 6], [1.5, 2, 2, 4.5], [0.25, 1, 0.5, 2.25], q, costs,
                       qids=[f * 2 - 1, f * 2, f * 2 + 1, f * 2 + 2]) for f in (1, 2)]
    shared = label_model_table(ids)
    assert (shared.iloc[0]["queries"], shared.iloc[0]["distinct_queries"]) == (8, 6)
    assert pool_queries(shared) == 6 and pool_queries(shared, "fig1_rf", "dcg") == 6
    assert pool_queries(label_model_table([p, p2])) == 8  # no ids: the entries


def test_label_model_table_needs_the_moments(tmp_path):
    p = tmp_path / "old.npz"
    meta = json.dumps({"experiment": "fig1_rf", "kind": "estimate", "metric": "abs_error", "fold": 1,
                       "measures": ["dcg"], "train_pairs": None})
    io.save_arrays(p, meta=np.array(meta), values_dcg=np.ones(3), costs=np.ones(3))
    with pytest.raises(ValueError, match="no label-model moments"):
        label_model_table([p])
