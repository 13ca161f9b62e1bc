"""Helpers shared by the pairwise learners (RankNet, RankBoost).

* :func:`training_pairs` -- within-query "crucial pairs" (Freund et al.
  2003, Sec. 2: ``(x0, x1)`` with ``x1`` preferred, i.e. a higher grade in
  the same query), drawn uniformly without replacement and capped, with the
  sampler of :mod:`evalrank.models.ranksvm` (no Python loop per pair or per
  query; the ``sum_q n_q^2`` pair space is never materialized when capped).
* :func:`check_int`, :func:`check_float`, :func:`check_choice` --
  hyperparameter checks whose ``ValueError`` names the parameter.
"""

from __future__ import annotations

import numpy as np

from evalrank.models.ranksvm import count_pairs, sample_pairs

__all__ = ["training_pairs", "count_pairs", "check_int", "check_float", "check_choice"]


def training_pairs(labels, offsets, max_pairs: int, rng: np.random.Generator,
                   n_grades: int) -> tuple[np.ndarray, np.ndarray]:
    """``(hi, lo)`` row indices with ``labels[hi] > labels[lo]`` in the same
    query: all such pairs (in random order) when there are at most
    ``max_pairs``, else a uniform sample of ``max_pairs`` of them.

    Raises ``ValueError`` when no query has two documents with different
    grades (a pairwise learner has nothing to learn from).
    """
    hi, lo = sample_pairs(np.asarray(labels, dtype=np.int64), offsets, int(max_pairs), rng, n_grades)
    if hi.size == 0:
        raise ValueError("train has no within-query pair of documents with different grades")
    return hi, lo


def check_int(params: dict, name: str, lo: int, hi: int | None = None) -> int:
    """``params[name]`` as an int in ``[lo, hi]`` (bool rejected)."""
    value = params[name]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo or (
            hi is not None and value > hi):
        rng = f"in {lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be an integer {rng}, got {value!r}")
    return int(value)


def check_float(params: dict, name: str, lo: float, hi: float | None = None, *, lo_open: bool = False) -> float:
    """``params[name]`` as a finite float in ``[lo, hi]`` (``(lo, hi]`` if
    ``lo_open``)."""
    value = params[name]
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
    if ok:
        v = float(value)
        ok = np.isfinite(v) and (v > lo if lo_open else v >= lo) and (hi is None or v <= hi)
    if not ok:
        left = "(" if lo_open else "["
        right = f"{hi}]" if hi is not None else "inf)"
        raise ValueError(f"{name} must be a finite number in {left}{lo}, {right}, got {value!r}")
    return float(value)


def check_choice(params: dict, name: str, choices: tuple) -> str:
    value = params[name]
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value
