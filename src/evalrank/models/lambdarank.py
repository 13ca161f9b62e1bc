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

The kernel reads a pair's sigmoid from the 2^20-bin table (:func:`sigmoid_table`), or -- where the compiled
``exp`` recomputes every entry bit for bit (:func:`exp_matches_table`, checked once per process) --
recomputes the entry itself: the same gradients either way. Which is faster depends on the cache the rest
of the machine leaves the job: recomputing won on 300 queries under a load of 3-4 (13-18 against 22-35 ms
a call), the table at paper scale on an idle 2-core machine (a LambdaMART fit of 100,000 documents 21 %
less CPU; benchmarks/RESULTS.md, "Paper scale, third projection"). So a :class:`LambdaObjective` times
both ways on its first calls and keeps the faster one (:data:`SIGMOID_TRIALS`).

Risk-sensitive LambdaMART (:class:`evalrank.papers.dincer2016.risk_objective.RiskObjective`;
Dinçer, Macdonald & Ounis 2016, Sec. 6) runs the same kernel with ``|ΔNDCG|`` replaced by a
risk-sensitive ``|ΔM'|`` just before LightGBM's ``delta /= 0.01f +
|Δscore|`` step; everything else (sort, pairs, sigmoid table, float32
accumulation, per-query normalization) is shared, and ``mode = 0`` leaves
every operation of plain LambdaRank untouched.
"""

from __future__ import annotations

import math
import time

import numba
import numpy as np

from evalrank import _jit
from evalrank.metrics.conventions import resolve
from evalrank.metrics.dcg import discount_values, gain_values
from evalrank.models import check_n_jobs

__all__ = ["LambdaObjective", "SIGMOID_TRIALS", "exp_matches_table", "lambda_gradients", "sigmoid_table"]

_SIGMOID_BINS = 1024 * 1024
#: timed calls per way of reading the sigmoid before a :class:`LambdaObjective` keeps the faster (after
#: one untimed call: numba's compilation or cache loading)
SIGMOID_TRIALS = 2
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


@numba.njit(cache=True)
def _stable_order_desc(s, order, tmp):
    """``order[:n]`` = the stable descending order of ``s`` (``np.argsort(-s,
    kind="mergesort")``, LightGBM's ``std::stable_sort(>)``): insertion sort
    for short runs, then bottom-up merges; no allocation (``tmp`` is scratch).
    A stable sort's permutation is unique, so any stable algorithm gives the
    same one; NaN compares as neither greater nor smaller, so it keeps its
    place as mergesort on ``-s`` would not -- LightGBM's scores are never NaN."""
    n = s.shape[0]
    run = 16
    for lo in range(0, n, run):
        hi = min(lo + run, n)
        order[lo] = lo
        for t in range(lo + 1, hi):
            v = s[t]
            u = t
            while u > lo and s[order[u - 1]] < v:  # strictly smaller moves down: stable
                order[u] = order[u - 1]
                u -= 1
            order[u] = t
    src, dst = order, tmp
    width = run
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            a, b, k = lo, mid, lo
            while a < mid and b < hi:
                if s[src[b]] > s[src[a]]:  # the right run wins only when strictly greater: stable
                    dst[k] = src[b]
                    b += 1
                else:
                    dst[k] = src[a]
                    a += 1
                k += 1
            while a < mid:
                dst[k] = src[a]
                a += 1
                k += 1
            while b < hi:
                dst[k] = src[b]
                b += 1
                k += 1
        src, dst = dst, src
        width *= 2
    if src is not order:
        for t in range(n):
            order[t] = src[t]


#: query chunks of :func:`_lambda_kernel`'s parallel loop (fixed: the chunks, and so the result, do
#: not depend on the threads)
_CHUNKS = 256


@numba.njit(cache=True, parallel=True)
def _lambda_kernel(scores, labels, offsets, gain, disc, inv_max_dcg, active, trunc, sigmoid, norm, table, lo, hi,
                   factor, mode, qstate, gstate, recompute=False):
    """LightGBM's ``GetGradientsForOneQuery`` for every query. The pairs are
    visited in LightGBM's order (rank ``i`` of the current order, then ``j >
    i``) and each document's float32 gradient and hessian receive the same
    terms in the same order; the query's scores, labels and gains are first
    gathered into rank order (contiguous inner loop) and the sums are kept by
    rank, then scattered back to the documents -- the same floating-point
    operations as the per-document form, so the same bits. ``recompute``: a
    pair's sigmoid is its table entry recomputed, ``1 / (1 + exp(sigmoid x))``
    at the bin's ``x`` (as :func:`sigmoid_table`), instead of read from the 8 MB
    table; only where that gives every entry's bits (:func:`exp_matches_table`).
    Which is faster depends on the machine's cache (module docstring):
    :class:`LambdaObjective` times both. A query's gradients depend on that query
    alone, so chunks of queries run in parallel (numba's threads) with the same
    result on any number of threads."""
    n = scores.shape[0]
    grad = np.zeros(n, dtype=np.float32)
    hess = np.zeros(n, dtype=np.float32)
    nq = offsets.shape[0] - 1
    longest = 0
    for q in range(nq):
        longest = max(longest, offsets[q + 1] - offsets[q])
    n_chunks = min(nq, _CHUNKS)
    for c in numba.prange(n_chunks):
        _lambda_queries(c * nq // n_chunks, (c + 1) * nq // n_chunks, longest, scores, labels, offsets, gain, disc,
                        inv_max_dcg, active, trunc, sigmoid, norm, table, lo, hi, factor, mode, qstate, gstate,
                        recompute, grad, hess)
    return grad, hess


@numba.njit(cache=True)
def _lambda_queries(q0, q1, longest, scores, labels, offsets, gain, disc, inv_max_dcg, active, trunc, sigmoid, norm,
                    table, lo, hi, factor, mode, qstate, gstate, recompute, grad, hess):
    """:func:`_lambda_kernel` for queries ``q0 .. q1 - 1``, into ``grad`` and ``hess``."""
    nbins = table.shape[0]
    order = np.empty(longest, dtype=np.int64)
    tmp = np.empty(longest, dtype=np.int64)
    ss = np.empty(longest)  # scores by rank
    ls = np.empty(longest, dtype=np.int64)  # labels by rank
    gs = np.empty(longest)  # gains by rank
    g_r = np.empty(longest, dtype=np.float32)  # gradient sums by rank
    h_r = np.empty(longest, dtype=np.float32)
    # the risk state in scalars, read once (the scalar GeoRisk state) or once per query
    g_s = g_n = g_zrisk = g_geo = g_c = g_alpha = 0.0
    if mode == _MODE_GEORISK:
        g_s, g_n, g_zrisk = gstate[_G_S], gstate[_G_N], gstate[_G_ZRISK]
        g_geo, g_c, g_alpha = gstate[_G_GEO], gstate[_G_C], gstate[_G_ALPHA]
    q_mm = q_mb = q_alpha = q_t = q_z = q_faro = 0.0
    for q in range(q0, q1):
        start = offsets[q]
        cnt = offsets[q + 1] - start
        if cnt == 0 or not active[q]:
            continue
        if mode != 0:
            q_mm, q_mb, q_alpha = qstate[_Q_MM, q], qstate[_Q_MB, q], qstate[_Q_ALPHA, q]
            q_t, q_z = qstate[_Q_T, q], qstate[_Q_Z, q]
            q_faro = 1.0 + q_alpha
        s = scores[start:start + cnt]
        _stable_order_desc(s, order, tmp)
        for r in range(cnt):
            d = order[r]
            ss[r] = s[d]
            ls[r] = labels[start + d]
            gs[r] = gain[ls[r]]
            g_r[r] = 0.0
            h_r[r] = 0.0
        best = ss[0]
        worst_idx = cnt - 1
        if worst_idx > 0 and ss[worst_idx] == -np.inf:
            worst_idx -= 1
        worst = ss[worst_idx]
        inv = inv_max_dcg[q]
        sum_lambdas = 0.0
        i = 0
        scale = norm and best != worst
        while i < cnt - 1 and i < trunc:
            si = ss[i]
            if si == -np.inf:
                i += 1
                continue
            li = ls[i]
            gi = gs[i]
            di = disc[i]
            g_i = g_r[i]  # rank i's sums in registers: no pair of this loop touches them otherwise
            h_i = h_r[i]
            for j in range(i + 1, cnt):
                lj = ls[j]
                if li == lj:
                    continue
                sj = ss[j]
                if sj == -np.inf:
                    continue
                if li > lj:  # the higher-labelled document ranks first
                    delta_score = si - sj
                    gap = gi - gs[j]
                    paired = abs(di - disc[j])
                else:
                    delta_score = sj - si
                    gap = gs[j] - gi
                    paired = abs(disc[j] - di)
                delta = gap * paired * inv
                if mode != 0:  # risk-sensitive |ΔM'| from the signed ΔM (+ for an improving swap)
                    if mode == _MODE_FARO:  # |(1 + β_j) ΔM|: 1 + β_j > 0 and negation is exact, so the same bits
                        delta = q_faro * delta
                    elif mode == _MODE_GEORISK:
                        dm = delta if li < lj else -delta
                        delta = abs(_georisk_delta(dm, q_mm, q_t, q_z, g_s, g_n, g_zrisk, g_geo, g_c, g_alpha))
                    else:  # U-CRO, T-SARO
                        dm = delta if li < lj else -delta
                        delta = abs(_ucro_delta(dm, li < lj, q_mm, q_mb, q_alpha))
                if scale:
                    delta /= _F32_001 + abs(delta_score)
                if delta_score <= lo:
                    p = table[0]
                elif delta_score >= hi:
                    p = table[nbins - 1]
                else:
                    b = np.int64((delta_score - lo) * factor)
                    if recompute:
                        p = 1.0 / (1.0 + math.exp((b / factor + lo) * sigmoid))
                    else:
                        p = table[b]
                p_hess = p * (1.0 - p)
                p_lam = p * (-sigmoid * delta)
                p_hess *= sigmoid * sigmoid * delta
                lam32 = np.float32(p_lam)
                hess32 = np.float32(p_hess)
                if li > lj:  # LightGBM's order: the low document first, then the high one
                    g_r[j] -= lam32
                    h_r[j] += hess32
                    g_i += lam32
                    h_i += hess32
                else:
                    g_i -= lam32
                    h_i += hess32
                    g_r[j] += lam32
                    h_r[j] += hess32
                sum_lambdas -= 2.0 * p_lam
            g_r[i] = g_i
            h_r[i] = h_i
            i += 1
        if norm and sum_lambdas > 0:
            f = np.log2(1.0 + sum_lambdas) / sum_lambdas
            for r in range(cnt):
                grad[start + order[r]] = np.float32(g_r[r] * f)
                hess[start + order[r]] = np.float32(h_r[r] * f)
        else:
            for r in range(cnt):
                grad[start + order[r]] = g_r[r]
                hess[start + order[r]] = h_r[r]


@numba.njit(cache=True)
def _sigmoid_entries(n, lo, factor, sigmoid):
    """:func:`sigmoid_table`'s entries as the kernel recomputes them (``recompute=True``)."""
    out = np.empty(n)
    for b in range(n):
        out[b] = 1.0 / (1.0 + math.exp((b / factor + lo) * sigmoid))
    return out


_EXP_MATCHES = {}


def exp_matches_table(sigmoid: float = 1.0) -> bool:
    """Whether the compiled ``exp`` recomputes every entry of ``sigmoid_table(sigmoid)`` (NumPy's
    ``exp``) bit for bit on this machine -- then the kernel recomputes a pair's entry instead of
    reading it (the same gradients, fewer cache misses). Checked once per ``sigmoid`` and process."""
    key = float(sigmoid)
    if key not in _EXP_MATCHES:
        table, lo, _, factor = sigmoid_table(key)
        _EXP_MATCHES[key] = bool(np.array_equal(_sigmoid_entries(table.shape[0], lo, factor, key), table))
    return _EXP_MATCHES[key]


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
    (precomputes the ideal DCGs, tables and the per-query mask); ``n_jobs``:
    the kernel's threads (the same gradients on any number)."""

    def __init__(self, labels, offsets, *, convention=None, k: int = 10, truncation_level: int = 30,
                 sigmoid: float = 1.0, norm: bool = True, n_jobs: int = 1, **overrides):
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
        self.n_jobs = check_n_jobs(n_jobs)
        # how the kernel reads a pair's sigmoid (module docstring): the table, or recomputed where that gives
        # the table's bits; on the first calls both ways in turn, timed, then ``recompute`` is the faster
        both = exp_matches_table(self.sigmoid)
        self._plan = [False] + [False, True] * SIGMOID_TRIALS if both else []
        self._seconds = {False: [], True: []}
        self._calls = 0
        self.recompute = None if both else False

    def __call__(self, scores):
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        if scores.shape != self.labels.shape:
            raise ValueError(f"scores must have shape {self.labels.shape}, got {scores.shape}")
        mode, qstate, gstate = self._risk_state(scores)
        trying = self.recompute is None
        recompute = self._plan[self._calls] if trying else self.recompute
        t0 = time.perf_counter()
        with _jit.threads(self.n_jobs):
            g, h = _lambda_kernel(scores, self.labels, self.offsets, self.gain, self.disc, self.inv_max_dcg,
                                  self.active, self.trunc, self.sigmoid, self.norm, self.table, self.lo, self.hi,
                                  self.factor, mode, qstate, gstate, recompute)
        if trying:
            if self._calls:  # the first call is not timed
                self._seconds[recompute].append(time.perf_counter() - t0)
            self._calls += 1
            if self._calls == len(self._plan):
                self.recompute = min(self._seconds[True]) < min(self._seconds[False])
        return g.astype(np.float64), h.astype(np.float64)

    def _risk_state(self, scores):
        """(kernel mode, per-query state, scalar state); plain LambdaRank: none."""
        return _MODE_PLAIN, _NO_QSTATE, _NO_GSTATE
