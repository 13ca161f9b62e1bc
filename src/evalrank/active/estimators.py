r"""The estimators of a labelling campaign, by name, on the draws' weights and values.

Queries ``x_1..x_n`` are drawn i.i.d. from ``q``; ``w_j = p(x_j) / q(x_j)`` with ``p`` uniform
over the pool's ``m`` queries; ``L_j`` is the labelled query's measure (or the difference of two
rankers' measures); ``f(x)`` the label model's expected measure of query ``x``
(Theorem 3's mean, :mod:`evalrank.active.theorem3`, which q* already computes), ``f_pool`` its
mean over the pool.

``aipw`` (the default of ``evalrank active estimate`` for a difference of two rankers)
    the control-variate / augmented inverse-probability-weighted estimator

        R_hat = f_pool + (1/n) sum_j w_j (L_j - f(x_j)),

    the mean of the i.i.d. per-draw terms ``psi_j = f_pool + w_j (L_j - f(x_j))``. Unbiased for
    the pool's mean ``R = (1/m) sum_x L_x`` whatever the label model (``E_q[w (L - f)] = R -
    f_pool``); the model only has to be useful (its errors ``L - f`` smaller than ``L - R``), not
    right. Prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023,
    "Prediction-powered inference", Science 382(6671)) and its active form (Zrnic & Candès 2024,
    "Active statistical inference", ICML), here with Sawade et al.'s q*. Its terms are i.i.d.,
    so the confidence sequences of :mod:`evalrank.active.confseq` apply to them directly.

``hajek``
    AIPW with Hajek-normalized weights (the "normalized" doubly robust estimator of Robins, Sued,
    Lei-Gomez & Rotnitzky 2007, "Comment: Performance of double-robust estimators when 'inverse
    probability' weights are highly variable", Statistical Science 22(4)),

        R_hat = f_pool + sum_j w_j (L_j - f(x_j)) / sum_j w_j,

    that is eq. 6 on the residual values ``L - f + f_pool``. Consistent, biased by O(1/n) like
    eq. 6; its interval is eq. 6's (the delta method, :mod:`evalrank.active.interval`, and its
    linearized terms for the confidence sequence). The default for **one ranker**.

With the t interval, the default (:func:`default_estimator`) is ``hajek`` for one ranker and
``aipw`` for a difference of two rankers; with the confidence sequence the tool's default is the
finite-population estimator of :mod:`evalrank.active.finite`, whose sequence does not rest on the
label model's variances (the asymptotic sequence below used them as its few-draws floor: 55-73 %
simultaneous coverage with an uninformative model, ``benchmarks/RESULTS.md``). In the campaign study on the default data (issue 27,
``results/<name>/sawade2012/campaign_coverage.csv``, floor 0.05, Lambda = 10-500), RMSE against
eq. 6's on the same draws:

=============  ===========  ============
quantity       aipw         hajek
=============  ===========  ============
one ranker     0.85-1.04x   0.84-0.99x
difference     0.65-1.00x   0.91-1.001x
=============  ===========  ============

At every budget the default is the more precise of the two, or behind by at most 1.1 %, in 13
of the 14 cells (experiment x measure); in the index update's DCG Hajek is ahead by up to 2.4 %.

What decides it, measured on the same pools: normalizing by ``sum w`` instead of ``n`` damps
the terms that come with weights above 1. With ``psi = f_pool + w (L - f)``,
``kappa = E_q[(psi - R)^2 (w - 1)] / E_q[(psi - R)^2]`` is 0.39-1.53 for one ranker: the large
terms come with large weights. For the model pairs it is -0.14-0.10 and for the index update's
ERR -0.39: the rankers agree on most queries, q* puts little mass there, and the large weights
come with residuals near 0, which add to Hajek's denominator without information. (The index
update's DCG has 0.48, the one cell where Hajek wins.) The label model's own ``kappa``, its
variance in place of the squared residual, is within 0.22 of it in every cell.

Both rest on the label model being useful. Where its means barely track the truth, eq. 6 is
the more precise at every budget: on the real MSLR-WEB30K excerpt (``config/mslr_excerpt.yaml``,
68 pool queries) the RF's ERR (correlation of ``f`` with ``L`` 0.19) and the LambdaMART-vs-RF
difference (-0.07-0.02) give an exact large-sample variance of 1.05-1.21x eq. 6's
(:func:`evalrank.papers.sawade2012.campaignstudy.first_order_ratio`, the study's
``first_order_vs_eq6``) and RMSE 1.02-1.10x.

``eq6``
    Sawade et al. (2012)'s self-normalized importance-weighted mean, eq. 6,
    ``sum_j w_j L_j / sum_j w_j`` -- the paper's estimator, used for its Figs. 1-3 and the
    savings table, and an option of the tool (with the delta-method t interval of
    :mod:`evalrank.active.interval`). Consistent, biased by O(1/n).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ESTIMATORS", "aipw_terms", "aipw", "hajek", "hajek_values", "eq6", "default_estimator"]

ESTIMATORS = ("aipw", "hajek", "eq6")


def default_estimator(difference: bool) -> str:
    """The tool's estimator of these three (module docstring; ``estimate --interval t``'s
    default): ``aipw`` for a difference of two rankers, ``hajek`` for one ranker."""
    if not isinstance(difference, (bool, np.bool_)):
        raise TypeError(f"difference must be a bool, got {type(difference).__name__}")
    return "aipw" if difference else "hajek"


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


def _model_means(v: np.ndarray, f_draws, f_pool: float) -> np.ndarray:
    """``f_draws`` checked against the values ``v``: one finite model mean per draw, ``f_pool`` finite."""
    f = np.asarray(f_draws, dtype=np.float64)
    if f.shape != v.shape:
        raise ValueError(f"f_draws must have one value per draw ({v.size}), got shape {f.shape}")
    if not (np.isfinite(f).all() and np.isfinite(f_pool)):
        raise ValueError("f_draws and f_pool must be finite")
    return f


def aipw_terms(weights, values, f_draws, f_pool: float) -> np.ndarray:
    """The per-draw terms ``psi_j = f_pool + w_j (L_j - f(x_j))`` of the AIPW estimator (module
    docstring); ``f_draws``: the label model's expected measure of each drawn query."""
    w, v = _arrays(weights, values)
    return float(f_pool) + w * (v - _model_means(v, f_draws, f_pool))


def aipw(weights, values, f_draws, f_pool: float) -> float:
    """The AIPW estimate: the mean of :func:`aipw_terms`."""
    return float(aipw_terms(weights, values, f_draws, f_pool).mean())


def hajek_values(values, f_draws, f_pool: float) -> np.ndarray:
    """The residual values ``L - f + f_pool`` whose eq. 6 is the Hajek-normalized AIPW."""
    v = np.asarray(values, dtype=np.float64)
    return v - _model_means(v, f_draws, f_pool) + float(f_pool)


def hajek(weights, values, f_draws, f_pool: float) -> float:
    """AIPW with Hajek-normalized weights: ``f_pool + sum w (L - f) / sum w`` (module docstring)."""
    return eq6(weights, hajek_values(values, f_draws, f_pool))


def eq6(weights, values) -> float:
    """Sawade et al. (2012), eq. 6: ``sum w L / sum w``."""
    w, v = _arrays(weights, values)
    if w.size == 0:
        return float("nan")
    return float((w * v).sum() / w.sum())
