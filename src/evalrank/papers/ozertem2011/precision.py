"""What the clicks study's tables resolve (issue 51): standard errors of the numbers the findings
judge, and the measurements behind the causes they state.

Tables 6 and 8 average a per-query correlation over tests (:func:`.study.correlation_table`); the
tests are the independent units, so a mean's standard error is the spread of the per-test values
over √(tests) (:func:`mean_se`), a difference's the spread of the paired per-test differences, a
ratio of two means' by the delta method (:func:`ratio_se`). Table 5 and the view threshold compare
leave-one-out MSEs over the same judged pairs: the ratio of two MSEs has the delta-method se of
paired squared errors, i.i.d. over the left-out pairs (pairs of one query are not independent, so
this understates it somewhat).
"""

from __future__ import annotations

import numpy as np

from evalrank.papers.ozertem2011.printed import IMPRESSION_THRESHOLDS
from evalrank.papers.ozertem2011.study import _test_correlations as _by_test  # the tables' own r per test

__all__ = ["per_test_correlations", "per_test_inter_annotator", "mean_se", "ratio_se", "mse_ratio",
           "between_query_share", "slope"]


def _row_mean(vals):
    """The mean over axis 0 of finite values (NaN where a column has none)."""
    v = np.asarray(vals, dtype=np.float64)
    n = np.isfinite(v).sum(axis=0)
    s = np.where(np.isfinite(v), v, 0.0).sum(axis=0)
    return np.where(n > 0, s / np.maximum(n, 1), np.nan)


def per_test_correlations(rows: dict, row_offsets, impressions_of_row, methods, references,
                          thresholds=IMPRESSION_THRESHOLDS, sign=False) -> dict:
    """Per method, an array (thresholds, tests): each test's Pearson r over its queries with ≥ the
    threshold's impressions of the method's E{ΔDCG} with each reference's (sign(ΔDCG) with
    ``sign``), averaged over the references other than the method (NaN where undefined)."""
    f = np.sign if sign else (lambda x: x)
    out = {}
    for name in methods:
        per = []
        for k in thresholds:
            keep = np.asarray(impressions_of_row) >= k
            vals = [_by_test(f(rows[name][0]), f(rows[ref][0]), row_offsets, keep) for ref in references
                    if ref != name]
            per.append(_row_mean(vals) if vals else np.full(row_offsets.size - 1, np.nan))
        out[name] = np.vstack(per)
    return out


def per_test_inter_annotator(rows: dict, row_offsets, impressions_of_row, sets, thresholds=IMPRESSION_THRESHOLDS,
                             sign=False) -> np.ndarray:
    """(thresholds, tests): each test's per-query correlation between the fully judged sets,
    averaged over their pairs."""
    f = np.sign if sign else (lambda x: x)
    per = []
    for k in thresholds:
        keep = np.asarray(impressions_of_row) >= k
        vals = [_by_test(f(rows[a][0]), f(rows[b][0]), row_offsets, keep)
                for i, a in enumerate(sets) for b in sets[i + 1:]]
        per.append(_row_mean(vals) if vals else np.full(row_offsets.size - 1, np.nan))
    return np.vstack(per)


def mean_se(x) -> np.ndarray:
    """Standard error of the mean over the last axis of the finite values (sd with ddof 1 over √n;
    NaN below 2 values)."""
    x = np.asarray(x, dtype=np.float64)
    ok = np.isfinite(x)
    n = ok.sum(axis=-1)
    m = np.where(ok, x, 0.0).sum(axis=-1) / np.maximum(n, 1)
    ss = (np.where(ok, x - m[..., None], 0.0) ** 2).sum(axis=-1)
    return np.where(n >= 2, np.sqrt(ss / np.maximum(n - 1, 1) / np.maximum(n, 1)), np.nan)


def ratio_se(a, b) -> np.ndarray:
    """Delta-method standard error of mean(a) / mean(b) over the last axis, over the positions
    where both are finite: sd(a − R b) / (√n |mean(b)|)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ok = np.isfinite(a) & np.isfinite(b)
    n = ok.sum(axis=-1)
    ma = np.where(ok, a, 0.0).sum(axis=-1) / np.maximum(n, 1)
    mb = np.where(ok, b, 0.0).sum(axis=-1) / np.maximum(n, 1)
    r = ma / np.where(mb == 0, np.nan, mb)
    resid = np.where(ok, a - r[..., None] * b, np.nan)
    return mean_se(resid) / np.abs(mb)


def mse_ratio(errors, reference) -> tuple[float, float]:
    """MSE(errors) / MSE(reference) over the same left-out pairs and its delta-method se
    (:func:`ratio_se` of the squared errors, i.i.d. over pairs)."""
    e, r = np.asarray(errors, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    if e.shape != r.shape:
        raise ValueError(f"errors and reference must be over the same pairs: {e.shape} vs {r.shape}")
    return float(np.mean(e * e) / np.mean(r * r)), float(ratio_se(e * e, r * r))


def between_query_share(grades, query) -> float:
    """The share of the variance of ``grades`` that lies between the means of their queries (one-way
    analysis of variance: Σ_q n_q (ḡ_q − ḡ)² / Σ (g − ḡ)²): what query smoothing can pool."""
    g = np.asarray(grades, dtype=np.float64)
    _, q = np.unique(np.asarray(query), return_inverse=True)
    n = np.bincount(q)
    mq = np.bincount(q, weights=g) / n
    total = float(((g - g.mean()) ** 2).sum())
    return float((n * (mq - g.mean()) ** 2).sum() / total) if total > 0 else float("nan")


def slope(estimate, truth) -> float:
    """Least-squares slope of ``estimate`` on ``truth`` (1: no shrinkage; < 1: shrunk towards the mean)."""
    x, y = np.asarray(truth, dtype=np.float64), np.asarray(estimate, dtype=np.float64)
    v = float(np.var(x))
    return float(np.mean((x - x.mean()) * (y - y.mean())) / v) if v > 0 else float("nan")
