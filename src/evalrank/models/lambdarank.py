"""LambdaRank gradients (Burges 2010) with a chosen NDCG convention.

LightGBM's ``lambdarank`` objective (``src/objective/rank_objective.hpp``,
``LambdarankNDCG::GetGradientsForOneQuery``, LightGBM 4.x) re-implemented
operation for operation in a compiled kernel, so that with LightGBM's
convention it returns LightGBM's own gradients (float32 accumulation in the
same order, the same 2^20-bin sigmoid table, the same ``0.01f`` score-gap
regularizer and ``log2(1 + sum) / sum`` normalization) -- and then changed
only where a convention asks for it (Busa-Fekete et al. 2012, Sec. 3-5):

* ``gain``/``discount``: |ΔNDCG| of a swap uses the convention's gain table
  and discount (LightGBM: ``label_gain`` 2^i - 1, 1/log2(2 + i)).
* ``short="zero"`` (LETOR 4.0 / MS): a query with fewer than ``k``
  documents has NDCG@k = 0 whatever the order, so its ΔNDCG -- and its
  gradient -- is zero (the paper's point: such queries cannot teach).
* empty queries have no pair with different labels, so no convention gives
  them a gradient; their value only moves early stopping.

Pairs: for every pair with different labels whose better-ranked member sits
in the top ``truncation_level`` of the current order (stable sort by score,
LightGBM's), ``λ = -σ ρ |ΔNDCG|``, ``h = σ² ρ (1 - ρ) |ΔNDCG|`` with
``ρ = 1 / (1 + exp(σ (s_high - s_low)))`` and ``|ΔNDCG| = |g_high - g_low|
|c_high - c_low| / IDCG@truncation_level``.

Risk-sensitive LambdaMART (:class:`RiskObjective`; Dinçer, Macdonald &
Ounis 2016, Sec. 6) runs the same kernel with ``|ΔNDCG|`` replaced by a
risk-sensitive ``|ΔM'|`` just before LightGBM's ``delta /= 0.01f +
|Δscore|`` step; everything else (sort, pairs, sigmoid table, float32
accumulation, per-query normalization) is shared, and ``mode = 0`` leaves
every operation of plain LambdaRank untouched.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from evalrank.metrics.conventions import resolve
from evalrank.metrics.dcg import discount_values, gain_values

__all__ = ["LambdaObjective", "RiskObjective", "RISK_METHODS", "lambda_gradients", "sigmoid_table"]

_SIGMOID_BINS = 1024 * 1024
_NO_QSTATE = np.zeros((5, 0))
_NO_GSTATE = np.zeros(6)
_F32_001 = float(np.float32(0.01))  # LightGBM's 0.01f


def sigmoid_table(sigmoid: float = 1.0):
    """LightGBM's lookup table of ``1 / (1 + exp(sigmoid x))`` (ConstructSigmoidTable)."""
    lo = -50.0 / sigmoid / 2.0
    factor = _SIGMOID_BINS / (-lo - lo)
    x = np.arange(_SIGMOID_BINS, dtype=np.float64) / factor + lo
    return 1.0 / (1.0 + np.exp(x * sigmoid)), lo, -lo, factor


# ---------------------------------------------------------------------------
# risk-sensitive pair weights (Dinçer, Macdonald & Ounis 2016, Sec. 6)
# ---------------------------------------------------------------------------
#: kernel modes; T*-FARO is T-FARO against the mean of several baselines
_MODE_PLAIN, _MODE_UCRO, _MODE_SARO, _MODE_FARO, _MODE_GEORISK = 0, 1, 2, 3, 4
#: rows of the per-query state ``qstate`` (n_rows, n_queries) passed to the kernel
_Q_MM, _Q_MB, _Q_ALPHA, _Q_T, _Q_Z = 0, 1, 2, 3, 4
#: entries of the scalar GeoRisk state ``gstate``
_G_S, _G_N, _G_ZRISK, _G_GEO, _G_C, _G_ALPHA = 0, 1, 2, 3, 4, 5
_SQRT2 = math.sqrt(2.0)


@numba.njit(cache=True, inline="always")
def _phi(x):
    """Standard normal CDF, ``0.5 erfc(-x / sqrt 2)``."""
    return 0.5 * math.erfc(-x / _SQRT2)


@numba.njit(cache=True, inline="always")
def _ucro_delta(dm, improving, mm, mb, a):
    """Jforests ``URiskAwareEval.getDelta`` (Wang et al. 2012, scenarios
    A1/A2/B1/B2; ``TRiskAwareSAROEval`` with ``a = beta_j``): the change in
    the URisk summand of a query with model/baseline effectiveness ``mm``/``mb``
    when the swap changes ``mm`` by the signed ``dm``. Equals ``u(mm + dm - mb)
    - u(mm - mb)``, ``u(d) = d`` for ``d > 0`` and ``(1 + a) d`` otherwise;
    this multiplicative form returns ``dm`` itself (bit for bit) at ``a = 0``."""
    if mm <= mb:  # scenario A: at or below the baseline
        if not improving:  # A1
            return (1.0 + a) * dm
        if mb > mm + dm:  # A2, still below after the swap
            return (1.0 + a) * dm
        return a * (mb - mm) + dm  # A2, crosses the baseline
    if not improving:  # scenario B1: above the baseline, degrading swap
        if mb > mm - abs(dm):  # falls below
            return a * (mm - mb) - (1.0 + a) * abs(dm)
        return dm
    return dm  # B2


@numba.njit(cache=True, inline="always")
def _zweight(z, alpha):
    return z if z > 0 else (1.0 + alpha) * z


@numba.njit(cache=True, inline="always")
def _georisk_delta(dm, x, t, z, s, n, zrisk, geo, c, alpha):
    """``c (GeoRisk' - GeoRisk)`` of the model row when its cell ``x = x_ij``
    changes by ``dm``: ``S``, ``T_j`` and ``N`` move with it, only the query's
    own ``z_ij`` is recomputed in ZRisk (the paper's retained summands).
    Guards for a ``ΔM`` larger than the cell (possible because ``ΔM`` uses
    IDCG@truncation_level and no cut-off while ``x`` is NDCG@risk_k):
    ``z' = 0`` where ``e' <= 0``, and ``S'/c Phi(.)`` clipped at 0."""
    x1 = x + dm
    s1 = s + dm
    t1 = t + dm
    n1 = n + dm
    e1 = s1 * t1 / n1 if n1 > 0 else 0.0
    z1 = (x1 - e1) / math.sqrt(e1) if e1 > 0 else 0.0
    zr1 = zrisk - _zweight(z, alpha) + _zweight(z1, alpha)
    g1 = s1 / c * _phi(zr1 / c)
    return c * (math.sqrt(g1 if g1 > 0 else 0.0) - geo)


@numba.njit(cache=True, inline="always")
def _risk_delta(mode, delta, improving, q, qstate, gstate):
    """Signed ``ΔM'`` of a pair of query ``q`` with ``|ΔM| = delta``."""
    dm = delta if improving else -delta
    if mode == _MODE_FARO:
        return (1.0 + qstate[_Q_ALPHA, q]) * dm
    if mode == _MODE_GEORISK:
        return _georisk_delta(dm, qstate[_Q_MM, q], qstate[_Q_T, q], qstate[_Q_Z, q], gstate[_G_S], gstate[_G_N],
                              gstate[_G_ZRISK], gstate[_G_GEO], gstate[_G_C], gstate[_G_ALPHA])
    return _ucro_delta(dm, improving, qstate[_Q_MM, q], qstate[_Q_MB, q], qstate[_Q_ALPHA, q])


@numba.njit(cache=True)
def _lambda_kernel(scores, labels, offsets, gain, disc, inv_max_dcg, active, trunc, sigmoid, norm, table, lo, hi,
                   factor, mode, qstate, gstate):
    n = scores.shape[0]
    grad = np.zeros(n, dtype=np.float32)
    hess = np.zeros(n, dtype=np.float32)
    nq = offsets.shape[0] - 1
    nbins = table.shape[0]
    for q in range(nq):
        start = offsets[q]
        cnt = offsets[q + 1] - start
        if cnt == 0 or not active[q]:
            continue
        s = scores[start:start + cnt]
        order = np.argsort(-s, kind="mergesort")  # stable, descending, as std::stable_sort(>)
        best = s[order[0]]
        worst_idx = cnt - 1
        if worst_idx > 0 and s[order[worst_idx]] == -np.inf:
            worst_idx -= 1
        worst = s[order[worst_idx]]
        inv = inv_max_dcg[q]
        sum_lambdas = 0.0
        i = 0
        while i < cnt - 1 and i < trunc:
            a = order[i]
            if s[a] == -np.inf:
                i += 1
                continue
            for j in range(i + 1, cnt):
                b = order[j]
                if s[b] == -np.inf:
                    continue
                la = labels[start + a]
                lb = labels[start + b]
                if la == lb:
                    continue
                if la > lb:
                    high, low, high_rank, low_rank = a, b, i, j
                else:
                    high, low, high_rank, low_rank = b, a, j, i
                delta_score = s[high] - s[low]
                gap = gain[labels[start + high]] - gain[labels[start + low]]
                paired = abs(disc[high_rank] - disc[low_rank])
                delta = gap * paired * inv
                if mode != 0:  # risk-sensitive |ΔM'| from the signed ΔM (+ for an improving swap)
                    delta = abs(_risk_delta(mode, delta, high_rank > low_rank, q, qstate, gstate))
                if norm and best != worst:
                    delta /= _F32_001 + abs(delta_score)
                if delta_score <= lo:
                    p = table[0]
                elif delta_score >= hi:
                    p = table[nbins - 1]
                else:
                    p = table[np.int64((delta_score - lo) * factor)]
                p_hess = p * (1.0 - p)
                p_lam = p * (-sigmoid * delta)
                p_hess *= sigmoid * sigmoid * delta
                grad[start + low] -= np.float32(p_lam)
                hess[start + low] += np.float32(p_hess)
                grad[start + high] += np.float32(p_lam)
                hess[start + high] += np.float32(p_hess)
                sum_lambdas -= 2.0 * p_lam
            i += 1
        if norm and sum_lambdas > 0:
            f = np.log2(1.0 + sum_lambdas) / sum_lambdas
            for t in range(start, start + cnt):
                grad[t] = np.float32(grad[t] * f)
                hess[t] = np.float32(hess[t] * f)
    return grad, hess


@numba.njit(cache=True)
def _max_dcg(labels, offsets, gain, disc, k):
    """LightGBM's DCGCalculator::CalMaxDCGAtK: labels from the top grade
    down, ``sum_j disc[j] * gain[label]`` in position order."""
    nq = offsets.shape[0] - 1
    out = np.zeros(nq)
    n_labels = gain.shape[0]
    for q in range(nq):
        cnt = np.zeros(n_labels, dtype=np.int64)
        for t in range(offsets[q], offsets[q + 1]):
            cnt[labels[t]] += 1
        m = min(k, offsets[q + 1] - offsets[q])
        top = n_labels - 1
        ret = 0.0
        for j in range(m):
            while top > 0 and cnt[top] <= 0:
                top -= 1
            ret += disc[j] * gain[top]
            cnt[top] -= 1
        out[q] = ret
    return out


def lambda_gradients(scores, labels, offsets, *, convention=None, k: int = 10, truncation_level: int = 30,
                     sigmoid: float = 1.0, norm: bool = True, **overrides):
    """Per-document (gradient, hessian) of the LambdaRank objective, float32
    values as float64 arrays. ``convention``/``overrides`` as in
    :func:`evalrank.metrics.ndcg` (gain, discount, short; ``k`` is the cut-off
    of the short rule); ``convention="lightgbm"`` gives LightGBM's gradients."""
    return LambdaObjective(labels, offsets, convention=convention, k=k, truncation_level=truncation_level,
                           sigmoid=sigmoid, norm=norm, **overrides)(np.asarray(scores, dtype=np.float64))


class LambdaObjective:
    """The gradients for fixed training labels/queries, callable on scores
    (precomputes the ideal DCGs, tables and the per-query mask)."""

    def __init__(self, labels, offsets, *, convention=None, k: int = 10, truncation_level: int = 30,
                 sigmoid: float = 1.0, norm: bool = True, **overrides):
        if isinstance(truncation_level, bool) or not isinstance(truncation_level, (int, np.integer)) \
                or truncation_level < 1:
            raise ValueError(f"truncation_level must be a positive integer, got {truncation_level!r}")
        if not isinstance(sigmoid, (int, float)) or isinstance(sigmoid, bool) or sigmoid <= 0:
            raise ValueError(f"sigmoid must be a positive number, got {sigmoid!r}")
        opts = resolve(convention, **overrides)
        self.labels = np.ascontiguousarray(labels, dtype=np.int64)
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        n_grades = int(self.labels.max()) + 1 if self.labels.size else 1
        self.gain = gain_values(np.arange(n_grades), opts["gain"])
        longest = int(np.diff(self.offsets).max()) if self.offsets.size > 1 else 1
        self.disc = discount_values(np.arange(1, max(longest, 1) + 1), opts["discount"])
        if np.any(np.diff(self.gain) < 0):
            raise ValueError("the gain must not decrease with the grade (the ideal order is by grade)")
        max_dcg = _max_dcg(self.labels, self.offsets, self.gain, self.disc, int(truncation_level))
        self.inv_max_dcg = np.where(max_dcg > 0, 1.0 / np.where(max_dcg > 0, max_dcg, 1.0), 0.0)
        sizes = np.diff(self.offsets)
        self.active = np.ones(sizes.size, dtype=np.bool_)
        if opts["short"] == "zero":
            self.active &= sizes >= k  # NDCG@k is identically 0 on these queries
        self.trunc = int(truncation_level)
        self.sigmoid = float(sigmoid)
        self.norm = bool(norm)
        self.table, self.lo, self.hi, self.factor = sigmoid_table(self.sigmoid)

    def __call__(self, scores):
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        if scores.shape != self.labels.shape:
            raise ValueError(f"scores must have shape {self.labels.shape}, got {scores.shape}")
        mode, qstate, gstate = self._risk_state(scores)
        g, h = _lambda_kernel(scores, self.labels, self.offsets, self.gain, self.disc, self.inv_max_dcg,
                              self.active, self.trunc, self.sigmoid, self.norm, self.table, self.lo, self.hi,
                              self.factor, mode, qstate, gstate)
        return g.astype(np.float64), h.astype(np.float64)

    def _risk_state(self, scores):
        """(kernel mode, per-query state, scalar state); plain LambdaRank: none."""
        return _MODE_PLAIN, _NO_QSTATE, _NO_GSTATE


#: method name -> kernel mode (T*-FARO is T-FARO against the per-query mean of several baselines)
RISK_METHODS = {"lambdamart": _MODE_PLAIN, "u-cro": _MODE_UCRO, "t-saro": _MODE_SARO, "t-faro": _MODE_FARO,
                "t*-faro": _MODE_FARO, "georisk": _MODE_GEORISK}
_ONE_BASELINE = ("u-cro", "t-saro", "t-faro")
_MANY_BASELINES = ("t*-faro", "georisk")


def _check_scores_array(x, name: str, ndim: int, n_docs: int) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype == object or not (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)):
        raise TypeError(f"{name} must be a numeric array, got dtype {a.dtype}")
    want = "(n_docs,)" if ndim == 1 else "(m, n_docs)"
    if a.ndim != ndim or a.shape[-1] != n_docs or (ndim == 2 and a.shape[0] < 1):
        raise ValueError(f"{name} must have shape {want} with n_docs = {n_docs} (one score per training "
                         f"document), got shape {a.shape}")
    a = np.ascontiguousarray(a, dtype=np.float64)
    if not np.isfinite(a).all():
        raise ValueError(f"{name} contains NaN or infinite scores")
    return a


class RiskObjective(LambdaObjective):
    """Risk-sensitive LambdaMART gradients (Dinçer, Macdonald & Ounis 2016,
    Sec. 6): LambdaRank with each pair's ``|ΔNDCG|`` replaced by ``|ΔM'|``.

    Parameters
    ----------
    labels, offsets : the training queries.
    method : "lambdamart" (plain, ``ΔM' = ΔM``), "u-cro", "t-saro",
        "t-faro" (need ``baseline``), "t*-faro", "georisk" (need ``baselines``).
    alpha : risk sensitivity, ``>= 0``.
    baseline : (n_docs,) scores of the single baseline (e.g. the BM25 feature).
    baselines : (m, n_docs) scores of ``m`` learned baselines on the training data.
    risk_k : cut-off of the per-query effectiveness ``M(j)`` = NDCG@risk_k
        under ``convention`` (and ``overrides``) -- the paper's NDCG@10.
    trisk_scale : "sd" (default) or "se", the denominator of ``TR_j`` (below).
    convention, k, truncation_level, sigmoid, norm, **overrides : as
        :class:`LambdaObjective` (the pairs, ``ΔM`` and its normalization).

    Per call (NumPy, once per boosting iteration; no per-pair Python), from
    the current scores: ``M_m(j)`` = NDCG@risk_k of the model (at the first
    iteration every score is 0 and the convention's tie rule -- stable for
    LightGBM's -- gives the input order; Jforests instead sets ``M_m = 0``
    for the first tree); the baselines' ``M_b(j)`` are
    computed once in the constructor. Undefined NDCGs (``empty="skip"``)
    count as 0, and ``c`` is the number of training queries (all of them).
    With ``ΔM`` the pair's ``|ΔNDCG|`` signed ``+`` for an improving swap
    (the higher-labelled document currently ranks below) and ``-`` otherwise:

    * **U-CRO** (Wang et al. 2012; Jforests ``URiskAwareEval``): the change of
      the query's URisk summand, ``ΔM' = u(M_m + ΔM - M_b) - u(M_m - M_b)``,
      ``u(d) = d`` for ``d > 0``, ``(1 + α) d`` otherwise (eq. 9), computed in
      Jforests' piecewise form (scenarios A1/A2/B1/B2), which gives ``ΔM``
      bit for bit at ``α = 0``.
    * **T-SARO** (Jforests ``TRiskAwareSAROEval``): U-CRO with ``α`` replaced
      by ``β_j = (1 - Φ(TR_j)) α`` (eq. 10); **T-FARO**
      (``TRiskAwareFAROEval``): ``ΔM' = (1 + β_j) ΔM``; **T*-FARO**: T-FARO
      whose ``M_b(j)`` is the mean of the ``m`` baselines' NDCG@risk_k.
      ``TR_j = (M_m(j) - M_b(j)) / SD``, ``SD`` the sample standard deviation
      (``c - 1``) of ``d'_q = δ_q`` (``δ_q > 0``) or ``(1 + α) δ_q`` over all
      training queries -- Jforests' ``getEstimates``, which produced the
      paper's numbers. The paper's eq. (10) writes ``SE(URisk) = SD / sqrt(c)``
      instead: ``trisk_scale="se"`` (``TR_j`` larger by ``sqrt(c)``, so
      ``β_j`` near 0 or ``α``). ``SD = 0`` gives ``TR_j = 0``. ``SD`` is
      recomputed from the current model at every call; Jforests computes it
      once, at iteration 0, when its model evaluation is an all-zero array
      (so its ``SD`` is ``(1 + α) sd(M_b)``) and keeps it.
    * **GeoRisk** (eq. 7 and Sec. 6): the matrix ``X`` has the model as row
      ``i`` and the ``m`` baselines as the other rows (per-query
      NDCG@risk_k). Retained per call: ``S_i``, ``T_j``, ``N``, the model
      row's ``z_ij`` (eqs. 5-6, ``z = 0`` where ``e = 0``), ``ZRisk_i(α)`` and
      ``GeoRisk_i = sqrt(S_i / c Φ(ZRisk_i / c))``. A pair of query ``j``
      moves ``x_ij``, ``S_i``, ``T_j`` and ``N`` by ``ΔM``; only query ``j``'s
      summand of ZRisk is recomputed (the paper's shortcut), and ``ΔM' =
      c (GeoRisk' - GeoRisk_i)``. The shortcut is a different measure, not a
      small-ΔM approximation of recomputing GeoRisk: the ``c - 1`` kept
      ``z_ik`` would each move by O(ΔM / N) through ``S_i`` and ``N``, and
      together they offset the retained change (a row's residuals ``x - e``
      sum to 0). On test data (``c = 30``, 3 baselines) the shortcut is
      1.5x the full change at ``α = 0`` for every ``ΔM``, 1.5-2.1x at
      ``α = 1``, and at ``α = 5`` the full recomputation is not even
      consistent (half of the improving changes lower it) while the shortcut
      is. The factor ``c`` is a constant rescale that brings ``ΔM'``
      to the order of ``ΔM`` (LightGBM's Newton leaf values ``Σg / Σh`` do
      not depend on it, but ``min_sum_hessian_in_leaf`` and the per-query
      ``log2(1 + Σλ) / Σλ`` normalization do). GeoRisk at ``α = 0`` is *not*
      plain LambdaMART: its weight is about ``ΔM / sqrt(e_ij)`` times
      query-independent factors, so it varies from query to query.

    Normalization: with ``norm=True`` (LightGBM's ``lambdarank_norm``, the
    default) each pair weight is divided by ``0.01 + |Δscore|`` and each
    query's lambdas are rescaled by ``log2(1 + Σλ) / Σλ``; Jforests (the
    paper's learner) does neither. The second step largely undoes per-query
    risk weights: on 500 x 120 toy queries with informative scores, T-FARO
    at ``α = 5`` has ``1 + β_j`` from 3.1 to 4.9, and the per-query gradient
    mass relative to plain LambdaRank is exactly that with ``norm=False`` but
    1.5-2.0 (correlation with ``1 + β_j`` about 0) with ``norm=True`` (at
    all-zero scores: 4.0-5.5 against 1.4-1.7). Use ``norm=False`` to weight
    queries as Jforests does.
    """

    def __init__(self, labels, offsets, *, method: str, alpha: float, baseline=None, baselines=None,
                 risk_k: int = 10, trisk_scale: str = "sd", convention=None, k: int = 10,
                 truncation_level: int = 30, sigmoid: float = 1.0, norm: bool = True, **overrides):
        if not isinstance(method, str):
            raise TypeError(f"method must be a string, one of {list(RISK_METHODS)}, got {method!r}")
        if method not in RISK_METHODS:
            raise ValueError(f"method must be one of {list(RISK_METHODS)}, got {method!r}")
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
            raise TypeError(f"alpha must be a number, got {alpha!r}")
        if not np.isfinite(alpha) or alpha < 0:
            raise ValueError(f"alpha must be finite and >= 0, got {alpha!r}")
        if isinstance(risk_k, bool) or not isinstance(risk_k, (int, np.integer)) or risk_k < 1:
            raise ValueError(f"risk_k must be a positive integer, got {risk_k!r}")
        if trisk_scale not in ("sd", "se"):
            raise ValueError(f"trisk_scale must be 'sd' or 'se', got {trisk_scale!r}")
        super().__init__(labels, offsets, convention=convention, k=k, truncation_level=truncation_level,
                         sigmoid=sigmoid, norm=norm, **overrides)
        self.method = method
        self.mode = RISK_METHODS[method]
        self.alpha = float(alpha)
        self.risk_k = int(risk_k)
        self.trisk_scale = trisk_scale
        self.convention = convention
        self._ndcg_opts = dict(overrides)
        self._doc_ids = None
        if resolve(convention, **overrides)["ties"] == "docid":  # as RankingModel.metric: ids = row in the query
            from evalrank.metrics.ranking import position_ids

            self._doc_ids = position_ids(self.offsets)
        n_docs = self.labels.shape[0]
        needs_one, needs_many = method in _ONE_BASELINE, method in _MANY_BASELINES
        if needs_one and baseline is None:
            raise ValueError(f"method {method!r} needs baseline (the single baseline's scores per document)")
        if needs_many and baselines is None:
            raise ValueError(f"method {method!r} needs baselines (an (m, n_docs) array of the learned "
                             "baselines' scores)")
        if baseline is not None and not needs_one:
            raise ValueError(f"baseline is used only by {list(_ONE_BASELINE)}; method {method!r} "
                             + ("takes baselines" if needs_many else "takes none"))
        if baselines is not None and not needs_many:
            raise ValueError(f"baselines is used only by {list(_MANY_BASELINES)}; method {method!r} "
                             + ("takes baseline" if needs_one else "takes none"))
        self.baseline_ndcg = None  # (n_queries,) M_b(j), or (m, n_queries) for several baselines
        if needs_one:
            self.baseline_ndcg = self.per_query(_check_scores_array(baseline, "baseline", 1, n_docs))
        elif needs_many:
            B = _check_scores_array(baselines, "baselines", 2, n_docs)
            self.baseline_ndcg = np.stack([self.per_query(b) for b in B])
        self.n_queries = self.offsets.shape[0] - 1

    def per_query(self, scores) -> np.ndarray:
        """NDCG@risk_k per query under the objective's convention (NaN -> 0)."""
        from evalrank.metrics.ndcg import ndcg

        v = ndcg(scores, self.labels, self.offsets, self.risk_k, convention=self.convention,
                 doc_ids=self._doc_ids, **self._ndcg_opts)
        return np.nan_to_num(v, nan=0.0)

    def state(self, scores) -> dict:
        """The per-query quantities of one call, for inspection: ``mm``
        (``M_m(j)``), and by method ``mb``, ``beta``, ``tr``, ``sd``, or the
        GeoRisk state ``S``, ``T``, ``N``, ``z``, ``zrisk``, ``georisk``."""
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        mm = self.per_query(scores)
        out = {"mm": mm}
        c = self.n_queries
        a = self.alpha
        if self.method in ("u-cro", "t-saro", "t-faro", "t*-faro"):
            mb = self.baseline_ndcg if self.baseline_ndcg.ndim == 1 else self.baseline_ndcg.mean(axis=0)
            out["mb"] = mb
            if self.method == "u-cro":
                out["beta"] = np.full(c, a)
            else:
                from scipy.special import erfc

                d = mm - mb
                dprime = np.where(d > 0, d, (1.0 + a) * d)
                sd = float(np.std(dprime, ddof=1)) if c > 1 else 0.0
                scale = sd if self.trisk_scale == "sd" else sd / np.sqrt(c)
                tr = d / scale if scale > 0 else np.zeros(c)
                out.update(sd=sd, tr=tr, beta=0.5 * erfc(tr / _SQRT2) * a)  # (1 - Φ(TR)) α
        elif self.method == "georisk":
            B = self.baseline_ndcg
            S = float(mm.sum())
            T = mm + B.sum(axis=0)
            N = S + float(B.sum())
            e = S * T / N if N > 0 else np.zeros(c)
            with np.errstate(divide="ignore", invalid="ignore"):
                z = np.where(e > 0, (mm - e) / np.sqrt(np.where(e > 0, e, 1.0)), 0.0)
            zrisk = float(np.where(z > 0, z, (1.0 + a) * z).sum())
            out.update(S=S, T=T, N=N, z=z, zrisk=zrisk, georisk=math.sqrt(max(S / c * _phi(zrisk / c), 0.0)))
        return out

    def _risk_state(self, scores):
        if self.mode == _MODE_PLAIN:
            return super()._risk_state(scores)
        st = self.state(scores)
        c = self.n_queries
        q = np.zeros((5, c))
        q[_Q_MM] = st["mm"]
        g = np.zeros(6)
        if self.mode == _MODE_GEORISK:
            q[_Q_T] = st["T"]
            q[_Q_Z] = st["z"]
            g[_G_S], g[_G_N], g[_G_ZRISK], g[_G_GEO], g[_G_C], g[_G_ALPHA] = (
                st["S"], st["N"], st["zrisk"], st["georisk"], c, self.alpha)
        else:
            q[_Q_MB] = st["mb"]
            q[_Q_ALPHA] = st["beta"]
        return self.mode, q, g
