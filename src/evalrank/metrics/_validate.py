"""Argument checks shared by the public metric functions (kept out of kernels)."""

from __future__ import annotations

import numpy as np

from evalrank.data.collection import check_offsets


def check_ranked_input(scores, labels, offsets):
    scores = np.asarray(scores)
    labels = np.asarray(labels)
    if scores.ndim != 1:
        raise ValueError(f"scores must be 1-d (n_docs,), got shape {scores.shape}")
    if labels.shape != scores.shape:
        raise ValueError(f"labels must have the same shape as scores {scores.shape}, got {labels.shape}")
    if not np.issubdtype(scores.dtype, np.number):
        raise TypeError(f"scores must be numeric, got dtype {scores.dtype}")
    if not np.issubdtype(labels.dtype, np.number):
        raise TypeError(f"labels must be numeric, got dtype {labels.dtype}")
    if np.issubdtype(scores.dtype, np.floating) and np.isnan(scores).any():
        raise ValueError("scores contain NaN")
    check_grades(labels, "labels")
    offsets = check_offsets(offsets, scores.shape[0])
    return scores.astype(np.float64, copy=False), labels, offsets


def check_grades(labels, name: str = "labels") -> np.ndarray:
    """Relevance grades: non-negative integers (an integer dtype, or floats that are
    whole numbers; NaN, inf and fractions are refused, not silently scored)."""
    labels = np.asarray(labels)
    if not np.issubdtype(labels.dtype, np.number) or np.issubdtype(labels.dtype, np.complexfloating):
        raise TypeError(f"{name} must be numeric grades, got dtype {labels.dtype}")
    if np.issubdtype(labels.dtype, np.floating) and labels.size:
        bad = ~np.isfinite(labels) | (labels != np.floor(labels))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{name} must be integer grades; {name}[{i}] = {labels[i].item()!r}"
                             + (f" ({int(bad.sum())} such values)" if bad.sum() > 1 else ""))
    if labels.size and labels.min() < 0:
        raise ValueError(f"{name} must be non-negative grades, found {labels.min()!r}")
    return labels


def check_k(k):
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer or None, got {k!r}")
    return int(k)
