r"""Theorem 3 with correlated labels within a query: a query-level random effect.

Sawade et al. (2012) compute ``E[L | x; theta]`` and ``Var[L | x; theta]`` of DCG and ERR
(Theorem 3, :mod:`evalrank.active.theorem3`) under eq. 3's assumption that a query's document
labels are independent given the model. A per-document-calibrated model can still be wrong in
the same direction for every document of a query (a hard query, a query whose relevant documents
the features miss); those errors add up in ``L`` and make its realised squared error several
times the predicted variance (``label_model_check.csv``, :func:`doob_increments` below).

The label model here keeps every document's marginal ``p(y_z | x, z; theta)`` and couples the
documents of one query by a one-factor Gaussian copula, the query-level random effect of the
credit-risk literature (Vasicek 1987/2002, "The distribution of loan portfolio value", Risk 15(12);
Li 2000, "On default correlation: a copula function approach", J. Fixed Income 9(4)): with
``F_z(k) = p(y_z <= k)``, a standard normal query effect ``u`` and independent standard normal
``e_z``,

    y_z = F_z^{-1}( Phi( sqrt(rho) u + sqrt(1 - rho) e_z ) ),

so ``y_z`` has the model's marginal for every ``rho`` in ``[0, 1)``, and given ``u`` the labels are
independent with

    p(y_z <= k | u) = Phi( (Phi^{-1}(F_z(k)) - sqrt(rho) u) / sqrt(1 - rho) ).

Theorem 3 therefore applies given ``u``, and the law of total variance gives

    E[L | x]   = E_u[ E[L | x, u] ],
    Var[L | x] = E_u[ Var[L | x, u] ] + Var_u[ E[L | x, u] ],

both sums of non-negative terms, with the expectation over ``u`` by Gauss-Hermite quadrature
(``nodes`` points; exact for ``rho = 0``, which is Theorem 3 itself). ``rho`` is the correlation of
the latent normal scores of two documents of one query. For DCG, linear in the gains, the second
term is Theorem 3 plus a covariance term ``sum_{i != j} w_i w_j Cov[G_i, G_j]``; ERR follows the
same conditional structure without a closed form.

``rho`` is fitted by moment matching on labelled validation queries
(:func:`fit_factor_correlation`): the mean predicted variance equals the mean realised squared
error of the predicted mean, ``mean_x Var_rho[L | x] = mean_x (L_x - E_rho[L | x])^2``, which the
predicted variance increases with ``rho`` to meet (a method-of-moments estimate of a variance
component, as in random-effects meta-analysis: DerSimonian & Laird 1986, Controlled Clinical
Trials 7(3)). q* (eqs. 11-12) then uses ``E[(L - R)^2 | x] = Var_rho + (E_rho - R)^2``.

:func:`doob_increments` splits a realised error into the part Theorem 3 can express and the rest:
``L - E[L | x]`` is the sum of the increments ``D_i = E[L | y_1..y_i] - E[L | y_1..y_{i-1}]`` of
the Doob martingale along the ranking (revealing the labels in rank order); under the independent
model the increments are uncorrelated and ``E[sum_i D_i^2] = Var[L | x]`` (Theorem 3), so
``sum_i D_i^2`` is the realised *within-document* part and ``(L - E L)^2 - sum_i D_i^2 =
2 sum_{i<j} D_i D_j`` the realised *cross-document* (covariance) part, whose expectation Theorem 3
sets to 0. For DCG ``D_i = w_i (G_i - E G_i)``; for ERR ``D_i = P_i (R_i - m_i) (1/i - S_i)`` with
``P_i = prod_{l<i} (1 - R_l)`` of the true labels and ``S_i`` the backward recursion of
:mod:`evalrank.active.theorem3`.
"""

from __future__ import annotations

import numbers

import numpy as np
from numba import njit

from evalrank.active.theorem3 import _check_probs, _check_measure, batch_difference_mean_var, batch_mean_var
from evalrank.data.collection import check_offsets

__all__ = ["factor_probs", "quadrature", "batch_mean_var_factor", "batch_difference_mean_var_factor",
           "fit_factor_correlation", "true_losses", "doob_increments", "variance_split", "RHO_MAX", "DEFAULT_NODES",
           "TARGETS"]

#: Largest correlation :func:`fit_factor_correlation` returns (the copula degenerates at 1).
RHO_MAX = 0.95
#: Gauss-Hermite points of the expectation over the query effect.
DEFAULT_NODES = 32


def _check_rho(rho) -> float:
    if isinstance(rho, (bool, np.bool_)) or not isinstance(rho, numbers.Real):
        raise TypeError(f"rho must be a real number, got {rho!r}")
    r = float(rho)
    if not 0.0 <= r < 1.0:
        raise ValueError(f"rho must be in [0, 1), got {rho!r}")
    return r


def _check_nodes(nodes) -> int:
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or nodes < 1:
        raise ValueError(f"nodes must be a positive integer, got {nodes!r}")
    return int(nodes)


def quadrature(nodes: int = DEFAULT_NODES) -> tuple[np.ndarray, np.ndarray]:
    """Points ``u`` and weights (summing to 1) of ``nodes``-point Gauss-Hermite quadrature of a
    standard normal: ``E[f(u)] ~ sum_k weights[k] f(u[k])``, exact for polynomials of degree
    ``< 2 nodes``."""
    u, w = np.polynomial.hermite_e.hermegauss(_check_nodes(nodes))
    return u, w / w.sum()


def factor_probs(probs, rho, u) -> np.ndarray:
    """``p(y_z = g | u)`` of every document given the query effect ``u`` (module docstring):
    the model's marginals ``probs`` (n_docs, n_grades) pushed through the one-factor copula with
    correlation ``rho``. ``rho = 0`` returns ``probs`` unchanged."""
    p = _check_probs(probs)
    rho = _check_rho(rho)
    if isinstance(u, (bool, np.bool_)) or not isinstance(u, numbers.Real) or not np.isfinite(u):
        raise TypeError(f"u must be a finite real number, got {u!r}")
    if rho == 0.0 or p.size == 0:
        return p
    return _given_u(_latent(p), rho, u)


def _latent(p: np.ndarray) -> np.ndarray:
    """``Phi^{-1}(F_z(k))``, the latent thresholds of every document's cumulative marginals (n_docs,
    n_grades - 1): -inf where ``F = 0``, +inf where ``F = 1`` (Phi keeps them at 0 and 1). They do not
    depend on ``rho`` or ``u``, so a quadrature computes them once."""
    from scipy.special import ndtri

    cum = np.clip(np.cumsum(p[:, :-1], axis=1), 0.0, 1.0)
    with np.errstate(divide="ignore"):
        return ndtri(cum)


def _given_u(z: np.ndarray, rho: float, u: float) -> np.ndarray:
    """:func:`factor_probs` from the latent thresholds ``z`` (:func:`_latent`)."""
    from scipy.special import ndtr

    return _probs_from_cumulative(ndtr((z - np.sqrt(rho) * float(u)) / np.sqrt(1.0 - rho)))


@njit(cache=True)
def _probs_from_cumulative(cond):
    """Per row the differences of ``[0, running max of cond, 1]``: the grade probabilities from the
    conditional cumulative ones, kept monotone. The same doubles as NumPy's
    ``np.diff(np.concatenate([0, np.maximum.accumulate(cond, axis=1), 1], axis=1), axis=1)``, without
    its three temporaries of the pool's size (a calibrated setup's 32 quadrature nodes per evaluation)."""
    n, g1 = cond.shape
    out = np.empty((n, g1 + 1))
    for i in range(n):
        prev = 0.0
        for k in range(g1):
            c = cond[i, k]
            run = c if k == 0 or c > prev else prev  # np.maximum.accumulate (no NaN: Phi of a number)
            out[i, k] = run - prev
            prev = run
        out[i, g1] = 1.0 - prev
    return out


def _node_probs(probs, rho: float, nodes: int):
    """``(weight, p(y | u_k))`` at each of the quadrature's ``nodes`` points, the latent thresholds
    computed once for all of them."""
    p = _check_probs(probs)
    u, w = quadrature(nodes)
    z = _latent(p) if p.size else None
    for uk, wk in zip(u, w):
        yield wk, (p if z is None else _given_u(z, rho, uk))


def _mix(moments) -> tuple[np.ndarray, np.ndarray]:
    """Law of total variance over the nodes: ``moments`` = [(weight, mean_u, var_u), ...]."""
    mean = sum(w * m for w, m, _ in moments)
    var = sum(w * (v + (m - mean) ** 2) for w, m, v in moments)
    return mean, var


def batch_mean_var_factor(probs, offsets, order, measure, rho, *, k=None, nodes: int = DEFAULT_NODES):
    """Per-query ``E[L | x]`` and ``Var[L | x]`` of DCG or ERR when the labels of a query follow
    the one-factor copula with correlation ``rho`` around the marginals ``probs`` (module
    docstring; arguments otherwise as :func:`evalrank.active.theorem3.batch_mean_var`, which is
    the result for ``rho = 0``)."""
    rho = _check_rho(rho)
    if rho == 0.0:
        return batch_mean_var(probs, offsets, order, measure, k=k)
    return _mix([(wk, *batch_mean_var(pk, offsets, order, measure, k=k))
                 for wk, pk in _node_probs(probs, rho, nodes)])


def batch_difference_mean_var_factor(probs, offsets_a, order_a, offsets_b, order_b, measure, rho, *, k=None,
                                     nodes: int = DEFAULT_NODES):
    """As :func:`batch_mean_var_factor` for ``delta = L(r_a, y) - L(r_b, y)`` with one shared label
    vector (:func:`evalrank.active.theorem3.batch_difference_mean_var` given ``u``)."""
    rho = _check_rho(rho)
    if rho == 0.0:
        return batch_difference_mean_var(probs, offsets_a, order_a, offsets_b, order_b, measure, k=k)
    return _mix([(wk, *batch_difference_mean_var(pk, offsets_a, order_a, offsets_b, order_b, measure, k=k))
                 for wk, pk in _node_probs(probs, rho, nodes)])


def true_losses(labels, offsets, order, measure: str, *, max_grade: int) -> np.ndarray:
    """Per query ``L(r(x), y)`` (Sawade et al. 2012, eq. 1 or 2: DCG or ERR over the whole list) of
    the ranking ``order`` under the true ``labels``: what this module's moments predict."""
    from evalrank.metrics.dcg import dcg_sorted, gain_values
    from evalrank.metrics.err import err_sorted, stop_probability

    y = np.asarray(labels)[order]
    if measure == "dcg":
        return dcg_sorted(gain_values(y), offsets, None)
    if measure == "err":
        return err_sorted(stop_probability(y, max_grade), offsets, None)
    raise ValueError(f"measure must be 'dcg' or 'err', got {measure!r}")


#: What :func:`fit_factor_correlation` matches: the whole realised squared error, or its
#: cross-document part only.
TARGETS = ("total", "cross")


def fit_factor_correlation(probs, labels, offsets, order, measure, *, max_grade: int, nodes: int = DEFAULT_NODES,
                           rho_max: float = RHO_MAX, xtol: float = 1e-5, target: str = "total") -> float:
    """Moment-matching estimate of the copula's ``rho`` on labelled (validation) queries, ``L_x``
    being each query's loss under its true ``labels`` and the ranking ``order``; the root over
    ``[0, rho_max]`` (Brent) of

    * ``target="total"``: ``mean_x Var_rho[L | x] - mean_x (L_x - E_rho[L | x])^2`` (the predicted
      variance meets the realised squared error, as DerSimonian & Laird's between-study variance);
    * ``target="cross"``: ``mean_x (Var_rho[L | x] - Var_0[L | x])`` minus the mean realised
      cross-document part ``(L_x - E_0[L | x])^2 - sum_i D_i^2`` (:func:`doob_increments`): the
      covariance the copula adds meets the covariance the errors showed, and a per-document
      miscalibration (the within-document part), which no correlation can express, is left alone.

    0 when the independent model already predicts at least the target (the copula cannot lower the
    variance), ``rho_max`` when even it predicts less."""
    from scipy.optimize import brentq

    _check_measure(measure)
    if target not in TARGETS:
        raise ValueError(f"target must be one of {list(TARGETS)}, got {target!r}")
    order = np.asarray(order)
    offsets = check_offsets(offsets, order.shape[0])
    losses = true_losses(labels, offsets, order, measure, max_grade=max_grade)
    if not 0.0 < rho_max < 1.0:
        raise ValueError(f"rho_max must be in (0, 1), got {rho_max!r}")
    if target == "cross":
        split = variance_split(labels, probs, offsets, order, measure, max_grade=max_grade)
        var0 = split["predicted_variance"]

    def gap(rho):
        mean, var = batch_mean_var_factor(probs, offsets, order, measure, rho, nodes=nodes)
        if target == "cross":
            return float(var.mean() - var0 - split["realized_cross"])
        return float(var.mean() - ((losses - mean) ** 2).mean())

    lo = gap(0.0)
    if lo >= 0.0:
        return 0.0
    if gap(rho_max) <= 0.0:
        return float(rho_max)
    return float(brentq(gap, 0.0, rho_max, xtol=xtol))


@njit(cache=True)
def _err_increments(offsets, stop_true, m):
    out = np.empty(stop_true.shape[0])
    for q in range(offsets.shape[0] - 1):
        lo, hi = offsets[q], offsets[q + 1]
        s = np.empty(hi - lo + 1)  # s[i] = S_i (0-based: after the first i documents)
        s[hi - lo] = 0.0
        for i in range(hi - lo, 0, -1):
            s[i - 1] = m[lo + i - 1] / i + (1.0 - m[lo + i - 1]) * s[i]
        p = 1.0
        for i in range(1, hi - lo + 1):
            e = lo + i - 1
            out[e] = p * (stop_true[e] - m[e]) * (1.0 / i - s[i])
            p *= 1.0 - stop_true[e]
    return out


def doob_increments(labels, probs, offsets, order, measure, *, max_grade: int) -> np.ndarray:
    """The realised increments ``D_i`` of the Doob martingale of ``L`` along each ranking (module
    docstring), one per entry of ``order``: per query they sum to ``L_x - E_theta[L | x]`` (Theorem 3's
    mean under the independent model ``probs``), and ``sum_i D_i^2`` has expectation
    ``Var_theta[L | x]`` under that model."""
    from evalrank.metrics.dcg import discount_values, gain_values
    from evalrank.metrics.err import stop_probability
    from evalrank.metrics.ranking import positions

    measure = _check_measure(measure)
    p = _check_probs(probs)
    order = np.asarray(order, dtype=np.int64)
    offsets = check_offsets(offsets, order.shape[0]).astype(np.int64)
    y = np.asarray(labels)[order]
    grades = np.arange(p.shape[1])
    if measure == "dcg":
        w = discount_values(positions(offsets) + 1.0)
        return w * (gain_values(y) - p[order] @ gain_values(grades))
    m = p[order] @ stop_probability(grades, max_grade)
    return _err_increments(offsets, stop_probability(y, max_grade), np.ascontiguousarray(m))


def variance_split(labels, probs, offsets, order, measure, *, max_grade: int) -> dict:
    """Mean over the queries of Theorem 3's predicted variance and of the realised squared error
    ``(L_x - E_theta[L | x])^2``, split into the within-document part ``sum_i D_i^2`` and the
    cross-document part (the rest) by :func:`doob_increments`; ratios to the predicted variance."""
    from evalrank.data.collection import segment_ids

    offsets = check_offsets(offsets, np.asarray(order).shape[0])
    mean, var = batch_mean_var(probs, offsets, order, measure)
    d = doob_increments(labels, probs, offsets, order, measure, max_grade=max_grade)
    seg = segment_ids(offsets)
    nq = len(offsets) - 1
    total = np.bincount(seg, weights=d, minlength=nq) ** 2
    within = np.bincount(seg, weights=d * d, minlength=nq)
    pv = float(var.mean())
    out = {"queries": nq, "predicted_variance": pv, "realized_squared_error": float(total.mean()),
           "realized_within": float(within.mean()), "realized_cross": float((total - within).mean())}
    for key in ("realized_squared_error", "realized_within", "realized_cross"):
        out[f"ratio_{key[len('realized_'):]}"] = out[key] / pv if pv > 0 else float("nan")
    return out
