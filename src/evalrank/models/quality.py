"""Quality of a ranking model and of its grade probabilities.

Active evaluation (Sawade et al. 2012, Sec. 4) replaces the unknown
``p(y | x, z)`` by a model ``p(y | x, z; theta)``; the estimator stays
unbiased whatever the model, but its variance depends on how good the model
is. This module reports both sides for a model on held-out data:

* ranking quality: mean NDCG@10 (Sawade eq. 1 gains ``2^y - 1``; queries
  without a relevant document count 0) and mean ERR over the full list
  (Sawade eq. 2);
* probability quality: log loss, top-label expected calibration error and
  the RMSE of the expected grade; :func:`reliability` gives the data of a
  per-grade reliability diagram.
"""

from __future__ import annotations

import numpy as np

from evalrank import seeds
from evalrank.data.collection import check_offsets

__all__ = ["DEFAULT_K", "quality_row", "reliability", "random_baseline", "top_label_ece", "log_loss"]

_CLIP = 1e-15
#: NDCG cut-off of the library API when no k is given (quality_row, random_baseline). The
#: workflow always passes quality.k from the config (its default lives in the schema).
DEFAULT_K = 10


def _check_probs(probs, labels, max_grade=None):
    probs = np.asarray(probs)
    labels = np.asarray(labels)
    if probs.ndim != 2:
        raise ValueError(f"probs must be 2-d (n_docs, n_grades), got shape {probs.shape}")
    if not np.issubdtype(probs.dtype, np.floating):
        raise TypeError(f"probs must be floating point, got dtype {probs.dtype}")
    if labels.ndim != 1 or labels.shape[0] != probs.shape[0]:
        raise ValueError(f"labels must be 1-d with {probs.shape[0]} entries (one per row of probs), got shape {labels.shape}")
    if not np.issubdtype(labels.dtype, np.integer):
        raise TypeError(f"labels must be integer grades, got dtype {labels.dtype}")
    n_grades = probs.shape[1]
    if max_grade is not None and n_grades < max_grade + 1:
        raise ValueError(f"probs must have at least max_grade + 1 = {max_grade + 1} columns, got {n_grades}")
    if labels.size and (labels.min() < 0 or labels.max() >= n_grades):
        raise ValueError(f"labels must lie in 0..{n_grades - 1} (columns of probs), found {labels.min()}..{labels.max()}")
    if not np.isfinite(probs).all():
        raise ValueError("probs contain NaN or infinite values")
    if probs.size and (probs.min() < 0 or not np.allclose(probs.sum(axis=1), 1.0, rtol=0, atol=1e-6)):
        raise ValueError("probs rows must be non-negative and sum to 1")
    return probs.astype(np.float64, copy=False), labels.astype(np.int64, copy=False)


def log_loss(probs, labels) -> float:
    """Mean ``-log p(true grade)``, probabilities clipped below at 1e-15."""
    probs, labels = _check_probs(probs, labels)
    p = probs[np.arange(labels.size), labels]
    return float(np.mean(-np.log(np.maximum(p, _CLIP))))


def top_label_ece(probs, labels, n_bins: int = 15) -> float:
    """Top-label expected calibration error (Guo et al. 2017).

    Confidence = the largest probability of a row, prediction = its grade
    (the lowest grade on ties); the confidences are put into ``n_bins``
    equal-width bins ``(b/n, (b+1)/n]`` of ``[0, 1]`` (the first bin also
    takes 0), and ``ECE = sum_b (n_b / n) |accuracy_b - mean confidence_b|``.
    """
    probs, labels = _check_probs(probs, labels)
    n_bins = _check_bins(n_bins)
    if labels.size == 0:
        return float("nan")
    conf = probs.max(axis=1)
    correct = (probs.argmax(axis=1) == labels).astype(np.float64)
    b = _bin_index(conf, n_bins)
    gap = np.abs(np.bincount(b, weights=correct, minlength=n_bins) - np.bincount(b, weights=conf, minlength=n_bins))
    return float(gap.sum() / labels.size)  # sum_b n_b/n |acc_b - conf_b| = sum_b |S_acc - S_conf| / n


def _check_bins(n_bins):
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    return int(n_bins)


def _check_k(k):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    return int(k)


def _bin_index(p: np.ndarray, n_bins: int) -> np.ndarray:
    """Right-closed equal-width bins ``(b/n, (b+1)/n]``; 0 goes to bin 0."""
    return np.clip(np.ceil(p * n_bins).astype(np.int64) - 1, 0, n_bins - 1)


def quality_row(scores, probs, labels, offsets, *, max_grade: int = 4, k: int = DEFAULT_K, ece_bins: int = 15) -> dict:
    """One row of the model-quality table.

    Returns ``ndcg@{k}`` (mean over queries; queries without a relevant
    document give 0), ``err`` (mean ERR over the full list, ``y_max =
    max_grade``), ``log_loss`` (mean ``-log p(true grade)``, clipped at
    1e-15), ``ece`` (top-label ECE, ``ece_bins`` equal-width bins, see
    :func:`top_label_ece`), ``expected_grade_rmse`` (RMSE of ``sum_k k p_k``
    against the true grade), ``n_queries``, ``n_docs``.
    """
    from evalrank.metrics import err, ndcg

    if isinstance(max_grade, bool) or not isinstance(max_grade, (int, np.integer)) or max_grade < 1:
        raise ValueError(f"max_grade must be a positive integer, got {max_grade!r}")
    probs, labels = _check_probs(probs, labels, max_grade)
    offsets = check_offsets(offsets, labels.size)
    scores = np.asarray(scores)
    if scores.shape != labels.shape:
        raise ValueError(f"scores must have shape {labels.shape} (one per document), got {scores.shape}")
    k = _check_k(k)
    ece_bins = _check_bins(ece_bins)
    n_queries = len(offsets) - 1
    eg = (probs * np.arange(probs.shape[1], dtype=np.float64)).sum(axis=1)
    return {
        f"ndcg@{k}": float(np.mean(ndcg(scores, labels, offsets, k=k))) if n_queries else float("nan"),
        "err": float(np.mean(err(scores, labels, offsets, max_grade=max_grade))) if n_queries else float("nan"),
        "log_loss": log_loss(probs, labels) if labels.size else float("nan"),
        "ece": top_label_ece(probs, labels, ece_bins),
        "expected_grade_rmse": float(np.sqrt(np.mean((eg - labels) ** 2))) if labels.size else float("nan"),
        "n_queries": int(n_queries),
        "n_docs": int(labels.size),
    }


def reliability(probs, labels, n_bins: int = 10):
    """Per-grade reliability-diagram data as a ``pandas.DataFrame``.

    For every grade ``k`` and every equal-width bin ``(b/n, (b+1)/n]`` of the
    predicted ``p_k``: ``mean_pred`` (mean predicted ``p_k`` in the bin),
    ``obs_freq`` (share of its documents whose grade is ``k``) and ``count``.
    All ``n_grades * n_bins`` rows are present; empty bins have count 0 and
    NaN means. Columns: grade, bin, bin_lo, bin_hi, mean_pred, obs_freq, count.
    """
    import pandas as pd

    probs, labels = _check_probs(probs, labels)
    n_bins = _check_bins(n_bins)
    rows = []
    for k in range(probs.shape[1]):
        p = probs[:, k]
        b = _bin_index(p, n_bins)
        count = np.bincount(b, minlength=n_bins)
        s_pred = np.bincount(b, weights=p, minlength=n_bins)
        s_obs = np.bincount(b, weights=(labels == k).astype(np.float64), minlength=n_bins)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_pred = np.where(count > 0, s_pred / count, np.nan)
            obs = np.where(count > 0, s_obs / count, np.nan)
        for i in range(n_bins):
            rows.append((k, i, i / n_bins, (i + 1) / n_bins, mean_pred[i], obs[i], int(count[i])))
    return pd.DataFrame(rows, columns=["grade", "bin", "bin_lo", "bin_hi", "mean_pred", "obs_freq", "count"])


def random_baseline(labels, offsets, seed: int, *, n_draws: int = 20, max_grade: int = 4, k: int = DEFAULT_K) -> dict:
    """Mean NDCG@k and ERR of a uniformly random ranking.

    Averaged over ``n_draws`` independent uniformly random orders within each
    query (i.i.d. uniform scores, stream ``seeds.rng(seed, "random_baseline")``)
    so the baseline is close to its expectation. Returns ``{"ndcg@{k}": ..., "err": ...,
    "n_draws": ...}``.
    """
    from evalrank.metrics import err, ndcg

    labels = np.asarray(labels)
    if labels.ndim != 1 or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError("labels must be a 1-d integer array")
    offsets = check_offsets(offsets, labels.size)
    if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
        raise ValueError(f"n_draws must be a positive integer, got {n_draws!r}")
    if len(offsets) == 1:
        raise ValueError("offsets must describe at least one query")
    k = _check_k(k)
    gen = seeds.rng(seed, "random_baseline")
    n_docs, n_queries = labels.size, len(offsets) - 1
    # several draws at once as one stacked collection (bounded memory)
    per_block = max(1, 2_000_000 // max(n_docs, 1))
    nd_sum = er_sum = 0.0
    done = 0
    while done < n_draws:
        b = min(per_block, n_draws - done)
        s = gen.random(b * n_docs)
        lab = np.tile(labels, b)
        off = (offsets[None, 1:] + n_docs * np.arange(b)[:, None]).ravel()
        off = np.concatenate([[0], off])
        nd_sum += float(np.sum(ndcg(s, lab, off, k=k)))
        er_sum += float(np.sum(err(s, lab, off, max_grade=max_grade)))
        done += b
    nd = nd_sum / (n_draws * n_queries)
    er = er_sum / (n_draws * n_queries)
    return {f"ndcg@{k}": float(nd), "err": float(er), "n_draws": int(n_draws)}
