"""Sorting documents within queries: the shared first step of every measure."""

from __future__ import annotations

import numpy as np

from evalrank.data.collection import segment_ids

__all__ = ["rank_order", "positions"]


def rank_order(scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Row permutation listing each query's documents by descending score.

    Queries stay in their order; ties keep the input order (a stable sort), so
    the result is deterministic. Returns int64 indices of length ``n_docs``.
    """
    n = scores.shape[0]
    seg = segment_ids(offsets)
    # lexsort: last key is primary -> (query, -score, input position)
    return np.lexsort((np.arange(n), -scores, seg))


def positions(offsets: np.ndarray) -> np.ndarray:
    """0-based rank position of each row of a query-sorted array."""
    n = int(offsets[-1])
    seg = segment_ids(offsets)
    return np.arange(n, dtype=np.int64) - offsets[:-1][seg]
