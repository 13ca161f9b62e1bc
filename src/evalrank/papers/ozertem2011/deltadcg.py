"""Mean and variance of DCG@k and ΔDCG@k under grade pdfs (Ozertem et al. 2011,
Sec. 3.1, eqs. 5-8).

Every query-URL pair ``i`` has a random grade ``g_i`` with mean ``E(g_i)`` and
variance ``Var(g_i)`` (eq. 4, :func:`evalrank.papers.ozertem2011.grades.grade_moments`);
grades of different pairs are independent (the paper's ``Cov(g_i, g_j) = 0``).

A *test* compares a novel configuration D with the baseline D' on a set of
queries, one per row: ``novel_top`` and ``base_top`` are (n_rows, width) int
arrays of global pair ids at ranks 1..width, ``-1`` where a list is shorter.
A pair belongs to one query, so it appears in at most one row, and at most
once on each side. Ranks beyond ``k`` are ignored.

- Eq. 7: the discount of pair ``i`` on side S is ``d_i^S = 1/log2(r_i^S + 1)``
  for ``1 <= r_i^S <= k`` and 0 if S does not show it in its top k
  (:func:`discount_difference`; the discount is
  :func:`evalrank.metrics.dcg.discount_values`).
- Eq. 8: ``E(ΔDCG) = sum_{i in D ∪ D'} E(g_i) (d_i^D - d_i^{D'})``; with
  independent grades ``Var(ΔDCG) = sum_i Var(g_i) (d_i^D - d_i^{D'})^2``
  (:func:`delta_dcg`). The paper gives only the mean; this variance is what its
  remark implies: a pair at the same rank in D and D' has ``Δd = 0`` and its
  variance cancels.
- Eq. 5: ``E(DCG_k) = sum_r E(g_r)/log2(r+1)``; for independent grades
  ``Var(DCG_k) = sum_r Var(g_r)/log2(r+1)^2`` (:func:`dcg_moments`).
- Eq. 6 as printed, ``sum_r Var(g_r)/log2(r+1)^2 - E(DCG_k)^2``, subtracts the
  squared mean once more -- a mix-up of ``Var = E(X^2) - E(X)^2`` with a sum of
  variances. It is wrong: it is negative whenever the grades are exact and the
  mean is positive, and it disagrees with enumeration and Monte Carlo.
  :func:`printed_eq6_variance` implements it only to show that.

The per-test summary (:func:`summarize_test`) averages the rows' ΔDCG; the
rows are independent, so the variance of the average is ``sum Var / n^2``.
"""

from __future__ import annotations

import numpy as np

from evalrank.metrics.dcg import discount_values

__all__ = ["discount_difference", "delta_dcg", "dcg_moments", "printed_eq6_variance", "summarize_test",
           "summarize_tests", "check_tops"]


def _check_k(k) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k: expected a positive int, got {type(k).__name__}")
    if k < 1:
        raise ValueError(f"k: must be >= 1, got {k}")
    return int(k)


def _check_top(top, name: str) -> np.ndarray:
    a = np.asarray(top)
    if a.ndim != 2:
        raise ValueError(f"{name}: expected a 2-d (n_rows, k) array of pair ids, got shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise TypeError(f"{name}: pair ids must be integers, got dtype {a.dtype}")
    a = a.astype(np.int64, copy=False)
    if a.size and a.min() < -1:
        raise ValueError(f"{name}: pair ids must be >= 0, or -1 for an empty rank; got {a.min()}")
    ids = a[a >= 0]
    if ids.size:
        u, c = np.unique(ids, return_counts=True)
        if c.max() > 1:
            raise ValueError(f"{name}: pair {u[np.argmax(c)]} appears {c.max()} times; a pair may appear once "
                             "per side (in one row, at one rank)")
    return a


def check_tops(novel_top, base_top, n_pairs: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate the two top-k arrays of a test and return them as int64.

    Both must be 2-d integer arrays with the same number of rows, ids >= -1;
    a pair appears at most once per side and in only one row across both sides;
    with ``n_pairs`` every id must be below it. Widths may differ.
    """
    nt, bt = _check_top(novel_top, "novel_top"), _check_top(base_top, "base_top")
    if nt.shape[0] != bt.shape[0]:
        raise ValueError(f"base_top: {bt.shape[0]} rows, but novel_top has {nt.shape[0]}")
    rows_n = np.broadcast_to(np.arange(nt.shape[0])[:, None], nt.shape)[nt >= 0]
    rows_b = np.broadcast_to(np.arange(bt.shape[0])[:, None], bt.shape)[bt >= 0]
    ids = np.concatenate([nt[nt >= 0], bt[bt >= 0]])
    rows = np.concatenate([rows_n, rows_b])
    if ids.size:
        if n_pairs is not None and ids.max() >= n_pairs:
            raise ValueError(f"novel_top/base_top: pair id {ids.max()} is out of range for {n_pairs} pairs")
        order = np.argsort(ids, kind="stable")
        s_ids, s_rows = ids[order], rows[order]
        clash = (s_ids[1:] == s_ids[:-1]) & (s_rows[1:] != s_rows[:-1])
        if clash.any():
            j = int(np.argmax(clash))
            raise ValueError(f"novel_top/base_top: pair {s_ids[j]} appears in rows {s_rows[j]} and {s_rows[j + 1]}; "
                             "a pair belongs to one query (one row)")
    return nt, bt


def _side_entries(top: np.ndarray, k: int, sign: float):
    """(row, pair id, signed discount) of the pairs a side shows in its top k."""
    t = top[:, :k]
    mask = t >= 0
    rows = np.broadcast_to(np.arange(t.shape[0])[:, None], t.shape)[mask]
    ranks = np.broadcast_to(np.arange(1, t.shape[1] + 1)[None, :], t.shape)[mask]
    return rows, t[mask], sign * discount_values(ranks, "log2")


def discount_difference(novel_top, base_top, k: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eq. 7: ``Δd_i = d_i^D - d_i^{D'}`` for every pair of D ∪ D' in every row.

    Returns flat arrays ``(row, pair_id, delta_d)``, one entry per distinct pair
    of the union (top ``k`` of each side), sorted by row then pair id. A pair at
    the same rank on both sides has ``delta_d == 0`` exactly.
    """
    k = _check_k(k)
    nt, bt = check_tops(novel_top, base_top)
    r1, p1, d1 = _side_entries(nt, k, 1.0)
    r2, p2, d2 = _side_entries(bt, k, -1.0)
    rows, pids, dd = np.concatenate([r1, r2]), np.concatenate([p1, p2]), np.concatenate([d1, d2])
    if pids.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    u, first, inv = np.unique(pids, return_index=True, return_inverse=True)
    delta = np.bincount(inv, weights=dd, minlength=u.size)
    urows = rows[first]
    order = np.lexsort((u, urows))
    return urows[order].astype(np.int64), u[order].astype(np.int64), delta[order]


def _check_moments(mean, var):
    m = np.asarray(mean, dtype=np.float64)
    v = np.asarray(var, dtype=np.float64)
    if m.ndim != 1:
        raise ValueError(f"mean: expected a 1-d per-pair array, got shape {m.shape}")
    if v.shape != m.shape:
        raise ValueError(f"var: shape {v.shape} does not match mean's {m.shape}")
    return m, v


def _needed_moments(m, v, pids, needed):
    if pids.size and pids.max() >= m.size:
        raise ValueError(f"mean: {m.size} pairs, but the lists name pair id {pids.max()}")
    mi, vi = m[pids], v[pids]
    bad = needed & (np.isnan(mi) | np.isnan(vi))
    if bad.any():
        raise ValueError(f"mean/var: {int(bad.sum())} needed pair(s) have NaN moments "
                         f"(first: pair {pids[np.argmax(bad)]}); every pair of the lists needs a grade pdf")
    bad = needed & (~np.isfinite(mi) | ~np.isfinite(vi) | (vi < 0))
    if bad.any():
        raise ValueError(f"mean/var: {int(bad.sum())} needed pair(s) have infinite moments or a negative variance "
                         f"(first: pair {pids[np.argmax(bad)]})")
    return np.where(needed, mi, 0.0), np.where(needed, vi, 0.0)


def delta_dcg(mean, var, novel_top, base_top, k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 8 and its variance: per row, ``E(ΔDCG_k) = sum_i E(g_i) Δd_i`` and
    ``Var(ΔDCG_k) = sum_i Var(g_i) Δd_i^2`` over the pairs of D ∪ D'.

    ``mean``, ``var``: (n_pairs,) eq.-4 moments indexed by global pair id. A
    pair is *needed* when its ``Δd != 0``; a NaN moment of a needed pair raises
    ValueError (a pair at the same rank on both sides needs no grade).
    Returns ``(E, Var)``, each of shape (n_rows,).
    """
    m, v = _check_moments(mean, var)
    rows, pids, dd = discount_difference(novel_top, base_top, k)
    n_rows = np.asarray(novel_top).shape[0]
    mi, vi = _needed_moments(m, v, pids, dd != 0)
    E = np.bincount(rows, weights=mi * dd, minlength=n_rows)
    V = np.bincount(rows, weights=vi * dd * dd, minlength=n_rows)
    return E, V


def _dcg_parts(mean, var, top, k):
    k = _check_k(k)
    m, v = _check_moments(mean, var)
    t = _check_top(top, "top")[:, :k]
    mask = t >= 0
    disc = np.broadcast_to(discount_values(np.arange(1, t.shape[1] + 1), "log2")[None, :], t.shape)
    ids = np.where(mask, t, 0)
    if mask.any() and t[mask].max() >= m.size:
        raise ValueError(f"mean: {m.size} pairs, but top names pair id {t[mask].max()}")
    mi, vi = _needed_moments(m, v, ids.ravel(), mask.ravel())
    return mi.reshape(t.shape), vi.reshape(t.shape), np.where(mask, disc, 0.0)


def dcg_moments(mean, var, top, k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 5 and the correct eq. 6: per row of ``top`` (n_rows, width),
    ``E(DCG_k) = sum_r E(g_r) d_r`` and ``Var(DCG_k) = sum_r Var(g_r) d_r^2``
    with ``d_r = 1/log2(r+1)`` (independent grades). Returns ``(E, Var)``."""
    mi, vi, d = _dcg_parts(mean, var, top, k)
    return (mi * d).sum(axis=1), (vi * d * d).sum(axis=1)


def printed_eq6_variance(mean, var, top, k: int = 5) -> np.ndarray:
    """Eq. 6 *exactly as printed*: ``sum_r Var(g_r)/log2(r+1)^2 - E(DCG_k)^2``.

    Wrong (see the module docstring): kept only so the tests and the results
    can show that it disagrees with enumeration / Monte Carlo and can be
    negative. Use :func:`dcg_moments`."""
    mi, vi, d = _dcg_parts(mean, var, top, k)
    return (vi * d * d).sum(axis=1) - (mi * d).sum(axis=1) ** 2


def _check_z(z) -> float:
    z = float(z)
    if not np.isfinite(z) or z < 0:
        raise ValueError(f"z: must be finite and >= 0, got {z}")
    return z


def _calls(delta, sd, z):
    return np.where(delta > z * sd, "+", np.where(delta < -z * sd, "-", "?"))


def summarize_test(E_rows, Var_rows, z: float = 1.96) -> dict:
    """Per-test ΔDCG: ``delta`` = mean of the rows' E, ``var`` = sum Var / n^2
    (independent rows), ``sd`` = sqrt(var), ``n_rows``, and ``call``: ``'+'``
    if ``delta > z sd``, ``'-'`` if ``delta < -z sd``, else ``'?'``."""
    E = np.asarray(E_rows, dtype=np.float64)
    V = np.asarray(Var_rows, dtype=np.float64)
    if E.ndim != 1 or E.size == 0:
        raise ValueError(f"E_rows: expected a non-empty 1-d array, got shape {E.shape}")
    if V.shape != E.shape:
        raise ValueError(f"Var_rows: shape {V.shape} does not match E_rows' {E.shape}")
    if not (np.isfinite(E).all() and np.isfinite(V).all()) or V.min() < 0:
        raise ValueError("E_rows/Var_rows: must be finite, with Var_rows >= 0")
    z = _check_z(z)
    n = E.size
    delta = float(E.mean())
    var = float(V.sum() / n**2)
    sd = float(np.sqrt(var))
    return {"delta": delta, "var": var, "sd": sd, "call": str(_calls(delta, sd, z)), "n_rows": n}


def summarize_tests(E_rows, Var_rows, test_of_row, n_tests: int, z: float = 1.96) -> dict:
    """:func:`summarize_test` for many tests at once. ``test_of_row`` (n_rows,)
    gives each row's test in ``[0, n_tests)``. Returns a dict of arrays of
    length ``n_tests``: ``delta``, ``var``, ``sd``, ``call`` (str array) and
    ``n_rows``; a test without rows gets NaN and ``'?'``."""
    E = np.asarray(E_rows, dtype=np.float64)
    V = np.asarray(Var_rows, dtype=np.float64)
    t = np.asarray(test_of_row)
    if E.ndim != 1:
        raise ValueError(f"E_rows: expected a 1-d array, got shape {E.shape}")
    if V.shape != E.shape:
        raise ValueError(f"Var_rows: shape {V.shape} does not match E_rows' {E.shape}")
    if t.shape != E.shape:
        raise ValueError(f"test_of_row: shape {t.shape} does not match E_rows' {E.shape}")
    if t.size and not np.issubdtype(t.dtype, np.integer):
        raise TypeError(f"test_of_row: expected integer test indices, got dtype {t.dtype}")
    if isinstance(n_tests, (bool, np.bool_)) or not isinstance(n_tests, (int, np.integer)) or n_tests < 0:
        raise ValueError(f"n_tests: expected a non-negative int, got {n_tests!r}")
    if t.size and (t.min() < 0 or t.max() >= n_tests):
        raise ValueError(f"test_of_row: indices must lie in [0, {n_tests - 1}]")
    if not (np.isfinite(E).all() and np.isfinite(V).all()) or (V.size and V.min() < 0):
        raise ValueError("E_rows/Var_rows: must be finite, with Var_rows >= 0")
    z = _check_z(z)
    t = t.astype(np.int64)
    n = np.bincount(t, minlength=n_tests)
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = np.bincount(t, weights=E, minlength=n_tests) / n
        var = np.bincount(t, weights=V, minlength=n_tests) / n.astype(np.float64) ** 2
    sd = np.sqrt(var)
    call = np.where(n > 0, _calls(delta, sd, z), "?")
    return {"delta": delta, "var": var, "sd": sd, "call": call, "n_rows": n}
