"""Expected Reciprocal Rank (Chapelle et al. 2009; Sawade et al. 2012, eq. 2).

``ERR = sum_i (1/i) R(y_i) prod_{l<i} (1 - R(y_l))`` with
``R(y) = (2^y - 1) / 2^{y_max}``.
"""

from __future__ import annotations

import numpy as np

from evalrank.data.collection import segment_ids
from evalrank.metrics._validate import check_k, check_ranked_input
from evalrank.metrics.ranking import positions, rank_order

__all__ = ["err", "stop_probability", "err_sorted"]


def stop_probability(labels: np.ndarray, max_grade: int) -> np.ndarray:
    """``R(y) = (2^y - 1) / 2^{y_max}`` (Sawade eq. 2, ell_err)."""
    return (np.exp2(np.asarray(labels, dtype=np.float64)) - 1.0) / np.exp2(max_grade)


def err_sorted(stop_sorted: np.ndarray, offsets: np.ndarray, k: int | None) -> np.ndarray:
    """Per-query ERR of stop probabilities listed in rank order within queries."""
    seg = segment_ids(offsets)
    pos = positions(offsets)
    # P(reach position i) = prod_{l<i} (1 - R_l) as a segmented exclusive cumsum of logs.
    log_cont = np.log1p(-stop_sorted)
    csum = np.cumsum(log_cont)
    excl = csum - log_cont
    start = np.concatenate(([0.0], csum))[offsets[:-1]]
    reach = np.exp(excl - start[seg])
    contrib = stop_sorted * reach / (pos + 1.0)
    if k is not None:
        contrib = np.where(pos < k, contrib, 0.0)
    return np.bincount(seg, weights=contrib, minlength=len(offsets) - 1)


def err(scores, labels, offsets, k: int | None = None, *, max_grade: int = 4) -> np.ndarray:
    """Per-query ERR@k of the ranking induced by ``scores`` (eq. 2).

    ``max_grade`` is y_max of eq. 2 (4 for MSLR); labels above it are refused.
    """
    scores, labels, offsets = check_ranked_input(scores, labels, offsets)
    k = check_k(k)
    if isinstance(max_grade, bool) or not isinstance(max_grade, (int, np.integer)) or max_grade < 1:
        raise ValueError(f"max_grade must be a positive integer, got {max_grade!r}")
    if labels.size and labels.max() > max_grade:
        raise ValueError(f"labels must lie in 0..max_grade={max_grade}, found {labels.max()}")
    order = rank_order(scores, offsets)
    return err_sorted(stop_probability(labels[order], max_grade), offsets, k)
