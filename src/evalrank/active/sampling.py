r"""Instrumental sampling distributions over a pool of queries (Sawade et al. 2012, Sec. 4-5).

For the evaluation of one ranking function (Derivation 1, eq. 11)

    q*(x) ∝ sqrt( E[(L(r(x), y) - R_theta)^2 | x; theta] / lambda(x) ),
    R_theta = (1/|D|) sum_x E[L(r(x), y) | x; theta]   (eq. 20),

and for the comparison of two (eq. 12)

    q*(x) ∝ sqrt( E[(delta(x, y) - Delta_theta)^2 | x; theta] / lambda(x) ),
    Delta_theta = R_theta[r_1] - R_theta[r_2],

with the expectations computed exactly by Theorem 3
(:mod:`evalrank.active.theorem3`). The variants of Sec. 5:

``active``       eq. 11 / 12 with the model's ``p(y | x, z; theta)`` and the costs;
``active_uniD``  a uniform label model ``p(y | x, z; theta) = 1/|Y|``;
``active_uniC``  uniform costs ``lambda(x) = 1`` inside q (active risk estimation / active
                 comparison; the real costs are still charged when sampling);
``passive``      ``q = p = 1/|D|`` (the standard estimate, eq. 5).
"""

from __future__ import annotations

import numpy as np

from evalrank.active.theorem3 import batch_difference_mean_var, batch_mean_var

__all__ = ["METHODS", "instrumental", "defensive", "max_weight", "q_star", "q_star_difference", "q_star_methods",
           "q_star_difference_methods", "uniform_label_model"]

METHODS = ("passive", "active", "active_uniD", "active_uniC")


def _check_method(method) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    return method


def _check_costs(costs, n_queries: int) -> np.ndarray:
    costs = np.asarray(costs, dtype=np.float64)
    if costs.shape != (n_queries,):
        raise ValueError(f"costs must have shape ({n_queries},) (one per query), got {costs.shape}")
    if not np.all(np.isfinite(costs)) or (costs <= 0).any():
        raise ValueError("costs must be finite and > 0 (the paper assumes lambda(x) >= eps > 0)")
    return costs


def instrumental(second_moment, costs) -> np.ndarray:
    """``q(x) ∝ sqrt(second_moment(x) / costs(x))``, normalized (Lemma 1).

    If every second moment is 0 (every query's loss is known exactly and equals
    the centre) any q is optimal and the uniform distribution is returned.
    """
    second_moment = np.asarray(second_moment, dtype=np.float64)
    if second_moment.ndim != 1 or second_moment.size == 0:
        raise ValueError("second_moment must be a non-empty 1-d array")
    if not np.all(np.isfinite(second_moment)) or (second_moment < 0).any():
        raise ValueError("second_moment must be finite and >= 0")
    costs = _check_costs(costs, second_moment.size)
    q = np.sqrt(second_moment / costs)
    total = q.sum()
    if total == 0:
        return np.full(q.size, 1.0 / q.size)
    return q / total


def defensive(q, epsilon: float) -> np.ndarray:
    """Hesterberg's (1995) defensive mixture ``(1 - epsilon) q + epsilon p`` with ``p`` the uniform
    distribution over the pool ("Weighted average importance sampling and defensive mixture
    distributions", Technometrics 37(2)): every query keeps ``q >= epsilon / m``, so every
    importance weight ``w = p / q`` is at most ``1 / epsilon``, at a cost of at most a factor
    ``1 / (1 - epsilon)`` in the variance of an estimator under ``q`` (the campaign's floor under
    q*; ``epsilon = 0`` is q* itself, as the paper's experiments use it)."""
    q = np.asarray(q, dtype=np.float64)
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating)):
        raise TypeError(f"epsilon must be a number, got {epsilon!r}")
    if not 0.0 <= float(epsilon) <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
    if q.ndim != 1 or q.size == 0 or not np.isfinite(q).all() or (q < 0).any() or not q.sum() > 0:
        raise ValueError("q must be a non-empty 1-d distribution")
    out = (1.0 - float(epsilon)) * (q / q.sum()) + float(epsilon) / q.size
    return out / out.sum()


def max_weight(q) -> float:
    """The largest importance weight ``max_x p(x) / q(x) = 1 / (m min q)`` over the queries ``q``
    can draw (infinite where some query has ``q = 0``: it is never drawn, and eq. 6 / AIPW cannot
    cover it)."""
    q = np.asarray(q, dtype=np.float64)
    lo = float(q.min())
    return float("inf") if lo <= 0 else 1.0 / (q.size * lo)


def uniform_label_model(n_docs: int, n_grades: int) -> np.ndarray:
    """``p(y | x, z) = 1/|Y|`` for every document (the ``active_uniD`` baseline)."""
    return np.full((int(n_docs), int(n_grades)), 1.0 / n_grades)


def _variants(probs, n_queries, costs, methods, mean_var, keep=None) -> dict:
    """q of every method in ``methods``; ``mean_var(probs)`` gives the per-query
    (E, Var) of the loss under a label model. The moments are computed once per
    label model: ``active`` and ``active_uniC`` share them, ``active_uniD`` uses
    the uniform model. ``keep``: a dict that receives the label model's ``mean`` and
    ``var`` per query (computed even if no method needs them)."""
    methods = [_check_method(m) for m in ([methods] if isinstance(methods, str) else methods)]
    costs = _check_costs(costs, n_queries)
    probs_shape = np.shape(probs)
    moments = {}
    out = {}
    if keep is not None:
        keep["mean"], keep["var"] = mean_var(probs)
    for method in methods:
        if method == "passive":
            out[method] = np.full(n_queries, 1.0 / n_queries)
            continue
        model = "uniform" if method == "active_uniD" else "model"
        if model not in moments:
            if model == "model" and keep is not None:
                mean, var = keep["mean"], keep["var"]
            else:
                mean, var = mean_var(uniform_label_model(*probs_shape) if model == "uniform" else probs)
            centre = float(mean.mean())  # R_theta (eq. 20) or Delta_theta
            moments[model] = var + (mean - centre) ** 2
        out[method] = instrumental(moments[model], np.ones(n_queries) if method == "active_uniC" else costs)
    return out


def q_star(probs, offsets, order, measure, costs, *, method: str = "active", k=None) -> np.ndarray:
    """Sampling distribution over the pool's queries for estimating ``R[r]`` (eq. 11).

    Parameters
    ----------
    probs : (n_docs, n_grades) ``p(y | x, z; theta)`` of every pool document.
    offsets, order : the ranking ``r`` of every query (see
        :func:`evalrank.active.theorem3.batch_moments`).
    measure : "dcg" or "err".
    costs : (n_queries,) labelling costs ``lambda(x) > 0`` (:func:`evalrank.active.costs.query_costs`).
    method : one of :data:`METHODS`.
    k : cut-off of the measure, or None for the full list (as in the paper).

    Returns ``q`` of shape (n_queries,), summing to 1. ``O(|Y| |D| max|r(x)|)`` (Theorem 3).
    """
    _check_method(method)
    return q_star_methods(probs, offsets, order, measure, costs, methods=(method,), k=k)[method]


def q_star_methods(probs, offsets, order, measure, costs, *, methods=METHODS, k=None, keep=None) -> dict:
    """:func:`q_star` for several methods at once, ``{method: q}``, computing the
    Theorem 3 moments once per label model. ``keep``: a dict that receives the label
    model's per-query ``mean`` and ``var`` of the loss (the label-model check)."""
    return _variants(probs, len(np.asarray(offsets)) - 1, costs, methods,
                     lambda p: batch_mean_var(p, offsets, order, measure, k=k), keep)


def q_star_difference(probs, offsets_a, order_a, offsets_b, order_b, measure, costs, *,
                      method: str = "active", k=None) -> np.ndarray:
    """Sampling distribution for estimating ``Delta = R[r_1] - R[r_2]`` (eq. 12).

    ``probs`` is the label model shared by both rankings (for two models that
    both give probabilities, their mixture, as in Sawade et al. Sec. 5.2);
    ``costs`` are those of labelling the union of both rankings. ERR costs
    ``O(|Y| |D| max |r_1(x)| |r_2(x)|)``, DCG ``O(|Y| |D| max |r_1(x) ∪ r_2(x)|)`` (Theorem 3).
    """
    _check_method(method)
    return q_star_difference_methods(probs, offsets_a, order_a, offsets_b, order_b, measure, costs,
                                     methods=(method,), k=k)[method]


def q_star_difference_methods(probs, offsets_a, order_a, offsets_b, order_b, measure, costs, *,
                              methods=METHODS, k=None, keep=None) -> dict:
    """:func:`q_star_difference` for several methods at once, ``{method: q}``; ``keep`` as in
    :func:`q_star_methods` (mean and variance of the difference)."""
    return _variants(probs, len(np.asarray(offsets_a)) - 1, costs, methods,
                     lambda p: batch_difference_mean_var(p, offsets_a, order_a, offsets_b, order_b, measure, k=k),
                     keep)
