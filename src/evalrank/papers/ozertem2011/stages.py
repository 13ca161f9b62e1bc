"""``evalrank stage`` commands of the clicks stage (Ozertem et al. 2011;
``workflow/rules/ozertem2011.smk``). Each reads files, calls the library and writes its
outputs atomically.

- ``clicks-simulate``: the world -> ``world.npz``, ``tests.csv``, ``sessions.tsv``, ``judgments.tsv``
- ``clicks-dbn``: click models from ``sessions.tsv`` -> ``dbn.npz``, ``dbn_recovery.csv``
- ``clicks-estimate``: every estimator on every test -> ``estimates.npz``, ``summaries.csv``, ...
- ``clicks-report``: Tables 2, 4-8, the many-test study and Figs. 1-8

Defaults: see :mod:`evalrank.cli` -- an option carrying a config value is required.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from evalrank.cli.common import _log, add_command

__all__ = ["TITLE", "add_stage_parsers"]

TITLE = "clicks (workflow/rules/ozertem2011.smk)"


def _scale(names):
    from evalrank.papers.ozertem2011.grades import GradeScale

    return GradeScale(names=tuple(names), values=tuple(range(len(names))))


def _pairs(w):
    from evalrank.papers.ozertem2011.logs import PairTable

    return PairTable.from_offsets(w["queries"], w["offsets"], w["pair_url"])


def cmd_simulate(a):
    import numpy as np

    from evalrank import io
    from evalrank.papers.ozertem2011.grades import read_agreement
    from evalrank.papers.ozertem2011.logs import write_judgments, write_sessions
    from evalrank.papers.ozertem2011.simulate import WorldParams, simulate_world

    scale = _scale(a.grades)
    params = json.loads(a.params)
    for key in ("history", "alternatives", "attractiveness", "satisfaction", "blend", "noise", "affected"):
        if key in params:
            params[key] = tuple(params[key])
    params = WorldParams(**params)
    scores, pool = {}, None
    for item in a.predictions:
        name, _, path = item.partition("=")
        if not path:
            raise ValueError(f"--predictions: expected NAME=PATH, got {item!r}")
        p = io.load_arrays(path)
        if pool is None:
            pool = p
        elif not (np.array_equal(p["offsets"], pool["offsets"]) and np.array_equal(p["labels"], pool["labels"])):
            raise ValueError(f"--predictions: {path} scores a different pool than the other rankers")
        scores[name] = p["scores"]
    counts = read_agreement(a.agreement, scale)
    world = simulate_world(pool["labels"], pool["offsets"], pool["qids"], scores, counts, params, a.seed,
                           log_progress=_log)
    out = Path(a.out_dir)
    io.save_arrays(out / "world.npz", **world.arrays())
    io.write_table(world.tests, out / "tests.csv")
    write_sessions(out / "sessions.tsv", world.log, world.pair_table())
    write_judgments(out / "judgments.tsv", world.judgments, scale)
    imp = world.impressions
    _log(f"{world.log.n_sessions} sessions ({world.log.n_rows} distinct rows) on {imp.size} queries; "
         f"queries with >= 200 / 50 / 10 / 1 sessions: {(imp >= 200).sum()} / {(imp >= 50).sum()} / "
         f"{(imp >= 10).sum()} / {(imp >= 1).sum()}")


def cmd_dbn(a):
    import numpy as np
    import pandas as pd

    from evalrank import io
    from evalrank.papers.ozertem2011 import dbn
    from evalrank.papers.ozertem2011.logs import read_sessions

    w = io.load_arrays(a.world)
    pairs = _pairs(w)
    log, _ = read_sessions(a.sessions, pairs)
    n = len(pairs)
    t0 = time.perf_counter()
    simp = dbn.simplified_dbn(log, n)
    t1 = time.perf_counter()
    fit = dbn.fit_dbn(log, n, gamma=a.gamma, prior=tuple(a.prior), max_iter=a.max_iter, tol=a.tol,
                      progress_desc="DBN EM")
    t2 = time.perf_counter()
    _log(f"simplified DBN {t1 - t0:.2f} s; EM {fit.n_iter} iterations in {t2 - t1:.2f} s "
         f"({log.n_sessions / max(t2 - t1, 1e-9):,.0f} sessions/s), gamma {fit.gamma:.4f}; pairs with >= "
         + ", ".join(f"{v}: {int((simp.views >= v).sum())}" for v in a.views_grid) + " views")
    io.save_arrays(a.output, views=simp.views, clicks=simp.clicks, last_clicks=simp.last_clicks,
                   simplified_attract=simp.attract, simplified_satisfy=simp.satisfy,
                   simplified_relevance=simp.relevance, em_attract=fit.attract, em_satisfy=fit.satisfy,
                   em_relevance=fit.relevance, impressions=fit.impressions,
                   em_gamma=np.float64(fit.gamma), em_log_likelihood=np.asarray(fit.log_likelihood))
    # against the simulator's parameters (known only because the world is simulated)
    rows = []
    true = {"attract": w["attract"], "satisfy": w["satisfy"], "relevance": w["attract"] * w["satisfy"]}
    for views in a.views_grid:
        rel = simp.views >= views
        for model, est in (("simplified", simp), ("em", fit)):
            for par in ("attract", "satisfy", "relevance"):
                x, y = getattr(est, par)[rel], true[par][rel]
                rows.append({"min_views": views, "model": model, "parameter": par, "pairs": int(rel.sum()),
                             "pearson": float(np.corrcoef(x, y)[0, 1]) if rel.sum() > 2 else np.nan,
                             "mean_abs_error": float(np.mean(np.abs(x - y))) if rel.any() else np.nan,
                             "mean_error": float(np.mean(x - y)) if rel.any() else np.nan})
    io.write_table(pd.DataFrame(rows), a.table)


def _judgment_arrays(df, pairs):
    """(pair ids, grade indices) of one judgment set, refusing judged pairs
    the world does not know."""
    import numpy as np

    ids = pairs.lookup(df["query"].tolist(), df["url"].tolist())
    if (ids < 0).any():
        r = df.iloc[int(np.nonzero(ids < 0)[0][0])]
        raise ValueError(f"judgments: query {r['query']!r} / URL {r['url']!r} is not a pair of the world")
    return ids, df["grade_index"].to_numpy(np.int64)


def cmd_estimate(a):
    import numpy as np
    import pandas as pd

    from evalrank import io
    from evalrank.papers.ozertem2011 import study
    from evalrank.papers.ozertem2011.carterette import FEATURES, OrdinalClickModel, click_features
    from evalrank.papers.ozertem2011.grades import read_agreement
    from evalrank.papers.ozertem2011.logs import read_judgments, read_sessions

    scale = _scale(a.grades)
    w = io.load_arrays(a.world)
    pairs = _pairs(w)
    n = len(pairs)
    log, _ = read_sessions(a.sessions, pairs)
    judg = read_judgments(a.judgments, scale)
    counts = read_agreement(a.agreement, scale)
    d = io.load_arrays(a.dbn)
    relevance = d[f"{a.model}_relevance"]
    pre_ids, pre_grades = _judgment_arrays(judg[judg["set"] == "pre-existing"], pairs)
    pq, _ = pairs.arrays()
    mapping_kw = dict(prior_depth=a.prior_depth, eps=a.eps, min_samples=a.min_samples)

    def threshold(model):
        """min views for the click model ``model`` and the table of the choice."""
        if a.min_views != "loo":
            return int(a.min_views), pd.DataFrame({"model": [model], "min_views": [int(a.min_views)], "chosen": [True]})
        t0 = time.perf_counter()
        choice = study.choose_min_views(
            views=d["views"], relevance=d[f"{model}_relevance"], grid=a.views_grid, pair_query=pq,
            judged_pairs=pre_ids, judged_grades=pre_grades, agreement=counts, novel_top=w["novel_top"],
            base_top=w["base_top"], row_offsets=w["row_offsets"], scale=scale, folds=a.views_folds,
            sigma_bounds=tuple(a.sigma_bounds), **mapping_kw)
        _log(f"{model} DBN: min views by leave-one-out over {list(a.views_grid)}: {choice.min_views} "
             f"({time.perf_counter() - t0:.1f} s)")
        return choice.min_views, choice.table.assign(model=model, chosen=choice.table.min_views == choice.min_views)

    other = "simplified" if a.model == "em" else "em"
    min_views, views_table = threshold(a.model)
    other_views, other_table = threshold(other)
    views_table = pd.concat([views_table, other_table], ignore_index=True)
    views_table = views_table[["model"] + [c for c in views_table.columns if c != "model"]]
    reliable = d["views"] >= min_views

    def sources_at(reliable, relevance=relevance):
        return study.click_sources(n_pairs=n, judged_pairs=pre_ids, judged_grades=pre_grades, agreement=counts,
                                   relevance=relevance, reliable=reliable, base_top=w["base_top"], scale=scale,
                                   **mapping_kw)

    sources = sources_at(reliable)
    full_sets = {}
    for name in sorted(s for s in judg["set"].unique() if s.startswith("full")):
        ids, g = _judgment_arrays(judg[judg["set"] == name], pairs)
        arr = np.full(n, -1, dtype=np.int64)
        arr[ids] = g
        full_sets[name] = arr
    # Carterette & Jones: ordinal regression on click features, trained on frequent queries' judged pairs
    X = click_features(log, n)
    imp = log.query_sessions(w["queries"].size)
    train = pre_ids[imp[pq[pre_ids]] >= a.cj_min_train]
    cj = OrdinalClickModel(scale.n, alpha=a.cj_alpha).fit(X[train], sources.judged_grade[train])
    cj_pdf = cj.predict_proba(X)
    _log(f"Carterette & Jones: trained on {train.size} judged pairs of queries with >= {a.cj_min_train} sessions")
    sigma = a.sigma if a.sigma == "loo" else float(a.sigma)
    t0 = time.perf_counter()
    rows, info = study.estimate_all(sources=sources, novel_top=w["novel_top"], base_top=w["base_top"],
                                    row_offsets=w["row_offsets"], scale=scale, agreement=counts,
                                    true_grade=w["true_grade"], full_sets=full_sets, cj_pdf=cj_pdf,
                                    k=w["novel_top"].shape[1], sigma=sigma, sigma_bounds=tuple(a.sigma_bounds), say=_log)
    _log(f"estimated {info.shape[0]} tests in {time.perf_counter() - t0:.1f} s")
    # for comparison: the other click model, and the paper's fixed 10 views
    for name, alt in ((f"smoothed_{other}", sources_at(d["views"] >= other_views, d[f"{other}_relevance"])),
                      ("smoothed_paper_views", sources_at(d["views"] >= study.PAPER_MIN_VIEWS))):
        rows[name] = study.smoothed_estimates(sources=alt, novel_top=w["novel_top"], base_top=w["base_top"],
                                              row_offsets=w["row_offsets"], scale=scale, k=w["novel_top"].shape[1],
                                              sigma=sigma, sigma_bounds=tuple(a.sigma_bounds))[:2]
    summaries = study.test_summaries(rows, w["row_offsets"], z=a.z)
    sigmas = np.geomspace(a.sigma_bounds[0], a.sigma_bounds[1], a.curve_points)
    curve, sigma_all, errs = study.loo_study(w["novel_top"], w["base_top"], w["row_offsets"], sources, scale, sigmas)
    out = Path(a.out_dir)
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
                   prior_depth=np.int64(a.prior_depth), cj_coef=cj.coef_, cj_features=np.asarray(FEATURES),
                   cj_train=np.int64(train.size),
                   **{f"loo_{m}": e for m, e in errs.items()})


def cmd_report(a):
    import numpy as np
    import pandas as pd

    from evalrank import io
    from evalrank.papers.ozertem2011 import study
    from evalrank.papers.ozertem2011.grades import compare_table2, read_agreement, table2
    from evalrank.papers.ozertem2011 import plots

    scale = _scale(a.grades)
    src, out = Path(a.in_dir), Path(a.out_dir)
    counts = read_agreement(a.agreement, scale)
    t2 = table2(counts, scale)
    printed = pd.read_csv(a.printed_table2, comment="#")
    cmp2 = compare_table2(t2, printed)
    io.write_table(cmp2, out / "table2.csv", float_format="%.6f")
    est = io.load_arrays(src / "estimates.npz")
    methods = sorted({k[:-5] for k in est if k.endswith("_mean")})
    rows = {m: (est[f"{m}_mean"], est[f"{m}_var"]) for m in methods}
    ro, imp = est["row_offsets"], est["row_impressions"]
    summaries = pd.read_csv(src / "summaries.csv", keep_default_na=False, na_values=[""])
    sources = io.load_arrays(src / "sources.npz")
    w = io.load_arrays(a.world)
    full = sorted(m for m in methods if m.startswith("full"))
    paper = list(range(1, a.paper_tests + 1))
    judged = sources["judged_grade"] >= 0
    t4 = study.table4(w["novel_top"], w["base_top"], ro, judged, sources["reliable"].astype(bool), paper)
    io.write_table(t4, out / "table4.csv", float_format="%.4f")
    # Table 5 (pooled LOO over all tests) + per-test sigma
    curve = pd.read_csv(src / "loo_curve.csv")
    errs = {m: sources[f"loo_{m}"] for m in ("query", "position", "hybrid")}
    t5 = pd.DataFrame([{"source": "ours", **{m: float(np.mean(e ** 2)) for m, e in errs.items()},
                        "sigma": float(curve.pooled_sigma.iloc[0]), "judged_pairs": int(errs["hybrid"].size)},
                       {"source": "paper", **study.PAPER_TABLE5, "judged_pairs": np.nan}])
    io.write_table(t5, out / "table5.csv", float_format="%.4f")
    # Tables 6 and 8 (per-query correlations within tests, by impression threshold)
    refs = full
    alt = [m for m in methods if m.startswith("smoothed_")]
    t6 = study.correlation_table(rows, ro, imp, ["carterette_jones", "smoothed"], refs)
    t6_truth = study.correlation_table(rows, ro, imp, ["carterette_jones", "smoothed"] + alt, ["truth"])
    keep = ["carterette_jones", "smoothed"] + alt
    t6 = t6.merge(t6_truth[["min_impressions"] + keep].rename(columns={m: f"{m}_vs_truth" for m in keep}),
                  on="min_impressions")
    t6 = t6.merge(study.PAPER_TABLE6.add_prefix("paper_").rename(columns={"paper_min_impressions": "min_impressions"}),
                  on="min_impressions")
    io.write_table(t6, out / "table6.csv", float_format="%.4f")
    io.write_table(pd.read_csv(src / "min_views.csv"), out / "min_views.csv", float_format="%.4f")
    t8_methods = ["clicks_only", "editorial_only", "smoothed", "carterette_jones"]
    parts = []
    for sign in (False, True):
        t8 = study.correlation_table(rows, ro, imp, t8_methods, refs, sign=sign)
        t8["inter_annotator"] = study.inter_annotator(rows, ro, imp, full, sign=sign)
        vs_truth = study.correlation_table(rows, ro, imp, t8_methods + full[:1], ["truth"], sign=sign)
        for m in t8_methods + full[:1]:
            t8[f"{m}_vs_truth"] = vs_truth[m]
        parts.append(t8.assign(quantity="sign" if sign else "delta_dcg"))
    t8 = pd.concat(parts, ignore_index=True)
    t8 = t8.merge(study.PAPER_TABLE8.add_prefix("paper_").rename(columns={"paper_min_impressions": "min_impressions"})
                  .assign(quantity="delta_dcg"), on=["min_impressions", "quantity"], how="left")
    io.write_table(t8, out / "table8.csv", float_format="%.4f")
    # Table 7 and the study over all tests
    t7_methods = full + ["clicks_only", "editorial_only", "carterette_jones", "smoothed", "truth"]
    io.write_table(study.calls_table(summaries, paper, t7_methods), out / "table7.csv")
    st = study.study_table(summaries, full + ["clicks_only", "editorial_only", "carterette_jones", "smoothed"] + alt,
                           z=a.coverage_z)
    io.write_table(st, out / "study.csv", float_format="%.4f")
    # figures
    plots.figures(out, sources=sources, scale=scale, curve=curve, errors=errs, summaries=summaries,
                  coverage_z=a.coverage_z)
    s = st[(st.truth == "truth") & (st.method == "smoothed")].iloc[0]
    _log(f"Table 5 LOO MSE: position {t5['position'][0]:.4f}, query {t5['query'][0]:.4f}, hybrid "
         f"{t5['hybrid'][0]:.4f} (sigma {t5['sigma'][0]:.3g}); smoothed-DBN vs truth over {int(s.tests)} tests: "
         f"r = {s.pearson:.3f}, sign agreement {s.sign_agreement:.3f}, coverage {s.coverage:.3f}")


def _views(v):
    if v == "loo":
        return v
    try:
        n = int(v)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected 'loo' or an integer >= 1, got {v!r}")
    return n



def add_stage_parsers(sub) -> None:
    def grades(s):
        s.add_argument("--grades", nargs="+", required=True, help="grade names, lowest first (clicks.grades)")

    s = add_command(sub, "clicks-simulate", cmd_simulate,
                    "simulate the search world: sessions, tests, editors (Ozertem 2011)")
    s.add_argument("--predictions", nargs="+", required=True, help="NAME=predictions.npz of each ranker on the pool")
    s.add_argument("--agreement", required=True, help="inter-editor agreement matrix CSV, Table 1 (clicks.agreement)")
    s.add_argument("--params", required=True, help="JSON of the world's parameters (clicks.world)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--out-dir", required=True, help="folder of world.npz, tests.csv, sessions.tsv, judgments.tsv")
    grades(s)

    s = add_command(sub, "clicks-dbn", cmd_dbn, "simplified DBN (eq. 1) and full DBN by EM from a session log")
    s.add_argument("--world", required=True, help="world.npz of clicks-simulate")
    s.add_argument("--sessions", required=True, help="sessions.tsv of clicks-simulate")
    s.add_argument("--views-grid", type=int, nargs="+", required=True,
                   help="view thresholds at which to report the recovery of the simulator's parameters "
                        "(clicks.dbn.min_views_grid)")
    s.add_argument("--gamma", type=float,
                   help="EM's continuation probability (clicks.dbn.gamma; default: none, EM fits it)")
    s.add_argument("--prior", type=float, nargs=2, required=True, help="Beta pseudo-counts of EM's M-step "
                                                                      "(clicks.dbn.prior)")
    s.add_argument("--max-iter", type=int, required=True, help="EM iterations at most (clicks.dbn.max_iter)")
    s.add_argument("--tol", type=float, required=True, help="EM's convergence tolerance (clicks.dbn.tol)")
    s.add_argument("--output", required=True, help="dbn.npz")
    s.add_argument("--table", required=True, help="recovery of the simulator's parameters (CSV)")

    s = add_command(sub, "clicks-estimate", cmd_estimate, "ΔDCG@k of every test by every estimator")
    for arg, text in (("--world", "world.npz of clicks-simulate"), ("--sessions", "sessions.tsv of clicks-simulate"),
                      ("--judgments", "judgments.tsv of clicks-simulate"), ("--dbn", "dbn.npz of clicks-dbn"),
                      ("--agreement", "inter-editor agreement matrix CSV (clicks.agreement)"),
                      ("--out-dir", "folder of estimates.npz, summaries.csv, sigma.csv, loo_curve.csv, sources.npz, "
                                    "min_views.csv")):
        s.add_argument(arg, required=True, help=text)
    s.add_argument("--model", choices=["simplified", "em"], required=True,
                   help="click model behind smoothed-DBN; the other one is reported as smoothed_<model> "
                        "(clicks.dbn.model)")
    s.add_argument("--prior-depth", type=int, required=True, help="p(g) from the baseline's top prior-depth "
                                                                  "(clicks.mapping.prior_depth)")
    s.add_argument("--eps", type=float, required=True, help="click relevance clipped to [eps, 1 - eps] "
                                                            "(clicks.mapping.eps)")
    s.add_argument("--min-samples", type=int, required=True, help="fewer samples of a grade: the pooled beta fit "
                                                                  "(clicks.mapping.min_samples)")
    s.add_argument("--min-views", type=_views, required=True,
                   help="views a pair's click estimate needs: 'loo' (chosen by leave-one-out) or an integer "
                        "(clicks.dbn.min_views)")
    s.add_argument("--views-grid", type=int, nargs="+", required=True,
                   help="candidate thresholds of --min-views loo (clicks.dbn.min_views_grid)")
    s.add_argument("--views-folds", type=int, required=True,
                   help="query folds of the cross-fitted click posterior (clicks.dbn.min_views_folds)")
    s.add_argument("--sigma", required=True, help="'loo' or a number (clicks.smoothing.sigma)")
    s.add_argument("--sigma-bounds", type=float, nargs=2, required=True,
                   help="bounds of the search for sigma (clicks.smoothing.sigma_bounds)")
    s.add_argument("--curve-points", type=int, required=True, help="sigmas on Fig. 6's grid "
                                                                   "(clicks.smoothing.curve_points)")
    s.add_argument("--cj-min-train", type=int, required=True,
                   help="Carterette & Jones train on queries with this many sessions "
                        "(clicks.carterette.min_train_impressions)")
    s.add_argument("--cj-alpha", type=float, required=True, help="Carterette & Jones' L2 strength "
                                                                 "(clicks.carterette.alpha)")
    s.add_argument("--z", type=float, required=True, help="a test's call is + or - when |ΔDCG| > z SD (clicks.z)")
    grades(s)

    s = add_command(sub, "clicks-report", cmd_report, "Tables 2, 4-8, the many-test study and Figs. 1-8")
    for arg, text in (("--world", "world.npz of clicks-simulate"), ("--in-dir", "the folder of clicks-estimate"),
                      ("--agreement", "inter-editor agreement matrix CSV (clicks.agreement)"),
                      ("--printed-table2", "Table 2 as printed, CSV (clicks.printed_table2)"),
                      ("--out-dir", "folder of the tables and figures")):
        s.add_argument(arg, required=True, help=text)
    s.add_argument("--paper-tests", type=int, required=True, help="tests shown in Tables 4 and 7 "
                                                                  "(clicks.paper_tests)")
    s.add_argument("--coverage-z", type=float, required=True,
                   help="coverage: share of tests with the truth within ± coverage-z SD (clicks.coverage_z)")
    grades(s)
