"""The paper's evaluation on a simulated world (Ozertem et al. 2011, Secs. 3-5).

:func:`estimate_all` runs every estimator on every test of a world and
returns per-row (test query) E{ΔDCG@k} and Var{ΔDCG@k}:

- ``smoothed``: the paper's method, in its combination order (Sec. 3.4):
  editorial pdf (Table 1 row) -> click-model posterior p(g|x) -> hybrid
  smoothing with sigma chosen per test by leave-one-out;
- ``clicks_only`` / ``editorial_only``: one source each, everything else Bad
  (Sec. 5.2.2's baselines);
- ``carterette_jones``: exact editorial grades, else the ordinal regression on
  click features (Sec. 5.2.1);
- ``full1..fullN``: each fully judged editorial set, through Table 1 rows;
- ``truth``: the simulator's true grades (zero variance) and ``expected``:
  the mean an editor's Table-1-row pdf would give for the true grade -- the
  quantity editorial-scale estimators target.

The tables then compare them: per-query correlations within each test over
impression-threshold query subsets (Tables 6 and 8), per-test calls
(Table 7) and, beyond the paper, the test-level correlation with the truth,
sign agreement and the coverage of the stated variance over all tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from evalrank.data.collection import segment_ids
from evalrank.papers.ozertem2011 import deltadcg, mapping, precision, printed, smoothing
from evalrank.papers.ozertem2011.grades import GradeScale, agreement_pdfs, grade_moments
from evalrank.papers.ozertem2011.printed import IMPRESSION_THRESHOLDS

__all__ = ["Sources", "click_sources", "estimate_all", "correlation_table", "calls_table", "study_table",
           "table4", "loo_study", "PAPER_TABLE4", "PAPER_TABLE5", "PAPER_TABLE6", "PAPER_TABLE7", "PAPER_TABLE8",
           "IMPRESSION_THRESHOLDS", "ViewsChoice", "choose_min_views", "PAPER_MIN_VIEWS"]

# the paper's numbers (printed.py), as the tables' paper_* columns use them
PAPER_TABLE4 = pd.DataFrame(printed.TABLE4)
PAPER_TABLE5 = printed.TABLE5
PAPER_TABLE6 = pd.DataFrame(printed.TABLE6)
PAPER_TABLE7 = printed.TABLE7
PAPER_TABLE8 = pd.DataFrame(printed.TABLE8)


@dataclass
class Sources:
    """Per-pair relevance sources of the method (n_pairs rows each)."""

    editorial_pdf: np.ndarray    # (n_pairs, G) Table-1-row pdf of the pre-existing judgment
    judged: np.ndarray           # (n_pairs,) bool
    judged_grade: np.ndarray     # (n_pairs,) int64, -1 where unjudged
    click_pdf: np.ndarray        # (n_pairs, G) p(g|x), uniform where unreliable
    reliable: np.ndarray         # (n_pairs,) bool: the click model has >= min_views views
    relevance: np.ndarray        # (n_pairs,) click-model relevance x = a * s
    fits: mapping.BetaFits
    priors: dict                 # depth -> p(g)

    @property
    def available(self) -> np.ndarray:
        """Pairs with a grade pdf from an editor or the click model."""
        return self.judged | self.reliable

    @property
    def combined_pdf(self) -> np.ndarray:
        """Sec. 3.4's order: the editorial pdf where judged, else the click
        model's posterior (meaningful where :attr:`available`)."""
        return np.where(self.judged[:, None], self.editorial_pdf, self.click_pdf)

    def target_values(self, scale: GradeScale) -> np.ndarray:
        """Leave-one-out targets (Sec. 5.1): the judged grade's value, NaN elsewhere."""
        return np.where(self.judged, scale.a[np.maximum(self.judged_grade, 0)], np.nan)


def click_sources(*, n_pairs, judged_pairs, judged_grades, agreement, relevance, reliable, base_top, scale,
                  prior_depth=5, eps=1e-4, min_samples=5) -> Sources:
    """Editorial and click-model pdfs (Sec. 3.3): beta fits of p(x|g) on the
    intersection (pairs with a judgment and a reliable click estimate), the
    position-aware prior p(g) from judged pairs in the baseline's top
    ``prior_depth`` (depth 1 is kept for Figs. 3-4), posterior p(g|x)."""
    R = agreement_pdfs(agreement)
    G = scale.n
    judged = np.zeros(n_pairs, dtype=bool)
    judged[judged_pairs] = True
    grade = np.full(n_pairs, -1, dtype=np.int64)
    grade[judged_pairs] = judged_grades
    editorial = np.full((n_pairs, G), 1.0 / G)
    editorial[judged_pairs] = R[judged_grades]
    inter = judged & reliable
    if inter.sum() < 2:
        raise ValueError(f"the click model and the editors share {int(inter.sum())} query-URL pairs; the beta "
                         "mapping p(x|g) needs more (more sessions or judgments)")
    fits = mapping.fit_beta(relevance[inter], grade[inter], G, eps=eps, min_samples=min_samples)
    flat = base_top.ravel()
    ranks = np.tile(np.arange(1, base_top.shape[1] + 1), base_top.shape[0])
    ok = flat >= 0
    flat, ranks = flat[ok], ranks[ok]
    pairs_u, first = np.unique(flat, return_index=True)    # a pair counts once (tests share queries)
    ranks = ranks[first]
    jm = judged[pairs_u]
    priors = {d: mapping.grade_prior(grade[pairs_u][jm], ranks[jm], d, G) for d in sorted({1, 5, prior_depth})}
    click = np.full((n_pairs, G), 1.0 / G)
    click[reliable] = mapping.posterior(relevance[reliable], fits, priors[prior_depth], eps=eps)
    return Sources(editorial, judged, grade, click, reliable, relevance, fits, priors)


PAPER_MIN_VIEWS = printed.MIN_VIEWS    # Sec. 5.2.1: "reliable relevance estimates with as few as 10 impressions"


@dataclass
class ViewsChoice:
    """Result of :func:`choose_min_views`: the chosen threshold and, per
    candidate, the pooled leave-one-out MSE of the method's prediction for
    judged pairs (``loo_mse``), the targets scored (``targets``), how many of
    them the click model predicts (``click_targets``, the rest are smoothed),
    the pairs with enough views (``reliable_pairs``) and the MSE over the
    lowest one's, minus 1 (``excess``), with its se (``excess_se``, paired
    over the same left-out pairs: :func:`.precision.mse_ratio`)."""

    min_views: int
    table: pd.DataFrame


def choose_min_views(*, views, relevance, grid, pair_query, judged_pairs, judged_grades, agreement, novel_top,
                     base_top, row_offsets, scale: GradeScale, folds=5, prior_depth=5, eps=1e-4, min_samples=5,
                     sigma_bounds=(1e-3, 1e2)) -> ViewsChoice:
    """Views a pair needs before its click estimate enters the evaluation
    (Sec. 3.4 step 2), chosen by the leave-one-out criterion of Sec. 5.1.

    The paper fixes 10 views for its logs (Sec. 5.2.1) and chooses σ by
    leave-one-out MSE over the judged pairs; this chooses the threshold the
    same way, from the method's own data (pre-existing judgments, clicks),
    never from a ground truth. For each candidate ``m`` in ``grid``, every
    judged pair of every test is removed and predicted as the method would
    predict it had it not been judged: by its click posterior E(g|x) when it
    has ``>= m`` views, else by hybrid smoothing of the remaining available
    pdfs at the test's leave-one-out σ (:func:`smoothing.choose_sigma`). The
    click posterior of a judged pair is *cross-fitted*: the Beta fits and
    the prior come from the judged pairs of the other ``folds`` query folds
    (fold = query index mod ``folds``), so a pair never predicts itself.
    The candidate with the lowest pooled MSE wins (the smaller ``m`` on a
    tie); a candidate whose intersection (judged pairs with ``>= m`` views)
    is too small for the Beta fits in some fold (< ``min_samples`` outside
    it) is skipped (NaN). Raises ValueError if no
    candidate can be scored.
    """
    g = np.asarray(grid)
    if g.ndim != 1 or g.size == 0 or not np.issubdtype(g.dtype, np.integer) or g.min() < 1:
        raise ValueError(f"grid: expected a non-empty list of integers >= 1, got {grid!r}")
    if isinstance(folds, (bool, np.bool_)) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise ValueError(f"folds: expected an int >= 2, got {folds!r}")
    views = np.asarray(views)
    n_pairs = views.size
    judged_pairs = np.asarray(judged_pairs, dtype=np.int64)
    judged_grades = np.asarray(judged_grades, dtype=np.int64)
    fold = np.asarray(pair_query, dtype=np.int64)[judged_pairs] % folds
    kw = dict(n_pairs=n_pairs, agreement=agreement, relevance=relevance, base_top=base_top, scale=scale,
              prior_depth=prior_depth, eps=eps, min_samples=min_samples)
    n_tests = row_offsets.size - 1
    rows, kept = [], {}
    for m in np.unique(g):
        reliable = views >= m
        rec = {"min_views": int(m), "loo_mse": np.nan, "targets": 0, "click_targets": 0,
               "reliable_pairs": int(reliable.sum())}
        rows.append(rec)
        inter = reliable[judged_pairs]
        if min(int(inter[fold != f].sum()) for f in range(folds)) < max(min_samples, 2):
            continue    # too few judged pairs with click estimates for the (cross-fitted) Beta fits
        src = click_sources(judged_pairs=judged_pairs, judged_grades=judged_grades, reliable=reliable, **kw)
        e_click = np.full(n_pairs, np.nan)
        for f in range(folds):
            out = fold == f
            hold = judged_pairs[out][reliable[judged_pairs[out]]]
            if hold.size == 0:
                continue
            rest = click_sources(judged_pairs=judged_pairs[~out], judged_grades=judged_grades[~out],
                                 reliable=reliable, **kw)
            e_click[hold] = rest.click_pdf[hold] @ scale.a
        pdf, available, targets = src.combined_pdf, src.available, src.target_values(scale)
        errs, n_click = [], 0
        for t in range(n_tests):
            nt, bt = _rows(novel_top, base_top, row_offsets, t)
            choice = smoothing.choose_sigma(nt, bt, pdf, available, src.judged, targets, scale, bounds=sigma_bounds)
            pids, e = choice.pairs, choice.errors
            by_click = reliable[pids]
            errs.append(np.where(by_click, targets[pids] - e_click[pids], e))
            n_click += int(by_click.sum())
        err = np.concatenate(errs)
        kept[int(m)] = err
        rec.update(loo_mse=float(np.mean(err * err)), targets=int(err.size), click_targets=n_click)
    table = pd.DataFrame(rows)
    if table.loo_mse.isna().all():
        raise ValueError(f"grid: no threshold in {list(map(int, np.unique(g)))} leaves enough judged pairs with "
                         "click estimates for the Beta fits (more sessions or judgments, or lower thresholds)")
    best = kept[int(table.min_views[table.loo_mse.idxmin()])]
    excess = [precision.mse_ratio(kept[m], best) if m in kept and kept[m].shape == best.shape else (np.nan, np.nan)
              for m in table.min_views]
    table["excess"] = [r - 1 for r, _ in excess]
    table["excess_se"] = [se for _, se in excess]
    return ViewsChoice(min_views=int(table.min_views[table.loo_mse.idxmin()]), table=table)


def _rows(novel_top, base_top, row_offsets, t):
    sl = slice(row_offsets[t], row_offsets[t + 1])
    return novel_top[sl], base_top[sl]


def estimate_all(*, sources: Sources, novel_top, base_top, row_offsets, scale: GradeScale, agreement, true_grade,
                 full_sets: dict, cj_pdf, k=5, sigma="loo", sigma_bounds=(1e-3, 1e2), say=None):
    """Every estimator on every test (module docstring).

    Returns ``(rows, tests)``: ``rows`` maps method -> (E, Var) arrays over all
    test rows; ``tests`` is a DataFrame with per-test sigma and LOO MSEs.
    ``sigma``: ``"loo"`` (per-test leave-one-out) or a fixed number.
    """
    say = say or (lambda m: None)
    n_pairs = sources.judged.size
    R = agreement_pdfs(agreement)
    bad = scale.exact_pdfs(np.zeros(n_pairs, dtype=np.int64))
    editorial_only = np.where(sources.judged[:, None], sources.editorial_pdf, bad)
    clicks_only = np.where(sources.reliable[:, None], sources.click_pdf, bad)
    cj = np.where(sources.judged[:, None], scale.exact_pdfs(np.maximum(sources.judged_grade, 0)), cj_pdf)
    fixed = {"editorial_only": editorial_only, "clicks_only": clicks_only, "carterette_jones": cj,
             "truth": scale.exact_pdfs(true_grade), "expected": R[true_grade]}
    for name, g in full_sets.items():
        fixed[name] = np.where((g >= 0)[:, None], R[np.maximum(g, 0)], np.nan)
    moments = {}
    for name, pdf in fixed.items():
        finite = np.isfinite(pdf).all(axis=1)
        m, v = np.full(n_pairs, np.nan), np.full(n_pairs, np.nan)
        m[finite], v[finite] = grade_moments(pdf[finite], scale)
        moments[name] = (m, v)
    moments["expected"] = (moments["expected"][0], np.zeros(n_pairs))
    n_tests = row_offsets.size - 1
    rows = {name: (np.zeros(novel_top.shape[0]), np.zeros(novel_top.shape[0])) for name in moments}
    for t in range(n_tests):   # a pair appears once per test, but in many tests
        nt, bt = _rows(novel_top, base_top, row_offsets, t)
        sl = slice(row_offsets[t], row_offsets[t + 1])
        for name, (m, v) in moments.items():
            rows[name][0][sl], rows[name][1][sl] = deltadcg.delta_dcg(m, v, nt, bt, k=k)

    E, V, info = smoothed_estimates(sources=sources, novel_top=novel_top, base_top=base_top,
                                    row_offsets=row_offsets, scale=scale, k=k, sigma=sigma,
                                    sigma_bounds=sigma_bounds, say=say)
    rows["smoothed"] = (E, V)
    return rows, info


def smoothed_estimates(*, sources: Sources, novel_top, base_top, row_offsets, scale: GradeScale, k=5, sigma="loo",
                       sigma_bounds=(1e-3, 1e2), say=None):
    """The paper's method (smoothed-DBN) on every test: per row E and Var of
    ΔDCG@k, and a per-test table of sigma, LOO MSEs and source counts."""
    say = say or (lambda m: None)
    n_pairs = sources.judged.size
    n_tests = row_offsets.size - 1
    available, base_pdf, target_values = sources.available, sources.combined_pdf, sources.target_values(scale)
    E = np.zeros(novel_top.shape[0])
    V = np.zeros(novel_top.shape[0])
    info = []
    for t in range(n_tests):
        nt, bt = _rows(novel_top, base_top, row_offsets, t)
        if sigma == "loo":
            choice = smoothing.choose_sigma(nt, bt, base_pdf, available, sources.judged, target_values, scale,
                                            bounds=sigma_bounds)
            s = choice.sigma
            rec = {"test": t + 1, "sigma": s, "loo_hybrid": choice.mse, "loo_position": choice.mse_position,
                   "loo_query": choice.mse_query, "loo_n": choice.n_targets}
        else:
            s = float(sigma)
            rec = {"test": t + 1, "sigma": s}
        pdf = base_pdf.copy()
        pids, spdf = smoothing.smooth(nt, bt, base_pdf, available, scale, s, method="hybrid")
        pdf[pids] = spdf
        need = np.unique(np.concatenate([nt[nt >= 0], bt[bt >= 0]]))
        m, v = np.full(n_pairs, np.nan), np.full(n_pairs, np.nan)
        m[need], v[need] = grade_moments(pdf[need], scale)
        e, var = deltadcg.delta_dcg(m, v, nt, bt, k=k)
        E[row_offsets[t]:row_offsets[t + 1]] = e
        V[row_offsets[t]:row_offsets[t + 1]] = var
        rec.update({"pairs": int(need.size), "judged": int(sources.judged[need].sum()),
                    "click_only": int((sources.reliable[need] & ~sources.judged[need]).sum()),
                    "smoothed": int((~available[need]).sum())})
        info.append(rec)
        if (t + 1) % 20 == 0 or t + 1 == n_tests:
            say(f"smoothed estimates: test {t + 1}/{n_tests}")
    return E, V, pd.DataFrame(info)


def test_summaries(rows: dict, row_offsets, z=1.96) -> pd.DataFrame:
    """Per test and method: ΔDCG (mean over the test's queries), its SD and call."""
    n_tests = row_offsets.size - 1
    test_of_row = segment_ids(row_offsets)
    out = []
    for name, (E, V) in rows.items():
        s = deltadcg.summarize_tests(E, V, test_of_row, n_tests, z=z)
        out.append(pd.DataFrame({"test": np.arange(1, n_tests + 1), "method": name, "delta": s["delta"],
                                 "sd": s["sd"], "call": s["call"]}))
    return pd.concat(out, ignore_index=True)


def _pearson(x, y):
    if x.size < 3 or np.std(x) == 0 or np.std(y) == 0:
        return np.nan
    return float(np.corrcoef(x, y)[0, 1])


def _test_correlations(x, y, row_offsets, keep) -> np.ndarray:
    """Pearson r of ``x`` with ``y`` over each test's kept rows (NaN where undefined)."""
    out = []
    for t in range(row_offsets.size - 1):
        sl = slice(row_offsets[t], row_offsets[t + 1])
        out.append(_pearson(x[sl][keep[sl]], y[sl][keep[sl]]))
    return np.asarray(out, dtype=np.float64)


def _nanmean(vals):
    vals = np.asarray(vals, dtype=np.float64)
    return float(np.nanmean(vals)) if np.isfinite(vals).any() else np.nan


def correlation_table(rows: dict, row_offsets, impressions_of_row, methods, references,
                      thresholds=IMPRESSION_THRESHOLDS, sign=False) -> pd.DataFrame:
    """Tables 6 and 8: per impression threshold, the Pearson correlation over
    the test's queries (with >= threshold impressions) of each method's
    E{ΔDCG} with each reference's, averaged over tests and references (a
    method is not compared with itself; :func:`inter_annotator` compares the
    references among themselves). ``sign``: correlate sign(ΔDCG) instead
    (Sec. 5.2.2)."""
    n_tests = row_offsets.size - 1
    f = np.sign if sign else (lambda x: x)
    out = []
    for k in thresholds:
        keep = impressions_of_row >= k
        rec = {"min_impressions": k}
        for name in methods:
            vals = [_test_correlations(f(rows[name][0]), f(rows[ref][0]), row_offsets, keep)
                    for ref in references if ref != name]
            rec[name] = _nanmean(np.concatenate(vals) if vals else [])
        ok = [keep[row_offsets[t]:row_offsets[t + 1]] for t in range(n_tests)]
        rec["tests_used"] = int(sum(m.sum() >= 3 for m in ok))
        rec["queries"] = int(sum(m.sum() for m in ok))
        out.append(rec)
    return pd.DataFrame(out)


def inter_annotator(rows, row_offsets, impressions_of_row, sets, thresholds=IMPRESSION_THRESHOLDS, sign=False):
    """Average pairwise per-query correlation between the fully judged sets."""
    f = np.sign if sign else (lambda x: x)
    out = []
    for k in thresholds:
        keep = impressions_of_row >= k
        vals = [_test_correlations(f(rows[s1][0]), f(rows[s2][0]), row_offsets, keep)
                for i, s1 in enumerate(sets) for s2 in sets[i + 1:]]
        out.append(_nanmean(np.concatenate(vals) if vals else []))
    return out


def calls_table(summaries: pd.DataFrame, tests, methods) -> pd.DataFrame:
    """Table 7: call and ΔDCG per (method, test) for the given tests, the
    paper's printed values beside where it prints them."""
    out = []
    for name in methods:
        rec = {"method": name}
        for i, t in enumerate(tests):
            r = summaries[(summaries.method == name) & (summaries.test == t)].iloc[0]
            rec[f"test{t}"] = f"{r['call']} ({r['delta']:.4f})"
            if name in PAPER_TABLE7 and i < 5:
                c, v = PAPER_TABLE7[name][i]
                rec[f"paper_test{i + 1}"] = f"{c} ({v:.4f})"
        out.append(rec)
    return pd.DataFrame(out)


def _fisher_ci(r, n, level=0.95):
    if not np.isfinite(r) or n < 4:
        return np.nan, np.nan
    zc = stats.norm.ppf(0.5 + level / 2) / np.sqrt(n - 3)
    zr = np.arctanh(np.clip(r, -0.999999, 0.999999))
    return float(np.tanh(zr - zc)), float(np.tanh(zr + zc))


def study_table(summaries: pd.DataFrame, methods, truths=("truth", "expected"), z=2.0) -> pd.DataFrame:
    """Beyond the paper, over all tests: Pearson r of each method's test-level
    ΔDCG with the truth (95 % Fisher CI), sign agreement, the share of
    significant calls that have the truth's sign, and the coverage of the
    stated variance (truth within ±z SD); ``slope``: the least-squares slope of the method's ΔDCG on
    the truth's (below 1: shrunk towards the mean)."""
    out = []
    for truth in truths:
        tv = summaries[summaries.method == truth].sort_values("test")["delta"].to_numpy()
        for name in methods:
            s = summaries[summaries.method == name].sort_values("test")
            d, sd, call = s["delta"].to_numpy(), s["sd"].to_numpy(), s["call"].to_numpy()
            r = _pearson(d, tv)
            lo, hi = _fisher_ci(r, d.size)
            sig = call != "?"
            right = ((call == "+") & (tv > 0)) | ((call == "-") & (tv < 0))
            out.append({"truth": truth, "method": name, "tests": int(d.size), "pearson": r, "ci_low": lo,
                        "ci_high": hi, "spearman": float(stats.spearmanr(d, tv).statistic),
                        "sign_agreement": float(np.mean(np.sign(d) == np.sign(tv))),
                        "significant_calls": int(sig.sum()),
                        "significant_correct": float(right[sig].mean()) if sig.any() else np.nan,
                        "coverage": float(np.mean(np.abs(d - tv) <= z * sd)) if np.any(sd > 0) else np.nan,
                        "mean_abs_error": float(np.mean(np.abs(d - tv))), "slope": precision.slope(d, tv)})
    return pd.DataFrame(out)


def table4(novel_top, base_top, row_offsets, judged, reliable, tests) -> pd.DataFrame:
    """Table 4 for the given tests (1-based): unique queries, unique
    query-URLs of D ∪ D', those with a pre-existing judgment, and those
    without one but with a click-model estimate (the paper's "DBN
    query-URL"), with the shares and the paper's printed rows beside."""
    out = []
    for t in tests:
        nt, bt = _rows(novel_top, base_top, row_offsets, t - 1)
        need = np.unique(np.concatenate([nt[nt >= 0], bt[bt >= 0]]))
        j = judged[need]
        out.append({"test": t, "unique_queries": int(nt.shape[0]), "unique_query_urls": int(need.size),
                    "judged_query_urls": int(j.sum()), "dbn_query_urls": int((reliable[need] & ~j).sum())})
    df = pd.DataFrame(out)

    def shares(d):
        return d.assign(urls_per_query=d.unique_query_urls / d.unique_queries,
                        judged_share=d.judged_query_urls / d.unique_query_urls,
                        dbn_share=d.dbn_query_urls / d.unique_query_urls)

    paper = shares(PAPER_TABLE4).set_index("test").add_prefix("paper_").reset_index()
    return shares(df).merge(paper, on="test", how="left")


def loo_study(novel_top, base_top, row_offsets, sources: Sources, scale: GradeScale, sigmas):
    """Sec. 5.1 over all tests pooled: the LOO MSE curve over ``sigmas``
    (Fig. 6), the pooled-optimal sigma, and the LOO errors of position,
    query and hybrid smoothing at it (Table 5, Fig. 7)."""
    from scipy.optimize import minimize_scalar

    available, base_pdf, target_values = sources.available, sources.combined_pdf, sources.target_values(scale)
    n_tests = row_offsets.size - 1
    parts = [_rows(novel_top, base_top, row_offsets, t) for t in range(n_tests)]

    def errors(sigma, method="hybrid"):
        return np.concatenate([smoothing.loo_errors(nt, bt, base_pdf, available, sources.judged, target_values,
                                                    scale, sigma, method=method)[1] for nt, bt in parts])

    def mse(log_sigma):
        e = errors(float(np.exp(log_sigma)))
        return float(np.mean(e * e))

    curve = np.array([mse(np.log(s)) for s in sigmas])
    best = int(np.argmin(curve))
    lo = np.log(sigmas[max(best - 1, 0)])
    hi = np.log(sigmas[min(best + 1, len(sigmas) - 1)])
    res = minimize_scalar(mse, bounds=(lo, hi), method="bounded", options={"xatol": 1e-4})
    sigma = float(np.exp(res.x)) if res.fun <= curve[best] else float(sigmas[best])
    errs = {"position": errors(0.0, "position"), "query": errors(np.inf, "query"), "hybrid": errors(sigma)}
    return pd.DataFrame({"sigma": sigmas, "mse": curve}), sigma, errs
