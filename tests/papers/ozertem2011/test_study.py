"""The study's plumbing: every estimator's per-row ΔDCG on a small simulated
world, checked against plain loops; tables against direct computations."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from toy_data import toy_collection, toy_scores

from evalrank.papers.ozertem2011 import dbn, study
from evalrank.papers.ozertem2011.grades import PEGFB, agreement_pdfs, read_agreement
from evalrank.papers.ozertem2011.simulate import WorldParams, simulate_world

TABLE1 = Path(__file__).resolve().parents[3] / "config/ozertem2011/ozertem2011_table1.csv"


@pytest.fixture(scope="module")
def run():
    c = toy_collection(120, seed=5, min_docs=15, max_docs=40)
    scores = toy_scores(c, {"lambdamart": 0.7, "rf": 1.0, "ranksvm": 1.3}, seed=1)
    C = read_agreement(TABLE1)
    w = simulate_world(c.labels, c.offsets, c.qids, scores, C,
                       WorldParams(history=("rf",), alternatives=("rf", "ranksvm", "oracle"), sessions=30000,
                                   n_tests=8, zipf_exponent=1.0), 3)
    fit = dbn.simplified_dbn(w.log, w.n_pairs, min_views=5)
    pre = w.judgments[w.judgments.set == "pre-existing"]
    table = w.pair_table()

    def pid(df):
        return table.lookup(df["query"].tolist(), df["url"].tolist())

    src = study.click_sources(n_pairs=w.n_pairs, judged_pairs=pid(pre), judged_grades=pre.grade_index.to_numpy(),
                              agreement=C, relevance=fit.relevance, reliable=fit.reliable, base_top=w.base_top,
                              scale=PEGFB)
    full = {}
    for s in ("full1", "full2", "full3"):
        d = w.judgments[w.judgments.set == s]
        g = np.full(w.n_pairs, -1)
        g[pid(d)] = d.grade_index.to_numpy()
        full[s] = g
    rows, info = study.estimate_all(sources=src, novel_top=w.novel_top, base_top=w.base_top,
                                    row_offsets=w.row_offsets, scale=PEGFB, agreement=C, true_grade=w.true_grade,
                                    full_sets=full, cj_pdf=np.full((w.n_pairs, 5), 0.2))
    return w, C, src, full, rows, info


def _dcg_loop(values, top):
    return sum(values[p] / np.log2(r + 2) for r, p in enumerate(top) if p >= 0)


def test_truth_expected_and_full_sets_against_loops(run):
    w, C, src, full, rows, info = run
    R = agreement_pdfs(C)
    a = PEGFB.a
    for i in range(w.novel_top.shape[0]):
        nt, bt = w.novel_top[i], w.base_top[i]
        t = w.true_grade.astype(float)
        assert rows["truth"][0][i] == pytest.approx(_dcg_loop(t, nt) - _dcg_loop(t, bt), abs=1e-12)
        assert rows["truth"][1][i] == 0
        e = R[w.true_grade] @ a
        assert rows["expected"][0][i] == pytest.approx(_dcg_loop(e, nt) - _dcg_loop(e, bt), abs=1e-12)
        f = R[np.maximum(full["full2"], 0)] @ a
        assert rows["full2"][0][i] == pytest.approx(_dcg_loop(f, nt) - _dcg_loop(f, bt), abs=1e-12)
    assert set(rows) >= {"smoothed", "clicks_only", "editorial_only", "carterette_jones", "truth", "full1"}
    assert len(info) == 8 and np.all(info["sigma"] > 0)


def test_editorial_only_treats_unjudged_as_bad(run):
    w, C, src, full, rows, info = run
    R = agreement_pdfs(C)
    e = np.where(src.judged, R[np.maximum(src.judged_grade, 0)] @ PEGFB.a, 0.0)
    i = int(np.argmax(np.abs(rows["editorial_only"][0])))
    nt, bt = w.novel_top[i], w.base_top[i]
    assert rows["editorial_only"][0][i] == pytest.approx(_dcg_loop(e, nt) - _dcg_loop(e, bt), abs=1e-12)


def test_correlation_and_study_tables_against_direct_computation(run):
    w, C, src, full, rows, info = run
    imp = w.impressions[w.row_query]
    ro = w.row_offsets
    t6 = study.correlation_table(rows, ro, imp, ["smoothed"], ["truth"], thresholds=(0,))
    direct = np.nanmean([np.corrcoef(rows["smoothed"][0][ro[t]:ro[t + 1]], rows["truth"][0][ro[t]:ro[t + 1]])[0, 1]
                         for t in range(8)])
    assert t6["smoothed"][0] == pytest.approx(direct, abs=1e-12)
    summ = study.test_summaries(rows, ro)
    st = study.study_table(summ, ["smoothed"], truths=("truth",), z=2.0).iloc[0]
    s = summ[summ.method == "smoothed"].sort_values("test")
    tv = summ[summ.method == "truth"].sort_values("test")["delta"].to_numpy()
    assert st["coverage"] == pytest.approx(np.mean(np.abs(s["delta"].to_numpy() - tv) <= 2 * s["sd"].to_numpy()))
    assert st["pearson"] == pytest.approx(np.corrcoef(s["delta"], tv)[0, 1])
    means = [rows["smoothed"][0][ro[t]:ro[t + 1]].mean() for t in range(8)]
    np.testing.assert_allclose(s["delta"], means, rtol=1e-12)


def test_table4_counts(run):
    w, C, src, full, rows, info = run
    t4 = study.table4(w.novel_top, w.base_top, w.row_offsets, src.judged, src.reliable, [1, 2])
    nt, bt = w.novel_top[:w.row_offsets[1]], w.base_top[:w.row_offsets[1]]
    need = set(nt[nt >= 0]) | set(bt[bt >= 0])
    assert t4["unique_query_urls"][0] == len(need)
    assert t4["judged_query_urls"][0] == sum(src.judged[p] for p in need)
    assert t4["paper_unique_queries"][0] == 447


def test_no_intersection_is_a_clear_error(run):
    w, C, src, full, rows, info = run
    with pytest.raises(ValueError, match="share 0 query-URL pairs"):
        study.click_sources(n_pairs=w.n_pairs, judged_pairs=np.array([0]), judged_grades=np.array([1]), agreement=C,
                            relevance=np.zeros(w.n_pairs), reliable=np.zeros(w.n_pairs, bool), base_top=w.base_top,
                            scale=PEGFB)


def _brute_force_views_mse(w, C, judged_pairs, judged_grades, views, relevance, m, folds, pq):
    """The min-views criterion by its definition: remove each judged pair of
    each test and predict it with a refitted click posterior (its query fold
    left out of the fits) or by smoothing without it."""
    from evalrank.papers.ozertem2011 import smoothing

    a = PEGFB.a
    reliable = views >= m
    kw = dict(n_pairs=w.n_pairs, agreement=C, relevance=relevance, reliable=reliable, base_top=w.base_top, scale=PEGFB)
    full = study.click_sources(judged_pairs=judged_pairs, judged_grades=judged_grades, **kw)
    fold_of = pq[judged_pairs] % folds
    rest = {f: study.click_sources(judged_pairs=judged_pairs[fold_of != f], judged_grades=judged_grades[fold_of != f],
                                   **kw) for f in range(folds)}
    value = np.full(w.n_pairs, np.nan)
    value[judged_pairs] = a[judged_grades]
    errs = []
    for t in range(w.row_offsets.size - 1):
        sl = slice(w.row_offsets[t], w.row_offsets[t + 1])
        nt, bt = w.novel_top[sl], w.base_top[sl]
        sigma = smoothing.choose_sigma(nt, bt, full.combined_pdf, full.available, full.judged,
                                       full.target_values(PEGFB), PEGFB).sigma
        shown = np.unique(np.concatenate([nt[nt >= 0], bt[bt >= 0]]))
        for j in shown[full.judged[shown]]:
            if reliable[j]:
                pred = rest[pq[j] % folds].click_pdf[j] @ a
            else:
                av = full.available.copy()
                av[j] = False
                pids, spdf = smoothing.smooth(nt, bt, full.combined_pdf, av, PEGFB, sigma)
                pred = spdf[pids == j][0] @ a
            errs.append(value[j] - pred)
    return float(np.mean(np.square(errs))), len(errs)


def test_choose_min_views_against_its_definition(run):
    w, C, src, full, rows, info = run
    fit = dbn.simplified_dbn(w.log, w.n_pairs)
    pq = np.repeat(np.arange(w.offsets.size - 1), np.diff(w.offsets))
    jp = np.flatnonzero(src.judged)
    jg = src.judged_grade[jp]
    choice = study.choose_min_views(views=fit.views, relevance=fit.relevance, grid=[5, 2, 10 ** 6], pair_query=pq,
                                    judged_pairs=jp, judged_grades=jg, agreement=C, novel_top=w.novel_top,
                                    base_top=w.base_top, row_offsets=w.row_offsets, scale=PEGFB, folds=3)
    t = choice.table.set_index("min_views")
    assert list(t.index) == [2, 5, 10 ** 6]
    assert np.isnan(t.loo_mse[10 ** 6]) and t.reliable_pairs[10 ** 6] == 0    # no click estimate: skipped
    mses = {}
    for m in (2, 5):
        mse, n = _brute_force_views_mse(w, C, jp, jg, fit.views, fit.relevance, m, 3, pq)
        mses[m] = mse
        assert t.targets[m] == n and t.loo_mse[m] == pytest.approx(mse, rel=1e-9)
        assert 0 < t.click_targets[m] < n
    assert choice.min_views == int(t.loo_mse.idxmin())
    for m in (2, 5):    # the MSE over the lowest one's, and its paired se (0 at the lowest itself)
        assert t.excess[m] == pytest.approx(mses[m] / min(mses.values()) - 1, rel=1e-9, abs=1e-12)
        assert (t.excess_se[m] == 0) == (m == choice.min_views) and t.excess_se[m] >= 0
    assert np.isnan(t.excess[10 ** 6]) and np.isnan(t.excess_se[10 ** 6])


def test_choose_min_views_bad_arguments(run):
    w, C, src, full, rows, info = run
    fit = dbn.simplified_dbn(w.log, w.n_pairs)
    pq = np.repeat(np.arange(w.offsets.size - 1), np.diff(w.offsets))
    jp = np.flatnonzero(src.judged)
    kw = dict(views=fit.views, relevance=fit.relevance, pair_query=pq, judged_pairs=jp,
              judged_grades=src.judged_grade[jp], agreement=C, novel_top=w.novel_top, base_top=w.base_top,
              row_offsets=w.row_offsets, scale=PEGFB)
    with pytest.raises(ValueError, match="grid"):
        study.choose_min_views(grid=[], **kw)
    with pytest.raises(ValueError, match="grid"):
        study.choose_min_views(grid=[0, 3], **kw)
    with pytest.raises(ValueError, match="folds"):
        study.choose_min_views(grid=[3], folds=1, **kw)
    with pytest.raises(ValueError, match="no threshold"):
        study.choose_min_views(grid=[10 ** 6], **kw)
