"""Coordinate Ascent (Metzler & Croft 2007), as in RankLib, under an NDCG convention.

A linear ranker ``f(x) = w . x`` on standardized features whose weights
maximize the *training* mean NDCG@k directly by coordinate-wise line
search (Metzler & Croft 2007, "Linear feature-based models for information
retrieval", Information Retrieval 10: 257-274, coordinate-level ascent;
RankLib's ``CoorAscent``). Busa-Fekete et al. (2012,
Sec. 4 item 5) ran it with ``R = 30`` random restarts and ``T = 100``
iterations and kept, among the models of all restarts, the one with the
highest validation NDCG; their Sec. 5 shows that the NDCG convention used
*during training* changes the learned model: under the LETOR 4.0 / MS
convention (``short="zero"``) a query with fewer than ``k`` documents scores
0 whatever the weights, so it cannot move the objective and the model
learns nothing from it. Every metric value here -- the line searches, the
restart selection -- is :meth:`RankingModel.metric`, i.e. NDCG under the
model's ``convention``.

Algorithm (what one "iteration" is)
-----------------------------------
For restart ``r = 0 .. n_restarts - 1`` (stream ``seeds.rng(seed, "models",
"coordinate_ascent", "restart", r)``):

1. start: restart 0 from RankLib's uniform weights ``w_j = 1/F``; every
   later restart from random Gaussian weights (Busa-Fekete et al.'s
   "restarts R from random initial weights"); weights are always rescaled to unit L1 norm (RankLib
   ``normalize``; NDCG only sees the order, so the scale is free).
2. one **iteration** = one sweep over all ``F`` coordinates in a fresh
   random order. For coordinate ``j`` the line search evaluates, in one
   batched call, the current weights and the moves ``w_j + d delta_s`` with
   ``d`` in {+1, -1} and ``delta_s = step_base * step_scale**s``,
   ``s = 0 .. n_steps - 1`` (steps growing geometrically from a base step in
   both directions, as RankLib), plus ``w_j = 0`` (RankLib's "feature
   removed" move, skipped when it would zero every weight). The candidate
   with the highest training mean metric replaces the current weights if it
   is strictly better (ties go to the current weights, then to the earlier
   candidate); the weights are then L1-normalized. Unlike RankLib, both
   directions are always searched (RankLib tries ``-`` only if ``+``
   failed) -- the batch makes this free.
3. the restart ends after ``n_iterations`` sweeps, or earlier when a sweep
   raised the training mean metric by less than ``tolerance``.
4. the restart's final weights are scored on the validation half; the best
   validation mean metric over restarts is kept (ties: earlier restart).

Speed: the line search of one coordinate scores all ``2 n_steps + 2``
candidate weight vectors at once with :class:`BatchMetric`, a compiled
kernel for per-query NDCG@k of a score *matrix* (top-k by insertion, no
sort of the whole list), exactly equal to :meth:`RankingModel.metric` for
every convention with stable tie-breaking (tested); other tie rules (e.g.
``sklearn``'s tie-averaging) fall back to one :meth:`RankingModel.metric`
call on the candidates stacked as extra queries. Measured on one core with
400 training queries (~8,500 documents) x 46 features: 0.1-0.2 s per sweep;
a fit with the defaults takes 1-4 s (restarts stop after 2-7 sweeps), at
most ~16 s when all 3 x 20 sweeps run; the paper's R = 30, T = 100 took
~10 s. The candidate matrix holds ``(2 n_steps + 2) x n_docs`` floats.

Features: signed ``log1p`` of heavy-tailed columns and z-scoring
(:class:`evalrank.models.FeatureTransform`, option ``log1p``), with the
statistics taken from the documents of the *informative* training queries
only (:func:`informative_queries`: those whose NDCG@k under the convention
can change with the ranking). A query that cannot move the objective --
no relevant document, all documents of one grade, or (LETOR 4.0) shorter
than ``k`` -- therefore has no influence at all on the learned model, not
even through the feature scaling.
Probabilities come from a :class:`~evalrank.models.calibrate.GradeCalibrator`
fitted on the validation half.
"""

from __future__ import annotations

import numba
import numpy as np

from evalrank import seeds
from evalrank.metrics.conventions import resolve
from evalrank.metrics.dcg import discount_values, gain_values, ideal_dcg
from evalrank.metrics.ranking import round_scores
from evalrank.models import FeatureTransform, RankingModel

__all__ = ["CoordinateAscentModel", "BatchMetric", "informative_queries", "check_int", "check_float",
           "check_log1p"]


# ---------------------------------------------------------------------------
# hyperparameter checks (ValueError names the parameter)
# ---------------------------------------------------------------------------
def check_int(params: dict, name: str, minimum: int) -> int:
    value = params[name]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_float(params: dict, name: str, *, above: float | None = None, at_least: float | None = None) -> float:
    value = params[name]
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value) or (above is not None and not value > above) \
            or (at_least is not None and not value >= at_least):
        bound = f"> {above}" if above is not None else f">= {at_least}"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
    return float(value)


def check_log1p(params: dict) -> str:
    value = params["log1p"]
    if value not in ("auto", "none", "all"):
        raise ValueError(f"log1p must be 'auto', 'none' or 'all', got {value!r}")
    return value


# ---------------------------------------------------------------------------
# per-query NDCG@k of many score vectors at once
# ---------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _ndcg_rows(S, gains, offsets, disc, ideal, k, empty_value, short_zero, out):
    """``out[c, q]`` = NDCG@k of query ``q`` ranked by ``S[c]``: stable ties
    (a document ranks after every earlier document with an equal score),
    DCG summed in rank order from 0.0 as :func:`evalrank.metrics.dcg.ranked_dcg`
    does, then the empty rule (ideal <= 0 -> ``empty_value``, NaN = skip)
    before the short rule (``short_zero`` and fewer than ``k`` docs -> 0)."""
    n_cand = S.shape[0]
    nq = offsets.shape[0] - 1
    top = np.empty(k, dtype=np.int64)
    top_s = np.empty(k, dtype=np.float64)
    for c in range(n_cand):
        for q in range(nq):
            a = offsets[q]
            b = offsets[q + 1]
            m = b - a
            best = ideal[q]
            if not best > 0.0:
                out[c, q] = empty_value
                continue
            if short_zero and m < k:
                out[c, q] = 0.0
                continue
            kk = min(k, m)
            cnt = 0
            for i in range(a, b):
                s = S[c, i]
                if cnt == kk:
                    if not s > top_s[kk - 1]:
                        continue
                    pos = kk - 1
                else:
                    pos = cnt
                    cnt += 1
                while pos > 0 and s > top_s[pos - 1]:
                    top_s[pos] = top_s[pos - 1]
                    top[pos] = top[pos - 1]
                    pos -= 1
                top_s[pos] = s
                top[pos] = i
            d = 0.0
            for j in range(kk):
                d += gains[top[j]] * disc[j]
            out[c, q] = d / best


class BatchMetric:
    """Per-query ``model.metric(·, labels, offsets, k)`` of many score vectors.

    ``bm(S)`` with ``S`` of shape ``(C, n_docs)`` returns ``(C, n_queries)``,
    row ``c`` equal to ``model.metric(S[c], labels, offsets, k)``. Fast path
    (``fast`` is True): the compiled kernel, for conventions with
    ``ties="stable"`` when ``model.metric`` is the base class's (gains,
    discounts, ideal DCG and the empty/short/precision rules come from
    :func:`evalrank.metrics.conventions.resolve` and
    :mod:`evalrank.metrics.dcg`, so the values are bit-identical). Otherwise
    one ``model.metric`` call on the ``C`` candidates stacked as ``C x
    n_queries`` queries.
    """

    def __init__(self, model: RankingModel, labels, offsets, k: int):
        self.model = model
        self.labels = np.asarray(labels)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.k = int(k)
        self.n_queries = len(self.offsets) - 1
        opts = resolve(model.convention)
        self.fast = opts["ties"] == "stable" and type(model).metric is RankingModel.metric
        if self.fast:
            self.precision = opts["precision"]
            self.gains = np.ascontiguousarray(gain_values(self.labels, opts["gain"]), dtype=np.float64)
            self.disc = np.ascontiguousarray(
                discount_values(np.arange(self.k, dtype=np.float64) + 1.0, opts["discount"]))
            sizes = np.diff(self.offsets)
            cap = sizes if opts["short"] == "truncate-ideal" else None
            self.ideal = np.ascontiguousarray(
                ideal_dcg(self.labels, self.offsets, self.k, gain=opts["gain"], discount=opts["discount"], cap=cap),
                dtype=np.float64)
            self.empty_value = np.nan if opts["empty"] == "skip" else float(opts["empty"])
            self.short_zero = opts["short"] == "zero"

    def __call__(self, S) -> np.ndarray:
        S = np.asarray(S, dtype=np.float64)
        if S.ndim == 1:
            S = S[None, :]
        n_cand, n = S.shape
        if n != self.labels.shape[0]:
            raise ValueError(f"score matrix must have {self.labels.shape[0]} columns, got {n}")
        if self.fast:
            S = np.ascontiguousarray(round_scores(S, self.precision))
            if np.isnan(S).any():
                raise ValueError("scores contain NaN")
            out = np.empty((n_cand, self.n_queries), dtype=np.float64)
            _ndcg_rows(S, self.gains, self.offsets, self.disc, self.ideal, self.k, self.empty_value,
                       self.short_zero, out)
            return out
        starts = (self.offsets[:-1][None, :] + n * np.arange(n_cand, dtype=np.int64)[:, None]).ravel()
        tiled = np.concatenate([starts, [n * n_cand]]).astype(np.int64)
        values = self.model.metric(S.ravel(), np.tile(self.labels, n_cand), tiled, k=self.k)
        return np.asarray(values, dtype=np.float64).reshape(n_cand, self.n_queries)

    @staticmethod
    def mean(values: np.ndarray) -> np.ndarray:
        """Row-wise nan-mean (NaN = query not counted); 0.0 for a row with no
        counted query."""
        values = np.atleast_2d(values)
        counted = ~np.isnan(values)
        n = counted.sum(axis=1)
        total = np.where(counted, values, 0.0).sum(axis=1)
        return np.where(n > 0, total / np.maximum(n, 1), 0.0)


def informative_queries(labels, offsets, k: int, convention: str | None) -> np.ndarray:
    """Boolean ``(n_queries,)``: queries whose NDCG@k under ``convention``
    can depend on the ranking.

    Not informative: a query with ideal DCG@k = 0 (no relevant document: it
    gets the convention's ``empty`` value), a query whose documents all have
    the same gain (every order gives the same DCG), and under ``short="zero"``
    (LETOR 4.0 / MS, Busa-Fekete eq. 4) a query with fewer than ``k``
    documents (NDCG@k = 0 whatever the order).
    """
    opts = resolve(convention)
    labels = np.asarray(labels)
    offsets = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(offsets)
    nq = sizes.size
    out = np.zeros(nq, dtype=bool)
    nonempty = sizes > 0
    if not nonempty.any():
        return out
    gains = gain_values(labels, opts["gain"])
    starts = offsets[:-1][nonempty]
    gmin = np.minimum.reduceat(gains, starts)
    gmax = np.maximum.reduceat(gains, starts)
    cap = sizes if opts["short"] == "truncate-ideal" else None
    ideal = ideal_dcg(labels, offsets, k, gain=opts["gain"], discount=opts["discount"], cap=cap)
    out[nonempty] = gmin < gmax
    out &= ideal > 0
    if opts["short"] == "zero":
        out &= sizes >= k
    return out


def fit_transform_informative(train, k: int, convention, log1p: str):
    """A :class:`FeatureTransform` fitted on the documents of the informative
    training queries (all documents when there is none), and the transformed
    training features (float64, C order)."""
    inf = informative_queries(train.labels, train.offsets, k, convention)
    rows = np.repeat(inf, train.query_sizes)
    fit_rows = train.features[rows] if rows.any() else train.features
    tf = FeatureTransform(log1p=log1p).fit(fit_rows)
    return tf, np.ascontiguousarray(tf.transform(train.features)), inf


def prepare_linear(model, train, vali, candidates, build):
    """The shared ``_prepare`` of the linear learners (Coordinate Ascent, AdaRank, AFS): check
    every grid point's parameters, then once per distinct ``(log1p, metric_k)`` fit the feature
    transform on the informative training queries and return ``{key: build(transform, X_train,
    X_vali, k)}`` (the learner's own cache entry)."""
    for params in candidates:
        model._check_params(params)
    cache = {}
    for params in candidates:
        key = (params["log1p"], int(params["metric_k"]))
        if key not in cache:
            tf, X, _ = fit_transform_informative(train, key[1], model.convention, key[0])
            cache[key] = build(tf, X, tf.transform(vali.features), key[1])
    return cache


def _l1_normalize(w: np.ndarray) -> np.ndarray:
    total = np.abs(w).sum()
    return w / total if total > 0 else w


# ---------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------
class CoordinateAscentModel(RankingModel):
    """Coordinate Ascent linear ranker (Metzler & Croft 2007; RankLib).

    Parameters (tunable)
    --------------------
    n_restarts : restarts ``R`` (Busa-Fekete et al. 2012 used 30; default 3).
    n_iterations : maximum sweeps ``T`` per restart; one sweep = one line
        search on every coordinate in a random order (paper: 100; default 20;
        a restart usually stops after 2-7 sweeps by ``tolerance``).
    step_base, step_scale, n_steps : line-search moves ``+-step_base *
        step_scale**s``, ``s < n_steps``, on L1-normalized weights (defaults
        0.001, 2, 12: moves from 0.001 to 2.05).
    tolerance : a restart stops after a sweep that improved the training
        mean NDCG@k by less than this (RankLib's default 0.001).
    log1p : feature transform (:class:`evalrank.models.FeatureTransform`).
    metric_k : the cut-off ``k`` of the optimized NDCG@k (10).
    calibration_alpha : L2 of the score-to-grade calibrator.

    After fitting: ``coef_`` (weights on the transformed features, unit L1
    norm), ``restarts_`` (one dict per restart of the kept grid point:
    ``train``/``vali`` mean metric, ``sweeps``), ``best_restart_``.
    """

    name = "coordinate_ascent"
    param_names = ("n_restarts", "n_iterations", "step_base", "step_scale", "n_steps", "tolerance", "log1p",
                   "metric_k", "calibration_alpha")
    # pure numpy + a nogil kernel, no shared mutable state: grid points may
    # run in threads (results do not depend on n_jobs)
    _parallel_grid = True

    @classmethod
    def default_params(cls):
        return dict(n_restarts=3, n_iterations=20, step_base=0.001, step_scale=2.0, n_steps=12, tolerance=0.001,
                    log1p="auto", metric_k=10, calibration_alpha=1.0)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._check_params(self.params)

    @staticmethod
    def _check_params(params: dict) -> None:
        check_int(params, "n_restarts", 1)
        check_int(params, "n_iterations", 1)
        check_float(params, "step_base", above=0.0)
        check_float(params, "step_scale", above=1.0)
        check_int(params, "n_steps", 1)
        check_float(params, "tolerance", at_least=0.0)
        check_log1p(params)
        check_int(params, "metric_k", 1)
        check_float(params, "calibration_alpha", at_least=0.0)

    def _prepare(self, train, vali, candidates):
        self._cache = prepare_linear(self, train, vali, candidates, lambda tf, X, Xv, k: {
            "transform": tf, "X": X, "XT": np.ascontiguousarray(X.T), "Xv": np.ascontiguousarray(Xv),
            "batch": BatchMetric(self, train.labels, train.offsets, k)})

    def _fit_one(self, train, vali, params):
        c = self._cache[(params["log1p"], int(params["metric_k"]))]
        X, XT, Xv, batch = c["X"], c["XT"], c["Xv"], c["batch"]
        k = int(params["metric_k"])
        n_features = X.shape[1]
        n_steps = int(params["n_steps"])
        steps = float(params["step_base"]) * float(params["step_scale"]) ** np.arange(n_steps, dtype=np.float64)
        tol = float(params["tolerance"])
        restarts = []
        best = None
        for r in range(int(params["n_restarts"])):
            gen = seeds.rng(self.seed, "models", self.name, "restart", r)
            if r == 0:
                w = np.full(n_features, 1.0 / n_features)
            else:
                w = gen.standard_normal(n_features)
            w = _l1_normalize(w)
            s = X @ w
            current = float(batch.mean(batch(s))[0])
            sweeps = 0
            for _ in range(int(params["n_iterations"])):
                before = current
                for j in gen.permutation(n_features):
                    wj = w[j]
                    moves = [np.zeros(1), steps, -steps]
                    if np.abs(w).sum() - abs(wj) > 0 and wj != 0:
                        moves.append(np.array([-wj]))
                    deltas = np.concatenate(moves)
                    S = s[None, :] + deltas[:, None] * XT[j][None, :]
                    means = batch.mean(batch(S))
                    pick = int(np.argmax(means))
                    if means[pick] > means[0]:
                        w[j] = wj + deltas[pick]
                        w = _l1_normalize(w)
                        s = X @ w
                    current = float(means[pick])
                sweeps += 1
                if current - before < tol:
                    break
            vali_value = float(BatchMetric.mean(self.metric(Xv @ w, vali.labels, vali.offsets, k=k))[0])
            restarts.append({"restart": r, "train": current, "vali": vali_value, "sweeps": sweeps})
            if best is None or vali_value > best[1]:
                best = (w.copy(), vali_value, r)
        return {"transform": c["transform"], "coef": best[0], "restarts": restarts, "best_restart": best[2]}

    def _tuning_extra(self, state):
        row = state["restarts"][state["best_restart"]]
        return {"best_restart": state["best_restart"], "train_ndcg": row["train"], "sweeps": row["sweeps"]}

    def _predict_state(self, state, X, want_proba):
        scores = state["transform"].transform(X) @ state["coef"]
        proba = self.calibrator_.predict_proba(scores) if want_proba else None
        return scores, proba

    def _finalize(self, train, vali):
        self.restarts_ = [dict(r) for r in self.state_["restarts"]]
        self.best_restart_ = self.state_["best_restart"]
        self._fit_calibrator(vali)

    def _cleanup(self):
        self._cache = {}

    @property
    def coef_(self):
        self._check_fitted()
        return self.state_["coef"]
