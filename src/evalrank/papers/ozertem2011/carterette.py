"""Carterette & Jones (NIPS 2007) baseline: grades from click features by
ordinal regression (Ozertem et al. 2011, Sec. 5.2.1, Table 6).

Per query-URL pair, from every serp of the log that showed it (weighted by
its sessions): its clickthrough rate, the clickthrough rates of the results
just above and below it, and its mean rank. A cumulative-logit ordinal
regression (``mord.LogisticAT``, shared with the model zoo's ordered logit)
maps them to a grade pdf. As in the paper's description, it is trained only
on judged pairs of frequent queries (``min_train_impressions``, 200 in
Carterette & Jones), editorial grades are taken as exact (one-hot), and
there is no smoothing: every pair without a judgment gets the regression's
pdf, whatever its clicks -- pairs never shown have all-zero click features.
"""

from __future__ import annotations

import numpy as np

from evalrank.papers.ozertem2011.logs import SessionLog
from evalrank.models.ordered_logit import cumulative_logit_proba, fit_logistic_at, quiet_mord

__all__ = ["FEATURES", "click_features", "OrdinalClickModel"]

FEATURES = ("ctr", "ctr_above", "ctr_below")


def click_features(log: SessionLog, n_pairs: int) -> np.ndarray:
    """(n_pairs, 3) features in :data:`FEATURES` order, Carterette & Jones'
    three: clicks per session at the pair's own rank, the rank above and the
    rank below on each serp that showed it, averaged with the serp's session
    weights (0 at rank 1 for "above", past the list's end for "below", and
    all three for a pair never shown)."""
    if not isinstance(log, SessionLog):
        raise TypeError("log: expected a SessionLog")
    n_serps, depth = log.serps.shape
    if log.serps.size and log.serps.max() >= n_pairs:
        raise ValueError(f"n_pairs: the log names pair ids up to {log.serps.max()}, n_pairs is {n_pairs}")
    last, clicks = log.serp_counts()
    sessions = last.sum(axis=1)
    ctr = np.divide(clicks, sessions[:, None], out=np.zeros_like(clicks), where=sessions[:, None] > 0)
    shown = log.serps >= 0
    above = np.concatenate([np.zeros((n_serps, 1)), ctr[:, :-1]], axis=1)
    below = np.concatenate([ctr[:, 1:], np.zeros((n_serps, 1))], axis=1)
    below = np.where(np.concatenate([shown[:, 1:], np.zeros((n_serps, 1), bool)], axis=1), below, 0.0)
    w = np.broadcast_to(sessions[:, None], shown.shape)[shown]
    pid = log.serps[shown]
    imp = np.bincount(pid, weights=w, minlength=n_pairs)

    def mean(values):
        tot = np.bincount(pid, weights=w * values, minlength=n_pairs)
        return np.divide(tot, imp, out=np.zeros(n_pairs), where=imp > 0)

    return np.column_stack([mean(ctr[shown]), mean(above[shown]), mean(below[shown])])


class OrdinalClickModel:
    """Cumulative-logit regression of editorial grades on :func:`click_features`.

    ``alpha``: L2 strength (mord's scale); features are standardised on the
    training pairs. :meth:`predict_proba` returns pdfs over ``n_grades``
    (grades absent from training get probability 0).
    """

    def __init__(self, n_grades: int, alpha: float = 1.0, max_iter: int = 1000):
        if not isinstance(n_grades, (int, np.integer)) or n_grades < 2:
            raise ValueError(f"n_grades: expected an integer >= 2, got {n_grades!r}")
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or alpha < 0:
            raise ValueError(f"alpha: expected a non-negative number, got {alpha!r}")
        self.n_grades, self.alpha, self.max_iter = int(n_grades), float(alpha), int(max_iter)

    def fit(self, X, grades) -> "OrdinalClickModel":
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(grades, dtype=np.int64)
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ValueError(f"X, grades: expected (n, d) and (n,), got {X.shape} and {y.shape}")
        if y.size < 2:
            raise ValueError(f"grades: Carterette & Jones' regression needs judged training pairs, got {y.size}; "
                             "lower ozertem2011.carterette.min_train_impressions")
        if y.min() < 0 or y.max() >= self.n_grades:
            raise ValueError(f"grades: must lie in 0..{self.n_grades - 1}")
        self.mean_ = X.mean(axis=0)
        sd = X.std(axis=0)
        self.scale_ = np.where(sd > 0, sd, 1.0)
        with quiet_mord():
            self.coef_, self.theta_, self.grades_ = fit_logistic_at((X - self.mean_) / self.scale_, y, self.alpha,
                                                                    self.max_iter)
        self.n_train_ = int(y.size)
        return self

    def predict_proba(self, X) -> np.ndarray:
        if not hasattr(self, "coef_"):
            raise RuntimeError("OrdinalClickModel: call fit() first")
        eta = ((np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_) @ self.coef_
        return cumulative_logit_proba(eta, self.theta_, self.grades_, self.n_grades)
