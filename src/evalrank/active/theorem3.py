r"""Exact moments of DCG and ERR under a per-document graded-relevance model.

Sawade et al. (2012), "Active evaluation of ranking functions based on graded
relevance", eqs. 11-13 and Theorem 3. Labels are independent given the query
(eq. 3): document ``z`` (a row of ``probs``) has grade ``y_z ~ probs[z, :]``,
grades ``0 .. y_max`` with ``y_max = n_grades - 1``. For a ranking ``r`` (row
indices into ``probs``, no repeats) the functions return the mean
``E[L | x; theta]`` and the second moment about a centre ``c``,
``E[(L - c)^2 | x; theta]`` (eq. 13 with ``g = (L - c)^2``; ``c`` is the
introspective risk ``R_theta`` in eq. 11 or ``Delta_theta`` in eq. 12), of

* DCG (eq. 1): ``L = sum_i (2^{y_{r_i}} - 1) / log2(i + 1)``,
* ERR (eq. 2): ``L = sum_i (1/i) R(y_{r_i}) prod_{l<i} (1 - R(y_{r_l}))`` with
  ``R(y) = (2^y - 1) / 2^{y_max}``,

and of the difference ``delta = L(r_a, y) - L(r_b, y)`` of two rankings judged
with one shared label vector (documents may appear in one ranking, in both,
at any positions). A cut-off ``k`` keeps the first ``k`` documents of each
ranking (exactly ``DCG@k`` / ``ERR@k``). An empty ranking has ``L = 0``: mean 0,
second moment ``c^2``.

Everything is exact (no sampling). The second moment is returned as
``Var[L] + (E[L] - c)^2``, with the variance computed as a sum of
non-negative terms where possible, so that deterministic labels give exactly
zero variance and nothing is lost to ``E[L^2] - E[L]^2`` cancellation.

Per-document expectations (``O(|Y|)`` each, eq. 19): ``m = E[R]``,
``u = E[1 - R]`` (>= 2^{-y_max} > 0, the only divisor used anywhere),
``q = E[(1 - R)^2]``, ``h = E[R (1 - R)]``, ``s = E[R^2]`` and
``v = Var[R] = E[(R - m)^2]``; for DCG ``E[G]`` and ``Var[G]`` of the gain
``G = 2^y - 1``.

DCG, single (O(|Y| n)). A sum of independent terms:
``E[L] = sum_i w_i E[G_i]``, ``Var[L] = sum_i w_i^2 Var[G_i]``,
``w_i = 1 / log2(i + 1)``.

DCG, difference (O(|Y| |r_a u r_b|)). ``delta = sum_z (w_a(z) - w_b(z)) G_z``
over the union (``w_x(z) = 0`` when ``z`` is not in ranking ``x``), so
``Var[delta] = sum_z (w_a(z) - w_b(z))^2 Var[G_z]``.

ERR, single (O(|Y| n)). Instead of eq. 23's ratios of cumulative products
(which underflow to 0/0 on long lists and divide by ``E[R]``, possibly 0) we use
the backward recursion ``S_n = 0``, ``S_{i-1} = m_i / i + u_i S_i``: ``S_i`` is
the expected ERR contribution of positions ``> i`` given that the user got past
position ``i``, and ``E[L] = S_0`` (eq. 20). The Doob martingale of ``L`` along
the ranking, ``M_i = E[L | y_{r_1..r_i}] = sum_{t<=i} l_t + P_{i+1} S_i`` with
``P_i = prod_{l<i} (1 - R_l)``, has increments
``M_i - M_{i-1} = P_i (R_i - m_i) (1/i - S_i)``; they are uncorrelated and
``P_i`` is independent of ``R_i``, hence

    Var[L] = sum_i (prod_{l<i} q_l) v_i (1/i - S_i)^2,

a sum of non-negative terms equal to eqs. 21-23 minus ``E[L]^2``.

ERR, difference (O(|r_a| |r_b|)). ``Var[delta] = Var[L_a] + Var[L_b]
- 2 Cov[L_a, L_b]``, the variances as above; this is eq. 22's
``E[L_a^2] + E[L_b^2] - 2 E[L_a L_b]`` minus ``E[delta]^2``. With
``l^a_i = (1/i) R(a_i) prod_{l<i} (1 - R(a_l))`` and likewise ``l^b_j``,
independence (eq. 3) gives

    E[l^a_i l^b_j] = (1/(i j)) prod_z E[f^a_i(z) f^b_j(z)],

where a document's factor in ranking ``x`` is ``1 - R`` if it lies *before* the
position, ``R`` if it is *at* the position, ``1`` if it is *absent or after*.
Per document the expectation of the product of its two factors is ``u`` or
``m`` (in one ranking only), ``q`` (before/before), ``h`` (before/at or
at/before), ``s`` (at/at). We accumulate ``D_ij = prod E[f^a f^b] -
prod E[f^a] E[f^b]`` directly, so ``Cov = sum_ij D_ij / (i j)``: for a product
``X = prod x_z`` against ``Y = prod y_z`` (``y_z = E[f^a(z)] E[f^b(z)]``),
appending one factor gives ``X' - Y' = x (X - Y) + (x - y) Y``, and
``x - y = Cov[f^a(z), f^b(z)]`` is ``0`` for a document in one ranking only and
``+v`` (before/before, at/at) or ``-v`` (before/at) otherwise: only documents
shared by the two prefixes ever move ``D`` away from 0 (disjoint rankings give
exactly ``Cov = 0``). For fixed ``i`` start with ``Y = prod_{l<i} u(a_l)``
(``a_i``'s own factor ``m(a_i)`` is held aside) and ``D = 0``, and scan
``j = 1 .. |r_b|``. With ``p = `` the position of ``b_j`` in ``r_a`` (none if
absent), ``b_j``'s role for the term ``(i, j)`` is *at* and its update
``(x, y, x - y)`` is

* ``p`` none or ``p > i``: ``(m, m, 0)``;
* ``p < i``: ``a``'s ``u`` is replaced, ``(h/u, m, -v/u)``;
* ``p = i``: consumes the held factor, ``(s, m^2, v)``;

then, unless ``a_i`` has already appeared in ``b_1..b_j``, times the held
``m(a_i)``. After the term, ``b_j`` moves to role *before* for larger ``j``:
``(u, u, 0)``, ``(q/u, u, v/u)`` and ``(h, m u, -v)`` respectively (the last
consumes the held factor). One pass over ``j`` per ``i``: ``O(|r_a| |r_b|)``
time, ``O(1)`` extra memory, no division except by ``u``; ratios ``q/u``,
``h/u`` lie in ``[0, 1]``, so running products only shrink and underflow only
where the true value is below 1e-308. Identical rankings are recognised and
give ``delta = 0`` exactly.

This module validates and dispatches (the public functions, the batched cores); the numba kernels
that compute the above are :mod:`evalrank.active.theorem3_kernels`.
"""

from __future__ import annotations

import numbers

import numpy as np

from evalrank.active.theorem3_kernels import (_dcg_stats, _err_diff_kernel, _err_single_kernel, _err_stats,
                                              _first_bad_row, _first_repeat, _match)
from evalrank.data.collection import check_offsets, segment_ids
from evalrank.metrics._validate import check_k
from evalrank.metrics.dcg import discount_values, gain_values
from evalrank.metrics.err import stop_probability
from evalrank.metrics.ranking import positions

__all__ = ["MEASURES", "moments", "difference_moments", "batch_moments", "batch_difference_moments",
           "batch_mean_var", "batch_difference_mean_var"]

MEASURES = ("dcg", "err")
ROW_SUM_TOL = 1e-6


# --------------------------------------------------------------------------
# validation (public edge only; kernels trust their input)
# --------------------------------------------------------------------------
def _check_probs(probs) -> np.ndarray:
    p = np.asarray(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must be a 2-d array (n_docs, n_grades), got shape {p.shape}")
    if not (np.issubdtype(p.dtype, np.floating) or np.issubdtype(p.dtype, np.integer)):
        raise TypeError(f"probs must be a numeric (float) array, got dtype {p.dtype}")
    if p.shape[1] < 2:
        raise ValueError(f"probs must have at least 2 grade columns (n_grades >= 2), got {p.shape[1]}")
    p = np.ascontiguousarray(p, dtype=np.float64)
    if p.size == 0:
        return p
    row, problem = _first_bad_row(p, ROW_SUM_TOL)
    if problem == 1:
        raise ValueError(f"probs row {row} contains a non-finite value: {p[row].tolist()}")
    if problem == 2:
        raise ValueError(f"probs must be non-negative; row {row} is {p[row].tolist()}")
    if problem == 3:
        raise ValueError(
            f"probs rows must sum to 1 (tolerance {ROW_SUM_TOL:g}); row {row} sums to {float(p[row].sum()):.12g}"
        )
    return p


def _check_measure(measure) -> str:
    if not isinstance(measure, str) or measure not in MEASURES:
        raise ValueError(f"measure must be one of {', '.join(repr(m) for m in MEASURES)}; got {measure!r}")
    return measure


def _check_scalar_center(center) -> float:
    if isinstance(center, np.ndarray) and center.ndim == 0:
        center = center[()]
    if isinstance(center, (bool, np.bool_)) or not isinstance(center, numbers.Real):
        raise TypeError(f"center must be a real number, got {center!r}")
    c = float(center)
    if not np.isfinite(c):
        raise ValueError(f"center must be finite, got {c!r}")
    return c


def _check_batch_center(center, n_queries: int) -> np.ndarray:
    if np.ndim(center) == 0:
        return np.full(n_queries, _check_scalar_center(center))
    c = np.asarray(center)
    if not (np.issubdtype(c.dtype, np.floating) or np.issubdtype(c.dtype, np.integer)):
        raise TypeError(f"center must be a real number or a real array, got dtype {c.dtype}")
    if c.shape != (n_queries,):
        raise ValueError(f"center must be a scalar or have shape (n_queries,) = ({n_queries},), got {c.shape}")
    c = c.astype(np.float64)
    finite = np.isfinite(c)
    if not finite.all():
        q = int(np.argmin(finite))
        raise ValueError(f"center must be finite; center[{q}] is {float(c[q])!r}")
    return c


def _check_index_array(order, n_docs: int, name: str) -> np.ndarray:
    r = np.asarray(order)
    if r.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array of row indices into probs, got shape {r.shape}")
    if r.size == 0:
        return np.zeros(0, dtype=np.int64)
    if not np.issubdtype(r.dtype, np.integer):
        raise TypeError(f"{name} must contain integer row indices into probs, got dtype {r.dtype}")
    r = r.astype(np.int64, copy=False)
    bad = (r < 0) | (r >= n_docs)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name}[{i}] = {int(r[i])} is out of range for probs with {n_docs} rows")
    return np.ascontiguousarray(r)


def _check_no_repeats(offsets, order, n_docs: int, name: str, batched: bool) -> None:
    q, row = _first_repeat(n_docs, offsets, order)
    if q >= 0:
        where = f" in query {q} ({name}[{offsets[q]}:{offsets[q + 1]}])" if batched else ""
        raise ValueError(f"{name} lists document (probs row) {row} more than once{where}")


# --------------------------------------------------------------------------
# batched cores (validated input)
# --------------------------------------------------------------------------
def _truncate(offsets, order, k):
    if k is None:
        return offsets, order
    sizes = np.minimum(np.diff(offsets), k)
    if np.array_equal(sizes, np.diff(offsets)):
        return offsets, order
    new_offsets = np.zeros_like(offsets)
    np.cumsum(sizes, out=new_offsets[1:])
    return new_offsets, np.ascontiguousarray(order[positions(offsets) < k])


def _grade_tables(n_grades):
    grades = np.arange(n_grades)
    return gain_values(grades), stop_probability(grades, n_grades - 1)


def _single_core(probs, offsets, order, measure):
    """Per-query (mean, variance) of L."""
    nq = len(offsets) - 1
    gain, stop = _grade_tables(probs.shape[1])
    if measure == "dcg":
        eg, vg = _dcg_stats(probs, order, gain)
        seg = segment_ids(offsets)
        disc = discount_values(positions(offsets) + 1.0)
        mean = np.bincount(seg, weights=eg * disc, minlength=nq)  # as metrics.dcg_sorted
        var = np.bincount(seg, weights=vg * (disc * disc), minlength=nq)
        return mean, var
    m, u, q, _h, _s, v = _err_stats(probs, order, stop)
    return _err_single_kernel(offsets, m, u, q, v)


def _difference_core(probs, off_a, order_a, off_b, order_b, measure):
    """Per-query (mean, variance) of delta = L(r_a) - L(r_b)."""
    nq = len(off_a) - 1
    gain, stop = _grade_tables(probs.shape[1])
    pos_a_of_b, pos_b_of_a = _match(probs.shape[0], off_a, order_a, off_b, order_b)
    if measure == "dcg":
        eg_a, vg_a = _dcg_stats(probs, order_a, gain)
        eg_b, vg_b = _dcg_stats(probs, order_b, gain)
        w_a = discount_values(positions(off_a) + 1.0)
        w_b_of_a = np.where(pos_b_of_a >= 0, discount_values(np.maximum(pos_b_of_a, 0) + 1.0), 0.0)
        coef_a = w_a - w_b_of_a  # exactly 0 for a document at the same place in both
        only_b = pos_a_of_b < 0
        w_b = np.where(only_b, discount_values(positions(off_b) + 1.0), 0.0)
        seg_a, seg_b = segment_ids(off_a), segment_ids(off_b)
        mean = np.bincount(seg_a, weights=coef_a * eg_a, minlength=nq)
        mean -= np.bincount(seg_b, weights=w_b * eg_b, minlength=nq)
        var = np.bincount(seg_a, weights=coef_a * coef_a * vg_a, minlength=nq)
        var += np.bincount(seg_b, weights=w_b * w_b * vg_b, minlength=nq)
        return mean, var
    ma, ua, qa, _ha, _sa, va = _err_stats(probs, order_a, stop)
    mb, ub, qb, hb, sb, vb = _err_stats(probs, order_b, stop)
    return _err_diff_kernel(off_a, ma, ua, qa, va, off_b, mb, ub, qb, hb, sb, vb, pos_a_of_b)


def _second(mean, var, center):
    return var + (mean - center) ** 2


# --------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------
def batch_moments(probs, offsets, order, measure, center=0.0, k=None):
    """Per-query mean and second moment about ``center`` of DCG or ERR.

    Parameters
    ----------
    probs : (n_docs, n_grades) label distribution of every document (rows sum to 1).
    offsets : (n_queries + 1,) int; query ``q``'s ranking is ``order[offsets[q]:offsets[q+1]]``.
    order : (offsets[-1],) int row indices into ``probs`` in rank order within each
        query (e.g. ``rank_order(scores, offsets)``); no row twice within a query.
    measure : "dcg" or "err".
    center : scalar or (n_queries,) array ``c``.
    k : cut-off (first ``k`` documents of each ranking) or None.

    Returns
    -------
    mean, second : (n_queries,) float arrays, ``E[L]`` and ``E[(L - c)^2]``.
    """
    mean, var = batch_mean_var(probs, offsets, order, measure, k=k)
    return mean, _second(mean, var, _check_batch_center(center, len(mean)))


def batch_mean_var(probs, offsets, order, measure, k=None):
    """Per-query ``E[L]`` and ``Var[L]`` (arguments as :func:`batch_moments`).

    The second moment about any centre ``c`` is ``Var[L] + (E[L] - c)^2``;
    q* (eq. 11) needs the centre ``R_theta = mean(E[L])``, known only after
    the means, so :mod:`evalrank.active.sampling` calls this once.
    """
    probs = _check_probs(probs)
    measure = _check_measure(measure)
    k = check_k(k)
    order = _check_index_array(order, probs.shape[0], "order")
    offsets = check_offsets(offsets, order.shape[0], name="offsets")
    _check_no_repeats(offsets, order, probs.shape[0], "order", batched=True)
    offsets, order = _truncate(offsets, order, k)
    return _single_core(probs, offsets, order, measure)


def batch_difference_moments(probs, offsets_a, order_a, offsets_b, order_b, measure, center=0.0, k=None):
    """Per-query mean and second moment about ``center`` of
    ``delta = L(r_a, y) - L(r_b, y)`` with one shared label vector per query.

    ``offsets_a``/``order_a`` and ``offsets_b``/``order_b`` describe the two
    rankings of every query as in :func:`batch_moments` (lengths may differ per
    query; both index rows of the same ``probs``). ERR costs
    ``O(|r_a| |r_b|)`` per query, DCG ``O(|r_a| + |r_b|)``; see the module
    docstring for the derivation.
    """
    mean, var = batch_difference_mean_var(probs, offsets_a, order_a, offsets_b, order_b, measure, k=k)
    return mean, _second(mean, var, _check_batch_center(center, len(mean)))


def batch_difference_mean_var(probs, offsets_a, order_a, offsets_b, order_b, measure, k=None):
    """Per-query ``E[delta]`` and ``Var[delta]`` (arguments as :func:`batch_difference_moments`)."""
    probs = _check_probs(probs)
    measure = _check_measure(measure)
    k = check_k(k)
    n = probs.shape[0]
    order_a = _check_index_array(order_a, n, "order_a")
    order_b = _check_index_array(order_b, n, "order_b")
    offsets_a = check_offsets(offsets_a, order_a.shape[0], name="offsets_a")
    offsets_b = check_offsets(offsets_b, order_b.shape[0], name="offsets_b")
    if len(offsets_a) != len(offsets_b):
        raise ValueError(
            f"offsets_a and offsets_b must describe the same number of queries, "
            f"got {len(offsets_a) - 1} and {len(offsets_b) - 1}"
        )
    _check_no_repeats(offsets_a, order_a, n, "order_a", batched=True)
    _check_no_repeats(offsets_b, order_b, n, "order_b", batched=True)
    offsets_a, order_a = _truncate(offsets_a, order_a, k)
    offsets_b, order_b = _truncate(offsets_b, order_b, k)
    return _difference_core(probs, offsets_a, order_a, offsets_b, order_b, measure)


def _one_query(ranking, n_docs, name):
    r = _check_index_array(ranking, n_docs, name)
    offsets = np.array([0, r.shape[0]], dtype=np.int64)
    _check_no_repeats(offsets, r, n_docs, name, batched=False)
    return offsets, r


def moments(probs, ranking, measure, center=0.0, k=None):
    """Mean ``E[L | x; theta]`` and second moment ``E[(L - center)^2 | x; theta]``
    of DCG or ERR (Sawade et al. 2012, eqs. 1, 2, 13) for one query.

    ``probs[z, g] = p(y_z = g)`` (rows sum to 1, ``y_max = n_grades - 1``),
    ``ranking`` lists row indices of ``probs`` best first, ``measure`` is
    ``"dcg"`` or ``"err"``, ``k`` an optional cut-off. Returns two floats.
    """
    probs = _check_probs(probs)
    measure = _check_measure(measure)
    k = check_k(k)
    c = _check_scalar_center(center)
    offsets, r = _one_query(ranking, probs.shape[0], "ranking")
    offsets, r = _truncate(offsets, r, k)
    mean, var = _single_core(probs, offsets, r, measure)
    return float(mean[0]), float(_second(mean[0], var[0], c))


def difference_moments(probs, ranking_a, ranking_b, measure, center=0.0, k=None):
    """Mean and second moment about ``center`` of ``delta = L(r_a, y) - L(r_b, y)``
    for one query, both rankings judged with one label vector ``y`` over the
    union of their documents (eq. 12). The rankings may share any subset of
    documents in any order. Returns two floats.
    """
    probs = _check_probs(probs)
    measure = _check_measure(measure)
    k = check_k(k)
    c = _check_scalar_center(center)
    off_a, ra = _one_query(ranking_a, probs.shape[0], "ranking_a")
    off_b, rb = _one_query(ranking_b, probs.shape[0], "ranking_b")
    off_a, ra = _truncate(off_a, ra, k)
    off_b, rb = _truncate(off_b, rb, k)
    mean, var = _difference_core(probs, off_a, ra, off_b, rb, measure)
    return float(mean[0]), float(_second(mean[0], var[0], c))
