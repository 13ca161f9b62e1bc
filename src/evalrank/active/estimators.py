r"""The estimators of a labelling campaign, by name, on the draws' weights and values.

Queries ``x_1..x_n`` are drawn i.i.d. from ``q``; ``w_j = p(x_j) / q(x_j)`` with ``p`` uniform
over the pool's ``m`` queries; ``L_j`` is the labelled query's measure (or the difference of two
rankers' measures); ``f(x)`` the label model's expected measure of query ``x``
(Theorem 3's mean, :mod:`evalrank.active.theorem3`, which q* already computes), ``f_pool`` its
mean over the pool.

``aipw`` (the default of ``evalrank active estimate``)
    the control-variate / augmented inverse-probability-weighted estimator

        R_hat = f_pool + (1/n) sum_j w_j (L_j - f(x_j)),

    the mean of the i.i.d. per-draw terms ``psi_j = f_pool + w_j (L_j - f(x_j))``. Unbiased for
    the pool's mean ``R = (1/m) sum_x L_x`` whatever the label model (``E_q[w (L - f)] = R -
    f_pool``); the model only has to be useful (its errors ``L - f`` smaller than ``L - R``), not
    right. Prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023,
    "Prediction-powered inference", Science 382(6671)) and its active form (Zrnic & Candès 2024,
    "Active statistical inference", ICML), here with Sawade et al.'s q*. Its terms are i.i.d.,
    so the confidence sequences of :mod:`evalrank.active.confseq` apply to them directly.

``eq6``
    Sawade et al. (2012)'s self-normalized importance-weighted mean, eq. 6,
    ``sum_j w_j L_j / sum_j w_j`` -- the paper's estimator, used for its Figs. 1-3 and the
    savings table, and an option of the tool (with the delta-method t interval of
    :mod:`evalrank.active.interval`). Consistent, biased by O(1/n).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ESTIMATORS", "aipw_terms", "aipw", "eq6"]

ESTIMATORS = ("aipw", "eq6")


def _arrays(weights, values, name="values"):
    w = np.asarray(weights, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    if w.ndim != 1 or w.shape != v.shape:
        raise ValueError(f"weights and {name} must be 1-d of the same length, got {w.shape} and {v.shape}")
    if not (np.isfinite(w).all() and (w > 0).all()):
        raise ValueError("weights must be finite and > 0")
    if not np.isfinite(v).all():
        raise ValueError(f"{name} must be finite")
    return w, v


def aipw_terms(weights, values, f_draws, f_pool: float) -> np.ndarray:
    """The per-draw terms ``psi_j = f_pool + w_j (L_j - f(x_j))`` of the AIPW estimator (module
    docstring); ``f_draws``: the label model's expected measure of each drawn query."""
    w, v = _arrays(weights, values)
    f = np.asarray(f_draws, dtype=np.float64)
    if f.shape != v.shape:
        raise ValueError(f"f_draws must have one value per draw ({v.size}), got shape {f.shape}")
    if not (np.isfinite(f).all() and np.isfinite(f_pool)):
        raise ValueError("f_draws and f_pool must be finite")
    return float(f_pool) + w * (v - f)


def aipw(weights, values, f_draws, f_pool: float) -> float:
    """The AIPW estimate: the mean of :func:`aipw_terms`."""
    return float(aipw_terms(weights, values, f_draws, f_pool).mean())


def eq6(weights, values) -> float:
    """Sawade et al. (2012), eq. 6: ``sum w L / sum w``."""
    w, v = _arrays(weights, values)
    if w.size == 0:
        return float("nan")
    return float((w * v).sum() / w.sum())
