"""What a Sawade et al. (2012) run resolves (issue 30 item 2), for the findings
(:mod:`evalrank.papers.sawade2012.findings`, :mod:`~evalrank.papers.sawade2012.claims_calibrated`,
:mod:`~evalrank.papers.sawade2012.claims_campaign`): the pool's queries (``label_model_check.csv``'s
``distinct_queries``, all folds), the Monte Carlo campaigns per method and budget (``curves.csv``'s
``n_runs``), the Monte Carlo standard error of a saving (:func:`saving_se`, the delta method on
``curves.csv``'s per-budget means and standard errors) and the smallest pool a saving's verdict may
judge (:data:`MIN_POOL`), gathered into a :class:`evalrank.papers.common.findings.Power`.
"""

from __future__ import annotations

import math

import numpy as np

from evalrank.papers.common.findings import Power, is_nan

__all__ = ["MIN_POOL", "MIN_POOL_WHY", "saving_se", "curve_se", "pool_queries", "n_runs", "saving_power", "first_row"]

#: The smallest pool (different queries over all folds) whose savings this run's verdicts may judge. A saving is
#: a property of the pool's queries: how much q* gains depends on a few queries with large
#: deviations |L_x - R|. Measured (issue 30): the jackknife over pool queries of the expected saving
#: 1 - budget_factor_active (label_model_check's, with the true labels) has a standard error of
#: about 0.7 / sqrt(m) for the ERR experiments (0.6-0.85 on the synthetic default's 1,000-query
#: pool, 0.36-2.7 on the MSLR excerpt, one fold's 68-query pool). Resolving TOL = 5 points at 2 se needs
#: m >= (2 * 0.7 / 0.05)^2 ~ 780: hence 800 (the paper's pool, four MSLR-WEB30K folds, holds
#: ~25,000 queries).
MIN_POOL = 800
MIN_POOL_WHY = "a saving's pool-to-pool standard error is about 0.7/√m, and 2 se must stay within 5 points"


def saving_se(budgets, passive, passive_se, active, active_se, reference_budget: float) -> float:
    """Monte Carlo standard error of the saving of
    :func:`evalrank.papers.sawade2012.experiments.savings_row` (same arguments, plus the
    per-budget standard errors of the mean errors), by the delta method.

    The saving is ``1 - B/ref`` with ``B = exp(x0 + t (x1 - x0))``, ``x = log budget`` of the grid
    points around the crossing, ``t = (y0 - T) / (y0 - y1)``, ``T`` passive's mean error at ``ref``
    and ``y0 > T >= y1`` active's at the two points. Its derivative: ``ds = -(B/ref) (x1 - x0) dt``,
    ``dt = (-(dT) + (1 - t) dy0 + t dy1) / (y0 - y1)``. Passive's and active's runs draw from their
    own streams (independent); active's two budgets are prefixes of the same draw sequences
    (:mod:`evalrank.papers.sawade2012.montecarlo`), so their covariance is bounded by perfect
    correlation: ``sd((1 - t) y0 + t y1) <= (1 - t) se0 + t se1``. The standard error is thus an
    upper bound (exact for perfectly correlated neighbouring budgets). NaN where no saving is
    defined, or where active is already below passive's error at the smallest budget (the saving
    is then a lower bound)."""
    b = np.asarray(budgets, dtype=np.float64)
    p, ps = np.asarray(passive, dtype=np.float64), np.asarray(passive_se, dtype=np.float64)
    a, as_ = np.asarray(active, dtype=np.float64), np.asarray(active_se, dtype=np.float64)
    if not (b.shape == p.shape == ps.shape == a.shape == as_.shape) or b.ndim != 1:
        raise ValueError("budgets, passive, passive_se, active and active_se must be 1-d arrays of one length")
    hit = np.flatnonzero(np.isclose(b, reference_budget))
    if hit.size == 0:
        raise ValueError(f"reference_budget {reference_budget} is not on the budget grid {b.tolist()}")
    target, s_t = p[hit[0]], ps[hit[0]]
    if not target > 0 or a[0] <= target:
        return float("nan")
    below = np.flatnonzero(a[1:] <= target)
    if below.size == 0:
        return float("nan")
    i = int(below[0]) + 1
    y0, y1 = a[i - 1], a[i]
    t = (y0 - target) / (y0 - y1)
    dx = np.log(b[i]) - np.log(b[i - 1])
    needed = float(np.exp(np.log(b[i - 1]) + t * dx))
    sd_num = math.hypot(s_t, (1 - t) * as_[i - 1] + t * as_[i])
    return float(needed / reference_budget * dx * sd_num / (y0 - y1))


def curve_se(curves, exp, measure, ref) -> float:
    """:func:`saving_se` of ``exp`` / ``measure`` from ``curves.csv`` (NaN where the curves lack
    passive or active on the grid)."""
    g = curves[(curves.experiment == exp) & (curves.measure == measure) & curves.method.isin(["passive", "active"])]
    if g.empty or "se" not in g:
        return float("nan")
    mean = g.pivot(index="budget", columns="method", values="mean_error").sort_index()
    se = g.pivot(index="budget", columns="method", values="se").sort_index()
    if mean.shape[1] < 2 or mean.isna().any().any() or se.isna().any().any() \
            or not np.isclose(mean.index.to_numpy(dtype=float), ref).any():
        return float("nan")
    return saving_se(mean.index.to_numpy(dtype=float), mean["passive"], se["passive"], mean["active"], se["active"], ref)


def pool_queries(labels, exp=None, measure="err"):
    """The pool's queries behind ``exp`` (or the largest pool of any experiment), from
    ``label_model_check.csv`` (or ``label_model_split.csv``, which has the same columns): its
    different queries over all folds (``distinct_queries``; a query is in the pool of every fold
    but its own, and its four entries are not four draws), or the entries summed over folds
    (``queries``) in a table without that column; None where the table (or its ``queries``
    column) is absent."""
    if labels is None or "queries" not in labels:
        return None
    distinct = "distinct_queries" in labels and labels["distinct_queries"].notna().all()
    col = "distinct_queries" if distinct else "queries"
    if exp is None:
        return int(labels[col].max()) if len(labels) else None
    r = first_row(labels, experiment=exp, measure=measure)
    return None if r is None else int(r[col])


def n_runs(curves, exp, measure, budget):
    r = curves[(curves.experiment == exp) & (curves.measure == measure) & (curves.budget == budget)]
    return None if r.empty or "n_runs" not in r else int(r["n_runs"].min())


def saving_power(savings, curves, labels, exp, measure, ref) -> Power:
    se = curve_se(curves, exp, measure, ref)
    r = first_row(savings, experiment=exp, measure=measure)
    lower = r is not None and not is_nan(r["saving"]) and np.isnan(se)
    return Power(n=pool_queries(labels, exp, measure), unit="queries in the pool", repetitions=n_runs(curves, exp, measure, ref),
                 se=None if np.isnan(se) else se, of=f"{measure.upper()} saving", how="delta method on curves.csv",
                 percent=True, note="the saving is a lower bound (active is below passive's error at the "
                                    "smallest budget)" if lower else "")


def first_row(df, **eq):
    m = df
    for k, v in eq.items():
        m = m[m[k] == v]
    return None if m.empty else m.iloc[0]
