"""How much q* can save for DCG on the synthetic default (issue 51, item 3): the expected saving of
each q* variant computed in closed form from a finished run's setup arrays, no Monte Carlo of
Algorithm 1, beside the ceilings.

The budget factor of a sampling distribution ``q`` (:func:`evalrank.papers.sawade2012.report._budget_factor`:
the budget ``q`` needs relative to passive sampling for the same asymptotic variance of eq. 6 with
the true losses; ``1 - factor`` is the asymptotic saving) needs only each pool query's true loss
``L_x``, its cost and ``q``. Variants of q* (eq. 11, ``q ∝ sqrt(E[(L - R)^2 | x] / lambda(x))``):

``paper``        Theorem 3's moments (independent labels), the run's ``fig1_<model>``;
``copula``       the calibrated label model (one-factor copula, rho fitted on held-out queries), the
                 run's ``fig1_<model>_calibrated``;
``varreg``       the paper's mean, and as variance a regression of the realised squared error
                 ``(L - E_rho)^2`` of the held-out queries (validation half + swapped training half:
                 never the pool) on query-level features: log copula variance, log Theorem 3
                 variance, log list length, log(1 + E), the spread of the expected gains, the mean
                 score (a Poisson quasi-likelihood, ``E[err | f] = exp(f b)``);
``smreg``        the same regression fitted to the second moment ``(L - mean L)^2`` directly;
``bayes``        the generator's own conditional law of the labels given every document's *true*
                 utility ``s`` (synthetic data only: ``z = a_q + s + 1.6 eps``, ``a_q ~ N(0, 1.2^2)``
                 invisible to the features: the one-factor copula with rho = 1.2^2 / 2^2 = 0.36 around
                 the marginals ``Phi((c_k - s) / 2)``, plus the queries forced to all-zero grades):
                 the best label model that knows more than the features, so a bound for any
                 model of them;
``bayes_indep``  the same marginals with independent labels (rho = 0);
``true_sq_err``  the paper's mean with each query's *realised* squared error as its variance (the
                 issue's 32.5 % "ceiling": it knows each query's a_q);
``oracle``       a perfect label model, ``q ∝ |L_x - R| / sqrt(lambda(x))``.

Each factor is given on the run's labels (``realised labels``) and as its expectation over
``--draws`` fresh labellings of the same pool from the generator given ``s`` (``expected``: what a
variant saves on average over label worlds; the q of the model-based variants stays fixed, the
oracles are recomputed per draw). The second part measures the index update (Fig. 3 left): how
concentrated the differences are (the oracle's factor, the share of queries with no difference)
and how much of it each variant recovers, for DCG and ERR.

    python benchmarks/sawade_dcg_ceiling.py [--results results/synthetic] [--config config/config.yaml]
        [--draws 200] [--monte-carlo VARIANT ...] [--out CSV]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

QUERY_SD, LABEL_NOISE = 1.2, 1.6  # synthetic.generate's defaults (the default config keeps them)
RHO_TRUE = QUERY_SD**2 / (QUERY_SD**2 + LABEL_NOISE**2)


def _bf(q, values, costs):
    from evalrank.papers.sawade2012.report import _budget_factor

    return _budget_factor(q, values, costs)


def _q(second, costs):
    from evalrank.active.sampling import instrumental

    return instrumental(np.maximum(second, 0.0), costs)


def generator_pool(config: dict, pool_parts):
    """The pool's partitions regenerated with their latents: per document the true utility, per
    partition the grade cut points and the share of queries forced to all-zero grades (as
    :func:`evalrank.data.synthetic._grades` sets them)."""
    from evalrank.data import synthetic as S
    from evalrank.data.collection import segment_ids

    ds = config["dataset"]
    syn = dict(ds.get("synthetic") or {})
    nq = int(syn.pop("queries_per_partition"))
    kw = {k: v for k, v in syn.items() if k in ("mean_docs", "p_small", "max_docs", "grade_marginals",
                                                  "p_no_relevant", "feature_norm")}
    marg = tuple(kw.get("grade_marginals") or S.DEFAULT_GRADE_MARGINALS)
    p_no = float(kw.get("p_no_relevant", S.SCHEMA_DEFAULTS["p_no_relevant"]))
    out = []
    for k in pool_parts:
        c, lat = S.generate(nq, seed=int(config["seed"]), partition=k, n_features=int(ds.get("n_features", 136)),
                            _latents=True, **kw)
        qi = segment_ids(c.offsets)
        cuts = S._grade_thresholds(marg, QUERY_SD, LABEL_NOISE, 0.0)
        has_rel = np.bincount(qi, weights=lat["z"] > cuts[0], minlength=nq) > 0
        natural = 1.0 - has_rel.mean()
        p_extra = max(0.0, (p_no - natural) / max(1.0 - natural, 1e-12))
        cuts = S._grade_thresholds(marg, QUERY_SD, LABEL_NOISE, p_extra)
        out.append({"labels": c.labels, "offsets": c.offsets, "s": lat["utility"], "cuts": cuts, "p_extra": p_extra})
    return out


def bayes_probs(parts):
    """Per document ``p(y = g | s)`` with the query effect integrated out: ``Phi((c_k - s) / 2)``."""
    from scipy.special import ndtr

    sd = np.hypot(QUERY_SD, LABEL_NOISE)
    rows = []
    for p in parts:
        F = ndtr((p["cuts"][None, :] - p["s"][:, None]) / sd)
        rows.append(np.diff(np.concatenate([np.zeros((len(F), 1)), F, np.ones((len(F), 1))], axis=1), axis=1))
    return np.concatenate(rows)


def forced_mix(mean, var, p_forced):
    """Moments when a query is all-zero (loss 0) with probability ``p_forced``."""
    m = (1.0 - p_forced) * mean
    return m, (1.0 - p_forced) * (var + mean**2) - m**2


def redraw_labels(parts, rng):
    """A fresh labelling of the pool from the generator given each document's utility."""
    from evalrank.data.collection import segment_ids

    out = []
    for p in parts:
        nq = len(p["offsets"]) - 1
        qi = segment_ids(p["offsets"])
        a = rng.normal(0.0, QUERY_SD, nq)
        z = a[qi] + p["s"] + LABEL_NOISE * rng.standard_normal(qi.size)
        y = np.searchsorted(p["cuts"], z).astype(np.int8)
        y[(rng.random(nq) < p["p_extra"])[qi]] = 0
        out.append(y)
    return np.concatenate(out)


def query_features(pred, order, mean_rho, var_rho, var0):
    """Query-level features of the variance regressions (no labels)."""
    from evalrank.data.collection import segment_ids
    from evalrank.metrics.dcg import gain_values

    off = np.asarray(pred["offsets"])
    n = np.diff(off).astype(np.float64)
    seg = segment_ids(off)
    eg = np.asarray(pred["probs"]) @ gain_values(np.arange(pred["probs"].shape[1]))
    m1 = np.bincount(seg, weights=eg, minlength=n.size) / n
    m2 = np.bincount(seg, weights=eg * eg, minlength=n.size) / n
    sc = np.bincount(seg, weights=np.asarray(pred["scores"], np.float64), minlength=n.size) / n
    cols = [np.log(np.maximum(var_rho, 1e-12)), np.log(np.maximum(var0, 1e-12)), np.log(n),
            np.log1p(np.maximum(mean_rho, 0.0)), np.sqrt(np.maximum(m2 - m1 * m1, 0.0)), sc]
    return np.column_stack([np.ones(n.size)] + cols)


def poisson_fit(X, y):
    """``b`` maximising the Poisson quasi-likelihood of ``E[y | X] = exp(X b)`` (columns standardised)."""
    from scipy.optimize import minimize

    mu, sd = X[:, 1:].mean(0), X[:, 1:].std(0) + 1e-12
    Z = np.column_stack([X[:, 0], (X[:, 1:] - mu) / sd])
    scale = y.mean()
    yy = y / scale

    def f(b):
        eta = np.clip(Z @ b, -30, 30)
        return np.sum(np.exp(eta) - yy * eta) / len(yy), Z.T @ (np.exp(eta) - yy) / len(yy)

    b = minimize(f, np.zeros(Z.shape[1]), jac=True, method="L-BFGS-B").x
    return lambda Xn: scale * np.exp(np.clip(np.column_stack([Xn[:, 0], (Xn[:, 1:] - mu) / sd]) @ b, -30, 30))


MC = {"budgets": None, "repetitions": 0, "seed": 0, "reference": 300.0}


def monte_carlo(q, costs, values, measure, model, active_values=None):
    """The realised saving of ``q`` at the reference budget: Algorithm 1's Monte Carlo with the DAG's
    own random streams (``fig1_<model>``'s: common random numbers, so ``paper`` and ``copula`` repeat
    the run's ``savings.csv``), its passive curve the same streams' passive runs; (saving, se) by
    :func:`evalrank.papers.sawade2012.experiments.savings_row` and the delta method of
    :func:`evalrank.papers.sawade2012.power.saving_se`. ``active_values``: what the active runs
    average instead of ``values`` (with the same mean; the control variate's ``L - E + mean E``)."""
    from evalrank.papers.sawade2012.experiments import errors, savings_row
    from evalrank.papers.sawade2012.montecarlo import simulate
    from evalrank.papers.sawade2012.power import saving_se

    budgets, reps = MC["budgets"], range(MC["repetitions"])
    truth = float(values.mean())
    curves = {}
    for method, qq in (("passive", np.full(values.size, 1.0 / values.size)), ("active", q)):
        vals = values if method == "passive" or active_values is None else active_values
        est = simulate(qq, costs, vals, budgets, seed=MC["seed"], stream=("active-mc", f"fig1_{model}", 1, measure,
                                                                           method), repetitions=reps)["estimate"]
        e = errors(est, truth, "abs_error")
        curves[method] = (np.nanmean(e, 0), np.nanstd(e, 0, ddof=1) / np.sqrt((~np.isnan(e)).sum(0)))
    row = savings_row(budgets, curves["passive"][0], curves["active"][0], MC["reference"])
    se = saving_se(budgets, curves["passive"][0], curves["passive"][1], curves["active"][0], curves["active"][1],
                   MC["reference"])
    return row["saving"], se


def fig1_variants(root: Path, model: str, parts, measures, draws: int, seed: int, mc_variants=()):
    from evalrank import io
    from evalrank.active.theorem3 import batch_mean_var
    from evalrank.active.theorem3_correlated import batch_mean_var_factor, true_losses
    from evalrank.metrics.ranking import rank_order
    from evalrank.papers.sawade2012.calibrated import held_out

    f1 = root / "fold1"
    setup = io.load_arrays(f1 / "sawade2012" / f"fig1_{model}" / "setup.npz")
    cal = io.load_arrays(f1 / "sawade2012" / f"fig1_{model}_calibrated" / "setup.npz")
    pool = io.load_arrays(f1 / "predictions" / f"{model}.npz")
    fit = held_out(io.load_arrays(f1 / "predictions_vali" / f"{model}.npz"),
                   io.load_arrays(f1 / "swap" / f"{model}_train.npz"))
    off, costs = pool["offsets"], setup["costs"]
    order, forder = rank_order(pool["scores"], off), rank_order(fit["scores"], fit["offsets"])
    labels = np.concatenate([p["labels"] for p in parts])
    if not np.array_equal(labels, pool["labels"]):
        raise ValueError("the regenerated pool's labels differ from the run's (another config?)")
    bprobs = bayes_probs(parts)
    p_forced = np.concatenate([np.full(len(p["offsets"]) - 1, p["p_extra"]) for p in parts])
    rng = np.random.default_rng(seed)
    worlds = [redraw_labels(parts, rng) for _ in range(draws)]
    rows = []
    for m in measures:
        v = setup[f"values_{m}"]
        E0, V0 = setup[f"pred_mean_{m}"], setup[f"pred_var_{m}"]
        rho = float(cal[f"rho_{m}"])
        Er, Vr = cal[f"pred_mean_{m}"], cal[f"pred_var_{m}"]
        fE, fV = batch_mean_var_factor(fit["probs"], fit["offsets"], forder, m, rho)
        fE0, fV0 = batch_mean_var(fit["probs"], fit["offsets"], forder, m)
        fL = true_losses(fit["labels"], fit["offsets"], forder, m, max_grade=4)
        Xf, Xp = query_features(fit, forder, fE, fV, fV0), query_features(pool, order, Er, Vr, V0)
        var_reg = poisson_fit(Xf, (fL - fE) ** 2)(Xp)
        sm_reg = poisson_fit(np.column_stack([Xf, np.log1p((fE - fL.mean()) ** 2)]), (fL - fL.mean()) ** 2)(
            np.column_stack([Xp, np.log1p((Er - Er.mean()) ** 2)]))
        Eb, Vb = forced_mix(*batch_mean_var_factor(bprobs, off, order, m, RHO_TRUE), p_forced)
        Ei, Vi = forced_mix(*batch_mean_var(bprobs, off, order, m), p_forced)
        fixed = {
            "paper": setup[f"q_{m}_active"],
            "copula": cal[f"q_{m}_active"],
            "varreg": _q(var_reg + (Er - Er.mean()) ** 2, costs),
            "smreg": _q(sm_reg, costs),
            "bayes": _q(Vb + (Eb - Eb.mean()) ** 2, costs),
            "bayes_indep": _q(Vi + (Ei - Ei.mean()) ** 2, costs),
        }

        def realised(L):
            out = {k: _bf(q, L, costs) for k, q in fixed.items()}
            out["true_sq_err"] = _bf(_q((L - E0) ** 2 + (E0 - E0.mean()) ** 2, costs), L, costs)
            d = np.abs(L - L.mean()) / np.sqrt(costs)
            out["oracle"] = _bf(d / d.sum(), L, costs)
            return out

        here = realised(v)
        mc = {k: monte_carlo(fixed[k], costs, v, m, model) for k in mc_variants} if mc_variants else {}
        exp = [realised(true_losses(y, off, order, m, max_grade=4)) for y in worlds]
        for k in here:
            e = np.array([x[k] for x in exp])
            rows.append({"model": model, "measure": m, "variant": k, "factor_realised_labels": here[k],
                         "saving_realised_labels": 1 - here[k], "factor_expected": e.mean(),
                         "saving_expected": 1 - e.mean(), "saving_expected_se": e.std(ddof=1) / np.sqrt(len(e)),
                         "saving_sd_over_worlds": e.std(ddof=1),
                         "rho": RHO_TRUE if k == "bayes" else (rho if k in ("copula", "varreg", "smreg") else 0.0),
                         "saving_monte_carlo": mc.get(k, (np.nan, np.nan))[0],
                         "saving_monte_carlo_se": mc.get(k, (np.nan, np.nan))[1]})
    return rows


def control_variate(root: Path, model: str, measures, mc: bool = True):
    """Outside the paper's estimator: the budget factor of the difference (AIPW / control-variate)
    estimator ``mean(E) + sum w (L - E) / sum w`` (Hajek form, :mod:`evalrank.active.estimators`) against the
    paper's passive mean, under passive sampling and under ``q ∝ sqrt(Var / lambda)`` (its optimal q
    given the model's variance), for the paper's and the copula's moments: where DCG's room is."""
    from evalrank import io
    from evalrank.active.sampling import instrumental

    f1 = root / "fold1" / "sawade2012"
    s = io.load_arrays(f1 / f"fig1_{model}" / "setup.npz")
    c = io.load_arrays(f1 / f"fig1_{model}_calibrated" / "setup.npz")
    costs = s["costs"]
    rows = []
    for m in measures:
        L = s[f"values_{m}"]
        n = L.size
        passive = np.mean((L - L.mean()) ** 2) * costs.mean()

        def factor(q, E):
            r = (L - E) - (L - E).mean()
            return float(np.sum(r * r / (n * n * q)) * np.dot(q, costs) / passive)

        for name, src in (("paper", s), ("copula", c)):
            E, V = src[f"pred_mean_{m}"], src[f"pred_var_{m}"]
            q = instrumental(V, costs)
            row = {"model": model, "measure": m, "moments": name, "corr_E_L": float(np.corrcoef(E, L)[0, 1]),
                   "saving_cv_passive": 1 - factor(np.full(n, 1.0 / n), E), "saving_cv_q_sqrt_var": 1 - factor(q, E)}
            if mc:
                # the Hajek form is eq. 6 on L - E + mean(E) (same mean): Algorithm 1's Monte Carlo on it
                row["mc_cv_q_sqrt_var"], row["mc_cv_q_sqrt_var_se"] = monte_carlo(q, costs, L, m, model,
                                                                                  active_values=L - E + E.mean())
            rows.append(row)
    return rows


def index_update(root: Path, config: dict, parts, measures):
    """Why the index update saves far less for DCG than for ERR: per measure the concentration of
    the differences over queries and what each q recovers of the oracle."""
    from evalrank import io, seeds
    from evalrank.active.theorem3 import batch_difference_mean_var
    from evalrank.active.theorem3_correlated import batch_difference_mean_var_factor
    from evalrank.metrics.ranking import rank_order
    from evalrank.papers.sawade2012.experiments import drop_documents

    f1 = root / "fold1"
    setup = io.load_arrays(f1 / "sawade2012" / "fig3_index_update" / "setup.npz")
    pool = io.load_arrays(f1 / "predictions" / "rf.npz")
    off, costs = pool["offsets"], setup["costs"]
    order = rank_order(pool["scores"], off)
    drop = float(config["sawade2012"].get("index_update_drop", 0.1))
    off_b, order_b = drop_documents(off, order, drop, seeds.rng(int(config["seed"]), "index_update", 1))
    bprobs = bayes_probs(parts)
    p_forced = np.concatenate([np.full(len(p["offsets"]) - 1, p["p_extra"]) for p in parts])
    rows = []
    for m in measures:
        v = setup[f"values_{m}"]
        E0, V0 = setup[f"pred_mean_{m}"], setup[f"pred_var_{m}"]
        d = v - v.mean()
        d2 = np.sort(d * d)[::-1]
        Eb, Vb = forced_mix(*batch_difference_mean_var_factor(bprobs, off, order, off_b, order_b, m, RHO_TRUE),
                            p_forced)
        Ei, Vi = forced_mix(*batch_difference_mean_var(bprobs, off, order, off_b, order_b, m), p_forced)
        orc = np.abs(d) / np.sqrt(costs)
        rows.append({
            "measure": m, "share_zero_difference": float(np.mean(v == 0)),
            "top10pct_share_of_sq_dev": float(d2[: max(1, d2.size // 10)].sum() / d2.sum()),
            "concentration_(E|d|)^2/E d^2": float(np.mean(np.abs(d)) ** 2 / np.mean(d * d)),
            "corr_E_L": float(np.corrcoef(E0, v)[0, 1]),
            "share_var_L_explained_by_E": float(1 - np.mean((v - E0) ** 2) / np.var(v)),
            "ratio_realised_predicted": float(np.mean((v - E0) ** 2) / np.mean(V0)),
            "factor_oracle": _bf(orc / orc.sum(), v, costs),
            "factor_true_sq_err": _bf(_q((v - E0) ** 2 + (E0 - E0.mean()) ** 2, costs), v, costs),
            "factor_paper": _bf(setup[f"q_{m}_active"], v, costs),
            "factor_bayes": _bf(_q(Vb + (Eb - Eb.mean()) ** 2, costs), v, costs),
            "factor_bayes_indep": _bf(_q(Vi + (Ei - Ei.mean()) ** 2, costs), v, costs),
        })
    return rows


def main(argv=None):
    import pandas as pd

    from evalrank.config import read_yaml

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default="results/synthetic", type=Path)
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--models", nargs="+", default=["rf", "ordered_logit"])
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--seed", type=int, default=51)
    ap.add_argument("--out", default=None)
    ap.add_argument("--monte-carlo", nargs="*", default=["paper", "copula", "varreg", "bayes"],
                    help="variants whose realised saving Algorithm 1's Monte Carlo measures (the config's "
                         "budgets, repetitions, seed and reference budget)")
    args = ap.parse_args(argv)
    import platform

    import numba
    import scipy

    sys.path.insert(0, str(Path(__file__).parent))
    from _machine import cpu_model

    print(f"machine: {cpu_model()}, {os.cpu_count()} logical CPUs; Python {platform.python_version()}, "
          f"NumPy {np.__version__}, SciPy {scipy.__version__}, numba {numba.__version__}")
    config = read_yaml(args.config)
    if config["dataset"].get("kind", "synthetic") != "synthetic" or config.get("folds", [1]) != [1]:
        raise SystemExit("this measurement regenerates the synthetic pool of fold 1 (S2..S5)")
    saw = config["sawade2012"]
    MC.update(budgets=np.asarray(saw["budgets"], dtype=np.float64), repetitions=int(saw["repetitions"]),
              seed=int(config["seed"]), reference=float(saw["reference_budget"]))
    t0 = time.perf_counter()
    parts = generator_pool(config, (2, 3, 4, 5))
    measures = ("dcg", "err")
    rows = []
    for model in args.models:
        rows += fig1_variants(args.results, model, parts, measures, args.draws, args.seed, args.monte_carlo)
    fig1 = pd.DataFrame(rows)
    iu = pd.DataFrame(index_update(args.results, config, parts, measures))
    cv = pd.DataFrame([r for model in args.models
                       for r in control_variate(args.results, model, measures, bool(args.monte_carlo))])
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.float_format", "{:.4g}".format):
        print(fig1.to_string(index=False))
        print()
        print(iu.T.to_string())
        print()
        print(cv.to_string(index=False))
    print(f"seconds: {time.perf_counter() - t0:.1f}")
    if args.out:
        fig1.to_csv(args.out, index=False)
        iu.to_csv(Path(args.out).with_suffix(".index_update.csv"), index=False)


if __name__ == "__main__":
    main()
