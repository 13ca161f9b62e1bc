"""Risk-sensitive LambdaMART's gradients (Dinçer, Macdonald & Ounis 2016, Sec. 6):
:class:`RiskObjective`, LambdaRank whose pair weight ``|ΔNDCG|`` is replaced by a risk-sensitive
``|ΔM'|``. The compiled kernel is LambdaRank's own (:mod:`evalrank.models.lambdarank`: its risk
modes, the per-query and GeoRisk state it reads); this module computes that state from the
current scores, once per boosting iteration.
"""

from __future__ import annotations

import math

import numpy as np

from evalrank.metrics.conventions import resolve
from evalrank.models.lambdarank import (_G_ALPHA, _G_C, _G_GEO, _G_N, _G_S, _G_ZRISK, _MODE_FARO, _MODE_GEORISK,
                                        _MODE_PLAIN, _MODE_SARO, _MODE_UCRO, _Q_ALPHA, _Q_MB, _Q_MM, _Q_T, _Q_Z,
                                        _SQRT2, LambdaObjective, _phi)

__all__ = ["RiskObjective", "RISK_METHODS"]


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
    convention, k, truncation_level, sigmoid, norm, n_jobs, **overrides : as
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
                 truncation_level: int = 30, sigmoid: float = 1.0, norm: bool = True, n_jobs: int = 1,
                 **overrides):
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
                         sigmoid=sigmoid, norm=norm, n_jobs=n_jobs, **overrides)
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
