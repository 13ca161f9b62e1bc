"""Discounted Cumulative Gain (Järvelin & Kekäläinen 2002; Sawade et al. 2012, eq. 1).

``DCG@k = sum_{i<=k} g(y_{r_i}) / log2(i + 1)`` with ``g(y) = 2^y - 1`` ("exp",
Sawade eq. 1) or ``g(y) = y`` ("linear", trec_eval's gain).
"""

from __future__ import annotations

import numpy as np

from evalrank.data.collection import segment_ids
from evalrank.metrics._validate import check_k, check_ranked_input
from evalrank.metrics.ranking import positions, rank_order

__all__ = ["dcg", "gain_values", "dcg_sorted"]


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
    if labels.size and labels.max() >= table.size:
        raise ValueError(f"gain array has {table.size} entries but a label is {labels.max()}")
    return table[labels.astype(np.int64)]


def dcg_sorted(gains_sorted: np.ndarray, offsets: np.ndarray, k: int | None) -> np.ndarray:
    """Per-query DCG of gains already listed in rank order within each query."""
    pos = positions(offsets)
    contrib = gains_sorted / np.log2(pos + 2.0)
    if k is not None:
        contrib = np.where(pos < k, contrib, 0.0)
    return np.bincount(segment_ids(offsets), weights=contrib, minlength=len(offsets) - 1)


def dcg(scores, labels, offsets, k: int | None = None, *, gain="exp") -> np.ndarray:
    """Per-query DCG@k of the ranking induced by ``scores`` (eq. 1).

    Parameters
    ----------
    scores : (n_docs,) float, higher = ranked earlier; ties keep input order.
    labels : (n_docs,) int grades.
    offsets : (n_queries + 1,) query offsets.
    k : cut-off, ``None`` for the full list.
    gain : "exp" (2^y - 1), "linear" (y) or per-grade array.
    """
    scores, labels, offsets = check_ranked_input(scores, labels, offsets)
    k = check_k(k)
    order = rank_order(scores, offsets)
    return dcg_sorted(gain_values(labels[order], gain), offsets, k)
