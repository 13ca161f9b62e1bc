"""Normalized DCG: DCG@k of the ranking over DCG@k of the ideal ranking.

Queries whose ideal DCG is 0 (no relevant document) get ``empty`` (default 0.0,
as trec_eval and scikit-learn; LightGBM uses 1.0), or NaN with ``empty="skip"``
so that ``np.nanmean`` leaves them out of a mean.
"""

from __future__ import annotations

import numpy as np

from evalrank.metrics._validate import check_k, check_ranked_input
from evalrank.metrics.dcg import dcg_sorted, gain_values
from evalrank.metrics.ranking import rank_order

__all__ = ["ndcg"]


def ndcg(scores, labels, offsets, k: int | None = None, *, gain="exp", empty=0.0) -> np.ndarray:
    """Per-query NDCG@k of the ranking induced by ``scores``.

    Parameters
    ----------
    scores, labels, offsets : flat arrays + query offsets.
    k : cut-off; ``None`` = full list.
    gain : "exp" (2^y - 1), "linear" or per-grade array.
    empty : value for queries with no relevant document: a float, or "skip" (NaN).
    """
    scores, labels, offsets = check_ranked_input(scores, labels, offsets)
    k = check_k(k)
    if empty == "skip":
        empty_value = np.nan
    elif isinstance(empty, (int, float)) and not isinstance(empty, bool):
        empty_value = float(empty)
    else:
        raise ValueError(f"empty must be a number or 'skip', got {empty!r}")
    gains = gain_values(labels, gain)
    actual = dcg_sorted(gains[rank_order(scores, offsets)], offsets, k)
    ideal = dcg_sorted(gains[rank_order(gains, offsets)], offsets, k)
    out = np.full(len(offsets) - 1, empty_value)
    ok = ideal > 0
    out[ok] = actual[ok] / ideal[ok]
    return out
