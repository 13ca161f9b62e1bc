r"""The calibrated label model of the active stage (issue 30, item 3): Fig. 1 with a label model
whose per-query variance is calibrated, beside the paper's.

Sawade et al. (2012)'s q* (eq. 11) needs ``E[(L - R_theta)^2 | x] = Var[L | x] + (E[L | x] -
R_theta)^2``, which Theorem 3 computes with the document labels of a query independent given the
model (eq. 3). On the held-out pool the realised squared errors of DCG are 4.5x (the real MSLR
excerpt) to 11x (the synthetic default) that predicted variance although the model is calibrated
per document: the errors go the same way within a query (the cross-document part of
:func:`evalrank.active.theorem3_correlated.variance_split`). The calibrated model keeps each
document's marginal and adds a query-level random effect, the one-factor Gaussian copula of
:mod:`evalrank.active.theorem3_correlated` (Vasicek 2002; Li 2000), whose correlation ``rho`` is
fitted per measure by moment matching on held-out queries of the fold's training partition, never
the pool (DerSimonian & Laird 1986's method of moments): Theorem 3 given the query effect, and the
law of total variance over it. The held-out queries are cross-fitted (Chernozhukov et al. 2018's
two-fold cross-fitting; Schick 1986): the model's predictions on the validation half, and the
predictions on the training half of the same learner refitted on the validation half with the
model's tuned hyperparameters (the *swapped* model, ``sawade2012.crossfit``). The halves are of one
size (``models.train_pairs`` pairs each, or the whole halves of the partition's queries, one query
apart at most), so the swapped model learns from as many queries as the model and its errors
estimate the same ``rho``; it doubles the queries ``rho`` is fitted on, and the training half was not used to
pick the hyperparameters, so a winner's curse on the validation half is diluted.

:func:`calibrate_setup` turns the paper's setup of a Fig. 1 experiment into its calibrated twin's
(``fig1_<model>_calibrated``): the same truth, costs and ``passive`` / ``active_uniD`` q, and
``active`` / ``active_uniC`` from the calibrated moments. :func:`split_table` writes the variance
split and both models' calibration and budget factors (``label_model_split.csv``).
"""

from __future__ import annotations

import json

import numpy as np

__all__ = ["calibrate_setup", "held_out", "split_table", "ratio_of_means_se", "calibrated_ratio_se", "SPLIT_COLUMNS"]


def _order(pred):
    from evalrank.metrics.ranking import rank_order

    return rank_order(pred["scores"], pred["offsets"])


def held_out(*parts) -> dict:
    """Predictions on disjoint query sets (scores, probs, labels, offsets) as one set, in order: the
    queries ``rho`` is fitted on (the validation half, then the swapped model's training half)."""
    if not parts:
        raise ValueError("held_out needs at least one set of predictions")
    sizes = np.concatenate([np.diff(np.asarray(p["offsets"], dtype=np.int64)) for p in parts])
    offsets = np.zeros(sizes.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    out = {k: np.concatenate([np.asarray(p[k]) for p in parts]) for k in ("scores", "probs", "labels")}
    out["offsets"] = offsets
    return out


def calibrate_setup(setup: dict, pool: dict, vali: dict, measures, *, max_grade: int, swap: dict | None = None) -> dict:
    """The arrays that make ``setup`` (:func:`evalrank.papers.sawade2012.experiments.setup_experiment`
    of ``fig1_<model>``) the calibrated twin's, per measure ``m``:

    ``q_<m>_active``, ``q_<m>_active_uniC`` (eq. 11 with the copula's moments, with and without the
    costs), ``pred_mean_<m>`` / ``pred_var_<m>`` (the copula's, for the label-model check),
    ``indep_mean_<m>`` / ``indep_var_<m>`` (Theorem 3's, the paper's model), ``within_<m>`` (per pool
    query the realised within-document part ``sum_i D_i^2``,
    :func:`evalrank.active.theorem3_correlated.doob_increments` under the paper's model),
    ``rho_<m>`` (fitted on the held-out queries), ``fit_ratio_<m>`` (the paper's model's realised /
    predicted variance there), ``fit_queries`` (how many) and, per held-out query, the copula's
    predicted variance ``fit_var_<m>`` and realised squared error ``fit_err_<m>`` at the fitted
    ``rho`` (what :func:`split_table`'s fit part of the ratio's standard error needs).

    ``pool`` and ``vali``: the model's predictions (scores, probs, labels, offsets) on the pool
    (in the setup's query order) and on the validation queries; ``swap``: the swapped model's on
    the training half (module docstring), whose queries join the validation queries (None: the
    validation queries alone)."""
    from evalrank.active.sampling import instrumental
    from evalrank.active.theorem3_correlated import (batch_mean_var_factor, doob_increments,
                                                     fit_factor_correlation, true_losses, variance_split)
    from evalrank.data.collection import segment_ids

    fit = vali if swap is None else held_out(vali, swap)
    order, vorder = _order(pool), _order(fit)
    nq = len(pool["offsets"]) - 1
    seg = segment_ids(pool["offsets"])
    costs = setup["costs"]
    out = {"fit_queries": np.int64(len(fit["offsets"]) - 1)}
    for m in measures:
        rho = fit_factor_correlation(fit["probs"], fit["labels"], fit["offsets"], vorder, m, max_grade=max_grade)
        vs = variance_split(fit["labels"], fit["probs"], fit["offsets"], vorder, m, max_grade=max_grade)
        mean, var = batch_mean_var_factor(pool["probs"], pool["offsets"], order, m, rho)
        fit_mean, fit_var = batch_mean_var_factor(fit["probs"], fit["offsets"], vorder, m, rho)
        fit_loss = true_losses(fit["labels"], fit["offsets"], vorder, m, max_grade=max_grade)
        second = var + (mean - mean.mean()) ** 2  # centre R_theta (eq. 20) of the calibrated model
        d = doob_increments(pool["labels"], pool["probs"], pool["offsets"], order, m, max_grade=max_grade)
        out.update({
            f"q_{m}_active": instrumental(second, costs), f"q_{m}_active_uniC": instrumental(second, np.ones(nq)),
            f"indep_mean_{m}": setup[f"pred_mean_{m}"], f"indep_var_{m}": setup[f"pred_var_{m}"],
            f"pred_mean_{m}": mean, f"pred_var_{m}": var,
            f"within_{m}": np.bincount(seg, weights=d * d, minlength=nq),
            f"rho_{m}": np.float64(rho), f"fit_ratio_{m}": np.float64(vs["ratio_squared_error"]),
            f"fit_var_{m}": fit_var, f"fit_err_{m}": (fit_loss - fit_mean) ** 2,
        })
    return out


SPLIT_COLUMNS = ["experiment", "measure", "queries", "predicted_variance", "realized_squared_error", "ratio",
                 "realized_within", "ratio_within", "realized_cross", "ratio_cross", "fit_queries", "fit_ratio",
                 "rho", "calibrated_predicted_variance", "calibrated_ratio", "calibrated_ratio_se",
                 "budget_factor_independent", "budget_factor_calibrated", "budget_factor_true_variance",
                 "budget_factor_oracle", "calibrated_ratio_se_pool", "calibrated_ratio_se_fit", "distinct_queries"]


def ratio_of_means_se(num, den, groups=None) -> float:
    r"""The jackknife standard error over queries of the ratio of means ``sum(num) / sum(den)``
    (Quenouille 1956; Tukey 1958; Efron & Stein 1981): with ``r_(i)`` the ratio without query ``i``,
    ``se = sqrt((m - 1)/m * sum_i (r_(i) - mean_j r_(j))^2)`` over the ``m`` queries. Here the
    realised / predicted variance ratio of a label model on the pool: ``num`` each query's realised
    squared error, ``den`` its predicted variance, the queries independent draws from the
    population of queries (their documents' errors may correlate within a query: a query is the
    unit). Leave-one-out sums, one pass; NaN for fewer than two queries or a leave-one-out
    denominator of 0. The jackknife and the delta method of a ratio of means agree to first order;
    the jackknife needs no derivative and is what the test recomputes by brute force.

    ``groups``: each entry's query id where one query enters more than once (the pools of several
    folds, each query in four of the five); the jackknife then leaves one query out with all its
    entries (the delete-a-group jackknife; Shao & Tu 1995, Sec. 6.2), as the entries of one query
    are not independent draws. None: every entry its own query."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    if num.shape != den.shape or num.ndim != 1:
        raise ValueError(f"num and den must be 1-d arrays of one length, got shapes {num.shape} and {den.shape}")
    if groups is not None:
        groups = np.asarray(groups)
        if groups.shape != num.shape:
            raise ValueError(f"groups must be one id per entry of num, got shape {groups.shape} for {num.shape}")
        _, inverse = np.unique(groups, return_inverse=True)
        num, den = np.bincount(inverse, weights=num), np.bincount(inverse, weights=den)
    m = num.size
    if m < 2:
        return float("nan")
    loo_den = den.sum() - den
    if np.any(loo_den == 0):
        return float("nan")
    loo = (num.sum() - num) / loo_den
    return float(np.sqrt((m - 1) / m * np.sum((loo - loo.mean()) ** 2)))


def calibrated_ratio_se(pool_err, pool_var, fit_err, fit_var, *, pool_qids=None) -> tuple[float, float, float]:
    r"""The standard error of the calibrated model's realised / predicted ratio on the pool,
    ``r = mean(pool_err) / mean(pool_var)``, and its two parts ``(se, se_pool, se_fit)``,
    ``se = sqrt(se_pool^2 + se_fit^2)`` (a fold's pool and fit queries are disjoint draws; across
    folds a fold's fit queries sit in the other folds' pools, a correlation this leaves out):

    * ``se_pool``: the pool's queries, ``rho`` held fixed (:func:`ratio_of_means_se`, grouped by
      ``pool_qids`` where the pools of several folds share queries);
    * ``se_fit``: the held-out queries ``rho`` is fitted on. Moment matching sets the fit queries'
      ratio ``mean(fit_err) / mean(fit_var)`` to 1, so another draw of them, whose ratio at this
      ``rho`` is ``1 + d``, moves ``rho`` until the predicted variance scales by about ``1 + d``,
      and ``r`` by ``1 / (1 + d)`` (to first order, where the copula's variance grows with ``rho``
      alike on both sets): ``se_fit = r * se(fit ratio) / fit ratio``, the fit ratio's relative
      jackknife error (the delta method through the moment equation; Stefanski & Boos 2002's
      M-estimation). Checked by Monte Carlo over fit sets of a planted copula, the pool fixed: at 40
      to 60 fit queries it is within 15 % of the spread of ``r`` (tests); at 10 to 20 it under-states
      DCG's spread by about 20 % and over-states ERR's by 30-70 % (where ``rho`` often sits at a
      bound of its range).

    ``pool_err`` / ``pool_var``: per pool query the realised squared error and predicted variance of
    the calibrated model (``pool_qids``: their query ids, or None); ``fit_err`` / ``fit_var``: the
    same on the fit queries at the fitted ``rho``. NaN parts where a jackknife is undefined (fewer than two queries)."""
    pool_err, pool_var = np.asarray(pool_err, dtype=np.float64), np.asarray(pool_var, dtype=np.float64)
    fit_err, fit_var = np.asarray(fit_err, dtype=np.float64), np.asarray(fit_var, dtype=np.float64)
    r = pool_err.mean() / pool_var.mean() if pool_err.size else float("nan")
    se_pool = ratio_of_means_se(pool_err, pool_var, pool_qids)
    fit_ratio = fit_err.mean() / fit_var.mean() if fit_err.size and fit_var.mean() > 0 else float("nan")
    se_fit = float(r * ratio_of_means_se(fit_err, fit_var) / fit_ratio) if fit_ratio > 0 else float("nan")
    return float(np.hypot(se_pool, se_fit)), se_pool, se_fit


def split_table(setup_paths):
    """``label_model_split.csv``: per calibrated experiment and measure, over the pool queries of
    every fold (means over queries, budget factors mean over folds), the paper's label model's
    predicted variance (Theorem 3) against the realised squared error of its predicted mean, split
    into the within-document part (``realized_within``: what independent labels can produce; its
    expectation is the predicted variance) and the cross-document part (``realized_cross``: errors of
    one sign within a query), each with its ratio to the predicted variance; the held-out queries
    the copula was fitted on (``fit_queries``, summed over folds; the paper's model's ``fit_ratio``
    there, the fitted ``rho``, both means over folds); the calibrated model's predicted variance
    and ratio on the pool; and the budget each q* needs relative to passive sampling for the same
    asymptotic variance with the true losses (:func:`evalrank.papers.sawade2012.report._budget_factor`;
    1 - factor = the saving to expect):
    the paper's model, the calibrated model, the paper's mean with each query's *true* squared
    error as its variance (``budget_factor_true_variance``: the best any variance model can do
    with this mean) and a perfect label model (``q ∝ |L_x - R| / sqrt(lambda(x))``).
    ``queries``: the pool's queries summed over folds, ``distinct_queries``: how many different
    queries they are (a query is in the pool of four of the five folds).
    ``calibrated_ratio_se``: the calibrated ratio's standard error, what the calibration claim's
    verdict must resolve, from its two independent sources (:func:`calibrated_ratio_se`):
    ``calibrated_ratio_se_pool`` (the pool's queries) and ``calibrated_ratio_se_fit`` (the held-out
    queries ``rho`` is fitted on)."""
    import pandas as pd

    from evalrank import io
    from evalrank.active.sampling import instrumental
    from evalrank.papers.sawade2012.report import _budget_factor

    acc = {}
    for p in setup_paths:
        s = io.load_arrays(p)
        meta = json.loads(str(s["meta"]))
        if not meta.get("calibrated"):
            continue
        for m in meta["measures"]:
            values, costs = s[f"values_{m}"], s["costs"]
            mean0, var0, mean1, var1 = (s[f"indep_mean_{m}"], s[f"indep_var_{m}"], s[f"pred_mean_{m}"],
                                        s[f"pred_var_{m}"])
            e0 = (values - mean0) ** 2
            d = np.abs(values - values.mean())
            acc.setdefault((meta["experiment"], m), []).append({
                "pv": var0, "err": e0, "within": s[f"within_{m}"], "cal_pv": var1, "cal_err": (values - mean1) ** 2,
                "fit_var": s[f"fit_var_{m}"], "fit_err": s[f"fit_err_{m}"], "qids": s["pool_qids"],
                "fit_queries": int(s["fit_queries"]), "fit_ratio": float(s[f"fit_ratio_{m}"]),
                "rho": float(s[f"rho_{m}"]),
                "bf0": _budget_factor(instrumental(var0 + (mean0 - mean0.mean()) ** 2, costs), values, costs),
                "bf1": _budget_factor(s[f"q_{m}_active"], values, costs),
                "bft": _budget_factor(instrumental(e0 + (mean0 - mean0.mean()) ** 2, costs), values, costs),
                "bfo": _budget_factor(instrumental(d * d, costs), values, costs),
            })
    rows = []
    for (exp, m), parts in acc.items():
        cat = {k: np.concatenate([p[k] for p in parts])
               for k in ("pv", "err", "within", "cal_pv", "cal_err", "fit_var", "fit_err", "qids")}
        se, se_pool, se_fit = calibrated_ratio_se(cat["cal_err"], cat["cal_pv"], cat["fit_err"], cat["fit_var"],
                                                  pool_qids=cat["qids"])
        pv, err, within = cat["pv"].mean(), cat["err"].mean(), cat["within"].mean()
        rows.append({
            "experiment": exp, "measure": m, "queries": int(cat["pv"].size),
            "distinct_queries": int(np.unique(cat["qids"]).size), "predicted_variance": pv,
            "realized_squared_error": err, "ratio": err / pv, "realized_within": within, "ratio_within": within / pv,
            "realized_cross": err - within, "ratio_cross": (err - within) / pv,
            "fit_queries": int(sum(p["fit_queries"] for p in parts)),
            "fit_ratio": float(np.mean([p["fit_ratio"] for p in parts])),
            "rho": float(np.mean([p["rho"] for p in parts])),
            "calibrated_predicted_variance": cat["cal_pv"].mean(),
            "calibrated_ratio": cat["cal_err"].mean() / cat["cal_pv"].mean(),
            "calibrated_ratio_se": se, "calibrated_ratio_se_pool": se_pool, "calibrated_ratio_se_fit": se_fit,
            "budget_factor_independent": float(np.mean([p["bf0"] for p in parts])),
            "budget_factor_calibrated": float(np.mean([p["bf1"] for p in parts])),
            "budget_factor_true_variance": float(np.mean([p["bft"] for p in parts])),
            "budget_factor_oracle": float(np.mean([p["bfo"] for p in parts])),
        })
    return pd.DataFrame(rows, columns=SPLIT_COLUMNS)
