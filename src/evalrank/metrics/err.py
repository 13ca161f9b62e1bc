"""Expected Reciprocal Rank (Chapelle et al. 2009; Sawade et al. 2012, eq. 2).

``ERR = sum_i (1/i) R(y_i) prod_{l<i} (1 - R(y_l))`` with
``R(y) = (2^y - 1) / 2^{y_max}``.
"""

from __future__ import annotations

import numba
import numpy as np

from evalrank.metrics._validate import check_k, check_ranked_input
from evalrank.metrics.ranking import TOPK_MAX, rank_order, round_scores, topk_rows

__all__ = ["err", "stop_probability", "err_sorted"]


def stop_probability(labels: np.ndarray, max_grade: int) -> np.ndarray:
    """``R(y) = (2^y - 1) / 2^{y_max}`` (Sawade eq. 2, ell_err)."""
    return (np.exp2(np.asarray(labels, dtype=np.float64)) - 1.0) / np.exp2(max_grade)


@numba.njit(cache=True)
def _err_segments(stop_sorted, offsets, k):
    nq = offsets.shape[0] - 1
    out = np.zeros(nq)
    for q in range(nq):
        lo = offsets[q]
        hi = offsets[q + 1]
        if k >= 0 and hi - lo > k:
            hi = lo + k
        reach = 1.0  # prod_{l<i} (1 - R_l), a running product within the query
        total = 0.0
        for j in range(lo, hi):
            total += stop_sorted[j] * reach / (j - lo + 1.0)
            reach *= 1.0 - stop_sorted[j]
        out[q] = total
    return out


def err_sorted(stop_sorted: np.ndarray, offsets: np.ndarray, k: int | None) -> np.ndarray:
    """Per-query ERR of stop probabilities listed in rank order within queries.

    One running product per query (a compiled loop), so the result does not
    depend on how many queries precede it in the flat array.
    """
    stop_sorted = np.ascontiguousarray(stop_sorted, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    return _err_segments(stop_sorted, offsets, -1 if k is None else int(k))


def err(scores, labels, offsets, k: int | None = None, *, max_grade: int = 4, ties: str = "stable",
        doc_ids=None, docid_order: str = "descending", precision=None) -> np.ndarray:
    """Per-query ERR@k of the ranking induced by ``scores`` (eq. 2).

    ``max_grade`` is y_max of eq. 2 (4 for MSLR); labels above it are refused.
    ``ties``/``doc_ids``/``docid_order``/``precision`` as for
    :func:`evalrank.metrics.dcg.dcg`, except ``ties="average"`` (ERR is not
    linear in the positions' weights; ask for "pessimistic" and "optimistic"
    to bound it).
    """
    scores, labels, offsets = check_ranked_input(scores, labels, offsets)
    k = check_k(k)
    if isinstance(max_grade, bool) or not isinstance(max_grade, (int, np.integer)) or not 1 <= max_grade <= 1023:
        raise ValueError(f"max_grade must be an integer from 1 to 1023 (2**max_grade a finite double), "
                         f"got {max_grade!r}")
    if labels.size and labels.max() > max_grade:
        raise ValueError(f"labels must lie in 0..max_grade={max_grade}, found {labels.max()}")
    if ties == "average":
        raise ValueError("ties='average' is not defined for ERR; use 'pessimistic'/'optimistic' bounds")
    scores = round_scores(scores, precision)
    if k is not None and k <= TOPK_MAX:  # only the top k matter: a selection, no sort
        rows, top_off = topk_rows(scores, offsets, k, ties=ties, labels=labels, doc_ids=doc_ids,
                                  docid_order=docid_order)
        return err_sorted(stop_probability(labels[rows], max_grade), top_off, k)
    order = rank_order(scores, offsets, ties=ties, labels=labels, doc_ids=doc_ids, docid_order=docid_order)
    return err_sorted(stop_probability(labels[order], max_grade), offsets, k)
