"""Cut-off rules of NDCG@k that grow with the list (Wang et al. 2013, Sec. 3.3).

``k`` for a query with ``n`` ranked documents:

- ``None``: the whole list;
- an integer: fixed ``k`` (Theorem 6: the measure then never converges);
- ``"frac:c"``, 0 < c <= 1: ``k = max(1, floor(c n))`` -- Theorems 8-9, k = c n;
- ``"pow:a"``, 0 < a < 1: ``k = max(1, floor(n^a))`` -- Theorem 7, k -> inf
  with k / n -> 0.

(``floor`` after adding 1e-9, so that ``0.1 * 30`` gives 3, not 2.)
:func:`resolve_cutoff` turns a rule into one integer (fixed) or a per-query
int64 array, which :func:`evalrank.metrics.dcg.dcg`, ``ideal_dcg`` and
:func:`evalrank.metrics.ndcg.ndcg` take.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["resolve_cutoff", "parse_cutoff"]

_RULE = re.compile(r"^\s*(frac|pow)\s*(?::\s*([^()\s]+)|\(\s*([^()\s]+)\s*\))\s*$")


def parse_cutoff(k):
    """``None``, a positive int, or ``(kind, value)`` for a rule string;
    raises ValueError naming ``k``."""
    if k is None:
        return None
    if isinstance(k, str):
        m = _RULE.match(k.lower())
        if m is None:
            raise ValueError(f"k: expected a positive integer, None, 'frac:c' or 'pow:a', got {k!r}")
        kind, raw = m.group(1), m.group(2) or m.group(3)
        try:
            v = float(raw)
        except ValueError:
            raise ValueError(f"k: the parameter of {k!r} is not a number") from None
        if kind == "frac" and not (0 < v <= 1):
            raise ValueError(f"k: c of {k!r} must lie in (0, 1]")
        if kind == "pow" and not (0 < v < 1):
            raise ValueError(f"k: a of {k!r} must lie in (0, 1)")
        return kind, v
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, None, 'frac:c' or 'pow:a', got {k!r}")
    return int(k)


def resolve_cutoff(k, sizes):
    """``k`` for lists of lengths ``sizes``: None, an int, or a per-query
    int64 array (a rule, or an array given as such, validated: shape of
    ``sizes``, entries >= 1)."""
    if isinstance(k, np.ndarray):
        sizes = np.asarray(sizes)
        if k.shape != sizes.shape or not np.issubdtype(k.dtype, np.integer):
            raise ValueError(f"k: a per-query array must be integer with shape {sizes.shape}, got {k.dtype} "
                             f"{k.shape}")
        if k.size and k.min() < 1:
            raise ValueError("k: per-query cut-offs must be >= 1")
        return k.astype(np.int64, copy=False)
    rule = parse_cutoff(k)
    if rule is None or isinstance(rule, int):
        return rule
    kind, v = rule
    n = np.asarray(sizes, dtype=np.float64)
    raw = v * n if kind == "frac" else n ** v
    return np.maximum(1, np.floor(raw + 1e-9)).astype(np.int64)
