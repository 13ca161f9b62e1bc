"""Discounted Cumulative Gain (Järvelin & Kekäläinen 2002; Sawade et al. 2012,
eq. 1; Busa-Fekete et al. 2012, eq. 2).

``DCG@k = sum_{i<=k} g(y_{r_i}) c_i`` with gain ``g(y) = 2^y - 1`` ("exp",
Busa-Fekete eq. 1 / Sawade eq. 1) or ``g(y) = y`` ("linear", trec_eval's gain:
the label itself) or a per-grade table, and discount ``c_i = 1/log2(i + 1)``
(Busa-Fekete eq. 3; the base cancels in NDCG) or any callable of the 1-based
rank.

One implementation for the package: :mod:`evalrank.active` uses
:func:`gain_values`, :func:`discount_values` and :func:`dcg_sorted`;
:func:`evalrank.metrics.ndcg.ndcg` uses :func:`dcg` and :func:`ideal_dcg`.
"""

from __future__ import annotations

import numba
import numpy as np

from evalrank.data.collection import segment_ids
from evalrank.metrics._validate import check_ranked_input
from evalrank.metrics.cutoffs import resolve_cutoff
from evalrank.metrics.discounts import Discount, parse_discount
from evalrank.metrics.ranking import (TOPK_MAX, equal_length, positions, rank_order, round_scores, tie_groups,
                                     topk_rows)

__all__ = ["dcg", "ideal_dcg", "gain_values", "discount_values", "cut_discount_row", "grade_counts",
           "ideal_from_counts", "dcg_sorted", "ranked_dcg"]


def gain_values(labels: np.ndarray, gain="exp") -> np.ndarray:
    """Gain of each label: ``"exp"`` = 2^y - 1, ``"linear"`` = y, or an array
    indexed by grade."""
    labels = np.asarray(labels)
    if isinstance(gain, str):
        if gain == "exp":
            return np.exp2(labels.astype(np.float64)) - 1.0
        if gain == "linear":
            return labels.astype(np.float64)
        raise ValueError(f"gain must be 'exp', 'linear' or an array of per-grade gains, got {gain!r}")
    table = np.asarray(gain, dtype=np.float64)
    if table.ndim != 1:
        raise ValueError("gain array must be 1-d, indexed by grade")
    if not np.isfinite(table).all() or (table < 0).any():
        raise ValueError("gain array must hold finite, non-negative gains")
    if labels.size and not np.issubdtype(labels.dtype, np.integer):
        if not np.array_equal(labels, np.floor(labels)):
            raise ValueError("a gain array needs integer grades as labels")
    if labels.size and labels.max() >= table.size:
        raise ValueError(f"gain array has {table.size} entries but a label is {labels.max()}")
    return table[labels.astype(np.int64)]


def discount_values(ranks: np.ndarray, discount="log2") -> np.ndarray:
    """Discount ``c_i`` of 1-based ranks ``i`` (Busa-Fekete eq. 3).

    A name of :mod:`evalrank.metrics.discounts` (``"log2"``: ``1 / log2(i + 1)``,
    ``"log"``, ``"poly:beta"``, ``"zipf"``, ``"geometric:p"``) or a callable gets the float64 array of
    1-based ranks and must return non-negative finite weights of the same
    shape (e.g. ``lambda r: r ** -1.0`` for Zipf).
    """
    ranks = np.asarray(ranks, dtype=np.float64)
    if isinstance(discount, (str, Discount)):
        return parse_discount(discount)(ranks)
    if not callable(discount):
        raise TypeError(f"discount must be a name (e.g. 'log2', 'poly:0.5') or a callable, got "
                        f"{type(discount).__name__}")
    out = np.asarray(discount(ranks), dtype=np.float64)
    if out.shape != ranks.shape:
        raise ValueError(f"discount callable returned shape {out.shape} for ranks of shape {ranks.shape}")
    if not np.isfinite(out).all() or (out < 0).any():
        raise ValueError("discount callable must return finite, non-negative weights")
    return out


def cut_discount_row(length: int, k, discount="log2") -> np.ndarray:
    """The discount of ranks 1..``length``, zero beyond the cut-off ``k``
    (None or an int)."""
    row = discount_values(np.arange(1, length + 1), discount)
    return row if k is None else np.where(np.arange(length) < int(k), row, 0.0)


def _cut_discount(offsets: np.ndarray, k, discount) -> np.ndarray:
    L = equal_length(offsets)
    if L:
        # equal-length queries (one long list, R samples of n): one discount row, tiled
        if isinstance(k, np.ndarray):
            row = cut_discount_row(L, None, discount)
            return np.where(np.arange(L)[None, :] < k[:, None], row[None, :], 0.0).ravel()
        return np.tile(cut_discount_row(L, k, discount), len(offsets) - 1)
    pos = positions(offsets)
    disc = discount_values(pos + 1.0, discount)
    if isinstance(k, np.ndarray):     # per-query cut-offs (evalrank.metrics.cutoffs)
        disc = np.where(pos < k[segment_ids(offsets)], disc, 0.0)
    elif k is not None:
        disc = np.where(pos < k, disc, 0.0)
    return disc


def dcg_sorted(gains_sorted: np.ndarray, offsets: np.ndarray, k: int | None, discount="log2") -> np.ndarray:
    """Per-query DCG of gains already listed in rank order within each query."""
    contrib = gains_sorted * _cut_discount(offsets, k, discount)
    return np.bincount(segment_ids(offsets), weights=contrib, minlength=len(offsets) - 1)


@numba.njit(parallel=True, cache=True)
def _sum_topk(gains, rows, out_off, disc):
    nq = out_off.shape[0] - 1
    out = np.zeros(nq)
    for q in numba.prange(nq):
        total = 0.0
        for r in range(out_off[q + 1] - out_off[q]):
            total += gains[rows[out_off[q] + r]] * disc[r]
        out[q] = total
    return out


def ranked_dcg(scores, gains, offsets, k, *, discount="log2", ties="stable", labels=None, doc_ids=None,
               docid_order="descending") -> np.ndarray:
    """Per-query DCG@k of ``gains`` ranked by ``scores`` under a tie rule
    (checked arrays; the shared kernel of :func:`dcg` and NDCG).

    ``ties="average"`` is the expectation over all orders within each group
    of tied scores: every document of a group gets the group's mean gain, so
    the group adds ``mean gain x sum of the (cut) discounts of the positions
    it spans`` -- McSherry & Najork (2008), as scikit-learn's ``ndcg_score``.
    """
    if isinstance(k, int) and k <= TOPK_MAX and ties != "average":
        # a top-k selection, no sort; for ties="docid" the ids are compared only where scores tie
        rows, out_off = topk_rows(scores, offsets, k, ties=ties, labels=labels, doc_ids=doc_ids,
                                  docid_order=docid_order)
        disc = discount_values(np.arange(1, k + 1), discount)
        return _sum_topk(np.ascontiguousarray(gains, dtype=np.float64), rows, out_off, disc)
    order = rank_order(scores, offsets, ties=ties, labels=labels, doc_ids=doc_ids, docid_order=docid_order)
    g = gains[order]
    disc = _cut_discount(offsets, k, discount)
    nq = len(offsets) - 1
    if ties != "average":
        return np.bincount(segment_ids(offsets), weights=g * disc, minlength=nq)
    grp = tie_groups(scores[order], offsets)
    n_groups = int(grp[-1]) + 1 if grp.size else 0
    count = np.bincount(grp, minlength=n_groups).astype(np.float64)
    gsum = np.bincount(grp, weights=g, minlength=n_groups)
    dsum = np.bincount(grp, weights=disc, minlength=n_groups)
    first = np.searchsorted(grp, np.arange(n_groups))
    return np.bincount(segment_ids(offsets)[first], weights=gsum * dsum / count, minlength=nq)


def grade_counts(labels, offsets, n_grades: int) -> np.ndarray:
    """(n_queries, n_grades) number of documents of each grade per query."""
    nq = len(offsets) - 1
    return np.bincount(segment_ids(offsets) * n_grades + np.asarray(labels).astype(np.int64),
                       minlength=nq * n_grades).reshape(nq, n_grades)


def ideal_from_counts(counts, table, cum, limit) -> np.ndarray:
    """Ideal DCG per query from grade ``counts`` (no sort): documents enter
    the ideal list by decreasing gain (``table[g]`` per grade), and a run of
    ``c`` documents of gain ``g`` starting at position ``s`` adds
    ``g x (C[min(s+c, limit)] - C[min(s, limit)])`` with ``cum`` = C the
    cumulative discount (C[0] = 0) and ``limit`` the per-query cut-off."""
    nq = counts.shape[0]
    out = np.zeros(nq)
    start = np.zeros(nq, dtype=np.int64)
    for g in np.argsort(-table, kind="stable"):  # a loop over grades, not queries
        end = start + counts[:, g]
        out += table[g] * (cum[np.minimum(end, limit)] - cum[np.minimum(start, limit)])
        start = end
    return out


def _grade_counts_ideal(labels, offsets, k, gain, discount, cap=None):
    """Ideal DCG@k from per-query grade counts (:func:`ideal_from_counts`)."""
    nq = len(offsets) - 1
    n_grades = int(labels.max()) + 1
    table = gain_values(np.arange(n_grades), gain)
    longest = int(np.diff(offsets).max())
    cum = np.concatenate(([0.0], np.cumsum(discount_values(np.arange(1, longest + 1), discount))))
    limit = np.full(nq, longest, dtype=np.int64) if k is None else np.broadcast_to(np.asarray(k, np.int64), (nq,))
    if cap is not None:
        limit = np.minimum(limit, cap)
    return ideal_from_counts(grade_counts(labels, offsets, n_grades), table, cum, limit)


def ideal_dcg(labels, offsets, k: int | None = None, *, gain="exp", discount="log2", cap=None) -> np.ndarray:
    """Per-query DCG@k of the best ordering of ``labels`` (the NDCG
    normaliser, Busa-Fekete Sec. 2 "IDCG"). ``cap`` (per query) truncates the
    ideal list further, e.g. at the length of a shorter ranked list."""
    labels = np.asarray(labels)
    offsets = np.asarray(offsets, dtype=np.int64)
    k = resolve_cutoff(k, np.diff(offsets))
    nq = len(offsets) - 1
    if labels.size == 0:
        return np.zeros(nq)
    integral = np.issubdtype(labels.dtype, np.integer) or np.array_equal(labels, np.floor(labels))
    if integral and labels.max() < 256:
        return _grade_counts_ideal(labels, offsets, k, gain, discount, cap)
    gains = gain_values(labels, gain)
    order = np.lexsort((-gains, segment_ids(offsets)))
    disc = _cut_discount(offsets, k, discount)
    if cap is not None:
        disc = np.where(positions(offsets) < np.asarray(cap)[segment_ids(offsets)], disc, 0.0)
    return np.bincount(segment_ids(offsets), weights=gains[order] * disc, minlength=nq)


def dcg(scores, labels, offsets, k: int | None = None, *, gain="exp", discount="log2", ties="stable",
        doc_ids=None, docid_order="descending", precision=None) -> np.ndarray:
    """Per-query DCG@k of the ranking induced by ``scores`` (Busa-Fekete eq. 2).

    Parameters
    ----------
    scores : (n_docs,) float, higher = ranked earlier.
    labels : (n_docs,) int grades.
    offsets : (n_queries + 1,) query offsets.
    k : cut-off: ``None`` (the full list), an int, a rule growing with the
        list (``"frac:c"``, ``"pow:a"``: :mod:`evalrank.metrics.cutoffs`) or a
        per-query int array.
    gain : "exp" (2^y - 1), "linear" (y) or per-grade array.
    discount : a name of :mod:`evalrank.metrics.discounts` ("log2", "log",
        "poly:beta", "zipf", "geometric:p") or a callable of the 1-based rank.
    ties : "stable" (input order), "pessimistic", "optimistic", "docid"
        (needs ``doc_ids``) or "average" (expectation over tie orders); see
        :mod:`evalrank.metrics.ranking`.
    precision : None or "float32": round scores before ranking.
    """
    scores, labels, offsets = check_ranked_input(scores, labels, offsets)
    k = resolve_cutoff(k, np.diff(offsets))
    scores = round_scores(scores, precision)
    return ranked_dcg(scores, gain_values(labels, gain), offsets, k, discount=discount, ties=ties,
                      labels=labels, doc_ids=doc_ids, docid_order=docid_order)
