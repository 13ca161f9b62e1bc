"""The clicks study's four steps as files in, files out (Ozertem et al. 2011, Secs. 3-5;
``evalrank stage clicks-*`` and ``workflow/rules/ozertem2011.smk``).

- :func:`simulate_files`: the simulated world (Sec. 4) -> ``world.npz``, ``tests.csv``,
  ``sessions.tsv``, ``judgments.tsv``
- :func:`click_model_files`: the simplified DBN (eq. 1) and the full DBN by EM -> ``dbn.npz`` and the
  recovery of the simulator's parameters
- :func:`estimate_files`: every estimator on every test (Secs. 3.3-3.4, 5.1-5.2) -> ``estimates.npz``,
  ``summaries.csv``, ``sigma.csv``, ``min_views.csv``, ``loo_curve.csv``, ``sources.npz``
- :func:`report_files`: Tables 2, 4-8, the many-test study and Figs. 1-8

Every file is written atomically (:mod:`evalrank.io`); ``log`` receives one-line progress messages.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from evalrank import io
from evalrank.papers.ozertem2011 import precision, study
from evalrank.papers.ozertem2011.grades import GradeScale, read_agreement

__all__ = ["grade_scale", "simulate_files", "click_model_files", "estimate_files", "report_files"]

_TUPLE_PARAMS = ("history", "alternatives", "attractiveness", "satisfaction", "blend", "noise", "affected")


def _quiet(message: str) -> None:
    return None


def grade_scale(names) -> GradeScale:
    """The grade scale of ``names`` (lowest first) with values 0, 1, ... (eq. 4's g)."""
    return GradeScale(names=tuple(names), values=tuple(range(len(names))))


def _pairs(w):
    from evalrank.papers.ozertem2011.logs import PairTable

    return PairTable.from_offsets(w["queries"], w["offsets"], w["pair_url"])


def simulate_files(*, predictions: dict, agreement, params: dict, seed: int, out_dir, grades, log=_quiet) -> None:
    """Sec. 4's world (:func:`~evalrank.papers.ozertem2011.simulate.simulate_world`) from the pool
    predictions of the rankers (``predictions``: name -> predictions.npz, all of one pool), Table 1's
    agreement matrix (CSV) and the world's parameters (``ozertem2011.world``) -> ``world.npz``, ``tests.csv``,
    ``sessions.tsv`` and ``judgments.tsv`` in ``out_dir``."""
    from evalrank.papers.ozertem2011.logs import write_judgments, write_sessions
    from evalrank.papers.ozertem2011.simulate import WorldParams, simulate_world

    scale = grade_scale(grades)
    params = dict(params)
    for key in _TUPLE_PARAMS:
        if key in params:
            params[key] = tuple(params[key])
    params = WorldParams(**params)
    scores, pool = {}, None
    for name, path in predictions.items():
        p = io.load_arrays(path)
        if pool is None:
            pool = p
        elif not (np.array_equal(p["offsets"], pool["offsets"]) and np.array_equal(p["labels"], pool["labels"])):
            raise ValueError(f"--predictions: {path} scores a different pool than the other rankers")
        scores[name] = p["scores"]
    counts = read_agreement(agreement, scale)
    world = simulate_world(pool["labels"], pool["offsets"], pool["qids"], scores, counts, params, seed,
                           log_progress=log)
    out = Path(out_dir)
    io.save_arrays(out / "world.npz", **world.arrays())
    io.write_table(world.tests, out / "tests.csv")
    write_sessions(out / "sessions.tsv", world.log, world.pair_table())
    write_judgments(out / "judgments.tsv", world.judgments, scale)
    imp = world.impressions
    log(f"{world.log.n_sessions} sessions ({world.log.n_rows} distinct rows) on {imp.size} queries; "
        f"queries with >= 200 / 50 / 10 / 1 sessions: {(imp >= 200).sum()} / {(imp >= 50).sum()} / "
        f"{(imp >= 10).sum()} / {(imp >= 1).sum()}")


def _recovery(simp, fit, true: dict, views_grid) -> pd.DataFrame:
    """The click models' parameters against the simulator's (known only because the world is
    simulated): Pearson r and errors over the pairs with >= each number of views."""
    rows = []
    for views in views_grid:
        rel = simp.views >= views
        for model, est in (("simplified", simp), ("em", fit)):
            for par in ("attract", "satisfy", "relevance"):
                x, y = getattr(est, par)[rel], true[par][rel]
                rows.append({"min_views": views, "model": model, "parameter": par, "pairs": int(rel.sum()),
                             "pearson": float(np.corrcoef(x, y)[0, 1]) if rel.sum() > 2 else np.nan,
                             "mean_abs_error": float(np.mean(np.abs(x - y))) if rel.any() else np.nan,
                             "mean_error": float(np.mean(x - y)) if rel.any() else np.nan})
    return pd.DataFrame(rows)


def click_model_files(*, world, sessions, views_grid, gamma, prior, max_iter, tol, output, table,
                      log=_quiet) -> None:
    """The simplified DBN (eq. 1) and the full DBN by EM (Sec. 3.2) from a session log of the
    world -> ``output`` (dbn.npz) and ``table`` (recovery of the simulator's parameters at each
    view threshold of ``views_grid``)."""
    from evalrank.papers.ozertem2011 import dbn
    from evalrank.papers.ozertem2011.logs import read_sessions

    w = io.load_arrays(world)
    pairs = _pairs(w)
    log_, _ = read_sessions(sessions, pairs)
    n = len(pairs)
    t0 = time.perf_counter()
    simp = dbn.simplified_dbn(log_, n)
    t1 = time.perf_counter()
    fit = dbn.fit_dbn(log_, n, gamma=gamma, prior=tuple(prior), max_iter=max_iter, tol=tol, progress_desc="DBN EM")
    t2 = time.perf_counter()
    log(f"simplified DBN {t1 - t0:.2f} s; EM {fit.n_iter} iterations in {t2 - t1:.2f} s "
        f"({log_.n_sessions / max(t2 - t1, 1e-9):,.0f} sessions/s), gamma {fit.gamma:.4f}; pairs with >= "
        + ", ".join(f"{v}: {int((simp.views >= v).sum())}" for v in views_grid) + " views")
    io.save_arrays(output, views=simp.views, clicks=simp.clicks, last_clicks=simp.last_clicks,
                   simplified_attract=simp.attract, simplified_satisfy=simp.satisfy,
                   simplified_relevance=simp.relevance, em_attract=fit.attract, em_satisfy=fit.satisfy,
                   em_relevance=fit.relevance, impressions=fit.impressions,
                   em_gamma=np.float64(fit.gamma), em_log_likelihood=np.asarray(fit.log_likelihood))
    true = {"attract": w["attract"], "satisfy": w["satisfy"], "relevance": w["attract"] * w["satisfy"]}
    io.write_table(_recovery(simp, fit, true, views_grid), table)


def _judgment_arrays(df, pairs):
    """(pair ids, grade indices) of one judgment set, refusing judged pairs
    the world does not know."""
    ids = pairs.lookup(df["query"].tolist(), df["url"].tolist())
    if (ids < 0).any():
        r = df.iloc[int(np.nonzero(ids < 0)[0][0])]
        raise ValueError(f"judgments: query {r['query']!r} / URL {r['url']!r} is not a pair of the world")
    return ids, df["grade_index"].to_numpy(np.int64)


class _Inputs:
    """What :func:`estimate_files` reads: the world, its log and judgments, the click models."""

    def __init__(self, world, sessions, judgments, dbn, agreement, scale):
        from evalrank.papers.ozertem2011.logs import read_judgments, read_sessions

        self.w = io.load_arrays(world)
        self.pairs = _pairs(self.w)
        self.n = len(self.pairs)
        self.log, _ = read_sessions(sessions, self.pairs)
        self.judg = read_judgments(judgments, scale)
        self.counts = read_agreement(agreement, scale)
        self.d = io.load_arrays(dbn)
        self.pre_ids, self.pre_grades = _judgment_arrays(self.judg[self.judg["set"] == "pre-existing"], self.pairs)
        self.pq, _ = self.pairs.arrays()

    def full_sets(self) -> dict:
        """Each fully judged editorial set: pair -> grade index (-1 where unjudged)."""
        judg, out = self.judg, {}
        for name in sorted(s for s in judg["set"].unique() if s.startswith("full")):
            ids, g = _judgment_arrays(judg[judg["set"] == name], self.pairs)
            arr = np.full(self.n, -1, dtype=np.int64)
            arr[ids] = g
            out[name] = arr
        return out


def _threshold(x: _Inputs, model, min_views, views_grid, views_folds, sigma_bounds, scale, mapping_kw, log):
    """min views for the click model ``model`` (Sec. 3.4 step 2) and the table of the choice."""
    if min_views != "loo":
        return int(min_views), pd.DataFrame({"model": [model], "min_views": [int(min_views)], "chosen": [True]})
    w, t0 = x.w, time.perf_counter()
    choice = study.choose_min_views(
        views=x.d["views"], relevance=x.d[f"{model}_relevance"], grid=views_grid, pair_query=x.pq,
        judged_pairs=x.pre_ids, judged_grades=x.pre_grades, agreement=x.counts, novel_top=w["novel_top"],
        base_top=w["base_top"], row_offsets=w["row_offsets"], scale=scale, folds=views_folds,
        sigma_bounds=tuple(sigma_bounds), **mapping_kw)
    log(f"{model} DBN: min views by leave-one-out over {list(views_grid)}: {choice.min_views} "
        f"({time.perf_counter() - t0:.1f} s)")
    return choice.min_views, choice.table.assign(model=model, chosen=choice.table.min_views == choice.min_views)


def _carterette_jones(x: _Inputs, sources, scale, min_train, alpha, log):
    """Sec. 5.2.1's comparison: Carterette & Jones' ordinal regression on click features, trained
    on the judged pairs of queries with >= ``min_train`` sessions -> (model, grade pdfs, train pairs)."""
    from evalrank.papers.ozertem2011.carterette import OrdinalClickModel, click_features

    X = click_features(x.log, x.n)
    imp = x.log.query_sessions(x.w["queries"].size)
    train = x.pre_ids[imp[x.pq[x.pre_ids]] >= min_train]
    cj = OrdinalClickModel(scale.n, alpha=alpha).fit(X[train], sources.judged_grade[train])
    log(f"Carterette & Jones: trained on {train.size} judged pairs of queries with >= {min_train} sessions")
    return cj, cj.predict_proba(X), train


def estimate_files(*, world, sessions, judgments, dbn, agreement, out_dir, grades, model, prior_depth, eps,
                   min_samples, min_views, views_grid, views_folds, sigma, sigma_bounds, curve_points,
                   cj_min_train, cj_alpha, z, log=_quiet) -> None:
    """Every estimator on every test (:func:`~evalrank.papers.ozertem2011.study.estimate_all`): the
    views a click estimate needs (``min_views``: ``"loo"`` or an int; Secs. 3.4, 5.2.1), the click
    sources (Sec. 3.3), Carterette & Jones, smoothed-DBN with the other click model and the paper's 10
    views beside, the per-test summaries and Sec. 5.1's pooled leave-one-out study (Table 5, Fig. 6)."""
    from evalrank.papers.ozertem2011.carterette import FEATURES

    scale = grade_scale(grades)
    x = _Inputs(world, sessions, judgments, dbn, agreement, scale)
    w, d, n = x.w, x.d, x.n
    mapping_kw = dict(prior_depth=prior_depth, eps=eps, min_samples=min_samples)
    choose = dict(min_views=min_views, views_grid=views_grid, views_folds=views_folds, sigma_bounds=sigma_bounds,
                  scale=scale, mapping_kw=mapping_kw, log=log)
    other = "simplified" if model == "em" else "em"
    min_v, views_table = _threshold(x, model, **choose)
    other_views, other_table = _threshold(x, other, **choose)
    views_table = pd.concat([views_table, other_table], ignore_index=True)
    views_table = views_table[["model"] + [c for c in views_table.columns if c != "model"]]

    def sources_at(reliable, relevance=d[f"{model}_relevance"]):
        return study.click_sources(n_pairs=n, judged_pairs=x.pre_ids, judged_grades=x.pre_grades, agreement=x.counts,
                                   relevance=relevance, reliable=reliable, base_top=w["base_top"], scale=scale,
                                   **mapping_kw)

    sources = sources_at(d["views"] >= min_v)
    cj, cj_pdf, train = _carterette_jones(x, sources, scale, cj_min_train, cj_alpha, log)
    sigma = sigma if sigma == "loo" else float(sigma)
    tests = dict(novel_top=w["novel_top"], base_top=w["base_top"], row_offsets=w["row_offsets"], scale=scale)
    t0 = time.perf_counter()
    rows, info = study.estimate_all(sources=sources, agreement=x.counts, true_grade=w["true_grade"],
                                    full_sets=x.full_sets(), cj_pdf=cj_pdf, k=w["novel_top"].shape[1], sigma=sigma,
                                    sigma_bounds=tuple(sigma_bounds), say=log, **tests)
    log(f"estimated {info.shape[0]} tests in {time.perf_counter() - t0:.1f} s")
    # for comparison: the other click model, and the paper's fixed 10 views
    for name, alt in ((f"smoothed_{other}", sources_at(d["views"] >= other_views, d[f"{other}_relevance"])),
                      ("smoothed_paper_views", sources_at(d["views"] >= study.PAPER_MIN_VIEWS))):
        rows[name] = study.smoothed_estimates(sources=alt, k=w["novel_top"].shape[1], sigma=sigma,
                                              sigma_bounds=tuple(sigma_bounds), **tests)[:2]
    summaries = study.test_summaries(rows, w["row_offsets"], z=z)
    sigmas = np.geomspace(sigma_bounds[0], sigma_bounds[1], curve_points)
    curve, sigma_all, errs = study.loo_study(w["novel_top"], w["base_top"], w["row_offsets"], sources, scale, sigmas)
    out = Path(out_dir)
    imp = x.log.query_sessions(w["queries"].size)
    io.save_arrays(out / "estimates.npz", row_impressions=imp[w["row_query"]], row_offsets=w["row_offsets"],
                   **{f"{m}_mean": e for m, (e, v) in rows.items()}, **{f"{m}_var": v for m, (e, v) in rows.items()})
    io.write_table(summaries, out / "summaries.csv")
    io.write_table(info, out / "sigma.csv")
    io.write_table(views_table, out / "min_views.csv")
    io.write_table(curve.assign(pooled_sigma=sigma_all), out / "loo_curve.csv")
    io.save_arrays(out / "sources.npz", relevance=sources.relevance, reliable=sources.reliable,
                   judged_grade=sources.judged_grade, beta_params=sources.fits.params,
                   beta_samples=sources.fits.n_samples, beta_pooled=sources.fits.pooled,
                   prior_depths=np.asarray(sorted(sources.priors)),
                   priors=np.stack([sources.priors[k] for k in sorted(sources.priors)]),
                   prior_depth=np.int64(prior_depth), cj_coef=cj.coef_, cj_features=np.asarray(FEATURES),
                   cj_train=np.int64(train.size), **{f"loo_{m}": e for m, e in errs.items()})


def _table5(curve, errs, judged_grade=None, pair_query=None) -> pd.DataFrame:
    """Table 5: pooled leave-one-out MSE of the three smoothings at the pooled σ, the paper's beside;
    the hybrid's gain over the better single smoothing (1 − MSE ratio) with its paired se
    (:func:`.precision.mse_ratio`) and the share of the judged grades' variance between queries
    (:func:`.precision.between_query_share`, given ``judged_grade``: -1 unjudged, and ``pair_query``)."""
    mse = {m: float(np.mean(e ** 2)) for m, e in errs.items()}
    better = min(("query", "position"), key=mse.get)
    ratio, se = precision.mse_ratio(errs["hybrid"], errs[better])
    ours = {"source": "ours", **mse, "sigma": float(curve.pooled_sigma.iloc[0]),
            "judged_pairs": int(errs["hybrid"].size),
            "hybrid_gain": 1 - ratio, "hybrid_gain_se": se}
    if judged_grade is not None:
        j = np.asarray(judged_grade) >= 0
        ours["between_query_share"] = precision.between_query_share(np.asarray(judged_grade)[j],
                                                                    np.asarray(pair_query)[j])
    return pd.DataFrame([ours, {"source": "paper", **study.PAPER_TABLE5, "judged_pairs": np.nan}])


def _paper_columns(table: pd.DataFrame) -> pd.DataFrame:
    return table.add_prefix("paper_").rename(columns={"paper_min_impressions": "min_impressions"})


def _table6(rows, ro, imp, full, alt) -> pd.DataFrame:
    """Table 6: Carterette & Jones and smoothed-DBN against the fully judged sets (and the truth),
    by minimum impressions; the standard errors over tests of what the findings judge
    (:func:`_table6_se`)."""
    t6 = study.correlation_table(rows, ro, imp, ["carterette_jones", "smoothed"], full)
    keep = ["carterette_jones", "smoothed"] + alt
    t6_truth = study.correlation_table(rows, ro, imp, keep, ["truth"])
    t6 = t6.merge(t6_truth[["min_impressions"] + keep].rename(columns={m: f"{m}_vs_truth" for m in keep}),
                  on="min_impressions")
    t6 = pd.concat([t6, _table6_se(rows, ro, imp, full)], axis=1)
    return t6.merge(_paper_columns(study.PAPER_TABLE6), on="min_impressions")


def _drop(x: np.ndarray) -> np.ndarray:
    """Per threshold row (highest first, as IMPRESSION_THRESHOLDS), each test's value at the highest
    threshold minus its value at the row's: the drop as rarer queries enter (0 on the first row)."""
    return x[:1] - x


def _table6_se(rows, ro, imp, full) -> pd.DataFrame:
    """Per threshold, the se over tests (:mod:`.precision`) of each method's mean per-query
    correlation, of smoothed-DBN − C&J (paired by test) and of C&J's drop from the highest threshold
    minus smoothed-DBN's (``drop_gap_se``)."""
    per = precision.per_test_correlations(rows, ro, imp, ["carterette_jones", "smoothed"], full)
    cj, sm = per["carterette_jones"], per["smoothed"]
    return pd.DataFrame({"carterette_jones_se": precision.mean_se(cj), "smoothed_se": precision.mean_se(sm),
                         "smoothed_minus_carterette_jones_se": precision.mean_se(sm - cj),
                         "drop_gap_se": precision.mean_se(_drop(cj) - _drop(sm))})


def _table8_se(rows, ro, imp, full, methods, sign) -> pd.DataFrame:
    """Per threshold, the se over tests of each method's and the inter-annotator mean per-query
    correlation, of smoothed-DBN / inter-annotator (delta method), of each baseline − smoothed-DBN
    and of clicks-only's drop from the highest threshold (paired by test)."""
    per = precision.per_test_correlations(rows, ro, imp, methods, full, sign=sign)
    ia = precision.per_test_inter_annotator(rows, ro, imp, full, sign=sign)
    sm = per["smoothed"]
    out = {f"{m}_se": precision.mean_se(per[m]) for m in methods}
    out["inter_annotator_se"] = precision.mean_se(ia)
    out["smoothed_over_inter_annotator_se"] = precision.ratio_se(sm, ia)
    for m in ("clicks_only", "editorial_only"):
        out[f"{m}_minus_smoothed_se"] = precision.mean_se(per[m] - sm)
    out["clicks_only_drop_se"] = precision.mean_se(_drop(per["clicks_only"]))
    return pd.DataFrame(out)


def _table8(rows, ro, imp, full, unjudged=None) -> pd.DataFrame:
    """Table 8: cross-correlations of ΔDCG (and of its sign, Sec. 5.2.2) with the fully judged sets,
    the inter-annotator agreement and each method against the truth, with their se over tests
    (:func:`_table8_se`); given ``unjudged`` (each row's ΔDCG of the indicator "no pre-existing
    judgment"), judgments-only's per-query correlation with it (``editorial_only_vs_unjudged``)."""
    t8_methods = ["clicks_only", "editorial_only", "smoothed", "carterette_jones"]
    parts = []
    for sign in (False, True):
        t8 = study.correlation_table(rows, ro, imp, t8_methods, full, sign=sign)
        t8["inter_annotator"] = study.inter_annotator(rows, ro, imp, full, sign=sign)
        vs_truth = study.correlation_table(rows, ro, imp, t8_methods + full[:1], ["truth"], sign=sign)
        for m in t8_methods + full[:1]:
            t8[f"{m}_vs_truth"] = vs_truth[m]
        if unjudged is not None:
            u = study.correlation_table({**rows, "unjudged": (unjudged, None)}, ro, imp, ["editorial_only"],
                                        ["unjudged"], sign=sign)
            t8["editorial_only_vs_unjudged"] = u["editorial_only"]
        t8 = pd.concat([t8, _table8_se(rows, ro, imp, full, t8_methods, sign)], axis=1)
        parts.append(t8.assign(quantity="sign" if sign else "delta_dcg"))
    t8 = pd.concat(parts, ignore_index=True)
    return t8.merge(_paper_columns(study.PAPER_TABLE8).assign(quantity="delta_dcg"),
                    on=["min_impressions", "quantity"], how="left")


def _unjudged_delta(w, judged) -> np.ndarray:
    """Each test row's ΔDCG@k of the indicator "the pair has no pre-existing judgment" (gain 1 where
    unjudged): how much more of the new ranking's discounted top lacks judgments than the old's."""
    from evalrank.papers.ozertem2011 import deltadcg

    m = (~np.asarray(judged, dtype=bool)).astype(np.float64)
    nt, bt, ro = w["novel_top"], w["base_top"], w["row_offsets"]
    return np.concatenate([deltadcg.delta_dcg(m, np.zeros_like(m), nt[a:b], bt[a:b], k=nt.shape[1])[0]
                           for a, b in zip(ro[:-1], ro[1:])])    # a pair appears once per test, in many tests


def report_files(*, world, in_dir, agreement, printed_table2, out_dir, grades, paper_tests, coverage_z,
                 log=_quiet) -> None:
    """Tables 2, 4-8, the study over all tests (beyond the paper) and Figs. 1-8 from the folder
    ``in_dir`` of :func:`estimate_files` -> CSV tables and PNG figures in ``out_dir``."""
    from evalrank.papers.ozertem2011 import plots
    from evalrank.papers.ozertem2011.grades import compare_table2, table2

    scale = grade_scale(grades)
    src, out = Path(in_dir), Path(out_dir)
    counts = read_agreement(agreement, scale)
    io.write_table(compare_table2(table2(counts, scale), pd.read_csv(printed_table2, comment="#")),
                   out / "table2.csv", float_format="%.6f")
    est = io.load_arrays(src / "estimates.npz")
    methods = sorted({k[:-5] for k in est if k.endswith("_mean")})
    rows = {m: (est[f"{m}_mean"], est[f"{m}_var"]) for m in methods}
    ro, imp = est["row_offsets"], est["row_impressions"]
    summaries = pd.read_csv(src / "summaries.csv", keep_default_na=False, na_values=[""])
    sources = io.load_arrays(src / "sources.npz")
    w = io.load_arrays(world)
    full = sorted(m for m in methods if m.startswith("full"))
    paper = list(range(1, paper_tests + 1))
    judged = sources["judged_grade"] >= 0
    t4 = study.table4(w["novel_top"], w["base_top"], ro, judged, sources["reliable"].astype(bool), paper)
    io.write_table(t4, out / "table4.csv", float_format="%.4f")
    curve = pd.read_csv(src / "loo_curve.csv")
    errs = {m: sources[f"loo_{m}"] for m in ("query", "position", "hybrid")}
    t5 = _table5(curve, errs, sources["judged_grade"], _pairs(w).arrays()[0])
    io.write_table(t5, out / "table5.csv", float_format="%.4f")
    alt = [m for m in methods if m.startswith("smoothed_")]
    io.write_table(_table6(rows, ro, imp, full, alt), out / "table6.csv", float_format="%.4f")
    io.write_table(pd.read_csv(src / "min_views.csv"), out / "min_views.csv", float_format="%.4f")
    io.write_table(_table8(rows, ro, imp, full, _unjudged_delta(w, judged)), out / "table8.csv", float_format="%.4f")
    t7_methods = full + ["clicks_only", "editorial_only", "carterette_jones", "smoothed", "truth"]
    io.write_table(study.calls_table(summaries, paper, t7_methods), out / "table7.csv")
    st = study.study_table(summaries, full + ["clicks_only", "editorial_only", "carterette_jones", "smoothed"] + alt,
                           z=coverage_z)
    io.write_table(st, out / "study.csv", float_format="%.4f")
    plots.figures(out, sources=sources, scale=scale, curve=curve, errors=errs, summaries=summaries,
                  coverage_z=coverage_z)
    s = st[(st.truth == "truth") & (st.method == "smoothed")].iloc[0]
    log(f"Table 5 LOO MSE: position {t5['position'][0]:.4f}, query {t5['query'][0]:.4f}, hybrid "
        f"{t5['hybrid'][0]:.4f} (sigma {t5['sigma'][0]:.3g}); smoothed-DBN vs truth over {int(s.tests)} tests: "
        f"r = {s.pearson:.3f}, sign agreement {s.sign_agreement:.3f}, coverage {s.coverage:.3f}")
