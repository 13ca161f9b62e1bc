"""The clicks stage's four steps as files (pipeline.py), on a small simulated world: each file
holds what the library functions it calls give on the same inputs."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from toy_data import toy_collection, toy_scores

from evalrank import io
from evalrank.papers.ozertem2011 import dbn, deltadcg, pipeline
from evalrank.papers.ozertem2011.grades import PEGFB, read_agreement
from evalrank.papers.ozertem2011.logs import read_sessions
from evalrank.papers.ozertem2011.simulate import WorldParams, simulate_world

CONFIG = Path(__file__).resolve().parents[3] / "config/ozertem2011"
TABLE1 = CONFIG / "ozertem2011_table1.csv"
GRADES = ["B", "F", "G", "E", "P"]
PARAMS = {"history": ["rf"], "alternatives": ["rf", "ranksvm", "oracle"], "sessions": 20000, "n_tests": 5,
          "zipf_exponent": 1.0}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("clicks")
    c = toy_collection(80, seed=5, min_docs=15, max_docs=30)
    scores = toy_scores(c, {"lambdamart": 0.7, "rf": 1.0, "ranksvm": 1.3}, seed=1)
    preds = {}
    for name, s in scores.items():
        preds[name] = d / f"{name}.npz"
        io.save_arrays(preds[name], scores=s, labels=c.labels, offsets=c.offsets, qids=c.qids)
    pipeline.simulate_files(predictions=preds, agreement=TABLE1, params=PARAMS, seed=3, out_dir=d, grades=GRADES)
    pipeline.click_model_files(world=d / "world.npz", sessions=d / "sessions.tsv", views_grid=[1, 5], gamma=None,
                               prior=[1.0, 1.0], max_iter=20, tol=1e-8, output=d / "dbn.npz",
                               table=d / "recovery.csv")
    est = d / "est"
    pipeline.estimate_files(world=d / "world.npz", sessions=d / "sessions.tsv", judgments=d / "judgments.tsv",
                            dbn=d / "dbn.npz", agreement=TABLE1, out_dir=est, grades=GRADES, model="simplified",
                            prior_depth=5, eps=1e-4, min_samples=2, min_views=5, views_grid=[1, 5], views_folds=2,
                            sigma=1.0, sigma_bounds=[1e-2, 1e1], curve_points=4, cj_min_train=1, cj_alpha=1.0, z=2.0)
    return d, c, scores, est


def test_simulate_files_write_the_world_of_simulate_world(run):
    d, c, scores, _ = run
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in PARAMS.items()}
    w = simulate_world(c.labels, c.offsets, c.qids, scores, read_agreement(TABLE1, PEGFB), WorldParams(**params), 3)
    saved = io.load_arrays(d / "world.npz")
    for k, v in w.arrays().items():
        np.testing.assert_array_equal(saved[k], v, err_msg=k)
    assert len(pd.read_csv(d / "tests.csv")) == 5


def test_simulate_files_refuse_rankers_of_different_pools(run, tmp_path):
    d, c, scores, _ = run
    other = tmp_path / "other.npz"
    io.save_arrays(other, scores=scores["rf"], labels=c.labels[::-1].copy(), offsets=c.offsets, qids=c.qids)
    with pytest.raises(ValueError, match="--predictions: .*different pool"):
        pipeline.simulate_files(predictions={"lambdamart": d / "lambdamart.npz", "rf": other}, agreement=TABLE1,
                                params=PARAMS, seed=3, out_dir=tmp_path, grades=GRADES)


def test_click_model_files_hold_the_simplified_dbn_and_its_recovery(run):
    d, *_ = run
    w = io.load_arrays(d / "world.npz")
    pairs = pipeline._pairs(w)
    log, _ = read_sessions(d / "sessions.tsv", pairs)
    simp = dbn.simplified_dbn(log, len(pairs))
    saved = io.load_arrays(d / "dbn.npz")
    np.testing.assert_array_equal(saved["simplified_relevance"], simp.relevance)
    rec = pd.read_csv(d / "recovery.csv")
    assert len(rec) == 2 * 2 * 3    # views x models x parameters
    assert rec[rec.min_views == 5].pairs.iloc[0] == int((simp.views >= 5).sum())


def test_estimate_files_truth_is_the_true_delta_dcg(run):
    d, _, _, est = run
    w = io.load_arrays(d / "world.npz")
    e = io.load_arrays(est / "estimates.npz")
    t = w["true_grade"].astype(np.float64)
    ro = w["row_offsets"]
    for i in range(ro.size - 1):
        sl = slice(ro[i], ro[i + 1])
        m, _ = deltadcg.delta_dcg(t, np.zeros_like(t), w["novel_top"][sl], w["base_top"][sl], k=5)
        np.testing.assert_allclose(e["truth_mean"][sl], m, atol=1e-12)
    assert {"smoothed_mean", "carterette_jones_mean", "smoothed_em_mean", "smoothed_paper_views_mean"} <= set(e)
    views = pd.read_csv(est / "min_views.csv")
    assert views.model.tolist() == ["simplified", "em"] and views.chosen.all() and (views.min_views == 5).all()
    s = io.load_arrays(est / "sources.npz")
    assert s["reliable"].sum() == (io.load_arrays(d / "dbn.npz")["views"] >= 5).sum()


def test_report_files_write_every_table(run, tmp_path):
    d, _, _, est = run
    pipeline.report_files(world=d / "world.npz", in_dir=est, agreement=TABLE1,
                          printed_table2=CONFIG / "ozertem2011_table2_printed.csv", out_dir=tmp_path, grades=GRADES,
                          paper_tests=3, coverage_z=2.0)
    t7 = pd.read_csv(tmp_path / "table7.csv")
    assert t7.method.tolist() == ["full1", "full2", "full3", "clicks_only", "editorial_only", "carterette_jones",
                                  "smoothed", "truth"]
    assert len(pd.read_csv(tmp_path / "table4.csv")) == 3
    t8 = pd.read_csv(tmp_path / "table8.csv")
    assert set(t8.quantity) == {"delta_dcg", "sign"}
    assert (tmp_path / "fig1_click_relevance_vs_grade.png").exists()


def _per_test_r(x, refs, ro, keep):
    """Each test's per-query Pearson r of x with each reference (scipy), averaged over references."""
    from scipy import stats

    out = []
    for t in range(ro.size - 1):
        idx = np.arange(ro[t], ro[t + 1])[keep[ro[t]:ro[t + 1]]]
        rs = [stats.pearsonr(x[idx], r[idx])[0] for r in refs
              if idx.size >= 3 and np.std(x[idx]) > 0 and np.std(r[idx]) > 0]
        out.append(np.mean(rs) if rs else np.nan)
    return np.array(out)


def test_report_files_state_the_se_over_tests_and_the_measured_causes(run, tmp_path):
    """table5/6/8 and study.csv's added columns against loops over tests (scipy), the world's
    judgments grouped by query (pandas) and each row's count of unjudged pairs in the top k."""
    from scipy import stats

    d, _, _, est = run
    pipeline.report_files(world=d / "world.npz", in_dir=est, agreement=TABLE1,
                          printed_table2=CONFIG / "ozertem2011_table2_printed.csv", out_dir=tmp_path, grades=GRADES,
                          paper_tests=3, coverage_z=2.0)
    e = io.load_arrays(est / "estimates.npz")
    ro, imp = e["row_offsets"], e["row_impressions"]
    full = [e[f"full{i}_mean"] for i in (1, 2, 3)]
    t6 = pd.read_csv(tmp_path / "table6.csv").set_index("min_impressions")
    for k in t6.index:
        keep = imp >= k
        sm = _per_test_r(e["smoothed_mean"], full, ro, keep)
        cj = _per_test_r(e["carterette_jones_mean"], full, ro, keep)
        ok = np.isfinite(sm)
        assert t6.smoothed_se[k] == pytest.approx(stats.sem(sm[ok]), abs=1e-4)
        assert t6.smoothed_minus_carterette_jones_se[k] == pytest.approx(stats.sem((sm - cj)[ok]), abs=1e-4)
    src = io.load_arrays(est / "sources.npz")
    w = io.load_arrays(d / "world.npz")
    judged = src["judged_grade"] >= 0
    # each row's ΔDCG of "unjudged": sum over the new top of 1/log2(r+1) for unjudged pairs minus the old top's
    disc = 1 / np.log2(np.arange(2, w["novel_top"].shape[1] + 2))
    unj = [(disc * ((t >= 0) & ~judged[np.maximum(t, 0)])).sum(axis=1) for t in (w["novel_top"], w["base_top"])]
    t8 = pd.read_csv(tmp_path / "table8.csv")
    t8 = t8[t8.quantity == "delta_dcg"].set_index("min_impressions")
    for k in t8.index:
        want = _per_test_r(e["editorial_only_mean"], [unj[0] - unj[1]], ro, imp >= k)
        assert t8.editorial_only_vs_unjudged[k] == pytest.approx(np.nanmean(want), abs=1e-4)
        assert t8.editorial_only_vs_unjudged[k] < 0    # an unjudged document counted Bad lowers its side
    pq = np.repeat(np.arange(w["offsets"].size - 1), np.diff(w["offsets"]))
    g = pd.DataFrame({"g": src["judged_grade"][judged].astype(float), "q": pq[judged]})
    share = ((g.groupby("q").g.transform("mean") - g.g.mean()) ** 2).sum() / ((g.g - g.g.mean()) ** 2).sum()
    t5 = pd.read_csv(tmp_path / "table5.csv").set_index("source")
    assert t5.between_query_share["ours"] == pytest.approx(share, abs=1e-4)
    assert t5.hybrid_gain["ours"] == pytest.approx(1 - t5.hybrid["ours"] / t5[["query", "position"]].loc["ours"].min(),
                                                   abs=2e-4)
    h2 = src["loo_hybrid"] ** 2
    b2 = min((src["loo_query"] ** 2, src["loo_position"] ** 2), key=np.mean)
    ratio = h2.mean() / b2.mean()      # the delta method's se of a ratio of paired means
    se = np.std(h2 - ratio * b2, ddof=1) / np.sqrt(h2.size) / b2.mean()
    assert t5.hybrid_gain_se["ours"] == pytest.approx(se, abs=1e-4)
    st = pd.read_csv(tmp_path / "study.csv")
    s = pd.read_csv(est / "summaries.csv", keep_default_na=False, na_values=[""])
    tv = s[s.method == "truth"].sort_values("test").delta.to_numpy()
    sm = s[s.method == "smoothed"].sort_values("test").delta.to_numpy()
    assert st[(st.truth == "truth") & (st.method == "smoothed")].slope.iloc[0] == pytest.approx(
        np.polyfit(tv, sm, 1)[0], abs=1e-4)
