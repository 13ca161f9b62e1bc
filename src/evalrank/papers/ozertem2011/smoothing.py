"""Query- and position-based smoothing of missing grade pdfs (Ozertem et al.
2011, Sec. 3.4, eqs. 9-13) and the choice of σ by leave-one-out (Sec. 5.1,
Fig. 6, Table 5).

Per test (novel configuration D vs baseline D', one row per query) every pair
of D ∪ D' either has a grade pdf -- from an editor or from the click model,
``available`` -- or is *missing*. Each side S ∈ {D, D'} is smoothed on its own:

- **position-based** (eq. 9): ``p_r^S(g)`` = mean of the available pdfs at rank
  ``r`` of side S over all rows. A rank without any available pdf falls back
  to the mean of all available pdfs of side S, then to the mean over the
  distinct available pairs of the whole test; a test without any available pdf
  raises ValueError.
- **query-based** (eq. 10): ``p_q^S(g)`` = mean of the ``n_q`` available pdfs
  of row ``q`` on side S.
- **weight** (eqs. 12-13): ``μ_q = (1/n_q) sum_d E(g_d)`` and
  ``d_q = (1/n_q^2) sum_d [(E(g_d) - μ_q)^2 + Var(g_d)]`` over the available
  pdfs of the row (``d_q`` is the variance of their pooled mixture over
  ``n_q``: the squared standard error of the row's mean grade), and
  ``w_q = exp(-d_q / σ^2)``; ``n_q = 0`` gives ``d_q = inf``, ``w_q = 0``;
  ``σ = 0`` gives ``w_q = 0``; ``σ = inf`` gives ``w_q = 1`` where ``n_q > 0``.
- **hybrid** (eq. 11, corrected): ``p_s = w_q p_q^S + (1 - w_q) p_r^S``.

*Two deviations from the printed formulas:*

1. Eq. 11 is printed ``p_s = w_q p_r + (1 - w_q) p_q``. The text around it
   says three things: (a) σ = 0 gives position-based smoothing, (b) σ → ∞
   gives query-based smoothing, (c) ``w_q`` should *increase* -- "hence bias
   towards query-smoothing" -- with more available grades of lower variance.
   With ``w_q = exp(-d_q/σ^2)``, σ = 0 makes ``w_q = 0`` and σ → ∞ makes
   ``w_q = 1``, and more / more similar grades shrink ``d_q`` and grow
   ``w_q``. All three statements hold for ``w_q p_q + (1 - w_q) p_r`` and all
   three fail for the printed order, so the printed eq. 11 swaps ``p_r`` and
   ``p_q``; this module implements the consistent reading.
2. Eqs. 12-13 normalise by ``N^D``, "the number of documents in D", but
   call μ_q "the average of the available relevance values" and motivate
   ``d_q`` by "the number of the available relevance values". Dividing a sum
   over the available values by the number of all documents would make μ_q
   no mean; this module uses ``n_q``, the number of available pdfs in the row.

A missing pair's pdf is ``p_s`` at its (row, rank) on each side that shows it,
averaged over those sides ("for the documents that both appear in D and D',
use the average of these two estimates").

Leave-one-out (Sec. 5.1): each editorially judged pair ``j`` of the test is
removed from the available set (every occurrence, both sides), predicted as if
missing, and scored by ``e_j = g_j - E(ĝ_j)``. :func:`loo_errors` does this in
closed form -- the pair's own contribution is subtracted from the rank, side,
test and row sums -- and :func:`choose_sigma` minimises the LOO MSE over σ
(a bounded scalar search on log σ, the paper's "Fibonacci search (or
similar)"). As σ → 0+ the hybrid tends to position-based smoothing except in
rows with ``d_q = 0`` (identical exact grades), which keep ``w_q = 1`` for
every σ > 0; σ = 0 itself is position-based smoothing exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from evalrank.papers.ozertem2011.deltadcg import check_tops
from evalrank.papers.ozertem2011.grades import GradeScale, grade_moments

__all__ = ["METHODS", "row_weights", "smooth", "loo_errors", "loo_mse_curve", "choose_sigma", "SigmaChoice"]

METHODS = ("hybrid", "position", "query")


# --------------------------------------------------------------------------- validation

def _check_sigma(sigma) -> float:
    if isinstance(sigma, (bool, np.bool_)):
        raise TypeError("sigma: expected a number")
    try:
        s = float(sigma)
    except (TypeError, ValueError):
        raise TypeError(f"sigma: expected a number, got {type(sigma).__name__}") from None
    if np.isnan(s) or s < 0:
        raise ValueError(f"sigma: must be >= 0 (inf allowed), got {sigma}")
    return s


def _check_method(method) -> str:
    if method not in METHODS:
        raise ValueError(f"method: expected one of {METHODS}, got {method!r}")
    return method


def _check_inputs(novel_top, base_top, pdfs, available, scale):
    if not isinstance(scale, GradeScale):
        raise TypeError(f"scale: expected a GradeScale, got {type(scale).__name__}")
    P = np.asarray(pdfs, dtype=np.float64)
    if P.ndim != 2 or P.shape[1] != scale.n:
        raise ValueError(f"pdfs: expected shape (n_pairs, {scale.n}), got {P.shape}")
    av = np.asarray(available)
    if av.dtype != np.bool_:
        raise TypeError(f"available: expected a bool array, got dtype {av.dtype}")
    if av.shape != (P.shape[0],):
        raise ValueError(f"available: expected shape ({P.shape[0]},) like pdfs' rows, got {av.shape}")
    nt, bt = check_tops(novel_top, base_top, n_pairs=P.shape[0])
    ids = np.union1d(nt[nt >= 0], bt[bt >= 0])
    used = ids[av[ids]]
    E = np.full(P.shape[0], np.nan)
    V = np.full(P.shape[0], np.nan)
    if used.size:
        try:
            E[used], V[used] = grade_moments(P[used], scale)
        except ValueError as exc:
            raise ValueError(f"pdfs: the available pairs' rows are not all grade pdfs ({exc})") from None
    return nt, bt, P, av, ids, E, V


# --------------------------------------------------------------------------- sufficient statistics

@dataclass
class _Side:
    """Sums of one side's available pdfs: per rank, per side, per row."""

    top: np.ndarray        # (n_rows, width)
    av: np.ndarray         # (n_rows, width) available occurrence
    rank_sum: np.ndarray   # (width, G)
    rank_n: np.ndarray     # (width,)
    side_sum: np.ndarray   # (G,)
    side_n: int
    row_sum: np.ndarray    # (n_rows, G)
    row_n: np.ndarray      # (n_rows,)
    row_E: np.ndarray      # (n_rows,) sum of E(g_d)
    row_E2: np.ndarray     # (n_rows,) sum of E(g_d)^2
    row_V: np.ndarray      # (n_rows,) sum of Var(g_d)


def _side_stats(top, P, av, E, V) -> _Side:
    valid = top >= 0
    ids = np.where(valid, top, 0)
    occ = valid & av[ids]
    pd_ = np.where(occ[..., None], P[ids], 0.0)
    e = np.where(occ, E[ids], 0.0)
    v = np.where(occ, V[ids], 0.0)
    rank_sum = pd_.sum(axis=0)
    return _Side(top=top, av=occ, rank_sum=rank_sum, rank_n=occ.sum(axis=0).astype(np.float64),
                 side_sum=rank_sum.sum(axis=0), side_n=int(occ.sum()),
                 row_sum=pd_.sum(axis=1), row_n=occ.sum(axis=1).astype(np.float64),
                 row_E=e.sum(axis=1), row_E2=(e * e).sum(axis=1), row_V=v.sum(axis=1))


def _dq(n, sE, sE2, sV):
    """Eq. 13 from sums over the row's available pdfs (inf where n == 0)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ss = sE2 - sE * sE / n
        # identical means must give exactly 0, not rounding noise (exact grades at small σ)
        ss = np.where(ss <= 1e-12 * np.abs(sE2), 0.0, ss)
        d = (ss + sV) / (n * n)
    return np.where(n > 0, np.maximum(d, 0.0), np.inf)


def _weights(d, n, sigma: float, method: str):
    if method == "position":
        return np.zeros_like(d)
    if method == "query":
        return (n > 0).astype(np.float64)
    s2 = sigma * sigma
    if s2 == 0.0:
        return np.zeros_like(d)
    if np.isinf(s2):
        return (n > 0).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        w = np.exp(-d / s2)
    return np.where(n > 0, w, 0.0)


def _mean_rows(total, n):
    """total / n row-wise, 0 where n == 0."""
    n = np.asarray(n, dtype=np.float64)
    return np.divide(total, n[:, None], out=np.zeros_like(total), where=n[:, None] > 0)


def _position_pdf(rs, rn, ss, sn, ts, tn):
    """Eq. 9 with the rank -> side -> test fallbacks, per occurrence."""
    out = _mean_rows(ts, tn)
    out = np.where((sn > 0)[:, None], _mean_rows(ss, sn), out)
    return np.where((rn > 0)[:, None], _mean_rows(rs, rn), out)


# --------------------------------------------------------------------------- public API

def row_weights(top, pdfs, available, scale: GradeScale, sigma) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eqs. 12-13 for one side: per row of ``top``, the hybrid weight ``w_q``
    on query smoothing, ``d_q`` and ``n_q`` (the number of available pdfs in
    the row). Returns ``(w, d, n)``; ``d = inf`` and ``w = 0`` where ``n = 0``."""
    sigma = _check_sigma(sigma)
    t = np.asarray(top)
    nt, _, P, av, _, E, V = _check_inputs(t, np.full((t.shape[0] if t.ndim == 2 else 0, 0), -1), pdfs,
                                          available, scale)
    s = _side_stats(nt, P, av, E, V)
    d = _dq(s.row_n, s.row_E, s.row_E2, s.row_V)
    return _weights(d, s.row_n, sigma, "hybrid"), d, s.row_n.astype(np.int64)


def smooth(novel_top, base_top, pdfs, available, scale: GradeScale, sigma,
           method: str = "hybrid") -> tuple[np.ndarray, np.ndarray]:
    """Smoothed pdfs of the missing pairs of one test (eqs. 9-13, eq. 11 corrected).

    Parameters
    ----------
    novel_top, base_top : (n_rows, width) int pair ids of D and D' (-1 = empty).
    pdfs : (n_pairs, G) grade pdfs; only rows of available pairs are read.
    available : (n_pairs,) bool, pairs with a pdf from an editor or the click model.
    scale : the grade scale (``G = scale.n``; its values give E and Var).
    sigma : σ >= 0 of ``w_q = exp(-d_q/σ^2)``; ``inf`` allowed. Validated but
        unused for ``method="position"``/``"query"``.
    method : ``"hybrid"``, ``"position"`` (``w = 0``) or ``"query"`` (``w = 1``
        where the row has an available pdf, else position-based).

    Returns ``(pair_ids, pdfs)``: every pair of D ∪ D' that is not available,
    ascending, with its (len, G) smoothed pdf. Raises ValueError if the test
    has no available pdf at all.
    """
    sigma = _check_sigma(sigma)
    method = _check_method(method)
    nt, bt, P, av, ids, E, V = _check_inputs(novel_top, base_top, pdfs, available, scale)
    used = ids[av[ids]]
    if used.size == 0:
        raise ValueError("available: the test has no available grade pdf to smooth from")
    ts, tn = P[used].sum(axis=0), used.size
    missing = ids[~av[ids]]
    G = P.shape[1]
    acc = np.zeros((missing.size, G))
    cnt = np.zeros(missing.size)
    for top in (nt, bt):  # the two sides
        s = _side_stats(top, P, av, E, V)
        occ = (top >= 0) & ~s.av
        q, r = np.nonzero(occ)
        m = q.size
        pr = _position_pdf(s.rank_sum[r], s.rank_n[r], np.broadcast_to(s.side_sum, (m, G)),
                           np.full(m, s.side_n), np.broadcast_to(ts, (m, G)), np.full(m, tn))
        pq = _mean_rows(s.row_sum[q], s.row_n[q])
        d = _dq(s.row_n[q], s.row_E[q], s.row_E2[q], s.row_V[q])
        w = _weights(d, s.row_n[q], sigma, method)
        ps = w[:, None] * pq + (1.0 - w[:, None]) * pr
        pos = np.searchsorted(missing, top[q, r])
        np.add.at(acc, pos, ps)
        np.add.at(cnt, pos, 1.0)
    return missing, acc / cnt[:, None]


def _check_targets(targets, target_values, n_pairs):
    t = np.asarray(targets)
    if t.dtype != np.bool_:
        raise TypeError(f"targets: expected a bool array, got dtype {t.dtype}")
    if t.shape != (n_pairs,):
        raise ValueError(f"targets: expected shape ({n_pairs},), got {t.shape}")
    g = np.asarray(target_values, dtype=np.float64)
    if g.shape != (n_pairs,):
        raise ValueError(f"target_values: expected shape ({n_pairs},), got {g.shape}")
    return t, g


@dataclass
class _LooParts:
    """σ-independent pieces of the leave-one-out predictions, per target × side."""

    pairs: np.ndarray      # (m,) target pair ids, ascending
    g: np.ndarray          # (m,) target values
    present: np.ndarray    # (m, 2) the side shows the pair
    Eq: np.ndarray         # (m, 2) E under the reduced query-based pdf (0 where n == 0)
    Er: np.ndarray         # (m, 2) E under the reduced position-based pdf
    d: np.ndarray          # (m, 2) reduced d_q
    n: np.ndarray          # (m, 2) reduced n_q


def _loo_parts(novel_top, base_top, pdfs, available, targets, target_values, scale) -> _LooParts:
    nt, bt, P, av, ids, E, V = _check_inputs(novel_top, base_top, pdfs, available, scale)
    tg, gv = _check_targets(targets, target_values, P.shape[0])
    tpairs = ids[tg[ids]]
    if tpairs.size and not av[tpairs].all():
        j = tpairs[~av[tpairs]][0]
        raise ValueError(f"targets: pair {j} is a target but not available; targets must be available pairs")
    if tpairs.size and not np.isfinite(gv[tpairs]).all():
        j = tpairs[~np.isfinite(gv[tpairs])][0]
        raise ValueError(f"target_values: pair {j} is a target without a finite value")
    used = ids[av[ids]]
    tn = float(used.size)
    if tpairs.size and tn <= 1:
        raise ValueError(f"available: leaving out pair {tpairs[0]} leaves the test without an available grade pdf")
    ts = P[used].sum(axis=0)
    a = scale.a
    m = tpairs.size
    pj, ej, vj = P[tpairs], E[tpairs], V[tpairs]
    present = np.zeros((m, 2), bool)
    Eq, Er, d, n = (np.zeros((m, 2)) for _ in range(4))
    ts_red = ts[None, :] - pj
    for k, top in enumerate((nt, bt)):
        s = _side_stats(top, P, av, E, V)
        width = top.shape[1]
        flat = np.full(P.shape[0], -1, np.int64)
        valid = top >= 0
        flat[top[valid]] = np.flatnonzero(valid)
        loc = flat[tpairs]
        on = loc >= 0
        present[:, k] = on
        q, r = np.where(on, loc // max(width, 1), 0), np.where(on, loc % max(width, 1), 0)
        one = on.astype(np.float64)
        # the side's sums without pair j (j is available, so it is in them when on this side)
        rs = s.rank_sum[r] - one[:, None] * pj
        rn = s.rank_n[r] - one
        ss = s.side_sum[None, :] - one[:, None] * pj
        sn = s.side_n - one
        pr = _position_pdf(rs, rn, ss, sn, ts_red, np.full(m, tn - 1.0))
        qn = s.row_n[q] - one
        pq = _mean_rows(s.row_sum[q] - one[:, None] * pj, qn)
        d[:, k] = np.where(on, _dq(qn, s.row_E[q] - one * ej, s.row_E2[q] - one * ej * ej, s.row_V[q] - one * vj),
                           np.inf)
        n[:, k] = np.where(on, qn, 0.0)
        Eq[:, k] = np.where(on, pq @ a, 0.0)
        Er[:, k] = np.where(on, pr @ a, 0.0)
    return _LooParts(pairs=tpairs, g=gv[tpairs], present=present, Eq=Eq, Er=Er, d=d, n=n)


def _loo_errors_from(parts: _LooParts, sigma: float, method: str) -> np.ndarray:
    w = _weights(parts.d, parts.n, sigma, method)
    pred = np.where(parts.present, w * parts.Eq + (1.0 - w) * parts.Er, 0.0)
    return parts.g - pred.sum(axis=1) / parts.present.sum(axis=1)


def loo_errors(novel_top, base_top, pdfs, available, targets, target_values, scale: GradeScale, sigma,
               method: str = "hybrid") -> tuple[np.ndarray, np.ndarray]:
    """Leave-one-out errors of Sec. 5.1, in closed form.

    For every pair of the test with ``targets[pair]`` (editorially judged,
    hence available) the pair is removed from the available set -- every
    occurrence, both sides -- and its pdf predicted exactly as :func:`smooth`
    would predict a missing pair (same fallbacks). ``target_values``
    (n_pairs,) holds the true grade value ``g_j`` (NaN allowed for
    non-targets). Returns ``(pair_ids, errors)`` with ``e_j = g_j - E(ĝ_j)``,
    pair ids ascending. Raises ValueError if leaving a target out would leave
    the test without any available pdf (as :func:`smooth` would).
    """
    sigma = _check_sigma(sigma)
    method = _check_method(method)
    parts = _loo_parts(novel_top, base_top, pdfs, available, targets, target_values, scale)
    return parts.pairs, _loo_errors_from(parts, sigma, method)


def _mse(parts, sigma, method="hybrid"):
    if parts.pairs.size == 0:
        return np.nan
    e = _loo_errors_from(parts, sigma, method)
    return float(np.mean(e * e))


def loo_mse_curve(novel_top, base_top, pdfs, available, targets, target_values, scale: GradeScale, sigmas,
                  method: str = "hybrid") -> np.ndarray:
    """Leave-one-out MSE (mean of ``e_j^2``) for each σ of ``sigmas`` (Fig. 6).
    NaN everywhere if the test has no target."""
    method = _check_method(method)
    sig = np.atleast_1d(np.asarray(sigmas, dtype=np.float64))
    if sig.ndim != 1:
        raise ValueError(f"sigmas: expected a 1-d array, got shape {sig.shape}")
    sig = [_check_sigma(s) for s in sig]
    parts = _loo_parts(novel_top, base_top, pdfs, available, targets, target_values, scale)
    return np.array([_mse(parts, s, method) for s in sig])


@dataclass(frozen=True)
class SigmaChoice:
    """Result of :func:`choose_sigma`: σ*, the LOO MSE there, and the LOO MSE
    of position (σ = 0) and query (σ = ∞) smoothing over ``n_targets`` pairs;
    ``pairs`` and ``errors``: the target pair ids (ascending) and their LOO
    errors at σ* (as :func:`loo_errors` returns them)."""

    sigma: float
    mse: float
    mse_position: float
    mse_query: float
    n_targets: int
    pairs: np.ndarray
    errors: np.ndarray


def choose_sigma(novel_top, base_top, pdfs, available, targets, target_values, scale: GradeScale,
                 bounds=(1e-3, 1e2), grid: int = 25) -> SigmaChoice:
    """σ minimising the leave-one-out MSE of hybrid smoothing (Sec. 5.1).

    The MSE is evaluated on ``grid`` log-spaced σ in ``bounds``; then
    ``scipy.optimize.minimize_scalar(method="bounded")`` refines log σ between
    the best grid point's neighbours (a bounded scalar search, the paper's
    "Fibonacci search (or similar)"; the grid guards against local minima).
    Raises ValueError if the test has no target."""
    lo, hi = (float(b) for b in bounds)
    if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo < hi):
        raise ValueError(f"bounds: expected 0 < low < high, finite; got {bounds!r}")
    if isinstance(grid, (bool, np.bool_)) or not isinstance(grid, (int, np.integer)) or grid < 3:
        raise ValueError(f"grid: expected an int >= 3, got {grid!r}")
    parts = _loo_parts(novel_top, base_top, pdfs, available, targets, target_values, scale)
    if parts.pairs.size == 0:
        raise ValueError("targets: the test has no target pair to leave out")
    logs = np.linspace(np.log(lo), np.log(hi), int(grid))
    vals = np.array([_mse(parts, float(np.exp(x))) for x in logs])
    i = int(np.argmin(vals))
    a, b = logs[max(i - 1, 0)], logs[min(i + 1, grid - 1)]
    res = minimize_scalar(lambda x: _mse(parts, float(np.exp(x))), bounds=(a, b), method="bounded",
                          options={"xatol": 1e-6})
    x, f = (float(res.x), float(res.fun)) if res.fun <= vals[i] else (float(logs[i]), float(vals[i]))
    sigma = float(np.exp(x))
    return SigmaChoice(sigma=sigma, mse=f, mse_position=_mse(parts, 0.0), mse_query=_mse(parts, np.inf),
                       n_targets=int(parts.pairs.size), pairs=parts.pairs,
                       errors=_loo_errors_from(parts, sigma, "hybrid"))
